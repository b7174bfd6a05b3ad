package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/transport"
)

// labNICs builds leaves x hosts x nics NICs named like the fabric does.
func labNICs(leaves, hostsPerLeaf, nicsPerHost int) []NIC {
	var out []NIC
	h := 0
	for l := 1; l <= leaves; l++ {
		for range hostsPerLeaf {
			h++
			for n := range nicsPerHost {
				out = append(out, NIC{Endpoint: runtime.Endpoint{Host: fmt.Sprintf("h%d", h), NIC: n}, Leaf: fmt.Sprintf("leaf%d", l)})
			}
		}
	}
	return out
}

// fakeRuntime answers variants with a congestion caricature: drops without
// PFC or ECN, pauses with PFC (fewer with ECN), marks with ECN.
type fakeRuntime struct {
	calls  int
	onCall func(n int)
	fail   string
}

func (f *fakeRuntime) Name() string                                                  { return "fake" }
func (f *fakeRuntime) Transports() []string                                          { return transport.Names }
func (f *fakeRuntime) Up(context.Context, *runtime.Lab) error                        { return nil }
func (f *fakeRuntime) Down(context.Context, *runtime.Lab) error                      { return nil }
func (f *fakeRuntime) Status(context.Context, *runtime.Lab) (*runtime.Status, error) { return nil, nil }
func (f *fakeRuntime) RunVariant(ctx context.Context, l *runtime.Lab, v runtime.VariantSpec) (*results.Variant, error) {
	f.calls++
	if f.onCall != nil {
		f.onCall(f.calls)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.fail == v.Name {
		return nil, errors.New("engine exploded")
	}
	out := &results.Variant{SimulatedUs: v.DurationUs}
	for i, fl := range v.Flows {
		out.Flows = append(out.Flows, results.Flow{ID: fl.ID, Role: fl.Role, ThroughputGbps: 20 + float64(i%2) + float64(v.Seed%3), Source: results.Simulated})
	}
	s := &out.Summary
	switch {
	case v.PFC && v.ECN:
		s.PFCPauseFrames, s.ECNMarked, s.CNP = 10, 500, 40
	case v.PFC:
		s.PFCPauseFrames = 100
	case v.ECN:
		s.ECNMarked, s.CNP, s.Drops = 800, 60, 3
	default:
		s.Drops, s.Retransmits = 200, 400
	}
	return out, nil
}

func testLab() *runtime.Lab {
	return &runtime.Lab{Name: "t", Plan: &sizing.Plan{NICSpeedGbps: 200, Oversubscription: sizing.Oversubscription{Target: 1, Actual: 1},
		Leaf: sizing.LeafTier{UplinkPortsPerLeaf: 8, UplinkSpeedGbps: 400}}}
}

// tickingClock is a Runner.Now for tests: a second later at every call,
// safe for the variants' goroutines that call it at once.
func tickingClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		start = start.Add(time.Second)
		return start
	}
}

func runOnce(t *testing.T, s *Spec, rt runtime.Runtime, ctx context.Context, seed int64, saves *[]string) (*results.Run, error) {
	t.Helper()
	clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r := &Runner{Runtime: rt, Lab: testLab(), NICs: labNICs(2, 2, 8), Now: tickingClock(clock),
		Save: func(run *results.Run) error {
			if saves != nil {
				*saves = append(*saves, fmt.Sprintf("%s:%d", run.Status, len(run.Variants)))
			}
			return nil
		}}
	run := &results.Run{RunID: "20261129T120000Z-x-t", Lab: "t", Scenario: s.Name, Runtime: rt.Name(), Seed: seed, Started: clock}
	err := r.Run(ctx, s, run)
	return run, err
}

