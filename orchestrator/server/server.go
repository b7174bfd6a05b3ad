// Package server describes a GPU server as the fabric sees it: its GPUs
// joined by a scale-up domain (NVLink and NVSwitch by generation, or PCIe
// only) and each NIC behind a PCIe link. It decides, in one place, the
// bandwidth and latency of GPU-to-GPU transfers inside a server and the
// rate a NIC can actually feed from PCIe; the planner shows them, the
// simulator runs them and the collective closed forms read them.
package server

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Spec is the lab spec's server section. Zero fields take defaults that
// follow the NIC generation (Defaults).
type Spec struct {
	// ScaleUp is the GPU interconnect: nvlink3 (A100), nvlink4
	// (H100/H200), nvlink5 (B200/B300), nvlink6 (Rubin), each through
	// NVSwitch, or pcie (no NVLink: GPUs talk over PCIe).
	ScaleUp string `yaml:"scale_up" json:"scale_up,omitempty"`
	// ScaleUpGBps overrides the generation's per-GPU bandwidth, in GB/s
	// counted both directions as NVIDIA quotes it (600 for NVLink 3).
	ScaleUpGBps *float64 `yaml:"scale_up_gbyte_s,omitempty" json:"scale_up_gbyte_s,omitempty"`
	// PCIeGen and PCIeLanes are the NIC's PCIe link (3 to 6; x1 to x16,
	// or 32 for a NIC fed by two x16 links).
	PCIeGen   int `yaml:"pcie_gen" json:"pcie_gen,omitempty"`
	PCIeLanes int `yaml:"pcie_lanes" json:"pcie_lanes,omitempty"`
}

// Scale-up domains.
const (
	NVLink3 = "nvlink3"
	NVLink4 = "nvlink4"
	NVLink5 = "nvlink5"
	NVLink6 = "nvlink6"
	PCIe    = "pcie"
)

// ScaleUps lists the scale-up domains a spec may name.
var ScaleUps = []string{NVLink3, NVLink4, NVLink5, NVLink6, PCIe}

// nvlinkGBps is the per-GPU NVLink bandwidth of each generation, both
// directions together, as NVIDIA quotes it, and as the seed's table
// (dc-network-ai-cluster-topology, 3.9) gives it:
//   - NVLink 3, A100: 12 links of 50 GB/s, 600 GB/s (NVIDIA A100 Tensor
//     Core GPU Architecture whitepaper, 2020);
//   - NVLink 4, H100/H200: 18 links of 50 GB/s, 900 GB/s (NVIDIA H100
//     Tensor Core GPU Architecture whitepaper, 2022);
//   - NVLink 5, B200/B300: 18 links of 100 GB/s, 1.8 TB/s (NVIDIA's
//     NVLink and NVLink Switch page, Blackwell);
//   - NVLink 6, Rubin: 3.6 TB/s per GPU, 260 TB/s across an NVL72 rack
//     (NVIDIA Technical Blog, "Inside the NVIDIA Rubin Platform", 2026).
var nvlinkGBps = map[string]float64{NVLink3: 600, NVLink4: 900, NVLink5: 1800, NVLink6: 3600}

// NVLinkGBps is the per-GPU bandwidth NVIDIA quotes for an NVLink
// generation (both directions together), or 0 for pcie or an unknown name.
func NVLinkGBps(scaleUp string) float64 { return nvlinkGBps[scaleUp] }

// pcieGen is one PCIe generation's physical layer.
type pcieGen struct {
	// gtps is the per-lane transfer rate (PCI-SIG: 8, 16, 32 and 64 GT/s
	// for generations 3 to 6).
	gtps float64
	// lineShare is the share of the raw bits left for TLPs: the
	// 128b/130b code of generations 3 to 5 (2 sync bits per 128, Intel
	// AN 708 "Understanding PCI Express Throughput"), or for generation
	// 6 the FLIT, 236 of whose 256 bytes carry TLPs beside 6 of data link
	// payload, 8 of CRC and 6 of FEC (PCI-SIG's 6.0 FLIT layout).
	lineShare float64
	// tlpOverhead is what one TLP adds to its payload, in bytes: the
	// 4-dword header of a 64-bit memory write (a NIC's DMA address is
	// above 4 GiB) plus, up to generation 5, the 4-byte STP framing
	// token that holds the sequence number and the 4-byte LCRC (Intel
	// AN 456: 5 to 7 dwords per TLP). In FLIT mode sequence numbers and
	// CRC belong to the FLIT, so only the header remains.
	tlpOverhead float64
}

