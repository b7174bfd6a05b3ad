package results

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
)

// WriteText writes the report for a terminal, in the order a person reads
// it: what was compared with what and how far the verdict goes, the scenario's and the configs' changes
// (the likely causes), the regressions grouped by variant, then role, then
// port, each with baseline -> current and the tolerance; the changes in
// the better direction beyond tolerance; what could not be compared; then
// a count of every comparison by outcome and the verdict.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "regress %s%s against baseline %s%s\n", r.RunID, startedText(r.RunStarted), r.BaselineRunID, startedText(r.BaselineStarted))
	if r.Basis.Text != "" {
		fmt.Fprintf(&b, "compared: %s (confidence: %s)\n", r.Basis.Text, r.Basis.Confidence)
	}
	if len(r.Tolerances) > 0 {
		parts := make([]string, len(r.Tolerances))
		for i, t := range r.Tolerances {
			parts[i] = fmt.Sprintf("%s %s (%s)", t.Metric, t.Tolerance, t.From)
		}
		fmt.Fprintf(&b, "tolerances: %s; every other metric its default\n", strings.Join(parts, ", "))
	}
	if line := r.statusLine(); line != "" {
		b.WriteString(line + "\n")
	}
	r.writeScenarioChanges(&b)
	r.writeSimulatorChanges(&b)
	r.writeConfigChanges(&b)
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	if r.Regressed {
		fmt.Fprintf(&b, "\nREGRESSED: %s\n", plural.N(r.Regressions, "regression"))
		writeGrouped(&b, r.Findings, func(f Finding) bool { return f.Regression }, regressedPorts)
	}
	if r.FailedAssertions > 0 {
		fmt.Fprintf(&b, "\nFAILED in the run, not regressions (they did not pass in the baseline either): %s\n", plural.N(r.FailedAssertions, "assertion"))
		writeGrouped(&b, r.Findings, func(f Finding) bool { return f.Kind == FindingAssertionFailed }, 0)
	}
	if r.Compared.Elsewhere > 0 {
		fmt.Fprintf(&b, "\nbeyond tolerance at ports whose flows went elsewhere (other seeds, or flowlets after an edit: not regressions): %d\n", r.Compared.Elsewhere)
		writeGrouped(&b, r.Findings, func(f Finding) bool { return f.Kind == FindingMetric && f.Elsewhere }, betterPorts)
	}
	if r.Compared.Better > 0 {
		fmt.Fprintf(&b, "\nbetter beyond tolerance (not regressions; check they are intended): %d\n", r.Compared.Better)
		writeGrouped(&b, r.Findings, func(f Finding) bool { return f.Kind == FindingMetric && f.Better }, betterPorts)
	}
	if r.Compared.AbsentInBaseline > 0 {
		fmt.Fprintf(&b, "\nnot compared, absent in the baseline: %d\n", r.Compared.AbsentInBaseline)
		writeAbsentInBaseline(&b, r.Findings)
	}
	writeNotComputed(&b, r.NotComputed)
	b.WriteString("\n" + r.comparedLine() + "\n")
	if src := r.sources(); src != "" {
		b.WriteString("figures of the run: " + src + "\n")
	}
	b.WriteString(r.verdict() + "\n")
	if next := r.nextStep(); next != "" {
		b.WriteString("next: " + next + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// betterPorts is how many ports per variant the list of changes in the
// better direction shows: removing PFC, say, empties every paused queue,
// and the regressions are what matters.
const betterPorts = 4

// regressedPorts is how many ports per variant the list of regressions
// shows in full; the rest are summed up by metric (hiddenPortsByMetric).
// One edit on every switch of a large lab (ECN off on RoCE's queue of 48
// switches, many pairs across the spines) regressed 683 ports and
// priorities of 1024gpu, 1,400 lines of one cause.
const regressedPorts = 20

// writeGrouped writes the findings keep selects, grouped by variant, then
// place (the summary, each role, each port), in the order Compare made
// them; a variant's own findings (missing, failed, an assertion) come
// first, on one line each with the variant's name. maxPorts > 0 shows
// that many ports per variant and counts the rest.
func writeGrouped(b *strings.Builder, findings []Finding, keep func(Finding) bool, maxPorts int) {
	var variants []string
	byVariant := map[string][]Finding{}
	for _, f := range findings {
		if !keep(f) {
			continue
		}
		if _, ok := byVariant[f.Variant]; !ok {
			variants = append(variants, f.Variant)
		}
		byVariant[f.Variant] = append(byVariant[f.Variant], f)
	}
	for _, v := range variants {
		fs := byVariant[v]
		// The variant's own findings first, one line each, then each
		// place in order under the variant's name.
		// "-" marks what concerns the run as a whole (JSON keeps it).
		name := v
		if v == "-" {
			name = "run"
		}
		// New lint errors are one line for each cause, however many
		// switches have it, where the first of them was.
		var lint []Finding
		for _, f := range fs {
			if f.Kind == FindingLint && f.Lint != nil {
				lint = append(lint, f)
			}
		}
		for _, f := range fs {
			switch {
			case f.place() != "":
			case f.Kind == FindingLint && f.Lint != nil:
				for _, l := range groupedLintLines(lint) {
					fmt.Fprintf(b, "  %s: %s\n", name, l)
				}
				lint = nil
			default:
				fmt.Fprintf(b, "  %s: %s\n", name, f.line())
			}
		}
		var places []string
		byPlace := map[string][]Finding{}
		for _, f := range fs {
			p := f.place()
			if p == "" {
				continue
			}
			if _, ok := byPlace[p]; !ok {
				places = append(places, p)
			}
			byPlace[p] = append(byPlace[p], f)
		}
		if len(places) > 0 {
			fmt.Fprintf(b, "  %s\n", v)
		}
		ports := 0
		var hidden []Finding
		for _, p := range places {
			head := p
			f := byPlace[p][0]
			switch {
			case f.Scope == ScopeRole && f.Flows > 0:
				head += " (" + plural.N(f.Flows, "flow") + ")"
			case f.Scope == ScopePort:
				if ports++; maxPorts > 0 && ports > maxPorts {
					hidden = append(hidden, byPlace[p]...)
					continue
				}
			case f.Scope == ScopeNCCL:
				head += ncclSides(f)
			}
			fmt.Fprintf(b, "    %s\n", head)
			for _, f := range byPlace[p] {
				if f.Kind == FindingMissingRole || f.Kind == FindingRoleNotInBaseline {
					fmt.Fprintf(b, "      %s\n", f.Detail)
					continue
				}
				fmt.Fprintf(b, "      %s\n", f.line())
			}
		}
		if maxPorts > 0 && ports > maxPorts {
			fmt.Fprintf(b, "    and %d more ports and priorities (-o json lists every finding)\n", ports-maxPorts)
			for _, l := range hiddenPortsByMetric(hidden) {
				fmt.Fprintf(b, "      %s\n", l)
			}
		}
	}
}

// hiddenPortsByMetric sums up the port findings a capped list leaves out,
// a line for each metric in the order it first comes: on how many of
// them, on which nodes (qos.DeviceRanges), and the largest change, where
// it is; the metrics the baseline had and the run lacks, a line each of
// how many and where.
func hiddenPortsByMetric(fs []Finding) []string {
	type sum struct {
		places int
		nodes  []string
		most   Finding
		absent bool
	}
	var order []string
	by := map[string]*sum{}
	for _, f := range fs {
		if f.Kind != FindingMetric && f.Kind != FindingAbsent {
			continue
		}
		key := f.Kind + "\x00" + f.Metric
		s := by[key]
		if s == nil {
			s = &sum{most: f, absent: f.Kind == FindingAbsent}
			by[key] = s
			order = append(order, key)
		}
		s.places++
		if !slices.Contains(s.nodes, f.Node) {
			s.nodes = append(s.nodes, f.Node)
		}
		if math.Abs(f.Delta) > math.Abs(s.most.Delta) {
			s.most = f
		}
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		s := by[k]
		if s.absent {
			out = append(out, fmt.Sprintf("%s absent in the run on %d of them (%s)", s.most.Metric, s.places, qos.DeviceRanges(s.nodes, qos.SummaryRanges)))
			continue
		}
		out = append(out, fmt.Sprintf("%s on %d of them (%s), the largest at %s: %s", s.most.Metric, s.places, qos.DeviceRanges(s.nodes, qos.SummaryRanges), strings.TrimPrefix(s.most.place(), "port "), fmtDelta(s.most)))
	}
	return out
}

// writeAbsentInBaseline lists the metrics the run has and the baseline
// lacks, one line per variant, reason and set of metrics, naming the
// places (an old baseline without queue depth lacks it on every port).
func writeAbsentInBaseline(b *strings.Builder, findings []Finding) {
	type group struct {
		variant, why string
		metrics      []string
		places       []string
	}
	var groups []*group
	// Per variant and place: the metrics absent for one reason.
	type key struct{ variant, place, why string }
	perPlace := map[key][]string{}
	var keys []key
	for _, f := range findings {
		if f.Kind != FindingAbsent || f.Absent != AbsentInBaseline {
			continue
		}
		k := key{f.Variant, f.place(), f.why}
		if _, ok := perPlace[k]; !ok {
			keys = append(keys, k)
		}
		perPlace[k] = append(perPlace[k], f.Metric)
	}
	find := func(variant, why string, metrics []string) *group {
		for _, g := range groups {
			if g.variant == variant && g.why == why && strings.Join(g.metrics, ",") == strings.Join(metrics, ",") {
				return g
			}
		}
		g := &group{variant: variant, why: why, metrics: metrics}
		groups = append(groups, g)
		return g
	}
	for _, k := range keys {
		g := find(k.variant, k.why, perPlace[k])
		g.places = append(g.places, k.place)
	}
	last := ""
	for _, g := range groups {
		if g.variant != last {
			fmt.Fprintf(b, "  %s\n", g.variant)
			last = g.variant
		}
		places := g.places
		more := ""
		if len(places) > 4 {
			more = fmt.Sprintf(" and %d more", len(places)-4)
			places = places[:4]
		}
		fmt.Fprintf(b, "    %s at %s%s: %s\n", strings.Join(g.metrics, ", "), strings.Join(places, "; "), more, g.why)
	}
}

// comparedLine says precisely what was compared and how each comparison
// came out.
func (r Report) comparedLine() string {
	c := r.Compared
	elsewhere := ""
	if c.Elsewhere > 0 {
		elsewhere = fmt.Sprintf(", %d beyond tolerance at ports whose flows went elsewhere", c.Elsewhere)
	}
	what := plural.N(c.Variants, "variant")
	if c.Points > 0 && c.Points < c.Variants {
		// Repetitions pooled: the figures are per point.
		what = fmt.Sprintf("%s (%s of the baseline as repetitions)", plural.N(c.Points, "point"), plural.N(c.Variants, "variant"))
	}
	s := fmt.Sprintf("compared %s with the baseline: %s, %s (%s), %s (%s and %s): %s, %d worse beyond tolerance, %d better beyond tolerance%s, %d moved within tolerance, %d unchanged",
		what, plural.N(c.Summary, "summary metric"), plural.N(c.Role, "role metric"), plural.N(c.Roles, "role"),
		plural.N(c.Port, "port metric"), plural.N(c.Ports, "congested port"), plural.Noun(c.Ports, "priority"), plural.N(c.Metrics, "comparison"),
		c.Worse, c.Better, elsewhere, c.Moved, c.Unchanged)
	if c.NCCL > 0 {
		s += fmt.Sprintf("; of them %s of nccl-tests tables (%s)", plural.N(c.NCCL, "comparison"), plural.N(c.NCCLSizes, "message size"))
	}
	if c.AbsentInRun+c.AbsentInBaseline > 0 {
		s += fmt.Sprintf("; not compared: %d absent in the run, %d absent in the baseline", c.AbsentInRun, c.AbsentInBaseline)
	}
	return s
}

// nextStep is the run to make before trusting the verdict (Basis.Next),
// for the text and JUnit outputs alike: only under a regression whose
// findings are all figures beyond tolerance, which an edit's timing shift
// can make; an assertion that fails now, or a variant that failed, is a
// verdict on its own. "" otherwise.
func (r Report) nextStep() string {
	if !r.Regressed || slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Regression && f.Kind != FindingMetric }) {
		return ""
	}
	return r.Basis.Next
}

