package sim

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// The parallel engine. A large fabric is split into partitions, each a set
// of nodes with its own event queue, clock, packet pool and random stream,
// and the partitions advance together in conservative time windows: a
// window is no longer than the lookahead, the least time an event of one
// partition takes to affect another (a packet's or a PAUSE frame's
// serialization plus propagation on a link that joins two partitions), so
// what a partition does inside a window cannot depend on what another does
// in the same window. Events for another partition wait in an outbox until
// the window ends and join that partition's queue, in the order of the
// partition that sent them, before the next window starts.
//
// Determinism. The partitions are decided by the fabric and the traffic
// alone (Config.Partitions, else by size), never by the number of threads,
// and every partition's work in a window depends only on its own state and
// on the events it took in, in a fixed order. Threads only decide which
// partition runs where, so a run's result is the same, byte for byte, for
// any Config.Threads. A run with one partition is the sequential engine.
//
// Between windows. Link faults change every switch's view and routes at
// once, and time series samples read every port: they run between
// windows, with every partition stopped at their time, seeing every event
// before it and none at or after it; a link's two ends are then handled
// by their own partitions.
//
// Programs. A stream whose input is received on its own server posts at
// once, in its partition; an input received on another server reaches the
// stream's sender a credit's trip later (creditDelay), at least a
// lookahead, as an event of the sender's partition. A program's start
// touches every partition (its QPs come up, its streams post) and runs
// between windows; its completion is known only once every partition has
// passed it, so each partition notes the streams it completed and the run
// folds them in after the window (foldStreamsDone), starting the programs
// that wait for it then. That is
// exact when a program starts at least a lookahead after the one it waits
// for (Program.StartNs with After): a completion at time t inside a window
// starts the next program at t+StartNs, after the window's end. Runs with
// a shorter wait keep one partition.
//
// What else stays together. The nodes a ping-pong's two sides, a flow's
// receiver and its children's senders, or an errdisabling watchdog's link
// join stay in one partition.

// autoPartitionNICs: fabrics with fewer NIC ports keep one partition by
// default. A window costs a barrier between threads; below this size the
// sequential engine is fast enough and its results stay those of earlier
// versions.
const autoPartitionNICs = 256

// nicsPerPartition: above autoPartitionNICs, the default split gives each
// partition about this many NIC ports.
const nicsPerPartition = 128

// maxAutoPartitions bounds the default split: more partitions than cores
// balance the load better, too many make each window's share too small.
const maxAutoPartitions = 16

// minLookaheadPs: a link between two partitions must give at least this
// much lookahead (1 ns), or its ends stay together.
const minLookaheadPs = 1000

// parRun is the state the partitions of one run share.
type parRun struct {
	k      int
	ofPort []int32 // partition of each port (by its node)
	ofNode []int32 // partition of each node
	look   int64   // lookahead, ps
	parts  []*sim
	// box[w%2][src*k+dst] holds the events partition src sent partition
	// dst during window w; dst takes them in as window w+1 starts, while
	// src fills the other half.
	box    [2][][]xEvent
	parity int
	// threads is how many threads the run took (at most k).
	threads int
	// globalEvents counts the events run between windows, progressAt
	// the events last reported.
	globalEvents, progressAt uint64
}

// xEvent is an event crossing partitions; an arrival carries its packet,
// which moves from the sender's pool to the receiver's.
type xEvent struct {
	ev  event
	pkt packet
}

// partition is the per-partition part of a sim: set on each partition's
// copy of the sim.
// cacheLine is the size of a cache line on the machines labctl runs on
// (x86-64 and arm64 servers): what each thread of a parallel run writes
// alone is padded to it.
const cacheLine = 64

type partition struct {
	run    *parRun
	id     int32
	winEnd int64 // ps: the end of the window being processed
	// minSent is the earliest event sent to another partition in this
	// window (math.MaxInt64 for none).
	minSent int64
	// streamsDone are the program streams the partition completed in
	// this window, in its order, for the run to fold in after it.
	streamsDone []streamDone
	// A line of its own: every push reads run and id, and the thread of
	// a neighbouring partition writes that one's winEnd and minSent.
	_ [cacheLine - 56]byte
}

// streamDone is a program stream that received its last message at t (ps).
type streamDone struct {
	stream int32
	t      int64
}

type unionFind []int32

