package scenario

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
	simrt "github.com/labctl/labctl/orchestrator/runtime/sim"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// simLab is the 16-GPU catalog lab rendered in a temporary folder, with
// leaf1's first port edited as a user would: its Kmax raised.
func simLab(t *testing.T) (*runtime.Lab, int64) {
	t.Helper()
	l := runtimetest.RenderedLab(t, "16gpu", "")
	cfgs, err := runtime.LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	const editedKmax = 5_000_000
	edited := false
	for i := range cfgs {
		if cfgs[i].Device != "leaf1" {
			continue
		}
		q := cfgs[i].Ports[0].Queue(3)
		q.ECN.MaxBytes = editedKmax
		codec, _ := runtime.Codec(l.NOS)
		data, err := codec.RenderQoS(cfgs[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(l.ConfigPath(codec, "leaf1"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		edited = true
	}
	if !edited {
		t.Fatal("no leaf1")
	}
	return l, editedKmax
}

// snapshot is every file of a folder with its contents and time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, _ := e.Info()
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = info.ModTime().String() + "\x00" + string(data)
	}
	return out
}

const kminSweep = "name: ks\nmatrix:\n  ecn: [on, off]\n  pfc: [on]\n  qos.ecn.kmin_kb: [100, 300]\nduration: 300us\nsample_every: 0\n" +
	"traffic:\n  - pattern: incast\n    senders: 4\n"

func runSweep(t *testing.T, l *runtime.Lab, s *Spec, par int, configsDir string) *results.Run {
	t.Helper()
	clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r := &Runner{Runtime: simrt.New(), Lab: l, NICs: NICsFromGraph(l.Graph), Parallel: par, ConfigsDir: configsDir,
		Now: tickingClock(clock)}
	run := &results.Run{RunID: "20261129T120000Z-ks-16gpu", Lab: l.Name, Scenario: s.Name, Runtime: "sim", Seed: 1, Started: clock}
	if err := r.Run(context.Background(), s, run); err != nil {
		t.Fatal(err)
	}
	return run
}

// A QoS sweep writes every variant's switch configs into the run folder:
// the lab's configs with the swept value on top, the user's edit kept;
// the lab's own files are not touched.
func TestRunnerSweepWritesConfigsLeavesLabAlone(t *testing.T) {
	l, editedKmax := simLab(t)
	before := snapshot(t, l.ConfigsDir())
	s := mustParse(t, kminSweep)
	out := filepath.Join(t.TempDir(), "configs")
	run := runSweep(t, l, s, 1, out)

	if after := snapshot(t, l.ConfigsDir()); len(after) != len(before) {
		t.Errorf("the lab's configs folder changed: %d files, was %d", len(after), len(before))
	} else {
		for name, was := range before {
			if after[name] != was {
				t.Errorf("the run touched the lab's %s", name)
			}
		}
	}
	if len(run.Sweep) != 1 || run.Sweep[0].Path != "qos.ecn.kmin_kb" || strings.Join(run.Sweep[0].Values, " ") != "100 300" {
		t.Errorf("run.Sweep = %+v", run.Sweep)
	}
	codec, _ := runtime.Codec(l.NOS)
	for _, v := range run.Variants {
		kmin := v.Params["qos.ecn.kmin_kb"]
		if v.Configs == nil || v.Configs.Dir != "configs/"+runtime.VariantDir(v.Name) {
			t.Fatalf("%s: configs %+v", v.Name, v.Configs)
		}
		dir := filepath.Join(filepath.Dir(out), filepath.FromSlash(v.Configs.Dir))
		marking := 0
		for _, sw := range l.Graph.Switches() {
			path := filepath.Join(dir, sw.Name+codec.ConfigExt())
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s: %v", v.Name, err)
			}
			dc, err := codec.ParseQoS(sw.Name, qos.Source{Name: path, Data: data})
			if err != nil {
				t.Fatal(err)
			}
			for pi, p := range dc.Ports {
				for _, q := range p.Queues {
					if q.ECN == nil {
						continue
					}
					marking++
					if want := map[string]int64{"100": 100 << 10, "300": 300 << 10}[kmin]; q.ECN.MinBytes != want {
						t.Errorf("%s %s %s queue %d: Kmin %d, want %d", v.Name, sw.Name, p.Name, q.Queue, q.ECN.MinBytes, want)
					}
					if sw.Name == "leaf1" && pi == 0 && q.ECN.MaxBytes != editedKmax {
						t.Errorf("%s: the user's Kmax on leaf1 %s is %d, want the edit %d", v.Name, p.Name, q.ECN.MaxBytes, editedKmax)
					}
				}
			}
		}
		if (marking > 0) != v.ECN {
			t.Errorf("%s: %d marking queues", v.Name, marking)
		}
		// What the point changed, in config diff's terms.
		var fields []string
		for _, c := range v.Configs.Changes {
			fields = append(fields, c.Field)
		}
		if len(v.Configs.Changes) == 0 || !strings.Contains(strings.Join(fields, " "), "port.*.queue.3.ecn") {
			t.Errorf("%s: changes %+v", v.Name, v.Configs.Changes)
		}
	}
	// The simulation ran those configs: Kmin acts through marking only, so
	// the two points without ECN are the same to the last packet and the
	// two with ECN are not.
	sum := map[string]results.Summary{}
	for _, v := range run.Variants {
		sum[v.Name] = v.Summary
	}
	if a, b := sum["ecn=off,pfc=on,qos.ecn.kmin_kb=100"], sum["ecn=off,pfc=on,qos.ecn.kmin_kb=300"]; !reflect.DeepEqual(a, b) {
		t.Errorf("without ECN, Kmin changed the results:\n%+v\n%+v", a, b)
	}
	if a, b := sum["ecn=on,pfc=on,qos.ecn.kmin_kb=100"], sum["ecn=on,pfc=on,qos.ecn.kmin_kb=300"]; reflect.DeepEqual(a, b) || a.ECNMarked == 0 {
		t.Errorf("with ECN, Kmin 100 and 300 KiB gave the same results: %+v", a)
	}
}

// The same sweep with variants in parallel gives the same record and
// the same configs.
func TestRunnerSweepParallelSame(t *testing.T) {
	l, _ := simLab(t)
	s := mustParse(t, strings.Replace(kminSweep, "    senders: 4\n", "    senders: 4\n    victim: true\n", 1)+"assertions:\n  - expr: summary.ecn_marked >= 0 && [qos.ecn.kmin_kb=prev].summary.drops == 0\n")
	enc := func(par int) (string, map[string]string) {
		out := filepath.Join(t.TempDir(), "configs")
		run := runSweep(t, l, s, par, out)
		b, _ := json.Marshal(results.WithoutCost(run)) // wall times differ
		files := map[string]string{}
		_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(out, p)
				files[rel] = string(data)
			}
			return nil
		})
		return string(b), files
	}
	a, fa := enc(1)
	b, fb := enc(2)
	if a != b {
		t.Error("-j 1 and -j 2 records of a sweep differ")
	}
	if len(fa) != 4*len(l.Graph.Switches()) || len(fa) != len(fb) {
		t.Fatalf("%d and %d config files", len(fa), len(fb))
	}
	for k, v := range fa {
		if fb[k] != v {
			t.Errorf("%s differs between -j 1 and -j 2", k)
		}
	}
}

