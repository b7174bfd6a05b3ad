package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/results"
)

// resultsCLI runs labctl in-process with --dir dir.
func resultsCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"--dir", dir}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// runOK runs scenario (a catalog name or a file) on lab in dir, failing
// the test unless it exits 0.
func runOK(t *testing.T, dir, scenario, lab string) {
	t.Helper()
	if code, _, errs := resultsCLI(t, dir, "run", scenario, "--lab", lab); code != 0 {
		t.Fatalf("run %s: exit %d: %s", scenario, code, errs)
	}
}

// cliRun is a small two-variant run; drops makes the pfc=on variant lose
// packets, as if PFC had been removed from the switch configs.
func cliRun(id string, started time.Time, drops int64) *results.Run {
	fin := started.Add(time.Minute)
	run := &results.Run{SchemaVersion: 1, RunID: id, Lab: "64gpu", Scenario: "ecn-pfc", Runtime: "sim", Seed: 1,
		Started: started, Finished: &fin, Status: results.StatusPassed}
	for _, pfc := range []bool{true, false} {
		v := results.Variant{Name: fmt.Sprintf("ecn=on,pfc=%v", map[bool]string{true: "on", false: "off"}[pfc]), ECN: true, PFC: pfc}
		v.Flows = []results.Flow{{ID: "h1:0->h9:0", Src: "h1", Dst: "h9", Pattern: "incast", ThroughputGbps: 90, Source: results.Simulated},
			{ID: "h2:0->h9:0", Src: "h2", Dst: "h9", Pattern: "incast", ThroughputGbps: 88, Source: results.Simulated}}
		v.Summary = results.Summary{ThroughputGbpsTotal: 178, ThroughputGbpsMinFlow: 88, JainFairness: 0.999, PFCPauseFrames: 120,
			ECNMarked: 4000, CNP: 300, LatencyUsP99: 10, Source: results.Simulated}
		if pfc {
			v.Summary.Drops = drops
		} else {
			v.Summary.Drops, v.Summary.PFCPauseFrames = 200, 0
		}
		ok := !pfc || v.Summary.Drops == 0
		v.Assertions = []results.Assertion{{Name: "no drops with PFC on", Passed: ok, Detail: fmt.Sprintf("drops=%d", v.Summary.Drops)}}
		if !ok {
			run.Status = results.StatusFailed
		}
		run.Variants = append(run.Variants, v)
	}
	return run
}

