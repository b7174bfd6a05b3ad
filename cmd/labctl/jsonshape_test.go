package main

import (
	"encoding/json"
	"testing"
)

// Every -o json output is one JSON object with a schema_version, whatever
// the data (no lab, one lab, many), so that a script reads one shape:
// `labs` printed a bare array, `status` an object for one lab and an
// array for two, and `version` had no schema_version.
func TestJSONOutputsCarrySchemaVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	check := func(args ...string) map[string]any {
		t.Helper()
		args = append(args, "--dir", dir, "-o", "json")
		code, out, stderr := runCLI(t, args...)
		if code != 0 && code != 1 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatalf("%v: not one JSON object: %v\n%.300s", args, err, out)
		}
		if v, ok := obj["schema_version"].(float64); !ok || v != 1 {
			t.Errorf("%v: schema_version %v, want 1", args, obj["schema_version"])
		}
		return obj
	}
	labsOf := func(obj map[string]any) int {
		labs, ok := obj["labs"].([]any)
		if !ok {
			t.Fatalf("no labs list: %v", obj)
		}
		return len(labs)
	}
	if n := labsOf(check("status")); n != 0 {
		t.Errorf("status with no lab up lists %d", n)
	}
	if code, _, stderr := runCLI(t, "up", "16gpu", "--dir", dir); code != 0 {
		t.Fatalf("up: %s", stderr)
	}
	if n := labsOf(check("status")); n != 1 {
		t.Errorf("status with one lab up lists %d", n)
	}
	if lab := check("status", "16gpu")["lab"]; lab != "16gpu" {
		t.Errorf("status 16gpu: lab %v", lab)
	}
	if n := labsOf(check("labs")); n < 4 {
		t.Errorf("labs lists %d", n)
	}
	for _, args := range [][]string{
		{"version"}, {"plan", "16gpu"}, {"topo", "16gpu"}, {"config", "lint", "16gpu"},
		{"doctor"}, {"results", "list"}, {"run", "incast", "--lab", "16gpu"},
		{"report", "latest"}, {"regress", "--save-baseline", "latest", "shape"}, {"run", "incast", "--lab", "16gpu"},
	} {
		check(args...)
	}
	// regress compares the latest run with the one before (with itself
	// it refuses: exit 2).
	runs, _ := check("results", "list")["runs"].([]any)
	if len(runs) < 2 {
		t.Fatalf("results list has %d runs, want 2", len(runs))
	}
	before, _ := runs[1].(map[string]any)["run_id"].(string)
	check("regress", "latest", "--baseline", before)
	if code, _, stderr := runCLI(t, "up", "64gpu", "--dir", dir); code != 0 {
		t.Fatalf("up 64gpu: %s", stderr)
	}
	if n := labsOf(check("status")); n != 2 {
		t.Errorf("status with two labs up lists %d", n)
	}
}
