package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRunSetup measures what `labctl run` spends outside the engine:
// bench/compare's 128-NIC permutation cut to 1 µs of simulated time, so
// that loading and linting the lab's configs, the record's QoS, the
// engine's config and writing run.json, the index and the reports are
// (almost) all that is left.
func BenchmarkRunSetup(b *testing.B) {
	root := filepath.Join("..", "..", "bench", "compare")
	dir := upLab(b, filepath.Join(root, "perm128-lab.yaml"))
	spec, err := os.ReadFile(filepath.Join(root, "permutation.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	tiny := filepath.Join(b.TempDir(), "ptiny.yaml")
	if err := os.WriteFile(tiny, []byte(strings.Replace(string(spec), "duration: 1ms", "duration: 1us", 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var out, errb strings.Builder
		if code := run(context.Background(), []string{"run", tiny, "--lab", "bench-perm128", "--dir", dir, "-o", "json"}, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
