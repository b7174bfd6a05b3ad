package qos

import (
	"slices"
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

// A port without its own MTU runs at the NOS's default (SONiC's 9100:
// DefaultMTU), which Diff shows as "9100 (default)" where the other side
// sets an MTU or records the default too (Settings version 3); a record
// of version 2 kept no default, so two ports without an MTU there still
// compare equal, and an old port's own MTU against a new default still
// shows the default.
func TestDiffDefaultMTU(t *testing.T) {
	port := func(mtu, def int) []DeviceConfig {
		return []DeviceConfig{{Device: "leaf1", Ports: []PortConfig{{Name: "Ethernet0", MTU: mtu, DefaultMTU: def, Trust: TrustDSCP, PFCPriorities: []int{}}}}}
	}
	old := func(cfgs []DeviceConfig) []Settings {
		s := SummarizeAll(cfgs)
		s[0].Version = 2
		s[0].Fields = slices.DeleteFunc(s[0].Fields, func(f Setting) bool { return f.Field == "default_mtu" })
		return s
	}
	for _, tt := range []struct {
		name string
		a, b []Settings
		want string
	}{
		{"deleted", SummarizeAll(port(9160, 0)), SummarizeAll(port(0, 9100)), "leaf1 Ethernet0 mtu: 9160 -> 9100 (default)"},
		{"added", SummarizeAll(port(0, 9100)), SummarizeAll(port(9160, 0)), "leaf1 Ethernet0 mtu: 9100 (default) -> 9160"},
		{"the same default", SummarizeAll(port(0, 9100)), SummarizeAll(port(0, 9100)), ""},
		// A SONiC switch's read-back states the 9100 a pushed config
		// leaves to it: the port runs the same MTU either way.
		{"the default stated", SummarizeAll(port(0, 9100)), SummarizeAll(port(9100, 0)), ""},
		{"stated, then left to the default", SummarizeAll(port(9100, 0)), SummarizeAll(port(0, 9100)), ""},
		{"another NOS's default", SummarizeAll(port(0, 9100)), SummarizeAll(port(0, 1500)), "leaf1 Ethernet0 mtu: 9100 (default) -> 1500 (default)"},
		{"version 2, both without", old(port(0, 9100)), SummarizeAll(port(0, 9100)), ""},
		{"version 2 with its own", old(port(9160, 0)), SummarizeAll(port(0, 9100)), "leaf1 Ethernet0 mtu: 9160 -> 9100 (default)"},
		{"version 2 without, then its own", old(port(0, 9100)), SummarizeAll(port(9160, 0)), "leaf1 Ethernet0 mtu: - -> 9160"},
	} {
		var got []string
		for _, d := range DiffSettings(tt.a, tt.b) {
			got = append(got, d.String())
		}
		if strings.Join(got, "\n") != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
