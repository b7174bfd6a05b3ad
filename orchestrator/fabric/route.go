package fabric

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/routing"
)

// Router is the graph's underlay as package routing computes it: every
// node with its ASN, in graph order (the order loopbacks, and so BGP router
// ids, are numbered in), and every plan link as its own link, so that the
// members of a merged lab link are parallel BGP sessions and ECMP
// candidates, named as the simulator names them (MemberPort). The
// simulator builds the same routing graph from its own topology, so the
// two route alike.
type Router struct {
	g      *Graph
	rg     *routing.Graph
	node   map[string]int32
	member []LinkMember // per routing link
	first  []int32      // per lab link: the routing link of member 0
}

// NewRouter builds the graph's routing view. It fails only on an
// inconsistent graph (a link to an unknown node).
func (g *Graph) NewRouter() (*Router, error) {
	r := &Router{g: g, rg: &routing.Graph{}, node: make(map[string]int32, len(g.Nodes)), first: make([]int32, len(g.Links))}
	for _, n := range g.Nodes {
		kind := routing.Switch
		if n.Role == RoleHost {
			kind = routing.Host
		}
		r.node[n.Name] = r.rg.AddNode(n.Name, kind, n.ASN)
	}
	for i, lk := range g.Links {
		a, okA := r.node[lk.A.Node]
		b, okB := r.node[lk.B.Node]
		if !okA || !okB {
			return nil, fmt.Errorf("routing graph of lab %s: link %d joins %s and %s, not both nodes of the graph (graph is inconsistent)", g.Name, lk.ID, lk.A.Node, lk.B.Node)
		}
		for m := range lk.Members() {
			l, err := r.rg.AddLink(a, MemberPort(lk.A.Port, m), b, MemberPort(lk.B.Port, m))
			if err != nil {
				return nil, fmt.Errorf("routing graph of lab %s: %w", g.Name, err)
			}
			if m == 0 {
				r.first[i] = l
			}
			r.member = append(r.member, LinkMember{Link: i, Member: m})
		}
	}
	return r, nil
}

// down turns plan links into the routing graph's down set.
func (r *Router) down(members []LinkMember) (routing.Down, error) {
	if len(members) == 0 {
		return nil, nil
	}
	set := make([]bool, len(r.member))
	for _, lm := range members {
		if lm.Link < 0 || lm.Link >= len(r.g.Links) || lm.Member < 0 || lm.Member >= r.g.Links[lm.Link].Members() {
			return nil, fmt.Errorf("link %d member %d is not a plan link of lab %s", lm.Link, lm.Member, r.g.Name)
		}
		set[int(r.first[lm.Link])+lm.Member] = true
	}
	return func(l int32) bool { return set[l] }, nil
}

// UnreachableError is a trace whose destination cannot be reached with
// the links down that it was given; Path holds the hops up to the switch
// without a route and Path.Unreachable why.
type UnreachableError struct{ Path Path }

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s -> %s is unreachable: %s", e.Path.Src, e.Path.Dst, e.Path.Unreachable)
}

// Trace follows a flow from src to dst: at every switch with several
// equal-cost next hops it picks FlowHash(flow, SwitchSeed(switch)) modulo
// the number of candidates, counting each member of a merged link as its own
// candidate so that the choice is the one the plan's real links would see.
// It is TraceWithSeed with seed 0.
func (g *Graph) Trace(src, dst Endpoint, flow FlowKey) (Path, error) {
	return g.TraceWithSeed(src, dst, flow, 0)
}

// TraceWithSeed is Trace with a fabric-wide hash seed (see ECMPSeed).
func (g *Graph) TraceWithSeed(src, dst Endpoint, flow FlowKey, seed uint64) (Path, error) {
	return g.TraceDown(src, dst, flow, seed, nil)
}

// TraceDown is TraceWithSeed once the underlay has converged with the plan
// links down taken out (LinkMembers names them as faults do). A
// destination that eBGP cannot reach gives an *UnreachableError.
func (g *Graph) TraceDown(src, dst Endpoint, flow FlowKey, seed uint64, down []LinkMember) (Path, error) {
	r, err := g.NewRouter()
	if err != nil {
		return Path{}, err
	}
	return r.Trace(src, dst, flow, seed, down)
}

