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
