package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/docblock"
)

// ibConfig is an InfiniBand run without clock skew or switch pipeline
// jitter, so closed forms hold to the picosecond.
func ibConfig(t Topology, durNs int64) Config {
	return Config{Topology: t, DurationNs: durNs, Transport: TransportInfiniBand, IB: &IBParams{}, ClockSkewPPM: -1, SwitchJitterNs: -1, Seed: 1}
}

func ibStats(r *Result, node, port string) IBPortStats {
	for _, p := range r.InfiniBand {
		if p.Node == node && p.Port == port {
			return p
		}
	}
	return IBPortStats{}
}

// TestIBClosedForms runs InfiniBand's validation targets, each with its
// own assertions, and keeps the block "infiniband-closed-forms" of
// docs/fidelity.md equal to the rows they write. Regenerate it after a
// deliberate change to the model:
//
//	go test ./orchestrator/sim -run TestIBClosedForms -update
func TestIBClosedForms(t *testing.T) {
	page := &targetPage{}
	for _, target := range []struct {
		name string
		run  func(*testing.T, *targetPage)
	}{
		{"one flow", ibTargetLineRate},
		{"credit-limited", ibTargetCreditLimited},
		{"incast", ibTargetIncast},
		{"congestion tree", ibTargetCongestionTree},
		{"ftree balance", ibTargetFtreeBalance},
		{"ftree permutation", ibTargetFtreePermutation},
	} {
		t.Run(target.name, func(t *testing.T) { target.run(t, page) })
	}
	if t.Failed() || strings.Contains(flagValue("test.run"), "/") {
		if *update {
			t.Log("not rewriting docs/fidelity.md: run every target, and only when all pass")
		}
		return
	}
	docblock.Check(t, fidelityPage, map[string]string{"infiniband-closed-forms": page.markdown()}, *update,
		"go test ./orchestrator/sim -run TestIBClosedForms -update")
}

// ibLine is the goodput of a link of rate Gb/s at MTU 4096 on IB.
func ibLine(rate float64) float64 { return rate * 4096.0 / (4096 + IBWireOverheadBytes) }

// One flow on an idle link: goodput MTU/(MTU+26) of line rate, IB's
// headers being 26 bytes where RoCE's Ethernet framing is 82.
func ibTargetLineRate(t *testing.T, page *targetPage) {
	cfg := ibConfig(star(2, 100), 2_000_000)
	cfg.WarmupNs = 100_000
	cfg.Flows = []Flow{{ID: "f", Src: "h0", Dst: "h1"}}
	r := mustRun(t, cfg)
	want := ibLine(100)
	got := r.Flows[0].GoodputGbps
	if math.Abs(got-want) > 0.005*want {
		t.Errorf("goodput %.3f Gb/s, want %.3f (±0.5%%)", got, want)
	}
	w := ibStats(r, "h0", "eth0").PortXmitWait
	if w != 0 {
		t.Errorf("PortXmitWait %d on an uncongested link with the derived buffer: want 0", w)
	}
	page.row("one flow, idle 100G link, MTU 4096, derived VL buffer",
		fmt.Sprintf("4096/4122 = %.2f%% of line rate ±0.5%%, no credit wait", want), fmt.Sprintf("%.2f%%, PortXmitWait %d", got, w))
}

