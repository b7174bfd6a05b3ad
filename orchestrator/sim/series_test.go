package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
)

// A PFC incast without ECN on one switch: the port toward the receiver
// queues priority 3 (it is not paused: the receiver NIC keeps up), the
// ports toward the senders send XOFF (their PG fills up to the XOFF
// point) and carry the receiver's ACKs back, and every watched
// priority's series has one value per sample.
func TestSeriesPerPriority(t *testing.T) {
	cfg := Config{
		Topology:      star(5, 100),
		DefaultQoS:    losslessQoS(true, false, 0, 0),
		DurationNs:    300_000,
		SampleEveryNs: 10_000,
		Watch:         []PortRef{{"sw", "Ethernet0"}, {"sw", "Ethernet1"}},
	}
	for i := 1; i <= 4; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: "in" + fmtVal(i), Src: "h" + fmtVal(i), Dst: "h0"})
	}
	r := mustRun(t, cfg)
	n := len(r.Series.TimesNs)
	prio := func(ps PortSeries, pr int) *PrioritySeries {
		for i := range ps.Priorities {
			if ps.Priorities[i].Priority == pr {
				return &ps.Priorities[i]
			}
		}
		t.Fatalf("%s:%s has no series of priority %d (has %+v)", ps.Node, ps.Port, pr, ps.Priorities)
		return nil
	}
	for _, ps := range r.Series.Queues {
		for _, p := range ps.Priorities {
			for _, l := range []int{len(p.QueueBytes), len(p.PausedRx), len(p.PGBytes), len(p.XOFFBytes), len(p.PauseTx)} {
				if l != n {
					t.Errorf("%s:%s priority %d: a series of %d values over %d samples", ps.Node, ps.Port, p.Priority, l, n)
				}
			}
		}
	}
	down, up := r.Series.Queues[0], r.Series.Queues[1]
	d := prio(down, 3)
	if d.Queue != 3 || d.PG != 3 || slices.Max(d.QueueBytes) == 0 || slices.Contains(d.PauseTx, true) || slices.Contains(d.PausedRx, true) {
		t.Errorf("toward the receiver: queue %d PG %d, peak %d B, pause sent %v, received %v; want queue 3 deep, no pause",
			d.Queue, d.PG, slices.Max(d.QueueBytes), slices.Contains(d.PauseTx, true), slices.Contains(d.PausedRx, true))
	}
	// The summed depth is the priorities' own (each queue counted once).
	for k := range n {
		if down.Bytes[k] != d.QueueBytes[k] {
			t.Fatalf("sample %d: port depth %d, priority 3's queue %d", k, down.Bytes[k], d.QueueBytes[k])
		}
	}
	u := prio(up, 3)
	if !slices.Contains(u.PauseTx, true) || slices.Max(u.PGBytes) == 0 || slices.Max(u.XOFFBytes) == 0 {
		t.Fatalf("toward a sender: pause sent %v, PG peak %d, XOFF point %d; want XOFF sent with the PG filled", slices.Contains(u.PauseTx, true), slices.Max(u.PGBytes), slices.Max(u.XOFFBytes))
	}
	// The PG is in XOFF only while it holds bytes (it resumes once it
	// drained to XON), and it reached its XOFF point at some sample.
	reached := false
	for k := range n {
		if u.PauseTx[k] && u.PGBytes[k] == 0 {
			t.Errorf("sample %d: XOFF with the PG empty", k)
		}
		reached = reached || u.PGBytes[k] >= u.XOFFBytes[k] && u.XOFFBytes[k] > 0
	}
	if !reached {
		t.Errorf("the PG never reached its XOFF point: use %v, XOFF %v", u.PGBytes, u.XOFFBytes)
	}
	// A priority nothing used has no series.
	for _, ps := range r.Series.Queues {
		for _, p := range ps.Priorities {
			if p.Priority != 3 && p.Priority != 6 {
				t.Errorf("%s:%s has a series of priority %d, which no packet used", ps.Node, ps.Port, p.Priority)
			}
		}
	}
}

