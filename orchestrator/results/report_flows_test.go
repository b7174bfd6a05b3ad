package results

import (
	"fmt"
	"html"
	"regexp"
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
