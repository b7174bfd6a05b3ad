package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The package documentation names only identifiers the package declares
// (types, functions, constants, variables, fields, methods): a renamed
// or removed one (MellanoxDCQCN, NAKIntervalNs) fails here until the
// prose describes the code as it is.
func TestPackageDocNamesExist(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	var doc string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc += f.Doc.Text()
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				declared[x.Name] = true
			}
			return true
		})
	}
	if !strings.Contains(doc, "# Model") {
		t.Fatalf("no package documentation found")
	}
	// CamelCase words with an inner capital look like Go names; these
	// few are prose.
	prose := []string{"ConnectX", "RoCE", "AllReduce"}
	camel := regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*\b`)
	seen := 0
	for _, w := range camel.FindAllString(doc, -1) {
		if slices.Contains(prose, w) {
			continue
		}
		seen++
		if !declared[w] {
			t.Errorf("the package doc names %s, which package sim does not declare", w)
		}
	}
	if seen < 20 {
		t.Errorf("the package doc names %d identifiers: the pattern no longer finds them", seen)
	}
}
