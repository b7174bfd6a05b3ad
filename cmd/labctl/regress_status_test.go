package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/results"
)

// A failed run is saved as a baseline only with --force; given as a run
// (--baseline <run-id>), a failed or interrupted run is refused (exit 2),
// as --save-baseline refuses it; and a run that fails what a baseline
// saved failing fails too is no regression but no OK either (exit 1).
func TestRegressFailedAndUnfinishedBaselines(t *testing.T) {
	t.Parallel()
	dir := seedRuns(t) // latest, 20261129T130000Z, failed "no drops with PFC on"
	s, err := results.Open(filepath.Join(dir, "results"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	interrupted := cliRun("20261129T133000Z-ecn-pfc-64gpu", t0.Add(90*time.Minute), 0)
	interrupted.Status, interrupted.VariantsPlanned, interrupted.Variants = results.StatusInterrupted, 2, interrupted.Variants[:1]
	for _, r := range []*results.Run{interrupted, cliRun("20261129T140000Z-ecn-pfc-64gpu", t0.Add(2*time.Hour), 150)} {
		if err := s.SaveRun(r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	const failed = "20261129T130000Z-ecn-pfc-64gpu"
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", failed, "bad"); code != 2 || !strings.Contains(errs, `failed 1 assertion ("no drops with PFC on" [ecn=on,pfc=on])`) || !strings.Contains(errs, "--force") {
		t.Errorf("saving a failed run: exit %d: %s%s", code, out, errs)
	}
	for ref, want := range map[string]string{failed: "failed 1 assertion", "20261129T1330": "was interrupted after 1 variant"} {
		if code, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", ref); code != 2 || !strings.Contains(errs, want) || !strings.Contains(errs, "fix:") {
			t.Errorf("--baseline %s: exit %d: %s%s", ref, code, out, errs)
		}
	}
	code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", failed, "bad", "--force")
	if code != 0 || !strings.Contains(out, "is saved so with --force") {
		t.Errorf("saving a failed run with --force: exit %d: %s%s", code, out, errs)
	}
	code, out, errs = resultsCLI(t, dir, "regress", "latest", "--baseline", "bad")
	if code != 1 || !strings.Contains(out, "status: the run failed, and so did the baseline") || !strings.Contains(out, "FAILED: no regression, but the run fails 1 assertion") || strings.Contains(out, "OK") {
		t.Errorf("a run failing what the baseline failed: exit %d: %s%s", code, out, errs)
	}
}

// Two runs of ecn-pfc on 16gpu with 5 repetitions at other seeds and
// nothing changed are no regression: the run's spread counts with the
// baseline's (the baseline's alone failed seeds 21-25 against 1-5 on the
// lossy victim's throughput, which has two modes across seeds).
func TestRegressRepetitionsAtOtherSeedsUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of 20 variants")
	}
	t.Parallel()
	dir := upLab(t, "16gpu")
	for i, seed := range []string{"1", "21"} {
		if code, _, errs := resultsCLI(t, dir, "run", "ecn-pfc", "--lab", "16gpu", "--repetitions", "5", "--seed", seed); code != 0 {
			t.Fatalf("run at seed %s: exit %d: %s", seed, code, errs)
		}
		if i == 0 {
			if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "rep5"); code != 0 {
				t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
			}
		}
	}
	if code, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", "rep5"); code != 0 || !strings.Contains(out, "OK: no regression") {
		t.Errorf("seeds 21-25 against 1-5, nothing changed: exit %d\n%s%s", code, out, errs)
	}
}
