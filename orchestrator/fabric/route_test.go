package fabric

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/routing"
	"github.com/labctl/labctl/orchestrator/sizing"
)

// perSpineGraph is a catalog lab with bgp.spine_asn: per-spine.
func perSpineGraph(t *testing.T, name string) *Graph {
	t.Helper()
	sp, err := lab.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	s := *sp
	s.BGP.SpineASN = lab.SpineASNPerSpine
	g, _ := computedGraph(t, &s, s.Sizing)
	return g
}

func traceDown(t *testing.T, g *Graph, src, dst string, down ...string) (Path, error) {
	t.Helper()
	s, err := g.ParseEndpoint(src)
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.ParseEndpoint(dst)
	if err != nil {
		t.Fatal(err)
	}
	k, err := g.FlowKeyFor(s, d, 0)
	if err != nil {
		t.Fatal(err)
	}
	lms, err := g.DownByName(down)
	if err != nil {
		t.Fatal(err)
	}
	return g.TraceDown(s, d, k, 1, lms)
}

func nodesOf(p Path) string { return strings.Join(p.Nodes(), " ") }

// The hash a trace shows is the key's hash mixed with the switch seed, and
// the candidate it takes is that hash modulo the candidates: the
// decomposition the simulator relies on to pick the same one.
func TestFlowHashDecomposes(t *testing.T) {
	g, _ := catalogGraph(t, "128gpu", NOSSonic)
	src, _ := g.GPU(0)
	for gpu := 32; gpu < 128; gpu += 7 {
		dst, _ := g.GPU(gpu)
		for _, sport := range []uint16{49152, 50000, 61234} {
			k, _ := g.FlowKeyFor(src, dst, sport)
			for _, seed := range []uint64{0, 1, 42} {
				p, err := g.TraceWithSeed(src, dst, k, seed)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range p.Hops {
					if len(h.Candidates) < 2 {
						continue
					}
					s := ECMPSeed(h.Node, seed)
					if h.Hash != FlowHash(k, s) || FlowHash(k, s) != routing.Mix64(KeyHash(k)^s) {
						t.Fatalf("%s: hash %#x, FlowHash %#x, Mix64(KeyHash^seed) %#x", h.Node, h.Hash, FlowHash(k, s), routing.Mix64(KeyHash(k)^s))
					}
					if h.Chosen != int(h.Hash%uint64(len(h.Candidates))) {
						t.Fatalf("%s: chose %d of %d with hash %#x", h.Node, h.Chosen, len(h.Candidates), h.Hash)
					}
				}
			}
		}
	}
}

