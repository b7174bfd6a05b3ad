package sim

import (
	"math"
	"math/bits"
	"slices"
)

// The Ultra Ethernet transport (Config.Transport TransportUET), following
// the UEC 1.0 specification's semantics and, where it is silent, those of
// the UEC's reference model uet-htsim (htsim/sim/uec.cpp, uec_mp.cpp,
// buffer_reps.cpp; datacenter/main_uec.cpp):
//
//   - per-packet entropy: a data packet's ECMP hash mixes the flow's with
//     an entropy value (EV) the sender picks per packet (REPS recycles the
//     EVs that ACKs return unmarked, else takes a fresh random one;
//     oblivious walks them all in shuffled rounds), so the switches' flow
//     hashing sprays;
//   - reliable unordered delivery (RUD): the receiver places any packet,
//     acknowledges with its cumulative PSN and a 64-packet SACK bitmap; the
//     sender keeps per-packet state and retransmits a packet on a NACK at
//     once, on a SACK gap past a reorder tolerance, and on a timeout;
//   - packet trimming: a data packet a switch would drop is cut to its
//     header and sent on the CNP's (strict) class; the receiver NACKs it;
//   - NSCC: a window per flow from queueing delay and ECN marks
//     (uet_nscc.go), optionally RCCC, receiver credit (uet_rccc.go).
//
// This file holds the settings, the switches' trimming and the reliable
// delivery at both ends; uet_lb.go the entropies, uet_result.go what a
// run reports. The hooks in engine.go are one branch each on s.uet.

// UETParams are the Ultra Ethernet transport's settings (Config.Transport
// TransportUET). Zero values mean the cited defaults (transport.DefaultUET
// names their sources).
type UETParams struct {
	// LB is "reps" (or ""), "oblivious" or "ecmp" (one EV per flow).
	LB string
	// EVs is the number of entropy values (0: 64).
	EVs int
	// NoTrimming turns packet trimming off: a full queue drops.
	NoTrimming bool
	// TrimBytes is a trimmed packet's frame size (0: 64).
	TrimBytes int
	// NoCC keeps every window at its maximum (cc: none).
	NoCC bool
	// RCCC adds receiver credit control to NSCC: each receiver's pacer
	// grants its active senders credit at 0.99 of its line rate, 4 MTUs
	// a grant (uec.cpp UecPullPacer, UecSink::_mtus_per_pull), and a
	// sender sends only with credit, its first window speculatively.
	RCCC bool
	// TargetQDelayNs (0: 0.75 x the network RTT with trimming, the RTT
	// without) and BaseRTTNs (0: the longest unloaded round trip of the
	// flows' paths) are NSCC's target queueing delay and network RTT.
	TargetQDelayNs float64
	BaseRTTNs      float64
	// QAGate (0: 3), Gamma (0: 0.8), DelayAlpha (0: 0.0125), MaxCwndBDP
	// (0: 1.5): NSCC's quick adapt gate, multiplicative decrease factor,
	// delay average weight and largest window in BDPs.
	QAGate     int
	Gamma      float64
	DelayAlpha float64
	MaxCwndBDP float64
	// RTONs is the retransmission timeout (0: 100 µs).
	RTONs float64
	// AckBytes is the receiver's ACK coalescing (0: 16384 bytes).
	AckBytes int
	// AckTimerNs bounds how long a received packet waits for its ACK
	// (0: 4 network RTTs; negative: no timer, as in uet-htsim).
	AckTimerNs float64
	// SACKReorderPkts is the SACK retransmission's reorder tolerance (0:
	// with trimming 64 packets, a whole SACK bitmap; without, SLEEK's
	// max(1.5 x cwnd, 5 packets)).
	SACKReorderPkts int
}

// Packet flags (packet.uflags).
const (
	uetTrimmed uint8 = 1 << iota // cut to its header by a switch
	uetAR                        // ACK request: acknowledge at once
	uetLastHop                   // trimmed at the switch before the receiver
	// uetRtx marks a retransmitted copy; ACKs echo it (rtx_echo), so the
	// sender takes a round-trip sample only from an ACK whose copy it can
	// tell (UecSrc::validateSendTs).
	uetRtx
)

// uetMaxInFlight bounds a flow's PSN range between its cumulative ACK and
// the highest PSN sent (uec.h uecMaxInFlightPkts); an ACK's reference
// PSN is carried as a 16-bit offset from its cumulative PSN.
const uetMaxInFlight = 1 << 14

// preambleIFG is what a frame costs on the wire beyond its bytes.
const preambleIFG = 20

