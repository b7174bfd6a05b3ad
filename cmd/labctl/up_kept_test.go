package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpKeptEditsOneLine: labctl up on a lab whose every config the user
// edited says once which it kept (the switches' ranges), where it wrote a
// line a switch (48 on 1024gpu, 320 on a 4096-GPU lab); one edited config
// is still named by its path.
func TestUpKeptEditsOneLine(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "128gpu")
	cfgDir := filepath.Join(dir, "topologies", "128gpu", "configs")
	names, err := filepath.Glob(filepath.Join(cfgDir, "[a-z]*.json"))
	if err != nil || len(names) != 6 {
		t.Fatalf("want 6 configs: %v %v", names, err)
	}
	edit := func(name string) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(strings.Replace(string(data), "{", "{\n", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(filepath.Join(cfgDir, "leaf1.json"))
	code, _, stderr := runCLI(t, "up", "128gpu", "--dir", dir)
	if code != 0 || strings.Count(stderr, "kept") != 1 || !strings.Contains(stderr, "kept "+filepath.Join(cfgDir, "leaf1.json")+" as you edited it") {
		t.Errorf("up with leaf1.json edited: exit %d:\n%s", code, stderr)
	}
	for _, name := range names {
		edit(name)
	}
	code, _, stderr = runCLI(t, "up", "128gpu", "--dir", dir)
	if code != 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "kept the configs of 6 switches in "+cfgDir+" as you edited them (leaf1-4, spine1, spine2)") {
		t.Errorf("up with every config edited: exit %d, want one line naming the 6 switches:\n%s", code, stderr)
	}
}
