package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// regress latest says when the latest run is not of the lab's configs as
// they are now: after an edit whose run was refused, "latest" is the run
// before the edit, and a verdict on it says nothing of the edit.
func TestRegressLatestSaysWhenConfigsChangedSince(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	runOK(t, dir, "baseline-bw", "16gpu")
	if code, out, stderr := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "b"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, stderr)
	}
	runOK(t, dir, "baseline-bw", "16gpu")
	const note = "changed since run"
	if code, _, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", "b"); code != 0 || strings.Contains(stderr, note) {
		t.Fatalf("configs as run: exit %d: %s", code, stderr)
	}
	leaf := filepath.Join(dir, "topologies", "16gpu", "configs", "leaf1.json")
	data, err := os.ReadFile(leaf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leaf, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", "b"); code != 0 || !strings.Contains(stderr, note) || !strings.Contains(stderr, "labctl run baseline-bw --lab 16gpu") {
		t.Errorf("configs edited since: exit %d: %s", code, stderr)
	}
}

// regress latest when the latest run is the baseline itself (the run after
// it was refused or never made) compared the run with itself and said OK:
// it is bad input, with the run to make.
func TestRegressLatestIsTheBaseline(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	runOK(t, dir, "baseline-bw", "16gpu")
	if code, out, stderr := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "b"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, stderr)
	}
	for _, baseline := range []string{"b", "latest"} {
		code, out, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", baseline)
		if code != 2 || !strings.Contains(stderr, "is the baseline itself") || !strings.Contains(stderr, "fix: run the scenario first, 'labctl run baseline-bw --lab 16gpu'") || strings.Contains(out, "OK") {
			t.Errorf("regress latest --baseline %s: exit %d: %s%s", baseline, code, out, stderr)
		}
	}
}
