package clab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime/clab/dockerapi"
)

// Execer runs a command in a container. *Docker implements it; tests of the
// host set-up use a fake.
type Execer interface {
	Exec(ctx context.Context, container string, argv []string, opt ExecOptions) (ExecResult, error)
}

// ExecOptions tunes one exec.
type ExecOptions struct {
	// Timeout bounds the command; 0 means only ctx bounds it. When it
	// expires, or ctx is cancelled, the process is killed.
	Timeout time.Duration
	Env     []string
	User    string
}

// ExecResult is what a finished command left.
type ExecResult struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// ExecError is a command that ran in a container and exited non-zero.
type ExecError struct {
	Container string
	Argv      []string
	Result    ExecResult
}

func (e *ExecError) Error() string {
	out := e.Result.Stderr
	if len(bytes.TrimSpace(out)) == 0 {
		out = e.Result.Stdout
	}
	msg := fmt.Sprintf("%s: %s exited with status %d", e.Container, strings.Join(e.Argv, " "), e.Result.ExitCode)
	if t := tail(out, 2000); t != "" {
		msg += ": " + t
	}
	return msg
}

// ExecOK runs argv and turns a non-zero exit into an *ExecError.
func ExecOK(ctx context.Context, e Execer, container string, argv []string, opt ExecOptions) (ExecResult, error) {
	r, err := e.Exec(ctx, container, argv, opt)
	if err != nil {
		return r, err
	}
	if r.ExitCode != 0 {
		return r, &ExecError{Container: container, Argv: argv, Result: r}
	}
	return r, nil
}

// Docker talks to the Docker engine through its API.
type Docker struct {
	c *dockerapi.Client
}

// DoctorHint ends the engine's error where a command other than doctor
// meets it; doctor, which reports the engine itself, leaves it out.
const DoctorHint = "; run 'labctl doctor --runtime clab'"

