package sim

import (
	"context"
	"fmt"
	"math"
	"testing"
)

func ringRanks(leaves, perLeaf int) []string {
	var r []string
	for l := 0; l < leaves; l++ {
		for i := 0; i < perLeaf; i++ {
			r = append(r, fmt.Sprintf("h%d-%d", l, i))
		}
	}
	return r
}

// targetRingAllReduce runs a ring AllReduce through the packet engine on a
// non-blocking leaf-spine and checks it against the closed form and the
// flow-level model.
func targetRingAllReduce(t *testing.T, page *targetPage) {
	const rate = 100.0
	const size = 8 << 20
	for _, tc := range []struct {
		name                    string
		leaves, spines, perLeaf int
	}{
		{"8 ranks, 2 leaves", 2, 2, 4},
		{"6 ranks, 3 leaves", 3, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ranks := ringRanks(tc.leaves, tc.perLeaf)
			n := len(ranks)
			cfg := Config{
				Topology:   leafSpine(tc.leaves, tc.spines, tc.perLeaf, rate, rate),
				DefaultQoS: losslessQoS(true, false, 0, 0),
				Flows:      RingAllReduceFlows("ar", ranks, size, 26),
				DurationNs: 5_000_000,
				Seed:       3,
			}
			r := mustRun(t, cfg)
			got, ok := CollectiveTimeNs(r, "ar")
			if !ok {
				t.Fatal("AllReduce did not complete in the simulated time")
			}
			est, err := RingAllReduceFlowLevel(cfg, ranks, size)
			if err != nil {
				t.Fatal(err)
			}
			eta := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
			theory := RingAllReduceTheoryNs(n, size, eta, rate, est.LatencyNs)
			t.Logf("packet %d ns, flow-level %.0f ns, theory %.0f ns (step latency %.0f ns), events %d", got, est.TimeNs, theory, est.LatencyNs, r.Events)
			page.row(fmt.Sprintf("ring AllReduce of 8 MiB, %s, 100G non-blocking", tc.name),
				fmt.Sprintf("2(N−1)/N·S/(ηB) + 2(N−1) step latencies = %.1f µs ±3%%", theory/1000),
				fmt.Sprintf("%.1f µs (%+.2f%%)", float64(got)/1000, 100*(float64(got)-theory)/theory))
			if d := math.Abs(float64(got)-theory) / theory; d > 0.03 {
				t.Errorf("packet-level time %d ns is %.1f%% off theory %.0f ns, want within 3%%", got, 100*d, theory)
			}
			if d := math.Abs(float64(got)-est.TimeNs) / est.TimeNs; d > 0.05 {
				t.Errorf("flow-level time %.0f ns is %.1f%% off packet-level %d ns, want within 5%%", est.TimeNs, 100*d, got)
			}
			if r.Totals.Drops != 0 {
				t.Errorf("drops = %d", r.Totals.Drops)
			}
			// The same collective as one QP per rank (Config.Rings, as NCCL
			// runs it) takes the same time and reports every step.
			cfg.Flows = nil
			cfg.Rings = []Ring{{ID: "ring", Ranks: ranks, Bytes: size, DSCP: 26}}
			rr := mustRun(t, cfg)
			if len(rr.Rings) != 1 || rr.Rings[0].TimeNs == nil {
				t.Fatalf("ring did not complete: %+v", rr.Rings)
			}
			rt := *rr.Rings[0].TimeNs
			if d := math.Abs(float64(rt)-float64(got)) / float64(got); d > 0.01 {
				t.Errorf("ring QPs take %d ns, per-step flows %d ns: want within 1%%", rt, got)
			}
			st := rr.Rings[0]
			if len(st.StepEndNs) != 2*(n-1) || len(rr.Flows) != n {
				t.Fatalf("%d steps, %d flows; want %d and %d", len(st.StepEndNs), len(rr.Flows), 2*(n-1), n)
			}
			for k := 1; k < len(st.StepEndNs); k++ {
				if st.StepEndNs[k] < st.StepEndNs[k-1] || st.StepStartNs[k] < st.StepStartNs[k-1] || st.StepStartNs[k] > st.StepEndNs[k] {
					t.Fatalf("step %d: start %d end %d after step %d's %d..%d", k, st.StepStartNs[k], st.StepEndNs[k], k-1, st.StepStartNs[k-1], st.StepEndNs[k-1])
				}
			}
			// 8 MiB does not divide by 6 ranks: each rank sends its own
			// chunks, sizes that differ by a byte (RingRankBytes).
			for i, f := range rr.Flows {
				if want := RingRankBytes(size, n, i); !f.Completed || f.BytesDelivered != want {
					t.Errorf("ring QP %s: completed %v, %d bytes, want %d", f.ID, f.Completed, f.BytesDelivered, want)
				}
			}
			t.Logf("ring QPs %d ns, %d events (per-step flows %d events)", rt, rr.Events, r.Events)
		})
	}
}

