package qos

// DefaultResponseBits is t_response of the headroom formula, in bit times.
//
// IEEE 802.1Qbb bounds the time from a PFC frame arriving to the sender's
// MAC stopping at 3840 bit times for the interface plus a higher-layer
// response; labctl uses 3840 bit times as the whole response budget. It is
// a few hundred bytes at any speed, small next to 2*MTU and the cable
// term, and can be raised per profile (BufferIntent.ResponseBits).
const DefaultResponseBits = 3840

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
// t_response = responseBits / C. The 2*MTU covers a frame the sender has
// just started when XOFF arrives and a frame the switch itself is
// transmitting when it decides. The result is rounded up to whole bytes.
func HeadroomBytes(speedGbps, mtu, cableM, responseBits int) int64 {
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
