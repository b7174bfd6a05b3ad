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
