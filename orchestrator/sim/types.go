package sim

import (
	"fmt"
	"strings"
)

// NodeKind says whether a node forwards packets (a switch) or terminates
// them (a host with one NIC per port).
type NodeKind int

const (
	Host NodeKind = iota
	Switch
)

func (k NodeKind) String() string {
	if k == Switch {
		return "switch"
	}
	return "host"
}

// Node is a host or a switch of the simulated fabric.
type Node struct {
	Name string
	Kind NodeKind
	// BufferBytes is the size of a switch's one shared pool when Pools is
	// empty. Zero means DefaultBufferBytes.
	BufferBytes int64
	// Pools are a switch's buffer pools as its vendor config describes
	// them (SONiC BUFFER_POOL). Empty means one ingress pool of
	// BufferBytes that every priority group shares and no egress limit.
	Pools []Pool
	// ECMPSeed salts the switch's ECMP hash: of n equal-cost next hops a
	// packet takes routing.ECMPIndex(n, its flow hash, ECMPSeed). Zero
	// derives a seed from Config.Seed and the node name, so a different
	// run seed gives a different (but reproducible) ECMP placement.
	ECMPSeed uint64
	// ASN is a switch's BGP ASN. Routing is what the fabric's eBGP
	// underlay converges to (package routing): the shortest AS path,
	// ECMP over every equal one, no path that holds a switch's own ASN.
	// Zero gives the switch an ASN of its own, so a topology without
	// ASNs routes on plain shortest paths. Hosts ignore it.
	ASN uint32
}

// Pool is one buffer pool of a switch. Reserved buffers (a profile's
// ReservedBytes, per-PG headroom) are outside it, as SONiC sizes pools.
type Pool struct {
	Name string
	// Egress pools bound egress queues; the others ingress priority
	// groups.
	Egress bool
	Bytes  int64
	// HeadroomBytes > 0 is a shared headroom pool (SONiC's xoff on an
	// ingress pool): lossless PGs take their headroom from it, each up
	// to its own HeadroomBytes, instead of from a per-PG reserve.
	HeadroomBytes int64
}

// Admission is how a switch admits bytes into one ingress priority group
// or one egress queue: first its reserve, then the shared pool up to a
// static or dynamic threshold (SONiC BUFFER_PROFILE size, static_th,
// dynamic_th).
type Admission struct {
	// Pool names the pool; "" means the switch's first ingress pool for
	// ingress and no egress limit at all for egress.
	Pool          string
	ReservedBytes int64
	// StaticBytes > 0 caps the shared use; otherwise Alpha > 0 caps it
	// at Alpha times the pool's free space (alpha = 2^dynamic_th); with
	// neither, the pool's free space is the only limit (a lossless PG
	// then gets alpha 1/8).
	StaticBytes int64
	Alpha       float64
	// NoShared admits nothing beyond the reserve (SONiC's dynamic_th -8 on
	// Mellanox: alpha 0).
	NoShared bool
}

// PortRef names one end of a link: a node and its port ("leaf1",
// "Ethernet0").
type PortRef struct {
	Node string `json:"node"`
	Port string `json:"port"`
}

func (p PortRef) String() string { return p.Node + ":" + p.Port }

// Link is a full-duplex point-to-point link.
type Link struct {
	A, B        PortRef
	RateGbps    float64
	PropDelayNs int64
	// PauseResponseBits is how long each end takes to obey a PFC frame
	// that has reached it, in bit times at RateGbps (IEEE 802.3 Annex 31B
	// bounds it per speed: 905 quanta of 512 bits at 400G). 0: at once,
	// as HPCC's ns-3 and htsim model ports, and a switch decides XOFF
	// once the whole packet that crossed its threshold has arrived, as
	// they do. Above 0 a switch decides XOFF at the byte that crossed it,
	// as an ASIC accounting its buffer in cells does: the part of the
	// packet within the threshold is charged to the shared buffer, the
	// rest to headroom, and the PFC frame leaves as if sent from then
	// (but not earlier than the response before now, which keeps every
	// event after the one that caused it). Both together are what the
	// headroom formula of the switch vendors and IEEE 802.1Qbb sizes
	// for: a profile sized by it loses nothing, one sized for less may.
	PauseResponseBits int
}

