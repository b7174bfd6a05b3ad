package results

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A lint error of the run's configs the baseline's configs did not have is
// a regression, in text, JSON and JUnit (it printed a line and exited 0);
// one the baseline had too is not; a record with counts only is compared
// by count.
func TestCompareNewLintErrors(t *testing.T) {
	pfcOff := qos.Finding{Rule: "QOS001", Severity: qos.SevError, Device: "leaf1", Port: "Ethernet32", Message: "PFC is off for lossless priority 3", Fix: "enable PFC on priority 3"}
	warn := qos.Finding{Rule: "QOS005", Severity: qos.SevWarning, Device: "leaf1", Port: "Ethernet0", Message: "no queue marks ECN"}
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	base.Lint = &LintSummary{Findings: []qos.Finding{}}
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	run.Lint = &LintSummary{Errors: 1, Warnings: 1, Findings: []qos.Finding{warn, pfcOff}}

	r := Compare(run, base, nil)
	if got := regressions(r); !r.Regressed || len(got) != 1 || got[0] != "lint_error:-:QOS001" {
		t.Fatalf("regressions %v, want the new lint error", got)
	}
	out := text(t, r)
	for _, want := range []string{
		"  run: lint error QOS001 at leaf1 Ethernet32, new in the run's configs: PFC is off for lossless priority 3 (fix: enable PFC on priority 3)\n",
		"REGRESSED: 1 regression: 1 lint error new in the run's configs\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	var b bytes.Buffer
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var suites JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Failures != 1 || !strings.Contains(b.String(), `name="regress:lint QOS001 leaf1 Ethernet32"`) {
		t.Errorf("JUnit: %d failures\n%s", suites.Failures, b.String())
	}

	// The baseline had it too: not new.
	base.Lint = &LintSummary{Errors: 1, Findings: []qos.Finding{pfcOff}}
	if r := Compare(run, base, nil); r.Regressed {
		t.Errorf("an error both have: %v", regressions(r))
	}
	// The baseline's lint rated it a warning: with no switch's settings
	// changed, labctl's lint rates the same configs higher (a note); with
	// any changed, or not kept, it is new.
	base.Lint = &LintSummary{Warnings: 1, Findings: []qos.Finding{{Rule: "QOS001", Severity: qos.SevWarning, Device: "leaf1", Port: "Ethernet32", Message: "PFC is off for lossless priority 3"}}}
	if r := Compare(run, base, nil); !r.Regressed {
		t.Errorf("a warning before, settings not kept: not a regression")
	}
	leaf1 := func(mtu int) []qos.Settings {
		return qos.SummarizeAll([]qos.DeviceConfig{{Device: "leaf1", Ports: []qos.PortConfig{{Name: "Ethernet0", MTU: mtu}}}})
	}
	same := leaf1(9100)
	base.QoS, run.QoS = same, same
	if r := Compare(run, base, nil); r.Regressed || !strings.Contains(strings.Join(r.Warnings, "\n"), "lint error QOS001 at leaf1 Ethernet32 was a warning in the baseline's lint of the same settings") {
		t.Errorf("a warning before, the same settings: regressions %v, warnings %q", regressions(r), r.Warnings)
	}
	run.QoS = leaf1(9160)
	if r := Compare(run, base, nil); !r.Regressed {
		t.Errorf("a warning before, the device's settings changed: not a regression")
	}
	// Another switch's edit can raise it (QOS009 is rated by the peer's
	// map): leaf1 unchanged and spine1 changed is still a regression.
	spine1 := func(mtu int) []qos.Settings {
		return qos.SummarizeAll([]qos.DeviceConfig{{Device: "spine1", Ports: []qos.PortConfig{{Name: "Ethernet0", MTU: mtu}}}})
	}
	base.QoS, run.QoS = append(leaf1(9100), spine1(9100)...), append(leaf1(9100), spine1(9160)...)
	if r := Compare(run, base, nil); !r.Regressed {
		t.Errorf("a warning before, the peer's settings changed: not a regression")
	}
	base.QoS, run.QoS = nil, nil
	// Counts only (no findings kept): by count.
	base.Lint = &LintSummary{}
	run.Lint = &LintSummary{Errors: 3}
	if got := regressions(Compare(run, base, nil)); len(got) != 1 || got[0] != "lint_error:-:lint" {
		t.Errorf("counts only: %v", got)
	}
	// No lint kept on a side: nothing to compare.
	base.Lint = nil
	if r := Compare(run, base, nil); r.Regressed {
		t.Errorf("baseline without lint: %v", regressions(r))
	}
}

// The same new lint error on many switches is one line of the text,
// naming them; each is still a regression of its own (the count, JSON).
func TestCompareNewLintErrorsGrouped(t *testing.T) {
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	base.Lint = &LintSummary{Findings: []qos.Finding{}}
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	run.Lint = &LintSummary{Errors: 33}
	for i := 1; i <= 32; i++ {
		run.Lint.Findings = append(run.Lint.Findings, qos.Finding{Rule: "QOS001", Severity: qos.SevError, Device: fmt.Sprintf("leaf%d", i), Port: "Ethernet1-48", Message: "PFC is off for lossless priority 3", Fix: "enable PFC on priority 3"})
	}
	run.Lint.Findings = append(run.Lint.Findings, qos.Finding{Rule: "QOS009", Severity: qos.SevError, Device: "spine1", Port: "Ethernet1", Message: "PFC differs"})
	r := Compare(run, base, nil)
	if got := regressions(r); len(got) != 33 {
		t.Fatalf("%d regressions, want 33, one a switch", len(got))
	}
	out := text(t, r)
	for _, want := range []string{
		"  run: lint error QOS001 at 32 switches (leaf1-32) Ethernet1-48, new in the run's configs: PFC is off for lossless priority 3 (fix: enable PFC on priority 3)\n" +
			"  run: lint error QOS009 at spine1 Ethernet1, new in the run's configs: PFC differs\n",
		"REGRESSED: 33 regressions: 33 lint errors new in the run's configs\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// A baseline recorded when lint gave one finding a peer (QOS009 on
// leaf1's links to spine1, 2 and 3) and a run whose lint gives one naming
// them all (Ethernet4-12) have the same errors: compared port by port,
// not a new one, either way round; the merged finding with a port the
// other record lacks is new.
func TestCompareLintErrorsPortByPort(t *testing.T) {
	perPeer := []qos.Finding{}
	for s := 1; s <= 3; s++ {
		perPeer = append(perPeer, qos.Finding{Rule: "QOS009", Severity: qos.SevError, Device: "leaf1", Port: fmt.Sprintf("Ethernet%d", 4*s),
			Message: fmt.Sprintf("PFC priorities [3,4] differ from the peer spine%d's [3]", s)})
	}
	merged := qos.Finding{Rule: "QOS009", Severity: qos.SevError, Device: "leaf1", Port: "Ethernet4-12", Ports: []string{"Ethernet4", "Ethernet8", "Ethernet12"},
		Message: "PFC priorities [3,4] differ from the peers spine1-3's [3]"}
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	for _, c := range []struct {
		name      string
		base, run []qos.Finding
		want      int
	}{
		{"one a peer, then merged", perPeer, []qos.Finding{merged}, 0},
		{"merged, then one a peer", []qos.Finding{merged}, perPeer, 0},
		{"merged over a port the baseline lacks", perPeer[:2], []qos.Finding{merged}, 1},
	} {
		base.Lint = &LintSummary{Errors: len(c.base), Findings: c.base}
		run.Lint = &LintSummary{Errors: len(c.run), Findings: c.run}
		r := Compare(run, base, nil)
		got := regressions(r)
		if len(got) != c.want {
			t.Errorf("%s: regressions %v, want %d", c.name, got, c.want)
		}
		out := text(t, r)
		// More errors counted, none new: a line saying so that promises
		// no list, not one saying new ones follow, nor silence.
		if c.want == 0 && len(c.run) > len(c.base) {
			if want := "lint: the run's configs have 3 errors, the baseline's 1; none new by rule, switch and port: compare with 'labctl config lint 64gpu'\n"; !strings.Contains(out, want) {
				t.Errorf("%s: text lacks %q:\n%s", c.name, want, out)
			}
		}
		if c.want == 0 && strings.Contains(out, "the new ones are regressions") {
			t.Errorf("%s: the text announces new lint errors it does not list:\n%s", c.name, out)
		}
		// The merged finding is new at Ethernet12 only: the line names
		// that port, not all three.
		if c.want == 1 && !strings.Contains(out, "lint error QOS009 at leaf1 Ethernet12, new in the run's configs: PFC priorities [3,4] differ from the peers spine1-3's [3]\n") {
			t.Errorf("%s: the line does not name the new port alone:\n%s", c.name, out)
		}
	}
}

// A second cause under one rule on a port that already had an error of
// it is new: QOS009 for a speed set apart from the link's on leaf1's
// Ethernet4, whose PFC differed from its peer's in the baseline too. The
// same cause with its config entry's line moved, or named by its port
// where the other record names "*", is not.
func TestCompareLintErrorsSecondCauseOnAPort(t *testing.T) {
	pfc := qos.Finding{Rule: "QOS009", Severity: qos.SevError, Device: "leaf1", Port: "Ethernet4",
		Message: "PFC priorities [3,4] differ from the peer spine1's [3]", Fix: "enable PFC on the same priorities at both ends of each link to spine1"}
	speed := qos.Finding{Rule: "QOS009", Severity: qos.SevError, Device: "leaf1", Port: "Ethernet4", Where: "config_db.json:212",
		Message: "the port is set to 100 Gb/s but its link runs at 400 Gb/s: the link does not come up with its peer", Fix: "set the port's speed to its link's, 400 Gb/s"}
	base := passingRun("20261129T110000Z-ecn-pfc-64gpu", t0.Add(-time.Hour))
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"
	base.Lint = &LintSummary{Errors: 1, Findings: []qos.Finding{pfc}}
	run.Lint = &LintSummary{Errors: 2, Findings: []qos.Finding{pfc, speed}}
	r := Compare(run, base, nil)
	if got := regressions(r); len(got) != 1 {
		t.Fatalf("regressions %v, want the speed's QOS009", got)
	}
	out := text(t, r)
	for _, want := range []string{
		"lint: the run's configs have 2 errors, the baseline's 1 ('labctl config lint 64gpu' lists them; the new ones are regressions, below)\n",
		"lint error QOS009 at leaf1 Ethernet4, new in the run's configs: the port is set to 100 Gb/s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}

	// The baseline had the speed's too, its line elsewhere in the file
	// and at a port's entry the run's lint names by "*".
	moved, starred := speed, pfc
	moved.Where = "config_db.json:230"
	starred.Where, pfc.Where = "PORT_QOS_MAP|*", "PORT_QOS_MAP|Ethernet4"
	base.Lint = &LintSummary{Errors: 2, Findings: []qos.Finding{pfc, moved}}
	run.Lint = &LintSummary{Errors: 2, Findings: []qos.Finding{starred, speed}}
	if got := regressions(Compare(run, base, nil)); len(got) != 0 {
		t.Errorf("the same causes: regressions %v", got)
	}
}
