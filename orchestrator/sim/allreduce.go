package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// RingAllReduceFlows returns the QPs of one ring AllReduce of bytes over
// ranks (NIC names in ring order): 2(N-1) steps (reduce-scatter, then
// all-gather); in step k rank i sends its chunk of the step
// (RingStepBytes) to rank i+1 as soon as it has received its step k-1
// chunk from rank i-1. Flow IDs are "<prefix>-s<step>-r<rank>"; each rank
// pair keeps one UDP source port, so every step takes the same path, as
// one QP would. A buffer smaller than the ranks returns nil (see
// RingStepBytes).
func RingAllReduceFlows(prefix string, ranks []string, bytes int64, dscp int) []Flow {
	n := len(ranks)
	if n < 2 || bytes < int64(n) {
		return nil
	}
	flows := make([]Flow, 0, 2*(n-1)*n)
	for k := 0; k < 2*(n-1); k++ {
		for i := 0; i < n; i++ {
			flows = append(flows, ringFlow(prefix, ranks, RingStepBytes(bytes, n, i, k), dscp, k, i))
		}
	}
	return flows
}

// RingStepBytes is what rank i of a ring AllReduce of bytes over n ranks
// sends in step k (0 to 2n-3). As NCCL's ring, the buffer is cut into n
// chunks whose sizes add up to it, the first bytes%n of them one byte
// larger than the others; in reduce-scatter step k rank i sends chunk
// (i-k) mod n, in all-gather step j = k-(n-1) chunk (i-j+1) mod n, which
// is (i-k) mod n again: a rank passes on in step k+1 the chunk it
// received in step k. The collective moves 2(n-1) x bytes in all.
//
// With bytes < n some chunks are empty. Callers refuse that (a scenario
// at its traffic[].bytes): an empty step would have no packet to carry
// it, so it could not pace the chain, and a flow of 0 bytes means a
// long-lived flow to the simulator.
func RingStepBytes(bytes int64, n, i, k int) int64 {
	return Piece(bytes, int64(n), int64(((i-k)%n+n)%n))
}

// Piece is piece i (0 to n-1) of total cut into n pieces as evenly as
// whole units allow: total/n each, the first total%n of them one unit
// more, so that they differ by one unit at most and add up to total. It
// is how labctl splits a buffer everywhere: the ring pattern's chunks
// (RingStepBytes) and an NCCL collective's channels, loops and chunks,
// in elements (orchestrator/collective).
func Piece(total, n, i int64) int64 {
	p := total / n
	if i < total%n {
		p++
	}
	return p
}

// RingRankBytes is what rank i of a ring AllReduce of bytes over n ranks
// sends over all its steps: every chunk twice but the two it does not
// send, (i+1) mod n in reduce-scatter and (i+2) mod n in all-gather.
func RingRankBytes(bytes int64, n, i int) int64 {
	sum := int64(0)
	for k := range 2 * (n - 1) {
		sum += RingStepBytes(bytes, n, i, k)
	}
	return sum
}

// RingMaxChunk is the largest chunk of a ring of bytes over n ranks (the
// first Piece), what a step of the ring is charged (RingAllReduceTheoryNs).
func RingMaxChunk(bytes int64, n int) int64 { return Piece(bytes, int64(n), 0) }

func ringFlow(prefix string, ranks []string, chunk int64, dscp, k, i int) Flow {
	n := len(ranks)
	f := Flow{
		ID:      ringFlowID(prefix, k, i),
		Src:     ranks[i],
		Dst:     ranks[(i+1)%n],
		SrcPort: 49152 + i%16384,
		DSCP:    dscp,
		Bytes:   chunk,
		Role:    "allreduce",
	}
	if k > 0 {
		f.After = []string{ringFlowID(prefix, k-1, (i+n-1)%n)}
		// Step 0 reports each rank pair's path; later steps are the same
		// QP and are reported as the collective.
		f.Quiet = true
	}
	return f
}

func ringFlowID(prefix string, step, rank int) string {
	return fmt.Sprintf("%s-s%d-r%d", prefix, step, rank)
}

// CollectiveTimeNs is the completion time of the flows whose ID starts with
// prefix: from the first start to the last byte received. ok is false if
// one of them did not complete.
func CollectiveTimeNs(r *Result, prefix string) (ns int64, ok bool) {
	first, last := int64(math.MaxInt64), int64(0)
	found := false
	for _, f := range r.Flows {
		if !strings.HasPrefix(f.ID, prefix+"-") {
			continue
		}
		found = true
		if !f.Completed || f.FCTNs == nil {
			return 0, false
		}
		first = min(first, f.StartNs)
		last = max(last, f.StartNs+*f.FCTNs)
	}
	if !found {
		return 0, false
	}
	return last - first, true
}

