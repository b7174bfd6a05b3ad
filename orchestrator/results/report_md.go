package results

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// RenderMarkdown writes a report readable in a terminal or on a code host:
// the run's facts, a summary table per variant, assertions, and per-variant
// flow and counter tables. Every table says where its numbers came from.
func RenderMarkdown(run *Run, w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }

	p("# labctl run %s\n\n", mdText(run.RunID))
	total, failed := assertionCounts(run)
	p("**Status: %s** — %d of %d assertions passed", strings.ToUpper(mdText(run.Status)), total-failed, total)
	if failed > 0 {
		p(", %d failed", failed)
	}
	if n := erroredVariants(run); n > 0 {
		p("; %d of %d variants could not run (see below)", n, len(run.Variants))
	}
	p(".\n\n")
	if run.Error != "" {
		p("The run stopped early: %s\n\n", mdText(run.Error))
	}
	if run.VariantsPlanned > len(run.Variants) {
		p("This record holds %d of the scenario's %d variants", len(run.Variants), run.VariantsPlanned)
		if nr := run.NotRun(); nr != "" {
			p("; not run: %s", mdText(nr))
		}
		p(".\n\n")
	}

	p("| | |\n|---|---|\n")
	p("| Scenario | %s |\n", mdCell(run.Scenario))
	p("| Lab | %s |\n", mdCell(run.Lab))
	rt := run.Runtime
	if run.NOS != "" {
		rt += " (" + run.NOS + ")"
	}
	p("| Runtime | %s |\n", mdCell(rt))
	if im := run.Imported; im != nil {
		// A record of a tool's output has no seed: it was measured.
		p("| Made from | %s output: %s |\n", mdCell(im.Tool), mdCell(strings.Join(im.Files, ", ")))
	} else {
		p("| Seed | %d |\n", run.Seed)
	}
	p("| Started | %s |\n", fmtTime(run.Started))
	if run.Finished != nil {
		p("| Finished | %s (%s) |\n", fmtTime(*run.Finished), duration(run))
	} else {
		p("| Finished | not finished |\n")
	}
	if run.ConfigDigest != "" {
		p("| Config digest | `%s` |\n", mdCode(run.ConfigDigest))
	}
	if run.SimRevision > 0 {
		p("| Simulator revision | %d |\n", run.SimRevision)
	}
	p("| Numbers | %s |\n", runSources(run))
	if len(run.Sweep) > 0 {
		p("| Sweep | %s |\n", mdCell(sweepLabel(run)))
	}
	p("\n")

	if len(run.Variants) == 0 {
		p("No variant finished.\n")
		return bw.Flush()
	}

	p("## Summary\n\n")
	sized := AnySized(run)
	head, align := "", ""
	if sized {
		head, align = " Done (µs) | Aggregate (Gb/s) |", "--:|--:|"
	}
	p("| Variant | Throughput total (Gb/s) | Min flow (Gb/s) | Jain | Drops | PFC pauses | PFC pause (µs) | ECN marks | CNPs | Retransmits | p99 latency (µs) |%s Assertions | Source |\n", head)
	p("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|%s---|---|\n", align)
	cells := func(s Summary, failed bool) string {
		c := summaryCells(s, failed)
		if sized {
			c = withCompletion(c, s, failed)
		}
		return strings.Join(c, " | ")
	}
	for _, v := range run.Variants {
		s := v.Summary
		vt, vf := 0, 0
		for _, a := range v.Assertions {
			vt++
			if !a.Passed {
				vf++
			}
		}
		res := fmt.Sprintf("%d/%d pass", vt-vf, vt)
		if v.Error != "" {
			res = "error"
		}
		p("| %s | %s | %s | %s |\n", mdCell(v.Label()), cells(s, v.Error != ""), res, mdCell(sourcesOf(v)))
		if sp := v.Simulated; sp != nil {
			// The simulated twin sits under its measured row, so the two
			// read side by side.
			res := "—"
			if sp.Error != "" {
				res = "error: " + sp.Error
			}
			p("| %s | %s | %s | %s |\n", mdCell(v.Label()+" (simulated, "+sp.ConfigSource+")"), cells(sp.Summary, sp.Error != ""), mdCell(res), string(Simulated))
		}
	}
	p("\n")
	if sized {
		p("%s\n\n", SizedFlowsNote)
	}
	if stats := RepetitionStats(run); stats != nil {
		p("Over each point's repetitions (%s): the mean, and for rates, fairness and latency min-max.\n\n", RepetitionSeeds(run.Seed))
		p("| Point | Runs | %s |\n|---|--:|%s\n", strings.Join(RepetitionColumns, " | "), strings.Repeat("--:|", len(RepetitionColumns)))
		for _, ps := range stats {
			p("| %s | %d | %s |\n", mdCell(ps.Name), ps.Runs, strings.Join(ps.Cells, " | "))
		}
		p("\n")
	}

	for _, sv := range sweepViews(run) {
		p("## Sweep: %s\n\n", mdText(sv.Path))
		p("Each metric against %s, one group of rows per combination of the other dimensions; report.html charts them.\n\n", mdText(sv.Path))
		p("| Other dimensions | %s | Throughput total (Gb/s) | Min flow (Gb/s) | Jain | Drops | PFC pauses | PFC pause (µs) | ECN marks | CNPs | Retransmits | p99 latency (µs) |\n", mdCell(sv.Path))
		p("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, l := range sv.Lines {
			for i, v := range l.Points {
				if v == nil && run.Finished != nil {
					continue // a combination the matrix excludes
				}
				c := make([]string, 10)
				for j := range c {
					c[j] = "—"
				}
				if v != nil {
					c = summaryCells(v.Summary, v.Error != "")
				}
				p("| %s | %s | %s |\n", mdCell(l.Label), mdCell(sv.Values[i]), strings.Join(c, " | "))
			}
		}
		p("\n")
	}
	writeNCCLMarkdown(p, run)
	if hasConfigs(run) {
		p("## Configs per point\n\n")
		p("Each variant's switch configs are in the run folder: the lab's configs as they were, edits included, with the point's swept values on top and ECN or PFC removed for the off variants. `labctl config diff topologies/%s/configs results/%s/<folder>` lists every field; grouped here:\n\n", mdCode(run.Lab), mdCode(run.RunID))
		p("| Variant | Folder | Changes from the lab's configs |\n|---|---|---|\n")
		for _, v := range run.Variants {
			if v.Configs == nil || v.Repetition > 0 {
				continue
			}
			var ch []string
			for _, c := range v.Configs.Changes {
				ch = append(ch, configChangeText(c))
			}
			if len(ch) == 0 {
				ch = []string{"none: the lab's configs"}
			}
			p("| %s | %s | %s |\n", mdCell(v.Label()), mdCell(v.Configs.Dir), mdCell(strings.Join(ch, "; ")))
		}
		p("\n")
	}

	if qv := runQoSView(run); qv != nil {
		p("## Switch QoS\n\n%s\n\n", qv.Note)
		for _, b := range qv.Buffers {
			p("%s\n\n", mdText(b))
		}
		p("| %s |\n|%s\n", strings.Join(qv.Headers, " | "), strings.Repeat("---|", len(qv.Headers)))
		for _, r := range qv.Rows {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = mdCell(c)
			}
			p("| %s |\n", strings.Join(cells, " | "))
		}
		p("\n")
		if qv.Lint != "" {
			p("%s\n\n", qv.Lint)
			for _, is := range qv.Issues {
				p("- %s\n", mdText(is))
			}
			if len(qv.Issues) > 0 {
				p("\n")
			}
		}
	}

	if total > 0 {
		p("## Assertions\n\n")
		p("| Variant | Assertion | Result | Detail |\n|---|---|---|---|\n")
		for _, v := range run.Variants {
			for _, a := range v.Assertions {
				res := "pass"
				if !a.Passed {
					res = "**FAIL**"
				}
				name := mdCell(a.Name)
				if a.Expr != "" {
					name += " (`" + mdCode(a.Expr) + "`)"
				}
				p("| %s | %s | %s | %s |\n", mdCell(v.Label()), name, res, mdCell(a.Detail))
			}
			for _, a := range v.NotChecked {
				name := mdCell(a.Name)
				if a.Expr != "" {
					name += " (`" + mdCode(a.Expr) + "`)"
				}
				p("| %s | %s | not checked | %s |\n", mdCell(v.Label()), name, mdCell(a.Reason))
			}
		}
		p("\n")
	}

	for _, ns := range runNICSettings(run) {
		p("## NIC settings\n\n%s (mlx5 roce_rp/roce_np names):\n\n| Parameter | Value | Unit |\n|---|--:|---|\n", mdText(ns.Label))
		for _, pr := range ns.Params {
			p("| %s | %s | %s |\n", mdCell(pr.Name), mdCell(pr.Value), mdCell(pr.Unit))
		}
		p("\n")
	}

	if len(run.Extra) > 0 {
		data, err := extraJSON(run)
		if err != nil {
			return fmt.Errorf("render extra results: %w", err)
		}
		p("## Scenario details\n\n%s\n\n```json\n%s\n```\n\n", extraOrigin, strings.ReplaceAll(data, "```", "'''"))
	}

	if run.ScenarioYAML != "" {
		// A fence longer than any run of backticks in the text.
		fence := strings.Repeat("`", max(3, longestRun(run.ScenarioYAML, '`')+1))
		p("## Scenario as run\n\n%syaml\n%s\n%s\n\n", fence, strings.TrimRight(run.ScenarioYAML, "\n"), fence)
	}

	for _, v := range run.Variants {
		p("## Variant %s\n\n", mdText(v.Label()))
		p("ECN %s, PFC %s", onOffWord(v.ECN), onOffWord(v.PFC))
		for _, d := range run.Sweep {
			p(", %s %s", mdText(d.Path), mdText(v.Params[d.Path]))
		}
		if v.SimulatedUs > 0 {
			if v.Model() == ModelFlow {
				p(", %s µs estimated by the %s", fmtFloat(v.SimulatedUs), FlowModelCaveat)
			} else {
				p(", %s µs simulated", fmtFloat(v.SimulatedUs))
				if idle := idleTail(&v); idle != "" {
					p(" (%s)", idle)
				}
			}
		}
		if v.Repetition > 0 {
			p(", repetition %d", v.Repetition)
		}
		p(".\n\n")
		for _, l := range append(TransportLines(v), CostLines(v)...) {
			p("%s.\n\n", mdText(strings.ToUpper(l[:1])+l[1:]))
		}
		if v.Error != "" {
			p("> **Error:** %s\n\n", mdText(v.Error))
		}
		if len(v.Timeline) > 0 {
			p("### Timeline\n\n| Time (µs) | Event | Where | Detail |\n|--:|---|---|---|\n")
			for _, m := range v.Timeline {
				p("| %s | %s | %s | %s |\n", fmtFloat(m.TimeUs), mdCell(m.Kind), mdCell(m.Where), mdCell(m.Detail))
			}
			p("\n")
		}
		if len(v.Flows) > 0 {
			failed := CountFailed(v.Flows)
			p("### Flows\n\n")
			if failed > 0 {
				p("%d of the %d flows failed (their figures are what they did before): see State.\n\n", failed, len(v.Flows))
			}
			shown, left := shownFlows(run.RunID, &v)
			if left != "" {
				p("%s\n\n", mdText(left))
			}
			state := hasStateColumn(shown)
			p("| Flow | Pattern | Role | Throughput (Gb/s) | p50 (µs) | p99 (µs) | FCT (µs) | Retransmits | Source |%s\n", map[bool]string{true: " State |"}[state])
			p("|---|---|---|--:|--:|--:|--:|--:|---|%s\n", map[bool]string{true: "---|"}[state])
			for _, f := range shown {
				p50, p99 := "–", "–"
				if f.LatencyUs != nil {
					p50, p99 = fmtFloat(f.LatencyUs.P50), fmtFloat(f.LatencyUs.P99)
				}
				fct := "–"
				if f.FCTUs != nil {
					fct = fmtFloat(*f.FCTUs)
				}
				tp := "–"
				if f.HasThroughput() {
					tp = fmtFloat(f.ThroughputGbps)
				}
				p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |", mdCell(f.ID), mdCell(f.Pattern), mdCell(f.Role),
					tp, p50, p99, fct, fmtIntOpt(f.Retransmits), mdCell(SourceLabel(f.Source, v.Model())))
				if state {
					p(" %s |", mdCell(flowState(f)))
				}
				p("\n")
			}
			p("\n")
		}
		if moved := movedFlows(v); len(moved) > 0 {
			p("### Routes after the faults\n\nThe flows whose data packets end the run on other links than they started on (each switch's egress port, as `labctl trace --down` shows it):\n\n| Flow | At the start | At the end |\n|---|---|---|\n")
			for _, m := range moved {
				p("| %s | %s | %s |\n", mdCell(m.ID), mdCell(m.Before), mdCell(m.After))
			}
			p("\n")
		}
		var nz []Counter
		for _, c := range v.Counters {
			if c.PFCTx != 0 || c.PFCRx != 0 || c.ECNMarked != 0 || c.Drops != 0 || c.WatchdogStorms != 0 {
				nz = append(nz, c)
			}
		}
		if len(nz) > 0 {
			p("### Port counters of switches and NICs (non-zero PFC, ECN or drops)\n\n")
			p("| Node | Port | Priority | TX bytes | PFC tx | PFC rx | ECN marked | Drops | Source |\n")
			p("|---|---|--:|--:|--:|--:|--:|--:|---|\n")
			for _, c := range nz {
				p("| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", mdCell(c.Node), mdCell(c.Port), c.Priority,
					fmtInt(c.TxBytes), fmtInt(c.PFCTx), fmtInt(c.PFCRx), fmtInt(c.ECNMarked), dropsCell(c), mdCell(SourceLabel(c.Source, v.Model())))
			}
			if len(nz) < len(v.Counters) {
				p("\n%d more counter rows are zero; see run.json.\n", len(v.Counters)-len(nz))
			}
			p("\n")
		}
	}
	return bw.Flush()
}

