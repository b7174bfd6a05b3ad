package transport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/specdoc"
)

// IBSpec is the infiniband section of a lab spec or a scenario. Nil
// fields keep what lies underneath: the default, or the lab's when a
// scenario overrides a lab.
type IBSpec struct {
	// Routing is the subnet manager's routing engine (OpenSM's
	// routing_engine): ftree, updn or minhop.
	Routing *string `yaml:"routing,omitempty" json:"routing,omitempty"`
	// AdaptiveRouting lets switches pick, per packet, the least queued of
	// the minimal ports towards the destination (NVIDIA's adaptive
	// routing); receiving HCAs then place packets out of order.
	AdaptiveRouting *bool `yaml:"adaptive_routing,omitempty" json:"adaptive_routing,omitempty"`
	// VLs is the number of data virtual lanes every port runs (PortInfo
	// OperVLs): 1, 2, 4 or 8.
	VLs *int `yaml:"vls,omitempty" json:"vls,omitempty"`
	// SL2VL maps service levels 0-15 to data VLs (the SLtoVLMappingTable
	// the SM writes into every port): 16 entries, each below vls.
	SL2VL []int `yaml:"sl2vl,omitempty" json:"sl2vl,omitempty"`
	// VLBufferKB is each receiving port's buffer per data VL, in KiB,
	// which the link's credits count in 64-byte blocks; 0 derives it from
	// the link's rate (IBVLBufferKB).
	VLBufferKB *int `yaml:"vl_buffer_kb,omitempty" json:"vl_buffer_kb,omitempty"`
	// CC is IB congestion control (IBA vol. 1 Annex A10).
	CC *IBCCSpec `yaml:"cc,omitempty" json:"cc,omitempty"`
}

// IBCCSpec is the cc subsection: the switches' congestion setting and the
// HCAs' congestion setting and table, in OpenSM's names (opensm.conf
// cc_sw_cong_setting_*, cc_ca_cong_setting_*, cc_cct).
type IBCCSpec struct {
	Enabled      *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	Threshold    *int  `yaml:"threshold,omitempty" json:"threshold,omitempty"`
	MarkingRate  *int  `yaml:"marking_rate,omitempty" json:"marking_rate,omitempty"`
	CCTIIncrease *int  `yaml:"ccti_increase,omitempty" json:"ccti_increase,omitempty"`
	CCTILimit    *int  `yaml:"ccti_limit,omitempty" json:"ccti_limit,omitempty"`
	CCTITimer    *int  `yaml:"ccti_timer,omitempty" json:"ccti_timer,omitempty"`
	CCTIMin      *int  `yaml:"ccti_min,omitempty" json:"ccti_min,omitempty"`
	// CCT is the congestion control table, OpenSM's cc_cct format:
	// "shift:multiplier" entries, index 0 first.
	CCT []string `yaml:"cct,omitempty" json:"cct,omitempty"`
}

// IBSettings are the resolved InfiniBand settings.
type IBSettings struct {
	Routing         string `json:"routing"`
	AdaptiveRouting bool   `json:"adaptive_routing"`
	VLs             int    `json:"vls"`
	SL2VL           []int  `json:"sl2vl"`
	// VLBufferKB 0 means derived from each link's rate (IBVLBufferKB).
	VLBufferKB int          `json:"vl_buffer_kb"`
	CC         IBCCSettings `json:"cc"`
}

// IBCCSettings are the resolved congestion control settings. CCTILimit
// is the last CCT index a source may reach.
type IBCCSettings struct {
	Enabled      bool       `json:"enabled"`
	Threshold    int        `json:"threshold"`
	MarkingRate  int        `json:"marking_rate"`
	CCTIIncrease int        `json:"ccti_increase"`
	CCTILimit    int        `json:"ccti_limit"`
	CCTITimer    int        `json:"ccti_timer"`
	CCTIMin      int        `json:"ccti_min"`
	CCT          []CCTEntry `json:"cct"`
}