// RingAllReduceTheoryNs is the ideal ring AllReduce time on a non-blocking
// fabric: 2(N-1) steps of ceil(S/N) / (eta*B) plus 2(N-1) step latencies,
// with B in Gb/s, S in bytes and eta the wire efficiency MTU/(MTU+82).
// When S does not divide by N the chunks differ by a byte and the largest
// bounds a step (a step of the ring ends when its slowest transfer does),
// so S/N is rounded up; for S a multiple of N it is 2(N-1)/N * S / (eta*B).
func RingAllReduceTheoryNs(n int, bytes int64, eta, bGbps, stepLatencyNs float64) float64 {
	if n < 2 {
		return 0
	}
	steps := float64(2 * (n - 1))
	return steps*float64(RingMaxChunk(bytes, n))*8/(eta*bGbps) + steps*stepLatencyNs
}

// AllReduceEstimate is the flow-level model's answer.
type AllReduceEstimate struct {
	Ranks int `json:"ranks"`
	Steps int `json:"steps"`
	// TimeNs is the whole collective, from the first post to the last
	// message received; StepNs its mean step, TimeNs / Steps.
	TimeNs float64 `json:"time_ns"`
	StepNs float64 `json:"step_ns"`
	// MinRateGbps is the slowest rank's max-min fair goodput.
	MinRateGbps float64 `json:"min_rate_gbps"`
	// LatencyNs is the mean path latency of the ring's hops (a rank to
	// the next), MaxLatencyNs the longest.
	LatencyNs    float64 `json:"latency_ns"`
	MaxLatencyNs float64 `json:"max_latency_ns"`
	// BusBWGbps is the NCCL-style bus bandwidth 2(N-1)/N * S / time.
	BusBWGbps float64 `json:"bus_bw_gbps"`
	// RankRatesGbps is each rank's max-min fair goodput to the next rank;
	// RankDoneNs when the next rank had received the last step from it.
	RankRatesGbps []float64 `json:"rank_rates_gbps"`
	RankDoneNs    []float64 `json:"rank_done_ns"`
	// ChunkBytes is the largest chunk a rank sends in a step: chunks
	// differ by a byte at most when the buffer does not divide by the
	// ranks (RingStepBytes).
	ChunkBytes int64 `json:"chunk_bytes"`
}

