package sim

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/labctl/labctl/orchestrator/collective"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/server"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// What the engine charges on every path, as its defaults set it
// (sim.Config.NICDelayNs and SwitchJitterNs, left 0 by this runtime): the
// receiving NIC's processing, and a switch's ingress pipeline latency
// drawn uniformly below DefaultSwitchJitterNs (half of it on average).
// The closed forms' fabric latency adds them.
const (
	engineNICDelayNs     = engine.DefaultNICDelayNs
	engineMeanJitterNs   = engine.DefaultSwitchJitterNs / 2.0
	ncclProgramPrefix    = "nccl"
	ncclSpineSwitchesMin = 3
)

// ncclBarrierNs is the time between one size's completion and the next
// size's start. nccl-tests meets in a barrier of every rank (MPI, over the
// hosts' own network) before it times a size, and again to add up the
// times after it: tens of microseconds on a real cluster. 10 us is at the
// short end, which the table does not see (a size's time runs from its
// first post), and long enough for the parallel engine to split an nccl
// run: a program that waits for another must start at least a lookahead
// (a link's propagation and a minimum frame, about 1 us on the catalog
// labs) after it, or the run keeps one partition.
const ncclBarrierNs = 10_000

// ncclRun is an nccl variant as the builder laid it out: one program per
// size that moves data, with its layout and closed form, to read the
// simulation back into nccl-tests' table.
type ncclRun struct {
	spec  *runtime.NCCLSpec
	sizes []ncclSize
	// notes say why asked-for sizes have no program (they move nothing).
	notes []string
	// links are what the closed forms charged.
	links collective.Links
}

// ncclSize is one size's program.
type ncclSize struct {
	id        string
	requested int64
	layout    collective.Layout
	est       collective.Estimate
}

// servers are the GPU servers an nccl collective runs on: every host the
// ranks name, in their order, with its GPUs and NICs (GPU g's NIC is NIC
// g when every GPU has its own).
func (b *builder) servers(c *runtime.CollectiveSpec) ([]collective.Server, error) {
	var out []collective.Server
	seen := map[string]bool{}
	for _, ep := range c.Ranks {
		if seen[ep.Host] {
			continue
		}
		seen[ep.Host] = true
		h := b.g.Node(ep.Host)
		if h == nil || h.Role != fabric.RoleHost {
			return nil, exitcode.Usagef("lab %s has no host %s", b.g.Name, ep.Host)
		}
		sv := collective.Server{Host: h.Name, GPUs: h.GPUs}
		for _, p := range h.Ports {
			sv.NICs = append(sv.NICs, h.Name+":"+p.Name)
		}
		out = append(out, sv)
	}
	return out, nil
}

// serverModel is the lab's GPU server (runtime.Lab.ServerModel).
func (b *builder) serverModel() (server.Model, error) {
	m, err := b.l.ServerModel()
	if err != nil {
		return m, exitcode.Usagef("lab %s: %v", b.l.Name, err)
	}
	return m, nil
}

// serverLimits gives every simulated host its scale-up domain and, when
// its NICs' PCIe link is slower than their port, their cap: the link's
// payload rate, which the engine charges their packets' payload against.
// Whether it binds depends on the framing (at MTU 4096 a 200G port
// carries 196.1 Gb/s of RoCE payload, at MTU 256 151.5): a cap that does
// not bind changes nothing.
func (b *builder) serverLimits(cfg *engine.Config) error {
	m, err := b.serverModel()
	if err != nil {
		return err
	}
	for _, n := range cfg.Topology.Nodes {
		h := b.g.Node(n.Name)
		if h == nil || h.Role != fabric.RoleHost {
			continue
		}
		if cfg.ScaleUp == nil {
			cfg.ScaleUp = map[string]engine.ScaleUpDomain{}
		}
		cfg.ScaleUp[h.Name] = engine.ScaleUpDomain{GbpsPerGPU: m.ScaleUpGbpsPerDir, LatencyNs: m.ScaleUpLatencyNs, GPUs: h.GPUs}
		if m.PCIeGbps < m.NICGbps {
			if cfg.NICCapGbps == nil {
				cfg.NICCapGbps = map[string]float64{}
			}
			cfg.NICCapGbps[h.Name] = m.PCIeGbps
		}
	}
	return nil
}

