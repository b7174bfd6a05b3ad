package results

// IBPortCounters are one port's InfiniBand counters in a record, with how
// they were obtained. Only an InfiniBand variant has them
// (Variant.InfiniBand).
type IBPortCounters struct {
	IBCounters
	Source Source `json:"source"`
}

// IBCounters are a port's counters, named as perfquery prints them:
// PortCounters (PortXmitData and PortRcvData in 4-octet words),
// PortRcvConCtrl (PortPktRcvFECN, PortPktRcvBECN) and SWPortVLCongestion
// summed over the data VLs (the packets a switch port marked with FECN).
// PortXmitWait counts ticks of one 64-byte credit's transmission time at
// the port's rate during which the port had a packet to send and no
// credits for it. The fields are the simulator's sim.IBPortStats, field
// for field: the sim runtime converts one into the other, so the compiler
// keeps the two lists equal.
type IBCounters struct {
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