// RingAllReduceFlowLevel estimates a ring AllReduce without simulating
// packets, for fabrics too large for the packet engine (1024 GPUs): it
// routes each rank's QP as the packet engine would (same ECMP hash and
// seeds), gives the N concurrent flows of a step max-min fair shares of
// link goodput (rate x MTU/(MTU+82)), and follows the ring's chain of
// dependencies as the packet engine (and NCCL) runs it, with no barrier
// between steps: rank i posts step k once it has received step k-1 from
// rank i-1, and its one QP sends its steps one after the other, so
//
//	start(k, i) = max(start(k-1, i-1) + T(i-1) + L(i-1), start(k-1, i) + T(i))
//
// with T(i) the chunk's transfer time at rank i's rate and L(i) its path
// latency (propagation, store and forward of one packet per extra hop,
// mean switch jitter, the receiving NIC's delay); the collective ends
// when the last step has arrived everywhere, the longest path through
// that graph, computed in O(N x steps). A slow hop then costs what it
// costs on its own QP and on the chains through it, not, as a per-step
// barrier would charge, on every step of every rank. cfg supplies the
// topology, MTU, seed and jitter; its traffic (Flows, Rings, ...) is
// ignored. T(i) is per step: when the buffer does not divide by the
// ranks, each step's chunk has its own size (RingStepBytes).
func RingAllReduceFlowLevel(cfg Config, ranks []string, bytes int64) (*AllReduceEstimate, error) {
	n := len(ranks)
	if n < 2 {
		return nil, errorf("ring AllReduce needs at least 2 ranks, got %d", n)
	}
	if bytes < int64(n) {
		return nil, errorf("ring AllReduce of %d bytes over %d ranks leaves a chunk empty: give it at least %d bytes, one a rank", bytes, n, n)
	}
	step0 := make([]Flow, n)
	for i := range step0 {
		step0[i] = ringFlow("ar", ranks, RingStepBytes(bytes, n, i, 0), 0, 0, i)
	}
	// The ranks' QPs are the only flows routed: other traffic of cfg
	// would add paths that the ranks' rates and latencies are read from
	// by index.
	cfg.Flows, cfg.Rings, cfg.AllToAll, cfg.PingPongs, cfg.Programs = step0, nil, nil, nil, nil
	s, paths, rates, err := flowLevel(cfg)
	if err != nil {
		return nil, fmt.Errorf("flow-level AllReduce: %w", err)
	}
	frame := float64(s.fullWire())
	steps := 2 * (n - 1)
	est := &AllReduceEstimate{Ranks: n, Steps: steps, MinRateGbps: math.Inf(1), RankRatesGbps: rates, ChunkBytes: RingMaxChunk(bytes, n)}
	lat := make([]float64, n)
	// xfer(k, i) is rank i's step k transfer time: its chunk of the step
	// at its rate.
	xfer := func(k, i int) float64 { return float64(RingStepBytes(bytes, n, i, k)) * 8 / rates[i] }
	for i, path := range paths {
		l := 0.0
		minSer := math.Inf(1)
		for _, pi := range path {
			p := &s.ports[pi]
			ser := frame * 8 / (p.lineMbps / 1000)
			l += float64(p.propPs)/1000 + ser
			minSer = min(minSer, ser)
			if !s.ports[p.peer].host {
				l += float64(s.jitter) / 1000 / 2
			}
		}
		l -= minSer // one packet's serialization is part of the transfer time
		// The receiving NIC's processing delay, charged per packet by the
		// packet engine, delays the step's last byte once.
		l += float64(s.nicDelay) / 1000
		lat[i] = l
		est.LatencyNs += l / float64(n)
		est.MaxLatencyNs = max(est.MaxLatencyNs, l)
		est.MinRateGbps = min(est.MinRateGbps, rates[i])
	}
	// start[i] is when rank i posts the current step; all post step 0 at 0.
	start, next := make([]float64, n), make([]float64, n)
	for k := range steps - 1 {
		for i := range n {
			prev := (i + n - 1) % n
			next[i] = max(start[prev]+xfer(k, prev)+lat[prev], start[i]+xfer(k, i))
		}
		start, next = next, start
	}
	est.RankDoneNs = make([]float64, n)
	for i := range n {
		est.RankDoneNs[i] = start[i] + xfer(steps-1, i) + lat[i]
		est.TimeNs = max(est.TimeNs, est.RankDoneNs[i])
	}
	est.StepNs = est.TimeNs / float64(steps)
	est.BusBWGbps = float64(steps) / float64(n) * float64(bytes) * 8 / est.TimeNs
	return est, nil
}

// egressPath lists the egress ports from NIC src to NIC dst for hash h
// (setup checked that it arrives).
func (s *sim) egressPath(src, dst int32, h uint64) []int32 {
	path := []int32{src}
	s.walk(src, dst, h, func(_, out int32) { path = append(path, out) })
	return path
}

// maxMinFair computes max-min fair rates by progressive filling: raise all
// unfrozen flows together until a link saturates, freeze its flows, repeat.
func maxMinFair(paths [][]int32, capacity func(int32) float64) []float64 {
	rates := make([]float64, len(paths))
	frozen := make([]bool, len(paths))
	users := map[int32][]int{}
	for i, p := range paths {
		for _, l := range p {
			users[l] = append(users[l], i)
		}
	}
	links := make([]int32, 0, len(users))
	for l := range users {
		links = append(links, l)
	}
	sort.Slice(links, func(a, b int) bool { return links[a] < links[b] })
	left := len(paths)
	for left > 0 {
		// The link with the smallest equal share among unfrozen users.
		best, bestShare := int32(-1), math.Inf(1)
		for _, l := range links {
			used, active := 0.0, 0
			for _, i := range users[l] {
				if frozen[i] {
					used += rates[i]
				} else {
					active++
				}
			}
			if active == 0 {
				continue
			}
			if share := (capacity(l) - used) / float64(active); share < bestShare {
				best, bestShare = l, share
			}
		}
		if best < 0 {
			break
		}
		for _, i := range users[best] {
			if !frozen[i] {
				rates[i] = bestShare
				frozen[i] = true
				left--
			}
		}
	}
	return rates
}

// FlowLevelRates returns every flow's max-min fair goodput in Gb/s on the
// paths the packet engine would route them (same ECMP hash and seeds),
// as if all of cfg.Flows ran at once for ever: sizes, start times,
// dependencies, PFC and DCQCN dynamics are ignored. It suits steady-state
// patterns (pairs, permutation, incast) on fabrics too large for packets.
func FlowLevelRates(cfg Config) ([]float64, error) {
	_, _, rates, err := flowLevel(cfg)
	if err != nil {
		return nil, fmt.Errorf("flow-level rates: %w", err)
	}
	return rates, nil
}

