package results

import (
	"bytes"
	"strings"
	"testing"
)

// A variant that could not run shows dashes, not zeros, and the header
// says how many could not run; fields a model does not compute show n/a.
func TestMarkdownErroredAndNotComputed(t *testing.T) {
	run := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0)
	run.Variants[0].Error = "config rejected"
	run.Variants[1].Summary.NotComputed = []string{"drops", "cnp"}
	var b bytes.Buffer
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "1 of ") || !strings.Contains(md, "variants could not run") {
		t.Error("header does not say a variant could not run")
	}
	var errRow, naRow string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| "+run.Variants[0].Name+" |") && errRow == "" {
			errRow = line
		}
		if strings.HasPrefix(line, "| "+run.Variants[1].Name+" |") && naRow == "" {
			naRow = line
		}
	}
	if strings.Count(errRow, "—") != 10 {
		t.Errorf("errored variant row: %s", errRow)
	}
	if strings.Count(naRow, "n/a") != 2 {
		t.Errorf("not-computed row: %s", naRow)
	}
}
