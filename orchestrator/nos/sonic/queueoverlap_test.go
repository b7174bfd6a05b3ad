package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// qosorch applies the QUEUE entries covering a queue in key order, field
// by field (handleQueueTable changes the scheduler only for an entry that
// gives one, the WRED profile only for one that gives one), and an entry
// whose references do not resolve not at all: "Ethernet0|3-4" with a
// scheduler alone leaves queue 3 the WRED profile "Ethernet0|3" gave it,
// and "Ethernet4|3-4" naming an undefined scheduler leaves queue 3 what
// "Ethernet4|3" gave it. Two entries giving one queue different values of
// a field are a warning (QOS021): which is applied last the config does
// not decide.
func TestQueueEntriesApplyFieldByField(t *testing.T) {
	in := `{
		"SCHEDULER": {"s50": {"type": "DWRR", "weight": "50"}, "s20": {"type": "DWRR", "weight": "20"}},
		"WRED_PROFILE": {"ecn": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "100000", "green_max_threshold": "400000", "green_drop_probability": "20"}},
		"QUEUE": {
			"Ethernet0|3": {"scheduler": "s50", "wred_profile": "ecn"},
			"Ethernet0|3-4": {"scheduler": "s20"},
			"Ethernet4|3": {"scheduler": "s50", "wred_profile": "ecn"},
			"Ethernet4|3-4": {"scheduler": "nosuch"},
			"Ethernet8|3": {"wred_profile": "ecn"},
			"Ethernet8|3-4": {"scheduler": "s20"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}, "Ethernet8": {"pfc_enable": "3"}}
	}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		port           string
		q, weight      int
		ecn            bool
		originContains string
	}{
		{"Ethernet0", 3, 20, true, "QUEUE|Ethernet0|3"},
		{"Ethernet0", 4, 20, false, "QUEUE|Ethernet0|3-4"},
		{"Ethernet4", 3, 50, true, "QUEUE|Ethernet4|3"},
		{"Ethernet4", 4, 1, false, "QUEUE|Ethernet4|3-4"},
		{"Ethernet8", 3, 20, true, "QUEUE|Ethernet8|3-4"},
	} {
		q := dc.Port(c.port).Queue(c.q)
		if q == nil || q.Weight != c.weight || (q.ECN != nil) != c.ecn || !strings.Contains(q.Origin, c.originContains) {
			t.Errorf("%s queue %d = %+v, want weight %d, ECN %v, origin naming %s", c.port, c.q, q, c.weight, c.ecn, c.originContains)
		}
	}
	var overlaps []string
	for _, o := range dc.Overruled {
		if strings.Contains(o.What, "both give queue") {
			overlaps = append(overlaps, o.Where)
		}
	}
	if len(overlaps) != 1 || overlaps[0] != "QUEUE|Ethernet0|3" {
		t.Errorf("overlap warnings on %v, want one, on QUEUE|Ethernet0|3 (s50, then s20)", overlaps)
	}
}
