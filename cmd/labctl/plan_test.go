package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs labctl in-process and returns exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestPlanJSONSeedNumbers(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"plan", "64gpu", "-o", "json"}, {"plan", "--gpus", "64", "-o", "json"}} {
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var p struct {
			Servers int `json:"servers"`
			Leaf    struct {
				Count, DownlinksPerLeaf, UplinksPerLeaf int
			} `json:"leaf"`
			Spine struct{ Count int } `json:"spine"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		_ = json.Unmarshal([]byte(out), &raw)
		leaf := raw["leaf"].(map[string]any)
		if p.Servers != 8 || leaf["count"].(float64) != 2 || leaf["downlinks_per_leaf"].(float64) != 32 || leaf["uplinks_per_leaf"].(float64) != 32 || raw["spine"].(map[string]any)["count"].(float64) != 1 {
			t.Errorf("%v: not the seed's 64-GPU plan: %s", args, out)
		}
	}
	code, out, _ := runCLI(t, "plan", "--gpus", "1024", "-o", "json")
	if code != 0 || !strings.Contains(out, `"count": 32`) || !strings.Contains(out, `"count": 16`) {
		t.Errorf("1024 GPUs: exit %d\n%s", code, out)
	}
}

func TestPlanFormats(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"table", "yaml", "md"} {
		code, out, stderr := runCLI(t, "plan", "64gpu", "-o", f)
		if code != 0 || out == "" {
			t.Errorf("-o %s: exit %d %s", f, code, stderr)
		}
	}
	_, md, _ := runCLI(t, "plan", "64gpu", "-o", "md")
	for _, q := range []string{"## 1. Servers", "## 2. Leaves", "## 3. Spines", "## 4. Port configuration", "## 5. Optics", "## 6. Oversubscription", "100% utilization"} {
		if !strings.Contains(md, q) {
			t.Errorf("design document lacks %q", q)
		}
	}
}

func TestPlanBadInputExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	misspelt := filepath.Join(dir, "bad.yaml")
	os.WriteFile(misspelt, []byte("name: bad\nsizing:\n  gpus: 64\n  nic_sped_gbps: 200\n"), 0o644)
	notYAML := filepath.Join(dir, "junk.yaml")
	os.WriteFile(notYAML, []byte("{{{ not: yaml"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--gpus", "0"}, "--gpus"},
		{[]string{"plan", "--gpus", "-3"}, "--gpus"},
		{[]string{"plan", "--gpus", "64", "--nic-speed", "300"}, "--nic-speed"},
		{[]string{"plan", misspelt}, "bad.yaml:4:3"},
		{[]string{"plan", notYAML}, "junk.yaml:1"},
		{[]string{"plan", filepath.Join(dir, "missing.yaml")}, "file not found"},
		{[]string{"plan", "nosuchlab"}, "unknown lab"},
		{[]string{"plan"}, "--gpus"},
		{[]string{"plan", "64gpu", "-o", "xml"}, "output format"},
		{[]string{"plan", "--gpus", "abc"}, "invalid argument"},
		{[]string{"nosuchcommand"}, "unknown command"},
		{[]string{"plan", "--gpus", "65536"}, "do not fit"},
		{[]string{"plan", "--gpus", "64", "--oversubscription", "NaN"}, "out of range"},
		{[]string{"plan", "--gpus", "64", "--leaf-ports", "0"}, "--leaf-ports 0"},
		{[]string{"plan", "--gpus", "64", "--gpus-per-server", "0"}, "--gpus-per-server 0"},
		{[]string{"plan", "--gpus", "64", "--nic-speed", "0G"}, "--nic-speed 0"},
		{[]string{"plan", "--gpus", "64", "--nic-speed", "300G"}, "300 Gb/s is not an Ethernet NIC speed"},
		{[]string{"plan", "--gpus", "64", "--leaf-speed", "400X"}, `"400X" is not a speed in Gb/s (write it as 400 or 400G`},
		{[]string{"plan", "--gpus", "64", "--spine-speed", "-400G"}, "--spine-speed"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not name %q", c.args, stderr, c.want)
		}
	}
}

func TestLabsAndCompletion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "labs")
	if code != 0 || !strings.Contains(out, "1024gpu") {
		t.Errorf("labs: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "labctl") {
		t.Errorf("completion bash: exit %d", code)
	}
	code, out, _ = runCLI(t, "__complete", "plan", "")
	if code != 0 || !strings.Contains(out, "64gpu") {
		t.Errorf("lab completion: exit %d\n%s", code, out)
	}
}

func TestDirMustBeADirectory(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	code, _, stderr := runCLI(t, "status", "--dir", file)
	if code != 2 || !strings.Contains(stderr, "not a directory") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// labctl plan shows the servers in every format, from a lab, from flags,
// and from a lab with flags over it; a PCIe-bound NIC gets the warning.
func TestPlanServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h100 := filepath.Join(dir, "h100.yaml")
	os.WriteFile(h100, []byte("name: h100\nsizing:\n  gpus: 64\n  nic_speed_gbps: 400\nserver:\n  scale_up: nvlink4\n  pcie_gen: 4\n"), 0o644)
	// The usable rate is of the lab's packets: InfiniBand's 26 bytes a
	// packet at qos.mtu 2048 leave 200 x 2048/2074 of a 200G port.
	ib := filepath.Join(dir, "ib.yaml")
	os.WriteFile(ib, []byte("name: ib\nsizing:\n  gpus: 16\ntransport: infiniband\nqos:\n  mtu: 2048\n"), 0o644)
	const bound = "warning: the 400G NICs are PCIe-bound: PCIe 4.0 x16 carries 230.5 Gb/s of payload per direction"
	cases := []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"plan", "64gpu"}, []string{"scale-up (default)", "NVLink 3 through NVSwitch: 600 GB/s per GPU", "PCIe 4.0 x16: 230.5 Gb/s", "196.1 Gb/s of payload, what its 200G port carries (MTU 4096, 82 bytes a packet on the wire; PCIe carries 230.5 Gb/s)"}, []string{"PCIe-bound"}},
		{[]string{"plan", "--gpus", "64", "--scale-up", "nvlink4", "--pcie-gen", "5", "--pcie-lanes", "16"}, []string{"NVLink 4 through NVSwitch: 900 GB/s", "NIC PCIe link  ", "PCIe 5.0 x16: 460.9 Gb/s"}, []string{"PCIe-bound", "(default"}},
		{[]string{"plan", h100}, []string{"NVLink 4", "230.5 Gb/s of payload: PCIe-bound (its 400G port carries 392.1 Gb/s at MTU 4096, 82 bytes a packet on the wire)", bound, "fix: --pcie-gen 5"}, nil},
		{[]string{"plan", h100, "--pcie-gen", "5"}, []string{"PCIe 5.0 x16: 460.9 Gb/s", "392.1 Gb/s of payload, what its 400G port carries"}, []string{"PCIe-bound"}},
		{[]string{"plan", "--gpus", "64", "--nic-speed", "800", "--leaf-speed", "800", "--spine-speed", "800", "--pcie-gen", "5"}, []string{"NVLink 5", "460.9 Gb/s of payload: PCIe-bound (its 800G port carries 784.3 Gb/s", "fix: --pcie-gen 6"}, nil},
		{[]string{"plan", "--gpus", "64", "--nic-speed", "800", "--leaf-speed", "800", "--spine-speed", "800"}, []string{"PCIe 6.0 x16: 888.5 Gb/s", "784.3 Gb/s of payload, what its 800G port carries"}, []string{"PCIe-bound"}},
		// Speeds as engineers write them: 800G, 0.8T.
		{[]string{"plan", "--gpus", "64", "--nic-speed", "800G", "--leaf-speed", "800g", "--spine-speed", "0.8T"}, []string{"PCIe 6.0 x16: 888.5 Gb/s", "784.3 Gb/s of payload, what its 800G port carries"}, []string{"PCIe-bound"}},
		{[]string{"plan", "--gpus", "16", "--scale-up", "pcie", "--scale-up-gbyte-s", "64", "-o", "md"}, []string{"| scale-up domain | PCIe only (no NVLink): 64 GB/s per GPU (both directions; 256 Gb/s each way), 1.0 µs"}, nil},
		{[]string{"plan", h100, "-o", "md"}, []string{"| NIC usable rate | 230.5 Gb/s of payload: PCIe-bound (its 400G port carries 392.1 Gb/s at MTU 4096, 82 bytes a packet on the wire) |", "## Warnings", "- the 400G NICs are PCIe-bound"}, nil},
		{[]string{"plan", ib}, []string{"197.5 Gb/s of payload, what its 200G port carries (MTU 2048, 26 bytes a packet on the wire; PCIe carries 230.5 Gb/s)"}, []string{"PCIe-bound"}},
		{[]string{"plan", ib, "--pcie-gen", "3"}, []string{"115.2 Gb/s of payload: PCIe-bound (its 200G port carries 197.5 Gb/s at MTU 2048, 26 bytes a packet on the wire)"}, nil},
		{[]string{"plan", h100, "-o", "yaml"}, []string{"server:\n  scale_up: nvlink4\n", "pcie_bound: true", "defaulted:\n    pcie_lanes: \"servers with 400G NICs"}, nil},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
		for _, w := range c.not {
			if strings.Contains(out, w) {
				t.Errorf("%v: output has %q:\n%s", c.args, w, out)
			}
		}
	}
	code, out, stderr := runCLI(t, "plan", h100, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p struct {
		Server *struct {
			ScaleUp       string  `json:"scale_up"`
			GBps          float64 `json:"scale_up_gbyte_s"`
			PCIeGen       int     `json:"pcie_gen"`
			PCIeLanes     int     `json:"pcie_lanes"`
			PCIeGbps      float64 `json:"pcie_gbps"`
			NICUsableGbps float64 `json:"nic_usable_gbps"`
			PCIeBound     bool    `json:"pcie_bound"`
		} `json:"server"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	// 16 GT/s x 16 lanes x 128/130 x 256/280, computed here.
	usable := 16.0 * 16 * 128 / 130 * 256 / 280
	if s := p.Server; s == nil || s.ScaleUp != "nvlink4" || s.GBps != 900 || s.PCIeGen != 4 || s.PCIeLanes != 16 || !s.PCIeBound ||
		s.PCIeGbps-usable > 1e-9 || usable-s.PCIeGbps > 1e-9 || s.NICUsableGbps != s.PCIeGbps {
		t.Errorf("server in JSON: %+v", p.Server)
	}
	if len(p.Warnings) == 0 || !strings.HasPrefix(p.Warnings[len(p.Warnings)-1], "the 400G NICs are PCIe-bound") {
		t.Errorf("warnings: %v", p.Warnings)
	}
}

// Server flags are refused with exit 2, naming the flag and the fix; a
// bad server section in a lab file names its file:line:col.
func TestPlanServerBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: bad\nsizing:\n  gpus: 64\nserver:\n  pcie_lanes: 12\n"), 0o644)
	zero := filepath.Join(dir, "zero.yaml")
	os.WriteFile(zero, []byte("name: zero\nsizing:\n  gpus: 64\nserver:\n  pcie_gen: 0\n"), 0o644)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"plan", "--gpus", "64", "--scale-up", "nvlink7"}, []string{`--scale-up: unknown scale-up domain "nvlink7"`, "fix: use nvlink3 (A100)"}},
		{[]string{"plan", "--gpus", "64", "--scale-up="}, []string{"--scale-up needs a value", "fix:"}},
		{[]string{"plan", "--gpus", "64", "--pcie-gen", "2"}, []string{"--pcie-gen: PCIe generation 2 is not one labctl knows", "fix: use 3, 4, 5 or 6"}},
		{[]string{"plan", "--gpus", "64", "--pcie-gen", "0"}, []string{"--pcie-gen 0 is not a valid value", "4 for 200G NICs"}},
		{[]string{"plan", "--gpus", "64", "--nic-speed", "400", "--pcie-gen", "0"}, []string{"--pcie-gen 0", "5 for 400G NICs"}},
		{[]string{"plan", "--gpus", "64", "--pcie-lanes", "0"}, []string{"--pcie-lanes 0 is not a valid value", "16 for 200G NICs"}},
		{[]string{"plan", "--gpus", "64", "--pcie-lanes", "24"}, []string{"--pcie-lanes: x24 is not a PCIe link width", "fix:"}},
		{[]string{"plan", "--gpus", "64", "--pcie-lanes", "-16"}, []string{"--pcie-lanes: x-16"}},
		{[]string{"plan", "--gpus", "64", "--scale-up-gbyte-s", "0"}, []string{"--scale-up-gbyte-s: 0 GB/s is not a scale-up bandwidth", "fix:"}},
		{[]string{"plan", "--gpus", "64", "--scale-up-gbyte-s", "NaN"}, []string{"--scale-up-gbyte-s: NaN GB/s"}},
		{[]string{"plan", "--gpus", "64", "--scale-up-gbyte-s", "-900"}, []string{"--scale-up-gbyte-s: -900 GB/s"}},
		{[]string{"plan", "--gpus", "64", "--pcie-gen", "five"}, []string{`invalid argument "five" for "--pcie-gen"`}},
		{[]string{"plan", bad}, []string{"bad.yaml:5:15: server.pcie_lanes: x12 is not a PCIe link width", "fix:"}},
		{[]string{"plan", zero}, []string{"zero.yaml:5:13: pcie_gen: 0 is not allowed", "fix:"}},
		{[]string{"plan", "64gpu", "--pcie-gen", "9"}, []string{"--pcie-gen: PCIe generation 9"}},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, stderr)
		}
		if out != "" {
			t.Errorf("%v: printed a plan:\n%s", c.args, out)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q does not say %q", c.args, stderr, w)
			}
		}
	}
}

