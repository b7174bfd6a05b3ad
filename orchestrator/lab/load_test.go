package lab

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/sizing"
)

func TestCatalogLoadsAndPlans(t *testing.T) {
	specs := Catalog()
	if len(specs) != 4 {
		t.Fatalf("catalog has %d labs, want 4", len(specs))
	}
	for _, s := range specs {
		if _, err := sizing.Compute(s.Sizing); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		got, err := Resolve(s.Name)
		if err != nil || got.Name != s.Name || got.Source != "catalog:"+s.Name {
			t.Errorf("Resolve(%q) = %+v, %v", s.Name, got, err)
		}
	}
}

func TestSpecErrorsNamePlace(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"misspelt key", "name: a\nsizing:\n  gpus: 64\n  nic_sped_gbps: 200\n", "x.yaml:4:3: unknown field \"nic_sped_gbps\""},
		{"wrong type", "name: a\nsizing:\n  gpus: many\n", "x.yaml:3:9"},
		{"impossible value", "name: a\nsizing:\n  gpus: 64\n  nic_speed_gbps: 300\n", "x.yaml:4:19: sizing.nic_speed_gbps: 300 Gb/s is not an Ethernet NIC speed"},
		{"zero gpus", "name: a\nsizing:\n  gpus: 0\n", "x.yaml:3:9: sizing.gpus is 0: give the number of GPUs"},
		{"null gpus", "name: a\nsizing:\n  gpus: null\n", "x.yaml:3:3: sizing.gpus has no value"},
		{"gpus without a value", "name: a\nsizing:\n  gpus:\n", "x.yaml:3:3: sizing.gpus has no value"},
		{"no gpus", "name: a\n", "x.yaml:1:7: sizing.gpus is required"},
		{"min spines 0", "name: a\nsizing:\n  gpus: 16\n  min_spines: 0\n", "x.yaml:4:15: sizing.min_spines: 0 is out of range"},
		{"bad name", "name: My_Lab\nsizing:\n  gpus: 8\n", "x.yaml:1:7: lab name"},
		{"name too long", "name: " + strings.Repeat("a", 41) + "\nsizing:\n  gpus: 8\n", "is not allowed (fix: use lower-case letters, digits and dashes, starting with a letter or digit, at most 40 characters)"},
		{"name starting with a dash", "name: -a\nsizing:\n  gpus: 8\n", "lab name \"-a\" is not allowed"},
		{"bad nos", "name: a\nnos: junos\nsizing:\n  gpus: 8\n", "x.yaml:2:6: unknown nos"},
		{"not yaml", "name: [a\n", "x.yaml:"},
		{"empty", "\n", "file is empty"},
		{"list", "- a\n- b\n", "x.yaml:1:1"},
		{"ecn order", "name: a\nsizing:\n  gpus: 8\nqos:\n  ecn:\n    kmin_kb: 500\n    kmax_kb: 100\n", "x.yaml:6:14: kmin_kb 500 is not below kmax_kb 100"},
		// kmin_kb of 2^63-2 KiB wrapped negative in bytes, and the render
		// failed (exit 1) on WRED thresholds of -2048.
		{"ecn kmin past any buffer", "name: a\nsizing:\n  gpus: 8\nqos:\n  ecn:\n    kmin_kb: 9223372036854775806\n    kmax_kb: 9223372036854775807\n", "x.yaml:6:14: kmin_kb 9223372036854775806 is beyond 1048576 KiB, the largest shared buffer"},
		{"ecn kmax past any buffer", "name: a\nsizing:\n  gpus: 8\nqos:\n  ecn:\n    kmin_kb: 100\n    kmax_kb: 3000000\n", "x.yaml:7:14: kmax_kb 3000000 is beyond 1048576 KiB"},
		{"lossless priority 0", "name: a\nsizing:\n  gpus: 8\nqos:\n  lossless_priorities: [3, 0]\n", "x.yaml:5:28: priority 0 is the best-effort class"},
		{"buffer pool range", "name: a\nsizing:\n  gpus: 8\nqos:\n  buffer_pool_bytes: 4096\n", "x.yaml:5:22: a shared buffer of 4096 bytes is out of range"},
		{"PAUSE response below 0", "name: a\nsizing:\n  gpus: 8\nqos:\n  pause_response_quanta: -1\n", "x.yaml:5:26: a PAUSE response of -1 quanta is out of range"},
		{"PAUSE response above a pause frame's field", "name: a\nsizing:\n  gpus: 8\nqos:\n  pause_response_quanta: 65536\n", "a PAUSE response of 65536 quanta is out of range (fix: use 0 to 65535 quanta"},
		{"watchdog range", "name: a\nsizing:\n  gpus: 8\nqos:\n  pfc_watchdog:\n    detection_ms: 10\n", "x.yaml:6:19"},
		{"spine ASN plan", "name: a\nsizing:\n  gpus: 8\nbgp:\n  spine_asn: unique\n", "x.yaml:5:14: unknown spine ASN plan \"unique\""},
		{"ets weights, lowest class first", "name: a\nsizing:\n  gpus: 8\nqos:\n  ets_weights:\n    5: 0\n    1: 200\n    3: 101\n", "weight 200 for traffic class 1 is out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
			if exitcode.Code(err) != exitcode.BadInput {
				t.Errorf("exit code %d, want 2", exitcode.Code(err))
			}
		})
	}
}

