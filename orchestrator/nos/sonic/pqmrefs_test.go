package sonic

import (
	"fmt"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// qosorch's handlePortQosMapTable resolves every map an entry names (its
// qos_to_attr_map: the 802.1p, MPLS and forwarding-class maps as well as
// those labctl models) before it applies any field: a name the config
// does not define leaves the port without the entry's maps and PFC. A
// defined one is applied with the rest.
func TestPortQoSMapUnmodelledMapsMustResolve(t *testing.T) {
	tables := map[string]string{
		"dot1p_to_tc_map":   "DOT1P_TO_TC_MAP",
		"tc_to_dot1p_map":   "TC_TO_DOT1P_MAP",
		"mpls_tc_to_tc_map": "MPLS_TC_TO_TC_MAP",
		"dscp_to_fc_map":    "DSCP_TO_FC_MAP",
		"exp_to_fc_map":     "EXP_TO_FC_MAP",
	}
	for field, table := range tables {
		for _, defined := range []bool{true, false} {
			def := ""
			if defined {
				def = fmt.Sprintf(`, %q: {"M": {"3": "3"}}`, table)
			}
			in := fmt.Sprintf(`{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}}%s,
				"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3", %q: "M"}}}`, def, field)
			dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
			if err != nil {
				t.Fatalf("%s (defined %v): %v", field, defined, err)
			}
			p := dc.Port("Ethernet0")
			applied := len(p.PFCPriorities) == 1 && p.DSCPToTC[26] == 3
			if applied != defined {
				t.Errorf("%s (defined %v): entry applied %v (PFC %v, DSCP 26 to TC%d)", field, defined, applied, p.PFCPriorities, p.DSCPToTC[26])
			}
			if got := len(dc.Unresolved) == 1 && dc.Unresolved[0].Field == field && dc.Unresolved[0].Table == table; got == defined {
				t.Errorf("%s (defined %v): unresolved %+v", field, defined, dc.Unresolved)
			}
			if errs := ValidateDoc(mustDoc(t, in)); (len(errs) == 0) != defined {
				t.Errorf("%s (defined %v): ValidateDoc %v", field, defined, errs)
			}
		}
	}
}

func mustDoc(t *testing.T, in string) Doc {
	t.Helper()
	d, err := ParseDoc("x.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A reference given as "" is not one left out: orch.cpp's
// resolveFieldRefValue reads it as empty, which handlePortQosMapTable
// waits on like an undefined name, so none of the entry applies; left
// out, the rest of the entry applies.
func TestPortQoSMapEmptyReference(t *testing.T) {
	for _, field := range []string{"tc_to_dscp_map", "scheduler", "tc_to_queue_map", "dot1p_to_tc_map"} {
		for _, blank := range []bool{true, false} {
			extra := ""
			if blank {
				extra = fmt.Sprintf(`, %q: ""`, field)
			}
			in := fmt.Sprintf(`{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
				"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"%s}}}`, extra)
			dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
			if err != nil {
				t.Fatalf("%s (blank %v): %v", field, blank, err)
			}
			p := dc.Port("Ethernet0")
			applied := len(p.PFCPriorities) == 1 && p.DSCPToTC[26] == 3
			if applied == blank {
				t.Errorf("%s (blank %v): entry applied %v", field, blank, applied)
			}
			if got := len(dc.Unresolved) == 1 && dc.Unresolved[0].Field == field && dc.Unresolved[0].Fix != ""; got != blank {
				t.Errorf("%s (blank %v): unresolved %+v", field, blank, dc.Unresolved)
			}
		}
	}
}
