// Package sim is labctl's packet-level discrete-event fabric simulator. It
// knows no vendor text and no lab lifecycle: callers describe the fabric,
// its QoS and the traffic with the types of this package, call Run, and get
// per-flow, per-port and total counters plus optional time series.
//
// # Input
//
//   - Topology: Nodes (Host or Switch; a switch has a shared buffer and an
//     ECMP seed) and full-duplex Links between named ports (PortRef) with a
//     rate and a propagation delay. Every host port is one NIC; a flow names
//     a NIC as "host" (the host's first port in link order) or "host:port".
//   - Config.QoS / Config.DefaultQoS: per switch port and priority PortQoS
//     (ECN Kmin/Kmax/Pmax, PFC XOFF/XON/headroom, strict or DWRR weight).
//     Config.DSCPToPriority maps DSCP to priority per node (default
//     26->3, 48->6).
//   - Flows: QPs with a size (0 = long-lived), a start time and optional
//     After dependencies (a flow starts once the listed flows were fully
//     received), which is how RingAllReduceFlows builds a collective.
//   - DCQCN parameters (PaperDCQCN, MellanoxDCQCN) and DCQCNEnabled.
//
// IncastFlows, PairFlows, PermutationFlows, AllToAllFlows and
// RingAllReduceFlows generate the traffic patterns of labctl scenarios.
// Switch ports without QoS are lossy FIFO-like DWRR queues: give the CNP
// priority (6) Strict in DefaultQoS, as RoCE configs do.
//
// # Model
//
// Time is integer picoseconds. Links serialize packets at their rate and
// deliver them whole after the propagation delay (store and forward). Each
// data packet carries MTU payload bytes plus WireOverheadBytes (82: Ethernet,
// IPv4, UDP, BTH, ICRC, preamble, IFG), so one flow on an idle fabric gets
// MTU/(MTU+82) of line rate.
//
// Switches are output-queued with one shared buffer and 8 priorities per
// port. Egress serves strict queues first (highest priority first), then
// the others by deficit round robin. ECN marks data packets at dequeue with
// probability markProbability on the instantaneous depth of the egress queue
// (including the departing packet). PFC accounts bytes per ingress port and
// priority: past the XOFF threshold (static, or 1/8 of the free shared
// buffer) the port sends PAUSE (65535 quanta of 512 bit times, refreshed at
// half that while congested) to its upstream neighbour, which stops that
// priority on its egress; XON (quanta 0) follows once use falls XonBytes
// below the threshold. Bytes arriving while paused go to per-port,
// per-priority headroom; a packet that fits neither shared buffer nor
// headroom is dropped, as is any lossy packet when the shared buffer is
// full. Each transmitter runs at its nominal rate off by up to ±100 ppm
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
// it) and its ECMP seed.
//
// NICs serve control packets (ACK, NAK, CNP) first by priority, then their
// flows round robin, each paced at its DCQCN current rate. The receiver
// (notification point) sends a CNP for a CE-marked packet at most once per
// flow per CNPIntervalNs; the sender (reaction point) cuts and recovers its
// rate as in the DCQCN paper (see reactionPoint). Loss recovery is
// go-back-N: the receiver drops out-of-order packets and sends a NAK at most
// once per NAKIntervalNs; the sender also goes back after RTONs without
// progress. The receiver acknowledges every AckEvery packets (or 10 µs).
//
// # Output and determinism
//
// Result holds per-flow stats (goodput, FCT, latency percentiles from a
// log-linear histogram, retransmits, CNPs), per port and priority counters
// (tx, ECN marks, drops, PFC frames sent and received, paused time, queue
// watermark), totals and, with SampleEveryNs, time series of queue depth,
// pause state and flow rates. The same Config (Seed included) gives a
// byte-identical Result: simultaneous events come out of the event heap in
// an order fixed by the run's own sequence of operations, the only
// randomness is one seeded generator, and floating-point products that
// feed a sum are rounded explicitly so no fused multiply-add makes one
// architecture differ from another.
//
// For labs too big for packets (1024 GPUs), RingAllReduceFlowLevel models
// ring AllReduce at flow level with max-min fair sharing, and
// FlowLevelRates gives any flow set's steady-state max-min rates; both use
// the packet engine's routing and their agreement with it is tested on
// small fabrics. RingAllReduceTheoryNs is the closed form.
package sim
