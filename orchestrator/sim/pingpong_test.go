package sim

import (
	"slices"
	"testing"

	"github.com/labctl/labctl/orchestrator/routing"
)

// TestPingPongRoundTrip: an ib_write_lat ping-pong of 2-byte writes on a
// star with 1 µs links, without NIC delay, jitter or clock skew, so the
// round trip is found by hand. The server writes first at 0: its 84-byte
// frame takes 6.72 ns at 100G on each of its two links and 1000 ns on each
// wire, arriving at 2013.44 ns, when the client posts its first write.
// From then on every side, on a write's arrival, sends its ACK (86 bytes,
// 6.88 ns) and then its own write, which at the switch waits for that ACK
// to leave: 6.88 + 6.72 + 1000 + 6.88 (the ACK ahead of it) + 6.72 + 1000
// = 2027.2 ns minus the 6.72 ns the ACK and the write overlap on the wire
// = 2020.48 ns each way, a round trip of 4040.96 ns.
func TestPingPongRoundTrip(t *testing.T) {
	topo := star(2, 100)
	for i := range topo.Links {
		topo.Links[i].PropDelayNs = 1000
	}
	const iters = 200
	cfg := Config{
		Topology:   topo,
		DefaultQoS: losslessQoS(true, false, 0, 0),
		PingPongs:  []PingPong{{ID: "lat", Client: "h0", Server: "h1", MessageBytes: 2, Iterations: iters, Role: "latency"}},
		DurationNs: 1_000_000, Seed: 1,
		NICDelayNs: -1, ClockSkewPPM: -1, SwitchJitterNs: -1,
	}
	r := mustRun(t, cfg)
	if len(r.PingPongs) != 1 {
		t.Fatalf("%d ping-pongs reported", len(r.PingPongs))
	}
	pp := r.PingPongs[0]
	if len(pp.PostedNs) != iters || pp.Client != "h0:eth0" || pp.Server != "h1:eth0" {
		t.Fatalf("client %s server %s posted %d of %d writes", pp.Client, pp.Server, len(pp.PostedNs), iters)
	}
	if pp.PostedNs[0] != 2013 {
		t.Errorf("first post at %d ns, want the server's write's arrival at 2013.44 ns", pp.PostedNs[0])
	}
	for i := 1; i < iters; i++ {
		// Post times are whole ns: a gap of 4040.96 ns reads 4040 or 4041.
		if g := pp.PostedNs[i] - pp.PostedNs[i-1]; g < 4040 || g > 4041 {
			t.Fatalf("round trip %d is %d ns, want 4040.96", i, g)
		}
	}
	for _, f := range r.Flows {
		if !f.Completed || f.BytesDelivered != 2*iters {
			t.Errorf("QP %s: completed %v, %d bytes", f.ID, f.Completed, f.BytesDelivered)
		}
	}
	if len(r.Flows) != 2 || r.Flows[0].ID != "lat/ping" || r.Flows[1].ID != "lat/pong" || r.Flows[0].Src != "h0:eth0" {
		t.Errorf("flows %+v: want lat/ping from h0 and lat/pong", r.Flows)
	}
}

// TestPingPongWaitsForCompletion: a write is posted only once the
// writer's previous one has completed, not just once the other side's
// write has arrived. The ACKs of the client's QP are hashed onto one
// spine and everything else onto the other; spine1's links are 20 µs
// long, so a path through it takes 40 µs one way. With the client's ACKs
// through spine1 and the writes through spine0, the server's answer is
// back 0.8 µs after the client's write but the write completes only 40 µs
// later, and the client waits for that: its round trips are over 40 µs.
// The other way round, the writes take 40 µs each way: 80 µs.
func TestPingPongWaitsForCompletion(t *testing.T) {
	topo := leafSpine(2, 2, 1, 100, 100)
	for i := range topo.Nodes {
		topo.Nodes[i].ECMPSeed = 7
	}
	for i := range topo.Links {
		if topo.Links[i].B.Node == "spine1" {
			topo.Links[i].PropDelayNs = 20_000
		}
	}
	// Two hashes that the leaves (seed 7) send to different uplinks.
	var pick [2]uint64
	for h, found := uint64(0), 0; found < 3; h++ {
		if i := routing.ECMPIndex(2, h, 7); found&(1<<i) == 0 {
			pick[i], found = h, found|1<<i
		}
	}
	for _, ackHash := range pick {
		cfg := Config{
			Topology:   topo,
			DefaultQoS: losslessQoS(true, false, 0, 0),
			PingPongs:  []PingPong{{ID: "lat", Client: "h0-0", Server: "h1-0", MessageBytes: 2, Iterations: 20, SrcPort: 50000}},
			DurationNs: 10_000_000, Seed: 1,
			KeyHash: func(k FlowKey) uint64 {
				if k.SrcPort == RoCEv2Port && k.DstPort == 50000 {
					return ackHash // the client QP's ACKs
				}
				return pick[0] ^ pick[1] ^ ackHash // the other spine
			},
			NICDelayNs: -1, ClockSkewPPM: -1, SwitchJitterNs: -1,
		}
		r := mustRun(t, cfg)
		pp := r.PingPongs[0]
		if len(pp.PostedNs) != 20 {
			t.Fatalf("posted %d of 20", len(pp.PostedNs))
		}
		lo, hi := int64(1<<62), int64(0)
		for i := 1; i < 20; i++ {
			g := pp.PostedNs[i] - pp.PostedNs[i-1]
			lo, hi = min(lo, g), max(hi, g)
		}
		slowWrites := slices.Contains(r.Flows[0].Path, "spine1")
		t.Logf("writes through spine1 %v: round trips %d..%d ns", slowWrites, lo, hi)
		switch {
		case slowWrites && (lo < 80_000 || hi > 82_000):
			t.Errorf("writes through the slow spine: round trips %d..%d ns, want 80 µs and a little", lo, hi)
		case !slowWrites && (lo < 40_000 || hi > 42_000):
			t.Errorf("ACKs through the slow spine: round trips %d..%d ns, want the 40 µs the client's writes take to complete (0.8 µs if it did not wait)", lo, hi)
		}
	}
}

func TestPingPongRefused(t *testing.T) {
	ok := PingPong{ID: "lat", Client: "h0", Server: "h1", MessageBytes: 2, Iterations: 5}
	for name, mod := range map[string]func(p *PingPong){
		"no id":          func(p *PingPong) { p.ID = "" },
		"no iterations":  func(p *PingPong) { p.Iterations = 0 },
		"empty message":  func(p *PingPong) { p.MessageBytes = 0 },
		"huge message":   func(p *PingPong) { p.MessageBytes = 1<<30 + 1 },
		"same NIC":       func(p *PingPong) { p.Server = "h0" },
		"unknown server": func(p *PingPong) { p.Server = "h9" },
		"port":           func(p *PingPong) { p.SrcPort = 65535 },
	} {
		p := ok
		mod(&p)
		if _, err := newSim(&Config{Topology: star(2, 100), PingPongs: []PingPong{p}, DurationNs: 1000}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := newSim(&Config{Topology: star(2, 100), PingPongs: []PingPong{ok}, DurationNs: 1000}); err != nil {
		t.Errorf("a valid ping-pong refused: %v", err)
	}
}
