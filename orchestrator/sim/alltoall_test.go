package sim

import (
	"fmt"
	"math"
	"testing"
)

// An all-to-all collective runs the same QPs as explicit per-pair flows
// and reports each sending rank's totals.
func TestAllToAllCollective(t *testing.T) {
	const n, size = 6, 256 << 10
	ranks := make([]string, n)
	for i := range ranks {
		ranks[i] = fmt.Sprintf("h%d", i)
	}
	cfg := Config{
		Topology:   star(n, 100),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		AllToAll:   []AllToAll{{ID: "a2a", Ranks: ranks, Bytes: size, DSCP: 26}},
		DurationNs: 2_000_000,
		Seed:       1,
	}
	r := mustRun(t, cfg)
	if len(r.AllToAll) != 1 || r.AllToAll[0].TimeNs == nil || len(r.Flows) != 0 {
		t.Fatalf("all-to-all: %+v, %d flows reported", r.AllToAll, len(r.Flows))
	}
	for _, rk := range r.AllToAll[0].Ranks {
		if rk.BytesDelivered != (n-1)*size || rk.DoneNs <= rk.StartNs {
			t.Errorf("rank %s: %d bytes, done at %d ns", rk.Src, rk.BytesDelivered, rk.DoneNs)
		}
	}
	// Each NIC sends and receives (n-1) x size at line rate goodput.
	ideal := float64((n-1)*size) * 8 / (100 * float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes))
	got := float64(*r.AllToAll[0].TimeNs)
	if got < ideal || got > 1.15*ideal {
		t.Errorf("all-to-all took %.0f ns, ideal %.0f ns", got, ideal)
	}
	// The same QPs as explicit flows take the same time.
	cfg.AllToAll = nil
	for i := range n {
		for j := range n {
			if i != j {
				cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("f%d-%d", i, j), Src: ranks[i], Dst: ranks[j], SrcPort: 49152 + (i*n + j), Bytes: size})
			}
		}
	}
	fr := mustRun(t, cfg)
	last := int64(0)
	for _, f := range fr.Flows {
		if f.FCTNs == nil {
			t.Fatalf("flow %s did not complete", f.ID)
		}
		last = max(last, f.StartNs+*f.FCTNs)
	}
	if d := math.Abs(float64(last)-got) / got; d > 0.01 {
		t.Errorf("explicit flows take %d ns, the collective %.0f ns", last, got)
	}
}
