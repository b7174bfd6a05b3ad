package clab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab/sshtest"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
)

// fakeEngine is a Docker engine whose containers all run and whose hosts
// have their soft-RoCE devices.
type fakeEngine struct {
	mu      sync.Mutex
	images  map[string]bool
	links   map[string]string // container -> `rdma link` output
	ibv     map[string]string // container -> `ibv_devices` output
	stopped map[string]bool
	execs   [][]string
	// rdmaSays, when set, is what every `rdma` command prints on stderr
	// as it fails: a kernel without RDMA.
	rdmaSays string
}

func (f *fakeEngine) State(_ context.Context, name string) (ContainerState, error) {
	if f.stopped[name] {
		return ContainerState{Exists: true, Status: "exited", ExitCode: 1}, nil
	}
	return ContainerState{Exists: true, Status: "running", Running: true}, nil
}

func (f *fakeEngine) ImagePresent(_ context.Context, ref string) (bool, error) {
	return f.images[ref], nil
}

func (f *fakeEngine) Close() error { return nil }

func (f *fakeEngine) Exec(_ context.Context, ctr string, argv []string, _ ExecOptions) (ExecResult, error) {
	f.mu.Lock()
	f.execs = append(f.execs, append([]string{ctr}, argv...))
	f.mu.Unlock()
	switch argv[0] {
	case "rdma":
		if f.rdmaSays != "" {
			return ExecResult{Stderr: []byte(f.rdmaSays), ExitCode: 1}, nil
		}
		return ExecResult{Stdout: []byte(f.links[ctr])}, nil
	case "ibv_devices":
		return ExecResult{Stdout: []byte(f.ibv[ctr])}, nil
	case "sh":
		return ExecResult{Stdout: []byte("/usr/bin/ib_write_bw\n/usr/bin/ib_write_lat\n")}, nil
	}
	return ExecResult{ExitCode: 127}, nil
}

// labRunner plays containerlab for a lab: deploy succeeds, inspect lists
// every node running.
type labRunner struct {
	l     *runtime.Lab
	calls [][]string
	mgmt  string // every node's management address, when set
}

func (r *labRunner) Run(_ context.Context, argv []string) ([]byte, []byte, error) {
	r.calls = append(r.calls, argv)
	if argv[1] != "inspect" {
		return nil, nil, nil
	}
	var cs []Container
	for i, n := range r.l.Graph.Nodes {
		ip := fmt.Sprintf("172.20.20.%d/24", i+2)
		if r.mgmt != "" {
			ip = r.mgmt
		}
		cs = append(cs, Container{LabName: r.l.Name, Name: ContainerName(r.l.Name, n.Name), Kind: n.Kind, Image: "img", State: "running", IPv4Address: ip})
	}
	b, _ := json.Marshal(map[string][]Container{r.l.Name: cs})
	return b, nil, nil
}

// testLab is the 16-GPU catalog lab rendered in a test's folder.
func testLab(t *testing.T) *runtime.Lab { return runtimetest.RenderedLab(t, "16gpu", "") }

func readyEngine(l *runtime.Lab) *fakeEngine {
	f := &fakeEngine{images: map[string]bool{}, links: map[string]string{}, ibv: map[string]string{}, stopped: map[string]bool{}}
	for _, ref := range images(l) {
		f.images[ref] = true
	}
	for _, h := range l.Graph.Hosts() {
		var links, ibv strings.Builder
		for _, hn := range HostNets(l, h) {
			fmt.Fprintf(&links, "link %s/1 state ACTIVE physical_state LINK_UP netdev %s\n", hn.RDMADev, hn.Iface)
			fmt.Fprintf(&ibv, "    %s\t505400fffe000000\n", hn.RDMADev)
		}
		c := ContainerName(l.Name, h.Name)
		f.links[c], f.ibv[c] = links.String(), ibv.String()
	}
	return f
}

type pushCall struct{ nos, node, host, user string }