func TestResolveFileAndMissing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte("name: mine\nsizing:\n  gpus: 32\n  layout: rail\nnos: eos\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.NOS != "eos" || s.Sizing.Layout != sizing.LayoutRail || s.Sizing.GPUsPerServer != 8 || s.Runtime != "sim" || s.QoS.Profile != DefaultQoSProfile {
		t.Errorf("defaults not applied: %+v", s)
	}
	for _, bad := range []string{filepath.Join(dir, "absent.yaml"), "no-such-lab", ""} {
		_, err := Resolve(bad)
		if exitcode.Code(err) != exitcode.BadInput {
			t.Errorf("Resolve(%q) = %v, want exit 2", bad, err)
		}
	}
	var ee *exitcode.Error
	if _, err := Resolve("no-such-lab"); !errors.As(err, &ee) || !strings.Contains(err.Error(), "use a catalog lab: 16gpu, 64gpu, 128gpu, 1024gpu, or") {
		t.Errorf("unknown lab error should list the catalog by size: %v", err)
	}
	if _, err := Resolve("64gpus"); err == nil || !strings.Contains(err.Error(), "did you mean 64gpu?") {
		t.Errorf("a near miss of a catalog lab should say which: %v", err)
	}
	// Every list of the catalog is by size: the names and the specs.
	var names []string
	for _, s := range Catalog() {
		names = append(names, s.Name)
	}
	if got := strings.Join(CatalogNames(), ","); got != "16gpu,64gpu,128gpu,1024gpu" || got != strings.Join(names, ",") {
		t.Errorf("CatalogNames() = %s, Catalog() = %v: want both by size", got, names)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range Catalog() {
		data, _ := os.ReadFile(filepath.Join("..", "..", "labs", s.Name+".yaml"))
		f.Add(data)
	}
	f.Add([]byte("name: a\nsizing: {gpus: 8, layout: rail, tiers: 3}\nqos: {ecn: {kmin_kb: 1, kmax_kb: 2}}\n"))
	f.Add([]byte("name: [\n"))
	f.Add([]byte("name: a\nsizing: {gpus: 8, nic_speed_gbps: 400}\nserver: {scale_up: pcie, scale_up_gbyte_s: 64, pcie_gen: 4, pcie_lanes: 32}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if exitcode.Code(err) != exitcode.BadInput {
				t.Fatalf("error %v has exit code %d, want 2", err, exitcode.Code(err))
			}
			return
		}
		// A spec that parses must be plannable or refused cleanly.
		if _, err := sizing.Compute(s.Sizing); err != nil && exitcode.Code(err) != exitcode.BadInput {
			t.Fatalf("plan error %v is not a usage error", err)
		}
		// and its servers resolve: Parse checked them.
		if _, err := s.ServerModel(); err != nil {
			t.Fatalf("a spec that parsed has servers that do not resolve: %v", err)
		}
	})
}

