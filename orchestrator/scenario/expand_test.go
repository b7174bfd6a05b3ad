package scenario

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/transport"
)

func mustParse(t *testing.T, y string) *Spec {
	t.Helper()
	s, err := Parse("t.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func leafOf(nics []NIC, host string) string {
	for _, n := range nics {
		if n.Host == host {
			return n.Leaf
		}
	}
	return ""
}

func TestExpandIncastVictim(t *testing.T) {
	for _, tc := range []struct {
		name   string
		nics   []NIC
		leaves int
	}{{"one leaf", labNICs(1, 2, 8), 1}, {"two leaves", labNICs(2, 4, 8), 2}} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, "name: x\ntraffic:\n  - pattern: incast\n    senders: 8\n    victim: true\n")
			vs, err := s.Expand(tc.nics, s.Points()[0], 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs.Flows) != 9 {
				t.Fatalf("%d flows", len(vs.Flows))
			}
			recv := vs.Flows[0].Dst
			var senders []string
			for _, f := range vs.Flows[:8] {
				if f.Dst != recv || f.Role != "incast" {
					t.Errorf("incast flow %+v", f)
				}
				if f.Src.Host == recv.Host {
					t.Errorf("sender %v on the receiver's host", f.Src)
				}
				if tc.leaves > 1 && leafOf(tc.nics, f.Src.Host) == leafOf(tc.nics, recv.Host) {
					t.Errorf("sender %v on the receiver's leaf", f.Src)
				}
				senders = append(senders, f.Src.Host)
			}
			if tc.leaves > 1 {
				// Spread over hosts: 8 senders from 4 hosts, 2 each.
				slices.Sort(senders)
				if len(slices.Compact(senders)) != 4 {
					t.Errorf("senders not spread over hosts: %v", senders)
				}
			}
			v := vs.Flows[8]
			if v.Role != "victim" || v.Src != vs.Flows[0].Src || v.Dst == recv {
				t.Errorf("victim %+v", v)
			}
			if leafOf(tc.nics, v.Dst.Host) != leafOf(tc.nics, recv.Host) {
				t.Errorf("victim receiver %v is not on the incast receiver's leaf", v.Dst)
			}
		})
	}
}

func TestExpandTooBig(t *testing.T) {
	s := mustParse(t, "name: x\ntraffic:\n  - pattern: incast\n    senders: 20\n")
	_, err := s.Expand(labNICs(1, 2, 8), s.Points()[0], 1)
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "lower senders") {
		t.Errorf("err = %v", err)
	}
}

