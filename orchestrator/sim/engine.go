package sim

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/labctl/labctl/orchestrator/hugepage"
)

const (
	evArrive uint8 = iota
	evTxDone
	evNicWake
	evPauseRx
	evPauseExpire
	evPauseRefresh
	evFlowStart
	evRateTimer
	evRateCut
	evRTO
	evSample
	evLinkChange
	evRouteLearn
	evStorm
	evWatchdog
	evProgStart
	evScaleUp
	// InfiniBand (ib.go): credits reaching a transmitter, a packet
	// reaching its QP through the HCA's pipeline, a CCTI timer.
	evCredit
	evIBDeliver
	evCCTimer
	evUETPull // a UET receiver's credit pacer (uet.go)
	evUETAck  // a UET receiver's ACK coalescing timer (uet.go)
	// A program stream's sender learns that an input received on another
	// server got a message further (dataflow.go).
	evInputSeen
	// A receiver ACKs a data packet taken as a quiet arrival (quiet.go)
	// when it would have arrived.
	evAckDue
)

// Run simulates cfg until cfg.DurationNs of simulated time has passed and
// returns the counters. It checks ctx every few thousand events.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	s, err := newSim(&cfg)
	if err != nil {
		return nil, err
	}
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	if s.ib != nil {
		if err := s.ibCheck(); err != nil {
			return nil, err
		}
	}
	return s.result(), nil
}

func (s *sim) push(t int64, kind uint8, a, b int32, gen uint32) {
	if s.part != nil {
		if d := s.part.run.owner(s, kind, a); d != s.part.id {
			s.pushRemote(d, event{t: t, kind: kind, a: a, b: b, gen: gen})
			return
		}
	}
	s.q.add(t, kind, a, b, gen)
}

func (s *sim) run(ctx context.Context) error {
	for i := range s.flows {
		// A program's QPs start with their program.
		if s.flows[i].depsLeft == 0 && s.flows[i].stream == nil {
			s.push(s.flows[i].f.StartNs*1000, evFlowStart, int32(i), 0, 0)
		}
	}
	s.startPrograms()
	if s.par != nil {
		return s.runParallel(ctx, s.par)
	}
	s.sampleAt = math.MaxInt64
	if s.series != nil {
		s.push(0, evSample, 0, 0, 0)
		s.sampleAt = 0
	}
	s.quietArrivals = s.mayArriveQuietly()
	// Rings for the serialization ends and arrivals, which the queue
	// turns off where many ports send at once (growRing).
	s.q.txRing(s.ringLimit)
	var e event
	for s.q.len() > 0 && s.q.popBefore(s.end+1, &e) {
		s.now = e.t
		if e.kind == evSample {
			// A sample reads the fabric and is not counted as an event,
			// as the split engine, which samples between windows, does
			// not count it either. (Split runs still count a few more or
			// fewer events, those the partitions' boundaries add or
			// spare: 37,484-37,545 for one ring on 1, 2 and 4.)
			s.sampleAt = math.MaxInt64
			if next := s.sampleWithoutAhead(); next <= s.end {
				s.push(next, evSample, 0, 0, 0)
				s.sampleAt = next
			}
			continue
		}
		s.events++
		if s.events&0x3fff == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("sim: stopped at %d ns of %d: %w", s.now/1000, s.end/1000, err)
			}
			if s.events&0x3ffff == 0 && s.cfg.Progress != nil {
				s.cfg.Progress(s.progress())
			}
		}
		s.dispatch(&e)
		s.noteEvent(&e)
	}
	s.now = s.end
	return nil
}

// The sequential engine files its ports' serialization ends (evTxDone)
// and its packets' arrivals (evArrive) in rings of their own beside the
// wheel (eventQueue.txRing) while few events wait in them: with few ports
// sending at once they hold a few each, and a push and a pop there cost
// less than the wheel's. Where many send at once the queue turns them off
// (eventQueue.growRing, past ringMax pending in one).
// The order is the same (each keeps the seq add would give it). What they
// save (the wheel's slot scans cost more time than their instructions
// say) is measured in bench/compare/README.md, section "Rings for the
// incast's serialization ends and arrivals".

// pushTxDone schedules the end of port pi's serialization at t.
func (s *sim) pushTxDone(t int64, pi int32) {
	if s.q.txOn {
		s.q.addTx(t, pi)
		return
	}
	s.push(t, evTxDone, pi, 0, 0)
}

// noteEvent keeps when the last event that could change the fabric
// happened (Result.LastEventNs): any but the timers that only look, a PFC
// watchdog's poll and a retransmission timer, which note themselves when
// they act (watchdogPoll, rtoCheck, uetRTO). Those tick long after the
// work: a SONiC watchdog polls every 100 ms to the end of the run, and a
// RoCE QP's timer (67 ms at the default QP timeout of 14) looks at its
// QP once more that long after its last progress: nccl-allreduce on
// 16gpu, its ring sweep done at 5.9 ms, processed such timers to 70.4 ms
// and polls to 978 ms of its 1 s. Other timers due after the work (a
// DCQCN rate timer, a UET ACK timer) add microseconds. A quiet arrival,
// taken ahead of its time, notes its own (arriveQuietly): hence the max.
func (s *sim) noteEvent(e *event) {
	if e.kind != evWatchdog && e.kind != evRTO {
		s.lastEvent = max(s.lastEvent, e.t)
	}
}

// dispatch processes one event (all but time series samples, which the
// run loop takes: they read every partition).
func (s *sim) dispatch(e *event) {
	switch e.kind {
	case evArrive:
		if s.prefetchNext {
			s.readAhead()
		}
		if pk := &s.pkts[e.b]; pk.lost {
			c := &s.ports[e.a].c[pk.prio]
			c.drops++
			c.linkDrops++
			s.release(e.b)
			return
		}
		if s.ports[e.a].host {
			s.hostReceive(e.a, e.b)
		} else {
			s.switchReceive(e.a, e.b)
		}
	case evTxDone:
		if s.prefetchNext {
			s.readAhead()
		}
		if p := &s.ports[e.a]; p.busyUntil == e.t {
			p.txPending = false
			s.kick(e.a)
		}
	case evNicWake:
		if s.ports[e.a].wakeAt == e.t {
			s.ports[e.a].wakeAt = 0
			s.kick(e.a)
		}
	case evPauseRx:
		if !s.ports[e.a].down {
			s.pauseRx(e.a, int(e.b), e.gen == 1)
		}
	case evPauseExpire:
		// e.b is the paused queue.
		p := &s.ports[e.a]
		if s.q.fired(&s.pfc[e.a].pauseEnd[e.b], e) && p.lane[e.b].pauseUntil == e.t {
			p.c[e.b].pausedNs += e.t - p.pausedSince[e.b]
			s.kick(e.a)
		}
	case evPauseRefresh:
		if s.q.fired(&s.pfc[e.a].xoffDue[e.b], e) {
			s.pauseRefresh(e.a, int(e.b), e.gen)
		}
	case evFlowStart:
		s.flowStart(e.a)
	case evRateTimer:
		f := &s.flows[e.a]
		if f.rp != nil && e.gen == f.rp.gen && f.rp.limited && !f.sendDone {
			f.rp.onTimer()
			if f.rp.limited {
				s.push(s.now+s.dc.timer, evRateTimer, e.a, 0, f.rp.gen)
			}
			s.repace(e.a)
		}
	case evRateCut:
		f := &s.flows[e.a]
		if !f.sendDone {
			gen := f.rp.gen
			f.rp.onMonitor(s.now)
			if f.rp.gen != gen {
				s.afterCut(e.a)
			}
		}
	case evRTO:
		s.rtoCheck(e.a)
	case evLinkChange:
		s.linkChange(e.a, e.b, e.gen == 1)
	case evRouteLearn:
		s.routeLearn(e.a, e.b, e.gen)
	case evStorm:
		s.storm(e.a, e.b, e.gen == 1)
	case evWatchdog:
		s.watchdogPoll(e.a)
	case evProgStart:
		s.progStart(e.a)
	case evScaleUp:
		s.gpuArrive(e.a)
	case evUETPull:
		s.uetPullTick(e.a)
	case evUETAck:
		s.uetAckTimer(e.a)
	case evInputSeen:
		s.inputSeen(e.a, e.b)
	case evAckDue:
		s.events-- // counted as its arrival (quietArrived)
		f := &s.flows[e.a]
		s.sendCtrl(f.dst, e.a, pktAck, int64(uint64(e.gen)<<32|uint64(uint32(e.b))))
	default:
		s.ibDispatch(*e)
	}
}

// readAhead asks the CPU for the port and packet of the next event (when
// the queue finds it cheaply: following), so that their cache misses
// overlap the handling of this one instead of following it: with a
// thousand hosts the ports and packets far exceed the caches, and the
// arriving packet's first read was a quarter of dispatch's time on the
// 1024-host permutation (perf). Prefetches, not loads: a load that misses
// holds up every instruction behind it until it returns, and the loads
// this did before (the packet's priority and route as well) had made the
// run slower once following found the next event in the next slot too.
// Small fabrics, whose state stays in the caches, skip it (prefetchNext).
func (s *sim) readAhead() {
	n := s.q.following()
	if n == nil || n.kind > evTxDone {
		return
	}
	if n.kind == evArrive {
		prefetch(unsafe.Pointer(&s.pkts[n.b]))
	}
	prefetch(unsafe.Pointer(&s.ports[n.a]))
}

