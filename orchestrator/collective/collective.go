// Package collective builds NCCL collectives as the simulator's dataflow
// programs (sim.Program), the way NCCL runs them on GPU servers joined by
// a fabric, and holds their closed forms (closedform.go): the alpha-beta
// time of each collective and algorithm and its bandwidth-optimal bus
// bandwidth. It knows servers, GPUs and NIC names only, no lab or runtime.
//
// What NCCL does, and what labctl follows:
//
//   - Ranks. With rank order "nccl" rank r is GPU r-offset of its server,
//     servers in the order given (nccl-tests under MPI with one process
//     per GPU, hosts in order). With "naive" ranks go round robin over the
//     servers (rank r on server r mod S), as a launcher that ignores
//     topology places them.
//   - Channels. NCCL runs a collective on several channels at once, each
//     its own ring or tree on its own NIC, and splits the data evenly
//     between them. Channel c of a ring uses NIC k = c mod NICs; inside a
//     server the ring goes through every GPU in order starting at the GPU
//     of NIC k (GPU c mod G when every GPU has its own NIC) and leaves the
//     server on NIC k towards the next server's NIC k: the inter-server
//     hop is rail aligned, as NCCL's ring search builds it with PXN (the
//     last GPU of the server hands its data over NVLink to the GPU of NIC
//     k, which sends it). So a channel has one fabric stream per server;
//     every other hop is a scale-up stream.
//   - Trees (all_reduce only): NCCL's double binary tree between servers
//     (dtree.go), a chain through the GPUs inside each server headed by
//     the GPU of the channel's NIC; channel c runs tree c mod 2 on NIC
//     (c/2) mod NICs, so with the default 2 x NICs channels every NIC
//     carries one channel of each tree. Data goes up (reduce) then down
//     (broadcast), pipelined in chunks.
//   - Small sizes run on fewer channels, as NCCL runs them: a ring or a
//     tree gets at least ChannelMinBytes a channel (one channel below
//     64 KiB); send/recv and all-to-all keep theirs.
//   - Transport between two GPUs: inside a server always the scale-up
//     domain; between servers, with rank order nccl, PXN: staged over
//     NVLink to the local GPU whose index is the destination's, then from
//     that GPU's NIC to the destination's NIC, so fabric traffic stays on
//     its rail; with rank order naive, straight from the sender's NIC to
//     the receiver's (no PXN: across rails).
//
// Chunks are NCCL's Simple protocol's (NCCL's defaults: a 4 MiB buffer in
// NCCL_STEPS = 8 slots of 512 KiB): a ring step moves at most
// ALLREDUCE/ALLGATHER/REDUCESCATTER_CHUNKSTEPS = 4 slots (2 MiB) at a
// time, more data loops; trees and broadcast move one slot (512 KiB) per
// chunk; send/recv and all-to-all move NCCL_P2P_NET_CHUNKSIZE (128 KiB)
// chunks. A connection's buffer bounds what a sender may have in flight:
// it writes chunk m once the receiver passed chunk m-W on, W being the
// chunks its 8 slots hold (8 for trees, broadcast and PXN relays); labctl
// takes "passed on" as the receiver's onward message of that chunk
// received (a last hop passes everything on at once). Without that bound
// a leaf of a tree would post every chunk at once and hold up its GPU's
// other channels behind them, which NCCL's buffers never let happen. A
// ring needs none: its chain lets a hop run at most N-1 chunks ahead. NCCL picks LL or LL128 for small sizes and may use fewer
// channels there; labctl runs Simple on every channel at every size, so
// its small-size times are the network's latency without NCCL's own
// overheads (kernel launch, protocol).
package collective

import (
	"fmt"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/results"
)

// Algorithms and rank orders.
const (
	AlgoRing   = "ring"
	AlgoTree   = "tree"
	OrderNCCL  = "nccl"
	OrderNaive = "naive"
)

// Algorithms and RankOrders list what a Spec may name.
var (
	Algorithms = []string{AlgoRing, AlgoTree}
	RankOrders = []string{OrderNCCL, OrderNaive}
)

