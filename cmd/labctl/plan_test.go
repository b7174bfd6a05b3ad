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
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	code, _, stderr := runCLI(t, "status", "--dir", file)
	if code != 2 || !strings.Contains(stderr, "not a directory") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
