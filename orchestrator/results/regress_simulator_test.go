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
		name                string
		base, run           int
		basis, change, next string
	}{
		{"baseline before revisions", 0, engine.Revision, fmt.Sprintf("but not the same simulation: the simulator's revision (%d in the run; the baseline records none", engine.Revision), "revision 1 (2026-12-06): the first revision records carry",
			"save this run as the baseline (labctl regress --save-baseline 20261129T120000Z-ecn-pfc-64gpu <name> --force)"},
		{"run of an older labctl", engine.Revision, 0, fmt.Sprintf("the simulator's revision (%d in the baseline; the run records none", engine.Revision), "revision 1 (2026-12-06)",
			"the run comes from an older simulator than the baseline: rerun it with the labctl that saved the baseline"},
		{"a revision this labctl does not know", engine.Revision + 1, engine.Revision, fmt.Sprintf("the simulator's revision (%d in the baseline, %d in the run)", engine.Revision+1, engine.Revision),
			fmt.Sprintf("revisions %d to %d: newer than this labctl's (%d), which cannot say what they changed", engine.Revision+1, engine.Revision+1, engine.Revision), "the run comes from an older simulator"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, rr := cloneRun(t, base), cloneRun(t, run)
			b.SimRevision, rr.SimRevision = c.base, c.run
			// A figure the simulator moved, for the next step a
			// regression prints.
			rr.Variants[0].Summary.ThroughputGbpsTotal /= 2
			r := Compare(rr, b, nil)
			if !r.SimulatorChanged || r.SimRevisions != (SimRevisions{Run: c.run, Baseline: c.base}) || r.Basis.How != BasisSameSeed || r.Basis.Confidence != ConfidenceModerate || !strings.Contains(r.Basis.Text, c.basis) {
				t.Fatalf("changed %v, revisions %+v, basis %+v; want a changed input %q at moderate confidence", r.SimulatorChanged, r.SimRevisions, r.Basis, c.basis)
			}
			if strings.Contains(r.Basis.Text, "timing") || strings.Contains(r.Basis.Next, "repetitions") {
				t.Errorf("only the simulator changed, yet the basis speaks of an edit's timing shift or repetitions: %+v", r.Basis)
			}
			out := text(t, r)
			for _, want := range []string{"the simulator changed between the baseline and this run", c.change, "REGRESSED", "\nnext: ", c.next} {
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

	// An edit of the configs as well: the next step makes a baseline of
	// this labctl on the baseline's inputs, so that only the edit differs.
	edited := cloneRun(t, run)
	edited.ConfigDigest = "sha256:other"
	old := cloneRun(t, base)
	old.SimRevision = 0
	edited.Variants[0].Summary.ThroughputGbpsTotal /= 2
	r = Compare(edited, old, nil)
	if want := "run the baseline's configs and scenario with this labctl (labctl run ecn-pfc --lab 64gpu --seed 1, with the baseline's configs in place), save that run as the baseline, and compare this run with it: then only the switches' configs differ"; !strings.Contains(r.Basis.Next, want) || !strings.Contains(r.Basis.Text, "the switches' configs and the simulator's revision") {
		t.Errorf("configs and simulator changed: basis %+v, want next %q", r.Basis, want)
	}

	// At another seed the refusal does not promise the same simulation
	// at the baseline's: the simulator differs too.
	other := cloneRun(t, run)
	other.Seed, other.SimRevision = 2, engine.Revision
	older := cloneRun(t, base)
	older.SimRevision = 0
	if err := CheckSeeds(other, older); err == nil || strings.Contains(err.Error(), "to compare the same simulation") || !strings.Contains(err.Error(), "rerun at the baseline's seed to compare one to one (the simulator's revision") {
		t.Errorf("seeds and revisions differ: %v", err)
	}

	// A record of a tool's output holds no simulated figure: the
	// simulator's revision is no input of its.
	imported := cloneRun(t, base)
	imported.SimRevision, imported.Imported = 0, &Imported{Tool: "nccl-tests", Files: []string{"out.txt"}}
	if r := Compare(run, imported, nil); r.SimulatorChanged {
		t.Errorf("against an imported record: simulator changed %v", r.SimulatorChanged)
	}
}
