package eos

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// Keywords written in another case (Priority-Flow-Control on, QOS TRUST
// DSCP) passed in silence: the PFC line as a statement labctl does not
// recognise, the trust line as a not-recognised qos line, so the port read
// as PFC off and trusting its default. labctl reads them as in lower case,
// with a note saying so and that EOS's acceptance is unverified; names
// (profile ROCE, description text) keep their case.
func TestParseKeywordCase(t *testing.T) {
	lower := `qos map dscp 26 to traffic-class 3
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
!
interface Ethernet1
   description Uplink Interface to spine
   mtu 9214
   no switchport
   service-profile ROCE
!
`
	upper := `QOS MAP DSCP 26 TO TRAFFIC-CLASS 3
QOS PROFILE ROCE
   QOS TRUST DSCP
   Priority-Flow-Control on
   Priority-Flow-Control Priority 3 No-Drop
   TX-Queue 3
      Random-Detect ECN Minimum-Threshold 150 KBytes Maximum-Threshold 1500 KBytes Max-Mark-Probability 20
!
Interface Ethernet1
   description Uplink Interface to spine
   MTU 9214
   No Switchport
   Service-Profile ROCE
!
`
	want, got := mustParseEOS(t, lower), mustParseEOS(t, upper)
	if len(want.Ports) != 1 || !reflect.DeepEqual(want.Ports, got.Ports) {
		t.Errorf("keywords in upper case read otherwise:\n%+v\nwant\n%+v", got.Ports, want.Ports)
	}
	var folded []string
	for _, n := range got.Notes {
		if strings.Contains(n, "keywords in any case") {
			folded = append(folded, n)
		}
	}
	// Every line but the description's is noted, once.
	if len(folded) != 11 || slices.ContainsFunc(folded, func(n string) bool { return strings.Contains(n, "description") }) {
		t.Errorf("%d notes: %q", len(folded), folded)
	}
	for _, n := range want.Notes {
		if strings.Contains(n, "keywords in any case") {
			t.Errorf("the lower-case config noted: %s", n)
		}
	}
}

// A name that is a keyword keeps its case where the line folds: AVD's
// profile is QoS, and Service-Profile QoS was read as service-profile qos,
// a profile the files do not have (QOS013, PFC off).
func TestParseKeywordCaseKeepsNames(t *testing.T) {
	cfg := `qos map dscp 26 to traffic-class 3
qos profile QoS
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
interface Ethernet1
   mtu 9214
   no switchport
   Service-Profile QoS
!
`
	dc := mustParseEOS(t, cfg)
	p := dc.Port("Ethernet1")
	if p == nil || !slices.Equal(p.PFCPriorities, []int{3}) {
		t.Errorf("Service-Profile QoS: %+v; want profile QoS's PFC priority 3", p)
	}
	var folded []string
	for _, n := range dc.Notes {
		if strings.Contains(n, "keywords in any case") {
			folded = append(folded, n)
		}
	}
	if len(folded) != 1 || !strings.Contains(folded[0], "service-profile QoS") {
		t.Errorf("notes %q; want one reading the line as service-profile QoS", folded)
	}
}

// A policy-map, class-map or access-list header with keywords in another
// case was matched before folding: Policy-Map type qos Pm opened no block
// (service-policy Pm named a policy the files did not have: a false
// QOS017), and policy-map Type QoS Pm or class-map type qos Match-Any cm
// was refused (exit 2, "needs one name"). The header's keywords are read
// in lower case, noted, and its name keeps its case.
func TestParsePolicyHeaderCase(t *testing.T) {
	base := strings.ReplaceAll(policyConfig("   10 permit udp any any eq 4791 dscp 26"), " pm\n", " Pm\n")
	lower := mustParseEOS(t, base)
	want := lower.Port("Ethernet1")
	if want == nil || !reflect.DeepEqual(want.PolicyTC, map[int]int{26: 1}) {
		t.Fatalf("the lower-case config: %+v", want)
	}
	for _, c := range []struct{ header, mixed string }{
		{"policy-map type quality-of-service Pm", "Policy-Map type qos Pm"},
		{"policy-map type quality-of-service Pm", "policy-map Type QoS Pm"},
		{"class-map type qos match-any cm", "class-map type qos Match-Any cm"},
		{"class-map type qos match-any cm", "Class-Map TYPE QOS MATCH-ANY cm"},
		{"ip access-list acl", "IP Access-List acl"},
	} {
		mixed := c.mixed
		cfg := strings.Replace(base, c.header+"\n", mixed+"\n", 1)
		if cfg == base {
			t.Fatalf("%q: no line %q", mixed, c.header)
		}
		dc, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte(cfg)})
		if err != nil {
			t.Errorf("%q: %v", mixed, err)
			continue
		}
		if p := dc.Port("Ethernet1"); p == nil || !reflect.DeepEqual(p.PolicyTC, want.PolicyTC) {
			t.Errorf("%q: Ethernet1 read without the policy's traffic classes %v", mixed, want.PolicyTC)
		}
		if !slices.ContainsFunc(dc.Notes, func(n string) bool {
			return strings.Contains(n, "keywords in any case") && strings.Contains(n, fmt.Sprintf("%q read as", mixed))
		}) {
			t.Errorf("%q: no note of the folding: %q", mixed, dc.Notes)
		}
	}
}
