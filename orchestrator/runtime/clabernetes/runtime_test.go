package clabernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	goyaml "github.com/goccy/go-yaml"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
)

// syncBuffer is a progress writer safe for the goroutines of a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func decodeYAML(t *testing.T, b []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, obj)
	}
}

// The dry-run manifests of catalog labs, 1024gpu included, are what the
// real API server with clabernetes' CRDs accepts, with strict field
// validation: no field labctl writes is unknown to the CRD, and the
// definition arrives as the containerlab file.
func TestManifestsAcceptedByAPIServer(t *testing.T) {
	c, _ := testCluster(t)
	for _, tc := range []struct{ lab, nos string }{{"16gpu", "sonic"}, {"16gpu", "eos"}, {"1024gpu", "sonic"}, {"128gpu", "eos"}} {
		t.Run(tc.lab+"-"+tc.nos, func(t *testing.T) {
			l := runtimetest.RenderedLab(t, tc.lab, tc.nos)
			l.Name = tc.lab + "-" + tc.nos // both NOS in one namespace
			m, err := BuildManifests(l, c.Namespace)
			if err != nil {
				t.Fatal(err)
			}
			var y bytes.Buffer
			if err := m.WriteYAML(&y); err != nil {
				t.Fatal(err)
			}
			objs := decodeYAML(t, y.Bytes())
			if len(objs) != len(m.ConfigMaps)+1 {
				t.Fatalf("%d documents, want %d", len(objs), len(m.ConfigMaps)+1)
			}
			for _, o := range objs {
				gvr := configMapGVR
				if o.GetKind() == "Topology" {
					gvr = TopologyGVR
				}
				if _, err := c.Dynamic.Resource(gvr).Namespace(c.Namespace).Create(context.Background(), o, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
					t.Fatalf("create %s %s: %v", o.GetKind(), o.GetName(), err)
				}
			}
			got, err := c.topologies().Get(context.Background(), m.Topology.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			def, _, _ := unstructured.NestedString(got.Object, "spec", "definition", "containerlab")
			file, err := os.ReadFile(filepath.Join(l.Dir, l.Graph.TopologyFile()))
			if err != nil {
				t.Fatal(err)
			}
			if def != string(file) {
				t.Error("the stored definition differs from the lab's containerlab topology")
			}
			if n, _, _ := unstructured.NestedString(got.Object, "spec", "naming"); n != "prefixed" {
				t.Errorf("naming %q", n)
			}
			if len(m.ConfigMaps) != len(l.Graph.Switches()) {
				t.Errorf("%d startup ConfigMaps for %d switches", len(m.ConfigMaps), len(l.Graph.Switches()))
			}
			if tc.lab == "1024gpu" {
				storeControllerStatus(t, c, got, def)
			}
			t.Logf("%s: Topology of %d bytes of definition, %d ConfigMaps", tc.lab, len(def), len(m.ConfigMaps))
		})
	}
}

// storeControllerStatus writes into a Topology a status with the
// per-node sub-topologies clabernetes keeps there (status.configs: each
// node with the defaults and its kind), and checks the API server and
// etcd still store the object, whose size it logs.
func storeControllerStatus(t *testing.T, c *Cluster, obj *unstructured.Unstructured, def string) {
	t.Helper()
	var clabDef struct {
		Topology struct {
			Defaults map[string]any            `yaml:"defaults"`
			Kinds    map[string]any            `yaml:"kinds"`
			Nodes    map[string]map[string]any `yaml:"nodes"`
		} `yaml:"topology"`
	}
	if err := goyaml.Unmarshal([]byte(def), &clabDef); err != nil {
		t.Fatal(err)
	}
	configs := map[string]any{}
	ready := map[string]any{}
	for name, n := range clabDef.Topology.Nodes {
		kind, _ := n["kind"].(string)
		sub := map[string]any{"name": "clabernetes-" + name, "prefix": "", "topology": map[string]any{
			"defaults": clabDef.Topology.Defaults, "kinds": map[string]any{kind: clabDef.Topology.Kinds[kind]},
			"nodes": map[string]any{name: n}, "links": []any{}}}
		b, err := goyaml.Marshal(sub)
		if err != nil {
			t.Fatal(err)
		}
		configs[name] = string(b)
		ready[name] = "ready"
	}
	obj.Object["status"] = map[string]any{"kind": "containerlab", "configs": configs, "nodeReadiness": ready, "topologyReady": true, "topologyState": "running",
		"reconcileHashes":      map[string]any{"config": "x", "exposedPorts": "y", "filesFromURL": map[string]any{}, "imagePullSecrets": ""},
		"removeTopologyPrefix": false, "exposedPorts": map[string]any{}, "conditions": []any{}}
	got, err := c.Dynamic.Resource(TopologyGVR).Namespace(obj.GetNamespace()).Update(context.Background(), obj, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("the Topology with its status does not store: %v", err)
	}
	b, _ := json.Marshal(got.Object)
	t.Logf("Topology with the controller's status: %d bytes (%d nodes); etcd takes requests up to 1.5 MiB by default", len(b), len(configs))
}

// A Topology the CRD refuses is an environment error naming each field,
// what is wrong with it and the fix.
func TestSchemaErrorsNameFieldAndFix(t *testing.T) {
	c, _ := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	for _, tc := range []struct {
		name   string
		mutate func(*unstructured.Unstructured)
		want   []string
	}{
		{"bad enum", func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, "bogus", "spec", "naming")
		}, []string{"spec.naming", "Unsupported value", "bogus"}},
		{"unknown field", func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, "x", "spec", "expose", "exposeMode")
		}, []string{"spec.expose.exposeMode", "not declared in schema"}},
		{"no definition", func(o *unstructured.Unstructured) {
			unstructured.RemoveNestedField(o.Object, "spec", "definition")
		}, []string{"spec.definition", "Required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := BuildManifests(l, c.Namespace)
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(m.Topology)
			_, err = apply(context.Background(), c, m)
			if err == nil {
				t.Fatal("the API server accepted it")
			}
			if exitcode.Code(err) != exitcode.Environment {
				t.Errorf("exit %d, want 3: %v", exitcode.Code(err), err)
			}
			for _, w := range append(tc.want, "upgrade the cluster's clabernetes CRDs to "+SupportedVersion) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
	// Changing the immutable naming of an existing Topology is refused by
	// the CRD's own validation rule.
	m, _ := BuildManifests(l, c.Namespace)
	if _, err := apply(context.Background(), c, m); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(m.Topology.Object, "non-prefixed", "spec", "naming")
	if _, err := apply(context.Background(), c, m); err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Errorf("changing naming: %v", err)
	}
}

