package qos

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// A config entry keyed by a port the switch does not have (a typo:
// Ethernet999, Ethernet08) configures nothing on the switch: the model
// holds no such port, nothing else is said of it, and lint says where its
// entries went (QOS021). A port the switch has but the lab leaves unwired
// stays, and so does every name where the switch's ports are not known.
func TestAttachTopologyDropsNoSuchPort(t *testing.T) {
	in, cfgs := lintBase(t)
	leaf := &cfgs[0]
	for _, name := range []string{"Ethernet999", "Ethernet08", "Ethernet200"} {
		pc := clonePort(*leaf.Port("Ethernet0"))
		pc.Name, pc.Peer = name, ""
		pc.PFCPriorities = []int{} // a harmful entry there: PFC off
		leaf.Ports = append(leaf.Ports, pc)
	}
	leaf.Defaults = append(leaf.Defaults,
		Default{Field: "PFC_WD", Value: "200 ms", Source: "test", Ports: []string{"Ethernet999"}, Risky: true},
		Default{Field: "QUEUE scheduler", Value: "DWRR 1", Source: "test", Ports: []string{"Ethernet0", "Ethernet08"}, Risky: true})
	devs := TestDevices()
	for i := range devs {
		devs[i].Kind, devs[i].FrontPanel = fabric.KindSonicVS, 64
	}
	bare := slices.Clone(cfgs)
	bare[0] = leaf.Clone()

	AttachTopology(cfgs, devs, in)
	for _, gone := range []string{"Ethernet999", "Ethernet08"} {
		if leaf.Port(gone) != nil {
			t.Errorf("%s, no port of the switch, is still in the model", gone)
		}
	}
	if p := leaf.Port("Ethernet200"); p == nil || p.Fabric {
		t.Errorf("Ethernet200, a port of the switch the lab does not wire: %+v, want it kept, not a data port", p)
	}
	for _, d := range leaf.Defaults {
		if slices.Contains(d.Ports, "Ethernet999") || slices.Contains(d.Ports, "Ethernet08") || slices.Contains(d.Ports, "") || d.Field == "PFC_WD" && d.Source == "test" {
			t.Errorf("default %+v still names a port the switch does not have", d)
		}
		if d.Field == "QUEUE scheduler" && d.Source == "test" && !slices.Equal(d.Ports, []string{"Ethernet0"}) {
			t.Errorf("default %+v: want its other port, Ethernet0, alone", d)
		}
	}
	fs := Lint(cfgs, LintOptions{Intent: &in, Devices: devs})
	var named []string
	for _, f := range fs {
		if f.Rule == RuleOverruled && strings.Contains(f.Message, "no port of leaf1 has that name") {
			if f.Severity != SevWarning || !strings.Contains(f.Message, "Ethernet0..Ethernet252") || f.Fix == "" {
				t.Errorf("finding %+v", f)
			}
			named = append(named, f.Port)
			continue
		}
		if f.Port == "Ethernet999" || f.Port == "Ethernet08" || slices.Contains(f.Ports, "Ethernet999") {
			t.Errorf("a finding about a port the switch does not have: %+v", f)
		}
	}
	slices.Sort(named)
	if !slices.Equal(named, []string{"Ethernet08", "Ethernet999"}) {
		t.Errorf("QOS021 for %v, want Ethernet08 and Ethernet999", named)
	}

	// Without the switch's ports (bare files, or a device not in the
	// lab), every name stays as the files have it.
	AttachTopology(bare, TestDevices(), in)
	if bare[0].Port("Ethernet999") == nil {
		t.Error("without the switch's ports known, Ethernet999 was dropped")
	}
}
