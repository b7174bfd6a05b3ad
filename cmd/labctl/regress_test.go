package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// setWREDMin sets green_min_threshold of the WRED profile of node's
// config_db whose green_min_threshold is from, and returns the original
// file to restore.
func setWREDMin(t *testing.T, dir, node, from, to string) []byte {
	t.Helper()
	path := filepath.Join(dir, "topologies", "64gpu", "configs", node+".json")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal(orig, &db); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	found := false
	for _, p := range db["WRED_PROFILE"] {
		if p["green_min_threshold"] == from {
			p["green_min_threshold"] = to
			found = true
		}
	}
	if !found {
		t.Fatalf("%s has no WRED_PROFILE with green_min_threshold %s", path, from)
	}
	data, err := json.MarshalIndent(db, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return orig
}

func regressJSON(t *testing.T, dir string) (int, results.Report, string) {
	t.Helper()
	code, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", "good", "-o", "json")
	var rep results.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("regress -o json: exit %d: %v\n%s%s", code, err, out, errs)
	}
	return code, rep, errs
}

// The vendor-config regression loop on the real simulation of 64gpu's
// ecn-pfc: raising the WRED green_min_threshold of leaf1's host ports from
// 819200 to 3000000 lets the incast receiver's queue grow before marking,
// and every incast flow's p50 latency grows about sevenfold (16.9 us to
// 116.7 us at seed 1: the queue now sits near the 3 MB Kmin, 120 us of a
// 200G port, instead of below the 800 KiB one), while the
// whole run's p99 and throughput move the better way, so the summary alone
// passes it. The role and port comparisons must fail it; an unchanged
// rerun (the simulator is deterministic for a seed) and the same edit on
// leaf2, whose host ports queue only ACKs here, must pass.
func TestRegressWREDThresholdOnOneLeaf(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "64gpu")
	runScenario := func() { runOK(t, dir, "ecn-pfc", "64gpu") }
	runScenario()
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "good"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	// The baseline leaves the time series out; the run keeps them.
	fi, err := os.Stat(filepath.Join(dir, "results", "baselines", "good.json"))
	if err != nil || fi.Size() > 512<<10 {
		t.Errorf("baseline: %v, %d bytes, want well under 1 MB", err, fi.Size())
	}
	code, out, _ := resultsCLI(t, dir, "report", "latest", "-o", "json")
	var own results.Run
	if err := json.Unmarshal([]byte(out), &own); code != 0 || err != nil || len(own.Variants[0].Series) == 0 || len(own.Omitted) != 0 {
		t.Errorf("the run's own record lost its series: exit %d %v", code, err)
	}

	runScenario()
	code, rep, errs := regressJSON(t, dir)
	c := rep.Compared
	if code != 0 || rep.Regressed || rep.ConfigChanged || c.Unchanged != c.Metrics || c.Role == 0 || c.Port == 0 {
		t.Fatalf("unchanged rerun: exit %d, %d regressions, compared %+v, %s", code, rep.Regressions, c, errs)
	}

	orig := setWREDMin(t, dir, "leaf2", "819200", "3000000")
	runScenario()
	code, rep, _ = regressJSON(t, dir)
	if code != 0 || rep.Regressed || !rep.ConfigChanged {
		t.Errorf("the threshold raised on leaf2: exit %d, config changed %v, regressions %+v", code, rep.ConfigChanged, rep.Findings)
	}
	if err := os.WriteFile(filepath.Join(dir, "topologies", "64gpu", "configs", "leaf2.json"), orig, 0o644); err != nil {
		t.Fatal(err)
	}

	setWREDMin(t, dir, "leaf1", "819200", "3000000")
	runScenario()
	code, rep, _ = regressJSON(t, dir)
	if code != 1 || !rep.Regressed {
		t.Fatalf("the threshold raised on leaf1: exit %d, regressed %v", code, rep.Regressed)
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		if !f.Regression {
			continue
		}
		switch {
		case f.Scope == results.ScopeSummary:
			t.Errorf("a summary metric regressed (the test needs a change the summary passes): %+v", f)
		case f.Scope == results.ScopeRole && f.Role == "incast" && f.Metric == "role.latency_us_p50":
			if f.Current < 3*f.Baseline {
				t.Errorf("incast p50 %v -> %v us, want about fivefold", f.Baseline, f.Current)
			}
			seen[f.Variant+" role"] = true
		case f.Scope == results.ScopePort && f.Node == "leaf1" && f.Port == "Ethernet0" && *f.Priority == 3 && f.Metric == "port.queue_p50_bytes":
			seen[f.Variant+" port"] = true
		}
	}
	for _, v := range []string{"ecn=on,pfc=on", "ecn=on,pfc=off"} {
		if !seen[v+" role"] || !seen[v+" port"] {
			t.Errorf("%s: role incast p50 latency regressed %v, leaf1 Ethernet0 priority 3 queue p50 regressed %v; findings %+v", v, seen[v+" role"], seen[v+" port"], rep.Findings)
		}
	}
	code, out, _ = resultsCLI(t, dir, "regress", "latest", "--baseline", "good")
	for _, want := range []string{
		"  ecn=on,pfc=on\n    role incast (8 flows)\n      role.latency_us_p50: ",
		"    port leaf1 Ethernet0 priority 3\n      port.queue_p50_bytes: ",
		"\nREGRESSED: 4 regressions: 4 metrics worse beyond tolerance\n",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("text: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "OK") {
		t.Errorf("text says OK:\n%s", out)
	}
}

