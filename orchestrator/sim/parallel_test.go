package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// parallelCases are runs that cross every partition boundary: collectives
// whose ranks sit on every leaf, congestion that pauses across partitions,
// a PFC storm with a watchdog, packet spraying, time series.
func parallelCases() map[string]Config {
	base := func() Config {
		return Config{
			Topology:      leafSpine(4, 2, 4, 100, 100),
			DefaultQoS:    losslessQoS(true, true, 40_000, 160_000),
			DurationNs:    400_000,
			Seed:          3,
			DCQCN:         ConnectXDCQCN(),
			DCQCNEnabled:  true,
			SampleEveryNs: 20_000,
			Watch:         []PortRef{{Node: "leaf0", Port: "Ethernet0"}},
		}
	}
	hosts := func() []string {
		var hs []string
		for l := range 4 {
			for i := range 4 {
				hs = append(hs, fmt.Sprintf("h%d-%d", l, i))
			}
		}
		return hs
	}
	cases := map[string]Config{}

	c := base()
	c.Rings = []Ring{{ID: "ring", Ranks: hosts(), Bytes: 1 << 20, Role: "allreduce"}}
	cases["ring allreduce"] = c

	c = base()
	c.AllToAll = []AllToAll{{ID: "a2a", Ranks: hosts()[:8], Bytes: 64 << 10, Role: "moe"}}
	cases["all-to-all"] = c

	c = base()
	for i, src := range hosts()[4:] {
		c.Flows = append(c.Flows, Flow{ID: fmt.Sprintf("in%d", i), Src: src, Dst: "h0-0", Bytes: 200_000})
	}
	// A chain of dependent flows: each starts when the previous completes.
	c.Flows = append(c.Flows, Flow{ID: "c0", Src: "h1-1", Dst: "h2-1", Bytes: 50_000},
		Flow{ID: "c1", Src: "h2-1", Dst: "h3-1", Bytes: 50_000, After: []string{"c0"}})
	cases["incast and a chain"] = c

	c = base()
	hs := hosts()
	for i := range hs {
		c.Flows = append(c.Flows, Flow{ID: fmt.Sprintf("p%d", i), Src: hs[i], Dst: hs[(i+5)%len(hs)]})
	}
	c.LB = LoadBalancing{Mode: "spray"}
	c.OutOfOrder = true
	cases["sprayed permutation"] = c

	c = base()
	qos := losslessQoS(true, false, 0, 0)
	q := qos[3]
	q.Watchdog = &Watchdog{DetectionNs: 20_000, RestorationNs: 50_000, PollNs: 10_000, Action: "drop"}
	qos[3] = q
	c.DefaultQoS = qos
	c.Flows = []Flow{{ID: "victim", Src: "h1-0", Dst: "h2-0"}, {ID: "x", Src: "h3-0", Dst: "h0-1"}}
	c.Storms = []PauseStorm{{NIC: "h2-0", Priority: 3, StartNs: 50_000, EndNs: 250_000}}
	cases["pfc storm and watchdog"] = c

	c = base()
	for i, src := range hosts()[4:12] {
		c.Flows = append(c.Flows, Flow{ID: fmt.Sprintf("f%d", i), Src: src, Dst: hosts()[(i+9)%16]})
	}
	c.Faults = []LinkFault{
		{Link: PortRef{Node: "leaf1", Port: "Ethernet100"}, DownNs: 100_000, UpNs: 250_000},
		{Link: PortRef{Node: "spine1", Port: "Ethernet2"}, DownNs: 150_000, DetectNs: 5_000, ConvergeNs: 40_000},
	}
	cases["link faults"] = c

	// InfiniBand: credits cross every partition boundary, with an incast
	// that spreads a congestion tree, IB CC on and a link fault.
	c = base()
	c.Transport = TransportInfiniBand
	c.IB = &IBParams{CC: IBCC{Enabled: true, Threshold: 8, MarkingRate: 3, CCTITimerNs: 20 * 1024}}
	for i, src := range hosts()[4:] {
		c.Flows = append(c.Flows, Flow{ID: fmt.Sprintf("in%d", i), Src: src, Dst: "h0-0", Bytes: 200_000})
	}
	c.Flows = append(c.Flows, Flow{ID: "victim", Src: "h1-1", Dst: "h0-1"})
	c.Faults = []LinkFault{{Link: PortRef{Node: "leaf1", Port: "Ethernet100"}, DownNs: 100_000, UpNs: 250_000, DetectNs: 5_000, ConvergeNs: 40_000}}
	cases["infiniband"] = c

	// UET without PFC on switches with little buffer: sprayed packets of
	// an incast and a permutation cross every partition, trimmed headers,
	// ACKs and NACKs come back across them, and timers run at the senders.
	c = base()
	c.DefaultQoS = losslessQoS(false, true, 20_000, 80_000)
	c.DCQCNEnabled = false
	for i := range c.Topology.Nodes {
		if c.Topology.Nodes[i].Kind == Switch {
			c.Topology.Nodes[i].BufferBytes = 150_000
		}
	}
	c.Transport = TransportUET
	for i, src := range hosts()[4:] {
		c.Flows = append(c.Flows, Flow{ID: fmt.Sprintf("in%d", i), Src: src, Dst: "h0-0", Bytes: 300_000})
	}
	for i := range hs[1:] {
		c.Flows = append(c.Flows, Flow{ID: fmt.Sprintf("p%d", i), Src: hs[i+1], Dst: hs[(i+6)%len(hs)], Bytes: 500_000})
	}
	cases["uet incast and permutation"] = c

	// The same with receiver credit: the receivers' pacers grant across
	// partitions.
	c.UET.RCCC = true
	cases["uet with rccc"] = c

	cases["programs"] = programCase(hosts(), 10_000)

	// Credits crossing partitions all the time: every server's stream is
	// read by a stream sent from another leaf, message by message.
	c = base()
	hs = hosts()
	p := Program{ID: "credits"}
	for i := range hs {
		p.Streams = append(p.Streams, Stream{Src: hs[i], Dst: hs[(i+5)%len(hs)], Messages: 200, MessageBytes: 256})
	}
	for i := range hs {
		p.Streams = append(p.Streams, Stream{Src: hs[(i+9)%len(hs)], Dst: hs[(i+2)%len(hs)], Messages: 200, MessageBytes: 256,
			Inputs: []Input{{Stream: int32(i), Offset: 0}}})
	}
	c.Programs = []Program{p}
	cases["program credits"] = c
	return cases
}

