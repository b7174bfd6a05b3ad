package sim

import (
	"fmt"
	"math"
)

// Link faults: a link goes down (packets on it and queued for it are
// lost), the switches at its ends stop routing over it after the
// detection delay and every other switch after the convergence delay;
// each switch routes with its own view of which links are down, so during
// convergence packets can be black-holed (a switch still hashing onto the
// dead link) or bounced (a switch routing around it through a neighbour
// that has not heard yet).

// faultLink is one link that has a LinkFault.
type faultLink struct {
	a, b int32 // its two ports
}

// MaxFaultLinks bounds the links with faults: a switch's view of them is
// one bit each.
const MaxFaultLinks = 64

// Timeline kinds, in Mark.Kind.
const (
	MarkLinkDown         = "link down"
	MarkLinkUp           = "link up"
	MarkRoutesUpdated    = "routes updated"
	MarkStormStart       = "pfc storm start"
	MarkStormEnd         = "pfc storm end"
	MarkWatchdogStorm    = "watchdog storm detected"
	MarkWatchdogRestored = "watchdog restored"
)

// Mark is a moment of the run worth showing on a time axis: a fault, a
// routing change, a watchdog action.
type Mark struct {
	TimeNs int64  `json:"t_ns"`
	Kind   string `json:"kind"`
	Where  string `json:"where"`
	Detail string `json:"detail,omitempty"`
}

func (s *sim) mark(kind, where, detail string) {
	s.timeline = append(s.timeline, Mark{TimeNs: s.now / 1000, Kind: kind, Where: where, Detail: detail})
}

// FaultError is the simulator's refusal of a run's link faults (Config
// Faults, in their order: a flap is one fault per down time): a problem of
// the scenario's faults, where an error of the simulator otherwise comes
// from the lab's configs.
type FaultError struct{ msg string }

func (e *FaultError) Error() string { return "sim: " + e.msg }

func faultErrorf(format string, a ...any) error { return &FaultError{fmt.Sprintf(format, a...)} }

// buildFaults checks the link faults and storms and schedules them.
func (s *sim) buildFaults() error {
	if len(s.cfg.Faults) > 0 {
		s.portFault = make([]int8, len(s.ports))
		for j := range s.portFault {
			s.portFault[j] = -1
		}
	}
	for i, f := range s.cfg.Faults {
		pi, ok := s.portByRef[f.Link]
		if !ok {
			return faultErrorf("fault %d: no port %s (name a link by one of its ends, node:port)", i, f.Link)
		}
		if f.DownNs < 0 || f.DownNs*1000 > s.end {
			return faultErrorf("fault %d on %s: down at %d ns is outside the run (0..%d ns)", i, f.Link, f.DownNs, s.end/1000)
		}
		if f.UpNs != 0 && f.UpNs <= f.DownNs {
			return faultErrorf("fault %d on %s: up at %d ns is not after down at %d ns (leave it 0 to keep the link down)", i, f.Link, f.UpNs, f.DownNs)
		}
		if f.DetectNs > maxTimeNs || f.ConvergeNs > maxTimeNs {
			return faultErrorf("fault %d on %s: detection or convergence delay beyond %d ns", i, f.Link, int64(maxTimeNs))
		}
		lo := min(pi, s.ports[pi].peer)
		k := s.portFault[lo]
		if k < 0 {
			if len(s.faultLinks) == MaxFaultLinks {
				return faultErrorf("fault %d on %s: faults on more than %d links", i, f.Link, MaxFaultLinks)
			}
			k = int8(len(s.faultLinks))
			s.faultLinks = append(s.faultLinks, faultLink{a: lo, b: s.ports[lo].peer})
			s.portFault[lo], s.portFault[s.ports[lo].peer] = k, k
		}
		s.push(f.DownNs*1000, evLinkChange, int32(k), int32(i), 0)
		if f.UpNs > 0 && f.UpNs*1000 <= s.end {
			s.push(f.UpNs*1000, evLinkChange, int32(k), int32(i), 1)
		}
	}
	// Overlapping faults on one link would make its state ambiguous.
	for i, f := range s.cfg.Faults {
		for j := i + 1; j < len(s.cfg.Faults); j++ {
			g := s.cfg.Faults[j]
			if s.portFault[s.portByRef[f.Link]] != s.portFault[s.portByRef[g.Link]] {
				continue
			}
			fEnd, gEnd := f.UpNs, g.UpNs
			if fEnd == 0 {
				fEnd = s.end / 1000
			}
			if gEnd == 0 {
				gEnd = s.end / 1000
			}
			if f.DownNs < gEnd && g.DownNs < fEnd {
				return faultErrorf("faults %d and %d overlap on the link of %s: give one link one down time at a time", i, j, f.Link)
			}
		}
	}
	if len(s.faultLinks) > 0 {
		s.nodeView = make([]uint64, len(s.nodes))
		s.startRoutes()
	}
	for i, st := range s.cfg.Storms {
		pi, err := s.resolveNIC(st.NIC)
		if err != nil {
			return errorf("storm %d: %v", i, err)
		}
		if st.Priority < 0 || st.Priority > 7 {
			return errorf("storm %d on %s: priority %d out of range 0..7", i, st.NIC, st.Priority)
		}
		if st.StartNs < 0 || st.StartNs*1000 > s.end || (st.EndNs != 0 && st.EndNs <= st.StartNs) {
			return errorf("storm %d on %s: start %d ns and end %d ns must lie in the run, end after start (0: the end of the run)", i, st.NIC, st.StartNs, st.EndNs)
		}
		s.push(st.StartNs*1000, evStorm, pi, int32(i), 0)
	}
	return nil
}

