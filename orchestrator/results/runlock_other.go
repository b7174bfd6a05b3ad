//go:build !unix

package results

import (
	"os"
	"path/filepath"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// RunLock marks the run a process writes. Without flock(2) a dead writer
// cannot be told from a live one, so records stay running until their
// writer finishes them.
type RunLock struct{ path string }

// LockRun creates the run's writer file and returns what to record as the
// run's writer.
func (s *Store) LockRun(id string) (*RunLock, *Writer, error) {
	path := filepath.Join(s.RunDir(id), WriterFile)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		return nil, nil, exitcode.WriteFailed(path, err)
	}
	host, _ := os.Hostname()
	return &RunLock{path: path}, &Writer{PID: os.Getpid(), Host: host}, nil
}

// Release removes the writer file.
func (l *RunLock) Release() error {
	if l == nil {
		return nil
	}
	return os.Remove(l.path)
}

func lockState(dir string) (exists, held bool) {
	_, err := os.Stat(filepath.Join(dir, WriterFile))
	return err == nil, err == nil
}

func writerGone(dir string, w *Writer) bool { return false }

// withDeadWriter runs fn only when dir has no writer file (see the unix
// version).
func withDeadWriter(dir string, fn func()) bool {
	if _, err := os.Stat(filepath.Join(dir, WriterFile)); err == nil {
		return false
	}
	fn()
	return true
}

// dirWritable is not checked where access(2) is not at hand.
func dirWritable(string) error { return nil }
