package sonic

import (
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// TestParseTCToDSCP: a port whose PORT_QOS_MAP names a TC_TO_DSCP_MAP
// remarks what it sends by it (tc_to_dscp); a port that names none
// remarks nothing; a map no port names changes nothing. A rewrite of
// RoCE's class to a DSCP the switch classifies elsewhere is QOS024, one
// to RoCE's own DSCP is not.
func TestParseTCToDSCP(t *testing.T) {
	db := `{"TC_TO_DSCP_MAP": {"ZERO": {"3": "0"}, "SAME": {"3": "26", "6": "48"}, "UNUSED": {"3": "1"}},
		"DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}},
		"PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE"},
			"Ethernet0": {"pfc_enable": "3", "tc_to_dscp_map": "ZERO"},
			"Ethernet4": {"pfc_enable": "3", "tc_to_dscp_map": "SAME"},
			"Ethernet8": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	for port, want := range map[string]map[int]int{"Ethernet0": {3: 0}, "Ethernet4": {3: 26, 6: 48}, "Ethernet8": nil} {
		if got := dc.Port(port).TCToDSCP; !reflect.DeepEqual(got, want) {
			t.Errorf("%s tc_to_dscp = %v, want %v", port, got, want)
		}
	}
	if got := dc.Port("Ethernet0").Origins["tc_to_dscp"]; got != "TC_TO_DSCP_MAP|ZERO via PORT_QOS_MAP|Ethernet0" {
		t.Errorf("origin %q", got)
	}
	if len(dc.Unsimulated) > 0 {
		t.Errorf("the maps are noted as not simulated: %+v", dc.Unsimulated)
	}
	for i := range dc.Ports {
		dc.Ports[i].Fabric = true
	}
	roce := 26
	n := 0
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{RoCEDSCP: &roce}) {
		if f.Rule == qos.RuleEgressRemark {
			n++
			if f.Port != "Ethernet0" || !strings.Contains(f.Message, "RoCE (DSCP 26, traffic class 3) leaves the port rewritten to DSCP 0, which the next switch classifies into traffic class 0 (lossy) instead of 3 (lossless)") {
				t.Errorf("QOS024: %+v, want RoCE on Ethernet0", f)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d QOS024 findings, want 1 (RoCE on Ethernet0)", n)
	}
}

// TestParseTCToDSCPErrors: a DSCP outside 0-63 refuses its entry
// (TcToDscpMapHandler, noted with the fix), and a port naming a map the
// config does not define is not applied (orchagent waits for the map).
func TestParseTCToDSCPErrors(t *testing.T) {
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{"TC_TO_DSCP_MAP": {"BAD": {"3": "64"}}}`)})
	if err != nil {
		t.Fatalf("DSCP 64: %v", err)
	}
	if len(dc.Overruled) != 1 || dc.Overruled[0].Where != "TC_TO_DSCP_MAP|BAD" || !strings.Contains(dc.Overruled[0].What, "DSCP_MAX_VAL") || !strings.Contains(dc.Overruled[0].Fix, "values 0-63") {
		t.Errorf("DSCP 64: %+v, want TC_TO_DSCP_MAP|BAD refused by DSCP_MAX_VAL", dc.Overruled)
	}
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "tc_to_dscp_map": "NONE"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet0")
	if p == nil {
		t.Fatal("Ethernet0 is not a port of the config read")
	}
	if len(p.PFCPriorities) > 0 || p.TCToDSCP != nil {
		t.Errorf("an entry naming an undefined map is applied: PFC %v, remark %v", p.PFCPriorities, p.TCToDSCP)
	}
}

// A port's remarking map renders to a TC_TO_DSCP_MAP of its own that
// parses back to the same map.
func TestRenderParseRoundTripRemark(t *testing.T) {
	dc := cfgVariants(t)["ecn-on_pfc-on"][0].Clone()
	dc.Ports[0].TCToDSCP = map[int]int{3: 0, 6: 46}
	out, doc := renderDoc(t, dc)
	name := doc["PORT_QOS_MAP"][dc.Ports[0].Name]["tc_to_dscp_map"]
	if got := doc["TC_TO_DSCP_MAP"][name]; !reflect.DeepEqual(got, map[string]string{"3": "0", "6": "46"}) {
		t.Errorf("PORT_QOS_MAP names TC_TO_DSCP_MAP|%q = %v", name, got)
	}
	if _, ok := doc["PORT_QOS_MAP"][dc.Ports[1].Name]["tc_to_dscp_map"]; ok {
		t.Error("a port without a remarking map names one")
	}
	parseBack(t, dc, out)
}
