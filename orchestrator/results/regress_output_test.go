package results

import (
	"errors"
	"strings"
	"testing"
)

// Counts move by whole frames: 20% of 28627 pause frames allows 5725 more,
// not 5725.4; the fairness, a fraction, keeps its fraction.
func TestWholeCountAllowance(t *testing.T) {
	f := compareMetric(Finding{Metric: "pfc_pause_frames", Direction: HigherIsWorse}, Tolerance{Rel: 0.2, Abs: 50}, 28627, 34353, 0)
	if f.Allowed != 5725 || !f.Regression {
		t.Errorf("pause frames: allowed %v, regression %v; want 5725 and 34353-28627=5726 a regression", f.Allowed, f.Regression)
	}
	if f := compareMetric(Finding{Metric: "pfc_pause_frames", Direction: HigherIsWorse}, Tolerance{Rel: 0.2}, 28627, 34352, 0); f.Regression {
		t.Errorf("5725 more pause frames: a regression, allowed %v", f.Allowed)
	}
	if !strings.Contains(f.line(), "allowed +5725 (") {
		t.Errorf("line %q", f.line())
	}
	if j := compareMetric(Finding{Metric: "jain_fairness", Direction: LowerIsWorse}, Tolerance{Abs: 0.02}, 0.9, 0.9, 0); j.Allowed != 0.02 {
		t.Errorf("fairness allowed %v, want 0.02", j.Allowed)
	}
	// Means over repetitions move by fractions: 20% of a mean of 24.6
	// drops allows 4.92 more, so a mean of 29.2 (+4.6) is within it (a
	// floor of 4 flagged it).
	if m := compareMetric(Finding{Metric: "drops", Direction: HigherIsWorse}, Tolerance{Rel: 0.2}, 24.6, 29.2, 1); m.Regression || m.Allowed < 4.9 {
		t.Errorf("mean drops 24.6 -> 29.2: allowed %v, regression %v; want 4.92 and none", m.Allowed, m.Regression)
	}
}

// --tolerance names what is wrong: a sign (drops=+2 said `"" is not a
// non-negative number`), an empty part, two of a kind, and a metric given
// twice (the last one silently won).
func TestParseToleranceNamesTheProblem(t *testing.T) {
	for in, want := range map[string]string{
		"drops=+2":      "a tolerance takes no sign: it is how far drops may move in its worse direction (higher-is-worse); write 2",
		"drops=10%+":    "nothing after the +",
		"drops=+":       "nothing after the +",
		"drops=3%+2%":   "two percentages",
		"drops=1+2":     "two absolute values",
		"drops=1%+2+3":  "has 3 parts",
		"drops=-2":      `"-2" is not a non-negative number`,
		"drops=10%+abc": `"abc" is not a non-negative number`,
	} {
		if _, _, err := ParseTolerance(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	if _, err := ParseTolerances([]string{"drops=2", "drops=3"}); err == nil || !strings.Contains(err.Error(), "tolerance drops given twice (2, then 3)") {
		t.Errorf("a metric given twice: %v", err)
	}
	if tol, err := ParseTolerances([]string{"drops=10%+2", "role[victim].latency_us_p50=5%", "role.latency_us_p50=20%"}); err != nil || len(tol) != 3 {
		t.Errorf("distinct metrics: %v %v", tol, err)
	}
}

// "latest" narrowed to nothing says by what (it said `no run matches
// "latest"` whatever --lab said).
func TestLatestNotFoundNamesTheFilter(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	saveRuns(t, s, threeRuns()...)
	_, err := s.Resolve(Latest, Filter{Lab: "99gpu", Scenario: "incast"})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), `no run of lab 99gpu, scenario incast matches "latest"`) || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("got %v", err)
	}
	if _, err := OpenBaseline(s, Latest, Filter{Lab: "99gpu"}); err == nil || !strings.Contains(err.Error(), "no run of lab 99gpu") {
		t.Errorf("baseline latest of lab 99gpu: %v", err)
	}
}