// Credit-limited throughput: a VL buffer of n packets on a long link
// carries n packets per credit round trip, the packet's serialization,
// the propagation there, the flow-control packet's serialization and the
// propagation back (the HCA frees its buffer on receipt):
// throughput = min(C, n x P / RTT).
func ibTargetCreditLimited(t *testing.T, page *targetPage) {
	for _, tc := range []struct {
		pkts   int
		propNs int64
	}{{4, 2000}, {2, 1000}, {8, 500}, {40, 2000}} {
		topo := star(2, 100)
		topo.Links[1].PropDelayNs = tc.propNs // sw - h1: the long cable
		cfg := ibConfig(topo, 400_000)
		cfg.WarmupNs = 50_000
		pkt := int64(4096 + IBWireOverheadBytes)
		credits := (pkt + 63) / 64
		cfg.IB.VLBufferBytes = int64(tc.pkts) * credits * 64
		cfg.Flows = []Flow{{ID: "f", Src: "h0", Dst: "h1"}}
		r := mustRun(t, cfg)
		ser := float64(pkt) * 8 / 100 // ns at 100 Gb/s
		rtt := ser + 2*float64(tc.propNs) + float64(IBFlowControlWireBytes)*8/100
		frac := math.Min(1, float64(tc.pkts)*ser/rtt)
		want := ibLine(100) * frac
		got := r.Flows[0].GoodputGbps
		if math.Abs(got-want) > 0.01*want {
			t.Errorf("%d packets, %d ns: goodput %.3f Gb/s, want min(C, nP/RTT) = %.3f (±1%%)", tc.pkts, tc.propNs, got, want)
		}
		wait := ibStats(r, "sw", "Ethernet1").PortXmitWait
		if frac < 1 && wait == 0 {
			t.Errorf("%d packets, %d ns: a credit-limited port counts no PortXmitWait", tc.pkts, tc.propNs)
		}
		if r.Totals.Drops != 0 || r.Totals.PauseFrames != 0 {
			t.Errorf("drops %d, pause frames %d: want none", r.Totals.Drops, r.Totals.PauseFrames)
		}
		page.row(fmt.Sprintf("one flow, 100G, VL buffer of %d packets (%d credits), %d ns cable to the HCA", tc.pkts, int64(tc.pkts)*credits, tc.propNs),
			fmt.Sprintf("min(C, nP/RTT), RTT = %.1f ns: %.2f Gb/s ±1%%", rtt, want),
			fmt.Sprintf("%.2f Gb/s (%+.2f%%), PortXmitWait %d", got, 100*(got/want-1), wait))
	}
}

// An 8:1 incast: no drop, no pause, the receiver at line rate, each
// sender an eighth, and the senders stall on credits (PortXmitWait).
func ibTargetIncast(t *testing.T, page *targetPage) {
	cfg := ibConfig(star(9, 100), 1_000_000)
	cfg.WarmupNs = 100_000
	for i := 1; i <= 8; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("s%d", i), Src: fmt.Sprintf("h%d", i), Dst: "h0"})
	}
	r := mustRun(t, cfg)
	line := ibLine(100)
	if r.Totals.Drops != 0 || r.Totals.PauseFrames != 0 || r.Totals.Retransmits != 0 {
		t.Fatalf("drops %d, pauses %d, retransmits %d: an IB fabric has none", r.Totals.Drops, r.Totals.PauseFrames, r.Totals.Retransmits)
	}
	got := r.Totals.GoodputGbps
	if math.Abs(got-line) > 0.01*line {
		t.Errorf("receiver %.3f Gb/s, want line rate %.3f (±1%%)", got, line)
	}
	lo, hi := math.Inf(1), 0.0
	var wait int64
	for _, f := range r.Flows {
		lo, hi = math.Min(lo, f.GoodputGbps), math.Max(hi, f.GoodputGbps)
		if math.Abs(f.GoodputGbps-line/8) > 0.1*line/8 {
			t.Errorf("%s: %.3f Gb/s, want C/8 = %.3f (±10%%)", f.ID, f.GoodputGbps, line/8)
		}
		w := ibStats(r, "h"+f.ID[1:], "eth0").PortXmitWait
		if w == 0 {
			t.Errorf("%s: no PortXmitWait at a sender held back by credits", f.ID)
		}
		wait += w
	}
	page.row("8:1 incast, 100G, 1 ms (from 0.1 ms)",
		fmt.Sprintf("no drop, no pause, no retransmission; receiver %.2f Gb/s ±1%%; each sender C/8 = %.2f ±10%%", line, line/8),
		fmt.Sprintf("%d drops, %d pauses; receiver %.2f Gb/s; senders %.2f–%.2f Gb/s; senders' PortXmitWait %d ticks (%.0f%% of the run)",
			r.Totals.Drops, r.Totals.PauseFrames, got, lo, hi, wait, 100*float64(wait)*64*8/100/8/1e6))
}

// victimTree is a congestion tree on two leaves and a spine: three
// hosts of leaf0 send to h1-0 (3:1 at its leaf), a fourth to h1-1, whose
// path shares only the spine-to-leaf1 link and its VL with them.
func victimTree(cc bool) Config {
	cfg := ibConfig(leafSpine(2, 1, 4, 100, 400), 2_000_000)
	cfg.WarmupNs = 500_000
	for i := range 3 {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("hot%d", i), Src: fmt.Sprintf("h0-%d", i), Dst: "h1-0"})
	}
	cfg.Flows = append(cfg.Flows, Flow{ID: "victim", Src: "h0-3", Dst: "h1-1"})
	if cc {
		cfg.IB.CC = ibDefaultCC()
	}
	return cfg
}

