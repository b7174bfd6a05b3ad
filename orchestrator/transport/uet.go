package transport

import (
	"fmt"
	"math"

	"github.com/labctl/labctl/orchestrator/specdoc"
)

// UETSpec is the uet section of a lab spec or a scenario. Nil fields keep
// what lies underneath: the default, or the lab's when a scenario
// overrides a lab. The names are the UEC 1.0 specification's where it
// names the setting, else those of the UEC's reference model, uet-htsim
// (htsim/sim/uec.cpp, htsim/sim/datacenter/main_uec.cpp).
type UETSpec struct {
	// LB is the packet delivery's load balancing: reps (recycled
	// entropies, the default), oblivious (every entropy once a round)
	// or ecmp (one entropy per flow, for comparison).
	LB *string `yaml:"lb,omitempty" json:"lb,omitempty"`
	// EVs is how many entropy values a flow's packets draw from.
	EVs *int `yaml:"evs,omitempty" json:"evs,omitempty"`
	// Trimming lets switches cut a packet they would drop to its header
	// and forward that on a high-priority class.
	Trimming *bool `yaml:"trimming,omitempty" json:"trimming,omitempty"`
	// TrimBytes is the size of a trimmed packet.
	TrimBytes *int `yaml:"trim_bytes,omitempty" json:"trim_bytes,omitempty"`
	// CC is the sender's congestion control: nscc or none (a constant
	// window of max_cwnd_bdp).
	CC *string `yaml:"cc,omitempty" json:"cc,omitempty"`
	// RCCC turns on receiver credit control beside NSCC.
	RCCC *bool `yaml:"rccc,omitempty" json:"rccc,omitempty"`
	// NSCC's parameters (uet-htsim's names).
	TargetQDelayUs *float64 `yaml:"target_qdelay_us,omitempty" json:"target_qdelay_us,omitempty"`
	BaseRTTUs      *float64 `yaml:"base_rtt_us,omitempty" json:"base_rtt_us,omitempty"`
	QAGate         *int     `yaml:"qa_gate,omitempty" json:"qa_gate,omitempty"`
	Gamma          *float64 `yaml:"gamma,omitempty" json:"gamma,omitempty"`
	DelayAlpha     *float64 `yaml:"delay_alpha,omitempty" json:"delay_alpha,omitempty"`
	MaxCwndBDP     *float64 `yaml:"max_cwnd_bdp,omitempty" json:"max_cwnd_bdp,omitempty"`
	// Loss recovery: the retransmission timeout, the receiver's ACK
	// coalescing and the SACK reorder tolerance.
	RTOUs           *float64 `yaml:"rto_us,omitempty" json:"rto_us,omitempty"`
	AckBytes        *int     `yaml:"ack_bytes,omitempty" json:"ack_bytes,omitempty"`
	AckTimerUs      *float64 `yaml:"ack_timer_us,omitempty" json:"ack_timer_us,omitempty"`
	SACKReorderPkts *int     `yaml:"sack_reorder_pkts,omitempty" json:"sack_reorder_pkts,omitempty"`
}

// UETSettings are the resolved UET settings, recorded with a run.
type UETSettings struct {
	LB        string `json:"lb"`
	EVs       int    `json:"evs"`
	Trimming  bool   `json:"trimming"`
	TrimBytes int    `json:"trim_bytes"`
	CC        string `json:"cc"`
	RCCC      bool   `json:"rccc"`
	// TargetQDelayUs and BaseRTTUs 0 mean derived from the fabric: the
	// network's unloaded round trip, and 0.75 of it as the target with
	// trimming (the round trip itself without).
	TargetQDelayUs float64 `json:"target_qdelay_us"`
	BaseRTTUs      float64 `json:"base_rtt_us"`
	QAGate         int     `json:"qa_gate"`
	Gamma          float64 `json:"gamma"`
	DelayAlpha     float64 `json:"delay_alpha"`
	MaxCwndBDP     float64 `json:"max_cwnd_bdp"`
	RTOUs          float64 `json:"rto_us"`
	AckBytes       int     `json:"ack_bytes"`
	// AckTimerUs 0 means 4 network round trips, negative no timer.
	AckTimerUs      float64 `json:"ack_timer_us"`
	SACKReorderPkts int     `json:"sack_reorder_pkts"`
}

