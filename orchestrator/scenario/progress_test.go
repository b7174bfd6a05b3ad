package scenario

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/runtime"
)

// The board redraws one line in place with each running variant's
// simulated time, events per second and ETA, prints finished variants
// above it, and logs the same at info level.
func TestProgressBoard(t *testing.T) {
	var term, logs bytes.Buffer
	b := newProgressBoard(&term, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})), 2)
	clock := time.Unix(0, 0)
	b.now = func() time.Time { return clock }
	b.start(0, "ecn=on,pfc=on", 9, "20ms", "sim")
	report := b.reporter(0, "ecn=on,pfc=on")
	clock = clock.Add(2 * time.Second)
	report(runtime.Progress{SimulatedNs: 5_000_000, TotalNs: 20_000_000, Events: 4_000_000})
	b.finish(0)
	b.line("variant ecn=on,pfc=on done in 8s")
	b.close()
	out := term.String()
	for _, want := range []string{"[1/2] ecn=on,pfc=on: 9 flows, 20ms sim", "5.0ms/20.0ms 25%", "2.0M ev/s", "ETA 6s", "\r\033[K", "done in 8s"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, out)
		}
	}
	// The log says it in sentences (labctl -v prints the messages).
	for _, want := range []string{"starting variant ecn=on,pfc=on (1 of 2): 9 flows, 20ms sim", "variant ecn=on,pfc=on: simulated 5.0ms of 20.0ms, 25% done, 4000000 events", "variant ecn=on,pfc=on done in 8s"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	// A collective's work ends long before the duration (the ring of a
	// 1024-GPU AllReduce is done at 4 ms of 50): the runtime's share of
	// the work done sets the ETA, not the simulated time. 4 s for 80% of
	// the work leaves 1 s; by the time (8%) it would be 46 s.
	term.Reset()
	b = newProgressBoard(&term, slog.New(slog.DiscardHandler), 1)
	clock = time.Unix(0, 0)
	b.now = func() time.Time { return clock }
	b.start(0, "ring", 1024, "50ms", "sim")
	clock = clock.Add(4 * time.Second)
	b.reporter(0, "ring")(runtime.Progress{SimulatedNs: 4_000_000, TotalNs: 50_000_000, Events: 8_000_000, Done: 0.8})
	b.close()
	if out := term.String(); !strings.Contains(out, "ring 4.0ms/50.0ms 80% 2.0M ev/s ETA 1s") {
		t.Errorf("ETA not from the work left:\n%q", out)
	}

	// Quiet: no writer, no panic, nothing printed.
	q := newProgressBoard(nil, slog.New(slog.DiscardHandler), 1)
	q.start(0, "x", 1, "1ms", "sim")
	q.reporter(0, "x")(runtime.Progress{SimulatedNs: 1, TotalNs: 2})
	q.close()
}
