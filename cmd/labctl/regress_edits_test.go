package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The loop a user runs after every config edit, on the catalog incast
// (whose figures include the unsettled first burst, so an edit's timing
// shift alone moves them): a harmless WRED edit (Kmax +3.8%) regresses
// with one run a side, and regress then says what to run; with five
// repetitions a side it passes, while a harmful Kmin (3 MB, next to Kmax)
// fails either way.
func TestRegressTellsEditsFromTimingShifts(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	cfg := filepath.Join(dir, "topologies", "16gpu", "configs", "leaf1.json")
	orig, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) {
		t.Helper()
		s := strings.Replace(string(orig), from, to, 1)
		if s == string(orig) {
			t.Fatalf("%s not in leaf1.json", from)
		}
		if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runID := func(reps string) string {
		t.Helper()
		code, r, stderr := runJSON(t, dir, "incast", "16gpu", "--repetitions", reps)
		if r == nil || code > 1 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
		return r.RunID
	}
	regress := func(id, base string) (int, string) {
		t.Helper()
		code, out, _ := runCLI(t, "regress", id, "--baseline", base, "--dir", dir)
		return code, out
	}
	const kmax, kmin = `"green_max_threshold": "3276800"`, `"green_min_threshold": "819200"`

	one := runID("1")
	edit(kmax, `"green_max_threshold": "3400000"`)
	harmless := runID("1")
	if code, out := regress(harmless, one); code != 1 || !strings.Contains(out, "\nnext: a regression here may be the timing shift alone") {
		t.Errorf("harmless edit, one run a side: exit %d, want 1 with the next step:\n%s", code, out)
	}

	if err := os.WriteFile(cfg, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	five := runID("5")
	edit(kmax, `"green_max_threshold": "3400000"`)
	if code, out := regress(runID("5"), five); code != 0 {
		t.Errorf("harmless edit, five repetitions a side: exit %d, want 0:\n%s", code, out)
	}
	edit(kmin, `"green_min_threshold": "3000000"`)
	if code, out := regress(runID("5"), five); code != 1 || !strings.Contains(out, "role.latency_us_p50") {
		t.Errorf("harmful Kmin, five repetitions a side: exit %d, want 1 on the incast's p50:\n%s", code, out)
	}
}
