package scenario

import (
	"fmt"

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
		fields = append(fields,
			specyaml.ZeroField{Path: p + "pairs", IsZero: t.Pairs == 0, Default: "1 pair", Fix: "use 1 or more pairs"},
			specyaml.ZeroField{Path: p + "senders", IsZero: t.Senders == 0, Default: fmt.Sprintf("%d senders", DefaultIncastN), Fix: "use 2 or more senders"},
			specyaml.ZeroField{Path: p + "ranks", IsZero: t.Ranks == 0, Default: "every NIC of the lab", Fix: "use 2 or more ranks"},
			specyaml.ZeroField{Path: p + "qps", IsZero: t.QPs == 0, Default: "1 queue pair", Fix: "use 1 to 64"},
		)
	}
	return specyaml.ExplicitZero(file, data, fields)
}
