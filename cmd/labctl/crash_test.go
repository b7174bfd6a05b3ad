//go:build linux

package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/results"
)

// crashScenario has four variants of a short incast, so a run saves its
// record five times and writes reports: kills land before the first save,
// between variants, mid-write and while reports are written.
const crashScenario = `name: crash
duration: 2ms
sample_every: 20us
traffic:
  - pattern: incast
    senders: 4
assertions:
  - name: lossless with PFC
    expr: summary.drops == 0 when pfc
`

// minKills is how many runs must actually die by SIGKILL.
const minKills = 20

// TestCrashConsistency kills 'labctl run' with SIGKILL at random points
// and checks, after every kill, that results list, report latest, results
// show, regress and results reindex agree: the same latest run, the same
// status (a killed run reads as abandoned everywhere, never running), no
// record without a finished variant, every run.json readable, and reindex
// settling the records without changing what readers saw.
func TestCrashConsistency(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills labctl runs at random points (about 15 s)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crash.yaml"), []byte(crashScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun := func(args ...string) childResult {
		t.Helper()
		r := runChild(t, dir, nil, args...)
		if r.code != 0 {
			t.Fatalf("labctl %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
		return r
	}
	mustRun("up", "16gpu")
	// How long a run takes, only to spread the kill points over one: the
	// shorter of two, since the first also creates the results index and
	// warms the caches (under CI's load it took 604 ms where the later
	// ones took a fraction, and 68 of 80 kill points came after the run).
	var full time.Duration
	for range 2 {
		start := time.Now()
		mustRun("run", "crash.yaml", "--lab", "16gpu")
		if d := time.Since(start); full == 0 || d < full {
			full = d
		}
	}
	mustRun("regress", "--save-baseline", "latest", "good")

	seed := uint64(time.Now().UnixNano())
	t.Logf("kill points drawn with seed %d over a %s run", seed, full.Round(time.Millisecond))
	rng := rand.New(rand.NewPCG(seed, 0x1abc))
	kills := 0
	for attempt := 0; kills < minKills; attempt++ {
		if attempt >= 4*minKills {
			t.Fatalf("only %d of %d runs died by SIGKILL: the kill points miss the runs", kills, attempt)
		}
		delay := time.Duration(rng.Int64N(int64(full)))
		cmd := exec.Command(labctlBinary(t), "run", "crash.yaml", "--lab", "16gpu")
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			kills++
		} else if delay > time.Millisecond {
			// The run ended before its kill point, so within delay: the
			// next points are drawn over that, as runs go faster than
			// the first measured (the machine's load changes).
			full = min(full, delay)
		}
		checkConsistent(t, dir, false)
		if attempt%3 == 2 {
			before := listRuns(t, dir)
			mustRun("results", "reindex")
			after := checkConsistent(t, dir, true)
			if !sameRuns(before, after) {
				t.Fatalf("reindex changed what readers see:\nbefore %v\nafter  %v", before, after)
			}
		}
	}
	mustRun("results", "reindex")
	runs := checkConsistent(t, dir, true)
	counts := map[string]int{}
	for _, r := range runs {
		counts[r.Status]++
	}
	t.Logf("%d kills; runs left: %v", kills, counts)
}

type listedRun struct {
	RunID    string `json:"run_id"`
	Status   string `json:"status"`
	Variants int    `json:"variants"`
}

