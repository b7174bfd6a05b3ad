package results

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/jsonindent"
	"github.com/labctl/labctl/orchestrator/naming"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/readlimit"
)

// DBFile is the name of the SQLite index inside the results directory.
const DBFile = "results.db"

// RunFile is the name of the run record inside a run folder.
const RunFile = "run.json"

// WriterFile is the lock file the process writing a run holds in the run
// folder (see LockRun).
const WriterFile = ".writer.lock"

// Latest is the run reference that names the newest run (by start time).
const Latest = "latest"

// ValidRunID reports whether id is shaped like a run id labctl writes, so
// that it can safely become a folder name: 20261129T120000Z-ecn-pfc-64gpu
// (a UTC time to the second, then a name: naming.Valid), the name
// optionally ending in a numeric suffix (-2, -3, …) when two runs start
// in the same second, or the time alone.
func ValidRunID(id string) bool {
	// The stamp has runIDTime's shape: digits but for its T and Z.
	const stamp = len(runIDTime)
	if len(id) < stamp {
		return false
	}
	for i := 0; i < stamp; i++ {
		if c := runIDTime[i]; c == 'T' || c == 'Z' {
			if id[i] != c {
				return false
			}
		} else if id[i] < '0' || id[i] > '9' {
			return false
		}
	}
	rest := id[stamp:]
	return rest == "" || rest[0] == '-' && naming.Valid(rest[1:], 0)
}

// Store keeps run records: one folder per run under dir (the source of
// truth) and an SQLite index (results.db) for listing and lookups. The
// index can always be rebuilt from the folders with Reindex.
type Store struct {
	dir string
	db  *sql.DB
	// readOnly stores (OpenReadOnly) never write: not the index, not a
	// run folder.
	readOnly bool
	// progress encodes the records of runs in progress (progress_json.go).
	progress progressJSON
}

// Filter narrows List and the "latest" reference. Zero fields match all.
type Filter struct {
	Lab      string
	Scenario string
	Status   string
	Limit    int // 0 means no limit
}

// RunSummary is one row of the index: what `labctl results list` shows.
type RunSummary struct {
	RunID            string     `json:"run_id"`
	Lab              string     `json:"lab"`
	Scenario         string     `json:"scenario"`
	Runtime          string     `json:"runtime"`
	NOS              string     `json:"nos,omitempty"`
	Status           string     `json:"status"`
	Seed             int64      `json:"seed"`
	Started          time.Time  `json:"started"`
	Finished         *time.Time `json:"finished"`
	ConfigDigest     string     `json:"config_digest,omitempty"`
	Variants         int        `json:"variants"`
	AssertionsTotal  int        `json:"assertions_total"`
	AssertionsFailed int        `json:"assertions_failed"`
}

// NotFoundError says a run reference matched no run (or several, for an
// ambiguous prefix). Recent lists the newest runs so the message can point
// the user at what exists.
type NotFoundError struct {
	Ref       string
	Ambiguous []string
	Recent    []string
	// Unindexed counts the run folders holding a record that the index
	// lacks (copied in, or an index edited): "no runs" would be untrue.
	Unindexed int
	// Filter says what narrowed "latest" ("lab 99gpu, scenario
	// incast"), "" when nothing did.
	Filter string
	msg    string // replaces the default message when set
}

func (e *NotFoundError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	var b strings.Builder
	if len(e.Ambiguous) > 0 {
		fmt.Fprintf(&b, "run %q is ambiguous: it is a prefix of %s; give more of the run id", e.Ref, strings.Join(e.Ambiguous, ", "))
		return b.String()
	}
	if e.Ref == Latest && e.Filter != "" {
		fmt.Fprintf(&b, "no run of %s matches \"latest\" (fix: check --lab/--scenario against the runs below, or leave them out)", e.Filter)
	} else if e.Ref == Latest {
		b.WriteString("no run matches \"latest\"")
	} else {
		fmt.Fprintf(&b, "no run %q", e.Ref)
	}
	switch {
	case len(e.Recent) == 0 && e.Unindexed > 0:
		fmt.Fprintf(&b, ": the index holds no runs, but %s in the results folder %s not in it (fix: run 'labctl results reindex')", plural.N(e.Unindexed, "run folder"), plural.Noun(e.Unindexed, "is"))
	case len(e.Recent) == 0:
		b.WriteString(": there are no runs yet; start one with 'labctl run <scenario> --lab <lab>'")
	default:
		fmt.Fprintf(&b, "; latest runs: %s (see 'labctl results list')", strings.Join(e.Recent, ", "))
	}
	return b.String()
}

