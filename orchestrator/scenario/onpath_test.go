package scenario

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/runtime"
)

const onPathTraffic = "name: x\nmatrix: {ecn: [on], pfc: [on]}\nduration: 10ms\ntraffic:\n  - pattern: pairs\n    pairs: 2\n  - pattern: ring-allreduce\nfaults:\n  - kind: link-down\n    at: 1ms\n"

func TestFaultOnPathRefused(t *testing.T) {
	for _, c := range []struct{ fault, want string }{
		{"    on_path: traffic[0]\n    link: leaf1-spine1\n", "t.yaml:11:14: link and on_path both name the failed link"},
		{"    on_path: flow0\n", `t.yaml:11:14: on_path "flow0" names no traffic entry`},
		{"    on_path: traffic[2]\n", "t.yaml:11:14: on_path traffic[2]: the scenario has 2 traffic entries"},
		{"    on_path: traffic[1]\n", "t.yaml:11:14: on_path traffic[1]: a ring-allreduce entry runs as one collective"},
		{"", "the fault names no link"},
	} {
		_, err := Parse("t.yaml", []byte(onPathTraffic+c.fault))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.fault, err, c.want)
		}
	}
	storm := strings.Replace(onPathTraffic, "kind: link-down", "kind: pfc-storm\n    nic: host1:0", 1) + "    on_path: traffic[0]\n"
	if _, err := Parse("t.yaml", []byte(storm)); err == nil || !strings.Contains(err.Error(), "on_path does not apply to a pfc-storm fault") {
		t.Errorf("pfc-storm: %v", err)
	}
}

// TestFaultOnPathFollowsTheFlow: on_path fails, at every seed, the leaf
// uplink the first flow's first QP is hashed onto, with the source port
// the simulator gives it, as labctl trace --hash-seed shows; a named link
// (leaf1-spine1, the first) misses it at most seeds.
func TestFaultOnPathFollowsTheFlow(t *testing.T) {
	g := catalogGraph(t, "64gpu")
	s := mustParseOn(t, g, onPathTraffic+"    on_path: traffic[0]\n")
	nics := NICsFromGraph(g)
	links := map[string]bool{}
	for seed := int64(1); seed <= 20; seed++ {
		vs, err := s.Expand(nics, s.Points()[0], seed)
		if err != nil {
			t.Fatal(err)
		}
		want := firstHop(t, g, vs.Flows[0], seed, nil)
		if got := vs.Faults[0].Link; got != want || vs.Faults[0].OnPath != "traffic[0]" {
			t.Errorf("seed %d: fault %+v, want link %s (the flow's first hop)", seed, vs.Faults[0], want)
		}
		if !strings.HasPrefix(want, "leaf1:") {
			t.Errorf("seed %d: %s is not leaf1's uplink", seed, want)
		}
		links[want] = true
	}
	if len(links) < 5 {
		t.Errorf("20 seeds hashed the flow onto %d links, want the hash to spread them: %v", len(links), links)
	}
	if s.faults[0].Link != "" {
		t.Errorf("the spec's own fault was resolved: %+v", s.faults[0])
	}
	// Without the lab's fabric there is no path to follow.
	bare := mustParse(t, onPathTraffic+"    on_path: traffic[0]\n")
	if _, err := bare.Expand(nics, bare.Points()[0], 1); err == nil || !strings.Contains(err.Error(), "t.yaml:11:14") {
		t.Errorf("no fabric: %v", err)
	}
}

// TestFaultOnPathOneLeaf: on a lab of one leaf no flow crosses a link
// between switches, and the refusal says to run on a lab of two leaves
// or more, not to make the flows cross the spines, which none of them
// can there.
func TestFaultOnPathOneLeaf(t *testing.T) {
	g := catalogGraph(t, "16gpu")
	s := mustParseOn(t, g, onPathTraffic+"    on_path: traffic[0]\n")
	_, err := s.Expand(NICsFromGraph(g), s.Points()[0], 1)
	if err == nil || !strings.Contains(err.Error(), "t.yaml:11:14: on_path traffic[0]: the data of flow") ||
		!strings.Contains(err.Error(), "run it on a lab of two leaves or more (64gpu)") {
		t.Errorf("one leaf: %v", err)
	}
}

