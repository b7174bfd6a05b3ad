package main

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
	"github.com/labctl/labctl/orchestrator/scenario"
)

// TestHugePagesBySize: `labctl run` readies huge pages for the catalog's
// labs, the smallest of which is 16gpu, and not for the bench incast's
// nine NICs (runHugePagesNICs); `labctl up` and `config lint` ready them
// for 1024gpu's 48 switches, not for 64gpu's three or the incast's one
// (hugePagesSwitches). Readying made each of the smaller ones slower. The
// NICs and switches are counted as the commands count them.
func TestHugePagesBySize(t *testing.T) {
	for _, c := range []struct {
		lab         string
		run, upLint bool
	}{
		{"../../bench/compare/incast-lab.yaml", false, false},
		{"16gpu", true, false},
		{"64gpu", true, false},
		{"1024gpu", true, true},
	} {
		l := runtimetest.NewLab(t, c.lab, "sonic")
		nics := len(scenario.NICsFromGraph(l.Graph))
		if got := runWantsHugePages(nics); got != c.run {
			t.Errorf("run on lab %s (%d NICs): huge pages %v, want %v", c.lab, nics, got, c.run)
		}
		switches := len(runtime.Devices(l.Graph))
		if got := wantsHugePages(switches); got != c.upLint {
			t.Errorf("up or lint of lab %s (%d switches): huge pages %v, want %v", c.lab, switches, got, c.upLint)
		}
	}
}
