package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
)

func TestSweepParse(t *testing.T) {
	for _, tc := range []struct {
		name, matrix string
		names        []string
	}{
		{"qos", "  ecn: [on]\n  pfc: [on]\n  qos.ecn.kmin_kb: [100, 2e2, 400.0]\n",
			[]string{"ecn=on,pfc=on,qos.ecn.kmin_kb=100", "ecn=on,pfc=on,qos.ecn.kmin_kb=200", "ecn=on,pfc=on,qos.ecn.kmin_kb=400"}},
		{"crossed with ecn and pfc", "  pfc: [on, off]\n  ecn: [on]\n  traffic[0].senders: [4, 8]\n",
			[]string{"ecn=on,pfc=on,traffic[0].senders=4", "ecn=on,pfc=on,traffic[0].senders=8", "ecn=on,pfc=off,traffic[0].senders=4", "ecn=on,pfc=off,traffic[0].senders=8"}},
		{"file order, last fastest", "  ecn: [on]\n  pfc: [on]\n  nic.dcqcn.rpg_ai_rate: [5, 20]\n  duration: [1ms, 2ms]\n",
			[]string{"ecn=on,pfc=on,nic.dcqcn.rpg_ai_rate=5,duration=1ms", "ecn=on,pfc=on,nic.dcqcn.rpg_ai_rate=5,duration=2ms",
				"ecn=on,pfc=on,nic.dcqcn.rpg_ai_rate=20,duration=1ms", "ecn=on,pfc=on,nic.dcqcn.rpg_ai_rate=20,duration=2ms"}},
		{"texts and booleans", "  ecn: [on]\n  pfc: [on]\n  nic.dcqcn.preset: [connectx, paper]\n  traffic[0].victim: [false, true]\n  qos.pfc_watchdog.action: [drop]\n",
			[]string{"ecn=on,pfc=on,nic.dcqcn.preset=connectx,traffic[0].victim=false,qos.pfc_watchdog.action=drop", "ecn=on,pfc=on,nic.dcqcn.preset=connectx,traffic[0].victim=true,qos.pfc_watchdog.action=drop",
				"ecn=on,pfc=on,nic.dcqcn.preset=paper,traffic[0].victim=false,qos.pfc_watchdog.action=drop", "ecn=on,pfc=on,nic.dcqcn.preset=paper,traffic[0].victim=true,qos.pfc_watchdog.action=drop"}},
		{"sizes", "  ecn: [on]\n  pfc: [on]\n  traffic[0].message_size: [4096, 64KiB]\n",
			[]string{"ecn=on,pfc=on,traffic[0].message_size=4096", "ecn=on,pfc=on,traffic[0].message_size=64KiB"}},
		{"flow style", "{ecn: [on], pfc: [off], qos.ecn.pmax: [0.1, 0.50]}\n",
			[]string{"ecn=on,pfc=off,qos.ecn.pmax=0.1", "ecn=on,pfc=off,qos.ecn.pmax=0.5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := "matrix:\n" + tc.matrix
			if strings.HasPrefix(tc.matrix, "{") {
				m = "matrix: " + tc.matrix
			}
			s := mustParse(t, "name: x\n"+m+"traffic:\n  - pattern: incast\n")
			if got := s.VariantNames(); !reflect.DeepEqual(got, tc.names) {
				t.Errorf("variants\n got %q\nwant %q", got, tc.names)
			}
		})
	}
}

