package sim

import (
	"fmt"
	"testing"
)

// shapedStar is two long-lived flows into h1 through one 100G switch: h0's
// on priority 3 (DSCP 26), h2's on priority 0 (DSCP 0), both lossless, the
// switch's port to h1 shaping queue 3 to shapeKbps with the given burst.
func shapedStar(shapeKbps, burst int64) Config {
	lossless := map[int]PortQoS{0: {PFC: true}, 3: {PFC: true}, 6: {Strict: true}}
	shaped := map[int]PortQoS{0: {PFC: true}, 3: {PFC: true, Shape: Shaper{Kbps: shapeKbps, BurstBytes: burst}}, 6: {Strict: true}}
	return Config{
		Topology:   star(3, 100),
		DefaultQoS: lossless,
		QoS:        map[PortRef]map[int]PortQoS{{"sw", "Ethernet1"}: shaped},
		DurationNs: 300_000,
		WarmupNs:   100_000,
		Seed:       1,
		Flows: []Flow{
			{ID: "shaped", Src: "h0", Dst: "h1", DSCP: 26},
			{ID: "other", Src: "h2", Dst: "h1", DSCP: 0, ExplicitDSCP: true},
		},
	}
}

// TestQueueShaper: a queue shaped to 40 Gb/s of a 100G port sends 40 Gb/s
// of frames (its goodput that less the headers), and deficit round robin
// gives the port's other queue the rest instead of idling while the shaped
// one waits; PFC holds the shaped flow's backlog, so nothing drops.
func TestQueueShaper(t *testing.T) {
	r := mustRun(t, shapedStar(40_000_000, 0))
	payload := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	if got, want := r.Flows[0].GoodputGbps, 40*payload; !within(got, want, 0.01*want) {
		t.Errorf("shaped queue's flow: %.2f Gb/s, want %.2f (40 Gb/s of frames)", got, want)
	}
	if got, want := r.Flows[1].GoodputGbps, 60*payload; !within(got, want, 0.02*want) {
		t.Errorf("the other queue's flow: %.2f Gb/s, want %.2f (the rest of the port)", got, want)
	}
	if r.Totals.Drops != 0 {
		t.Errorf("%d drops: the shaped flow is lossless", r.Totals.Drops)
	}
	// Unshaped, the two share the port by their equal weights.
	r = mustRun(t, shapedStar(0, 0))
	if got, want := r.Flows[0].GoodputGbps, 50*payload; !within(got, want, 0.02*want) {
		t.Errorf("unshaped: %.2f Gb/s, want %.2f", got, want)
	}
}

// TestQueueShaperBurst: the burst lets a shaped queue send that many bytes
// ahead of its rate, at the port's line rate, and no more: a sized flow of
// 1 MiB behind a 1 MiB burst finishes near line rate, one behind none at
// the shaped rate.
func TestQueueShaperBurst(t *testing.T) {
	fct := func(burst int64) float64 {
		cfg := shapedStar(10_000_000, burst)
		cfg.Flows = cfg.Flows[:1]
		cfg.Flows[0].Bytes = 1 << 20
		cfg.DurationNs = 2_000_000
		r := mustRun(t, cfg)
		if r.Flows[0].FCTNs == nil {
			t.Fatalf("burst %d: the flow did not complete", burst)
		}
		return float64(*r.Flows[0].FCTNs)
	}
	paced, burst := fct(0), fct(2<<20)
	// 1 MiB of frames at 10 Gb/s is some 860 us; at 100 Gb/s 86 us.
	if paced < 800_000 || paced > 950_000 {
		t.Errorf("no burst: FCT %.0f ns, want some 860,000 (10 Gb/s)", paced)
	}
	if burst > 120_000 {
		t.Errorf("2 MiB burst: FCT %.0f ns, want near line rate (under 120,000)", burst)
	}
}

