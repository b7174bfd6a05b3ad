package sim

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"testing"
)

// refQueue is the order the event queue must keep, the plain way: a binary
// heap (container/heap) by time, then push order.
type refQueue struct {
	ev  refHeap
	seq uint32
}

type refHeap []event

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}
func (h refHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *refHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (r *refQueue) push(e event) {
	e.seq = r.seq
	r.seq++
	heap.Push(&r.ev, e)
}

func (r *refQueue) pop() event { return heap.Pop(&r.ev).(event) }

// TestEventQueueOrder drives the queue and the reference with the same
// pushes and pops and checks they pop the same events in the same order:
// bursts of simultaneous events, events in the slot being popped, pushes at
// the current time and before it, far timers (local ACK timeouts, samples)
// that wait in the heap, and phases of very different event density, so
// that the wheel re-sizes while events are pending. After each pop,
// following (the read-ahead's next event) must be the next out.
func TestEventQueueOrder(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var q eventQueue
		ringed := seed%2 == 0
		// Seed 4's rings turn off once one would hold more than 32, as
		// the engine's do past ringMax: the events filed there still
		// pop from them, among the wheel's and the heap's.
		limit := math.MaxInt
		if seed == 4 {
			limit = 32
		}
		if ringed {
			// Serialization ends and arrivals in rings of their own
			// (txRing), as the engine files them while few wait
			// there; here on whatever waits.
			q.txRing(limit)
		}
		var ref refQueue
		now := int64(0)
		id := int32(0)
		near := 0 // pending events that are not far timers
		push := func(at int64, far bool) {
			e := event{t: at, a: id, b: int32(rng.IntN(5)), kind: uint8(rng.IntN(4))}
			if far {
				e.kind = 9
			} else {
				near++
			}
			id++
			if q.txOn && e.kind == evTxDone {
				e.b = 0
				q.addTx(e.t, e.a)
			} else if q.txOn && e.kind == evArrive {
				q.addArrive(e.t, e.a, e.b)
			} else if id%2 == 0 {
				// The engine's way and the parallel engine's way in turn.
				q.add(e.t, e.kind, e.a, e.b, e.gen)
			} else {
				q.push(&e)
			}
			ref.push(e)
		}
		pops, follows := 0, 0
		sizes := map[[2]uint]bool{}
		// Each phase has its own spacing of events, from a few ps (a
		// thousand NICs) to hundreds of ns (one idle link). Every pop
		// pushes none, one or two events, as handling an event does.
		for range 2000 {
			push(int64(rng.IntN(1_000_000)), false)
		}
		for _, spacing := range []int64{40, 3, 1000, 200_000, 60, 10_000} {
			for step := 0; step < 150_000; step++ {
				if ref.len() > 0 {
					if got, want := q.peekT(), ref.ev[0].t; got != want {
						t.Fatalf("seed %d pop %d: peekT %d, want %d", seed, pops, got, want)
					}
					got, want := q.pop(), ref.pop()
					got.next = 0
					if got != want {
						t.Fatalf("seed %d pop %d: got %+v, want %+v", seed, pops, got, want)
					}
					now = got.t
					pops++
					if got.kind != 9 {
						near--
					}
					// The read-ahead's guess, where it has one and no
					// far event comes first, is the next event.
					if f := q.following(); f != nil {
						follows++
						if (len(q.ev) == 0 || !before(&q.ev[0], f)) && !q.tx.firstBefore(f) && !q.ar.firstBefore(f) {
							n := *f
							n.next = 0
							if n != ref.ev[0] { // following found one, so neither queue is empty
								t.Fatalf("seed %d pop %d: following %+v, but the next event is %+v", seed, pops, n, ref.ev[0])
							}
						}
					}
				}
				// About as many pushes as pops, the near ones kept at
				// some 2000 pending.
				n := rng.IntN(3)
				if near < 1500 {
					n = 2
				} else if near > 2500 {
					n = 0
				}
				if rng.IntN(100) < 3 {
					push(now+67_000_000_000+int64(rng.IntN(3))*1_000_000, true) // RTO-like, with ties
				}
				if rng.IntN(100) < 1 {
					push(now+int64(rng.IntN(1<<20))*1_000_000, true) // anywhere far
				}
				for range n {
					switch r := rng.IntN(100); {
					case r < 35:
						push(now, false) // simultaneous with the event being handled
					case r < 38:
						push(now-int64(rng.IntN(1000)), false) // in the past: next out
					default:
						push(now+spacing*int64(rng.IntN(64)), false) // near, many ties
					}
				}
				if q.len() != ref.len() {
					t.Fatalf("seed %d: len %d, want %d", seed, q.len(), ref.len())
				}
			}
			sizes[[2]uint{q.shift, q.bits}] = true
		}
		if len(sizes) < 3 {
			t.Fatalf("seed %d: the wheel kept %d sizes over the phases, want it to re-size", seed, len(sizes))
		}
		if ringed && q.txOn != (limit == math.MaxInt) {
			t.Fatalf("seed %d: rings on %v at the end with a limit of %d", seed, q.txOn, limit)
		}
		n := 0
		for range q.all() {
			n++
		}
		if n != ref.len() {
			t.Fatalf("seed %d: all yields %d events, want %d", seed, n, ref.len())
		}
		for ref.len() > 0 {
			got, want := q.pop(), ref.pop()
			got.next = 0
			if got != want {
				t.Fatalf("seed %d draining: got %+v, want %+v", seed, got, want)
			}
		}
		if q.len() != 0 {
			t.Fatalf("seed %d: %d events left", seed, q.len())
		}
		if pops < 100_000 {
			t.Fatalf("seed %d: only %d pops interleaved", seed, pops)
		}
		// (The read-ahead is for runs whose serialization ends wait in
		// the wheel.)
		if !ringed && follows < pops*9/10 {
			t.Errorf("seed %d: following knew the next event after %d of %d pops, want 90%%", seed, follows, pops)
		}
	}
}

