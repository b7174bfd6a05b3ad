package sonic

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
)

// A SONiC port whose PORT entry sets no mtu runs at SONiC's default, 9100
// (portmgrd's DEFAULT_MTU_STR); labctl read it as carrying any packet.
// A UET lab whose packets need more (qos.mtu 9100: 9160 bytes) is
// rendered with PORT mtu 9160; with those lines deleted the switches drop
// its packets, and lint said nothing. Lint's QOS020 names every such port
// now, with the default's origin, and a RoCE lab's ports (4156 bytes)
// pass as before; the config's own MTU stays 0 (what headroom sizing,
// Settings and the renderer read).
func TestPortMTUDefault(t *testing.T) {
	roce, _ := qos.Profile("")
	uet := roce
	uet.MTU = fabric.SwitchMTU
	devs := []qos.Device{{Name: "leaf1", Role: "leaf"}}
	for i := range 4 {
		devs[0].Ports = append(devs[0].Ports, qos.Port{Name: InterfaceName(i + 1), SpeedGbps: 400, Peer: fmt.Sprintf("host%d", i), Fabric: true, MTU: fabric.SwitchMTU})
	}
	cfgs, err := qos.ApplyAll(uet, devs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(cfgs[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["PORT"]; !ok {
		t.Fatalf("the UET lab's config has no PORT mtu:\n%s", out)
	}
	delete(doc, "PORT") // the mtu lines deleted, as a hand edit would
	cut, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: cut})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		in   qos.Intent
		want bool // QOS020 on every port
	}{{"uet at qos.mtu 9100", uet, true}, {"roce at 4096", roce, false}} {
		flagged := map[string]string{}
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{Intent: &c.in}) {
			if f.Rule != qos.RulePortMTU {
				continue
			}
			if strings.Contains(f.Fix, "is usual") {
				t.Errorf("%s: QOS020's fix calls an MTU usual that does not carry the lab's packets: %s", c.name, f.Fix)
			}
			// Lint names the ports of one message together.
			for _, p := range append(f.Ports, f.Port) {
				flagged[p] = f.Message
			}
		}
		for _, p := range dc.Ports {
			msg, got := flagged[p.Name]
			if p.MTU != 0 || p.EnforcedMTU() != cfgDefaultPortMTU || got != c.want {
				t.Errorf("%s: %s without PORT mtu: MTU %d, enforced %d, QOS020 %v; want 0, %d, %v", c.name, p.Name, p.MTU, p.EnforcedMTU(), got, cfgDefaultPortMTU, c.want)
			}
			if got && (!strings.Contains(msg, "MTU 9100 (SONiC's default: the port's PORT entry sets no mtu") || !strings.Contains(msg, "config load")) {
				t.Errorf("%s: %s: QOS020 does not say the MTU is SONiC's default, assumed where config load leaves the switch's own: %s", c.name, p.Name, msg)
			}
		}
	}
	// A port the config does not name at all (a lab's port missing from
	// the files) runs at the default too.
	if dp := dc.DefaultPort; dp == nil || dp.EnforcedMTU() != cfgDefaultPortMTU || !strings.Contains(dp.Origins["mtu"], "SONiC's default") {
		t.Errorf("a port the config does not name: %+v", dp)
	}
	if d := defaultOf(dc, "PORT mtu"); d == nil || len(d.Ports) != len(dc.Ports) || !strings.Contains(d.Source, "DEFAULT_MTU_STR") {
		t.Errorf("no Default for PORT mtu on every port: %+v", d)
	}

	// A PORT mtu portsorch refuses leaves the port its MTU, the default
	// too; one it takes is the port's own, with no default.
	for _, c := range []struct {
		mtu               string
		own, enforced     int
		origin, defaulted bool
	}{{"abc", 0, cfgDefaultPortMTU, true, true}, {"1500", 1500, 1500, false, false}, {"9216", 9216, 9216, false, false}} {
		in := `{"PORT": {"Ethernet0": {"mtu": ` + strconv.Quote(c.mtu) + `}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		p := dc.Port("Ethernet0")
		o := p.Origins["mtu"]
		if p.MTU != c.own || p.EnforcedMTU() != c.enforced || (o != "") != c.origin || (defaultOf(dc, "PORT mtu") != nil) != c.defaulted {
			t.Errorf("mtu %q: MTU %d, enforced %d, origin %q, default %v; want %d, %d", c.mtu, p.MTU, p.EnforcedMTU(), o, defaultOf(dc, "PORT mtu"), c.own, c.enforced)
		}
		if c.origin && !strings.Contains(o, `it refuses mtu "abc"`) {
			t.Errorf("mtu %q: origin %q does not name the refused value", c.mtu, o)
		}
	}
}

func defaultOf(dc qos.DeviceConfig, field string) *qos.Default {
	for i := range dc.Defaults {
		if dc.Defaults[i].Field == field {
			return &dc.Defaults[i]
		}
	}
	return nil
}

// The MTU labctl assumes of a SONiC port without PORT mtu is SONiC's
// default, and the startup config labctl gives its SONiC switches
// (fabric.WriteSonicStartup) sets that MTU, so that a lab's rendered
// config, which writes PORT mtu only above it, runs as labctl reads it;
// the PORT mtu field's description gives the default.
func TestDefaultPortMTU(t *testing.T) {
	if cfgDefaultPortMTU != fabric.SwitchMTU {
		t.Errorf("SONiC's default port MTU %d, the startup config's %d: a rendered config that leaves mtu out runs at the startup config's", cfgDefaultPortMTU, fabric.SwitchMTU)
	}
	f, _ := reflect.TypeOf(PortEntry{}).FieldByName("MTU")
	if why := f.Tag.Get("why"); !strings.Contains(why, "default, "+strconv.Itoa(cfgDefaultPortMTU)) || !strings.Contains(why, "DEFAULT_MTU_STR") {
		t.Errorf("PORT mtu's description does not give the default %d: %s", cfgDefaultPortMTU, why)
	}
}

// The headroom labctl computes for a PG SONiC's buffer manager sizes is
// for the MTU the port runs at, SONiC's 9100 where its PORT entry sets
// none (buffermgrdyn's DEFAULT_MTU_STR), the MTU QOS006 checks it
// against: computed for 4096, it fell short of labctl's own check.
func TestComputedHeadroomAtTheDefaultMTU(t *testing.T) {
	in := `{"PORT": {"Ethernet0": {"speed": "100000"}},
		"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m"}},
		"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
		"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
		"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
		"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}); len(fs) > 0 {
		for _, f := range fs {
			if f.Rule == qos.RuleHeadroomShort {
				t.Errorf("QOS006 on the computed PG: %s", f.Message)
			}
		}
	}
}
