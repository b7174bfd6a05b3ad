package sim

import "math/bits"

// histogram is a log-linear histogram of non-negative integers (ns) with 64
// sub-buckets per power of two: about 1.6% relative error, fixed size, no
// allocation per sample. Its 15 KiB of counts are an array of their own,
// so that the count and maximum, which every sample updates, sit among the
// owner's hot fields (a flow's receiver state) and a sample touches one
// line of the array only.
type histogram struct {
	n      int64
	max    int64
	counts *histCounts // nil until the first sample
}

type histCounts [histBuckets]int64

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
	if v < 0 {
		v = 0
	}
	if h.counts == nil {
		h.counts = new(histCounts)
	}
	h.counts[histBucket(v)]++
	h.n++
	if v > h.max {
		h.max = v
	}
}

// quantile returns the lower edge of the bucket holding quantile q.
func (h *histogram) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n-1)) + 1
	var c int64
	for i, k := range h.counts {
		c += k
		if c >= rank {
			return min(histLow(i), h.max)
		}
	}
	return h.max
}

func (h *histogram) merge(o *histogram) {
	if o.counts == nil {
		return
	}
	if h.counts == nil {
		h.counts = new(histCounts)
	}
	for i, k := range o.counts {
		h.counts[i] += k
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}