// TestFaultOnPathSkipsDownLinks: with the link the flow hashes onto with
// every link up down from the start (SetDown), on_path fails the link the
// switches route it onto without it, as labctl trace --down shows.
func TestFaultOnPathSkipsDownLinks(t *testing.T) {
	g := catalogGraph(t, "64gpu")
	s := mustParseOn(t, g, onPathTraffic+"    on_path: traffic[0]\n")
	nics := NICsFromGraph(g)
	vs, err := s.Expand(nics, s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	up := vs.Faults[0].Link
	down, err := g.LinkMembers(up, false)
	if err != nil {
		t.Fatal(err)
	}
	s.SetDown(down)
	if vs, err = s.Expand(nics, s.Points()[0], 1); err != nil {
		t.Fatal(err)
	}
	want := firstHop(t, g, vs.Flows[0], 1, down)
	if got := vs.Faults[0].Link; got == up || got != want {
		t.Errorf("with %s down: on_path failed %s, want %s (the flow's first hop without it)", up, got, want)
	}
}

// TestFaultOnPathSkipsOwnFaultsDownFromStart: a fault of the scenario
// down from 0 with no detection or convergence delay takes its link out
// of every route the simulator starts (engine.LinkFault.DownFromStart),
// so on_path follows the flow without it too, where it failed that same
// link and the run was refused for two faults overlapping on it. With a
// delay the switches still route over the link at the start, and on_path
// fails it as before.
func TestFaultOnPathSkipsOwnFaultsDownFromStart(t *testing.T) {
	g := catalogGraph(t, "64gpu")
	nics := NICsFromGraph(g)
	s := mustParseOn(t, g, onPathTraffic+"    on_path: traffic[0]\n")
	vs, err := s.Expand(nics, s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	up := vs.Faults[0].Link
	own := func(delays string) *Spec {
		src := strings.Replace(onPathTraffic, "faults:\n", "faults:\n  - kind: link-down\n    at: 0ms\n    link: "+up+"\n"+delays, 1) + "    on_path: traffic[0]\n"
		return mustParseOn(t, g, src)
	}
	s = own("    detect: 0us\n    converge: 0us\n")
	pt := s.Points()[0]
	if vs, err = s.Expand(nics, pt, 1); err != nil {
		t.Fatal(err)
	}
	down, err := g.LinkMembers(up, false)
	if err != nil {
		t.Fatal(err)
	}
	want := firstHop(t, g, vs.Flows[0], 1, down)
	if got := vs.Faults[1].Link; got == up || got != want {
		t.Errorf("with faults[0] taking %s down from 0 at once: on_path failed %s, want %s (the flow's first hop without it)", up, got, want)
	}
	if err := s.overlappingFaults(g, pt, vs); err != nil {
		t.Errorf("refused: %v", err)
	}
	// A delay to detect it: the data starts over the link, and on_path
	// fails it (the overlap is the scenario's to fix).
	s = own("    detect: 0us\n")
	if vs, err = s.Expand(nics, s.Points()[0], 1); err != nil {
		t.Fatal(err)
	}
	if got := vs.Faults[1].Link; got != up {
		t.Errorf("with faults[0] detected after the default delay: on_path failed %s, want %s", got, up)
	}
}

// firstHop is the link ("node:port") flow f's first QP takes out of its
// source's switch at the hash seed with the members down out of the
// fabric, as labctl trace --hash-seed and --down trace it.
func firstHop(t *testing.T, g *fabric.Graph, f runtime.FlowSpec, seed int64, down []fabric.LinkMember) string {
	t.Helper()
	src, dst := fabric.Endpoint{Host: f.Src.Host, NIC: f.Src.NIC}, fabric.Endpoint{Host: f.Dst.Host, NIC: f.Dst.NIC}
	key, err := g.FlowKeyFor(src, dst, uint16(runtime.QPSourcePort(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.TraceDown(src, dst, key, uint64(seed), down)
	if err != nil {
		t.Fatal(err)
	}
	return p.Hops[0].Node + ":" + p.Hops[0].Out
}

// mustParseOn is the scenario y checked against the lab of g, as a run
// checks it (Spec.CheckLab).
func mustParseOn(t *testing.T, g *fabric.Graph, y string) *Spec {
	t.Helper()
	s := mustParse(t, y)
	if err := s.CheckLab(g); err != nil {
		t.Fatal(err)
	}
	return s
}
