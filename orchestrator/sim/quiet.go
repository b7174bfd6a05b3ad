package sim

// Quiet arrivals: a data packet that reaches its receiver's NIC in order
// and does nothing there but count itself and, perhaps, acknowledge (not
// the last packet of a message or of the flow, no CNP due) is taken when
// the switch port puts it on the wire, on the clock of its arrival, and
// its ACK, if one is due, is scheduled for the arrival's time
// (evAckDue), in the place the arrival's own event would have taken in
// the queue. At bench-compare's 8:1 incast every data packet but the
// flows' last arrives so, 195,000, and one in seven schedules its ACK.
//
// Taking it early is exact where nothing reads or changes what it touches
// before it would have arrived. The receiver's QP state is changed only
// by that QP's arrivals at that NIC, which come over the one link in the
// order they were sent (a quiet arrival never overtakes an arrival of its
// QP still on the way as an event: flowState.arriveBy); what the sender
// and the fabric see of it is the ACK, which leaves at the same time and
// in the same order as before. The counters run on the arrival's clock,
// so latency, the measurement window and the ACK timer read what they
// would have. What could read them early is a time series sample (the
// goodput series read what was delivered): a sample counts none of the
// bytes taken early for arrivals at or after its time
// (sampleWithoutAhead), and finds the fabric busy while any is still to
// come, as their events would have been. What could change a packet's
// fate is a link fault or a pause storm (a link going down loses what is
// on its wire), so runs with either take none early, and neither do
// InfiniBand (credits return as events) or UET (its receiver has a state
// machine of its own). A quiet arrival counts as the event it was
// (quietArrived; Result.Events is the same), its ACK's event not again.
//
// The split engine's partitions take none. Where its windows begin and
// end follows the partitions' pending events, and an event from another
// partition takes its place among events of the same time by the window
// it comes in (takeIn), so a run with fewer events pending can order such
// ties differently (tried: the 1024-GPU ring AllReduce on 2 threads
// moved, its slowest flow by 0.02%). Counting each partition's early
// arrivals among its next events until their time kept the windows and
// made that run the same, but the 1024-host bench permutation then ran
// 1-2% slower on one thread (7% of its arrivals qualified, and for the
// others the check read the QP's receiver line a second time).

// eventCount is the events the run processed: those it dispatched and
// the quiet arrivals it took without one (an ACK's evAckDue takes back
// its own count, as its arrival's was counted here).
func (s *sim) eventCount() uint64 { return s.events + s.quietArrived }

// mayArriveQuietly says whether this run takes quiet arrivals early at
// all (see above).
func (s *sim) mayArriveQuietly() bool {
	return !s.arriveAlways && s.part == nil && s.par == nil && s.ib == nil && !s.uet &&
		len(s.cfg.Faults) == 0 && len(s.cfg.Storms) == 0
}

// arriveQuietly takes packet k, due at host port pi at time at, now if it
// is a quiet arrival, and reports whether it did; if not, the caller
// schedules its arrival, which no later quiet arrival of its QP may
// overtake. Taken, it is what hostReceive, receiveData and deliver do
// with such a packet: it is counted (countDelivered) on the clock of its
// arrival, and acknowledged then if deliverActs says so.
func (s *sim) arriveQuietly(pi, k int32, at int64) bool {
	pk := &s.pkts[k]
	if pk.kind != pktData {
		return false // an ACK, NAK or CNP acts on its sender
	}
	fi := pk.flow
	f := &s.flows[fi]
	ack, quiet := s.arrivesQuietly(pi, pk, f, at)
	if !quiet {
		f.arriveBy = max(f.arriveBy, at)
		return false
	}
	payload, sent := int64(pk.payload), pk.sent
	s.release(k)
	s.countDelivered(f, payload, sent, at)
	if at >= s.sampleAt {
		s.ahead = append(s.ahead, aheadArrival{flow: fi, at: at, bytes: payload})
	}
	if ack {
		f.pendingAck = 0
		f.lastAck = at
		s.push(at, evAckDue, fi, int32(uint32(f.rcvNxt)), uint32(uint64(f.rcvNxt)>>32))
	}
	s.quietArrived++
	s.lastEvent = max(s.lastEvent, at) // the event it was (noteEvent)
	return true
}

// arrivesQuietly says whether data packet pk of QP f, due at host port pi
// at time at, is a quiet arrival (and whether it is acknowledged): taking
// it changes nothing but the QP's receive counters (and schedules its
// ACK), nothing reads them before then, and every packet of the QP sent
// to the receiver before it has arrived.
func (s *sim) arrivesQuietly(pi int32, pk *packet, f *flowState, at int64) (ack, quiet bool) {
	if at > s.end || f.arriveBy >= s.now {
		return false, false
	}
	if pk.dst != pi || pk.lost || s.ports[pi].storming != 0 {
		return false, false
	}
	if pk.psn != f.rcvNxt || len(f.ooo) > 0 {
		return false, false // out of order, or placed packets would complete behind it
	}
	if _, due := s.cnpDue(pi, f, pk.ce, at); due {
		return false, false
	}
	last, msgEnd, ack := s.deliverActs(f, f.rcvNxt+1, f.pendingAck+1, at)
	return ack, !last && !msgEnd
}

// aheadArrival is a quiet arrival taken early for a time at or after the
// next sample's: its QP and bytes, which that sample must not count.
type aheadArrival struct {
	flow  int32
	at    int64
	bytes int64
}

// sampleWithoutAhead takes the time series sample due now (takeSample)
// as the fabric is with every arrival due now or later still on the wire:
// the bytes of the quiet arrivals taken early for those times are out of
// their QPs' delivered bytes while it reads them. Those due before now
// have arrived and are forgotten.
func (s *sim) sampleWithoutAhead() int64 {
	kept := s.ahead[:0]
	for _, a := range s.ahead {
		if a.at >= s.now {
			kept = append(kept, a)
			s.flows[a.flow].delivered -= a.bytes
		}
	}
	s.ahead = kept
	next := s.takeSample()
	for _, a := range s.ahead {
		s.flows[a.flow].delivered += a.bytes
	}
	return next
}