// Open opens (creating when needed) the results store under dir, usually
// <work dir>/results. The index is migrated to the current schema. When the
// index is missing or unreadable but run folders exist, it is rebuilt from
// them; an unreadable index is kept aside as results.db.corrupt-<time>.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, exitcode.WriteFailed(dir, err)
	}
	dbPath := filepath.Join(dir, DBFile)
	db, from, err := openDB(dbPath)
	if err != nil {
		// A corrupt or foreign file: keep it for inspection, start over and
		// rebuild from the run folders, which hold the truth.
		if !isCorruptErr(err) {
			// SQLite says only that it cannot open the file (a WAL index
			// on a read-only file system needs its -shm file): name the
			// folder's own trouble, with its fix, where there is one.
			if werr := dirWritable(dir); werr != nil {
				return nil, exitcode.WriteFailed(dbPath, werr)
			}
			return nil, err
		}
		aside := fmt.Sprintf("%s.corrupt-%s", dbPath, time.Now().UTC().Format("20060102T150405Z"))
		if rerr := os.Rename(dbPath, aside); rerr != nil {
			return nil, fmt.Errorf("open %s: %w (and could not move it aside: %v)", dbPath, err, rerr)
		}
		for _, sfx := range []string{"-wal", "-shm"} {
			_ = os.Remove(dbPath + sfx)
		}
		db, from, err = openDB(dbPath)
		if err != nil {
			return nil, err
		}
	}
	s := &Store{dir: dir, db: db}
	// An index this process created (schema 0 before it migrated) starts
	// empty though run folders may exist; of several processes opening a
	// new results.db at once, only the one that migrated it rebuilds it.
	if from == 0 {
		// Unreadable run folders are skipped here; 'labctl results reindex'
		// style callers use Reindex to see them.
		if _, fatal, _ := s.reindex(false); fatal != nil {
			db.Close()
			return nil, fatal
		}
	}
	return s, nil
}

// OpenReadOnly opens the results store under dir for reading only: it
// creates nothing and writes nothing, so it works on a read-only results
// folder, and a mistyped directory does not leave an empty database
// behind. The index is opened read-only; when it is missing, unreadable,
// of another schema version or cannot be opened on a read-only file
// system, an index is built in memory from the run folders, which hold the
// truth.
func OpenReadOnly(dir string) (*Store, error) {
	s := &Store{dir: dir, readOnly: true}
	if db, err := openDBReadOnly(filepath.Join(dir, DBFile)); err == nil {
		s.db = db
		return s, nil
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, fmt.Errorf("open an in-memory results index: %w", err)
	}
	db.SetMaxOpenConns(1) // one connection holds the in-memory database
	if _, err := migrate(db, ""); err != nil {
		db.Close()
		return nil, fmt.Errorf("open an in-memory results index: %w", err)
	}
	s.db = db
	if _, err := os.Stat(dir); err == nil {
		if _, fatal, _ := s.reindex(false); fatal != nil {
			db.Close()
			return nil, fatal
		}
	}
	return s, nil
}

// openDBReadOnly opens an existing index of the current schema read-only.
// A WAL database on a read-only file system cannot get its shared-memory
// file, so it is then opened as immutable, which is exact when no
// write-ahead log is left over (a clean close removes it).
func openDBReadOnly(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	try := func(params string) (*sql.DB, error) {
		db, err := sql.Open("sqlite", "file:"+path+"?"+params)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		var v, n int
		if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
			db.Close()
			return nil, err
		}
		if v != len(migrations) {
			db.Close()
			return nil, fmt.Errorf("results index %s has schema %d, not %d", path, v, len(migrations))
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	}
	db, err := try("mode=ro&_pragma=busy_timeout(5000)")
	if err == nil {
		return db, nil
	}
	if _, werr := os.Stat(path + "-wal"); werr == nil {
		return nil, err // a log is left over: only the run folders are exact
	}
	return try("mode=ro&immutable=1")
}

// busyTimeout is how long a labctl process waits for another one's write
// to the index (a save, a migration, a reindex) before giving up with
// SQLITE_BUSY. Writes take milliseconds; a reindex of many runs longer.
const busyTimeout = 30 * time.Second