// A swept value the lab's configs cannot take is bad input placed at the
// value, found before anything runs.
func TestRunnerSweepRefusesBeforeRunning(t *testing.T) {
	for name, tc := range map[string]struct{ matrix, want string }{
		// The lab's Kmax at 200G is 3200 KiB; leaf1 Ethernet0's edited
		// Kmax (5000000 bytes) takes 4000 KiB.
		"kmin above the configs' kmax": {"  qos.ecn.kmin_kb: [100,\n    4000]\n", "t.yaml:6:5: qos.ecn.kmin_kb=4000 on lab 16gpu: leaf1 Ethernet4 queue 3 would mark from 4096000 bytes (Kmin)"},
		"nothing to change":            {"  qos.pfc_watchdog.detection_ms: [300]\n", "t.yaml:5:3: qos.pfc_watchdog.detection_ms changes nothing on lab 16gpu-nowd"},
	} {
		t.Run(name, func(t *testing.T) {
			l, _ := simLab(t)
			if strings.Contains(tc.want, "nowd") {
				// A lab whose configs run no PFC watchdog.
				off := false
				spec := *l.Spec
				spec.Name = "16gpu-nowd"
				spec.QoS.PFCWatchdog = &lab.WatchdogSpec{Enabled: &off}
				var err error
				if l, err = runtime.NewLab(&spec, t.TempDir(), ""); err != nil {
					t.Fatal(err)
				}
				if _, _, err := runtime.RenderLab(l); err != nil {
					t.Fatal(err)
				}
			}
			s := mustParse(t, "name: ks\nmatrix:\n  ecn: [on]\n  pfc: [on]\n"+tc.matrix+"duration: 100us\ntraffic:\n  - pattern: incast\n    senders: 2\n")
			rt := &fakeRuntime{}
			run := &results.Run{RunID: "x"}
			err := (&Runner{Runtime: rt, Lab: l, NICs: NICsFromGraph(l.Graph), ConfigsDir: filepath.Join(t.TempDir(), "configs")}).Run(context.Background(), s, run)
			if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
				t.Errorf("err = %v\nwant %q", err, tc.want)
			}
			if rt.calls != 0 || len(run.Variants) != 0 {
				t.Errorf("%d variants ran", rt.calls)
			}
		})
	}
}

