package clab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// Engine is what the runtime needs from the Docker engine. *Docker
// implements it.
type Engine interface {
	Execer
	State(ctx context.Context, name string) (ContainerState, error)
	ImagePresent(ctx context.Context, ref string) (bool, error)
	Close() error
}

// Credentials are a switch login. They are passed to the SSH client only.
type Credentials struct {
	Username string
	Password string
}

// Default logins of the lab images (SONiC-VS and cEOS-lab as shipped).
var (
	DefaultSONiCLogin = Credentials{Username: "admin", Password: "YourPaSsWoRd"}
	DefaultEOSLogin   = Credentials{Username: "admin", Password: "admin"}
)

// Runtime runs labs on containerlab. The zero value is not ready: use New.
type Runtime struct {
	CLI CLI
	// Connect opens the Docker engine; New sets NewDocker.
	Connect func(ctx context.Context) (Engine, error)
	// LookPath finds containerlab; New sets exec.LookPath.
	LookPath func(name string) (string, error)
	// MaxWorkers bounds containerlab's parallel node creation (0: its
	// default).
	MaxWorkers int
	// ReadyTimeout bounds the wait for each node's container; 0 means 5m.
	ReadyTimeout time.Duration
	// SSHPort is the switches' SSH port; 0 means 22.
	SSHPort int
	// SkipSSHWait skips waiting for the switches' SSH port before pushing
	// (tests push through a fake).
	SkipSSHWait bool
	// Push tunes the configuration pushes.
	Push PushOptions
	// Login returns the switch login of a NOS; nil uses the image defaults.
	Login func(nos string) Credentials
	// PushConfig pushes one switch's config and returns the running config
	// read back; nil uses nos/sonic or nos/eos over SSH.
	PushConfig func(ctx context.Context, nos, node, host string, port int, cred Credentials, config []byte) (string, error)
	// PushVariant moves one switch from the lab's config (full) to a
	// variant's and returns the running config read back; nil uses
	// PushVariantOverSSH.
	PushVariant func(ctx context.Context, nos, node, host string, port int, cred Credentials, full, variant []byte) (string, error)
	// Show runs read-only commands on a switch (the counter commands);
	// nil uses ShowOverSSH.
	Show func(ctx context.Context, nos, node, host string, port int, cred Credentials, cmds []string) ([]string, error)
	// Simulator simulates a variant with the configs read back from the
	// switches; nil uses the sim runtime.
	Simulator Simulator
	// StartDelay is how long perftest servers get before their clients
	// start; 0 means 2s.
	StartDelay time.Duration
	// MaxSimulatedUs bounds the simulated twin of a variant: a live run of
	// seconds is simulated for its first MaxSimulatedUs (rates converge in
	// milliseconds). 0 means 20000 (20 ms).
	MaxSimulatedUs float64
	// LatencyIterations is ib_write_lat's -n for the latency probe; 0
	// means 10000, negative skips the probe.
	LatencyIterations int
	// EnvCheck, when set, checks before the deploy what the machine needs
	// beyond containerlab, the engine and the images (which Preflight
	// checks itself): soft-RoCE in the kernel, for one. engineUp says
	// whether the Docker engine answered (the checks that need it are
	// skipped when not). It returns the problems that stop the lab, each
	// with its fix, and warnings. labctl wires it to doctor.PreDeploy.
	EnvCheck func(ctx context.Context, l *runtime.Lab, engineUp bool) (problems, warnings []string)
	// NetnsDir is where containerlab names the nodes' network namespaces;
	// "" means /var/run/netns.
	NetnsDir string
	// Reach opens the transport to a lab that is up for RunVariant; nil
	// reaches a containerlab lab through 'containerlab inspect' and the
	// Docker engine. The clabernetes runtime sets its own.
	Reach func(ctx context.Context, l *runtime.Lab) (Transport, error)

	// checked is the lab the last Preflight passed for, so that the Up
	// the lifecycle calls right after it does not check twice.
	checked *runtime.Lab
}

// PushOverSSH pushes a config with the NOS's SSH pusher: SONiC by
// `config load`, EOS by a configuration session. Port 0 means 22.
func PushOverSSH(ctx context.Context, nos, node, host string, port int, cred Credentials, config []byte) (string, error) {
	if nos == eos.Name {
		out, err := eos.PushConfig(ctx, eos.PushTarget{Name: node, Host: host, Port: port, Username: cred.Username, Password: cred.Password}, string(config))
		if err != nil {
			return "", err
		}
		return out.Running, nil
	}
	out, err := sonic.PushConfigDB(ctx, sonic.PushTarget{Name: node, Host: host, Port: port, Username: cred.Username, Password: cred.Password}, config, sonic.PushLoad)
	if err != nil {
		return "", err
	}
	return out.Running, nil
}

