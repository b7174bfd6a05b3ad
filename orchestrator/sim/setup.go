package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"sync/atomic"
	"unsafe"

	"github.com/labctl/labctl/orchestrator/routing"
)

const (
	pktData uint8 = iota
	pktAck
	pktNak
	pktCNP
	pktPull // a UET receiver's credit grant (RCCC, uet.go)
)

// packet lives in the engine's pool and is addressed by index, so queues
// are intrusive linked lists and nothing is allocated per packet.
type packet struct {
	next    int32
	flow    int32
	dst     int32 // destination NIC port
	inPort  int32 // ingress port at the current switch
	psn     int64
	sent    int64 // ps, when the sender NIC started it
	hash    uint64
	wire    int32
	payload int32
	kind    uint8
	dscp    uint8
	prio    uint8
	ce      bool
	// egAcct says where the egress queue charged the packet: 0 nowhere
	// (no egress limit), 1 its reserve, 2 the shared pool.
	egAcct uint8
	// lost: the packet was on the wire of a link that went down.
	lost bool
	// hops counts the switches crossed: a packet caught in a routing
	// loop (while routes converge) dies after maxHops, as IP's TTL does.
	hops uint8
	// uflags are the transports' flags of a packet: UET's (uet.go:
	// trimmed, ACK request, trimmed at the last hop, a retransmission) in
	// the low bits, InfiniBand's ibSeen (ib.go) in the top one. sack is
	// UET's: a data packet's entropy or an ACK's SACK bitmap. They fill
	// the packet to 64 bytes.
	uflags uint8
	sack   uint64
}

type pktQueue struct {
	head, tail int32
	n          int32
	bytes      int64
}

type prioCounters struct {
	// The counters every packet updates come first, in one cache line.
	txBytes, txPkts, marked, maxQueue int64
	drops                             int64
	// drops split by where they happen: at ingress (the PG over its limit
	// and headroom), at egress (the queue over its limit); ctrlDrops are
	// ingress drops of ACKs, NAKs and CNPs.
	ingressDrops, egressDrops, ctrlDrops int64
	// linkDrops were lost to a link going down (on its wire, in its
	// queues, or sent to it before the switch routed around it);
	// wdDrops were dropped by a PFC watchdog's drop action.
	linkDrops, wdDrops int64
	// loopDrops died of TTL expiry in a transient routing loop;
	// routeDrops arrived at a switch whose routes, after failures, reach
	// no path to their destination (black-holed there until the other
	// switches' routing converges); wredDrops were dropped early by WRED
	// (also in egressDrops).
	loopDrops, routeDrops, wredDrops int64
	// mtuDrops were over the MTU of the port they arrived on or would
	// have left by (Config.PortMaxPayload).
	mtuDrops                   int64
	pauseTx, pauseRx, pausedNs int64
	// trimmed counts the UET data packets trimmed on their way to this
	// egress queue instead of dropped (uet.go).
	trimmed int64
}

// port is one end of a link. Its fields are laid out by use, so that a
// hop touches few cache lines (a 1024-host fabric's ports are far larger
// than the CPU caches): the first two lines hold what a hop reads on every
// packet (TestPortHotLines keeps them there), line 0 all a switch's
// ingress port reads there (identity, flags, PG map) and most of what its
// egress port does, line 1 the clock and a NIC's round robin and pacing;
// then the per-queue lanes, classification, PGs and counters; what only
// setup, pauses, faults and the results read comes last.
type port struct {
	node     int32
	peer     int32
	host     bool
	peerHost bool // the peer is a NIC

	// down: the port's link is down (LinkFault). storming: priorities a
	// stuck NIC pauses without end (PauseStorm). wdIgnore: priorities
	// whose pause frames a PFC watchdog ignores, and does not send;
	// wdDrop: priorities it drops at this port.
	down                       bool
	storming, wdIgnore, wdDrop uint8
	txPending                  bool // a TxDone event is due at busyUntil

	// Egress queues as bit masks: those holding packets (q[i].n > 0, kept
	// by enqueue and dequeue), and the hot copy of qos: strict ones
	// (PortQoS.Strict), those that mark ECN, those that drop by WRED.
	held              uint8
	strict, ecn, wred uint8

	// Scheduling: deficit round robin over non-strict queues (pickQueue);
	// credit: the queues whose deficit is not zero; rr the queue the
	// pointer is at.
	visited bool
	credit  uint8
	rr      uint8

	// Switch ports: queueOf is each priority's egress queue when it sends,
	// pgOf its ingress priority group.
	queueOf [8]uint8
	pgOf    [8]uint8
	capped  bool // a NIC behind a slower PCIe link: capKbps > 0
	// rrPrios (NICs): the priorities of the QPs in the round robin, or
	// more (a bit stays when its QPs leave, until compact), for
	// nicSend's skip of a scan that could only find them paused.
	rrPrios uint8

	// NIC state (host ports). flows lists the flows that may have data to
	// send, in the order they started or got data again, served round
	// robin from rrFlow. A flow with nothing to send (all sent and waiting
	// for ACKs, or its next message not posted) is parked: its entry
	// becomes -1 (dead counts them; the list is compacted when half are
	// dead) and it rejoins at the end when it has data again. With a
	// thousand QPs per NIC (an all-to-all) the scan then walks only QPs
	// that can send.
	dead   int32
	rrFlow int32

	rateKbps  int64 // actual bit rate, nominal plus clock skew; serFull follows it
	propPs    int64
	busyUntil int64
	// lastArrive is when the last packet sent reaches the peer switch's
	// queues: pipeline jitter must not reorder the link. The sender keeps
	// it, so sending does not touch the peer.
	lastArrive int64

	wakeAt int64
	// serFull is serPs of a full-size RoCE data packet (sim.fullWire), the
	// wire size of nearly every hop: ser reads it instead of dividing by
	// the rate, three times a data packet (0.7% of the bench incast's
	// instructions, 0.7-1.8% of its CPU). Set with rateKbps, which nothing
	// changes after buildTopology.
	serFull int64
	// A capped NIC's (Config.NICCapGbps) next data packet leaves no
	// earlier than capFree. A switch port, which no cap applies to, keeps
	// in the same word when the frame it is sending started (txFrom).
	capFree int64
	flows   []int32

	// The lanes start a cache line of their own and are two lines each,
	// as are the PGs below (TestPortLayout): the port array is line
	// aligned, so a lane is exactly two lines of every port.
	lane [8]portLane

	// tcOf classifies what a switch port receives (DSCP -> priority).
	tcOf [64]uint8

	// Ingress admission and PFC state per priority group (switch ports),
	// and egress admission per queue.
	pg [8]pgState

	c [8]prioCounters

	// WRED drop curves of the queues, from qos.
	drop [8]redCurve

	// pauseQ is the queue a received pause for each priority stops.
	pauseQ [8]uint8
	// capKbps > 0 caps a NIC's data rate (Config.NICCapGbps; capMbps the
	// same, nominal); capped says so in the hot lines.
	capKbps int64
	capMbps float64

	lastCNP int64 // NIC: the last CNP it sent (Config.CNPPerPort)

	ref       PortRef
	lineMbps  float64 // nominal rate
	lastPause int64   // arrival of the last PFC frame sent, keeps them in order
	// respPs is how long the port takes to obey a PFC frame that reached
	// it (Link.PauseResponseBits at its rate; 0: at once). With it, the
	// switch whose ingress this port is decides XOFF at the byte that
	// crosses the threshold (admit).
	respPs int64

	pausedSince   [8]int64
	lastPauseRxAt [8]int64
	// suspects (NICs) are the QPs that may have run out of data since a
	// scan last looked at them all: those that sent their last packet
	// for now, or whose next packet an ACK passed. A scan parks a QP in
	// the round robin without data; where nicSend skips the scan, it
	// parks those of the suspects instead, the same QPs. suspectsLost:
	// the list outgrew the round robin and was dropped, so the next
	// no-send scan must be a whole one.
	suspects     []int32
	suspectsLost bool
	// pauseOff: priorities whose received pause frames the port does not
	// obey (PortQoS.IgnoresPause).
	pauseOff uint8
	_        [7]byte // to a whole number of lines (TestPortLayout)
}

// pfcTimers are a port's PFC timers, one queued event each (lazyTimer):
// the pause it obeys on each queue ends (pauseUntil), the XOFF of each PG
// is due again (pauseRefresh). The partition that owns the port runs both.
type pfcTimers struct {
	pauseEnd [8]lazyTimer
	xoffDue  [8]lazyTimer
}

