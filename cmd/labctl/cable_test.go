package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A switch config's CABLE_LENGTH sizes the headroom SONiC's buffer
// manager gives the lossless PGs; the fibre is the lab's. On a lab of
// 300 m links, configs edited to say 5m leave the PGs a 5 m headroom:
// lint says QOS006, the PFC-only incast drops what arrives after its
// pauses, and regress fails against the run before the edit. (The
// simulator took the link's length from CABLE_LENGTH, so the edit
// shortened the fibre and nothing showed.)
func TestCableLengthEditShortOfTheLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "c300.yaml")
	if err := os.WriteFile(spec, []byte("name: c300\nsizing: {gpus: 16}\nqos: {cable_length_m: 300}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := resultsCLI(t, dir, "up", spec); code != 0 {
		t.Fatalf("up: exit %d: %s", code, errs)
	}
	runOK(t, dir, "ecn-pfc", "c300")
	if code, _, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "long-cables"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s", code, errs)
	}
	configs, _ := filepath.Glob(filepath.Join(dir, "topologies", "c300", "configs", "*.json"))
	if len(configs) == 0 {
		t.Fatal("no configs rendered")
	}
	for _, f := range configs {
		var d map[string]any
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &d)
		}
		if err != nil {
			t.Fatal(err)
		}
		cables, _ := d["CABLE_LENGTH"].(map[string]any)
		for _, e := range cables {
			for p := range e.(map[string]any) {
				e.(map[string]any)[p] = "5m"
			}
		}
		if b, err = json.MarshalIndent(d, "", "  "); err != nil || os.WriteFile(f, b, 0o644) != nil {
			t.Fatalf("write %s: %v", f, err)
		}
	}
	if code, out, _ := resultsCLI(t, dir, "config", "lint", "c300"); code != 1 || !strings.Contains(out, "over 300 m (the config sizes it for 5 m: CABLE_LENGTH)") {
		t.Errorf("lint: exit %d, want 1 and QOS006 naming the 300 m link and the 5 m config:\n%s", code, out)
	}
	code, r, errs := runJSON(t, dir, "ecn-pfc", "c300")
	if r == nil {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if v := variantOf(t, r, "ecn=off,pfc=on"); v.Summary.Drops == 0 {
		t.Errorf("PFC on with 5 m of headroom on 300 m links: no drops (%+v)", v.Summary)
	}
	if code, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", "long-cables"); code != 1 {
		t.Errorf("regress: exit %d, want 1:\n%s%s", code, out, errs)
	}
}
