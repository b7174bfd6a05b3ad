package sim

import (
	"fmt"
	"testing"
)

// uetIncast is n senders of bytes each into one receiver on one switch at
// 100G, UET with the given parameters, PFC off, ECN at kmin/kmax.
func uetIncast(n int, bytes int64, p UETParams, ecn bool) Config {
	const rate = 100.0
	cfg := Config{
		Topology:   star(n+1, rate),
		DefaultQoS: losslessQoS(false, ecn, 100_000, 400_000),
		DurationNs: 20_000_000,
		Seed:       1,
		Transport:  TransportUET,
		UET:        p,
	}
	for i := 1; i <= n; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("f%d", i), Src: fmt.Sprintf("h%d", i), Dst: "h0", Bytes: bytes, Role: "incast"})
	}
	return cfg
}

func TestUETIncastNoPFC(t *testing.T) {
	r := mustRun(t, uetIncast(8, 4<<20, UETParams{}, true))
	var last int64
	for _, f := range r.Flows {
		if !f.Completed {
			t.Fatalf("flow %s did not complete: %d of %d bytes", f.ID, f.BytesDelivered, f.Bytes)
		}
		last = max(last, *f.FCTNs)
	}
	agg := float64(8*(4<<20)) * 8 / float64(last)
	t.Logf("last FCT %d ns, aggregate %.2f Gb/s, trimmed %d, nacks %d, sack rtx %d, rto rtx %d, drops %d, marks %d",
		last, agg, r.UET.Trimmed, r.UET.NACKs, r.UET.SACKRetransmits, r.UET.RTORetransmits, r.Totals.Drops, r.Totals.ECNMarked)
	for _, f := range r.Flows {
		t.Logf("%s fct %d cwnd %d base %v", f.ID, *f.FCTNs, f.UET.CwndBytes, f.UET.BaseRTTNs)
	}
}

func TestUETTrimSmallBuffer(t *testing.T) {
	for _, trim := range []bool{true, false} {
		cfg := uetIncast(8, 2<<20, UETParams{NoTrimming: !trim}, false)
		cfg.Topology.Nodes[0].BufferBytes = 120_000
		r := mustRun(t, cfg)
		var last int64
		done := 0
		for _, f := range r.Flows {
			if f.Completed {
				done++
				last = max(last, *f.FCTNs)
			}
		}
		t.Logf("trim=%v done %d last FCT %d ns, trimmed %d, nacks %d, nack rtx %d sack rtx %d, rto rtx %d, drops %d",
			trim, done, last, r.UET.Trimmed, r.UET.NACKs, r.UET.NACKRetransmits, r.UET.SACKRetransmits, r.UET.RTORetransmits, r.Totals.Drops)
	}
}
