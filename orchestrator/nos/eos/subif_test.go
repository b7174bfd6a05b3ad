package eos

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// subifConfig is AVD-like: a routed parent with its QoS, an L3
// subinterface without an mtu, one with mtu 9214, an L2 one (vlan id), and
// one that sets its own trust.
const subifConfig = formsHead + `interface Ethernet26
   mtu 9214
   no switchport
   service-profile ROCE
!
interface Ethernet26.1
   description TENANT_A subinterface
   encapsulation dot1q vlan 101
   ip address 172.31.128.1/31
!
interface Ethernet26.2
   mtu 9214
   encapsulation dot1q vlan 102
   ip address 172.31.128.3/31
!
interface Ethernet26.100
   description TENANT_A pseudowire 1 interface
   vlan id 10
   encapsulation vlan
      client dot1q 100 network client
!
interface Ethernet26.3
   encapsulation dot1q vlan 103
   qos trust cos
!
`

// A subinterface (Ethernet26.1, as AVD writes them) was read as a port of
// its own whose mode the file does not say, with no QoS: MTU 0 (carrying
// any packet), PFC off (lint's QOS001 on every one) and trust left to a
// default. EOS routes an L3 subinterface at its own mtu (else 1500) and
// bridges an L2 one (vlan id), and applies the parent's QoS to it, its own
// qos trust and qos cos over the parent's (EOS 4.28.2F's TOI 'QoS
// Subinterface').
func TestParseSubinterfaces(t *testing.T) {
	dc := mustParseEOS(t, subifConfig)
	parent := dc.Port("Ethernet26")
	if parent == nil || !slices.Equal(parent.PFCPriorities, []int{3}) {
		t.Fatalf("parent: %+v", parent)
	}
	for _, c := range []struct {
		name   string
		mtu    int
		routed bool
		trust  string
	}{
		{"Ethernet26.1", cfgDefaultMTU, true, qos.TrustDSCP},
		{"Ethernet26.2", 9214, true, qos.TrustDSCP},
		{"Ethernet26.100", 0, false, qos.TrustDSCP},
		{"Ethernet26.3", cfgDefaultMTU, true, qos.TrustCoS},
	} {
		p := dc.Port(c.name)
		if p == nil {
			t.Errorf("%s: not read", c.name)
			continue
		}
		if p.MTU != c.mtu || p.Routed != c.routed || p.Trust != c.trust || !slices.Equal(p.PFCPriorities, parent.PFCPriorities) || len(p.Queues) != len(parent.Queues) || p.Watchdog == nil != (parent.Watchdog == nil) {
			t.Errorf("%s: MTU %d, routed %v, trust %s, PFC %v, %d queues; want %d, %v, %s and the parent's PFC %v and %d queues", c.name, p.MTU, p.Routed, p.Trust, p.PFCPriorities, len(p.Queues), c.mtu, c.routed, c.trust, parent.PFCPriorities, len(parent.Queues))
		}
		for _, q := range p.Queues {
			if pq := parent.Queue(q.Queue); pq == nil || (q.ECN == nil) != (pq.ECN == nil) {
				t.Errorf("%s: tx-queue %d's ECN %+v; the parent's %+v", c.name, q.Queue, q.ECN, pq)
			}
		}
	}
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RulePFCOffLossless || f.Rule == qos.RuleDefaultRelied && strings.Contains(f.Message, "trust") && strings.Contains(f.Port, ".") {
			t.Errorf("lint: %+v", f)
		}
	}
	// A subinterface's own PFC line is named as not read, not taken.
	dc = mustParseEOS(t, subifConfig+"interface Ethernet26.4\n   priority-flow-control on\n   priority-flow-control priority 5 no-drop\n!\n")
	if p := dc.Port("Ethernet26.4"); p == nil || !slices.Equal(p.PFCPriorities, []int{3}) || !slices.ContainsFunc(dc.Notes, func(n string) bool { return strings.Contains(n, "Ethernet26.4 is a subinterface of Ethernet26") }) {
		t.Errorf("a subinterface's own PFC: %+v, notes %q", p, dc.Notes)
	}
}

