package clabernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
)

// Name is the runtime's name on the command line.
const Name = "clabernetes"

// SupportedVersion is the clabernetes release whose Topology CRD labctl is
// tested against.
const SupportedVersion = "v0.6.0"

// Runtime runs labs on a Kubernetes cluster with clabernetes.
type Runtime struct {
	// Target is the cluster and namespace the command line names; a lab
	// that is up keeps the ones it was brought up in (RecordFile) for what
	// the flags leave out.
	Target Target
	// Connect opens the cluster; nil uses Connect.
	Connect func(Target) (*Cluster, error)
	// Live is the containerlab runtime whose push, traffic and counter code
	// configures and drives the lab once it is ready; its Reach is set to
	// this runtime's transport. New sets clab.New().
	Live *clab.Runtime
	// Pods runs commands in launcher pods and forwards their ports; nil
	// uses the Kubernetes API (APIPods).
	Pods Pods
	// ReadyTimeout bounds the wait for the Topology to be ready; 0 means
	// 20 minutes (clabernetes gives a node about 15 to boot).
	ReadyTimeout time.Duration
	// ControllerTimeout is how long a Topology may stay without any
	// status before labctl concludes no clabernetes controller runs; 0
	// means 2 minutes (or ReadyTimeout when shorter).
	ControllerTimeout time.Duration
	// DeleteTimeout bounds the wait for a deleted lab's Deployments and
	// Services to go; 0 means 5 minutes.
	DeleteTimeout time.Duration
	// PollInterval is how often the Topology is read while waiting; 0
	// means 2 seconds.
	PollInterval time.Duration

	// checked is the lab the last Preflight passed for, so that the Up
	// the lifecycle calls right after it does not check twice.
	checked *runtime.Lab
}

// New returns a Runtime for the cluster and namespace t names.
func New(t Target) *Runtime {
	return &Runtime{Target: t, Live: clab.New()}
}

var _ runtime.Runtime = (*Runtime)(nil)

// Name implements runtime.Runtime.
func (r *Runtime) Name() string { return Name }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func progress(l *runtime.Lab) func(string) {
	return func(line string) {
		if l.Progress != nil {
			fmt.Fprintln(l.Progress, line)
		}
		l.Logger().Info(line)
	}
}

func (r *Runtime) pods(c *Cluster) Pods {
	if r.Pods != nil {
		return r.Pods
	}
	return APIPods{Config: c.Config}
}

// cluster connects to the cluster of the lab: the flags over the lab's
// record.
func (r *Runtime) cluster(l *runtime.Lab) (*Cluster, Target, error) {
	rec, err := ReadRecord(l.Dir)
	if err != nil {
		return nil, Target{}, err
	}
	t := target(r.Target, rec)
	connect := r.Connect
	if connect == nil {
		connect = Connect
	}
	c, err := connect(t)
	return c, t, err
}

// live is the containerlab runtime reaching this lab through Kubernetes.
func (r *Runtime) live(c *Cluster) *clab.Runtime {
	lr := r.Live
	if lr == nil {
		lr = clab.New()
	}
	cp := *lr
	cp.Reach = func(ctx context.Context, l *runtime.Lab) (clab.Transport, error) {
		return r.transport(ctx, c, l)
	}
	// clabernetes' status probes report a switch ready once its SSH port
	// answers, and a port-forward's local end always accepts: the pushes'
	// own connection retries cover the rest.
	cp.SkipSSHWait = true
	return &cp
}

// nameList shortens a long list of node names for a message.
func nameList(names []string) string {
	const show = 8
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

// apiError turns an API error into one that says what labctl was doing
// and, for the usual causes, the fix and the exit class.
func apiError(err error, doing string, c *Cluster) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", doing, err)
	case strings.Contains(err.Error(), "would exceed context deadline"):
		// client-go's rate limiter refuses a request that it would have
		// to delay past the context's deadline, with an untyped error,
		// before the deadline passes: it is the deadline all the same.
		return fmt.Errorf("%s: %v: %w", doing, err, context.DeadlineExceeded)
	case apierrors.IsForbidden(err):
		return exitcode.Envf("%s: forbidden in %s: %v (grant labctl's user the RBAC role 'labctl doctor --runtime clabernetes' lists)", doing, c.Where(), apiMessage(err))
	case apierrors.IsUnauthorized(err):
		return exitcode.Envf("%s: the API server at %s refused labctl's credentials: renew them in the kubeconfig", doing, c.Server)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s: %w", doing, err)
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %s", doing, apiMessage(err))
	}
	return exitcode.Envf("%s: %v (is the API server at %s reachable?)", doing, err, c.Server)
}

