package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A baseline keeps what the compare reads and drops the time series; the
// run's own record keeps them; an old baseline with series still loads
// (read without them, as Compare reads) and compares.
func TestBaselineWithoutSeries(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	saveRuns(t, s, base)
	path, err := SaveBaseline(s, base.RunID, "good")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := ReadRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range saved.Variants {
		if len(v.Series) != 0 {
			t.Errorf("baseline variant %s keeps %d series", v.Name, len(v.Series))
		}
	}
	if !slices.Equal(saved.Omitted, []string{OmittedSeries, OmittedCost}) {
		t.Errorf("omitted = %v", saved.Omitted)
	}
	full, _ := json.Marshal(base)
	small, _ := json.Marshal(saved)
	if len(small) >= len(full)/2 {
		t.Errorf("baseline %d bytes, run %d: the series were the bulk", len(small), len(full))
	}
	own, err := s.Get(base.RunID)
	if err != nil || len(own.Variants[0].Series) == 0 || len(own.Omitted) != 0 {
		t.Errorf("the run's own record lost its series: %v", err)
	}
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	if r := Compare(run, saved, nil); r.Regressed || r.Compared.Metrics != 96 {
		t.Errorf("run vs series-less baseline: %v %+v", regressions(r), r.Compared)
	}
	// A baseline file written before series were left out.
	oldPath := filepath.Join(s.BaselinesDir(), "old.json")
	if err := os.WriteFile(oldPath, full, 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := LoadBaseline(s, "old")
	if err != nil || len(old.Variants) == 0 || len(old.Variants[0].Series) != 0 {
		t.Fatalf("old baseline: %v (read as Compare reads it: its variants, without their series)", err)
	}
	if r := Compare(run, old, nil); r.Regressed || r.Compared.Metrics != 96 {
		t.Errorf("run vs old baseline: %v %+v", regressions(r), r.Compared)
	}
	// ForBaseline leaves its argument alone; where the series ended goes
	// with them.
	base.Variants[0].SeriesEndUs = 1500
	if c := ForBaseline(base); len(base.Variants[0].Series) == 0 || base.Variants[0].SeriesEndUs != 1500 || len(c.Variants[0].Series) != 0 || c.Variants[0].SeriesEndUs != 0 {
		t.Error("ForBaseline changed the run it copied, or kept where the series it left out ended")
	}
}

// results/baselines/README.md documents every compared metric.
func TestBaselinesREADMENamesEveryMetric(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "results", "baselines", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range AllMetrics() {
		if !bytes.Contains(doc, []byte("| `"+m.Name+"` |")) {
			t.Errorf("results/baselines/README.md has no table row for %s", m.Name)
		}
	}
}
