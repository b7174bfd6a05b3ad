package sim

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// A switch port kept administratively down (SONiC's PORT admin_status
// down) runs as a link down from the start of the run, which every
// switch knows at once: the sender behind it delivers nothing, the
// others as before.
func TestAdminDownPortIsALinkDownFromTheStart(t *testing.T) {
	l := upSpec(t, nineHosts, "sonic")
	vs := incast8(t, l, "duration: 200us", true, true)
	src := vs.Flows[0].Src
	b, _ := engineConfig(t, l, vs)
	port, ok := b.facingPort(src)
	if !ok {
		t.Fatal("no switch port faces the first sender")
	}
	editSONiC(t, l, port.Node, func(doc map[string]map[string]map[string]string) {
		doc["PORT"] = map[string]map[string]string{port.Port: {"admin_status": "down"}}
	})
	_, cfg := engineConfig(t, l, vs)
	if len(cfg.Faults) != 1 || cfg.Faults[0].DownNs != 0 || cfg.Faults[0].UpNs != 0 || cfg.Faults[0].DetectNs >= 0 || cfg.Faults[0].ConvergeNs >= 0 {
		t.Fatalf("faults = %+v, want the host link down from 0, known at once", cfg.Faults)
	}
	res, err := engine.Run(context.Background(), *cfg)
	if err != nil {
		t.Fatal(err)
	}
	name, _, _ := b.nicName(src)
	for _, f := range res.Flows {
		switch {
		case f.Src == name && f.BytesDelivered > 0:
			t.Errorf("flow %s from the down port's host delivered %d bytes", f.ID, f.BytesDelivered)
		case f.Src != name && f.BytesDelivered == 0:
			t.Errorf("flow %s delivered nothing", f.ID)
		}
	}
}

// A link fault on a link whose port a switch keeps administratively down
// (SONiC PORT admin_status down, EOS shutdown) would change nothing: the
// link is down from the start. The variant is refused as bad input (exit
// 2) with the link, the config entry that takes it down, its file and the
// fix, where the simulator used to say only that two faults overlap.
func TestFaultOnAdminDownLinkIsRefused(t *testing.T) {
	for _, nos := range []string{"sonic", "eos"} {
		t.Run(nos, func(t *testing.T) {
			l := upLab(t, "16gpu", nos)
			lk, _, err := l.Graph.LinkByName("leaf1-spine1")
			if err != nil {
				t.Fatal(err)
			}
			file, entry := "leaf1.json", fmt.Sprintf("PORT|%s admin_status \"down\"", lk.A.Port)
			if nos == "sonic" {
				editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
					doc["PORT"] = map[string]map[string]string{lk.A.Port: {"admin_status": "down"}}
				})
			} else {
				file, entry = "leaf1.cfg", "interface "+lk.A.Port+": shutdown"
				editFile(t, filepath.Join(l.ConfigsDir(), file), regexp.MustCompile(`(?m)^interface `+lk.A.Port+`\n`), "interface "+lk.A.Port+"\n   shutdown\n")
			}
			for _, link := range []string{"link: leaf1:" + lk.A.Port, "link: spine1:" + lk.B.Port, "link: leaf1-spine1"} {
				err := runLinkDown(t, l, link)
				if err == nil {
					t.Fatalf("%s: ran", link)
				}
				if exitcode.Code(err) != exitcode.BadInput {
					t.Errorf("%s: exit %d, want %d", link, exitcode.Code(err), exitcode.BadInput)
				}
				for _, want := range []string{"link leaf1:" + lk.A.Port + " - spine1:" + lk.B.Port + " ", "administratively down", "leaf1: " + entry, filepath.Join(l.ConfigsDir(), file), qos.PortUpFix, "fault a link that is up"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: no %q in %v", link, want, err)
					}
				}
			}
		})
	}
}