// Every bad sweep is exit 2 at file:line:col of the offending node, with
// a fix.
func TestSweepErrors(t *testing.T) {
	const head = "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n"
	const traffic = "traffic:\n  - pattern: incast\n"
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown qos key", head + "  qos.ecn.kmin: [100]\n" + traffic, "x.yaml:5:3: qos.ecn.kmin is not a parameter labctl can sweep (under qos: qos.ecn.kmin_kb, qos.ecn.kmax_kb"},
		{"unknown nic key", head + "  nic.dcqcn.ai_rate: [5]\n" + traffic, "x.yaml:5:3: nic.dcqcn.ai_rate is not a parameter labctl can sweep (under nic: nic.dcqcn.preset"},
		{"unknown path", head + "  speed: [5]\n" + traffic, "x.yaml:5:3: speed is not a parameter labctl can sweep"},
		{"reshaping qos key", head + "  qos.lossless_priorities: [3]\n" + traffic, "x.yaml:5:3: qos.lossless_priorities cannot be swept: the lossless priorities shape"},
		{"enabled flag", head + "  qos.ecn.enabled: [true, false]\n" + traffic, "qos.ecn.enabled cannot be swept: ECN on and off is the matrix's ecn dimension"},
		{"dcqcn shorthand", head + "  dcqcn: [paper]\n" + traffic, "sweep nic.dcqcn.preset"},
		{"no such traffic", head + "  traffic[1].senders: [4]\n" + traffic, "x.yaml:5:3: traffic[1].senders names traffic entry 1, but the scenario has 1"},
		{"traffic pattern", head + "  traffic[0].pattern: [pairs]\n" + traffic, "traffic[0].pattern cannot be swept"},
		{"traffic bad index", head + "  traffic[x].senders: [4]\n" + traffic, "traffic[x].senders is not a path like traffic[0].senders"},
		{"not a list", head + "  qos.ecn.kmin_kb: 100\n" + traffic, "x.yaml:5:20: matrix dimension qos.ecn.kmin_kb is not a list of values"},
		{"empty list", head + "  qos.ecn.kmin_kb: []\n" + traffic, "x.yaml:5:20: matrix dimension qos.ecn.kmin_kb has no values"},
		{"wrong type", head + "  qos.ecn.kmin_kb: [100, lots]\n" + traffic, `x.yaml:5:26: qos.ecn.kmin_kb value "lots" is not a whole number`},
		{"not whole", head + "  qos.ecn.kmin_kb: [100.5]\n" + traffic, `x.yaml:5:21: qos.ecn.kmin_kb value "100.5" is not a whole number`},
		{"bool for number", head + "  nic.qp_timeout: [true]\n" + traffic, `x.yaml:5:20: nic.qp_timeout value "true" is not a whole number`},
		{"number for bool", head + "  traffic[0].victim: [1]\n" + traffic, `x.yaml:5:23: traffic[0].victim value "1" is not true or false`},
		{"list value", head + "  qos.mtu: [[1024]]\n" + traffic, "x.yaml:5:13: qos.mtu value is not a single value"},
		{"duplicate", head + "  qos.ecn.kmin_kb: [100, 1e2]\n" + traffic, "x.yaml:5:26: qos.ecn.kmin_kb value 100 is listed twice"},
		{"same duration", head + "  duration: [1ms, 1000us]\n" + traffic, "x.yaml:5:19: duration value 1000us is 1ms again, written another way"},
		{"same size", head + "  traffic[0].bytes: [64KiB, 65536]\n" + traffic, "x.yaml:5:29: traffic[0].bytes value 65536 is 64KiB again, written another way"},
		{"space", head + "  traffic[0].bytes: [1 MiB]\n" + traffic, `x.yaml:5:22: traffic[0].bytes value "1 MiB" holds a space`},
		{"reserved", head + "  nic.dcqcn.preset: [prev]\n" + traffic, "is a reserved word"},
		{"qos range", head + "  qos.ecn.pmax: [0.5, 1.5]\n" + traffic, "x.yaml:5:23: qos.ecn.pmax: pmax 1.5 is out of range"},
		{"qos positive", head + "  qos.ecn.kmin_kb: [0]\n" + traffic, "x.yaml:5:21: qos.ecn.kmin_kb: kmin_kb must be positive"},
		{"watchdog range", head + "  qos.pfc_watchdog.detection_ms: [200, 50]\n" + traffic, "x.yaml:5:40: qos.pfc_watchdog.detection_ms: detection time 50 ms is out of range"},
		{"mtu range", head + "  qos.mtu: [128]\n" + traffic, "x.yaml:5:13: qos.mtu: MTU 128 is out of range"},
		{"nic range", head + "  nic.dcqcn.rpg_gd: [11, 99]\n" + traffic, "x.yaml:5:26: nic.dcqcn.rpg_gd:"},
		{"nic preset", head + "  nic.dcqcn.preset: [connectx, fast]\n" + traffic, "x.yaml:5:32: nic.dcqcn.preset: unknown DCQCN preset \"fast\""},
		{"traffic range", head + "  traffic[0].senders: [4, 1]\n" + traffic, "x.yaml:5:27: traffic[0].senders: senders 1 makes no incast"},
		{"traffic zero", head + "  traffic[0].senders: [0, 4]\n" + traffic, "x.yaml:5:24: traffic[0].senders: 0 is not allowed (leaving senders out means 8 senders)"},
		{"field not for pattern", head + "  traffic[0].pairs: [2]\n" + traffic, "x.yaml:5:22: traffic[0].pairs: pairs does not apply to pattern incast"},
		{"duration", head + "  duration: [5ms, soon]\n" + traffic, `x.yaml:5:19: duration "soon" is not a positive time`},
		{"combination of qos values", head + "  qos.ecn.kmin_kb: [100, 500]\n  qos.ecn.kmax_kb: [400, 1000]\n" + traffic,
			"x.yaml:5:26: at qos.ecn.kmin_kb=500,qos.ecn.kmax_kb=400: qos.ecn.kmin_kb: kmin_kb 500 is not below kmax_kb 400"},
		{"combination with a fixed key", "name: x\nwarmup: 2ms\nmatrix:\n  duration: [5ms, 1ms]\n" + traffic,
			`x.yaml:4:19: at duration=1ms: warmup "2ms" is not a time shorter than the duration 1ms`},
		{"combination with a start", head + "  duration: [5ms, 1ms]\ntraffic:\n  - pattern: incast\n    start: 2ms\n",
			`x.yaml:5:19: at duration=1ms: traffic[0].start: start "2ms" is not a time within the duration`},
		{"too many variants", "name: x\nrepetitions: 2\nmatrix:\n  qos.ecn.kmin_kb: [1, 2, 3, 4, 5, 6, 7, 8]\n  traffic[0].senders: [2, 3, 4, 5, 6, 7, 8, 9]\n" + traffic,
			"x.yaml:5:3: the matrix makes 512 variants (ecn 2 x pfc 2 x qos.ecn.kmin_kb 8 x traffic[0].senders 8 x repetitions 2), more than the 400"},
		{"too many repetitions", "name: x\nrepetitions: 100\nmatrix:\n  traffic[0].senders: [2, 4]\n" + traffic, "x.yaml:4:3: the matrix makes 800 variants (ecn 2 x pfc 2 x traffic[0].senders 2 x repetitions 100), more than the 400"},
		{"listed twice", head + "  ecn: [off]\n" + traffic, "already defined"},
		{"matrix not a mapping", "name: x\nmatrix: [ecn]\n" + traffic, "x.yaml:2:9: matrix is not a mapping"},
		{"ecn item", "name: x\nmatrix:\n  ecn: [[on]]\n" + traffic, "x.yaml:3:9: ecn value is not on or off"},
		// An empty list is no values, not the key left out ([on, off]).
		{"ecn empty", "name: x\nmatrix:\n  ecn: []\n" + traffic, "x.yaml:3:8: matrix dimension ecn has no values (fix: list on, off or both (ecn: [on, off]), or remove the key to run both)"},
		{"pfc empty", "name: x\nmatrix: {ecn: [on], pfc: []}\n" + traffic, "x.yaml:2:26: matrix dimension pfc has no values"},
		{"params of an unswept key", head + "  qos.ecn.kmin_kb: [100]\n" + traffic + "assertions:\n  - expr: params.qos.ecn.pmax > 0\n",
			"x.yaml:9:11: assertion \"params.qos.ecn.pmax > 0\": column 1: params.qos.ecn.pmax: the matrix does not sweep qos.ecn.pmax (swept: qos.ecn.kmin_kb)"},
		{"reference to a value not swept", head + "  qos.ecn.kmin_kb: [100, 200]\n" + traffic + "assertions:\n  - expr: summary.drops == [qos.ecn.kmin_kb=300].summary.drops\n",
			"variant [qos.ecn.kmin_kb=300] is not in this scenario's matrix: qos.ecn.kmin_kb takes 100, 200 (or prev, the previous one)"},
		{"reference to no dimension", head + "  qos.ecn.kmin_kb: [100, 200]\n" + traffic + "assertions:\n  - expr: summary.drops == [qos.ecn.pmax=prev].summary.drops\n",
			"it has no dimension qos.ecn.pmax (dimensions: ecn, pfc, qos.ecn.kmin_kb)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if exitcode.Code(err) != exitcode.BadInput {
				t.Errorf("exit code %d, want 2: %v", exitcode.Code(err), err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n %q\ndoes not contain\n %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "fix:") && !strings.Contains(err.Error(), "already defined") {
				t.Errorf("error %q gives no fix", err)
			}
		})
	}
}