func TestUnknownQoSProfileIsPositioned(t *testing.T) {
	_, err := Parse("x.yaml", []byte("name: a\nsizing:\n  gpus: 8\nqos:\n  profile: nope\n"))
	if err == nil || !strings.Contains(err.Error(), "x.yaml:5:12: unknown QoS profile \"nope\"") {
		t.Errorf("got %v", err)
	}
}

// The server section: every bad value is refused at its key with the fix
// (exit 2), 0 for the PCIe link is refused as the sizing keys' zeros are,
// and benign values load with what they say.
func TestServerSectionErrorsNamePlace(t *testing.T) {
	const head = "name: a\nsizing:\n  gpus: 16\nserver:\n"
	bad := []struct {
		name, server, want, fix string
	}{
		{"unknown domain", "  scale_up: nvlink7\n", `x.yaml:5:13: server.scale_up: unknown scale-up domain "nvlink7"`, "use nvlink3 (A100), nvlink4 (H100/H200), nvlink5 (B200/B300), nvlink6 (Rubin) or pcie"},
		{"domain in capitals", "  scale_up: NVLink4\n", "x.yaml:5:13: server.scale_up: unknown scale-up domain", "nvlink4 (H100/H200)"},
		{"domain as a number", "  scale_up: 4\n", "x.yaml:5:13: server.scale_up: unknown scale-up domain \"4\"", "or pcie (GPUs without NVLink)"},
		{"generation 2", "  pcie_gen: 2\n", "x.yaml:5:13: server.pcie_gen: PCIe generation 2 is not one labctl knows", "use 3, 4, 5 or 6"},
		{"generation 7", "  pcie_gen: 7\n", "x.yaml:5:13: server.pcie_gen: PCIe generation 7", "64 GT/s"},
		{"negative generation", "  pcie_gen: -5\n", "x.yaml:5:13: server.pcie_gen: PCIe generation -5", "use 3, 4, 5 or 6"},
		{"generation 0", "  pcie_gen: 0\n", "x.yaml:5:13: pcie_gen: 0 is not allowed (leaving pcie_gen out means 4 for 200G NICs", "or remove the key for the default"},
		{"generation fraction", "  pcie_gen: 4.5\n", "x.yaml:5:13: server.pcie_gen must be a whole number, not 4.5", "write 4 or 5"},
		{"generation as text", "  pcie_gen: gen5\n", "x.yaml:5:13", ""},
		{"x3", "  pcie_lanes: 3\n", "x.yaml:5:15: server.pcie_lanes: x3 is not a PCIe link width", "32 for a NIC fed by two x16 links"},
		{"x64", "  pcie_lanes: 64\n", "x.yaml:5:15: server.pcie_lanes: x64", "use 1, 2, 4, 8 or 16"},
		{"lanes 0", "  pcie_lanes: 0\n", "x.yaml:5:15: pcie_lanes: 0 is not allowed (leaving pcie_lanes out means 16 for 200G NICs)", "remove the key"},
		{"bandwidth 0", "  scale_up_gbyte_s: 0\n", "x.yaml:5:21: server.scale_up_gbyte_s: 0 GB/s is not a scale-up bandwidth", "(NVLink 4 is 900)"},
		{"negative bandwidth", "  scale_up_gbyte_s: -600\n", "x.yaml:5:21: server.scale_up_gbyte_s: -600 GB/s", "above 0"},
		{"NaN bandwidth", "  scale_up_gbyte_s: .nan\n", "x.yaml:5:21: server.scale_up_gbyte_s: NaN GB/s", "above 0"},
		{"infinite bandwidth", "  scale_up_gbyte_s: .inf\n", "x.yaml:5:21: server.scale_up_gbyte_s: +Inf GB/s", "at most 100000"},
		{"bandwidth in bits", "  scale_up_gbyte_s: 7.2e12\n", "x.yaml:5:21: server.scale_up_gbyte_s: 7.2e+12 GB/s", "at most 100000"},
		{"misspelt key", "  pcie_lane: 16\n", "x.yaml:5:3: unknown field \"pcie_lane\"", "pcie_lanes"},
		{"key of another level", "  gpus: 16\n", "x.yaml:5:3: unknown field \"gpus\"", ""},
		{"not a mapping", "  - nvlink4\n", "x.yaml:5:3", ""},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(head+c.server))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.fix) {
				t.Errorf("error %q does not contain %q and %q", err, c.want, c.fix)
			}
			if exitcode.Code(err) != exitcode.BadInput {
				t.Errorf("exit code %d, want 2", exitcode.Code(err))
			}
		})
	}
	// The defaults follow the NIC speed, so 0 names the right one.
	_, err := Parse("x.yaml", []byte("name: a\nsizing:\n  gpus: 16\n  nic_speed_gbps: 400\nserver:\n  pcie_gen: 0\n"))
	if err == nil || !strings.Contains(err.Error(), "x.yaml:6:13: pcie_gen: 0 is not allowed (leaving pcie_gen out means 5 for 400G NICs") {
		t.Errorf("400G NICs, pcie_gen 0: %v", err)
	}
	// What a 200G port carries of RoCE payload at MTU 4096; PCIe, where
	// it binds, carries payload alone.
	const port = 200 * 4096.0 / 4178
	benign := []struct {
		name, server      string
		scaleUp           string
		gen, lanes        int
		gbyte, usableGbps float64
		bound             bool
	}{
		{"absent", "  {}\n", "nvlink3", 4, 16, 600, port, false},
		{"nvlink4 on PCIe 5.0", "  scale_up: nvlink4\n  pcie_gen: 5\n", "nvlink4", 5, 16, 900, port, false},
		{"PCIe only, x8: PCIe-bound", "  scale_up: pcie\n  pcie_lanes: 8\n", "pcie", 4, 8, 2 * 16 * 8 * (128.0 / 130) * (256.0 / 280) / 8, 16 * 8 * (128.0 / 130) * (256.0 / 280), true},
		{"PCIe 3.0: PCIe-bound, still a valid lab", "  pcie_gen: 3\n", "nvlink3", 3, 16, 600, 8 * 16 * (128.0 / 130) * (256.0 / 280), true},
		{"override", "  scale_up_gbyte_s: 450.5\n", "nvlink3", 4, 16, 450.5, port, false},
		{"two links", "  pcie_lanes: 32\n  pcie_gen: 6\n", "nvlink3", 6, 32, 600, port, false},
	}
	for _, c := range benign {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(head+c.server))
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.ServerModel()
			if err != nil {
				t.Fatal(err)
			}
			m = m.WithFraming(sim.DefaultMTU, sim.WireOverheadBytes)
			if m.ScaleUp != c.scaleUp || m.PCIeGen != c.gen || m.PCIeLanes != c.lanes || math.Abs(m.ScaleUpGBps-c.gbyte) > 1e-9 || math.Abs(m.NICUsableGbps-c.usableGbps) > 1e-9 || m.PCIeBound != c.bound {
				t.Errorf("got %+v", m)
			}
		})
	}
}

// The catalog labs (200G NICs) get A100-class servers whose NICs run at
// port speed: NVLink 3, PCIe 4.0 x16.
func TestCatalogServers(t *testing.T) {
	for _, s := range Catalog() {
		m, err := s.ServerModel()
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if s.Sizing.NICSpeedGbps != 200 || m.ScaleUp != "nvlink3" || m.PCIeGen != 4 || m.PCIeLanes != 16 || m.PCIeGbps < m.NICGbps {
			t.Errorf("%s: %dG NICs, servers %+v", s.Name, s.Sizing.NICSpeedGbps, m)
		}
	}
}

// The longest name a lab may have is accepted.
func TestLabNameLongest(t *testing.T) {
	name := strings.Repeat("a", 39) + "9"
	if s, err := Parse("x.yaml", []byte("name: "+name+"\nsizing:\n  gpus: 8\n")); err != nil || s.Name != name {
		t.Errorf("a 40-character name: %v", err)
	}
}