func listRuns(t *testing.T, dir string) []listedRun {
	t.Helper()
	r := runChild(t, dir, nil, "results", "list", "--limit", "0", "-o", "json")
	if r.code != 0 {
		t.Fatalf("results list: exit %d\n%s", r.code, r.stderr)
	}
	var out struct {
		Runs []listedRun `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("results list -o json: %v\n%s", err, r.stdout)
	}
	return out.Runs
}

func sameRuns(a, b []listedRun) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkConsistent checks what every reader says after a kill; settled is
// true after a reindex, when the records on disk must say it too.
func checkConsistent(t *testing.T, dir string, settled bool) []listedRun {
	t.Helper()
	runs := listRuns(t, dir)
	if len(runs) == 0 {
		t.Fatal("no runs listed; the complete first run is gone")
	}
	shown := runs
	if !settled && len(shown) > 3 {
		shown = shown[:3] // the runs a kill can have touched; all after a reindex
	}
	for _, r := range runs {
		switch {
		case r.Status == results.StatusRunning:
			t.Errorf("run %s is listed as running, but no labctl is running", r.RunID)
		case r.Variants == 0:
			t.Errorf("run %s (%s) is listed with no finished variant", r.RunID, r.Status)
		}
	}
	for _, r := range shown {
		show := runChild(t, dir, nil, "results", "show", r.RunID, "-o", "json")
		var rec results.Run
		if show.code != 0 || json.Unmarshal([]byte(show.stdout), &rec) != nil {
			t.Fatalf("results show %s: exit %d\n%s", r.RunID, show.code, show.stderr)
		}
		if rec.Status != r.Status || len(rec.Variants) != r.Variants {
			t.Errorf("run %s: list says %s with %d variants, show says %s with %d", r.RunID, r.Status, r.Variants, rec.Status, len(rec.Variants))
		}
		if settled {
			onDisk, err := results.ReadRunFile(filepath.Join(dir, "results", r.RunID, results.RunFile))
			if err != nil || onDisk.Status != r.Status {
				t.Errorf("run %s after reindex: run.json %v, status %v; list says %s", r.RunID, err, statusOf(onDisk), r.Status)
			}
		}
	}
	latest := runs[0]
	rep := runChild(t, dir, nil, "report", "latest", "-o", "json")
	var rec results.Run
	if rep.code != 0 || json.Unmarshal([]byte(rep.stdout), &rec) != nil {
		t.Fatalf("report latest: exit %d\n%s", rep.code, rep.stderr)
	}
	if rec.RunID != latest.RunID || rec.Status != latest.Status {
		t.Errorf("report latest is %s (%s), results list's newest is %s (%s)", rec.RunID, rec.Status, latest.RunID, latest.Status)
	}
	reg := runChild(t, dir, nil, "regress", "latest", "--baseline", "good")
	want := 0 // same scenario, lab and seed: a complete run matches
	if latest.Status != results.StatusPassed {
		want = 1 // an abandoned run misses variants of the baseline
	}
	// Where every killed run died before it made its folder, the newest
	// run is the one saved as the baseline, and regress refuses to compare
	// a run with itself.
	var good struct {
		RunID string `json:"run_id"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "results", "baselines", "good.json")); err == nil && json.Unmarshal(b, &good) == nil && good.RunID == latest.RunID {
		want = 2
	}
	if reg.code != want {
		t.Errorf("regress %s (%s) against good: exit %d, want %d\n%s%s", latest.RunID, latest.Status, reg.code, want, reg.stdout, reg.stderr)
	}
	if want == 1 && !strings.Contains(reg.stdout, "was abandoned before it finished") {
		t.Errorf("regress of abandoned run %s does not say so:\n%s", latest.RunID, reg.stdout)
	}
	if want == 1 && latest.Variants < 4 && !strings.Contains(reg.stdout, "variant is in the baseline but not in the run (run abandoned)") {
		t.Errorf("regress of abandoned run %s does not name the missing variants:\n%s", latest.RunID, reg.stdout)
	}
	if settled {
		// Nothing half-done stays behind: no folder without a record, no
		// temporary file of a killed write.
		entries, _ := os.ReadDir(filepath.Join(dir, "results"))
		for _, e := range entries {
			if !e.IsDir() || !results.ValidRunID(e.Name()) {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, "results", e.Name(), results.RunFile)); err != nil {
				t.Errorf("results/%s has no run.json after reindex", e.Name())
			}
			if tmps, _ := filepath.Glob(filepath.Join(dir, "results", e.Name(), ".*.tmp-*")); len(tmps) > 0 {
				t.Errorf("temporary files left after reindex: %v", tmps)
			}
		}
	}
	return runs
}

func statusOf(r *results.Run) string {
	if r == nil {
		return "-"
	}
	return r.Status
}
