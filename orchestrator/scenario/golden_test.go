package scenario

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/sizing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestCatalogExpansionGolden pins the flows every catalog scenario starts
// on the 64-GPU catalog lab: which NICs send to which, with what
// parameters. A change here changes what the scenarios measure, so it is
// reviewed like code.
func TestCatalogExpansionGolden(t *testing.T) {
	nics := catalogNICs(t)
	g := catalogGraph(t, "64gpu")
	for _, name := range CatalogNames() {
		t.Run(name, func(t *testing.T) {
			s, err := Resolve(name)
			if err != nil {
				t.Fatal(err)
			}
			// As a run does: the lab's fabric resolves links named by path.
			if err := s.CheckLab(g); err != nil {
				t.Fatal(err)
			}
			checkExpansionGolden(t, s, nics, name)
		})
	}
}

// checkExpansionGolden compares every variant s expands to on nics (seed
// 1) with testdata/expand/<name>-64gpu.json, or writes it with -update.
func checkExpansionGolden(t *testing.T, s *Spec, nics []NIC, name string) {
	t.Helper()
	var out []any
	for _, pt := range s.Points() {
		vs, err := s.Expand(nics, pt, 1)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, vs)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "expand", name+"-64gpu.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if buf.String() != string(want) {
		t.Errorf("%s differs from the golden file; review and run go test -update", path)
	}
}

// catalogGraph is the fabric graph of a catalog lab.
func catalogGraph(t *testing.T, name string) *fabric.Graph {
	t.Helper()
	spec, err := lab.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sizing.Compute(spec.Sizing)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fabric.Build(spec, plan)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// catalogNICs are the NICs of the 64-GPU catalog lab.
func catalogNICs(t *testing.T) []NIC {
	t.Helper()
	nics := NICsFromGraph(catalogGraph(t, "64gpu"))
	if len(nics) != 64 {
		t.Fatalf("%d NICs", len(nics))
	}
	return nics
}
