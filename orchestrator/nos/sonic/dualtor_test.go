package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// SONiC's dual-ToR maps (device/common/profiles/th2/7260/BALANCED/
// qos.json.j2 in sonic-buildimage, DualToR subtype) put DSCP 33 in traffic
// class 8, send it to PG 0 and queue 1 and remark it 33 on the tunnel:
// SONiC's YANG takes traffic classes 0-15 (sonic-types.yang.j2 tc_type),
// so the switch creates those maps and the ports naming them get their
// maps and PFC. labctl refused the maps (TC above 7), which left every
// port without PFC, and lint erred seven times on a config SONiC ships.
func TestDualToRTrafficClass8(t *testing.T) {
	in := `{
"DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "3": "3", "4": "4", "8": "0", "33": "8", "46": "5", "48": "7"}},
"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "1": "0", "2": "2", "3": "3", "4": "4", "5": "0", "6": "6", "7": "0", "8": "0"}},
"TC_TO_QUEUE_MAP": {"AZURE": {"0": "0", "1": "1", "2": "1", "3": "3", "4": "4", "5": "5", "6": "1", "7": "7", "8": "1"}},
"TC_TO_DSCP_MAP": {"AZURE_TUNNEL": {"0": "8", "1": "0", "2": "0", "3": "2", "4": "6", "5": "46", "6": "0", "7": "48", "8": "33"}},
"PORT_QOS_MAP": {
 "Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_dscp_map": "AZURE_TUNNEL", "pfc_enable": "3,4"},
 "Ethernet4": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "tc_to_queue_map": "AZURE", "pfc_enable": "3,4"}}}`
	dc, err := Parse("tor1", qos.Source{Name: "tor1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	dc.Sources = []string{"tor1.json"}
	for _, name := range []string{"Ethernet0", "Ethernet4"} {
		p := dc.Port(name)
		if len(p.PFCPriorities) != 2 || p.TCOf(3) != 3 || p.TCOf(4) != 4 || p.TCToQueue[6] != 1 {
			t.Errorf("%s: PFC %v, DSCP 3 in TC %d, DSCP 4 in TC %d, TC 6 to queue %d; want PFC on 3,4, TCs 3 and 4, queue 1", name, p.PFCPriorities, p.TCOf(3), p.TCOf(4), p.TCToQueue[6])
		}
		for tc := range p.TCToQueue {
			if tc > 7 {
				t.Errorf("%s: the model holds traffic class %d", name, tc)
			}
		}
	}
	if p := dc.Port("Ethernet0"); p.TCToDSCP[5] != 46 {
		t.Errorf("TC 5 remarked to %d, want 46", p.TCToDSCP[5])
	}
	noted := false
	for _, n := range dc.Notes {
		noted = noted || strings.Contains(n, `DSCP_TO_TC_MAP|AZURE entry "33"`) && strings.Contains(n, "traffic class 8")
	}
	if !noted {
		t.Errorf("no note of DSCP 33 in traffic class 8: %q", dc.Notes)
	}
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Severity == qos.SevError || f.Rule == qos.RuleOverruled {
			t.Errorf("%s %s %s: %s", f.Severity, f.Rule, f.Port, f.Message)
		}
	}
}

// A queue SONiC's YANG allows beyond labctl's 8 (TC_TO_QUEUE_MAP "3": "8":
// qindex 0-9) leaves the map created and the port its PFC; the model keeps
// the class in its own queue and says so.
func TestQueueBeyondTheModel(t *testing.T) {
	in := `{"DSCP_TO_TC_MAP": {"A": {"26": "3"}}, "TC_TO_QUEUE_MAP": {"A": {"0": "0", "3": "8"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "A", "tc_to_queue_map": "A", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if p := dc.Port("Ethernet0"); len(p.PFCPriorities) != 1 || p.TCOf(26) != 3 {
		t.Errorf("PFC %v, DSCP 26 in TC %d; want PFC on 3, TC 3", p.PFCPriorities, p.TCOf(26))
	}
	noted := false
	for _, n := range dc.Notes {
		noted = noted || strings.Contains(n, "sends traffic class 3 to queue 8") && strings.Contains(n, "in queue 3")
	}
	if !noted {
		t.Errorf("no note of queue 8: %q", dc.Notes)
	}
}

// The lossless class sent to queue 8: the switch applies the pair, and no
// PFC priority pauses queue 8 (pfc_to_queue names 0-7), so the port keeps
// sending into a paused receiver; QOS016 errs, naming queue 8, though the
// model runs the class in queue 3.
func TestLosslessClassInQueue8(t *testing.T) {
	in := `{"DSCP_TO_TC_MAP": {"A": {"26": "3"}}, "TC_TO_QUEUE_MAP": {"A": {"0": "0", "3": "8"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "A", "tc_to_queue_map": "A", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if q := dc.Port("Ethernet0").BeyondQueue[3]; q != 8 {
		t.Fatalf("TC3's queue as the switch applies it: %d, want 8", q)
	}
	var got []string
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RulePFCQueueMap && f.Severity == qos.SevError {
			got = append(got, f.Message)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "queue 8") {
		t.Errorf("QOS016: %q, want one error naming queue 8", got)
	}
}

// RoCE's DSCP put in traffic class 8 (as the dual-ToR maps put DSCP 33):
// the switch applies it, so RoCE leaves the lossless class; QOS003 says
// so in the switch's terms, TC 8, which labctl's 8-class model leaves
// out, not the TC0 the model runs it in.
func TestRoCEInTrafficClass8(t *testing.T) {
	in := `{
"DSCP_TO_TC_MAP": {"AZURE": {"0": "0", "26": "8", "48": "6"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if tc := dc.Port("Ethernet0").BeyondTC[26]; tc != 8 {
		t.Fatalf("DSCP 26's class as the switch applies it: %d, want 8", tc)
	}
	roce := 26
	var got []string
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{RoCEDSCP: &roce}) {
		if f.Rule == qos.RuleRoCEDSCPLossy && f.Severity == qos.SevError {
			got = append(got, f.Message)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "TC8") || strings.Contains(got[0], "TC0") {
		t.Errorf("QOS003: %q, want one error naming TC8 and not the model's TC0", got)
	}
}
