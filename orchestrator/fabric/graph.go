// Package fabric turns a sizing plan into the fabric graph of a lab: every
// switch and server, their ports and links, addresses, BGP underlay ASNs,
// the scale-down a containerlab lab needs to fit container port budgets, and
// emitters for containerlab YAML, mermaid, Graphviz dot and JSON. It also
// traces the path of a flow between two GPUs with the ECMP choice a flow
// hash makes, on the routes the eBGP underlay converges to (package
// routing, which the simulator routes with too), with links down or not.
//
// Naming: switches and servers are numbered globally from 1 in plan order:
// superspine1.., spine1.., leaf1.., host1... Pods and planes are 1-based too;
// NIC and GPU numbers are 0-based (GPU g is NIC g%gpus_per_server of server
// g/gpus_per_server + 1), as in the sizing seed.
//
// Addressing (IPv4, all inside 10.0.0.0/8; sized for 65536 GPUs and more):
//
//	10.0.0.0/11    leaf-spine point-to-point /31s (spine .even, leaf .odd)
//	10.32.0.0/11   spine-super-spine /31s (super-spine .even, spine .odd)
//	10.64.0.0/10   host-leaf /31s, one per NIC (leaf .even = gateway, NIC .odd)
//	10.255.0.0/16  switch loopbacks /32
//
// A /11 holds 1,048,576 links and the /10 2,097,152 NICs; Build fails with a
// clear error rather than overflow into the next range.
//
// BGP underlay (eBGP, RFC 7938 style): one ASN per leaf, one for the spine
// layer of each pod, one for the super-spine layer. Small fabrics use 2-byte
// private ASNs (super-spines 65000, spines 65000 in 2 tiers or 65000+pod in 3
// tiers, leaf i 65100+i); fabrics with more than 399 leaves or 99 pods use
// 4-byte private ASNs (super-spines 4200000000, pod spines 4200000000+pod,
// leaf i 4201000000+i).
package fabric

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/lab"
)

// SchemaVersion is the version of the JSON shape of Graph.
const SchemaVersion = 1

// Role is what a node does in the fabric.
type Role string

// Node roles.
const (
	RoleHost       Role = "host"
	RoleLeaf       Role = "leaf"
	RoleSpine      Role = "spine"
	RoleSuperSpine Role = "super-spine"
)

// LinkKind says which tiers a link joins.
type LinkKind string

// Link kinds.
const (
	KindHostLeaf        LinkKind = "host-leaf"
	KindLeafSpine       LinkKind = "leaf-spine"
	KindSpineSuperSpine LinkKind = "spine-superspine"
)

// NOS names accepted in lab specs.
const (
	NOSSonic = "sonic"
	NOSEOS   = "eos"
)

// Default images used when a lab spec leaves them empty.
const (
	DefaultSonicImage = "docker-sonic-vs:latest"
	DefaultEOSImage   = "ceos:4.32.0F"
	DefaultHostImage  = "labctl/rdma-host:latest"
)

// HostMTU is the IP MTU set on host data interfaces. RoCE's largest path MTU
// is 4096 bytes of payload; with the RoCEv2 headers (IPv4 20, UDP 8, BTH 12,
// RETH 16, ICRC 4) a 4096-byte RDMA payload needs an IP MTU of at least 4156,
// and soft-RoCE picks the largest IB MTU that fits the netdev MTU. 4200 leaves
// margin for extended headers while staying far below the switches' 9100.
const HostMTU = 4200

// SwitchMTU is the IP MTU of switch fabric ports (jumbo frames, so switches
// never limit the hosts' RoCE MTU).
const SwitchMTU = 9100

// Graph is the fabric of one lab: nodes, ports, links and addresses.
type Graph struct {
	SchemaVersion int        `json:"schema_version"`
	Name          string     `json:"name"`
	NOS           string     `json:"nos"`
	Images        lab.Images `json:"images"`
	Tiers         int        `json:"tiers"`
	Pods          int        `json:"pods"`
	Layout        string     `json:"layout"`
	GPUs          int        `json:"gpus"`
	GPUsPerServer int        `json:"gpus_per_server"`
	NICSpeedGbps  int        `json:"nic_speed_gbps"`
	// PortBudget is the number of data interfaces one switch container of
	// this NOS can have in a containerlab lab.
	PortBudget Budget     `json:"port_budget"`
	Addressing Addressing `json:"addressing"`
	// Nodes are ordered super-spines, spines, leaves, hosts, each by index.
	Nodes []*Node `json:"nodes"`
	Links []*Link `json:"links"`
	// ScaleDown lists every way the lab differs from the plan (merged
	// parallel links, switches over the port budget). Empty means the lab is
	// the plan, link for link.
	ScaleDown []string `json:"scale_down"`
	// OverBudget names the switches whose data interfaces exceed the port
	// budget even after merging; containerlab cannot run the lab then.
	OverBudget []string `json:"over_budget"`

	index map[string]*Node
}

