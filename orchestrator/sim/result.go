package sim

import "slices"

// Result is what a run produced. It holds no wall-clock values, so the same
// Config gives a byte-identical JSON encoding.
type Result struct {
	// SimulatedNs is the run's duration (Config.DurationNs): the engine
	// processes every event due up to it, and the figures over the run
	// (goodput windows, time series, pause time) span it.
	SimulatedNs int64 `json:"simulated_ns"`
	// LastEventNs is when the last event that could change the fabric
	// happened: any but a time series sample, a PFC watchdog's poll that
	// found no storm to declare or end, and a retransmission timer that
	// found nothing to resend. Nothing changed after it to the end of the
	// run: a sized workload done (or failed) long before SimulatedNs
	// leaves the engine only such timers, or nothing, to process. 0 for a
	// run with no event.
	LastEventNs int64 `json:"last_event_ns"`
	// Events is the number of events processed (time series samples,
	// which read the fabric, are not counted); PacketHops the number of
	// packets put on a link (data, ACK, NAK, CNP).
	Events     uint64 `json:"events"`
	PacketHops uint64 `json:"packet_hops"`
	// Partitions is how many partitions the fabric was split into (1: the
	// sequential engine), LookaheadNs the window they advanced in (0 for
	// one partition).
	Partitions  int     `json:"partitions"`
	LookaheadNs float64 `json:"lookahead_ns,omitempty"`
	// PartitionsNote says why the fabric was split into fewer partitions
	// than Config.Partitions asked (empty when it was not): the split
	// depends on the fabric, so it is no part of the result's JSON.
	PartitionsNote string `json:"-"`
	// Threads is how many threads ran the partitions: it changes the wall
	// time, never the result, and is left out of the result's JSON so that
	// results compare equal whatever it was.
	Threads int         `json:"-"`
	Flows   []FlowStats `json:"flows"`
	Ports   []PortStats `json:"ports"`
	Totals  Totals      `json:"totals"`
	// Rings are the ring collectives' steps.
	Rings []RingStats `json:"rings,omitempty"`
	// AllToAll are the all-to-all collectives, per sending rank.
	AllToAll []AllToAllStats `json:"all_to_all,omitempty"`
	// PingPongs are the ping-pongs' post times, in Config.PingPongs order.
	PingPongs []PingPongStats `json:"ping_pongs,omitempty"`
	// Programs are the dataflow collectives, in Config.Programs order.
	Programs []ProgramStats `json:"programs,omitempty"`
	Series   *Series        `json:"series,omitempty"`
	// Timeline lists the faults, routing changes and watchdog actions of
	// the run in time order.
	Timeline []Mark `json:"timeline,omitempty"`
	// InfiniBand are the ports' perfquery counters of an InfiniBand
	// fabric (Config.Transport), absent for other transports.
	InfiniBand []IBPortStats `json:"infiniband_ports,omitempty"`
	// UET is the Ultra Ethernet transport's counters (nil for RoCE).
	UET *UETStats `json:"uet,omitempty"`
}

// AllToAllStats is one all-to-all collective: per sending rank what its
// QPs delivered and when its last one completed (-1: not all did), and
// the whole collective's time when every QP completed.
type AllToAllStats struct {
	ID    string         `json:"id"`
	Ranks []AllToAllRank `json:"ranks"`
	// TimeNs is from the start to the last QP's completion, nil if one
	// did not complete.
	TimeNs *int64 `json:"time_ns"`
}

// AllToAllRank is one sending rank of an all-to-all.
type AllToAllRank struct {
	Src            string `json:"src"`
	BytesDelivered int64  `json:"bytes_delivered"`
	Retransmits    int64  `json:"retransmits"`
	StartNs        int64  `json:"start_ns"`
	DoneNs         int64  `json:"done_ns"`
	// FailedQPs counts the rank's QPs that ran out of retries (see
	// FlowStats.Failed), FailedAtNs when the first of them failed.
	FailedQPs  int   `json:"failed_qps,omitempty"`
	FailedAtNs int64 `json:"failed_at_ns,omitempty"`
}