// A point's traffic, timing, NIC and QoS values reach what it runs.
func TestSweepExpand(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  qos.ecn.kmin_kb: [100, 400]\n  nic.dcqcn.rpg_ai_rate: [5, 20]\n  traffic[0].senders: [2, 4]\n  duration: [1ms, 2ms]\n"+
		"traffic:\n  - pattern: incast\n    victim: true\n")
	pts := s.Points()
	if len(pts) != 16 {
		t.Fatalf("%d points", len(pts))
	}
	last := pts[len(pts)-1]
	vs, err := s.Expand(labNICs(2, 2, 8), last, 1)
	if err != nil {
		t.Fatal(err)
	}
	incast := 0
	for _, f := range vs.Flows {
		if f.Role == "incast" {
			incast++
		}
	}
	if incast != 4 || len(vs.Flows) != 5 || vs.DurationUs != 2000 {
		t.Errorf("last point: %d incast flows, %d flows, %v us", incast, len(vs.Flows), vs.DurationUs)
	}
	if vs.QoS.ECN == nil || *vs.QoS.ECN.KminKB != 400 || vs.QoS.ECN.KmaxKB != nil || vs.QoS.MTU != nil {
		t.Errorf("qos overlay %+v", vs.QoS)
	}
	if want := map[string]string{"qos.ecn.kmin_kb": "400", "nic.dcqcn.rpg_ai_rate": "20", "traffic[0].senders": "4", "duration": "2ms"}; !reflect.DeepEqual(vs.Params, want) {
		t.Errorf("params %v", vs.Params)
	}
	if n := s.PointNIC(last); n.DCQCN == nil || *n.DCQCN.RPGAIRate != 20 {
		t.Errorf("nic overlay %+v", n)
	}
	first, err := s.Expand(labNICs(2, 2, 8), pts[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Flows) != 3 || first.DurationUs != 1000 || *first.QoS.ECN.KminKB != 100 {
		t.Errorf("first point: %d flows, %v us, %+v", len(first.Flows), first.DurationUs, first.QoS)
	}
	// The spec itself is untouched by its points.
	if s.Traffic[0].Senders != DefaultIncastN || s.DurationUs != 5000 {
		t.Errorf("spec changed: senders %d duration %v", s.Traffic[0].Senders, s.DurationUs)
	}
	// No sweep: no params, no QoS overlay (the golden files of the
	// catalog stay as they were).
	plain := mustParse(t, "name: x\ntraffic: [{pattern: incast}]\n")
	vs, _ = plain.Expand(labNICs(2, 2, 8), plain.Points()[0], 1)
	if vs.Params != nil || !reflect.ValueOf(vs.QoS).IsZero() {
		t.Errorf("plain scenario: params %v qos %+v", vs.Params, vs.QoS)
	}
}

