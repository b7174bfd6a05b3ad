package clab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/runtime/clab/sshtest"
)

type fakeStater struct {
	states []ContainerState
	i      int
}

func (f *fakeStater) State(context.Context, string) (ContainerState, error) {
	s := f.states[min(f.i, len(f.states)-1)]
	f.i++
	return s, nil
}

func TestWaitReady(t *testing.T) {
	f := &fakeStater{states: []ContainerState{{}, {Exists: true, Status: "created"}, {Exists: true, Status: "running", Running: true, Health: "starting"}, {Exists: true, Status: "running", Running: true, Health: "healthy"}}}
	var lines []string
	w := Wait{Node: "leaf1", What: "container running", Interval: time.Millisecond, Progress: func(l string) { lines = append(lines, l) }}
	if err := w.Until(context.Background(), ContainerRunning(f, "clab-x-leaf1")); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 || !strings.Contains(lines[0], "leaf1: waiting for container running: container not created yet") {
		t.Errorf("progress lines = %q", lines)
	}
}

func TestWaitTimeoutNamesNodeAndWhat(t *testing.T) {
	f := &fakeStater{states: []ContainerState{{Exists: true, Status: "created"}}}
	w := Wait{Node: "spine1", What: "container running", Timeout: 20 * time.Millisecond, Interval: time.Millisecond}
	err := w.Until(context.Background(), ContainerRunning(f, "clab-x-spine1"))
	if !errors.Is(err, ErrNotReady) {
		t.Fatalf("error = %v, want ErrNotReady", err)
	}
	for _, want := range []string{"spine1", "container running", "container created", "20ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestWaitStopsOnExitedContainer(t *testing.T) {
	f := &fakeStater{states: []ContainerState{{Exists: true, Status: "exited", ExitCode: 137}}}
	err := Wait{Node: "h1", What: "container running", Interval: time.Millisecond}.Until(context.Background(), ContainerRunning(f, "clab-x-h1"))
	if err == nil || errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "exit code 137") {
		t.Fatalf("error = %v", err)
	}
}

func TestWaitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fakeStater{states: []ContainerState{{}}}
	err := Wait{Node: "h1", What: "x", Interval: time.Hour}.Until(ctx, ContainerRunning(f, "c"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v", err)
	}
}

func TestCommandSucceeds(t *testing.T) {
	f := &fakeExecer{answers: map[string]ExecResult{"systemctl is-active swss": {ExitCode: 3, Stdout: []byte("activating")}}}
	p := CommandSucceeds(f, "c", []string{"systemctl", "is-active", "swss"}, time.Second)
	ready, seen, err := p(context.Background())
	if ready || err != nil || !strings.Contains(seen, "activating") {
		t.Fatalf("probe = %v %q %v", ready, seen, err)
	}
	f.answers["systemctl is-active swss"] = ExecResult{Stdout: []byte("active")}
	if ready, _, _ := p(context.Background()); !ready {
		t.Fatal("probe not ready after exit 0")
	}
}

func TestTCPOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ready, seen, _ := TCPOpen(ln.Addr().String())(context.Background()); !ready {
		t.Errorf("open port not ready: %s", seen)
	}
	closed := fmt.Sprintf("127.0.0.1:%d", sshtest.ClosedPort(t))
	err = Wait{Node: "leaf1", What: "SSH on " + closed, Timeout: 50 * time.Millisecond, Interval: 10 * time.Millisecond}.Until(context.Background(), TCPOpen(closed))
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "not accepting connections") {
		t.Errorf("closed port: %v", err)
	}
}
