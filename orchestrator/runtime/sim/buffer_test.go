package sim

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/scenario"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// nineHosts is one switch with nine 100G hosts, MTU 4096: the RoCE
// exercises' bench.
const nineHosts = `name: nine
sizing:
  gpus: 9
  gpus_per_server: 1
  nic_speed_gbps: 100
  leaf_speed_gbps: 100
  tiers: 1
qos:
  mtu: 4096
`

func upSpec(t testing.TB, yaml, nos string) *runtime.Lab {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "lab.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := lab.Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := runtime.NewLab(spec, dir, nos)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.Up(context.Background(), New(), l, runtime.RenderStep); err != nil {
		t.Fatal(err)
	}
	return l
}

// editSONiC rewrites a switch's config_db file as a user would.
func editSONiC(t testing.TB, l *runtime.Lab, sw string, edit func(doc map[string]map[string]map[string]string)) {
	t.Helper()
	path := filepath.Join(l.ConfigsDir(), sw+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]map[string]string
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, _ := json.MarshalIndent(doc, "", "    ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// incast8 expands an 8:1 incast of long-lived flows for one ECN/PFC point;
// timing is the scenario's duration (and warmup), as YAML.
func incast8(t testing.TB, l *runtime.Lab, timing string, ecn, pfc bool) runtime.VariantSpec {
	t.Helper()
	return incast8With(t, l, timing, "", ecn, pfc)
}

// incast8With is incast8 with more keys of the traffic entry (indented
// lines such as "    tx_depth: 15000\n").
func incast8With(t testing.TB, l *runtime.Lab, timing, keys string, ecn, pfc bool) runtime.VariantSpec {
	t.Helper()
	sc, err := scenario.Parse("t.yaml", []byte("name: t\n"+timing+"\nsample_every: 0\ntraffic:\n  - pattern: incast\n    senders: 8\n"+keys))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: scenario.VariantName(ecn, pfc), ECN: ecn, PFC: pfc}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// engineConfig is the simulator's input for a variant of the lab's
// configs as they are on disk, and the builder that made it.
func engineConfig(t testing.TB, l *runtime.Lab, vs runtime.VariantSpec) (*builder, *engine.Config) {
	t.Helper()
	cfgs, err := runtime.LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ApplyVariant(cfgs, vs.ECN, vs.PFC)
	in, _ := l.Intent()
	b, err := newBuilder(l, cfgs, in)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := b.config(vs)
	if err != nil {
		t.Fatal(err)
	}
	return b, cfg
}

// maxQueue is the deepest the receiver's egress queue got on priority 3.
func maxQueueOf(t testing.TB, l *runtime.Lab, vs runtime.VariantSpec) (int64, *results.Variant) {
	t.Helper()
	b, cfg := engineConfig(t, l, vs)
	res, err := engine.Run(context.Background(), *cfg)
	if err != nil {
		t.Fatal(err)
	}
	var q int64
	for _, p := range res.Ports {
		if p.Node == "leaf1" {
			q = max(q, p.MaxQueueBytes)
		}
	}
	return q, b.variant(vs, cfg, res)
}

// Each buffer field of a SONiC config changes the simulation as the switch
// would: a static threshold caps what each ingress PG holds before XOFF, a
// higher XON floor resumes sooner (more pause frames), a smaller lossy
// egress alpha drops more, a larger pool pauses later.
func TestSONiCBufferFieldsChangeTheSimulation(t *testing.T) {
	pfcOnly := func(l *runtime.Lab) runtime.VariantSpec { return incast8(t, l, "duration: 1ms", false, true) }
	// Lossy senders that never run out of posted messages (a tx depth
	// beyond what 1 ms moves), so that what they lose is the buffer's
	// doing: with perftest's 128 a sender whose losses are not yet
	// recovered stops, and how many it loses depends on its recovery.
	lossy := func(l *runtime.Lab) runtime.VariantSpec {
		return incast8With(t, l, "duration: 1ms", "    tx_depth: 15000\n", false, false)
	}
	lossless := func(doc map[string]map[string]map[string]string) map[string]string {
		for name, p := range doc["BUFFER_PROFILE"] {
			if strings.HasPrefix(name, "pg_lossless_") {
				return p
			}
		}
		t.Fatal("no lossless PG profile")
		return nil
	}

	base := upSpec(t, nineHosts, "sonic")
	qDyn, vDyn := maxQueueOf(t, base, pfcOnly(base))

	t.Run("static_th", func(t *testing.T) {
		l := upSpec(t, nineHosts, "sonic")
		editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
			p := lossless(doc)
			delete(p, "dynamic_th")
			p["static_th"] = "50000"
		})
		q, v := maxQueueOf(t, l, pfcOnly(l))
		// Each of 8 ingress PGs holds at most its reserve (xon), 50000 B
		// shared and its headroom before the queue stops growing.
		if bound := 8 * (8192 + 50000 + qos.HeadroomBytes(100, 4096, 5, qos.ResponseBits(100))); q > bound || q >= qDyn {
			t.Errorf("max queue with static_th 50000: %d B, want at most %d and below the dynamic_th 0 run's %d", q, bound, qDyn)
		}
		if v.Summary.Drops != 0 {
			t.Errorf("static threshold: %d drops, want 0 (PFC)", v.Summary.Drops)
		}
	})
	t.Run("xon", func(t *testing.T) {
		set := func(xon string) int64 {
			l := upSpec(t, nineHosts, "sonic")
			editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
				p := lossless(doc)
				delete(p, "dynamic_th")
				p["static_th"] = "50000"
				p["xon_offset"] = "30000"
				p["xon"] = xon
			})
			_, v := maxQueueOf(t, l, pfcOnly(l))
			return v.Summary.PFCPauseFrames
		}
		// XON at max(xon, limit - xon_offset): 28192 B with xon 8192,
		// 57000 B (just below the 58192 B limit) with xon 57000.
		low, high := set("8192"), set("57000")
		if high <= low {
			t.Errorf("pause frames with xon 57000: %d, want more than with xon 8192 (XON at 28192 B): %d", high, low)
		}
	})
	t.Run("egress lossy limit", func(t *testing.T) {
		drops := func(th string) (int64, int64) {
			l := upSpec(t, nineHosts, "sonic")
			editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
				doc["BUFFER_PROFILE"]["egress_lossy_profile"]["dynamic_th"] = th
			})
			q, v := maxQueueOf(t, l, lossy(l))
			return v.Summary.Drops, q
		}
		d3, q3 := drops("3")
		dm4, qm4 := drops("-4")
		if dm4 <= d3 || qm4 >= q3 {
			t.Errorf("lossy incast: dynamic_th -4 gives %d drops and a %d B queue, dynamic_th 3 %d drops and %d B: want more drops and a shorter queue with the smaller alpha", dm4, qm4, d3, q3)
		}
		// The limit is alpha/(1+alpha) of the pool for one queue (the
		// 100G switch's pool: the bench's default).
		if want := float64(qos.SwitchBufferFor(100).IngressPoolBytes) / 17; math.Abs(float64(qm4)-want) > 0.05*want {
			t.Errorf("lossy queue with dynamic_th -4 peaked at %d B, want about pool/17 = %.0f", qm4, want)
		}
	})
	t.Run("pool size", func(t *testing.T) {
		// The default 100G switch's pool is 3302912 B: the eight PGs
		// reach XOFF near 2.9 MB and pause; with 32 MiB they would hold
		// ten times as much, more than this incast brings in 1 ms.
		l := upSpec(t, nineHosts, "sonic")
		editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
			doc["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = "33554432"
		})
		q, v := maxQueueOf(t, l, pfcOnly(l))
		if q <= qDyn || 10*v.Summary.PFCPauseFrames >= vDyn.Summary.PFCPauseFrames {
			t.Errorf("32 MiB pool: queue %d B, %d pauses; the default pool: %d B, %d pauses — want a longer queue and a tenth of the pauses at most", q, v.Summary.PFCPauseFrames, qDyn, vDyn.Summary.PFCPauseFrames)
		}
	})
	t.Run("explicit xoff 0", func(t *testing.T) {
		l := upSpec(t, nineHosts, "sonic")
		editSONiC(t, l, "leaf1", func(doc map[string]map[string]map[string]string) {
			lossless(doc)["xoff"] = "0"
		})
		_, v := maxQueueOf(t, l, pfcOnly(l))
		if v.Summary.Drops == 0 {
			t.Error("xoff 0 (no headroom): no drops; the bytes in flight after XOFF have nowhere to go")
		}
		cfgs, _ := runtime.LoadConfigs(l)
		in, _ := l.Intent()
		fs := qos.Lint(cfgs, qos.LintOptions{Intent: &in})
		if !hasRule(fs, qos.RuleLosslessPG, "with xoff 0: the switch cannot pause it") {
			t.Errorf("lint of xoff 0: %+v, want QOS014 naming xoff 0", fs)
		}
	})
	if vDyn.Summary.Drops != 0 || vDyn.Summary.PFCPauseFrames == 0 {
		t.Errorf("base PFC incast: %d drops, %d pauses", vDyn.Summary.Drops, vDyn.Summary.PFCPauseFrames)
	}
}