// 128gpu: 4 leaves, 2 spines, 8 links from every leaf to every spine.
// Down links leave the path to the spines that are still reachable;
// leaf1 cut off from spine1 and leaf2 from spine2 partitions the two
// under RFC 7938's shared spine ASN, and routes through a valley with
// an ASN per spine.
func TestTraceAfterFailures(t *testing.T) {
	g, _ := catalogGraph(t, "128gpu", NOSSonic)
	p, err := traceDown(t, g, "host1:0", "host5:0")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hops[0].Candidates) != 16 || len(p.Down) != 0 {
		t.Fatalf("no failure: %d candidates at leaf1, down %v", len(p.Hops[0].Candidates), p.Down)
	}
	// What leaf1's RIB holds: spine's AS, then leaf2's; not leaf1's own
	// 65101, which it adds only when advertising. leaf2's route to its
	// own host is connected: no AS path.
	if got := fmt.Sprint(p.Hops[0].ASPath); got != "[65000 65102]" {
		t.Errorf("leaf1's AS path %s", got)
	}
	if got := p.Hops[2].ASPath; got == nil || len(got) != 0 {
		t.Errorf("leaf2's AS path to its own host %v, want empty", got)
	}

	p, err = traceDown(t, g, "host1:0", "host5:0", "leaf1-spine1")
	if err != nil {
		t.Fatal(err)
	}
	if nodesOf(p) != "host1 leaf1 spine2 leaf2 host5" || len(p.Hops[0].Candidates) != 8 || len(p.Down) != 8 {
		t.Errorf("leaf1-spine1 down: path %s, %d candidates at leaf1, %d links down", nodesOf(p), len(p.Hops[0].Candidates), len(p.Down))
	}
	for _, c := range p.Hops[0].Candidates {
		if c.Peer != "spine2" {
			t.Errorf("candidate %s with leaf1-spine1 down", c)
		}
	}
	// One member down: the other 15 stay candidates.
	lk := g.LinksBetween("leaf1", "spine1")[3]
	p, err = traceDown(t, g, "host1:0", "host5:0", "leaf1:"+lk.A.Port)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Hops[0].Candidates); n != 15 || slices.ContainsFunc(p.Hops[0].Candidates, func(c Candidate) bool { return c.Link == lk.ID }) {
		t.Errorf("one link down: %d candidates, or the down one among them", n)
	}

	// The deadlock scenario's pattern, shared spine ASN: unreachable.
	_, err = traceDown(t, g, "host1:0", "host5:0", "leaf1-spine1", "leaf2-spine2")
	up, ok := IsUnreachable(err)
	if !ok {
		t.Fatalf("leaf1-spine1 and leaf2-spine2 down: %v, want unreachable", err)
	}
	// The hops go as far as the switch without a route: leaf1 itself.
	if nodesOf(up) != "host1 leaf1" || up.SwitchHops != 1 || up.Unreachable == "" {
		t.Errorf("partial path %s (%d switch hops), reason %q", nodesOf(up), up.SwitchHops, up.Unreachable)
	}
	for _, want := range []string{"AS 65000 twice", "spine2 and spine1", "RFC 7938", "leaf1 -> spine2 -> leaf3 -> spine1 -> leaf2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("unreachable reason lacks %q: %v", want, err)
		}
	}
	// Other leaves still reach leaf2, over spine1 only.
	p, err = traceDown(t, g, "host9:0", "host5:0", "leaf1-spine1", "leaf2-spine2")
	if err != nil || nodesOf(p) != "host9 leaf3 spine1 leaf2 host5" {
		t.Errorf("leaf3 -> leaf2: %s, %v", nodesOf(p), err)
	}

	// An ASN per spine: the valley path is accepted.
	ps := perSpineGraph(t, "128gpu")
	p, err = traceDown(t, ps, "host1:0", "host5:0", "leaf1-spine1", "leaf2-spine2")
	if err != nil {
		t.Fatal(err)
	}
	if p.SwitchHops != 5 || p.EndToEndHops != 6 || p.Hops[1].Node != "spine2" || p.Hops[3].Node != "spine1" || p.Hops[2].Role != RoleLeaf {
		t.Errorf("per-spine ASNs: path %s (%d/%d hops), want a valley leaf1 spine2 leaf spine1 leaf2", nodesOf(p), p.SwitchHops, p.EndToEndHops)
	}
	if got := p.Hops[0].ASPath; len(got) != 4 || got[0] != 65002 || got[2] != 65001 {
		t.Errorf("valley AS path %v", got)
	}
	// spine2 spreads the detour over both other leaves.
	if peers := candidatePeers(p.Hops[1]); peers != "leaf3 leaf4" {
		t.Errorf("spine2 detours through %s", peers)
	}

	// Host links: the destination NIC's own link down.
	_, err = traceDown(t, g, "host1:0", "host5:0", "host5:eth1")
	if _, ok := IsUnreachable(err); !ok || !strings.Contains(err.Error(), "destination NIC's link") {
		t.Errorf("destination link down: %v", err)
	}
	_, err = traceDown(t, g, "host1:0", "host5:0", "host1:eth1")
	if _, ok := IsUnreachable(err); !ok || !strings.Contains(err.Error(), "source NIC's link") {
		t.Errorf("source link down: %v", err)
	}
	if _, err := g.DownByName([]string{"leaf1-spine9"}); err == nil || !strings.Contains(err.Error(), "node-node") {
		t.Errorf("unknown link: %v", err)
	}
	// A node's name where a link is wanted: the form, and the node's links,
	// switches first.
	if _, err := g.DownByName([]string{"leaf1"}); err == nil || !strings.Contains(err.Error(), "leaf1 is a node, where a link is wanted as <node>-<node>") ||
		!strings.Contains(err.Error(), "fix: name one of leaf1's links: leaf1-spine1, leaf1-spine2") {
		t.Errorf("node for a link: %v", err)
	}
}

func candidatePeers(h Hop) string {
	var out []string
	for _, c := range h.Candidates {
		if !slices.Contains(out, c.Peer) {
			out = append(out, c.Peer)
		}
	}
	return strings.Join(out, " ")
}

