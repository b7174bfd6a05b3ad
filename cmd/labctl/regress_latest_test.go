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
	const note = "changed since run"
	if code, _, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", "latest"); code != 0 || strings.Contains(stderr, note) {
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
	if code, _, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", "latest"); code != 0 || !strings.Contains(stderr, note) || !strings.Contains(stderr, "labctl run baseline-bw --lab 16gpu") {
		t.Errorf("configs edited since: exit %d: %s", code, stderr)
	}
}