// Topology is the simulated graph. Hosts do not forward; switches do.
type Topology struct {
	Nodes []Node
	Links []Link
}

// PortQoS is the QoS of one switch port at one index 0-7. The port is
// both the egress (scheduling, ECN marking, egress admission) and the
// ingress (PG admission, PFC) of its link, and the index means each side's
// own thing: the egress fields (ECN, Kmin, Kmax, Pmax, the WRED drop
// fields, Egress, Strict, Weight) are those of egress queue i; the ingress
// fields (Ingress, PFC, Watchdog, the headroom and XON fields) those of
// priority (traffic class) i. With the default maps (Config.Maps: queue =
// priority, pauses to the priority's own queue) the two coincide.
type PortQoS struct {
	// ECN marks ECN-capable packets at egress on the instantaneous queue
	// depth of this (port, priority): probability 0 at or below KminBytes,
	// Pmax*(q-Kmin)/(Kmax-Kmin) in between, 1 above KmaxBytes.
	ECN       bool
	KminBytes int64
	KmaxBytes int64
	Pmax      float64
	// Ingress is the admission of the priority's priority group (see
	// Config.PriorityToPG) on this port as an ingress, Egress that of the
	// priority's queue on it as an egress. Of the priorities sharing a PG,
	// the lowest gives the PG's admission and headroom.
	Ingress Admission
	Egress  Admission
	// PFC makes the priority lossless on this port: when its PG's shared
	// use reaches the ingress threshold the port pauses its upstream
	// neighbour; further bytes go to headroom (HeadroomBytes; 0 means
	// computed from link rate, propagation delay and MTU unless
	// HeadroomGiven), and a packet that fits neither is dropped. XON
	// follows once the PG's use is XonOffsetBytes below its limit
	// or its total use is at most XonBytes, whichever is reached first
	// (SAI's XON_OFFSET_TH and XON_TH), and the headroom has drained.
	// Both 0 mean an offset of 3 KiB; XonBytes alone applies only the
	// floor, as SONiC does without xon_offset.
	PFC bool
	// IgnoresPause: the port does not obey PFC frames it receives for the
	// priority, whose PFC is off there (SAI's PRIORITY_FLOW_CONTROL
	// bitmap, from pfc_enable, governs what a port obeys as well as what
	// it sends); the frames are still counted.
	IgnoresPause bool
	// Watchdog, when set on a PFC priority, is the port's PFC watchdog.
	Watchdog *Watchdog
	// WatchdogDrop holds the priority in a PFC watchdog's drop action
	// from the start of the run, with no storm (SONiC's BIG_RED_SWITCH):
	// the port ignores pause frames for it, sends none, and drops every
	// packet of it that arrives on it or would leave by it, as a
	// watchdog's drop action does once it declares a storm; its watchdog
	// (if any) declares none.
	WatchdogDrop   bool
	HeadroomBytes  int64
	HeadroomGiven  bool
	XonOffsetBytes int64
	XonBytes       int64
	// Strict queues are served before all weighted ones, higher priority
	// first; the others share the port by deficit round robin in
	// proportion to Weight (0 means 1).
	Strict bool
	Weight int
	// WREDDrop drops data packets early as they join the queue, with
	// probability 0 at or below DropMinBytes, DropPmax*(q-min)/(max-min)
	// in between and 1 above DropMaxBytes of queue depth (WRED without
	// ECN marking).
	WREDDrop     bool
	DropMinBytes int64
	DropMaxBytes int64
	DropPmax     float64
	// ColourDrop are the early drops of packets the ingress port coloured
	// yellow (0) and red (1) (PortMaps.DSCPToColour), in place of
	// WREDDrop's, which is green's; nil: that colour drops no packet
	// early.
	ColourDrop [2]*WREDCurve
	// Shape, with a Kbps above 0, shapes the queue.
	Shape Shaper
}