// Three tiers: a cross-pod path climbs to a super-spine of its spine's
// plane; a spine that loses its super-spine links is routed around (the
// leaf stops using it for other pods), and within the pod nothing changes.
func TestTraceThreeTierFailures(t *testing.T) {
	g, err := Build(spec("t3", NOSSonic), threeTier())
	if err != nil {
		t.Fatal(err)
	}
	p, err := traceDown(t, g, "host1", "host4")
	if err != nil {
		t.Fatal(err)
	}
	if p.SwitchHops != 5 || len(p.Hops[0].Candidates) != 4 || len(p.Hops[0].ASPath) != 4 {
		t.Fatalf("cross pod: %s, %d candidates at the leaf, AS path %v", nodesOf(p), len(p.Hops[0].Candidates), p.Hops[0].ASPath)
	}
	p, err = traceDown(t, g, "host1", "host4", "spine1-superspine1", "spine1-superspine2")
	if err != nil {
		t.Fatal(err)
	}
	if peers := candidatePeers(p.Hops[0]); peers != "spine2" || p.SwitchHops != 5 {
		t.Errorf("spine1 without super-spines: leaf1 goes up to %s (%s)", peers, nodesOf(p))
	}
	p, err = traceDown(t, g, "host1", "host2", "spine1-superspine1", "spine1-superspine2")
	if err != nil || candidatePeers(p.Hops[0]) != "spine1 spine2" {
		t.Errorf("same pod with spine1's super-spine links down: %s, %v", nodesOf(p), err)
	}
	// The destination pod's spine of plane 1 loses its leaf: plane 1's
	// super-spines cannot come down (pod 2's other spine shares its ASN,
	// so no detour), and the source leaf uses plane 2 only.
	dst, _ := g.ParseEndpoint("host4")
	leaf := g.Node(g.Node(dst.Host).Ports[dst.NIC].Peer)
	var planeOne string
	for _, pt := range leaf.Ports {
		if n := g.Node(pt.Peer); n.Role == RoleSpine && n.Plane == 1 {
			planeOne = n.Name
		}
	}
	p, err = traceDown(t, g, "host1", "host4", leaf.Name+"-"+planeOne)
	if err != nil {
		t.Fatal(err)
	}
	if peers := candidatePeers(p.Hops[0]); peers != "spine2" {
		t.Errorf("%s-%s down: leaf1 goes up to %s (%s)", leaf.Name, planeOne, peers, nodesOf(p))
	}
}

