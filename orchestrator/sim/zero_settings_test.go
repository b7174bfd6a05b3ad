package sim

import (
	"testing"
)

// A QP whose packets vanish into a dead link nobody routes around
// survives exactly retry_cnt retries: the timeout after the last one
// fails it (IBV_WC_RETRY_EXC_ERR), so retry_cnt 0 fails on the first
// timeout and the default (nil, perftest's 7) on the eighth.
func TestRetryCountFailsQP(t *testing.T) {
	const down = 200_000
	rto := QPTimeoutNs(4) // 65.5 µs
	for _, tc := range []struct {
		name  string
		retry *int
		want  int64 // timeouts a failed QP saw
	}{
		{"retry_cnt 0", new(0), 1},
		{"retry_cnt 3", new(3), 4},
		{"default", nil, DefaultRetryCount + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := twoSpines()
			cfg.QPTimeout = 4
			cfg.RetryCount = tc.retry
			// The ends never learn: a black hole for the rest of the run.
			cfg.Faults = []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: down, DetectNs: 10 * cfg.DurationNs, ConvergeNs: 10 * cfg.DurationNs}}
			r := mustRun(t, cfg)
			failed := 0
			for _, f := range r.Flows {
				if !f.Failed {
					if f.FailedAtNs != 0 {
						t.Errorf("flow %s did not fail but has a failure time %d ns", f.ID, f.FailedAtNs)
					}
					continue
				}
				failed++
				if f.Timeouts != tc.want {
					t.Errorf("flow %s failed after %d timeouts, want %d", f.ID, f.Timeouts, tc.want)
				}
				// Its last progress was an ACK (one per 16 packets, 5.3
				// µs at 100G) around the time the link died, give or
				// take the round trip of packets in flight; each
				// timeout is one rto after the one before.
				lo, hi := down+tc.want*rto-10_000, down+tc.want*rto+20_000
				if f.FailedAtNs < lo || f.FailedAtNs > hi {
					t.Errorf("flow %s failed at %d ns, want between %d and %d", f.ID, f.FailedAtNs, lo, hi)
				}
			}
			if failed == 0 {
				t.Fatalf("no flow failed: none hashed onto leaf0:Ethernet100? %+v", r.Flows)
			}
			if r.Totals.FailedFlows != failed {
				t.Errorf("totals count %d failed flows, the flows %d", r.Totals.FailedFlows, failed)
			}
		})
	}
}

// CNPDSCP 0 sends CNPs at DSCP 0 (best effort, priority 0 on the
// switches), as nic.dcqcn.cnp_dscp: 0 asks; nil is the default 48
// (priority 6). Until it was a pointer, 0 ran as 48.
func TestCNPDSCPZero(t *testing.T) {
	for _, tc := range []struct {
		name string
		dscp *int
		prio int // the priority CNPs leave the switch at, to the senders
	}{
		{"default", nil, 6},
		{"dscp 0", new(0), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{
				Topology:     star(5, 100),
				DefaultQoS:   losslessQoS(true, true, 5_000, 200_000),
				DurationNs:   500_000,
				Seed:         1,
				DCQCN:        ConnectXDCQCN(),
				DCQCNEnabled: true,
				CNPDSCP:      tc.dscp,
				Flows:        IncastFlows("in", []string{"h1", "h2", "h3", "h4"}, "h0", 0),
			}
			r := mustRun(t, cfg)
			if r.Totals.CNPs == 0 {
				t.Fatalf("no CNPs: the incast marked nothing")
			}
			// Towards the senders the switch sends ACKs (priority 3)
			// and CNPs, nothing else.
			byPrio := map[int]int64{}
			for _, p := range r.Ports {
				if p.Node == "sw" && p.Port != "Ethernet0" {
					byPrio[p.Priority] += p.TxPackets
				}
			}
			for prio, n := range byPrio {
				if prio != 3 && prio != tc.prio && n > 0 {
					t.Errorf("%d packets to the senders at priority %d; CNPs should be at %d: %v", n, prio, tc.prio, byPrio)
				}
			}
			if byPrio[tc.prio] == 0 {
				t.Errorf("no packets to the senders at priority %d, where the CNPs belong: %v", tc.prio, byPrio)
			}
		})
	}
}

// An all-to-all's QPs fail as any QP does, and each sending rank says
// how many of its QPs failed and when the first did.
func TestAllToAllQPsFail(t *testing.T) {
	const down = 100_000
	cfg := twoSpines()
	cfg.Flows = nil
	cfg.AllToAll = []AllToAll{{ID: "a2a", Ranks: []string{"h0-0", "h0-1", "h1-0", "h1-1"}, Bytes: 50_000_000}}
	cfg.QPTimeout, cfg.RetryCount = 4, new(0)
	cfg.Faults = []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: down, DetectNs: 10 * cfg.DurationNs, ConvergeNs: 10 * cfg.DurationNs}}
	r := mustRun(t, cfg)
	if len(r.AllToAll) != 1 {
		t.Fatalf("%d all-to-alls", len(r.AllToAll))
	}
	failed := 0
	for _, rk := range r.AllToAll[0].Ranks {
		failed += rk.FailedQPs
		if rk.FailedQPs > 0 && (rk.FailedAtNs < down || rk.FailedAtNs > down+2*QPTimeoutNs(4)) {
			t.Errorf("rank %s: first QP failed at %d ns, want one timeout after %d ns", rk.Src, rk.FailedAtNs, down)
		}
		if rk.FailedQPs == 0 && rk.FailedAtNs != 0 {
			t.Errorf("rank %s: no failed QP but a failure time %d", rk.Src, rk.FailedAtNs)
		}
	}
	if failed == 0 || failed != r.Totals.FailedFlows {
		t.Errorf("ranks count %d failed QPs, totals %d; want the same, above 0", failed, r.Totals.FailedFlows)
	}
}