// NCCL's chunk sizes and buffers (see the package comment).
const (
	// Steps is NCCL_STEPS: a connection's buffer has that many slots.
	Steps = 8
	// SlotBytes is one slot of the Simple protocol's default 4 MiB
	// buffer (NCCL_BUFFSIZE).
	SlotBytes = (4 << 20) / Steps
	// RingChunkSlots is a ring step's chunk, CHUNKSTEPS = NCCL_STEPS/2
	// slots for all-reduce, all-gather and reduce-scatter; RingChunkBytes
	// its size, a ring step's largest message.
	RingChunkSlots = Steps / 2
	RingChunkBytes = RingChunkSlots * SlotBytes
	// PipelineChunkBytes is a tree's or a broadcast's chunk: one slot
	// (the tree's and BROADCAST_CHUNKSTEPS).
	PipelineChunkBytes = SlotBytes
	// P2PChunkBytes is NCCL_P2P_NET_CHUNKSIZE's default, send/recv and
	// all-to-all's chunk; their buffers hold Steps of them.
	P2PChunkBytes = 128 << 10
	// ChannelMinBytes is how much data NCCL gives each channel of a ring
	// or a tree at least: it drops channels while the size is below
	// channels x threads x NCCL_SIMPLE_THREAD_THRESHOLD (512 threads of
	// the Simple protocol x 64 B; enqueue.cc, topoGetAlgoInfo).
	ChannelMinBytes = 512 * 64
)

// Limits.
const (
	// MaxChannels is NCCL's MAXCHANNELS.
	MaxChannels = 64
	// MaxQPsPerConnection is the most NCCL_IB_QPS_PER_CONNECTION labctl
	// takes: far beyond the 1 to 16 that RoCE clusters configure.
	MaxQPsPerConnection = 128
	// MaxStreams bounds one program: an all-to-all makes a stream per
	// ordered pair of ranks and per channel.
	MaxStreams = 1 << 20
)

// DataTypes are nccl-tests' -d types with their sizes in bytes.
var DataTypes = map[string]int{
	"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
	"half": 2, "float": 4, "double": 8, "bfloat16": 2,
}

// DataTypeNames lists DataTypes in nccl-tests' order.
var DataTypeNames = []string{"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"}

// DefaultDataType is nccl-tests' default -d.
const DefaultDataType = "float"

// Server is one GPU server: its host name, its GPUs and the NICs they use,
// by the simulator's NIC names ("host:port"). GPU g uses NIC
// g*len(NICs)/GPUs: its own when every GPU has one, else the one it
// shares a PCIe switch with.
type Server struct {
	Host string
	GPUs int
	NICs []string
}

// nicOf is the index of the NIC GPU g uses.
func (s Server) nicOf(g int) int { return g * len(s.NICs) / s.GPUs }

// gpuOfNIC is the first GPU that uses NIC k.
func (s Server) gpuOfNIC(k int) int { return (k*s.GPUs + len(s.NICs) - 1) / len(s.NICs) }

// Spec is one collective of one size.
type Spec struct {
	// Collective is nccl-tests' name (results.CollAllReduce, ...).
	Collective string
	// Algorithm is ring or tree (tree for all_reduce only); empty is ring.
	// alltoall and sendrecv run point to point (results.NCCLPointToPoint)
	// on any: their Layout names none.
	Algorithm string
	// Channels is how many channels the collective runs on; 0 takes
	// DefaultChannels.
	Channels int
	// RankOrder is nccl or naive; empty is nccl.
	RankOrder string
	// Bytes is the size as nccl-tests is asked for it (-b/-e): TestSize
	// gives the size it reports and the data that moves.
	Bytes int64
	// DataType is nccl-tests' -d; empty is float.
	DataType string
	// Root is broadcast's root rank.
	Root int
	// QPsPerConnection is NCCL_IB_QPS_PER_CONNECTION: the QPs each fabric
	// connection sends its messages over, round robin (0 means NCCL's
	// default, 1).
	// More QPs give ECMP more flows to spread, as large RoCE clusters
	// configure it against hash collisions on the leaf uplinks.
	QPsPerConnection int
}

// DefaultChannels is the channels a collective runs on when the spec sets
// none: a ring, one per NIC; a tree, two per NIC (one of each of the two
// trees, so every NIC carries the same load); send/recv and all-to-all,
// one per pair of ranks.
func DefaultChannels(collective, algorithm string, nicsPerServer int) int {
	switch {
	case collective == results.CollAllToAll || collective == results.CollSendRecv:
		return 1
	case algorithm == AlgoTree:
		return 2 * nicsPerServer
	}
	return nicsPerServer
}

