package sim

// TestValidationTargets runs the simulator's validation targets (the
// table "Validation targets for the simulator" of the project's reference
// numbers) and keeps the block "validation-targets" of docs/fidelity.md
// equal to what they produce now. Each target is an ordinary test with
// its own assertions; besides failing when a figure misses its target, it
// writes a row: the target, the expected figure and the simulated one.
//
// Regenerate the page after a deliberate change to the model:
//
//	go test ./orchestrator/sim -run TestValidationTargets -update
//
// The page is rewritten only when every target passes.

import (
	"flag"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/docblock"
)

const fidelityPage = "../../docs/fidelity.md"

// targetPage collects the rows of the validation-target table.
type targetPage struct{ rows [][3]string }

func (p *targetPage) row(target, expected, simulated string) {
	p.rows = append(p.rows, [3]string{target, expected, simulated})
}

func (p *targetPage) markdown() string {
	var b strings.Builder
	b.WriteString("| target | expected | simulated packet by packet |\n|---|---|---|\n")
	for _, r := range p.rows {
		b.WriteString("| " + r[0] + " | " + r[1] + " | " + r[2] + " |\n")
	}
	return b.String()
}

func TestValidationTargets(t *testing.T) {
	page := &targetPage{}
	for _, target := range []struct {
		name string
		run  func(*testing.T, *targetPage)
	}{
		{"one flow", targetSingleFlow},
		{"small message latency", targetSmallMessageLatency},
		{"first CNP", targetFirstCNP},
		{"alpha decay", targetAlphaDecay},
		{"alpha grid", targetConnectXAlphaGrid},
		{"CNP pacing", targetCNPRateLimit},
		{"marking at fixed depth", targetMarkingAtFixedDepth},
		{"incast PFC only", targetIncastPFCOnly},
		{"incast lossy", targetIncastLossy},
		{"incast DCQCN", targetIncastDCQCN},
		{"ring AllReduce", targetRingAllReduce},
		{"ECMP elephants", targetECMPElephants},
		{"deterministic", targetDeterministic},
		{"link failure", targetLinkDownReroutes},
		{"PFC watchdog", targetPFCWatchdog},
		{"routing-loop deadlock", targetRoutingLoopDeadlock},
		{"shapers", targetShapers},
	} {
		t.Run(target.name, func(t *testing.T) { target.run(t, page) })
	}
	// A -run filter that skips targets would rewrite the page without
	// them: compare or rewrite only the complete table.
	if t.Failed() || strings.Contains(flagValue("test.run"), "/") {
		if *update {
			t.Log("not rewriting docs/fidelity.md: run every target, and only when all pass")
		}
		return
	}
	docblock.Check(t, fidelityPage, map[string]string{"validation-targets": page.markdown()}, *update,
		"go test ./orchestrator/sim -run TestValidationTargets -update")
}

// flagValue is a command-line flag's value, "" when it is not defined.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}