func TestRunnerPassesAndSavesEachVariant(t *testing.T) {
	s, err := Resolve("ecn-pfc")
	if err != nil {
		t.Fatal(err)
	}
	var saves []string
	run, err := runOnce(t, s, &fakeRuntime{}, context.Background(), 1, &saves)
	if err != nil {
		t.Fatal(err)
	}
	// Every variant but the last is saved as it finishes; the last one
	// comes with the final save.
	if got := strings.Join(saves, " "); got != "running:0 running:1 running:2 running:3 passed:4" {
		t.Errorf("saves = %s", got)
	}
	if run.Status != results.StatusPassed || run.Finished == nil {
		t.Fatalf("status %s finished %v", run.Status, run.Finished)
	}
	// The cross-variant assertion resolved on ecn=on,pfc=on even though
	// ecn=off,pfc=on ran after it.
	var found bool
	for _, a := range run.Variants[0].Assertions {
		if strings.Contains(a.Expr, "[ecn=off,pfc=on]") {
			found = true
			if !a.Passed || !strings.Contains(a.Detail, "[ecn=off,pfc=on].summary.pfc_pause_frames=100") {
				t.Errorf("cross-variant assertion: %+v", a)
			}
		}
	}
	if !found {
		t.Error("cross-variant assertion missing from ecn=on,pfc=on")
	}
	// Guards: the no-PFC drop assertion applies only to ecn=off,pfc=off.
	for _, v := range run.Variants {
		for _, a := range v.Assertions {
			if strings.HasPrefix(a.Expr, "summary.drops > 0") && v.Name != "ecn=off,pfc=off" {
				t.Errorf("guarded assertion ran on %s", v.Name)
			}
		}
	}
	if lab, _ := run.Extra["lab"].(map[string]any); lab["ideal_goodput_gbps"].(float64) < 195 {
		t.Errorf("extra.lab = %v", lab)
	}
}

