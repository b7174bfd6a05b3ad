package sim

// event is a value type: the queue holds events inline, so scheduling
// allocates nothing once the backing array has grown.
type event struct {
	t    int64  // picoseconds
	seq  uint32 // push order, to keep simultaneous events first in, first out
	a    int32  // port or flow index
	b    int32  // packet index or priority
	gen  uint32 // generation, to drop stale timers
	kind uint8
}

// eventQueue is a 4-ary min-heap ordered by time. A 4-ary heap halves the
// depth of a binary one, which pays off for the pops that dominate.
// Simultaneous events come out in the order they were scheduled, so a run
// is reproducible and an event that changes nothing (a sample, a watchdog
// poll) cannot reorder the others and change the result.
type eventQueue struct {
	ev  []event
	seq uint32
}

// less orders by time, then by push order (wrap-around safe for events
// fewer than 2^31 pushes apart).
func (q *eventQueue) less(i, j int) bool {
	a, b := &q.ev[i], &q.ev[j]
	return a.t < b.t || a.t == b.t && int32(a.seq-b.seq) < 0
}

func (q *eventQueue) len() int { return len(q.ev) }

// peekT is the time of the next event; the queue must not be empty.
func (q *eventQueue) peekT() int64 { return q.ev[0].t }

func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.ev = append(q.ev, e)
	i := len(q.ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !q.less(i, p) {
			break
		}
		q.ev[i], q.ev[p] = q.ev[p], q.ev[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
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
			if q.less(k, m) {
				m = k
			}
		}
		if !q.less(m, i) {
			break
		}
		q.ev[i], q.ev[m] = q.ev[m], q.ev[i]
		i = m
	}
	return top
}
