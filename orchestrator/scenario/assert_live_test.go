package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// On a live run, congestion fields come from the simulated twin (virtual
// switches neither pause nor mark); throughput stays measured.
func TestLiveVariantReadsCongestionFromSimulatedTwin(t *testing.T) {
	v := &results.Variant{
		Name:      "ecn=on,pfc=on",
		Summary:   results.Summary{ThroughputGbpsTotal: 9.5, Drops: 7, PFCPauseFrames: 0, Source: results.Measured},
		Simulated: &results.SimulatedPart{Summary: results.Summary{ThroughputGbpsTotal: 196, Drops: 0, PFCPauseFrames: 42, Source: results.Simulated}},
	}
	run := &results.Run{Variants: []results.Variant{*v}}
	get := func(path ...string) float64 {
		t.Helper()
		val, err := lookupVariant(run, v, path)
		if err != nil {
			t.Fatal(err)
		}
		return val.Num
	}
	if got := get("summary", "drops"); got != 0 {
		t.Errorf("summary.drops = %v, want the simulated 0", got)
	}
	if got := get("summary", "pfc_pause_frames"); got != 42 {
		t.Errorf("summary.pfc_pause_frames = %v, want the simulated 42", got)
	}
	if got := get("summary", "throughput_gbps_total"); got != 9.5 {
		t.Errorf("summary.throughput_gbps_total = %v, want the measured 9.5", got)
	}
	if got := get("simulated", "summary", "throughput_gbps_total"); got != 196 {
		t.Errorf("simulated.summary.throughput_gbps_total = %v, want 196", got)
	}
	// A sim run has no twin: summary is its own, simulated.* is an error.
	v.Simulated = nil
	if got := get("summary", "drops"); got != 7 {
		t.Errorf("without a twin summary.drops = %v, want 7", got)
	}
	if _, err := lookupVariant(run, v, []string{"simulated", "summary", "drops"}); err == nil {
		t.Error("simulated.summary on a sim run should be an error")
	}
	if err := checkIdent(Ident{Path: []string{"simulated", "summary", "drops"}}, &Spec{}); err != nil {
		t.Errorf("checkIdent: %v", err)
	}
}

// On a live run extra.* reads the variant's own extras first, then the
// simulated twin's (extra.faults: a live lab counts no link drops or
// watchdog storms), then the run's; a twin that failed is not read.
func TestLiveVariantReadsFaultExtrasFromSimulatedTwin(t *testing.T) {
	twin := map[string]any{"faults": map[string]any{"link_drops": 12.0, "qps_on_failed_links": 2.0}}
	v := &results.Variant{
		Name:      "ecn=on,pfc=on",
		Summary:   results.Summary{Source: results.Measured},
		Extra:     map[string]any{"faults": map[string]any{"qps_on_failed_links": 3.0}},
		Simulated: &results.SimulatedPart{Extra: twin, Summary: results.Summary{Source: results.Simulated}},
	}
	run := &results.Run{Variants: []results.Variant{*v}, Extra: map[string]any{"lab": map[string]any{"nic_speed_gbps": 200.0}}}
	for path, want := range map[string]float64{
		"extra.faults.link_drops":          12, // the twin's
		"extra.faults.qps_on_failed_links": 3,  // the variant's own first
		"extra.lab.nic_speed_gbps":         200,
	} {
		val, err := lookupVariant(run, v, strings.Split(path, "."))
		if err != nil || val.Num != want {
			t.Errorf("%s = %v (%v), want %v", path, val.Num, err, want)
		}
	}
	v.Simulated.Error = "the simulation failed"
	if _, err := lookupVariant(run, v, []string{"extra", "faults", "link_drops"}); err == nil {
		t.Error("extra.faults.link_drops read from a twin that failed")
	}
}

