package main

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
)

// TestRunHugePagesBySize: `labctl run` readies huge pages for the
// catalog's labs, the smallest of which is 16gpu, and not for the bench
// incast's nine NICs, whose run the readying made slower
// (runHugePagesNICs). The NICs are counted as the run counts them.
func TestRunHugePagesBySize(t *testing.T) {
	for _, c := range []struct {
		lab  string
		want bool
	}{
		{"../../bench/compare/incast-lab.yaml", false},
		{"16gpu", true},
		{"64gpu", true},
	} {
		spec, err := lab.Resolve(c.lab)
		if err != nil {
			t.Fatal(err)
		}
		l, err := runtime.NewLab(spec, t.TempDir(), "sonic")
		if err != nil {
			t.Fatal(err)
		}
		n := len(scenario.NICsFromGraph(l.Graph))
		if got := runWantsHugePages(n); got != c.want {
			t.Errorf("lab %s (%d NICs): huge pages %v, want %v", c.lab, n, got, c.want)
		}
	}
}