func testRuntime(l *runtime.Lab, eng *fakeEngine, pushes *[]pushCall, pushErr map[string]error) (*Runtime, *labRunner) {
	runner := &labRunner{l: l}
	var mu sync.Mutex
	r := &Runtime{
		CLI:      CLI{Runner: runner},
		Connect:  func(context.Context) (Engine, error) { return eng, nil },
		LookPath: func(string) (string, error) { return "/usr/bin/containerlab", nil },
		PushConfig: func(_ context.Context, nos, node, host string, _ int, cred Credentials, cfg []byte) (string, error) {
			mu.Lock()
			*pushes = append(*pushes, pushCall{nos, node, host, cred.Username})
			mu.Unlock()
			if err := pushErr[node]; err != nil {
				return "", err
			}
			return string(cfg), nil
		},
		Push:        PushOptions{Backoff: 1},
		SkipSSHWait: true,
	}
	return r, runner
}

func TestUpDeploysWaitsVerifiesAndPushes(t *testing.T) {
	l := testLab(t)
	var out bytes.Buffer
	l.Progress = &out
	var pushes []pushCall
	r, runner := testRuntime(l, readyEngine(l), &pushes, nil)
	if err := r.Up(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	topo := filepath.Join(l.Dir, "16gpu.clab.yml")
	if !slices.Equal(runner.calls[0], []string{"/usr/bin/containerlab", "deploy", "-t", topo, "--reconfigure"}) {
		t.Errorf("first call %q", runner.calls[0])
	}
	if len(pushes) != len(l.Graph.Switches()) {
		t.Fatalf("pushed %d switches, the lab has %d", len(pushes), len(l.Graph.Switches()))
	}
	for _, p := range pushes {
		if p.nos != "sonic" || !strings.HasPrefix(p.host, "172.20.20.") || strings.Contains(p.host, "/") || p.user != "admin" {
			t.Errorf("push %+v", p)
		}
		rb, err := os.ReadFile(filepath.Join(ReadbackDir(l), p.node+".json"))
		if err != nil || len(rb) == 0 {
			t.Errorf("no read-back saved for %s: %v", p.node, err)
		}
		if _, err := os.Stat(filepath.Join(ReadbackDir(l), p.node+".diff")); err == nil {
			t.Errorf("%s: a diff was written for an identical read-back", p.node)
		}
	}
	if !strings.Contains(out.String(), "configuration applied and read back") {
		t.Errorf("progress lacks push lines:\n%s", out.String())
	}
}

func TestUpPushFailureNamesDevice(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	r, _ := testRuntime(l, readyEngine(l), &pushes, map[string]error{"leaf1": errors.New("push to leaf1: apply: exit status 1; device said: Error: bad table")})
	err := r.Up(context.Background(), l)
	if err == nil || !strings.Contains(err.Error(), "leaf1") || !strings.Contains(err.Error(), "Error: bad table") {
		t.Fatalf("error = %v", err)
	}
}

func TestUpMissingEnvironment(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	eng := readyEngine(l)
	delete(eng.images, "labctl/rdma-host:latest")
	r, runner := testRuntime(l, eng, &pushes, nil)
	r.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	err := r.Up(context.Background(), l)
	if exitcode.Code(err) != exitcode.Environment {
		t.Fatalf("error %v has code %d, want 3", err, exitcode.Code(err))
	}
	for _, want := range []string{"containerlab is not installed", "labctl/rdma-host:latest is not present", "labctl doctor", "--runtime sim"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(runner.calls) != 0 {
		t.Errorf("containerlab ran despite the failed preflight: %q", runner.calls)
	}
}

func TestUpNoDocker(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	r, _ := testRuntime(l, readyEngine(l), &pushes, nil)
	r.Connect = func(context.Context) (Engine, error) {
		return nil, exitcode.Envf("docker engine at unix:///var/run/docker.sock is not reachable")
	}
	err := r.Up(context.Background(), l)
	if exitcode.Code(err) != exitcode.Environment || !strings.Contains(err.Error(), "docker engine") {
		t.Fatalf("error = %v", err)
	}
}

func TestUpHostWithoutRXE(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	eng := readyEngine(l)
	eng.links[ContainerName(l.Name, "host2")] = ""
	r, _ := testRuntime(l, eng, &pushes, nil)
	err := r.Up(context.Background(), l)
	if exitcode.Code(err) != exitcode.Environment {
		t.Fatalf("error = %v", err)
	}
	// One line for the problem, each NIC named once.
	msg := err.Error()
	if !strings.Contains(msg, "RDMA device missing from 'rdma link' on 8 of 16 NICs: clab-16gpu-host2 (rxe-host2-0 .. rxe-host2-7)") || strings.Count(msg, "missing") != 1 || strings.Contains(msg, "\n") {
		t.Errorf("error = %v", err)
	}
	for i := 1; i < 7; i++ {
		if strings.Contains(msg, fmt.Sprintf("rxe-host2-%d,", i)) || strings.Count(msg, fmt.Sprintf("rxe-host2-%d", i)) > 0 {
			t.Errorf("NIC %d named in %q", i, msg)
		}
	}
	if len(pushes) != 0 {
		t.Error("switches were pushed although the hosts are not ready")
	}
}

// On a kernel without RDMA `rdma link` itself fails: what the tool said is
// reported once, with every NIC named once (as a live containerlab lab on
// such a kernel showed: before, one line per host repeated the error).
func TestUpKernelWithoutRDMA(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	eng := readyEngine(l)
	eng.rdmaSays = "Failed to open NETLINK_RDMA socket\n"
	r, _ := testRuntime(l, eng, &pushes, nil)
	err := r.Up(context.Background(), l)
	want := "RDMA device cannot be listed: 'rdma link' exited with status 1: Failed to open NETLINK_RDMA socket (this kernel has no RDMA support) on 16 of 16 NICs: clab-16gpu-host1 (rxe-host1-0 .. rxe-host1-7), clab-16gpu-host2 (rxe-host2-0 .. rxe-host2-7)"
	if exitcode.Code(err) != exitcode.Environment || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error = %v\nwant one line with %q", err, want)
	}
}

// Different problems get a line each; a NIC is named under its own.
func TestGroupNICErrors(t *testing.T) {
	errs := []error{
		&NICNotReady{Container: "h1", Dev: "rxe-h1-0", Problem: "missing from 'rdma link'"},
		&NICNotReady{Container: "h1", Dev: "rxe-h1-1", Problem: "missing from 'rdma link'"},
		&NICNotReady{Container: "h2", Dev: "rxe-h2-0", Problem: "is DOWN, want ACTIVE (is eth1 up?)"},
		errors.New("host h2: perftest is not installed"),
		errors.New("host h2: perftest is not installed"),
	}
	got := GroupNICErrors(errs, 4).Error()
	want := "RDMA device missing from 'rdma link' on 2 of 4 NICs: h1 (rxe-h1-0, rxe-h1-1)\n" +
		"RDMA device is DOWN, want ACTIVE (is eth1 up?) on 1 of 4 NICs: h2 (rxe-h2-0)\n" +
		"host h2: perftest is not installed"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Everything doctor can tell before a deploy stops the up before
// containerlab runs: a kernel without soft-RoCE is exit 3 with nothing
// deployed, and warnings are shown.
func TestUpChecksEnvironmentBeforeDeploy(t *testing.T) {
	l := testLab(t)
	var out bytes.Buffer
	l.Progress = &out
	var pushes []pushCall
	r, runner := testRuntime(l, readyEngine(l), &pushes, nil)
	var asked *runtime.Lab
	r.EnvCheck = func(_ context.Context, lab *runtime.Lab, _ bool) ([]string, []string) {
		asked = lab
		return []string{"rdma_rxe: no RDMA (rxe) support in this kernel (fix: modprobe rdma_rxe)"}, []string{"memlock: memlock limit is 8192 KiB"}
	}
	err := r.Up(context.Background(), l)
	if exitcode.Code(err) != exitcode.Environment || !strings.Contains(err.Error(), "rdma_rxe: no RDMA (rxe) support") || !strings.Contains(err.Error(), "--runtime sim") {
		t.Fatalf("error = %v", err)
	}
	if len(runner.calls) != 0 {
		t.Errorf("containerlab ran although the kernel lacks soft-RoCE: %q", runner.calls)
	}
	if asked != l {
		t.Error("EnvCheck was not given the lab")
	}
	if !strings.Contains(out.String(), "warning: memlock: memlock limit is 8192 KiB") {
		t.Errorf("warning not shown:\n%s", out.String())
	}
	// The same check passing lets the up go on.
	r.EnvCheck = func(context.Context, *runtime.Lab, bool) ([]string, []string) { return nil, nil }
	if err := r.Up(context.Background(), l); err != nil {
		t.Fatal(err)
	}
}

// Without a Docker engine the up still names the kernel's problems:
// EnvCheck runs, told there is no engine, and its problems join the
// engine's in one error (exit 3), as doctor lists them.
func TestUpWithoutEngineNamesKernelProblems(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	r, runner := testRuntime(l, readyEngine(l), &pushes, nil)
	r.Connect = func(context.Context) (Engine, error) { return nil, errors.New("docker engine is not reachable") }
	engineSeen := true
	r.EnvCheck = func(_ context.Context, _ *runtime.Lab, engineUp bool) ([]string, []string) {
		engineSeen = engineUp
		return []string{"rdma_rxe: no RDMA (rxe) support in this kernel (fix: modprobe rdma_rxe)"}, nil
	}
	err := r.Up(context.Background(), l)
	if exitcode.Code(err) != exitcode.Environment || !strings.Contains(err.Error(), "docker engine is not reachable") || !strings.Contains(err.Error(), "rdma_rxe: no RDMA (rxe) support") {
		t.Fatalf("error = %v", err)
	}
	if engineSeen {
		t.Error("EnvCheck was told an engine answered")
	}
	if len(runner.calls) != 0 {
		t.Errorf("containerlab ran: %q", runner.calls)
	}
}

func TestUpExitedContainer(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	eng := readyEngine(l)
	eng.stopped[ContainerName(l.Name, "leaf1")] = true
	r, _ := testRuntime(l, eng, &pushes, nil)
	err := r.Up(context.Background(), l)
	if err == nil || !strings.Contains(err.Error(), "leaf1") || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("error = %v", err)
	}
}

func TestUpDryRun(t *testing.T) {
	l := testLab(t)
	l.DryRun = true
	var out bytes.Buffer
	l.Progress = &out
	var pushes []pushCall
	r, runner := testRuntime(l, readyEngine(l), &pushes, nil)
	if err := r.Up(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if len(runner.calls) != 0 || len(pushes) != 0 {
		t.Error("dry run changed something")
	}
	if !strings.Contains(out.String(), "would run: containerlab deploy -t") || !strings.Contains(out.String(), "would push") {
		t.Errorf("dry run said:\n%s", out.String())
	}
}

func TestStatusAndDown(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	r, runner := testRuntime(l, readyEngine(l), &pushes, nil)
	st, err := r.Status(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != runtime.StateUp || len(st.Nodes) != len(l.Graph.Nodes) || st.Nodes[0].Mgmt == "" {
		t.Errorf("status = %+v", st)
	}
	if err := r.Down(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	last := runner.calls[len(runner.calls)-1]
	if last[1] != "destroy" || last[len(last)-1] != "--cleanup" {
		t.Errorf("down ran %q", last)
	}
	// With the topology gone the lab is down already.
	if err := os.Remove(filepath.Join(l.Dir, l.Graph.TopologyFile())); err != nil {
		t.Fatal(err)
	}
	n := len(runner.calls)
	if err := r.Down(context.Background(), l); err != nil || len(runner.calls) != n {
		t.Errorf("down without topology: %v, calls %d -> %d", err, n, len(runner.calls))
	}
}

// Where containerlab cannot answer (its inspect fails for a lab with no
// container left, or it is not installed), the engine is asked.
func TestStatusFallsBackToTheEngine(t *testing.T) {
	l := testLab(t)
	eng := readyEngine(l)
	eng.stopped[ContainerName(l.Name, "host2")] = true
	r := &Runtime{
		CLI:      CLI{Runner: failingRunner{}},
		Connect:  func(context.Context) (Engine, error) { return eng, nil },
		LookPath: func(string) (string, error) { return "/usr/bin/containerlab", nil },
	}
	for _, name := range []string{"inspect fails", "no containerlab"} {
		if name == "no containerlab" {
			r.LookPath = func(string) (string, error) { return "", errors.New("not found") }
		}
		st, err := r.Status(context.Background(), l)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := map[string]string{}
		for _, n := range st.Nodes {
			got[n.Name] = n.State
		}
		if st.State != runtime.StateDegraded || got["leaf1"] != runtime.NodeRunning || got["host2"] != runtime.NodeStopped {
			t.Errorf("%s: state %s, nodes %v", name, st.State, got)
		}
	}
	// No engine either: the error says both.
	r.Connect = func(context.Context) (Engine, error) { return nil, errors.New("docker engine is not reachable") }
	if _, err := r.Status(context.Background(), l); err == nil || !strings.Contains(err.Error(), "not installed") || !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("error = %v", err)
	}
}

// failingRunner plays a containerlab whose every command fails, as its
// inspect does for a lab without containers.
type failingRunner struct{}

func (failingRunner) Run(context.Context, []string) ([]byte, []byte, error) {
	return nil, []byte("Failed to list containers based on topology: containers not found."), errors.New("exit status 1")
}

func TestStatusFromInspect(t *testing.T) {
	l := testLab(t)
	cs := []Container{
		{LabName: l.Name, Name: ContainerName(l.Name, "leaf1"), State: "running"},
		{LabName: l.Name, Name: ContainerName(l.Name, "host1"), State: "exited"},
	}
	st := &runtime.Status{}
	StatusFromInspect(st, l.Graph, cs)
	if st.State != runtime.StateDegraded {
		t.Errorf("state %s, want degraded", st.State)
	}
	got := map[string]string{}
	for _, n := range st.Nodes {
		got[n.Name] = n.State
	}
	if got["leaf1"] != runtime.NodeRunning || got["host1"] != runtime.NodeStopped || got["spine1"] != runtime.NodeMissing {
		t.Errorf("nodes %v", got)
	}
	st = &runtime.Status{}
	StatusFromInspect(st, l.Graph, nil)
	if st.State != runtime.StateDown {
		t.Errorf("no containers: state %s", st.State)
	}
}

func TestUpWaitsForSwitchSSH(t *testing.T) {
	l := testLab(t)
	var pushes []pushCall
	r, runner := testRuntime(l, readyEngine(l), &pushes, nil)
	runner.mgmt = "127.0.0.1/8"
	r.SkipSSHWait = false
	r.SSHPort = sshtest.ClosedPort(t)
	r.ReadyTimeout = 100 * time.Millisecond
	err := r.Up(context.Background(), l)
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "SSH on 127.0.0.1:") {
		t.Fatalf("error = %v", err)
	}
	if len(pushes) != 0 {
		t.Error("pushed before SSH was up")
	}
}

// Preflight (what the lifecycle runs before it writes anything) checks
// what Up would and changes nothing; the Up of that lab right after it
// does not check again (EnvCheck may start a container, and its warnings
// would show twice); a later Up without one checks.
func TestPreflightThenUpChecksOnce(t *testing.T) {
	l := testLab(t)
	var out bytes.Buffer
	l.Progress = &out
	var pushes []pushCall
	r, runner := testRuntime(l, readyEngine(l), &pushes, nil)
	var _ runtime.Preflighter = r
	checks := 0
	r.EnvCheck = func(context.Context, *runtime.Lab, bool) ([]string, []string) {
		checks++
		return nil, []string{"memlock: memlock limit is 8192 KiB"}
	}
	if err := r.Preflight(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if checks != 1 || len(runner.calls) != 0 || len(pushes) != 0 {
		t.Fatalf("Preflight: %d checks, containerlab calls %q, %d pushes", checks, runner.calls, len(pushes))
	}
	if err := r.Up(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if checks != 1 || strings.Count(out.String(), "warning: memlock") != 1 {
		t.Errorf("Up after Preflight: %d checks, warning shown %d times; want 1 and 1", checks, strings.Count(out.String(), "warning: memlock"))
	}
	if err := r.Up(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if checks != 2 {
		t.Errorf("Up without a Preflight: %d checks in all, want 2", checks)
	}
	// A failing Preflight names what is missing, as Up does.
	r.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	if err := r.Preflight(context.Background(), l); exitcode.Code(err) != exitcode.Environment || !strings.Contains(err.Error(), "containerlab is not installed") {
		t.Errorf("Preflight without containerlab: %v", err)
	}
}
