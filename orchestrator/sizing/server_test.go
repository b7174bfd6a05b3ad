package sizing

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sim"
)

func planWithServer(t *testing.T, in Input, s server.Spec) *Plan {
	t.Helper()
	p, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	m, err := server.Resolve(s, p.NICSpeedGbps)
	if err != nil {
		t.Fatal(err)
	}
	// The framing labctl plan gives a lab without qos.mtu or transport.
	p.SetServer(m.WithFraming(sim.DefaultMTU, sim.WireOverheadBytes))
	return p
}

func render(t *testing.T, p *Plan) (table, md, js string) {
	t.Helper()
	var tb, mb bytes.Buffer
	if err := WriteTable(&tb, p); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&mb, p); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return tb.String(), mb.String(), string(j)
}

// The plan shows the servers in every output: the scale-up domain, the
// NICs' PCIe links and what a NIC sends, with the warning when PCIe binds.
func TestPlanShowsServers(t *testing.T) {
	const bound = "the 400G NICs are PCIe-bound: PCIe 4.0 x16 carries 230.5 Gb/s"
	cases := []struct {
		name     string
		in       Input
		spec     server.Spec
		table    []string
		md       []string
		json     []string
		warnings int // PCIe warnings
	}{
		{
			name: "catalog defaults", in: Input{GPUs: 64}, spec: server.Spec{},
			table: []string{
				"    scale-up (default)           NVLink 3 through NVSwitch: 600 GB/s per GPU (both directions; 2400 Gb/s each way), 0.6 µs per transfer step\n",
				"    NIC PCIe link (default)      PCIe 4.0 x16: 230.5 Gb/s of payload per direction (16 GT/s x 16 lanes, 90.0% payload)\n",
				"    NIC usable rate              196.1 Gb/s of payload, what its 200G port carries (MTU 4096, 82 bytes a packet on the wire; PCIe carries 230.5 Gb/s)\n",
			},
			md: []string{"## 1. Servers\n\n8 servers", "| scale-up domain | NVLink 3 through NVSwitch: 600 GB/s per GPU", "| NIC usable rate | 196.1 Gb/s of payload, what its 200G port carries",
				"Defaults (the lab spec's server section leaves them out): scale_up, pcie_gen, pcie_lanes: servers with 200G NICs are A100-class"},
			json: []string{`"server":{"scale_up":"nvlink3","scale_up_gbyte_s":600,`, `"pcie_bound":false`, `"mtu":4096,"wire_overhead_bytes":82,"nic_usable_gbps":196.07467687888942,`},
		},
		{
			name: "400G on PCIe 4.0", in: Input{GPUs: 64, NICSpeedGbps: 400}, spec: server.Spec{ScaleUp: server.NVLink4, PCIeGen: 4},
			table: []string{
				"    scale-up  ", "NVLink 4 through NVSwitch: 900 GB/s per GPU",
				"    NIC PCIe link (default lanes)  PCIe 4.0 x16",
				"    NIC usable rate                230.5 Gb/s of payload: PCIe-bound (its 400G port carries 392.1 Gb/s at MTU 4096, 82 bytes a packet on the wire)\n",
				"\nwarning: " + bound,
			},
			md:       []string{"The NICs are PCIe-bound (see the warnings).", "## Warnings\n\n", "- " + bound, "pcie_lanes: servers with 400G NICs"},
			json:     []string{`"pcie_bound":true`, `"nic_usable_gbps":230.45626373626374`, bound},
			warnings: 1,
		},
		{
			name: "800G on PCIe 5.0 x16, one switch", in: Input{GPUs: 8, NICSpeedGbps: 800, LeafSpeedGbps: 800, Tiers: 1}, spec: server.Spec{PCIeGen: 5, PCIeLanes: 16},
			table:    []string{"NVLink 5 through NVSwitch: 1800 GB/s", "PCIe 5.0 x16: 460.9 Gb/s", "460.9 Gb/s of payload: PCIe-bound (its 800G port carries 784.3 Gb/s", "warning: the 800G NICs are PCIe-bound"},
			md:       []string{"# 8-GPU single-switch fabric design", "| NIC PCIe link | PCIe 5.0 x16: 460.9 Gb/s", "- the 800G NICs are PCIe-bound", "Defaults (the lab spec's server section leaves them out): scale_up: servers with 800G NICs"},
			json:     []string{`"pcie_gen":5`, `"pcie_bound":true`},
			warnings: 1,
		},
		{
			name: "400G on PCIe 5.0: not bound", in: Input{GPUs: 64, NICSpeedGbps: 400}, spec: server.Spec{},
			table: []string{"NVLink 4 through NVSwitch", "PCIe 5.0 x16: 460.9 Gb/s", "392.1 Gb/s of payload, what its 400G port carries"},
			md:    []string{"| NIC usable rate | 392.1 Gb/s of payload, what its 400G port carries"},
			json:  []string{`"pcie_bound":false`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := planWithServer(t, c.in, c.spec)
			n := 0
			for _, w := range p.Warnings {
				if strings.Contains(w, "PCIe-bound") {
					n++
				}
			}
			if n != c.warnings {
				t.Errorf("%d PCIe warnings, want %d: %v", n, c.warnings, p.Warnings)
			}
			table, md, js := render(t, p)
			for _, s := range c.table {
				if !strings.Contains(table, s) {
					t.Errorf("table lacks %q:\n%s", s, table)
				}
			}
			for _, s := range c.md {
				if !strings.Contains(md, s) {
					t.Errorf("design document lacks %q:\n%s", s, md)
				}
			}
			for _, s := range c.json {
				if !strings.Contains(js, s) {
					t.Errorf("JSON lacks %q:\n%s", s, js)
				}
			}
			if c.warnings == 0 && (strings.Contains(md, "PCIe-bound") || strings.Contains(table, "PCIe-bound")) {
				t.Errorf("a NIC that is not bound is called bound:\n%s\n%s", table, md)
			}
		})
	}
}

// A plan made without servers says nothing of them.
func TestPlanWithoutServers(t *testing.T) {
	p, err := Compute(Input{GPUs: 64})
	if err != nil {
		t.Fatal(err)
	}
	table, md, js := render(t, p)
	if strings.Contains(table, "scale-up") || strings.Contains(md, "scale-up") || strings.Contains(js, `"server":{`) {
		t.Errorf("servers shown without a model:\n%s\n%s\n%s", table, md, js)
	}
}
