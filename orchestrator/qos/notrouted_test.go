package qos

import (
	"strings"
	"testing"
)

// A port of the lab's routed fabric that EOS keeps L2 (PortConfig.L2)
// routes nothing where the configs show it so in both readings of an EOS
// file, a whole config and QoS alone pushed over a routed startup config:
// its own IP configuration (which EOS ignores on a switchport), its own
// switchport line facing a routed port, or its silence in a whole config
// (L2Whole) facing a routed port. A silent port in QoS alone is what the
// switch's startup config made it; a port facing a host with no address
// of its own may be bridged into a VLAN whose SVI routes; a port
// channel's member takes its channel's mode. labctl erred on no
// switchport on the switch's other ports, which QoS alone says too.
func TestNotRouted(t *testing.T) {
	const whole = "ip address 10.0.0.0/31 (leaf1.cfg:96) in interface Ethernet1"
	silent := func(whole string) *PortConfig {
		return &PortConfig{Name: "Ethernet17", L2: "interface Ethernet17 (leaf1.cfg:174) says neither switchport nor no switchport", L2Whole: whole}
	}
	said := func(stmt, whole string) *PortConfig {
		return &PortConfig{Name: "Ethernet17", L2: stmt + " (leaf1.cfg:176)", L2Said: stmt + " (leaf1.cfg:176)", L2Whole: whole}
	}
	addressed := &PortConfig{Name: "Ethernet17", L2: "interface Ethernet17 (leaf1.cfg:174) says neither", L2IP: "ip address 10.0.0.1/31 (leaf1.cfg:176)", L2Whole: whole}
	routed := &PortConfig{Name: "Ethernet1", Routed: true}
	l2Peer := &PortConfig{Name: "Ethernet1", L2: "interface Ethernet1 (spine1.cfg:3)"}
	for _, c := range []struct {
		name    string
		p, peer *PortConfig
		why     string // "": routes
	}{
		{"routed", routed, routed, ""},
		{"its address ignored, facing a host", addressed, nil, "ignores its IP configuration (ip address 10.0.0.1/31 (leaf1.cfg:176)"},
		{"its address ignored, facing L2", addressed, l2Peer, "ignores"},
		{"switchport, the peer routed", said("switchport", ""), routed, "the link's other end is routed"},
		{"default switchport, the peer routed", said("default switchport", ""), routed, "the link's other end is routed"},
		{"switchport facing a host", said("switchport", whole), nil, ""},
		{"switchport facing L2", said("switchport", whole), l2Peer, ""},
		{"silent in a whole config, the peer routed", silent(whole), routed, "a whole one, which addresses its routed ports (" + whole},
		{"silent in QoS alone, the peer routed", silent(""), routed, ""},
		{"silent in a whole config, facing a host", silent(whole), nil, ""},
		{"silent in a whole config, facing L2", silent(whole), l2Peer, ""},
		{"a port channel's member", &PortConfig{Name: "Ethernet17", L2: "x", L2IP: "y", L2Said: "z", Channel: "Port-Channel1"}, routed, ""},
	} {
		why, fix := NotRouted(c.p, c.peer)
		if c.why == "" {
			if why != "" {
				t.Errorf("%s: %q, want it to route", c.name, why)
			}
			continue
		}
		if !strings.Contains(why, c.why) || !strings.Contains(why, c.p.L2) || fix != NotRoutedFix {
			t.Errorf("%s: why %q fix %q, want them to say %q, %q and NotRoutedFix", c.name, why, fix, c.why, c.p.L2)
		}
	}
}
