package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// ibConfig is an InfiniBand run without clock skew or switch pipeline
// jitter, so closed forms hold to the picosecond.
func ibConfig(t Topology, durNs int64) Config {
	return Config{Topology: t, DurationNs: durNs, Transport: TransportInfiniBand, ClockSkewPPM: -1, SwitchJitterNs: -1, Seed: 1}
}

func ibStats(r *Result, node, port string) IBPortStats {
	for _, p := range r.InfiniBand {
		if p.Node == node && p.Port == port {
			return p
		}
	}
	return IBPortStats{}
}

// One flow on an idle link: goodput MTU/(MTU+26) of line rate, IB's
// headers being 26 bytes where RoCE's Ethernet framing is 82.
func TestIBOneFlowLineRate(t *testing.T) {
	cfg := ibConfig(star(2, 100), 300_000)
	cfg.WarmupNs = 50_000
	cfg.Flows = []Flow{{ID: "f", Src: "h0", Dst: "h1"}}
	r := mustRun(t, cfg)
	want := 100 * 4096.0 / (4096 + IBWireOverheadBytes)
	if got := r.Flows[0].GoodputGbps; math.Abs(got-want) > 0.005*want {
		t.Errorf("goodput %.3f Gb/s, want %.3f (±0.5%%)", got, want)
	}
	if w := ibStats(r, "h0", "eth0").PortXmitWait; w != 0 {
		t.Errorf("PortXmitWait %d on an uncongested link with the derived buffer: want 0", w)
	}
}

// Credit-limited throughput: a VL buffer of n packets on a long link
// carries n packets per credit round trip, the packet's serialization,
// the propagation there, the flow-control packet's serialization and the
// propagation back (the HCA frees its buffer on receipt):
// throughput = min(C, n x P / RTT).
func TestIBCreditLimitedThroughput(t *testing.T) {
	for _, tc := range []struct {
		pkts   int
		propNs int64
	}{{4, 2000}, {2, 1000}, {8, 500}, {40, 2000}} {
		t.Run(fmt.Sprintf("%d packets %d ns", tc.pkts, tc.propNs), func(t *testing.T) {
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
			want := 100 * frac * 4096 / float64(pkt)
			got := r.Flows[0].GoodputGbps
			t.Logf("goodput %.3f Gb/s, closed form %.3f (n=%d, RTT %.1f ns)", got, want, tc.pkts, rtt)
			if math.Abs(got-want) > 0.01*want {
				t.Errorf("goodput %.3f Gb/s, want min(C, nP/RTT) = %.3f (±1%%)", got, want)
			}
			if frac < 1 && ibStats(r, "sw", "Ethernet1").PortXmitWait == 0 {
				t.Error("a credit-limited port counts no PortXmitWait")
			}
			if r.Totals.Drops != 0 || r.Totals.PauseFrames != 0 {
				t.Errorf("drops %d, pause frames %d: want none", r.Totals.Drops, r.Totals.PauseFrames)
			}
		})
	}
}