// uetRun is a run's resolved UET settings, in ps and bytes.
type uetRun struct {
	lb         string
	evs        int
	trimming   bool
	trimWire   int32
	cc         bool
	netRTT     float64 // ps
	targetQ    float64 // ps
	qaGate     uint
	gamma      float64
	delayAlpha float64
	maxBDP     float64
	rto        int64 // ps
	ackBytes   int64
	ackTimer   int64 // ps, 0 none
	// RCCC: the credit per grant (bytes) and each receiver port's pacer.
	rccc          bool
	creditPerPull int64
	pacers        []uetPacer
	reorder       int64
	mtuWire       float64
	mss           float64
	// NSCC's gains (initNsccParams), scaled from the reference network
	// (100 Gb/s, 12 µs).
	alpha, fi, eta, fiScale float64
	qaThreshold             float64
	adjustPeriod            float64
	adjustBytes             float64
}

// uetPkt is the sender's record of one PSN.
type uetPkt struct {
	sentAt  int64
	size    int32 // wire bytes
	ev      uint16
	state   uint8
	rtx     uint8 // retransmissions so far (saturating)
	sackRtx bool  // retransmitted once for a SACK gap since its last send
	// why is what queued the PSN for retransmission (psRtx): the
	// retransmission is counted by it when it is sent, not when queued,
	// since an ACK can retire a queued PSN before it leaves (acked).
	why uint8
}

// Causes of a retransmission (uetPkt.why), each counted in uetTx when the
// copy is sent.
const (
	rtxNACK uint8 = iota
	rtxSACK
	rtxRTO
)

const (
	psNone uint8 = iota
	psOut        // in flight
	psRtx        // queued for retransmission
	psAcked
)

// uetTx is a flow's sender state.
type uetTx struct {
	pkts     []uetPkt // ring by PSN, len a power of two
	rtxq     []int64  // PSNs queued for retransmission, ascending
	inFlight float64
	// sacked counts PSNs above the cumulative ACK that SACKs acked;
	// highSack is the highest of them and highSackAt when it was sent.
	sacked     int64
	highSack   int64
	highSackAt int64

	// recvd is the receiver's byte count the last ACK carried.
	recvd float64

	cwnd, maxwnd, minCwnd float64
	baseRTT, bdp, lineBps float64 // ps, bytes, bytes/ps
	avgDelay              float64
	achieved, received    float64
	incBytes              float64
	bytesToIgnore         float64
	bytesIgnored          float64
	fiCount               float64
	increase, triggerQA   bool
	lastAdjust, lastDec   int64
	qaEnd                 int64

	reps struct {
		buf    [repsBufferSize]uint16
		valid  [repsBufferSize]bool
		head   int
		count  int
		fresh  int
		frozen bool
		fhead  int
		exitAt int64
		expl   int
	}
	// obl is the oblivious walk: the index in the round and its mask.
	obl struct {
		idx, mask int
		init      bool
	}
	evsUsed []uint64
	// evh caches the ECMP hash of each entropy (evHash).
	evh []uint64

	// The retransmissions sent, by what queued them: their sum is the
	// flow's f.retx, what the run's Totals.Retransmits adds up.
	nackRtx, sackRtx, rtoRtx int64

	// RCCC (uec.cpp): the credit left, the receiver's cumulative grant
	// last heard (pullno), and whether the first window's speculative
	// credit still stands; maxwnd0 is the configured max window.
	credit      float64
	pulled      int64
	speculating bool
	maxwnd0     float64
}

// uetRx is a flow's receiver state: the PSNs received beyond the
// cumulative one, as a bitset of words from word wbase.
type uetRx struct {
	bits     []uint64
	wbase    int64
	accepted int64
	recvd    int64 // data bytes received, duplicates aside
	started  bool
	// RCCC: the highest pull target the sender asked for, the cumulative
	// credit granted, and whether the flow waits in the pacer's queue.
	pullTarget, granted int64
	inPull              bool
	// The ACK timer: whether a received packet waits for an ACK, whether
	// a timer event is pending, and the last packet received.
	unacked, timerSet bool
	last              packet
}

