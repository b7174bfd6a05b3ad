package clab

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/runtime"
)

// cleanEngine is a Docker engine holding some of a lab's containers and
// the management network; it records what is removed.
type cleanEngine struct {
	*fakeEngine
	mu         sync.Mutex
	containers map[string]string // name -> containerlab label ("" when none)
	networkUse int               // containers of other labs on the network
	network    bool
	removed    []string
	netRemoved bool
}

func (c *cleanEngine) ContainersOf(_ context.Context, lab string, names []string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for n, label := range c.containers {
		if label == lab || slices.Contains(names, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (c *cleanEngine) RemoveContainer(_ context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.containers, name)
	c.removed = append(c.removed, name)
	return nil
}

func (c *cleanEngine) RemoveNetworkIfUnused(_ context.Context, name string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if name != MgmtNetwork || !c.network || c.networkUse > 0 {
		return false, nil
	}
	c.network, c.netRemoved = false, true
	return true, nil
}

// fakeContainerlab writes a containerlab stand-in first on PATH: it logs its
// arguments, and deploy waits (exec, so a kill reaches it) until killed.
func fakeContainerlab(t *testing.T, destroyRC int) (logPath string) {
	t.Helper()
	dir := t.TempDir()
	logPath = filepath.Join(dir, "calls.log")
	script := `#!/bin/sh
echo "$*" >> '` + logPath + `'
case "$1" in
deploy) touch '` + logPath + `.deploying'; exec sleep 60 ;;
destroy) echo "destroy of a half-deployed lab" >&2; exit ` + string(rune('0'+destroyRC)) + ` ;;
inspect) echo '{}' ;;
esac
`
	installContainerlab(t, dir, script)
	return logPath
}

// installContainerlab writes script as dir/containerlab and puts dir
// first on PATH for the test.
func installContainerlab(t *testing.T, dir, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "containerlab"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// trappingContainerlab is a containerlab stand-in whose deploy behaves as
// containerlab's does on SIGINT: it logs the signal, "destroys" (logs that
// too) and exits. A SIGKILL leaves neither line.
func trappingContainerlab(t *testing.T) (logPath string) {
	t.Helper()
	dir := t.TempDir()
	logPath = filepath.Join(dir, "calls.log")
	script := `#!/bin/sh
log='` + logPath + `'
echo "$*" >> "$log"
case "$1" in
deploy)
	trap 'echo "deploy got INT" >> "$log"; kill $pid; echo "deploy destroyed its nodes" >> "$log"; exit 130' INT
	sleep 60 &
	pid=$!
	touch "$log.deploying"
	wait $pid
	;;
destroy) exit 0 ;;
inspect) echo '{}' ;;
esac
`
	installContainerlab(t, dir, script)
	return logPath
}

// upInterruptedInDeploy runs up and cancels it (Ctrl-C) once the fake
// containerlab logging to logPath has started its deploy; it returns
// up's error.
func upInterruptedInDeploy(t *testing.T, r *Runtime, l *runtime.Lab, logPath string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runtime.Up(ctx, r, l, nil)
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(logPath + ".deploying"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("deploy never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	return <-done
}

// Ctrl-C during up: containerlab gets SIGINT (not SIGKILL) and time to
// destroy what it made, then labctl removes what is still there itself,
// and the recorded state says what is left: here nothing.
func TestInterruptedUpForwardsSIGINTAndCleansUp(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	logPath := trappingContainerlab(t)
	l := testLab(t)
	eng := &cleanEngine{fakeEngine: readyEngine(l), network: true, containers: map[string]string{
		ContainerName(l.Name, "leaf1"):  l.Name,
		ContainerName(l.Name, "spine1"): l.Name,
		ContainerName(l.Name, "host1"):  "",
		"clab-other-host1":              "other",
	}}
	netns := t.TempDir()
	if err := os.WriteFile(filepath.Join(netns, ContainerName(l.Name, "leaf1")), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := New()
	r.Connect = func(context.Context) (Engine, error) { return eng, nil }
	r.NetnsDir = netns

	err := upInterruptedInDeploy(t, r, l, logPath)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted up: %v", err)
	}
	calls, _ := os.ReadFile(logPath)
	for _, want := range []string{"deploy got INT", "deploy destroyed its nodes"} {
		if !strings.Contains(string(calls), want) {
			t.Errorf("containerlab did not get to clean up (%q missing):\n%s", want, calls)
		}
	}
	// labctl's own clean-up ran without a 'labctl down'.
	want := []string{ContainerName(l.Name, "host1"), ContainerName(l.Name, "leaf1"), ContainerName(l.Name, "spine1")}
	if !slices.Equal(eng.removed, want) {
		t.Errorf("removed %q, want %q", eng.removed, want)
	}
	if _, ok := eng.containers["clab-other-host1"]; !ok {
		t.Error("removed a container of another lab")
	}
	st, serr := runtime.ReadState(l.Dir)
	if serr != nil || st == nil || st.State != runtime.StateFailed {
		t.Fatalf("state %+v, %v", st, serr)
	}
	// The namespace containerlab did not remove is what is left.
	if !strings.Contains(st.Error, "left after the clean-up: network namespace "+ContainerName(l.Name, "leaf1")) {
		t.Errorf("state error %q does not say what is left", st.Error)
	}
	if err := os.Remove(filepath.Join(netns, ContainerName(l.Name, "leaf1"))); err != nil {
		t.Fatal(err)
	}
	left, err := r.Leftovers(context.Background(), l)
	if err != nil || len(left) != 0 {
		t.Errorf("leftovers %q, %v", left, err)
	}
}

// A command that ignores the interrupt is killed once the grace period
// is over.
func TestExecRunnerKillsAfterGrace(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := ExecRunner{Grace: 200 * time.Millisecond}.Run(ctx, []string{"sh", "-c", "trap '' INT; sleep 30"})
	if err == nil {
		t.Fatal("the command was not stopped")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("stopped after %v", d)
	}
}

// An up interrupted during deploy, then down: containerlab destroy runs,
// the containers the deploy had created are removed, the network too, the
// state is down and the lock free.
func TestDownAfterInterruptedUp(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, destroyRC := range []int{0, 1} {
		t.Run(map[int]string{0: "destroy ok", 1: "destroy fails"}[destroyRC], func(t *testing.T) {
			logPath := fakeContainerlab(t, destroyRC)
			l := testLab(t)
			eng := &cleanEngine{fakeEngine: readyEngine(l), network: true, containers: map[string]string{
				ContainerName(l.Name, "leaf1"): l.Name, // labelled by containerlab
				ContainerName(l.Name, "host1"): "",     // created, not yet labelled
				"clab-16gpu-x-host1":           "16gpu-x",
				"unrelated":                    "",
			}}
			r := New()
			r.Connect = func(context.Context) (Engine, error) { return eng, nil }

			if err := upInterruptedInDeploy(t, r, l, logPath); err == nil {
				t.Fatal("interrupted up succeeded")
			}
			st, err := runtime.ReadState(l.Dir)
			if err != nil || st == nil || st.State == runtime.StateUp || st.State == runtime.StateDown {
				t.Fatalf("state after interrupted up: %+v, %v", st, err)
			}
			// A crash could also leave "deploying": down must handle it.
			st.State = runtime.StateDeploying
			if err := runtime.WriteState(l.Dir, st); err != nil {
				t.Fatal(err)
			}

			r = New()
			r.Connect = func(context.Context) (Engine, error) { return eng, nil }
			out, err := runtime.Down(context.Background(), r, l)
			if err != nil {
				t.Fatal(err)
			}
			if out.State != runtime.StateDown {
				t.Errorf("state %s", out.State)
			}
			calls, _ := os.ReadFile(logPath)
			topo := filepath.Join(l.Dir, l.Graph.TopologyFile())
			if !strings.Contains(string(calls), "destroy -t "+topo+" --cleanup") {
				t.Errorf("containerlab calls:\n%s", calls)
			}
			want := []string{ContainerName(l.Name, "host1"), ContainerName(l.Name, "leaf1")}
			if !slices.Equal(eng.removed, want) {
				t.Errorf("removed %q, want %q", eng.removed, want)
			}
			if _, ok := eng.containers["clab-16gpu-x-host1"]; !ok {
				t.Error("removed a container of another lab")
			}
			if !eng.netRemoved {
				t.Error("management network left behind")
			}
			lock, err := runtime.Acquire(l.LockPath(), "test")
			if err != nil {
				t.Fatalf("lock not released: %v", err)
			}
			if b, _ := os.ReadFile(l.LockPath()); strings.Contains(string(b), "labctl down") {
				t.Errorf("lock file still names a holder: %s", b)
			}
			lock.Release()
		})
	}
}

func TestDownKeepsSharedNetworkAndReportsFailures(t *testing.T) {
	fakeContainerlab(t, 0)
	l := testLab(t)
	eng := &cleanEngine{fakeEngine: readyEngine(l), network: true, networkUse: 3, containers: map[string]string{}}
	r := New()
	r.Connect = func(context.Context) (Engine, error) { return eng, nil }
	if err := r.Down(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if eng.netRemoved || len(eng.removed) != 0 {
		t.Errorf("removed %q, network %t", eng.removed, eng.netRemoved)
	}

	// No containerlab and no engine: an environment error naming the fix.
	t.Setenv("PATH", t.TempDir())
	r = New()
	r.Connect = func(context.Context) (Engine, error) { return nil, errors.New("docker engine is not reachable") }
	err := r.Down(context.Background(), l)
	if err == nil || !strings.Contains(err.Error(), "not installed") || !strings.Contains(err.Error(), "docker rm -f") {
		t.Errorf("error = %v", err)
	}
	// No containerlab, but the engine answers: leftovers are removed and
	// the lab counts as down.
	eng.containers[ContainerName(l.Name, "spine1")] = l.Name
	r.Connect = func(context.Context) (Engine, error) { return eng, nil }
	if err := r.Down(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(eng.removed, []string{ContainerName(l.Name, "spine1")}) {
		t.Errorf("removed %q", eng.removed)
	}
}
