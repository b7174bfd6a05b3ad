//go:build unix

package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// runningRun is a record saved mid-run (one of four variants done).
func runningRun(id string) *Run {
	r := syntheticRun(id, t0)
	r.Status, r.Finished = StatusRunning, nil
	r.VariantsPlanned = len(r.Variants)
	r.Variants = r.Variants[:1]
	return r
}

func statusOf(t *testing.T, s *Store, id string) (listed, found string) {
	t.Helper()
	runs, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.RunID == id {
			listed = r.Status
		}
	}
	run, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return listed, run.Status
}

// A running record whose writer holds its lock is running; once the lock
// is free (the process died) every reader shows it abandoned, and Repair
// writes that into run.json.
func TestAbandonedRunDetectedAndRepaired(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	id := "20261129T120000Z-ecn-pfc-64gpu"
	if err := os.MkdirAll(s.RunDir(id), 0o755); err != nil {
		t.Fatal(err)
	}
	lock, writer, err := s.LockRun(id)
	if err != nil {
		t.Fatal(err)
	}
	run := runningRun(id)
	run.Writer = writer
	saveRuns(t, s, run)
	if l, f := statusOf(t, s, id); l != StatusRunning || f != StatusRunning {
		t.Errorf("with the writer alive: list %s, get %s; want running", l, f)
	}
	// The writer dies: its lock file stays, nobody holds it.
	lock.f.Close()
	lock.f = nil
	if l, f := statusOf(t, s, id); l != StatusAbandoned || f != StatusAbandoned {
		t.Errorf("with the writer gone: list %s, get %s; want abandoned", l, f)
	}
	if runs, _ := s.List(Filter{Status: StatusAbandoned}); len(runs) != 1 {
		t.Errorf("--status abandoned lists %d runs", len(runs))
	}
	if runs, _ := s.List(Filter{Status: StatusRunning}); len(runs) != 0 {
		t.Errorf("--status running lists %d runs", len(runs))
	}
	r, err := s.Repair()
	if err != nil || r.Abandoned != 1 || r.Indexed != 1 {
		t.Fatalf("Repair = %+v, %v", r, err)
	}
	onDisk, err := ReadRunFile(filepath.Join(s.RunDir(id), RunFile))
	if err != nil || onDisk.Status != StatusAbandoned || onDisk.Finished == nil || !strings.Contains(onDisk.Error, "abandoned") {
		t.Errorf("run.json after repair: %v %+v", err, onDisk)
	}
	if _, err := os.Stat(filepath.Join(s.RunDir(id), WriterFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead writer's lock file stays: %v", err)
	}
}

// Without a lock file, a writer on this host is looked up by pid; a record
// without writer (an older labctl) is not known to be abandoned.
func TestAbandonedByPID(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	host, _ := os.Hostname()
	dead := runningRun("20261129T120000Z-ecn-pfc-64gpu")
	dead.Writer = &Writer{PID: deadPID(t), Host: host}
	alive := runningRun("20261129T120001Z-ecn-pfc-64gpu")
	alive.Writer = &Writer{PID: os.Getpid(), Host: host}
	old := runningRun("20261129T120002Z-ecn-pfc-64gpu")
	elsewhere := runningRun("20261129T120003Z-ecn-pfc-64gpu")
	elsewhere.Writer = &Writer{PID: deadPID(t), Host: host + "-other"}
	saveRuns(t, s, dead, alive, old, elsewhere)
	for run, want := range map[*Run]string{dead: StatusAbandoned, alive: StatusRunning, old: StatusRunning, elsewhere: StatusRunning} {
		if l, f := statusOf(t, s, run.RunID); l != want || f != want {
			t.Errorf("%s: list %s, get %s; want %s", run.RunID, l, f, want)
		}
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skipf("cannot start /bin/true: %v", err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}

// A run killed before its first variant finished leaves nothing: readers
// skip it and Repair removes its folder, as it removes a reserved folder
// whose run never saved.
func TestEmptyAbandonedRunsRemoved(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	empty := runningRun("20261129T120000Z-ecn-pfc-64gpu")
	empty.Variants = nil
	saveRuns(t, s, empty)
	if err := os.WriteFile(filepath.Join(s.RunDir(empty.RunID), WriterFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	reserved := "20261129T120001Z-ecn-pfc-64gpu"
	if err := os.MkdirAll(s.RunDir(reserved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.RunDir(reserved), WriterFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if runs, _ := s.List(Filter{}); len(runs) != 0 {
		t.Errorf("List shows %v", runs)
	}
	if _, err := s.Get("latest"); err == nil {
		t.Error("latest names an empty abandoned run")
	}
	r, err := s.Repair()
	if err != nil || r.Removed != 2 || r.Indexed != 0 {
		t.Errorf("Repair = %+v, %v", r, err)
	}
	for _, id := range []string{empty.RunID, reserved} {
		if _, err := os.Stat(s.RunDir(id)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s stays: %v", id, err)
		}
	}
}

// A read-only store creates nothing: not the folder, not the index.
func TestOpenReadOnlyCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	s, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runs, err := s.List(Filter{}); err != nil || len(runs) != 0 {
		t.Errorf("List = %v, %v", runs, err)
	}
	s.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenReadOnly created %s", dir)
	}
}

// Without an index, a read-only store reads the run folders.
func TestOpenReadOnlyWithoutIndex(t *testing.T) {
	dir := t.TempDir()
	w := openTestStore(t, dir)
	saveRuns(t, w, threeRuns()...)
	w.Close()
	for _, f := range []string{DBFile, DBFile + "-wal", DBFile + "-shm"} {
		os.Remove(filepath.Join(dir, f))
	}
	s, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, err := s.List(Filter{}); err != nil || len(runs) != 3 {
		t.Errorf("List = %d runs, %v", len(runs), err)
	}
	if _, err := os.Stat(filepath.Join(dir, DBFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a read-only store wrote results.db")
	}
	if err := s.SaveRun(syntheticRun("20261129T130000Z-ecn-pfc-64gpu", t0)); err == nil {
		t.Error("a read-only store saved a run")
	}
}

func TestIndexWriteErrorClasses(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code int
		want string
	}{
		{sqliteErr(13), exitcode.Environment, "free space"},
		{sqliteErr(8), exitcode.Environment, "read-only file system"},
		{sqliteErr(10 | 19<<8), exitcode.Environment, "I/O error"},
		{sqliteErr(5), exitcode.Environment, "busy"},
		{syscall.ENOSPC, exitcode.Environment, "free space"},
	} {
		err := indexWriteError("results/results.db", tt.err)
		if exitcode.Code(err) != tt.code || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "results/results.db") {
			t.Errorf("%v: %v (exit %d)", tt.err, err, exitcode.Code(err))
		}
	}
}

type sqliteErr int

func (e sqliteErr) Error() string { return "sqlite error" }
func (e sqliteErr) Code() int     { return int(e) }
