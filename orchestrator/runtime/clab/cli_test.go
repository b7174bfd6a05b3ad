package clab

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// fakeRunner records argv and answers with canned output.
type fakeRunner struct {
	calls  [][]string
	stdout string
	stderr string
	err    error
}

func (f *fakeRunner) Run(_ context.Context, argv []string) ([]byte, []byte, error) {
	f.calls = append(f.calls, argv)
	return []byte(f.stdout), []byte(f.stderr), f.err
}

func TestCLIArgs(t *testing.T) {
	c := CLI{Binary: "/usr/bin/containerlab"}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"deploy", c.DeployArgs("t.clab.yml", 4), []string{"/usr/bin/containerlab", "deploy", "-t", "t.clab.yml", "--reconfigure", "--max-workers", "4"}},
		{"deploy default workers", c.DeployArgs("t.clab.yml", 0), []string{"/usr/bin/containerlab", "deploy", "-t", "t.clab.yml", "--reconfigure"}},
		{"destroy", c.DestroyArgs("t.clab.yml"), []string{"/usr/bin/containerlab", "destroy", "-t", "t.clab.yml", "--cleanup"}},
		{"inspect", c.InspectArgs("t.clab.yml"), []string{"/usr/bin/containerlab", "inspect", "-t", "t.clab.yml", "--format", "json"}},
		{"default binary", CLI{}.DestroyArgs("x"), []string{"containerlab", "destroy", "-t", "x", "--cleanup"}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: argv = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestCLIErrorsNameCommandAndOutput(t *testing.T) {
	r := &fakeRunner{stderr: "Error: failed to create node leaf1: Error response from daemon: privileged mode is incompatible\n", err: errors.New("exit status 1")}
	err := CLI{Runner: r}.Deploy(context.Background(), "lab.clab.yml", 2)
	if err == nil {
		t.Fatal("Deploy succeeded with a failing command")
	}
	var ce *CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("error %T is not a *CommandError", err)
	}
	for _, want := range []string{"containerlab deploy -t lab.clab.yml --reconfigure --max-workers 2", "exit status 1", "privileged mode is incompatible"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestCLIErrorFallsBackToStdout(t *testing.T) {
	r := &fakeRunner{stdout: "level=fatal msg=\"no containers found\"", err: errors.New("exit status 1")}
	err := CLI{Runner: r}.Destroy(context.Background(), "lab.clab.yml")
	if err == nil || !strings.Contains(err.Error(), "no containers found") {
		t.Fatalf("error %v does not carry stdout", err)
	}
}

func TestCLIInspect(t *testing.T) {
	b, err := os.ReadFile("testdata/inspect-0.79.json")
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRunner{stdout: string(b)}
	cs, err := CLI{Runner: r}.Inspect(context.Background(), "lab.clab.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].NodeName() != "h1" || cs[1].NodeName() != "leaf1" {
		t.Fatalf("containers = %+v", cs)
	}
	if cs[1].Kind != "sonic-vs" || cs[1].IPv4Address != "172.20.20.3/24" || cs[1].State != "running" {
		t.Errorf("leaf1 = %+v", cs[1])
	}
}

func TestExecRunner(t *testing.T) {
	out, _, err := ExecRunner{}.Run(context.Background(), []string{"sh", "-c", "echo out; echo err >&2"})
	if err != nil || strings.TrimSpace(string(out)) != "out" {
		t.Fatalf("Run = %q, %v", out, err)
	}
	_, err = runChecked(context.Background(), ExecRunner{}, []string{"sh", "-c", "echo boom >&2; exit 3"})
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("runChecked error = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = runChecked(ctx, ExecRunner{}, []string{"sleep", "10"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run error = %v, want context.Canceled", err)
	}
}

func TestParseVersion(t *testing.T) {
	tests := map[string]string{
		"  _ _       _\n version: 0.79.0\n  commit: abc\n": "0.79.0",
		"version: v0.54.2\n": "0.54.2",
		"no version here":    "",
	}
	for in, want := range tests {
		if got := ParseVersion(in); got != want {
			t.Errorf("ParseVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExecRunnerProgress(t *testing.T) {
	var progress strings.Builder
	_, stderr, err := ExecRunner{Progress: &progress}.Run(context.Background(), []string{"sh", "-c", "echo step1 >&2; echo out"})
	if err != nil || strings.TrimSpace(string(stderr)) != "step1" || strings.TrimSpace(progress.String()) != "step1" {
		t.Fatalf("stderr %q, progress %q, err %v", stderr, progress.String(), err)
	}
}
