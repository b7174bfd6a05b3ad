package sim

import (
	"context"
	"fmt"
	"testing"
)

// star is one switch with n hosts h0..h(n-1) at rate Gb/s.
func star(n int, rate float64) Topology {
	t := Topology{Nodes: []Node{{Name: "sw", Kind: Switch}}}
	for i := 0; i < n; i++ {
		h := fmt.Sprintf("h%d", i)
		t.Nodes = append(t.Nodes, Node{Name: h, Kind: Host})
		t.Links = append(t.Links, Link{
			A: PortRef{h, "eth0"}, B: PortRef{"sw", fmt.Sprintf("Ethernet%d", i)},
			RateGbps: rate, PropDelayNs: 100,
		})
	}
	return t
}

// leafSpine builds leaves x spines with hostsPerLeaf hosts on each leaf
// (host names h<leaf>-<i>), every leaf linked once to every spine.
func leafSpine(leaves, spines, hostsPerLeaf int, hostRate, fabricRate float64) Topology {
	var t Topology
	for s := 0; s < spines; s++ {
		t.Nodes = append(t.Nodes, Node{Name: fmt.Sprintf("spine%d", s), Kind: Switch})
	}
	for l := 0; l < leaves; l++ {
		leaf := fmt.Sprintf("leaf%d", l)
		t.Nodes = append(t.Nodes, Node{Name: leaf, Kind: Switch})
		for s := 0; s < spines; s++ {
			t.Links = append(t.Links, Link{
				A: PortRef{leaf, fmt.Sprintf("Ethernet%d", 100+s)}, B: PortRef{fmt.Sprintf("spine%d", s), fmt.Sprintf("Ethernet%d", l)},
				RateGbps: fabricRate, PropDelayNs: 200,
			})
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

// losslessQoS is PFC on priority 3 with optional ECN at the given
// thresholds, CNP priority 6 strict.
func losslessQoS(pfc, ecn bool, kmin, kmax int64) map[int]PortQoS {
	return map[int]PortQoS{
		3: {PFC: pfc, ECN: ecn, KminBytes: kmin, KmaxBytes: kmax, Pmax: 0.2},
		6: {Strict: true},
	}
}

// runSim runs cfg with the engine set up by set just before it runs (a
// test's switch, such as sim.txDoneAlways) and returns the engine, for its
// result and counters.
func runSim(t testing.TB, cfg Config, set func(*sim)) *sim {
	t.Helper()
	s, err := newSim(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	set(s)
	if err := s.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustRun(t testing.TB, cfg Config) *Result {
	t.Helper()
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func within(got, want, tol float64) bool {
	d := got - want
	return d <= tol && d >= -tol
}

func fmtVal(v any) string { return fmt.Sprint(v) }