// Shaper shapes a switch queue (PortQoS.Shape) or a whole switch port
// (Config.PortShapers): it sends no faster than Kbps. A frame may start
// once the queue (the port) has paid, at the rate, for the frames before
// it, less what it may send ahead (the generic cell rate algorithm, frames
// counted by their bytes on the wire): BurstBytes, or a full-size frame
// when that is more (0 included), as an ASIC's least bucket holds a frame.
// So from idle a queue sends that much and the frame in hand at its line
// rate before the rate paces it; a frame that waited for the port (another
// queue's going out) keeps the rate it had paid for. The port still sends
// each frame at its line rate.
type Shaper struct {
	Kbps       int64
	BurstBytes int64
	// PacketsPerSec, instead of Kbps, meters frames whatever their size:
	// a frame may start once the frames before it are paid for at one
	// each 1/PacketsPerSec, less BurstPackets (below one, one) ahead.
	PacketsPerSec int64
	BurstPackets  int64
}

// WREDCurve is an early drop: probability 0 at or below MinBytes of queue
// depth, Pmax*(q-min)/(max-min) in between and 1 above MaxBytes.
type WREDCurve struct {
	MinBytes, MaxBytes int64
	Pmax               float64
}

// PortMaps are one switch port's classification and queue maps. A nil map
// keeps the default: the node's DSCPToPriority and PriorityToPG, queue =
// priority, and a pause for priority p stops queue p.
type PortMaps struct {
	// DSCPToPriority classifies the packets the port receives.
	DSCPToPriority map[int]int
	// PriorityToPG is the ingress PG each priority fills at the port.
	PriorityToPG map[int]int
	// PriorityToQueue is the egress queue each priority leaves by when the
	// port sends it.
	PriorityToQueue map[int]int
	// PauseToQueue is the queue a PFC frame for priority p, received by
	// the port, pauses.
	PauseToQueue map[int]int
	// PauseFromPG is the PG whose XOFF sends the port's PFC frames for
	// priority p; nil: the PG p's traffic fills (PriorityToPG). A PG
	// none of whose priorities it sends pauses nobody when it fills.
	PauseFromPG map[int]int
	// RemarkDSCP is the DSCP the port writes into the packets of
	// priority p it sends (egress remarking: SONiC's TC_TO_DSCP_MAP);
	// the next switch classifies them by it. A priority it leaves out,
	// or a nil map, keeps the packet's DSCP.
	RemarkDSCP map[int]int
	// DSCPToColour colours the packets the port receives, by DSCP: 1
	// yellow, 2 red (EOS's drop precedence); a DSCP it leaves out is
	// green. A coloured packet meets its colour's early drop at the
	// egress queue (PortQoS.ColourDrop), not green's.
	DSCPToColour map[int]int
}

