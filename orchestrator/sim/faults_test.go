package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// twoSpines is two leaves and two spines, four hosts per leaf, with four
// long flows from leaf0 to leaf1.
func twoSpines() Config {
	cfg := Config{
		Topology:   leafSpine(2, 2, 4, 100, 100),
		DefaultQoS: losslessQoS(true, false, 0, 0),
		DurationNs: 2_000_000,
		Seed:       1,
	}
	for i := 0; i < 4; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h0-%d", i), Dst: fmt.Sprintf("h1-%d", i)})
	}
	return cfg
}

func portStat(r *Result, node, port string) (tx, linkDrops int64) {
	for _, p := range r.Ports {
		if p.Node == node && p.Port == port {
			tx += p.TxBytes
			linkDrops += p.LinkDrops
		}
	}
	return tx, linkDrops
}

func marks(r *Result, kind string) []Mark {
	var out []Mark
	for _, m := range r.Timeline {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// A link that goes down for good: packets sent to it before the switches
// route around it are lost, none after; the timeline says when each
// switch learned; the flows keep going over the other spine.
func targetLinkDownReroutes(t *testing.T, page *targetPage) {
	const down, detect, converge = 500_000, 20_000, 300_000
	cfg := twoSpines()
	// leaf0's first uplink, to spine0.
	cfg.Faults = []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: down, DetectNs: detect, ConvergeNs: converge}}
	r := mustRun(t, cfg)

	downs, learns := marks(r, MarkLinkDown), marks(r, MarkRoutesUpdated)
	if len(downs) != 1 || downs[0].TimeNs != down {
		t.Fatalf("link down marks %+v, want one at %d ns", downs, down)
	}
	// leaf0 and spine0 (the ends) after the detection delay, the others
	// after the convergence delay.
	var atDetect, atConverge []string
	for _, m := range learns {
		switch m.TimeNs {
		case down + detect:
			atDetect = append(atDetect, m.Where)
		case down + converge:
			atConverge = append(atConverge, m.Where)
		default:
			t.Errorf("routes updated at %d ns (%s), want %d or %d", m.TimeNs, m.Where, down+detect, down+converge)
		}
	}
	slices.Sort(atDetect)
	if strings.Join(atDetect, ",") != "leaf0,spine0" || strings.Join(atConverge, ",") != "every other switch" {
		t.Errorf("learned at detection %v, at convergence %v", atDetect, atConverge)
	}
	// spine0 towards leaf0 is the other end: no packet may be sent there
	// or on leaf0's side once the ends know; before, those hashed onto it
	// were lost.
	_, blackholed := portStat(r, "leaf0", "Ethernet100")
	if blackholed == 0 {
		t.Error("no packet lost on the dead link between the failure and detection")
	}
	// A run cut right after detection loses as many: nothing after.
	cut := cfg
	cut.DurationNs = down + detect + 10_000
	rc := mustRun(t, cut)
	_, blackholedCut := portStat(rc, "leaf0", "Ethernet100")
	if blackholed != blackholedCut {
		t.Errorf("packets lost on the dead link: %d by %d ns, %d by the end: the switch kept using it after it knew", blackholedCut, cut.DurationNs, blackholed)
	}
	// Every flow recovers (go-back-N) and finishes the run on spine1.
	for _, f := range r.Flows {
		if f.Path[2] == "spine0" && f.BytesDelivered == 0 {
			t.Errorf("flow %s on the failed spine delivered nothing", f.ID)
		}
	}
	if r.Totals.LinkDrops == 0 {
		t.Error("totals count no link drops")
	}
	page.row("a leaf-spine link fails at 0.5 ms; its ends route around it 20 µs later (2 leaves, 2 spines, 4 flows)",
		"packets sent to the dead link until then are lost, none after; every flow recovers",
		fmt.Sprintf("%d packets lost by 0.53 ms, %d by 2 ms; %d retransmits", blackholedCut, blackholed, r.Totals.Retransmits))
}

