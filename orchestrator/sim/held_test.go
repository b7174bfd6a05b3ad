package sim

import (
	"context"
	"testing"
)

// TestHeldMatchesQueues checks the mask of queues holding packets against
// the queues themselves, at the end of runs that fill and drain queues
// (incast with PFC), lose them to a link going down and coming back, and
// flush them by a PFC watchdog's drop action.
func TestHeldMatchesQueues(t *testing.T) {
	flap := twoSpines()
	flap.Faults = []LinkFault{{Link: PortRef{"spine0", "Ethernet1"}, DownNs: 200_000, UpNs: 450_000, DetectNs: 10_000, ConvergeNs: 50_000}}
	storm := stormConfig(&Watchdog{DetectionNs: 200_000, PollNs: 100_000, RestorationNs: 2_000_000, Action: "drop"})
	storm.Storms[0].StartNs = 100_000
	cases := map[string]Config{
		"incast": incastConfig(8, true, false, false, 2_000_000),
		"flap":   flap,
		"storm":  storm,
	}
	queued := 0
	for name, cfg := range cases {
		for _, end := range []int64{520_000, 810_000, 1_300_000, 2_100_000, 3_500_000} {
			cfg.DurationNs = end
			s, err := newSim(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			for pi := range s.ports {
				p := &s.ports[pi]
				for i := range p.lane {
					if got, want := p.held&(1<<i) != 0, p.lane[i].q.n > 0; got != want {
						t.Fatalf("%s at %d ns: port %s queue %d holds %d packets, held bit %v", name, end, p.ref, i, p.lane[i].q.n, got)
					}
					if p.lane[i].q.n > 0 {
						queued++
					}
				}
			}
		}
	}
	if queued == 0 {
		t.Error("no queue held a packet at any of the ends: the check checked nothing")
	}
}
