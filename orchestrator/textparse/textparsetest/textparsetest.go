// Package textparsetest holds the checks the tests of labctl's output
// parsers share: golden JSON files, located parse errors and JSON round
// trips. Only tests import it.
package textparsetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse"
)

// Read returns the text of the file at path (a fixture under testdata/).
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Fixtures returns the input files matching pattern, leaving out golden
// files (*.golden.json). Finding none fails the test, so that tests cannot
// pass by reading nothing after fixtures move.
func Fixtures(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("fixtures %s: %v", pattern, err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".golden.json") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures match %s", pattern)
	}
	return out
}

// Golden compares v, encoded as indented JSON with a final newline, with
// the file golden. With update (the tests' -update flag) it writes the file
// first, so that `go test -update` regenerates every golden file.
func Golden(t testing.TB, golden string, v any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("differs from %s:\n%s", golden, got)
	}
}

// WantError fails unless err is a *textparse.Error at line (0: any line)
// whose message mentions want. v is what the parser returned, shown when it
// accepted the input.
func WantError(t testing.TB, v any, err error, line int, want string) {
	t.Helper()
	if err == nil {
		b, _ := json.Marshal(v)
		t.Fatalf("no error, got %s", b)
	}
	var pe *textparse.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%v is not a located parse error", err)
	}
	if line != 0 && pe.Line != line {
		t.Errorf("line %d, want %d: %v", pe.Line, line, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not mention %q", err, want)
	}
}

// CheckError fails unless err is a *textparse.Error whose line lies within
// in (0 meaning the input as a whole): fuzz targets call it on every
// failure, so that no input yields an unlocated error.
func CheckError(t testing.TB, in string, err error) {
	t.Helper()
	var pe *textparse.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a located parse error", err)
	}
	if pe.Line < 0 || pe.Line > strings.Count(in, "\n")+1 {
		t.Fatalf("error line %d outside the input: %v", pe.Line, err)
	}
}

// RoundTrip fails unless v survives JSON encoding unchanged: encoding it,
// decoding that into a fresh T and encoding again gives the same bytes.
func RoundTrip[T any](t testing.TB, v *T) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back T
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if b2, _ := json.Marshal(&back); string(b) != string(b2) {
		t.Fatalf("round trip changed:\n%s\n%s", b, b2)
	}
}

// LineOf is the 1-based number of the first line of in that holds sub,
// where a test expects an error to point.
func LineOf(t testing.TB, in, sub string) int {
	t.Helper()
	for i, l := range strings.Split(in, "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", sub)
	return 0
}