// prefetchPortBytes is the size of the ports above which the engine reads
// ahead (sim.prefetchNext): about a core's L2 cache (1 MiB here), some 280
// ports. Measured on bench-compare's cases, CPU of whole runs, interleaved:
// the 8:1 incast (18 ports, 65 KiB) ran 4% faster without the read-ahead
// (76.8 against 80.2 ms, 4.2% fewer instructions), the 128-host
// permutation (512 ports, 1.8 MiB) the same either way, the 1024-host one
// (4096 ports, 14.5 MiB) on one thread 12-16% faster with it. 64gpu's
// labs have 192 ports.
const prefetchPortBytes = 1 << 20

// maxHops is the IP TTL RoCE packets leave hosts with (Linux's default,
// 64): a packet that crosses more switches is in a routing loop.
const maxHops = 64

// --- packet pool and queues ---

func (s *sim) alloc() int32 {
	if n := len(s.free); n > 0 {
		k := s.free[n-1]
		s.free = s.free[:n-1]
		// The next free packet is what the next alloc overwrites; at a
		// thousand hosts it has left the caches since it was freed. A
		// small fabric's (prefetchNext) is still in them, freed last,
		// and the call costs more than it saves: the bench incast 1.8%
		// less CPU without it (20 interleaved pairs), 64gpu's ecn-pfc 7%
		// (8 pairs, 6 lower).
		if n > 1 && s.prefetchNext {
			prefetch(unsafe.Pointer(&s.pkts[s.free[n-2]]))
		}
		s.pkts[k] = packet{next: -1}
		return k
	}
	if len(s.pkts) == cap(s.pkts) {
		// Twice the size at each growth, not append's quarter more: a
		// short run collects nothing, so every copy's pages stay
		// touched, and the bench incast's pool of some 7,200 packets
		// grew 4096, 5376, 6912, 8832 (1.5 MiB touched) where doubling
		// goes to 8832 at once (0.8 MiB; 190 fewer page faults). A
		// larger starting pool saved a little more on the incast but
		// cost each short simulation after the first in a process the
		// zeroing of its whole capacity (BenchmarkEngine 30% slower).
		s.pkts = growAdvised(s.pkts, cap(s.pkts))
	}
	s.pkts = append(s.pkts, packet{next: -1})
	return int32(len(s.pkts) - 1)
}

// growAdvised is slices.Grow for the engine's growing arrays: the new
// array is advised for huge pages before the copy writes it
// (hugepage.AdviseSlice), so that where its memory is fresh, as at the
// heap's growing end, filling it faults once per 2 MiB rather than once
// per 4 KiB. At 1024 hosts the packet pools' growth took 15,000 of a
// `labctl run`'s 27,000 page faults (the copy and the appends after it,
// perf), some 10 µs each on 2026-12-05's VM: 10,700 faults in all with
// it (14,200 when only arrays of 2 MiB or more were advised), 3.5% less
// CPU (pairs' median of 5). Short simulations one after the other
// (`BenchmarkEngine`) reuse collected memory and took no huge page.
// Arrays under 2 MiB are not advised (hugepage.Advise): on 2026-12-06's
// VM, where a 4 KiB fault cost a tenth of 2026-12-05's, the bench
// incast's 512 KiB pool was cheaper faulted page by page, and at 1024
// hosts the 4,000 more small faults were 5 ms of 3.7 s.
func growAdvised[T any](s []T, n int) []T {
	grown := make([]T, len(s), len(s)+n)
	hugepage.AdviseSlice(grown)
	copy(grown, s)
	return grown
}

func (s *sim) release(k int32) { s.free = append(s.free, k) }

// enqueue appends packet k to queue qi of port p.
func (s *sim) enqueue(p *port, qi uint8, k int32) {
	q := &p.lane[qi].q
	s.pkts[k].next = -1
	if q.n == 0 {
		q.head = k
		p.held |= 1 << qi
	} else {
		s.pkts[q.tail].next = k
	}
	q.tail = k
	q.n++
	q.bytes += int64(s.pkts[k].wire)
}

// dequeue takes the first packet of queue qi of port p, which holds one.
// The packet behind it goes out next, one serialization from now; in a deep
// queue (an incast's: thousands of packets, milliseconds long) it was
// written so long ago that it has left the caches, and reading it then
// stalled the engine on a quarter of its switch hops (perf, bench-compare's
// incast). So its cache line is asked for now, while this one is sent.
func (s *sim) dequeue(p *port, qi uint8) int32 {
	q := &p.lane[qi].q
	k := q.head
	q.head = s.pkts[k].next
	if q.n--; q.n == 0 {
		p.held &^= 1 << qi
	} else {
		prefetch(unsafe.Pointer(&s.pkts[q.head]))
	}
	q.bytes -= int64(s.pkts[k].wire)
	return k
}

func (p *port) queued() bool { return p.held != 0 }

// paused says whether queue q of the port is paused.
func (p *port) paused(q uint8, now int64) bool { return p.lane[q].pauseUntil > now }

// --- transmission ---

// kick lets port pi start its next transmission, or, while it is still
// serializing, makes sure a TxDone event will look again.
func (s *sim) kick(pi int32) {
	p := &s.ports[pi]
	if p.down || p.storming != 0 {
		return // no link, or a stuck NIC that sends nothing but pauses
	}
	if p.busyUntil > s.now {
		if !p.txPending {
			p.txPending = true
			s.pushTxDone(p.busyUntil, pi)
		}
		return
	}
	if p.host {
		s.nicSend(pi)
	} else {
		s.switchSend(pi)
	}
}

// transmit puts packet k on the link of port pi: the port is busy for the
// serialization time and the packet arrives whole at the peer one
// propagation delay later (store and forward). A TxDone event is scheduled
// only when more work may wait (queued packets, or nicMayHaveData at a
// NIC); otherwise the next enqueue, or whatever gives a NIC's QP data,
// finds the port idle by its clock.
func (s *sim) transmit(pi, k int32) {
	p := &s.ports[pi]
	pk := &s.pkts[k]
	ser := s.ser(p, int64(pk.wire))
	p.busyUntil = s.now + ser
	if !p.host {
		p.capFree = s.now // txFrom: switch ports have no cap
	}
	c := &p.c[pk.prio]
	c.txBytes += int64(pk.wire)
	c.txPkts++
	s.hops++
	p.txPending = p.queued() || p.host && s.nicMayHaveData(p)
	if p.txPending {
		s.pushTxDone(p.busyUntil, pi)
	}
	at := s.now + ser + p.propPs
	if p.peerHost {
		at += s.nicDelay // constant: keeps the link's order
		if s.quietArrivals && s.arriveQuietly(p.peer, k, at) {
			return
		}
	} else if s.jitter > 0 {
		// Strictly after the previous packet of this link: simultaneous
		// events have no guaranteed order and a link never reorders.
		at = max(at+s.rng.Int64N(s.jitter), p.lastArrive+1)
		p.lastArrive = at
	}
	if s.q.txOn {
		s.q.addArrive(at, p.peer, k)
		return
	}
	s.push(at, evArrive, p.peer, k, 0)
}

// cacheQoS copies what the hot path reads of a switch port's queue QoS
// (qos, set up by buildQoS) into masks and small arrays beside the port's
// queues, so serving a packet does not read eight PortQoS.
func (p *port) cacheQoS(qos *[8]PortQoS, mtu int64) {
	for i := range qos {
		q := &qos[i]
		bit := uint8(1) << i
		if q.Strict {
			p.strict |= bit
		}
		if q.ECN {
			p.ecn |= bit
		}
		if q.WREDDrop {
			p.wred |= bit
		}
		if q.IgnoresPause {
			p.pauseOff |= bit
		}
		// A drop action forced from the start (WatchdogDrop) is the state
		// a drop watchdog's storm puts the priority in (watchdogAct), set
		// before any packet: the engine's one drop state serves both, and
		// with nothing queued yet there is nothing to flush. No watchdog
		// polls it (buildWatchdogs), so nothing lifts it.
		if q.WatchdogDrop {
			p.wdIgnore |= bit
			p.wdDrop |= bit
		}
		p.lane[i].quantum = int64(q.Weight) * (mtu + WireOverheadBytes)
		p.lane[i].mark = redCurve{q.KminBytes, q.KmaxBytes, q.Pmax}
		p.drop[i] = redCurve{q.DropMinBytes, q.DropMaxBytes, q.DropPmax}
	}
}

