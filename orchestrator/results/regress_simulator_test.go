package results

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	engine "github.com/labctl/labctl/orchestrator/sim"
)

// Two records of the same inputs at one seed are the same simulation only
// under one revision of the simulator: a baseline made by another
// revision (or by a labctl before records carried one) is named as a
// changed input, with what changed since, so figures the newer labctl
// moved are not read as the configs' doing with high confidence.
func TestRegressNamesTheSimulatorsRevision(t *testing.T) {
	base := syntheticRun("20261129T110000Z-ecn-pfc-64gpu", t0)
	base.SimRevision = engine.Revision
	run := cloneRun(t, base)
	run.RunID = "20261129T120000Z-ecn-pfc-64gpu"

	r := Compare(run, base, nil)
	if r.SimulatorChanged || r.SimulatorChanges != nil || r.Basis.Confidence != ConfidenceHigh {
		t.Fatalf("same revision: simulator changed %v %q, confidence %s", r.SimulatorChanged, r.SimulatorChanges, r.Basis.Confidence)
	}
	if out := text(t, r); strings.Contains(out, "simulator changed") {
		t.Errorf("same revision, text speaks of a simulator change:\n%s", out)
	}

	for _, c := range []struct {
		name          string
		base, run     int
		basis, change string
	}{
		{"baseline before revisions", 0, engine.Revision, fmt.Sprintf("the simulator (revision %d in the run; the baseline records none", engine.Revision), "revision 1 (2026-12-06): the first revision records carry"},
		{"run of an older labctl", engine.Revision, 0, fmt.Sprintf("the simulator (revision %d in the baseline; the run records none", engine.Revision), "revision 1 (2026-12-06)"},
		{"a revision this labctl does not know", engine.Revision + 1, engine.Revision, fmt.Sprintf("the simulator (revision %d in the baseline, %d in the run)", engine.Revision+1, engine.Revision), "this labctl does not know what the other revision changed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, rr := cloneRun(t, base), cloneRun(t, run)
			b.SimRevision, rr.SimRevision = c.base, c.run
			r := Compare(rr, b, nil)
			if !r.SimulatorChanged || r.Basis.How != BasisSameSeed || r.Basis.Confidence != ConfidenceModerate || !strings.Contains(r.Basis.Text, c.basis) {
				t.Fatalf("changed %v, basis %+v; want a changed input %q at moderate confidence", r.SimulatorChanged, r.Basis, c.basis)
			}
			out := text(t, r)
			for _, want := range []string{"the simulator changed between the baseline and this run", "labctl regress --save-baseline", c.change} {
				if !strings.Contains(out, want) {
					t.Errorf("text lacks %q:\n%s", want, out)
				}
			}
			var j strings.Builder
			if err := r.WriteJSON(&j); err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(j.String()), &m); err != nil {
				t.Fatal(err)
			}
			if m["simulator_changed"] != true {
				t.Errorf("JSON simulator_changed = %v", m["simulator_changed"])
			}
		})
	}

	// A record of a tool's output holds no simulated figure: the
	// simulator's revision is no input of its.
	imported := cloneRun(t, base)
	imported.SimRevision, imported.Imported = 0, &Imported{Tool: "nccl-tests", Files: []string{"out.txt"}}
	if r := Compare(run, imported, nil); r.SimulatorChanged {
		t.Errorf("against an imported record: simulator changed %v", r.SimulatorChanged)
	}
}
