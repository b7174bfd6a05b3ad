package sim

import (
	"math"
	"math/bits"
	"slices"
	"strings"
)

// InfiniBand (Config.Transport TransportInfiniBand). The engine's ports,
// queues, links, QPs and loss recovery are RoCE's; what changes:
//
//   - Credit-based link-level flow control per data VL on every link
//     (IBA vol. 1 ch. 7, the link layer): each receiving port (a switch ingress or an HCA)
//     has a buffer per VL counted in 64-byte credits, and a transmitter
//     starts a packet on a VL only with credits for all of it. A switch
//     frees a packet's credits when its egress port starts sending it on,
//     an HCA on receipt; the credits travel back in a flow-control packet
//     that leaves after the frame on the wire and arrives a propagation
//     delay later. Nothing is ever dropped for want of buffer (an
//     overrun is an internal error) and no PAUSE is sent; where credits
//     run out, queues back up hop by hop: head-of-line blocking and
//     congestion spreading.
//   - Switch queues are per VL; the egress port arbitrates between the
//     VLs that have a packet and credits for it round robin (VLArb with
//     equal weights). Vendor QoS (PFC, ECN, buffer pools, DSCP maps at
//     switches) does not exist on an IB switch and is ignored.
//   - A flow's SL is its priority through the sending host's DSCP map,
//     its VL the SL2VL table's entry for it; the VL is what the engine's
//     per-priority queues and counters index (packet.prio).
//   - Routes are per destination LID as the subnet manager computes them
//     (ibBuildLFT), optionally adaptive per data packet.
//   - IB congestion control (IBA Annex A10): FECN marked at congested
//     egress VL queues, answered by a BECN (a CNP) from the destination
//     HCA, CCTI raised at the source and lowered by its timer, and the
//     CCT's inter-packet delay between the source's packets.
//   - Packets carry IB's headers (LRH, BTH, ICRC, VCRC) instead of
//     Ethernet, IP and UDP.

// IBParams are an InfiniBand fabric's settings (Config.Transport
// TransportInfiniBand). Zero values mean the defaults named.
type IBParams struct {
	// Routing is the subnet manager's routing engine: "ftree" (or ""),
	// "updn" or "minhop" (OpenSM's routing_engine names).
	Routing string
	// AdaptiveRouting makes switches send each data packet by the least
	// queued of the minimal ports (ties: the LFT's port). Receivers then
	// see reordering: set Config.OutOfOrder.
	AdaptiveRouting bool
	// VLs is the number of data VLs (1, 2, 4 or 8; 0 means DefaultIBVLs).
	VLs int
	// SL2VL maps SL 0-15 to a data VL; nil means OpenSM's default table
	// folded onto the VLs (DefaultSL2VL).
	SL2VL []int
	// VLBufferBytes is every receiving port's buffer per VL; 0 derives
	// it from the port's link rate (IBDerivedVLBuffer).
	VLBufferBytes int64
	CC            IBCC
}

// IBCC is IB congestion control (IBA vol. 1 Annex A10).
type IBCC struct {
	Enabled bool
	// Threshold 1..15 (0 means DefaultIBThreshold): a switch egress VL
	// queue holding more than (16-Threshold)/16 of a VL buffer is
	// congested.
	Threshold int
	// MarkingRate is the number of eligible packets left unmarked
	// between two marks (0: every one).
	MarkingRate int
	// CCTIIncrease is what a BECN adds to the source's CCT index (0
	// means 1), up to CCTILimit (0 means the table's last index).
	CCTIIncrease int
	CCTILimit    int
	// CCTITimerNs: each expiry lowers the index by one, down to CCTIMin
	// (0 means DefaultIBCCTITimerNs).
	CCTITimerNs int64
	CCTIMin     int
	// CCT holds each index's inter-packet delay (multiplier << shift),
	// in units of one 64-byte credit's serialization time at the source
	// port; nil means DefaultIBCCT.
	CCT []int
}

// InfiniBand defaults (transport.IB* cites where each comes from).
const (
	DefaultIBVLs       = 4
	DefaultIBThreshold = 8
	// DefaultIBCCTITimerNs is 20 units of 1.024 µs.
	DefaultIBCCTITimerNs = 20 * 1024
	// IBCreditBytes is the flow-control credit (IBA vol. 1 ch. 7, the link layer: 64 bytes).
	IBCreditBytes = 64
	// IBWireOverheadBytes is what a data packet adds to its payload: LRH
	// 8 + BTH 12 + ICRC 4 + VCRC 2 (the physical layer's 64b/66b coding
	// is in the line rate). IBAckWireBytes adds an AETH (4),
	// IBCNPWireBytes a CNP's 16 reserved bytes (the format RoCE v2
	// borrowed), IBFlowControlWireBytes is a flow-control packet (4
	// bytes and a 2-byte LPCRC, IBA vol. 1 ch. 7).
	IBWireOverheadBytes    = 26
	IBAckWireBytes         = IBWireOverheadBytes + 4
	IBCNPWireBytes         = IBWireOverheadBytes + 16
	IBFlowControlWireBytes = 6
)