func TestMaxMinFair(t *testing.T) {
	// Links 0 (cap 10) and 1 (cap 4): flow a uses 0, b uses 0 and 1, c uses 1.
	paths := [][]int32{{0}, {0, 1}, {1}}
	caps := []float64{10, 4}
	got := maxMinFair(paths, func(l int32) float64 { return caps[l] })
	want := []float64{8, 2, 2}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("rates = %v, want %v", got, want)
			break
		}
	}
}

// TestRingAllReduceOversubscribed interleaves ranks across two leaves
// joined by one 100G spine, so four flows share each uplink: the
// flow-level model's max-min shares must match the packet engine.
func TestRingAllReduceOversubscribed(t *testing.T) {
	var ranks []string
	for i := 0; i < 4; i++ {
		ranks = append(ranks, fmt.Sprintf("h0-%d", i), fmt.Sprintf("h1-%d", i))
	}
	const size = 4 << 20
	cfg := Config{
		Topology:   leafSpine(2, 1, 4, 100, 100),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		Flows:      RingAllReduceFlows("ar", ranks, size, 26),
		DurationNs: 5_000_000,
		Seed:       5,
	}
	r := mustRun(t, cfg)
	got, ok := CollectiveTimeNs(r, "ar")
	if !ok {
		t.Fatal("AllReduce did not complete in the simulated time")
	}
	est, err := RingAllReduceFlowLevel(cfg, ranks, size)
	if err != nil {
		t.Fatal(err)
	}
	eta := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	if !within(est.MinRateGbps, 25*eta, 0.01) {
		t.Errorf("flow-level share %.3f Gb/s, want a quarter of the uplink %.3f", est.MinRateGbps, 25*eta)
	}
	t.Logf("packet %d ns, flow-level %.0f ns", got, est.TimeNs)
	if d := math.Abs(float64(got)-est.TimeNs) / est.TimeNs; d > 0.05 {
		t.Errorf("flow-level time %.0f ns is %.1f%% off packet-level %d ns, want within 5%%", est.TimeNs, 100*d, got)
	}
}

// TestFlowLevel1024 runs the flow-level model on a 1024-GPU fabric
// (32 leaves x 16 spines, 32 x 200G NICs per leaf, 400G uplinks).
func TestFlowLevel1024(t *testing.T) {
	ranks := ringRanks(32, 32)
	cfg := Config{Topology: leafSpine(32, 16, 32, 200, 400), Seed: 1}
	const size = 1 << 30
	est, err := RingAllReduceFlowLevel(cfg, ranks, size)
	if err != nil {
		t.Fatal(err)
	}
	eta := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	theory := RingAllReduceTheoryNs(1024, size, eta, 200, est.LatencyNs)
	if d := math.Abs(est.TimeNs-theory) / theory; d > 0.01 {
		t.Errorf("1024 ranks: %.0f ns vs theory %.0f ns (%.2f%%)", est.TimeNs, theory, 100*d)
	}
	if !within(est.MinRateGbps, 200*eta, 0.01) {
		t.Errorf("slowest rank %.3f Gb/s, want NIC goodput %.3f on a non-blocking fabric", est.MinRateGbps, 200*eta)
	}
	t.Logf("1024 ranks, 1 GiB: %.3f ms, bus bandwidth %.1f Gb/s", est.TimeNs/1e6, est.BusBWGbps)
}

