// Package clab runs a lab on containerlab: it drives the containerlab CLI,
// talks to the Docker engine for container state and exec, waits for nodes
// to become ready, sets up the hosts' addresses and soft-RoCE devices, and
// fans configuration pushes out to the switches.
//
// A scenario variant on a live lab pushes the variant's configs (ECN or PFC
// removed), reads them back, reads the switch and NIC counters, runs the
// flows as perftest pairs between soft-RoCE devices, reads the counters
// again and restores the lab's configs. SONiC-VS and cEOS data planes
// neither pause nor mark, so each variant is also simulated with the
// configs read back from the switches, and the run record holds both.
// Down removes whatever a lab left, even after an interrupted up.
package clab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Runner runs an external command given as argv and returns what it wrote.
// The containerlab driver goes through it so tests can record the argv
// without running anything.
type Runner interface {
	Run(ctx context.Context, argv []string) (stdout, stderr []byte, err error)
}

// ExecRunner runs commands with os/exec. When ctx is done the process gets
// SIGINT, as if the user had pressed Ctrl-C in front of it, and Grace to
// exit before it is killed: containerlab answers SIGINT by destroying what
// its deploy created (its own limit for that is 20 s), which a SIGKILL
// would cut short, leaving containers, the network and veths behind.
type ExecRunner struct {
	// Progress, when set, also receives the command's stderr as it comes:
	// containerlab logs its deploy steps there.
	Progress io.Writer
	// Grace is how long an interrupted command may take to exit; 0 means
	// DefaultGrace.
	Grace time.Duration
}

// DefaultGrace bounds how long an interrupted containerlab may clean up:
// its destroy-on-cancel gives up after 20 s; the rest is margin.
const DefaultGrace = 30 * time.Second

// Run implements Runner.
func (r ExecRunner) Run(ctx context.Context, argv []string) ([]byte, []byte, error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("run: empty command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	// After the interrupt (or, once it exited, for children still holding
	// the output pipes) wait at most the grace period, then kill.
	cmd.WaitDelay = r.Grace
	if cmd.WaitDelay <= 0 {
		cmd.WaitDelay = DefaultGrace
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if r.Progress != nil {
		cmd.Stderr = io.MultiWriter(&stderr, r.Progress)
	}
	err := cmd.Run()
	return stdout.Bytes(), stderr.Bytes(), err
}

// CommandError is a failed external command: the argv, its exit status and
// the tail of what it printed, so the user sees the tool's own reason.
type CommandError struct {
	Argv   []string
	Err    error
	Output string // stderr, or stdout when stderr is empty, trimmed to its tail
}

func (e *CommandError) Error() string {
	msg := fmt.Sprintf("%s: %v", strings.Join(e.Argv, " "), e.Err)
	if e.Output != "" {
		msg += ":\n" + e.Output
	}
	return msg
}

func (e *CommandError) Unwrap() error { return e.Err }

// maxErrorOutput bounds how much of a command's output goes into an error:
// containerlab prints its reason in the last lines.
const maxErrorOutput = 4000

func tail(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func runChecked(ctx context.Context, r Runner, argv []string) ([]byte, error) {
	stdout, stderr, err := r.Run(ctx, argv)
	if err != nil {
		out := stderr
		if len(bytes.TrimSpace(out)) == 0 {
			out = stdout
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return stdout, &CommandError{Argv: argv, Err: err, Output: tail(out, maxErrorOutput)}
	}
	return stdout, nil
}

// CLI drives the containerlab binary.
type CLI struct {
	// Binary is the containerlab executable; "" means "containerlab" on PATH.
	Binary string
	Runner Runner
}

func (c CLI) bin() string {
	if c.Binary == "" {
		return "containerlab"
	}
	return c.Binary
}

func (c CLI) runner() Runner {
	if c.Runner == nil {
		return ExecRunner{}
	}
	return c.Runner
}

// DeployArgs is the argv of a deploy. --reconfigure makes a second deploy of
// the same lab start from clean node directories instead of failing on the
// existing containers.
func (c CLI) DeployArgs(topology string, maxWorkers int) []string {
	argv := []string{c.bin(), "deploy", "-t", topology, "--reconfigure"}
	if maxWorkers > 0 {
		argv = append(argv, "--max-workers", strconv.Itoa(maxWorkers))
	}
	return argv
}

// DestroyArgs is the argv of a destroy that also removes the lab directory.
func (c CLI) DestroyArgs(topology string) []string {
	return []string{c.bin(), "destroy", "-t", topology, "--cleanup"}
}

// InspectArgs is the argv of an inspect printing JSON.
func (c CLI) InspectArgs(topology string) []string {
	return []string{c.bin(), "inspect", "-t", topology, "--format", "json"}
}

// Deploy deploys the lab in topology. maxWorkers bounds how many nodes
// containerlab creates at once (0 keeps its default).
func (c CLI) Deploy(ctx context.Context, topology string, maxWorkers int) error {
	if _, err := runChecked(ctx, c.runner(), c.DeployArgs(topology, maxWorkers)); err != nil {
		return fmt.Errorf("deploy lab %s: %w", topology, err)
	}
	return nil
}

// Destroy destroys the lab in topology.
func (c CLI) Destroy(ctx context.Context, topology string) error {
	if _, err := runChecked(ctx, c.runner(), c.DestroyArgs(topology)); err != nil {
		return fmt.Errorf("destroy lab %s: %w", topology, err)
	}
	return nil
}

// Inspect lists the lab's containers.
func (c CLI) Inspect(ctx context.Context, topology string) ([]Container, error) {
	out, err := runChecked(ctx, c.runner(), c.InspectArgs(topology))
	if err != nil {
		return nil, fmt.Errorf("inspect lab %s: %w", topology, err)
	}
	cs, err := ParseInspect(out)
	if err != nil {
		return nil, fmt.Errorf("inspect lab %s: %w", topology, err)
	}
	return cs, nil
}

// Version returns containerlab's version, e.g. "0.79.0".
func (c CLI) Version(ctx context.Context) (string, error) {
	out, err := runChecked(ctx, c.runner(), []string{c.bin(), "version"})
	if err != nil {
		return "", fmt.Errorf("containerlab version: %w", err)
	}
	v := ParseVersion(string(out))
	if v == "" {
		return "", fmt.Errorf("containerlab version: no version in its output %q", tail(out, 200))
	}
	return v, nil
}

// ParseVersion finds the version in `containerlab version` output, whose
// first lines are ASCII art followed by "version: 0.79.0" (older releases)
// or "    version: 0.79.0".
func ParseVersion(out string) string {
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && strings.TrimSpace(k) == "version" {
			return strings.TrimPrefix(strings.TrimSpace(v), "v")
		}
	}
	return ""
}
