package sim

import (
	"iter"
	"math"
	"math/bits"
	"slices"
)

// event is a value type: the queue holds events inline, so scheduling
// allocates nothing once its arrays have grown.
type event struct {
	t    int64  // picoseconds
	seq  uint32 // push order, to keep simultaneous events first in, first out
	a    int32  // port or flow index
	b    int32  // packet index or priority
	gen  uint32 // generation, to drop stale timers
	next int32  // the queue's: the next event of the same wheel slot, or of the free list
	kind uint8
}

// before is the queue's order: by time, then by push order (wrap-around
// safe for events fewer than 2^31 pushes apart). Simultaneous events come
// out in the order they were scheduled, so a run is reproducible and an
// event that changes nothing (a sample, a watchdog poll) cannot reorder the
// others and change the result.
func before(a, b *event) bool {
	return a.t < b.t || a.t == b.t && int32(a.seq-b.seq) < 0
}

// eventQueue is a timing wheel for the near future beside a 4-ary min-heap
// for the far one, so that the cost of an event does not grow with the
// number pending (at 1024 hosts some 15,000, nearly all within a few µs:
// packets on the wire, serializations ending; the far ones are timers such
// as the local ACK timeout).
//
// The wheel has 2^bits slots of 2^shift ps each; an event at time t belongs
// to bucket t>>shift, and the wheel holds the buckets from cur (no pending
// event is in an earlier one) to cur+2^bits-1, bucket b in slot b mod 2^bits.
// A slot is a linked list of events (in pool) sorted by before; the events
// of one bucket are few, as the width follows the rate of events. An event
// beyond the wheel at its push goes to the heap; pop takes the earlier of
// the first event of the wheel and the top of the heap, so where an event
// waits never changes the order. Every so often the queue measures how far
// ahead events are pushed and how densely they are popped, and re-sizes the
// wheel (adapt). In sequential runs the ports' serialization ends and the
// packets' arrivals wait in two sorted rings beside them instead while
// few wait there (txRing, ringMax), which pop compares in the same order.
type eventQueue struct {
	pool  []event // wheel events and free nodes
	free  int32   // free list through event.next, -1 empty
	slots []slot
	occ   []uint64 // bit i: slot i holds events
	shift uint
	bits  uint
	cur   int64 // the earliest bucket a wheel event may be in
	near  int   // events in the wheel

	ev []event // the far heap

	// The ports' serialization ends (evTxDone) filed while the rings were
	// on (txRing): a ring of their own beside the wheel and the far heap.
	tx   sortedRing
	txOn bool
	// And the packets' arrivals (evArrive), likewise.
	ar sortedRing
	// ringLimit: the most entries a ring may need before the rings are
	// turned off (growRing).
	ringLimit int
	// lo is no later than the wheel's earliest event: that event's time
	// when popBefore last looked into the wheel (first), or that of an
	// event filed since that is earlier. It is math.MaxInt64 while the
	// wheel is empty from start on (resize sets it, and popBefore when it
	// takes the wheel's last event); a zero-value queue holds 0 until
	// start, no later than any event. A ring's event earlier than lo and
	// than the far heap's first is the queue's earliest, found without
	// looking into the wheel.
	lo int64

	seq uint32
	now int64 // time of the last event popped

	// For adapt: pops so far and when the next look is due, the time of
	// the pop that started this window, and the push distances (t - now)
	// of this window by bit length.
	pops, nextAdapt uint64
	winStart        int64
	winPops         uint64
	dist            [65]uint32
}

type slot struct{ head, tail int32 }