// startRoutes records each QP's path and route (flowState.path, route)
// as the switches route it with the links down from the start taken out
// (faults down at 0 that every switch learns at once: a port its config
// keeps administratively down, FEC modes that differ), which is where its
// data goes from its first packet on; they were traced with every link
// up, a route no packet takes, and the record's qps_on_failed_links and
// rerouted_qps counted from it. A QP that cannot arrive so keeps its
// route with every link up (its data is lost where the route ends). The
// routing itself is not changed: the faults' events at 0 take the links
// out as before.
func (s *sim) startRoutes() {
	var mask uint64
	for _, f := range s.cfg.Faults {
		if f.DownFromStart() {
			mask |= 1 << uint(s.portFault[s.portByRef[f.Link]])
		}
	}
	if mask == 0 || s.cfg.Transport == TransportInfiniBand {
		return // the subnet manager's routes are traced apart (ib.go)
	}
	for u := range s.nodes {
		if s.nodes[u].kind == Switch {
			s.nodeView[u] = mask
		}
	}
	clear(s.routes)
	clear(s.leafRoutes)
	paths := pathCache{}
	for i := range s.flows {
		f := &s.flows[i]
		if f.route == nil {
			continue // a quiet QP, or one that keeps no path
		}
		k := pathKey{f.src, f.dst, f.hashFwd}
		p, ok := paths[k]
		if !ok {
			var arrives bool
			if p.path, p.route, arrives = s.tracePath(f.src, f.dst, f.hashFwd); !arrives {
				continue
			}
			paths[k] = p
		}
		f.path, f.route = p.path, p.route
	}
	clear(s.nodeView)
	clear(s.routes)
	clear(s.leafRoutes)
}

// linkChange applies fault fi to fault link k: down (up false) or up.
func (s *sim) linkChange(k, fi int32, up bool) {
	fl := s.faultLinks[k]
	// Each end's queues, packets and random stream are its partition's in
	// a split run (between windows, so all are at s.now).
	ea, eb := s, s
	if s.par != nil {
		ea, eb = s.par.at(fl.a, s.now), s.par.at(fl.b, s.now)
	}
	a, b := &s.ports[fl.a], &s.ports[fl.b]
	where := fmt.Sprintf("%s - %s", a.ref, b.ref)
	if s.ib != nil {
		s.ibLinkChange(fl.a, fl.b, up)
	}
	if up {
		a.down, b.down = false, false
		s.mark(MarkLinkUp, where, "")
		ea.kick(fl.a)
		eb.kick(fl.b)
	} else {
		a.down, b.down = true, true
		lost := ea.loseInFlight(fl.a, fl.b) + s.par.loseInBoxes(fl.a, fl.b)
		if eb != ea {
			lost += eb.loseInFlight(fl.a, fl.b)
		}
		lost += ea.flushPort(fl.a) + eb.flushPort(fl.b)
		detail := fmt.Sprintf("packets lost on the wire and in its queues: %d", lost)
		if why := s.cfg.Faults[fi].Why; why != "" {
			detail = why + "; " + detail
		}
		s.mark(MarkLinkDown, where, detail)
	}
	s.learnLater(k, fi, up)
}

