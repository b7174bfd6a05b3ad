package sim

import (
	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/transport"
)

// uet sets the engine's UET settings. The switches keep what their configs
// say (the data class's buffer and ECN, PFC as the variant's pfc
// dimension leaves it); the NICs run UET in place of RoCE, so DCQCN and
// its CNPs do not run. Trimmed headers, ACKs and NACKs take the CNP's
// class, which the configs serve strictly: of the nic.dcqcn settings the
// CNP's DSCP alone stays in the simulation's input.
func (b *builder) uet(st transport.UETSettings, cfg *engine.Config) error {
	cfg.DCQCNEnabled = false
	cfg.DCQCN, cfg.CNPPerPort = engine.DCQCNParams{}, false
	cfg.UET = engine.UETParams{
		LB:              st.LB,
		EVs:             st.EVs,
		NoTrimming:      !st.Trimming,
		TrimBytes:       st.TrimBytes,
		NoCC:            st.CC == transport.UETCCNone,
		RCCC:            st.RCCC,
		TargetQDelayNs:  st.TargetQDelayUs * 1000,
		BaseRTTNs:       st.BaseRTTUs * 1000,
		QAGate:          st.QAGate,
		Gamma:           st.Gamma,
		DelayAlpha:      st.DelayAlpha,
		MaxCwndBDP:      st.MaxCwndBDP,
		RTONs:           st.RTOUs * 1000,
		AckBytes:        st.AckBytes,
		AckTimerNs:      st.AckTimerUs * 1000,
		SACKReorderPkts: st.SACKReorderPkts,
	}
	return nil
}

// uetRecord adds a UET run's figures to its record: the summary's uet
// section and every switch counter's trimmed packets (zeros included:
// the engine counts trims at every switch port). The counters are in the
// order of res.Ports (builder.variant makes one per port row).
func uetRecord(v *results.Variant, res *engine.Result) {
	u := res.UET
	if u == nil {
		return
	}
	us := results.UETSummary(*u) // the same fields: the compiler keeps them equal
	v.Summary.UET = &us
	if len(v.Counters) != len(res.Ports) {
		return
	}
	for i, p := range res.Ports {
		if p.Switch {
			v.Counters[i].Trimmed = ptr(p.Trimmed)
		}
	}
}
