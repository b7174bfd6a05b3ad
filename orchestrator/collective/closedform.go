package collective

import (
	"fmt"
	"math"
	"sort"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sim"
)

// The closed forms of the collectives: alpha-beta times over the
// transfers Build lays out (the same rings, trees and routes), with
// every link class charged at its own rate and latency, and no packet,
// queue or congestion. They are the one place these formulas live: the
// runtime reports the bound beside the simulated rows, and tests hold the
// packet-level simulation to them.
//
// A message of m bytes on a leg takes alpha + 8m/b: on the fabric, b is
// what a NIC sends of payload (Links.PayloadGbps, server.NICPayloadGbps:
// its port's rate times MTU/(MTU+the transport's bytes a packet), or its
// PCIe link's payload rate when that is lower) and alpha the path's
// one-way latency (Links.FabricLatencyNs); on the scale-up
// domain, b is a GPU's rate in one direction and alpha its latency. A
// transfer's hop is the sum of its legs (a PXN message leaves the relay's
// NIC once it is on the relay).
//
//   - Rings (all_reduce, all_gather, reduce_scatter) are chains: message
//     m of a hop waits for message m-1 of the hop before it, so the last
//     message's chain runs backwards around the ring one hop per message.
//     With M messages per hop (2(N-1) steps for all_reduce, N-1 for the
//     others, times NCCL's loops over 2 MiB chunks),
//     latency term = M x mean hop time, bandwidth term = the busiest
//     link's bytes at its rate, and T = the larger of the two (a slow
//     hop's messages queue behind each other; a fast ring waits on the
//     chain).
//   - Pipelines (tree all_reduce, broadcast, send/recv, all-to-all): M
//     chunks flow through a graph of transfers, each forwarded once
//     received. Latency term = the longest path of one chunk through the
//     graph plus M-1 chunks on its slowest leg (the pipeline's own pace),
//     bandwidth term = the busiest link's bytes at its rate, and T = the
//     larger of the latency term and the bandwidth term plus the longest
//     path's latency alone (the busiest link passes every chunk, the
//     first one arrives and the last one leaves through the path).
//
// Every transfer is charged the bytes its messages carry, each message
// its own size (schedule.go's cutting, what the program's streams carry):
// nothing is rounded up.
//
// The bound is the bus bandwidth the collective reaches when every
// latency is negligible: results.BusBWFactor x size / (the busiest link's
// bytes at its rate). It is the limit that channels x the NIC's rate
// gives, bounded by the scale-up domain and by PCIe (Links.PayloadGbps
// takes the PCIe link's payload rate where it is the lower), wherever the size divides evenly between ranks,
// channels and chunks; where it does not, the busiest link carries its
// few bytes more and the bound is that size's, a little lower (at a few
// bytes, where some chunks are empty, much lower).

// Links are the rates and latencies the closed forms charge.
type Links struct {
	// NICGbps is a NIC's port speed and PCIeGbps its PCIe link's payload
	// rate (server.Model's; 0: no PCIe bound).
	NICGbps  float64
	PCIeGbps float64
	// MTU is the payload MTU (0: sim.DefaultMTU) and WireOverheadBytes
	// what the transport adds to every packet on the wire (0: RoCE's
	// sim.WireOverheadBytes; sim.WireOverheadFor gives a transport's).
	MTU               int
	WireOverheadBytes int
	// FabricLatencyNs is a packet's one-way latency from NIC src to NIC
	// dst on an idle fabric beyond its serialization at the sender
	// (propagation, store and forward at every switch, the receiving
	// NIC's processing). Nil charges none.
	FabricLatencyNs func(src, dst string) float64
	// ScaleUpGbps is what one GPU sends into its scale-up domain
	// (server.Model.ScaleUpGbpsPerDir); ScaleUpLatencyNs a transfer's
	// latency there.
	ScaleUpGbps      float64
	ScaleUpLatencyNs float64
}

// PayloadGbps is what a NIC sends of payload on the fabric, the rate the
// closed forms charge a fabric leg: server.NICPayloadGbps of its port,
// its PCIe link and the framing.
func (l Links) PayloadGbps() float64 {
	mtu, overhead := l.MTU, l.WireOverheadBytes
	if mtu <= 0 {
		mtu = sim.DefaultMTU
	}
	if overhead <= 0 {
		overhead = sim.WireOverheadBytes
	}
	return server.NICPayloadGbps(l.NICGbps, l.PCIeGbps, mtu, overhead)
}

// Estimate is a collective's closed form at one size.
type Estimate struct {
	// TimeNs is the collective's time; LatencyNs and BandwidthNs its two
	// terms (see the package's closed forms).
	TimeNs      float64 `json:"time_ns"`
	LatencyNs   float64 `json:"latency_ns"`
	BandwidthNs float64 `json:"bandwidth_ns"`
	// AlgBWGBps and BusBWGBps are nccl-tests' figures for TimeNs.
	AlgBWGBps float64 `json:"algbw_gbyte_s"`
	BusBWGBps float64 `json:"busbw_gbyte_s"`
	// BoundBusBWGBps is the bandwidth-optimal bus bandwidth; Bottleneck
	// names the link that sets it ("NIC host1:eth1 send", "scale-up
	// host1 GPU 3").
	BoundBusBWGBps float64 `json:"bound_busbw_gbyte_s"`
	Bottleneck     string  `json:"bottleneck"`
}

