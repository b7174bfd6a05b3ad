package specyaml

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/suggest"
)

// What Decode checks before the YAML library decodes a spec, because the
// library gets it wrong: it reads only a file's first document, truncates
// 64.5 to 64 for a whole-number key, reads a byte-order mark as part of
// the first key, and reports one of several unknown keys picked in map
// order (a different one on every run), with suggestions from any level.

// utf8BOM is the UTF-8 byte-order mark, which YAML allows at the start of
// a stream (YAML 1.2, 5.2) and editors on Windows write.
var utf8BOM = []byte("\xef\xbb\xbf")

// withoutBOM is data without a leading UTF-8 byte-order mark. Every parse
// of a spec goes through it, so that positions agree between Decode and
// the errors positioned afterwards (At, ExplicitZero).
func withoutBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// checkEncoding refuses a UTF-16 or UTF-32 file, which the YAML library
// reads as garbage: YAML specs are UTF-8.
func checkEncoding(file string, data []byte) error {
	for _, bom := range []struct{ mark, name string }{
		{"\x00\x00\xfe\xff", "UTF-32"}, {"\xff\xfe\x00\x00", "UTF-32"},
		{"\xfe\xff", "UTF-16"}, {"\xff\xfe", "UTF-16"},
	} {
		if bytes.HasPrefix(data, []byte(bom.mark)) {
			return exitcode.Usage(&Error{File: file, Line: 1, Column: 1,
				Msg: "the file is " + bom.name + " (it starts with a " + bom.name + " byte-order mark); labctl reads YAML in UTF-8",
				Fix: "save the file as UTF-8"})
		}
	}
	return nil
}

// checkDocuments refuses a file of more than one YAML document: labctl
// reads one spec per file, and the library would silently use the first
// (or, after an empty first document, none). The place is where the
// second document starts: its --- line, or its first line after a ...
// end marker. Documents holding nothing but comments are harmless.
func checkDocuments(file string, tokens token.Tokens) error {
	docs, open := 0, false
	var start *token.Token
	for _, tk := range tokens {
		switch tk.Type {
		case token.CommentType:
			continue
		case token.DocumentHeaderType:
			docs, open, start = docs+1, true, tk
			continue
		case token.DocumentEndType:
			open = false
			continue
		}
		if !open {
			docs, open, start = docs+1, true, tk
		}
		if docs < 2 {
			continue
		}
		e := &Error{File: file, Msg: "a second YAML document starts here; labctl reads one spec per file, and would ignore this one",
			Fix: "remove this --- line to make one document, or put each spec in a file of its own"}
		if start.Type != token.DocumentHeaderType {
			e.Msg = "a second YAML document starts here, after the document end marker (...); labctl reads one spec per file, and would ignore this one"
			e.Fix = "remove the ... line to make one document, or put each spec in a file of its own"
		}
		if start.Position != nil {
			e.Line, e.Column = start.Position.Line, start.Position.Column
		}
		return exitcode.Usage(e)
	}
	return nil
}

// checkTree walks a document against the Go type it decodes into, in file
// order, and returns the first problem the YAML library would report
// elsewhere or not at all:
//   - an unknown key, with a suggestion from the keys of its own mapping
//     (or the mapping it belongs in, when it is a key of another level);
//   - a fractional number for a whole-number key (the library truncates
//     64.5 to 64).
//
// Types that decode themselves (a NodeUnmarshaler such as the scenario
// matrix) are left to their own checks, and anything the walk does not
// understand (aliases, merge keys, a value of the wrong kind) to the
// library, which reports type errors.
func checkTree(file string, n ast.Node, root reflect.Type) error {
	w := walker{file: file, root: root}
	return w.walk(n, root, "")
}

type walker struct {
	file string
	root reflect.Type
}