// learnLater schedules the routing updates of fault fi on fault link k:
// the ends learn after the detection delay, the rest after the
// convergence delay; the event carries the state to learn.
func (s *sim) learnLater(k, fi int32, up bool) {
	fl := s.faultLinks[k]
	f := &s.cfg.Faults[fi]
	state := int32(0)
	if !up {
		state = 1
	}
	for _, end := range []int32{fl.a, fl.b} {
		if n := s.ports[end].node; s.nodes[n].kind == Switch {
			s.push(s.now+delayPs(f.DetectNs, DefaultDetectNs), evRouteLearn, k, n, uint32(state))
		}
	}
	s.push(s.now+delayPs(f.ConvergeNs, DefaultConvergeNs), evRouteLearn, k, -1, uint32(state))
}

// delayPs is a fault delay in ps: negative means none, 0 the default.
func delayPs(ns, def int64) int64 {
	switch {
	case ns < 0:
		return 0
	case ns == 0:
		return def * 1000
	}
	return ns * 1000
}

// routeLearn sets fault link k's state (down != 0) in the view of switch
// n, or of every switch other than the link's ends when n is -1, and
// drops the route tables so they are rebuilt from the new views.
func (s *sim) routeLearn(k, n int32, down uint32) {
	fl := s.faultLinks[k]
	ends := [2]int32{s.ports[fl.a].node, s.ports[fl.b].node}
	bit := uint64(1) << k
	changed := 0
	for u := range s.nodes {
		if s.nodes[u].kind != Switch {
			continue
		}
		if n >= 0 && int32(u) != n || n < 0 && (int32(u) == ends[0] || int32(u) == ends[1]) {
			continue
		}
		old := s.nodeView[u]
		if down != 0 {
			s.nodeView[u] |= bit
		} else {
			s.nodeView[u] &^= bit
		}
		if s.nodeView[u] != old {
			changed++
		}
	}
	if changed == 0 {
		return
	}
	clear(s.routes)
	clear(s.leafRoutes)
	if s.ib != nil {
		// The subnet manager recomputes every LFT.
		s.ib.lft = nil
	}
	if s.par != nil {
		// Partitions read the tables at once: build them all now rather
		// than on first use.
		s.routeAll()
		if s.ib != nil {
			s.ibBuildLFT()
		}
	}
	who := "every other switch"
	if n >= 0 {
		who = s.nodes[n].name
	}
	state := "up"
	if down != 0 {
		state = "down"
	}
	s.mark(MarkRoutesUpdated, who, fmt.Sprintf("%s - %s %s", s.ports[fl.a].ref, s.ports[fl.b].ref, state))
}

// blocked reports whether a switch with view mask routes around port p.
func (s *sim) blocked(mask uint64, p int32) bool {
	if mask == 0 || s.portFault == nil {
		return false
	}
	k := s.portFault[p]
	return k >= 0 && mask&(1<<uint(k)) != 0
}

// loseInFlight marks the packets on the wire between ports a and b as
// lost: they arrive nowhere.
func (s *sim) loseInFlight(a, b int32) int {
	n := 0
	for e := range s.q.all() {
		if e.kind == evArrive && (e.a == a || e.a == b) && !s.pkts[e.b].lost {
			s.pkts[e.b].lost = true
			n++
		}
	}
	return n
}

// flushPort drops everything queued at port pi (its link went down).
func (s *sim) flushPort(pi int32) int {
	p := &s.ports[pi]
	n := 0
	for pr := range p.lane {
		for p.lane[pr].q.n > 0 {
			k := s.dequeue(p, uint8(pr))
			switch {
			case s.ib != nil:
				if !p.host {
					s.ibFlushed(pi, k)
				}
			case !p.host:
				s.releaseBuffer(pi, &s.pkts[k])
			}
			c := &p.c[s.pkts[k].prio]
			c.drops++
			c.linkDrops++
			s.release(k)
			n++
		}
		// Pauses from the dead peer end with the link.
		if p.lane[pr].pauseUntil > s.now {
			p.c[pr].pausedNs += s.now - p.pausedSince[pr]
			p.lane[pr].pauseUntil = 0
		}
	}
	return n
}

// viewsOf returns the distinct views of the switches (bit masks of fault
// links believed down) and each node's index among them.
func (s *sim) viewsOf() ([]uint64, []int) {
	if s.nodeView == nil {
		return []uint64{0}, nil
	}
	var views []uint64
	idx := make([]int, len(s.nodes))
	for u, m := range s.nodeView {
		j := -1
		for i, v := range views {
			if v == m {
				j = i
				break
			}
		}
		if j < 0 {
			j = len(views)
			views = append(views, m)
		}
		idx[u] = j
	}
	return views, idx
}