// DefaultSL2VL is OpenSM's default SL-to-VL table (osm_base.h
// OSM_DEFAULT_QOS_SL2VL) folded onto vls data VLs.
func DefaultSL2VL(vls int) []int {
	base := [16]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7}
	out := make([]int, 16)
	for i, v := range base {
		out[i] = v % vls
	}
	return out
}

// DefaultIBCCT is labctl's default CCT: 128 entries, entry i an
// inter-packet delay of 8i credit times.
func DefaultIBCCT() []int {
	cct := make([]int, 128)
	for i := range cct {
		cct[i] = 8 * i
	}
	return cct
}

// IBDerivedVLBuffer is the VL buffer of a port whose link runs at
// rateGbps with MTU mtu when IBParams.VLBufferBytes is 0: the credit
// round trip of a 100 m cable (2 x 500 ns plus a packet's serialization)
// at the rate, plus two packets, rounded up to a KiB (as
// transport.IBVLBufferKB).
func IBDerivedVLBuffer(rateGbps float64, mtu int) int64 {
	pkt := float64(mtu + IBWireOverheadBytes)
	rtt := 2*100*5.0 + pkt*8/rateGbps
	bytes := rtt*rateGbps/8 + 2*pkt
	return int64((bytes+1023)/1024) * 1024
}

// ibState is the fabric's InfiniBand state; nil for other transports.
type ibState struct {
	vls   int
	sl2vl [16]uint8
	ports []ibPort
	// lft[lid][node] is a switch's egress port towards the HCA port of
	// LID lid (-1: none); lids[lid] is that port, lidOf its inverse (-1
	// for switch ports). LIDs go to the HCA ports in the topology's link
	// order, as a subnet manager numbers what it discovers.
	lft         [][]int32
	lids, lidOf []int32
	// level is each node's tier: hosts 0, leaves 1, spines 2, ... (hops
	// from the nearest host), what ftree's "up" means.
	level    []int32
	ftree    bool
	adaptive bool
	nicDelay int64 // ps: the HCA's receive pipeline (Config.NICDelayNs)

	cc      bool
	thrNum  int64 // 16 - threshold: a queue over thrNum/16 of a VL buffer is congested
	marking int32
	inc     int32
	limit   int32
	min     int32
	timer   int64 // ps
	cct     []int64
	// flows is each QP's congestion control state at its source.
	flows []ibFlow
}

// ibPort is one port's InfiniBand state: as a transmitter, its credits
// per VL at the peer; as a receiver, its buffer per VL and the credits in
// use; its perfquery counters.
type ibPort struct {
	credits [8]int32
	used    [8]int32
	buf     int32 // credits per VL of this port's receive buffer
	rr      uint8 // VL arbitration: the VL to look at first
	// epoch counts the link's state changes: a credit sent before the
	// last one is void (link-up reinitializes the credits).
	epoch uint32
	// markLeft is, per VL, the eligible packets still to leave unmarked
	// (MarkingRate).
	markLeft [8]int32
	// waitSince is when the port last found data but no credits (-1: not
	// waiting), waitPs the time it waited so far.
	waitSince, waitPs int64
	creditPs          int64 // one credit's serialization time, ps

	rcvBytes, rcvPkts        int64
	xmitDiscards, relayError int64
	rcvFECN, rcvBECN, marked int64
	overruns                 int64
}

// ibFlow is a QP's congestion control state at its source HCA: its CCT
// index and CCTI timer.
type ibFlow struct {
	ccti    int32
	timerOn bool
	gen     uint32
}

func ibCredits(wire int32) int32 { return (wire + IBCreditBytes - 1) / IBCreditBytes }

