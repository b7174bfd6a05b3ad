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