// verdict is the last line: REGRESSED with what kinds of regression, or
// OK with how the comparisons came out. Without a regression every
// comparison is within tolerance or better beyond it (worse beyond it is
// a regression); the better ones are counted apart, so that "within
// tolerance" never covers a change a person should look at.
func (r Report) verdict() string {
	failing := ""
	if r.FailedAssertions > 0 {
		failing = fmt.Sprintf("the run fails %s that did not pass in the baseline either", plural.N(r.FailedAssertions, "assertion"))
	}
	if r.Regressed && failing != "" {
		return r.regressedVerdict() + "; and " + failing
	}
	if failing != "" {
		return "FAILED: no regression, but " + failing + " (listed above): fix the configs or the assertions"
	}
	return r.regressedVerdict()
}

// regressedVerdict is verdict without the run's failed assertions.
func (r Report) regressedVerdict() string {
	if !r.Regressed {
		c := r.Compared
		within := c.Metrics - c.Better - c.Elsewhere
		if c.Elsewhere > 0 {
			return fmt.Sprintf("OK: no regression (%d within tolerance, %d better beyond tolerance, %d beyond tolerance at ports whose flows went elsewhere)", within, c.Better, c.Elsewhere)
		}
		switch {
		case c.Metrics == 0:
			return "OK: no regression, but no metric was compared (see what was not compared above)"
		case c.Better == 0 && within == 1:
			return "OK: no regression (the one comparison is within tolerance)"
		case c.Better == 0:
			return fmt.Sprintf("OK: no regression (all %d comparisons within tolerance)", within)
		}
		return fmt.Sprintf("OK: no regression (%d within tolerance, %d better beyond tolerance: check they are intended)", within, c.Better)
	}
	// Each kind's noun, counted, then the rest of its phrase.
	kinds := []struct{ kind, noun, rest string }{
		{FindingMetric, "metric", " worse beyond tolerance"},
		{FindingAbsent, "metric", " the run lacks"},
		{FindingMissingVariant, "variant", " missing from the run"},
		{FindingNotInBaseline, "variant", " not in the baseline"},
		{FindingMissingRole, "role", " missing from the run"},
		{FindingRoleNotInBaseline, "role", " not in the baseline"},
		{FindingVariantError, "variant", " that did not complete"},
		{FindingAssertion, "assertion", " that passed in the baseline and fail now"},
		{FindingUnfinished, "unfinished run", ""},
		{FindingNoVariants, "run", " without variants"},
		{FindingNCCLMismatch, "nccl-tests table", " of another collective"},
		{FindingNoMatch, "run", " whose variants match none of the baseline's"},
		{FindingLint, "lint error", " new in the run's configs"},
	}
	var parts []string
	for _, k := range kinds {
		n := 0
		for _, f := range r.Findings {
			if f.Regression && f.Kind == k.kind {
				n++
			}
		}
		if n > 0 {
			rest := k.rest
			if n == 1 && k.kind == FindingAssertion {
				rest = " that passed in the baseline and fails now"
			}
			parts = append(parts, plural.N(n, k.noun)+rest)
		}
	}
	return fmt.Sprintf("REGRESSED: %s: %s", plural.N(r.Regressions, "regression"), strings.Join(parts, ", "))
}

