//go:build docker

package clab

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
// unprivileged container from it for the test.
func testContainer(t *testing.T) (*Docker, string) {
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
	ref := "labctl-test/exec-helper:latest"
	rc, err := d.Client().ImageImport(ctx, image.ImportSource{Source: &buf, SourceName: "-"}, ref, image.ImportOptions{})
	if err != nil {
		t.Fatalf("import helper image: %v", err)
	}
	rc.Close()
	name := "labctl-test-exec-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	_ = d.Client().ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
	if _, err := d.Client().ContainerCreate(ctx, &container.Config{Image: ref, Entrypoint: []string{"/helper"}, Cmd: []string{"idle"}}, &container.HostConfig{}, nil, nil, name); err != nil {
		t.Fatalf("create container: %v", err)
	}
	t.Cleanup(func() {
		_ = d.Client().ContainerRemove(context.Background(), name, container.RemoveOptions{Force: true})
	})
	if err := d.Client().ContainerStart(ctx, name, container.StartOptions{}); err != nil {
		t.Fatalf("start container: %v", err)
	}
	return d, name
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
	if ok, err := d.ImagePresent(ctx, "labctl-test/exec-helper:latest"); !ok || err != nil {
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
		top, err := d.Client().ContainerTop(ctx, name, nil)
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

func TestWaitForRealContainer(t *testing.T) {
	d, name := testContainer(t)
	err := Wait{Node: "h1", What: "container running", Timeout: 10 * time.Second, Interval: 100 * time.Millisecond}.Until(context.Background(), ContainerRunning(d, name))
	if err != nil {
		t.Fatal(err)
	}
}
