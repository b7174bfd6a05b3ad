package clabernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab/doctor"
)

// installFix is how clabernetes is installed (its documented Helm chart).
var installFix = "helm upgrade --install clabernetes oci://ghcr.io/srl-labs/clabernetes/clabernetes --version " + strings.TrimPrefix(SupportedVersion, "v") + " --namespace c9s --create-namespace"

// schemaPaths are the fields of the Topology CRD labctl writes or reads,
// as paths through its openAPIV3Schema ("*" is a map's values). A CRD
// without one of them would drop or refuse what labctl sends.
var schemaPaths = []string{
	"spec.definition.containerlab",
	"spec.naming",
	"spec.expose.exposeType",
	"spec.deployment.resources",
	"spec.deployment.filesFromConfigMap.*.filePath",
	"spec.deployment.filesFromConfigMap.*.configMapName",
	"spec.deployment.filesFromConfigMap.*.configMapPath",
	"spec.statusProbes.enabled",
	"spec.statusProbes.excludedNodes",
	"spec.statusProbes.nodeProbeConfigurations.*.tcpProbeConfiguration.port",
	"status.topologyReady",
	"status.topologyState",
	"status.nodeReadiness",
}

// schemaHas reports whether an openAPIV3Schema has the field path.
func schemaHas(schema map[string]any, path string) bool {
	cur := schema
	for _, part := range strings.Split(path, ".") {
		var next map[string]any
		var ok bool
		if part == "*" {
			next, ok = cur["additionalProperties"].(map[string]any)
		} else {
			props, _ := cur["properties"].(map[string]any)
			next, ok = props[part].(map[string]any)
		}
		if !ok {
			return false
		}
		// Step through a list of objects to its items.
		if items, isList := next["items"].(map[string]any); isList && next["type"] == "array" {
			if _, objects := items["properties"]; objects {
				next = items
			}
		}
		cur = next
	}
	return true
}

// missingSchemaPaths lists the paths of schemaPaths the CRD's served
// v1alpha1 version lacks; an error when it serves no v1alpha1.
func missingSchemaPaths(crd *unstructured.Unstructured) ([]string, error) {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if vm["name"] != Version {
			continue
		}
		if served, _ := vm["served"].(bool); !served {
			return nil, fmt.Errorf("the CRD does not serve %s", Version)
		}
		schema, _, _ := unstructured.NestedMap(vm, "schema", "openAPIV3Schema")
		var missing []string
		for _, p := range schemaPaths {
			if !schemaHas(schema, p) {
				missing = append(missing, p)
			}
		}
		return missing, nil
	}
	return nil, fmt.Errorf("the CRD has no version %s", Version)
}

