package runtime

import (
	"bytes"
	"os"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
)

// When a lab's spec changes (more GPUs: new host ports on the leaves), the
// next render rewrites the topology and the configs labctl wrote, and keeps
// the configs the user edited.
func TestRenderLabFollowsSpecChanges(t *testing.T) {
	dir := t.TempDir()
	build := func(gpus string) *Lab {
		spec, err := lab.Parse("mylab.yaml", []byte("name: mylab\nsizing:\n  gpus: "+gpus+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := NewLab(spec, dir, "")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	small := build("16")
	if _, _, err := RenderLab(small); err != nil {
		t.Fatal(err)
	}
	codec, _ := Codec(small.NOS)
	leaf := small.ConfigPath(codec, "leaf1")
	spine := small.ConfigPath(codec, "spine1")
	before, _ := os.ReadFile(leaf)
	topoBefore, _ := os.ReadFile(small.Dir + "/" + small.Graph.TopologyFile())
	// The user edits spine1; leaf1 stays as labctl wrote it.
	if err := os.WriteFile(spine, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	big := build("32")
	written, kept, err := RenderLab(big)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(leaf)
	if bytes.Equal(before, after) || !containsPath(written, leaf) {
		t.Errorf("leaf1's config was not re-rendered for the bigger lab (written %v)", written)
	}
	if topoAfter, _ := os.ReadFile(big.Dir + "/" + big.Graph.TopologyFile()); bytes.Equal(topoBefore, topoAfter) {
		t.Error("topology not rewritten for the bigger lab")
	}
	if got, _ := os.ReadFile(spine); string(got) != "{}\n" || len(kept) != 1 || kept[0] != spine {
		t.Errorf("edited spine1 config not kept: %q, kept %v", got, kept)
	}
	// A third render of the same lab writes nothing.
	if written, _, err = RenderLab(big); err != nil || len(written) != 0 {
		t.Errorf("re-render of an unchanged lab wrote %v (%v)", written, err)
	}
}
