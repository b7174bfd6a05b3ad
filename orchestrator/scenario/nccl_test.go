package scenario

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

func ncclYAML(keys string) string {
	return "name: n\nmatrix:\n  ecn: [on]\n  pfc: [on]\ntraffic:\n  - pattern: nccl\n" + keys
}

// The defaults: all_reduce on rings in nccl order, float, 8 B to 256 MiB
// doubling (26 sizes), a generous duration.
func TestNCCLDefaults(t *testing.T) {
	s, err := Parse("n.yaml", []byte(ncclYAML("")))
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Traffic[0]
	if tr.Collective != results.CollAllReduce || tr.Algorithm != "ring" || tr.RankOrder != "nccl" || tr.DataType != "float" || tr.Channels != 0 || tr.Root != nil {
		t.Fatalf("defaults %+v", tr)
	}
	if len(tr.Sizes) != 26 || tr.Sizes[0] != 8 || tr.Sizes[25] != 256<<20 {
		t.Fatalf("sizes %v", tr.Sizes)
	}
	if s.Duration != DefaultNCCLDuration || s.DurationUs != 1e6 {
		t.Fatalf("duration %s", s.Duration)
	}
}

// Benign values of every key parse into what they say.
func TestNCCLKeysBenign(t *testing.T) {
	for _, c := range []struct {
		keys  string
		check func(tr Traffic) bool
	}{
		{"    collective: all_gather\n    channels: 4\n    rank_order: naive\n", func(tr Traffic) bool {
			return tr.Collective == results.CollAllGather && tr.Channels == 4 && tr.RankOrder == "naive"
		}},
		{"    algorithm: tree\n", func(tr Traffic) bool { return tr.Algorithm == "tree" }},
		{"    min_bytes: 1KiB\n    max_bytes: 1MiB\n    step_factor: 4\n", func(tr Traffic) bool {
			return slices.Equal(tr.Sizes, []int64{1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20})
		}},
		// nccl-tests' -i: 1, 2, 3 MiB.
		{"    min_bytes: 1MiB\n    max_bytes: 3MiB\n    step_bytes: 1MiB\n", func(tr Traffic) bool {
			return slices.Equal(tr.Sizes, []int64{1 << 20, 2 << 20, 3 << 20})
		}},
		// One size: -b = -e.
		{"    min_bytes: 64MiB\n    max_bytes: 64MiB\n", func(tr Traffic) bool { return slices.Equal(tr.Sizes, []int64{64 << 20}) }},
		{"    collective: broadcast\n    root: 0\n", func(tr Traffic) bool { return tr.Root != nil && *tr.Root == 0 }},
		{"    collective: broadcast\n    root: 7\n", func(tr Traffic) bool { return *tr.Root == 7 }},
		{"    datatype: half\n    channels: 64\n", func(tr Traffic) bool { return tr.DataType == "half" && tr.Channels == 64 }},
		{"    collective: sendrecv\n    traffic_class: 104\n    start: 10us\n", func(tr Traffic) bool { return *tr.TrafficClass == 104 && tr.StartUs == 10 }},
		{"    collective: alltoall\n", func(tr Traffic) bool { return tr.Collective == results.CollAllToAll }},
	} {
		s, err := Parse("n.yaml", []byte(ncclYAML(c.keys)))
		if err != nil {
			t.Errorf("%q: %v", c.keys, err)
			continue
		}
		if !c.check(s.Traffic[0]) {
			t.Errorf("%q: parsed into %+v", c.keys, s.Traffic[0])
		}
	}
}

