package qos

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// A subinterface joins no run of ports: in port order it sits between its
// parent and the next port, and Ethernet1, Ethernet1.100, Ethernet2 read
// as "Ethernet1-2".
func TestPortRangesSubinterfaces(t *testing.T) {
	all := []string{"Ethernet1", "Ethernet1.100", "Ethernet2", "Ethernet2.100", "Ethernet3", "Ethernet4"}
	for _, c := range []struct {
		set  []string
		want string
	}{
		{[]string{"Ethernet1", "Ethernet1.100", "Ethernet2", "Ethernet2.100", "Ethernet3", "Ethernet4"}, "Ethernet1-4, Ethernet1.100, Ethernet2.100"},
		{[]string{"Ethernet1.100", "Ethernet2.100"}, "Ethernet1.100, Ethernet2.100"},
		{[]string{"Ethernet1", "Ethernet1.100", "Ethernet2"}, "Ethernet1, Ethernet2, Ethernet1.100"},
	} {
		if got := PortRanges(c.set, all); got != c.want {
			t.Errorf("%v: %q; want %q", c.set, got, c.want)
		}
	}
}

// An EOS subinterface of a port the switch has is the switch's (configuring
// it creates it): lint said "no port of leaf1 has that name" of
// Ethernet1.100 and checked nothing there. One of a port the switch does
// not have is not, nor is a dotted name on SONiC, whose ports have none.
func TestNoSuchPortSubinterface(t *testing.T) {
	ceos := &Device{Name: "leaf1", Kind: fabric.KindCEOS, FrontPanel: 32, Ports: []Port{{Name: "Ethernet1"}}}
	for name, want := range map[string]bool{"Ethernet1.100": false, "Ethernet32.1": false, "Ethernet33.1": true, "Ethernet33": true} {
		if got := ceos.NoSuchPort(name); got != want {
			t.Errorf("EOS %s: no such port %v; want %v", name, got, want)
		}
	}
	sonic := &Device{Name: "leaf1", Kind: fabric.KindSonicVS, FrontPanel: 32, Ports: []Port{{Name: "Ethernet0"}}}
	if !sonic.NoSuchPort("Ethernet0.100") {
		t.Errorf("SONiC Ethernet0.100: taken for a port")
	}
}

// A run of ports never passes over a port number all leaves out: an EOS
// config that names Ethernet1-3 and Ethernet6 (not the switch's 4 and 5)
// read "Ethernet1-6". Ports with a step of their own (SONiC's 4 lanes)
// run on, and so do breakout ports across their parents.
func TestPortRangesGaps(t *testing.T) {
	for _, c := range []struct {
		set, all []string
		want     string
	}{
		{[]string{"Ethernet1", "Ethernet2", "Ethernet3", "Ethernet6"}, []string{"Ethernet1", "Ethernet2", "Ethernet3", "Ethernet6"}, "Ethernet1-3, Ethernet6"},
		{[]string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet20"}, []string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet20", "Ethernet24"}, "Ethernet0-8, Ethernet20"},
		{[]string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"}, []string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"}, "Ethernet0-12"},
		{[]string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4", "Ethernet2/1"}, []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4", "Ethernet2/1"}, "Ethernet1/1-2/1"},
		{[]string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/4"}, []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/4"}, "Ethernet1/1, Ethernet1/2, Ethernet1/4"},
	} {
		if got := PortRanges(c.set, c.all); got != c.want {
			t.Errorf("%v of %v: %q; want %q", c.set, c.all, got, c.want)
		}
	}
}