// Flow is one QP: a sender NIC streaming Bytes to a receiver NIC.
type Flow struct {
	ID string
	// Src and Dst are host NICs: "host" (its first port, in link order) or
	// "host:port".
	Src, Dst string
	// SrcPort is the UDP source port (RoCE derives it from the QP) that
	// enters the ECMP hash. Zero derives one from the flow's index.
	SrcPort int
	// DSCP classifies the flow's data and ACK packets (0 means 26 unless
	// ExplicitDSCP is set); every node maps it to a priority with
	// Config.DSCPToPriority.
	DSCP int
	// ExplicitDSCP makes DSCP 0 mean DSCP 0 (best effort) instead of the
	// RoCE default.
	ExplicitDSCP bool
	// Bytes to send; 0 means a long-lived flow that runs to the end.
	Bytes int64
	// MessageBytes is the size of the messages the sender posts (perftest
	// -s): each message is cut into MTU packets and its last packet
	// carries the remainder, so messages smaller than the MTU, or not a
	// multiple of it, put more headers on the wire per byte. 0 means one
	// endless message (every packet a full MTU).
	MessageBytes int64
	// TxDepth is how many messages the sender keeps posted and not yet
	// completed (perftest --tx-depth): it sends the packets of message m
	// only once message m-TxDepth has completed, and a message completes
	// when the receiver has acknowledged all of it. A QP whose
	// acknowledgements stop (its path died) therefore stops after TxDepth
	// messages, where an unlimited one sends on at line rate. Messages are
	// of MessageBytes (one MTU packet each when it is 0). Such a sender
	// asks for an ACK of the last packet of every message and of every
	// AckEvery packets within one (the BTH AckReq bit, which Linux rxe
	// sets on a message's last packet), so ACK coalescing never holds a
	// completion back. 0 means no limit.
	TxDepth int
	// CQMod is how many messages share one signalled completion (perftest's
	// CQ moderation): the sender learns of completions CQMod messages at a
	// time, so its window reopens in steps of CQMod messages. 0 means 1;
	// at most TxDepth (perftest caps it there).
	CQMod   int
	StartNs int64
	// After lists flow IDs that must have been fully received before this
	// flow starts (StartNs then counts from that moment); it expresses the
	// step dependencies of collectives such as ring AllReduce.
	After []string
	Role  string
	// Quiet marks a flow reported only as part of a whole (a step of a
	// collective): its packets' latency goes into the run's distribution
	// but it keeps no percentiles, rate series or path of its own, which
	// keeps a collective of millions of QPs small and fast.
	Quiet bool
	// NoRateSeries keeps the flow's sampled goodput in the total of all
	// flows (Series.GoodputGbps) but no rate and goodput series of its own
	// (Series.Rates), for a caller that shows only some flows' series: a
	// 4096-GPU ring's QPs sampled every 20 µs for 50 ms were 164 MB of
	// series that labctl's record reduced to the total.
	NoRateSeries bool
}

// FlowKey is what a switch's ECMP hash reads from a packet: its NICs
// (as Flow names them, "host:port") and UDP ports; the protocol is UDP.
type FlowKey struct {
	Src, Dst         string
	SrcPort, DstPort int
}

// RoCEv2Port is the UDP destination port of RoCE v2 data packets.
const RoCEv2Port = 4791

// Ring is a ring AllReduce of Bytes over Ranks (NIC names in ring order),
// run as NCCL runs it: one QP from each rank to the next, and 2(N-1)
// steps (reduce-scatter, then all-gather), each one message of Bytes/N on
// that QP, posted once the rank has received the previous step's message
// from its predecessor. Its QPs are reported as flows "<ID>-r<rank>" and
// its steps in Result.Rings. A ring costs one flow per rank whatever the
// number of steps, so collectives of thousands of ranks stay small.
type Ring struct {
	ID    string
	Ranks []string
	Bytes int64
	// DSCP and ExplicitDSCP classify the QPs as Flow's do.
	DSCP         int
	ExplicitDSCP bool
	StartNs      int64
	Role         string
	// NoRateSeries is Flow's, for every QP of the ring.
	NoRateSeries bool
}

// AllToAll has every rank send Bytes to every other rank at once, one QP
// per ordered pair, as a mixture-of-experts layer exchanges tokens. Its
// QPs are not reported one by one: Result.AllToAll gives each sending
// rank's totals and the collective's time, so a thousand ranks (a million
// QPs) stay a small record.
type AllToAll struct {
	ID    string
	Ranks []string
	Bytes int64
	// DSCP and ExplicitDSCP classify the QPs as Flow's do.
	DSCP         int
	ExplicitDSCP bool
	StartNs      int64
	Role         string
}

