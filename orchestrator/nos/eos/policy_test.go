package eos

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// policyConfig is a switch whose Ethernet1 takes policy-map pm (class cm,
// by access-list acl with entries, sets traffic-class 1) and Ethernet2
// none; extra lines go after the policy.
func policyConfig(entries string, extra ...string) string {
	return `qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
interface Ethernet1
   no switchport
   qos trust dscp
   service-policy type qos input pm
!
interface Ethernet2
   no switchport
   qos trust dscp
!
ip access-list acl
` + entries + `
!
class-map type qos match-any cm
   match ip access-group acl
!
policy-map type quality-of-service pm
   class cm
      set traffic-class 1
!
` + strings.Join(extra, "\n") + "\n"
}

// TestParsePolicyMap: a policy-map a port takes gives RoCEv2 packets of
// the DSCPs its classes match their set traffic-class (PolicyTC, which
// TCOf reads first); entries on what labctl does not model leave the
// policy not simulated, named as such.
func TestParsePolicyMap(t *testing.T) {
	for _, c := range []struct {
		name, entries string
		want          map[int]int // nil: not simulated
		unsimulated   string
	}{
		{"RoCE's DSCP", "   10 permit udp any any eq 4791 dscp 26", map[int]int{26: 1}, ""},
		{"a DSCP name", "   10 permit ip any any dscp af31", map[int]int{26: 1}, ""},
		{"another UDP port", "   10 permit udp any any eq 4789 dscp 26", nil, ""},
		{"TCP", "   10 permit tcp any any dscp 26", nil, ""},
		{"a port range with 4791", "   10 permit udp any any range 4000 5000 dscp 26", map[int]int{26: 1}, ""},
		{"deny first", "   10 deny udp any any dscp 26\n   20 permit ip any any dscp 26", nil, ""},
		{"sequence order, not line order", "   20 permit ip any any dscp 26\n   10 deny ip any any dscp 26", nil, ""},
		{"unnumbered entries", "   permit ip any any dscp 26\n   deny ip any any", map[int]int{26: 1}, ""},
		{"every IP packet", "   10 permit ip any any", all(1), ""},
		{"a destination subnet", "   10 permit ip any 10.0.0.0/8 dscp 26", nil, "its destination address 10.0.0.0/8"},
		{"a source port", "   10 permit udp any eq 49152 any dscp 26", nil, "its source port (eq 49152)"},
		{"undecided after the DSCP's own entry", "   10 permit ip any any dscp 26\n   20 permit ip host 10.0.0.1 any", nil, "source address host 10.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dc := mustParseEOS(t, policyConfig(c.entries))
			p, other := dc.Port("Ethernet1"), dc.Port("Ethernet2")
			if p == nil || other == nil {
				t.Fatal("ports missing")
			}
			want := c.want // nil where the policy is not simulated or sets nothing
			got := p.PolicyTC
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PolicyTC = %v, want %v", got, want)
			}
			if other.PolicyTC != nil {
				t.Errorf("Ethernet2 takes no policy but has %v", other.PolicyTC)
			}
			var notes []string
			for _, u := range dc.Unsimulated {
				notes = append(notes, u.Where+": "+u.What)
			}
			joined := strings.Join(notes, "\n")
			switch {
			case c.unsimulated == "" && joined != "":
				t.Errorf("noted as not simulated: %s", joined)
			case c.unsimulated != "" && !strings.Contains(joined, c.unsimulated):
				t.Errorf("not simulated: %q, want it to name %q", joined, c.unsimulated)
			}
			if c.want != nil && c.unsimulated == "" {
				if got := p.TCOf(26); got != c.want[26] {
					t.Errorf("TCOf(26) = %d", got)
				}
			}
		})
	}
}

func all(tc int) map[int]int {
	m := map[int]int{}
	for d := range 64 {
		m[d] = tc
	}
	return m
}

