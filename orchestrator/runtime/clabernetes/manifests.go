package clabernetes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/goccy/go-yaml"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// TopologyName is the name of a lab's Topology. clabernetes names each
// node's Deployment and Service <topology>-<node>; a Service name must
// start with a letter, and lab names may start with a digit (1024gpu), so
// the Topology carries a prefix.
func TopologyName(lab string) string { return "labctl-" + lab }

// startupConfigMap is the ConfigMap holding one switch's startup config,
// named as clabernetes' clabverter names them.
func startupConfigMap(lab, node string) string {
	return TopologyName(lab) + "-" + node + "-startup-config"
}

// startupConfigKey is the ConfigMap key of a startup config (clabverter's).
const startupConfigKey = "startup-config"

// maxServiceName is the longest Service name (a DNS-1035 label).
const maxServiceName = 63

// LauncherOverhead is what a clabernetes launcher pod needs beside its
// node's container: the launcher process, a Docker daemon and containerlab.
// An estimate (not measured here: no kubelet runs on the development
// machine), added to every node's request.
var LauncherOverhead = fabric.Resources{MemoryMiB: 256, CPUs: 0.1}

// NodeResources is the estimate of one node's launcher pod: its kind's
// containerlab estimate (fabric.Graph.Estimate) plus LauncherOverhead.
func NodeResources(kind string) fabric.Resources {
	// The per-kind table is fabric's; a one-node graph reads it through
	// the exported estimate.
	r := (&fabric.Graph{Nodes: []*fabric.Node{{Kind: kind}}}).Estimate()
	return fabric.Resources{MemoryMiB: r.MemoryMiB + LauncherOverhead.MemoryMiB, CPUs: r.CPUs + LauncherOverhead.CPUs}
}

// Estimate is what the lab's launcher pods request in all: the cluster
// must have this much allocatable. Largest is the biggest single pod,
// which one node must hold.
func Estimate(g *fabric.Graph) (total, largest fabric.Resources) {
	for _, n := range g.Nodes {
		r := NodeResources(n.Kind)
		total.MemoryMiB += r.MemoryMiB
		total.CPUs += r.CPUs
		if r.MemoryMiB > largest.MemoryMiB {
			largest = r
		}
	}
	return total, largest
}

// Manifests are the objects a lab is made of in the cluster: one ConfigMap
// per switch startup config (cEOS boots from it; SONiC-VS has none) and the
// Topology.
type Manifests struct {
	ConfigMaps []*unstructured.Unstructured
	Topology   *unstructured.Unstructured
}

// Objects lists the manifests in the order they are applied and printed.
func (m *Manifests) Objects() []*unstructured.Unstructured {
	return append(slices.Clone(m.ConfigMaps), m.Topology)
}

// labFile reads a generated file of the lab from its folder, or renders it
// when the folder does not have it yet (a dry run before the first up).
func labFile(l *runtime.Lab, rel string, render func(io.Writer) error) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(l.Dir, rel))
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func labels(lab string) map[string]any {
	return map[string]any{LabelLab: lab, LabelManagedBy: ManagedBy}
}

func quantityMiB(mib int) string { return strconv.Itoa(mib) + "Mi" }

func quantityCPU(cpus float64) string {
	return strconv.Itoa(int(cpus*1000+0.5)) + "m"
}

func requests(r fabric.Resources) map[string]any {
	return map[string]any{"requests": map[string]any{"memory": quantityMiB(r.MemoryMiB), "cpu": quantityCPU(r.CPUs)}}
}

