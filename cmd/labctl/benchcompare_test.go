package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