// TestRingCheck: the rings stay on while few events wait in them (the
// incast's few busy ports) and turn off once one needs more than ringMax
// entries (many ports sending at once); the events filed in them still
// pop, in order, with those filed in the wheel after.
func TestRingCheck(t *testing.T) {
	var q eventQueue
	q.txRing(ringMax)
	// 64 pending, in order, for a long while.
	for i := range 100_000 {
		q.addTx(int64(i)*1000, int32(i%64))
		if q.len() > 64 {
			q.pop()
		}
	}
	if !q.txOn {
		t.Fatal("rings turned off with 64 events pending")
	}
	// Many pending, out of order.
	q = eventQueue{}
	q.txRing(ringMax)
	rng := rand.New(rand.NewPCG(1, 2))
	var ref refQueue
	now := int64(0)
	left := -1 // arrivals in the ring when it turned off
	for i := range 10_000 {
		at := now + int64(rng.IntN(100_000))
		if !q.txOn && left < 0 {
			left = q.ar.n
		}
		if q.txOn {
			q.addArrive(at, int32(i), int32(i))
		} else {
			q.add(at, evArrive, int32(i), int32(i), 0)
		}
		ref.push(event{t: at, a: int32(i), b: int32(i), kind: evArrive})
		if q.len() > 1000 {
			got, want := q.pop(), ref.pop()
			got.next = 0
			if got != want {
				t.Fatalf("push %d: got %+v, want %+v", i, got, want)
			}
			now = got.t
		}
	}
	if left <= ringMax {
		t.Fatalf("rings turned off with %d arrivals in them (-1: never), want more than %d", left, ringMax)
	}
	for ref.len() > 0 {
		got, want := q.pop(), ref.pop()
		got.next = 0
		if got != want {
			t.Fatalf("draining: got %+v, want %+v", got, want)
		}
	}
}

func (r *refQueue) len() int { return len(r.ev) }

