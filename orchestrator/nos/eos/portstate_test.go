package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// TestInterfaceShutdownAndSpeed: shutdown keeps the port down in the
// model (no shutdown, its default, up); a speed statement gives the
// port's speed in Gb/s, auto or no speed none, and a form labctl does not
// know is named, not read.
func TestInterfaceShutdownAndSpeed(t *testing.T) {
	for _, tc := range []struct {
		lines string
		down  bool
		gbps  int
	}{
		{"", false, 0},
		{"   shutdown\n", true, 0},
		{"   shutdown\n   no shutdown\n", false, 0},
		{"   shutdown\n   default shutdown\n", false, 0},
		{"   speed forced 100gfull\n", false, 100},
		{"   speed 400g-8\n", false, 400},
		{"   speed 200g\n", false, 200},
		{"   speed forced 10000full\n", false, 10},
		{"   speed forced 100gfull\n   no speed\n", false, 0},
		{"   speed auto\n", false, 0},
		{"   speed auto 100gfull\n", false, 0},
	} {
		_, p := resetPort(t, nil, "interface Ethernet1\n"+tc.lines+"!\n")
		if (p.AdminDown != "") != tc.down || p.SpeedGbps != tc.gbps {
			t.Errorf("%q: admin down %q, speed %d; want down %v, speed %d", tc.lines, p.AdminDown, p.SpeedGbps, tc.down, tc.gbps)
		}
		if tc.gbps > 0 && !strings.Contains(p.Origins["speed"], "interface Ethernet1 speed") {
			t.Errorf("%q: speed origin %q", tc.lines, p.Origins["speed"])
		}
	}
	// Lines that only mention shutdown are not the interface's shutdown.
	_, p := resetPort(t, nil, "interface Ethernet1\n   poe shutdown action maintain\n!\n")
	if p.AdminDown != "" {
		t.Errorf("poe shutdown action read as shutdown: %q", p.AdminDown)
	}
	dc, p := resetPort(t, nil, "interface Ethernet1\n   speed fast\n!\n")
	if p.SpeedGbps != 0 || !strings.Contains(fieldNames(dc), "speed") {
		t.Errorf("speed fast: %d, notes %s", p.SpeedGbps, fieldNames(dc))
	}
}

// fieldNames lists the statements a device's config notes (labctl's
// reading of what it does not simulate or recognise).
func fieldNames(dc qos.DeviceConfig) string {
	var out []string
	for _, f := range dc.Fields {
		out = append(out, f.Field)
	}
	return strings.Join(out, "; ")
}

// TestMisspeltFirstWord: an interface line whose first word is one edit
// from a keyword labctl reads is refused with the keyword, where it
// passed unread (PFC's drop on priority 3 lost without a word); other
// interface commands still pass.
func TestMisspeltFirstWord(t *testing.T) {
	for line, meant := range map[string]string{
		"   priority-flow-contrl priority 3 drop": "priority-flow-control",
		"   shutdwn":          "shutdown",
		"   servce-profile P": "service-profile",
	} {
		_, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte("interface Ethernet1\n" + line + "\n!\n")})
		if err == nil || !strings.Contains(err.Error(), `did you mean "`+meant+`"`) {
			t.Errorf("%q: %v", line, err)
		}
	}
	for _, line := range []string{"   description to host1", "   ip address 10.0.0.1/31", "   flowcontrol receive on", "   spanning-tree portfast"} {
		if _, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte("interface Ethernet1\n" + line + "\n!\n")}); err != nil {
			t.Errorf("%q refused: %v", line, err)
		}
	}
}
