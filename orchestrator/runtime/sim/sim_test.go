package sim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
	"github.com/labctl/labctl/orchestrator/scenario"
)

func upLab(t testing.TB, name, nos string) *runtime.Lab {
	t.Helper()
	l := runtimetest.NewLab(t, name, nos)
	if _, err := runtime.Up(context.Background(), New(), l, runtime.RenderStep); err != nil {
		t.Fatal(err)
	}
	return l
}

func runVariant(t testing.TB, l *runtime.Lab, vs runtime.VariantSpec) *results.Variant {
	t.Helper()
	v, err := New().RunVariant(context.Background(), l, vs)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestUpRendersAndStatus(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, f := range []string{"configs/leaf1.json", "configs/spine1.json", "16gpu.clab.yml", "state.json"} {
		if _, err := os.Stat(filepath.Join(l.Dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	st, err := New().Status(context.Background(), l)
	if err != nil || len(st.Nodes) != len(l.Graph.Nodes) {
		t.Fatalf("status %+v %v", st, err)
	}
	if err := New().Down(context.Background(), l); err != nil {
		t.Fatal(err)
	}
}

func TestUpDryRunWritesNothing(t *testing.T) {
	l := runtimetest.NewLab(t, "16gpu", "eos")
	var out strings.Builder
	l.DryRun, l.Progress = true, &out
	if _, err := runtime.Up(context.Background(), New(), l, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "would render") || !strings.Contains(out.String(), "leaf1.cfg") {
		t.Errorf("dry run said %q", out.String())
	}
	if _, err := os.Stat(l.Dir); !os.IsNotExist(err) {
		t.Errorf("dry run created %s", l.Dir)
	}
}

// TestUpLeavesRenderingToPrepare: the sim runtime's Up writes no config
// (the prepare step renders them, once): without one, a lab with no
// configs fails with the missing file and the fix, and its configs
// folder stays empty; with RenderStep it comes up.
func TestUpLeavesRenderingToPrepare(t *testing.T) {
	l := runtimetest.NewLab(t, "16gpu", "sonic")
	_, err := runtime.Up(context.Background(), New(), l, nil)
	if err == nil || !strings.Contains(err.Error(), "is missing") || !strings.Contains(err.Error(), "labctl up") {
		t.Fatalf("up without configs: %v, want the missing file and the fix", err)
	}
	if entries, _ := os.ReadDir(l.ConfigsDir()); len(entries) != 0 {
		t.Errorf("up without a prepare step wrote %d files into %s", len(entries), l.ConfigsDir())
	}
	if _, err := runtime.Up(context.Background(), New(), l, runtime.RenderStep); err != nil {
		t.Fatalf("up with RenderStep: %v", err)
	}
}

// editFile rewrites a config file with re replaced by repl and fails the
// test if nothing matched.
func editFile(t *testing.T, path string, re *regexp.Regexp, repl string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := re.ReplaceAll(data, []byte(repl))
	if string(out) == string(data) {
		t.Fatalf("%s: %s matched nothing", path, re)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Removing PFC from the leaf's ports in its vendor config makes the
// "pfc=on" variant lossy: the simulator runs what the files say.
func TestConfigEditRemovesPFC(t *testing.T) {
	for _, tc := range []struct {
		nos, file string
		re        *regexp.Regexp
		repl      string
	}{
		{"sonic", "leaf1.json", regexp.MustCompile(`"pfc_enable": "3"`), `"pfc_enable": ""`},
		{"eos", "leaf1.cfg", regexp.MustCompile(`(?m)^\s*priority-flow-control priority 3 no-drop\n`), ""},
	} {
		t.Run(tc.nos, func(t *testing.T) {
			l := upLab(t, "16gpu", tc.nos)
			vs := incast8(t, l, "duration: 1ms", false, true)
			before := runVariant(t, l, vs)
			if before.Summary.Drops != 0 || before.Summary.PFCPauseFrames == 0 {
				t.Fatalf("rendered %s configs: drops %d pauses %d, want lossless with pauses", tc.nos, before.Summary.Drops, before.Summary.PFCPauseFrames)
			}
			editFile(t, filepath.Join(l.ConfigsDir(), tc.file), tc.re, tc.repl)
			after := runVariant(t, l, vs)
			if after.Summary.Drops == 0 || after.Summary.PFCPauseFrames != 0 {
				t.Errorf("PFC removed from %s: drops %d pauses %d, want drops and no pauses", tc.file, after.Summary.Drops, after.Summary.PFCPauseFrames)
			}
		})
	}
}

// Lowering the ECN thresholds in the SONiC WRED profile marks at lower
// queue depths, so DCQCN cuts the senders earlier and the congested
// queue stays lower (on the 16gpu lab's 3.3 MB pool: p99 9.4 MB before,
// 3.7 MB after, on every seed tried). How many packets get marked is not
// a steady sign: fewer flows' packets queue above the lower Kmin when
// DCQCN holds them back sooner (seeds 1 to 5 mark 10-25% fewer).
func TestConfigEditECNThreshold(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := incast8(t, l, "duration: 3ms\nwarmup: 1ms", true, true)
	before := runVariant(t, l, vs)
	path := filepath.Join(l.ConfigsDir(), "leaf1.json")
	editFile(t, path, regexp.MustCompile(`"green_min_threshold": "\d+"`), `"green_min_threshold": "20480"`)
	editFile(t, path, regexp.MustCompile(`"green_max_threshold": "\d+"`), `"green_max_threshold": "102400"`)
	after := runVariant(t, l, vs)
	p99 := func(v *results.Variant) int64 {
		var q, mx int64
		for _, c := range v.Counters {
			if c.Node == "leaf1" && c.QueueP99Bytes != nil && *c.QueueMaxBytes > mx {
				q, mx = *c.QueueP99Bytes, *c.QueueMaxBytes
			}
		}
		return q
	}
	if before.Summary.ECNMarked == 0 || after.Summary.ECNMarked == 0 {
		t.Fatalf("ECN marks %d before, %d after: want marks in both", before.Summary.ECNMarked, after.Summary.ECNMarked)
	}
	if b, a := p99(before), p99(after); a >= b/2 {
		t.Errorf("the congested queue's p99 is %d B after lowering the thresholds to 20/100 KiB, %d B before: want well below (DCQCN reacting earlier)", a, b)
	}
}

func TestRunVariantDeterministic(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	vs := incast8(t, l, "duration: 1ms", true, true)
	va, vb := runVariant(t, l, vs), runVariant(t, l, vs)
	// What the variant cost is measured (wall time): the rest is the seed's.
	a, _ := json.Marshal(va.WithoutCost())
	b, _ := json.Marshal(vb.WithoutCost())
	if string(a) != string(b) {
		t.Error("same variant and seed gave different results")
	}
	// The engine's work is the seed's too.
	ca, cb := va.Cost, vb.Cost
	if ca == nil || cb == nil || ca.Events == nil || *ca.Events == 0 || *ca.Events != *cb.Events || *ca.PacketHops != *cb.PacketHops || ca.Threads != 1 || ca.EventsPerS == nil {
		t.Errorf("costs %v and %v: want the same events and packet hops, on one thread", ca, cb)
	}
}

// Every figure of the flow-level model says it was estimated, in the
// record as in the reports: its flows and summary, a ring AllReduce's and
// long-lived flows' alike; the packet engine's say simulated.
func TestFlowLevelFiguresSayEstimated(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, name := range []string{"allreduce", "incast"} {
		sc, err := scenario.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), sc.Points()[0], 1)
		if err != nil {
			t.Fatal(err)
		}
		vs.Model = runtime.ModelFlow
		v, err := New().RunVariant(context.Background(), l, vs)
		if err != nil {
			t.Fatal(err)
		}
		if v.Summary.Source != results.Estimated || len(v.Flows) == 0 {
			t.Errorf("%s: flow-level summary says %q (%d flows)", name, v.Summary.Source, len(v.Flows))
		}
		for _, f := range v.Flows {
			if f.Source != results.Estimated {
				t.Errorf("%s: flow-level flow %s says %q", name, f.ID, f.Source)
			}
		}
		for _, c := range v.Counters {
			t.Errorf("%s: flow-level counter %+v: the model counts nothing at ports", name, c)
		}
		for _, s := range v.Series {
			t.Errorf("%s: flow-level series %s: the model has no time", name, s.Name)
		}
	}
}

func TestFlowLevelAllReduce(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	sc, err := scenario.Resolve("allreduce")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), sc.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	fvs := vs
	fvs.Model = runtime.ModelFlow
	v, err := New().RunVariant(context.Background(), l, fvs)
	if err != nil {
		t.Fatal(err)
	}
	ar, _ := v.Extra["allreduce"].(map[string]any)
	// The model computes a time: no completion, no phases filled in.
	est, _ := ar["estimated_us"].(float64)
	if ar["model"] != runtime.ModelFlow || est <= 0 || ar["simulated_us"] != nil || ar["completed"] != nil || ar["phases"] != nil {
		t.Errorf("flow-level AllReduce: %v", ar)
	}
	if v.Summary.Model != runtime.ModelFlow || len(v.Summary.NotComputed) == 0 || len(v.Flows) != len(vs.Collective.Ranks) {
		t.Errorf("flow-level summary %+v with %d flows", v.Summary, len(v.Flows))
	}
	// The model has no packets: its cost is a wall time, no events.
	if c := v.Cost; c == nil || c.Events != nil || c.EventsPerS != nil || c.PacketHops != nil || c.Threads != 1 {
		t.Errorf("flow-level cost %+v", c)
	}
	// The packet engine agrees within a few percent on this small fabric.
	pv, err := New().RunVariant(context.Background(), l, vs)
	if err != nil {
		t.Fatal(err)
	}
	par := pv.Extra["allreduce"].(map[string]any)
	ratio := par["simulated_us"].(float64) / est
	if par["model"] != runtime.ModelPacket || ratio < 0.95 || ratio > 1.05 {
		t.Errorf("packet %v us vs flow-level %v us", par["simulated_us"], ar["estimated_us"])
	}
}

// A ring AllReduce is done long before its scenario's duration (the run
// ends with its work): the progress the runtime reports follows the
// bytes delivered, so the ETA comes from the work left, not from the
// simulated time left of the duration.
func TestProgressFollowsTheWork(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	sc, err := scenario.Resolve("allreduce")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), sc.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []runtime.Progress
	vs.Progress = func(p runtime.Progress) { got = append(got, p) }
	v := runVariant(t, l, vs)
	done := v.Extra["allreduce"].(map[string]any)["simulated_us"].(float64)
	if len(got) == 0 {
		t.Fatal("no progress reported")
	}
	for _, p := range got {
		share := float64(p.SimulatedNs) / float64(p.TotalNs)
		// The ring takes done us of the duration: by its bytes, the run
		// is that much further along than by the clock (half of it, for
		// the ring's start and the NICs' ramp).
		if p.TotalNs != int64(vs.DurationUs*1000) || p.Done > 1 || p.Done < 0.5*share*vs.DurationUs/done {
			t.Errorf("progress %+v (time's share %.3f): the ring is done at %.0f us of %.0f", p, share, done, vs.DurationUs)
		}
	}
}

func TestRunVariantBadEndpoint(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := incast8(t, l, "duration: 1ms", true, true)
	vs.Flows[0].Src.Host = "host99"
	if _, err := New().RunVariant(context.Background(), l, vs); err == nil || !strings.Contains(err.Error(), "host99") {
		t.Errorf("bad endpoint: %v", err)
	}
}

func TestRunVariantCancelled(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().RunVariant(ctx, l, incast8(t, l, "duration: 1ms", true, true)); err == nil {
		t.Error("cancelled context: no error")
	}
}

// The PFC XOFF point follows the SONiC profile's dynamic_th (alpha =
// 2^dynamic_th of the free buffer): a smaller alpha pauses earlier and
// keeps queues, and so latency, lower.
func TestConfigEditDynamicThreshold(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	vs := incast8(t, l, "duration: 1ms", false, true)
	before := runVariant(t, l, vs)
	path := filepath.Join(l.ConfigsDir(), "leaf1.json")
	editFile(t, path, regexp.MustCompile(`("pg_lossless_\d+_\d+m_profile": \{\s*"dynamic_th": )"0"`), `$1"-4"`)
	after := runVariant(t, l, vs)
	if after.Summary.Drops != 0 {
		t.Errorf("drops %d with a lower XOFF point, want none", after.Summary.Drops)
	}
	if after.Summary.LatencyUsP99 >= before.Summary.LatencyUsP99 {
		t.Errorf("p99 %v us with dynamic_th -4, %v us with 0: want lower", after.Summary.LatencyUsP99, before.Summary.LatencyUsP99)
	}
}

// A simulated flow crosses the spine and the merged-link member that
// `labctl trace` shows for the same flow.
// A run with --seed N routes each flow on the path `labctl trace
// --hash-seed N` shows, so different seeds sample different collisions.
func TestRunFollowsTrace(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	chosen := map[string]bool{}
	for _, seed := range []int64{1, 7, 42} {
		vs := runtime.VariantSpec{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Seed: seed, DurationUs: 100, SeriesEvery: -1,
			Flows: []runtime.FlowSpec{{ID: "f", Src: runtime.Endpoint{Host: "host1", NIC: 0}, Dst: runtime.Endpoint{Host: "host5", NIC: 0}, Pattern: "pairs", TrafficClass: 106}}}
		v := runVariant(t, l, vs)
		g := l.Graph
		src, dst := fabricEndpoint("host1", 0), fabricEndpoint("host5", 0)
		key, err := g.FlowKeyFor(src, dst, 49152)
		if err != nil {
			t.Fatal(err)
		}
		path, err := g.TraceWithSeed(src, dst, key, uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		want := append([]string{"host1"}, path.Nodes()[1:]...)
		if got := v.Flows[0].Path; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("seed %d: simulated path %v, trace %v", seed, got, want)
		}
		// The chosen member of leaf1's merged uplink carries the flow.
		h := path.Hops[0]
		c := h.Candidates[h.Chosen]
		port := fabric.MemberPort(h.Out, c.Member-1)
		chosen[port] = true
		var tx int64
		for _, ctr := range v.Counters {
			if ctr.Node == "leaf1" && ctr.Port == port {
				tx += ctr.TxBytes
			}
		}
		if tx == 0 {
			t.Errorf("seed %d: leaf1:%s (member %d of %s, the trace's choice) carried nothing", seed, port, c.Member, h.Out)
		}
	}
	if len(chosen) < 2 {
		t.Errorf("three seeds all chose %v: the seed does not reach the ECMP hash", chosen)
	}
}

func fabricEndpoint(host string, nic int) fabric.Endpoint {
	return fabric.Endpoint{Host: host, NIC: nic}
}

// A variant that changes no config (VariantSpec.ChangesConfigs) runs on
// the configs runtime.LoadConfigsToRead keeps for the whole run, not on a
// copy (runtime.VariantOnlyConfigs): the simulation must leave them as it
// found them, or the variants after it would run other configs.
func TestVariantLeavesConfigsAlone(t *testing.T) {
	for _, c := range []struct {
		lab, nos  string
		scenarios []string
	}{
		{"16gpu", "sonic", []string{"ecn-pfc", "pfc-storm", "baseline-bw", "nccl-allreduce", "allreduce"}},
		{"16gpu", "eos", []string{"ecn-pfc", "pfc-storm"}},
		// Link faults and load balancing need more than one path; the
		// transports (UET, InfiniBand) their own settings.
		{"64gpu", "sonic", []string{"link-failure", "lb-compare", "transports"}},
	} {
		l := upLab(t, c.lab, c.nos)
		kept, err := runtime.LoadConfigsToRead(l)
		if err != nil {
			t.Fatal(err)
		}
		before, err := runtime.LoadConfigs(l) // a copy
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.scenarios {
			sc, err := scenario.Resolve(name)
			if err != nil {
				t.Fatal(err)
			}
			// As a run does: faults named by what crosses them
			// (on_path) follow the flows on the lab's fabric.
			if err := sc.CheckLab(l.Graph); err != nil {
				t.Fatal(err)
			}
			faulted := false
			for _, pt := range sc.Points() {
				vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), pt, 1)
				if err != nil {
					t.Fatal(err)
				}
				if vs.ChangesConfigs() {
					continue
				}
				got, err := runtime.VariantOnlyConfigs(l, vs)
				if err != nil {
					t.Fatal(err)
				}
				if &got[0] != &kept[0] {
					t.Fatalf("%s %s: VariantOnlyConfigs copied the configs of a variant that changes none", c.nos, name)
				}
				// The configs are read as the engine's config is built
				// and as the record is made from the result; how long
				// the engine runs does not matter here (but a fault must
				// fall within the run).
				if len(vs.Faults) == 0 {
					vs.DurationUs, vs.WarmupUs = min(vs.DurationUs, 300), 0
				} else if faulted {
					continue // one run with its whole duration is enough
				}
				faulted = faulted || len(vs.Faults) > 0
				models := []string{""}
				if name == "allreduce" {
					models = append(models, runtime.ModelFlow) // b.runFlowLevel reads the configs too
				}
				for _, m := range models {
					vs.Model = m
					runVariant(t, l, vs)
					if !reflect.DeepEqual(kept, before) {
						t.Fatalf("%s %s variant %s (model %q) changed the lab's configs it was given", c.nos, name, vs.Name, m)
					}
				}
			}
		}
	}
}