func (u unionFind) find(x int32) int32 {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int32) {
	if ra, rb := u.find(a), u.find(b); ra != rb {
		if ra < rb {
			u[rb] = ra
		} else {
			u[ra] = rb
		}
	}
}

// planPartitions splits the fabric, or returns nil when the run keeps one
// partition. Nodes that must react to each other without delay are joined
// first (a host and every switch it is wired to, the nodes of a
// ping-pong, a flow's receiver and its children's senders, the ends of a
// link with too little delay or a watchdog that errdisables it); the
// groups are then packed into k partitions by size, largest first.
//
// Where Config.Partitions asked for more than it made, s.partitionsWhy says
// why, for the run to tell a user who asked.
func (s *sim) planPartitions() (*parRun, error) {
	want := s.cfg.Partitions
	if want < 0 {
		return nil, errorf("partitions %d: use 0 (decided by the fabric's size) or a positive number", want)
	}
	asked := want
	nics := 0
	for i := range s.ports {
		if s.ports[i].host {
			nics++
		}
	}
	if want == 0 {
		if nics < autoPartitionNICs {
			return nil, nil
		}
		want = min(maxAutoPartitions, nics/nicsPerPartition)
	}
	if want <= 1 {
		return nil, nil
	}
	uf := make(unionFind, len(s.nodes))
	for i := range uf {
		uf[i] = int32(i)
	}
	for i := range s.ports {
		p := &s.ports[i]
		q := &s.ports[p.peer]
		if p.host || q.host || p.propPs+p.serPs(s.minWire()) < minLookaheadPs {
			uf.union(p.node, q.node)
		}
	}
	for _, wd := range s.wds {
		if wd.cfg.Action == "errdisable" {
			uf.union(s.ports[wd.port].node, s.ports[s.ports[wd.port].peer].node)
		}
	}
	for i := range s.flows {
		f := &s.flows[i]
		if f.ping != nil {
			uf.union(s.ports[f.src].node, s.ports[f.dst].node)
		}
		for _, c := range f.children {
			uf.union(s.ports[f.dst].node, s.ports[s.flows[c].src].node)
		}
	}
	// Groups, each weighed by its ports (a port's events are the work).
	weight := map[int32]int{}
	for i := range s.nodes {
		weight[uf.find(int32(i))] += len(s.nodes[i].ports)
	}
	if len(weight) < 2 {
		s.partitionsWhy = "every node must run with the others: each host runs with the switches it is wired to, and links shorter than the lookahead join their ends"
		return nil, nil
	}
	groups := make([]int32, 0, len(weight))
	for g := range weight {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		return weight[a] > weight[b] || weight[a] == weight[b] && a < b
	})
	k := min(want, len(groups))
	if k < asked {
		s.partitionsWhy = fmt.Sprintf("the fabric holds %d groups of nodes that must run together (each host with the switches it is wired to, the ends of links shorter than the lookahead, a collective's ranks that wait on each other)", len(groups))
	}
	load := make([]int, k)
	partOf := map[int32]int32{}
	for _, g := range groups {
		best := 0
		for p := 1; p < k; p++ {
			if load[p] < load[best] {
				best = p
			}
		}
		partOf[g] = int32(best)
		load[best] += weight[g]
	}
	pr := &parRun{k: k, ofPort: make([]int32, len(s.ports)), ofNode: make([]int32, len(s.nodes)), look: math.MaxInt64}
	for i := range s.nodes {
		pr.ofNode[i] = partOf[uf.find(int32(i))]
	}
	for i := range s.ports {
		pr.ofPort[i] = pr.ofNode[s.ports[i].node]
	}
	for i := range s.ports {
		p := &s.ports[i]
		if pr.ofPort[i] != pr.ofPort[p.peer] {
			pr.look = min(pr.look, p.propPs+p.serPs(s.minWire()))
		}
	}
	// A program that waits for another must start a lookahead after it
	// at least, or the partitions could not all learn of the completion
	// before they pass the start.
	for i := range s.progs {
		if c := s.progs[i].cfg; c.After != "" && c.StartNs*1000 < pr.look {
			s.partitionsWhy = fmt.Sprintf("program %s starts %d ns after the one it waits for, less than the %.0f ns lookahead a split would have: one partition runs it", c.ID, c.StartNs, float64(pr.look)/1000)
			return nil, nil
		}
	}
	for b := range pr.box {
		pr.box[b] = make([][]xEvent, k*k)
	}
	return pr, nil
}

