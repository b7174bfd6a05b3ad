package server_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/sizing"
)

// roce frames m's usable rate as RoCE v2 at the default MTU: 4096 bytes
// of payload a packet, 82 more on the wire.
func roce(m server.Model) server.Model { return m.WithFraming(sim.DefaultMTU, sim.WireOverheadBytes) }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func ptr(v float64) *float64 { return &v }

// The per-GPU figures are NVIDIA's (links x per-link bandwidth), written
// out here rather than read from the package.
func TestResolveScaleUpGenerations(t *testing.T) {
	cases := []struct {
		scaleUp string
		gbyte   float64 // both directions
		latency int64
	}{
		{server.NVLink3, 12 * 50, 600},  // A100: 12 links x 50 GB/s
		{server.NVLink4, 18 * 50, 600},  // H100: 18 links x 50 GB/s
		{server.NVLink5, 18 * 100, 600}, // B200: 18 links x 100 GB/s
		{server.NVLink6, 3600, 600},     // Rubin: 3.6 TB/s
	}
	for _, c := range cases {
		m, err := server.Resolve(server.Spec{ScaleUp: c.scaleUp}, 200)
		if err != nil {
			t.Fatalf("%s: %v", c.scaleUp, err)
		}
		if m.ScaleUpGBps != c.gbyte || !near(m.ScaleUpGbpsPerDir, c.gbyte/2*8) || m.ScaleUpLatencyNs != c.latency {
			t.Errorf("%s: %g GB/s, %g Gb/s per direction, %d ns; want %g, %g, %d", c.scaleUp, m.ScaleUpGBps, m.ScaleUpGbpsPerDir, m.ScaleUpLatencyNs, c.gbyte, c.gbyte/2*8, c.latency)
		}
		if _, ok := m.Defaulted["scale_up"]; ok {
			t.Errorf("%s: given scale_up reported as defaulted", c.scaleUp)
		}
		if !strings.Contains(m.Defaulted["scale_up_gbyte_s"], "NVIDIA") {
			t.Errorf("%s: the bandwidth's source is not named: %v", c.scaleUp, m.Defaulted)
		}
	}
	// PCIe only: a GPU copies over a link like its NIC's, both directions
	// counted; PCIe 4.0 x16 carries 16 GT/s x 16 x 128/130 x 256/280.
	m, err := server.Resolve(server.Spec{ScaleUp: server.PCIe}, 200)
	if err != nil {
		t.Fatal(err)
	}
	perDir := 16.0 * 16 * 128 / 130 * 256 / 280
	if !near(m.ScaleUpGBps, 2*perDir/8) || !near(m.ScaleUpGbpsPerDir, perDir) || m.ScaleUpLatencyNs != 1000 {
		t.Errorf("pcie: %g GB/s, %g Gb/s per direction, %d ns; want %g, %g, 1000", m.ScaleUpGBps, m.ScaleUpGbpsPerDir, m.ScaleUpLatencyNs, 2*perDir/8, perDir)
	}
	// An override wins over the generation's figure, on NVLink and PCIe.
	for _, up := range []string{server.NVLink4, server.PCIe} {
		m, err := server.Resolve(server.Spec{ScaleUp: up, ScaleUpGBps: ptr(450)}, 400)
		if err != nil || m.ScaleUpGBps != 450 || m.ScaleUpGbpsPerDir != 1800 {
			t.Errorf("%s with 450 GB/s: %+v, %v", up, m, err)
		}
		if _, ok := m.Defaulted["scale_up_gbyte_s"]; ok {
			t.Errorf("%s: given scale_up_gbyte_s reported as defaulted", up)
		}
	}
}

// PCIe payload rates per direction, from the specification's numbers:
// generations 3 to 5 lose 2 bits in 130 to the line code and 24 bytes per
// 256-byte TLP (4-byte STP token with the sequence number, 16-byte 4-dword
// header, 4-byte LCRC); generation 6 keeps 236 of a FLIT's 256 bytes for
// TLPs, and a TLP adds its 16-byte header.
func TestPCIeRates(t *testing.T) {
	gen35 := 128.0 / 130 * 256 / (256 + 4 + 16 + 4)
	gen6 := 236.0 / 256 * 256 / (256 + 16)
	cases := []struct {
		gen, lanes int
		want       float64
		approx     float64 // the rounded figure the docs quote
	}{
		{3, 16, 8 * 16 * gen35, 115.2},
		{4, 16, 16 * 16 * gen35, 230.5},
		{4, 8, 16 * 8 * gen35, 115.2},
		{5, 16, 32 * 16 * gen35, 460.9},
		{6, 16, 64 * 16 * gen6, 888.5},
		{6, 32, 64 * 32 * gen6, 1776.9},
		{5, 1, 32 * gen35, 28.8},
	}
	for _, c := range cases {
		got := server.PCIeGbps(c.gen, c.lanes)
		if !near(got, c.want) || math.Abs(got-c.approx) > 0.05 {
			t.Errorf("PCIe %d.0 x%d: %.4f Gb/s, want %.4f (about %.1f)", c.gen, c.lanes, got, c.want, c.approx)
		}
		m, err := server.Resolve(server.Spec{PCIeGen: c.gen, PCIeLanes: c.lanes}, 100)
		if err != nil || !near(m.PCIeGbps, c.want) || m.PCIeGTps*float64(m.PCIeLanes)*m.PCIePayloadShare != m.PCIeGbps {
			t.Errorf("Resolve PCIe %d.0 x%d: %+v, %v", c.gen, c.lanes, m, err)
		}
	}
	if server.PCIeGbps(7, 16) != 0 || server.PCIePayloadShare(2) != 0 {
		t.Error("an unknown generation has a rate")
	}
}

