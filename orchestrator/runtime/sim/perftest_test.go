package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
)

// variantOf expands the first point of a scenario on lab l.
func variantOf(t *testing.T, l *runtime.Lab, y string) runtime.VariantSpec {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), sc.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// TestLatencyPattern: ib_write_lat between two NICs under one leaf of the
// 16gpu lab reports a one-way latency of 1-2 µs (REFERENCE's hardware
// anchor; here the NICs' 1 µs delay, two 200G serializations of an
// 84-byte frame, 10 m of cable and the switch's pipeline jitter), its
// whole distribution, no throughput; an incast into the server's NIC
// queues the pong behind it and raises the tail far above.
func TestLatencyPattern(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	idle := runVariant(t, l, variantOf(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 5ms\nsample_every: 0\ntraffic:\n  - pattern: latency\n"))
	if len(idle.Flows) != 1 {
		t.Fatalf("%d flows", len(idle.Flows))
	}
	f := idle.Flows[0]
	lat := f.LatencyUs
	if f.Pattern != results.PatternLatency || f.HasThroughput() || lat == nil || lat.Iterations != 1000 || f.Reason != "" {
		t.Fatalf("latency flow %+v", f)
	}
	t.Logf("idle: min %.2f typical %.2f avg %.2f p99 %.2f p99.9 %.2f max %.2f stdev %.2f", *lat.Min, lat.P50, *lat.Avg, lat.P99, *lat.P999, lat.Max, *lat.Stdev)
	if lat.P50 < 1 || lat.P50 > 2 || *lat.Min > lat.P50 || lat.P50 > lat.P99 || lat.P99 > *lat.P999 || *lat.P999 > lat.Max {
		t.Errorf("idle latency %+v: want t_typical within 1-2 µs and min <= typical <= p99 <= p99.9 <= max", lat)
	}
	if len(f.Path) == 0 || *f.Retransmits != 0 || f.Bytes == nil || *f.Bytes != 2*2*1000 {
		t.Errorf("latency flow path %v retransmits %d bytes %v, want 4000", f.Path, *f.Retransmits, f.Bytes)
	}
	if idle.Summary.CompletionUs != nil || !strings.Contains(strings.Join(idle.Summary.NotComputed, " "), "throughput_gbps_total") {
		t.Errorf("latency-only summary %+v: want no throughput and no completion", idle.Summary)
	}

	// The same pair with an 8:1 incast into the server's NIC.
	loaded := runVariant(t, l, variantOf(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 20ms\nsample_every: 0\ntraffic:\n  - pattern: latency\n    iterations: 2000\n  - pattern: incast\n"))
	var lf *results.Flow
	for i := range loaded.Flows {
		if !loaded.Flows[i].HasThroughput() {
			lf = &loaded.Flows[i]
		}
	}
	t.Logf("loaded: typical %.2f p99 %.2f max %.2f (%s)", lf.LatencyUs.P50, lf.LatencyUs.P99, lf.LatencyUs.Max, lf.Reason)
	if loaded.Summary.ThroughputGbpsTotal <= 0 || lf.LatencyUs == nil || lf.LatencyUs.P99 < 5*lat.P99 {
		t.Errorf("under incast: throughput %v, latency %+v: want the incast's throughput and a tail at least 5x the idle one (%.2f µs)", loaded.Summary.ThroughputGbpsTotal, lf.LatencyUs, lat.P99)
	}

	// A duration too short for the iterations reports what was done.
	short := runVariant(t, l, variantOf(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 100us\nsample_every: 0\ntraffic:\n  - pattern: latency\n"))
	if sf := short.Flows[0]; sf.LatencyUs == nil || sf.LatencyUs.Iterations >= 1000 || !strings.Contains(sf.Reason, "raise duration") {
		t.Errorf("short run: latency %+v reason %q", sf.LatencyUs, sf.Reason)
	}
}

// TestBidirectionalAndTxDepth: perftest -b runs every flow both ways and
// reports the sum (a pair on an idle 200G path: twice MTU/(MTU+82) of
// line rate); a small tx depth on a long-lived pair caps it below line
// rate as a window per round trip does.
func TestBidirectionalAndTxDepth(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	run := func(keys string) *results.Variant {
		return runVariant(t, l, variantOf(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 2ms\nwarmup: 500us\nsample_every: 0\ntraffic:\n  - pattern: pairs\n"+keys))
	}
	one, both := run(""), run("    bidirectional: true\n")
	ratio := both.Flows[0].ThroughputGbps / one.Flows[0].ThroughputGbps
	t.Logf("one way %.2f Gb/s, both ways %.2f Gb/s", one.Flows[0].ThroughputGbps, both.Flows[0].ThroughputGbps)
	if math.Abs(ratio-2) > 0.01 || len(both.Flows) != 1 {
		t.Errorf("bidirectional %v Gb/s over %d flows, one way %v: want twice in one flow", both.Flows[0].ThroughputGbps, len(both.Flows), one.Flows[0].ThroughputGbps)
	}
	// One 4 KiB message in flight: a round trip of a few µs per message.
	stop := run("    tx_depth: 1\n    message_size: 4KiB\n")
	if g := stop.Flows[0].ThroughputGbps; g <= 0 || g > 0.5*one.Flows[0].ThroughputGbps {
		t.Errorf("tx depth 1 with 4 KiB messages: %v Gb/s, want well below the unlimited pair's %v", g, one.Flows[0].ThroughputGbps)
	}
}

// TestStartOnCollectives: a ring AllReduce and an all-to-all collective
// start when told.
func TestStartOnCollectives(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, tc := range []struct{ name, traffic string }{
		{"ring", "  - pattern: ring-allreduce\n    ranks: 4\n    bytes: 1MiB\n    start: 300us\n"},
	} {
		v := runVariant(t, l, variantOf(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 2ms\nsample_every: 0\ntraffic:\n"+tc.traffic))
		ph, _ := v.Extra["allreduce"].(map[string]any)["phases"].(map[string]any)
		sr, _ := ph["scatter_reduce"].(map[string]any)
		if start, _ := sr["start_us"].(float64); start < 300 || start > 301 {
			t.Errorf("%s: the first step started at %v µs, want 300", tc.name, sr["start_us"])
		}
	}
	// The collective all-to-all (more ranks than flows are listed for)
	// needs more NICs than 16gpu has: the engine's AllToAll.StartNs is
	// what the builder sets, checked on its config.
	l64 := upLab(t, "64gpu", "sonic")
	vs := variantOf(t, l64, "name: t\nduration: 1ms\nmatrix: {ecn: [on], pfc: [on]}\nsample_every: 0\ntraffic:\n  - pattern: all-to-all\n    ranks: 64\n    bytes: 4KiB\n    start: 200us\n")
	if vs.Collective != nil {
		t.Fatalf("64 ranks ran as a collective")
	}
	var ranks []runtime.Endpoint
	for _, n := range scenario.NICsFromGraph(l64.Graph)[:3] {
		ranks = append(ranks, n.Endpoint)
	}
	vs.Collective = &runtime.CollectiveSpec{Kind: "all-to-all", Ranks: ranks, Bytes: 4096, TrafficClass: 106, StartUs: 200}
	vs.Flows = nil
	v := runVariant(t, l64, vs)
	for _, f := range v.Flows {
		// Each rank's time counts from the collective's start.
		if f.FCTUs == nil || *f.FCTUs > 100 {
			t.Errorf("all-to-all rank %s: FCT %v µs, want it done within 100 µs of its start", f.ID, f.FCTUs)
		}
	}
	cfgs, err := runtime.LoadConfigs(l64)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := l64.Intent()
	b, err := newBuilder(l64, cfgs, in)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := b.config(vs)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.AllToAll) != 1 || cfg.AllToAll[0].StartNs != 200_000 {
		t.Errorf("all-to-all collective config %+v: want it to start at 200 µs", cfg.AllToAll)
	}
}