// global is the owner of the events that run between windows, on the
// whole fabric: link changes and routing updates.
const global = -1

// owner is the partition an event belongs to: its port's, its flow's
// sender's, its watchdog's port's.
func (pr *parRun) owner(s *sim, kind uint8, a int32) int32 {
	switch kind {
	case evArrive, evTxDone, evNicWake, evPauseRx, evPauseExpire, evPauseRefresh, evStorm, evCredit, evIBDeliver, evUETPull:
		return pr.ofPort[a]
	case evFlowStart, evRateTimer, evRateCut, evRTO, evCCTimer:
		return pr.ofPort[s.flows[a].src]
	case evUETAck:
		return pr.ofPort[s.flows[a].dst]
	case evWatchdog:
		return pr.ofPort[s.wds[a].port]
	case evScaleUp:
		return pr.ofNode[s.gpus[a].node]
	case evInputSeen:
		return pr.ofNode[s.streamSender(a)]
	case evLinkChange, evRouteLearn, evProgStart:
		return global
	}
	panic(fmt.Sprintf("sim: event kind %d has no partition: runs with it keep one partition", kind))
}

// pushRemote sends an event to partition d. It lands at the end of the
// window at the earliest; an arrival takes its packet along.
func (s *sim) pushRemote(d int32, e event) {
	pt := s.part
	if e.t < pt.winEnd {
		panic(fmt.Sprintf("sim: internal error: partition %d sent partition %d an event (kind %d) at %d ps, inside the window ending at %d ps (lookahead %d ps)",
			pt.id, d, e.kind, e.t, pt.winEnd, pt.run.look))
	}
	x := xEvent{ev: e}
	if e.kind == evArrive {
		x.pkt = s.pkts[e.b]
		s.release(e.b)
	}
	box := &pt.run.box[pt.run.parity][int(pt.id)*pt.run.k+int(d)]
	*box = append(*box, x)
	pt.minSent = min(pt.minSent, e.t)
}

// takeIn moves the events the other partitions sent this one in the last
// window into its queue, in the order of their senders. They are numbered
// as they come in, after every event the partition scheduled before this
// window and before those it schedules in it, so one of them and a local
// event of the same time come out in an order set by the window it came
// in: where the windows fall is part of a split run's result. The windows
// start at the partitions' next events, so a change that leaves a
// partition fewer or more events pending moves the ties between
// partitions, and records at a thousand GPUs, even where each partition
// alone would do the same (quiet.go tried it).
func (s *sim) takeIn() {
	pr := s.part.run
	last := pr.box[1-pr.parity]
	for src := range pr.k {
		box := &last[src*pr.k+int(s.part.id)]
		for _, x := range *box {
			if x.ev.kind == evArrive {
				k := s.alloc()
				s.pkts[k] = x.pkt
				x.ev.b = k
			}
			s.q.push(&x.ev)
		}
		*box = (*box)[:0]
	}
}

// window processes the partition's events before end.
func (s *sim) window(end int64) {
	s.takeIn()
	s.part.winEnd = end
	s.part.minSent = math.MaxInt64
	var e event
	for s.q.len() > 0 && s.q.popBefore(end, &e) {
		s.now = e.t
		s.events++
		s.dispatch(&e)
		s.noteEvent(&e)
	}
}

// nextT is the partition's next event, math.MaxInt64 for none.
func (s *sim) nextT() int64 {
	if s.q.len() == 0 {
		return math.MaxInt64
	}
	return s.q.peekT()
}

// split makes the partitions: copies of s sharing its fabric, flows and
// collectives, each with a queue, clock, packet pool, random stream and
// statistics of its own, and hands each its events.
func (s *sim) split(pr *parRun) {
	// Routes are computed on first use; a shared table must not be
	// written by two partitions at once, so every one is computed now.
	s.routeAll()
	pr.parts = make([]*sim, pr.k)
	for i := range pr.parts {
		p := *s
		p.q = eventQueue{}
		p.pkts = nil
		p.free = nil
		p.rng = newSimRand(uint64(s.cfg.Seed), mix64(0x9e3779b97f4a7c15+uint64(i)+1))
		p.events, p.hops = 0, 0
		p.allHist = runHist{}
		p.histPool = nil
		p.timeline = nil
		p.series = nil
		if s.lb.flowlets != nil {
			p.lb.flowlets = map[flowletKey]flowlet{}
		}
		p.part = &partition{run: pr, id: int32(i), minSent: math.MaxInt64}
		pr.parts[i] = &p
	}
	// The events scheduled while the run was set up, in their order; the
	// whole fabric's stay in s's queue, which runs them between windows.
	// They are numbered anew in their partition's queue, which would
	// orphan a lazyTimer's event (it knows its seq), but none is armed
	// yet: pause timers start with the first PFC frame, an event.
	var globals []event
	for s.q.len() > 0 {
		e := s.q.pop()
		if d := pr.owner(s, e.kind, e.a); d != global {
			pr.parts[d].q.push(&e)
		} else {
			globals = append(globals, e)
		}
	}
	for i := range globals {
		s.q.push(&globals[i])
	}
}

