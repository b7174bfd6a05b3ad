package sim

import (
	"fmt"
	"testing"
)

// targetSingleFlow: one flow on an idle fabric reaches MTU/(MTU+82) of
// the line rate.
func targetSingleFlow(t *testing.T, page *targetPage) {
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
			page.row(fmt.Sprintf("one flow, idle fabric, MTU %d", tc.mtu),
				fmt.Sprintf("%.1f%% of line rate ±0.5%% (exactly %d/%d = %.2f%%)", 100*tc.want, tc.mtu, tc.mtu+WireOverheadBytes, 100*exact),
				fmt.Sprintf("%.2f%% (%.2f Gb/s of 100), no drop, pause or mark", 100*got, r.Flows[0].GoodputGbps))
			if len(r.Flows[0].Path) != 5 {
				t.Errorf("path = %v, want host-leaf-spine-leaf-host", r.Flows[0].Path)
			}
		})
	}
}

// targetSmallMessageLatency checks the real-hardware anchor: a small
// message crosses one switch in 1-2 µs one way, and the figure is what
// the model adds up to (serialization twice, propagation, NIC delay, up
// to one switch jitter).
func targetSmallMessageLatency(t *testing.T, page *targetPage) {
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
	page.row("64-byte message through one switch, one way", "1–2 µs (real hardware)",
		fmt.Sprintf("%.2f µs (%.0f ns of NIC, links and serialization)", float64(f.Latency.Max)/1000, lo))
	if f.Latency.Max < 1000 || f.Latency.Max > 2000 {
		t.Errorf("one-way latency %d ns, want 1-2 µs through one switch", f.Latency.Max)
	}
}
