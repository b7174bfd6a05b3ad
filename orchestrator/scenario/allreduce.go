package scenario

import (
	"fmt"
	"math"
	"slices"

	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/server"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// Ratios at which the AllReduce model states the theoretical completion
// time, beside the lab's own oversubscription.
var modelRatios = []float64{1, 2, 3, 4, 8}

// nicDelayUs is a RoCE NIC's own processing time per transfer (send and
// receive pipelines, PCIe), as the simulator charges it by default (about
// 1 µs on real NICs): every ring step waits for the previous chunk to be
// fully received.
const nicDelayUs = engine.DefaultNICDelayNs / 1000.0

// allReduceModel describes a ring AllReduce on the lab before it runs:
// which transfers cross the spines in each round and the completion time
// theory gives for several oversubscription ratios. A rank sends step
// k+1 once it has received step k from its predecessor, so the chain that
// sets the completion time runs backwards around the ring, one hop per
// step: over 2(N-1) steps it crosses every hop about twice, and the time
// is 2(N-1) times the mean time of a hop,
//
//	T = 2(N-1) * max(mean over hops of (⌈S/N⌉ / (η * b_h) + latency_h),
//	                 max over hops of ⌈S/N⌉ / (η * b_h))
//
// with ⌈S/N⌉ the largest of the N chunks the buffer S is cut into (they
// differ by a byte when S does not divide by N), b_h the bandwidth of hop
// h (a NIC's line rate, or, for a hop that crosses the spines, its leaf's
// uplink bandwidth shared by the ring transfers leaving that leaf in the
// same round), η * b_h what it carries of payload, η = MTU/(MTU+o) with
// o the bytes transport tr adds to a packet on the wire (82 on RoCE and
// UET, 26 on InfiniBand: sim.WireOverheadFor, which NCCL's bound takes
// too), or the sender's PCIe payload rate where that is lower, for every
// packet of a step but the last, which leaves at the port's pace
// (server.NICPayloadGbps, the one function every closed form of a NIC's
// rate reads), and latency_h its path's latency; the second term is the
// slowest hop's QP, which cannot send its steps faster than its
// bandwidth allows.
func allReduceModel(nics []NIC, l *runtime.Lab, t *Traffic, mtu int, tr string) (map[string]any, error) {
	ring, err := ringRanks(nics, t)
	if err != nil {
		return nil, err
	}
	n := len(ring)
	if l == nil || l.Plan == nil {
		return nil, fmt.Errorf("ring-allreduce model: the lab has no sizing plan")
	}
	rounds := 2 * (n - 1)
	// In a ring every round has the same transfers: rank i to rank i+1.
	crossing := 0
	leaving := map[string]int{}    // ring transfers leaving each leaf per round
	nicsOnLeaf := map[string]int{} // NICs attached to each leaf (all of the lab's)
	for _, x := range nics {
		nicsOnLeaf[x.Leaf]++
	}
	// In a three-tier fabric a hop between pods also crosses the
	// super-spines: two more links.
	podOf := func(leaf string) int {
		if l != nil && l.Graph != nil {
			if nd := l.Graph.Node(leaf); nd != nil {
				return nd.Pod
			}
		}
		return 0
	}
	interPod := 0
	for i := range ring {
		a, b := ring[i], ring[(i+1)%n]
		if a.Leaf != b.Leaf {
			crossing++
			leaving[a.Leaf]++
			if podOf(a.Leaf) != podOf(b.Leaf) {
				interPod++
			}
		}
	}
	perRound := make([]int, rounds)
	for i := range perRound {
		perRound[i] = crossing
	}
	srv, err := l.ServerModel()
	if err != nil {
		return nil, fmt.Errorf("ring-allreduce model: lab %s: %w", l.Name, err)
	}
	nic := float64(l.Plan.NICSpeedGbps)
	overhead := engine.WireOverheadFor(tr)
	// payloadOf is what a hop of gbps on the wire (a NIC's port, or its
	// share of its leaf's uplinks) carries of payload in tr's packets,
	// bounded by the sending NIC's PCIe link.
	payloadOf := func(gbps float64) float64 { return server.NICPayloadGbps(gbps, srv.PCIeGbps, mtu, overhead) }
	eta := server.NICPayloadGbps(nic, 0, mtu, overhead) / nic
	// A step is charged the largest chunk: when the buffer does not
	// divide by the ranks the chunks differ by a byte, and a ring step
	// ends with its largest transfer (engine.RingAllReduceTheoryNs).
	chunk := engine.RingMaxChunk(t.BytesN, n)
	chunkBits := float64(chunk) * 8
	// serOf is a step's transfer on a hop of gbps on the wire: the chunk
	// at the hop's payload rate. Behind a PCIe link slower than that, the
	// link spaces the packets (the NIC sends one once the link has fed
	// the one before) and the last packet takes the port's time, not the
	// link's: every packet but the last at PCIe's rate, the last at the
	// hop's wire pace.
	lastBits := float64(chunk-(chunk-1)/int64(mtu)*int64(mtu)) * 8
	serOf := func(gbps float64) float64 {
		wire := server.NICPayloadGbps(gbps, 0, mtu, overhead)
		if p := payloadOf(gbps); p < wire {
			return (chunkBits-lastBits)/(p*1e3) + lastBits/(wire*1e3)
		}
		return chunkBits / (wire * 1e3)
	}
	cableM := 5
	if in, err := l.Intent(); err == nil && in.CableLengthM > 0 {
		cableM = in.CableLengthM
	}
	// A step's latency on its path (2 links within a leaf, 4 across the
	// spines): propagation over every link, store and forward of one
	// packet at every switch (the last packet's serialization at the
	// sender is part of the transfer) and the receiving NIC's processing.
	latOf := func(links float64) float64 {
		return links*float64(cableM*qos.CableNsPerMeter)/1000 + (links-1)*float64(mtu+overhead)*8/(nic*1e3) + nicDelayUs
	}
	latUs := latOf(2)
	if crossing > 0 {
		latUs = latOf(4)
	}
	// An interleaved ring (consecutive ranks on different leaves, as a
	// placement that ignores topology gives) sends every transfer across
	// the spines: each leaf's ranks all send up at once.
	interleaved := map[string]int{}
	for _, x := range ring {
		interleaved[x.Leaf]++
	}
	if len(interleaved) < 2 {
		interleaved = map[string]int{}
	}
	// theoryOf is T for a ring whose crossing hops leave the leaves as
	// leaving says (the others stay within a leaf), and the bandwidth of
	// its slowest hop.
	theoryOf := func(leaving map[string]int, interPod int, uplinkGbpsPerNIC float64) (us, bw float64) {
		bw = nic
		sum, slowest, hops := float64(interPod)*(latOf(6)-latOf(4)), 0.0, 0
		for leaf, c := range leaving {
			share := math.Min(nic, uplinkGbpsPerNIC*float64(nicsOnLeaf[leaf])/float64(c))
			bw = math.Min(bw, share)
			ser := serOf(share)
			sum += float64(c) * (ser + latOf(4))
			slowest = math.Max(slowest, ser)
			hops += c
		}
		if rest := n - hops; rest > 0 {
			ser := serOf(nic)
			sum += float64(rest) * (ser + latOf(2))
			slowest = math.Max(slowest, ser)
		}
		step := math.Max(sum/float64(n), slowest)
		return float64(rounds) * step, bw
	}
	theory := func(uplinkGbpsPerNIC float64) (us, bw float64) { return theoryOf(leaving, interPod, uplinkGbpsPerNIC) }
	var byRatio []any
	ratios := slices.Clone(modelRatios)
	actual := l.Plan.Oversubscription.Actual
	if actual > 0 && !slices.Contains(ratios, actual) {
		ratios = append(ratios, actual)
		slices.Sort(ratios)
	}
	for _, r := range ratios {
		us, bw := theory(nic / r)
		ius, ibw := theoryOf(interleaved, 0, nic/r)
		byRatio = append(byRatio, map[string]any{
			"oversubscription": r, "theoretical_us": round3(us), "transfer_gbps": round3(bw),
			"interleaved_ring_us": round3(ius), "interleaved_transfer_gbps": round3(ibw),
			"lab": r == actual,
		})
	}
	// The lab's own fabric: uplink bandwidth as built.
	upGbps := float64(l.Plan.Leaf.UplinkPortsPerLeaf * l.Plan.Leaf.UplinkSpeedGbps)
	perNIC := nic
	if maxNICs := maxOf(nicsOnLeaf); upGbps > 0 && maxNICs > 0 {
		perNIC = upGbps / float64(maxNICs)
	}
	labUs, labBW := theory(perNIC)
	return map[string]any{
		"ranks":                           float64(n),
		"bytes":                           float64(t.BytesN),
		"rounds":                          float64(rounds),
		"transfers_per_round":             float64(n),
		"crossing_spine_per_round":        perRound,
		"crossing_spine_total":            float64(crossing * rounds),
		"max_crossing_from_one_leaf":      float64(maxOf(leaving)),
		"step_latency_us":                 round3(latUs),
		"step_latency_mean_us":            round3((float64(crossing)*latOf(4) + float64(interPod)*(latOf(6)-latOf(4)) + float64(n-crossing)*latOf(2)) / float64(n)),
		"goodput_efficiency":              round3(eta),
		"transport":                       tr,
		"nic_payload_gbps":                round3(payloadOf(nic)),
		"theoretical_us":                  round3(labUs),
		"theoretical_transfer_gbps":       round3(labBW),
		"theoretical_by_oversubscription": byRatio,
	}, nil
}

// completeAllReduce puts the model's theoretical time next to a variant's
// simulated (or estimated) outcome and says which phase congested more.
func completeAllReduce(v map[string]any, model any) {
	m, ok := model.(map[string]any)
	if !ok {
		return
	}
	th, _ := m["theoretical_us"].(float64)
	v["theoretical_us"] = th
	timeKey, ratioKey := allReduceTimeKeys(v)
	if t, ok := v[timeKey].(float64); ok && th > 0 {
		v[ratioKey] = round3(t / th)
	}
	phases, _ := v["phases"].(map[string]any)
	sr, _ := phases["scatter_reduce"].(map[string]any)
	ag, _ := phases["allgather"].(map[string]any)
	if sr == nil || ag == nil {
		return
	}
	num := func(m map[string]any, k string) float64 { f, _ := m[k].(float64); return f }
	// Congestion is judged on the deepest queue first, then on paused
	// time, then on how long the phase took against its twin: the two
	// phases move the same bytes over the same ring, so any difference
	// comes from the fabric.
	more := false
	why := "both phases moved the same bytes with the same queues and pauses"
	switch {
	case num(ag, "max_queue_bytes") != num(sr, "max_queue_bytes"):
		more = num(ag, "max_queue_bytes") > num(sr, "max_queue_bytes")
		why = fmt.Sprintf("deepest queue %.0f B in AllGather vs %.0f B in Scatter-Reduce", num(ag, "max_queue_bytes"), num(sr, "max_queue_bytes"))
	case num(ag, "paused_port_samples") != num(sr, "paused_port_samples"):
		more = num(ag, "paused_port_samples") > num(sr, "paused_port_samples")
		why = fmt.Sprintf("paused port samples %.0f in AllGather vs %.0f in Scatter-Reduce", num(ag, "paused_port_samples"), num(sr, "paused_port_samples"))
	case math.Abs(num(ag, "duration_us")-num(sr, "duration_us")) > 0.01*num(sr, "duration_us"):
		more = num(ag, "duration_us") > num(sr, "duration_us")
		why = fmt.Sprintf("AllGather took %.1f us vs Scatter-Reduce %.1f us", num(ag, "duration_us"), num(sr, "duration_us"))
	}
	v["allgather_congests_more"] = more
	v["congestion_comparison"] = why
}

// allReduceTimeKeys are the names of the time and the ratio in a
// variant's extra.allreduce v, by the model that made it.
func allReduceTimeKeys(v map[string]any) (timeKey, ratioKey string) {
	if v["model"] == runtime.ModelFlow {
		return runtime.AllReduceEstimatedUs, runtime.AllReduceEstimatedRatio
	}
	return runtime.AllReduceSimulatedUs, runtime.AllReduceSimulatedRatio
}

// allReduceAliases are the packet engine's names of a ring AllReduce's
// time and ratio, which an assertion may still use on a flow-level
// variant, whose record names them estimated_us and
// estimated_over_theoretical: scenario files written when the flow-level
// model's record called them simulated (the catalog's allreduce among
// them) run under either model. Only the old name is an alias: an
// estimated_ name on a packet-level variant is no name of its record.
var allReduceAliases = map[string]string{
	runtime.AllReduceSimulatedUs:    runtime.AllReduceEstimatedUs,
	runtime.AllReduceSimulatedRatio: runtime.AllReduceEstimatedRatio,
}

// extraRecordPath is the path of the extra an assertion's path reads in
// variant v's record: path itself, but extra.allreduce.simulated_us and
// simulated_over_theoretical of a flow-level variant whose record names
// them estimated_ (allReduceAliases) read those.
func extraRecordPath(v *results.Variant, path []string) []string {
	if len(path) != 3 || path[0] != "extra" || path[1] != "allreduce" {
		return path
	}
	to, ok := allReduceAliases[path[2]]
	ar, _ := v.Extra["allreduce"].(map[string]any)
	if !ok || ar == nil || ar["model"] != runtime.ModelFlow {
		return path
	}
	if _, old := ar[path[2]]; old {
		return path // a record written before: it has the old name
	}
	return []string{path[0], path[1], to}
}

// flowOnlyName says why the flow-level model's name of a ring AllReduce's
// time or ratio is not in a packet-level variant's record, which names
// them simulated_ (an alias the flow-level model's record answers to, so
// that one expression checks both); err otherwise.
func flowOnlyName(v *results.Variant, path []string, err error) error {
	if len(path) != 3 || path[0] != "extra" || path[1] != "allreduce" || v.Model() == runtime.ModelFlow {
		return err
	}
	for old, est := range allReduceAliases {
		if path[2] == est {
			return fmt.Errorf("extra.allreduce.%s is the flow-level model's estimate, and variant %s's figures are %s: use extra.allreduce.%s, which names the time under either model", est, v.Label(), v.SourceLabel(), old)
		}
	}
	return err
}

func maxOf(m map[string]int) int {
	best := 0
	for _, v := range m {
		best = max(best, v)
	}
	return best
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