// The wheel's starting size, before adapt has seen any events: 256 ps
// slots over 2.1 µs, which holds a packet's flight to a NIC (1 µs NIC
// delay plus serialization and propagation).
const (
	wheelShift0 = 8
	wheelBits0  = 13
	// Bounds of adapt's choice: at most 2^14 slots (128 KiB of slots).
	// With 2^16 (512 KiB, a core's whole L2 cache here) the 128-host
	// permutation's wheel sat at the bound with 64 ps slots, and loading
	// a push's slot was a quarter of the run's misses of a 512 KiB cache;
	// at 2^14 its slots are four times wider for the same horizon: 26%
	// fewer misses of that cache (10.5 M against 7.8 M, cachegrind) for
	// 1.9% more instructions (the longer slots' sorted inserts), and the
	// 1024-host permutation on one thread ran 1-6% faster in each of 3
	// interleaved pairs. Small fabrics, whose wheels stay below the
	// bound (the incast's 2^7-2^9 slots), are unchanged.
	wheelBitsMin = 6
	wheelBitsMax = 14
	// A wheel holding many events may take more slots, two to four for
	// each and at most 2^wheelBitsLarge (1 MiB of slots): a thousand NICs
	// in one partition (some 20,000 events in the wheel, a pop every
	// 40 ps, pushes 2 µs ahead) had their slots
	// widened eightfold to 128 ps at 2^14, three or four events each,
	// and each push walked a slot's sorted list of events long gone from
	// the caches: 4.0-4.1 M events/s on one thread, against 5.9-6.3 M with
	// 2^15-2^17 slots of 16-64 ps (BenchmarkPermutation1024 with 1 µs
	// cables in one partition, 300 µs, 2 runs each). A partition of a
	// split run holds a few thousand and keeps 2^14. The far heap's
	// events do not count: moe-all-to-all's partitions hold 135,000 each
	// there (a million QPs' later messages), and counting them had the
	// wheels re-sized 117 times, 10% more wall time and 0.3 GB more.
	wheelBitsLarge = 17
	// adapt looks after this many pops, then every adaptEvery.
	adaptFirst = 1 << 12
	adaptEvery = 1 << 16
)

func (q *eventQueue) len() int { return q.near + len(q.ev) + q.tx.n + q.ar.n }

// add files an event at t, numbered after every event pushed so far. It is
// how the engine schedules (sim.push): the fields go straight into the
// event's wheel node, for a copy of an event built just before would load
// 16-byte halves of what was stored 4 and 8 bytes at a time, which store
// forwarding cannot serve (a quarter of add's cycles on the incast, perf).
//
// The common case (a free node, a bucket within the wheel, later than the
// slot's last event or the slot empty) makes no call: a function that
// calls stores its register arguments on the stack on entry and reloads
// them, which was a fifth of add's instructions. Everything else is
// addSlow's.
func (q *eventQueue) add(t int64, kind uint8, a, b int32, gen uint32) {
	bk := max(t>>(q.shift&63), q.cur) // &63: shift < 64, so no check for a larger one
	n := q.free
	// An empty q.slots (before start) fails the horizon test too.
	if n < 0 || bk-q.cur >= int64(len(q.slots)) {
		q.addSlow(t, kind, a, b, gen)
		return
	}
	i := int(bk) & (len(q.slots) - 1)
	sl := &q.slots[i]
	e := &q.pool[n]
	// Being the latest push, e precedes an event of its slot only if it is
	// earlier (before's seq tie-break puts it after one of the same time).
	if sl.head >= 0 && t < q.pool[sl.tail].t {
		q.addSlow(t, kind, a, b, gen)
		return
	}
	seq := q.seq
	q.seq++
	if seq%distSample == 0 {
		q.noteDistance(t)
	}
	q.free = e.next
	e.t, e.seq, e.a, e.b, e.gen, e.kind = t, seq, a, b, gen, kind
	e.next = -1
	q.near++
	q.lo = min(q.lo, t)
	if sl.head < 0 {
		sl.head = n
		q.occ[i>>6] |= 1 << uint(i&63)
	} else {
		q.pool[sl.tail].next = n
	}
	sl.tail = n
}

// addSlow is add for the cases its fast path leaves: the wheel not yet
// started, no free node, an event beyond the wheel (to the heap) or one
// that goes before an event of its slot.
func (q *eventQueue) addSlow(t int64, kind uint8, a, b int32, gen uint32) {
	seq := q.seq
	q.seq++
	if q.slots == nil {
		q.start()
	}
	if seq%distSample == 0 {
		q.noteDistance(t)
	}
	bk := max(t>>(q.shift&63), q.cur)
	if bk-q.cur >= int64(len(q.slots)) {
		q.heapPush(event{t: t, seq: seq, a: a, b: b, gen: gen, kind: kind})
		return
	}
	n := q.node()
	e := &q.pool[n]
	e.t, e.seq, e.a, e.b, e.gen, e.kind = t, seq, a, b, gen, kind
	q.link(n, e, bk)
}

// push files a copy of *e, numbered anew as add numbers: for events that
// arrive whole (from another partition, or re-filed at set-up).
func (q *eventQueue) push(e *event) { q.add(e.t, e.kind, e.a, e.b, e.gen) }

