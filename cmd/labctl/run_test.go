package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// upLab brings a catalog lab up in a fresh work directory.
func upLab(t testing.TB, name string, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	var out, errb strings.Builder
	args := append([]string{"up", name, "--dir", dir}, extra...)
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("labctl %v: exit %d: %s", args, code, errb.String())
	}
	return dir
}

// runJSON runs a scenario with -o json and decodes the record.
func runJSON(t testing.TB, dir, scenarioName, labName string, extra ...string) (int, *results.Run, string) {
	t.Helper()
	var out, errb strings.Builder
	args := append([]string{"run", scenarioName, "--lab", labName, "--dir", dir, "-o", "json"}, extra...)
	code := run(context.Background(), args, &out, &errb)
	if out.Len() == 0 {
		return code, nil, errb.String()
	}
	var r results.Run
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("labctl %v: bad JSON: %v\n%s", args, err, out.String())
	}
	return code, &r, errb.String()
}

func variantOf(t *testing.T, r *results.Run, name string) results.Variant {
	t.Helper()
	for _, v := range r.Variants {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("run has no variant %s", name)
	return results.Variant{}
}

func TestUpThenRunECNPFC(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	code, r, stderr := runJSON(t, dir, "ecn-pfc", "16gpu")
	if code != 0 || r == nil {
		t.Fatalf("run ecn-pfc: exit %d: %s", code, stderr)
	}
	if r.Status != results.StatusPassed || len(r.Variants) != 4 || r.Runtime != "sim" || r.ConfigDigest == "" {
		t.Fatalf("run: status %s, %d variants, runtime %s, digest %q", r.Status, len(r.Variants), r.Runtime, r.ConfigDigest)
	}
	pfcOnly := variantOf(t, r, "ecn=off,pfc=on").Summary
	if pfcOnly.Drops != 0 || pfcOnly.PFCPauseFrames == 0 {
		t.Errorf("PFC on: drops %d pauses %d, want 0 drops and pauses", pfcOnly.Drops, pfcOnly.PFCPauseFrames)
	}
	none := variantOf(t, r, "ecn=off,pfc=off").Summary
	if none.Drops == 0 || none.Retransmits == 0 {
		t.Errorf("ECN and PFC off: drops %d retransmits %d, want both", none.Drops, none.Retransmits)
	}
	both := variantOf(t, r, "ecn=on,pfc=on").Summary
	if both.ECNMarked == 0 || both.CNP == 0 || both.PFCPauseFrames >= pfcOnly.PFCPauseFrames || both.Drops != 0 {
		t.Errorf("ECN+PFC: marks %d CNPs %d pauses %d (PFC alone %d) drops %d", both.ECNMarked, both.CNP, both.PFCPauseFrames, pfcOnly.PFCPauseFrames, both.Drops)
	}
	for _, v := range r.Variants {
		if len(v.Series) == 0 {
			t.Errorf("%s has no time series", v.Name)
		}
	}
	// The record and reports are on disk, and the results index knows the run.
	for _, f := range []string{results.RunFile, results.ReportMarkdown, results.ReportHTML, results.ReportJUnit} {
		if _, err := os.Stat(filepath.Join(dir, "results", r.RunID, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	saved, err := results.ReadRunFile(filepath.Join(dir, "results", r.RunID, results.RunFile))
	if err != nil || saved.Status != results.StatusPassed || len(saved.Variants) != 4 {
		t.Errorf("saved run.json: %v %+v", err, saved)
	}
	// Every assertion of the scenario is on every variant, checked or
	// not: "PFC keeps the fabric lossless" (when pfc) is not checked with
	// PFC off, and says why; JUnit lists it as skipped.
	skipped := 0
	for _, v := range r.Variants {
		if n := len(v.Assertions) + len(v.NotChecked); n != 6 {
			t.Errorf("%s: %d assertions checked and %d not, want 6 in all", v.Name, len(v.Assertions), len(v.NotChecked))
		}
		skipped += len(v.NotChecked)
	}
	off := variantOf(t, r, "ecn=off,pfc=off")
	if i := slices.IndexFunc(off.NotChecked, func(n results.NotChecked) bool { return n.Name == "PFC keeps the fabric lossless" }); i < 0 || off.NotChecked[i].Reason != "its when condition is false (pfc=false)" {
		t.Errorf("PFC off: not checked %+v", off.NotChecked)
	}
	junit, err := os.ReadFile(filepath.Join(dir, "results", r.RunID, results.ReportJUnit))
	if want := fmt.Sprintf(`skipped="%d"`, skipped); err != nil || skipped == 0 || !strings.Contains(string(junit), want) ||
		!strings.Contains(string(junit), `<skipped message="not checked: its when condition is false (pfc=false)">`) {
		t.Errorf("junit.xml (%v) does not list the %d assertions not checked as skipped:\n%s", err, skipped, junit)
	}
	for _, name := range []string{results.ReportMarkdown, results.ReportHTML} {
		if b, err := os.ReadFile(filepath.Join(dir, "results", r.RunID, name)); err != nil || !strings.Contains(string(b), "not checked") || !strings.Contains(string(b), "its when condition is false (pfc=false)") {
			t.Errorf("%s (%v) does not list the assertions not checked", name, err)
		}
	}
}

func TestBaselineGoodput(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	code, r, stderr := runJSON(t, dir, "baseline-bw", "16gpu")
	if code != 0 || r == nil {
		t.Fatalf("run baseline-bw: exit %d: %s", code, stderr)
	}
	v := r.Variants[0]
	if len(v.Flows) != 1 {
		t.Fatalf("%d flows", len(v.Flows))
	}
	want := 200.0 * 4096 / (4096 + 82)
	got := v.Flows[0].ThroughputGbps
	if got < want*0.995 || got > want*1.005 {
		t.Errorf("goodput %.3f Gb/s, want %.3f (MTU/(MTU+82) of 200G) within 0.5%%", got, want)
	}
}

func TestRunSameSeedSameRecord(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	_, a, _ := runJSON(t, dir, "incast", "16gpu", "--seed", "5")
	_, b, _ := runJSON(t, dir, "incast", "16gpu", "--seed", "5")
	if a == nil || b == nil {
		t.Fatal("no record")
	}
	if a.RunID == b.RunID {
		t.Errorf("two runs share id %s", a.RunID)
	}
	if recordWithoutCost(t, a) != recordWithoutCost(t, b) {
		t.Error("same seed gave different records")
	}
	// Each variant says what it cost: the wall time is measured, the
	// engine's events and packet-hops are the seed's.
	for i, v := range a.Variants {
		ca, cb := v.Cost, b.Variants[i].Cost
		if ca == nil || cb == nil || ca.Events == nil || cb.Events == nil || *ca.Events != *cb.Events || *ca.PacketHops != *cb.PacketHops || ca.WallS <= 0 {
			t.Errorf("variant %s costs %v and %v: want a wall time and the same events and packet-hops", v.Name, ca, cb)
		}
	}
}

func TestRunRequiresLabUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runJSON(t, dir, "ecn-pfc", "64gpu")
	if code != exitcode.BadInput || !strings.Contains(stderr, "labctl up 64gpu") {
		t.Errorf("lab not up: exit %d: %s", code, stderr)
	}
	dir = upLab(t, "16gpu")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "nosuch", "--lab", "16gpu"}, "unknown scenario"},
		{[]string{"run", "ecn-pfc"}, "--lab"},
		{[]string{"run", "ecn-pfc", "--lab", "16gpu", "-o", "yaml"}, "output format"},
	} {
		var out, errb strings.Builder
		code := run(context.Background(), append(tc.args, "--dir", dir), &out, &errb)
		if code != exitcode.BadInput || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, errb.String())
		}
	}
}