// The help names every metric --tolerance accepts.
func TestRegressHelpNamesEveryMetric(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "regress", "--help")
	text := strings.Join(strings.Fields(out), " ")
	for _, m := range results.AllMetrics() {
		if code != 0 || !strings.Contains(text, m.Name) {
			t.Errorf("regress --help (exit %d) does not name %s", code, m.Name)
		}
	}
}

// TestRegressSaysTheScenarioChanged: the same scenario file, edited
// between the baseline and the run (its warmup and the incast's senders),
// on unchanged configs: regress lists the edited values ahead of what
// moved, so the figures are not blamed on the configs; an unchanged file
// says nothing of the scenario.
func TestRegressSaysTheScenarioChanged(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	file := filepath.Join(dir, "incast-edit.yaml")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const v1 = "name: incast-edit\nmatrix: {ecn: [on], pfc: [on]}\nduration: 1ms\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 4\n"
	write(v1)
	run := func() { runOK(t, dir, file, "16gpu") }
	run()
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "good"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	run()
	if code, out, _ := resultsCLI(t, dir, "regress", "latest", "--baseline", "good"); code != 0 || strings.Contains(out, "scenario") {
		t.Errorf("unchanged file: exit %d:\n%s", code, out)
	}
	write("# edited\n" + strings.Replace(strings.Replace(v1, "senders: 4", "senders: 2", 1), "duration: 1ms", "duration: 1ms\nwarmup: 200us", 1))
	run()
	_, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", "good")
	if !strings.Contains(errs, "the scenario changed between them too") {
		t.Errorf("edited file: the error does not point at the scenario: %s", errs)
	}
	want := "the scenario changed between the baseline and this run (baseline -> run); figures may have moved because of it, not the configs:\n  traffic[0].senders: 4 -> 2\n  warmup: (not set) -> 200us\n"
	if !strings.Contains(out, want) {
		t.Errorf("edited file: regress lacks %q:\n%s", want, out)
	}
	code, rep, _ := regressJSON(t, dir)
	if !rep.ScenarioChanged || len(rep.ScenarioChanges) != 2 || rep.ConfigChanged {
		t.Errorf("edited file, JSON: exit %d, scenario changed %v %+v, config changed %v", code, rep.ScenarioChanged, rep.ScenarioChanges, rep.ConfigChanged)
	}
}

// TestRegressRefusesAnotherModel: a flow-level run checked against a
// packet-level baseline of the same scenario, and the other way round,
// is bad input (exit 2) naming both models and the fix. It used to be
// compared: every figure the flow-level model does not compute read as a
// regression one way, and the other way round the packet-level run's
// drops, pauses and marks went unchecked, only its throughput set
// against the flow model's estimate.
func TestRegressRefusesAnotherModel(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	file := filepath.Join(dir, "incast-one.yaml")
	scenario := "name: incast-one\nmatrix: {ecn: [on], pfc: [on]}\nduration: 1ms\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 4\n"
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"packet", "flow"} {
		if code, _, errs := resultsCLI(t, dir, "run", file, "--lab", "16gpu", "--model", model); code != 0 {
			t.Fatalf("run --model %s: exit %d: %s", model, code, errs)
		}
		if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", model); code != 0 {
			t.Fatalf("save baseline %s: exit %d: %s%s", model, code, out, errs)
		}
	}
	// latest is the flow-level run.
	for _, c := range []struct{ run, baseline, want string }{
		{"latest", "packet", "has flow-level simulated figures and baseline"},
		{"packet", "flow", "has packet-level simulated figures and baseline"},
	} {
		runRef := c.run
		if runRef == "packet" {
			runRef = filepath.Join(dir, "results", "baselines", "packet.json")
		}
		code, out, errs := resultsCLI(t, dir, "regress", runRef, "--baseline", c.baseline)
		if code != 2 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "compare runs of the same runtime and model") {
			t.Errorf("regress %s --baseline %s: exit %d, want 2 naming both models and the fix:\n%s%s", c.run, c.baseline, code, out, errs)
		}
	}
}
