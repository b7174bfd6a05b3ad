// Package sdktest gives the Docker-backed tests of the containerlab runtime
// the Docker SDK's client of their engine. The tests make their fixtures
// (images, containers, networks) and look at what labctl left through it,
// a client independent of labctl's own (dockerapi), so that a fault there
// cannot both make a fixture and pass the test on it. Only tests import
// this package: the SDK is not linked into labctl.
package sdktest

import (
	"testing"

	"github.com/docker/docker/client"
)

// Client is an SDK client of the engine DOCKER_HOST names, closed when the
// test ends.
func Client(t testing.TB) *client.Client {
	t.Helper()
	c, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatalf("docker SDK client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
