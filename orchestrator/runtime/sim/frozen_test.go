package sim

import (
	"slices"
	"testing"

	"github.com/labctl/labctl/orchestrator/scenario"
)

// TestFrozenWindowHasNoLatencyOrFairness: when nothing is delivered in
// the measurement window (pfc-storm without a watchdog, every flow frozen
// after the warmup), the summary's p99 latency and Jain fairness are not
// computed (absent, n/a in the reports, an assertion on them fails with
// the reason) rather than a 0 that reads as the best latency and the
// worst fairness; with the watchdog the flows move and both are figures.
// The goodput before the storm, which came before the warmup ended, is
// measured from the start.
func TestFrozenWindowHasNoLatencyOrFairness(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	sc, err := scenario.Resolve("pfc-storm")
	if err != nil {
		t.Fatal(err)
	}
	sawFrozen := false
	for _, pt := range sc.Points() {
		vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), pt, 1)
		if err != nil {
			t.Fatal(err)
		}
		v := runVariant(t, l, vs)
		// The fault (5 ms) comes before the warmup ends (150 ms): the
		// goodput before it is measured from the start.
		if before, _ := v.Extra["faults"].(map[string]any)["goodput_before_gbps"].(float64); before < 100 {
			t.Errorf("%s: goodput before the storm %v Gb/s, want the incast's and the victim's", v.Name, v.Extra["faults"].(map[string]any)["goodput_before_gbps"])
		}
		frozen := v.Summary.ThroughputGbpsTotal == 0
		sawFrozen = sawFrozen || frozen
		nc := v.Summary.NotComputed
		t.Logf("%s: %.1f Gb/s, not computed %v", v.Name, v.Summary.ThroughputGbpsTotal, nc)
		for _, f := range []string{"latency_us_p99", "jain_fairness"} {
			if slices.Contains(nc, f) != frozen {
				t.Errorf("%s (%.1f Gb/s): %s not computed: %v, want %v", v.Name, v.Summary.ThroughputGbpsTotal, f, !frozen, frozen)
			}
		}
		if vs.Name == "ecn=on,pfc=on,qos.pfc_watchdog.enabled=false" && !frozen {
			t.Errorf("%s: %.1f Gb/s after the warmup, want the storm to have frozen every flow", v.Name, v.Summary.ThroughputGbpsTotal)
		}
	}
	if !sawFrozen {
		t.Error("no variant froze: the case this test is about did not happen")
	}
}