// Variants run side by side (labctl run -j) share the configs the run
// keeps where they change none: run at once they give what they give one
// after the other. Under the race detector (make test runs it) this also
// holds every reader of the shared configs to reading.
func TestVariantsAtOnceShareConfigs(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	sc, err := scenario.Parse("t.yaml", []byte("name: t\nmatrix:\n  ecn: [on, off]\n  pfc: [on, off]\n  traffic[0].senders: [4, 8]\n"+
		"duration: 300us\nsample_every: 50us\ntraffic:\n  - pattern: incast\n    senders: 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	var specs []runtime.VariantSpec
	for _, pt := range sc.Points() {
		vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), pt, 1)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, vs)
	}
	record := func(v *results.Variant) string {
		v.Cost = nil // wall time
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var want []string
	for _, vs := range specs {
		want = append(want, record(runVariant(t, l, vs)))
	}
	got := make([]string, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, vs := range specs {
		wg.Go(func() {
			v, err := New().RunVariant(context.Background(), l, vs)
			if errs[i] = err; err == nil {
				got[i] = record(v)
			}
		})
	}
	wg.Wait()
	for i := range specs {
		if errs[i] != nil {
			t.Fatalf("%s: %v", specs[i].Name, errs[i])
		}
		if got[i] != want[i] {
			t.Errorf("%s run beside the others differs from it run alone", specs[i].Name)
		}
	}
}
