package sonic

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A PORTCHANNEL_MEMBER entry (PortChannel<n>|<port>, as a user adds a
// port to a LAG) makes the port a member of the port channel: teammgrd
// runs teamd's LACP runner for every PORTCHANNEL, so a member whose
// link's other end is in none carries nothing (qos.ChannelAlone, lint's
// QOS026). labctl read no PORTCHANNEL_MEMBER and took the port as before.
func TestPortChannelMemberIsTheChannel(t *testing.T) {
	in := `{"PORTCHANNEL": {"PortChannel1": {"admin_status": "up", "min_links": "1"}},
		"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if got := dc.Port("Ethernet4").Channel; got != "PortChannel1" {
		t.Errorf("Ethernet4's port channel %q, want PortChannel1", got)
	}
	if got := dc.Port("Ethernet0").Channel; got != "" {
		t.Errorf("Ethernet0's port channel %q, want none", got)
	}
	if why, _ := qos.ChannelAlone(dc.Port("Ethernet4"), nil); why == "" {
		t.Errorf("a member facing no port channel carries traffic")
	}
	for _, bad := range []string{`"PortChannel1"`, `"Ethernet4|PortChannel1"`} {
		in := `{"PORTCHANNEL_MEMBER": {` + bad + `: {}}, "PORT_QOS_MAP": {"Ethernet4": {"pfc_enable": "3"}}}`
		if _, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)}); err == nil {
			t.Errorf("PORTCHANNEL_MEMBER key %s read, want it refused at its line", bad)
		}
	}
}

// teammgrd adds a PORTCHANNEL_MEMBER's port only to a port channel that
// PORTCHANNEL defines (doLagMemberTask waits on isLagStateOk), sets the
// port channel down unless admin_status is up (setLagAdminStatus, the
// default down), and a bundled member's traffic is the port channel's,
// whose address is PORTCHANNEL_INTERFACE's. labctl took any
// PORTCHANNEL_MEMBER key as membership and read neither table.
func TestPortChannelDefinedUpAndAddressed(t *testing.T) {
	parse := func(in string) qos.DeviceConfig {
		t.Helper()
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		return dc
	}
	const qm = `"PORT_QOS_MAP": {"Ethernet4": {"pfc_enable": "3"}}`
	dc := parse(`{"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}}, ` + qm + `}`)
	if got := dc.Port("Ethernet4").Channel; got != "" {
		t.Errorf("Ethernet4 in %q, whose PORTCHANNEL is missing; want an ordinary port", got)
	}
	if !slices.ContainsFunc(dc.Notes, func(n string) bool { return strings.Contains(n, "PortChannel1|Ethernet4") }) {
		t.Errorf("no note of the member of an undefined port channel: %q", dc.Notes)
	}
	for admin, down := range map[string]bool{`"admin_status": "up"`: false, `"admin_status": "down"`: true, `"min_links": "1"`: true} {
		dc := parse(`{"PORTCHANNEL": {"PortChannel1": {` + admin + `}}, "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}}, ` + qm + `}`)
		p := dc.Port("Ethernet4")
		if p.Channel != "PortChannel1" || (p.ChannelDown != "") != down {
			t.Errorf("PORTCHANNEL {%s}: Ethernet4 in %q, down %q; want PortChannel1, down %v", admin, p.Channel, p.ChannelDown, down)
		}
		if p.ChannelAddress {
			t.Errorf("PORTCHANNEL {%s}: an address with no PORTCHANNEL_INTERFACE", admin)
		}
	}
	dc = parse(`{"PORTCHANNEL": {"PortChannel1": {"admin_status": "up"}}, "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}},
		"PORTCHANNEL_INTERFACE": {"PortChannel1": {}, "PortChannel1|10.0.0.0/31": {}}, ` + qm + `}`)
	p := dc.Port("Ethernet4")
	if !p.ChannelAddress {
		t.Errorf("PORTCHANNEL_INTERFACE|PortChannel1|10.0.0.0/31 gives the port channel no address")
	}
	if why, _ := qos.ChannelAlone(p, p); why != "" {
		t.Errorf("two addressed members up: %q", why)
	}
}

// A PORT_QOS_MAP entry keyed by a port channel, in a lab whose intent has
// ECN on: QOS005 said "no queue of this port marks ECN" of the channel's
// name, as if it were a port. It says it is the port channel and names
// its members.
func TestECNFindingOfAPortChannelNamesItsMembers(t *testing.T) {
	in := `{"PORTCHANNEL": {"PortChannel1": {"admin_status": "up"}},
		"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}, "PortChannel1|Ethernet8": {}},
		"PORT_QOS_MAP": {"PortChannel1": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}, "Ethernet8": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	intent, _ := qos.Profile("")
	var got []string
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{Intent: &intent}) {
		if f.Rule == qos.RuleECNLosslessQueue && f.Port == "PortChannel1" {
			got = append(got, f.Message)
		}
	}
	if len(got) == 0 {
		t.Fatal("no QOS005 on PortChannel1")
	}
	for _, m := range got {
		if strings.Contains(m, "this port") || !strings.Contains(m, "port channel PortChannel1") || !strings.Contains(m, "Ethernet4, Ethernet8") {
			t.Errorf("QOS005 on PortChannel1: %s", m)
		}
	}
}

// PORTCHANNEL fallback true: teamd's lacp runner forwards on a member
// without an LACP partner as the port channel's (qos.ChannelFallback
// static); labctl only noted it and took such a member to carry nothing.
func TestPortChannelFallbackIsStatic(t *testing.T) {
	for fb, want := range map[string]string{`"fallback": "true"`: "static", `"fallback": "false"`: "", `"min_links": "1"`: ""} {
		in := `{"PORTCHANNEL": {"PortChannel1": {"admin_status": "up", ` + fb + `}}, "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}},
			"PORT_QOS_MAP": {"Ethernet4": {"pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		if got := dc.Port("Ethernet4").ChannelFallback; got != want {
			t.Errorf("PORTCHANNEL {%s}: fallback %q, want %q", fb, got, want)
		}
	}
}

// PORTCHANNEL min_links is what teammgrd's addLag hands teamd's lacp
// runner as min_ports: the port channel comes up only with that many
// members selected (qos.MemberAlone). labctl did not read it. Its place
// is the PORTCHANNEL entry's min_links line, which lint's QOS026 quotes;
// a value SONiC's YANG refuses is refused at its line.
func TestPortChannelMinLinks(t *testing.T) {
	in := "{\n\"PORTCHANNEL\": {\"PortChannel1\": {\"admin_status\": \"up\",\n  \"min_links\": \"2\"}},\n" +
		`"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}, "PortChannel1|Ethernet4": {}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet4")
	if p.ChannelMinLinks != 2 || !strings.Contains(p.Origins["channel_min_links"], "min_links") || !strings.Contains(p.Origins["channel_min_links"], "leaf1.json:3") {
		t.Errorf("Ethernet4's min links %d at %q, want 2 at PORTCHANNEL|PortChannel1's min_links, leaf1.json:3", p.ChannelMinLinks, p.Origins["channel_min_links"])
	}
	for _, bad := range []string{`"0"`, `"two"`, `"1025"`, `"256"`} {
		in := strings.Replace(in, `"2"`, bad, 1)
		if _, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)}); err == nil || !strings.Contains(err.Error(), "leaf1.json:3") || !strings.Contains(err.Error(), "1-255") {
			t.Errorf("min_links %s: %v, want it refused at its line as not 1-255", bad, err)
		}
	}
	// 255, teamd's most, is read.
	if dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(strings.Replace(in, `"2"`, `"255"`, 1))}); err != nil || dc.Port("Ethernet4").ChannelMinLinks != 255 {
		t.Errorf("min_links \"255\": %v, want it read", err)
	}
}
