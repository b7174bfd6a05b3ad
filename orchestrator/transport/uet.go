package transport

import "github.com/labctl/labctl/orchestrator/specdoc"

// UETSpec is the uet section of a lab spec or a scenario. Nil fields keep
// what lies underneath: the default, or the lab's when a scenario
// overrides a lab.
type UETSpec struct{}

// UETSettings are the resolved UET settings.
type UETSettings struct{}

// ResolveUET applies specs in order (a lab's, then a scenario's) to the
// defaults. An error is a *FieldError whose Field omits the section
// ("lb", not "uet.lb").
func ResolveUET(specs ...*UETSpec) (UETSettings, error) { return UETSettings{}, nil }

// UETKeyDocs documents the uet section (lab specs and scenarios).
var UETKeyDocs = specdoc.Table{
	"": {Doc: "The Ultra Ethernet transport's settings, used when transport is uet: packet spraying, selective retransmission, packet trimming, NSCC and RCCC. A scenario's section overrides the lab's key by key."},
}
