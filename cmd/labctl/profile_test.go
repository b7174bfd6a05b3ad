package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestProfileFlags: the hidden --cpuprofile and --memprofile write pprof
// profiles of the command (gzipped protocol buffers), the allocations one
// with the functions that allocated. Not parallel: --memprofile sets the
// process's sampling rate.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	code, _, stderr := runCLI(t, "plan", "64gpu", "-o", "json", "--cpuprofile", cpu, "--memprofile", mem)
	if code != 0 {
		t.Fatalf("plan with profiles: exit %d: %s", code, stderr)
	}
	read := func(path string) []byte {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s is not a gzipped pprof profile: %v", path, err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return data
	}
	// A profile's string table holds its sample types and function names.
	if p := read(cpu); !bytes.Contains(p, []byte("cpu")) || !bytes.Contains(p, []byte("nanoseconds")) {
		t.Errorf("%s holds no CPU sample type", cpu)
	}
	p := read(mem)
	for _, want := range []string{"alloc_space", "newPlanCmd"} {
		if !bytes.Contains(p, []byte(want)) {
			t.Errorf("%s does not name %s", mem, want)
		}
	}
	// A profile it cannot write is the command's error, before it runs.
	code, _, stderr = runCLI(t, "plan", "64gpu", "--memprofile", filepath.Join(dir, "no", "such", "dir", "m.pprof"))
	if code == 0 {
		t.Errorf("--memprofile into a missing folder: exit 0, want an error (stderr %q)", stderr)
	}
}
