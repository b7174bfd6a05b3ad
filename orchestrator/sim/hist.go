package sim

import "math/bits"

// histogram is a flow's log-linear histogram of packet latencies (ns) with
// 32 sub-buckets per power of two: about 3% relative error, fixed size, no
// allocation per sample. Its counts are an array of their own, so that the
// count and maximum, which every sample updates, sit among the owner's hot
// fields (a flow's receiver state) and a sample touches one line of the
// array only.
//
// The counts are 32-bit (7.4 KiB a flow, not 15): every flow in progress
// holds one, and at a thousand flows their lines in use were more than the
// caches hold; counting into them was 6.7% of the 1024-GPU AllReduce's CPU
// (pprof), each sample a miss. A count saturates rather than wraps (4
// billion packets of one flow is some 16 TB); the run's histogram, which
// sums every flow's, has 64-bit counts (runHist).
type histogram struct {
	n      int64
	max    int64
	counts *histCounts // nil until the first sample
}

type histCounts = [histBuckets]uint32

// runHist is the latency histogram of a whole run (or of a partition's
// share of it): the flows' histograms merged as they end, and the samples
// of flows that keep none.
type runHist struct {
	n      int64
	max    int64
	counts *[histBuckets]int64 // nil until the first sample
}

// Values below 64 have a bucket each; above, each power of two [2^k, 2^(k+1))
// splits into 32 buckets.
const histBuckets = 64 + 57*32

func histBucket(v int64) int {
	if v < 64 {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 6 // v>>e is in [32, 63]
	return 64 + (e-1)*32 + int(v>>uint(e)) - 32
}

// histLow is the smallest value of bucket i.
func histLow(i int) int64 {
	if i < 64 {
		return int64(i)
	}
	j := i - 64
	e := j/32 + 1
	return int64(j%32+32) << uint(e)
}

func (h *histogram) add(v int64) {
	v = max(v, 0)
	if h.counts == nil {
		h.counts = new(histCounts)
	}
	if c := &h.counts[histBucket(v)]; *c != ^uint32(0) {
		*c++
	}
	h.n++
	h.max = max(h.max, v)
}

func (h *histogram) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	return histQuantile(h.counts[:], h.n, h.max, q)
}

func (h *runHist) add(v int64) {
	v = max(v, 0)
	if h.counts == nil {
		h.counts = new([histBuckets]int64)
	}
	h.counts[histBucket(v)]++
	h.n++
	h.max = max(h.max, v)
}

func (h *runHist) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	return histQuantile(h.counts[:], h.n, h.max, q)
}

// mergeFlow adds a flow's histogram.
func (h *runHist) mergeFlow(o *histogram) { addCounts(h, o.counts, o.n, o.max) }

// merge adds another run histogram (a partition's).
func (h *runHist) merge(o *runHist) { addCounts(h, o.counts, o.n, o.max) }

// addCounts adds n samples, the largest most, counted in counts (nil
// when none), to h.
func addCounts[C uint32 | int64](h *runHist, counts *[histBuckets]C, n, most int64) {
	if counts == nil {
		return
	}
	if h.counts == nil {
		h.counts = new([histBuckets]int64)
	}
	for i, k := range counts {
		h.counts[i] += int64(k)
	}
	h.n += n
	h.max = max(h.max, most)
}

// histQuantile is the lower edge of the bucket holding quantile q of n
// samples (at most max, the exact largest); n > 0. Where counts saturated
// and hold fewer than n, the quantiles past them read as max.
func histQuantile[C uint32 | int64](counts []C, n, max int64, q float64) int64 {
	rank := int64(q*float64(n-1)) + 1
	var c int64
	for i, k := range counts {
		c += int64(k)
		if c >= rank {
			return min(histLow(i), max)
		}
	}
	return max
}
