package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/labctl/labctl/orchestrator/runtime/clabernetes"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes/kubetest"
)

// The clabernetes runtime from the command line, against a real API
// server with clabernetes' CRDs and no kubelet or controller.
func TestClabernetesCLI(t *testing.T) {
	t.Parallel()
	var shared kubetest.Shared
	defer shared.Stop()
	srv := shared.Get(t)
	kc := srv.Kubeconfig
	c, err := clabernetes.Connect(clabernetes.Target{Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	newNS := func(t *testing.T, name string) string {
		ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
		if _, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return name
	}

	// Done when: 'labctl up 1024gpu --runtime clabernetes --dry-run -o yaml'
	// prints a Topology the real API server accepts.
	t.Run("dry-run yaml is accepted", func(t *testing.T) {
		ns := newNS(t, "dry-run")
		code, out, stderr := runCLI(t, "up", "1024gpu", "--runtime", "clabernetes", "--dry-run", "-o", "yaml", "--dir", t.TempDir())
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if stderr != "" {
			t.Errorf("stderr: %q", stderr)
		}
		dec := k8syaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
		n, maps := 0, 0
		for {
			obj := &unstructured.Unstructured{}
			if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			gvr := clabernetes.TopologyGVR
			switch {
			case obj.GetKind() == "ConfigMap" && strings.HasSuffix(obj.GetName(), "-startup-config"):
				// Each SONiC switch's config_db.json, which the topology
				// binds into its container.
				gvr = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
				maps++
			case obj.GetKind() != "Topology" || obj.GetName() != "labctl-1024gpu":
				t.Fatalf("document %d is %s %s", n+maps, obj.GetKind(), obj.GetName())
			default:
				n++
			}
			if _, err := c.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
				t.Fatalf("the API server refused %s %s: %v", obj.GetKind(), obj.GetName(), err)
			}
		}
		if n != 1 || maps == 0 {
			t.Fatalf("%d Topologies and %d startup ConfigMaps printed", n, maps)
		}
		// EOS labs come with their startup ConfigMaps, namespaced as asked.
		code, out, stderr = runCLI(t, "up", "64gpu", "--nos", "eos", "--runtime", "clabernetes", "--dry-run", "-o", "yaml", "--namespace", ns, "--dir", t.TempDir())
		if code != 0 || strings.Count(out, "kind: ConfigMap") != 3 || strings.Count(out, "namespace: "+ns) != 4 {
			t.Errorf("eos dry run: exit %d, %d ConfigMaps: %s", code, strings.Count(out, "kind: ConfigMap"), stderr)
		}
		if code, _, stderr := runCLI(t, "up", "16gpu", "--runtime", "clabernetes", "-o", "yaml", "--dir", t.TempDir()); code != 2 || !strings.Contains(stderr, "--dry-run") {
			t.Errorf("-o yaml without --dry-run: exit %d: %s", code, stderr)
		}
	})

	// Done when: a real up against the test API server goes as far as an
	// API server without a kubelet allows, saying where it stops; status
	// and down then work on what it left.
	t.Run("up stops where the cluster does", func(t *testing.T) {
		ns := newNS(t, "up")
		dir := t.TempDir()
		code, out, stderr := runCLI(t, "up", "16gpu", "--runtime", "clabernetes", "--kubeconfig", kc, "--namespace", ns, "--timeout", "1s", "--dir", dir)
		if code != 3 {
			t.Fatalf("exit %d, want 3\n%s%s", code, out, stderr)
		}
		for _, w := range []string{"Topology labctl-16gpu is applied in namespace up", "no clabernetes controller has reconciled it", "labctl stops here", "labctl down 16gpu"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr does not say %q:\n%s", w, stderr)
			}
		}
		if _, err := c.Dynamic.Resource(clabernetes.TopologyGVR).Namespace(ns).Get(ctx, "labctl-16gpu", metav1.GetOptions{}); err != nil {
			t.Errorf("no Topology in the cluster: %v", err)
		}
		code, out, _ = runCLI(t, "status", "16gpu", "--dir", dir)
		if code != 0 || !strings.Contains(out, "clabernetes") || !strings.Contains(out, "failed") {
			t.Errorf("status: exit %d\n%s", code, out)
		}
		// down finds the cluster and namespace from the lab's record,
		// whatever the flags.
		code, out, stderr = runCLI(t, "down", "16gpu", "--dir", dir, "--kubeconfig", kc)
		if code != 0 {
			t.Fatalf("down: exit %d\n%s%s", code, out, stderr)
		}
		if _, err := c.Dynamic.Resource(clabernetes.TopologyGVR).Namespace(ns).Get(ctx, "labctl-16gpu", metav1.GetOptions{}); err == nil {
			t.Error("down left the Topology")
		}
		// A lab that does not fit the cluster is refused before anything
		// is applied.
		code, _, stderr = runCLI(t, "up", "1024gpu", "--nos", "eos", "--runtime", "clabernetes", "--kubeconfig", kc, "--namespace", ns, "--dir", dir)
		if code != 3 || !strings.Contains(stderr, "requests an estimated") {
			t.Errorf("1024gpu: exit %d: %s", code, stderr)
		}
	})

	t.Run("doctor", func(t *testing.T) {
		var out bytes.Buffer
		code := run(ctx, []string{"doctor", "--runtime", "clabernetes", "--kubeconfig", kc, "--lab", "64gpu"}, &out, io.Discard)
		if code != 3 {
			t.Errorf("exit %d, want 3 (no controller)\n%s", code, out.String())
		}
		for _, w := range []string{"PASS  api-server", "PASS  crd", "FAIL  controller", "PASS  rbac", "PASS  capacity", "WARN  rdma_rxe", "--runtime clabernetes cannot run here"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("doctor output lacks %q:\n%s", w, out.String())
			}
		}
		t.Logf("labctl doctor --runtime clabernetes --lab 64gpu:\n%s", out.String())
	})
}