// Runs says whether IB congestion control runs in a variant whose ecn
// dimension is ecn: it must be enabled, mark at all (threshold 0 marks
// nothing) and have the transport's congestion signal on (ecn=off turns it
// off, as RoCE's DCQCN has no marks to react to then).
func (c IBCCSettings) Runs(ecn bool) bool { return c.Enabled && c.Threshold > 0 && ecn }

// CCTEntry is one congestion control table entry: an inter-packet delay
// of Multiplier x 2^Shift (IBA A10: CCT_Shift 2 bits, CCT_Multiplier 14
// bits).
type CCTEntry struct {
	Shift      int `json:"shift"`
	Multiplier int `json:"multiplier"`
}

// IPD is the entry's inter-packet delay value.
func (e CCTEntry) IPD() int { return e.Multiplier << e.Shift }

func (e CCTEntry) String() string { return strconv.Itoa(e.Shift) + ":" + strconv.Itoa(e.Multiplier) }

// Routing engines (OpenSM routing_engine names).
const (
	IBRoutingFtree  = "ftree"
	IBRoutingUpdn   = "updn"
	IBRoutingMinhop = "minhop"
)

// Defaults. OpenSM ships congestion control off with every CC value 0
// (osm_subnet.c osm_subn_set_default_opt: congestion_control FALSE, the
// CC options zeroed), which marks nothing; the CC defaults below are what
// labctl runs when cc.enabled is set without values, chosen on the
// congestion-tree case of docs/fidelity.md and named as such there.
const (
	// DefaultIBRouting: ftree, OpenSM's engine for fat trees, which every
	// labctl fabric is.
	DefaultIBRouting = IBRoutingFtree
	// DefaultIBVLs: ConnectX HCAs report max_vl_num 4 (VL0-VL3) in
	// `ibv_devinfo -v`; OpenSM's max_op_vls 5 (VL0-14) asks for more and
	// each link runs the smaller of its ends' VLCap.
	DefaultIBVLs = 4
	// DefaultIBThreshold: the middle of the 0 (none) .. 15 (aggressive)
	// scale OpenSM documents for cc_sw_cong_setting_threshold.
	DefaultIBThreshold = 8
	// DefaultIBMarkingRate leaves 3 eligible packets unmarked between
	// two marks (cc_sw_cong_setting_marking_rate: "mean number of packets
	// between markings"): marking every packet cut the hotspot of the
	// congestion-tree case to 86% of line rate, every 4th keeps it at
	// 96% with the victim at 99%, and an 8:1 incast at 200G converges
	// within 2 ms (every 11th: 98% and 98%, but not converged after 4 ms).
	DefaultIBMarkingRate = 3
	// DefaultIBCCTIIncrease: one CCT index per BECN, the step OpenSM's
	// sample congestion configurations use.
	DefaultIBCCTIIncrease = 1
	// DefaultIBCCTITimer is in 1.024 µs units (IBA A10 CCTI_Timer): one
	// index down every 20.5 µs, a few credit round trips of a fat tree.
	DefaultIBCCTITimer = 20
	DefaultIBCCTIMin   = 0
	// DefaultIBCCTLen entries, entry i an inter-packet delay of 8i
	// (shift 0): 4 KiB packets slow to about 6% of line rate at the last.
	DefaultIBCCTLen = 128
)

// OpenSMDefaultSL2VL is OpenSM's default SL-to-VL table
// (osm_base.h OSM_DEFAULT_QOS_SL2VL "0,1,2,...,14,7"); ResolveIB folds it
// onto the data VLs a port runs (VL mod vls).
var OpenSMDefaultSL2VL = [16]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7}

// DefaultCCT is labctl's default congestion control table.
func DefaultCCT() []CCTEntry {
	cct := make([]CCTEntry, DefaultIBCCTLen)
	for i := range cct {
		cct[i] = CCTEntry{Multiplier: 8 * i}
	}
	return cct
}

