package scenario

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// A flow-level variant's record names a ring AllReduce's time and ratio
// estimated_us and estimated_over_theoretical (the packet engine's,
// simulated_); a scenario's assertion on simulated_over_theoretical (the
// catalog's allreduce has one) still checks it, and its detail names what
// the record holds. A record written before keeps being read by the old
// name, and the flow-level name on a packet-level variant says what to use.
func TestAllReduceRatioNamedByModel(t *testing.T) {
	const head = "name: x\nduration: 2ms\ntraffic: [{pattern: ring-allreduce, bytes: 1MiB}]\nassertions:\n"
	theory := map[string]any{"theoretical_us": 1000.0}
	variant := func(model string, extra map[string]any) *results.Variant {
		extra["model"] = model
		src := results.SimulatorSource(model)
		return &results.Variant{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Extra: map[string]any{"allreduce": extra},
			Summary: results.Summary{Source: src, Model: model}}
	}
	flow := variant(runtime.ModelFlow, map[string]any{"estimated_us": 1010.0})
	completeAllReduce(flow.Extra["allreduce"].(map[string]any), theory)
	ar := flow.Extra["allreduce"].(map[string]any)
	if ar["estimated_over_theoretical"] != 1.01 || ar["simulated_over_theoretical"] != nil {
		t.Errorf("flow-level extra.allreduce %v: want estimated_over_theoretical 1.01 and no simulated_ name", ar)
	}
	packet := variant(runtime.ModelPacket, map[string]any{"simulated_us": 1020.0})
	completeAllReduce(packet.Extra["allreduce"].(map[string]any), theory)
	if par := packet.Extra["allreduce"].(map[string]any); par["simulated_over_theoretical"] != 1.02 || par["estimated_over_theoretical"] != nil {
		t.Errorf("packet-level extra.allreduce %v", par)
	}
	old := variant(runtime.ModelFlow, map[string]any{"simulated_us": 1030.0, "simulated_over_theoretical": 1.03})
	old.Summary.Source = results.Simulated

	check := func(expr string, v *results.Variant) results.Assertion {
		t.Helper()
		s := mustParse(t, head+"  - expr: "+expr+"\n")
		out := s.Check(&results.Run{Variants: []results.Variant{*v}}, v)
		if len(out) != 1 {
			t.Fatalf("%s: %+v", expr, out)
		}
		return out[0]
	}
	for _, c := range []struct {
		expr   string
		v      *results.Variant
		passed bool
		detail string
	}{
		{"extra.allreduce.simulated_over_theoretical < 1.05", flow, true, "extra.allreduce.estimated_over_theoretical=1.01"},
		{"extra.allreduce.estimated_over_theoretical < 1.05", flow, true, "extra.allreduce.estimated_over_theoretical=1.01"},
		{"extra.allreduce.simulated_us > 1000", flow, true, "extra.allreduce.estimated_us=1010"},
		{"extra.allreduce.simulated_over_theoretical < 1.05", packet, true, "extra.allreduce.simulated_over_theoretical=1.02"},
		{"extra.allreduce.simulated_over_theoretical < 1.05", old, true, "extra.allreduce.simulated_over_theoretical=1.03"},
		{"extra.allreduce.estimated_over_theoretical < 1.05", packet, false, "is the flow-level model's estimate, and variant ecn=on,pfc=on's figures are simulated: use extra.allreduce.simulated_over_theoretical"},
	} {
		a := check(c.expr, c.v)
		if a.Passed != c.passed || !strings.Contains(a.Detail, c.detail) {
			t.Errorf("%s on %s: passed %v, detail %q; want %v with %q", c.expr, c.v.Model(), a.Passed, a.Detail, c.passed, c.detail)
		}
	}
}
