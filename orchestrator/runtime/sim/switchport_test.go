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

// A leaf's routed uplink made a switchport (EOS: a switchport line in its
// interface block; SONiC: a VLAN_MEMBER entry, as a user adds it) may
// route nothing on the switch: lint warns (QOS026) naming the port, the
// statement and the fix. labctl read both as changing nothing, silently.
// On EOS, which ignores IP configuration on a switchport (qos.NotRouted),
// the port routes nothing where its peer is routed: lint errs, and the
// simulator runs the link down from the start.
func TestSwitchportOnARoutedFabricPortIsWarned(t *testing.T) {
	for _, nos := range []string{"eos", "sonic"} {
		l := upLab(t, "16gpu", nos)
		var up *fabric.Link
		for _, lk := range l.Graph.Links {
			if lk.Kind == fabric.KindLeafSpine && lk.A.Node == "leaf1" {
				up = lk
				break
			}
		}
		if up == nil {
			t.Fatal("no leaf1-spine link")
		}
		port := up.A.Port
		if nos == "eos" {
			appendFile(t, filepath.Join(l.ConfigsDir(), "leaf1.cfg"), "interface "+port+"\n   switchport\n!\n")
		} else {
			editFile(t, filepath.Join(l.ConfigsDir(), "leaf1.json"), regexp.MustCompile(`^\{`), `{"VLAN": {"Vlan100": {"vlanid": "100"}}, "VLAN_MEMBER": {"Vlan100|`+port+`": {"tagging_mode": "untagged"}}, `)
		}
		cfgs, err := runtime.LoadConfigs(l)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		flagged := false
		for _, f := range qos.Lint(cfgs, qos.LintOptions{}) {
			if f.Rule == qos.RulePortDown {
				got = append(got, f.Port+": "+f.Message)
				sev, fix, stmt := qos.SevWarning, qos.SwitchedFix, "VLAN_MEMBER|"
				if nos == "eos" {
					sev, fix, stmt = qos.SevError, qos.NotRoutedFix, "switchport ("
				}
				flagged = flagged || f.Severity == sev && f.Device == "leaf1" && strings.Contains(f.Port, port) && strings.Contains(f.Message, "routes nothing") && strings.Contains(f.Message, stmt) && f.Fix == fix
			}
		}
		if !flagged {
			t.Errorf("%s: no QOS026 finding for leaf1 %s made a switchport; QOS026 findings: %q", nos, port, got)
		}
		down := false
		for _, d := range runtime.DownFromStart(l.Graph, runtime.ConfigsByDevice(cfgs), false) {
			down = down || d.Link == up
		}
		if down != (nos == "eos") {
			t.Errorf("%s: link %s-%s down from the start %v, want %v", nos, up.A.Node, up.B.Node, down, nos == "eos")
		}
	}
}
