package qos

import (
	"strings"
	"testing"
)

// A port of the lab's routed fabric that EOS keeps L2 (PortConfig.L2)
// routes nothing where the config shows it was meant to route: its own
// IP configuration (which EOS ignores on a switchport), the switch's other
// ports routed (L2Harm), or the link's other end routed. A port whose
// switch's config says nothing of port modes, facing another such, is
// not judged; a port channel's member takes its channel's mode.
func TestNotRouted(t *testing.T) {
	l2 := func(harm string) *PortConfig {
		return &PortConfig{Name: "Ethernet17", L2: "interface Ethernet17 (leaf1.cfg:174)", L2Harm: harm}
	}
	routed := &PortConfig{Name: "Ethernet1", Routed: true}
	silent := &PortConfig{Name: "Ethernet1", L2: "interface Ethernet1 (spine1.cfg:3)"}
	for _, c := range []struct {
		name    string
		p, peer *PortConfig
		why     string // "": routes
	}{
		{"routed", routed, routed, ""},
		{"L2, the peer routed", l2(""), routed, "the link's other end is routed"},
		{"L2, its address ignored", l2("ip address 10.0.0.1/31 (leaf1.cfg:176)"), silent, "ignores"},
		{"L2, the switch's other ports routed, facing a host", l2("interface Ethernet1 (leaf1.cfg:94) says no switchport"), nil, "routes its other ports"},
		{"L2 facing L2, nothing said of modes", l2(""), silent, ""},
		{"L2 facing a host, nothing said of modes", l2(""), nil, ""},
		{"a port channel's member", &PortConfig{Name: "Ethernet17", L2: "x", L2Harm: "y", Channel: "Port-Channel1"}, routed, ""},
	} {
		why, fix := NotRouted(c.p, c.peer)
		if c.why == "" {
			if why != "" {
				t.Errorf("%s: %q, want it to route", c.name, why)
			}
			continue
		}
		if !strings.Contains(why, c.why) || !strings.Contains(why, c.p.L2) || !strings.Contains(fix, "no switchport") {
			t.Errorf("%s: why %q fix %q, want them to say %q, %q and no switchport", c.name, why, fix, c.why, c.p.L2)
		}
	}
}