// Config is one simulation run.
type Config struct {
	Topology Topology
	// QoS holds per switch port and priority settings. A switch port (or
	// priority) without an entry uses DefaultQoS for that priority, and
	// a priority missing there too is lossy, unmarked, weight 1.
	QoS        map[PortRef]map[int]PortQoS
	DefaultQoS map[int]PortQoS
	// PortShapers shape switch ports, all their queues together, beside
	// any queue's own shaper.
	PortShapers map[PortRef]Shaper
	// PortMaxPayload is the largest payload a switch port passes, its IP
	// MTU less a RoCE packet's headers (SONiC's PORT mtu, EOS's interface
	// mtu): a packet with more is dropped where it arrives on such a port
	// and where it would leave by one, as a switch drops a frame over a
	// port's MTU (RoCE sets don't-fragment). No entry: no limit.
	PortMaxPayload map[PortRef]int
	// DSCPToPriority maps DSCP to priority per node name; the "" entry
	// applies to nodes without their own. Nil means {26: 3, 48: 6}.
	// Unmapped DSCPs go to priority 0.
	DSCPToPriority map[string]map[int]int
	// PriorityToPG maps priorities to ingress priority groups per switch
	// name ("" for the rest); nil means each priority is its own PG.
	// Admission and PFC state are per PG, so lossy classes that share
	// PG 0 share its limit.
	PriorityToPG map[string]map[int]int
	// Maps are per-port classification and queue maps (switch ports),
	// over the per-node ones above.
	Maps map[PortRef]PortMaps
	// ExplicitQoS says every QoS value comes from the caller (labctl
	// passes switch configs resolved with their NOS's defaults): the
	// engine then fills in none of its own (a lossless PG's alpha 1/8, a
	// 3 KiB XON offset, a computed headroom) and refuses a lossless PG
	// without a shared threshold.
	ExplicitQoS bool

	Flows []Flow
	// Rings are ring AllReduce collectives run beside Flows.
	Rings []Ring
	// AllToAll are all-to-all collectives run beside Flows.
	AllToAll []AllToAll
	// PingPongs are ib_write_lat runs (pingpong.go) beside Flows.
	PingPongs []PingPong
	// Programs are collectives as dataflows of streams (program.go), run
	// beside Flows; ScaleUp is each server's GPU interconnect by host
	// name, which their scale-up streams take.
	Programs []Program
	ScaleUp  map[string]ScaleUpDomain
	// NICCapGbps caps the payload rate of every NIC of a host, by host
	// name: a NIC behind a PCIe link slower than its port cannot feed it.
	// The cap is the link's payload rate (server.PCIeGbps: its TLP and
	// encoding overheads are taken off), and PCIe carries the payload
	// alone: the NIC sends its next data packet (of any QP) no sooner
	// than the last one's payload takes at the cap, its headers, preamble
	// and gap on the wire costing the port's time only. DCQCN can only
	// slow a QP further. 0 (or no entry) means no cap.
	NICCapGbps map[string]float64
	DurationNs int64
	// WarmupNs starts the goodput window of long-lived flows, so their
	// goodput is measured once rates have converged.
	WarmupNs int64
	MTU      int // payload bytes per packet; 0 means 4096
	Seed     int64

	DCQCN        DCQCNParams
	DCQCNEnabled bool
	// CNPDSCP is the DSCP of CNPs; nil means 48. A pointer because DSCP
	// 0 is a setting of its own (best effort), not "unset".
	CNPDSCP *int
	// CNPPerPort paces CNPs per receiving NIC port instead of per flow:
	// at most one CNP per DCQCN.MinTimeBetweenCNPsUs from the port, to
	// whichever flow's marked packet comes first (ConnectX's
	// ROCE_CC_CNP_MODERATION PER_PORT; the NV config describes
	// min_time_between_cnps as "between sending CNPs from the port").
	CNPPerPort bool

	// AckEvery is how many in-order packets the receiver acknowledges at
	// once (0 means 16); the last packet of a flow is always acknowledged.
	AckEvery int
	// Loss recovery, as RC QPs do it. The receiver answers the first
	// out-of-sequence packet of a gap with a NAK and then stays silent
	// until the missing packet arrives (one NAK per gap: the IBA rule,
	// as Linux rxe implements it); NAKRepeatNs > 0 also repeats the NAK
	// for the same gap after that long (HPCC's ns-3 repeats it every
	// 500 µs). The sender goes back to the NAK's PSN (go-back-N), and to
	// the first unacknowledged packet after the QP's local ACK timeout
	// without progress: 4.096 µs x 2^QPTimeout (ibv_qp_attr.timeout,
	// perftest -u; 0 means perftest's 14, 67.1 ms). A QP retries
	// RetryCount times (ibv_qp_attr.retry_cnt, 0..7; nil means perftest's
	// 7, negative retries forever): the timeout after its last retry
	// fails it, so retry_cnt 0 fails on the first timeout. The flow stops
	// there and is reported failed, as the NIC completes its work request
	// with IBV_WC_RETRY_EXC_ERR. A pointer because 0 is a setting of its
	// own, not "unset".
	NAKRepeatNs int64
	QPTimeout   int
	RetryCount  *int

	// KeyHash, when not nil, hashes the 5-tuple of a QP's packets for
	// ECMP: data packets hash FlowKey{Src, Dst, SrcPort, 4791}, ACKs,
	// NAKs and CNPs the reverse key {Dst, Src, 4791, SrcPort}. A caller
	// that traces paths itself passes its own hash here (labctl passes
	// fabric.KeyHash of the NICs' addresses, so `labctl trace` shows the
	// links a run takes). Nil hashes the NIC names and ports.
	KeyHash func(FlowKey) uint64

	// Partitions splits a large fabric for the parallel engine
	// (parallel.go): 0 decides by the fabric's size (one partition below
	// 256 NIC ports, then one per 128 NIC ports up to 16), 1 keeps one
	// (the sequential engine), N asks for up to N. Like Seed, it is part
	// of what a result depends on: the same Partitions give the same
	// result for any Threads. Runs with a program that starts less than
	// a lookahead after the one it waits for keep one.
	Partitions int
	// Threads is how many goroutines run the partitions (0: every CPU).
	// It changes how fast a run goes, never its result.
	Threads int
	// Spare, when not nil, holds threads other runs no longer need: a
	// split run takes them as they come, up to a thread per partition,
	// and gives them back when it ends. Like Threads it changes the
	// speed, never the result.
	Spare *SpareThreads

	// Progress, when not nil, is called every few hundred thousand events
	// with how far the run got (simulated time, events, the fraction of
	// its work done), from the goroutine running the simulation.
	Progress func(Progress)

	// SampleEveryNs > 0 records time series every interval: queue depth
	// and pause state at the Watch ports, every flow's sending rate and
	// goodput, and the goodput of all flows together.
	SampleEveryNs int64
	Watch         []PortRef

	// ClockSkewPPM bounds each transmitter's deviation from its nominal
	// rate, drawn per port from the seed (0 means 100 ppm, negative means
	// none). See sim.skew for why it matters.
	ClockSkewPPM float64
	// SwitchJitterNs is the spread of a switch's ingress pipeline latency:
	// each packet reaches the switch's queues up to this much later than
	// its last bit arrived, drawn from the seed, never reordering a link
	// (0 means 100 ns, negative means none). Like clock skew, it keeps
	// identical senders from phase-locking at a full queue.
	SwitchJitterNs int64
	// Faults take links down and back up during the run; Storms make NICs
	// send PFC pause frames without end (a stuck receiver).
	Faults []LinkFault
	Storms []PauseStorm
	// LB is how switches spread packets over equal-cost ports.
	LB LoadBalancing
	// OutOfOrder makes receiving NICs place packets that arrive out of
	// order instead of discarding them (ConnectX-5 and later with
	// out-of-order data placement, which adaptive routing and packet
	// spraying need); without it a reordered packet looks like a loss to
	// the go-back-N receiver. A gap still open 100 µs after the first
	// packet beyond it arrived is taken for a loss and NAKed.
	OutOfOrder bool

	// Transport is what the NICs and switches run: TransportRoCE (or
	// ""), TransportInfiniBand with IB's settings (ib.go; nil means the
	// defaults) or TransportUET with UET's (uet.go). IB is a pointer so
	// that Config stays in the allocator's 640-byte size class: a larger
	// Config moved the heap's layout enough to slow RoCE runs by a tenth.
	Transport string
	IB        *IBParams
	UET       UETParams

	// NICDelayNs is the NICs' own processing time (send and receive
	// pipelines, PCIe), charged once per packet on arrival at the
	// receiving NIC (0 means 1000 ns, negative none). It puts one-way
	// latency through one switch at the 1-2 µs real RoCE NICs show.
	NICDelayNs int64
}

