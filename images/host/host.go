// Package host holds the build inputs of labctl's RDMA host image, embedded
// so that 'labctl image build' works from any directory.
package host

import (
	_ "embed"
	"strings"
)

// Dockerfile builds the image from a Debian base image.
//
//go:embed Dockerfile
var Dockerfile []byte

//go:embed packages.txt
var packagesTxt string

// Packages are the Debian packages the image holds.
func Packages() []string {
	var out []string
	for _, l := range strings.Split(packagesTxt, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// Cmd is the image's command: hosts idle until labctl execs into them.
var Cmd = []string{"sleep", "infinity"}
