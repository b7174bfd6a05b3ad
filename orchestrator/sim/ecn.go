package sim

// markProbability is the RED/ECN marking curve of DCQCN's congestion point
// on the instantaneous queue depth q (bytes): 0 at or below kmin, 1 above
// kmax, pmax*(q-kmin)/(kmax-kmin) in between.
func markProbability(q, kmin, kmax int64, pmax float64) float64 {
	switch {
	case q <= kmin:
		return 0
	case q > kmax:
		return 1
	case kmax <= kmin:
		return 1
	}
	return pmax * float64(q-kmin) / float64(kmax-kmin)
}
