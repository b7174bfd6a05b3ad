package clabernetes

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
)

// kubeTransport reaches a clabernetes lab's nodes for the containerlab
// runtime's push, traffic and counter code (clab.Transport). Each node runs
// as a container named after it in the Docker daemon of its launcher pod:
// host commands are 'docker exec <node>' run in that pod through the
// Kubernetes exec API, and each switch's SSH server is reached by a
// port-forward to its launcher pod's port that clabernetes publishes for
// port 22 (the targetPort of port 22 of the node's Service).
type kubeTransport struct {
	pods      Pods
	namespace string
	// node maps the containerlab container name the shared code uses
	// (clab.ContainerName) to the node; launcher maps a node to its pod.
	node     map[string]string
	launcher map[string]string
	ssh      map[string]clab.SSHAddr
	stops    []func()
}

var _ clab.Transport = (*kubeTransport)(nil)

// Exec implements clab.Execer: argv runs in the node's container through
// its launcher pod. A timeout is enforced in the container too ('timeout
// -s KILL'), because ending the exec stream does not end the command.
func (t *kubeTransport) Exec(ctx context.Context, container string, argv []string, opt clab.ExecOptions) (clab.ExecResult, error) {
	node, ok := t.node[container]
	if !ok {
		return clab.ExecResult{}, fmt.Errorf("%s is not a node of the lab", container)
	}
	pod := t.launcher[node]
	if pod == "" {
		return clab.ExecResult{}, fmt.Errorf("node %s has no running launcher pod", node)
	}
	cmd := []string{"docker", "exec"}
	for _, e := range opt.Env {
		cmd = append(cmd, "-e", e)
	}
	if opt.User != "" {
		cmd = append(cmd, "-u", opt.User)
	}
	cmd = append(cmd, node)
	if opt.Timeout > 0 {
		secs := int(math.Ceil(opt.Timeout.Seconds()))
		cmd = append(cmd, "timeout", "-s", "KILL", strconv.Itoa(secs))
		var cancel context.CancelFunc
		// The stream gets a little longer than the command, so the
		// command's own end (status 137) is what is reported.
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout+10*time.Second)
		defer cancel()
	}
	cmd = append(cmd, argv...)
	return t.pods.Exec(ctx, t.namespace, pod, node, cmd)
}

// SwitchSSH implements clab.Transport.
func (t *kubeTransport) SwitchSSH() map[string]clab.SSHAddr { return t.ssh }

// Close stops the port-forwards.
func (t *kubeTransport) Close() error {
	for _, stop := range t.stops {
		stop()
	}
	t.stops = nil
	return nil
}

// launcherPods maps each node of the Topology to its running launcher pod
// (the newest, when a rollout left two).
func launcherPods(ctx context.Context, c *Cluster, topology string) (map[string]string, []unstructured.Unstructured, error) {
	list, err := c.Dynamic.Resource(podGVR).Namespace(c.Namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelTopologyOwner + "=" + topology})
	if err != nil {
		return nil, nil, apiError(err, "list the launcher pods of Topology "+topology, c)
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i].GetCreationTimestamp(), items[j].GetCreationTimestamp()
		return a.Before(&b)
	})
	out := map[string]string{}
	for _, p := range items {
		phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
		if p.GetDeletionTimestamp() != nil || phase != "Running" {
			continue
		}
		if node := p.GetLabels()[LabelTopologyNode]; node != "" {
			out[node] = p.GetName()
		}
	}
	return out, items, nil
}

func ptr[T any](v T) *T { return &v }

// sshTargetPort is the launcher pod port clabernetes publishes for a
// switch's port 22: the targetPort of port 22 of the node's Service.
func sshTargetPort(ctx context.Context, c *Cluster, topology, node string) (int, error) {
	name := topology + "-" + node
	svc, err := c.Dynamic.Resource(serviceGVR).Namespace(c.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return 0, apiError(err, "read Service "+name+" of switch "+node, c)
	}
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	for _, p := range ports {
		pm, _ := p.(map[string]any)
		port, _, _ := unstructured.NestedInt64(pm, "port")
		if port != 22 {
			continue
		}
		switch tp := pm["targetPort"].(type) {
		case int64:
			return int(tp), nil
		case float64:
			return int(tp), nil
		case nil:
			return 22, nil
		default:
			return 0, fmt.Errorf("the targetPort %[2]v of port 22 of Service %[1]s is not a number", name, tp)
		}
	}
	return 0, fmt.Errorf("the Service %s exposes no port 22, so labctl cannot reach the SSH server of %s (was the Topology's expose changed?)", name, node)
}

// transport opens the way to every node of a ready lab: the launcher pod
// of each node, and a port-forward to each switch's SSH port.
func (r *Runtime) transport(ctx context.Context, c *Cluster, l *runtime.Lab) (*kubeTransport, error) {
	topo := TopologyName(l.Name)
	pods, _, err := launcherPods(ctx, c, topo)
	if err != nil {
		return nil, err
	}
	t := &kubeTransport{pods: r.pods(c), namespace: c.Namespace, node: map[string]string{}, launcher: pods, ssh: map[string]clab.SSHAddr{}}
	var missing []string
	for _, n := range l.Graph.Nodes {
		t.node[clab.ContainerName(l.Name, n.Name)] = n.Name
		if pods[n.Name] == "" {
			missing = append(missing, n.Name)
		}
	}
	if len(missing) > 0 {
		return nil, exitcode.Envf("lab %s: no running launcher pod for %s in %s (see 'labctl status %s'; 'kubectl get pods -l %s=%s')", l.Name, nameList(missing), c.Where(), l.Name, LabelTopologyOwner, topo)
	}
	for _, sw := range l.Graph.Switches() {
		port, err := sshTargetPort(ctx, c, topo, sw.Name)
		if err == nil {
			var a clab.SSHAddr
			var stop func()
			a, stop, err = t.pods.Forward(ctx, c.Namespace, pods[sw.Name], port)
			if err == nil {
				t.ssh[sw.Name] = a
				t.stops = append(t.stops, stop)
			}
		}
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("reach the SSH server of %s: %w", sw.Name, err)
		}
	}
	return t, nil
}