func hasRule(fs []qos.Finding, rule, contains string) bool {
	for _, f := range fs {
		if f.Rule == rule && strings.Contains(f.Message, contains) {
			return true
		}
	}
	return false
}

// Lint and the simulator refuse the same values: whatever the engine
// would refuse, qos.Problems (lint rule QOS010) reports, and a run stops
// on it before simulating with lint's own words.
func TestLintAndSimulatorRefuseTheSameValues(t *testing.T) {
	l := upSpec(t, nineHosts, "sonic")
	in, _ := l.Intent()
	vs := incast8(t, l, "duration: 50us", true, true)
	i64 := func(v int64) *int64 { return &v }
	// harm: the rule of the lint error a valid but harmful value draws
	// (a valid value that lint rates as harm is no refusal: the run
	// simulates it, lint's error says what it does).
	cases := []struct {
		name  string
		edit  func(dc *qos.DeviceConfig)
		valid bool
		harm  string
	}{
		{"ecn min -5", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(3).ECN.MinBytes = -5 }, false, ""},
		{"ecn max below min", func(dc *qos.DeviceConfig) { e := dc.Ports[0].Queue(3).ECN; e.MaxBytes = e.MinBytes - 1 }, false, ""},
		{"ecn probability 500%", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(3).ECN.Pmax = 5 }, false, ""},
		{"ecn probability -1%", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(3).ECN.Pmax = -0.01 }, false, ""},
		{"ecn probability 50%", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(3).ECN.Pmax = 0.5 }, true, ""},
		{"weight -1", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(0).Weight = -1 }, false, ""},
		{"weight 60", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(0).Weight = 60 }, true, ""},
		{"pg dynamic_th 11", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(3).DynamicTh = qos.Ptr(11) }, false, ""},
		// Alpha 1/256 puts RoCE's PG's XOFF point below its queue's ECN
		// Kmin: nothing is marked before PFC pauses (QOS004, an error).
		{"pg dynamic_th -8", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(3).DynamicTh = qos.Ptr(-8) }, true, qos.RuleECNThresholds},
		{"pg dynamic_th -9", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(3).DynamicTh = qos.Ptr(-9) }, false, ""},
		{"pg pool undefined", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(0).Pool = "nope" }, false, ""},
		{"queue on an ingress pool", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(0).Buffer.Pool = qos.IngressLosslessPool }, false, ""},
		{"pg on an egress pool", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(0).Pool = qos.EgressLossyPool }, false, ""},
		{"pg size -1", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(3).SizeBytes = i64(-1) }, false, ""},
		{"pg xoff -1", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(3).XoffBytes = i64(-1) }, false, ""},
		{"pg xon_offset -1", func(dc *qos.DeviceConfig) { dc.Ports[0].PG(3).XonOffsetBytes = i64(-1) }, false, ""},
		{"queue static_th -1", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(0).Buffer.StaticThBytes = i64(-1) }, false, ""},
		{"queue static_th 0 (no limit)", func(dc *qos.DeviceConfig) { dc.Ports[0].Queue(0).Buffer.StaticThBytes = i64(0) }, true, ""},
		{"pool size -1", func(dc *qos.DeviceConfig) { dc.Pools[0].SizeBytes = -1 }, false, ""},
		{"headroom pool -1", func(dc *qos.DeviceConfig) { dc.Pools[2].HeadroomPoolBytes = i64(-1) }, false, ""},
		{"headroom pool 1 MiB", func(dc *qos.DeviceConfig) { dc.Pools[2].HeadroomPoolBytes = i64(1 << 20) }, true, ""},
		{"no ingress pool", func(dc *qos.DeviceConfig) { dc.Pools = dc.Pools[:2] }, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfgs, err := runtime.LoadConfigs(l)
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(&cfgs[0])
			var errs []qos.Finding
			for _, f := range append(qos.Problems(&cfgs[0]), qos.Lint(cfgs[:1], qos.LintOptions{Intent: &in})...) {
				if f.Severity == qos.SevError {
					errs = append(errs, f)
				}
			}
			harmOnly := tc.harm != "" && len(errs) > 0 && !slices.ContainsFunc(errs, func(f qos.Finding) bool { return f.Rule != tc.harm })
			if tc.harm != "" && !harmOnly {
				t.Errorf("lint errors %v, want %s's alone", errs, tc.harm)
			}
			lintErr := len(errs) > 0 && !harmOnly
			// The engine alone, without the runtime's check in front.
			b, err := newBuilder(l, cfgs, in)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := b.config(vs)
			simErr := err
			if err == nil {
				_, simErr = engine.Run(context.Background(), *cfg)
			}
			if simErr != nil && !lintErr {
				t.Errorf("the simulator refuses (%v) what lint passes", simErr)
			}
			if tc.valid && (lintErr || simErr != nil) {
				t.Errorf("a valid value: lint error %v, simulator %v", lintErr, simErr)
			}
			if !tc.valid && !lintErr {
				t.Errorf("lint passes an invalid value")
			}
			// A run refuses whatever lint reports, exit 2, naming the rule.
			_, runErr := New().RunVariantWithConfigs(context.Background(), l, vs, cfgs)
			var ee *exitcode.Error
			if !tc.valid && (runErr == nil || !errors.As(runErr, &ee) || ee.Code != exitcode.BadInput || !strings.Contains(runErr.Error(), "labctl config lint")) {
				t.Errorf("run: %v, want exit 2 pointing at lint", runErr)
			}
		})
	}
}

