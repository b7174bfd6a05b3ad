package sonic

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// qosorch's map handlers read a map's keys and values with std::stoi: a
// blank around the number, a sign or a leading zero reads as the number,
// which labctl takes too and notes (QOS000); a text std::stoi reads as
// another number than it says ("0x3" is 0, "3.5" is 3) is refused at the
// entry, naming the switch's reading (one it throws on is the switch's
// refusal, not labctl's: TestMapEntryStoiThrows).
func TestMapNumbersReadAsStoi(t *testing.T) {
	in := `{"DSCP_TO_TC_MAP": {"AZURE": {"26": " 3", "48": "6 ", " 46": "+5", "0": "0"}},
		"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet0")
	for dscp, tc := range map[int]int{26: 3, 48: 6, 46: 5, 0: 0} {
		if got := p.TCOf(dscp); got != tc {
			t.Errorf("DSCP %d: TC %d, want %d", dscp, got, tc)
		}
	}
	n := 0
	for _, note := range dc.Notes {
		if strings.Contains(note, "std::stoi") && strings.Contains(note, "DSCP_TO_TC_MAP|AZURE") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d notes of padded numbers, want 3: %q", n, dc.Notes)
	}
	if slices.ContainsFunc(qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}), func(f qos.Finding) bool {
		return f.Severity != qos.SevInfo && strings.Contains(f.Message, "stoi")
	}) {
		t.Error("a padded number is more than a note")
	}
	for val, reads := range map[string]string{"0x3": `reads "0x3" as 0`, "3.5": `reads "3.5" as 3`, "3a": `reads "3a" as 3`} {
		in := `{"TC_TO_QUEUE_MAP": {"AZURE": {"3": "` + val + `"}}}`
		_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err == nil || !strings.Contains(err.Error(), reads) || !strings.Contains(err.Error(), "leaf1.json:") {
			t.Errorf("%q: err = %v, want one at its line saying %q", val, err, reads)
		}
	}
}
