package scenario

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// Two link faults that have one link down at the same time are refused
// before anything runs, at the second fault's at, with the fix, for every
// point of the matrix: the same link named twice, or by its two ends, a
// link-down over one of a flap's downs (until 2026-12-07 the simulator
// refused them when the variant's turn came, after the variants before
// it had run and been saved). Faults of different cases, and a down
// between two flaps, run.
func TestOverlappingFaultsRefusedBeforeRunning(t *testing.T) {
	g := catalogGraph(t, "16gpu")
	lk, _, err := g.LinkByName("leaf1-spine1")
	if err != nil {
		t.Fatal(err)
	}
	spineEnd := lk.B.Node + ":" + lk.B.Port
	if lk.B.Node != "spine1" {
		spineEnd = lk.A.Node + ":" + lk.A.Port
	}
	const base = "name: f\nduration: 10ms\nmatrix:\n  ecn: [on, off]\n  pfc: [on]\n%straffic: [{pattern: pairs}]\nfaults:\n%s"
	run := func(matrix, faults string) (*fakeRuntime, []string, error) {
		s := mustParse(t, fmt.Sprintf(base, matrix, faults))
		rt := &fakeRuntime{}
		var saves []string
		r := &Runner{Runtime: rt, Lab: &runtime.Lab{Name: "16gpu", Graph: g, Plan: testLab().Plan}, NICs: NICsFromGraph(g), Now: tickingClock(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)),
			Save: func(run *results.Run) error { saves = append(saves, run.Status); return nil }}
		err := r.Run(context.Background(), s, &results.Run{RunID: "x", Lab: "16gpu", Scenario: s.Name, Runtime: rt.Name(), Seed: 1})
		return rt, saves, err
	}
	const down = "  - kind: link-down\n    link: %s\n    at: %s\n    for: %s\n"
	const flap = "  - kind: link-flap\n    link: leaf1-spine1\n    at: 1ms\n    down: 1ms\n    up: 1ms\n    count: 3\n"
	for _, c := range []struct{ matrix, faults, at, want string }{
		{"", fmt.Sprintf(down, "leaf1-spine1", "1ms", "5ms") + fmt.Sprintf(down, "leaf1-spine1", "2ms", "1ms"), "t.yaml:14:9", "faults[0] and faults[1] take the link leaf1:"},
		{"", fmt.Sprintf(down, "leaf1-spine1", "1ms", "5ms") + fmt.Sprintf(down, spineEnd, "2ms", "1ms"), "t.yaml:14:9", "faults[0] and faults[1] take the link leaf1:"},
		{"", flap + fmt.Sprintf(down, spineEnd, "4500us", "1ms"), "t.yaml:16:9", "faults[0] and faults[1] take the link leaf1:"},
		{"  case: [a, b]\n", flap + fmt.Sprintf(down, spineEnd, "4500us", "1ms") + "    case: b\n" +
			"  - kind: link-down\n    link: host1-leaf1\n    at: 1ms\n    case: a\n", "t.yaml:17:9", "case=b: faults[0] and faults[1]"},
	} {
		rt, saves, err := run(c.matrix, c.faults)
		if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), c.at) || !strings.Contains(err.Error(), c.want) ||
			!strings.Contains(err.Error(), "fix: ") {
			t.Errorf("%s: got %v", c.faults, err)
		}
		if rt.calls != 0 || len(saves) != 0 {
			t.Errorf("%s: %d variants ran and %v were saved before the refusal: want none", c.faults, rt.calls, saves)
		}
	}
	for _, c := range []struct{ matrix, faults string }{
		{"", fmt.Sprintf(down, "leaf1-spine1", "1ms", "1ms") + fmt.Sprintf(down, spineEnd, "2ms", "1ms")},
		{"", flap + fmt.Sprintf(down, spineEnd, "2ms", "1ms")},
		{"", fmt.Sprintf(down, "leaf1-spine1", "1ms", "5ms") + fmt.Sprintf(down, "host1-leaf1", "2ms", "1ms")},
		{"  case: [a, b]\n", fmt.Sprintf(down, "leaf1-spine1", "1ms", "5ms") + "    case: a\n" + fmt.Sprintf(down, spineEnd, "2ms", "1ms") + "    case: b\n"},
	} {
		if _, _, err := run(c.matrix, c.faults); err != nil {
			t.Errorf("%s: %v", c.faults, err)
		}
	}
}
