// Command labctl builds, runs and reports on AI/RoCE fabric labs. This
// package only parses flags and wires packages together; the logic lives
// under orchestrator/.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	// For its effect alone, as early as Go initializes it: the first
	// 128 MiB of heap without a collection (see the package).
	_ "github.com/labctl/labctl/cmd/labctl/internal/startheap"
	"github.com/labctl/labctl/orchestrator/exitcode"
)

// App holds what every command shares: global flags and the output streams.
type App struct {
	Out     io.Writer
	Err     io.Writer
	Output  string // -o; "" means the command's default
	Verbose int
	Dir     string // work directory: topologies/ and results/ live here
	Log     *slog.Logger

	// cpuProfile is the hidden --cpuprofile flag: a pprof CPU profile of
	// the command, for finding where a long run spends its time.
	// memProfile is the hidden --memprofile: every allocation the command
	// made (pprof's allocs profile), for finding what a short command
	// allocates, whose fresh pages cost more than its own code.
	cpuProfile  string
	memProfile  string
	stopProfile []func()
}

// TopologiesDir is where generated labs live.
func (a *App) TopologiesDir() string { return filepath.Join(a.Dir, "topologies") }

// ResultsDir is where runs are written.
func (a *App) ResultsDir() string { return filepath.Join(a.Dir, "results") }

// OutputFormat returns the -o value, or def when unset, and checks it is one
// of allowed.
func (a *App) OutputFormat(def string, allowed ...string) (string, error) {
	f := a.Output
	if f == "" {
		f = def
	}
	if !slices.Contains(allowed, f) {
		if len(allowed) == 1 {
			// "use one of text" would read as a list cut short.
			return "", exitcode.Usagef("output format %q is not supported here: use %s, the only one (or leave -o out)", f, allowed[0])
		}
		return "", exitcode.Usagef("output format %q is not supported here: use one of %s", f, strings.Join(allowed, ", "))
	}
	return f, nil
}

// commandConstructors lists every subcommand. Add one line per command.
var commandConstructors = []func(*App) *cobra.Command{
	newVersionCmd,
	newDoctorCmd,
	newImageCmd,
	newLabsCmd,
	newPlanCmd,
	newTopoCmd,
	newTraceCmd,
	newParseCmd,
	newConfigCmd,
	newReportCmd,
	newResultsCmd,
	newRegressCmd,
	newUpCmd,
	newStatusCmd,
	newDownCmd,
	newRunCmd,
	newExplainCmd,
}

