// Package sim is labctl's packet-level discrete-event fabric simulator. It
// knows no vendor text and no lab lifecycle: callers describe the fabric,
// its QoS and the traffic with the types of this package, call Run, and get
// per-flow, per-port and total counters plus optional time series.
//
// # Input
//
//   - Topology: Nodes (Host or Switch; a switch has its buffer pools, an
//     ECMP seed and an ASN) and full-duplex Links between named ports
//     (PortRef) with a rate and a propagation delay. Every host port is one
//     NIC; a flow names a NIC as "host" (the host's first port in link
//     order) or "host:port".
//   - Config.QoS / Config.DefaultQoS: per switch port and priority PortQoS
//     (ECN Kmin/Kmax/Pmax, WRED drop, ingress and egress Admission into the
//     pools, PFC with headroom and XON, a PFC Watchdog, strict or DWRR
//     weight); Config.Maps the per-port DSCP, PG, queue and pause maps over
//     Config.DSCPToPriority (default 26->3, 48->6) and PriorityToPG, and
//     the DSCP a port writes into each priority's packets as it sends them
//     (PortMaps.RemarkDSCP: the next switch classifies them by it). With
//     ExplicitQoS every value comes from the caller, as labctl passes
//     vendor configs resolved with their NOS's defaults.
//   - Traffic: Flows, QPs with a size (0 = long-lived), a message size, a
//     tx depth (perftest's: at most that many messages posted and not
//     completed) with its CQ moderation, a start time and optional After
//     dependencies (a flow starts once the listed flows were fully
//     received); Rings (ring AllReduce, one QP per rank over 2(N-1)
//     steps), AllToAll collectives and PingPongs (ib_write_lat: one QP
//     each way, each write posted once the other side's has arrived and
//     its own has completed) beside them; Programs, collectives as
//     dataflows of streams (program.go), each stream a QP through the
//     fabric or a transfer over its server's scale-up domain
//     (Config.ScaleUp), a program starting at its StartNs or that long
//     after the program named in its After completed.
//   - Hosts: NICCapGbps caps the payload every NIC of a host sends (a
//     NIC behind a slower PCIe link, which carries payload, not headers).
//   - The NICs: DCQCN parameters in ConnectX's names (ConnectXDCQCN, the
//     NIC's defaults; PaperDCQCN, the paper's on the same machinery; see
//     package nic) with DCQCNEnabled, CNPDSCP and CNPPerPort; loss recovery
//     (AckEvery, NAKRepeatNs, QPTimeout, RetryCount, OutOfOrder).
//   - Events: link Faults, PFC pause Storms, and LB, how switches spread
//     packets over equal-cost ports (ECMP, flowlets, spraying, adaptive).
//
// IncastFlows, PairFlows, PermutationFlows, AllToAllFlows and
// RingAllReduceFlows generate traffic patterns as plain flows. Switch
// ports without QoS are lossy DWRR queues: give the CNP priority (6)
// Strict in DefaultQoS, as RoCE configs do.
//
// # Model
//
// Time is integer picoseconds. Links serialize packets at their rate and
// deliver them whole after the propagation delay (store and forward). Each
// data packet carries its payload (MTU bytes, or a message's remainder)
// plus WireOverheadBytes (82: Ethernet, IPv4, UDP, BTH, ICRC, preamble,
// IFG), so one flow on an idle fabric gets MTU/(MTU+82) of line rate.
//
// Switches are output-queued with 8 queues per port and the buffer pools
// their config describes. A packet is admitted into its ingress priority
// group and its egress queue: each first into its reserve, then into the
// shared pool up to a static threshold or alpha times the pool's free
// space (dynamic_th). Egress serves strict queues first (highest first),
// then the others by deficit round robin. WRED drop acts as a packet
// joins its queue; ECN marks data packets at dequeue with probability
// markProbability on the instantaneous depth of the egress queue
// (including the departing packet). PFC is per ingress port and PG: once
// the PG's shared use reaches its threshold the port sends PAUSE
// (PauseQuanta of 512 bit times, refreshed at half that while congested)
// to its upstream neighbour, which stops the paused queue on its egress;
// XON (quanta 0) follows once use falls below the XON offset or floor.
// Bytes arriving meanwhile go to the PG's headroom (its own, or a shared
// headroom pool); a packet a lossless PG cannot fit there, or a lossy PG
// or queue over its limit, is dropped. A PFC watchdog finds a queue paused
// without a break and drops, forwards or disables the port. Each
// transmitter runs at its nominal rate off by up to ±100 ppm
// (ClockSkewPPM) and each switch adds up to 100 ns of ingress pipeline
// latency (SwitchJitterNs), both drawn from the seed and never reordering
// a link: real clocks and pipelines differ, and without that, identical
// senders phase-lock at a full drop-tail queue. Receiving NICs add a fixed
// processing delay (NICDelayNs, 1 µs), so one-way latency through one
// switch lands at the 1-2 µs of real RoCE NICs.
//
// Routing is what the fabric's eBGP underlay converges to (package
// routing, the one `labctl trace` uses: shortest AS path, ECMP over every
// equal one, no path that holds a switch's own ASN; switches without ASNs
// route on shortest paths), in each switch's own view of the failed links,
// one table per destination leaf. A switch picks among equal-cost ports
// with routing.ECMPIndex of the packet's flow hash (Config.KeyHash of the
// QP's 5-tuple, the reverse tuple for ACKs; NIC names and ports without
// it) and its ECMP seed, unless LB spreads data packets otherwise.
//
// NICs serve control packets (ACK, NAK, CNP) first by priority, then their
// flows round robin, each paced at its DCQCN current rate. The receiver
// (notification point) sends a CNP for a CE-marked packet at most once per
// min_time_between_cnps, per flow or, with CNPPerPort, per port; the
// sender (reaction point) cuts and recovers its rate as ConnectX NICs do
// (see reactionPoint). The receiver acknowledges every AckEvery packets
// (or after 10 µs). Loss recovery is go-back-N: the receiver discards a
// packet out of order (unless OutOfOrder places it) and answers the first
// one of a gap with a NAK, one per gap (NAKRepeatNs > 0 repeats it, as
// HPCC's ns-3 does); the sender goes back to the NAK's PSN, or to its
// first unacknowledged packet after the QP's local ACK timeout (QPTimeout)
// without progress. The timeout after RetryCount retries fails the QP, as
// a NIC completes its work request with IBV_WC_RETRY_EXC_ERR: the flow
// stops and is reported failed (FlowStats.Failed, FailedAtNs). A NIC with
// a cap (NICCapGbps) sends its next data packet no sooner than the last
// one's payload takes at the cap (PCIe carries no headers), whichever QP
// it belongs to; DCQCN can only slow a QP further.
//
// A Program's fabric stream is an RC QP as above whose sender posts
// message m once, for every input, message m+Offset of the input stream
// was received (every message ends in a packet of its own, so the
// receiver knows message ends); a scale-up stream never becomes packets:
// a posted message waits behind what its GPU posted before, takes
// MessageBytes*8/GbpsPerGPU to leave and arrives LatencyNs after its last
// byte. The engine keeps per stream only counts (received, posted), so a
// program costs its streams and inputs, not its messages. A program whose
// QP failed never completes, nor do the programs after it; the run then
// ends once nothing can progress.
//
// # InfiniBand
//
// With Config.Transport TransportInfiniBand (ib.go, settings in
// Config.IB) the same ports, queues and QPs run as an InfiniBand fabric:
// credit-based flow control per data VL on every link (a receiving
// port's buffer per VL in 64-byte credits, freed when a switch sends the
// packet on or an HCA receives it, returned one flow-control packet and
// one propagation delay later) instead of PFC and buffer admission, so
// nothing is dropped for want of buffer and queues back up hop by hop;
// VL arbitration round robin over the VLs with credits; the flow's SL
// through SL2VL; routes per destination LID as a subnet manager computes
// them (ftree, updn or minhop; optionally adaptive per packet); IB
// congestion control (FECN at congested roots, BECN, CCT pacing) instead
// of DCQCN; IB's 26 bytes of headers (IBWireOverheadBytes). Vendor QoS
// in the Config is ignored and a PFC storm refused. Result.InfiniBand
// holds perfquery's port counters (IBPortStats).
//
// # Output and determinism
//
// Result holds per-flow stats (goodput, FCT, latency percentiles from a
// log-linear histogram, retransmits, timeouts, failure, CNPs, paths), per
// port and priority counters (tx, ECN marks, drops by cause, PFC frames
// sent and received, paused time, queue depth percentiles and peak,
// watchdog actions), the collectives' steps and ranks, totals, a timeline
// of faults, routing changes and watchdog actions and, with SampleEveryNs,
// time series of queue depth, pause state and flow rates. The same Config (Seed included) gives a
// byte-identical Result: simultaneous events come out of the event heap in
// an order fixed by the run's own sequence of operations, the only
// randomness is seeded generators, and floating-point products that
// feed a sum are rounded explicitly so no fused multiply-add makes one
// architecture differ from another.
//
// A data packet that reaches its receiver in order and only counts itself
// there (a quiet arrival) is taken when the last switch sends it, on its
// arrival's clock, with its ACK, if one is due, scheduled for the
// arrival's time; quiet.go says when that is exact, and the Result is the
// same as taking every arrival as an event (tested), Result.Events too.
//
// # Parallel engine
//
// A large fabric (256 NIC ports or more by default; Config.Partitions) is
// split into partitions, each a group of switches with their servers,
// with an event queue, clock, packet pool and seeded generator of its own
// (parallel.go). They advance together in windows no longer than the
// lookahead, the least serialization plus propagation delay on a link
// between two partitions, so nothing one does inside a window can reach
// another before the window ends; events for another partition wait in an
// outbox and join its queue, in a fixed order, as the next window starts.
// Config.Threads goroutines run the partitions of each window; a thread
// takes its partitions in the order opposite to the last window's (one
// thread always, more where windows are heavy), so that it starts on those
// whose state its caches still hold: the order inside a window is no part
// of the result, since each partition reads only what the others sent it
// before the window. The split
// depends on the fabric and the traffic, never on the threads, so a
// Result is the same, byte for byte, for any Threads; Result.Partitions
// says how the run was split, and a split run differs from a one-partition
// run of the same Config as another seed would (ties between partitions
// and random draws come in another order). Link faults and time series
// samples run between windows, on the whole fabric, as does a program's
// start; a program's completion is counted after the window it happened
// in, so a program that waits for another must start a lookahead after it
// at least (Program.StartNs), or the run keeps one partition. Config.Spare
// lets a split run take over threads that other runs gave up.
//
// For labs too big for packets (1024 GPUs), RingAllReduceFlowLevel models
// ring AllReduce at flow level with max-min fair sharing, and
// FlowLevelRates gives any flow set's steady-state max-min rates; both use
// the packet engine's routing and their agreement with it is tested on
// small fabrics. RingAllReduceTheoryNs is the closed form.
package sim
