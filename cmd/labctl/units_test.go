package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// The console tables write units in their own case inside the upper-case
// headers: Gb/s (GB/S reads as gigabytes) and us.
func TestConsoleHeadersKeepUnitCase(t *testing.T) {
	t.Parallel()
	fct, agg := 120.0, 180.0
	run := &results.Run{RunID: "r", Scenario: "s", Lab: "16gpu", Runtime: "sim", Status: results.StatusPassed, Variants: []results.Variant{
		{Name: "ecn=on,pfc=on", Summary: results.Summary{ThroughputGbpsTotal: 190, CompletionUs: &fct, GoodputGbpsAggregate: &agg}}}}
	var run1, show bytes.Buffer
	writeRunSummary(&run1, run, "results/r")
	if err := writeRunText(&show, run, "results/r"); err != nil {
		t.Fatal(err)
	}
	upperUnit := regexp.MustCompile(`\b(GB/S|GBPS|MB/S|US)\b`)
	for name, out := range map[string]string{"labctl run": run1.String(), "labctl results show": show.String()} {
		if m := upperUnit.FindString(out); m != "" {
			t.Errorf("%s writes the unit %q:\n%s", name, m, out)
		}
		if !strings.Contains(out, "Gb/s") || !strings.Contains(out, "P99 us") {
			t.Errorf("%s lacks the Gb/s and P99 us columns:\n%s", name, out)
		}
	}
	if !strings.Contains(run1.String(), "DONE us") || !strings.Contains(run1.String(), "AGG Gb/s") {
		t.Errorf("labctl run lacks the sized flows' columns:\n%s", run1.String())
	}
}

// labctl run's summary says under its table how the figures were
// obtained, each way once: simulated packet by packet, measured on the
// live lab, estimated by the flow-level model; a record without a source
// (an error in every variant) says nothing.
func TestRunSummarySaysHowFiguresWereObtained(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		variants []results.Variant
		want     string
	}{
		{[]results.Variant{{Name: "a", Summary: results.Summary{Source: results.Simulated}}, {Name: "b", Summary: results.Summary{Source: results.Simulated}}},
			"\nFigures: simulated packet by packet.\n"},
		{[]results.Variant{{Name: "a", Summary: results.Summary{Source: results.Measured}}},
			"\nFigures: measured on the live lab.\n"},
		{[]results.Variant{{Name: "a", Summary: results.Summary{Source: results.Simulated, Model: results.ModelFlow}}},
			"\nFigures: estimated by the flow-level model.\n"},
		{[]results.Variant{{Name: "a", Error: "boom"}}, ""},
	} {
		run := &results.Run{RunID: "r", Scenario: "s", Lab: "16gpu", Runtime: "sim", Status: results.StatusPassed, Variants: c.variants}
		var b bytes.Buffer
		writeRunSummary(&b, run, "results/r")
		if got := strings.Contains(b.String(), "\nFigures: "); c.want == "" && got || c.want != "" && !strings.Contains(b.String(), c.want) {
			t.Errorf("want %q in:\n%s", c.want, b.String())
		}
	}
}
