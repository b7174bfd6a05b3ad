package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/readlimit"
)

// File names inside topologies/<lab>/.
const (
	StateFile = "state.json"
	LockFile  = ".lock"
)

// StateSchemaVersion is the version of state.json's shape.
const StateSchemaVersion = 1

// Lab states.
const (
	StateDeploying = "deploying"
	StateUp        = "up"
	StateDegraded  = "degraded" // up, but some nodes are not
	StateStopping  = "stopping"
	StateDown      = "down"
	StateFailed    = "failed" // the last up or down failed; see Error
	// StateUnreadable is listed for a lab whose state.json cannot be
	// read; it is never written.
	StateUnreadable = "unreadable"
	// StateNeverUp is listed for a lab whose topology was rendered in the
	// work directory (labctl topo, config render, a dry-run up) but that
	// was never brought up: it has no state.json, so no runtime, nodes or
	// times to report. It is never written.
	StateNeverUp = "never-up"
)

// Node states.
const (
	NodeRunning = "running"
	NodeStopped = "stopped"
	NodeMissing = "missing"
	NodeError   = "error"
)

// Status is a lab's status: what the runtime reports and what state.json
// holds between commands.
type Status struct {
	SchemaVersion int    `json:"schema_version"`
	Lab           string `json:"lab"`
	// Runtime, Created and Updated are absent on a lab listed but never
	// recorded (StateNeverUp, StateUnreadable): it has none, and "" or
	// year 1 would read as values. state.json always holds them.
	Runtime string `json:"runtime,omitempty"`
	NOS     string `json:"nos,omitempty"`
	// State is one of StateDeploying, StateUp, StateDegraded, StateStopping,
	// StateDown, StateFailed; a listed lab may also be StateUnreadable or
	// StateNeverUp.
	State string       `json:"state"`
	Nodes []NodeStatus `json:"nodes"`
	// Created is when the lab was first brought up, Updated when state.json
	// was last written.
	Created time.Time `json:"created,omitzero"`
	Updated time.Time `json:"updated,omitzero"`
	// Spec is where the lab spec came from ("catalog:64gpu" or a path).
	Spec string `json:"spec,omitempty"`
	// Error is the last lifecycle error, if State is StateFailed.
	Error string `json:"error,omitempty"`
	// NothingDeployed is set on a failed lab whose up stopped before its
	// runtime was asked to create anything (the configs could not be
	// rendered, say), and that was not up before: down then records it
	// down without asking the runtime, which may not even be installed,
	// and status has no nodes to ask about. Absent (older state files, a
	// lab the runtime deployed) means the runtime may hold something.
	NothingDeployed bool `json:"nothing_deployed,omitempty"`
}

// NodeStatus is one node of a lab.
type NodeStatus struct {
	Name  string `json:"name"`
	Role  string `json:"role"`            // host | leaf | spine | super-spine
	State string `json:"state"`           // NodeRunning, NodeStopped, ...
	Mgmt  string `json:"mgmt,omitempty"`  // management address on a live lab
	Kind  string `json:"kind,omitempty"`  // containerlab kind or "sim"
	Image string `json:"image,omitempty"` // container image on a live lab
}

// NeverUp is the status listed for lab when the work directory holds its
// topology but no state.json: never brought up (StateNeverUp), nothing
// else known.
func NeverUp(lab string) *Status {
	return &Status{SchemaVersion: StateSchemaVersion, Lab: lab, State: StateNeverUp}
}

// IsUp reports whether scenarios can run on the lab.
func (s *Status) IsUp() bool {
	return s != nil && (s.State == StateUp || s.State == StateDegraded)
}

// ReadState reads topologies/<lab>/state.json from dir. A missing file
// returns (nil, nil): the lab was never brought up.
func ReadState(dir string) (*Status, error) {
	p := filepath.Join(dir, StateFile)
	b, err := readlimit.ReadFile(p, readlimit.State)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if exitcode.Code(err) == exitcode.BadInput {
		return nil, err
	}
	if err != nil {
		return nil, exitcode.Envf("read lab state %s: %w (fix: make it readable, or use the --dir that holds your labs)", p, err)
	}
	var s Status
	if err := json.Unmarshal(b, &s); err != nil {
		// A state file labctl did not write, or one cut short: the lab's
		// recorded state is unknown, which only the user can settle.
		return nil, exitcode.Usagef("lab state %s is not valid JSON (%v) (fix: remove the file and run 'labctl up %s' again)", p, err, filepath.Base(dir))
	}
	if s.SchemaVersion > StateSchemaVersion {
		return nil, exitcode.Usagef("lab state %s has schema_version %d, newer than this labctl understands (%d) (fix: use the labctl that brought the lab up, or upgrade)", p, s.SchemaVersion, StateSchemaVersion)
	}
	if !slices.Contains(states, s.State) {
		// Edited by hand or by another tool: what the lab is, is unknown.
		return nil, exitcode.Usagef("lab state %s says state %q, which is none of labctl's (%s) (fix: restore the file, or remove it and run 'labctl up %s')", p, s.State, strings.Join(states, ", "), filepath.Base(dir))
	}
	return &s, nil
}

// states are the states a lab's state.json may hold.
var states = []string{StateDeploying, StateUp, StateDegraded, StateStopping, StateDown, StateFailed}

// WriteState writes s to dir/state.json atomically: a reader sees the old
// file or the new one, never a partial write.
func WriteState(dir string, s *Status) error {
	s.SchemaVersion = StateSchemaVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode lab state: %w", err)
	}
	path := filepath.Join(dir, StateFile)
	return exitcode.WriteFailed(path, WriteFileAtomic(path, append(b, '\n'), 0o644))
}

// WriteFileAtomic writes data to a temporary file in path's directory,
// syncs it and renames it over path.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
}

// NodesDiffer says how the nodes of fabric g differ from those the lab
// recorded when it was brought up ("" when they are the same, or when the
// state recorded none): a spec edited since, so that the lab's topology
// and configs are not the fabric's.
func (st *Status) NodesDiffer(g *fabric.Graph) string {
	if st == nil || len(st.Nodes) == 0 || g == nil {
		return ""
	}
	was := map[string]bool{}
	for _, n := range st.Nodes {
		was[n.Name] = true
	}
	var added, gone []string
	now := map[string]bool{}
	for _, n := range g.Nodes {
		now[n.Name] = true
		if !was[n.Name] {
			added = append(added, n.Name)
		}
	}
	for _, n := range st.Nodes {
		if !now[n.Name] {
			gone = append(gone, n.Name)
		}
	}
	if len(added) == 0 && len(gone) == 0 {
		return ""
	}
	list := func(names []string) string { return plural.Some(names, 4, ", ") }
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "nodes it did not have: "+list(added))
	}
	if len(gone) > 0 {
		parts = append(parts, "no longer its nodes: "+list(gone))
	}
	return fmt.Sprintf("%d nodes where it was brought up with %d (%s)", len(g.Nodes), len(st.Nodes), strings.Join(parts, "; "))
}
