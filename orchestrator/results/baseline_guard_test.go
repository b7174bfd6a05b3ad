package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// "latest" is narrowed by the filter, and an existing baseline is replaced
// only with force.
func TestSaveBaselineFilteredAndGuarded(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	saveRuns(t, s, completedRuns()...)
	if _, err := SaveBaselineFiltered(s, "latest", "b", Filter{Scenario: "incast"}, false); err != nil {
		t.Fatal(err)
	}
	got, err := LoadBaseline(s, "b")
	if err != nil || got.RunID != "20261129T110000Z-incast-16gpu" {
		t.Fatalf("latest incast run saved as %v (%v)", got.RunID, err)
	}
	// Saving the same run again is harmless; another run needs force.
	if _, err := SaveBaselineFiltered(s, "latest", "b", Filter{Scenario: "incast"}, false); err != nil {
		t.Errorf("re-saving the same run: %v", err)
	}
	_, err = SaveBaselineFiltered(s, "latest", "b", Filter{}, false)
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "--force") {
		t.Errorf("overwriting a baseline without force: %v", err)
	}
	if _, err := SaveBaselineFiltered(s, "latest", "b", Filter{}, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadBaseline(s, "b"); got.RunID != "20261129T120000Z-ecn-pfc-16gpu" {
		t.Errorf("forced save kept %s", got.RunID)
	}
	// "latest" would shadow --baseline latest; a name longer than a file
	// name can be failed as unwritable (exit 3) after saying it exists.
	for name, want := range map[string]string{"latest": `"latest" is taken`, strings.Repeat("x", 300): "use at most 200"} {
		if _, err := SaveBaselineFiltered(s, "latest", name, Filter{}, true); exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), want) {
			t.Errorf("baseline name of %d characters: %v", len(name), err)
		}
	}
}

// completedRuns are threeRuns with the interrupted one finished (with a
// failed assertion), so every run can be a baseline.
func completedRuns() []*Run {
	runs := threeRuns()
	runs[2].Status = StatusFailed
	return runs
}

// A run that did not finish every variant, or whose variants hold errors,
// cannot be a baseline: later runs would go unchecked against it.
func TestSaveBaselineRefusesIncompleteRuns(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	interrupted := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0.Add(-3*time.Hour))
	interrupted.Status = StatusInterrupted
	running := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-2*time.Hour))
	running.Status, running.Finished = StatusRunning, nil
	short := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	short.VariantsPlanned = len(short.Variants) + 1
	lastDone := syntheticRun("20261129T093000Z-ecn-pfc-64gpu", t0.Add(-4*time.Hour))
	lastDone.Status, lastDone.VariantsPlanned = StatusInterrupted, len(lastDone.Variants)
	errored := syntheticRun("20261129T130000Z-ecn-pfc-64gpu", t0)
	errored.Status = StatusFailed
	errored.Variants[0].Error = "simulation aborted"
	saveRuns(t, s, interrupted, running, short, errored, lastDone)
	for _, tt := range []struct{ run, want string }{
		{interrupted.RunID, "was interrupted after 4 variants"},
		// Interrupted after its last variant by a labctl that recorded
		// such a run so: its final assertions were never checked.
		{lastDone.RunID, "after its last variant finished but before its final assertions were checked"},
		{running.RunID, "is still running"},
		{short.RunID, "has 4 of its 5 variants"},
		{errored.RunID, "could not run (simulation aborted)"},
	} {
		_, err := SaveBaselineFiltered(s, tt.run, "b", Filter{}, true)
		if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%s: %v (exit %d), want exit 2 with %q and a fix", tt.run, err, exitcode.Code(err), tt.want)
		}
	}
}

func TestSaveBaselineKeepsAnUnreadableFile(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	saveRuns(t, s, completedRuns()...)
	if err := os.MkdirAll(s.BaselinesDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.BaselinesDir(), "b.json")
	if err := os.WriteFile(path, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveBaselineFiltered(s, "latest", "b", Filter{}, false); exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("overwriting an unreadable baseline without force: %v", err)
	}
	if _, err := SaveBaselineFiltered(s, "latest", "b", Filter{}, true); err != nil {
		t.Errorf("with force: %v", err)
	}
}