// An 8:1 incast: no drop, no pause, the receiver at line rate, each
// sender an eighth, and the senders stall on credits (PortXmitWait).
func TestIBIncastLossless(t *testing.T) {
	cfg := ibConfig(star(9, 100), 1_000_000)
	cfg.WarmupNs = 100_000
	for i := 1; i <= 8; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("s%d", i), Src: fmt.Sprintf("h%d", i), Dst: "h0"})
	}
	r := mustRun(t, cfg)
	line := 100 * 4096.0 / (4096 + IBWireOverheadBytes)
	if r.Totals.Drops != 0 || r.Totals.PauseFrames != 0 || r.Totals.Retransmits != 0 {
		t.Fatalf("drops %d, pauses %d, retransmits %d: an IB fabric has none", r.Totals.Drops, r.Totals.PauseFrames, r.Totals.Retransmits)
	}
	if got := r.Totals.GoodputGbps; math.Abs(got-line) > 0.01*line {
		t.Errorf("receiver %.3f Gb/s, want line rate %.3f (±1%%)", got, line)
	}
	for _, f := range r.Flows {
		if math.Abs(f.GoodputGbps-line/8) > 0.1*line/8 {
			t.Errorf("%s: %.3f Gb/s, want C/8 = %.3f (±10%%)", f.ID, f.GoodputGbps, line/8)
		}
		if w := ibStats(r, "h"+f.ID[1:], "eth0").PortXmitWait; w == 0 {
			t.Errorf("%s: no PortXmitWait at a sender held back by credits", f.ID)
		}
	}
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
// threshold 8, marking rate 10, CCTI timer 20 x 1.024 µs, the default
// CCT.
func ibDefaultCC() IBCC {
	return IBCC{Enabled: true, Threshold: 8, MarkingRate: 10, CCTITimerNs: 20 * 1024}
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
func TestIBCongestionTreeVictim(t *testing.T) {
	line := 100 * 4096.0 / (4096 + IBWireOverheadBytes)
	off := mustRun(t, victimTree(false))
	on := mustRun(t, victimTree(true))
	vOff, vOn := flowGbps(off, "victim"), flowGbps(on, "victim")
	hotOff := flowGbps(off, "hot0") + flowGbps(off, "hot1") + flowGbps(off, "hot2")
	hotOn := flowGbps(on, "hot0") + flowGbps(on, "hot1") + flowGbps(on, "hot2")
	t.Logf("victim: CC off %.2f Gb/s, CC on %.2f Gb/s; hotspot %.2f / %.2f Gb/s", vOff, vOn, hotOff, hotOn)
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
}

// ftree on a fabric like 64gpu's (two leaves, one spine, as many
// parallel links leaf-spine as hosts per leaf): every up-port of a leaf
// and every down-port of the spine carries the same number of
// destination LIDs; on a two-spine fabric too.
func TestIBFtreeBalance(t *testing.T) {
	for _, tc := range []struct {
		name  string
		topo  Topology
		perUp int
	}{
		{"2 leaves, 1 spine, 8 parallel links", parallelLeafSpine(2, 8), 1},
		{"4 leaves, 2 spines", leafSpine(4, 2, 8, 100, 400), 12},
	} {
		for _, routing := range []string{"ftree", "minhop"} {
			t.Run(tc.name+" "+routing, func(t *testing.T) {
				cfg := ibConfig(tc.topo, 1000)
				cfg.IB.Routing = routing
				s, err := newSim(&cfg)
				if err != nil {
					t.Fatal(err)
				}
				// Destination LIDs per switch-to-switch port.
				lids := map[int32]int{}
				for _, row := range s.ib.lft {
					for _, out := range row {
						if out >= 0 && !s.ports[s.ports[out].peer].host {
							lids[out]++
						}
					}
				}
				for pi := range s.ports {
					p := &s.ports[pi]
					if p.host || s.ports[p.peer].host || !strings.HasPrefix(s.nodes[p.node].name, "leaf") {
						continue
					}
					if lids[int32(pi)] != tc.perUp {
						t.Errorf("%s: %d destination LIDs, want %d", p.ref, lids[int32(pi)], tc.perUp)
					}
				}
				// Spine down-ports: equal counts across each spine's ports.
				per := map[string][]int{}
				for pi := range s.ports {
					p := &s.ports[pi]
					if !p.host && !s.ports[p.peer].host && strings.HasPrefix(s.nodes[p.node].name, "spine") {
						per[s.nodes[p.node].name] = append(per[s.nodes[p.node].name], lids[int32(pi)])
					}
				}
				for sp, counts := range per {
					for _, c := range counts {
						if c != counts[0] || c == 0 {
							t.Errorf("%s down-ports carry %v destination LIDs: want equal, non-zero", sp, counts)
							break
						}
					}
				}
			})
		}
	}
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

// A permutation between two leaves under ftree: every destination has
// an up-link of its own, so flows never share one and all run at line
// rate (flow-hashed ECMP would collide).
func TestIBFtreePermutationAtLineRate(t *testing.T) {
	cfg := ibConfig(parallelLeafSpine(2, 8), 300_000)
	cfg.WarmupNs = 50_000
	for i := range 8 {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("p%d", i), Src: fmt.Sprintf("h0-%d", i), Dst: fmt.Sprintf("h1-%d", (i+3)%8)})
	}
	r := mustRun(t, cfg)
	line := 200 * 4096.0 / (4096 + IBWireOverheadBytes)
	ups := map[string]bool{}
	for _, f := range r.Flows {
		if f.GoodputGbps < 0.99*line {
			t.Errorf("%s: %.2f Gb/s, want line rate %.2f", f.ID, f.GoodputGbps, line)
		}
		ups[f.Route[0]] = true
	}
	if len(ups) != 8 {
		t.Errorf("the 8 flows leave leaf0 by %d up-ports, want 8", len(ups))
	}
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
