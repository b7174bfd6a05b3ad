package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/collective"
	"github.com/labctl/labctl/orchestrator/docblock"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/server"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// ncclSpec is an nccl variant over every GPU of the lab.
func ncclSpec(l *runtime.Lab, ns runtime.NCCLSpec) runtime.VariantSpec {
	c := &runtime.CollectiveSpec{Kind: runtime.CollectiveNCCL, TrafficClass: 106, NCCL: &ns}
	for _, n := range scenario.NICsFromGraph(l.Graph) {
		c.Ranks = append(c.Ranks, n.Endpoint)
	}
	return runtime.VariantSpec{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Seed: 1, DurationUs: 1e6, SeriesEvery: -1, Collective: c}
}

func runNCCL(t *testing.T, l *runtime.Lab, ns runtime.NCCLSpec) *results.Variant {
	t.Helper()
	v := runVariant(t, l, ncclSpec(l, ns))
	if v.NCCL == nil {
		t.Fatalf("no nccl table; extra %v", v.Extra)
	}
	return v
}

func ncclExtra(t *testing.T, v *results.Variant, key string) float64 {
	t.Helper()
	x, _ := v.Extra["nccl"].(map[string]any)
	f, ok := x[key].(float64)
	if !ok {
		t.Fatalf("extra.nccl.%s is %v", key, x[key])
	}
	return f
}

// rail64 is the 64-GPU lab with NIC i of every server on rail leaf i.
const rail64 = `name: rail64
sizing:
  gpus: 64
  gpus_per_server: 8
  nic_speed_gbps: 200
  leaf_ports: 32
  leaf_speed_gbps: 400
  spine_ports: 32
  spine_speed_gbps: 400
  layout: rail
qos:
  profile: roce-dcqcn
`

// What the builder hands the engine: a scale-up domain per server from
// server.Resolve (200G NICs: NVLink 3, 300 GB/s a direction), no NIC cap
// (PCIe 4.0 x16 feeds 230 Gb/s), a program per size chained with After,
// the RoCE DSCP, rail-aligned fabric streams.
func TestNCCLBuilderConfig(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := ncclSpec(l, runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: collective.AlgoRing, RankOrder: collective.OrderNCCL, DataType: "float", Sizes: []int64{8, 1 << 20, 64 << 20}})
	vs.Collective.StartUs = 5
	_, cfg := variantConfig(t, l, vs)
	// The server package decides NVLink 3's latency; its bandwidth is
	// NVIDIA's 600 GB/s both ways: 2400 Gb/s a direction.
	for _, h := range []string{"host1", "host2"} {
		d := cfg.ScaleUp[h]
		if d.GbpsPerGPU != 2400 || d.LatencyNs != server.NVLinkLatencyNs || d.GPUs != 8 {
			t.Fatalf("%s scale-up %+v, want 2400 Gb/s, %d ns, 8 GPUs", h, d, server.NVLinkLatencyNs)
		}
	}
	if len(cfg.NICCapGbps) != 0 {
		t.Fatalf("NIC caps %v on a lab whose NICs PCIe feeds", cfg.NICCapGbps)
	}
	if len(cfg.Programs) != 3 {
		t.Fatalf("%d programs, want one per size", len(cfg.Programs))
	}
	for i, p := range cfg.Programs {
		if p.DSCP != 26 || !p.ExplicitDSCP {
			t.Fatalf("program %d DSCP %d", i, p.DSCP)
		}
		if i == 0 && (p.After != "" || p.StartNs != 5000) || i > 0 && (p.After != cfg.Programs[i-1].ID || p.StartNs != ncclBarrierNs) {
			t.Fatalf("program %d: after %q, start %d", i, p.After, p.StartNs)
		}
		fabricStreams := 0
		for _, st := range p.Streams {
			if st.ScaleUp {
				continue
			}
			fabricStreams++
			_, a, _ := strings.Cut(st.Src, ":")
			_, z, _ := strings.Cut(st.Dst, ":")
			if a != z {
				t.Fatalf("program %d: fabric stream %s -> %s off its rail", i, st.Src, st.Dst)
			}
		}
		// One per server and channel: 8 B runs on one channel, the
		// others on one per NIC.
		want := 16
		if i == 0 {
			want = 2
		}
		if fabricStreams != want {
			t.Fatalf("program %d: %d fabric streams, want %d", i, fabricStreams, want)
		}
	}
}

