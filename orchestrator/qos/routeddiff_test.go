package qos

import (
	"strings"
	"testing"
)

// A port's routed state (EOS: no switchport or switchport) was no field of
// Diff: 'labctl config diff' said nothing of a port turned from routed to
// switchport, whose default trust and MTU that change moves. It is a port
// field now ("routed"); a run record made before it was kept (Settings
// version 1) lacks it on every port, routed or not, and comparisons with
// one leave it out rather than report every routed port changed.
func TestDiffRouted(t *testing.T) {
	port := func(routed bool) DeviceConfig {
		return DeviceConfig{Device: "leaf1", Ports: []PortConfig{{Name: "Ethernet1", MTU: 9214, Trust: TrustDSCP, Routed: routed, PFCPriorities: []int{}}}}
	}
	d := Diff([]DeviceConfig{port(true)}, []DeviceConfig{port(false)})
	if len(d) != 1 || d[0].Field != "routed" || d[0].A != "true" || d[0].B != "" || d[0].Port != "Ethernet1" {
		t.Errorf("routed to switchport: %v", d)
	}
	if d := Diff([]DeviceConfig{port(true)}, []DeviceConfig{port(true)}); len(d) != 0 {
		t.Errorf("no change: %v", d)
	}
	old := SummarizeAll([]DeviceConfig{port(false)})
	old[0].Version = 0
	if d := DiffSettings(old, SummarizeAll([]DeviceConfig{port(true)})); len(d) != 0 {
		t.Errorf("against a record of version 1: %v", d)
	}
	old = SummarizeAll([]DeviceConfig{port(false)})
	old[0].Version = 0
	if d := DiffSettings(old, SummarizeAll([]DeviceConfig{{Device: "leaf1", Ports: []PortConfig{{Name: "Ethernet1", MTU: 1500, Trust: TrustDSCP, Routed: true, PFCPriorities: []int{}}}}})); len(d) != 1 || !strings.Contains(d[0].String(), "mtu") {
		t.Errorf("against a record of version 1, the other fields still compare: %v", d)
	}
}
