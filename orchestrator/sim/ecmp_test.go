package sim

import (
	"fmt"
	"math"
	"testing"
)

// targetECMPElephants hashes m long flows over n equal-cost spines: a run's
// aggregate is (spines used) x C, and over seeds its mean approaches
// (1-(1-1/n)^m) of the ideal n x C.
func targetECMPElephants(t *testing.T, page *targetPage) {
	seeds := 40
	if testing.Short() {
		seeds = 16
	}
	for _, tc := range []struct{ m, n int }{{4, 4}, {8, 4}, {2, 2}} {
		t.Run(fmt.Sprintf("m=%d,n=%d", tc.m, tc.n), func(t *testing.T) {
			line := lineGoodput(100, DefaultMTU)
			var sum, sum2 float64
			for seed := 1; seed <= seeds; seed++ {
				cfg := Config{
					Topology:   leafSpine(2, tc.n, tc.m, 100, 100),
					DefaultQoS: losslessQoS(true, false, 0, 0),
					DurationNs: 150_000,
					WarmupNs:   50_000,
					Seed:       int64(seed),
				}
				for i := 0; i < tc.m; i++ {
					cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h0-%d", i), Dst: fmt.Sprintf("h1-%d", i)})
				}
				r := mustRun(t, cfg)
				used := map[string]bool{}
				for _, f := range r.Flows {
					used[f.Path[2]] = true
				}
				ratio := r.Totals.GoodputGbps / (float64(tc.n) * line)
				// Each run must match its own path placement exactly.
				if want := float64(len(used)) / float64(tc.n); !within(ratio, want, 0.02) {
					t.Errorf("seed %d: aggregate %.3f of ideal with %d spines used, want %.3f", seed, ratio, len(used), want)
				}
				sum += ratio
				sum2 += ratio * ratio
			}
			mean := sum / float64(seeds)
			sd := math.Sqrt(max(sum2/float64(seeds)-mean*mean, 0))
			se := sd / math.Sqrt(float64(seeds))
			want := 1 - math.Pow(1-1/float64(tc.n), float64(tc.m))
			if math.Abs(mean-want) > 3*se+0.02 {
				t.Errorf("mean aggregate = %.3f of ideal over %d seeds (sd %.3f), want %.3f", mean, seeds, sd, want)
			}
			page.row(fmt.Sprintf("%d elephant flows hashed on %d equal paths, %d seeds", tc.m, tc.n, seeds),
				fmt.Sprintf("mean aggregate ≈ 1−(1−1/n)^m = %.3f of ideal (±3 s.e. + 0.02)", want),
				fmt.Sprintf("%.3f (s.d. %.3f over seeds)", mean, sd))
		})
	}
}
