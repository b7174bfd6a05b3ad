package scenario

import (
	"fmt"
	"github.com/labctl/labctl/orchestrator/collective"

	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// explicitZeros refuses 0 in the keys where leaving the key out picks a
// default: "senders: 0" must not silently mean 8 senders.
func explicitZeros(file string, data []byte, s *Spec) error {
	fields := []specyaml.ZeroField{
		{Path: "$.repetitions", IsZero: s.Repetitions == 0, Default: "1", Fix: "use 1 to 100"},
	}
	for i, t := range s.Traffic {
		p := fmt.Sprintf("$.traffic[%d].", i)
		for _, f := range []struct {
			key  string
			zero bool
		}{{"pairs", t.Pairs == 0}, {"senders", t.Senders == 0}, {"ranks", t.Ranks == 0}, {"qps", t.QPs == 0},
			{"tx_depth", t.TxDepth == 0}, {"iterations", t.Iterations == 0}, {"channels", t.Channels == 0}, {"step_factor", t.StepFactor == 0},
			{"qps_per_connection", t.QPsPerConnection == 0}} {
			z := trafficZeros[f.key]
			fields = append(fields, specyaml.ZeroField{Path: p + f.key, IsZero: f.zero, Default: z.def, Fix: z.fix})
		}
	}
	return specyaml.ExplicitZero(file, data, fields)
}

// trafficZeros are the traffic keys whose 0 stands for a default: what the
// default is and what to write instead. A swept value of 0 is refused too.
var trafficZeros = map[string]struct{ def, fix string }{
	"pairs":   {"1 pair", "use 1 or more pairs"},
	"senders": {fmt.Sprintf("%d senders", DefaultIncastN), "use 2 or more senders"},
	"ranks":   {"every NIC of the lab", "use 2 or more ranks"},
	"qps":     {"1 queue pair", "use 1 to 64"},
	"tx_depth": {fmt.Sprintf("perftest's %d messages", perftest.DefaultTxDepthBW),
		fmt.Sprintf("use %d to %d", perftest.MinTxDepth, perftest.MaxTxDepth)},
	"iterations": {fmt.Sprintf("perftest's %d iterations", perftest.DefaultIterations),
		fmt.Sprintf("use %d to %d", perftest.MinIterations, perftest.MaxIterations)},
	"channels":           {"one channel per NIC (two per NIC for a tree; one for alltoall and sendrecv)", "use 1 to 64"},
	"step_factor":        {fmt.Sprintf("a factor of %d", DefaultNCCLStepFactor), "use 2 or more"},
	"qps_per_connection": {"NCCL's 1 QP per connection", fmt.Sprintf("use 1 to %d", collective.MaxQPsPerConnection)},
}