func TestRunFailedAssertionExits1(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	sc := filepath.Join(dir, "strict.yaml")
	if err := os.WriteFile(sc, []byte("name: strict\nmatrix: {ecn: [off], pfc: [off]}\nduration: 500us\ntraffic:\n  - pattern: incast\n    senders: 4\nassertions:\n  - name: never drops\n    expr: summary.drops == 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := run(context.Background(), []string{"run", sc, "--lab", "16gpu", "--dir", dir}, &out, &errb)
	if code != exitcode.CheckFailed || !strings.Contains(errb.String(), "never drops") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "FAIL never drops") || !strings.Contains(out.String(), "FAILED") {
		t.Errorf("text output:\n%s", out.String())
	}
}

func TestRunScenarioFileErrorExit2(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	sc := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(sc, []byte("name: bad\ntraffic:\n  - pattern: incast\n    sendrs: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := run(context.Background(), []string{"run", sc, "--lab", "16gpu", "--dir", dir}, &out, &errb)
	if code != exitcode.BadInput || !strings.Contains(errb.String(), "bad.yaml:4:5") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// TestRunBrokenConfigRefusedBeforeVariants: a lab config that does not
// parse is the run's one error, with its file:line:col and one fix, before
// any run folder exists, where every variant failed with it under its own
// name and two fixes.
func TestRunBrokenConfigRefusedBeforeVariants(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	leaf := filepath.Join(dir, "topologies", "16gpu", "configs", "leaf1.json")
	data, err := os.ReadFile(leaf)
	if err != nil {
		t.Fatal(err)
	}
	// A comma dropped between two entries of a table, on line 3 or below.
	broken := strings.Replace(string(data), "},\n", "}\n", 1)
	if broken == string(data) {
		t.Fatal("leaf1.json has no entry followed by a comma")
	}
	if err := os.WriteFile(leaf, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := run(context.Background(), []string{"run", "incast", "--lab", "16gpu", "--dir", dir}, &out, &errb)
	stderr := errb.String()
	if code != exitcode.BadInput || !strings.Contains(stderr, "leaf1.json:") || !strings.Contains(stderr, "python3 -m json.tool") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "variant ") || strings.Count(stderr, "fix:") != 1 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("want one error line with one fix and no variant, got:\n%s", stderr)
	}
	if !strings.Contains(stderr, "or delete it and run 'labctl up 16gpu' to render it again") {
		t.Errorf("the error does not say the file can be rendered again:\n%s", stderr)
	}
	if runs, _ := filepath.Glob(filepath.Join(dir, "results", "2*")); len(runs) != 0 {
		t.Errorf("the refused run left %v", runs)
	}
}

// Ctrl-C before the first variant finished leaves no record: an empty
// run must not become "latest" or a baseline. (The runner's tests cover an
// interrupt after some variants, which keeps them.)
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb strings.Builder
	code := run(ctx, []string{"run", "ecn-pfc", "--lab", "16gpu", "--dir", dir, "-o", "json"}, &out, &errb)
	if code != exitcode.CheckFailed || !strings.Contains(errb.String(), "nothing was recorded") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "results"))
	for _, e := range entries {
		if e.IsDir() && results.ValidRunID(e.Name()) {
			t.Errorf("run folder %s left behind", e.Name())
		}
	}
	code, listed, _ := runCLI(t, "results", "list", "--dir", dir)
	if code != 0 || !strings.Contains(listed, "no runs") {
		t.Errorf("results list after the interrupted run: exit %d\n%s", code, listed)
	}
}