// portLane is index i of a port: its egress queue i (packets, pause,
// deficit round robin, egress admission, ECN curve) and the queue depth
// histogram of its priority i. One struct per index rather than an array
// per field, because a hop reads all of these for one queue: together they
// are two cache lines instead of one in each of seven arrays, and at a
// thousand hosts the ports far exceed the caches, so a hop's cost is its
// cache misses.
type portLane struct {
	q pktQueue
	// pauseUntil: the pause this port obeys on queue i (it is the
	// upstream of a PAUSE).
	pauseUntil int64
	deficit    int64
	quantum    int64 // DRR quantum: the queue's weight x a full packet
	// qh is the queue depth arrivals of priority i see (switch ports;
	// nil until the priority queues a packet).
	qh   *depthHist
	eg   queueBuf
	mark redCurve // ECN marking curve, from qos
}

// redCurve is a RED curve (markProbability's): probability 0 at or below
// min bytes, pmax at max, 1 above.
type redCurve struct {
	min, max int64
	pmax     float64
}

type node struct {
	name  string
	kind  NodeKind
	ports []int32
	pools []poolState
	seed  uint64
	prio  [64]uint8 // DSCP -> priority
}

// poolState is one buffer pool of a switch: its size and the shared bytes
// in use, plus its shared headroom pool if it has one.
type poolState struct {
	name          string
	egress        bool
	size, used    int64
	hdrSize, hdrU int64
}

// admission is an Admission resolved to a pool index (-1: no limit).
type admission struct {
	reserved int64
	static   int64
	alpha    float64
	pool     int32
	noShared bool
}

// pgState is one ingress priority group of a switch port: what it may use
// and what it uses (reserve, shared pool, headroom), and its PFC state.
type pgState struct {
	// What every packet reads first (one cache line), then the rest.
	adm               admission
	min, shared, hdr  int64
	lossless          bool
	xoff              bool
	xoffGen           uint32
	headroom          int64 // per-PG headroom limit
	xonOffset, xonMin int64
	prios             []uint8 // PFC priorities of the PG: paused together
	_                 [16]byte
}

// queueBuf is one egress queue's admission and use.
type queueBuf struct {
	adm         admission
	min, shared int64
}

type flowState struct {
	// The fields are grouped by the path that reads them, a group to its
	// own cache lines (TestFlowLayout): at a thousand hosts the flows far
	// exceed the caches, and a packet sent, acknowledged or received then
	// costs the lines its path touches. Lines 0-1: sending a data packet
	// (nicSend, sendData, payload); line 2: the ACKs and NAKs coming
	// back; lines 3-4: the receiver. Set-up, programs and results read
	// the rest.
	f        *Flow
	src, dst int32 // NIC ports
	prio     uint8 // at the sending NIC
	dscp     uint8
	inRR     bool // in its NIC's round robin (port.flows)

	started, sendDone, rcvDone bool
	failed                     bool // retry count exceeded: the QP is in error
	rtoIdle                    bool // a program stream's timer stopped: nothing posted

	hashFwd uint64
	total   int64 // packets, math.MaxInt64 for long-lived
	// msg is the message size when it is not a whole number of MTUs (0
	// otherwise); perMsg the packets per message.
	msg, perMsg int64
	// avail is how many packets the application has posted so far: all of
	// them (MaxInt64) for plain flows; a ring QP's grow message by message
	// as its rank receives from its predecessor.
	avail int64
	// winEnd is the first packet the tx depth does not let the sender
	// send yet (MaxInt64 without a tx depth); set when the flow starts.
	winEnd int64

	// sender
	sndNxt, sndMax     int64
	nextAvail          int64
	lastSend, lastWire int64          // last data packet sent, for re-pacing
	rp                 *reactionPoint // allocated at the flow's first CNP
	retx               int64

	// line 2: the sender's side of ACKs, NAKs and timeouts.
	sndUna             int64
	lastProgress       int64
	retriesLeft        int
	timeouts           int64
	naksRecv, cnpsRecv int64
	// depthPkts is depthPackets(f) for a flow with a tx depth, 0 without
	// one; set when the flow starts, so the per-packet paths need not
	// read the Flow.
	depthPkts int64
	ping      *pingState

	// lines 3-4: the receiver.
	rcvNxt     int64
	pendingAck int64
	lastAck    int64
	delivered  int64
	winBytes   int64
	completeAt int64
	hashRev    uint64
	lastCNP    int64
	hist       histogram // counts nil: none (a Quiet flow, or not started)
	ring       *ringState
	stream     *streamState // a program's fabric stream
	startAt    int64
	// arriveBy is when the last of the QP's data packets sent to the
	// receiver as an event arrives: a quiet arrival (quiet.go) may not
	// overtake it.
	arriveBy int64

	// path and route: the nodes the data packets' hash takes them
	// through at the start, and each switch's egress port ("node:port").
	path, route []string

	a2a      *a2aState
	rank     int32
	depsLeft int
	children []int32

	failedAt     int64
	sampledBytes int64
	cnpsSent     int64
	lat          Latency
	// ooo holds packets placed out of order (Config.OutOfOrder) until
	// the gap before them fills; gapPSN is the gap seen open since
	// gapSince (ps).
	ooo              map[int64]oooPkt
	gapPSN, gapSince int64
	lastNak          int64
	nakPSN           int64 // the gap (expected PSN) last NAKed; -1 none

	// UET's sender and receiver state (uet.go), nil for RoCE; each is
	// touched by its own end's partition only.
	utx *uetTx
	urx *uetRx
}

// oooPkt is a packet placed out of order: its payload, when it was sent
// and when it arrived (ps). It is counted when the gap before it fills,
// but by its arrival: a NIC that places out of order has written its
// bytes to memory then, so they belong to the goodput window and the
// time series sample they arrived in, not the ones the gap filled in
// (which read above the line rate when bytes that arrived before the
// warmup, or a sample, filled in after it); one the end of the run finds
// still behind a gap counts in the window all the same (placedInWindow),
// as in the samples, which count placed bytes. Its latency sample is
// arrival less send too, the one-way NIC-to-NIC delay Latency documents
// and UET's receiver (uetPlace) measures; what the gap added is the
// wait for a completion, which a one-way packet delay does not include.
type oooPkt struct {
	payload int32
	sent    int64
	at      int64
}