// runParallel is run for a split fabric.
func (s *sim) runParallel(ctx context.Context, pr *parRun) error {
	s.split(pr)
	threads := s.cfg.Threads
	if threads <= 0 {
		threads = DefaultThreads()
	}
	threads = min(threads, pr.k)
	pool := newWindowPool(pr.parts, threads)
	defer func() {
		pool.stop()
		if s.cfg.Spare != nil {
			s.cfg.Spare.Give(pool.threads() - threads)
		}
	}()
	nextSample := int64(math.MaxInt64)
	if s.series != nil {
		nextSample = 0
	}
	limit := s.end + 1 // events at exactly the end still run
	var windows, batchEvents uint64
	var tune threadTuner
	for {
		start := int64(math.MaxInt64)
		for _, p := range pr.parts {
			start = min(start, p.nextT(), p.part.minSent)
		}
		nextGlobal := int64(math.MaxInt64)
		if s.q.len() > 0 {
			nextGlobal = s.q.peekT()
		}
		// Between windows: the whole fabric's events, then a sample, each
		// seeing every event before its time and none at or after it.
		if nextGlobal <= start && nextGlobal < limit && nextGlobal <= nextSample {
			e := s.q.pop()
			s.now = e.t
			s.events++
			pr.globalEvents++
			s.globalEvent(e)
			s.noteEvent(&e)
			continue
		}
		if nextSample <= start && nextSample < limit {
			s.now = nextSample
			nextSample = s.takeSample()
			continue
		}
		if start >= limit {
			break
		}
		end := min(start+pr.look, nextSample, nextGlobal, limit)
		pr.parity = 1 - pr.parity
		pool.run(end)
		s.foldStreamsDone(pr, end)
		windows++
		if windows%tuneEveryWindows == 0 {
			// Threads that other runs gave up, up to one per partition,
			// unless one thread is the faster now (they would sit benched).
			for s.cfg.Spare != nil && tune.runsAll() && pool.threads() < pr.k && s.cfg.Spare.take() {
				pool.addWorker()
			}
			events := s.events
			for _, p := range pr.parts {
				events += p.events
			}
			if pool.threads() > 1 {
				pool.setActive(tune.next(events, time.Now(), pool.threads()))
			}
			// Heavy windows: the threads turn their runs of partitions
			// too (windowPool.backward).
			pool.turnAll = heavyWindows(events-batchEvents, tuneEveryWindows, pr.k)
			batchEvents = events
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("sim: stopped at %d ns of %d: %w", start/1000, s.end/1000, err)
			}
			if s.cfg.Progress != nil && events>>18 != pr.progressAt>>18 {
				// The work delivered is counted by each partition.
				var delivered int64
				for _, p := range pr.parts {
					delivered += p.work.delivered
				}
				s.now, s.work.delivered = start, delivered
				prog := s.progress()
				prog.Events = events
				s.cfg.Progress(prog)
			}
			pr.progressAt = events
		}
	}
	pr.threads = pool.threads()
	s.join(pr)
	return nil
}

// join folds the partitions' statistics back into s for the result.
func (s *sim) join(pr *parRun) {
	s.events = pr.globalEvents
	for _, p := range pr.parts {
		s.events += p.events
		s.hops += p.hops
		s.allHist.merge(&p.allHist)
		s.timeline = append(s.timeline, p.timeline...)
		s.scansSkipped += p.scansSkipped
		s.lastEvent = max(s.lastEvent, p.lastEvent)
	}
	// Marks in time order; at one time, in partition order.
	sort.SliceStable(s.timeline, func(i, j int) bool { return s.timeline[i].TimeNs < s.timeline[j].TimeNs })
}

