package clabernetes

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes/kubetest"
)

// One real API server for the package's tests.
var apiServer kubetest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	apiServer.Stop()
	os.Exit(code)
}

// needAPIServer returns the package's API server with the clabernetes
// CRDs, skipping the test (failing it under CI=true) when none can run.
func needAPIServer(t *testing.T) *kubetest.Server {
	t.Helper()
	return apiServer.Get(t)
}

var nsSeq atomic.Int32

// testCluster connects as the administrator to a namespace of its own.
func testCluster(t *testing.T) (*Cluster, Target) {
	t.Helper()
	srv := needAPIServer(t)
	ns := fmt.Sprintf("t%d-%s", nsSeq.Add(1), strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())))
	if len(ns) > 63 {
		ns = strings.TrimRight(ns[:63], "-")
	}
	tg := Target{Kubeconfig: srv.Kubeconfig, Namespace: ns}
	c, err := Connect(tg)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	if _, err := c.Dynamic.Resource(namespaceGVR).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return c, tg
}

// controller plays the parts of a cluster a test API server lacks: the
// clabernetes controller (status, Deployments, Services, launcher pods as
// if scheduled and running) and the garbage collector (what a deleted
// Topology owned goes).
type controller struct {
	t    *testing.T
	c    *Cluster
	lab  *runtime.Lab
	topo string
}

func newController(t *testing.T, c *Cluster, l *runtime.Lab) *controller {
	return &controller{t: t, c: c, lab: l, topo: TopologyName(l.Name)}
}

// waitApplied waits for labctl to apply the Topology and returns it.
func (k *controller) waitApplied(ctx context.Context) *unstructured.Unstructured {
	for {
		obj, err := k.c.Dynamic.Resource(TopologyGVR).Namespace(k.c.Namespace).Get(ctx, k.topo, metav1.GetOptions{})
		if err == nil {
			return obj
		}
		if !apierrors.IsNotFound(err) {
			if ctx.Err() == nil {
				k.t.Errorf("controller: %v", err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// setStatus writes the Topology's status as clabernetes does: a plain
// update, the CRD having no status subresource.
func (k *controller) setStatus(ctx context.Context, ready map[string]string, state string) error {
	obj, err := k.c.Dynamic.Resource(TopologyGVR).Namespace(k.c.Namespace).Get(ctx, k.topo, metav1.GetOptions{})
	if err != nil {
		return err
	}
	all := len(ready) == len(k.lab.Graph.Nodes)
	nr := map[string]any{}
	for n, v := range ready {
		nr[n] = v
		all = all && v == "ready"
	}
	configs := map[string]any{}
	for _, n := range k.lab.Graph.Nodes {
		configs[n.Name] = "name: clabernetes-" + n.Name + "\n"
	}
	obj.Object["status"] = map[string]any{
		"kind": "containerlab", "removeTopologyPrefix": false, "configs": configs,
		"reconcileHashes": map[string]any{"config": "x", "exposedPorts": "y", "filesFromURL": map[string]any{}, "imagePullSecrets": ""},
		"exposedPorts":    map[string]any{}, "nodeReadiness": nr, "topologyReady": all, "topologyState": state,
		"conditions": []any{},
	}
	_, err = k.c.Dynamic.Resource(TopologyGVR).Namespace(k.c.Namespace).Update(ctx, obj, metav1.UpdateOptions{})
	return err
}

var kindGVR = map[string]schema.GroupVersionResource{"Pod": podGVR, "Service": serviceGVR, "Deployment": deploymentGVR}

func (k *controller) create(ctx context.Context, obj *unstructured.Unstructured) *unstructured.Unstructured {
	k.t.Helper()
	got, err := k.c.Dynamic.Resource(kindGVR[obj.GetKind()]).Namespace(k.c.Namespace).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		k.t.Errorf("controller: create %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	return got
}

func (k *controller) nodeLabels(node string) map[string]any {
	return map[string]any{LabelTopologyOwner: k.topo, LabelTopologyNode: node}
}

// deploy creates each node's Deployment, expose Service (port 22 to the
// launcher's published port, as clabernetes allocates from 60000) and a
// launcher pod marked Running.
func (k *controller) deploy(ctx context.Context) {
	for i, n := range k.lab.Graph.Nodes {
		name := k.topo + "-" + n.Name
		lbl := k.nodeLabels(n.Name)
		k.create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "labels": lbl},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": lbl}, "template": map[string]any{
				"metadata": map[string]any{"labels": lbl},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": n.Name, "image": "launcher"}}}}},
		}})
		k.create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": name, "labels": lbl},
			"spec": map[string]any{"type": "ClusterIP", "selector": lbl, "ports": []any{
				map[string]any{"name": "port-22-tcp", "port": int64(22), "targetPort": int64(60001 + i%100), "protocol": "TCP"}}},
		}})
		pod := k.create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name + "-launcher", "labels": lbl},
			"spec": map[string]any{"containers": []any{map[string]any{"name": n.Name, "image": "launcher"}}},
		}})
		if pod == nil {
			continue
		}
		pod.Object["status"] = map[string]any{"phase": "Running"}
		if _, err := k.c.Dynamic.Resource(podGVR).Namespace(k.c.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			k.t.Errorf("controller: pod status: %v", err)
		}
	}
}

// collectGarbage deletes what the controller made for the Topology once
// it is gone, as the garbage collector would.
func (k *controller) collectGarbage(ctx context.Context) {
	for {
		_, err := k.c.Dynamic.Resource(TopologyGVR).Namespace(k.c.Namespace).Get(ctx, k.topo, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	sel := metav1.ListOptions{LabelSelector: LabelTopologyOwner + "=" + k.topo}
	for _, kind := range []string{"Deployment", "Service", "Pod"} {
		if err := k.c.Dynamic.Resource(kindGVR[kind]).Namespace(k.c.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}, sel); err != nil && ctx.Err() == nil {
			k.t.Errorf("garbage collector: %v", err)
		}
	}
}
