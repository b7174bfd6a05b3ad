package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// One entry keyed only by a port a whole CONFIG_DB's PORT table leaves
// out, of each table that names ports: orchagent finds no port of the
// name and applies it to nothing (bufferorch's processQueue, pfcwdorch's
// createEntry, qosorch's handlePortQosMapTable), the port is none of the
// model, nothing is held at a cold start, and lint names the entry at its
// line (QOS021), as it does for BUFFER_PG.
func TestOneEntryNamingOnlyAPortTheSwitchLacks(t *testing.T) {
	for _, c := range []struct{ table, entry string }{
		{"BUFFER_QUEUE", `"Ethernet1000|3": {"profile": "egress"}`},
		{"PFC_WD", `"Ethernet1000": {"action": "drop", "detection_time": "200", "restoration_time": "200"}`},
		{"PORT_QOS_MAP", `"Ethernet1000": {"pfc_enable": "3", "pfcwd_sw_enable": "3"}`},
	} {
		in := `{"PORT": {"Ethernet0": {"lanes": "0,1", "admin_status": "up"}},
"DEVICE_METADATA": {"localhost": {"hwsku": "Force10-S6000"}},
"BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "10000000"}},
"BUFFER_PROFILE": {"egress": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"}},
"` + c.table + `": {
` + c.entry + `
}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("%s: %v", c.table, err)
			continue
		}
		dc.Sources = []string{"leaf1.json"}
		if dc.Port("Ethernet1000") != nil {
			t.Errorf("%s: Ethernet1000, which the switch lacks, is a port of the model", c.table)
		}
		for _, o := range dc.Overruled {
			if strings.Contains(o.Where, "cold start") {
				t.Errorf("%s: a cold start hold: %s", c.table, o.What)
			}
		}
		named := 0
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Port != "Ethernet1000" {
				continue
			}
			if f.Rule != qos.RuleOverruled || !strings.Contains(f.Message, "leaf1.json:6:") || !strings.Contains(f.Message, c.table+"|Ethernet1000") {
				t.Errorf("%s: %s %s %s, want only QOS021 at leaf1.json:6 naming the entry", c.table, f.Rule, f.Severity, f.Message)
				continue
			}
			named++
		}
		if named != 1 {
			t.Errorf("%s: %d findings naming the entry on Ethernet1000, want 1", c.table, named)
		}
	}
}

// TcToDscpMapHandler catches std::invalid_argument for a pair whose value
// (the DSCP, read first) has no digit, "x", and refuses that entry alone
// (task_invalid_entry): the port naming it applies nothing of its
// PORT_QOS_MAP entry, no remarking and no PFC, and lint names the pair's
// line.
func TestTCToDSCPValueNoDigit(t *testing.T) {
	in := `{"TC_TO_DSCP_MAP": {
"A": {"0": "0",
"3": "x"},
"B": {"3": "26"}},
"PORT_QOS_MAP": {"Ethernet0": {"tc_to_dscp_map": "A", "pfc_enable": "3"}, "Ethernet4": {"tc_to_dscp_map": "B", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	dc.Sources = []string{"leaf1.json"}
	if p := dc.Port("Ethernet0"); len(p.PFCPriorities) > 0 || p.TCToDSCP != nil {
		t.Errorf("Ethernet0 applies its entry: PFC %v, remarking %v", p.PFCPriorities, p.TCToDSCP)
	}
	if p := dc.Port("Ethernet4"); len(p.PFCPriorities) == 0 || p.TCToDSCP[3] != 26 {
		t.Errorf("Ethernet4 lost its entry (B is created: the handler refuses A alone): PFC %v, remarking %v", p.PFCPriorities, p.TCToDSCP)
	}
	found := false
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, "leaf1.json:3:") && strings.Contains(f.Message, "TC_TO_DSCP_MAP|A") &&
			strings.Contains(f.Message, "invalid_argument") && !strings.Contains(f.Message, "TC_TO_DSCP_MAP|B") {
			found = true
		}
	}
	if !found {
		t.Errorf("no QOS021 error at leaf1.json:3 on TC_TO_DSCP_MAP|A alone: %+v", qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}))
	}
}
