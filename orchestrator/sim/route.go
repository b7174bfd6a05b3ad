package sim

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/labctl/labctl/orchestrator/routing"
)

// Routing: every switch forwards on the routes the fabric's eBGP underlay
// converges to (package routing: shortest AS path, ECMP over every equal
// one, no path holding the switch's own ASN), computed in the switch's own
// view of the failed links (faults.go), and picks among equal-cost ports
// by the packet's flow hash and its seed (routing.ECMPIndex), as `labctl
// trace` does on the same routes.

// routeTo returns each switch's equal-cost egress ports towards NIC dst
// (empty at the NIC's own leaf, which delivers through localHop). Tables
// are computed when a packet first needs them and dropped when a switch's
// view changes. The destination is the prefix the NIC's leaf originates:
// every NIC of a leaf shares the leaf's table, unless the NIC's own link
// has a fault, since then the views disagree about whether the leaf
// originates it.
func (s *sim) routeTo(dst int32) [][]int32 {
	if t := s.routes[dst]; t != nil {
		return t
	}
	ap := s.ports[dst].peer
	leaf := s.ports[ap].node
	if s.nodes[leaf].kind != Switch {
		// A NIC wired to a NIC: no switch routes towards it.
		s.routes[dst] = make([][]int32, len(s.nodes))
		return s.routes[dst]
	}
	shared := s.portFault == nil || s.portFault[ap] < 0
	if shared && s.leafRoutes[leaf] != nil {
		s.routes[dst] = s.leafRoutes[leaf]
		return s.routes[dst]
	}
	views, viewOf := s.viewsOf()
	tables := make([]*routing.Table, len(views))
	for vi, mask := range views {
		if !shared && s.blocked(mask, ap) {
			continue // in this view the leaf does not originate the NIC
		}
		tables[vi] = s.rt.Routes(leaf, s.downIn(mask))
	}
	table := make([][]int32, len(s.nodes))
	for u := range s.nodes {
		vi := 0
		if viewOf != nil {
			vi = viewOf[u]
		}
		if tables[vi] != nil && s.nodes[u].kind == Switch {
			table[u] = tables[vi].NextHops(int32(u))
		}
	}
	s.routes[dst] = table
	if shared {
		s.leafRoutes[leaf] = table
	}
	return table
}

// downIn is the links a view (a mask of fault links) has down, for
// package routing; nil for none.
func (s *sim) downIn(mask uint64) routing.Down {
	if mask == 0 {
		return nil
	}
	return func(l int32) bool { return s.blocked(mask, 2*l) }
}

// localHop is the one candidate of switch n towards NIC dst when n is
// the NIC's leaf: the NIC's port, unless n's view has that link down.
// Nil otherwise: n has no route.
func (s *sim) localHop(n, dst int32) []int32 {
	ap := s.peerOf[dst]
	if s.ports[ap].node != n || s.nodeView != nil && s.blocked(s.nodeView[n], ap) {
		return nil
	}
	return s.self[ap : ap+1]
}

// nextHops is switch n's candidates towards NIC dst, from its table.
func (s *sim) nextHops(table [][]int32, n, dst int32) []int32 {
	if c := table[n]; len(c) > 0 {
		return c
	}
	return s.localHop(n, dst)
}

// ecmpPick chooses among equal-cost ports by the packet's flow hash and
// the switch's seed, as `labctl trace` chooses.
func ecmpPick(cands []int32, h, seed uint64) int32 {
	if len(cands) == 1 {
		return cands[0]
	}
	return cands[routing.ECMPIndex(len(cands), h, seed)]
}

// flowHashes are the ECMP hashes of a QP's data packets and of its ACKs,
// NAKs and CNPs, from Config.KeyHash or the NIC names.
func (s *sim) flowHashes(src, dst int32, sport int) (fwd, rev uint64) {
	a, b := s.ports[src].ref.String(), s.ports[dst].ref.String()
	if kh := s.cfg.KeyHash; kh != nil {
		return kh(FlowKey{Src: a, Dst: b, SrcPort: sport, DstPort: RoCEv2Port}), kh(FlowKey{Src: b, Dst: a, SrcPort: RoCEv2Port, DstPort: sport})
	}
	spS := strconv.Itoa(sport)
	return hashString(a, b, spS, "4791", "17"), hashString(b, a, "4791", spS, "17")
}

// walk follows the routing of hash h from NIC src towards NIC dst with the
// routes as they are now, calling visit with every switch and the port it
// sends on. It returns the node it stopped at, or -1 when it arrived: a
// switch without a route (or a host), or a switch reached twice (loop:
// a loop while views disagree; visit has then seen that switch twice).
func (s *sim) walk(src, dst int32, h uint64, visit func(n, out int32)) (at int32, loop bool) {
	table := s.routeTo(dst)
	cur := s.ports[src].peer
	var seen []int32
	for cur != dst {
		n := s.ports[cur].node
		if s.nodes[n].kind != Switch {
			return n, false
		}
		cands := s.nextHops(table, n, dst)
		if len(cands) == 0 {
			return n, false
		}
		out := ecmpPick(cands, h, s.nodes[n].seed)
		if visit != nil {
			visit(n, out)
		}
		if slices.Contains(seen, n) {
			return n, true
		}
		seen = append(seen, n)
		cur = s.ports[out].peer
	}
	return -1, false
}

// reaches checks that hash h gets from NIC src to NIC dst.
func (s *sim) reaches(src, dst int32, h uint64) error {
	if at, loop := s.walk(src, dst, h, nil); at >= 0 {
		how := "stuck at"
		if loop {
			how = "in a loop through"
		}
		return fmt.Errorf("no path from %s to %s (%s %s)", s.ports[src].ref, s.ports[dst].ref, how, s.nodes[at].name)
	}
	return nil
}

// tracePath is walk's path: the nodes from NIC src's host on (to its
// destination's host when it arrives, to the switch without a route or
// once round a loop when not) and each switch's egress port
// ("node:port"); ok is whether it arrives.
func (s *sim) tracePath(src, dst int32, h uint64) (path, route []string, ok bool) {
	path = []string{s.nodes[s.ports[src].node].name}
	at, loop := s.walk(src, dst, h, func(n, out int32) {
		path = append(path, s.nodes[n].name)
		route = append(route, s.ports[out].ref.String())
	})
	switch {
	case at < 0:
		return append(path, s.nodes[s.ports[dst].node].name), route, true
	case !loop:
		path = append(path, s.nodes[at].name)
	}
	return path, route, false
}

// pathCache shares the traced path of the flows that have the same ends
// and hash (the QPs of a flow with one source port, repeated flows).
type pathCache map[pathKey]tracedPath

type pathKey struct {
	src, dst int32
	h        uint64
}

type tracedPath struct{ path, route []string }

func (c pathCache) get(s *sim, src, dst int32, h uint64) ([]string, []string, error) {
	k := pathKey{src, dst, h}
	if p, ok := c[k]; ok {
		return p.path, p.route, nil
	}
	path, route, ok := s.tracePath(src, dst, h)
	if !ok {
		return nil, nil, s.reaches(src, dst, h)
	}
	c[k] = tracedPath{path, route}
	return path, route, nil
}
