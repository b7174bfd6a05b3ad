package sim

import (
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// simRand is the engine's random source: a PCG whose draws are math/rand/v2's
// Rand methods of the same names, number for number (TestSimRandStream), but
// called on the concrete generator so that they inline. Through a *rand.Rand
// each draw was an interface call to the Source plus Int64N's own frame:
// some 70 instructions a draw, 3% of the 8:1 incast's, which draws a link's
// jitter for every packet sent towards a switch.
//
// Each partition of a parallel run draws from its own, and every draw
// writes the state: the padding gives each generator a cache line of its
// own. Allocated one after the other, 16-byte generators of different
// partitions shared lines, and two threads writing them passed the line
// back and forth (at 1024 hosts on 2 threads uint64n took 6% of the
// samples against nothing on one).
type simRand struct {
	pcg rand.PCG
	_   [cacheLine - unsafe.Sizeof(rand.PCG{})]byte
}

func newSimRand(seed, stream uint64) *simRand {
	r := &simRand{}
	r.pcg.Seed(seed, stream)
	return r
}

// uint64n is math/rand/v2's (*Rand).uint64n on a 64-bit machine: Lemire's
// multiply-and-reject reduction, with the power-of-two mask first.
func (r *simRand) uint64n(n uint64) uint64 {
	if n&(n-1) == 0 {
		return r.pcg.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.pcg.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.pcg.Uint64(), n)
		}
	}
	return hi
}

// Int64N is (*rand.Rand).Int64N: a number in [0, n); n must be positive.
func (r *simRand) Int64N(n int64) int64 {
	if n <= 0 {
		panic("sim: invalid argument to Int64N")
	}
	return int64(r.uint64n(uint64(n)))
}

// IntN is (*rand.Rand).IntN: a number in [0, n); n must be positive.
func (r *simRand) IntN(n int) int {
	if n <= 0 {
		panic("sim: invalid argument to IntN")
	}
	return int(r.uint64n(uint64(n)))
}

// Float64 is (*rand.Rand).Float64: a number in [0, 1).
func (r *simRand) Float64() float64 {
	return float64(r.pcg.Uint64()<<11>>11) / (1 << 53)
}
