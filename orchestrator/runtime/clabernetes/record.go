package clabernetes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/labctl/labctl/orchestrator/runtime"
)

// RecordFile is where a lab brought up on clabernetes keeps which cluster
// and namespace it runs in, so status, run and down find it again whatever
// the kubeconfig's current context is by then.
const RecordFile = "clabernetes.json"

// Record is the content of RecordFile.
type Record struct {
	SchemaVersion int `json:"schema_version"`
	Target
	// Server is the API server's address when the lab was brought up.
	Server   string `json:"server,omitempty"`
	Topology string `json:"topology"`
}

// ReadRecord reads the lab's record; (nil, nil) when it has none.
func ReadRecord(dir string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w (remove it and pass --context and --namespace)", filepath.Join(dir, RecordFile), err)
	}
	return &r, nil
}

func writeRecord(l *runtime.Lab, kubeconfig string, c *Cluster) error {
	if kubeconfig != "" {
		// Later commands may run from another directory.
		if abs, err := filepath.Abs(kubeconfig); err == nil {
			kubeconfig = abs
		}
	}
	r := Record{SchemaVersion: 1, Target: Target{Kubeconfig: kubeconfig, Context: c.Context, Namespace: c.Namespace}, Server: c.Server, Topology: TopologyName(l.Name)}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return runtime.WriteFileAtomic(filepath.Join(l.Dir, RecordFile), append(b, '\n'), 0o644)
}

// target merges flags over the lab's record: a flag given wins, a flag not
// given takes what the lab was brought up with.
func target(flags Target, rec *Record) Target {
	t := flags
	if rec == nil {
		return t
	}
	if t.Kubeconfig == "" {
		t.Kubeconfig = rec.Kubeconfig
	}
	if t.Context == "" {
		t.Context = rec.Context
	}
	if t.Namespace == "" {
		t.Namespace = rec.Namespace
	}
	return t
}
