package results

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A variant that could not run shows dashes, not zeros, and the header
// says how many could not run; fields a model does not compute show n/a.
func TestMarkdownErroredAndNotComputed(t *testing.T) {
	run := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0)
	run.Variants[0].Error = "config rejected"
	run.Variants[1].Summary.NotComputed = []string{"drops", "cnp"}
	var b bytes.Buffer
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "1 of ") || !strings.Contains(md, "variants could not run") {
		t.Error("header does not say a variant could not run")
	}
	var errRow, naRow string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| "+run.Variants[0].Name+" |") && errRow == "" {
			errRow = line
		}
		if strings.HasPrefix(line, "| "+run.Variants[1].Name+" |") && naRow == "" {
			naRow = line
		}
	}
	if strings.Count(errRow, "—") != 10 {
		t.Errorf("errored variant row: %s", errRow)
	}
	if strings.Count(naRow, "n/a") != 2 {
		t.Errorf("not-computed row: %s", naRow)
	}
}

// A summary writes no field its model does not compute (absent, never a
// 0), in the same order as before for the rest, reads back with them
// absent, and regress accepts that absence; a packet-level summary
// writes as encoding/json always did.
func TestSummaryLeavesOutWhatItsModelDoesNotCompute(t *testing.T) {
	flow := Summary{ThroughputGbpsTotal: 196, ThroughputGbpsMinFlow: 98, JainFairness: 1, Source: Simulated, Model: ModelFlow,
		NotComputed: []string{"drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99", "failed_flows"}}
	b, err := json.Marshal(flow)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"throughput_gbps_total":196,"throughput_gbps_min_flow":98,"jain_fairness":1,"source":"simulated","model":"flow","not_computed":["drops","pfc_pause_frames","pfc_pause_us","ecn_marked","cnp","retransmits","latency_us_p99","failed_flows"]}`
	if string(b) != want {
		t.Errorf("flow summary\n got %s\nwant %s", b, want)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	run := &Run{SchemaVersion: 1, RunID: "r", Status: StatusPassed, Variants: []Variant{{Name: "v", Summary: back}}}
	if err := CheckComparable("r.json", run); err != nil {
		t.Errorf("regress refuses a flow-level record: %v", err)
	}
	// A packet-level summary: every field, as encoding/json writes it.
	pkt := Summary{ThroughputGbpsTotal: 190, Drops: 3, Source: Simulated}
	type plain Summary
	got, _ := json.Marshal(pkt)
	ref, _ := json.Marshal(plain(pkt))
	if string(got) != string(ref) {
		t.Errorf("packet summary %s, encoding/json %s", got, ref)
	}
	// The charts draw no bar of 0 for it: no figures.
	h := string(barChart("pfc", "PFC pause frames", "frames", "simulated", []string{"PFC pauses"}, []barGroup{{Label: "v", Values: []float64{math.NaN()}}}))
	if !strings.Contains(h, "no figures") || strings.Contains(h, "all values are 0") {
		t.Errorf("chart of uncomputed figures: %s", h)
	}
}

// A packet-level ring allreduce's flows have no latency of their own, its
// summary a p99: the HTML's latency chart shows the p99 alone, with no
// bar for the median flow's p50 (it showed 0 µs) or the maximum (it
// showed the p99 as the maximum).
func TestHTMLLatencyWithoutFlowLatencies(t *testing.T) {
	run := syntheticRun("20261129T100000Z-allreduce-64gpu", t0)
	run.Variants = run.Variants[:1]
	v := &run.Variants[0]
	for i := range v.Flows {
		v.Flows[i].LatencyUs = nil
	}
	v.Summary.LatencyUsP99 = 1.856
	var b bytes.Buffer
	if err := RenderHTML(run, &b, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	name := v.Name
	if !strings.Contains(h, name+" · p99: 1.86 µs") || strings.Contains(h, name+" · p50 (median flow):") || strings.Contains(h, name+" · max:") {
		i := strings.Index(h, "Latency percentiles")
		t.Errorf("latency chart:\n%.3000s", h[max(i, 0):])
	}
}
