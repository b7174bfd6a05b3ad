package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSpecReference keeps docs/lab-spec.md and docs/scenario-spec.md equal
// to what the code generates: a key added to a spec type needs an entry in
// its key table (TestEveryKeyDocumented in its package says which), and
// then these files regenerate with
//
//	go test ./cmd/labctl -run TestSpecReference -update
func TestSpecReference(t *testing.T) {
	t.Parallel()
	for _, k := range specKinds() {
		path := filepath.Join("..", "..", filepath.FromSlash(k.file))
		want := k.markdown()
		if updating() {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (generate it with: go test ./cmd/labctl -run TestSpecReference -update)", err)
		}
		if string(got) != want {
			t.Errorf("%s differs from the reference the code generates (a key or its documentation changed): run 'go test ./cmd/labctl -run TestSpecReference -update' and review the diff", k.file)
		}
		// Every key is in the file, so none can be undocumented there.
		for _, key := range strings.Split(want, "\n") {
			if strings.HasPrefix(key, "| `") && strings.Contains(key, "|  |") {
				t.Errorf("%s: a key has no documentation: %s", k.file, key)
			}
		}
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		arg  string
		code int
		want string
	}{
		{"lab", 0, "KEYS:\n  name "},
		{"lab.qos.ecn.pmax", 0, "DEFAULT: 0.2"},
		{"lab.sizing", 0, "gpus_per_server"},
		{"scenario.traffic[].senders", 0, "N of an N:1 incast"},
		{"scenario.traffic.senders", 0, "DEFAULT: 8"},
		{"scenario.matrix.ecn", 0, "[on, off]"},
		{"lab.qos.ecn.kmn", 2, "use one of lab.qos.ecn.enabled, lab.qos.ecn.kmin_kb"},
		{"lab.server.scale_up", 0, "DEFAULT: by NIC speed: nvlink3 up to 200G NICs, nvlink4 for 400G"},
		{"lab.server", 0, "pcie_lanes"},
		{"lab.server.pcie", 2, "lab.server.pcie_gen"},
		{"labs", 2, "start with lab or scenario"},
	}
	for _, tt := range tests {
		code, out, stderr := runCLI(t, "explain", tt.arg)
		if code != tt.code || !strings.Contains(out+stderr, tt.want) {
			t.Errorf("explain %s: exit %d\n%s%s\nwant exit %d with %q", tt.arg, code, out, stderr, tt.code, tt.want)
		}
	}
}

// The README's tour parses sample outputs that are in the repository:
// every "labctl parse <kind> <file>" line there must parse.
func TestReadmeParseSamples(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "labctl" || f[1] != "parse" || strings.HasPrefix(f[3], "-") {
			continue
		}
		n++
		code, _, stderr := runCLI(t, "parse", f[2], filepath.Join("..", "..", f[3]))
		if code != 0 {
			t.Errorf("README: %s: exit %d: %s", strings.TrimSpace(line), code, stderr)
		}
	}
	if n == 0 {
		t.Error("the README's tour has no labctl parse line")
	}
}

// Every "labctl plan" line of the README's tour runs, and the servers'
// line shows what its comment promises.
func TestReadmePlanLines(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n, servers := 0, false
	for _, line := range strings.Split(string(readme), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		f := strings.Fields(cmd)
		if len(f) < 2 || f[0] != "labctl" || f[1] != "plan" {
			continue
		}
		n++
		code, out, stderr := runCLI(t, f[1:]...)
		if code != 0 {
			t.Errorf("README: %s: exit %d: %s", strings.TrimSpace(line), code, stderr)
		}
		if strings.Contains(cmd, "--pcie-gen") {
			servers = true
			if !strings.Contains(out, "scale-up") || !strings.Contains(out, "warning: the 400G NICs are PCIe-bound") {
				t.Errorf("README: %s: no servers or no PCIe warning:\n%s", strings.TrimSpace(line), out)
			}
		}
	}
	if n == 0 || !servers {
		t.Errorf("the README's tour has %d labctl plan lines, servers' among them: %v", n, servers)
	}
}

// The README's quick start and tour run in order in one work directory,
// as a reader types them: every line that sets up or reads a lab's files
// (up, down, topo, trace, config render, lint and show, labs, plan)
// exits 0 after the lines before it. A lab the quick start brought up
// with SONiC refuses another --nos until labctl down, so a tour line
// asking for EOS must name a lab that is not up. Runs, reports and the
// other runtimes are left out: they take long or need another machine.
func TestReadmeTourRunsInOrder(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	var lines []string
	for _, section := range []string{"## Quick start", "## A tour"} {
		i := strings.Index(text, section)
		if i < 0 {
			t.Fatalf("README has no %q section", section)
		}
		start := strings.Index(text[i:], "```sh\n")
		end := strings.Index(text[i+start+6:], "```")
		if start < 0 || end < 0 {
			t.Fatalf("README's %q has no sh block", section)
		}
		for _, l := range strings.Split(text[i+start+6:i+start+6+end], "\n") {
			l, _, _ = strings.Cut(l, "#")
			for _, c := range strings.Split(l, "&&") {
				c = strings.TrimSpace(strings.Replace(c, "go run ./cmd/labctl", "labctl", 1))
				if strings.HasPrefix(c, "labctl ") {
					lines = append(lines, c)
				}
			}
		}
	}
	dir := t.TempDir()
	ran := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)[1:]
		if strings.ContainsAny(l, "<>|") || slices.Contains(f, "--runtime") {
			continue
		}
		switch f[0] {
		case "up", "down", "topo", "trace", "labs", "plan":
		case "config":
			if f[1] != "render" && f[1] != "lint" && f[1] != "show" {
				continue
			}
		default:
			continue
		}
		ran[f[0]] = true
		if code, _, stderr := resultsCLI(t, dir, f...); code != 0 {
			t.Errorf("README: %s: exit %d after the lines before it: %s", l, code, stderr)
		}
	}
	for _, want := range []string{"up", "topo", "config", "down"} {
		if !ran[want] {
			t.Errorf("the README's quick start and tour ran no labctl %s line: %v", want, lines)
		}
	}
}