// TestParsePolicyMapClasses: class-default is the last class wherever it
// stands; a class without set traffic-class leaves its DSCPs to the maps;
// other actions are named as not simulated; a qos profile's policy applies
// to its interfaces, and an interface's no service-policy overrides it;
// files without indentation read alike.
func TestParsePolicyMapClasses(t *testing.T) {
	cfg := `qos map dscp 26 to traffic-class 3
qos profile prof
   service-policy type qos input pm
!
interface Ethernet1
   no switchport
   qos trust dscp
   service-profile prof
!
interface Ethernet2
   no switchport
   qos trust dscp
   service-profile prof
   no service-policy type qos input
!
ip access-list roce
   10 permit udp any any dscp 26
ip access-list ef
   10 permit ip any any dscp ef
!
class-map type qos match-any cm-roce
   match ip access-group roce
class-map type qos match-any cm-ef
   match ip access-group ef
!
policy-map type quality-of-service pm
   class class-default
      set traffic-class 0
   class cm-roce
      set traffic-class 3
   class cm-ef
      police rate 1 gbps burst-size 1 mbytes
`
	for name, text := range map[string]string{"indented": cfg, "flat": flatten(cfg)} {
		t.Run(name, func(t *testing.T) {
			dc := mustParseEOS(t, text)
			p := dc.Port("Ethernet1")
			want := all(0)
			want[26] = 3
			delete(want, 46) // cm-ef matches it and sets no class
			if !maps.Equal(p.PolicyTC, want) {
				t.Errorf("PolicyTC = %v, want %v", p.PolicyTC, want)
			}
			if got := p.TCOf(46); got != p.DSCPToTC[46] {
				t.Errorf("TCOf(46) = %d, the map's %d", got, p.DSCPToTC[46])
			}
			if q := dc.Port("Ethernet2"); q.PolicyTC != nil {
				t.Errorf("Ethernet2 says no service-policy but has %v", q.PolicyTC)
			}
			var found bool
			for _, u := range dc.Unsimulated {
				found = found || strings.Contains(u.What, "police rate 1 gbps")
			}
			if !found {
				t.Errorf("the policer is not named as not simulated: %+v", dc.Unsimulated)
			}
		})
	}
}

// flatten drops every line's indentation.
func flatten(cfg string) string {
	lines := strings.Split(cfg, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestParsePolicyMapErrors: a policy-map, class-map or access-list the
// files do not have leaves the policy not simulated, said so; bad values
// are refused at their line with the fix.
func TestParsePolicyMapErrors(t *testing.T) {
	dc := mustParseEOS(t, "interface Ethernet1\n   no switchport\n   service-policy type qos input nope\n")
	if len(dc.Unsimulated) != 1 || !strings.Contains(dc.Unsimulated[0].What, "policy-map nope is not in the files read") {
		t.Errorf("a missing policy-map: %+v", dc.Unsimulated)
	}
	// What labctl cannot decide is no error: the policy that reaches it is
	// not simulated, named with the entry's line and the fix.
	for _, c := range []struct{ entries, want string }{
		{"   10 permit", "depends on no protocol"},
		{"   10 permit udp any any eq dscp 26", "depends on a destination port eq without ports"},
		{"   10 permit ip nowhere any", "depends on its source nowhere"},
		{"   10 permit udp any any eq xyz", "depends on its destination port name xyz"},
		{"   10 permit udp any any ttl eq 64", "depends on the option ttl"},
	} {
		dc := mustParseEOS(t, policyConfig(c.entries))
		if len(dc.Unsimulated) != 1 || !strings.Contains(dc.Unsimulated[0].What, c.want) || !strings.Contains(dc.Unsimulated[0].What, "sw.cfg:14") ||
			!strings.Contains(dc.Unsimulated[0].Where, "on Ethernet1") || !strings.Contains(dc.Unsimulated[0].Fix, "ip access-list acl") {
			t.Errorf("%q: %+v, want it named not simulated (%q), with its line, port and fix", c.entries, dc.Unsimulated, c.want)
		}
	}
	for _, c := range []struct{ cfg, want string }{
		{policyConfig("   10 permit ip any any dscp 64"), `dscp "64" is not 0-63`},
		{strings.Replace(policyConfig("   10 permit ip any any"), "set traffic-class 1", "set traffic-class 9", 1), "traffic-class"},
	} {
		_, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte(c.cfg)})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "sw.cfg:") {
			t.Errorf("%q: %v, want an error at its line containing %q", c.want, err, c.want)
		}
	}
}

// A port's policy classes render to an access-list, class-map and
// policy-map per class that parse back to the same classes; ports with
// the same classes share one policy-map.
func TestRenderParseRoundTripPolicy(t *testing.T) {
	dc := cfgVariants(t)["ecn-on_pfc-on"][0]
	// A third port, like the first, of another policy.
	third := dc.Ports[0]
	third.Name = "Ethernet99"
	dc.Ports = append(slices.Clone(dc.Ports), third)
	dc.Ports[0].PolicyTC = map[int]int{26: 1, 27: 1, 10: 3}
	dc.Ports[1].PolicyTC = map[int]int{26: 1, 27: 1, 10: 3}
	dc.Ports[2].PolicyTC = map[int]int{46: 5}
	out, got := renderParseBack(t, dc)
	for _, want := range []string{
		"ip access-list labctl-policy-tc1\n   10 permit udp any any eq 4791 dscp 26\n   20 permit udp any any eq 4791 dscp 27\n",
		"policy-map type quality-of-service labctl-policy\n   class labctl-policy-tc1\n      set traffic-class 1\n   class labctl-policy-tc3\n      set traffic-class 3\n",
		"   service-policy type qos input labctl-policy-2\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendered config lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(string(out), "policy-map type quality-of-service"); n != 2 {
		t.Errorf("%d policy-maps written, want 2 (two distinct policies)", n)
	}
	if len(got.Unsimulated) > 0 {
		t.Errorf("the rendered policies read back as not simulated: %+v", got.Unsimulated)
	}
}

