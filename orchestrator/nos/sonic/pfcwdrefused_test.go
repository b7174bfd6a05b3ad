package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// pfcwdorch's createEntry refuses a port's PFC_WD entry with a field it
// does not know, or a pfc_stat_history other than enable or disable
// (task_invalid_entry): the port runs no watchdog, and lint says so
// (QOS021), as for times out of range.
func TestPFCWDEntryRefused(t *testing.T) {
	for _, c := range []struct {
		extra   string
		refused string // "" applied
	}{
		{``, ""},
		{`, "pfc_stat_history": "enable"`, ""},
		{`, "pfc_stat_history": "disable"`, ""},
		{`, "pfc_stat_history": "on"`, `pfc_stat_history "on"`},
		{`, "detection_time_ms": "200"`, "detection_time_ms"},
		{`, "POLL_INTERVAL": "100"`, "POLL_INTERVAL"},
		{`, "BIG_RED_SWITCH": "enable"`, "BIG_RED_SWITCH"},
	} {
		in := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "pfcwd_sw_enable": "3"}},
			"PFC_WD": {"Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"` + c.extra + `}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.extra, err)
		}
		wd := dc.Port("Ethernet0").Watchdog
		if (wd == nil) != (c.refused != "") {
			t.Errorf("%s: watchdog %+v, refused %v", c.extra, wd, c.refused != "")
		}
		fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
		var found *qos.Finding
		for i := range fs {
			if fs[i].Rule == qos.RuleOverruled && fs[i].Severity == qos.SevError {
				found = &fs[i]
			}
		}
		switch {
		case c.refused == "" && found != nil:
			t.Errorf("%s: lint refuses the entry: %+v", c.extra, *found)
		case c.refused != "" && (found == nil || !strings.Contains(found.Message, c.refused) || found.Fix == ""):
			t.Errorf("%s: no QOS021 error naming %q: %+v", c.extra, c.refused, found)
		}
	}
}
