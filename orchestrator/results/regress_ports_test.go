package results

import (
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A SONiC baseline against an EOS run of the same configs: ports are
// matched by front-panel position (SONiC Ethernet0 is EOS Ethernet1), not
// by name, for the port findings and the QoS changes. By name, SONiC's
// Ethernet4 was compared with EOS's Ethernet4, another port.
func TestCompareAcrossNOSMatchesPortsByPosition(t *testing.T) {
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	base.QoS = []qos.Settings{{Device: "leaf2", Ports: []string{"Ethernet0", "Ethernet4"}, Fields: []qos.Setting{{Field: "pfc_priorities", Value: "[3]", Runs: [][2]int{{0, 1}}}}}}
	base.Lint = &LintSummary{Errors: 1, Findings: []qos.Finding{{Rule: "QOS001", Severity: qos.SevError, Device: "leaf2", Port: "Ethernet0-4"}}}
	run := cloneRun(t, base)
	run.RunID, run.NOS = "20261129T120000Z-ecn-pfc-64gpu", "eos"
	run.QoS[0].Ports = []string{"Ethernet1", "Ethernet2"}
	run.Lint.Findings[0].Port = "Ethernet1-2"
	for i := range run.Variants {
		for j := range run.Variants[i].Counters {
			c := &run.Variants[i].Counters[j]
			c.Port = map[string]string{"Ethernet0": "Ethernet1", "Ethernet4": "Ethernet2"}[c.Port]
		}
		for j := range run.Variants[i].Flows {
			run.Variants[i].Flows[j].Route = []string{"leaf1:Ethernet33", "spine1:Ethernet2"}
		}
	}
	r := Compare(run, base, nil)
	if r.Regressed || len(r.ConfigChanges) != 0 || r.Compared.Ports != 6 {
		t.Errorf("the same ports under EOS's names: regressions %v, config changes %v, %d ports compared (want 6)", regressions(r), r.ConfigChanges, r.Compared.Ports)
	}
	if want := "ports matched by front-panel position: the run's eos ports are named as the baseline's sonic names them (eos's Ethernet2 is sonic's Ethernet4)"; r.PortsMatched != want || !strings.Contains(text(t, r), want) {
		t.Errorf("ports matched %q, want %q", r.PortsMatched, want)
	}
	// The caller's record is left as it was.
	if run.Variants[0].Counters[0].Port != "Ethernet1" || run.QoS[0].Ports[0] != "Ethernet1" || run.Variants[0].Flows[0].Route[1] != "spine1:Ethernet2" {
		t.Errorf("Compare renamed the run's own record")
	}
	// A queue that grew at EOS's Ethernet1 is SONiC's Ethernet0's.
	run.Variants[0].Counters[0].PFCTx += 1000
	if got := regressions(Compare(run, base, nil)); len(got) != 1 || got[0] != "metric:ecn=on,pfc=on:port.pfc_tx" {
		t.Errorf("regressions %v, want port.pfc_tx", got)
	}
	for _, f := range Compare(run, base, nil).Findings {
		if f.Regression && (f.Node != "leaf2" || f.Port != "Ethernet0") {
			t.Errorf("finding at %s %s, want leaf2 Ethernet0 (EOS Ethernet1)", f.Node, f.Port)
		}
	}
}

// Between seeds, a port's figures are set aside as "flows went elsewhere";
// where the flows' routes show the same flows at a port on every
// repetition of both sides (the incast receiver's port), its queue and
// marks stay compared, and a queue 40 times deeper there regresses. A
// port whose flows differ, a port's pauses, and a record without routes
// keep the rule.
func TestComparePortsWhereTheFlowsStayed(t *testing.T) {
	shape := func(r *Run, depth int64, spine func(rep int) string) *Run {
		for i := range r.Variants {
			v := &r.Variants[i]
			v.Counters = []Counter{
				{Node: "leaf2", Port: "Ethernet0", Priority: 3, TxBytes: 4e8, QueueP50Bytes: i64(depth), QueueP99Bytes: i64(depth), QueueMaxBytes: i64(depth), Source: Simulated},
				{Node: "spine1", Port: spine(i), Priority: 3, TxBytes: 4e8, PFCTx: 10 * depth >> 10, QueueP50Bytes: i64(depth), QueueP99Bytes: i64(depth), QueueMaxBytes: i64(depth), Source: Simulated},
			}
			for j := range v.Flows {
				v.Flows[j].Route = []string{"leaf1:Ethernet64", "spine1:" + spine(i), "leaf2:Ethernet0"}
			}
		}
		return r
	}
	byRep := func(rep int) string { return []string{"Ethernet4", "Ethernet8", "Ethernet12"}[rep] }
	base := shape(repeatedRun(t, "20261129T110000Z-ecn-pfc-64gpu", 1, 10, 14, 12), 100<<10, byRep)
	run := shape(repeatedRun(t, "20261129T120000Z-ecn-pfc-64gpu", 5, 11, 13, 12), 4<<20, func(rep int) string { return byRep(2 - rep) })
	r := Compare(run, base, nil)
	var worse []string
	for _, f := range r.Findings {
		if f.Regression {
			worse = append(worse, f.Node+" "+f.Port+" "+f.Metric)
		}
	}
	want := []string{"leaf2 Ethernet0 port.queue_p50_bytes", "leaf2 Ethernet0 port.queue_p99_bytes", "leaf2 Ethernet0 port.queue_max_bytes"}
	if strings.Join(worse, "; ") != strings.Join(want, "; ") {
		t.Errorf("regressions %v; want the receiver's queue only, not the spine's ports, whose flows moved", worse)
	}
	// Without routes, every port is set aside as before.
	for _, rec := range []*Run{run, base} {
		for i := range rec.Variants {
			for j := range rec.Variants[i].Flows {
				rec.Variants[i].Flows[j].Route = nil
			}
		}
	}
	if r := Compare(run, base, nil); r.Regressed {
		t.Errorf("without routes: %v", regressions(r))
	}
}