var (
	nodeUnmarshaler      = reflect.TypeFor[yaml.NodeUnmarshaler]()
	nodeUnmarshalerCtx   = reflect.TypeFor[yaml.NodeUnmarshalerContext]()
	bytesUnmarshaler     = reflect.TypeFor[yaml.BytesUnmarshaler]()
	bytesUnmarshalerCtx  = reflect.TypeFor[yaml.BytesUnmarshalerContext]()
	ifaceUnmarshaler     = reflect.TypeFor[yaml.InterfaceUnmarshaler]()
	ifaceUnmarshalerCtx  = reflect.TypeFor[yaml.InterfaceUnmarshalerContext]()
	customUnmarshalTypes = []reflect.Type{nodeUnmarshaler, nodeUnmarshalerCtx, bytesUnmarshaler, bytesUnmarshalerCtx, ifaceUnmarshaler, ifaceUnmarshalerCtx}
)

func decodesItself(t reflect.Type) bool {
	for _, u := range customUnmarshalTypes {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return true
		}
	}
	return false
}

// walk checks node n against type t; path is where n is, as messages name
// it ("sizing", "traffic[0]"; "" for the top level).
func (w *walker) walk(n ast.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return nil
	}
	n = UnwrapNode(n)
	switch t.Kind() {
	case reflect.Struct:
		pairs, ok := mappingPairs(n)
		if !ok {
			return w.notList(n, path)
		}
		fields := structKeys(t)
		for _, p := range pairs {
			key, ok := keyText(p.Key)
			if !ok || key == "<<" {
				continue // a complex or merge key: the library's
			}
			ft, known := fields[key]
			if !known {
				return w.unknown(p.Key, key, path, t)
			}
			// A key written without a value (or with null) decodes as the
			// type's zero: the library would read "pairs:" as 0 and
			// "duration:" as not given, neither of which was written.
			if _, null := UnwrapNode(p.Value).(*ast.NullNode); null {
				e := &Error{File: w.file, Msg: fmt.Sprintf("%s has no value", join(path, key)), Fix: "give it a value, or leave the key out for its default"}
				setPos(e, p.Key)
				return exitcode.Usage(e)
			}
			if err := w.walk(p.Value, ft, join(path, key)); err != nil {
				return err
			}
		}
	case reflect.Map:
		pairs, ok := mappingPairs(n)
		if !ok {
			return w.notList(n, path)
		}
		seen := map[string]ast.Node{}
		for _, p := range pairs {
			key, _ := keyText(p.Key)
			if err := w.whole(p.Key, t.Key(), path, true); err != nil {
				return err
			}
			// The parser refuses a key written twice, but 3 and 3.0 (or
			// "3") are one key of an int-keyed map, of which the library
			// would keep the last silently.
			if num, ok := wholeKey(p.Key, t.Key()); ok {
				if first, dup := seen[num]; dup {
					e := &Error{File: w.file, Msg: fmt.Sprintf("%s gives key %s twice (as %s here and %s at line %d)", levelName(path), num, nodeText(p.Key), nodeText(first), line(first)),
						Fix: "keep one of the two entries"}
					setPos(e, p.Key)
					return exitcode.Usage(e)
				}
				seen[num] = p.Key
			}
			if err := w.walk(p.Value, t.Elem(), join(path, key)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			if pairs, isMap := mappingPairs(n); isMap && len(pairs) == 0 && t.Kind() == reflect.Slice {
				// {}: the library refuses it with its own words,
				// "mapping was used where sequence is expected".
				e := &Error{File: w.file, Msg: takesNot(levelName(path), "a list", "a mapping ({})"),
					Fix: fmt.Sprintf("write %s as a list: one \"- \" item per line, or [] for none", levelName(path))}
				setPos(e, n)
				return exitcode.Usage(e)
			} else if isMap && len(pairs) > 0 && t.Kind() == reflect.Slice {
				// The library would decode the mapping's values as the
				// list's items and refuse the first one's key as the
				// wrong kind, pointing inside it.
				e := &Error{File: w.file, Msg: takesNot(levelName(path), "a list", "a mapping"),
					Fix: fmt.Sprintf("make each entry of %s a list item: \"- \" before its first key, its other keys aligned under that one", levelName(path))}
				if k := derefKind(t.Elem()); k != reflect.Struct && k != reflect.Map {
					e.Fix = fmt.Sprintf("write %s as %s", levelName(path), listForm)
				}
				setPos(e, pairs[0].Key)
				return exitcode.Usage(e)
			}
			return nil
		}
		for i, v := range seq.Values {
			if _, null := UnwrapNode(v).(*ast.NullNode); null {
				if k := derefKind(t.Elem()); k == reflect.Struct || k == reflect.Map {
					// A "-" with nothing after it decoded as an entry
					// of zero values, refused later at no place (traffic's
					// said unknown pattern "").
					e := &Error{File: w.file, Msg: fmt.Sprintf("%s[%d] is empty", levelName(path), i),
						Fix: "give the entry its keys after the \"- \", or remove the line"}
					setPos(e, v)
					return exitcode.Usage(e)
				}
			}
			if err := w.walk(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	default:
		return w.whole(n, t, path, false)
	}
	return nil
}

// derefKind is t's kind through pointers.
func derefKind(t reflect.Type) reflect.Kind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind()
}

// notList refuses a list where the mapping at path belongs (the whole
// file, a section, a list's item); anything else there is the library's
// to report.
func (w *walker) notList(n ast.Node, path string) error {
	if _, scalar := n.(ast.ScalarNode); scalar && path == "" {
		if _, null := n.(*ast.NullNode); !null {
			e := &Error{File: w.file, Msg: "the file is a single value; a spec is a mapping of keys (name: ..., and the others documented)",
				Fix: "write the spec's keys as \"key: value\" lines"}
			setPos(e, n)
			return exitcode.Usage(e)
		}
	}
	if _, ok := n.(*ast.SequenceNode); !ok {
		return nil
	}
	e := &Error{File: w.file, Msg: fmt.Sprintf("%s takes a mapping of keys, not a list", levelName(path)),
		Fix: "write its keys as \"key: value\" lines, without the \"- \" in front"}
	if path == "" {
		e.Msg = "the file is a list; a spec is a mapping of keys (name: ..., and the others documented)"
	}
	setPos(e, n)
	return exitcode.Usage(e)
}

// whole refuses a number with a fraction where t is a whole number (the
// value at path, or with isKey a key of the map at path): the
// library would drop the fraction (gpus: 64.5 would plan 64 GPUs). A
// whole number written as a float (64.0, 1e3) is that number.
func (w *walker) whole(n ast.Node, t reflect.Type, path string, isKey bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return nil
	}
	var f float64
	switch x := UnwrapNode(n).(type) {
	case *ast.FloatNode:
		f = x.Value
	case *ast.StringNode:
		// The library reads "64.5" as 64 too.
		v, err := strconv.ParseFloat(strings.TrimSpace(x.Value), 64)
		if err != nil {
			return nil // not a number: the library's type error
		}
		f = v
	default:
		return nil
	}
	if math.IsInf(f, 0) || math.IsNaN(f) || f == math.Trunc(f) {
		return nil // infinity overflows in the library; whole is fine
	}
	num := strconv.FormatFloat(f, 'g', -1, 64)
	msg := fmt.Sprintf("%s must be a whole number, not %s", path, num)
	switch {
	case isKey:
		msg = fmt.Sprintf("the keys of %s must be whole numbers, not %s", levelName(path), num)
	case path == "":
		msg = fmt.Sprintf("this value must be a whole number, not %s", num)
	}
	// Ceil(-0.5) is -0, which +0 writes as 0.
	e := &Error{File: w.file, Msg: msg,
		Fix: fmt.Sprintf("write %s or %s", strconv.FormatFloat(math.Floor(f), 'f', -1, 64), strconv.FormatFloat(math.Ceil(f)+0, 'f', -1, 64))}
	setPos(e, n)
	return exitcode.Usage(e)
}