func (s *sim) buildUET() error {
	p := s.cfg.UET
	u := &uetRun{lb: p.LB, evs: p.EVs, trimming: !p.NoTrimming, cc: !p.NoCC, qaGate: 3, gamma: 0.8, delayAlpha: 0.0125, maxBDP: 1.5,
		rto: 100_000_000, ackBytes: 16384}
	switch u.lb {
	case "":
		u.lb = "reps"
	case "reps", "oblivious", "ecmp":
	default:
		return errorf("UET load balancing %q: use reps, oblivious or ecmp", p.LB)
	}
	if u.evs == 0 {
		u.evs = 64
	}
	trim := p.TrimBytes
	if trim == 0 {
		trim = 64
	}
	switch {
	case u.evs < 1 || u.evs > 65536:
		return errorf("UET entropy values %d out of range: use 1..65536 (0 means 64)", p.EVs)
	case trim < 64 || trim > 1024:
		return errorf("UET trimmed size %d bytes out of range: use 64..1024 (0 means 64)", p.TrimBytes)
	case p.QAGate < 0 || p.QAGate > 16:
		return errorf("NSCC qa_gate %d out of range: use 1..16 (0 means 3)", p.QAGate)
	case bad01(p.Gamma) || bad01(p.DelayAlpha):
		return errorf("NSCC gamma %v and delay_alpha %v must be in (0, 1] (0 means 0.8 and 0.0125)", p.Gamma, p.DelayAlpha)
	case p.MaxCwndBDP < 0 || p.MaxCwndBDP > 100 || math.IsNaN(p.MaxCwndBDP):
		return errorf("NSCC max window %v BDPs out of range: use up to 100 (0 means 1.5)", p.MaxCwndBDP)
	case p.RTONs < 0 || p.RTONs > maxTimeNs || math.IsNaN(p.RTONs):
		return errorf("UET RTO %v ns out of range (0 means 100 µs)", p.RTONs)
	case p.TargetQDelayNs < 0 || p.TargetQDelayNs > maxTimeNs || p.BaseRTTNs < 0 || p.BaseRTTNs > maxTimeNs:
		return errorf("NSCC target delay %v ns and base RTT %v ns must be in 0..%d (0 means derived)", p.TargetQDelayNs, p.BaseRTTNs, int64(maxTimeNs))
	case p.AckBytes < 0 || p.SACKReorderPkts < 0:
		return errorf("UET ack bytes %d and SACK reorder tolerance %d must not be negative (0 means 16384 and max(1.5 x cwnd, 5))", p.AckBytes, p.SACKReorderPkts)
	}
	u.trimWire = int32(trim + preambleIFG)
	if p.QAGate > 0 {
		u.qaGate = uint(p.QAGate)
	}
	if p.Gamma > 0 {
		u.gamma = p.Gamma
	}
	if p.DelayAlpha > 0 {
		u.delayAlpha = p.DelayAlpha
	}
	if p.MaxCwndBDP > 0 {
		u.maxBDP = p.MaxCwndBDP
	}
	if p.RTONs > 0 {
		u.rto = int64(p.RTONs * 1000)
	}
	if p.AckBytes > 0 {
		u.ackBytes = int64(p.AckBytes)
	}
	u.reorder = int64(p.SACKReorderPkts)
	if p.AckTimerNs > maxTimeNs || math.IsNaN(p.AckTimerNs) {
		return errorf("UET ACK timer %v ns out of range (0 means 4 network RTTs, negative none)", p.AckTimerNs)
	}
	if p.RCCC {
		if p.NoCC {
			return errorf("UET RCCC runs beside NSCC: leave NoCC off")
		}
		u.rccc = true
		u.creditPerPull = 4 * s.mtu
		u.pacers = make([]uetPacer, len(s.ports))
	}
	u.mss = float64(s.mtu)
	u.mtuWire = float64(s.fullWire())

	// The network: its longest unloaded round trip over the flows' paths
	// (the first uetRTTFlows of them: a fabric's paths repeat) and its
	// fastest NIC, as main_uec.cpp derives network_rtt and linkspeed.
	lineMbps := 0.0
	for i := range s.ports {
		if s.ports[i].host {
			lineMbps = max(lineMbps, s.ports[i].lineMbps)
		}
	}
	u.netRTT = p.BaseRTTNs * 1000
	if u.netRTT == 0 {
		for i := range s.flows[:min(len(s.flows), uetRTTFlows)] {
			f := &s.flows[i]
			u.netRTT = max(u.netRTT, s.unloadedRTT(f.src, f.dst, f.hashFwd, u.mtuWire))
		}
	}
	if u.netRTT <= 0 {
		u.netRTT = 1e6 // no flows: any positive time
	}
	u.targetQ = p.TargetQDelayNs * 1000
	if u.targetQ == 0 {
		u.targetQ = u.netRTT
		if u.trimming {
			u.targetQ = 0.75 * u.netRTT
		}
	}
	// initNsccParams (uec.cpp): gains scaled by the network's BDP and
	// target against a 100 Gb/s, 12 µs reference.
	const refRTT = 12e6                 // ps
	refBDP := refRTT * 100e9 / 8 / 1e12 // bytes
	netBDP := u.netRTT * lineMbps * 1e6 / 8 / 1e12
	a := netBDP / refBDP
	b := u.targetQ / refRTT
	u.alpha = 4 * u.mss * a * b / u.targetQ
	u.fi = 5 * u.mss * a
	u.eta = 0.15 * u.mss * a
	u.fiScale = 0.25 * a
	u.qaThreshold = 4 * u.targetQ
	switch {
	case p.AckTimerNs == 0:
		u.ackTimer = int64(4 * u.netRTT)
	case p.AckTimerNs > 0:
		u.ackTimer = int64(p.AckTimerNs * 1000)
	}
	u.adjustPeriod = u.netRTT
	u.adjustBytes = 8 * u.mtuWire
	s.u = u
	s.uet = true
	s.rto = u.rto
	s.retries = -1 // RUD retransmits until the run ends
	return nil
}

