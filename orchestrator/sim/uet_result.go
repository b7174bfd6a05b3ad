package sim

import (
	"math/bits"
	"strings"
)

// What a UET run reports beside the engine's usual counters.

// UETStats are a UET run's transport counters (Result.UET).
type UETStats struct {
	// Trimmed counts the packets switches trimmed, NACKs the NACKs the
	// senders received.
	Trimmed int64 `json:"trimmed"`
	NACKs   int64 `json:"nacks"`
	// Retransmissions sent, by what queued them: NACKed (trimmed)
	// packets, SACK gaps past the reorder tolerance, timeouts. They add up
	// to Totals.Retransmits; a packet queued for retransmission that an
	// ACK retired before it was resent is in none.
	NACKRetransmits int64 `json:"nack_retransmits"`
	SACKRetransmits int64 `json:"sack_retransmits"`
	RTORetransmits  int64 `json:"rto_retransmits"`
	// MeanEntropies is the mean over flows of the distinct EVs their data
	// packets used, MeanPaths of the distinct switch paths those took
	// (absent beyond uetPathFlows flows).
	MeanEntropies float64  `json:"mean_entropies"`
	MeanPaths     *float64 `json:"mean_paths,omitempty"`
	// Pulls counts the receivers' credit grants (RCCC; absent without).
	Pulls *int64 `json:"pulls,omitempty"`
}

// FlowUET is one flow's UET counters (FlowStats.UET); its retransmissions
// by cause add up to FlowStats.Retransmits.
type FlowUET struct {
	NACKRetransmits int64 `json:"nack_retransmits"`
	SACKRetransmits int64 `json:"sack_retransmits"`
	RTORetransmits  int64 `json:"rto_retransmits"`
	Entropies       int   `json:"entropies"`
	// CwndBytes is the window at the end (or when the flow finished),
	// BaseRTTNs the least round trip it measured.
	CwndBytes int64   `json:"cwnd_bytes"`
	BaseRTTNs float64 `json:"base_rtt_ns"`
}

// uetPathFlows bounds the flows whose distinct paths the result traces.
const uetPathFlows = 4096

// uetResult fills the UET counters of r.
func (s *sim) uetResult(r *Result) {
	u := &UETStats{}
	for i := range s.ports {
		for pr := range s.ports[i].c {
			u.Trimmed += s.ports[i].c[pr].trimmed
		}
	}
	var evs, paths float64
	nf := 0
	tracePaths := len(s.flows) <= uetPathFlows
	for i := range s.flows {
		f := &s.flows[i]
		u.NACKs += f.naksRecv
		t := f.utx
		if t == nil {
			continue
		}
		u.NACKRetransmits += t.nackRtx
		u.SACKRetransmits += t.sackRtx
		u.RTORetransmits += t.rtoRtx
		nf++
		n := 0
		for _, w := range t.evsUsed {
			n += bits.OnesCount64(w)
		}
		evs += float64(n)
		if tracePaths {
			seen := map[string]bool{}
			for w, word := range t.evsUsed {
				for word != 0 {
					b := bits.TrailingZeros64(word)
					word &= word - 1
					_, route, _ := s.tracePath(f.src, f.dst, s.evHash(f, uint16(w*64+b)))
					seen[strings.Join(route, ",")] = true
				}
			}
			paths += float64(len(seen))
		}
	}
	if s.u.rccc {
		var n int64
		for i := range s.u.pacers {
			n += s.u.pacers[i].pulls
		}
		u.Pulls = &n
	}
	if nf > 0 {
		u.MeanEntropies = round3(evs / float64(nf))
		if tracePaths {
			m := round3(paths / float64(nf))
			u.MeanPaths = &m
		}
	}
	r.UET = u
}

// uetFlowStats is one flow's UET counters, nil for a flow that never sent.
func (s *sim) uetFlowStats(f *flowState) *FlowUET {
	t := f.utx
	if t == nil {
		return nil
	}
	n := 0
	for _, w := range t.evsUsed {
		n += bits.OnesCount64(w)
	}
	return &FlowUET{NACKRetransmits: t.nackRtx, SACKRetransmits: t.sackRtx, RTORetransmits: t.rtoRtx, Entropies: n,
		CwndBytes: int64(t.cwnd), BaseRTTNs: round3(t.baseRTT / 1000)}
}

// uetRateGbps is a UET flow's sending rate for the time series: its
// window over its base round trip, at most its NIC's line rate.
func (s *sim) uetRateGbps(f *flowState) float64 {
	t := f.utx
	line := s.ports[f.src].lineMbps / 1000
	if t == nil || t.baseRTT <= 0 {
		return line
	}
	return min(line, t.cwnd*8/t.baseRTT*1000)
}
