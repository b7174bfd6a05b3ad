package eos

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// fieldNoted says whether dc lists a statement the simulator does not run
// whose name contains s.
func fieldNoted(dc qos.DeviceConfig, s string) bool {
	return slices.ContainsFunc(dc.Fields, func(f qos.FieldNote) bool { return strings.Contains(f.Field, s) })
}

// An mc-tx-queue block is a multicast queue's: its lines stay in it and
// are not read (its shape rate is no port shaper), and it is noted as not
// simulated.
func TestParseMcTxQueueBlock(t *testing.T) {
	for _, indent := range []string{"   ", ""} {
		cfg := strings.ReplaceAll(`qos profile ROCE
@priority-flow-control on
@priority-flow-control priority 3 no-drop
@mc-tx-queue 3
@@shape rate 1000000
@@priority strict
@tx-queue 3
@@no priority
@@bandwidth percent 50
@mc-tx-queue 1
@@shape rate 10 percent
!
interface Ethernet1
@service-profile ROCE
`, "@", indent)
		dc := mustParseEOS(t, cfg)
		e1 := dc.Port("Ethernet1")
		if e1 == nil || e1.Shaper != nil {
			t.Fatalf("indent %q: Ethernet1 = %+v: an mc-tx-queue's shape rate taken as the port's shaper", indent, e1)
		}
		if q3 := e1.Queue(3); q3.Strict || q3.Weight != 50 || q3.Shaper != nil {
			t.Errorf("indent %q: tx-queue 3 = %+v: the mc-tx-queue's lines reached it", indent, q3)
		}
		if q1 := e1.Queue(1); q1.Shaper != nil {
			t.Errorf("indent %q: tx-queue 1 = %+v", indent, q1)
		}
		if !fieldNoted(dc, "mc-tx-queue <q>") {
			t.Errorf("indent %q: mc-tx-queue not noted as not simulated: %+v", indent, dc.Fields)
		}
	}
}

// qos map traffic-class ... to uc-tx-queue Q is the tx-queue map; to
// mc-tx-queue is noted, and changes no unicast queue.
func TestParseTCToUcTxQueue(t *testing.T) {
	dc := mustParseEOS(t, "qos map traffic-class 3 to uc-tx-queue 1\nqos map traffic-class 4 to mc-tx-queue 1\ninterface Ethernet1\n   qos trust dscp\n")
	e1 := dc.Port("Ethernet1")
	if e1.TCToQueue[3] != 1 || e1.TCToQueue[4] != 4 {
		t.Errorf("tc->queue = %v, want 3->1 and 4 unchanged", e1.TCToQueue)
	}
	if !fieldNoted(dc, "to mc-tx-queue") || fieldNoted(dc, "not a statement") {
		t.Errorf("fields = %+v", dc.Fields)
	}
	dc = mustParseEOS(t, "qos map traffic-class 3 to uc-tx-queue 1\nno qos map traffic-class 3 to uc-tx-queue 1\ninterface Ethernet1\n   qos trust dscp\n")
	if q := dc.Port("Ethernet1").TCToQueue[3]; q != 3 {
		t.Errorf("after no qos map ... uc-tx-queue: tc 3 -> queue %d, want 3", q)
	}
}

// bandwidth guaranteed on a queue that carries no lossless class, on a
// port that carries one, is not simulated and takes RoCE's share: lint
// warns (QOS017). On the lossless class's own queue it does not.
func TestGuaranteeOnLossyQueueWarns(t *testing.T) {
	cfg := `qos map dscp 26 to traffic-class 3
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 0
      no priority
      bandwidth percent 20
      bandwidth guaranteed 150000000
   tx-queue 3
      no priority
      bandwidth percent 50
      bandwidth guaranteed percent 10
interface Ethernet1
   service-profile ROCE
interface Ethernet2
   qos trust dscp
   tx-queue 1
      bandwidth guaranteed percent 60
`
	dc := mustParseEOS(t, cfg)
	var where []string
	for _, u := range dc.Unsimulated {
		if strings.Contains(u.Where, "bandwidth guaranteed") {
			where = append(where, u.Where+": "+u.What)
		}
	}
	if len(where) != 1 || !strings.Contains(where[0], "tx-queue 0 bandwidth guaranteed 150000000 on Ethernet1") || !strings.Contains(where[0], "150 Gb/s") {
		t.Fatalf("unsimulated guarantees = %q, want tx-queue 0's on Ethernet1 only (Ethernet2 has no lossless class; tx-queue 3 carries it)", where)
	}
	found := false
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		found = found || f.Rule == qos.RuleDefaultRelied && f.Severity == qos.SevWarning && strings.Contains(f.Message, "tx-queue 0 bandwidth guaranteed")
	}
	if !found {
		t.Error("lint gave no QOS017 warning for tx-queue 0's guarantee")
	}
}
