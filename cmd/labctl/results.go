package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/results"
)

// openResults opens the results store under the work directory for
// writing (reindex).
func openResults(app *App) (*results.Store, error) {
	s, err := results.Open(app.ResultsDir())
	if err != nil {
		return nil, exitcode.Env(fmt.Errorf("open results in %s: %w", app.ResultsDir(), err))
	}
	return s, nil
}

// openResultsIn opens the results store of a work directory that exists,
// for writing (reindex, rm): a mistyped --dir is an error instead of a new
// empty store.
func openResultsIn(app *App) (*results.Store, error) {
	if err := app.requireDir(); err != nil {
		return nil, err
	}
	return openResults(app)
}

// checkStatusFilter refuses a --status that is no run status.
func checkStatusFilter(status string) error {
	if status != "" && !slices.Contains(results.Statuses, status) {
		return exitcode.Usagef("--status %q is not a run status (fix: use one of %s)", status, strings.Join(results.Statuses, ", "))
	}
	return nil
}

// openResultsRead opens the results store for a command that only reads:
// nothing is created or written, so it works on a read-only results/ and
// a mistyped --dir is an error instead of a new empty store.
func openResultsRead(app *App) (*results.Store, error) {
	if err := app.requireDir(); err != nil {
		return nil, err
	}
	s, err := results.OpenReadOnly(app.ResultsDir())
	if err != nil {
		return nil, exitcode.Env(fmt.Errorf("read results in %s: %w", app.ResultsDir(), err))
	}
	return s, nil
}

// requireDir checks that the work directory exists, for commands that
// only read it.
func (a *App) requireDir() error {
	if _, err := os.Stat(a.Dir); errors.Is(err, fs.ErrNotExist) {
		return exitcode.Usagef("--dir %s does not exist (fix: give the folder that holds topologies/ and results/, or leave --dir out for the current one)", a.Dir)
	}
	return nil
}

// runRefError makes an unknown or ambiguous run reference a usage error
// (exit 2); its message already lists the latest runs.
func runRefError(err error) error {
	var nf *results.NotFoundError
	if errors.As(err, &nf) {
		return exitcode.Usage(err)
	}
	return err
}

// openRun opens the results store and finds the run ref names ("latest",
// a run id or a unique prefix of one, narrowed by f), in huge pages when
// its record is large (hugePagesForRecord), with its time series or
// without them (results.ReadRunFileWithoutSeries: for a caller that reads
// none, faster). The caller closes the store, which it may still need (the
// run's directory, its baseline).
func openRun(app *App, ref string, f results.Filter, series bool) (*results.Store, *results.Run, error) {
	s, err := openResultsRead(app)
	if err != nil {
		return nil, nil, err
	}
	run, err := findStoredRun(s, ref, f, series)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, run, nil
}

// findStoredRun finds the run of store s that ref names, resolving it once
// and readying huge pages for a large record (hugePagesForRecord) before
// it is decoded, with its time series or without them
// (s.FindWithoutSeries, for a caller that reads none); errors are
// runRefError's.
func findStoredRun(s *results.Store, ref string, f results.Filter, series bool) (*results.Run, error) {
	f.Lab = labFilterName(f.Lab)
	id, err := s.Resolve(ref, f)
	if err != nil {
		return nil, runRefError(err)
	}
	hugePagesForRecord(s.RunFile(id))
	find := s.FindWithoutSeries
	if series {
		find = s.Find
	}
	run, err := find(id, f)
	if err != nil {
		return nil, runRefError(err)
	}
	return run, nil
}

// labFilterName is a --lab filter as the runs record their lab: a spec
// file's path (which run, up and lint take for a lab) becomes the name of
// the lab it gives; anything else stays as given.
func labFilterName(lab string) string {
	if name, err := labName(lab); err == nil {
		return name
	}
	return lab
}

// runFilterFlags adds --lab and --scenario, which narrow "latest".
func runFilterFlags(cmd *cobra.Command, f *results.Filter) {
	cmd.Flags().StringVar(&f.Lab, "lab", "", "only runs of this lab (narrows latest)")
	cmd.Flags().StringVar(&f.Scenario, "scenario", "", "only runs of this scenario (narrows latest)")
}

func newResultsCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "results",
		Short: "List and show runs stored under results/",
		Long: `results lists the runs under results/ (one folder per run plus the index
results/results.db) and shows one. A run is named by its id, a unique prefix
of it, or "latest".`,
	}
	cmd.AddCommand(newResultsListCmd(app), newResultsShowCmd(app), newResultsReindexCmd(app), newResultsRmCmd(app), newResultsBaselinesCmd(app))
	return cmd
}