// uetRTTFlows bounds the flows whose paths set the network RTT.
const uetRTTFlows = 4096

func bad01(x float64) bool { return x < 0 || x > 1 || math.IsNaN(x) }

// unloadedRTT is the round trip of a full data packet from NIC src to
// NIC dst along hash h and of an ACK back the same links, NIC delays
// included, in ps.
func (s *sim) unloadedRTT(src, dst int32, h uint64, mtuWire float64) float64 {
	ack := int64(AckWireBytes)
	hop := func(p *port) float64 {
		return float64(p.serPs(int64(mtuWire)) + p.serPs(ack) + 2*p.propPs)
	}
	rtt := hop(&s.ports[src]) + 2*float64(s.nicDelay)
	s.walk(src, dst, h, func(_, out int32) { rtt += hop(&s.ports[out]) })
	return rtt
}

// --- switches: trimming ---

// uetTrim trims data packet k, which switch port in received and which
// would be dropped on its way to port out, and admits its header on the
// CNP's class instead. It reports false when the packet is not to be
// trimmed (trimming off, not data, or already a header): the caller drops
// it.
func (s *sim) uetTrim(in, out, k int32) bool {
	pk := &s.pkts[k]
	if !s.u.trimming || pk.kind != pktData || pk.uflags&uetTrimmed != 0 {
		return false
	}
	op := &s.ports[out]
	op.c[pk.prio].trimmed++
	pk.uflags |= uetTrimmed
	if op.peerHost {
		pk.uflags |= uetLastHop
	}
	pk.wire = s.u.trimWire
	pk.dscp = s.cnpDSCP
	pk.hops--
	s.switchReceive(in, k)
	return true
}

// --- sender ---

func (s *sim) uetTxOf(f *flowState) *uetTx {
	if f.utx != nil {
		return f.utx
	}
	u := s.u
	t := &uetTx{pkts: make([]uetPkt, 16)}
	t.lineBps = s.ports[f.src].lineMbps * 1e6 / 8 / 1e12
	t.baseRTT = u.netRTT
	t.bdp = t.baseRTT * t.lineBps
	t.maxwnd = max(u.maxBDP*t.bdp, u.mtuWire)
	t.cwnd = t.maxwnd
	t.minCwnd = u.mtuWire
	t.maxwnd0 = t.maxwnd
	if u.rccc {
		t.credit, t.speculating = t.maxwnd, true
	}
	t.evsUsed = make([]uint64, (u.evs+63)/64)
	f.utx = t
	return t
}

func (t *uetTx) rec(psn int64) *uetPkt { return &t.pkts[psn&int64(len(t.pkts)-1)] }

// grow doubles the PSN ring, keeping the records of una..max.
func (t *uetTx) grow(una, hi int64) {
	n := make([]uetPkt, 2*len(t.pkts))
	for p := una; p < hi; p++ {
		n[p&int64(len(n)-1)] = *t.rec(p)
	}
	t.pkts = n
}

// uetHasNew says whether the flow may send a new PSN (posted, within its
// tx depth and the in-flight bound).
func (f *flowState) uetHasNew() bool {
	return f.sndNxt < f.total && f.sndNxt < f.avail && f.sndNxt < f.winEnd && f.sndNxt-f.sndUna < uetMaxInFlight
}

// uetCanSend says whether the flow has a packet its window lets it send.
func (s *sim) uetCanSend(f *flowState) bool {
	if !f.started || f.sendDone {
		return false
	}
	t := s.uetTxOf(f)
	var size float64
	switch {
	case len(t.rtxq) > 0:
		size = float64(t.rec(t.rtxq[0]).size)
	case f.uetHasNew():
		size = float64(s.dataWire(s.payload(f, f.sndNxt), WireOverheadBytes))
	default:
		return false
	}
	if s.u.rccc && t.credit <= 0 {
		return false
	}
	return t.cwnd >= t.inFlight+size
}

