package results

import (
	"fmt"
	"regexp"
	"slices"
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
		writeCapped(b, groupConfigChanges(r.ConfigChanges), maxConfigChanges, configChangeGroup.changes)
	}
	// Only beside the new errors it announces: a count can rise without
	// one (a baseline whose lint named a cause on several ports, or links
	// to several peers, once, and a run whose lint gave one a port).
	// Where none is new, the line says so and promises no list: a count
	// that rose is still the user's to look at.
	newLint := slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Kind == FindingLint })
	if r.LintErrors != nil && r.BaselineLintErrors != nil && *r.LintErrors > *r.BaselineLintErrors {
		if newLint {
			fmt.Fprintf(b, "lint: the run's configs have %s, the baseline's %d ('labctl config lint %s' lists them; the new ones are regressions, below)\n", plural.N(*r.LintErrors, "error"), *r.BaselineLintErrors, r.Lab)
		} else {
			fmt.Fprintf(b, "lint: the run's configs have %s, the baseline's %d; none new by rule, switch and port: compare with 'labctl config lint %s'\n", plural.N(*r.LintErrors, "error"), *r.BaselineLintErrors, r.Lab)
		}
	}
}

// configChangeGroup is one change on one switch or on several, as lint's
// text groups its findings (qos.GroupDevices): "48 switches (leaf1-32
// (Ethernet33-48); spine1-16 (Ethernet1-32)) queue.3.ecn: a -> b".
type configChangeGroup struct{ g qos.DeviceGroup }

func (c configChangeGroup) String() string { return c.g.ShortPlace() + " " + c.g.Message }

// changes is how many of the report's changes (one a switch) the line
// stands for.
func (c configChangeGroup) changes() int { return max(len(c.g.Devices), 1) }

// groupConfigChanges merges the same change on several switches into one
// (a config edit made to every switch was a line a switch, of which the
// text showed 20).
func groupConfigChanges(ds []qos.Difference) []configChangeGroup {
	fs := make([]qos.Finding, len(ds))
	for i, d := range ds {
		fs[i] = qos.Finding{Device: d.Device, Port: d.Port, Message: d.Change()}
	}
	var out []configChangeGroup
	for _, g := range qos.GroupDevices(fs) {
		out = append(out, configChangeGroup{g})
	}
	return out
}

// writeCapped writes the first limit items, one an indented line, and how
// many more the JSON output lists: count, when not nil, is how many of
// its entries an item's line stands for (a change on several switches is
// one line, and one entry a switch there).
func writeCapped[T fmt.Stringer](b *strings.Builder, items []T, limit int, count func(T) int) {
	for i, c := range items {
		if i == limit {
			lines, n := len(items)-i, len(items)-i
			if count != nil {
				n = 0
				for _, c := range items[i:] {
					n += count(c)
				}
			}
			if n == lines {
				fmt.Fprintf(b, "  ... and %d more ('labctl regress -o json' lists them all)\n", lines)
			} else {
				fmt.Fprintf(b, "  ... and %d more %s, %d changes ('labctl regress -o json' lists them all, one a switch)\n", lines, plural.Noun(lines, "line"), n)
			}
			return
		}
		fmt.Fprintf(b, "  %s\n", c)
	}
}

// newLintDetail is a new lint error's line: its rule, where (a switch
// and its ports, or several: qos.DeviceGroup.Place), message and fix.
func newLintDetail(rule, where, msg, fix string) string {
	detail := "lint error " + rule
	if where != "" {
		detail += " at " + where
	}
	detail += ", new in the run's configs: " + msg
	if fix != "" {
		detail += " (fix: " + fix + ")"
	}
	return detail
}

