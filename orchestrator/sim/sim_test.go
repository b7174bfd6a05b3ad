package sim

import (
	"testing"
)

func TestSingleFlowGoodput(t *testing.T) {
	for _, tc := range []struct {
		mtu  int
		want float64 // fraction of line rate
	}{
		{4096, 0.980},
		{2048, 0.962},
		{1024, 0.926},
	} {
		t.Run(fmtVal(tc.mtu), func(t *testing.T) {
			const rate = 100.0
			r := mustRun(t, Config{
				Topology:   leafSpine(2, 1, 1, rate, rate),
				DefaultQoS: losslessQoS(true, true, 400_000, 1_600_000),
				Flows:      []Flow{{ID: "f", Src: "h0-0", Dst: "h1-0"}},
				DurationNs: 1_000_000,
				WarmupNs:   50_000,
				MTU:        tc.mtu,
			})
			got := r.Flows[0].GoodputGbps / rate
			exact := float64(tc.mtu) / float64(tc.mtu+WireOverheadBytes)
			if !within(got, tc.want, 0.005*tc.want) || !within(got, exact, 0.001) {
				t.Errorf("goodput = %.4f of line rate, want %.3f (exact %.4f)", got, tc.want, exact)
			}
			if r.Totals.Drops != 0 || r.Totals.PauseFrames != 0 || r.Totals.ECNMarked != 0 {
				t.Errorf("idle fabric: drops=%d pauses=%d marks=%d, want all 0", r.Totals.Drops, r.Totals.PauseFrames, r.Totals.ECNMarked)
			}
			if len(r.Flows[0].Path) != 5 {
				t.Errorf("path = %v, want host-leaf-spine-leaf-host", r.Flows[0].Path)
			}
		})
	}
}

// TestSmallMessageLatency checks the real-hardware anchor: a small
// message crosses one switch in 1-2 µs one way, and the figure is what
// the model adds up to (serialization twice, propagation, NIC delay, up
// to one switch jitter).
func TestSmallMessageLatency(t *testing.T) {
	r := mustRun(t, Config{
		Topology:   star(2, 100),
		Flows:      []Flow{{ID: "lat", Src: "h1", Dst: "h0", Bytes: 64}},
		DurationNs: 100_000,
	})
	f := r.Flows[0]
	if !f.Completed {
		t.Fatal("64-byte message not delivered")
	}
	ser := float64(64+WireOverheadBytes) * 8 / 100 // ns at 100G
	lo := 2*ser + 2*100 + 1000                     // two links of 100 ns
	if got := float64(f.Latency.Max); got < lo-1 || got > lo+100+1 {
		t.Errorf("one-way latency %v ns, want %.0f..%.0f", got, lo, lo+100)
	}
	if f.Latency.Max < 1000 || f.Latency.Max > 2000 {
		t.Errorf("one-way latency %d ns, want 1-2 µs through one switch", f.Latency.Max)
	}
}