// Which NICs a PCIe link feeds. The rows from NVIDIA's NIC manuals check
// the model against hardware: a ConnectX-6 runs 100GbE from PCIe 3.0 x16
// but needs PCIe 4.0 x16, or two 3.0 x16 links (Socket Direct), for
// 200GbE; a ConnectX-7 runs 400G from PCIe 5.0 x16 and a ConnectX-8 800G
// from PCIe 6.0 x16.
func TestPCIeBound(t *testing.T) {
	cases := []struct {
		nic, gen, lanes int
		bound           bool
	}{
		{400, 4, 16, true},
		{400, 5, 16, false},
		{800, 5, 16, true},
		{800, 6, 16, false},
		{200, 4, 16, false},
		{200, 3, 16, true},
		{100, 3, 16, false},
		{200, 3, 32, false},
		{200, 4, 8, true},
		{1600, 6, 16, true},
		{1600, 6, 32, false},
		{400, 4, 32, false},
	}
	for _, c := range cases {
		m, err := server.Resolve(server.Spec{PCIeGen: c.gen, PCIeLanes: c.lanes}, c.nic)
		if err != nil {
			t.Fatal(err)
		}
		m = roce(m)
		if m.PCIeBound != c.bound {
			t.Errorf("%dG NIC on PCIe %d.0 x%d: bound %v, want %v (%.1f Gb/s)", c.nic, c.gen, c.lanes, m.PCIeBound, c.bound, m.PCIeGbps)
		}
		// Payload either way: the port's less RoCE's 82 bytes a packet,
		// or all PCIe carries (which carries no packet headers).
		wantUsable := float64(c.nic) * 4096 / 4178
		if c.bound {
			wantUsable = m.PCIeGbps
		}
		if m.NICUsableGbps != wantUsable || m.NICGbps != float64(c.nic) {
			t.Errorf("%dG NIC on PCIe %d.0 x%d: usable %g, NIC %g; want %g", c.nic, c.gen, c.lanes, m.NICUsableGbps, m.NICGbps, wantUsable)
		}
		w := m.PCIeBoundWarning()
		if (w != "") != c.bound {
			t.Errorf("%dG NIC on PCIe %d.0 x%d: warning %q", c.nic, c.gen, c.lanes, w)
		}
	}
}

// NICPayloadGbps compares payload with payload: the port's rate less its
// packets' headers against PCIe's payload rate, so a link between the
// two (199 Gb/s under a 200G RoCE port, which carries 196.07 Gb/s of
// payload at MTU 4096) binds nothing, and one below carries its own
// rate, not that rate less the port's headers.
func TestNICPayloadGbps(t *testing.T) {
	port := 200 * 4096.0 / 4178
	for _, c := range []struct{ pcie, want float64 }{{0, port}, {199, port}, {300, port}, {115.2, 115.2}, {port, port}} {
		if got := server.NICPayloadGbps(200, c.pcie, 4096, 82); got != c.want {
			t.Errorf("200G port, PCIe %v Gb/s: %v Gb/s of payload, want %v", c.pcie, got, c.want)
		}
	}
	// InfiniBand's 26 bytes a packet: more of the port is payload.
	if got, want := server.NICPayloadGbps(200, 0, 4096, 26), 200*4096.0/4122; got != want {
		t.Errorf("InfiniBand: %v, want %v", got, want)
	}
	m, _ := server.Resolve(server.Spec{PCIeGen: 4}, 200)
	if m = m.WithFraming(256, 82); m.NICUsableGbps != 200*256.0/338 || m.PCIeBound || m.MTU != 256 || m.WireOverheadBytes != 82 {
		t.Errorf("200G on PCIe 4.0 x16 at MTU 256: %+v", m)
	}
}