// TestSweepExpansionGolden pins a sweep's variants on the 64-GPU lab:
// names, params, QoS overlays and flows, as runtimes get them.
func TestSweepExpansionGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "sweep.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("testdata/sweep.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	checkExpansionGolden(t, s, catalogNICs(t), "sweep")
}

// Variant references fill the dimensions they do not give from the
// variant checked; prev is the previous value, and the first value has
// none, so the assertion does not apply there.
func TestSweepReferences(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on, off]\n  qos.ecn.kmin_kb: [100, 200, 400]\n  traffic[0].senders: [2, 4]\ntraffic:\n  - pattern: incast\n")
	v := &results.Variant{Name: "ecn=on,pfc=on,qos.ecn.kmin_kb=200,traffic[0].senders=4", ECN: true, PFC: true,
		Params: map[string]string{"qos.ecn.kmin_kb": "200", "traffic[0].senders": "4"}}
	for ref, want := range map[string]string{
		"pfc=off":                     "ecn=on,pfc=off,qos.ecn.kmin_kb=200,traffic[0].senders=4",
		"qos.ecn.kmin_kb=prev":        "ecn=on,pfc=on,qos.ecn.kmin_kb=100,traffic[0].senders=4",
		"qos.ecn.kmin_kb=4e2":         "ecn=on,pfc=on,qos.ecn.kmin_kb=400,traffic[0].senders=4",
		"traffic[0].senders=prev":     "ecn=on,pfc=on,qos.ecn.kmin_kb=200,traffic[0].senders=2",
		"ecn=on,pfc=on":               "ecn=on,pfc=on,qos.ecn.kmin_kb=200,traffic[0].senders=4",
		"pfc=off,qos.ecn.kmin_kb=100": "ecn=on,pfc=off,qos.ecn.kmin_kb=100,traffic[0].senders=4",
	} {
		got, skip, err := s.resolveRef(ref, v)
		if err != nil || skip || got != want {
			t.Errorf("[%s] = %q skip %t err %v, want %q", ref, got, skip, err, want)
		}
	}
	v.Params["qos.ecn.kmin_kb"] = "100"
	if _, skip, err := s.resolveRef("qos.ecn.kmin_kb=prev", v); err != nil || !skip {
		t.Errorf("prev of the first value: skip %t err %v", skip, err)
	}
	// The lexer reads an index inside a reference and after a name.
	e, err := ParseExpr("params.traffic[0].senders > [traffic[0].senders=prev].params.traffic[0].senders")
	if err != nil {
		t.Fatal(err)
	}
	ids := e.Idents()
	if len(ids) != 2 || strings.Join(ids[0].Path, "|") != "params|traffic[0]|senders" || ids[1].Variant != "traffic[0].senders=prev" {
		t.Errorf("idents %+v", ids)
	}
	for _, id := range ids {
		if err := checkIdent(id, s); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// An assertion over a sweep: params reads the swept value, prev the
// previous point, and the first point has no previous one.
func TestSweepAssertions(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  traffic[0].senders: [2, 4, 8]\n  duration: [1ms]\ntraffic:\n  - pattern: incast\nassertions:\n"+
		"  - name: more senders, more pauses\n    expr: summary.pfc_pause_frames > [traffic[0].senders=prev].summary.pfc_pause_frames\n"+
		"  - name: pauses per sender\n    expr: summary.pfc_pause_frames == 10 * params.traffic[0].senders && params.duration == 1000\n")
	run := &results.Run{}
	for _, pt := range s.Points() {
		n := map[string]int64{"2": 20, "4": 40, "8": 30}[pt.Params[0].Value] // 8 breaks both
		params := map[string]string{}
		for _, p := range pt.Params {
			params[p.Path] = p.Value
		}
		run.Variants = append(run.Variants, results.Variant{Name: pt.Name, ECN: true, PFC: true, Params: params, Summary: results.Summary{PFCPauseFrames: n}})
	}
	got := map[string]string{}
	for i := range run.Variants {
		for _, a := range s.Check(run, &run.Variants[i]) {
			got[run.Variants[i].Params["traffic[0].senders"]+" "+a.Name] = strings.ToUpper(map[bool]string{true: "pass", false: "fail"}[a.Passed]) + " " + a.Detail
		}
	}
	want := map[string]string{
		"2 pauses per sender":         "PASS params.duration=1000 params.traffic[0].senders=2 summary.pfc_pause_frames=20",
		"4 more senders, more pauses": "PASS [traffic[0].senders=prev].summary.pfc_pause_frames=20 summary.pfc_pause_frames=40",
		"4 pauses per sender":         "PASS params.duration=1000 params.traffic[0].senders=4 summary.pfc_pause_frames=40",
		"8 more senders, more pauses": "FAIL [traffic[0].senders=prev].summary.pfc_pause_frames=40 summary.pfc_pause_frames=30",
		"8 pauses per sender":         "FAIL params.traffic[0].senders=8 summary.pfc_pause_frames=30",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assertions\n got %v\nwant %v", got, want)
	}
}

