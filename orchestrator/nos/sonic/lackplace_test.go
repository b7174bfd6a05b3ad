package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// The warning on the entries naming a port the switch lacks is placed at
// the line of the first of them, as every other QOS021 is at its entry's:
// it was placed nowhere ("the entries naming Ethernet1000" names no entry
// placeOverruled finds), so lint gave no file and line for it.
func TestLackingPortEntriesPlaced(t *testing.T) {
	in := `{"PORT": {"Ethernet0": {"lanes": "0,1", "admin_status": "up"}},
 "DEVICE_METADATA": {"localhost": {"hwsku": "Force10-S6000"}},
 "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
 "BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "4096", "xon": "8192", "xoff": "200000", "dynamic_th": "0"}},
 "BUFFER_PG": {
  "Ethernet0|3": {"profile": "lossless"},
  "Ethernet1000|3": {"profile": "lossless"}
 }
}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	dc.Sources = []string{"leaf1.json"}
	found := false
	for _, o := range dc.Overruled {
		if !strings.Contains(o.Where, "Ethernet1000") {
			continue
		}
		found = true
		if pos := dc.Position(o); pos != "leaf1.json:7" {
			t.Errorf("%s is placed at %q; want leaf1.json:7, the line of BUFFER_PG|Ethernet1000|3", o.Where, pos)
		}
	}
	if !found {
		t.Fatalf("no note on the entries naming Ethernet1000: %+v", dc.Overruled)
	}
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleOverruled && f.Port == "Ethernet1000" && !strings.Contains(f.Message, "leaf1.json:7:") {
			t.Errorf("lint's finding does not name the entry's line: %s", f.Message)
		}
	}
}