// lazyTimer is a timer that is armed far more often than it fires, such as
// a PFC pause (every XOFF extends it, most end early by XON), kept as one
// event in the queue however often it is armed: arming it while its event
// waits at or before the new time only notes the new time, and that event,
// when it comes out, files the latest arming in its place (fired). An
// arming takes its seq when it is armed, so the events that act come out
// in exactly the order they had when every arming was pushed, and the
// superseded ones, which would have come out only to find themselves
// stale, never go in (28,000 of the 8:1 incast's 930,000 events; at 128
// hosts 4.6% fewer instructions, make bench-instr).
type lazyTimer struct {
	queuedT  int64 // the timer's event in the queue: its time and seq
	armedT   int64 // the latest arming: its time, seq and gen
	queuedSq uint32
	armedSq  uint32
	armedGen uint32
	queued   bool
}

// arm sets tm to fire an event (kind, a, b, gen) at t, after every event
// pushed so far at that time.
func (q *eventQueue) arm(tm *lazyTimer, t int64, kind uint8, a, b int32, gen uint32) {
	seq := q.seq
	q.seq++
	tm.armedT, tm.armedSq, tm.armedGen = t, seq, gen
	if tm.queued && tm.queuedT <= t {
		return // the queued event comes out first and files this arming
	}
	// Nothing queued, or the new time is earlier (a slower pause after a
	// link speed change): file it now; the later event comes out stale.
	tm.queuedT, tm.queuedSq, tm.queued = t, seq, true
	q.insert(&event{t: t, seq: seq, a: a, b: b, gen: gen, kind: kind})
}

// fired reports whether e, just out of the queue, is tm's latest arming,
// the one to act on. An event of an earlier arming files the latest one
// in its place; one that an earlier arming superseded is dropped.
func (q *eventQueue) fired(tm *lazyTimer, e *event) bool {
	if !tm.queued || e.seq != tm.queuedSq || e.t != tm.queuedT {
		return false
	}
	if tm.armedSq == e.seq {
		tm.queued = false
		return true
	}
	tm.queuedT, tm.queuedSq = tm.armedT, tm.armedSq
	q.insert(&event{t: tm.armedT, seq: tm.armedSq, a: e.a, b: e.b, gen: tm.armedGen, kind: e.kind})
	return false
}

func (q *eventQueue) start() {
	q.resize(wheelShift0, wheelBits0)
	q.nextAdapt = adaptFirst
}

// noteDistance counts how far ahead of the last pop an event goes, for
// adapt; add calls it for one push in distSample: the shares it reads come
// out the same from a sample, and counting every push cost a tenth of push.
func (q *eventQueue) noteDistance(t int64) {
	d := t - q.now
	if d < 0 {
		d = 0
	}
	q.dist[bits.Len64(uint64(d))]++
}

// distSample: noteDistance counts one push in this many.
const distSample = 8

// insert files e (with its seq) in the wheel, or in the heap when it is
// beyond the wheel's horizon.
func (q *eventQueue) insert(e *event) {
	bk := max(e.t>>(q.shift&63), q.cur)
	if bk-q.cur >= int64(len(q.slots)) {
		q.heapPush(*e)
		return
	}
	n := q.node()
	w := &q.pool[n]
	*w = *e
	q.link(n, w, bk)
}

// node takes a free wheel node (growing the pool when none is free).
func (q *eventQueue) node() int32 {
	n := q.free
	if n >= 0 {
		q.free = q.pool[n].next
		return n
	}
	if len(q.pool) == cap(q.pool) {
		// Twice the size at each growth (as the packet pools grow), not
		// append's quarter more for large slices: a million events
		// pushed at a run's start were 1.2 s of copies.
		q.pool = slices.Grow(q.pool, max(cap(q.pool), 64))
	}
	q.pool = append(q.pool, event{})
	return int32(len(q.pool) - 1)
}

