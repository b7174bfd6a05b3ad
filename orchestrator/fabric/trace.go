package fabric

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strconv"

	"github.com/labctl/labctl/orchestrator/routing"
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

// KeyHash hashes a flow's 5-tuple (FNV-1a over the addresses, ports and
// protocol): what a switch's ECMP hash reads from a packet, before its own
// seed. The simulator hashes every QP's packets with it (data packets the
// flow's key, ACKs the reverse key).
func KeyHash(k FlowKey) uint64 {
	// As16 takes IPv4 (mapped), IPv6 and the zero address alike.
	var b [16 + 16 + 2 + 2 + 1]byte
	src, dst := k.SrcIP.As16(), k.DstIP.As16()
	copy(b[0:], src[:])
	copy(b[16:], dst[:])
	binary.BigEndian.PutUint16(b[32:], k.SrcPort)
	binary.BigEndian.PutUint16(b[34:], k.DstPort)
	b[36] = k.Proto
	h := fnv.New64a()
	h.Write(b[:])
	return h.Sum64()
}

// FlowHash is a switch's ECMP hash of a flow: its key's hash mixed with
// the switch's seed, routing.Mix64(KeyHash(k) ^ seed), so that the choice
// is deterministic, differs from switch to switch and spreads flows evenly
// (real ASICs use CRC variants). A switch with n equal-cost next hops
// takes candidate FlowHash mod n (routing.ECMPIndex), in the simulator as
// in a trace.
func FlowHash(k FlowKey, seed uint64) uint64 {
	return routing.Mix64(KeyHash(k) ^ seed)
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
	// when there is no choice), in port order; Chosen indexes them.
	Candidates []Candidate `json:"candidates"`
	Chosen     int         `json:"chosen"`
	Hash       uint64      `json:"hash"`
	// ASPath is the AS path of the BGP route the switch forwards on, as
	// its RIB holds it: the next AS first, the destination leaf's last,
	// not the switch's own (added only when it advertises). Empty at the
	// destination leaf, whose route is connected.
	ASPath []uint32 `json:"as_path,omitempty"`
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
	// Down names the plan links the trace took down (node:port, as
	// faults name them); the path is the one routing converges to
	// without them.
	Down []string `json:"down,omitempty"`
	// Unreachable says why the destination cannot be reached (the hops
	// are then the way up to the switch that has no route); empty when
	// the path arrives.
	Unreachable string `json:"unreachable,omitempty"`
}

// Nodes returns the node names along the path, hosts included (the
// destination host only when the path reaches it).
func (p Path) Nodes() []string {
	out := []string{p.Src.Host}
	for _, h := range p.Hops {
		out = append(out, h.Node)
	}
	if p.Unreachable != "" {
		return out
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
