package qos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// A SONiC set against an EOS one compares each front-panel port with
// itself: EOS's Ethernet n is SONiC's Ethernet 4(n-1). By name, SONiC's
// Ethernet4 (the second port) met EOS's Ethernet4 (the fourth).
func TestAlignPortsAcrossNOS(t *testing.T) {
	_, cfgs := lintBase(t)
	sonicSet := []DeviceConfig{cfgs[0].Clone()}
	sonicSet[0].NOS = "sonic"
	eosSet := []DeviceConfig{cfgs[0].Clone()}
	eosSet[0].NOS = "eos"
	for i := range eosSet[0].Ports {
		p := &eosSet[0].Ports[i]
		n, ok := fabric.FrontPanelNumber(fabric.KindSonicVS, p.Name)
		if !ok {
			t.Fatalf("%s", p.Name)
		}
		p.Name = fabric.PortName(fabric.KindCEOS, n)
	}
	// One real difference, on the second port (SONiC Ethernet4, EOS
	// Ethernet2), which a match by name would put elsewhere.
	eosSet[0].Port("Ethernet2").PFCPriorities = []int{}
	if ds := Diff(sonicSet, eosSet); len(ds) < 2 {
		t.Fatalf("by name the sets differ in more than one field: %v", ds)
	}
	note := AlignPorts(sonicSet, eosSet)
	if !strings.Contains(note, "front-panel position") || !strings.Contains(note, "Ethernet2 is Ethernet4") {
		t.Errorf("note %q", note)
	}
	ds := Diff(sonicSet, eosSet)
	for _, d := range ds {
		if d.Port != "Ethernet4" {
			t.Errorf("aligned: %v, want differences on Ethernet4 alone", d)
		}
	}
	if len(ds) == 0 {
		t.Error("aligned: no difference, want Ethernet4's PFC")
	}
	// One NOS on both sides: nothing renamed, nothing said.
	if note := AlignPorts(sonicSet, sonicSet); note != "" {
		t.Errorf("same NOS: %q", note)
	}
}