func TestPCIeBoundWarningNamesTheFix(t *testing.T) {
	m, _ := server.Resolve(server.Spec{PCIeGen: 4}, 400)
	w := roce(m).PCIeBoundWarning()
	for _, s := range []string{"400G NICs are PCIe-bound", "PCIe 4.0 x16 carries 230.5 Gb/s", "at most 230.5 Gb/s of payload, 59% of the 392.1 Gb/s its port carries (MTU 4096, 82 bytes a packet on the wire)",
		"fix: --pcie-gen 5, or pcie_gen: 5 in the lab spec's server (PCIe 5.0 x16 carries 460.9 Gb/s)", "--pcie-lanes 32, or pcie_lanes: 32 (two PCIe 4.0 x16 links carry 460.9 Gb/s)"} {
		if !strings.Contains(w, s) {
			t.Errorf("warning %q lacks %q", w, s)
		}
	}
	// 800G on PCIe 5.0 x16: generation 6 or two links.
	m, _ = server.Resolve(server.Spec{PCIeGen: 5, PCIeLanes: 16}, 800)
	if w := roce(m).PCIeBoundWarning(); !strings.Contains(w, "--pcie-gen 6") || !strings.Contains(w, "--pcie-lanes 32") {
		t.Errorf("800G on PCIe 5.0 x16: %q", w)
	}
	// A x1 link under a 1.6T NIC: no single change is enough.
	m, _ = server.Resolve(server.Spec{PCIeGen: 3, PCIeLanes: 1}, 1600)
	if w := roce(m).PCIeBoundWarning(); !strings.Contains(w, "--pcie-gen 6 --pcie-lanes 32") || strings.Contains(w, "--pcie-gen 4") {
		t.Errorf("1.6T on PCIe 3.0 x1: %q", w)
	}
}

// The defaults follow the NIC speed, and no default leaves a NIC
// PCIe-bound: the catalog's 200G labs get A100-class servers.
func TestDefaultsFollowNICSpeed(t *testing.T) {
	m, err := server.Resolve(server.Spec{}, sizing.DefaultNICSpeedGbps)
	if err != nil {
		t.Fatal(err)
	}
	if m = roce(m); m.ScaleUp != server.NVLink3 || m.PCIeGen != 4 || m.PCIeLanes != 16 || m.PCIeBound || m.NICUsableGbps != 200*4096.0/4178 {
		t.Errorf("200G default: %+v", m)
	}
	for _, k := range []string{"scale_up", "scale_up_gbyte_s", "pcie_gen", "pcie_lanes"} {
		if m.Defaulted[k] == "" {
			t.Errorf("default %s has no reason: %v", k, m.Defaulted)
		}
	}
	want := map[int][3]any{400: {server.NVLink4, 5, 16}, 800: {server.NVLink5, 6, 16}, 1600: {server.NVLink6, 6, 32}, 10: {server.NVLink3, 4, 16}}
	for nic, w := range want {
		m, _ := server.Resolve(server.Spec{}, nic)
		if m.ScaleUp != w[0] || m.PCIeGen != w[1] || m.PCIeLanes != w[2] {
			t.Errorf("%dG default: %s, gen %d, x%d; want %v", nic, m.ScaleUp, m.PCIeGen, m.PCIeLanes, w)
		}
	}
	for _, nic := range sizing.Speeds {
		m, err := server.Resolve(server.Spec{}, nic)
		if err != nil || roce(m).PCIeBound || m.PCIeGbps < m.NICGbps {
			t.Errorf("%dG NIC: its default server is PCIe-bound or refused: %+v, %v", nic, m, err)
		}
	}
	// Everything given: nothing defaulted.
	m, _ = server.Resolve(server.Spec{ScaleUp: server.NVLink4, ScaleUpGBps: ptr(900), PCIeGen: 5, PCIeLanes: 16}, 400)
	if m.Defaulted != nil {
		t.Errorf("a full spec reports defaults: %v", m.Defaulted)
	}
}

