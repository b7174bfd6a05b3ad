package sim

import (
	"context"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// PFC_WD|GLOBAL BIG_RED_SWITCH enable holds every port's pfcwd_sw_enable
// priorities (3, RoCE's) in the watchdog's drop action from the start
// (pfcwdsworch's enableBigRedSwitchMode): the simulator runs them in the
// engine's drop state, so the incast through the leaf delivers nothing,
// its packets counted as watchdog drops, no pause frame goes out and no
// storm is declared; the flow-level model gives the flows no rate.
func TestBigRedSwitchDropsTheWatchedPrioritiesFromTheStart(t *testing.T) {
	l := upSpec(t, nineHosts, "sonic")
	vs := incast8(t, l, "duration: 200us", true, true)
	_, before := engineConfig(t, l, vs)
	rates, err := engine.FlowLevelRates(*before)
	if err != nil {
		t.Fatal(err)
	}
	if rates[0] <= 0 {
		t.Fatalf("flow-level rate %v without the switch", rates[0])
	}
	editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
		if doc["PFC_WD"] == nil {
			doc["PFC_WD"] = map[string]map[string]string{}
		}
		if doc["PFC_WD"]["GLOBAL"] == nil {
			doc["PFC_WD"]["GLOBAL"] = map[string]string{}
		}
		doc["PFC_WD"]["GLOBAL"]["BIG_RED_SWITCH"] = "enable"
	})
	_, cfg := engineConfig(t, l, vs)
	held := 0
	for ref, qs := range cfg.QoS {
		for pr, q := range qs {
			if q.WatchdogDrop {
				held++
				if pr != 3 {
					t.Errorf("%v priority %d held in the drop action, want 3 only", ref, pr)
				}
			}
		}
	}
	if held == 0 {
		t.Fatal("no port's priority 3 is held in the drop action")
	}
	res, err := engine.Run(context.Background(), *cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Flows {
		if f.BytesDelivered > 0 {
			t.Errorf("flow %s delivered %d bytes through the big red switch", f.ID, f.BytesDelivered)
		}
	}
	if tt := res.Totals; tt.WatchdogDrops == 0 || tt.PauseFrames != 0 {
		t.Errorf("watchdog drops %d, pause frames %d: want drops and no pause", tt.WatchdogDrops, tt.PauseFrames)
	}
	for _, p := range res.Ports {
		if p.WatchdogStorms > 0 {
			t.Errorf("%s:%s declared %d storms", p.Node, p.Port, p.WatchdogStorms)
		}
	}
	rates, err = engine.FlowLevelRates(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rates {
		if r != 0 {
			t.Errorf("flow-level rate of flow %d is %v, want 0", i, r)
		}
	}
}

// A port's own watchdog poll interval (EOS's port timer polling-interval)
// is the one the simulator polls that port's queues at; a port without
// one polls at the device's.
func TestWatchdogPollsAtThePortsInterval(t *testing.T) {
	dc := &qos.DeviceConfig{WatchdogPollMs: 100}
	for _, c := range []struct{ port, want int64 }{{0, 100e6}, {1000, 1000e6}} {
		w := watchdog(dc, &qos.PortWatchdog{DetectionMs: 200, RestorationMs: 200, Action: "drop", PollMs: int(c.port)})
		if w.PollNs != c.want {
			t.Errorf("port poll %d ms: the engine polls every %d ns, want %d", c.port, w.PollNs, c.want)
		}
	}
}