// TestParsePolicyMapEdits: lists, class-maps and policy-maps named again
// (in another file too) are edited, not replaced; entries are numbered
// and removed as EOS does; what labctl does not read in a list no policy
// uses is no error and no warning; actions warn only where a port takes
// the policy and their class matches RoCEv2 packets.
func TestParsePolicyMapEdits(t *testing.T) {
	parse := func(t *testing.T, files ...string) qos.DeviceConfig {
		t.Helper()
		var srcs []qos.Source
		for i, f := range files {
			srcs = append(srcs, qos.Source{Name: fmt.Sprintf("f%d.cfg", i), Data: []byte(f)})
		}
		dc, err := Parse("sw", srcs...)
		if err != nil {
			t.Fatal(err)
		}
		return dc
	}
	base := policyConfig("   10 permit udp any any dscp 26")
	t.Run("an access-list edited in another file", func(t *testing.T) {
		dc := parse(t, base, "ip access-list acl\n   20 permit udp any any dscp 10\n")
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1, 10: 1}) {
			t.Errorf("PolicyTC = %v, want 26 and 10 in TC1", got)
		}
	})
	t.Run("a class edited in another file", func(t *testing.T) {
		dc := parse(t, base, "policy-map type quality-of-service pm\n   class cm\n      set cos 3\n")
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1}) {
			t.Errorf("PolicyTC = %v, want the class's set traffic-class kept", got)
		}
	})
	t.Run("unnumbered after the highest", func(t *testing.T) {
		dc := parse(t, policyConfig("   30 deny udp any any dscp 26\n   10 permit udp any any dscp 10\n   permit udp any any dscp 26"))
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{10: 1}) {
			t.Errorf("PolicyTC = %v, want 26 denied by entry 30 ahead of the unnumbered 40", got)
		}
	})
	t.Run("no SEQ", func(t *testing.T) {
		dc := parse(t, policyConfig("   10 deny udp any any dscp 26\n   20 permit udp any any dscp 26\n   no 10"))
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1}) {
			t.Errorf("PolicyTC = %v, want entry 10 removed", got)
		}
	})
	t.Run("flat no SEQ", func(t *testing.T) {
		dc := parse(t, flatten(policyConfig("   10 deny udp any any dscp 26\n   20 permit udp any any dscp 26\n   no 10")))
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1}) {
			t.Errorf("PolicyTC = %v, want entry 10 removed in a file without indentation", got)
		}
	})
	t.Run("no police removes the policer", func(t *testing.T) {
		dc := parse(t, base, "policy-map type quality-of-service pm\n   class cm\n      police rate 1 gbps burst-size 1 mbytes\n      no police\n")
		if len(dc.Unsimulated) > 0 {
			t.Errorf("a removed policer still warns: %+v", dc.Unsimulated)
		}
	})
	t.Run("flat no set traffic-class", func(t *testing.T) {
		dc := parse(t, flatten(policyConfig("   10 permit udp any any dscp 26", "policy-map type quality-of-service pm", "   class cm", "      no set traffic-class")))
		if got := dc.Port("Ethernet1").PolicyTC; len(got) != 0 {
			t.Errorf("PolicyTC = %v, want none once the class's set traffic-class is removed", got)
		}
	})
	t.Run("untyped class-map and policy-map", func(t *testing.T) {
		cfg := strings.Replace(strings.Replace(base, "class-map type qos match-any cm", "class-map match-any cm", 1), "policy-map type quality-of-service pm", "policy-map pm", 1)
		dc := parse(t, cfg)
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1}) {
			t.Errorf("PolicyTC = %v", got)
		}
	})
	t.Run("service-policy without a type", func(t *testing.T) {
		dc := parse(t, strings.Replace(base, "service-policy type qos input pm", "service-policy input pm", 1))
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1}) {
			t.Errorf("PolicyTC = %v", got)
		}
		dc = parse(t, base, "interface Ethernet1\n   no service-policy input\n")
		if got := dc.Port("Ethernet1").PolicyTC; got != nil {
			t.Errorf("no service-policy input leaves PolicyTC %v", got)
		}
	})
	t.Run("0.0.0.0/0 is any", func(t *testing.T) {
		dc := parse(t, policyConfig("   10 permit udp 0.0.0.0/0 0.0.0.0 255.255.255.255 dscp 26"))
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1}) || len(dc.Unsimulated) > 0 {
			t.Errorf("PolicyTC = %v, not simulated %+v", got, dc.Unsimulated)
		}
	})
	t.Run("match-all with an IPv6 match", func(t *testing.T) {
		cfg := strings.Replace(strings.Replace(base, "class-map type qos match-any cm", "class-map type qos match-all cm", 1), "   match ip access-group acl\n", "   match ip access-group acl\n   match ipv6 access-group acl6\n", 1)
		dc := parse(t, cfg)
		if got := dc.Port("Ethernet1").PolicyTC; len(got) != 0 || len(dc.Unsimulated) > 0 {
			t.Errorf("PolicyTC = %v, not simulated %+v; want no match and no warning", got, dc.Unsimulated)
		}
	})
	t.Run("a management list with named ports, unused", func(t *testing.T) {
		dc := parse(t, base, "ip access-list mgmt\n   10 permit tcp any any eq ssh bgp\n   20 permit vlan 10 0xfff any any\n   30 permit udp any range bootps bootpc any\n")
		if len(dc.Unsimulated) > 0 {
			t.Errorf("an unused list warns: %+v", dc.Unsimulated)
		}
	})
	t.Run("actions of unused policies and non-RoCE classes", func(t *testing.T) {
		dc := parse(t, base, `ip access-list tcp
   10 permit tcp any any
class-map type qos match-any cm-tcp
   match ip access-group tcp
policy-map type quality-of-service pm
   class cm-tcp
      police rate 1 gbps burst-size 1 mbytes
policy-map type quality-of-service unused
   class class-default
      set dscp 0
`)
		if len(dc.Unsimulated) > 0 {
			t.Errorf("actions that reach no RoCE warn: %+v", dc.Unsimulated)
		}
		if got := dc.Port("Ethernet1").PolicyTC; !maps.Equal(got, map[int]int{26: 1}) {
			t.Errorf("PolicyTC = %v", got)
		}
	})
	t.Run("an action on RoCE's class warns once, with its line and ports", func(t *testing.T) {
		dc := parse(t, base, "policy-map type quality-of-service pm\n   class cm\n      police rate 1 gbps burst-size 1 mbytes\n")
		if len(dc.Unsimulated) != 1 || !strings.Contains(dc.Unsimulated[0].What, "police rate 1 gbps burst-size 1 mbytes (f1.cfg:3)") || !strings.HasSuffix(dc.Unsimulated[0].Where, "on Ethernet1") {
			t.Errorf("not simulated: %+v", dc.Unsimulated)
		}
	})
}