// plan's help says how -o json counts each tier's ports (physical or
// NIC-speed), since the two sit side by side (a 32-port spine's
// ports_used_per_spine is 64): every port figure of the tiers is named
// there, and ports_used_per_spine is a share of logical_ports, never more.
func TestPlanJSONPortFieldsDocumented(t *testing.T) {
	t.Parallel()
	code, help, _ := runCLI(t, "plan", "--help")
	if code != 0 {
		t.Fatalf("plan --help: exit %d", code)
	}
	help = strings.Join(strings.Fields(help), " ")
	for _, args := range [][]string{
		{"plan", "64gpu"}, {"plan", "--gpus", "4096"}, {"plan", "--gpus", "512", "--layout", "rail"},
		{"plan", "--gpus", "256", "--oversubscription", "2"}, {"plan", "--gpus", "128", "--spine-ports", "64", "--spine-speed", "800"},
	} {
		code, out, stderr := runCLI(t, append(args, "-o", "json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var p map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		for _, tier := range []string{"leaf", "spine", "super_spine"} {
			var fields map[string]any
			if err := json.Unmarshal(p[tier], &fields); err != nil || fields == nil {
				continue // null: no such tier in this plan
			}
			for k := range fields {
				if strings.Contains(k, "port") && !strings.Contains(k, "speed") && !strings.Contains(help, k) {
					t.Errorf("%v: %s.%s is not named in plan --help, which says how -o json counts ports", args, tier, k)
				}
			}
			if tier == "spine" {
				used, logical := fields["ports_used_per_spine"].(float64), fields["logical_ports"].(float64)
				if used > logical {
					t.Errorf("%v: ports_used_per_spine %v is more than the spine's logical_ports %v", args, used, logical)
				}
			}
		}
	}
}
