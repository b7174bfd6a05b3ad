package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// oneServer is a host with a NIC on a switch (so the topology is valid)
// and a scale-up domain of gpus GPUs.
func oneServer(gpus int, gbps float64, latNs int64) Config {
	return Config{
		Topology:   star(2, 100),
		ScaleUp:    map[string]ScaleUpDomain{"h0": {GbpsPerGPU: gbps, LatencyNs: latNs, GPUs: gpus}},
		DurationNs: 100_000_000,
		Seed:       1,
	}
}

// scaleUpRing is a ring over the GPUs of host h0 as a program: stream i
// from GPU i to GPU i+1, 2(N-1) messages, message m waiting for message
// m-1 of stream i-1 (a ring AllReduce's reduce-scatter then all-gather).
func scaleUpRing(id string, gpus int, msgBytes int64) Program {
	p := Program{ID: id}
	for i := range gpus {
		p.Streams = append(p.Streams, Stream{
			ScaleUp: true, Host: "h0", SrcGPU: i, DstGPU: (i + 1) % gpus,
			Messages: int64(2 * (gpus - 1)), MessageBytes: msgBytes,
			Inputs: []Input{{Stream: int32((i + gpus - 1) % gpus), Offset: -1}},
		})
	}
	return p
}

func progTime(t *testing.T, r *Result, i int) int64 {
	t.Helper()
	if len(r.Programs) <= i {
		t.Fatalf("%d programs reported, want at least %d", len(r.Programs), i+1)
	}
	p := r.Programs[i]
	if p.TimeNs == nil || p.EndNs < 0 {
		t.Fatalf("program %s did not complete: %+v", p.ID, p)
	}
	return *p.TimeNs
}

// TestProgramScaleUpRing: a ring on one server's scale-up domain. Every
// GPU sends one stream, so message m of every stream is posted when
// message m-1 of the previous one arrived and leaves at once: each of
// the 2(N-1) steps costs one message's serialization plus the latency.
func TestProgramScaleUpRing(t *testing.T) {
	for _, tc := range []struct {
		gpus     int
		gbps     float64
		latNs    int64
		msgBytes int64
	}{
		{8, 3600, 1000, 1 << 20},
		{8, 3600, 0, 4096},
		{4, 512, 2500, 3 << 20},
		{2, 100, 700, 12345},
	} {
		t.Run(fmt.Sprintf("%dgpu-%vG-%dns-%dB", tc.gpus, tc.gbps, tc.latNs, tc.msgBytes), func(t *testing.T) {
			cfg := oneServer(tc.gpus, tc.gbps, tc.latNs)
			cfg.Programs = []Program{scaleUpRing("ring", tc.gpus, tc.msgBytes)}
			r := mustRun(t, cfg)
			// Serialization in ps, rounded as a clock of ps would: T = S*8/G.
			serPs := math.Round(float64(tc.msgBytes) * 8 / tc.gbps * 1000)
			steps := float64(2 * (tc.gpus - 1))
			want := int64(steps * (serPs + float64(tc.latNs)*1000) / 1000)
			if got := progTime(t, r, 0); got != want {
				t.Errorf("ring time %d ns, want 2(N-1)(S*8/G + L) = %d ns", got, want)
			}
			p := r.Programs[0]
			if p.StartNs != 0 || p.EndNs != want {
				t.Errorf("start %d end %d, want 0 and %d", p.StartNs, p.EndNs, want)
			}
			if wantB := int64(tc.gpus) * int64(steps) * tc.msgBytes; p.ScaleUpBytes != wantB || p.FabricBytes != 0 || p.SwitchHopBytes != nil {
				t.Errorf("scale-up %d fabric %d hops %v bytes, want %d, 0, none", p.ScaleUpBytes, p.FabricBytes, p.SwitchHopBytes, wantB)
			}
			if r.PacketHops != 0 || len(r.Flows) != 0 {
				t.Errorf("a scale-up program put %d packets on the fabric, %d flows", r.PacketHops, len(r.Flows))
			}
		})
	}
}

// TestProgramScaleUpFIFO: two programs' streams leaving the same GPU
// share its egress in the order their messages were posted.
func TestProgramScaleUpFIFO(t *testing.T) {
	const msgs, size, gbps, lat = 5, 1 << 20, 800.0, 300
	cfg := oneServer(4, gbps, lat)
	send := func(id string, dst int) Program {
		return Program{ID: id, Streams: []Stream{{ScaleUp: true, Host: "h0", SrcGPU: 0, DstGPU: dst, Messages: msgs, MessageBytes: size}}}
	}
	// A third stream from another GPU runs beside them.
	other := Program{ID: "other", Streams: []Stream{{ScaleUp: true, Host: "h0", SrcGPU: 3, DstGPU: 1, Messages: msgs, MessageBytes: size}}}
	cfg.Programs = []Program{send("a", 1), send("b", 2), other}
	r := mustRun(t, cfg)
	ser := math.Round(size*8/gbps*1000) / 1000
	if got, want := r.Programs[0].EndNs, int64(msgs*ser+lat); got != want {
		t.Errorf("first stream ends at %d ns, want M*T+L = %d", got, want)
	}
	if got, want := r.Programs[1].EndNs, int64(2*msgs*ser+lat); got != want {
		t.Errorf("second stream ends at %d ns, want 2M*T+L = %d (behind the first on GPU 0)", got, want)
	}
	if got, want := r.Programs[2].EndNs, int64(msgs*ser+lat); got != want {
		t.Errorf("stream of GPU 3 ends at %d ns, want M*T+L = %d", got, want)
	}
}

// TestProgramTreeWaitsForBothChildren: a parent stream waits for the
// same-index message of both children (offset 0), whichever is slower.
func TestProgramTreeWaitsForBothChildren(t *testing.T) {
	const msgs, gbps, lat = 6, 1000.0, 400
	for _, tc := range []struct{ a, b, parent int64 }{
		{1 << 20, 2 << 20, 256 << 10}, // the second child is slower
		{2 << 20, 1 << 20, 256 << 10}, // the first is
		{1 << 20, 1 << 20, 4 << 20},   // the parent is the bottleneck
	} {
		t.Run(fmt.Sprintf("%d-%d-%d", tc.a, tc.b, tc.parent), func(t *testing.T) {
			cfg := oneServer(4, gbps, lat)
			cfg.Programs = []Program{{ID: "tree", Streams: []Stream{
				{ScaleUp: true, Host: "h0", SrcGPU: 1, DstGPU: 0, Messages: msgs, MessageBytes: tc.a},
				{ScaleUp: true, Host: "h0", SrcGPU: 2, DstGPU: 0, Messages: msgs, MessageBytes: tc.b},
				{ScaleUp: true, Host: "h0", SrcGPU: 0, DstGPU: 3, Messages: msgs, MessageBytes: tc.parent,
					Inputs: []Input{{Stream: 0, Offset: 0}, {Stream: 1, Offset: 0}}},
			}}}
			r := mustRun(t, cfg)
			// By hand, in ps: child message m arrives at (m+1)T_c + L; the
			// parent's message m is posted once both arrived and leaves
			// when GPU 0 is free.
			ser := func(b int64) float64 { return math.Round(float64(b) * 8 / gbps * 1000) }
			ta, tb, tp := ser(tc.a), ser(tc.b), ser(tc.parent)
			done := 0.0
			for m := range msgs {
				post := max(float64(m+1)*ta, float64(m+1)*tb) + lat*1000
				done = max(post, done) + tp
			}
			want := int64((done + lat*1000) / 1000)
			if got := r.Programs[0].EndNs; got != want {
				t.Errorf("tree ends at %d ns, want %d", got, want)
			}
		})
	}
}

