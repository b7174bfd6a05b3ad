package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// A variant whose paths are not the flow hash's alone records how they
// were chosen (params lb.mode) even where the scenario does not sweep it,
// so that regress can tell its ports' figures move with the timing after
// an edit; ECMP, the default, adds nothing.
func TestRecordKeepsLBMode(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	for mode, want := range map[string]string{"spray": "spray", "ecmp": ""} {
		file := filepath.Join(dir, "lb-"+mode+".yaml")
		scenario := "name: lb-" + mode + "\nduration: 1ms\nlb:\n  mode: " + mode + "\nnic:\n  out_of_order: true\ntraffic:\n  - pattern: pairs\n    pairs: 2\n    traffic_class: 106\n"
		if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
			t.Fatal(err)
		}
		code, r, stderr := runJSON(t, dir, file, "16gpu")
		if r == nil || code > 1 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		if got := r.Variants[0].Params[results.ParamLBMode]; got != want {
			t.Errorf("lb.mode %s: params[%s] = %q, want %q", mode, results.ParamLBMode, got, want)
		}
	}
}
