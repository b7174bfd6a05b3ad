//go:build unix

package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// RunLock is held by the process writing a run, for as long as it writes
// it: flock(2) on <run folder>/.writer.lock. The kernel drops the lock when
// the process dies however it dies (SIGKILL, a crash, the OOM killer), so
// a reader that finds a running record whose lock is free knows the run
// was abandoned; no pid guessing is needed.
type RunLock struct {
	f    *os.File
	path string
}

// LockRun takes the writer lock of run id, whose folder NewRunID made, and
// returns what to record as the run's writer.
func (s *Store) LockRun(id string) (*RunLock, *Writer, error) {
	path := filepath.Join(s.RunDir(id), WriterFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, errRunFolderGone
	}
	if err != nil {
		return nil, nil, exitcode.WriteFailed(path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil, fmt.Errorf("%w: lock run %s (fix: another process writes this run; start a new one)", errRunLockBusy, id)
		}
		return nil, nil, exitcode.Envf("lock run %s: %v (fix: another process writes this run; start a new one)", id, err)
	}
	// A repair in another process ('labctl results reindex') removes a
	// run folder that has no record and whose lock nobody holds, which a
	// folder just reserved is until the flock above. The lock counts only
	// if its file is still the one at path.
	if st, err := os.Stat(path); err != nil || !sameFile(f, st) {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		return nil, nil, errRunFolderGone
	}
	host, _ := os.Hostname()
	return &RunLock{f: f, path: path}, &Writer{PID: os.Getpid(), Host: host}, nil
}

func sameFile(f *os.File, st os.FileInfo) bool {
	fst, err := f.Stat()
	return err == nil && os.SameFile(fst, st)
}

// Release drops the lock and removes its file. Call it after the run's
// last save: a running record without a held lock reads as abandoned.
func (l *RunLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = os.Remove(l.path)
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// lockState says whether dir holds a writer lock file and whether a
// process holds the lock. It opens the file read-only and takes a shared
// lock for a moment, which works on a read-only file system too.
func lockState(dir string) (exists, held bool) {
	f, err := os.Open(filepath.Join(dir, WriterFile))
	if err != nil {
		return false, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return true, true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true, false
}

// withDeadWriter runs fn, which removes what a dead writer left in dir,
// only when no process writes the run there, and holds the run's lock
// while it does: a run starting at that moment cannot take the lock until
// fn is done, and then finds its lock file gone (LockRun) and starts over.
// It reports whether fn ran. Without a lock file nobody writes the run (a
// writer holds its lock from before its first save until after its last).
func withDeadWriter(dir string, fn func()) bool {
	path := filepath.Join(dir, WriterFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		fn()
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false
	}
	defer func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }()
	if st, err := os.Stat(path); err != nil || !sameFile(f, st) {
		return false
	}
	fn()
	return true
}

// writerGone reports whether the process writing the run in dir is known
// to be gone. The lock file decides when it exists; without it, a writer
// on this host is looked up by pid. A writer on another host, or a record
// from a labctl that recorded none, is not known to be gone.
func writerGone(dir string, w *Writer) bool {
	if exists, held := lockState(dir); exists {
		return !held
	}
	if w == nil || w.PID <= 0 {
		return false
	}
	if host, _ := os.Hostname(); host != w.Host {
		return false
	}
	return errors.Is(syscall.Kill(w.PID, 0), syscall.ESRCH)
}

// dirWritable says why this process cannot write in dir (EROFS on a
// read-only file system, EACCES without permission), or nil.
func dirWritable(dir string) error {
	const wOK = 2 // W_OK
	return syscall.Access(dir, wOK)
}