// buildIB checks the InfiniBand settings and sets up the fabric's state:
// buffers and credits, VLs of the flows, routes. It runs once the ports
// and flows exist.
func (s *sim) buildIB() error {
	var p IBParams
	if s.cfg.IB != nil {
		p = *s.cfg.IB
	}
	ib := &ibState{vls: p.VLs}
	if ib.vls == 0 {
		ib.vls = DefaultIBVLs
	}
	switch ib.vls {
	case 1, 2, 4, 8:
	default:
		return errorf("InfiniBand: %d data VLs: use 1, 2, 4 or 8 (0 means %d)", p.VLs, DefaultIBVLs)
	}
	switch p.Routing {
	case "", "ftree":
		ib.ftree = true
	case "updn", "minhop":
	default:
		return errorf("InfiniBand routing engine %q: use ftree, updn or minhop", p.Routing)
	}
	ib.adaptive = p.AdaptiveRouting
	sl2vl := p.SL2VL
	if sl2vl == nil {
		sl2vl = DefaultSL2VL(ib.vls)
	}
	if len(sl2vl) != 16 {
		return errorf("InfiniBand SL2VL has %d entries: give 16, one per SL", len(sl2vl))
	}
	for sl, vl := range sl2vl {
		if vl < 0 || vl >= ib.vls {
			return errorf("InfiniBand SL2VL maps SL %d to VL %d: use a data VL 0..%d", sl, vl, ib.vls-1)
		}
		ib.sl2vl[sl] = uint8(vl)
	}
	if len(s.cfg.Storms) > 0 {
		return errorf("InfiniBand has no PFC: a PFC storm (Config.Storms) cannot happen; remove it")
	}
	if s.mtu > 4096 {
		return errorf("InfiniBand MTU %d: an IB path MTU is at most 4096 bytes (IBA: 256, 512, 1024, 2048 or 4096); set the lab's qos.mtu to 4096 or less", s.mtu)
	}
	if p.VLBufferBytes < 0 || p.VLBufferBytes > 1<<34 {
		return errorf("InfiniBand VL buffer %d bytes out of range (0 means derived from the link rate)", p.VLBufferBytes)
	}
	pkt := ibCredits(int32(s.mtu + IBWireOverheadBytes))
	ib.ports = make([]ibPort, len(s.ports))
	for i := range s.ports {
		sp := &s.ports[i]
		bp := &ib.ports[i]
		b := p.VLBufferBytes
		if b == 0 {
			b = IBDerivedVLBuffer(sp.lineMbps/1000, int(s.mtu))
		}
		bp.buf = int32(b / IBCreditBytes)
		if bp.buf < pkt {
			return errorf("InfiniBand VL buffer of %d bytes at %s holds no full packet (%d credits of 64 B at MTU %d): give at least %d bytes",
				b, sp.ref, pkt, s.mtu, int64(pkt)*IBCreditBytes)
		}
		bp.waitSince = -1
		bp.creditPs = sp.serPs(IBCreditBytes)
	}
	for i := range s.ports {
		for vl := range ib.vls {
			ib.ports[i].credits[vl] = ib.ports[s.ports[i].peer].buf
		}
	}
	cc := p.CC
	if cc.Enabled {
		t := cc.Threshold
		if t == 0 {
			t = DefaultIBThreshold
		}
		if t < 1 || t > 15 || cc.MarkingRate < 0 || cc.CCTIIncrease < 0 || cc.CCTITimerNs < 0 || cc.CCTIMin < 0 || cc.CCTILimit < 0 {
			return errorf("InfiniBand CC: threshold %d (1..15), marking rate %d, CCTI increase %d, timer %d ns, CCTI min %d and limit %d must not be negative or out of range",
				cc.Threshold, cc.MarkingRate, cc.CCTIIncrease, cc.CCTITimerNs, cc.CCTIMin, cc.CCTILimit)
		}
		table := cc.CCT
		if table == nil {
			table = DefaultIBCCT()
		}
		if len(table) == 0 {
			return errorf("InfiniBand CC: an empty CCT (nil means the default)")
		}
		ib.cc = true
		ib.thrNum = int64(16 - t)
		ib.marking = int32(cc.MarkingRate)
		ib.inc = int32(max(cc.CCTIIncrease, 1))
		ib.limit = int32(cc.CCTILimit)
		if ib.limit == 0 {
			ib.limit = int32(len(table) - 1)
		}
		ib.min = int32(cc.CCTIMin)
		if int(ib.limit) >= len(table) || ib.min > ib.limit {
			return errorf("InfiniBand CC: CCTI limit %d and min %d must lie in the CCT's %d entries, min <= limit", ib.limit, ib.min, len(table))
		}
		ib.timer = cc.CCTITimerNs * 1000
		if ib.timer == 0 {
			ib.timer = DefaultIBCCTITimerNs * 1000
		}
		for i, d := range table {
			if d < 0 || d > 16383<<3 {
				return errorf("InfiniBand CC: CCT entry %d delay %d out of range (multiplier 0..16383 << shift 0..3)", i, d)
			}
			ib.cct = append(ib.cct, int64(d))
		}
	}
	// The HCA frees a packet's credits on receipt, before its receive
	// pipeline: that delay moves from the wire to delivery (ibArrive).
	ib.nicDelay, s.nicDelay = s.nicDelay, 0
	ib.lidOf = make([]int32, len(s.ports))
	for i := range s.ports {
		ib.lidOf[i] = -1
		if s.ports[i].host {
			ib.lidOf[i] = int32(len(ib.lids))
			ib.lids = append(ib.lids, int32(i))
		}
	}
	ib.level = s.levels()
	ib.flows = make([]ibFlow, len(s.flows))
	for i := range ib.flows {
		ib.flows[i].ccti = ib.min
	}
	s.ib = ib
	for i := range s.flows {
		f := &s.flows[i]
		f.prio = ib.sl2vl[f.prio]
	}
	s.ibBuildLFT()
	for i := range s.flows {
		f := &s.flows[i]
		if f.f.Quiet {
			continue
		}
		path, route, ok := s.ibTracePath(f.src, f.dst)
		if !ok {
			return errorf("flow %q: the subnet manager's routes from %s do not reach %s", f.f.ID, s.ports[f.src].ref, s.ports[f.dst].ref)
		}
		f.path, f.route = path, route
	}
	return nil
}

