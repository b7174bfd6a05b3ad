package qos

import (
	"strconv"
	"strings"
	"testing"
)

// Without the lab's intent, QOS006 sizes a port's headroom for the MTU
// the port runs at (EnforcedMTU): the config's, else the NOS's default
// (SONiC's 9100, which its dynamic buffer manager sizes a port without
// mtu for, DEFAULT_MTU_STR), the one QOS020 and the simulator hold its
// packets to. It took 4096 where the config gave no mtu, passing a
// headroom short of a 9100-byte frame. Where the headroom holds RoCE's
// largest frames (path MTU 4096) it is a warning: lint does not know the
// class carries RoCE alone.
func TestHeadroomAtThePortsDefaultMTU(t *testing.T) {
	_, cfgs := lintBase(t)
	p := cfgs[0].Port("Ethernet4")
	p.MTU, p.DefaultMTU, p.LinkCableM = 0, 9100, 0
	g := p.Class(3).PGConfig
	// Enough for 4096-byte frames, not for 9100.
	need4096 := HeadroomBytes(p.SpeedGbps, 4096, p.CableM, ResponseBits(p.SpeedGbps))
	need9100 := HeadroomBytes(p.SpeedGbps, 9100, p.CableM, ResponseBits(p.SpeedGbps))
	g.XoffBytes = Ptr(need4096)
	g.SizeBytes = Ptr(Val(g.XoffBytes) + Val(g.XonBytes))
	var got []Finding
	for _, f := range findings(Lint(cfgs, LintOptions{}), RuleHeadroomShort) {
		if f.Device == "leaf1" && f.Port == "Ethernet4" {
			got = append(got, f)
		}
	}
	// RoCE's own frames (path MTU 4096) fit: a warning, as lint does not
	// know the class carries RoCE alone.
	if len(got) != 1 || got[0].Severity != SevWarning || !strings.Contains(got[0].Message, "below the "+strconv.FormatInt(need9100, 10)+" bytes needed") || !strings.Contains(got[0].Message, "MTU 9100") ||
		!strings.Contains(got[0].Message, "it holds RoCE's largest frames") {
		t.Fatalf("QOS006 on leaf1 Ethernet4: %+v, want one warning at the default MTU 9100 (%d bytes)", got, need9100)
	}
	// Short of RoCE's frames too: an error.
	g.XoffBytes = Ptr(need4096 - 1000)
	g.SizeBytes = Ptr(Val(g.XoffBytes) + Val(g.XonBytes))
	got = nil
	for _, f := range findings(Lint(cfgs, LintOptions{}), RuleHeadroomShort) {
		if f.Device == "leaf1" && f.Port == "Ethernet4" {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != SevError {
		t.Fatalf("QOS006 on leaf1 Ethernet4 short of RoCE's frames: %+v, want one error", got)
	}
	g.XoffBytes = Ptr(need4096)
	g.SizeBytes = Ptr(Val(g.XoffBytes) + Val(g.XonBytes))
	// The port's own mtu is what it runs at.
	p.MTU = 4096
	for _, f := range findings(Lint(cfgs, LintOptions{}), RuleHeadroomShort) {
		if f.Device == "leaf1" && f.Port == "Ethernet4" {
			t.Errorf("QOS006 at mtu 4096: %+v", f)
		}
	}
}
