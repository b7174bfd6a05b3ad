package routing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// clos builds a 2-tier fabric: leaves leaf1..leafL with hosts h<leaf>
// (one NIC each), spines spine1..spineS, links parallel links between
// every leaf and spine. spineASN gives spine s's ASN; leaf i has 65100+i.
// Nodes are added spines first, then leaves, then hosts (router-id order
// as labctl numbers loopbacks).
func clos(leaves, spines, links int, spineASN func(s int) uint32) (*Graph, map[string]int32) {
	g := &Graph{}
	id := map[string]int32{}
	for s := 1; s <= spines; s++ {
		id[fmt.Sprint("spine", s)] = g.AddNode(fmt.Sprint("spine", s), Switch, spineASN(s))
	}
	for l := 1; l <= leaves; l++ {
		id[fmt.Sprint("leaf", l)] = g.AddNode(fmt.Sprint("leaf", l), Switch, uint32(65100+l))
	}
	for l := 1; l <= leaves; l++ {
		h := fmt.Sprint("h", l)
		id[h] = g.AddNode(h, Host, 0)
		mustLink(g, id[h], "eth1", id[fmt.Sprint("leaf", l)], "Ethernet0")
	}
	for l := 1; l <= leaves; l++ {
		for s := 1; s <= spines; s++ {
			for m := range links {
				lp := fmt.Sprintf("Ethernet%d", 64+4*((s-1)*links+m))
				sp := fmt.Sprintf("Ethernet%d", 4*((l-1)*links+m))
				mustLink(g, id[fmt.Sprint("leaf", l)], lp, id[fmt.Sprint("spine", s)], sp)
			}
		}
	}
	return g, id
}

func mustLink(g *Graph, a int32, ap string, b int32, bp string) int32 {
	l, err := g.AddLink(a, ap, b, bp)
	if err != nil {
		panic(err)
	}
	return l
}

func shared(int) uint32     { return 65000 }
func perSpine(s int) uint32 { return uint32(65000 + s) }
func noASN(int) uint32      { return 0 }
func downSet(ls ...int32) Down {
	return func(l int32) bool { return slices.Contains(ls, l) }
}

// linksBetween lists the links joining nodes a and b.
func linksBetween(g *Graph, a, b int32) []int32 {
	var out []int32
	for l := int32(0); l < int32(g.Links()); l++ {
		x, y := g.PortNode(2*l), g.PortNode(2*l+1)
		if x == a && y == b || x == b && y == a {
			out = append(out, l)
		}
	}
	return out
}

func peers(g *Graph, ports []int32) string {
	var out []string
	for _, p := range ports {
		out = append(out, g.NodeName(g.PortNode(Peer(p)))+"/"+g.PortName(p))
	}
	return strings.Join(out, " ")
}

// Without failures every leaf reaches every other over every spine and
// every parallel link, whatever the ASN plan: a leaf's next hops are all
// its uplinks, a spine's the links down to the destination leaf.
func TestRoutesNoFailure(t *testing.T) {
	for name, plan := range map[string]func(int) uint32{"shared": shared, "per-spine": perSpine, "none": noASN} {
		g, id := clos(4, 2, 2, plan)
		tb := g.Routes(id["leaf3"], nil)
		if got := peers(g, tb.NextHops(id["leaf1"])); got != "spine1/Ethernet64 spine1/Ethernet68 spine2/Ethernet72 spine2/Ethernet76" {
			t.Errorf("%s: leaf1 towards leaf3: %s", name, got)
		}
		if got := peers(g, tb.NextHops(id["spine2"])); got != "leaf3/Ethernet16 leaf3/Ethernet20" {
			t.Errorf("%s: spine2 towards leaf3: %s", name, got)
		}
		if tb.PathLen(id["leaf1"]) != 3 || tb.NextHops(id["leaf3"]) != nil || tb.Reachable(id["h1"]) || !tb.Reachable(id["leaf3"]) {
			t.Errorf("%s: path length %d, origin next hops %v, host reachable %v", name, tb.PathLen(id["leaf1"]), tb.NextHops(id["leaf3"]), tb.Reachable(id["h1"]))
		}
		// Ties go to the lowest router id: spine1, added first.
		if got := tb.BestFrom(id["leaf1"]); got != id["spine1"] {
			t.Errorf("%s: leaf1 advertises the path from %s, want spine1", name, g.NodeName(got))
		}
	}
}