func TestSweepCheckModel(t *testing.T) {
	for y, want := range map[string]string{
		"  qos.ecn.kmin_kb: [100, 200]\n":        "t.yaml:5:3: scenario x sweeps qos.ecn.kmin_kb, but the flow-level model does not model switch QoS",
		"  nic.dcqcn.rpg_ai_rate: [5, 20]\n":     "sweeps nic.dcqcn.rpg_ai_rate, but the flow-level model does not model the NICs' congestion control",
		"  lb.mode: [ecmp, spray]\n":             "t.yaml:5:3: scenario x sweeps lb.mode, but the flow-level model does not model load balancing modes",
		"  duration: [1ms, 2ms]\n":               "does not model time",
		"  traffic[0].traffic_class: [106, 0]\n": "sweeps traffic[0].traffic_class, but the flow-level model does not model priorities",
		"  traffic[0].start: [0us, 10us]\n":      "does not model start times",
		"  traffic[0].pairs: [1, 2]\n":           "",
		"  traffic[0].qps: [1, 2]\n":             "",
		"  qos.mtu: [1024, 4096]\n":              "",
	} {
		s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n"+y+"traffic: [{pattern: pairs}]\n")
		err := s.CheckModel("flow")
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", y, err)
		case want == "":
		case err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(fix: run it with --model packet"):
			t.Errorf("%s: %v\nwant exit 2 with %q and the fix", y, err, want)
		}
		if err := s.CheckModel("packet"); err != nil {
			t.Errorf("%s: packet model: %v", y, err)
		}
	}
}

