package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An InfiniBand lab gets its topology and its subnet manager's settings,
// no vendor configs; the config commands say why they have nothing to do.
func TestInfiniBandLabHasNoVendorConfigs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "ibl.yaml")
	if err := os.WriteFile(spec, []byte("name: ibl\nsizing: {gpus: 16}\ntransport: infiniband\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "up", spec, "--dir", dir); code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies/ibl/configs")); !os.IsNotExist(err) {
		t.Errorf("an InfiniBand lab got a configs folder (%v)", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "topologies/ibl/subnet-manager.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sm map[string]any
	if err := json.Unmarshal(data, &sm); err != nil || sm["infiniband"] == nil {
		t.Errorf("subnet-manager.json: %v\n%s", err, data)
	}
	for _, args := range [][]string{{"config", "render", spec}, {"config", "lint", spec}, {"config", "show", spec, "leaf1"}} {
		code, _, stderr := runCLI(t, append(args, "--dir", dir)...)
		if code != 2 || !strings.Contains(stderr, "runs InfiniBand: its switches take no vendor QoS configs") || !strings.Contains(stderr, "fix:") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// A RoCE lab is unchanged: configs, no SM file.
	if code, _, stderr := runCLI(t, "up", "16gpu", "--dir", dir); code != 0 {
		t.Fatalf("up 16gpu: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies/16gpu/configs/leaf1.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "topologies/16gpu/subnet-manager.json")); !os.IsNotExist(err) {
		t.Errorf("a RoCE lab got an SM file (%v)", err)
	}
}
