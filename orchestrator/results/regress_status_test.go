package results

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// A run that fails the assertions its baseline fails too (a baseline saved
// from a failed run) is no regression, but it does not pass: the verdict
// is failed, in text, JSON and JUnit, and the statuses of both sides say
// so. It used to read "OK: no regression".
func TestCompareBothFail(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour)) // fails "fair share"
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	if base.Status != StatusFailed {
		t.Fatalf("fixture status %s, want failed", base.Status)
	}
	r := Compare(run, base, nil)
	if r.Regressed || r.FailedAssertions != 1 || r.Verdict != VerdictFailed || r.RunStatus != StatusFailed || r.BaselineStatus != StatusFailed {
		t.Fatalf("regressed %v, failed assertions %d, verdict %q, statuses %q %q; want verdict failed of 1 assertion, both failed",
			r.Regressed, r.FailedAssertions, r.Verdict, r.RunStatus, r.BaselineStatus)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"status: the run failed, and so did the baseline\n",
		"FAILED in the run, not regressions (they did not pass in the baseline either): 1 assertion\n",
		`  ecn=off,pfc=off: assertion "fair share": fails now (jain_fairness=0.823) and failed in the baseline too (jain_fairness=0.823): not a regression, but both fail it` + "\n",
		"FAILED: no regression, but the run fails 1 assertion that did not pass in the baseline either",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "OK:") {
		t.Errorf("text says OK:\n%s", b.String())
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["run_status"] != "failed" || doc["baseline_status"] != "failed" || doc["verdict"] != "failed" || doc["failed_assertions"] != 1.0 || doc["regressed"] != false {
		t.Errorf("JSON run_status %v baseline_status %v verdict %v failed_assertions %v regressed %v", doc["run_status"], doc["baseline_status"], doc["verdict"], doc["failed_assertions"], doc["regressed"])
	}
	b.Reset()
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var suites JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Failures != 1 {
		t.Errorf("JUnit failures %d, want the failed assertion", suites.Failures)
	}

	// Both passing: OK, and no status line.
	ok := Compare(passingRun(run.RunID, t0), passingRun(base.RunID, t0.Add(-time.Hour)), nil)
	if ok.Verdict != VerdictOK || ok.FailedAssertions != 0 || strings.Contains(text(t, ok), "status:") {
		t.Errorf("passing runs: verdict %q, %d failed assertions:\n%s", ok.Verdict, ok.FailedAssertions, text(t, ok))
	}
}

// An assertion the run fails and the baseline does not have (a scenario
// that gained it) is no regression either, but the run does not pass.
func TestCompareNewAssertionFails(t *testing.T) {
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	run.Status = StatusFailed
	run.Variants[1].Assertions = append(run.Variants[1].Assertions, Assertion{Name: "no marks", Passed: false, Detail: "ecn_marked=5400"})
	r := Compare(run, base, nil)
	if r.Regressed || r.Verdict != VerdictFailed || r.FailedAssertions != 1 {
		t.Fatalf("verdict %q, regressions %v, failed assertions %d", r.Verdict, regressions(r), r.FailedAssertions)
	}
	if want := `ecn=on,pfc=off: assertion "no marks": fails now (ecn_marked=5400); the baseline has no such assertion`; !strings.Contains(text(t, r), want) {
		t.Errorf("text lacks %q:\n%s", want, text(t, r))
	}
}

// A failed run is saved as a baseline only with --force, which the error
// names, with the assertions it failed.
func TestSaveBaselineRefusesFailedRun(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	failed := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0)
	saveRuns(t, s, failed)
	_, err := SaveBaselineFiltered(s, "latest", "b", Filter{}, false)
	if exitcode.Code(err) != exitcode.BadInput {
		t.Fatalf("saving a failed run: %v (exit %d), want exit 2", err, exitcode.Code(err))
	}
	for _, want := range []string{`failed 1 assertion ("fair share" [ecn=off,pfc=off])`, "fix:", "--save-baseline 20261129T100000Z-ecn-pfc-64gpu b --force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if _, err := SaveBaselineFiltered(s, "latest", "b", Filter{}, true); err != nil {
		t.Errorf("with --force: %v", err)
	}
}

// A baseline given as a run (an id, latest, a run.json path) is checked as
// --save-baseline checks one: an interrupted, abandoned or failed run is
// refused with exit 2 and the fix; a failed run saved as a baseline with
// --force is taken, since saving it was meant. "latest" is narrowed by the
// filter, as the run's is.
func TestOpenBaselineRefusesWhatSaveRefuses(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	good := passingRun("20261129T090000Z-ecn-pfc-64gpu", t0.Add(-4*time.Hour))
	interrupted := passingRun("20261129T100000Z-ecn-pfc-64gpu", t0.Add(-3*time.Hour))
	interrupted.Status, interrupted.Variants = StatusInterrupted, interrupted.Variants[:2]
	abandoned := passingRun("20261129T103000Z-ecn-pfc-64gpu", t0.Add(-150*time.Minute))
	abandoned.Status = StatusAbandoned
	failed := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-2*time.Hour))
	other := passingRun("20261129T120000Z-incast-16gpu", t0.Add(-time.Hour))
	other.Scenario, other.Lab = "incast", "16gpu"
	saveRuns(t, s, good, interrupted, abandoned, failed, other)
	file := filepath.Join(t.TempDir(), "run.json")
	data, _ := json.Marshal(interrupted)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{
		interrupted.RunID: "was interrupted after 2 variants",
		file:              "was interrupted after 2 variants",
		abandoned.RunID:   "was abandoned after 4 variants",
		failed.RunID:      `failed 1 assertion ("fair share"`,
	} {
		_, err := OpenBaseline(s, ref, Filter{})
		if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("baseline %s: %v (exit %d), want exit 2 with %q and a fix", ref, err, exitcode.Code(err), want)
		}
	}
	if _, err := SaveBaselineFiltered(s, failed.RunID, "known-bad", Filter{}, true); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"known-bad", filepath.Join(s.BaselinesDir(), "known-bad.json"), good.RunID} {
		if _, err := OpenBaseline(s, ref, Filter{}); err != nil {
			t.Errorf("baseline %s: %v", ref, err)
		}
	}
	// latest is the incast run; narrowed to ecn-pfc it is the failed one.
	if b, err := OpenBaseline(s, Latest, Filter{Lab: "16gpu"}); err != nil || b.RunID != other.RunID {
		t.Errorf("latest of lab 16gpu: %v, %v", b, err)
	}
	if _, err := OpenBaseline(s, Latest, Filter{Scenario: "ecn-pfc"}); err == nil || !strings.Contains(err.Error(), failed.RunID) {
		t.Errorf("latest of scenario ecn-pfc: %v, want the failed run %s refused", err, failed.RunID)
	}
}