// pickQueue returns the priority to serve next on a switch port, or -1:
// strict queues first (highest priority first), then deficit round robin.
func (s *sim) pickQueue(pi int32, p *port) int {
	held := p.held
	if s.shapers != nil && s.shaped[pi]&held != 0 {
		held &^= s.shapedOut(pi, p)
	}
	for m := p.strict & held; m != 0; {
		pr := 7 - bits.LeadingZeros8(m)
		if !p.paused(uint8(pr), s.now) {
			return pr
		}
		m &^= 1 << pr
	}
	// Deficit round robin: the pointer p.rr visits the queues in turn, at
	// most drrVisits times per pick. A ready queue (non-strict, holding
	// packets, not paused) gains its quantum on the first visit of a turn
	// and sends if its deficit covers the head packet; an empty queue
	// loses its deficit as the pointer passes it. The pointer passes a run
	// of queues that are not ready in one step (what visiting them one by
	// one would do), so a port with one busy queue picks it at once.
	ready := held &^ p.strict
	for m := ready; m != 0; m &= m - 1 {
		if i := bits.TrailingZeros8(m); p.paused(uint8(i), s.now) {
			ready &^= 1 << i
		}
	}
	for visits := 0; visits < drrVisits; {
		i := int(p.rr)
		skip := drrVisits - visits
		if r := bits.RotateLeft8(ready, -i); r != 0 {
			skip = min(skip, bits.TrailingZeros8(r))
		}
		if skip > 0 {
			passed := uint8(0xff)
			if skip < 8 {
				passed = bits.RotateLeft8(uint8(1)<<skip-1, i)
			}
			for m := passed &^ p.held & p.credit; m != 0; m &= m - 1 {
				p.lane[bits.TrailingZeros8(m)].deficit = 0
			}
			p.credit &^= passed &^ p.held
			p.rr = uint8((i + skip) & 7)
			p.visited = false
			visits += skip
			continue
		}
		ln := &p.lane[i]
		if !p.visited {
			ln.deficit += ln.quantum
			p.visited = true
		}
		if w := int64(s.pkts[ln.q.head].wire); ln.deficit >= w {
			ln.deficit -= w
			p.noteCredit(i)
			return i
		}
		p.noteCredit(i)
		p.rr = uint8((i + 1) & 7)
		p.visited = false
		visits++
	}
	return -1
}

// queueShaper is a shaped queue's or port's state (Shaper): the generic
// cell rate algorithm, kept as times. paid is when the queue will have paid
// at its rate for every frame it has sent; a frame may start at paid -
// ahead (the burst it may send ahead of its rate).
type queueShaper struct {
	// kbps is the rate, a packet meter's for full-size frames (the
	// flow-level model's capacity); frame is a packet meter's cost of a
	// frame, whatever its size (0: the meter counts bytes).
	kbps  int64
	frame int64 // ps
	ahead int64 // ps
	paid  int64 // ps
}

// shaper is the state of a shaper as given: an error for a negative rate
// or burst, none (kbps 0) for a rate of 0.
func (s *sim) shaper(sh Shaper) (queueShaper, error) {
	if sh.Kbps < 0 || sh.BurstBytes < 0 || sh.PacketsPerSec < 0 || sh.BurstPackets < 0 {
		return queueShaper{}, fmt.Errorf("negative shaper rate (%d kb/s, %d packets/s) or burst (%d B, %d packets)", sh.Kbps, sh.PacketsPerSec, sh.BurstBytes, sh.BurstPackets)
	}
	if sh.Kbps > 0 && sh.PacketsPerSec > 0 {
		return queueShaper{}, fmt.Errorf("a shaper of both %d kb/s and %d packets/s: it meters bytes or frames, not both", sh.Kbps, sh.PacketsPerSec)
	}
	if sh.PacketsPerSec > 0 {
		// A frame each 1/PacketsPerSec, ahead by its burst of frames (at
		// least the frame in hand, as for bytes).
		frame := max(int64(1e12)/sh.PacketsPerSec, 1)
		ahead := int64(maxShapePs)
		if b := max(sh.BurstPackets, 1); b < maxShapePs/frame {
			ahead = b * frame
		}
		return queueShaper{kbps: max(sh.PacketsPerSec*s.fullWire()*8/1000, 1), frame: frame, ahead: ahead}, nil
	}
	if sh.Kbps == 0 {
		return queueShaper{}, nil
	}
	// The bucket holds a full frame at least, as an ASIC's least burst
	// does: a frame that waited for the port (another queue's frame
	// going out) does not lose the rate it had paid for.
	burst := max(sh.BurstBytes, s.fullWire())
	return queueShaper{kbps: sh.Kbps, ahead: shapePs(burst, sh.Kbps)}, nil
}

// shapePs is how long bytes take at kbps, in ps.
// It is exact in 128 bits and held below maxShapePs, so that a burst of
// gigabytes (SONiC takes any pbs) is a long credit, not an overflow.
func shapePs(bytes, kbps int64) int64 {
	hi, lo := bits.Mul64(uint64(bytes), 8_000_000_000)
	if hi >= uint64(kbps) {
		return maxShapePs
	}
	q, _ := bits.Div64(hi, lo, uint64(kbps))
	return int64(min(q, maxShapePs))
}

// maxShapePs bounds a shaper's times: about 53 days, beyond any run.
const maxShapePs = 1 << 62

// pay charges the queue for a frame of wire bytes that starts now.
func (q *queueShaper) pay(now, wire int64) {
	if q.frame > 0 {
		q.paid = max(q.paid, now) + q.frame
		return
	}
	q.paid = max(q.paid, now) + shapePs(wire, q.kbps)
}

// shapedOut is the queues of port pi holding packets whose shaper does not
// let them send now. A queue counts as empty to the pick while it waits:
// deficit round robin keeps its deficit (it holds packets) and serves the
// others.
func (s *sim) shapedOut(pi int32, p *port) uint8 {
	var out uint8
	for m := s.shaped[pi] & p.held; m != 0; m &= m - 1 {
		i := bits.TrailingZeros8(m)
		if q := &s.shapers[8*int(pi)+i]; q.paid-q.ahead > s.now {
			out |= 1 << i
		}
	}
	return out
}

// wakeShaped has port pi, which found nothing to send while shaped queues
// held packets, look again when the first of them may send (evNicWake, as
// a NIC waits for its pacing).
func (s *sim) wakeShaped(pi int32, p *port) {
	wake := int64(math.MaxInt64)
	for m := s.shaped[pi] & p.held; m != 0; m &= m - 1 {
		i := bits.TrailingZeros8(m)
		if q := &s.shapers[8*int(pi)+i]; !p.paused(uint8(i), s.now) {
			wake = min(wake, q.paid-q.ahead)
		}
	}
	if wake != math.MaxInt64 {
		s.wakeAt(pi, p, wake)
	}
}

// wakeAt has switch port pi, waiting for a shaper, look again at t
// (evNicWake, as a NIC waits for its pacing), unless it already will by
// then.
func (s *sim) wakeAt(pi int32, p *port, t int64) {
	if t > s.now && (p.wakeAt <= s.now || t < p.wakeAt) {
		p.wakeAt = t
		s.push(t, evNicWake, pi, 0, 0)
	}
}

// drrVisits is how many queues deficit round robin visits at most per
// pick: two turns of the eight and two more.
const drrVisits = 18

// noteCredit keeps p.credit's bit for queue i: whether its deficit is not
// zero (so that passing empty queues resets only those with a deficit,
// without reading the others).
func (p *port) noteCredit(i int) {
	if p.lane[i].deficit != 0 {
		p.credit |= 1 << i
	} else {
		p.credit &^= 1 << i
	}
}

func (s *sim) switchSend(pi int32) {
	if s.ib != nil {
		s.ibSwitchSend(pi)
		return
	}
	p := &s.ports[pi]
	if s.portShapers != nil && s.portShapers[pi].kbps > 0 {
		if q := &s.portShapers[pi]; q.paid-q.ahead > s.now {
			if p.held != 0 {
				s.wakeAt(pi, p, q.paid-q.ahead)
			}
			return
		}
	}
	pr := s.pickQueue(pi, p)
	if pr < 0 {
		if s.shapers != nil && s.shaped[pi]&p.held != 0 {
			s.wakeShaped(pi, p)
		}
		return
	}
	k := s.dequeue(p, uint8(pr))
	pk := &s.pkts[k]
	if s.shapers != nil && s.shaped[pi]&(1<<pr) != 0 {
		s.shapers[8*int(pi)+pr].pay(s.now, int64(pk.wire))
	}
	if s.portShapers != nil && s.portShapers[pi].kbps > 0 {
		s.portShapers[pi].pay(s.now, int64(pk.wire))
	}
	s.releaseBuffer(pi, pk)
	if p.ecn&(1<<pr) != 0 && pk.kind == pktData && !pk.ce {
		depth := p.lane[pr].q.bytes + int64(pk.wire)
		c := &p.lane[pr].mark
		if prob := markProbability(depth, c.min, c.max, c.pmax); prob > 0 && (prob >= 1 || s.rng.Float64() < prob) {
			pk.ce = true
			p.c[pk.prio].marked++
		}
	}
	if s.remark != nil {
		if d := s.remark[pi][pk.prio&7]; d >= 0 {
			pk.dscp = uint8(d)
		}
	}
	s.transmit(pi, k)
}

// --- switch ingress, admission and PFC ---

// overMTU says whether packet pk carries more payload than switch port pi
// passes (Config.PortMaxPayload); s.maxPayload must not be nil.
func (s *sim) overMTU(pi int32, pk *packet) bool {
	n := s.maxPayload[pi]
	return n > 0 && pk.payload > n
}

