package qos

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/labctl/labctl/orchestrator/routing"
)

// Device is one switch as the QoS layer sees it: its data ports. The fabric
// graph is adapted to a []Device by the caller.
type Device struct {
	Name  string `json:"name"`
	Role  string `json:"role"` // leaf | spine | super-spine (hosts get no config)
	Ports []Port `json:"ports"`
}

// Port is one switch port.
type Port struct {
	Name      string `json:"name"` // NOS name, e.g. Ethernet0
	SpeedGbps int    `json:"speed_gbps"`
	CableM    int    `json:"cable_m"` // 0: the intent's CableLengthM
	// Peer is the far end: "leaf1:Ethernet8" for a switch, the host name
	// (optionally "host:eth1") for a host.
	Peer string `json:"peer"`
	// Fabric is true for data ports (switch-switch or switch-host).
	Fabric bool `json:"fabric"`
}

// DeviceConfig is the QoS configuration of one switch: what a renderer
// writes and a parser reads back. It is concrete (per port, in bytes), so
// two configs compare field by field.
type DeviceConfig struct {
	Device string `json:"device"`
	NOS    string `json:"nos,omitempty"`
	// DSCPToTC is the device's DSCP map (the one most ports use).
	DSCPToTC  map[int]int `json:"dscp_to_tc"`
	TCToQueue map[int]int `json:"tc_to_queue"`
	TCToPG    map[int]int `json:"tc_to_pg"`
	// SharedPoolBytes is the ingress lossless pool size (0: not known).
	SharedPoolBytes int64 `json:"shared_pool_bytes,omitempty"`
	// Pools are the switch's buffer pools as its config gives them. A
	// config without any (EOS CLI carries no buffer settings) leaves the
	// buffer to the platform's defaults.
	Pools []PoolConfig `json:"pools,omitempty"`
	// PlatformBuffer says the pools are not the config's but the assumed
	// platform's (EOS), so a lab's qos.buffer_pool_bytes resizes them.
	PlatformBuffer bool `json:"platform_buffer,omitempty"`
	// WatchdogPollMs is the PFC watchdog poll interval (0: not set).
	WatchdogPollMs int `json:"watchdog_poll_ms,omitempty"`
	// PeersKnown says Port.Peer and Port.Fabric come from the lab's fabric;
	// for a bare config file they are guesses.
	PeersKnown bool         `json:"peers_known"`
	Ports      []PortConfig `json:"ports"`
	// Notes are what a parser could not resolve (a service-profile not in
	// the files read, …); lint reports them as info.
	Notes []string `json:"notes,omitempty"`
	// Unmodeled lists settings the config holds that labctl's simulator
	// does not model ("WRED_PROFILE yellow_min_threshold", "tx-queue
	// shape rate"), so that lint can say so (QOS011) and none is
	// silently ignored.
	Unmodeled []string `json:"unmodeled,omitempty"`
}

// PortConfig is one port's QoS.
type PortConfig struct {
	Name      string `json:"name"`
	SpeedGbps int    `json:"speed_gbps,omitempty"` // 0: not known
	CableM    int    `json:"cable_m,omitempty"`    // 0: not known
	MTU       int    `json:"mtu,omitempty"`        // 0: not known
	Peer      string `json:"peer,omitempty"`
	Fabric    bool   `json:"fabric"`
	// DSCPToTC is set only when the port uses a map other than the
	// device's.
	DSCPToTC map[int]int `json:"dscp_to_tc,omitempty"`
	// PFCPriorities are the priorities with PFC enabled, sorted.
	PFCPriorities []int         `json:"pfc_priorities"`
	Watchdog      *PortWatchdog `json:"pfc_watchdog,omitempty"`
	Queues        []QueueConfig `json:"queues"`
	PGs           []PGConfig    `json:"pgs,omitempty"`
}

// PortWatchdog is the PFC watchdog of a port.
type PortWatchdog struct {
	DetectionMs   int    `json:"detection_ms"`
	RestorationMs int    `json:"restoration_ms"`
	Action        string `json:"action"`
}

