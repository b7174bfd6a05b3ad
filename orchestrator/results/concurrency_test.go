//go:build unix

package results

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Several processes opening a new results.db at once (here stores, each
// with its own connection, which SQLite locks against each other as it
// does processes): every Open succeeds, the schema is created once, and
// every run saved right after is listed. Reading the schema version
// outside the migration's transaction failed here with "table runs
// already exists".
func TestConcurrentOpenOfNewIndex(t *testing.T) {
	const writers = 8
	for round := range 5 {
		dir := t.TempDir()
		var start, done sync.WaitGroup
		start.Add(1)
		errs := make([]error, writers)
		for w := range writers {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				s, err := Open(dir)
				if err != nil {
					errs[w] = err
					return
				}
				defer s.Close()
				errs[w] = s.SaveRun(syntheticRun(fmt.Sprintf("20261129T12%02d00Z-w%d", w, w), t0.Add(time.Duration(w)*time.Minute)))
			}()
		}
		start.Done()
		done.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("round %d, writer %d: %v", round, w, err)
			}
		}
		s := openTestStore(t, dir)
		list, err := s.List(Filter{})
		if err != nil || len(list) != writers {
			t.Fatalf("round %d: %d runs listed (%v), want %d", round, len(list), err, writers)
		}
		var v int
		if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
			t.Fatalf("round %d: user_version %d (%v), want %d", round, v, err, len(migrations))
		}
	}
}

// The read-write index waits for another process's write rather than
// failing with SQLITE_BUSY at once, and is in WAL mode (readers do not
// wait for a run being saved).
func TestIndexBusyTimeout(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	var ms int64
	if err := s.db.QueryRow(`PRAGMA busy_timeout`).Scan(&ms); err != nil {
		t.Fatal(err)
	}
	if ms != busyTimeout.Milliseconds() {
		t.Errorf("busy_timeout = %d ms, want %d", ms, busyTimeout.Milliseconds())
	}
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
}

// StartRun reserves distinct ids and holds each one's lock, while another
// process repairs the store over and over (removing folders without a
// record whose lock is free): no run loses its folder or its lock.
func TestStartRunUnderConcurrentRepair(t *testing.T) {
	dir := t.TempDir()
	repairer := openTestStore(t, dir)
	stop := make(chan struct{})
	var repairs sync.WaitGroup
	// Stopped before the stores close, on a failure too.
	stopRepairs := sync.OnceFunc(func() { close(stop); repairs.Wait() })
	defer stopRepairs()
	repairs.Add(1)
	go func() {
		defer repairs.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := repairer.Repair(); err != nil {
				t.Errorf("Repair: %v", err)
				return
			}
		}
	}()
	const runs = 200
	s := openTestStore(t, dir)
	ids := map[string]bool{}
	var locks []*RunLock
	for range runs {
		id, lock, w, err := s.StartRun(t0, "ecn-pfc", "64gpu")
		if err != nil {
			t.Fatal(err)
		}
		if ids[id] || w == nil || w.PID != os.Getpid() {
			t.Fatalf("StartRun gave %s again (or no writer %v)", id, w)
		}
		ids[id] = true
		locks = append(locks, lock)
	}
	stopRepairs()
	for id := range ids {
		if exists, held := lockState(s.RunDir(id)); !exists || !held {
			t.Errorf("run %s: lock file there %v, held %v; want both", id, exists, held)
		}
	}
	for _, l := range locks {
		l.Release()
	}
	// Once released without a record, a repair removes them all.
	if r, err := s.Repair(); err != nil || r.Removed != runs {
		t.Errorf("Repair after release = %+v, %v; want %d removed", r, err, runs)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "20261129T120000Z-*")); len(left) != 0 {
		t.Errorf("folders left: %v", left)
	}
}
