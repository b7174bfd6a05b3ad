package results

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// allreduceFlows are n ring-AllReduce flows as a large lab's run records
// them, all alike but for the ones a test makes worse.
func allreduceFlows(n int) []Flow {
	fs := make([]Flow, n)
	for i := range fs {
		fct, rtx := 4050.0, int64(0)
		fs[i] = Flow{ID: fmt.Sprintf("allreduce r%d host%d:0->host%d:0", i, i, (i+1)%n), Pattern: "ring-allreduce", Role: "allreduce",
			ThroughputGbps: 66, FCTUs: &fct, Retransmits: &rtx, Source: Simulated}
	}
	return fs
}

// flowRows are the flow table's rows of a report: their flow ids.
func flowRows(t *testing.T, name, report string) []string {
	t.Helper()
	var re *regexp.Regexp
	if name == "markdown" {
		re = regexp.MustCompile(`(?m)^\| (allreduce r\d+ [^|]*?) \|`)
	} else {
		re = regexp.MustCompile(`<tr><td>(allreduce r\d+ [^<]*)</td>`)
	}
	var ids []string
	for _, m := range re.FindAllStringSubmatch(report, -1) {
		ids = append(ids, html.UnescapeString(m[1]))
	}
	return ids
}

// A lab of 1,024 GPUs records 1,024 flows a variant: the reports' flow
// tables show the worst of them, not 1,024 rows, and say how many they
// leave out and where every flow is; a flow that failed, the slowest, the
// one that took longest and the one that retransmitted stay in the table
// wherever the record lists them. A small lab's table is unchanged.
func TestReportFlowTableKeepsTheWorstFlows(t *testing.T) {
	run := syntheticRun("20261129T120000Z-allreduce-1024gpu", t0)
	run.Variants = run.Variants[:1]
	v := &run.Variants[0]
	v.Flows = allreduceFlows(1024)
	v.Flows[100].State, v.Flows[100].Reason = FlowFailed, "retry count exceeded"
	v.Flows[700].ThroughputGbps = 12
	*v.Flows[900].FCTUs = 9000
	*v.Flows[1000].Retransmits = 40
	worst := []int{100, 700, 900, 1000}
	for name, report := range renderedReports(t, run) {
		rows := flowRows(t, name, report)
		if len(rows) > maxFlowRows {
			t.Errorf("%s: %d flow rows, want at most %d", name, len(rows), maxFlowRows)
		}
		for _, i := range worst {
			if !strings.Contains(strings.Join(rows, "\n")+"\n", v.Flows[i].ID+"\n") {
				t.Errorf("%s: flow %q, among the worst, is not in the table", name, v.Flows[i].ID)
			}
		}
		if want := fmt.Sprintf("%d of the 1024 flows", 1024-maxFlowRows); !strings.Contains(report, want) || !strings.Contains(report, RunFile) {
			t.Errorf("%s: no line saying %q are left out and that %s holds every flow", name, want, RunFile)
		}
	}

	// An ecn-pfc-like variant: 63 incast senders at about 6 Gb/s, the
	// victim at 40 Gb/s (the slowest ranking never reaches it) and a
	// latency probe that took no sample, which has no figure to rank by.
	// Both are what the user looks for; both are in the table.
	var incast []Flow
	for i := 1; i <= 63; i++ {
		incast = append(incast, Flow{ID: fmt.Sprintf("incast host%d:0->host0:0", i), Pattern: "incast", Role: "incast", ThroughputGbps: 5.9 + float64(i%5)/10, Source: Simulated})
	}
	victim := Flow{ID: "victim host64:0->host1:0", Pattern: "bulk", Role: "victim", ThroughputGbps: 40, Source: Simulated}
	probe := Flow{ID: "probe host65:0->host0:0", Pattern: PatternLatency, Role: "probe", Source: Simulated, Reason: "no latency: the client posted 0 of its 1000 writes"}
	v.Flows = append(append(incast[:40:40], victim), append(incast[40:], probe)...)
	shown, note := shownFlows(run.RunID, v)
	for _, want := range []string{victim.ID, probe.ID} {
		if !slices.ContainsFunc(shown, func(f Flow) bool { return f.ID == want }) {
			t.Errorf("ecn-pfc: the table leaves out %q", want)
		}
	}
	if len(shown) != maxFlowRows || !strings.Contains(note, "worst flow of each role") {
		t.Errorf("ecn-pfc: %d rows, note %q", len(shown), note)
	}
	for name, report := range renderedReports(t, run) {
		if name == "html" {
			report = html.UnescapeString(report)
		}
		if !strings.Contains(report, victim.ID) || !strings.Contains(report, probe.ID) {
			t.Errorf("%s: the victim or the probe is not in the table", name)
		}
	}
	// More failed flows than rows: the first of them, and the note says
	// so, calling none of them the worst.
	v.Flows = allreduceFlows(100)
	for i := 50; i < 100; i++ {
		v.Flows[i].State, v.Flows[i].Reason = FlowFailed, "retry count exceeded"
	}
	shown, note = shownFlows(run.RunID, v)
	if len(shown) != maxFlowRows || shown[0].ID != v.Flows[50].ID || !strings.Contains(note, "the first 32 failed flows (of 50)") || strings.Contains(note, "worst") {
		t.Errorf("50 failed flows of 100: %d rows from %q, note %q", len(shown), shown[0].ID, note)
	}

	v.Flows = allreduceFlows(maxFlowRows)
	for name, report := range renderedReports(t, run) {
		if rows := flowRows(t, name, report); len(rows) != maxFlowRows || rows[0] != v.Flows[0].ID || rows[maxFlowRows-1] != v.Flows[maxFlowRows-1].ID {
			t.Errorf("%s: a variant of %d flows shows %d rows, want all in the record's order", name, maxFlowRows, len(rows))
		}
		if strings.Contains(report, "flows are left out") {
			t.Errorf("%s: a variant of %d flows says some are left out", name, maxFlowRows)
		}
	}
}

