package scenario

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// Every metric a summary lists as not computed fails an assertion that
// reads it, with the reason, whatever the comparison: a placeholder 0
// never passes `>= 0` or `== 0`.
func TestNotComputedMetricsFailAssertions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary results.Summary
		reason  string
	}{
		{"flow-level model", results.Summary{Source: results.Simulated, Model: results.ModelFlow,
			NotComputed: []string{"drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99"}},
			"not computed by the flow-level model"},
		{"live lab", results.Summary{Source: results.Measured,
			NotComputed: []string{"pfc_pause_us", "cnp", "drops", "pfc_pause_frames", "ecn_marked", "retransmits", "latency_us_p99"}},
			"not measured on a live lab"},
	} {
		for _, field := range tc.summary.NotComputed {
			for _, op := range []string{">= 0", "== 0", "< 1e12"} {
				expr := "summary." + field + " " + op
				sc, err := Parse("t.yaml", []byte("name: t\nmatrix: {ecn: [on], pfc: [on]}\ntraffic:\n  - pattern: incast\nassertions:\n  - name: a\n    expr: "+expr+"\n"))
				if err != nil {
					t.Fatal(err)
				}
				v := results.Variant{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Summary: tc.summary}
				run := &results.Run{Variants: []results.Variant{v}}
				as := sc.Check(run, &run.Variants[0])
				if len(as) != 1 || as[0].Passed || !strings.Contains(as[0].Detail, tc.reason) {
					t.Errorf("%s: %q gave %+v, want a failure saying %q", tc.name, expr, as, tc.reason)
				}
			}
		}
	}
}
