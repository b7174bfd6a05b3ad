package sim

import (
	"fmt"
	"math/rand/v2"
)

// Traffic generators for the patterns labctl scenarios use. Every flow is
// one QP with Role set to the pattern; bytes 0 makes long-lived flows.
// Flow IDs are "<prefix>-<src>-><dst>" (plus "#<k>" for repeated pairs).

// IncastFlows is N:1: every sender to dst.
func IncastFlows(prefix string, senders []string, dst string, bytes int64) []Flow {
	var fs []Flow
	for _, s := range senders {
		if s != dst {
			fs = append(fs, pairFlow(prefix, s, dst, bytes, "incast", 0))
		}
	}
	return fs
}

// PairFlows is srcs[i] -> dsts[i], each pair repeated qps times (qps < 1
// means 1), each repetition its own QP and UDP source port.
func PairFlows(prefix string, srcs, dsts []string, bytes int64, qps int) []Flow {
	qps = max(qps, 1)
	var fs []Flow
	for i := 0; i < min(len(srcs), len(dsts)); i++ {
		for k := 0; k < qps; k++ {
			fs = append(fs, pairFlow(prefix, srcs[i], dsts[i], bytes, "pair", k))
		}
	}
	return fs
}

// PermutationFlows sends from every host to one other host, each host
// receiving exactly one flow, no host sending to itself; the permutation
// is drawn from seed.
func PermutationFlows(prefix string, hosts []string, bytes int64, seed int64) []Flow {
	n := len(hosts)
	if n < 2 {
		return nil
	}
	// Sattolo's algorithm yields a single n-cycle: a derangement.
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5851f42d4c957f2d))
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	fs := make([]Flow, 0, n)
	for i, j := range perm {
		fs = append(fs, pairFlow(prefix, hosts[i], hosts[j], bytes, "permutation", 0))
	}
	return fs
}

// AllToAllFlows sends from every host to every other host.
func AllToAllFlows(prefix string, hosts []string, bytes int64) []Flow {
	var fs []Flow
	for _, a := range hosts {
		for _, b := range hosts {
			if a != b {
				fs = append(fs, pairFlow(prefix, a, b, bytes, "all-to-all", 0))
			}
		}
	}
	return fs
}

func pairFlow(prefix, src, dst string, bytes int64, role string, k int) Flow {
	id := fmt.Sprintf("%s-%s->%s", prefix, src, dst)
	if k > 0 {
		id = fmt.Sprintf("%s#%d", id, k)
	}
	return Flow{ID: id, Src: src, Dst: dst, Bytes: bytes, Role: role, SrcPort: 49152 + k}
}
