package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

func (s *sim) result() *Result {
	r := &Result{
		SimulatedNs: s.end / 1000,
		LastEventNs: s.lastEvent / 1000,
		Events:      s.eventCount(),
		PacketHops:  s.hops,
		Partitions:  1,
		Threads:     1,
		Series:      s.series,
	}
	if s.par != nil {
		r.Partitions = s.par.k
		r.LookaheadNs = float64(s.par.look) / 1000
		r.Threads = s.par.threads
	}
	if s.cfg.Partitions > 1 && s.partitionsWhy != "" {
		r.PartitionsNote = fmt.Sprintf("%d partitions asked, %d made: %s", s.cfg.Partitions, r.Partitions, s.partitionsWhy)
	}
	var goodputs []float64
	for i := range s.flows {
		f := &s.flows[i]
		if f.stream != nil {
			// Reported as part of its program in Result.Programs.
			r.Totals.addFlow(f)
			continue
		}
		if f.a2a != nil {
			// Reported per sending rank in Result.AllToAll.
			as := f.a2a
			as.bytes[f.rank] += f.delivered
			as.retx[f.rank] += f.retx
			if f.failed {
				if as.failed[f.rank] == 0 || f.failedAt < as.failedAt[f.rank] {
					as.failedAt[f.rank] = f.failedAt
				}
				as.failed[f.rank]++
			}
			r.Totals.addFlow(f)
			continue
		}
		st := FlowStats{
			ID:             f.f.ID,
			Src:            s.ports[f.src].ref.String(),
			Dst:            s.ports[f.dst].ref.String(),
			Role:           f.f.Role,
			Path:           f.path,
			Route:          f.route,
			Priority:       int(f.prio),
			StartNs:        -1,
			Bytes:          f.f.Bytes,
			BytesDelivered: f.delivered,
			WindowBytes:    f.winBytes + s.placedInWindow(f),
			Completed:      f.rcvDone,
			Retransmits:    f.retx,
			Timeouts:       f.timeouts,
			Failed:         f.failed,
			FailedAtNs:     f.failedAt / 1000,

			NAKs:     f.naksRecv,
			CNPs:     f.cnpsRecv,
			RateGbps: round3(s.flowRateGbps(int32(i))),
		}
		if f.rp != nil {
			st.RateCuts = f.rp.cuts
		}
		if s.uet {
			st.UET = s.uetFlowStats(f)
		}
		if len(s.faultLinks) > 0 && !f.f.Quiet {
			// Where the routes every switch ends the run with send the
			// flow's data packets, when faults moved them.
			path, route, ok := s.tracePath(f.src, f.dst, f.hashFwd)
			if s.ib != nil {
				path, route, ok = s.ibTracePath(f.src, f.dst)
			}
			if !ok || !slices.Equal(route, f.route) {
				st.PathAfterFaults, st.RouteAfterFaults, st.UnreachableAfterFaults = path, route, !ok
			}
		}
		if f.started {
			st.StartNs = f.startAt / 1000
			s.closeHist(f)
			st.Latency = f.lat
			if f.rcvDone {
				fct := (f.completeAt - f.startAt) / 1000
				st.FCTNs = &fct
				if f.completeAt > f.startAt {
					st.GoodputGbps = float64(f.f.Bytes) * 8 * 1000 / float64(f.completeAt-f.startAt)
				}
			} else if ws := s.windowStart(f); s.end > ws {
				st.GoodputGbps = float64(st.WindowBytes) * 8 * 1000 / float64(s.end-ws)
			}
		}
		st.GoodputGbps = round6(st.GoodputGbps)
		goodputs = append(goodputs, st.GoodputGbps)
		r.Flows = append(r.Flows, st)
		r.Totals.GoodputGbps += st.GoodputGbps
		r.Totals.addFlow(f)
	}
	r.Totals.GoodputGbps = round6(r.Totals.GoodputGbps)
	r.Totals.JainFairness = round6(Jain(goodputs))
	if len(goodputs) > 0 {
		m := math.Inf(1)
		for _, g := range goodputs {
			m = min(m, g)
		}
		r.Totals.MinFlowGbps = m
	}
	r.Totals.LatencyP99Ns, r.Totals.LatencyPackets = s.allHist.quantile(0.99), s.allHist.n
	for _, as := range s.a2as {
		st := AllToAllStats{ID: as.cfg.ID}
		last, done := int64(0), true
		for i, src := range as.cfg.Ranks {
			rk := AllToAllRank{Src: src, BytesDelivered: as.bytes[i], Retransmits: as.retx[i], StartNs: as.start / 1000, DoneNs: -1,
				FailedQPs: as.failed[i], FailedAtNs: as.failedAt[i] / 1000}
			if as.left[i] == 0 {
				rk.DoneNs = as.doneAt[i] / 1000
				last = max(last, as.doneAt[i])
			} else {
				done = false
			}
			st.Ranks = append(st.Ranks, rk)
		}
		if done {
			ns := (last - as.start) / 1000
			st.TimeNs = &ns
		}
		r.AllToAll = append(r.AllToAll, st)
	}
	for _, rs := range s.rings {
		st := RingStats{ID: rs.cfg.ID, Ranks: len(rs.flows), StepStartNs: make([]int64, rs.steps), StepEndNs: make([]int64, rs.steps)}
		for k := range rs.steps {
			st.StepStartNs[k], st.StepEndNs[k] = -1, -1
			if rs.stepStart[k] != math.MaxInt64 {
				st.StepStartNs[k] = rs.stepStart[k] / 1000
			}
			if rs.received[k] == int64(len(rs.flows)) {
				st.StepEndNs[k] = rs.stepEnd[k] / 1000
			}
		}
		if last := rs.steps - 1; rs.received[last] == int64(len(rs.flows)) && rs.first != math.MaxInt64 {
			end := rs.stepEnd[last]
			ns := (end - rs.first) / 1000
			st.TimeNs = &ns
		}
		r.Rings = append(r.Rings, st)
	}

	r.Programs = s.programStats()
	r.PingPongs = s.pingStats()
	r.Timeline = s.timeline
	wdCounts := s.watchdogCounts()
	for pi := range s.ports {
		p := &s.ports[pi]
		for pr := 0; pr < 8; pr++ {
			c := p.c[pr]
			if p.lane[pr].pauseUntil > s.end {
				c.pausedNs += s.end - p.pausedSince[pr]
			}
			wd := wdCounts[[2]int32{int32(pi), int32(pr)}]
			r.Totals.LoopDrops += c.loopDrops
			if c == (prioCounters{}) && wd == [2]int64{} {
				continue
			}
			r.Ports = append(r.Ports, PortStats{
				Node: p.ref.Node, Port: p.ref.Port, Priority: pr,
				TxBytes: c.txBytes, TxPackets: c.txPkts, ECNMarked: c.marked, Drops: c.drops,
				IngressDrops: c.ingressDrops, EgressDrops: c.egressDrops, ControlDrops: c.ctrlDrops,
				LinkDrops: c.linkDrops, WatchdogDrops: c.wdDrops, LoopDrops: c.loopDrops, RouteDrops: c.routeDrops, MTUDrops: c.mtuDrops, WREDDrops: c.wredDrops, WatchdogStorms: wd[0], WatchdogRestores: wd[1],
				PauseTx: c.pauseTx, PauseRx: c.pauseRx, PausedNs: c.pausedNs / 1000,
				MaxQueueBytes: c.maxQueue, Trimmed: c.trimmed,
			})
			if !p.host {
				st := &r.Ports[len(r.Ports)-1]
				st.Switch = true
				if h := p.lane[pr].qh; h != nil {
					st.QueueArrivals = h.n
					st.QueueP50Bytes = h.quantile(0.5, c.maxQueue)
					st.QueueP99Bytes = h.quantile(0.99, c.maxQueue)
				}
			}
			r.Totals.Drops += c.drops
			r.Totals.LinkDrops += c.linkDrops
			r.Totals.RouteDrops += c.routeDrops
			r.Totals.MTUDrops += c.mtuDrops
			r.Totals.WatchdogDrops += c.wdDrops
			r.Totals.PauseFrames += c.pauseTx
			r.Totals.PausedNs += c.pausedNs / 1000
			r.Totals.ECNMarked += c.marked
		}
	}
	if s.ib != nil {
		r.InfiniBand = s.ibPortStats()
	}
	if s.uet {
		s.uetResult(r)
	}
	sort.SliceStable(r.Ports, func(i, j int) bool {
		a, b := r.Ports[i], r.Ports[j]
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		if a.Port != b.Port {
			return a.Port < b.Port
		}
		return a.Priority < b.Priority
	})
	return r
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// placedInWindow is the payload flow f placed out of order (oooPkt) that
// arrived in its goodput window, from max(start, WarmupNs) on, and that
// the end of the run found still behind an open gap. Counted by their
// arrival, as the time series counts them and deliver would once the gap
// filled: without them a window ends short of every packet that arrived
// after the oldest gap, which with spraying over queues tens of
// microseconds apart is most of a short window.
func (s *sim) placedInWindow(f *flowState) int64 { return placedSince(f, s.windowStart(f)) }

// placedSince is the payload of the packets flow f holds placed out of
// order (behind a gap) that arrived at or after time from.
func placedSince(f *flowState, from int64) int64 {
	var b int64
	for _, o := range f.ooo {
		if o.at >= from {
			b += int64(o.payload)
		}
	}
	return b
}

// windowStart is when flow f's goodput window opens (WindowStart).
func (s *sim) windowStart(f *flowState) int64 { return WindowStart(s.warmup, f.startAt) }

// WindowStart is when the goodput window of a flow that started at start
// opens, in a run whose warmup ends at warmup (the two in one unit): at
// the warmup's end, or at the flow's start if it started later. A flow's
// WindowBytes and long-lived goodput are over [WindowStart, end).
func WindowStart(warmup, start int64) int64 { return max(warmup, start) }

// inWindow says whether bytes of flow f that arrived at time at count in
// its goodput window (WindowBytes), as every receiver counts them.
func (s *sim) inWindow(f *flowState, at int64) bool { return at >= s.windowStart(f) }

// addFlow counts a flow's bytes, CNPs, retransmissions, timeouts and
// failure in the totals.
func (t *Totals) addFlow(f *flowState) {
	t.BytesDelivered += f.delivered
	t.CNPs += f.cnpsSent
	t.Retransmits += f.retx
	t.Timeouts += f.timeouts
	if f.failed {
		t.FailedFlows++
	}
}
