package scenario

import (
	"strings"
	"testing"
)

// An assertion whose kinds cannot work for any variant is refused at its
// line before the run (it failed every variant after the whole run, as
// "cannot evaluate"); what only the run knows (extra's figures, a sweep of
// mixed values) is left to it.
func TestAssertionKindsCheckedBeforeRun(t *testing.T) {
	base := "name: k\nmatrix:\n  lb.mode: [ecmp, spray]\n  qos.ecn.kmin_kb: [100, 400]\ntraffic:\n  - pattern: incast\n    senders: 2\nassertions:\n  - expr: "
	for _, c := range []struct{ expr, want string }{
		{"1", "column 1: the assertion is a number, not true or false"},
		{`summary.drops < "x"`, "column 15: < needs numbers on both sides, got a text"},
		{"ecn == 1", "== compares values of different kinds (true or false and a number)"},
		{`"!summary.drops"`, "'!' needs true or false, got a number"},
		{"-ecn == 1", "'-' needs a number, got true or false"},
		{"summary.drops == 0 when 1", "the 'when' condition is a number"},
		{"params.lb.mode == 1", "compares values of different kinds (a text and a number)"},
		{"summary.drops && pfc", "left of && is a number"},
		{`model + 1 > 0`, "+ needs numbers on both sides, got a text"},
	} {
		_, err := Parse("k.yaml", []byte(base+c.expr+"\n"))
		if err == nil || !strings.Contains(err.Error(), "k.yaml:9:") || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%s: %v, want %q at line 9", c.expr, err, c.want)
		}
	}
	for _, expr := range []string{
		"summary.drops == 0 when pfc && !ecn",
		`params.lb.mode == "spray" || params.qos.ecn.kmin_kb > 100`,
		`extra.whatever == 1`,
		`model != "flow"`,
		`ecn == pfc`,
		`-summary.drops <= 0`,
	} {
		if _, err := Parse("k.yaml", []byte(base+expr+"\n")); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
}