// uetNicSend is nicSend's flow round robin for UET flows: a flow sends
// while its window allows, retransmissions first.
func (s *sim) uetNicSend(pi int32, p *port) {
	nf := len(p.flows)
	wake := int64(math.MaxInt64)
	for j := 0; j < nf; j++ {
		idx := p.rrAt(j, nf)
		fi := p.flows[idx]
		if fi < 0 {
			continue
		}
		f := &s.flows[fi]
		if !s.uetCanSend(f) {
			s.park(p, idx)
			continue
		}
		if p.paused(f.prio, s.now) {
			continue
		}
		if f.nextAvail > s.now {
			wake = min(wake, f.nextAvail)
			continue
		}
		p.served(idx, nf)
		s.uetSend(pi, fi)
		return
	}
	s.nicIdle(pi, p, wake)
}

// uetUnpark puts a flow that can send back into its NIC's round robin and
// lets the NIC look.
func (s *sim) uetUnpark(fi int32) {
	f := &s.flows[fi]
	if !f.inRR && s.uetCanSend(f) {
		p := &s.ports[f.src]
		p.flows = append(p.flows, fi)
		f.inRR = true
	}
	s.kick(f.src)
}

// uetSend sends flow fi's next packet: the lowest queued retransmission,
// else its next new PSN, with an entropy from the load balancer.
func (s *sim) uetSend(pi, fi int32) {
	f := &s.flows[fi]
	t := f.utx
	var psn int64
	rtx := len(t.rtxq) > 0
	if rtx {
		psn = t.rtxq[0]
		t.rtxq = t.rtxq[1:]
		f.retx++
	} else {
		psn = f.sndNxt
		f.sndNxt++
		f.sndMax = max(f.sndMax, f.sndNxt)
		if f.sndMax-f.sndUna > int64(len(t.pkts)) {
			t.grow(f.sndUna, f.sndMax-1)
		}
	}
	ev := s.nextEntropy(t)
	t.evsUsed[ev>>6] |= 1 << (ev & 63)
	k, pk := s.dataPacket(fi, psn, WireOverheadBytes)
	pk.hash = s.evHash(f, ev)
	wire := float64(pk.wire)
	r := t.rec(psn)
	n := uint8(0)
	if rtx {
		n = min(r.rtx, 254) + 1
		pk.uflags |= uetRtx
		switch r.why {
		case rtxNACK:
			t.nackRtx++
		case rtxSACK:
			t.sackRtx++
		case rtxRTO:
			t.rtoRtx++
		}
	}
	*r = uetPkt{sentAt: s.now, size: pk.wire, ev: ev, state: psOut, rtx: n}
	t.inFlight += wire
	// An ACK request on every retransmission (sendRtxPacket), on the last
	// new packet there is to send now and on one that fills the window
	// (sendNewPacket), so a sender waiting on any is not left to the
	// receiver's coalescing.
	if rtx || !f.uetHasNew() || t.inFlight+wire >= t.cwnd {
		pk.uflags |= uetAR
	}
	if s.u.rccc {
		t.credit -= wire
		pk.sack = uint64(s.pullTarget(f, t))
	}
	f.lastSend, f.lastWire = s.now, int64(pk.wire)
	f.nextAvail = s.now + s.ports[pi].serPs(int64(pk.wire))
	s.ports[pi].feedCap(s.now, int64(pk.payload))
	s.transmit(pi, k)
}

// queueRtx queues psn for retransmission, keeping the queue ascending.
func (t *uetTx) queueRtx(psn int64) {
	i, _ := slices.BinarySearch(t.rtxq, psn)
	t.rtxq = slices.Insert(t.rtxq, i, psn)
}

// acked marks psn acknowledged and reports whether it was not before.
// In flight is kept as uet-htsim keeps it (processAck): an ACK's
// received bytes take delivered packets out of flight, so a PSN that was
// queued for retransmission (and taken out of flight then) goes back in.
func (t *uetTx) acked(psn int64) bool {
	r := t.rec(psn)
	switch r.state {
	case psOut:
	case psRtx:
		if i, ok := slices.BinarySearch(t.rtxq, psn); ok {
			t.rtxq = slices.Delete(t.rtxq, i, i+1)
		}
		t.inFlight += float64(r.size)
	default:
		return false
	}
	r.state = psAcked
	return true
}

// recOf is psn's record if the ring still holds it.
func (t *uetTx) recOf(f *flowState, psn int64) *uetPkt {
	if psn < 0 || psn >= f.sndMax || psn < f.sndMax-int64(len(t.pkts)) {
		return nil
	}
	return t.rec(psn)
}

