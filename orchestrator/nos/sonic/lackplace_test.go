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

// A whole CONFIG_DB whose PORT table lists fewer ports than its entries
// name (one port of 64, a PORT table cut short) gives one QOS021 warning
// naming the ports it lacks, at the first of their entries, where it gave
// one per port, ungrouped.
func TestLackingPortsGrouped(t *testing.T) {
	in := `{"PORT": {"Ethernet0": {"lanes": "0,1", "admin_status": "up"}},
 "DEVICE_METADATA": {"localhost": {"hwsku": "Force10-S6000"}},
 "SCHEDULER": {"strict": {"type": "STRICT"}},
 "QUEUE": {
  "Ethernet0|3": {"scheduler": "strict"},
  "Ethernet4|3": {"scheduler": "strict"},
  "Ethernet8|3": {"scheduler": "strict"},
  "Ethernet12|3": {"scheduler": "strict"}
 },
 "PORT_QOS_MAP": {"Ethernet8": {"pfc_enable": "3"}}
}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	dc.Sources = []string{"leaf1.json"}
	var got []qos.Finding
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleOverruled {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d QOS021 findings, want one for the three ports the PORT table lacks: %+v", len(got), got)
	}
	f := got[0]
	for _, p := range []string{"Ethernet4", "Ethernet8", "Ethernet12"} {
		if !strings.Contains(f.Message, p) || !strings.Contains(f.Port+" "+strings.Join(f.Ports, " "), "Ethernet") {
			t.Errorf("the finding does not name %s: %+v", p, f)
		}
	}
	if f.Port != "Ethernet4-12" {
		t.Errorf("the finding's ports are %q, want Ethernet4-12", f.Port)
	}
	if !strings.Contains(f.Message, "leaf1.json:") || !strings.Contains(f.Message, "4 entries") && !strings.Contains(f.Message, "QUEUE|Ethernet12|3") {
		t.Errorf("the finding is placed at no line or names no entry: %s", f.Message)
	}
}