// ibBuildLFT computes every switch's linear forwarding table as the
// subnet manager does, for each destination LID in order, over the
// minimal ports of each switch's view of the links (route.go, faults.go).
//
// minhop and updn: each switch takes the minimal port with the fewest
// LIDs routed through it so far (OpenSM's minhop; on a fat tree up/down
// routing's paths are the minimal ones, so updn routes the same).
//
// ftree, as OpenSM's fat-tree engine routes a destination: from its leaf
// up, each level's least loaded up-link is where the destination's
// traffic comes down (one top switch per destination, down-links
// balanced over the destinations in LID order); every other switch then
// sends towards that path, again by the least loaded port. On a
// two-tier fabric every up-port of a leaf gets the same number of
// destinations, give or take one.
func (s *sim) ibBuildLFT() {
	ib := s.ib
	// OpenSM's ftree keeps two counters per port: the destinations routed
	// down through it (the top-down paths it builds first) and those
	// routed through it otherwise; minhop and updn count the latter.
	count := make([]int32, len(s.ports))
	down := make([]int32, len(s.ports))
	onPath := make([]bool, len(s.nodes))
	ib.lft = make([][]int32, len(ib.lids))
	for lid, d := range ib.lids {
		row := make([]int32, len(s.nodes))
		for i := range row {
			row[i] = -1
		}
		table := s.routeTo(d)
		clear(onPath)
		if leaf := s.ports[s.peerOf[d]].node; ib.ftree && s.nodes[leaf].kind == Switch {
			if c := s.localHop(leaf, d); len(c) > 0 {
				row[leaf], onPath[leaf] = c[0], true
				for cur := leaf; ; {
					best := int32(-1)
					for _, up := range s.nodes[cur].ports {
						q := s.ports[up].peer
						t := s.ports[q].node
						if s.nodes[t].kind != Switch || ib.level[t] <= ib.level[cur] || onPath[t] || !slices.Contains(s.nextHops(table, t, d), q) {
							continue
						}
						if best < 0 || down[q] < down[best] {
							best = q
						}
					}
					if best < 0 {
						break
					}
					t := s.ports[best].node
					row[t], onPath[t] = best, true
					down[best]++
					cur = t
				}
			}
		}
		for n := range s.nodes {
			if s.nodes[n].kind != Switch || row[n] >= 0 {
				continue
			}
			best, bestOn := int32(-1), false
			for _, o := range s.nextHops(table, int32(n), d) {
				on := onPath[s.ports[s.ports[o].peer].node]
				if best < 0 || on && !bestOn || on == bestOn && count[o] < count[best] {
					best, bestOn = o, on
				}
			}
			if best >= 0 {
				row[n] = best
				count[best]++
			}
		}
		ib.lft[lid] = row
	}
}

// levels is each node's hop distance from the nearest host.
func (s *sim) levels() []int32 {
	lv := make([]int32, len(s.nodes))
	var frontier []int32
	for n := range s.nodes {
		lv[n] = -1
		if s.nodes[n].kind == Host {
			lv[n] = 0
			frontier = append(frontier, int32(n))
		}
	}
	for len(frontier) > 0 {
		var next []int32
		for _, n := range frontier {
			for _, pi := range s.nodes[n].ports {
				if m := s.ports[s.ports[pi].peer].node; lv[m] < 0 {
					lv[m] = lv[n] + 1
					next = append(next, m)
				}
			}
		}
		frontier = next
	}
	return lv
}

// ibTracePath follows the LFTs from NIC src to NIC dst: the nodes from
// src's host on and each switch's egress port; ok is whether it arrives.
func (s *sim) ibTracePath(src, dst int32) (path, route []string, ok bool) {
	if s.ib.lft == nil {
		s.ibBuildLFT()
	}
	row := s.ib.lft[s.ib.lidOf[dst]]
	path = []string{s.nodes[s.ports[src].node].name}
	cur := s.ports[src].peer
	for range len(s.nodes) {
		if cur == dst {
			return append(path, s.nodes[s.ports[dst].node].name), route, true
		}
		n := s.ports[cur].node
		path = append(path, s.nodes[n].name)
		if s.nodes[n].kind != Switch || row[n] < 0 {
			return path, route, false
		}
		route = append(route, s.ports[row[n]].ref.String())
		cur = s.ports[row[n]].peer
	}
	return path, route, false
}