// openDB opens the index read-write, migrated, and returns the schema
// version it had (0: new).
func openDB(path string) (*sql.DB, int, error) {
	// busy_timeout lets a second labctl process wait for a writer instead of
	// failing at once. _txlock=immediate makes every write transaction
	// (Store.index, reindex) take the write lock at BEGIN: a deferred one
	// that has read first cannot wait for the lock in WAL mode and fails
	// with SQLITE_BUSY at once when another process wrote meanwhile.
	dsn := fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		path, busyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, 0, fmt.Errorf("open results index %s: %w", path, err)
	}
	// One connection: labctl is a CLI, and a single writer avoids
	// SQLITE_BUSY between connections of the same process.
	db.SetMaxOpenConns(1)
	if err := useWAL(db); err != nil {
		db.Close()
		return nil, 0, fmt.Errorf("open results index %s: %w", path, err)
	}
	from, err := migrate(db, filepath.Dir(path))
	if err != nil {
		db.Close()
		return nil, 0, fmt.Errorf("open results index %s: %w", path, err)
	}
	// An index of the right version without its tables (dropped by hand,
	// or by a tool) fails every save and every reindex alike: Open treats
	// it as corrupt and rebuilds it from the run folders.
	var tables int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('runs', 'variants')`).Scan(&tables); err != nil || tables != 2 {
		db.Close()
		if err == nil {
			err = errSchemaDamaged
		}
		return nil, 0, fmt.Errorf("open results index %s: %w", path, err)
	}
	return db, from, nil
}

// errSchemaDamaged is an index whose tables are missing.
var errSchemaDamaged = errors.New("its schema is damaged: a table is missing")

// useWAL switches the index to write-ahead logging, which lets readers
// proceed while a run is being saved. The mode is stored in the file, so
// only the first open of a new results.db changes it; that change needs
// the file to itself, and SQLite answers SQLITE_BUSY at once, without its
// busy timeout, when another process has it open (several 'labctl run'
// opening a new results.db together). So it is retried here, for as long
// as the busy timeout would have waited.
func useWAL(db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	pause := 5 * time.Millisecond
	for {
		var mode string
		err := db.QueryRow(`PRAGMA journal_mode = WAL`).Scan(&mode)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("switch to WAL mode: %w", err)
			}
			return nil
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// isBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED.
func isBusy(err error) bool {
	c, _ := sqliteCode(err)
	return c == 5 || c == 6
}

// sqliteCode is the primary SQLite result code of err (its low byte:
// SQLITE_BUSY is 5 whatever its extended code), and whether err carries
// one; 0 where it does not.
func sqliteCode(err error) (int, bool) {
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return 0, false
	}
	return se.Code() & 0xff, true
}

func isCorruptErr(err error) bool {
	if errors.Is(err, errSchemaDamaged) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "SQLITE_NOTADB")
}

// Close closes the index.
func (s *Store) Close() error { return s.db.Close() }

// Dir is the results directory.
func (s *Store) Dir() string { return s.dir }

// RunDir is the folder of run id.
func (s *Store) RunDir(id string) string { return filepath.Join(s.dir, id) }

// RunFile is the path of run id's record.
func (s *Store) RunFile(id string) string { return filepath.Join(s.RunDir(id), RunFile) }

// runIDTime is the layout of a run id's start time, in UTC (ValidRunID
// checks its shape).
const runIDTime = "20060102T150405Z"

// FormatRunID builds the run id for a run started at t:
// 20261129T120000Z-<scenario>-<lab>.
func FormatRunID(t time.Time, scenario, lab string) string {
	id := t.UTC().Format(runIDTime)
	for _, part := range []string{scenario, lab} {
		if p := sanitizeIDPart(part); p != "" {
			id += "-" + p
		}
	}
	return id
}

// sanitizeIDPart lowercases s and keeps [a-z0-9-], so any scenario or lab
// name yields a safe folder name.
func sanitizeIDPart(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' || r == '_' || r == '.' || r == ' ':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// NewRunID reserves a run id for a run started at t by creating its folder.
// When the id is taken (two runs in the same second) a suffix -2, -3, … is
// added. Creating the folder is the reservation, so two processes cannot get
// the same id.
func (s *Store) NewRunID(t time.Time, scenario, lab string) (string, error) {
	if s.readOnly {
		return "", errors.New("new run: the results store is open read-only")
	}
	base := FormatRunID(t, scenario, lab)
	for i := 1; i < 1000; i++ {
		id := base
		if i > 1 {
			id = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(s.RunDir(id), 0o755)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", exitcode.WriteFailed(s.RunDir(id), err)
		}
	}
	return "", fmt.Errorf("create run folder for %s: 999 runs with this id exist in %s; remove old runs", base, s.dir)
}

// errRunFolderGone says a run folder reserved by NewRunID was removed
// before its writer lock was taken (a concurrent repair took it for the
// folder of a run that died before its first save).
var errRunFolderGone = errors.New("the run folder was removed before its lock was taken")

// errRunLockBusy says another process holds a run's writer lock.
var errRunLockBusy = errors.New("the run's writer lock is held")

// StartRun reserves a run id for a run started at t (NewRunID) and takes
// its writer lock (LockRun), so no other process can take the id and a
// concurrent repair cannot mistake the new folder for a dead run's: a
// folder removed between the two steps is given up and another id
// reserved.
func (s *Store) StartRun(t time.Time, scenario, lab string) (string, *RunLock, *Writer, error) {
	for range 10 {
		id, err := s.NewRunID(t, scenario, lab)
		if err != nil {
			return "", nil, nil, err
		}
		lock, w, err := s.LockRun(id)
		// A repair that holds the new folder's lock for a moment (it
		// checks whether a writer is alive) is waited out.
		for try := 0; errors.Is(err, errRunLockBusy) && try < 200; try++ {
			time.Sleep(5 * time.Millisecond)
			lock, w, err = s.LockRun(id)
		}
		if errors.Is(err, errRunFolderGone) {
			continue
		}
		if err != nil {
			_ = os.Remove(s.RunDir(id))
			return "", nil, nil, err
		}
		return id, lock, w, nil
	}
	return "", nil, nil, exitcode.Envf("start run in %s: its run folder was removed ten times before it could be locked (fix: do not run 'labctl results reindex' in a loop while runs start)", s.dir)
}

// SaveRun writes results/<run-id>/run.json atomically and upserts the run
// into the index. The runner calls it after each variant, so a run in
// progress or an interrupted run keeps every finished variant. A file that
// cannot be written is an environment error (exit 3) naming the path and
// the fix; the record on disk is then the one of the last save.
func (s *Store) SaveRun(run *Run) error {
	if run == nil {
		return errors.New("save run: nil run")
	}
	if s.readOnly {
		return fmt.Errorf("save run %s: the results store is open read-only", run.RunID)
	}
	if !ValidRunID(run.RunID) {
		return fmt.Errorf("save run: run id %q is not of the form 20261129T120000Z-<scenario>-<lab>; get one from Store.NewRunID", run.RunID)
	}
	if run.SchemaVersion == 0 {
		run.SchemaVersion = SchemaVersion
	}
	// A record in progress is written compact, its finished variants'
	// JSON kept from the last save (progressJSON): it is written again
	// after every variant, all of it, and encoding and indenting each copy
	// was over a third of the CPU of 64gpu's transports (30 variants, a
	// 23 MB record). The finished record (and an interrupted or abandoned
	// one) is encoded whole and indented.
	var data []byte
	var err error
	if run.Status == StatusRunning {
		data, err = s.progress.encode(run)
	} else {
		s.progress.forget()
		data, err = jsonindent.Marshal(run)
	}
	if err != nil {
		return fmt.Errorf("save run %s: encode: %w", run.RunID, err)
	}
	dir := s.RunDir(run.RunID)
	path := filepath.Join(dir, RunFile)
	// Never write a record labctl would refuse to read back.
	if int64(len(data)) >= readlimit.Record.Bytes {
		return exitcode.Usagef("save run %s: the record is %s, over labctl's %s limit for run records (fix: sample less often with sample_every, or use fewer repetitions)", run.RunID, readlimit.Size(int64(len(data))), readlimit.Size(readlimit.Record.Bytes))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save run %s: %w", run.RunID, exitcode.WriteFailed(dir, err))
	}
	if err := WriteFileAtomic(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save run %s: %w", run.RunID, exitcode.WriteFailed(path, err))
	}
	if err := s.index(run); err != nil {
		return fmt.Errorf("save run %s: %w", run.RunID, indexWriteError(filepath.Join(s.dir, DBFile), err))
	}
	return nil
}

// indexWriteError classifies a failed write to the SQLite index like a
// failed file write: SQLite reports a full disk as SQLITE_FULL or as an
// I/O error, a read-only one as SQLITE_READONLY.
func indexWriteError(path string, err error) error {
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return exitcode.WriteFailed(path, err)
	}
	var errno syscall.Errno
	switch se.Code() & 0xff {
	case 13: // SQLITE_FULL
		errno = syscall.ENOSPC
	case 8: // SQLITE_READONLY
		errno = syscall.EROFS
	case 10: // SQLITE_IOERR, also what a full disk often gives
		errno = syscall.EIO
	case 3, 14: // SQLITE_PERM, SQLITE_CANTOPEN
		errno = syscall.EACCES
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED after the busy timeout
		return exitcode.Env(&exitcode.WriteError{Path: path, Err: err, Fix: "another labctl process kept the results index busy; retry when it is done"})
	default:
		return fmt.Errorf("update the results index %s: %w (fix: run 'labctl results reindex' to rebuild it)", path, err)
	}
	return exitcode.WriteFailed(path, fmt.Errorf("%w: %w", errno, err))
}

// WriteFileAtomic writes data to path so readers see the old file or the
// new one, never a partial one: a temporary file in the same directory is
// written, synced and renamed over path, then the directory is synced.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// writeView writes a file rendered from a run record (report.md,
// report.html, junit.xml) as WriteFileAtomic does, interrupted or not,
// but without syncing it to disk: after a power loss the record it came
// from is on disk (SaveRun syncs it) and `labctl report` renders it
// again. Its six syncs (file and directory for each of three) were
// about 4% of the CPU of a short run (perf, a 4 KB incast). render writes
// the file's contents through a buffer straight into the temporary file:
// rendered into memory first, the quick start's 0.7 MB report.html was
// a growing builder and a copy of it, 1.4% of the run's CPU in page
// faults. An error of render's own comes back wrapping a *renderError;
// one of writing the file as writeAtomic's are.
func writeView(path string, perm os.FileMode, render func(io.Writer) error) error {
	return writeAtomicWith(path, perm, false, func(f io.Writer) error {
		fw := &firstError{w: f}
		bw := bufio.NewWriterSize(fw, 64<<10)
		err := render(bw)
		if fw.err != nil {
			return fw.err // the file's, whatever render made of it
		}
		if err != nil {
			return &renderError{err}
		}
		return bw.Flush()
	})
}

// renderError is writeView's error of rendering a file (not of writing
// it).
type renderError struct{ err error }

func (e *renderError) Error() string { return e.err.Error() }
func (e *renderError) Unwrap() error { return e.err }

// firstError is a writer that keeps the first error of w.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

func writeAtomic(path string, data []byte, perm os.FileMode, durable bool) error {
	return writeAtomicWith(path, perm, durable, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
}

// writeAtomicWith writes path atomically (a temporary file beside it,
// renamed over it) with what write writes into the file; durable syncs
// the file and then the directory.
func writeAtomicWith(path string, perm os.FileMode, durable bool, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("write %s: sync: %w", path, err)
		}
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Sync the directory so the rename itself survives a crash.
	if !durable {
		return nil
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

func (s *Store) index(run *Run) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := indexTx(tx, run); err != nil {
		return err
	}
	return tx.Commit()
}

// execer is a transaction, or the connection a migration holds its
// transaction on (migrateTo).
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// indexTx upserts run and replaces its variant rows inside tx.
func indexTx(tx execer, run *Run) error {
	ctx := context.Background()
	var finished sql.NullInt64
	if run.Finished != nil {
		finished = sql.NullInt64{Int64: run.Finished.UnixNano(), Valid: true}
	}
	sum := summarize(run)
	total, failed := sum.AssertionsTotal, sum.AssertionsFailed
	_, err := tx.ExecContext(ctx, `INSERT INTO runs (id, lab, scenario, runtime, nos, status, seed, started, finished, config_digest,
			variant_count, assertions_total, assertions_failed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET lab=excluded.lab, scenario=excluded.scenario, runtime=excluded.runtime,
			nos=excluded.nos, status=excluded.status, seed=excluded.seed, started=excluded.started,
			finished=excluded.finished, config_digest=excluded.config_digest, variant_count=excluded.variant_count,
			assertions_total=excluded.assertions_total, assertions_failed=excluded.assertions_failed`,
		run.RunID, run.Lab, run.Scenario, run.Runtime, run.NOS, run.Status, run.Seed, run.Started.UnixNano(), finished,
		run.ConfigDigest, len(run.Variants), total, failed)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM variants WHERE run_id = ?`, run.RunID); err != nil {
		return err
	}
	for i, v := range run.Variants {
		sm := v.Summary
		// m is a figure as its column holds it: NULL where the variant's
		// model does not compute it, or its record gave none.
		m := func(name string, v any) any {
			if slices.Contains(sm.NotComputed, name) || slices.Contains(sm.absent, name) {
				return nil
			}
			return v
		}
		vfailed := 0
		for _, a := range v.Assertions {
			if !a.Passed {
				vfailed++
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO variants (run_id, name, repetition, position, ecn, pfc, throughput_gbps_total, throughput_gbps_min_flow,
				jain_fairness, drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99,
				source, assertions_failed, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			run.RunID, v.Name, v.Repetition, i, v.ECN, v.PFC, m("throughput_gbps_total", sm.ThroughputGbpsTotal), m("throughput_gbps_min_flow", sm.ThroughputGbpsMinFlow),
			m("jain_fairness", sm.JainFairness), m("drops", sm.Drops), m("pfc_pause_frames", sm.PFCPauseFrames), m("pfc_pause_us", sm.PFCPauseUs),
			m("ecn_marked", sm.ECNMarked), m("cnp", sm.CNP), m("retransmits", sm.Retransmits), m("latency_us_p99", sm.LatencyUsP99),
			string(v.Origin()), vfailed, v.Error)
		if err != nil {
			return err
		}
	}
	return nil
}

// summarize is the index row of a run record.
func summarize(run *Run) RunSummary {
	r := RunSummary{RunID: run.RunID, Lab: run.Lab, Scenario: run.Scenario, Runtime: run.Runtime, NOS: run.NOS,
		Status: run.Status, Seed: run.Seed, Started: run.Started.UTC(), ConfigDigest: run.ConfigDigest, Variants: len(run.Variants)}
	if run.Finished != nil {
		t := run.Finished.UTC()
		r.Finished = &t
	}
	for _, v := range run.Variants {
		for _, a := range v.Assertions {
			r.AssertionsTotal++
			if !a.Passed {
				r.AssertionsFailed++
			}
		}
	}
	return r
}

const summaryColumns = `id, lab, scenario, runtime, nos, status, seed, started, finished, config_digest,
	variant_count, assertions_total, assertions_failed`

func scanSummary(rows interface{ Scan(...any) error }) (RunSummary, error) {
	var r RunSummary
	var started int64
	var finished sql.NullInt64
	if err := rows.Scan(&r.RunID, &r.Lab, &r.Scenario, &r.Runtime, &r.NOS, &r.Status, &r.Seed, &started, &finished,
		&r.ConfigDigest, &r.Variants, &r.AssertionsTotal, &r.AssertionsFailed); err != nil {
		return r, err
	}
	r.Started = time.Unix(0, started).UTC()
	if finished.Valid {
		t := time.Unix(0, finished.Int64).UTC()
		r.Finished = &t
	}
	return r, nil
}

// List returns the runs matching f, newest first. A run the index still
// has as running is read from its run.json, which is saved before the
// index and so may be further on, and shows as abandoned when its writer
// is gone: list, show, report and regress all see the same status.
func (s *Store) List(f Filter) ([]RunSummary, error) {
	q := `SELECT ` + summaryColumns + ` FROM runs WHERE 1=1`
	var args []any
	for _, c := range []struct{ col, val string }{{"lab", f.Lab}, {"scenario", f.Scenario}} {
		if c.val != "" {
			q += " AND " + c.col + " = ?"
			args = append(args, c.val)
		}
	}
	if f.Status != "" {
		// A running row may turn out to be any status; filter after.
		q += " AND (status = ? OR status = ?)"
		args = append(args, f.Status, StatusRunning)
	}
	// No LIMIT in SQL: rows re-read below may drop out (a run killed
	// before its first variant) or change status, so the limit is applied
	// after.
	q += " ORDER BY started DESC, id DESC"
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []RunSummary
	for rows.Next() {
		r, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	rows.Close()
	kept := out[:0]
	for _, r := range out {
		if r.Status == StatusRunning {
			if run, err := ReadRunFile(filepath.Join(s.RunDir(r.RunID), RunFile)); err == nil && run.RunID == r.RunID {
				s.settle(run)
				r = summarize(run)
			}
		}
		if r.Status == StatusAbandoned && r.Variants == 0 {
			continue // nothing finished: not a record (reindex removes it)
		}
		if f.Status != "" && r.Status != f.Status {
			continue
		}
		kept = append(kept, r)
		if f.Limit > 0 && len(kept) == f.Limit {
			break
		}
	}
	return kept, nil
}

// settle shows a running record whose writer is gone as abandoned.
func (s *Store) settle(run *Run) {
	if run.Status == StatusRunning && writerGone(s.RunDir(run.RunID), run.Writer) {
		run.Status = StatusAbandoned
	}
}

// Resolve turns a run reference into a run id: "latest" (the newest run
// matching f), an exact run id, or a unique prefix of one. An unknown
// reference returns a *NotFoundError.
func (s *Store) Resolve(ref string, f Filter) (string, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", exitcode.Usagef("no run given (fix: name a run id, a unique prefix of one, or \"latest\"; 'labctl results list' shows them)")
	}
	if ref == Latest {
		f.Limit = 1
		runs, err := s.List(f)
		if err != nil {
			return "", err
		}
		if len(runs) == 0 {
			e := s.notFound(ref)
			e.Filter = filterWords(f)
			return "", e
		}
		return runs[0].RunID, nil
	}
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM runs WHERE id = ?`, ref).Scan(&n); err != nil {
		return "", fmt.Errorf("look up run %s: %w", ref, err)
	}
	if n == 1 {
		return ref, nil
	}
	// Prefix match; LIKE's wildcards in ref are escaped so "2026_" stays literal.
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(ref)
	rows, err := s.db.Query(`SELECT id FROM runs WHERE id LIKE ? ESCAPE '\' ORDER BY started DESC LIMIT 6`, esc+"%")
	if err != nil {
		return "", fmt.Errorf("look up run %s: %w", ref, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("look up run %s: %w", ref, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("look up run %s: %w", ref, err)
	}
	switch len(ids) {
	case 1:
		return ids[0], nil
	case 0:
		// The folder may exist without an index row (index lost, run
		// written by another tool); accept it when run.json is there.
		if ValidRunID(ref) {
			if _, err := os.Stat(filepath.Join(s.RunDir(ref), RunFile)); err == nil {
				return ref, nil
			}
		}
		return "", s.notFound(ref)
	default:
		return "", &NotFoundError{Ref: ref, Ambiguous: ids}
	}
}

func (s *Store) notFound(ref string) *NotFoundError {
	e := &NotFoundError{Ref: ref}
	if runs, err := s.List(Filter{Limit: 5}); err == nil {
		for _, r := range runs {
			e.Recent = append(e.Recent, r.RunID)
		}
	}
	if len(e.Recent) == 0 {
		e.Unindexed = s.Unindexed()
	}
	return e
}

// filterWords says what f narrows runs to ("lab 99gpu, scenario incast"),
// "" when nothing.
func filterWords(f Filter) string {
	var parts []string
	if f.Lab != "" {
		parts = append(parts, "lab "+f.Lab)
	}
	if f.Scenario != "" {
		parts = append(parts, "scenario "+f.Scenario)
	}
	if f.Status != "" {
		parts = append(parts, "status "+f.Status)
	}
	return strings.Join(parts, ", ")
}

// Unindexed counts the run folders holding a record (run.json) that the
// index lacks: folders copied in from elsewhere, or rows deleted from the
// index, which 'labctl results reindex' takes back.
func (s *Store) Unindexed() int {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0
	}
	indexed := map[string]bool{}
	rows, err := s.db.Query(`SELECT id FROM runs`)
	if err != nil {
		return 0
	}
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil {
			indexed[id] = true
		}
	}
	if rows.Close() != nil || rows.Err() != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || !ValidRunID(e.Name()) || indexed[e.Name()] {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.dir, e.Name(), RunFile)); err == nil {
			n++
		}
	}
	return n
}