// TestProgramInputOffsets: message m waits for message m+Offset of its
// input: a positive offset waits for later messages (one past the last
// waits for the last), a negative one for earlier ones, one below -M for
// nothing.
func TestProgramInputOffsets(t *testing.T) {
	const msgs, gbps, lat = 5, 1000.0, 600
	ser := func(b int64) float64 { return math.Round(float64(b) * 8 / gbps * 1000) }
	for _, tc := range []struct {
		offset int64
		a, b   int64 // message sizes of the input and the waiting stream
	}{
		{0, 2 << 20, 64 << 10},
		{+1, 2 << 20, 64 << 10},
		{+4, 2 << 20, 64 << 10},
		{+100, 2 << 20, 64 << 10},
		{-1, 64 << 10, 2 << 20},
		{-2, 2 << 20, 1 << 20},
		{-1000, 64 << 10, 2 << 20},
		{math.MinInt64, 64 << 10, 2 << 20},
		{math.MaxInt64, 64 << 10, 2 << 20},
	} {
		t.Run(fmt.Sprint(tc.offset), func(t *testing.T) {
			cfg := oneServer(4, gbps, lat)
			// Stream 1 (GPU 2) waits for stream 0 (GPU 0) by the offset.
			cfg.Programs = []Program{{ID: "b", Streams: []Stream{
				{ScaleUp: true, Host: "h0", SrcGPU: 0, DstGPU: 1, Messages: msgs, MessageBytes: tc.a},
				{ScaleUp: true, Host: "h0", SrcGPU: 2, DstGPU: 3, Messages: msgs, MessageBytes: tc.b, Inputs: []Input{{Stream: 0, Offset: tc.offset}}},
			}}}
			r := mustRun(t, cfg)
			// By hand, in ps: the input's message k arrives at (k+1)T_a+L.
			ta, tb := ser(tc.a), ser(tc.b)
			arrive := func(k int64) float64 { return float64(k+1)*ta + lat*1000 }
			done := 0.0
			for m := range int64(msgs) {
				post := 0.0
				switch need := float64(m) + float64(tc.offset); {
				case need >= msgs-1:
					post = arrive(msgs - 1)
				case need >= 0:
					post = arrive(int64(need))
				}
				done = max(post, done) + tb
			}
			end := max(arrive(msgs-1), done+lat*1000)
			if got, want := r.Programs[0].EndNs, int64(end/1000); got != want {
				t.Errorf("ends at %d ns, want %d", got, want)
			}
		})
	}
}

// ringProgram is a ring AllReduce of bytes over NICs as a program, as
// sim.Ring runs it: stream i from rank i to rank i+1, 2(N-1) messages of
// bytes/N, message m waiting for message m-1 of stream i-1.
func ringProgram(id string, ranks []string, bytes int64) Program {
	n := len(ranks)
	chunk := (bytes + int64(n) - 1) / int64(n)
	p := Program{ID: id, DSCP: 26}
	for i := range n {
		p.Streams = append(p.Streams, Stream{
			Src: ranks[i], Dst: ranks[(i+1)%n], Messages: int64(2 * (n - 1)), MessageBytes: chunk,
			Inputs: []Input{{Stream: int32((i + n - 1) % n), Offset: -1}},
		})
	}
	return p
}

// TestProgramFabricRingMatchesRing: a ring AllReduce as a program of
// fabric streams takes the time sim.Ring takes for the same ranks.
func TestProgramFabricRingMatchesRing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks []string
		size  int64
	}{
		{"8 ranks over 2 leaves", ringRanks(2, 4), 8 << 20},
		{"interleaved over one spine", []string{"h0-0", "h1-0", "h0-1", "h1-1", "h0-2", "h1-2"}, 3<<20 + 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{
				Topology:   leafSpine(2, 2, 4, 100, 100),
				DefaultQoS: losslessQoS(true, true, 100_000, 400_000),
				DurationNs: 20_000_000,
				Seed:       3,
				DCQCN:      PaperDCQCN(100), DCQCNEnabled: true,
			}
			ring := cfg
			ring.Rings = []Ring{{ID: "ring", Ranks: tc.ranks, Bytes: tc.size, DSCP: 26}}
			rr := mustRun(t, ring)
			if rr.Rings[0].TimeNs == nil {
				t.Fatal("ring did not complete")
			}
			want := *rr.Rings[0].TimeNs
			cfg.Programs = []Program{ringProgram("prog", tc.ranks, tc.size)}
			r := mustRun(t, cfg)
			got := progTime(t, r, 0)
			t.Logf("program %d ns, ring %d ns; events %d vs %d", got, want, r.Events, rr.Events)
			if d := math.Abs(float64(got-want)) / float64(want); d > 0.01 {
				t.Errorf("program ring %d ns, sim.Ring %d ns: %.2f%% apart, want within 1%%", got, want, 100*d)
			}
			n := int64(len(tc.ranks))
			chunk := (tc.size + n - 1) / n
			if p := r.Programs[0]; p.FabricBytes != n*2*(n-1)*chunk || p.ScaleUpBytes != 0 {
				t.Errorf("fabric %d scale-up %d bytes, want %d and 0", p.FabricBytes, p.ScaleUpBytes, n*2*(n-1)*chunk)
			}
			if len(r.Flows) != 0 {
				t.Errorf("program QPs reported as %d flows, want none", len(r.Flows))
			}
			if r.Totals.BytesDelivered != r.Programs[0].FabricBytes {
				t.Errorf("totals count %d bytes, the program %d", r.Totals.BytesDelivered, r.Programs[0].FabricBytes)
			}
		})
	}
}