func newTestRuntime(t *testing.T, tg Target, l *runtime.Lab) (*Runtime, *fakePods, *fakeSwitches) {
	pods := newFakePods(t, l)
	sw := &fakeSwitches{}
	r := New(tg)
	r.Pods = pods
	r.PollInterval = 20 * time.Millisecond
	r.ReadyTimeout = 30 * time.Second
	r.DeleteTimeout = 10 * time.Second
	r.Live.Push = clab.PushOptions{Backoff: time.Millisecond}
	sw.install(t, r.Live)
	return r, pods, sw
}

// The whole life of a lab against the real API server, the test playing
// the clabernetes controller and the garbage collector: up applies and
// waits, naming the nodes not ready; once ready, the hosts are checked and
// the switches configured through the launcher pods; status reads the
// Topology; a second up changes nothing and keeps the controller's status;
// down deletes and waits for what the controller made; a second down is
// a no-op.
func TestLifecycleAgainstAPIServer(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "eos")
	var progress syncBuffer
	l.Progress = &progress
	r, pods, sw := newTestRuntime(t, tg, l)
	k := newController(t, c, l)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	done := make(chan struct{})
	go func() {
		defer close(done)
		if k.waitApplied(ctx) == nil {
			return
		}
		half := map[string]string{}
		for i, n := range l.Graph.Nodes {
			half[n.Name] = map[bool]string{true: "ready", false: "notready"}[i%2 == 0]
		}
		if err := k.setStatus(ctx, half, "deploying"); err != nil {
			t.Error(err)
		}
		time.Sleep(100 * time.Millisecond)
		k.deploy(ctx)
		all := map[string]string{}
		for _, n := range l.Graph.Nodes {
			all[n.Name] = "ready"
		}
		if err := k.setStatus(ctx, all, "running"); err != nil {
			t.Error(err)
		}
	}()
	st, err := runtime.Up(ctx, r, l, nil)
	<-done
	if err != nil {
		t.Fatalf("up: %v\nprogress:\n%s", err, progress.String())
	}
	if st.State != runtime.StateUp {
		t.Errorf("state %s", st.State)
	}
	out := progress.String()
	for _, w := range []string{"applying Topology labctl-16gpu", "2 of 4 nodes ready; waiting for leaf1, host2", "all 4 nodes ready"} {
		if !strings.Contains(out, w) {
			t.Errorf("progress does not say %q:\n%s", w, out)
		}
	}
	// Each host was checked in its own launcher pod; each switch pushed
	// through a port-forward to the port its Service publishes for SSH.
	hostsChecked := map[string]bool{}
	for _, e := range pods.execs {
		if e[0] != c.Namespace || !strings.HasSuffix(e[1], "-launcher") || e[3] != "docker" {
			t.Errorf("exec %q", e)
		}
		hostsChecked[e[2]] = true
	}
	for _, h := range l.Graph.Hosts() {
		if !hostsChecked[h.Name] {
			t.Errorf("host %s not checked", h.Name)
		}
	}
	if len(pods.forwards) != len(l.Graph.Switches()) || len(sw.pushed) != len(l.Graph.Switches()) {
		t.Errorf("forwards %v, pushes %v", pods.forwards, sw.pushed)
	}
	for _, f := range pods.forwards {
		if !strings.Contains(f, ":600") {
			t.Errorf("forward %s is not to the published SSH port", f)
		}
	}
	if pods.stopped != len(pods.forwards) {
		t.Errorf("%d of %d port-forwards stopped", pods.stopped, len(pods.forwards))
	}
	// ConfigMaps belong to the Topology.
	cms, err := c.Dynamic.Resource(configMapGVR).Namespace(c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelLab + "=16gpu"})
	if err != nil || len(cms.Items) != len(l.Graph.Switches()) {
		t.Fatalf("configmaps: %v %v", len(cms.Items), err)
	}
	if refs := cms.Items[0].GetOwnerReferences(); len(refs) != 1 || refs[0].Kind != "Topology" {
		t.Errorf("owner references %v", refs)
	}

	live, err := r.Status(ctx, l)
	if err != nil || live.State != runtime.StateUp || len(live.Nodes) != len(l.Graph.Nodes) || live.Nodes[0].State != runtime.NodeRunning {
		t.Fatalf("status %+v %v", live, err)
	}
	rec, err := ReadRecord(l.Dir)
	if err != nil || rec == nil || rec.Namespace != c.Namespace || rec.Topology != "labctl-16gpu" {
		t.Errorf("record %+v %v", rec, err)
	}

	// Re-up: the Topology is applied again (same fields), the status the
	// controller wrote survives, and the lab is ready at once.
	progress.mu.Lock()
	progress.b.Reset()
	progress.mu.Unlock()
	if _, err := runtime.Up(ctx, r, l, nil); err != nil {
		t.Fatalf("re-up: %v", err)
	}
	obj, err := c.topologies().Get(ctx, "labctl-16gpu", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ready, _, _ := unstructured.NestedBool(obj.Object, "status", "topologyReady"); !ready {
		t.Error("the re-up lost the controller's status")
	}

	// Down waits for the garbage collector (here the test) to remove what
	// the controller made.
	gc := make(chan struct{})
	go func() { k.collectGarbage(ctx); close(gc) }()
	_, err = runtime.Down(ctx, r, l)
	<-gc
	if err != nil {
		t.Fatalf("down: %v", err)
	}
	for _, gvr := range []struct {
		name string
		list func() (*unstructured.UnstructuredList, error)
	}{
		{"topologies", func() (*unstructured.UnstructuredList, error) {
			return c.topologies().List(ctx, metav1.ListOptions{})
		}},
		{"configmaps", func() (*unstructured.UnstructuredList, error) {
			return c.Dynamic.Resource(configMapGVR).Namespace(c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelLab})
		}},
		{"deployments", func() (*unstructured.UnstructuredList, error) {
			return c.Dynamic.Resource(deploymentGVR).Namespace(c.Namespace).List(ctx, metav1.ListOptions{})
		}},
	} {
		list, err := gvr.list()
		if err != nil || len(list.Items) != 0 {
			t.Errorf("%s left after down: %d %v", gvr.name, len(list.Items), err)
		}
	}
	if st, err := r.Status(ctx, l); err != nil || st.State != runtime.StateDown || st.Nodes[0].State != runtime.NodeMissing {
		t.Errorf("status after down %+v %v", st, err)
	}
	if err := r.Down(ctx, l); err != nil {
		t.Errorf("second down: %v", err)
	}
}

