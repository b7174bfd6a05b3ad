//go:build containerlab

package clab

// Tests against a real containerlab and Docker engine. CI cannot install
// containerlab, so they skip (with a message) where none is on PATH. Run:
//
//	go test -tags containerlab -v ./orchestrator/runtime/clab -run Containerlab
//
// They need root, Docker, containerlab and the host image (built when
// missing, from Debian packages: labctl image build).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/network"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab/hostimage"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
)

// clabDefaultMTU is the MTU containerlab gives both ends of a link that
// names none (labctl's topologies name none; the hosts' exec lines lower
// their ends to fabric.HostMTU).
const clabDefaultMTU = 9500

func needContainerlab(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("containerlab")
	if err != nil {
		t.Skip("no containerlab on PATH: these tests deploy real labs (build containerlab from github.com/srl-labs/containerlab and put it on PATH)")
	}
	return path
}

// logWriter sends a command's output to the test log line by line.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.t.Log(line)
	}
	return len(p), nil
}

// hostImage returns the host image, building it when it is missing.
// containerlabLab is the containerlab binary, a Docker engine (closed
// when the test ends) and the 16gpu catalog lab rendered under a name of
// its own (prefix and the process id, so parallel runs do not collide),
// its switches run from the host image.
func containerlabLab(t *testing.T, prefix string) (string, *Docker, *runtime.Lab) {
	t.Helper()
	bin := needContainerlab(t)
	d, err := NewDocker(context.Background())
	if err != nil {
		t.Fatalf("containerlab is on PATH but %v", err)
	}
	t.Cleanup(func() { d.Close() })
	img := hostImage(t, d)
	spec, err := lab.Resolve("16gpu")
	if err != nil {
		t.Fatal(err)
	}
	s := *spec
	s.Name = prefix + strconv.Itoa(os.Getpid()%100000)
	s.Images.SONiC = img
	l, err := runtime.NewLab(&s, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runtime.RenderLab(l); err != nil {
		t.Fatal(err)
	}
	return bin, d, l
}

func hostImage(t *testing.T, d *Docker) string {
	t.Helper()
	ref := lab.DefaultHostImage
	if ok, err := d.ImagePresent(context.Background(), ref); err != nil {
		t.Fatal(err)
	} else if ok {
		return ref
	}
	t.Logf("%s is missing: building it from Debian packages", ref)
	if _, err := hostimage.Build(context.Background(), hostimage.ExecTools{}, hostimage.Options{Method: hostimage.Debootstrap, Tag: ref, Progress: logWriter{t}}); err != nil {
		t.Fatalf("build %s: %v", ref, err)
	}
	return ref
}

// hostVeths lists the host's veth interfaces.
func hostVeths(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("ip", "-o", "link", "show", "type", "veth").Output()
	if err != nil {
		t.Fatalf("ip link: %v", err)
	}
	veths := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 {
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			veths[name] = true
		}
	}
	return veths
}

// ifaceInfo is what `ip -o link show dev X` says about an interface.
type ifaceInfo struct {
	index, peerIndex, mtu int
	up                    bool
}

var ipLinkRE = regexp.MustCompile(`^(\d+): ([^:@]+)(?:@if(\d+))?: <([^>]*)> mtu (\d+)`)

func linkInfo(ctx context.Context, t *testing.T, d *Docker, ctr, iface string) (ifaceInfo, error) {
	r, err := ExecOK(ctx, d, ctr, []string{"ip", "-o", "link", "show", "dev", iface}, ExecOptions{Timeout: 15 * time.Second})
	if err != nil {
		return ifaceInfo{}, err
	}
	m := ipLinkRE.FindStringSubmatch(strings.TrimSpace(string(r.Stdout)))
	if m == nil || m[2] != iface {
		return ifaceInfo{}, fmt.Errorf("%s: unexpected ip link output %q", ctr, r.Stdout)
	}
	var info ifaceInfo
	info.index, _ = strconv.Atoi(m[1])
	info.peerIndex, _ = strconv.Atoi(m[3])
	info.mtu, _ = strconv.Atoi(m[5])
	info.up = strings.Contains(","+m[4]+",", ",UP,")
	return info, nil
}