var pcieGens = map[int]pcieGen{
	3: {8, 128.0 / 130, 24},
	4: {16, 128.0 / 130, 24},
	5: {32, 128.0 / 130, 24},
	6: {64, 236.0 / 256, 16},
}

// PCIeMaxPayload is the TLP payload size the usable rate assumes: 256
// bytes, the Max_Payload_Size server root ports negotiate. Flow-control
// and ACK DLLPs are left out (a few percent under full duplex load), so
// the usable rate is an upper bound, as Intel AN 456 computes it.
const PCIeMaxPayload = 256

// PCIePayloadShare is the share of a PCIe generation's raw rate that is
// TLP payload: 0.900 for generations 3 to 5 (128/130 x 256/280), 0.868
// for generation 6 (236/256 x 256/272); 0 for an unknown generation.
func PCIePayloadShare(gen int) float64 {
	g, ok := pcieGens[gen]
	if !ok {
		return 0
	}
	return g.lineShare * PCIeMaxPayload / (PCIeMaxPayload + g.tlpOverhead)
}

// PCIeGTps is a generation's per-lane transfer rate, or 0 if unknown.
func PCIeGTps(gen int) float64 { return pcieGens[gen].gtps }

// PCIeGbps is what a PCIe link of gen and lanes carries of payload, per
// direction, in Gb/s: 230.5 for PCIe 4.0 x16, 460.9 for 5.0 x16, 888.5
// for 6.0 x16.
func PCIeGbps(gen, lanes int) float64 {
	return PCIeGTps(gen) * float64(lanes) * PCIePayloadShare(gen)
}

// PCIeGens and PCIeLanes list the generations and link widths a spec may
// name. 32 lanes stand for a NIC fed by two x16 links, as NVIDIA's Socket
// Direct and Multi-Host NICs are (a ConnectX-6 reaches 200 Gb/s from two
// PCIe 3.0 x16 links: ConnectX-6 EN product brief).
var (
	PCIeGens  = []int{3, 4, 5, 6}
	PCIeLanes = []int{1, 2, 4, 8, 16, 32}
)

// GenName is how a PCIe generation is written: "PCIe 5.0".
func GenName(gen int) string { return fmt.Sprintf("PCIe %d.0", gen) }

// Latencies of one transfer step inside a server, as NCCL's own cost
// model takes them (NVIDIA/nccl src/graph/tuning.cc, hwLat, the LL
// protocol's per-hop latency): 0.6 µs over NVLink through NVSwitch (the
// seed: sub-microsecond), 1.0 µs between GPUs over PCIe.
const (
	NVLinkLatencyNs = 600
	PCIeLatencyNs   = 1000
)

