package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTopoWritesLab(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "topo", "64gpu", "--nos", "eos", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"64gpu.clab.yml", "64gpu.mmd", "startup/leaf1.cfg", "startup/leaf2.cfg", "startup/spine1.cfg"} {
		if _, err := os.Stat(filepath.Join(dir, "topologies", "64gpu", f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	for _, want := range []string{"lab 64gpu (nos eos", "1 spine, 2 leaves, 8 servers (64 GPUs, 64 NICs x 200G)", "scale-down: none", "containerlab estimate:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// SONiC: the 64-port SKU holds the lab link for link, and the summary
	// explains the port mapping; the EOS startup configs are replaced by
	// SONiC ones.
	code, out, stderr = runCLI(t, "topo", "64gpu", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"scale-down: none", "HWSKU Mellanox-SN4700-V64", "eth48=Ethernet188", "48 of 64 ports", "soft-RoCE device rxe-host<k>-<i> (8 per host)"} {
		if !strings.Contains(out, want) {
			t.Errorf("sonic summary lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"merged=", "over budget", "cannot run"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("sonic summary says %q:\n%s", unwanted, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies", "64gpu", "startup", "leaf1.cfg")); !os.IsNotExist(err) {
		t.Errorf("stale EOS startup config left behind")
	}
}

func TestTopoStdoutFormats(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"clab":    "name: 16gpu\ntopology:\n",
		"mermaid": "graph TD\n",
		"dot":     "graph \"16gpu\" {",
		"json":    `"schema_version": 1`,
	}
	for f, want := range cases {
		dir := t.TempDir()
		code, out, stderr := runCLI(t, "topo", "16gpu", "-o", f, "--dir", dir)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("-o %s: exit %d, output lacks %q: %s", f, code, want, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "topologies")); !os.IsNotExist(err) {
			t.Errorf("-o %s wrote files", f)
		}
	}
}

func TestTopoBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"topo", "nosuchlab"}, "unknown lab"},
		{[]string{"topo", "64gpu", "--nos", "junos"}, "use sonic or eos"},
		{[]string{"topo", "64gpu", "-o", "table"}, "clab, json, mermaid, dot"},
		{[]string{"topo"}, "topo takes 1 argument, got none"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, append(c.args, "--dir", t.TempDir())...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

func TestTraceSeedExamples(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src, dst string
		want     []string
	}{
		{"0", "31", []string{"GPU0 (host1:0) -> GPU31 (host4:7)", "path: host1 -> leaf1 -> host4", "1 switch hop (Leaf), 2 end to end (NIC -> Leaf -> NIC); same leaf"}},
		{"0", "32", []string{"path: host1 -> leaf1 -> spine1 -> leaf2 -> host5", "3 switch hops (Leaf -> Spine -> Leaf), 4 end to end (NIC -> Leaf -> Spine -> Leaf -> NIC); cross leaf", "ECMP: candidate", "of 16"}},
		{"host1:7", "host8", []string{"GPU7 (host1:7) -> GPU56 (host8:0)", "udp 10.64.0.15:49152 -> 10.64.0.113:4791"}},
	}
	for _, c := range cases {
		code, out, stderr := runCLI(t, "trace", "64gpu", c.src, c.dst)
		if code != 0 {
			t.Fatalf("%s->%s: exit %d: %s", c.src, c.dst, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s->%s: output lacks %q:\n%s", c.src, c.dst, w, out)
			}
		}
	}
}

func TestTraceSportChangesChoice(t *testing.T) {
	t.Parallel()
	choices := map[int]bool{}
	for _, sport := range []string{"1000", "2000", "3000", "4000", "5000", "6000", "7000", "8000"} {
		code, out, stderr := runCLI(t, "trace", "128gpu", "0", "100", "--sport", sport, "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var p struct {
			Flow struct {
				SrcPort int `json:"src_port"`
				DstPort int `json:"dst_port"`
			} `json:"flow"`
			Hops []struct {
				Node   string `json:"node"`
				Chosen int    `json:"chosen"`
			} `json:"hops"`
			SwitchHops   int `json:"switch_hops"`
			EndToEndHops int `json:"end_to_end_hops"`
		}
		if err := json.NewDecoder(bytes.NewReader([]byte(out))).Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Flow.DstPort != 4791 || p.SwitchHops != 3 || p.EndToEndHops != 4 || p.Hops[0].Node != "leaf1" {
			t.Fatalf("unexpected trace %s", out)
		}
		choices[p.Hops[0].Chosen] = true
	}
	if len(choices) < 2 {
		t.Errorf("8 source ports all hashed to the same uplink %v", choices)
	}
	seeded := map[string]bool{}
	for _, seed := range []string{"0", "1", "2", "3", "4", "5", "6", "7"} {
		code, out, stderr := runCLI(t, "trace", "128gpu", "0", "100", "--hash-seed", seed)
		if code != 0 {
			t.Fatalf("--hash-seed %s: exit %d: %s", seed, code, stderr)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "path: ") {
				seeded[line] = true
			}
		}
	}
	if len(seeded) < 2 {
		t.Errorf("8 hash seeds all gave the same path %v", seeded)
	}
}

