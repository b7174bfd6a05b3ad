package results

import (
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