// TestFlowLevelRatesMatchPackets compares steady-state max-min rates with
// the packet engine: a 4:1 incast plus a pair sharing the incast's
// receiver leaf uplinks.
func TestFlowLevelRatesMatchPackets(t *testing.T) {
	cfg := Config{
		Topology:   leafSpine(2, 1, 4, 100, 100),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		DurationNs: 3_000_000,
		WarmupNs:   1_500_000,
		Seed:       2,
	}
	cfg.Flows = append(IncastFlows("in", []string{"h0-1", "h0-2", "h0-3"}, "h1-0", 0),
		PairFlows("p", []string{"h0-0"}, []string{"h1-1"}, 0, 1)...)
	rates, err := FlowLevelRates(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The uplink (100G) carries all four flows; h1-0 takes three of them.
	eta := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	for i, want := range []float64{25, 25, 25, 25} {
		if !within(rates[i], want*eta, 1e-6) {
			t.Errorf("flow %d: %.3f Gb/s, want %.3f", i, rates[i], want*eta)
		}
	}
	r := mustRun(t, cfg)
	for i, f := range r.Flows {
		if !within(f.GoodputGbps, rates[i], 0.05*rates[i]) {
			t.Errorf("flow %s: packet engine %.2f Gb/s, flow level %.2f: want within 5%%", f.ID, f.GoodputGbps, rates[i])
		}
	}
}

// TestRingAllReduceChain checks the flow-level model's chain against a
// case computed by hand, where a barrier per step is far off: four ranks,
// two per leaf (h0-0, h0-1 | h1-0, h1-1), one spine whose links are 10 µs
// long, no host-link propagation, NIC delay or jitter. Every QP runs at
// 100G goodput (T per 1 MiB chunk); the two hops within a leaf have a
// latency of one frame's store and forward, s = 4178 B x 8 / 100G =
// 334.24 ns, and the two across the spine 3s + 20 µs. With equal T the
// longest chain runs one hop back per step: 6 transfers and the latencies
// of 6 consecutive hops, once round the ring (8s + 40 µs) and two more (4s
// + 20 µs): 6T + 12s + 60 µs. A barrier per step would charge every step
// the slow hop: 6T + 18s + 120 µs, 10% more. The packet engine runs the
// same ring within 1% of the chain.
func TestRingAllReduceChain(t *testing.T) {
	topo := leafSpine(2, 1, 2, 100, 100)
	for i := range topo.Links {
		topo.Links[i].PropDelayNs = 0
		if topo.Links[i].B.Node == "spine0" {
			topo.Links[i].PropDelayNs = 10_000
		}
	}
	ranks := []string{"h0-0", "h0-1", "h1-0", "h1-1"}
	const size = 4 << 20
	cfg := Config{
		Topology: topo, DefaultQoS: losslessQoS(true, false, 0, 0), Seed: 1, DurationNs: 10_000_000,
		NICDelayNs: -1, SwitchJitterNs: -1, ClockSkewPPM: -1,
	}
	est, err := RingAllReduceFlowLevel(cfg, ranks, size)
	if err != nil {
		t.Fatal(err)
	}
	eta := 4096.0 / 4178
	T := float64(size/4) * 8 / (100 * eta)
	const s = 4178 * 8 / 100.0
	chain := 6*T + 12*s + 60_000
	barrier := 6*T + 18*s + 120_000
	t.Logf("flow level %.0f ns; by hand: chain %.0f ns, barrier %.0f ns", est.TimeNs, chain, barrier)
	if !within(est.TimeNs, chain, 1e-6*chain) {
		t.Errorf("flow-level time %.0f ns, want the chain computed by hand, %.0f ns", est.TimeNs, chain)
	}
	if !within(est.LatencyNs, (8*s+40_000)/4, 1e-6) || !within(est.MaxLatencyNs, 3*s+20_000, 1e-6) {
		t.Errorf("hop latency mean %.2f max %.2f ns, want %.2f and %.2f", est.LatencyNs, est.MaxLatencyNs, (8*s+40_000)/4, 3*s+20_000)
	}
	cfg.Rings = []Ring{{ID: "ring", Ranks: ranks, Bytes: size, DSCP: 26}}
	r := mustRun(t, cfg)
	if len(r.Rings) != 1 || r.Rings[0].TimeNs == nil {
		t.Fatalf("packet-level ring did not complete: %+v", r.Rings)
	}
	got := float64(*r.Rings[0].TimeNs)
	t.Logf("packet level %.0f ns (%+.2f%% from the chain)", got, 100*(got-est.TimeNs)/est.TimeNs)
	if !within(got, est.TimeNs, 0.01*est.TimeNs) {
		t.Errorf("packet-level ring %.0f ns, flow-level chain %.0f ns: want within 1%%", got, est.TimeNs)
	}
	// Every rank's last step lands at its own time, the last one at the
	// collective's end.
	last := 0.0
	for i, d := range est.RankDoneNs {
		if d <= 0 || d > est.TimeNs {
			t.Errorf("rank %d done at %.0f ns, outside the collective's %.0f", i, d, est.TimeNs)
		}
		last = max(last, d)
	}
	if last != est.TimeNs {
		t.Errorf("last rank done at %.0f ns, the collective at %.0f", last, est.TimeNs)
	}
}

// A ring AllReduce of a buffer that does not divide by the ranks moves
// what the collective needs, 2(N-1) x bytes in all, as NCCL's ring does:
// the buffer is cut into N chunks whose sizes add up to it (the first
// bytes%N one byte larger), and each step carries its chunk's own size
// (until 2026-12-07 every step carried ceil(bytes/N), so 1 B over 16
// ranks moved 480 B, and 64 MiB + 1 B 450 B too many). A buffer smaller
// than the ranks would leave chunks empty, which no step can carry: it
// is refused.
func TestRingAllReduceUnevenChunks(t *testing.T) {
	for _, c := range []struct {
		n     int
		bytes int64
	}{{16, 64<<20 + 1}, {16, 17}, {16, 31}, {5, 4*4096 + 3}, {16, 64 << 20}} {
		ranks := make([]string, c.n)
		for i := range ranks {
			ranks[i] = fmt.Sprintf("h%d", i)
		}
		flows := RingAllReduceFlows("ar", ranks, c.bytes, 26)
		if len(flows) != 2*(c.n-1)*c.n {
			t.Fatalf("%d B over %d ranks: %d flows, want %d", c.bytes, c.n, len(flows), 2*(c.n-1)*c.n)
		}
		total, lo := int64(0), c.bytes/int64(c.n)
		byID := map[string]int64{}
		for _, f := range flows {
			byID[f.ID] = f.Bytes
			total += f.Bytes
			if f.Bytes != lo && f.Bytes != lo+1 {
				t.Errorf("%d B over %d ranks: %s carries %d B, want %d or %d", c.bytes, c.n, f.ID, f.Bytes, lo, lo+1)
			}
		}
		if want := 2 * int64(c.n-1) * c.bytes; total != want {
			t.Errorf("%d B over %d ranks moves %d B, want 2(N-1) x bytes = %d B", c.bytes, c.n, total, want)
		}
		// A rank passes on in step k+1 the chunk it received in step k.
		for k := 0; k+1 < 2*(c.n-1); k++ {
			for i := range c.n {
				if a, b := byID[ringFlowID("ar", k, i)], byID[ringFlowID("ar", k+1, (i+1)%c.n)]; a != b {
					t.Errorf("%d B over %d ranks: step %d of rank %d carries %d B, its successor's step %d %d B", c.bytes, c.n, k, i, a, k+1, b)
				}
			}
		}
		for i := range c.n {
			sum := int64(0)
			for k := range 2 * (c.n - 1) {
				sum += byID[ringFlowID("ar", k, i)]
			}
			if got := RingRankBytes(c.bytes, c.n, i); got != sum {
				t.Errorf("%d B over %d ranks: RingRankBytes(rank %d) = %d, its steps carry %d", c.bytes, c.n, i, got, sum)
			}
		}
	}
	ranks := ringRanks(2, 8)
	if f := RingAllReduceFlows("ar", ranks, 15, 26); f != nil {
		t.Errorf("15 B over 16 ranks: %d flows, want none (a chunk would be empty, and a flow of 0 B runs for the whole duration)", len(f))
	}
	cfg := Config{Topology: leafSpine(2, 1, 8, 100, 100), DefaultQoS: losslessQoS(true, false, 0, 0), Seed: 1, DurationNs: 2_000_000}
	if _, err := RingAllReduceFlowLevel(cfg, ranks, 15); err == nil {
		t.Error("flow level: 15 B over 16 ranks ran, want refused")
	}
	bad := cfg
	bad.Rings = []Ring{{ID: "ring", Ranks: ranks, Bytes: 15, DSCP: 26}}
	if _, err := Run(context.Background(), bad); err == nil {
		t.Error("packet level: 15 B over 16 ranks ran, want refused")
	}

	// The packet engine's ring QPs: chunks of 4097 and 4096 B (one and
	// two packets of MTU 4096) over 4 ranks.
	const size = 4*4096 + 1
	ranks = []string{"h0-0", "h0-1", "h1-0", "h1-1"}
	cfg = Config{Topology: leafSpine(2, 1, 2, 100, 100), DefaultQoS: losslessQoS(true, false, 0, 0), Seed: 1, DurationNs: 2_000_000}
	cfg.Rings = []Ring{{ID: "ring", Ranks: ranks, Bytes: size, DSCP: 26}}
	r := mustRun(t, cfg)
	if len(r.Rings) != 1 || r.Rings[0].TimeNs == nil {
		t.Fatalf("packet-level ring did not complete: %+v", r.Rings)
	}
	total := int64(0)
	for _, f := range r.Flows {
		total += f.BytesDelivered
		var rank int
		if _, err := fmt.Sscanf(f.ID, "ring-r%d", &rank); err != nil {
			continue
		}
		if want := RingRankBytes(size, 4, rank); f.BytesDelivered != want || f.Bytes != want {
			t.Errorf("packet level: %s delivered %d B of %d, want %d", f.ID, f.BytesDelivered, f.Bytes, want)
		}
	}
	if total != 6*size {
		t.Errorf("packet level: the ring delivered %d B, want 2(N-1) x bytes = %d B", total, 6*size)
	}
	est, err := RingAllReduceFlowLevel(cfg, ranks, size)
	if err != nil {
		t.Fatal(err)
	}
	if est.ChunkBytes != 4097 {
		t.Errorf("flow level: chunk %d B, want the largest, 4097 B", est.ChunkBytes)
	}
	// The largest chunk bounds a step: the closed form charges it.
	eta := WireEfficiency(DefaultMTU)
	if got, want := RingAllReduceTheoryNs(4, size, eta, 100, 0), 6*4097*8/(eta*100); !within(got, want, 1e-6) {
		t.Errorf("theory %.3f ns, want 6 steps of the largest chunk, %.3f ns", got, want)
	}
}
