package results

import (
	"bytes"
	"strings"
	"testing"
)

// A run with repetitions lists each repetition of a point under its own
// label in every report, as labctl run and regress do: the Markdown, HTML
// and JUnit reports had three rows named ecn=on,pfc=on with three sets of
// figures.
func TestReportsLabelRepetitions(t *testing.T) {
	run := repeatedRun(t, "20261129T110000Z-ecn-pfc-64gpu", 1, 10, 14, 12)
	var md, html, junit bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	if err := RenderHTML(run, &html, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RenderJUnit(run, &junit); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, out, want string }{
		{"markdown summary", md.String(), "| ecn=on,pfc=on #3 |"},
		{"markdown section", md.String(), "## Variant ecn=on,pfc=on #2"},
		{"html summary", html.String(), "<td>ecn=on,pfc=on #3</td>"},
		{"html section", html.String(), "<h2>Variant ecn=on,pfc=on #2</h2>"},
		{"junit", junit.String(), `classname="ecn-pfc.ecn=on,pfc=on-#2"`},
		{"markdown over the repetitions", md.String(), "| ecn=on,pfc=on | 3 |"},
		{"markdown p99 over the repetitions", md.String(), "| 12.0 (10.0-14.0) |"},
		{"html over the repetitions", html.String(), `<td class="n">12.0 (10.0-14.0)</td>`},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("%s: no %q", c.what, c.want)
		}
	}
	if n := strings.Count(md.String(), "## Variant ecn=on,pfc=on\n"); n != 1 {
		t.Errorf("markdown: %d sections named ecn=on,pfc=on, want the first repetition's alone", n)
	}
}

// A JUnit classname keeps one dot, between the scenario and the variant:
// viewers read dots as packages, and a swept key's path has its own.
func TestJUnitClassKeepsTheVariantWhole(t *testing.T) {
	got := junitClass("long-sweep", "ecn=on,pfc=off,qos.ecn.kmin_kb=100,traffic[0].senders=2 #2")
	if got != "long-sweep.ecn=on,pfc=off,qos_ecn_kmin_kb=100,traffic[0]_senders=2-#2" || strings.Count(got, ".") != 1 {
		t.Errorf("classname %q", got)
	}
}

// A record of a run that stopped early names the planned variants it
// lacks, in the Markdown report, JUnit's run-finished case and NotRun.
func TestStoppedRunNamesWhatDidNotRun(t *testing.T) {
	run := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	run.Status, run.Finished = StatusInterrupted, nil
	run.VariantsPlanned = len(run.Variants) + 2
	for i := range run.Variants {
		run.PlannedVariants = append(run.PlannedVariants, run.Variants[i].Label())
	}
	run.PlannedVariants = append(run.PlannedVariants, "ecn=off,pfc=on,kmin_kb=9", VariantLabel("ecn=off,pfc=on,kmin_kb=9", 1))
	if got := run.NotRun(); got != "ecn=off,pfc=on,kmin_kb=9, ecn=off,pfc=on,kmin_kb=9 #2" {
		t.Errorf("NotRun = %q", got)
	}
	var md, junit strings.Builder
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	if err := RenderJUnit(run, &junit); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "junit": junit.String()} {
		if !strings.Contains(out, "not run: ecn=off,pfc=on,kmin_kb=9, ecn=off,pfc=on,kmin_kb=9 #2") {
			t.Errorf("%s does not name the variants not run: %s", name, out)
		}
	}
}
