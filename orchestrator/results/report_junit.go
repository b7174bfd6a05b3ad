package results

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JUnit XML, the shape CI systems (Jenkins, GitLab, GitHub test reporters)
// read: testsuites > testsuite > testcase with an optional failure or error.

// JUnitSuites is the document root.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one run (or one regression compare).
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []JUnitProperty `xml:"properties>property,omitempty"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is a name=value fact about the suite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one check.
type JUnitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitSkipped marks a check that was not made, with why.
type JUnitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnitProblem is a failure or an error with its detail.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func (s *JUnitSuite) add(c JUnitCase) {
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	if c.Error != nil {
		s.Errors++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

func writeJUnit(w io.Writer, suites ...JUnitSuite) error {
	doc := JUnitSuites{Name: "labctl", Suites: suites}
	for _, s := range suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// xmlSafe drops characters XML 1.0 cannot carry (most control characters),
// which encoding/xml would otherwise write as-is into an invalid document.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF) {
			return r
		}
		return -1
	}, s)
}

// RenderJUnit writes the run as JUnit XML: one testcase per variant and
// assertion (classname <scenario>.<variant>), plus one "completed" case per
// variant that carries the variant's error if it did not finish.
func RenderJUnit(run *Run, w io.Writer) error {
	suite := JUnitSuite{Name: xmlSafe(run.Scenario + " on " + run.Lab), Time: "0", Timestamp: run.Started.UTC().Format("2006-01-02T15:04:05")}
	if run.Finished != nil {
		suite.Time = fmt.Sprintf("%.3f", run.Finished.Sub(run.Started).Seconds())
	}
	for _, p := range [][2]string{{"run_id", run.RunID}, {"lab", run.Lab}, {"scenario", run.Scenario}, {"runtime", run.Runtime},
		{"nos", run.NOS}, {"seed", fmt.Sprint(run.Seed)}, {"status", run.Status}, {"config_digest", run.ConfigDigest}, {"model", junitModel(run)}, {"sim_revision", simRevisionText(run)}, {"sweep", sweepLabel(run)}} {
		if p[1] != "" {
			suite.Properties = append(suite.Properties, JUnitProperty{Name: p[0], Value: xmlSafe(p[1])})
		}
	}
	for _, v := range run.Variants {
		class := junitClass(run.Scenario, v.Label())
		done := JUnitCase{ClassName: class, Name: "completed", Time: "0"}
		// A swept point says its values, so CI can chart them.
		var params []string
		for _, d := range run.Sweep {
			params = append(params, d.Path+"="+v.Params[d.Path])
		}
		if len(params) > 0 {
			done.SystemOut = xmlSafe("params: " + strings.Join(params, " "))
		}
		if v.Error != "" {
			done.Error = &JUnitProblem{Message: xmlSafe(v.Error), Type: "variant-error", Text: xmlSafe(v.Error)}
		}
		suite.add(done)
		for _, a := range v.Assertions {
			c := JUnitCase{ClassName: class, Name: xmlSafe(a.Name), Time: "0"}
			if !a.Passed {
				text := a.Detail
				if a.Expr != "" {
					text = "expected: " + a.Expr + "\nfound: " + a.Detail
				}
				c.Failure = &JUnitProblem{Message: xmlSafe(a.Detail), Type: "assertion", Text: xmlSafe(text)}
			} else if a.Detail != "" {
				c.SystemOut = xmlSafe(a.Detail)
			}
			suite.add(c)
		}
		// Every assertion is a case of every variant: one that does not
		// apply is skipped, so a CI dashboard tracks the same cases from
		// run to run.
		for _, a := range v.NotChecked {
			suite.add(JUnitCase{ClassName: class, Name: xmlSafe(a.Name), Time: "0", Skipped: &JUnitSkipped{Message: xmlSafe("not checked: " + a.Reason)}})
		}
	}
	// A run that did not finish is an error of its own: the variants it
	// never reached have no cases, and a CI job reading only the counts
	// would see a partial run pass.
	if c, ok := unfinishedCase(run); ok {
		suite.add(c)
	}
	return writeJUnit(w, suite)
}

// unfinishedCase is the error case of a run that did not finish
// (interrupted, abandoned, or still running when read), saying how many of
// its variants finished.
func unfinishedCase(run *Run) (JUnitCase, bool) {
	var what string
	switch run.Status {
	case StatusInterrupted:
		what = "the run was interrupted"
	case StatusAbandoned:
		what = "the run was abandoned (its process ended without finishing it)"
	case StatusRunning:
		what = "the run had not finished when this report was written"
	default:
		return JUnitCase{}, false
	}
	done := fmt.Sprintf("%d variants finished", len(run.Variants))
	if run.VariantsPlanned > 0 {
		done = fmt.Sprintf("%d of %d variants finished", len(run.Variants), run.VariantsPlanned)
	}
	if nr := run.NotRun(); nr != "" {
		done += " (not run: " + nr + ")"
	}
	msg := what + ": " + done + "; the others' assertions were not checked"
	return JUnitCase{ClassName: xmlSafe(run.Scenario), Name: "run finished", Time: "0",
		Error: &JUnitProblem{Message: xmlSafe(msg), Type: "run-" + run.Status, Text: xmlSafe(msg)}}, true
}

// junitClass is a test case's classname: the scenario, a dot, and the
// variant with its own dots as underscores and its blanks as hyphens
// (ecn=on,pfc=off,qos_ecn_kmin_kb=100; "incast.ecn=off,pfc=on-#2"): JUnit
// viewers read a classname's dots as packages, so a swept key's path split
// one variant into made-up packages.
func junitClass(scenario, variant string) string {
	return xmlSafe(scenario + "." + strings.NewReplacer(".", "_", " ", "-").Replace(variant))
}

// junitModel names the model behind a run's simulated figures.
func junitModel(run *Run) string {
	switch run.Model {
	case ModelFlow:
		return "flow: estimated by the " + FlowModelCaveat
	case ModelPacket:
		return "packet: simulated packet by packet"
	}
	return ""
}

// simRevisionText is a run's simulator revision as a property value, ""
// for a record that carries none.
func simRevisionText(run *Run) string {
	if run.SimRevision == 0 {
		return ""
	}
	return strconv.Itoa(run.SimRevision)
}