// --- PFC storms ---

// storm starts storm si at NIC port pi, or refreshes it (gen 1).
func (s *sim) storm(pi, si int32, refresh bool) {
	st := &s.cfg.Storms[si]
	p := &s.ports[pi]
	pr := uint8(st.Priority)
	end := st.EndNs * 1000
	if end == 0 || end > s.end {
		end = s.end
	}
	if s.now >= end {
		if end < s.end { // a storm that lasts the run has no end to show
			p.storming &^= 1 << pr
			s.mark(MarkStormEnd, p.ref.String(), fmt.Sprintf("priority %d", pr))
			s.kick(pi)
		}
		return
	}
	if !refresh {
		p.storming |= 1 << pr
		s.mark(MarkStormStart, p.ref.String(), fmt.Sprintf("priority %d", pr))
	}
	s.sendPause(pi, pr, true, s.now)
	s.push(min(s.now+s.pauseDurationPs(p)/2, end), evStorm, pi, si, 1)
}

// --- PFC watchdog ---

// wdState is the PFC watchdog of one switch port and priority.
type wdState struct {
	port             int32
	prio             uint8
	cfg              Watchdog
	poll             int64 // ps
	stormed          bool
	storms, restores int64
}

// Watchdog defaults: SONiC's poll interval (orchagent's PFC_WD flex
// counter group polls every 100 ms).
const DefaultWatchdogPollNs = 100_000_000

func (s *sim) buildWatchdogs() error {
	for pi := range s.ports {
		p := &s.ports[pi]
		if p.host {
			continue
		}
		for pr := range 8 {
			w := s.portQoS[pi][pr].Watchdog
			// A priority held in the drop action from the start
			// (WatchdogDrop) has no watchdog that declares or ends a
			// storm: SONiC's BIG_RED_SWITCH ignores storm notifications
			// while it is on (startWdActionOnQueue).
			if w == nil || !s.portQoS[pi][pr].PFC || s.portQoS[pi][pr].WatchdogDrop {
				continue
			}
			if w.DetectionNs <= 0 || w.RestorationNs < 0 || w.PollNs < 0 || w.DetectionNs > maxTimeNs || w.RestorationNs > maxTimeNs || w.PollNs > maxTimeNs {
				return errorf("port %s priority %d: watchdog detection %d ns must be positive, restoration %d ns and poll %d ns not negative", p.ref, pr, w.DetectionNs, w.RestorationNs, w.PollNs)
			}
			switch w.Action {
			case "drop", "forward", "alert", "errdisable":
			default:
				return errorf("port %s priority %d: watchdog action %q: use drop, forward, alert or errdisable", p.ref, pr, w.Action)
			}
			poll := w.PollNs
			if poll == 0 {
				poll = DefaultWatchdogPollNs
			}
			s.wds = append(s.wds, wdState{port: int32(pi), prio: uint8(pr), cfg: *w, poll: poll * 1000})
			// Each switch polls on its own clock: the first poll comes
			// at a phase drawn from the seed and the switch's name, so
			// switches along a storm's path do not all look at once.
			phase := int64(mix64(uint64(s.cfg.Seed)^hashString("pfcwd", s.nodes[p.node].name)) % uint64(poll*1000))
			s.push(phase, evWatchdog, int32(len(s.wds)-1), 0, 0)
		}
	}
	return nil
}

// watchdogPoll is one poll of watchdog i. A storm is a priority paused
// without a break (so sending nothing) for the detection time: declared
// at the first poll at least DetectionNs after the pause began, so within
// DetectionNs + PollNs of it. The stormed port is restored at the first
// poll RestorationNs after the last pause frame it received (for "alert",
// as soon as the pause is over).
func (s *sim) watchdogPoll(i int32) {
	wd := &s.wds[i]
	p := &s.ports[wd.port]
	pr := wd.prio
	q := p.pauseQ[pr] // the queue the priority's pauses stop
	where := fmt.Sprintf("%s priority %d", p.ref, pr)
	switch {
	case !wd.stormed:
		if s.now >= s.stormDetectedAt(wd) {
			wd.stormed = true
			wd.storms++
			s.lastEvent = max(s.lastEvent, s.now) // a poll that acts (noteEvent)
			s.mark(MarkWatchdogStorm, where, fmt.Sprintf("action %s, paused since %.3f ms", wd.cfg.Action, float64(p.pausedSince[q])/1e9))
			s.watchdogAct(wd, true)
		}
	case wd.cfg.Action == "errdisable":
		// EOS leaves an errdisabled port down (errdisable recovery for
		// the PFC watchdog is off by default).
	case wd.cfg.Action == "alert" && !p.paused(q, s.now),
		wd.cfg.Action != "alert" && s.now >= s.stormEndsAt(wd):
		wd.stormed = false
		wd.restores++
		s.lastEvent = max(s.lastEvent, s.now)
		s.mark(MarkWatchdogRestored, where, "")
		s.watchdogAct(wd, false)
	}
	if next := s.now + wd.poll; next <= s.end {
		s.push(next, evWatchdog, i, 0, 0)
	}
}

