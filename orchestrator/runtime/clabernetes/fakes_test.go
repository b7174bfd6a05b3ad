package clabernetes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
)

// fakePods stands in for exec and port-forward into launcher pods, which
// need a kubelet. Exec answers like the lab's host containers would (the
// soft-RoCE checks, perftest, counters) from the containerlab runtime's
// recorded outputs.
type fakePods struct {
	t        *testing.T
	l        *runtime.Lab
	mu       sync.Mutex
	execs    [][]string // namespace, pod, container, argv...
	forwards []string   // pod:port
	stopped  int
	reads    map[string]int
}

func newFakePods(t *testing.T, l *runtime.Lab) *fakePods {
	return &fakePods{t: t, l: l, reads: map[string]int{}}
}

func readClabTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "clab", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// inner strips 'docker exec [opts] <node> [timeout -s KILL N]' off argv.
func inner(argv []string) (node string, cmd []string, ok bool) {
	if len(argv) < 3 || argv[0] != "docker" || argv[1] != "exec" {
		return "", nil, false
	}
	i := 2
	for i < len(argv) && (argv[i] == "-e" || argv[i] == "-u") {
		i += 2
	}
	if i >= len(argv) {
		return "", nil, false
	}
	node, cmd = argv[i], argv[i+1:]
	if len(cmd) > 4 && cmd[0] == "timeout" {
		cmd = cmd[4:]
	}
	return node, cmd, true
}

func (f *fakePods) Exec(_ context.Context, ns, pod, container string, argv []string) (clab.ExecResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.execs = append(f.execs, append([]string{ns, pod, container}, argv...))
	node, cmd, ok := inner(argv)
	if !ok || node != container || len(cmd) == 0 {
		return clab.ExecResult{ExitCode: 1, Stderr: []byte("not docker exec <node>")}, nil
	}
	h := f.l.Graph.Node(node)
	switch {
	case slices.Equal(cmd, []string{"rdma", "link"}):
		var b strings.Builder
		for _, hn := range clab.HostNets(f.l, h) {
			fmt.Fprintf(&b, "link %s/1 state ACTIVE physical_state LINK_UP netdev %s\n", hn.RDMADev, hn.Iface)
		}
		return clab.ExecResult{Stdout: []byte(b.String())}, nil
	case cmd[0] == "ibv_devices":
		b := "    device          \t   node GUID\n    ------          \t----------------\n"
		for _, hn := range clab.HostNets(f.l, h) {
			b += "    " + hn.RDMADev + "\t505400fffe8b1c2d\n"
		}
		return clab.ExecResult{Stdout: []byte(b)}, nil
	case cmd[0] == "sh":
		return clab.ExecResult{Stdout: []byte("/usr/bin/ib_write_bw\n/usr/bin/ib_write_lat\n")}, nil
	case cmd[0] == "rdma":
		k := node + cmd[len(cmd)-1]
		n := f.reads[k]
		f.reads[k]++
		dev, _, _ := strings.Cut(cmd[len(cmd)-1], "/")
		return clab.ExecResult{Stdout: []byte(fmt.Sprintf(`[{"ifindex":3,"ifname":%q,"port":1,"sent_pkts":%d,"rcvd_pkts":%d,"completer_retry_err":0}]`, dev, 100+1000*n, 90+1000*n))}, nil
	case cmd[0] == "ethtool":
		return clab.ExecResult{Stdout: []byte("NIC statistics:\n     rx_packets: 5\n")}, nil
	case strings.HasPrefix(cmd[0], "ib_write"):
		if !strings.HasPrefix(cmd[len(cmd)-1], "10.") {
			return clab.ExecResult{}, nil // a server
		}
		if cmd[0] == "ib_write_lat" {
			return clab.ExecResult{Stdout: []byte(readClabTestdata(f.t, "ib_write_lat-client.txt"))}, nil
		}
		return clab.ExecResult{Stdout: []byte(readClabTestdata(f.t, "ib_write_bw-client.txt"))}, nil
	}
	return clab.ExecResult{ExitCode: 127, Stderr: []byte(cmd[0] + ": not found")}, nil
}

func (f *fakePods) Forward(_ context.Context, _, pod string, port int) (clab.SSHAddr, func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forwards = append(f.forwards, fmt.Sprintf("%s:%d", pod, port))
	return clab.SSHAddr{Host: "127.0.0.1", Port: 40000 + len(f.forwards)}, func() {
		f.mu.Lock()
		f.stopped++
		f.mu.Unlock()
	}, nil
}

// fakeSwitches records pushes and answers counter commands as switches do.
type fakeSwitches struct {
	t      *testing.T
	mu     sync.Mutex
	pushed map[string]string // node -> host:port
	shows  int
}

func (s *fakeSwitches) install(t *testing.T, lr *clab.Runtime) {
	s.t, s.pushed = t, map[string]string{}
	lr.PushConfig = func(_ context.Context, _, node, host string, port int, _ clab.Credentials, config []byte) (string, error) {
		s.mu.Lock()
		s.pushed[node] = fmt.Sprintf("%s:%d", host, port)
		s.mu.Unlock()
		return string(config), nil
	}
	lr.PushVariant = func(_ context.Context, _, node, host string, port int, _ clab.Credentials, _, variant []byte) (string, error) {
		s.mu.Lock()
		s.pushed[node] = fmt.Sprintf("%s:%d", host, port)
		s.mu.Unlock()
		return string(variant), nil
	}
	lr.Show = func(_ context.Context, nos, _, _ string, _ int, _ clab.Credentials, cmds []string) ([]string, error) {
		s.mu.Lock()
		s.shows++
		s.mu.Unlock()
		var outs []string
		for _, n := range []string{"pfc_counters.txt", "queue_counters_vs.txt", "wred_counters.txt", "port_counters.txt"} {
			outs = append(outs, readClabTestdata(t, "counters/"+n))
		}
		if nos != "sonic" || len(cmds) != len(outs) {
			return nil, fmt.Errorf("fake switches answer SONiC counter commands only")
		}
		return outs, nil
	}
}
