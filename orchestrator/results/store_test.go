package results

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/jsonindent"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func openTestStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStoreRoundTrip(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	id, err := s.NewRunID(t0, "ecn-pfc", "64gpu")
	if err != nil {
		t.Fatal(err)
	}
	if id != "20261129T120000Z-ecn-pfc-64gpu" {
		t.Fatalf("NewRunID = %q", id)
	}
	run := syntheticRun(id, t0)
	if err := s.SaveRun(run); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	// Round trip through JSON compares times by value.
	want, _ := json.Marshal(run)
	have, _ := json.Marshal(got)
	if string(want) != string(have) {
		t.Errorf("round trip differs:\nwant %s\ngot  %s", want, have)
	}
	list, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].RunID != id || list[0].Variants != 4 || list[0].AssertionsTotal != 8 || list[0].Status != run.Status {
		t.Errorf("List = %+v", list)
	}
	if !list[0].Started.Equal(t0) || list[0].Finished == nil || !list[0].Finished.Equal(*run.Finished) {
		t.Errorf("List times = %v %v", list[0].Started, list[0].Finished)
	}
}

func TestSaveRunIncremental(t *testing.T) {
	// The runner saves after each variant: each save replaces the record
	// and the variant rows.
	s := openTestStore(t, t.TempDir())
	full := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	partial := *full
	partial.Status = StatusRunning
	partial.Finished = nil
	for n := 1; n <= len(full.Variants); n++ {
		partial.Variants = full.Variants[:n]
		if err := s.SaveRun(&partial); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := s.db.QueryRow(`SELECT COUNT(*) FROM variants WHERE run_id = ?`, full.RunID).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != n {
			t.Fatalf("after %d saves: %d variant rows", n, rows)
		}
		got, err := s.Get("latest")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Variants) != n || got.Status != StatusRunning || got.Finished != nil {
			t.Fatalf("after %d saves: got %d variants, status %s", n, len(got.Variants), got.Status)
		}
	}
}

