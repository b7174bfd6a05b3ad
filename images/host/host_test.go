package host

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Dockerfile and debootstrap must install the same packages.
func TestDockerfileInstallsPackages(t *testing.T) {
	m := regexp.MustCompile(`(?s)apt-get install -y --no-install-recommends\s*\\?\s*([^\\]+)\\`).FindSubmatch(Dockerfile)
	if m == nil {
		t.Fatal("no apt-get install line in the Dockerfile")
	}
	got := strings.Fields(string(m[1]))
	if !slices.Equal(got, Packages()) {
		t.Errorf("Dockerfile installs %q, packages.txt lists %q", got, Packages())
	}
	if !strings.Contains(string(Dockerfile), `CMD ["sleep", "infinity"]`) {
		t.Error("Dockerfile CMD differs from Cmd")
	}
	for _, want := range []string{"rdma-core", "perftest", "ibverbs-utils", "iproute2"} {
		if !slices.Contains(Packages(), want) {
			t.Errorf("packages lack %s", want)
		}
	}
}
