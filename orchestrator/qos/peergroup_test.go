package qos

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// peerFabric is a leaf-spine fabric of 4 leaves and 3 spines, each leaf's
// Ethernet4, 8 and 12 to spine1, 2 and 3, each spine's Ethernet0-12 to
// leaf1-4, 30 m cables, with the lab's intent applied.
func peerFabric(t *testing.T) (Intent, []DeviceConfig) {
	t.Helper()
	in, err := Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	var devs []Device
	for l := 1; l <= 4; l++ {
		leaf := Device{Name: fmt.Sprintf("leaf%d", l), Role: "leaf", Ports: []Port{{Name: "Ethernet0", SpeedGbps: 100, Peer: fmt.Sprintf("h%d:eth1", l), Fabric: true}}}
		for s := 1; s <= 3; s++ {
			leaf.Ports = append(leaf.Ports, Port{Name: fmt.Sprintf("Ethernet%d", 4*s), SpeedGbps: 400, CableM: 30, Peer: fmt.Sprintf("spine%d:Ethernet%d", s, 4*(l-1)), Fabric: true})
		}
		devs = append(devs, leaf, Device{Name: fmt.Sprintf("h%d", l), Role: "host"})
	}
	for s := 1; s <= 3; s++ {
		d := Device{Name: fmt.Sprintf("spine%d", s), Role: "spine"}
		for l := 1; l <= 4; l++ {
			d.Ports = append(d.Ports, Port{Name: fmt.Sprintf("Ethernet%d", 4*(l-1)), SpeedGbps: 400, CableM: 30, Peer: fmt.Sprintf("leaf%d:Ethernet%d", l, 4*s), Fabric: true})
		}
		devs = append(devs, d)
	}
	cfgs, err := ApplyAll(in, devs)
	if err != nil {
		t.Fatal(err)
	}
	return in, cfgs
}

// A finding that names the switch at the other end of a port's link is
// one finding on a switch for each cause, whichever peers it names: an
// edit made to every leaf (CABLE_LENGTH raised to 100 m with the headroom
// for it; PFC on priority 4 too, which DSCP 10 takes) is one QOS006
// warning on each spine naming leaf1-4 and one QOS009 error on each leaf
// naming spine1-3, where it was one a link, a line each on a fabric of 32
// leaves. The ports are each listed (Ports), as the one-port findings
// were, so regress compares them port by port.
func TestPeerFindingsGrouped(t *testing.T) {
	in, cfgs := peerFabric(t)
	if fs := withoutSimNotes(Lint(cfgs, LintOptions{Intent: &in})); len(fs) != 0 {
		t.Fatalf("the fabric as its intent renders it: %+v", fs)
	}
	for i := range cfgs {
		if !strings.HasPrefix(cfgs[i].Device, "leaf") {
			continue
		}
		for _, name := range []string{"Ethernet4", "Ethernet8", "Ethernet12"} {
			p := cfgs[i].Port(name)
			p.CableM = 100
			g := p.Class(3).PGConfig
			g.XoffBytes = Ptr(int64(200000))
			g.SizeBytes = Ptr(Val(g.XoffBytes) + Val(g.XonBytes))
			p.PFCPriorities = []int{3, 4}
			p.DSCPToTC = maps.Clone(p.DSCPToTC)
			p.DSCPToTC[10] = 4
		}
	}
	fs := Lint(cfgs, LintOptions{Intent: &in})

	headroom := findings(fs, RuleHeadroomShort)
	if len(headroom) != 3 {
		t.Fatalf("QOS006: %d findings, want one a spine:\n%s", len(headroom), findingLines(headroom))
	}
	for _, f := range headroom {
		if !strings.HasPrefix(f.Device, "spine") || f.Port != "Ethernet0-12" || !slices.Equal(f.Ports, []string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"}) ||
			!strings.Contains(f.Message, "but the peers leaf1-4's CABLE_LENGTH sizes the link for 100 m") || !strings.Contains(f.Fix, "each link to leaf1-4 the cable's real length") {
			t.Errorf("QOS006: %s %s (%v): %s (fix: %s); want Ethernet0-12 naming the peers leaf1-4", f.Device, f.Port, f.Ports, f.Message, f.Fix)
		}
	}
	links := findings(fs, RuleLinkLosslessMatch)
	if len(links) != 4 {
		t.Fatalf("QOS009: %d findings, want one a leaf:\n%s", len(links), findingLines(links))
	}
	for _, f := range links {
		if !strings.HasPrefix(f.Device, "leaf") || f.Port != "Ethernet4-12" || f.Severity != SevError ||
			f.Message != "PFC priorities [3,4] differ from the peers spine1-3's [3]" || f.Fix != "enable PFC on the same priorities at both ends of each link to spine1-3" {
			t.Errorf("QOS009: %s %s: %s (fix: %s); want Ethernet4-12 naming the peers spine1-3", f.Device, f.Port, f.Message, f.Fix)
		}
	}

	// leaf1's link to spine1 alone: its peer named alone, as before.
	for i := range cfgs {
		for _, name := range []string{"Ethernet4", "Ethernet8", "Ethernet12"} {
			if p := cfgs[i].Port(name); strings.HasPrefix(cfgs[i].Device, "leaf") && (cfgs[i].Device != "leaf1" || name != "Ethernet4") {
				p.PFCPriorities = []int{3}
			}
		}
	}
	links = findings(Lint(cfgs, LintOptions{Intent: &in}), RuleLinkLosslessMatch)
	if len(links) != 1 || links[0].Device != "leaf1" || links[0].Port != "Ethernet4" || links[0].Ports != nil ||
		links[0].Message != "PFC priorities [3,4] differ from the peer spine1's [3]" || links[0].Fix != "enable PFC on the same priorities at both ends of each link to spine1" {
		t.Errorf("QOS009 of leaf1's link to spine1 alone:\n%s", findingLines(links))
	}
}

func findingLines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s %s %s: %s\n", f.Severity, f.Rule, f.Device, f.Port, f.Message)
	}
	return b.String()
}
