// Package scenarios embeds the catalog scenario specs (*.yaml in this
// folder) into the labctl binary.
package scenarios

import "embed"

// FS holds the catalog scenarios, one <name>.yaml per scenario.
//
//go:embed *.yaml
var FS embed.FS
