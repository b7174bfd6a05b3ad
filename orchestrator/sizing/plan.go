// Package sizing does the port math of a GPU cluster fabric: how many leaves,
// spines and super-spines, how switch ports break out to NIC speed, the
// oversubscription actually achieved, where each server's NICs land, and the
// bill of materials. It knows nothing of vendors, addresses or runtimes.
package sizing

import (
	"encoding/json"

	"github.com/labctl/labctl/orchestrator/server"
)

// SchemaVersion is the version of the JSON shape of Plan.
const SchemaVersion = 1

// Layout is how server NICs are attached to leaves.
type Layout string

const (
	// LayoutToR puts all NICs of a server on the same leaf, servers in
	// order, spread evenly over the fewest leaves (the seed's layout).
	LayoutToR Layout = "tor"
	// LayoutRail puts NIC i of every server on rail i's leaf group, as
	// rail-optimized AI fabrics are built.
	LayoutRail Layout = "rail"
)

// Input is what a user asks for. Zero values are replaced by the seed's
// defaults in Normalize.
type Input struct {
	GPUs             int     `json:"gpus" yaml:"gpus"`
	GPUsPerServer    int     `json:"gpus_per_server" yaml:"gpus_per_server"`
	NICSpeedGbps     int     `json:"nic_speed_gbps" yaml:"nic_speed_gbps"`
	LeafPorts        int     `json:"leaf_ports" yaml:"leaf_ports"`
	LeafSpeedGbps    int     `json:"leaf_speed_gbps" yaml:"leaf_speed_gbps"`
	SpinePorts       int     `json:"spine_ports" yaml:"spine_ports"`
	SpineSpeedGbps   int     `json:"spine_speed_gbps" yaml:"spine_speed_gbps"`
	Oversubscription float64 `json:"oversubscription" yaml:"oversubscription"`
	Layout           Layout  `json:"layout" yaml:"layout"`
	// Tiers forces 1 (every NIC on one switch, no spine), 2 or 3 tiers; 0
	// picks the smallest spine-leaf fabric (2 or 3 tiers) that fits.
	Tiers int `json:"tiers,omitempty" yaml:"tiers,omitempty"`
	// MinSpines asks for at least that many spines (per pod in 3 tiers),
	// so that no single spine carries every uplink of a leaf: each leaf's
	// uplinks split over more spines, the oversubscription as it was. 0
	// is the fewest spines that fit.
	MinSpines int `json:"min_spines,omitempty" yaml:"min_spines,omitempty"`
}

// Plan is an exact, valid fabric for an Input. Port counts named "logical"
// are in NIC-speed units, as the seed counts them (a 400G port carrying two
// 200G NICs is two logical ports); physical counts are switch ports.
type Plan struct {
	SchemaVersion int `json:"schema_version"`
	GPUs          int `json:"gpus"`
	GPUsPerServer int `json:"gpus_per_server"`
	Servers       int `json:"servers"`
	NICs          int `json:"nics"`
	NICSpeedGbps  int `json:"nic_speed_gbps"`
	// Server is the GPU servers' scale-up domain and the NICs' PCIe
	// links (SetServer); nil when the plan was made without them.
	Server           *server.Model    `json:"server,omitempty"`
	Layout           Layout           `json:"layout"`
	Tiers            int              `json:"tiers"`
	Leaf             LeafTier         `json:"leaf"`
	Spine            SpineTier        `json:"spine"`
	SuperSpine       *SuperSpineTier  `json:"super_spine"`
	Pods             int              `json:"pods"`
	Oversubscription Oversubscription `json:"oversubscription"`
	Cables           Cables           `json:"cables"`
	Optics           []Optic          `json:"optics"`
	// Placement lists, per server, the leaf (1-based, global) each NIC lands on.
	Placement []ServerPlacement `json:"placement"`
	Warnings  []string          `json:"warnings"`
}

// LeafTier describes the leaf switches. All leaves are built the same
// (uplinks sized for the fullest); some may attach fewer NICs
// (NICsPerLeaf).
type LeafTier struct {
	Count int `json:"count"`
	// PerPod is the number of leaves in one pod (all of them in 2 tiers).
	// Leaves are numbered pod by pod: leaf i is in pod (i-1)/PerPod.
	PerPod        int `json:"per_pod"`
	Ports         int `json:"ports"`
	PortSpeedGbps int `json:"port_speed_gbps"`
	// LogicalPorts is the leaf's capacity in NIC-speed ports (Ports x
	// PortSpeedGbps / the NIC speed).
	LogicalPorts int `json:"logical_ports"`
	// DownlinksPerLeaf and UplinksPerLeaf are logical (NIC-speed) ports, as
	// in the seed's table.
	DownlinksPerLeaf int `json:"downlinks_per_leaf"`
	UplinksPerLeaf   int `json:"uplinks_per_leaf"`
	// Physical switch ports used for downlinks and uplinks.
	DownlinkPortsPerLeaf int `json:"downlink_ports_per_leaf"`
	UplinkPortsPerLeaf   int `json:"uplink_ports_per_leaf"`
	// UplinkLinksPerLeaf is the number of leaf-spine links of one leaf.
	UplinkLinksPerLeaf int `json:"uplink_links_per_leaf"`
	// UplinkSpeedGbps is the speed of one leaf-spine link.
	UplinkSpeedGbps int `json:"uplink_speed_gbps"`
	// LinksPerSpine is how many parallel links join a leaf to each spine of
	// its pod (equal for every pair: balanced ECMP).
	LinksPerSpine int    `json:"links_per_spine"`
	Breakout      string `json:"breakout"`
	// NICsPerLeaf is the number of NICs actually attached to each leaf.
	NICsPerLeaf []int `json:"nics_per_leaf"`
	// LeavesPerRail is set for the rail layout.
	LeavesPerRail int `json:"leaves_per_rail,omitempty"`
	Rails         int `json:"rails,omitempty"`
	// RailGroupPods, for the rail layout, is how many pods the rail
	// leaves of one server group span at most: 1 when every group's
	// rails share a pod (and its spines), more when a pod holds fewer
	// leaves than there are rails, so that the traffic between server
	// groups on a rail, and between a group's rails, crosses the
	// super-spines.
	RailGroupPods int `json:"rail_group_pods,omitempty"`
}

