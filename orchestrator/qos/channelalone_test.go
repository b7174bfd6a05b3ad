package qos

import (
	"strings"
	"testing"
)

// A link whose two ends are port channel members carries the lab's
// traffic only where both bundle and both port channels carry an address:
// the lab's /31 sits on the member port, and a bundled member's traffic
// is its channel's. labctl took any two members to carry traffic, whatever
// their channels' addresses, their LACP modes or a channel down.
func TestChannelAloneBothEnds(t *testing.T) {
	member := func(mode string, addr bool, down string) *PortConfig {
		return &PortConfig{Name: "Ethernet1", Channel: "Port-Channel1", ChannelMode: mode, ChannelAddress: addr, ChannelDown: down}
	}
	for _, c := range []struct {
		name     string
		p, peer  *PortConfig
		why, fix string // "" why: carries traffic
	}{
		{"both active, both addressed", member("active", true, ""), member("", true, ""), "", ""},
		{"both static, both addressed", member("on", true, ""), member("on", true, ""), "", ""},
		{"active facing passive", member("passive", true, ""), member("active", true, ""), "", ""},
		{"the member's channel has no address", member("active", false, ""), member("active", true, ""), "which has no IP address", "PORTCHANNEL_INTERFACE"},
		{"the other end's channel has no address", member("active", true, ""), member("active", false, ""), "has no IP address", "interface Port-Channel<N>"},
		// An EOS channel's address without no switchport is ignored: the
		// finding says so, not that it has none (labctl said "has no IP
		// address" of a block that had one).
		{"the member's channel's address ignored", ignored(member("active", false, "")), member("active", true, ""), "lacks no switchport, so EOS ignores its IP configuration (ip address 10.0.0.0/31 (leaf1.cfg:12) in interface Port-Channel1", "add no switchport to interface Port-Channel1's block"},
		{"the other end's channel's address ignored", member("active", true, ""), ignored(member("active", false, "")), "other end's Port-Channel1 lacks no switchport, so EOS ignores", "at the link's other end, add no switchport to interface Port-Channel1's block"},
		{"facing a host, fallback static, the address ignored", withFallback(ignored(member("active", false, "")), "static"), nil, "Port-Channel1 lacks no switchport", "add no switchport"},
		{"both passive", member("passive", true, ""), member("passive", true, ""), "neither sends an LACPDU", "mode active"},
		{"static facing LACP", member("on", true, ""), member("active", true, ""), "never bundles", "same kind"},
		{"LACP facing static", member("", true, ""), member("on", true, ""), "never bundles", "same kind"},
		{"its channel down", member("", true, `PORTCHANNEL|PortChannel1 admin_status "down"`), member("", true, ""), "which is down", "set the port channel up"},
		{"the other end's channel down", member("", true, ""), member("", true, "x"), "which is down", "other end's port channel up"},
		{"facing a host", member("active", true, ""), nil, "LACP finds no partner", "runs no bond"},
		{"facing a port in none", member("active", true, ""), &PortConfig{Name: "Ethernet1"}, "no port channel", "runs no bond"},
		// LACP fallback: after its timeout the member forwards alone on
		// its own config (individual), or as the channel's static member,
		// which then needs the channel's address (static).
		{"facing a host, fallback individual", withFallback(member("active", false, ""), "individual"), nil, "", ""},
		{"facing a host, fallback static, the channel addressed", withFallback(member("active", true, ""), "static"), nil, "", ""},
		{"facing a host, fallback static, no address", withFallback(member("active", false, ""), "static"), nil, "fallback forwards on the member", "PORTCHANNEL_INTERFACE"},
	} {
		why, fix := ChannelAlone(c.p, c.peer)
		if c.why == "" {
			if why != "" {
				t.Errorf("%s: %q, want the link to carry traffic", c.name, why)
			}
			continue
		}
		if !strings.Contains(why, c.why) || !strings.Contains(fix, c.fix) {
			t.Errorf("%s: why %q fix %q, want them to say %q and %q", c.name, why, fix, c.why, c.fix)
		}
	}
	if why, _ := ChannelAlone(&PortConfig{Name: "Ethernet1"}, nil); why != "" {
		t.Errorf("a port in no port channel: %q", why)
	}
}

// ignored is p whose EOS port channel has an address EOS ignores (no no
// switchport).
func ignored(p *PortConfig) *PortConfig {
	p.ChannelIgnored = "ip address 10.0.0.0/31 (leaf1.cfg:12) in interface Port-Channel1"
	return p
}

// withFallback is p with LACP fallback of kind.
func withFallback(p *PortConfig, kind string) *PortConfig {
	p.ChannelFallback = kind
	return p
}

