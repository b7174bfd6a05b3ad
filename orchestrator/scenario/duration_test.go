package scenario

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	simrt "github.com/labctl/labctl/orchestrator/runtime/sim"
)

// bounded is a runtime with a range of simulated time.
type bounded struct {
	fakeRuntime
	max time.Duration
}

func (b *bounded) MaxDuration() time.Duration { return b.max }

// A duration beyond the runtime's range is an error at the duration key
// of the scenario file, naming the maximum; a runtime without a bound
// (a live lab) takes it.
func TestDurationBeyondRuntimeRange(t *testing.T) {
	src := "name: long\ndescription: x\nduration: 100000h\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 2\n"
	s, err := Parse("long.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckRuntime(simrt.New())
	if exitcode.Code(err) != exitcode.BadInput {
		t.Fatalf("sim runtime: %v (exit %d), want a usage error", err, exitcode.Code(err))
	}
	for _, want := range []string{"long.yaml:3:11: duration 100000h is beyond the sim runtime's range of 16m40s", "fix: use a duration of at most 16m40s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := s.CheckRuntime(&fakeRuntime{}); err != nil {
		t.Errorf("a runtime without a bound refused it: %v", err)
	}
	if err := s.CheckRuntime(&bounded{max: 100000 * time.Hour}); err != nil {
		t.Errorf("a duration at the bound refused: %v", err)
	}
}

// Too many samples at the default interval: the file wrote the duration,
// so the error is there.
func TestDefaultSampleEveryBlamesDuration(t *testing.T) {
	_, err := Parse("b.yaml", []byte("name: b\nduration: 10s\ntraffic:\n  - pattern: incast\n    senders: 2\n"))
	if err == nil || !strings.Contains(err.Error(), "b.yaml:2:11: duration 10s gives more than 100000 samples at the default sample_every 10us") ||
		!strings.Contains(err.Error(), "fix: shorten the duration to at most 1s, or set sample_every (100us or more") {
		t.Errorf("got %v", err)
	}
}

// Ctrl-C during the second variant: the error counts one variant, in the
// singular ("after 1 variants" read wrong).
func TestInterruptedAfterOneVariant(t *testing.T) {
	s, _ := Resolve("ecn-pfc")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := &fakeRuntime{onCall: func(n int) {
		if n == 2 {
			cancel()
		}
	}}
	_, err := runOnce(t, s, rt, ctx, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "after 1 variant;") {
		t.Errorf("err = %v, want it to say after 1 variant", err)
	}
}

// A scenario without sample_every runs at the default interval, and a
// point of its matrix is checked against that default as the file is,
// not as if the file gave it: a duration shorter than 10us, valid alone,
// stays valid with a sweep (until 2026-12-06 any sweep refused duration
// 1us, blaming "sample_every 10us" at the sweep's line), and a swept
// sample_every longer than a point's duration is still refused.
func TestDefaultSampleEveryAtEveryPoint(t *testing.T) {
	for _, src := range []string{
		"name: b\nduration: 1us\ntraffic:\n  - pattern: pairs\n",
		"name: b\nduration: 1us\nmatrix:\n  lb.mode: [ecmp, spray]\ntraffic:\n  - pattern: pairs\n",
		"name: b\nduration: 2ms\nmatrix:\n  duration: [1us, 2ms]\ntraffic:\n  - pattern: pairs\n",
		"name: b\nduration: 5ms\nmatrix:\n  traffic[0].pairs: [1, 2]\ntraffic:\n  - pattern: pairs\n",
	} {
		if _, err := Parse("b.yaml", []byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	_, err := Parse("b.yaml", []byte("name: b\nduration: 5us\nmatrix:\n  sample_every: [1us, 10us]\ntraffic:\n  - pattern: pairs\n"))
	if err == nil || !strings.Contains(err.Error(), "sample_every 10us is longer than the duration 5us") {
		t.Errorf("a swept sample_every of 10us over 5us: got %v, want it refused", err)
	}
}
