package runtime

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// preflightRuntime is a fakeRuntime with a Preflight.
type preflightRuntime struct {
	fakeRuntime
	preflightErr error
	preflights   int
}

func (p *preflightRuntime) Preflight(ctx context.Context, l *Lab) error {
	p.preflights++
	return p.preflightErr
}

// A runtime whose prerequisites are missing stops the up before the lock
// file, state.json or prepare: the lab's folder is left as it was.
func TestPreflightFailureChangesNothing(t *testing.T) {
	l := newLab(t)
	rt := &preflightRuntime{fakeRuntime: fakeRuntime{name: "clab"}, preflightErr: exitcode.Envf("containerlab is not installed")}
	prepared := 0
	_, err := Up(context.Background(), rt, l, func(context.Context, *Lab) error { prepared++; return nil })
	if exitcode.Code(err) != exitcode.Environment || !strings.Contains(err.Error(), "containerlab is not installed") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Up = %v (exit %d), want exit 3 naming the prerequisite", err, exitcode.Code(err))
	}
	if rt.preflights != 1 || prepared != 0 || rt.ups != 0 {
		t.Errorf("preflights %d, prepared %d, ups %d; want 1, 0, 0", rt.preflights, prepared, rt.ups)
	}
	if _, err := os.Stat(l.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lab's folder was created (%v): nothing may be written before the preflight passes", err)
	}
	// Down of that lab, never deployed, succeeds without the runtime.
	st, err := Down(context.Background(), rt, l)
	if err != nil || st.State != StateDown || rt.downs != 0 {
		t.Errorf("Down = %+v, %v (runtime downs %d)", st, err, rt.downs)
	}
	// Once the prerequisites are there, the same up goes through.
	rt.preflightErr = nil
	if st, err := Up(context.Background(), rt, l, nil); err != nil || st.State != StateUp || rt.ups != 1 {
		t.Errorf("Up after the fix = %+v, %v (ups %d)", st, err, rt.ups)
	}
}

// An up that fails before its runtime is asked to deploy (here: prepare
// fails) records that nothing was deployed, so that down needs no runtime;
// one that fails in the runtime's Up may have left nodes, and down asks
// the runtime to remove them.
func TestDownOfFailedUp(t *testing.T) {
	ctx := context.Background()
	t.Run("failed before the deploy", func(t *testing.T) {
		l := newLab(t)
		rt := &fakeRuntime{name: "clab", downErr: exitcode.Envf("no engine")}
		if _, err := Up(ctx, rt, l, func(context.Context, *Lab) error { return errors.New("render failed") }); err == nil {
			t.Fatal("Up succeeded")
		}
		st, _ := ReadState(l.Dir)
		if st.State != StateFailed || !st.NothingDeployed || rt.ups != 0 {
			t.Fatalf("after the failed up: %+v (ups %d)", st, rt.ups)
		}
		got, err := Down(ctx, rt, l)
		if err != nil || got.State != StateDown || rt.downs != 0 {
			t.Fatalf("Down = %+v, %v (runtime downs %d); want down without the runtime", got, err, rt.downs)
		}
		if st, _ := ReadState(l.Dir); st.State != StateDown || st.NothingDeployed || st.Error != "" {
			t.Errorf("state after down: %+v", st)
		}
	})
	t.Run("failed in the deploy", func(t *testing.T) {
		l := newLab(t)
		rt := &fakeRuntime{name: "clab", upErr: errors.New("deploy failed")}
		if _, err := Up(ctx, rt, l, nil); err == nil {
			t.Fatal("Up succeeded")
		}
		if st, _ := ReadState(l.Dir); st.State != StateFailed || st.NothingDeployed {
			t.Fatalf("after the failed deploy: %+v", st)
		}
		if _, err := Down(ctx, rt, l); err != nil || rt.downs != 1 {
			t.Fatalf("Down = %v (runtime downs %d); want the runtime asked", err, rt.downs)
		}
	})
	t.Run("re-up of an up lab fails before the deploy", func(t *testing.T) {
		// The lab's nodes run from the first up: a second up that fails
		// in prepare must not make down skip them.
		l := newLab(t)
		rt := &fakeRuntime{name: "clab"}
		if _, err := Up(ctx, rt, l, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := Up(ctx, rt, l, func(context.Context, *Lab) error { return errors.New("render failed") }); err == nil {
			t.Fatal("second Up succeeded")
		}
		if st, _ := ReadState(l.Dir); st.State != StateFailed || st.NothingDeployed {
			t.Fatalf("after the failed re-up: %+v", st)
		}
		if _, err := Down(ctx, rt, l); err != nil || rt.downs != 1 {
			t.Fatalf("Down = %v (runtime downs %d); want the runtime asked", err, rt.downs)
		}
	})
}

// A lab that is up keeps its NOS: an up with another one is refused as
// one with another runtime is, before the preflight and before any write.
func TestUpWithAnotherNOSRefused(t *testing.T) {
	ctx := context.Background()
	l := newLab(t)
	rt := &preflightRuntime{fakeRuntime: fakeRuntime{name: "sim"}}
	if _, err := Up(ctx, rt, l, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(l.StatePath())
	eos := *l
	eos.NOS = "eos"
	prepared := false
	_, err := Up(ctx, rt, &eos, func(context.Context, *Lab) error { prepared = true; return nil })
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "NOS sonic") || !strings.Contains(err.Error(), "labctl down t1") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("Up with another NOS: exit %d, %v", exitcode.Code(err), err)
	}
	if after, _ := os.ReadFile(l.StatePath()); string(after) != string(before) || prepared || rt.preflights != 1 {
		t.Errorf("the refused up changed the state (%v), prepared (%v) or preflighted (%d checks)", string(after) != string(before), prepared, rt.preflights)
	}
	if err := RefuseNOSChange(&Status{Lab: "t1", NOS: "sonic", State: StateDown}, "eos"); err != nil {
		t.Errorf("a lab that is down may change NOS: %v", err)
	}
	if _, err := Down(ctx, rt, l); err != nil {
		t.Fatal(err)
	}
	if st, err := Up(ctx, rt, &eos, nil); err != nil || st.NOS != "eos" {
		t.Errorf("Up with eos after down: %+v, %v", st, err)
	}
}
