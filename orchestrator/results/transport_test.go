package results

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/transport"
)

// A RoCE variant has no transport line; InfiniBand's and UET's say what
// ran and sum their own counters, named by what counted them.
func TestTransportLines(t *testing.T) {
	if l := TransportLines(Variant{}); l != nil {
		t.Errorf("RoCE: %v", l)
	}
	ib, err := transport.ResolveIB(&transport.IBSpec{})
	if err != nil {
		t.Fatal(err)
	}
	v := Variant{ECN: true, Transport: &transport.Settings{Name: transport.InfiniBand, InfiniBand: &ib},
		InfiniBand: []IBPortCounters{{PortXmitWait: 1000, SWPortVLCongestion: 3}, {PortXmitWait: 500, PortPktRcvBECN: 3}}}
	l := strings.Join(TransportLines(v), "\n")
	for _, want := range []string{"transport infiniband (subnet manager routing ftree", "IB congestion control off", "PortXmitWait 1.5k ticks", "3 packets marked FECN", "3 BECNs received"} {
		if !strings.Contains(l, want) {
			t.Errorf("IB line lacks %q: %s", want, l)
		}
	}
	u, err := transport.ResolveUET(&transport.UETSpec{})
	if err != nil {
		t.Fatal(err)
	}
	pulls := int64(9)
	v = Variant{Transport: &transport.Settings{Name: transport.UET, UET: &u},
		Summary: Summary{Source: Simulated, UET: &UETSummary{Trimmed: 318, NACKs: 318, NACKRetransmits: 318, MeanEntropies: 22.5, Pulls: &pulls}}}
	l = strings.Join(TransportLines(v), "\n")
	for _, want := range []string{"transport uet (load balancing reps over 64 entropies, congestion control nscc", "318 packets trimmed", "retransmitted 318 on NACK, 0 on SACK gaps, 0 on timeout", "22.5 entropies", "9 credit grants", "(simulated)"} {
		if !strings.Contains(l, want) {
			t.Errorf("UET line lacks %q: %s", want, l)
		}
	}
}
