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
// ports are L2 and where (PortConfig.L2), and what in the switch's own
// config shows such a port was meant to route (L2Harm): its ip address,
// or no switchport on the switch's other ports. A file of QoS alone says
// neither. labctl read a port without no switchport as routed.
func TestSwitchportByDefault(t *testing.T) {
	in := "interface Ethernet1\n   no switchport\n   service-profile P\n!\n" +
		"interface Ethernet2\n   service-profile P\n!\n" +
		"interface Ethernet3\n   ip address 10.0.0.2/31\n!\n" +
		"interface Ethernet4\n   switchport\n!\n" +
		"qos profile P\n   qos trust dscp\n!\n"
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		port, l2, harm string // "" l2: routed
	}{
		{"Ethernet1", "", ""},
		{"Ethernet2", "interface Ethernet2 (leaf1.cfg:5)", "interface Ethernet1 (leaf1.cfg:1) says no switchport"},
		{"Ethernet3", "interface Ethernet3 (leaf1.cfg:8)", "ip address 10.0.0.2/31 (leaf1.cfg:9)"},
		{"Ethernet4", "switchport (leaf1.cfg:12)", "interface Ethernet1 (leaf1.cfg:1) says no switchport"},
	} {
		p := dc.Port(c.port)
		if p == nil {
			t.Fatalf("no %s", c.port)
		}
		if c.l2 == "" {
			if p.L2 != "" || p.L2Harm != "" || !p.Routed {
				t.Errorf("%s: L2 %q, harm %q, routed %v; want routed", c.port, p.L2, p.L2Harm, p.Routed)
			}
			continue
		}
		if !strings.Contains(p.L2, c.l2) || !strings.Contains(p.L2Harm, c.harm) || p.Routed {
			t.Errorf("%s: L2 %q, harm %q, routed %v; want %q and %q", c.port, p.L2, p.L2Harm, p.Routed, c.l2, c.harm)
		}
	}

	// QoS alone: every port is a switchport by EOS's default, and nothing
	// in the file says it was meant to route.
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte("interface Ethernet1\n   service-profile P\n!\ninterface Ethernet2\n   service-profile P\n!\nqos profile P\n   qos trust dscp\n!\n")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range dc.Ports {
		if p.L2 == "" || p.L2Harm != "" {
			t.Errorf("QoS alone: %s L2 %q harm %q; want a switchport by default and no harm said", p.Name, p.L2, p.L2Harm)
		}
	}

	// switchport default mode routed: a port that says neither is routed.
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte("switchport default mode routed\n!\ninterface Ethernet1\n   ip address 10.0.0.2/31\n!\n")})
	if err != nil {
		t.Fatal(err)
	}
	if p := dc.Port("Ethernet1"); p.L2 != "" || p.L2Harm != "" || !p.Routed {
		t.Errorf("under switchport default mode routed: L2 %q harm %q routed %v; want routed", p.L2, p.L2Harm, p.Routed)
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
		if got := dc.Port("Ethernet1").ChannelAddress; got != addressed {
			t.Errorf("Port-Channel1 with %q: ChannelAddress %v, want %v", block, got, addressed)
		}
	}
}
