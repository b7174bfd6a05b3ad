package main

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// up --runtime clab must refuse a lab this machine cannot hold, naming the
// estimate and suggesting the simulator, before anything starts.
func TestUpClabRefusesLabTooBigForMachine(t *testing.T) {
	t.Parallel()
	mem, err := fabric.MemAvailableMiB()
	if err != nil {
		t.Skip(err)
	}
	if mem > 60000 && goruntime.NumCPU() > 40 {
		t.Skipf("this machine (%d MiB, %d CPUs) could hold the 1024-GPU lab", mem, goruntime.NumCPU())
	}
	dir := t.TempDir()
	code, out, stderr := runCLI(t, "up", "1024gpu", "--runtime", "clab", "--dir", dir)
	if code != 3 {
		t.Fatalf("exit %d, want 3\nstdout %s\nstderr %s", code, out, stderr)
	}
	for _, want := range []string{"estimated", "MiB", "--runtime sim"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("refusal %q does not name %q", stderr, want)
		}
	}
	code, out, _ = runCLI(t, "status", "--dir", dir, "-o", "json")
	if code != 0 || strings.Contains(out, `"state": "up"`) {
		t.Errorf("a refused up left a lab behind: %s", out)
	}
}

// CPUs are shared, so a lab whose CPU estimate is above the machine's
// warns and goes on; memory refuses, unless --force.
func TestUpClabCPUWarnsMemoryRefusesUnlessForced(t *testing.T) {
	t.Parallel()
	mem, err := fabric.MemAvailableMiB()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	// 16gpu with cEOS: an estimated 2.2 CPUs and 5.4 GiB.
	code, out, stderr := runCLI(t, "up", "16gpu", "--nos", "eos", "--runtime", "clab", "--dry-run", "--dir", dir)
	if mem >= 4*1740+2*64 {
		if code != 0 || !strings.Contains(out, "would run: containerlab deploy") {
			t.Errorf("16gpu eos dry run: exit %d\nstdout %s\nstderr %s", code, out, stderr)
		}
		if goruntime.NumCPU() < 3 && !strings.Contains(stderr, "warning") {
			t.Errorf("no CPU warning on %d CPUs: %s", goruntime.NumCPU(), stderr)
		}
	}
	if mem > 60000 {
		t.Skipf("this machine (%d MiB) could hold the 1024-GPU lab", mem)
	}
	code, out, stderr = runCLI(t, "up", "1024gpu", "--runtime", "clab", "--dry-run", "--force", "--dir", dir)
	if code != 0 || !strings.Contains(out, "would run: containerlab deploy") || !strings.Contains(stderr, "(--force)") {
		t.Errorf("1024gpu forced dry run: exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
}

// After 'up ./spec.yaml', the lab's name works wherever a lab is named.
func TestLabNameResolvesToTheSpecItWasBroughtUpFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := dir + "/mylab.yaml"
	if err := os.WriteFile(spec, []byte("name: mylab\nsizing:\n  gpus: 16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "up", spec, "--dir", dir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{{"config", "lint", "mylab"}, {"topo", "mylab", "-o", "json"}, {"plan", "mylab"}, {"trace", "mylab", "0", "9"}} {
		if code, _, stderr := runCLI(t, append(args, "--dir", dir)...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "config", "lint", "nosuch", "--dir", dir); code != 2 || !strings.Contains(stderr, "unknown lab") {
		t.Errorf("unknown lab: exit %d: %s", code, stderr)
	}
}

// A spec brought up by a relative path resolves from any directory: the
// state records its absolute path (it recorded the path as typed, and a
// run after a cd failed "which no longer resolves"). Not parallel: it
// changes the test's working directory.
func TestLabBroughtUpByRelativePathRunsFromElsewhere(t *testing.T) {
	specDir, workDir, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(specDir, "rel.yaml"), []byte("name: rel\nsizing:\n  gpus: 16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(specDir)
	if code, _, stderr := runCLI(t, "up", "rel.yaml", "--dir", workDir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	// The same spec again, as typed or otherwise, is the same lab: up
	// is idempotent (it was refused "is up from <abs>, not from rel.yaml").
	for _, again := range []string{"rel.yaml", "./rel.yaml", filepath.Join(specDir, "rel.yaml")} {
		if code, _, stderr := runCLI(t, "up", again, "--dir", workDir); code != 0 {
			t.Errorf("up %s again: exit %d: %s", again, code, stderr)
		}
	}
	st, err := runtime.ReadState(filepath.Join(workDir, "topologies", "rel"))
	if err != nil || st == nil || st.Spec != filepath.Join(specDir, "rel.yaml") {
		t.Fatalf("state's spec = %+v, %v; want %s", st, err, filepath.Join(specDir, "rel.yaml"))
	}
	t.Chdir(elsewhere)
	if code, _, stderr := runCLI(t, "run", "baseline-bw", "--lab", "rel", "--dir", workDir, "-o", "json"); code != 0 {
		t.Errorf("run from another directory: exit %d: %s", code, stderr)
	}
	// A baseline, and a run to compare with it (regress refuses a run
	// compared with itself).
	if code, _, stderr := runCLI(t, "regress", "--save-baseline", "latest", "rel-bw", "--dir", workDir); code != 0 {
		t.Errorf("save baseline: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "run", "baseline-bw", "--lab", "rel", "--dir", workDir, "-o", "json"); code != 0 {
		t.Errorf("second run: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "config", "lint", "rel", "--dir", workDir); code != 0 {
		t.Errorf("lint from another directory: exit %d: %s", code, stderr)
	}
	// The spec's path narrows the runs as its lab's name does.
	t.Chdir(specDir)
	for _, args := range [][]string{{"results", "list", "--lab", "rel.yaml"}, {"report", "latest", "--lab", "./rel.yaml"}, {"regress", "latest", "--baseline", "rel-bw", "--lab", "rel.yaml"}} {
		if code, out, stderr := runCLI(t, append(args, "--dir", workDir)...); code != 0 || strings.Contains(out+stderr, "no run") {
			t.Errorf("%v: exit %d: %s%s", args, code, out, stderr)
		}
	}
}

// down takes a lab down from its state.json when its spec file moved or
// is gone (it failed "which no longer resolves", and the lab stayed up).
func TestDownAfterTheSpecMoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "gone.yaml")
	if err := os.WriteFile(spec, []byte("name: gone\nsizing:\n  gpus: 16\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "up", spec, "--dir", dir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	// A dry run says what it would do, on the simulator too (it printed
	// nothing), and changes nothing.
	if code, out, stderr := runCLI(t, "down", "gone", "--dry-run", "--dir", dir); code != 0 || !strings.Contains(out, "would mark lab gone down in") {
		t.Errorf("down --dry-run: exit %d: %s%s", code, out, stderr)
	}
	if err := os.Remove(spec); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "down", "gone", "--dir", dir)
	if code != 0 || !strings.Contains(stderr, "from what its state.json recorded") {
		t.Fatalf("down after the spec went: exit %d: %s", code, stderr)
	}
	if st, err := runtime.ReadState(filepath.Join(dir, "topologies", "gone")); err != nil || st == nil || st.State != runtime.StateDown {
		t.Errorf("state after down: %+v, %v", st, err)
	}
}

// A spec edited after up to give another fabric is refused by run until
// the lab is brought up again: its topology and configs are the old
// fabric's (run simulated the new fabric with them, with only lint's
// speed mismatches to show for it).
func TestRunRefusesASpecEditedSinceUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "grown.yaml")
	write := func(gpus int) {
		if err := os.WriteFile(spec, []byte(fmt.Sprintf("name: grown\nsizing:\n  gpus: %d\n", gpus)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(16)
	if code, _, stderr := runCLI(t, "up", spec, "--dir", dir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	write(32)
	code, _, stderr := runCLI(t, "run", "baseline-bw", "--lab", "grown", "--dir", dir)
	if code != 2 || !strings.Contains(stderr, "now gives another fabric than the lab was brought up with") || !strings.Contains(stderr, "labctl up grown") {
		t.Fatalf("run after the spec grew: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "up", spec, "--dir", dir); code != 0 {
		t.Fatalf("up again: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "run", "baseline-bw", "--lab", "grown", "--dir", dir); code != 0 {
		t.Errorf("run after up again: exit %d: %s", code, stderr)
	}
}

func TestDownOfUnknownLabIsExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "down", "nosuch", "--dir", dir); code != 2 || !strings.Contains(stderr, "no lab") {
		t.Errorf("down nosuch: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "down", "16gpu", "--dir", dir); code != 0 {
		t.Errorf("down of a catalog lab never up: exit %d: %s", code, stderr)
	}
}

// After 'up --nos eos', the lab stays EOS for render, lint and a plain up.
func TestLabKeepsTheNOSItWasBroughtUpWith(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "up", "16gpu", "--nos", "eos", "--dir", dir); code != 0 {
		t.Fatalf("up --nos eos: exit %d: %s", code, stderr)
	}
	if code, out, stderr := runCLI(t, "config", "render", "16gpu", "--dir", dir); code != 0 || !strings.Contains(out, "eos") {
		t.Errorf("render: exit %d: %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, "config", "lint", "16gpu", "--dir", dir); code != 0 {
		t.Errorf("lint: exit %d: %s", code, stderr)
	}
	if code, out, stderr := runCLI(t, "up", "16gpu", "--dir", dir, "-o", "json"); code != 0 || !strings.Contains(out, `"nos": "eos"`) {
		t.Errorf("plain up: exit %d: %s %s", code, out, stderr)
	}
	if _, err := os.Stat(dir + "/topologies/16gpu/configs/leaf1.json"); err == nil {
		t.Error("SONiC configs appeared in an EOS lab")
	}
}