// New returns a Runtime that drives the containerlab binary on PATH and
// the local Docker engine.
func New() *Runtime {
	return &Runtime{
		Connect: func(ctx context.Context) (Engine, error) {
			d, err := NewDocker(ctx)
			if err != nil {
				return nil, err
			}
			return d, nil
		},
		LookPath: exec.LookPath,
	}
}

var _ runtime.Runtime = (*Runtime)(nil)

// Name implements runtime.Runtime.
func (r *Runtime) Name() string { return "clab" }

func (r *Runtime) topology(l *runtime.Lab) (string, error) {
	if l.Graph == nil {
		return "", fmt.Errorf("lab %s has no fabric graph", l.Name)
	}
	return filepath.Join(l.Dir, l.Graph.TopologyFile()), nil
}

// ContainerName is containerlab's name for a node's container.
func ContainerName(labName, node string) string { return "clab-" + labName + "-" + node }

// images lists the images the lab's topology uses.
func images(l *runtime.Lab) []string {
	im := l.Graph.Images
	sw := im.SONiC
	if l.NOS == eos.Name {
		sw = im.EOS
	}
	return []string{sw, im.Host}
}

// Preflight implements runtime.Preflighter: it checks what Up needs before
// touching anything: containerlab on PATH, a reachable Docker engine, the
// lab's images and, through EnvCheck, everything else doctor can tell
// before a deploy (soft-RoCE in the kernel, the SONiC image's SKU).
// Everything missing is named in one environment error (exit 3); warnings
// go to the lab's progress and log. An Up of the same lab that follows
// does not check again.
func (r *Runtime) Preflight(ctx context.Context, l *runtime.Lab) error {
	eng, err := r.preflight(ctx, l)
	if err != nil {
		return err
	}
	r.checked = l
	return eng.Close()
}

// engineFor opens the engine for Up: after a Preflight of l only the
// connection (the checks passed a moment ago, and EnvCheck may start a
// container), else every check.
func (r *Runtime) engineFor(ctx context.Context, l *runtime.Lab) (Engine, error) {
	if r.checked != l {
		return r.preflight(ctx, l)
	}
	r.checked = nil
	return r.Connect(ctx)
}

// preflight is Preflight returning the engine it connected to.
func (r *Runtime) preflight(ctx context.Context, l *runtime.Lab) (Engine, error) {
	var missing []string
	bin := r.CLI.Binary
	if bin == "" {
		bin = "containerlab"
	}
	if path, err := r.LookPath(bin); err != nil {
		missing = append(missing, "containerlab is not installed (not on PATH)")
	} else {
		r.CLI.Binary = path
	}
	eng, err := r.Connect(ctx)
	if err != nil {
		missing = append(missing, err.Error())
	} else {
		for _, ref := range images(l) {
			ok, err := eng.ImagePresent(ctx, ref)
			switch {
			case err != nil:
				missing = append(missing, fmt.Sprintf("image %s: %v", ref, err))
			case !ok:
				missing = append(missing, "image "+ref+" is not present")
			}
		}
	}
	if r.EnvCheck != nil {
		// Without an engine too: a refused up then names the kernel's
		// problems (no soft-RoCE) beside the engine's, as doctor does.
		problems, warnings := r.EnvCheck(ctx, l, eng != nil)
		missing = append(missing, problems...)
		say := progress(l)
		for _, w := range warnings {
			say("warning: " + w)
		}
	}
	if len(missing) > 0 {
		if eng != nil {
			_ = eng.Close()
		}
		return nil, exitcode.Envf("the clab runtime cannot bring up lab %s: %s. Run 'labctl doctor --runtime clab' for fixes, or use --runtime sim", l.Name, strings.Join(missing, "; "))
	}
	return eng, nil
}

func progress(l *runtime.Lab) func(string) {
	return func(line string) {
		if l.Progress != nil {
			fmt.Fprintln(l.Progress, line)
		}
		l.Logger().Info(line)
	}
}