// Every bad value is refused at its field with a fix; the benign values
// beside them are taken.
func TestResolveRefusesBadValues(t *testing.T) {
	bad := []struct {
		spec  server.Spec
		field string
		msg   string
	}{
		{server.Spec{ScaleUp: "nvlink7"}, "scale_up", `unknown scale-up domain "nvlink7"`},
		{server.Spec{ScaleUp: "NVLink4"}, "scale_up", "unknown scale-up domain"},
		{server.Spec{ScaleUp: "nvswitch"}, "scale_up", "unknown scale-up domain"},
		{server.Spec{PCIeGen: 2}, "pcie_gen", "PCIe generation 2"},
		{server.Spec{PCIeGen: 7}, "pcie_gen", "PCIe generation 7"},
		{server.Spec{PCIeGen: -4}, "pcie_gen", "PCIe generation -4"},
		{server.Spec{PCIeLanes: 3}, "pcie_lanes", "x3 is not a PCIe link width"},
		{server.Spec{PCIeLanes: 64}, "pcie_lanes", "x64"},
		{server.Spec{PCIeLanes: -16}, "pcie_lanes", "x-16"},
		{server.Spec{ScaleUpGBps: ptr(0)}, "scale_up_gbyte_s", "0 GB/s is not a scale-up bandwidth"},
		{server.Spec{ScaleUpGBps: ptr(-900)}, "scale_up_gbyte_s", "-900 GB/s"},
		{server.Spec{ScaleUpGBps: ptr(math.NaN())}, "scale_up_gbyte_s", "NaN GB/s"},
		{server.Spec{ScaleUpGBps: ptr(math.Inf(1))}, "scale_up_gbyte_s", "+Inf GB/s"},
		{server.Spec{ScaleUpGBps: ptr(900e9)}, "scale_up_gbyte_s", "9e+11 GB/s"},
	}
	for _, c := range bad {
		_, err := server.Resolve(c.spec, 200)
		var fe *server.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Msg, c.msg) || fe.Fix == "" {
			t.Errorf("%+v: %v, want a %s error with %q and a fix", c.spec, err, c.field, c.msg)
			continue
		}
		if !strings.HasPrefix(err.Error(), "server."+c.field+": ") || !strings.Contains(err.Error(), "(fix: ") {
			t.Errorf("%+v: error %q does not name server.%s and the fix", c.spec, err, c.field)
		}
	}
	benign := []server.Spec{
		{ScaleUp: server.PCIe, PCIeGen: 3, PCIeLanes: 1},
		{ScaleUpGBps: ptr(float64(server.MaxScaleUpGBps))},
		{ScaleUpGBps: ptr(0.5)},
		{PCIeGen: 6, PCIeLanes: 32},
	}
	for _, s := range benign {
		if _, err := server.Resolve(s, 200); err != nil {
			t.Errorf("%+v refused: %v", s, err)
		}
	}
}

// DefaultsSummary names every key of Spec (its yaml tags, read here by
// reflection) when the spec gives none, and none when it gives all.
func TestDefaultsSummaryNamesEveryKey(t *testing.T) {
	m, _ := server.Resolve(server.Spec{}, 200)
	d := m.DefaultsSummary()
	st := reflect.TypeOf(server.Spec{})
	for i := range st.NumField() {
		key := strings.Split(st.Field(i).Tag.Get("yaml"), ",")[0]
		if !strings.Contains(d, key) {
			t.Errorf("defaults %q do not name %s", d, key)
		}
	}
	if !strings.Contains(d, "scale_up, pcie_gen, pcie_lanes: servers with 200G NICs are A100-class") {
		t.Errorf("keys sharing a reason are not together: %q", d)
	}
	m, _ = server.Resolve(server.Spec{ScaleUp: server.NVLink3, ScaleUpGBps: ptr(600), PCIeGen: 4, PCIeLanes: 16}, 200)
	if d := m.DefaultsSummary(); d != "" {
		t.Errorf("a full spec has defaults %q", d)
	}
}

func TestSummaries(t *testing.T) {
	m, _ := server.Resolve(server.Spec{ScaleUp: server.NVLink4, PCIeGen: 4}, 400)
	m = roce(m)
	for got, want := range map[string]string{
		m.ScaleUpSummary(): "NVLink 4 through NVSwitch: 900 GB/s per GPU (both directions; 3600 Gb/s each way), 0.6 µs per transfer step",
		m.PCIeSummary():    "PCIe 4.0 x16: 230.5 Gb/s of payload per direction (16 GT/s x 16 lanes, 90.0% payload)",
		m.NICSummary():     "230.5 Gb/s of payload: PCIe-bound (its 400G port carries 392.1 Gb/s at MTU 4096, 82 bytes a packet on the wire)",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	m, _ = server.Resolve(server.Spec{ScaleUp: server.PCIe, PCIeLanes: 32, PCIeGen: 6}, 800)
	m = roce(m)
	for got, want := range map[string]string{
		m.ScaleUpSummary(): "PCIe only (no NVLink): 444.2 GB/s per GPU (both directions; 1776.9 Gb/s each way), 1.0 µs per transfer step",
		m.PCIeSummary():    "two PCIe 6.0 x16 links: 1776.9 Gb/s of payload per direction (64 GT/s x 32 lanes, 86.8% payload)",
		m.NICSummary():     "784.3 Gb/s of payload, what its 800G port carries (MTU 4096, 82 bytes a packet on the wire; PCIe carries 1776.9 Gb/s)",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
