//go:build unix

package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// Lock is a held lab lock. It uses flock(2) on topologies/<lab>/.lock, so
// the kernel releases it when the holder dies: a lock left by a crashed
// command is never stale, and no pid guessing is needed to break it.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock file at path without waiting. command names what
// is taking it (e.g. "labctl up 64gpu"). When another process holds it the
// error names the holder and is a usage error (exit 2).
func Acquire(path, command string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, exitcode.Envf("lock %s: %v (fix: use a writable --dir)", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, exitcode.Envf("lock %s: %v (fix: use a writable --dir)", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another process"
			if h, ok := readHolder(f); ok {
				who = h.String()
			}
			return nil, exitcode.Usage(fmt.Errorf("%w: %s holds %s; wait for it to finish (or stop that process) and retry", ErrLocked, who, path))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	h := Holder{PID: os.Getpid(), Host: host, Command: command, Since: time.Now().UTC()}
	b, _ := json.Marshal(h)
	// The content is informational: rewrite it in place under the lock.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(append(b, '\n'), 0)
	}
	return &Lock{f: f, path: path}, nil
}

// Release frees the lock. The file stays: removing a flock'ed file lets two
// processes lock two different inodes under the same name.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("release lock %s: %w", l.path, err)
	}
	return nil
}

func readHolder(f *os.File) (Holder, bool) {
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	var h Holder
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(buf[:n]))), &h); err != nil || h.PID == 0 {
		return Holder{}, false
	}
	return h, true
}