func newRootCmd(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "labctl",
		Short: "Size, build, run and compare AI/RoCE fabric labs",
		Long: `labctl sizes a spine-leaf (or 3-tier Clos) GPU fabric, stands it up as a lab
(embedded simulator or containerlab), renders and lints lossless-Ethernet QoS
for SONiC and Arista EOS, runs perftest scenarios with ECN and PFC on and off,
and reports and compares the results.

Exit codes: 0 ok, 1 a check failed (assertion, regression, lint) or the
command was interrupted (Ctrl-C), 2 bad input or usage, 3 the environment
lacks something.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelWarn
			switch {
			case app.Verbose >= 2:
				level = slog.LevelDebug
			case app.Verbose == 1:
				level = slog.LevelInfo
			}
			app.Log = slog.New(newHumanHandler(app.Err, level))
			if st, err := os.Stat(app.Dir); err == nil && !st.IsDir() {
				return exitcode.Usagef("--dir %s is not a directory (fix: give the folder that holds, or will hold, topologies/ and results/)", app.Dir)
			}
			if app.cpuProfile != "" {
				f, err := os.Create(app.cpuProfile)
				if err != nil {
					return exitcode.WriteFailed(app.cpuProfile, err)
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					f.Close()
					return err
				}
				app.stopProfile = append(app.stopProfile, func() { pprof.StopCPUProfile(); f.Close() })
			}
			if app.memProfile != "" {
				f, err := os.Create(app.memProfile)
				if err != nil {
					return exitcode.WriteFailed(app.memProfile, err)
				}
				// One sample per 4 KiB allocated rather than 512 KiB: a
				// short command allocates a few MiB.
				goruntime.MemProfileRate = 4096
				app.stopProfile = append(app.stopProfile, func() {
					if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
						app.Log.Warn("memory profile not written", "file", app.memProfile, "err", err)
					}
					f.Close()
				})
			}
			return nil
		},
	}
	root.SetOut(app.Out)
	root.SetErr(app.Err)
	root.PersistentFlags().StringVarP(&app.Output, "output", "o", "", "output format (per command: table, json, yaml, md, text, html, junit, clab, mermaid, dot)")
	root.PersistentFlags().CountVarP(&app.Verbose, "verbose", "v", "more logging (-v info, -vv debug)")
	root.PersistentFlags().StringVar(&app.Dir, "dir", ".", "work directory holding topologies/ and results/")
	root.PersistentFlags().StringVar(&app.cpuProfile, "cpuprofile", "", "write a pprof CPU profile of the command to this file (for developers: go tool pprof)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentFlags().StringVar(&app.memProfile, "memprofile", "", "write a pprof profile of the command's allocations to this file (for developers: go tool pprof -sample_index=alloc_space)")
	_ = root.PersistentFlags().MarkHidden("memprofile")
	// Flag parse errors are usage errors (exit 2).
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// "labctl up --lab 64gpu", "labctl run --scenario ecn-pfc ...":
		// run's --lab (or parse's --scenario) where the command takes
		// that as an argument.
		for _, what := range []string{"lab", "scenario"} {
			use := " " + c.Use + " "
			if err.Error() == "unknown flag: --"+what && (strings.Contains(use, " <"+what+"> ") || strings.Contains(use, " [<"+what+">] ")) {
				return exitcode.Usagef("%v (fix: %s takes the %s as an argument, without --%s: %s)", err, c.CommandPath(), what, what, c.UseLine())
			}
		}
		return exitcode.Usagef("%v (fix: see '%s --help')", err, c.CommandPath())
	})
	for _, mk := range commandConstructors {
		root.AddCommand(mk(app))
	}
	root.SetHelpCommand(newHelpCmd())
	// cobra adds its completion group when the command runs; add it now
	// so that groupCommands makes it strict too.
	root.InitDefaultCompletionCmd()
	groupCommands(root)
	// A group runs (to refuse an unknown subcommand), but its usage is
	// its subcommands: cobra's template would also list "labctl config
	// [flags]" for every runnable command.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "Usage:{{if .Runnable}}", "Usage:{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))
	return root
}

// run executes labctl with args and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &App{Out: stdout, Err: stderr, Log: slog.New(newHumanHandler(stderr, slog.LevelInfo))}
	root := newRootCmd(app)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	for _, stop := range app.stopProfile {
		stop()
	}
	if err == nil {
		return exitcode.OK
	}
	code := exitcode.Code(err)
	// cobra's own argument and unknown-command errors are usage errors.
	var ee *exitcode.Error
	if !errors.As(err, &ee) && isCobraUsageError(err) {
		code = exitcode.BadInput
		// cobra says what is wrong, not where to look.
		path := "labctl"
		if c, _, ferr := root.Find(args); ferr == nil {
			path = c.CommandPath()
		}
		err = fmt.Errorf("%w (fix: see '%s --help')", err, path)
	}
	if ctx.Err() != nil {
		// Ctrl-C (or SIGTERM): whatever the command was doing when it
		// stopped, it was interrupted, which the contract says is 1.
		code = exitcode.CheckFailed
		if !strings.Contains(err.Error(), "interrupted") {
			err = fmt.Errorf("interrupted: %w", err)
		}
	}
	fmt.Fprintf(stderr, "labctl: %v\n", err)
	return code
}

func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, s := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand", "invalid argument"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func main() {
	ctx, stop := interruptContext(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptContext is cancelled by the first Ctrl-C or SIGTERM, which asks
// the command to stop and keep what it finished (a run writes its record
// as interrupted). A repeat of it within repeatedSignalWindow is taken
// for the same interrupt and ignored: GNU timeout signals labctl and then
// its process group, so 'timeout -s INT' delivers two SIGINTs microseconds
// apart, and a terminal's Ctrl-C reaches every process of the group too;
// the second one used to kill labctl mid-save (no output, the record left
// running with a temporary file beside it). After the window it gives the
// signals back their default action, so that a deliberate second Ctrl-C
// ends labctl at once, even in a command that is not checking for
// cancellation.
func interruptContext(w io.Writer) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
			fmt.Fprintln(w, "labctl: stopping, keeping what finished (press Ctrl-C again, after a second, to quit at once)")
			cancel()
		case <-done:
			return
		}
		window := time.NewTimer(repeatedSignalWindow)
		defer window.Stop()
		for {
			select {
			case <-sig:
				// The same interrupt, delivered again.
			case <-window.C:
				// With no channel left, the signals take their default action.
				signal.Stop(sig)
				return
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sig)
			close(done)
			cancel()
		})
	}
}

// repeatedSignalWindow is how long after the first interrupt another is
// taken for a copy of it (interruptContext): long enough for a signal
// sent to the process and then to its group, short enough that a second
// Ctrl-C a person presses still quits.
const repeatedSignalWindow = time.Second
