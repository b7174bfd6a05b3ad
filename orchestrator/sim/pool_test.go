package sim

import "testing"

// TestPacketPoolLastFreedFirst: alloc hands out the packet freed last
// (the free stack keeps the order the list through packet.next had, so
// the packets a run reuses are the ones still in the caches), zeroed but
// for next, and grows the pool only when nothing is free.
func TestPacketPoolLastFreedFirst(t *testing.T) {
	s := &sim{}
	var ks []int32
	for range 4 {
		ks = append(ks, s.alloc())
	}
	for i, k := range ks {
		if k != int32(i) {
			t.Fatalf("fresh pool: alloc %d returned packet %d, want %d", i, k, i)
		}
		s.pkts[k].psn, s.pkts[k].flow, s.pkts[k].lost = 99, 7, true
	}
	s.release(ks[1])
	s.release(ks[3])
	s.release(ks[0])
	for _, want := range []int32{ks[0], ks[3], ks[1], 4} {
		k := s.alloc()
		if k != want {
			t.Fatalf("alloc returned packet %d, want %d (last freed first, then a new one)", k, want)
		}
		if got := s.pkts[k]; got != (packet{next: -1}) {
			t.Fatalf("packet %d from alloc is %+v, want zero but next -1", k, got)
		}
	}
	if len(s.pkts) != 5 || len(s.free) != 0 {
		t.Fatalf("pool of %d packets with %d free, want 5 and 0", len(s.pkts), len(s.free))
	}
}