// The transports (Config.Transport).
const (
	TransportRoCE       = "roce"
	TransportInfiniBand = "infiniband"
	TransportUET        = "uet"
)

// LinkFault takes the link with end Link (either end, "node:port") down at
// DownNs and, when UpNs > DownNs, back up at UpNs. Packets on the wire and
// in the egress queues of its two ports are lost when it goes down. The
// switches at its two ends change their routes DetectNs after each change
// (they see the port go down), every other switch ConvergeNs after it (it
// learns from the routing protocol); until then a switch keeps hashing
// flows onto the dead link, and what it sends there is lost. Negative
// means at once; 0 means DefaultDetectNs / DefaultConvergeNs.
type LinkFault struct {
	Link                 PortRef
	DownNs, UpNs         int64
	DetectNs, ConvergeNs int64
	// Why, when set, says what takes the link down other than a fault of
	// the scenario (a port its config keeps administratively down): the
	// timeline's link-down mark says it.
	Why string
}

// DownFromStart says whether f takes its link down at the start of the
// run with every switch routing around it at once (no detection or
// convergence delay): no QP's route starts over it (startRoutes). A
// scenario's on_path follows its flow without such links (runtime.
// FaultSpec.DownFromStart), so that it fails a link the data takes.
func (f LinkFault) DownFromStart() bool {
	return f.DownNs == 0 && f.DetectNs < 0 && f.ConvergeNs < 0
}