// Get loads a run by reference (see Resolve) from its run.json.
func (s *Store) Get(ref string) (*Run, error) { return s.Find(ref, Filter{}) }

// Find is Get with a filter for "latest" (for example the latest run of one
// lab and scenario).
func (s *Store) Find(ref string, f Filter) (*Run, error) { return s.find(ref, f, ReadRunFile) }

// FindWithoutSeries is Find for a reader of everything but the time
// series (regress's Compare, `results show` in text, `config diff --run`):
// ReadRunFileWithoutSeries.
func (s *Store) FindWithoutSeries(ref string, f Filter) (*Run, error) {
	return s.find(ref, f, ReadRunFileWithoutSeries)
}

func (s *Store) find(ref string, f Filter, read func(string) (*Run, error)) (*Run, error) {
	id, err := s.Resolve(ref, f)
	if err != nil {
		return nil, err
	}
	run, err := read(filepath.Join(s.RunDir(id), RunFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, exitcode.Usagef("run %s is in the index but %s is gone (fix: name another run; 'labctl results reindex' drops it from the index)", id, filepath.Join(s.RunDir(id), RunFile))
	}
	if err != nil {
		return nil, err
	}
	s.settle(run)
	return run, nil
}

// DeleteRun removes run id's folder and index row: the CLI drops a run
// that stopped before any variant finished, so no empty record becomes
// "latest".
func (s *Store) DeleteRun(id string) error {
	if !ValidRunID(id) {
		return fmt.Errorf("delete run: %q is not a run id", id)
	}
	if s.readOnly {
		return fmt.Errorf("delete run %s: the results store is open read-only", id)
	}
	if err := os.RemoveAll(s.RunDir(id)); err != nil {
		return exitcode.WriteFailed(s.RunDir(id), err)
	}
	for _, q := range []string{`DELETE FROM variants WHERE run_id = ?`, `DELETE FROM runs WHERE id = ?`} {
		if _, err := s.db.Exec(q, id); err != nil {
			return indexWriteError(filepath.Join(s.dir, DBFile), err)
		}
	}
	return nil
}

// RemoveRun removes run id's folder and index row as DeleteRun does, for a
// user clearing runs (labctl results rm): never a run a process is still
// writing, whose lock it holds while it removes (withDeadWriter), so a
// writer cannot start on the folder meanwhile.
func (s *Store) RemoveRun(id string) error {
	if !ValidRunID(id) {
		return fmt.Errorf("remove run: %q is not a run id", id)
	}
	var err error
	if !withDeadWriter(s.RunDir(id), func() { err = s.DeleteRun(id) }) {
		return exitcode.Usagef("run %s is being written by a labctl run that is still going (fix: let it finish or stop it with Ctrl-C, then remove it)", id)
	}
	return err
}

// Writing says whether a labctl process is still writing run id (it holds
// the run's lock): RemoveRun refuses such a run, so a dry run of a removal
// must not list it.
func (s *Store) Writing(id string) bool {
	return ValidRunID(id) && !withDeadWriter(s.RunDir(id), func() {})
}

// ReadRunFile reads a run record from a JSON file.
func ReadRunFile(path string) (*Run, error) {
	return readRunFile(path, func(data []byte, run *Run) error { return json.Unmarshal(data, run) })
}

// ReadRunFileWithoutSeries reads a run record without its variants' time
// series (Variant.Series nil), which are most of a packet-level record and
// which Compare, CheckComparable and a run's text summary never read. They
// are cut from the bytes before decoding (withoutSeries): `labctl regress`
// of two 28 MB nccl-allreduce records on 64gpu spent 86% of its second
// decoding them, most of it their series.
func ReadRunFileWithoutSeries(path string) (*Run, error) {
	return readRunFile(path, decodeWithoutSeries)
}

func readRunFile(path string, decode func([]byte, *Run) error) (*Run, error) {
	data, err := readlimit.ReadFile(path, readlimit.Record)
	if exitcode.Code(err) == exitcode.BadInput {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read run record: %w", err)
	}
	var run Run
	if err := decode(data, &run); err != nil {
		return nil, exitcode.Usagef("read run record %s%s: %v; the file is not a valid labctl run.json (fix: %s)", path, jsonErrPos(data, err), err, damagedRecordFix(path))
	}
	if run.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("read run record %s: schema_version %d is newer than this labctl understands (%d); upgrade labctl", path, run.SchemaVersion, SchemaVersion)
	}
	if run.RunID == "" {
		return nil, exitcode.Usagef("read run record %s: no run_id; the file is not a labctl run.json (fix: name a run.json that labctl wrote)", path)
	}
	if !knownStatus(run.Status) {
		return nil, exitcode.Usagef("read run record %s: status %q is not a run status labctl writes, so the record was edited or damaged (fix: %s)", path, run.Status, damagedRecordFix(path))
	}
	return &run, nil
}