// Model is a resolved server: what the simulator and the closed forms use.
type Model struct {
	ScaleUp string `json:"scale_up"`
	// ScaleUpGBps is per GPU, both directions (as quoted);
	// ScaleUpGbpsPerDir what one GPU sends into the domain, in Gb/s.
	ScaleUpGBps       float64 `json:"scale_up_gbyte_s"`
	ScaleUpGbpsPerDir float64 `json:"scale_up_gbps_per_direction"`
	ScaleUpLatencyNs  int64   `json:"scale_up_latency_ns"`
	PCIeGen           int     `json:"pcie_gen"`
	PCIeLanes         int     `json:"pcie_lanes"`
	// PCIeGTps is the per-lane rate and PCIePayloadShare the share of the
	// raw rate that is payload (PCIePayloadShare).
	PCIeGTps         float64 `json:"pcie_gtransfers_per_lane"`
	PCIePayloadShare float64 `json:"pcie_payload_share"`
	// PCIeGbps is what the NIC's PCIe link carries per direction for
	// payload; NICGbps the NIC's port speed.
	PCIeGbps float64 `json:"pcie_gbps"`
	NICGbps  float64 `json:"nic_gbps"`
	// MTU and WireOverheadBytes are the packets NICUsableGbps is of
	// (WithFraming): MTU bytes of payload a full one, and what the
	// transport adds to each on the wire. 0 until WithFraming.
	MTU               int `json:"mtu"`
	WireOverheadBytes int `json:"wire_overhead_bytes"`
	// NICUsableGbps is what a NIC sends of payload (PayloadGbps of the
	// framing): its port's rate less the packets' headers, or PCIe's
	// payload rate when that is lower. PCIeBound says PCIe sets it: the
	// NIC cannot run its port at line rate from PCIe.
	NICUsableGbps float64 `json:"nic_usable_gbps"`
	PCIeBound     bool    `json:"pcie_bound"`
	// Defaulted names the fields the spec left out, with the default's
	// reason.
	Defaulted map[string]string `json:"defaulted,omitempty"`
}

// Defaults gives the scale-up domain and PCIe link that servers of a NIC
// speed come with: 200G NICs (ConnectX-6) in A100 servers, NVLink 3 and
// PCIe 4.0; 400G (ConnectX-7) in H100/H200, NVLink 4 and PCIe 5.0; 800G
// (ConnectX-8) in Blackwell B300, NVLink 5 and PCIe 6.0; 1.6T
// (ConnectX-9) in Rubin, NVLink 6. Each is x16, except that no x16 link
// of any generation carries 1.6 Tb/s, so a 1.6T NIC takes two (32 lanes).
func Defaults(nicGbps int) (scaleUp string, pcieGen, lanes int, why string) {
	switch {
	case nicGbps <= 200:
		return NVLink3, 4, 16, "servers with 200G NICs are A100-class: NVLink 3, PCIe 4.0 x16"
	case nicGbps <= 400:
		return NVLink4, 5, 16, "servers with 400G NICs are H100/H200-class: NVLink 4, PCIe 5.0 x16"
	case nicGbps <= 800:
		return NVLink5, 6, 16, "servers with 800G NICs are Blackwell-class (B300): NVLink 5, PCIe 6.0 x16"
	default:
		return NVLink6, 6, 32, fmt.Sprintf("servers with 1.6T NICs are Rubin-class: NVLink 6, and two PCIe 6.0 x16 links per NIC (one carries %.1f Gb/s)", PCIeGbps(6, 16))
	}
}

// FieldError is a problem with one field of a Spec (Field is its key under
// server:).
type FieldError struct {
	Field, Msg, Fix string
}

func (e *FieldError) Error() string {
	return "server." + e.Field + ": " + e.Msg + " (fix: " + e.Fix + ")"
}

// MaxScaleUpGBps bounds scale_up_gbyte_s: far above any NVLink (3600),
// so that a unit mistake (Gb/s for GB/s, or bytes) is caught.
const MaxScaleUpGBps = 100000

