package sim

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestQuietArrivalsSameResult holds quiet arrivals (quiet.go) to the
// result of taking every arrival at a receiver as an event, byte for byte
// and with the same count of events: on the split engine's cases run in
// one partition (rings, all-to-all, chained flows, a sprayed permutation
// placed out of order, programs and their credits, ECN with DCQCN's
// CNPs, time series; the storm, fault, InfiniBand and UET cases take no
// arrival early) and on incasts, ping-pongs, perftest-like QPs with a tx
// depth and small messages, a warm-up window, ACKs every packet and every
// 64, per-port CNPs and a capped NIC. The cases that can take quiet
// arrivals must take some, so the path is exercised; the run that takes
// every arrival as an event takes none.
func TestQuietArrivalsSameResult(t *testing.T) {
	cases := map[string]Config{}
	for name, c := range parallelCases() {
		c.Partitions = 1
		cases[name] = c
	}
	// Split in four on two threads, a run takes none (quiet.go says why).
	c := parallelCases()["incast and a chain"]
	c.Partitions, c.Threads = 4, 2
	cases["split"] = c
	incast := func() Config {
		c := incastConfig(8, true, true, true, 1_000_000)
		c.SampleEveryNs = 0
		return c
	}
	cases["incast, no series"] = incast()
	c = incast()
	c.SampleEveryNs = 50_000
	cases["incast, series"] = c
	c = incast()
	c.AckEvery = 1
	cases["incast, an ACK a packet"] = c
	c = incast()
	c.AckEvery = 64
	c.CNPPerPort = true
	c.WarmupNs = 300_000
	cases["incast, ACK every 64, CNPs per port, warm-up"] = c
	c = incast()
	for i := range c.Flows {
		c.Flows[i].TxDepth, c.Flows[i].MessageBytes = 4, 10_000
	}
	cases["incast, tx depth and small messages"] = c
	c = incast()
	c.NICCapGbps = map[string]float64{"h1": 40}
	c.Flows = c.Flows[:3]
	c.PingPongs = []PingPong{{ID: "lat", Client: "h7", Server: "h8", MessageBytes: 8192, Iterations: 50}}
	cases["capped NIC and a ping-pong"] = c
	c = permutationConfig(4, 2, 8, 32)
	c.DurationNs = 200_000
	cases["permutation at 200G"] = c

	// The runs that may take no arrival early (faults, storms, InfiniBand,
	// UET and the split engine: mayArriveQuietly) and one that can take
	// none, every packet the last of its message (the credits' 256-byte
	// messages); every other case takes some.
	forbidden := map[string]bool{"link faults": true, "pfc storm and watchdog": true, "infiniband": true,
		"uet incast and permutation": true, "uet with rccc": true, "split": true}
	none := map[string]bool{"program credits": true}
	// run returns the result's JSON and the quiet arrivals taken, by the
	// run or its partitions (which must take none).
	run := func(cfg Config, always bool) ([]byte, uint64) {
		t.Helper()
		s := runSim(t, cfg, func(s *sim) { s.arriveAlways = always })
		b, err := json.Marshal(s.result())
		if err != nil {
			t.Fatal(err)
		}
		taken := s.quietArrived
		if s.par != nil {
			for _, p := range s.par.parts {
				taken += p.quietArrived
			}
		}
		return b, taken
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			quiet, taken := run(cfg, false)
			events, always := run(cfg, true)
			if string(quiet) != string(events) {
				t.Errorf("quiet arrivals changed the result:\n%s", firstDiff(quiet, events))
			}
			if always != 0 {
				t.Errorf("every arrival an event: %d taken quietly", always)
			}
			if taken == 0 && !forbidden[name] && !none[name] {
				t.Error("no arrival taken quietly")
			}
			if taken != 0 && forbidden[name] {
				t.Errorf("%d arrivals taken quietly, where none may be", taken)
			}
			t.Logf("%d arrivals taken quietly", taken)
		})
	}
}

// firstDiff shows where two encodings first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-120, 0)
	return fmt.Sprintf("at byte %d:\n  %s\n  %s", i, a[from:min(i+120, len(a))], b[from:min(i+120, len(b))])
}

// TestSampleLeavesOutAhead: a sample at time t counts none of the bytes
// taken early for arrivals at t or later (a sample and an arrival at the
// same time: the sample was scheduled first), counts those before t, gives
// the bytes back to the QP after, forgets the arrivals before t, and finds
// the fabric busy while any is still to come.
func TestSampleLeavesOutAhead(t *testing.T) {
	s, fi, f := sampledIncast(t)
	s.now = 10_000_000 // ps: the sample at 10 µs
	f.delivered = 10_000
	s.ahead = []aheadArrival{
		{flow: fi, at: 9_000_000, bytes: 500},   // arrived before the sample: counted
		{flow: fi, at: 10_000_000, bytes: 4000}, // at the sample's time: after it
		{flow: fi, at: 12_000_000, bytes: 1000}, // later
	}
	s.sampleWithoutAhead()
	if f.sampledBytes != 5000 || f.delivered != 10_000 {
		t.Errorf("sampled %d bytes and left %d delivered, want 5000 (10000 less the 5000 due at or after 10 µs) and 10000", f.sampledBytes, f.delivered)
	}
	want := round3(5000 * 8 * 1000 / float64(s.sampleT))
	if got := s.series.Rates[0].GoodputGbps; len(got) != 1 || got[0] != want {
		t.Errorf("goodput series %v, want [%v]", got, want)
	}
	if len(s.ahead) != 2 || s.ahead[0].at != 10_000_000 {
		t.Errorf("arrivals still to come %+v, want the two at and after 10 µs", s.ahead)
	}
	if s.quietSample {
		t.Error("the fabric was found quiet to the end with arrivals still to come")
	}
}

// TestQuietArrivalAtSampleTime: a quiet arrival due at the next sample's
// time or later is kept for that sample to leave out; one due before it
// is not.
func TestQuietArrivalAtSampleTime(t *testing.T) {
	s, fi, f := sampledIncast(t)
	s.now, s.sampleAt = 9_000_000, 10_000_000
	for _, c := range []struct {
		at   int64
		kept int
	}{{9_999_999, 0}, {10_000_000, 1}, {10_000_001, 2}} {
		k := s.alloc()
		pk := &s.pkts[k]
		pk.kind, pk.flow, pk.dst, pk.psn, pk.payload, pk.sent = pktData, fi, f.dst, f.rcvNxt, 1000, s.now
		if !s.arriveQuietly(f.dst, k, c.at) {
			t.Fatalf("an in-order packet due at %d ps was not taken quietly", c.at)
		}
		if len(s.ahead) != c.kept {
			t.Errorf("due at %d ps with the sample at %d: %d arrivals kept, want %d", c.at, s.sampleAt, len(s.ahead), c.kept)
		}
	}
}

// sampledIncast is a 2:1 incast sampled every 10 µs, set up and not run,
// with its first rated QP.
func sampledIncast(t *testing.T) (*sim, int32, *flowState) {
	t.Helper()
	cfg := incastConfig(2, true, false, false, 100_000)
	cfg.SampleEveryNs = 10_000
	s, err := newSim(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	fi := s.rated[0]
	return s, fi, &s.flows[fi]
}
