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

// indentRef is what Append must equal, written another way (recursive
// descent over the compact input, where Append is one pass): json.Indent's
// indentation by two spaces, except that an array holding no object or
// array is copied as it is, on one line.
func indentRef(t testing.TB, compact []byte) []byte {
	t.Helper()
	var out []byte
	nl := func(depth int) { out = append(out, '\n'); out = append(out, strings.Repeat("  ", depth)...) }
	var value func(i, depth int) int
	value = func(i, depth int) int {
		switch compact[i] {
		case '{', '[':
			open, close := compact[i], byte('}')
			if open == '[' {
				close = ']'
			}
			// Each member rendered on its own (at its depth), then laid
			// out: keys as they are, arrays of scalars as they are.
			type member struct{ key, val []byte }
			var members []member
			nested := false
			saved := out
			j := i + 1
			for compact[j] != close {
				if compact[j] == ',' {
					j++
				}
				var m member
				if open == '{' {
					k := j
					out = nil
					j = value(j, depth+1) + 1 // past the colon
					m.key = compact[k : j-1]
				}
				nested = nested || compact[j] == '{' || compact[j] == '['
				out = nil
				j = value(j, depth+1)
				m.val = out
				members = append(members, m)
			}
			out = saved
			if open == '[' && !nested {
				out = append(out, compact[i:j+1]...)
				return j + 1
			}
			out = append(out, open)
			for k, m := range members {
				if k > 0 {
					out = append(out, ',')
				}
				nl(depth + 1)
				if m.key != nil {
					out = append(out, m.key...)
					out = append(out, ':', ' ')
				}
				out = append(out, m.val...)
			}
			if len(members) > 0 {
				nl(depth)
			}
			out = append(out, close)
			return j + 1
		case '"':
			j := i + 1
			for compact[j] != '"' {
				if compact[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, compact[i:j+1]...)
			return j + 1
		default:
			j := i
			for j < len(compact) && !strings.ContainsRune(`{}[],:"`, rune(compact[j])) {
				j++
			}
			out = append(out, compact[i:j]...)
			return j
		}
	}
	if end := value(0, 0); end != len(compact) {
		t.Fatalf("indentRef(%q): stopped at %d of %d bytes", compact, end, len(compact))
	}
	return out
}

// checkAppend holds Append and Len to indentRef, and the result to the
// same JSON as the input.
func checkAppend(t testing.TB, src []byte) {
	t.Helper()
	want := indentRef(t, src)
	got := Append(nil, src)
	if !bytes.Equal(got, want) {
		t.Errorf("Append(%s):\n%s\nwant:\n%s", src, got, want)
	}
	if n := Len(src); n != len(want) {
		t.Errorf("Len(%s) = %d, want %d", src, n, len(want))
	}
	var c bytes.Buffer
	if err := json.Compact(&c, got); err != nil || !bytes.Equal(c.Bytes(), src) {
		t.Errorf("Append(%s) compacts to %s (%v): not the same JSON", src, c.Bytes(), err)
	}
	// Where no array holds only scalars (found by decoding, not by the
	// code under test), the layout is json.Indent's, byte for byte.
	var v any
	if err := json.Unmarshal(src, &v); err == nil && !hasScalarArray(v) {
		var std bytes.Buffer
		if err := json.Indent(&std, src, "", "  "); err != nil || !bytes.Equal(got, std.Bytes()) {
			t.Errorf("Append(%s) is not json.Indent's layout, and the input has no array of scalars:\n%s\nwant:\n%s", src, got, std.Bytes())
		}
	}
}

// hasScalarArray says whether v (decoded JSON) holds a non-empty array
// with no object or array in it.
func hasScalarArray(v any) bool {
	switch x := v.(type) {
	case []any:
		scalars := len(x) > 0
		for _, e := range x {
			switch e.(type) {
			case []any, map[string]any:
				scalars = false
			}
			if hasScalarArray(e) {
				return true
			}
		}
		return scalars
	case map[string]any:
		for _, e := range x {
			if hasScalarArray(e) {
				return true
			}
		}
	}
	return false
}

// TestAppendIndents: the layout spelled out for the shapes that take each
// path (objects indented; arrays of numbers, strings and literals on one
// line as they are; arrays that hold an object or array indented, their
// scalar arrays on one line), then the reference on empty and nested empty
// objects and arrays, strings with escaped quotes and backslashes (an
// escaped backslash before the closing quote), brackets inside strings in
// an array, numbers, literals, top-level scalars and nesting deeper than
// the indentation constant holds.
func TestAppendIndents(t *testing.T) {
	for src, want := range map[string]string{
		`{"a":1,"t":[0,10,20],"s":["x","]"],"e":[]}`: "{\n  \"a\": 1,\n  \"t\": [0,10,20],\n  \"s\": [\"x\",\"]\"],\n  \"e\": []\n}",
		`[[1,2],{"b":[true,null]},[]]`:               "[\n  [1,2],\n  {\n    \"b\": [true,null]\n  },\n  []\n]",
		`[[[]]]`:                                     "[\n  [\n    []\n  ]\n]",
		`{}`:                                         "{}",
	} {
		if got := string(Append(nil, []byte(src))); got != want {
			t.Errorf("Append(%s):\n%s\nwant:\n%s", src, got, want)
		}
	}
	deep := strings.Repeat("[", 40) + "1" + strings.Repeat("]", 40)
	deepObj := strings.Repeat(`{"k":`, 40) + "[1]" + strings.Repeat("}", 40)
	for _, src := range []string{
		`[{"a":{"b":[]}},{"c":"[1,2]"},[[],{}]]`, `{"k":[{"x":[{}]}]}`,
		`{}`, `[]`, `[{}]`, `{"a":[]}`, `{"a":{},"b":[[],{}]}`, `[[[]]]`,
		`{"k":"v"}`, `[1,2.5,-3e-7,true,false,null]`,
		`{"s":"a\"b"}`, `{"s":"a\\"}`, `{"s":"a\\\"b\\\\"}`, `["\\\\\\\""]`,
		`{"s":"{[,:]}"}`, `["{[",",]","\"]"]`, `[{"a":"]"},"[{"]`, `{"u":"\u00e9\u2028\ud83d\ude00","h":"\u003cb\u003e"}`,
		`"top"`, `42`, `null`, `""`, `{"":""}`,
		deep, deepObj,
	} {
		checkAppend(t, []byte(src))
	}
}

// TestMarshalIndents: Marshal is the reference layout of json.Marshal on
// values with maps, structs, slices, NaN-free floats, HTML-escaped strings
// and RawMessages (which json.Marshal compacts), and on the repository's
// larger JSON files, decoded and encoded again; as JSON it is what
// json.MarshalIndent gives.
func TestMarshalIndents(t *testing.T) {
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
		compact, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := indentRef(t, compact); !bytes.Equal(got, want) {
			t.Errorf("value %d: Marshal differs from the reference layout (%d bytes against %d)", i, len(got), len(want))
		}
		std, _ := json.MarshalIndent(v, "", "  ")
		var a, b bytes.Buffer
		if json.Compact(&a, got) != nil || json.Compact(&b, std) != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("value %d: Marshal is not the JSON json.MarshalIndent gives", i)
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

// FuzzAppend: for any valid JSON, Append of its compact form is the
// reference layout and the same JSON, and Len its length.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"c\"d"},[]],"e":{}}`, `["\\",""]`, `[[],[[]],{"":{}}]`, `-0.5e10`, `[1,"]",[2]]`} {
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
		checkAppend(t, c.Bytes())
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