func apiMessage(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Message != "" {
		return se.Status().Message
	}
	return err.Error()
}

// isSchemaError says the API server refused an object for its content:
// invalid values (422), fields strict validation does not know (400), or
// fields server-side apply finds no schema for (500, "field not declared
// in schema").
func isSchemaError(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		(apierrors.IsInternalError(err) && strings.Contains(err.Error(), "not declared in schema"))
}

// schemaError explains a Topology the cluster's CRD refused: each field
// with what is wrong, and the fix.
func schemaError(err error, what string) error {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return err
	}
	st := se.Status()
	if st.Details == nil || len(st.Details.Causes) == 0 {
		// Server-side apply names the field after the object:
		// "failed to create typed patch object (ns/name; gvk): .spec.x: field not declared in schema".
		if _, rest, ok := strings.Cut(st.Message, "): ."); ok {
			st.Message = rest
		}
	}
	var causes []string
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			switch {
			case c.Field != "" && !strings.Contains(c.Message, c.Field):
				causes = append(causes, c.Field+": "+c.Message)
			default:
				causes = append(causes, c.Message)
			}
		}
	}
	if len(causes) == 0 {
		causes = append(causes, st.Message)
	}
	return exitcode.Envf("the cluster refused %s (%d %s): %s. labctl writes the Topology of clabernetes %s (%s): upgrade the cluster's clabernetes CRDs to %s or later ('labctl doctor --runtime clabernetes' compares them)",
		what, st.Code, st.Reason, strings.Join(causes, "; "), SupportedVersion, APIVersion, SupportedVersion)
}

// apply creates or updates the manifests by server-side apply: labctl owns
// the fields it sends, the controller keeps the status it writes, and the
// API server rejects a field its CRD does not know (strict validation)
// instead of dropping it silently. The ConfigMaps are owned by the
// Topology, so deleting the Topology by hand removes them too.
func apply(ctx context.Context, c *Cluster, m *Manifests) (*unstructured.Unstructured, error) {
	opts := metav1.PatchOptions{FieldManager: FieldManager, Force: ptr(true), FieldValidation: "Strict"}
	topo := m.Topology.DeepCopy()
	topo.SetNamespace(c.Namespace)
	data, err := json.Marshal(topo.Object)
	if err != nil {
		return nil, err
	}
	name := topo.GetName()
	got, err := c.topologies().Patch(ctx, name, types.ApplyPatchType, data, opts)
	switch {
	case apierrors.IsNotFound(err):
		return nil, exitcode.Envf("clabernetes is not installed in %s: the API server has no %s resource (install it: helm upgrade --install clabernetes oci://ghcr.io/srl-labs/clabernetes/clabernetes --version %s; 'labctl doctor --runtime clabernetes' checks)", c.Where(), TopologyCRD, strings.TrimPrefix(SupportedVersion, "v"))
	case isSchemaError(err):
		return nil, schemaError(err, "Topology "+name)
	case err != nil:
		return nil, apiError(err, "apply Topology "+name, c)
	}
	owner := []any{map[string]any{"apiVersion": APIVersion, "kind": "Topology", "name": name, "uid": string(got.GetUID())}}
	for _, cm := range m.ConfigMaps {
		cm = cm.DeepCopy()
		cm.SetNamespace(c.Namespace)
		_ = unstructured.SetNestedSlice(cm.Object, owner, "metadata", "ownerReferences")
		data, err := json.Marshal(cm.Object)
		if err != nil {
			return nil, err
		}
		if _, err := c.Dynamic.Resource(configMapGVR).Namespace(c.Namespace).Patch(ctx, cm.GetName(), types.ApplyPatchType, data, opts); err != nil {
			if isSchemaError(err) {
				return nil, schemaError(err, "ConfigMap "+cm.GetName())
			}
			return nil, apiError(err, "apply ConfigMap "+cm.GetName(), c)
		}
	}
	return got, nil
}