// The scenario's qps_per_connection reaches the programs: every fabric
// connection (8 B: one channel, so 2 servers x 1; 64 MiB: 2 x 8) becomes
// that many QPs taking its messages (a ring's 30 steps at least) round
// robin.
func TestNCCLBuilderQPsPerConnection(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := ncclSpec(l, runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: collective.AlgoRing, RankOrder: collective.OrderNCCL, DataType: "float",
		QPsPerConnection: 4, Sizes: []int64{8, 64 << 20}})
	_, cfg := variantConfig(t, l, vs)
	for i, want := range []int{2 * 4, 16 * 4} {
		fabric, strided := 0, 0
		for _, st := range cfg.Programs[i].Streams {
			if !st.ScaleUp {
				fabric++
				if st.Stride == 4 {
					strided++
				}
			}
		}
		if fabric != want || strided != want {
			t.Fatalf("size %d: %d fabric streams (%d of stride 4), want %d", i, fabric, strided, want)
		}
	}
}

// 2 servers of 8 GPUs: the ring's 256 MiB reaches the bound (8 NICs x
// 200 Gb/s x 4096/4178), its 8 B is the latency the closed form gives, the
// fabric carries exactly the rail-aligned streams' bytes and nothing
// crosses a spine (one leaf).
func TestNCCLRingReachesBound16(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	v := runNCCL(t, l, runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: "ring", RankOrder: "nccl", DataType: "float", Sizes: []int64{8, 256 << 20}})
	tb := v.NCCL
	bound := 8 * 200 * 4096.0 / 4178 / 8
	if tb.BoundBusBWGBps == nil || math.Abs(*tb.BoundBusBWGBps-bound) > 0.001 {
		t.Fatalf("bound %v, want %.3f", tb.BoundBusBWGBps, bound)
	}
	if len(tb.Rows) != 2 || tb.Ranks != 16 || tb.Channels != 8 || tb.Source != results.Simulated || tb.RedOp != "sum" || tb.Root != -1 || tb.DataType != "float" {
		t.Fatalf("table %+v", tb)
	}
	big := tb.Rows[1]
	if big.OutOfPlace.BusBWGBps < 0.95*bound || big.OutOfPlace.BusBWGBps > bound {
		t.Fatalf("256 MiB busbw %.3f, want within 5%% below %.3f", big.OutOfPlace.BusBWGBps, bound)
	}
	// busbw = size / time x 2(N-1)/N.
	if want := float64(256<<20) / (big.OutOfPlace.TimeUs * 1000) * 30 / 16; math.Abs(big.OutOfPlace.BusBWGBps-want) > 0.01 {
		t.Fatalf("busbw %.3f, want size/time x 2(N-1)/N = %.3f", big.OutOfPlace.BusBWGBps, want)
	}
	// 16 fabric streams (8 channels x 2 servers) x 30 steps x 2 MiB.
	if *big.FabricBytes != 16*30*(2<<20) || *big.SpineBytes != 0 {
		t.Fatalf("fabric %d B, spine %d B", *big.FabricBytes, *big.SpineBytes)
	}
	if r := ncclExtra(t, v, "smallest_over_closed_form"); r < 0.9 || r > 1.1 {
		t.Fatalf("8 B took %.3f of its closed-form time", r)
	}
	if r := ncclExtra(t, v, "largest_over_closed_form"); r < 0.95 || r > 1.05 {
		t.Fatalf("256 MiB took %.3f of its closed-form time", r)
	}
	if v.Summary.Drops != 0 || tb.Rows[0].OutOfPlace.Wrong != nil || tb.Rows[0].InPlace != nil {
		t.Fatalf("drops %d, row %+v", v.Summary.Drops, tb.Rows[0])
	}
}

