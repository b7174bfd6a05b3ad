package collective

import (
	"fmt"
	"strings"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/sim"
)

// xfer is one transfer between two GPUs, cut into msgs messages, message
// m carrying size(m) bytes (a cutting's): its legs become one stream
// each, the later legs of a transfer waiting for the earlier ones message
// by message (a staged PXN message leaves the relay's NIC once it is on
// the relay). Its first leg waits for the transfers in after.
type xfer struct {
	legs []leg
	cutting
	after []dep
	// bytes is what its messages carry in all, largest its largest
	// message (add sets them).
	bytes, largest int64
}

// dep is one input of a transfer's first leg: message m waits for
// message m+off of transfer x's last leg.
type dep struct {
	x   int
	off int64
}

// Schedule kinds: how the closed form runs a collective's dependencies.
const (
	// kindChain: every message waits for the previous message of the
	// transfer before it (a ring step waits for the step before it).
	kindChain = "chain"
	// kindPipeline: message m waits for message m of the transfers
	// before it (trees, a broadcast ring, send/recv, all-to-all).
	kindPipeline = "pipeline"
)

// schedule is a collective cut into transfers.
type schedule struct {
	job    *job
	kind   string
	xfers  []xfer
	layout Layout
	// rings lists, for a chain, the transfers of each channel's ring in
	// ring order, for the closed form's mean hop.
	rings [][]int
	// window is how many chunks a connection's buffer holds: a transfer
	// posts message m once the transfers it feeds received message m-window.
	window int64
}

// plan lays a spec out on the servers and cuts it into transfers.
func plan(servers []Server, s Spec) (*schedule, error) {
	j, err := newJob(servers, s)
	if err != nil {
		return nil, err
	}
	s = j.spec
	n := len(j.ranks)
	size, count := TestSize(s.Collective, s.Bytes, j.elt, n)
	sc := &schedule{job: j, layout: Layout{
		Collective: s.Collective, Algorithm: s.Algorithm, RankOrder: s.RankOrder, DataType: s.DataType, RedOp: RedOp(s.Collective),
		Ranks: n, Channels: s.Channels, SizeBytes: size, Count: count, Root: -1,
	}}
	if size == 0 {
		return nil, &EmptyError{Collective: s.Collective, Requested: s.Bytes, Ranks: n, EltBytes: j.elt}
	}
	if results.NCCLPointToPoint(s.Collective) {
		// NCCL runs these as ncclSend/ncclRecv on its p2p channels: the
		// spec's algorithm (ring by default) is not what runs.
		sc.layout.Algorithm = ""
	}
	sc.layout.MaxChannels = s.Channels
	if s.Collective != results.CollAllToAll && s.Collective != results.CollSendRecv {
		for s.Channels >= 2 && size < int64(s.Channels)*ChannelMinBytes {
			s.Channels--
		}
		sc.layout.Channels = s.Channels
	}
	ch := int64(s.Channels)
	nn := int64(n)
	elt := int64(j.elt)
	sc.window = Steps
	switch {
	case s.Collective == results.CollAllReduce && s.Algorithm == AlgoTree:
		sc.kind = kindPipeline
		for c := range s.Channels {
			sc.tree(c, channelCut(count, ch, int64(c), elt, PipelineChunkBytes))
		}
	case s.Collective == results.CollAllReduce || s.Collective == results.CollAllGather || s.Collective == results.CollReduceScatter:
		sc.kind = kindChain
		// The chain bounds a ring already: a hop runs at most N-1 chunks
		// ahead of the next one, and where one hop is slower (the
		// fabric) it sets the pace with or without NCCL's 2-chunk
		// credit, which labctl's "passed on" (the onward message
		// received) would charge with the onward hop's latency.
		sc.window = 0
		for c := range s.Channels {
			sc.ring(c, ringCut(s.Collective, sim.Piece(count, ch, int64(c)), sim.Piece(count, ch, 0), elt, nn))
		}
	case s.Collective == results.CollBroadcast:
		sc.kind = kindPipeline
		sc.layout.Root = s.Root
		for c := range s.Channels {
			sc.broadcast(c, channelCut(count, ch, int64(c), elt, PipelineChunkBytes))
		}
	case s.Collective == results.CollAllToAll:
		sc.kind = kindPipeline
		// Refused before the transfers are made: an all-to-all grows
		// with the square of the ranks, up to two streams a pair (PXN).
		if streams := 2 * nn * (nn - 1) * ch; streams > MaxStreams {
			return nil, &TooLargeError{What: fmt.Sprintf("an all-to-all of %d ranks%s", n, onChannels(ch)), Streams: streams, AtMost: true, Channels: ch}
		}
		// In NCCL's p2p order: rank i's k-th peer is rank i+k (mod n),
		// so that at every step the ranks send to n different peers.
		// A GPU sends its NVLink messages in the order they are posted,
		// and with every rank's peers in rank order every PXN relay
		// would first forward to the first server's GPUs: an incast on
		// their NICs that NCCL's schedule exists to avoid.
		for i, a := range j.ranks {
			for k := 1; k < n; k++ {
				b := j.ranks[(i+k)%n]
				for c := range ch {
					sc.add(xfer{legs: j.route(a, b), cutting: channelCut(count, ch, c, elt, P2PChunkBytes)})
				}
			}
		}
	case s.Collective == results.CollSendRecv:
		sc.kind = kindPipeline
		for r := range n {
			for c := range ch {
				sc.add(xfer{legs: j.route(j.ranks[r], j.ranks[(r+1)%n]), cutting: channelCut(count, ch, c, elt, P2PChunkBytes)})
			}
		}
	}
	streams := int64(0)
	for _, x := range sc.xfers {
		sc.layout.ChunkBytes = max(sc.layout.ChunkBytes, x.largest)
		for _, l := range x.legs {
			if l.scaleUp {
				streams++
			} else {
				streams += min(int64(max(s.QPsPerConnection, 1)), x.msgs)
			}
		}
	}
	if streams > MaxStreams {
		return nil, &TooLargeError{What: fmt.Sprintf("%s over %d ranks%s", s.Collective, n, onChannels(ch)), Streams: streams, Channels: ch, QPsPerConnection: s.QPsPerConnection}
	}
	return sc, nil
}