// TestProgramAfter: a program named in another's After starts StartNs
// after it completed; a chain runs one after the other.
func TestProgramAfter(t *testing.T) {
	cfg := oneServer(8, 3600, 1000)
	p1 := scaleUpRing("p1", 8, 1<<20)
	p1.StartNs = 1234
	p2 := scaleUpRing("p2", 8, 256<<10)
	p2.After, p2.StartNs = "p1", 777
	p3 := scaleUpRing("p3", 4, 64<<10)
	p3.After = "p2"
	// An independent program runs at its own StartNs.
	p4 := scaleUpRing("p4", 2, 4096)
	p4.StartNs = 50
	cfg.Programs = []Program{p1, p2, p3, p4}
	r := mustRun(t, cfg)
	ps := r.Programs
	for i := range ps {
		progTime(t, r, i)
	}
	if ps[0].StartNs != 1234 {
		t.Errorf("p1 starts at %d ns, want its StartNs 1234", ps[0].StartNs)
	}
	if ps[1].StartNs != ps[0].EndNs+777 {
		t.Errorf("p2 starts at %d ns, want p1's end %d + 777", ps[1].StartNs, ps[0].EndNs)
	}
	if ps[2].StartNs != ps[1].EndNs {
		t.Errorf("p3 starts at %d ns, want p2's end %d", ps[2].StartNs, ps[1].EndNs)
	}
	if ps[3].StartNs != 50 {
		t.Errorf("p4 starts at %d ns, want 50", ps[3].StartNs)
	}
	// The chain's times do not depend on where it sits in the run: p2
	// alone takes what it takes after p1.
	alone := oneServer(8, 3600, 1000)
	alone.Programs = []Program{scaleUpRing("p2", 8, 256<<10)}
	if got, want := *ps[1].TimeNs, progTime(t, mustRun(t, alone), 0); got != want {
		t.Errorf("p2 after p1 takes %d ns, alone %d", got, want)
	}
}

// TestNICCap: a NIC capped below its port (behind a slower PCIe link)
// sends the cap's rate of payload: PCIe carries the payload, not the
// headers, preamble and gap the port adds, so a lone long flow's goodput
// is the cap, and a cap between the port's goodput and its line rate
// binds nothing. The cap is the NIC's, so two flows from it share it, and
// it holds for rings and program streams.
func TestNICCap(t *testing.T) {
	base := Config{
		Topology:   star(3, 100),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		DurationNs: 1_000_000,
		Seed:       1,
	}
	one := base
	one.Flows = []Flow{{ID: "f", Src: "h0", Dst: "h1"}}
	free := mustRun(t, one).Flows[0].GoodputGbps
	wirePerPayload := float64(DefaultMTU+WireOverheadBytes) / DefaultMTU
	for _, c := range []float64{50, 25, 90} {
		capped := one
		capped.NICCapGbps = map[string]float64{"h0": c}
		r := mustRun(t, capped)
		got := r.Flows[0].GoodputGbps
		// Charged on wire bytes, the cap gave c x 4096/4178, 2% less.
		if math.Abs(got-c) > 0.002*c {
			t.Errorf("cap %v Gb/s: goodput %.3f Gb/s, want the cap's %v of payload", c, got, c)
		}
		if want := round3(c * wirePerPayload); r.Flows[0].RateGbps != want {
			t.Errorf("cap %v Gb/s: sending rate reported %v, want %v on the wire", c, r.Flows[0].RateGbps, want)
		}
	}
	// A cap above the port's goodput changes nothing (99 Gb/s of payload
	// is more than 100G carries, 98.04), nor one above the port, nor one
	// on the receiver.
	for _, m := range []map[string]float64{{"h0": 99}, {"h0": 400}, {"h1": 10}, {"h0": 0}} {
		c := one
		c.NICCapGbps = m
		if got := mustRun(t, c).Flows[0].GoodputGbps; got != free {
			t.Errorf("cap %v: goodput %.3f, want the uncapped %.3f", m, got, free)
		}
	}
	two := base
	two.Flows = []Flow{{ID: "a", Src: "h0", Dst: "h1"}, {ID: "b", Src: "h0", Dst: "h2"}}
	two.NICCapGbps = map[string]float64{"h0": 50}
	r := mustRun(t, two)
	if got, want := r.Totals.GoodputGbps, 50.0; math.Abs(got-want) > 0.005*want {
		t.Errorf("two flows from a 50G-capped NIC: %.3f Gb/s together, want %.3f", got, want)
	}
	// A finite transfer, as a program stream and as a plain flow, takes
	// its wire bytes at line rate, and its payload at the cap when capped.
	const size = 4 << 20
	for _, capped := range []bool{false, true} {
		c := base
		c.Flows = []Flow{{ID: "f", Src: "h0", Dst: "h1", Bytes: size}}
		c.Programs = []Program{{ID: "p", Streams: []Stream{{Src: "h2", Dst: "h1", Messages: 4, MessageBytes: size / 4}}}}
		c.Topology = star(3, 100)
		// Different receivers would share h1's link: give each its own.
		c.Programs[0].Streams[0].Dst = "h0"
		ideal := float64(size+size/4096*WireOverheadBytes) * 8 / 100
		if capped {
			c.NICCapGbps = map[string]float64{"h0": 50, "h2": 50}
			ideal = float64(size) * 8 / 50
		}
		r := mustRun(t, c)
		fct, pt := *r.Flows[0].FCTNs, progTime(t, r, 0)
		if math.Abs(float64(fct)-ideal) > 0.01*ideal || math.Abs(float64(pt)-ideal) > 0.01*ideal {
			t.Errorf("capped %v: flow %d ns, program %d ns, want about %.0f", capped, fct, pt, ideal)
		}
	}
}

