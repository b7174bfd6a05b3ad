package results

import "testing"

// The verdict line without a regression says how the comparisons came
// out, the better ones apart from those within tolerance.
func TestVerdictCountsBetterApart(t *testing.T) {
	for _, c := range []struct {
		compared Tally
		want     string
	}{
		{Tally{Metrics: 40, Better: 4, Moved: 10, Unchanged: 26}, "OK: no regression (36 within tolerance, 4 better beyond tolerance: check they are intended)"},
		{Tally{Metrics: 40, Moved: 10, Unchanged: 30}, "OK: no regression (all 40 comparisons within tolerance)"},
		{Tally{Metrics: 1, Unchanged: 1}, "OK: no regression (the one comparison is within tolerance)"},
		{Tally{Metrics: 1, Better: 1}, "OK: no regression (0 within tolerance, 1 better beyond tolerance: check they are intended)"},
		{Tally{}, "OK: no regression, but no metric was compared (see what was not compared above)"},
	} {
		if got := (Report{Compared: c.compared}).verdict(); got != c.want {
			t.Errorf("%+v: verdict %q, want %q", c.compared, got, c.want)
		}
	}
	r := Report{Regressed: true, Regressions: 1, Findings: []Finding{{Kind: FindingAssertion, Regression: true}}}
	if got, want := r.verdict(), "REGRESSED: 1 regression: 1 assertion that passed in the baseline and fails now"; got != want {
		t.Errorf("verdict %q, want %q", got, want)
	}
}