// shapedOnPath names the shaped queues flow f leaves by on its egress
// ports (path), as maxMinFair's links numbered after the ports: each
// switch classifies the flow's DSCP at the port it came in by, and its
// egress port queues that priority in its queue.
func (s *sim) shapedOnPath(f *flowState, path []int32) []int32 {
	var out []int32
	dscp := f.dscp
	for k := 1; k < len(path); k++ {
		pi := path[k]
		prio := s.ports[s.ports[path[k-1]].peer].tcOf[dscp]
		q := s.ports[pi].queueOf[prio]
		if s.shaped[pi]&(1<<q) != 0 {
			out = append(out, int32(len(s.ports))+8*pi+int32(q))
		}
		// The port's egress remarking: the next switch classifies the
		// DSCP it wrote.
		if s.remark != nil && s.remark[pi][prio] >= 0 {
			dscp = uint8(s.remark[pi][prio])
		}
	}
	return out
}

// watchdogDropsOnPath says whether a switch port on flow f's egress
// ports (path) drops its priority by a PFC watchdog's drop action, where
// the flow comes in (the peer of the port before) or where it leaves.
// Only a drop forced from the start (PortQoS.WatchdogDrop) is set before
// the run; the flow-level model has no storms.
func (s *sim) watchdogDropsOnPath(f *flowState, path []int32) bool {
	dscp := f.dscp
	for k := 1; k < len(path); k++ {
		in := s.ports[path[k-1]].peer
		prio := s.ports[in].tcOf[dscp]
		if (s.ports[in].wdDrop|s.ports[path[k]].wdDrop)&(1<<prio) != 0 {
			return true
		}
		if s.remark != nil && s.remark[path[k]][prio] >= 0 {
			dscp = uint8(s.remark[path[k]][prio])
		}
	}
	return false
}

// flowLevel sets cfg up as the packet engine would (so flows take its ECMP
// paths) and returns the engine, each flow's egress ports (the last one
// is the link into the receiver's NIC) and its max-min fair goodput in
// Gb/s over link goodput (rate x MTU/(MTU+82)).
func flowLevel(cfg Config) (*sim, [][]int32, []float64, error) {
	if cfg.DurationNs <= 0 {
		cfg.DurationNs = 1
	}
	cfg.SampleEveryNs, cfg.Watch = 0, nil
	s, err := newSim(&cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	eta := WireEfficiency(int(s.mtu))
	paths := make([][]int32, len(s.flows))
	for i := range s.flows {
		f := &s.flows[i]
		paths[i] = s.egressPath(f.src, f.dst, f.hashFwd)
	}
	// A shaped queue (PortQoS.Shape) is one more link of its own rate
	// on the path of every flow that leaves its port by it.
	res := paths
	if s.shapers != nil {
		res = make([][]int32, len(paths))
		for i, path := range paths {
			res[i] = append(slices.Clip(path), s.shapedOnPath(&s.flows[i], path)...)
		}
	}
	nPorts := int32(len(s.ports))
	// A flow whose priority a switch port on its path holds in a PFC
	// watchdog's drop action from the start (PortQoS.WatchdogDrop) gets
	// no rate: it crosses one more link, of no capacity, numbered after
	// the shaped queues.
	dropped := nPorts + 8*nPorts
	own := s.shapers != nil // res is not paths itself
	for i, path := range paths {
		if s.watchdogDropsOnPath(&s.flows[i], path) {
			if !own {
				res, own = slices.Clone(res), true
			}
			res[i] = append(slices.Clip(res[i]), dropped)
		}
	}
	rates := maxMinFair(res, func(pi int32) float64 {
		if pi == dropped {
			return 0
		}
		if pi >= nPorts {
			return float64(s.shapers[pi-nPorts].kbps) / 1e6 * eta
		}
		// A shaped switch port (Config.PortShapers) sends at its
		// shaper's rate, and a NIC capped below its port
		// (Config.NICCapGbps) at most the cap of payload: PCIe carries
		// the payload alone, the packets' headers are the port's.
		p := &s.ports[pi]
		r := p.lineMbps
		if s.portShapers != nil && s.portShapers[pi].kbps > 0 {
			r = min(r, float64(s.portShapers[pi].kbps)/1000)
		}
		// A link whose sending or receiving switch port drops full-sized
		// packets (Config.PortMaxPayload) carries none of a flow's.
		if s.maxPayload != nil {
			if n := s.maxPayload[pi]; n > 0 && s.mtu > int64(n) {
				return 0
			}
			if n := s.maxPayload[p.peer]; p.peer >= 0 && n > 0 && s.mtu > int64(n) {
				return 0
			}
		}
		if p.capMbps > 0 {
			return min(r*eta, p.capMbps) / 1000
		}
		return r / 1000 * eta
	})
	return s, paths, rates, nil
}
