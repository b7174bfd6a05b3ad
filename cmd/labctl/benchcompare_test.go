package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/scenario"
)

// TestBenchCompareCases: the cases `make bench-compare` runs (bench/compare)
// stay what bench/compare.sh and htsim's inputs assume: the fabric shapes it
// writes htsim's topologies for, and lossless runs without ECN (htsim's
// RoCE has no congestion control). An edit that changes either fails here,
// not only when someone runs the bench.
func TestBenchCompareCases(t *testing.T) {
	dir := filepath.Join("..", "..", "bench", "compare")
	for _, c := range []struct {
		lab                     string
		servers, leaves, spines int
	}{{"incast-lab", 9, 1, 0}, {"perm128-lab", 16, 4, 2}, {"perm1024-lab", 128, 32, 16}} {
		code, out, stderr := runCLI(t, "plan", filepath.Join(dir, c.lab+".yaml"), "-o", "json")
		if code != 0 {
			t.Fatalf("plan %s: exit %d: %s", c.lab, code, stderr)
		}
		var p struct {
			Servers int
			Leaf    struct{ Count int }
			Spine   *struct{ Count int }
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		spines := 0
		if p.Spine != nil {
			spines = p.Spine.Count
		}
		if p.Servers != c.servers || p.Leaf.Count != c.leaves || spines != c.spines {
			t.Errorf("%s: %d servers, %d leaves, %d spines; bench/compare.sh expects %d, %d, %d",
				c.lab, p.Servers, p.Leaf.Count, spines, c.servers, c.leaves, c.spines)
		}
	}
	for _, name := range []string{"incast.yaml", "permutation.yaml"} {
		file := filepath.Join(dir, name)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := scenario.Parse(file, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Matrix.ECN) != 1 || s.Matrix.ECN[0] != "off" || len(s.Matrix.PFC) != 1 || s.Matrix.PFC[0] != "on" {
			t.Errorf("%s: matrix ecn %v pfc %v; the comparison is one lossless variant without ECN", name, s.Matrix.ECN, s.Matrix.PFC)
		}
	}
}

// runBenchScript runs bench/NAME with bash, the environment plus env, and
// returns its exit code, stdout and stderr.
func runBenchScript(t *testing.T, name string, env ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "..", "bench", name))
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestBenchInstr: `make bench-instr` (bench/instr.sh) runs the incast under
// cachegrind and reports its instructions and misses per event of the run
// record; a bad case or a machine without valgrind is told so, exit 2.
func TestBenchInstr(t *testing.T) {
	run := func(env ...string) (int, string, string) { return runBenchScript(t, "instr.sh", env...) }
	if code, _, stderr := run("CASES=incast perm4096"); code != 2 || !strings.Contains(stderr, "unknown case perm4096") {
		t.Errorf("CASES=perm4096: exit %d, stderr %q; want 2 naming the case", code, stderr)
	}
	// bash alone on PATH: no valgrind.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	empty := t.TempDir()
	if err := os.Symlink(bash, filepath.Join(empty, "bash")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run("PATH=" + empty); code != 2 || !strings.Contains(stderr, "apt-get install valgrind") {
		t.Errorf("without valgrind: exit %d, stderr %q; want 2 saying how to install it", code, stderr)
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("valgrind is not installed; .ci/run installs it")
		}
		t.Skip("valgrind is not installed (apt-get install valgrind): bench/instr.sh not run")
	}
	code, out, stderr := run("CASES=incast", "TOP=3")
	if code != 0 {
		t.Fatalf("bench/instr.sh: exit %d\n%s\n%s", code, out, stderr)
	}
	m := regexp.MustCompile(`incast: (\d+) instructions, (\d+) L1 data misses, (\d+) events`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no incast summary line in:\n%s", out)
	}
	ir, _ := strconv.ParseFloat(m[1], 64)
	events, _ := strconv.ParseFloat(m[3], 64)
	// The 8:1 incast of 100 MB flows: some 0.9 M events of a few hundred
	// instructions each, plus the process around them.
	if events < 1e5 || ir/events < 100 || ir/events > 10_000 {
		t.Errorf("%.0f instructions for %.0f events: not an engine's count", ir, events)
	}
	if !strings.Contains(out, "per event (whole process)") || strings.Count(out, "%)") != 3 {
		t.Errorf("want the per-event line and the top 3 functions:\n%s", out)
	}
}

// TestBenchFixed: `make bench-fixed` (bench/fixed.sh) times a one-line Go
// program, `labctl version`, the bench incast with 4 KB flows and the
// incast itself, prints the machine's page fault and system call costs and
// one row each (the script itself stops when
// the incast's scenario has no 100 MB line to shrink); a bad REPS is told
// so, exit 2. No figure is judged: CPU times are the machine's.
func TestBenchFixed(t *testing.T) {
	run := func(env ...string) (int, string, string) { return runBenchScript(t, "fixed.sh", env...) }
	if code, _, stderr := run("REPS=two"); code != 2 || !strings.Contains(stderr, "REPS=two must be a whole number") {
		t.Errorf("REPS=two: exit %d, stderr %q; want 2 naming REPS", code, stderr)
	}
	code, out, stderr := run("REPS=1")
	if code != 0 {
		t.Fatalf("bench/fixed.sh: exit %d\n%s\n%s", code, out, stderr)
	}
	row := regexp.MustCompile(`(?m)^\| (.+?) \| ([0-9.]+) \| [0-9.]+-[0-9.]+ \| (\d+|n/a[^|]*) \|$`)
	rows := row.FindAllStringSubmatch(out, -1)
	if len(rows) != 4 {
		t.Fatalf("want 4 rows (Go program, version, small run, incast), got %d:\n%s", len(rows), out)
	}
	if !strings.Contains(rows[2][1], "4 KB") || !strings.Contains(rows[3][1], "100 MB") {
		t.Errorf("rows 3 and 4 are not the small run and the incast:\n%s", out)
	}
	if v, _ := strconv.ParseFloat(rows[3][2], 64); v <= 0 {
		t.Errorf("the incast's CPU is %q ms: not measured\n%s", rows[3][2], out)
	}
	// The header says what the machine's page faults and system calls
	// cost (bench/machine), which the rows' figures depend on.
	costs := regexp.MustCompile(`This machine after the runs: a page fault ([0-9.]+) µs, a system call ([0-9.]+) µs\.`).FindStringSubmatch(out)
	if costs == nil {
		t.Errorf("no line with the machine's page fault and system call costs:\n%s", out)
	} else if f, _ := strconv.ParseFloat(costs[1], 64); f <= 0 {
		t.Errorf("page fault cost %s µs: not measured", costs[1])
	}
}
