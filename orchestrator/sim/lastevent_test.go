package sim

import (
	"fmt"
	"testing"
)

// TestLastEvent: a sized workload that ends long before the run's
// duration has its last event when it ended, not at the duration nor when
// its QPs' retransmission timers last look: the same with PFC watchdogs
// polling every 100 ms to the end (polls that find nothing change
// nothing), and on the split engine. A poll that acts (a storm restored
// after the work) is the last event.
func TestLastEvent(t *testing.T) {
	sized := func(wd *Watchdog) Config {
		cfg := Config{
			Topology:   leafSpine(2, 2, 2, 100, 100),
			DefaultQoS: map[int]PortQoS{3: {PFC: true, Watchdog: wd}, 6: {Strict: true}},
			DurationNs: 1_000_000_000,
			Seed:       1,
		}
		for i := range 2 {
			cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h0-%d", i), Dst: fmt.Sprintf("h1-%d", i), Bytes: 1 << 20})
		}
		return cfg
	}
	done := func(r *Result) int64 {
		var last int64
		for _, f := range r.Flows {
			if !f.Completed {
				t.Fatalf("flow %s did not complete", f.ID)
			}
			last = max(last, f.StartNs+*f.FCTNs)
		}
		return last
	}
	// The flows' last ACKs reach their senders within a round trip of
	// the last data packet's arrival (some 2 µs here); their QPs' timers
	// look once more 67 ms after (4.096 µs x 2^14), and change nothing.
	within := func(r *Result, what string) {
		t.Helper()
		if end := done(r); r.LastEventNs < end || r.LastEventNs > end+10_000 || r.SimulatedNs != 1_000_000_000 {
			t.Errorf("%s: flows done at %d ns, last event at %d ns of %d: want within 10 µs after", what, end, r.LastEventNs, r.SimulatedNs)
		}
	}
	plain := mustRun(t, sized(nil))
	within(plain, "one partition")
	polled := mustRun(t, sized(&Watchdog{DetectionNs: 1_000_000, PollNs: 100_000_000, Action: "drop"}))
	if polled.LastEventNs != plain.LastEventNs || polled.Events <= plain.Events {
		t.Errorf("with idle watchdog polls: last event at %d ns (%d events), without %d ns (%d events)", polled.LastEventNs, polled.Events, plain.LastEventNs, plain.Events)
	}
	// The split engine runs its own simulation (other random streams):
	// its last event follows its own flows.
	split := sized(nil)
	split.Partitions = 2
	if r := mustRun(t, split); r.Partitions != 2 {
		t.Errorf("%d partitions, want 2", r.Partitions)
	} else {
		within(r, "two partitions")
	}

	// A storm from 1 to 3 ms on h0's NIC, declared by a drop watchdog and
	// restored by a poll 5 ms after its last pause frame: that poll
	// comes after every flow's end.
	storm := stormConfig(&Watchdog{DetectionNs: 500_000, RestorationNs: 5_000_000, PollNs: 100_000, Action: "drop"})
	storm.Storms[0].EndNs = 3_000_000
	for i := range storm.Flows {
		storm.Flows[i].Bytes = 1 << 20
	}
	r := mustRun(t, storm)
	restored := marks(r, MarkWatchdogRestored)
	if len(restored) != 1 {
		t.Fatalf("restorations %+v, want one", restored)
	}
	if at := restored[0].TimeNs; r.LastEventNs != at || at <= done(r) {
		t.Errorf("storm restored at %d ns, flows done at %d: last event at %d ns, want the restoration", at, done(r), r.LastEventNs)
	}
}