// uetAck handles an ACK at flow fi's sender (UecSrc::processAck): the
// receiver's byte count takes what arrived out of flight, the
// cumulative PSN and the SACK bitmap retire records, and the packet the
// ACK answers gives a round-trip sample while its record is in flight.
func (s *sim) uetAck(fi int32, f *flowState, pk *packet) {
	if f.sendDone {
		return
	}
	t := s.uetTxOf(f)
	t.stopSpeculating()
	cum := min(pk.psn, f.sndMax)
	ref := cum + int64(pk.payload)
	var newly float64
	if recvd := float64(pk.sent); recvd > t.recvd {
		newly = recvd - t.recvd
		t.recvd = recvd
	}
	t.achieved += newly
	t.received += newly
	t.bytesIgnored += newly
	t.inFlight -= newly
	raw, ev := -1.0, uint16(0)
	if r := t.recOf(f, ref); r != nil {
		ev = r.ev
		echo := pk.uflags&uetRtx != 0
		if r.state == psOut && (r.rtx == 0 && !echo || r.rtx == 1 && echo) {
			raw = float64(s.now - r.sentAt)
		}
	}
	if cum > f.sndUna {
		for p := f.sndUna; p < cum; p++ {
			if t.rec(p).state == psAcked {
				t.sacked-- // SACKed before, now below the cumulative PSN
				continue
			}
			t.acked(p)
		}
		f.sndUna = cum
		f.lastProgress = s.now
		f.winEnd = s.windowEnd(f)
		if f.ping != nil {
			s.pingPosted(fi)
		}
	}
	if bm := pk.sack; bm != 0 {
		base := max(ref-63, cum+1)
		for bm != 0 {
			i := int64(bits.TrailingZeros64(bm))
			bm &= bm - 1
			if p := base + i; p < f.sndMax && t.acked(p) {
				t.sacked++
				if p > t.highSack {
					t.highSack, t.highSackAt = p, t.rec(p).sentAt
				}
			}
		}
	}
	delay := t.avgDelay
	if raw >= 0 {
		t.updateBaseRTT(raw, s.u.maxBDP)
		if raw >= t.baseRTT {
			s.updateDelay(t, raw, true, pk.ce)
			delay = raw - t.baseRTT
		}
	}
	fb := pathGood
	if pk.ce {
		fb = pathECN
	}
	s.repsFeedback(t, ev, fb)
	if s.u.cc {
		s.nsccOnAck(t, pk.ce, delay, newly)
	}
	if f.total != math.MaxInt64 && f.sndUna >= f.total {
		f.sendDone = true
		// Done: only the counters stay (collectives run many flows).
		t.rtxq, t.pkts = nil, nil
		s.retire(f.src, fi)
		return
	}
	s.sackGaps(f, t)
	s.uetUnpark(fi)
}

// sackGaps retransmits the holes below the highest SACKed PSN once enough
// later packets arrived, each once per send and only if it was sent before
// that packet (so a retransmission still on its way is not resent). The reorder tolerance decides how
// much of spraying's reordering passes for loss: with trimming a packet
// the fabric would drop is NACKed, so a hole is a loss only when a whole
// SACK bitmap (64 packets) has arrived past it (fewer retransmit packets
// merely late on a deeper path: at 5 packets, the 8:1 incast of
// TestUETAgainstHtsim resent ~500 for nothing); without trimming it is
// SLEEK's max(1.5 x cwnd, 5 packets) (uec.cpp runSleek), losses being
// the rule under congestion.
func (s *sim) sackGaps(f *flowState, t *uetTx) {
	thr := s.u.reorder
	switch {
	case thr > 0:
	case s.u.trimming:
		thr = 64
	default:
		thr = max(int64(1.5*min(t.cwnd, t.maxwnd)/s.u.mtuWire), 5)
	}
	if t.sacked < thr {
		return
	}
	for p := f.sndUna; p < min(t.highSack, f.sndUna+64); p++ {
		r := t.rec(p)
		if r.state == psOut && !r.sackRtx && r.sentAt < t.highSackAt {
			r.state, r.why = psRtx, rtxSACK
			r.sackRtx = true
			t.inFlight -= float64(r.size)
			t.queueRtx(p)
		}
	}
}

// uetNack handles a NACK at flow fi's sender (UecSrc::processNack): the
// packet is queued for retransmission at once.
func (s *sim) uetNack(fi int32, f *flowState, pk *packet) {
	f.naksRecv++
	if f.sendDone {
		return
	}
	t := s.uetTxOf(f)
	psn := pk.psn
	if psn < f.sndUna || psn >= f.sndMax {
		return
	}
	r := t.rec(psn)
	if r.state != psOut {
		return // acknowledged or queued meanwhile
	}
	t.stopSpeculating()
	raw := float64(s.now - pk.sent)
	t.updateBaseRTT(raw, s.u.maxBDP)
	if s.u.cc {
		// With RCCC a trim at the last hop is the receiver's to pace,
		// not the window's (updateCwndOnNack_NSCC).
		s.nsccOnNack(t, float64(r.size), !s.u.rccc || pk.uflags&uetLastHop == 0)
	}
	r.state, r.why = psRtx, rtxNACK
	r.sackRtx = false
	t.inFlight -= float64(r.size)
	t.queueRtx(psn)
	ev := r.ev
	if pk.uflags&uetLastHop != 0 {
		fb := pathGood
		if pk.ce {
			fb = pathECN
		}
		s.repsFeedback(t, ev, fb)
	} else {
		s.repsFeedback(t, ev, pathNACK)
	}
	s.uetUnpark(fi)
}