// TestContainerlabDeploysCatalogLab deploys the 16gpu catalog lab with
// containerlab, the switch image replaced by the host image (no SONiC
// image can be had here): every link end must exist in its container with
// the expected name and MTU, the veth pairs must join exactly the ends the
// graph says, the SONiC kind's set-up (HWSKU, the startup CONFIG_DB in
// place) must have reached the switch containers, labctl's host set-up must
// run against the hosts, and down must leave nothing: no container,
// network, network namespace, veth, lab directory or /etc/hosts entry.
func TestContainerlabDeploysCatalogLab(t *testing.T) {
	bin, d, l := containerlabLab(t, "clabtest")
	ctx := context.Background()
	r := New()
	r.CLI = CLI{Binary: bin, Runner: ExecRunner{Progress: logWriter{t}}}
	topo := filepath.Join(l.Dir, l.Graph.TopologyFile())

	// What the machine has before, to tell what the lab leaves.
	vethsBefore := hostVeths(t)
	_, netErr := sdk(t).NetworkInspect(ctx, MgmtNetwork, network.InspectOptions{})
	clabNetBefore := netErr == nil

	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			_ = r.Down(context.Background(), l)
		}
	})
	t.Logf("containerlab deploy -t %s", topo)
	start := time.Now()
	if err := r.CLI.Deploy(ctx, topo, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("deployed %d containers and %d links in %v", len(l.Graph.Nodes), len(l.Graph.Links), time.Since(start).Round(100*time.Millisecond))
	cs, err := r.CLI.Inspect(ctx, topo)
	if err != nil {
		t.Fatal(err)
	}
	running := map[string]bool{}
	for _, c := range cs {
		running[c.NodeName()] = c.State == "running"
	}
	for _, n := range l.Graph.Nodes {
		if !running[n.Name] {
			t.Errorf("inspect: %s is not running (%v)", n.Name, cs)
		}
	}
	if err := r.waitRunning(ctx, l, d, func(string) {}); err != nil {
		t.Fatal(err)
	}

	// Every link end, on both sides: present, named as the graph says,
	// with its MTU; and each veth's peer is the other end of its link.
	checked := 0
	for _, link := range l.Graph.Links {
		a, errA := linkInfo(ctx, t, d, ContainerName(l.Name, link.A.Node), link.A.Iface)
		b, errB := linkInfo(ctx, t, d, ContainerName(l.Name, link.B.Node), link.B.Iface)
		if err := errors.Join(errA, errB); err != nil {
			t.Errorf("link %d %s:%s - %s:%s: %v", link.ID, link.A.Node, link.A.Iface, link.B.Node, link.B.Iface, err)
			continue
		}
		wantA := clabDefaultMTU
		if link.Kind == fabric.KindHostLeaf {
			wantA = fabric.HostMTU // the host's exec lines set it
		}
		if a.mtu != wantA || b.mtu != clabDefaultMTU {
			t.Errorf("link %d: MTU %s:%s %d (want %d), %s:%s %d (want %d)", link.ID, link.A.Node, link.A.Iface, a.mtu, wantA, link.B.Node, link.B.Iface, b.mtu, clabDefaultMTU)
		}
		if a.peerIndex != b.index || b.peerIndex != a.index {
			t.Errorf("link %d: %s:%s (index %d, peer %d) and %s:%s (index %d, peer %d) are not one veth pair", link.ID, link.A.Node, link.A.Iface, a.index, a.peerIndex, link.B.Node, link.B.Iface, b.index, b.peerIndex)
		}
		if !a.up || !b.up {
			t.Errorf("link %d: not up on both ends (%v, %v)", link.ID, a.up, b.up)
		}
		checked += 2
	}
	t.Logf("checked %d link ends of %d links: names, MTU (hosts %d, switches %d), veth peers, state", checked, len(l.Graph.Links), fabric.HostMTU, clabDefaultMTU)

	// The sonic-vs kind's set-up reached the switch containers.
	for _, sw := range l.Graph.Switches() {
		ctr := ContainerName(l.Name, sw.Name)
		r1, err := ExecOK(ctx, d, ctr, []string{"sh", "-c", "echo \"$HWSKU\"; cat /etc/sonic/config_db.json"}, ExecOptions{Timeout: 15 * time.Second})
		if err != nil {
			t.Errorf("%s: %v", sw.Name, err)
			continue
		}
		sku, db, _ := strings.Cut(string(r1.Stdout), "\n")
		want, err := os.ReadFile(filepath.Join(l.Dir, l.Graph.StartupFile(sw.Name)))
		if err != nil {
			t.Fatal(err)
		}
		if sku != fabric.SonicHWSKU || db != string(want) {
			t.Errorf("%s: HWSKU %q and a config_db.json of %d bytes; want %s and startup/%s.json (%d bytes)", sw.Name, sku, len(db), fabric.SonicHWSKU, sw.Name, len(want))
		}
	}

	// labctl's host set-up, run again over what the exec lines did: the
	// addresses, MTU and links; soft-RoCE only where the kernel has it.
	// On a kernel without rdma_rxe every NIC's set-up stops at its rxe
	// device, with the same error; then the rest is set up without it.
	nics, noRXE := 0, 0
	var rxeErr error
	for _, h := range l.Graph.Hosts() {
		for _, hn := range HostNets(l, h) {
			nics++
			err := hn.Setup(ctx, d)
			if err != nil && strings.Contains(err.Error(), "create soft-RoCE device") {
				noRXE++
				rxeErr = err
				hn.RDMADev = ""
				err = hn.Setup(ctx, d)
			}
			if err != nil {
				t.Errorf("%s %s: %v", h.Name, hn.Iface, err)
				continue
			}
			out, err := ExecOK(ctx, d, hn.Container, []string{"ip", "-o", "-4", "addr", "show", "dev", hn.Iface}, ExecOptions{Timeout: 15 * time.Second})
			if err != nil || !strings.Contains(string(out.Stdout), " "+hn.Address.String()+" ") {
				t.Errorf("%s %s: address %s not set: %q %v", h.Name, hn.Iface, hn.Address, out.Stdout, err)
			}
			info, err := linkInfo(ctx, t, d, hn.Container, hn.Iface)
			if err != nil || info.mtu != fabric.HostMTU || !info.up {
				t.Errorf("%s %s: %+v %v", h.Name, hn.Iface, info, err)
			}
		}
		// The exec lines' source routing: one rule per NIC.
		out, err := ExecOK(ctx, d, ContainerName(l.Name, h.Name), []string{"ip", "rule"}, ExecOptions{Timeout: 15 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range h.Ports {
			ip, _, _ := net.ParseCIDR(p.Address)
			if !strings.Contains(string(out.Stdout), fmt.Sprintf("from %s lookup %d", ip, 101+i)) {
				t.Errorf("%s: no rule for NIC %d (%s):\n%s", h.Name, i, ip, out.Stdout)
			}
		}
	}
	if noRXE != 0 && noRXE != nics {
		t.Errorf("soft-RoCE set-up failed on %d of %d NICs: %v", noRXE, nics, rxeErr)
	}
	if noRXE == 0 {
		t.Logf("host set-up ran on %d NICs of %d hosts, soft-RoCE devices included", nics, len(l.Graph.Hosts()))
	} else {
		t.Logf("host set-up ran on %d NICs of %d hosts; this kernel has no soft-RoCE, so each stopped at its rxe device (%v) and the rest was set up without it", nics, len(l.Graph.Hosts()), rxeErr)
	}

	// The runtime's readiness check reports the hosts' soft-RoCE state in
	// one line per problem.
	verr := r.verifyHosts(ctx, l, d)
	if noRXE != 0 {
		want := fmt.Sprintf(" on %d of %d NICs: ", nics, nics)
		if verr == nil || !strings.Contains(verr.Error(), want) || strings.Count(verr.Error(), "\n") != 0 {
			t.Errorf("verifyHosts = %v, want one line with %q", verr, want)
		} else {
			t.Logf("verifyHosts: %v", verr)
		}
	} else if verr != nil {
		t.Errorf("verifyHosts: %v", verr)
	}

	// Down, then nothing of the lab is left.
	start = time.Now()
	if err := r.Down(ctx, l); err != nil {
		t.Fatalf("down: %v", err)
	}
	destroyed = true
	t.Logf("destroyed in %v", time.Since(start).Round(100*time.Millisecond))
	left, err := r.Leftovers(ctx, l)
	if err != nil || len(left) != 0 {
		t.Errorf("left after down: %q, %v", left, err)
	}
	var newVeths []string
	for v := range hostVeths(t) {
		if !vethsBefore[v] {
			newVeths = append(newVeths, v)
		}
	}
	// Other containers may come and go on this engine meanwhile: a veth
	// on docker's default bridge is theirs, not the lab's.
	var ours []string
	for _, v := range newVeths {
		if master, _ := os.ReadFile("/sys/class/net/" + v + "/master/uevent"); !strings.Contains(string(master), "INTERFACE=docker0") {
			ours = append(ours, v)
		}
	}
	if len(ours) != 0 {
		t.Errorf("veths left on the host: %q", ours)
	}
	if _, err := sdk(t).NetworkInspect(ctx, MgmtNetwork, network.InspectOptions{}); err == nil && !clabNetBefore {
		t.Errorf("the %s network is left", MgmtNetwork)
	}
	if _, err := os.Stat(filepath.Join(l.Dir, "clab-"+l.Name)); !os.IsNotExist(err) {
		t.Errorf("containerlab's lab directory is left: %v", err)
	}
	if hosts, err := os.ReadFile("/etc/hosts"); err == nil && strings.Contains(string(hosts), "clab-"+l.Name+"-") {
		t.Errorf("/etc/hosts keeps entries of the lab")
	}
	if _, err := os.Stat("/etc/ssh/ssh_config.d/clab-" + l.Name + ".conf"); !os.IsNotExist(err) {
		t.Errorf("containerlab's SSH config of the lab is left: %v", err)
	}
	t.Logf("after down: no container, network namespace, veth, %s network (it existed before: %v), lab directory, /etc/hosts entry or SSH config of the lab", MgmtNetwork, clabNetBefore)
}

// TestContainerlabValidatesCatalog runs `containerlab validate` on every
// catalog topology as labctl writes it (SONiC and EOS): what `labctl up
// <lab> --runtime clab --dry-run` would deploy.
func TestContainerlabValidatesCatalog(t *testing.T) {
	bin := needContainerlab(t)
	for _, name := range []string{"16gpu", "64gpu", "128gpu", "1024gpu"} {
		for _, nos := range []string{fabric.NOSSonic, fabric.NOSEOS} {
			l := runtimetest.RenderedLab(t, name, nos)
			topo := filepath.Join(l.Dir, l.Graph.TopologyFile())
			out, err := exec.Command(bin, "validate", "-t", topo).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Topology is valid") {
				t.Errorf("%s (%s): containerlab validate: %v\n%s", name, nos, err, out)
				continue
			}
			most := 0
			for _, sw := range l.Graph.Switches() {
				most = max(most, len(sw.Ports))
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			t.Logf("%s (%s): %s; busiest switch %d of %d ports", name, nos, strings.TrimSpace(lines[len(lines)-1]), most, l.Graph.PortBudget.MaxDataPorts)
		}
	}
}

// TestContainerlabInterruptedAndFailedUp brings a lab up through the
// runtime and its lifecycle twice. First it is interrupted (Ctrl-C) while
// containerlab deploys: containerlab must get the interrupt and destroy,
// labctl clean up, and nothing be left. Then an up that fails after the
// deploy (here: no soft-RoCE, or no SSH on the stand-in switches) leaves
// the lab's containers running, and the runtime's status must show them
// whatever the recorded state says; down then removes everything.
func TestContainerlabInterruptedAndFailedUp(t *testing.T) {
	bin, d, l := containerlabLab(t, "clabint")
	ctx := context.Background()
	l.Progress = logWriter{t} // labctl's own steps, the clean-up's included
	var out syncBuffer
	newRuntime := func() *Runtime {
		r := New()
		r.CLI = CLI{Binary: bin, Runner: ExecRunner{Progress: &out}}
		r.ReadyTimeout = 20 * time.Second
		return r
	}
	t.Cleanup(func() { _ = newRuntime().Down(context.Background(), l) })
	vethsBefore := hostVeths(t)

	// 1. Ctrl-C once the first container of the lab exists.
	r := newRuntime()
	upCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := runtime.Up(upCtx, r, l, nil)
		done <- err
	}()
	names := make([]string, 0, len(l.Graph.Nodes))
	for _, n := range l.Graph.Nodes {
		names = append(names, ContainerName(l.Name, n.Name))
	}
	for {
		cs, err := d.ContainersOf(ctx, l.Name, names)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) > 0 {
			t.Logf("interrupting the up %v after it started: %d container(s) exist: %q", time.Since(start).Round(10*time.Millisecond), len(cs), cs)
			break
		}
		if time.Since(start) > 2*time.Minute {
			t.Fatal("no container appeared")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	err := <-done
	t.Logf("the interrupted up returned after %v: %v", time.Since(start).Round(100*time.Millisecond), err)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cleaned up: nothing of the lab is left") {
		t.Errorf("interrupted up: %v", err)
	}
	said := string(out.Bytes())
	if !strings.Contains(said, "received signal") {
		t.Errorf("containerlab did not get the interrupt:\n%s", said)
	}
	for _, line := range strings.Split(said, "\n") {
		if strings.Contains(line, "signal") || strings.Contains(line, "Destroying") || strings.Contains(line, "Removed container") {
			t.Logf("containerlab: %s", strings.TrimSpace(line))
		}
	}
	st, err := runtime.ReadState(l.Dir)
	if err != nil || st == nil || st.State != runtime.StateFailed || !strings.Contains(st.Error, "nothing of the lab is left") {
		t.Errorf("state after the interrupted up: %+v, %v", st, err)
	}
	if left, err := r.Leftovers(ctx, l); err != nil || len(left) != 0 {
		t.Errorf("left after the interrupted up: %q, %v", left, err)
	}
	for v := range hostVeths(t) {
		if master, _ := os.ReadFile("/sys/class/net/" + v + "/master/uevent"); !vethsBefore[v] && !strings.Contains(string(master), "INTERFACE=docker0") {
			t.Errorf("veth %s left after the interrupted up", v)
		}
	}

	// 2. An up that fails after the deploy leaves its containers running;
	// status shows them.
	r = newRuntime()
	_, err = runtime.Up(ctx, r, l, nil)
	if err == nil {
		t.Fatal("the up succeeded with stand-in switches")
	}
	t.Logf("the second up failed as expected: %v", err)
	st, _ = runtime.ReadState(l.Dir)
	if st == nil || st.State != runtime.StateFailed || len(st.Nodes) != 0 {
		t.Errorf("recorded state %+v", st)
	}
	live, err := r.Status(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, n := range live.Nodes {
		if n.State == runtime.NodeRunning {
			running++
		}
	}
	if running != len(l.Graph.Nodes) {
		t.Errorf("live status: %d of %d running: %+v", running, len(l.Graph.Nodes), live.Nodes)
	}
	t.Logf("recorded state %q with no nodes; the runtime sees %d of %d containers running", st.State, running, len(l.Graph.Nodes))

	if _, err := runtime.Down(ctx, newRuntime(), l); err != nil {
		t.Fatal(err)
	}
	if left, err := newRuntime().Leftovers(ctx, l); err != nil || len(left) != 0 {
		t.Errorf("left after down: %q, %v", left, err)
	}
}
