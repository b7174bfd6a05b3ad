//go:build !unix

package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// Lock is a held lab lock: without flock(2) it is a file created with
// O_EXCL holding the holder's pid; a lock whose process is gone is stale
// and taken over.
type Lock struct{ path string }

// Acquire creates the lock file at path, or names its holder.
func Acquire(path, command string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	b, _ := json.Marshal(Holder{PID: os.Getpid(), Host: host, Command: command, Since: time.Now().UTC()})
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.Write(append(b, '\n'))
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("lock %s: %w", path, werr)
			}
			return &Lock{path: path}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		var h Holder
		data, _ := os.ReadFile(path)
		if json.Unmarshal(data, &h) == nil && h.PID > 0 {
			if _, err := os.FindProcess(h.PID); err == nil && h.Host == host {
				return nil, exitcode.Usage(fmt.Errorf("%w: %s holds %s; wait for it to finish (or stop that process) and retry", ErrLocked, h, path))
			}
		}
		// Stale: its process is gone (or the file is unreadable).
		os.Remove(path)
	}
	return nil, exitcode.Usage(fmt.Errorf("%w: %s keeps reappearing; remove it if no labctl runs", ErrLocked, path))
}

// Release removes the lock file.
func (l *Lock) Release() error {
	if l == nil || l.path == "" {
		return nil
	}
	err := os.Remove(l.path)
	l.path = ""
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("release lock: %w", err)
	}
	return nil
}