// BuildManifests renders the lab as clabernetes takes it. The Topology's
// definition is the lab's containerlab topology as the clab runtime deploys
// it (topologies/<lab>/<lab>.clab.yml: kinds, images, host exec lines that
// set addresses, routes and soft-RoCE devices, links). On top of it:
//
//   - each cEOS startup config goes into a ConfigMap mounted at the path the
//     topology names (spec.deployment.filesFromConfigMap), as clabverter
//     does;
//   - every launcher pod requests its node's estimate
//     (spec.deployment.resources), so the scheduler places nodes where they
//     fit;
//   - a switch counts as ready once its SSH port answers (a TCP status
//     probe), which is when labctl can push; hosts have no SSH server and
//     are ready once their container runs (excluded from probes);
//   - Services are ClusterIP (labctl reaches switches by port-forward, so a
//     lab does not pay for one cloud load balancer per node);
//   - resources are named <topology>-<node> (naming: prefixed, immutable).
//
// namespace may be "" (kubectl's current namespace then applies).
func BuildManifests(l *runtime.Lab, namespace string) (*Manifests, error) {
	g := l.Graph
	if g == nil {
		return nil, fmt.Errorf("lab %s has no fabric graph", l.Name)
	}
	topo := TopologyName(l.Name)
	for _, n := range g.Nodes {
		// The longest name clabernetes derives: the tunnel Service.
		if name := topo + "-" + n.Name + "-vx"; len(name) > maxServiceName {
			return nil, exitcode.Usagef("lab %s: the Service name %s clabernetes would make for node %s is %d characters, over Kubernetes' %d: give the lab a shorter name", l.Name, name, n.Name, len(name), maxServiceName)
		}
	}
	def, err := labFile(l, g.TopologyFile(), g.WriteClab)
	if err != nil {
		return nil, fmt.Errorf("containerlab topology of lab %s: %w", l.Name, err)
	}
	meta := func(name string) map[string]any {
		md := map[string]any{"name": name, "labels": labels(l.Name)}
		if namespace != "" {
			md["namespace"] = namespace
		}
		return md
	}
	m := &Manifests{}
	files := map[string]any{}
	// Every switch's startup file: cEOS boots from its startup-config,
	// sonic-vs copies the config_db.json the topology binds into it (the
	// base config: ports, interfaces, BGP); without it a SONiC switch
	// boots with no ports configured.
	for _, sw := range g.Switches() {
		rel := g.StartupFile(sw.Name)
		write := func(w io.Writer) error { return g.WriteEOSStartup(w, sw) }
		if g.NOS != fabric.NOSEOS {
			write = func(w io.Writer) error { return g.WriteSonicStartup(w, sw) }
		}
		cfg, err := labFile(l, rel, write)
		if err != nil {
			return nil, fmt.Errorf("startup config of %s: %w", sw.Name, err)
		}
		name := startupConfigMap(l.Name, sw.Name)
		m.ConfigMaps = append(m.ConfigMaps, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name),
			"data": map[string]any{startupConfigKey: string(cfg)},
		}})
		// Relative paths are mounted under the launcher's working
		// directory, where the topology is, so the topology's
		// startup-config path finds the file.
		files[sw.Name] = []any{map[string]any{"filePath": rel, "configMapName": name, "configMapPath": startupConfigKey, "mode": "read"}}
	}
	res := map[string]any{"default": requests(NodeResources(fabric.KindLinux))}
	probes := map[string]any{}
	var hosts []any
	for _, n := range g.Nodes {
		if n.Role == fabric.RoleHost {
			hosts = append(hosts, n.Name)
			if n.Kind != fabric.KindLinux {
				res[n.Name] = requests(NodeResources(n.Kind))
			}
			continue
		}
		res[n.Name] = requests(NodeResources(n.Kind))
		probes[n.Name] = map[string]any{"tcpProbeConfiguration": map[string]any{"port": int64(22)}}
	}
	deployment := map[string]any{"resources": res}
	if len(files) > 0 {
		deployment["filesFromConfigMap"] = files
	}
	spec := map[string]any{
		"definition": map[string]any{"containerlab": string(def)},
		"naming":     "prefixed",
		"expose":     map[string]any{"exposeType": "ClusterIP"},
		"deployment": deployment,
		"statusProbes": map[string]any{
			"enabled":                 true,
			"excludedNodes":           hosts,
			"nodeProbeConfigurations": probes,
		},
	}
	m.Topology = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": APIVersion, "kind": "Topology", "metadata": meta(topo), "spec": spec,
	}}
	return m, nil
}

// WriteYAML writes the manifests as one YAML stream that 'kubectl apply -f'
// takes: the ConfigMaps, then the Topology.
func (m *Manifests) WriteYAML(w io.Writer) error {
	for i, o := range m.Objects() {
		b, err := yaml.MarshalWithOptions(o.Object, yaml.UseLiteralStyleIfMultiline(true), yaml.Indent(2), yaml.IndentSequence(true))
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
