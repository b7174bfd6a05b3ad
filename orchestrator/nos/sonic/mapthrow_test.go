package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A map entry with a key or value std::stoi throws on ("x", "", beyond an
// int) is no parse error: qosorch's DscpToTcMapHandler (and the TC to
// queue, TC to PG, PFC priority to queue and to PG handlers) catch
// nothing, Consumer::drain catches the exception and leaves the entry
// first in the table's queue, so qosorch never creates it nor the
// entries after it in key order; the PORT_QOS_MAP entries naming them
// wait and apply nothing (no maps, no PFC). TcToDscpMapHandler catches
// std::invalid_argument and refuses that entry alone; DOT1P_TO_TC_MAP's
// handler skips the pair.
func TestMapEntryStoiThrows(t *testing.T) {
	for _, c := range []struct {
		name, table, field, bad string
		stalls                  bool // the entries after it are not created either
	}{
		{"no digit", "DSCP_TO_TC_MAP", "dscp_to_tc_map", "x", true},
		{"empty", "DSCP_TO_TC_MAP", "dscp_to_tc_map", "", true},
		{"beyond an int", "TC_TO_QUEUE_MAP", "tc_to_queue_map", "99999999999", true},
		{"TC_TO_DSCP_MAP, no digit", "TC_TO_DSCP_MAP", "tc_to_dscp_map", "x", false},
		{"TC_TO_DSCP_MAP, beyond an int", "TC_TO_DSCP_MAP", "tc_to_dscp_map", "99999999999", true},
	} {
		key := map[string]string{"DSCP_TO_TC_MAP": "26", "TC_TO_QUEUE_MAP": "3", "TC_TO_DSCP_MAP": "3"}[c.table]
		good := `{"` + key + `": "3"}`
		bad := `{"` + key + `": "` + c.bad + `"}`
		in := `{"` + c.table + `": {"A": ` + good + `, "B": ` + bad + `, "C": ` + good + `},
			"PORT_QOS_MAP": {"Ethernet0": {"` + c.field + `": "A", "pfc_enable": "3"},
				"Ethernet4": {"` + c.field + `": "B", "pfc_enable": "3"},
				"Ethernet8": {"` + c.field + `": "C", "pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("%s: %v, want it parsed", c.name, err)
			continue
		}
		pfc := func(port string) bool { return len(dc.Port(port).PFCPriorities) > 0 }
		if !pfc("Ethernet0") || pfc("Ethernet4") || pfc("Ethernet8") != !c.stalls {
			t.Errorf("%s: PFC on Ethernet0 %v, Ethernet4 %v, Ethernet8 %v; want true, false, %v", c.name, pfc("Ethernet0"), pfc("Ethernet4"), pfc("Ethernet8"), !c.stalls)
		}
		found := false
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, c.table+"|B") && strings.Contains(f.Message, "std::stoi") &&
				strings.Contains(f.Message, c.table+"|C") == c.stalls && f.Fix != "" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no QOS021 error at %s|B naming std::stoi (and %s|C: %v)", c.name, c.table, c.table, c.stalls)
		}
	}
	// DOT1P_TO_TC_MAP's handler catches and skips the pair.
	in := `{"DOT1P_TO_TC_MAP": {"A": {"0": "0", "3": "x"}}, "PORT_QOS_MAP": {"Ethernet0": {"dot1p_to_tc_map": "A", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatalf("DOT1P_TO_TC_MAP: %v", err)
	}
	if len(dc.Port("Ethernet0").PFCPriorities) == 0 {
		t.Error("DOT1P_TO_TC_MAP with a pair its handler skips: the port lost its PORT_QOS_MAP entry")
	}
	noted := false
	for _, n := range dc.Notes {
		noted = noted || strings.Contains(n, "DOT1P_TO_TC_MAP|A") && strings.Contains(n, "skips")
	}
	if !noted {
		t.Errorf("no note of the skipped pair: %q", dc.Notes)
	}
}

// TcToDscpMapHandler reads a pair's value (the DSCP) before its key (the
// TC), and catches std::invalid_argument only: a bad key beside a bad
// value is what the value throws. {"x": "99999999999"} throws
// out_of_range, which stalls the table (TC_TO_DSCP_MAP|C is never created
// either); {"99999999999": "x"} throws invalid_argument, which refuses the
// entry alone.
func TestTcToDscpMapReadsTheValueFirst(t *testing.T) {
	for _, c := range []struct {
		pair   string
		stalls bool
	}{
		{`"x": "99999999999"`, true},
		{`"99999999999": "x"`, false},
	} {
		in := `{"TC_TO_DSCP_MAP": {"A": {"3": "26"}, "B": {` + c.pair + `}, "C": {"3": "26"}},
			"PORT_QOS_MAP": {"Ethernet0": {"tc_to_dscp_map": "A", "pfc_enable": "3"},
				"Ethernet4": {"tc_to_dscp_map": "B", "pfc_enable": "3"},
				"Ethernet8": {"tc_to_dscp_map": "C", "pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("%s: %v, want it parsed", c.pair, err)
			continue
		}
		if got := len(dc.Port("Ethernet8").PFCPriorities) == 0; got != c.stalls {
			t.Errorf("%s: TC_TO_DSCP_MAP|C not created: %v, want %v", c.pair, got, c.stalls)
		}
	}
}

// The error of a map entry std::stoi throws on is at the pair's line,
// not the entry's: the pair "3": "x" of TC_TO_QUEUE_MAP|B, whose key "3"
// is also the value of the pair before it.
func TestMapThrowAtThePairsLine(t *testing.T) {
	in := `{
	"TC_TO_QUEUE_MAP": {
		"B": {
			"0": "3",
			"3": "x"
		}
	},
	"PORT_QOS_MAP": {"Ethernet0": {"tc_to_queue_map": "B"}}
}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range dc.Overruled {
		if o.Where == "TC_TO_QUEUE_MAP|B" {
			if o.Line != 5 {
				t.Errorf("the stall is at line %d, want 5 (the pair \"3\": \"x\")", o.Line)
			}
			return
		}
	}
	t.Errorf("no finding at TC_TO_QUEUE_MAP|B: %+v", dc.Overruled)
}
