package sonic

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// portmgr sets a port up only for admin_status "up"; a port's whole entry
// (lanes given) without the field gets its default, down. An entry
// without lanes is merged onto the switch's own, which keeps its state
// (labctl's boot config: up). Lint flags a wired port that is down
// (QOS026), not a bare file's.
func TestPortAdminStatus(t *testing.T) {
	in := `{"PORT": {
		"Ethernet0": {"admin_status": "up", "lanes": "1,2"},
		"Ethernet4": {"admin_status": "down"},
		"Ethernet8": {"admin_status": "Up"},
		"Ethernet12": {"lanes": "5,6", "speed": "100000"},
		"Ethernet16": {"pfc_asym": "on"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Ethernet0": false, "Ethernet4": true, "Ethernet8": true, "Ethernet12": true, "Ethernet16": false}
	for port, down := range want {
		if got := dc.Port(port).AdminDown != ""; got != down {
			t.Errorf("%s: down %v (%q), want %v", port, got, dc.Port(port).AdminDown, down)
		}
	}
	count := func() (n int) {
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RulePortDown && f.Severity == qos.SevError && f.Port != "" && f.Fix != "" {
				n++
			}
		}
		return n
	}
	if n := count(); n != 0 {
		t.Errorf("%d QOS026 findings on a bare file's ports", n)
	}
	for i := range dc.Ports {
		dc.Ports[i].Peer = "host" + dc.Ports[i].Name
	}
	if n := count(); n != 3 {
		t.Errorf("%d QOS026 errors on wired ports, want 3", n)
	}
}