// TestQuietSamplesRepeated: once a sample finds the fabric quiet to the end
// (nothing due but idle watchdog polls), the run takes the next sample and
// repeats it to the end of its duration instead of taking the rest: the
// result is the same, byte for byte (its count of events too: no engine
// counts a sample), as taking every sample,
// sequential and split, with PFC, link faults, storms and watchdogs,
// InfiniBand, UET and program credits; and the runs whose work ends early
// do repeat, unless a storm or a watchdog keeps them busy.
func TestQuietSamplesRepeated(t *testing.T) {
	// run returns the result's JSON without its event count, the count,
	// and the sim.
	run := func(cfg Config, everyTime bool) ([]byte, uint64, *sim) {
		t.Helper()
		s, err := newSim(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.sampleEveryTime = everyTime
		if err := s.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		r := s.result()
		events := r.Events
		r.Events = 0 // compared apart
		// Every sample, as taking them gives.
		if r.Series != nil {
			r.Series = r.Series.Expanded()
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b, events, s
	}
	cases := parallelCases()
	// PFC watchdogs poll every 10 µs to the end: an idle poll changes
	// nothing, so the ring's run still goes quiet when the ring is done.
	watchdogs := func(restorationNs int64) map[int]PortQoS {
		qos := losslessQoS(true, true, 40_000, 160_000)
		q := qos[3]
		q.Watchdog = &Watchdog{DetectionNs: 20_000, RestorationNs: restorationNs, PollNs: 10_000, Action: "drop"}
		qos[3] = q
		return qos
	}
	c := cases["ring allreduce"]
	c.DefaultQoS = watchdogs(50_000)
	cases["ring under watchdogs"] = c
	// A storm from a NIC the ring does not use, to the end: its pauses and
	// the watchdog's storm keep the run busy.
	c.Storms = []PauseStorm{{NIC: "h3-3", Priority: 3, StartNs: 100_000}}
	c.Rings = []Ring{{ID: "ring", Ranks: c.Rings[0].Ranks[:12], Bytes: 1 << 20, Role: "allreduce"}}
	cases["ring and a storm to the end"] = c
	// A short storm whose last pause (65535 quanta, 336 µs) ends long
	// after the ring, and a watchdog that restores later still (380 µs
	// after the last pause frame it saw, some 400 µs into the run): in
	// between, polls are all that is left, but the run is not quiet
	// (checked below).
	c.Storms = []PauseStorm{{NIC: "h3-3", Priority: 3, StartNs: 20_000, EndNs: 60_000}}
	c.DefaultQoS = watchdogs(380_000)
	c.DurationNs = 600_000
	cases["ring and a watchdog restoring late"] = c
	// The long-lived flows of the other cases, sized to end early.
	sized := func(name string) Config {
		c := cases[name]
		c.Flows = slices.Clone(c.Flows)
		for i := range c.Flows {
			c.Flows[i].Bytes = 20_000
		}
		return c
	}
	small := []string{"infiniband", "uet incast and permutation", "uet with rccc", "link faults", "pfc storm and watchdog"}
	for _, name := range small {
		cases[name+", sized"] = sized(name)
	}
	// The storm's last pauses end at 386 µs: room to go quiet after.
	c = cases["pfc storm and watchdog, sized"]
	c.DurationNs = 600_000
	cases["pfc storm and watchdog, sized"] = c
	// A storm's last pause (65535 quanta) outlasts the run; the watchdog
	// detects it 150 µs in, after everything else is done, and its action
	// lifts the pause (or drops the queue, or takes the link down): the
	// fabric is not quiet until then.
	afterQuiet := []string{}
	for _, action := range []string{"drop", "forward", "errdisable"} {
		c := cases["ring allreduce"]
		c.Rings = nil
		qos := losslessQoS(true, true, 40_000, 160_000)
		q := qos[3]
		q.Watchdog = &Watchdog{DetectionNs: 150_000, PollNs: 10_000, Action: action}
		qos[3] = q
		c.DefaultQoS = qos
		c.Storms = []PauseStorm{{NIC: "h0-0", Priority: 3, StartNs: 100_000, EndNs: 120_000}}
		name := "watchdog detecting after the rest, " + action
		cases[name] = c
		afterQuiet = append(afterQuiet, name)
	}
	repeated := map[string]int{}
	firstRepeat := map[string]int64{} // ns
	for name, cfg := range cases {
		for _, parts := range []int{1, 4} {
			cfg.Partitions, cfg.Threads = parts, 2
			t.Run(fmt.Sprintf("%s/%d partitions", name, parts), func(t *testing.T) {
				if cfg.SampleEveryNs <= 0 {
					t.Skip("no time series")
				}
				taken, takenEvents, _ := run(cfg, true)
				got, events, s := run(cfg, false)
				if !bytes.Equal(got, taken) {
					t.Errorf("repeating quiet samples changed the result (%d against %d bytes of JSON)", len(got), len(taken))
				}
				// Neither engine counts a sample as an event.
				if events != takenEvents {
					t.Errorf("%d events with %d samples repeated, %d when all were taken", events, s.series.Repeated, takenEvents)
				}
				repeated[name] += s.series.Repeated
				if s.series.Repeated > 0 {
					firstRepeat[name] = (s.end - int64(s.series.Repeated-1)*s.sampleT) / 1000
				}
				if name == "ring and a watchdog restoring late" {
					restored := int64(-1)
					for _, m := range s.result().Timeline {
						if m.Kind == MarkWatchdogRestored {
							restored = m.TimeNs
						}
					}
					if restored < 0 || s.series.Repeated == 0 || firstRepeat[name] <= restored {
						t.Errorf("watchdog restored at %d ns (-1: never), %d samples repeated from %d ns: want repetition, only after the restoration", restored, s.series.Repeated, firstRepeat[name])
					}
				}
			})
		}
	}
	// The ring and the all-to-all complete well before the 400 µs; a
	// permutation of long flows never goes quiet.
	mustRepeat := []string{"ring allreduce", "all-to-all", "ring under watchdogs"}
	for _, name := range small {
		mustRepeat = append(mustRepeat, name+", sized")
	}
	for _, name := range append(mustRepeat, afterQuiet...) {
		if repeated[name] == 0 {
			t.Errorf("%s: no sample repeated, though its work ends before the run does", name)
		}
	}
	for _, name := range []string{"sprayed permutation", "ring and a storm to the end"} {
		if repeated[name] != 0 {
			t.Errorf("%s: %d samples repeated while the fabric was busy", name, repeated[name])
		}
	}
}

// TestQuietToTheEndSeesOutboxes: an event one partition sent another in
// the last window waits in an outbox, in no queue, until the next window;
// the fabric is not quiet while it does.
func TestQuietToTheEndSeesOutboxes(t *testing.T) {
	cfg := parallelCases()["ring allreduce"]
	cfg.Partitions, cfg.Threads = 4, 1
	s, err := newSim(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.par == nil || len(s.par.parts) != 4 {
		t.Fatal("the run was not split")
	}
	if !s.quietToTheEnd() {
		t.Fatal("a finished run is not quiet")
	}
	s.par.parts[2].part.minSent = s.end - 1
	if s.quietToTheEnd() {
		t.Error("an event in an outbox, due before the end, left the fabric quiet")
	}
}

// Expanded writes the samples not taken out, each the last one taken, at
// the sample interval to the end; HeldIn counts those in a window, as
// counting the expanded samples' times does.
func TestSeriesExpandedAndHeldIn(t *testing.T) {
	s := &Series{
		TimesNs:     []int64{0, 10, 20},
		EveryNs:     10,
		Repeated:    3,
		Queues:      []PortSeries{{Node: "l", Port: "e0", Bytes: []int64{0, 5, 7}, Paused: []bool{false, true, true}, Priorities: []PrioritySeries{{Priority: 3, QueueBytes: []int64{0, 5, 7}, PausedRx: []bool{false, true, true}, PGBytes: []int64{1, 2, 3}, XOFFBytes: []int64{9, 9, 9}, PauseTx: []bool{false, false, true}}}}},
		Rates:       []FlowSeries{{ID: "f", RateGbps: []float64{1, 2, 3}, GoodputGbps: []float64{1, 1, 0}}},
		GoodputGbps: []float64{1, 1, 0},
	}
	e := s.Expanded()
	if !slices.Equal(e.TimesNs, []int64{0, 10, 20, 30, 40, 50}) || e.Repeated != 0 || e.EveryNs != 10 {
		t.Fatalf("expanded times %v, repeated %d", e.TimesNs, e.Repeated)
	}
	q, p := e.Queues[0], e.Queues[0].Priorities[0]
	if !slices.Equal(q.Bytes, []int64{0, 5, 7, 7, 7, 7}) || !slices.Equal(q.Paused, []bool{false, true, true, true, true, true}) ||
		!slices.Equal(p.PGBytes, []int64{1, 2, 3, 3, 3, 3}) || !slices.Equal(p.PauseTx, []bool{false, false, true, true, true, true}) ||
		!slices.Equal(e.Rates[0].RateGbps, []float64{1, 2, 3, 3, 3, 3}) || !slices.Equal(e.GoodputGbps, []float64{1, 1, 0, 0, 0, 0}) {
		t.Errorf("expanded values %+v %+v %+v", q, e.Rates, e.GoodputGbps)
	}
	// The original is left as it was.
	if len(s.TimesNs) != 3 || len(s.Queues[0].Bytes) != 3 || len(s.Queues[0].Priorities[0].PausedRx) != 3 || s.Repeated != 3 {
		t.Errorf("Expanded changed the series it copied: %+v", s)
	}
	for from := int64(-15); from <= 65; from += 5 {
		for to := from - 10; to <= 70; to += 5 {
			want := 0
			for _, tt := range e.TimesNs[3:] {
				if tt >= from && tt <= to {
					want++
				}
			}
			if got := s.HeldIn(from, to); got != want {
				t.Errorf("HeldIn(%d, %d) = %d, want %d", from, to, got, want)
			}
		}
	}
	if n := (&Series{TimesNs: []int64{0}, EveryNs: 10}).HeldIn(0, 100); n != 0 {
		t.Errorf("nothing repeated: HeldIn %d", n)
	}
	// Bounds at the ends of int64 do not overflow.
	one := &Series{TimesNs: []int64{100}, EveryNs: 10, Repeated: 5}
	for _, c := range []struct{ from, to int64 }{{math.MinInt64, math.MaxInt64}, {math.MinInt64 + 1, 200}, {math.MinInt64, 150}} {
		if n := one.HeldIn(c.from, c.to); n != 5 {
			t.Errorf("HeldIn(%d, %d) = %d, want 5", c.from, c.to, n)
		}
	}
	if n := one.HeldIn(math.MaxInt64, math.MinInt64); n != 0 {
		t.Errorf("HeldIn of an empty window = %d", n)
	}
}

// TestSeriesSizedAtStart: a run of up to seriesPrealloc samples writes
// its time series in arrays sized for all of them at the start (no
// array is grown and copied while it runs); a longer one starts at
// seriesPrealloc and grows from there.
func TestSeriesSizedAtStart(t *testing.T) {
	base := Config{
		Topology:      star(5, 100),
		DefaultQoS:    losslessQoS(true, false, 0, 0),
		SampleEveryNs: 1_000,
		Watch:         []PortRef{{"sw", "Ethernet0"}, {"sw", "Ethernet1"}},
	}
	for i := 1; i <= 4; i++ {
		base.Flows = append(base.Flows, Flow{ID: "in" + fmtVal(i), Src: "h" + fmtVal(i), Dst: "h0"})
	}
	for _, samples := range []int{301, seriesPrealloc + 500} {
		cfg := base
		cfg.DurationNs = int64(samples-1) * cfg.SampleEveryNs
		r := mustRun(t, cfg)
		want := min(samples, seriesPrealloc)
		if len(r.Series.TimesNs) != samples {
			t.Fatalf("%d samples taken, want %d", len(r.Series.TimesNs), samples)
		}
		check := func(what string, l, c int) {
			t.Helper()
			if samples <= seriesPrealloc && c != want || samples > seriesPrealloc && c < l {
				t.Errorf("%d samples: %s has capacity %d for %d values, want %d", samples, what, c, l, want)
			}
		}
		check("times", len(r.Series.TimesNs), cap(r.Series.TimesNs))
		check("total goodput", len(r.Series.GoodputGbps), cap(r.Series.GoodputGbps))
		for _, q := range r.Series.Queues {
			check(q.Port+" bytes", len(q.Bytes), cap(q.Bytes))
			check(q.Port+" paused", len(q.Paused), cap(q.Paused))
			for _, p := range q.Priorities {
				check(q.Port+" priority queue bytes", len(p.QueueBytes), cap(p.QueueBytes))
				check(q.Port+" priority PG bytes", len(p.PGBytes), cap(p.PGBytes))
			}
		}
		for _, f := range r.Series.Rates {
			check(f.ID+" rate", len(f.RateGbps), cap(f.RateGbps))
			check(f.ID+" goodput", len(f.GoodputGbps), cap(f.GoodputGbps))
		}
	}
}
