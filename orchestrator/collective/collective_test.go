package collective

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sim"
)

// servers makes n servers host1..hostn of gpus GPUs and nics NICs named
// eth0.. (the simulator's "host:port" names).
func servers(n, gpus, nics int) []Server {
	var out []Server
	for s := range n {
		sv := Server{Host: fmt.Sprintf("host%d", s+1), GPUs: gpus}
		for k := range nics {
			sv.NICs = append(sv.NICs, fmt.Sprintf("host%d:eth%d", s+1, k))
		}
		out = append(out, sv)
	}
	return out
}

// edges lists a tree's edges child->parent, sorted.
func edges(parent []int) []string {
	var out []string
	for c, p := range parent {
		if p >= 0 {
			out = append(out, fmt.Sprintf("%d->%d", c, p))
		}
	}
	slices.Sort(out)
	return out
}

func sortedEdges(s ...string) []string { slices.Sort(s); return s }

// The trees drawn in NCCL's trees.cc comments, read off by hand.
func TestDoubleBinaryTreeMatchesNCCL(t *testing.T) {
	cases := []struct {
		n, tree int
		want    []string
	}{
		// 14 ranks, tree 0: 0-8; 8: 4, 12; 4: 2, 6; 12: 10, 13; 2: 1, 3;
		// 6: 5, 7; 10: 9, 11.
		{14, 0, sortedEdges("8->0", "4->8", "12->8", "2->4", "6->4", "10->12", "13->12", "1->2", "3->2", "5->6", "7->6", "9->10", "11->10")},
		// 12 ranks, tree 0 and its mirror (r -> 11-r): 11-3; 3: 1, 7;
		// 1: 0, 2; 7: 5, 9; 5: 4, 6; 9: 8, 10.
		{12, 0, sortedEdges("8->0", "4->8", "10->8", "2->4", "6->4", "9->10", "11->10", "1->2", "3->2", "5->6", "7->6")},
		{12, 1, sortedEdges("3->11", "1->3", "7->3", "0->1", "2->1", "5->7", "9->7", "4->5", "6->5", "8->9", "10->9")},
		// 13 ranks, tree 0 (12 has the one child 10) and its shift by
		// one: 1-9; 9: 5, 0; 5: 3, 7; 0: 11; 3: 2, 4; 7: 6, 8; 11: 10, 12.
		{13, 0, sortedEdges("8->0", "4->8", "12->8", "2->4", "6->4", "10->12", "1->2", "3->2", "5->6", "7->6", "9->10", "11->10")},
		{13, 1, sortedEdges("9->1", "5->9", "0->9", "3->5", "7->5", "11->0", "2->3", "4->3", "6->7", "8->7", "10->11", "12->11")},
		// 2 nodes: 1 under 0, and mirrored 0 under 1; 4 nodes worked out
		// from btree by hand: 0 <- 2 <- {1, 3}; mirror 3 <- 1 <- {0, 2}.
		{2, 0, []string{"1->0"}},
		{2, 1, []string{"0->1"}},
		{4, 0, sortedEdges("2->0", "1->2", "3->2")},
		{4, 1, sortedEdges("1->3", "0->1", "2->1")},
		{1, 0, nil},
	}
	for _, c := range cases {
		p, _ := treeParents(c.n, c.tree)
		if got := edges(p); !slices.Equal(got, c.want) {
			t.Errorf("%d ranks tree %d: %v, want %v", c.n, c.tree, got, c.want)
		}
	}
}

// Every node's parent lists it as a child, there is one root, every node
// reaches it, and a node has at most two children; in NCCL's design every
// node that has children in one tree is a leaf in the other.
func TestDoubleBinaryTreeIsATree(t *testing.T) {
	for n := 1; n <= 300; n++ {
		var kids [2][][]int
		for tr := range 2 {
			parent, children := treeParents(n, tr)
			kids[tr] = children
			roots := 0
			for r, p := range parent {
				if p < 0 {
					roots++
					continue
				}
				if !slices.Contains(children[p], r) {
					t.Fatalf("n=%d tree %d: %d's parent %d does not list it (children %v)", n, tr, r, p, children[p])
				}
			}
			for p, cs := range children {
				if len(cs) > 2 {
					t.Fatalf("n=%d tree %d: %d has %d children", n, tr, p, len(cs))
				}
				for _, c := range cs {
					if parent[c] != p {
						t.Fatalf("n=%d tree %d: %d lists child %d whose parent is %d", n, tr, p, c, parent[c])
					}
				}
			}
			if roots != 1 {
				t.Fatalf("n=%d tree %d: %d roots", n, tr, roots)
			}
			for r := range n {
				x, steps := r, 0
				for parent[x] >= 0 && steps <= n {
					x, steps = parent[x], steps+1
				}
				if parent[x] >= 0 {
					t.Fatalf("n=%d tree %d: %d never reaches the root", n, tr, r)
				}
			}
		}
		if n%2 == 0 {
			for r := range n {
				if len(kids[0][r]) > 0 && len(kids[1][r]) > 0 {
					t.Fatalf("n=%d: %d has children in both trees", n, r)
				}
			}
		}
	}
}