// Addressing documents the address ranges a graph uses.
type Addressing struct {
	LeafSpine       string `json:"leaf_spine"`
	SpineSuperSpine string `json:"spine_super_spine"`
	HostLeaf        string `json:"host_leaf"`
	Loopbacks       string `json:"loopbacks"`
}

// Node is a switch or a server.
type Node struct {
	Name  string `json:"name"`
	Role  Role   `json:"role"`
	Index int    `json:"index"` // 1-based within its role
	// Pod is 1-based; 0 for super-spines, which belong to no pod.
	Pod int `json:"pod"`
	// Plane is the super-spine plane of a spine or super-spine (3 tiers).
	Plane int `json:"plane,omitempty"`
	// Kind is the containerlab kind: sonic-vs, arista_ceos or linux.
	Kind     string `json:"clab_kind"`
	ASN      uint32 `json:"asn,omitempty"`
	Loopback string `json:"loopback,omitempty"`
	// GPUs is the number of GPUs of a server.
	GPUs  int     `json:"gpus,omitempty"`
	Ports []*Port `json:"ports"`
	// Notes are this node's scale-down notes.
	Notes []string `json:"notes,omitempty"`
}

// Port is one data interface of a node. A host's port i is its NIC i.
type Port struct {
	// Name is the NOS interface name (Ethernet0 on SONiC, Ethernet1 on EOS,
	// eth1 on a host).
	Name string `json:"name"`
	// Iface is the container interface name containerlab wires (eth1..).
	Iface string `json:"iface"`
	// SpeedGbps is the port's speed; for a merged lab link, the aggregate.
	SpeedGbps int `json:"speed_gbps"`
	// Merged is how many plan links this lab port stands for (1 normally).
	Merged   int    `json:"merged"`
	Peer     string `json:"peer"`
	PeerPort string `json:"peer_port"`
	// Address is this end's address with its /31 prefix length.
	Address string `json:"address"`
	Link    int    `json:"link"` // index into Graph.Links
}

// Link is one lab link between two ports. A is the lower tier end (host,
// leaf, spine), B the upper (leaf, spine, super-spine).
type Link struct {
	ID   int      `json:"id"`
	Kind LinkKind `json:"kind"`
	A    LinkEnd  `json:"a"`
	B    LinkEnd  `json:"b"`
	// SpeedGbps is the link's capacity: MemberSpeedGbps x Merged.
	SpeedGbps       int `json:"speed_gbps"`
	MemberSpeedGbps int `json:"member_speed_gbps"`
	// Merged is the number of parallel plan links this lab link stands for.
	Merged int    `json:"merged"`
	Subnet string `json:"subnet"`
}

// LinkEnd is one end of a link.
type LinkEnd struct {
	Node    string `json:"node"`
	Port    string `json:"port"`  // NOS name
	Iface   string `json:"iface"` // container interface
	Address string `json:"address"`
}

// Node returns the node called name, or nil. Graphs from Build and
// ReadJSON are indexed already, so concurrent readers are safe.
func (g *Graph) Node(name string) *Node {
	if g.index == nil {
		g.reindex()
	}
	return g.index[name]
}

func (g *Graph) reindex() {
	g.index = make(map[string]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		g.index[n.Name] = n
	}
}

// Switches returns the switches, super-spines first.
func (g *Graph) Switches() []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if n.Role != RoleHost {
			out = append(out, n)
		}
	}
	return out
}

// Hosts returns the servers in order.
func (g *Graph) Hosts() []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if n.Role == RoleHost {
			out = append(out, n)
		}
	}
	return out
}

// NodesByRole returns the nodes of one role in index order.
func (g *Graph) NodesByRole(r Role) []*Node {
	var out []*Node
	for _, n := range g.Nodes {
		if n.Role == r {
			out = append(out, n)
		}
	}
	return out
}

// Endpoint is one NIC of one server.
type Endpoint struct {
	Host string `json:"host"`
	NIC  int    `json:"nic"` // 0-based
}