// Every sweepable key is either one the flow-level model reads or one in
// flowModelBlind, which CheckModel refuses: a key added to the sweeps
// must be placed on one side.
func TestFlowModelSweepsClassified(t *testing.T) {
	reads := []string{"qos.mtu", "traffic[<i>].pairs", "traffic[<i>].senders", "traffic[<i>].victim", "traffic[<i>].ranks",
		"traffic[<i>].rank_per", "traffic[<i>].cross_leaf", "traffic[<i>].qps", "traffic[<i>].bidirectional"}
	s := mustParse(t, "name: x\ntraffic: [{pattern: incast}]\nfaults: [{kind: link-down, link: leaf1-spine1, at: 1ms}]\n")
	for _, p := range SweepPaths() {
		sw, err := s.resolveSweep(strings.Replace(p.Path, "<i>", "0", 1))
		if err != nil {
			t.Fatal(err)
		}
		if blind := flowModelIgnores(sw) != ""; blind == slices.Contains(reads, p.Path) {
			t.Errorf("%s: blind to the flow-level model %v, but listed as read %v: put it in flowModelBlind or in this test's reads", p.Path, blind, !blind)
		}
	}
}

// SweepError places a problem found at run time at the value's node.
func TestSweepErrorPlace(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  qos.ecn.kmin_kb: [100,\n    4000]\ntraffic: [{pattern: incast}]\n")
	err := s.SweepError("qos.ecn.kmin_kb", "4000", "too big", "smaller")
	if !strings.Contains(err.Error(), "t.yaml:4:5: too big (fix: smaller)") || exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("value: %v", err)
	}
	if err := s.SweepError("qos.ecn.kmin_kb", "", "nothing", "fix it"); !strings.Contains(err.Error(), "t.yaml:3:3: nothing") {
		t.Errorf("key: %v", err)
	}
	if q := s.PointQoS(s.Points()[1]); q.ECN == nil || *q.ECN.KminKB != 4000 || !reflect.DeepEqual(q, lab.QoSSpec{ECN: q.ECN}) {
		t.Errorf("PointQoS %+v", q)
	}
}

