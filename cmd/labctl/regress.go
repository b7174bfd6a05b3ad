package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/cmd/labctl/internal/startheap"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specdoc"
)

func newRegressCmd(app *App) *cobra.Command {
	var (
		baseline  string
		saveRun   string
		tolerance []string
		f         results.Filter
		force     bool
	)
	cmd := &cobra.Command{
		Use:   "regress <run-id|latest|file> --baseline <run-id|name|file> | --save-baseline <run-id|latest> <name>",
		Short: "Compare a run with a baseline; exit 1 on a regression",
		Long: `regress compares a run's variants with a baseline's and exits 1 when
something regressed beyond tolerance. For every variant it compares:

  the summary   throughput and fairness lower, drops, PFC pauses,
                retransmits, p99 latency or failed flows higher, ECN marks or
                CNPs changed
  each role     of the flows (incast, victim, allreduce, ...): total and
                weakest-flow throughput, the median of the flows' p50
                latency, the highest p99, retransmits, failed flows, the
                longest completion time of sized flows
  each port     and priority congested in either run (a pause sent or
                received, a mark, a drop, or a queue p99 of 64 KiB or more):
                queue depth p50, p99 and peak, pauses sent and received,
                marks, drops
  nccl-tests    the table of an nccl-tests-like variant, simulated or
                measured: busbw at every message size (a size the run
                lacks is a regression), out of bounds values

and flags a variant or role missing from either side, and an assertion that
passed in the baseline and fails now. Ahead of the findings it lists what
changed between the two records besides: the scenario's values (each
record keeps the scenario it ran; comments do not count) and the fields
of the switches' resolved QoS. A metric one side lacks (not computed
by its model, not measured on a live lab, flows that did not complete, a
baseline made before queue depth was kept) is never compared as a zero:
absent in the run it is a regression, absent in the baseline it is listed as
not compared. Variants are matched by name and repetition; when the two
runs had other seeds, the repetitions of a point (each at seed +
repetition) are compared as samples: the mean of the run's against the
mean of the baseline's, allowed at least the spread of either side's
repetitions, the baseline's alone where it holds one value at every
seed (nccl-tests tables too, size by size). Other seeds with a point run once
on either side are refused (exit 2): the seed alone moves figures (it
places flows on ECMP paths), so rerun at the baseline's --seed, or run
both with repetitions. After a config edit at the baseline's seed, one run
a side is one sample: the edit's timing shift alone can move latency and
queue figures beyond tolerance, so a verdict of figures alone ends with
the run to make (both sides with --repetitions 5), and a flowlet
variant's port figures are listed apart, as between seeds. The output
says first what was compared and how confident the verdict is (high: the
same simulation on both sides; moderate: samples of seeds, an edit,
another revision of the simulator, or figures measured on a live lab). Two records of another scenario or lab, or whose
figures come from different models (packet-level, flow-level, a live
lab), are refused (exit 2): rerun with the baseline's model, or save a
baseline of this one.

A baseline is a run id (or unique prefix), latest, a name saved with
--save-baseline (results/baselines/<name>.json, written without the time
series, which regress never reads), or a run.json path. The run too may be
a run.json path, such as a record 'labctl parse nccl-tests --record' made
of a cluster's nccl-tests output: such a record holds only its tables,
and a variant it lacks (or has and the other record lacks) is listed, not
a regression.

Tolerances (defaults in results/baselines/README.md) are overridden by the
run's scenario (regress: {tolerances: {metric: value}}, kept with the
scenario so that every run of it is judged alike) and by --tolerance
metric=value, which replaces the scenario's value of that metric: 3%
(relative), 5 (absolute), 10%+2 (10% of the baseline's value but at least
2: the larger, not the sum, as the findings' "allowed" figures show), or
off. The report's first lines list the overrides and where each came from.
` + specdoc.Wrap("Metrics are the summary's ("+metricNames(results.Metrics)+"), a transport's ("+metricNames(results.TransportMetrics)+"), a role's ("+metricNames(results.RoleMetrics)+
			"), a port's ("+metricNames(results.PortMetrics)+") and an nccl-tests table's ("+metricNames(results.NCCLMetrics)+"); a role's, a port's or a table's tolerance applies to every role, port or message size, and role[<role>].<metric> (role[victim].latency_us_p50) to one role, before role.<metric>.", 76, "") + `

  labctl regress --save-baseline latest ecn-pfc-64gpu
  labctl regress latest --baseline ecn-pfc-64gpu --tolerance throughput_gbps_total=3%
  labctl regress latest --baseline ecn-pfc-64gpu --tolerance role.latency_us_p50=20% --tolerance port.queue_p99_bytes=25%+65536
  labctl regress latest --baseline ecn-pfc-64gpu --tolerance role[victim].latency_us_p50=5%
  labctl regress latest --baseline measured.json --tolerance nccl.busbw_gbyte_s=10%
  labctl regress cluster-today.json --baseline cluster-last-week.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if saveRun != "" {
				if len(args) != 1 || baseline != "" {
					return exitcode.Usagef("--save-baseline takes a run and one baseline name: labctl regress --save-baseline <run-id|latest> <name>")
				}
				format, err := app.OutputFormat("text", "text", "json")
				if err != nil {
					return err
				}
				s, err := openResultsRead(app)
				if err != nil {
					return err
				}
				defer s.Close()
				f.Lab = labFilterName(f.Lab)
				path, err := results.SaveBaselineFiltered(s, saveRun, args[0], f, force)
				if err != nil {
					return runRefError(err)
				}
				out := savedBaseline{SchemaVersion: results.SchemaVersion, Baseline: args[0], Path: path, Notes: []string{}}
				if saved, err := results.ReadRunFile(path); err == nil {
					out.RunID, out.Status = saved.RunID, saved.Status
					if saved.Status == results.StatusFailed {
						out.Notes = append(out.Notes, fmt.Sprintf("run %s failed (%s) and is saved so with --force: a run that fails the same assertions is not a regression against it, but regress still exits 1 on it", saved.RunID, failureSummary(saved)))
					}
					if note := results.BaselineNote(saved); note != "" {
						out.Notes = append(out.Notes, note)
					}
				}
				if format == "json" {
					return writeJSON(app.Out, out)
				}
				fmt.Fprintf(app.Out, "saved baseline %s (%s)\n", args[0], path)
				for _, n := range out.Notes {
					fmt.Fprintf(app.Out, "note: %s\n", n)
				}
				return nil
			}
			format, err := app.OutputFormat("text", "text", "json", "junit")
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return exitcode.Usagef("name one run to check: labctl regress <run-id|latest> --baseline <run-id|name|file>")
			}
			if baseline == "" {
				return exitcode.Usagef("--baseline is required: a run id, latest, a saved baseline name or a run.json file")
			}
			tol, err := results.ParseTolerances(tolerance)
			if err != nil {
				return exitcode.Usage(err)
			}
			s, err := openResultsRead(app)
			if err != nil {
				return err
			}
			defer s.Close()
			run, runFile, err := findRun(s, args[0], f)
			if err != nil {
				return err
			}
			if run.Status == results.StatusRunning {
				return exitcode.Usagef("run %s is still running (fix: wait for it to finish, then compare it)", run.RunID)
			}
			if err := results.CheckComparable(runFile, run); err != nil {
				return err
			}
			f.Lab = labFilterName(f.Lab)
			base, err := results.OpenBaseline(s, baseline, f)
			if err != nil {
				// A baseline that is not found or not a run record is
				// bad input, whatever went wrong reading it.
				if nf := (*results.NotFoundError)(nil); errors.As(err, &nf) && nf.Filter != "" {
					return exitcode.Usagef("baseline %s: %v", baseline, err) // its fix names the filter
				}
				if exitcode.Code(err) == exitcode.CheckFailed {
					return exitcode.Usagef("baseline %s: %v (fix: name a run id, latest, a saved baseline or a run.json file)", baseline, err)
				}
				return runRefError(err)
			}
			// Two records of nccl-tests output made in the same second
			// share an id; two files are two records.
			twoFiles := runFile != s.RunFile(run.RunID) && isFile(baseline) && filepath.Clean(baseline) != filepath.Clean(runFile)
			// So may a stored record and a file: records of other outputs
			// are other records.
			otherOutputs := run.Imported != nil && base.Imported != nil && !slices.Equal(run.Imported.Files, base.Imported.Files)
			// And two runs started in the same second (one lab brought up
			// on SONiC and on EOS, or by two labctl builds, in two folders
			// side by side): a record that started at another instant is
			// another run, whatever the id; a copy of the run's own record
			// keeps its start to the nanosecond.
			otherRun := !base.Started.Equal(run.Started)
			if base.RunID == run.RunID && !twoFiles && !otherOutputs && !otherRun {
				// Comparing a run with itself finds nothing, and an OK
				// would say the run was checked.
				if args[0] == results.Latest {
					return exitcode.Usagef("the latest run, %s, is the baseline itself (%s), so there is nothing to compare (fix: run the scenario first, 'labctl run %s --lab %s', then regress latest; or name the run to check)", run.RunID, baseline, run.ScenarioArg(), run.Lab)
				}
				return exitcode.Usagef("run %s is the baseline itself (%s), so there is nothing to compare (fix: name another run, or another baseline)", run.RunID, baseline)
			}
			stale := staleConfigsWarning(app, run, args[0] == results.Latest)
			// Metrics of different scenarios, labs or models, or single
			// samples of different seeds, are not comparable: every
			// difference would read as a regression.
			if err := results.CheckSameExperiment(run, base); err != nil {
				return err
			}
			// The run's scenario may set tolerances (regress.tolerances);
			// a --tolerance of the same metric replaces its value.
			scenarioTol, err := results.ScenarioTolerances(run)
			if err != nil {
				return exitcode.Usagef("%v (fix: give the tolerances with --tolerance, or rerun with the scenario's regress section fixed)", err)
			}
			for name, t := range tol {
				scenarioTol[name] = t
			}
			rep := results.Compare(run, base, scenarioTol)
			if stale != "" {
				// In the report (text, json, junit) and on stderr, which a
				// script piping the report still shows.
				rep.Warnings = append([]string{stale}, rep.Warnings...)
				fmt.Fprintf(app.Err, "labctl: warning: %s\n", stale)
			}
			switch format {
			case "json":
				err = rep.WriteJSON(app.Out)
			case "junit":
				err = rep.WriteJUnit(app.Out)
			default:
				err = rep.WriteText(app.Out)
			}
			if err != nil {
				return err
			}
			if rep.Regressed {
				also := ""
				switch {
				case len(rep.ScenarioChanges) > 0 && rep.SimulatorChanged:
					also = " (the scenario and the simulator changed between them too, which may explain them: see above)"
				case len(rep.ScenarioChanges) > 0:
					also = " (the scenario changed between them too, which may explain them: see its values above)"
				case rep.SimulatorChanged:
					also = " (the simulator changed between them too, which may explain them: see its revisions above)"
				}
				return exitcode.Failedf("run %s regressed against baseline %s: %s%s", run.RunID, base.RunID, plural.N(rep.Regressions, "regression"), also)
			}
			if rep.Verdict == results.VerdictFailed {
				return exitcode.Failedf("run %s fails %s that did not pass in baseline %s (%s) either: no regression, but the run does not pass", run.RunID, plural.N(rep.FailedAssertions, "assertion"), base.RunID, base.Status)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&baseline, "baseline", "", "run id, latest, saved baseline name or run.json file to compare with")
	cmd.Flags().StringVar(&saveRun, "save-baseline", "", "save this run (id or latest) as a named baseline under results/baselines/")
	cmd.Flags().BoolVar(&force, "force", false, "with --save-baseline: replace an existing baseline of that name, or save a run that failed its assertions")
	cmd.Flags().StringArrayVar(&tolerance, "tolerance", nil, "metric=value tolerance override, repeatable, replacing the scenario's regress.tolerances value of that metric (3%, 5, 10%+2: 10% but at least 2, off); metric as throughput_gbps_total, role.latency_us_p50, role[victim].latency_us_p50, port.queue_p99_bytes")
	runFilterFlags(cmd, &f)
	return cmd
}

// savedBaseline is what 'regress --save-baseline -o json' prints.
type savedBaseline struct {
	SchemaVersion int      `json:"schema_version"`
	Baseline      string   `json:"baseline"`
	Path          string   `json:"path"`
	RunID         string   `json:"run_id"`
	Status        string   `json:"status"`
	Notes         []string `json:"notes"`
}

// metricNames lists compared metrics by the names --tolerance takes.
func metricNames(ms []results.Metric) string {
	return strings.Join(results.MetricNames(ms), ", ")
}

// findRun finds the run regress checks: a run.json file when one exists
// at ref (a record made by 'labctl parse nccl-tests --record', say), else
// a run of the store (an id, a prefix, latest). It returns the file the
// record was read from, for errors.
func findRun(s *results.Store, ref string, f results.Filter) (*results.Run, string, error) {
	if isFile(ref) {
		hugePagesForRecord(ref)
		run, err := results.ReadRunFileWithoutSeries(ref)
		if err != nil {
			if exitcode.Code(err) == exitcode.CheckFailed {
				return nil, "", exitcode.Usagef("run %s: %v (fix: name a run id, latest or a run.json file)", ref, err)
			}
			return nil, "", err
		}
		return run, ref, nil
	}
	run, err := findStoredRun(s, ref, f, false)
	if err != nil {
		return nil, "", err
	}
	return run, s.RunFile(run.RunID), nil
}

// recordHugePagesBytes is the run record size from which a command that
// decodes it (and, for regress, a baseline like it) readies huge pages
// for its heap (startheap.HugePages): decoding allocates some times the
// record's size, and the collection that readying takes pays from a few
// MiB on. regress of 64gpu's ECN x PFC records (9 MB) took 281 against
// 513 ms of CPU readied, of the bench incast's (46 KB) 62 against 57 ms.
const recordHugePagesBytes = 1 << 20

// hugePagesForRecord readies huge pages (startheap.HugePages) before the
// run record at path is decoded, when it is recordHugePagesBytes or more.
func hugePagesForRecord(path string) {
	if st, err := os.Stat(path); err == nil && st.Size() >= recordHugePagesBytes {
		startheap.HugePages()
	}
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// staleConfigsWarning says when the run is not of its lab's configs as
// they are now (their digest is not the run's), with the config files
// modified since the run started: after an edit whose run was refused
// (bad input, no record) or never made, "latest" is the run before it,
// and its comparison says nothing of the edit. "" when they are the same,
// or when the lab is not up in this work directory.
func staleConfigsWarning(app *App, run *results.Run, latest bool) string {
	if run.ConfigDigest == "" || !lab.ValidName(run.Lab) {
		return ""
	}
	st, err := runtime.ReadState(labDir(app, run.Lab))
	if err != nil || !st.IsUp() {
		return ""
	}
	l, err := recordedLab(app, st)
	if err != nil {
		return ""
	}
	l.Dir = labDir(app, run.Lab)
	now, err := runtime.ConfigDigest(l)
	if err != nil || now == run.ConfigDigest {
		return ""
	}
	which := ""
	if latest {
		which = "the latest run, "
	}
	edited := ""
	if names := editedSince(l.ConfigsDir(), run.Started); len(names) > 0 {
		edited = fmt.Sprintf("; %s modified since", strings.Join(names, ", "))
	}
	return fmt.Sprintf("the configs of lab %s changed since run %s (%sstarted %s%s): this compares that run, made before the edit, not the configs as they are now; a run of them that was refused left no record (run 'labctl run %s --lab %s' to compare them)",
		run.Lab, run.RunID, which, results.StartedAt(run.Started), edited, run.ScenarioArg(), run.Lab)
}

// editedSince lists the files of dir modified after t, by name.
func editedSince(dir string, t time.Time) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().After(t) {
			names = append(names, e.Name())
		}
	}
	return names
}
