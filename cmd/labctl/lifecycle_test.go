//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMissingPrerequisiteLeavesGitClean is a user's lab folder kept in
// git, as a fresh clone of this repository holds it (the catalog's
// committed topologies), on a machine that lacks each live runtime's
// prerequisites: no containerlab on PATH, no Docker engine, no
// kubeconfig. Every 'labctl up' of a live runtime must exit 3 naming what
// is missing and change nothing: 'git status --porcelain' stays empty
// (no rewritten topology, no removed startup file, not even state.json or
// the lock, for which this repository has no .gitignore). Then the lab is
// as it was, never up: 'labctl down' succeeds, 'labctl status' lists it
// never-up without a log line, and a plain 'labctl up' keeps the NOS the
// lab had.
func TestMissingPrerequisiteLeavesGitClean(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "topologies"), os.DirFS(filepath.Join("..", "..", "topologies"))); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-C", dir, "-c", "user.name=labctl test", "-c", "user.email=test@labctl.invalid"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "labs")

	// The machine: an empty PATH (no containerlab), a Docker socket that
	// is not there, no kubeconfig anywhere ($KUBECONFIG and $HOME point at
	// nothing).
	nothing := t.TempDir()
	env := append(os.Environ(),
		"PATH="+filepath.Join(nothing, "bin"),
		"DOCKER_HOST=unix://"+filepath.Join(nothing, "docker.sock"),
		"KUBECONFIG="+filepath.Join(nothing, "kubeconfig"),
		"HOME="+nothing,
	)
	labctl := func(args ...string) childResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, labctlBinary(t), args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		if cmd.ProcessState == nil {
			t.Fatalf("labctl %s did not run", strings.Join(args, " "))
		}
		return childResult{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	}
	clean := func(after string) {
		t.Helper()
		if st := git("status", "--porcelain", "--untracked-files=all"); st != "" {
			t.Fatalf("after %s, git status is not clean:\n%s", after, st)
		}
	}
	labState := func(lab string) (state, nos string) {
		t.Helper()
		r := labctl("status", "-o", "json")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("status: exit %d, stderr %q", r.code, r.stderr)
		}
		var list struct {
			Labs []struct{ Lab, State, NOS string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
			t.Fatalf("status -o json: %v\n%s", err, r.stdout)
		}
		for _, s := range list.Labs {
			if s.Lab == lab {
				return s.State, s.NOS
			}
		}
		t.Fatalf("status does not list %s:\n%s", lab, r.stdout)
		return "", ""
	}

	for _, tc := range []struct {
		args []string
		lab  string
		want []string
	}{
		// --force: this test is about the prerequisites, not about the
		// machine's memory for the lab.
		{[]string{"up", "16gpu", "--runtime", "clab", "--force"}, "16gpu", []string{"containerlab is not installed", "docker engine", "labctl doctor --runtime clab"}},
		{[]string{"up", "16gpu", "--runtime", "clabernetes"}, "16gpu", []string{"no kubeconfig", "--kubeconfig"}},
		// The README's tour line: its 48 committed SONiC startup files and
		// topology must survive it.
		{[]string{"up", "1024gpu", "--nos", "eos", "--runtime", "clabernetes"}, "1024gpu", []string{"no kubeconfig"}},
	} {
		what := "labctl " + strings.Join(tc.args, " ")
		r := labctl(tc.args...)
		if r.code != 3 {
			t.Errorf("%s: exit %d, want 3\n%s", what, r.code, r.stderr)
		}
		for _, w := range append(tc.want, "nothing was changed") {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr does not say %q:\n%s", what, w, r.stderr)
			}
		}
		clean(what)
		// Nothing was written, so the committed topology is all there
		// is of the lab: never brought up, not down.
		if state, _ := labState(tc.lab); state != "never-up" {
			t.Errorf("after %s, lab %s is %s, want never-up", what, tc.lab, state)
		}
		if r := labctl("down", tc.lab); r.code != 0 || !strings.Contains(r.stdout, "not up") {
			t.Errorf("down %s after %s: exit %d\n%s%s", tc.lab, what, r.code, r.stdout, r.stderr)
		}
		clean("labctl down " + tc.lab)
	}

	// A plain up (the simulator) afterwards is the lab as committed:
	// SONiC, its files unchanged; only its state and lock are new.
	r := labctl("up", "1024gpu", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"nos": "sonic"`) {
		t.Fatalf("plain up 1024gpu: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	st := git("status", "--porcelain", "--untracked-files=all")
	if want := "?? topologies/1024gpu/.lock\n?? topologies/1024gpu/state.json\n"; st != want {
		t.Errorf("after a plain up, git status:\n%swant:\n%s", st, want)
	}
}

// status of failed labs prints no log line: a lab whose up failed before
// anything was deployed has nothing to ask its runtime about, an old
// clabernetes lab that never reached a cluster is down there, and a
// runtime that cannot answer is said under the table, with the lab.
func TestStatusOfFailedLabsLogsNothing(t *testing.T) {
	dir := t.TempDir()
	nothing := t.TempDir()
	t.Setenv("PATH", filepath.Join(nothing, "bin"))
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(nothing, "docker.sock"))
	t.Setenv("KUBECONFIG", filepath.Join(nothing, "kubeconfig"))
	t.Setenv("HOME", nothing)
	write := func(lab, state string) {
		t.Helper()
		p := filepath.Join(dir, "topologies", lab, "state.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(state), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Failed before the deploy (this labctl records it).
	write("16gpu", `{"schema_version":1,"lab":"16gpu","runtime":"clab","nos":"sonic","state":"failed","nodes":[],"spec":"catalog:16gpu","error":"prepare lab 16gpu: render failed","nothing_deployed":true}`)
	// Failed at a missing kubeconfig, as an older labctl recorded it.
	write("64gpu", `{"schema_version":1,"lab":"64gpu","runtime":"clabernetes","nos":"sonic","state":"failed","nodes":null,"spec":"catalog:64gpu","error":"bring up lab 64gpu with clabernetes: no kubeconfig"}`)
	// Failed in the deploy: containers may run, and Docker cannot say.
	write("128gpu", `{"schema_version":1,"lab":"128gpu","runtime":"clab","nos":"sonic","state":"failed","nodes":[],"spec":"catalog:128gpu","error":"bring up lab 128gpu with clab: push to leaf1 failed"}`)

	code, out, stderr := runCLI(t, "status", "--dir", dir)
	if code != 0 || stderr != "" {
		t.Fatalf("status: exit %d, stderr %q (want none: no log line)\n%s", code, stderr, out)
	}
	for _, want := range []string{
		"16gpu: error: prepare lab 16gpu: render failed",
		"64gpu: error: bring up lab 64gpu with clabernetes: no kubeconfig",
		"lab 128gpu: which of its nodes run is unknown",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "lab 16gpu: which") || strings.Contains(out, "lab 64gpu: which") {
		t.Errorf("status asked a runtime about a lab that has nothing deployed:\n%s", out)
	}
	// Both labs that never deployed are taken down without their runtime
	// (none is installed here).
	for _, lab := range []string{"16gpu", "64gpu"} {
		if code, out, stderr := runCLI(t, "down", lab, "--dir", dir); code != 0 || !strings.Contains(out, "down") {
			t.Errorf("down %s: exit %d\n%s%s", lab, code, out, stderr)
		}
	}
}
