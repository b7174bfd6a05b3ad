package sonic

import (
	"reflect"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// TestParsePFCToPG: a port whose PORT_QOS_MAP names a PFC priority to PG
// map has it (pfc_to_pg); a port that names none has none, and is paused
// by its traffic's PGs; a map no port names changes nothing.
func TestParsePFCToPG(t *testing.T) {
	db := `{"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"ODD": {"3": "0", "4": "4"}, "UNUSED": {"3": "7"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "pfc_to_pg_map": "ODD"}, "Ethernet4": {"pfc_enable": "3,4"}}}`
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
	if len(dc.Unsimulated) > 0 {
		t.Errorf("the maps are noted as not simulated: %+v", dc.Unsimulated)
	}
	fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	n := 0
	for _, f := range fs {
		if f.Rule == qos.RulePFCPGMap {
			n++
			if f.Port != "Ethernet0" {
				t.Errorf("QOS023 on %s: %+v", f.Port, f)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d QOS023 findings, want 1 (priority 3 of Ethernet0): %+v", n, fs)
	}
}