// Resolve checks a spec and fills in its defaults for NICs of nicGbps.
func Resolve(s Spec, nicGbps int) (Model, error) {
	defUp, defGen, defLanes, why := Defaults(nicGbps)
	m := Model{ScaleUp: s.ScaleUp, PCIeGen: s.PCIeGen, PCIeLanes: s.PCIeLanes, NICGbps: float64(nicGbps), Defaulted: map[string]string{}}
	if m.ScaleUp == "" {
		m.ScaleUp = defUp
		m.Defaulted["scale_up"] = why
	}
	if !slices.Contains(ScaleUps, m.ScaleUp) {
		return Model{}, &FieldError{"scale_up", fmt.Sprintf("unknown scale-up domain %q", m.ScaleUp), "use nvlink3 (A100), nvlink4 (H100/H200), nvlink5 (B200/B300), nvlink6 (Rubin) or pcie (GPUs without NVLink)"}
	}
	if m.PCIeGen == 0 {
		m.PCIeGen = defGen
		m.Defaulted["pcie_gen"] = why
	}
	if !slices.Contains(PCIeGens, m.PCIeGen) {
		return Model{}, &FieldError{"pcie_gen", fmt.Sprintf("PCIe generation %d is not one labctl knows", m.PCIeGen), "use 3, 4, 5 or 6 (8, 16, 32 or 64 GT/s per lane)"}
	}
	if m.PCIeLanes == 0 {
		m.PCIeLanes = defLanes
		m.Defaulted["pcie_lanes"] = why
	}
	if !slices.Contains(PCIeLanes, m.PCIeLanes) {
		return Model{}, &FieldError{"pcie_lanes", fmt.Sprintf("x%d is not a PCIe link width", m.PCIeLanes), "use 1, 2, 4, 8 or 16, or 32 for a NIC fed by two x16 links"}
	}
	m.PCIeGTps = PCIeGTps(m.PCIeGen)
	m.PCIePayloadShare = PCIePayloadShare(m.PCIeGen)
	m.PCIeGbps = PCIeGbps(m.PCIeGen, m.PCIeLanes)
	switch {
	case s.ScaleUpGBps != nil:
		// Written so that NaN fails too.
		if v := *s.ScaleUpGBps; !(v > 0 && v <= MaxScaleUpGBps) {
			return Model{}, &FieldError{"scale_up_gbyte_s", fmt.Sprintf("%g GB/s is not a scale-up bandwidth", v), fmt.Sprintf("give the per-GPU bandwidth in GB/s, both directions together, above 0 and at most %d (NVLink 4 is 900), or leave it out for the generation's figure", MaxScaleUpGBps)}
		}
		m.ScaleUpGBps = *s.ScaleUpGBps
	case m.ScaleUp == PCIe:
		// GPUs without NVLink copy over PCIe; a GPU's link is taken to be
		// as fast as its NIC's (same generation and width).
		m.ScaleUpGBps = 2 * m.PCIeGbps / 8
		m.Defaulted["scale_up_gbyte_s"] = "a GPU without NVLink copies over a PCIe link like its NIC's"
	default:
		m.ScaleUpGBps = nvlinkGBps[m.ScaleUp]
		m.Defaulted["scale_up_gbyte_s"] = "NVIDIA's per-GPU figure for " + m.ScaleUp
	}
	m.ScaleUpGbpsPerDir = m.ScaleUpGBps / 2 * 8
	m.ScaleUpLatencyNs = NVLinkLatencyNs
	if m.ScaleUp == PCIe {
		m.ScaleUpLatencyNs = PCIeLatencyNs
	}
	if len(m.Defaulted) == 0 {
		m.Defaulted = nil
	}
	return m, nil
}

// NICPayloadGbps is what a NIC sends of payload per direction, in Gb/s:
// its port's rate times the payload share of a full packet on the wire,
// mtu/(mtu+overheadBytes) (overheadBytes being what the transport adds
// to every packet: its headers, and on Ethernet the preamble and gap), or
// its PCIe link's payload rate when that is lower. PCIe carries the
// payload alone: pcieGbps (PCIeGbps) has its own TLP and encoding
// overheads taken off already, and the port's headers never cross it,
// so the two compare as payload. pcieGbps 0 bounds nothing.
//
// It is the one place a NIC's usable rate is worked out: the plan's (a
// Model's NICUsableGbps), a lab's ideal goodput, the collectives' closed
// forms (NCCL's bound) and the ring AllReduce theory take it, and the
// simulator charges a capped NIC's payload, not its wire bytes, against
// the PCIe rate to match.
func NICPayloadGbps(portGbps, pcieGbps float64, mtu, overheadBytes int) float64 {
	r := portGbps * float64(mtu) / float64(mtu+overheadBytes)
	if pcieGbps > 0 {
		r = min(r, pcieGbps)
	}
	return r
}

