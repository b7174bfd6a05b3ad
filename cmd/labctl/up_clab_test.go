package main

import (
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// up --runtime clab must refuse a lab this machine cannot hold, naming the
// estimate and suggesting the simulator, before anything starts.
func TestUpClabRefusesLabTooBigForMachine(t *testing.T) {
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
