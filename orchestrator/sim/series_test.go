package sim

import (
	"slices"
	"testing"
)

// A PFC incast without ECN on one switch: the port toward the receiver
// queues priority 3 (it is not paused: the receiver NIC keeps up), the
// ports toward the senders send XOFF (their PG fills up to the XOFF
// point) and carry the receiver's ACKs back, and every watched
// priority's series has one value per sample.
func TestSeriesPerPriority(t *testing.T) {
	cfg := Config{
		Topology:      star(5, 100),
		DefaultQoS:    losslessQoS(true, false, 0, 0),
		DurationNs:    300_000,
		SampleEveryNs: 10_000,
		Watch:         []PortRef{{"sw", "Ethernet0"}, {"sw", "Ethernet1"}},
	}
	for i := 1; i <= 4; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: "in" + fmtVal(i), Src: "h" + fmtVal(i), Dst: "h0"})
	}
	r := mustRun(t, cfg)
	n := len(r.Series.TimesNs)
	prio := func(ps PortSeries, pr int) *PrioritySeries {
		for i := range ps.Priorities {
			if ps.Priorities[i].Priority == pr {
				return &ps.Priorities[i]
			}
		}
		t.Fatalf("%s:%s has no series of priority %d (has %+v)", ps.Node, ps.Port, pr, ps.Priorities)
		return nil
	}
	for _, ps := range r.Series.Queues {
		for _, p := range ps.Priorities {
			for _, l := range []int{len(p.QueueBytes), len(p.PausedRx), len(p.PGBytes), len(p.XOFFBytes), len(p.PauseTx)} {
				if l != n {
					t.Errorf("%s:%s priority %d: a series of %d values over %d samples", ps.Node, ps.Port, p.Priority, l, n)
				}
			}
		}
	}
	down, up := r.Series.Queues[0], r.Series.Queues[1]
	d := prio(down, 3)
	if d.Queue != 3 || d.PG != 3 || slices.Max(d.QueueBytes) == 0 || slices.Contains(d.PauseTx, true) || slices.Contains(d.PausedRx, true) {
		t.Errorf("toward the receiver: queue %d PG %d, peak %d B, pause sent %v, received %v; want queue 3 deep, no pause",
			d.Queue, d.PG, slices.Max(d.QueueBytes), slices.Contains(d.PauseTx, true), slices.Contains(d.PausedRx, true))
	}
	// The summed depth is the priorities' own (each queue counted once).
	for k := range n {
		if down.Bytes[k] != d.QueueBytes[k] {
			t.Fatalf("sample %d: port depth %d, priority 3's queue %d", k, down.Bytes[k], d.QueueBytes[k])
		}
	}
	u := prio(up, 3)
	if !slices.Contains(u.PauseTx, true) || slices.Max(u.PGBytes) == 0 || slices.Max(u.XOFFBytes) == 0 {
		t.Fatalf("toward a sender: pause sent %v, PG peak %d, XOFF point %d; want XOFF sent with the PG filled", slices.Contains(u.PauseTx, true), slices.Max(u.PGBytes), slices.Max(u.XOFFBytes))
	}
	// The PG is in XOFF only while it holds bytes (it resumes once it
	// drained to XON), and it reached its XOFF point at some sample.
	reached := false
	for k := range n {
		if u.PauseTx[k] && u.PGBytes[k] == 0 {
			t.Errorf("sample %d: XOFF with the PG empty", k)
		}
		reached = reached || u.PGBytes[k] >= u.XOFFBytes[k] && u.XOFFBytes[k] > 0
	}
	if !reached {
		t.Errorf("the PG never reached its XOFF point: use %v, XOFF %v", u.PGBytes, u.XOFFBytes)
	}
	// A priority nothing used has no series.
	for _, ps := range r.Series.Queues {
		for _, p := range ps.Priorities {
			if p.Priority != 3 && p.Priority != 6 {
				t.Errorf("%s:%s has a series of priority %d, which no packet used", ps.Node, ps.Port, p.Priority)
			}
		}
	}
}