// windowPool runs each window's partitions on its threads: the caller's
// goroutine and threads()-1 workers, which take partitions in turn. A window
// holds microseconds of work, so the threads meet by spinning on atomics
// rather than by channels (a goroutine's wake-up costs about as much as a
// window); a worker that finds no window for a while sleeps until the next.
type windowPool struct {
	parts []*sim
	end   int64
	// backward: this window runs the partitions last to first. The
	// direction turns every window where one thread runs them all (one
	// thread, or the others benched: tune), so the thread starts a window
	// on the partitions it ended the last one with, whose ports, packets
	// and queue are still in its core's caches; always first to last, it
	// came back to each partition after all the others had been through
	// them. With more threads each turns its own run of partitions only
	// where windows are heavy (turnAll; turnAllEvents says why). The
	// order of a window's partitions is no part of the result: each reads
	// only what the others sent it before the window. Measured at 1024
	// hosts on one thread (bench-compare's permutation): whole labctl
	// processes 3.2% less CPU (8 interleaved pairs, 7 lower),
	// BenchmarkPermutation1024 (without labctl's huge pages) 11% more
	// events/s. Atomic: a thread late from the last window reads it as it
	// looks for a partition (work).
	backward atomic.Bool
	// turnAll: two or more threads turn too (heavy windows: runParallel).
	turnAll bool
	// trace, where set (tests), is told each partition a window runs
	// instead of running it.
	trace func(part int32)
	gen   atomic.Uint64 // bumped to start a window
	// split is the partitions' homes, one per thread the pool has.
	// addWorker replaces it between windows: a thread late from the last
	// window may still read the old one, whose homes are all taken.
	split atomic.Pointer[homes]
	// active is how many of the threads run windows (the first ones: the
	// others sleep on bench); only the caller changes it, between windows
	// (setActive).
	active atomic.Int32
	left   atomic.Int32 // partitions of the window not done yet
	quit   atomic.Bool

	benchMu sync.Mutex
	bench   *sync.Cond

	mu       sync.Mutex
	wake     *sync.Cond
	sleepers atomic.Int32
	workers  sync.WaitGroup

	// The caller sleeps on done when the window outlasts its spinning.
	doneMu   sync.Mutex
	done     *sync.Cond
	awaiting atomic.Bool
}

// homes split the partitions among the threads, a run of them each, and
// say which of a home's partitions is the next to take. A thread takes
// its home's first and then the others', so that a partition runs on the
// same thread window after window and finds its queue, pool and ports in
// that core's caches.
type homes []home

// home is a thread's run of partitions [start, end), next the next to
// take, on a cache line of its own: every thread reads and adds to it.
type home struct {
	next       atomic.Int32
	start, end int32
	_          [cacheLine - 12]byte
}

// splitHomes gives each of threads threads a run of the n partitions.
func splitHomes(n, threads int) *homes {
	hs := make(homes, threads)
	for t := range hs {
		hs[t].start = int32(t * n / threads)
		hs[t].end = int32((t + 1) * n / threads)
		hs[t].next.Store(hs[t].end) // nothing to take before a window
	}
	return &hs
}

// newWindowPool runs parts on threads threads (the caller's goroutine is
// the first), at most one per partition.
func newWindowPool(parts []*sim, threads int) *windowPool {
	wp := &windowPool{parts: parts}
	wp.wake = sync.NewCond(&wp.mu)
	wp.done = sync.NewCond(&wp.doneMu)
	wp.bench = sync.NewCond(&wp.benchMu)
	threads = max(1, min(threads, len(parts)))
	wp.active.Store(int32(threads))
	wp.split.Store(splitHomes(len(parts), threads))
	for t := 1; t < threads; t++ {
		wp.workers.Add(1)
		go wp.worker(t, 0)
	}
	return wp
}

// threads is how many threads run windows.
func (wp *windowPool) threads() int { return len(*wp.split.Load()) }

// addWorker adds a thread and splits the partitions anew. It runs
// between windows: the worker waits for the next one.
func (wp *windowPool) addWorker() {
	t := wp.threads()
	wp.split.Store(splitHomes(len(wp.parts), t+1))
	wp.workers.Add(1)
	go wp.worker(t, wp.gen.Load())
	wp.setActive(t + 1)
}