// The per-flow throughput chart of a large lab draws its slowest flows, a
// flow ranked by its least throughput in any variant, so a flow starved in
// one variant far down the record is in view, not the record's first 32;
// the title says how they were chosen. A small lab's chart draws every flow.
func TestFlowChartDrawsTheSlowestFlows(t *testing.T) {
	a, b := allreduceFlows(200), allreduceFlows(200)
	a[150].ThroughputGbps = 3 // starved in the first variant only
	b[199].ThroughputGbps = 5 // and another in the second only
	vs := []Variant{{Name: "a", Flows: a}, {Name: "b", Flows: b}}
	ids, title := chartedFlows(vs)
	if len(ids) != maxFlowGroups {
		t.Fatalf("the chart draws %d flows of 200, want %d", len(ids), maxFlowGroups)
	}
	for _, want := range []string{a[150].ID, b[199].ID} {
		if !slices.Contains(ids, want) {
			t.Errorf("the chart leaves out %q, the slowest in a variant: %v", want, ids)
		}
	}
	if i, j := slices.Index(ids, a[150].ID), slices.Index(ids, b[199].ID); i > j {
		t.Errorf("the chart's flows are not in the record's order: %v", ids)
	}
	if !strings.Contains(title, "slowest of 200 flows") {
		t.Errorf("the chart's title %q does not say which flows it draws", title)
	}
	run := syntheticRun("20261129T120000Z-allreduce-1024gpu", t0)
	run.Variants = vs
	var sb strings.Builder
	if err := RenderHTML(run, &sb, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), html.EscapeString(title)) {
		t.Errorf("the HTML report has no chart titled %q", title)
	}

	ids, title = chartedFlows([]Variant{{Name: "a", Flows: allreduceFlows(maxFlowGroups)}})
	if len(ids) != maxFlowGroups || title != "Per-flow throughput" {
		t.Errorf("a variant of %d flows: the chart draws %d titled %q, want all under the plain title", maxFlowGroups, len(ids), title)
	}
}

// A flow that did not fail but says why its figures are missing (a latency
// probe that posted none of its writes before the run ended) shows that
// reason in a State column, in both readable reports: its dashes alone do
// not say why. A table with no failed flow and no reason has no State.
func TestFlowTableShowsAReasonWithoutAFailure(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	run.Variants = run.Variants[:1]
	v := &run.Variants[0]
	v.Flows = allreduceFlows(4)
	const why = "no latency: the client posted 0 of its 1000 writes before the duration ended (raise duration)"
	v.Flows[2].Pattern, v.Flows[2].ThroughputGbps, v.Flows[2].FCTUs, v.Flows[2].Reason = "latency", 0, nil, why
	for name, report := range renderedReports(t, run) {
		if !strings.Contains(report, "State") || !strings.Contains(html.UnescapeString(report), why) {
			t.Errorf("%s: the probe's reason %q is not in a State column", name, why)
		}
	}
	v.Flows[2].Reason = ""
	for name, report := range renderedReports(t, run) {
		if strings.Contains(report, ">State<") || strings.Contains(report, "| State |") {
			t.Errorf("%s: a table with no failed flow and no reason has a State column", name)
		}
	}
}
