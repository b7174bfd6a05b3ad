package results

import (
	"strings"
	"testing"
)

// Each absent figure says why it is absent, by what made the summary and
// which figure it is, never a bare "not computed".
func TestNotComputedReason(t *testing.T) {
	packet := Summary{Source: Simulated, Model: ModelPacket}
	packet.MarkNotComputed("jain_fairness", "latency_us_p99")
	latency := Summary{Source: Simulated, Model: ModelPacket}
	latency.MarkNotComputed("throughput_gbps_total", "throughput_gbps_min_flow", "jain_fairness")
	live := Summary{Source: Measured, Model: ModelLive}
	live.MarkNotComputed("pfc_pause_us")
	flow := Summary{Source: Simulated, Model: ModelFlow}
	flow.MarkNotComputed("drops")
	for _, c := range []struct {
		s     Summary
		field string
		want  string
	}{
		{packet, "jain_fairness", "no flow delivered anything in the measurement window"},
		{packet, "latency_us_p99", "no packet was delivered in the measurement window"},
		{latency, "jain_fairness", "latency ping-pongs, and ib_write_lat measures no bandwidth"},
		{latency, "throughput_gbps_min_flow", "latency ping-pongs"},
		{live, "pfc_pause_us", "not measured on a live lab"},
		{flow, "drops", "not computed by the flow-level model"},
	} {
		if got := c.s.NotComputedReason(c.field); !strings.Contains(got, c.want) {
			t.Errorf("%s of a %s/%s summary: %q, want %q", c.field, c.s.Source, c.s.Model, got, c.want)
		}
	}
}