// setActive lets the first n threads run windows and benches the others
// (n at least 1, at most the pool's threads). It runs between windows.
// A benched thread sleeps, so its CPU goes to whatever else the machine
// runs; the partitions stay where they are, the active threads take the
// benched ones' homes as they take any home left.
func (wp *windowPool) setActive(n int) {
	n = max(1, min(n, wp.threads()))
	if int(wp.active.Swap(int32(n))) < n {
		wp.benchMu.Lock()
		wp.bench.Broadcast()
		wp.benchMu.Unlock()
	}
}

// A thread waiting for a window (or for the others to finish one) spins
// spinsBeforeYield times, then yields its P for up to yieldFor, then
// sleeps until woken. Sleeping is what costs: the sleeper's wake-up is a
// futex call and a reschedule, and on a paravirtualized VM (2026-12-05's
// machine) a thread that slept and woke window after window made the
// 4096-GPU allreduce take 99 s of wall and 159 s of CPU on 2 threads.
// With about 4.5 µs of yields before sleeping (50 of 89 ns each, as this
// was until then) the threads slept in most windows; with 1 ms in almost
// none, and the same run took 45.5 and 47.6 s of wall, 82 and 84 s of
// CPU, the same record (interleaved with the 99 s run; the 1024-host
// permutation on 2 threads 4.0 against 4.5 s wall and 7.1 against 7.5 s
// of CPU). A yield lets another goroutine of the process run, so waiting
// threads do not hold back working ones when threads outnumber CPUs.
const (
	spinsBeforeYield = 200
	yieldFor         = time.Millisecond
)

// waiter paces one wait of a thread: next says whether it is time to
// sleep, having spun or yielded otherwise.
type waiter struct {
	spins int
	since time.Time
}

func (w *waiter) next() (sleep bool) {
	w.spins++
	switch {
	case w.spins < spinsBeforeYield:
		return false
	case w.spins == spinsBeforeYield:
		w.since = time.Now()
	case time.Since(w.since) >= yieldFor:
		return true
	}
	runtime.Gosched()
	return false
}

func (wp *windowPool) worker(t int, seen uint64) {
	defer wp.workers.Done()
	for {
		if int(wp.active.Load()) <= t {
			wp.benchMu.Lock()
			for int(wp.active.Load()) <= t && !wp.quit.Load() {
				wp.bench.Wait()
			}
			wp.benchMu.Unlock()
			// Back between windows: wait for the next one.
			seen = wp.gen.Load()
		}
		for w := (waiter{}); wp.gen.Load() == seen && !wp.quit.Load() && int(wp.active.Load()) > t; {
			if w.next() {
				wp.mu.Lock()
				wp.sleepers.Add(1)
				for wp.gen.Load() == seen && !wp.quit.Load() {
					wp.wake.Wait()
				}
				wp.sleepers.Add(-1)
				wp.mu.Unlock()
			}
		}
		if wp.quit.Load() {
			return
		}
		if int(wp.active.Load()) <= t {
			continue // benched while it waited
		}
		seen = wp.gen.Load()
		wp.work(t)
	}
}

// work runs partitions of the window for thread t: its home's, then what
// is left of the other homes'.
func (wp *windowPool) work(t int) {
	hs := *wp.split.Load()
	for k := range hs {
		j := (t + k) % len(hs)
		if wp.backward.Load() && wp.active.Load() == 1 {
			j = len(hs) - 1 - k // the one thread (thread 0): its home last
		}
		h := &hs[j]
		for {
			i := h.next.Add(1) - 1
			if i >= h.end {
				break
			}
			if wp.backward.Load() {
				// Read after next: the window's direction.
				i = h.start + h.end - 1 - i
			}
			if wp.trace != nil {
				wp.trace(i)
			} else {
				wp.parts[i].window(wp.end)
			}
			if wp.left.Add(-1) == 0 && wp.awaiting.Load() {
				wp.doneMu.Lock()
				wp.done.Broadcast()
				wp.doneMu.Unlock()
			}
		}
	}
}