func onChannels(ch int64) string {
	if ch == 1 {
		return ""
	}
	return fmt.Sprintf(" on %d channels", ch)
}

// TooLargeError says a collective makes more streams than one program
// may have.
type TooLargeError struct {
	What    string
	Streams int64
	// AtMost says Streams is an upper bound, counted before laying out.
	AtMost bool
	// Channels and QPsPerConnection are what the count multiplied by
	// (QPsPerConnection 0 where the count left them out): the fix names
	// only what can go lower, so an all-to-all of 1024 ranks, on one
	// channel already, is not told to take fewer.
	Channels         int64
	QPsPerConnection int
}

func (e *TooLargeError) Error() string {
	up := ""
	if e.AtMost {
		up = "up to "
	}
	fix := "run it on a lab with fewer GPUs, since it runs over every GPU of the lab"
	var fewer []string
	if e.Channels > 1 {
		fewer = append(fewer, "channels")
	}
	if e.QPsPerConnection > 1 {
		fewer = append(fewer, "QPs per connection")
	}
	if len(fewer) > 0 {
		fix += ", or on fewer " + strings.Join(fewer, " or fewer ")
	}
	return fmt.Sprintf("%s makes %s%d streams, more than the %d one collective may have (fix: %s)", e.What, up, e.Streams, MaxStreams, fix)
}

// EmptyError says that a requested size moves nothing: nccl-tests rounds
// all_gather, reduce_scatter and alltoall to 16 bytes per rank, and
// prints a row of 0 bytes for it.
type EmptyError struct {
	Collective string
	Requested  int64
	Ranks      int
	EltBytes   int
}

func (e *EmptyError) Error() string {
	return fmt.Sprintf("%s of %d B over %d ranks moves 0 B: nccl-tests gives each rank a count rounded down to 16 B of elements (%d B x %d ranks at least)",
		e.Collective, e.Requested, e.Ranks, max(16, e.EltBytes), e.Ranks)
}