// minWire is the smallest frame a port sends, whose serialization bounds
// the parallel engine's lookahead: a flow-control packet on InfiniBand.
func (s *sim) minWire() int64 {
	if s.ib != nil {
		return IBFlowControlWireBytes
	}
	return minWireBytes
}

// --- switches ---

// ibSwitchReceive takes packet k into switch port in's buffer on its VL
// and queues it at the egress port the LFT (or adaptive routing) picks.
func (s *sim) ibSwitchReceive(in, k int32) {
	pk := &s.pkts[k]
	ip := &s.ports[in]
	vl := pk.prio
	need := ibCredits(pk.wire)
	ibi := &s.ib.ports[in]
	ibi.rcvBytes += int64(pk.wire)
	ibi.rcvPkts++
	if ibi.used[vl] += need; ibi.used[vl] > ibi.buf {
		ibi.overruns++ // the credits allowed it: an internal error (ibCheck)
	}
	pk.inPort = in
	if pk.hops++; pk.hops > maxHops {
		// A packet caught in a loop while views disagree after a fault.
		ip.c[vl].drops++
		ip.c[vl].loopDrops++
		ibi.relayError++
		s.ibFree(in, vl, need)
		s.release(k)
		return
	}
	out := s.ibRoute(ip.node, pk)
	if out < 0 {
		ip.c[vl].drops++
		ip.c[vl].routeDrops++
		ibi.relayError++
		s.ibFree(in, vl, need)
		s.release(k)
		return
	}
	op := &s.ports[out]
	ibo := &s.ib.ports[out]
	if op.down {
		// Routed to a dead link the SM has not routed around yet.
		op.c[vl].drops++
		op.c[vl].linkDrops++
		ibo.xmitDiscards++
		s.ibFree(in, vl, need)
		s.release(k)
		return
	}
	// FECN: the egress VL queue is over the threshold and the port is
	// the root of the congestion (it has credits, so it is slow because
	// of its own load, not a victim of the next hop's), per marking rate.
	if s.ib.cc && pk.kind == pktData && !pk.ce && ibo.credits[vl] >= need &&
		op.lane[vl].q.bytes*16 > s.ib.thrNum*int64(ibo.buf)*IBCreditBytes {
		if ibo.markLeft[vl] == 0 {
			pk.ce = true
			ibo.marked++
			op.c[vl].marked++
			ibo.markLeft[vl] = s.ib.marking
		} else {
			ibo.markLeft[vl]--
		}
	}
	queueSample(op, vl, vl)
	s.enqueue(op, vl, k)
	if op.lane[vl].q.bytes > op.c[vl].maxQueue {
		op.c[vl].maxQueue = op.lane[vl].q.bytes
	}
	s.kick(out)
}

// ibRoute is switch n's egress port for packet pk: its LFT's, or with
// adaptive routing the least queued minimal port on the packet's VL.
func (s *sim) ibRoute(n int32, pk *packet) int32 {
	if s.ib.lft == nil {
		s.ibBuildLFT()
	}
	lid := s.ib.lidOf[pk.dst]
	if lid < 0 {
		return -1
	}
	out := s.ib.lft[lid][n]
	if !s.ib.adaptive || pk.kind != pktData || out < 0 {
		return out
	}
	table := s.routes[pk.dst]
	if table == nil {
		table = s.routeTo(pk.dst)
	}
	best, bestQ := out, s.ports[out].lane[pk.prio].q.bytes
	for _, c := range s.nextHops(table, n, pk.dst) {
		if q := s.ports[c].lane[pk.prio].q.bytes; q < bestQ && !s.ports[c].down {
			best, bestQ = c, q
		}
	}
	return best
}

// ibSwitchSend starts the next packet of switch port pi: VL arbitration
// round robin over the VLs whose head packet has credits.
func (s *sim) ibSwitchSend(pi int32) {
	p := &s.ports[pi]
	if p.held == 0 {
		return
	}
	ibp := &s.ib.ports[pi]
	for j := range uint8(8) {
		vl := (ibp.rr + j) & 7
		if p.held&(1<<vl) == 0 {
			continue
		}
		k := p.lane[vl].q.head
		need := ibCredits(s.pkts[k].wire)
		if ibp.credits[vl] < need {
			continue
		}
		ibp.rr = (vl + 1) & 7
		s.dequeue(p, vl)
		ibp.credits[vl] -= need
		s.ibFree(s.pkts[k].inPort, vl, need)
		s.ibXmit(pi, k)
		return
	}
	if ibp.waitSince < 0 {
		ibp.waitSince = s.now
	}
}