// NCCL's double binary tree on 2 servers: 16 channels, each NIC one
// channel of each tree; with NCCL's 8-slot buffers the largest size
// reaches the bound the scale-up chains set.
func TestNCCLTreeReachesBound16(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1 GiB all-reduce")
	}
	l := upLab(t, "16gpu", "sonic")
	v := runNCCL(t, l, runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: "tree", RankOrder: "nccl", DataType: "float", Sizes: []int64{1 << 30}})
	tb := v.NCCL
	if tb.Channels != 16 || *tb.BoundBusBWGBps != 321.429 {
		t.Fatalf("%d channels, bound %v", tb.Channels, *tb.BoundBusBWGBps)
	}
	if bw := tb.Rows[0].OutOfPlace.BusBWGBps; bw < 0.95*321.429 || bw > 321.429 {
		t.Fatalf("tree busbw %.3f of the bound 321.429", bw)
	}
	// Each channel's data goes up once and down once between the two
	// servers: 2 x 1 GiB.
	if *tb.Rows[0].FabricBytes != 2<<30 {
		t.Fatalf("fabric bytes %d, want 2 GiB", *tb.Rows[0].FabricBytes)
	}
}

// The rail layout keeps rail-aligned rings under their rail leaves; the
// ToR layout sends the hops between leaves through the spines; naive
// rank order puts every hop on the fabric and across rails.
func TestNCCLRailToRNaive64(t *testing.T) {
	if testing.Short() {
		t.Skip("three 64-GPU all-reduces")
	}
	ring := runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: "ring", RankOrder: "nccl", DataType: "float", Sizes: []int64{64 << 20}}
	naive := ring
	naive.RankOrder = collective.OrderNaive
	rows := map[string]results.NCCLRow{}
	var bounds []float64
	for name, c := range map[string]struct {
		lab *runtime.Lab
		ns  runtime.NCCLSpec
	}{
		"tor":   {upLab(t, "64gpu", "sonic"), ring},
		"rail":  {upSpec(t, rail64, "sonic"), ring},
		"naive": {upLab(t, "64gpu", "sonic"), naive},
	} {
		v := runNCCL(t, c.lab, c.ns)
		rows[name] = v.NCCL.Rows[0]
		bounds = append(bounds, *v.NCCL.BoundBusBWGBps)
		if v.Summary.Drops != 0 {
			t.Fatalf("%s: %d drops with PFC", name, v.Summary.Drops)
		}
	}
	tor, rail, nv := rows["tor"], rows["rail"], rows["naive"]
	if *rail.SpineBytes != 0 {
		t.Fatalf("rail: %d B crossed the spines", *rail.SpineBytes)
	}
	// ToR: servers 1-4 on leaf 1, 5-8 on leaf 2: 2 of every ring's 8
	// fabric hops cross.
	if got := float64(*tor.SpineBytes) / float64(*tor.FabricBytes); math.Abs(got-0.25) > 0.01 {
		t.Fatalf("tor: %.3f of the fabric bytes crossed the spines, want 2/8", got)
	}
	if *rail.FabricBytes != *tor.FabricBytes {
		t.Fatalf("the same rings moved %d B on rails and %d B on ToR", *rail.FabricBytes, *tor.FabricBytes)
	}
	// Naive: all 64 hops of a ring on the fabric instead of 8.
	if *nv.FabricBytes != 8**tor.FabricBytes || *nv.SpineBytes < 8**tor.SpineBytes {
		t.Fatalf("naive: fabric %d B spine %d B; nccl order fabric %d spine %d", *nv.FabricBytes, *nv.SpineBytes, *tor.FabricBytes, *tor.SpineBytes)
	}
	for name, r := range map[string]results.NCCLRow{"tor": tor, "rail": rail} {
		if r.OutOfPlace.BusBWGBps < 0.95*bounds[0] {
			t.Fatalf("%s: busbw %.3f below 95%% of %.3f", name, r.OutOfPlace.BusBWGBps, bounds[0])
		}
	}
	// Every GPU's NIC carries all 8 channels: one NIC's rate.
	if bw := nv.OutOfPlace.BusBWGBps; bw > 200*4096.0/4178/8 || bw < 0.9*200*4096.0/4178/8 {
		t.Fatalf("naive busbw %.3f, want about one NIC's 24.5", bw)
	}
}