// Harmful values: refused at their line and column with the fix, exit 2.
func TestNCCLKeysHarmful(t *testing.T) {
	for _, c := range []struct {
		keys, want, fix string
	}{
		{"    collective: allreduce\n", "n.yaml:7:17: unknown collective \"allreduce\"", "all_reduce"},
		{"    collective: all_gather\n    algorithm: tree\n", "n.yaml:8:16: NCCL runs all_gather on rings, not trees", "algorithm: ring"},
		{"    collective: alltoall\n    algorithm: tree\n", "n.yaml:8:16: NCCL runs alltoall point to point (ncclSend/ncclRecv), on no tree", "leave algorithm out"},
		{"    algorithm: nvls\n", "n.yaml:7:16: unknown algorithm \"nvls\"", "ring or tree"},
		{"    channels: 65\n", "n.yaml:7:15: channels 65 is out of range", "1 to 64"},
		{"    channels: -1\n", "n.yaml:7:15: channels -1 is out of range", "1 to 64"},
		{"    channels: 0\n", "n.yaml:7:15", "use 1 to 64"},
		{"    rank_order: random\n", "n.yaml:7:17: unknown rank_order \"random\"", "naive"},
		{"    min_bytes: lots\n", "n.yaml:7:16: min_bytes \"lots\" is not a size", "256MiB"},
		{"    min_bytes: 0\n", "n.yaml:7:16: min_bytes \"0\" is not a size of 1 B or more", ""},
		{"    min_bytes: 1MiB\n    max_bytes: 1KiB\n", "n.yaml:8:16: max_bytes 1KiB is below min_bytes 1MiB", "-e >= -b"},
		// The default max_bytes is below this min: the min is to blame.
		{"    min_bytes: 1GiB\n", "n.yaml:7:16: max_bytes 256MiB is below min_bytes 1GiB", ""},
		{"    step_factor: 1\n", "n.yaml:7:18: step_factor 1 does not grow the size", "2 or more"},
		{"    step_factor: 0\n", "n.yaml:7:18", "use 2 or more"},
		{"    step_factor: 2\n    step_bytes: 1MiB\n", "n.yaml:8:17: step_factor and step_bytes are both set", "keep one"},
		{"    min_bytes: 1KiB\n    max_bytes: 1MiB\n    step_bytes: 1KiB\n", "n.yaml:9:17: min_bytes 1KiB to max_bytes 1MiB makes 65 sizes, more than the 64", "larger step"},
		{"    step_bytes: none\n", "n.yaml:7:17: step_bytes \"none\" is not a size", ""},
		{"    root: 1\n", "n.yaml:7:11: root does not apply to collective all_reduce", "broadcast"},
		{"    collective: broadcast\n    root: -1\n", "n.yaml:8:11: root -1 is not a rank", ""},
		{"    datatype: fp8\n", "n.yaml:7:15: unknown datatype \"fp8\"", "bfloat16"},
		{"    bytes: 1MiB\n", "n.yaml:7:12: bytes does not apply to pattern nccl", "remove it"},
		{"    cross_leaf: true\n", "n.yaml:7:17: cross_leaf does not apply to pattern nccl", ""},
		{"    qps: 2\n", "n.yaml:7:10: qps does not apply to pattern nccl", ""},
		{"    ranks: 8\n", "n.yaml:7:12: ranks does not apply to pattern nccl", ""},
	} {
		_, err := Parse("n.yaml", []byte(ncclYAML(c.keys)))
		var ee *exitcode.Error
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.fix) || !errors.As(err, &ee) || ee.Code != exitcode.BadInput {
			t.Errorf("%q: %v\nwant %q with fix %q, exit 2", c.keys, err, c.want, c.fix)
		}
	}
	// The nccl keys belong to it alone.
	for _, k := range []string{"collective: all_reduce", "algorithm: ring", "channels: 2", "rank_order: nccl", "min_bytes: 8", "max_bytes: 8", "step_factor: 2", "step_bytes: 8", "root: 0", "datatype: float"} {
		y := "name: x\ntraffic:\n  - pattern: pairs\n    " + k + "\n"
		key, _, _ := strings.Cut(k, ":")
		if _, err := Parse("x.yaml", []byte(y)); err == nil || !strings.Contains(err.Error(), "x.yaml:4:") || !strings.Contains(err.Error(), key+" does not apply to pattern pairs") {
			t.Errorf("%s on pairs: %v", k, err)
		}
	}
}

