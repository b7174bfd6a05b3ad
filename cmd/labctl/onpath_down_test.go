package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnPathSkipsDownLink: a link-down fault with on_path fails the
// uplink the flow's data takes with the lab's links as they come up. On
// 64gpu at seed 1 the link-failure scenario's flow hashes onto
// leaf1:Ethernet132 with every link up; with that port administratively
// down in leaf1's config the run was refused (the fault would change
// nothing). It now fails the uplink the switches route the flow onto
// instead, its data is lost there until the switches route around it, and
// the record counts the QP on the failed link (its route at the start
// leaves out the link down from the start).
func TestOnPathSkipsDownLink(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "64gpu")
	code, before, stderr := runJSON(t, dir, "link-failure", "64gpu")
	if code != 0 || before == nil {
		t.Fatalf("run with every link up: exit %d: %s", code, stderr)
	}
	first := ""
	for _, m := range before.Variants[0].Timeline {
		if m.Kind == "link down" {
			first = m.Where
			break
		}
	}
	if !strings.HasPrefix(first, "leaf1:Ethernet132 - ") {
		t.Fatalf("the fault at seed 1 with every link up is on %q; the test takes leaf1:Ethernet132 down", first)
	}
	leaf := filepath.Join(dir, "topologies", "64gpu", "configs", "leaf1.json")
	data, err := os.ReadFile(leaf)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "{", `{"PORT": {"Ethernet132": {"admin_status": "down"}},`, 1)
	if err := os.WriteFile(leaf, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, run, stderr := runJSON(t, dir, "link-failure", "64gpu")
	if code != 0 || run == nil {
		t.Fatalf("run with leaf1:Ethernet132 down: exit %d: %s", code, stderr)
	}
	for _, v := range run.Variants {
		var faulted string
		for _, m := range v.Timeline {
			if m.Kind == "link down" && m.TimeUs > 0 {
				faulted = m.Where
				break
			}
		}
		x, _ := v.Extra["faults"].(map[string]any)
		if faulted == "" || strings.HasPrefix(faulted, "leaf1:Ethernet132 ") || !strings.HasPrefix(faulted, "leaf1:") {
			t.Errorf("%s: the fault took %q down, want another uplink of leaf1", v.Name, faulted)
		}
		if n, _ := x["qps_on_failed_links"].(float64); n < 1 || x["link_drops"] == 0.0 || x["rerouted_qps"] != 0.0 {
			t.Errorf("%s: faults %v, want the QP on the failed link, packets lost there, and no QP moved by the link down from the start", v.Name, x)
		}
	}
}