// resource is a link a transfer loads: a NIC's send or receive side, or a
// GPU's way into its scale-up domain.
type resource struct {
	name string
	gbps float64
}

// ClosedForm gives the closed form of one collective of one size on the
// servers. An *EmptyError says the size moves nothing.
func ClosedForm(servers []Server, s Spec, l Links) (Estimate, Layout, error) {
	sc, err := plan(servers, s)
	if err != nil {
		return Estimate{}, Layout{}, err
	}
	e, err := sc.estimate(l)
	return e, sc.layout, err
}

func (sc *schedule) estimate(l Links) (Estimate, error) {
	if !(l.NICGbps > 0) || math.IsInf(l.NICGbps, 0) {
		return Estimate{}, fmt.Errorf("NIC rate %g Gb/s is not a rate", l.NICGbps)
	}
	fabric := l.PayloadGbps()
	legNs := func(g leg, bytes int64) float64 {
		if g.scaleUp {
			return l.ScaleUpLatencyNs + float64(bytes)*8/l.ScaleUpGbps
		}
		lat := 0.0
		if l.FabricLatencyNs != nil {
			lat = l.FabricLatencyNs(g.src, g.dst)
		}
		return lat + float64(bytes)*8/fabric
	}
	// Loads: bytes (for the time) and shares of the size (for the bound)
	// per resource.
	res := map[resource]struct{ bytes, share float64 }{}
	addLoad := func(r resource, bytes, share float64) {
		v := res[r]
		v.bytes += bytes
		v.share += share
		res[r] = v
	}
	size := float64(sc.layout.SizeBytes)
	for _, x := range sc.xfers {
		// Its bytes as the program carries them (schedule.go's cutting),
		// and what they are of the size.
		bytes := float64(x.bytes)
		share := bytes / size
		for _, g := range x.legs {
			if g.scaleUp {
				if !(l.ScaleUpGbps > 0) {
					return Estimate{}, fmt.Errorf("scale-up rate %g Gb/s is not a rate", l.ScaleUpGbps)
				}
				addLoad(resource{fmt.Sprintf("scale-up %s GPU %d", g.host, g.srcGPU), l.ScaleUpGbps}, bytes, share)
				continue
			}
			addLoad(resource{"NIC " + g.src + " send", fabric}, bytes, share)
			addLoad(resource{"NIC " + g.dst + " receive", fabric}, bytes, share)
		}
	}
	// Resources in name order, so that ties name the same bottleneck
	// every time.
	rs := make([]resource, 0, len(res))
	for r := range res {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(a, b int) bool { return rs[a].name < rs[b].name })
	var e Estimate
	bound := math.Inf(1)
	for _, r := range rs {
		v := res[r]
		e.BandwidthNs = max(e.BandwidthNs, v.bytes*8/r.gbps)
		// Gb/s / 8 is GB/s; per byte of size it carries share bytes.
		if b := r.gbps / 8 / v.share; b < bound {
			bound, e.Bottleneck = b, r.name
		}
	}
	// hop is one message of bytes over x's legs, hops all of x's
	// messages, each its own size: a leg's time is its latency and the
	// message's bytes at its rate.
	hop := func(x xfer, bytes int64) float64 {
		t := 0.0
		for _, g := range x.legs {
			t += legNs(g, bytes)
		}
		return t
	}
	hops := func(x xfer) float64 { return hop(x, x.bytes) + float64(x.msgs-1)*hop(x, 0) }
	switch sc.kind {
	case kindChain:
		// A ring's last message runs backwards around it, one hop a
		// message: every message of every hop, over the hops.
		for _, ring := range sc.rings {
			sum := 0.0
			for _, i := range ring {
				sum += hops(sc.xfers[i])
			}
			e.LatencyNs = max(e.LatencyNs, sum/float64(len(ring)))
		}
		e.TimeNs = max(e.LatencyNs, e.BandwidthNs)
	default:
		// Longest path of one chunk (the largest, the first), with and
		// without its transfer times: transfers come after their inputs
		// in the schedule, so one pass in order finds them. The slowest
		// leg paces the rest: the other messages at its rate.
		done := make([]float64, len(sc.xfers))
		alpha := make([]float64, len(sc.xfers))
		path, lat, rest := 0.0, 0.0, 0.0
		for i, x := range sc.xfers {
			start, startA := 0.0, 0.0
			for _, d := range x.after {
				start, startA = max(start, done[d.x]), max(startA, alpha[d.x])
			}
			done[i], alpha[i] = start+hop(x, x.largest), startA+hop(x, 0)
			path, lat = max(path, done[i]), max(lat, alpha[i])
			for _, g := range x.legs {
				rest = max(rest, legNs(g, x.bytes-x.largest)-legNs(g, 0))
			}
		}
		e.LatencyNs = path + rest
		e.TimeNs = max(e.LatencyNs, e.BandwidthNs+lat)
	}
	f, _ := results.BusBWFactor(sc.layout.Collective, sc.layout.Ranks)
	e.AlgBWGBps = float64(sc.layout.SizeBytes) / e.TimeNs // bytes per ns is GB/s
	e.BusBWGBps = e.AlgBWGBps * f
	e.BoundBusBWGBps = bound * f
	return e, nil
}
