package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/cmd/labctl/internal/startheap"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

func newRunCmd(app *App) *cobra.Command {
	var labArg string
	var kube clabernetes.Target
	var seed int64
	var model string
	var parallel int
	var threads, partitions int
	var repetitions int
	cmd := &cobra.Command{
		Use:   "run <scenario> --lab <lab> [--seed N]",
		Short: "Run a scenario's variants on a lab that is up and record the results",
		Long: `run resolves the scenario (a catalog name: ` + strings.Join(scenario.CatalogNames(), ", ") + `, or a
file), expands its matrix (ECN and PFC on and off by default) into variants,
runs each on the lab's runtime and checks the scenario's assertions.

The "on" variants use the lab's vendor configs in topologies/<lab>/configs/
as they are (edits included); "off" removes that feature from every switch.
The record is written to results/<run-id>/run.json after every variant, so
Ctrl-C keeps the finished variants and marks the run interrupted; reports
(report.md, report.html, junit.xml) are written when the run ends. A run
that ends before any variant finished leaves no record. A run whose process
is killed shows as abandoned, and 'labctl results reindex' writes that into
its record.

Exit status: 0 all assertions passed, 1 an assertion failed or the run was
interrupted, 2 bad input (or the lab is not up), 3 the runtime is missing or
results/ cannot be written (the finished variants are printed anyway).`,
		Example: `  labctl up 64gpu && labctl run ecn-pfc --lab 64gpu
  labctl run baseline-bw --lab 16gpu --seed 7 -o json
  labctl run incast --lab 16gpu --repetitions 5
  labctl run ./my-scenario.yaml --lab 16gpu`,
		Args: func(cmd *cobra.Command, args []string) error {
			// "labctl run ecn-pfc 64gpu": the lab as a second word.
			if len(args) == 2 && !cmd.Flags().Changed("lab") {
				return exitcode.Usagef("run takes 1 argument, got 2: %q %q (usage: %s; fix: name the lab with --lab: labctl run %s --lab %s)", args[0], args[1], cmd.UseLine(), args[0], args[1])
			}
			return exactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			if threads < 0 {
				return exitcode.Usagef("--threads %d: give a positive number of threads, or leave it out to share the CPUs among the variants", threads)
			}
			if partitions < 0 {
				return exitcode.Usagef("--partitions %d: give a positive number (1: the sequential engine), or leave it out to let the fabric's size decide", partitions)
			}
			if labArg == "" {
				return exitcode.Usagef("no lab given: add --lab <lab> (a lab brought up with 'labctl up')")
			}
			sc, err := scenario.Resolve(args[0])
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("repetitions") {
				if sc, err = sc.WithRepetitions(repetitions); err != nil {
					return err
				}
			}
			if parallel < 1 {
				return exitcode.Usagef("-j %d: run at least one variant at a time (-j 1 runs them one by one)", parallel)
			}
			switch model {
			case "", runtime.ModelPacket, runtime.ModelFlow:
			default:
				return exitcode.Usagef("unknown --model %q: use packet (every packet simulated, the default) or flow (a steady-state estimate: %s)", model, runtime.FlowModelCaveat)
			}
			if m := cmp.Or(model, sc.Model); m != "" {
				// Refuse a scenario the model cannot run before anything
				// is written.
				if err := sc.CheckModel(m); err != nil {
					return err
				}
			}
			name, st, err := labState(app, labArg)
			if err != nil {
				return err
			}
			if !st.IsUp() {
				state := "was never brought up"
				if st != nil {
					state = "is " + st.State
				}
				return exitcode.Usagef("lab %s %s (fix: run 'labctl up %s' first)", name, state, labArg)
			}
			rt, err := runtimeByName(st.Runtime, kube)
			if err != nil {
				return err
			}
			if err := sc.CheckRuntime(rt); err != nil {
				return err
			}
			l, err := recordedLab(app, st)
			if err != nil {
				return err
			}
			// The lab runs as it was brought up: a spec edited since (more
			// GPUs, other switches) would run a fabric its topology and
			// configs were not made for.
			if why := st.NodesDiffer(l.Graph); why != "" {
				return exitcode.Usagef("lab %s: its spec %s now gives another fabric than the lab was brought up with: %s (fix: run 'labctl up %s' to bring the lab up as the spec is now, or restore the spec)", name, st.Spec, why, labArg)
			}
			l.Dir = labDir(app, name)
			// Check the lab's QoS intent before a run folder exists: an
			// invalid one must not leave an empty run behind.
			in, err := l.Intent()
			if err != nil {
				return fmt.Errorf("lab %s: %w", name, err)
			}
			// The input checks are done; what follows (the configs'
			// parse, the simulation) allocates tens of MiB on a lab of
			// some size, in huge pages where the kernel gives them on
			// request.
			nics := scenario.NICsFromGraph(l.Graph)
			if runWantsHugePages(len(nics)) {
				startheap.HugePages()
			}
			// What the switches do with their configs, and what lint says
			// of them, go into the record; lint errors are worth a word
			// before the run starts (it simulates the configs as they are).
			qosRecord, err := labQoSRecord(l, in, sc.TrafficDSCPs())
			if err != nil {
				return err
			}
			if qosRecord.lint != nil && qosRecord.lint.Errors > 0 && format == "text" {
				fmt.Fprintf(app.Err, "warning: the configs of lab %s have %s; the run simulates them as they are ('labctl config lint %s' lists every finding):\n", name, plural.N(qosRecord.lint.Errors, "lint error"), labArg)
				shown := 0
				for _, g := range qos.GroupDevices(qosRecord.lint.Findings) {
					if g.Severity != qos.SevError || shown == 5 {
						continue
					}
					shown++
					fmt.Fprintf(app.Err, "  %s %s: %s\n", g.Rule, g.ShortPlace(), g.Message)
				}
			}
			// A traffic_class that reads as a DSCP written for the TOS
			// byte (26 for DSCP 26) runs as best effort, and every PFC
			// and ECN assertion fails with nothing saying why: say it.
			if !l.InfiniBand() {
				for _, w := range sc.TrafficClassWarnings(func(dscp int) bool { return qosRecord.losslessDSCP[dscp] }) {
					fmt.Fprintf(app.Err, "warning: %s\n", w)
				}
			}
			store, err := results.Open(app.ResultsDir())
			if err != nil {
				return exitcode.Env(err)
			}
			defer store.Close()
			started := time.Now().UTC()
			// The lock is held until the last save: a reader that finds it
			// free while the record says running knows the run was
			// abandoned.
			id, lock, writer, err := store.StartRun(started, sc.Name, name)
			if err != nil {
				return err
			}
			defer lock.Release()
			digest, err := runtime.ConfigDigest(l)
			if err != nil {
				app.Log.Warn("the run records no config digest", "err", err)
			}
			run := &results.Run{
				RunID: id, Lab: name, Scenario: sc.Name, Runtime: rt.Name(), NOS: l.NOS,
				Seed: seed, Started: started, ConfigDigest: digest, ScenarioYAML: sc.Text(), ScenarioFile: scenarioFile(sc.Source), Writer: writer,
				QoS: qosRecord.settings, Classes: qosRecord.classes, Lint: qosRecord.lint,
			}
			// saveErr is the last save's: when it failed, the record on
			// disk is the one of the save before, whatever the run reached.
			var saveErr error
			runner := &scenario.Runner{
				Runtime:    rt,
				Lab:        l,
				NICs:       nics,
				MTU:        in.MTU,
				Model:      model,
				Parallel:   parallel,
				Threads:    threads,
				Partitions: partitions,
				Save:       func(r *results.Run) error { saveErr = store.SaveRun(r); return saveErr },
				Progress:   app.progressWriter(format),
				// A QoS sweep's per-variant switch configs, for
				// 'labctl config diff'; the lab's stay as they are.
				ConfigsDir: filepath.Join(store.RunDir(id), "configs"),
			}
			// The set-up's garbage is collected now, so that the
			// simulator's arrays reuse its pages.
			startheap.Collect()
			runErr := runner.Run(cmd.Context(), sc, run)
			if runErr != nil && len(run.Variants) == 0 {
				// Nothing finished: keep no record that could become
				// "latest" or a baseline.
				lock.Release()
				if err := store.DeleteRun(id); err != nil {
					app.Log.Warn("could not remove the empty run "+id, "err", err)
				}
				if errors.Is(runErr, scenario.ErrInterrupted) {
					return exitcode.Failedf("run interrupted before any variant finished; nothing was recorded")
				}
				return runErr
			}
			if runErr != nil && !errors.Is(runErr, scenario.ErrInterrupted) {
				// The run stopped on an error (results/ could not be
				// written, the lab could not carry a variant): print what
				// finished, so nothing finished is lost, then the error.
				if saveErr != nil {
					// Not saved (at any save, the last too): readers will
					// find the record of the save before, abandoned, and so
					// does this summary.
					run.Status = results.StatusAbandoned
					run.Error = "the record could not be saved: " + runErr.Error()
				}
				app.printRun(format, run, store.RunDir(id))
				return runErr
			}
			lock.Release()
			var topo bytes.Buffer
			if err := l.Graph.WriteMermaid(&topo); err != nil {
				app.Log.Warn("no topology diagram for the report", "err", err)
			}
			if err := results.WriteRunReports(store.RunDir(id), run, topo.String()); err != nil {
				app.printRun(format, run, store.RunDir(id))
				return err
			}
			if err := app.printRun(format, run, store.RunDir(id)); err != nil {
				return err
			}
			switch {
			case runErr != nil:
				return exitcode.Failed(runErr)
			case run.Status == results.StatusFailed:
				return exitcode.Failedf("run %s failed: %s", id, failureSummary(run))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&labArg, "lab", "", "the lab to run on (must be up)")
	cmd.Flags().Int64Var(&seed, "seed", 1, "random seed: the same seed gives the same results")
	cmd.Flags().IntVarP(&parallel, "jobs", "j", goruntime.NumCPU(), "variants simulated at once (the record is the same whatever the number); a live lab runs one at a time")
	cmd.Flags().IntVar(&threads, "threads", 0, "threads each simulated variant runs on (the record is the same whatever the number); default: the CPUs shared among the variants running at once, the last ones taking over what the others leave")
	cmd.Flags().IntVar(&partitions, "partitions", 0, "split of the fabric the simulator's parallel engine advances in parallel: like --seed, it is part of what the results depend on and the record keeps it; default: by the fabric's size (one below 256 NICs, then one per 128 NICs up to 16), 1: the sequential engine; N asks for up to N, and the run cost says why where the fabric splits into fewer")
	cmd.Flags().IntVar(&repetitions, "repetitions", 0, "run every variant this many times, repetition r at seed + r (the scenario's repetitions key; the record's scenario says it): 'labctl regress' compares runs with repetitions as samples, which runs at other seeds need")
	cmd.Flags().StringVar(&model, "model", "", "simulation model: packet (every packet, the default) or flow (a fast steady-state estimate without queues, PFC, ECN or DCQCN); default: the scenario's")
	_ = cmd.RegisterFlagCompletionFunc("lab", completeLabs)
	addKubeFlags(cmd, &kube)
	return cmd
}

// printRun prints a run as -o asks: the record as JSON, or the summary.
func (a *App) printRun(format string, run *results.Run, dir string) error {
	if format == "json" {
		return results.RenderJSON(run, a.Out)
	}
	// One write for the whole summary, not one per line: the summary
	// of a one-variant run was some 70 write calls.
	w := bufio.NewWriter(a.Out)
	writeRunSummary(w, run, dir)
	return w.Flush()
}

// failureSummary counts what failed.
func failureSummary(run *results.Run) string {
	var failed, errs []string
	for _, v := range run.Variants {
		if v.Error != "" {
			errs = append(errs, v.Name+": "+v.Error)
		}
		for _, a := range v.Assertions {
			if !a.Passed {
				failed = append(failed, fmt.Sprintf("%s [%s]", a.Name, v.Name))
			}
		}
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, fmt.Sprintf("%s failed: %s", plural.N(len(failed), "assertion"), strings.Join(failed, "; ")))
	}
	if len(errs) > 0 {
		parts = append(parts, fmt.Sprintf("%s could not run: %s", plural.N(len(errs), "variant"), strings.Join(errs, "; ")))
	}
	return strings.Join(parts, "; ")
}

// writeRunSummary prints one summary row per variant, then for each
// variant the throughput of each flow role, its assertions and what it
// cost.
func writeRunSummary(w io.Writer, run *results.Run, dir string) {
	fmt.Fprintf(w, "run %s: scenario %s on lab %s (%s", run.RunID, run.Scenario, run.Lab, run.Runtime)
	if run.NOS != "" {
		fmt.Fprintf(w, ", %s", run.NOS)
	}
	fmt.Fprintf(w, "), seed %d: %s\n", run.Seed, strings.ToUpper(run.Status))
	for _, d := range run.Sweep {
		fmt.Fprintf(w, "sweep: %s over %s\n", d.Path, strings.Join(d.Values, ", "))
	}
	if run.Model == runtime.ModelFlow {
		fmt.Fprintf(w, "estimated by the %s; n/a: what it does not compute\n", runtime.FlowModelCaveat)
	}
	fmt.Fprintln(w)
	// Sized flows that all completed have a completion time and an
	// aggregate goodput: all their bytes over the last completion, the
	// figure that cannot exceed a receiver's port (the sum of per-flow
	// goodputs can, when flows finish at different times).
	sized := results.AnySized(run)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "VARIANT\t"+summaryColumns(sized))
	for i := range run.Variants {
		fmt.Fprintln(tw, run.Variants[i].Label()+"\t"+summaryRow(&run.Variants[i], sized))
	}
	tw.Flush()
	writeRepetitionSummary(w, run)
	// The columns cover different spans; say which, so that a pause count
	// from the first burst is not read as the converged state.
	fmt.Fprintln(w, "\nGb/s, MIN FLOW, JAIN (all flows) and P99: the measurement window after the scenario's warmup.")
	if sized {
		fmt.Fprintln(w, "Gb/s is the throughput total, DONE us and AGG Gb/s the done and aggregate columns. "+results.SizedFlowsNote)
	}
	fmt.Fprintln(w, "DROPS, PAUSES, PAUSED us, ECN MARKS, CNPS, RETRANSMITS: the whole run, summed over ports and priorities.")
	if f := results.FiguresText(run); f != "" {
		fmt.Fprintf(w, "Figures: %s.\n", f)
	}
	for _, v := range run.Variants {
		fmt.Fprintf(w, "\n%s", v.Name)
		if roles := roleThroughput(v); roles != "" {
			fmt.Fprintf(w, " (%s)", roles)
		}
		fmt.Fprintln(w)
		if v.Error != "" {
			fmt.Fprintf(w, "  ERROR %s\n", v.Error)
		}
		writeFailedFlows(w, v)
		for _, a := range v.Assertions {
			mark := "PASS"
			if !a.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "  %s %s: %s\n", mark, a.Name, a.Detail)
		}
		for _, l := range results.TransportLines(v) {
			fmt.Fprintf(w, "  %s\n", l)
		}
		for _, l := range results.CostLines(v) {
			fmt.Fprintf(w, "  %s\n", l)
		}
		if v.NCCL != nil {
			// nccl-tests' own table, unindented, so that it reads (and
			// compares) as a cluster's run of the same test prints it.
			fmt.Fprintln(w)
			_ = results.WriteNCCLTable(w, v.NCCL)
		}
	}
	if ar, ok := run.Extra["allreduce"].(map[string]any); ok {
		// A sweep of the ring's ranks, bytes or placement gives each
		// point its own theory (the variant's theoretical_us).
		perPoint := slices.ContainsFunc(run.Variants, func(v results.Variant) bool {
			x, ok := v.Extra["allreduce"].(map[string]any)
			return ok && x["theoretical_us"] != ar["theoretical_us"]
		})
		scope := "on this fabric"
		if perPoint {
			scope = "for the file's values (each swept point's below)"
		}
		fmt.Fprintf(w, "\nring AllReduce: %v ranks, %v transfers per round cross the spines, theory %v us %s\n",
			ar["ranks"], firstOf(ar["crossing_spine_per_round"]), ar["theoretical_us"], scope)
		for _, v := range run.Variants {
			x, ok := v.Extra["allreduce"].(map[string]any)
			theory := "x theory"
			if perPoint {
				theory = fmt.Sprintf("x its theory of %v us", x["theoretical_us"])
			}
			switch {
			case !ok:
			case x["model"] == runtime.ModelFlow:
				fmt.Fprintf(w, "  %s: estimated %v us (%v %s) by the %s\n",
					v.Name, x[runtime.AllReduceEstimatedUs], x[runtime.AllReduceEstimatedRatio], theory, runtime.FlowModelCaveat)
			default:
				fmt.Fprintf(w, "  %s: simulated %v us (%v %s), AllGather congests more: %v (%v)\n",
					v.Name, x[runtime.AllReduceSimulatedUs], x[runtime.AllReduceSimulatedRatio], theory, x["allgather_congests_more"], x["congestion_comparison"])
			}
		}
	}
	fmt.Fprintf(w, "\nrecord and reports: %s\n", filepath.Join(dir, results.RunFile))
	if slices.ContainsFunc(run.Variants, func(v results.Variant) bool { return v.Configs != nil && v.Configs.Dir != "" }) {
		fmt.Fprintf(w, "switch configs per variant: %s/ (labctl config diff <lab's configs> <variant's folder>)\n", filepath.Join(dir, "configs"))
		for _, v := range run.Variants {
			if v.Configs == nil || len(v.Configs.NotInFiles) == 0 {
				continue
			}
			list := v.Configs.NotInFiles
			more := ""
			if len(list) > maxNotInFilesLines {
				list, more = list[:maxNotInFilesLines], fmt.Sprintf("; and %d more (run.json: configs.not_in_files)", len(v.Configs.NotInFiles)-maxNotInFilesLines)
			}
			fmt.Fprintf(w, "  %s: its files cannot carry %s, which the simulator ran (the NOS's config has no statement for them): %s%s\n",
				v.Label(), plural.N(len(v.Configs.NotInFiles), "change"), strings.Join(list, "; "), more)
		}
	}
}

