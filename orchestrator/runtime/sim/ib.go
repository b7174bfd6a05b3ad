package sim

import (
	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/transport"
)

// infiniband turns the engine's config into an InfiniBand fabric's: the
// subnet manager's settings and the links' credits from st, and none of
// what an IB fabric does not have. Its switches take no vendor QoS
// config (no PFC, ECN or buffer pools: credits are the flow control),
// its HCAs run IB congestion control instead of DCQCN, and a PFC storm
// cannot happen.
func (b *builder) infiniband(st transport.IBSettings, cfg *engine.Config) error {
	if len(cfg.Storms) > 0 {
		return exitcode.Usagef("faults: a pfc_storm cannot happen on an InfiniBand fabric, which has no PFC; fix: drop the fault from this variant or run it with transport roce")
	}
	// The variant's ecn dimension is the transport's congestion signal:
	// with ecn=off IB congestion control stays off whatever the section
	// says, as RoCE's DCQCN does without ECN marks (config() set
	// DCQCNEnabled from it).
	ccAllowed := cfg.DCQCNEnabled
	cfg.QoS, cfg.DefaultQoS, cfg.Maps, cfg.PriorityToPG = nil, nil, nil, nil
	cfg.ExplicitQoS = false
	// No DCQCN and no CNPs: their settings stay out of the simulation's
	// input, so variants that differ only in them build the same one.
	cfg.DCQCNEnabled = false
	cfg.DCQCN, cfg.CNPPerPort, cfg.CNPDSCP = engine.DCQCNParams{}, false, nil
	for i := range cfg.Topology.Nodes {
		cfg.Topology.Nodes[i].Pools, cfg.Topology.Nodes[i].BufferBytes = nil, 0
	}
	cc := st.CC
	cct := make([]int, len(cc.CCT))
	for i, e := range cc.CCT {
		cct[i] = e.IPD()
	}
	cfg.IB = &engine.IBParams{
		Routing:         st.Routing,
		AdaptiveRouting: st.AdaptiveRouting,
		VLs:             st.VLs,
		SL2VL:           st.SL2VL,
		VLBufferBytes:   int64(st.VLBufferKB) * 1024,
		CC: engine.IBCC{
			Enabled:      cc.Runs(ccAllowed),
			Threshold:    cc.Threshold,
			MarkingRate:  cc.MarkingRate,
			CCTIIncrease: cc.CCTIIncrease,
			CCTILimit:    cc.CCTILimit,
			CCTITimerNs:  int64(cc.CCTITimer) * 1024,
			CCTIMin:      cc.CCTIMin,
			CCT:          cct,
		},
	}
	if cc.CCTILimit == 0 {
		// A limit of 0 pins the index at 0: no delay ever. The engine
		// reads 0 as "the table's last index", so pass the table's first
		// entry alone.
		cfg.IB.CC.CCT = cct[:1]
	}
	for i := range cfg.Faults {
		// No switch routes on its own: the subnet manager reprograms
		// every LFT in the sweep a port's state change triggers (OpenSM
		// sweep_on_trap, TRUE by default). A fault without its own
		// convergence delay takes its detection delay for trap and sweep,
		// the same for every switch.
		if f := &cfg.Faults[i]; f.ConvergeNs == 0 {
			f.ConvergeNs = f.DetectNs
			if f.ConvergeNs == 0 {
				f.ConvergeNs = engine.DefaultDetectNs
			}
		}
	}
	if st.AdaptiveRouting {
		// The HCAs place packets out of order, which adaptive routing
		// needs (ConnectX-5 and later).
		cfg.OutOfOrder = true
	}
	return nil
}

// ibCounters records an InfiniBand run's perfquery counters per port.
func ibCounters(res *engine.Result, v *results.Variant) {
	for _, p := range res.InfiniBand {
		v.InfiniBand = append(v.InfiniBand, results.IBPortCounters{IBCounters: results.IBCounters(p), Source: results.Simulated})
	}
}
