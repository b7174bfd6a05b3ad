package clabernetes

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
)

func TestStatusFromTopology(t *testing.T) {
	g := runtimetest.RenderedLab(t, "16gpu", "sonic").Graph
	all := func(v string) map[string]string {
		m := map[string]string{}
		for _, n := range g.Nodes {
			m[n.Name] = v
		}
		return m
	}
	some := all("ready")
	some["leaf1"] = "notready"
	delete(some, "host2")
	for _, tc := range []struct {
		name   string
		exists bool
		ts     TopologyStatus
		want   string
		leaf1  string
	}{
		{"absent", false, TopologyStatus{}, runtime.StateDown, runtime.NodeMissing},
		{"applied, no controller", true, TopologyStatus{}, runtime.StateDeploying, runtime.NodeMissing},
		{"deploying", true, TopologyStatus{Kind: "containerlab", TopologyState: "deploying", NodeReadiness: some}, runtime.StateDeploying, runtime.NodeStopped},
		{"running", true, TopologyStatus{Kind: "containerlab", TopologyState: "running", TopologyReady: true, NodeReadiness: all("ready")}, runtime.StateUp, runtime.NodeRunning},
		{"degraded", true, TopologyStatus{Kind: "containerlab", TopologyState: "degraded", NodeReadiness: some}, runtime.StateDegraded, runtime.NodeStopped},
		{"deployfailed", true, TopologyStatus{Kind: "containerlab", TopologyState: "deployfailed", NodeReadiness: all("notready")}, runtime.StateFailed, runtime.NodeStopped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &runtime.Status{}
			StatusFromTopology(st, g, tc.exists, &tc.ts)
			if st.State != tc.want {
				t.Errorf("state %s, want %s", st.State, tc.want)
			}
			if len(st.Nodes) != len(g.Nodes) {
				t.Fatalf("%d nodes", len(st.Nodes))
			}
			for _, n := range st.Nodes {
				if n.Name == "leaf1" && n.State != tc.leaf1 {
					t.Errorf("leaf1 %s, want %s", n.State, tc.leaf1)
				}
			}
		})
	}
}