// Every sweepable path is documented, resolves, and every documented path
// is sweepable; a qos key the table lists is one WithOverrides applies
// (or the NICs' mtu).
func TestSweepPathsDocumented(t *testing.T) {
	s := mustParse(t, "name: x\ntraffic: [{pattern: incast}]\nfaults: [{kind: link-down, link: leaf1-spine1, at: 1ms}]\n")
	paths := SweepPaths()
	if len(paths) < 30 {
		t.Fatalf("%d sweep paths", len(paths))
	}
	for _, p := range paths {
		if strings.TrimSpace(p.Doc) == "" || strings.HasSuffix(p.Doc, ": ") {
			t.Errorf("%s has no documentation", p.Path)
		}
		path := strings.Replace(p.Path, "<i>", "0", 1)
		if _, err := s.resolveSweep(path); err != nil {
			t.Errorf("documented %s does not resolve: %v", path, err)
		}
	}
	in, _ := qos.Profile("roce-dcqcn")
	dc, err := qos.Apply(in, qos.TestDevices()[0])
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{"ecn.kmin_kb": "[100]", "ecn.kmax_kb": "[5000]", "ecn.pmax": "[0.5]", "mtu": "[1024]",
		"pfc_watchdog.detection_ms": "[300]", "pfc_watchdog.restoration_ms": "[300]", "pfc_watchdog.action": "[forward]",
		"pfc_watchdog.enabled": "[false]", "buffer_pool_bytes": "[8388608]"}
	for _, k := range sweepableQoS {
		if qosSweepDocs[k] == "" {
			t.Errorf("qos.%s has no sweep documentation", k)
		}
		sp := mustParse(t, "name: x\nmatrix:\n  qos."+k+": "+values[k]+"\ntraffic: [{pattern: incast}]\n")
		got, reached, err := dc.WithOverrides(sp.PointQoS(sp.Points()[0]))
		if err != nil || (k != "mtu" && (reached == 0 || reflect.DeepEqual(got, dc))) {
			t.Errorf("qos.%s: reached %d, err %v: the sweep changes no config", k, reached, err)
		}
	}
	if md := SweepPathsMarkdown(); !strings.Contains(md, "| `qos.ecn.kmin_kb` | integer |") || !strings.Contains(md, "| `traffic[<i>].senders` | integer |") {
		t.Errorf("markdown:\n%s", md)
	}
}

// Faults and load balancing sweep like the rest: a point's fault times
// are checked against its duration, and they reach what runs.
func TestSweepFaultsAndLB(t *testing.T) {
	s := mustParse(t, "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  faults[0].at: [1ms, 2ms]\n  lb.mode: [ecmp, spray]\nduration: 5ms\n"+
		"traffic:\n  - pattern: incast\nfaults:\n  - kind: link-down\n    link: leaf1-spine1\n    at: 3ms\n")
	if len(s.Points()) != 4 {
		t.Fatalf("%d points", len(s.Points()))
	}
	last := s.Points()[3]
	vs, err := s.Expand(labNICs(2, 2, 8), last, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.Faults) != 1 || vs.Faults[0].AtUs != 2000 || vs.LB.Mode != "spray" || last.Name != "ecn=on,pfc=on,faults[0].at=2ms,lb.mode=spray" {
		t.Errorf("%s: faults %+v lb %+v", last.Name, vs.Faults, vs.LB)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"name: x\nmatrix:\n  duration: [5ms, 2ms]\ntraffic: [{pattern: incast}]\nfaults: [{kind: link-down, link: leaf1-spine1, at: 3ms}]\n",
			"x.yaml:3:19: at duration=2ms: faults[0].at: at 3ms is not within the duration 2ms"},
		{"name: x\nmatrix:\n  faults[0].kind: [link-down]\ntraffic: [{pattern: incast}]\nfaults: [{kind: link-down, link: leaf1-spine1, at: 3ms}]\n",
			"x.yaml:3:3: faults[0].kind cannot be swept"},
		{"name: x\nmatrix:\n  faults[1].at: [1ms]\ntraffic: [{pattern: incast}]\nfaults: [{kind: link-down, link: leaf1-spine1, at: 3ms}]\n",
			"faults[1].at names faults entry 1, but the scenario has 1"},
		{"name: x\nmatrix:\n  faults[0].count: [0, 2]\ntraffic: [{pattern: incast}]\nfaults: [{kind: link-flap, link: leaf1-spine1, at: 1ms, down: 1ms, up: 1ms}]\n",
			"x.yaml:3:21: faults[0].count: 0 is not allowed (leaving count out means 1 flap)"},
		{"name: x\nmatrix:\n  lb.mode: [ecmp, random]\ntraffic: [{pattern: incast}]\n",
			`x.yaml:3:19: lb.mode: unknown load balancing "random"`},
	} {
		if _, err := Parse("x.yaml", []byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err %v\nwant %q", err, tc.want)
		}
	}
}

// The cap on variants refuses no scenario that ran before sweeps: ECN x
// PFC with 100 repetitions is 400 variants.
func TestMaxVariantsKeepsOldScenarios(t *testing.T) {
	s := mustParse(t, "name: x\nrepetitions: 100\ntraffic: [{pattern: incast}]\n")
	if n := len(s.Points()); n != MaxVariants {
		t.Errorf("%d points, want %d", n, MaxVariants)
	}
}