// qos.buffer_pool_bytes sizes every switch's pools: rendered into a SONiC
// config, applied to the platform pools an EOS config stands on, and the
// simulated queue follows it.
func TestLabSizesTheBuffer(t *testing.T) {
	const pool = 8 << 20
	for _, nos := range []string{"sonic", "eos"} {
		t.Run(nos, func(t *testing.T) {
			l := upSpec(t, nineHosts+"  buffer_pool_bytes: 8388608\n", nos)
			cfgs, err := runtime.LoadConfigs(l)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{qos.IngressLosslessPool, qos.EgressLossyPool} {
				if pl := cfgs[0].Pool(name); pl == nil || pl.SizeBytes != pool {
					t.Errorf("%s: %+v, want %d bytes", name, pl, pool)
				}
			}
			if cfgs[0].IngressPoolBytes() != pool {
				t.Errorf("shared pool %d, want %d", cfgs[0].IngressPoolBytes(), pool)
			}
		})
	}
	// The queue of a PFC-only incast stops near 8/9 of the pool (eight
	// ingress PGs with alpha 1), well above the default 100G switch's.
	l := upSpec(t, nineHosts+"  buffer_pool_bytes: 8388608\n", "sonic")
	q, _ := maxQueueOf(t, l, incast8(t, l, "duration: 2ms", false, true))
	base := upSpec(t, nineHosts, "sonic")
	qBase, _ := maxQueueOf(t, base, incast8(t, base, "duration: 2ms", false, true))
	if q < 2*qBase || float64(q) > 1.1*float64(pool) {
		t.Errorf("PFC-only queue with an 8 MiB pool: %d B (default pool: %d B), want above twice the default's and below the pool", q, qBase)
	}
}

