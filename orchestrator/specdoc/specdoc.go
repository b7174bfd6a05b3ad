// Package specdoc documents the keys of labctl's YAML specs from the Go
// types that decode them, so the reference cannot drift from the code: the
// keys, their nesting and their types come from the structs' yaml tags by
// reflection, and only what a key means and its default come from a table
// kept next to the struct. Check reports every key the table lacks (and
// every entry no key has any more), Markdown renders the reference
// (docs/lab-spec.md, docs/scenario-spec.md) and Explain one key, in the
// manner of kubectl explain.
package specdoc

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Entry documents one key.
type Entry struct {
	// Doc says what the key sets, its unit, the values it takes and what
	// it applies to.
	Doc string
	// Default is what leaving the key out gives ("" for a key that is
	// required or has no default worth naming).
	Default string
}

// Table documents a spec's keys by path: "sizing.gpus", and for a key of
// the mappings in a list "traffic[].pattern".
type Table map[string]Entry

// With returns a copy of t with sub's entries added under prefix (sub's
// "" entry documents prefix itself): a section two specs share (a lab's
// and a scenario's nic) is documented once.
func (t Table) With(prefix string, sub Table) Table {
	out := make(Table, len(t)+len(sub))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range sub {
		if k == "" {
			out[prefix] = v // the section's own entry
			continue
		}
		out[prefix+"."+k] = v
	}
	return out
}

// Key is one key of a spec: its path, YAML type and documentation.
type Key struct {
	Path  string
	Type  string
	Entry Entry
	// Children is true for a key whose value is a mapping with keys of its
	// own (documented separately).
	Children bool
}

// Keys lists every key of the spec type t (a struct) in declaration
// order, parents before their children, with each key's table entry.
func Keys(t reflect.Type, docs Table) []Key {
	var out []Key
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name := yamlName(f)
			if name == "" {
				continue
			}
			path := prefix + name
			inner, list := structOf(f.Type)
			k := Key{Path: path, Type: TypeName(f.Type), Entry: docs[path], Children: inner != nil}
			out = append(out, k)
			if inner != nil {
				if list {
					path += "[]"
				}
				walk(inner, path+".")
			}
		}
	}
	walk(deref(t), "")
	return out
}

// Check compares the table with the keys of t: every key needs an entry
// with a Doc, and every entry a key. table names the Go file holding the
// table, so each problem says exactly what to change where.
func Check(t reflect.Type, docs Table, what, table string) []error {
	var errs []error
	seen := map[string]bool{}
	for _, k := range Keys(t, docs) {
		seen[k.Path] = true
		if strings.TrimSpace(k.Entry.Doc) == "" {
			errs = append(errs, fmt.Errorf("%s key %q (%s) has no documentation: add to the table in %s\n\t%q: {Doc: \"<what it sets: unit, allowed values, what it applies to>\", Default: \"<what leaving it out gives>\"},\nthen run 'go test ./cmd/labctl -run TestSpecReference -update' to regenerate docs/",
				what, k.Path, k.Type, table, k.Path))
		}
	}
	var stale []string
	for path := range docs {
		if !seen[path] {
			stale = append(stale, path)
		}
	}
	sort.Strings(stale)
	for _, path := range stale {
		errs = append(errs, fmt.Errorf("%s: the table documents %q, which is no %s key (renamed or removed?): remove or rename its entry in %s", what, path, what, table))
	}
	return errs
}

// Markdown renders the reference: a title, the introduction, a table of
// every key and an example file.
func Markdown(title, intro string, t reflect.Type, docs Table, example, exampleName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", title, strings.TrimSpace(intro))
	b.WriteString("| key | type | default | meaning |\n|---|---|---|---|\n")
	for _, k := range Keys(t, docs) {
		def := k.Entry.Default
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Path, k.Type, cell(def), cell(k.Entry.Doc))
	}
	if example != "" {
		fmt.Fprintf(&b, "\n## Example: %s\n\n```yaml\n%s\n```\n", exampleName, strings.TrimRight(example, "\n"))
	}
	return b.String()
}

