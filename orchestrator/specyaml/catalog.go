package specyaml

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/suggest"
)

// Catalog is where specs of one kind come from: the embedded catalog of
// <name>.yaml files, or a file the user names by path. Its words go into
// the error messages, which tell the user both ways of naming a spec.
type Catalog struct {
	FS       fs.FS  // the embedded catalog, <name>.yaml at its root
	Dir      string // the catalog's folder in the source tree, named in errors: "labs"
	Kind     string // what a spec is: "lab", "scenario"
	Label    string // what errors about a user's file start with: "lab spec"
	FileNoun string // what a user's file is called: "spec file"
	// Sort, when set, puts the names in the order the catalog is listed
	// in (the labs by size); else they are in file-name order.
	Sort func(names []string)
}

// Doc is the text of a spec and where it came from.
type Doc struct {
	File   string // the name errors point at: "labs/<name>.yaml" or the user's path
	Source string // "catalog:<name>" or the user's path, as recorded with results
	Data   []byte
}

// Names lists the catalog's entries in the catalog's order (Sort), else
// in file-name order. Every list of the catalog in labctl's messages is in
// this order.
func (c Catalog) Names() []string {
	entries, _ := fs.ReadDir(c.FS, ".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	if c.Sort != nil {
		c.Sort(names)
	}
	return names
}

// Resolve reads a spec given by catalog name or by the path of a file. A
// value that names an existing file, or contains a path separator, or ends
// in .yaml/.yml is a path; anything else is a catalog name. Errors exit 2
// and list the catalog.
func (c Catalog) Resolve(nameOrPath string) (Doc, error) {
	if nameOrPath == "" {
		return Doc{}, exitcode.Usagef("no %s given: name a catalog %s (%s) or a %s", c.Kind, c.Kind, c.list(), c.FileNoun)
	}
	if !looksLikePath(nameOrPath) {
		return c.Entry(nameOrPath)
	}
	limit := readlimit.Spec
	limit.What = c.Label + "s"
	data, err := readlimit.ReadFile(nameOrPath, limit)
	if err != nil {
		if exitcode.Code(err) == exitcode.BadInput {
			return Doc{}, err // over the size cap: the error names file, cap and fix
		}
		if errors.Is(err, fs.ErrNotExist) {
			return Doc{}, exitcode.Usagef("%s %s: file not found (fix: check the path, or name a catalog %s: %s)", c.Label, nameOrPath, c.Kind, c.list())
		}
		return Doc{}, exitcode.Usagef("%s %s: cannot read it: %v (fix: give the path of a readable %s, or name a catalog %s: %s)", c.Label, nameOrPath, err, c.FileNoun, c.Kind, c.list())
	}
	return Doc{File: nameOrPath, Source: nameOrPath, Data: data}, nil
}

// Entry reads the catalog spec called name, never a file of that name.
func (c Catalog) Entry(name string) (Doc, error) {
	data, err := fs.ReadFile(c.FS, name+".yaml")
	if err != nil {
		mean := ""
		if near := suggest.Nearest(name, c.Names()); near != "" {
			mean = fmt.Sprintf("did you mean %s? ", near)
		}
		return Doc{}, exitcode.Usagef("unknown %s %q (fix: %suse a catalog %s: %s, or the path of a %s)", c.Kind, name, mean, c.Kind, c.list(), c.FileNoun)
	}
	return Doc{File: c.Dir + "/" + name + ".yaml", Source: "catalog:" + name, Data: data}, nil
}

func (c Catalog) list() string { return strings.Join(c.Names(), ", ") }

func looksLikePath(s string) bool {
	if strings.ContainsRune(s, '/') || strings.ContainsRune(s, filepath.Separator) ||
		strings.HasSuffix(s, ".yaml") || strings.HasSuffix(s, ".yml") {
		return true
	}
	st, err := os.Stat(s)
	return err == nil && st.Mode().IsRegular()
}

// AbsSource is a Doc's Source as a record keeps it: a catalog entry's as
// it is, a file's by its absolute path, so that it resolves from any
// directory (a relative path recorded by 'labctl up lab.yaml' or 'labctl
// run s.yaml' no longer resolved after a cd).
func AbsSource(src string) string {
	if strings.HasPrefix(src, "catalog:") || src == "" || filepath.IsAbs(src) {
		return src
	}
	if abs, err := filepath.Abs(src); err == nil {
		return abs
	}
	return src
}

// IsFileSource says whether a Doc's Source names a file (not the catalog).
func IsFileSource(src string) bool { return src != "" && !strings.HasPrefix(src, "catalog:") }
