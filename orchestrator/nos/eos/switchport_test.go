package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// An Ethernet interface is a switchport on EOS unless its block says no
// switchport (or switchport default mode routed applies), and EOS ignores
// IP configuration on a switchport ("IP configuration will be ignored
// while interface Ethernet5 is not a routed port"). The parser says which
// ports are L2 and why, naming the block's first switchport line
// (PortConfig.L2), the port's own mode statement (L2Said: switchport,
// default switchport; switchport access vlan and switchport mode set no
// mode), its own IP configuration (L2IP), and where the switch's config
// addresses a front-panel port, which makes it a whole config (L2Whole;
// no switchport alone does not: a file of QoS alone says it). labctl
// said "neither switchport nor no switchport" of a block with switchport
// access vlan 10, and took no switchport on other ports for a whole
// config.
func TestSwitchportByDefault(t *testing.T) {
	in := "interface Ethernet1\n   no switchport\n   service-profile P\n!\n" +
		"interface Ethernet2\n   service-profile P\n!\n" +
		"interface Ethernet3\n   ip address 10.0.0.2/31\n!\n" +
		"interface Ethernet4\n   switchport\n!\n" +
		"interface Ethernet5\n   switchport access vlan 10\n   switchport mode access\n!\n" +
		"interface Ethernet6\n   no switchport\n   default switchport\n!\n" +
		"qos profile P\n   qos trust dscp\n!\n"
	const whole = "ip address 10.0.0.2/31 (leaf1.cfg:9) in interface Ethernet3"
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		port, l2, said, ip string // "" l2: routed
	}{
		{"Ethernet1", "", "", ""},
		{"Ethernet2", "interface Ethernet2 (leaf1.cfg:5) says neither switchport nor no switchport", "", ""},
		{"Ethernet3", "interface Ethernet3 (leaf1.cfg:8) says neither", "", "ip address 10.0.0.2/31 (leaf1.cfg:9)"},
		{"Ethernet4", "switchport (leaf1.cfg:12)", "switchport (leaf1.cfg:12)", ""},
		{"Ethernet5", "interface Ethernet5 (leaf1.cfg:14) says switchport access vlan 10 (leaf1.cfg:15), which sets no mode, and not no switchport", "", ""},
		{"Ethernet6", "default switchport (leaf1.cfg:20)", "default switchport (leaf1.cfg:20)", ""},
	} {
		p := dc.Port(c.port)
		if p == nil {
			t.Fatalf("no %s", c.port)
		}
		if c.l2 == "" {
			if p.L2 != "" || p.L2Said != "" || p.L2IP != "" || p.L2Whole != "" || !p.Routed {
				t.Errorf("%s: L2 %q, said %q, ip %q, whole %q, routed %v; want routed", c.port, p.L2, p.L2Said, p.L2IP, p.L2Whole, p.Routed)
			}
			continue
		}
		if !strings.Contains(p.L2, c.l2) || p.L2Said != c.said || p.L2IP != c.ip || p.L2Whole != whole || p.Routed {
			t.Errorf("%s: L2 %q, said %q, ip %q, whole %q, routed %v; want %q, %q, %q, %q", c.port, p.L2, p.L2Said, p.L2IP, p.L2Whole, p.Routed, c.l2, c.said, c.ip, whole)
		}
	}

	// QoS alone, as labctl's labs push it over a startup config that
	// holds the ports' modes and addresses: no switchport on one port, the
	// other silent: a switchport by EOS's default as far as the file
	// goes, and the file no whole config.
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte("interface Ethernet1\n   no switchport\n   service-profile P\n!\ninterface Ethernet2\n   service-profile P\n!\nqos profile P\n   qos trust dscp\n!\n")})
	if err != nil {
		t.Fatal(err)
	}
	if p := dc.Port("Ethernet2"); p.L2 == "" || p.L2Said != "" || p.L2IP != "" || p.L2Whole != "" {
		t.Errorf("QoS alone: %s L2 %q said %q ip %q whole %q; want a switchport by default, nothing more said", p.Name, p.L2, p.L2Said, p.L2IP, p.L2Whole)
	}

	// switchport default mode routed: a port that says neither is routed.
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte("switchport default mode routed\n!\ninterface Ethernet1\n   ip address 10.0.0.2/31\n!\n")})
	if err != nil {
		t.Fatal(err)
	}
	if p := dc.Port("Ethernet1"); p.L2 != "" || p.L2IP != "" || !p.Routed {
		t.Errorf("under switchport default mode routed: L2 %q ip %q routed %v; want routed", p.L2, p.L2IP, p.Routed)
	}
}

// switchport default mode applies to Ethernet interfaces alone (labctl's
// reading, defaultMode): an Ethernet port that says neither is L2 under
// switchport default mode access, by that line, and trusts CoS; a
// Port-Channel that says neither is a switchport by EOS's default, not by
// the line. The two readings (its mode, and why it is L2) are one
// decision.
func TestSwitchportDefaultModeAppliesToEthernet(t *testing.T) {
	in := "switchport default mode access\n!\n" +
		"interface Ethernet2\n   priority-flow-control on\n!\n" +
		"interface Port-Channel1\n   priority-flow-control on\n!\n"
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if p := dc.Port("Ethernet2"); p == nil || !strings.Contains(p.L2, "under switchport default mode access") || p.Trust != qos.TrustCoS {
		t.Errorf("Ethernet2 under switchport default mode access: %+v; want L2 by the line, trusting CoS", p)
	}
	if p := dc.Port("Port-Channel1"); p == nil || !strings.Contains(p.L2, "says neither switchport nor no switchport: a switchport, EOS's default") {
		t.Errorf("Port-Channel1 under switchport default mode access: %+v; want L2 by EOS's default", p)
	}
}

// A Port-Channel interface is a switchport too unless it says no
// switchport: its ip address is ignored, so its bundle carries the link's
// traffic without an address (PortConfig.ChannelAddress false).
func TestPortChannelAddressNeedsNoSwitchport(t *testing.T) {
	for block, addressed := range map[string]bool{
		"   no switchport\n   ip address 10.0.0.0/31\n": true,
		"   ip address 10.0.0.0/31\n":                   false,
		"   ip address 10.0.0.0/31\n   switchport\n":    false,
	} {
		in := "interface Ethernet1\n   no switchport\n   channel-group 1 mode active\n!\n" +
			"interface Port-Channel1\n" + block + "!\n"
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		p := dc.Port("Ethernet1")
		if p.ChannelAddress != addressed {
			t.Errorf("Port-Channel1 with %q: ChannelAddress %v, want %v", block, p.ChannelAddress, addressed)
		}
		// The address EOS ignores is named, for ChannelAlone to say so.
		if ign := "ip address 10.0.0.0/31 (leaf1.cfg:6) in interface Port-Channel1"; (p.ChannelIgnored == ign) == addressed {
			t.Errorf("Port-Channel1 with %q: ChannelIgnored %q, want %q where the address is ignored", block, p.ChannelIgnored, ign)
		}
	}
}