// TopologyStatus is the part of a Topology's status labctl reads.
type TopologyStatus struct {
	Kind          string            `json:"kind"`
	TopologyReady bool              `json:"topologyReady"`
	TopologyState string            `json:"topologyState"`
	NodeReadiness map[string]string `json:"nodeReadiness"`
	ExposedPorts  map[string]*struct {
		LoadBalancerAddress string `json:"loadBalancerAddress"`
	} `json:"exposedPorts"`
	NodeProbeStatuses map[string]map[string]string `json:"nodeProbeStatuses"`
}

// reconciled says a controller has written the status at all.
func (s *TopologyStatus) reconciled() bool {
	return s.Kind != "" || s.TopologyState != "" || len(s.NodeReadiness) > 0
}

// ReadStatus decodes a Topology's status.
func ReadStatus(obj *unstructured.Unstructured) (*TopologyStatus, error) {
	st := &TopologyStatus{}
	raw, ok := obj.Object["status"]
	if !ok || raw == nil {
		return st, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("the status of Topology %s does not have the shape of clabernetes %s: %w", obj.GetName(), SupportedVersion, err)
	}
	return st, nil
}

// notReady lists the lab's nodes that the status does not report ready.
func notReady(g *fabric.Graph, st *TopologyStatus) []string {
	var out []string
	for _, n := range g.Nodes {
		if st.NodeReadiness[n.Name] != "ready" {
			out = append(out, n.Name)
		}
	}
	return out
}

// Up implements runtime.Runtime: check the cluster (reachable, clabernetes
// installed, the namespace, room for the lab's estimate), apply the
// ConfigMaps and the Topology, wait until clabernetes reports every node
// ready, then check the hosts' soft-RoCE devices and push every switch's
// config as the containerlab runtime does. An up that created the
// Topology and is cancelled (Ctrl-C) deletes it again, so nothing keeps
// running in the cluster; an up that fails otherwise leaves it for
// inspection ('labctl down' removes it).
func (r *Runtime) Up(ctx context.Context, l *runtime.Lab) error {
	say := progress(l)
	if l.DryRun {
		m, err := BuildManifests(l, r.Target.Namespace)
		if err != nil {
			return err
		}
		total, _ := Estimate(l.Graph)
		say(fmt.Sprintf("would apply %s and Topology %s (%s, requesting %d MiB and %.1f CPUs in all) with server-side apply", plural.N(len(m.ConfigMaps), "ConfigMap"), m.Topology.GetName(), plural.N(len(l.Graph.Nodes), "node"), total.MemoryMiB, total.CPUs))
		say("would wait until clabernetes reports every node ready, then check the hosts' soft-RoCE devices (exec into the launcher pods) and push each switch's config over a port-forward to its SSH port")
		return nil
	}
	c, t, err := r.cluster(l)
	if err != nil {
		return err
	}
	if r.checked != l {
		if err := r.check(ctx, c, l); err != nil {
			return err
		}
	}
	r.checked = nil
	m, err := BuildManifests(l, c.Namespace)
	if err != nil {
		return err
	}
	if err := writeRecord(l, t.Kubeconfig, c); err != nil {
		return err
	}
	_, err = c.topologies().Get(ctx, m.Topology.GetName(), metav1.GetOptions{})
	// A cancelled up removes the lab only if it created it: cancelling the
	// re-up of a running lab must not delete the lab.
	created := apierrors.IsNotFound(err)
	fail := func(err error) error {
		if !created {
			return err
		}
		return r.cleanIfCancelled(ctx, c, l, err)
	}
	say(fmt.Sprintf("applying Topology %s (%d nodes) in %s", m.Topology.GetName(), len(l.Graph.Nodes), c.Where()))
	if _, err := apply(ctx, c, m); err != nil {
		return fail(err)
	}
	if err := r.waitReady(ctx, c, l, say); err != nil {
		return fail(err)
	}
	tr, err := r.transport(ctx, c, l)
	if err != nil {
		return fail(err)
	}
	defer tr.Close()
	if err := r.live(c).Configure(ctx, l, tr); err != nil {
		return fail(err)
	}
	return nil
}

