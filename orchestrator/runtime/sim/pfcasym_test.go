package sim

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// TestPFCAsymObeysEveryPriority: a port obeys received PFC frames for its
// PFC priorities only, unless it runs asymmetric PFC (qos PFCAsym), which
// obeys them for every priority; what it sends is its PFC priorities'
// either way.
func TestPFCAsymObeysEveryPriority(t *testing.T) {
	dc := qos.DeviceConfig{Device: "leaf1", Ports: []qos.PortConfig{{
		Name: "Ethernet0", Fabric: true, PFCPriorities: []int{3},
		DSCPToTC: map[int]int{26: 3}, TCToQueue: map[int]int{}, TCToPG: map[int]int{}, PFCToQueue: map[int]int{},
	}}}
	for _, asym := range []bool{false, true} {
		dc.Ports[0].PFCAsym = asym
		m, _ := portQoS(&dc, &dc.Ports[0])
		if m[3].IgnoresPause {
			t.Errorf("asym %v: the PFC priority 3 ignores pauses", asym)
		}
		if got := m[0].IgnoresPause; got == asym {
			t.Errorf("asym %v: lossy priority 0 ignores pauses: %v, want %v", asym, got, !asym)
		}
	}
}
