package sim

import (
	"math"
	"strings"
	"testing"

	engine "github.com/labctl/labctl/orchestrator/sim"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/transport"
)

// ibVariant is a variant of sc on l run on InfiniBand with st's
// settings (nil: the defaults).
func ibVariant(t *testing.T, l *runtime.Lab, sc string, spec *transport.IBSpec) runtime.VariantSpec {
	t.Helper()
	s, err := scenario.Parse("t.yaml", []byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: "ib", ECN: true, PFC: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := transport.Resolve(transport.InfiniBand, []*transport.IBSpec{spec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vs.Transport = st
	return vs
}

// An 8:1 incast on 64gpu over InfiniBand: no drop, no PAUSE, the
// receiver at the line rate of IB's framing, the vendor QoS gone from
// the simulation, and the perfquery counters in the record.
func TestInfiniBandIncast64(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	vs := ibVariant(t, l, "name: t\nduration: 1ms\nwarmup: 200us\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 8\n", nil)
	cfg, err := variantBuilder(t, l, vs).config(vs)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Transport != engine.TransportInfiniBand || cfg.QoS != nil || cfg.DCQCNEnabled || cfg.IB.Routing != "ftree" || cfg.IB.VLs != 4 {
		t.Errorf("engine config: transport %q, QoS %d ports, DCQCN %v, IB %+v", cfg.Transport, len(cfg.QoS), cfg.DCQCNEnabled, cfg.IB)
	}
	for _, n := range cfg.Topology.Nodes {
		if len(n.Pools) > 0 {
			t.Errorf("%s keeps its vendor buffer pools on InfiniBand", n.Name)
		}
	}
	v := runVariant(t, l, vs)
	if v.Summary.Drops != 0 || v.Summary.PFCPauseFrames != 0 || v.Summary.Retransmits != 0 {
		t.Errorf("drops %d, pause frames %d, retransmits %d: want none on InfiniBand", v.Summary.Drops, v.Summary.PFCPauseFrames, v.Summary.Retransmits)
	}
	line := 200 * 4096.0 / (4096 + engine.IBWireOverheadBytes)
	if got := v.Summary.ThroughputGbpsTotal; math.Abs(got-line) > 0.01*line {
		t.Errorf("receiver %.2f Gb/s, want %.2f (±1%%)", got, line)
	}
	if v.Params["transport"] != "infiniband" || v.Transport == nil || v.Transport.InfiniBand == nil {
		t.Errorf("transport not recorded: params %v, transport %+v", v.Params["transport"], v.Transport)
	}
	var wait, rcv int64
	for _, p := range v.InfiniBand {
		wait += p.PortXmitWait
		if strings.HasPrefix(p.Node, "host") || strings.Contains(p.Port, "eth") {
			rcv += p.PortRcvData
		}
	}
	if len(v.InfiniBand) == 0 || wait == 0 || rcv == 0 {
		t.Errorf("perfquery counters: %d ports, PortXmitWait %d, PortRcvData %d at HCAs: want some of each", len(v.InfiniBand), wait, rcv)
	}
	// The same variant on RoCE records no InfiniBand counters.
	vs.Transport = transport.Settings{Name: transport.RoCE}
	if r := runVariant(t, l, vs); r.InfiniBand != nil || r.Transport != nil {
		t.Error("a RoCE variant carries InfiniBand counters or a transport")
	}
}

// ftree on 64gpu: every leaf up-port carries the same number of
// destination LIDs (the other leaf's 32 over its up-links), and 32 flows
// from one leaf's NICs to the other's run at line rate, where flow
// hashing collides (lb-compare's ECMP case).
func TestInfiniBandFtree64(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	vs := ibVariant(t, l, "name: t\nduration: 300us\nwarmup: 100us\nsample_every: 0\ntraffic:\n  - pattern: pairs\n    pairs: 32\n", nil)
	cfg, err := variantBuilder(t, l, vs).config(vs)
	if err != nil {
		t.Fatal(err)
	}
	lids, err := engine.IBLIDsPerPort(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	perLeaf := map[string][]int{}
	for ref, n := range lids {
		if strings.HasPrefix(ref.Node, "leaf") {
			perLeaf[ref.Node] = append(perLeaf[ref.Node], n)
		}
	}
	if len(perLeaf) != 2 {
		t.Fatalf("up-ports of %d leaves routed, want 2: %v", len(perLeaf), lids)
	}
	for leaf, counts := range perLeaf {
		sum := 0
		for _, c := range counts {
			sum += c
			if c != counts[0] {
				t.Errorf("%s: up-ports carry %v destination LIDs, want the same number each", leaf, counts)
				break
			}
		}
		if sum != 32 {
			t.Errorf("%s: %d destination LIDs over its up-ports, want the other leaf's 32", leaf, sum)
		}
	}
	v := runVariant(t, l, vs)
	line := 200 * 4096.0 / (4096 + engine.IBWireOverheadBytes)
	if len(v.Flows) != 32 {
		t.Fatalf("%d flows", len(v.Flows))
	}
	for _, f := range v.Flows {
		if f.ThroughputGbps < 0.98*line {
			t.Errorf("%s: %.2f Gb/s, want line rate %.2f: ftree gives each destination its own up-link share", f.ID, f.ThroughputGbps, line)
		}
	}
}

// A PFC storm cannot be asked of an InfiniBand fabric.
func TestInfiniBandRefusesPFCStorm(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := ibVariant(t, l, "name: t\nduration: 100us\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 2\nfaults:\n  - kind: pfc-storm\n    nic: host1:0\n    at: 10us\n", nil)
	_, err := New().RunVariant(t.Context(), l, vs)
	if err == nil || !strings.Contains(err.Error(), "no PFC") {
		t.Errorf("got %v, want the storm refused", err)
	}
}

// A lab whose own transport is InfiniBand (no vendor configs at all),
// with IB congestion control on: an incast marks FECN at the receiver's
// switch port and the sources hear BECNs, and still nothing drops.
func TestInfiniBandLabWithCC(t *testing.T) {
	l := upSpec(t, `name: iblab
sizing:
  gpus: 16
  gpus_per_server: 8
  nic_speed_gbps: 200
  leaf_ports: 32
  leaf_speed_gbps: 400
  spine_ports: 32
  spine_speed_gbps: 400
transport: infiniband
infiniband:
  routing: updn
  cc:
    enabled: true
`, "sonic")
	vs := incast8(t, l, "duration: 1ms", true, true)
	v := runVariant(t, l, vs)
	if v.Transport == nil || v.Transport.InfiniBand == nil || v.Transport.InfiniBand.Routing != "updn" || !v.Transport.InfiniBand.CC.Enabled {
		t.Fatalf("the lab's InfiniBand settings are not what ran: %+v", v.Transport)
	}
	var marked, becn int64
	for _, p := range v.InfiniBand {
		marked += p.SWPortVLCongestion
		becn += p.PortPktRcvBECN
	}
	if marked == 0 || becn == 0 || v.Summary.ECNMarked != marked || v.Summary.CNP == 0 {
		t.Errorf("FECN marked %d, BECNs %d, summary ecn_marked %d cnp %d: want marks answered by BECNs, counted in the summary", marked, becn, v.Summary.ECNMarked, v.Summary.CNP)
	}
	if v.Summary.Drops != 0 || v.Summary.PFCPauseFrames != 0 {
		t.Errorf("drops %d, pauses %d", v.Summary.Drops, v.Summary.PFCPauseFrames)
	}
	// ecn=off is the transport's congestion signal off: no FECN marks,
	// no BECNs, whatever the section says.
	off := runVariant(t, l, incast8(t, l, "duration: 1ms", false, true))
	marked, becn = 0, 0
	for _, p := range off.InfiniBand {
		marked += p.SWPortVLCongestion
		becn += p.PortPktRcvBECN
	}
	if marked != 0 || becn != 0 || off.Summary.ECNMarked != 0 || off.Summary.CNP != 0 {
		t.Errorf("ecn=off: FECN marked %d, BECNs %d, summary ecn_marked %d cnp %d: want none", marked, becn, off.Summary.ECNMarked, off.Summary.CNP)
	}
}

// A link fault on InfiniBand: the subnet manager reroutes every switch
// at once, so a fault without a convergence delay of its own converges
// when its ends detect it; nothing is lost to congestion.
func TestInfiniBandLinkFailure(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	vs := ibVariant(t, l, "name: t\nduration: 3ms\nsample_every: 0\ntraffic:\n  - pattern: pairs\n    pairs: 8\nfaults:\n  - kind: link-down\n    link: leaf1-spine1\n    at: 1ms\n", nil)
	cfg, err := variantBuilder(t, l, vs).config(vs)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Faults) == 0 {
		t.Fatal("no fault in the engine's config")
	}
	for _, f := range cfg.Faults {
		want := f.DetectNs
		if want == 0 {
			want = engine.DefaultDetectNs
		}
		if f.ConvergeNs != want {
			t.Errorf("fault on %s: convergence %d ns, want the detection delay %d ns (the SM reroutes every switch at once)", f.Link, f.ConvergeNs, want)
		}
	}
	v := runVariant(t, l, vs)
	for _, f := range v.Flows {
		if f.ThroughputGbps == 0 {
			t.Errorf("%s stopped after the fault", f.ID)
		}
	}
	if v.Summary.PFCPauseFrames != 0 {
		t.Errorf("%d pause frames", v.Summary.PFCPauseFrames)
	}
}