// With a controller (played by the test) but no kubelet, up gets past
// the readiness wait and stops at the first thing that needs a kubelet,
// the port-forward to a switch's launcher pod, saying so.
func TestUpGoesAsFarAsTheAPIServerAllows(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	var progress syncBuffer
	l.Progress = &progress
	r, _, _ := newTestRuntime(t, tg, l)
	r.Pods = nil // the Kubernetes API's exec and port-forward
	k := newController(t, c, l)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if k.waitApplied(ctx) == nil {
			return
		}
		k.deploy(ctx)
		all := map[string]string{}
		for _, n := range l.Graph.Nodes {
			all[n.Name] = "ready"
		}
		if err := k.setStatus(ctx, all, "running"); err != nil {
			t.Error(err)
		}
	}()
	_, err := runtime.Up(ctx, r, l, nil)
	<-done
	if err == nil {
		t.Fatal("up succeeded without a kubelet")
	}
	for _, w := range []string{"reach the SSH server of", "port-forward to pod", "does not have a host assigned", "kubelet"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if !strings.Contains(progress.String(), "all 4 nodes ready") {
		t.Errorf("progress:\n%s", progress.String())
	}
	t.Logf("up without a kubelet: %v", err)
}

// Without a clabernetes controller (as on the test API server) up stops
// once the Topology has had no status for ControllerTimeout, saying so
// and how to remove it; the Topology stays for inspection and down
// removes it.
func TestUpWithoutControllerSaysWhereItStops(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	r, _, _ := newTestRuntime(t, tg, l)
	r.ControllerTimeout = 300 * time.Millisecond
	_, err := runtime.Up(context.Background(), r, l, nil)
	if err == nil || exitcode.Code(err) != exitcode.Environment {
		t.Fatalf("up: exit %d: %v", exitcode.Code(err), err)
	}
	for _, w := range []string{"no clabernetes controller has reconciled it", "labctl stops here", "labctl down 16gpu"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if _, err := c.topologies().Get(context.Background(), "labctl-16gpu", metav1.GetOptions{}); err != nil {
		t.Errorf("the Topology is gone: %v", err)
	}
	st, _ := runtime.ReadState(l.Dir)
	if st == nil || st.State != runtime.StateFailed {
		t.Errorf("state %+v", st)
	}
	if _, err := runtime.Down(context.Background(), r, l); err != nil {
		t.Fatal(err)
	}
	if _, err := c.topologies().Get(context.Background(), "labctl-16gpu", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("down left the Topology: %v", err)
	}
}

// When nodes stay not ready, the timeout names them and what their
// launcher pods are doing.
func TestReadyTimeoutNamesNodesAndPods(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	r, _, _ := newTestRuntime(t, tg, l)
	r.ReadyTimeout = 1500 * time.Millisecond
	k := newController(t, c, l)
	ctx := context.Background()
	go func() {
		if k.waitApplied(ctx) == nil {
			return
		}
		ready := map[string]string{}
		for _, n := range l.Graph.Nodes {
			ready[n.Name] = "ready"
		}
		ready["leaf1"] = "notready"
		if err := k.setStatus(ctx, ready, "deploying"); err != nil {
			t.Error(err)
		}
		pod := k.create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "labctl-16gpu-leaf1-x", "labels": k.nodeLabels("leaf1")},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "leaf1", "image": "launcher"}}},
		}})
		pod.Object["status"] = map[string]any{"phase": "Pending", "conditions": []any{map[string]any{
			"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available: 3 Insufficient memory."}}}
		if _, err := c.Dynamic.Resource(podGVR).Namespace(c.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	_, err := runtime.Up(ctx, r, l, nil)
	if err == nil {
		t.Fatal("up succeeded")
	}
	for _, w := range []string{"not ready after", "leaf1", "Insufficient memory", "--timeout"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// An up cancelled while it waits removes what it applied.
func TestCancelledUpRemovesTheLab(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "eos")
	r, _, _ := newTestRuntime(t, tg, l)
	k := newController(t, c, l)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if k.waitApplied(ctx) != nil {
			time.Sleep(100 * time.Millisecond)
			cancel()
		}
	}()
	_, err := runtime.Up(ctx, r, l, nil)
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "removed Topology labctl-16gpu") {
		t.Fatalf("up: %v", err)
	}
	bg := context.Background()
	if _, err := c.topologies().Get(bg, "labctl-16gpu", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Topology is still there: %v", err)
	}
	cms, err := c.Dynamic.Resource(configMapGVR).Namespace(c.Namespace).List(bg, metav1.ListOptions{LabelSelector: LabelLab})
	if err != nil || len(cms.Items) != 0 {
		t.Errorf("configmaps left: %v %v", cms, err)
	}
}

