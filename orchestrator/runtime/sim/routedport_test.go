package sim

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// An EOS Ethernet interface is a switchport unless its block says no
// switchport, and EOS ignores IP configuration on a switchport: a user
// deleting the no switchport line from a leaf's uplink (or from a port
// facing a host) turns a routed link into an L2 one that routes nothing.
// Lint errs (QOS026) naming the port, the peer and the fix, and the
// simulator runs the link down from the start. labctl read the port as
// routed, and lint, run and regress passed. A config that says nothing of
// port modes at all (QoS lines alone, on both ends) is not flagged: its
// ports' modes are the switch's other config's.
func TestRoutedPortMadeL2IsALinkDownFromTheStart(t *testing.T) {
	l := upLab(t, "16gpu", "eos")
	var up, host *fabric.Link
	for _, lk := range l.Graph.Links {
		switch {
		case up == nil && lk.Kind == fabric.KindLeafSpine && lk.A.Node == "leaf1":
			up = lk
		case host == nil && lk.Kind == fabric.KindHostLeaf:
			host = lk
		}
	}
	if up == nil || host == nil {
		t.Fatal("no leaf1-spine or host-leaf link")
	}
	leafEnd := host.A
	if !strings.HasPrefix(leafEnd.Node, "leaf") {
		leafEnd = host.B
	}
	unroute := func(node, port string) {
		editFile(t, filepath.Join(l.ConfigsDir(), node+".cfg"), regexp.MustCompile(`(?m)^(interface `+port+`\n(?:   .*\n)*?)   no switchport\n`), "$1")
	}
	load := func() (map[string]bool, []qos.Finding) {
		cfgs, err := runtime.LoadConfigs(l)
		if err != nil {
			t.Fatal(err)
		}
		down := map[string]bool{}
		for _, d := range runtime.DownFromStart(l.Graph, runtime.ConfigsByDevice(cfgs), false) {
			down[d.Link.A.Node+":"+d.Link.A.Port] = true
		}
		var found []qos.Finding
		for _, f := range qos.Lint(cfgs, qos.LintOptions{}) {
			if f.Rule == qos.RulePortDown {
				found = append(found, f)
			}
		}
		return down, found
	}
	errsAt := func(found []qos.Finding, node, port, peer string) bool {
		for _, f := range found {
			if f.Severity == qos.SevError && f.Device == node && strings.Contains(f.Port, port) &&
				strings.Contains(f.Message, peer) && strings.Contains(f.Message, "not a routed port") && strings.Contains(f.Fix, "no switchport") {
				return true
			}
		}
		return false
	}

	unroute(up.A.Node, up.A.Port)
	unroute(leafEnd.Node, leafEnd.Port)
	down, found := load()
	if !down[up.A.Node+":"+up.A.Port] || !down[host.A.Node+":"+host.A.Port] {
		t.Errorf("down from the start %v; want %s (its leaf end without no switchport, the spine's routed) and %s (a host's leaf port without it, the leaf's other ports routed)", down, up.A.Node+":"+up.A.Port, host.A.Node+":"+host.A.Port)
	}
	if !errsAt(found, up.A.Node, up.A.Port, up.B.Node+":"+up.B.Port) || !errsAt(found, leafEnd.Node, leafEnd.Port, "") {
		t.Errorf("no QOS026 error naming %s:%s and its peer %s:%s, and %s:%s, with the fix no switchport; QOS026: %v", up.A.Node, up.A.Port, up.B.Node, up.B.Port, leafEnd.Node, leafEnd.Port, found)
	}

	// Every switch's files without no switchport: QoS alone, which says
	// nothing of port modes: nothing is flagged, no link is down.
	files, _ := filepath.Glob(filepath.Join(l.ConfigsDir(), "*.cfg"))
	if len(files) < 2 {
		t.Fatalf("configs %v: want a leaf's and a spine's", files)
	}
	for _, path := range files {
		editFile(t, path, regexp.MustCompile(`(?m)^   no switchport\n`), "")
	}
	if down, found := load(); len(down) > 0 || len(found) > 0 {
		t.Errorf("configs of QoS alone: down %v, QOS026 %v; want neither", down, found)
	}
}