// The AVD file's subinterfaces: Ethernet8.101 (encapsulation dot1q, an ip
// address) is routed at EOS's default MTU, Ethernet26.100 (vlan id 10)
// bridges; each has its parent's PFC.
func TestParseSubinterfacesAVD(t *testing.T) {
	data, err := os.ReadFile("../../../../shared/reference/real-configs/eos/ethernet-interfaces.cfg")
	if err != nil {
		t.Skip(err)
	}
	dc, err := Parse("avd", qos.Source{Name: "ethernet-interfaces.cfg", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if p := dc.Port("Ethernet8.101"); p == nil || !p.Routed || p.MTU != cfgDefaultMTU {
		t.Errorf("Ethernet8.101: %+v", p)
	}
	if p := dc.Port("Ethernet26.100"); p == nil || p.Routed || p.MTU != 0 {
		t.Errorf("Ethernet26.100: %+v", p)
	}
	for _, p := range dc.Ports {
		if parent := cfgSubinterface(p.Name); parent != "" {
			if pp := dc.Port(parent); pp != nil && !slices.Equal(p.PFCPriorities, pp.PFCPriorities) {
				t.Errorf("%s: PFC %v; its parent's %v", p.Name, p.PFCPriorities, pp.PFCPriorities)
			}
		}
	}
}

// A subinterface's own qos trust is over its parent's, whichever the
// parent sets (EOS 4.28.2F's TOI 'QoS Subinterface': trust mode may be set
// on a subinterface); one that says none takes the parent's, and default
// qos trust goes back to it. Each reads back the same from the rendered
// config: no qos trust (trust nothing) was written as 'qos trust none',
// which EOS (and labctl) refuses.
func TestParseSubinterfaceTrustOverParent(t *testing.T) {
	cfg := formsHead + `interface Ethernet27
   no switchport
   qos trust cos
   service-profile ROCE
!
interface Ethernet27.1
   encapsulation dot1q vlan 101
!
interface Ethernet27.2
   encapsulation dot1q vlan 102
   qos trust dscp
!
interface Ethernet27.3
   encapsulation dot1q vlan 103
   no qos trust
!
interface Ethernet27.4
   encapsulation dot1q vlan 104
   qos trust dscp
   default qos trust
!
interface Ethernet27.5
   encapsulation dot1q vlan 105
   qos cos 5
!
`
	dc := mustParseEOS(t, cfg)
	for name, want := range map[string]string{"Ethernet27": qos.TrustCoS, "Ethernet27.1": qos.TrustCoS, "Ethernet27.2": qos.TrustDSCP, "Ethernet27.3": qos.TrustNone, "Ethernet27.4": qos.TrustCoS, "Ethernet27.5": qos.TrustCoS} {
		if p := dc.Port(name); p == nil || p.Trust != want {
			t.Errorf("%s: %+v, want trust %s", name, p, want)
		}
	}
	if p := dc.Port("Ethernet27.5"); p == nil || p.DefaultCoS != 5 {
		t.Errorf("Ethernet27.5's qos cos 5: %+v", p)
	}
	renderParseBack(t, dc)
}

// A parent port's shutdown takes each of its subinterfaces down (they
// ride its link), whatever they say themselves; a subinterface's own
// shutdown takes it down alone. The rendered config keeps a
// subinterface's own shutdown (it dropped it: the subinterface came back
// up).
func TestSubinterfaceShutdown(t *testing.T) {
	subs := `interface Ethernet26.5
   encapsulation dot1q vlan 105
   ip address 172.31.128.9/31
   shutdown
!
interface Ethernet26.6
   encapsulation dot1q vlan 106
   no shutdown
!
`
	for _, c := range []struct {
		extra string
		down  map[string]string // the ports down, by what their AdminDown names
	}{
		{"", map[string]string{"Ethernet26.5": "interface Ethernet26.5: shutdown"}},
		{"interface Ethernet26\n   shutdown\n!\n", map[string]string{
			"Ethernet26": "interface Ethernet26: shutdown", "Ethernet26.1": "Ethernet26", "Ethernet26.2": "Ethernet26", "Ethernet26.3": "Ethernet26",
			"Ethernet26.100": "Ethernet26", "Ethernet26.5": "Ethernet26.5", "Ethernet26.6": "the parent of subinterface Ethernet26.6"}},
		// The parent down by interface defaults (it says neither shutdown
		// nor no shutdown) takes down the subinterface that says no
		// shutdown (it stayed up).
		{"interface defaults\n   ethernet\n      shutdown\n!\n", map[string]string{
			"Ethernet26": "interface defaults", "Ethernet26.1": "interface defaults", "Ethernet26.2": "interface defaults", "Ethernet26.3": "interface defaults",
			"Ethernet26.100": "interface defaults", "Ethernet26.5": "Ethernet26.5", "Ethernet26.6": "the parent of subinterface Ethernet26.6"}},
	} {
		dc := mustParseEOS(t, subifConfig+subs+c.extra)
		for _, p := range dc.Ports {
			want, down := c.down[p.Name]
			if (p.AdminDown != "") != down || !strings.Contains(p.AdminDown, want) {
				t.Errorf("%q: %s down %q, want down %v (%q)", c.extra, p.Name, p.AdminDown, down, want)
			}
		}
		if strings.HasPrefix(c.extra, "interface defaults") {
			// The renderer writes no interface defaults, but each port's
			// own shutdown: the same ports down, each by its own line.
			out, err := Render(dc)
			if err != nil {
				t.Fatal(err)
			}
			back := mustParseEOS(t, string(out))
			if d := qos.Diff([]qos.DeviceConfig{dc}, []qos.DeviceConfig{back}); len(d) > 0 {
				t.Errorf("%q: round trip differs: %v\n%s", c.extra, d, out)
			}
			continue
		}
		renderParseBack(t, dc)
	}
}

// A FlexEncap subinterface (encapsulation vlan, client ...) with neither
// vlan id nor an ip address terminates neither at L2 nor at L3: it is a
// pseudowire's attachment circuit (EOS 4.24.2F's TOI 'Flexible Interface
// Encapsulation (FlexEncap)': FlexEncap 'is usually used in conjunction
// with pseudowires'; its examples terminate at L3 by an ip address and at
// L2 by vlan id; AVD's ethernet-interfaces.cfg describes such ones as
// 'pseudowire N interface'). It patches frames whole, so it is not routed,
// and is held to no L3 MTU: it was read as routed at EOS's 1500. With an
// ip address it is routed (at its mtu, else 1500); an 802.1Q subinterface
// (encapsulation dot1q vlan) stays routed as before.
func TestParseFlexEncapSubinterfaces(t *testing.T) {
	cfg := subifConfig + `interface Ethernet26.200
   description pseudowire 2 interface
   encapsulation vlan
      client dot1q 200
!
interface Ethernet26.300
   encapsulation vlan
      client dot1q 300 network dot1q 400
   mtu 9000
!
interface Ethernet26.10
   encapsulation vlan
      client dot1q 10
   ip address 10.0.10.0/31
!
interface Ethernet26.30
   encapsulation vlan
      client untagged network untagged
   ipv6 address 2001:db8::/127
!
interface Ethernet26.40
   encapsulation vlan
      client dot1q 40
   ip address 10.0.40.0/31
   no ip address
!
interface Ethernet26.50
   encapsulation vlan
      client dot1q 50
   ipv6 enable
!
interface Ethernet26.60
   encapsulation vlan
      client dot1q 60
   ipv6 enable
   no ipv6 enable
!
`
	dc := mustParseEOS(t, cfg)
	for _, c := range []struct {
		name   string
		mtu    int
		routed bool
	}{
		{"Ethernet26.200", 0, false},
		{"Ethernet26.300", 9000, false},
		{"Ethernet26.10", cfgDefaultMTU, true},
		{"Ethernet26.30", cfgDefaultMTU, true},
		{"Ethernet26.40", 0, false},
		// IPv6 on the link-local address alone (an RFC 5549 fabric's
		// link): routed, at EOS's 1500.
		{"Ethernet26.50", cfgDefaultMTU, true},
		{"Ethernet26.60", 0, false},
		{"Ethernet26.3", cfgDefaultMTU, true},
	} {
		if p := dc.Port(c.name); p == nil {
			t.Errorf("%s: not read", c.name)
		} else if p.MTU != c.mtu || p.Routed != c.routed {
			t.Errorf("%s: MTU %d, routed %v; want %d, %v", c.name, p.MTU, p.Routed, c.mtu, c.routed)
		}
	}
	out, _ := renderParseBack(t, dc)
	if !strings.Contains(string(out), "interface Ethernet26.200\n   encapsulation vlan\n      client dot1q 200\n") {
		t.Errorf("the pseudowire's encapsulation not written:\n%s", out)
	}
}