func (s *sim) switchReceive(in, k int32) {
	if s.ib != nil {
		s.ibSwitchReceive(in, k)
		return
	}
	pk := &s.pkts[k]
	ip := &s.ports[in]
	n := &s.nodes[ip.node]
	pr := ip.tcOf[pk.dscp]
	pk.prio = pr
	if pk.hops++; pk.hops > maxHops {
		ip.c[pr].drops++
		ip.c[pr].loopDrops++
		s.release(k)
		return
	}
	if ip.wdDrop&(1<<pr) != 0 {
		// A PFC watchdog's drop action also drops what arrives on the
		// stormed port for that priority.
		ip.c[pr].drops++
		ip.c[pr].wdDrops++
		s.release(k)
		return
	}
	if s.maxPayload != nil && s.overMTU(in, pk) {
		ip.c[pr].drops++
		ip.c[pr].mtuDrops++
		s.release(k)
		return
	}
	table := s.routes[pk.dst]
	if table == nil {
		table = s.routeTo(pk.dst)
	}
	cands := table[ip.node]
	if len(cands) == 0 {
		// At the destination's own leaf the one candidate is the NIC;
		// anywhere else no route (the routes of this switch's view do
		// not reach the destination, after failures): a drop.
		if cands = s.localHop(ip.node, pk.dst); len(cands) == 0 {
			ip.c[pr].drops++
			ip.c[pr].routeDrops++
			s.release(k)
			return
		}
	}
	out := int32(-1)
	if pk.kind == pktData {
		out = s.pickData(ip.node, n, pk, cands)
	}
	if out < 0 {
		out = ecmpPick(cands, pk.hash, n.seed)
	}
	w := int64(pk.wire)
	pk.inPort = in
	op := &s.ports[out]
	if op.down || op.wdDrop&(1<<pr) != 0 || s.maxPayload != nil && s.overMTU(out, pk) {
		// Sent to a dead link the switch has not routed around yet (a
		// black hole), to a queue a PFC watchdog drops, or over the
		// port's MTU.
		switch {
		case op.down:
			op.c[pr].linkDrops++
		case op.wdDrop&(1<<pr) != 0:
			op.c[pr].wdDrops++
		default:
			op.c[pr].mtuDrops++
		}
		op.c[pr].drops++
		s.release(k)
		return
	}
	qi := op.queueOf[pr]
	// WRED without marking drops data early as it joins the queue: green's
	// curve, or the curve of the colour the ingress port gave the packet.
	wred := op.wred&(1<<qi) != 0
	var c *redCurve // nil: the queue's own (green) curve
	if s.colourOf != nil && pk.kind == pktData {
		wred, c = s.colourCurve(in, out, qi, pk.dscp, wred)
	}
	if wred && pk.kind == pktData {
		if c == nil {
			c = &op.drop[qi]
		}
		depth := op.lane[qi].q.bytes + w
		if prob := markProbability(depth, c.min, c.max, c.pmax); prob > 0 && (prob >= 1 || s.rng.Float64() < prob) {
			if s.uet && s.uetTrim(in, out, k) {
				return
			}
			op.c[pr].drops++
			op.c[pr].egressDrops++
			op.c[pr].wredDrops++
			s.release(k)
			return
		}
	}
	// Egress admission: a queue over its limit drops (lossy queues'
	// limit is what keeps one congested port from taking the whole
	// buffer); the charge is committed only once ingress admits too.
	eq := &op.lane[qi].eg
	acct := uint8(0)
	if eq.adm.pool >= 0 {
		switch {
		case eq.min+w <= eq.adm.reserved:
			acct = 1
		case s.fits(n, &eq.adm, eq.shared, w):
			acct = 2
		default:
			if s.uet && s.uetTrim(in, out, k) {
				return
			}
			op.c[pr].drops++
			op.c[pr].egressDrops++
			s.release(k)
			return
		}
	}
	g := ip.pgOf[pr]
	st := &ip.pg[g]
	pl := &n.pools[st.adm.pool]
	switch {
	case st.min+w <= st.adm.reserved:
		st.min += w
	case s.fits(n, &st.adm, st.shared, w):
		st.shared += w
		pl.used += w
	case st.lossless && s.takeHeadroom(n, ip, st, pl, w):
	default:
		if s.uet && s.uetTrim(in, out, k) {
			return
		}
		ip.c[pr].drops++
		ip.c[pr].ingressDrops++
		if pk.kind != pktData {
			ip.c[pr].ctrlDrops++
		}
		s.release(k)
		return
	}
	// Using headroom always means pausing: with the pool full the
	// threshold test alone could leave this ingress unpaused.
	if lim := s.limit(n, &st.adm); st.lossless && !st.xoff && (st.hdr > 0 || st.shared >= lim) {
		st.xoff = true
		st.xoffGen++
		decided := s.now
		if ip.respPs > 0 {
			// The byte that crossed the threshold arrived this many
			// bytes before the packet's last: the decision's time, as
			// an ASIC takes it on the cell (Link.PauseResponseBits).
			over := st.hdr
			if over == 0 {
				over = st.shared - lim
			}
			decided -= min(ip.serPs(min(over, w)), ip.respPs)
		}
		s.pausePG(in, g, true, decided)
	}
	switch acct {
	case 1:
		eq.min += w
	case 2:
		eq.shared += w
		n.pools[eq.adm.pool].used += w
	}
	pk.egAcct = acct
	queueSample(op, pr, qi)
	s.enqueue(op, qi, k)
	if op.lane[qi].q.bytes > op.c[pr].maxQueue {
		op.c[pr].maxQueue = op.lane[qi].q.bytes
	}
	s.kick(out)
}

// colourCurve is the early drop a data packet of DSCP dscp from port in
// meets at queue qi of port out, where the ingress port colours it (EOS's
// drop precedence): its colour's curve, if the queue drops that colour
// early, else none (a nil curve: green's, the queue's own, with wred as
// the queue has it). Out of the switchReceive path that runs without
// colours.
func (s *sim) colourCurve(in, out int32, qi uint8, dscp uint8, wred bool) (bool, *redCurve) {
	col := s.colourOf[in][dscp&63]
	if col == 0 {
		return wred, nil
	}
	if s.colourWRED == nil || s.colourWRED[out]&(1<<(2*qi+col-1)) == 0 {
		return false, nil
	}
	return true, &s.colourDrop[out][qi][col-1]
}

// limit is the most shared buffer an admission may hold now: its static
// threshold, or alpha times the pool's free space.
func (s *sim) limit(n *node, a *admission) int64 {
	if a.noShared {
		return 0
	}
	if a.static > 0 {
		return a.static
	}
	pl := &n.pools[a.pool]
	if a.alpha > 0 {
		return int64(float64(pl.size-pl.used) * a.alpha)
	}
	return pl.size
}

// takeHeadroom admits w bytes of a lossless packet that does not fit the
// shared buffer whole into PG st's headroom (pl its pool), if they fit
// there. Where the switch accounts its buffer in cells (an ingress port
// with a PAUSE response, Link.PauseResponseBits) the bytes before the
// threshold still go to the shared buffer and only the rest to headroom;
// otherwise the whole packet does.
func (s *sim) takeHeadroom(n *node, ip *port, st *pgState, pl *poolState, w int64) bool {
	fit := int64(0)
	if ip.respPs > 0 {
		fit = max(0, min(w, s.limit(n, &st.adm)-st.shared, pl.size-pl.used))
	}
	h := w - fit
	if st.hdr+h > st.headroom || (pl.hdrSize > 0 && pl.hdrU+h > pl.hdrSize) {
		return false
	}
	st.shared += fit
	pl.used += fit
	st.hdr += h
	if pl.hdrSize > 0 {
		pl.hdrU += h
	}
	return true
}

// fits says whether w more bytes of shared buffer are admitted: under the
// admission's threshold and within the pool.
func (s *sim) fits(n *node, a *admission, used, w int64) bool {
	pl := &n.pools[a.pool]
	return pl.used+w <= pl.size && used+w <= s.limit(n, a)
}

// xonReady reports whether a paused priority group may resume: its
// headroom has drained and its use is at most max(xon, limit −
// xon_offset), limit being its reserve plus its shared threshold (SAI's
// XON_TH and XON_OFFSET_TH: the higher, earlier-reached one wins), or it
// is empty. Resuming with headroom still in use could overflow it at the
// next pause.
func (s *sim) xonReady(ip *port, st *pgState) bool {
	if st.hdr > 0 {
		return false
	}
	use := st.min + st.shared
	if use == 0 || use <= st.xonMin {
		return true
	}
	return st.xonOffset > 0 && use <= st.adm.reserved+s.limit(&s.nodes[ip.node], &st.adm)-st.xonOffset
}

// releaseBuffer returns the bytes of a packet leaving switch port out to
// its ingress PG and to out's egress queue. The PG's headroom drains first, as in switch ASICs: it
// returns to the shared pool only once its headroom is empty, and its
// reserve last.
func (s *sim) releaseBuffer(out int32, pk *packet) {
	ip := &s.ports[pk.inPort]
	n := &s.nodes[ip.node]
	w := int64(pk.wire)
	g := ip.pgOf[pk.prio]
	st := &ip.pg[g]
	pl := &n.pools[st.adm.pool]
	if h := min(st.hdr, w); h > 0 {
		st.hdr -= h
		if pl.hdrSize > 0 {
			pl.hdrU -= h
		}
		w -= h
	}
	if sh := min(st.shared, w); sh > 0 {
		st.shared -= sh
		pl.used -= sh
		w -= sh
	}
	st.min -= w
	if st.xoff && s.xonReady(ip, st) {
		st.xoff = false
		st.xoffGen++
		s.pausePG(pk.inPort, g, false, s.now)
	}
	if pk.egAcct != 0 {
		op := &s.ports[out]
		eq := &op.lane[op.queueOf[pk.prio]].eg
		w := int64(pk.wire)
		if pk.egAcct == 1 {
			eq.min -= w
		} else {
			eq.shared -= w
			n.pools[eq.adm.pool].used -= w
		}
	}
}

