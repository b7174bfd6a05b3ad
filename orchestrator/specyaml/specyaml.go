// Package specyaml decodes labctl's YAML spec files strictly (unknown keys and
// wrong types are errors) and reports every problem as file:line:col with a
// hint, so a user can jump straight to the line to fix.
package specyaml

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// Error is a problem at a place in a YAML file.
type Error struct {
	File   string
	Line   int // 1-based; 0 when unknown
	Column int
	Msg    string
	Fix    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(e.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// Decode unmarshals data (read from file) into v, rejecting unknown keys.
// The returned error is an exit-code-2 error wrapping *Error.
func Decode(file string, data []byte, v any) (err error) {
	if err := checkEncoding(file, data); err != nil {
		return err
	}
	data = withoutBOM(data)
	if strings.TrimSpace(string(data)) == "" {
		return exitcode.Usage(&Error{File: file, Msg: "file is empty", Fix: "write a YAML mapping"})
	}
	if err := checkNesting(file, data); err != nil {
		return err
	}
	// The YAML library panics on some malformed input (for example a tag
	// such as "!!000"); a user's typo must be an error, never a crash.
	defer func() {
		if r := recover(); r != nil {
			err = exitcode.Usage(&Error{File: file, Msg: fmt.Sprintf("cannot read YAML: %v", r), Fix: "check the file for stray tags (!!...) and quoting"})
		}
	}()
	// One tokenization and one parse: the checks read the tokens and the
	// tree, and the tree is decoded.
	tokens := lexer.Tokenize(string(data))
	if err := checkDocuments(file, tokens); err != nil {
		return err
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		return classify(file, err, v)
	}
	if len(f.Docs) == 0 || f.Docs[0].Body == nil {
		return nil // comments only: v keeps its zero value, as the library leaves it
	}
	body := f.Docs[0].Body
	if err := checkTree(file, body, reflect.TypeOf(v)); err != nil {
		return err
	}
	if err := yaml.NodeToValue(body, v, yaml.Strict()); err != nil {
		return classify(file, err, v)
	}
	return nil
}

// MaxNesting bounds how deeply a spec's flow collections ([...] and {...})
// nest. labctl's specs nest three or four levels; the YAML library needs
// memory quadratic in the depth (10000 levels take gigabytes), so a
// deeper file is refused before it is parsed.
const MaxNesting = 64

// checkNesting counts flow brackets outside comments. Brackets inside
// quoted strings count too: a string would need 64 unclosed ones to be
// refused, which no spec has.
func checkNesting(file string, data []byte) error {
	depth, line, col := 0, 1, 0
	comment := false
	var prev byte = '\n'
	for _, c := range data {
		col++
		switch {
		case c == '\n':
			line, col, comment = line+1, 0, false
		case comment:
		case c == '#' && (prev == ' ' || prev == '\t' || prev == '\n'):
			comment = true
		case c == '[' || c == '{':
			depth++
			if depth > MaxNesting {
				return exitcode.Usage(&Error{File: file, Line: line, Column: col,
					Msg: fmt.Sprintf("lists and mappings nest more than %d levels deep", MaxNesting),
					Fix: "close the brackets; a labctl spec nests a few levels"})
			}
		case c == ']' || c == '}':
			depth = max(0, depth-1)
		}
		prev = c
	}
	return nil
}

func classify(file string, err error, v any) error {
	e := &Error{File: file, Msg: err.Error()}
	var ye yaml.Error
	if errors.As(err, &ye) {
		e.Msg = ye.GetMessage()
		if tok := ye.GetToken(); tok != nil && tok.Position != nil {
			e.Line, e.Column = tok.Position.Line, tok.Position.Column
		}
	}
	var unknown *yaml.UnknownFieldError
	var typeErr *yaml.TypeError
	var overflow *yaml.OverflowError
	var syntax *yaml.SyntaxError
	switch {
	case errors.As(err, &unknown):
		// checkTree reports unknown keys first, in file order and with
		// suggestions from their own level; this is for what it leaves to
		// the library (keys brought in by an alias or a merge key).
		e.Fix = "remove or correct the key; check its spelling against the documented keys"
	case errors.As(err, &typeErr):
		// go-yaml names Go types ("Go struct field Spec.Sizing of type
		// int"); say it in the spec's terms instead.
		got := "this value"
		if typeErr.Token != nil && typeErr.Token.Value != "" {
			got = fmt.Sprintf("%q", typeErr.Token.Value)
		}
		// The library's token for a collection is its opening bracket.
		switch got {
		case `"["`, `"-"`:
			got = "a list"
		case `"{"`:
			got = "a mapping"
		}
		e.Msg = fmt.Sprintf("%s is not %s", got, KindName(typeErr.DstType))
		e.Fix = "give " + KindName(typeErr.DstType) + " here, as documented for this key"
		if key := keyOf(typeErr.Token); key != "" {
			e.Fix = fmt.Sprintf("give %s %s, as documented for this key", key, KindName(typeErr.DstType))
		}
	case errors.As(err, &overflow):
		// go-yaml says "Go value of type int ( overflow )"; say which key
		// and what fits.
		key := keyOf(overflow.Token)
		if key == "" {
			key = "this key"
		}
		e.Msg = fmt.Sprintf("%s is too large for %s", overflow.SrcNum, key)
		e.Fix = fmt.Sprintf("give %s %s in the range documented for it", key, KindName(overflow.DstType))
	case errors.As(err, &syntax):
		e.Msg = "not valid YAML: " + e.Msg
		e.Fix = "check indentation and quoting at this place"
		switch {
		case strings.Contains(e.Msg, "already defined"):
			e.Fix = "keep one of the two entries: a key may appear once per mapping"
		case strings.Contains(e.Msg, "found character '\t'"), strings.Contains(e.Msg, "found a tab character"):
			e.Fix = "indent with spaces: YAML does not allow tabs there"
		case strings.Contains(e.Msg, "tab character cannot use as a map key"):
			// go-yaml's words for a tab ahead of a key, placed after it.
			e.Msg = "not valid YAML: a tab character ahead of a key on this line"
			e.Fix = "indent with spaces: YAML does not allow tabs there"
		}
	case strings.Contains(e.Msg, "where sequence is expected"), strings.Contains(e.Msg, "where mapping is expected"):
		// "string was used where sequence is expected": a key that takes
		// a list (or a mapping) given a single value.
		want, eg, got := "a list", listForm, "a single value"
		if strings.Contains(e.Msg, "where mapping is expected") {
			want, eg = "a mapping", mapForm
		}
		// The kind given is the message's first word: "mapping was
		// used where sequence is expected" is a mapping, not a value.
		switch {
		case strings.Contains(e.Msg, "mapping was used"):
			got = "a mapping"
		case strings.Contains(e.Msg, "sequence was used"):
			got = "a list"
		}
		key := "this key"
		if ye != nil {
			if k := keyOf(ye.GetToken()); k != "" {
				key = k
			}
		}
		e.Msg = takesNot(key, want, got)
		e.Fix = fmt.Sprintf("write %s as %s", key, eg)
	default:
		if !strings.Contains(e.Msg, "YAML") {
			e.Msg = "cannot read YAML: " + e.Msg
		}
		if strings.Contains(e.Msg, "duplicate key") {
			// go-yaml also refuses a key that overrides one a merge key
			// (<<: *anchor) brings in, which YAML 1.1 allows.
			e.Fix = "give the key once per mapping; a key that overrides one merged in with <<: *anchor is refused too, so write that entry's keys out instead of merging"
		}
	}
	return exitcode.Usage(e)
}

// At returns an *Error positioned at the node found by path (a YAML path
// such as "$.sizing.gpus") in data, falling back to no position when the
// path is absent (the value came from a default).
func At(file string, data []byte, path, msg, fix string) error {
	return AtFirst(file, data, msg, fix, path)
}

// AtFirst is At at the first of paths that data holds: a key, then the
// mapping it would be in where a default or a sweep gave its value.
func AtFirst(file string, data []byte, msg, fix string, paths ...string) error {
	e := &Error{File: file, Msg: msg, Fix: fix}
	e.Line, e.Column = firstPosition(data, paths)
	return exitcode.Usage(e)
}

// Has says whether data holds a value at path (a key written out, its
// value null included).
func Has(data []byte, path string) bool {
	line, _ := firstPosition(data, []string{path})
	return line > 0
}

// firstPosition is the line and column of the first of paths that data
// holds, 0 and 0 for none.
func firstPosition(data []byte, paths []string) (line, col int) {
	f, err := parser.ParseBytes(withoutBOM(data), 0)
	if err != nil {
		return 0, 0
	}
	for _, path := range paths {
		p, err := yaml.PathString(path)
		if err != nil {
			continue
		}
		if n, err := p.FilterFile(f); err == nil && n != nil {
			if tok := n.GetToken(); tok != nil && tok.Position != nil {
				return tok.Position.Line, tok.Position.Column
			}
		}
	}
	return 0, 0
}

// keyOf returns the mapping key a value token belongs to ("gpus" for the
// 99 of "gpus: 99"), or "" when the token is not a mapping value.
func keyOf(tk *token.Token) string {
	if tk == nil {
		return ""
	}
	colon := tk.Prev
	if colon == nil || colon.Type != token.MappingValueType || colon.Prev == nil {
		return ""
	}
	key := colon.Prev.Value
	if _, err := strconv.Atoi(key); err == nil {
		return "the entry " + key // a map such as ets_weights: {3: 50}
	}
	return key
}

// Present reports whether the YAML path (such as "$.traffic[0].senders")
// is written in data. Decoding leaves 0 both for a key left out and for a
// key given as 0; where 0 stands for a default, Present tells them apart so
// that an explicit 0 is refused rather than silently replaced.
func Present(data []byte, path string) bool {
	f, err := parser.ParseBytes(withoutBOM(data), 0)
	return err == nil && present(f, path)
}

func present(f *ast.File, path string) bool {
	p, err := yaml.PathString(path)
	if err != nil {
		return false
	}
	n, err := p.FilterFile(f)
	return err == nil && n != nil
}

// ZeroField is a key whose zero value stands for a default.
type ZeroField struct {
	Path    string // YAML path: "$.sizing.gpus_per_server"
	IsZero  bool   // the decoded value is zero
	Default string // what leaving the key out gives: "8"
	Fix     string // what to write instead: "use 4, 8 or 16"
}

// ExplicitZero returns a positioned usage error for the first field that
// is zero because the file says 0 (not because the key is absent): 0 would
// otherwise silently mean the default. The file is parsed once, and only
// when some field is zero.
func ExplicitZero(file string, data []byte, fields []ZeroField) error {
	var f *ast.File
	for _, z := range fields {
		if !z.IsZero {
			continue
		}
		if f == nil {
			var err error
			if f, err = parser.ParseBytes(withoutBOM(data), 0); err != nil {
				return nil // decoding succeeded, so this does not happen
			}
		}
		if !present(f, z.Path) {
			continue
		}
		key := z.Path[strings.LastIndex(z.Path, ".")+1:]
		return At(file, data, z.Path, fmt.Sprintf("%s: 0 is not allowed (leaving %s out means %s)", key, key, z.Default),
			fmt.Sprintf("%s, or remove the key for the default", z.Fix))
	}
	return nil
}

// KindName says what a Go type is in YAML terms ("a whole number", "true
// or false"), for messages about a value of the wrong type.
func KindName(t reflect.Type) string {
	if t == nil {
		return "the documented type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping of keys"
	}
	return "the documented type"
}

// How a list and a mapping are written, for the fixes of a value of the
// wrong kind, and the message that names it (classify, and the walk's
// mapping where a list goes).
const (
	listForm = "[a, b], or one \"- \" item per line"
	mapForm  = "{key: value}, or one \"key: value\" per line"
)

func takesNot(key, want, got string) string {
	return fmt.Sprintf("%s takes %s, not %s", key, want, got)
}