// knownStatus says whether status is one labctl writes into a record.
func knownStatus(status string) bool {
	return slices.Contains(Statuses, status)
}

// damagedRecordFix is the fix for a record at path that does not decode:
// a run's own record, a saved baseline or a file given by path.
func damagedRecordFix(path string) string {
	dir := filepath.Dir(path)
	switch {
	case filepath.Base(path) == RunFile && ValidRunID(filepath.Base(dir)):
		return "restore it, or move its folder out of results/ and run 'labctl results reindex'"
	case filepath.Base(dir) == "baselines" && filepath.Ext(path) == ".json":
		return "restore it, or save the baseline again from a good run with 'labctl regress --save-baseline <run> <name> --force'"
	}
	return "restore it, or name a record labctl wrote: a run id, a saved baseline's name or results/<run>/run.json"
}

// Reindex rebuilds the index from the run folders (results/*/run.json) and
// returns how many runs it indexed. Folders without a readable run.json are
// skipped; their problems are returned joined after the rest is indexed.
// It also settles what crashed runs left: a record still running whose
// writer is gone is marked abandoned in its run.json, and a run folder
// that never got a record (its writer died before the first save) is
// removed. Repair says how many of each.
func (s *Store) Reindex() (int, error) {
	r, err := s.Repair()
	return r.Indexed, err
}