// link puts node n, holding e, in the slot of bucket bk (within the wheel),
// after the events of that slot it does not precede.
func (q *eventQueue) link(n int32, e *event, bk int64) {
	q.near++
	q.lo = min(q.lo, e.t)
	i := int(bk) & (len(q.slots) - 1)
	sl := &q.slots[i]
	switch {
	case sl.head < 0:
		e.next = -1
		sl.head, sl.tail = n, n
		q.occ[i>>6] |= 1 << uint(i&63)
	case !before(e, &q.pool[sl.tail]):
		// The common case: later than all of its bucket so far.
		e.next = -1
		q.pool[sl.tail].next = n
		sl.tail = n
	case before(e, &q.pool[sl.head]):
		e.next = sl.head
		sl.head = n
	default:
		p := sl.head
		for !before(e, &q.pool[q.pool[p].next]) {
			p = q.pool[p].next
		}
		e.next = q.pool[p].next
		q.pool[p].next = n
	}
}

// first returns the slot holding the wheel's earliest event (the wheel must
// hold one): the first occupied slot from cur's on, round the wheel.
func (q *eventQueue) first() int {
	mask := len(q.slots) - 1
	i := int(q.cur) & mask
	w := i >> 6
	if x := q.occ[w] >> uint(i&63); x != 0 {
		return i + bits.TrailingZeros64(x)
	}
	for k := 1; k <= len(q.occ); k++ {
		w2 := (w + k) & (len(q.occ) - 1)
		if x := q.occ[w2]; x != 0 {
			return w2<<6 + bits.TrailingZeros64(x)
		}
	}
	panic("sim: event wheel empty")
}

// peekT is the time of the next event; the queue must not be empty.
func (q *eventQueue) peekT() int64 {
	t := int64(math.MaxInt64)
	if q.near > 0 {
		t = q.pool[q.slots[q.first()].head].t
	}
	if len(q.ev) > 0 && q.ev[0].t < t {
		t = q.ev[0].t
	}
	if q.tx.n > 0 && q.tx.first().t < t {
		t = q.tx.first().t
	}
	if q.ar.n > 0 && q.ar.first().t < t {
		t = q.ar.first().t
	}
	return t
}

// following is the wheel's next event after the one pop returned last,
// when the queue finds it cheaply: the next in the same slot, or the first
// of the next occupied slot among the 64 that share its word of occ (with
// slots half a pop wide the same slot held the next event only a third to
// a half of the time). Else nil. The engine reads ahead of it
// (sim.readAhead); it may be overtaken by the far heap, by the rings'
// events (serialization ends in tx, arrivals in ar) or by events pushed
// meanwhile, and nothing but the read-ahead depends on it.
func (q *eventQueue) following() *event {
	if q.near == 0 {
		return nil
	}
	i := int(q.cur) & (len(q.slots) - 1)
	if h := q.slots[i].head; h >= 0 {
		return &q.pool[h]
	}
	// Slot i is empty, so the lowest bit left is a later slot's.
	if x := q.occ[i>>6] >> uint(i&63); x != 0 {
		return &q.pool[q.slots[i+bits.TrailingZeros64(x)].head]
	}
	return nil
}

func (q *eventQueue) pop() event {
	var e event
	q.popBefore(math.MaxInt64, &e)
	return e
}

// popBefore pops the next event into *e if it is earlier than end (the
// queue must not be empty), finding it once where peekT and pop would look
// twice.
func (q *eventQueue) popBefore(end int64, e *event) bool {
	if q.tx.n > 0 || q.ar.n > 0 {
		// The rings' earlier head, the queue's earliest event when it is
		// earlier than anything the wheel may hold and than the far
		// heap's first.
		ar := q.ar.n > 0 && (q.tx.n == 0 || q.ar.first().beforeTx(q.tx.first()))
		var x *txEnd
		if ar {
			x = q.ar.first()
		} else {
			x = q.tx.first()
		}
		if x.t < q.lo && (len(q.ev) == 0 || x.before(&q.ev[0])) {
			return q.takeRing(ar, x, end, e)
		}
	}
	if q.near > 0 {
		i := q.first()
		sl := &q.slots[i]
		n := sl.head
		w := &q.pool[n]
		q.lo = w.t // the wheel's earliest
		if len(q.ev) > 0 && before(&q.ev[0], w) {
			if q.tx.firstBefore(&q.ev[0]) || q.ar.firstBefore(&q.ev[0]) {
				return q.popRing(end, e)
			}
			if q.ev[0].t >= end {
				return false
			}
			*e = q.heapPop()
		} else {
			if q.tx.firstBefore(w) || q.ar.firstBefore(w) {
				return q.popRing(end, e)
			}
			if w.t >= end {
				return false
			}
			*e = *w
			// (lo stays: the wheel's other events are no earlier.)
			sl.head = w.next
			if sl.head < 0 {
				sl.tail = -1
				q.occ[i>>6] &^= 1 << uint(i&63)
			}
			w.next = q.free
			q.free = n
			if q.near--; q.near == 0 {
				q.lo = math.MaxInt64 // nothing in the wheel
			}
		}
	} else {
		if len(q.ev) == 0 || q.tx.firstBefore(&q.ev[0]) || q.ar.firstBefore(&q.ev[0]) {
			return q.popRing(end, e)
		}
		if q.ev[0].t >= end {
			return false
		}
		*e = q.heapPop()
	}
	q.now = e.t
	q.cur = max(q.cur, e.t>>(q.shift&63))
	q.pops++
	if q.pops >= q.nextAdapt {
		q.adapt()
	}
	return true
}

