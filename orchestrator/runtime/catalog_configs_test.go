package runtime

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/labctl/labctl/orchestrator/configset"
	"github.com/labctl/labctl/orchestrator/lab"
)

var updateConfigs = flag.Bool("update", false, "rewrite the committed topologies/<lab>/configs/ of the catalog labs")

// The catalog labs' vendor configs are committed under
// topologies/<lab>/configs/ (with labctl's manifest), so that a user who
// edits one sees the change in version control and labctl recognises the
// rest as its own. This test fails when the renderer and the committed
// files drift; go test ./orchestrator/runtime -update rewrites them.
func TestCommittedCatalogConfigs(t *testing.T) {
	root := filepath.Join("..", "..", "topologies")
	for _, spec := range lab.Catalog() {
		t.Run(spec.Name, func(t *testing.T) {
			l, err := NewLab(spec, t.TempDir(), "")
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := RenderLab(l); err != nil {
				t.Fatal(err)
			}
			committed := filepath.Join(root, spec.Name, "configs")
			entries, err := os.ReadDir(l.ConfigsDir())
			if err != nil {
				t.Fatal(err)
			}
			if *updateConfigs {
				if err := os.RemoveAll(committed); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(committed, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			want := map[string]bool{}
			for _, e := range entries {
				want[e.Name()] = true
				data, err := os.ReadFile(filepath.Join(l.ConfigsDir(), e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(committed, e.Name())
				if *updateConfigs {
					if err := os.WriteFile(path, data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./orchestrator/runtime -update)", err)
				}
				if !bytes.Equal(got, data) {
					t.Errorf("%s differs from what labctl renders (run go test ./orchestrator/runtime -update and review the diff)", path)
				}
			}
			have, _ := os.ReadDir(committed)
			for _, e := range have {
				if !want[e.Name()] {
					t.Errorf("stale file %s (run -update)", filepath.Join(committed, e.Name()))
				}
			}
			if !want[configset.ManifestName] {
				t.Errorf("no %s rendered", configset.ManifestName)
			}
		})
	}
}
