// Package lab reads lab specs: the catalog embedded from labs/*.yaml and
// user files given by path. A spec says what to build (sizing), with which
// network OS and images, which QoS profile and which runtime.
package lab

import (
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Spec is one lab spec file.
type Spec struct {
	Name        string       `yaml:"name" json:"name"`
	Description string       `yaml:"description" json:"description"`
	Sizing      sizing.Input `yaml:"sizing" json:"sizing"`
	NOS         string       `yaml:"nos" json:"nos"` // sonic | eos
	Images      Images       `yaml:"images" json:"images"`
	QoS         QoSSpec      `yaml:"qos" json:"qos"`
	// NIC sets the hosts' RDMA NICs: DCQCN parameters (a preset and the
	// NIC's own parameter names) and the QPs' loss recovery.
	NIC nic.Spec `yaml:"nic" json:"nic"`
	// Server is the GPU servers' scale-up domain and the NICs' PCIe links.
	Server server.Spec `yaml:"server" json:"server,omitzero"`
	// Transport is what the NICs and switches run: roce (RoCE v2, the
	// default), infiniband or uet; InfiniBand and UET are those
	// transports' settings, used when it is theirs.
	Transport  string            `yaml:"transport" json:"transport,omitempty"`
	InfiniBand transport.IBSpec  `yaml:"infiniband" json:"infiniband,omitzero"`
	UET        transport.UETSpec `yaml:"uet" json:"uet,omitzero"`
	// BGP is the design of the eBGP underlay.
	BGP     BGPSpec `yaml:"bgp" json:"bgp"`
	Runtime string  `yaml:"runtime" json:"runtime"` // sim | clab
	// Source is where the spec came from: "catalog:<name>" or a file path.
	Source string `yaml:"-" json:"source"`
}

// BGPSpec is the design of the eBGP underlay (RFC 7938): which ASNs the
// switches get. Leaves always have one ASN each.
type BGPSpec struct {
	// SpineASN is the spines' ASN plan: shared (the spines of a pod share
	// one ASN, RFC 7938's design) or per-spine (each spine its own).
	SpineASN string `yaml:"spine_asn" json:"spine_asn"`
}

// The spines' ASN plans (bgp.spine_asn).
const (
	SpineASNShared   = "shared"
	SpineASNPerSpine = "per-spine"
)

// SpineASNPlans lists the values bgp.spine_asn takes.
var SpineASNPlans = []string{SpineASNShared, SpineASNPerSpine}

// Images names the container images of a containerlab lab.
type Images struct {
	SONiC string `yaml:"sonic" json:"sonic"`
	EOS   string `yaml:"eos" json:"eos"`
	Host  string `yaml:"host" json:"host"`
}

// QoSSpec names a QoS profile and overrides some of its fields. Nil pointers
// and empty slices keep the profile's value.
type QoSSpec struct {
	Profile            string `yaml:"profile" json:"profile,omitempty"`
	LosslessPriorities []int  `yaml:"lossless_priorities,omitempty" json:"lossless_priorities,omitempty"`
	RoCEDSCP           *int   `yaml:"roce_dscp,omitempty" json:"roce_dscp,omitempty"`
	CNPDSCP            *int   `yaml:"cnp_dscp,omitempty" json:"cnp_dscp,omitempty"`
	MTU                *int   `yaml:"mtu,omitempty" json:"mtu,omitempty"`
	CableLengthM       *int   `yaml:"cable_length_m,omitempty" json:"cable_length_m,omitempty"`
	// PauseResponseQuanta is how long the lab's ports take to obey a
	// PAUSE, in quanta of 512 bit times: nil for each speed's IEEE 802.3
	// bound, 0 for at once.
	PauseResponseQuanta *int          `yaml:"pause_response_quanta,omitempty" json:"pause_response_quanta,omitempty"`
	BufferPoolBytes     *int64        `yaml:"buffer_pool_bytes,omitempty" json:"buffer_pool_bytes,omitempty"`
	ECN                 *ECNSpec      `yaml:"ecn,omitempty" json:"ecn,omitempty"`
	PFC                 *PFCSpec      `yaml:"pfc,omitempty" json:"pfc,omitempty"`
	PFCWatchdog         *WatchdogSpec `yaml:"pfc_watchdog,omitempty" json:"pfc_watchdog,omitempty"`
	ETSWeights          map[int]int   `yaml:"ets_weights,omitempty" json:"ets_weights,omitempty"`
}

// ECNSpec overrides ECN/WRED marking on lossless queues.
type ECNSpec struct {
	Enabled *bool    `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	KminKB  *int     `yaml:"kmin_kb,omitempty" json:"kmin_kb,omitempty"`
	KmaxKB  *int     `yaml:"kmax_kb,omitempty" json:"kmax_kb,omitempty"`
	Pmax    *float64 `yaml:"pmax,omitempty" json:"pmax,omitempty"`
}

// PFCSpec overrides priority flow control.
type PFCSpec struct {
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
}

// WatchdogSpec overrides the PFC watchdog.
type WatchdogSpec struct {
	Enabled       *bool   `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	DetectionMs   *int    `yaml:"detection_ms,omitempty" json:"detection_ms,omitempty"`
	RestorationMs *int    `yaml:"restoration_ms,omitempty" json:"restoration_ms,omitempty"`
	Action        *string `yaml:"action,omitempty" json:"action,omitempty"` // drop | forward | alert
}
