package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSimRandStream: simRand's draws are math/rand/v2's, number for number,
// for bounds that take each path of the reduction (a power of two, a small
// bound, one whose rejection threshold bites, the largest) and interleaved
// as the engine interleaves them; a run's record depends on it.
func TestSimRandStream(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, math.MaxUint64} {
		want := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		got := newSimRand(seed, 0x9e3779b97f4a7c15)
		bounds := []int64{1, 2, 3, 7, 64, 1000, 1 << 40, 3<<61 + 1, math.MaxInt64}
		for i := 0; i < 20000; i++ {
			n := bounds[i%len(bounds)]
			switch i % 3 {
			case 0:
				if g, w := got.Int64N(n), want.Int64N(n); g != w {
					t.Fatalf("seed %d draw %d: Int64N(%d) = %d, math/rand/v2 gives %d", seed, i, n, g, w)
				}
			case 1:
				if g, w := got.IntN(int(n)), want.IntN(int(n)); g != w {
					t.Fatalf("seed %d draw %d: IntN(%d) = %d, math/rand/v2 gives %d", seed, i, n, g, w)
				}
			default:
				if g, w := got.Float64(), want.Float64(); g != w {
					t.Fatalf("seed %d draw %d: Float64() = %v, math/rand/v2 gives %v", seed, i, g, w)
				}
			}
		}
	}
}

// TestSimRandRejects: a bound whose rejection threshold is large (just
// above 2^63, where nearly half of the draws are rejected) still matches,
// so the retry loop is exercised, not only the first draw.
func TestSimRandRejects(t *testing.T) {
	want := rand.New(rand.NewPCG(7, 9))
	got := newSimRand(7, 9)
	n := int64(math.MaxInt64/3*2 + 1)
	for i := 0; i < 5000; i++ {
		if g, w := got.Int64N(n), want.Int64N(n); g != w {
			t.Fatalf("draw %d: Int64N(%d) = %d, math/rand/v2 gives %d", i, n, g, w)
		}
	}
	for _, bad := range []int64{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Int64N(%d) did not panic", bad)
				}
			}()
			got.Int64N(bad)
		}()
	}
}
