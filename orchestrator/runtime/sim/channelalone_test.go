package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// A port an EOS config puts in a port channel (channel-group) whose
// link's other end is in none (a host's NIC, a spine port left out) has
// no LACP partner and carries nothing: the simulator runs its link down
// from the start, as lint's QOS026 says. A link whose both ends are
// members stays up only where both port channels carry an address.
// labctl read the membership as changing nothing.
func TestChannelAtOneEndIsALinkDownFromTheStart(t *testing.T) {
	l := upLab(t, "16gpu", "eos")
	var up, down *fabric.Link
	for _, lk := range l.Graph.Links {
		switch {
		case up == nil && lk.Kind == fabric.KindLeafSpine && lk.A.Node == "leaf1":
			up = lk
		case down == nil && lk.Kind == fabric.KindHostLeaf:
			down = lk
		}
	}
	if up == nil || down == nil {
		t.Fatal("no leaf1-spine or host-leaf link")
	}
	join := func(node, port string) {
		editFile(t, filepath.Join(l.ConfigsDir(), node+".cfg"), regexp.MustCompile(`(?m)^interface `+port+`\n`), "interface "+port+"\n   channel-group 7 mode active\n")
	}
	downFrom := func() map[string]bool {
		cfgs, err := runtime.LoadConfigs(l)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, d := range runtime.DownFromStart(l.Graph, runtime.ConfigsByDevice(cfgs), false) {
			out[d.Link.A.Node+":"+d.Link.A.Port] = true
		}
		return out
	}
	le := down.A
	if down.B.Node[:4] == "leaf" {
		le = down.B
	}
	join(le.Node, le.Port)
	join(up.A.Node, up.A.Port)
	got := downFrom()
	if !got[down.A.Node+":"+down.A.Port] || !got[up.A.Node+":"+up.A.Port] {
		t.Errorf("down from the start %v; want %s (a NIC's port in a channel) and %s (the spine's end in none)", got, down.A.Node+":"+down.A.Port, up.A.Node+":"+up.A.Port)
	}
	// Both ends members: the link's addresses sit on the member ports
	// (the lab's startup configs), and the bundle's traffic is the port
	// channels', which have none: still down (qos.ChannelAlone). labctl
	// took any two members to carry traffic.
	join(up.B.Node, up.B.Port)
	if got := downFrom(); !got[up.A.Node+":"+up.A.Port] {
		t.Errorf("link %s-%s up with both ends in a port channel that has no address", up.A.Node, up.B.Node)
	}
	for i, n := range []string{up.A.Node, up.B.Node} {
		appendFile(t, filepath.Join(l.ConfigsDir(), n+".cfg"), fmt.Sprintf("interface Port-Channel7\n   no switchport\n   ip address 10.99.0.%d/31\n!\n", i))
	}
	if got := downFrom(); got[up.A.Node+":"+up.A.Port] {
		t.Errorf("link %s-%s down with both ends in a port channel that has an address", up.A.Node, up.B.Node)
	}
	cfgs, err := runtime.LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	var flagged bool
	for _, f := range qos.Lint(cfgs, qos.LintOptions{}) {
		flagged = flagged || f.Rule == qos.RulePortDown && f.Severity == qos.SevError && f.Device == le.Node && f.Fix != ""
	}
	if !flagged {
		t.Errorf("lint gives no QOS026 error for %s:%s, a port channel member facing a NIC", le.Node, le.Port)
	}
	// port-channel min-links 2 on a channel of one member: it stays down,
	// and its member's link with it (qos.MemberAlone); min-links 1 is met.
	// labctl read no min-links.
	minLinks := func(n int) {
		appendFile(t, filepath.Join(l.ConfigsDir(), up.A.Node+".cfg"), fmt.Sprintf("interface Port-Channel7\n   port-channel min-links %d\n!\n", n))
	}
	minLinks(2)
	if got := downFrom(); !got[up.A.Node+":"+up.A.Port] {
		t.Errorf("link %s-%s up with %s's Port-Channel7 of one member at min-links 2", up.A.Node, up.B.Node, up.A.Node)
	}
	minLinks(1)
	if got := downFrom(); got[up.A.Node+":"+up.A.Port] {
		t.Errorf("link %s-%s down with %s's Port-Channel7 of one member at min-links 1", up.A.Node, up.B.Node, up.A.Node)
	}
}

// appendFile adds text at the end of the file at path, as a user adds a
// block to a config.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, text...), 0o644); err != nil {
		t.Fatal(err)
	}
}
