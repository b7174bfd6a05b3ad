package scenario

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/transport"
)

// The matrix sweeps the transport; every variant resolves its own, and
// exclude leaves out the pair that cannot exist.
func TestMatrixSweepsTransportWithExclude(t *testing.T) {
	s := mustParse(t, `name: x
matrix:
  ecn: [on]
  pfc: [on, off]
  transport: [roce, infiniband, uet]
  exclude:
    - {transport: infiniband, pfc: off}
traffic: [{pattern: incast}]
`)
	var names []string
	for _, pt := range s.Points() {
		names = append(names, pt.Name)
	}
	want := []string{"ecn=on,pfc=on,transport=roce", "ecn=on,pfc=on,transport=infiniband", "ecn=on,pfc=on,transport=uet",
		"ecn=on,pfc=off,transport=roce", "ecn=on,pfc=off,transport=uet"}
	if !slices.Equal(names, want) {
		t.Fatalf("variants %v, want %v", names, want)
	}
	var got []string
	run, err := runOnce(t, s, &fakeRuntime{}, context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Variants) != len(want) {
		t.Fatalf("ran %d variants", len(run.Variants))
	}
	for _, pt := range s.Points() {
		name, _, _ := s.PointTransport(pt)
		got = append(got, name)
	}
	// An InfiniBand variant's line rate is its framing's: extra.lab in its
	// own extra, read before the run's.
	for _, v := range run.Variants {
		lab, _ := v.Extra["lab"].(map[string]any)
		ib := strings.Contains(v.Name, "transport=infiniband")
		if ib != (lab != nil) {
			t.Errorf("%s: extra.lab %v", v.Name, lab)
		}
		if ib && math.Abs(lab["ideal_goodput_gbps"].(float64)-200*4096.0/4122) > 1e-9 {
			t.Errorf("%s: ideal goodput %v, want InfiniBand's 4096/4122 of 200", v.Name, lab["ideal_goodput_gbps"])
		}
	}
	if !slices.Equal(got, []string{"roce", "infiniband", "uet", "roce", "uet"}) {
		t.Errorf("transports %v", got)
	}
}

// A lab whose NICs PCIe feeds less than their port carries of payload has
// that for its ideal goodput, on every transport: PCIe carries payload,
// not the packets' headers, so it is PCIe 3.0 x16's 115.2 Gb/s on RoCE
// and InfiniBand alike, not 115.2 x 4096/4178, nor the port's 196.07.
func TestIdealGoodputPCIeBound(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  transport: [roce, infiniband]\ntraffic: [{pattern: incast}]\n")
	for _, gen := range []int{3, 4} {
		l := testLab()
		l.Spec = &lab.Spec{Name: "t", Sizing: sizing.Input{GPUs: 32, NICSpeedGbps: 200}, Server: server.Spec{PCIeGen: gen}}
		r := &Runner{Runtime: &fakeRuntime{}, Lab: l, NICs: labNICs(2, 2, 8), Now: tickingClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)),
			Save: func(*results.Run) error { return nil }}
		run := &results.Run{RunID: "20261129T120000Z-x-t", Lab: "t", Scenario: s.Name, Runtime: "fake", Seed: 1}
		if err := r.Run(context.Background(), s, run); err != nil {
			t.Fatal(err)
		}
		pcie := server.PCIeGbps(gen, 16)
		want := map[string]float64{"roce": min(pcie, 200*4096.0/4178), "infiniband": min(pcie, 200*4096.0/4122)}
		if got := run.Extra["lab"].(map[string]any)["ideal_goodput_gbps"]; got != want["roce"] {
			t.Errorf("PCIe %d.0: the run's ideal goodput %v, want %v", gen, got, want["roce"])
		}
		for _, v := range run.Variants {
			lab, ok := v.Extra["lab"].(map[string]any)
			if ib := strings.Contains(v.Name, "infiniband"); ib != ok || ib && lab["ideal_goodput_gbps"] != want["infiniband"] {
				t.Errorf("PCIe %d.0, %s: extra.lab %v, want InfiniBand's ideal goodput %v", gen, v.Name, lab, want["infiniband"])
			}
		}
	}
}

// Without the exclude, InfiniBand with pfc=off is refused at the matrix's
// pfc key, with the fix.
func TestInfiniBandPFCOffRefused(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on, off]\n  transport: [infiniband]\ntraffic: [{pattern: incast}]\n")
	_, err := runOnce(t, s, &fakeRuntime{}, context.Background(), 1, nil)
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "t.yaml:4:3") ||
		!strings.Contains(err.Error(), "credit-based flow control") || !strings.Contains(err.Error(), "exclude") {
		t.Errorf("got %v", err)
	}
	// A scenario's own transport counts as the matrix's does.
	s = mustParse(t, "name: x\ntransport: infiniband\nmatrix: {ecn: [on]}\ntraffic: [{pattern: incast}]\n")
	if _, err := runOnce(t, s, &fakeRuntime{}, context.Background(), 1, nil); err == nil || exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("default pfc [on, off] on infiniband: %v", err)
	}
}

