package sim

import (
	"context"
	"testing"

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
