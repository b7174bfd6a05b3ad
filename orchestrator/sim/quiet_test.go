package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// TestQuietArrivalsSameResult holds quiet arrivals (quiet.go) to the
// result of taking every arrival at a receiver as an event, byte for byte
// and with the same count of events: on the split engine's cases run
// sequentially (rings, all-to-all, chained flows, a sprayed permutation
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
	incast := func() Config {
		c := incastConfig(8, true, true, true, 1_000_000)
		c.SampleEveryNs = 0
		return c
	}
	cases["incast, no series"] = incast()
	c := incast()
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

	// The cases that take no arrival early: faults, storms, InfiniBand
	// and UET (mayArriveQuietly), every packet a message's last (the
	// credits' 256-byte messages), out of order (the spray), and flows
	// at line rate whose packets follow, on the wire, one that arrives
	// as an event (a message's last, or one due after a sample).
	noneQuiet := map[string]bool{"link faults": true, "pfc storm and watchdog": true, "infiniband": true,
		"uet incast and permutation": true, "uet with rccc": true, "program credits": true,
		"sprayed permutation": true, "ring allreduce": true, "all-to-all": true}
	run := func(cfg Config, always bool) ([]byte, *sim) {
		t.Helper()
		s, err := newSim(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.arriveAlways = always
		if err := s.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s.result())
		if err != nil {
			t.Fatal(err)
		}
		return b, s
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			quiet, s := run(cfg, false)
			events, es := run(cfg, true)
			if string(quiet) != string(events) {
				t.Errorf("quiet arrivals changed the result:\n%s", firstDiff(quiet, events))
			}
			if es.quietArrived != 0 || es.quietArrivals {
				t.Errorf("every arrival an event: %d taken quietly", es.quietArrived)
			}
			if s.quietArrived == 0 && !noneQuiet[name] {
				t.Error("no arrival taken quietly")
			}
			t.Logf("%d of %d events taken as quiet arrivals", s.quietArrived, s.result().Events)
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
