// Package labs embeds the catalog lab specs (*.yaml in this folder) into the
// labctl binary.
package labs

import "embed"

// FS holds the catalog specs, one <name>.yaml per lab.
//
//go:embed *.yaml
var FS embed.FS
