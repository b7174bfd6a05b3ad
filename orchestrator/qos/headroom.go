package qos

// pauseReactionQuanta is the longest an interface of each speed may take
// to stop sending after a PAUSE/PFC frame reaches it, in pause quanta of
// 512 bit times: IEEE 802.3 Annex 31B (Table 31B-1) as SONiC's headroom
// calculator encodes it (sonic-swss cfgmgr/buffer_headroom_mellanox.lua).
// Speeds above 400G use the 400G value (not published for 1.6T).
var pauseReactionQuanta = map[int]int{10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905}

// ResponseBits is t_response of the headroom formula for a port speed, in
// bit times: the speed's IEEE 802.3 PAUSE reaction bound (394 quanta =
// 201728 bit times at 100G, 905 at 400G). A switch sized for less loses
// packets whenever the upstream and the switch's own pipeline are slow to
// react; labctl sizes for the bound, as switch vendors do.
func ResponseBits(speedGbps int) int {
	q, ok := pauseReactionQuanta[speedGbps]
	if !ok {
		q = pauseReactionQuanta[100]
		for s, v := range pauseReactionQuanta {
			if s <= speedGbps && v > q {
				q = v
			}
		}
	}
	return q * 512
}

// PauseResponseBits is how long a port of the lab at speedGbps takes to
// obey a PAUSE/PFC frame that has reached it, in bit times: the intent's
// Buffer.ResponseBits where it gives one (the lab's
// qos.pause_response_quanta), none where it says the ports obey at once
// (ResponseInstant), else the speed's IEEE bound (ResponseBits). Lint
// sizes headroom for it, the rendered profiles hold it and the simulator
// makes ports take it: one figure for all three, so that a config the
// linter passes does not drop in a run for want of it, and one that
// would drop on such ports drops in a run too.
func PauseResponseBits(in *Intent, speedGbps int) int {
	switch {
	case in != nil && in.Buffer.ResponseBits == ResponseInstant:
		return 0
	case in != nil && in.Buffer.ResponseBits > 0:
		return in.Buffer.ResponseBits
	}
	return ResponseBits(speedGbps)
}

// ResponseInstant as Buffer.ResponseBits says the ports obey a PAUSE the
// moment it arrives (pause_response_quanta 0), as HPCC's ns-3 and htsim
// model them: for comparisons with those simulators.
const ResponseInstant = -1

// SwitchPipelineNs is the longest a switch's ingress pipeline holds a
// packet before its buffer accounting sees it: what is inside the pipeline
// when the switch decides XOFF is admitted after the decision, so the
// headroom holds this much of the link's rate too. labctl's simulator
// draws each packet's pipeline latency below it (sim.DefaultSwitchJitterNs,
// held equal by a test).
const SwitchPipelineNs = 100

// RoCEWireOverheadBytes is what a RoCEv2 data frame adds to its payload on
// the wire: Ethernet header 14 + FCS 4 + preamble 8 + IFG 12 + IPv4 20 +
// UDP 8 + BTH 12 + ICRC 4. The simulator charges a switch's buffer by
// these wire bytes (sim.WireOverheadBytes, held equal by a test), so the
// headroom formula's frames are the payload MTU plus this.
const RoCEWireOverheadBytes = 82

// CableNsPerMeter is the propagation delay of copper and fibre, ~5 ns/m.
const CableNsPerMeter = 5

// PFCFrameOverheadBytes is the 84 B term of the formula: one PFC frame
// (64 B) plus preamble and inter-frame gap (20 B) already on the wire.
const PFCFrameOverheadBytes = 84

// HeadroomBytes is the per-port, per-priority PFC headroom: the bytes that
// can still arrive after the switch decides to send XOFF.
//
//	headroom = 2*frame + 84 B + C*(2*t_cable + t_pipeline + t_response)/8
//
// with frame the largest frame of the lossless class on the wire (the
// payload mtu plus RoCEWireOverheadBytes), C the link rate in bit/s,
// t_cable = 5 ns/m * cable length (the XOFF travelling up and the last
// data travelling down: 2*t_cable), t_pipeline = SwitchPipelineNs (what
// the switch's ingress pipeline holds when it decides) and t_response =
// responseBits / C (PauseResponseBits; 0: the ports obey at once). The
// 2*frame covers a frame the sender has just started when XOFF arrives
// and a frame the switch itself is transmitting when it decides. The
// result is rounded up to whole bytes.
func HeadroomBytes(speedGbps, mtu, cableM, responseBits int) int64 {
	// C * t in bits = Gb/s * ns: 2*t_cable = 2 * cableM * 5 ns.
	cableBits := int64(speedGbps) * int64(cableM) * 2 * CableNsPerMeter
	bits := cableBits + int64(speedGbps)*SwitchPipelineNs + int64(max(responseBits, 0))
	return 2*int64(mtu+RoCEWireOverheadBytes) + PFCFrameOverheadBytes + (bits+7)/8
}

// XoffTriggerBytes is the ingress occupancy of one congested priority group
// at which a dynamic-threshold switch sends XOFF, with alpha = 2^dynamicTh:
// the PG may use alpha*(pool - used), so alone it stops at
// alpha/(1+alpha) * pool. Lint compares ECN Kmax with it: marking should
// start before pausing.
func XoffTriggerBytes(poolBytes int64, dynamicTh int) int64 {
	if poolBytes <= 0 {
		return 0
	}
	// alpha = 2^th; alpha/(1+alpha) = 1/(1+2^-th).
	if dynamicTh >= 0 {
		a := int64(1) << min(dynamicTh, 30)
		return poolBytes * a / (1 + a)
	}
	d := int64(1) << min(-dynamicTh, 30)
	return poolBytes / (d + 1)
}
