package sim

import (
	"strings"
	"testing"
)

// TestRemarkDSCP: a switch port that remarks the packets it sends
// (PortMaps.RemarkDSCP) hands the next switch a DSCP it classifies anew.
// Seven senders, four of them behind another leaf, write to one NIC
// through PFC on priority 3: nothing drops while RoCE keeps DSCP 26; with
// every switch port rewriting priority 3 to DSCP 0, what crossed the spine
// reaches the last leaf as best effort, whose queue drops. A remark to
// RoCE's own DSCP changes nothing.
func TestRemarkDSCP(t *testing.T) {
	run := func(remark map[int]int) *Result {
		cfg := Config{
			Topology:   leafSpine(2, 1, 4, 100, 100),
			DefaultQoS: losslessQoS(true, false, 0, 0),
			DurationNs: 500_000,
			Seed:       1,
		}
		// A small pool, so that a best-effort backlog overflows it.
		for i := range cfg.Topology.Nodes {
			if cfg.Topology.Nodes[i].Kind == Switch {
				cfg.Topology.Nodes[i].BufferBytes = 1 << 20
			}
		}
		for i := range 4 {
			cfg.Flows = append(cfg.Flows, Flow{ID: "a" + fmtVal(i), Src: "h0-" + fmtVal(i), Dst: "h1-0"})
		}
		for i := 1; i < 4; i++ {
			cfg.Flows = append(cfg.Flows, Flow{ID: "b" + fmtVal(i), Src: "h1-" + fmtVal(i), Dst: "h1-0"})
		}
		if remark != nil {
			cfg.Maps = map[PortRef]PortMaps{}
			for _, l := range cfg.Topology.Links {
				for _, end := range []PortRef{l.A, l.B} {
					if end.Node == "spine0" || end.Node == "leaf0" || end.Node == "leaf1" {
						cfg.Maps[end] = PortMaps{RemarkDSCP: remark}
					}
				}
			}
		}
		return mustRun(t, cfg)
	}
	base := run(nil)
	if base.Totals.Drops != 0 || base.Totals.PauseFrames == 0 {
		t.Fatalf("no remarking: %d drops, %d pause frames; want none and some", base.Totals.Drops, base.Totals.PauseFrames)
	}
	same := run(map[int]int{3: 26, 6: 48})
	if same.Totals != base.Totals {
		t.Errorf("remarking to the DSCPs the packets carry changed the run:\n%+v\nagainst\n%+v", same.Totals, base.Totals)
	}
	r := run(map[int]int{3: 0})
	if r.Totals.Drops == 0 {
		t.Errorf("priority 3 remarked to DSCP 0: no drop (%d pause frames); want the best-effort queue at the last leaf to drop", r.Totals.PauseFrames)
	}
	// What the last leaf sends the receiver: best effort with the
	// remark (the spine's traffic), none without.
	be := func(r *Result) (n int64) {
		for _, p := range r.Ports {
			if p.Node == "leaf1" && p.Port == "Ethernet0" && p.Priority == 0 {
				n += p.TxBytes
			}
		}
		return n
	}
	if got := be(base); got != 0 {
		t.Errorf("no remarking: leaf1 sent the receiver %d bytes of priority 0; want none", got)
	}
	if got := be(r); got == 0 {
		t.Error("priority 3 remarked to DSCP 0: leaf1 sent the receiver no priority 0; want what crossed the spine")
	}
	cfg := Config{Topology: star(2, 100), DurationNs: 1000, Maps: map[PortRef]PortMaps{{"sw", "Ethernet0"}: {RemarkDSCP: map[int]int{3: 64}}}}
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "DSCP remarking entry 3->64 out of range") {
		t.Errorf("a remark to DSCP 64: %v", err)
	}
	cfg.Maps = map[PortRef]PortMaps{{"sw", "Ethernet0"}: {RemarkDSCP: map[int]int{3: 63}}}
	if _, err := Run(t.Context(), cfg); err != nil {
		t.Errorf("a remark to DSCP 63: %v", err)
	}
}