// RingStats is one ring collective: per step, when its first message was
// posted and when its last was received (-1: not yet), and the whole
// collective's time when it completed.
type RingStats struct {
	ID          string  `json:"id"`
	Ranks       int     `json:"ranks"`
	StepStartNs []int64 `json:"step_start_ns"`
	StepEndNs   []int64 `json:"step_end_ns"`
	// TimeNs is from the first post to the last receipt, nil if the
	// collective did not complete.
	TimeNs *int64 `json:"time_ns"`
}

// Latency is a distribution of one-way packet delay, NIC to NIC (send
// start to arrival), in nanoseconds.
type Latency struct {
	P50 int64 `json:"p50_ns"`
	P99 int64 `json:"p99_ns"`
	Max int64 `json:"max_ns"`
}

// FlowStats is one flow's outcome.
type FlowStats struct {
	ID   string   `json:"id"`
	Src  string   `json:"src"`
	Dst  string   `json:"dst"`
	Role string   `json:"role,omitempty"`
	Path []string `json:"path"` // nodes the data packets traverse (ECMP choice included)
	// Route is the egress port of every switch on Path ("node:port"),
	// the ports the flow hash picks; with other load balancing than
	// ECMP, data packets may leave by others.
	Route []string `json:"route,omitempty"`
	// After link faults changed the routes a flow hashes onto, the path
	// and route its data packets take at the end of the run (absent when
	// they are Path and Route); UnreachableAfterFaults when the routes
	// it ends with do not reach its destination (Path and Route then go
	// as far as the switch without a route, or round a loop once).
	PathAfterFaults        []string `json:"path_after_faults,omitempty"`
	RouteAfterFaults       []string `json:"route_after_faults,omitempty"`
	UnreachableAfterFaults bool     `json:"unreachable_after_faults,omitempty"`
	// Priority is the flow's priority at its sending NIC.
	Priority       int   `json:"priority"`
	StartNs        int64 `json:"start_ns"` // -1 if it never started
	Bytes          int64 `json:"bytes"`    // requested size, 0 for long-lived
	BytesDelivered int64 `json:"bytes_delivered"`
	// GoodputGbps: for a completed finite flow Bytes/FCT; otherwise
	// WindowBytes over the window from max(start, WarmupNs) to the end.
	GoodputGbps float64 `json:"goodput_gbps"`
	// WindowBytes are the bytes delivered from max(start, WarmupNs) to
	// the end, what a long-lived flow's GoodputGbps is over that window;
	// counted for a finite flow too, so that the QPs of one flow, some
	// completed and some not, add up over one window. Packets placed out
	// of order (Config.OutOfOrder) count by their arrival, those still
	// behind an open gap at the end too (BytesDelivered leaves these
	// out), as the time series counts them: a QP that failed included,
	// whose NIC wrote them to memory although the gap never filled.
	WindowBytes int64  `json:"window_bytes,omitempty"`
	Completed   bool   `json:"completed"`
	FCTNs       *int64 `json:"fct_ns"`
	// Retransmits counts data packets sent again (go-back-N).
	Retransmits int64 `json:"retransmits"`
	Timeouts    int64 `json:"timeouts"`
	// Failed is set when the QP ran out of retries (the timeout after its
	// retry_cnt retries) and stopped, as a NIC moves it to the error
	// state; FailedAtNs is when (from the start of the run).
	Failed     bool  `json:"failed,omitempty"`
	FailedAtNs int64 `json:"failed_at_ns,omitempty"`
	// RateCuts counts the DCQCN rate decreases the sender applied.
	RateCuts int64   `json:"rate_cuts,omitempty"`
	NAKs     int64   `json:"naks"`
	CNPs     int64   `json:"cnps"` // CNPs the sender received
	RateGbps float64 `json:"rate_gbps"`
	Latency  Latency `json:"latency"`
	// UET is the flow's UET counters (nil for RoCE, or a flow that
	// never sent).
	UET *FlowUET `json:"uet,omitempty"`
}