// run processes one window on every partition and returns when all are
// done.
func (wp *windowPool) run(end int64) {
	// A worker late from the last window may take a partition as soon as
	// a home's next is reset, before gen moves: end and left must be set
	// first.
	wp.end = end
	wp.backward.Store((wp.active.Load() == 1 || wp.turnAll) && !wp.backward.Load())
	wp.left.Store(int32(len(wp.parts)))
	hs := *wp.split.Load()
	for t := range hs {
		hs[t].next.Store(hs[t].start)
	}
	wp.gen.Add(1)
	wp.signal()
	wp.work(0)
	for w := (waiter{}); wp.left.Load() > 0; {
		if w.next() {
			// The worker that finishes the window's last partition
			// wakes us: it looks at awaiting after its count reaches
			// 0, we look at the count after setting awaiting.
			wp.doneMu.Lock()
			wp.awaiting.Store(true)
			for wp.left.Load() > 0 {
				wp.done.Wait()
			}
			wp.awaiting.Store(false)
			wp.doneMu.Unlock()
		}
	}
}

// signal wakes the sleeping workers. A worker counts itself a sleeper
// before it looks at gen a last time, so one that missed this window's
// gen is counted here.
func (wp *windowPool) signal() {
	if wp.sleepers.Load() > 0 {
		wp.mu.Lock()
		wp.wake.Broadcast()
		wp.mu.Unlock()
	}
}

func (wp *windowPool) stop() {
	wp.quit.Store(true)
	wp.signal()
	wp.benchMu.Lock()
	wp.bench.Broadcast()
	wp.benchMu.Unlock()
	wp.workers.Wait()
}

// turnAllEvents is the events a partition's window holds on average, over
// a batch of tuneEveryWindows, from which two or more threads turn their
// runs of partitions every window as one thread does (windowPool.backward):
// between the 1024-GPU allreduce's 30, which turning slowed by 11% (more
// wall and CPU, 5 pairs; the same with each thread's first partition
// kept, or a run kept in its direction after a steal; with one or two
// partitions a thread, no change; turning doubled the steals, and
// stealing from the far end of a thread's run recovered a third of the
// loss: the rest is not known), and the 1024-host
// permutations' 340 (20 m cables, 3-5% less CPU), 650
// (BenchmarkPermutation1024Threads2, 3.5% more events/s) and 3,200
// (bench-compare's, 6% less CPU), which it sped up.
const turnAllEvents = 256

// heavyWindows says whether windows windows of k partitions that ran
// events events held turnAllEvents or more a partition's window.
func heavyWindows(events, windows uint64, k int) bool {
	return events >= turnAllEvents*windows*uint64(k)
}

// tuneEveryWindows is how often a split run looks at its speed and its
// spare threads.
var tuneEveryWindows uint64 = 1024

// threadTuner decides, batch of windows after batch, whether a split run
// goes faster on all its threads or on one. Threads never change a
// result, only the wall time, so this may follow the clock: when a
// window holds few events (a collective's small sizes on a fabric of 26
// ns lookahead: some 40 events a window) the threads' meeting at every
// window costs more than they gain, and one thread runs the run faster
// (the 8-64 B ring on 1024gpu: 2.0-3.4 s of wall on two threads, 1.8-2.0
// s on one, measured 2026-12-05), while bandwidth-bound traffic goes
// twice as fast on two. It measures events per second of wall time in
// each mode, keeps the faster, and tries the other now and then, as the
// traffic changes: after probeFirst batches, then twice as long after
// every probe that confirms the choice (up to probeMost), back to
// probeFirst after one that changes it. A probe costs a batch in the
// slower mode: a few ms where windows are light, up to some 150 ms on
// 1024gpu's largest nccl sizes, where they hold a thousand events.
type threadTuner struct {
	rate    [2]float64 // events/s last measured on one thread, on all
	all     bool       // the mode of the batch being measured
	probing bool       // the batch being measured is a probe
	wait    int        // batches until the next probe
	every   int        // batches between probes
	events  uint64
	at      time.Time
}

// runsAll says whether the batch being measured runs on all threads (a
// run not yet measured does).
func (tu *threadTuner) runsAll() bool { return tu.all || tu.at.IsZero() }

const (
	probeFirst = 16
	probeMost  = 512
)