// IBVLBufferKB derives a VL buffer for a link of rateGbps and an MTU of
// mtu bytes when vl_buffer_kb is 0: enough credits to keep one VL at line
// rate over a 100 m cable (the reach of multimode optics), i.e. the
// credit round trip (2 x 100 m at 5 ns/m, one packet's serialization)
// times the rate, plus two packets (one arriving, one leaving), rounded
// up to a KiB.
func IBVLBufferKB(rateGbps float64, mtu int) int {
	pkt := float64(mtu + 26)
	rtt := 2*100*5.0 + pkt*8/rateGbps // ns
	bytes := rtt*rateGbps/8 + 2*pkt
	return int((bytes + 1023) / 1024)
}

// ResolveIB applies specs in order (a lab's, then a scenario's) to the
// defaults. An error is a *FieldError whose Field omits the section
// ("routing", not "infiniband.routing").
func ResolveIB(specs ...*IBSpec) (IBSettings, error) {
	st := IBSettings{
		Routing: DefaultIBRouting, VLs: DefaultIBVLs,
		CC: IBCCSettings{Threshold: DefaultIBThreshold, MarkingRate: DefaultIBMarkingRate, CCTIIncrease: DefaultIBCCTIIncrease,
			CCTILimit: -1, CCTITimer: DefaultIBCCTITimer, CCTIMin: DefaultIBCCTIMin},
	}
	var sl2vl []int
	var cct []string
	for _, s := range specs {
		if s == nil {
			continue
		}
		set(&st.Routing, s.Routing)
		set(&st.AdaptiveRouting, s.AdaptiveRouting)
		set(&st.VLs, s.VLs)
		set(&st.VLBufferKB, s.VLBufferKB)
		if s.SL2VL != nil {
			sl2vl = s.SL2VL
		}
		if c := s.CC; c != nil {
			// Left out, the limit is the table's last index (kept as -1
			// until the table is known); a negative written out is no
			// index at all.
			if c.CCTILimit != nil && *c.CCTILimit < 0 {
				return st, &FieldError{Field: "cc.ccti_limit", Msg: fmt.Sprintf("%d is not a CCT index", *c.CCTILimit), Fix: "use an index from 0 to the CCT's last, or leave ccti_limit out for the last"}
			}
			set(&st.CC.Enabled, c.Enabled)
			set(&st.CC.Threshold, c.Threshold)
			set(&st.CC.MarkingRate, c.MarkingRate)
			set(&st.CC.CCTIIncrease, c.CCTIIncrease)
			set(&st.CC.CCTILimit, c.CCTILimit)
			set(&st.CC.CCTITimer, c.CCTITimer)
			set(&st.CC.CCTIMin, c.CCTIMin)
			if c.CCT != nil {
				cct = c.CCT
			}
		}
	}
	switch st.Routing {
	case IBRoutingFtree, IBRoutingUpdn, IBRoutingMinhop:
	default:
		return st, &FieldError{Field: "routing", Msg: fmt.Sprintf("unknown routing engine %q", st.Routing), Fix: "use ftree (the default), updn or minhop"}
	}
	switch st.VLs {
	case 1, 2, 4, 8:
	default:
		return st, &FieldError{Field: "vls", Msg: fmt.Sprintf("%d data VLs", st.VLs), Fix: "use 1, 2, 4 or 8 (PortInfo OperVLs; ConnectX HCAs run 4)"}
	}
	if sl2vl == nil {
		st.SL2VL = make([]int, 16)
		for sl, vl := range OpenSMDefaultSL2VL {
			st.SL2VL[sl] = vl % st.VLs
		}
	} else {
		if len(sl2vl) != 16 {
			return st, &FieldError{Field: "sl2vl", Msg: fmt.Sprintf("%d entries", len(sl2vl)), Fix: "give 16 VLs, one per SL 0-15"}
		}
		for sl, vl := range sl2vl {
			if vl < 0 || vl >= st.VLs {
				return st, &FieldError{Field: "sl2vl", Msg: fmt.Sprintf("SL %d maps to VL %d, not a data VL of %d", sl, vl, st.VLs), Fix: fmt.Sprintf("use VLs 0..%d, or raise vls", st.VLs-1)}
			}
		}
		st.SL2VL = append([]int(nil), sl2vl...)
	}
	if st.VLBufferKB < 0 || st.VLBufferKB > 16384 || st.VLBufferKB > 0 && st.VLBufferKB < 5 {
		return st, &FieldError{Field: "vl_buffer_kb", Msg: fmt.Sprintf("%d KiB", st.VLBufferKB), Fix: "use 0 (derived from the link's rate) or 5..16384 KiB per VL (a VL must hold one 4 KiB packet with its headers)"}
	}
	if cct == nil {
		st.CC.CCT = DefaultCCT()
	} else {
		if len(cct) == 0 || len(cct) > 16384 {
			return st, &FieldError{Field: "cc.cct", Msg: fmt.Sprintf("%d entries", len(cct)), Fix: "give 1..16384 shift:multiplier entries"}
		}
		for i, e := range cct {
			ent, err := parseCCTEntry(e)
			if err != nil {
				return st, &FieldError{Field: "cc.cct", Msg: fmt.Sprintf("entry %d %q: %v", i, e, err), Fix: "write shift:multiplier, shift 0..3 and multiplier 0..16383 (e.g. 0:8)"}
			}
			st.CC.CCT = append(st.CC.CCT, ent)
		}
	}
	if st.CC.CCTILimit < 0 {
		// OpenSM sets CCTI_Limit to the table's last index
		// (osm_congestion_control.c: ccti_limit = entries_len - 1).
		st.CC.CCTILimit = len(st.CC.CCT) - 1
	}
	c := st.CC
	switch {
	case c.Threshold < 0 || c.Threshold > 15:
		return st, &FieldError{Field: "cc.threshold", Msg: fmt.Sprintf("%d is out of range", c.Threshold), Fix: "use 0 (never mark) .. 15 (most aggressive)"}
	case c.MarkingRate < 0 || c.MarkingRate > 65535:
		return st, &FieldError{Field: "cc.marking_rate", Msg: fmt.Sprintf("%d is out of range", c.MarkingRate), Fix: "use 0 (mark every eligible packet) .. 65535 packets between marks"}
	case c.CCTIIncrease < 1 || c.CCTIIncrease > 255:
		return st, &FieldError{Field: "cc.ccti_increase", Msg: fmt.Sprintf("%d is out of range", c.CCTIIncrease), Fix: "use 1..255 CCT indices per BECN"}
	case c.CCTILimit >= len(c.CCT):
		return st, &FieldError{Field: "cc.ccti_limit", Msg: fmt.Sprintf("%d is beyond the CCT's last index %d", c.CCTILimit, len(c.CCT)-1), Fix: "lower ccti_limit or give a longer cc.cct"}
	case c.CCTITimer < 1 || c.CCTITimer > 65535:
		return st, &FieldError{Field: "cc.ccti_timer", Msg: fmt.Sprintf("%d is out of range", c.CCTITimer), Fix: "use 1..65535 (units of 1.024 µs)"}
	case c.CCTIMin < 0 || c.CCTIMin > c.CCTILimit:
		return st, &FieldError{Field: "cc.ccti_min", Msg: fmt.Sprintf("%d is outside 0..ccti_limit (%d)", c.CCTIMin, c.CCTILimit), Fix: "use a CCT index from 0 to ccti_limit"}
	}
	return st, nil
}

