package sim

import (
	"context"
	"fmt"
	"testing"
)

func reportRates(b *testing.B, events, hops uint64) {
	sec := b.Elapsed().Seconds()
	if sec > 0 {
		b.ReportMetric(float64(events)/sec, "events/s")
		b.ReportMetric(float64(hops)/sec, "hops/s")
	}
}

// BenchmarkEngine is 8:1 incast with PFC on one 100G switch.
func BenchmarkEngine(b *testing.B) {
	cfg := incastConfig(8, true, false, false, 2_000_000)
	var events, hops uint64
	b.ReportAllocs()
	for b.Loop() {
		r, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
		hops += r.PacketHops
	}
	reportRates(b, events, hops)
}

// BenchmarkIncast16Host200G is 15:1 incast on 16 hosts over two leaves and
// two spines at 200G with DCQCN, ECN and PFC, 5 ms simulated.
func BenchmarkIncast16Host200G(b *testing.B) {
	cfg := Config{
		Topology:     leafSpine(2, 2, 8, 200, 200),
		DefaultQoS:   losslessQoS(true, true, 800_000, 3_200_000),
		DurationNs:   5_000_000,
		Seed:         1,
		DCQCN:        PaperDCQCN(200),
		DCQCNEnabled: true,
	}
	for l := 0; l < 2; l++ {
		for i := 0; i < 8; i++ {
			if l == 0 && i == 0 {
				continue
			}
			cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("f%d-%d", l, i), Src: fmt.Sprintf("h%d-%d", l, i), Dst: "h0-0"})
		}
	}
	var events, hops uint64
	b.ReportAllocs()
	for b.Loop() {
		r, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
		hops += r.PacketHops
	}
	reportRates(b, events, hops)
}

// BenchmarkAllToAll is every host to every other on a 4x2 leaf-spine.
func BenchmarkAllToAll(b *testing.B) {
	cfg := Config{
		Topology:   leafSpine(4, 2, 4, 100, 100),
		DefaultQoS: losslessQoS(true, true, 100_000, 400_000),
		DurationNs: 1_000_000,
		Seed:       1,
		DCQCN:      PaperDCQCN(100), DCQCNEnabled: true,
	}
	hosts := ringRanks(4, 4)
	for i, a := range hosts {
		for j, c := range hosts {
			if i != j {
				cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("%d-%d", i, j), Src: a, Dst: c})
			}
		}
	}
	var events, hops uint64
	for b.Loop() {
		r, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
		hops += r.PacketHops
	}
	reportRates(b, events, hops)
}

// BenchmarkRingAllReduce32 is a 32-rank ring AllReduce of 64 MiB over 4
// leaves and 2 spines at 200G, packet by packet.
func BenchmarkRingAllReduce32(b *testing.B) {
	ranks := ringRanks(4, 8)
	cfg := Config{
		Topology:   leafSpine(4, 2, 8, 200, 400),
		DefaultQoS: losslessQoS(true, true, 800_000, 3_200_000),
		Flows:      RingAllReduceFlows("ar", ranks, 64<<20, 26),
		DurationNs: 20_000_000,
		Seed:       1,
		DCQCN:      PaperDCQCN(200), DCQCNEnabled: true,
	}
	var events, hops uint64
	for b.Loop() {
		r, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := CollectiveTimeNs(r, "ar"); !ok {
			b.Fatal("AllReduce did not complete")
		}
		events += r.Events
		hops += r.PacketHops
	}
	reportRates(b, events, hops)
}
