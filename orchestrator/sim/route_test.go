package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// A pinned route overrides the simulator's hash: the flow crosses the
// spine the caller chose, and a route that is not an equal-cost path is
// refused.
func TestPinnedRoute(t *testing.T) {
	for _, spine := range []string{"spine0", "spine1", "spine2"} {
		port := map[string]string{"spine0": "Ethernet100", "spine1": "Ethernet101", "spine2": "Ethernet102"}[spine]
		cfg := Config{
			Topology:   leafSpine(2, 3, 1, 100, 100),
			DurationNs: 200_000,
			Flows: []Flow{{ID: "f", Src: "h0-0", Dst: "h1-0", Bytes: 1 << 20,
				Route: []string{"leaf0:" + port, spine + ":Ethernet1", "leaf1:Ethernet0"}}},
		}
		res := mustRun(t, cfg)
		if got := res.Flows[0].Path; !slices.Equal(got, []string{"h0-0", "leaf0", spine, "leaf1", "h1-0"}) {
			t.Errorf("pinned via %s, path %v", spine, got)
		}
		var tx int64
		for _, p := range res.Ports {
			if p.Node == spine && p.Port == "Ethernet1" {
				tx += p.TxBytes
			}
		}
		if tx < 1<<20 {
			t.Errorf("%s:Ethernet1 sent %d bytes, want the flow's 1 MiB", spine, tx)
		}
	}
	bad := []struct {
		route []string
		want  string
	}{
		{[]string{"leaf0:Ethernet0"}, "not an equal-cost next hop"},
		{[]string{"leaf0:Ethernet100", "spine1:Ethernet1"}, "not on switch spine0"},
		{[]string{"leaf0:Ethernet100"}, "route ends at"},
		{[]string{"leaf0:nope"}, "no such port"},
	}
	for _, b := range bad {
		cfg := Config{Topology: leafSpine(2, 3, 1, 100, 100), DurationNs: 1000,
			Flows: []Flow{{ID: "f", Src: "h0-0", Dst: "h1-0", Route: b.route}}}
		if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("route %v: %v, want an error naming %q", b.route, err, b.want)
		}
	}
}
