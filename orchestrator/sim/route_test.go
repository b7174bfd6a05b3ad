package sim

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/routing"
)

// withASNs gives leafSpine's switches ASNs: leaf l 65100+l, spine s
// spineASN(s).
func withASNs(t Topology, spineASN func(s int) uint32) Topology {
	t.Nodes = slices.Clone(t.Nodes)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		var k int
		if _, err := fmt.Sscanf(n.Name, "spine%d", &k); err == nil {
			n.ASN = spineASN(k)
		} else if _, err := fmt.Sscanf(n.Name, "leaf%d", &k); err == nil {
			n.ASN = uint32(65100 + k)
		}
	}
	return t
}

// The caller's key hash and switch seeds decide ECMP: the spine a flow
// crosses is the candidate routing.ECMPIndex picks from the key's hash
// and the leaf's seed, the data packets hash the flow's key and the ACKs
// the reverse key.
func TestKeyHashDecidesECMP(t *testing.T) {
	var keys []FlowKey
	kh := func(k FlowKey) uint64 {
		keys = append(keys, k)
		h := fnv.New64a()
		fmt.Fprint(h, k.Src, k.Dst, k.SrcPort, k.DstPort)
		return h.Sum64()
	}
	spines := map[string]bool{}
	for sport := 50000; sport < 50016; sport++ {
		keys = keys[:0]
		topo := leafSpine(2, 4, 1, 100, 100)
		for i := range topo.Nodes {
			topo.Nodes[i].ECMPSeed = uint64(1000 + i)
		}
		cfg := Config{Topology: topo, DurationNs: 50_000, KeyHash: kh,
			Flows: []Flow{{ID: "f", Src: "h0-0", Dst: "h1-0", SrcPort: sport}}}
		r := mustRun(t, cfg)
		want := []FlowKey{{"h0-0:eth0", "h1-0:eth0", sport, 4791}, {"h1-0:eth0", "h0-0:eth0", 4791, sport}}
		if !slices.Equal(keys, want) {
			t.Fatalf("hashed keys %v, want %v", keys, want)
		}
		leaf0 := slices.IndexFunc(topo.Nodes, func(n Node) bool { return n.Name == "leaf0" })
		i := routing.ECMPIndex(4, kh(want[0]), uint64(1000+leaf0))
		spine := fmt.Sprint("spine", i)
		if got := r.Flows[0].Path; !slices.Equal(got, []string{"h0-0", "leaf0", spine, "leaf1", "h1-0"}) {
			t.Errorf("sport %d: path %v, want via %s", sport, got, spine)
		}
		if got := strings.Join(r.Flows[0].Route, " "); got != fmt.Sprintf("leaf0:Ethernet%d %s:Ethernet1 leaf1:Ethernet0", 100+i, spine) {
			t.Errorf("sport %d: route %s", sport, got)
		}
		spines[spine] = true
	}
	if len(spines) < 3 {
		t.Errorf("16 source ports crossed only %v", spines)
	}
}

// deadlockPattern is loopConfig's failures with given ASNs, converging at
// once, and one long flow from leaf2 to leaf3.
func deadlockPattern(spineASN func(int) uint32) Config {
	cfg := loopConfig(-1, nil)
	if spineASN != nil {
		cfg.Topology = withASNs(cfg.Topology, spineASN)
	}
	cfg.DurationNs, cfg.WarmupNs = 3_000_000, 2_000_000
	cfg.Flows = []Flow{{ID: "f", Src: "h2-0", Dst: "h3-0", SrcPort: 50001}}
	return cfg
}

