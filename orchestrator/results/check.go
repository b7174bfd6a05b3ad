package results

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// CheckComparable refuses a record regress cannot compare honestly: one
// without schema_version; a passed or failed one without variants; a
// variant without a name, or twice (the same name and repetition: Compare
// matches variants by them, so one copy would be compared and the other
// silently not, or compared twice); a summary without its source or
// lacking a compared metric its model computes (removed or nulled: it
// would read as 0); a Jain index above 1; or a negative figure among those
// regress compares (every one is a count, a rate, a time or a size, so a
// negative one was edited in or damaged, and would read as an improvement
// or a regression that never happened). A status labctl never writes is
// refused when the record is read (readRunFile). path names the file in
// the error (exit 2), which says which variant and which figure.
func CheckComparable(path string, run *Run) error {
	fix := "the record was edited or damaged: restore it from a copy; a baseline can be saved again from a good run with 'labctl regress --save-baseline <run> <name> --force'"
	if run.SchemaVersion < 1 {
		return exitcode.Usagef("%s: schema_version is missing or %d; labctl writes 1 or more in every record (fix: %s)", path, run.SchemaVersion, fix)
	}
	// Regress names the revisions that differ: one below 1 is none a
	// labctl wrote.
	if run.SimRevision < 0 {
		return exitcode.Usagef("%s: sim_revision is %d; labctl writes the simulator's revision, 1 or more, or leaves it out (fix: %s)", path, run.SimRevision, fix)
	}
	// A record is saved after its first variant: a finished one without
	// any was cut.
	if len(run.Variants) == 0 && (run.Status == StatusPassed || run.Status == StatusFailed) {
		return exitcode.Usagef("%s: the run %s but its record holds no variant (fix: %s)", path, run.Status, fix)
	}
	seen := map[string]int{}
	for i := range run.Variants {
		v := &run.Variants[i]
		if v.Name == "" {
			return exitcode.Usagef("%s: variants[%d] has no name, so regress cannot match it with a variant of the other run (fix: %s)", path, i, fix)
		}
		if j, dup := seen[pointKey(v)]; dup {
			return exitcode.Usagef("%s: variant %s is in the record twice (variants[%d] and variants[%d]), and regress, which matches variants by name and repetition, cannot tell which to compare (fix: %s)", path, v.Label(), j, i, fix)
		}
		seen[pointKey(v)] = i
		// Every summary labctl writes says where its figures came from; one
		// without (a "summary": null, or none) would read as all zeros.
		if src := v.Summary.Source; src != Measured && src != Simulated && src != Estimated {
			return exitcode.Usagef("%s: variant %s: summary.source is %q, not measured, simulated or estimated, so its figures are not labctl's and regress would compare them as zeros (fix: %s)", path, v.Label(), src, fix)
		}
		for _, m := range v.Summary.absent {
			if !slices.Contains(v.Summary.NotComputed, m) {
				return exitcode.Usagef("%s: variant %s: summary.%s is missing or null, and regress would compare it as 0 (fix: %s)", path, v.Label(), m, fix)
			}
		}
		if j := v.Summary.JainFairness; j > 1 {
			return exitcode.Usagef("%s: variant %s: summary.jain_fairness is %s, and Jain's index is at most 1 (fix: %s)", path, v.Label(), strconv.FormatFloat(j, 'g', -1, 64), fix)
		}
		where, val := negativeFigure(v.Summary, v.Flows, v.Counters)
		if where == "" && v.Simulated != nil {
			where, val = negativeFigure(v.Simulated.Summary, v.Simulated.Flows, v.Simulated.Counters)
			where = "simulated." + where
		}
		if where != "" {
			return exitcode.Usagef("%s: variant %s: %s is %s, and no metric regress compares can be negative (fix: %s)", path, v.Label(), where, strconv.FormatFloat(val, 'g', -1, 64), fix)
		}
		if why := ncclProblem(v.NCCL); why != "" {
			return exitcode.Usagef("%s: variant %s: %s (fix: %s)", path, v.Label(), why, fix)
		}
	}
	return nil
}

// figure is one number of a record, by its JSON name.
type figure struct {
	name string
	v    float64
}

// negativeFigure returns the first negative figure regress reads from a
// variant's summary (Metrics), flows (RoleMetrics) and counters
// (PortMetrics), by its place in the record ("summary.drops",
// "flows[2].latency_us.p99"), or "" when there is none. A counter's
// priority is no figure (-1 stands for the whole port).
func negativeFigure(s Summary, flows []Flow, counters []Counter) (string, float64) {
	for _, m := range Metrics {
		if v := m.get(s); v < 0 {
			return "summary." + m.Name, v
		}
	}
	for i, f := range flows {
		figures := []figure{{"throughput_gbps", f.ThroughputGbps}}
		if f.Bytes != nil {
			figures = append(figures, figure{"bytes", float64(*f.Bytes)})
		}
		if f.Retransmits != nil {
			figures = append(figures, figure{"retransmits", float64(*f.Retransmits)})
		}
		if l := f.LatencyUs; l != nil {
			figures = append(figures, figure{"latency_us.p50", l.P50}, figure{"latency_us.p99", l.P99}, figure{"latency_us.max", l.Max})
		}
		if f.FCTUs != nil {
			figures = append(figures, figure{"fct_us", *f.FCTUs})
		}
		for _, x := range figures {
			if x.v < 0 {
				return fmt.Sprintf("flows[%d] (%s).%s", i, f.ID, x.name), x.v
			}
		}
	}
	for i, c := range counters {
		figures := []figure{{"tx_bytes", float64(c.TxBytes)}, {"pfc_tx", float64(c.PFCTx)}, {"pfc_rx", float64(c.PFCRx)},
			{"ecn_marked", float64(c.ECNMarked)}, {"drops", float64(c.Drops)}}
		for _, q := range []struct {
			name string
			v    *int64
		}{{"queue_p50_bytes", c.QueueP50Bytes}, {"queue_p99_bytes", c.QueueP99Bytes}, {"queue_max_bytes", c.QueueMaxBytes}} {
			if q.v != nil {
				figures = append(figures, figure{q.name, float64(*q.v)})
			}
		}
		for _, x := range figures {
			if x.v < 0 {
				return fmt.Sprintf("counters[%d] (%s %s priority %d).%s", i, c.Node, c.Port, c.Priority, x.name), x.v
			}
		}
	}
	return "", 0
}
