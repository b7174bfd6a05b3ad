package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/hoststat"
	"github.com/labctl/labctl/orchestrator/nccltests"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/suggest"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// parseKind is one kind of output `labctl parse` reads.
type parseKind struct {
	// what is the command whose output it is, or that output, read after
	// "the complete output of" in errors: no "output" word of its own.
	what  string
	parse func(io.Reader, parseOptions) (any, error)
}

// parseOptions are what a parser is told beside its input.
type parseOptions struct {
	// collective is nccl-tests' --collective.
	collective string
}

// plain adapts a parser that takes nothing but its input.
func plain[T any](parse func(io.Reader) (T, error)) func(io.Reader, parseOptions) (any, error) {
	return func(r io.Reader, _ parseOptions) (any, error) { return parse(r) }
}

// perftestBW and perftestLat adapt perftest's parsers to the kind of a
// test: output of another (its banner names it) is refused.
func perftestBW(t perftest.Test) func(io.Reader, parseOptions) (any, error) {
	return func(r io.Reader, _ parseOptions) (any, error) { return perftest.ParseBWOf(r, t) }
}

func perftestLat(t perftest.Test) func(io.Reader, parseOptions) (any, error) {
	return func(r io.Reader, _ parseOptions) (any, error) { return perftest.ParseLatOf(r, t) }
}

// parseKinds lists the kinds by their stable CLI names.
func parseKinds() map[string]parseKind {
	return map[string]parseKind{
		"ib_write_bw":             {"ib_write_bw (text, or --out_json of perftest 4.5 or 24.x)", perftestBW(perftest.WriteBW)},
		"ib_write_lat":            {"ib_write_lat (text, or --out_json of perftest 4.5 or 24.x)", perftestLat(perftest.WriteLat)},
		"ib_read_bw":              {"ib_read_bw (as ib_write_bw's)", perftestBW(perftest.ReadBW)},
		"ib_read_lat":             {"ib_read_lat (as ib_write_lat's)", perftestLat(perftest.ReadLat)},
		"ib_send_bw":              {"ib_send_bw (as ib_write_bw's)", perftestBW(perftest.SendBW)},
		"ib_send_lat":             {"ib_send_lat (as ib_write_lat's)", perftestLat(perftest.SendLat)},
		"ib_atomic_bw":            {"ib_atomic_bw (as ib_write_bw's)", perftestBW(perftest.AtomicBW)},
		"ib_atomic_lat":           {"ib_atomic_lat (as ib_write_lat's)", perftestLat(perftest.AtomicLat)},
		"sonic-pfc-counters":      {"SONiC `show pfc counters`", plain(sonic.ParsePFCCounters)},
		"sonic-queue-counters":    {"SONiC `show queue counters`", plain(sonic.ParseQueueCounters)},
		"sonic-wred-counters":     {"SONiC `show queue wredcounters`", plain(sonic.ParseWREDCounters)},
		"sonic-port-counters":     {"SONiC `show interfaces counters`", plain(sonic.ParsePortCounters)},
		"eos-pfc-counters-json":   {"EOS `show priority-flow-control counters | json`", plain(eos.ParsePFCCounters)},
		"eos-queue-counters-json": {"EOS `show interfaces counters queue detail | json`", plain(eos.ParseQueueCounters)},
		"eos-ecn-counters-json":   {"EOS `show qos interfaces ecn counters queue | json`", plain(eos.ParseECNCounters)},
		"rdma-statistic":          {"`rdma statistic show link <dev>/<port>` (soft-RoCE counters)", plain(hoststat.ParseRDMAStatistic)},
		"ethtool-stats":           {"`ethtool -S <iface>`", plain(hoststat.ParseEthtoolStats)},
		ncclTestsKind:             {"nccl-tests (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, broadcast_perf, sendrecv_perf)", parseNCCLTests},
	}
}