// maxNotInFilesLines caps the changes a variant's kept files cannot carry
// that the summary lists; run.json lists them all.
const maxNotInFilesLines = 3

// maxFailedFlowLines caps the failed flows listed per variant; run.json
// and the reports list them all.
const maxFailedFlowLines = 8

// writeFailedFlows lists a variant's failed flows with their reasons: a
// failed QP's throughput is what it delivered before it failed, which
// the summary row alone would show as a slow flow.
func writeFailedFlows(w io.Writer, v results.Variant) {
	n := results.CountFailed(v.Flows)
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "  FAILED %d of %d flows (summary.failed_flows):\n", n, len(v.Flows))
	shown := 0
	for _, f := range v.Flows {
		if f.State != results.FlowFailed {
			continue
		}
		if shown == maxFailedFlowLines {
			fmt.Fprintf(w, "    and %d more (see the reports)\n", n-int64(shown))
			break
		}
		shown++
		fmt.Fprintf(w, "    %s: %s\n", f.ID, f.Reason)
	}
}

func firstOf(v any) any {
	if s, ok := v.([]int); ok && len(s) > 0 {
		return s[0]
	}
	return "-"
}

// roleThroughput sums throughput per flow role: "incast 71.3 Gb/s, victim
// 187.6 Gb/s"; a latency role, which has no throughput, gives its worst
// pair's one-way t_typical: "latency 1.13 us", or why it has none.
func roleThroughput(v results.Variant) string {
	sum := map[string]float64{}
	lat, noLat := map[string]bool{}, map[string]bool{}
	why := map[string]string{} // a role's first flow without a latency: why
	var order []string
	for _, f := range v.Flows {
		r := f.Role
		if r == "" {
			r = f.Pattern
		}
		if _, ok := sum[r]; !ok {
			order = append(order, r)
		}
		switch {
		case f.HasThroughput():
			sum[r] += f.ThroughputGbps
		case f.LatencyUs != nil:
			lat[r] = true
			sum[r] = max(sum[r], f.LatencyUs.P50)
		default:
			lat[r], noLat[r] = true, true
			if why[r] == "" {
				why[r] = f.Reason
			}
		}
	}
	slices.Sort(order)
	var parts []string
	for _, r := range order {
		switch {
		case noLat[r] && why[r] != "":
			parts = append(parts, fmt.Sprintf("%s no latency measured: %s", r, strings.TrimPrefix(why[r], "no latency: ")))
			continue
		case noLat[r]:
			parts = append(parts, r+" no latency measured")
			continue
		case lat[r]:
			parts = append(parts, fmt.Sprintf("%s %.2f us", r, sum[r]))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.1f Gb/s", r, sum[r]))
	}
	return strings.Join(parts, ", ")
}

// labQoS is what a run records of the lab's switch configs.
type labQoS struct {
	settings []qos.Settings
	classes  []qos.ClassRow
	lint     *results.LintSummary
	// losslessDSCP says which DSCPs some fabric port of a switch
	// classifies into a lossless class.
	losslessDSCP [64]bool
}

// labQoSRecord resolves the lab's configs and lints them. Configs that do
// not load are the run's error, before it starts: every variant runs on
// them, and each failed with the same error under its own name. The class
// table holds RoCE's classes and those of trafficDSCPs, the DSCPs the
// scenario's traffic is sent with (best effort's class beside RoCE's).
func labQoSRecord(l *runtime.Lab, in qos.Intent, trafficDSCPs []int) (labQoS, error) {
	if l.InfiniBand() {
		return labQoS{}, nil // no vendor configs: nothing to resolve or lint
	}
	// Read, not changed: the configs the later loads copy, not a copy.
	cfgs, err := runtime.LoadConfigsToRead(l)
	if err != nil {
		return labQoS{}, err
	}
	var out labQoS
	for i := range cfgs {
		out.settings = append(out.settings, qos.Summarize(&cfgs[i]))
		out.classes = append(out.classes, qos.ClassTable(&cfgs[i], "", qos.ClassesOf(&cfgs[i], append([]int{in.RoCEDSCP, in.CNPDSCP}, trafficDSCPs...)...))...)
		for j := range cfgs[i].Ports {
			if p := &cfgs[i].Ports[j]; p.Fabric {
				for _, d := range p.LosslessDSCPs() {
					out.losslessDSCP[d] = true
				}
			}
		}
	}
	fs := qos.Lint(cfgs, runtime.LintOptions(l.Graph, in, l.Spec))
	out.lint = results.NewLintSummary(fs)
	return out, nil
}

// summaryColumns are the figure columns of a run's table, which labctl
// run and results show print alike. Units keep their case in the
// upper-case header: Gb/s is gigabits (GB/S would read as gigabytes), us
// microseconds. With sized flows (results.AnySized) the completion and the
// aggregate goodput follow.
func summaryColumns(sized bool) string {
	head := "Gb/s\tMIN FLOW\tJAIN\tDROPS\tPAUSES\tPAUSED us\tECN MARKS\tCNPS\tRETRANSMITS\tP99 us\t"
	if sized {
		head += "DONE us\tAGG Gb/s\t"
	}
	return head
}

// summaryRow is a variant's figures under summaryColumns, each cell ended
// by a tab: n/a where its model does not compute one, "error" and empty
// cells for a variant that could not run.
func summaryRow(v *results.Variant, sized bool) string {
	n := 10
	if sized {
		n += 2
	}
	if v.Error != "" {
		return "error" + strings.Repeat("\t", n)
	}
	s := v.Summary
	cell := func(field, value string) string { return naCell(&s, field, value) }
	cells := []string{
		cell("throughput_gbps_total", oneDecimal(s.ThroughputGbpsTotal)), cell("throughput_gbps_min_flow", oneDecimal(s.ThroughputGbpsMinFlow)),
		cell("jain_fairness", fmt.Sprintf("%.3f", s.JainFairness)),
		cell("drops", fmt.Sprint(s.Drops)), cell("pfc_pause_frames", fmt.Sprint(s.PFCPauseFrames)),
		cell("pfc_pause_us", oneDecimal(s.PFCPauseUs)), cell("ecn_marked", fmt.Sprint(s.ECNMarked)),
		cell("cnp", fmt.Sprint(s.CNP)), cell("retransmits", fmt.Sprint(s.Retransmits)),
		cell("latency_us_p99", oneDecimal(s.LatencyUsP99)),
	}
	if sized {
		done, agg := "-", "-"
		if s.CompletionUs != nil && s.GoodputGbpsAggregate != nil {
			done, agg = oneDecimal(*s.CompletionUs), oneDecimal(*s.GoodputGbpsAggregate)
		}
		cells = append(cells, done, agg)
	}
	return strings.Join(cells, "\t") + "\t"
}

// oneDecimal prints a summary figure to one decimal, as the run's table
// does, but a figure that is not 0 and would print as 0.0 (a flow that
// moved 0.033 Gb/s) to two significant digits: 0.0 would read as nothing
// delivered.
func oneDecimal(v float64) string {
	if v != 0 && math.Abs(v) < 0.05 {
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// runHugePagesNICs is the lab size (NICs) from which `labctl run` readies
// huge pages for its heap (startheap.HugePages). Below it a run allocates a
// few MiB, and readying (a collection, and 2 MiB zeroed at each first
// touch) costs more than the 4 KiB page faults it spares: the bench incast
// (9 NICs, one switch) took 56.9 against 60.7 ms of CPU without it (12
// interleaved pairs, all lower; 1,753 against 1,658 page faults), its 4 KB
// variant 13.4 against 17.2 ms, on 2026-12-06's VM (a page fault 1.2 µs);
// on 2026-12-05's (10.5 µs) the incast was already 1-3% slower with it. The
// catalog's smallest lab, 16gpu, took 27,000 against 3,800 page faults
// without and with (845 against 567 ms there).
const runHugePagesNICs = 16

// runWantsHugePages says whether a run on a lab of nics NICs readies huge
// pages for its heap.
func runWantsHugePages(nics int) bool { return nics >= runHugePagesNICs }

// writeRepetitionSummary prints, for a run whose points ran more than
// once, each point's figures over its repetitions (results.RepetitionStats):
// the mean, and for rates, fairness and latency their range. Nothing for a
// run of one repetition a point.
func writeRepetitionSummary(w io.Writer, run *results.Run) {
	stats := results.RepetitionStats(run)
	if stats == nil {
		return
	}
	fmt.Fprintf(w, "\nover the repetitions (%s): the mean, and for rates, fairness and latency min-max\n", results.RepetitionSeeds(run.Seed))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "POINT\tRUNS\t%s\t\n", strings.Join(results.RepetitionColumns, "\t"))
	for _, ps := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%s\t\n", ps.Name, ps.Runs, strings.Join(ps.Cells, "\t"))
	}
	tw.Flush()
}

// scenarioFile is the absolute path of a scenario read from a file, ""
// for a catalog one: the record keeps it, so that a message can say how to
// run the scenario again from any directory.
func scenarioFile(source string) string {
	if !specyaml.IsFileSource(source) {
		return ""
	}
	return specyaml.AbsSource(source)
}