type sim struct {
	cfg    *Config
	now    int64
	end    int64
	warmup int64
	q      eventQueue
	nodes  []node
	ports  []port
	// portQoS is each port's queue QoS as buildQoS resolved it, beside
	// the ports rather than in them: only set-up reads it (the hot path
	// reads the copy cacheQoS makes), and 1.8 KB less per port keeps the
	// ports of a large fabric on fewer pages and cache lines.
	portQoS [][8]PortQoS
	// pfc is each port's PFC timers, beside the ports for the same
	// reason: only a pause touches them (512 bytes a port).
	pfc  []pfcTimers
	pkts []packet
	// free is a stack of the pool's free packets, last freed on top. It
	// was a list through packet.next: each alloc then loaded the freed
	// packet to find the next, a cache miss the engine waited on at a
	// thousand hosts, and one after another where a window takes in the
	// packets other partitions sent (takeIn): 2-4% of a 1024-host
	// permutation's CPU on one thread (whole runs in interleaved pairs:
	// 4.4% less in 6, 1.7% in 8, all lower; on two threads and on the
	// 1024-GPU allreduce the same as before). The order is the list's,
	// so the same packets are reused.
	free  []int32
	flows []flowState

	// Routing (route.go): the topology as package routing sees it (link
	// l's ports are 2l and 2l+1, as in ports), each destination NIC's
	// table ([node] -> equal-cost egress ports; nil until a packet needs
	// it), the table a leaf's NICs share, and self[p] == p, so that
	// self[p:p+1] is the one candidate of a NIC's own leaf. peerOf[p] is
	// ports[p].peer, dense: a packet at its last switch reads it for its
	// NIC, whose port it does not touch otherwise.
	rt         *routing.Graph
	routes     [][][]int32
	leafRoutes [][][]int32
	self       []int32
	peerOf     []int32

	// Link faults (faults.go): the links with faults, each port's fault
	// link (-1 none; nil without faults), each switch's view of them.
	faultLinks []faultLink
	portFault  []int8
	nodeView   []uint64
	timeline   []Mark
	wds        []wdState
	lb         lbState

	portByRef  map[PortRef]int32
	nodeByName map[string]int32
	rng        *simRand
	dc         dcqcnPs
	mtu        int64

	ackEvery  int64
	ackTimer  int64
	nakRepeat int64 // ps; 0: one NAK per gap
	rto       int64 // ps, the QP's local ACK timeout
	retries   int   // timeouts in a row before a QP fails; negative: never
	cnpDSCP   uint8
	// uet: the run's transport is UET (uet.go, with its settings in u).
	uet bool
	u   *uetRun
	// txDoneAlways: every NIC transmit schedules a TxDone, as before
	// nicMayHaveData left out those of NICs with every QP parked; set by
	// a test, which holds the two to the same result.
	txDoneAlways bool
	// scanAlways: a NIC scans its round robin at every turn, as before
	// nicSend skipped the scans of a NIC whose QPs are all paused; set
	// by a test, which holds the two to the same result. scansSkipped
	// counts the skipped scans.
	scanAlways   bool
	scansSkipped int64
	// quietArrivals: this run takes data packets that change nothing at
	// their receiver but its counters when they are sent (quiet.go);
	// quietArrived counts them (events, as they were). arriveAlways makes
	// every arrival an event, as before; set by a test, which holds the
	// two to the same result. sampleAt is when the next time series
	// sample is due (math.MaxInt64: none).
	quietArrivals, arriveAlways bool
	quietArrived                uint64
	sampleAt                    int64
	ahead                       []aheadArrival
	jitter                      int64 // ps
	nicDelay                    int64 // ps

	events, hops uint64
	// lastEvent is when the last event that could change the fabric
	// happened (noteEvent, Result.LastEventNs).
	lastEvent int64
	// prefetchNext: the ports outgrow a core's cache, so each hop asks for
	// the next event's port and packet ahead (readAhead).
	prefetchNext bool
	work         workMeter // progress.go
	// shapers are the switch queues' shapers, queue q of port pi at
	// 8*pi+q, and shaped[pi] the port's shaped queues as a mask; both nil
	// when no queue is shaped (the port's hot lines have no byte to
	// spare for the mask). Each port's belong to the partition that owns
	// the port.
	shapers []queueShaper
	shaped  []uint8
	// portShapers are the switch ports' own shapers (Config.PortShapers),
	// by port, a kbps of 0 where a port has none; nil when none has.
	portShapers []queueShaper
	// maxPayload is the largest payload each port passes
	// (Config.PortMaxPayload), by port, 0 where it has no limit; nil when
	// none has.
	maxPayload []int32
	// remark is the DSCP each switch port writes into the packets of
	// each priority it sends (PortMaps.RemarkDSCP), by port, -1 where it
	// keeps the packet's; nil when no port remarks.
	remark [][8]int8
	// colourOf is the colour (PortMaps.DSCPToColour) each switch port
	// gives the packets it receives, by DSCP, 0 green; colourDrop the
	// yellow and red early drops of each port's queues, on where
	// colourWRED's bit (queue*2 + colour-1) is set. nil when no port
	// colours.
	colourOf   [][64]uint8
	colourDrop [][8][2]redCurve
	colourWRED []uint16

	allHist  runHist
	histPool []*histCounts

	series  *Series
	sampleT int64
	// seriesCap is the capacity each time series starts with: the run's
	// samples, up to seriesPrealloc.
	seriesCap int
	watch     []int32
	rated     []int32 // flows sampled (not Quiet); those not NoRateSeries have Series.Rates, in this order
	rings     []*ringState
	a2as      []*a2aState
	progs     []progState
	streams   []streamState
	gpus      []gpuEgress
	pings     []*pingState

	// quietSample: the last sample found the fabric quiet to the end
	// (takeSample), so the next is taken and then repeated to the end
	// (series.Repeated copies). sampleEveryTime turns that off, for the
	// tests that hold repetition to sampling.
	quietSample, sampleEveryTime bool

	// watchPrio is, per watched port and priority, 1 + the index of the
	// priority's series in the port's Priorities (0: none yet).
	watchPrio [][8]uint8

	// The parallel engine (parallel.go): par is the split of a run with
	// several partitions (nil: one), part a partition's own state (nil
	// on the sim that runs the whole fabric).
	par  *parRun
	part *partition
	// partitionsWhy: why planPartitions made fewer partitions than
	// Config.Partitions asked.
	partitionsWhy string

	// ib is the InfiniBand fabric's state (ib.go); nil for other
	// transports.
	ib *ibState

	// ringLimit is the most entries the sequential engine's rings may
	// need before they turn off (ringMax; tests set others, for the
	// records are the same whenever they turn off).
	ringLimit int
}

// maxTimeNs bounds simulated times so picosecond arithmetic cannot
// overflow: 1000 s, far beyond any practical run.
const maxTimeNs = 1e12

// MaxDurationNs is the longest Config.DurationNs the engine simulates.
const MaxDurationNs = int64(maxTimeNs)

// mix64 is the one 64-bit finalizer of labctl (routing's, which the ECMP
// choice uses), for the engine's seeds and draws too.
func mix64(x uint64) uint64 { return routing.Mix64(x) }