// newResultsBaselinesCmd lists the baselines labctl regress --save-baseline
// saved (results/baselines/<name>.json): a CI job names one, and a person
// choosing which needs to see what each is a run of.
func newResultsBaselinesCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "baselines",
		Short: "List the saved baselines (results/baselines/) and what each is a run of",
		Long: `baselines lists the baselines 'labctl regress --save-baseline' saved under
results/baselines/, by name: the scenario, lab, seed and repetitions of the
run each was saved from, its variants, its model and when it was saved. A
file there that is not a readable run record is listed with why.`,
		Example: `  labctl results baselines
  labctl results baselines -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json")
			if err != nil {
				return err
			}
			s, err := openResultsRead(app)
			if err != nil {
				return err
			}
			defer s.Close()
			list := results.ListBaselines(s)
			if format == "json" {
				return writeJSON(app.Out, map[string]any{"schema_version": results.SchemaVersion, "baselines": list})
			}
			if len(list) == 0 {
				fmt.Fprintln(app.Out, "no saved baselines; save a run as one with 'labctl regress --save-baseline latest <name>'")
				return nil
			}
			tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSCENARIO\tLAB\tSEED\tREPETITIONS\tVARIANTS\tMODEL\tRUN ID\tSAVED")
			var unreadable []string
			for _, b := range list {
				if b.Error != "" {
					fmt.Fprintf(tw, "%s\t(unreadable)\t-\t-\t-\t-\t-\t-\t%s\n", b.Name, b.Saved.Format(time.RFC3339))
					unreadable = append(unreadable, b.Name+": "+b.Error)
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", b.Name, b.Scenario, b.Lab, b.Seed, b.Repetitions, b.Variants, b.Model, b.RunID, b.Saved.Format(time.RFC3339))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, u := range unreadable {
				fmt.Fprintf(app.Out, "unreadable %s\n", u)
			}
			return nil
		},
	}
}

func newResultsListCmd(app *App) *cobra.Command {
	var f results.Filter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List runs, newest first",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json")
			if err != nil {
				return err
			}
			if f.Limit < 0 {
				return exitcode.Usagef("--limit %d: give 0 (all) or a positive number", f.Limit)
			}
			if err := checkStatusFilter(f.Status); err != nil {
				return err
			}
			f.Lab = labFilterName(f.Lab)
			s, err := openResultsRead(app)
			if err != nil {
				return err
			}
			defer s.Close()
			runs, err := s.List(f)
			if err != nil {
				return err
			}
			if format == "json" {
				if runs == nil {
					runs = []results.RunSummary{}
				}
				return writeJSON(app.Out, map[string]any{"schema_version": results.SchemaVersion, "runs": runs})
			}
			if len(runs) == 0 {
				fmt.Fprintln(app.Out, noRunsLine(s, f))
				return nil
			}
			tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN ID\tLAB\tSCENARIO\tRUNTIME\tSTATUS\tVARIANTS\tFAILED ASSERTIONS\tSTARTED\tDURATION")
			for _, r := range runs {
				dur := "-"
				if r.Finished != nil {
					dur = r.Finished.Sub(r.Started).Round(time.Second).String()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d/%d\t%s\t%s\n", r.RunID, r.Lab, r.Scenario, r.Runtime, r.Status,
					r.Variants, r.AssertionsFailed, r.AssertionsTotal, r.Started.Format(time.RFC3339), dur)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&f.Lab, "lab", "", "only runs of this lab")
	cmd.Flags().StringVar(&f.Scenario, "scenario", "", "only runs of this scenario")
	cmd.Flags().StringVar(&f.Status, "status", "", "only runs with this status (running, passed, failed, interrupted, abandoned)")
	cmd.Flags().IntVar(&f.Limit, "limit", 50, "at most this many runs (0: all)")
	return cmd
}

// noRunsLine is what results list prints when no run matches f: with a
// filter, the values the stored runs have for each filter given, so that
// a typo in a filter is not read as "no runs at all".
func noRunsLine(s *results.Store, f results.Filter) string {
	const start = "no runs; start one with 'labctl run <scenario> --lab <lab>'"
	all, err := s.List(results.Filter{})
	if err == nil && len(all) == 0 {
		if n := s.Unindexed(); n > 0 {
			return fmt.Sprintf("no runs in the index, but %s in the results folder %s not in it (fix: run 'labctl results reindex')", plural.N(n, "run folder"), plural.Noun(n, "is"))
		}
	}
	if err != nil || len(all) == 0 || (f.Lab == "" && f.Scenario == "" && f.Status == "") {
		return start
	}
	var given, stored []string
	for _, c := range []struct {
		flag, val, plural string
		of                func(results.RunSummary) string
	}{
		{"--lab", f.Lab, "labs", func(r results.RunSummary) string { return r.Lab }},
		{"--scenario", f.Scenario, "scenarios", func(r results.RunSummary) string { return r.Scenario }},
		{"--status", f.Status, "statuses", func(r results.RunSummary) string { return r.Status }},
	} {
		if c.val == "" {
			continue
		}
		given = append(given, c.flag+" "+c.val)
		var vals []string
		for _, r := range all {
			if v := c.of(r); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		stored = append(stored, c.plural+" "+strings.Join(vals, ", "))
	}
	return fmt.Sprintf("no runs match %s; the %s stored have %s", strings.Join(given, " "), plural.N(len(all), "run"), strings.Join(stored, "; "))
}

func newResultsShowCmd(app *App) *cobra.Command {
	var f results.Filter
	cmd := &cobra.Command{
		Use:   "show <run-id|latest>",
		Short: "Show one run's variants and assertions",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			// The text summary reads no time series; the JSON is all of
			// the record.
			s, run, err := openRun(app, args[0], f, format == "json")
			if err != nil {
				return err
			}
			defer s.Close()
			if format == "json" {
				return results.RenderJSON(run, app.Out)
			}
			return writeRunText(app.Out, run, s.RunDir(run.RunID))
		},
	}
	runFilterFlags(cmd, &f)
	return cmd
}

func newResultsReindexCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild results/results.db from the run folders and settle crashed runs",
		Long: `reindex rebuilds the index results/results.db from the run folders, which
