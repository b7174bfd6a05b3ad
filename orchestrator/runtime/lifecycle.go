package runtime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// Up brings l up with rt under the lab's lock and records the outcome in
// state.json. prepare, when not nil, runs under the lock before rt.Up (it
// writes the topology and the configs that are missing). A lab already up
// with another runtime or another NOS is refused: two runtimes must not
// share one lab, and its configs are one NOS's. Before anything is locked
// or written, those refusals and the runtime's Preflight (when it has one)
// run, so an up that cannot start changes no file. With l.DryRun nothing
// is locked or written; rt.Up only reports.
func Up(ctx context.Context, rt Runtime, l *Lab, prepare func(context.Context, *Lab) error) (*Status, error) {
	if l.Spec != nil {
		if err := CheckTransport(rt, l.Spec.Transport); err != nil {
			return nil, fmt.Errorf("bring up lab %s with %s (nothing was changed): %w", l.Name, rt.Name(), err)
		}
	}
	if l.DryRun {
		if prepare != nil {
			if err := prepare(ctx, l); err != nil {
				return nil, err
			}
		}
		if err := rt.Up(ctx, l); err != nil {
			return nil, fmt.Errorf("dry-run up %s with %s: %w", l.Name, rt.Name(), err)
		}
		return &Status{Lab: l.Name, Runtime: rt.Name(), NOS: l.NOS, State: StateDown}, nil
	}
	prev, err := ReadState(l.Dir)
	if err != nil {
		return nil, err
	}
	if err := refuseSwitch(prev, rt, l); err != nil {
		return nil, err
	}
	if p, ok := rt.(Preflighter); ok {
		if err := p.Preflight(ctx, l); err != nil {
			return nil, fmt.Errorf("bring up lab %s with %s (nothing was changed): %w", l.Name, rt.Name(), err)
		}
	}
	lock, err := Acquire(l.LockPath(), "labctl up "+l.Name)
	if err != nil {
		return nil, err
	}
	defer lock.Release()

	// Read again under the lock: another command may have changed the lab
	// since.
	if prev, err = ReadState(l.Dir); err != nil {
		return nil, err
	}
	if err := refuseSwitch(prev, rt, l); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	st := &Status{Lab: l.Name, Runtime: rt.Name(), NOS: l.NOS, Created: now}
	if l.Spec != nil {
		st.Spec = SpecSource(l.Spec.Source)
	}
	// Whether the runtime may hold something of the lab from before: a
	// lab down, or failed before anything was deployed, holds nothing.
	heldBefore := prev != nil && prev.State != StateDown && !prev.NothingDeployed
	if prev != nil && prev.State != StateDown {
		st.Created = prev.Created
	}
	st.State = StateDeploying
	st.Updated = now
	if err := WriteState(l.Dir, st); err != nil {
		return nil, err
	}
	// fail records the failed up; deployStarted says rt.Up was called.
	fail := func(err error, deployStarted bool) (*Status, error) {
		st.State = StateFailed
		st.Error = err.Error()
		st.NothingDeployed = !deployStarted && !heldBefore
		st.Updated = time.Now().UTC()
		if werr := WriteState(l.Dir, st); werr != nil {
			return nil, errors.Join(err, werr)
		}
		return nil, err
	}
	if prepare != nil {
		if err := prepare(ctx, l); err != nil {
			return fail(fmt.Errorf("prepare lab %s: %w", l.Name, err), false)
		}
	}
	if err := rt.Up(ctx, l); err != nil {
		return fail(fmt.Errorf("bring up lab %s with %s: %w", l.Name, rt.Name(), err), true)
	}
	live, err := rt.Status(ctx, l)
	if err != nil {
		return fail(fmt.Errorf("read status of lab %s: %w", l.Name, err), true)
	}
	st.Nodes = live.Nodes
	st.State = StateUp
	if slices.ContainsFunc(st.Nodes, func(n NodeStatus) bool { return n.State != NodeRunning }) {
		st.State = StateDegraded
	}
	st.Error = ""
	st.Updated = time.Now().UTC()
	if err := WriteState(l.Dir, st); err != nil {
		return nil, err
	}
	return st, nil
}

// refuseSwitch refuses to bring up, with another runtime or another NOS, a
// lab that is not down: its nodes run (or may) with the ones recorded, and
// its configs folder holds that NOS's files. A lab whose up failed may
// switch runtime, as a way out of a runtime that cannot start, and NOS with
// it.
func refuseSwitch(prev *Status, rt Runtime, l *Lab) error {
	if !holdsLab(prev) {
		return nil
	}
	if prev.Runtime != rt.Name() {
		return exitcode.Usagef("lab %s is %s with runtime %s: run 'labctl down %s' before bringing it up with %s", l.Name, prev.State, prev.Runtime, l.Name, rt.Name())
	}
	return RefuseNOSChange(prev, l.NOS)
}