// PayloadGbps is NICPayloadGbps of the model's NIC and PCIe link.
func (m Model) PayloadGbps(mtu, overheadBytes int) float64 {
	return NICPayloadGbps(m.NICGbps, m.PCIeGbps, mtu, overheadBytes)
}

// WithFraming is m with its usable rate (NICUsableGbps, PCIeBound) for
// packets of mtu bytes of payload and overheadBytes more on the wire:
// the lab's MTU and transport where the plan shows it.
func (m Model) WithFraming(mtu, overheadBytes int) Model {
	m.MTU, m.WireOverheadBytes = mtu, overheadBytes
	m.NICUsableGbps = m.PayloadGbps(mtu, overheadBytes)
	m.PCIeBound = m.NICUsableGbps < m.portPayloadGbps()
	return m
}

// portPayloadGbps is what the NIC's port carries of payload at the
// model's framing, PCIe aside.
func (m Model) portPayloadGbps() float64 {
	return NICPayloadGbps(m.NICGbps, 0, m.MTU, m.WireOverheadBytes)
}

// framingText says what the port's payload rate is of: "MTU 4096, 82
// bytes a packet on the wire".
func (m Model) framingText() string {
	return fmt.Sprintf("MTU %d, %d bytes a packet on the wire", m.MTU, m.WireOverheadBytes)
}

// LinkName is the NIC's PCIe link as written: "PCIe 5.0 x16", or "two
// PCIe 6.0 x16 links" for 32 lanes.
func (m Model) LinkName() string { return linkName(m.PCIeGen, m.PCIeLanes) }

func linkName(gen, lanes int) string {
	if lanes == 32 {
		return "two " + GenName(gen) + " x16 links"
	}
	return fmt.Sprintf("%s x%d", GenName(gen), lanes)
}

// PCIeBoundWarning is the warning for a NIC its PCIe link cannot feed at
// port speed (the seed, 3.3: a 400G NIC can be PCIe-bound), with the
// smallest change of link that feeds it; "" when the NIC is not bound.
// Every NIC of a server is taken to have a link of its own; NICs sharing
// a PCIe switch's uplink are bound sooner.
func (m Model) PCIeBoundWarning() string {
	if !m.PCIeBound {
		return ""
	}
	port := m.portPayloadGbps()
	msg := fmt.Sprintf("the %gG NICs are PCIe-bound: %s carries %.1f Gb/s of payload per direction (%.1f%% of %g GT/s x %d), so a NIC sends and receives at most %.1f Gb/s of payload, %.0f%% of the %.1f Gb/s its port carries (%s)",
		m.NICGbps, m.LinkName(), m.PCIeGbps, 100*m.PCIePayloadShare, m.PCIeGTps, m.PCIeLanes, m.NICUsableGbps, 100*m.NICUsableGbps/port, port, m.framingText())
	var fixes []string
	for _, g := range PCIeGens {
		if g > m.PCIeGen && PCIeGbps(g, m.PCIeLanes) >= port {
			fixes = append(fixes, fmt.Sprintf("--pcie-gen %d, or pcie_gen: %d in the lab spec's server (%s carries %.1f Gb/s)", g, g, linkName(g, m.PCIeLanes), PCIeGbps(g, m.PCIeLanes)))
			break
		}
	}
	for _, l := range PCIeLanes {
		if l > m.PCIeLanes && PCIeGbps(m.PCIeGen, l) >= port {
			fixes = append(fixes, fmt.Sprintf("--pcie-lanes %d, or pcie_lanes: %d (%s carry %.1f Gb/s)", l, l, linkName(m.PCIeGen, l), PCIeGbps(m.PCIeGen, l)))
			break
		}
	}
	if len(fixes) == 0 {
		// Neither change alone is enough: the fastest link labctl knows.
		g, l := PCIeGens[len(PCIeGens)-1], PCIeLanes[len(PCIeLanes)-1]
		if PCIeGbps(g, l) >= port {
			fixes = append(fixes, fmt.Sprintf("--pcie-gen %d --pcie-lanes %d, or pcie_gen: %d and pcie_lanes: %d in the lab spec's server (%s carry %.1f Gb/s)", g, l, g, l, linkName(g, l), PCIeGbps(g, l)))
		} else {
			fixes = append(fixes, "a slower NIC: no PCIe link labctl knows feeds this one")
		}
	}
	return msg + " (fix: " + strings.Join(fixes, "; or ") + ")"
}

