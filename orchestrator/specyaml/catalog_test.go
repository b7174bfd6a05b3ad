package specyaml

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

func testCatalog() Catalog {
	return Catalog{
		FS: fstest.MapFS{
			"small.yaml": {Data: []byte("name: small\n")},
			"big.yaml":   {Data: []byte("name: big\n")},
			"README.md":  {Data: []byte("not a spec")},
		},
		Dir: "labs", Kind: "lab", Label: "lab spec", FileNoun: "spec file",
	}
}

func TestCatalogNames(t *testing.T) {
	if got, want := testCatalog().Names(), []string{"big", "small"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

func TestCatalogResolve(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(user, []byte("name: mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop.yaml")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in         string
		file, src  string
		data       string
		errContain string
	}{
		{in: "small", file: "labs/small.yaml", src: "catalog:small", data: "name: small\n"},
		{in: user, file: user, src: user, data: "name: mine\n"},
		{in: "", errContain: "no lab given: name a catalog lab (big, small) or a spec file"},
		{in: "nosuch", errContain: `unknown lab "nosuch" (fix: use a catalog lab: big, small, or the path of a spec file)`},
		{in: "smal", errContain: `unknown lab "smal" (fix: did you mean small? use a catalog lab: big, small, or the path of a spec file)`},
		{in: filepath.Join(dir, "missing.yaml"), errContain: "missing.yaml: file not found (fix: check the path, or name a catalog lab: big, small)"},
		{in: loop, errContain: "lab spec " + loop + ": cannot read it: open " + loop + ": too many levels of symbolic links (fix: give the path of a readable spec file, or name a catalog lab: big, small)"},
		{in: dir + "/", errContain: dir + "/: not a regular file: it is a directory, and labctl reads lab specs only from files (fix: name a file inside the directory)"},
	}
	for _, tc := range tests {
		doc, err := testCatalog().Resolve(tc.in)
		if tc.errContain != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errContain) {
				t.Errorf("Resolve(%q) error = %v, want it to contain %q", tc.in, err, tc.errContain)
			}
			if exitcode.Code(err) != exitcode.BadInput {
				t.Errorf("Resolve(%q) exit code = %d, want %d", tc.in, exitcode.Code(err), exitcode.BadInput)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q): %v", tc.in, err)
			continue
		}
		if doc.File != tc.file || doc.Source != tc.src || string(doc.Data) != tc.data {
			t.Errorf("Resolve(%q) = {%q %q %q}, want {%q %q %q}", tc.in, doc.File, doc.Source, doc.Data, tc.file, tc.src, tc.data)
		}
	}
}

func TestCatalogEntryIgnoresFiles(t *testing.T) {
	// A file named like a catalog entry in the working directory must not
	// shadow the entry when the catalog is read by name.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("small", []byte("name: local\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := testCatalog().Entry("small")
	if err != nil || doc.Source != "catalog:small" {
		t.Errorf("Entry(small) = %+v, %v; want the catalog entry", doc, err)
	}
	if doc, err := testCatalog().Resolve("small"); err != nil || doc.Source != "small" {
		t.Errorf("Resolve(small) = %+v, %v; want the existing file", doc, err)
	}
}

// A catalog with Sort lists its names, in every message, in that order.
func TestCatalogSort(t *testing.T) {
	c := testCatalog()
	c.Sort = func(names []string) { slices.Reverse(names) }
	if got := strings.Join(c.Names(), ","); got != "small,big" {
		t.Errorf("Names() = %s, want small,big", got)
	}
	if _, err := c.Resolve("nosuch"); err == nil || !strings.Contains(err.Error(), "use a catalog lab: small, big,") {
		t.Errorf("the unknown lab's list is not in the catalog's order: %v", err)
	}
}