// TestSize is what nccl-tests reports for a requested size (its
// getCollByteCount and the size column, max(send, receive bytes)): the
// size in bytes and the count column in elements. all_gather,
// reduce_scatter and alltoall move a per-rank count rounded down to 16
// bytes' worth of elements, so size is that count x ranks x the element
// size (0 when the request is below 16 bytes a rank); the others move the
// request in whole elements.
func TestSize(collective string, requested int64, eltBytes, nranks int) (size, count int64) {
	elt := int64(eltBytes)
	n := requested / elt
	switch collective {
	case results.CollAllGather, results.CollReduceScatter, results.CollAllToAll:
		align := max(16/elt, 1)
		base := (n / int64(nranks)) &^ (align - 1)
		return base * int64(nranks) * elt, base
	}
	return n * elt, n
}

// RedOp is the redop column nccl-tests prints: the reductions and
// send/recv run with sum (nccl-tests' default -o), the others print none.
func RedOp(collective string) string {
	switch collective {
	case results.CollAllReduce, results.CollReduceScatter, results.CollSendRecv:
		return "sum"
	}
	return "none"
}

// Layout is what Build made of a spec: the figures nccl-tests reports and
// how the collective was laid out.
type Layout struct {
	// Algorithm is the spec's, empty for a point-to-point collective.
	Collective, Algorithm, RankOrder, DataType, RedOp string
	// Channels is what this size ran on; MaxChannels what the spec (or
	// its default) gives the collective, which small sizes run below.
	Ranks, Channels, MaxChannels int
	// SizeBytes and Count are nccl-tests' size and count columns.
	SizeBytes, Count int64
	// Root is nccl-tests' root column: broadcast's root, else -1.
	Root int
	// ChunkBytes is the largest message a stream carries.
	ChunkBytes int64
}

// rank is one GPU: a server index and the GPU's index on it.
type rank struct{ server, gpu int }

// leg is one stream of a transfer between two GPUs: a scale-up hop or a
// fabric hop between two NICs.
type leg struct {
	scaleUp        bool
	host           string
	srcGPU, dstGPU int
	src, dst       string
}

// job is a collective laid out on the servers, before it is cut into
// messages: the rank order and the transports between ranks.
type job struct {
	servers []Server
	spec    Spec
	ranks   []rank
	elt     int
}

func newJob(servers []Server, s Spec) (*job, error) {
	if s.Algorithm == "" {
		s.Algorithm = AlgoRing
	}
	if s.RankOrder == "" {
		s.RankOrder = OrderNCCL
	}
	if s.DataType == "" {
		s.DataType = DefaultDataType
	}
	switch {
	case !slices.Contains(results.NCCLCollectives, s.Collective):
		return nil, fmt.Errorf("unknown collective %q (use one of %s)", s.Collective, strings.Join(results.NCCLCollectives, ", "))
	case !slices.Contains(Algorithms, s.Algorithm):
		return nil, fmt.Errorf("unknown algorithm %q (use ring or tree)", s.Algorithm)
	case s.Algorithm == AlgoTree && results.NCCLPointToPoint(s.Collective):
		return nil, fmt.Errorf("NCCL runs %s point to point, on no tree (tree is for all_reduce)", s.Collective)
	case s.Algorithm == AlgoTree && s.Collective != results.CollAllReduce:
		return nil, fmt.Errorf("NCCL runs %s on rings, not trees (tree is for all_reduce)", s.Collective)
	case !slices.Contains(RankOrders, s.RankOrder):
		return nil, fmt.Errorf("unknown rank order %q (use nccl or naive)", s.RankOrder)
	case DataTypes[s.DataType] == 0:
		return nil, fmt.Errorf("unknown data type %q (use one of %s)", s.DataType, strings.Join(DataTypeNames, ", "))
	case s.Channels < 0 || s.Channels > MaxChannels:
		return nil, fmt.Errorf("%d channels is out of range (use 1 to %d)", s.Channels, MaxChannels)
	case s.Bytes < 1:
		return nil, fmt.Errorf("size %d B is not positive", s.Bytes)
	case s.QPsPerConnection < 0 || s.QPsPerConnection > MaxQPsPerConnection:
		return nil, fmt.Errorf("%d QPs per connection is out of range (use 1 to %d)", s.QPsPerConnection, MaxQPsPerConnection)
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("no servers")
	}
	j := &job{servers: servers, spec: s, elt: DataTypes[s.DataType]}
	maxNICs := 0
	for i, sv := range servers {
		if sv.GPUs < 1 || len(sv.NICs) < 1 || len(sv.NICs) > sv.GPUs {
			return nil, fmt.Errorf("server %s has %d GPUs and %d NICs: it needs at least one of each and no more NICs than GPUs", sv.Host, sv.GPUs, len(sv.NICs))
		}
		if slices.ContainsFunc(servers[:i], func(o Server) bool { return o.Host == sv.Host }) {
			return nil, fmt.Errorf("server %s is listed twice", sv.Host)
		}
		maxNICs = max(maxNICs, len(sv.NICs))
	}
	if j.spec.Channels == 0 {
		j.spec.Channels = DefaultChannels(s.Collective, s.Algorithm, maxNICs)
	}
	j.ranks = placeRanks(servers, s.RankOrder)
	if len(j.ranks) < 2 {
		return nil, fmt.Errorf("a collective needs at least 2 GPUs; the servers have %d", len(j.ranks))
	}
	if s.Collective == results.CollBroadcast && (s.Root < 0 || s.Root >= len(j.ranks)) {
		return nil, fmt.Errorf("root %d is not a rank (the collective has ranks 0 to %d)", s.Root, len(j.ranks)-1)
	}
	return j, nil
}