// A 200G NIC on a PCIe 3.0 x16 link (8 GT/s x 16, less line code and
// headers: server.PCIeGbps) is PCIe-bound: the engine caps it and the
// bound follows. PCIe carries the payload, not the packets' headers: the
// bound is 8 channels x PCIe's payload rate, not that rate less RoCE's
// 82 bytes a packet.
func TestNCCLPCIeBound(t *testing.T) {
	l := upSpec(t, `name: slow
sizing:
  gpus: 16
  gpus_per_server: 8
  nic_speed_gbps: 200
  leaf_ports: 32
  leaf_speed_gbps: 400
  spine_ports: 32
  spine_speed_gbps: 400
server:
  pcie_gen: 3
qos:
  profile: roce-dcqcn
`, "sonic")
	v := runNCCL(t, l, runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: "ring", RankOrder: "nccl", DataType: "float", Sizes: []int64{64 << 20}})
	pcie := server.PCIeGbps(3, 16)
	if pcie >= 150 || pcie < 100 {
		t.Fatalf("PCIe 3.0 x16 carries %.1f Gb/s: not the PCIe-bound case this test needs", pcie)
	}
	bound := 8 * pcie / 8
	if math.Abs(*v.NCCL.BoundBusBWGBps-bound) > 0.001 || ncclExtra(t, v, "nic_payload_gbps") != pcie {
		t.Fatalf("bound %.3f, want %.3f", *v.NCCL.BoundBusBWGBps, bound)
	}
	if bw := v.NCCL.Rows[0].OutOfPlace.BusBWGBps; bw > bound || bw < 0.95*bound {
		t.Fatalf("busbw %.3f, want within 5%% below %.3f", bw, bound)
	}
}

// A size that does not finish within the duration has no row, and the
// record says why; the sizes after it never start.
func TestNCCLIncompleteSizes(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := ncclSpec(l, runtime.NCCLSpec{Collective: results.CollAllGather, Algorithm: "ring", RankOrder: "nccl", DataType: "float", Sizes: []int64{8, 1 << 20, 64 << 20, 128 << 20}})
	vs.DurationUs = 200
	v := runVariant(t, l, vs)
	tb := v.NCCL
	// 8 B moves nothing over 16 ranks; 1 MiB completes; 64 MiB does not.
	if len(tb.Rows) != 1 || tb.Rows[0].SizeBytes != 1<<20 {
		t.Fatalf("rows %+v", tb.Rows)
	}
	x := v.Extra["nccl"].(map[string]any)
	notes := strings.Join(x["notes"].([]string), "\n")
	for _, want := range []string{"size 8 B: no row", "moves 0 B", "size 67108864 B: no row: it did not complete within the duration (200us simulated)", "size 134217728 B: no row: size 67108864 B before it did not complete"} {
		if !strings.Contains(notes, want) {
			t.Fatalf("notes %q lack %q", notes, want)
		}
	}
	if x["sizes_planned"].(float64) != 4 {
		t.Fatalf("sizes_planned %v", x["sizes_planned"])
	}
}

// The flow-level model cannot run nccl collectives and says so.
func TestNCCLFlowModelRefused(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := ncclSpec(l, runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: "ring", RankOrder: "nccl", DataType: "float", Sizes: []int64{8}})
	vs.Model = runtime.ModelFlow
	_, err := New().RunVariant(context.Background(), l, vs)
	if err == nil || !strings.Contains(err.Error(), "use --model packet") {
		t.Fatalf("flow model: %v", err)
	}
}