// scaleUpNames are the scale-up domains as written in prose.
var scaleUpNames = map[string]string{NVLink3: "NVLink 3", NVLink4: "NVLink 4", NVLink5: "NVLink 5", NVLink6: "NVLink 6", PCIe: "PCIe only (no NVLink)"}

// The summaries below are how the planner (and anything else that
// describes a server) writes the model, so that every output says the
// same thing in the same units.

// ScaleUpSummary describes the GPUs' interconnect: "NVLink 3 through
// NVSwitch: 600 GB/s per GPU (both directions; 2400 Gb/s each way), 0.6 µs
// per transfer step".
func (m Model) ScaleUpSummary() string {
	name := scaleUpNames[m.ScaleUp]
	if m.ScaleUp != PCIe {
		name += " through NVSwitch"
	}
	return fmt.Sprintf("%s: %g GB/s per GPU (both directions; %g Gb/s each way), %.1f µs per transfer step", name, round1(m.ScaleUpGBps), round1(m.ScaleUpGbpsPerDir), float64(m.ScaleUpLatencyNs)/1000)
}

// PCIeSummary describes a NIC's PCIe link: "PCIe 4.0 x16: 230.5 Gb/s of
// payload per direction (16 GT/s x 16 lanes, 90.0% payload)".
func (m Model) PCIeSummary() string {
	return fmt.Sprintf("%s: %.1f Gb/s of payload per direction (%g GT/s x %d lanes, %.1f%% payload)", m.LinkName(), m.PCIeGbps, m.PCIeGTps, m.PCIeLanes, 100*m.PCIePayloadShare)
}

// NICSummary says what a NIC can send of payload: "196.1 Gb/s of
// payload, what its 200G port carries (MTU 4096, 82 bytes a packet on the
// wire; PCIe carries 230.5 Gb/s)", or "230.5 Gb/s of payload: PCIe-bound
// (its 400G port carries 392.1 Gb/s at MTU 4096, 82 bytes a packet on
// the wire)".
func (m Model) NICSummary() string {
	if m.PCIeBound {
		return fmt.Sprintf("%.1f Gb/s of payload: PCIe-bound (its %gG port carries %.1f Gb/s at %s)", m.NICUsableGbps, m.NICGbps, m.portPayloadGbps(), m.framingText())
	}
	return fmt.Sprintf("%.1f Gb/s of payload, what its %gG port carries (%s; PCIe carries %.1f Gb/s)", m.NICUsableGbps, m.NICGbps, m.framingText(), m.PCIeGbps)
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// specKeys are the keys of Spec in the order a spec writes them.
var specKeys = []string{"scale_up", "scale_up_gbyte_s", "pcie_gen", "pcie_lanes"}

// DefaultsSummary says which keys took defaults and why, keys sharing a
// reason together: "scale_up, pcie_gen, pcie_lanes: servers with 200G
// NICs are A100-class: ...; scale_up_gbyte_s: NVIDIA's per-GPU figure for
// nvlink3". It is "" when the spec gave every key.
func (m Model) DefaultsSummary() string {
	var reasons []string
	keys := map[string][]string{}
	for _, k := range specKeys {
		r, ok := m.Defaulted[k]
		if !ok {
			continue
		}
		if _, seen := keys[r]; !seen {
			reasons = append(reasons, r)
		}
		keys[r] = append(keys[r], k)
	}
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = strings.Join(keys[r], ", ") + ": " + r
	}
	return strings.Join(parts, "; ")
}
