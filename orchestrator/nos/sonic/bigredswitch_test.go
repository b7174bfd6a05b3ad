package sonic

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// PFC_WD|GLOBAL BIG_RED_SWITCH enable forces the watchdog's drop action
// on every port's pfcwd_sw_enable priorities (pfcwdsworch's
// enableBigRedSwitchMode), whatever the port's PFC_WD entry says; without
// pfcwd_sw_enable the mask is the PFC priorities, as for the watchdog.
// disable changes nothing, and a word orchagent does not know (it
// compares exactly) is noted and changes nothing. Lint's QOS027 names
// the setting on each data port.
func TestBigRedSwitch(t *testing.T) {
	doc := func(brs string) string {
		return `{"PORT_QOS_MAP": {
		"Ethernet0": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3"},
		"Ethernet4": {"pfc_enable": "3"},
		"Ethernet8": {"pfc_enable": "3", "pfcwd_sw_enable": ""}},
		"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "100", "BIG_RED_SWITCH": "` + brs + `"},
		"Ethernet0": {"action": "forward", "detection_time": "200", "restoration_time": "200"}}}`
	}
	parse := func(brs string) qos.DeviceConfig {
		t.Helper()
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(doc(brs))})
		if err != nil {
			t.Fatal(err)
		}
		return dc
	}
	dc := parse("enable")
	// Ethernet4 gives no pfcwd_sw_enable: its bitmap is 0, as Ethernet8's.
	want := map[string][]int{"Ethernet0": {3}, "Ethernet4": nil, "Ethernet8": nil}
	for port, prios := range want {
		w := dc.Port(port).WatchdogDrop
		switch {
		case prios == nil && w != nil:
			t.Errorf("%s: forced drop %v, want none (pfcwd_sw_enable empty or missing)", port, w.Priorities)
		case prios != nil && (w == nil || !slices.Equal(w.Priorities, prios)):
			t.Errorf("%s: forced drop %+v, want priorities %v", port, w, prios)
		}
	}
	var found []qos.Finding
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleWatchdogForced {
			found = append(found, f)
		}
	}
	if len(found) != 1 || found[0].Severity != qos.SevError || found[0].Where != "PFC_WD|GLOBAL BIG_RED_SWITCH" || !strings.Contains(found[0].Fix, "disable") ||
		found[0].Port != "Ethernet0" {
		t.Errorf("QOS027 findings %+v, want one error on Ethernet0 naming the setting and its fix", found)
	}
	for _, brs := range []string{"disable", "Enable"} {
		dc := parse(brs)
		for _, p := range dc.Ports {
			if p.WatchdogDrop != nil {
				t.Errorf("BIG_RED_SWITCH %s: %s forced to drop %v", brs, p.Name, p.WatchdogDrop.Priorities)
			}
		}
		noted := slices.ContainsFunc(dc.Notes, func(n string) bool { return strings.Contains(n, "BIG_RED_SWITCH") })
		if noted != (brs == "Enable") {
			t.Errorf("BIG_RED_SWITCH %s: noted %v (%q)", brs, noted, dc.Notes)
		}
	}
}
