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
