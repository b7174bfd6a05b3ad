package qos

import (
	"reflect"
	"testing"
)

func TestDeviceRanges(t *testing.T) {
	for _, c := range []struct {
		in   []string
		max  int
		want string
	}{
		{[]string{"spine2", "leaf10", "leaf2", "leaf1", "spine1", "leaf3"}, 0, "leaf1-3, leaf10, spine1, spine2"},
		{[]string{"leaf1", "leaf01", "leaf2", "leaf3", "core"}, 0, "core, leaf1-3, leaf01"},
		{[]string{"a1", "a3", "a5", "a7"}, 2, "a1, a3 and 2 more"},
		{[]string{"superspine1", "superspine2", "superspine3", "spine1", "spine2", "spine3"}, 0, "spine1-3, superspine1-3"},
	} {
		if got := DeviceRanges(c.in, c.max); got != c.want {
			t.Errorf("DeviceRanges(%v, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestGroupDevices(t *testing.T) {
	f := func(dev, port, where, msg string) Finding {
		return Finding{Rule: RuleECNThresholds, Severity: SevError, Device: dev, Port: port, Where: where, Message: msg}
	}
	note := func(dev, ports string) Finding {
		return Finding{Rule: RuleParseNote, Severity: SevInfo, Device: dev, Message: NotePorts("assumed", ports)}
	}
	gs := GroupDevices([]Finding{
		note("leaf1", "Ethernet1-48"), f("leaf1", "Ethernet1", "x (c/leaf1.cfg:7)", "m"),
		note("leaf10", "Ethernet1-48"), f("leaf10", "Ethernet1", "x (c/leaf10.cfg:7)", "m"),
		note("leaf2", "Ethernet1-48"), f("leaf2", "Ethernet1", "x (c/leaf2.cfg:7)", "m"),
		// leaf1 in another's file name, or not as a file: not its own.
		f("leaf3", "Ethernet1", "x (c/leaf1.cfg:7)", "m"),
		note("spine1", "Ethernet1-32"),
		f("spine1", "Ethernet1", "x (c/spine1.cfg:9)", "m"),
	})
	type got struct {
		Rule, Port, Where, Message, Switches string
		Devices                              []string
	}
	var out []got
	for _, g := range gs {
		out = append(out, got{g.Rule, g.Port, g.Where, g.Message, g.Switches(0), g.Devices})
	}
	want := []got{
		{RuleParseNote, "", "", "assumed", "leaf1, leaf2, leaf10 (Ethernet1-48); spine1 (Ethernet1-32)", []string{"leaf1", "leaf2", "leaf10", "spine1"}},
		{RuleECNThresholds, "Ethernet1", "x (c/<switch>.cfg:7)", "m", "leaf1, leaf2, leaf10", []string{"leaf1", "leaf2", "leaf10"}},
		{RuleECNThresholds, "Ethernet1", "x (c/leaf1.cfg:7)", "m", "leaf3", []string{"leaf3"}},
		{RuleECNThresholds, "Ethernet1", "x (c/spine1.cfg:9)", "m", "spine1", []string{"spine1"}},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("GroupDevices:\n got %+v\nwant %+v", out, want)
	}
	// Switches with the same ports keep them, a note its suffix.
	gs = GroupDevices([]Finding{note("leaf1", "Ethernet1-48"), note("leaf2", "Ethernet1-48")})
	if len(gs) != 1 || gs[0].Message != NotePorts("assumed", "Ethernet1-48") || gs[0].Switches(0) != "leaf1, leaf2" {
		t.Errorf("a note on the same ports of 2 switches: %+v", gs)
	}
}

// TestGroupDevicesPortsPerSwitch: the same finding on Ethernet1 and
// Ethernet5 of 3 switches is a group for each port, each of the 3
// switches, where a switch's second port started a group that the next
// switch's first port joined ("2 switches (leaf1 (Ethernet5); leaf2
// (Ethernet1))"); groups of other ports on other switches still merge.
func TestGroupDevicesPortsPerSwitch(t *testing.T) {
	f := func(dev, port string) Finding {
		return Finding{Rule: RuleECNThresholds, Severity: SevError, Device: dev, Port: port, Where: "x (c/" + dev + ".cfg:7)", Message: "m"}
	}
	var fs []Finding
	for _, d := range []string{"leaf1", "leaf2", "leaf3"} {
		fs = append(fs, f(d, "Ethernet1"), f(d, "Ethernet5"))
	}
	type got struct{ Port, Place string }
	var out []got
	for _, g := range GroupDevices(append(fs, f("spine1", "Ethernet9"))) {
		out = append(out, got{g.Port, g.Place(0)})
	}
	want := []got{
		{"", "4 switches (leaf1-3 (Ethernet1); spine1 (Ethernet9))"},
		{"Ethernet5", "3 switches (leaf1-3) Ethernet5"},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("GroupDevices:\n got %+v\nwant %+v", out, want)
	}
	// Two findings of one cause on one port of each switch stay two.
	out = nil
	for _, g := range GroupDevices([]Finding{f("leaf1", "Ethernet1"), f("leaf1", "Ethernet1"), f("leaf2", "Ethernet1"), f("leaf2", "Ethernet1")}) {
		out = append(out, got{g.Port, g.Place(0)})
	}
	if w := (got{"Ethernet1", "2 switches (leaf1, leaf2) Ethernet1"}); !reflect.DeepEqual(out, []got{w, w}) {
		t.Errorf("twice on each switch: %+v", out)
	}
}

// TestGroupDevicesKeepsCauses: the same message at another severity, or
// with another fix, is another cause: its switches are a group of their
// own.
func TestGroupDevicesKeepsCauses(t *testing.T) {
	f := func(dev string, sev Severity, fix string) Finding {
		return Finding{Rule: RuleECNThresholds, Severity: sev, Device: dev, Port: "Ethernet1", Message: "m", Fix: fix}
	}
	for name, fs := range map[string][]Finding{
		"severity": {f("leaf1", SevError, "a"), f("leaf2", SevWarning, "a"), f("leaf3", SevError, "a")},
		"fix":      {f("leaf1", SevError, "a"), f("leaf2", SevError, "b"), f("leaf3", SevError, "a")},
	} {
		gs := GroupDevices(fs)
		if len(gs) != 2 || !reflect.DeepEqual(gs[0].Devices, []string{"leaf1", "leaf3"}) || !reflect.DeepEqual(gs[1].Devices, []string{"leaf2"}) ||
			gs[1].Severity != fs[1].Severity || gs[1].Fix != fs[1].Fix {
			t.Errorf("%s differs on leaf2: %+v", name, gs)
		}
	}
}
