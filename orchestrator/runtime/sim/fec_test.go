package sim

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
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

// A fault on a link that does not come up for its FEC modes is refused as
// one on an administratively down link is (runtime.DownEnd decides both):
// it names the two ends' modes, both configs' files and the fix, where
// the simulator said the faults overlap.
func TestFaultOnFECMismatchedLinkIsRefused(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	lk, _, err := l.Graph.LinkByName("leaf1-spine1")
	if err != nil {
		t.Fatal(err)
	}
	for node, fec := range map[string]string{lk.A.Node: "none", lk.B.Node: "rs"} {
		port := lk.A.Port
		if node == lk.B.Node {
			port = lk.B.Port
		}
		editSONiC(t, l, node, func(doc map[string]map[string]map[string]string) {
			doc["PORT"] = map[string]map[string]string{port: {"fec": fec}}
		})
	}
	err = runLinkDown(t, l, "link: leaf1-spine1")
	if exitcode.Code(err) != exitcode.BadInput {
		t.Fatalf("exit %d (%v), want %d", exitcode.Code(err), err, exitcode.BadInput)
	}
	for _, want := range []string{"link leaf1:" + lk.A.Port + " - spine1:" + lk.B.Port + " (leaf1-spine1) is down for its FEC modes",
		"(leaf1:" + lk.A.Port + " fec none, spine1:" + lk.B.Port + " fec rs: FEC none at one end and rs",
		filepath.Join(l.ConfigsDir(), "leaf1.json"), filepath.Join(l.ConfigsDir(), "spine1.json"), qos.FECMatchFix, "fault a link that is up"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in %v", want, err)
		}
	}
}
