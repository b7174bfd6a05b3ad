package exitcode

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFailed(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "results/x/.run.json.tmp-1", Err: syscall.ENOSPC}, "cannot write results/x/run.json: no space left on device (fix: free space on the file system that holds results/x"},
		{fmt.Errorf("write: %w", syscall.EROFS), "read-only file system (fix: results/x is on a read-only file system"},
		{syscall.EACCES, "(fix: make results/x writable"},
		{syscall.EIO, "reported an I/O error"},
		{errors.New("odd"), "cannot write results/x/run.json: odd (fix: check that results/x is writable"},
	} {
		err := WriteFailed("results/x/run.json", tt.err)
		if Code(err) != Environment || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v (exit %d), want exit 3 with %q", tt.err, err, Code(err), tt.want)
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("%v is not wrapped", tt.err)
		}
	}
	if WriteFailed("x", nil) != nil {
		t.Error("WriteFailed(nil) is not nil")
	}
	// Classified once: the inner path and fix stay.
	inner := WriteFailed("a/b", syscall.ENOSPC)
	if got := WriteFailed("c/d", fmt.Errorf("save: %w", inner)); !strings.Contains(got.Error(), "a/b") || strings.Count(got.Error(), "fix:") != 1 {
		t.Errorf("re-classified: %v", got)
	}
}

func TestCode(t *testing.T) {
	if Code(nil) != OK || Code(errors.New("x")) != CheckFailed || Code(Usagef("x")) != BadInput || Code(fmt.Errorf("w: %w", Envf("x"))) != Environment {
		t.Error("Code is wrong")
	}
}