// Preflight implements runtime.Preflighter: the kubeconfig, the API
// server, clabernetes' CRD, the namespace and room for the lab's estimate,
// and that the lab is not still up in another cluster or namespace. It
// applies nothing; an Up of the same lab that follows does not check again.
func (r *Runtime) Preflight(ctx context.Context, l *runtime.Lab) error {
	c, _, err := r.cluster(l)
	if err != nil {
		return err
	}
	if err := r.check(ctx, c, l); err != nil {
		return err
	}
	r.checked = l
	return nil
}

// check is what Preflight checks once connected.
func (r *Runtime) check(ctx context.Context, c *Cluster, l *runtime.Lab) error {
	if err := r.notElsewhere(ctx, c, l); err != nil {
		return err
	}
	return r.preflight(ctx, c, l)
}

// notElsewhere refuses to bring a lab up in one cluster or namespace while
// its Topology is still in the one its record names: the record would
// then point away from a lab that keeps running.
func (r *Runtime) notElsewhere(ctx context.Context, c *Cluster, l *runtime.Lab) error {
	rec, err := ReadRecord(l.Dir)
	if err != nil || rec == nil || (rec.Namespace == c.Namespace && rec.Context == c.Context && rec.Server == c.Server) {
		return err
	}
	connect := r.Connect
	if connect == nil {
		connect = Connect
	}
	there := fmt.Sprintf("namespace %s of context %s (%s)", rec.Namespace, orDash(rec.Context), rec.Server)
	old, err := connect(rec.Target)
	if err == nil {
		_, err = old.Dynamic.Resource(TopologyGVR).Namespace(rec.Namespace).Get(ctx, rec.Topology, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
	}
	why := "is still there"
	if err != nil {
		why = "may still be there (" + apiMessage(err) + ")"
	}
	return exitcode.Usagef("lab %s was brought up in %s and its Topology %s %s: run 'labctl down %s' first, or remove %s if that cluster is gone", l.Name, there, rec.Topology, why, l.Name, RecordFile)
}

// cleanIfCancelled deletes what an up applied when the up was cancelled,
// and returns err (with what the clean-up did).
func (r *Runtime) cleanIfCancelled(ctx context.Context, c *Cluster, l *runtime.Lab, err error) error {
	if ctx.Err() == nil {
		return err
	}
	say := progress(l)
	say(fmt.Sprintf("up of %s cancelled: deleting Topology %s", l.Name, TopologyName(l.Name)))
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if derr := r.remove(cctx, c, l, say, false); derr != nil {
		return errors.Join(err, fmt.Errorf("remove the lab after the cancelled up: %w (run 'labctl down %s')", derr, l.Name))
	}
	return fmt.Errorf("%w (the cancelled up removed Topology %s)", err, TopologyName(l.Name))
}

// waitReady polls the Topology until its status says topologyReady. It
// names the nodes not ready yet as that set changes, stops early when no
// controller writes any status (clabernetes is not running) or when
// clabernetes gives up on the deployment, and on timeout says what the
// launcher pods of the nodes not ready are doing.
func (r *Runtime) waitReady(ctx context.Context, c *Cluster, l *runtime.Lab, say func(string)) error {
	topo := TopologyName(l.Name)
	ready := orDefault(r.ReadyTimeout, 20*time.Minute)
	ctrl := min(orDefault(r.ControllerTimeout, 2*time.Minute), ready)
	every := orDefault(r.PollInterval, 2*time.Second)
	start := time.Now()
	last := ""
	for {
		obj, err := c.topologies().Get(ctx, topo, metav1.GetOptions{})
		if err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("the Topology %s was deleted in %s while labctl waited for it", topo, c.Where())
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return apiError(err, "read Topology "+topo, c)
		}
		st, err := ReadStatus(obj)
		if err != nil {
			return err
		}
		waiting := notReady(l.Graph, st)
		if st.TopologyReady && len(waiting) == 0 {
			say(fmt.Sprintf("Topology %s: all %d nodes ready (%s)", topo, len(l.Graph.Nodes), time.Since(start).Round(time.Second)))
			return nil
		}
		elapsed := time.Since(start)
		if !st.reconciled() && elapsed >= ctrl {
			return exitcode.Envf("Topology %s is applied in %s, but no clabernetes controller has reconciled it in %s (its status is still empty): labctl stops here. Check that clabernetes' manager runs ('kubectl get pods -A -l clabernetes/app=clabernetes'); 'labctl down %s' removes the Topology", topo, c.Where(), ctrl, l.Name)
		}
		if st.TopologyState == "deployfailed" {
			return exitcode.Envf("clabernetes could not deploy Topology %s (state deployfailed); nodes not ready: %s. %s", topo, nameList(waiting), r.diagnose(ctx, c, topo, waiting))
		}
		line := fmt.Sprintf("Topology %s: %d of %d nodes ready; waiting for %s", topo, len(l.Graph.Nodes)-len(waiting), len(l.Graph.Nodes), nameList(waiting))
		if !st.reconciled() {
			line = fmt.Sprintf("Topology %s: applied; waiting for the clabernetes controller to reconcile it", topo)
		}
		if line != last {
			say(fmt.Sprintf("%s (%s)", line, elapsed.Round(time.Second)))
			last = line
		}
		if elapsed >= ready {
			return exitcode.Envf("Topology %s was not ready after %s; nodes not ready: %s. %s (raise --timeout, or see 'labctl status %s')", topo, ready, nameList(waiting), r.diagnose(ctx, c, topo, waiting), l.Name)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}

// diagnose says why nodes are not ready, from their launcher pods: none
// (the controller made no Deployment), unschedulable, or a container
// waiting (image pull, crash loop).
func (r *Runtime) diagnose(ctx context.Context, c *Cluster, topo string, nodes []string) string {
	_, pods, err := launcherPods(ctx, c, topo)
	if err != nil {
		return "The launcher pods could not be listed: " + err.Error()
	}
	byNode := map[string]unstructured.Unstructured{}
	for _, p := range pods {
		byNode[p.GetLabels()[LabelTopologyNode]] = p
	}
	if len(pods) == 0 {
		return "No launcher pod exists for it: the clabernetes controller has not created the nodes' Deployments, or the cluster cannot create their pods ('kubectl get deploy,rs,pods -l " + LabelTopologyOwner + "=" + topo + "')"
	}
	var notes []string
	for _, n := range nodes {
		if len(notes) == 5 {
			notes = append(notes, fmt.Sprintf("and %d more", len(nodes)-5))
			break
		}
		p, ok := byNode[n]
		if !ok {
			notes = append(notes, n+": no launcher pod")
			continue
		}
		notes = append(notes, n+": "+podProblem(p))
	}
	return "Launcher pods: " + strings.Join(notes, "; ")
}

// podProblem summarises why a pod is not ready.
func podProblem(p unstructured.Unstructured) string {
	phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
	if phase == "" {
		phase = "no status"
	}
	what := fmt.Sprintf("pod %s %s", p.GetName(), phase)
	conds, _, _ := unstructured.NestedSlice(p.Object, "status", "conditions")
	for _, cd := range conds {
		m, _ := cd.(map[string]any)
		if m["type"] == "PodScheduled" && m["status"] == "False" {
			return fmt.Sprintf("%s, not scheduled: %v", what, m["message"])
		}
	}
	if nodeName, _, _ := unstructured.NestedString(p.Object, "spec", "nodeName"); nodeName == "" {
		return what + ", not scheduled to any cluster node yet"
	}
	css, _, _ := unstructured.NestedSlice(p.Object, "status", "containerStatuses")
	for _, cs := range css {
		m, _ := cs.(map[string]any)
		if w, ok, _ := unstructured.NestedMap(m, "state", "waiting"); ok {
			return fmt.Sprintf("%s, container waiting: %v %v", what, w["reason"], w["message"])
		}
	}
	return what
}

// Status implements runtime.Runtime from the Topology's status: a node is
// running when clabernetes reports it ready, stopped when it reports it
// not ready, missing when the Topology or its entry is absent.
func (r *Runtime) Status(ctx context.Context, l *runtime.Lab) (*runtime.Status, error) {
	st := &runtime.Status{Lab: l.Name, Runtime: Name, NOS: l.NOS, State: runtime.StateDown}
	c, _, err := r.cluster(l)
	if err != nil {
		if neverApplied(l) {
			StatusFromTopology(st, l.Graph, false, &TopologyStatus{})
			return st, nil
		}
		return nil, err
	}
	topo := TopologyName(l.Name)
	obj, err := c.topologies().Get(ctx, topo, metav1.GetOptions{})
	var ts *TopologyStatus
	switch {
	case apierrors.IsNotFound(err):
		ts = &TopologyStatus{}
	case err != nil:
		return nil, apiError(err, "read Topology "+topo, c)
	default:
		if ts, err = ReadStatus(obj); err != nil {
			return nil, err
		}
	}
	StatusFromTopology(st, l.Graph, obj != nil && err == nil, ts)
	return st, nil
}

// StatusFromTopology fills st's nodes and state from a Topology's status;
// exists says whether the Topology is in the cluster.
func StatusFromTopology(st *runtime.Status, g *fabric.Graph, exists bool, ts *TopologyStatus) {
	running := 0
	for _, n := range g.Nodes {
		ns := runtime.NodeStatus{Name: n.Name, Role: string(n.Role), Kind: n.Kind, State: runtime.NodeMissing}
		switch ts.NodeReadiness[n.Name] {
		case "ready":
			ns.State = runtime.NodeRunning
			running++
		case "":
		default:
			ns.State = runtime.NodeStopped
		}
		if ep := ts.ExposedPorts[n.Name]; ep != nil {
			ns.Mgmt = ep.LoadBalancerAddress
		}
		st.Nodes = append(st.Nodes, ns)
	}
	switch {
	case !exists:
		st.State = runtime.StateDown
	case ts.TopologyState == "deployfailed":
		st.State = runtime.StateFailed
	case running == len(g.Nodes) && running > 0:
		st.State = runtime.StateUp
	case ts.TopologyState == "degraded" || (running > 0 && ts.TopologyState != "deploying" && ts.TopologyState != ""):
		st.State = runtime.StateDegraded
	default:
		st.State = runtime.StateDeploying
	}
}

// Down implements runtime.Runtime: delete the lab's ConfigMaps and its
// Topology, then wait until the Deployments and Services clabernetes made
// for it are gone (the cluster's garbage collector removes them after the
// Topology). A lab not in the cluster is down.
func (r *Runtime) Down(ctx context.Context, l *runtime.Lab) error {
	say := progress(l)
	if l.DryRun {
		say(fmt.Sprintf("would delete Topology %s and the ConfigMaps labelled %s=%s, then wait for the Deployments and Services labelled %s=%s to go", TopologyName(l.Name), LabelLab, l.Name, LabelTopologyOwner, TopologyName(l.Name)))
		return nil
	}
	c, _, err := r.cluster(l)
	if err != nil {
		if neverApplied(l) {
			say(fmt.Sprintf("lab %s was never applied to a cluster from here (no %s): nothing to delete", l.Name, RecordFile))
			return nil
		}
		return err
	}
	return r.remove(ctx, c, l, say, true)
}

// neverApplied says that no up of l got as far as the cluster from this
// work directory: Up writes the lab's record just before it applies
// anything. Down and Status then need no cluster (a lab whose up stopped
// at a missing kubeconfig can be taken down without one).
func neverApplied(l *runtime.Lab) bool {
	rec, err := ReadRecord(l.Dir)
	return err == nil && rec == nil
}

// remove deletes the lab's objects and, when wait, waits for what the
// controller made for it to go.
func (r *Runtime) remove(ctx context.Context, c *Cluster, l *runtime.Lab, say func(string), wait bool) error {
	topo := TopologyName(l.Name)
	cms := c.Dynamic.Resource(configMapGVR).Namespace(c.Namespace)
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: LabelLab + "=" + l.Name + "," + LabelManagedBy + "=" + ManagedBy})
	if err != nil {
		return apiError(err, "list the ConfigMaps of lab "+l.Name, c)
	}
	for _, cm := range list.Items {
		if err := cms.Delete(ctx, cm.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return apiError(err, "delete ConfigMap "+cm.GetName(), c)
		}
	}
	bg := metav1.DeletePropagationBackground
	err = c.topologies().Delete(ctx, topo, metav1.DeleteOptions{PropagationPolicy: &bg})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil && !isNoCRD(err):
		return apiError(err, "delete Topology "+topo, c)
	case err == nil:
		say(fmt.Sprintf("deleted Topology %s in %s", topo, c.Where()))
	}
	if !wait {
		return nil
	}
	return r.waitGone(ctx, c, topo, say)
}

