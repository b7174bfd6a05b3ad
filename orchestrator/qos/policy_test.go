package qos

import (
	"strings"
	"testing"
)

// TestPolicyTC: an ingress policy's class for a DSCP (PolicyTC) comes
// before the trust mode and its maps, for lint, config show and diff
// alike: RoCE's DSCP moved to a lossy class is QOS003.
func TestPolicyTC(t *testing.T) {
	in, cfgs := lintBase(t)
	before := Summarize(&cfgs[0])
	p := cfgs[0].Port("Ethernet0")
	p.PolicyTC = map[int]int{26: 1, 10: 3}
	if got := p.TCOf(26); got != 1 {
		t.Errorf("TCOf(26) = %d with the policy's 26 -> 1", got)
	}
	if got, want := p.TCOf(46), p.DSCPToTC[46]; got != want {
		t.Errorf("TCOf(46) = %d, the map's %d: the policy leaves 46 out", got, want)
	}
	if got := findings(Lint(cfgs, LintOptions{Intent: &in, Devices: TestDevices()}), RuleRoCEDSCPLossy); len(got) == 0 || got[0].Port != "Ethernet0" {
		t.Errorf("RoCE's DSCP policed to lossy TC1: %+v, want QOS003 on Ethernet0", got)
	}
	rows := ClassTable(&cfgs[0], "Ethernet0", []int{1, 3})
	if len(rows) != 2 || rows[0].DSCPs != "26 by policy-map" || rows[1].DSCPs != "10 by policy-map" {
		t.Errorf("config show's DSCPs: %q and %q", rows[0].DSCPs, rows[1].DSCPs)
	}
	d := DiffSettings([]Settings{before}, []Settings{Summarize(&cfgs[0])})
	var fields []string
	for _, x := range d {
		fields = append(fields, x.Field)
	}
	if got := strings.Join(fields, " "); !strings.Contains(got, "policy_tc.26") || !strings.Contains(got, "policy_tc.10") {
		t.Errorf("the settings' differences: %s", got)
	}
	// Under CoS trust the policy's DSCPs still get its classes.
	p.Trust, p.DefaultCoS = TrustCoS, 0
	if got := p.TCOf(26); got != 1 {
		t.Errorf("trust cos: TCOf(26) = %d with the policy's 26 -> 1", got)
	}
	if got, want := p.TCOf(46), p.CoSToTC[0]; got != want {
		t.Errorf("trust cos: TCOf(46) = %d, the default CoS's class %d", got, want)
	}
}