// The deadlock pattern: leaf1 loses every link to spine1, leaf2 every link
// to spine2. With one ASN for all spines (RFC 7938) leaf1 and leaf2 are
// partitioned: the only paths left go leaf-spine-leaf-spine-leaf and the
// second spine rejects them (its own ASN is on them). With an ASN per
// spine the valley path is accepted; without ASNs it is a plain shortest
// path.
func TestValleyPaths(t *testing.T) {
	for _, c := range []struct {
		name      string
		plan      func(int) uint32
		reachable bool
	}{{"shared", shared, false}, {"per-spine", perSpine, true}, {"none", noASN, true}} {
		t.Run(c.name, func(t *testing.T) {
			g, id := clos(4, 2, 2, c.plan)
			down := append(linksBetween(g, id["leaf1"], id["spine1"]), linksBetween(g, id["leaf2"], id["spine2"])...)
			tb := g.Routes(id["leaf2"], downSet(down...))
			if got := tb.Reachable(id["leaf1"]); got != c.reachable {
				t.Fatalf("leaf1 reaches leaf2: %v, want %v", got, c.reachable)
			}
			sp := g.ShortestPaths(id["leaf2"], downSet(down...))
			if !sp.Reachable(id["leaf1"]) || sp.PathLen(id["leaf1"]) != 5 {
				t.Fatalf("shortest paths: leaf1 reachable %v in %d, want a 5-switch detour", sp.Reachable(id["leaf1"]), sp.PathLen(id["leaf1"]))
			}
			// Leaves 3 and 4 are not cut off either way.
			if !tb.Reachable(id["leaf3"]) || tb.PathLen(id["leaf3"]) != 3 {
				t.Errorf("leaf3 towards leaf2: reachable %v in %d", tb.Reachable(id["leaf3"]), tb.PathLen(id["leaf3"]))
			}
			if !c.reachable {
				// spine2 has no route to leaf2 at all: its direct links
				// are down and every other path holds AS 65000.
				if tb.Reachable(id["spine2"]) {
					t.Errorf("spine2 reaches leaf2 through %v", g.ASPath(tb, id["spine2"]))
				}
				return
			}
			// leaf1 -> spine2 -> leaf3 or leaf4 -> spine1 -> leaf2.
			if got := peers(g, tb.NextHops(id["leaf1"])); got != "spine2/Ethernet72 spine2/Ethernet76" {
				t.Errorf("leaf1: %s", got)
			}
			if got := peers(g, tb.NextHops(id["spine2"])); got != "leaf3/Ethernet16 leaf3/Ethernet20 leaf4/Ethernet24 leaf4/Ethernet28" {
				t.Errorf("spine2: %s", got)
			}
			if c.name == "per-spine" {
				if got := fmt.Sprint(g.ASPath(tb, id["leaf1"])); got != "[65101 65002 65103 65001 65102]" {
					t.Errorf("leaf1's AS path %s", got)
				}
			}
		})
	}
}