// QueueConfig is one egress queue's scheduling and marking.
type QueueConfig struct {
	Queue  int  `json:"queue"`
	Strict bool `json:"strict"`
	Weight int  `json:"weight,omitempty"` // DWRR weight or bandwidth percent
	// ECN is nil when the queue does not mark.
	ECN *ECNConfig `json:"ecn,omitempty"`
	// Buffer is the queue's egress admission (SONiC's BUFFER_QUEUE
	// profile); nil when the config gives none.
	Buffer *BufferProfile `json:"buffer,omitempty"`
}

// ECNConfig is a queue's ECN marking thresholds.
type ECNConfig struct {
	MinBytes int64   `json:"min_bytes"`
	MaxBytes int64   `json:"max_bytes"`
	Pmax     float64 `json:"pmax"` // 0-1
	// Unit is "" when Min/Max are bytes; otherwise the vendor unit the
	// raw numbers are in ("segments", "milliseconds", "microseconds"),
	// which lint cannot compare with buffers.
	Unit string `json:"unit,omitempty"`
}

// PGConfig is one ingress priority group's buffer: a lossless PG (PFC
// headroom, XOFF/XON) or a lossy one.
type PGConfig struct {
	PG       int  `json:"pg"`
	Lossless bool `json:"lossless"`
	BufferProfile
}

// BufferProfile is the admission a switch applies to one ingress priority
// group or one egress queue, as SONiC's BUFFER_PROFILE gives it. Pointer
// fields are nil when the config does not set them, so an explicit 0 (no
// headroom, no reserve) stays distinct from "not given".
type BufferProfile struct {
	// Profile is the vendor's profile name (informational).
	Profile string `json:"profile,omitempty"`
	// Pool is the buffer pool the profile draws its shared part from.
	Pool string `json:"pool,omitempty"`
	// SizeBytes is the reserved (guaranteed) buffer, used before the
	// shared pool. For SONiC lossless PGs it is xon + xoff without a
	// shared headroom pool, and xon with one.
	SizeBytes *int64 `json:"size_bytes,omitempty"`
	// StaticThBytes caps the shared use at a fixed size; DynamicTh at
	// alpha = 2^dynamic_th times the pool's free space. One of the two
	// is set.
	StaticThBytes *int64 `json:"static_th_bytes,omitempty"`
	DynamicTh     *int   `json:"dynamic_th,omitempty"`
	// Lossless PGs: XoffBytes is the headroom absorbed after XOFF; XON is
	// sent once the use falls below XonBytes, or XonOffsetBytes below the
	// XOFF point, whichever is higher.
	XoffBytes      *int64 `json:"xoff_bytes,omitempty"`
	XonBytes       *int64 `json:"xon_bytes,omitempty"`
	XonOffsetBytes *int64 `json:"xon_offset_bytes,omitempty"`
}

// Range of dynamic_th: alpha = 2^dynamic_th from 1/128 to 256; -8 is
// Mellanox's alpha 0 (no shared buffer at all).
const (
	DynamicThZero = -8
	DynamicThMax  = 8
)

// PoolConfig is one of a switch's buffer pools (SONiC's BUFFER_POOL).
type PoolConfig struct {
	Name string `json:"name"`
	// Type is "ingress" or "egress"; Mode "dynamic" or "static".
	Type      string `json:"type"`
	Mode      string `json:"mode"`
	SizeBytes int64  `json:"size_bytes"`
	// HeadroomPoolBytes is the shared headroom pool (SONiC's xoff on an
	// ingress pool): lossless PGs draw their headroom from it instead of
	// reserving it per port. Nil: no shared headroom pool.
	HeadroomPoolBytes *int64 `json:"headroom_pool_bytes,omitempty"`
}

