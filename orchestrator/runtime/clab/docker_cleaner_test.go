//go:build docker

package clab

import (
	"context"
	"slices"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
)

// The Docker engine's side of down: containers found by containerlab's
// label and by exact name, removed; a network removed only when unused.
func TestDockerCleaner(t *testing.T) {
	d, _, helper := testContainerImage(t) // imports the helper image
	ctx := context.Background()
	const lab = "labctl-cleaner-test"
	create := func(name string, labels map[string]string) {
		_ = sdk(t).ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
		if _, err := sdk(t).ContainerCreate(ctx, &container.Config{Image: helper, Entrypoint: []string{"/helper"}, Cmd: []string{"idle"}, Labels: labels}, &container.HostConfig{}, nil, nil, name); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		t.Cleanup(func() {
			_ = sdk(t).ContainerRemove(context.Background(), name, container.RemoveOptions{Force: true})
		})
	}
	labelled := "labctl-cleaner-test-labelled"
	byName := ContainerName(lab, "leaf1")
	other := ContainerName(lab+"-x", "leaf1")
	create(labelled, map[string]string{"containerlab": lab})
	create(byName, nil)
	create(other, map[string]string{"containerlab": lab + "-x"})

	got, err := d.ContainersOf(ctx, lab, []string{byName, ContainerName(lab, "spine1")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{byName, labelled}; !slices.Equal(got, want) {
		t.Fatalf("ContainersOf = %q, want %q", got, want)
	}
	for _, n := range got {
		if err := d.RemoveContainer(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.RemoveContainer(ctx, byName); err != nil {
		t.Errorf("removing a removed container: %v", err)
	}
	if got, _ := d.ContainersOf(ctx, lab, []string{byName}); len(got) != 0 {
		t.Errorf("left: %q", got)
	}

	const netName = "labctl-cleaner-test-net"
	_ = sdk(t).NetworkRemove(ctx, netName)
	if _, err := sdk(t).NetworkCreate(ctx, netName, network.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sdk(t).NetworkRemove(context.Background(), netName) })
	if err := sdk(t).NetworkConnect(ctx, netName, other, nil); err != nil {
		t.Fatal(err)
	}
	if removed, err := d.RemoveNetworkIfUnused(ctx, netName); err != nil || removed {
		t.Fatalf("network in use: removed %t, %v", removed, err)
	}
	if err := sdk(t).NetworkDisconnect(ctx, netName, other, true); err != nil {
		t.Fatal(err)
	}
	if removed, err := d.RemoveNetworkIfUnused(ctx, netName); err != nil || !removed {
		t.Fatalf("unused network: removed %t, %v", removed, err)
	}
	if removed, err := d.RemoveNetworkIfUnused(ctx, netName); err != nil || removed {
		t.Fatalf("missing network: removed %t, %v", removed, err)
	}
}