// statusLine says how the two runs ended when either did not pass ("" when
// both passed): a baseline saved from a failed run fails what the run
// fails, and that is no regression but no pass either.
func (r Report) statusLine() string {
	if r.RunStatus == StatusPassed && r.BaselineStatus == StatusPassed || r.RunStatus == "" || r.BaselineStatus == "" {
		return ""
	}
	if r.RunStatus == r.BaselineStatus {
		return fmt.Sprintf("status: the run %s, and so did the baseline", statusWords(r.RunStatus))
	}
	return fmt.Sprintf("status: the run %s, the baseline %s", statusWords(r.RunStatus), statusWords(r.BaselineStatus))
}

// statusWords is a run's status as a sentence says it.
func statusWords(status string) string {
	switch status {
	case StatusInterrupted, StatusAbandoned:
		return "was " + status
	case StatusRunning:
		return "is still running"
	}
	return status
}

// sources lists how the run's compared figures were obtained
// ("simulated", "estimated, flow-level", "measured, simulated").
func (r Report) sources() string {
	seen := map[Source]bool{}
	var out []string
	for _, f := range r.Findings {
		if f.Source != "" && !seen[f.Source] && (f.Kind == FindingMetric || f.Kind == FindingAbsent) {
			seen[f.Source] = true
			out = append(out, SourceLabel(f.Source, r.Model))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// notComparedHeading heads the list of metrics not compared: held by
// neither side, unless some are a transport's that one side did not run
// (absentAcrossTransports), whose reasons say so themselves.
func notComparedHeading(nc []NotComputedMetric) string {
	for _, m := range nc {
		if strings.HasPrefix(m.Reason, "not compared: the baseline ran ") {
			return "not compared"
		}
	}
	return "not compared, held by neither side"
}

// writeNotComputed lists the metrics neither side holds, by reason, each
// metric named once: they were skipped, not compared as zeros.
func writeNotComputed(b *strings.Builder, nc []NotComputedMetric) {
	if len(nc) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s: %d\n", notComparedHeading(nc), len(nc))
	var reasons []string
	names := map[string][]string{}
	for _, m := range nc {
		if _, ok := names[m.Reason]; !ok {
			reasons = append(reasons, m.Reason)
		}
		if !slices.Contains(names[m.Reason], m.Metric) {
			names[m.Reason] = append(names[m.Reason], m.Metric)
		}
	}
	for _, why := range reasons {
		fmt.Fprintf(b, "  %s: %s\n", strings.Join(names[why], ", "), why)
	}
}

// startedText is " (started <time>)" of a run in the regress header, ""
// when the record has no start.
func startedText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " (started " + StartedAt(t) + ")"
}

// StartedAt is how regress writes when a run started: "2026-12-07
// 23:16:22 UTC".
func StartedAt(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
