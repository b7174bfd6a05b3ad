package results

import (
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/transport"
)

// A RoCE variant has no transport line; InfiniBand's and UET's say what
// ran and sum their own counters, named by what counted them.
func TestTransportLines(t *testing.T) {
	if l := TransportLines(Variant{}); l != nil {
		t.Errorf("RoCE: %v", l)
	}
	ib, err := transport.ResolveIB(&transport.IBSpec{})
	if err != nil {
		t.Fatal(err)
	}
	v := Variant{ECN: true, Transport: &transport.Settings{Name: transport.InfiniBand, InfiniBand: &ib},
		InfiniBand: []IBPortCounters{{IBCounters: IBCounters{PortXmitWait: 1000, SWPortVLCongestion: 3}}, {IBCounters: IBCounters{PortXmitWait: 500, PortPktRcvBECN: 3}}}}
	l := strings.Join(TransportLines(v), "\n")
	for _, want := range []string{"transport infiniband (subnet manager routing ftree", "IB congestion control off", "PortXmitWait 1.5k ticks", "3 packets marked FECN", "3 BECNs received"} {
		if !strings.Contains(l, want) {
			t.Errorf("IB line lacks %q: %s", want, l)
		}
	}
	u, err := transport.ResolveUET(&transport.UETSpec{})
	if err != nil {
		t.Fatal(err)
	}
	pulls := int64(9)
	v = Variant{Transport: &transport.Settings{Name: transport.UET, UET: &u},
		Summary: Summary{Source: Simulated, UET: &UETSummary{Trimmed: 318, NACKs: 318, NACKRetransmits: 318, MeanEntropies: 22.5, Pulls: &pulls}}}
	l = strings.Join(TransportLines(v), "\n")
	for _, want := range []string{"transport uet (load balancing reps over 64 entropies, congestion control nscc", "318 packets trimmed", "retransmitted 318 on NACK, 0 on SACK gaps, 0 on timeout", "22.5 entropies", "9 credit grants", "(simulated)"} {
		if !strings.Contains(l, want) {
			t.Errorf("UET line lacks %q: %s", want, l)
		}
	}
}

// regress compares InfiniBand's credit waits and FECN marks where both
// sides ran InfiniBand, leaves them out where neither did, and warns when
// a variant's transport changed.
func TestCompareTransportMetrics(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	ib, _ := transport.ResolveIB()
	base.Variants[0].Transport = &transport.Settings{Name: transport.InfiniBand, InfiniBand: &ib}
	base.Variants[0].InfiniBand = []IBPortCounters{{IBCounters: IBCounters{Node: "leaf1", Port: "p1", PortXmitWait: 50000, SWPortVLCongestion: 200}}}
	run := cloneRun(t, base)
	if got := regressions(Compare(run, base, nil)); len(got) != 0 {
		t.Fatalf("identical: %v", got)
	}
	run.Variants[0].InfiniBand[0].PortXmitWait = 90000 // credits starved 80% longer
	r := Compare(run, base, nil)
	if got := regressions(r); len(got) != 1 || !strings.HasSuffix(got[0], ":infiniband.port_xmit_wait") {
		t.Errorf("credit waits up 80%%: regressions %v", got)
	}
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Metric, "uet.") && f.Variant == base.Variants[0].Name {
			t.Errorf("a UET metric compared on InfiniBand: %+v", f)
		}
	}
	run.Variants[0].Transport, run.Variants[0].InfiniBand = nil, nil
	r = Compare(run, base, nil)
	warned := false
	for _, w := range r.Warnings {
		warned = warned || strings.Contains(w, "ran transport infiniband in the baseline and roce in the run")
	}
	// A transport's own figures and those the other transport counts
	// otherwise (FECN marks as ECN marks) are not compared across a
	// transport change, and are listed with why, not flagged as missing.
	notCompared := map[string]string{}
	for _, m := range r.NotComputed {
		notCompared[m.Metric] = m.Reason
	}
	if !warned || len(regressions(r)) != 0 || !strings.Contains(notCompared["infiniband.port_xmit_wait"], "the baseline ran infiniband and the run roce") ||
		!strings.Contains(notCompared["ecn_marked"], "FECN") || !strings.Contains(notCompared["pfc_pause_frames"], "InfiniBand has no PFC") {
		t.Errorf("transport changed: warnings %v, regressions %v, not compared %v", r.Warnings, regressions(r), notCompared)
	}
	var b strings.Builder
	writeNotComputed(&b, r.NotComputed)
	if !strings.Contains(b.String(), "\nnot compared: ") || strings.Contains(b.String(), "held by neither side") {
		t.Errorf("heading of a list with another transport's figures: %s", b.String())
	}
}