// A lab is in one namespace at a time: an up elsewhere is refused while
// its Topology is where its record says, and allowed after down.
func TestUpElsewhereRefusedWhileTheLabIsThere(t *testing.T) {
	_, tg1 := testCluster(t)
	c2, tg2 := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	r1, _, _ := newTestRuntime(t, tg1, l)
	r1.ControllerTimeout = 100 * time.Millisecond
	ctx := context.Background()
	if err := r1.Up(ctx, l); err == nil || !strings.Contains(err.Error(), "no clabernetes controller") {
		t.Fatalf("first up: %v", err)
	}
	r2, _, _ := newTestRuntime(t, tg2, l)
	r2.ControllerTimeout = 100 * time.Millisecond
	err := r2.Up(ctx, l)
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "namespace "+tg1.Namespace) || !strings.Contains(err.Error(), "labctl down 16gpu") {
		t.Fatalf("up elsewhere: %v", err)
	}
	if _, err := c2.topologies().Get(ctx, "labctl-16gpu", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused up applied: %v", err)
	}
	if err := r1.Down(ctx, l); err != nil {
		t.Fatal(err)
	}
	if err := r2.Up(ctx, l); err == nil || !strings.Contains(err.Error(), "no clabernetes controller") {
		t.Fatalf("up elsewhere after down: %v", err)
	}
	if rec, _ := ReadRecord(l.Dir); rec == nil || rec.Namespace != tg2.Namespace {
		t.Errorf("record %+v", rec)
	}
}