// adapt sizes the wheel to what the last window saw: a slot about half the
// mean time between pops, and enough slots that 99% of pushes land in the
// wheel. Half a pop per slot makes the common push an append to an empty
// or one-event slot (add's fast path); with four pops a slot (the first
// choice) most pushes walked a slot's sorted list. Counted by cachegrind
// over the whole labctl process, the half-pop slots ran 2.2% fewer
// instructions on bench-compare's incast, 6.3% fewer on its 128-host
// permutation and 3.7% fewer at 1024 hosts, and with add's fast path 4.7%
// fewer on the incast (656 M against 689 M); L1 misses rose by half on
// the incast (the larger slot array: 0.9 M against 0.6 M, of 280 M loads
// and stores) and by 0.5% at 1024 hosts.
// Where the 99% horizon needs more slots of that width than the bound for
// the events in the wheel (wheelBitsBound), the slots widen to keep it (up to
// the old four pops a slot), rather than sending the near events of a
// large fabric to the heap.
func (q *eventQueue) adapt() {
	q.nextAdapt = q.pops + adaptEvery
	pops, span := q.pops-q.winPops, q.now-q.winStart
	var total uint64
	for _, c := range q.dist {
		total += uint64(c)
	}
	dist := q.dist
	q.winStart, q.winPops, q.dist = q.now, q.pops, [65]uint32{}
	if span <= 0 || total == 0 {
		return
	}
	shift := uint(0) // the largest with 2^shift <= span/(2 pops), or 0
	if w := uint64(span) / (2 * pops); w > 0 {
		shift = uint(bits.Len64(w)) - 1
	}
	h, c := 0, uint64(0)
	for ; h < len(dist); h++ {
		if c += uint64(dist[h]); 100*c >= 99*total {
			break
		}
	}
	// Distances below 2^h reach at most 2^(h-shift) slots ahead. Slots
	// widen up to eight times (four pops each) to keep that within the
	// bound, and no further: where far timers are more than 1% of
	// the pushes (a retransmission timer per packet) the 99% horizon is
	// theirs, and those are better in the heap than the near events in
	// long sorted slots.
	maxBits := wheelBitsBound(q.near)
	if need := h - int(maxBits); need > int(shift) {
		shift = min(uint(need), shift+3)
	}
	nb := uint(wheelBitsMin)
	if h > int(shift)+wheelBitsMin {
		nb = min(uint(h)-shift, maxBits)
	}
	// Hysteresis: a slot width off by a factor of two or the horizon one
	// bit short of ideal is not worth moving every pending event for.
	if d := int(shift) - int(q.shift); d >= -1 && d <= 1 && nb <= q.bits && nb+1 >= q.bits {
		return
	}
	q.resize(shift, nb)
}

// wheelBitsBound is the most slots (as a power of two) adapt gives a
// wheel holding near events: 2^wheelBitsMax, or two to four slots an
// event where that is more, up to 2^wheelBitsLarge.
func wheelBitsBound(near int) uint {
	return min(max(uint(bits.Len(uint(near)))+1, wheelBitsMax), wheelBitsLarge)
}