func checkAPI(ctx context.Context, c *Cluster) doctor.Check {
	v, err := c.Reachable(ctx)
	if err != nil {
		return doctor.Check{Name: "api-server", Status: doctor.Fail, Blocks: true, Detail: err.Error(),
			Fix: "point --kubeconfig/--context at a running cluster, or renew the credentials"}
	}
	return doctor.Check{Name: "api-server", Status: doctor.Pass, Detail: fmt.Sprintf("Kubernetes %s at %s (context %s)", v, c.Server, orDash(c.Context))}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// checkCRD looks for the Topology CRD: established, serving v1alpha1, with
// every field labctl uses. Without read access to CRDs it falls back to
// API discovery, which says the resource is served but not its schema.
func checkCRD(ctx context.Context, c *Cluster) doctor.Check {
	crd, err := c.Dynamic.Resource(crdGVR).Get(ctx, TopologyCRD, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return doctor.Check{Name: "crd", Status: doctor.Fail, Blocks: true, Detail: "clabernetes is not installed: no CRD " + TopologyCRD, Fix: installFix}
	case apierrors.IsForbidden(err):
		list, derr := c.serverResources(ctx, APIVersion)
		if derr != nil {
			return doctor.Check{Name: "crd", Status: doctor.Fail, Blocks: true, Detail: fmt.Sprintf("the API server serves no %s (and CRDs cannot be read: forbidden)", APIVersion), Fix: installFix}
		}
		for _, r := range list.APIResources {
			if r.Name == "topologies" {
				return doctor.Check{Name: "crd", Status: doctor.Warn, Detail: fmt.Sprintf("%s topologies is served; its schema was not compared (reading CRDs is forbidden)", APIVersion),
					Fix: "allow get on customresourcedefinitions to let doctor compare the schema"}
			}
		}
		return doctor.Check{Name: "crd", Status: doctor.Fail, Blocks: true, Detail: APIVersion + " serves no topologies", Fix: installFix}
	case err != nil:
		return doctor.Check{Name: "crd", Status: doctor.Fail, Blocks: true, Detail: "read CRD " + TopologyCRD + ": " + apiMessage(err)}
	}
	established := false
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, cd := range conds {
		m, _ := cd.(map[string]any)
		established = established || (m["type"] == "Established" && m["status"] == "True")
	}
	gen := crd.GetAnnotations()["controller-gen.kubebuilder.io/version"]
	missing, err := missingSchemaPaths(crd)
	switch {
	case err != nil:
		return doctor.Check{Name: "crd", Status: doctor.Fail, Blocks: true, Detail: TopologyCRD + ": " + err.Error(), Fix: "upgrade clabernetes: " + installFix}
	case len(missing) > 0:
		return doctor.Check{Name: "crd", Status: doctor.Fail, Blocks: true,
			Detail: fmt.Sprintf("%s lacks fields labctl uses: %s (an older clabernetes than %s?)", TopologyCRD, strings.Join(missing, ", "), SupportedVersion),
			Fix:    "upgrade clabernetes: " + installFix}
	case !established:
		return doctor.Check{Name: "crd", Status: doctor.Fail, Blocks: true, Detail: TopologyCRD + " is not established yet", Fix: "wait a few seconds, or look at the CRD's conditions"}
	}
	return doctor.Check{Name: "crd", Status: doctor.Pass, Detail: fmt.Sprintf("%s serves %s with every field labctl uses (controller-gen %s)", TopologyCRD, Version, orDash(gen))}
}

// checkController looks for clabernetes' manager Deployment in any
// namespace and reports its image, which carries the release.
func checkController(ctx context.Context, c *Cluster) doctor.Check {
	list, err := c.Dynamic.Resource(deploymentGVR).List(ctx, metav1.ListOptions{LabelSelector: "clabernetes/component=manager"})
	if err != nil {
		return doctor.Check{Name: "controller", Status: doctor.Warn, Detail: "cannot list Deployments in all namespaces to find clabernetes' manager: " + apiMessage(err),
			Fix: "check by hand: kubectl get deploy -A -l clabernetes/component=manager"}
	}
	if len(list.Items) == 0 {
		return doctor.Check{Name: "controller", Status: doctor.Fail, Blocks: true, Detail: "no clabernetes manager Deployment (label clabernetes/component=manager) in any namespace: nothing would deploy a Topology", Fix: installFix}
	}
	var found []string
	ready := false
	for _, d := range list.Items {
		img := ""
		cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		if len(cs) > 0 {
			m, _ := cs[0].(map[string]any)
			img, _ = m["image"].(string)
		}
		n, _, _ := unstructured.NestedInt64(d.Object, "status", "readyReplicas")
		ready = ready || n > 0
		found = append(found, fmt.Sprintf("%s/%s (%s, %d ready)", d.GetNamespace(), d.GetName(), orDash(img), n))
	}
	if !ready {
		return doctor.Check{Name: "controller", Status: doctor.Fail, Blocks: true, Detail: "clabernetes' manager has no ready replica: " + strings.Join(found, ", "), Fix: "kubectl describe the manager's pods"}
	}
	return doctor.Check{Name: "controller", Status: doctor.Pass, Detail: "clabernetes manager " + strings.Join(found, ", ")}
}

func checkNamespace(ctx context.Context, c *Cluster) doctor.Check {
	_, err := c.Dynamic.Resource(namespaceGVR).Get(ctx, c.Namespace, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return doctor.Check{Name: "namespace", Status: doctor.Fail, Blocks: true, Detail: "namespace " + c.Namespace + " does not exist", Fix: "kubectl create namespace " + c.Namespace + ", or pass --namespace"}
	case apierrors.IsForbidden(err):
		return doctor.Check{Name: "namespace", Status: doctor.Warn, Detail: "namespace " + c.Namespace + " cannot be read (forbidden); labctl will find out when it applies", Fix: ""}
	case err != nil:
		return doctor.Check{Name: "namespace", Status: doctor.Fail, Blocks: true, Detail: "read namespace " + c.Namespace + ": " + apiMessage(err)}
	}
	return doctor.Check{Name: "namespace", Status: doctor.Pass, Detail: "namespace " + c.Namespace + " exists"}
}

// access is one thing labctl does in the cluster.
type access struct {
	verb, group, resource, subresource string
	clusterWide                        bool
	// optional: without it a check is skipped, nothing breaks.
	optional bool
}

func (a access) String() string {
	r := a.resource
	if a.group != "" {
		r += "." + a.group
	}
	if a.subresource != "" {
		r += "/" + a.subresource
	}
	return a.verb + " " + r
}

// accesses is everything labctl does with the clabernetes runtime.
var accesses = []access{
	{verb: "get", group: Group, resource: "topologies"},
	{verb: "create", group: Group, resource: "topologies"},
	{verb: "patch", group: Group, resource: "topologies"},
	{verb: "delete", group: Group, resource: "topologies"},
	{verb: "list", resource: "configmaps"},
	{verb: "create", resource: "configmaps"},
	{verb: "patch", resource: "configmaps"},
	{verb: "delete", resource: "configmaps"},
	{verb: "list", resource: "pods"},
	{verb: "create", resource: "pods", subresource: "exec"},
	{verb: "create", resource: "pods", subresource: "portforward"},
	{verb: "get", resource: "services"},
	{verb: "list", resource: "services"},
	{verb: "list", group: "apps", resource: "deployments"},
	{verb: "list", resource: "nodes", clusterWide: true, optional: true},
}

// checkRBAC asks the API server (SelfSubjectAccessReview) whether labctl's
// user may do each thing the runtime does in the namespace.
func checkRBAC(ctx context.Context, c *Cluster) doctor.Check {
	var denied, optional []string
	for _, a := range accesses {
		attrs := map[string]any{"verb": a.verb, "group": a.group, "resource": a.resource}
		if a.subresource != "" {
			attrs["subresource"] = a.subresource
		}
		if !a.clusterWide {
			attrs["namespace"] = c.Namespace
		}
		review := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
			"spec": map[string]any{"resourceAttributes": attrs},
		}}
		got, err := c.Dynamic.Resource(accessGVR).Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return doctor.Check{Name: "rbac", Status: doctor.Warn, Detail: "cannot review labctl's permissions: " + apiMessage(err), Fix: "kubectl auth can-i --list -n " + c.Namespace}
		}
		if ok, _, _ := unstructured.NestedBool(got.Object, "status", "allowed"); !ok {
			if a.optional {
				optional = append(optional, a.String())
			} else {
				denied = append(denied, a.String())
			}
		}
	}
	if len(denied) > 0 {
		return doctor.Check{Name: "rbac", Status: doctor.Fail, Blocks: true,
			Detail: fmt.Sprintf("in namespace %s labctl may not: %s", c.Namespace, strings.Join(denied, ", ")),
			Fix:    "bind labctl's user to a Role with those verbs in " + c.Namespace + " (see docs/kubernetes.md)"}
	}
	if len(optional) > 0 {
		return doctor.Check{Name: "rbac", Status: doctor.Warn,
			Detail: fmt.Sprintf("every permission labctl needs in namespace %s; but not %s, so the cluster's capacity cannot be checked", c.Namespace, strings.Join(optional, ", ")),
			Fix:    "a ClusterRole with list on nodes lets labctl compare the lab's estimate with the cluster"}
	}
	return doctor.Check{Name: "rbac", Status: doctor.Pass, Detail: fmt.Sprintf("labctl may do all it needs in namespace %s (%d permissions reviewed)", c.Namespace, len(accesses))}
}