func TestRunnerFailsOnAssertion(t *testing.T) {
	s, err := Parse("x.yaml", []byte("name: x\ntraffic: [{pattern: incast}]\nassertions:\n  - name: never drops\n    expr: summary.drops == 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := runOnce(t, s, &fakeRuntime{}, context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != results.StatusFailed {
		t.Errorf("status %s, want failed", run.Status)
	}
	last := run.Variants[3].Assertions[0]
	if last.Passed || last.Detail != "summary.drops=200" {
		t.Errorf("assertion = %+v", last)
	}
}

func TestRunnerVariantError(t *testing.T) {
	s, _ := Resolve("incast")
	run, err := runOnce(t, s, &fakeRuntime{fail: "ecn=on,pfc=off"}, context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != results.StatusFailed || run.Variants[1].Error != "engine exploded" || len(run.Variants) != 4 {
		t.Errorf("status %s variants %d err %q", run.Status, len(run.Variants), run.Variants[1].Error)
	}
}

// checkingRuntime is fakeRuntime that refuses one variant before a run,
// as a live lab refuses a variant it cannot run.
type checkingRuntime struct {
	fakeRuntime
	refuse string
}

func (c *checkingRuntime) CheckVariant(_ *runtime.Lab, v runtime.VariantSpec) error {
	if v.Name == c.refuse {
		return errors.New("cannot run " + v.Name)
	}
	return nil
}

// A variant the runtime refuses stops the run before its first variant
// runs and before anything is saved, even when it is the matrix's last.
func TestRunnerChecksEveryVariantFirst(t *testing.T) {
	s, _ := Resolve("incast")
	rt := &checkingRuntime{refuse: "ecn=off,pfc=off"}
	var saves []string
	_, err := runOnce(t, s, rt, context.Background(), 1, &saves)
	if err == nil || !strings.Contains(err.Error(), "cannot run ecn=off,pfc=off") || rt.calls != 0 || len(saves) != 0 {
		t.Errorf("err %v, %d variants run, saves %v", err, rt.calls, saves)
	}
	rt = &checkingRuntime{refuse: "none"}
	if _, err := runOnce(t, s, rt, context.Background(), 1, nil); err != nil || rt.calls != 4 {
		t.Errorf("nothing refused: err %v, %d variants run", err, rt.calls)
	}
}

func TestRunnerInterrupted(t *testing.T) {
	s, _ := Resolve("ecn-pfc")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := &fakeRuntime{onCall: func(n int) {
		if n == 3 {
			cancel() // Ctrl-C during the third variant
		}
	}}
	var saves []string
	run, err := runOnce(t, s, rt, ctx, 1, &saves)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if run.Status != results.StatusInterrupted || len(run.Variants) != 2 || run.Finished == nil {
		t.Errorf("status %s variants %d", run.Status, len(run.Variants))
	}
	if saves[len(saves)-1] != "interrupted:2" {
		t.Errorf("last save %s", saves[len(saves)-1])
	}
}

func TestRunnerDeterministic(t *testing.T) {
	s, _ := Resolve("ecn-pfc")
	enc := func(seed int64) string {
		run, err := runOnce(t, s, &fakeRuntime{}, context.Background(), seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(run)
		return string(b)
	}
	if a, b := enc(7), enc(7); a != b {
		t.Error("same seed gave different records")
	}
	if enc(7) == enc(8) {
		t.Error("the seed does not reach the runtime")
	}
}

func TestRunnerRepetitions(t *testing.T) {
	s, err := Parse("x.yaml", []byte("name: x\nrepetitions: 2\nmatrix: {ecn: [on], pfc: [on, off]}\ntraffic: [{pattern: incast, senders: 2}]\nassertions:\n  - expr: summary.pfc_pause_frames > [ecn=on,pfc=off].summary.pfc_pause_frames when pfc\n"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := runOnce(t, s, &fakeRuntime{}, context.Background(), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Variants) != 4 || run.Variants[2].Repetition != 1 || run.Variants[2].Name != "ecn=on,pfc=on" {
		t.Fatalf("variants: %+v", run.Variants)
	}
	// Repetition r runs with seed+r: the fake's throughput shows the seed.
	if run.Variants[0].Flows[0].ThroughputGbps == run.Variants[2].Flows[0].ThroughputGbps {
		t.Error("both repetitions ran with the same seed")
	}
	for _, i := range []int{0, 2} {
		if a := run.Variants[i].Assertions; len(a) != 1 || !a[0].Passed {
			t.Errorf("repetition %d assertions %+v", run.Variants[i].Repetition, a)
		}
	}
}

// cancelAfter is fakeRuntime that cancels the run's context once its nth
// variant has finished: a Ctrl-C after the last variant, before the run
// is saved.
type cancelAfter struct {
	fakeRuntime
	n      int
	cancel func()
}

func (c *cancelAfter) RunVariant(ctx context.Context, l *runtime.Lab, v runtime.VariantSpec) (*results.Variant, error) {
	out, err := c.fakeRuntime.RunVariant(ctx, l, v)
	if c.calls == c.n {
		c.cancel()
	}
	return out, err
}

// Interrupted after every planned variant finished, a run is complete: it
// is recorded passed (or failed) with its final assertions, not
// interrupted, which made regress and --save-baseline refuse it.
func TestRunnerInterruptedAfterLastVariant(t *testing.T) {
	s, _ := Resolve("ecn-pfc")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := &cancelAfter{n: 4, cancel: cancel}
	var saves []string
	run, err := runOnce(t, s, rt, ctx, 1, &saves)
	if err != nil {
		t.Fatalf("err = %v, want the run to finish", err)
	}
	if run.Status == results.StatusInterrupted || len(run.Variants) != 4 || run.Finished == nil {
		t.Errorf("status %s, %d variants, want a finished run of 4", run.Status, len(run.Variants))
	}
	// The final assertions (one naming another variant) were checked.
	if n := len(run.Variants[0].Assertions); n != 4 {
		t.Errorf("ecn=on,pfc=on has %d assertions, want 4 with the one naming ecn=off,pfc=on", n)
	}
}