func TestStatusAndDown(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu", "--nos", "eos")
	code, out, stderr := runCLI(t, "status", "--dir", dir)
	if code != 0 || !strings.Contains(out, "16gpu") || !strings.Contains(out, "eos") || !strings.Contains(out, "up") {
		t.Errorf("status: exit %d: %s %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "status", "16gpu", "--dir", dir, "-o", "json")
	var st runtime.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.State != runtime.StateUp || len(st.Nodes) == 0 {
		t.Errorf("status json: %v %+v", err, st)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies", "16gpu", "configs", "leaf1.cfg")); err != nil {
		t.Errorf("eos config: %v", err)
	}
	for i := range 2 {
		code, _, stderr = runCLI(t, "down", "16gpu", "--dir", dir)
		if code != 0 {
			t.Fatalf("down #%d: exit %d: %s", i, code, stderr)
		}
	}
	code, out, _ = runCLI(t, "status", "16gpu", "--dir", dir, "-o", "json")
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || st.State != runtime.StateDown {
		t.Errorf("after down: %v %+v", err, st)
	}
	if code, _, stderr := runCLI(t, "run", "ecn-pfc", "--lab", "16gpu", "--dir", dir); code != exitcode.BadInput || !strings.Contains(stderr, "is down") {
		t.Errorf("run on a lab that is down: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "status", "64gpu", "--dir", dir); code != exitcode.BadInput || !strings.Contains(stderr, "labctl up 64gpu") {
		t.Errorf("status of a lab never up: exit %d: %s", code, stderr)
	}
	if code, out, _ := runCLI(t, "down", "64gpu", "--dir", dir); code != 0 || !strings.Contains(out, "not up") {
		t.Errorf("down of a lab never up: exit %d: %s", code, out)
	}
}

func TestUpLockedAndOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lock, err := runtime.Acquire(filepath.Join(dir, "topologies", "16gpu", runtime.LockFile), "labctl up 16gpu")
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "up", "16gpu", "--dir", dir)
	lock.Release()
	if code != exitcode.BadInput || !strings.Contains(stderr, "holds") || !strings.Contains(stderr, "pid") {
		t.Errorf("up while locked: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"up", "16gpu", "--runtime", "docker"}, "unknown runtime"},
		{[]string{"up", "16gpu", "--nos", "junos"}, "--nos"},
		{[]string{"up", "nosuch"}, "unknown lab"},
	} {
		code, _, stderr := runCLI(t, append(tc.args, "--dir", dir)...)
		if code != exitcode.BadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
		}
	}
	code, out, _ := runCLI(t, "up", "16gpu", "--dry-run", "--dir", dir)
	if code != 0 || !strings.Contains(out, "would render") {
		t.Errorf("dry run: exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies", "16gpu", "state.json")); !os.IsNotExist(err) {
		t.Errorf("dry run wrote state: %v", err)
	}
}

// BenchmarkRunECNPFC64 measures `labctl run ecn-pfc --lab 64gpu` end to end
// (four 5 ms variants, record and reports written). Peak memory of the
// binary: /usr/bin/time -v labctl run ecn-pfc --lab 64gpu.
func BenchmarkRunECNPFC64(b *testing.B) {
	dir := upLab(b, "64gpu")
	b.ReportAllocs()
	for b.Loop() {
		var out, errb strings.Builder
		if code := run(context.Background(), []string{"run", "ecn-pfc", "--lab", "64gpu", "--dir", dir, "-o", "json"}, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}

func TestRunAllReduceExtra(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	code, r, stderr := runJSON(t, dir, "allreduce", "16gpu")
	if code != 0 || r == nil {
		t.Fatalf("run allreduce: exit %d: %s", code, stderr)
	}
	model, _ := r.Extra["allreduce"].(map[string]any)
	per, _ := model["crossing_spine_per_round"].([]any)
	if model["ranks"] != 16.0 || len(per) != 30 || model["theoretical_by_oversubscription"] == nil {
		t.Errorf("run extra.allreduce = %v", model)
	}
	v := r.Variants[0]
	ar, _ := v.Extra["allreduce"].(map[string]any)
	if ar["completed"] != true || ar["theoretical_us"] == nil || ar["simulated_us"] == nil {
		t.Errorf("variant extra.allreduce = %v", ar)
	}
	if _, ok := ar["allgather_congests_more"].(bool); !ok {
		t.Errorf("no phase comparison: %v", ar)
	}
	if len(v.Flows) != 16 || v.Summary.ThroughputGbpsMinFlow <= 0 {
		t.Errorf("%d rank flows, min %v Gb/s", len(v.Flows), v.Summary.ThroughputGbpsMinFlow)
	}
}

// Configs that up rendered are known to 'config render' as labctl's own,
// so re-rendering them is allowed, while an edit is protected.
func TestUpConfigsInManifest(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	if code, out, stderr := runCLI(t, "config", "render", "16gpu", "--dir", dir); code != 0 || !strings.Contains(out, "unchanged") {
		t.Fatalf("config render after up: exit %d: %s %s", code, out, stderr)
	}
	leaf := filepath.Join(dir, "topologies", "16gpu", "configs", "leaf1.json")
	data, err := os.ReadFile(leaf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leaf, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "config", "render", "16gpu", "--dir", dir); code != exitcode.BadInput || !strings.Contains(stderr, "leaf1.json") {
		t.Errorf("config render over an edit: exit %d: %s", code, stderr)
	}
	// up again keeps the edit.
	upAgain := []string{"up", "16gpu", "--dir", dir}
	if code, _, stderr := runCLI(t, upAgain...); code != 0 {
		t.Fatalf("up again: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(leaf); string(got) != string(data)+" " {
		t.Error("up overwrote an edited config")
	}
}

func TestRunScenarioTooBigForLab(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	sc := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(sc, []byte("name: big\ntraffic:\n  - pattern: incast\n    senders: 40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "run", sc, "--lab", "16gpu", "--dir", dir)
	if code != exitcode.BadInput || !strings.Contains(stderr, "lower senders") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "results"))
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("a rejected run left %s behind", e.Name())
		}
	}
}

// -j runs variants at once; the record is the same as one at a time, byte
// for byte apart from ids and times.
func TestRunParallelSameRecord(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	code1, r1, e1 := runJSON(t, dir, "ecn-pfc", "16gpu", "-j", "1")
	code2, r2, e2 := runJSON(t, dir, "ecn-pfc", "16gpu", "-j", "2")
	code4, r4, e4 := runJSON(t, dir, "ecn-pfc", "16gpu", "-j", "4")
	if r1 == nil || r2 == nil || r4 == nil || code1 != code2 || code1 != code4 {
		t.Fatalf("exit %d/%d/%d: %s %s %s", code1, code2, code4, e1, e2, e4)
	}
	a, b, c := recordWithoutCost(t, r1), recordWithoutCost(t, r2), recordWithoutCost(t, r4)
	if a != b || a != c {
		t.Errorf("-j 1, -j 2 and -j 4 records differ")
	}
	if len(r1.Variants) != 4 || r1.Variants[0].Name != "ecn=on,pfc=on" {
		t.Errorf("variants %d, first %s: want the matrix order", len(r1.Variants), r1.Variants[0].Name)
	}
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"run", "ecn-pfc", "--lab", "16gpu", "--dir", dir, "-j", "0"}, &out, &errb); code != 2 {
		t.Errorf("-j 0: exit %d, want 2", code)
	}
}

