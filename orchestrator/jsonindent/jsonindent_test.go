package jsonindent

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// indentStd is what Append must equal: encoding/json's indentation.
func indentStd(t testing.TB, compact []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", compact, err)
	}
	return b.Bytes()
}

// TestAppendLikeIndent: the bytes encoding/json gives, for the shapes that
// take each path: empty and nested empty objects and arrays, strings with
// escaped quotes and backslashes (an escaped backslash before the closing
// quote), punctuation inside strings, numbers, literals, top-level scalars
// and nesting deeper than the indentation constant holds.
func TestAppendLikeIndent(t *testing.T) {
	deep := strings.Repeat("[", 40) + "1" + strings.Repeat("]", 40)
	for _, src := range []string{
		`{}`, `[]`, `[{}]`, `{"a":[]}`, `{"a":{},"b":[[],{}]}`, `[[[]]]`,
		`{"k":"v"}`, `[1,2.5,-3e-7,true,false,null]`,
		`{"s":"a\"b"}`, `{"s":"a\\"}`, `{"s":"a\\\"b\\\\"}`, `["\\\\\\\""]`,
		`{"s":"{[,:]}"}`, `{"u":"\u00e9\u2028\ud83d\ude00","h":"\u003cb\u003e"}`,
		`"top"`, `42`, `null`, `""`, `{"":""}`,
		deep,
	} {
		want := indentStd(t, []byte(src))
		if got := Append(nil, []byte(src)); !bytes.Equal(got, want) {
			t.Errorf("Append(%s):\n%s\nwant (json.Indent):\n%s", src, got, want)
		}
		if n := Len([]byte(src)); n != len(want) {
			t.Errorf("Len(%s) = %d, want %d", src, n, len(want))
		}
	}
}

// TestMarshalLikeMarshalIndent: Marshal is json.MarshalIndent(v, "", "  ")
// on values with maps, structs, slices, NaN-free floats, HTML-escaped
// strings and RawMessages (which json.Marshal compacts), and on the
// repository's larger JSON files, decoded and encoded again.
func TestMarshalLikeMarshalIndent(t *testing.T) {
	type inner struct {
		A []int           `json:"a"`
		M map[string]any  `json:"m,omitempty"`
		R json.RawMessage `json:"r"`
		F float64         `json:"f"`
	}
	vals := []any{
		inner{A: []int{}, M: map[string]any{"x<y": "a&b", "e": []any{}, "o": map[string]any{}}, R: json.RawMessage(`{ "k" : [ 1 , 2 ] }`), F: math.MaxFloat64},
		[]inner{{R: json.RawMessage(`null`)}, {A: []int{1}, R: json.RawMessage(`"s"`)}},
		map[string]string{"q": `"\`},
	}
	files, _ := filepath.Glob("../*/testdata/*.json")
	more, _ := filepath.Glob("../*/testdata/*/*.json")
	files = append(files, more...)
	if len(files) < 5 {
		t.Fatalf("only %d JSON files under ../*/testdata: the test should see real records", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			vals = append(vals, v)
		}
	}
	for i, v := range vals {
		want, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("value %d: Marshal differs from json.MarshalIndent (%d bytes against %d)", i, len(got), len(want))
		}
		// Sized exactly, with room for a newline: no copy as it grew.
		if cap(got) != len(got)+1 {
			t.Errorf("value %d: Marshal's array holds %d bytes for %d", i, cap(got), len(got))
		}
	}
	if _, err := Marshal(math.NaN()); err == nil {
		t.Error("Marshal(NaN): no error (json.Marshal refuses it)")
	}
}

// FuzzAppend: for any valid JSON, Append of its compact form is
// json.Indent's, and Len its length.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c\"d"},[]],"e":{}}`, `["\\",""]`, `[[],[[]],{"":{}}]`, `-0.5e10`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		got, want := Append(nil, c.Bytes()), indentStd(t, c.Bytes())
		if !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %q, json.Indent gives %q", c.Bytes(), got, want)
		}
		if n := Len(c.Bytes()); n != len(want) {
			t.Fatalf("Len(%q) = %d, want %d", c.Bytes(), n, len(want))
		}
	})
}

// BenchmarkAppend: a 64gpu allreduce-like record (a long series of
// samples) through Append and through json.Indent.
func BenchmarkAppend(b *testing.B) {
	type sample struct {
		T     float64 `json:"t_us"`
		Bytes int64   `json:"queue_bytes"`
		Port  string  `json:"port"`
	}
	s := make([]sample, 50000)
	for i := range s {
		s[i] = sample{T: float64(i) * 1.5, Bytes: int64(i * 4096), Port: "leaf-1:Ethernet" + strings.Repeat("8", i%3)}
	}
	src, _ := json.Marshal(map[string]any{"series": s})
	b.Run("Append", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		dst := make([]byte, 0, 2*len(src))
		for b.Loop() {
			dst = Append(dst[:0], src)
		}
	})
	b.Run("json.Indent", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			_ = json.Indent(&buf, src, "", "  ")
		}
	})
}
