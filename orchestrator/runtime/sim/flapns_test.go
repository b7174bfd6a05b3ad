package sim

import (
	"strings"
	"testing"
)

// TestLinkFlapOfOneNanosecond: a link that flaps down for 1 ns every
// 100.001 us runs, every flap in the duration down and up again (until
// 2026-12-06 the flaps were summed in float microseconds and truncated
// to nanoseconds: the third went down and up at 700002 ns, and the
// simulator refused the variant).
func TestLinkFlapOfOneNanosecond(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	v := runScenarioText(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 1ms\nsample_every: 0\ntraffic:\n  - pattern: pairs\n"+
		"faults:\n  - kind: link-flap\n    link: leaf1-spine1\n    at: 500us\n    down: 1ns\n    up: 100us\n    count: 1000\n")
	var downs []float64
	for _, m := range v.Timeline {
		if strings.Contains(m.Kind, "down") {
			downs = append(downs, m.TimeUs)
		}
	}
	if len(downs) != 5 || downs[2] != 700.002 {
		t.Errorf("link downs at %v us: want 5, the third at 700.002", downs)
	}
}
