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
	benchRun(b, cfg)
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
	benchRun(b, cfg)
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
	benchRun(b, cfg)
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
	benchRun(b, cfg, func(r *Result) {
		if _, ok := CollectiveTimeNs(r, "ar"); !ok {
			b.Fatal("AllReduce did not complete")
		}
	})
}

// fatLeafSpine is a non-blocking leaf-spine as the catalog labs size it:
// hostsPerLeaf NICs at hostRate on each leaf and as much uplink capacity,
// spread over spines with links parallel links per leaf and spine.
func fatLeafSpine(leaves, spines, links, hostsPerLeaf int, hostRate, fabricRate float64) Topology {
	var t Topology
	for s := 0; s < spines; s++ {
		t.Nodes = append(t.Nodes, Node{Name: fmt.Sprintf("spine%d", s), Kind: Switch})
	}
	for l := 0; l < leaves; l++ {
		leaf := fmt.Sprintf("leaf%d", l)
		t.Nodes = append(t.Nodes, Node{Name: leaf, Kind: Switch})
		for s := 0; s < spines; s++ {
			for k := 0; k < links; k++ {
				t.Links = append(t.Links, Link{
					A:        PortRef{leaf, fmt.Sprintf("Ethernet%d", 1000+s*links+k)},
					B:        PortRef{fmt.Sprintf("spine%d", s), fmt.Sprintf("Ethernet%d", l*links+k)},
					RateGbps: fabricRate, PropDelayNs: 200,
				})
			}
		}
		for i := 0; i < hostsPerLeaf; i++ {
			h := fmt.Sprintf("h%d-%d", l, i)
			t.Nodes = append(t.Nodes, Node{Name: h, Kind: Host})
			t.Links = append(t.Links, Link{
				A: PortRef{h, "eth0"}, B: PortRef{leaf, fmt.Sprintf("Ethernet%d", i)},
				RateGbps: hostRate, PropDelayNs: 100,
			})
		}
	}
	return t
}

// permutationConfig is a permutation of long flows over a fatLeafSpine,
// 1 ms simulated with DCQCN, ECN and PFC: every NIC sends to one NIC of
// the leaf half the fabric away (a fixed shuffle of its index there), so
// every flow crosses the spines and every NIC receives one flow.
func permutationConfig(leaves, spines, links, perLeaf int) Config {
	cfg := Config{
		Topology:     fatLeafSpine(leaves, spines, links, perLeaf, 200, 400),
		DefaultQoS:   losslessQoS(true, true, 100_000, 400_000),
		DurationNs:   1_000_000,
		Seed:         1,
		DCQCN:        PaperDCQCN(200),
		DCQCNEnabled: true,
	}
	for l := 0; l < leaves; l++ {
		for i := 0; i < perLeaf; i++ {
			// 7 is odd, so i -> 7i+3 mod perLeaf (a power of two) is a
			// bijection: a permutation.
			dl, di := (l+leaves/2)%leaves, (7*i+3)%perLeaf
			cfg.Flows = append(cfg.Flows, Flow{
				ID:  fmt.Sprintf("p%d-%d", l, i),
				Src: fmt.Sprintf("h%d-%d", l, i), Dst: fmt.Sprintf("h%d-%d", dl, di),
			})
		}
	}
	return cfg
}

// benchRun runs cfg on one thread unless it says otherwise, so that the
// events/s are per core.
func benchRun(b *testing.B, cfg Config, checks ...func(*Result)) {
	if cfg.Threads == 0 {
		cfg.Threads = 1
	}
	var events, hops uint64
	b.ReportAllocs()
	for b.Loop() {
		r, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, check := range checks {
			check(r)
		}
		events += r.Events
		hops += r.PacketHops
	}
	reportRates(b, events, hops)
}

// BenchmarkPermutation128 is a permutation of long flows at 128 hosts (4
// leaves of 32 200G NICs, 2 spines with 8 400G links to each leaf, as the
// 128gpu lab), 1 ms simulated.
func BenchmarkPermutation128(b *testing.B) { benchRun(b, permutationConfig(4, 2, 8, 32)) }

// BenchmarkPermutation1024 is the same at 1024 hosts (32 leaves of 32
// NICs, 16 spines with one 400G link to each leaf, as the 1024gpu lab).
func BenchmarkPermutation1024(b *testing.B) { benchRun(b, permutationConfig(32, 16, 1, 32)) }

// BenchmarkPermutation1024Threads2 is BenchmarkPermutation1024 (split in
// its default 8 partitions) on two threads; events/s is then per run, not
// per core.
func BenchmarkPermutation1024Threads2(b *testing.B) {
	cfg := permutationConfig(32, 16, 1, 32)
	cfg.Threads = 2
	benchRun(b, cfg)
}

// BenchmarkPermutation1024Sequential is BenchmarkPermutation1024 in one
// partition: the cost of the split itself, on one thread.
func BenchmarkPermutation1024Sequential(b *testing.B) {
	cfg := permutationConfig(32, 16, 1, 32)
	cfg.Partitions = 1
	benchRun(b, cfg)
}

// BenchmarkPermutation1024SequentialLongCables is
// BenchmarkPermutation1024Sequential with 1 µs on every link (200 m of
// fibre, bench-compare's cables), 300 µs simulated: some 20,000 events
// pending in one queue, which sizes the event wheel by the events it holds
// (wheelBitsBound).
func BenchmarkPermutation1024SequentialLongCables(b *testing.B) {
	cfg := permutationConfig(32, 16, 1, 32)
	for i := range cfg.Topology.Links {
		cfg.Topology.Links[i].PropDelayNs = 1000
	}
	cfg.Partitions, cfg.DurationNs = 1, 300_000
	benchRun(b, cfg)
}

// BenchmarkInfiniBandPermutation128 is BenchmarkPermutation128 on
// InfiniBand: credits per VL, routes per destination LID (ftree).
func BenchmarkInfiniBandPermutation128(b *testing.B) {
	cfg := permutationConfig(4, 2, 8, 32)
	cfg.Transport, cfg.IB = TransportInfiniBand, &IBParams{}
	benchRun(b, cfg)
}
