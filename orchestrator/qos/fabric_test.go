package qos

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/sizing"
)

func TestDevicesFromGraph(t *testing.T) {
	for _, name := range []string{"16gpu", "64gpu"} {
		t.Run(name, func(t *testing.T) { testDevicesFromGraph(t, name) })
	}
}

func testDevicesFromGraph(t *testing.T, name string) {
	spec, err := lab.Resolve(name)
	if err != nil {
		t.Skipf("catalog lab %s not available: %v", name, err)
	}
	plan, err := sizing.Compute(spec.Sizing.Normalize())
	if err != nil {
		t.Fatal(err)
	}
	g, err := fabric.Build(spec, plan)
	if err != nil {
		t.Fatal(err)
	}
	devs := DevicesFromGraph(g)
	if len(devs) != len(g.Switches()) || len(devs) == 0 {
		t.Fatalf("devices = %d, switches = %d", len(devs), len(g.Switches()))
	}
	in, _ := Profile("")
	cfgs, err := ApplyAll(in, devs)
	if err != nil {
		t.Fatal(err)
	}
	// A freshly rendered lab passes lint, links checked from both ends.
	if fs := withoutSimNotes(Lint(cfgs, LintOptions{Intent: &in})); len(fs) != 0 {
		t.Errorf("findings on the rendered %s lab: %+v", name, fs)
	}
	checked := 0
	for _, d := range devs {
		// The switch's own port names are known, so that lint finds
		// entries keyed by a port it does not have; a wired port is one.
		if d.FrontPanel < 64 || d.Kind != fabric.KindSonicVS || d.NoSuchPort(d.Ports[0].Name) || !d.NoSuchPort("Ethernet999") {
			t.Errorf("%s: kind %q, %d front-panel ports", d.Name, d.Kind, d.FrontPanel)
		}
		for _, p := range d.Ports {
			// Merged lab links keep per-member speeds (64gpu on SONiC
			// merges 16 x 400G leaf uplinks into one lab port).
			if p.SpeedGbps <= 0 || p.SpeedGbps > 800 || p.Peer == "" {
				t.Errorf("%s %s: speed %d peer %q", d.Name, p.Name, p.SpeedGbps, p.Peer)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no ports")
	}
}
