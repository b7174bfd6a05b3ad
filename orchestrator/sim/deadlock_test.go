package sim

import (
	"fmt"
	"testing"
)

// loopConfig: four leaves and two spines; at 1 ms leaf2 loses its link to
// spine0 and leaf3 its link to spine1. The spines see it at once and
// route around it through the leaves (spine0 reaches leaf2 through
// another leaf and spine1: a valley path); the leaves learn convergeNs
// later and meanwhile keep sending to both spines. Packets bounce between
// leaves and spines, PFC pauses the bounced queues in a cycle, and the
// cycle can outlive the convergence: a deadlock.
func loopConfig(convergeNs int64, wd *Watchdog) Config {
	cfg := Config{
		Topology:   leafSpine(4, 2, 2, 100, 100),
		DefaultQoS: map[int]PortQoS{3: {PFC: true, Watchdog: wd}, 6: {Strict: true}},
		DurationNs: 10_000_000,
		WarmupNs:   6_000_000,
		Seed:       1,
		Faults: []LinkFault{
			{Link: PortRef{"leaf2", "Ethernet100"}, DownNs: 1_000_000, DetectNs: -1, ConvergeNs: convergeNs},
			{Link: PortRef{"leaf3", "Ethernet101"}, DownNs: 1_000_000, DetectNs: -1, ConvergeNs: convergeNs},
		},
	}
	for _, src := range []string{"h0-0", "h0-1", "h1-0", "h1-1"} {
		for _, dst := range []string{"h2-0", "h3-0"} {
			cfg.Flows = append(cfg.Flows, Flow{ID: src + ">" + dst, Src: src, Dst: dst})
		}
	}
	for i := range cfg.Topology.Nodes {
		if cfg.Topology.Nodes[i].Kind == Switch {
			cfg.Topology.Nodes[i].BufferBytes = 1 << 20
		}
	}
	return cfg
}

func targetRoutingLoopDeadlock(t *testing.T, page *targetPage) {
	line := lineGoodput(100, DefaultMTU)
	// With every switch routing around the failures at once there is no
	// loop: both receivers run at line rate after the failure.
	if r := mustRun(t, loopConfig(-1, nil)); r.Totals.GoodputGbps < 1.95*line {
		t.Errorf("instant convergence: %.1f Gb/s after the failure, want both receivers at line rate (%.1f)", r.Totals.GoodputGbps, 2*line)
	}
	// Half a millisecond of disagreement builds the cyclic buffer
	// dependency: long after routes converged (1.5 ms) nothing moves.
	r := mustRun(t, loopConfig(500_000, nil))
	if r.Totals.GoodputGbps != 0 {
		t.Errorf("converging in 0.5 ms: %.1f Gb/s from 6 to 10 ms, want 0 (deadlocked)", r.Totals.GoodputGbps)
	}
	// A PFC watchdog (1 ms) declares the paused queues stormed, drops
	// them and the fabric runs again.
	wd := &Watchdog{DetectionNs: 1_000_000, RestorationNs: 2_000_000, PollNs: 200_000, Action: "drop"}
	r = mustRun(t, loopConfig(500_000, wd))
	storms := marks(r, MarkWatchdogStorm)
	if len(storms) == 0 || r.Totals.GoodputGbps < 1.9*line {
		t.Errorf("with a watchdog: %d storms, %.1f Gb/s from 6 to 10 ms; want storms declared and both receivers back near line rate", len(storms), r.Totals.GoodputGbps)
	}
	page.row("two leaf-spine links fail at 1 ms (4 leaves, 2 spines, PFC, 8 flows into 2 leaves); spines reroute at once, leaves 0.5 ms later",
		"transient bounce paths build a cyclic buffer dependency that outlives convergence (deadlock); a PFC watchdog breaks it",
		fmt.Sprintf("0 Gb/s from 6 to 10 ms without a watchdog; with one (1 ms) %d storms declared and %.1f Gb/s", len(storms), r.Totals.GoodputGbps))
}