// A swept fault's link is checked against the lab at every point, before
// anything runs.
func TestRunnerSweepFaultLinks(t *testing.T) {
	l, _ := simLab(t)
	s := mustParse(t, "name: ks\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  faults[0].link: [leaf1-spine1, leaf9-spine1]\nduration: 1ms\n"+
		"traffic:\n  - pattern: incast\n    senders: 2\nfaults:\n  - kind: link-down\n    link: leaf1-spine1\n    at: 500us\n")
	rt := &fakeRuntime{}
	err := (&Runner{Runtime: rt, Lab: l, NICs: NICsFromGraph(l.Graph)}).Run(context.Background(), s, &results.Run{RunID: "x"})
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "at faults[0].link=leaf9-spine1:") || rt.calls != 0 {
		t.Errorf("err = %v, %d variants ran", err, rt.calls)
	}
}

// A swept qos.mtu is the simulated NICs' MTU: the configs stay the
// lab's, the packets change.
func TestRunnerSweepMTU(t *testing.T) {
	l, _ := simLab(t)
	s := mustParse(t, "name: ks\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  qos.mtu: [1024, 4096]\nduration: 200us\nsample_every: 0\ntraffic:\n  - pattern: pairs\n")
	run := runSweep(t, l, s, 1, filepath.Join(t.TempDir(), "configs"))
	a, b := run.Variants[0], run.Variants[1]
	if a.Params["mtu"] != "1024" || b.Params["mtu"] != "4096" || a.Params["qos.mtu"] != "1024" {
		t.Errorf("params %v / %v", a.Params, b.Params)
	}
	// One uncongested flow's goodput is line rate x MTU/(MTU+82).
	ra, rb := a.Summary.ThroughputGbpsTotal, b.Summary.ThroughputGbpsTotal
	ia, ib := engine.WireEfficiency(1024)*200, engine.WireEfficiency(4096)*200
	if !(ra < rb) || ra < 0.97*ia || rb < 0.97*ib {
		t.Errorf("goodput at MTU 1024 %v, at 4096 %v; want about %v and %v", ra, rb, ia, ib)
	}
	if len(a.Configs.Changes) != 0 {
		t.Errorf("an MTU point changed the switch configs: %+v", a.Configs.Changes)
	}
}

// Points that run the same configs (here each Kmin at two sender counts)
// share one set of files in the run folder, linked, not written again;
// points of other configs get their own.
func TestRunnerSweepLinksSharedConfigs(t *testing.T) {
	l, _ := simLab(t)
	s := mustParse(t, "name: ks\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  qos.ecn.kmin_kb: [100, 300]\n  traffic[0].senders: [2, 4]\nduration: 100us\nsample_every: 0\n"+
		"traffic:\n  - pattern: incast\n    senders: 4\n")
	out := filepath.Join(t.TempDir(), "configs")
	run := runSweep(t, l, s, 1, out)
	codec, _ := runtime.Codec(l.NOS)
	file := func(v *results.Variant) os.FileInfo {
		t.Helper()
		fi, err := os.Stat(filepath.Join(filepath.Dir(out), filepath.FromSlash(v.Configs.Dir), "leaf1"+codec.ConfigExt()))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	byKmin := map[string][]os.FileInfo{}
	for i := range run.Variants {
		v := &run.Variants[i]
		byKmin[v.Params["qos.ecn.kmin_kb"]] = append(byKmin[v.Params["qos.ecn.kmin_kb"]], file(v))
	}
	if len(byKmin) != 2 || len(byKmin["100"]) != 2 || len(byKmin["300"]) != 2 {
		t.Fatalf("points by Kmin: %v", byKmin)
	}
	for kmin, fs := range byKmin {
		if !os.SameFile(fs[0], fs[1]) {
			t.Errorf("Kmin %s: the two sender counts' configs are separate files, want one linked", kmin)
		}
	}
	if os.SameFile(byKmin["100"][0], byKmin["300"][0]) {
		t.Error("Kmin 100 and 300 share a file")
	}
}