hold the truth. It also settles what crashed runs left behind: a record that
still says running although its process is gone is marked abandoned, and a
run folder whose run ended before any variant finished is removed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openResultsIn(app)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := s.Repair()
			if c := exitcode.Code(err); err != nil && c != exitcode.BadInput {
				return err // the index could not be rebuilt
			}
			fmt.Fprintf(app.Out, "indexed %s from %s", plural.N(r.Indexed, "run"), s.Dir())
			if r.Abandoned > 0 {
				fmt.Fprintf(app.Out, "; marked %d abandoned", r.Abandoned)
			}
			if r.Removed > 0 {
				fmt.Fprintf(app.Out, "; removed %d run folders without a finished variant", r.Removed)
			}
			fmt.Fprintln(app.Out)
			if err == nil {
				return nil
			}
			return exitcode.Usagef("some run folders were skipped (fix: correct or move them out of %s, then reindex again): %w", s.Dir(), err)
		},
	}
}

func newResultsRmCmd(app *App) *cobra.Command {
	var keep int
	var f results.Filter
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "rm [<run>...]",
		Short: "Remove runs: their folders and index rows",
		Long: `rm removes the named runs (ids, unique prefixes or latest) from results/,
folder and index row. With --keep N instead of names it removes every run
but the newest N, of the lab, scenario and status --lab, --scenario and
--status select. A run that a labctl run is still writing is never removed.
Saved baselines (results/baselines/) are copies and stay. --dry-run lists
what would go.`,
		Example: `  labctl results rm 20261206T141917Z-incast-16gpu
  labctl results rm --keep 10 --lab 1024gpu
  labctl results rm --keep 0 --status failed --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			keepSet := cmd.Flags().Changed("keep")
			switch {
			case len(args) == 0 && !keepSet:
				return exitcode.Usagef("name the runs to remove, or give --keep N to remove all but the newest N (see labctl results list)")
			case len(args) > 0 && (keepSet || f.Lab != "" || f.Scenario != "" || f.Status != ""):
				return exitcode.Usagef("give run names or --keep with its filters, not both")
			case keepSet && keep < 0:
				return exitcode.Usagef("--keep %d: keep 0 or more runs", keep)
			}
			if err := checkStatusFilter(f.Status); err != nil {
				return err
			}
			f.Lab = labFilterName(f.Lab)
			s, err := openResultsIn(app)
			if err != nil {
				return err
			}
			defer s.Close()
			var ids []string
			if keepSet {
				runs, err := s.List(f)
				if err != nil {
					return err
				}
				for i, r := range runs { // newest first
					if i >= keep {
						ids = append(ids, r.RunID)
					}
				}
			} else {
				for _, ref := range args {
					id, err := s.Resolve(ref, results.Filter{})
					if err != nil {
						return runRefError(err)
					}
					if !slices.Contains(ids, id) {
						ids = append(ids, id)
					}
				}
			}
			if dryRun {
				n := 0
				for _, id := range ids {
					if s.Writing(id) {
						// As RemoveRun refuses it.
						fmt.Fprintf(app.Out, "would keep %s: a labctl run is still writing it\n", id)
						continue
					}
					n++
					fmt.Fprintf(app.Out, "would remove %s\n", id)
				}
				fmt.Fprintf(app.Out, "would remove %s\n", plural.N(n, "run"))
				return nil
			}
			var errs []error
			removed := 0
			for _, id := range ids {
				if err := s.RemoveRun(id); err != nil {
					errs = append(errs, err)
					continue
				}
				removed++
				fmt.Fprintf(app.Out, "removed %s\n", id)
			}
			fmt.Fprintf(app.Out, "removed %s\n", plural.N(removed, "run"))
			return errors.Join(errs...)
		},
	}
	cmd.Flags().IntVar(&keep, "keep", 0, "remove every run but the newest N (of --lab, --scenario, --status)")
	cmd.Flags().StringVar(&f.Lab, "lab", "", "with --keep: runs of this lab only")
	cmd.Flags().StringVar(&f.Scenario, "scenario", "", "with --keep: runs of this scenario only")
	cmd.Flags().StringVar(&f.Status, "status", "", "with --keep: runs of this status only")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be removed, remove nothing")
	return cmd
}

func writeRunText(w io.Writer, run *results.Run, dir string) error {
	fmt.Fprintf(w, "run       %s\n", run.RunID)
	fmt.Fprintf(w, "status    %s", run.Status)
	if run.VariantsPlanned > len(run.Variants) {
		fmt.Fprintf(w, " (%d of %d variants", len(run.Variants), run.VariantsPlanned)
		if nr := run.NotRun(); nr != "" {
			fmt.Fprintf(w, "; not run: %s", nr)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
	if run.Error != "" {
		fmt.Fprintf(w, "error     %s\n", run.Error)
	}
	fmt.Fprintf(w, "scenario  %s on lab %s, runtime %s", run.Scenario, run.Lab, run.Runtime)
	if run.NOS != "" {
		fmt.Fprintf(w, " (%s)", run.NOS)
	}
	if im := run.Imported; im != nil {
		fmt.Fprintf(w, ", made from %s output (%s)\n", im.Tool, strings.Join(im.Files, ", "))
	} else {
		fmt.Fprintf(w, ", seed %d\n", run.Seed)
	}
	fmt.Fprintf(w, "started   %s\n", run.Started.UTC().Format(time.RFC3339))
	if run.Finished != nil {
		fmt.Fprintf(w, "finished  %s (%s)\n", run.Finished.UTC().Format(time.RFC3339), run.Finished.Sub(run.Started).Round(time.Second))
	}
	if run.ConfigDigest != "" {
		fmt.Fprintf(w, "configs   %s\n", run.ConfigDigest)
	}
	if run.SimRevision > 0 {
		fmt.Fprintf(w, "simulator revision %d\n", run.SimRevision)
	}
	var reports []string
	for _, name := range []string{results.ReportMarkdown, results.ReportHTML, results.ReportJUnit} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			reports = append(reports, filepath.Join(dir, name))
		}
	}
	if len(reports) > 0 {
		fmt.Fprintf(w, "reports   %s\n", reports[0])
		for _, r := range reports[1:] {
			fmt.Fprintf(w, "          %s\n", r)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	// The figures' columns and cells are labctl run's table's.
	sized := results.AnySized(run)
	fmt.Fprintln(tw, "VARIANT\t"+summaryColumns(sized)+"ASSERTIONS\tSOURCE\t")
	for i := range run.Variants {
		v := &run.Variants[i]
		pass := 0
		for _, a := range v.Assertions {
			if a.Passed {
				pass++
			}
		}
		res := fmt.Sprintf("%d/%d pass", pass, len(v.Assertions))
		if v.Error != "" {
			res = "error"
		}
		fmt.Fprintf(tw, "%s\t%s%s\t%s\t\n", v.Label(), summaryRow(v, sized), res, v.SourceLabel())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// A run with repetitions: each point's figures over them, the table
	// labctl run printed and the reports show.
	writeRepetitionSummary(w, run)
	for _, v := range run.Variants {
		if v.NCCL != nil {
			fmt.Fprintf(w, "\n%s\n", v.Name)
			if err := results.WriteNCCLTable(w, v.NCCL); err != nil {
				return err
			}
		}
	}
	for _, v := range run.Variants {
		if v.Error != "" {
			fmt.Fprintf(w, "\n%s: error: %s\n", v.Name, v.Error)
		}
		for _, a := range v.Assertions {
			if !a.Passed {
				fmt.Fprintf(w, "\nFAIL %s: %s: %s", v.Name, a.Name, a.Detail)
			}
		}
	}
	fmt.Fprintln(w)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// naCell is a summary's figure as a table cell: n/a when the summary lists
// the field as not computed, never a 0.
func naCell(s *results.Summary, field, value string) string {
	if slices.Contains(s.NotComputed, field) {
		return "n/a"
	}
	return value
}