func onOffWord(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// mdCell makes s safe inside a table cell: no line breaks, pipes escaped,
// markup characters neutralised.
func mdCell(s string) string {
	s = mdText(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return "–"
	}
	return s
}

// mdText keeps user-provided text on one line and from turning into HTML.
// Other markdown characters are left alone: names like queue_bytes and
// h1:0->h2:0 must stay readable in a terminal, and at worst render as
// emphasis on a code host.
func mdText(s string) string { return mdTextReplacer.Replace(s) }

// The replacers are built once: building one is most of its cost, and
// a report calls these for every cell.
var (
	mdTextReplacer = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "<", "&lt;", "`", "'")
	mdCodeReplacer = strings.NewReplacer("\n", " ", "\r", " ", "`", "'")
)

// mdCode is text inside a code span: backticks cannot be escaped there,
// so they are replaced.
func mdCode(s string) string {
	s = mdCodeReplacer.Replace(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

// summaryCells formats a summary row: a variant that could not run shows
// dashes rather than zeros, and a field its model does not compute (see
// Summary.NotComputed) shows n/a.
func summaryCells(s Summary, failed bool) []string {
	cells := []struct {
		field, value string
	}{
		{"throughput_gbps_total", fmtFloat(s.ThroughputGbpsTotal)},
		{"throughput_gbps_min_flow", fmtFloat(s.ThroughputGbpsMinFlow)},
		{"jain_fairness", fmtJain(s.JainFairness)},
		{"drops", fmtInt(s.Drops)},
		{"pfc_pause_frames", fmtInt(s.PFCPauseFrames)},
		{"pfc_pause_us", fmtFloat(s.PFCPauseUs)},
		{"ecn_marked", fmtInt(s.ECNMarked)},
		{"cnp", fmtInt(s.CNP)},
		{"retransmits", fmtInt(s.Retransmits)},
		{"latency_us_p99", fmtFloat(s.LatencyUsP99)},
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		switch {
		case failed:
			out[i] = "—"
		case slices.Contains(s.NotComputed, c.field):
			out[i] = "n/a"
		default:
			out[i] = c.value
		}
	}
	return out
}

// hasConfigs says whether any variant recorded its configs.
func hasConfigs(run *Run) bool {
	for _, v := range run.Variants {
		if v.Configs != nil {
			return true
		}
	}
	return false
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	most, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			most = max(most, n)
		} else {
			n = 0
		}
	}
	return most
}