func TestBuildManifests(t *testing.T) {
	l := runtimetest.RenderedLab(t, "16gpu", "eos")
	m, err := BuildManifests(l, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Topology.GetNamespace() != "" {
		t.Error("a namespace was set though none was given")
	}
	spec := m.Topology.Object["spec"].(map[string]any)
	res := spec["deployment"].(map[string]any)["resources"].(map[string]any)
	if got := res["leaf1"].(map[string]any)["requests"].(map[string]any)["memory"]; got != "1996Mi" {
		t.Errorf("cEOS leaf requests %v, want 1740Mi + 256Mi launcher", got)
	}
	if got := res["default"].(map[string]any)["requests"].(map[string]any)["memory"]; got != "320Mi" {
		t.Errorf("hosts request %v", got)
	}
	probes := spec["statusProbes"].(map[string]any)
	if ex := probes["excludedNodes"].([]any); !slices.Equal(ex, []any{"host1", "host2"}) {
		t.Errorf("excluded %v", ex)
	}
	files := spec["deployment"].(map[string]any)["filesFromConfigMap"].(map[string]any)
	f := files["spine1"].([]any)[0].(map[string]any)
	if f["filePath"] != "startup/spine1.cfg" || f["configMapName"] != "labctl-16gpu-spine1-startup-config" {
		t.Errorf("files %v", f)
	}
	data := m.ConfigMaps[0].Object["data"].(map[string]any)[startupConfigKey].(string)
	if !strings.Contains(data, "hostname spine1") && !strings.Contains(data, "hostname leaf1") {
		t.Errorf("startup config %q", data)
	}
	// A SONiC switch's config_db.json, which the topology binds into the
	// container, is shipped the same way: without it sonic-vs boots with
	// no ports configured.
	ls := runtimetest.RenderedLab(t, "16gpu", "sonic")
	ms, err := BuildManifests(ls, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.ConfigMaps) != len(ls.Graph.Switches()) {
		t.Fatalf("SONiC: %d startup ConfigMaps for %d switches", len(ms.ConfigMaps), len(ls.Graph.Switches()))
	}
	sfiles := ms.Topology.Object["spec"].(map[string]any)["deployment"].(map[string]any)["filesFromConfigMap"].(map[string]any)
	if f := sfiles["leaf1"].([]any)[0].(map[string]any); f["filePath"] != "startup/leaf1.json" {
		t.Errorf("SONiC files %v", f)
	}
	if data := ms.ConfigMaps[0].Object["data"].(map[string]any)[startupConfigKey].(string); !strings.Contains(data, `"PORT"`) {
		t.Errorf("SONiC startup config has no PORT table: %.200s", data)
	}
	// A long lab name makes Service names Kubernetes refuses.
	l.Name = strings.Repeat("a", 50)
	if _, err := BuildManifests(l, ""); err == nil || !strings.Contains(err.Error(), "shorter name") {
		t.Errorf("long name: %v", err)
	}
}

func TestEstimate(t *testing.T) {
	g := runtimetest.RenderedLab(t, "1024gpu", "sonic").Graph
	total, largest := Estimate(g)
	// 48 sonic-vs switches of 1024+256 MiB and 128 hosts of 64+256 MiB.
	if total.MemoryMiB != 48*1280+128*320 || largest.MemoryMiB != 1280 {
		t.Errorf("estimate %+v largest %+v", total, largest)
	}
	if r := NodeResources(fabric.KindCEOS); r.MemoryMiB != 1996 {
		t.Errorf("cEOS %+v", r)
	}
}

// The transport runs host commands as 'docker exec <node>' in the node's
// launcher pod, with env, user and a timeout enforced in the container.
func TestTransportExec(t *testing.T) {
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	pods := newFakePods(t, l)
	tr := &kubeTransport{pods: pods, namespace: "labs", node: map[string]string{clab.ContainerName("16gpu", "host1"): "host1"}, launcher: map[string]string{"host1": "labctl-16gpu-host1-abc"}}
	res, err := tr.Exec(context.Background(), "clab-16gpu-host1", []string{"ibv_devices"}, clab.ExecOptions{Env: []string{"A=1"}, User: "root", Timeout: 1500 * time.Millisecond})
	if err != nil || !strings.Contains(string(res.Stdout), "rxe-host1-0") {
		t.Fatalf("%s %v", res.Stdout, err)
	}
	want := []string{"labs", "labctl-16gpu-host1-abc", "host1", "docker", "exec", "-e", "A=1", "-u", "root", "host1", "timeout", "-s", "KILL", "2", "ibv_devices"}
	if !slices.Equal(pods.execs[0], want) {
		t.Errorf("exec %q\nwant %q", pods.execs[0], want)
	}
	if _, err := tr.Exec(context.Background(), "clab-16gpu-nosuch", []string{"true"}, clab.ExecOptions{}); err == nil {
		t.Error("exec in an unknown container")
	}
}

// Exec through the real API server reaches it and reports what it says
// about a launcher pod no kubelet runs.
func TestAPIPodsExecReachesTheAPIServer(t *testing.T) {
	c, _ := testCluster(t)
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	k := newController(t, c, l)
	k.deploy(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := APIPods{Config: c.Config}.Exec(ctx, c.Namespace, "labctl-16gpu-host1-launcher", "host1", []string{"true"})
	if err == nil || !strings.Contains(err.Error(), "labctl-16gpu-host1-launcher") {
		t.Fatalf("exec in a pod without a kubelet: %v", err)
	}
	t.Logf("exec without a kubelet: %v", err)
	_, _, err = APIPods{Config: c.Config}.Forward(ctx, c.Namespace, "labctl-16gpu-host1-launcher", 22)
	if err == nil {
		t.Fatal("port-forward to a pod without a kubelet")
	}
	t.Logf("port-forward without a kubelet: %v", err)
}

// A lab no up ever applied from this work directory (no record: the up
// stopped at a missing kubeconfig) is down and can be taken down without
// a cluster; once a record says it was applied, a cluster it cannot reach
// is an error.
func TestDownAndStatusOfALabNeverApplied(t *testing.T) {
	ctx := context.Background()
	l := runtimetest.RenderedLab(t, "16gpu", "sonic")
	noKube := exitcode.Envf("no kubeconfig")
	r := New(Target{})
	r.Connect = func(Target) (*Cluster, error) { return nil, noKube }
	if err := r.Down(ctx, l); err != nil {
		t.Errorf("Down of a lab never applied: %v", err)
	}
	st, err := r.Status(ctx, l)
	if err != nil || st.State != runtime.StateDown || len(st.Nodes) != len(l.Graph.Nodes) || st.Nodes[0].State != runtime.NodeMissing {
		t.Errorf("Status of a lab never applied: %+v, %v", st, err)
	}
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeRecord(l, "", &Cluster{Namespace: "labs", Server: "https://k8s:6443"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Down(ctx, l); !errors.Is(err, noKube) {
		t.Errorf("Down of an applied lab without a cluster: %v, want the connect error", err)
	}
	if _, err := r.Status(ctx, l); !errors.Is(err, noKube) {
		t.Errorf("Status of an applied lab without a cluster: %v, want the connect error", err)
	}
}
