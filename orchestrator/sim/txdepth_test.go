package sim

import (
	"testing"
)

// senderTxBytes is what host h sent (data packets on the wire, overhead
// included) over the run.
func senderTxBytes(r *Result, host string) int64 {
	var b int64
	for _, p := range r.Ports {
		if p.Node == host {
			b += p.TxBytes
		}
	}
	return b
}

// TestTxDepthStopsOnDeadPath takes the receiver's link down at 1 ms under
// a long flow of 64 KiB messages. No ACK comes back after that: with a
// tx depth of 128 (perftest's) the sender posts at most 128 messages
// beyond the last completed one and then waits, so what it sends after
// the failure fits in the window; without a tx depth it goes on at line
// rate until the local ACK timeout (67 ms, beyond the run).
func TestTxDepthStopsOnDeadPath(t *testing.T) {
	const msg = 64 << 10
	const down = 1_000_000
	run := func(depth int, durNs int64) int64 {
		cfg := Config{
			Topology:   star(2, 100),
			DefaultQoS: losslessQoS(true, false, 0, 0),
			Flows:      []Flow{{ID: "f", Src: "h0", Dst: "h1", MessageBytes: msg, TxDepth: depth}},
			Faults:     []LinkFault{{Link: PortRef{"h1", "eth0"}, DownNs: down}},
			DurationNs: durNs,
			Seed:       1,
		}
		return senderTxBytes(mustRun(t, cfg), "h0")
	}
	perMsgWire := int64(msg + (msg/DefaultMTU)*WireOverheadBytes)
	for _, depth := range []int{128, 16, 1} {
		// The two runs are the same up to 1 ms (same seed, nothing depends
		// on the duration), so their difference is what was sent after.
		after := run(depth, 3_000_000) - run(depth, down)
		limit := int64(depth)*perMsgWire + DefaultMTU + WireOverheadBytes
		t.Logf("tx depth %d: %d bytes sent after the failure (window %d)", depth, after, limit)
		if after > limit {
			t.Errorf("tx depth %d: %d bytes sent after the failure, more than the %d of %d messages and one packet", depth, after, limit, depth)
		}
		// It stops because the window is full, not for another reason:
		// at 100G the ACKs in flight at the failure cover under 100 KB,
		// so nearly the whole window is sent after it.
		if lo := int64(depth)*perMsgWire - 128<<10; after < lo {
			t.Errorf("tx depth %d: only %d bytes sent after the failure, want the window (at least %d)", depth, after, lo)
		}
	}
	after := run(0, 3_000_000) - run(0, down)
	lineRate := 100e9 / 8 * 2e-3 // bytes in the 2 ms after the failure
	t.Logf("no tx depth: %d bytes sent after the failure (line rate %.0f)", after, lineRate)
	if float64(after) < 0.95*lineRate {
		t.Errorf("without a tx depth the sender sent %d bytes after the failure, want line rate to the end (%.0f)", after, lineRate)
	}
}

// TestTxDepthStopAndWait: with a tx depth of 1 a sender of one-packet
// messages sends one, waits for its ACK, sends the next. Its goodput is
// one message per round trip, which on a star without NIC delay, jitter
// or clock skew is, by hand: a 1082-byte frame serialized twice at 100G
// (86.56 ns each), two 100 ns links, then the 86-byte ACK back the same
// way (6.88 ns twice, two links): 586.88 ns, so 1000 B x 8 / 586.88 ns =
// 13.632 Gb/s. The receiver's ACK coalescing (one per 16 packets) would
// stall it if the last packet of a message did not ask for an ACK.
func TestTxDepthStopAndWait(t *testing.T) {
	cfg := Config{
		Topology:     star(2, 100),
		DefaultQoS:   losslessQoS(true, false, 0, 0),
		Flows:        []Flow{{ID: "f", Src: "h0", Dst: "h1", MessageBytes: 1000, TxDepth: 1}},
		DurationNs:   1_000_000,
		Seed:         1,
		NICDelayNs:   -1,
		ClockSkewPPM: -1,
		// The ingress pipeline jitter is a switch's own: none here.
		SwitchJitterNs: -1,
	}
	r := mustRun(t, cfg)
	const want = 1000 * 8 / 586.88
	got := r.Flows[0].GoodputGbps
	t.Logf("stop and wait: %.4f Gb/s, by hand %.4f", got, want)
	if !within(got, want, 0.002*want) {
		t.Errorf("goodput %.4f Gb/s, want one message per round trip %.4f (±0.2%%)", got, want)
	}
}

// TestTxDepthBandwidthDelay: a window smaller than the bandwidth-delay
// product caps goodput at a window per round trip. On a star with 100 µs
// links the round trip R of a message's last packet and its ACK is, by
// hand, 4 x 100 µs plus the two NICs' 1 µs delays, 402 µs (store and
// forward and jitter add well under 1%); a message of 16 frames of 4178 B
// takes s = 5.35 µs to serialize at 100G. Message m+depth starts when
// message m's ACK is back, s + R after m started: depth messages per
// s + R. CQ moderation reopens the window in batches: with a depth of 5
// and a completion every 4 messages, 4 messages leave per period, and the
// batch's last one starts 3 s after its first, so 4 per 3s + R.
func TestTxDepthBandwidthDelay(t *testing.T) {
	const msg = 64 << 10
	topo := star(2, 100)
	for i := range topo.Links {
		topo.Links[i].PropDelayNs = 100_000
	}
	const r, s = 402e3, 16 * 4178 * 8 / 100.0 // ns
	for _, tc := range []struct {
		depth, cqMod int
		msgs, sers   float64 // messages per period, serializations in it
	}{
		{4, 0, 4, 1}, {8, 1, 8, 1}, {4, 4, 4, 4}, {5, 4, 4, 3}, {5, 5, 5, 5},
	} {
		cfg := Config{
			Topology:   topo,
			DefaultQoS: losslessQoS(true, false, 0, 0),
			Flows:      []Flow{{ID: "f", Src: "h0", Dst: "h1", MessageBytes: msg, TxDepth: tc.depth, CQMod: tc.cqMod}},
			// Bursts a period apart: a window of some 200 periods keeps
			// the edges' share of the goodput under 0.5%.
			DurationNs: 100_000_000,
			WarmupNs:   2_000_000,
			Seed:       1,
		}
		got := mustRun(t, cfg).Flows[0].GoodputGbps
		want := tc.msgs * msg * 8 / (tc.sers*s + r)
		t.Logf("tx depth %d, cq_mod %d: %.3f Gb/s, by hand %.3f", tc.depth, tc.cqMod, got, want)
		if !within(got, want, 0.01*want) {
			t.Errorf("tx depth %d, cq_mod %d: goodput %.3f Gb/s, want %.0f messages per %.0f s + R, %.3f (±1%%)", tc.depth, tc.cqMod, got, tc.msgs, tc.sers, want)
		}
	}
}

func TestTxDepthRefused(t *testing.T) {
	for _, f := range []Flow{
		{ID: "f", Src: "h0", Dst: "h1", TxDepth: -1},
		{ID: "f", Src: "h0", Dst: "h1", TxDepth: 4, CQMod: 5},
		{ID: "f", Src: "h0", Dst: "h1", CQMod: -1},
	} {
		_, err := newSim(&Config{Topology: star(2, 100), Flows: []Flow{f}, DurationNs: 1000})
		if err == nil {
			t.Errorf("tx depth %d, cq_mod %d: accepted", f.TxDepth, f.CQMod)
		}
	}
}