// Cancelling the up of a lab that is already in the cluster (a re-up)
// leaves the lab alone.
func TestCancelledReUpKeepsTheLab(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	r, _, _ := newTestRuntime(t, tg, l)
	m, _ := BuildManifests(l, c.Namespace)
	if _, err := apply(context.Background(), c, m); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := r.Up(ctx, l); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("up: %v", err)
	}
	if _, err := c.topologies().Get(context.Background(), "labctl-16gpu", metav1.GetOptions{}); err != nil {
		t.Errorf("the cancelled re-up removed the lab: %v", err)
	}
}

// Down stops waiting when the garbage collector does not run, naming what
// is left and the fix.
func TestDownNamesWhatTheGarbageCollectorLeft(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	r, _, _ := newTestRuntime(t, tg, l)
	r.DeleteTimeout = 300 * time.Millisecond
	ctx := context.Background()
	m, _ := BuildManifests(l, c.Namespace)
	if _, err := apply(ctx, c, m); err != nil {
		t.Fatal(err)
	}
	newController(t, c, l).deploy(ctx)
	err := r.Down(ctx, l)
	if err == nil || exitcode.Code(err) != exitcode.Environment {
		t.Fatalf("down: %v", err)
	}
	for _, w := range []string{"Deployments labctl-16gpu-", "Services labctl-16gpu-", "garbage collector", "kubectl delete deploy,svc -l clabernetes/topologyOwner=labctl-16gpu"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// A scenario variant runs with the containerlab runtime's code through
// the launcher pods: perftest in the hosts' pods, counters and variant
// pushes over the switches' port-forwards.
func TestRunVariantThroughLauncherPods(t *testing.T) {
	c, tg := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	r, pods, sw := newTestRuntime(t, tg, l)
	r.Live.StartDelay = time.Millisecond
	r.Live.MaxSimulatedUs = 500
	ctx := context.Background()
	m, _ := BuildManifests(l, c.Namespace)
	if _, err := apply(ctx, c, m); err != nil {
		t.Fatal(err)
	}
	k := newController(t, c, l)
	k.deploy(ctx)
	v := runtime.VariantSpec{Name: "ecn=on,pfc=off", ECN: true, PFC: false, DurationUs: 1e6, Flows: []runtime.FlowSpec{
		{ID: "host1:0->host2:0", Src: runtime.Endpoint{Host: "host1"}, Dst: runtime.Endpoint{Host: "host2"}, Pattern: "pairs", QPs: 1, MessageBytes: 65536, TrafficClass: 106},
	}}
	out, err := r.RunVariant(ctx, l, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Flows) != 1 || out.Flows[0].ThroughputGbps <= 0 || out.Flows[0].Source != "measured" {
		t.Errorf("flows %+v", out.Flows)
	}
	if out.Simulated == nil || out.Simulated.Error != "" {
		t.Errorf("simulated twin %+v", out.Simulated)
	}
	perf := 0
	for _, e := range pods.execs {
		if node, cmd, ok := inner(e[3:]); ok && strings.HasPrefix(cmd[0], "ib_write") {
			perf++
			if !strings.HasPrefix(node, "host") || e[2] != node {
				t.Errorf("perftest in %q", e)
			}
		}
	}
	if perf < 2 {
		t.Errorf("%d perftest commands", perf)
	}
	if len(sw.pushed) != len(l.Graph.Switches()) || sw.shows < 2*len(l.Graph.Switches()) {
		t.Errorf("pushes %v, counter reads %d", sw.pushed, sw.shows)
	}
}