// Up implements runtime.Runtime: deploy, wait for every container, check
// the hosts' soft-RoCE devices, push every switch's config and read it
// back. An up interrupted after the deploy started (ctx cancelled: Ctrl-C)
// removes what it created before it returns, and its error says what, if
// anything, is left; other failures leave the lab for inspection and
// `labctl down`.
func (r *Runtime) Up(ctx context.Context, l *runtime.Lab) (err error) {
	topo, err := r.topology(l)
	if err != nil {
		return err
	}
	say := progress(l)
	if l.DryRun {
		say("would run: " + strings.Join(r.CLI.DeployArgs(topo, r.MaxWorkers), " "))
		for _, sw := range l.Graph.Switches() {
			say(fmt.Sprintf("would push %s to %s and read it back", r.configPath(l, sw.Name), sw.Name))
		}
		return nil
	}
	eng, err := r.engineFor(ctx, l)
	if err != nil {
		return err
	}
	defer eng.Close()
	if r.CLI.Runner == nil && l.Progress != nil {
		r.CLI.Runner = ExecRunner{Progress: l.Progress}
	}
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = r.cleanUpInterrupted(l, err)
		}
	}()
	say("deploying " + topo)
	if err := r.CLI.Deploy(ctx, topo, r.MaxWorkers); err != nil {
		return err
	}
	cs, err := r.CLI.Inspect(ctx, topo)
	if err != nil {
		return err
	}
	mgmt := map[string]string{}
	for _, c := range cs {
		mgmt[c.NodeName()] = c.IPv4Address
	}
	if err := r.waitRunning(ctx, l, eng, say); err != nil {
		return err
	}
	ssh, err := switchAddrs(l, mgmt, r.SSHPort)
	if err != nil {
		return err
	}
	return r.Configure(ctx, l, &dockerTransport{Engine: eng, ssh: ssh})
}

// Configure readies a lab whose nodes run: it checks the hosts' soft-RoCE
// devices, waits for the switches' SSH servers, pushes every switch's
// config and reads it back. Up calls it once the containers run; the
// clabernetes runtime once its Topology is ready.
func (r *Runtime) Configure(ctx context.Context, l *runtime.Lab, tr Transport) error {
	say := progress(l)
	if err := r.verifyHosts(ctx, l, tr); err != nil {
		return err
	}
	if err := r.waitSSH(ctx, l, tr.SwitchSSH(), say); err != nil {
		return err
	}
	return r.pushAll(ctx, l, tr.SwitchSSH(), say)
}

// CleanupTimeout bounds the clean-up of an interrupted up: containerlab
// destroy (itself bounded by its 20 s per node timeout) and the removal of
// what it left.
const CleanupTimeout = 2 * time.Minute

// cleanUpInterrupted removes what an interrupted up created, as down would
// (containerlab destroy, then leftover containers and the management
// network), and adds to cause what is left of the lab afterwards.
func (r *Runtime) cleanUpInterrupted(l *runtime.Lab, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
	defer cancel()
	say := progress(l)
	say("interrupted: removing what the deploy of lab " + l.Name + " created")
	downErr := r.Down(ctx, l)
	left, err := r.Leftovers(ctx, l)
	var what string
	switch {
	case err != nil:
		what = fmt.Sprintf("what is left of the lab could not be checked: %v; run 'labctl down %s'", err, l.Name)
	case len(left) == 0:
		what = "cleaned up: nothing of the lab is left"
	default:
		what = fmt.Sprintf("left after the clean-up: %s; run 'labctl down %s'", strings.Join(left, ", "), l.Name)
	}
	if downErr != nil {
		what += fmt.Sprintf(" (the clean-up reported: %v)", downErr)
	}
	say(what)
	return fmt.Errorf("%w; %s", cause, what)
}

// Leftovers lists what of the lab still exists on this machine: its
// containers (by containerlab's label or by name) and the network
// namespaces containerlab links under NetnsDir.
func (r *Runtime) Leftovers(ctx context.Context, l *runtime.Lab) ([]string, error) {
	var left []string
	names := make([]string, 0, len(l.Graph.Nodes))
	for _, n := range l.Graph.Nodes {
		names = append(names, ContainerName(l.Name, n.Name))
	}
	eng, err := r.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	if c, ok := eng.(Cleaner); ok {
		cs, err := c.ContainersOf(ctx, l.Name, names)
		if err != nil {
			return nil, err
		}
		for _, name := range cs {
			left = append(left, "container "+name)
		}
	}
	dir := r.NetnsDir
	if dir == "" {
		dir = "/var/run/netns"
	}
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			left = append(left, "network namespace "+name)
		}
	}
	return left, nil
}