// holdsLab says a lab's recorded state keeps it to its runtime and NOS:
// anything but down or failed.
func holdsLab(st *Status) bool {
	return st != nil && st.State != StateDown && st.State != StateFailed
}

// RefuseNOSChange refuses (exit 2) to give a lab that is up (or on its way
// up or down) another NOS: its switches run the recorded one's configs from
// its configs folder, which holds one NOS's files. 'labctl up' and
// 'labctl config render' both ask it.
func RefuseNOSChange(st *Status, nosName string) error {
	if !holdsLab(st) || st.NOS == "" || nosName == "" || st.NOS == nosName {
		return nil
	}
	return exitcode.Usagef("lab %s is %s with NOS %s: run 'labctl down %s' before switching it to %s (fix: leave --nos out to keep %s)", st.Lab, st.State, st.NOS, st.Lab, nosName, st.NOS)
}

// Down tears l down with rt under the lab's lock. It is idempotent: a lab
// that was never up, or is down already, returns its (down) status and no
// error. The state file stays, marked down, so status can still list it.
func Down(ctx context.Context, rt Runtime, l *Lab) (*Status, error) {
	if _, err := os.Stat(l.Dir); errors.Is(err, fs.ErrNotExist) {
		return &Status{Lab: l.Name, Runtime: rt.Name(), State: StateDown}, nil
	}
	if l.DryRun {
		if err := rt.Down(ctx, l); err != nil {
			return nil, fmt.Errorf("dry-run down %s with %s: %w", l.Name, rt.Name(), err)
		}
		return &Status{Lab: l.Name, Runtime: rt.Name(), State: StateDown}, nil
	}
	lock, err := Acquire(l.LockPath(), "labctl down "+l.Name)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	st, err := ReadState(l.Dir)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return &Status{Lab: l.Name, Runtime: rt.Name(), State: StateDown}, nil
	}
	if st.State == StateDown {
		return st, nil
	}
	if st.State == StateFailed && st.NothingDeployed {
		// The up failed before the runtime created anything: there is
		// nothing to take down, and the runtime need not be reachable.
		return markDown(l, st)
	}
	st.State = StateStopping
	st.Updated = time.Now().UTC()
	if err := WriteState(l.Dir, st); err != nil {
		return nil, err
	}
	if err := rt.Down(ctx, l); err != nil {
		st.State = StateFailed
		st.Error = err.Error()
		st.Updated = time.Now().UTC()
		return nil, errors.Join(fmt.Errorf("take down lab %s with %s: %w", l.Name, rt.Name(), err), WriteState(l.Dir, st))
	}
	return markDown(l, st)
}

// markDown records st down: no error, every node stopped.
func markDown(l *Lab, st *Status) (*Status, error) {
	st.State = StateDown
	st.Error = ""
	st.NothingDeployed = false
	for i := range st.Nodes {
		st.Nodes[i].State = NodeStopped
		st.Nodes[i].Mgmt = ""
	}
	st.Updated = time.Now().UTC()
	if err := WriteState(l.Dir, st); err != nil {
		return nil, err
	}
	return st, nil
}

// ListStates returns the recorded status of every lab under topologiesDir
// (each topologies/<lab>/state.json), sorted by lab name. Labs whose
// topology exists but that were never brought up are listed as
// StateNeverUp: down would say they once ran. A
// state file that cannot be read does not hide the other labs: its lab is
// listed as StateUnreadable and the problems are returned joined, after
// the full list.
func ListStates(topologiesDir string) ([]*Status, error) {
	entries, err := os.ReadDir(topologiesDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list labs in %s: %w", topologiesDir, err)
	}
	var out []*Status
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		st, err := ReadState(filepath.Join(topologiesDir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			st = &Status{SchemaVersion: StateSchemaVersion, Lab: e.Name(), State: StateUnreadable, Error: err.Error()}
		}
		if st == nil {
			st = NeverUp(e.Name())
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b *Status) int {
		switch {
		case a.Lab < b.Lab:
			return -1
		case a.Lab > b.Lab:
			return 1
		}
		return 0
	})
	return out, errors.Join(errs...)
}

// SpecSource is how state.json records where a lab's spec came from
// (specyaml.AbsSource: a file by its absolute path, so that the lab
// resolves from any directory; the work directory is --dir's, not the
// shell's).
func SpecSource(src string) string { return specyaml.AbsSource(src) }

// SameSpec says whether a lab's recorded spec (state.json's, absolute
// since SpecSource, as typed before) is the spec at source.
func SameSpec(recorded, source string) bool {
	return recorded == source || recorded == SpecSource(source)
}
