//go:build docker

package doctor

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/labctl/labctl/orchestrator/runtime/clab/internal/sdktest"
)

// sdk is the Docker SDK's client of the tests' engine (sdktest.Client).
func sdk(t testing.TB) *client.Client { return sdktest.Client(t) }

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
	list, lerr := sdk(t).ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("name", "labctl-doctor-"))})
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

// ImageHasFile looks into an image without running it and leaves nothing:
// here a stand-in SONiC image holding only the SKU's lanemap.
func TestSystemEnvImageHasFile(t *testing.T) {
	ctx := context.Background()
	env := &SystemEnv{}
	defer env.Close()
	d := sdk(t)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	data := []byte("eth1:0,1,2,3\n")
	if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(SonicSKUFile, "/"), Mode: 0o644, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	ref := "labctl-test/sonic-sku:" + strconv.Itoa(os.Getpid())
	rc, err := d.ImageImport(ctx, image.ImportSource{Source: &buf, SourceName: "-"}, ref, image.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, rc)
	rc.Close()
	t.Cleanup(func() {
		_, _ = d.ImageRemove(context.Background(), ref, image.RemoveOptions{Force: true, PruneChildren: true})
	})
	if ok, err := env.ImageHasFile(ctx, ref, SonicSKUFile); !ok || err != nil {
		t.Errorf("ImageHasFile(SKU file) = %v, %v", ok, err)
	}
	if ok, err := env.ImageHasFile(ctx, ref, "/usr/share/sonic/device/x86_64-kvm_x86_64-r0/Force10-S6000/lanemap.ini"); ok || err != nil {
		t.Errorf("ImageHasFile(absent file) = %v, %v", ok, err)
	}
	if _, err := env.ImageHasFile(ctx, "labctl-test/none:latest", SonicSKUFile); err == nil {
		t.Error("ImageHasFile of a missing image: no error")
	}
	list, err := d.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("name", "labctl-doctor-look-"))})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 0 {
		t.Errorf("ImageHasFile left containers: %v", list[0].Names)
	}
}
