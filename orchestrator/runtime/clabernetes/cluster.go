// Package clabernetes runs labs on Kubernetes with clabernetes: the lab's
// containerlab topology goes into a clabernetes Topology resource, whose
// controller runs each node in its own launcher pod and links the pods with
// VXLAN tunnels. labctl applies the Topology (and a ConfigMap per switch
// startup config), waits for the controller to report every node ready,
// then configures and drives the lab with the containerlab runtime's push,
// traffic and counter code, reaching the nodes through the Kubernetes API:
// exec into the launcher pods for host commands and port-forwards to the
// switches' SSH servers.
package clabernetes

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// The clabernetes API labctl writes: the group and version of the
// Topology resource, and the labels its controller puts on what it creates
// for a Topology (launcher Deployments, their pods, Services).
const (
	Group              = "clabernetes.containerlab.dev"
	Version            = "v1alpha1"
	APIVersion         = Group + "/" + Version
	TopologyCRD        = "topologies." + Group
	LabelTopologyOwner = "clabernetes/topologyOwner"
	LabelTopologyNode  = "clabernetes/topologyNode"
)

// labctl's labels on what it applies.
const (
	LabelLab       = "labctl.lab"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "labctl"
	// FieldManager owns the fields labctl applies (server-side apply), so
	// the controller's status is never overwritten by a re-up.
	FieldManager = "labctl"
)

// Resources labctl reads and writes.
var (
	TopologyGVR   = schema.GroupVersionResource{Group: Group, Version: Version, Resource: "topologies"}
	configMapGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	podGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	serviceGVR    = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	namespaceGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	nodeGVR       = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	deploymentGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	crdGVR        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	accessGVR     = schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectaccessreviews"}
)

// Target names the cluster and namespace a lab runs in. Empty fields come
// from the usual places: $KUBECONFIG or ~/.kube/config, its current
// context and that context's namespace ("default" when it names none).
type Target struct {
	Kubeconfig string `json:"kubeconfig,omitempty"`
	Context    string `json:"context,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
}

// Cluster is a connection to a Kubernetes API server.
type Cluster struct {
	Config    *rest.Config
	Dynamic   dynamic.Interface
	Discovery discovery.DiscoveryInterface
	// Namespace is where labs go; Context and Server say which cluster
	// (Context is "" in a pod using its service account).
	Namespace string
	Context   string
	Server    string
}

// requestTimeout bounds each API request, so an API server that stops
// answering fails a command instead of hanging it.
const requestTimeout = 30 * time.Second

// Connect loads the kubeconfig of t and builds the clients. It does not
// call the API server. No kubeconfig at all is an environment error.
func Connect(t Target) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if t.Kubeconfig != "" {
		rules.ExplicitPath = t.Kubeconfig
	}
	over := &clientcmd.ConfigOverrides{CurrentContext: t.Context}
	over.Context.Namespace = t.Namespace
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, over)
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, exitcode.Envf("no kubeconfig: set KUBECONFIG, create ~/.kube/config, or pass --kubeconfig (the clabernetes runtime needs a Kubernetes cluster with clabernetes installed)")
		}
		if t.Kubeconfig != "" && errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Envf("kubeconfig %s does not exist (fix: pass --kubeconfig with your cluster's kubeconfig, or leave it out for $KUBECONFIG or ~/.kube/config)", t.Kubeconfig)
		}
		return nil, exitcode.Envf("load kubeconfig: %v (fix: correct the file, or pass --kubeconfig and --context)", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, exitcode.Envf("kubeconfig namespace: %v", err)
	}
	c := &Cluster{Namespace: ns, Server: cfg.Host}
	if raw, err := cc.RawConfig(); err == nil {
		c.Context = raw.CurrentContext
		if t.Context != "" {
			c.Context = t.Context
		}
	}
	return newCluster(c, cfg)
}

// newCluster finishes c with clients for cfg.
func newCluster(c *Cluster, cfg *rest.Config) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = requestTimeout
	// A 1024-GPU lab polls and lists a few hundred objects; the client's
	// default of 5 requests per second would make labctl crawl.
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "labctl"
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, exitcode.Envf("kubernetes client for %s: %v", cfg.Host, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, exitcode.Envf("kubernetes client for %s: %v", cfg.Host, err)
	}
	c.Config, c.Dynamic, c.Discovery = cfg, dyn, disc
	if c.Server == "" {
		c.Server = cfg.Host
	}
	return c, nil
}

// topologies is the cluster's clabernetes Topology resources in its
// namespace.
func (c *Cluster) topologies() dynamic.ResourceInterface {
	return c.Dynamic.Resource(TopologyGVR).Namespace(c.Namespace)
}

// Where names the cluster and namespace for messages.
func (c *Cluster) Where() string {
	if c.Context != "" {
		return fmt.Sprintf("namespace %s of context %s (%s)", c.Namespace, c.Context, c.Server)
	}
	return fmt.Sprintf("namespace %s at %s", c.Namespace, c.Server)
}

// Reachable asks the API server for its version. An unreachable server or
// rejected credentials are environment errors naming the server.
func (c *Cluster) Reachable() (string, error) {
	v, err := c.Discovery.ServerVersion()
	if err != nil {
		if apierrors.IsUnauthorized(err) {
			return "", exitcode.Envf("the Kubernetes API server at %s refused labctl's credentials (401): renew them in the kubeconfig", c.Server)
		}
		return "", exitcode.Envf("the Kubernetes API server at %s is not reachable: %v (check the kubeconfig's server and that the cluster runs)", c.Server, err)
	}
	return v.GitVersion, nil
}