func (r *Runtime) waitRunning(ctx context.Context, l *runtime.Lab, eng Engine, say func(string)) error {
	timeout := r.ReadyTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	for _, n := range l.Graph.Nodes {
		w := Wait{Node: n.Name, What: "container running", Timeout: timeout, Interval: time.Second, Progress: say}
		if err := w.Until(ctx, ContainerRunning(eng, ContainerName(l.Name, n.Name))); err != nil {
			return err
		}
	}
	return nil
}

// waitSSH waits for every switch's SSH server: SONiC-VS and cEOS start it
// well after their containers run.
func (r *Runtime) waitSSH(ctx context.Context, l *runtime.Lab, ssh map[string]SSHAddr, say func(string)) error {
	if r.SkipSSHWait {
		return nil
	}
	timeout := r.ReadyTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	for _, sw := range l.Graph.Switches() {
		a, ok := ssh[sw.Name]
		if !ok {
			return fmt.Errorf("switch %s has no SSH address", sw.Name)
		}
		port := a.Port
		if port == 0 {
			port = 22
		}
		addr := net.JoinHostPort(a.Host, strconv.Itoa(port))
		w := Wait{Node: sw.Name, What: "SSH on " + addr, Timeout: timeout, Interval: 2 * time.Second, Progress: say}
		if err := w.Until(ctx, TCPOpen(addr)); err != nil {
			return err
		}
	}
	return nil
}

// HostNets is the data-plane set-up of a host as the topology's exec lines
// apply it, for verification.
func HostNets(l *runtime.Lab, h *fabric.Node) []HostNet {
	var out []HostNet
	for i, p := range h.Ports {
		pfx, _ := netip.ParsePrefix(p.Address)
		out = append(out, HostNet{Container: ContainerName(l.Name, h.Name), Iface: p.Iface, Address: pfx, MTU: fabric.HostMTU, RDMADev: fabric.RXEName(h.Name, i)})
	}
	return out
}

// verifyHosts checks every host NIC's soft-RoCE device. NICs that fail the
// same way are reported together, each named once.
func (r *Runtime) verifyHosts(ctx context.Context, l *runtime.Lab, eng Execer) error {
	var errs []error
	total := 0
	for _, h := range l.Graph.Hosts() {
		for _, hn := range HostNets(l, h) {
			total++
			if err := hn.Verify(ctx, eng); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return exitcode.Env(fmt.Errorf("soft-RoCE is not ready on the hosts (run 'labctl doctor --runtime clab'): %w", GroupNICErrors(errs, total)))
	}
	return nil
}

func (r *Runtime) configPath(l *runtime.Lab, sw string) string {
	ext := sonic.ConfigExt
	if l.NOS == eos.Name {
		ext = eos.ConfigExt
	}
	return filepath.Join(l.ConfigsDir(), sw+ext)
}

func (r *Runtime) login(nos string) Credentials {
	if r.Login != nil {
		return r.Login(nos)
	}
	if nos == eos.Name {
		return DefaultEOSLogin
	}
	return DefaultSONiCLogin
}

// ReadbackDir holds what the switches answered to `show running-config`
// (or CONFIG_DB) after the last push, one file per switch, and a .diff file
// where it differs from the pushed config.
func ReadbackDir(l *runtime.Lab) string { return filepath.Join(l.Dir, "readback") }

func (r *Runtime) pushAll(ctx context.Context, l *runtime.Lab, ssh map[string]SSHAddr, say func(string)) error {
	cred := r.login(l.NOS)
	push := r.PushConfig
	if push == nil {
		push = PushOverSSH
	}
	var jobs []PushJob
	for _, sw := range l.Graph.Switches() {
		name := sw.Name
		path := r.configPath(l, name)
		cfg, err := readlimit.ReadFile(path, readlimit.Config)
		if exitcode.Code(err) == exitcode.BadInput {
			return err
		}
		if err != nil {
			return exitcode.Usagef("read config of %s: %v (labctl config render %s writes the missing ones)", name, err, l.Name)
		}
		addr, ok := ssh[name]
		if !ok {
			return fmt.Errorf("switch %s has no SSH address", name)
		}
		jobs = append(jobs, PushJob{Device: name, Push: func(ctx context.Context) (string, error) {
			return push(ctx, l.NOS, name, addr.Host, addr.Port, cred, cfg)
		}})
	}
	res := r.runPush(ctx, jobs, say)
	if err := r.saveReadbacks(l, res, say); err != nil {
		return err
	}
	return PushErrors(res)
}

// runPush runs the jobs with r.Push's options, reporting progress to say
// unless those name their own writer.
func (r *Runtime) runPush(ctx context.Context, jobs []PushJob, say func(string)) []PushResult {
	opt := r.Push
	if opt.Progress == nil {
		opt.Progress = say
	}
	return PushAll(ctx, jobs, opt)
}

// saveReadbacks writes each switch's read-back and compares its QoS with
// the pushed file's. A difference is reported, not fatal: the device took
// the config, and the read-back is what the simulator and reports use.
func (r *Runtime) saveReadbacks(l *runtime.Lab, res []PushResult, say func(string)) error {
	dir := ReadbackDir(l)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save read-back configs: %w", err)
	}
	codec, err := runtime.Codec(l.NOS)
	if err != nil {
		return err
	}
	for _, pr := range res {
		if pr.Err != nil {
			continue
		}
		path := filepath.Join(dir, pr.Device+codec.ConfigExt())
		if err := runtime.WriteFileAtomic(path, []byte(pr.Readback), 0o644); err != nil {
			return fmt.Errorf("save read-back of %s: %w", pr.Device, err)
		}
		diff, err := CompareReadback(codec, pr.Device, r.configPath(l, pr.Device), pr.Readback)
		diffPath := filepath.Join(dir, pr.Device+".diff")
		switch {
		case err != nil:
			say(fmt.Sprintf("%s: read-back not compared: %v", pr.Device, err))
		case diff != "":
			say(fmt.Sprintf("%s: read-back QoS differs from %s (see %s)", pr.Device, r.configPath(l, pr.Device), diffPath))
			if err := runtime.WriteFileAtomic(diffPath, []byte(diff), 0o644); err != nil {
				return err
			}
		default:
			_ = os.Remove(diffPath)
		}
	}
	return nil
}

