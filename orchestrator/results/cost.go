package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Cost is what running a variant cost on the machine that ran it: the
// wall time and, for the packet-level simulator, the work it did (events
// processed, packets put on links) and its speed. Events and packet hops
// follow from the seed like every simulated figure; the wall time and
// events/s are measured, and differ from run to run and machine to
// machine. So the rest of a record is reproducible (same seed, same
// record) and Cost is not: comparisons of records leave it out
// (WithoutCost), regress never reads it, and a baseline does not keep it
// (ForBaseline).
//
// A figure a runtime does not have is absent, never 0: a live lab's
// variant has no events, and neither has the flow-level model (it
// computes rates, not packets).
type Cost struct {
	// WallS is the wall time in seconds: of the simulator (building its
	// state from the variant, then simulating), or of a live lab's
	// traffic and counter collection.
	WallS float64 `json:"wall_s"`
	// Events the packet-level engine processed, EventsPerS over WallS,
	// PacketHops the packets it put on a link (data, ACK, NAK, CNP).
	Events     *uint64  `json:"events,omitempty"`
	EventsPerS *float64 `json:"events_per_s,omitempty"`
	PacketHops *uint64  `json:"packet_hops,omitempty"`
	// Threads the simulator ran the variant on, at the most (0: not a
	// simulation): a split run may take spare threads as it goes, and runs
	// the windows where one thread is faster on one (sim.threadTuner).
	Threads int `json:"threads,omitempty"`
	// PartitionsNote says why the simulator split the fabric into fewer
	// partitions than --partitions asked (the split it made is the
	// variant's ParamPartitions).
	PartitionsNote string `json:"partitions_note,omitempty"`
}

// PacketCost is the cost of a packet-level simulation of events and hops
// that took wall on threads.
func PacketCost(wall time.Duration, events, hops uint64, threads int) *Cost {
	c := &Cost{WallS: wallSeconds(wall), Events: &events, PacketHops: &hops, Threads: threads}
	if wall > 0 {
		r := math.Round(float64(events) / wall.Seconds())
		c.EventsPerS = &r
	}
	return c
}

// WallCost is the cost of work that counts no events: the flow-level
// model (threads 1) or a live lab's variant (threads 0).
func WallCost(wall time.Duration, threads int) *Cost {
	return &Cost{WallS: wallSeconds(wall), Threads: threads}
}

// wallSeconds keeps a millisecond: finer is noise.
func wallSeconds(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// String says a Cost in one line: "2.41 s wall, 18.3M events (7.6M/s),
// 6.1M packet-hops, 1 thread". It is empty for a nil Cost.
func (c *Cost) String() string {
	if c == nil {
		return ""
	}
	parts := []string{fmt.Sprintf("%.2f s wall", c.WallS)}
	if c.Events != nil {
		ev := si(float64(*c.Events)) + " events"
		if c.EventsPerS != nil {
			ev += " (" + si(*c.EventsPerS) + "/s)"
		}
		parts = append(parts, ev)
	}
	if c.PacketHops != nil {
		parts = append(parts, si(float64(*c.PacketHops))+" packet-hops")
	}
	switch {
	case c.Threads == 1:
		parts = append(parts, "1 thread")
	case c.Threads > 1:
		parts = append(parts, fmt.Sprintf("%d threads", c.Threads))
	}
	return strings.Join(parts, ", ")
}

// ParamLBMode is the variant parameter that keeps how the switches chose
// paths when not by the flow hash alone (flowlet, spray, adaptive); with
// flowlets an edit that shifts the flows' timing moves them between
// ports too (regress lists those ports' figures apart, pathsByTiming).
const ParamLBMode = "lb.mode"

// ParamPartitions is the variant parameter that keeps the split the
// simulator's parallel engine ran (set when it split the fabric): like the
// seed, the result depends on it.
const ParamPartitions = "partitions"

// CostLines are a variant's "run cost" lines as reports and the run
// summary print them, each saying what its wall time measured so that
// nobody takes it for a simulated figure: the variant's own, and on a
// live lab its simulated counterpart's. None when the record has no cost
// (records made before it was kept).
func CostLines(v Variant) []string {
	var lines []string
	if c := v.Cost; c != nil {
		what := "measured wall time of the simulator on this machine"
		if c.Threads == 0 {
			what = "measured wall time of the variant's traffic, counters and latency probe on the live lab"
		}
		cost := c.String()
		if p := v.Params[ParamPartitions]; p != "" && c.Threads > 0 {
			cost += ", " + p + " partitions"
		}
		lines = append(lines, fmt.Sprintf("run cost: %s (%s)", cost, what))
		if c.PartitionsNote != "" {
			lines = append(lines, c.PartitionsNote)
		}
	}
	if sp := v.Simulated; sp != nil && sp.Cost != nil {
		lines = append(lines, fmt.Sprintf("run cost of the simulated counterpart: %s (measured wall time of the simulator on this machine)", sp.Cost))
	}
	return lines
}

// si writes a count with a k, M or G suffix and about three significant
// digits: 18.3M, 412k, 7.61G.
func si(v float64) string {
	x, sym := v, ""
	for _, u := range []struct {
		div float64
		sym string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			x, sym = v/u.div, u.sym
			break
		}
	}
	digits := 0
	switch {
	case sym == "":
	case x < 10:
		digits = 2
	case x < 100:
		digits = 1
	}
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s + sym
}

// WithoutCost is a copy of run without what its variants cost (Cost, of
// the variant and of its simulated counterpart): what two runs of the
// same seed must agree on byte for byte, apart from ids and times.
func WithoutCost(run *Run) *Run {
	c := *run
	c.Variants = make([]Variant, len(run.Variants))
	for i, v := range run.Variants {
		c.Variants[i] = v.WithoutCost()
	}
	return &c
}

// WithoutCost is a copy of v without Cost (see WithoutCost).
func (v Variant) WithoutCost() Variant {
	v.Cost = nil
	if v.Simulated != nil {
		sp := *v.Simulated
		sp.Cost = nil
		v.Simulated = &sp
	}
	return v
}