// PortStats are the counters of one port and priority (egress counters
// for traffic the port sent; pause_rx/paused_ns for pauses it obeyed;
// pause_tx for pauses it sent about its ingress). Only non-zero rows are
// reported.
type PortStats struct {
	Node      string `json:"node"`
	Port      string `json:"port"`
	Priority  int    `json:"priority"`
	TxBytes   int64  `json:"tx_bytes"`
	TxPackets int64  `json:"tx_packets"`
	ECNMarked int64  `json:"ecn_marked"`
	Drops     int64  `json:"drops"`
	// IngressDrops were refused by the port's ingress priority group (over
	// its limit with no headroom left); EgressDrops by its egress queue.
	IngressDrops int64 `json:"ingress_drops,omitempty"`
	EgressDrops  int64 `json:"egress_drops,omitempty"`
	ControlDrops int64 `json:"control_drops,omitempty"`
	// LinkDrops were lost to a link going down; WatchdogDrops dropped by
	// a PFC watchdog; WatchdogStorms and WatchdogRestores count its
	// storm declarations and restorations on this port and priority.
	LinkDrops        int64 `json:"link_drops,omitempty"`
	WatchdogDrops    int64 `json:"watchdog_drops,omitempty"`
	LoopDrops        int64 `json:"loop_drops,omitempty"`  // TTL expired in a routing loop
	RouteDrops       int64 `json:"route_drops,omitempty"` // no route at this switch (after failures)
	MTUDrops         int64 `json:"mtu_drops,omitempty"`   // over the port's MTU (Config.PortMaxPayload)
	WREDDrops        int64 `json:"wred_drops,omitempty"`  // dropped early by WRED (also egress drops)
	WatchdogStorms   int64 `json:"watchdog_storms,omitempty"`
	WatchdogRestores int64 `json:"watchdog_restores,omitempty"`
	PauseTx          int64 `json:"pfc_tx"`
	PauseRx          int64 `json:"pfc_rx"`
	PausedNs         int64 `json:"paused_ns"`
	// MaxQueueBytes is the egress queue's peak depth, the packet that
	// reached it included.
	MaxQueueBytes int64 `json:"max_queue_bytes"`
	// Switch says the port is a switch's, whose egress queue depth the
	// engine records (a NIC queues no data bytes: its QPs are paced).
	// QueueArrivals counts the packets the queue admitted; QueueP50Bytes
	// and QueueP99Bytes are percentiles of the depth each of them found
	// ahead of it (see depthHist: the lower edge of a 1/8-octave bucket,
	// below 4 KiB reading as 0), all 0 when nothing was queued.
	Switch        bool  `json:"switch,omitempty"`
	QueueArrivals int64 `json:"queue_arrivals,omitempty"`
	QueueP50Bytes int64 `json:"queue_p50_bytes,omitempty"`
	QueueP99Bytes int64 `json:"queue_p99_bytes,omitempty"`
	// Trimmed counts the UET data packets trimmed to their header on
	// their way to this queue instead of dropped.
	Trimmed int64 `json:"trimmed,omitempty"`
}