// TestSaveRunLayout: a record in progress, rewritten after every variant,
// is one compact line; the finished one is indented (jsonindent: its
// series on a line each); both read back the same run.
func TestSaveRunLayout(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	fin := run.Finished
	path := filepath.Join(s.RunDir(run.RunID), RunFile)
	for _, st := range []string{StatusRunning, StatusPassed} {
		run.Status = st
		run.Finished = fin
		if st == StatusRunning {
			run.Finished = nil
		}
		if err := s.SaveRun(run); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(run)
		if st != StatusRunning {
			want, _ = jsonindent.Marshal(run)
		}
		if string(b) != string(want)+"\n" {
			t.Errorf("status %s: %s is not %s of the run plus a newline (%d bytes against %d)", st, RunFile, map[bool]string{true: "json.Marshal", false: "jsonindent.Marshal"}[st == StatusRunning], len(b), len(want)+1)
		}
		if st != StatusRunning && !bytes.Contains(b, []byte(`"t_us": [0,50,100,`)) {
			t.Errorf("status %s: the series' times are not on one line", st)
		}
		got, err := s.Get(run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if g, _ := json.Marshal(got); string(g) != string(mustJSON(t, run)) {
			t.Errorf("status %s: the record read back differs", st)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewRunIDSuffix(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	var ids []string
	for i := 0; i < 3; i++ {
		id, err := s.NewRunID(t0, "ECN PFC", "64gpu")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	want := []string{"20261129T120000Z-ecn-pfc-64gpu", "20261129T120000Z-ecn-pfc-64gpu-2", "20261129T120000Z-ecn-pfc-64gpu-3"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	for _, id := range ids {
		if !ValidRunID(id) {
			t.Errorf("ValidRunID(%q) = false", id)
		}
	}
}

func TestValidRunID(t *testing.T) {
	for id, want := range map[string]bool{
		"20261129T120000Z-ecn-pfc-64gpu": true,
		"20261129T120000Z":               true,
		"../etc":                         false,
		"20261129T120000Z-../x":          false,
		"latest":                         false,
		"20261129T120000Z-A":             false,
		"":                               false,
		"20261129T120000Z-ecn-pfc-2":     true,
		"20261129T120000Z-":              false,
		"20261129T120000Z--x":            false,
		"20261129T120000Zx":              false,
		"2026112XT120000Z-x":             false,
		"20261129t120000Z-x":             false,
		"20261129T12000Z-x":              false,
		"20261129T1200000Z":              false,
	} {
		if got := ValidRunID(id); got != want {
			t.Errorf("ValidRunID(%q) = %v, want %v", id, got, want)
		}
	}
	s := openTestStore(t, t.TempDir())
	if err := s.SaveRun(&Run{RunID: "../escape"}); err == nil {
		t.Error("SaveRun accepted run id ../escape")
	}
}

// TestWriteFileAtomic: the record's durable write and the reports' write
// without syncs (writeView) both replace a file whole.
func TestWriteFileAtomic(t *testing.T) {
	view := func(path string, data []byte, perm os.FileMode) error {
		return writeView(path, perm, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
	}
	for name, write := range map[string]func(string, []byte, os.FileMode) error{"WriteFileAtomic": WriteFileAtomic, "writeView": view} {
		t.Run(name, func(t *testing.T) { testWriteAtomic(t, write) })
	}
}

// TestWriteViewErrors: a view whose rendering fails halfway (after more
// than writeView's buffer) leaves the old file and no temporary one, and
// its error is the renderer's (a *renderError); a write that fails is the
// file's error, naming the file.
func TestWriteViewErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.html")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("template: no such field")
	err := writeView(p, 0o644, func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("x"), 200<<10)); err != nil {
			return err
		}
		return boom
	})
	var re *renderError
	if !errors.As(err, &re) || !errors.Is(err, boom) {
		t.Errorf("render failure: %v (%T), want a *renderError of %v", err, err, boom)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Errorf("the old file became %d bytes", len(got))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// /dev/full: every write fails with ENOSPC, as on a full disk.
	if _, serr := os.Stat("/dev/full"); serr != nil {
		t.Skip("no /dev/full")
	}
	err = writeAtomicWith(p, 0o644, false, func(f io.Writer) error {
		full, oerr := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if oerr != nil {
			return oerr
		}
		defer full.Close()
		fw := &firstError{w: full}
		_, werr := fw.Write([]byte("x"))
		if fw.err == nil || werr == nil {
			return errors.New("/dev/full took a write")
		}
		return fw.err
	})
	if err == nil || errors.As(err, &re) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), p) {
		t.Errorf("write failure: %v (%T), want ENOSPC naming %s and not a render error", err, err, p)
	}
}

func testWriteAtomic(t *testing.T, write func(string, []byte, os.FileMode) error) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	for _, content := range []string{"first\n", "second, longer content\n", ""} {
		if err := write(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v", fi.Mode())
	}
	if err := write(filepath.Join(dir, "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func saveRuns(t *testing.T, s *Store, runs ...*Run) {
	t.Helper()
	for _, r := range runs {
		if err := s.SaveRun(r); err != nil {
			t.Fatal(err)
		}
	}
}

func threeRuns() []*Run {
	a := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0.Add(-2*time.Hour))
	a.Status = StatusFailed
	b := syntheticRun("20261129T110000Z-incast-16gpu", t0.Add(-time.Hour))
	b.Scenario, b.Lab, b.Status = "incast", "16gpu", StatusPassed
	c := syntheticRun("20261129T120000Z-ecn-pfc-16gpu", t0)
	c.Lab, c.Status = "16gpu", StatusInterrupted
	return []*Run{a, b, c}
}

func TestListFilterAndLatest(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	saveRuns(t, s, threeRuns()...)
	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"20261129T120000Z-ecn-pfc-16gpu", "20261129T110000Z-incast-16gpu", "20261129T100000Z-ecn-pfc-64gpu"}},
		{Filter{Lab: "16gpu"}, []string{"20261129T120000Z-ecn-pfc-16gpu", "20261129T110000Z-incast-16gpu"}},
		{Filter{Scenario: "ecn-pfc"}, []string{"20261129T120000Z-ecn-pfc-16gpu", "20261129T100000Z-ecn-pfc-64gpu"}},
		{Filter{Status: StatusPassed}, []string{"20261129T110000Z-incast-16gpu"}},
		{Filter{Limit: 1}, []string{"20261129T120000Z-ecn-pfc-16gpu"}},
		{Filter{Lab: "1024gpu"}, nil},
	}
	for _, tt := range tests {
		list, err := s.List(tt.f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range list {
			ids = append(ids, r.RunID)
		}
		if !reflect.DeepEqual(ids, tt.want) {
			t.Errorf("List(%+v) = %v, want %v", tt.f, ids, tt.want)
		}
	}
	refs := []struct {
		ref  string
		f    Filter
		want string
	}{
		{"latest", Filter{}, "20261129T120000Z-ecn-pfc-16gpu"},
		{"latest", Filter{Lab: "64gpu"}, "20261129T100000Z-ecn-pfc-64gpu"},
		{"latest", Filter{Scenario: "incast"}, "20261129T110000Z-incast-16gpu"},
		{"20261129T110000Z-incast-16gpu", Filter{}, "20261129T110000Z-incast-16gpu"},
		{"20261129T10", Filter{}, "20261129T100000Z-ecn-pfc-64gpu"},
	}
	for _, tt := range refs {
		got, err := s.Find(tt.ref, tt.f)
		if err != nil {
			t.Errorf("Find(%q, %+v): %v", tt.ref, tt.f, err)
			continue
		}
		if got.RunID != tt.want {
			t.Errorf("Find(%q, %+v) = %s, want %s", tt.ref, tt.f, got.RunID, tt.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	var nf *NotFoundError
	if _, err := s.Get("latest"); !errors.As(err, &nf) || !strings.Contains(err.Error(), "no runs yet") {
		t.Errorf("latest on empty store: %v", err)
	}
	saveRuns(t, s, threeRuns()...)
	_, err := s.Get("nope")
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "20261129T120000Z-ecn-pfc-16gpu") {
		t.Errorf("unknown run: %v", err)
	}
	_, err = s.Get("20261129T1")
	if !errors.As(err, &nf) || len(nf.Ambiguous) != 3 {
		t.Errorf("ambiguous prefix: %v", err)
	}
	// LIKE wildcards in a reference are literal.
	if _, err := s.Get("2026112_T1000"); err == nil {
		t.Error("underscore matched as a wildcard")
	}
	if _, err := s.Find("latest", Filter{Lab: "nolab"}); !errors.As(err, &nf) {
		t.Errorf("filtered latest: %v", err)
	}
}

func TestReindexAfterLostOrCorruptDB(t *testing.T) {
	for _, damage := range []string{"missing", "corrupt", "table dropped"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			saveRuns(t, s, threeRuns()...)
			// A reserved folder with no run.json and a broken one are skipped.
			os.Mkdir(filepath.Join(dir, "20261129T130000Z-empty"), 0o755)
			os.Mkdir(filepath.Join(dir, "20261129T140000Z-broken"), 0o755)
			os.WriteFile(filepath.Join(dir, "20261129T140000Z-broken", RunFile), []byte("{not json"), 0o644)
			s.Close()
			if damage == "table dropped" {
				// The index keeps its version but loses a table (a user's
				// DROP TABLE): every save and reindex failed on it, and
				// reindex's fix named itself.
				db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(`DROP TABLE variants`); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			for _, sfx := range []string{"", "-wal", "-shm"} {
				if damage != "table dropped" {
					os.Remove(filepath.Join(dir, DBFile+sfx))
				}
			}
			if damage == "corrupt" {
				os.WriteFile(filepath.Join(dir, DBFile), []byte(strings.Repeat("garbage!", 1024)), 0o644)
			}
			s2 := openTestStore(t, dir)
			list, err := s2.List(Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 3 {
				t.Fatalf("after reopen: %d runs indexed, want 3", len(list))
			}
			if r, err := s2.Get("latest"); err != nil || r.RunID != "20261129T120000Z-ecn-pfc-16gpu" {
				t.Errorf("latest after rebuild: %v %v", r, err)
			}
			if damage != "missing" {
				m, _ := filepath.Glob(filepath.Join(dir, DBFile+".corrupt-*"))
				if len(m) != 1 {
					t.Errorf("corrupt index not kept aside: %v", m)
				}
			}
			n, err := s2.Reindex()
			if n != 3 || err == nil || !strings.Contains(err.Error(), "20261129T140000Z-broken") {
				t.Errorf("Reindex = %d, %v; want 3 and an error naming the broken folder", n, err)
			}
		})
	}
}

func TestMigrationFromVersion1(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DBFile)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrateTo(db, 1, ""); err != nil {
		t.Fatal(err)
	}
	// A run indexed by a labctl that knew schema 1 only.
	if _, err := db.Exec(`INSERT INTO runs (id, lab, scenario, runtime, status, seed, started) VALUES (?, '64gpu', 'ecn-pfc', 'sim', 'passed', 1, ?)`,
		"20261129T090000Z-ecn-pfc-64gpu", t0.Add(-3*time.Hour).UnixNano()); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := openTestStore(t, dir)
	var v int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Fatalf("user_version = %d (%v), want %d", v, err, len(migrations))
	}
	list, err := s.List(Filter{})
	if err != nil || len(list) != 1 || list[0].RunID != "20261129T090000Z-ecn-pfc-64gpu" || list[0].Variants != 0 {
		t.Fatalf("old row after migration: %+v %v", list, err)
	}
	saveRuns(t, s, syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0))
	if list, _ := s.List(Filter{}); len(list) != 2 || list[0].Variants != 4 {
		t.Errorf("after save on migrated db: %+v", list)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a newer schema: %v", err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	// Two processes (here two stores) saving at once: WAL and the busy
	// timeout make the second wait instead of failing.
	dir := t.TempDir()
	a := openTestStore(t, dir)
	b := openTestStore(t, dir)
	errc := make(chan error, 2)
	for w, s := range []*Store{a, b} {
		go func() {
			for i := 0; i < 15; i++ {
				id := fmt.Sprintf("20261129T1%02d%03dZ-w%d", i, w, w)
				run := syntheticRun(id, t0.Add(time.Duration(i)*time.Minute))
				if err := s.SaveRun(run); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	list, err := a.List(Filter{})
	if err != nil || len(list) != 30 {
		t.Errorf("%d runs after concurrent saves (%v), want 30", len(list), err)
	}
}

func TestReadRunFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ content, want string }{
		{"{\n  \"run_id\": \"x\",\n  \"seed\": \"one\"\n}", "run.json:3:"},
		{"{\n  \"run_id\": \"x\",\n  oops\n}", "run.json:3:"},
		{`{"schema_version": 7, "run_id": "x"}`, "schema_version 7 is newer"},
		{`{"lab": "64gpu"}`, "no run_id"},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, "run.json")
		os.WriteFile(p, []byte(tt.content), 0o644)
		if _, err := ReadRunFile(p); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadRunFile(%q) = %v, want %q", tt.content, err, tt.want)
		}
	}
}