// placeRanks numbers the GPUs: server by server (nccl), or round robin
// over the servers (naive; a server with fewer GPUs drops out of the
// rounds it has no GPU for).
func placeRanks(servers []Server, order string) []rank {
	var out []rank
	if order == OrderNaive {
		for g := 0; ; g++ {
			added := false
			for s, sv := range servers {
				if g < sv.GPUs {
					out = append(out, rank{s, g})
					added = true
				}
			}
			if !added {
				return out
			}
		}
	}
	for s, sv := range servers {
		for g := range sv.GPUs {
			out = append(out, rank{s, g})
		}
	}
	return out
}

// route is the transport from GPU a to GPU b: the scale-up domain inside
// a server; between servers PXN (nccl order: staged to the local GPU with
// b's index unless a already sits on that GPU's NIC, then rail aligned
// to b's NIC) or the two GPUs' own NICs (naive).
func (j *job) route(a, b rank) []leg {
	sa, sb := j.servers[a.server], j.servers[b.server]
	if a.server == b.server {
		return []leg{{scaleUp: true, host: sa.Host, srcGPU: a.gpu, dstGPU: b.gpu}}
	}
	dst := sb.NICs[sb.nicOf(b.gpu)]
	if j.spec.RankOrder == OrderNaive || b.gpu >= sa.GPUs {
		return []leg{{src: sa.NICs[sa.nicOf(a.gpu)], dst: dst}}
	}
	relay := b.gpu
	if sa.nicOf(relay) == sa.nicOf(a.gpu) {
		return []leg{{src: sa.NICs[sa.nicOf(a.gpu)], dst: dst}}
	}
	return []leg{
		{scaleUp: true, host: sa.Host, srcGPU: a.gpu, dstGPU: relay},
		{src: sa.NICs[sa.nicOf(relay)], dst: dst},
	}
}

// ringOrder is channel c's ring: with rank order nccl, each server's GPUs
// in order from the GPU of NIC c mod NICs, server after server; with
// naive, the ranks in order.
func (j *job) ringOrder(c int) []rank {
	if j.spec.RankOrder == OrderNaive {
		return j.ranks
	}
	var out []rank
	for s, sv := range j.servers {
		g0 := sv.gpuOfNIC(c % len(sv.NICs))
		for i := range sv.GPUs {
			out = append(out, rank{s, (g0 + i) % sv.GPUs})
		}
	}
	return out
}

// treeOrder is channel c's tree over GPUs: the nodes and each one's
// parent (an index into nodes, -1 for the root). With rank order nccl,
// tree c mod 2 of NCCL's double binary tree joins the servers through the
// GPUs of NIC (c/2) mod NICs, each heading a chain through its server's
// GPUs; with naive, the double binary tree joins the ranks themselves.
func (j *job) treeOrder(c int) (nodes []rank, parent []int) {
	t := c % 2
	if j.spec.RankOrder == OrderNaive {
		p, _ := treeParents(len(j.ranks), t)
		return j.ranks, p
	}
	p, _ := treeParents(len(j.servers), t)
	head := make([]int, len(j.servers)) // index in nodes of each server's chain head
	for s, sv := range j.servers {
		g0 := sv.gpuOfNIC((c / 2) % len(sv.NICs))
		head[s] = len(nodes)
		for i := range sv.GPUs {
			nodes = append(nodes, rank{s, (g0 + i) % sv.GPUs})
			if i == 0 {
				parent = append(parent, -1) // set below, once every head is known
			} else {
				parent = append(parent, len(nodes)-2)
			}
		}
	}
	for s := range j.servers {
		if p[s] >= 0 {
			parent[head[s]] = head[p[s]]
		}
	}
	return nodes, parent
}