// Totals sum the run.
type Totals struct {
	BytesDelivered int64   `json:"bytes_delivered"`
	GoodputGbps    float64 `json:"goodput_gbps"` // sum of flows' goodput
	MinFlowGbps    float64 `json:"min_flow_gbps"`
	JainFairness   float64 `json:"jain_fairness"`
	Drops          int64   `json:"drops"`
	// LinkDrops and WatchdogDrops are the parts of Drops lost to link
	// faults and dropped by PFC watchdogs.
	LinkDrops     int64 `json:"link_drops,omitempty"`
	WatchdogDrops int64 `json:"watchdog_drops,omitempty"`
	LoopDrops     int64 `json:"loop_drops,omitempty"`  // TTL expired in a routing loop
	RouteDrops    int64 `json:"route_drops,omitempty"` // no route at a switch (after failures)
	MTUDrops      int64 `json:"mtu_drops,omitempty"`   // over a switch port's MTU
	PauseFrames   int64 `json:"pause_frames"`          // PFC frames sent (XOFF, refresh, XON)
	PausedNs      int64 `json:"paused_ns"`
	ECNMarked     int64 `json:"ecn_marked"`
	CNPs          int64 `json:"cnps"`
	Retransmits   int64 `json:"retransmits"`
	Timeouts      int64 `json:"timeouts"`
	FailedFlows   int   `json:"failed_flows,omitempty"`
	LatencyP99Ns  int64 `json:"latency_p99_ns"`
	// LatencyPackets counts the data packets LatencyP99Ns is the 99th
	// percentile of: those delivered in the measurement window (after
	// the warmup). With none, LatencyP99Ns is 0 and no figure.
	LatencyPackets int64 `json:"latency_packets"`
}

// Series are the sampled time series of a run.
type Series struct {
	TimesNs []int64      `json:"times_ns"`
	Queues  []PortSeries `json:"queues"`
	Rates   []FlowSeries `json:"rates"`
	// GoodputGbps is the goodput of every flow that is not Quiet, together,
	// per sample: the sum, in flow order, of each flow's goodput rounded
	// as FlowSeries.GoodputGbps is: the sum of Rates' where no flow is
	// NoRateSeries. Absent without such flows.
	GoodputGbps []float64 `json:"goodput_gbps,omitempty"`
	// Repeated counts the samples after the last one here that the
	// engine did not take, one every EveryNs to the end of the run:
	// from that last one on nothing in the fabric could change before
	// the end (the sized flows done or failed, no event left but idle
	// PFC watchdog polls), so each would have its values. They are not
	// stored (Expanded writes them out); a record leaves them out too
	// (results.Variant.SeriesEndUs).
	Repeated int   `json:"repeated,omitempty"`
	EveryNs  int64 `json:"every_ns"`
}

// Expanded returns s with its Repeated samples written out, each with the
// values of the last one taken: the series as taking every sample gives
// them. It is a new Series; with nothing repeated its lists are s's own.
func (s *Series) Expanded() *Series {
	c := *s
	n := s.Repeated
	c.Repeated = 0
	if n <= 0 || len(s.TimesNs) == 0 || s.EveryNs <= 0 {
		return &c
	}
	c.TimesNs = slices.Clone(s.TimesNs)
	for t := s.TimesNs[len(s.TimesNs)-1]; len(c.TimesNs) < len(s.TimesNs)+n; {
		t += s.EveryNs
		c.TimesNs = append(c.TimesNs, t)
	}
	c.Queues = slices.Clone(s.Queues)
	for i := range c.Queues {
		q := &c.Queues[i]
		q.Bytes, q.Paused = repeatLast(q.Bytes, n), repeatLast(q.Paused, n)
		q.Priorities = slices.Clone(q.Priorities)
		for j := range q.Priorities {
			ps := &q.Priorities[j]
			ps.QueueBytes, ps.PausedRx = repeatLast(ps.QueueBytes, n), repeatLast(ps.PausedRx, n)
			ps.PGBytes, ps.XOFFBytes = repeatLast(ps.PGBytes, n), repeatLast(ps.XOFFBytes, n)
			ps.PauseTx = repeatLast(ps.PauseTx, n)
		}
	}
	c.Rates = slices.Clone(s.Rates)
	for i := range c.Rates {
		r := &c.Rates[i]
		r.RateGbps, r.GoodputGbps = repeatLast(r.RateGbps, n), repeatLast(r.GoodputGbps, n)
	}
	c.GoodputGbps = repeatLast(s.GoodputGbps, n)
	return &c
}