// threeTier builds pods of 2 leaves and 2 spines; spine j of every pod
// links to the super-spines of plane j (2 per plane). Pod spines share
// 65000+pod, super-spines 65000 (labctl's plan).
func threeTier(pods int) (*Graph, map[string]int32) {
	g := &Graph{}
	id := map[string]int32{}
	add := func(name string, asn uint32) { id[name] = g.AddNode(name, Switch, asn) }
	for k := 1; k <= 4; k++ {
		add(fmt.Sprint("ss", k), 65000)
	}
	for p := 1; p <= pods; p++ {
		for j := 1; j <= 2; j++ {
			add(fmt.Sprintf("s%d-%d", p, j), uint32(65000+p))
		}
	}
	for p := 1; p <= pods; p++ {
		for i := 1; i <= 2; i++ {
			add(fmt.Sprintf("l%d-%d", p, i), uint32(65100+10*p+i))
		}
	}
	port := map[int32]int{}
	next := func(n int32) string { port[n]++; return fmt.Sprint("Ethernet", 4*(port[n]-1)) }
	for p := 1; p <= pods; p++ {
		for i := 1; i <= 2; i++ {
			for j := 1; j <= 2; j++ {
				l, s := id[fmt.Sprintf("l%d-%d", p, i)], id[fmt.Sprintf("s%d-%d", p, j)]
				mustLink(g, l, next(l), s, next(s))
			}
		}
		for j := 1; j <= 2; j++ {
			for k := 1; k <= 2; k++ {
				s, ss := id[fmt.Sprintf("s%d-%d", p, j)], id[fmt.Sprint("ss", 2*(j-1)+k)]
				mustLink(g, s, next(s), ss, next(ss))
			}
		}
	}
	return g, id
}

// Across pods a path climbs to a super-spine of the source spine's plane
// and comes down the same plane; inside a pod it never climbs.
func TestRoutesThreeTier(t *testing.T) {
	g, id := threeTier(3)
	tb := g.Routes(id["l3-1"], nil)
	if got := tb.PathLen(id["l1-1"]); got != 5 {
		t.Errorf("cross-pod AS path of %d ASes, want 5 (leaf spine super-spine spine leaf)", got)
	}
	if got := peers(g, tb.NextHops(id["s1-2"])); got != "ss3/Ethernet8 ss4/Ethernet12" {
		t.Errorf("s1-2 towards pod 3: %s", got)
	}
	if got := peers(g, tb.NextHops(id["ss3"])); got != "s3-2/Ethernet8" {
		t.Errorf("ss3 towards pod 3: %s", got)
	}
	if got := tb.PathLen(id["l3-2"]); got != 3 {
		t.Errorf("same-pod AS path of %d, want 3", got)
	}
	// s3-1 loses both links to l3-1. Pod 3's other spine shares its ASN
	// and the super-spines theirs: no path down through another pod's
	// spine and back, and no leaf-level valley: s3-1 has no route, and
	// pod 1 reaches l3-1 only through plane 2.
	down := append(linksBetween(g, id["s3-1"], id["l3-1"]), []int32{}...)
	tb = g.Routes(id["l3-1"], downSet(down...))
	if tb.Reachable(id["s3-1"]) {
		t.Errorf("s3-1 reaches l3-1 via %v", g.ASPath(tb, id["s3-1"]))
	}
	if got := peers(g, tb.NextHops(id["l1-1"])); got != "s1-2/Ethernet4" {
		t.Errorf("l1-1 towards l3-1 with s3-1 cut off: %s", got)
	}
}

// ECMP candidates come out in the natural order of the egress port names,
// whatever order the links were added in: a merged link's members after
// their port and before the next port.
func TestCandidateOrder(t *testing.T) {
	names := []string{"Ethernet12", "Ethernet4", "Ethernet0.1", "Ethernet0", "Ethernet0.10", "Ethernet0.2", "Ethernet100"}
	want := "Ethernet0 Ethernet0.1 Ethernet0.2 Ethernet0.10 Ethernet4 Ethernet12 Ethernet100"
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		order := slices.Clone(names)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		g := &Graph{}
		a := g.AddNode("a", Switch, 1)
		b := g.AddNode("b", Switch, 2)
		for i, p := range order {
			mustLink(g, a, p, b, fmt.Sprint("e", i))
		}
		var got []string
		for _, p := range g.Routes(b, nil).NextHops(a) {
			got = append(got, g.PortName(p))
		}
		if strings.Join(got, " ") != want {
			t.Fatalf("order %v gives candidates %v, want %s", order, got, want)
		}
	}
}

