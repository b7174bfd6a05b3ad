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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/version"
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
	Config  *rest.Config
	Dynamic dynamic.Interface
	// discovery is a REST client for the API server's discovery paths
	// (see discoveryClient).
	discovery *rest.RESTClient
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
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, exitcode.Envf("kubernetes client for %s: %v", cfg.Host, err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, exitcode.Envf("kubernetes client for %s: %v", cfg.Host, err)
	}
	disc, err := discoveryClient(cfg, hc)
	if err != nil {
		return nil, exitcode.Envf("kubernetes client for %s: %v", cfg.Host, err)
	}
	c.Config, c.Dynamic, c.discovery = cfg, dyn, disc
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
func (c *Cluster) Reachable(ctx context.Context) (string, error) {
	v, err := c.serverVersion(ctx)
	if err != nil {
		if apierrors.IsUnauthorized(err) {
			return "", exitcode.Envf("the Kubernetes API server at %s refused labctl's credentials (401): renew them in the kubeconfig", c.Server)
		}
		return "", exitcode.Envf("the Kubernetes API server at %s is not reachable: %v (check the kubeconfig's server and that the cluster runs)", c.Server, err)
	}
	return v.GitVersion, nil
}

// discoveryClient is the REST client client-go's discovery client makes
// for cfg (its requests, retries, rate limit and errors), decoding with
// metav1's types alone. The discovery package itself would link
// client-go's scheme of every built-in API group, which every labctl
// command initialized at start: 2-4 ms of CPU and 660 KB allocated.
func discoveryClient(cfg *rest.Config, hc *http.Client) (*rest.RESTClient, error) {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	dc := rest.CopyConfig(cfg)
	dc.APIPath, dc.GroupVersion = "", nil
	dc.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{
		Serializer: runtime.NoopEncoder{Decoder: serializer.NewCodecFactory(s).UniversalDecoder()},
	})
	return rest.UnversionedRESTClientForConfigAndClient(dc, hc)
}

// serverVersion GETs /version, as client-go's discovery ServerVersion.
func (c *Cluster) serverVersion(ctx context.Context) (*version.Info, error) {
	body, err := c.discovery.Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	var v version.Info
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("unable to parse the server version: %v", err)
	}
	return &v, nil
}

// serverResources GETs the resources the API server serves in a group
// version ("group/version", not the core "v1"), as client-go's discovery
// ServerResourcesForGroupVersion.
func (c *Cluster) serverResources(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error) {
	list := &metav1.APIResourceList{GroupVersion: groupVersion}
	if err := c.discovery.Get().AbsPath("/apis/" + groupVersion).Do(ctx).Into(list); err != nil {
		return nil, err
	}
	return list, nil
}
