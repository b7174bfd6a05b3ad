package results

import (
	"fmt"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
)

// configChanges are the switch QoS fields that differ between a
// baseline and a run, in the resolved model's terms (qos.DiffSettings),
// each change grouped over the ports it is on: what regress names as the
// likely cause of the metrics that moved. Nil when either record predates
// the switches' QoS being kept.
func configChanges(run, baseline *Run) []qos.Difference {
	if len(run.QoS) == 0 || len(baseline.QoS) == 0 {
		return nil
	}
	d := qos.DiffSettings(baseline.QoS, run.QoS)
	if d == nil {
		d = []qos.Difference{}
	}
	return d
}

// maxConfigChanges bounds the changes listed in the text report.
const maxConfigChanges = 20

// writeConfigChanges says whether the vendor configs changed, which
// fields of the switches' resolved QoS, and how lint's verdict moved,
// ahead of the metrics.
func (r Report) writeConfigChanges(b *strings.Builder) {
	if r.NOS != "" && r.BaselineNOS != "" && r.NOS != r.BaselineNOS {
		fmt.Fprintf(b, "the switches' NOS changed between the baseline and this run: %s -> %s (the QoS changes below are %s's configs read against %s's, defaults included, as much as edits)\n", r.BaselineNOS, r.NOS, r.NOS, r.BaselineNOS)
	}
	if r.PortsMatched != "" {
		b.WriteString(r.PortsMatched + "\n")
	}
	switch {
	case r.ConfigChanged && r.ConfigChanges == nil:
		b.WriteString("vendor configs changed between the baseline and this run\n")
	case r.ConfigChanged && len(r.ConfigChanges) == 0:
		b.WriteString("vendor config files changed between the baseline and this run, but not what the switches do with them (the resolved QoS is the same)\n")
	}
	if len(r.ConfigChanges) > 0 {
		fmt.Fprintf(b, "switch QoS changed between the baseline and this run (baseline -> run):\n")
		writeCapped(b, r.ConfigChanges, maxConfigChanges)
	}
	if r.LintErrors != nil && r.BaselineLintErrors != nil && *r.LintErrors > *r.BaselineLintErrors {
		fmt.Fprintf(b, "lint: the run's configs have %s, the baseline's %d ('labctl config lint %s' lists them; the new ones are regressions, below)\n", plural.N(*r.LintErrors, "error"), *r.BaselineLintErrors, r.Lab)
	}
}

// writeCapped writes the first limit items, one an indented line, and how
// many more the JSON output lists.
func writeCapped[T fmt.Stringer](b *strings.Builder, items []T, limit int) {
	for i, c := range items {
		if i == limit {
			fmt.Fprintf(b, "  ... and %d more ('labctl regress -o json' lists them all)\n", len(items)-i)
			return
		}
		fmt.Fprintf(b, "  %s\n", c)
	}
}

// lintErrors is a record's lint error count, nil when it kept none.
func lintErrors(run *Run) *int {
	if run.Lint == nil {
		return nil
	}
	n := run.Lint.Errors
	return &n
}

// newLintErrors are the lint errors of the run's configs that the
// baseline's configs did not have, each a regression (FindingLint): lint
// errors are failures (an exit 1 of 'labctl config lint'), and an edit
// that brings one in regresses whatever the figures say. An error is the
// baseline's when it has one of the same rule on the same device and
// port; a record without the findings (only counts) is compared by count.
// None when either record kept no lint.
func newLintErrors(run, baseline *Run) []Finding {
	if run.Lint == nil || baseline.Lint == nil {
		return nil
	}
	key := func(f qos.Finding) string { return f.Rule + "\x00" + f.Device + "\x00" + f.Port }
	if run.NOS != baseline.NOS {
		// Another NOS names the ports (and their ranges) otherwise.
		key = func(f qos.Finding) string { return f.Rule + "\x00" + f.Device }
	}
	had := map[string]bool{}
	for _, f := range baseline.Lint.Findings {
		if f.Severity == qos.SevError {
			had[key(f)] = true
		}
	}
	var out []Finding
	listed := 0
	for _, f := range run.Lint.Findings {
		if f.Severity != qos.SevError {
			continue
		}
		listed++
		if had[key(f)] {
			continue
		}
		detail := "lint error " + f.Rule
		if where := strings.TrimSpace(f.Device + " " + f.Port); where != "" {
			detail += " at " + where
		}
		detail += ", new in the run's configs: " + f.Message
		if f.Fix != "" {
			detail += " (fix: " + f.Fix + ")"
		}
		out = append(out, Finding{Kind: FindingLint, Scope: ScopeVariant, Variant: "-", Metric: f.Rule, Node: f.Device, Port: f.Port, Regression: true, Detail: detail})
	}
	if len(out) == 0 && listed < run.Lint.Errors && run.Lint.Errors > baseline.Lint.Errors {
		// Counts only: the record kept no findings to tell which are new.
		out = append(out, Finding{Kind: FindingLint, Scope: ScopeVariant, Variant: "-", Metric: "lint", Regression: true,
			Detail: fmt.Sprintf("the run's configs have %s, the baseline's %d: 'labctl config lint' lists them", plural.N(run.Lint.Errors, "lint error"), baseline.Lint.Errors)})
	}
	return out
}