// runLinkDown runs a variant of pairs traffic whose one fault takes the
// link that link (a scenario line: "link: leaf1-spine1") names down from
// 50 to 100 µs, and returns the run's error.
func runLinkDown(t *testing.T, l *runtime.Lab, link string) error {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte("name: t\nduration: 200us\nsample_every: 0\ntraffic:\n  - pattern: pairs\nfaults:\n  - kind: link-down\n    "+link+"\n    at: 50us\n    for: 50us\n"))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: "on", ECN: true, PFC: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New().RunVariant(context.Background(), l, vs)
	return err
}

// A fault on every link between two nodes (all: true) of which a switch
// keeps one administratively down takes the others down and leaves that
// one as the configs keep it, down from the start: the timeline says why.
func TestFaultOnAllLinksSparesAnAdminDownOne(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	lk, _, err := l.Graph.LinkByName("leaf1-spine1")
	if err != nil {
		t.Fatal(err)
	}
	editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
		doc["PORT"] = map[string]map[string]string{lk.A.Port: {"admin_status": "down"}}
	})
	v := runScenarioText(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 200us\nsample_every: 0\ntraffic:\n  - pattern: pairs\n"+
		"faults:\n  - kind: link-down\n    link: leaf1-spine1\n    all: true\n    at: 50us\n    for: 50us\n")
	downAt := map[string][]float64{}
	for _, m := range v.Timeline {
		if m.Kind != engine.MarkLinkDown {
			continue
		}
		downAt[m.Where] = append(downAt[m.Where], m.TimeUs)
		if m.TimeUs == 0 && !strings.Contains(m.Detail, `administratively down in the configs from the start (leaf1: PORT|`+lk.A.Port+` admin_status "down")`) {
			t.Errorf("the link down from the start: %q says not why", m.Detail)
		}
	}
	n := len(l.Graph.LinksBetween("leaf1", "spine1"))
	if n < 2 || len(downAt) != n {
		t.Fatalf("links down: %v, want the %d between leaf1 and spine1", downAt, n)
	}
	for where, at := range downAt {
		want := []float64{50}
		if strings.HasPrefix(where, "leaf1:"+lk.A.Port+" ") {
			want = []float64{0}
		}
		if !slices.Equal(at, want) {
			t.Errorf("%s down at %v us, want %v", where, at, want)
		}
	}
}

// An EOS port's subinterfaces ride its link: the parent's shutdown takes
// the link down whatever a subinterface says (no shutdown), as does the
// parent's being down by interface defaults' ethernet shutdown (saying
// neither shutdown nor no shutdown), and a subinterface's own shutdown
// leaves the link, which the parent's routed traffic crosses, up.
func TestEOSSubinterfaceShutdownAndItsLink(t *testing.T) {
	for _, c := range []struct {
		defaults, parent, sub string
		down                  bool
	}{
		{"", "   shutdown\n", "   no shutdown\n", true},
		{"interface defaults\n   ethernet\n      shutdown\n!\n", "", "   no shutdown\n", true},
		{"", "", "   shutdown\n", false},
	} {
		l := upLab(t, "16gpu", "eos")
		lk, _, err := l.Graph.LinkByName("leaf1-spine1")
		if err != nil {
			t.Fatal(err)
		}
		editFile(t, filepath.Join(l.ConfigsDir(), "leaf1.cfg"), regexp.MustCompile(`(?m)^interface `+lk.A.Port+`\n`),
			c.defaults+"interface "+lk.A.Port+".10\n   encapsulation dot1q vlan 10\n   ip address 10.255.0.0/31\n"+c.sub+"!\ninterface "+lk.A.Port+"\n"+c.parent)
		cfgs, err := runtime.LoadConfigs(l)
		if err != nil {
			t.Fatal(err)
		}
		if d := runtime.DownEnd(runtime.ConfigsByDevice(cfgs), lk); d.Down() != c.down {
			t.Errorf("%sparent %q, subinterface %q: link down %v (%+v), want %v", c.defaults, c.parent, c.sub, d.Down(), d, c.down)
		}
		if p := runtime.ConfigsByDevice(cfgs)["leaf1"].Port(lk.A.Port + ".10"); p == nil || p.AdminDown == "" {
			t.Errorf("%sparent %q, subinterface %q: the subinterface up: %+v", c.defaults, c.parent, c.sub, p)
		}
	}
}
