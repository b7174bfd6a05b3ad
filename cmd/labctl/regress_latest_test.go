package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// regress latest says when the latest run is not of the lab's configs as
// they are now: after an edit whose run was refused, "latest" is the run
// before the edit, and a verdict on it says nothing of the edit.
func TestRegressLatestSaysWhenConfigsChangedSince(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	runOK(t, dir, "baseline-bw", "16gpu")
	if code, out, stderr := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "b"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, stderr)
	}
	runOK(t, dir, "baseline-bw", "16gpu")
	const note = "changed since run"
	if code, _, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", "b"); code != 0 || strings.Contains(stderr, note) {
		t.Fatalf("configs as run: exit %d: %s", code, stderr)
	}
	leaf := filepath.Join(dir, "topologies", "16gpu", "configs", "leaf1.json")
	data, err := os.ReadFile(leaf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leaf, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", "b"); code != 0 || !strings.Contains(stderr, note) || !strings.Contains(stderr, "labctl run baseline-bw --lab 16gpu") {
		t.Errorf("configs edited since: exit %d: %s", code, stderr)
	}
	// The edit's run refused (bad input, no record): latest is still the
	// run before it. The report itself says which run it compares, when
	// it started, and warns (text and json alike) that the configs are
	// not that run's, naming the file edited since.
	if err := os.WriteFile(leaf, []byte("{\"PORT\":"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := resultsCLI(t, dir, "run", "baseline-bw", "--lab", "16gpu"); code != 2 {
		t.Fatalf("run of a broken config: exit %d, want 2: %s%s", code, out, stderr)
	}
	code, out, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", "b")
	if code != 0 || !strings.Contains(out, "(started ") || !strings.Contains(out, "warning: the configs of lab 16gpu changed since run ") || !strings.Contains(out, "leaf1.json") || !strings.Contains(stderr, "labctl: warning: ") {
		t.Errorf("configs edited, their run refused: exit %d:\n%s%s", code, out, stderr)
	}
	code, out, _ = resultsCLI(t, dir, "regress", "latest", "--baseline", "b", "-o", "json")
	var rep struct {
		RunStarted time.Time `json:"run_started"`
		Warnings   []string  `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.RunStarted.IsZero() || !strings.Contains(strings.Join(rep.Warnings, "\n"), "changed since run") {
		t.Errorf("json: exit %d, %+v (%v)", code, rep, err)
	}
}

// regress latest when the latest run is the baseline itself (the run after
// it was refused or never made) compared the run with itself and said OK:
// it is bad input, with the run to make.
func TestRegressLatestIsTheBaseline(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	runOK(t, dir, "baseline-bw", "16gpu")
	if code, out, stderr := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "b"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, stderr)
	}
	for _, baseline := range []string{"b", "latest"} {
		code, out, stderr := resultsCLI(t, dir, "regress", "latest", "--baseline", baseline)
		if code != 2 || !strings.Contains(stderr, "is the baseline itself") || !strings.Contains(stderr, "fix: run the scenario first, 'labctl run baseline-bw --lab 16gpu'") || strings.Contains(out, "OK") {
			t.Errorf("regress latest --baseline %s: exit %d: %s%s", baseline, code, out, stderr)
		}
	}
}

// One lab brought up on SONiC in one folder and on EOS in another, the
// scenario run in both in the same second: the two records share a run
// id, and regress of one against the other's run.json said the run was
// the baseline itself. Other switches' configs make another run; the
// run's own record (a copy) is still refused.
func TestRegressTwoLabsSameRunID(t *testing.T) {
	t.Parallel()
	sonic, eos := upLab(t, "16gpu"), upLab(t, "16gpu", "--nos", "eos")
	runOK(t, sonic, "baseline-bw", "16gpu")
	runOK(t, eos, "baseline-bw", "16gpu")
	recordOf := func(dir string) (string, map[string]any) {
		t.Helper()
		files, err := filepath.Glob(filepath.Join(dir, "results", "*", "run.json"))
		if err != nil || len(files) != 1 {
			t.Fatalf("%s: run records %v (%v), want one", dir, files, err)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return files[0], m
	}
	sonicFile, sonicRec := recordOf(sonic)
	_, eosRec := recordOf(eos)
	// The EOS run as if it had started in the SONiC run's second.
	eosRec["run_id"] = sonicRec["run_id"]
	data, err := json.Marshal(eosRec)
	if err != nil {
		t.Fatal(err)
	}
	eosFile := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(eosFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := resultsCLI(t, sonic, "regress", sonicFile, "--baseline", eosFile)
	if code == 2 || strings.Contains(stderr, "is the baseline itself") || !strings.Contains(out, "NOS changed between the baseline and this run: eos -> sonic") {
		t.Errorf("SONiC run against the EOS run of the same id: exit %d: %s%s", code, out, stderr)
	}
	// The same lab, NOS and configs run in another folder in the same
	// second (by another labctl build, say): another run too.
	sameRec := maps.Clone(sonicRec)
	started, err := time.Parse(time.RFC3339Nano, sonicRec["started"].(string))
	if err != nil {
		t.Fatal(err)
	}
	sameRec["started"] = started.Add(time.Millisecond).Format(time.RFC3339Nano)
	sameFile := filepath.Join(t.TempDir(), "run.json")
	if data, err = json.Marshal(sameRec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sameFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := resultsCLI(t, sonic, "regress", sonicFile, "--baseline", sameFile); code != 0 || strings.Contains(stderr, "is the baseline itself") {
		t.Errorf("a run against another run of the same id, lab, NOS and configs, a millisecond apart: exit %d: %s%s", code, out, stderr)
	}
	copyFile := filepath.Join(t.TempDir(), "run.json")
	raw, err := os.ReadFile(sonicFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := resultsCLI(t, sonic, "regress", sonicFile, "--baseline", copyFile); code != 2 || !strings.Contains(stderr, "is the baseline itself") {
		t.Errorf("a run against a copy of its own record: exit %d: %s", code, stderr)
	}
}
