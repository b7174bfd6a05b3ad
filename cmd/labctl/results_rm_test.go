package main

import (
	"strings"
	"testing"
)

// labctl results rm removes named runs, or all but the newest N of a
// filter, from the folders and the index; --dry-run only lists them, and a
// call without names or --keep, or with both, is refused.
func TestResultsRm(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	var ids []string
	for range 4 {
		code, r, stderr := runJSON(t, dir, "baseline-bw", "16gpu")
		if r == nil || code > 1 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
		ids = append(ids, r.RunID)
	}
	listed := func() string {
		t.Helper()
		_, out, _ := runCLI(t, "results", "list", "--dir", dir)
		return out
	}
	for _, args := range [][]string{{}, {ids[0], "--keep", "1"}, {"--keep", "-1"}, {"nope"}} {
		if code, _, stderr := runCLI(t, append([]string{"results", "rm", "--dir", dir}, args...)...); code != 2 || !strings.Contains(stderr, "labctl: ") {
			t.Errorf("rm %v: exit %d, want 2: %s", args, code, stderr)
		}
	}
	if code, out, _ := runCLI(t, "results", "rm", "--keep", "1", "--dry-run", "--dir", dir); code != 0 || !strings.Contains(out, "would remove 3 runs") || !strings.Contains(listed(), ids[0]+" ") {
		t.Errorf("dry run: exit %d:\n%s", code, out)
	}
	if code, out, stderr := runCLI(t, "results", "rm", ids[1], "--dir", dir); code != 0 || !strings.Contains(out, "removed "+ids[1]) || strings.Contains(listed(), ids[1]+" ") {
		t.Errorf("rm %s: exit %d: %s%s", ids[1], code, out, stderr)
	}
	if code, out, stderr := runCLI(t, "results", "rm", "--keep", "1", "--scenario", "baseline-bw", "--dir", dir); code != 0 || !strings.Contains(out, "removed 2 runs") {
		t.Errorf("rm --keep 1: exit %d: %s%s", code, out, stderr)
	}
	// (Run ids of one second share a prefix: -2, -3 follow the first.)
	if l := listed(); strings.Contains(l, ids[0]+" ") || strings.Contains(l, ids[2]+" ") || !strings.Contains(l, ids[3]+" ") {
		t.Errorf("after rm --keep 1, want the newest run alone:\n%s", l)
	}
}