// pausePG sends XOFF or XON for every PFC priority of PG g of port pi
// (but those a PFC watchdog took PFC away from).
func (s *sim) pausePG(pi int32, g uint8, xoff bool, decided int64) {
	for _, pr := range s.ports[pi].pg[g].prios {
		if s.ports[pi].wdIgnore&(1<<pr) == 0 {
			s.sendPause(pi, pr, xoff, decided)
		}
	}
	if xoff {
		p := &s.ports[pi]
		s.q.arm(&s.pfc[pi].xoffDue[g], s.now+s.pauseDurationPs(p)/2, evPauseRefresh, pi, int32(g), p.pg[g].xoffGen)
	}
}

func (s *sim) pauseDurationPs(p *port) int64 {
	return p.serPs(PauseQuanta * 512 / 8)
}

// sendPause sends a PFC frame from port pi to its upstream peer: XOFF
// (full quanta) or XON (quanta 0), decided at time decided (now, or
// earlier where the switch decides on the byte: admit). The frame leaves
// after the frame being serialized on pi, ahead of queued data, and the
// peer obeys it its response time after it arrives (port.respPs).
func (s *sim) sendPause(pi int32, pr uint8, xoff bool, decided int64) {
	p := &s.ports[pi]
	p.c[pr].pauseTx++
	ser := p.serPs(PauseWireBytes)
	// Frames leave one MAC in order: an XOFF sent while an earlier XON
	// still waits behind a data frame must not overtake it.
	from := max(decided, p.busyUntil)
	if decided < s.now && !p.host && p.txFrom() > decided {
		// The frame being sent started after the decision, which the
		// PFC frame would have gone out before.
		from = p.txFrom()
	}
	t := max(from+ser+p.propPs, p.lastPause+ser)
	p.lastPause = t
	var g uint32
	if xoff {
		g = 1
	}
	s.push(t+p.respPs, evPauseRx, p.peer, int32(pr), g)
}

// pauseRefresh re-sends XOFF for PG g of port pi at half the pause time
// while it stays congested, or XON once it may resume.
func (s *sim) pauseRefresh(pi int32, g int, gen uint32) {
	p := &s.ports[pi]
	st := &p.pg[g]
	if !st.xoff || st.xoffGen != gen {
		return
	}
	if s.xonReady(p, st) {
		st.xoff = false
		st.xoffGen++
		s.pausePG(pi, uint8(g), false, s.now)
		return
	}
	s.pausePG(pi, uint8(g), true, s.now)
}

// pauseRx applies a PFC frame for priority pr at the upstream port pi:
// it pauses the queue the port maps the priority to (pauseQ; a NIC's
// queue is its priority). Pause state and paused time are per queue.
func (s *sim) pauseRx(pi int32, pr int, xoff bool) {
	p := &s.ports[pi]
	p.c[pr].pauseRx++
	p.lastPauseRxAt[pr] = s.now
	if (p.wdIgnore|p.pauseOff)&(1<<pr) != 0 {
		return // a PFC watchdog took this priority out of PFC, or it has none here
	}
	q := p.pauseQ[pr]
	wasPaused := p.lane[q].pauseUntil > s.now
	if !wasPaused && p.lane[q].pauseUntil == s.now && s.now > 0 {
		// The previous pause ends right now and its expiry event has not
		// run yet: close that interval here, the event will find it stale.
		p.c[q].pausedNs += s.now - p.pausedSince[q]
		p.lane[q].pauseUntil = 0
	}
	if xoff {
		if !wasPaused {
			p.pausedSince[q] = s.now
		}
		p.lane[q].pauseUntil = s.now + s.pauseDurationPs(p)
		s.q.arm(&s.pfc[pi].pauseEnd[q], p.lane[q].pauseUntil, evPauseExpire, pi, int32(q), 0)
		return
	}
	if wasPaused {
		p.c[q].pausedNs += s.now - p.pausedSince[q]
	}
	p.lane[q].pauseUntil = 0
	s.kick(pi)
}

// --- NIC: sending ---

func (f *flowState) hasData() bool {
	return f.started && !f.sendDone && f.sndNxt < f.total && f.sndNxt < f.avail && f.sndNxt < f.winEnd
}

// depthPackets is the number of packets of one message, the unit the tx
// depth counts: MessageBytes in MTU packets, or one packet when the flow
// has no message size.
func (s *sim) depthPackets(f *flowState) int64 {
	if f.f.MessageBytes <= 0 {
		return 1
	}
	return (f.f.MessageBytes + s.mtu - 1) / s.mtu
}

// windowEnd is the first packet that the flow's tx depth holds back: the
// end of message done+TxDepth, done being the messages whose completion
// the sender has seen (all acknowledged ones, or with CQ moderation the
// last whole batch of them, as a completion is signalled once per batch).
func (s *sim) windowEnd(f *flowState) int64 {
	per := f.depthPkts
	if per == 0 {
		return math.MaxInt64
	}
	depth := int64(f.f.TxDepth)
	done := f.sndUna / per
	if m := int64(f.f.CQMod); m > 1 {
		done -= done % m
	}
	return (done + depth) * per
}

func (s *sim) flowStart(fi int32) {
	f := &s.flows[fi]
	f.started = true
	f.startAt = s.now
	f.lastProgress = s.now
	f.retriesLeft = s.retries
	if f.f.TxDepth > 0 {
		f.depthPkts = s.depthPackets(f)
	}
	f.winEnd = s.windowEnd(f)
	if !f.f.Quiet {
		f.hist = histogram{counts: s.newHist()}
	}
	if rs := f.ring; rs != nil {
		atomicMin(&rs.stepStart[0], s.now)
		atomicMin(&rs.first, s.now)
	}
	s.unpark(fi)
	s.push(s.now+s.rto, evRTO, fi, 0, 0)
	s.kick(f.src)
}

