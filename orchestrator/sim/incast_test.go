package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// incastConfig is n senders into one receiver on a single switch at 100G,
// long-lived flows, goodput measured over the second half.
func incastConfig(n int, pfc, ecn, dcqcn bool, durNs int64) Config {
	const rate = 100.0
	cfg := Config{
		Topology:     star(n+1, rate),
		DefaultQoS:   losslessQoS(pfc, ecn, 100_000, 400_000),
		DurationNs:   durNs,
		WarmupNs:     durNs / 2,
		Seed:         1,
		DCQCN:        PaperDCQCN(rate),
		DCQCNEnabled: dcqcn,
	}
	for i := 1; i <= n; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("f%d", i), Src: fmt.Sprintf("h%d", i), Dst: "h0", Role: "incast"})
	}
	return cfg
}

const incastN = 8

func lineGoodput(rate float64, mtu int) float64 {
	return rate * float64(mtu) / float64(mtu+WireOverheadBytes)
}

// targetIncastPFCOnly: 8:1 incast, PFC on, no ECN.
func targetIncastPFCOnly(t *testing.T, page *targetPage) {
	r := mustRun(t, incastConfig(incastN, true, false, false, 4_000_000))
	line := lineGoodput(100, DefaultMTU)
	if r.Totals.Drops != 0 {
		t.Errorf("drops = %d, want 0 with PFC", r.Totals.Drops)
	}
	if r.Totals.PauseFrames == 0 || r.Totals.PausedNs == 0 {
		t.Errorf("pause frames = %d, paused %d ns: want > 0", r.Totals.PauseFrames, r.Totals.PausedNs)
	}
	if !within(r.Totals.GoodputGbps, line, 0.01*line) {
		t.Errorf("receiver goodput = %.3f Gb/s, want line goodput %.3f ±1%%", r.Totals.GoodputGbps, line)
	}
	for _, f := range r.Flows {
		if want := line / incastN; !within(f.GoodputGbps, want, 0.1*want) {
			t.Errorf("flow %s goodput = %.3f Gb/s, want C/N = %.3f ±10%%", f.ID, f.GoodputGbps, want)
		}
	}
	if r.Totals.Retransmits != 0 {
		t.Errorf("retransmits = %d on a lossless fabric", r.Totals.Retransmits)
	}
	lo, hi := flowRange(r)
	page.row("8:1 incast, PFC on, no ECN, 4 ms (second half measured)",
		fmt.Sprintf("zero drops; receiver at line goodput %.2f Gb/s ±1%%; each sender C/N = %.2f ±10%%; pauses > 0", line, line/incastN),
		fmt.Sprintf("%d drops; receiver %.2f Gb/s; senders %.2f–%.2f Gb/s; %d pause frames", r.Totals.Drops, r.Totals.GoodputGbps, lo, hi, r.Totals.PauseFrames))
}

// flowRange is the lowest and highest flow goodput of a run.
func flowRange(r *Result) (lo, hi float64) {
	lo = math.Inf(1)
	for _, f := range r.Flows {
		lo, hi = min(lo, f.GoodputGbps), max(hi, f.GoodputGbps)
	}
	return lo, hi
}

// targetIncastLossy: 8:1 incast, neither PFC nor ECN.
func targetIncastLossy(t *testing.T, page *targetPage) {
	r := mustRun(t, incastConfig(incastN, false, false, false, 4_000_000))
	line := lineGoodput(100, DefaultMTU)
	if r.Totals.Drops == 0 {
		t.Error("drops = 0, want > 0 without PFC")
	}
	if r.Totals.Retransmits == 0 {
		t.Error("retransmits = 0, want > 0 after drops")
	}
	if r.Totals.GoodputGbps >= 0.99*line {
		t.Errorf("goodput = %.3f Gb/s, want clearly below line goodput %.3f", r.Totals.GoodputGbps, line)
	}
	if r.Totals.PauseFrames != 0 {
		t.Errorf("pause frames = %d with PFC off", r.Totals.PauseFrames)
	}
	page.row("8:1 incast, PFC off, no ECN, 4 ms",
		fmt.Sprintf("drops > 0, retransmits > 0, goodput below line (%.2f Gb/s)", line),
		fmt.Sprintf("%d drops, %d retransmits, %.2f Gb/s", r.Totals.Drops, r.Totals.Retransmits, r.Totals.GoodputGbps))
}

