package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// A run whose points ran more than once shows each point's mean and
// range over its repetitions under the per-repetition table; a figure
// the model does not compute is n/a there too; a run of one repetition a
// point shows no such table.
func TestRunSummaryOverRepetitions(t *testing.T) {
	v := func(name string, rep int, gbps float64, drops int64) results.Variant {
		return results.Variant{Name: name, Repetition: rep, Summary: results.Summary{ThroughputGbpsTotal: gbps, ThroughputGbpsMinFlow: gbps / 8,
			JainFairness: 0.99, Drops: drops, LatencyUsP99: 10}}
	}
	run := &results.Run{Seed: 3, Variants: []results.Variant{v("pfc=on", 0, 100, 1), v("pfc=off", 0, 50, 0), v("pfc=on", 1, 200, 3), v("pfc=off", 1, 50, 0)}}
	run.Variants[1].Summary.NotComputed = []string{"latency_us_p99"}
	run.Variants[3].Summary.NotComputed = []string{"latency_us_p99"}
	var b strings.Builder
	writeRepetitionSummary(&b, run)
	out := b.String()
	for _, want := range []string{
		"over the repetitions (repetition r, labelled #r+1 from the second, at seed 3 + r): the mean, and for rates, fairness and latency min-max\n",
		"pfc=on     2  150.0 (100.0-200.0)  18.8 (12.5-25.0)  0.990      2",
		"pfc=off     2                 50.0",
		"n/a",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	b.Reset()
	writeRepetitionSummary(&b, &results.Run{Variants: []results.Variant{v("pfc=on", 0, 100, 1), v("pfc=off", 0, 50, 0)}})
	if b.Len() != 0 {
		t.Errorf("one repetition a point: %s", b.String())
	}
}

// A summary figure that is not 0 prints as one: 0.033 Gb/s is not 0.0.
func TestOneDecimalKeepsSmallFiguresApartFromZero(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0", 0.033: "0.033", 0.049: "0.049", 0.05: "0.1", 12.34: "12.3", -0.02: "-0.02"} {
		if got := oneDecimal(v); got != want {
			t.Errorf("oneDecimal(%g) = %q, want %q", v, got, want)
		}
	}
}

// Each variant of a run keeps the seed it ran at, the run's plus its
// repetition: the one to give labctl run --seed to run it again alone.
func TestVariantsKeepTheirSeed(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	code, out, errs := resultsCLI(t, dir, "run", "incast", "--lab", "16gpu", "--seed", "7", "--repetitions", "2", "-o", "json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	var run results.Run
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	for _, v := range run.Variants {
		if v.Seed == nil || *v.Seed != 7+int64(v.Repetition) {
			t.Errorf("%s: seed %v, want %d", v.Label(), v.Seed, 7+v.Repetition)
		}
	}
}

// labctl results show of a run with repetitions shows each point's
// figures over its repetitions, the table labctl run printed when the run
// ended (both read results.RepetitionStats), under its per-repetition rows.
func TestResultsShowOverRepetitions(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	code, out, errs := resultsCLI(t, dir, "run", "incast", "--lab", "16gpu", "--repetitions", "2")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	start := strings.Index(out, "\nover the repetitions (")
	if start < 0 {
		t.Fatalf("run printed no table over the repetitions:\n%s", out)
	}
	block := out[start:]
	block = block[:strings.Index(block, "\n\n")+1]
	code, show, errs := resultsCLI(t, dir, "results", "show", "latest")
	if code != 0 {
		t.Fatalf("results show: exit %d: %s", code, errs)
	}
	if !strings.Contains(show, block) {
		t.Errorf("results show has not the table over the repetitions run printed:\n%s\nwant:%s", show, block)
	}
	if strings.Index(show, block) < strings.Index(show, "ecn=off,pfc=off #2") {
		t.Errorf("the table over the repetitions comes before the per-repetition rows:\n%s", show)
	}
}