// ibDefaultCC is IB CC with labctl's defaults (transport.ResolveIB's):
// threshold 8, marking rate 3, CCTI timer 20 x 1.024 µs, the default
// CCT.
func ibDefaultCC() IBCC {
	return IBCC{Enabled: true, Threshold: 8, MarkingRate: 3, CCTITimerNs: 20 * 1024}
}

func flowGbps(r *Result, id string) float64 {
	for _, f := range r.Flows {
		if f.ID == id {
			return f.GoodputGbps
		}
	}
	return math.NaN()
}

// The spread of a congestion tree: without congestion control the
// hotspot's packets fill leaf1's buffer for the spine link and the victim
// gets only what the credits of that shared buffer let through; with IB
// CC the hot sources slow down, the tree dissolves and the victim runs
// near line rate. The hotspot's receiver is at line rate either way.
func ibTargetCongestionTree(t *testing.T, page *targetPage) {
	line := ibLine(100)
	off := mustRun(t, victimTree(false))
	on := mustRun(t, victimTree(true))
	vOff, vOn := flowGbps(off, "victim"), flowGbps(on, "victim")
	hotOff := flowGbps(off, "hot0") + flowGbps(off, "hot1") + flowGbps(off, "hot2")
	hotOn := flowGbps(on, "hot0") + flowGbps(on, "hot1") + flowGbps(on, "hot2")
	// Without CC the four flows share every FIFO from the senders to
	// leaf1's buffer for the spine link alike, which drains at the
	// hotspot's rate: the victim gets what each hot flow gets, C/3.
	if math.Abs(vOff-line/3) > 0.03*line/3 {
		t.Errorf("victim at %.2f Gb/s without CC: want the hot flows' share C/3 = %.2f (±3%%)", vOff, line/3)
	}
	if vOn < 0.9*line {
		t.Errorf("victim at %.2f Gb/s with CC: want > 90%% of %.2f", vOn, line)
	}
	for name, r := range map[string]*Result{"off": off, "on": on} {
		if r.Totals.Drops != 0 || r.Totals.PauseFrames != 0 {
			t.Errorf("CC %s: drops %d, pauses %d", name, r.Totals.Drops, r.Totals.PauseFrames)
		}
	}
	if hotOn < 0.95*line || hotOff < 0.95*line {
		t.Errorf("hotspot receiver %.2f (off) / %.2f (on) Gb/s: want line rate", hotOff, hotOn)
	}
	// The marks come back as BECNs: every FECN an HCA received is a
	// BECN its source received, but those still in flight at the end.
	var marked, fecn, becn int64
	for _, p := range on.InfiniBand {
		marked += p.SWPortVLCongestion
		fecn += p.PortPktRcvFECN
		becn += p.PortPktRcvBECN
	}
	if marked == 0 || fecn > marked || becn > fecn || fecn-becn > 16 {
		t.Errorf("marked %d, FECN received %d, BECN received %d: want marked >= FECN >= BECN, a few in flight", marked, fecn, becn)
	}
	for _, p := range off.InfiniBand {
		if p.SWPortVLCongestion+p.PortPktRcvBECN != 0 {
			t.Errorf("%s:%s marks or BECNs with CC off", p.Node, p.Port)
		}
	}
	page.row("congestion tree: 3 senders of leaf0 to h1-0 (100G), a victim from leaf0 to h1-1 sharing the spine-leaf1 link (400G), CC off",
		fmt.Sprintf("lossless; hotspot at line rate; the victim held to the hot flows' share C/3 = %.2f ±3%%", line/3),
		fmt.Sprintf("victim %.2f Gb/s; hotspot %.2f Gb/s; %d drops", vOff, hotOff, off.Totals.Drops))
	page.row("the same, IB CC on (labctl's defaults: threshold 8, marking rate 3, CCTI timer 20, 128-entry CCT)",
		fmt.Sprintf("victim > 90%% of %.2f; hotspot ≥ 95%%; every BECN answers a FECN", line),
		fmt.Sprintf("victim %.2f Gb/s; hotspot %.2f Gb/s; %d FECN marks, %d BECNs", vOn, hotOn, marked, becn))
}