// groupedLintLines are the lines of new lint errors (FindingLint with
// their Lint), the same error on several switches one line naming them.
func groupedLintLines(fs []Finding) []string {
	var lint []qos.Finding
	for _, f := range fs {
		lint = append(lint, *f.Lint)
	}
	var out []string
	for _, g := range qos.GroupDevices(lint) {
		out = append(out, newLintDetail(g.Rule, g.ShortPlace(), g.Message, g.Fix))
	}
	return out
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
// baseline's when it has one of the same cause (lintCause: rule, entry
// and message, the lab's names and numbers masked) on the same device at
// each of its ports; one new at some of its ports names those
// (a merged finding's other ports were the baseline's). A record without
// the findings (only counts) is compared by count.
// An error the baseline's lint rated a warning where nothing but lint can
// have moved it (lintAlone: no switch's settings changed, Report.lintAlone)
// is labctl's lint rating the same configs higher, not a change of the
// run's: a note (the second result), not a regression.
// None when either record kept no lint.
func newLintErrors(run, baseline *Run, lintAlone bool) ([]Finding, []string) {
	if run.Lint == nil || baseline.Lint == nil {
		return nil, nil
	}
	mask := lintMasker(run, baseline)
	// A finding's keys are its cause and device at each of its ports:
	// lint merges a cause's findings on several ports (and links to
	// several peers) into one listing them (Ports), so that a record kept
	// before lint merged them compares with one after port by port,
	// either way round.
	type portKey struct{ key, port string }
	keys := func(f qos.Finding) []portKey {
		ports := f.Ports
		if len(ports) == 0 {
			ports = []string{f.Port}
		}
		// An entry merged over ports names them "*" (qos's portless):
		// "PORT_QOS_MAP|*" is "PORT_QOS_MAP|Ethernet4" masked.
		cause := strings.ReplaceAll(mask(f.Where), qos.PortsMark, "#") + "\x00" + mask(f.Message)
		out := make([]portKey, len(ports))
		for i, p := range ports {
			out[i] = portKey{f.Rule + "\x00" + f.Device + "\x00" + p + "\x00" + cause, p}
		}
		return out
	}
	if run.NOS != baseline.NOS {
		// Another NOS names the ports (and their ranges) otherwise, and
		// its entries and messages.
		keys = func(f qos.Finding) []portKey { return []portKey{{f.Rule + "\x00" + f.Device, ""}} }
	}
	had, warned := map[string]bool{}, map[string]bool{}
	for _, f := range baseline.Lint.Findings {
		for _, k := range keys(f) {
			switch f.Severity {
			case qos.SevError:
				had[k.key] = true
			case qos.SevWarning:
				warned[k.key] = true
			}
		}
	}
	var out []Finding
	var raised []qos.Finding
	listed := 0
	for _, f := range run.Lint.Findings {
		if f.Severity != qos.SevError {
			continue
		}
		listed++
		// New at a port the baseline had no error of the cause at; raised
		// where each such port had a warning of it.
		var fresh []portKey
		for _, k := range keys(f) {
			if !had[k.key] {
				fresh = append(fresh, k)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		if lintAlone && !slices.ContainsFunc(fresh, func(k portKey) bool { return !warned[k.key] }) {
			raised = append(raised, f)
			continue
		}
		lf := f
		if len(f.Ports) > 1 && len(fresh) < len(f.Ports) && fresh[0].port != "" {
			// The ports it is new at, named as lint names ports.
			lf.Ports = nil
			for _, k := range fresh {
				lf.Ports = append(lf.Ports, k.port)
			}
			lf.Port = qos.PortRanges(lf.Ports, devicePorts(run, f.Device, f.Ports))
			if len(lf.Ports) == 1 {
				lf.Ports = nil
			}
		}
		out = append(out, Finding{Kind: FindingLint, Scope: ScopeVariant, Variant: "-", Metric: f.Rule, Node: f.Device, Port: lf.Port, Regression: true,
			Detail: newLintDetail(f.Rule, strings.TrimSpace(f.Device+" "+lf.Port), f.Message, f.Fix), Lint: &lf})
	}
	if len(out) == 0 && len(raised) == 0 && listed < run.Lint.Errors && run.Lint.Errors > baseline.Lint.Errors {
		// Counts only: the record kept no findings to tell which are new.
		out = append(out, Finding{Kind: FindingLint, Scope: ScopeVariant, Variant: "-", Metric: "lint", Regression: true,
			Detail: fmt.Sprintf("the run's configs have %s, the baseline's %d: 'labctl config lint' lists them", plural.N(run.Lint.Errors, "lint error"), baseline.Lint.Errors)})
	}
	var notes []string
	for _, g := range qos.GroupDevices(raised) {
		notes = append(notes, fmt.Sprintf("lint error %s at %s was a warning in the baseline's lint of the same settings (labctl's lint rates it higher since), not counted as a regression: %s (fix: %s)", g.Rule, g.ShortPlace(), g.Message, g.Fix))
	}
	return out, notes
}

// devicePorts are a switch's ports in order, as the run kept them (QoS),
// or else ports, for naming some of them as ranges.
func devicePorts(run *Run, device string, ports []string) []string {
	for _, s := range run.QoS {
		if s.Device == device {
			return s.Ports
		}
	}
	return ports
}

var (
	// digitWord is a word with a digit in it: a number, a switch or port
	// name, a table key with numbers ("ECN_819200_3276800_20"), a file's
	// line ("config_db.json:212" keeps its name).
	digitWord = regexp.MustCompile(`[A-Za-z_]*[0-9][\w/.]*`)
	// maskedList is several of them: a range or list of ports, switches
	// or numbers ("Ethernet0-60, Ethernet68", "spine1-3", "[3,4]").
	maskedList = regexp.MustCompile(`#(?:\s*(?:,|-|and)\s*#)+`)
)

// lintMasker returns what a lint finding's message or entry (Where) says
// of its cause, without what changes with the switches, ports and peers
// it names and the numbers it quotes: the two records' switch and port
// names, and every word with a digit, read "#", a list or range of them
// one "#", "the peers" "the peer". So a finding on one port or link
// matches one merged over several naming the peers (lint's groupFindings:
// "the peers spine1-3's"), one whose entry names its port matches one
// naming "*" (qos's portless), and one whose file line moved matches,
// while a second cause under one rule on a port (QOS009: PFC, traffic
// class, FEC or speed) differs.
func lintMasker(recs ...*Run) func(string) string {
	names := map[string]bool{}
	for _, r := range recs {
		for _, s := range r.QoS {
			names[s.Device] = true
			for _, p := range s.Ports {
				names[p] = true
			}
		}
		for _, f := range r.Lint.Findings {
			names[f.Device] = true
			for _, p := range f.Ports {
				names[p] = true
			}
		}
	}
	// Names with a digit are digitWord's; the others are words of their
	// own ("dut"), longest first.
	var words []string
	for n := range names {
		if n != "" && !strings.ContainsAny(n, "0123456789") {
			words = append(words, regexp.QuoteMeta(n))
		}
	}
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	var named *regexp.Regexp
	if len(words) > 0 {
		named = regexp.MustCompile(`\b(?:` + strings.Join(words, "|") + `)\b`)
	}
	return func(s string) string {
		if named != nil {
			s = named.ReplaceAllString(s, "#")
		}
		s = digitWord.ReplaceAllString(s, "#")
		s = maskedList.ReplaceAllString(s, "#")
		return strings.ReplaceAll(s, qos.PeersPhrase+"#", qos.PeerPhrase+"#")
	}
}

// lintAlone says whether a lint finding's severity can have moved by
// labctl's lint alone: both records kept the switches' QoS and no switch's
// differs, and the scenario is the same. A finding's severity may hang on
// other switches than the one it names (QOS009 is reported at one end of a
// link and rated by the other's map; QOS002 and QOS006 compare ports and
// peers), so one switch's settings unchanged is not enough.
func (r *Report) lintAlone() bool {
	return r.ConfigChanges != nil && len(r.ConfigChanges) == 0 && !r.ScenarioChanged
}