// A class-map's match dscp is decided by each simulated packet's DSCP:
// match-any where one statement lists it, match-all where every one does
// (and its access-list matches); a form labctl does not read stays
// undecided.
func TestParsePolicyMatchDSCP(t *testing.T) {
	cfg := `qos map dscp 26 to traffic-class 3
ip access-list udp
   10 permit udp any any
class-map type qos match-any ROCE
   match dscp 26
class-map type qos match-any LIST
   match dscp af11,12-14 cs2
class-map type qos match-all BOTH
   match dscp 30 34
   match ip access-group udp
class-map type qos match-any ECN
   match dscp 20 ecn ce
policy-map type quality-of-service P
   class ROCE
      set traffic-class 1
   class LIST
      set traffic-class 2
   class BOTH
      set traffic-class 4
policy-map type quality-of-service Q
   class ECN
      set traffic-class 5
interface Ethernet1
   qos trust dscp
   service-policy type qos input P
interface Ethernet2
   qos trust dscp
   service-policy type qos input Q
`
	for name, text := range map[string]string{"indented": cfg, "flat": flatten(cfg)} {
		t.Run(name, func(t *testing.T) {
			dc := mustParseEOS(t, text)
			p := dc.Port("Ethernet1")
			want := map[int]int{26: 1, 10: 2, 12: 2, 13: 2, 14: 2, 16: 2, 30: 4, 34: 4}
			if !maps.Equal(p.PolicyTC, want) {
				t.Errorf("PolicyTC = %v, want %v", p.PolicyTC, want)
			}
			if p.TCOf(26) != 1 {
				t.Errorf("TCOf(26) = %d, want the policy's 1", p.TCOf(26))
			}
			if dc.Port("Ethernet2").PolicyTC != nil {
				t.Errorf("match dscp 20 ecn ce decided: %v", dc.Port("Ethernet2").PolicyTC)
			}
			for _, f := range dc.Fields {
				if strings.Contains(f.Field, "match dscp") && !strings.Contains(f.Why, "not a statement") {
					t.Errorf("match dscp noted as %+v", f)
				}
			}
			undecided := false
			for _, u := range dc.Unsimulated {
				undecided = undecided || strings.Contains(u.What, "match dscp 20 ecn ce")
				if strings.Contains(u.What, "match dscp 26") {
					t.Errorf("P is simulated, but unsimulated lists %+v", u)
				}
			}
			if !undecided {
				t.Errorf("Q's undecided match not named: %+v", dc.Unsimulated)
			}
		})
	}
}