// ibFree releases need credits of VL vl from receiving port rx's buffer
// and returns them to the transmitter at the link's other end.
func (s *sim) ibFree(rx int32, vl uint8, need int32) {
	s.ib.ports[rx].used[vl] -= need
	s.ibReturn(rx, vl, need)
}

// ibReturn sends need credits of VL vl from receiving port rx to its
// peer in a flow-control packet: it leaves after the frame rx is
// sending, if any, and arrives a propagation delay later. A dead link
// carries none: link-up reinitializes the credits (ibLinkChange).
func (s *sim) ibReturn(rx int32, vl uint8, need int32) {
	p := &s.ports[rx]
	if p.down {
		return
	}
	t := max(s.now, p.busyUntil) + p.serPs(IBFlowControlWireBytes) + p.propPs
	s.push(t, evCredit, p.peer, int32(vl)|int32(s.ib.ports[rx].epoch<<4), uint32(need))
}

// ibCredit adds credits (from the peer's flow-control packet) to port
// pi's VL and lets it send.
func (s *sim) ibCredit(pi, b int32, n uint32) {
	ibp := &s.ib.ports[pi]
	if uint32(b)>>4 != (ibp.epoch<<4)>>4 || s.ports[pi].down {
		return // sent before the link last changed state
	}
	ibp.credits[b&15] += int32(n)
	if p := &s.ports[pi]; p.host || p.held != 0 {
		s.kick(pi)
	}
}

// ibXmit puts packet k on port pi's link, ending a wait for credits.
func (s *sim) ibXmit(pi, k int32) {
	if ibp := &s.ib.ports[pi]; ibp.waitSince >= 0 {
		ibp.waitPs += s.now - ibp.waitSince
		ibp.waitSince = -1
	}
	s.transmit(pi, k)
}

// ibLinkChange reinitializes the flow control of the link between ports
// a and b when it goes down or up (IBA vol. 1 ch. 7: link training restarts the
// credit exchange): each transmitter gets the peer's free buffer.
func (s *sim) ibLinkChange(a, b int32, up bool) {
	for _, pi := range [2]int32{a, b} {
		ibp := &s.ib.ports[pi]
		ibp.epoch++
		if ibp.waitSince >= 0 {
			ibp.waitPs += s.now - ibp.waitSince
			ibp.waitSince = -1
		}
		if up {
			peer := &s.ib.ports[s.ports[pi].peer]
			for vl := range s.ib.vls {
				ibp.credits[vl] = peer.buf - peer.used[vl]
			}
		}
	}
}

// ibFlushed frees the credits of packet k, flushed from switch port pi's
// queue when its link went down.
func (s *sim) ibFlushed(pi, k int32) {
	pk := &s.pkts[k]
	s.ib.ports[pi].xmitDiscards++
	s.ibFree(pk.inPort, pk.prio, ibCredits(pk.wire))
}

// --- HCAs ---

// ibNicSend starts the next packet of HCA port pi: its ACKs, NAKs and
// BECNs first, then its QPs round robin, each only with credits for the
// whole packet on its VL and, with congestion control, once its
// inter-packet delay has passed.
func (s *sim) ibNicSend(pi int32) {
	p := &s.ports[pi]
	ibp := &s.ib.ports[pi]
	blocked := false
	for m := p.held; m != 0; {
		vl := uint8(7 - bits.LeadingZeros8(m))
		m &^= 1 << vl
		k := p.lane[vl].q.head
		if need := ibCredits(s.pkts[k].wire); ibp.credits[vl] >= need {
			s.dequeue(p, vl)
			ibp.credits[vl] -= need
			s.ibXmit(pi, k)
			return
		}
		blocked = true
	}
	if p.capFree > s.now {
		if p.liveFlows() > 0 && (p.wakeAt <= s.now || p.capFree < p.wakeAt) {
			p.wakeAt = p.capFree
			s.push(p.capFree, evNicWake, pi, 0, 0)
		}
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
		if f.nextAvail > s.now {
			wake = min(wake, f.nextAvail)
			continue
		}
		if ibp.credits[f.prio] < ibCredits(int32(s.payload(f, f.sndNxt)+IBWireOverheadBytes)) {
			blocked = true
			continue
		}
		p.served(idx, nf)
		s.ibSendData(pi, fi)
		return
	}
	if blocked && ibp.waitSince < 0 {
		ibp.waitSince = s.now
	}
	s.nicIdle(pi, p, wake)
}