// programCase is three programs over every leaf, as nccl-tests runs
// sizes: a ring whose ranks wait for each other's messages, a second
// ring startNs after the first completed, and then a server's scale-up
// transfer whose data a fabric stream forwards as it arrives, and a
// server on another leaf sends on as it learns of each message (a credit
// from another partition).
func programCase(hs []string, startNs int64) Config {
	c := Config{
		Topology:      leafSpine(4, 2, 4, 100, 100),
		DefaultQoS:    losslessQoS(true, true, 40_000, 160_000),
		DurationNs:    2_000_000,
		Seed:          3,
		DCQCN:         ConnectXDCQCN(),
		DCQCNEnabled:  true,
		SampleEveryNs: 20_000,
		ScaleUp:       map[string]ScaleUpDomain{"h1-2": {GbpsPerGPU: 400, LatencyNs: 500, GPUs: 2}},
	}
	ring := func(id string, bytes int64) Program {
		p := Program{ID: id, Role: "ring"}
		for i := range hs {
			// Message m of rank i waits for message m-1 of rank i-1.
			p.Streams = append(p.Streams, Stream{Src: hs[i], Dst: hs[(i+1)%len(hs)], Messages: 6, MessageBytes: bytes,
				Inputs: []Input{{Stream: int32((i + len(hs) - 1) % len(hs)), Offset: -1}}})
		}
		return p
	}
	r0, r1 := ring("ring0", 16<<10), ring("ring1", 64<<10)
	r1.After, r1.StartNs = "ring0", startNs
	su := Program{ID: "scale-up", After: "ring1", StartNs: startNs, Streams: []Stream{
		{ScaleUp: true, Host: "h1-2", SrcGPU: 0, DstGPU: 1, Messages: 4, MessageBytes: 32 << 10},
		{Src: "h1-2", Dst: "h3-0", Messages: 4, MessageBytes: 32 << 10, Inputs: []Input{{Stream: 0, Offset: 0}}},
		// Waits for what another leaf's server receives: it learns of it
		// a credit's trip later, in another partition.
		{Src: "h2-1", Dst: "h0-3", Messages: 4, MessageBytes: 32 << 10, Inputs: []Input{{Stream: 1, Offset: 0}}},
	}}
	c.Programs = []Program{r0, r1, su}
	return c
}

