package runtime

import "math"

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