func TestGetRunFolderRemoved(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	saveRuns(t, s, threeRuns()...)
	os.RemoveAll(filepath.Join(dir, "20261129T120000Z-ecn-pfc-16gpu"))
	if _, err := s.Get("latest"); err == nil || !strings.Contains(err.Error(), "reindex") {
		t.Errorf("Get of a removed run: %v", err)
	}
	if n, err := s.Reindex(); n != 2 || err != nil {
		t.Fatalf("Reindex = %d, %v", n, err)
	}
	if r, err := s.Get("latest"); err != nil || r.RunID != "20261129T110000Z-incast-16gpu" {
		t.Errorf("latest after reindex: %v %v", r, err)
	}
}

// A scenario with repetitions has one variant name per repetition: the
// index keeps every one (schema 2 keyed variants by name alone and refused
// the second repetition's row, so 'labctl run' of such a scenario failed
// at its save). A schema 2 index keeps its rows through the migration.
func TestRepetitionsIndexed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DBFile)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrateTo(db, 2, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO runs (id, lab, scenario, runtime, status, seed, started) VALUES (?, '64gpu', 'ecn-pfc', 'sim', 'passed', 1, ?)`,
		"20261129T090000Z-ecn-pfc-64gpu", t0.Add(-3*time.Hour).UnixNano()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO variants (run_id, name, ecn, pfc, throughput_gbps_total, throughput_gbps_min_flow, jain_fairness, drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99, source, position)
		VALUES ('20261129T090000Z-ecn-pfc-64gpu', 'ecn=on,pfc=on', 1, 1, 190.5, 20, 0.99, 0, 3, 1.5, 10, 2, 0, 9.5, 'simulated', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := openTestStore(t, dir)
	var n int
	var tp float64
	if err := s.db.QueryRow(`SELECT COUNT(*), MAX(throughput_gbps_total) FROM variants WHERE run_id = '20261129T090000Z-ecn-pfc-64gpu' AND repetition = 0`).Scan(&n, &tp); err != nil || n != 1 || tp != 190.5 {
		t.Fatalf("schema 2's row after the migration: %d rows, %v Gb/s, %v", n, tp, err)
	}
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	rep := run.Variants[0]
	rep.Repetition = 1
	run.Variants = append(run.Variants, rep)
	saveRuns(t, s, run)
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM variants WHERE run_id = ? AND name = ?`, run.RunID, rep.Name).Scan(&n); err != nil || n != 2 {
		t.Errorf("a variant at two repetitions: %d rows (%v), want 2", n, err)
	}
}

