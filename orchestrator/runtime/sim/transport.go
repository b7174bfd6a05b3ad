package sim

import (
	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/transport"
)

// transportSettings are the variant's transport; a variant built without
// one (a caller other than the scenario runner) gets the lab's.
func (b *builder) transportSettings(vs runtime.VariantSpec) (transport.Settings, error) {
	if vs.Transport.Name != "" {
		return vs.Transport, nil
	}
	if b.l.Spec == nil {
		return transport.Settings{Name: transport.RoCE}, nil
	}
	st, err := b.l.Spec.TransportSettings(nil, nil, "")
	if err != nil {
		return st, exitcode.Usagef("transport of lab %s: %v", b.l.Name, err)
	}
	return st, nil
}

// transport sets the engine's transport from the variant's: RoCE leaves
// the config as the switch configs and NIC settings made it; InfiniBand
// (ib.go) and UET (uet.go) set their own.
func (b *builder) transport(vs runtime.VariantSpec, cfg *engine.Config) error {
	st, err := b.transportSettings(vs)
	if err != nil {
		return err
	}
	b.tr = st
	switch st.Name {
	case transport.InfiniBand:
		cfg.Transport = engine.TransportInfiniBand
		return b.infiniband(*st.InfiniBand, cfg)
	case transport.UET:
		cfg.Transport = engine.TransportUET
		return b.uet(*st.UET, cfg)
	}
	return nil
}

// recordTransport keeps a variant's transport in its record: the name in
// params.transport and the resolved settings beside the NIC's. A RoCE
// variant's record is as it always was.
func (b *builder) recordTransport(v *results.Variant) {
	st := b.tr // what config() resolved for the variant
	if st.Name == "" || st.Name == transport.RoCE {
		return
	}
	v.Params["transport"] = st.Name
	v.Transport = &st
}