func resultJSON(t *testing.T, cfg Config) []byte {
	t.Helper()
	r := mustRun(t, cfg)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParallelSameForAnyThreads: a split fabric gives the same result,
// byte for byte, on 1, 2 and 4 threads.
func TestParallelSameForAnyThreads(t *testing.T) {
	for name, cfg := range parallelCases() {
		t.Run(name, func(t *testing.T) {
			cfg.Partitions = 4
			cfg.Threads = 1
			one := resultJSON(t, cfg)
			var r Result
			if err := json.Unmarshal(one, &r); err != nil {
				t.Fatal(err)
			}
			if r.Partitions != 4 || r.LookaheadNs <= 0 {
				t.Fatalf("partitions %d lookahead %v ns: want 4 partitions and a lookahead", r.Partitions, r.LookaheadNs)
			}
			if r.Events == 0 || r.PacketHops == 0 {
				t.Fatalf("no work done: %d events, %d hops", r.Events, r.PacketHops)
			}
			for _, threads := range []int{2, 4} {
				cfg.Threads = threads
				if got := resultJSON(t, cfg); !bytes.Equal(got, one) {
					t.Errorf("%d threads: result differs from 1 thread's (%d vs %d bytes of JSON)", threads, len(got), len(one))
				}
			}
		})
	}
}

// sequentialAndSplit runs parallelCases()[name] in one partition and in
// four on two threads.
func sequentialAndSplit(t *testing.T, name string) (seq, par *Result) {
	t.Helper()
	cfg := parallelCases()[name]
	seq = mustRun(t, cfg)
	cfg.Partitions, cfg.Threads = 4, 2
	par = mustRun(t, cfg)
	if seq.Partitions != 1 || par.Partitions != 4 {
		t.Fatalf("%s: partitions %d and %d, want 1 and 4", name, seq.Partitions, par.Partitions)
	}
	return seq, par
}

// TestParallelAgreesWithSequential: splitting changes which random draws
// and ties a run takes, not what it models. The split ring completes as
// the sequential one does, within a percent, and moves the same bytes.
func TestParallelAgreesWithSequential(t *testing.T) {
	seq, par := sequentialAndSplit(t, "ring allreduce")
	if len(seq.Rings) != 1 || len(par.Rings) != 1 || seq.Rings[0].TimeNs == nil || par.Rings[0].TimeNs == nil {
		t.Fatalf("the ring did not complete: sequential %+v, split %+v", seq.Rings, par.Rings)
	}
	a, b := float64(*seq.Rings[0].TimeNs), float64(*par.Rings[0].TimeNs)
	if !within(b/a, 1, 0.01) {
		t.Errorf("ring time %v ns split against %v ns sequential", b, a)
	}
	if seq.Totals.BytesDelivered != par.Totals.BytesDelivered {
		t.Errorf("bytes delivered %d split against %d sequential", par.Totals.BytesDelivered, seq.Totals.BytesDelivered)
	}

	// Link faults run between windows: the same marks at the same times,
	// and the packets lost on the failed links, as in one partition.
	seq, par = sequentialAndSplit(t, "link faults")
	if len(seq.Timeline) == 0 || len(seq.Timeline) != len(par.Timeline) {
		t.Fatalf("timeline: %d marks sequential, %d split", len(seq.Timeline), len(par.Timeline))
	}
	for i := range seq.Timeline {
		a, b := seq.Timeline[i], par.Timeline[i]
		if a.TimeNs != b.TimeNs || a.Kind != b.Kind || a.Where != b.Where {
			t.Errorf("mark %d: %+v sequential, %+v split", i, a, b)
		}
	}
	if seq.Totals.Drops == 0 || par.Totals.Drops == 0 {
		t.Errorf("drops %d sequential, %d split: the failed links lose packets in both", seq.Totals.Drops, par.Totals.Drops)
	}
}

// TestPartitionsStaySequentialWhenTheyMust: a program that starts less
// than a lookahead after the one it waits for keeps one partition, small
// fabrics too by default.
func TestPartitionsStaySequentialWhenTheyMust(t *testing.T) {
	cfg := parallelCases()["incast and a chain"]
	if r := mustRun(t, cfg); r.Partitions != 1 {
		t.Errorf("a 16-NIC fabric by default: %d partitions, want 1", r.Partitions)
	}
	cfg.Partitions = 4
	cfg.Programs = []Program{{ID: "p", Streams: []Stream{{Src: "h0-0", Dst: "h1-0", Messages: 2, MessageBytes: 4096}}}}
	if r := mustRun(t, cfg); r.Partitions != 4 || r.PartitionsNote != "" {
		t.Errorf("with a program: %d partitions (note %q), want 4 and no note", r.Partitions, r.PartitionsNote)
	}
	// More than the fabric splits into: the run says how many it made,
	// and why.
	cfg.Partitions = 64
	if r := mustRun(t, cfg); r.Partitions >= 64 || !strings.HasPrefix(r.PartitionsNote, fmt.Sprintf("64 partitions asked, %d made: the fabric holds %d groups", r.Partitions, r.Partitions)) {
		t.Errorf("64 partitions asked: %d made, note %q", r.Partitions, r.PartitionsNote)
	}
	cfg.Partitions = 4
	hs := parallelCases()["programs"].Programs[0].Streams
	var ranks []string
	for _, st := range hs {
		ranks = append(ranks, st.Src)
	}
	for _, c := range []struct {
		startNs int64
		want    int
	}{{0, 1}, {100, 1}, {10_000, 4}} {
		pc := programCase(ranks, c.startNs)
		pc.Partitions = 4
		r := mustRun(t, pc)
		if r.Partitions != c.want {
			t.Errorf("programs %d ns after the one they wait for: %d partitions, want %d", c.startNs, r.Partitions, c.want)
		}
		if sequential := c.want == 1; sequential != strings.Contains(r.PartitionsNote, "less than the") {
			t.Errorf("programs %d ns after the one they wait for: note %q", c.startNs, r.PartitionsNote)
		}
	}
	cfg.Programs = nil
	cfg.Partitions = -1
	if _, err := newSim(&cfg); err == nil {
		t.Error("partitions -1 accepted")
	}
}

// The window pool's homes split the partitions among its threads in runs
// that cover every partition once, as evenly as they divide, each thread
// with a home of at least one partition, and split them anew for a
// thread added later.
func TestWindowPoolHomes(t *testing.T) {
	check := func(parts, threads int, wp *windowPool) {
		t.Helper()
		hs := *wp.split.Load()
		next := int32(0)
		for i := range hs {
			h := &hs[i]
			if h.start != next || h.end <= h.start {
				t.Errorf("%d partitions, %d threads: home %d is [%d, %d), want it to start at %d and hold one or more", parts, threads, i, h.start, h.end, next)
			}
			if n := int(h.end - h.start); n < parts/len(hs) || n > parts/len(hs)+1 {
				t.Errorf("%d partitions, %d threads: home %d holds %d", parts, threads, i, n)
			}
			next = h.end
		}
		if int(next) != parts || len(hs) != min(parts, threads) || wp.threads() != len(hs) {
			t.Errorf("%d partitions, %d threads: %d homes for %d threads cover %d partitions", parts, threads, len(hs), wp.threads(), next)
		}
	}
	for _, c := range []struct{ parts, threads int }{{16, 2}, {16, 3}, {8, 4}, {5, 8}, {1, 1}, {7, 1}} {
		wp := newWindowPool(make([]*sim, c.parts), c.threads)
		check(c.parts, c.threads, wp)
		if wp.threads() < c.parts {
			wp.addWorker()
			check(c.parts, min(c.parts, c.threads)+1, wp)
		}
		wp.stop()
	}
}

// TestWindowsTurn: one thread runs a window's partitions first to last,
// then last to first, and so on (windowPool.backward), with one home or
// with its other threads benched; two threads run each partition once a
// window and turn their runs every window only where windows are heavy
// (turnAll).
func TestWindowsTurn(t *testing.T) {
	forward := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	backward := []int32{7, 6, 5, 4, 3, 2, 1, 0}
	for _, threads := range []int{1, 2} {
		wp := newWindowPool(make([]*sim, 8), threads)
		var ran []int32
		var mu sync.Mutex
		wp.trace = func(i int32) {
			mu.Lock()
			ran = append(ran, i)
			mu.Unlock()
		}
		wp.setActive(1)
		var last []int32
		for w := range 4 {
			ran = nil
			wp.run(int64(w))
			want := forward
			if slices.Equal(last, forward) || last == nil && ran != nil && ran[0] != 0 {
				want = backward
			}
			if !slices.Equal(ran, want) {
				t.Errorf("%d threads, one active, window %d ran %v after %v, want %v", threads, w, ran, last, want)
			}
			last = ran
		}
		if threads > 1 {
			// Two threads turn their runs only where windows are heavy.
			wp.setActive(threads)
			for _, turnAll := range []bool{false, true, false} {
				wp.turnAll = turnAll
				for w := range 4 {
					before := wp.backward.Load()
					ran = nil
					wp.run(int64(w))
					slices.Sort(ran)
					if !slices.Equal(ran, forward) {
						t.Errorf("%d threads, window %d ran %v, want each partition once", threads, w, ran)
					}
					if got, want := wp.backward.Load(), turnAll && !before; got != want {
						t.Errorf("%d threads, turnAll %v, window %d: backward %v after %v, want %v", threads, turnAll, w, got, before, want)
					}
				}
			}
		}
		wp.stop()
	}
}

// TestHeavyWindows: two or more threads turn from turnAllEvents events a
// partition's window on average.
func TestHeavyWindows(t *testing.T) {
	for _, c := range []struct {
		events, windows uint64
		k               int
		want            bool
	}{
		{turnAllEvents * 1024 * 8, 1024, 8, true},
		{turnAllEvents*1024*8 - 1, 1024, 8, false},
		{30 * 1024 * 8, 1024, 8, false}, // the 1024-GPU allreduce
		{650 * 1024 * 8, 1024, 8, true}, // the bench 1024-host permutation
		{0, 1024, 16, false},
	} {
		if got := heavyWindows(c.events, c.windows, c.k); got != c.want {
			t.Errorf("heavyWindows(%d, %d, %d) = %v, want %v", c.events, c.windows, c.k, got, c.want)
		}
	}
}

// TestSpareThreadsJoinARun: a split run on one thread takes the threads
// given to it while it runs, gives them back at its end, and its result
// is the one it has on one thread.
func TestSpareThreadsJoinARun(t *testing.T) {
	cfg := parallelCases()["sprayed permutation"]
	cfg.Partitions, cfg.Threads = 4, 1
	one := mustRun(t, cfg)
	spare := &SpareThreads{}
	spare.Give(5)
	cfg.Spare = spare
	got := mustRun(t, cfg)
	if got.Threads != 4 {
		t.Errorf("ran on %d threads with 5 spare, want 4 (one per partition)", got.Threads)
	}
	if n := spare.n.Load(); n != 5 {
		t.Errorf("%d spare threads after the run, want the 5 back", n)
	}
	a, _ := json.Marshal(one)
	b, _ := json.Marshal(got)
	if !bytes.Equal(a, b) {
		t.Errorf("with spare threads the result differs from one thread's (%d vs %d bytes of JSON)", len(b), len(a))
	}
}

// A waiting thread spins, then yields, and is told to sleep only once it
// has yielded for yieldFor: sooner, and a wait of a window's length puts
// it to sleep (a wake-up per window, which on a VM doubled the 4096-GPU
// run's time); never, and a thread with no window burns its CPU forever.
func TestWaiterSleepsAfterYieldFor(t *testing.T) {
	var w waiter
	start := time.Now()
	calls := 0
	for !w.next() {
		calls++
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the waiter has not said to sleep after %d calls and 10 s", calls)
		}
	}
	if calls < spinsBeforeYield {
		t.Errorf("told to sleep after %d calls, before its %d spins", calls, spinsBeforeYield)
	}
	if waited := time.Since(start); waited < yieldFor {
		t.Errorf("told to sleep after %v, before yieldFor (%v)", waited, yieldFor)
	}
}

