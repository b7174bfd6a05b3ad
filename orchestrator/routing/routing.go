// Package routing computes the routes of a fabric as its eBGP underlay
// converges (RFC 7938): for a graph of switches and hosts, the links that
// are down and one destination (the prefixes a switch originates: a leaf's
// host subnets), each switch's equal-cost next hops. It is the one routing
// implementation of labctl: `labctl trace` (through the fabric package) and
// the packet simulator (orchestrator/sim) both ask it, so a path the trace
// shows is the path the simulator forwards on.
//
// The model is the BGP decision process of a data-centre fabric:
//
//   - every switch speaks eBGP on every link (one session per link, so a
//     bundle of parallel links is as many equal next hops);
//   - a switch rejects a path that already holds its own ASN (AS-path loop
//     prevention): with the RFC 7938 ASN plan (all spines of a tier in one
//     ASN) no path goes down to a leaf and up again, so a fabric can be
//     partitioned by failures where a shortest-path computation would
//     detour through another leaf (a valley path);
//   - a switch prefers the shortest AS path and installs every neighbour
//     whose path has that length (multipath-relax, as RFC 7938 fabrics run,
//     since paths via different spines differ when spines have their own
//     ASNs);
//   - it advertises one best path (no add-path), chosen among the
//     equal-length ones by the lowest router id. Router ids follow the
//     order nodes are added: callers add them in router-id order (labctl
//     numbers loopbacks, and so router ids, in that order).
//
// Nodes with ASN 0 get a unique synthetic ASN: a graph without ASNs routes
// on plain shortest paths (hop count), as a BFS would.
//
// Hosts terminate traffic; they never transit it and run no BGP here.
package routing

import (
	"fmt"
	"slices"
)

// NodeKind says whether a node routes (a switch) or terminates traffic (a
// host).
type NodeKind uint8

// Node kinds.
const (
	Host NodeKind = iota
	Switch
)

// Graph is the routing view of a fabric: nodes with an ASN, ports with
// names, and links between two ports. Link l joins ports 2l and 2l+1 (its
// first and second end), so a port's peer is p^1 and its link p/2.
//
// A Graph is built once (AddNode, AddLink) and then only read: reads are
// safe from several goroutines.
type Graph struct {
	nodes []node
	ports []port
}

type node struct {
	name string
	kind NodeKind
	asn  uint32
	// ports in the canonical order of their names (PortLess), ties by
	// port number: the order ECMP candidates come out in.
	ports []int32
}

type port struct {
	node int32
	name string
}

// AddNode adds a node and returns its number (0, 1, ... in call order;
// the order is the router-id order BGP breaks ties with). ASN 0 means a
// unique synthetic ASN.
func (g *Graph) AddNode(name string, kind NodeKind, asn uint32) int32 {
	g.nodes = append(g.nodes, node{name: name, kind: kind, asn: asn})
	return int32(len(g.nodes) - 1)
}

// AddLink joins port aPort of node a to port bPort of node b and returns
// the link's number; its ports are 2*link (a's) and 2*link+1 (b's).
func (g *Graph) AddLink(a int32, aPort string, b int32, bPort string) (int32, error) {
	n := int32(len(g.nodes))
	if a < 0 || a >= n || b < 0 || b >= n {
		return -1, fmt.Errorf("routing: link %s:%s - %s:%s names node %d or %d, but the graph has nodes 0..%d", g.nameOf(a), aPort, g.nameOf(b), bPort, a, b, n-1)
	}
	if a == b {
		return -1, fmt.Errorf("routing: link %s:%s - %s connects node %s to itself", g.nodes[a].name, aPort, bPort, g.nodes[a].name)
	}
	l := int32(len(g.ports) / 2)
	g.ports = append(g.ports, port{node: a, name: aPort}, port{node: b, name: bPort})
	g.insertPort(a, 2*l)
	g.insertPort(b, 2*l+1)
	return l, nil
}

func (g *Graph) nameOf(n int32) string {
	if n >= 0 && int(n) < len(g.nodes) {
		return g.nodes[n].name
	}
	return "?"
}

// insertPort keeps a node's ports in canonical order as they are added.
func (g *Graph) insertPort(n, p int32) {
	ps := g.nodes[n].ports
	i, _ := slices.BinarySearchFunc(ps, p, func(x, y int32) int {
		switch {
		case PortLess(g.ports[x].name, g.ports[y].name):
			return -1
		case PortLess(g.ports[y].name, g.ports[x].name):
			return 1
		}
		return int(x - y)
	})
	g.nodes[n].ports = slices.Insert(ps, i, p)
}

// Nodes is the number of nodes, Links the number of links.
func (g *Graph) Nodes() int { return len(g.nodes) }
func (g *Graph) Links() int { return len(g.ports) / 2 }

// NodeName, NodeKind and NodeASN describe node n (its ASN as given: 0 for
// a synthetic one).
func (g *Graph) NodeName(n int32) string   { return g.nodes[n].name }
func (g *Graph) NodeKind(n int32) NodeKind { return g.nodes[n].kind }
func (g *Graph) NodeASN(n int32) uint32    { return g.nodes[n].asn }

// NodePorts lists node n's ports in canonical order. The slice is the
// graph's own: do not modify it.
func (g *Graph) NodePorts(n int32) []int32 { return g.nodes[n].ports }

// PortNode is the node port p belongs to, PortName its name.
func (g *Graph) PortNode(p int32) int32  { return g.ports[p].node }
func (g *Graph) PortName(p int32) string { return g.ports[p].name }

// Peer is the port at the other end of p's link; LinkOf is that link.
func Peer(p int32) int32   { return p ^ 1 }
func LinkOf(p int32) int32 { return p / 2 }

// asnKey is the ASN loop prevention compares: the node's own, or a
// synthetic one above every 4-byte ASN for ASN 0.
func (g *Graph) asnKey(n int32) uint64 {
	if a := g.nodes[n].asn; a != 0 {
		return uint64(a)
	}
	return 1<<32 + uint64(n)
}
