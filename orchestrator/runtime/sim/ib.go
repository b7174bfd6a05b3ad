package sim

import (
	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/transport"
)

// infiniband turns the engine's config into an InfiniBand fabric's.
func (b *builder) infiniband(st transport.IBSettings, cfg *engine.Config) error { return nil }