// The load-balancing schemes and congestion controls of UETSettings.
const (
	UETLBReps      = "reps"
	UETLBOblivious = "oblivious"
	UETLBECMP      = "ecmp"
	UETCCNSCC      = "nscc"
	UETCCNone      = "none"
)

// DefaultUET returns the defaults, each from the reference model:
//   - lb reps: recycled entropy packet spraying, the UEC 1.0
//     specification's load balancing for the packet delivery sublayer,
//     as uet-htsim's UecMpReps (uec_mp.cpp, buffer_reps.cpp) implements
//     it (main_uec.cpp's own default is "mixed", a REPS-legacy and bitmap
//     hybrid);
//   - evs 64: main_uec.cpp path_entropy_size;
//   - trimming on, trim_bytes 64: main_uec.cpp trimsize, the size of a
//     header (uecpacket.h ACKSIZE);
//   - cc nscc, rccc off: main_uec.cpp runs sender-based NSCC unless told
//     otherwise;
//   - qa_gate 3, gamma 0.8, delay_alpha 0.0125, max_cwnd_bdp 1.5:
//     UecSrc::initNsccParams and initNscc (uec.cpp);
//   - target_qdelay_us and base_rtt_us from the fabric, as initNsccParams
//     derives them from main_uec.cpp's network RTT;
//   - rto_us 100: uec.h DEFAULT_UEC_RTO_MIN (main_uec.cpp lowers it to
//     15 µs plus a full queue's drain; set that to compare);
//   - ack_bytes 16384: UecSink::_bytes_unacked_threshold (uec.cpp);
//   - ack_timer_us 0 (4 network round trips): labctl's, not uet-htsim's,
//     whose receiver has no timer: when NSCC shrinks a window below the
//     packets it already sent without an ACK request, coalescing holds
//     them all and the sender waits for its RTO (in a 64-rank all-to-all
//     some 200 times a run); the timer ACKs them instead;
//   - sack_reorder_pkts 0: with trimming a whole SACK bitmap (64
//     packets: trimmed packets are NACKed, so a shorter tolerance resends
//     packets spraying merely delayed); without, SLEEK's max(1.5 x cwnd,
//     5 packets) (uec.cpp loss_retx_factor, min_retx_config).
func DefaultUET() UETSettings {
	return UETSettings{
		LB: UETLBReps, EVs: 64, Trimming: true, TrimBytes: 64, CC: UETCCNSCC,
		QAGate: 3, Gamma: 0.8, DelayAlpha: 0.0125, MaxCwndBDP: 1.5,
		RTOUs: 100, AckBytes: 16384,
	}
}

// ResolveUET applies specs in order (a lab's, then a scenario's) to the
// defaults. An error is a *FieldError whose Field omits the section
// ("lb", not "uet.lb").
func ResolveUET(specs ...*UETSpec) (UETSettings, error) {
	st := DefaultUET()
	for _, s := range specs {
		if s == nil {
			continue
		}
		set(&st.LB, s.LB)
		set(&st.EVs, s.EVs)
		set(&st.Trimming, s.Trimming)
		set(&st.TrimBytes, s.TrimBytes)
		set(&st.CC, s.CC)
		set(&st.RCCC, s.RCCC)
		set(&st.TargetQDelayUs, s.TargetQDelayUs)
		set(&st.BaseRTTUs, s.BaseRTTUs)
		set(&st.QAGate, s.QAGate)
		set(&st.Gamma, s.Gamma)
		set(&st.DelayAlpha, s.DelayAlpha)
		set(&st.MaxCwndBDP, s.MaxCwndBDP)
		set(&st.RTOUs, s.RTOUs)
		set(&st.AckBytes, s.AckBytes)
		set(&st.AckTimerUs, s.AckTimerUs)
		set(&st.SACKReorderPkts, s.SACKReorderPkts)
	}
	return st, st.Validate()
}

