package sim

// UET's load balancing: the entropy each data packet carries, which the
// switches' ECMP hash spreads over the paths (uec_mp.cpp, buffer_reps.cpp).

// REPS (uec_mp.cpp UecMpReps, buffer_reps.cpp): an 8-entry circular
// buffer of recycled EVs; a timeout freezes it (replay the buffer) for
// exit_freeze_after, then 16 packets explore at random.
const (
	repsBufferSize = 8
	repsFreezePs   = 10_000_000_000 // exit_freeze_after, 10 ms
	repsExplore    = 16
)

// evHash is the ECMP hash of a data packet of flow f with entropy ev. UET
// carries the entropy in the UDP source port (UEC 1.0, the packet
// delivery sublayer over UDP), so it is the switches' hash of the flow's
// 5-tuple with that source port (Config.KeyHash, as labctl trace hashes),
// kept per flow once computed; lb ecmp keeps the flow's own.
func (s *sim) evHash(f *flowState, ev uint16) uint64 {
	if s.u.lb == "ecmp" {
		return f.hashFwd
	}
	t := f.utx
	if t.evh == nil {
		t.evh = make([]uint64, s.u.evs)
	}
	if h := t.evh[ev]; h != 0 {
		return h
	}
	h, _ := s.flowHashes(f.src, f.dst, uetSrcPort(ev))
	h |= 1 // 0 marks an entry not computed
	t.evh[ev] = h
	return h
}

// uetSrcPort is the UDP source port of entropy ev: 0..16383 fall in the
// ephemeral range 49152..65535, as RoCE's source ports do, and the map is
// one to one over all 65536.
func uetSrcPort(ev uint16) int { return int(ev ^ 0xc000) }

// nextEntropy picks a packet's EV (UecMpReps::nextEntropy).
func (s *sim) nextEntropy(t *uetTx) uint16 {
	n := s.u.evs
	switch s.u.lb {
	case "ecmp":
		return 0
	case "oblivious":
		return s.obliviousEntropy(t, n)
	}
	r := &t.reps
	if r.expl > 0 {
		r.expl--
		return uint16(s.rng.IntN(n))
	}
	if r.frozen {
		if r.count == 0 {
			return uint16(s.rng.IntN(n))
		}
		ev := r.buf[r.fhead]
		if r.valid[r.fhead] {
			r.fresh--
		}
		r.valid[r.fhead] = false
		r.fhead = (r.fhead + 1) % r.count
		return ev
	}
	if r.count == 0 || r.fresh == 0 {
		return uint16(s.rng.IntN(n))
	}
	i := (r.head - r.fresh + repsBufferSize) % repsBufferSize
	r.valid[i] = false
	r.fresh--
	return r.buf[i]
}

// obliviousEntropy walks the n EVs in rounds, each EV once a round, in
// an order that changes every round (UecMpOblivious::nextEntropy: the
// index XOR a random mask for a power-of-two n; otherwise the index plus a
// random offset).
func (s *sim) obliviousEntropy(t *uetTx, n int) uint16 {
	o := &t.obl
	if !o.init {
		o.init, o.mask = true, s.rng.IntN(n)
	}
	var ev int
	if n&(n-1) == 0 {
		ev = (o.idx ^ o.mask) & (n - 1)
	} else {
		ev = (o.idx + o.mask) % n
	}
	if o.idx++; o.idx == n {
		o.idx, o.mask = 0, s.rng.IntN(n)
	}
	return uint16(ev)
}

// Path feedback to REPS (UecMultipath::PathFeedback).
const (
	pathGood uint8 = iota
	pathECN
	pathNACK
	pathTimeout
)

// repsFeedback is UecMpReps::processEv: good EVs are recycled; a timeout
// freezes the buffer (with trimming: losses then mean failures, not
// congestion) until repsFreezePs have passed.
func (s *sim) repsFeedback(t *uetTx, ev uint16, fb uint8) {
	if s.u.lb != "reps" {
		return
	}
	r := &t.reps
	if fb == pathTimeout && !r.frozen && r.expl == 0 && s.u.trimming {
		r.frozen = true
		r.exitAt = s.now + repsFreezePs
	}
	if r.frozen && s.now > r.exitAt {
		r.frozen = false
		r.buf, r.valid = [repsBufferSize]uint16{}, [repsBufferSize]bool{}
		r.head, r.count, r.fresh, r.fhead = 0, 0, 0, 0
		r.expl = repsExplore
	}
	if fb == pathGood {
		if !r.valid[r.head] {
			r.fresh++
		}
		r.buf[r.head] = ev
		r.valid[r.head] = true
		r.head = (r.head + 1) % repsBufferSize
		r.fresh = min(r.fresh, repsBufferSize)
		r.count = min(r.count+1, repsBufferSize)
	}
}