// A merged lab link's members are ECMP candidates of their own, named as
// the simulator names them, and one member can fail alone.
func TestTraceMergedMembers(t *testing.T) {
	g, _ := computedGraph(t, spec("m96", NOSSonic), sizing.Input{GPUs: 96, LeafPorts: 64})
	var merged *Link
	for _, lk := range g.Links {
		if lk.Kind == KindLeafSpine && lk.Merged > 1 {
			merged = lk
			break
		}
	}
	if merged == nil {
		t.Fatalf("96 GPUs on 64-port leaves merge no link: %q", g.ScaleDown)
	}
	src := Endpoint{Host: "host1"}
	var dst Endpoint
	for _, h := range g.Hosts() {
		if g.Node(h.Ports[0].Peer).Name != g.Node("host1").Ports[0].Peer {
			dst = Endpoint{Host: h.Name}
			break
		}
	}
	k, _ := g.FlowKeyFor(src, dst, 0)
	p, err := g.TraceWithSeed(src, dst, k, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := p.Hops[0]
	total := 0
	for _, lk := range g.LinksBetween(h.Node, h.Candidates[0].Peer) {
		total += lk.Members()
	}
	if len(h.Candidates) < total || h.Candidates[0].Merged != merged.Merged {
		t.Fatalf("leaf %s: %d candidates, want every member (%d towards %s)", h.Node, len(h.Candidates), total, h.Candidates[0].Peer)
	}
	// Members in order: member 1, 2, ... of a port before the next port.
	for i := 1; i < len(h.Candidates); i++ {
		a, b := h.Candidates[i-1], h.Candidates[i]
		if a.Port == b.Port && b.Member != a.Member+1 {
			t.Fatalf("candidates out of member order: %v then %v", a, b)
		}
	}
	c := h.Candidates[h.Chosen]
	name := h.Node + ":" + MemberPort(c.Port, c.Member-1)
	p2, err := g.TraceDown(src, dst, k, 1, mustMembers(t, g, name))
	if err != nil {
		t.Fatal(err)
	}
	h2 := p2.Hops[0]
	if len(h2.Candidates) != len(h.Candidates)-1 || slices.Contains(h2.Candidates, c) {
		t.Errorf("%s down: %d candidates (had %d), chosen one still there: %v", name, len(h2.Candidates), len(h.Candidates), slices.Contains(h2.Candidates, c))
	}
	if p2.Down[0] != name && !strings.HasSuffix(name, ":"+c.Port) {
		t.Errorf("down names %v, want %s", p2.Down, name)
	}
}

func mustMembers(t *testing.T, g *Graph, name string) []LinkMember {
	t.Helper()
	lms, err := g.LinkMembers(name, false)
	if err != nil {
		t.Fatal(err)
	}
	return lms
}

// RFC 7938's plan leaves no valley; an ASN per spine is reported once per
// tier and pod, with the fix.
func TestValleyPathRisk(t *testing.T) {
	for _, name := range []string{"16gpu", "64gpu", "128gpu", "1024gpu"} {
		g, _ := catalogGraph(t, name, NOSSonic)
		if r := g.ValleyPathRisk(); len(r) != 0 {
			t.Errorf("%s: %q", name, r)
		}
	}
	g3, _ := Build(spec("t3", NOSSonic), threeTier())
	if r := g3.ValleyPathRisk(); len(r) != 0 {
		t.Errorf("3 tiers: %q", r)
	}
	ps := perSpineGraph(t, "128gpu")
	r := ps.ValleyPathRisk()
	if len(r) != 1 || !strings.Contains(r[0], "the spines have 2 different ASNs (65001..65002)") || !strings.Contains(r[0], "4 leaves") || !strings.Contains(r[0], "bgp.spine_asn: shared") {
		t.Errorf("per-spine 128gpu: %q", r)
	}
	s := spec("t3p", NOSSonic)
	s.BGP.SpineASN = lab.SpineASNPerSpine
	g3p, err := Build(s, threeTier())
	if err != nil {
		t.Fatal(err)
	}
	r = g3p.ValleyPathRisk()
	if len(r) != 2 || !strings.Contains(r[0], "the spines of pod 1 have 2") || !strings.Contains(r[1], "pod 2") {
		t.Errorf("per-spine 3 tiers: %q", r)
	}
	// Super-spines with ASNs of their own are a valley risk one tier up.
	for _, n := range g3.NodesByRole(RoleSuperSpine) {
		n.ASN = 64900 + uint32(n.Index)
	}
	if r := g3.ValleyPathRisk(); len(r) != 1 || !strings.HasPrefix(r[0], "the super-spines have 4 different ASNs (64901..64904)") || !strings.Contains(r[0], "4 spines") || strings.Contains(r[0], "bgp.spine_asn") {
		t.Errorf("super-spines with their own ASNs: %q", r)
	}
}

// bgp.spine_asn: per-spine gives spine k ASN 65000+k, and the rendered
// BGP sessions follow.
func TestPerSpineASNs(t *testing.T) {
	g := perSpineGraph(t, "128gpu")
	for _, n := range g.NodesByRole(RoleSpine) {
		if n.ASN != 65000+uint32(n.Index) {
			t.Errorf("%s has ASN %d", n.Name, n.ASN)
		}
	}
	var cfg strings.Builder
	if err := g.WriteEOSStartup(&cfg, g.Node("leaf1")); err != nil {
		t.Fatal(err)
	}
	for _, asn := range []string{"65001", "65002"} {
		if got := strings.Count(cfg.String(), " remote-as "+asn+"\n"); got != 8 {
			t.Errorf("leaf1 has %d sessions to AS%s, want 8", got, asn)
		}
	}
	// The shared plan is the default: every spine in 65000.
	shared, _ := catalogGraph(t, "128gpu", NOSSonic)
	for _, n := range shared.NodesByRole(RoleSpine) {
		if n.ASN != 65000 {
			t.Errorf("shared plan: %s has ASN %d", n.Name, n.ASN)
		}
	}
	// More spines than 2-byte ASNs hold: 4-byte ASNs for every switch.
	s := spec("ps", NOSSonic)
	s.BGP.SpineASN = lab.SpineASNPerSpine
	big, _ := computedGraph(t, s, sizing.Input{GPUs: 4096, Tiers: 3})
	if n := big.Node("spine100"); n == nil || n.ASN != 4200000100 || big.Node("leaf1").ASN != 4201000001 || big.Node("superspine1").ASN != 4200000000 {
		t.Errorf("per-spine with 128 spines: spine100 %v, leaf1 %d", n, big.Node("leaf1").ASN)
	}
}

// A trace on the largest lab stays quick: the router is built and one
// destination converged per call.
func BenchmarkTrace4096(b *testing.B) {
	g, _ := computedGraph(b, spec("t4096", NOSSonic), sizing.Input{GPUs: 4096, Tiers: 3})
	src, _ := g.GPU(0)
	dst, _ := g.GPU(4095)
	k, _ := g.FlowKeyFor(src, dst, 0)
	for b.Loop() {
		if _, err := g.TraceWithSeed(src, dst, k, 1); err != nil {
			b.Fatal(err)
		}
	}
}
