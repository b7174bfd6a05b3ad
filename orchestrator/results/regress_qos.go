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
		fmt.Fprintf(b, "the switches' NOS changed between the baseline and this run: %s -> %s (the QoS changes below are %s's configs read against %s's, port names and defaults included, as much as edits)\n", r.BaselineNOS, r.NOS, r.NOS, r.BaselineNOS)
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
		fmt.Fprintf(b, "lint: the run's configs have %s, the baseline's %d ('labctl config lint %s' lists them)\n", plural.N(*r.LintErrors, "error"), *r.BaselineLintErrors, r.Lab)
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
