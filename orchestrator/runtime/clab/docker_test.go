//go:build docker

package clab

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
)

// helperSrc is a static program that stands in for a container's tools, so
// the test needs no image from a registry.
const helperSrc = `package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	switch os.Args[1] {
	case "idle":
		time.Sleep(time.Hour)
	case "both":
		fmt.Fprint(os.Stdout, "to stdout")
		fmt.Fprint(os.Stderr, "to stderr")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	}
}
`

// testContainer builds the helper, imports it as an image, and runs an
// unprivileged container from it for the test. The container and the image
// go when the test ends.
func testContainer(t *testing.T) (*Docker, string) {
	d, name, _ := testContainerImage(t)
	return d, name
}

// testContainerImage is testContainer that also returns the helper image's
// ID. Each test imports the helper under a tag of its own and removes it
// (by ID, so nothing is left untagged) after its container: a shared tag
// moved by every import used to leave one dangling image per run.
func testContainerImage(t *testing.T) (*Docker, string, string) {
	t.Helper()
	ctx := context.Background()
	d, err := NewDocker(ctx)
	if err != nil {
		t.Fatalf("docker engine needed for -tags docker tests: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(helperSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "helper")
	build := exec.Command("go", "build", "-o", bin, "main.go")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build helper: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "helper", Mode: 0o755, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	name := "labctl-test-exec-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	ref := "labctl-test/exec-helper:" + strconv.Itoa(os.Getpid()) + "-" + strings.TrimPrefix(name, "labctl-test-exec-")
	rc, err := sdk(t).ImageImport(ctx, image.ImportSource{Source: &buf, SourceName: "-"}, ref, image.ImportOptions{})
	if err != nil {
		t.Fatalf("import helper image: %v", err)
	}
	// Reading the stream to its end waits for the import to finish.
	_, _ = io.Copy(io.Discard, rc)
	rc.Close()
	info, err := sdk(t).ImageInspect(ctx, ref)
	if err != nil {
		t.Fatalf("inspect helper image: %v", err)
	}
	id := info.ID
	// Registered before the container's clean-up, so it runs after it.
	t.Cleanup(func() {
		if _, err := sdk(t).ImageRemove(context.Background(), id, image.RemoveOptions{Force: true, PruneChildren: true}); err != nil {
			t.Errorf("remove helper image %s: %v", ref, err)
		}
	})
	_ = sdk(t).ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
	if _, err := sdk(t).ContainerCreate(ctx, &container.Config{Image: ref, Entrypoint: []string{"/helper"}, Cmd: []string{"idle"}}, &container.HostConfig{}, nil, nil, name); err != nil {
		t.Fatalf("create container: %v", err)
	}
	t.Cleanup(func() {
		_ = sdk(t).ContainerRemove(context.Background(), name, container.RemoveOptions{Force: true})
	})
	if err := sdk(t).ContainerStart(ctx, name, container.StartOptions{}); err != nil {
		t.Fatalf("start container: %v", err)
	}
	return d, name, id
}

func TestDockerExec(t *testing.T) {
	d, name := testContainer(t)
	ctx := context.Background()

	s, err := d.State(ctx, name)
	if err != nil || !s.Running {
		t.Fatalf("State = %+v, %v", s, err)
	}
	if s, err := d.State(ctx, "labctl-test-no-such-container"); err != nil || s.Exists {
		t.Errorf("missing container: %+v, %v", s, err)
	}
	if ok, err := d.ImagePresent(ctx, name); ok || err != nil {
		t.Errorf("ImagePresent(container name) = %v, %v", ok, err)
	}
	info, err := sdk(t).ContainerInspect(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := d.ImagePresent(ctx, info.Config.Image); !ok || err != nil {
		t.Errorf("ImagePresent = %v, %v", ok, err)
	}
	if ok, err := d.ImagePresent(ctx, "labctl-test/none:latest"); ok || err != nil {
		t.Errorf("ImagePresent(missing) = %v, %v", ok, err)
	}
	if d.APIVersion() == "" {
		t.Error("no negotiated API version")
	}

	r, err := d.Exec(ctx, name, []string{"/helper", "both"}, ExecOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Stdout) != "to stdout" || string(r.Stderr) != "to stderr" || r.ExitCode != 3 {
		t.Errorf("Exec = %q / %q / %d", r.Stdout, r.Stderr, r.ExitCode)
	}
	if _, err := ExecOK(ctx, d, name, []string{"/helper", "both"}, ExecOptions{}); err == nil || !strings.Contains(err.Error(), "exited with status 3: to stderr") {
		t.Errorf("ExecOK error = %v", err)
	}

	r, err = d.Exec(ctx, name, []string{"/helper", "hang"}, ExecOptions{Timeout: 500 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "process killed") || r.ExitCode != -1 {
		t.Fatalf("Exec with timeout = %+v, %v", r, err)
	}
	// Only the container's own process remains.
	deadline := time.Now().Add(10 * time.Second)
	for {
		top, err := sdk(t).ContainerTop(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		hung := 0
		for _, p := range top.Processes {
			if strings.Contains(strings.Join(p, " "), "hang") {
				hung++
			}
		}
		if hung == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the timed-out process still runs: %v", top.Processes)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The engine reports a missing binary as an API error or as exit code
	// 126/127, depending on its version; both are failures.
	if r, err := d.Exec(ctx, name, []string{"/no-such-binary"}, ExecOptions{}); err == nil && r.ExitCode == 0 {
		t.Error("exec of a missing binary succeeded")
	}
}

// The helper image is gone once its test is: no tag, no dangling image.
func TestHelperImageLeavesNothing(t *testing.T) {
	var id string
	t.Run("use", func(t *testing.T) { _, _, id = testContainerImage(t) })
	ctx := context.Background()
	d2, err := NewDocker(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if _, err := sdk(t).ImageInspect(ctx, id); err == nil {
		t.Errorf("helper image %s outlived its test", id)
	}
}

func TestWaitForRealContainer(t *testing.T) {
	d, name := testContainer(t)
	err := Wait{Node: "h1", What: "container running", Timeout: 10 * time.Second, Interval: 100 * time.Millisecond}.Until(context.Background(), ContainerRunning(d, name))
	if err != nil {
		t.Fatal(err)
	}
}