func parseCCTEntry(s string) (CCTEntry, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return CCTEntry{}, fmt.Errorf("no colon")
	}
	shift, err1 := strconv.Atoi(a)
	mult, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || shift < 0 || shift > 3 || mult < 0 || mult > 16383 {
		return CCTEntry{}, fmt.Errorf("shift or multiplier out of range")
	}
	return CCTEntry{Shift: shift, Multiplier: mult}, nil
}

// IBKeyDocs documents the infiniband section (lab specs and scenarios).
var IBKeyDocs = specdoc.Table{
	"": {Doc: "InfiniBand's settings, used when transport is infiniband: credit-based flow control, the subnet manager's routing, IB congestion control. A scenario's section overrides the lab's key by key. An IB fabric takes no vendor QoS config: PFC, ECN/DCQCN and the switches' buffer settings do not apply, and the switches neither drop nor pause. After a link fault the subnet manager reroutes every switch at once (OpenSM sweeps on the port's trap, sweep_on_trap): a fault's detection delay stands for trap and sweep, and its convergence delay, unless given, is the same."},
	"routing": {Doc: "The subnet manager's routing engine (OpenSM routing_engine): ftree spreads the destination LIDs over each switch's up-ports in LID order and sends every source's traffic to a destination through the same top switch, as OpenSM's fat-tree engine; updn and minhop give each switch, per destination in LID order, the minimal port with the fewest LIDs routed so far (on a fat tree up/down routing's paths are the minimal ones). Routes are per destination LID, the same for every flow.",
		Default: "ftree"},
	"adaptive_routing": {Doc: "Switches pick, per data packet, the least queued of the minimal ports towards the destination (NVIDIA's adaptive routing); the receiving HCAs place packets out of order.",
		Default: "false"},
	"vls": {Doc: "Data virtual lanes per port (PortInfo OperVLs): 1, 2, 4 or 8. Each VL has its own buffer and credits, so traffic on one VL never blocks another's.",
		Default: "4 (ConnectX HCAs report max_vl_num 4, VL0-VL3)"},
	"sl2vl": {Doc: "SL-to-VL table: 16 VLs, the VL of SL 0 first. A flow's SL is its priority through the hosts' DSCP map.",
		Default: "OpenSM's 0,1,...,14,7 folded onto the data VLs (VL mod vls)"},
	"vl_buffer_kb": {Doc: "Receive buffer of every port (switch ingress and HCA) per data VL, in KiB (5..16384); credits count it in 64-byte blocks, and a link carries one VL at line rate only while the buffer covers the credit round trip (throughput = min(line rate, buffer / credit round trip)). 0 derives it per link: the credit round trip of a 100 m cable at the link's rate plus two packets (61 KiB at 400 Gb/s, MTU 4096).",
		Default: "0 (derived)"},
	"cc": {Doc: "IB congestion control (IBA vol. 1 Annex A10), in OpenSM's names: a switch marks FECN on packets of an egress VL queue over the threshold when the port is the root of the congestion (it has credits), the destination HCA answers each with a BECN, and the source raises its CCT index by ccti_increase per BECN and waits the CCT entry's inter-packet delay between packets."},
	"cc.enabled": {Doc: "Turns IB congestion control on (OpenSM congestion_control). A variant with ecn off runs without it: FECN and BECN are the transport's congestion signal, as ECN marks are RoCE's.",
		Default: "false (OpenSM's default)"},
	"cc.threshold": {Doc: "Switch congestion threshold (cc_sw_cong_setting_threshold): 0 never marks, 1 (loose) .. 15 (aggressive). labctl marks when an egress VL queue holds more than (16 - threshold)/16 of a VL buffer (the IBA leaves the depth to the switch).",
		Default: "8"},
	"cc.marking_rate": {Doc: "Packets left unmarked between two FECN marks of a congested port and VL (cc_sw_cong_setting_marking_rate); 0 marks every eligible packet.",
		Default: "3"},
	"cc.ccti_increase": {Doc: "CCT indices a source adds per BECN (cc_ca_cong_setting_ccti_increase), up to ccti_limit.",
		Default: "1"},
	"cc.ccti_limit": {Doc: "Highest CCT index a source reaches (the CongestionControlTable's CCTI_Limit).",
		Default: "the table's last index (OpenSM: entries - 1)"},
	"cc.ccti_timer": {Doc: "Each expiry lowers a source's CCT index by 1, down to ccti_min (cc_ca_cong_setting_ccti_timer), in units of 1.024 µs.",
		Default: "20 (20.5 µs)"},
	"cc.ccti_min": {Doc: "Lowest CCT index (cc_ca_cong_setting_ccti_min): a floor on the delay between packets.",
		Default: "0"},
	"cc.cct": {Doc: "Congestion control table (OpenSM cc_cct): shift:multiplier entries from index 0, each an inter-packet delay of multiplier x 2^shift in units of one 64-byte credit's transmission time at the HCA port's rate (labctl's unit for the IBA's inter-packet delay).",
		Default: "128 entries, entry i = 0:8i"},
}