// unknown is the error for key, unknown in the mapping at path (of type
// t): the suggestion comes from t's own keys, or names the mapping the key
// belongs in when it is a key of another level of the spec.
func (w *walker) unknown(keyNode ast.Node, key, path string, t reflect.Type) error {
	e := &Error{File: w.file, Msg: fmt.Sprintf("unknown field %q", key)}
	if path != "" {
		e.Msg += " in " + path
	}
	setPos(e, keyNode)
	own := structKeys(t)
	names := slices.Sorted(maps.Keys(own))
	// A key of another level (gpus at the top of a lab spec) is more
	// likely misplaced than misspelt; a key near one of this level's
	// likely misspelt; one near a key of another level both.
	var where, nearElsewhere []string
	for _, k := range specKeys(w.root) {
		if k.key == key {
			where = append(where, k.path)
		} else if k.path != path && suggest.Nearest(key, []string{k.key}) != "" {
			nearElsewhere = append(nearElsewhere, fmt.Sprintf("%q under %s", k.key, k.path))
		}
	}
	switch near := suggest.Nearest(key, names); {
	case len(where) > 0:
		e.Fix = fmt.Sprintf("%s is a key of %s, not of %s: move it there", key, strings.Join(where, " or "), levelName(path))
	case near != "":
		e.Fix = fmt.Sprintf("did you mean %q?", near)
	case len(nearElsewhere) > 0:
		e.Fix = fmt.Sprintf("did you mean %s? (%s has no key spelt like it)", strings.Join(nearElsewhere, " or "), levelName(path))
	default:
		e.Fix = fmt.Sprintf("remove or correct the key; the keys of %s are %s", levelName(path), strings.Join(names, ", "))
	}
	return exitcode.Usage(e)
}