// How labctl cuts a collective's bytes into messages, the one place it is
// decided: the program's streams carry these messages and the closed form
// charges them. As NCCL, it splits by elements, never a byte of an
// element apart: a channel takes its share of the buffer (an all-gather's
// and a reduce-scatter's channel its share of every rank's block, an
// all-to-all's its share of every pair's), a ring's share loops over
// chunks of at most RingChunkBytes a rank, a pipeline's goes in chunks of
// at most its chunk size. Every split is sim.Piece's, the one the ring
// pattern's chunks follow: pieces differ by one element at most and add
// up to what they split, so channels add up to the buffer and a
// transfer's messages to its channel's share, with no byte rounded up.
// Where a channel has fewer elements than a ring has chunks, some chunks
// are empty, as NCCL's are: their messages carry 0 bytes and still pace
// the ring. (NCCL itself fills a loop's chunks whole and leaves the rest
// to the last ones, and rounds a loop's chunk to 16 B; labctl spreads the
// rest evenly instead, which moves the same bytes.)

// cutting is a transfer's messages: msgs of them, message m carrying
// size(m) bytes; even > 0 says that every one carries even bytes (what
// divides evenly, which then needs no message read one by one).
type cutting struct {
	msgs int64
	size func(m int64) int64
	even int64
}

// evenly is what every piece of elems elements of elt bytes cut into n
// carries when they divide evenly and are not empty, else 0.
func evenly(elems, n, elt int64) int64 {
	if elems == 0 || elems%n != 0 {
		return 0
	}
	return elems / n * elt
}

// pipelineCut cuts a channel's share, elems elements of elt bytes, into
// as many messages as the largest channel's share (most elements) needs
// of at most chunk bytes (at least one, of 0 bytes when there is
// nothing), as evenly as whole elements allow: a pipeline's chunks (a
// tree, a broadcast, send/recv, all-to-all), the same on every transfer
// of a channel. Every channel has as many messages, and every message of
// the collective is within an element of every other.
func pipelineCut(elems, most, elt, chunk int64) cutting {
	msgs := max(ceilDiv(most*elt, chunk), 1)
	return cutting{msgs, func(m int64) int64 { return sim.Piece(elems, msgs, m) * elt }, evenly(elems, msgs, elt)}
}

// channelCut is pipelineCut for channel c of ch over elems elements.
func channelCut(elems, ch, c, elt, chunk int64) cutting {
	return pipelineCut(sim.Piece(elems, ch, c), sim.Piece(elems, ch, 0), elt, chunk)
}