// NewDocker connects to the engine named by DOCKER_HOST (default: the local
// socket), negotiates the API version (Debian 12's docker.io speaks 1.41)
// and checks the engine answers. An unreachable engine is an environment
// error (exit 3).
func NewDocker(ctx context.Context) (*Docker, error) {
	c, err := dockerapi.FromEnv()
	if err != nil {
		return nil, exitcode.Envf("docker client: %w (check DOCKER_HOST)", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Negotiate(pctx); err != nil {
		_ = c.Close()
		return nil, exitcode.Envf("docker engine at %s is not reachable: %w (start dockerd, or set DOCKER_HOST%s)", c.Host(), err, DoctorHint)
	}
	return &Docker{c: c}, nil
}

// Close releases the client's connections.
func (d *Docker) Close() error { return d.c.Close() }

// API is the engine's API client, for calls this type does not wrap.
func (d *Docker) API() *dockerapi.Client { return d.c }

// APIVersion is the API version negotiated with the engine.
func (d *Docker) APIVersion() string { return d.c.APIVersion() }

// ContainerState is the part of a container's state readiness waits need.
type ContainerState struct {
	Exists   bool
	Status   string // created, running, exited, …
	Running  bool
	Health   string // "", starting, healthy, unhealthy
	ExitCode int
	Pid      int
}

// State returns the state of container (a name or ID). A missing container
// is not an error: Exists is false.
func (d *Docker) State(ctx context.Context, name string) (ContainerState, error) {
	info, err := d.c.ContainerInspect(ctx, name)
	if err != nil {
		if dockerapi.IsNotFound(err) {
			return ContainerState{}, nil
		}
		return ContainerState{}, fmt.Errorf("inspect container %s: %w", name, err)
	}
	s := ContainerState{Exists: true}
	if info.State != nil {
		s.Status = info.State.Status
		s.Running = info.State.Running
		s.ExitCode = info.State.ExitCode
		s.Pid = info.State.Pid
		if info.State.Health != nil {
			s.Health = info.State.Health.Status
		}
	}
	return s, nil
}

// ImagePresent reports whether ref is in the engine's local image store.
func (d *Docker) ImagePresent(ctx context.Context, ref string) (bool, error) {
	if _, err := d.c.ImageInspect(ctx, ref); err != nil {
		if dockerapi.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return true, nil
}

// Exec runs argv in container and waits for it. stdout and stderr are kept
// apart. When ctx is done or opt.Timeout passes, the process is killed (a
// cancelled API call alone would leave it running in the container) and the
// context's error is returned with whatever output arrived.
func (d *Docker) Exec(ctx context.Context, ctr string, argv []string, opt ExecOptions) (ExecResult, error) {
	if len(argv) == 0 {
		return ExecResult{}, fmt.Errorf("exec in %s: empty command", ctr)
	}
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	execID, err := d.c.ExecCreate(ctx, ctr, dockerapi.ExecConfig{
		Cmd: argv, Env: opt.Env, User: opt.User,
		AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec %s in %s: %w", argv[0], ctr, err)
	}
	att, err := d.c.ExecAttach(ctx, execID)
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec %s in %s: attach: %w", argv[0], ctr, err)
	}
	defer att.Close()

	var stdout, stderr bytes.Buffer
	copied := make(chan error, 1)
	go func() {
		copied <- dockerapi.Demux(&stdout, &stderr, att)
	}()

	select {
	case err := <-copied:
		if err != nil && !errors.Is(err, io.EOF) {
			return ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, fmt.Errorf("exec %s in %s: read output: %w", argv[0], ctr, err)
		}
	case <-ctx.Done():
		kerr := d.killExec(execID, ctr)
		att.Close()
		<-copied
		res := ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: -1}
		if kerr != nil {
			return res, fmt.Errorf("exec %s in %s: %w; and the process could not be killed: %v", argv[0], ctr, ctx.Err(), kerr)
		}
		return res, fmt.Errorf("exec %s in %s: %w (process killed)", argv[0], ctr, ctx.Err())
	}

	// The stream closes a moment before the engine records the exit code.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for {
		ins, err := d.c.ExecInspect(ictx, execID)
		if err != nil {
			return ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, fmt.Errorf("exec %s in %s: inspect: %w", argv[0], ctr, err)
		}
		if !ins.Running {
			return ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: ins.ExitCode}, nil
		}
		select {
		case <-ictx.Done():
			return ExecResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, fmt.Errorf("exec %s in %s: output closed but the process is still running", argv[0], ctr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// killExec kills an exec'd process. The engine has no API for it: the exec's
// Pid is a host PID, so on the engine's own host (where containerlab runs)
// signal it directly; where that is refused, signal it from inside the
// container by its PID there (NSpid in /proc/<pid>/status).
func (d *Docker) killExec(execID, ctr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ins, err := d.c.ExecInspect(ctx, execID)
	if err != nil {
		return fmt.Errorf("inspect exec: %w", err)
	}
	if !ins.Running || ins.Pid <= 0 {
		return nil
	}
	kerr := syscall.Kill(ins.Pid, syscall.SIGKILL)
	if kerr == nil {
		return nil
	}
	nspid, err := innerPID(ins.Pid)
	if err != nil {
		return fmt.Errorf("kill host pid %d: %v; %w", ins.Pid, kerr, err)
	}
	killID, err := d.c.ExecCreate(ctx, ctr, dockerapi.ExecConfig{Cmd: []string{"kill", "-KILL", strconv.Itoa(nspid)}})
	if err != nil {
		return fmt.Errorf("kill pid %d in container: %w", nspid, err)
	}
	return d.c.ExecStartDetached(ctx, killID)
}

// innerPID reads the PID a host process has in its innermost PID namespace.
func innerPID(hostPID int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(hostPID) + "/status")
	if err != nil {
		return 0, fmt.Errorf("find the process's PID in its container: %w", err)
	}
	return parseNSpid(string(b))
}

func parseNSpid(status string) (int, error) {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.Atoi(f[len(f)-1])
		}
	}
	return 0, errors.New("no NSpid line in /proc status")
}

var _ Cleaner = (*Docker)(nil)

// ContainersOf implements Cleaner: containers labelled containerlab=<lab>
// (containerlab labels every node it creates) and, for a deploy stopped
// before labelling, those of names that exist. Sorted, once each.
func (d *Docker) ContainersOf(ctx context.Context, lab string, names []string) ([]string, error) {
	seen := map[string]bool{}
	list, err := d.c.ContainerList(ctx, true, map[string][]string{"label": {"containerlab=" + lab}})
	if err != nil {
		return nil, fmt.Errorf("list containers labelled containerlab=%s: %w", lab, err)
	}
	for _, c := range list {
		if len(c.Names) > 0 {
			seen[strings.TrimPrefix(c.Names[0], "/")] = true
		}
	}
	for _, n := range names {
		st, err := d.State(ctx, n)
		if err != nil {
			return nil, err
		}
		if st.Exists {
			seen[n] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// RemoveContainer implements Cleaner.
func (d *Docker) RemoveContainer(ctx context.Context, name string) error {
	err := d.c.ContainerRemove(ctx, name, dockerapi.RemoveOptions{Force: true, Volumes: true})
	if err != nil && !dockerapi.IsNotFound(err) {
		return err
	}
	return nil
}

// RemoveNetworkIfUnused implements Cleaner.
func (d *Docker) RemoveNetworkIfUnused(ctx context.Context, name string) (bool, error) {
	n, err := d.c.NetworkInspect(ctx, name)
	if dockerapi.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if len(n.Containers) > 0 {
		return false, nil
	}
	// Inspect lists only running endpoints; a stopped container that
	// would start on the network counts as a user too.
	users, err := d.c.ContainerList(ctx, true, map[string][]string{"network": {name}})
	if err != nil {
		return false, fmt.Errorf("list containers on network %s: %w", name, err)
	}
	if len(users) > 0 {
		return false, nil
	}
	if err := d.c.NetworkRemove(ctx, name); err != nil && !dockerapi.IsNotFound(err) {
		return false, err
	}
	return true, nil
}
