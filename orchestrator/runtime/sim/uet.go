package sim

import (
	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/transport"
)

// uet sets the engine's UET settings.
func (b *builder) uet(st transport.UETSettings, cfg *engine.Config) error { return nil }
