package eos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A policy-map class that does set dscp re-marks the packets it matches
// as the port receives them: every switch after this one classifies them
// by the new DSCP. Where a class RoCE's packets (or its CNPs') meet
// re-marks them to a DSCP the next switch classifies into another class,
// lint errs (QOS017) at the set dscp line, naming the class, the policy,
// the ports, the DSCP and the class it lands in; a re-mark to RoCE's own
// DSCP, one in a class RoCE never meets, or one in a policy no port takes,
// is no finding.
func TestSetDSCPOnRoCE(t *testing.T) {
	conf := func(class, intf string) string {
		return `qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
ip access-list roce
   10 permit udp any any eq 4791 dscp 26
ip access-list rocev2
   10 permit udp any any eq 4791
ip access-list ssh
   10 permit tcp any any eq ssh
ip access-list cnp
   10 permit ip any any dscp 48
!
class-map type qos match-any cm-roce
   match ip access-group roce
class-map type qos match-any cm-rocev2
   match ip access-group rocev2
class-map type qos match-any cm-ssh
   match ip access-group ssh
class-map type qos match-any cm-cnp
   match ip access-group cnp
!
policy-map type quality-of-service pm
` + class + `
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
`
	}
	const input = "   service-policy type qos input pm"
	const rewrite = "\n!\nqos rewrite dscp\nqos map traffic-class 3 to dscp 26\nqos map traffic-class 6 to dscp 48"
	cases := []struct {
		name, class, intf string
		at                string // the set dscp line the error names ("": none)
		what              string
	}{
		{"RoCE to DSCP 0", "   class cm-roce\n      set dscp 0", input, "      set dscp 0", "RoCE's data (DSCP 26)"},
		{"RoCE to DSCP 0, its class kept", "   class cm-roce\n      set traffic-class 3\n      set dscp 0", input, "      set dscp 0", "RoCE's data (DSCP 26)"},
		{"the CNPs to DSCP 0", "   class cm-cnp\n      set dscp 0", input, "      set dscp 0", "its CNPs (DSCP 48)"},
		{"every RoCEv2 packet to RoCE's DSCP", "   class cm-rocev2\n      set dscp 26", input, "      set dscp 26", "its CNPs (DSCP 48) to DSCP 26"},
		{"RoCE to its own DSCP", "   class cm-roce\n      set dscp 26", input, "", ""},
		{"a class RoCE never meets", "   class cm-ssh\n      set dscp 0", input, "", ""},
		{"RoCE's class ahead of it", "   class cm-roce\n      set traffic-class 3\n   class cm-ssh\n      set dscp 0\n   class cm-cnp\n      set traffic-class 6", input, "", ""},
		{"taken back", "   class cm-roce\n      set dscp 0\n      no set dscp", input, "", ""},
		{"on no interface", "   class cm-roce\n      set dscp 0", "", "", ""},
		{"every packet to DSCP 0", "   class class-default\n      set dscp 0", input, "      set dscp 0", "RoCE's data (DSCP 26)"},
		// The egress rewrite (qos rewrite dscp) writes RoCE's and the
		// CNPs' DSCPs back as their classes leave Ethernet2.
		{"every packet to DSCP 0, rewritten back on egress", "   class class-default\n      set dscp 0", input + rewrite, "", ""},
		{"every packet to DSCP 0, RoCE's class rewritten elsewhere", "   class class-default\n      set dscp 0", input + strings.Replace(rewrite, "to dscp 26", "to dscp 10", 1), "      set dscp 0", "RoCE's data (DSCP 26)"},
	}
	roce := 26
	for _, c := range cases {
		in := conf(c.class, c.intf)
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var found []qos.Finding
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{RoCEDSCP: &roce}) {
			if f.Rule == qos.RuleDefaultRelied && strings.Contains(f.Message, "set dscp") {
				found = append(found, f)
			}
		}
		if c.at == "" {
			if len(found) > 0 {
				t.Errorf("%s: %+v, want no set dscp finding", c.name, found)
			}
			continue
		}
		line := 0
		for i, l := range strings.Split(in, "\n") {
			if l == c.at {
				line = i + 1
			}
		}
		if len(found) != 1 || found[0].Severity != qos.SevError || found[0].Port != "Ethernet1" {
			t.Errorf("%s: %+v, want one error on Ethernet1", c.name, found)
			continue
		}
		for _, want := range []string{fmt.Sprintf("line %d: ", line), "policy-map pm class ", c.what, "to DSCP ", "classified there into traffic class "} {
			if !strings.Contains(found[0].Message, want) {
				t.Errorf("%s: message %q lacks %q", c.name, found[0].Message, want)
			}
		}
		// The policy, its class and its set dscp line are said once.
		for _, once := range []string{"policy-map pm", strings.TrimSpace(c.at)} {
			if n := strings.Count(found[0].Message, once); n != 1 {
				t.Errorf("%s: message %q says %q %d times, want once", c.name, found[0].Message, once, n)
			}
		}
	}
}
