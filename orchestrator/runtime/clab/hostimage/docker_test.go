//go:build docker

package hostimage

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// stallLimit is how long the image build may print nothing before the
// test gives up on it. debootstrap prints a line per package it fetches and
// unpacks; the quietest step, docker import of the ~250 MB root, took
// under a minute on a busy 2-core machine.
const stallLimit = 5 * time.Minute

// TestBuildRealDebootstrap builds the host image from Debian packages and
// checks each tool in it. It needs root, Docker, debootstrap and a Debian
// mirror; it takes about a minute on an idle machine and several on a busy
// one, so it is bounded by its progress (stallLimit without output) and by
// go test's -timeout, not by a fixed deadline. Run: go test -tags docker.
func TestBuildRealDebootstrap(t *testing.T) {
	parent := context.Background()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		parent, cancel = context.WithDeadline(parent, dl.Add(-30*time.Second))
		defer cancel()
	}
	ctx, progress, stop := watchProgress(parent, testWriter{t}, stallLimit)
	defer stop()
	tag := "labctl/rdma-host:test"
	m, err := Build(ctx, ExecTools{}, Options{Method: Debootstrap, Tag: tag, Progress: progress})
	if err != nil || m != Debootstrap {
		t.Fatalf("Build = %q, %v (%v)", m, err, context.Cause(ctx))
	}
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", tag).Run() })
	out, err := exec.CommandContext(ctx, "docker", "run", "--rm", tag, "sh", "-c", "for c in ib_write_bw ibv_devices rdma ethtool lldpd ping; do command -v $c || exit 1; done").CombinedOutput()
	if err != nil {
		t.Fatalf("tools missing in the image: %v\n%s", err, out)
	}
	if n := len(strings.Fields(string(out))); n != 6 {
		t.Errorf("found %d of 6 tools:\n%s", n, out)
	}
	if os.Getenv("CI") == "" {
		t.Logf("image %s built with %s", tag, m)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