// Bad transport input is placed at its line and column with the fix.
func TestTransportBadInput(t *testing.T) {
	for y, want := range map[string]string{
		"name: x\ntransport: ethernet\ntraffic: [{pattern: incast}]\n":                                         "t.yaml:2:12",
		"name: x\nmatrix:\n  transport: [roce, fibre]\ntraffic: [{pattern: incast}]\n":                         "t.yaml:3:21",
		"name: x\nmatrix:\n  transport: [roce]\n  exclude: [{transport: uet}]\ntraffic: [{pattern: incast}]\n": "t.yaml:4:25",
		"name: x\nmatrix:\n  transport: [roce]\n  exclude: [{lb.mode: spray}]\ntraffic: [{pattern: incast}]\n": "t.yaml:4:14",
		"name: x\nmatrix:\n  ecn: [on]\n  exclude: [{ecn: on}]\ntraffic: [{pattern: incast}]\n":                "leaves no variant",
		"name: x\nmatrix:\n  ecn: [on]\n  exclude: [{}]\ntraffic: [{pattern: incast}]\n":                       "is empty",
		"name: x\nmatrix:\n  ecn: [on]\n  exclude: [on]\ntraffic: [{pattern: incast}]\n":                       "not a mapping",
		"name: x\nmatrix:\n  infiniband: [a]\ntraffic: [{pattern: incast}]\n":                                  "sweep one key: infiniband.<key>",
		"name: x\nmatrix:\n  uet.nonsense: [a]\ntraffic: [{pattern: incast}]\n":                                "uet.nonsense is not a parameter",
	} {
		_, err := Parse("t.yaml", []byte(y))
		if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want exit 2 with %q", y, err, want)
		}
	}
	// The flow-level model refuses another transport.
	s := mustParse(t, "name: x\ntransport: uet\ntraffic: [{pattern: incast}]\n")
	if err := s.CheckModel("flow"); err == nil || !strings.Contains(err.Error(), "t.yaml:2:12") {
		t.Errorf("flow model with uet: %v", err)
	}
	if _, err := transport.Resolve("uet", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// Assertions read the transports' figures, and a variant of another
// transport has none: absent with the reason, never 0.
func TestTransportIdents(t *testing.T) {
	base := "name: x\ntraffic: [{pattern: incast}]\nassertions:\n  - expr: "
	for _, e := range []string{"summary.uet.trimmed > 0", "summary.uet.mean_entropies > 1", "infiniband.PortXmitWait > 0", "infiniband.PortPktRcvBECN >= 0"} {
		mustParse(t, base+e+"\n")
	}
	for e, want := range map[string]string{"summary.uet.trims > 0": "unknown summary.uet field \"trims\"", "infiniband.XmitWait > 0": "unknown InfiniBand counter \"XmitWait\""} {
		if _, err := Parse("t.yaml", []byte(base+e+"\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", e, err)
		}
	}
	uet := &results.Variant{Name: "u", Summary: results.Summary{UET: &results.UETSummary{Trimmed: 7}}}
	ib := &results.Variant{Name: "i", InfiniBand: []results.IBPortCounters{{IBCounters: results.IBCounters{PortXmitWait: 3}}, {IBCounters: results.IBCounters{PortXmitWait: 4}}}}
	roce := &results.Variant{Name: "r"}
	if v, err := lookupVariant(nil, uet, []string{"summary", "uet", "trimmed"}); err != nil || v.String() != "7" {
		t.Errorf("uet trimmed: %v %v", v, err)
	}
	if v, err := lookupVariant(nil, ib, []string{"infiniband", "PortXmitWait"}); err != nil || v.String() != "7" {
		t.Errorf("ib xmit wait summed: %v %v", v, err)
	}
	for _, p := range [][]string{{"summary", "uet", "trimmed"}, {"infiniband", "PortXmitWait"}} {
		if _, err := lookupVariant(nil, roce, p); err == nil || !strings.Contains(err.Error(), "absent") {
			t.Errorf("%v on RoCE: %v", p, err)
		}
	}
	if _, err := lookupVariant(nil, uet, []string{"summary", "uet", "pulls"}); err == nil {
		t.Error("pulls without RCCC read as a number")
	}
}

// A pfc-storm fault on an InfiniBand variant is refused before anything
// runs, at the fault's kind, with the fix (until 2026-12-06 the simulator
// refused it when that variant's turn came, after the RoCE variants
// before it had run and been saved); with the InfiniBand variants
// excluded, or only those of the fault's case, the rest runs.
func TestPFCStormOnInfiniBandRefusedBeforeRunning(t *testing.T) {
	const base = "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  transport: [roce, infiniband]\n%s" +
		"traffic: [{pattern: incast}]\nfaults:\n  - kind: pfc-storm\n    nic: host1:0\n    at: 1ms\n%s"
	s := mustParse(t, fmt.Sprintf(base, "", ""))
	rt := &fakeRuntime{}
	var saves []string
	_, err := runOnce(t, s, rt, context.Background(), 1, &saves)
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "t.yaml:8:11") ||
		!strings.Contains(err.Error(), "faults[0] (pfc-storm)") || !strings.Contains(err.Error(), "fix: run it with transport roce or uet") {
		t.Errorf("got %v", err)
	}
	if rt.calls != 0 || len(saves) != 0 {
		t.Errorf("%d variants ran and %v were saved before the refusal: want none", rt.calls, saves)
	}
	for _, ok := range []string{
		fmt.Sprintf(base, "  exclude: [{transport: infiniband}]\n", ""),
		fmt.Sprintf(base, "  case: [a, b]\n  exclude: [{transport: infiniband, case: a}]\n", "    case: a\n  - kind: link-down\n    link: leaf1-spine1\n    at: 1ms\n    case: b\n"),
	} {
		if _, err := runOnce(t, mustParse(t, ok), &fakeRuntime{}, context.Background(), 1, nil); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
