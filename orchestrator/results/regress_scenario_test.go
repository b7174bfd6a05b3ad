package results

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

const scenarioV1 = `# an incast
name: incast-x
duration: 5ms
traffic:
  - pattern: incast
    senders: 8
assertions:
  - name: lossless
    expr: summary.drops == 0
`

// TestCompareNamesScenarioChanges: a run whose scenario differs from the
// baseline's says which values changed (a value set, changed or removed,
// in a list too), whatever else moved; comments, layout and the number of
// repetitions alone are said to change no value; identical scenarios say nothing, and a baseline
// that kept none (saved before records kept it) is said to leave the
// scenario unchecked.
func TestCompareNamesScenarioChanges(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	base.ScenarioYAML = scenarioV1
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"

	for _, tc := range []struct {
		name, baseline, run string
		changed             bool
		want                []string
	}{
		{"identical", scenarioV1, scenarioV1, false, nil},
		{"the baseline kept none", "", scenarioV1, false, nil},
		{"comments and layout", scenarioV1, "name: incast-x   # renamed comment\nduration:   5ms\ntraffic:\n- pattern: incast\n  senders: 8\nassertions:\n- name: lossless\n  expr: summary.drops == 0\n", true, []string{}},
		// labctl run --repetitions 5: each repetition is the same
		// simulation at its seed, so no value of the scenario changed.
		{"repetitions", scenarioV1, scenarioV1 + "repetitions: 5 # labctl run --repetitions 5\n", true, []string{}},
		// The regress section says how runs are compared, not what runs.
		{"regress tolerances", scenarioV1, scenarioV1 + "regress:\n  tolerances:\n    drops: 3\n", true, []string{}},
		{"repetitions and a value", scenarioV1, strings.Replace(scenarioV1, "senders: 8", "senders: 4", 1) + "repetitions: 3\n", true, []string{"traffic[0].senders: 8 -> 4"}},
		{"values", scenarioV1, strings.NewReplacer("duration: 5ms", "duration: 5ms\nwarmup: 1ms", "senders: 8", "senders: 4", "  - name: lossless\n    expr: summary.drops == 0\n", "").Replace(scenarioV1), true, []string{
			"assertions: (not set) -> null", // the key left with nothing under it
			"assertions[0].expr: summary.drops == 0 -> (not set)",
			"assertions[0].name: lossless -> (not set)",
			"traffic[0].senders: 8 -> 4",
			"warmup: (not set) -> 1ms",
		}},
	} {
		base.ScenarioYAML, run.ScenarioYAML = tc.baseline, tc.run
		r := Compare(run, base, nil)
		var got []string
		for _, c := range r.ScenarioChanges {
			got = append(got, c.String())
		}
		if r.ScenarioChanged != tc.changed || strings.Join(got, "\n") != strings.Join(tc.want, "\n") || (tc.want != nil) != (r.ScenarioChanges != nil) {
			t.Errorf("%s: changed %v, changes %q; want %v, %q", tc.name, r.ScenarioChanged, got, tc.changed, tc.want)
		}
		var b bytes.Buffer
		r.WriteText(&b)
		text := b.String()
		oldBaseline := tc.baseline == "" && tc.run != ""
		if got := strings.Contains(text, "warning: the baseline records no scenario"); got != oldBaseline {
			t.Errorf("%s: warns of a baseline without its scenario: %v, want %v:\n%s", tc.name, got, oldBaseline, text)
		}
		switch {
		case oldBaseline:
		case !tc.changed && strings.Contains(text, "scenario"):
			t.Errorf("%s: the text speaks of the scenario:\n%s", tc.name, text)
		case len(tc.want) > 0 && !strings.Contains(text, "the scenario changed between the baseline and this run (baseline -> run); figures may have moved because of it, not the configs:\n  "+tc.want[0]):
			t.Errorf("%s: text:\n%s", tc.name, text)
		case tc.changed && len(tc.want) == 0 && !strings.Contains(text, "but none of the values it runs with (comments, layout, the number of repetitions or its regress tolerances only)"):
			t.Errorf("%s: text:\n%s", tc.name, text)
		}
		if r.Regressed {
			t.Errorf("%s: a scenario change alone regressed: %v", tc.name, regressions(r))
		}
		// JSON tells comments-only ([]) from no change or no text (null).
		var j bytes.Buffer
		if err := r.WriteJSON(&j); err != nil {
			t.Fatal(err)
		}
		want := `"scenario_changes": null`
		if tc.want != nil {
			want = `"scenario_changes": [`
		}
		if !strings.Contains(j.String(), want) {
			t.Errorf("%s: JSON lacks %s", tc.name, want)
		}
	}
}

// TestReportsShowTheScenarioAsRun: the Markdown and HTML reports show the
// scenario the run read, escaped (HTML) or fenced past any backticks in it
// (Markdown); a record without it has no such section.
func TestReportsShowTheScenarioAsRun(t *testing.T) {
	run := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	run.ScenarioYAML = "name: x\n# a ```fence``` and <b>tag</b>\nduration: 5ms\n"
	var md, html bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	if err := RenderHTML(run, &html, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "## Scenario as run\n\n````yaml\nname: x\n# a ```fence``` and <b>tag</b>\nduration: 5ms\n````\n"; !strings.Contains(md.String(), want) {
		t.Errorf("Markdown lacks %q", want)
	}
	if want := "<pre>name: x\n# a ```fence``` and &lt;b&gt;tag&lt;/b&gt;\nduration: 5ms\n</pre>"; !strings.Contains(html.String(), want) {
		t.Errorf("HTML lacks %q", want)
	}
	run.ScenarioYAML = ""
	md.Reset()
	html.Reset()
	RenderMarkdown(run, &md)
	RenderHTML(run, &html, HTMLOptions{})
	if strings.Contains(md.String(), "Scenario as run") || strings.Contains(html.String(), "Scenario as run") {
		t.Error("a record without its scenario has a section for it")
	}
}

// TestScenarioPathsSortAsRead: the changed paths come in the order a person
// reads them, list indices in order of number, the rest by text.
func TestScenarioPathsSortAsRead(t *testing.T) {
	got := []string{"assertions[10].name", "warmup", "assertions[2].expr", "assertions[2].name", "traffic[0].senders", "assertions[1].name", "assertions"}
	sort.Slice(got, func(i, j int) bool { return naturalLess(got[i], got[j]) })
	want := []string{"assertions", "assertions[1].name", "assertions[2].expr", "assertions[2].name", "assertions[10].name", "traffic[0].senders", "warmup"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q, want %q", got, want)
	}
}

// The Markdown report's row of a live variant's simulated twin shows n/a
// where the twin's summary computed nothing, as the HTML report does.
func TestMarkdownTwinRowShowsNotComputed(t *testing.T) {
	run := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	v := &run.Variants[0]
	v.Simulated = &SimulatedPart{ConfigSource: "read back from the switches", Summary: Summary{Source: Simulated, NotComputed: []string{"jain_fairness", "latency_us_p99"}}}
	var md bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.Contains(line, "(simulated, read back from the switches)") {
			if strings.Count(line, "n/a") != 2 {
				t.Errorf("twin row: %s, want n/a for fairness and p99", line)
			}
			return
		}
	}
	t.Error("no twin row in the Markdown report")
}