// All-to-all with PXN on 2 servers: every fabric byte stays on its rail
// (one leaf here), and the busbw nears the bound: (N-1)/N x 2 x a NIC.
func TestNCCLAllToAll16(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	v := runNCCL(t, l, runtime.NCCLSpec{Collective: results.CollAllToAll, Algorithm: "ring", RankOrder: "nccl", DataType: "float", Sizes: []int64{64 << 20}})
	bound := 15.0 / 16 * 2 * 200 * 4096 / 4178 / 8
	r := v.NCCL.Rows[0]
	if math.Abs(*v.NCCL.BoundBusBWGBps-bound) > 0.001 || r.OutOfPlace.BusBWGBps > bound || r.OutOfPlace.BusBWGBps < 0.9*bound {
		t.Fatalf("busbw %.3f, bound %.3f, want within 10%% of %.3f", r.OutOfPlace.BusBWGBps, *v.NCCL.BoundBusBWGBps, bound)
	}
	// Half of every rank's buffer goes to the other server.
	if *r.FabricBytes != 64<<20/2*16 {
		t.Fatalf("fabric bytes %d", *r.FabricBytes)
	}
}

// tor32 is four 8-GPU servers under one leaf: no ECMP anywhere.
const tor32 = `name: tor32
sizing:
  gpus: 32
  gpus_per_server: 8
  nic_speed_gbps: 200
  leaf_ports: 32
  leaf_speed_gbps: 400
  spine_ports: 32
  spine_speed_gbps: 400
qos:
  profile: roce-dcqcn
`

// An all-to-all's ranks take their peers in NCCL's p2p order (rank i's
// k-th peer is i+k), so no NIC is every rank's first destination. With
// PXN, every receiving NIC gets from its rail's three other NICs at 1/3
// of a NIC each: on one leaf nothing queues up to Kmin, nothing pauses,
// and 64 MiB nears the bound. Laid out with every rank's peers in rank
// order, every relay forwarded first to server 1's GPUs: 812 pauses, 6824
// marks and 0.961 of the bound.
func TestNCCLAllToAllPeerOrder32(t *testing.T) {
	l := upSpec(t, tor32, "sonic")
	v := runNCCL(t, l, runtime.NCCLSpec{Collective: results.CollAllToAll, Algorithm: "ring", RankOrder: "nccl", DataType: "float", Sizes: []int64{64 << 20}})
	r := v.NCCL.Rows[0]
	if v.Summary.PFCPauseFrames != 0 || v.Summary.ECNMarked != 0 || r.OutOfPlace.BusBWGBps < 0.98**v.NCCL.BoundBusBWGBps {
		t.Fatalf("%d pauses, %d marks, busbw %.3f of bound %.3f: want none, none and 98%%", v.Summary.PFCPauseFrames, v.Summary.ECNMarked, r.OutOfPlace.BusBWGBps, *v.NCCL.BoundBusBWGBps)
	}
}

