package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/qos"
)

// A UET lab's qos.mtu of 9216 made labctl write mtu 9276 on an EOS lab's
// fabric ports (the payload plus 60 bytes of headers), which EOS refuses
// (eos.LabMaxMTU, cEOS's): up and plan went on, and the switches kept their default
// MTU. Both refuse the spec now (exit 2) at qos.mtu, naming the value,
// the limit and the fix; the largest qos.mtu EOS takes, and the same spec
// on SONiC, are not refused.
func TestSpecMTUBeyondEOS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := func(name, nos string, mtu int) string {
		path := filepath.Join(dir, name+".yaml")
		body := fmt.Sprintf("name: %s\nsizing:\n  gpus: 16\nnos: %s\ntransport: uet\nqos:\n  profile: roce-dcqcn\n  mtu: %d\n", name, nos, mtu)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	over := eos.LabMaxMTU - qos.RoCEHeaderBytes + 1
	eosSpec, sonicSpec := spec("uet-eos", "eos", over), spec("uet-sonic", "sonic", over)
	work := filepath.Join(dir, "work")
	for _, args := range [][]string{
		{"plan", eosSpec},
		{"--dir", work, "up", eosSpec},
		{"--dir", work, "up", sonicSpec, "--nos", "eos"},
		// Every command that renders or lints the spec's configs: they
		// wrote or linted mtu 9276 configs and exited 0 (EOS), or failed
		// in the render with a raw SONiC error, exit 1.
		{"--dir", work, "config", "render", eosSpec},
		{"--dir", work, "config", "render", sonicSpec, "--nos", "eos"},
		{"--dir", work, "config", "lint", eosSpec},
		{"--dir", work, "topo", eosSpec},
		{"--dir", work, "topo", sonicSpec, "--nos", "eos"},
	} {
		code, _, stderr := runCLI(t, args...)
		for _, want := range []string{":8:", "qos.mtu", fmt.Sprint(over), fmt.Sprint(eos.LabMaxMTU), fmt.Sprintf("at most %d", eos.LabMaxMTU-qos.RoCEHeaderBytes)} {
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%v: exit %d, %q lacks %q; want exit 2", args, code, stderr, want)
				break
			}
		}
	}
	if code, _, stderr := runCLI(t, "plan", sonicSpec); code != 0 {
		t.Errorf("plan of the SONiC spec: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "plan", spec("uet-eos-max", "eos", over-1)); code != 0 {
		t.Errorf("plan of qos.mtu %d on EOS: exit %d: %s", over-1, code, stderr)
	}
}

// TestSpecMTUSONiC: SONiC's PORT mtu takes 68-9216 (portsorch), and the
// startup config labctl gives its SONiC switches sets 9100: a UET lab
// whose packets need more gets the mtu in its rendered configs (before,
// the render left it out and the switches' 9100 dropped the lab's jumbo
// packets, which lint and the run did not see), and one beyond 9216 is
// refused at qos.mtu.
func TestSpecMTUSONiC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, _, hi := sonic.Plugin{}.MTULimits()
	spec := func(name string, mtu int) string {
		path := filepath.Join(dir, name+".yaml")
		body := fmt.Sprintf("name: %s\nsizing:\n  gpus: 16\nnos: sonic\ntransport: uet\nqos:\n  profile: roce-dcqcn\n  mtu: %d\n", name, mtu)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	work := filepath.Join(dir, "work")
	over := hi - qos.RoCEHeaderBytes + 1
	code, _, stderr := runCLI(t, "--dir", work, "up", spec("uet-over", over))
	// config render wrote nothing and exited 1 on SONiC's own check
	// (PORT|Ethernet0 mtu: ... is outside 68-9216), not at qos.mtu.
	if rc, _, rerr := runCLI(t, "--dir", work, "config", "render", spec("uet-over-render", over)); rc != 2 || !strings.Contains(rerr, "qos.mtu") {
		t.Errorf("config render at qos.mtu %d: exit %d: %s; want exit 2 at qos.mtu", over, rc, rerr)
	}
	for _, want := range []string{":8:", "qos.mtu", fmt.Sprint(over), fmt.Sprint(hi), fmt.Sprintf("at most %d", hi-qos.RoCEHeaderBytes)} {
		if code != 2 || !strings.Contains(stderr, want) {
			t.Fatalf("up at qos.mtu %d: exit %d, %q lacks %q; want exit 2", over, code, stderr, want)
		}
	}
	if code, _, stderr := runCLI(t, "--dir", work, "up", spec("uet-max", over-1)); code != 0 {
		t.Fatalf("up at qos.mtu %d: exit %d: %s", over-1, code, stderr)
	}
	configs, err := filepath.Glob(filepath.Join(work, "topologies", "uet-max", "configs", "[^.]*.json"))
	if err != nil || len(configs) == 0 {
		t.Fatalf("no rendered configs (%v)", err)
	}
	for _, path := range configs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			PORT map[string]map[string]string
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(doc.PORT) == 0 {
			t.Fatalf("%s: no PORT mtu: the switches' own 9100 would drop the lab's %d-byte packets", path, hi)
		}
		for port, e := range doc.PORT {
			if e["mtu"] != fmt.Sprint(hi) {
				t.Errorf("%s: PORT|%s mtu %q, want %d", path, port, e["mtu"], hi)
			}
		}
	}
	if code, stdout, stderr := runCLI(t, "--dir", work, "config", "lint", "uet-max"); code != 0 || !strings.Contains(stdout, " 0 errors, 0 warnings") {
		t.Errorf("config lint of the rendered lab: exit %d: %s%s", code, stdout, stderr)
	}
}