// TestNICCapTransports: a capped NIC's goodput is the cap on InfiniBand
// and UET too, and in the flow-level model: every transport's sender
// charges its payload against PCIe, not its headers (26 bytes a packet on
// InfiniBand, 82 on UET), and a cap between the port's goodput and its
// line rate binds nothing.
func TestNICCapTransports(t *testing.T) {
	lone := func(transport string) Config {
		c := Config{Topology: star(2, 100), DurationNs: 1_000_000, WarmupNs: 100_000, Seed: 1, Transport: transport,
			DefaultQoS: losslessQoS(true, false, 0, 0), Flows: []Flow{{ID: "f", Src: "h0", Dst: "h1"}}}
		if transport == TransportInfiniBand {
			c.IB = &IBParams{}
		}
		return c
	}
	for _, tr := range []string{TransportRoCE, TransportInfiniBand, TransportUET} {
		free := mustRun(t, lone(tr)).Flows[0].GoodputGbps
		for _, c := range []float64{50, 99} {
			cfg := lone(tr)
			cfg.NICCapGbps = map[string]float64{"h0": c}
			got := mustRun(t, cfg).Flows[0].GoodputGbps
			if want := min(c, free); math.Abs(got-want) > 0.002*want {
				t.Errorf("%s, cap %v Gb/s: goodput %.3f Gb/s, want %.3f (the cap, or the uncapped %.3f)", tr, c, got, want, free)
			}
		}
	}
	cfg := lone(TransportRoCE)
	for _, c := range []float64{50, 99} {
		cfg.NICCapGbps = map[string]float64{"h0": c}
		rates, err := FlowLevelRates(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(c, 100*WireEfficiency(0)); math.Abs(rates[0]-want) > 1e-9 {
			t.Errorf("flow level, cap %v Gb/s: %.4f Gb/s, want %.4f", c, rates[0], want)
		}
	}
}

// TestNICCapDCQCN: DCQCN can only slow a capped NIC further.
func TestNICCapDCQCN(t *testing.T) {
	cfg := incastConfig(4, true, true, true, 2_000_000)
	free := mustRun(t, cfg)
	cfg.NICCapGbps = map[string]float64{}
	for _, f := range cfg.Flows {
		h, _ := splitNIC(f.Src)
		cfg.NICCapGbps[h] = 10
	}
	r := mustRun(t, cfg)
	// The cap is of payload; the rate a flow reports is on the wire.
	wireCap := round3(10 * float64(DefaultMTU+WireOverheadBytes) / DefaultMTU)
	for _, f := range r.Flows {
		if f.RateGbps > wireCap {
			t.Errorf("flow %s sends at %v Gb/s over its 10G cap of payload (%v on the wire)", f.ID, f.RateGbps, wireCap)
		}
	}
	// Four 10G senders cannot congest a 100G receiver: no marks.
	if r.Totals.ECNMarked != 0 || free.Totals.ECNMarked == 0 {
		t.Errorf("marks: %d capped, %d uncapped; want none capped", r.Totals.ECNMarked, free.Totals.ECNMarked)
	}
}

// threeTier is two pods of two leaves and a spine under one super-spine,
// a host per leaf: h<pod>-<leaf>.
func threeTier() Topology {
	t := Topology{Nodes: []Node{{Name: "ss", Kind: Switch}}}
	for p := range 2 {
		sp := fmt.Sprintf("spine%d", p)
		t.Nodes = append(t.Nodes, Node{Name: sp, Kind: Switch})
		t.Links = append(t.Links, Link{A: PortRef{sp, "up"}, B: PortRef{"ss", fmt.Sprint("p", p)}, RateGbps: 100, PropDelayNs: 200})
		for l := range 2 {
			leaf := fmt.Sprintf("leaf%d-%d", p, l)
			h := fmt.Sprintf("h%d-%d", p, l)
			t.Nodes = append(t.Nodes, Node{Name: leaf, Kind: Switch}, Node{Name: h, Kind: Host})
			t.Links = append(t.Links,
				Link{A: PortRef{leaf, "up"}, B: PortRef{sp, fmt.Sprint("l", l)}, RateGbps: 100, PropDelayNs: 200},
				Link{A: PortRef{h, "eth0"}, B: PortRef{leaf, "h0"}, RateGbps: 100, PropDelayNs: 100})
		}
	}
	return t
}

// TestProgramSwitchHopBytes: fabric payload is counted by the switches
// on each stream's path: 1 within a leaf, 3 through a spine, 5 through a
// super-spine; scale-up bytes apart.
func TestProgramSwitchHopBytes(t *testing.T) {
	cfg := Config{Topology: leafSpine(2, 2, 2, 100, 100), DurationNs: 10_000_000, Seed: 1,
		ScaleUp: map[string]ScaleUpDomain{"h0-0": {GbpsPerGPU: 1000, LatencyNs: 500}}}
	cfg.Programs = []Program{{ID: "p", Streams: []Stream{
		{Src: "h0-0", Dst: "h0-1", Messages: 3, MessageBytes: 10000},
		{Src: "h0-1", Dst: "h1-0", Messages: 2, MessageBytes: 4096, Inputs: []Input{{Stream: 0, Offset: 0}}},
		{Src: "h1-1", Dst: "h0-0", Messages: 1, MessageBytes: 777},
		{ScaleUp: true, Host: "h0-0", SrcGPU: 1, DstGPU: 0, Messages: 2, MessageBytes: 5000},
	}}}
	r := mustRun(t, cfg)
	progTime(t, r, 0)
	p := r.Programs[0]
	want := map[int]int64{1: 30000, 3: 8192 + 777}
	if len(p.SwitchHopBytes) != len(want) || p.SwitchHopBytes[1] != want[1] || p.SwitchHopBytes[3] != want[3] {
		t.Errorf("switch hop bytes %v, want %v", p.SwitchHopBytes, want)
	}
	if p.FabricBytes != 30000+8192+777 || p.ScaleUpBytes != 10000 {
		t.Errorf("fabric %d, scale-up %d bytes", p.FabricBytes, p.ScaleUpBytes)
	}
	three := Config{Topology: threeTier(), DurationNs: 10_000_000, Seed: 1}
	three.Programs = []Program{{ID: "x", Streams: []Stream{
		{Src: "h0-0", Dst: "h1-1", Messages: 2, MessageBytes: 1000},
		{Src: "h0-0", Dst: "h0-1", Messages: 1, MessageBytes: 1000},
	}}}
	r = mustRun(t, three)
	progTime(t, r, 0)
	if got := r.Programs[0].SwitchHopBytes; len(got) != 2 || got[5] != 2000 || got[3] != 1000 {
		t.Errorf("3-tier switch hop bytes %v, want 5: 2000, 3: 1000", got)
	}
}

// TestProgramFailedStream: a QP that runs out of retries under a link
// failure fails its stream; what waits for it never posts, its program
// never completes, the program after it never starts, and the run ends
// there rather than ticking to its duration.
func TestProgramFailedStream(t *testing.T) {
	retries := 0
	mk := func(duration int64) Config {
		cfg := Config{
			Topology:   leafSpine(2, 1, 2, 100, 100),
			DefaultQoS: losslessQoS(true, false, 0, 0),
			DurationNs: duration,
			Seed:       1,
			QPTimeout:  1, // 8.192 µs
			RetryCount: &retries,
			Faults:     []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: 20_000}},
			ScaleUp:    map[string]ScaleUpDomain{"h0-0": {GbpsPerGPU: 1000, LatencyNs: 500, GPUs: 8}},
		}
		cfg.Programs = []Program{
			{ID: "p", Streams: []Stream{
				{Src: "h0-0", Dst: "h1-0", Messages: 100, MessageBytes: 64 << 10},
				{Src: "h1-1", Dst: "h0-1", Messages: 100, MessageBytes: 64 << 10, Inputs: []Input{{Stream: 0, Offset: 0}}},
				{ScaleUp: true, Host: "h0-0", SrcGPU: 0, DstGPU: 1, Messages: 3, MessageBytes: 1 << 20},
			}},
			{ID: "next", After: "p", Streams: []Stream{{ScaleUp: true, Host: "h0-0", SrcGPU: 2, DstGPU: 3, Messages: 1, MessageBytes: 1}}},
		}
		return cfg
	}
	r := mustRun(t, mk(1_000_000_000))
	p := r.Programs[0]
	if p.FailedStreams != 1 || p.TimeNs != nil || p.EndNs != -1 {
		t.Errorf("program: %d failed streams, time %v, end %d; want 1, nil, -1", p.FailedStreams, p.TimeNs, p.EndNs)
	}
	if r.Totals.FailedFlows != 1 {
		t.Errorf("%d failed QPs in the totals, want 1", r.Totals.FailedFlows)
	}
	if p.ScaleUpBytes != 3<<20 {
		t.Errorf("the independent scale-up stream delivered %d bytes, want all %d", p.ScaleUpBytes, 3<<20)
	}
	if n := r.Programs[1]; n.StartNs != -1 || n.EndNs != -1 || n.TimeNs != nil || n.ScaleUpBytes != 0 {
		t.Errorf("the program after a failed one ran: %+v", n)
	}
	if len(r.Flows) != 0 {
		t.Errorf("%d flows reported", len(r.Flows))
	}
	// A hundred times the duration: the run ends as the first did (a
	// timer ticking while nothing can progress would take 10^7 events).
	long := mustRun(t, mk(100_000_000_000))
	if long.Events != r.Events || long.PacketHops != r.PacketHops {
		t.Errorf("%d events over 100 s, %d over 1 s: the run should end once nothing can progress", long.Events, r.Events)
	}
}

