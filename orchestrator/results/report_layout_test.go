package results

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Bars whose labels would read alike once cut to fit (a sweep of several
// keys: they differ past the cut) are numbered, with a key of the whole
// labels under the chart; labels that stay apart are only cut.
func TestBarTicksTellVariantsApart(t *testing.T) {
	apart := []barGroup{{Label: "kmin_kb=100"}, {Label: "kmin_kb=400"}}
	if ticks, key := barTicks(apart); !slices.Equal(ticks, []string{"kmin_kb=100", "kmin_kb=400"}) || key != nil {
		t.Errorf("labels apart: %v, key %v", ticks, key)
	}
	alike := []barGroup{{Label: "ecn=on,pfc=on,transport=roce,case=incast"}, {Label: "ecn=on,pfc=on,transport=uet,case=incast"}}
	ticks, key := barTicks(alike)
	if !slices.Equal(ticks, []string{"#1", "#2"}) || len(key) != 2 || key[1] != "#2 ecn=on,pfc=on,transport=uet,case=incast" {
		t.Errorf("labels alike once cut: %v, key %v", ticks, key)
	}
	svg := string(barChart("throughput", "Throughput", "Gb/s", "simulated", []string{"Gb/s"}, []barGroup{
		{Label: alike[0].Label, Values: []float64{1}}, {Label: alike[1].Label, Values: []float64{2}}}))
	if !strings.Contains(svg, ">#2 ecn=on,pfc=on,transport=uet,case=incast<") || !strings.Contains(svg, ">#1<") {
		t.Errorf("chart without the key: %s", svg)
	}
}

// Where a variant's flows all had sizes and completed, the Markdown and
// HTML summaries carry its completion time and aggregate goodput, as the
// run's own summary does, with the note that the throughput total can sum
// to more than a port; without sized flows, neither.
func TestSummariesCarryCompletion(t *testing.T) {
	run := syntheticRun("20261129T110000Z-incast-64gpu", t0)
	render := func() (md, html string) {
		var m, h strings.Builder
		if err := RenderMarkdown(run, &m); err != nil {
			t.Fatal(err)
		}
		if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		return m.String(), h.String()
	}
	md, html := render()
	if strings.Contains(md, "Done (µs)") || strings.Contains(html, "Done (µs)") || strings.Contains(md, SizedFlowsNote) {
		t.Error("completion columns without sized flows")
	}
	done, agg := 1887.5, 160.0
	run.Variants[0].Summary.CompletionUs, run.Variants[0].Summary.GoodputGbpsAggregate = &done, &agg
	md, html = render()
	for name, out := range map[string]string{"markdown": md, "html": html} {
		if !strings.Contains(out, "Done (µs)") || !strings.Contains(out, "1887.5") || !strings.Contains(out, "can sum to more than a port") {
			t.Errorf("%s: no completion columns or note", name)
		}
	}
}

// The scenario details show an array of plain values on one line, as
// run.json does: 1024gpu's ring allreduce has 2,046 rounds, and its
// crossing_spine_per_round took 2,046 lines of report.md and report.html.
// Flow ids keep their "->" unescaped.
func TestScenarioDetailsArraysOnOneLine(t *testing.T) {
	run := syntheticRun("20261129T100000Z-allreduce-1024gpu", t0)
	per := make([]int, 2046)
	for i := range per {
		per[i] = 32
	}
	run.Extra = map[string]any{"allreduce": map[string]any{"ranks": 1024, "crossing_spine_per_round": per, "slowest": "host1:0->host2:0",
		"theoretical_by_oversubscription": []map[string]any{{"oversubscription": 1, "theoretical_us": 3882.505}}}}
	data, err := extraJSON(run)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(data, "\n"); n > 20 {
		t.Errorf("scenario details on %d lines:\n%.2000s", n, data)
	}
	if !strings.Contains(data, `"crossing_spine_per_round": [32,32,`) || !strings.Contains(data, `"slowest": "host1:0->host2:0"`) || !strings.Contains(data, "\n        \"oversubscription\": 1,\n") {
		t.Errorf("scenario details:\n%.2000s", data)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(data), &back); err != nil {
		t.Errorf("scenario details are no JSON: %v", err)
	}
	var md bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(md.String(), "\n32,\n"); n > 0 || !strings.Contains(md.String(), `"crossing_spine_per_round": [32,32,`) {
		t.Errorf("report.md writes the rounds a line each")
	}
}

// The scenario details say how their figures were obtained (computed from
// the lab and the scenario, closed-form), as every other figure of the
// reports does: an allreduce's theoretical_us read as a result of the run.
func TestScenarioDetailsSayTheirOrigin(t *testing.T) {
	run := syntheticRun("20261129T100000Z-allreduce-64gpu", t0)
	run.Extra = map[string]any{"allreduce": map[string]any{"theoretical_us": 1502.526}, "lab": map[string]any{"ideal_goodput_gbps": 196.07}}
	var md, h bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "## Scenario details\n\nComputed from the lab and the scenario before any variant ran"; !strings.Contains(md.String(), want) {
		t.Errorf("report.md lacks %q", want)
	}
	if want := "<h2 id=\"details\">Scenario details</h2>\n<p>Computed from the lab and the scenario before any variant ran"; !strings.Contains(h.String(), want) {
		t.Errorf("report.html lacks %q", want)
	}
}
