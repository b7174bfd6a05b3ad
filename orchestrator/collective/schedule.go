package collective

import (
	"fmt"
	"strings"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/sim"
)

// xfer is one transfer between two GPUs, cut into msgs messages of
// msgBytes: its legs become one stream each, the later legs of a
// transfer waiting for the earlier ones message by message (a staged
// PXN message leaves the relay's NIC once it is on the relay). Its first
// leg waits for the transfers in after.
type xfer struct {
	legs           []leg
	msgs, msgBytes int64
	after          []dep
	// share is the part of the collective's size the transfer carries,
	// unrounded: the bound's load per byte of size.
	share float64
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
	sc.layout.MaxChannels = s.Channels
	if s.Collective != results.CollAllToAll && s.Collective != results.CollSendRecv {
		for s.Channels >= 2 && size < int64(s.Channels)*ChannelMinBytes {
			s.Channels--
		}
		sc.layout.Channels = s.Channels
	}
	ch := int64(s.Channels)
	nn := int64(n)
	sc.window = Steps
	switch {
	case s.Collective == results.CollAllReduce && s.Algorithm == AlgoTree:
		sc.kind = kindPipeline
		msgs, msgBytes := cut(ceilDiv(size, ch), PipelineChunkBytes)
		for c := range s.Channels {
			sc.tree(c, msgs, msgBytes, 1/float64(ch))
		}
	case s.Collective == results.CollAllReduce || s.Collective == results.CollAllGather || s.Collective == results.CollReduceScatter:
		sc.kind = kindChain
		// The chain bounds a ring already: a hop runs at most N-1 chunks
		// ahead of the next one, and where one hop is slower (the
		// fabric) it sets the pace with or without NCCL's 2-chunk
		// credit, which labctl's "passed on" (the onward message
		// received) would charge with the onward hop's latency.
		sc.window = 0
		steps := nn - 1
		if s.Collective == results.CollAllReduce {
			steps = 2 * (nn - 1)
		}
		loops, msgBytes := cut(ceilDiv(size, nn*ch), RingChunkBytes)
		for c := range s.Channels {
			sc.ring(c, steps*loops, msgBytes, float64(steps)/float64(nn*ch))
		}
	case s.Collective == results.CollBroadcast:
		sc.kind = kindPipeline
		sc.layout.Root = s.Root
		msgs, msgBytes := cut(ceilDiv(size, ch), PipelineChunkBytes)
		for c := range s.Channels {
			sc.broadcast(c, msgs, msgBytes, 1/float64(ch))
		}
	case s.Collective == results.CollAllToAll:
		sc.kind = kindPipeline
		msgs, msgBytes := cut(ceilDiv(size/nn, ch), P2PChunkBytes)
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
				for range ch {
					sc.add(xfer{legs: j.route(a, b), msgs: msgs, msgBytes: msgBytes, share: 1 / float64(nn*ch)})
				}
			}
		}
	case s.Collective == results.CollSendRecv:
		sc.kind = kindPipeline
		msgs, msgBytes := cut(ceilDiv(size, ch), P2PChunkBytes)
		for r := range n {
			for range ch {
				sc.add(xfer{legs: j.route(j.ranks[r], j.ranks[(r+1)%n]), msgs: msgs, msgBytes: msgBytes, share: 1 / float64(ch)})
			}
		}
	}
	streams := int64(0)
	for _, x := range sc.xfers {
		sc.layout.ChunkBytes = max(sc.layout.ChunkBytes, x.msgBytes)
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

// cut splits bytes into the fewest messages of at most chunk bytes, all
// of one size (rounded up: every byte is carried).
func cut(bytes, chunk int64) (msgs, msgBytes int64) {
	bytes = max(bytes, 1)
	msgs = ceilDiv(bytes, chunk)
	return msgs, ceilDiv(bytes, msgs)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func (sc *schedule) add(x xfer) int {
	sc.xfers = append(sc.xfers, x)
	return len(sc.xfers) - 1
}

// ring adds channel c's ring: hop i (position i to i+1) sends message m
// once hop i-1 delivered message m-1, the ring's real chain.
func (sc *schedule) ring(c int, msgs, msgBytes int64, share float64) {
	order := sc.job.ringOrder(c)
	n := len(order)
	first := len(sc.xfers)
	var hops []int
	for i := range n {
		prev := first + (i-1+n)%n
		hops = append(hops, sc.add(xfer{legs: sc.job.route(order[i], order[(i+1)%n]), msgs: msgs, msgBytes: msgBytes, after: []dep{{prev, -1}}, share: share}))
	}
	sc.rings = append(sc.rings, hops)
}

// broadcast adds channel c's broadcast: the ring from the root, N-1 hops
// in a pipeline (a hop forwards chunk m once it received chunk m).
func (sc *schedule) broadcast(c int, msgs, msgBytes int64, share float64) {
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
		x := xfer{legs: sc.job.route(order[(p+i)%n], order[(p+i+1)%n]), msgs: msgs, msgBytes: msgBytes, share: share}
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
func (sc *schedule) tree(c int, msgs, msgBytes int64, share float64) {
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
		x := xfer{legs: sc.job.route(nodes[i], nodes[parent[i]]), msgs: msgs, msgBytes: msgBytes, share: share}
		for _, ch := range children[i] {
			x.after = append(x.after, dep{up[ch], 0})
		}
		up[i] = sc.add(x)
	}
	visit(root)
	var descend func(i int)
	descend = func(i int) {
		for _, ch := range children[i] {
			x := xfer{legs: sc.job.route(nodes[i], nodes[ch]), msgs: msgs, msgBytes: msgBytes, share: share}
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
				p.Streams = append(p.Streams, sim.Stream{Messages: x.msgs, MessageBytes: x.msgBytes, Inputs: in,
					ScaleUp: true, Host: l.host, SrcGPU: l.srcGPU, DstGPU: l.dstGPU})
				continue
			}
			q := int64(legN[i][k])
			for j := range q {
				st := sim.Stream{Messages: (x.msgs - j + q - 1) / q, MessageBytes: x.msgBytes, Inputs: in, Src: l.src, Dst: l.dst}
				if q > 1 {
					st.Stride, st.Phase = q, j
				}
				p.Streams = append(p.Streams, st)
			}
		}
	}
	return p
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