// Repaired says what Repair did.
type Repaired struct {
	Indexed   int `json:"indexed"`   // runs in the index now
	Abandoned int `json:"abandoned"` // records marked abandoned
	// Removed counts run folders removed because their run ended before
	// any variant finished (no record, or an abandoned one without
	// variants).
	Removed int `json:"removed"`
}

// Repair is Reindex returning what it changed.
func (s *Store) Repair() (Repaired, error) {
	if s.readOnly {
		return Repaired{}, fmt.Errorf("reindex %s: the results store is open read-only", s.dir)
	}
	r, fatal, skipped := s.reindex(true)
	if fatal != nil {
		return r, fatal
	}
	return r, skipped
}

// reindex returns what it did, a fatal error (the index could not be
// rebuilt) and the joined problems of skipped folders. With repair it also
// writes abandoned records, removes folders that never got one and the
// temporary files of writers killed mid-write.
func (s *Store) reindex(repair bool) (Repaired, error, error) {
	var r Repaired
	// One transaction: readers see the old index or the new one, and a
	// run saved meanwhile waits instead of being cleared. The folders are
	// listed once the write lock is held (the store's transactions begin
	// IMMEDIATE), so a run another process indexed before it is on disk
	// here, and one it saves later waits for this commit.
	tx, err := s.db.Begin()
	if err != nil {
		return r, s.indexErr(err), nil
	}
	defer tx.Rollback()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return r, fmt.Errorf("reindex %s: %w", s.dir, err), nil
	}
	if _, err := tx.Exec(`DELETE FROM variants; DELETE FROM runs;`); err != nil {
		return r, s.indexErr(err), nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !ValidRunID(e.Name()) {
			continue
		}
		dir := filepath.Join(s.dir, e.Name())
		path := filepath.Join(dir, RunFile)
		if repair {
			// A writer killed mid-write leaves its temporary file.
			withDeadWriter(dir, func() {
				tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
				for _, tmp := range tmps {
					_ = os.Remove(tmp)
				}
			})
		}
		run, err := ReadRunFile(path)
		if errors.Is(err, os.ErrNotExist) {
			// A reserved folder whose run never saved: gone once its
			// writer is (a held lock is a run starting right now).
			removed := false
			if repair && withDeadWriter(dir, func() {
				_ = os.Remove(filepath.Join(dir, WriterFile))
				removed = os.Remove(dir) == nil
			}) && removed {
				r.Removed++
			}
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if run.RunID != e.Name() {
			errs = append(errs, fmt.Errorf("reindex: %s holds run_id %q; rename the folder or fix run_id", path, run.RunID))
			continue
		}
		if s.settle(run); run.Status == StatusAbandoned && repair {
			if len(run.Variants) == 0 {
				// Killed before a variant finished: nothing to keep.
				if err := os.RemoveAll(dir); err != nil {
					return r, fmt.Errorf("reindex: %w", exitcode.WriteFailed(dir, err)), nil
				}
				r.Removed++
				continue
			}
			if err := s.markAbandoned(run, path); err != nil {
				return r, err, nil
			}
			r.Abandoned++
		}
		// A record the index cannot hold (two variants of one name and
		// repetition) is skipped like an unreadable one, under a
		// savepoint: it failed the whole reindex, naming neither it nor a
		// fix but this very command.
		recordErr, err := indexUnderSavepoint(tx, run)
		switch {
		case err != nil:
			return r, s.indexErr(err), nil
		case recordErr != nil:
			fix := "correct the record"
			if strings.Contains(recordErr.Error(), "UNIQUE") {
				fix = "give each of its variants its own name and repetition (two share one)"
			}
			errs = append(errs, fmt.Errorf("reindex: %s: the index cannot hold this record: %w (fix: %s, or move the folder out of %s)", path, recordErr, fix, s.dir))
		default:
			r.Indexed++
		}
	}
	if err := tx.Commit(); err != nil {
		return r, s.indexErr(err), nil
	}
	return r, nil, errors.Join(errs...)
}