// isNoCRD says the API server does not know the Topology resource at all
// (clabernetes was uninstalled): nothing of it can be left.
func isNoCRD(err error) bool {
	var se apierrors.APIStatus
	return apierrors.IsNotFound(err) || (errors.As(err, &se) && se.Status().Details == nil && se.Status().Code == 404)
}

// waitGone waits until the Topology and the Deployments and Services its
// controller made are gone.
func (r *Runtime) waitGone(ctx context.Context, c *Cluster, topo string, say func(string)) error {
	timeout := orDefault(r.DeleteTimeout, 5*time.Minute)
	every := orDefault(r.PollInterval, 2*time.Second)
	start := time.Now()
	sel := metav1.ListOptions{LabelSelector: LabelTopologyOwner + "=" + topo}
	last := ""
	for {
		var left []string
		if _, err := c.topologies().Get(ctx, topo, metav1.GetOptions{}); err == nil {
			left = append(left, "Topology "+topo+" (being deleted)")
		} else if !apierrors.IsNotFound(err) {
			return apiError(err, "read Topology "+topo, c)
		}
		for _, k := range []struct {
			kind string
			list func() (*unstructured.UnstructuredList, error)
		}{
			{"Deployment", func() (*unstructured.UnstructuredList, error) {
				return c.Dynamic.Resource(deploymentGVR).Namespace(c.Namespace).List(ctx, sel)
			}},
			{"Service", func() (*unstructured.UnstructuredList, error) {
				return c.Dynamic.Resource(serviceGVR).Namespace(c.Namespace).List(ctx, sel)
			}},
		} {
			list, err := k.list()
			if err != nil {
				return apiError(err, "list the "+k.kind+"s of Topology "+topo, c)
			}
			var names []string
			for _, o := range list.Items {
				names = append(names, o.GetName())
			}
			slices.Sort(names)
			if len(names) > 0 {
				left = append(left, fmt.Sprintf("%ss %s", k.kind, nameList(names)))
			}
		}
		if len(left) == 0 {
			return nil
		}
		line := "waiting for " + strings.Join(left, "; ") + " to go"
		if line != last {
			say(line)
			last = line
		}
		if time.Since(start) >= timeout {
			return exitcode.Envf("%s still exist %s after Topology %s was deleted in %s: the cluster's garbage collector (kube-controller-manager) removes what clabernetes made for a Topology; check it runs, or delete them by hand ('kubectl delete deploy,svc -l %s=%s')", strings.Join(left, "; "), timeout, topo, c.Where(), LabelTopologyOwner, topo)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}

var _ runtime.VariantChecker = (*Runtime)(nil)

// CheckVariant implements runtime.VariantChecker with the containerlab
// runtime's checks: the variants a live lab cannot run are the same.
func (r *Runtime) CheckVariant(l *runtime.Lab, v runtime.VariantSpec) error {
	return clab.CheckVariant(l, v)
}

// RunVariant implements runtime.Runtime with the containerlab runtime's
// code (variant pushes, perftest, counters, the simulated twin), reaching
// the nodes through the Kubernetes API.
func (r *Runtime) RunVariant(ctx context.Context, l *runtime.Lab, v runtime.VariantSpec) (*results.Variant, error) {
	c, _, err := r.cluster(l)
	if err != nil {
		return nil, err
	}
	return r.live(c).RunVariant(ctx, l, v)
}

// LinksUpWhateverFEC implements runtime.FECBlind as the live lab it runs
// (clab.Runtime) does.
func (r *Runtime) LinksUpWhateverFEC() bool { return r.Live.LinksUpWhateverFEC() }