// parallelLeafSpine is 64gpu's shape: leaves leaf0.., one spine, hosts
// per leaf, and as many parallel links from each leaf to the spine.
func parallelLeafSpine(leaves, hosts int) Topology {
	t := Topology{Nodes: []Node{{Name: "spine0", Kind: Switch}}}
	for l := range leaves {
		leaf := fmt.Sprintf("leaf%d", l)
		t.Nodes = append(t.Nodes, Node{Name: leaf, Kind: Switch})
		for i := range hosts {
			h := fmt.Sprintf("h%d-%d", l, i)
			t.Nodes = append(t.Nodes, Node{Name: h, Kind: Host})
			t.Links = append(t.Links,
				Link{A: PortRef{h, "eth0"}, B: PortRef{leaf, fmt.Sprintf("Ethernet%d", i)}, RateGbps: 200, PropDelayNs: 25},
				Link{A: PortRef{leaf, fmt.Sprintf("Ethernet%d", 100+i)}, B: PortRef{"spine0", fmt.Sprintf("Ethernet%d", l*100+i)}, RateGbps: 200, PropDelayNs: 25})
		}
	}
	return t
}

// ftree on a fabric of 64gpu's shape (two leaves, one spine, as many
// parallel links leaf-spine as hosts per leaf) and on two spines: every
// up-port of a leaf carries the same number of destination LIDs, and
// each spine's down-ports too.
func ibTargetFtreeBalance(t *testing.T, page *targetPage) {
	for _, tc := range []struct {
		name  string
		topo  Topology
		perUp int
	}{
		{"2 leaves × 32 hosts, 1 spine, 32 parallel links per leaf (64gpu's shape)", parallelLeafSpine(2, 32), 1},
		{"4 leaves × 8 hosts, 2 spines", leafSpine(4, 2, 8, 100, 400), 12},
	} {
		for _, routing := range []string{"ftree", "minhop"} {
			cfg := ibConfig(tc.topo, 1000)
			cfg.IB.Routing = routing
			lids, err := IBLIDsPerPort(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ups, downs := map[int]int{}, map[string][]int{}
			for ref, n := range lids {
				if strings.HasPrefix(ref.Node, "leaf") {
					ups[n]++
				} else {
					downs[ref.Node] = append(downs[ref.Node], n)
				}
			}
			if len(ups) != 1 || ups[tc.perUp] == 0 {
				t.Errorf("%s, %s: leaf up-ports by destination LIDs %v, want all %d", tc.name, routing, ups, tc.perUp)
			}
			for sp, counts := range downs {
				for _, c := range counts {
					if c != counts[0] || c == 0 {
						t.Errorf("%s, %s: %s down-ports carry %v destination LIDs: want equal, non-zero", tc.name, routing, sp, counts)
						break
					}
				}
			}
			page.row(fmt.Sprintf("%s routing, %s", routing, tc.name),
				fmt.Sprintf("destination LIDs per leaf up-port: %d each; per spine down-port: the same on all", tc.perUp),
				fmt.Sprintf("%d leaf up-ports, %d LIDs each; spine down-ports equal", ups[tc.perUp], tc.perUp))
		}
	}
}

// A permutation between two leaves under ftree: every destination has
// an up-link of its own, so flows never share one and all run at line
// rate (flow-hashed ECMP would collide).
func ibTargetFtreePermutation(t *testing.T, page *targetPage) {
	cfg := ibConfig(parallelLeafSpine(2, 8), 300_000)
	cfg.WarmupNs = 50_000
	for i := range 8 {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("p%d", i), Src: fmt.Sprintf("h0-%d", i), Dst: fmt.Sprintf("h1-%d", (i+3)%8)})
	}
	r := mustRun(t, cfg)
	line := ibLine(200)
	ups := map[string]bool{}
	lo := math.Inf(1)
	for _, f := range r.Flows {
		lo = math.Min(lo, f.GoodputGbps)
		if f.GoodputGbps < 0.99*line {
			t.Errorf("%s: %.2f Gb/s, want line rate %.2f", f.ID, f.GoodputGbps, line)
		}
		ups[f.Route[0]] = true
	}
	if len(ups) != 8 {
		t.Errorf("the 8 flows leave leaf0 by %d up-ports, want 8", len(ups))
	}
	page.row("permutation of 8 flows from leaf0's hosts to leaf1's over 8 parallel 200G links, ftree",
		fmt.Sprintf("one up-link per destination: every flow at %.2f Gb/s ±1%%", line),
		fmt.Sprintf("%d up-links used; slowest flow %.2f Gb/s", len(ups), lo))
}