// markAbandoned writes an abandoned run's record back with its status,
// the time of its last save as its end and what happened as its error.
func (s *Store) markAbandoned(run *Run, path string) error {
	fin := time.Now().UTC()
	if st, err := os.Stat(path); err == nil {
		fin = st.ModTime().UTC()
	}
	run.Finished = &fin
	who := "its writer"
	if run.Writer != nil {
		who = fmt.Sprintf("its writer (pid %d on %s)", run.Writer.PID, run.Writer.Host)
	}
	run.Error = fmt.Sprintf("abandoned: %s stopped without finishing the run (killed, crashed or out of disk) after %s", who, plural.N(len(run.Variants), "variant"))
	data, err := jsonindent.Marshal(run)
	if err != nil {
		return fmt.Errorf("reindex: encode %s: %w", path, err)
	}
	if err := WriteFileAtomic(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("reindex: mark run %s abandoned: %w", run.RunID, exitcode.WriteFailed(path, err))
	}
	_ = os.Remove(filepath.Join(filepath.Dir(path), WriterFile))
	return nil
}

// indexErr is a failed write of the index while reindexing.
func (s *Store) indexErr(err error) error {
	return fmt.Errorf("reindex %s: %w", s.dir, indexWriteError(filepath.Join(s.dir, DBFile), err))
}

// jsonErrPos returns ":line:col" of a JSON decoding error, or "".
func jsonErrPos(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return ""
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf(":%d:%d", line, col)
}