// TestParallelProgramsAgreeWithSequential: split programs complete, each
// starting when the one it waits for completed plus its wait, and take
// what they take in one partition, within a percent.
func TestParallelProgramsAgreeWithSequential(t *testing.T) {
	seq, par := sequentialAndSplit(t, "programs")
	for _, r := range []*Result{seq, par} {
		if len(r.Programs) != 3 {
			t.Fatalf("%d partitions: %d programs, want 3", r.Partitions, len(r.Programs))
		}
		for i, p := range r.Programs {
			if p.TimeNs == nil || p.FailedStreams != 0 {
				t.Fatalf("%d partitions: program %s did not complete: %+v", r.Partitions, p.ID, p)
			}
			if i > 0 {
				if want := r.Programs[i-1].EndNs + 10_000; p.StartNs != want {
					t.Errorf("%d partitions: program %s starts at %d ns, want %d (10 us after %s ended)", r.Partitions, p.ID, p.StartNs, want, r.Programs[i-1].ID)
				}
			}
		}
	}
	for i := range seq.Programs {
		a, b := seq.Programs[i], par.Programs[i]
		if a.FabricBytes != b.FabricBytes || a.ScaleUpBytes != b.ScaleUpBytes || a.ScaleUpBytes+a.FabricBytes == 0 {
			t.Errorf("program %s: fabric %d and scale-up %d bytes split, %d and %d sequential", a.ID, b.FabricBytes, b.ScaleUpBytes, a.FabricBytes, a.ScaleUpBytes)
		}
		if !within(float64(*b.TimeNs)/float64(*a.TimeNs), 1, 0.01) {
			t.Errorf("program %s: %d ns split against %d ns sequential", a.ID, *b.TimeNs, *a.TimeNs)
		}
	}
}

