package routing

// Down reports whether link l is down; nil means every link is up.
type Down func(l int32) bool

// Table is the converged routing towards the prefixes one switch (the
// origin) originates: per node its equal-cost next hops, the length of its
// best AS path and the neighbour that path came from.
type Table struct {
	origin int32
	next   [][]int32
	// plen is the AS-path length of a node's best path, the origin's own
	// ASN counted (1 at the origin); 0: no route.
	plen []int32
	// parent is the neighbour the best (advertised) path was learned
	// from; -1 at the origin and without a route.
	parent []int32
}

// Origin is the switch whose prefixes the table routes towards.
func (t *Table) Origin() int32 { return t.origin }

// NextHops are switch n's equal-cost egress ports towards the origin, in
// canonical order (nil at the origin, which delivers locally, and where
// there is no route). The slice is the table's own: do not modify it.
func (t *Table) NextHops(n int32) []int32 { return t.next[n] }

// Reachable reports whether node n has a route (the origin has).
func (t *Table) Reachable(n int32) bool { return t.plen[n] > 0 }

// PathLen is the number of ASes on n's best path, its own and the
// origin's included (3 from a leaf across one spine tier to another
// leaf); 0 without a route.
func (t *Table) PathLen(n int32) int { return int(t.plen[n]) }

// BestFrom is the neighbour whose path n advertises onwards (-1 at the
// origin and without a route).
func (t *Table) BestFrom(n int32) int32 { return t.parent[n] }

// ASPath is the AS path switch n advertises: its own ASN first, the
// origin's last (0 stands for a synthetic ASN). Nil without a route.
func (g *Graph) ASPath(t *Table, n int32) []uint32 {
	if !t.Reachable(n) {
		return nil
	}
	var out []uint32
	for x := n; x >= 0; x = t.parent[x] {
		out = append(out, g.nodes[x].asn)
	}
	return out
}

// Routes runs eBGP to convergence for the prefixes switch origin
// originates, with the links down reports taken out, and returns every
// node's routes. Hosts get none: they route through their own leaf.
//
// Preferences rank a path by its length first, so the converged state is
// found in order of length, as Dijkstra finds shortest paths: the switches
// whose best path has k ASes are settled once every switch with fewer is,
// because only those can offer them a path of k. A switch settles on the
// first length at which some neighbour offers a path without the switch's
// own ASN; its next hops are every port to such a neighbour, its
// advertised path the one from the lowest router id among them. This is
// the state the BGP decision process converges to (shortest-AS-path
// preference is a strictly increasing ranking, so it has exactly one
// stable state, whatever the order updates arrive in); the tests check it
// against a round-by-round exchange of updates.
func (g *Graph) Routes(origin int32, down Down) *Table {
	return g.routes(origin, down, true)
}

// ShortestPaths is Routes without AS-path loop prevention: plain
// hop-count shortest paths over the links that are up, as if every switch
// had its own ASN. It tells a partition by the ASN plan (a path exists but
// eBGP rejects it) from a physical one.
func (g *Graph) ShortestPaths(origin int32, down Down) *Table {
	return g.routes(origin, down, false)
}

func (g *Graph) routes(origin int32, down Down, loopCheck bool) *Table {
	n := len(g.nodes)
	t := &Table{origin: origin, next: make([][]int32, n), plen: make([]int32, n), parent: make([]int32, n)}
	for i := range t.parent {
		t.parent[i] = -1
	}
	if origin < 0 || int(origin) >= n || g.nodes[origin].kind != Switch {
		return t
	}
	up := func(p int32) bool { return down == nil || !down(LinkOf(p)) }
	t.plen[origin] = 1
	// The ports of every settled switch's next hops, in one backing array;
	// spans index it until the end, when appends can no longer move it.
	var hops []int32
	type span struct{ node, best, from, to int32 }
	var spans []span
	seen := make([]int32, n) // the round a node was last offered a path in
	frontier := []int32{origin}
	var offered, settled []int32
	for k := int32(1); len(frontier) > 0; k++ {
		// The switches a path of k ASes is offered to: neighbours of the
		// switches settled at k that have no route yet.
		offered = offered[:0]
		for _, u := range frontier {
			for _, p := range g.nodes[u].ports {
				v := g.ports[Peer(p)].node
				if g.nodes[v].kind != Switch || t.plen[v] != 0 || seen[v] == k || !up(p) {
					continue
				}
				seen[v] = k
				offered = append(offered, v)
			}
		}
		settled = settled[:0]
		for _, v := range offered {
			asn := g.asnKey(v)
			from := int32(len(hops))
			best := int32(-1)
			for _, q := range g.nodes[v].ports {
				u := g.ports[Peer(q)].node
				if t.plen[u] != k || !up(q) {
					continue
				}
				if loopCheck && g.pathHas(t, u, asn) {
					continue // AS-path loop prevention
				}
				hops = append(hops, q)
				if best < 0 || u < best {
					best = u
				}
			}
			if best < 0 {
				continue // every path offered holds v's ASN
			}
			spans = append(spans, span{v, best, from, int32(len(hops))})
			settled = append(settled, v)
		}
		// Settle after the scan, so that a switch settled at k+1 never
		// counts as offering k+1 to another in the same round.
		for _, sp := range spans[len(spans)-len(settled):] {
			t.plen[sp.node], t.parent[sp.node] = k+1, sp.best
		}
		frontier = append(frontier[:0], settled...)
	}
	for _, sp := range spans {
		t.next[sp.node] = hops[sp.from:sp.to:sp.to]
	}
	return t
}

// pathHas reports whether the best path of u (which u advertises) holds
// the ASN asn.
func (g *Graph) pathHas(t *Table, u int32, asn uint64) bool {
	for x := u; x >= 0; x = t.parent[x] {
		if g.asnKey(x) == asn {
			return true
		}
	}
	return false
}
