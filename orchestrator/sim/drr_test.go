package sim

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// pickQueueOneByOne is deficit round robin visiting one queue per step,
// as pickQueue did before it passed runs of queues that cannot send in
// one step: the reference TestPickQueueSkipsAsVisiting holds it to.
func (s *sim) pickQueueOneByOne(p *port) int {
	for m := p.strict & p.held; m != 0; {
		pr := 7 - bits.LeadingZeros8(m)
		if !p.paused(uint8(pr), s.now) {
			return pr
		}
		m &^= 1 << pr
	}
	for tries := 0; tries < drrVisits; tries++ {
		i := int(p.rr)
		held := p.held&(1<<i) != 0
		if held && p.strict&(1<<i) == 0 && !p.paused(uint8(i), s.now) {
			ln := &p.lane[i]
			if !p.visited {
				ln.deficit += ln.quantum
				p.visited = true
			}
			if w := int64(s.pkts[ln.q.head].wire); ln.deficit >= w {
				ln.deficit -= w
				return i
			}
		} else if !held {
			p.lane[i].deficit = 0
		}
		p.rr = uint8((i + 1) & 7)
		p.visited = false
	}
	return -1
}

// TestPickQueueSkipsAsVisiting drives pickQueue and the one-queue-a-step
// reference through the same random sequences of port states (queues
// held, strict, paused, weights from 0, packets of any size, picks in a
// row) and requires the same pick and the same scheduler state after
// every one.
func TestPickQueueSkipsAsVisiting(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20000; trial++ {
		s := &sim{now: 1000}
		s.pkts = make([]packet, 8)
		var a, b port
		for i := range 8 {
			s.pkts[i].wire = int32(64 + rng.IntN(9000))
			a.lane[i].q.head = int32(i)
			a.lane[i].quantum = int64(rng.IntN(3)) * int64(rng.IntN(9100))
		}
		a.rr = uint8(rng.IntN(8))
		for step := 0; step < 12; step++ {
			a.held = uint8(rng.Uint32())
			a.strict = 0
			for i := range 8 {
				if rng.IntN(8) == 0 {
					a.strict |= 1 << i
				}
				a.lane[i].pauseUntil = 0
				if rng.IntN(4) == 0 {
					a.lane[i].pauseUntil = 2000
				}
			}
			b = a
			got, want := s.pickQueue(0, &a), s.pickQueueOneByOne(&b)
			if got != want || a.rr != b.rr || a.visited != b.visited {
				t.Fatalf("trial %d step %d: pick %d rr %d visited %v, one by one: pick %d rr %d visited %v", trial, step, got, a.rr, a.visited, want, b.rr, b.visited)
			}
			for i := range 8 {
				if a.lane[i].deficit != b.lane[i].deficit {
					t.Fatalf("trial %d step %d: queue %d deficit %d, one by one %d", trial, step, i, a.lane[i].deficit, b.lane[i].deficit)
				}
				if (a.credit&(1<<i) != 0) != (a.lane[i].deficit != 0) {
					t.Fatalf("trial %d step %d: queue %d credit bit %v with deficit %d", trial, step, i, a.credit&(1<<i) != 0, a.lane[i].deficit)
				}
			}
		}
	}
}