// stormDetectedAt is the time from which a poll of wd detects a storm on
// its queue as it is paused now: the detection time after the pause began
// (math.MaxInt64 while the queue is not paused).
func (s *sim) stormDetectedAt(wd *wdState) int64 {
	p := &s.ports[wd.port]
	q := p.pauseQ[wd.prio]
	if !p.paused(q, s.now) {
		return math.MaxInt64
	}
	return p.pausedSince[q] + wd.cfg.DetectionNs*1000
}

// stormEndsAt is the time from which a poll of a drop or forward watchdog
// in a storm ends it: the restoration time after the last pause frame came
// (math.MaxInt64 without a restoration time: never).
func (s *sim) stormEndsAt(wd *wdState) int64 {
	if wd.cfg.RestorationNs <= 0 {
		return math.MaxInt64
	}
	return s.ports[wd.port].lastPauseRxAt[wd.prio] + wd.cfg.RestorationNs*1000
}

// watchdogMayAct reports whether a poll of wd at or before by could change
// its port, by watchdogPoll's cases, with no other event in between: detect
// a storm (stormDetectedAt) or end one: an errdisabled port stays down,
// drop and forward restore at stormEndsAt, and alert (which changes only
// the watchdog's own state) is taken as able to. The time series stop
// sampling a fabric no watchdog may act on (quietToTheEnd).
func (s *sim) watchdogMayAct(wd *wdState, by int64) bool {
	switch {
	case !wd.stormed:
		return s.stormDetectedAt(wd) <= by
	case wd.cfg.Action == "errdisable":
		return false
	case wd.cfg.Action == "alert":
		return true
	default:
		return s.stormEndsAt(wd) <= by
	}
}

// watchdogAct applies (on) or lifts the watchdog's action on its port.
func (s *sim) watchdogAct(wd *wdState, on bool) {
	if wd.cfg.Action == "alert" {
		return
	}
	p := &s.ports[wd.port]
	bit := uint8(1) << wd.prio
	if !on {
		p.wdIgnore &^= bit
		p.wdDrop &^= bit
		return
	}
	if wd.cfg.Action == "errdisable" {
		// The port goes down; the switch does not reroute around it (for
		// the usual case, a port facing a stuck host, there is no other
		// way to that host anyway).
		peer := p.peer
		p.down, s.ports[peer].down = true, true
		lost := s.loseInFlight(wd.port, peer) + s.flushPort(wd.port) + s.flushPort(peer)
		s.mark(MarkLinkDown, p.ref.String(), fmt.Sprintf("errdisabled by the PFC watchdog; packets lost: %d", lost))
		return
	}
	p.wdIgnore |= bit
	qi := p.pauseQ[wd.prio]
	if pu := p.lane[qi].pauseUntil; pu > s.now {
		p.c[qi].pausedNs += s.now - p.pausedSince[qi]
		p.lane[qi].pauseUntil = 0
	}
	if wd.cfg.Action == "drop" {
		p.wdDrop |= bit
		for p.lane[qi].q.n > 0 {
			k := s.dequeue(p, qi)
			s.releaseBuffer(wd.port, &s.pkts[k])
			c := &p.c[s.pkts[k].prio]
			c.drops++
			c.wdDrops++
			s.release(k)
		}
	}
	s.kick(wd.port)
}

// watchdogCounts sums a port's watchdog storms and restorations per
// priority, for the result.
func (s *sim) watchdogCounts() map[[2]int32][2]int64 {
	if len(s.wds) == 0 {
		return nil
	}
	m := make(map[[2]int32][2]int64, len(s.wds))
	for _, wd := range s.wds {
		m[[2]int32{wd.port, int32(wd.prio)}] = [2]int64{wd.storms, wd.restores}
	}
	return m
}