// uetRTO is the retransmission timer of flow fi: every packet in flight
// longer than the RTO is queued again (rtxTimerExpired, which takes them
// oldest first one expiry at a time), and the timer is set for the
// oldest one left.
func (s *sim) uetRTO(fi int32) {
	f := &s.flows[fi]
	if f.sendDone {
		return
	}
	next := s.now + s.u.rto
	if t := f.utx; t != nil {
		fired := false
		for p := f.sndUna; p < f.sndMax; p++ {
			r := t.rec(p)
			if r.state != psOut {
				continue
			}
			if r.sentAt+s.u.rto <= s.now {
				r.state, r.why = psRtx, rtxRTO
				r.sackRtx = false
				t.inFlight -= float64(r.size)
				if s.u.cc {
					t.cwnd = max(t.cwnd-float64(r.size), t.minCwnd)
				}
				t.queueRtx(p)
				fired = true
			} else {
				next = min(next, r.sentAt+s.u.rto)
			}
		}
		if fired {
			s.lastEvent = max(s.lastEvent, s.now) // it acts (noteEvent)
			if s.u.rccc && t.credit <= 0 {
				// The sender's RTS: the receiver lets a timed-out packet
				// out (UecSrc::sendRTS, answered by a pull).
				t.credit = s.u.mtuWire
			}
			f.timeouts++
			s.repsFeedback(t, 0, pathTimeout)
			s.uetUnpark(fi)
		}
	}
	s.push(next, evRTO, fi, 0, 0)
}

// --- receiver ---

func (r *uetRx) has(psn int64) bool {
	w := psn>>6 - r.wbase
	return w >= 0 && w < int64(len(r.bits)) && r.bits[w]&(1<<(psn&63)) != 0
}

func (r *uetRx) mark(psn int64, on bool) {
	w := psn>>6 - r.wbase
	if on {
		for w >= int64(len(r.bits)) {
			r.bits = append(r.bits, 0)
		}
		r.bits[w] |= 1 << (psn & 63)
		return
	}
	if w >= 0 && w < int64(len(r.bits)) {
		r.bits[w] &^= 1 << (psn & 63)
	}
}

// bitmap is the 64 received bits from base on.
func (r *uetRx) bitmap(base int64) uint64 {
	var m uint64
	for i := range int64(64) {
		if r.has(base + i) {
			m |= 1 << i
		}
	}
	return m
}

// trim drops the words wholly below the cumulative PSN.
func (r *uetRx) trim(cum int64) {
	if d := cum>>6 - r.wbase; d > 0 {
		if d >= int64(len(r.bits)) {
			r.bits = r.bits[:0]
		} else {
			r.bits = append(r.bits[:0], r.bits[d:]...)
		}
		r.wbase += d
	}
}

// uetReceive handles what a UET NIC receives (hostReceive's UET branch).
func (s *sim) uetReceive(pi int32, pk *packet) {
	f := &s.flows[pk.flow]
	switch pk.kind {
	case pktData:
		s.uetData(pi, pk.flow, f, pk)
	case pktAck:
		s.uetAck(pk.flow, f, pk)
	case pktNak:
		s.uetNack(pk.flow, f, pk)
	case pktPull:
		s.uetPull(pk.flow, f, pk)
	}
}

