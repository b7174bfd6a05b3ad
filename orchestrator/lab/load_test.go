package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/sizing"
)

func TestCatalogLoadsAndPlans(t *testing.T) {
	specs := Catalog()
	if len(specs) != 4 {
		t.Fatalf("catalog has %d labs, want 4", len(specs))
	}
	for _, s := range specs {
		if _, err := sizing.Compute(s.Sizing); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		got, err := Resolve(s.Name)
		if err != nil || got.Name != s.Name || got.Source != "catalog:"+s.Name {
			t.Errorf("Resolve(%q) = %+v, %v", s.Name, got, err)
		}
	}
}

func TestSpecErrorsNamePlace(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"misspelt key", "name: a\nsizing:\n  gpus: 64\n  nic_sped_gbps: 200\n", "x.yaml:4:3: unknown field \"nic_sped_gbps\""},
		{"wrong type", "name: a\nsizing:\n  gpus: many\n", "x.yaml:3:9"},
		{"impossible value", "name: a\nsizing:\n  gpus: 64\n  nic_speed_gbps: 300\n", "x.yaml:4:19: 300 Gb/s is not an Ethernet NIC speed"},
		{"zero gpus", "name: a\nsizing:\n  gpus: 0\n", "x.yaml:3:9: must be a positive number"},
		{"no gpus", "name: a\n", "must be a positive number"},
		{"bad name", "name: My_Lab\nsizing:\n  gpus: 8\n", "x.yaml:1:7: lab name"},
		{"bad nos", "name: a\nnos: junos\nsizing:\n  gpus: 8\n", "x.yaml:2:6: unknown nos"},
		{"not yaml", "name: [a\n", "x.yaml:"},
		{"empty", "\n", "file is empty"},
		{"list", "- a\n- b\n", "x.yaml:1:1"},
		{"ecn order", "name: a\nsizing:\n  gpus: 8\nqos:\n  ecn:\n    kmin_kb: 500\n    kmax_kb: 100\n", "x.yaml:6:14: kmin_kb 500 is not below kmax_kb 100"},
		{"buffer pool range", "name: a\nsizing:\n  gpus: 8\nqos:\n  buffer_pool_bytes: 4096\n", "x.yaml:5:22: a shared buffer of 4096 bytes is out of range"},
		{"watchdog range", "name: a\nsizing:\n  gpus: 8\nqos:\n  pfc_watchdog:\n    detection_ms: 10\n", "x.yaml:6:19"},
		{"spine ASN plan", "name: a\nsizing:\n  gpus: 8\nbgp:\n  spine_asn: unique\n", "x.yaml:5:14: unknown spine ASN plan \"unique\""},
		{"ets weights, lowest class first", "name: a\nsizing:\n  gpus: 8\nqos:\n  ets_weights:\n    5: 0\n    1: 200\n    3: 101\n", "weight 200 for traffic class 1 is out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
			if exitcode.Code(err) != exitcode.BadInput {
				t.Errorf("exit code %d, want 2", exitcode.Code(err))
			}
		})
	}
}

func TestResolveFileAndMissing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte("name: mine\nsizing:\n  gpus: 32\n  layout: rail\nnos: eos\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.NOS != "eos" || s.Sizing.Layout != sizing.LayoutRail || s.Sizing.GPUsPerServer != 8 || s.Runtime != "sim" || s.QoS.Profile != DefaultQoSProfile {
		t.Errorf("defaults not applied: %+v", s)
	}
	for _, bad := range []string{filepath.Join(dir, "absent.yaml"), "no-such-lab", ""} {
		_, err := Resolve(bad)
		if exitcode.Code(err) != exitcode.BadInput {
			t.Errorf("Resolve(%q) = %v, want exit 2", bad, err)
		}
	}
	var ee *exitcode.Error
	if _, err := Resolve("no-such-lab"); !errors.As(err, &ee) || !strings.Contains(err.Error(), "64gpu") {
		t.Errorf("unknown lab error should list the catalog: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range Catalog() {
		data, _ := os.ReadFile(filepath.Join("..", "..", "labs", s.Name+".yaml"))
		f.Add(data)
	}
	f.Add([]byte("name: a\nsizing: {gpus: 8, layout: rail, tiers: 3}\nqos: {ecn: {kmin_kb: 1, kmax_kb: 2}}\n"))
	f.Add([]byte("name: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if exitcode.Code(err) != exitcode.BadInput {
				t.Fatalf("error %v has exit code %d, want 2", err, exitcode.Code(err))
			}
			return
		}
		// A spec that parses must be plannable or refused cleanly.
		if _, err := sizing.Compute(s.Sizing); err != nil && exitcode.Code(err) != exitcode.BadInput {
			t.Fatalf("plan error %v is not a usage error", err)
		}
	})
}

func TestUnknownQoSProfileIsPositioned(t *testing.T) {
	_, err := Parse("x.yaml", []byte("name: a\nsizing:\n  gpus: 8\nqos:\n  profile: nope\n"))
	if err == nil || !strings.Contains(err.Error(), "x.yaml:5:12: unknown QoS profile \"nope\"") {
		t.Errorf("got %v", err)
	}
}