// PauseStorm makes a host NIC send PFC XOFF frames for Priority from
// StartNs until EndNs (0: the end of the run), as a stuck NIC whose
// receive side no longer drains does; what reaches the NIC meanwhile is
// dropped. Its switch port stops sending that priority, its queue fills,
// and PFC carries the pause upstream unless a PFC watchdog (PortQoS.
// Watchdog) breaks it.
type PauseStorm struct {
	NIC            string
	Priority       int
	StartNs, EndNs int64
}

// Watchdog is a switch port's PFC watchdog for one lossless priority, as
// SONiC (PFC_WD) and EOS configure it. Every PollNs (0: 100 ms, SONiC's)
// it looks at the priority's egress queue: one paused without a break
// (pause frames kept coming, so it sent nothing) for DetectionNs is in a
// storm, declared at the first poll at least DetectionNs after the pause
// began, so within DetectionNs + PollNs of it. Then Action applies:
// "errdisable" (EOS's default: the port goes down for the rest of the
// run), "drop" (the port ignores pause frames for the priority and stops
// sending them, and drops the queue's packets and that priority's packets
// arriving on the port), "forward" (it ignores pause frames and stops
// sending them, so the queue drains towards the stuck peer), "alert"
// (nothing but the count). After RestorationNs without pause frames
// (0: never) the port goes back to normal.
type Watchdog struct {
	DetectionNs, RestorationNs, PollNs int64
	Action                             string
}

// LoadBalancing is how switches choose among equal-cost egress ports.
type LoadBalancing struct {
	// Mode is "ecmp" (or ""): a flow's 5-tuple hash picks the port, so a
	// flow keeps its path; "flowlet": a flow moves to a random port when
	// it has been idle at the switch for FlowletGapNs (LetFlow), which
	// keeps its packets in order when the gap exceeds the paths' delay
	// difference; "spray": every packet of a flow takes a random port;
	// "adaptive": every packet takes the port with the least bytes queued
	// for its priority (switch adaptive routing). Spray and adaptive
	// reorder packets: without OutOfOrder receivers treat that as loss.
	// ACKs, NAKs and CNPs always use the flow hash.
	Mode string
	// FlowletGapNs is the idle time that starts a new flowlet; 0 means
	// DefaultFlowletGapNs.
	FlowletGapNs int64
}

