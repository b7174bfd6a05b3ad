package results

import (
	"fmt"
	"slices"
	"strings"

	engine "github.com/labctl/labctl/orchestrator/sim"
)

// SimRevisions are the simulator's revisions of a regress report's two
// records (Run.SimRevision; 0 for a record that carries none).
type SimRevisions struct {
	Run      int `json:"run"`
	Baseline int `json:"baseline"`
}

func (s SimRevisions) newest() int { return max(s.Run, s.Baseline) }

// simulatorChange says, in the words the comparison's basis lists its
// changed inputs with, that run and baseline were simulated by different
// revisions of the simulator (Run.SimRevision), and whether they were.
// A live lab's record holds simulated figures too (each variant's
// simulated twin); a record of a tool's output holds none, so a revision
// changes nothing it compares.
func simulatorChange(run, baseline *Run) (string, bool) {
	if run.SimRevision == baseline.SimRevision || run.Imported != nil || baseline.Imported != nil {
		return "", false
	}
	switch {
	case baseline.SimRevision == 0:
		return fmt.Sprintf("the simulator's revision (%d in the run; the baseline records none: a labctl before revisions were recorded made it)", run.SimRevision), true
	case run.SimRevision == 0:
		return fmt.Sprintf("the simulator's revision (%d in the baseline; the run records none: a labctl before revisions were recorded made it)", baseline.SimRevision), true
	}
	return fmt.Sprintf("the simulator's revision (%d in the baseline, %d in the run)", baseline.SimRevision, run.SimRevision), true
}

// edits are the changed inputs (Compare's list) but the simulator: what
// the user changed between baseline and run.
func edits(changed []string, run, baseline *Run) []string {
	sim, ok := simulatorChange(run, baseline)
	if !ok {
		return changed
	}
	return slices.DeleteFunc(slices.Clone(changed), func(c string) bool { return c == sim })
}

// runIsOlder says the run was simulated by an older revision than the
// baseline (a record without one is older than any that has one).
func runIsOlder(run, baseline *Run) bool { return run.SimRevision < baseline.SimRevision }

// simulatorNext is what to run when the simulator's revision differs
// between run and baseline: with other inputs changed too (edits), a
// baseline of this labctl on the baseline's inputs, so that only the
// edits differ; with none, this run is the new baseline once checked.
func simulatorNext(run, baseline *Run, edits []string) string {
	switch {
	case runIsOlder(run, baseline):
		return fmt.Sprintf("the run comes from an older simulator than the baseline: rerun it with the labctl that saved the baseline, or a newer one (labctl run %s --lab %s --seed %d), and compare that run", run.ScenarioArg(), run.Lab, baseline.Seed)
	case len(edits) == 0:
		return fmt.Sprintf("the figures that moved are the new simulator's, not a regression of the configs: once they are checked, save this run as the baseline (labctl regress --save-baseline %s <name> --force)", run.RunID)
	}
	return fmt.Sprintf("the baseline is another simulator's, so the simulator's changes and %s are mixed here: run the baseline's configs and scenario with this labctl (labctl run %s --lab %s --seed %d, with the baseline's configs in place), save that run as the baseline, and compare this run with it: then only %s differ", strings.Join(edits, " and "), run.ScenarioArg(), run.Lab, baseline.Seed, strings.Join(edits, " and "))
}

// writeSimulatorChanges says, ahead of the config changes, that another
// revision of the simulator made the baseline, what changed since and
// what to do: figures it moved would otherwise read as the configs'
// doing.
func (r Report) writeSimulatorChanges(b *strings.Builder) {
	if !r.SimulatorChanged {
		return
	}
	b.WriteString("the simulator changed between the baseline and this run: figures may have moved because of it, not the configs (what to do: the next step under a regression, or results/baselines/README.md):\n")
	for _, c := range r.SimulatorChanges {
		fmt.Fprintf(b, "  %s\n", c)
	}
	if r.SimRevisions.newest() > engine.Revision {
		// A record of a later labctl: this one cannot say what its
		// revisions changed.
		fmt.Fprintf(b, "  revisions %d to %d: newer than this labctl's (%d), which cannot say what they changed\n", engine.Revision+1, r.SimRevisions.newest(), engine.Revision)
	}
}
