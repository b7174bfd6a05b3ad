package collective

// NCCL's double binary tree (NCCL src/graph/trees.cc, ncclGetBtree and
// ncclGetDtree), followed line by line so that the trees labctl builds
// are the ones NCCL connects between nodes: tree 0 is a binary tree
// whose internal nodes alternate with its leaves, rooted at 0; tree 1 is
// its mirror (nranks - 1 - rank) when nranks is even, or the same tree
// shifted by one rank when it is odd. Every node is then a leaf in one
// of the two trees, which is what balances the links' load.

// btree is ncclGetBtree: the parent (up, -1 at the root) and up to two
// children (-1: none) of rank in the binary tree over nranks.
func btree(nranks, rank int) (up, down0, down1 int) {
	bit := 1
	for ; bit < nranks; bit <<= 1 {
		if bit&rank != 0 {
			break
		}
	}
	if rank == 0 {
		// The root's only child is its child 1 in NCCL's terms.
		if nranks > 1 {
			return -1, -1, bit >> 1
		}
		return -1, -1, -1
	}
	up = (rank ^ bit) | (bit << 1)
	if up >= nranks {
		up = rank ^ bit
	}
	lowbit := bit >> 1
	down0, down1 = -1, -1
	if lowbit != 0 {
		down0 = rank - lowbit
		down1 = rank + lowbit
	}
	// NCCL's loop, as written there: it recomputes down1 before halving
	// lowbit, so the first pass changes nothing and -1 ends it.
	for down1 >= nranks {
		if lowbit == 0 {
			down1 = -1
		} else {
			down1 = rank + lowbit
		}
		lowbit >>= 1
	}
	return up, down0, down1
}

// dtree is ncclGetDtree for tree t (0 or 1): rank's parent and children.
func dtree(nranks, rank, t int) (up, down0, down1 int) {
	if t == 0 {
		return btree(nranks, rank)
	}
	if nranks%2 == 1 {
		// Shift by one rank.
		shift := (rank - 1 + nranks) % nranks
		u, d0, d1 := btree(nranks, shift)
		return plus1(u, nranks), plus1(d0, nranks), plus1(d1, nranks)
	}
	// Mirror.
	u, d0, d1 := btree(nranks, nranks-1-rank)
	return mirror(u, nranks), mirror(d0, nranks), mirror(d1, nranks)
}

func plus1(r, n int) int {
	if r == -1 {
		return -1
	}
	return (r + 1) % n
}

func mirror(r, n int) int {
	if r == -1 {
		return -1
	}
	return n - 1 - r
}

// treeParents lists, for tree t over n nodes, every node's parent (-1 for
// the root) and children in NCCL's order (down0 then down1).
func treeParents(n, t int) (parent []int, children [][]int) {
	parent = make([]int, n)
	children = make([][]int, n)
	for r := range n {
		u, d0, d1 := dtree(n, r, t)
		parent[r] = u
		for _, d := range []int{d0, d1} {
			if d >= 0 {
				children[r] = append(children[r], d)
			}
		}
	}
	return parent, children
}
