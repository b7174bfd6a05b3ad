package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// TestRingLimitSameRecord: where the sequential engine's rings turn off
// (ringLimit: at once, past 16 or 64 entries, past ringMax, never) moves
// events between the rings and the wheel, never their order, so every
// result is the same byte for byte. The test also checks that the
// limits it tries do turn the rings off at different points, some case
// past 16 entries but not past ringMax (a switch-off in the middle of a
// run, with events in both places), or it would compare one path with
// itself.
func TestRingLimitSameRecord(t *testing.T) {
	limits := []int{0, 16, 64, ringMax, math.MaxInt}
	var between []string // cases whose rings turn off past 16 entries but not past ringMax
	for name, cfg := range parallelCases() {
		t.Run(name, func(t *testing.T) {
			var want []byte
			var on []bool // the rings still on at the end, per limit
			for _, limit := range limits {
				s := runSim(t, cfg, func(s *sim) { s.ringLimit = limit })
				if s.par != nil {
					t.Fatalf("limit %d: the run was split; the rings are the sequential engine's", limit)
				}
				got, err := json.Marshal(s.result())
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = got
				} else if !bytes.Equal(got, want) {
					t.Errorf("ring limit %d: result differs from limit %d's (%d against %d bytes of JSON)", limit, limits[0], len(got), len(want))
				}
				on = append(on, s.q.txOn)
			}
			if on[0] || !on[len(on)-1] {
				t.Fatalf("rings on at the end %v for limits %v: want off at 0 and on with no limit", on, limits)
			}
			if !on[1] && on[3] {
				between = append(between, name)
			}
		})
	}
	slices.Sort(between)
	if len(between) == 0 {
		t.Fatal("no case turns the rings off past 16 entries and keeps them past ringMax: the limits compared are not different paths")
	}
	t.Logf("cases turning the rings off between 16 and ringMax entries: %v", between)
}