func levelName(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// specKey is a key of a mapping of a spec type: the mapping's path (with
// list indexes as [i]; "" for the top level) and the key.
type specKey struct{ path, key string }

// specKeys lists every key of the spec type root below the top level, in
// path and key order (the scenario matrix, which decodes itself, adds
// none).
func specKeys(root reflect.Type) []specKey {
	var out []specKey
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type, path string)
	visit = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
				path += "[i]"
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || decodesItself(t) {
			return
		}
		seen[t] = true // a recursive type is walked once per branch
		defer delete(seen, t)
		fields := structKeys(t)
		names := slices.Sorted(maps.Keys(fields))
		for _, k := range names {
			if path != "" {
				out = append(out, specKey{path, k})
			}
			visit(fields[k], join(path, k))
		}
	}
	visit(root, "")
	return out
}

// structKeys maps the YAML keys of struct t to their types, as the
// library names them: the yaml tag's name, else the lower-cased field
// name; "-" and unexported fields are no keys; inline structs add theirs.
func structKeys(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || (f.PkgPath != "" && !f.Anonymous) {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range structKeys(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// mappingPairs returns the key-value pairs of a mapping node (a one-pair
// mapping is a bare MappingValueNode), false for anything else.
func mappingPairs(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	}
	return nil, false
}

// keyText is a scalar key's text; false for complex keys.
func keyText(n ast.Node) (string, bool) {
	if s, ok := UnwrapNode(n).(ast.ScalarNode); ok {
		if tk := s.GetToken(); tk != nil {
			return tk.Value, true
		}
		return fmt.Sprint(s.GetValue()), true
	}
	return "", false
}

// UnwrapNode looks through anchors and tags at the node they mark.
func UnwrapNode(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.TagNode:
			n = x.Value
		default:
			return n
		}
	}
}

// wholeKey is the number an int-keyed map's key node stands for, as
// decimal text ("3" for 3, 3.0 and "3"); false for other maps and for
// keys that are no whole number (the library reports those).
func wholeKey(n ast.Node, t reflect.Type) (string, bool) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return "", false
	}
	text, ok := keyText(n)
	if !ok {
		return "", false
	}
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// nodeText is a node's text as written.
func nodeText(n ast.Node) string {
	if tk := n.GetToken(); tk != nil {
		return tk.Value
	}
	return n.String()
}

// line is a node's line, 0 when unknown.
func line(n ast.Node) int {
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}

func setPos(e *Error, n ast.Node) {
	if n == nil {
		return
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		e.Line, e.Column = tk.Position.Line, tk.Position.Column
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