// Explain describes the key at path ("qos.ecn", "traffic.senders" or
// "traffic[].senders"; "" for the whole spec) and lists the keys under it.
// ok is false when no key has that path.
func Explain(t reflect.Type, docs Table, path string) (text string, ok bool) {
	path = strings.Trim(strings.ReplaceAll(path, "[]", ""), ".")
	keys := Keys(t, docs)
	plain := func(p string) string { return strings.ReplaceAll(p, "[]", "") }
	var b strings.Builder
	var self *Key
	for i := range keys {
		if plain(keys[i].Path) == path {
			self = &keys[i]
		}
	}
	if path != "" && self == nil {
		return "", false
	}
	if self != nil {
		fmt.Fprintf(&b, "KEY:     %s\nTYPE:    %s\n", self.Path, self.Type)
		if self.Entry.Default != "" {
			fmt.Fprintf(&b, "DEFAULT: %s\n", self.Entry.Default)
		}
		fmt.Fprintf(&b, "\n%s\n", Wrap(self.Entry.Doc, 76, ""))
	}
	prefix := ""
	if path != "" {
		prefix = path + "."
	}
	var children []Key
	for _, k := range keys {
		rest, found := strings.CutPrefix(plain(k.Path), prefix)
		if found && rest != "" && !strings.Contains(rest, ".") {
			children = append(children, k)
		}
	}
	if len(children) > 0 {
		if self != nil {
			b.WriteString("\n")
		}
		b.WriteString("KEYS:\n")
		width := 0
		for _, k := range children {
			width = max(width, len(lastPart(k.Path)))
		}
		for _, k := range children {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, lastPart(k.Path), k.Type)
			fmt.Fprintf(&b, "%s\n", Wrap(firstSentence(k.Entry.Doc), 72, "      "))
		}
	}
	return b.String(), true
}

// Paths lists every key's path, for completion and "did you mean".
func Paths(t reflect.Type) []string {
	var out []string
	for _, k := range Keys(t, nil) {
		out = append(out, strings.ReplaceAll(k.Path, "[]", ""))
	}
	return out
}

func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name) // the YAML library's default
	}
	return name
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// structOf returns the struct whose keys a field's value has (the field's
// own struct type, or its list element's), and whether it is a list.
func structOf(t reflect.Type) (reflect.Type, bool) {
	t = deref(t)
	switch t.Kind() {
	case reflect.Struct:
		return t, false
	case reflect.Slice, reflect.Array:
		if e := deref(t.Elem()); e.Kind() == reflect.Struct {
			return e, true
		}
	}
	return nil, false
}

// TypeName says what a value of t looks like in YAML ("integer",
// "list of mappings", ...), as the spec references write it.
func TypeName(t reflect.Type) string {
	t = deref(t)
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Struct:
		return "mapping"
	case reflect.Slice, reflect.Array:
		if e := deref(t.Elem()); e.Kind() == reflect.Struct {
			return "list of mappings"
		}
		return "list of " + plural(TypeName(t.Elem()))
	case reflect.Map:
		return fmt.Sprintf("mapping of %s to %s", TypeName(t.Key()), TypeName(t.Elem()))
	}
	return t.Kind().String()
}

func plural(s string) string {
	if slices.Contains([]string{"mapping", "integer", "number", "boolean", "string"}, s) {
		return s + "s"
	}
	return s
}

func lastPart(path string) string {
	path = strings.ReplaceAll(path, "[]", "")
	return path[strings.LastIndex(path, ".")+1:]
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// cell makes text safe for one markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Wrap breaks s into lines of at most width characters, each prefixed.
func Wrap(s string, width int, prefix string) string {
	var lines []string
	line := prefix
	for _, w := range strings.Fields(s) {
		if len(line) > len(prefix) && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