// fabricLatencyNs is the closed forms' one-way latency of a packet from
// NIC src to NIC dst ("host:port") on the idle fabric, beyond its
// serialization at the sender: propagation on every link, its
// serialization (with the transport's overhead bytes) again at every
// switch (store and forward) on the link it leaves by, every switch's mean pipeline jitter, and the receiving NIC's
// processing.
func (b *builder) fabricLatencyNs(overhead int) func(src, dst string) float64 {
	leafOf := map[string]string{}
	for _, h := range b.g.Hosts() {
		for _, p := range h.Ports {
			leafOf[h.Name+":"+p.Name] = p.Peer
		}
	}
	up, super := float64(b.g.NICSpeedGbps), float64(b.g.NICSpeedGbps)
	// Each tier's propagation is its links' cable length as the
	// simulator gives it (b.cableM: a port's cable_length in the configs,
	// else the lab's), the longest of the tier where they differ.
	var hostM, upM, superM int
	for _, lk := range b.g.Links {
		switch lk.Kind {
		case fabric.KindHostLeaf:
			hostM = max(hostM, b.cableM(lk))
		case fabric.KindLeafSpine:
			up = float64(lk.MemberSpeed())
			upM = max(upM, b.cableM(lk))
		case fabric.KindSpineSuperSpine:
			super = float64(lk.MemberSpeed())
			superM = max(superM, b.cableM(lk))
		}
	}
	prop := func(m int) float64 { return float64(m) * qos.CableNsPerMeter }
	frameBits := float64(b.mtu()+overhead) * 8
	nic := float64(b.g.NICSpeedGbps)
	return func(src, dst string) float64 {
		la, lb := leafOf[src], leafOf[dst]
		// Links to the destination's leaf, then down to its NIC.
		var egress []float64
		t := 2 * prop(hostM)
		switch {
		case la == lb:
		case b.pod(la) == b.pod(lb):
			egress = []float64{up, up}
			t += 2 * prop(upM)
		default:
			egress = []float64{up, super, super, up}
			t += 2*prop(upM) + 2*prop(superM)
		}
		egress = append(egress, nic)
		t += engineNICDelayNs
		for _, g := range egress {
			t += frameBits/g + engineMeanJitterNs
		}
		return t
	}
}

func (b *builder) pod(leaf string) int {
	if n := b.g.Node(leaf); n != nil {
		return n.Pod
	}
	return 0
}

// ncclPrograms lays out an nccl variant: one program per size, each
// starting a barrier (ncclBarrierNs) after the one before it completed,
// as nccl-tests runs them.
func (b *builder) ncclPrograms(vs runtime.VariantSpec, c *runtime.CollectiveSpec, cfg *engine.Config) error {
	ns := c.NCCL
	if ns == nil || len(ns.Sizes) == 0 {
		return exitcode.Usagef("variant %s: an nccl collective without sizes", vs.Name)
	}
	svs, err := b.servers(c)
	if err != nil {
		return err
	}
	m, err := b.serverModel()
	if err != nil {
		return err
	}
	run := &ncclRun{spec: ns, links: collective.Links{
		NICGbps: m.NICGbps, PCIeGbps: m.PCIeGbps, MTU: b.mtu(), WireOverheadBytes: engine.WireOverheadFor(cfg.Transport),
		FabricLatencyNs: b.fabricLatencyNs(engine.WireOverheadFor(cfg.Transport)),
		ScaleUpGbps:     m.ScaleUpGbpsPerDir, ScaleUpLatencyNs: float64(m.ScaleUpLatencyNs),
	}}
	prev := ""
	for i, size := range ns.Sizes {
		spec := collective.Spec{Collective: ns.Collective, Algorithm: ns.Algorithm, Channels: ns.Channels, RankOrder: ns.RankOrder, Bytes: size, DataType: ns.DataType, Root: ns.Root, QPsPerConnection: ns.QPsPerConnection}
		laid, err := collective.Lay(svs, spec)
		var empty *collective.EmptyError
		switch {
		case errors.As(err, &empty):
			run.notes = append(run.notes, fmt.Sprintf("size %d B: no row: %v", size, err))
			continue
		case err != nil:
			return exitcode.Usagef("%s of %d B on lab %s: %v", ns.Collective, size, b.g.Name, err)
		}
		est, err := laid.ClosedForm(run.links)
		if err != nil {
			return fmt.Errorf("variant %s: closed form of %s: %w", vs.Name, ns.Collective, err)
		}
		id := fmt.Sprintf("%s-%d", ncclProgramPrefix, i)
		p := laid.Program(id)
		p.DSCP, p.ExplicitDSCP = c.TrafficClass>>2, true
		if prev == "" {
			p.StartNs = int64(c.StartUs * 1000)
		} else {
			p.After, p.StartNs = prev, ncclBarrierNs
		}
		prev = id
		cfg.Programs = append(cfg.Programs, p)
		run.sizes = append(run.sizes, ncclSize{id: id, requested: size, layout: laid.Layout(), est: est})
	}
	if len(run.sizes) == 0 {
		return exitcode.Usagef("no size of %s from %d B to %d B moves data over %d ranks (%s) (fix: raise the traffic's max_bytes)",
			ns.Collective, ns.Sizes[0], ns.Sizes[len(ns.Sizes)-1], len(c.Ranks), strings.Join(run.notes, "; "))
	}
	b.nccl = run
	return nil
}