// ibSendData sends flow fi's next packet from HCA port pi.
func (s *sim) ibSendData(pi, fi int32) {
	f := &s.flows[fi]
	k, pk := s.dataPacket(fi, f.sndNxt, IBWireOverheadBytes)
	f.advance()
	wire := int64(pk.wire)
	f.lastSend, f.lastWire = s.now, wire
	p := &s.ports[pi]
	f.nextAvail = s.now + p.serPs(wire) + s.ibDelay(fi, pi)
	p.feedCap(s.now, int64(pk.payload))
	s.ib.ports[pi].credits[pk.prio] -= ibCredits(pk.wire)
	s.ibXmit(pi, k)
}

// ibDelay is flow fi's inter-packet delay at HCA port pi: its CCT entry
// in credit times (0 without congestion control).
func (s *sim) ibDelay(fi, pi int32) int64 {
	if !s.ib.cc {
		return 0
	}
	return s.ib.cct[s.ib.flows[fi].ccti] * s.ib.ports[pi].creditPs
}

// ibSendCtrl queues an ACK, NAK or BECN (a CNP) of flow fi at HCA port
// pi, on the flow's VL.
func (s *sim) ibSendCtrl(pi, fi int32, kind uint8, psn int64) {
	f := &s.flows[fi]
	wire := int32(IBAckWireBytes)
	if kind == pktCNP {
		wire = IBCNPWireBytes
	}
	k, pk := s.ctrlPacket(fi, kind, psn, f.dscp, wire)
	pk.sent = s.now
	pk.prio = f.prio
	s.queueCtrl(pi, k)
}

// ibSeen, a packet flag (packet.uflags, whose low bits are UET's): an
// HCA took the packet off the wire (ibArrive) and hands it to its QP now.
const ibSeen uint8 = 1 << 7

// ibArrive takes packet k at HCA port pi off the wire: its credits go
// back at once (the HCA frees its buffer on receipt), and the packet
// reaches the QP after the HCA's receive pipeline (ibDeliver).
func (s *sim) ibArrive(pi, k int32) {
	pk := &s.pkts[k]
	ibp := &s.ib.ports[pi]
	ibp.rcvBytes += int64(pk.wire)
	ibp.rcvPkts++
	s.ibReturn(pi, pk.prio, ibCredits(pk.wire))
	pk.uflags |= ibSeen
	s.push(s.now+s.ib.nicDelay, evIBDeliver, pi, k, 0)
}

// ibDeliver hands packet k to HCA port pi's QPs; a data packet marked
// FECN is answered by a BECN to its source.
func (s *sim) ibDeliver(pi, k int32) {
	pk := &s.pkts[k]
	if pk.ce && pk.kind == pktData && pk.dst == pi {
		s.ib.ports[pi].rcvFECN++
		s.flows[pk.flow].cnpsSent++
		s.ibSendCtrl(pi, pk.flow, pktCNP, pk.psn)
	}
	s.hostReceive(pi, k)
}

// ibBECN applies a BECN at flow fi's source: CCTI += CCTI_Increase up to
// CCTI_Limit, the CCTI timer started, the next packet re-timed.
func (s *sim) ibBECN(fi int32) {
	f := &s.flows[fi]
	s.ib.ports[f.src].rcvBECN++
	if !s.ib.cc || f.sendDone {
		return
	}
	c := &s.ib.flows[fi]
	c.ccti = min(c.ccti+s.ib.inc, s.ib.limit)
	if !c.timerOn {
		c.timerOn = true
		c.gen++
		s.push(s.now+s.ib.timer, evCCTimer, fi, 0, c.gen)
	}
	s.ibRepace(fi)
}

// ibCCTimer is an expiry of flow fi's CCTI timer: CCTI down by one, to
// CCTI_Min; the timer runs while CCTI is above it.
func (s *sim) ibCCTimer(fi int32, gen uint32) {
	c := &s.ib.flows[fi]
	if gen != c.gen || !c.timerOn {
		return
	}
	if c.ccti > s.ib.min {
		c.ccti--
		s.ibRepace(fi)
	}
	if c.ccti > s.ib.min {
		s.push(s.now+s.ib.timer, evCCTimer, fi, 0, gen)
	} else {
		c.timerOn = false
	}
}

// ibRepace re-times flow fi's next packet after its CCTI changed.
func (s *sim) ibRepace(fi int32) {
	f := &s.flows[fi]
	if f.lastWire == 0 {
		return
	}
	p := &s.ports[f.src]
	f.nextAvail = f.lastSend + p.serPs(f.lastWire) + s.ibDelay(fi, f.src)
	if f.nextAvail <= s.now || f.nextAvail < p.wakeAt {
		s.kick(f.src)
	}
}

// ibRateMbps is flow fi's sending rate under its CCT delay, for full
// packets.
func (s *sim) ibRateMbps(fi int32, line float64) float64 {
	if !s.ib.cc {
		return line
	}
	w := float64(s.mtu + IBWireOverheadBytes)
	return line * w / (w + float64(s.ib.cct[s.ib.flows[fi].ccti]*IBCreditBytes))
}

