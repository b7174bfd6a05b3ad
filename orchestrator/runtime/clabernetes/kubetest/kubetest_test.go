package kubetest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestScratchGoModReplacesEveryStagingModule(t *testing.T) {
	kgm := []byte("module k8s.io/kubernetes\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n\tk8s.io/client-go => ./staging/src/k8s.io/client-go\n)\n")
	got, err := scratchGoMod(kgm)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"require k8s.io/kubernetes " + KubeVersion, "k8s.io/api => k8s.io/api " + StagingVersion, "k8s.io/client-go => k8s.io/client-go " + StagingVersion} {
		if !strings.Contains(got, want) {
			t.Errorf("go.mod lacks %q:\n%s", want, got)
		}
	}
	if _, err := scratchGoMod([]byte("module x\n")); err == nil {
		t.Error("a go.mod without staging modules was accepted")
	}
}

// TestBuild is what 'make kube-apiserver' runs: it builds kube-apiserver
// into the user's cache directory unless it is there, and checks the
// binary reports its version.
func TestBuild(t *testing.T) {
	if os.Getenv(BuildEnv) != "1" {
		t.Skipf("set %s=1 (make kube-apiserver) to build kube-apiserver %s", BuildEnv, KubeVersion)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 55*time.Minute)
	defer cancel()
	start := time.Now()
	path, err := Build(ctx, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), KubeVersion) {
		t.Fatalf("%s --version: %s %v", path, out, err)
	}
	t.Logf("kube-apiserver %s at %s (%s)", KubeVersion, path, time.Since(start).Round(time.Second))
}