// ncclTable reads the simulated programs back into nccl-tests' table: a
// row per size that completed, and extra.nccl with the closed forms and
// why sizes have no row.
func (b *builder) ncclTable(res *engine.Result, durationNs int64) (*results.NCCLTable, map[string]any) {
	run := b.nccl
	l0 := run.sizes[0].layout
	t := &results.NCCLTable{
		Collective: l0.Collective, Algorithm: l0.Algorithm, Ranks: l0.Ranks, Channels: l0.MaxChannels, RankOrder: l0.RankOrder,
		DataType: l0.DataType, RedOp: l0.RedOp, Root: l0.Root, Rows: []results.NCCLRow{}, Source: results.Simulated,
	}
	// The bound is the largest size's: it depends on the size only
	// where the size does not divide evenly between ranks, channels and
	// chunks, which weighs least there.
	last := run.sizes[len(run.sizes)-1]
	bound := round3(last.est.BoundBusBWGBps)
	t.BoundBusBWGBps = &bound
	factor, _ := results.BusBWFactor(l0.Collective, l0.Ranks)
	stats := map[string]*engine.ProgramStats{}
	for i := range res.Programs {
		stats[res.Programs[i].ID] = &res.Programs[i]
	}
	notes := append([]string{}, run.notes...)
	var closed []any
	stopped := ""
	for _, sz := range run.sizes {
		closed = append(closed, map[string]any{
			"size_bytes": float64(sz.layout.SizeBytes), "channels": float64(sz.layout.Channels), "time_us": round3(sz.est.TimeNs / 1000),
			"latency_us": round3(sz.est.LatencyNs / 1000), "bandwidth_us": round3(sz.est.BandwidthNs / 1000),
			"busbw_gbyte_s": round3(sz.est.BusBWGBps),
		})
		ps := stats[sz.id]
		switch {
		case ps == nil || ps.StartNs < 0:
			if stopped == "" {
				stopped = "it never started"
			}
			notes = append(notes, fmt.Sprintf("size %d B: no row: %s", sz.layout.SizeBytes, stopped))
			continue
		case ps.TimeNs == nil:
			why := fmt.Sprintf("it did not complete within the duration (%s simulated)", fmtUs(float64(durationNs)/1000))
			if ps.FailedStreams > 0 {
				why = fmt.Sprintf("%d of its fabric streams failed (the QP ran out of retries)", ps.FailedStreams)
			}
			notes = append(notes, fmt.Sprintf("size %d B: no row: %s", sz.layout.SizeBytes, why))
			stopped = fmt.Sprintf("size %d B before it did not complete", sz.layout.SizeBytes)
			continue
		}
		ns := float64(*ps.TimeNs)
		alg := float64(sz.layout.SizeBytes) / ns // bytes per ns is GB/s
		fab := ps.FabricBytes
		spine := int64(0)
		for sw, bytes := range ps.SwitchHopBytes {
			if sw >= ncclSpineSwitchesMin {
				spine += bytes
			}
		}
		t.Rows = append(t.Rows, results.NCCLRow{
			SizeBytes: sz.layout.SizeBytes, Count: sz.layout.Count,
			OutOfPlace:  results.NCCLResult{TimeUs: round3(ns / 1000), AlgBWGBps: round3(alg), BusBWGBps: round3(alg * factor)},
			FabricBytes: &fab, SpineBytes: &spine,
		})
	}
	extra := map[string]any{
		"source":              "simulated packet by packet; closed_form: alpha-beta closed forms over the same transfers (orchestrator/collective)",
		"sizes_planned":       float64(len(run.spec.Sizes)),
		"bound_busbw_gbyte_s": bound,
		"bottleneck":          last.est.Bottleneck,
		"nic_payload_gbps":    run.links.PayloadGbps(),
		"scale_up_gbps":       run.links.ScaleUpGbps,
		"chunk_bytes":         float64(last.layout.ChunkBytes),
		"closed_form":         closed,
	}
	if len(notes) > 0 {
		extra["notes"] = notes
	}
	if len(t.Rows) > 0 {
		// The smallest and largest completed sizes against their closed
		// forms: simulated time over closed-form time.
		for key, r := range map[string]results.NCCLRow{"smallest_over_closed_form": t.Rows[0], "largest_over_closed_form": t.Rows[len(t.Rows)-1]} {
			for _, sz := range run.sizes {
				if sz.layout.SizeBytes == r.SizeBytes && sz.est.TimeNs > 0 {
					extra[key] = round3(r.OutOfPlace.TimeUs * 1000 / sz.est.TimeNs)
					break
				}
			}
		}
	}
	return t, extra
}

func fmtUs(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%gs", math.Round(us/1e3)/1e3)
	case us >= 1e3:
		return fmt.Sprintf("%gms", math.Round(us)/1e3)
	}
	return fmt.Sprintf("%gus", math.Round(us*1e3)/1e3)
}