// A trace between two NICs of one server says the GPUs' traffic takes
// the scale-up domain, not that path; between servers it says nothing.
func TestTraceNotesOneServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dst  string
		note bool
	}{{"1", true}, {"8", false}} {
		code, out, stderr := runCLI(t, "trace", "64gpu", "0", tc.dst)
		if code != 0 || strings.Contains(out, "both NICs are on server host1") != tc.note {
			t.Errorf("trace 0 %s: exit %d: %s%s", tc.dst, code, out, stderr)
		}
		// Both destinations are on leaf1: its route to them is
		// connected, with no AS path (not leaf1's own ASN).
		if !strings.Contains(out, "as path: none (leaf1's route is connected") || strings.Contains(out, "65101") {
			t.Errorf("trace 0 %s: AS path of a same-leaf destination:\n%s", tc.dst, out)
		}
	}
}

func TestTraceBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "64gpu", "0", "64"}, "GPUs 0..63"},
		{[]string{"trace", "64gpu", "host9", "0"}, "host1..host8"},
		{[]string{"trace", "64gpu", "0", "host1:0"}, "same NIC"},
		{[]string{"trace", "nosuchlab", "0", "1"}, "unknown lab"},
		{[]string{"trace", "64gpu", "0"}, "trace takes 3 arguments, got 2"},
		{[]string{"trace", "64gpu", "0", "1", "--sport", "70000"}, "sport"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

// --down: the path once routes converged without the links, or exit 1
// with why the destination cannot be reached.
func TestTraceDown(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "trace", "128gpu", "0", "32", "--down", "leaf1-spine1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"down: leaf1:Ethernet128, leaf1:Ethernet132, ... leaf1:Ethernet156 (8 links)", "path: host1 -> leaf1 -> spine2 -> leaf2 -> host5", "of 8 (hash", "as path: 65000 65102 (leaf1's BGP route"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	code, out, stderr = runCLI(t, "trace", "128gpu", "0", "32", "--down", "leaf1-spine1", "--down", "leaf2-spine2", "-o", "json")
	if code != 1 || !strings.Contains(stderr, "unreachable with leaf1-spine1, leaf2-spine2 down") {
		t.Fatalf("exit %d, stderr %s; want 1 and unreachable", code, stderr)
	}
	var p struct {
		SchemaVersion int              `json:"schema_version"`
		Down          []string         `json:"down"`
		Unreachable   string           `json:"unreachable"`
		Hops          []map[string]any `json:"hops"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.SchemaVersion != 1 || len(p.Down) != 16 || len(p.Hops) != 1 || p.Hops[0]["node"] != "leaf1" || !strings.Contains(p.Unreachable, "crosses AS 65000 twice") {
		t.Errorf("unreachable trace: %+v", p)
	}
	// What an unreachable destination has not got is null or absent, so
	// that a script cannot read the partial path as a path: the hop
	// counts, and the ECMP choice and hash of the switch with no route.
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"switch_hops", "end_to_end_hops"} {
		if v, ok := raw[k]; !ok || v != nil {
			t.Errorf("unreachable trace: %s = %v (present %v), want null", k, v, ok)
		}
	}
	for _, k := range []string{"chosen", "hash", "out"} {
		if v, ok := p.Hops[0][k]; ok {
			t.Errorf("unreachable trace: leaf1's %s = %v, want it absent", k, v)
		}
	}
	if c, ok := p.Hops[0]["candidates"].([]any); !ok || len(c) != 0 {
		t.Errorf("unreachable trace: leaf1's candidates %v, want []", p.Hops[0]["candidates"])
	}
	// A path that arrives has its counts, and a hash only where a switch
	// chose among several next hops.
	code, out, stderr = runCLI(t, "trace", "64gpu", "0", "32", "-o", "json")
	var ok struct {
		SchemaVersion int              `json:"schema_version"`
		SwitchHops    *int             `json:"switch_hops"`
		EndToEndHops  *int             `json:"end_to_end_hops"`
		Hops          []map[string]any `json:"hops"`
	}
	if err := json.Unmarshal([]byte(out), &ok); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, stderr)
	}
	if ok.SchemaVersion != 1 || ok.SwitchHops == nil || *ok.SwitchHops != 3 || ok.EndToEndHops == nil || *ok.EndToEndHops != 4 || len(ok.Hops) != 3 {
		t.Fatalf("trace 64gpu 0 32: %s", out)
	}
	if _, has := ok.Hops[0]["hash"]; !has {
		t.Errorf("leaf1 chose among 16 uplinks without a hash: %v", ok.Hops[0])
	}
	if _, has := ok.Hops[2]["hash"]; has || ok.Hops[2]["chosen"] != float64(0) {
		t.Errorf("leaf2 has one way to host5, yet hash %v chosen %v", ok.Hops[2]["hash"], ok.Hops[2]["chosen"])
	}
	// One link by its port: the leaf hashes over the 15 left.
	code, out, _ = runCLI(t, "trace", "64gpu", "0", "32", "--down", "leaf1:Ethernet128")
	if code != 0 || !strings.Contains(out, "of 15 (hash") || !strings.Contains(out, "down: leaf1:Ethernet128\n") {
		t.Errorf("one link down: exit %d\n%s", code, out)
	}
}
