package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/sim"
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

func regressJSON(t *testing.T, dir string, baseline ...string) (int, results.Report, string) {
	t.Helper()
	b := "good"
	if len(baseline) > 0 {
		b = baseline[0]
	}
	code, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", b, "-o", "json")
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

// TestRegressSaysTheSimulatorChanged: a baseline saved by a labctl whose
// simulator was another revision (here one from before records carried
// one: its sim_revision taken out) is not the same simulation as a run
// of today's, whatever the seed: regress names the simulator as a
// changed input with what changed since, at moderate confidence, and a
// regression's error points at it; a baseline of today's revision says
// nothing of the simulator.
func TestRegressSaysTheSimulatorChanged(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	file := filepath.Join(dir, "incast-short.yaml")
	if err := os.WriteFile(file, []byte("name: incast-short\nmatrix: {ecn: [on], pfc: [on]}\nduration: 1ms\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, dir, file, "16gpu")
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "good"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	runOK(t, dir, file, "16gpu")
	if code, out, _ := resultsCLI(t, dir, "results", "show", "latest"); code != 0 || !strings.Contains(out, fmt.Sprintf("\nsimulator revision %d\n", sim.Revision)) {
		t.Errorf("results show does not say the simulator's revision: exit %d\n%s", code, out)
	}
	if code, out, _ := resultsCLI(t, dir, "regress", "latest", "--baseline", "good"); code != 0 || strings.Contains(out, "simulator changed") || strings.Contains(out, "revision") || !strings.Contains(out, "(confidence: high)") {
		t.Errorf("same revision: exit %d:\n%s", code, out)
	}
	// The baseline as an older labctl saved it: no revision, and a
	// throughput the simulator of then gave 20% higher.
	path := filepath.Join(dir, "results", "baselines", "good.json")
	var rec map[string]any
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	if err != nil || rec["sim_revision"] != float64(sim.Revision) {
		t.Fatalf("baseline %s: sim_revision %v, %v", path, rec["sim_revision"], err)
	}
	delete(rec, "sim_revision")
	write := func() {
		t.Helper()
		b, err := json.Marshal(rec)
		if err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write()
	code, out, _ := resultsCLI(t, dir, "regress", "latest", "--baseline", "good")
	for _, want := range []string{
		fmt.Sprintf("the same seed and inputs on both sides (seed 1), each variant one to one with the baseline's, but not the same simulation: the simulator's revision (%d in the run; the baseline records none", sim.Revision),
		"(confidence: moderate)",
		"the simulator changed between the baseline and this run: figures may have moved because of it, not the configs",
		"  revision 1 (2026-12-06): the first revision records carry",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("baseline without a revision: exit %d, regress lacks %q:\n%s", code, want, out)
		}
	}
	if code != 0 {
		t.Errorf("nothing moved: exit %d\n%s", code, out)
	}
	v := rec["variants"].([]any)[0].(map[string]any)["summary"].(map[string]any)
	v["throughput_gbps_total"] = v["throughput_gbps_total"].(float64) * 1.2
	write()
	code, rep, errs := regressJSON(t, dir)
	if code != 1 || !rep.SimulatorChanged || len(rep.SimulatorChanges) != sim.Revision || !strings.Contains(errs, "the simulator changed between them too") {
		t.Errorf("a figure moved: exit %d, simulator changed %v %q, error %q", code, rep.SimulatorChanged, rep.SimulatorChanges, errs)
	}
	// The next step is to save this run as the baseline, not repetitions.
	_, out, _ = resultsCLI(t, dir, "regress", "latest", "--baseline", "good")
	if !strings.Contains(out, "next: the figures that moved are the new simulator's, not a regression of the configs: once they are checked, save this run as the baseline (labctl regress --save-baseline") {
		t.Errorf("a figure moved, next step:\n%s", out)
	}
}

// TestRegressReadsTheScenarioTolerances: a scenario's regress.tolerances
// reach regress through the run's record and are listed with their
// source; a --tolerance of the same metric replaces the scenario's; and an
// edit of the tolerances alone is no change of the scenario's values (the
// two runs are still the same simulation, compared with high confidence).
func TestRegressReadsTheScenarioTolerances(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	file := filepath.Join(dir, "incast-tol.yaml")
	const v1 = "name: incast-tol\nmatrix: {ecn: [on], pfc: [on]}\nduration: 1ms\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 4\nregress:\n  tolerances:\n    drops: 2\n"
	if err := os.WriteFile(file, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, dir, file, "16gpu")
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "good"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	v2 := strings.Replace(v1, "    drops: 2\n", "    drops: 3\n    role[incast].latency_us_p50: 5%\n", 1)
	if err := os.WriteFile(file, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, dir, file, "16gpu")
	code, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", "good")
	want := "tolerances: drops 3 (the scenario's regress.tolerances), role[incast].latency_us_p50 5% (the scenario's regress.tolerances); every other metric its default\n"
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "(confidence: high)") || strings.Contains(out, "scenario changed") {
		t.Errorf("exit %d; want %q, high confidence and no scenario change:\n%s%s", code, want, out, errs)
	}
	_, out, _ = resultsCLI(t, dir, "regress", "latest", "--baseline", "good", "--tolerance", "drops=4")
	if want := "tolerances: drops 4 (--tolerance), role[incast].latency_us_p50 5% (the scenario's regress.tolerances);"; !strings.Contains(out, want) {
		t.Errorf("--tolerance does not replace the scenario's: want %q:\n%s", want, out)
	}
	_, rep, _ := regressJSON(t, dir)
	if len(rep.Tolerances) != 2 || rep.Tolerances[0].Metric != "drops" || rep.Tolerances[0].From != results.FromScenario || rep.ScenarioChanged && len(rep.ScenarioChanges) > 0 {
		t.Errorf("JSON tolerances %+v, scenario changes %+v", rep.Tolerances, rep.ScenarioChanges)
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
		{"latest", "packet", "has flow-level estimated figures and baseline"},
		{"packet", "flow", "has packet-by-packet simulated figures and baseline"},
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

// TestRegressAcrossSeeds: on 16gpu's incast, two runs at seeds 1 and 2
// with one repetition each are refused (exit 2) with the fix: compared
// one to one the incast's p50 latency moved +121% from the seed alone.
// With three repetitions a side they are compared as samples and the
// output says so: unchanged configs pass, a harmful WRED Kmin (3 MB on
// the receiver's leaf) fails, a benign Kmax 0.7% higher passes even at
// the baseline's seed, where one to one it failed.
func TestRegressAcrossSeeds(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	const scenario = "name: incast-seeds\nmatrix: {ecn: [on], pfc: [on]}\nduration: 20ms\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 8\n"
	once := filepath.Join(dir, "once.yaml")
	if os.WriteFile(once, []byte(scenario), 0o644) != nil {
		t.Fatal("write scenario")
	}
	run := func(file, seed string, more ...string) {
		t.Helper()
		if code, _, errs := resultsCLI(t, dir, append([]string{"run", file, "--lab", "16gpu", "--seed", seed}, more...)...); code > 1 {
			t.Fatalf("run %s --seed %s %v: exit %d: %s", file, seed, more, code, errs)
		}
	}
	// The refusal's fix, labctl run --repetitions, is what the rest runs.
	reps := func(seed string) { t.Helper(); run(once, seed, "--repetitions", "3") }
	regress := func(baseline string) (int, string, string) {
		t.Helper()
		return resultsCLI(t, dir, "regress", "latest", "--baseline", baseline)
	}
	run(once, "1")
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "once"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	run(once, "2")
	code, out, errs := regress("once")
	for _, want := range []string{"ran at seed 2 and baseline", "at seed 1, and point ecn=on,pfc=on has one repetition on both sides",
		"Fix: rerun at the baseline's seed to compare the same simulation (labctl run " + once + " --lab 16gpu --seed 1)",
		"run both with repetitions (labctl run " + once + " --lab 16gpu --repetitions 5, at each side's seed)"} {
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("seeds 1 and 2, one repetition each: exit %d, want 2 and %q:\n%s%s", code, want, out, errs)
		}
	}
	run(once, "1")
	if code, out, _ := regress("once"); code != 0 || !strings.Contains(out, "\ncompared: the same simulation on both sides (seed 1), each variant one to one with the baseline's") || !strings.Contains(out, "(confidence: high)\n") {
		t.Errorf("the baseline's seed: exit %d:\n%s", code, out)
	}

	reps("1")
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "reps"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	reps("5")
	code, rep, errs := regressJSON(t, dir, "reps")
	if code != 0 || rep.Basis.How != results.BasisSamples || rep.Basis.Confidence != results.ConfidenceModerate || rep.Compared.Variants != 3 ||
		!strings.Contains(rep.Basis.Text, "each point's 3 repetitions (seeds 5-7) are compared as their mean against the mean of the baseline's 3 (seeds 1-3)") {
		t.Errorf("seeds 5-7 against 1-3, configs unchanged: exit %d, %d regressions, basis %+v, %s", code, rep.Regressions, rep.Basis, errs)
	}

	leaf1 := filepath.Join(dir, "topologies", "16gpu", "configs", "leaf1.json")
	orig, err := os.ReadFile(leaf1)
	if err != nil {
		t.Fatal(err)
	}
	setWRED(t, leaf1, "green_max_threshold", "3276800", "3300000")
	reps("1")
	if code, rep, _ := regressJSON(t, dir, "reps"); code != 0 || rep.Basis.How != results.BasisSamples || !rep.ConfigChanged {
		t.Errorf("Kmax 0.7%% higher, seeds 1-3: exit %d, basis %s, findings %+v", code, rep.Basis.How, rep.Findings)
	}
	if err := os.WriteFile(leaf1, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	setWRED(t, leaf1, "green_min_threshold", "819200", "3000000")
	reps("5")
	code, rep, _ = regressJSON(t, dir, "reps")
	if code != 1 || !slices.ContainsFunc(rep.Findings, func(f results.Finding) bool {
		return f.Regression && f.Variant == "ecn=on,pfc=on (mean of 3 repetitions)" && f.Role == "incast" && f.Metric == "role.latency_us_p50"
	}) {
		t.Errorf("Kmin 3 MB, seeds 5-7: exit %d, want the incast's mean p50 latency flagged: %+v", code, rep.Findings)
	}
}

// setWRED sets field of leaf1's WRED profile whose field is from.
func setWRED(t *testing.T, path, field, from, to string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal(data, &db); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range db["WRED_PROFILE"] {
		if p[field] == from {
			p[field], found = to, true
		}
	}
	if data, err = json.MarshalIndent(db, "", "    "); !found || err != nil {
		t.Fatalf("%s: no WRED profile with %s %s (%v)", path, field, from, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
