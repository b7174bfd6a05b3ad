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
	ncclTable := &results.NCCLTable{Collective: results.CollAllReduce, Algorithm: "ring", Ranks: 16, Source: results.Simulated}
	for _, tc := range []struct {
		name    string
		summary results.Summary
		nccl    *results.NCCLTable
		reason  string
	}{
		// An nccl collective alone: its figures are its table, and its
		// summary lists the throughput as a latency-only variant's does.
		{"nccl collective", results.Summary{Source: results.Simulated, Model: results.ModelPacket,
			NotComputed: []string{"throughput_gbps_total", "throughput_gbps_min_flow", "jain_fairness"}}, ncclTable,
			"the variant's traffic is an nccl collective alone"},
		{"latency ping-pongs", results.Summary{Source: results.Simulated, Model: results.ModelPacket,
			NotComputed: []string{"throughput_gbps_total", "throughput_gbps_min_flow", "jain_fairness"}}, nil,
			"the variant's flows are latency ping-pongs"},
		{"flow-level model", results.Summary{Source: results.Simulated, Model: results.ModelFlow,
			NotComputed: []string{"drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99", "failed_flows"}}, nil,
			"not computed by the flow-level model"},
		{"live lab", results.Summary{Source: results.Measured,
			NotComputed: []string{"pfc_pause_us", "cnp", "drops", "pfc_pause_frames", "ecn_marked", "retransmits", "latency_us_p99"}}, nil,
			"not measured on a live lab"},
	} {
		for _, field := range tc.summary.NotComputed {
			for _, op := range []string{">= 0", "== 0", "< 1e12"} {
				expr := "summary." + field + " " + op
				sc, err := Parse("t.yaml", []byte("name: t\nmatrix: {ecn: [on], pfc: [on]}\ntraffic:\n  - pattern: incast\nassertions:\n  - name: a\n    expr: "+expr+"\n"))
				if err != nil {
					t.Fatal(err)
				}
				v := results.Variant{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Summary: tc.summary, NCCL: tc.nccl}
				run := &results.Run{Variants: []results.Variant{v}}
				as := sc.Check(run, &run.Variants[0])
				if len(as) != 1 || as[0].Passed || !strings.Contains(as[0].Detail, tc.reason) {
					t.Errorf("%s: %q gave %+v, want a failure saying %q", tc.name, expr, as, tc.reason)
				}
			}
		}
	}
}

// The per-flow figures a model does not compute fail an assertion on a
// role the same way: the flow-level model's flows have no retransmit
// count and cannot fail, a live lab's flows no retransmit count of their
// own. Where the flows carry them, the role sums them.
func TestRoleMetricsAbsentFailAssertions(t *testing.T) {
	flowLevel := results.Summary{Source: results.Simulated, Model: results.ModelFlow, NotComputed: []string{"retransmits", "failed_flows"}}
	packet := results.Summary{Source: results.Simulated, Model: results.ModelPacket}
	measured := results.Summary{Source: results.Measured}
	three := int64(3)
	ran := results.Flow{Role: "incast", ThroughputGbps: 20, Retransmits: &three}
	failed := results.Flow{Role: "incast", ThroughputGbps: 1, Retransmits: &three, State: results.FlowFailed, Reason: "retry count exceeded"}
	fluid := results.Flow{Role: "incast", ThroughputGbps: 20}
	for _, tc := range []struct {
		name    string
		summary results.Summary
		flows   []results.Flow
		expr    string
		pass    bool
		detail  string
	}{
		{"flow-level retransmits", flowLevel, []results.Flow{fluid, fluid}, "roles.incast.retransmits == 0", false, "roles.incast.retransmits is not computed by the flow-level model"},
		{"flow-level retransmits, any comparison", flowLevel, []results.Flow{fluid}, "roles.incast.retransmits >= 0", false, "not computed by the flow-level model"},
		{"flow-level failures", flowLevel, []results.Flow{fluid}, "roles.incast.failed == 0", false, "roles.incast.failed is not computed by the flow-level model"},
		{"live lab retransmits", measured, []results.Flow{fluid, fluid}, "roles.incast.retransmits == 0", false, "2 of the role's 2 flows have no retransmit count"},
		{"packet retransmits", packet, []results.Flow{ran, failed}, "roles.incast.retransmits == 6", true, "roles.incast.retransmits=6"},
		{"packet failures", packet, []results.Flow{ran, failed}, "roles.incast.failed == 1", true, "roles.incast.failed=1"},
		{"packet, none failed", packet, []results.Flow{ran}, "roles.incast.failed == 0", true, "roles.incast.failed=0"},
	} {
		sc, err := Parse("t.yaml", []byte("name: t\nmatrix: {ecn: [on], pfc: [on]}\ntraffic:\n  - pattern: incast\nassertions:\n  - name: a\n    expr: "+tc.expr+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		v := results.Variant{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Summary: tc.summary, Flows: tc.flows}
		run := &results.Run{Variants: []results.Variant{v}}
		as := sc.Check(run, &run.Variants[0])
		if len(as) != 1 || as[0].Passed != tc.pass || !strings.Contains(as[0].Detail, tc.detail) {
			t.Errorf("%s: %q gave %+v, want passed %v saying %q", tc.name, tc.expr, as, tc.pass, tc.detail)
		}
	}
}
