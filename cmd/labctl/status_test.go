package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/runtime"
)

// After a failed up, status shows the containers that still run, not the
// recorded "0/0 running".
func TestStatusShowsWhatRunsAfterAFailedUp(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	// containerlab's inspect answers that the lab's 4 containers run.
	var cs []map[string]string
	for i, node := range []string{"spine1", "leaf1", "host1", "host2"} {
		cs = append(cs, map[string]string{"lab_name": "16gpu", "name": "clab-16gpu-" + node, "image": "img", "kind": "linux", "state": "running", "ipv4_address": fmt.Sprintf("172.20.20.%d/24", i+2)})
	}
	inspect, _ := json.Marshal(map[string]any{"16gpu": cs})
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "inspect.json"), inspect, 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$1\" in inspect) cat '" + filepath.Join(bin, "inspect.json") + "' ;; *) exit 1 ;; esac\n"
	if err := os.WriteFile(filepath.Join(bin, "containerlab"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	labDir := filepath.Join(dir, "topologies", "16gpu")
	now := time.Now().UTC()
	st := &runtime.Status{Lab: "16gpu", Runtime: "clab", NOS: "sonic", State: runtime.StateFailed, Spec: "catalog:16gpu",
		Created: now, Updated: now, Error: "bring up lab 16gpu with clab: soft-RoCE is not ready on the hosts"}
	if err := os.MkdirAll(labDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runtime.WriteState(labDir, st); err != nil {
		t.Fatal(err)
	}

	code, out, stderr := runCLI(t, "status", "16gpu", "--dir", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got runtime.Status
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, n := range got.Nodes {
		if n.State == runtime.NodeRunning {
			running++
		}
	}
	if got.State != runtime.StateFailed || len(got.Nodes) != 4 || running != 4 {
		t.Errorf("status: state %s, %d nodes, %d running; want failed with 4 running\n%s", got.State, len(got.Nodes), running, out)
	}

	for _, args := range [][]string{{"status", "16gpu"}, {"status"}} {
		code, out, stderr = runCLI(t, append(args, "--dir", dir)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for _, want := range []string{"failed", "4/4 running", "4 of its containers still run although the lab is failed; 'labctl down 16gpu' removes them"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v lacks %q:\n%s", args, want, out)
			}
		}
	}
}

// A lab whose topology was rendered (labctl topo) but never brought up is
// listed as never-up, in JSON without Go zero values that read as facts
// (runtime "", year-1 times, schema_version 0) and in the table without
// "0/0 running"; status of it exits 0 (it exists; never up is its state),
// and down stays a no-op that writes no state.json.
func TestStatusOfALabNeverUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, "topo", "16gpu", "--dir", dir); code != 0 {
		t.Fatalf("topo: exit %d: %s", code, stderr)
	}
	check := func(what string, entry map[string]any) {
		t.Helper()
		if entry["state"] != runtime.StateNeverUp || entry["schema_version"] != float64(runtime.StateSchemaVersion) {
			t.Errorf("%s: state %v schema_version %v, want %s and %d", what, entry["state"], entry["schema_version"], runtime.StateNeverUp, runtime.StateSchemaVersion)
		}
		for _, k := range []string{"runtime", "created", "updated"} {
			if v, ok := entry[k]; ok {
				t.Errorf("%s: %s is %v, want it absent", what, k, v)
			}
		}
		if entry["nodes"] != nil {
			t.Errorf("%s: nodes %v, want none", what, entry["nodes"])
		}
	}
	code, out, stderr := runCLI(t, "status", "--dir", dir, "-o", "json")
	var list struct {
		Labs []map[string]any `json:"labs"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list.Labs) != 1 {
		t.Fatalf("status -o json: exit %d, %v: %s%s", code, err, out, stderr)
	}
	check("status -o json", list.Labs[0])
	for _, args := range [][]string{{"status", "16gpu", "-o", "json"}, {"down", "16gpu", "-o", "json"}} {
		code, out, stderr := runCLI(t, append(args, "--dir", dir)...)
		var entry map[string]any
		if err := json.Unmarshal([]byte(out), &entry); err != nil || code != 0 {
			t.Fatalf("%v: exit %d, %v: %s%s", args, code, err, out, stderr)
		}
		check(strings.Join(args, " "), entry)
	}
	for _, args := range [][]string{{"status"}, {"status", "16gpu"}} {
		code, out, stderr := runCLI(t, append(args, "--dir", dir)...)
		if code != 0 || !strings.Contains(out, "never-up") || strings.Contains(out, "0/0 running") || !strings.Contains(out, "never brought up; 'labctl up 16gpu' brings it up") {
			t.Errorf("%v: exit %d:\n%s%s", args, code, out, stderr)
		}
	}
	if code, out, stderr := runCLI(t, "down", "16gpu", "--dir", dir); code != 0 || !strings.Contains(out, "never brought up") {
		t.Errorf("down: exit %d: %s%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies", "16gpu", runtime.StateFile)); err == nil {
		t.Error("down of a lab never up wrote a state.json")
	}
}