func (s *sim) uetData(pi, fi int32, f *flowState, pk *packet) {
	r := f.urx
	if r == nil {
		r = &uetRx{wbase: 0}
		f.urx = r
	}
	psn := pk.psn
	if s.u.rccc {
		s.pullRequest(pi, fi, r, int64(pk.sack), pk.uflags&uetTrimmed != 0)
	}
	dup := psn < f.rcvNxt || r.has(psn) || f.rcvDone
	if pk.uflags&uetTrimmed != 0 {
		if dup {
			s.uetSendCtrl(pi, fi, pktAck, psn, pk)
		} else {
			s.uetSendCtrl(pi, fi, pktNak, psn, pk)
		}
		return
	}
	if dup {
		// The sender is confused: acknowledge at once.
		s.uetSendCtrl(pi, fi, pktAck, psn, pk)
		return
	}
	force := !r.started || pk.uflags&uetAR != 0
	r.started = true
	r.accepted += int64(pk.wire)
	r.recvd += int64(pk.wire)
	s.uetPlace(f, int64(pk.payload), pk.sent)
	old := f.rcvNxt
	if psn == f.rcvNxt {
		f.rcvNxt++
		for r.has(f.rcvNxt) {
			r.mark(f.rcvNxt, false)
			f.rcvNxt++
		}
		r.trim(f.rcvNxt)
	} else {
		r.mark(psn, true)
	}
	last := f.total != math.MaxInt64 && f.rcvNxt >= f.total
	msgEnd := false
	if (f.ring != nil || f.stream != nil || f.ping != nil) && f.rcvNxt > old {
		// Messages complete in order, as the cumulative PSN passes their
		// last packet.
		msgEnd = f.rcvNxt/f.perMsg > old/f.perMsg
	}
	if pk.ce || force || last || msgEnd || r.accepted >= s.u.ackBytes {
		r.accepted = 0
		s.uetSendCtrl(pi, fi, pktAck, psn, pk)
	} else if s.u.ackTimer > 0 {
		r.unacked, r.last = true, *pk
		if !r.timerSet {
			r.timerSet = true
			s.push(s.now+s.u.ackTimer, evUETAck, fi, 0, 0)
		}
	}
	if msgEnd {
		for m := old / f.perMsg; m < f.rcvNxt/f.perMsg; m++ {
			switch {
			case f.ring != nil:
				s.ringReceived(f, m)
			case f.stream != nil:
				s.received(f.stream.self)
			default:
				s.pingReceived(f)
			}
		}
	}
	if last {
		s.uetComplete(f)
	}
}

// uetAckTimer acknowledges what flow fi's receiver holds unacknowledged
// once the timer runs out. The coalescing alone can hold a sender's whole
// window when the window shrank after the packets left without an ACK
// request (quick adapt, a decrease): the sender would wait for its RTO.
// uet-htsim has no such timer and does wait.
func (s *sim) uetAckTimer(fi int32) {
	f := &s.flows[fi]
	r := f.urx
	r.timerSet = false
	if !r.unacked || f.rcvDone {
		return
	}
	r.accepted = 0
	s.uetSendCtrl(f.dst, fi, pktAck, r.last.psn, &r.last)
}

// uetPlace counts a data packet placed at the receiver (in any order):
// delivered bytes, goodput window and latency, as deliver does.
func (s *sim) uetPlace(f *flowState, payload, sent int64) {
	f.delivered += payload
	s.work.delivered += payload
	if s.inWindow(f, s.now) {
		f.winBytes += payload
	}
	if s.now >= s.warmup {
		if f.hist.counts != nil {
			f.hist.add((s.now - sent) / 1000)
		} else {
			s.allHist.add((s.now - sent) / 1000)
		}
	}
}

// uetComplete completes a flow whose every packet arrived.
func (s *sim) uetComplete(f *flowState) {
	f.rcvDone = true
	f.completeAt = s.now
	s.closeHist(f)
	if f.a2a != nil {
		s.a2aDone(f)
	}
	for _, c := range f.children {
		if s.flows[c].depsLeft--; s.flows[c].depsLeft == 0 {
			s.push(s.now+s.flows[c].f.StartNs*1000, evFlowStart, c, 0, 0)
		}
	}
}

// uetSendCtrl queues an ACK or NACK for data packet d (PSN ref) at NIC
// port pi, on the CNP's class, d's ECN mark echoed. An ACK carries the
// cumulative PSN, the offset of ref from it (payload), the bytes
// received (sent) and the SACK bitmap from max(ref-63, cum+1)
// (UecSink::sack, sackBitmapBase); a NACK the trimmed PSN.
func (s *sim) uetSendCtrl(pi, fi int32, kind uint8, ref int64, d *packet) {
	f := &s.flows[fi]
	psn := ref
	if kind == pktAck {
		psn = f.rcvNxt
	}
	// Control packets ride the switches' high class with trimmed headers
	// (uet-htsim's CompositeQueue serves every header before data).
	k, pk := s.ctrlPacket(fi, kind, psn, s.cnpDSCP, AckWireBytes)
	pk.ce = d.ce
	pk.uflags = d.uflags & (uetLastHop | uetRtx)
	if kind == pktAck {
		if f.urx != nil {
			f.urx.unacked = false
		}
		pk.payload = int32(ref - f.rcvNxt)
		if r := f.urx; r != nil {
			pk.sack = r.bitmap(max(ref-63, f.rcvNxt+1))
			pk.sent = r.recvd
		}
	} else {
		pk.sent = d.sent
	}
	pk.prio = s.nodes[s.ports[pi].node].prio[pk.dscp]
	s.queueCtrl(pi, k)
}