// TestRouteDropsUntilConvergence: when leaf0's only link to spine0 fails,
// spine0, once it knows, has no route to leaf0's hosts, while leaf1 keeps
// hashing the ACKs for leaf0 onto spine0 until routing converges. What
// spine0 drops then is counted as no-route drops, apart from the link's
// own, so that a run's drops add up (no congestion here) and a scenario
// can tell a black hole from a full buffer. With convergence as fast as
// detection nothing is left without a route. The spines share an ASN and
// each leaf has its own, as labctl's configs number them (RFC 7938): a
// spine takes no path through another spine.
func TestRouteDropsUntilConvergence(t *testing.T) {
	const down, detect, converge = 500_000, 20_000, 300_000
	run := func(converge int64) *Result {
		cfg := twoSpines()
		for i := range cfg.Topology.Nodes {
			n := &cfg.Topology.Nodes[i]
			if strings.HasPrefix(n.Name, "spine") {
				n.ASN = 65100
			} else if strings.HasPrefix(n.Name, "leaf") {
				n.ASN = 65000 + uint32(i)
			}
		}
		cfg.Faults = []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: down, DetectNs: detect, ConvergeNs: converge}}
		return mustRun(t, cfg)
	}
	slow := run(converge)
	var atSpine0 int64
	for _, p := range slow.Ports {
		if p.RouteDrops > 0 && p.Node != "spine0" {
			t.Errorf("%s %s prio %d: %d no-route drops, want them only at spine0", p.Node, p.Port, p.Priority, p.RouteDrops)
		}
		if p.Node == "spine0" {
			atSpine0 += p.RouteDrops
		}
	}
	tot := slow.Totals
	t.Logf("converge %d ns: %d drops, %d link, %d no route", converge, tot.Drops, tot.LinkDrops, tot.RouteDrops)
	if atSpine0 == 0 || tot.RouteDrops != atSpine0 {
		t.Errorf("no-route drops: %d at spine0, %d in the totals; want some, all at spine0", atSpine0, tot.RouteDrops)
	}
	if tot.Drops != tot.LinkDrops+tot.RouteDrops {
		t.Errorf("drops %d, want link %d + no route %d (nothing else drops here)", tot.Drops, tot.LinkDrops, tot.RouteDrops)
	}
	fast := run(detect).Totals
	if fast.RouteDrops != 0 || fast.Drops != fast.LinkDrops {
		t.Errorf("convergence at detection: %d no-route drops of %d (link %d), want none", fast.RouteDrops, fast.Drops, fast.LinkDrops)
	}
}

// A link that flaps comes back: after it is up and routes have
// converged, traffic uses it again.
func TestLinkFlapReturns(t *testing.T) {
	cfg := twoSpines()
	cfg.DurationNs = 3_000_000
	cfg.Faults = []LinkFault{
		{Link: PortRef{"spine0", "Ethernet1"}, DownNs: 200_000, UpNs: 700_000, DetectNs: 10_000, ConvergeNs: 50_000},
		{Link: PortRef{"spine0", "Ethernet1"}, DownNs: 1_200_000, UpNs: 1_500_000, DetectNs: 10_000, ConvergeNs: 50_000},
	}
	r := mustRun(t, cfg)
	if n, u := len(marks(r, MarkLinkDown)), len(marks(r, MarkLinkUp)); n != 2 || u != 2 {
		t.Fatalf("%d downs and %d ups, want 2 and 2: %+v", n, u, r.Timeline)
	}
	// Traffic crossed spine0 to leaf1 after the last recovery.
	early := cfg
	early.DurationNs = 1_600_000
	re := mustRun(t, early)
	txEnd, _ := portStat(r, "spine0", "Ethernet1")
	txEarly, _ := portStat(re, "spine0", "Ethernet1")
	if txEnd <= txEarly {
		t.Errorf("spine0 -> leaf1 carried %d bytes by 1.6 ms and %d by 3 ms: traffic did not come back after the flap", txEarly, txEnd)
	}
}

func TestFaultConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"unknown port", func(c *Config) { c.Faults = []LinkFault{{Link: PortRef{"leaf9", "x"}, DownNs: 1}} }, "no port leaf9:x"},
		{"up before down", func(c *Config) {
			c.Faults = []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: 100, UpNs: 50}}
		}, "not after down"},
		{"overlap", func(c *Config) {
			c.Faults = []LinkFault{{Link: PortRef{"leaf0", "Ethernet100"}, DownNs: 100, UpNs: 500}, {Link: PortRef{"spine0", "Ethernet0"}, DownNs: 400}}
		}, "overlap"},
		{"storm priority", func(c *Config) { c.Storms = []PauseStorm{{NIC: "h1-0", Priority: 9}} }, "priority 9"},
		{"lb mode", func(c *Config) { c.LB.Mode = "random" }, "use ecmp, flowlet, spray or adaptive"},
		{"watchdog action", func(c *Config) {
			q := c.DefaultQoS[3]
			q.Watchdog = &Watchdog{DetectionNs: 1000, Action: "shutdown"}
			c.DefaultQoS[3] = q
		}, "use drop, forward, alert or errdisable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := twoSpines()
			tc.mod(&cfg)
			_, err := newSim(&cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// stormConfig is a 4:1 incast into h0 on one switch, PFC on priority 3;
// h0 storms from 1 ms.
func stormConfig(wd *Watchdog) Config {
	q := PortQoS{PFC: true, Watchdog: wd}
	cfg := Config{
		Topology:   star(6, 100),
		DefaultQoS: map[int]PortQoS{3: q, 6: {Strict: true}},
		DurationNs: 40_000_000,
		Seed:       1,
		Storms:     []PauseStorm{{NIC: "h0", Priority: 3, StartNs: 1_000_000}},
	}
	for i := 1; i <= 4; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h%d", i), Dst: "h0"})
	}
	// A victim that shares no port with the storm, but h1's NIC.
	cfg.Flows = append(cfg.Flows, Flow{ID: "victim", Src: "h1", Dst: "h5"})
	return cfg
}

// victimGbps is what stormConfig's victim flow averaged over its 40 ms.
func victimGbps(r *Result) float64 {
	for _, f := range r.Flows {
		if f.ID == "victim" {
			return float64(f.BytesDelivered) * 8 / 40e6
		}
	}
	return 0
}

// Without a watchdog the storm pauses the switch's port to h0, its queue
// fills, and PFC pauses every sender: the victim, which shares h1's link
// with a paused flow, stops too.
func TestPFCStormSpreads(t *testing.T) {
	r := mustRun(t, stormConfig(nil))
	// Until 1 ms the victim ran at about half of 100G; after, nothing.
	if got := victimGbps(r); got > 2 {
		t.Errorf("victim averaged %.2f Gb/s over 40 ms: the storm did not spread to its link", got)
	}
	var hostPaused bool
	for _, p := range r.Ports {
		if p.Node == "h1" && p.PauseRx > 0 && p.PausedNs > 30_000_000 {
			hostPaused = true
		}
	}
	if !hostPaused {
		t.Error("h1's NIC was not held paused: the storm did not reach the senders")
	}
}

// With a watchdog (drop) the switch declares the storm within detection
// + poll of the pause's start, drops what waits for h0, stops pausing the
// senders, and the victim recovers.
func targetPFCWatchdog(t *testing.T, page *targetPage) {
	const detection, poll = 10_000_000, 4_000_000
	r := mustRun(t, stormConfig(&Watchdog{DetectionNs: detection, RestorationNs: 10_000_000, PollNs: poll, Action: "drop"}))
	storms := marks(r, MarkWatchdogStorm)
	if len(storms) != 1 || storms[0].Where != "sw:Ethernet0 priority 3" {
		t.Fatalf("watchdog storms %+v, want one on sw:Ethernet0 priority 3", storms)
	}
	// The pause began when the first XOFF reached the switch, just after
	// 1 ms (100 ns of cable).
	start := int64(1_000_000)
	if at := storms[0].TimeNs; at < start+detection || at >= start+detection+poll+1000 {
		t.Errorf("storm declared at %d ns, want within [%d, %d) (detection + poll after the pause began)", at, start+detection, start+detection+poll+1000)
	}
	// From detection (at most 15 ms) to 40 ms the victim runs again.
	if got := victimGbps(r); got < 10 {
		t.Errorf("victim averaged %.2f Gb/s: the watchdog did not release the fabric", got)
	}
	var wdDrops, wdStorms int64
	for _, p := range r.Ports {
		wdDrops += p.WatchdogDrops
		wdStorms += p.WatchdogStorms
	}
	if wdDrops == 0 || wdStorms != 1 {
		t.Errorf("watchdog drops %d, storms %d: want drops and one storm", wdDrops, wdStorms)
	}
	// The storm never ends here, so no restoration.
	if n := len(marks(r, MarkWatchdogRestored)); n != 0 {
		t.Errorf("%d restorations while the storm goes on", n)
	}
	page.row("a NIC pauses its switch port without end from 1 ms; watchdog detection 10 ms, poll 4 ms, drop",
		fmt.Sprintf("storm declared within detection + poll of the pause: %d to %d µs", (start+detection)/1000, (start+detection+poll)/1000),
		fmt.Sprintf("declared at %d µs; the victim flow averaged %.1f Gb/s over 40 ms", storms[0].TimeNs/1000, victimGbps(r)))
}

// Once the storm ends the watchdog restores the port after restoration
// time without pause frames, within one poll.
func TestPFCWatchdogRestores(t *testing.T) {
	const restoration, poll = 6_000_000, 2_000_000
	cfg := stormConfig(&Watchdog{DetectionNs: 4_000_000, RestorationNs: restoration, PollNs: poll, Action: "drop"})
	cfg.Storms[0].EndNs = 12_000_000
	r := mustRun(t, cfg)
	ends, restored := marks(r, MarkStormEnd), marks(r, MarkWatchdogRestored)
	if len(ends) != 1 || len(restored) != 1 {
		t.Fatalf("storm ends %+v, restorations %+v: want one each", ends, restored)
	}
	// The last pause frame left h0 no later than the storm's end.
	if at := restored[0].TimeNs; at < ends[0].TimeNs || at > ends[0].TimeNs+restoration+poll {
		t.Errorf("restored at %d ns, storm ended at %d: want within restoration + poll", at, ends[0].TimeNs)
	}
}

// A port whose PFC is off for a priority does not obey the pause frames
// it receives for it (SAI's PFC bitmap governs both directions): the
// storming NIC's frames are counted on the switch port to it, but its
// queue never stops, and the victim keeps running.
func TestPauseIgnoredWherePFCIsOff(t *testing.T) {
	cfg := stormConfig(nil)
	cfg.QoS = map[PortRef]map[int]PortQoS{{Node: "sw", Port: "Ethernet0"}: {3: {PFC: true, IgnoresPause: true}, 6: {Strict: true}}}
	r := mustRun(t, cfg)
	for _, p := range r.Ports {
		if p.Node == "sw" && p.Port == "Ethernet0" && p.Priority == 3 && (p.PauseRx == 0 || p.PausedNs != 0) {
			t.Errorf("sw:Ethernet0 priority 3: %d pause frames received, paused %d ns; want frames counted, never paused", p.PauseRx, p.PausedNs)
		}
	}
	if got := victimGbps(r); got < 10 {
		t.Errorf("victim averaged %.2f Gb/s: the ignored storm still spread", got)
	}
}
