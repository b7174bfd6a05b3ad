//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The corpus and crash tests run labctl as a child process, as users do:
// exit codes, stderr, signals and the child's peak memory (rusage) are
// then those of the real binary.

// childResult is what one labctl process did.
type childResult struct {
	code           int
	stdout, stderr string
	maxRSSKiB      int64 // peak resident memory (Linux ru_maxrss is in KiB)
}

// runChild runs labctl with args in dir. stdin, when not nil, is copied
// to the child until it exits (an endless reader models `yes |`).
func runChild(t *testing.T, dir string, stdin io.Reader, args ...string) childResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, labctlBinary(t), args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// A pipe's copier goroutine must not keep Wait waiting once the child
	// has exited without reading all of an endless stdin.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	res := childResult{stdout: out.String(), stderr: errb.String(), code: -1}
	if cmd.ProcessState != nil {
		res.code = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.maxRSSKiB = ru.Maxrss
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("labctl %s: timed out\n%s", strings.Join(args, " "), res.stderr)
	}
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("labctl %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// endless is a stdin that never ends, like `yes`.
type endless struct{ line []byte }

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.line[i%len(e.line)]
	}
	return len(p), nil
}
