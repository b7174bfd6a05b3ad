package sim

import "testing"

// TestPauseFromPG: a PFC priority is paused by the PG the port's
// PFC-priority-to-PG map names. An 8:1 incast on priority 3 through one
// switch drops nothing while each ingress port's PG 3 sends priority 3's
// pauses (no map, or the identity); with priority 3's pauses taken from
// PG 0, which no lossless traffic fills, PG 3 fills its headroom with no
// pause sent and drops.
func TestPauseFromPG(t *testing.T) {
	run := func(from map[int]int) *Result {
		cfg := Config{
			Topology:   star(9, 100),
			DefaultQoS: losslessQoS(true, false, 0, 0),
			DurationNs: 200_000,
			Seed:       1,
		}
		if from != nil {
			cfg.Maps = map[PortRef]PortMaps{}
		}
		for i := 1; i <= 8; i++ {
			cfg.Flows = append(cfg.Flows, Flow{ID: fmtVal(i), Src: "h" + fmtVal(i), Dst: "h0"})
			if from != nil {
				cfg.Maps[PortRef{"sw", "Ethernet" + fmtVal(i)}] = PortMaps{PauseFromPG: from}
			}
		}
		return mustRun(t, cfg)
	}
	for name, from := range map[string]map[int]int{"no map": nil, "identity": {0: 0, 3: 3, 6: 6}} {
		if r := run(from); r.Totals.Drops != 0 || r.Totals.PauseFrames == 0 {
			t.Errorf("%s: %d drops, %d pause frames; want none and some", name, r.Totals.Drops, r.Totals.PauseFrames)
		}
	}
	r := run(map[int]int{3: 0})
	if r.Totals.Drops == 0 || r.Totals.PauseFrames != 0 {
		t.Errorf("priority 3 paused by PG 0: %d drops, %d pause frames; want drops and no pause", r.Totals.Drops, r.Totals.PauseFrames)
	}
	cfg := Config{Topology: star(2, 100), Maps: map[PortRef]PortMaps{{"sw", "Ethernet0"}: {PauseFromPG: map[int]int{3: 8}}}}
	if _, err := Run(t.Context(), cfg); err == nil {
		t.Error("a pause-from-PG entry to PG 8 is taken")
	}
}
