package sim

import "testing"

// DSCP 0 given explicitly is best effort: under a PFC-only config on
// priority 3 an incast at DSCP 0 is lossy, while the default (RoCE, 26)
// is lossless.
func TestExplicitDSCPZeroIsBestEffort(t *testing.T) {
	roce := mustRun(t, incastConfig(4, true, false, false, 500_000))
	if roce.Totals.Drops != 0 {
		t.Fatalf("default DSCP (RoCE) with PFC dropped %d packets", roce.Totals.Drops)
	}
	cfg := incastConfig(4, true, false, false, 500_000)
	for i := range cfg.Flows {
		cfg.Flows[i].DSCP, cfg.Flows[i].ExplicitDSCP = 0, true
	}
	be := mustRun(t, cfg)
	if be.Totals.Drops == 0 || be.Totals.PauseFrames != 0 {
		t.Errorf("DSCP 0: drops %d pauses %d, want drops and no pauses (not the lossless class)", be.Totals.Drops, be.Totals.PauseFrames)
	}
}