// SpineTier describes the spine switches (per pod in 3 tiers: Count is the
// total, PerPod the count in one pod).
type SpineTier struct {
	Count  int `json:"count"`
	PerPod int `json:"per_pod"`
	// Ports is the spine model's physical ports, PortSpeedGbps their
	// speed; LogicalPorts the same capacity in NIC-speed ports (Ports x
	// PortSpeedGbps / the NIC speed: 32 x 400G with 200G NICs is 64).
	Ports         int `json:"ports"`
	PortSpeedGbps int `json:"port_speed_gbps"`
	LogicalPorts  int `json:"logical_ports"`
	// PortsUsedPerSpine is the bandwidth one spine uses, to its pod's
	// leaves and (3 tiers) to the super-spines, in NIC-speed ports, as the
	// seed's table counts: a share of LogicalPorts, not of Ports (64gpu's
	// spine: 64 of 64 logical ports, its 32 physical ports all used). The
	// physical ports used are DownlinkPortsPerSpine + UplinkPortsPerSpine,
	// and PortUtilization is their share of Ports. The super-spine tier's
	// ports_used_per_super_spine, by contrast, counts physical ports.
	PortsUsedPerSpine int `json:"ports_used_per_spine"`
	// Physical ports used per spine: down to leaves and up to super-spines.
	DownlinkPortsPerSpine int `json:"downlink_ports_per_spine"`
	UplinkPortsPerSpine   int `json:"uplink_ports_per_spine"`
	// PortUtilization is the physical ports used over Ports (1 is all).
	PortUtilization float64 `json:"port_utilization"`
	Breakout        string  `json:"breakout"`
	// LinksPerSuperSpine is the number of parallel links from a spine to each
	// super-spine of its plane (3 tiers only).
	LinksPerSuperSpine int `json:"links_per_super_spine,omitempty"`
}

// MarshalJSON writes a tier of no spines (a one-tier plan: a single
// switch) as null, as the super-spine tier is null below three tiers: an
// object of zeros would read as a tier of zero-port spines.
func (s SpineTier) MarshalJSON() ([]byte, error) {
	if s.Count == 0 {
		return []byte("null"), nil
	}
	type tier SpineTier // without this method
	return json.Marshal(tier(s))
}

// SuperSpineTier is set only for 3-tier plans. Super-spines form planes:
// spine j of every pod connects to every super-spine of plane j.
type SuperSpineTier struct {
	Count         int `json:"count"`
	Planes        int `json:"planes"`
	PerPlane      int `json:"per_plane"`
	Ports         int `json:"ports"`
	PortSpeedGbps int `json:"port_speed_gbps"`
	// PortsUsedPerSwitch is the physical ports one super-spine uses (to
	// the spines of its plane), a share of Ports.
	PortsUsedPerSwitch int     `json:"ports_used_per_super_spine"`
	PortUtilization    float64 `json:"port_utilization"`
}

// Oversubscription is leaf downlink bandwidth over uplink bandwidth.
type Oversubscription struct {
	Target float64 `json:"target"`
	Actual float64 `json:"actual"`
}

// Cables counts physical cables per tier. A breakout cable (one switch port
// to N NICs) counts once per NIC end it reaches, because each NIC end is a
// separate link; BreakoutServerLeaf counts the switch-side assemblies.
type Cables struct {
	ServerLeaf         int `json:"server_leaf"`
	BreakoutServerLeaf int `json:"server_leaf_switch_ports"`
	LeafSpine          int `json:"leaf_spine"`
	SpineSuperSpine    int `json:"spine_super_spine"`
}

// Optic is a count of transceiver modules of one speed at one place.
type Optic struct {
	Where     string `json:"where"`
	Side      string `json:"side"`
	SpeedGbps int    `json:"speed_gbps"`
	Count     int    `json:"count"`
}

// ServerPlacement says where one server's NICs are attached.
type ServerPlacement struct {
	Server int `json:"server"` // 1-based
	// Leaves[i] is the 1-based global leaf index of NIC i.
	Leaves []int `json:"leaves"`
	GPUs   int   `json:"gpus"`
}

// SetServer adds the servers' model to the plan, and its warning when the
// NICs are PCIe-bound. The port math does not depend on it: Compute
// leaves it out, and the caller that resolved the lab's server section
// adds it.
func (p *Plan) SetServer(m server.Model) {
	p.Server = &m
	if w := m.PCIeBoundWarning(); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
}
