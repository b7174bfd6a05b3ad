package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// "latest" is narrowed by the filter, and an existing baseline is replaced
// only with force.
func TestSaveBaselineFilteredAndGuarded(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	saveRuns(t, s, threeRuns()...)
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
}

func TestSaveBaselineKeepsAnUnreadableFile(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	saveRuns(t, s, threeRuns()...)
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