// targetIncastDCQCN: 8:1 incast, DCQCN and PFC, for both presets.
func targetIncastDCQCN(t *testing.T, page *targetPage) {
	pfcOnly := mustRun(t, incastConfig(incastN, true, false, false, 6_000_000))
	for _, preset := range []string{"paper", "connectx"} {
		t.Run(preset, func(t *testing.T) { incastDCQCN(t, page, preset, pfcOnly) })
	}
}

func incastDCQCN(t *testing.T, page *targetPage, preset string, pfcOnly *Result) {
	cfg := incastConfig(incastN, true, true, true, 6_000_000)
	if preset == "connectx" {
		cfg.DCQCN = ConnectXDCQCN()
	}
	r := mustRun(t, cfg)
	if r.Totals.ECNMarked == 0 || r.Totals.CNPs == 0 {
		t.Errorf("marks = %d, CNPs = %d: want both > 0", r.Totals.ECNMarked, r.Totals.CNPs)
	}
	if r.Totals.JainFairness < 0.9 {
		t.Errorf("Jain fairness after convergence = %.3f, want >= 0.9", r.Totals.JainFairness)
	}
	if r.Totals.PauseFrames*10 > pfcOnly.Totals.PauseFrames {
		t.Errorf("pauses with DCQCN = %d, want far below PFC-only %d", r.Totals.PauseFrames, pfcOnly.Totals.PauseFrames)
	}
	if r.Totals.Drops != 0 {
		t.Errorf("drops = %d with PFC on", r.Totals.Drops)
	}
	for _, f := range r.Flows {
		if f.CNPs == 0 {
			t.Errorf("flow %s: no CNP", f.ID)
		}
	}
	page.row(fmt.Sprintf("8:1 incast, DCQCN (dcqcn: %s) + PFC, Kmin 100 KB, Kmax 400 KB, 6 ms (second half measured)", preset),
		fmt.Sprintf("marks and CNPs > 0; Jain fairness ≥ 0.9; pauses far below the PFC-only run's %d", pfcOnly.Totals.PauseFrames),
		fmt.Sprintf("%d marks, %d CNPs; Jain %.3f; %d pauses; %.2f Gb/s", r.Totals.ECNMarked, r.Totals.CNPs, r.Totals.JainFairness, r.Totals.PauseFrames, r.Totals.GoodputGbps))
}

// TestIncastTwoTierPFC is 15:1 incast across two leaves and two spines:
// pauses must cascade from the receiver's leaf to the spines and the
// remote leaf without a drop anywhere, and the receiver stays at line rate.
func TestIncastTwoTierPFC(t *testing.T) {
	cfg := Config{
		Topology:   leafSpine(2, 2, 8, 200, 200),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		DurationNs: 3_000_000,
		WarmupNs:   1_500_000,
		Seed:       1,
	}
	// Small switch buffers make the pauses reach the spines quickly.
	for i := range cfg.Topology.Nodes {
		if cfg.Topology.Nodes[i].Kind == Switch {
			cfg.Topology.Nodes[i].BufferBytes = 2 << 20
		}
	}
	for l := 0; l < 2; l++ {
		for i := 0; i < 8; i++ {
			if l == 0 && i == 0 {
				continue
			}
			cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("f%d-%d", l, i), Src: fmt.Sprintf("h%d-%d", l, i), Dst: "h0-0"})
		}
	}
	r := mustRun(t, cfg)
	if r.Totals.Drops != 0 {
		t.Errorf("drops = %d, want 0", r.Totals.Drops)
	}
	line := lineGoodput(200, DefaultMTU)
	if !within(r.Totals.GoodputGbps, line, 0.01*line) {
		t.Errorf("receiver goodput %.2f, want %.2f ±1%%", r.Totals.GoodputGbps, line)
	}
	spinePaused := false
	for _, p := range r.Ports {
		if strings.HasPrefix(p.Node, "spine") && p.PauseRx > 0 {
			spinePaused = true
		}
	}
	if !spinePaused {
		t.Error("no spine port was paused: PFC did not cascade")
	}
	t.Logf("goodput %.2f, min flow %.2f, jain %.3f, pauses %d", r.Totals.GoodputGbps, r.Totals.MinFlowGbps, r.Totals.JainFairness, r.Totals.PauseFrames)
}