func TestExpandPairsCrossLeaf(t *testing.T) {
	nics := labNICs(2, 2, 8)
	s := mustParse(t, "name: x\ntraffic:\n  - pattern: pairs\n    pairs: 4\n    bytes: 1MiB\n    qps: 2\n")
	vs, err := s.Expand(nics, s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range vs.Flows {
		if leafOf(nics, f.Src.Host) == leafOf(nics, f.Dst.Host) {
			t.Errorf("pair %s stays under one leaf", f.ID)
		}
		if f.Bytes != 1<<20 || f.QPs != 2 || f.TrafficClass != 106 {
			t.Errorf("flow params %+v", f)
		}
	}
	one := mustParse(t, "name: x\ntraffic:\n  - pattern: pairs\n")
	vs, _ = one.Expand(labNICs(1, 2, 8), one.Points()[0], 1)
	if len(vs.Flows) != 1 || vs.Flows[0].Src.Host == vs.Flows[0].Dst.Host {
		t.Errorf("single pair %+v", vs.Flows)
	}
}

func TestExpandPermutation(t *testing.T) {
	nics := labNICs(4, 2, 4)
	s := mustParse(t, "name: x\ntraffic:\n  - pattern: permutation\n")
	a, _ := s.Expand(nics, s.Points()[0], 1)
	b, _ := s.Expand(nics, s.Points()[0], 1)
	c, _ := s.Expand(nics, s.Points()[0], 2)
	ids := func(fl []string) string { return strings.Join(fl, ",") }
	var fa, fb, fc []string
	dsts := map[NIC]int{}
	for i := range a.Flows {
		fa, fb, fc = append(fa, a.Flows[i].ID), append(fb, b.Flows[i].ID), append(fc, c.Flows[i].ID)
		f := a.Flows[i]
		if leafOf(nics, f.Src.Host) == leafOf(nics, f.Dst.Host) {
			t.Errorf("permutation flow %s stays under one leaf", f.ID)
		}
		dsts[NIC{Endpoint: f.Dst}]++
	}
	if len(a.Flows) != len(nics) || len(dsts) != len(nics) {
		t.Errorf("not a permutation: %d flows, %d receivers", len(a.Flows), len(dsts))
	}
	if ids(fa) != ids(fb) {
		t.Error("same seed, different permutation")
	}
	if ids(fa) == ids(fc) {
		t.Error("different seeds, same permutation")
	}
}

func TestExpandAllToAllAndRing(t *testing.T) {
	nics := labNICs(2, 1, 8)
	s := mustParse(t, "name: x\ntraffic:\n  - pattern: all-to-all\n    ranks: 4\n  - pattern: ring-allreduce\n    ranks: 16\n    bytes: 1MiB\n")
	vs, err := s.Expand(nics, s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.Flows) != 12 {
		t.Errorf("all-to-all over 4 ranks: %d flows", len(vs.Flows))
	}
	if vs.Collective == nil || len(vs.Collective.Ranks) != 16 || vs.Collective.Bytes != 1<<20 {
		t.Errorf("collective %+v", vs.Collective)
	}
}

func TestAllReduceModel(t *testing.T) {
	nics := labNICs(2, 1, 8) // 16 ranks, 8 per leaf: the ring crosses twice
	s := mustParse(t, "name: x\ntraffic:\n  - pattern: ring-allreduce\n    bytes: 16MiB\n")
	m, err := allReduceModel(nics, testLab(), &s.Traffic[0], 4096, transport.RoCE)
	if err != nil {
		t.Fatal(err)
	}
	if m["rounds"].(float64) != 30 || m["crossing_spine_total"].(float64) != 60 {
		t.Errorf("rounds %v crossing %v", m["rounds"], m["crossing_spine_total"])
	}
	per := m["crossing_spine_per_round"].([]int)
	if len(per) != 30 || per[0] != 2 {
		t.Errorf("per round %v", per)
	}
	// Non-blocking: 2(N-1)/N * S / (eta B) plus the latencies of the hops
	// the step chain crosses: 2 of the 16 cross the spines.
	eta := 4096.0 / 4178
	lat2, lat4 := 2*0.025+4178*8/200e3+1, 4*0.025+3*4178*8/200e3+1
	if got, want := m["step_latency_mean_us"].(float64), (2*lat4+14*lat2)/16; math.Abs(got-want) > 0.001 {
		t.Errorf("mean step latency %v, want %v", got, want)
	}
	want := 30*(16.0*(1<<20)/16*8/(eta*200e3)) + 30*(2*lat4+14*lat2)/16
	if got := m["theoretical_us"].(float64); math.Abs(got-want) > 0.1 {
		t.Errorf("theoretical %v, want %v", got, want)
	}
	// Oversubscription 8 leaves 8 NICs x 200G / 8 = 200G of uplink for one
	// crossing transfer per leaf: no slower. The ring barely uses uplinks.
	by := m["theoretical_by_oversubscription"].([]any)
	first, last := by[0].(map[string]any), by[len(by)-1].(map[string]any)
	if first["theoretical_us"] != last["theoretical_us"] {
		t.Errorf("ring time depends on oversubscription up to 8: %v vs %v", first, last)
	}
	// An interleaved ring sends all 8 ranks of a leaf up at once: at 8:1
	// each gets 8 x 200G / 8 / 8 = 25G, so transfers take 8 times longer.
	if first["interleaved_transfer_gbps"] != 200.0 || last["interleaved_transfer_gbps"] != 25.0 {
		t.Errorf("interleaved transfer rates %v .. %v", first["interleaved_transfer_gbps"], last["interleaved_transfer_gbps"])
	}
	if last["interleaved_ring_us"].(float64) < 7*first["interleaved_ring_us"].(float64) {
		t.Errorf("interleaved ring at 8:1 (%v us) is not ~8x the 1:1 time (%v us)", last["interleaved_ring_us"], first["interleaved_ring_us"])
	}

	// The transport's framing, from where NCCL's bound takes it: on
	// InfiniBand a packet carries 26 bytes of headers, not 82, so the
	// transfers take 4122/4178 of RoCE's time and the store and forward
	// of the crossing hops its smaller packets; UET frames as RoCE does.
	for _, c := range []struct {
		tr       string
		overhead float64
	}{{transport.InfiniBand, 26}, {transport.UET, 82}} {
		m, err := allReduceModel(nics, testLab(), &s.Traffic[0], 4096, c.tr)
		if err != nil {
			t.Fatal(err)
		}
		eta := 4096 / (4096 + c.overhead)
		lat2, lat4 := 2*0.025+(4096+c.overhead)*8/200e3+1, 4*0.025+3*(4096+c.overhead)*8/200e3+1
		want := 30*(16.0*(1<<20)/16*8/(eta*200e3)) + 30*(2*lat4+14*lat2)/16
		if got := m["theoretical_us"].(float64); math.Abs(got-want) > 0.1 || m["goodput_efficiency"] != round3(eta) {
			t.Errorf("%s: theoretical %v us, efficiency %v; want %v, %v", c.tr, got, m["goodput_efficiency"], want, round3(eta))
		}
	}
	// Behind PCIe 3.0 x16 a NIC sends 115.2 Gb/s of payload on either
	// transport (PCIe carries no headers): the transfers take that rate,
	// but for each step's last packet, which leaves at the port's pace.
	for _, tr := range []string{transport.RoCE, transport.InfiniBand} {
		l := testLab()
		l.Spec = &lab.Spec{Name: "t", Sizing: sizing.Input{GPUs: 32, NICSpeedGbps: 200}, Server: server.Spec{PCIeGen: 3}}
		m, err := allReduceModel(nics, l, &s.Traffic[0], 4096, tr)
		if err != nil {
			t.Fatal(err)
		}
		overhead := map[string]float64{transport.RoCE: 82, transport.InfiniBand: 26}[tr]
		lat2, lat4 := 2*0.025+(4096+overhead)*8/200e3+1, 4*0.025+3*(4096+overhead)*8/200e3+1
		pcie := server.PCIeGbps(3, 16)
		last := 4096.0 * 8
		want := 30*((16.0*(1<<20)/16*8-last)/(pcie*1e3)+last/(200e3*4096/(4096+overhead))) + 30*(2*lat4+14*lat2)/16
		if got := m["theoretical_us"].(float64); math.Abs(got-want) > 0.1 || m["nic_payload_gbps"] != round3(pcie) {
			t.Errorf("%s behind PCIe 3.0 x16: theoretical %v us, NIC %v Gb/s; want %v, %v", tr, got, m["nic_payload_gbps"], want, round3(pcie))
		}
	}

	// A matrix that sweeps the transport gives each point the theory of
	// its own: InfiniBand's is faster, RoCE's and UET's the run's.
	sw := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  transport: [roce, infiniband, uet]\ntraffic:\n  - pattern: ring-allreduce\n    bytes: 16MiB\n")
	r := &Runner{Lab: testLab(), NICs: nics}
	for _, pt := range sw.Points() {
		tr, _, _ := sw.PointTransport(pt)
		pm, err := sw.pointAllReduceModel(r, pt, 4096, tr)
		if err != nil {
			t.Fatal(err)
		}
		if pm == nil {
			pm = m // the run's, of the file's values
		}
		if got, run := pm["theoretical_us"].(float64), m["theoretical_us"].(float64); (got < run) != (tr == transport.InfiniBand) || tr != transport.InfiniBand && got != run {
			t.Errorf("%s: theory %v us, the run's (RoCE's) %v", pt.Name, got, run)
		}
	}

	v := map[string]any{"simulated_us": want * 1.1, "phases": map[string]any{
		"scatter_reduce": map[string]any{"max_queue_bytes": 1000.0, "duration_us": 100.0},
		"allgather":      map[string]any{"max_queue_bytes": 5000.0, "duration_us": 100.0},
	}}
	completeAllReduce(v, m)
	if v["allgather_congests_more"] != true || math.Abs(v["simulated_over_theoretical"].(float64)-1.1) > 0.001 {
		t.Errorf("completed %v", v)
	}
}

// An assertion's variant reference to a combination the matrix's exclude
// leaves out is refused at parse when no variant can read it, and does
// not apply to the variants it would name an excluded one for (both ran
// the whole matrix, then failed "has no result in this run").
func TestAssertionRefsToExcludedVariants(t *testing.T) {
	const head = "name: x\nmatrix: {ecn: [on, off], pfc: [on, off], exclude: [{ecn: off, pfc: off}]}\nduration: 200us\ntraffic: [{pattern: pairs}]\nassertions:\n"
	if _, err := Parse("t.yaml", []byte(head+"  - expr: summary.drops <= [ecn=off,pfc=off].summary.drops\n")); err == nil || !strings.Contains(err.Error(), "is one the matrix's exclude leaves out") {
		t.Errorf("a reference to the excluded variant: %v", err)
	}
	s := mustParse(t, head+"  - expr: summary.drops <= [pfc=off].summary.drops\n")
	run := &results.Run{}
	for _, pt := range s.Points() {
		run.Variants = append(run.Variants, results.Variant{Name: pt.Name, ECN: pt.ECN, PFC: pt.PFC})
	}
	for i := range run.Variants {
		v := &run.Variants[i]
		out, notChecked := s.check(run, v, true)
		excludedTarget := !v.ECN // [pfc=off] of ecn=off,pfc=on is the excluded one
		if excludedTarget != (len(notChecked) == 1 && len(out) == 0) {
			t.Errorf("%s: checked %+v, not checked %+v", v.Name, out, notChecked)
		}
		for _, a := range out {
			if !a.Passed {
				t.Errorf("%s: %+v", v.Name, a)
			}
		}
	}
}

// An assertion on a sized transfer's figure in a scenario that sizes no
// flow is refused at its line before anything runs (it failed "cannot
// evaluate" in every variant after the whole run); with bytes, in the file
// or swept, it stands.
func TestCompletionAssertionNeedsSizedFlows(t *testing.T) {
	const tail = "assertions:\n  - expr: summary.completion_us < 100000\n"
	if _, err := Parse("t.yaml", []byte("name: x\nduration: 200us\ntraffic: [{pattern: incast, senders: 4}]\n"+tail)); err == nil || !strings.Contains(err.Error(), "no traffic entry of this scenario has bytes") {
		t.Errorf("no bytes: %v", err)
	}
	mustParse(t, "name: x\nduration: 200us\ntraffic: [{pattern: incast, senders: 4, bytes: 1MiB}]\n"+tail)
	mustParse(t, "name: x\nduration: 200us\nmatrix: {\"traffic[0].bytes\": [1MiB, 2MiB]}\ntraffic: [{pattern: incast, senders: 4}]\n"+tail)
}

// extra.allreduce in a scenario without a ring AllReduce is refused at
// parse; with one it stands.
func TestAllReduceAssertionNeedsARing(t *testing.T) {
	const tail = "assertions:\n  - expr: extra.allreduce.simulated_over_theoretical < 1.1\n"
	if _, err := Parse("t.yaml", []byte("name: x\nduration: 200us\ntraffic: [{pattern: pairs}]\n"+tail)); err == nil || !strings.Contains(err.Error(), "this scenario runs none") {
		t.Errorf("no ring: %v", err)
	}
	mustParse(t, "name: x\nduration: 2ms\ntraffic: [{pattern: ring-allreduce, bytes: 1MiB}]\n"+tail)
}
