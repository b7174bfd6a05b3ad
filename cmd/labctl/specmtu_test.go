package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/qos"
)

// A UET lab's qos.mtu of 9216 made labctl write mtu 9276 on an EOS lab's
// fabric ports (the payload plus 60 bytes of headers), which EOS refuses
// (eos.MaxMTU): up and plan went on, and the switches kept their default
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
	over := eos.MaxMTU - qos.RoCEHeaderBytes + 1
	eosSpec, sonicSpec := spec("uet-eos", "eos", over), spec("uet-sonic", "sonic", over)
	work := filepath.Join(dir, "work")
	for _, args := range [][]string{
		{"plan", eosSpec},
		{"--dir", work, "up", eosSpec},
		{"--dir", work, "up", sonicSpec, "--nos", "eos"},
	} {
		code, _, stderr := runCLI(t, args...)
		for _, want := range []string{":8:", "qos.mtu", fmt.Sprint(over), fmt.Sprint(eos.MaxMTU), fmt.Sprintf("at most %d", eos.MaxMTU-qos.RoCEHeaderBytes)} {
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
