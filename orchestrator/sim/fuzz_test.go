package sim

import (
	"context"
	"fmt"
	"testing"
)

// FuzzRun builds small fabrics from arbitrary parameters. Run must never
// panic, and its counters must stay consistent: with PFC on and default
// thresholds nothing is dropped, nothing is delivered beyond what was
// asked, and a finite flow that completed delivered exactly its size.
func FuzzRun(f *testing.F) {
	f.Add(int64(1), uint8(4), uint16(100), uint16(4096), true, false, false, uint32(0), uint16(200))
	f.Add(int64(2), uint8(9), uint16(25), uint16(1024), true, true, true, uint32(100_000), uint16(300))
	f.Add(int64(3), uint8(3), uint16(400), uint16(9000), false, true, true, uint32(5_000), uint16(100))
	f.Add(int64(4), uint8(2), uint16(1), uint16(256), false, false, false, uint32(1), uint16(50))
	f.Fuzz(func(t *testing.T, seed int64, hosts uint8, rate uint16, mtu uint16, pfc, ecn, dcqcn bool, bytes uint32, durUs uint16) {
		n := int(hosts%12) + 2
		r := float64(rate%800) + 1
		m := int(mtu%(9216-256+1)) + 256
		cfg := Config{
			Topology:     star(n, r),
			DefaultQoS:   losslessQoS(pfc, ecn, int64(r)*1000, int64(r)*4000),
			DurationNs:   int64(durUs%2000+1) * 1000,
			MTU:          m,
			Seed:         seed,
			DCQCN:        PaperDCQCN(r),
			DCQCNEnabled: dcqcn,
		}
		if seed%3 == 0 {
			cfg.NICDelayNs, cfg.SwitchJitterNs = -1, int64(rate%300)
		}
		if seed%2 == 0 {
			// Two tiers with small buffers: pauses must cascade losslessly.
			per := n/2 + 1
			cfg.Topology = leafSpine(2, int(hosts%3)+1, per, r, r)
			for i := range cfg.Topology.Nodes {
				cfg.Topology.Nodes[i].BufferBytes = 1 << 20
			}
			for i := 1; i < 2*per; i++ {
				cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h%d-%d", i/per, i%per), Dst: "h0-0", Bytes: int64(bytes % 2_000_000)})
			}
		} else {
			for i := 1; i < n; i++ {
				cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h%d", i), Dst: "h0", Bytes: int64(bytes % 2_000_000)})
			}
		}
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("valid config rejected: %v", err)
		}
		// Events scale with packets, never with idle time: at most a few
		// dozen per packet the hosts' links could carry, plus timers.
		pkts := float64(cfg.DurationNs) * r * float64(len(cfg.Flows)+1) / 8 / float64(m+WireOverheadBytes)
		if bound := uint64(40*pkts) + 100_000; res.Events > bound {
			t.Errorf("%d events, want at most %d for %.0f packets' worth of time", res.Events, bound, pkts)
		}
		if pfc && res.Totals.Drops != 0 {
			t.Errorf("PFC on: %d drops", res.Totals.Drops)
		}
		for _, fl := range res.Flows {
			if fl.Bytes > 0 && fl.BytesDelivered > fl.Bytes {
				t.Errorf("flow %s delivered %d of %d bytes", fl.ID, fl.BytesDelivered, fl.Bytes)
			}
			if fl.Completed && fl.BytesDelivered != fl.Bytes {
				t.Errorf("flow %s completed with %d of %d bytes", fl.ID, fl.BytesDelivered, fl.Bytes)
			}
		}
	})
}
