package sim

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// A link whose two ends' SONiC configs set different FEC modes never
// comes up (qos.FECMismatch, lint's QOS009): the simulator runs it down
// from the start, as it runs an administratively down port. The same
// mode at both ends, or a mode at one end only (the other runs the
// switch's own, which labctl does not know), leaves it up.
func TestFECMismatchIsALinkDownFromTheStart(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := incast8(t, l, "duration: 100us", true, true)
	b, _ := engineConfig(t, l, vs)
	var up *fabric.Link
	for _, lk := range b.g.Links {
		if lk.Kind == fabric.KindLeafSpine {
			up = lk
			break
		}
	}
	if up == nil {
		t.Fatal("no leaf-spine link")
	}
	setFEC := func(node, port, fec string) {
		editSONiC(t, l, node, func(doc map[string]map[string]map[string]string) {
			doc["PORT"] = map[string]map[string]string{port: {"fec": fec}}
		})
	}
	for _, c := range []struct {
		a, z string
		down bool
	}{
		{"rs", "", false},
		{"rs", "rs", false},
		{"auto", "none", false},
		{"none", "rs", true},
		{"fc", "rs", true},
	} {
		setFEC(up.A.Node, up.A.Port, c.a)
		if c.z != "" {
			setFEC(up.B.Node, up.B.Port, c.z)
		} else {
			editSONiC(t, l, up.B.Node, func(doc map[string]map[string]map[string]string) { delete(doc, "PORT") })
		}
		_, cfg := engineConfig(t, l, vs)
		var faulted bool
		for _, f := range cfg.Faults {
			if f.Link.Node == up.A.Node && f.DownNs == 0 && f.DetectNs < 0 {
				faulted = true
			}
		}
		if faulted != c.down {
			t.Errorf("FEC %q and %q: link %s-%s down from the start %v, want %v (faults %+v)", c.a, c.z, up.A.Node, up.B.Node, faulted, c.down, cfg.Faults)
		}
	}
}
