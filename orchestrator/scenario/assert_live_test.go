package scenario

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// On a live run, congestion fields come from the simulated twin (virtual
// switches neither pause nor mark); throughput stays measured.
func TestLiveVariantReadsCongestionFromSimulatedTwin(t *testing.T) {
	v := &results.Variant{
		Name:      "ecn=on,pfc=on",
		Summary:   results.Summary{ThroughputGbpsTotal: 9.5, Drops: 7, PFCPauseFrames: 0, Source: results.Measured},
		Simulated: &results.SimulatedPart{Summary: results.Summary{ThroughputGbpsTotal: 196, Drops: 0, PFCPauseFrames: 42, Source: results.Simulated}},
	}
	run := &results.Run{Variants: []results.Variant{*v}}
	get := func(path ...string) float64 {
		t.Helper()
		val, err := lookupVariant(run, v, path)
		if err != nil {
			t.Fatal(err)
		}
		return val.Num
	}
	if got := get("summary", "drops"); got != 0 {
		t.Errorf("summary.drops = %v, want the simulated 0", got)
	}
	if got := get("summary", "pfc_pause_frames"); got != 42 {
		t.Errorf("summary.pfc_pause_frames = %v, want the simulated 42", got)
	}
	if got := get("summary", "throughput_gbps_total"); got != 9.5 {
		t.Errorf("summary.throughput_gbps_total = %v, want the measured 9.5", got)
	}
	if got := get("simulated", "summary", "throughput_gbps_total"); got != 196 {
		t.Errorf("simulated.summary.throughput_gbps_total = %v, want 196", got)
	}
	// A sim run has no twin: summary is its own, simulated.* is an error.
	v.Simulated = nil
	if got := get("summary", "drops"); got != 7 {
		t.Errorf("without a twin summary.drops = %v, want 7", got)
	}
	if _, err := lookupVariant(run, v, []string{"simulated", "summary", "drops"}); err == nil {
		t.Error("simulated.summary on a sim run should be an error")
	}
	if err := checkIdent(Ident{Path: []string{"simulated", "summary", "drops"}}, &Spec{}); err != nil {
		t.Errorf("checkIdent: %v", err)
	}
}