func TestPortLess(t *testing.T) {
	in := []string{"Ethernet12", "Ethernet4", "Ethernet1/10", "Ethernet1/2", "Ethernet0", "Port-Channel3", "Ethernet0.1", "Ethernet4.3"}
	want := "Ethernet0 Ethernet0.1 Ethernet1/2 Ethernet1/10 Ethernet4 Ethernet4.3 Ethernet12 Port-Channel3"
	slices.SortFunc(in, func(a, b string) int {
		switch {
		case PortLess(a, b):
			return -1
		case PortLess(b, a):
			return 1
		}
		return 0
	})
	if got := strings.Join(in, " "); got != want {
		t.Errorf("sorted = %s", got)
	}
}

func TestAddLinkRejects(t *testing.T) {
	g := &Graph{}
	a := g.AddNode("a", Switch, 0)
	if _, err := g.AddLink(a, "e0", 5, "e1"); err == nil || !strings.Contains(err.Error(), "nodes 0..0") {
		t.Errorf("unknown node: %v", err)
	}
	if _, err := g.AddLink(a, "e0", a, "e1"); err == nil || !strings.Contains(err.Error(), "itself") {
		t.Errorf("self link: %v", err)
	}
	// A table for a host or an unknown origin is empty, not a panic.
	h := g.AddNode("h", Host, 0)
	mustLink(g, h, "eth0", a, "e0")
	for _, o := range []int32{h, -1, 9} {
		tb := g.Routes(o, nil)
		if tb.Reachable(a) {
			t.Errorf("origin %d: a has a route", o)
		}
	}
}

// refRoutes is eBGP as routers run it, written plainly: every round each
// switch looks at the AS path each neighbour advertised in the previous
// round, drops those holding its own ASN, takes the shortest (ties to the
// lowest router id) and advertises it with its ASN in front, until no
// advertisement changes. Its result must be Routes'.
func refRoutes(g *Graph, origin int32, down Down, t *testing.T) (paths [][]uint64, next [][]int32) {
	n := g.Nodes()
	paths = make([][]uint64, n)
	paths[origin] = []uint64{g.asnKey(origin)}
	up := func(p int32) bool { return down == nil || !down(LinkOf(p)) }
	for round := 0; ; round++ {
		if round > 4*n+10 {
			t.Fatalf("path vector did not converge in %d rounds", round)
		}
		nextPaths := make([][]uint64, n)
		nextPaths[origin] = paths[origin]
		for v := int32(0); v < int32(n); v++ {
			if v == origin || g.NodeKind(v) != Switch {
				continue
			}
			best := int32(-1)
			for _, q := range g.NodePorts(v) {
				u := g.PortNode(Peer(q))
				pu := paths[u]
				if !up(q) || g.NodeKind(u) != Switch || pu == nil || slices.Contains(pu, g.asnKey(v)) {
					continue
				}
				if best < 0 || len(pu) < len(paths[best]) || len(pu) == len(paths[best]) && u < best {
					best = u
				}
			}
			if best >= 0 {
				nextPaths[v] = append([]uint64{g.asnKey(v)}, paths[best]...)
			}
		}
		same := true
		for v := range paths {
			if !slices.Equal(paths[v], nextPaths[v]) {
				same = false
			}
		}
		paths = nextPaths
		if same {
			break
		}
	}
	next = make([][]int32, n)
	for v := int32(0); v < int32(n); v++ {
		if v == origin || paths[v] == nil {
			continue
		}
		for _, q := range g.NodePorts(v) {
			u := g.PortNode(Peer(q))
			pu := paths[u]
			if up(q) && g.NodeKind(u) == Switch && pu != nil && !slices.Contains(pu, g.asnKey(v)) && len(pu)+1 == len(paths[v]) {
				next[v] = append(next[v], q)
			}
		}
	}
	return paths, next
}