// next takes the events run so far and the time, and says how many of
// threads threads the next batch runs on.
func (tu *threadTuner) next(events uint64, now time.Time, threads int) int {
	mode := 0
	if tu.all {
		mode = 1
	}
	if tu.at.IsZero() {
		// The first batch runs on all threads.
		tu.all, tu.every, tu.wait = true, probeFirst, probeFirst
	} else if d := now.Sub(tu.at).Seconds(); d > 0 {
		tu.rate[mode] = float64(events-tu.events) / d
	}
	tu.events, tu.at = events, now
	best := tu.rate[1] >= tu.rate[0]
	if tu.probing {
		tu.probing = false
		if best == !tu.all {
			tu.every = min(2*tu.every, probeMost) // the choice holds
		} else {
			tu.every = probeFirst
		}
		tu.wait = tu.every
	}
	tu.all = best
	if tu.wait--; tu.wait <= 0 {
		tu.all, tu.probing = !best, true
	}
	if tu.all {
		return threads
	}
	return 1
}

// DefaultThreads is the threads a run uses when Config.Threads is 0:
// every CPU.
func DefaultThreads() int { return runtime.GOMAXPROCS(0) }

// SpareThreads are threads that runs sharing a machine hand on
// (Config.Spare): when several variants run side by side, each on its
// share of the CPUs, the one that outlasts the others takes over their
// share instead of leaving those CPUs idle. Safe for concurrent use.
type SpareThreads struct{ n atomic.Int64 }

// Give adds n threads to the spare ones.
func (st *SpareThreads) Give(n int) {
	if n > 0 {
		st.n.Add(int64(n))
	}
}

// take takes one spare thread, if there is one.
func (st *SpareThreads) take() bool {
	for {
		n := st.n.Load()
		if n <= 0 {
			return false
		}
		if st.n.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// atomicMin and atomicMax fold a time into a value that partitions running
// at once may update: the result is the same whatever order they come in.
func atomicMin(p *int64, v int64) {
	for {
		old := atomic.LoadInt64(p)
		if v >= old || atomic.CompareAndSwapInt64(p, old, v) {
			return
		}
	}
}

func atomicMax(p *int64, v int64) {
	for {
		old := atomic.LoadInt64(p)
		if v <= old || atomic.CompareAndSwapInt64(p, old, v) {
			return
		}
	}
}

// globalEvent runs a link change, a routing update or a program's start
// between windows, with every partition at s.now.
func (s *sim) globalEvent(e event) {
	switch e.kind {
	case evLinkChange:
		s.linkChange(e.a, e.b, e.gen == 1)
	case evRouteLearn:
		s.routeLearn(e.a, e.b, e.gen)
	case evProgStart:
		s.progStart(e.a)
	}
}

// foldStreamsDone counts the program streams the partitions completed in
// the window that ended at end, in partition order (the order does not
// change the outcome: a program completes at its last stream's time), and
// starts the programs waiting for those that completed. They start a
// lookahead after at least (planPartitions), so at or after end.
func (s *sim) foldStreamsDone(pr *parRun, end int64) {
	for _, p := range pr.parts {
		for _, d := range p.part.streamsDone {
			s.programStreamDone(d.stream, d.t)
		}
		p.part.streamsDone = p.part.streamsDone[:0]
	}
	if s.q.len() > 0 && s.q.peekT() < end {
		panic(fmt.Sprintf("sim: internal error: a program starts at %d ps, inside the window that ended at %d ps", s.q.peekT(), end))
	}
}

// at is the partition of port p, its clock at now and its window ending one
// lookahead later (what it sends another partition lands there at the
// earliest), to act on the port between windows.
func (pr *parRun) at(p int32, now int64) *sim { return pr.atPart(pr.ofPort[p], now) }

// atNode is at for a node's partition.
func (pr *parRun) atNode(n int32, now int64) *sim { return pr.atPart(pr.ofNode[n], now) }

func (pr *parRun) atPart(d int32, now int64) *sim {
	ps := pr.parts[d]
	ps.now = now
	ps.part.winEnd = now + pr.look
	return ps
}

// loseInBoxes marks the packets on their way to port a or b that wait in
// an outbox as lost, as loseInFlight does for those in a queue.
func (pr *parRun) loseInBoxes(a, b int32) int {
	if pr == nil {
		return 0
	}
	n := 0
	for _, box := range pr.box[pr.parity] {
		for i := range box {
			x := &box[i]
			if x.ev.kind == evArrive && (x.ev.a == a || x.ev.a == b) && !x.pkt.lost {
				x.pkt.lost = true
				n++
			}
		}
	}
	return n
}

// routeAll computes the route table of every NIC.
func (s *sim) routeAll() {
	for i := range s.ports {
		if s.ports[i].host {
			s.routeTo(int32(i))
		}
	}
}
