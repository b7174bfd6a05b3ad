package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// TestResultsBaselines: labctl results baselines lists the saved
// baselines with what each is a run of; a file there that is not a record
// is listed as unreadable with why, not skipped; none says how to save
// one.
func TestResultsBaselines(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	if code, out, _ := runCLI(t, "results", "baselines", "--dir", dir); code != 0 || !strings.Contains(out, "no saved baselines; save a run as one with 'labctl regress --save-baseline latest <name>'") {
		t.Errorf("none saved: exit %d:\n%s", code, out)
	}
	code, r, stderr := runJSON(t, dir, "baseline-bw", "16gpu")
	if r == nil || code > 1 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "bw-16gpu"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "results", "baselines", "broken.json"), []byte("{\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "results", "baselines", "--dir", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[1], "broken  ") || !strings.Contains(lines[1], "(unreadable)") ||
		!strings.HasPrefix(lines[2], "bw-16gpu") || !strings.Contains(lines[2], " baseline-bw ") || !strings.Contains(lines[2], r.RunID) ||
		!strings.HasPrefix(lines[3], "unreadable broken: read run record") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	_, out, _ = runCLI(t, "results", "baselines", "--dir", dir, "-o", "json")
	var got struct {
		SchemaVersion int                       `json:"schema_version"`
		Baselines     []results.BaselineSummary `json:"baselines"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if b := got.Baselines; got.SchemaVersion != results.SchemaVersion || len(b) != 2 || b[0].Error == "" || b[1].Name != "bw-16gpu" ||
		b[1].RunID != r.RunID || b[1].Scenario != "baseline-bw" || b[1].Lab != "16gpu" || b[1].Seed != 1 || b[1].Variants != len(r.Variants) || b[1].Model != "packet" {
		t.Errorf("json: %+v", got)
	}
}