// A role whose flows all delivered nothing has no fairness (0/0): the
// assertion fails with the reason rather than pass on a 0, as the
// summary's fairness is not computed then.
func TestRoleFairnessOfNothingIsAbsent(t *testing.T) {
	v := &results.Variant{Name: "v", Flows: []results.Flow{{ID: "a", Role: "incast"}, {ID: "b", Role: "incast"}}}
	run := &results.Run{Variants: []results.Variant{*v}}
	if _, err := lookupVariant(run, v, []string{"roles", "incast", "jain_fairness"}); err == nil || !strings.Contains(err.Error(), "delivered anything") {
		t.Errorf("frozen role's fairness: %v, want absent with the reason", err)
	}
	v.Flows[0].ThroughputGbps, v.Flows[1].ThroughputGbps = 10, 10
	if val, err := lookupVariant(run, v, []string{"roles", "incast", "jain_fairness"}); err != nil || val.Num != 1 {
		t.Errorf("equal flows' fairness: %v %v, want 1", val.Num, err)
	}
}

// The model name says what produced a variant's figures, and a 'when' on
// it leaves an assertion out where the figures it reads are not computed.
func TestModelName(t *testing.T) {
	for _, tc := range []struct {
		summary results.Summary
		want    string
	}{
		{results.Summary{Source: results.Simulated, Model: results.ModelPacket}, "packet"},
		{results.Summary{Source: results.Simulated, Model: results.ModelFlow}, "flow"},
		{results.Summary{Source: results.Simulated}, "packet"}, // a record made before the summary kept it
		{results.Summary{Source: results.Measured}, "live"},
	} {
		v := &results.Variant{Name: "v", Summary: tc.summary}
		run := &results.Run{Variants: []results.Variant{*v}}
		if val, err := lookupVariant(run, v, []string{"model"}); err != nil || val.Str != tc.want {
			t.Errorf("%+v: model %q (%v), want %q", tc.summary, val.Str, err, tc.want)
		}
	}
	s, err := Parse("t.yaml", []byte("name: t\nduration: 1ms\ntraffic:\n  - pattern: pairs\nassertions:\n  - name: idle\n    expr: summary.drops == 0 when model != \"flow\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	flow := &results.Variant{Name: "ecn=on,pfc=on", Summary: results.Summary{Source: results.Simulated, Model: results.ModelFlow, NotComputed: []string{"drops"}}}
	if got := s.Check(&results.Run{Variants: []results.Variant{*flow}}, flow); len(got) != 0 {
		t.Errorf("flow-level variant: %+v, want the assertion left out", got)
	}
	packet := &results.Variant{Name: "ecn=on,pfc=on", Summary: results.Summary{Source: results.Simulated, Model: results.ModelPacket, Drops: 3}}
	if got := s.Check(&results.Run{Variants: []results.Variant{*packet}}, packet); len(got) != 1 || got[0].Passed {
		t.Errorf("packet-level variant with drops: %+v, want the assertion failed", got)
	}
}

// roles.<role>.max_flows_per_link counts the flows of the role on each
// link between switches as their routes go, the port towards the
// destination NIC left out (an incast's receiver port), and is absent when
// a flow has no route.
func TestRoleMaxFlowsPerLink(t *testing.T) {
	incast := func(routes ...[]string) *results.Variant {
		v := &results.Variant{Name: "v"}
		for i, r := range routes {
			v.Flows = append(v.Flows, results.Flow{ID: fmt.Sprintf("f%d", i), Role: "incast", Route: r})
		}
		v.Flows = append(v.Flows, results.Flow{ID: "victim", Role: "victim", Route: []string{"leaf2:Ethernet128", "spine1:Ethernet44", "leaf1:Ethernet8"}})
		return v
	}
	for _, tc := range []struct {
		name string
		v    *results.Variant
		want float64
	}{
		{"one leaf: only the receiver's port", incast([]string{"leaf1:Ethernet0"}, []string{"leaf1:Ethernet0"}, []string{"leaf1:Ethernet0"}), 1},
		{"spread over the spine", incast(
			[]string{"leaf2:Ethernet128", "spine1:Ethernet44", "leaf1:Ethernet0"},
			[]string{"leaf2:Ethernet132", "spine1:Ethernet48", "leaf1:Ethernet0"}), 1},
		{"three hashed onto one spine link, the victim's not counted", incast(
			[]string{"leaf2:Ethernet140", "spine1:Ethernet44", "leaf1:Ethernet0"},
			[]string{"leaf2:Ethernet180", "spine1:Ethernet44", "leaf1:Ethernet0"},
			[]string{"leaf2:Ethernet148", "spine1:Ethernet44", "leaf1:Ethernet0"},
			[]string{"leaf2:Ethernet136", "spine1:Ethernet52", "leaf1:Ethernet0"}), 3},
		{"two on one leaf uplink", incast(
			[]string{"leaf2:Ethernet140", "spine1:Ethernet44", "leaf1:Ethernet0"},
			[]string{"leaf2:Ethernet140", "spine1:Ethernet52", "leaf1:Ethernet0"}), 2},
	} {
		run := &results.Run{Variants: []results.Variant{*tc.v}}
		val, err := lookupVariant(run, tc.v, []string{"roles", "incast", "max_flows_per_link"})
		if err != nil || val.Num != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.name, val.Num, err, tc.want)
		}
	}
	// Flows of several QPs: a flow is on every link one of its QPs takes,
	// once where its QPs share one. Here the first flow's second QP meets
	// the second flow on spine1's Ethernet52, which their first QPs miss,
	// and its third QP shares its first QP's uplink.
	multi := incast(
		[]string{"leaf2:Ethernet140", "spine1:Ethernet44", "leaf1:Ethernet0"},
		[]string{"leaf2:Ethernet136", "spine1:Ethernet52", "leaf1:Ethernet0"})
	multi.Flows[0].QPRoutes = [][]string{
		{"leaf2:Ethernet132", "spine1:Ethernet52", "leaf1:Ethernet0"},
		{"leaf2:Ethernet140", "spine1:Ethernet48", "leaf1:Ethernet0"},
	}
	if val, err := lookupVariant(&results.Run{Variants: []results.Variant{*multi}}, multi, []string{"roles", "incast", "max_flows_per_link"}); err != nil || val.Num != 2 {
		t.Errorf("QPs of two flows on one link: %v (%v), want 2", val.Num, err)
	}
	multi.Flows[0].QPRoutes = [][]string{{"leaf2:Ethernet140", "spine1:Ethernet44", "leaf1:Ethernet0"}}
	if val, err := lookupVariant(&results.Run{Variants: []results.Variant{*multi}}, multi, []string{"roles", "incast", "max_flows_per_link"}); err != nil || val.Num != 1 {
		t.Errorf("two QPs of one flow on one path: %v (%v), want 1", val.Num, err)
	}
	v := incast([]string{"leaf1:Ethernet0"}, nil)
	run := &results.Run{Variants: []results.Variant{*v}}
	if _, err := lookupVariant(run, v, []string{"roles", "incast", "max_flows_per_link"}); err == nil || !strings.Contains(err.Error(), "no route") {
		t.Errorf("a flow without a route: %v, want absent with the reason", err)
	}
	// A live run's measured flows have no route: its simulated twin's
	// count.
	live := &results.Variant{Name: "v", Flows: []results.Flow{{ID: "a", Role: "incast"}, {ID: "b", Role: "incast"}},
		Simulated: &results.SimulatedPart{Flows: incast(
			[]string{"leaf2:Ethernet140", "spine1:Ethernet44", "leaf1:Ethernet0"},
			[]string{"leaf2:Ethernet180", "spine1:Ethernet44", "leaf1:Ethernet0"}).Flows}}
	run = &results.Run{Variants: []results.Variant{*live}}
	if val, err := lookupVariant(run, live, []string{"roles", "incast", "max_flows_per_link"}); err != nil || val.Num != 2 {
		t.Errorf("live run: %v (%v), want the twin's 2", val.Num, err)
	}
}