// CompareReadback parses the pushed config file and the read-back with the
// NOS's QoS parser and returns their differences ("" when equal).
func CompareReadback(codec runtime.NOSCodec, device, pushedPath, readback string) (string, error) {
	pushed, err := readlimit.ReadFile(pushedPath, readlimit.Config)
	if err != nil {
		return "", err
	}
	return CompareReadbackData(codec, device, pushedPath, pushed, readback)
}

// Cleaner removes what a lab left in the Docker engine when containerlab
// could not (a deploy interrupted half-way, containerlab missing). *Docker
// implements it.
type Cleaner interface {
	// ContainersOf lists the containers labelled containerlab=<lab> and
	// those of names that exist.
	ContainersOf(ctx context.Context, lab string, names []string) ([]string, error)
	// RemoveContainer force-removes a container; a missing one is no error.
	RemoveContainer(ctx context.Context, name string) error
	// RemoveNetworkIfUnused removes a network no container is attached to
	// and reports whether it did; a missing network is no error.
	RemoveNetworkIfUnused(ctx context.Context, name string) (bool, error)
}

// MgmtNetwork is the Docker network containerlab attaches the nodes'
// management interfaces to. labctl's topologies name none, so it is
// containerlab's default, shared by every lab on the host.
const MgmtNetwork = "clab"