// ibCheck reports a buffer overrun, which credits rule out: an internal
// error of the engine.
func (s *sim) ibCheck() error {
	for i := range s.ib.ports {
		if n := s.ib.ports[i].overruns; n > 0 {
			return errorf("internal error: %d packets overran the InfiniBand receive buffer of %s, which credit-based flow control rules out", n, s.ports[i].ref)
		}
	}
	return nil
}

// IBPortStats are one port's InfiniBand counters, named as perfquery
// prints them: PortCounters (PortXmitData and PortRcvData in 4-octet
// words, LRH to VCRC), PortRcvConCtrl (PortPktRcvFECN, PortPktRcvBECN)
// and SwPortVLCongestion summed over the VLs (the packets the port
// marked with FECN). PortXmitWait is in ticks of one 64-byte credit's
// transmission time at the port's rate (the IBA leaves the tick to the
// implementation): the time the port had a packet to send but no
// credits for it.
type IBPortStats struct {
	Node                     string `json:"node"`
	Port                     string `json:"port"`
	PortXmitData             int64  `json:"PortXmitData"`
	PortRcvData              int64  `json:"PortRcvData"`
	PortXmitPkts             int64  `json:"PortXmitPkts"`
	PortRcvPkts              int64  `json:"PortRcvPkts"`
	PortXmitWait             int64  `json:"PortXmitWait"`
	PortXmitDiscards         int64  `json:"PortXmitDiscards"`
	PortRcvSwitchRelayErrors int64  `json:"PortRcvSwitchRelayErrors"`
	PortPktRcvFECN           int64  `json:"PortPktRcvFECN"`
	PortPktRcvBECN           int64  `json:"PortPktRcvBECN"`
	SWPortVLCongestion       int64  `json:"SWPortVLCongestion"`
}

// ibPortStats lists the ports that sent or received anything.
func (s *sim) ibPortStats() []IBPortStats {
	var out []IBPortStats
	for i := range s.ports {
		p := &s.ports[i]
		b := &s.ib.ports[i]
		st := IBPortStats{Node: p.ref.Node, Port: p.ref.Port,
			PortRcvData: b.rcvBytes / 4, PortRcvPkts: b.rcvPkts, PortXmitDiscards: b.xmitDiscards,
			PortRcvSwitchRelayErrors: b.relayError, PortPktRcvFECN: b.rcvFECN, PortPktRcvBECN: b.rcvBECN, SWPortVLCongestion: b.marked}
		var tx int64
		for vl := range p.c {
			tx += p.c[vl].txBytes
			st.PortXmitPkts += p.c[vl].txPkts
		}
		st.PortXmitData = tx / 4
		wait := b.waitPs
		if b.waitSince >= 0 {
			wait += s.end - b.waitSince
		}
		st.PortXmitWait = wait / b.creditPs
		if st.PortXmitPkts == 0 && st.PortRcvPkts == 0 && st.PortXmitDiscards == 0 {
			continue
		}
		out = append(out, st)
	}
	slices.SortStableFunc(out, func(a, b IBPortStats) int {
		if c := strings.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return strings.Compare(a.Port, b.Port)
	})
	return out
}

// IBLIDsPerPort is how many destination LIDs the subnet manager's
// routes of cfg (an InfiniBand config) send through each switch port
// facing another switch: the balance of its routing engine, before any
// traffic runs.
func IBLIDsPerPort(cfg Config) (map[PortRef]int, error) {
	cfg.Transport = TransportInfiniBand
	s, err := newSim(&cfg)
	if err != nil {
		return nil, err
	}
	out := map[PortRef]int{}
	for _, row := range s.ib.lft {
		for _, o := range row {
			if o >= 0 && !s.ports[s.ports[o].peer].host {
				out[s.ports[o].ref]++
			}
		}
	}
	return out, nil
}

// ibDispatch runs InfiniBand's events. They reach it through dispatch's
// default case: three more cases there slowed RoCE's events by a tenth.
func (s *sim) ibDispatch(e event) {
	switch e.kind {
	case evCredit:
		s.ibCredit(e.a, e.b, e.gen)
	case evIBDeliver:
		s.ibDeliver(e.a, e.b)
	case evCCTimer:
		s.ibCCTimer(e.a, e.gen)
	}
}

// WireOverheadFor is the bytes a transport's data packet adds to its
// payload on the wire: IBWireOverheadBytes on InfiniBand, RoCE v2's
// WireOverheadBytes otherwise. Closed forms of a variant's goodput (a
// lab's ideal, NCCL's bound) take it for the transport the variant runs.
func WireOverheadFor(transport string) int {
	if transport == TransportInfiniBand {
		return IBWireOverheadBytes
	}
	return WireOverheadBytes
}
