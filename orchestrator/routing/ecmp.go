package routing

// Mix64 is the splitmix64 finalizer: every output bit depends on every
// input bit, so the low bits a modulo keeps spread flows evenly.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// ECMPIndex picks one of n equal-cost next hops (NextHops order) for a
// packet whose 5-tuple hashes to key at a switch whose ECMP hash seed is
// seed: Mix64(key ^ seed) mod n. `labctl trace` and the simulator both pick
// with it, from the same candidates, so they pick the same one.
func ECMPIndex(n int, key, seed uint64) int {
	if n <= 1 {
		return 0
	}
	return int(Mix64(key^seed) % uint64(n))
}