// TestShaperRefused: a negative rate or burst, of a queue's or a port's
// shaper, and a port shaper on a host or a port no link has, are refused
// at set-up.
func TestShaperRefused(t *testing.T) {
	port := func(ref PortRef, sh Shaper) Config {
		cfg := shapedStar(0, 0)
		cfg.PortShapers = map[PortRef]Shaper{ref: sh}
		return cfg
	}
	for _, cfg := range []Config{
		shapedStar(-1, 0), shapedStar(1000, -1),
		port(PortRef{"sw", "Ethernet1"}, Shaper{Kbps: -1}),
		port(PortRef{"sw", "Ethernet1"}, Shaper{Kbps: 1000, BurstBytes: -1}),
		port(PortRef{"h1", "eth0"}, Shaper{Kbps: 1000}),
		port(PortRef{"sw", "Ethernet9"}, Shaper{Kbps: 1000}),
	} {
		if _, err := Run(t.Context(), cfg); err == nil {
			t.Errorf("taken: queue shapers %+v, port shapers %+v", cfg.QoS, cfg.PortShapers)
		}
	}
}

// TestPortShaper: a port shaped to 40 Gb/s sends 40 Gb/s of frames, all
// its queues together, shared between them by their weights; with a queue
// of it shaped to 10 Gb/s as well, that queue gets 10 and the other the
// rest of the port's 40.
func TestPortShaper(t *testing.T) {
	payload := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	cfg := shapedStar(0, 0)
	cfg.PortShapers = map[PortRef]Shaper{{"sw", "Ethernet1"}: {Kbps: 40_000_000}}
	r := mustRun(t, cfg)
	for i, want := range []float64{20, 20} {
		if got := r.Flows[i].GoodputGbps; !within(got, want*payload, 0.02*want*payload) {
			t.Errorf("port shaped to 40: flow %s %.2f Gb/s, want %.2f", r.Flows[i].ID, got, want*payload)
		}
	}
	cfg = shapedStar(10_000_000, 0)
	cfg.PortShapers = map[PortRef]Shaper{{"sw", "Ethernet1"}: {Kbps: 40_000_000}}
	r = mustRun(t, cfg)
	for i, want := range []float64{10, 30} {
		if got := r.Flows[i].GoodputGbps; !within(got, want*payload, 0.02*want*payload) {
			t.Errorf("port shaped to 40, queue 3 to 10: flow %s %.2f Gb/s, want %.2f", r.Flows[i].ID, got, want*payload)
		}
	}
	if r.Totals.Drops != 0 {
		t.Errorf("%d drops", r.Totals.Drops)
	}
	rates, err := FlowLevelRates(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if eta := WireEfficiency(DefaultMTU); !within(rates[0], 10*eta, 0.001) || !within(rates[1], 30*eta, 0.001) {
		t.Errorf("flow-level rates %.3f and %.3f Gb/s, want %.3f and %.3f", rates[0], rates[1], 10*eta, 30*eta)
	}
}

// TestQueueShaperFlowLevel: the flow-level model caps a flow that leaves a
// port by a shaped queue at the queue's rate, and gives the rest of the
// link to the others.
func TestQueueShaperFlowLevel(t *testing.T) {
	rates, err := FlowLevelRates(shapedStar(40_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	eta := WireEfficiency(DefaultMTU)
	if !within(rates[0], 40*eta, 0.001) || !within(rates[1], 60*eta, 0.001) {
		t.Errorf("flow-level rates %.3f and %.3f Gb/s, want %.3f (shaped to 40) and %.3f", rates[0], rates[1], 40*eta, 60*eta)
	}
}

// targetShapers: a queue shaped to 40 Gb/s of a 100G port, and the port
// shaped to 40 Gb/s as a whole, beside an unshaped queue, on the page of
// validation targets: the rates follow from the shaper and the frame's
// payload share, not from another simulator.
func targetShapers(t *testing.T, page *targetPage) {
	payload := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	r := mustRun(t, shapedStar(40_000_000, 0))
	q, other := r.Flows[0].GoodputGbps, r.Flows[1].GoodputGbps
	if !within(q, 40*payload, 0.01*40*payload) || !within(other, 60*payload, 0.02*60*payload) || r.Totals.Drops != 0 {
		t.Errorf("queue shaped to 40 of 100 Gb/s: %.2f and %.2f Gb/s, %d drops", q, other, r.Totals.Drops)
	}
	page.row("queue shaper: two lossless flows into one 100G port, one's queue shaped to 40 Gb/s",
		fmt.Sprintf("the shaped queue 40 Gb/s of frames (%.2f Gb/s goodput) ±1%%, the other queue the rest (%.2f) ±2%%, no drop", 40*payload, 60*payload),
		fmt.Sprintf("%.2f and %.2f Gb/s, %d drops", q, other, r.Totals.Drops))
	cfg := shapedStar(0, 0)
	cfg.PortShapers = map[PortRef]Shaper{{"sw", "Ethernet1"}: {Kbps: 40_000_000}}
	r = mustRun(t, cfg)
	a, b := r.Flows[0].GoodputGbps, r.Flows[1].GoodputGbps
	if !within(a+b, 40*payload, 0.01*40*payload) || !within(a, b, 0.02*a) {
		t.Errorf("port shaped to 40 Gb/s: %.2f and %.2f Gb/s", a, b)
	}
	page.row("port shaper: the same port shaped to 40 Gb/s as a whole, both queues of weight 1",
		fmt.Sprintf("%.2f Gb/s of goodput together ±1%%, shared equally ±2%%", 40*payload),
		fmt.Sprintf("%.2f Gb/s (%.2f and %.2f)", a+b, a, b))
}

// TestShaperHugeBurst: a burst of gigabytes (SONiC takes any pbs) is a
// credit longer than the run, not an overflow that holds the queue: the
// shaped queue of TestQueueShaper then shares the port as if unshaped.
func TestShaperHugeBurst(t *testing.T) {
	if got := shapePs(4_294_967_295, 40_000_000); got <= 0 || got > maxShapePs {
		t.Errorf("shapePs of 4 GB at 40 Gb/s = %d ps", got)
	}
	if got, want := shapePs(1<<60, 1), int64(maxShapePs); got != want {
		t.Errorf("shapePs of 2^60 B at 1 kb/s = %d, want the bound %d", got, want)
	}
	r := mustRun(t, shapedStar(40_000_000, 4_294_967_295))
	payload := float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	if got, want := r.Flows[0].GoodputGbps, 50*payload; !within(got, want, 0.02*want) {
		t.Errorf("a 4 GB burst: the shaped queue's flow %.2f Gb/s, want %.2f (half the port, as unshaped)", got, want)
	}
}

// TestPacketMeter: a queue metered at 1,000,000 frames a second sends
// that many full-size frames, 33.4 Gb/s on the wire whatever a byte
// meter would say, and its burst is counted in frames; a shaper of both
// bytes and frames is refused.
func TestPacketMeter(t *testing.T) {
	cfg := shapedStar(0, 0)
	cfg.QoS[PortRef{"sw", "Ethernet1"}][3] = PortQoS{PFC: true, Shape: Shaper{PacketsPerSec: 1_000_000}}
	r := mustRun(t, cfg)
	frames := float64(DefaultMTU+WireOverheadBytes) * 8 * 1e6 / 1e9 // Gb/s of frames
	want := frames * float64(DefaultMTU) / float64(DefaultMTU+WireOverheadBytes)
	if got := r.Flows[0].GoodputGbps; !within(got, want, 0.01*want) {
		t.Errorf("1 M frames/s: %.2f Gb/s, want %.2f", got, want)
	}
	if got, other := r.Flows[1].GoodputGbps, (100-frames)*float64(DefaultMTU)/float64(DefaultMTU+WireOverheadBytes); !within(got, other, 0.02*other) {
		t.Errorf("the other queue: %.2f Gb/s, want %.2f", got, other)
	}
	rates, err := FlowLevelRates(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if eta := WireEfficiency(DefaultMTU); !within(rates[0], frames*eta, 0.001) {
		t.Errorf("flow-level: %.3f Gb/s, want %.3f", rates[0], frames*eta)
	}
	cfg.QoS[PortRef{"sw", "Ethernet1"}][3] = PortQoS{PFC: true, Shape: Shaper{Kbps: 1000, PacketsPerSec: 1000}}
	if _, err := Run(t.Context(), cfg); err == nil {
		t.Error("a shaper of bytes and frames is taken")
	}
	cfg.QoS[PortRef{"sw", "Ethernet1"}][3] = PortQoS{PFC: true, Shape: Shaper{PacketsPerSec: -1}}
	if _, err := Run(t.Context(), cfg); err == nil {
		t.Error("a negative packet meter is taken")
	}
}
