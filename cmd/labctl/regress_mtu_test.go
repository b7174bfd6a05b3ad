package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// TestRegressDeletedMTUShowsDefault: a SONiC port whose PORT mtu is
// deleted runs at SONiC's default (9100: PortConfig.DefaultMTU), which
// drops a jumbo UET lab's 9160-byte packets. regress and config diff
// showed the change as 'mtu: 9160 -> -', as if the port now carried any
// packet; they show what the switch runs, '9160 -> 9100 (default)'.
func TestRegressDeletedMTUShowsDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "uet16.yaml")
	body := fmt.Sprintf("name: uet16\nsizing:\n  gpus: 16\nnos: sonic\ntransport: uet\nqos:\n  profile: roce-dcqcn\n  mtu: %d\n", fabric.SwitchMTU)
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := resultsCLI(t, dir, "up", spec); code != 0 {
		t.Fatalf("up: exit %d: %s", code, errs)
	}
	runOK(t, dir, "baseline-bw", spec)
	ids, _ := filepath.Glob(filepath.Join(dir, "results", "*-baseline-bw-uet16"))
	if len(ids) != 1 {
		t.Fatalf("runs: %v", ids)
	}
	baseline := filepath.Base(ids[0])

	// The user's edit: leaf1's PORT entries without their mtu.
	leaf := filepath.Join(dir, "topologies", "uet16", "configs", "leaf1.json")
	data, err := os.ReadFile(leaf)
	if err != nil {
		t.Fatal(err)
	}
	before := filepath.Join(dir, "before", "leaf1.json")
	if err := os.MkdirAll(filepath.Dir(before), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(before, data, 0o644); err != nil {
		t.Fatal(err)
	}
	edited := strings.ReplaceAll(string(data), `"mtu": "9160"`, `"mtu_was": "9160"`)
	var d map[string]map[string]map[string]string
	if err := json.Unmarshal([]byte(edited), &d); err != nil || edited == string(data) {
		t.Fatalf("no PORT mtu 9160 in the rendered leaf1 (%v)", err)
	}
	for _, e := range d["PORT"] {
		delete(e, "mtu_was")
	}
	out, _ := json.MarshalIndent(d, "", "    ")
	if err := os.WriteFile(leaf, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := resultsCLI(t, dir, "run", "baseline-bw", "--lab", spec); code != 1 {
		t.Fatalf("run with leaf1's mtu deleted: exit %d, want 1 (its packets are dropped): %s", code, errs)
	}

	const want = "leaf1 Ethernet0-92 mtu: 9160 -> 9100 (default)"
	code, text, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", baseline)
	if code != 1 || !strings.Contains(text, "  "+want+"\n") {
		t.Errorf("regress: exit %d, want 1 and %q:\n%s%s", code, want, text, errs)
	}
	_, js, _ := resultsCLI(t, dir, "regress", "latest", "--baseline", baseline, "-o", "json")
	var rep struct {
		ConfigChanges []struct{ Device, Port, Field, A, B string } `json:"config_changes"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("regress -o json: %v\n%s", err, js)
	}
	if c := rep.ConfigChanges; len(c) != 1 || c[0].Field != "mtu" || c[0].A != "9160" || c[0].B != "9100 (default)" {
		t.Errorf("regress -o json config_changes: %+v, want mtu 9160 -> 9100 (default)", c)
	}
	code, text, errs = runCLI(t, "config", "diff", before, leaf)
	if code != 1 || !slices.ContainsFunc(strings.Split(text, "\n"), func(l string) bool {
		return strings.Join(strings.Fields(l), " ") == "leaf1 Ethernet0-92 mtu 9160 9100 (default)"
	}) {
		t.Errorf("config diff: exit %d:\n%s%s", code, text, errs)
	}
}