// A port channel with min links set comes up only with that many of its
// members carrying traffic (teamd's runner.min_ports, from SONiC's
// PORTCHANNEL min_links; EOS's port-channel min-links): below it every
// member carries nothing, the one whose own link is fine included, and
// lint's QOS026 says so on it, naming the members and the min links.
func TestMemberAloneMinLinks(t *testing.T) {
	leaf := func(minLinks int, e2Peer string) []DeviceConfig {
		member := func(name, peer string) PortConfig {
			return PortConfig{Name: name, Peer: peer, Fabric: true, Channel: "PortChannel1", ChannelAddress: true, ChannelMinLinks: minLinks,
				Origins: map[string]string{"channel_min_links": `PORTCHANNEL|PortChannel1 min_links "2" (leaf1.json:3)`}}
		}
		spine := func(name string) PortConfig {
			return PortConfig{Name: name, Peer: "leaf1:" + name, Fabric: true, Channel: "PortChannel1", ChannelAddress: true}
		}
		return []DeviceConfig{
			{Device: "leaf1", Ports: []PortConfig{member("Ethernet0", "spine1:Ethernet0"), member("Ethernet4", e2Peer)}},
			{Device: "spine1", Ports: []PortConfig{spine("Ethernet0"), spine("Ethernet4")}},
		}
	}
	portDown := func(cfgs []DeviceConfig) map[string]string {
		out := map[string]string{}
		for _, f := range Lint(cfgs, LintOptions{}) {
			if f.Rule == RulePortDown && f.Device == "leaf1" {
				for _, p := range append([]string{f.Port}, f.Ports...) {
					out[p] = f.Message
				}
			}
		}
		return out
	}
	// Both members bundled: min links 2 is met.
	if got := portDown(leaf(2, "spine1:Ethernet4")); len(got) > 0 {
		t.Errorf("min links 2, both members bundled: %v, want no finding", got)
	}
	// Ethernet4 faces a host: it carries nothing, and so does Ethernet0,
	// its channel short of 2 members.
	got := portDown(leaf(2, "h1:eth1"))
	if m := got["Ethernet0"]; !strings.Contains(m, "min_links") || !strings.Contains(m, "Ethernet0, Ethernet4") || !strings.Contains(m, "leaf1.json:3") {
		t.Errorf("min links 2, one member bundled: Ethernet0's finding %q, want it to name the members and the min_links entry", m)
	}
	// Min links 1 (or none) with one member bundled: the bundled one
	// carries traffic.
	for _, n := range []int{0, 1} {
		if m := portDown(leaf(n, "h1:eth1"))["Ethernet0"]; m != "" {
			t.Errorf("min links %d, one member bundled: Ethernet0 %q, want it to carry traffic", n, m)
		}
	}
	// LACP fallback individual: Ethernet4, facing a host, forwards as a
	// port of its own, outside the port channel, so min links does not
	// judge it; the channel keeps Ethernet0 alone, short of 2.
	cfgs := leaf(2, "h1:eth1")
	for i := range cfgs[0].Ports {
		withFallback(&cfgs[0].Ports[i], "individual")
	}
	got = portDown(cfgs)
	if m := got["Ethernet4"]; m != "" {
		t.Errorf("min links 2, fallback individual, Ethernet4 facing a host: Ethernet4 %q, want it to forward alone", m)
	}
	if m := got["Ethernet0"]; !strings.Contains(m, "want of members") || !strings.Contains(m, "Ethernet0 would carry") {
		t.Errorf("min links 2, fallback individual, Ethernet4 facing a host: Ethernet0 %q, want it down for want of members, Ethernet4 not counted", m)
	}
}

// Without MLAG, a port channel's members facing different switches (or
// different port channels of one switch) do not bundle together: LACP
// aggregates only members of one partner system and key (IEEE 802.1AX;
// teamd's lacp_ports_aggregable), and one aggregator's members carry
// traffic. labctl took each member's link alone and called both up.
func TestMemberAloneSplitPartners(t *testing.T) {
	// leaf1's Ethernet0 faces spine1's Ethernet0 in PortChannel1, its
	// Ethernet4 faces e4Peer, a member of channel there.
	cfgs := func(e4Peer, channel string) []DeviceConfig {
		member := func(name, peer, channel string) PortConfig {
			return PortConfig{Name: name, Peer: peer, Fabric: true, Channel: channel, ChannelAddress: true}
		}
		out := []DeviceConfig{
			{Device: "leaf1", Ports: []PortConfig{member("Ethernet0", "spine1:Ethernet0", "PortChannel1"), member("Ethernet4", e4Peer, "PortChannel1")}},
			{Device: "spine1", Ports: []PortConfig{member("Ethernet0", "leaf1:Ethernet0", "PortChannel1")}},
			{Device: "spine2"},
		}
		dev, port, _ := strings.Cut(e4Peer, ":")
		d := &out[1]
		if dev == "spine2" {
			d = &out[2]
		}
		d.Ports = append(d.Ports, member(port, "leaf1:Ethernet4", channel))
		return out
	}
	down := func(cfgs []DeviceConfig) map[string]string {
		out := map[string]string{}
		for _, f := range Lint(cfgs, LintOptions{}) {
			if f.Rule == RulePortDown && f.Device == "leaf1" {
				for _, p := range append([]string{f.Port}, f.Ports...) {
					out[p] = f.Message
				}
			}
		}
		return out
	}
	// Both members to spine1's PortChannel1: one bundle.
	if got := down(cfgs("spine1:Ethernet4", "PortChannel1")); len(got) > 0 {
		t.Errorf("both members to spine1's PortChannel1: %v, want no finding", got)
	}
	// To spine1 and spine2: one partner's member carries nothing.
	got := down(cfgs("spine2:Ethernet0", "PortChannel1"))
	if len(got) != 1 || !strings.Contains(got["Ethernet4"], "different partners") || !strings.Contains(got["Ethernet4"], "spine2's PortChannel1") {
		t.Errorf("members to spine1 and spine2: %v, want Ethernet4 flagged for its partner", got)
	}
	// To two port channels of spine1: two partner keys, no bundle of both.
	if got := down(cfgs("spine1:Ethernet4", "PortChannel2")); len(got) != 1 || got["Ethernet4"] == "" {
		t.Errorf("members to spine1's PortChannel1 and PortChannel2: %v, want Ethernet4 flagged", got)
	}
}