func seedRuns(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := results.Open(filepath.Join(dir, "results"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, r := range []*results.Run{
		cliRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour), 0),
		cliRun("20261129T120000Z-ecn-pfc-64gpu", t0, 0),
		cliRun("20261129T130000Z-ecn-pfc-64gpu", t0.Add(time.Hour), 150),
	} {
		if err := s.SaveRun(r); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResultsListAndShow(t *testing.T) {
	t.Parallel()
	dir := seedRuns(t)
	code, out, errs := resultsCLI(t, dir, "results", "list")
	if code != 0 || !strings.Contains(out, "RUN ID") || strings.Index(out, "20261129T130000Z") > strings.Index(out, "20261129T110000Z") {
		t.Fatalf("list: %d %s %s", code, out, errs)
	}
	code, out, _ = resultsCLI(t, dir, "results", "list", "--status", "failed", "-o", "json")
	var list struct{ Runs []results.RunSummary }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list.Runs) != 1 || list.Runs[0].RunID != "20261129T130000Z-ecn-pfc-64gpu" {
		t.Errorf("list --status failed -o json: %d %s", code, out)
	}
	code, out, _ = resultsCLI(t, dir, "results", "show", "latest")
	if code != 0 || !strings.Contains(out, "20261129T130000Z-ecn-pfc-64gpu") || !strings.Contains(out, "FAIL ecn=on,pfc=on: no drops with PFC on: drops=150") {
		t.Errorf("show latest: %d\n%s", code, out)
	}
	// The same figures under the names labctl run's table gives them
	// (one writer: summaryColumns and summaryRow), PAUSED us included.
	if head := strings.Fields(strings.SplitN(out[strings.Index(out, "VARIANT"):], "\n", 2)[0]); strings.Join(head, " ") != "VARIANT "+strings.Join(strings.Fields(summaryColumns(false)), " ")+" ASSERTIONS SOURCE" ||
		!strings.Contains(summaryColumns(false), "PAUSED us") {
		t.Errorf("show's columns are %q", head)
	}
	code, out, _ = resultsCLI(t, dir, "results", "show", "20261129T12", "-o", "json")
	var run results.Run
	if code != 0 || json.Unmarshal([]byte(out), &run) != nil || run.RunID != "20261129T120000Z-ecn-pfc-64gpu" {
		t.Errorf("show prefix -o json: %d %s", code, out)
	}
	code, _, errs = resultsCLI(t, dir, "results", "show", "nosuchrun")
	if code != 2 || !strings.Contains(errs, `no run "nosuchrun"`) || !strings.Contains(errs, "20261129T130000Z-ecn-pfc-64gpu") {
		t.Errorf("unknown run: exit %d, %s", code, errs)
	}
	code, _, errs = resultsCLI(t, dir, "results", "list", "-o", "yaml")
	if code != 2 {
		t.Errorf("bad -o: exit %d %s", code, errs)
	}
	code, out, _ = resultsCLI(t, dir, "results", "reindex")
	if code != 0 || !strings.Contains(out, "indexed 3 runs") {
		t.Errorf("reindex: %d %s", code, out)
	}
}

// TestResultsListFilters: a filter value no run has is named with the
// values the runs have (a mistyped --lab is not "no runs at all"), and a
// --status that is no run status is refused.
func TestResultsListFilters(t *testing.T) {
	t.Parallel()
	dir := seedRuns(t)
	code, out, errs := resultsCLI(t, dir, "results", "list", "--lab", "64gppu")
	if code != 0 || !strings.Contains(out, "no runs match --lab 64gppu; the 3 runs stored have labs 64gpu") || strings.Contains(out, "start one") {
		t.Errorf("list --lab 64gppu: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = resultsCLI(t, dir, "results", "list", "--lab", "64gpu", "--scenario", "ecnpfc")
	if code != 0 || !strings.Contains(out, "no runs match --lab 64gpu --scenario ecnpfc; the 3 runs stored have labs 64gpu; scenarios ecn-pfc") {
		t.Errorf("list --scenario ecnpfc: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = resultsCLI(t, dir, "results", "list", "--status", "pased")
	if code != 2 || !strings.Contains(errs, `--status "pased" is not a run status`) || !strings.Contains(errs, "fix: use one of running, passed, failed, interrupted, abandoned") {
		t.Errorf("list --status pased: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = resultsCLI(t, t.TempDir(), "results", "list", "--lab", "64gpu")
	if code != 0 || !strings.Contains(out, "no runs; start one") {
		t.Errorf("list with no runs at all: exit %d\n%s", code, out)
	}
}

func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := seedRuns(t)
	os.MkdirAll(filepath.Join(dir, "topologies", "64gpu"), 0o755)
	os.WriteFile(filepath.Join(dir, "topologies", "64gpu", "64gpu.mmd"), []byte("graph TD\n  spine1 --- leaf1\n  leaf1 --- host1\n"), 0o644)
	for _, tt := range []struct {
		format, want string
	}{
		{"", "# labctl run 20261129T130000Z-ecn-pfc-64gpu"},
		{"md", "| ecn=on,pfc=on |"},
		{"html", `data-chart="topology"`},
		{"json", `"run_id": "20261129T130000Z-ecn-pfc-64gpu"`},
		{"junit", "<testsuites"},
	} {
		args := []string{"report", "latest"}
		if tt.format != "" {
			args = append(args, "-o", tt.format)
		}
		code, out, errs := resultsCLI(t, dir, args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("report -o %s: exit %d, stderr %s, output lacks %q", tt.format, code, errs, tt.want)
		}
		if tt.format == "junit" {
			var doc results.JUnitSuites
			if err := xml.Unmarshal([]byte(out), &doc); err != nil || doc.Tests != 4 || doc.Failures != 1 {
				t.Errorf("junit: %v tests=%d failures=%d", err, doc.Tests, doc.Failures)
			}
		}
	}
	if code, _, errs := resultsCLI(t, dir, "report", "latest", "--lab", "16gpu"); code != 2 || !strings.Contains(errs, "latest") {
		t.Errorf("report latest of a lab with no runs: exit %d %s", code, errs)
	}
}

func TestRegressCommand(t *testing.T) {
	t.Parallel()
	dir := seedRuns(t)
	code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "20261129T11", "ecn-pfc-64gpu")
	if code != 0 || !strings.Contains(out, "saved baseline ecn-pfc-64gpu") {
		t.Fatalf("save baseline: %d %s %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "results", "baselines", "ecn-pfc-64gpu.json")); err != nil {
		t.Fatal(err)
	}
	// A clean run against the baseline: exit 0.
	code, out, errs = resultsCLI(t, dir, "regress", "20261129T12", "--baseline", "ecn-pfc-64gpu")
	if code != 0 || !strings.Contains(out, "OK: no regression") {
		t.Errorf("clean: exit %d\n%s%s", code, out, errs)
	}
	// The latest run lost packets with PFC on: exit 1, naming the metric.
	code, out, errs = resultsCLI(t, dir, "regress", "latest", "--baseline", "ecn-pfc-64gpu")
	if code != 1 || !strings.Contains(out, "  ecn=on,pfc=on\n    summary\n      drops: 0 -> 150 (+150), allowed +0") || !strings.Contains(errs, "regressed") {
		t.Errorf("regressed: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = resultsCLI(t, dir, "regress", "latest", "--baseline", "20261129T120000Z-ecn-pfc-64gpu", "-o", "json", "--tolerance", "drops=200")
	var rep results.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Regressions != 1 || rep.Findings == nil {
		t.Errorf("json with drops tolerance (only the assertion regresses): exit %d %v %+v", code, err, rep.Regressions)
	}
	code, out, _ = resultsCLI(t, dir, "regress", "latest", "--baseline", filepath.Join(dir, "results", "baselines", "ecn-pfc-64gpu.json"), "-o", "junit")
	if code != 1 || !strings.Contains(out, `<failure message="ecn=on,pfc=on drops`) {
		t.Errorf("junit from a file baseline: exit %d\n%s", code, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"regress", "latest"}, "--baseline is required"},
		{[]string{"regress", "latest", "--baseline", "nightly"}, `baseline "nightly" is not a file, a saved baseline or a run; saved baselines: ecn-pfc-64gpu`},
		{[]string{"regress", "nope", "--baseline", "latest"}, `no run "nope"`},
		{[]string{"regress", "latest", "--baseline", "latest", "--tolerance", "speed=3%"}, `unknown metric "speed"`},
		{[]string{"regress", "--save-baseline", "latest", "Bad_Name"}, "lowercase letters"},
		{[]string{"regress", "--save-baseline", "latest"}, "takes a run and one baseline name"},
	} {
		code, _, errs := resultsCLI(t, dir, tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}