// Ctrl-C during up exits 1 (interrupted), not with the class of whatever
// error the cancelled step returned.
func TestUpInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb strings.Builder
	code := run(ctx, []string{"up", "16gpu", "--dir", dir}, &out, &errb)
	if code != exitcode.CheckFailed || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want exit 1 saying interrupted", code, errb.String())
	}
}

// A QoS sweep end to end: the run says what it swept and where each
// variant's configs are, config diff shows what a point changed against
// the lab's configs, and a value the lab's configs cannot take leaves no
// run behind.
func TestRunSweepConfigsAndDiff(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	sc := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(sc, []byte("name: sw\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  qos.ecn.kmin_kb: [100, 400]\nduration: 200us\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "run", sc, "--lab", "16gpu", "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sweep: qos.ecn.kmin_kb over 100, 400", "ecn=on,pfc=on,qos.ecn.kmin_kb=400", "switch configs per variant: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run output lacks %q:\n%s", want, stdout)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "results", "*-sw-16gpu"))
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	point := filepath.Join(runs[0], "configs", "ecn-on_pfc-on_qos.ecn.kmin_kb-400")
	code, stdout, stderr = runCLI(t, "config", "diff", filepath.Join(dir, "topologies", "16gpu", "configs"), point)
	if code != exitcode.CheckFailed {
		t.Fatalf("config diff: exit %d: %s", code, stderr)
	}
	// Only the marking queues' Kmin changed: 409600 bytes on every one.
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for _, l := range lines[1 : len(lines)-1] {
		if !strings.Contains(l, " queue.3.ecn ") || !strings.Contains(l, "min=409600 max=") {
			t.Errorf("config diff line is not the swept Kmin: %q", l)
		}
	}
	if len(lines) < 3 {
		t.Errorf("config diff:\n%s", stdout)
	}
	code, _, stderr = runCLI(t, "config", "diff", filepath.Join(runs[0], "configs", "ecn-on_pfc-on_qos.ecn.kmin_kb-100"), filepath.Join(runs[0], "configs", "ecn-on_pfc-on_qos.ecn.kmin_kb-100"))
	if code != 0 {
		t.Errorf("a point against itself: exit %d: %s", code, stderr)
	}
	// The same by the run's variants: one against the lab's configs, two
	// against each other.
	byRun := func(args ...string) (int, string, string) {
		return runCLI(t, append([]string{"config", "diff", "--dir", dir, "--run", "latest"}, args...)...)
	}
	code, stdout2, stderr := byRun("ecn=on,pfc=on,qos.ecn.kmin_kb=400")
	if code != exitcode.CheckFailed || strings.Join(strings.Fields(strings.Split(stdout2, "\n")[0]), " ") != "DEVICE PORTS FIELD lab 16gpu ecn=on,pfc=on,qos.ecn.kmin_kb=400" ||
		strings.Count(stdout2, "\n") != strings.Count(stdout, "\n") {
		t.Errorf("diff --run against the lab: exit %d: %s%s", code, stdout2, stderr)
	}
	code, stdout2, _ = byRun("ecn=on,pfc=on,qos.ecn.kmin_kb=100", "ecn=on,pfc=on,qos.ecn.kmin_kb=400")
	if code != exitcode.CheckFailed || !strings.Contains(stdout2, "min=102400 ") || !strings.Contains(stdout2, "min=409600 ") {
		t.Errorf("diff --run of two points: exit %d: %s", code, stdout2)
	}
	code, _, stderr = byRun("ecn=on,pfc=on,qos.ecn.kmin_kb=800")
	if code != exitcode.BadInput || !strings.Contains(stderr, `has no variant "ecn=on,pfc=on,qos.ecn.kmin_kb=800" with configs (fix: use one of ecn=on,pfc=on,qos.ecn.kmin_kb=100; ecn=on,pfc=on,qos.ecn.kmin_kb=400)`) {
		t.Errorf("unknown variant: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "config", "diff", "--run", "latest", "a", "b", "c"); code != exitcode.BadInput || !strings.Contains(stderr, "one variant") {
		t.Errorf("three variants: exit %d: %s", code, stderr)
	}

	if code, _, stderr := runCLI(t, "run", "baseline-bw", "--lab", "16gpu", "--dir", dir); code != 0 {
		t.Fatalf("baseline-bw: exit %d: %s", code, stderr)
	}
	if code, _, stderr := byRun("ecn=on,pfc=on"); code != exitcode.BadInput || !strings.Contains(stderr, "sweeps no QoS value, so it kept no configs per variant") {
		t.Errorf("a run without a QoS sweep: exit %d: %s", code, stderr)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nmatrix:\n  qos.ecn.kmin_kb: [100, 9000]\nduration: 100us\ntraffic: [{pattern: incast, senders: 2}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "run", bad, "--lab", "16gpu", "--dir", dir)
	if code != exitcode.BadInput || !strings.Contains(stderr, "bad.yaml:3:26") || !strings.Contains(stderr, "Kmin must stay below Kmax") {
		t.Errorf("kmin above the lab's kmax: exit %d: %s", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "results", "*-bad-16gpu")); len(left) != 0 {
		t.Errorf("a refused sweep left %v", left)
	}
}

// A run's one-line summary of a variant says what each role carried, and
// for a latency role that measured nothing, why (the flow's reason).
func TestRoleThroughputSaysWhyNoLatency(t *testing.T) {
	v := results.Variant{Flows: []results.Flow{
		{ID: "a", Role: "incast", ThroughputGbps: 40, Bytes: new(int64(1))},
		{ID: "b", Role: "incast", ThroughputGbps: 30, Bytes: new(int64(1))},
		{ID: "c", Pattern: "latency", Role: "latency", Reason: "no latency: the client posted 0 of its 1000 writes (raise duration)"},
		{ID: "d", Pattern: "latency", Role: "probe", LatencyUs: &results.Latency{P50: 1.25}},
	}}
	got := roleThroughput(v)
	for _, want := range []string{"incast 70.0 Gb/s", "latency no latency measured: the client posted 0 of its 1000 writes (raise duration)", "probe 1.25 us"} {
		if !strings.Contains(got, want) {
			t.Errorf("roleThroughput = %q, want it to say %q", got, want)
		}
	}
}

// TestEOSStaysLosslessUnderAFabricWideBacklog: on EOS, whose buffer labctl
// assumes (orchestrator/nos/eos/buffer.go), PFC keeps RoCE lossless when
// the whole fabric backs up: a 32:1 incast of 64 QPs a flow with a
// permutation of 64 QPs a flow both ways beside it. The assumed egress
// lossless pool was smaller than what ingress admits to the lossless PGs
// (its pool and shared headroom), and this run dropped 33,187 packets at
// the lossless queues' egress, at a total of 4070 Gb/s (6223 without).
func TestEOSStaysLosslessUnderAFabricWideBacklog(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "64gpu", "--nos", "eos")
	// The scenario TestSimulatorRevision also runs on EOS.
	file, err := filepath.Abs(filepath.Join(simRevisionDir, "scenarios-eos", "backlog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	code, r, stderr := runJSON(t, dir, file, "64gpu")
	if code != 0 || r == nil {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	s := r.Variants[0].Summary
	if s.Drops != 0 || s.PFCPauseFrames == 0 {
		t.Errorf("EOS with PFC under a fabric-wide backlog: %d drops, %d pause frames; want none dropped, and pauses", s.Drops, s.PFCPauseFrames)
	}
}

// A scenario entry whose traffic_class reads as a DSCP written for the TOS
// byte (26 for DSCP 26) gets a warning on stderr before the run, naming
// its line and the fix; best-effort traffic written as such
// (mixed-classes' traffic_class 0) does not, nor do the catalog's
// scenarios at their default 106.
func TestRunWarnsTrafficClassAsDSCP(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	file := filepath.Join(dir, "tc26.yaml")
	spec := "name: tc26\nmatrix: {ecn: [on], pfc: [on]}\nduration: 200us\ntraffic:\n  - pattern: incast\n    senders: 4\n    traffic_class: 26\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, stderr := resultsCLI(t, dir, "run", file, "--lab", "16gpu")
	for _, want := range []string{"warning: " + file + ":7:20: traffic_class 26 is the TOS byte of DSCP 6", "best effort", "write traffic_class: 106 (DSCP 26 with ECT(0))"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("run with traffic_class 26: stderr does not say %q:\n%s", want, stderr)
		}
	}
	for _, sc := range []string{"mixed-classes", "incast"} {
		code, _, stderr := resultsCLI(t, dir, "run", sc, "--lab", "16gpu")
		if code > 1 || strings.Contains(stderr, "traffic_class") {
			t.Errorf("run %s: exit %d, stderr:\n%s", sc, code, stderr)
		}
	}
}
