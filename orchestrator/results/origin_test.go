package results

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// flowLevelRun is a flow-level run's record whose figures say src: an
// earlier labctl wrote "simulated" of them, this one "estimated".
func flowLevelRun(id string, src Source, tp float64) *Run {
	s := Summary{ThroughputGbpsTotal: 2 * tp, ThroughputGbpsMinFlow: tp, JainFairness: 1, Source: src, Model: ModelFlow}
	s.MarkNotComputed("drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99", "failed_flows")
	return &Run{SchemaVersion: SchemaVersion, RunID: id, Scenario: "incast", Lab: "64gpu", Runtime: "sim", Seed: 1, Model: ModelFlow, Status: StatusPassed,
		Variants: []Variant{{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Summary: s,
			Flows: []Flow{{ID: "a", Role: "incast", ThroughputGbps: tp, Source: src}, {ID: "b", Role: "incast", ThroughputGbps: tp, Source: src}}}}}
}

// A flow-level figure's origin is estimated whether its record says so
// (this labctl's) or says simulated with the flow model (an earlier
// one's); a packet-level or measured figure keeps its source.
func TestOriginOfFlowLevelFigures(t *testing.T) {
	for _, c := range []struct {
		s     Source
		model string
		want  Source
	}{
		{Estimated, ModelFlow, Estimated},
		{Simulated, ModelFlow, Estimated},
		{Simulated, ModelPacket, Simulated},
		{Simulated, "", Simulated},
		{Measured, ModelLive, Measured},
		{"", ModelFlow, ""},
	} {
		if got := Origin(c.s, c.model); got != c.want {
			t.Errorf("Origin(%q, %q) = %q, want %q", c.s, c.model, got, c.want)
		}
	}
	if SimulatorSource(ModelFlow) != Estimated || SimulatorSource(ModelPacket) != Simulated {
		t.Errorf("the simulator's figures: flow %q, packet %q", SimulatorSource(ModelFlow), SimulatorSource(ModelPacket))
	}
}

// Regress of a record an earlier labctl wrote of a flow-level run (its
// figures "simulated") against this labctl's (their figures "estimated"):
// both records are accepted, the runs compare without a warning that their
// sources differ, and every finding says estimated, in JSON and text.
func TestRegressOldFlowLevelRecordAgainstNew(t *testing.T) {
	old, cur := flowLevelRun("old", Simulated, 24.5), flowLevelRun("new", Estimated, 20)
	for _, r := range []*Run{old, cur} {
		if err := CheckComparable(r.RunID+".json", r); err != nil {
			t.Fatalf("record %s refused: %v", r.RunID, err)
		}
	}
	for _, pair := range [][2]*Run{{cur, old}, {old, cur}} {
		r := Compare(pair[0], pair[1], nil)
		if len(r.Warnings) > 0 {
			t.Errorf("run %s against baseline %s: warnings %q", pair[0].RunID, pair[1].RunID, r.Warnings)
		}
		regressed := 0
		for _, f := range r.Findings {
			if f.Source != "" && f.Source != Estimated {
				t.Errorf("run %s: finding %s %s says %q", pair[0].RunID, f.Metric, f.Scope, f.Source)
			}
			if f.Kind == FindingMetric && f.Regression {
				regressed++
			}
		}
		if pair[0] == cur && regressed == 0 {
			t.Errorf("24.5 -> 20 Gb/s a flow: no regression found: %+v", r.Findings)
		}
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "figures of the run: estimated, flow-level\n") {
			t.Errorf("run %s: text does not say the figures are estimated:\n%s", pair[0].RunID, b.String())
		}
	}
}

// The HTML report colours a flow-level run's source badge and chart
// labels as its own (orange), whichever way its record says it: each
// badge-<source> and src-<source> class the page uses beyond the
// packet-level default (simulated) has a rule in its style. They were
// named for the label 'simulated, flow-level' the reports no longer use.
func TestHTMLStylesFlowLevelSource(t *testing.T) {
	used := regexp.MustCompile(`class="(?:badge|src) ((?:badge|src)-[a-z-]+)"`)
	for _, src := range []Source{Estimated, Simulated} {
		html := renderedReports(t, flowLevelRun("r", src, 20))["html"]
		style, _, _ := strings.Cut(html, "</style>")
		classes := map[string]bool{}
		for _, m := range used.FindAllStringSubmatch(html, -1) {
			classes[m[1]] = true
		}
		if !classes["badge-"+sourceClass(flowLevelLabel)] {
			t.Errorf("record saying %s: no flow-level badge (classes %v)", src, classes)
		}
		for c := range classes {
			if c != "badge-simulated" && !strings.Contains(style, "."+c+"{") {
				t.Errorf("record saying %s: class %s has no style", src, c)
			}
		}
	}
}

// The index (results.db) names a flow-level variant's source as the
// record's figures are read: estimated, for a record written before
// flow-level figures said so as for one written now.
func TestIndexSaysFlowLevelEstimated(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	for i, src := range []Source{Simulated, Estimated} {
		id, err := s.NewRunID(t0.Add(time.Duration(i)*time.Minute), "incast", "64gpu")
		if err != nil {
			t.Fatal(err)
		}
		run := flowLevelRun(id, src, 20)
		run.Started = t0
		if err := s.SaveRun(run); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.db.QueryRow(`SELECT source FROM variants WHERE run_id = ?`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != string(Estimated) {
			t.Errorf("record saying %s: indexed as %q", src, got)
		}
	}
}
