package eos

import (
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// qos rewrite dscp makes the switch write the DSCP qos map traffic-class
// ... to dscp gives each traffic class into the packets it sends: read
// into every port's PortConfig.TCToDSCP, which the simulator runs and lint
// judges (QOS024). RoCE's class rewritten to DSCP 0, which the next
// switch classifies as lossy, is QOS024's error; rewritten to its own DSCP
// it is not; without qos rewrite dscp (or after no qos rewrite dscp) the
// map changes nothing, nor does no qos rewrite cos.
func TestRewriteDSCPOnRoCE(t *testing.T) {
	conf := func(extra string) string {
		return `qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
` + extra + `
!
interface Ethernet1
   no switchport
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
interface Ethernet2
   no switchport
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
`
	}
	cases := []struct {
		name, extra string
		remark      map[int]int
		qos024      bool
	}{
		{"RoCE's class to DSCP 0", "qos rewrite dscp\nqos map traffic-class 3 to dscp 0", map[int]int{3: 0}, true},
		{"the map before the rewrite", "qos map traffic-class 3 to dscp 0\nqos rewrite dscp", map[int]int{3: 0}, true},
		{"RoCE's class to its own DSCP", "qos rewrite dscp\nqos map traffic-class 3 to dscp 26\nqos map traffic-class 6 to dscp cs6", map[int]int{3: 26, 6: 48}, false},
		{"the map without the rewrite", "qos map traffic-class 3 to dscp 0", nil, false},
		{"the rewrite taken back", "qos rewrite dscp\nqos map traffic-class 3 to dscp 0\nno qos rewrite dscp", nil, false},
		{"the class's entry taken back", "qos rewrite dscp\nqos map traffic-class 3 to dscp 0\nno qos map traffic-class 3 to dscp 0", nil, false},
		{"no qos rewrite cos", "no qos rewrite cos", nil, false},
	}
	roce := 26
	for _, c := range cases {
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(conf(c.extra))})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, port := range []string{"Ethernet1", "Ethernet2"} {
			if got := dc.Port(port).TCToDSCP; !reflect.DeepEqual(got, c.remark) {
				t.Errorf("%s: %s tc_to_dscp = %v, want %v", c.name, port, got, c.remark)
			}
		}
		// The classes the map leaves out, rewritten by EOS's default
		// map labctl does not know, are a warning where the rewrite is on.
		var notes []string
		for _, u := range dc.Unsimulated {
			notes = append(notes, u.Where+": "+u.What)
		}
		if want := []string(nil); strings.Contains(c.extra, "qos rewrite dscp") && !strings.Contains(c.extra, "no qos rewrite dscp") {
			left := "0,1,2,4,5,6,7"
			switch {
			case c.remark == nil:
				left = "0,1,2,3,4,5,6,7"
			case c.remark[6] == 48:
				left = "0,1,2,4,5,7"
			}
			if want = []string{"EOS's default traffic class to DSCP map for traffic classes " + left + " (qos rewrite dscp): labctl keeps their DSCP,"}; len(notes) != 1 || !strings.HasPrefix(notes[0], want[0]) {
				t.Errorf("%s: not simulated %q, want %q", c.name, notes, want)
			}
		} else if len(notes) > 0 {
			t.Errorf("%s: not simulated %q, want none", c.name, notes)
		}
		n := 0
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{RoCEDSCP: &roce}) {
			if f.Rule == qos.RuleEgressRemark {
				n++
				if !strings.Contains(f.Message, "RoCE (DSCP 26, traffic class 3) leaves the port rewritten to DSCP 0") || !strings.Contains(f.Where, "qos rewrite dscp with qos map traffic-class 3 to dscp 0") || len(f.Ports) != 2 || !strings.Contains(f.Fix, "qos map traffic-class 3 to dscp 26") {
					t.Errorf("%s: QOS024 %+v", c.name, f)
				}
			}
		}
		if want := map[bool]int{true: 1}[c.qos024]; n != want {
			t.Errorf("%s: %d QOS024 findings, want %d", c.name, n, want)
		}
	}
	// The renderer writes the rewrite back.
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(conf("qos rewrite dscp\nqos map traffic-class 3 to dscp 0"))})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(dc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: out})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := back.Port("Ethernet1").TCToDSCP; !reflect.DeepEqual(got, map[int]int{3: 0}) {
		t.Errorf("rendered again: tc_to_dscp %v, want map[3:0]\n%s", got, out)
	}
	// A bad DSCP is an error at its line.
	if _, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(conf("qos map traffic-class 3 to dscp 64"))}); err == nil || !strings.Contains(err.Error(), "leaf1.cfg:3") {
		t.Errorf("qos map traffic-class 3 to dscp 64: %v, want an error at leaf1.cfg:3", err)
	}
}