// ringCut is the cutting of the hop from ring position i of a channel of
// collective over n ranks whose share is elems elements of elt bytes, as
// NCCL's ring runs it: loops of n chunks of at most RingChunkBytes, a
// step a chunk, as many loops as the largest channel's share (most
// elements) needs, so that every channel has as many messages. An all-reduce cuts its share into loops x n chunks and
// runs 2(n-1) steps a loop, position i sending chunk i-1-k (mod n) of
// the loop in step k (NCCL's ringIx+nranks-1 in step 0), so that a rank
// passes on in step k+1 the chunk it got in step k; an all-gather and a
// reduce-scatter move every rank's block, elems elements a rank, whose
// loops take a chunk of each block: n-1 steps a loop, every chunk of a
// loop of one size.
func ringCut(collective string, elems, most, elt, n int64) func(i int) cutting {
	if collective != results.CollAllReduce {
		loops := max(ceilDiv(most*elt, RingChunkBytes), 1)
		steps := n - 1
		return func(int) cutting {
			return cutting{steps * loops, func(m int64) int64 { return sim.Piece(elems, loops, m/steps) * elt }, evenly(elems, loops, elt)}
		}
	}
	loops := max(ceilDiv(most*elt, n*RingChunkBytes), 1)
	steps := 2 * (n - 1)
	return func(i int) cutting {
		return cutting{steps * loops, func(m int64) int64 {
			chunk := ((int64(i)-1-m%steps)%n + n) % n
			return sim.Piece(elems, loops*n, m/steps*n+chunk) * elt
		}, evenly(elems, loops*n, elt)}
	}
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// add appends transfer x, counting its bytes and its largest message.
func (sc *schedule) add(x xfer) int {
	if x.even > 0 {
		x.bytes, x.largest = x.msgs*x.even, x.even
	} else {
		x.bytes, x.largest = 0, 0
		for m := range x.msgs {
			b := x.size(m)
			x.bytes += b
			x.largest = max(x.largest, b)
		}
	}
	sc.xfers = append(sc.xfers, x)
	return len(sc.xfers) - 1
}

// ring adds channel c's ring, hop i cut as cut(i): hop i (position i to
// i+1) sends message m once hop i-1 delivered message m-1, the ring's
// real chain.
func (sc *schedule) ring(c int, cut func(i int) cutting) {
	order := sc.job.ringOrder(c)
	n := len(order)
	first := len(sc.xfers)
	var hops []int
	for i := range n {
		prev := first + (i-1+n)%n
		hops = append(hops, sc.add(xfer{legs: sc.job.route(order[i], order[(i+1)%n]), cutting: cut(i), after: []dep{{prev, -1}}}))
	}
	sc.rings = append(sc.rings, hops)
}

// broadcast adds channel c's broadcast: the ring from the root, N-1 hops
// in a pipeline (a hop forwards chunk m once it received chunk m).
func (sc *schedule) broadcast(c int, cut cutting) {
	order := sc.job.ringOrder(c)
	n := len(order)
	root := sc.job.ranks[sc.job.spec.Root]
	p := 0
	for i, r := range order {
		if r == root {
			p = i
		}
	}
	prev := -1
	for i := range n - 1 {
		x := xfer{legs: sc.job.route(order[(p+i)%n], order[(p+i+1)%n]), cutting: cut}
		if prev >= 0 {
			x.after = []dep{{prev, 0}}
		}
		prev = sc.add(x)
	}
}

// tree adds channel c's tree all-reduce: every node sends chunk m up
// once it has chunk m from each child; the root's children get chunk m
// down once the root has it from all of its children, every other node's
// children once the node got it from its parent.
func (sc *schedule) tree(c int, cut cutting) {
	nodes, parent := sc.job.treeOrder(c)
	up := make([]int, len(nodes))
	down := make([]int, len(nodes))
	children := make([][]int, len(nodes))
	root := -1
	for i, p := range parent {
		if p < 0 {
			root = i
			continue
		}
		children[p] = append(children[p], i)
	}
	// Up transfers, leaves first (post-order), so inputs exist.
	var visit func(i int)
	visit = func(i int) {
		for _, ch := range children[i] {
			visit(ch)
		}
		if i == root {
			return
		}
		x := xfer{legs: sc.job.route(nodes[i], nodes[parent[i]]), cutting: cut}
		for _, ch := range children[i] {
			x.after = append(x.after, dep{up[ch], 0})
		}
		up[i] = sc.add(x)
	}
	visit(root)
	var descend func(i int)
	descend = func(i int) {
		for _, ch := range children[i] {
			x := xfer{legs: sc.job.route(nodes[i], nodes[ch]), cutting: cut}
			if i == root {
				for _, rc := range children[root] {
					x.after = append(x.after, dep{up[rc], 0})
				}
			} else {
				x.after = []dep{{down[i], 0}}
			}
			down[ch] = sc.add(x)
			descend(ch)
		}
	}
	descend(root)
}

// program turns the schedule into the simulator's program: a stream per
// scale-up leg and one per QP of a fabric leg (NCCL_IB_QPS_PER_CONNECTION:
// the connection's messages go round robin over its QPs, each message
// whole on one QP, as NCCL does without NCCL_IB_SPLIT_DATA_ON_QPS; each QP
// has its own UDP source port and so its own ECMP path), inputs by stream
// index. The QPs of a leg are interleaved streams (sim.Stream Stride and
// Phase), and whatever waits for the leg waits for all of them.
func (sc *schedule) program(id string) sim.Program {
	p := sim.Program{ID: id, Role: "nccl"}
	qps := int32(max(sc.job.spec.QPsPerConnection, 1))
	// legAt[i][k] is the first stream of leg k of transfer i; legN[i][k]
	// how many streams it has.
	legAt := make([][]int32, len(sc.xfers))
	legN := make([][]int32, len(sc.xfers))
	n := int32(0)
	for i, x := range sc.xfers {
		legAt[i] = make([]int32, len(x.legs))
		legN[i] = make([]int32, len(x.legs))
		for k, l := range x.legs {
			legAt[i][k] = n
			legN[i][k] = 1
			if !l.scaleUp {
				legN[i][k] = int32(min(int64(qps), x.msgs))
			}
			n += legN[i][k]
		}
	}
	// inputs waits, with offset off, for every stream of leg k of
	// transfer i.
	inputs := func(in []sim.Input, i, k int, off int64) []sim.Input {
		for q := range legN[i][k] {
			in = append(in, sim.Input{Stream: legAt[i][k] + q, Offset: off})
		}
		return in
	}
	// The transfers each one feeds: their first legs free its buffer.
	feeds := make([][]int, len(sc.xfers))
	for i, x := range sc.xfers {
		for _, d := range x.after {
			feeds[d.x] = append(feeds[d.x], i)
		}
	}
	p.Streams = make([]sim.Stream, 0, n)
	for i, x := range sc.xfers {
		for k, l := range x.legs {
			var in []sim.Input
			if k == 0 {
				for _, d := range x.after {
					in = inputs(in, d.x, len(sc.xfers[d.x].legs)-1, d.off)
				}
			} else {
				in = inputs(in, i, k-1, 0)
			}
			// The receiver's buffer: the leg after this one (a PXN
			// relay forwarding), or the transfers the last leg feeds.
			if sc.window > 0 && x.msgs > sc.window {
				if k < len(x.legs)-1 {
					in = inputs(in, i, k+1, -sc.window)
				} else {
					for _, f := range feeds[i] {
						in = inputs(in, f, 0, -sc.window)
					}
				}
			}
			if l.scaleUp {
				p.Streams = append(p.Streams, sim.Stream{Messages: x.msgs, MessageBytes: max(x.largest, 1), Size: x.sizeOf(1, 0), Inputs: in,
					ScaleUp: true, Host: l.host, SrcGPU: l.srcGPU, DstGPU: l.dstGPU})
				continue
			}
			q := int64(legN[i][k])
			for j := range q {
				st := sim.Stream{Messages: (x.msgs - j + q - 1) / q, MessageBytes: max(x.largest, 1), Size: x.sizeOf(q, j), Inputs: in, Src: l.src, Dst: l.dst}
				if q > 1 {
					st.Stride, st.Phase = q, j
				}
				p.Streams = append(p.Streams, st)
			}
		}
	}
	return p
}

// sizeOf is the sizes of the messages of x that one of q interleaved
// streams carries, the one of phase j (its message i is x's message
// i*q+j): nil when every message of x carries largest, the stream's
// MessageBytes.
func (x xfer) sizeOf(q, j int64) func(int64) int64 {
	// No message is above largest, so they all carry it when they add
	// up to msgs of it.
	if x.largest > 0 && x.bytes == x.msgs*x.largest {
		return nil
	}
	size := x.size
	if q == 1 {
		return size
	}
	return func(i int64) int64 { return size(i*q + j) }
}

// Laid is one collective of one size laid out on servers: the program
// the simulator runs and the closed form, from the same transfers.
type Laid struct{ sc *schedule }

// Lay lays out one collective of one size on the servers. An
// *EmptyError says the size moves nothing, a *TooLargeError that it
// makes more streams than a program may have.
func Lay(servers []Server, s Spec) (*Laid, error) {
	sc, err := plan(servers, s)
	if err != nil {
		return nil, err
	}
	return &Laid{sc}, nil
}

// Layout is what the collective is: nccl-tests' figures and its shape.
func (l *Laid) Layout() Layout { return l.sc.layout }

// Program is the collective as the simulator's program with the given ID.
func (l *Laid) Program(id string) sim.Program { return l.sc.program(id) }

// ClosedForm is the collective's closed form on links.
func (l *Laid) ClosedForm(links Links) (Estimate, error) { return l.sc.estimate(links) }

// Build lays out one collective of one size on the servers as a program
// with the given ID (Lay, then Program).
func Build(servers []Server, s Spec, id string) (sim.Program, Layout, error) {
	l, err := Lay(servers, s)
	if err != nil {
		return sim.Program{}, Layout{}, err
	}
	return l.Program(id), l.Layout(), nil
}