func TestTestSize(t *testing.T) {
	cases := []struct {
		coll        string
		req         int64
		elt, ranks  int
		size, count int64
	}{
		{results.CollAllReduce, 8, 4, 16, 8, 2},
		{results.CollAllReduce, 10, 4, 16, 8, 2}, // whole elements
		{results.CollBroadcast, 1 << 20, 4, 16, 1 << 20, 1 << 18},
		{results.CollSendRecv, 64, 8, 3, 64, 8},
		// 1024 B of float over 16 ranks: 16 elements each, a multiple of 4.
		{results.CollAllGather, 1024, 4, 16, 1024, 16},
		// 1000 B: 250 elements, 15 a rank, down to 12: 12 x 16 x 4 B.
		{results.CollAllGather, 1000, 4, 16, 768, 12},
		{results.CollReduceScatter, 1000, 4, 16, 768, 12},
		// int8: 16 elements to the 16 B; 1000/16 = 62 -> 48.
		{results.CollReduceScatter, 1000, 1, 16, 768, 48},
		// double: 2 elements; 1000 B = 125, 7 a rank -> 6.
		{results.CollAllToAll, 1000, 8, 16, 768, 6},
		{results.CollAllToAll, 8, 4, 16, 0, 0},
	}
	for _, c := range cases {
		size, count := TestSize(c.coll, c.req, c.elt, c.ranks)
		if size != c.size || count != c.count {
			t.Errorf("TestSize(%s, %d, %d, %d) = %d, %d; want %d, %d", c.coll, c.req, c.elt, c.ranks, size, count, c.size, c.count)
		}
	}
	_, _, err := Build(servers(2, 8, 8), Spec{Collective: results.CollAllToAll, Bytes: 8}, "x")
	var ee *EmptyError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "0 B") {
		t.Fatalf("an 8 B all-to-all over 16 ranks: %v, want an EmptyError", err)
	}
}

// checkProgram holds a program to what the engine accepts: inputs in
// range, no cycle among same-index dependencies (a deadlock), legs that
// go somewhere, at least one message of at least one byte.
func checkProgram(t *testing.T, p sim.Program) {
	t.Helper()
	n := int32(len(p.Streams))
	for i, st := range p.Streams {
		if st.Messages < 1 || st.MessageBytes < 1 {
			t.Fatalf("stream %d: %d messages of %d B", i, st.Messages, st.MessageBytes)
		}
		if st.ScaleUp && (st.SrcGPU == st.DstGPU || st.Host == "") {
			t.Fatalf("stream %d: scale-up %s GPU %d -> %d", i, st.Host, st.SrcGPU, st.DstGPU)
		}
		if !st.ScaleUp && (st.Src == st.Dst || st.Src == "" || st.Dst == "") {
			t.Fatalf("stream %d: fabric %q -> %q", i, st.Src, st.Dst)
		}
		for _, in := range st.Inputs {
			if in.Stream < 0 || in.Stream >= n {
				t.Fatalf("stream %d: input %d out of range", i, in.Stream)
			}
		}
	}
	// Same-index edges (offset >= 0) must form no cycle.
	state := make([]int, n)
	var visit func(i int32)
	visit = func(i int32) {
		state[i] = 1
		for _, in := range p.Streams[i].Inputs {
			if in.Offset < 0 {
				continue
			}
			switch state[in.Stream] {
			case 1:
				t.Fatalf("stream %d: a cycle of same-index inputs through stream %d", i, in.Stream)
			case 0:
				visit(in.Stream)
			}
		}
		state[i] = 2
	}
	for i := range n {
		if state[i] == 0 {
			visit(i)
		}
	}
}

func nicIndex(name string) string { _, port, _ := strings.Cut(name, ":"); return port }
func hostOf(name string) string   { h, _, _ := strings.Cut(name, ":"); return h }