// resize rebuilds the wheel with 2^nb slots of 2^shift ps and files every
// pending event again; each keeps its seq, so the order stays the same.
func (q *eventQueue) resize(shift, nb uint) {
	// Sized at once: a million pending events (the start of a 1024-GPU
	// all-to-all) grown by append were 1.4 s of copies and page faults.
	pending := make([]event, 0, q.near+len(q.ev))
	for e := range q.filed() {
		pending = append(pending, e)
	}
	q.shift, q.bits = shift, nb
	q.slots = make([]slot, 1<<nb)
	for i := range q.slots {
		q.slots[i] = slot{-1, -1}
	}
	q.occ = make([]uint64, max(len(q.slots)/64, 1))
	q.pool, q.free, q.near = q.pool[:0], -1, 0
	q.lo = math.MaxInt64 // until the pending events are filed again (link)
	q.ev = q.ev[:0]
	q.cur = q.now >> shift
	for i := range pending {
		q.insert(&pending[i])
	}
}

// all yields every pending event, in no particular order. It visits the
// occupied slots only (by occ), so that a sparse wheel costs its events,
// not its 2^14 slots: the run looks over its pending events at each time
// series sample until it finds one due (quietToTheEnd).
func (q *eventQueue) all() iter.Seq[event] {
	return func(yield func(event) bool) {
		for e := range q.filed() {
			if !yield(e) {
				return
			}
		}
		for j := range q.tx.n {
			x := q.tx.at(j)
			if !yield(event{t: x.t, seq: x.seq, a: x.port, kind: evTxDone}) {
				return
			}
		}
		for j := range q.ar.n {
			x := q.ar.at(j)
			if !yield(event{t: x.t, seq: x.seq, a: x.port, b: x.pkt, kind: evArrive}) {
				return
			}
		}
	}
}

// filed yields the pending events of the wheel and the far heap (all but
// the rings': the serialization ends in tx and the arrivals in ar), in no
// particular order.
func (q *eventQueue) filed() iter.Seq[event] {
	return func(yield func(event) bool) {
		for w, word := range q.occ {
			for ; word != 0; word &= word - 1 {
				i := w<<6 + bits.TrailingZeros64(word)
				for n := q.slots[i].head; n >= 0; n = q.pool[n].next {
					if !yield(q.pool[n]) {
						return
					}
				}
			}
		}
		for _, e := range q.ev {
			if !yield(e) {
				return
			}
		}
	}
}

// txEnd is a port's serialization end (an evTxDone event) in tx, or a
// packet's arrival at a port (evArrive) in ar.
type txEnd struct {
	t    int64
	seq  uint32
	port int32
	pkt  int32
}

// before is the queue's order (before) between x and e.
func (x *txEnd) before(e *event) bool {
	return x.t < e.t || x.t == e.t && int32(x.seq-e.seq) < 0
}

func (x *txEnd) beforeTx(y *txEnd) bool {
	return x.t < y.t || x.t == y.t && int32(x.seq-y.seq) < 0
}

// sortedRing is one of the queue's rings (tx, ar): n entries from head,
// sorted by before, in a power-of-two array used round.
type sortedRing struct {
	r    []txEnd
	head int
	n    int
}

// first is the ring's earliest entry; the ring must hold one.
func (g *sortedRing) first() *txEnd { return &g.r[g.head] }

// firstBefore says whether the ring holds an entry before e.
func (g *sortedRing) firstBefore(e *event) bool { return g.n > 0 && g.first().before(e) }

// at is the ring's entry j (from 0, earliest first; j < n).
func (g *sortedRing) at(j int) *txEnd { return &g.r[(g.head+j)&(len(g.r)-1)] }

// drop takes the ring's earliest entry out.
func (g *sortedRing) drop() {
	g.head = (g.head + 1) & (len(g.r) - 1)
	g.n--
}

// txRing (see sim.run and ringMax) files the serialization ends of ports
// (addTx) in tx and the packets' arrivals (addArrive) in ar from now on:
// rings of their own (sortedRing). Both are mostly
// scheduled in the order they are due (a data packet's serialization
// ends after those pending; a link's arrivals come in order, and the
// switches' jitter reorders only arrivals of different links scheduled
// less than its range apart), so a push moves none or a few (the bench
// incast: 680,000 moves for 640,000 pushes), and a pop takes a head.
// Where they are filed changes nothing of the order: each takes its seq
// as add would, and popBefore takes the earliest of the wheel's, the far
// heap's and the rings'. Once one needs more than max entries, later ones
// go to the wheel (growRing; the engine's max is ringMax).
func (q *eventQueue) txRing(max int) { q.txOn, q.ringLimit = true, max }

