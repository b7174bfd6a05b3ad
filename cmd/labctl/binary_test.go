package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Some tests run labctl as a child process, as users do: the corpus and
// crash tests (child_test.go) and the exercises guide (docs_test.go).

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// labctlBinary builds labctl once per test binary run.
func labctlBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "labctl-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "labctl")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("build labctl: %v", buildErr)
	}
	return builtBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// TestMain removes the labctl binary the tests built (67 MB in the
// temporary directory per run otherwise).
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}
