package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHistQuantiles: a flow's histogram (32-bit counts) and the run's
// (64-bit) give the same quantiles for the same samples, each the lower
// edge of the bucket of the exact quantile (within the buckets' 1/32),
// and merging flows into the run's histogram is adding their samples.
func TestHistQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var flow, other histogram
	var run, direct runHist
	var all []int64
	for i := 0; i < 20000; i++ {
		v := int64(math.Exp(rng.Float64()*16)) + rng.Int64N(50) // 0 to ~9e6 ns
		all = append(all, v)
		direct.add(v)
		if i%3 == 0 {
			other.add(v)
		} else {
			flow.add(v)
		}
	}
	run.mergeFlow(&flow)
	run.mergeFlow(&other)
	slices.Sort(all)
	for _, q := range []float64{0, 0.5, 0.9, 0.99, 1} {
		exact := all[int(q*float64(len(all)-1))]
		got := run.quantile(q)
		if want := direct.quantile(q); got != want {
			t.Errorf("q=%v: merged flows give %d, the samples added to one run histogram %d", q, got, want)
		}
		if lo := histLow(histBucket(exact)); got != min(lo, all[len(all)-1]) {
			t.Errorf("q=%v: %d, want %d (the lower edge of exact quantile %d's bucket)", q, got, lo, exact)
		}
		if exact > 64 && float64(exact-got) > float64(exact)/32 {
			t.Errorf("q=%v: %d is more than 1/32 below the exact %d", q, got, exact)
		}
	}
	if run.n != int64(len(all)) || run.max != all[len(all)-1] {
		t.Errorf("merged n=%d max=%d, want %d and %d", run.n, run.max, len(all), all[len(all)-1])
	}
	var parts runHist
	parts.merge(&run)
	parts.merge(&runHist{})
	if parts.quantile(0.99) != run.quantile(0.99) || parts.n != run.n {
		t.Errorf("a run histogram merged into an empty one: p99 %d n %d, want %d and %d", parts.quantile(0.99), parts.n, run.quantile(0.99), run.n)
	}
	var empty histogram
	if empty.quantile(0.99) != 0 || (&runHist{}).quantile(0.5) != 0 {
		t.Error("an empty histogram's quantile is not 0")
	}
}

// TestHistSaturates: a flow's 32-bit count stops at its largest value
// rather than wrap to zero (which would move every quantile), and the
// run's 64-bit counts go past it when flows are merged.
func TestHistSaturates(t *testing.T) {
	var h histogram
	h.add(1000)
	b := histBucket(1000)
	h.counts[b] = math.MaxUint32 - 1
	h.n = math.MaxUint32 - 1
	h.add(1000)
	h.add(1000)
	if h.counts[b] != math.MaxUint32 {
		t.Fatalf("count after saturation = %d, want %d", h.counts[b], uint32(math.MaxUint32))
	}
	if got := h.quantile(0.5); got != histLow(b) {
		t.Errorf("p50 of a saturated bucket = %d, want %d", got, histLow(b))
	}
	var run runHist
	run.mergeFlow(&h)
	run.mergeFlow(&h)
	if run.counts[b] != 2*math.MaxUint32 {
		t.Errorf("run count = %d, want %d", run.counts[b], int64(2*math.MaxUint32))
	}
	h.add(-5) // negative latencies count as 0
	if h.counts[0] != 1 {
		t.Errorf("a negative sample: bucket 0 holds %d, want 1", h.counts[0])
	}
}