// TestProgramRunEnds: a run of programs ends with the last receipt (and
// the timers then due), not at its duration: a longer duration processes
// the same events.
func TestProgramRunEnds(t *testing.T) {
	mk := func(d int64) Config {
		cfg := Config{Topology: leafSpine(2, 1, 2, 100, 100), DefaultQoS: losslessQoS(true, false, 0, 0), DurationNs: d, Seed: 2}
		cfg.Programs = []Program{ringProgram("r", ringRanks(2, 2), 1<<20)}
		return cfg
	}
	a, b := mustRun(t, mk(1_000_000_000)), mustRun(t, mk(100_000_000_000))
	progTime(t, a, 0)
	if a.Events != b.Events {
		t.Errorf("%d events over 1 s, %d over 100 s", a.Events, b.Events)
	}
}

// TestProgramErrors: every malformed program is refused with an error
// naming it, never a panic or a silent stall.
func TestProgramErrors(t *testing.T) {
	good := func() Config {
		cfg := oneServer(8, 1000, 100)
		cfg.Topology = leafSpine(1, 1, 2, 100, 100)
		cfg.ScaleUp = map[string]ScaleUpDomain{"h0-0": {GbpsPerGPU: 1000, LatencyNs: 100, GPUs: 8}}
		cfg.Programs = []Program{{ID: "p", Streams: []Stream{
			{Src: "h0-0", Dst: "h0-1", Messages: 2, MessageBytes: 100},
			{ScaleUp: true, Host: "h0-0", SrcGPU: 0, DstGPU: 1, Messages: 2, MessageBytes: 100, Inputs: []Input{{Stream: 0, Offset: 0}}},
		}}}
		return cfg
	}
	if _, err := Run(context.Background(), good()); err != nil {
		t.Fatalf("the valid base config fails: %v", err)
	}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"input out of range", func(c *Config) { c.Programs[0].Streams[1].Inputs[0].Stream = 2 }, `program "p" stream 1: input 0 names stream 2`},
		{"negative input", func(c *Config) { c.Programs[0].Streams[1].Inputs[0].Stream = -1 }, "names stream -1"},
		{"self input offset 0", func(c *Config) { c.Programs[0].Streams[1].Inputs[0].Stream = 1 }, "waits for its own message"},
		{"self input offset 5", func(c *Config) { c.Programs[0].Streams[0].Inputs = []Input{{Stream: 0, Offset: 5}} }, `stream 0: input 0 waits for its own`},
		{"negative stride", func(c *Config) { c.Programs[0].Streams[1].Stride = -1 }, "stride -1 and phase 0"},
		{"stride too large", func(c *Config) { c.Programs[0].Streams[1].Stride = maxStride + 1 }, "use a stride of 0 to"},
		{"phase not below stride", func(c *Config) { c.Programs[0].Streams[1].Stride, c.Programs[0].Streams[1].Phase = 2, 2 }, "stride 2 and phase 2"},
		{"phase without stride", func(c *Config) { c.Programs[0].Streams[1].Phase = 1 }, "stride 0 and phase 1"},
		{"no messages", func(c *Config) { c.Programs[0].Streams[0].Messages = 0 }, "0 messages"},
		{"negative messages", func(c *Config) { c.Programs[0].Streams[1].Messages = -3 }, "stream 1: -3 messages"},
		{"no bytes", func(c *Config) { c.Programs[0].Streams[1].MessageBytes = 0 }, "of 0 bytes"},
		{"huge message", func(c *Config) { c.Programs[0].Streams[0].MessageBytes = 2 << 30 }, "message size"},
		{"overflowing stream", func(c *Config) { c.Programs[0].Streams[0].Messages = math.MaxInt64 / 2 }, "bytes per stream"},
		{"same NIC", func(c *Config) { c.Programs[0].Streams[0].Dst = "h0-0" }, "same NIC"},
		{"same NIC by port", func(c *Config) { c.Programs[0].Streams[0].Dst = "h0-0:eth0" }, "same NIC"},
		{"unknown host", func(c *Config) { c.Programs[0].Streams[0].Src = "nope" }, `stream 0: source: unknown host "nope"`},
		{"switch endpoint", func(c *Config) { c.Programs[0].Streams[0].Dst = "leaf0" }, "destination"},
		{"bad source port", func(c *Config) { c.Programs[0].Streams[0].SrcPort = 70000 }, "source port"},
		{"same GPU", func(c *Config) { c.Programs[0].Streams[1].DstGPU = 0 }, "same GPU"},
		{"GPU out of range", func(c *Config) { c.Programs[0].Streams[1].DstGPU = 8 }, "GPU 8"},
		{"negative GPU", func(c *Config) { c.Programs[0].Streams[1].SrcGPU = -1 }, "GPU -1"},
		{"no domain", func(c *Config) { c.Programs[0].Streams[1].Host = "h0-1" }, `host "h0-1" has no scale-up domain`},
		{"scale-up on a switch", func(c *Config) { c.Programs[0].Streams[1].Host = "leaf0" }, "not a host"},
		{"domain of no host", func(c *Config) { c.ScaleUp["ghost"] = ScaleUpDomain{GbpsPerGPU: 1} }, `"ghost"`},
		{"zero bandwidth", func(c *Config) { c.ScaleUp["h0-0"] = ScaleUpDomain{LatencyNs: 1} }, "scale-up bandwidth"},
		{"NaN bandwidth", func(c *Config) { c.ScaleUp["h0-0"] = ScaleUpDomain{GbpsPerGPU: nan} }, "scale-up bandwidth"},
		{"infinite bandwidth", func(c *Config) { c.ScaleUp["h0-0"] = ScaleUpDomain{GbpsPerGPU: math.Inf(1)} }, "scale-up bandwidth"},
		{"negative latency", func(c *Config) { c.ScaleUp["h0-0"] = ScaleUpDomain{GbpsPerGPU: 1, LatencyNs: -1} }, "latency"},
		{"negative GPUs", func(c *Config) { c.ScaleUp["h0-0"] = ScaleUpDomain{GbpsPerGPU: 1, GPUs: -2} }, "GPUs"},
		{"After unknown", func(c *Config) { c.Programs[0].After = "q" }, `After names "q"`},
		{"After itself", func(c *Config) { c.Programs[0].After = "p" }, `After names "p"`},
		{"After later", func(c *Config) {
			c.Programs = append(c.Programs, Program{ID: "q", Streams: c.Programs[0].Streams})
			c.Programs[0].After = "q"
		}, "no earlier program"},
		{"duplicate ID", func(c *Config) { c.Programs = append(c.Programs, c.Programs[0]) }, `"p" used twice`},
		{"no ID", func(c *Config) { c.Programs[0].ID = "" }, "no ID"},
		{"no streams", func(c *Config) { c.Programs[0].Streams = nil }, "no streams"},
		{"negative start", func(c *Config) { c.Programs[0].StartNs = -1 }, "start"},
		{"DSCP", func(c *Config) { c.Programs[0].DSCP = 64 }, "DSCP 64"},
		{"negative NIC cap", func(c *Config) { c.NICCapGbps = map[string]float64{"h0-0": -1} }, "NIC cap"},
		{"NaN NIC cap", func(c *Config) { c.NICCapGbps = map[string]float64{"h0-0": nan} }, "NIC cap"},
		{"NIC cap of no host", func(c *Config) { c.NICCapGbps = map[string]float64{"leaf0": 10} }, "not a host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good()
			tc.edit(&cfg)
			_, err := Run(context.Background(), cfg)
			if err == nil {
				t.Fatalf("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// TestProgramAccepted: values at the edges of what is valid run.
func TestProgramAccepted(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"GPU count not given, high index", func(c *Config) {
			c.ScaleUp["h0"] = ScaleUpDomain{GbpsPerGPU: 100, LatencyNs: 0}
			c.Programs[0].Streams[0].DstGPU = 1000
		}},
		{"slowest domain", func(c *Config) { c.ScaleUp["h0"] = ScaleUpDomain{GbpsPerGPU: 0.001, GPUs: 2} }},
		{"fastest domain", func(c *Config) { c.ScaleUp["h0"] = ScaleUpDomain{GbpsPerGPU: 1e6, GPUs: 2} }},
		{"zero NIC cap", func(c *Config) { c.NICCapGbps = map[string]float64{"h0": 0} }},
		{"tiny NIC cap", func(c *Config) { c.NICCapGbps = map[string]float64{"h0": 1e-9} }},
		{"one-byte message", func(c *Config) { c.Programs[0].Streams[1].MessageBytes = 1 }},
		{"1 GiB message", func(c *Config) { c.Programs[0].Streams[1].MessageBytes = 1 << 30 }},
		{"input read twice", func(c *Config) {
			c.Programs[0].Streams[1].Inputs = []Input{{Stream: 0, Offset: 0}, {Stream: 0, Offset: -1}, {Stream: 1, Offset: -1}}
		}},
		{"start beyond the run", func(c *Config) { c.Programs[0].StartNs = c.DurationNs + 1 }},
		{"explicit DSCP 0", func(c *Config) { c.Programs[0].ExplicitDSCP = true }},
		{"source port given", func(c *Config) { c.Programs[0].Streams[1].SrcPort = 65535 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := oneServer(2, 100, 10)
			cfg.DurationNs = 10_000_000
			cfg.Programs = []Program{{ID: "p", Streams: []Stream{
				{ScaleUp: true, Host: "h0", SrcGPU: 0, DstGPU: 1, Messages: 2, MessageBytes: 100},
				{Src: "h0", Dst: "h1", Messages: 3, MessageBytes: 5000},
			}}}
			tc.edit(&cfg)
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}

// TestProgramDeterministic: the same seed gives the same Result.
func TestProgramDeterministic(t *testing.T) {
	cfg := Config{
		Topology:     leafSpine(2, 2, 4, 100, 100),
		DefaultQoS:   losslessQoS(true, true, 20_000, 80_000),
		DurationNs:   20_000_000,
		Seed:         7,
		DCQCN:        PaperDCQCN(100),
		DCQCNEnabled: true,
		NICCapGbps:   map[string]float64{"h0-1": 80},
		ScaleUp:      map[string]ScaleUpDomain{"h1-0": {GbpsPerGPU: 900, LatencyNs: 700}},
		Flows:        []Flow{{ID: "bg", Src: "h0-3", Dst: "h1-3", Bytes: 2 << 20}},
	}
	ring := ringProgram("ring", ringRanks(2, 4), 4<<20)
	ring.Streams = append(ring.Streams, Stream{ScaleUp: true, Host: "h1-0", SrcGPU: 0, DstGPU: 1, Messages: 14, MessageBytes: 1 << 18,
		Inputs: []Input{{Stream: 3, Offset: 0}}})
	cfg.Programs = []Program{ring, {ID: "a2a", After: "ring", Streams: []Stream{
		{Src: "h0-0", Dst: "h1-1", Messages: 4, MessageBytes: 100_000},
		{Src: "h1-2", Dst: "h0-0", Messages: 4, MessageBytes: 100_000},
	}}}
	a, b := mustRun(t, cfg), mustRun(t, cfg)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("two runs of one config differ")
	}
	progTime(t, a, 0)
	progTime(t, a, 1)
	cfg.Seed = 8
	jc, _ := json.Marshal(mustRun(t, cfg))
	if string(jc) == string(ja) {
		t.Error("another seed gives the very same result: the seed is not used")
	}
}

// railFabric is hosts servers of 8 NICs (h<n>:eth<k>) on 8 rails: rail
// k's NICs on two leaves of hosts/2 (leaf r<k>-<half>), every leaf linked
// to each of 8 spines, 400G throughout.
func railFabric(hosts int) Topology {
	var t Topology
	for s := range 8 {
		t.Nodes = append(t.Nodes, Node{Name: fmt.Sprintf("spine%d", s), Kind: Switch})
	}
	for n := range hosts {
		t.Nodes = append(t.Nodes, Node{Name: fmt.Sprintf("h%d", n), Kind: Host})
	}
	for k := range 8 {
		for half := range 2 {
			leaf := fmt.Sprintf("r%d-%d", k, half)
			t.Nodes = append(t.Nodes, Node{Name: leaf, Kind: Switch})
			for s := range 8 {
				t.Links = append(t.Links, Link{A: PortRef{leaf, fmt.Sprintf("up%d", s)}, B: PortRef{fmt.Sprintf("spine%d", s), leaf},
					RateGbps: 400, PropDelayNs: 200})
			}
			for n := half * hosts / 2; n < (half+1)*hosts/2; n++ {
				t.Links = append(t.Links, Link{A: PortRef{fmt.Sprintf("h%d", n), fmt.Sprintf("eth%d", k)}, B: PortRef{leaf, fmt.Sprintf("h%d", n)},
					RateGbps: 400, PropDelayNs: 100})
			}
		}
	}
	return t
}

// railRing is a ring AllReduce of bytes over hosts x 8 GPUs in 8
// channels, rail aligned as NCCL builds them: channel c visits GPUs c,
// c+1, ..., c+7 of each server over its scale-up domain (7 hops), then
// leaves through NIC c for NIC c of the next server (one fabric hop on
// rail c).
func railRing(hosts int, bytes int64) Program {
	const gpus, channels = 8, 8
	n := hosts * gpus
	msg := max(bytes/int64(channels*n), 1)
	p := Program{ID: "allreduce"}
	for c := range channels {
		first := int32(len(p.Streams))
		for r := range n {
			h, j := r/gpus, r%gpus
			st := Stream{Messages: int64(2 * (n - 1)), MessageBytes: msg,
				Inputs: []Input{{Stream: first + int32((r+n-1)%n), Offset: -1}}}
			if j < gpus-1 {
				st.ScaleUp, st.Host, st.SrcGPU, st.DstGPU = true, fmt.Sprintf("h%d", h), (c+j)%gpus, (c+j+1)%gpus
			} else {
				st.Src, st.Dst = fmt.Sprintf("h%d:eth%d", h, c), fmt.Sprintf("h%d:eth%d", (h+1)%hosts, c)
			}
			p.Streams = append(p.Streams, st)
		}
	}
	return p
}

func railRingConfig(hosts int, bytes int64) Config {
	cfg := Config{
		Topology:     railFabric(hosts),
		DefaultQoS:   losslessQoS(true, true, 1_600_000, 6_400_000),
		DurationNs:   1_000_000_000,
		Seed:         1,
		DCQCN:        PaperDCQCN(400),
		DCQCNEnabled: true,
		ScaleUp:      map[string]ScaleUpDomain{},
		Programs:     []Program{railRing(hosts, bytes)},
	}
	for h := range hosts {
		cfg.ScaleUp[fmt.Sprintf("h%d", h)] = ScaleUpDomain{GbpsPerGPU: 3600, LatencyNs: 500, GPUs: 8}
	}
	return cfg
}

// BenchmarkProgramRing1024 is a ring AllReduce of 64 MiB over 128
// servers x 8 GPUs (1024 ranks, 2046 steps) in 8 rail-aligned channels:
// 7168 scale-up streams and 1024 QPs, 8 KiB messages.
func BenchmarkProgramRing1024(b *testing.B) {
	cfg := railRingConfig(128, 64<<20)
	benchRun(b, cfg, func(r *Result) {
		if r.Programs[0].TimeNs == nil {
			b.Fatal("AllReduce did not complete")
		}
	})
}

// BenchmarkProgramRing256 is the same over 32 servers (256 ranks, 510
// steps, 32 KiB messages).
func BenchmarkProgramRing256(b *testing.B) {
	cfg := railRingConfig(32, 64<<20)
	benchRun(b, cfg)
}

// TestProgramMemoryPerStream: a program costs its streams, not its
// messages: fifty times the messages through a GPU that never drains
// (seven streams share it, each posting its next message when its last
// arrived) allocate about the same.
func TestProgramMemoryPerStream(t *testing.T) {
	mk := func(msgs int64) Config {
		cfg := oneServer(8, 3600, 500)
		p := Program{ID: "fan"}
		for j := range 7 {
			p.Streams = append(p.Streams, Stream{ScaleUp: true, Host: "h0", SrcGPU: 0, DstGPU: j + 1, Messages: msgs, MessageBytes: 1 << 16,
				Inputs: []Input{{Stream: int32(j), Offset: -1}}})
		}
		cfg.Programs = []Program{p}
		return cfg
	}
	alloc := func(msgs int64) (uint64, *Result) {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		r := mustRun(t, mk(msgs))
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc, r
	}
	small, rs := alloc(1000)
	big, rb := alloc(50_000)
	progTime(t, rs, 0)
	// Seven streams of M messages of 64 KiB leave GPU 0 back to back.
	if got, want := *rb.Programs[0].TimeNs, int64(7*50_000*math.Round(1<<16*8/3600.0*1000)/1000+500); got != want {
		t.Errorf("7 x 50000 messages take %d ns, want %d", got, want)
	}
	t.Logf("allocated %d bytes for 1000 messages a stream, %d for 50000", small, big)
	if big > 2*small+64<<10 {
		t.Errorf("50000 messages a stream allocate %d bytes, 1000 allocate %d: memory grows with messages", big, small)
	}
}

// Interleaved streams: a hop split over two streams that take its
// messages round robin (stride 2, phases 0 and 1), as a connection spread
// over two QPs, fed by one stream and feeding one. On one GPU's FIFO
// egress the split hop sends the same messages at the same times, so the
// chain ends exactly when the unsplit chain does. Split streams that
// counted their own messages as the sequence (message i waiting for
// message i of the hop before, not i*2+phase) would send before the data
// arrived and end early.
func TestProgramInterleavedStreams(t *testing.T) {
	const msgs, bytes = 6, 4000
	hop := func(src, dst int, in ...Input) Stream {
		return Stream{ScaleUp: true, Host: "h0", SrcGPU: src, DstGPU: dst, Messages: msgs, MessageBytes: bytes, Inputs: in}
	}
	whole := Program{ID: "whole", Streams: []Stream{hop(0, 1), hop(1, 2, Input{0, 0}), hop(2, 3, Input{1, 0})}}
	a, b := hop(1, 2, Input{0, 0}), hop(1, 2, Input{0, 0})
	a.Messages, a.Stride, a.Phase = msgs/2, 2, 0
	b.Messages, b.Stride, b.Phase = msgs/2, 2, 1
	split := Program{ID: "split", Streams: []Stream{hop(0, 1), a, b, hop(2, 3, Input{1, 0}, Input{2, 0})}}
	var times []int64
	for _, p := range []Program{whole, split} {
		cfg := oneServer(4, 100, 300)
		cfg.Programs = []Program{p}
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, progTime(t, r, 0))
	}
	// By hand: every hop's message takes 4000 B x 8 / 100 Gb/s = 320 ns
	// on its GPU and arrives 300 ns later; the first hop's six messages
	// leave back to back, the next hops forward each as it arrives, so
	// the last message arrives at 6x320 + 2x(320+300) + 300 ns.
	want := int64(6*320 + 2*(320+300) + 300)
	if times[0] != want || times[1] != want {
		t.Fatalf("chain ends at %d ns unsplit and %d ns split over two streams, want %d for both", times[0], times[1], want)
	}
}

// TestInputOnAnotherServerWaitsForTheCredit: a stream whose input is
// received on another server posts a credit's trip after the receipt (a
// minimum frame from that server's NIC to its own: two links and the
// NIC's delay within a leaf), one whose input is received where it is
// sent posts at once.
func TestInputOnAnotherServerWaitsForTheCredit(t *testing.T) {
	end := func(sender string) int64 {
		cfg := Config{
			Topology:       leafSpine(2, 1, 2, 100, 100),
			DefaultQoS:     losslessQoS(true, false, 0, 0),
			DurationNs:     1_000_000,
			Seed:           1,
			SwitchJitterNs: -1,
			Programs: []Program{{ID: "p", Streams: []Stream{
				{Src: "h0-0", Dst: "h1-0", Messages: 1, MessageBytes: 4096},
				{Src: sender, Dst: "h0-1", Messages: 1, MessageBytes: 4096, Inputs: []Input{{Stream: 0, Offset: 0}}},
			}}},
		}
		s, err := newSim(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		credit := s.streams[1].credit
		if local := sender == "h1-0"; local != (credit == nil) {
			t.Fatalf("sender %s: credits %v", sender, credit)
		}
		r := mustRun(t, cfg)
		progTime(t, r, 0)
		return r.Programs[0].EndNs
	}
	// h1-0 and h1-1 hang off one leaf, both a leaf and a spine away
	// from h0-1: the paths of the second stream take as long.
	local, remote := end("h1-0"), end("h1-1")
	s, err := newSim(&Config{Topology: leafSpine(2, 1, 2, 100, 100), DurationNs: 1})
	if err != nil {
		t.Fatal(err)
	}
	nic := s.nodes[s.nodeByName["h1-0"]].ports[0]
	link := s.ports[nic].propPs + s.ports[nic].serPs(minWireBytes)
	want := (2*link + DefaultNICDelayNs*1000) / 1000
	// Where the input is received, the stream's first packet may wait
	// behind that NIC's ACK of it.
	ack := s.ports[nic].serPs(AckWireBytes) / 1000
	if d := remote - local; d < want-ack-1 || d > want+1 {
		t.Errorf("the program ends %d ns later with its input received on another server, want the credit's %d ns", d, want)
	}

	// On InfiniBand the credit is the link layer's smallest packet and
	// the HCA's pipeline.
	ib := Config{Topology: leafSpine(2, 1, 2, 100, 100), DurationNs: 1, Transport: TransportInfiniBand, Programs: []Program{{ID: "p", Streams: []Stream{
		{Src: "h0-0", Dst: "h1-0", Messages: 1, MessageBytes: 4096},
		{Src: "h1-1", Dst: "h0-1", Messages: 1, MessageBytes: 4096, Inputs: []Input{{Stream: 0, Offset: 0}}},
	}}}}
	si, err := newSim(&ib)
	if err != nil {
		t.Fatal(err)
	}
	link = si.ports[nic].propPs + si.ports[nic].serPs(IBFlowControlWireBytes)
	if got, want := si.streams[1].credit[0], 2*link+DefaultNICDelayNs*1000; got != want {
		t.Errorf("InfiniBand credit %d ps, want %d", got, want)
	}
}

// TestProgramMessageSizes: a stream with Stream.Size carries each
// message's own size, 0 bytes included: its bytes are exactly the sum of
// its messages', on the fabric and on the scale-up domain, and a message
// of 0 bytes still paces what waits for it.
func TestProgramMessageSizes(t *testing.T) {
	fabric := []int64{0, 1, 4096, 4097, 8192, 8191, 5000}
	su := []int64{0, 1000, 500}
	sizeOf := func(s []int64) func(int64) int64 { return func(m int64) int64 { return s[m] } }
	sum := func(s []int64) (n int64) {
		for _, b := range s {
			n += b
		}
		return n
	}
	cfg := oneServer(8, 100, 300)
	cfg.Topology = leafSpine(1, 1, 2, 100, 100)
	cfg.ScaleUp = map[string]ScaleUpDomain{"h0-0": {GbpsPerGPU: 100, LatencyNs: 300, GPUs: 8}}
	cfg.Programs = []Program{
		{ID: "fabric", Streams: []Stream{
			{Src: "h0-0", Dst: "h0-1", Messages: int64(len(fabric)), MessageBytes: 8192, Size: sizeOf(fabric)},
			// Message m waits for message m of stream 0, 0-byte one included.
			{Src: "h0-1", Dst: "h0-0", Messages: int64(len(fabric)), MessageBytes: 8192, Size: sizeOf(fabric), Inputs: []Input{{Stream: 0, Offset: 0}}},
		}},
		{ID: "scale-up", Streams: []Stream{{ScaleUp: true, Host: "h0-0", SrcGPU: 0, DstGPU: 1, Messages: int64(len(su)), MessageBytes: 1000, Size: sizeOf(su)}}},
	}
	r := mustRun(t, cfg)
	progTime(t, r, 0)
	if p := r.Programs[0]; p.FabricBytes != 2*sum(fabric) || p.ScaleUpBytes != 0 {
		t.Errorf("fabric program: %d fabric and %d scale-up bytes, want %d and 0", p.FabricBytes, p.ScaleUpBytes, 2*sum(fabric))
	}
	// By hand: 0 B leaves at once and arrives 300 ns later, 1000 B take
	// 80 ns and 500 B 40 ns more: the last arrives at 120 + 300 ns.
	if got := progTime(t, r, 1); got != 420 {
		t.Errorf("scale-up stream ends at %d ns, want 420", got)
	}
	if p := r.Programs[1]; p.ScaleUpBytes != sum(su) || p.FabricBytes != 0 {
		t.Errorf("scale-up program: %d scale-up and %d fabric bytes, want %d and 0", p.ScaleUpBytes, p.FabricBytes, sum(su))
	}
	if want := 2 * sum(fabric); r.Totals.BytesDelivered != want {
		t.Errorf("totals count %d fabric bytes, want %d", r.Totals.BytesDelivered, want)
	}

	// A Size that gives every message MessageBytes is no Size at all.
	for _, bytes := range []int64{5000, 8192, 100} {
		times := make([]int64, 2)
		for k := range times {
			c := oneServer(8, 100, 300)
			c.Topology, c.ScaleUp = leafSpine(1, 1, 2, 100, 100), nil
			st := Stream{Src: "h0-0", Dst: "h0-1", Messages: 5, MessageBytes: bytes}
			if k == 1 {
				st.Size = func(int64) int64 { return bytes }
			}
			c.Programs = []Program{{ID: "p", Streams: []Stream{st}}}
			times[k] = progTime(t, mustRun(t, c), 0)
		}
		if times[0] != times[1] {
			t.Errorf("%d B messages: %d ns without Size, %d ns with one giving every message %d B", bytes, times[0], times[1], bytes)
		}
	}

	// Every transport carries the 0-byte messages and counts the bytes.
	for _, tr := range []string{TransportInfiniBand, TransportUET} {
		c := cfg
		c.Transport = tr
		c.Programs = cfg.Programs[:1]
		r := mustRun(t, c)
		progTime(t, r, 0)
		if p := r.Programs[0]; p.FabricBytes != 2*sum(fabric) {
			t.Errorf("%s: %d fabric bytes, want %d", tr, p.FabricBytes, 2*sum(fabric))
		}
	}

	// Sizes out of 0..MessageBytes are refused.
	for _, b := range []int64{-1, 8193} {
		c := cfg
		c.Programs = []Program{{ID: "p", Streams: []Stream{{Src: "h0-0", Dst: "h0-1", Messages: 2, MessageBytes: 8192, Size: func(int64) int64 { return b }}}}}
		if _, err := Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), "a message's size must be in 0..8192") {
			t.Errorf("size %d: %v", b, err)
		}
	}
}
