package qos

import (
	"maps"
	"strings"
	"testing"
)

// A traffic class without PFC that some DSCP reaches, mapped to the PG of
// a lossless class (TC_TO_PRIORITY_GROUP_MAP "0": "3"), fills that PG:
// when it sends XOFF, the pause is for the PFC priorities alone, and the
// other class's packets keep arriving into the headroom sized for the
// paused traffic in flight; once it is full the PG drops, RoCE's packets
// with the rest (the simulator drops 35801 packets in ecn-pfc's
// ecn=off,pfc=on). Lint said nothing. The CNPs' class there is a warning:
// few, small packets.
func TestLintLossyClassInALosslessPG(t *testing.T) {
	for _, c := range []struct {
		name string
		tc   int
		sev  Severity
		want string
	}{
		{"best effort", 0, SevError, "TC0 (DSCP 0-25,27-45,47,49-55,57-63), which has no PFC, fills PG 3, the PG of lossless TC3"},
		{"the CNPs' class", 6, SevWarning, "TC6 (DSCP 48), which has no PFC, fills PG 3"},
	} {
		in, cfgs := lintBase(t)
		for i := range cfgs {
			for j := range cfgs[i].Ports {
				p := &cfgs[i].Ports[j]
				p.TCToPG = maps.Clone(p.TCToPG)
				p.TCToPG[c.tc] = 3
			}
		}
		var got []Finding
		for _, f := range findings(Lint(cfgs, LintOptions{Intent: &in}), RuleLosslessPG) {
			if f.Device == "leaf1" && strings.Contains(f.Port, "Ethernet0") {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Severity != c.sev || !strings.Contains(got[0].Message, c.want) || got[0].Fix == "" {
			t.Errorf("%s: QOS014 on leaf1 Ethernet0: %+v, want one %s containing %q", c.name, got, c.sev, c.want)
		}
	}
	// The identity of the rendered configs (lossy TCs in PG 0) is none.
	in, cfgs := lintBase(t)
	if got := findings(Lint(cfgs, LintOptions{Intent: &in}), RuleLosslessPG); len(got) > 0 {
		t.Errorf("QOS014 on the intent's configs: %+v", got)
	}
}

// Where no DSCP reaches the lossless class of the shared PG (its DSCP
// moved to TC0 as well), nothing is lost there until one does: a warning,
// as the PFC priority without a lossless PG is (losslessPG). And the CNPs'
// class is never told to take PFC: CNPs must not be paused (QOS007).
func TestLintLossyClassInAnIdleLosslessPG(t *testing.T) {
	in, cfgs := lintBase(t)
	for i := range cfgs {
		for j := range cfgs[i].Ports {
			p := &cfgs[i].Ports[j]
			p.TCToPG = maps.Clone(p.TCToPG)
			p.TCToPG[0], p.TCToPG[6] = 3, 3
			p.DSCPToTC = maps.Clone(p.DSCPToTC)
			for dscp, tc := range p.DSCPToTC {
				if tc == 3 {
					p.DSCPToTC[dscp] = 0
				}
			}
		}
	}
	var got []Finding
	for _, f := range findings(Lint(cfgs, LintOptions{Intent: &in}), RuleLosslessPG) {
		if f.Device == "leaf1" && strings.Contains(f.Port, "Ethernet0") {
			got = append(got, f)
		}
	}
	if len(got) != 2 {
		t.Fatalf("QOS014 on leaf1 Ethernet0: %+v, want two warnings (TC0, TC6)", got)
	}
	for _, f := range got {
		if f.Severity != SevWarning || !strings.Contains(f.Message, "no DSCP takes") {
			t.Errorf("%s %s, want a warning saying no DSCP takes the lossless class", f.Severity, f.Message)
		}
		if strings.Contains(f.Message, "TC6") && strings.Contains(f.Fix, "enable PFC") {
			t.Errorf("the CNPs' class told to take PFC: %s", f.Fix)
		}
	}
}