// Trace is Graph.TraceDown on a router built once, for callers that trace
// many flows.
func (r *Router) Trace(src, dst Endpoint, flow FlowKey, seed uint64, down []LinkMember) (Path, error) {
	g := r.g
	if src == dst {
		return Path{}, fmt.Errorf("source and destination are the same NIC %s", src)
	}
	sp, err := g.port(src)
	if err != nil {
		return Path{}, fmt.Errorf("trace source: %w", err)
	}
	dp, err := g.port(dst)
	if err != nil {
		return Path{}, fmt.Errorf("trace destination: %w", err)
	}
	isDown, err := r.down(down)
	if err != nil {
		return Path{}, fmt.Errorf("trace %s -> %s: %w", src, dst, err)
	}
	path := Path{Src: src, Dst: dst, Flow: flow}
	for _, lm := range down {
		path.Down = append(path.Down, g.MemberName(lm))
	}
	if sp.Link < 0 || sp.Link >= len(g.Links) || dp.Link < 0 || dp.Link >= len(g.Links) {
		return Path{}, fmt.Errorf("trace %s -> %s: a host port names no valid link (graph is inconsistent)", src, dst)
	}
	first, dstLink := g.Links[sp.Link], g.Links[dp.Link]
	cur, ok := r.node[first.B.Node]
	origin, okO := r.node[dstLink.B.Node]
	if !ok || !okO || r.rg.NodeKind(cur) != routing.Switch || r.rg.NodeKind(origin) != routing.Switch {
		return Path{}, fmt.Errorf("trace %s -> %s: a host link does not end at a switch (graph is inconsistent)", src, dst)
	}
	unreachable := func(why string) (Path, error) {
		path.Unreachable = why
		path.SwitchHops, path.EndToEndHops = len(path.Hops), len(path.Links)
		return path, &UnreachableError{Path: path}
	}
	if isDown != nil && isDown(r.first[first.ID]) {
		return unreachable(fmt.Sprintf("the source NIC's link to %s is down", first.B.Node))
	}
	path.Links = append(path.Links, first.ID)
	in := first.B.Port
	table := r.rg.Routes(origin, isDown)
	for range len(g.Nodes) + 1 { // a converged route has no loop
		name := r.rg.NodeName(cur)
		hop := Hop{Node: name, Role: g.Node(name).Role, In: in}
		if cur == origin {
			if isDown != nil && isDown(r.first[dstLink.ID]) {
				return unreachable(fmt.Sprintf("the destination NIC's link to %s is down", name))
			}
			hop.Candidates = []Candidate{{Port: dstLink.B.Port, Peer: dst.Host, Member: 1, Merged: 1, Link: dstLink.ID}}
			hop.Out = dstLink.B.Port
			hop.ASPath = r.ribPath(table, cur)
			path.Hops = append(path.Hops, hop)
			path.Links = append(path.Links, dstLink.ID)
			path.SwitchHops = len(path.Hops)
			path.EndToEndHops = len(path.Links)
			return path, nil
		}
		next := table.NextHops(cur)
		if len(next) == 0 {
			path.Hops = append(path.Hops, hop)
			return unreachable(r.explain(cur, origin, isDown))
		}
		for _, p := range next {
			lm := r.member[routing.LinkOf(p)]
			lk := g.Links[lm.Link]
			c := Candidate{Port: lk.A.Port, Peer: lk.B.Node, Member: lm.Member + 1, Merged: lk.Members(), Link: lk.ID}
			if lk.A.Node != name {
				c.Port, c.Peer = lk.B.Port, lk.A.Node
			}
			hop.Candidates = append(hop.Candidates, c)
		}
		if len(next) > 1 {
			s := ECMPSeed(name, seed)
			hop.Hash = FlowHash(flow, s)
			hop.Chosen = routing.ECMPIndex(len(next), KeyHash(flow), s)
		}
		c := hop.Candidates[hop.Chosen]
		hop.Out = c.Port
		hop.ASPath = r.ribPath(table, cur)
		path.Hops = append(path.Hops, hop)
		path.Links = append(path.Links, c.Link)
		peer := routing.Peer(next[hop.Chosen])
		cur = r.rg.PortNode(peer)
		lk := g.Links[c.Link]
		in = lk.A.Port
		if lk.A.Node != r.rg.NodeName(cur) {
			in = lk.B.Port
		}
	}
	return Path{}, fmt.Errorf("trace %s -> %s: the route loops (graph is inconsistent)", src, dst)
}

// ribPath is the AS path of the route switch n holds towards the table's
// origin, as its RIB shows it: the path its best neighbour advertised,
// without n's own ASN (a router prepends that only when it advertises the
// route onwards). Empty, not nil, at the origin, whose prefix is
// connected; nil without a route.
func (r *Router) ribPath(t *routing.Table, n int32) []uint32 {
	p := r.rg.ASPath(t, n)
	if p == nil {
		return nil
	}
	return p[1:]
}