// Routes agrees with a round-by-round exchange of BGP updates on random
// graphs: random links (parallel ones too), ASNs drawn from a small pool
// so that many switches share one, some unset, random links down.
func TestRoutesMatchPathVector(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		g := &Graph{}
		nodes := 2 + rng.IntN(24)
		for i := range nodes {
			kind := Switch
			if rng.IntN(5) == 0 {
				kind = Host
			}
			asn := uint32(0)
			if rng.IntN(4) > 0 {
				asn = uint32(65000 + rng.IntN(1+nodes/3))
			}
			g.AddNode(fmt.Sprint("n", i), kind, asn)
		}
		edges := nodes + rng.IntN(3*nodes)
		for e := range edges {
			a, b := int32(rng.IntN(nodes)), int32(rng.IntN(nodes))
			if a == b {
				continue
			}
			mustLink(g, a, fmt.Sprint("Ethernet", rng.IntN(64), ".", e), b, fmt.Sprint("Ethernet", e))
		}
		var down []int32
		for l := range int32(g.Links()) {
			if rng.IntN(6) == 0 {
				down = append(down, l)
			}
		}
		for o := int32(0); o < int32(nodes); o++ {
			tb := g.Routes(o, downSet(down...))
			paths, next := refRoutes(g, o, downSet(down...), t)
			for v := int32(0); v < int32(nodes); v++ {
				if g.NodeKind(o) != Switch {
					if tb.Reachable(v) {
						t.Fatalf("seed %d: origin %d is a host but %d has a route", seed, o, v)
					}
					continue
				}
				if tb.PathLen(v) != len(paths[v]) {
					t.Fatalf("seed %d origin %d node %d: path length %d, path vector %v", seed, o, v, tb.PathLen(v), paths[v])
				}
				if v != o && !slices.Equal(tb.NextHops(v), next[v]) {
					t.Fatalf("seed %d origin %d node %d: next hops %v, path vector %v", seed, o, v, tb.NextHops(v), next[v])
				}
				if paths[v] != nil && v != o {
					got := g.ASPath(tb, v)
					for i := range got {
						if key := paths[v][i]; key < 1<<32 && uint64(got[i]) != key || key >= 1<<32 && got[i] != 0 {
							t.Fatalf("seed %d origin %d node %d: AS path %v, path vector %v", seed, o, v, got, paths[v])
						}
					}
				}
			}
		}
	}
}

// Without ASNs, Routes is hop-count shortest paths (what a BFS gives).
func TestNoASNIsShortestPath(t *testing.T) {
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 9))
		g := &Graph{}
		n := 3 + rng.IntN(20)
		for i := range n {
			g.AddNode(fmt.Sprint("s", i), Switch, 0)
		}
		for e := range 2 * n {
			a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
			if a != b {
				mustLink(g, a, fmt.Sprint("p", e), b, fmt.Sprint("q", e))
			}
		}
		for o := int32(0); o < int32(n); o++ {
			a, b := g.Routes(o, nil), g.ShortestPaths(o, nil)
			for v := int32(0); v < int32(n); v++ {
				if a.PathLen(v) != b.PathLen(v) || !slices.Equal(a.NextHops(v), b.NextHops(v)) {
					t.Fatalf("seed %d: Routes and ShortestPaths differ at node %d towards %d", seed, v, o)
				}
			}
		}
	}
}

// One destination on a fabric of labctl's largest catalog size: 256
// leaves, 16 spines with 4 parallel links each.
func BenchmarkRoutes(b *testing.B) {
	g, id := clos(256, 16, 4, shared)
	b.ResetTimer()
	for b.Loop() {
		g.Routes(id["leaf7"], nil)
	}
}
