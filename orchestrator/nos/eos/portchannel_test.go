package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A member's channel-group mode is kept and written back (two passive
// ends, or a static end facing an LACP one, never bundle:
// qos.ChannelAlone), its Port-Channel interface's address is read (a
// bundled member's traffic is the channel's), and a port-channel's LACP
// fallback is read (how a member without a partner forwards). labctl dropped the
// mode, rendered every member as mode active, and read no address.
func TestChannelGroupModeAndAddress(t *testing.T) {
	in := "interface Ethernet1\n   no switchport\n   channel-group 1 mode passive\n!\n" +
		"interface Ethernet2\n   no switchport\n   channel-group 2 mode on\n!\n" +
		"interface Port-Channel2\n   port-channel lacp fallback timeout 50\n!\n" +
		"interface Port-Channel1\n   no switchport\n   ip address 10.0.0.0/31\n   port-channel lacp fallback individual\n!\n"
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	e1, e2 := dc.Port("Ethernet1"), dc.Port("Ethernet2")
	if e1.ChannelMode != "passive" || e2.ChannelMode != "on" {
		t.Errorf("modes %q, %q; want passive, on", e1.ChannelMode, e2.ChannelMode)
	}
	if !e1.ChannelAddress || e2.ChannelAddress {
		t.Errorf("channel addresses %v, %v; want Port-Channel1's only", e1.ChannelAddress, e2.ChannelAddress)
	}
	if e1.ChannelFallback != "individual" || e2.ChannelFallback != "" {
		t.Errorf("LACP fallback %q, %q; want Port-Channel1's individual, none for a fallback timeout alone", e1.ChannelFallback, e2.ChannelFallback)
	}
	out, err := Render(dc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"channel-group 1 mode passive", "channel-group 2 mode on"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendered config lacks %q:\n%s", want, out)
		}
	}
	if _, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte("interface Ethernet1\n   channel-group 1 mode sometimes\n!\n")}); err == nil || !strings.Contains(err.Error(), "leaf1.cfg:2") {
		t.Errorf("channel-group mode sometimes: %v, want it refused at its line", err)
	}
}

// shutdown on a Port-Channel interface takes every member down
// (ChannelDown, qos.ChannelAlone: QOS026 and a link down): labctl read
// the members as up.
func TestPortChannelShutdownIsChannelDown(t *testing.T) {
	for block, down := range map[string]bool{"   shutdown\n": true, "   no shutdown\n": false, "": false} {
		in := "interface Ethernet1\n   no switchport\n   channel-group 1 mode active\n!\n" +
			"interface Port-Channel1\n   no switchport\n   ip address 10.0.0.0/31\n" + block + "!\n"
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		p := dc.Port("Ethernet1")
		if (p.ChannelDown != "") != down {
			t.Errorf("Port-Channel1 with %q: Ethernet1's channel down %q, want down %v", block, p.ChannelDown, down)
		}
		if why, fix := qos.ChannelAlone(p, p); (why != "") != down || (down && !strings.Contains(fix, "no shutdown")) {
			t.Errorf("Port-Channel1 with %q: ChannelAlone %q (fix %q), want a finding %v naming no shutdown", block, why, fix, down)
		}
	}
}

// The fallback's kind is the line's: a config in a folder whose name
// holds "individual" read fallback static as individual (the kind was
// looked for in the line's place and text together).
func TestLACPFallbackKindIsTheLines(t *testing.T) {
	in := "interface Ethernet1\n   no switchport\n   channel-group 1 mode active\n!\n" +
		"interface Port-Channel1\n   port-channel lacp fallback static\n!\n"
	dc, err := Parse("leaf1", qos.Source{Name: "individual/leaf1.cfg", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if got := dc.Port("Ethernet1").ChannelFallback; got != "static" {
		t.Errorf("fallback static in individual/leaf1.cfg read as %q", got)
	}
}

// port-channel min-links in an interface Port-Channel block is the fewest
// members that must carry traffic for the channel to come up
// (qos.MemberAlone), kept with its line for lint to quote; no and
// default forms take it away. labctl did not read it.
func TestPortChannelMinLinks(t *testing.T) {
	const head = "interface Ethernet1\n   no switchport\n   channel-group 1 mode active\n!\n" +
		"interface Port-Channel1\n   no switchport\n   ip address 10.0.0.0/31\n   port-channel min-links 2\n"
	for tail, want := range map[string]int{"": 2, "   no port-channel min-links\n": 0, "   default port-channel min-links\n": 0, "   port-channel min-links 3\n": 3} {
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(head + tail + "!\n")})
		if err != nil {
			t.Fatal(err)
		}
		p := dc.Port("Ethernet1")
		if p.ChannelMinLinks != want {
			t.Errorf("Port-Channel1 with %q after min-links 2: Ethernet1's min links %d, want %d", tail, p.ChannelMinLinks, want)
		}
		if want > 0 && !strings.Contains(p.Origins["channel_min_links"], "leaf1.cfg:") {
			t.Errorf("min links without its place: %q", p.Origins["channel_min_links"])
		}
	}
	if _, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte("interface Port-Channel1\n   port-channel min-links two\n!\n")}); err == nil || !strings.Contains(err.Error(), "leaf1.cfg:2") {
		t.Errorf("port-channel min-links two: %v, want it refused at its line", err)
	}
}
