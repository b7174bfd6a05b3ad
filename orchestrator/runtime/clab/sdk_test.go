//go:build docker || containerlab

package clab

import (
	"testing"

	"github.com/docker/docker/client"

	"github.com/labctl/labctl/orchestrator/runtime/clab/internal/sdktest"
)

// sdk is the Docker SDK's client of the tests' engine (sdktest.Client).
func sdk(t testing.TB) *client.Client { return sdktest.Client(t) }