// Down implements runtime.Runtime from whatever state the lab is in (up,
// deploying when an up was interrupted, failed): `containerlab destroy
// --cleanup`, then any container of the lab that is still there is removed
// through the Docker engine, and the management network once no container
// uses it. A lab whose topology file is gone and has no containers is down.
func (r *Runtime) Down(ctx context.Context, l *runtime.Lab) error {
	topo, err := r.topology(l)
	if err != nil {
		return err
	}
	say := progress(l)
	var names []string
	for _, n := range l.Graph.Nodes {
		names = append(names, ContainerName(l.Name, n.Name))
	}
	if l.DryRun {
		say("would run: " + strings.Join(r.CLI.DestroyArgs(topo), " "))
		say(fmt.Sprintf("would remove the containers left of lab %s (label containerlab=%s, names clab-%s-<node>) and the %s network if unused", l.Name, l.Name, l.Name, MgmtNetwork))
		return nil
	}
	var destroyErr error
	_, statErr := os.Stat(topo)
	path, lookErr := r.LookPath(firstNonEmpty(r.CLI.Binary, "containerlab"))
	switch {
	case statErr != nil:
		// Nothing containerlab can destroy by; the engine may still hold
		// containers.
	case lookErr != nil:
		destroyErr = exitcode.Envf("containerlab is not installed (not on PATH), so lab %s cannot be destroyed by it", l.Name)
	default:
		r.CLI.Binary = path
		destroyErr = r.CLI.Destroy(ctx, topo)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	eng, err := r.Connect(ctx)
	if err != nil {
		if destroyErr != nil {
			return errors.Join(destroyErr, fmt.Errorf("leftover containers not checked: %w (remove them with 'docker rm -f' on the names starting clab-%s-)", err, l.Name))
		}
		if statErr != nil {
			return nil // no topology, no engine: nothing labctl can see
		}
		say(fmt.Sprintf("leftover containers not checked: %v", err))
		return nil
	}
	defer eng.Close()
	c, ok := eng.(Cleaner)
	if !ok {
		return destroyErr
	}
	left, err := c.ContainersOf(ctx, l.Name, names)
	if err != nil {
		return errors.Join(destroyErr, fmt.Errorf("list containers of lab %s: %w", l.Name, err))
	}
	var errs []error
	for _, name := range left {
		say("removing leftover container " + name)
		if err := c.RemoveContainer(ctx, name); err != nil {
			errs = append(errs, fmt.Errorf("remove container %s: %w", name, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(append([]error{destroyErr}, errs...)...)
	}
	if destroyErr != nil {
		// Every container is gone, which is what destroy was for.
		say(fmt.Sprintf("containerlab destroy failed (%v); the lab's containers are removed", destroyErr))
	}
	removed, err := c.RemoveNetworkIfUnused(ctx, MgmtNetwork)
	if err != nil {
		return fmt.Errorf("remove network %s: %w", MgmtNetwork, err)
	}
	if removed {
		say("removed the " + MgmtNetwork + " network")
	}
	return nil
}

// Status implements runtime.Runtime from `containerlab inspect`: nodes of
// the graph that containerlab does not list are missing. Where containerlab
// cannot answer (not installed, or a lab with no container left, which its
// inspect treats as an error) the Docker engine is asked for each node's
// container instead.
func (r *Runtime) Status(ctx context.Context, l *runtime.Lab) (*runtime.Status, error) {
	topo, err := r.topology(l)
	if err != nil {
		return nil, err
	}
	st := &runtime.Status{Lab: l.Name, Runtime: r.Name(), NOS: l.NOS, State: runtime.StateDown}
	var cs []Container
	var inspectErr error
	if path, err := r.LookPath(firstNonEmpty(r.CLI.Binary, "containerlab")); err == nil {
		r.CLI.Binary = path
		cs, inspectErr = r.CLI.Inspect(ctx, topo)
	} else {
		inspectErr = exitcode.Envf("containerlab is not installed (not on PATH): run 'labctl doctor --runtime clab'")
	}
	if inspectErr != nil {
		if cs, err = r.containersFromEngine(ctx, l); err != nil {
			return nil, errors.Join(inspectErr, err)
		}
	}
	StatusFromInspect(st, l.Graph, cs)
	return st, nil
}

// containersFromEngine lists the lab's containers as inspect would, from
// the Docker engine's state of each node's container (no addresses).
func (r *Runtime) containersFromEngine(ctx context.Context, l *runtime.Lab) ([]Container, error) {
	eng, err := r.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	var cs []Container
	for _, n := range l.Graph.Nodes {
		name := ContainerName(l.Name, n.Name)
		s, err := eng.State(ctx, name)
		if err != nil {
			return nil, err
		}
		if s.Exists {
			cs = append(cs, Container{LabName: l.Name, Name: name, Kind: n.Kind, State: s.Status})
		}
	}
	return cs, nil
}

// StatusFromInspect fills st's nodes and state from inspect's containers.
func StatusFromInspect(st *runtime.Status, g *fabric.Graph, cs []Container) {
	byNode := map[string]Container{}
	for _, c := range cs {
		byNode[c.NodeName()] = c
	}
	running := 0
	for _, n := range g.Nodes {
		ns := runtime.NodeStatus{Name: n.Name, Role: string(n.Role), Kind: n.Kind, State: runtime.NodeMissing}
		if c, ok := byNode[n.Name]; ok {
			ns.Image, ns.Mgmt = c.Image, c.IPv4Address
			switch c.State {
			case "running":
				ns.State = runtime.NodeRunning
				running++
			case "exited", "created", "paused":
				ns.State = runtime.NodeStopped
			default:
				ns.State = runtime.NodeError
			}
		}
		st.Nodes = append(st.Nodes, ns)
	}
	switch {
	case running == len(g.Nodes) && running > 0:
		st.State = runtime.StateUp
	case running > 0:
		st.State = runtime.StateDegraded
	default:
		st.State = runtime.StateDown
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
