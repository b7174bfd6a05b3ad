package sim

import (
	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/transport"
)

// transport sets the engine's transport from the variant's: RoCE leaves
// the config as the switch configs and NIC settings made it; InfiniBand
// (ib.go) and UET (uet.go) set their own.
func (b *builder) transport(vs runtime.VariantSpec, cfg *engine.Config) error {
	switch vs.Transport.Name {
	case "", transport.RoCE:
		return nil
	case transport.InfiniBand:
		cfg.Transport = engine.TransportInfiniBand
		return b.infiniband(*vs.Transport.InfiniBand, cfg)
	case transport.UET:
		cfg.Transport = engine.TransportUET
		return b.uet(*vs.Transport.UET, cfg)
	}
	return nil
}
