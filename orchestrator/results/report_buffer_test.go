package results

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// The Switch QoS section names each switch's buffer pools: two runs of one
// lab on SONiC and on EOS stand on different buffers (the pools SONiC's
// config gives, or the platform labctl assumes for EOS), which moves the
// lossy classes' figures (mixed-classes' best effort: 34.3 Gb/s on SONiC,
// 67.3 on EOS), and the class table alone does not say so.
func TestReportsShowBufferPools(t *testing.T) {
	run := syntheticRun("20261207T120000Z-mixed-classes-64gpu", t0)
	dev := func(name string, ingress int64, headroom *int64) qos.Settings {
		dc := qos.DeviceConfig{Device: name, Pools: []qos.PoolConfig{
			{Name: qos.IngressLosslessPool, Type: "ingress", Mode: "dynamic", SizeBytes: ingress, HeadroomPoolBytes: headroom},
			{Name: qos.EgressLossyPool, Type: "egress", Mode: "dynamic", SizeBytes: 24709632},
		}}
		return qos.Summarize(&dc)
	}
	// The switches with the same pools are named by their ranges
	// (qos.DeviceRanges), not one by one (48 names on 1024gpu).
	run.QoS = []qos.Settings{dev("leaf1", 20627456, nil), dev("leaf2", 20627456, nil), dev("leaf10", 20627456, nil), dev("leaf3", 20627456, nil), dev("spine1", 32712448, qos.Ptr(int64(1622016)))}
	run.Classes = []qos.ClassRow{{Device: "leaf1", Ports: "Ethernet0-188", TC: 0, DSCPs: "0-25", XOFF: "alpha 8", Queue: 0, PausedQueue: 0, Scheduler: "dwrr 20"}}
	for name, out := range renderedReports(t, run) {
		for _, want := range []string{
			"Buffer pools of leaf1-3, leaf10: egress_lossy_pool 24709632 B (egress, dynamic); ingress_lossless_pool 20627456 B (ingress, dynamic).",
			"Buffer pools of spine1: egress_lossy_pool 24709632 B (egress, dynamic); ingress_lossless_pool 32712448 B (ingress, dynamic, shared headroom 1622016 B).",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}