// HeldIn is how many of the Repeated samples fall in [from, to] ns (those
// Expanded writes out).
func (s *Series) HeldIn(from, to int64) int {
	if s.Repeated <= 0 || len(s.TimesNs) == 0 || s.EveryNs <= 0 {
		return 0
	}
	// Sample k (1..Repeated) is at last + k*EveryNs. The differences
	// are taken only where they are positive, so that no bound
	// overflows.
	last := s.TimesNs[len(s.TimesNs)-1]
	if to <= last {
		return 0
	}
	lo := int64(1)
	if from > last {
		lo = (from - last + s.EveryNs - 1) / s.EveryNs
	}
	hi := min(int64(s.Repeated), (to-last)/s.EveryNs)
	return int(max(0, hi-lo+1))
}

// repeatLast returns a copy of xs with n copies of its last value appended
// (none to an empty series: GoodputGbps without rated flows), doubling the
// copied run each step so that memmove does the writing.
func repeatLast[T any](xs []T, n int) []T {
	if len(xs) == 0 || n <= 0 {
		return slices.Clone(xs)
	}
	start := len(xs)
	out := make([]T, start+n)
	copy(out, xs)
	out[start] = xs[start-1]
	for k := 1; k < n; k *= 2 {
		copy(out[start+k:], out[start:start+k])
	}
	return out
}

// PortSeries is a watched port: its egress queue depth summed over
// priorities and whether any priority was paused, then the same per
// priority.
type PortSeries struct {
	Node   string  `json:"node"`
	Port   string  `json:"port"`
	Bytes  []int64 `json:"bytes"`
	Paused []bool  `json:"paused"`
	// Priorities are the priorities that used the port by the end of the
	// run (queued a packet to send, received a PFC frame or sent one), in
	// the order they first did, each with a value per sample (zero or
	// false before that).
	Priorities []PrioritySeries `json:"priorities,omitempty"`
}

// PrioritySeries is one priority of a watched port, both ways through it.
type PrioritySeries struct {
	Priority int `json:"priority"`
	// As an egress: Queue is the queue the priority leaves by, QueueBytes
	// its depth (with the other priorities mapped to it), PausedRx
	// whether the queue a PFC frame for the priority stops was paused: a
	// pause the port received from its peer.
	Queue      int     `json:"queue"`
	QueueBytes []int64 `json:"queue_bytes"`
	PausedRx   []bool  `json:"paused_rx"`
	// As an ingress (switch ports): PG is the priority group the
	// priority fills, PGBytes its use (reserve, shared and headroom);
	// XOFFBytes the use at which a lossless PG sends XOFF at that moment
	// (its reserve plus its static threshold, or plus alpha times the
	// pool's free space, which moves as the pool fills; 0 for a lossy
	// PG); PauseTx whether a PG that sends the priority's pauses was in
	// XOFF (the PG it fills, or the one the port's PFC-priority-to-PG
	// map names: PortMaps.PauseFromPG): a pause the port sent its peer.
	PG        int     `json:"pg"`
	PGBytes   []int64 `json:"pg_bytes"`
	XOFFBytes []int64 `json:"xoff_bytes"`
	PauseTx   []bool  `json:"pause_tx"`
}

// FlowSeries is one flow's sending rate (the DCQCN current rate, or line
// rate) and its delivered goodput over each sample interval.
type FlowSeries struct {
	ID          string    `json:"id"`
	RateGbps    []float64 `json:"rate_gbps"`
	GoodputGbps []float64 `json:"goodput_gbps"`
}

// Jain returns Jain's fairness index of xs: (Σx)²/(n·Σx²), 1 when all are
// equal; 0 for an empty or all-zero input.
func Jain(xs []float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += float64(x * x) // rounded: no fused multiply-add
	}
	if s2 == 0 {
		return 0
	}
	return s * s / (float64(len(xs)) * s2)
}
