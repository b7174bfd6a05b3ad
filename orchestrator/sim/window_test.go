package sim

import "testing"

// Messages smaller than the MTU, or not a multiple of it, are packetized as
// perftest posts them: each message ends in its own (short) packet.
func TestMessageSizePacketization(t *testing.T) {
	const rate = 100.0
	for _, tc := range []struct {
		msg  int64
		want float64 // fraction of line rate
	}{
		{0, 4096.0 / (4096 + WireOverheadBytes)},
		{64 << 10, 4096.0 / (4096 + WireOverheadBytes)},
		{1000, 1000.0 / (1000 + WireOverheadBytes)},
		{5000, 5000.0 / (5000 + 2*WireOverheadBytes)},
	} {
		t.Run(fmtVal(tc.msg), func(t *testing.T) {
			r := mustRun(t, Config{
				Topology:   star(2, rate),
				Flows:      []Flow{{ID: "f", Src: "h0", Dst: "h1", MessageBytes: tc.msg}},
				DurationNs: 500_000,
				WarmupNs:   50_000,
			})
			if got := r.Flows[0].GoodputGbps / rate; !within(got, tc.want, 0.002) {
				t.Errorf("message %d B: goodput %.4f of line rate, want %.4f", tc.msg, got, tc.want)
			}
		})
	}
	// A finite flow delivers exactly its bytes whatever the message size.
	r := mustRun(t, Config{
		Topology:   star(2, rate),
		Flows:      []Flow{{ID: "f", Src: "h0", Dst: "h1", Bytes: 10_000, MessageBytes: 3000}},
		DurationNs: 100_000,
	})
	if f := r.Flows[0]; !f.Completed || f.BytesDelivered != 10_000 {
		t.Errorf("10000 B in 3000 B messages: completed %v, delivered %d", f.Completed, f.BytesDelivered)
	}
	if _, err := Run(t.Context(), Config{Topology: star(2, rate), DurationNs: 1000,
		Flows: []Flow{{ID: "f", Src: "h0", Dst: "h1", MessageBytes: -1}}}); err == nil {
		t.Error("negative message size accepted")
	}
}

// Latency percentiles cover the measurement window only: a flow that ends
// before the warmup has no samples, and one that spans it is measured
// after it.
func TestLatencyWindow(t *testing.T) {
	cfg := Config{
		Topology: star(3, 100),
		Flows: []Flow{
			{ID: "early", Src: "h1", Dst: "h0", Bytes: 64},
			{ID: "late", Src: "h2", Dst: "h0", Bytes: 64, StartNs: 60_000},
		},
		DurationNs: 100_000,
		WarmupNs:   50_000,
	}
	r := mustRun(t, cfg)
	if l := r.Flows[0].Latency; l.Max != 0 || l.P99 != 0 {
		t.Errorf("flow done before the warmup has latency %+v, want none", l)
	}
	if l := r.Flows[1].Latency; l.P99 == 0 {
		t.Errorf("flow after the warmup has no latency")
	}
	if r.Totals.LatencyP99Ns != r.Flows[1].Latency.P99 {
		t.Errorf("run p99 %d ns, want the in-window flow's %d", r.Totals.LatencyP99Ns, r.Flows[1].Latency.P99)
	}
}
