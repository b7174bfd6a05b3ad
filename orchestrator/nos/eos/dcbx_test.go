package eos

import (
	"strings"
	"testing"
)

// dcbx mode ieee and no dcbx mode in an interface block, as a user adds
// them, were dropped without a word: each is a note at its line saying
// what labctl does with it, and the model is the same as without it.
func TestDCBXLinesAreNoted(t *testing.T) {
	base := `qos map dscp 26 to traffic-class 3
interface Ethernet1
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
`
	for _, line := range []string{"dcbx mode ieee", "no dcbx mode", "default dcbx mode"} {
		cfg := strings.Replace(base, "   qos trust dscp\n", "   qos trust dscp\n   "+line+"\n", 1)
		if got, want := modelJSON(t, cfg), modelJSON(t, base); got != want {
			t.Errorf("%q changes the model:\n got %s\nwant %s", line, got, want)
		}
		dc := mustParseEOS(t, cfg)
		var noted bool
		for _, n := range dc.Notes {
			noted = noted || strings.Contains(n, ":4: ") && strings.Contains(n, line) && strings.Contains(n, "DCBX") && strings.Contains(n, "fix: ")
		}
		if !noted {
			t.Errorf("%q: no note at its line: %q", line, dc.Notes)
		}
	}
	// An interface range's line is one note, not one a port.
	cfg := strings.Replace(base, "interface Ethernet1\n", "interface Ethernet1-4\n   dcbx mode ieee\n", 1)
	var n int
	for _, note := range mustParseEOS(t, cfg).Notes {
		if strings.Contains(note, "DCBX") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("interface Ethernet1-4 with dcbx mode ieee: %d notes, want 1", n)
	}
}
