package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/transport"
)

// An InfiniBand lab (its spec's transport is infiniband) has switches that
// take no vendor config: the subnet manager configures an IB fabric
// (routes, SL-to-VL maps, congestion control), so labctl renders no
// SONiC or EOS files for it and writes the subnet manager's settings
// instead, for the record. A RoCE lab running InfiniBand variants (a
// scenario's transport) keeps its configs, which those variants do not
// read.

// SubnetManagerFile is the file of an InfiniBand lab's subnet manager
// settings, in the lab's folder.
const SubnetManagerFile = "subnet-manager.json"

// InfiniBand reports whether the lab's own transport is InfiniBand.
func (l *Lab) InfiniBand() bool {
	return l.Spec != nil && l.Spec.Transport == transport.InfiniBand
}

// SubnetManagerPath is where an InfiniBand lab's SM settings are.
func (l *Lab) SubnetManagerPath() string { return filepath.Join(l.Dir, SubnetManagerFile) }

// subnetManager is the file's content: the resolved InfiniBand settings.
type subnetManager struct {
	// Note says what the file is.
	Note       string                `json:"note"`
	InfiniBand *transport.IBSettings `json:"infiniband"`
}

// writeSubnetManager writes the lab's SM settings when they differ from
// the file's, and returns the path when it wrote it.
func (l *Lab) writeSubnetManager() (string, error) {
	st, err := l.Spec.TransportSettings(nil, nil, "")
	if err != nil {
		return "", exitcode.Usagef("transport of lab %s: %v", l.Name, err)
	}
	data, err := json.MarshalIndent(subnetManager{
		Note:       "The subnet manager settings the simulator runs this InfiniBand lab with (labctl writes this file from the lab spec's infiniband section; edit the spec, not this file). InfiniBand switches take no vendor QoS config.",
		InfiniBand: st.InfiniBand,
	}, "", "  ")
	if err != nil {
		return "", err
	}
	data = append(data, '\n')
	path := l.SubnetManagerPath()
	if old, err := readlimit.ReadFile(path, readlimit.Generated); err == nil && bytes.Equal(old, data) {
		return "", nil
	}
	if err := WriteFileAtomic(path, data, 0o644); err != nil {
		return "", exitcode.Env(fmt.Errorf("write %s: %w (fix: use a writable --dir)", path, err))
	}
	return path, nil
}

// NoVendorConfigs refuses a config command on an InfiniBand lab, whose
// switches have none, naming what configures them instead.
func (l *Lab) NoVendorConfigs(what string) error {
	if !l.InfiniBand() {
		return nil
	}
	return exitcode.Usagef("lab %s runs InfiniBand: its switches take no vendor QoS configs to %s (the subnet manager configures an IB fabric; its settings are the lab spec's infiniband section, written to %s at 'labctl up'); fix: use a RoCE or UET lab for vendor configs; to compare transports, run a scenario that sets transport on a RoCE or UET lab", l.Name, what, l.SubnetManagerPath())
}

// renderInfiniBand is RenderLab for an InfiniBand lab: the topology when
// it changed, and the SM settings.
func renderInfiniBand(l *Lab) (written, kept []string, err error) {
	stale, err := staleTopology(l)
	if err != nil {
		return nil, nil, err
	}
	if stale != nil {
		if written, err = l.Graph.WriteFiles(l.Dir, stale); err != nil {
			return nil, nil, err
		}
	}
	p, err := l.writeSubnetManager()
	if p != "" {
		written = append(written, p)
	}
	return written, nil, err
}
