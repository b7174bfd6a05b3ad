//go:build docker

package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
)

// TestSystemEnvDocker probes the real engine: versions, images, and the
// privileged-container experiment, which must leave no container behind
// whatever its outcome.
func TestSystemEnvDocker(t *testing.T) {
	ctx := context.Background()
	env := &SystemEnv{HostImage: "labctl-test/none:latest"}
	defer env.Close()
	engine, api, err := env.Docker(ctx)
	if err != nil || engine == "" || api == "" {
		t.Fatalf("Docker() = %q, %q, %v", engine, api, err)
	}
	if ok, err := env.ImagePresent(ctx, "labctl-test/none:latest"); ok || err != nil {
		t.Errorf("ImagePresent(missing) = %v, %v", ok, err)
	}
	err = env.TryPrivileged(ctx)
	t.Logf("privileged containers: %v", err)
	d, _ := env.client(ctx)
	list, lerr := d.Client().ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("name", "labctl-doctor-"))})
	if lerr != nil {
		t.Fatal(lerr)
	}
	if len(list) != 0 {
		t.Errorf("doctor left containers behind: %v", list[0].Names)
	}
	if _, err := env.RXEInNetns(ctx); !errors.Is(err, ErrCannotTest) || !strings.Contains(err.Error(), "labctl-test/none:latest") {
		t.Errorf("RXEInNetns without the host image = %v, want ErrCannotTest naming it", err)
	}
}