// TestPFCThresholds checks the static XOFF threshold bounds the queue and
// that headroom too small for the in-flight bytes loses packets.
func TestPFCThresholds(t *testing.T) {
	const xoff = 50_000
	cfg := incastConfig(incastN, true, false, false, 1_000_000)
	cfg.DefaultQoS = map[int]PortQoS{3: {PFC: true, Ingress: Admission{StaticBytes: xoff}}}
	r := mustRun(t, cfg)
	var maxQ int64
	for _, p := range r.Ports {
		if p.Node == "sw" && p.Port == "Ethernet0" && p.Priority == 3 {
			maxQ = p.MaxQueueBytes
		}
	}
	s, _ := newSim(&cfg)
	in, _ := s.portIndex(PortRef{"sw", "Ethernet1"})
	hr := s.ports[in].pg[3].headroom // all switch ports alike
	if bound := int64(incastN) * (xoff + hr); maxQ == 0 || maxQ > bound {
		t.Errorf("receiver queue peaked at %d B, want within N*(XOFF+headroom) = %d", maxQ, bound)
	}
	if r.Totals.Drops != 0 || r.Totals.PauseFrames == 0 {
		t.Errorf("drops=%d pauses=%d, want 0 and > 0", r.Totals.Drops, r.Totals.PauseFrames)
	}

	// On 400 m cables (2 µs) a pause leaves about 2 x 2 µs x 100G = 50 KB in
	// flight: the default headroom (from rate and delay) holds it, one
	// packet of headroom does not.
	for i := range cfg.Topology.Links {
		cfg.Topology.Links[i].PropDelayNs = 2000
	}
	if r := mustRun(t, cfg); r.Totals.Drops != 0 {
		t.Errorf("default headroom on long cables: %d drops, want 0", r.Totals.Drops)
	}
	cfg.DefaultQoS = map[int]PortQoS{3: {PFC: true, Ingress: Admission{StaticBytes: xoff}, HeadroomBytes: 4178}}
	if r := mustRun(t, cfg); r.Totals.Drops == 0 {
		t.Error("one packet of headroom absorbed a pause's in-flight bytes on 400 m cables: want drops")
	}
}

// TestPauseFramesStayInOrder is a case FuzzRun found: an XON queued behind
// a data frame was overtaken by the next XOFF, leaving the upstream spine
// unpaused while its headroom overflowed.
func TestPauseFramesStayInOrder(t *testing.T) {
	const r = 220.0
	cfg := Config{
		Topology:     leafSpine(2, 2, 2, r, r),
		DefaultQoS:   losslessQoS(true, false, 0, 0),
		DurationNs:   61_000,
		MTU:          4334,
		Seed:         110,
		DCQCN:        PaperDCQCN(r),
		DCQCNEnabled: true,
		NICDelayNs:   -1,
	}
	for i := range cfg.Topology.Nodes {
		cfg.Topology.Nodes[i].BufferBytes = 1 << 20
	}
	cfg.Flows = IncastFlows("in", []string{"h0-1", "h1-0", "h1-1"}, "h0-0", 0)
	res := mustRun(t, cfg)
	if res.Totals.Drops != 0 || res.Totals.PauseFrames == 0 {
		t.Errorf("drops=%d pauses=%d, want 0 and > 0", res.Totals.Drops, res.Totals.PauseFrames)
	}
}

// TestScheduling puts two backlogged priorities on one egress: DWRR shares
// it by weight, a strict queue takes it all.
func TestScheduling(t *testing.T) {
	line := lineGoodput(100, DefaultMTU)
	for _, tc := range []struct {
		name   string
		qos4   PortQoS
		want3  float64 // share of the flow at priority 3
		wantP4 float64
	}{
		{"dwrr 1:3", PortQoS{PFC: true, Weight: 3}, 0.25, 0.75},
		{"dwrr 1:1", PortQoS{PFC: true, Weight: 1}, 0.5, 0.5},
		{"strict", PortQoS{PFC: true, Strict: true}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRun(t, Config{
				Topology:       star(3, 100),
				DefaultQoS:     map[int]PortQoS{3: {PFC: true, Weight: 1}, 4: tc.qos4},
				DSCPToPriority: map[string]map[int]int{"": {26: 3, 34: 4, 48: 6}},
				Flows: []Flow{
					{ID: "p3", Src: "h1", Dst: "h0", DSCP: 26},
					{ID: "p4", Src: "h2", Dst: "h0", DSCP: 34},
				},
				DurationNs: 2_000_000,
				WarmupNs:   1_000_000,
			})
			for i, want := range []float64{tc.want3, tc.wantP4} {
				if got := r.Flows[i].GoodputGbps / line; !within(got, want, 0.03) {
					t.Errorf("flow %s: %.3f of line, want %.2f", r.Flows[i].ID, got, want)
				}
			}
			if r.Totals.Drops != 0 {
				t.Errorf("drops = %d", r.Totals.Drops)
			}
		})
	}
}
