package sim

import (
	"context"
	"testing"
)

func TestWorkMeterDone(t *testing.T) {
	const end = 1000
	cases := []struct {
		name string
		w    workMeter
		now  int64
		want float64
	}{
		{"sized work ahead of the clock", workMeter{delivered: 60, total: 100}, 100, 0.6},
		{"the clock ahead of the work", workMeter{delivered: 5, total: 100}, 500, 0.5},
		{"all delivered", workMeter{delivered: 100, total: 100}, 10, 1},
		{"a flow runs to the end", workMeter{delivered: 60, total: 100, unbounded: true}, 100, 0.1},
		{"no sized work", workMeter{}, 250, 0.25},
		{"past the end", workMeter{delivered: 1, total: 100}, 2000, 1},
	}
	for _, c := range cases {
		if got := c.w.done(c.now, end); got != c.want {
			t.Errorf("%s: done = %v, want %v", c.name, got, c.want)
		}
	}
}

// Every kind of sized work, run to completion, delivers exactly the total
// the meter counted: the two sides of Progress.Done agree.
func TestWorkMeterCountsEveryKind(t *testing.T) {
	ranks := []string{"h0-0", "h0-1", "h1-0", "h1-1"}
	topo := leafSpine(2, 1, 2, 100, 100)
	base := func() Config {
		return Config{Topology: topo, DefaultQoS: losslessQoS(true, true, 100_000, 400_000), DurationNs: 50_000_000, Seed: 1}
	}
	rail := railRingConfig(2, 4<<20)
	cases := map[string]Config{
		"sized flow": func() Config {
			c := base()
			c.Flows = []Flow{{ID: "f", Src: "h0-0", Dst: "h1-0", Bytes: 3_000_001, MessageBytes: 10_000}}
			return c
		}(),
		"ring": func() Config {
			c := base()
			c.Rings = []Ring{{ID: "ar", Ranks: ranks, Bytes: 1_000_003}}
			return c
		}(),
		"all-to-all": func() Config {
			c := base()
			c.AllToAll = []AllToAll{{ID: "a2a", Ranks: ranks, Bytes: 100_000}}
			return c
		}(),
		"ping-pong": func() Config {
			c := base()
			c.PingPongs = []PingPong{{ID: "lat", Client: "h0-0", Server: "h1-1", MessageBytes: 5000, Iterations: 7}}
			return c
		}(),
		"program with scale-up streams": rail,
		// Messages of their own sizes (Stream.Size), 0 bytes included:
		// counted by what they carry, not by the largest.
		"program with sized messages": func() Config {
			sizes := []int64{1000, 0, 0, 4097}
			size := func(m int64) int64 { return sizes[m] }
			c := oneServer(8, 100, 300)
			c.Topology = leafSpine(1, 1, 2, 100, 100)
			c.ScaleUp = map[string]ScaleUpDomain{"h0-0": {GbpsPerGPU: 100, LatencyNs: 300, GPUs: 8}}
			c.Programs = []Program{{ID: "p", Streams: []Stream{
				{Src: "h0-0", Dst: "h0-1", Messages: 4, MessageBytes: 8192, Size: size},
				{ScaleUp: true, Host: "h0-0", SrcGPU: 0, DstGPU: 1, Messages: 4, MessageBytes: 8192, Size: size},
			}}}
			return c
		}(),
	}
	for name, cfg := range cases {
		s, err := newSim(&cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.run(context.Background()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.work.count(s)
		if s.work.unbounded || s.work.total <= 0 {
			t.Fatalf("%s: meter counted unbounded %v, total %d", name, s.work.unbounded, s.work.total)
		}
		if s.work.delivered != s.work.total {
			t.Errorf("%s: delivered %d bytes of the %d counted", name, s.work.delivered, s.work.total)
		}
		// The run ended when its work did, long before the duration.
		if p := s.progress(); p.Done != 1 {
			t.Errorf("%s: done %v at the end", name, p.Done)
		}
	}
}

// A run whose work ends long before its duration reports its progress by
// the work: Progress.Done runs well ahead of the simulated time's share.
func TestProgressFollowsTheWork(t *testing.T) {
	cfg := Config{
		Topology:   star(2, 100),
		DefaultQoS: losslessQoS(true, true, 100_000, 400_000),
		// 1.2 GB at 100G take about 100 ms of the 4 s.
		DurationNs: 4_000_000_000,
		Flows:      []Flow{{ID: "f", Src: "h0", Dst: "h1", Bytes: 1_200_000_000}},
		Seed:       1,
	}
	var got []Progress
	cfg.Progress = func(p Progress) { got = append(got, p) }
	r := mustRun(t, cfg)
	if len(got) < 2 {
		t.Fatalf("%d progress reports for %d events", len(got), r.Events)
	}
	last := Progress{}
	for _, p := range got {
		timeShare := float64(p.NowNs) / float64(cfg.DurationNs)
		if p.Done < last.Done || p.NowNs < last.NowNs || p.Events <= last.Events {
			t.Errorf("progress went back: %+v after %+v", p, last)
		}
		// The flow delivers its bytes in about a 40th of the duration: by
		// the bytes, done is about 40 times the simulated time's share.
		if p.Done < 20*timeShare || p.Done > 1 {
			t.Errorf("at %d ns: done %.4f, simulated time's share %.4f", p.NowNs, p.Done, timeShare)
		}
		last = p
	}

	// With a flow that runs to the end, the duration is the run's length.
	cfg.Flows = append(cfg.Flows, Flow{ID: "long", Src: "h1", Dst: "h0"})
	cfg.DurationNs = 20_000_000
	got = nil
	mustRun(t, cfg)
	if len(got) == 0 {
		t.Fatal("no progress reports")
	}
	for _, p := range got {
		if want := float64(p.NowNs) / float64(cfg.DurationNs); !within(p.Done, want, 1e-6) {
			t.Errorf("at %d ns with a long-lived flow: done %.4f, want the time's share %.4f", p.NowNs, p.Done, want)
		}
	}
}
