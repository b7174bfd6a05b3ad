package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
)

// fakeRuntime records calls and can fail on demand.
type fakeRuntime struct {
	name    string
	upErr   error
	downErr error
	ups     int
	downs   int
	nodes   []NodeStatus
}

func (f *fakeRuntime) Name() string { return f.name }
func (f *fakeRuntime) Up(ctx context.Context, l *Lab) error {
	f.ups++
	return f.upErr
}
func (f *fakeRuntime) Down(ctx context.Context, l *Lab) error {
	f.downs++
	return f.downErr
}
func (f *fakeRuntime) Status(ctx context.Context, l *Lab) (*Status, error) {
	return &Status{Lab: l.Name, Runtime: f.name, State: StateUp, Nodes: f.nodes}, nil
}
func (f *fakeRuntime) RunVariant(ctx context.Context, l *Lab, v VariantSpec) (*results.Variant, error) {
	return nil, errors.New("not used")
}

func newLab(t *testing.T) *Lab {
	t.Helper()
	return &Lab{Name: "t1", Dir: filepath.Join(t.TempDir(), "topologies", "t1"), NOS: "sonic"}
}

func TestUpDownLifecycle(t *testing.T) {
	ctx := context.Background()
	l := newLab(t)
	rt := &fakeRuntime{name: "sim", nodes: []NodeStatus{{Name: "leaf1", Role: "leaf", State: NodeRunning}}}

	prepared := 0
	st, err := Up(ctx, rt, l, func(context.Context, *Lab) error { prepared++; return nil })
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if st.State != StateUp || prepared != 1 || rt.ups != 1 {
		t.Fatalf("after Up: state %q prepared %d ups %d", st.State, prepared, rt.ups)
	}
	onDisk, err := ReadState(l.Dir)
	if err != nil || onDisk == nil {
		t.Fatalf("ReadState: %v %v", onDisk, err)
	}
	if onDisk.State != StateUp || onDisk.Runtime != "sim" || len(onDisk.Nodes) != 1 || onDisk.Created.IsZero() {
		t.Fatalf("state.json = %+v", onDisk)
	}
	created := onDisk.Created

	// Up again keeps the creation time.
	if _, err := Up(ctx, rt, l, nil); err != nil {
		t.Fatalf("second Up: %v", err)
	}
	again, _ := ReadState(l.Dir)
	if !again.Created.Equal(created) {
		t.Errorf("Created changed on re-up: %v -> %v", created, again.Created)
	}

	// Another runtime is refused while the lab is up.
	other := &fakeRuntime{name: "clab"}
	_, err = Up(ctx, other, l, nil)
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "labctl down t1") {
		t.Errorf("Up with another runtime: code %d err %v", exitcode.Code(err), err)
	}

	for i := range 2 { // Down is idempotent
		st, err := Down(ctx, rt, l)
		if err != nil {
			t.Fatalf("Down #%d: %v", i, err)
		}
		if st.State != StateDown {
			t.Errorf("Down #%d: state %q", i, st.State)
		}
	}
	if rt.downs != 1 {
		t.Errorf("runtime Down called %d times, want 1", rt.downs)
	}
	final, _ := ReadState(l.Dir)
	if final.State != StateDown || final.Nodes[0].State != NodeStopped {
		t.Errorf("final state %+v", final)
	}
}

func TestDownNeverUp(t *testing.T) {
	l := newLab(t)
	rt := &fakeRuntime{name: "sim"}
	st, err := Down(context.Background(), rt, l)
	if err != nil || st.State != StateDown || rt.downs != 0 {
		t.Fatalf("Down of a lab never up: %+v %v downs=%d", st, err, rt.downs)
	}
}

func TestUpFailureRecorded(t *testing.T) {
	l := newLab(t)
	rt := &fakeRuntime{name: "sim", upErr: errors.New("boom")}
	if _, err := Up(context.Background(), rt, l, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Up error = %v", err)
	}
	st, _ := ReadState(l.Dir)
	if st.State != StateFailed || !strings.Contains(st.Error, "boom") {
		t.Fatalf("state after failed up: %+v", st)
	}
	if st.IsUp() {
		t.Error("failed lab reports IsUp")
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	l := newLab(t)
	l.DryRun = true
	rt := &fakeRuntime{name: "sim"}
	if _, err := Up(context.Background(), rt, l, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.StatePath()); !os.IsNotExist(err) {
		t.Errorf("dry run wrote state: %v", err)
	}
}

func TestLockNamesHolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lab", LockFile)
	first, err := Acquire(p, "labctl up lab")
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file description, so a second open in
	// the same process conflicts just as another process would.
	_, err = Acquire(p, "labctl up lab")
	if !errors.Is(err, ErrLocked) || exitcode.Code(err) != exitcode.BadInput {
		t.Fatalf("second Acquire: %v", err)
	}
	if !strings.Contains(err.Error(), "labctl up lab") || !strings.Contains(err.Error(), "pid ") {
		t.Errorf("lock error does not name the holder: %v", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	second, err := Acquire(p, "labctl down lab")
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	second.Release()
}

func TestLockHeldDuringUp(t *testing.T) {
	l := newLab(t)
	rt := &fakeRuntime{name: "sim"}
	var inner error
	_, err := Up(context.Background(), rt, l, func(ctx context.Context, l *Lab) error {
		// A concurrent up while this one runs must be refused.
		_, inner = Up(ctx, rt, l, nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(inner, ErrLocked) {
		t.Fatalf("concurrent Up: %v", inner)
	}
}

func TestListStates(t *testing.T) {
	top := filepath.Join(t.TempDir(), "topologies")
	for _, name := range []string{"b", "a"} {
		if err := WriteState(filepath.Join(top, name), &Status{Lab: name, Runtime: "sim", State: StateUp}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(top, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	sts, err := ListStates(top)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sts {
		got = append(got, s.Lab+"="+s.State)
	}
	if strings.Join(got, " ") != "a=up b=up c=never-up" {
		t.Errorf("ListStates = %v", got)
	}
	if sts, err := ListStates(filepath.Join(top, "missing")); err != nil || len(sts) != 0 {
		t.Errorf("missing dir: %v %v", sts, err)
	}
}

func TestReadStateCorrupt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadState(dir)
	if err == nil || !strings.Contains(err.Error(), "remove the file") || exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("corrupt state error = %v (exit %d), want exit 2 with the fix", err, exitcode.Code(err))
	}
	// A state that is none of labctl's (edited by hand): status showed it
	// and exited 0.
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"lab": "x", "runtime": "sim", "state": "banana"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(dir); err == nil || !strings.Contains(err.Error(), `says state "banana", which is none of labctl's`) || exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("unknown state: %v (exit %d)", err, exitcode.Code(err))
	}
}

// One unreadable state file must not hide the other labs.
func TestListStatesOneCorrupt(t *testing.T) {
	top := filepath.Join(t.TempDir(), "topologies")
	if err := WriteState(filepath.Join(top, "a"), &Status{Lab: "a", Runtime: "sim", State: StateUp}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(top, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "b", StateFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	sts, err := ListStates(top)
	if len(sts) != 2 || sts[0].State != StateUp || sts[1].State != StateUnreadable {
		t.Fatalf("ListStates = %+v", sts)
	}
	if err == nil || !strings.Contains(err.Error(), filepath.Join(top, "b", StateFile)) || exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("error %v (exit %d), want exit 2 naming b's state file", err, exitcode.Code(err))
	}
}