func (s *sim) nicSend(pi int32) {
	if s.ib != nil {
		s.ibNicSend(pi)
		return
	}
	p := &s.ports[pi]
	for m := p.held; m != 0; {
		pr := uint8(7 - bits.LeadingZeros8(m))
		if !p.paused(pr, s.now) {
			s.transmit(pi, s.dequeue(p, pr))
			return
		}
		m &^= 1 << pr
	}
	if p.capFree > s.now {
		// A NIC behind a slower PCIe link (Config.NICCapGbps) sends its
		// next data packet once the host has fed it the last one.
		if p.liveFlows() > 0 && (p.wakeAt <= s.now || p.capFree < p.wakeAt) {
			p.wakeAt = p.capFree
			s.push(p.capFree, evNicWake, pi, 0, 0)
		}
		return
	}
	if s.uet {
		s.uetNicSend(pi, p)
		return
	}
	if m := p.rrPrios; m != 0 && !p.suspectsLost && !s.scanAlways && p.allPaused(m, s.now) {
		// Every QP in the round robin is paused: a scan would send
		// nothing, wake for nothing, and park the QPs without data,
		// which are among the suspects. With a thousand QPs per NIC (an
		// all-to-all under PFC) every ACK that kicked a paused NIC
		// walked them all, a cache miss each: 56% of the 1024-GPU
		// all-to-all's CPU.
		s.parkSuspects(p)
		s.scansSkipped++
		s.nicIdle(pi, p, math.MaxInt64)
		return
	}
	nf := len(p.flows)
	wake := int64(math.MaxInt64)
	for j := 0; j < nf; j++ {
		idx := p.rrAt(j, nf)
		fi := p.flows[idx]
		if fi < 0 {
			continue
		}
		f := &s.flows[fi]
		if !f.hasData() {
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
		s.sendData(pi, fi)
		if !f.hasData() {
			s.suspect(p, fi)
		}
		return
	}
	// The scan looked at every QP and parked those without data.
	p.suspects, p.suspectsLost = p.suspects[:0], false
	s.nicIdle(pi, p, wake)
}

// suspect notes that QP fi of NIC p may have no data left (port.suspects).
func (s *sim) suspect(p *port, fi int32) {
	if p.suspectsLost {
		return
	}
	if len(p.suspects) > len(p.flows) {
		p.suspects, p.suspectsLost = p.suspects[:0], true
		return
	}
	p.suspects = append(p.suspects, fi)
}

// parkSuspects parks the suspects still in the round robin without data,
// as a scan of it would, and forgets them all.
func (s *sim) parkSuspects(p *port) {
	for _, fi := range p.suspects {
		if f := &s.flows[fi]; !f.inRR || f.hasData() {
			continue
		}
		if idx := slices.Index(p.flows, fi); idx >= 0 {
			s.park(p, idx)
		}
	}
	p.suspects = p.suspects[:0]
}

// allPaused says whether every priority of mask is paused at port p now.
func (p *port) allPaused(mask uint8, now int64) bool {
	for m := mask; m != 0; m &= m - 1 {
		if !p.paused(uint8(bits.TrailingZeros8(m)), now) {
			return false
		}
	}
	return true
}

// nicIdle ends a NIC's turn that sent nothing: it wakes the NIC when the
// first paced flow may send (wake; math.MaxInt64 when none is paced) and
// drops the parked entries of its round robin once they are most of it.
func (s *sim) nicIdle(pi int32, p *port, wake int64) {
	if wake != math.MaxInt64 && (p.wakeAt <= s.now || wake < p.wakeAt) {
		p.wakeAt = wake
		s.push(wake, evNicWake, pi, 0, 0)
	}
	if p.dead > 16 && 2*int(p.dead) > len(p.flows) {
		s.compact(p)
	}
}

// nicMayHaveData says whether NIC port p may have a QP's packet to send
// when its serialization ends, so that transmit schedules a TxDone: a
// RoCE NIC whose QPs are all parked has none (the receiving NIC of an
// incast, sending only ACKs: 27,000 of the bench incast's 900,000 events
// were its TxDones, whose nicSend found nothing). Everything that gives a
// parked QP data unparks it and kicks its NIC (flowStart, an ACK, a NAK or
// timeout rewinding it, a posted message), and a kick while the port
// serializes schedules the TxDone then. An unparked QP, paced or paused or
// not, keeps the TxDone: nicSend parks or wakes it, and when it does is
// part of the round robin's order. InfiniBand's and UET's NICs send by
// their own rules (credits, pulls) and keep it always.
func (s *sim) nicMayHaveData(p *port) bool {
	return p.liveFlows() > 0 || s.ib != nil || s.uet || s.txDoneAlways
}

// liveFlows is how many of a NIC's round-robin entries are not parked.
func (p *port) liveFlows() int { return len(p.flows) - int(p.dead) }

// rrAt is the index of the round robin's entry j places on from where it
// stands, of nf entries: a NIC's send scans j = 0..nf-1.
func (p *port) rrAt(j, nf int) int {
	idx := int(p.rrFlow) + j
	if idx >= nf {
		idx -= nf
	}
	return idx
}

// served moves the round robin past entry idx (of nf), the one that sent.
func (p *port) served(idx, nf int) {
	if idx++; idx == nf {
		idx = 0
	}
	p.rrFlow = int32(idx)
}

// park takes the flow at p.flows[idx] out of the round robin.
func (s *sim) park(p *port, idx int) {
	s.flows[p.flows[idx]].inRR = false
	p.flows[idx] = -1
	p.dead++
}

// unpark puts a started flow that has data back into its NIC's round
// robin, at the end. Every change that can give a flow data (start, a NAK
// or timeout rewinding it, a posted message) calls it.
func (s *sim) unpark(fi int32) {
	f := &s.flows[fi]
	if f.inRR || !f.hasData() {
		return
	}
	p := &s.ports[f.src]
	p.flows = append(p.flows, fi)
	p.rrPrios |= 1 << f.prio
	f.inRR = true
}

// compact drops parked entries, keeping the order and the round robin's
// place.
func (s *sim) compact(p *port) {
	kept, rr := p.flows[:0], 0
	var prios uint8
	for i, fi := range p.flows {
		if i == int(p.rrFlow) {
			rr = len(kept)
		}
		if fi >= 0 {
			kept = append(kept, fi)
			prios |= 1 << s.flows[fi].prio
		}
	}
	// rrPrios drops the priorities whose QPs have all left, so that a
	// NIC done with one priority's QPs can skip its scans again.
	p.flows, p.dead, p.rrPrios = kept, 0, prios
	if rr >= len(kept) {
		rr = 0
	}
	p.rrFlow = int32(rr)
}

// retire drops a fully acknowledged (or failed) flow from its NIC's round
// robin, so NICs that ran many short flows (collective steps) scan only
// live ones.
func (s *sim) retire(pi, fi int32) {
	if !s.flows[fi].inRR {
		return
	}
	p := &s.ports[pi]
	for i, g := range p.flows {
		if g == fi {
			s.park(p, i)
			return
		}
	}
}

// payload is the payload of packet psn: a full MTU, or less for the last
// packet of a message or of the flow.
func (s *sim) payload(f *flowState, psn int64) int64 {
	if f.ring != nil {
		return s.ringPayload(f, psn)
	}
	if st := f.stream; st != nil && st.size != nil {
		if m := psn / f.perMsg; m != st.curMsg {
			st.curMsg, st.curBytes = m, st.size(m)
		}
		return s.cutPayload(st.curBytes, f.perMsg, psn%f.perMsg)
	}
	if f.msg == 0 {
		if f.total == math.MaxInt64 {
			return s.mtu
		}
		return min(s.mtu, f.f.Bytes-psn*s.mtu)
	}
	m, j := psn/f.perMsg, psn%f.perMsg
	msgBytes := f.msg
	if f.total != math.MaxInt64 {
		msgBytes = min(msgBytes, f.f.Bytes-m*f.msg)
	}
	return min(s.mtu, msgBytes-j*s.mtu)
}

// ringPayload is the payload of packet psn of a ring QP: message m is
// the rank's step m, its chunk of the step (RingStepBytes) cut into
// perMsg packets, those of the ring's largest chunk (cutPayload).
func (s *sim) ringPayload(f *flowState, psn int64) int64 {
	rs := f.ring
	m, j := psn/f.perMsg, psn%f.perMsg
	return s.cutPayload(RingStepBytes(rs.cfg.Bytes, len(rs.cfg.Ranks), int(f.rank), int(m)), f.perMsg, j)
}

// cutPayload is the payload of packet j of a message of b bytes cut into
// packets (at most packets x MTU bytes): full MTUs, then what is left
// spread so that no packet is empty (a message one byte short of the
// largest that fills one packet fewer, a multiple of the MTU, moves its
// last byte into the last packet). A message of fewer bytes than
// packets has a byte in each of its first packets and none in the
// others: a message of 0 bytes is packets of headers alone.
func (s *sim) cutPayload(b, packets, j int64) int64 {
	if b < packets {
		if j < b {
			return 1
		}
		return 0
	}
	return max(1, min(s.mtu, b-j*s.mtu-(packets-1-j)))
}

func (s *sim) sendData(pi, fi int32) {
	f := &s.flows[fi]
	k, pk := s.dataPacket(fi, f.sndNxt, WireOverheadBytes)
	f.advance()
	wire := int64(pk.wire)
	f.lastSend, f.lastWire = s.now, wire
	if f.rp != nil && f.rp.limited {
		f.rp.onBytes(wire)
	}
	f.nextAvail = s.now + s.gap(f, wire)
	s.ports[pi].feedCap(s.now, int64(pk.payload))
	s.transmit(pi, k)
}

// dataWire is a data packet's bytes on the wire: its payload and overhead
// bytes of headers, on Ethernet at least a minimum frame.
func (s *sim) dataWire(payload, overhead int64) int64 {
	if s.ib == nil {
		return max(payload+overhead, minWireBytes)
	}
	return payload + overhead
}

// dataPacket takes data packet psn of flow fi from the pool: its payload
// and, on the wire, overhead bytes more (the transport's headers), and on
// Ethernet at least a minimum frame.
func (s *sim) dataPacket(fi int32, psn int64, overhead int64) (int32, *packet) {
	f := &s.flows[fi]
	pl := s.payload(f, psn)
	k := s.alloc()
	pk := &s.pkts[k]
	pk.kind, pk.flow, pk.dst, pk.psn = pktData, fi, f.dst, psn
	pk.sent = s.now
	pk.hash = f.hashFwd
	pk.payload, pk.wire = int32(pl), int32(s.dataWire(pl, overhead))
	pk.dscp, pk.prio = f.dscp, f.prio
	return k, pk
}

// advance counts the packet at sndNxt sent, a retransmission when it was
// sent before (go-back-N).
func (f *flowState) advance() {
	if f.sndNxt < f.sndMax {
		f.retx++
	}
	f.sndNxt++
	f.sndMax = max(f.sndMax, f.sndNxt)
}

// feedCap notes that the host fed the NIC a data packet of payload bytes
// now: behind a PCIe link slower than the port (Config.NICCapGbps) the
// next data packet waits until capFree. PCIe carries the payload alone
// (the cap is its payload rate, its own TLP and encoding overheads
// taken off); the headers, preamble and gap the packet takes on the
// wire are the NIC's, and cost the port's time, not the link's.
func (p *port) feedCap(now, payload int64) {
	if p.capped {
		p.capFree = now + (payload*8_000_000_000+p.capKbps/2)/p.capKbps
	}
}

// gap is the pacing interval after a packet of wire bytes: the
// serialization time at line rate, longer at a DCQCN-limited rate.
func (s *sim) gap(f *flowState, wire int64) int64 {
	if f.rp != nil && f.rp.limited {
		return int64(float64(wire) * 8e6 / f.rp.rc)
	}
	return s.ser(&s.ports[f.src], wire)
}

// repace re-times a flow's next packet after a rate change, as a NIC rate
// limiter does: a flow cut to a crawl must not wait out its old slow gap
// once its rate recovers.
func (s *sim) repace(fi int32) {
	f := &s.flows[fi]
	if f.lastWire == 0 {
		return
	}
	f.nextAvail = f.lastSend + s.gap(f, f.lastWire)
	if f.nextAvail <= s.now || f.nextAvail < s.ports[f.src].wakeAt {
		s.kick(f.src)
	}
}

// sendCtrl queues an ACK, NAK or CNP at NIC port pi for flow fi.
func (s *sim) sendCtrl(pi, fi int32, kind uint8, psn int64) {
	if s.ib != nil {
		s.ibSendCtrl(pi, fi, kind, psn)
		return
	}
	dscp, wire := s.flows[fi].dscp, int32(AckWireBytes)
	if kind == pktCNP {
		dscp, wire = s.cnpDSCP, CNPWireBytes
	}
	k, pk := s.ctrlPacket(fi, kind, psn, dscp, wire)
	pk.sent = s.now
	pk.prio = s.nodes[s.ports[pi].node].prio[dscp]
	s.queueCtrl(pi, k)
}

// ctrlPacket takes a control packet of flow fi from the pool, addressed
// back to the flow's sender on the reverse hash: its kind (ACK, NAK, CNP,
// a UET pull), PSN, DSCP and size on the wire. The caller sets the rest
// (its priority first) and queues it (queueCtrl).
func (s *sim) ctrlPacket(fi int32, kind uint8, psn int64, dscp uint8, wire int32) (int32, *packet) {
	f := &s.flows[fi]
	k := s.alloc()
	pk := &s.pkts[k]
	pk.kind, pk.flow, pk.dst, pk.psn = kind, fi, f.src, psn
	pk.hash = f.hashRev
	pk.dscp, pk.wire = dscp, wire
	return k, pk
}

// queueCtrl queues control packet k at NIC port pi in its priority's
// queue, which a NIC serves before its QPs' data, and lets the port send.
func (s *sim) queueCtrl(pi, k int32) {
	s.enqueue(&s.ports[pi], s.pkts[k].prio, k)
	s.kick(pi)
}

// afterCut restarts a flow's rate-increase timer after a cut and re-times
// its next packet at the new rate.
func (s *sim) afterCut(fi int32) {
	f := &s.flows[fi]
	s.push(s.now+s.dc.timer, evRateTimer, fi, 0, f.rp.gen)
	s.repace(fi)
}

// --- NIC: receiving ---

func (s *sim) hostReceive(pi, k int32) {
	if s.ib != nil && s.pkts[k].uflags&ibSeen == 0 {
		s.ibArrive(pi, k)
		return
	}
	pk := s.pkts[k]
	s.release(k)
	if s.ports[pi].storming != 0 {
		// A stuck NIC drains nothing: what reaches it is lost.
		s.ports[pi].c[pk.prio].drops++
		return
	}
	if pk.dst != pi {
		// A host never forwards; routing cannot deliver here.
		s.ports[pi].c[pk.prio].drops++
		return
	}
	if s.uet {
		s.uetReceive(pi, &pk)
		return
	}
	f := &s.flows[pk.flow]
	switch pk.kind {
	case pktData:
		s.receiveData(pi, pk.flow, f, &pk)
	case pktAck, pktNak:
		if pk.psn > f.sndUna {
			f.sndUna = pk.psn
			f.lastProgress = s.now
			f.retriesLeft = s.retries
			f.winEnd = s.windowEnd(f)
			if f.ping != nil {
				s.pingPosted(pk.flow)
			}
		}
		if pk.kind == pktNak {
			f.naksRecv++
			if f.sndNxt > pk.psn {
				f.sndNxt = pk.psn
			}
		}
		if f.sndNxt < f.sndUna {
			// An ACK past what go-back-N resent: the QP may have no data
			// left, which a scan parks.
			f.sndNxt = f.sndUna
			if f.inRR && s.ib == nil && !f.hasData() { // InfiniBand's NICs walk no round robin
				s.suspect(&s.ports[f.src], pk.flow)
			}
		}
		if f.total != math.MaxInt64 && f.sndUna >= f.total {
			f.sendDone = true
			s.retire(f.src, pk.flow)
		} else {
			s.unpark(pk.flow)
		}
		s.kick(f.src)
	case pktCNP:
		f.cnpsRecv++
		if s.ib != nil {
			s.ibBECN(pk.flow) // a BECN
			return
		}
		if s.cfg.DCQCNEnabled && !f.sendDone {
			if f.rp == nil {
				rp := newReactionPoint(&s.dc, s.ports[f.src].lineMbps)
				f.rp = &rp
			}
			cutNow, cutAt := f.rp.onCNP(s.now)
			if cutNow {
				s.afterCut(pk.flow)
			} else if cutAt > 0 {
				s.push(cutAt, evRateCut, pk.flow, 0, 0)
			}
		}
	}
}

func (s *sim) receiveData(pi, fi int32, f *flowState, pk *packet) {
	if last, due := s.cnpDue(pi, f, pk.ce, s.now); due {
		*last = s.now
		f.cnpsSent++
		s.sendCtrl(pi, fi, pktCNP, pk.psn)
	}
	switch {
	case pk.psn == f.rcvNxt:
		s.deliver(pi, fi, f, int64(pk.payload), pk.sent, s.now)
		// Packets placed out of order earlier complete behind it, counted
		// at their arrival (see oooPkt).
		for f.ooo != nil && !f.rcvDone {
			o, ok := f.ooo[f.rcvNxt]
			if !ok {
				break
			}
			delete(f.ooo, f.rcvNxt)
			s.deliver(pi, fi, f, int64(o.payload), o.sent, o.at)
		}
	case pk.psn > f.rcvNxt:
		if s.cfg.OutOfOrder {
			// Out-of-order placement: keep it, and take the gap for a
			// loss (NAK it) only once it has stayed open for
			// oooLossDelay, so reordering by the fabric, which spreads a
			// flow's packets over paths whose queues differ by tens of
			// microseconds at most, costs no retransmission.
			if f.ooo == nil {
				f.ooo = map[int64]oooPkt{}
			}
			if _, dup := f.ooo[pk.psn]; !dup {
				f.ooo[pk.psn] = oooPkt{payload: pk.payload, sent: pk.sent, at: s.now}
			}
			if f.gapPSN != f.rcvNxt {
				f.gapPSN, f.gapSince = f.rcvNxt, s.now
			}
			if s.now-f.gapSince < oooLossDelay {
				return
			}
		}
		// One NAK per gap; with NAKRepeat also again for the same gap
		// once that long has passed.
		if f.nakPSN != f.rcvNxt || (s.nakRepeat > 0 && s.now-f.lastNak >= s.nakRepeat) {
			f.nakPSN = f.rcvNxt
			f.lastNak = s.now
			s.sendCtrl(pi, fi, pktNak, f.rcvNxt)
		}
	default:
		// A duplicate after a go-back: remind the sender where we are.
		if s.now-f.lastAck >= s.ackTimer {
			f.lastAck = s.now
			s.sendCtrl(pi, fi, pktAck, f.rcvNxt)
		}
	}
}

// cnpDue says whether a data packet of flow f arriving at NIC port pi at
// time now, CE-marked or not, makes the receiver send a CNP (one per
// cnpInterval, per QP or per port), and where the time of the last CNP,
// which the interval runs from, is kept.
func (s *sim) cnpDue(pi int32, f *flowState, ce bool, now int64) (*int64, bool) {
	last := &f.lastCNP
	if s.cfg.CNPPerPort {
		last = &s.ports[pi].lastCNP
	}
	return last, ce && s.cfg.DCQCNEnabled && now-*last >= s.dc.cnpInterval
}

// oooLossDelay: with out-of-order placement, a gap still open this long
// (ps) after the first packet beyond it arrived is taken for a loss.
const oooLossDelay = 100_000_000

// deliver takes packet rcvNxt (payload bytes, sent at sent, arrived at
// at): counts it by its arrival, acknowledges as the receiver does, and
// completes messages and the flow.
func (s *sim) deliver(pi, fi int32, f *flowState, payload, sent, at int64) {
	s.countDelivered(f, payload, sent, at)
	last, msgEnd, ack := s.deliverActs(f, f.rcvNxt, f.pendingAck, s.now)
	if ack {
		f.pendingAck = 0
		f.lastAck = s.now
		s.sendCtrl(pi, fi, pktAck, f.rcvNxt)
	}
	if msgEnd {
		switch {
		case f.ring != nil:
			s.ringReceived(f, f.rcvNxt/f.perMsg-1)
		case f.stream != nil:
			s.received(f.stream.self)
		default:
			s.pingReceived(f)
		}
	}
	if last {
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
}

// countDelivered counts packet rcvNxt of flow f (payload bytes, sent at
// sent) delivered, as yet unacknowledged; now is when it arrived, which
// the goodput window and the latency sample go by.
func (s *sim) countDelivered(f *flowState, payload, sent, now int64) {
	f.rcvNxt++
	f.delivered += payload
	s.work.delivered += payload
	if s.inWindow(f, now) {
		f.winBytes += payload
	}
	if now >= s.warmup {
		// Latency, like goodput, is the measurement window's.
		if f.hist.counts != nil {
			f.hist.add((now - sent) / 1000)
		} else {
			s.allHist.add((now - sent) / 1000)
		}
	}
	f.pendingAck++
}

// deliverActs says what delivering a flow's packet does beyond counting
// it, when that makes rcvNxt packets delivered and pendingAck unacknowledged
// at time now: whether it is the flow's last, ends a message, and is
// acknowledged (deliver's decision, and arrivesQuietly's in advance).
func (s *sim) deliverActs(f *flowState, rcvNxt, pendingAck, now int64) (last, msgEnd, ack bool) {
	last = rcvNxt == f.total
	// A ring QP's or a program stream's receiver completes a message at
	// each message end, a ping-pong's side sees the other's write arrive.
	msgEnd = (f.ring != nil || f.stream != nil || f.ping != nil) && rcvNxt%f.perMsg == 0
	// A sender with a tx depth waits for its messages' completions, so it
	// asks for ACKs itself (the BTH AckReq bit, as rxe does): on every
	// message's last packet and every AckEvery packets within a message,
	// a grid of its own that the receiver's timer ACKs do not shift.
	// Other flows are acknowledged every AckEvery packets since the last
	// ACK.
	coalesced := pendingAck >= s.ackEvery
	if f.depthPkts > 0 {
		in := rcvNxt % f.depthPkts
		coalesced = in%s.ackEvery == 0
	}
	ack = last || msgEnd || coalesced || now-f.lastAck >= s.ackTimer
	return last, msgEnd, ack
}

// newHist takes a latency histogram's counts from the pool: only flows in
// progress hold them, so a collective of millions of short flows stays
// small.
func (s *sim) newHist() *histCounts {
	if n := len(s.histPool); n > 0 {
		c := s.histPool[n-1]
		s.histPool = s.histPool[:n-1]
		*c = histCounts{}
		return c
	}
	return new(histCounts)
}

// closeHist freezes a flow's latency percentiles, folds its samples into
// the run's histogram and returns the counts to the pool.
func (s *sim) closeHist(f *flowState) {
	if f.hist.counts == nil {
		return
	}
	f.lat = Latency{P50: f.hist.quantile(0.5), P99: f.hist.quantile(0.99), Max: f.hist.max}
	s.allHist.mergeFlow(&f.hist)
	s.histPool = append(s.histPool, f.hist.counts)
	f.hist = histogram{}
}

// rtoCheck goes back to the first unacknowledged packet when nothing was
// acknowledged for a whole local ACK timeout with packets outstanding;
// after the QP's retry count of timeouts in a row the QP fails.
func (s *sim) rtoCheck(fi int32) {
	if s.uet {
		s.uetRTO(fi)
		return
	}
	f := &s.flows[fi]
	if f.sendDone || f.failed {
		return
	}
	if f.sndUna < f.sndMax && s.now-f.lastProgress >= s.rto {
		s.lastEvent = max(s.lastEvent, s.now) // it acts (noteEvent)
		f.timeouts++
		if s.retries >= 0 && f.retriesLeft <= 0 {
			f.failed = true
			f.failedAt = s.now
			f.sendDone = true
			s.retire(f.src, fi)
			return
		}
		f.retriesLeft--
		f.sndNxt = f.sndUna
		f.lastProgress = s.now
		s.unpark(fi)
		s.kick(f.src)
	}
	next := f.lastProgress + s.rto
	if next <= s.now {
		if f.stream != nil && f.sndUna == f.sndMax && f.sndNxt >= f.avail {
			// A program stream with everything acknowledged and nothing
			// posted: its timer stops until post posts a message, so a
			// program stuck behind a failed QP lets the run end.
			f.rtoIdle = true
			return
		}
		// Nothing outstanding (a slow or paced-out sender): look again
		// one timeout from now.
		next = s.now + s.rto
	}
	s.push(next, evRTO, fi, 0, 0)
}

// --- sampling ---

func (s *sim) sample() {
	ser := s.series
	ser.TimesNs = append(ser.TimesNs, s.now/1000)
	for i, pi := range s.watch {
		p := &s.ports[pi]
		var b int64
		paused := false
		for pr := range p.lane {
			b += p.lane[pr].q.bytes
			paused = paused || p.lane[pr].pauseUntil > s.now
		}
		ser.Queues[i].Bytes = append(ser.Queues[i].Bytes, b)
		ser.Queues[i].Paused = append(ser.Queues[i].Paused, paused)
		s.samplePriorities(i, pi, len(ser.Queues[i].Bytes)-1)
	}
	if len(s.rated) == 0 {
		return
	}
	// Every rated flow counts in the total; those not NoRateSeries have
	// series of their own, in the same order.
	var total float64
	own := ser.Rates
	for _, fi := range s.rated {
		f := &s.flows[fi]
		// Bytes placed out of order count in the sample they arrived in,
		// as the goodput window counts them (oooPkt). (Summed here rather
		// than kept in a field, which would take flowState past its cache
		// lines: a sample is rare beside the packets.)
		placed := f.delivered + placedSince(f, math.MinInt64)
		gp := round3(float64(placed-f.sampledBytes) * 8 * 1000 / float64(s.sampleT))
		f.sampledBytes = placed
		total += gp
		if !f.f.NoRateSeries {
			r := &own[0]
			own = own[1:]
			r.RateGbps = append(r.RateGbps, round3(s.flowRateGbps(fi)))
			r.GoodputGbps = append(r.GoodputGbps, gp)
		}
	}
	ser.GoodputGbps = append(ser.GoodputGbps, total)
}

// takeSample takes the time series' sample at s.now and returns when the
// next is due, or math.MaxInt64 once every sample to the end of the run is
// in. A run's sized work (a collective, an nccl sweep) often ends long
// before its duration, which the series still cover: once a sample found
// the fabric quiet to the end of the run (quietToTheEnd), the next one,
// whose goodput is zero, is the value of every later one, and is repeated
// rather than taken again (a tenth of nccl-allreduce's CPU on 64gpu went
// to sampling the idle fabric up to 1 s).
func (s *sim) takeSample() int64 {
	s.sample()
	next := s.now + s.sampleT
	if next > s.end {
		return math.MaxInt64
	}
	if s.quietSample && !s.sampleEveryTime {
		s.repeatLastSample(next)
		return math.MaxInt64
	}
	s.quietSample = s.quietToTheEnd()
	return next
}

// quietToTheEnd reports whether nothing a sample reads can change before
// the run ends: every event due by then, in the run's queue and every
// partition's (and none in an outbox), is a PFC watchdog's poll, and no
// watchdog's poll can act before the end (watchdogMayAct: a pause that
// outlasts the run, its expiry queued beyond the end, may still be
// detected as a storm and lifted). Otherwise a poll changes nothing, a
// pause that ends by the end has its expiry due, and rates, queues and
// buffers move only in handlers. Timers beyond the end (a local ACK
// timeout) never run.
func (s *sim) quietToTheEnd() bool {
	busy := func(q *eventQueue) bool {
		for e := range q.all() {
			if e.t <= s.end && e.kind != evWatchdog {
				return true
			}
		}
		return false
	}
	if busy(&s.q) || len(s.ahead) > 0 {
		return false // (quiet arrivals still to arrive are events to come)
	}
	if s.par != nil {
		for _, p := range s.par.parts {
			if p.part.minSent <= s.end || busy(&p.q) {
				return false
			}
		}
	}
	// Last: the queues, which a busy run fails at its first event, come
	// first.
	for i := range s.wds {
		if s.watchdogMayAct(&s.wds[i], s.end) {
			return false
		}
	}
	return true
}

// repeatLastSample records that every sample from t to the end of the
// run has the values of the last one taken (Series.Repeated), as taking
// them would give. They are not written out (Series.Expanded does): on
// 64gpu's nccl-allreduce that copied 6,100 samples of each series, 4.5%
// of the run's CPU in its profile and 35 MB of its peak memory.
func (s *sim) repeatLastSample(t int64) {
	s.series.Repeated = int((s.end-t)/s.sampleT + 1)
}

// samplePriorities adds sample k of watched port i (port pi) per
// priority: the priorities that used the port so far get a series, filled
// with zeros for the samples before.
func (s *sim) samplePriorities(i int, pi int32, k int) {
	p := &s.ports[pi]
	ps := &s.series.Queues[i]
	for pr := range uint8(8) {
		at := s.watchPrio[i][pr]
		if at == 0 {
			if p.lane[pr].qh == nil && p.c[pr].pauseRx == 0 && p.c[pr].pauseTx == 0 {
				continue
			}
			c := max(k+1, s.seriesCap)
			ps.Priorities = append(ps.Priorities, PrioritySeries{Priority: int(pr), Queue: int(p.queueOf[pr]), PG: int(p.pgOf[pr]),
				QueueBytes: make([]int64, k, c), PausedRx: make([]bool, k, c), PGBytes: make([]int64, k, c),
				XOFFBytes: make([]int64, k, c), PauseTx: make([]bool, k, c)})
			at = uint8(len(ps.Priorities))
			s.watchPrio[i][pr] = at
		}
		q := &ps.Priorities[at-1]
		st := &p.pg[p.pgOf[pr]]
		var xoffAt int64
		if st.lossless && st.adm.pool >= 0 {
			xoffAt = st.adm.reserved + s.limit(&s.nodes[p.node], &st.adm)
		}
		q.QueueBytes = append(q.QueueBytes, p.lane[p.queueOf[pr]].q.bytes)
		q.PausedRx = append(q.PausedRx, p.lane[p.pauseQ[pr]].pauseUntil > s.now)
		q.PGBytes = append(q.PGBytes, st.min+st.shared+st.hdr)
		q.XOFFBytes = append(q.XOFFBytes, xoffAt)
		paused := false
		for g := range p.pg {
			if p.pg[g].xoff && slices.Contains(p.pg[g].prios, pr) {
				paused = true
			}
		}
		q.PauseTx = append(q.PauseTx, paused && p.wdIgnore&(1<<pr) == 0)
	}
}

func (s *sim) flowRateGbps(fi int32) float64 {
	f := &s.flows[fi]
	if !f.started || f.sendDone {
		return 0
	}
	if f.utx != nil {
		return s.uetRateGbps(f)
	}
	p := &s.ports[f.src]
	r := p.lineMbps
	if f.rp != nil {
		r = f.rp.rc
	} else if s.ib != nil {
		r = s.ibRateMbps(fi, r)
	}
	if p.capMbps > 0 {
		// The cap is on payload (feedCap): full packets leave at the cap
		// times their wire bytes over their payload.
		r = min(r, p.capMbps*float64(s.mtu+s.dataOverhead())/float64(s.mtu))
	}
	return r / 1000
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