// Validate checks the settings' ranges; an error is a *FieldError naming
// the field and the fix.
func (st UETSettings) Validate() error {
	bad := func(field string, v any, fix string) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf("%v is out of range", v), Fix: fix}
	}
	num := func(x, lo, hi float64) bool { return math.IsNaN(x) || x < lo || x > hi }
	switch {
	case st.LB != UETLBReps && st.LB != UETLBOblivious && st.LB != UETLBECMP:
		return &FieldError{Field: "lb", Msg: fmt.Sprintf("unknown load balancing %q", st.LB), Fix: "use reps, oblivious or ecmp"}
	case st.EVs < 1 || st.EVs > 65536:
		return bad("evs", st.EVs, "use 1..65536 entropy values (uet-htsim uses 64)")
	case st.TrimBytes < 64 || st.TrimBytes > 1024:
		return bad("trim_bytes", st.TrimBytes, "use 64..1024 bytes (uet-htsim trims to 64)")
	case st.CC != UETCCNSCC && st.CC != UETCCNone:
		return &FieldError{Field: "cc", Msg: fmt.Sprintf("unknown congestion control %q", st.CC), Fix: "use nscc or none"}
	case st.RCCC && st.CC != UETCCNSCC:
		return &FieldError{Field: "rccc", Msg: "receiver credit control runs beside NSCC", Fix: "set cc: nscc, or rccc: false"}
	case num(st.TargetQDelayUs, 0, 1e6):
		return bad("target_qdelay_us", st.TargetQDelayUs, "use 0 (0.75 x the network RTT) or a delay in µs")
	case num(st.BaseRTTUs, 0, 1e6):
		return bad("base_rtt_us", st.BaseRTTUs, "use 0 (the fabric's unloaded round trip) or a time in µs")
	case st.QAGate < 1 || st.QAGate > 16:
		return bad("qa_gate", st.QAGate, "use 1..16 (quick adapt runs when an RTT achieved less than max window / 2^qa_gate; uet-htsim uses 3)")
	case num(st.Gamma, 0, 1) || st.Gamma == 0:
		return bad("gamma", st.Gamma, "use a factor in (0, 1] (uet-htsim uses 0.8)")
	case num(st.DelayAlpha, 0, 1) || st.DelayAlpha == 0:
		return bad("delay_alpha", st.DelayAlpha, "use a weight in (0, 1] (uet-htsim uses 0.0125)")
	case num(st.MaxCwndBDP, 0.1, 100):
		return bad("max_cwnd_bdp", st.MaxCwndBDP, "use 0.1..100 BDPs (uet-htsim uses 1.5)")
	case num(st.RTOUs, 1, 1e6):
		return bad("rto_us", st.RTOUs, "use 1..1000000 µs (uet-htsim's default minimum is 100)")
	case st.AckBytes < 1 || st.AckBytes > 1<<24:
		return bad("ack_bytes", st.AckBytes, "use 1 B..16 MiB (uet-htsim ACKs every 16384 bytes)")
	case math.IsNaN(st.AckTimerUs) || st.AckTimerUs > 1e6 || st.AckTimerUs < 0 && st.AckTimerUs != -1:
		return bad("ack_timer_us", st.AckTimerUs, "use 0 (4 network round trips), a time in µs, or -1 for no timer (uet-htsim has none)")
	case st.SACKReorderPkts < 0 || st.SACKReorderPkts > 1<<20:
		return bad("sack_reorder_pkts", st.SACKReorderPkts, "use 0 (64 packets with trimming, max(1.5 x cwnd, 5) without) or a packet count")
	}
	return nil
}

