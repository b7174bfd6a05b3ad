package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/results"
)

func ncclFixture(name string) string {
	return filepath.Join("..", "..", "orchestrator", "nccltests", "testdata", name)
}

// editedH100 is the real H100 all_reduce output with the 1 GiB row's
// time set to us: algbw and busbw follow as nccl-tests computes them,
// and the average line, which no longer holds, is dropped.
func editedH100(t *testing.T, dir, name, time, algbw, busbw string) string {
	t.Helper()
	src, err := os.ReadFile(ncclFixture("all_reduce_2.13_h100x16.txt"))
	if err != nil {
		t.Fatal(err)
	}
	old := "  1073741824     268435456     float     sum      -1   6759.0  158.86  297.86      0"
	if !bytes.Contains(src, []byte(old)) {
		t.Fatal("fixture changed")
	}
	row := "  1073741824     268435456     float     sum      -1   " + time + "  " + algbw + "  " + busbw + "      0"
	out := strings.Replace(string(src), old, row, 1)
	var kept []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "# Avg bus bandwidth") {
			kept = append(kept, l)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParseNCCLTestsEnvelope(t *testing.T) {
	t.Parallel()
	for name, coll := range map[string]string{
		"all_reduce_2.13_h100x16.txt":      "all_reduce",
		"alltoall_2.18_rtx6000dx16_na.txt": "alltoall",
		"broadcast_2019_v100x12.txt":       "broadcast",
	} {
		code, out, errs := runCLI(t, "parse", "nccl-tests", ncclFixture(name))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		var doc struct {
			Kind   string            `json:"kind"`
			Result results.NCCLTable `json:"result"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Kind != "nccl-tests" || doc.Result.Collective != coll || doc.Result.Source != results.Measured || len(doc.Result.Rows) == 0 {
			t.Errorf("%s: kind %s, collective %s, source %s, %d rows", name, doc.Kind, doc.Result.Collective, doc.Result.Source, len(doc.Result.Rows))
		}
	}
}

func TestParseNCCLTestsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h100 := ncclFixture("all_reduce_2.13_h100x16.txt")
	refused := ncclFixture("refused_all_gather_2019_old_algbw.txt")
	wrongOK := ncclFixture("refused_all_reduce_2.13_h100x16_wrong_ok.txt")
	a2a, err := os.ReadFile(ncclFixture("alltoall_2.18_rtx6000dx16_na.txt"))
	if err != nil {
		t.Fatal(err)
	}
	unnamed := filepath.Join(dir, "a2a.txt")
	noName := strings.NewReplacer("# Collective test starting: alltoall_perf", "#", "# Collective test concluded: alltoall_perf", "#", "/alltoall_perf", "/run").Replace(string(a2a))
	if err := os.WriteFile(unnamed, []byte(noName), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"old release", []string{"parse", "nccl-tests", refused}, refused + ":29: algbw 0.03 is not size 2016 B"},
		{"a wrong row, trailer OK", []string{"parse", "nccl-tests", wrongOK}, wrongOK + ":55: the trailer says 0 out of bounds values (OK), but the table has 1 result with a #wrong above 0 (the first at line 41: in-place #wrong 3)"},
		{"ambiguous", []string{"parse", "nccl-tests", unnamed}, "give --collective all_gather"},
		{"bad --collective", []string{"parse", "nccl-tests", h100, "--collective", "allreduce"}, `--collective: collective "allreduce" is not one labctl reads (fix: use one of all_reduce`},
		{"--collective elsewhere", []string{"parse", "ib_write_bw", h100, "--collective", "all_reduce"}, "--collective applies to nccl-tests output only"},
		{"--record elsewhere", []string{"parse", "ib_write_bw", h100, "--record"}, "--record applies to nccl-tests output only"},
		{"--lab without --record", []string{"parse", "nccl-tests", h100, "--lab", "64gpu"}, "--lab names what a run record is compared with (fix: add --record"},
		{"two files without --record", []string{"parse", "nccl-tests", h100, h100}, "parse takes 2 arguments, got 3"},
		{"record without lab", []string{"parse", "nccl-tests", h100, "--record", "--scenario", "x"}, "--record needs --lab and --scenario"},
		{"files and variants", []string{"parse", "nccl-tests", h100, h100, "--record", "--lab", "c", "--scenario", "x"}, "2 files and 0 --variant"},
		{"bad variant", []string{"parse", "nccl-tests", h100, "--record", "--lab", "c", "--scenario", "x", "--variant", "pfc=on,ecn=on"}, `--variant "pfc=on,ecn=on": it must start with ecn=on or ecn=off`},
		{"bad param", []string{"parse", "nccl-tests", h100, "--record", "--lab", "c", "--scenario", "x", "--variant", "ecn=on,pfc=on,ring"}, `"ring" is not path=value`},
		{"variant twice", []string{"parse", "nccl-tests", h100, h100, "--record", "--lab", "c", "--scenario", "x", "--variant", "ecn=on,pfc=on", "--variant", "ecn=on,pfc=on"}, "is given for"},
		{"not the scenario's", []string{"parse", "nccl-tests", h100, "--record", "--lab", "64gpu", "--scenario", "nccl-alltoall", "--variant", "ecn=on,pfc=on,traffic[0].algorithm=ring"}, `is not a variant of the scenario: its variants are ecn=on,pfc=on,traffic[0].rank_order=nccl; ecn=on,pfc=on,traffic[0].rank_order=naive`},
		{"catalog scenario without nccl", []string{"parse", "nccl-tests", h100, "--record", "--lab", "64gpu", "--scenario", "allreduce"}, `--scenario allreduce runs no nccl traffic, so a record of nccl-tests output has nothing to compare with in its runs (fix: name a scenario with nccl traffic: a catalog one (nccl-allreduce, nccl-alltoall)`},
		{"bad lab name", []string{"parse", "nccl-tests", h100, "--record", "--lab", "My Cluster", "--scenario", "x"}, `--lab "My Cluster" is not a lab name (fix: name a catalog lab`},
		{"missing scenario file", []string{"parse", "nccl-tests", h100, "--record", "--lab", "c", "--scenario", "nope.yaml"}, "nope.yaml: file not found"},
		{"bad file in a record", []string{"parse", "nccl-tests", h100, refused, "--record", "--lab", "c", "--scenario", "x", "--variant", "ecn=on,pfc=on", "--variant", "ecn=off,pfc=on"}, refused + ":29:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := resultsCLI(t, dir, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q lacks %q", code, errs, tc.want)
			}
			if out != "" {
				t.Errorf("printed %q on a refusal", out)
			}
		})
	}
}

func TestParseNCCLTestsRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errs := resultsCLI(t, dir, "parse", "nccl-tests", ncclFixture("all_reduce_2.13_h100x16.txt"), ncclFixture("all_reduce_2.10_t4x3_na.txt"),
		"--record", "--lab", "64gpu", "--scenario", "nccl-allreduce", "--variant", "ecn=on,pfc=on,traffic[0].algorithm=ring", "--variant", "ecn=on,pfc=on,traffic[0].algorithm=tree")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "has 16 ranks and lab 64gpu 64 GPUs") {
		t.Errorf("no note of the rank count: %s", errs)
	}
	var run results.Run
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if run.Runtime != "live" || run.Status != results.StatusPassed || run.Lab != "64gpu" || run.Scenario != "nccl-allreduce" || !results.ValidRunID(run.RunID) ||
		!strings.HasSuffix(run.RunID, "-nccl-allreduce-64gpu-measured") || run.Imported == nil || run.Imported.Tool != "nccl-tests" || len(run.Imported.Files) != 2 {
		t.Errorf("record: %+v", run)
	}
	if len(run.Variants) != 2 || run.Variants[1].Name != "ecn=on,pfc=on,traffic[0].algorithm=tree" || !run.Variants[1].ECN || !run.Variants[1].PFC ||
		run.Variants[1].Params["traffic[0].algorithm"] != "tree" {
		t.Fatalf("variants %+v", run.Variants)
	}
	for _, v := range run.Variants {
		if v.NCCL == nil || v.NCCL.Source != results.Measured || len(v.Flows) != 0 || len(v.Counters) != 0 || v.Summary.Source != results.Measured || !results.NCCLOnly(&v) {
			t.Errorf("variant %s: %+v", v.Name, v)
		}
		for _, m := range results.Metrics {
			if !slices.Contains(v.Summary.NotComputed, m.Name) {
				t.Errorf("variant %s: summary %s not listed as not computed (it would read as a 0)", v.Name, m.Name)
			}
		}
	}
	if run.Variants[0].NCCL.Ranks != 16 || run.Variants[1].NCCL.Ranks != 3 {
		t.Errorf("ranks %d, %d", run.Variants[0].NCCL.Ranks, run.Variants[1].NCCL.Ranks)
	}
	if err := results.CheckComparable("record", &run); err != nil {
		t.Error(err)
	}
}

// A run whose data nccl-tests found wrong ("Out of bounds values : 3
// FAILED") is recorded as failed, the reason as its variant's error, and
// a warning says so; the other file's variant stays clean. Saved, it
// cannot become a baseline.
func TestParseNCCLTestsRecordFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	failed := ncclFixture("all_reduce_2.13_h100x16_failed.txt")
	args := []string{"parse", "nccl-tests", failed, ncclFixture("all_reduce_2.13_h100x16.txt"), "--lab", "64gpu", "--scenario", "nccl-allreduce",
		"--variant", "ecn=on,pfc=on,traffic[0].algorithm=ring", "--variant", "ecn=on,pfc=on,traffic[0].algorithm=tree"}
	code, out, errs := resultsCLI(t, dir, append(args, "--record")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	why := `nccl-tests found wrong values in the data ("Out of bounds values : 3 FAILED"): 1048576 B in-place #wrong 3`
	if want := "labctl: warning: " + failed + ": " + why + "; the record's variant ecn=on,pfc=on,traffic[0].algorithm=ring keeps this as its error and the record's status is failed"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	var run results.Run
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if run.Status != results.StatusFailed || len(run.Variants) != 2 || run.Variants[0].Error != why || run.Variants[1].Error != "" {
		t.Fatalf("status %s, variants %+v", run.Status, run.Variants)
	}
	if err := results.CheckComparable("record", &run); err != nil {
		t.Error(err)
	}
	code, out, errs = resultsCLI(t, dir, append(args, "--save")...)
	if code != 0 || !strings.HasPrefix(out, "saved run ") {
		t.Fatalf("--save: exit %d\n%s%s", code, out, errs)
	}
	id := strings.Fields(out)[2]
	if code, _, errs := resultsCLI(t, dir, "regress", "--save-baseline", id, "cluster"); code != 2 || !strings.Contains(errs, why) {
		t.Errorf("a failed record saved as a baseline: exit %d %s", code, errs)
	}
}

// A --lab or --scenario one typo away from a catalog name is still taken
// as given (a cluster's own names are), but a note says what it was near:
// regress matches records by these names, so a typo would only show there.
func TestParseNCCLTestsRecordNearCatalogName(t *testing.T) {
	t.Parallel()
	h100 := ncclFixture("all_reduce_2.13_h100x16.txt")
	code, out, errs := resultsCLI(t, t.TempDir(), "parse", "nccl-tests", h100, "--record", "--lab", "64gpu", "--scenario", "nccl-allreduc",
		"--variant", "ecn=on,pfc=on,traffic[0].algorithm=ring")
	if code != 0 || !strings.Contains(out, `"scenario": "nccl-allreduc"`) {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	if !strings.Contains(errs, `note: --scenario nccl-allreduc is no catalog scenario and no file`) || !strings.Contains(errs, "did you mean nccl-allreduce?") {
		t.Errorf("no note of the near catalog scenario: %s", errs)
	}
	code, _, errs = resultsCLI(t, t.TempDir(), "parse", "nccl-tests", h100, "--record", "--lab", "64gpx", "--scenario", "cluster-allreduce")
	if code != 0 || !strings.Contains(errs, `note: --lab 64gpx is no catalog lab and no file`) || !strings.Contains(errs, "did you mean 64gpu?") {
		t.Errorf("exit %d, no note of the near catalog lab: %s", code, errs)
	}
	code, _, errs = resultsCLI(t, t.TempDir(), "parse", "nccl-tests", h100, "--record", "--lab", "cluster-a", "--scenario", "cluster-allreduce")
	if code != 0 || strings.Contains(errs, "note: --") {
		t.Errorf("exit %d, a note for names far from the catalog's: %s", code, errs)
	}
}

// TestNCCLTestsRegressEndToEnd: a record of a cluster's nccl-tests output
// is the baseline of another such record, through the CLI: a 10% lower
// busbw at one size fails naming the size and both figures, a 1% lower
// one passes; a record saved under results/ is reported and compared as
// a run; a saved baseline keeps its tables.
func TestNCCLTestsRegressEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	record := func(file, out string) {
		t.Helper()
		code, stdout, errs := resultsCLI(t, dir, "parse", "nccl-tests", file, "--record", "--lab", "cluster-a", "--scenario", "cluster-allreduce")
		if code != 0 {
			t.Fatalf("record %s: exit %d: %s", file, code, errs)
		}
		if err := os.WriteFile(filepath.Join(dir, out), []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	record(ncclFixture("all_reduce_2.13_h100x16.txt"), "base.json")
	// 1 GiB in 7510 us instead of 6759: busbw 297.86 -> 268.08 (-10%).
	record(editedH100(t, dir, "slow.txt", "7510.0", "142.98", "268.08"), "slow.json")
	// 6827 us: busbw 294.90 (-1%).
	record(editedH100(t, dir, "same.txt", "6827.0", "157.28", "294.90"), "same.json")
	base, slow, same := filepath.Join(dir, "base.json"), filepath.Join(dir, "slow.json"), filepath.Join(dir, "same.json")

	code, out, errs := resultsCLI(t, dir, "regress", slow, "--baseline", base)
	if code != 1 {
		t.Fatalf("10%% slower: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"REGRESSED: 1 regression", "nccl-tests size 1 GiB (1073741824 B)", "nccl.busbw_gbyte_s: 297.86 GB/s -> 268.08 GB/s (-10.0%)"} {
		if !strings.Contains(out, want) {
			t.Errorf("regress output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(errs, "same run") {
		t.Errorf("two records taken for the same run: %s", errs)
	}
	if code, out, errs := resultsCLI(t, dir, "regress", same, "--baseline", base); code != 0 || !strings.Contains(out, "OK: no regression") {
		t.Errorf("1%% slower: exit %d\n%s%s", code, out, errs)
	}
	// JSON names the size; a wider tolerance lets the 10% pass.
	code, out, _ = resultsCLI(t, dir, "regress", slow, "--baseline", base, "-o", "json")
	var rep results.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("json: exit %d, %v", code, err)
	}
	var sizes []int64
	for _, f := range rep.Findings {
		if f.Regression && f.SizeBytes != nil {
			sizes = append(sizes, *f.SizeBytes)
		}
	}
	if !slices.Equal(sizes, []int64{1 << 30}) {
		t.Errorf("regressed sizes %v", sizes)
	}
	if code, _, errs := resultsCLI(t, dir, "regress", slow, "--baseline", base, "--tolerance", "nccl.busbw_gbyte_s=15%"); code != 0 {
		t.Errorf("15%% tolerance: exit %d %s", code, errs)
	}

	// Saved as a run: listed, reported with its NCCL section, compared
	// as latest, and saved as a baseline that keeps its tables.
	code, out, errs = resultsCLI(t, dir, "parse", "nccl-tests", editedH100(t, dir, "slow2.txt", "7510.0", "142.98", "268.08"),
		"--save", "--lab", "cluster-a", "--scenario", "cluster-allreduce")
	if code != 0 || !strings.HasPrefix(out, "saved run ") {
		t.Fatalf("--save: exit %d\n%s%s", code, out, errs)
	}
	id := strings.Fields(out)[2]
	if code, out, _ := resultsCLI(t, dir, "report", id); code != 0 || !strings.Contains(out, "## NCCL") || !strings.Contains(out, "measured (nccl-tests output)") {
		t.Errorf("report: exit %d\n%s", code, out)
	}
	if code, out, _ := resultsCLI(t, dir, "results", "show", id); code != 0 || !regexp.MustCompile(`\n\s+ecn=on,pfc=on\s+n/a\s+n/a\s+n/a\s`).MatchString(out) || !strings.Contains(out, "# all_reduce over 16 ranks: measured") {
		t.Errorf("results show: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "results", id, results.ReportHTML)); err != nil {
		t.Errorf("no report.html: %v", err)
	}
	if code, out, errs := resultsCLI(t, dir, "regress", "latest", "--baseline", base); code != 1 || !strings.Contains(out, "nccl-tests size 1 GiB (1073741824 B)") {
		t.Errorf("latest vs the measured baseline: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := resultsCLI(t, dir, "regress", "--save-baseline", id, "cluster"); code != 0 {
		t.Fatalf("save baseline: exit %d %s", code, errs)
	}
	saved, err := results.ReadRunFile(filepath.Join(dir, "results", "baselines", "cluster.json"))
	if err != nil || saved.Variants[0].NCCL == nil || len(saved.Variants[0].NCCL.Rows) != 31 {
		t.Fatalf("saved baseline lost its table: %v", err)
	}
	if code, out, errs := resultsCLI(t, dir, "regress", slow, "--baseline", "cluster"); code != 0 {
		t.Errorf("the same figures against the saved baseline: exit %d\n%s%s", code, out, errs)
	}
}

// TestRunSummaryPrintsNCCLTable: labctl run's per-variant output has the
// variant's nccl-tests table when it carries one.
func TestRunSummaryPrintsNCCLTable(t *testing.T) {
	t.Parallel()
	fin := time.Date(2026, 11, 29, 12, 1, 0, 0, time.UTC)
	alg := float64(1<<30) / 44739.2 / 1e3
	tb := &results.NCCLTable{Collective: results.CollAllReduce, Algorithm: "ring", Ranks: 16, Channels: 2, DataType: "float", RedOp: "sum", Root: -1,
		Source: results.Simulated, Rows: []results.NCCLRow{{SizeBytes: 1 << 30, Count: 1 << 28, OutOfPlace: results.NCCLResult{TimeUs: 44739.2, AlgBWGBps: alg, BusBWGBps: alg * 30 / 16}}}}
	run := &results.Run{RunID: "20261129T120000Z-nccl-allreduce-64gpu", Lab: "64gpu", Scenario: "nccl-allreduce", Runtime: "sim", Seed: 1, Status: results.StatusPassed, Finished: &fin,
		Variants: []results.Variant{{Name: "ecn=on,pfc=on", ECN: true, PFC: true, NCCL: tb, Summary: results.Summary{Source: results.Simulated}}, {Name: "ecn=off,pfc=on", PFC: true}}}
	var b bytes.Buffer
	writeRunSummary(&b, run, "results/r")
	out := b.String()
	for _, want := range []string{
		"\n# all_reduce over 16 ranks, ring, 2 channels: simulated packet by packet\n",
		"  1073741824     268435456     float     sum      -1  44739.2   24.00   45.00    N/A\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("run summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "# all_reduce over") != 1 {
		t.Errorf("a table printed for a variant without one:\n%s", out)
	}
}
