package sim

import (
	"fmt"
	"testing"
)

// twoLeafIncast: four 100G senders on leaf0 send through spine0 (400G
// links) to one receiver on leaf1, lossless priority 3 (PFC, no ECN): the
// leaf1 port to the receiver congests, leaf1 pauses the spine, the spine
// pauses leaf0.
func twoLeafIncast() Config {
	cfg := Config{
		Topology:   leafSpine(2, 1, 4, 100, 400),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		DurationNs: 2_000_000,
		Seed:       1,
	}
	for i := range 4 {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprintf("f%d", i), Src: fmt.Sprintf("h0-%d", i), Dst: "h1-0"})
	}
	for i := range cfg.Topology.Nodes {
		if cfg.Topology.Nodes[i].Kind == Switch {
			cfg.Topology.Nodes[i].BufferBytes = 1 << 20
		}
	}
	return cfg
}

// portsOf lists a switch's ports in the topology.
func portsOf(cfg Config, node string) []PortRef {
	var out []PortRef
	for _, l := range cfg.Topology.Links {
		for _, r := range []PortRef{l.A, l.B} {
			if r.Node == node {
				out = append(out, r)
			}
		}
	}
	return out
}

// Per-port maps are a port's own: a pause for priority 3 that the spine
// maps to queue 0 stops nothing the incast uses, so the spine keeps
// sending into a leaf that asked it to stop and the leaf drops; the same
// map on the leaves' host ports changes nothing (no pause reaches them).
func TestPauseToQueueMap(t *testing.T) {
	base := mustRun(t, twoLeafIncast())
	if base.Totals.Drops != 0 || base.Totals.PauseFrames == 0 {
		t.Fatalf("base: %d drops, %d pauses; want a lossless incast that pauses", base.Totals.Drops, base.Totals.PauseFrames)
	}
	wrong := twoLeafIncast()
	wrong.Maps = map[PortRef]PortMaps{}
	for _, r := range portsOf(wrong, "spine0") {
		wrong.Maps[r] = PortMaps{PauseToQueue: map[int]int{3: 0}}
	}
	if r := mustRun(t, wrong); r.Totals.Drops == 0 {
		t.Errorf("spine pauses queue 0 for priority 3: no drops; the leaf's headroom cannot absorb a spine that never stops")
	}
	hosts := twoLeafIncast()
	hosts.Maps = map[PortRef]PortMaps{}
	for i := range 4 {
		hosts.Maps[PortRef{"leaf1", fmt.Sprintf("Ethernet%d", i)}] = PortMaps{PauseToQueue: map[int]int{3: 0}}
	}
	if r := mustRun(t, hosts); r.Totals != base.Totals {
		t.Errorf("a map on ports no pause reaches changed the run: %+v vs %+v", r.Totals, base.Totals)
	}
}

// A port classifies by its own DSCP map: RoCE taken into lossy priority 0
// at the spine's ingress from leaf0 is not paused there and drops.
func TestPerPortDSCPMap(t *testing.T) {
	cfg := twoLeafIncast()
	cfg.Maps = map[PortRef]PortMaps{{"spine0", "Ethernet0"}: {DSCPToPriority: map[int]int{26: 0}}}
	r := mustRun(t, cfg)
	if r.Totals.Drops == 0 {
		t.Errorf("RoCE lossy at one spine port: no drops")
	}
	// The same map on a port the incast does not enter by is no change.
	other := twoLeafIncast()
	other.Maps = map[PortRef]PortMaps{{"spine0", "Ethernet1"}: {DSCPToPriority: map[int]int{26: 0}}}
	if got, want := mustRun(t, other).Totals.Drops, int64(0); got != want {
		t.Errorf("map on the receiver's side: %d drops", got)
	}
}

// A priority's egress queue is the port's map's: RoCE moved into queue 1
// leaves by queue 1 (its counters stay priority 3's), and a pause for
// priority 3 then stops queue 3, not queue 1, unless the pause map moves
// with it.
func TestPriorityToQueueMap(t *testing.T) {
	cfg := twoLeafIncast()
	cfg.Maps = map[PortRef]PortMaps{}
	for _, r := range portsOf(cfg, "spine0") {
		cfg.Maps[r] = PortMaps{PriorityToQueue: map[int]int{3: 1}}
	}
	if r := mustRun(t, cfg); r.Totals.Drops == 0 {
		t.Errorf("queue map without the pause map: no drops")
	}
	for r := range cfg.Maps {
		cfg.Maps[r] = PortMaps{PriorityToQueue: map[int]int{3: 1}, PauseToQueue: map[int]int{3: 1}}
	}
	if r := mustRun(t, cfg); r.Totals.Drops != 0 || r.Totals.PauseFrames == 0 {
		t.Errorf("queue and pause maps moved together: %d drops, %d pauses; want lossless", r.Totals.Drops, r.Totals.PauseFrames)
	}
}

// WRED without marking drops early at egress, by the queue's depth.
func TestWREDDrop(t *testing.T) {
	cfg := twoLeafIncast()
	cfg.DefaultQoS = map[int]PortQoS{3: {PFC: true, WREDDrop: true, DropMinBytes: 20_000, DropMaxBytes: 80_000, DropPmax: 0.5}, 6: {Strict: true}}
	r := mustRun(t, cfg)
	var wred int64
	for _, p := range r.Ports {
		wred += p.WREDDrops
		if p.WREDDrops > p.EgressDrops {
			t.Errorf("%s:%s: %d WRED drops but %d egress drops (WRED drops are egress drops)", p.Node, p.Port, p.WREDDrops, p.EgressDrops)
		}
	}
	if wred == 0 || r.Totals.Drops < wred {
		t.Errorf("WRED drop on a lossless queue: %d WRED drops of %d; want drops, all counted", wred, r.Totals.Drops)
	}
	bad := twoLeafIncast()
	bad.DefaultQoS = map[int]PortQoS{3: {PFC: true, WREDDrop: true, DropMinBytes: 80_000, DropMaxBytes: 20_000, DropPmax: 0.5}}
	if _, err := newSim(&bad); err == nil {
		t.Error("WRED drop with min above max: accepted")
	}
}

// With ExplicitQoS the engine fills in nothing of its own: a lossless PG
// without a shared threshold is refused, where the default config would
// give it alpha 1/8.
func TestExplicitQoS(t *testing.T) {
	cfg := twoLeafIncast()
	cfg.ExplicitQoS = true
	if _, err := newSim(&cfg); err == nil {
		t.Error("ExplicitQoS with a lossless PG without a threshold: accepted")
	}
	cfg.DefaultQoS = map[int]PortQoS{3: {PFC: true, Ingress: Admission{Alpha: 1}, HeadroomBytes: 40_000, HeadroomGiven: true, XonOffsetBytes: 3072}, 6: {Strict: true}}
	if r := mustRun(t, cfg); r.Totals.Drops != 0 {
		t.Errorf("explicit lossless QoS: %d drops", r.Totals.Drops)
	}
}
