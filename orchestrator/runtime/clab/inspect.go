package clab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Container is one node of a deployed lab as `containerlab inspect --format
// json` lists it.
type Container struct {
	LabName     string `json:"lab_name"`
	LabPath     string `json:"labPath"`
	AbsLabPath  string `json:"absLabPath"`
	Name        string `json:"name"` // clab-<lab>-<node>
	ContainerID string `json:"container_id"`
	Image       string `json:"image"`
	Kind        string `json:"kind"`
	State       string `json:"state"`  // created, running, exited, …
	Status      string `json:"status"` // "Up 4 hours", "Up 2 minutes (healthy)", …
	IPv4Address string `json:"ipv4_address"`
	IPv6Address string `json:"ipv6_address"`
	Owner       string `json:"owner"`
}

// NodeName is the topology's node name: the container name without the
// "clab-<lab>-" prefix.
func (c Container) NodeName() string {
	if c.LabName != "" {
		if n, ok := strings.CutPrefix(c.Name, "clab-"+c.LabName+"-"); ok {
			return n
		}
	}
	return c.Name
}

// ParseInspect reads `containerlab inspect --format json`. Releases since
// 0.68 print {"<lab>": [containers]}; older ones {"containers": [...]}; a lab
// with nothing deployed prints {} or nothing. Both shapes are an object whose
// values are container lists, so every list is read. Containers come back
// sorted by name so callers see a stable order.
func ParseInspect(data []byte) ([]Container, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	// Some releases log lines before the JSON on stdout; start at the object.
	if i := bytes.IndexByte(data, '{'); i > 0 {
		data = data[i:]
	}
	var labs map[string]json.RawMessage
	if err := json.Unmarshal(data, &labs); err != nil {
		return nil, fmt.Errorf("parse containerlab inspect JSON: %w (want an object of container lists; is containerlab older than 0.40?)", err)
	}
	keys := make([]string, 0, len(labs))
	for k := range labs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Container
	for _, k := range keys {
		var cs []Container
		if err := json.Unmarshal(labs[k], &cs); err != nil {
			return nil, fmt.Errorf("parse containerlab inspect JSON: key %q: %w", k, err)
		}
		for i := range cs {
			if cs[i].LabName == "" && k != "containers" {
				cs[i].LabName = k
			}
		}
		out = append(out, cs...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
