package clab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/labctl/labctl/orchestrator/runtime"
)

// reachTransport is a Transport of another runtime: its SSH addresses are
// not management addresses and it counts its closes.
type reachTransport struct {
	*liveEngine
	ssh    map[string]SSHAddr
	closed int
}

func (t *reachTransport) SwitchSSH() map[string]SSHAddr { return t.ssh }
func (t *reachTransport) Close() error                  { t.closed++; return nil }

// With Reach set, RunVariant neither asks containerlab nor Docker: pushes,
// counters and perftest go through the transport, to the addresses it
// gives.
func TestRunVariantThroughAnotherTransport(t *testing.T) {
	f := newLiveFixture(t, "sonic")
	tr := &reachTransport{liveEngine: f.eng, ssh: map[string]SSHAddr{}}
	for i, sw := range f.l.Graph.Switches() {
		tr.ssh[sw.Name] = SSHAddr{Host: "127.0.0.1", Port: 40000 + i}
	}
	f.r.LookPath = func(string) (string, error) { return "", errors.New("no containerlab here") }
	f.r.Connect = func(context.Context) (Engine, error) { return nil, errors.New("no Docker here") }
	f.r.Reach = func(context.Context, *runtime.Lab) (Transport, error) { return tr, nil }
	var mu sync.Mutex
	seen := map[string]string{}
	show := f.r.Show
	f.r.Show = func(ctx context.Context, nos, node, host string, port int, cred Credentials, cmds []string) ([]string, error) {
		mu.Lock()
		seen[node] = fmt.Sprintf("%s:%d", host, port)
		mu.Unlock()
		return show(ctx, nos, node, host, port, cred, cmds)
	}
	f.r.PushVariant = func(_ context.Context, _, node, host string, port int, _ Credentials, _, variant []byte) (string, error) {
		if want := tr.ssh[node]; host != want.Host || port != want.Port {
			t.Errorf("push to %s went to %s:%d, want %s:%d", node, host, port, want.Host, want.Port)
		}
		return string(variant), nil
	}
	v := testVariant()
	out, err := f.r.RunVariant(context.Background(), f.l, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Flows) != len(v.Flows) || out.Flows[0].ThroughputGbps <= 0 {
		t.Errorf("flows %+v", out.Flows)
	}
	for _, sw := range f.l.Graph.Switches() {
		if want := fmt.Sprintf("127.0.0.1:%d", tr.ssh[sw.Name].Port); seen[sw.Name] != want {
			t.Errorf("counters of %s read at %q, want %s", sw.Name, seen[sw.Name], want)
		}
	}
	perftest := 0
	for _, e := range f.eng.execs {
		if strings.HasPrefix(e[1], "ib_write") {
			perftest++
		}
	}
	if perftest == 0 {
		t.Error("no perftest ran through the transport")
	}
	if tr.closed != 1 {
		t.Errorf("transport closed %d times, want once", tr.closed)
	}
}