// Adaptive routing spreads one flow over both spines when one up-link
// cannot carry it; with deterministic routes it is held to one.
func TestIBAdaptiveRouting(t *testing.T) {
	run := func(adaptive bool) *Result {
		cfg := ibConfig(leafSpine(2, 2, 1, 200, 100), 300_000)
		cfg.WarmupNs = 50_000
		cfg.IB.AdaptiveRouting = adaptive
		cfg.OutOfOrder = adaptive
		cfg.Flows = []Flow{{ID: "f", Src: "h0-0", Dst: "h1-0"}}
		return mustRun(t, cfg)
	}
	det, ar := run(false), run(true)
	one := 100 * 4096.0 / (4096 + IBWireOverheadBytes)
	if g := det.Flows[0].GoodputGbps; math.Abs(g-one) > 0.01*one {
		t.Errorf("deterministic: %.2f Gb/s, want one up-link's %.2f", g, one)
	}
	if g := ar.Flows[0].GoodputGbps; g < 1.9*one || ar.Totals.Retransmits != 0 {
		t.Errorf("adaptive: %.2f Gb/s with %d retransmits, want both up-links (%.2f) and none", g, ar.Totals.Retransmits, 2*one)
	}
}

// A link down: the SM's routes move off it (as the fault's detection
// and convergence delays say), the flows complete, and once the link is
// back up its credits are whole again (no credit leaks: line rate).
func TestIBLinkFaultReroutes(t *testing.T) {
	cfg := ibConfig(leafSpine(2, 2, 2, 100, 100), 2_000_000)
	cfg.Flows = []Flow{
		{ID: "a", Src: "h0-0", Dst: "h1-0", Bytes: 4 << 20},
		{ID: "b", Src: "h0-1", Dst: "h1-1", Bytes: 4 << 20},
	}
	cfg.Faults = []LinkFault{{Link: PortRef{Node: "leaf0", Port: "Ethernet100"}, DownNs: 100_000, UpNs: 400_000, DetectNs: 10_000, ConvergeNs: 50_000}}
	r := mustRun(t, cfg)
	for _, f := range r.Flows {
		if !f.Completed {
			t.Errorf("%s did not complete after the fault", f.ID)
		}
	}
	if r.Totals.PauseFrames != 0 {
		t.Errorf("%d pause frames on InfiniBand", r.Totals.PauseFrames)
	}
	// After the link is back, a fresh flow over it runs at line rate.
	cfg.Flows = append(cfg.Flows, Flow{ID: "late", Src: "h0-0", Dst: "h1-1", Bytes: 2 << 20, StartNs: 1_000_000})
	r = mustRun(t, cfg)
	for _, f := range r.Flows {
		if f.ID == "late" && (f.FCTNs == nil || float64(2<<20)*8/float64(*f.FCTNs) < 0.9*100*4096/4122.0) {
			t.Errorf("late flow: FCT %v ns, want about line rate", f.FCTNs)
		}
	}
}