// A variant's counters carry the engine's queue depth at every switch port
// and priority (0 meaning nothing queued), and none at NIC ports, which
// queue no data bytes: absent there, not 0.
func TestCountersCarryQueueDepth(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	q, v := maxQueueOf(t, l, incast8(t, l, "duration: 1ms", false, true))
	var deepest *results.Counter
	for i := range v.Counters {
		c := &v.Counters[i]
		n := l.Graph.Node(c.Node)
		if n == nil {
			t.Fatalf("counter of unknown node %s", c.Node)
		}
		sw := n.Role != fabric.RoleHost
		has := c.QueueP50Bytes != nil && c.QueueP99Bytes != nil && c.QueueMaxBytes != nil
		if sw != has || c.Source != results.Simulated {
			t.Errorf("%s %s priority %d (switch %v): queue p50 %v p99 %v max %v, source %s", c.Node, c.Port, c.Priority, sw, c.QueueP50Bytes, c.QueueP99Bytes, c.QueueMaxBytes, c.Source)
			continue
		}
		if !has {
			continue
		}
		if *c.QueueP50Bytes > *c.QueueP99Bytes || *c.QueueP99Bytes > *c.QueueMaxBytes {
			t.Errorf("%s %s priority %d: p50 %d > p99 %d or p99 > max %d", c.Node, c.Port, c.Priority, *c.QueueP50Bytes, *c.QueueP99Bytes, *c.QueueMaxBytes)
		}
		if deepest == nil || *c.QueueMaxBytes > *deepest.QueueMaxBytes {
			deepest = c
		}
	}
	// The incast's receiver port is the deepest queue, and congested.
	if deepest == nil || *deepest.QueueMaxBytes != q || *deepest.QueueP99Bytes < results.CongestedQueueBytes || *deepest.QueueP50Bytes == 0 {
		t.Errorf("deepest queue %+v, want the engine's peak %d with p99 of at least %d", deepest, q, results.CongestedQueueBytes)
	}
}
