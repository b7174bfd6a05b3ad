package sim

// RCCC, UET's receiver credit control (uec.cpp UecSrc::computePullTarget,
// handlePull; UecSink::pull; UecPullPacer::doNextEvent).

// uetPacer is a receiver NIC's credit pacer (UecPullPacer): the flows
// waiting for credit, served round robin, one grant per tick.
type uetPacer struct {
	queue  []int32
	active bool
	pulls  int64
}

// stopSpeculating drops what is left of the first window's speculative
// credit once the receiver is heard from.
func (t *uetTx) stopSpeculating() {
	if t.speculating {
		t.speculating = false
		t.credit = min(t.credit, 0)
	}
}

// pullTarget is the cumulative credit flow f asks for after a send: what
// it has to send (new and retransmissions), at most a window and an MTU,
// less its credit, shared with the NIC's other senders, on top of what it
// was granted.
func (s *sim) pullTarget(f *flowState, t *uetTx) int64 {
	u := s.u
	end := min(f.total, f.avail, f.winEnd)
	backlog := 0.0
	if end > f.sndNxt {
		backlog = float64(min(end-f.sndNxt, 1<<20)) * u.mtuWire
	}
	want := backlog + float64(len(t.rtxq))*u.mtuWire
	want = min(want, t.cwnd+u.mtuWire, t.maxwnd0) - t.credit
	if t.speculating && want < u.mtuWire && backlog > 0 {
		want = u.mtuWire
	}
	p := &s.ports[f.src]
	if n := p.liveFlows(); n > 1 {
		want /= float64(n)
	}
	return max(t.pulled+int64(want), 0)
}

// uetPull takes a grant at flow fi's sender.
func (s *sim) uetPull(fi int32, f *flowState, pk *packet) {
	if f.sendDone {
		return
	}
	t := s.uetTxOf(f)
	t.stopSpeculating()
	if pk.psn > t.pulled {
		t.credit = min(t.credit+float64(pk.psn-t.pulled), t.maxwnd0)
		t.pulled = pk.psn
	}
	s.uetUnpark(fi)
}

// pullRequest notes the pull target a data packet (or a trimmed header,
// whose retransmission needs credit too) of flow fi carried at receiver
// port pi and queues the flow at the port's pacer when it wants more.
func (s *sim) pullRequest(pi, fi int32, r *uetRx, target int64, trimmed bool) {
	if trimmed {
		target = max(target, r.pullTarget) + int64(s.u.mtuWire)
	}
	if target <= r.pullTarget {
		return
	}
	r.pullTarget = target
	if r.inPull {
		return
	}
	r.inPull = true
	pc := &s.u.pacers[pi]
	pc.queue = append(pc.queue, fi)
	if !pc.active {
		pc.active = true
		s.push(s.now, evUETPull, pi, 0, 0)
	}
}

// uetPullTick is receiver port pi's pacer: it grants the flow at the
// head of its queue up to 4 MTUs of what it asked for, requeues it while
// it wants more, and waits the grant's time at 0.99 of the line rate.
func (s *sim) uetPullTick(pi int32) {
	pc := &s.u.pacers[pi]
	if len(pc.queue) == 0 {
		pc.active = false
		return
	}
	fi := pc.queue[0]
	pc.queue = pc.queue[1:]
	f := &s.flows[fi]
	r := f.urx
	prev := r.granted
	r.granted = min(r.granted+s.u.creditPerPull, max(r.pullTarget, prev))
	grant := r.granted - prev
	if r.pullTarget > r.granted && !f.rcvDone {
		pc.queue = append(pc.queue, fi)
	} else {
		r.inPull = false
	}
	if grant > 0 {
		pc.pulls++
		k, pk := s.ctrlPacket(fi, pktPull, r.granted, s.cnpDSCP, AckWireBytes)
		pk.prio = s.nodes[s.ports[pi].node].prio[pk.dscp]
		s.queueCtrl(pi, k)
	}
	bytes := max(grant, 1024)
	p := &s.ports[pi]
	s.push(s.now+int64(float64(bytes)*8e6/(p.lineMbps*0.99)), evUETPull, pi, 0, 0)
}