// UETKeyDocs documents the uet section (lab specs and scenarios).
var UETKeyDocs = specdoc.Table{
	"":                  {Doc: "The Ultra Ethernet transport's settings, used when transport is uet: packet spraying, selective retransmission, packet trimming, NSCC and RCCC. A scenario's section overrides the lab's key by key."},
	"lb":                {Doc: "Load balancing of the packet delivery sublayer: reps (recycled entropy packet spraying: each packet takes an entropy an ACK returned unmarked, else a fresh random one; a timeout freezes the recycled set for 10 ms), oblivious (every entropy once a round, in an order that changes each round, as uet-htsim's UecMpOblivious) or ecmp (one entropy per flow, no spraying). Switches hash the entropy with the flow's addresses, so a fresh entropy is a fresh ECMP path.", Default: "reps (the UEC 1.0 specification's REPS; uet-htsim UecMpReps)"},
	"evs":               {Doc: "How many entropy values (EVs) a flow's packets draw from.", Default: "64 (uet-htsim main_uec.cpp path_entropy_size)"},
	"trimming":          {Doc: "Packet trimming: a switch that would drop a data packet (its queue or buffer full) cuts it to its header and forwards that on a high-priority class (the CNP class); the receiver answers with a NACK and the sender retransmits that packet at once.", Default: "true"},
	"trim_bytes":        {Doc: "Size of a trimmed packet, bytes.", Default: "64 (uet-htsim main_uec.cpp trimsize)"},
	"cc":                {Doc: "Sender congestion control: nscc (network signal-based congestion control: a window per flow driven by queueing delay and ECN marks, with proportional and fair increase, multiplicative decrease and quick adapt) or none (a constant window of max_cwnd_bdp). DCQCN and CNPs do not run with UET.", Default: "nscc"},
	"rccc":              {Doc: "Receiver credit control beside NSCC: each receiver's pacer grants its senders credit round robin, 4 MTUs a grant at 0.99 of its line rate, up to what each asks for (its backlog, at most its window); a sender's first window goes out on speculative credit, the rest only with credit (uet-htsim UecPullPacer, UecSink::pull, UecSrc::computePullTarget). Under an incast the flows then finish together and fewer packets are trimmed.", Default: "false"},
	"target_qdelay_us":  {Doc: "NSCC's target queueing delay, µs: below it the window grows in proportion to the headroom, above it fairly, and ECN-marked ACKs above it cut it. 0: 0.75 x the network's unloaded round trip with trimming, the round trip itself without (uet-htsim initNsccParams).", Default: "0 (derived)"},
	"base_rtt_us":       {Doc: "The network's unloaded round trip NSCC starts from and scales its gains by, µs (each flow then keeps the least it measures). 0: the longest unloaded round trip of the flows' paths (data packet out, ACK back, NIC delays).", Default: "0 (derived)"},
	"qa_gate":           {Doc: "NSCC quick adapt: when a loss or a delay above 4 x the target comes in and the last round trip delivered less than the max window / 2^qa_gate, the window drops to what was delivered.", Default: "3 (uet-htsim initNsccParams)"},
	"gamma":             {Doc: "NSCC's multiplicative decrease: on an ECN-marked ACK with the average delay above target the window is scaled by max(1 - gamma x (avg - target)/avg, 0.5), at most once per base RTT.", Default: "0.8 (uet-htsim initNsccParams)"},
	"delay_alpha":       {Doc: "Weight of a new delay sample in NSCC's average queueing delay.", Default: "0.0125 (uet-htsim initNsccParams)"},
	"max_cwnd_bdp":      {Doc: "A flow's largest window (and its first), in bandwidth-delay products of its NIC rate and base RTT.", Default: "1.5 (uet-htsim initNscc)"},
	"rto_us":            {Doc: "Retransmission timeout, µs: a packet neither acknowledged nor NACKed this long after it was sent is sent again (only that packet: no go-back-N).", Default: "100 (uet-htsim uec.h DEFAULT_UEC_RTO_MIN)"},
	"ack_bytes":         {Doc: "The receiver's ACK coalescing: an ACK (cumulative PSN plus a 64-packet SACK bitmap) per this many bytes received; ECN-marked packets, ACK requests (a sender's last packet or a full window) and duplicates are acknowledged at once.", Default: "16384 (uet-htsim UecSink::_bytes_unacked_threshold)"},
	"ack_timer_us":      {Doc: "How long, µs, a received packet may wait for its ACK when coalescing holds it (labctl's, not uet-htsim's: without it a window NSCC shrank below the packets already sent waits for the RTO). 0: 4 x the network's unloaded round trip; -1: no timer, as in uet-htsim.", Default: "0 (4 network round trips)"},
	"sack_reorder_pkts": {Doc: "Reorder tolerance of SACK-driven retransmission: a hole is retransmitted (once per send) when this many packets past the cumulative PSN have been SACKed. 0: with trimming 64 packets, a whole SACK bitmap (trimmed packets are NACKed, so a hole is rarely a loss); without trimming max(1.5 x the window, 5 packets), SLEEK's threshold in uet-htsim.", Default: "0 (derived)"},
}
