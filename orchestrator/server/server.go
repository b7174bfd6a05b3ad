// Package server describes a GPU server as the fabric sees it: its GPUs
// joined by a scale-up domain (NVLink and NVSwitch by generation, or PCIe
// only) and each NIC behind a PCIe link. It decides, in one place, the
// bandwidth and latency of GPU-to-GPU transfers inside a server and the
// rate a NIC can actually feed from PCIe; the planner shows them, the
// simulator runs them and the collective closed forms read them.
package server

import (
	"fmt"
	"slices"
	"strings"
)

// Spec is the lab spec's server section. Zero fields take defaults that
// follow the NIC generation (Defaults).
type Spec struct {
	// ScaleUp is the GPU interconnect: nvlink3 (A100), nvlink4
	// (H100/H200), nvlink5 (B200), nvlink6 (Rubin), each through
	// NVSwitch, or pcie (no NVLink: GPUs talk over PCIe).
	ScaleUp string `yaml:"scale_up" json:"scale_up,omitempty"`
	// ScaleUpGBps overrides the generation's per-GPU bandwidth, in GB/s
	// counted both directions as NVIDIA quotes it (600 for NVLink 3).
	ScaleUpGBps *float64 `yaml:"scale_up_gbyte_s,omitempty" json:"scale_up_gbyte_s,omitempty"`
	// PCIeGen and PCIeLanes are the NIC's PCIe link (3 to 6, x1 to x16).
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
// directions together, as NVIDIA quotes it (the seed's table: A100 600
// GB/s, H100/H200 900 GB/s, B200 1.8 TB/s, Rubin 3.6 TB/s).
var nvlinkGBps = map[string]float64{NVLink3: 600, NVLink4: 900, NVLink5: 1800, NVLink6: 3600}

// pcieGTps is the per-lane transfer rate of each PCIe generation.
var pcieGTps = map[int]float64{3: 8, 4: 16, 5: 32, 6: 64}

// PCIeEfficiency is the share of a PCIe link's raw rate left for payload:
// the 128b/130b line code (generations 3 to 5; generation 6's FLIT mode
// costs about the same, 242 of 256 bytes) times the TLP header cost at a
// 256-byte max payload (24 bytes of header and framing per 256, 0.914).
// 0.9 is the round figure commonly used for DMA throughput over PCIe.
const PCIeEfficiency = 0.9

// Latencies of a transfer inside a server: NVLink through NVSwitch is
// sub-microsecond (the seed: "延迟亚微秒"); a GPU-to-GPU copy over PCIe
// crosses a PCIe switch or the root complex.
const (
	NVLinkLatencyNs = 500
	PCIeLatencyNs   = 1500
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
	// PCIeGbps is what the NIC's PCIe link carries per direction for
	// payload; NICGbps the NIC's port speed; NICUsableGbps the smaller.
	PCIeGbps      float64 `json:"pcie_gbps"`
	NICGbps       float64 `json:"nic_gbps"`
	NICUsableGbps float64 `json:"nic_usable_gbps"`
	// PCIeBound says the NIC cannot run at its port speed from PCIe.
	PCIeBound bool `json:"pcie_bound"`
	// Defaulted names the fields the spec left out, with the default's
	// reason.
	Defaulted map[string]string `json:"defaulted,omitempty"`
}

// Defaults gives the scale-up domain and PCIe generation that servers of a
// NIC speed come with: 200G NICs in A100 servers (NVLink 3, PCIe 4), 400G
// in H100/H200 (NVLink 4, PCIe 5), 800G in B200 (NVLink 5, PCIe 6); always
// x16.
func Defaults(nicGbps int) (scaleUp string, pcieGen, lanes int, why string) {
	switch {
	case nicGbps <= 200:
		return NVLink3, 4, 16, "servers with 200G NICs are A100-class: NVLink 3, PCIe 4.0 x16"
	case nicGbps <= 400:
		return NVLink4, 5, 16, "servers with 400G NICs are H100/H200-class: NVLink 4, PCIe 5.0 x16"
	default:
		return NVLink5, 6, 16, "servers with 800G NICs are B200-class: NVLink 5, PCIe 6.0 x16"
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

// Resolve checks a spec and fills in its defaults for NICs of nicGbps.
func Resolve(s Spec, nicGbps int) (Model, error) {
	defUp, defGen, defLanes, why := Defaults(nicGbps)
	m := Model{ScaleUp: s.ScaleUp, PCIeGen: s.PCIeGen, PCIeLanes: s.PCIeLanes, NICGbps: float64(nicGbps), Defaulted: map[string]string{}}
	if m.ScaleUp == "" {
		m.ScaleUp = defUp
		m.Defaulted["scale_up"] = why
	}
	if !slices.Contains(ScaleUps, m.ScaleUp) {
		return Model{}, &FieldError{"scale_up", fmt.Sprintf("unknown scale-up domain %q", m.ScaleUp), "use one of " + strings.Join(ScaleUps, ", ")}
	}
	if m.PCIeGen == 0 {
		m.PCIeGen = defGen
		m.Defaulted["pcie_gen"] = why
	}
	if _, ok := pcieGTps[m.PCIeGen]; !ok {
		return Model{}, &FieldError{"pcie_gen", fmt.Sprintf("PCIe generation %d is not one labctl knows", m.PCIeGen), "use 3, 4, 5 or 6"}
	}
	if m.PCIeLanes == 0 {
		m.PCIeLanes = defLanes
		m.Defaulted["pcie_lanes"] = why
	}
	if !slices.Contains([]int{1, 2, 4, 8, 16}, m.PCIeLanes) {
		return Model{}, &FieldError{"pcie_lanes", fmt.Sprintf("x%d is not a PCIe link width", m.PCIeLanes), "use 1, 2, 4, 8 or 16"}
	}
	m.PCIeGbps = pcieGTps[m.PCIeGen] * float64(m.PCIeLanes) * PCIeEfficiency
	m.NICUsableGbps = min(m.NICGbps, m.PCIeGbps)
	m.PCIeBound = m.PCIeGbps < m.NICGbps
	switch {
	case s.ScaleUpGBps != nil:
		if *s.ScaleUpGBps <= 0 || *s.ScaleUpGBps > 100000 {
			return Model{}, &FieldError{"scale_up_gbyte_s", fmt.Sprintf("%g GB/s is not a scale-up bandwidth", *s.ScaleUpGBps), "give the per-GPU bandwidth in GB/s, both directions, for example 900"}
		}
		m.ScaleUpGBps = *s.ScaleUpGBps
	case m.ScaleUp == PCIe:
		// GPUs without NVLink copy over their own PCIe links.
		m.ScaleUpGBps = 2 * m.PCIeGbps / 8
		m.Defaulted["scale_up_gbyte_s"] = "a GPU without NVLink copies over its PCIe link"
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
