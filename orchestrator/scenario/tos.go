package scenario

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/labctl/labctl/orchestrator/specyaml"
)

// TrafficClassWarnings names the traffic entries (and swept
// traffic_class values) whose TOS byte looks like a DSCP written where
// the TOS byte is wanted: its DSCP (the value / 4) is no lossless class
// of the lab, while the value read as a DSCP is one (traffic_class: 26,
// meaning DSCP 26, is the TOS byte of DSCP 6). Such flows run as best
// effort, and every PFC and ECN assertion fails without saying why.
// Best effort written as such (traffic_class 0, DSCP 0, where the lab's
// DSCP 0 is lossy) is not named: it is what a scenario may mean.
// lossless says whether the lab classifies a DSCP into a lossless class.
// Each warning starts with the value's file:line:col.
func (s *Spec) TrafficClassWarnings(lossless func(dscp int) bool) []string {
	var out []string
	check := func(tos int, path string, at pos) {
		if tos < 0 || tos >= 64 || lossless(tos>>2) || !lossless(tos) {
			return
		}
		msg := fmt.Sprintf("traffic_class %d is the TOS byte of DSCP %d, which the lab maps to no lossless class: these flows run as best effort, without PFC or ECN", tos, tos>>2)
		hint := fmt.Sprintf("fix: traffic_class is the TOS byte, DSCP x 4 + ECN bits; for DSCP %d, lossless in this lab, write traffic_class: %d (DSCP %d with ECT(0)); keep %d if best effort is meant", tos, tos<<2|2, tos, tos)
		where := s.file
		if at.line > 0 {
			where += fmt.Sprintf(":%d:%d", at.line, at.col)
		} else {
			var e *specyaml.Error
			if errors.As(specyaml.At(s.file, s.src, path, msg, ""), &e) && e.Line > 0 {
				where += fmt.Sprintf(":%d:%d", e.Line, e.Column)
			}
		}
		out = append(out, fmt.Sprintf("%s: %s (%s)", where, msg, hint))
	}
	s.eachTrafficClass(check)
	return out
}

// eachTrafficClass calls fn with each traffic_class the scenario's
// traffic is sent with: each entry's, with its path ("$.traffic[0].
// traffic_class"), and every swept value that is a number, with its
// place in the file where the matrix kept it.
func (s *Spec) eachTrafficClass(fn func(tos int, path string, at pos)) {
	for i, t := range s.Traffic {
		if t.TrafficClass != nil {
			fn(*t.TrafficClass, fmt.Sprintf("$.traffic[%d].traffic_class", i), pos{})
		}
	}
	for _, sw := range s.Matrix.Sweeps {
		if sw.family != famTraffic || len(sw.field) != 1 || sw.field[0] != "traffic_class" {
			continue
		}
		for j, v := range sw.Values {
			tos, err := strconv.Atoi(v)
			if err != nil {
				continue
			}
			var at pos
			if j < len(sw.valAt) {
				at = sw.valAt[j]
			}
			fn(tos, "", at)
		}
	}
}

// TrafficDSCPs are the DSCPs the scenario's traffic is sent with (each
// entry's traffic_class and every swept traffic_class value, divided by
// four), in ascending order: a run's record shows what the switches do
// with their classes beside RoCE's, so that best-effort traffic's class
// (its ingress admission, its queue) is in the report of a scenario that
// sends some.
func (s *Spec) TrafficDSCPs() []int {
	var set [64]bool
	s.eachTrafficClass(func(tos int, _ string, _ pos) {
		if tos >= 0 && tos < 256 {
			set[tos>>2] = true
		}
	})
	var out []int
	for d, ok := range set {
		if ok {
			out = append(out, d)
		}
	}
	return out
}