// NCCL order: per channel one fabric stream per server, from NIC c mod
// NICs to the next server's same NIC; the chain inside a server starts at
// that NIC's GPU and ends with the PXN hand-over to it.
func TestRingNCCLOrder(t *testing.T) {
	for _, shape := range []struct{ servers, gpus, nics int }{{2, 8, 8}, {8, 8, 8}, {3, 8, 4}} {
		svs := servers(shape.servers, shape.gpus, shape.nics)
		sc, err := plan(svs, Spec{Collective: results.CollAllReduce, Bytes: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if sc.layout.Channels != shape.nics || len(sc.rings) != shape.nics {
			t.Fatalf("%v: %d channels, %d rings; want one per NIC", shape, sc.layout.Channels, len(sc.rings))
		}
		for c, ring := range sc.rings {
			k := c % shape.nics
			g0 := k * shape.gpus / shape.nics
			fabric := 0
			for i, xi := range ring {
				x := sc.xfers[xi]
				s := i / shape.gpus
				pos := i % shape.gpus
				from := (g0 + pos) % shape.gpus
				if pos < shape.gpus-1 {
					// A hop inside the server: the next GPU, by scale-up.
					if len(x.legs) != 1 || !x.legs[0].scaleUp || x.legs[0].srcGPU != from || x.legs[0].dstGPU != (from+1)%shape.gpus || x.legs[0].host != svs[s].Host {
						t.Fatalf("%v channel %d hop %d: %+v, want scale-up GPU %d -> %d on %s", shape, c, i, x.legs, from, (from+1)%shape.gpus, svs[s].Host)
					}
					continue
				}
				// The hop out: PXN to GPU g0, then NIC k to the next
				// server's NIC k.
				next := svs[(s+1)%shape.servers]
				last := x.legs[len(x.legs)-1]
				if last.scaleUp || last.src != svs[s].NICs[k] || last.dst != next.NICs[k] {
					t.Fatalf("%v channel %d: server %d leaves by %+v, want %s -> %s", shape, c, s, last, svs[s].NICs[k], next.NICs[k])
				}
				if svs[s].nicOf(from) != k {
					if len(x.legs) != 2 || !x.legs[0].scaleUp || x.legs[0].srcGPU != from || x.legs[0].dstGPU != g0 {
						t.Fatalf("%v channel %d: the hand-over from GPU %d is %+v, want scale-up to GPU %d", shape, c, from, x.legs, g0)
					}
				}
				fabric++
			}
			if fabric != shape.servers {
				t.Fatalf("%v channel %d: %d fabric streams, want one per server", shape, c, fabric)
			}
		}
		p := sc.program("p")
		checkProgram(t, p)
		fab := 0
		for _, st := range p.Streams {
			if !st.ScaleUp {
				fab++
				if nicIndex(st.Src) != nicIndex(st.Dst) || hostOf(st.Src) == hostOf(st.Dst) {
					t.Fatalf("%v: fabric stream %s -> %s is not rail aligned between two servers", shape, st.Src, st.Dst)
				}
			}
		}
		if fab != shape.servers*shape.nics {
			t.Fatalf("%v: %d fabric streams, want %d", shape, fab, shape.servers*shape.nics)
		}
	}
}

// Naive order: ranks round robin over servers, so every hop leaves its
// server, from the sender's own NIC to the receiver's.
func TestRingNaiveOrder(t *testing.T) {
	svs := servers(4, 8, 8)
	p, l, err := Build(svs, Spec{Collective: results.CollAllReduce, Bytes: 1 << 20, RankOrder: OrderNaive}, "p")
	if err != nil {
		t.Fatal(err)
	}
	checkProgram(t, p)
	if len(p.Streams) != l.Channels*32 {
		t.Fatalf("%d streams, want one per rank per channel (%d)", len(p.Streams), l.Channels*32)
	}
	cross := 0
	for i, st := range p.Streams {
		if st.ScaleUp {
			t.Fatalf("stream %d is scale-up; every naive hop crosses the fabric", i)
		}
		// Rank r is GPU r/4 of server r%4; it sends to rank r+1.
		r := i % 32
		src := fmt.Sprintf("host%d:eth%d", r%4+1, r/4)
		dst := fmt.Sprintf("host%d:eth%d", (r+1)%32%4+1, (r+1)%32/4)
		if st.Src != src || st.Dst != dst {
			t.Fatalf("stream %d: %s -> %s, want %s -> %s", i, st.Src, st.Dst, src, dst)
		}
		if nicIndex(st.Src) != nicIndex(st.Dst) {
			cross++
		}
	}
	// The wraps from the last server to the first change rail: 8 a ring.
	if cross != 8*l.Channels {
		t.Fatalf("%d cross-rail hops, want %d", cross, 8*l.Channels)
	}
}

// Tree: NCCL's double binary tree over 4 servers (worked out by hand in
// TestDoubleBinaryTreeMatchesNCCL), chains of 2 GPUs headed by the GPU of
// the channel's NIC, tree c mod 2 on NIC (c/2) mod NICs.
func TestTreeNCCL(t *testing.T) {
	svs := servers(4, 2, 2)
	sc, err := plan(svs, Spec{Collective: results.CollAllReduce, Algorithm: AlgoTree, Bytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if sc.layout.Channels != 4 {
		t.Fatalf("%d channels, want 2 x NICs = 4", sc.layout.Channels)
	}
	p := sc.program("p")
	checkProgram(t, p)
	// Fabric edges per channel, up (child->parent) and down.
	type key struct{ src, dst string }
	got := map[key]int{}
	for _, st := range p.Streams {
		if !st.ScaleUp {
			got[key{st.Src, st.Dst}]++
		}
	}
	want := map[key]int{}
	tree := map[int][][2]int{0: {{1, 2}, {3, 2}, {2, 0}}, 1: {{0, 1}, {2, 1}, {1, 3}}}
	for c := range 4 {
		k := (c / 2) % 2
		for _, e := range tree[c%2] {
			a, b := svs[e[0]].NICs[k], svs[e[1]].NICs[k]
			want[key{a, b}]++ // up
			want[key{b, a}]++ // down
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("fabric edges %v, want %v", got, want)
	}
	// Inside each server, per channel, the chain head (GPU of NIC k)
	// and its one follower exchange one stream each way.
	su := 0
	for _, st := range p.Streams {
		if st.ScaleUp {
			su++
		}
	}
	if su != 4*4*2 {
		t.Fatalf("%d scale-up streams, want 2 per server per channel (32)", su)
	}
	// The root's downward streams wait for every upward stream into the
	// root; channel 0's root is host1's GPU 0 (tree 0's root is server 0),
	// whose children are GPU 1 (its chain) and host3's head.
	var intoRoot []int32
	for i, st := range p.Streams[:len(p.Streams)/4] {
		if (st.ScaleUp && st.Host == "host1" && st.DstGPU == 0) || (!st.ScaleUp && st.Dst == "host1:eth0") {
			intoRoot = append(intoRoot, int32(i))
		}
	}
	if len(intoRoot) != 2 {
		t.Fatalf("channel 0: %d streams into the root, want 2", len(intoRoot))
	}
	for i, st := range p.Streams[:len(p.Streams)/4] {
		if (st.ScaleUp && st.Host == "host1" && st.SrcGPU == 0) || (!st.ScaleUp && st.Src == "host1:eth0") {
			var ins []int32
			for _, in := range st.Inputs {
				if in.Offset != 0 {
					t.Fatalf("stream %d: offset %d, want 0", i, in.Offset)
				}
				ins = append(ins, in.Stream)
			}
			slices.Sort(ins)
			if !slices.Equal(ins, intoRoot) {
				t.Fatalf("root stream %d waits for %v, want %v", i, ins, intoRoot)
			}
		}
	}
}

// All-to-all: every rank to every other; inside a server by scale-up,
// between servers through the NIC of the destination's GPU index (PXN,
// staged when the sender is on another NIC); naive goes NIC to NIC.
func TestAllToAllRoutes(t *testing.T) {
	svs := servers(2, 4, 4)
	for _, order := range RankOrders {
		p, l, err := Build(svs, Spec{Collective: results.CollAllToAll, Bytes: 1 << 20, RankOrder: order}, "p")
		if err != nil {
			t.Fatal(err)
		}
		checkProgram(t, p)
		if l.Ranks != 8 || l.Channels != 1 {
			t.Fatalf("%s: %d ranks %d channels", order, l.Ranks, l.Channels)
		}
		staged, direct, intra := 0, 0, 0
		for i, st := range p.Streams {
			switch {
			case st.ScaleUp && len(st.Inputs) == 0 && i+1 < len(p.Streams) && len(p.Streams[i+1].Inputs) == 1 && p.Streams[i+1].Inputs[0].Stream == int32(i):
				// A PXN staging leg: the next stream leaves its relay's NIC.
				next := p.Streams[i+1]
				if order == OrderNaive || nicIndex(next.Src) != fmt.Sprintf("eth%d", st.DstGPU) || nicIndex(next.Dst) != nicIndex(next.Src) {
					t.Fatalf("%s: staged to GPU %d then %s -> %s", order, st.DstGPU, next.Src, next.Dst)
				}
				staged++
			case st.ScaleUp:
				intra++
			case len(st.Inputs) == 0:
				direct++
			}
		}
		// 8 x 7 pairs: 2 x 4 x 3 inside servers, 32 between: with PXN 8
		// go straight (same GPU index), 24 are staged.
		wantStaged, wantDirect := 24, 8
		if order == OrderNaive {
			wantStaged, wantDirect = 0, 32
		}
		if intra != 24 || staged != wantStaged || direct != wantDirect {
			t.Fatalf("%s: %d intra, %d staged, %d direct; want 24, %d, %d", order, intra, staged, direct, wantStaged, wantDirect)
		}
	}
}

// streamBytes is what a program's stream carries: its messages' own
// sizes, or MessageBytes each.
func streamBytes(st sim.Stream) (sum, least, most int64) {
	least = math.MaxInt64
	for m := range st.Messages {
		b := st.MessageBytes
		if st.Size != nil {
			b = st.Size(m)
		}
		sum += b
		least, most = min(least, b), max(most, b)
	}
	return sum, least, most
}

// movedBytes is what a collective of size bytes over n ranks moves from
// GPU to GPU as NCCL runs it: a ring all-reduce 2(n-1) chunks of size/n
// a rank, a tree all-reduce the size up and down each of the tree's
// n-1 edges, all-gather, reduce-scatter and broadcast n-1 times the size
// (every rank gets every other rank's block, every rank but the root the
// buffer), all-to-all (n-1)/n of the size a rank, send/recv the size a
// rank.
func movedBytes(coll, algo string, size, n int64) int64 {
	switch {
	case coll == results.CollAllReduce:
		return 2 * (n - 1) * size
	case coll == results.CollSendRecv:
		return n * size
	}
	return (n - 1) * size
}

// Every collective carries exactly the bytes NCCL moves, for sizes that
// divide by nothing and sizes below ranks x channels: on servers of one
// GPU every transfer is one fabric stream, on one server one scale-up
// stream, so the program's streams add up to the collective's bytes.
// Every message is a whole number of elements, within an element of
// every other message, at most NCCL's chunk, and empty only when the
// collective has fewer elements than a channel's chunks (NCCL's would
// be empty too).
func TestExactBytes(t *testing.T) {
	type lab struct {
		name string
		svs  []Server
	}
	labs := []lab{{"5 servers of 1 GPU", servers(5, 1, 1)}, {"1 server of 8 GPUs", servers(1, 8, 2)}, {"3 servers of 1 GPU", servers(3, 1, 1)}}
	colls := []struct{ coll, algo string }{
		{results.CollAllReduce, AlgoRing}, {results.CollAllReduce, AlgoTree}, {results.CollAllGather, AlgoRing},
		{results.CollReduceScatter, AlgoRing}, {results.CollBroadcast, AlgoRing}, {results.CollAllToAll, AlgoRing}, {results.CollSendRecv, AlgoRing},
	}
	sizes := []int64{1, 3, 8, 13, 100, 1000, 4097, 65537, 1000003, 9<<20 + 7, 100 << 20}
	for _, l := range labs {
		for _, c := range colls {
			for _, dt := range []string{"int8", "float", "double"} {
				for k, ch := range []int{0, 1, 3, 8} {
					for _, bytes := range sizes {
						// Some with 3 QPs per connection: a fabric leg's
						// messages interleaved over 3 streams.
						spec := Spec{Collective: c.coll, Algorithm: c.algo, Bytes: bytes, DataType: dt, Channels: ch, QPsPerConnection: 1 + 2*(k%2)}
						p, lay, err := Build(l.svs, spec, "p")
						var empty *EmptyError
						if errors.As(err, &empty) {
							continue
						}
						if err != nil {
							t.Fatalf("%s %+v: %v", l.name, spec, err)
						}
						checkProgram(t, p)
						n, elt := int64(lay.Ranks), int64(DataTypes[lay.DataType])
						total, least, most := int64(0), int64(math.MaxInt64), int64(0)
						for _, st := range p.Streams {
							sum, lo, hi := streamBytes(st)
							total, least, most = total+sum, min(least, lo), max(most, hi)
							if st.Size != nil {
								for m := range st.Messages {
									if b := st.Size(m); b%elt != 0 {
										t.Fatalf("%s %+v: a message of %d B, not whole %d B elements", l.name, spec, b, elt)
									}
								}
							}
						}
						if want := movedBytes(c.coll, c.algo, lay.SizeBytes, n); total != want {
							t.Fatalf("%s %+v: %d B in the streams for %d B moved (size %d B, %d ranks, %d channels)", l.name, spec, total, want, lay.SizeBytes, n, lay.Channels)
						}
						if most-least > elt {
							t.Fatalf("%s %+v: messages of %d to %d B, more than an element (%d B) apart", l.name, spec, least, most, elt)
						}
						if most > max(RingChunkBytes, PipelineChunkBytes, P2PChunkBytes) || lay.ChunkBytes != most {
							t.Fatalf("%s %+v: largest message %d B, layout's chunk %d B", l.name, spec, most, lay.ChunkBytes)
						}
						if least == 0 && lay.Count >= int64(lay.Channels)*n {
							t.Fatalf("%s %+v: an empty message with %d elements over %d ranks x %d channels", l.name, spec, lay.Count, n, lay.Channels)
						}
					}
				}
			}
		}
	}
}

// Every channel takes its share of the buffer, shares within an element
// of each other adding up to the buffer, and a transfer's messages add up
// to its channel's share: a tree's every transfer carries its channel's
// share, a ring's hops its share 2(n-1)/n times in all (all-reduce).
func TestChannelShares(t *testing.T) {
	svs := servers(3, 8, 8)
	for _, c := range []Spec{
		{Collective: results.CollAllReduce, Bytes: 1000003},
		{Collective: results.CollAllReduce, Bytes: 3<<30 + 4},
		{Collective: results.CollAllReduce, Algorithm: AlgoTree, Bytes: 1000003},
		{Collective: results.CollAllReduce, Algorithm: AlgoTree, Bytes: 77 << 20, Channels: 5},
		{Collective: results.CollAllGather, Bytes: 7<<20 + 999, Channels: 3},
		{Collective: results.CollReduceScatter, Bytes: 100000, DataType: "int8"},
		{Collective: results.CollBroadcast, Bytes: 5<<20 + 3, Root: 7},
		{Collective: results.CollAllToAll, Bytes: 9<<20 + 1000, Channels: 2},
		{Collective: results.CollSendRecv, Bytes: 1<<20 + 12, Channels: 3},
	} {
		sc, err := plan(svs, c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		lay := sc.layout
		n, ch, elt := int64(lay.Ranks), int64(lay.Channels), int64(DataTypes[lay.DataType])
		if c.DataType == "" {
			elt = 4
		}
		// What a channel moves: the buffer, or a rank's block
		// (all-gather, reduce-scatter) or a pair's (all-to-all).
		buffer := lay.Count * elt
		// perChannel[c] sums channel c's transfers, which the schedule
		// lays out channel after channel (all-to-all and send/recv: per
		// pair, channel after channel).
		perChannel := make([]int64, ch)
		xPer := int64(len(sc.xfers)) / ch
		for i, x := range sc.xfers {
			k := int64(i) / xPer
			if c.Collective == results.CollAllToAll || c.Collective == results.CollSendRecv {
				k = int64(i) % ch
			}
			perChannel[k] += x.bytes
			if x.bytes%elt != 0 {
				t.Fatalf("%+v transfer %d: %d B, not whole elements", c, i, x.bytes)
			}
		}
		// How many times a channel's transfers carry its share.
		times := map[string]int64{
			results.CollAllReduce: 2 * (n - 1), results.CollAllGather: n * (n - 1), results.CollReduceScatter: n * (n - 1),
			results.CollBroadcast: n - 1, results.CollAllToAll: n * (n - 1), results.CollSendRecv: n,
		}[c.Collective]
		sum := int64(0)
		for k, b := range perChannel {
			if b%times != 0 {
				t.Fatalf("%+v channel %d: %d B is no whole number of its share's %d passes", c, k, b, times)
			}
			share := b / times
			if lo, hi := buffer/ch/elt*elt, (buffer/elt+ch-1)/ch*elt; share < lo || share > hi {
				t.Fatalf("%+v channel %d: share %d B, want %d to %d B", c, k, share, lo, hi)
			}
			sum += share
		}
		if sum != buffer {
			t.Fatalf("%+v: channel shares add up to %d B, the buffer is %d B", c, sum, buffer)
		}
		if c.Algorithm == AlgoTree {
			for i, x := range sc.xfers {
				if want := perChannel[int64(i)/xPer] / times; x.bytes != want {
					t.Fatalf("%+v transfer %d: %d B, its channel's share is %d B", c, i, x.bytes, want)
				}
			}
		}
		checkProgram(t, sc.program("p"))
	}
}

// NCCL's channel count for small sizes: at least 32 KiB a channel.
func TestSmallSizesFewerChannels(t *testing.T) {
	for _, c := range []struct {
		coll        string
		bytes       int64
		ch, maxChan int
	}{
		{results.CollAllReduce, 8, 1, 8},
		{results.CollAllReduce, 64 << 10, 2, 8},
		{results.CollAllReduce, 96<<10 - 4, 2, 8},
		{results.CollAllReduce, 96 << 10, 3, 8},
		{results.CollAllReduce, 256 << 10, 8, 8},
		{results.CollAllGather, 128 << 10, 4, 8},
		{results.CollBroadcast, 1 << 20, 8, 8},
		// Send/recv keeps its channel whatever the size.
		{results.CollSendRecv, 8, 1, 1},
	} {
		_, l, err := Build(servers(2, 8, 8), Spec{Collective: c.coll, Bytes: c.bytes}, "p")
		if err != nil {
			t.Fatal(err)
		}
		if l.Channels != c.ch || l.MaxChannels != c.maxChan {
			t.Errorf("%s of %d B: %d of %d channels, want %d of %d", c.coll, c.bytes, l.Channels, l.MaxChannels, c.ch, c.maxChan)
		}
	}
	// A tree of 8 channels at 128 KiB runs 4: trees 0 and 1 on NICs 0, 1.
	p, l, err := Build(servers(2, 8, 8), Spec{Collective: results.CollAllReduce, Algorithm: AlgoTree, Bytes: 128 << 10}, "p")
	if err != nil || l.Channels != 4 || l.MaxChannels != 16 {
		t.Fatalf("tree: %v, %d of %d channels", err, l.Channels, l.MaxChannels)
	}
	for _, st := range p.Streams {
		if !st.ScaleUp && nicIndex(st.Src) != "eth0" && nicIndex(st.Src) != "eth1" {
			t.Fatalf("tree at 4 channels uses %s", st.Src)
		}
	}
}

// The layout names the algorithm that runs: the spec's ring or tree for
// the collectives NCCL runs on them, none for alltoall and sendrecv,
// which NCCL runs point to point whatever the spec (ring by default)
// says.
func TestLayoutAlgorithm(t *testing.T) {
	for _, c := range []struct {
		coll, algo, want string
	}{
		{results.CollAllReduce, "", AlgoRing},
		{results.CollAllReduce, AlgoTree, AlgoTree},
		{results.CollAllGather, AlgoRing, AlgoRing},
		{results.CollBroadcast, "", AlgoRing},
		{results.CollAllToAll, "", ""},
		{results.CollAllToAll, AlgoRing, ""},
		{results.CollSendRecv, "", ""},
	} {
		_, l, err := Build(servers(2, 8, 8), Spec{Collective: c.coll, Algorithm: c.algo, Bytes: 1 << 20}, "p")
		if err != nil {
			t.Fatal(err)
		}
		if l.Algorithm != c.want {
			t.Errorf("%s asked for algorithm %q: layout says %q, want %q", c.coll, c.algo, l.Algorithm, c.want)
		}
	}
}

func TestSpecRefused(t *testing.T) {
	ok := Spec{Collective: results.CollAllReduce, Bytes: 1 << 20}
	cases := []struct {
		name string
		svs  []Server
		mod  func(*Spec)
		want string
	}{
		{"tree on all_gather", servers(2, 8, 8), func(s *Spec) { s.Collective, s.Algorithm = results.CollAllGather, AlgoTree }, "tree is for all_reduce"},
		{"tree on alltoall", servers(2, 8, 8), func(s *Spec) { s.Collective, s.Algorithm = results.CollAllToAll, AlgoTree }, "alltoall point to point"},
		{"unknown collective", servers(2, 8, 8), func(s *Spec) { s.Collective = "allreduce" }, "unknown collective"},
		{"unknown algorithm", servers(2, 8, 8), func(s *Spec) { s.Algorithm = "nvls" }, "unknown algorithm"},
		{"unknown order", servers(2, 8, 8), func(s *Spec) { s.RankOrder = "random" }, "unknown rank order"},
		{"unknown type", servers(2, 8, 8), func(s *Spec) { s.DataType = "fp8" }, "unknown data type"},
		{"channels", servers(2, 8, 8), func(s *Spec) { s.Channels = 65 }, "out of range"},
		{"no bytes", servers(2, 8, 8), func(s *Spec) { s.Bytes = 0 }, "not positive"},
		{"root", servers(2, 8, 8), func(s *Spec) { s.Collective, s.Root = results.CollBroadcast, 16 }, "not a rank"},
		{"one GPU", servers(1, 1, 1), nil, "at least 2 GPUs"},
		{"no servers", nil, nil, "no servers"},
		{"no NIC", []Server{{Host: "a", GPUs: 2}}, nil, "at least one of each"},
		{"twice", append(servers(1, 2, 2), servers(1, 2, 2)...), nil, "listed twice"},
	}
	for _, c := range cases {
		s := ok
		if c.mod != nil {
			c.mod(&s)
		}
		_, _, err := Build(c.svs, s, "p")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// An all-to-all over 1024 GPUs would make two million streams.
	_, _, err := Build(servers(128, 8, 8), Spec{Collective: results.CollAllToAll, Bytes: 1 << 30}, "p")
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "up to 2095104 streams") {
		t.Fatalf("all-to-all of 1024 ranks: %v", err)
	}
	// On one channel already (the nccl-alltoall scenario on 1024gpu), the
	// fix is a smaller lab alone; on four, fewer channels too.
	if strings.Contains(err.Error(), "fewer channels") {
		t.Errorf("all-to-all of 1024 ranks on one channel: %v, want no fewer channels offered", err)
	}
	_, _, err = Build(servers(64, 8, 8), Spec{Collective: results.CollAllToAll, Bytes: 1 << 30, Channels: 4}, "p")
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "on 4 channels makes up to 2093056 streams") || !strings.Contains(err.Error(), "or on fewer channels)") {
		t.Errorf("all-to-all of 512 ranks on 4 channels: %v", err)
	}
	// Benign: one server of 8 GPUs rings over the scale-up domain alone.
	p, _, err := Build(servers(1, 8, 8), ok, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Streams {
		if !st.ScaleUp {
			t.Fatalf("one server: fabric stream %s -> %s", st.Src, st.Dst)
		}
	}
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Closed forms against numbers worked out by hand.
func TestClosedFormsByHand(t *testing.T) {
	eta := 4096.0 / 4178.0
	nic := 200 * eta / 8 // GB/s of payload a 200G NIC carries
	links := Links{NICGbps: 200, MTU: 4096, ScaleUpGbps: 2400, ScaleUpLatencyNs: 500,
		FabricLatencyNs: func(src, dst string) float64 { return 2000 }}
	type tc struct {
		name       string
		svs        []Server
		spec       Spec
		links      Links
		bound      float64
		bottleneck string
		timeNs     float64
	}
	pcie := links
	pcie.NICGbps, pcie.ScaleUpGbps = 230.4, 230.4
	cases := []tc{
		// 2 servers x 8: 8 channels, one per NIC, each NIC one fabric
		// stream: busbw = 8 x the NIC's payload rate. 256 MiB: steps of
		// 256 MiB/128 = 2 MiB, 30 of them on the NIC:
		// 30 x 2 MiB x 8 / (200 x eta) ns, bandwidth-bound.
		{"ring 16", servers(2, 8, 8), Spec{Collective: results.CollAllReduce, Bytes: 256 << 20}, links, 8 * nic, "NIC ", 30 * (2 << 20) * 8 / (200 * eta)},
		// 8 B: one channel (NCCL drops channels below 32 KiB each) and
		// two floats: chunks 0 and 1 carry 4 B, the other 14 nothing,
		// as NCCL's. Over its 30 steps position i sends every chunk
		// twice but chunks i and i+1 once: position 0 sends 8 B,
		// positions 1 and 15 12 B, the others 16 B, 240 B in all. The
		// hop out of server 1 (position 7) puts 16 B of the 8 on its
		// NIC: the bound is a NIC's x 1.875 / 2. Time: 30 steps over 14
		// scale-up hops (500 ns) and 2 hops out (PXN 500 ns + 2000 ns),
		// all chained, and every hop's bytes at its rate: 212 B on
		// scale-up hops, 16 + 12 B on the hops out (both legs).
		{"ring 16 8B", servers(2, 8, 8), Spec{Collective: results.CollAllReduce, Bytes: 8}, links, nic * 1.875 / 2, "NIC host1:eth0 send",
			(30*(14*500+2*(500+2000)) + 212*8/2400.0 + 28*8/2400.0 + 28*8/(200*eta)) / 16},
		// Naive: every GPU's NIC carries all 8 channels.
		{"naive 16", servers(2, 8, 8), Spec{Collective: results.CollAllReduce, Bytes: 256 << 20, RankOrder: OrderNaive}, links, nic, "NIC ", 0},
		// PCIe scale-up at 230.4 Gb/s: each GPU sends one stream per
		// channel, 2(N-1)/N of the size over 8 channels: busbw = 28.8 GB/s.
		{"pcie 16", servers(2, 8, 8), Spec{Collective: results.CollAllReduce, Bytes: 256 << 20}, pcie, 230.4 / 8, "scale-up ", 0},
		// Tree on 2 servers, 16 channels: a NIC carries one channel of
		// each tree: 2 sends of 1/16 of the size -> 8 x nic x 2(N-1)/N
		// = 367.6; a GPU sends 28 scale-up streams of 1/16 (head 1, tail
		// 1, middle 2 in 12 channels) -> 300/1.75 x 1.875 = 321.4.
		{"tree 16", servers(2, 8, 8), Spec{Collective: results.CollAllReduce, Algorithm: AlgoTree, Bytes: 256 << 20}, links, 300 / 1.75 * 1.875, "scale-up ", 0},
		// All-gather on 8 servers: (N-1)/N factor, 8 channels, 8 x nic.
		{"allgather 64", servers(8, 8, 8), Spec{Collective: results.CollAllGather, Bytes: 1 << 30}, links, 8 * nic, "NIC ", 0},
		// All-to-all on 2 servers x 8, PXN: NIC g carries what every
		// GPU of its server sends to GPU g of the other: 8/16 of the
		// size; busbw = 15/16 x nic x 2.
		{"alltoall 16", servers(2, 8, 8), Spec{Collective: results.CollAllToAll, Bytes: 1 << 30}, links, 15.0 / 16 * nic * 2, "NIC ", 0},
		// Send/recv on 2 servers x 8: the hop out of each server takes
		// the full size on one NIC: busbw = nic.
		{"sendrecv 16", servers(2, 8, 8), Spec{Collective: results.CollSendRecv, Bytes: 1 << 30}, links, nic, "NIC ", 0},
		// Broadcast, 8 channels: like the ring, one stream per NIC.
		{"broadcast 16", servers(2, 8, 8), Spec{Collective: results.CollBroadcast, Bytes: 1 << 30}, links, 8 * nic, "NIC ", 0},
	}
	for _, c := range cases {
		e, _, err := ClosedForm(c.svs, c.spec, c.links)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !near(e.BoundBusBWGBps, c.bound, 1e-9) || !strings.HasPrefix(e.Bottleneck, c.bottleneck) {
			t.Errorf("%s: bound %.4f GB/s at %q, want %.4f at %s...", c.name, e.BoundBusBWGBps, e.Bottleneck, c.bound, c.bottleneck)
		}
		if c.timeNs > 0 && !near(e.TimeNs, c.timeNs, 1e-9) {
			t.Errorf("%s: time %.3f ns, want %.3f", c.name, e.TimeNs, c.timeNs)
		}
		if e.BusBWGBps > e.BoundBusBWGBps*(1+1e-9) {
			t.Errorf("%s: busbw %.3f above the bound %.3f", c.name, e.BusBWGBps, e.BoundBusBWGBps)
		}
	}
}

// A pipeline's closed form: a broadcast over 2 GPUs of one server is one
// scale-up hop of M chunks of 512 KiB: first chunk's latency + transfer,
// then (M-1) more transfers.
func TestClosedFormPipelineByHand(t *testing.T) {
	links := Links{NICGbps: 200, ScaleUpGbps: 2400, ScaleUpLatencyNs: 500}
	e, l, err := ClosedForm(servers(1, 2, 1), Spec{Collective: results.CollBroadcast, Bytes: 4 << 20}, links)
	if err != nil {
		t.Fatal(err)
	}
	chunk := float64(PipelineChunkBytes) * 8 / 2400
	if l.Channels != 1 || !near(e.TimeNs, 500+8*chunk, 1e-12) {
		t.Fatalf("%d channels, %.3f ns; want 1 channel, %.3f", l.Channels, e.TimeNs, 500+8*chunk)
	}
	if !near(e.BusBWGBps, float64(4<<20)/(500+8*chunk), 1e-12) {
		t.Fatalf("busbw %.3f", e.BusBWGBps)
	}
}

// QPs per connection: every fabric leg becomes that many streams between
// the same NICs, taking its messages round robin (interleaved: stride
// qps, phase 0..qps-1), each with its own source port (derived by the
// engine from the stream index), and whatever waited for the leg waits
// for all of them.
func TestQPsPerConnection(t *testing.T) {
	svs := servers(4, 8, 8)
	for _, qps := range []int{1, 4} {
		sc, err := plan(svs, Spec{Collective: results.CollAllReduce, Bytes: 64 << 20, QPsPerConnection: qps})
		if err != nil {
			t.Fatal(err)
		}
		p := sc.program("p")
		checkProgram(t, p)
		pairs := map[string][]int{}
		var fabricBytes int64
		for i, st := range p.Streams {
			if !st.ScaleUp {
				pairs[st.Src+">"+st.Dst] = append(pairs[st.Src+">"+st.Dst], i)
				fabricBytes += st.Messages * st.MessageBytes
			}
		}
		if len(pairs) != 4*8 {
			t.Fatalf("qps %d: %d NIC pairs, want one per server and channel (32)", qps, len(pairs))
		}
		for pair, idx := range pairs {
			if len(idx) != qps {
				t.Fatalf("qps %d: %s has %d streams", qps, pair, len(idx))
			}
			for ph, si := range idx {
				if st := p.Streams[si]; qps > 1 && (st.Stride != int64(qps) || st.Phase != int64(ph)) {
					t.Fatalf("qps %d: %s stream %d has stride %d phase %d, want %d and %d", qps, pair, ph, st.Stride, st.Phase, qps, ph)
				}
			}
			// Each later stream that reads one of the QPs reads them all.
			for j, st := range p.Streams {
				n := 0
				for _, in := range st.Inputs {
					if slices.Contains(idx, int(in.Stream)) {
						n++
					}
				}
				if n != 0 && n%qps != 0 {
					t.Fatalf("qps %d: stream %d waits for %d of the %d QPs of %s", qps, j, n, qps, pair)
				}
			}
		}
		// A ring moves 2(N-1)/N of the size per channel hop: the fabric
		// carries that for every server and channel, split or not.
		want := float64(64<<20) * 2 * 31 / 32 / 8 * 32
		if got := float64(fabricBytes); got < want || got > want*1.01 {
			t.Fatalf("qps %d: fabric streams carry %.0f B, want %.0f (+1%%)", qps, got, want)
		}
	}
	if _, err := plan(svs, Spec{Collective: results.CollAllReduce, Bytes: 1 << 20, QPsPerConnection: MaxQPsPerConnection + 1}); err == nil {
		t.Fatal("qps per connection above the maximum accepted")
	}
}

// The closed forms charge the transport's framing: InfiniBand's 26 bytes
// per packet leave more of the line for payload than RoCE's 82. A PCIe
// link slower than that carries the payload at its own rate, headers
// aside: PCIe 3.0 x16's 115.2 Gb/s is what a 200G NIC sends on either
// transport, not 115.2 x 4096/4178.
func TestLinksWireOverhead(t *testing.T) {
	roce := Links{NICGbps: 200, MTU: 4096}
	ib := Links{NICGbps: 200, MTU: 4096, WireOverheadBytes: 26}
	if got, want := roce.PayloadGbps(), 200*4096.0/4178; got != want {
		t.Errorf("RoCE: %v, want %v", got, want)
	}
	if got, want := ib.PayloadGbps(), 200*4096.0/4122; got != want {
		t.Errorf("InfiniBand: %v, want %v", got, want)
	}
	pcie := server.PCIeGbps(3, 16)
	for _, l := range []Links{roce, ib} {
		l.PCIeGbps = pcie
		if got := l.PayloadGbps(); got != pcie {
			t.Errorf("%d bytes a packet behind PCIe 3.0 x16: %v Gb/s, want PCIe's %v", l.WireOverheadBytes, got, pcie)
		}
	}
	// 199 Gb/s of PCIe feeds all the 196.07 Gb/s of payload a RoCE port
	// carries: the port sets the rate.
	roce.PCIeGbps = 199
	if got, want := roce.PayloadGbps(), 200*4096.0/4178; got != want {
		t.Errorf("RoCE behind a 199 Gb/s PCIe link: %v Gb/s, want the port's %v (PCIe carries no headers)", got, want)
	}
}

// A cutting that says it divides evenly does: every message carries what
// it says, so add may skip reading them.
func TestEvenCuttings(t *testing.T) {
	check := func(name string, c cutting) {
		t.Helper()
		for m := range c.msgs {
			if b := c.size(m); c.even > 0 && b != c.even {
				t.Fatalf("%s: message %d carries %d B, the cutting says %d", name, m, b, c.even)
			}
		}
	}
	for _, elems := range []int64{0, 1, 7, 64, 1000, 4096, 1 << 20, 3 << 20} {
		for _, elt := range []int64{1, 4} {
			check(fmt.Sprintf("pipeline %d x %d B", elems, elt), pipelineCut(elems, elems, elt, P2PChunkBytes))
			for _, coll := range []string{results.CollAllReduce, results.CollAllGather} {
				for i := range 4 {
					check(fmt.Sprintf("%s %d x %d B position %d", coll, elems, elt, i), ringCut(coll, elems, elems, elt, 4)(i))
				}
			}
		}
	}
}
