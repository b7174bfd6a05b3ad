package textparse

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestError(t *testing.T) {
	tests := []struct {
		err     error
		want    string
		wantPos int
	}{
		{Errorf(3, "bad %s", "value"), "line 3: bad value", 3},
		{Errorf(0, "empty input"), "empty input", 0},
		{&Error{Line: 2, Msg: "bad", Fix: "do this"}, "line 2: bad (fix: do this)", 2},
		{SecondRun(9, 1, "header", ", or else"), "line 9: a second header (the first is at line 1): the file holds two runs, or else (fix: split the file, one run each, and parse each file on its own)", 9},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		var e *Error
		if !errors.As(tc.err, &e) {
			t.Fatalf("%v is not an *Error", tc.err)
		}
		if e.Position() != tc.wantPos {
			t.Errorf("Position() = %d, want %d", e.Position(), tc.wantPos)
		}
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"lf", "a\nb\n", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"no final newline", "a\n b ", []string{"a", " b "}},
		{"blank lines kept", "a\n\nb", []string{"a", "", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Lines([]byte(tc.in), "x")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLinesTooLong(t *testing.T) {
	long := "ok\n" + strings.Repeat("x", MaxLine+1) + "\n"
	tests := []struct {
		what, want string
	}{
		{"", "line 2: line longer than 1048576 bytes"},
		{"perftest output", "line 2: line longer than 1048576 bytes: this is not perftest output"},
	}
	for _, tc := range tests {
		_, err := Lines([]byte(long), tc.what)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is not an *Error", err)
		}
		if err.Error() != tc.want {
			t.Errorf("what=%q: error %q, want %q", tc.what, err, tc.want)
		}
	}
}

// SkipBOM drops a leading UTF-8 byte-order mark and nothing else: not one
// further in, not a prefix of one, not from input shorter than one.
func TestSkipBOM(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\xef\xbb\xbfPort Rx", "Port Rx"},
		{"\xef\xbb\xbf", ""},
		{"", ""},
		{"ab", "ab"},
		{"\xef\xbb", "\xef\xbb"},
		{"x\xef\xbb\xbf", "x\xef\xbb\xbf"},
		{"\xef\xbb\xbf\xef\xbb\xbfx", "\xef\xbb\xbfx"},
	} {
		got, err := io.ReadAll(SkipBOM(strings.NewReader(tc.in)))
		if err != nil || string(got) != tc.want {
			t.Errorf("SkipBOM(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// A read error while looking for the mark is the first Read's.
	boom := errors.New("boom")
	if _, err := io.ReadAll(SkipBOM(iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
}