// A matrix sweeps the nccl keys like any traffic key: the algorithm as
// text, channels as numbers; bad values at their place.
func TestNCCLSweeps(t *testing.T) {
	s, err := Parse("n.yaml", []byte("name: n\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  traffic[0].algorithm: [ring, tree]\n  traffic[0].channels: [4, 8]\ntraffic:\n  - pattern: nccl\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.VariantNames(), " "); got != "ecn=on,pfc=on,traffic[0].algorithm=ring,traffic[0].channels=4 ecn=on,pfc=on,traffic[0].algorithm=ring,traffic[0].channels=8 ecn=on,pfc=on,traffic[0].algorithm=tree,traffic[0].channels=4 ecn=on,pfc=on,traffic[0].algorithm=tree,traffic[0].channels=8" {
		t.Fatalf("variants %s", got)
	}
	nics := testNICs()
	pts := s.Points()
	vs, err := s.Expand(nics, pts[3], 1)
	if err != nil {
		t.Fatal(err)
	}
	n := vs.Collective.NCCL
	if vs.Collective.Kind != runtime.CollectiveNCCL || n.Algorithm != "tree" || n.Channels != 8 || len(vs.Collective.Ranks) != len(nics) || len(n.Sizes) != 26 {
		t.Fatalf("expanded %+v %+v", vs.Collective, n)
	}
	for _, c := range []struct{ yaml, want string }{
		{"  traffic[0].algorithm: [ring, nvls]\n", "n.yaml:5:32: traffic[0].algorithm: unknown algorithm \"nvls\""},
		{"  traffic[0].channels: [0, 8]\n", "n.yaml:5:25: traffic[0].channels: 0 is not allowed"},
		{"  traffic[0].step_factor: [1, 2]\n", "n.yaml:5:28: traffic[0].step_factor: step_factor 1 does not grow"},
		// A tree on all_gather, found only at that point of the matrix.
		{"  traffic[0].collective: [all_reduce, all_gather]\n  traffic[0].algorithm: [tree]\n", "all_gather"},
	} {
		_, err := Parse("n.yaml", []byte("name: n\nmatrix:\n  ecn: [on]\n  pfc: [on]\n"+c.yaml+"traffic:\n  - pattern: nccl\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
}

// testNICs is two servers of 8 NICs under one leaf.
func testNICs() []NIC {
	var out []NIC
	for _, h := range []string{"host1", "host2"} {
		for i := range 8 {
			out = append(out, NIC{Endpoint: runtime.Endpoint{Host: h, NIC: i}, Leaf: "leaf1"})
		}
	}
	return out
}

func TestNCCLRefusedByFlowModelAndLab(t *testing.T) {
	s, err := Parse("n.yaml", []byte(ncclYAML("    collective: broadcast\n    root: 16\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckModel(runtime.ModelFlow); err == nil || !strings.Contains(err.Error(), "n.yaml:6:14") || !strings.Contains(err.Error(), "--model packet") {
		t.Fatalf("flow model: %v", err)
	}
	if err := s.CheckModel(runtime.ModelPacket); err != nil {
		t.Fatal(err)
	}
	g := catalogGraph(t, "16gpu")
	if err := s.CheckLab(g); err == nil || !strings.Contains(err.Error(), "n.yaml:8:11: root 16 is not a rank: lab 16gpu has 16 GPUs") || !strings.Contains(err.Error(), "0 to 15") {
		t.Fatalf("root beyond the lab: %v", err)
	}
	ok, _ := Parse("n.yaml", []byte(ncclYAML("    collective: broadcast\n    root: 15\n")))
	if err := ok.CheckLab(g); err != nil {
		t.Fatal(err)
	}
	// At most one collective a scenario.
	two, err := Parse("n.yaml", []byte(ncclYAML("  - pattern: ring-allreduce\n")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := two.Expand(testNICs(), two.Points()[0], 1); err == nil || !strings.Contains(err.Error(), "at most one collective") {
		t.Fatalf("two collectives: %v", err)
	}
}

// nccl.<field> names: checked when the scenario is read, resolved from
// the variant's table, and absent figures fail with the reason.
func TestNCCLAssertionNames(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{ncclYAML("assertions:\n  - expr: nccl.busbw_peak > 1\n"), "unknown nccl field \"busbw_peak\""},
		{"name: x\ntraffic: [{pattern: pairs}]\nassertions:\n  - expr: nccl.rows > 1\n", "nccl.rows needs a traffic entry of pattern nccl"},
		{ncclYAML("assertions:\n  - expr: nccl.rows.x > 1\n"), "nccl names are nccl.<field>"},
		{ncclYAML("assertions:\n  - expr: roles.nccl.count > 1\n"), "no traffic of this scenario has role \"nccl\""},
	} {
		if _, err := Parse("n.yaml", []byte(c.yaml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
	i64 := func(v int64) *int64 { return &v }
	bound := 100.0
	v := &results.Variant{Name: "v", NCCL: &results.NCCLTable{BoundBusBWGBps: &bound, Rows: []results.NCCLRow{
		{SizeBytes: 8, OutOfPlace: results.NCCLResult{TimeUs: 20, BusBWGBps: 0.001}, FabricBytes: i64(100), SpineBytes: i64(0)},
		{SizeBytes: 1 << 20, OutOfPlace: results.NCCLResult{TimeUs: 50, BusBWGBps: 97}, FabricBytes: i64(300), SpineBytes: i64(100)},
		{SizeBytes: 1 << 10, OutOfPlace: results.NCCLResult{TimeUs: 21, BusBWGBps: 98}, FabricBytes: i64(0), SpineBytes: i64(0)},
	}}, Extra: map[string]any{"nccl": map[string]any{"sizes_planned": 5.0}}}
	for field, want := range map[string]float64{
		"rows": 3, "sizes_missing": 2, "busbw_max": 98, "busbw_largest": 97, "bound_busbw": 100,
		"busbw_over_bound": 0.97, "time_us_smallest": 20, "fabric_bytes": 400, "spine_bytes": 100, "spine_share": 0.25,
	} {
		got, err := lookupNCCL(v, field)
		if err != nil || got.String() != Num(want).String() {
			t.Errorf("nccl.%s = %v, %v; want %v", field, got, err, want)
		}
	}
	// A measured table: no bound, no spine bytes, no plan.
	v.NCCL.BoundBusBWGBps, v.NCCL.Rows[1].SpineBytes, v.Extra = nil, nil, nil
	for field, want := range map[string]string{"bound_busbw": "measured table has no bound", "busbw_over_bound": "no bound", "spine_bytes": "row of 1048576 B does not count it", "sizes_missing": "does not say how many"} {
		if _, err := lookupNCCL(v, field); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("nccl.%s on a measured table: %v, want %q", field, err, want)
		}
	}
	if _, err := lookupNCCL(&results.Variant{Name: "w"}, "rows"); err == nil || !strings.Contains(err.Error(), "no nccl-tests table") {
		t.Errorf("no table: %v", err)
	}
	if _, err := lookupNCCL(&results.Variant{Name: "w", NCCL: &results.NCCLTable{}}, "busbw_max"); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("no rows: %v", err)
	}
}

// A point of an nccl sweep whose sizes all move nothing over the lab's
// GPUs is refused before anything runs, at the matrix key that swept
// them, with the least max_bytes that moves data (until 2026-12-06 the
// simulator refused it when its turn came, after the points before it
// had run and been saved); without a sweep, at the entry's max_bytes.
func TestNCCLSizesMovingNothingRefusedBeforeRunning(t *testing.T) {
	g := catalogGraph(t, "16gpu")
	for _, c := range []struct{ yaml, at string }{
		{"name: n\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  traffic[0].max_bytes: [64KiB, 1]\ntraffic:\n  - pattern: nccl\n    collective: all_gather\n    min_bytes: 1\n", "n.yaml:5:3"},
		{ncclYAML("    collective: alltoall\n    min_bytes: 1\n    max_bytes: 128\n"), "n.yaml:9:16"},
	} {
		s, err := Parse("n.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatal(err)
		}
		rt := &fakeRuntime{}
		var saves []string
		r := &Runner{Runtime: rt, Lab: &runtime.Lab{Name: "16gpu", Graph: g, Plan: testLab().Plan}, NICs: NICsFromGraph(g), Now: tickingClock(time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)),
			Save: func(run *results.Run) error { saves = append(saves, run.Status); return nil }}
		err = r.Run(context.Background(), s, &results.Run{RunID: "x", Lab: "16gpu", Scenario: s.Name, Runtime: rt.Name(), Seed: 1})
		if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), c.at) ||
			!strings.Contains(err.Error(), "moves data over the lab's 16 GPUs") || !strings.Contains(err.Error(), "fix: raise max_bytes to 256 B or more") {
			t.Errorf("%q: got %v", c.yaml, err)
		}
		if rt.calls != 0 || len(saves) != 0 {
			t.Errorf("%q: %d variants ran and %v were saved before the refusal: want none", c.yaml, rt.calls, saves)
		}
	}
}