// TestThreadTunerPicksTheFasterMode: the tuner keeps the mode whose last
// batch ran more events per second, tries the other less and less often
// while that holds, and follows when the traffic makes the other faster.
func TestThreadTunerPicksTheFasterMode(t *testing.T) {
	var tu threadTuner
	at := time.Unix(0, 0)
	var events uint64
	oneFaster := true
	// The faster mode runs 2 M events a batch, the slower 1 M (a ms each).
	step := func(threads int) int {
		if (threads == 1) == oneFaster {
			events += 2_000_000
		} else {
			events += 1_000_000
		}
		at = at.Add(time.Millisecond)
		return tu.next(events, at, 4)
	}
	n := tu.next(0, at, 4)
	if n != 4 {
		t.Fatalf("first batch on %d threads, want all 4", n)
	}
	count := func(batches int) (ones, alls int) {
		for range batches {
			if n = step(n); n == 1 {
				ones++
			} else {
				alls++
			}
		}
		return
	}
	count(probeFirst + 1) // until the first probe has run
	if ones, alls := count(1000); alls < 1 || alls > 10 {
		t.Errorf("one thread faster: %d batches on one thread, %d on all; want all only to probe, a few times", ones, alls)
	}
	oneFaster = false
	count(probeMost + 2)
	if ones, alls := count(1000); ones < 1 || ones > 10 {
		t.Errorf("all threads faster: %d batches on one thread, %d on all; want one only to probe, a few times", ones, alls)
	}
}

// TestThreadTunerKeepsTheResult: switching between one thread and all of
// them every other window gives the result one thread gives.
func TestThreadTunerKeepsTheResult(t *testing.T) {
	defer func(n uint64) { tuneEveryWindows = n }(tuneEveryWindows)
	tuneEveryWindows = 2
	for _, name := range []string{"programs", "link faults", "sprayed permutation"} {
		cfg := parallelCases()[name]
		cfg.Partitions, cfg.Threads = 4, 1
		one := resultJSON(t, cfg)
		cfg.Threads = 3
		if got := resultJSON(t, cfg); !bytes.Equal(got, one) {
			t.Errorf("%s: tuned threads give another result than one thread (%d vs %d bytes of JSON)", name, len(got), len(one))
		}
	}
}
