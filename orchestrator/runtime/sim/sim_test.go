package sim

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
)

func upLab(t testing.TB, name, nos string) *runtime.Lab {
	t.Helper()
	spec, err := lab.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := runtime.NewLab(spec, t.TempDir(), nos)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.Up(context.Background(), New(), l, nil); err != nil {
		t.Fatal(err)
	}
	return l
}

func runScenario(t testing.TB, l *runtime.Lab, sc *scenario.Spec, seed int64) *results.Run {
	t.Helper()
	r := &scenario.Runner{Runtime: New(), Lab: l, NICs: scenario.NICsFromGraph(l.Graph)}
	run := &results.Run{RunID: "20261129T120000Z-x-y", Lab: l.Name, Scenario: sc.Name, Runtime: "sim", Seed: seed, Started: time.Unix(0, 0)}
	if err := r.Run(context.Background(), sc, run); err != nil {
		t.Fatal(err)
	}
	return run
}

func TestDebugECNPFC(t *testing.T) {
	if os.Getenv("LABCTL_DEBUG") == "" {
		t.Skip()
	}
	l := upLab(t, os.Getenv("LABCTL_DEBUG"), "sonic")
	sc, err := scenario.Resolve(os.Getenv("LABCTL_SCENARIO"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	run := runScenario(t, l, sc, 1)
	t.Logf("wall %v", time.Since(start))
	for _, v := range run.Variants {
		b, _ := json.Marshal(v.Summary)
		t.Logf("%s err=%q %s", v.Name, v.Error, b)
		for _, f := range v.Flows {
			t.Logf("   %s %s %.2f rtx=%d", f.ID, f.Role, f.ThroughputGbps, f.Retransmits)
		}
		for _, a := range v.Assertions {
			t.Logf("   assert %v %s: %s", a.Passed, a.Name, a.Detail)
		}
		if v.Extra != nil {
			b, _ := json.Marshal(v.Extra)
			t.Logf("   extra %s", b)
		}
	}
	b, _ := json.Marshal(run.Extra)
	t.Logf("run extra %s status %s", b, run.Status)
}
