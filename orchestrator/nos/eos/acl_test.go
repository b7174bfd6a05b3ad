package eos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// An interface's ip access-group filters what the port receives by the
// access-list, which ends in EOS's implicit deny: a deny entry that meets
// RoCEv2 packets (UDP to port 4791), or a list that permits something
// else alone, drops RoCE on the switch while labctl simulates no ACL.
// Lint errs at the entry's (or the list's) line, warns where an address
// narrows the entry, and says nothing of a list that permits RoCE's
// packets first, of one no interface takes, or after no ip access-group.
func TestAccessGroupOnRoCE(t *testing.T) {
	conf := func(acl, intf string) string {
		return `qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
ip access-list edge
` + acl + `
!
interface Port-Channel1
   no switchport
   ip access-group edge in
!
interface Ethernet1
   no switchport
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
` + intf + `
!
interface Ethernet2
   no switchport
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
interface Ethernet3
   no switchport
   channel-group 1 mode active
!
`
	}
	const group = "   ip access-group edge in"
	cases := []struct {
		name, acl, intf string
		sev             qos.Severity // "": no finding on Ethernet1
		at              string       // the line the finding names
		where           string
	}{
		{"a deny of UDP 4791", "   10 deny udp any any eq 4791\n   20 permit ip any any", group, qos.SevError, "   10 deny udp any any eq 4791", `ip access-list edge "10 deny udp any any eq 4791"`},
		{"ssh alone, the implicit deny", "   10 permit tcp any any eq ssh", group, qos.SevError, "ip access-list edge", "ip access-list edge's implicit deny"},
		{"a deny of RoCE's DSCP", "   10 deny ip any any dscp 26\n   20 permit ip any any", group, qos.SevError, "   10 deny ip any any dscp 26", `ip access-list edge "10 deny ip any any dscp 26"`},
		{"a deny from one subnet", "   10 deny udp 10.9.0.0/16 any eq 4791\n   20 permit ip any any", group, qos.SevWarning, "   10 deny udp 10.9.0.0/16 any eq 4791", `ip access-list edge "10 deny udp 10.9.0.0/16 any eq 4791"`},
		{"a permit from one subnet ahead of a deny of all", "   10 permit udp 10.0.0.0/8 any eq 4791\n   30 deny ip any any log", group, qos.SevWarning, "   30 deny ip any any log", `ip access-list edge "30 deny ip any any log"`},
		{"a permit of UDP 4791 first", "   10 permit udp any any eq 4791\n   20 permit tcp any any eq ssh", group, "", "", ""},
		{"a deny of DSCP 46", "   10 deny ip any any dscp 46\n   20 permit ip any any", group, "", "", ""},
		{"taken off the interface", "   10 deny udp any any eq 4791", group + "\n   no ip access-group edge in", "", "", ""},
		{"on no interface but a port-channel of no data port", "   10 deny udp any any eq 4791", "", "", "", ""},
	}
	roce := 26
	for _, c := range cases {
		in := conf(c.acl, c.intf)
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// Ethernet1 and 2 are the data ports; Ethernet3, the member of
		// Port-Channel1, is none in this test.
		for i := range dc.Ports {
			dc.Ports[i].Fabric = dc.Ports[i].Name != "Ethernet3"
		}
		var found []qos.Finding
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{RoCEDSCP: &roce}) {
			if f.Rule == qos.RuleDefaultRelied && strings.Contains(f.Message, "ACL") {
				found = append(found, f)
			}
		}
		if c.sev == "" {
			if len(found) > 0 {
				t.Errorf("%s: %+v, want no ACL finding", c.name, found)
			}
			continue
		}
		line := 0
		for i, l := range strings.Split(in, "\n") {
			if l == c.at {
				line = i + 1
				break
			}
		}
		if len(found) != 1 || found[0].Severity != c.sev || found[0].Port != "Ethernet1" || found[0].Where != c.where ||
			!strings.Contains(found[0].Message, fmt.Sprintf("line %d: ", line)) {
			t.Errorf("%s: %+v, want one %s on Ethernet1 at %s (line %d)", c.name, found, c.sev, c.where, line)
		}
		if strings.Contains(c.name, "a permit from one subnet") && (len(found) != 1 || !strings.Contains(found[0].Message, "10 permit udp 10.0.0.0/8 any eq 4791")) {
			t.Errorf("%s: %+v, want the warning to name the permit 10 ahead of it", c.name, found)
		}
	}
	// A port-channel's access-group filters its members.
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(conf("   10 deny udp any any eq 4791", ""))})
	if err != nil {
		t.Fatal(err)
	}
	if len(dc.Filters) == 0 || strings.Join(dc.Filters[0].Ports, ",") != "Ethernet3" {
		t.Errorf("filters %+v, want Port-Channel1's edge on its member Ethernet3", dc.Filters)
	}
}
