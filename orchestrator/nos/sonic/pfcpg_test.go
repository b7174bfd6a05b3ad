package sonic

import (
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// TestParsePFCToPG: a port whose PORT_QOS_MAP names a PFC priority to PG
// map has it (pfc_to_pg); a port that names none has none, and is paused
// by its traffic's PGs; a map no port names changes nothing.
func TestParsePFCToPG(t *testing.T) {
	db := `{"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"ODD": {"3": "0", "4": "4"}, "UNUSED": {"3": "7"}},
		"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "3", "4": "4"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "pfc_to_pg_map": "ODD", "tc_to_pg_map": "AZURE"}, "Ethernet4": {"pfc_enable": "3,4", "tc_to_pg_map": "AZURE"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	if got := dc.Port("Ethernet0").PFCToPG; !reflect.DeepEqual(got, map[int]int{3: 0, 4: 4}) {
		t.Errorf("Ethernet0 pfc_to_pg = %v", got)
	}
	if got := dc.Port("Ethernet4").PFCToPG; got != nil {
		t.Errorf("Ethernet4 names no map but has %v", got)
	}
	// A map with no entries is no map (CONFIG_DB cannot hold one); a
	// render of the model keeps the port's PFC.
	empty, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"NONE": {}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "pfc_to_pg_map": "NONE"}}}`)})
	if err == nil && empty.Port("Ethernet0").PFCToPG != nil {
		t.Errorf("an empty map is taken: %v", empty.Port("Ethernet0").PFCToPG)
	}
	if len(dc.Unsimulated) > 0 {
		t.Errorf("the maps are noted as not simulated: %+v", dc.Unsimulated)
	}
	fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	n := 0
	for _, f := range fs {
		if f.Rule == qos.RulePFCPGMap {
			n++
			if f.Port != "Ethernet0" || !strings.Contains(f.Message, "PFC priority 3's traffic fills PG 3 but its pause frames come from PG 0") {
				t.Errorf("QOS023: %+v, want priority 3 of Ethernet0", f)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d QOS023 findings, want 1 (priority 3 of Ethernet0): %+v", n, fs)
	}
}