// Defaults used when a Config leaves a field zero.
const (
	// DefaultDetectNs: a switch sees its own port go down within
	// milliseconds of the carrier loss (RFC 7938 section 7.1: a link
	// failure "is often detected in milliseconds").
	DefaultDetectNs = 1_000_000
	// DefaultConvergeNs: the other switches route around the failure once
	// BGP has withdrawn it; with BFD at FRR's default timers (transmit and
	// receive interval 300 ms, detect multiplier 3; SONiC runs FRR) the
	// failure is detected after 900 ms.
	DefaultConvergeNs = 900_000_000
	// DefaultFlowletGapNs is the flowlet inactivity timeout that RDMA load
	// balancing studies use (ConWeave's simulations of CONGA and LetFlow,
	// 100 µs; switch ASICs offer 16 to 256 µs).
	DefaultFlowletGapNs = 100_000
	// DefaultQPTimeout and DefaultRetryCount are perftest's QP settings
	// (perftest_parameters.h DEF_QP_TIME 14, DEF_RETRY_COUNT 7).
	DefaultQPTimeout   = 14
	DefaultRetryCount  = 7
	DefaultMTU         = 4096
	DefaultBufferBytes = 16 << 20
	// DefaultNICDelayNs is Config.NICDelayNs's default: a RoCE NIC's
	// own processing per packet, the 1-2 µs one-way latency through one
	// switch real NICs show. DefaultSwitchJitterNs is SwitchJitterNs's:
	// a switch's ingress pipeline latency is drawn uniformly below it.
	DefaultNICDelayNs     = 1000
	DefaultSwitchJitterNs = 100
	// WireOverheadBytes is added to every data packet's payload on the
	// wire: Ethernet header 14 + FCS 4 + preamble 8 + IFG 12 + IPv4 20 +
	// UDP 8 + BTH 12 + ICRC 4. One flow's goodput on an idle link is
	// therefore MTU/(MTU+82) of line rate.
	WireOverheadBytes = 82
	// AckWireBytes is an ACK or NAK on the wire (overhead + AETH 4);
	// CNPWireBytes a CNP (overhead + 16 reserved bytes); PauseWireBytes a
	// minimum frame with preamble and IFG.
	AckWireBytes   = WireOverheadBytes + 4
	CNPWireBytes   = WireOverheadBytes + 16
	PauseWireBytes = minWireBytes
	// minWireBytes is the smallest Ethernet frame on the wire: 64 bytes
	// with preamble and inter-frame gap. A data packet with less than 2
	// bytes of payload is padded to it, as a MAC pads a runt frame. Its
	// serialization bounds the parallel engine's lookahead from below.
	minWireBytes = 84
	// PauseQuanta is the pause time a PFC XOFF frame asks for, in units of
	// 512 bit times; the sender refreshes it at half that while congested.
	PauseQuanta = 0xFFFF
)

// WireEfficiency is the payload share of a full packet on the wire,
// MTU/(MTU+WireOverheadBytes); an mtu of 0 or less means DefaultMTU.
func WireEfficiency(mtu int) float64 {
	if mtu <= 0 {
		mtu = DefaultMTU
	}
	return float64(mtu) / float64(mtu+WireOverheadBytes)
}

// QPTimeoutNs is the local ACK timeout of a QP timeout exponent:
// 4.096 µs x 2^timeout (ibv_modify_qp(3)); 0 means DefaultQPTimeout.
func QPTimeoutNs(timeout int) int64 {
	if timeout <= 0 {
		timeout = DefaultQPTimeout
	}
	return 4096 << timeout
}

// splitNIC parses "host" or "host:port".
func splitNIC(s string) (node, port string) {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func (c *Config) mtu() int {
	if c.MTU <= 0 {
		return DefaultMTU
	}
	return c.MTU
}

// DefaultDSCP is the DSCP of RoCE data (and ACKs) when a flow sets none;
// DefaultCNPDSCP that of CNPs when Config.CNPDSCP is nil. The default
// DSCP map puts them on priorities 3 and 6.
const (
	DefaultDSCP    = 26
	DefaultCNPDSCP = 48
)

func defaultDSCPMap() map[int]int { return map[int]int{DefaultDSCP: 3, DefaultCNPDSCP: 6} }

// flowDSCP is a flow's (ring's, program's) DSCP: dscp, or DefaultDSCP for
// a 0 that is not explicit.
func flowDSCP(dscp int, explicit bool) int {
	if dscp == 0 && !explicit {
		return DefaultDSCP
	}
	return dscp
}

func errorf(format string, a ...any) error { return fmt.Errorf("sim: "+format, a...) }