// leaf2 loses its link to spine0 and leaf3 its link to spine1. With RFC
// 7938's plan (both spines in one ASN) eBGP partitions the two leaves:
// the flow ends unreachable and delivers nothing after the failure. With
// an ASN per spine, or without ASNs (shortest paths), it goes on through
// a valley, leaf2 spine1 leaf spine0 leaf3.
func TestRoutesFollowASNPlan(t *testing.T) {
	for _, c := range []struct {
		name  string
		plan  func(int) uint32
		reach bool
	}{
		{"shared", func(int) uint32 { return 65000 }, false},
		{"per-spine", func(s int) uint32 { return uint32(65001 + s) }, true},
		{"no ASNs", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustRun(t, deadlockPattern(c.plan))
			f := r.Flows[0]
			if f.UnreachableAfterFaults == c.reach {
				t.Fatalf("unreachable after the faults: %v (path %v)", f.UnreachableAfterFaults, f.PathAfterFaults)
			}
			if !c.reach {
				if got := strings.Join(f.PathAfterFaults, " "); got != "h2-0 leaf2" || f.GoodputGbps != 0 {
					t.Errorf("partitioned: path after faults %q, %.1f Gb/s after 2 ms", got, f.GoodputGbps)
				}
				return
			}
			p := f.PathAfterFaults
			if len(p) != 7 || p[1] != "leaf2" || p[2] != "spine1" || p[4] != "spine0" || p[5] != "leaf3" || (p[3] != "leaf0" && p[3] != "leaf1") {
				t.Errorf("path after faults %v, want a valley leaf2 spine1 leaf spine0 leaf3", p)
			}
			if len(f.RouteAfterFaults) != 5 || f.GoodputGbps < 50 {
				t.Errorf("route after faults %v, %.1f Gb/s", f.RouteAfterFaults, f.GoodputGbps)
			}
		})
	}
}

// A flow whose spine loses its link moves to the other spine, and says
// so; a flow on the other spine reports no change.
func TestPathAfterFaults(t *testing.T) {
	cfg := twoSpines()
	cfg.DurationNs = 1_000_000
	cfg.Faults = []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: 200_000, DetectNs: 10_000, ConvergeNs: 50_000}}
	r := mustRun(t, cfg)
	moved := 0
	for _, f := range r.Flows {
		switch f.Path[2] {
		case "spine0":
			moved++
			if !slices.Equal(f.PathAfterFaults, []string{f.Path[0], "leaf0", "spine1", "leaf1", f.Path[4]}) || f.RouteAfterFaults[0] != "leaf0:Ethernet101" || f.UnreachableAfterFaults {
				t.Errorf("flow %s on the failed spine: after faults %v %v", f.ID, f.PathAfterFaults, f.RouteAfterFaults)
			}
		default:
			if f.PathAfterFaults != nil || f.RouteAfterFaults != nil {
				t.Errorf("flow %s on spine1 reports a change: %v", f.ID, f.RouteAfterFaults)
			}
		}
	}
	if moved == 0 {
		t.Fatal("no flow hashed onto spine0: the test checks nothing")
	}
	// Without faults there is nothing to report.
	for _, f := range mustRun(t, twoSpines()).Flows {
		if f.PathAfterFaults != nil {
			t.Errorf("no faults, flow %s: %v", f.ID, f.PathAfterFaults)
		}
	}
}

// The NICs of one leaf share its routing table (one per destination leaf,
// not per NIC), unless a NIC's own link has a fault.
func TestRoutesSharedPerLeaf(t *testing.T) {
	cfg := twoSpines()
	cfg.Faults = []LinkFault{{Link: PortRef{"h1-3", "eth0"}, DownNs: 1_000_000}}
	s, err := newSim(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Setup traced every flow before the faults were known (all views
	// agree then, so one table served); start again as a routing change
	// does.
	clear(s.routes)
	clear(s.leafRoutes)
	nic := func(name string) int32 { p, _ := s.resolveNIC(name); return p }
	a, b, c := s.routeTo(nic("h1-0")), s.routeTo(nic("h1-1")), s.routeTo(nic("h1-3"))
	if &a[0] != &b[0] {
		t.Error("two NICs of leaf1 have tables of their own")
	}
	if &a[0] == &c[0] {
		t.Error("a NIC whose link has a fault shares its leaf's table")
	}
	leaf0 := s.nodeByName["leaf0"]
	if len(a[leaf0]) != 2 || !slices.Equal(a[leaf0], c[leaf0]) {
		t.Errorf("leaf0 towards leaf1: %v and %v", a[leaf0], c[leaf0])
	}
}