// Capacity is what the cluster's schedulable nodes can hold.
type Capacity struct {
	Nodes int
	// MemoryMiB and CPUs are the schedulable nodes' allocatable in all;
	// LargestMiB the largest one node has.
	MemoryMiB, LargestMiB int
	CPUs                  float64
	// Kernels are the nodes' kernel versions (soft-RoCE needs rdma_rxe).
	Kernels []string
}

// ClusterCapacity sums the allocatable memory and CPU of the nodes that
// take pods (Ready, not cordoned). It is allocatable before what other
// pods request: the API has no cheaper view of free room.
func ClusterCapacity(ctx context.Context, c *Cluster) (*Capacity, error) {
	list, err := c.Dynamic.Resource(nodeGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	capa := &Capacity{}
	for _, n := range list.Items {
		if u, _, _ := unstructured.NestedBool(n.Object, "spec", "unschedulable"); u {
			continue
		}
		ready := false
		conds, _, _ := unstructured.NestedSlice(n.Object, "status", "conditions")
		for _, cd := range conds {
			m, _ := cd.(map[string]any)
			ready = ready || (m["type"] == "Ready" && m["status"] == "True")
		}
		if !ready {
			continue
		}
		mem, _, _ := unstructured.NestedString(n.Object, "status", "allocatable", "memory")
		cpu, _, _ := unstructured.NestedString(n.Object, "status", "allocatable", "cpu")
		mq, err1 := resource.ParseQuantity(mem)
		cq, err2 := resource.ParseQuantity(cpu)
		if err1 != nil || err2 != nil {
			continue
		}
		mib := int(mq.Value() / (1 << 20))
		capa.Nodes++
		capa.MemoryMiB += mib
		capa.LargestMiB = max(capa.LargestMiB, mib)
		capa.CPUs += float64(cq.MilliValue()) / 1000
		if k, _, _ := unstructured.NestedString(n.Object, "status", "nodeInfo", "kernelVersion"); k != "" && !slices.Contains(capa.Kernels, k) {
			capa.Kernels = append(capa.Kernels, k)
		}
	}
	slices.Sort(capa.Kernels)
	return capa, nil
}

// checkCapacity compares the lab's estimate with the cluster's schedulable
// allocatable memory and CPU, and the largest pod with the largest node.
func checkCapacity(ctx context.Context, c *Cluster, g *fabric.Graph) doctor.Check {
	capa, err := ClusterCapacity(ctx, c)
	if err != nil {
		return doctor.Check{Name: "capacity", Status: doctor.Warn, Detail: "cannot list the cluster's nodes: " + apiMessage(err), Fix: "allow list on nodes, or compare by hand with the lab's estimate"}
	}
	have := fmt.Sprintf("%s with %d MiB and %.1f CPUs allocatable", plural.N(capa.Nodes, "schedulable node"), capa.MemoryMiB, capa.CPUs)
	if g == nil {
		return doctor.Check{Name: "capacity", Status: doctor.Pass, Detail: have + " (name a lab with --lab to compare with its estimate)"}
	}
	total, largest := Estimate(g)
	need := fmt.Sprintf("lab %s (%d launcher pods) requests an estimated %d MiB and %.1f CPUs", g.Name, len(g.Nodes), total.MemoryMiB, total.CPUs)
	switch {
	case capa.Nodes == 0:
		return doctor.Check{Name: "capacity", Status: doctor.Fail, Blocks: true, Detail: need + "; the cluster has no Ready, schedulable node", Fix: "add nodes (or uncordon them)"}
	case total.MemoryMiB > capa.MemoryMiB || total.CPUs > capa.CPUs:
		return doctor.Check{Name: "capacity", Status: doctor.Fail, Blocks: true, Detail: need + "; the cluster has " + have, Fix: "add nodes, pick a smaller lab, or use --runtime sim"}
	case largest.MemoryMiB > capa.LargestMiB:
		return doctor.Check{Name: "capacity", Status: doctor.Fail, Blocks: true, Detail: fmt.Sprintf("%s; its largest pod needs %d MiB but the largest node has %d MiB allocatable", need, largest.MemoryMiB, capa.LargestMiB), Fix: "add a bigger node"}
	case total.MemoryMiB > capa.MemoryMiB*4/5:
		return doctor.Check{Name: "capacity", Status: doctor.Warn, Detail: need + "; the cluster has " + have + ": less than 20% spare, before what other pods request", Fix: "free the cluster or add nodes before 'labctl up'"}
	}
	return doctor.Check{Name: "capacity", Status: doctor.Pass, Detail: need + "; the cluster has " + have + " (before what other pods request)"}
}

// checkRXE says what labctl can and cannot know about soft-RoCE on the
// cluster's nodes: the kernels, not whether rdma_rxe is loaded.
func checkRXE(ctx context.Context, c *Cluster) doctor.Check {
	capa, err := ClusterCapacity(ctx, c)
	k := "unknown kernels"
	if err == nil && len(capa.Kernels) > 0 {
		k = "kernels " + strings.Join(capa.Kernels, ", ")
	}
	return doctor.Check{Name: "rdma_rxe", Status: doctor.Warn,
		Detail: "not checked: whether the cluster's nodes (" + k + ") have the rdma_rxe module cannot be seen through the API, and perftest traffic needs it",
		Fix:    "modprobe rdma_rxe on every node that runs host pods (Debian's and most distributions' kernels have it)"}
}

// Doctor checks a cluster for the clabernetes runtime: the API server, the
// clabernetes CRD and controller, the namespace, labctl's permissions, and
// the cluster's allocatable memory and CPU against the lab's estimate
// (when g is not nil).
func Doctor(ctx context.Context, t Target, g *fabric.Graph) *doctor.Report {
	rep := &doctor.Report{Runtime: Name}
	c, err := Connect(t)
	if err != nil {
		rep.Checks = append(rep.Checks, doctor.Check{Name: "kubeconfig", Status: doctor.Fail, Blocks: true, Detail: err.Error(), Fix: "pass --kubeconfig, or set KUBECONFIG"})
		return finish(rep)
	}
	rep.Checks = append(rep.Checks, doctor.Check{Name: "kubeconfig", Status: doctor.Pass, Detail: "context " + orDash(c.Context) + ", namespace " + c.Namespace})
	api := checkAPI(ctx, c)
	rep.Checks = append(rep.Checks, api)
	if api.Status != doctor.Pass {
		return finish(rep)
	}
	rep.Checks = append(rep.Checks, checkCRD(ctx, c), checkController(ctx, c), checkNamespace(ctx, c), checkRBAC(ctx, c), checkCapacity(ctx, c, g), checkRXE(ctx, c))
	return finish(rep)
}

func finish(rep *doctor.Report) *doctor.Report {
	var blocking []string
	for _, c := range rep.Checks {
		if c.Status == doctor.Fail && c.Blocks {
			rep.Blocked = true
			blocking = append(blocking, c.Name)
		}
	}
	if rep.Blocked {
		rep.Summary = fmt.Sprintf("--runtime clabernetes cannot run here (failed: %s); %s: labctl up <lab> --runtime sim", strings.Join(blocking, ", "), doctor.SimWorks)
	} else {
		rep.Summary = "ready for --runtime clabernetes"
	}
	return rep
}

// preflight is what Up checks before it applies anything: the API server,
// clabernetes' CRD, the namespace and room for the lab. Each failure is an
// environment error (exit 3) with its fix.
func (r *Runtime) preflight(ctx context.Context, c *Cluster, l *runtime.Lab) error {
	say := progress(l)
	checks := []doctor.Check{checkAPI(ctx, c)}
	if checks[0].Status == doctor.Pass {
		checks = append(checks, checkCRD(ctx, c), checkNamespace(ctx, c), checkCapacity(ctx, c, l.Graph))
	}
	var fails []string
	for _, ck := range checks {
		switch {
		case ck.Status == doctor.Fail:
			msg := ck.Detail
			if ck.Fix != "" {
				msg += " (fix: " + ck.Fix + ")"
			}
			fails = append(fails, msg)
		case ck.Status == doctor.Warn:
			say(ck.Name + ": " + ck.Detail)
		}
	}
	if len(fails) > 0 {
		return exitcode.Envf("the clabernetes runtime cannot bring up lab %s in %s: %s. Run 'labctl doctor --runtime clabernetes --lab %s' for every check, or use --runtime sim", l.Name, c.Where(), strings.Join(fails, "; "), l.Name)
	}
	return nil
}
