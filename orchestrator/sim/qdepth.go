package sim

import "math/bits"

// depthHist is the distribution of the egress queue depth that packets
// see on arrival at one switch port and priority: the bytes queued ahead
// of each packet the queue admits (what it waits behind, not counting the
// packet on the wire), so its percentiles are arrival-weighted, as a
// packet's queueing delay is. The buckets are log-scale with eight per
// doubling from 4 KiB (one MTU packet) to 256 MiB: below 4 KiB (an empty
// queue, or ACKs and CNPs only) is one bucket that reads as 0, above
// 256 MiB (more than any switch buffer) the last. A quantile is its
// bucket's lower edge, so at most 12.5% below the exact depth. A switch
// allocates one only for a port and priority that queues a packet.
type depthHist struct {
	// n before counts: with the first buckets (an empty or short queue,
	// what most arrivals see) in the same cache line.
	n      int64
	counts [depthBuckets]uint32
}

const (
	depthMinShift = 12 // 4 KiB: below it is bucket 0
	depthMaxShift = 28 // 256 MiB: at and above it is the last bucket
	depthSub      = 8  // buckets per doubling
	depthBuckets  = 1 + (depthMaxShift-depthMinShift)*depthSub + 1
)

func depthBucket(v int64) int {
	if v < 1<<depthMinShift {
		return 0
	}
	if v >= 1<<depthMaxShift {
		return depthBuckets - 1
	}
	e := bits.Len64(uint64(v)) - 1 // v in [2^e, 2^(e+1))
	return 1 + (e-depthMinShift)*depthSub + int(v>>uint(e-3))&(depthSub-1)
}

// depthLow is the smallest depth of bucket i.
func depthLow(i int) int64 {
	if i == 0 {
		return 0
	}
	if i == depthBuckets-1 {
		return 1 << depthMaxShift
	}
	j := i - 1
	e := j/depthSub + depthMinShift
	return int64(depthSub+j%depthSub) << uint(e-3)
}

func (h *depthHist) add(v int64) {
	// A count saturates rather than wraps: 4 billion packets at one
	// port and priority is beyond any simulated span labctl runs.
	if c := &h.counts[depthBucket(v)]; *c != ^uint32(0) {
		*c++
	}
	h.n++
}

// quantile is the lower edge of the bucket holding quantile q (0 when
// empty), at most max, the exact peak.
func (h *depthHist) quantile(q float64, max int64) int64 {
	if h == nil || h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n-1)) + 1
	var c uint64
	for i, k := range h.counts {
		c += uint64(k)
		if c >= rank {
			return min(depthLow(i), max)
		}
	}
	return max
}

// queueSample records the depth a packet of priority pr sees arriving at
// switch port p's queue q (the priority's egress queue there), in the
// priority's histogram, allocated on first use.
func queueSample(p *port, pr, q uint8) {
	h := p.lane[pr].qh
	if h == nil {
		h = new(depthHist)
		p.lane[pr].qh = h
	}
	h.add(p.lane[q].q.bytes)
}
