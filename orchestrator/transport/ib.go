package transport

import "github.com/labctl/labctl/orchestrator/specdoc"

// IBSpec is the infiniband section of a lab spec or a scenario. Nil
// fields keep what lies underneath: the default, or the lab's when a
// scenario overrides a lab.
type IBSpec struct{}

// IBSettings are the resolved InfiniBand settings.
type IBSettings struct{}

// ResolveIB applies specs in order (a lab's, then a scenario's) to the
// defaults. An error is a *FieldError whose Field omits the section
// ("routing", not "infiniband.routing").
func ResolveIB(specs ...*IBSpec) (IBSettings, error) { return IBSettings{}, nil }

// IBKeyDocs documents the infiniband section (lab specs and scenarios).
var IBKeyDocs = specdoc.Table{
	"": {Doc: "InfiniBand's settings, used when transport is infiniband: credit-based flow control, the subnet manager's routing, IB congestion control. A scenario's section overrides the lab's key by key."},
}