// Val returns *p, or 0 when p is nil.
func Val[T int | int64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

// Ptr returns a pointer to v, for the optional fields above.
func Ptr[T any](v T) *T { return &v }

// Pool returns the named pool, or nil.
func (d *DeviceConfig) Pool(name string) *PoolConfig {
	for i := range d.Pools {
		if d.Pools[i].Name == name {
			return &d.Pools[i]
		}
	}
	return nil
}

// Port returns the port config by name.
func (d *DeviceConfig) Port(name string) *PortConfig {
	for i := range d.Ports {
		if d.Ports[i].Name == name {
			return &d.Ports[i]
		}
	}
	return nil
}

// DSCPMap returns the DSCP map a port uses.
func (p *PortConfig) DSCPMap(d *DeviceConfig) map[int]int {
	if p.DSCPToTC != nil {
		return p.DSCPToTC
	}
	return d.DSCPToTC
}

// Queue returns the queue config, or nil.
func (p *PortConfig) Queue(q int) *QueueConfig {
	for i := range p.Queues {
		if p.Queues[i].Queue == q {
			return &p.Queues[i]
		}
	}
	return nil
}

// PG returns the PG config, or nil.
func (p *PortConfig) PG(pg int) *PGConfig {
	for i := range p.PGs {
		if p.PGs[i].PG == pg {
			return &p.PGs[i]
		}
	}
	return nil
}

// Sort puts ports, queues and PGs in a stable order (ports by NOS
// interface number, so Ethernet4 before Ethernet12).
func (d *DeviceConfig) Sort() {
	sort.SliceStable(d.Ports, func(i, j int) bool { return PortLess(d.Ports[i].Name, d.Ports[j].Name) })
	for i := range d.Ports {
		p := &d.Ports[i]
		sort.Ints(p.PFCPriorities)
		p.PFCPriorities = slices.Compact(p.PFCPriorities)
		sort.Slice(p.Queues, func(a, b int) bool { return p.Queues[a].Queue < p.Queues[b].Queue })
		sort.Slice(p.PGs, func(a, b int) bool { return p.PGs[a].PG < p.PGs[b].PG })
	}
}

// PortLess orders interface names by their text with embedded numbers
// compared as numbers ("Ethernet4" < "Ethernet12", "Ethernet1/2" <
// "Ethernet1/10"): routing.PortLess, the one port order of labctl.
func PortLess(a, b string) bool { return routing.PortLess(a, b) }

// Apply turns the lab intent into one switch's config. Ports that are not
// Fabric get no QoS. Speeds must be known: a port without one is an error
// naming it, because headroom and ECN thresholds scale with speed.
func Apply(in Intent, dev Device) (DeviceConfig, error) {
	dc := DeviceConfig{
		Device:     dev.Name,
		DSCPToTC:   maps.Clone(in.DSCPToTC),
		TCToQueue:  maps.Clone(in.TCToQueue),
		TCToPG:     maps.Clone(in.TCToPG),
		PeersKnown: true,
	}
	// The buffer is the ASIC's whether or not PFC is on: pools and lossy
	// admission always, lossless PGs only with PFC.
	dc.SharedPoolBytes = in.Buffer.poolBytes(dev)
	dc.Pools = pools(dc.SharedPoolBytes)
	if in.PFC.Enabled && in.Watchdog.Enabled {
		dc.WatchdogPollMs = in.Buffer.WatchdogPollMs
	}
	cnpQueue := in.TCToQueue[CNPTC]
	losslessQueues := map[int]bool{}
	for _, tc := range in.LosslessPriorities {
		losslessQueues[in.TCToQueue[tc]] = true
	}
	for _, p := range dev.Ports {
		if !p.Fabric {
			continue
		}
		if p.SpeedGbps <= 0 {
			return DeviceConfig{}, fmt.Errorf("apply qos to %s port %s: speed is not known; the fabric must give every data port a speed", dev.Name, p.Name)
		}
		cable := p.CableM
		if cable <= 0 {
			cable = in.CableLengthM
		}
		pc := PortConfig{
			Name: p.Name, SpeedGbps: p.SpeedGbps, CableM: cable, MTU: in.MTU,
			Peer: p.Peer, Fabric: true, PFCPriorities: []int{},
		}
		if in.PFC.Enabled {
			pc.PFCPriorities = slices.Clone(in.LosslessPriorities)
			if in.Watchdog.Enabled {
				pc.Watchdog = &PortWatchdog{DetectionMs: in.Watchdog.DetectionMs, RestorationMs: in.Watchdog.RestorationMs, Action: in.Watchdog.Action}
			}
		}
		for q := range NumTC {
			qc := QueueConfig{Queue: q}
			if q == cnpQueue && in.CNPStrict {
				qc.Strict = true
			} else if w, ok := in.ETSWeights[q]; ok {
				qc.Weight = w
			} else {
				// A queue without a weight still needs one to be
				// scheduled by DWRR; 1 is the smallest share.
				qc.Weight = 1
			}
			if in.ECN.Enabled && losslessQueues[q] {
				kmin, kmax := in.ECN.ECNThresholds(p.SpeedGbps)
				qc.ECN = &ECNConfig{MinBytes: kmin, MaxBytes: kmax, Pmax: in.ECN.Pmax}
			}
			if in.PFC.Enabled && losslessQueues[q] {
				qc.Buffer = Ptr(EgressLosslessProfile())
			} else {
				qc.Buffer = Ptr(EgressLossyProfile())
			}
			pc.Queues = append(pc.Queues, qc)
		}
		lossless := map[int]bool{}
		if in.PFC.Enabled {
			for _, tc := range in.LosslessPriorities {
				lossless[in.TCToPG[tc]] = true
			}
		}
		used := map[int]bool{}
		for _, pg := range in.TCToPG {
			used[pg] = true
		}
		for _, pg := range slices.Sorted(maps.Keys(used)) {
			if lossless[pg] {
				hr := HeadroomBytes(p.SpeedGbps, in.MTU, cable, in.Buffer.ResponseBits)
				xon := int64(2 * in.MTU)
				pc.PGs = append(pc.PGs, PGConfig{PG: pg, Lossless: true, BufferProfile: BufferProfile{
					Profile: LosslessPGProfileName(p.SpeedGbps, cable), Pool: IngressLosslessPool,
					XoffBytes: Ptr(hr), XonBytes: Ptr(xon), SizeBytes: Ptr(hr + xon),
					XonOffsetBytes: Ptr(int64(in.Buffer.XonOffsetBytes)), DynamicTh: Ptr(in.Buffer.DynamicTh),
				}})
			} else {
				pc.PGs = append(pc.PGs, PGConfig{PG: pg, BufferProfile: IngressLossyProfile()})
			}
		}
		dc.Ports = append(dc.Ports, pc)
	}
	sizeEgressLossless(in, dev, &dc)
	dc.Sort()
	return dc, nil
}

// sizeEgressLossless makes the egress lossless pool the whole buffer: the
// ingress shared pool plus every reserve and private headroom the intent
// can set aside (with PFC on, so the ASIC's size does not change with a
// variant). Lossless packets are bounded by PFC at ingress; an egress pool
// smaller than what ingress admits would drop them (SONiC's Broadcom
// profiles give egress_lossless_pool the whole MMU for the same reason).
func sizeEgressLossless(in Intent, dev Device, dc *DeviceConfig) {
	pl := dc.Pool(EgressLosslessPool)
	if pl == nil {
		return
	}
	total := dc.SharedPoolBytes
	lossy := Val(EgressLossyProfile().SizeBytes)
	for _, p := range dev.Ports {
		if !p.Fabric {
			continue
		}
		cable := p.CableM
		if cable <= 0 {
			cable = in.CableLengthM
		}
		pgs := map[int]bool{}
		for _, tc := range in.LosslessPriorities {
			pgs[in.TCToPG[tc]] = true
		}
		total += int64(len(pgs)) * (HeadroomBytes(p.SpeedGbps, in.MTU, cable, in.Buffer.ResponseBits) + int64(2*in.MTU))
		total += NumTC * lossy
	}
	pl.SizeBytes = total
}

// ApplyAll applies the intent to every switch (hosts are skipped).
func ApplyAll(in Intent, devs []Device) ([]DeviceConfig, error) {
	var out []DeviceConfig
	for _, d := range devs {
		if d.Role == "host" {
			continue
		}
		dc, err := Apply(in, d)
		if err != nil {
			return nil, err
		}
		out = append(out, dc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out, nil
}

// LosslessPriorities returns the union of PFC priorities over the ports.
func (d *DeviceConfig) LosslessPriorities() []int {
	set := map[int]bool{}
	for _, p := range d.Ports {
		for _, pr := range p.PFCPriorities {
			set[pr] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// LosslessDSCPs infers the DSCPs that travel lossless on a port: those
// whose TC is a PFC-enabled priority.
func (d *DeviceConfig) LosslessDSCPs(p *PortConfig) []int {
	var out []int
	m := p.DSCPMap(d)
	for dscp := range 64 {
		tc, ok := m[dscp]
		if ok && slices.Contains(p.PFCPriorities, tc) {
			out = append(out, dscp)
		}
	}
	return out
}

// FormatInts renders a sorted int list as "3,4".
func FormatInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
