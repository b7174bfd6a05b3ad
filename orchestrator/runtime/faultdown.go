package runtime

import (
	"math"

	engine "github.com/labctl/labctl/orchestrator/sim"
)

// FaultNs is a time of a fault in whole nanoseconds, rounded: a
// scenario's times are in µs as floats, and 700.003 µs truncated read
// 700002 ns.
func FaultNs(us float64) int64 { return int64(math.Round(us * 1000)) }

// DownNs lists when link fault f has its link down, as [down, up) in
// nanoseconds from the variant's start, up 0 meaning to its end: one
// interval for a link-down, one a flap that starts within durationUs for
// a link-flap, none for other kinds. The simulator's runtime runs these
// and a scenario checks them for overlaps before anything runs, so that
// both read a flap the same way.
func (f FaultSpec) DownNs(durationUs float64) [][2]int64 {
	switch f.Kind {
	case FaultLinkDown:
		iv := [2]int64{FaultNs(f.AtUs), 0}
		if f.ForUs > 0 {
			iv[1] = FaultNs(f.AtUs + f.ForUs)
		}
		return [][2]int64{iv}
	case FaultLinkFlap:
		// In whole nanoseconds: summing the flaps in float µs drifted,
		// and a flap of 1 ns could end where it began.
		t, down, up, end := FaultNs(f.AtUs), FaultNs(f.DownUs), FaultNs(f.UpUs), FaultNs(durationUs)
		var out [][2]int64
		for range f.Count {
			if t >= end {
				break
			}
			out = append(out, [2]int64{t, t + down})
			t += down + up
		}
		return out
	}
	return nil
}

// LinkFaults are link fault f as the simulator's faults of its link, one
// a down interval (DownNs), Link left for the caller to set: the
// simulator's runtime runs these, and DownFromStart reads them, so that
// both read a fault's times the same way.
func (f FaultSpec) LinkFaults(durationUs float64) []engine.LinkFault {
	var out []engine.LinkFault
	for _, iv := range f.DownNs(durationUs) {
		out = append(out, engine.LinkFault{DetectNs: FaultNs(f.DetectUs), ConvergeNs: FaultNs(f.ConvergeUs), DownNs: iv[0], UpNs: iv[1]})
	}
	return out
}

// DownFromStart says whether link fault f takes its link down at the
// start of the variant with every switch knowing at once (detect: 0us,
// converge: 0us; engine.LinkFault.DownFromStart): the simulator starts
// every QP's route without it, and on_path follows its flow so.
func (f FaultSpec) DownFromStart(durationUs float64) bool {
	for _, lf := range f.LinkFaults(durationUs) {
		if lf.DownFromStart() {
			return true
		}
	}
	return false
}