func (e Endpoint) String() string { return e.Host + ":" + strconv.Itoa(e.NIC) }

// GPU maps a 0-based GPU number to its server and NIC: GPU g is NIC
// g%gpus_per_server of server g/gpus_per_server+1.
func (g *Graph) GPU(gpu int) (Endpoint, error) {
	if gpu < 0 || gpu >= g.GPUs {
		return Endpoint{}, fmt.Errorf("GPU %d does not exist: lab %s has GPUs 0..%d", gpu, g.Name, g.GPUs-1)
	}
	ep := Endpoint{Host: HostName(gpu/g.GPUsPerServer + 1), NIC: gpu % g.GPUsPerServer}
	h := g.Node(ep.Host)
	if h == nil || ep.NIC >= len(h.Ports) {
		return Endpoint{}, fmt.Errorf("GPU %d maps to %s, which the graph lacks", gpu, ep)
	}
	return ep, nil
}

// GPUOf is the inverse of GPU: the GPU number behind a server NIC.
func (g *Graph) GPUOf(ep Endpoint) (int, error) {
	if _, err := g.port(ep); err != nil {
		return 0, err
	}
	idx, err := nameIndex(ep.Host, "host")
	if err != nil {
		return 0, err
	}
	return (idx-1)*g.GPUsPerServer + ep.NIC, nil
}

// port returns the port of a host NIC.
func (g *Graph) port(ep Endpoint) (*Port, error) {
	h := g.Node(ep.Host)
	if h == nil || h.Role != RoleHost {
		return nil, fmt.Errorf("%q is not a host of lab %s (hosts are host1..host%d)", ep.Host, g.Name, len(g.Hosts()))
	}
	if ep.NIC < 0 || ep.NIC >= len(h.Ports) {
		return nil, fmt.Errorf("%s has NICs 0..%d, not %d", ep.Host, len(h.Ports)-1, ep.NIC)
	}
	return h.Ports[ep.NIC], nil
}

// ParseEndpoint reads a GPU number ("17"), a host ("host3", NIC 0) or a
// host NIC ("host3:2").
func (g *Graph) ParseEndpoint(s string) (Endpoint, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		return g.GPU(n)
	}
	host, nicStr, hasNIC := strings.Cut(s, ":")
	ep := Endpoint{Host: host}
	if hasNIC {
		n, err := strconv.Atoi(nicStr)
		if err != nil {
			return Endpoint{}, fmt.Errorf("endpoint %q: NIC %q is not a number (write host3:2)", s, nicStr)
		}
		ep.NIC = n
	}
	if _, err := g.port(ep); err != nil {
		return Endpoint{}, fmt.Errorf("endpoint %q: %w (give a GPU number 0..%d, a host, or host:nic)", s, err, g.GPUs-1)
	}
	return ep, nil
}

// HostName, LeafName, SpineName and SuperSpineName give the deterministic
// node names for 1-based indexes.
func HostName(i int) string       { return "host" + strconv.Itoa(i) }
func LeafName(i int) string       { return "leaf" + strconv.Itoa(i) }
func SpineName(i int) string      { return "spine" + strconv.Itoa(i) }
func SuperSpineName(i int) string { return "superspine" + strconv.Itoa(i) }

func nameIndex(name, prefix string) (int, error) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, fmt.Errorf("%q is not a %s name", name, prefix)
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a %s name", name, prefix)
	}
	return n, nil
}

// Address ranges; see the package comment.
var (
	rangeLeafSpine  = netip.MustParsePrefix("10.0.0.0/11")
	rangeSpineSuper = netip.MustParsePrefix("10.32.0.0/11")
	rangeHostLeaf   = netip.MustParsePrefix("10.64.0.0/10")
	rangeLoopbacks  = netip.MustParsePrefix("10.255.0.0/16")
)

// FabricSupernet covers every address of a graph; hosts route it via their
// leaf.
var FabricSupernet = netip.MustParsePrefix("10.0.0.0/8")

// addrAt returns the address offset n inside p, or an error when p is full.
func addrAt(p netip.Prefix, n int, what string) (netip.Addr, error) {
	size := 1 << (32 - p.Bits())
	if n < 0 || n >= size {
		return netip.Addr{}, fmt.Errorf("%s: address %d does not fit %s (%d addresses)", what, n, p, size)
	}
	b := p.Addr().As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v += uint32(n)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}