// The collectives against their closed forms, as docs/fidelity.md shows
// them (block "nccl-closed-forms"): every row simulated packet by packet on
// a catalog lab (or the 64-GPU lab in the rail layout), beside the
// alpha-beta closed form of the same transfers and the bound.
//
//	go test ./orchestrator/runtime/sim -run TestNCCLClosedFormsPage -update
func TestNCCLClosedFormsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a dozen collectives")
	}
	labs := map[string]*runtime.Lab{"16gpu": upLab(t, "16gpu", "sonic"), "64gpu": upLab(t, "64gpu", "sonic"), "64gpu rail": upSpec(t, rail64, "sonic")}
	type row struct {
		lab        string
		coll, algo string
		order      string
		sizes      []int64
	}
	var b strings.Builder
	b.WriteString("| lab | collective | size | closed form, µs (latency, bandwidth term) | simulated, µs | simulated / closed form | busbw, GB/s | bound, GB/s (link) | busbw / bound | spine bytes |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range []row{
		{"16gpu", results.CollAllReduce, "ring", "nccl", []int64{8, 1 << 20, 256 << 20}},
		{"16gpu", results.CollAllReduce, "tree", "nccl", []int64{8, 1 << 20, 1 << 30}},
		{"16gpu", results.CollAllGather, "ring", "nccl", []int64{64 << 20}},
		{"16gpu", results.CollReduceScatter, "ring", "nccl", []int64{64 << 20}},
		{"16gpu", results.CollBroadcast, "ring", "nccl", []int64{64 << 20}},
		{"16gpu", results.CollAllToAll, "ring", "nccl", []int64{64 << 20}},
		{"16gpu", results.CollSendRecv, "ring", "nccl", []int64{64 << 20}},
		{"64gpu", results.CollAllReduce, "ring", "nccl", []int64{8, 256 << 20}},
		{"64gpu rail", results.CollAllReduce, "ring", "nccl", []int64{256 << 20}},
		{"64gpu", results.CollAllReduce, "ring", "naive", []int64{64 << 20}},
		{"64gpu", results.CollAllReduce, "tree", "nccl", []int64{256 << 20}},
		{"64gpu", results.CollAllToAll, "ring", "nccl", []int64{64 << 20}},
		{"64gpu rail", results.CollAllToAll, "ring", "nccl", []int64{64 << 20}},
		{"64gpu rail", results.CollAllToAll, "ring", "naive", []int64{64 << 20}},
	} {
		v := runNCCL(t, labs[r.lab], runtime.NCCLSpec{Collective: r.coll, Algorithm: r.algo, RankOrder: r.order, DataType: "float", Sizes: r.sizes})
		tb := v.NCCL
		x := v.Extra["nccl"].(map[string]any)
		closed := x["closed_form"].([]any)
		if len(tb.Rows) != len(r.sizes) {
			t.Fatalf("%s %s: %d rows of %d sizes: %v", r.lab, r.coll, len(tb.Rows), len(r.sizes), x["notes"])
		}
		name := r.coll
		if r.coll == results.CollAllReduce {
			name += " " + r.algo
		}
		if r.order != collective.OrderNCCL {
			name += ", " + r.order + " order"
		}
		for i, row := range tb.Rows {
			c := closed[i].(map[string]any)
			bus := row.OutOfPlace.BusBWGBps
			if bus > *tb.BoundBusBWGBps*1.001 {
				t.Errorf("%s %s %d B: busbw %.3f beats the bound %.3f", r.lab, name, row.SizeBytes, bus, *tb.BoundBusBWGBps)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %.1f (%.1f, %.1f) | %.1f | %.3f | %.2f | %.2f (%s) | %.3f | %.0f%% |\n",
				r.lab, name, fmtSize(row.SizeBytes), c["time_us"], c["latency_us"], c["bandwidth_us"], row.OutOfPlace.TimeUs,
				row.OutOfPlace.TimeUs/c["time_us"].(float64), bus, *tb.BoundBusBWGBps, x["bottleneck"], bus / *tb.BoundBusBWGBps,
				100*float64(*row.SpineBytes)/float64(max(*row.FabricBytes, 1)))
		}
	}
	docblock.Check(t, "../../../docs/fidelity.md", map[string]string{"nccl-closed-forms": b.String()}, *updateFidelity,
		"go test ./orchestrator/runtime/sim -run TestNCCLClosedFormsPage -update")
}

func fmtSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// The closed forms' fabric latency takes each tier's cable length as the
// simulator does (b.cableM): a port's cable length in the configs counts,
// not only the lab's default.
func TestNCCLFabricLatencyCables(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	b := variantBuilder(t, l, ncclSpec(l, runtime.NCCLSpec{Collective: results.CollAllReduce, Sizes: []int64{8}}))
	// Two NICs on different leaves: the path crosses a spine.
	var src, dst, srcLeaf string
	for _, h := range l.Graph.Hosts() {
		for _, p := range h.Ports {
			switch {
			case src == "":
				src, srcLeaf = h.Name+":"+p.Name, p.Peer
			case dst == "" && p.Peer != srcLeaf:
				dst = h.Name + ":" + p.Name
			}
		}
	}
	if dst == "" {
		t.Fatal("no NIC on another leaf")
	}
	before := b.fabricLatencyNs(engine.WireOverheadBytes)(src, dst)
	var lk *fabric.Link
	for _, x := range b.g.Links {
		if x.Kind == fabric.KindLeafSpine {
			lk = x
			break
		}
	}
	// The lab's link is 105 m (both ends know it); what the configs'
	// CABLE_LENGTH says sizes headroom, not the fibre.
	for _, end := range []fabric.LinkEnd{lk.A, lk.B} {
		pc := b.cfgs[end.Node].Port(end.Port)
		if pc == nil {
			t.Fatalf("no port config for %s:%s", end.Node, end.Port)
		}
		pc.LinkCableM = 105
		pc.CableM = 5
	}
	after := b.fabricLatencyNs(engine.WireOverheadBytes)(src, dst)
	// Two leaf-spine links on the path, each 100 m longer.
	if want := before + 2*100*qos.CableNsPerMeter; math.Abs(after-want) > 1e-6 {
		t.Fatalf("latency %v ns with a 105 m uplink, want %v (%v before)", after, want, before)
	}
}

// variantBuilder is the simulator's builder for variant vs of lab l: the
// variant's switch configs resolved, with the lab's intent.
func variantBuilder(t *testing.T, l *runtime.Lab, vs runtime.VariantSpec) *builder {
	t.Helper()
	_, cfgs, err := runtime.VariantConfigs(l, vs)
	if err != nil {
		t.Fatal(err)
	}
	in, err := l.Intent()
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBuilder(l, cfgs, in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// variantConfig is the engine config variantBuilder's builder makes for vs,
// with the builder.
func variantConfig(t *testing.T, l *runtime.Lab, vs runtime.VariantSpec) (*builder, *engine.Config) {
	t.Helper()
	b := variantBuilder(t, l, vs)
	cfg, err := b.config(vs)
	if err != nil {
		t.Fatal(err)
	}
	return b, cfg
}

// one4 is four servers of one GPU under one leaf: every transfer of a
// collective is one fabric stream.
const one4 = `name: one4
sizing:
  gpus: 4
  gpus_per_server: 1
  nic_speed_gbps: 200
  leaf_ports: 32
  leaf_speed_gbps: 400
  spine_ports: 32
  spine_speed_gbps: 400
qos:
  profile: roce-dcqcn
`

// A simulated all-reduce delivers exactly the bytes NCCL moves, for
// sizes that do not divide by the ranks: 2(N-1) x the size, every chunk
// its own size (a ring of 5 B over 4 ranks sends chunks of 2, 1, 1 and 1
// B, not 4 x 2 B), up and down the tree's N-1 edges likewise.
func TestNCCLAllReduceExactBytes(t *testing.T) {
	l := upSpec(t, one4, "sonic")
	for _, algo := range []string{"ring", "tree"} {
		sizes := []int64{5, 1000003}
		v := runNCCL(t, l, runtime.NCCLSpec{Collective: results.CollAllReduce, Algorithm: algo, RankOrder: "nccl", DataType: "int8", Sizes: sizes})
		if len(v.NCCL.Rows) != len(sizes) {
			t.Fatalf("%s: %d rows of %d sizes", algo, len(v.NCCL.Rows), len(sizes))
		}
		for i, r := range v.NCCL.Rows {
			if want := 2 * 3 * sizes[i]; r.SizeBytes != sizes[i] || *r.FabricBytes != want {
				t.Errorf("%s of %d B: %d fabric bytes, want 2(N-1) x %d = %d", algo, r.SizeBytes, *r.FabricBytes, sizes[i], want)
			}
		}
	}
}
