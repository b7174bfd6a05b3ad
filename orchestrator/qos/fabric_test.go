package qos

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/sizing"
)

func TestDevicesFromGraph(t *testing.T) {
	spec, err := lab.Resolve("16gpu")
	if err != nil {
		t.Skipf("catalog lab 16gpu not available: %v", err)
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
	if fs := Lint(cfgs, LintOptions{Intent: &in}); len(fs) != 0 {
		t.Errorf("findings on the rendered 16gpu lab: %+v", fs)
	}
	checked := 0
	for _, d := range devs {
		for _, p := range d.Ports {
			if p.SpeedGbps <= 0 || p.Peer == "" {
				t.Errorf("%s %s: speed %d peer %q", d.Name, p.Name, p.SpeedGbps, p.Peer)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no ports")
	}
}
