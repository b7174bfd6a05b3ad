package sonic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A map pair beyond the ranges SONiC's YANG allows ("8": "16" in DSCP_TO_TC_MAP, a DSCP
// key 64, TC_TO_DSCP_MAP "3": "99") is no parse error: TcToDscpMapHandler
// refuses an entry whose DSCP is beyond 63, and labctl takes SAI to refuse
// a map the other handlers hand it unchecked beyond those ranges (mapPairSAI), so qosorch
// never creates the entry, alone; the PORT_QOS_MAP entries naming it apply
// nothing (no PFC), and lint says so at the pair's line. A number that
// reaches SAI cut to a byte within range (264 is DSCP 8) is that number.
// It stopped the parse (exit 2, no file or line).
func TestMapPairOutOfRange(t *testing.T) {
	for _, c := range []struct {
		name, table, field, key, val string
	}{
		{"TC beyond 15", "DSCP_TO_TC_MAP", "dscp_to_tc_map", "8", "16"},
		{"DSCP key 64", "DSCP_TO_TC_MAP", "dscp_to_tc_map", "64", "0"},
		{"negative TC", "DSCP_TO_TC_MAP", "dscp_to_tc_map", "8", "-1"},
		{"DSCP 99", "TC_TO_DSCP_MAP", "tc_to_dscp_map", "3", "99"},
		{"TC 16 remarked", "TC_TO_DSCP_MAP", "tc_to_dscp_map", "16", "26"},
		{"queue 10", "TC_TO_QUEUE_MAP", "tc_to_queue_map", "3", "10"},
		{"PG 8", "TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg_map", "3", "8"},
		{"802.1p 8", "DOT1P_TO_TC_MAP", "dot1p_to_tc_map", "8", "3"},
	} {
		good := `{"3": "3"}`
		in := "{\"" + c.table + "\": {\n\"A\": " + good + ",\n\"B\": {\"2\": \"2\",\n\"" + c.key + "\": \"" + c.val + "\"},\n\"C\": " + good + `},
			"PORT_QOS_MAP": {"Ethernet0": {"` + c.field + `": "A", "pfc_enable": "3"},
				"Ethernet4": {"` + c.field + `": "B", "pfc_enable": "3"},
				"Ethernet8": {"` + c.field + `": "C", "pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("%s: %v, want it parsed", c.name, err)
			continue
		}
		dc.Sources = []string{"leaf1.json"}
		pfc := func(port string) bool { return len(dc.Port(port).PFCPriorities) > 0 }
		if !pfc("Ethernet0") || pfc("Ethernet4") || !pfc("Ethernet8") {
			t.Errorf("%s: PFC on Ethernet0 %v, Ethernet4 %v, Ethernet8 %v; want true, false, true", c.name, pfc("Ethernet0"), pfc("Ethernet4"), pfc("Ethernet8"))
		}
		found := false
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, "leaf1.json:4:") && strings.Contains(f.Message, c.table+"|B") && f.Fix != "" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no QOS021 error at leaf1.json:4 (the pair's line) on %s|B: %+v", c.name, c.table, qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}))
		}
	}
}

// A DSCP written beyond a byte reaches SAI cut to one: DscpToTcMapHandler
// writes (uint8_t)stoi("264"), DSCP 8, and the switch maps it.
func TestMapPairCutToAByte(t *testing.T) {
	in := `{"DSCP_TO_TC_MAP": {"A": {"26": "3", "264": "3"}}, "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "A", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet0")
	if len(p.PFCPriorities) == 0 || p.DSCPToTC[8] != 3 {
		t.Errorf("PFC %v, DSCP 8 in TC %d; want PFC on 3 and DSCP 8 in TC 3 (264 cut to a byte)", p.PFCPriorities, p.DSCPToTC[8])
	}
	noted := false
	for _, n := range dc.Notes {
		noted = noted || strings.Contains(n, `"264"`) && strings.Contains(n, "8: 3")
	}
	if !noted {
		t.Errorf("no note of 264 read as 8: %q", dc.Notes)
	}
}

// A refused map named by every port leaves each port's PORT_QOS_MAP field
// never applied: one QOS017 warning per field naming the ports, as the
// entries naming ports a switch lacks are one QOS021 (it was one warning
// per port per field: 98 for one edit of a 49-port config).
func TestNeverAppliedGrouped(t *testing.T) {
	in := `{"DSCP_TO_TC_MAP": {"A": {"26": "3", "3": "99"}}, "TC_TO_PRIORITY_GROUP_MAP": {"P": {"3": "3"}},
"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "A", "tc_to_pg_map": "P", "pfc_enable": "3"},
 "Ethernet4": {"dscp_to_tc_map": "A", "tc_to_pg_map": "P", "pfc_enable": "3"},
 "Ethernet8": {"dscp_to_tc_map": "A", "tc_to_pg_map": "P", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	var got []qos.Finding
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleDefaultRelied && strings.Contains(f.Message, "never applied") {
			got = append(got, f)
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d never-applied warnings, want 2 (dscp_to_tc_map, tc_to_pg_map): %+v", len(got), got)
	}
	for _, f := range got {
		if f.Port != "Ethernet0-8" || len(f.Ports) != 3 || strings.Contains(f.Message, "PORT_QOS_MAP|Ethernet4") {
			t.Errorf("port %q (%v): %s; want Ethernet0-8, the entry named without a port", f.Port, f.Ports, f.Message)
		}
	}
}

// Every map table names its keys and values (mapNouns), so that the note
// of a pair beyond SONiC's YANG bounds says what those bounds are, read
// from the table's yang tag: a table added without them said "no  above".
func TestMapBeyondNamesEveryMapTable(t *testing.T) {
	for table, b := range yangMapBounds() {
		n, ok := mapNouns[table]
		if !ok {
			t.Errorf("%s: no nouns for its keys and values in mapNouns", table)
			continue
		}
		if got, want := mapBeyond(table), fmt.Sprintf("no %s", n[0]); !strings.HasPrefix(got, want) || !strings.Contains(got, fmt.Sprint(b[0])) {
			t.Errorf("%s: mapBeyond %q, want it to start %q and name the YANG bound %d", table, got, want, b[0])
		}
	}
	if got, want := mapBeyond("TC_TO_QUEUE_MAP"), "no traffic class above 15 nor queue above 9"; got != want {
		t.Errorf("TC_TO_QUEUE_MAP: mapBeyond %q, want %q", got, want)
	}
}