// TestWheelSize: adapt picks slots of about half the mean time between
// pops, widens them (at most eightfold) where the 99% horizon would need
// more slots than the bound for the events pending (2^wheelBitsMax, more
// for a queue holding many), and leaves the rest to the heap.
func TestWheelSize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		gapPs     int64 // mean time between pops
		horizon   int   // bit length of the 99th percentile push distance
		shift, nb uint
		pending   int // events in the wheel; negative: as many far, in the heap
	}{
		// An incast: a pop every 70 ns, pause timers 335 µs ahead.
		{"incast", 70_000, 29, 15, 14, 0},
		// A thousand NICs: a pop every 40 ps, packets 2-4 µs ahead. Half
		// a gap is 16 ps slots, but 2^22 ps at that width is 2^18 slots:
		// widened eightfold (the most) to 128 ps, 2^14 slots (the cap)
		// reach 2^21 ps, and the farthest of those pushes go to the heap.
		{"large fabric", 40, 22, 7, 14, 0},
		// Far timers over 1% of pushes (2^36 ps, 69 ms): slots widen only
		// eightfold, the wheel stays at its cap, the timers go to the heap.
		{"far timers", 40, 36, 7, 14, 0},
		// Everything close: the smallest wheel.
		{"near", 1000, 10, 8, wheelBitsMin, 0},
		// A thousand NICs in one partition, 20,000 events pending: up to
		// 2^16 slots (two to four an event), so the slots widen only
		// fourfold, to 64 ps.
		{"large fabric, one partition", 40, 22, 6, 16, 20_000},
		// As many pending but far timers over 1%: eightfold (the most),
		// 2^16 slots.
		{"far timers, one partition", 40, 36, 7, 16, 20_000},
		// Half a million pending: 2^wheelBitsLarge slots, the most.
		{"half a million pending", 40, 24, 7, wheelBitsLarge, 500_000},
		// As many far away, in the heap (a million QPs' later messages):
		// they leave the wheel's bound where it was.
		{"half a million far", 40, 22, 7, 14, -500_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q eventQueue
			const pops = 100_000
			q.now = pops * tc.gapPs
			q.start() // the wheel starts at now
			q.pops = pops
			for i := range tc.pending {
				q.add(q.now+int64(i), 0, 0, 0, 0)
			}
			for i := range -tc.pending {
				q.add(q.now+1<<40+int64(i), 0, 0, 0, 0)
			}
			q.dist = [65]uint32{}
			q.dist[tc.horizon] = 100 // all pushes below 2^horizon ps
			q.adapt()
			if q.shift != tc.shift || q.bits != tc.nb {
				t.Errorf("gap %d ps, horizon 2^%d ps: wheel of 2^%d slots of 2^%d ps, want 2^%d of 2^%d", tc.gapPs, tc.horizon, q.bits, q.shift, tc.nb, tc.shift)
			}
			if reach := int(q.shift + q.bits); tc.horizon <= int(wheelBitsBound(max(tc.pending, 0)))+int(tc.shift) && reach < tc.horizon {
				t.Errorf("the wheel reaches 2^%d ps, short of the 99%% horizon 2^%d", reach, tc.horizon)
			}
		})
	}
}