func hashString(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// txFrom is when the frame a switch port is sending started (sendPause
// needs it where a switch decides XOFF before now). It shares capFree's
// word, in the hot lines transmit writes anyway: a word of its own would
// be one more cache line a hop writes. Switch ports only.
func (p *port) txFrom() int64 { return p.capFree }

// serPs is the serialization time of wire bytes on the port, in ps.
func (p *port) serPs(wire int64) int64 {
	return (wire*8_000_000_000 + p.rateKbps/2) / p.rateKbps
}

// dataOverhead is the bytes the run's transport adds to a data packet's
// payload on the wire (WireOverheadFor).
func (s *sim) dataOverhead() int64 {
	if s.ib != nil {
		return IBWireOverheadBytes
	}
	return WireOverheadBytes
}

// fullWire is the wire size of a full-size data packet: the MTU's payload
// and the transport's headers (WireOverheadBytes).
func (s *sim) fullWire() int64 { return s.mtu + WireOverheadBytes }

// ser is serPs for the packets the engine sends, the full-size data
// packet's from the port's serFull.
func (s *sim) ser(p *port, wire int64) int64 {
	if wire == s.fullWire() {
		return p.serFull
	}
	return p.serPs(wire)
}

func newSim(cfg *Config) (*sim, error) {
	if cfg.DurationNs <= 0 {
		return nil, errorf("duration must be positive (got %d ns): set Config.DurationNs", cfg.DurationNs)
	}
	if cfg.DurationNs > maxTimeNs {
		return nil, errorf("duration %d ns is beyond the simulator's range (%d ns)", cfg.DurationNs, int64(maxTimeNs))
	}
	if cfg.ClockSkewPPM > 1000 || math.IsNaN(cfg.ClockSkewPPM) {
		return nil, errorf("clock skew %v ppm out of range: use up to 1000 (0 means 100, negative none)", cfg.ClockSkewPPM)
	}
	if cfg.MTU < 0 || (cfg.MTU > 0 && cfg.MTU < 256) || cfg.MTU > 9216 {
		return nil, errorf("MTU %d out of range: use 256..9216 (0 means %d)", cfg.MTU, DefaultMTU)
	}
	switch cfg.Transport {
	case "", TransportRoCE, TransportUET:
	case TransportInfiniBand:
		// An IB switch has no Ethernet QoS and an HCA no DCQCN: what
		// the caller passes for RoCE does not apply.
		cfg.QoS, cfg.DefaultQoS, cfg.Maps, cfg.PriorityToPG, cfg.ExplicitQoS = nil, nil, nil, nil, false
		cfg.DCQCNEnabled = false
	default:
		return nil, errorf("transport %q is not one of %s, %s, %s", cfg.Transport, TransportRoCE, TransportInfiniBand, TransportUET)
	}
	s := &sim{
		cfg:    cfg,
		end:    cfg.DurationNs * 1000,
		warmup: max(cfg.WarmupNs, 0) * 1000,
		mtu:    int64(cfg.mtu()),
		rng:    newSimRand(uint64(cfg.Seed), 0x9e3779b97f4a7c15),

		ringLimit: ringMax,
	}
	s.ackEvery = int64(cfg.AckEvery)
	if s.ackEvery <= 0 {
		s.ackEvery = 16
	}
	s.ackTimer = 10_000_000 // 10 µs: slow flows are acknowledged per packet
	if cfg.NAKRepeatNs < 0 || cfg.NAKRepeatNs > maxTimeNs {
		return nil, errorf("NAK repeat interval %d ns out of range: 0 (one NAK per gap) up to %d ns", cfg.NAKRepeatNs, int64(maxTimeNs))
	}
	s.nakRepeat = cfg.NAKRepeatNs * 1000
	if cfg.QPTimeout < 0 || cfg.QPTimeout > 31 {
		return nil, errorf("QP timeout %d out of range: the exponent is 1..31 (4.096 µs x 2^timeout; 0 means 14)", cfg.QPTimeout)
	}
	s.rto = QPTimeoutNs(cfg.QPTimeout) * 1000
	s.retries = DefaultRetryCount
	if cfg.RetryCount != nil {
		s.retries = *cfg.RetryCount
	}
	if s.retries > 7 {
		return nil, errorf("retry count %d out of range: retry_cnt is 3 bits (0..7; negative retries forever)", s.retries)
	}
	switch {
	case cfg.SwitchJitterNs == 0:
		s.jitter = DefaultSwitchJitterNs * 1000
	case cfg.SwitchJitterNs > 0:
		s.jitter = cfg.SwitchJitterNs * 1000
	}
	switch {
	case cfg.NICDelayNs == 0:
		s.nicDelay = DefaultNICDelayNs * 1000
	case cfg.NICDelayNs > 0:
		if cfg.NICDelayNs > 1e9 {
			return nil, errorf("NIC delay %d ns out of range: use up to 1e9", cfg.NICDelayNs)
		}
		s.nicDelay = cfg.NICDelayNs * 1000
	}
	s.cnpDSCP = DefaultCNPDSCP
	if d := cfg.CNPDSCP; d != nil {
		if *d < 0 || *d > 63 {
			return nil, errorf("CNP DSCP %d out of range 0..63", *d)
		}
		s.cnpDSCP = uint8(*d)
	}
	if cfg.DCQCNEnabled {
		if err := cfg.DCQCN.Validate(); err != nil {
			return nil, errorf("%v (start from ConnectXDCQCN or PaperDCQCN)", err)
		}
		s.dc = dcqcnToPs(cfg.DCQCN)
	}
	if err := s.buildTopology(); err != nil {
		return nil, err
	}
	if err := s.buildQoS(); err != nil {
		return nil, err
	}
	if err := s.buildFlows(); err != nil {
		return nil, err
	}
	if cfg.Transport == TransportUET {
		if err := s.buildUET(); err != nil {
			return nil, err
		}
	}
	if err := s.buildSeries(); err != nil {
		return nil, err
	}
	s.pkts = make([]packet, 0, 4096)
	s.prefetchNext = uintptr(len(s.ports))*unsafe.Sizeof(port{}) > prefetchPortBytes
	s.q.ev = make([]event, 0, 1024)
	if err := s.buildFaults(); err != nil {
		return nil, err
	}
	if err := s.buildWatchdogs(); err != nil {
		return nil, err
	}
	if err := s.buildLB(); err != nil {
		return nil, err
	}
	if cfg.Transport == TransportInfiniBand {
		if err := s.buildIB(); err != nil {
			return nil, err
		}
	}
	if err := s.buildCredits(); err != nil {
		return nil, err
	}
	pr, err := s.planPartitions()
	if err != nil {
		return nil, err
	}
	s.par = pr
	return s, nil
}

func (s *sim) buildTopology() error {
	t := &s.cfg.Topology
	byName := make(map[string]int32, len(t.Nodes))
	s.rt = &routing.Graph{}
	for i, n := range t.Nodes {
		if n.Name == "" {
			return errorf("topology node %d has no name", i)
		}
		if _, dup := byName[n.Name]; dup {
			return errorf("topology node %q defined twice", n.Name)
		}
		if n.Kind != Host && n.Kind != Switch {
			return errorf("topology node %q has unknown kind %d", n.Name, n.Kind)
		}
		if n.BufferBytes < 0 {
			return errorf("node %q: negative buffer %d bytes", n.Name, n.BufferBytes)
		}
		byName[n.Name] = int32(i)
		kind := routing.Host
		if n.Kind == Switch {
			kind = routing.Switch
		}
		s.rt.AddNode(n.Name, kind, n.ASN)
		nd := node{name: n.Name, kind: n.Kind, seed: n.ECMPSeed}
		if err := nd.buildPools(n); err != nil {
			return err
		}
		if nd.seed == 0 {
			nd.seed = mix64(uint64(s.cfg.Seed) ^ hashString(n.Name))
		}
		m := s.cfg.DSCPToPriority[n.Name]
		if m == nil {
			m = s.cfg.DSCPToPriority[""]
		}
		if m == nil {
			m = defaultDSCPMap()
		}
		for d, p := range m {
			if d < 0 || d > 63 || p < 0 || p > 7 {
				return errorf("node %q: DSCP map entry %d->%d out of range (DSCP 0..63, priority 0..7)", n.Name, d, p)
			}
			nd.prio[d] = uint8(p)
		}
		s.nodes = append(s.nodes, nd)
	}
	seen := make(map[PortRef]int)
	s.portByRef = make(map[PortRef]int32, 2*len(t.Links))
	// Two ports per link: sized once, as a port is a few KiB.
	s.ports = make([]port, 0, 2*len(t.Links))
	s.nodeByName = byName
	for li, l := range t.Links {
		if l.RateGbps <= 0 || math.IsNaN(l.RateGbps) || l.RateGbps > 1e5 {
			return errorf("link %d (%s - %s): rate %v Gb/s must be in (0, 100000]", li, l.A, l.B, l.RateGbps)
		}
		if l.PropDelayNs < 0 || l.PropDelayNs > 1e9 {
			return errorf("link %d (%s - %s): propagation delay %d ns must be in [0, 1e9]", li, l.A, l.B, l.PropDelayNs)
		}
		if l.PauseResponseBits < 0 || l.PauseResponseBits > 65535*512 {
			return errorf("link %d (%s - %s): PAUSE response %d bit times must be in [0, 65535 quanta of 512]", li, l.A, l.B, l.PauseResponseBits)
		}
		if l.A.Node == l.B.Node {
			return errorf("link %d connects node %q to itself", li, l.A.Node)
		}
		base := int32(len(s.ports))
		for k, r := range []PortRef{l.A, l.B} {
			ni, ok := byName[r.Node]
			if !ok {
				return errorf("link %d: unknown node %q (add it to Topology.Nodes)", li, r.Node)
			}
			if r.Port == "" {
				return errorf("link %d: node %q has an empty port name", li, r.Node)
			}
			if prev, dup := seen[r]; dup {
				return errorf("link %d: port %s already used by link %d", li, r, prev)
			}
			seen[r] = li
			p := port{
				lastCNP:  math.MinInt64 / 2,
				ref:      r,
				node:     ni,
				peer:     base + int32(1-k),
				host:     s.nodes[ni].kind == Host,
				peerHost: s.nodes[byName[[]PortRef{l.A, l.B}[1-k].Node]].kind == Host,
				lineMbps: l.RateGbps * 1000,
				rateKbps: int64(math.Round(l.RateGbps * 1e6 * (1 + s.skew(r)))),
				propPs:   l.PropDelayNs * 1000,
			}
			if p.rateKbps <= 0 {
				p.rateKbps = 1
			}
			p.serFull = p.serPs(s.fullWire())
			p.respPs = (int64(l.PauseResponseBits)*1_000_000_000 + p.rateKbps/2) / p.rateKbps
			s.ports = append(s.ports, p)
			s.portByRef[r] = int32(len(s.ports) - 1)
			s.nodes[ni].ports = append(s.nodes[ni].ports, int32(len(s.ports)-1))
		}
		// Link li is routing link li: its ports are base and base+1.
		if _, err := s.rt.AddLink(byName[l.A.Node], l.A.Port, byName[l.B.Node], l.B.Port); err != nil {
			return errorf("link %d: %v", li, err)
		}
	}
	s.pfc = make([]pfcTimers, len(s.ports))
	s.routes = make([][][]int32, len(s.ports))
	s.leafRoutes = make([][][]int32, len(s.nodes))
	s.self = make([]int32, len(s.ports))
	s.peerOf = make([]int32, len(s.ports))
	for i := range s.self {
		s.self[i] = int32(i)
		s.peerOf[i] = s.ports[i].peer
	}
	return nil
}

// buildPools checks a switch's pools; without any it gets one ingress pool
// of BufferBytes.
func (nd *node) buildPools(n Node) error {
	if len(n.Pools) == 0 {
		size := n.BufferBytes
		if size == 0 {
			size = DefaultBufferBytes
		}
		nd.pools = []poolState{{name: "shared", size: size}}
		return nil
	}
	seen := map[string]bool{}
	ingress := false
	for _, p := range n.Pools {
		if p.Name == "" || seen[p.Name] {
			return errorf("node %q: pool names must be unique and not empty (got %q)", n.Name, p.Name)
		}
		seen[p.Name] = true
		if p.Bytes < 0 || p.HeadroomBytes < 0 || p.Bytes > 1<<40 || p.HeadroomBytes > 1<<40 {
			return errorf("node %q pool %s: size %d and headroom %d bytes must be in 0..1 TiB", n.Name, p.Name, p.Bytes, p.HeadroomBytes)
		}
		ingress = ingress || !p.Egress
		nd.pools = append(nd.pools, poolState{name: p.Name, egress: p.Egress, size: p.Bytes, hdrSize: p.HeadroomBytes})
	}
	if !ingress {
		return errorf("node %q has pools but no ingress pool: priority groups need one", n.Name)
	}
	return nil
}

// resolve finds an admission's pool: by name, or for "" the first ingress
// pool (ingress) or none (egress).
func (nd *node) resolve(a Admission, egress bool) (admission, error) {
	r := admission{pool: -1, reserved: a.ReservedBytes, static: a.StaticBytes, alpha: a.Alpha, noShared: a.NoShared}
	if a.ReservedBytes < 0 || a.StaticBytes < 0 || a.Alpha < 0 || math.IsNaN(a.Alpha) || a.Alpha > 1024 {
		return r, fmt.Errorf("reserve %d and static threshold %d bytes must not be negative and alpha %v must be in 0..1024", a.ReservedBytes, a.StaticBytes, a.Alpha)
	}
	if a.Pool == "" {
		if egress {
			return r, nil
		}
		for i, p := range nd.pools {
			if !p.egress {
				r.pool = int32(i)
				return r, nil
			}
		}
	}
	for i, p := range nd.pools {
		if p.name == a.Pool {
			if p.egress != egress {
				want := "an ingress"
				if egress {
					want = "an egress"
				}
				return r, fmt.Errorf("pool %s is not %s pool", a.Pool, want)
			}
			r.pool = int32(i)
			return r, nil
		}
	}
	return r, fmt.Errorf("pool %q is not one of the switch's pools", a.Pool)
}

// skew is the clock deviation of a port's transmitter, a fraction drawn
// from the seed and the port name in [-ClockSkewPPM, +ClockSkewPPM] ppm.
// Real oscillators differ by up to ±100 ppm; without any difference,
// identical senders stay phase-locked forever and a full drop-tail queue
// always admits the same one, which no real fabric does.
func (s *sim) skew(r PortRef) float64 {
	ppm := s.cfg.ClockSkewPPM
	if ppm == 0 {
		ppm = 100
	}
	if ppm < 0 {
		return 0
	}
	u := float64(mix64(uint64(s.cfg.Seed)^hashString(r.Node, r.Port))>>11) / (1 << 53)
	return (float64(2*u) - 1) * ppm * 1e-6 // float64(): no fused multiply-add
}

func (s *sim) portIndex(r PortRef) (int32, bool) {
	pi, ok := s.portByRef[r]
	return pi, ok
}

// defaultHeadroom covers what arrives after XOFF: the pause frame waits for
// one frame and travels one propagation delay, the upstream finishes one
// frame, and a propagation delay of data is on the wire.
func (s *sim) defaultHeadroom(p *port) int64 {
	frame := s.fullWire()
	return int64(float64(2*(p.propPs+s.jitter)+p.respPs)*p.lineMbps/8e6) + 3*frame + PauseWireBytes
}

func (s *sim) buildQoS() error {
	for ref, m := range s.cfg.QoS {
		pi, ok := s.portIndex(ref)
		if !ok {
			return errorf("QoS given for port %s, which no link uses", ref)
		}
		if s.ports[pi].host {
			return errorf("QoS given for host port %s: QoS applies to switch ports", ref)
		}
		for pr := range m {
			if pr < 0 || pr > 7 {
				return errorf("QoS for port %s: priority %d out of range 0..7", ref, pr)
			}
		}
	}
	for pr := range s.cfg.DefaultQoS {
		if pr < 0 || pr > 7 {
			return errorf("default QoS: priority %d out of range 0..7", pr)
		}
	}
	for name, m := range s.cfg.PriorityToPG {
		for pr, pg := range m {
			if pr < 0 || pr > 7 || pg < 0 || pg > 7 {
				return errorf("priority-to-PG map of %q: %d->%d out of range 0..7", name, pr, pg)
			}
		}
	}
	for ref, m := range s.cfg.Maps {
		pi, ok := s.portIndex(ref)
		if !ok || s.ports[pi].host {
			return errorf("port maps given for %s, which is not a switch port of any link", ref)
		}
		for d, pr := range m.DSCPToPriority {
			if d < 0 || d > 63 || pr < 0 || pr > 7 {
				return errorf("port %s: DSCP map entry %d->%d out of range (DSCP 0..63, priority 0..7)", ref, d, pr)
			}
		}
		for name, mm := range map[string]map[int]int{"priority-to-PG": m.PriorityToPG, "priority-to-queue": m.PriorityToQueue, "pause-to-queue": m.PauseToQueue, "pause-from-PG": m.PauseFromPG} {
			for k, v := range mm {
				if k < 0 || k > 7 || v < 0 || v > 7 {
					return errorf("port %s: %s map entry %d->%d out of range 0..7", ref, name, k, v)
				}
			}
		}
		for pr, d := range m.RemarkDSCP {
			if pr < 0 || pr > 7 || d < 0 || d > 63 {
				return errorf("port %s: DSCP remarking entry %d->%d out of range (priority 0..7, DSCP 0..63)", ref, pr, d)
			}
		}
		for d, c := range m.DSCPToColour {
			if d < 0 || d > 63 || c < 0 || c > 2 {
				return errorf("port %s: DSCP colour entry %d->%d out of range (DSCP 0..63, colour 0 green, 1 yellow, 2 red)", ref, d, c)
			}
		}
		if len(m.DSCPToColour) > 0 {
			if s.colourOf == nil {
				s.colourOf = make([][64]uint8, len(s.ports))
			}
			for d, c := range m.DSCPToColour {
				s.colourOf[pi][d] = uint8(c)
			}
		}
		if len(m.RemarkDSCP) > 0 {
			if s.remark == nil {
				s.remark = make([][8]int8, len(s.ports))
				for i := range s.remark {
					s.remark[i] = [8]int8{-1, -1, -1, -1, -1, -1, -1, -1}
				}
			}
			for pr, d := range m.RemarkDSCP {
				s.remark[pi][pr] = int8(d)
			}
		}
	}
	for ref, n := range s.cfg.PortMaxPayload {
		pi, ok := s.portIndex(ref)
		if !ok || s.ports[pi].host {
			return errorf("MTU given for %s, which is not a switch port of any link", ref)
		}
		if n <= 0 {
			return errorf("port %s: a largest payload of %d bytes passes no packet", ref, n)
		}
		if s.maxPayload == nil {
			s.maxPayload = make([]int32, len(s.ports))
		}
		s.maxPayload[pi] = int32(min(n, math.MaxInt32))
	}
	for ref, sh := range s.cfg.PortShapers {
		pi, ok := s.portIndex(ref)
		if !ok || s.ports[pi].host {
			return errorf("port shaper given for %s, which is not a switch port of any link", ref)
		}
		q, err := s.shaper(sh)
		if err != nil {
			return errorf("port %s: %v", ref, err)
		}
		if q.kbps == 0 {
			continue
		}
		if s.portShapers == nil {
			s.portShapers = make([]queueShaper, len(s.ports))
		}
		s.portShapers[pi] = q
	}
	s.portQoS = make([][8]PortQoS, len(s.ports))
	for pi := range s.ports {
		p := &s.ports[pi]
		pq := &s.portQoS[pi]
		for pr := range 8 {
			p.queueOf[pr], p.pauseQ[pr] = uint8(pr), uint8(pr)
		}
		if p.host {
			continue
		}
		per := s.cfg.QoS[p.ref]
		n := &s.nodes[p.node]
		maps := s.cfg.Maps[p.ref]
		p.tcOf = n.prio
		for d, pr := range maps.DSCPToPriority {
			p.tcOf[d] = uint8(pr)
		}
		pgMap := maps.PriorityToPG
		if pgMap == nil {
			pgMap = s.cfg.PriorityToPG[n.name]
		}
		if pgMap == nil {
			pgMap = s.cfg.PriorityToPG[""]
		}
		for pr := 0; pr < 8; pr++ {
			p.pgOf[pr] = uint8(pr)
			if g, ok := pgMap[pr]; ok {
				p.pgOf[pr] = uint8(g)
			}
			if q, ok := maps.PriorityToQueue[pr]; ok {
				p.queueOf[pr] = uint8(q)
			}
			if q, ok := maps.PauseToQueue[pr]; ok {
				p.pauseQ[pr] = uint8(q)
			}
		}
		for pr := 0; pr < 8; pr++ {
			q, ok := per[pr]
			if !ok {
				q = s.cfg.DefaultQoS[pr]
			}
			if q.ECN {
				if q.KminBytes < 0 || q.KmaxBytes < q.KminBytes {
					return errorf("port %s priority %d: ECN needs 0 <= Kmin (%d) <= Kmax (%d)", p.ref, pr, q.KminBytes, q.KmaxBytes)
				}
				if q.Pmax < 0 || q.Pmax > 1 || math.IsNaN(q.Pmax) {
					return errorf("port %s priority %d: Pmax %v must be in [0, 1]", p.ref, pr, q.Pmax)
				}
			}
			if q.WREDDrop && (q.DropMinBytes < 0 || q.DropMaxBytes < q.DropMinBytes || q.DropPmax < 0 || q.DropPmax > 1 || math.IsNaN(q.DropPmax)) {
				return errorf("port %s queue %d: WRED drop needs 0 <= min (%d) <= max (%d) and a probability in [0, 1] (%v)", p.ref, pr, q.DropMinBytes, q.DropMaxBytes, q.DropPmax)
			}
			for c, e := range q.ColourDrop {
				if e == nil {
					continue
				}
				if e.MinBytes < 0 || e.MaxBytes < e.MinBytes || e.Pmax < 0 || e.Pmax > 1 || math.IsNaN(e.Pmax) {
					return errorf("port %s queue %d: WRED drop of colour %d needs 0 <= min (%d) <= max (%d) and a probability in [0, 1] (%v)", p.ref, pr, c+1, e.MinBytes, e.MaxBytes, e.Pmax)
				}
				if s.colourDrop == nil {
					s.colourDrop = make([][8][2]redCurve, len(s.ports))
					s.colourWRED = make([]uint16, len(s.ports))
				}
				s.colourDrop[pi][pr][c] = redCurve{e.MinBytes, e.MaxBytes, e.Pmax}
				s.colourWRED[pi] |= 1 << (2*pr + c)
			}
			if q.XonBytes < 0 || q.XonOffsetBytes < 0 || q.HeadroomBytes < 0 {
				return errorf("port %s priority %d: negative PFC threshold", p.ref, pr)
			}
			if q.Weight < 0 {
				return errorf("port %s priority %d: negative weight %d", p.ref, pr, q.Weight)
			}
			if q.Weight == 0 {
				q.Weight = 1
			}
			eg, err := n.resolve(q.Egress, true)
			if err != nil {
				return errorf("port %s priority %d egress: %v", p.ref, pr, err)
			}
			p.lane[pr].eg.adm = eg
			sh, err := s.shaper(q.Shape)
			if err != nil {
				return errorf("port %s queue %d: %v", p.ref, pr, err)
			}
			if sh.kbps > 0 {
				if s.shapers == nil {
					s.shapers = make([]queueShaper, 8*len(s.ports))
					s.shaped = make([]uint8, len(s.ports))
				}
				s.shapers[8*pi+pr] = sh
				s.shaped[pi] |= 1 << pr
			}
			pq[pr] = q
		}
		p.cacheQoS(pq, s.mtu)
		// A PG takes its admission and headroom from its lowest priority
		// and is lossless when any of its priorities has PFC.
		var set [8]bool
		for pr := 0; pr < 8; pr++ {
			g := p.pgOf[pr]
			st := &p.pg[g]
			q := &pq[pr]
			if q.PFC {
				st.lossless = true
				// Its PFC frames come from the PG the port's map names,
				// else from the PG its traffic fills.
				from := g
				if f, ok := maps.PauseFromPG[pr]; ok {
					from = uint8(f)
				}
				p.pg[from].prios = append(p.pg[from].prios, uint8(pr))
			}
			if set[g] {
				continue
			}
			set[g] = true
			in, err := n.resolve(q.Ingress, false)
			if err != nil {
				return errorf("port %s priority %d ingress: %v", p.ref, pr, err)
			}
			st.adm = in
			st.headroom, st.xonOffset, st.xonMin = q.HeadroomBytes, q.XonOffsetBytes, q.XonBytes
		}
		for g := range p.pg {
			st := &p.pg[g]
			if !st.lossless {
				continue
			}
			if s.cfg.ExplicitQoS {
				if st.adm.static == 0 && st.adm.alpha == 0 && !st.adm.noShared {
					return errorf("port %s PG %d: a lossless PG needs a shared threshold (static, alpha, or none at all)", p.ref, g)
				}
				continue
			}
			if st.adm.static == 0 && st.adm.alpha == 0 && !st.adm.noShared {
				st.adm.alpha = 1.0 / 8
			}
			if st.xonOffset == 0 && st.xonMin == 0 {
				st.xonOffset = 3 << 10
			}
			// (A lossless PG holds a PFC priority's traffic, so the loop
			// finds one; its own prios may be empty under a PFC-to-PG map.)
			lowest := uint8(0)
			for pr := range 8 {
				if int(p.pgOf[pr]) == g {
					lowest = uint8(pr)
					break
				}
			}
			if q := &pq[lowest]; q.HeadroomBytes == 0 && !q.HeadroomGiven {
				st.headroom = s.defaultHeadroom(p)
			}
		}
	}
	return nil
}

// packetsFor is the number of packets that carry bytes of a flow: whole
// messages of perMsg packets, then the last (partial) message.
func (s *sim) packetsFor(f *flowState, bytes int64) int64 {
	if f.msg == 0 {
		return (bytes + s.mtu - 1) / s.mtu
	}
	full, rest := bytes/f.msg, bytes%f.msg
	return full*f.perMsg + (rest+s.mtu-1)/s.mtu
}

// resolveNIC finds the host port a flow endpoint names.
func (s *sim) resolveNIC(name string) (int32, error) {
	nodeName, portName := splitNIC(name)
	if i, ok := s.nodeByName[nodeName]; ok {
		n := &s.nodes[i]
		if n.kind != Host {
			return -1, fmt.Errorf("%q is a switch, not a host", nodeName)
		}
		if len(n.ports) == 0 {
			return -1, fmt.Errorf("host %q has no link", nodeName)
		}
		if portName == "" {
			return n.ports[0], nil
		}
		for _, pi := range n.ports {
			if s.ports[pi].ref.Port == portName {
				return pi, nil
			}
		}
		return -1, fmt.Errorf("host %q has no port %q", nodeName, portName)
	}
	return -1, fmt.Errorf("unknown host %q", nodeName)
}

// ringState is one ring collective in progress.
type ringState struct {
	cfg       *Ring
	flows     []int32 // the QP of rank i (to rank i+1)
	steps     int64
	stepStart []int64 // ps; MaxInt64 until posted
	stepEnd   []int64 // ps; the latest receipt (-1 none), the step's end once every rank received it
	received  []int64 // per step, ranks that received it
	first     int64   // first post (ps), MaxInt64 before
}

// a2aState is one all-to-all in progress: per sending rank, its QPs left
// and when the last one completed.
type a2aState struct {
	cfg    *AllToAll
	left   []int32
	doneAt []int64 // ps; the latest QP completion of the rank (-1: none), done when left is 0
	bytes  []int64
	retx   []int64
	// failed counts each rank's QPs that failed, failedAt (ps) the first.
	failed   []int
	failedAt []int64
	start    int64
	flows    int
}

// buildAllToAll adds one quiet QP per ordered pair of every all-to-all.
func (s *sim) buildAllToAll(paths pathCache) error {
	for ci := range s.cfg.AllToAll {
		c := &s.cfg.AllToAll[ci]
		n := len(c.Ranks)
		if c.ID == "" || n < 2 || c.Bytes <= 0 {
			return errorf("all-to-all %d (%q): needs an ID, at least 2 ranks and a positive size (got %d ranks, %d bytes)", ci, c.ID, n, c.Bytes)
		}
		as := &a2aState{cfg: c, left: make([]int32, n), doneAt: make([]int64, n), bytes: make([]int64, n), retx: make([]int64, n), failed: make([]int, n), failedAt: make([]int64, n), start: c.StartNs * 1000}
		// One Flow per ordered pair, all of them in one backing array.
		cfgs := make([]Flow, 0, n*(n-1))
		for i := range n {
			as.doneAt[i] = -1
			for j := range n {
				if i == j {
					continue
				}
				cfgs = append(cfgs, Flow{
					ID: c.ID, Src: c.Ranks[i], Dst: c.Ranks[j],
					SrcPort: 49152 + (i*n+j)%16384, DSCP: c.DSCP, ExplicitDSCP: c.ExplicitDSCP,
					Bytes: c.Bytes, StartNs: c.StartNs, Role: c.Role, Quiet: true,
				})
			}
		}
		for k := range cfgs {
			i := k / (n - 1)
			fi := int32(len(s.flows))
			s.flows = append(s.flows, flowState{})
			if err := s.initFlow(fi, &cfgs[k], nil, paths); err != nil {
				return err
			}
			fs := &s.flows[fi]
			fs.a2a, fs.rank = as, int32(i)
			as.left[i]++
		}
		as.flows = len(cfgs)
		s.a2as = append(s.a2as, as)
	}
	return nil
}

// a2aDone runs when an all-to-all QP has delivered everything.
// Its receiver may run in another partition than other receivers of the
// rank's QPs (parallel.go): the counts and times are atomic, and the time
// a rank completed is the latest of its QPs', whichever partition saw it.
func (s *sim) a2aDone(f *flowState) {
	as := f.a2a
	atomic.AddInt32(&as.left[f.rank], -1)
	atomicMax(&as.doneAt[f.rank], s.now)
}

// buildRings adds one QP per rank of every ring to the flows.
func (s *sim) buildRings(ids map[string]int32, paths pathCache) error {
	for ri := range s.cfg.Rings {
		rc := &s.cfg.Rings[ri]
		n := len(rc.Ranks)
		if rc.ID == "" || n < 2 || rc.Bytes <= 0 {
			return errorf("ring %d (%q): needs an ID, at least 2 ranks and a positive size (got %d ranks, %d bytes)", ri, rc.ID, n, rc.Bytes)
		}
		if rc.Bytes < int64(n) {
			return errorf("ring %d (%q): %d bytes over %d ranks leave a chunk empty: give it at least %d bytes, one a rank", ri, rc.ID, rc.Bytes, n, n)
		}
		// Each step carries its own chunk (RingStepBytes), sizes that
		// differ by a byte at most; a message is cut into the packets of
		// the largest (payload), so that every step ends at the same
		// packet count.
		chunk := RingMaxChunk(rc.Bytes, n)
		steps := int64(2 * (n - 1))
		rs := &ringState{cfg: rc, steps: steps, stepStart: make([]int64, steps), stepEnd: make([]int64, steps), received: make([]int64, steps), first: math.MaxInt64}
		for k := range rs.stepStart {
			rs.stepStart[k], rs.stepEnd[k] = math.MaxInt64, -1
		}
		for i := range n {
			f := Flow{
				ID: fmt.Sprintf("%s-r%d", rc.ID, i), Src: rc.Ranks[i], Dst: rc.Ranks[(i+1)%n],
				SrcPort: 49152 + i%16384, DSCP: rc.DSCP, ExplicitDSCP: rc.ExplicitDSCP,
				Bytes: RingRankBytes(rc.Bytes, n, i), MessageBytes: chunk, StartNs: rc.StartNs, Role: rc.Role,
				NoRateSeries: rc.NoRateSeries,
			}
			fi := int32(len(s.flows))
			s.flows = append(s.flows, flowState{})
			if err := s.initFlow(fi, &f, ids, paths); err != nil {
				return err
			}
			fs := &s.flows[fi]
			// Every message ends in its own packet, even when the chunk is
			// a whole number of MTUs: the receiver tells message ends.
			fs.perMsg = (chunk + s.mtu - 1) / s.mtu
			fs.total = fs.perMsg * steps
			fs.avail = fs.perMsg // step 0 is posted at the start
			fs.ring, fs.rank = rs, int32(i)
			rs.flows = append(rs.flows, fi)
		}
		s.rings = append(s.rings, rs)
	}
	return nil
}

// ringReceived runs when rank i+1 has received step k from rank i: its own
// QP may post step k+1.
//
// The ranks may run in different partitions (parallel.go): the ring's
// per-step counts and times are atomic reductions, the same whatever order
// the partitions reach them in.
func (s *sim) ringReceived(f *flowState, k int64) {
	rs := f.ring
	atomic.AddInt64(&rs.received[k], 1)
	atomicMax(&rs.stepEnd[k], s.now)
	if k+1 >= rs.steps {
		return
	}
	next := &s.flows[rs.flows[(int(f.rank)+1)%len(rs.flows)]]
	next.avail += next.perMsg
	atomicMin(&rs.stepStart[k+1], s.now)
	if next.started {
		s.unpark(rs.flows[(int(f.rank)+1)%len(rs.flows)])
		s.kick(next.src)
	}
}

func a2aQPs(cs []AllToAll) int {
	n := 0
	for _, c := range cs {
		n += len(c.Ranks) * (len(c.Ranks) - 1)
	}
	return n
}

func ringQPs(rings []Ring) int {
	n := 0
	for _, r := range rings {
		n += len(r.Ranks)
	}
	return n
}

// initFlow sets up flow i from its configuration.
func (s *sim) initFlow(i int32, f *Flow, ids map[string]int32, paths pathCache) error {
	if f.ID == "" {
		return errorf("flow %d has no ID", i)
	}
	// Collective QPs (ids nil) are not named one by one.
	if ids != nil {
		if _, dup := ids[f.ID]; dup {
			return errorf("flow ID %q used twice", f.ID)
		}
		ids[f.ID] = i
	}
	src, err := s.resolveNIC(f.Src)
	if err != nil {
		return errorf("flow %q source: %w", f.ID, err)
	}
	dst, err := s.resolveNIC(f.Dst)
	if err != nil {
		return errorf("flow %q destination: %w", f.ID, err)
	}
	if src == dst {
		return errorf("flow %q: source and destination are the same NIC %s", f.ID, s.ports[src].ref)
	}
	if f.Bytes < 0 || f.StartNs < 0 || f.StartNs > maxTimeNs {
		return errorf("flow %q: bytes (%d) and start time (%d ns) must be non-negative and the start within %d ns", f.ID, f.Bytes, f.StartNs, int64(maxTimeNs))
	}
	dscp := flowDSCP(f.DSCP, f.ExplicitDSCP)
	if dscp < 0 || dscp > 63 {
		return errorf("flow %q: DSCP %d out of range 0..63", f.ID, dscp)
	}
	sp := f.SrcPort
	if sp == 0 {
		sp = 49152 + int(i)%16384
	}
	fs := &s.flows[i]
	fs.f = f
	fs.src, fs.dst = src, dst
	fs.dscp = uint8(dscp)
	fs.prio = s.nodes[s.ports[src].node].prio[dscp]
	fs.hashFwd, fs.hashRev = s.flowHashes(src, dst, sp)
	if f.MessageBytes < 0 || f.MessageBytes > 1<<30 {
		return errorf("flow %q: message size %d bytes out of range: use 1 B..1 GiB (0 means MTU-sized packets throughout)", f.ID, f.MessageBytes)
	}
	if f.TxDepth < 0 || f.CQMod < 0 || f.CQMod > max(f.TxDepth, 1) {
		return errorf("flow %q: tx depth %d and CQ moderation %d out of range: use a tx depth of 1 or more (0 means no limit) and a CQ moderation of 1 up to the tx depth (0 means 1)", f.ID, f.TxDepth, f.CQMod)
	}
	fs.msg = f.MessageBytes
	if fs.msg == 0 || fs.msg%s.mtu == 0 {
		// Whole MTU packets either way: the simple arithmetic holds.
		fs.msg = 0
	}
	fs.perMsg = 1
	if fs.msg > 0 {
		fs.perMsg = (fs.msg + s.mtu - 1) / s.mtu
	}
	fs.total = math.MaxInt64
	if f.Bytes > 0 {
		fs.total = s.packetsFor(fs, f.Bytes)
	}
	fs.avail = math.MaxInt64
	fs.lastCNP, fs.lastNak = math.MinInt64/2, math.MinInt64/2
	fs.nakPSN = -1
	fs.gapPSN = -1
	fs.startAt = -1

	// Every QP must reach its destination and its ACKs the sender: at
	// the start every link is up, so only a topology that cannot carry
	// them fails here. A quiet QP keeps no path of its own.
	if f.Quiet {
		if err := s.reaches(src, dst, fs.hashFwd); err != nil {
			return errorf("flow %q: %w", f.ID, err)
		}
	} else if fs.path, fs.route, err = paths.get(s, src, dst, fs.hashFwd); err != nil {
		return errorf("flow %q: %w", f.ID, err)
	}
	if err := s.reaches(dst, src, fs.hashRev); err != nil {
		return errorf("flow %q (reverse path for ACKs): %w", f.ID, err)
	}
	return nil
}

func (s *sim) buildFlows() error {
	ids := make(map[string]int32, len(s.cfg.Flows))
	paths := pathCache{}
	s.flows = make([]flowState, len(s.cfg.Flows), len(s.cfg.Flows)+ringQPs(s.cfg.Rings)+a2aQPs(s.cfg.AllToAll)+programQPs(s.cfg.Programs)+pingQPs(s.cfg.PingPongs))
	for i := range s.cfg.Flows {
		if err := s.initFlow(int32(i), &s.cfg.Flows[i], ids, paths); err != nil {
			return err
		}
	}
	if err := s.buildRings(ids, paths); err != nil {
		return err
	}
	if err := s.buildAllToAll(paths); err != nil {
		return err
	}
	if err := s.buildPrograms(paths); err != nil {
		return err
	}
	if err := s.buildPingPongs(ids, paths); err != nil {
		return err
	}
	for i := range s.cfg.Flows {
		for _, dep := range s.cfg.Flows[i].After {
			j, ok := ids[dep]
			if !ok {
				return errorf("flow %q waits for unknown flow %q", s.cfg.Flows[i].ID, dep)
			}
			if s.flows[j].total == math.MaxInt64 {
				return errorf("flow %q waits for long-lived flow %q, which never completes (give it Bytes)", s.cfg.Flows[i].ID, dep)
			}
			s.flows[i].depsLeft++
			s.flows[j].children = append(s.flows[j].children, int32(i))
		}
	}
	// A dependency cycle would leave flows silently idle: reject it.
	left := make([]int, len(s.flows))
	var ready []int32
	for i := range s.flows {
		left[i] = s.flows[i].depsLeft
		if left[i] == 0 {
			ready = append(ready, int32(i))
		}
	}
	seenN := 0
	for len(ready) > 0 {
		i := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		seenN++
		for _, c := range s.flows[i].children {
			if left[c]--; left[c] == 0 {
				ready = append(ready, c)
			}
		}
	}
	if seenN != len(s.flows) {
		var stuck []string
		for i := range left {
			if left[i] > 0 {
				stuck = append(stuck, s.cfg.Flows[i].ID)
			}
		}
		sort.Strings(stuck)
		return errorf("flow dependencies (After) form a cycle among %v", stuck)
	}
	return nil
}

// PrioritySeriesValues is what one priority of a watched port costs per
// sample, in values (PrioritySeries: three numbers and two flags), for
// budgets of sampled values.
const PrioritySeriesValues = 4

// PrioritiesInUse bounds the priorities a watched port of cfg samples
// (Series.Queues[].Priorities): a port holds the priorities its packets'
// DSCPs map to, and the flows', collectives' and CNPs' DSCPs are all the
// DSCPs there are. A sample of a watched port costs 1 +
// PrioritySeriesValues x this many values, at most.
func PrioritiesInUse(cfg *Config) int {
	dscp := flowDSCP
	cnp := DefaultCNPDSCP
	if cfg.CNPDSCP != nil {
		cnp = *cfg.CNPDSCP
	}
	dscps := map[int]bool{cnp: true}
	for _, f := range cfg.Flows {
		dscps[dscp(f.DSCP, f.ExplicitDSCP)] = true
	}
	for _, r := range cfg.Rings {
		dscps[dscp(r.DSCP, r.ExplicitDSCP)] = true
	}
	for _, a := range cfg.AllToAll {
		dscps[dscp(a.DSCP, a.ExplicitDSCP)] = true
	}
	for _, p := range cfg.Programs {
		dscps[dscp(p.DSCP, p.ExplicitDSCP)] = true
	}
	for _, p := range cfg.PingPongs {
		dscps[dscp(p.DSCP, p.ExplicitDSCP)] = true
	}
	return min(8, len(dscps))
}

// RateSeriesValues is the values one sample of cfg's flows takes: two per
// flow with a series of its own (Series.Rates: rate and goodput) and one
// for the total of every flow that is not Quiet (Series.GoodputGbps). Such
// flows are cfg.Flows' that are not Quiet, one QP per rank of each ring
// and two per ping-pong (all-to-all and program QPs are Quiet); those
// marked NoRateSeries count in the total only.
func RateSeriesValues(cfg *Config) int {
	rated, own := 0, 0
	count := func(n int, total bool) {
		rated += n
		if !total {
			own += n
		}
	}
	for i := range cfg.Flows {
		if !cfg.Flows[i].Quiet {
			count(1, cfg.Flows[i].NoRateSeries)
		}
	}
	for _, r := range cfg.Rings {
		count(len(r.Ranks), r.NoRateSeries)
	}
	for _, p := range cfg.PingPongs {
		count(2, p.NoRateSeries)
	}
	if rated == 0 {
		return 0
	}
	return 2*own + 1
}

// seriesPrealloc is the most samples a time series is sized for at the
// start. Grown by append, the series of 64gpu's ECN x PFC matrix (2,001
// samples, 119 series a variant) took a twelfth of its CPU in sampling,
// half of that the arrays' copies and the zeroing of each larger one;
// sized at once they are written in place: the quick start's page faults
// 2,565 against 5,032 and its peak 107 against 139 MB. A run whose work
// ends early keeps fewer samples than it planned (Series.Repeated), so
// the start is bounded, about the 1,000-3,000 samples of the catalog's
// runs at 10-20 µs: 64gpu's allreduce (2,501 planned, its ring done in a
// few hundred) peaked at 41.8 against 37.7 MB, nccl-allreduce at 108
// against 102 MB. A series grows past it by append.
const seriesPrealloc = 2048

func (s *sim) buildSeries() error {
	if s.cfg.SampleEveryNs < 0 {
		return errorf("negative sample interval %d ns", s.cfg.SampleEveryNs)
	}
	if s.cfg.SampleEveryNs == 0 {
		if len(s.cfg.Watch) > 0 {
			return errorf("watch ports given but SampleEveryNs is 0: set a sample interval")
		}
		return nil
	}
	n := s.cfg.DurationNs / s.cfg.SampleEveryNs
	if n > 200_000 {
		return errorf("%d samples requested (duration %d ns / every %d ns): raise SampleEveryNs to keep under 200000", n, s.cfg.DurationNs, s.cfg.SampleEveryNs)
	}
	if vals := (n + 1) * int64(RateSeriesValues(s.cfg)+len(s.cfg.Watch)*(1+PrioritySeriesValues*PrioritiesInUse(s.cfg))); vals > 20_000_000 {
		return errorf("time series would hold %d values (%d samples x %d values of flows and %d watched ports, %d values per port and priority in use): raise SampleEveryNs, or mark flows NoRateSeries",
			vals, n+1, RateSeriesValues(s.cfg), len(s.cfg.Watch), PrioritySeriesValues)
	}
	s.series = &Series{EveryNs: s.cfg.SampleEveryNs}
	s.seriesCap = int(min(n+1, seriesPrealloc))
	s.series.TimesNs = make([]int64, 0, s.seriesCap)
	for _, w := range s.cfg.Watch {
		pi, ok := s.portIndex(w)
		if !ok {
			return errorf("watched port %s is not on any link", w)
		}
		s.watch = append(s.watch, pi)
		s.watchPrio = append(s.watchPrio, [8]uint8{})
		s.series.Queues = append(s.series.Queues, PortSeries{Node: w.Node, Port: w.Port,
			Bytes: make([]int64, 0, s.seriesCap), Paused: make([]bool, 0, s.seriesCap)})
	}
	for i := range s.flows {
		if !s.flows[i].f.Quiet {
			if !s.flows[i].f.NoRateSeries {
				s.series.Rates = append(s.series.Rates, FlowSeries{ID: s.flows[i].f.ID,
					RateGbps: make([]float64, 0, s.seriesCap), GoodputGbps: make([]float64, 0, s.seriesCap)})
			}
			s.rated = append(s.rated, int32(i))
		}
	}
	if len(s.rated) > 0 {
		// (nil without flows to rate: there is no total then.)
		s.series.GoodputGbps = make([]float64, 0, s.seriesCap)
	}
	s.sampleT = s.cfg.SampleEveryNs * 1000
	return nil
}