// addTx files port's serialization end (evTxDone) at t in tx, numbered
// as add numbers, after the last of tx it does not precede; tx must be
// on.
func (q *eventQueue) addTx(t int64, port int32) {
	if q.tx.n == len(q.tx.r) {
		q.growRing(&q.tx)
	}
	ringAdd(q.tx.r, q.tx.head, q.tx.n, txEnd{t: t, seq: q.seq, port: port})
	q.seq++
	q.tx.n++
}

// addArrive files packet k's arrival at port (evArrive) at t in ar, as
// addTx files in tx.
func (q *eventQueue) addArrive(t int64, port, k int32) {
	if q.ar.n == len(q.ar.r) {
		q.growRing(&q.ar)
	}
	ringAdd(q.ar.r, q.ar.head, q.ar.n, txEnd{t: t, seq: q.seq, port: port, pkt: k})
	q.seq++
	q.ar.n++
}

// ringMax is the most entries a ring of the engine's may need before the
// rings are turned off (txRing, growRing). A push walks back over the pending entries it precedes:
// with a few ports sending at once they are few and mostly in the order
// they come due (an incast: a few dozen pending), but with many (a
// permutation where every host sends: thousands) the rings cost twice the
// wheel's instructions, whose slots hold a few events whatever is pending
// (the figures: bench/compare/README.md, the rings' section).
const ringMax = 256

// ringAdd puts x in ring array r of n entries from head (and room for one
// more), after the last it does not precede. It takes the array, not the
// sortedRing: reading the ring's fields and counting n here made it too
// large to inline (cost 93, over the inliner's 80), and the call from
// addTx cost 0.46% more instructions on the bench incast (cachegrind).
func ringAdd(r []txEnd, head, n int, x txEnd) {
	mask := len(r) - 1
	j := head + n
	for ; j > head; j-- {
		p := &r[(j-1)&mask]
		if !x.beforeTx(p) {
			break
		}
		r[j&mask] = *p
	}
	r[j&mask] = x
}

// growRing doubles ring g's array (full), its entries from its start;
// when the entry to come makes more than ringLimit it turns the rings
// off: later serialization ends and arrivals go to the wheel (add), and
// those filed in the rings still pop from there, in the same order
// (popBefore compares all three).
func (q *eventQueue) growRing(g *sortedRing) {
	grown := make([]txEnd, max(2*len(g.r), 16))
	if g.n+1 > q.ringLimit {
		q.txOn = false
	}
	for j := range g.n {
		grown[j] = *g.at(j)
	}
	g.r, g.head = grown, 0
}

// popRing pops the earlier head of tx and ar into *e if it is earlier
// than end; it must be the queue's earliest event.
func (q *eventQueue) popRing(end int64, e *event) bool {
	if q.ar.n > 0 && (q.tx.n == 0 || q.ar.first().beforeTx(q.tx.first())) {
		return q.takeRing(true, q.ar.first(), end, e)
	}
	return q.takeRing(false, q.tx.first(), end, e)
}

// takeRing pops x, the head of ar (or of tx), into *e if it is earlier
// than end; it must be the queue's earliest event.
func (q *eventQueue) takeRing(ar bool, x *txEnd, end int64, e *event) bool {
	if x.t >= end {
		return false
	}
	if ar {
		*e = event{t: x.t, seq: x.seq, a: x.port, b: x.pkt, kind: evArrive}
		q.ar.drop()
	} else {
		*e = event{t: x.t, seq: x.seq, a: x.port, kind: evTxDone}
		q.tx.drop()
	}
	q.now = e.t
	q.cur = max(q.cur, e.t>>(q.shift&63))
	return true
}

// The far heap: a 4-ary min-heap, which halves the depth of a binary one.

func (q *eventQueue) heapPush(e event) {
	q.ev = append(q.ev, e)
	i := len(q.ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !before(&q.ev[i], &q.ev[p]) {
			break
		}
		q.ev[i], q.ev[p] = q.ev[p], q.ev[i]
		i = p
	}
}

func (q *eventQueue) heapPop() event {
	top := q.ev[0]
	n := len(q.ev) - 1
	q.ev[0] = q.ev[n]
	q.ev = q.ev[:n]
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for k := c + 1; k < end; k++ {
			if before(&q.ev[k], &q.ev[m]) {
				m = k
			}
		}
		if !before(&q.ev[m], &q.ev[i]) {
			break
		}
		q.ev[i], q.ev[m] = q.ev[m], q.ev[i]
		i = m
	}
	return top
}
