package sim

import (
	"testing"
)

func TestTrafficGenerators(t *testing.T) {
	hosts := ringRanks(2, 4)
	for _, tc := range []struct {
		name  string
		flows []Flow
		n     int
	}{
		{"incast", IncastFlows("i", hosts, hosts[0], 0), 7},
		{"pairs", PairFlows("p", hosts[:4], hosts[4:], 1000, 2), 8},
		{"permutation", PermutationFlows("m", hosts, 0, 3), 8},
		{"all-to-all", AllToAllFlows("a", hosts, 4096), 56},
		{"ring allreduce", RingAllReduceFlows("r", hosts, 1<<20, 26), 2 * 7 * 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.flows) != tc.n {
				t.Fatalf("%d flows, want %d", len(tc.flows), tc.n)
			}
			ids := map[string]bool{}
			in := map[string]int{}
			for _, f := range tc.flows {
				if ids[f.ID] {
					t.Errorf("duplicate ID %s", f.ID)
				}
				ids[f.ID] = true
				if f.Src == f.Dst {
					t.Errorf("flow %s sends to itself", f.ID)
				}
				in[f.Dst]++
			}
			if tc.name == "permutation" {
				for _, h := range hosts {
					if in[h] != 1 {
						t.Errorf("host %s receives %d flows, want 1", h, in[h])
					}
				}
			}
			// Every generated set must be accepted by the engine.
			mustRun(t, Config{Topology: leafSpine(2, 2, 4, 100, 100), DefaultQoS: losslessQoS(true, false, 0, 0), Flows: tc.flows, DurationNs: 20_000})
		})
	}
}
