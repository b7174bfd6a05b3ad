package sim

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// An EOS Ethernet interface is a switchport unless its block says no
// switchport, and EOS ignores IP configuration on a switchport. What a
// leaf's config shows of a port's mode depends on what the file is: the
// lab's own configs are QoS alone, pushed over a startup config that
// holds no switchport and the addresses (fabric.Graph.WriteEOSStartup),
// so a port whose block drops no switchport stays routed on the switch;
// a config taken from a switch (show running-config) is whole, its
// routed ports carrying their addresses, so there a port without no
// switchport is a switchport. Lint errs (QOS026) and the simulator runs
// the link down only on evidence sound in both (qos.NotRouted): the
// port's own address, its own switchport line facing a routed port, or
// its silence in a whole config facing a routed port. A leaf's host
// ports bridged into a VLAN whose SVI routes for them (EOS's common leaf
// layout) are no error. labctl erred and took the links down on no
// switchport on the switch's other ports alone: the SVI layout's host
// ports, and an uplink's line deleted from the lab's own QoS file.
func TestRoutedPortMadeL2IsALinkDownFromTheStart(t *testing.T) {
	type lab struct {
		l      *runtime.Lab
		cfg    string         // leaf1's config file
		ups    []*fabric.Link // leaf1's uplinks, leaf1 at A
		hosts  []string       // leaf1's host ports
		upPeer string         // the first uplink's spine end, node:port
	}
	newLab := func() lab {
		l := upLab(t, "16gpu", "eos")
		x := lab{l: l, cfg: filepath.Join(l.ConfigsDir(), "leaf1.cfg")}
		for _, lk := range l.Graph.Links {
			switch {
			case lk.Kind == fabric.KindLeafSpine && lk.A.Node == "leaf1":
				x.ups = append(x.ups, lk)
			case lk.Kind == fabric.KindHostLeaf && lk.A.Node == "leaf1":
				x.hosts = append(x.hosts, lk.A.Port)
			case lk.Kind == fabric.KindHostLeaf && lk.B.Node == "leaf1":
				x.hosts = append(x.hosts, lk.B.Port)
			}
		}
		if len(x.ups) < 2 || len(x.hosts) == 0 {
			t.Fatalf("leaf1: uplinks %v, host ports %v; want two and one", x.ups, x.hosts)
		}
		x.upPeer = x.ups[0].B.Node + ":" + x.ups[0].B.Port
		return x
	}
	block := func(port string) string { return `(?m)^(interface ` + port + `\n(?:   .*\n)*?)` }
	unroute := func(x lab, port string) {
		editFile(t, x.cfg, regexp.MustCompile(block(port)+`   no switchport\n`), "$1")
	}
	// address gives leaf1's uplinks from the i-th on their addresses, as
	// a running-config shows them: the file becomes a whole config.
	address := func(x lab, from int) {
		for i, lk := range x.ups[from:] {
			editFile(t, x.cfg, regexp.MustCompile(block(lk.A.Port)+`(   no switchport\n)`), fmt.Sprintf("$1$2   ip address 10.0.0.%d/31\n", 2*i))
		}
	}
	check := func(name string, x lab, wantDown bool, wantWhy string) {
		t.Helper()
		cfgs, err := runtime.LoadConfigs(x.l)
		if err != nil {
			t.Fatal(err)
		}
		var down []string
		for _, d := range runtime.DownFromStart(x.l.Graph, runtime.ConfigsByDevice(cfgs), false) {
			down = append(down, d.Link.A.Node+":"+d.Link.A.Port+" "+d.Why.Why)
		}
		var found []string
		flagged := false
		for _, f := range qos.Lint(cfgs, qos.LintOptions{}) {
			if f.Rule != qos.RulePortDown {
				continue
			}
			found = append(found, f.Device+" "+f.Port+": "+f.Message)
			flagged = flagged || f.Severity == qos.SevError && f.Device == "leaf1" && strings.Contains(f.Port, x.ups[0].A.Port) &&
				strings.Contains(f.Message, x.upPeer) && strings.Contains(f.Message, wantWhy) && f.Fix == qos.NotRoutedFix
		}
		if !wantDown {
			if len(down) > 0 || len(found) > 0 {
				t.Errorf("%s: down from the start %q, QOS026 %q; want neither", name, down, found)
			}
			return
		}
		if len(down) != 1 || !strings.HasPrefix(down[0], "leaf1:"+x.ups[0].A.Port+" ") || !flagged || len(found) != 1 {
			t.Errorf("%s: down from the start %q, QOS026 %q; want leaf1:%s alone, its error naming %s and saying %q", name, down, found, x.ups[0].A.Port, x.upPeer, wantWhy)
		}
	}
	svi := func(x lab) {
		for _, port := range x.hosts {
			editFile(t, x.cfg, regexp.MustCompile(block(port)+`   no switchport\n`), "$1   switchport access vlan 10\n")
		}
		appendFile(t, x.cfg, "vlan 10\n!\ninterface Vlan10\n   ip address 10.64.0.1/24\n!\n")
	}

	// The lab's own QoS file, no switchport deleted from an uplink's
	// block and from a host port's: the startup config keeps both routed.
	x := newLab()
	unroute(x, x.ups[0].A.Port)
	unroute(x, x.hosts[0])
	check("QoS alone, no switchport deleted from an uplink and a host port", x, false, "")

	// Host ports bridged into VLAN 10, whose SVI routes for them: in the
	// lab's QoS file, and in a whole config (the uplinks addressed).
	x = newLab()
	svi(x)
	check("host ports in VLAN 10 with an SVI, QoS alone", x, false, "")
	address(x, 0)
	check("host ports in VLAN 10 with an SVI, a whole config", x, false, "")

	// A whole config, no switchport deleted from an uplink that keeps its
	// address: EOS ignores the address.
	x = newLab()
	address(x, 0)
	unroute(x, x.ups[0].A.Port)
	check("a whole config, no switchport deleted from an addressed uplink", x, true, "ignores its IP configuration (ip address 10.0.0.0/31")

	// A whole config, no switchport deleted from an uplink with no address
	// of its own (the other uplinks addressed), its spine end routed.
	x = newLab()
	address(x, 1)
	unroute(x, x.ups[0].A.Port)
	check("a whole config, no switchport deleted from an uplink without an address", x, true, "a whole one")
}