// TestLazyTimerSameAsEager drives timers two ways with the same decisions:
// every arming pushed into the reference queue (the plain way: the stale
// ones come out and are skipped), and lazyTimers in the event queue. The
// events that act (a timer's latest arming, told by its gen) and the other
// events must come out the same, in the same order, and the lazy queue
// must pop far fewer stale events. Armings come in bursts much shorter
// than the timer (XOFF after XOFF), some at an earlier time than the one
// queued (a timer shortened), some at the same time as another event.
func TestLazyTimerSameAsEager(t *testing.T) {
	const timers = 4
	for seed := uint64(1); seed <= 8; seed++ {
		var q eventQueue
		var ref refQueue
		var tm [timers]lazyTimer
		// The decisions: one random stream per side, consumed once per
		// event that is not stale, so the two sides decide alike as long
		// as they pop the same live events.
		rngQ := rand.New(rand.NewPCG(seed, 11))
		rngR := rand.New(rand.NewPCG(seed, 11))
		var latest [timers]uint32 // gen of each timer's latest arming
		var gens uint32
		type out struct {
			t          int64
			kind       uint8
			a, b       int32
			gen        uint32
			timerFired bool
		}
		var gotQ, gotR []out
		staleQ, staleR := 0, 0
		// step makes one live event's decisions: more background events
		// and armings; arm is the side's way to arm timer i at time at.
		step := func(rng *rand.Rand, now int64, push func(event), arm func(i int, at int64)) {
			for range rng.IntN(3) {
				push(event{t: now + rng.Int64N(5000), kind: 1, a: int32(rng.IntN(100))})
			}
			if rng.IntN(3) == 0 {
				i := rng.IntN(timers)
				d := int64(300_000)
				switch rng.IntN(10) {
				case 0:
					d = int64(rng.IntN(200_000)) // shortened: earlier than the one queued
				case 1:
					d = 0 // at now, beside the event being handled
				}
				arm(i, now+d)
			}
		}
		armQ := func(i int, at int64) {
			gens++
			latest[i] = gens
			q.arm(&tm[i], at, evPauseExpire, int32(i), 0, gens)
		}
		var latestR [timers]uint32
		var gensR uint32
		armR := func(i int, at int64) {
			gensR++
			latestR[i] = gensR
			ref.push(event{t: at, kind: evPauseExpire, a: int32(i), gen: gensR})
		}
		for range 50 {
			q.add(int64(rngQ.IntN(1000)), 1, 0, 0, 0)
			ref.push(event{t: int64(rngR.IntN(1000)), kind: 1})
		}
		for n := 0; q.len() > 0 && n < 200_000; n++ {
			e := q.pop()
			fired := false
			if e.kind == evPauseExpire {
				if !q.fired(&tm[e.a], &e) {
					staleQ++
					continue
				}
				if e.gen != latest[e.a] {
					t.Fatalf("seed %d: lazy timer %d acted on arming %d, its latest is %d", seed, e.a, e.gen, latest[e.a])
				}
				fired = true
			}
			gotQ = append(gotQ, out{e.t, e.kind, e.a, e.b, e.gen, fired})
			if len(gotQ) < 150_000 {
				step(rngQ, e.t, func(x event) { q.add(x.t, x.kind, x.a, x.b, x.gen) }, armQ)
			}
		}
		for ref.len() > 0 {
			e := ref.pop()
			fired := false
			if e.kind == evPauseExpire {
				if e.gen != latestR[e.a] {
					staleR++
					continue
				}
				fired = true
			}
			gotR = append(gotR, out{e.t, e.kind, e.a, e.b, e.gen, fired})
			if len(gotR) < 150_000 {
				step(rngR, e.t, func(x event) { ref.push(x) }, armR)
			}
		}
		if len(gotQ) != len(gotR) {
			t.Fatalf("seed %d: %d live events with lazy timers, %d pushing every arming", seed, len(gotQ), len(gotR))
		}
		fires := 0
		for i := range gotQ {
			if gotQ[i] != gotR[i] {
				t.Fatalf("seed %d: live event %d is %+v with lazy timers, %+v pushing every arming", seed, i, gotQ[i], gotR[i])
			}
			if gotQ[i].timerFired {
				fires++
			}
		}
		if fires < 1000 || staleR < 5*fires {
			t.Fatalf("seed %d: %d timer fires, %d stale armings: the test no longer exercises re-arming", seed, fires, staleR)
		}
		if staleQ*4 > staleR {
			t.Errorf("seed %d: lazy timers popped %d stale events, pushing every arming %d", seed, staleQ, staleR)
		}
	}
}

// TestEventQueueLoResets: lo, the bound on the wheel's earliest event that
// lets a ring's event be popped without looking into the wheel, goes back
// to math.MaxInt64 when the wheel's last event is popped and is rebuilt
// from the events filed again when the wheel resizes: a stale lo, though
// never wrong, sends every ring event through the wheel's search.
func TestEventQueueLoResets(t *testing.T) {
	var q eventQueue
	q.start()
	if q.lo != math.MaxInt64 {
		t.Fatalf("lo %d after start, want MaxInt64 (an empty wheel)", q.lo)
	}
	q.add(1000, evTxDone, 1, 0, 0)
	q.add(5000, evTxDone, 2, 0, 0)
	if q.lo != 1000 {
		t.Fatalf("lo %d with events at 1000 and 5000 filed", q.lo)
	}
	if e := q.pop(); e.t != 1000 {
		t.Fatalf("popped %+v", e)
	}
	// The wheel's earliest is 5000 now; lo may lag, but a resize files
	// the event again and gives lo its time.
	q.resize(q.shift, q.bits)
	if q.lo != 5000 {
		t.Errorf("lo %d after a resize with the wheel's only event at 5000", q.lo)
	}
	if e := q.pop(); e.t != 5000 {
		t.Fatalf("popped %+v", e)
	}
	if q.lo != math.MaxInt64 {
		t.Errorf("lo %d after the wheel's last event was popped, want MaxInt64", q.lo)
	}
}