// explain says why switch stuck has no route towards origin's prefixes:
// nothing is left of the links, or a path is left that eBGP rejects.
func (r *Router) explain(stuck, origin int32, down routing.Down) string {
	name, dst := r.rg.NodeName(stuck), r.rg.NodeName(origin)
	sp := r.rg.ShortestPaths(origin, down)
	if !sp.Reachable(stuck) {
		return fmt.Sprintf("%s has no route towards %s: no path of links that are up joins them", name, dst)
	}
	nodes := []int32{stuck}
	for x := stuck; x != origin && len(nodes) <= r.rg.Nodes(); {
		x = r.rg.PortNode(routing.Peer(sp.NextHops(x)[0]))
		nodes = append(nodes, x)
	}
	var names []string
	for _, x := range nodes {
		names = append(names, r.rg.NodeName(x))
	}
	left := strings.Join(names, " -> ")
	for i, x := range nodes {
		for _, y := range nodes[i+1:] {
			if a := r.rg.NodeASN(x); a != 0 && a == r.rg.NodeASN(y) {
				return fmt.Sprintf("%s has no BGP route towards %s: the shortest path left, %s, crosses AS %d twice (%s and %s), and eBGP's AS-path loop prevention rejects a path that holds a router's own ASN; with one ASN per spine tier (RFC 7938) routes never go down to a leaf and up again, so such failures partition the fabric",
					name, dst, left, a, r.rg.NodeName(x), r.rg.NodeName(y))
			}
		}
	}
	return fmt.Sprintf("%s has no BGP route towards %s: a path is left (%s) but every neighbour advertises only its best path, and each of those holds %s's ASN", name, dst, left, name)
}

// DownByName reads `labctl trace --down` names: "node:port" (one plan
// link, ".m" for member m of a merged one) or "nodeA-nodeB" (every link
// between the two nodes, as a fault with all: true).
func (g *Graph) DownByName(names []string) ([]LinkMember, error) {
	var out []LinkMember
	for _, n := range names {
		lms, err := g.LinkMembers(n, !strings.Contains(n, ":"))
		if err != nil {
			return nil, err
		}
		out = append(out, lms...)
	}
	return out, nil
}

// ValleyPathRisk lists where the graph's ASN plan lets eBGP route through a
// valley once links fail: a switch whose upper neighbours (a leaf's
// spines, a spine's super-spines) have different ASNs can be crossed from
// one of them to another (leaf1 -> spine1 -> leaf3 -> spine2 -> leaf2),
// because no ASN repeats on that path. Such detours carry traffic over
// links sized for one hop, and while routes converge they can close loops
// that PFC turns into deadlocks. With RFC 7938's plan (one ASN per spine
// tier of a pod, one for the super-spines) the list is empty: the same
// failures partition the fabric instead. One finding per tier and pod.
func (g *Graph) ValleyPathRisk() []string {
	type group struct {
		role   Role
		pod    int
		asns   map[uint32]bool
		via    int // switches below that see several ASNs above
		sample string
	}
	var groups []*group
	find := func(role Role, pod int) *group {
		for _, gr := range groups {
			if gr.role == role && gr.pod == pod {
				return gr
			}
		}
		gr := &group{role: role, pod: pod, asns: map[uint32]bool{}}
		groups = append(groups, gr)
		return gr
	}
	for _, n := range g.Nodes {
		var up Role
		switch n.Role {
		case RoleLeaf:
			up = RoleSpine
		case RoleSpine:
			up = RoleSuperSpine
		default:
			continue
		}
		asns := map[uint32]bool{}
		for _, p := range n.Ports {
			if peer := g.Node(p.Peer); peer != nil && peer.Role == up && peer.ASN != 0 {
				asns[peer.ASN] = true
			}
		}
		if len(asns) < 2 {
			continue
		}
		pod := n.Pod
		if up == RoleSuperSpine {
			pod = 0
		}
		gr := find(up, pod)
		for a := range asns {
			gr.asns[a] = true
		}
		gr.via++
		if gr.sample == "" {
			gr.sample = n.Name
		}
	}
	var out []string
	for _, gr := range groups {
		where := "the spines"
		if gr.role == RoleSuperSpine {
			where = "the super-spines"
		}
		if gr.pod > 0 && g.Tiers == 3 {
			where += " of pod " + strconv.Itoa(gr.pod)
		}
		below, fix := "leaves", "give them one ASN (lab spec bgp.spine_asn: shared, RFC 7938)"
		if gr.role == RoleSuperSpine {
			// labctl always gives super-spines one ASN: only an edited
			// graph gets here.
			below, fix = "spines", "give them one ASN, as RFC 7938 does"
		}
		out = append(out, fmt.Sprintf("%s have %d different ASNs (%s): after a link failure eBGP may route down to one of the %d %s below them and up again (a valley path, e.g. through %s), which loads links sized for one hop and, while routes converge, can close a loop that PFC freezes into a deadlock; %s",
			where, len(gr.asns), asnRange(gr.asns), gr.via, below, gr.sample, fix))
	}
	return out
}

// asnRange shows a set of ASNs as its lowest and highest.
func asnRange(set map[uint32]bool) string {
	lo, hi := ^uint32(0), uint32(0)
	for a := range set {
		lo, hi = min(lo, a), max(hi, a)
	}
	return strconv.FormatUint(uint64(lo), 10) + ".." + strconv.FormatUint(uint64(hi), 10)
}

// IsUnreachable reports whether err is a trace's unreachable destination,
// and gives its path.
func IsUnreachable(err error) (Path, bool) {
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return ue.Path, true
	}
	return Path{}, false
}
