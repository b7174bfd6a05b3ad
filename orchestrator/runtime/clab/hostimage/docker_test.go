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

// TestBuildRealDebootstrap builds the host image from Debian packages and
// runs ib_write_bw --help in it. It needs root, Docker, debootstrap and a
// Debian mirror; it takes about a minute. Run: go test -tags docker.
func TestBuildRealDebootstrap(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tag := "labctl/rdma-host:test"
	m, err := Build(ctx, ExecTools{}, Options{Method: Debootstrap, Tag: tag, Progress: testWriter{t}})
	if err != nil || m != Debootstrap {
		t.Fatalf("Build = %q, %v", m, err)
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
