package sonic

import (
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// PORT fec sets the port's FEC mode (portsorch's parsePortFec: rs, fc,
// none, auto). Two ends of a link set to different modes, neither auto,
// do not link up: lint's error (QOS009), once per link. The same mode,
// auto, or a mode at one end only (the other runs its switch's own) are
// not flagged. A value portsorch does not know is refused at its line.
func TestPortFECAtBothEndsOfALink(t *testing.T) {
	parse := func(dev, fec string) qos.DeviceConfig {
		t.Helper()
		port := `"Ethernet0": {"admin_status": "up"}`
		if fec != "" {
			port = `"Ethernet0": {"admin_status": "up", "fec": "` + fec + `"}`
		}
		dc, err := Parse(dev, qos.Source{Name: dev + ".json", Data: []byte(`{"PORT": {` + port + `},
			"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`)})
		if err != nil {
			t.Fatal(err)
		}
		dc.PeersKnown = true
		return dc
	}
	for _, c := range []struct {
		a, z    string
		flagged bool
	}{
		{"rs", "rs", false},
		{"rs", "", false},
		{"auto", "none", false},
		{"none", "rs", true},
		{"fc", "none", true},
	} {
		a, z := parse("leaf1", c.a), parse("spine1", c.z)
		if a.Port("Ethernet0").FEC != c.a {
			t.Errorf("fec %q read as %q", c.a, a.Port("Ethernet0").FEC)
		}
		a.Ports[0].Peer, a.Ports[0].Fabric = "spine1:Ethernet0", true
		z.Ports[0].Peer, z.Ports[0].Fabric = "leaf1:Ethernet0", true
		n := 0
		for _, f := range qos.Lint([]qos.DeviceConfig{a, z}, qos.LintOptions{}) {
			if f.Rule == qos.RuleLinkLosslessMatch && f.Severity == qos.SevError && strings.Contains(f.Message, "FEC") && f.Fix != "" {
				n++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[c.flagged]; n != want {
			t.Errorf("FEC %q and %q: %d QOS009 FEC errors, want %d", c.a, c.z, n, want)
		}
		// A mode at one end only is noted (the peer's own is unknown).
		notes := 0
		for _, f := range qos.Lint([]qos.DeviceConfig{a, z}, qos.LintOptions{}) {
			if f.Rule == qos.RuleParseNote && strings.Contains(f.Message, "at one end only") {
				notes++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[c.z == "" && c.a != "auto"]; notes != want {
			t.Errorf("FEC %q and %q: %d one-end notes, want %d", c.a, c.z, notes, want)
		}
	}
	for _, bad := range []string{"RS", "rs-fec", ""} {
		_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte("{\"PORT\": {\n\"Ethernet0\": {\"fec\": \"" + bad + "\"}}}")})
		if err == nil || !strings.Contains(err.Error(), "leaf1.json:2") || !strings.Contains(err.Error(), "parsePortFec") {
			t.Errorf("fec %q: err = %v, want one at its line naming portsorch's refusal", bad, err)
		}
	}
}

// The PORT fec field's description names the modes the resolver takes
// (sonicFECModes), which a struct tag cannot read from the list.
func TestFECFieldNamesTheModes(t *testing.T) {
	f, ok := reflect.TypeOf(PortEntry{}).FieldByName("FEC")
	if !ok {
		t.Fatal("PortEntry has no FEC field")
	}
	why := f.Tag.Get("why")
	for _, m := range sonicFECModes {
		if !strings.Contains(why, m+",") && !strings.Contains(why, m+" (") {
			t.Errorf("PORT fec's description does not name the mode %q: %s", m, why)
		}
	}
}
