package textparsetest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse"
)

// recorder is a testing.TB that notes failures instead of stopping the
// test, so that the helpers' own failures can be checked.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true; panic(r) }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic(r) }

// fails runs check against a recorder and reports whether it failed.
func fails(t *testing.T, check func(tb testing.TB)) (failed bool) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		failed = r.failed
	}()
	check(r)
	return r.failed
}

func TestGolden(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "x.golden.json")
	v := map[string]int{"a": 1}
	if !fails(t, func(tb testing.TB) { Golden(tb, golden, v, false) }) {
		t.Error("a missing golden file passed")
	}
	if fails(t, func(tb testing.TB) { Golden(tb, golden, v, true) }) {
		t.Error("update failed")
	}
	if b, _ := os.ReadFile(golden); string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("golden file = %q", b)
	}
	if fails(t, func(tb testing.TB) { Golden(tb, golden, v, false) }) {
		t.Error("an equal value failed")
	}
	if !fails(t, func(tb testing.TB) { Golden(tb, golden, map[string]int{"a": 2}, false) }) {
		t.Error("a different value passed")
	}
}

func TestWantError(t *testing.T) {
	located := textparse.Errorf(3, "bad counter")
	tests := []struct {
		name string
		err  error
		line int
		want string
		fail bool
	}{
		{"match", located, 3, "counter", false},
		{"any line", located, 0, "bad", false},
		{"wrong line", located, 2, "counter", true},
		{"wrong text", located, 3, "header", true},
		{"no error", nil, 0, "", true},
		{"unlocated", errors.New("bad counter"), 0, "counter", true},
	}
	for _, tc := range tests {
		if got := fails(t, func(tb testing.TB) { WantError(tb, nil, tc.err, tc.line, tc.want) }); got != tc.fail {
			t.Errorf("%s: failed = %v, want %v", tc.name, got, tc.fail)
		}
	}
}

func TestCheckError(t *testing.T) {
	tests := []struct {
		name string
		in   string
		err  error
		fail bool
	}{
		{"whole input", "", textparse.Errorf(0, "empty"), false},
		{"last line", "a\nb", textparse.Errorf(2, "x"), false},
		{"past the end", "a\nb", textparse.Errorf(3, "x"), true},
		{"unlocated", "a", errors.New("x"), true},
	}
	for _, tc := range tests {
		if got := fails(t, func(tb testing.TB) { CheckError(tb, tc.in, tc.err) }); got != tc.fail {
			t.Errorf("%s: failed = %v, want %v", tc.name, got, tc.fail)
		}
	}
}

type lossy struct {
	N int `json:"n,string"`
	M int `json:"-"`
}

func TestRoundTrip(t *testing.T) {
	if fails(t, func(tb testing.TB) { RoundTrip(tb, &struct{ A []int }{A: []int{1}}) }) {
		t.Error("a plain value failed")
	}
	if fails(t, func(tb testing.TB) { RoundTrip(tb, &lossy{N: 1, M: 2}) }) {
		t.Error("fields left out of JSON should not matter")
	}
	if !fails(t, func(tb testing.TB) { RoundTrip(tb, &struct{ F func() }{}) }) {
		t.Error("an unencodable value passed")
	}
}

func TestFixtures(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"pfc_a.txt", "pfc_a.txt.golden.json", "pfc_b.txt", "queue.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := Fixtures(t, filepath.Join(dir, "pfc_*"))
	want := []string{filepath.Join(dir, "pfc_a.txt"), filepath.Join(dir, "pfc_b.txt")}
	if !slices.Equal(got, want) {
		t.Errorf("Fixtures = %q, want %q", got, want)
	}
	if Read(t, got[1]) != "pfc_b.txt" {
		t.Errorf("Read(%s) = %q", got[1], Read(t, got[1]))
	}
	if !fails(t, func(tb testing.TB) { Fixtures(tb, filepath.Join(dir, "ecn_*")) }) {
		t.Error("no fixtures passed")
	}
	if !fails(t, func(tb testing.TB) { Read(tb, filepath.Join(dir, "missing.txt")) }) {
		t.Error("reading a missing fixture passed")
	}
}
