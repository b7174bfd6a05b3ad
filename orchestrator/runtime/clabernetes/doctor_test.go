package clabernetes

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/runtime/clab/doctor"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes/kubetest"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
)

func checkByName(t *testing.T, rep *doctor.Report, name string) doctor.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, rep.Checks)
	return doctor.Check{}
}

func labGraph(t *testing.T, name, nos string) *fabric.Graph {
	return runtimetest.RenderedLab(t, name, nos).Graph
}

// The administrator of a cluster with clabernetes' CRDs but no controller
// is told the controller is missing; once a manager Deployment with a
// ready replica exists, every check passes for a lab that fits, and the
// capacity check fails for one that does not.
func TestDoctorAgainstAPIServer(t *testing.T) {
	c, tg := testCluster(t)
	ctx := context.Background()
	rep := Doctor(ctx, tg, labGraph(t, "16gpu", "sonic"))
	if ctrl := checkByName(t, rep, "controller"); ctrl.Status != doctor.Fail || !rep.Blocked {
		t.Errorf("no controller: %+v", ctrl)
	}
	for _, name := range []string{"kubeconfig", "api-server", "crd", "namespace", "rbac", "capacity"} {
		if ck := checkByName(t, rep, name); ck.Status != doctor.Pass {
			t.Errorf("%s: %+v", name, ck)
		}
	}
	if ck := checkByName(t, rep, "api-server"); !strings.Contains(ck.Detail, kubetest.KubeVersion) {
		t.Errorf("api-server %q does not name the version", ck.Detail)
	}
	if ck := checkByName(t, rep, "rdma_rxe"); ck.Status != doctor.Warn || !strings.Contains(ck.Detail, "6.1.0-test") {
		t.Errorf("rdma_rxe %+v", ck)
	}

	// A manager Deployment, as clabernetes' chart makes it, with a ready
	// replica (the test plays the kubelet).
	mgr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "clabernetes-manager", "labels": map[string]any{"clabernetes/component": "manager", "clabernetes/app": "clabernetes"}},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"clabernetes/app": "clabernetes"}}, "template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"clabernetes/app": "clabernetes"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "manager", "image": "ghcr.io/srl-labs/clabernetes/clabernetes-manager:0.6.0"}}}}},
	}}
	got, err := c.Dynamic.Resource(deploymentGVR).Namespace(c.Namespace).Create(ctx, mgr, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Dynamic.Resource(deploymentGVR).Namespace(c.Namespace).Delete(ctx, "clabernetes-manager", metav1.DeleteOptions{})
	got.Object["status"] = map[string]any{"replicas": int64(1), "readyReplicas": int64(1)}
	if _, err := c.Dynamic.Resource(deploymentGVR).Namespace(c.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	rep = Doctor(ctx, tg, labGraph(t, "16gpu", "sonic"))
	if rep.Blocked {
		t.Errorf("blocked: %+v", rep.Checks)
	}
	if ck := checkByName(t, rep, "controller"); ck.Status != doctor.Pass || !strings.Contains(ck.Detail, "clabernetes-manager:0.6.0") {
		t.Errorf("controller %+v", ck)
	}
	rep = Doctor(ctx, tg, labGraph(t, "1024gpu", "sonic"))
	ck := checkByName(t, rep, "capacity")
	if ck.Status != doctor.Fail || !rep.Blocked || !strings.Contains(ck.Detail, "102400 MiB") || !strings.Contains(ck.Detail, "98304 MiB") {
		t.Errorf("1024gpu on 3 x 32 GiB: %+v", ck)
	}
}

// A user without any role is told which permissions are missing; the CRD
// is still found through discovery.
func TestDoctorNamesMissingPermissions(t *testing.T) {
	_, tg := testCluster(t)
	tg.Context = "limited"
	rep := Doctor(context.Background(), tg, nil)
	ck := checkByName(t, rep, "rbac")
	if ck.Status != doctor.Fail || !strings.Contains(ck.Detail, "create topologies."+Group) || !strings.Contains(ck.Detail, "create pods/exec") {
		t.Errorf("rbac %+v", ck)
	}
	if ck := checkByName(t, rep, "crd"); ck.Status != doctor.Warn || !strings.Contains(ck.Detail, "is served") {
		t.Errorf("crd %+v", ck)
	}
	if ck := checkByName(t, rep, "capacity"); ck.Status != doctor.Warn {
		t.Errorf("capacity %+v", ck)
	}
	if !rep.Blocked || !strings.Contains(rep.Summary, "rbac") {
		t.Errorf("summary %q", rep.Summary)
	}
}

// A kubeconfig whose token the API server does not know is told to renew
// the credentials (a 401), not that the server is unreachable.
func TestDoctorRejectedCredentials(t *testing.T) {
	_, tg := testCluster(t)
	cfg, err := clientcmd.LoadFromFile(tg.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AuthInfos["admin"].Token = "expired-token"
	tg.Kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, tg.Kubeconfig); err != nil {
		t.Fatal(err)
	}
	rep := Doctor(context.Background(), tg, nil)
	if ck := checkByName(t, rep, "api-server"); ck.Status != doctor.Fail || !strings.Contains(ck.Detail, "refused labctl's credentials (401)") || !rep.Blocked {
		t.Errorf("api-server %+v", ck)
	}
}

// A CRD without a field labctl writes fails the check, naming the field.
func TestMissingSchemaPaths(t *testing.T) {
	ctx := context.Background()
	c, _ := testCluster(t)
	crd, err := c.Dynamic.Resource(crdGVR).Get(ctx, TopologyCRD, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if missing, err := missingSchemaPaths(crd); err != nil || len(missing) > 0 {
		t.Fatalf("the clabernetes %s CRD lacks %v (%v)", SupportedVersion, missing, err)
	}
	old := crd.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(old.Object, "spec", "versions")
	v := versions[0].(map[string]any)
	unstructured.RemoveNestedField(v, "schema", "openAPIV3Schema", "properties", "spec", "properties", "expose", "properties", "exposeType")
	_ = unstructured.SetNestedSlice(old.Object, versions, "spec", "versions")
	missing, err := missingSchemaPaths(old)
	if err != nil || len(missing) != 1 || missing[0] != "spec.expose.exposeType" {
		t.Errorf("missing %v %v", missing, err)
	}
	v["name"] = "v1beta1"
	_ = unstructured.SetNestedSlice(old.Object, versions, "spec", "versions")
	if _, err := missingSchemaPaths(old); err == nil {
		t.Error("a CRD without v1alpha1 passed")
	}
}

func TestNoKubeconfigIsAnEnvironmentError(t *testing.T) {
	t.Setenv("KUBECONFIG", t.TempDir()+"/none")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, err := Connect(Target{})
	if err == nil || !strings.Contains(err.Error(), "kubeconfig") {
		t.Fatalf("%v", err)
	}
	rep := Doctor(context.Background(), Target{}, nil)
	if ck := checkByName(t, rep, "kubeconfig"); ck.Status != doctor.Fail || !rep.Blocked {
		t.Errorf("%+v", ck)
	}
}
