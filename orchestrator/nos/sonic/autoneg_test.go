package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A port with autoneg on advertises adv_speeds alone (portsorch's
// parsePortAdvSpeeds): a list without its link's speed keeps the link
// from coming up at it, which lint's QOS009 names; labctl ignored both
// fields, so the edit passed lint, the run and regress.
func TestAdvSpeedsWithoutLinkSpeed(t *testing.T) {
	for _, c := range []struct {
		name, fields string
		err          bool
	}{
		{"100G and 200G advertised on a 400G link", `"autoneg": "on", "adv_speeds": "100000,200000"`, true},
		{"400G among those advertised", `"autoneg": "on", "adv_speeds": "100000,400000"`, false},
		{"every speed advertised", `"autoneg": "on", "adv_speeds": "all"`, false},
		{"auto-negotiation off", `"autoneg": "off", "adv_speeds": "100000"`, false},
		{"a list portsorch refuses (TestPortNegotiationRefused)", `"autoneg": "on", "adv_speeds": "100G"`, false},
	} {
		in := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}, "PORT": {"Ethernet0": {"admin_status": "up", "speed": "400000", ` + c.fields + `}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := dc.Port("Ethernet0")
		p.Fabric, p.LinkSpeedGbps = true, 400
		found := 0
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleLinkLosslessMatch && f.Severity == qos.SevError && f.Port == "Ethernet0" && strings.HasSuffix(f.Where, " adv_speeds") {
				found++
			}
		}
		if got := found == 1; got != c.err {
			t.Errorf("%s: %d QOS009 errors on Ethernet0 at its adv_speeds, want an error %v", c.name, found, c.err)
		}
	}
}

// portsorch refuses an autoneg other than on or off, and adv_speeds that
// parsePortAdvSpeeds cannot read (whatever autoneg says), with the
// port's whole entry (parsePortConfig, doPortTask): a QOS021 error naming
// the field, where labctl let both pass as if unset.
func TestPortNegotiationRefused(t *testing.T) {
	for _, c := range []struct {
		name, fields, want string
	}{
		{"autoneg yes", `"autoneg": "yes"`, `autoneg "yes"`},
		{"autoneg On", `"autoneg": "On"`, `autoneg "On"`},
		{"adv_speeds in Gb/s with a unit", `"autoneg": "on", "adv_speeds": "100G"`, `adv_speeds "100G"`},
		{"adv_speeds out of range, autoneg off", `"autoneg": "off", "adv_speeds": "0"`, `adv_speeds "0"`},
		{"autoneg on, every speed", `"autoneg": "on", "adv_speeds": "ALL"`, ""},
		{"autoneg off with speeds", `"autoneg": "off", "adv_speeds": "100000,400000"`, ""},
	} {
		in := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}, "PORT": {"Ethernet0": {"admin_status": "up", "speed": "400000", ` + c.fields + `}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var found []qos.Finding
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, "portsorch") {
				found = append(found, f)
			}
		}
		switch {
		case c.want == "" && len(found) > 0:
			t.Errorf("%s: %+v, want no refusal", c.name, found)
		case c.want != "" && (len(found) != 1 || !strings.Contains(found[0].Message, c.want)):
			t.Errorf("%s: %+v, want one QOS021 error naming %s", c.name, found, c.want)
		}
	}
}
