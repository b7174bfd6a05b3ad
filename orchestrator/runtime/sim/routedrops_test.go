package sim

import (
	"slices"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
)

// TestRouteDropsInTheRecord: on 1024gpu a leaf and a spine share one
// link; when it fails, the spine has no route left to the leaf's hosts
// and drops what the other leaves keep sending it until BGP converges.
// The record says so: the counters' no-route drops add up to
// extra.faults.route_drops, and with the link's own they are all the
// run's drops (nothing here is lost to congestion).
func TestRouteDropsInTheRecord(t *testing.T) {
	l := upLab(t, "1024gpu", "sonic")
	v := runScenarioText(t, l, `name: t
duration: 4ms
sample_every: 0
traffic:
  - pattern: pairs
    pairs: 16
    cross_leaf: true
faults:
  - kind: link-down
    link: leaf1-spine1
    at: 1ms
    for: 2ms
    detect: 100us
    converge: 20ms
`)
	faults, _ := v.Extra["faults"].(map[string]any)
	route, _ := faults["route_drops"].(int64)
	link, _ := faults["link_drops"].(int64)
	var counted int64
	for _, c := range v.Counters {
		counted += c.RouteDrops
		if c.RouteDrops > 0 && c.Node != "spine1" {
			t.Errorf("%s:%s: %d no-route drops, want them at spine1 only", c.Node, c.Port, c.RouteDrops)
		}
	}
	t.Logf("drops %d: link %d, no route %d", v.Summary.Drops, link, route)
	if route == 0 || counted != route {
		t.Errorf("extra.faults.route_drops %v (%T), counters %d: want the same, above 0", faults["route_drops"], faults["route_drops"], counted)
	}
	if v.Summary.Drops != link+route {
		t.Errorf("summary.drops %d, want link %d + no route %d", v.Summary.Drops, link, route)
	}
}

// TestQPsOnFailedLinks: extra.faults.qps_on_failed_links counts the QPs
// whose data crosses a failed link at the start, a host's own link (which
// no switch's egress names) included, and none when the link carries no
// data of theirs.
func TestQPsOnFailedLinks(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	count := func(link string) any {
		t.Helper()
		v := runScenarioText(t, l, `name: t
duration: 300us
sample_every: 0
traffic:
  - pattern: pairs
    pairs: 2
faults:
  - kind: link-down
    link: `+link+`
    at: 100us
    detect: 10us
`)
		return v.Extra["faults"].(map[string]any)["qps_on_failed_links"]
	}
	src := l.Graph.Node("host1").Ports[0]
	if got := count("host1:" + src.Name); got != 1 {
		t.Errorf("the first pair's sending NIC's link down: qps_on_failed_links %v, want 1", got)
	}
	// 16gpu's one leaf carries both pairs: its spine links carry nothing.
	if got := count("leaf1-spine1"); got != 0 {
		t.Errorf("a spine link of a one-leaf lab down: qps_on_failed_links %v, want 0", got)
	}
}

// runScenarioText runs the one variant (ECN and PFC on) of the scenario
// text on lab l.
func runScenarioText(t *testing.T, l *runtime.Lab, text string) *results.Variant {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: "on", ECN: true, PFC: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return runVariant(t, l, vs)
}

// A flow of several QPs records every QP's route: each QP has its own UDP
// source port and so its own ECMP hash, and max_flows_per_link counts a
// flow on every link one of them takes.
func TestRecordKeepsEveryQPsRoute(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	v := runScenarioText(t, l, "name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 100us\nsample_every: 0\ntraffic:\n  - pattern: pairs\n    pairs: 8\n    qps: 4\n    cross_leaf: true\n")
	differ := false
	for _, f := range v.Flows {
		if len(f.Route) == 0 || len(f.QPRoutes) != 3 {
			t.Fatalf("flow %s: route %v, %d other QPs' routes, want 3", f.ID, f.Route, len(f.QPRoutes))
		}
		for _, r := range f.QPRoutes {
			if len(r) != len(f.Route) || r[len(r)-1] != f.Route[len(f.Route)-1] {
				t.Errorf("flow %s: QP route %v against the first's %v: another length or another last hop", f.ID, r, f.Route)
			}
			differ = differ || !slices.Equal(r, f.Route)
		}
	}
	if !differ {
		t.Error("every QP of every flow took its first QP's route: the QPs' hashes are not their own")
	}
}