// FuzzValidRunID: ValidRunID agrees with the pattern it replaced (a UTC
// stamp, then optionally a dash and a lower-case name; no "..").
func FuzzValidRunID(f *testing.F) {
	pattern := regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z(-[a-z0-9][a-z0-9-]*)?$`)
	for _, s := range []string{"20261129T120000Z-ecn-pfc-64gpu", "20261129T120000Z", "20261129T120000Z-", "x", "20261129T120000Z-a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidRunID(id), pattern.MatchString(id) && !strings.Contains(id, ".."); got != want {
			t.Errorf("ValidRunID(%q) = %v, the pattern says %v", id, got, want)
		}
	})
}

// RemoveRun removes a finished run's folder and index row, and refuses a
// run whose writer still holds its lock (labctl results rm while the run
// goes on), leaving it whole.
func TestRemoveRunSparesRunsBeingWritten(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	id, lock, _, err := s.StartRun(t0, "ecn-pfc", "64gpu")
	if err != nil {
		t.Fatal(err)
	}
	run := syntheticRun(id, t0)
	if err := s.SaveRun(run); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveRun(id); exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "still going") {
		t.Errorf("remove while written: %v", err)
	}
	// What results rm --dry-run reads to list what a removal would take.
	if !s.Writing(id) {
		t.Error("Writing: false while the writer holds the run")
	}
	if _, err := os.Stat(s.RunFile(id)); err != nil {
		t.Errorf("the run being written lost its record: %v", err)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	if s.Writing(id) {
		t.Error("Writing: true after the writer ended")
	}
	if err := s.RemoveRun(id); err != nil {
		t.Fatalf("remove after the writer ended: %v", err)
	}
	if _, err := os.Stat(s.RunDir(id)); !os.IsNotExist(err) {
		t.Errorf("the folder is still there: %v", err)
	}
	if runs, err := s.List(Filter{}); err != nil || len(runs) != 0 {
		t.Errorf("index after remove: %v, %v", runs, err)
	}
}

// Run folders the index lacks (rows deleted, folders copied in) are not
// "no runs": the not-found error counts them and names the reindex that
// takes them back.
func TestNotFoundCountsRunFoldersTheIndexLacks(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	saveRuns(t, s, completedRuns()...)
	if n := s.Unindexed(); n != 0 {
		t.Fatalf("Unindexed of a whole index = %d", n)
	}
	if _, err := s.db.Exec(`DELETE FROM variants; DELETE FROM runs`); err != nil {
		t.Fatal(err)
	}
	if n := s.Unindexed(); n != 3 {
		t.Errorf("Unindexed = %d, want 3", n)
	}
	_, err := s.Get("latest")
	if err == nil || !strings.Contains(err.Error(), "3 run folders in the results folder are not in it (fix: run 'labctl results reindex')") {
		t.Errorf("latest with the index emptied: %v", err)
	}
	if _, err := s.Reindex(); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Get("latest"); err != nil || r == nil {
		t.Errorf("latest after reindex: %v", err)
	}
}
