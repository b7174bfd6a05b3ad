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
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/readlimit"
)

// parseKind is one kind of output `labctl parse` reads.
type parseKind struct {
	what  string // the command whose output it is
	parse func(io.Reader) (any, error)
}

// parseKinds lists the kinds by their stable CLI names.
func parseKinds() map[string]parseKind {
	return map[string]parseKind{
		"ib_write_bw":             {"ib_write_bw output (text, or --out_json of perftest 4.5 or 24.x)", func(r io.Reader) (any, error) { return perftest.ParseBW(r) }},
		"ib_write_lat":            {"ib_write_lat output (text, or --out_json of perftest 4.5 or 24.x)", func(r io.Reader) (any, error) { return perftest.ParseLat(r) }},
		"sonic-pfc-counters":      {"SONiC `show pfc counters`", func(r io.Reader) (any, error) { return sonic.ParsePFCCounters(r) }},
		"sonic-queue-counters":    {"SONiC `show queue counters`", func(r io.Reader) (any, error) { return sonic.ParseQueueCounters(r) }},
		"sonic-wred-counters":     {"SONiC `show queue wredcounters`", func(r io.Reader) (any, error) { return sonic.ParseWREDCounters(r) }},
		"sonic-port-counters":     {"SONiC `show interfaces counters`", func(r io.Reader) (any, error) { return sonic.ParsePortCounters(r) }},
		"eos-pfc-counters-json":   {"EOS `show priority-flow-control counters | json`", func(r io.Reader) (any, error) { return eos.ParsePFCCounters(r) }},
		"eos-queue-counters-json": {"EOS `show interfaces counters queue detail | json`", func(r io.Reader) (any, error) { return eos.ParseQueueCounters(r) }},
		"eos-ecn-counters-json":   {"EOS `show qos interfaces ecn counters queue | json`", func(r io.Reader) (any, error) { return eos.ParseECNCounters(r) }},
		"rdma-statistic":          {"`rdma statistic show link <dev>/<port>` (soft-RoCE counters)", func(r io.Reader) (any, error) { return hoststat.ParseRDMAStatistic(r) }},
		"ethtool-stats":           {"`ethtool -S <iface>`", func(r io.Reader) (any, error) { return hoststat.ParseEthtoolStats(r) }},
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
	return &cobra.Command{
		Use:   "parse <kind> <file>",
		Short: "Parse saved switch, NIC or perftest output into JSON",
		Long: `parse reads what a command printed on a live lab (a switch counter table,
perftest's report, host RDMA counters) from <file>, or stdin when <file> is -,
and prints it as JSON:

  {"schema_version": 1, "kind": "<kind>", "source": "<file>", "result": {...}}

Counters the device printed as N/A (or "-" on EOS) are null or absent,
never 0. Input that is truncated, garbled or of another kind is an error
naming the file and line (exit 2).

Kinds:
` + b.String(),
		Example: `  labctl parse sonic-pfc-counters leaf1-pfc.txt
  ssh leaf1 show queue counters | labctl parse sonic-queue-counters -
  labctl parse ib_write_bw h1-bw.txt -o json`,
		Args: exactArgs(2),
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
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := app.OutputFormat("json", "json"); err != nil {
				return err
			}
			kind, file := args[0], args[1]
			k, ok := parseKinds()[kind]
			if !ok {
				return exitcode.Usagef("unknown kind %q: use one of %s", kind, strings.Join(parseKindNames(), ", "))
			}
			in, name, closeIn, err := openParseInput(cmd, file)
			if err != nil {
				return err
			}
			defer closeIn()
			v, err := k.parse(in)
			if err != nil && cmd.Context() != nil && cmd.Context().Err() != nil {
				return exitcode.Failedf("parse %s: interrupted before the input ended", name)
			}
			if err != nil {
				return parseInputError(name, kind, err)
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
	fix := fmt.Sprintf("(parsing as %s; fix: give the complete output of %s, or the kind that matches it: 'labctl parse --help' lists them)", kind, parseKinds()[kind].what)
	var p positioned
	if errors.As(err, &p) {
		msg := err.Error()
		if line := p.Position(); line > 0 {
			msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", line))
			return exitcode.Usagef("%s:%d: %s %s", name, line, msg, fix)
		}
		return exitcode.Usagef("%s: %s %s", name, msg, fix)
	}
	return exitcode.Usagef("%s: %v %s", name, err, fix)
}
