package results

import (
	"fmt"
	"strings"
)

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
		return fmt.Sprintf("the simulator (revision %d in the run; the baseline records none: a labctl before revisions were recorded made it)", run.SimRevision), true
	case run.SimRevision == 0:
		return fmt.Sprintf("the simulator (revision %d in the baseline; the run records none: a labctl before revisions were recorded made it)", baseline.SimRevision), true
	}
	return fmt.Sprintf("the simulator (revision %d in the baseline, %d in the run)", baseline.SimRevision, run.SimRevision), true
}

// writeSimulatorChanges says, ahead of the config changes, that another
// revision of the simulator made the baseline, what changed since and
// what to do: figures it moved would otherwise read as the configs'
// doing.
func (r Report) writeSimulatorChanges(b *strings.Builder) {
	if !r.SimulatorChanged {
		return
	}
	b.WriteString("the simulator changed between the baseline and this run: figures may have moved because of it, not the configs; once this run's figures are checked, save it as the baseline (labctl regress --save-baseline <run-id> <name> --force)\n")
	if len(r.SimulatorChanges) == 0 {
		// A revision newer than this labctl's list (a record of a later
		// labctl): it cannot say what changed.
		b.WriteString("  (this labctl does not know what the other revision changed)\n")
	}
	for _, c := range r.SimulatorChanges {
		fmt.Fprintf(b, "  %s\n", c)
	}
}
