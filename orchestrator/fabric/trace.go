package fabric

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strconv"
)

// RoCEv2Port is the UDP destination port of RoCE v2.
const RoCEv2Port = 4791

// ProtoUDP is the IP protocol number of UDP.
const ProtoUDP = 17

// DefaultSourcePort is the UDP source port used when none is given (the
// first dynamic port; RoCE NICs vary it per QP).
const DefaultSourcePort = 49152

// FlowKey is the 5-tuple a switch hashes to pick one of several equal-cost
// next hops.
type FlowKey struct {
	SrcIP   netip.Addr `json:"src_ip"`
	DstIP   netip.Addr `json:"dst_ip"`
	SrcPort uint16     `json:"src_port"`
	DstPort uint16     `json:"dst_port"`
	Proto   uint8      `json:"proto"`
}

// FlowHash hashes a flow key with a per-switch seed (FNV-1a over the seed
// and the 5-tuple, then a 64-bit finalizer so that the low bits used for the
// modulo depend on every input bit). Real ASICs use CRC variants; what
// matters here is that the choice is deterministic, per switch, and spreads
// flows evenly.
func FlowHash(k FlowKey, seed uint64) uint64 {
	// As16 takes IPv4 (mapped), IPv6 and the zero address alike.
	var b [8 + 16 + 16 + 2 + 2 + 1]byte
	binary.BigEndian.PutUint64(b[0:], seed)
	src, dst := k.SrcIP.As16(), k.DstIP.As16()
	copy(b[8:], src[:])
	copy(b[24:], dst[:])
	binary.BigEndian.PutUint16(b[40:], k.SrcPort)
	binary.BigEndian.PutUint16(b[42:], k.DstPort)
	b[44] = k.Proto
	h := fnv.New64a()
	h.Write(b[:])
	x := h.Sum64()
	// splitmix64 finalizer.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// SwitchSeed is the ECMP hash seed of a switch, derived from its name so
// that consecutive switches do not make correlated choices.
func SwitchSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// Candidate is one equal-cost next hop: a port and, for a merged lab link,
// which of its parallel plan links (1..Merged).
type Candidate struct {
	Port   string `json:"port"`
	Peer   string `json:"peer"`
	Member int    `json:"member"`
	Merged int    `json:"merged"`
	Link   int    `json:"link"`
}

func (c Candidate) String() string {
	s := c.Peer + " via " + c.Port
	if c.Merged > 1 {
		s += " (member " + strconv.Itoa(c.Member) + "/" + strconv.Itoa(c.Merged) + ")"
	}
	return s
}

// Hop is one switch on a path.
type Hop struct {
	Node string `json:"node"`
	Role Role   `json:"role"`
	In   string `json:"in"`
	Out  string `json:"out"`
	// Candidates are the equal-cost next hops the switch chose among (one
	// when there is no choice); Chosen indexes them.
	Candidates []Candidate `json:"candidates"`
	Chosen     int         `json:"chosen"`
	Hash       uint64      `json:"hash"`
}

// Path is the route of one flow from a source NIC to a destination NIC.
type Path struct {
	Src  Endpoint `json:"src"`
	Dst  Endpoint `json:"dst"`
	Flow FlowKey  `json:"flow"`
	// Hops are the switches crossed, in order.
	Hops []Hop `json:"hops"`
	// Links are the lab links crossed, in order.
	Links []int `json:"links"`
	// SwitchHops counts switches (Leaf -> Spine -> Leaf is 3);
	// EndToEndHops counts links (NIC -> Leaf -> Spine -> Leaf -> NIC is 4).
	SwitchHops   int `json:"switch_hops"`
	EndToEndHops int `json:"end_to_end_hops"`
}

// Nodes returns the node names along the path, hosts included.
func (p Path) Nodes() []string {
	out := []string{p.Src.Host}
	for _, h := range p.Hops {
		out = append(out, h.Node)
	}
	return append(out, p.Dst.Host)
}

// FlowKeyFor returns the RoCE v2 flow key between two NICs: their
// addresses, UDP source port sport (DefaultSourcePort when 0) and
// destination port 4791.
func (g *Graph) FlowKeyFor(src, dst Endpoint, sport uint16) (FlowKey, error) {
	sp, err := g.port(src)
	if err != nil {
		return FlowKey{}, err
	}
	dp, err := g.port(dst)
	if err != nil {
		return FlowKey{}, err
	}
	if sport == 0 {
		sport = DefaultSourcePort
	}
	sa, err := netip.ParsePrefix(sp.Address)
	if err != nil {
		return FlowKey{}, fmt.Errorf("address of %s: %w", src, err)
	}
	da, err := netip.ParsePrefix(dp.Address)
	if err != nil {
		return FlowKey{}, fmt.Errorf("address of %s: %w", dst, err)
	}
	return FlowKey{SrcIP: sa.Addr(), DstIP: da.Addr(), SrcPort: sport, DstPort: RoCEv2Port, Proto: ProtoUDP}, nil
}

// ECMPSeed is the hash seed of a switch for a fabric-wide seed: seed 0
// gives SwitchSeed(name) itself; other seeds perturb every switch's choice,
// as re-seeding the hash of real switches does.
func ECMPSeed(switchName string, seed uint64) uint64 {
	return SwitchSeed(switchName) + seed*0x9e3779b97f4a7c15
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
	dstLink := g.Links[dp.Link]
	dstLeaf := g.Node(dstLink.B.Node)
	path := Path{Src: src, Dst: dst, Flow: flow}

	first := g.Links[sp.Link]
	path.Links = append(path.Links, first.ID)
	cur, in := g.Node(first.B.Node), first.B.Port
	if cur == nil || dstLeaf == nil {
		return Path{}, fmt.Errorf("trace %s -> %s: a host link names an unknown leaf (graph is inconsistent)", src, dst)
	}
	for range 8 { // at most 5 switches in a 3-tier Clos
		var cands []Candidate
		if cur == dstLeaf {
			cands = []Candidate{{Port: dstLink.B.Port, Peer: dst.Host, Member: 1, Merged: 1, Link: dstLink.ID}}
		} else {
			cands = g.NextHops(cur, dstLeaf)
		}
		if len(cands) == 0 {
			return Path{}, fmt.Errorf("trace %s -> %s: %s has no route towards %s", src, dst, cur.Name, dstLeaf.Name)
		}
		hop := Hop{Node: cur.Name, Role: cur.Role, In: in, Candidates: cands}
		if len(cands) > 1 {
			hop.Hash = FlowHash(flow, ECMPSeed(cur.Name, seed))
			hop.Chosen = int(hop.Hash % uint64(len(cands)))
		}
		c := cands[hop.Chosen]
		hop.Out = c.Port
		path.Hops = append(path.Hops, hop)
		path.Links = append(path.Links, c.Link)
		if cur == dstLeaf {
			path.SwitchHops = len(path.Hops)
			path.EndToEndHops = len(path.Links)
			return path, nil
		}
		l := g.Links[c.Link]
		if l.A.Node == cur.Name {
			cur, in = g.Node(l.B.Node), l.B.Port
		} else {
			cur, in = g.Node(l.A.Node), l.A.Port
		}
		if cur == nil {
			return Path{}, fmt.Errorf("trace %s -> %s: link %d leads to an unknown node (graph is inconsistent)", src, dst, l.ID)
		}
	}
	return Path{}, fmt.Errorf("trace %s -> %s: no path within 5 switches (graph is inconsistent)", src, dst)
}

// NextHops lists the equal-cost next hops from switch n towards leaf dst
// (n is not dst): up from a leaf; down from a spine of dst's pod, else up;
// down from a super-spine to the spine of dst's pod in its plane. Each
// member of a merged link is its own candidate. Trace picks one with
// FlowHash(flow, SwitchSeed(n.Name)) % len(candidates).
func (g *Graph) NextHops(n, dst *Node) []Candidate {
	var want func(peer *Node) bool
	switch n.Role {
	case RoleLeaf:
		want = func(p *Node) bool { return p.Role == RoleSpine }
	case RoleSpine:
		if n.Pod == dst.Pod {
			want = func(p *Node) bool { return p == dst }
		} else {
			want = func(p *Node) bool { return p.Role == RoleSuperSpine }
		}
	case RoleSuperSpine:
		want = func(p *Node) bool { return p.Role == RoleSpine && p.Pod == dst.Pod }
	default:
		return nil
	}
	var out []Candidate
	for _, p := range n.Ports {
		peer := g.Node(p.Peer)
		if peer == nil || !want(peer) {
			continue
		}
		for m := 1; m <= max(p.Merged, 1); m++ {
			out = append(out, Candidate{Port: p.Name, Peer: p.Peer, Member: m, Merged: max(p.Merged, 1), Link: p.Link})
		}
	}
	return out
}
