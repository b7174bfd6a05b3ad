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

// CableNsPerMeter is the propagation delay of copper and fibre, ~5 ns/m.
const CableNsPerMeter = 5

// PFCFrameOverheadBytes is the 84 B term of the formula: one PFC frame
// (64 B) plus preamble and inter-frame gap (20 B) already on the wire.
const PFCFrameOverheadBytes = 84

// HeadroomBytes is the per-port, per-priority PFC headroom: the bytes that
// can still arrive after the switch decides to send XOFF.
//
//	headroom = 2*MTU + 84 B + C*(2*t_cable + t_response)/8
//
// with C the link rate in bit/s, t_cable = 5 ns/m * cable length (the
// XOFF travelling up and the last data travelling down: 2*t_cable), and
// t_response = responseBits / C (0 means ResponseBits(speed), the IEEE
// bound). The 2*MTU covers a frame the sender has just started when XOFF
// arrives and a frame the switch itself is transmitting when it decides.
// The result is rounded up to whole bytes.
func HeadroomBytes(speedGbps, mtu, cableM, responseBits int) int64 {
	if responseBits <= 0 {
		responseBits = ResponseBits(speedGbps)
	}
	// C * 2*t_cable in bits = Gb/s * 1e9 * 2 * cableM * 5e-9
	//                       = speedGbps * cableM * 10 bits.
	cableBits := int64(speedGbps) * int64(cableM) * 2 * CableNsPerMeter
	bits := cableBits + int64(responseBits)
	return 2*int64(mtu) + PFCFrameOverheadBytes + (bits+7)/8
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