func parseKindNames() []string {
	kinds := parseKinds()
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// positioned is implemented by the parsers' errors: the 1-based line the
// error refers to, 0 for the input as a whole.
type positioned interface{ Position() int }

func newParseCmd(app *App) *cobra.Command {
	var b strings.Builder
	for _, k := range parseKindNames() {
		fmt.Fprintf(&b, "  %-24s %s\n", k, parseKinds()[k].what)
	}
	var opt parseOptions
	var rec ncclRecordFlags
	cmd := &cobra.Command{
		Use:   "parse <kind> <file> | parse nccl-tests <file>... --record --lab <lab> --scenario <scenario> [--variant <name>]...",
		Short: "Parse saved switch, NIC, perftest or nccl-tests output into JSON",
		Long: `parse reads what a command printed on a live lab or a cluster (a switch
counter table, perftest's report, host RDMA counters, nccl-tests' table)
from <file>, or stdin when <file> is -, and prints it as JSON:

  {"schema_version": 1, "kind": "<kind>", "source": "<file>", "result": {...}}

Counters the device printed as N/A (or "-" on EOS) are null or absent,
never 0. Input that is truncated, garbled or of another kind is an error
naming the file and line (exit 2), and so is a file holding two runs
(outputs appended with >>): split it, one run per file.

perftest: the tests of every verb (ib_write_bw, ib_read_bw, ib_send_bw,
ib_atomic_bw, and their _lat siblings) print the same report, so the kind
must be the test the output's banner (or its --out_json test_info) names:
output of another test is refused naming the kind to give, so that one
verb's figures never pass for another's. Output without a banner is read
as the kind given.

nccl-tests: the result is the table as labctl records it (the "nccl" of a
run record's variant), marked measured. Which collective it is comes from
the program name nccl-tests 2.16.7 and later print, else from a command
line in the output, else from the figures (the columns, the reduction,
the root, how size, count, algbw and busbw relate); --collective names it
when the output cannot tell (all_gather and alltoall print alike). Every
row is checked against nccl-tests' own arithmetic, and the trailer's
"Out of bounds values" against the rows' #wrong, so an edited or garbled
table is refused rather than read.

With --record it prints a run record instead (the run.json shape: runtime
live, one variant per file holding its table, every other figure absent),
which 'labctl regress' compares with a simulated run of the same scenario
and lab, or with another such record; --save stores it under results/ as a
run (reports included) instead of printing it. --lab and --scenario name
what it is compared with (a catalog name or file is checked: the variants
must be the scenario's; any other name is taken as it is), --variant names
each file's variant in the scenario's terms (default ecn=on,pfc=on: a
cluster runs with ECN and PFC as configured). A variant of the simulated
run that the record lacks is listed, not a regression. An output whose
trailer says nccl-tests found wrong values ("Out of bounds values : N
FAILED") makes a failed record: its variant's error says so, as a
warning does, and 'labctl regress --save-baseline' refuses it.

Kinds:
` + b.String(),
		Example: `  labctl parse sonic-pfc-counters leaf1-pfc.txt
  ssh leaf1 show queue counters | labctl parse sonic-queue-counters -
  labctl parse ib_write_bw h1-bw.txt -o json
  labctl parse nccl-tests all_reduce.txt
  labctl parse nccl-tests a2a.txt --collective alltoall
  labctl parse nccl-tests ring.txt tree.txt --record --lab 64gpu --scenario nccl-allreduce \
      --variant 'ecn=on,pfc=on,traffic[0].algorithm=ring' \
      --variant 'ecn=on,pfc=on,traffic[0].algorithm=tree' > measured.json
  labctl regress latest --baseline measured.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if rec.record || rec.save {
				return minArgs(2)(cmd, args)
			}
			return exactArgs(2)(cmd, args)
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			switch len(args) {
			case 0:
				var out []string
				for _, k := range parseKindNames() {
					if strings.HasPrefix(k, toComplete) {
						out = append(out, k+"\t"+parseKinds()[k].what)
					}
				}
				return out, cobra.ShellCompDirectiveNoFileComp
			case 1:
				return nil, cobra.ShellCompDirectiveDefault // a file name
			}
			if rec.record || rec.save {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := app.OutputFormat("json", "json"); err != nil {
				return err
			}
			kind, files := args[0], args[1:]
			k, ok := parseKinds()[kind]
			if !ok {
				names := parseKindNames()
				fix := "use one of " + strings.Join(names, ", ")
				if near := suggest.Nearest(kind, names); near != "" {
					fix = "did you mean " + near + "? " + fix
				}
				return exitcode.Usagef("unknown kind %q (fix: %s)", kind, fix)
			}
			if kind != ncclTestsKind {
				for _, f := range []string{"collective", "record", "save", "lab", "scenario", "variant"} {
					if cmd.Flags().Changed(f) {
						return exitcode.Usagef("--%s applies to nccl-tests output only, not to %s (fix: drop --%s)", f, kind, f)
					}
				}
			}
			if opt.collective != "" {
				if _, err := nccltests.CollectiveName(opt.collective); err != nil {
					return exitcode.Usagef("--collective: %v", err)
				}
			}
			if rec.record || rec.save {
				return recordNCCLTests(cmd, app, files, opt, rec)
			}
			for _, f := range []string{"lab", "scenario", "variant"} {
				if cmd.Flags().Changed(f) {
					return exitcode.Usagef("--%s names what a run record is compared with (fix: add --record, or --save, or drop --%s)", f, f)
				}
			}
			v, name, err := parseFile(cmd, k, kind, files[0], opt)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(app.Out)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(struct {
				SchemaVersion int    `json:"schema_version"`
				Kind          string `json:"kind"`
				Source        string `json:"source"`
				Result        any    `json:"result"`
			}{1, kind, name, v})
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.collective, "collective", "", "nccl-tests: the collective, when the output does not name its program: "+strings.Join(results.NCCLCollectives, ", "))
	f.BoolVar(&rec.record, "record", false, "nccl-tests: print a run record (run.json) of the files, one variant each, for labctl regress")
	f.BoolVar(&rec.save, "save", false, "nccl-tests: store the run record under results/ as a run (with its reports) instead of printing it")
	f.StringVar(&rec.lab, "lab", "", "nccl-tests --record: the lab the record is compared with (a catalog name, a spec file, or a name)")
	f.StringVar(&rec.scenario, "scenario", "", "nccl-tests --record: the scenario the record is compared with (a catalog name, a file, or a name)")
	f.StringArrayVar(&rec.variants, "variant", nil, "nccl-tests --record: each file's variant, in order, as the scenario names them (default ecn=on,pfc=on for one file)")
	_ = cmd.RegisterFlagCompletionFunc("lab", completeLabs)
	_ = cmd.RegisterFlagCompletionFunc("collective", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return results.NCCLCollectives, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// parseFile parses one input (a file, or - for stdin) as kind, and
// returns the result and the input's name; errors name the file and line.
func parseFile(cmd *cobra.Command, k parseKind, kind, file string, opt parseOptions) (any, string, error) {
	in, name, closeIn, err := openParseInput(cmd, file)
	if err != nil {
		return nil, "", err
	}
	defer closeIn()
	// Every kind reads its input without a leading byte-order mark: one
	// place for all of them, where each parser found its header or its
	// JSON behind it, or not.
	v, err := k.parse(textparse.SkipBOM(in), opt)
	if err != nil && cmd.Context() != nil && cmd.Context().Err() != nil {
		return nil, "", exitcode.Failedf("parse %s: interrupted before the input ended", name)
	}
	if err != nil {
		return nil, "", parseInputError(name, kind, err)
	}
	return v, name, nil
}

func openParseInput(cmd *cobra.Command, file string) (io.Reader, string, func(), error) {
	if file == "-" {
		return interruptible(cmd.Context(), cmd.InOrStdin()), "<stdin>", func() {}, nil
	}
	f, err := readlimit.Open(file, readlimit.Output)
	if err != nil {
		var nr *readlimit.NotRegularError
		switch {
		case errors.As(err, &nr):
			nr.Fix = "save the command's output to a file and give its path, or pipe it to 'labctl parse " + cmd.Flags().Arg(0) + " -'"
			return nil, "", nil, err
		case errors.Is(err, os.ErrNotExist):
			return nil, "", nil, exitcode.Usagef("%s: no such file: give the path of saved command output, or - for stdin", file)
		}
		return nil, "", nil, exitcode.Usagef("open %s: %v", file, err)
	}
	return f, file, func() { f.Close() }, nil
}

// interruptible reads r in a goroutine, so that Ctrl-C ends a read of a
// terminal (or of a pipe whose writer never writes nor closes) that would
// otherwise hold the command until the input ends: labctl catches the
// signal to stop runs cleanly, so it does not kill the process. The
// abandoned read ends with the process.
func interruptible(ctx context.Context, r io.Reader) io.Reader {
	if ctx == nil {
		return r
	}
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte // what the goroutine reads into; reused once it returns
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, errInterruptedRead
	}
	// The read fills a buffer of its own, since p must not be written once
	// Read has returned; a pipe gives at most 64 KiB a read anyway.
	if c.buf == nil {
		c.buf = make([]byte, 64<<10)
	}
	buf := c.buf[:min(len(p), len(c.buf))]
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		return 0, errInterruptedRead
	}
}

var errInterruptedRead = errors.New("interrupted while reading standard input")

// parseInputError puts the file and line in front of a parser's error, in
// the file:line: form editors jump to, and says what input was expected.
func parseInputError(name, kind string, err error) error {
	var tl *readlimit.TooLargeError
	if errors.As(err, &tl) {
		tl.Name = name
		return exitcode.Usage(tl)
	}
	fix := fmt.Sprintf(" (parsing as %s; fix: give the complete output of %s, or the kind that matches it: 'labctl parse --help' lists them)", kind, parseKinds()[kind].what)
	var te *textparse.Error
	if errors.As(err, &te) && te.Fix != "" {
		// The error says its own fix (split a file of two runs, parse
		// as the kind the output names); the general one would send the
		// user looking for other output.
		fix = ""
	}
	var p positioned
	if errors.As(err, &p) {
		msg := err.Error()
		if line := p.Position(); line > 0 {
			msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", line))
			return exitcode.Usagef("%s:%d: %s%s", name, line, msg, fix)
		}
		return exitcode.Usagef("%s: %s%s", name, msg, fix)
	}
	return exitcode.Usagef("%s: %v%s", name, err, fix)
}