// CCTI: a BECN adds CCTI_Increase up to CCTI_Limit; each timer expiry
// takes one off down to CCTI_Min, and the CCT entry sets the delay.
func TestIBCCTI(t *testing.T) {
	cfg := ibConfig(star(2, 100), 1_000_000)
	cfg.IB.CC = IBCC{Enabled: true, Threshold: 8, CCTIIncrease: 3, CCTILimit: 7, CCTIMin: 1, CCTITimerNs: 1000, CCT: []int{0, 1, 2, 3, 4, 5, 6, 70, 80}}
	cfg.Flows = []Flow{{ID: "f", Src: "h0", Dst: "h1"}}
	s, err := newSim(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.flows[0].started = true
	s.ibBECN(0)
	c := &s.ib.flows[0]
	if c.ccti != 4 || !c.timerOn {
		t.Fatalf("after one BECN: %+v, want CCTI min 1 + 3 = 4 and the timer on", c)
	}
	s.ibBECN(0)
	s.ibBECN(0)
	if c.ccti != 7 {
		t.Errorf("CCTI %d after three BECNs, want the limit 7", c.ccti)
	}
	if d := s.ibDelay(0, s.flows[0].src); d != 70*s.ib.ports[s.flows[0].src].creditPs {
		t.Errorf("delay %d ps, want CCT[7] = 70 credit times", d)
	}
	for range 10 {
		s.ibCCTimer(0, c.gen)
	}
	if c.ccti != 1 || c.timerOn {
		t.Errorf("after the timer ran out: %+v, want CCTI_Min 1 and the timer off", c)
	}
}

// Settings that cannot work are refused with the fix.
func TestIBConfigErrors(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"vls":     func(c *Config) { c.IB.VLs = 3 },
		"routing": func(c *Config) { c.IB.Routing = "lash" },
		"sl2vl":   func(c *Config) { c.IB.SL2VL = make([]int, 15) },
		"buffer":  func(c *Config) { c.IB.VLBufferBytes = 1000 },
		"storm":   func(c *Config) { c.Storms = []PauseStorm{{NIC: "h0", Priority: 3}} },
		"mtu":     func(c *Config) { c.MTU = 9000 },
		"ccti":    func(c *Config) { c.IB.CC = IBCC{Enabled: true, CCTILimit: 5, CCT: []int{0, 1}} },
	} {
		cfg := ibConfig(star(2, 100), 1000)
		mod(&cfg)
		if _, err := newSim(&cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Split across partitions, an InfiniBand run models the same fabric:
// the incast completes in both, nothing pauses, and the lookahead is a
// flow-control packet's (credits are the smallest frames crossing).
func TestIBParallelAgreesWithSequential(t *testing.T) {
	cfg := parallelCases()["infiniband"]
	seq := mustRun(t, cfg)
	cfg.Partitions, cfg.Threads = 4, 2
	par := mustRun(t, cfg)
	if par.Partitions != 4 {
		t.Fatalf("%d partitions, want 4", par.Partitions)
	}
	// 200 ns propagation + 6 bytes at 100 Gb/s (skewed clocks aside).
	if want := 200 + float64(IBFlowControlWireBytes)*8/100; math.Abs(par.LookaheadNs-want) > 0.01 {
		t.Errorf("lookahead %.3f ns, want %.3f", par.LookaheadNs, want)
	}
	done := func(r *Result) (n int) {
		for _, f := range r.Flows {
			if f.Completed {
				n++
			}
		}
		return n
	}
	if done(seq) != 12 || done(par) != 12 {
		t.Errorf("incast flows completed: %d sequential, %d split, want 12", done(seq), done(par))
	}
	if seq.Totals.PauseFrames+par.Totals.PauseFrames != 0 {
		t.Error("pause frames on InfiniBand")
	}
	if a, b := float64(seq.Totals.BytesDelivered), float64(par.Totals.BytesDelivered); !within(b/a, 1, 0.03) {
		t.Errorf("bytes delivered %v split against %v sequential", b, a)
	}
}

// Collectives and ping-pongs run on InfiniBand as on RoCE (they are QPs):
// the ring and the all-to-all complete, the ping-pong's latency is the
// path's, and nothing drops or pauses.
func TestIBCollectives(t *testing.T) {
	cases := parallelCases()
	ring, a2a := cases["ring allreduce"], cases["all-to-all"]
	for name, c := range map[string]Config{"ring": ring, "all-to-all": a2a} {
		c.Transport, c.IB = TransportInfiniBand, &IBParams{}
		r := mustRun(t, c)
		if r.Totals.Drops != 0 || r.Totals.PauseFrames != 0 {
			t.Errorf("%s: drops %d, pauses %d", name, r.Totals.Drops, r.Totals.PauseFrames)
		}
		if name == "ring" && (len(r.Rings) != 1 || r.Rings[0].TimeNs == nil) {
			t.Errorf("ring did not complete: %+v", r.Rings)
		}
		if name == "all-to-all" && (len(r.AllToAll) != 1 || r.AllToAll[0].TimeNs == nil) {
			t.Errorf("all-to-all did not complete: %+v", r.AllToAll)
		}
	}
	c := ibConfig(star(2, 100), 400_000)
	c.PingPongs = []PingPong{{ID: "lat", Client: "h0", Server: "h1", MessageBytes: 64, Iterations: 100}}
	r := mustRun(t, c)
	if len(r.PingPongs) != 1 || len(r.PingPongs[0].PostedNs) < 100 {
		t.Fatalf("ping-pong: %+v", r.PingPongs)
	}
	// One way: the HCA's 1 µs, two 100 ns cables, 90 bytes serialized
	// twice at 100 Gb/s: 1214 ns.
	p := r.PingPongs[0].PostedNs
	if rtt := p[len(p)-1] - p[len(p)-2]; rtt < 2*1214 || rtt > 2*1214+20 {
		t.Errorf("round trip %d ns, want about 2 x 1214", rtt)
	}
}

func TestWireOverheadFor(t *testing.T) {
	if WireOverheadFor(TransportInfiniBand) != 26 || WireOverheadFor(TransportRoCE) != 82 || WireOverheadFor("") != 82 {
		t.Error("wire overheads: want 26 on InfiniBand, 82 on RoCE")
	}
}
