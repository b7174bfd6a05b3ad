package results

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/transport"
)

// TransportLines are a variant's transport lines as reports and the run
// summary print them: for an InfiniBand or UET variant, what it ran (the
// settings that shape the figures) and its transport's own figures, each
// named by what counted it. None for RoCE, whose figures are the
// summary's own.
func TransportLines(v Variant) []string {
	st := v.Transport
	if st == nil {
		return nil
	}
	src := "simulated"
	if v.Summary.Source != "" {
		src = string(v.Summary.Source)
	}
	switch {
	case st.InfiniBand != nil:
		ib := st.InfiniBand
		cc := "off"
		if ib.CC.Runs(v.ECN) {
			cc = "on"
		}
		line := fmt.Sprintf("transport infiniband (subnet manager routing %s, adaptive routing %s, %d VLs, IB congestion control %s)",
			ib.Routing, onOffWord(ib.AdaptiveRouting), ib.VLs, cc)
		if len(v.InfiniBand) == 0 {
			return []string{line}
		}
		var c IBPortCounters
		for _, p := range v.InfiniBand {
			c.PortXmitWait += p.PortXmitWait
			c.SWPortVLCongestion += p.SWPortVLCongestion
			c.PortPktRcvBECN += p.PortPktRcvBECN
			c.PortXmitDiscards += p.PortXmitDiscards
		}
		return []string{line + fmt.Sprintf(": PortXmitWait %s ticks summed over ports (a tick is one 64-byte credit's time at the port's rate), %s packets marked FECN by switches (SWPortVLCongestion), %s BECNs received (PortPktRcvBECN), %s PortXmitDiscards; the summary's ECN marks and CNPs count these FECN marks and BECNs (%s)",
			si(float64(c.PortXmitWait)), si(float64(c.SWPortVLCongestion)), si(float64(c.PortPktRcvBECN)), si(float64(c.PortXmitDiscards)), src)}
	case st.UET != nil:
		u := st.UET
		line := fmt.Sprintf("transport uet (load balancing %s over %d entropies, congestion control %s, RCCC %s, trimming %s)",
			u.LB, u.EVs, u.CC, onOffWord(u.RCCC), onOffWord(u.Trimming))
		us := v.Summary.UET
		if us == nil {
			return []string{line}
		}
		parts := []string{
			fmt.Sprintf("%s packets trimmed by switches", si(float64(us.Trimmed))),
			fmt.Sprintf("%s NACKs", si(float64(us.NACKs))),
			fmt.Sprintf("retransmitted %s on NACK, %s on SACK gaps, %s on timeout", si(float64(us.NACKRetransmits)), si(float64(us.SACKRetransmits)), si(float64(us.RTORetransmits))),
			fmt.Sprintf("%s entropies per flow on average", fmtFloat(us.MeanEntropies)),
		}
		if us.MeanPaths != nil {
			parts = append(parts, fmt.Sprintf("%s paths per flow", fmtFloat(*us.MeanPaths)))
		}
		if us.Pulls != nil {
			parts = append(parts, fmt.Sprintf("%s credit grants (RCCC pulls)", si(float64(*us.Pulls))))
		}
		return []string{line + ": " + strings.Join(parts, ", ") + " (" + src + ")"}
	}
	return []string{"transport " + st.Name}
}

// TransportLacks are the summary fields a transport has no such thing
// for, with why: InfiniBand has no PFC (its links' credits hold packets
// back, counted as infiniband.PortXmitWait), UET's NSCC sends no CNPs (the
// receiver returns ECN marks in its ACKs). A variant of that transport
// lists them as not computed (Summary.NotComputed): a zero there would
// read as a figure, as "no pause" or "no CNP", which an assertion could
// pass on and regress compare with RoCE's.
func TransportLacks(name string) map[string]string {
	switch name {
	case transport.InfiniBand:
		why := "not computed: InfiniBand has no PFC (its links' credit-based flow control holds packets back instead, counted as infiniband.PortXmitWait)"
		return map[string]string{"pfc_pause_frames": why, "pfc_pause_us": why}
	case transport.UET:
		return map[string]string{"cnp": "not computed: UET sends no CNPs (its NSCC reads the ECN marks its receivers return in their ACKs)"}
	}
	return nil
}

// MarkTransportLacks lists the fields the variant's transport has no such
// thing for (TransportLacks) as not computed, in a fixed order.
func (v *Variant) MarkTransportLacks(name string) {
	v.Summary.MarkNotComputed(slices.Sorted(maps.Keys(TransportLacks(name)))...)
}
