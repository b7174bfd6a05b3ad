package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// mixedConfig exercises every mechanism at once: ECMP over two spines,
// incast with DCQCN, PFC and ECN, a finite flow, sampling.
func mixedConfig(seed int64) Config {
	cfg := Config{
		Topology:      leafSpine(2, 2, 4, 100, 100),
		DefaultQoS:    losslessQoS(true, true, 50_000, 200_000),
		DurationNs:    400_000,
		WarmupNs:      100_000,
		Seed:          seed,
		DCQCN:         PaperDCQCN(100),
		DCQCNEnabled:  true,
		SampleEveryNs: 50_000,
		Watch:         []PortRef{{"leaf1", "Ethernet0"}, {"leaf0", "Ethernet100"}},
	}
	for i := 0; i < 4; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: "in" + fmtVal(i), Src: "h0-" + fmtVal(i), Dst: "h1-0", Role: "incast"})
	}
	cfg.Flows = append(cfg.Flows, Flow{ID: "short", Src: "h1-1", Dst: "h0-0", Bytes: 1 << 20, StartNs: 20_000})
	return cfg
}

func runJSON(t *testing.T, cfg Config) []byte {
	t.Helper()
	b, err := json.MarshalIndent(mustRun(t, cfg), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// targetDeterministic: the same seed gives the same result, byte for byte.
func targetDeterministic(t *testing.T, page *targetPage) {
	a := runJSON(t, mixedConfig(7))
	b := runJSON(t, mixedConfig(7))
	if !bytes.Equal(a, b) {
		t.Fatal("same config and seed gave different results")
	}
	c := runJSON(t, mixedConfig(8))
	if bytes.Equal(a, c) {
		t.Error("a different seed gave an identical result; the seed is not used")
	}
	page.row("same seed twice (ECMP, incast with DCQCN, PFC, ECN, a sized flow, sampling)", "byte-identical result",
		fmt.Sprintf("identical (%d bytes of JSON); another seed differs: %v", len(a), !bytes.Equal(a, c)))
}

// TestGolden pins the mixed scenario's result; a change in the model shows
// up as a diff to review (regenerate with -update).
func TestGolden(t *testing.T) {
	got := runJSON(t, mixedConfig(1))
	path := filepath.Join("testdata", "mixed.golden.json")
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("result differs from %s; if the change is intended, run go test -update and review the diff", path)
	}
	var r Result
	if err := json.Unmarshal(got, &r); err != nil {
		t.Fatal(err)
	}
	if r.Series == nil || len(r.Series.TimesNs) != 9 || len(r.Series.Queues) != 2 || len(r.Series.Rates) != 5 {
		t.Errorf("series shape wrong: %+v", r.Series)
	}
	if !r.Flows[4].Completed || r.Flows[4].FCTNs == nil {
		t.Errorf("short flow did not complete: %+v", r.Flows[4])
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := incastConfig(8, true, false, false, 50_000_000)
	_, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestConfigErrors(t *testing.T) {
	good := func() Config {
		return Config{Topology: star(2, 100), Flows: []Flow{{ID: "f", Src: "h1", Dst: "h0"}}, DurationNs: 1000}
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no duration", func(c *Config) { c.DurationNs = 0 }, "duration"},
		{"bad mtu", func(c *Config) { c.MTU = 100 }, "MTU"},
		{"huge duration", func(c *Config) { c.DurationNs = 1 << 62 }, "range"},
		{"huge skew", func(c *Config) { c.ClockSkewPPM = 1e6 }, "clock skew"},
		{"huge delay", func(c *Config) { c.Topology.Links[0].PropDelayNs = 1 << 50 }, "propagation delay"},
		{"late start", func(c *Config) { c.Flows[0].StartNs = 1 << 62 }, "start time"},
		{"negative AI", func(c *Config) { c.DCQCNEnabled = true; c.DCQCN = PaperDCQCN(100); c.DCQCN.RPGAIRateMbps = -1 }, "rpg_ai_rate"},
		{"bad QP timeout", func(c *Config) { c.QPTimeout = 40 }, "QP timeout"},
		{"bad retry count", func(c *Config) { c.RetryCount = new(9) }, "retry count"},
		{"bad pool", func(c *Config) {
			c.Topology.Nodes[0].Pools = []Pool{{Name: "in", Bytes: 1 << 20}}
			c.DefaultQoS = map[int]PortQoS{3: {Ingress: Admission{Pool: "nope"}}}
		}, `pool "nope"`},
		{"egress pool for ingress", func(c *Config) {
			c.Topology.Nodes[0].Pools = []Pool{{Name: "in", Bytes: 1 << 20}, {Name: "out", Egress: true, Bytes: 1 << 20}}
			c.DefaultQoS = map[int]PortQoS{3: {Ingress: Admission{Pool: "out"}}}
		}, "not an ingress pool"},
		{"no ingress pool", func(c *Config) {
			c.Topology.Nodes[0].Pools = []Pool{{Name: "out", Egress: true, Bytes: 1 << 20}}
		}, "no ingress pool"},
		{"unknown node", func(c *Config) { c.Topology.Links[0].A.Node = "zz" }, `unknown node "zz"`},
		{"dup port", func(c *Config) { c.Topology.Links[1].B = c.Topology.Links[0].B }, "already used"},
		{"zero rate", func(c *Config) { c.Topology.Links[0].RateGbps = 0 }, "rate"},
		{"unknown host", func(c *Config) { c.Flows[0].Dst = "h9" }, `unknown host "h9"`},
		{"switch endpoint", func(c *Config) { c.Flows[0].Dst = "sw" }, "switch"},
		{"bad port", func(c *Config) { c.Flows[0].Src = "h1:eth7" }, `no port "eth7"`},
		{"same nic", func(c *Config) { c.Flows[0].Dst = "h1" }, "same NIC"},
		{"dup flow", func(c *Config) { c.Flows = append(c.Flows, c.Flows[0]) }, "used twice"},
		{"unknown dep", func(c *Config) { c.Flows[0].After = []string{"x"} }, `unknown flow "x"`},
		{"cycle", func(c *Config) {
			c.Flows = []Flow{{ID: "a", Src: "h0", Dst: "h1", Bytes: 1, After: []string{"b"}}, {ID: "b", Src: "h1", Dst: "h0", Bytes: 1, After: []string{"a"}}}
		}, "cycle"},
		{"long-lived dep", func(c *Config) {
			c.Flows = append(c.Flows, Flow{ID: "g", Src: "h0", Dst: "h1", After: []string{"f"}})
		}, "never completes"},
		{"kmax<kmin", func(c *Config) { c.DefaultQoS = map[int]PortQoS{3: {ECN: true, KminBytes: 10, KmaxBytes: 5}} }, "Kmin"},
		{"qos on host", func(c *Config) { c.QoS = map[PortRef]map[int]PortQoS{{"h0", "eth0"}: {3: {}}} }, "host port"},
		{"qos unknown port", func(c *Config) { c.QoS = map[PortRef]map[int]PortQoS{{"sw", "Ethernet9"}: {3: {}}} }, "no link uses"},
		{"bad dscp map", func(c *Config) { c.DSCPToPriority = map[string]map[int]int{"": {26: 9}} }, "out of range"},
		{"dcqcn empty", func(c *Config) { c.DCQCNEnabled = true }, "PaperDCQCN"},
		{"watch without sampling", func(c *Config) { c.Watch = []PortRef{{"sw", "Ethernet0"}} }, "SampleEveryNs"},
		{"no path", func(c *Config) {
			c.Topology.Nodes = append(c.Topology.Nodes, Node{Name: "sw2", Kind: Switch}, Node{Name: "h9", Kind: Host})
			c.Topology.Links = append(c.Topology.Links, Link{A: PortRef{"h9", "eth0"}, B: PortRef{"sw2", "p0"}, RateGbps: 100})
			c.Flows[0].Dst = "h9"
		}, "no path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good()
			tc.edit(&cfg)
			_, err := Run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	if _, err := Run(context.Background(), good()); err != nil {
		t.Errorf("good config: %v", err)
	}
}

func TestMultiNICHost(t *testing.T) {
	topo := star(2, 100)
	topo.Links = append(topo.Links, Link{A: PortRef{"h1", "eth1"}, B: PortRef{"sw", "Ethernet9"}, RateGbps: 100, PropDelayNs: 100})
	r := mustRun(t, Config{
		Topology:   topo,
		DefaultQoS: losslessQoS(true, false, 0, 0),
		Flows: []Flow{
			{ID: "a", Src: "h1", Dst: "h0"},
			{ID: "b", Src: "h1:eth1", Dst: "h0"},
		},
		DurationNs: 1_000_000,
		WarmupNs:   500_000,
	})
	if r.Flows[0].Src != "h1:eth0" || r.Flows[1].Src != "h1:eth1" {
		t.Errorf("NICs = %s, %s; want h1:eth0 and h1:eth1", r.Flows[0].Src, r.Flows[1].Src)
	}
	line := lineGoodput(100, DefaultMTU)
	if !within(r.Totals.GoodputGbps, line, 0.01*line) || !within(r.Flows[0].GoodputGbps, line/2, 0.1*line/2) {
		t.Errorf("two NICs into one: total %.2f, a %.2f; want %.2f shared evenly", r.Totals.GoodputGbps, r.Flows[0].GoodputGbps, line)
	}
}

func TestSeries(t *testing.T) {
	cfg := incastConfig(4, true, false, false, 1_000_000)
	cfg.SampleEveryNs = 10_000
	cfg.Watch = []PortRef{{"sw", "Ethernet0"}, {"h1", "eth0"}}
	r := mustRun(t, cfg)
	s := r.Series
	if len(s.TimesNs) != 101 || s.TimesNs[100] != 1_000_000 {
		t.Fatalf("%d samples ending at %d ns, want 101 ending at 1 ms", len(s.TimesNs), s.TimesNs[len(s.TimesNs)-1])
	}
	var peak int64
	for _, b := range s.Queues[0].Bytes {
		peak = max(peak, b)
	}
	if peak < 100_000 {
		t.Errorf("receiver queue peaked at %d B in a 4:1 incast", peak)
	}
	paused := 0
	for _, p := range s.Queues[1].Paused {
		if p {
			paused++
		}
	}
	if paused == 0 || paused == len(s.Queues[1].Paused) {
		t.Errorf("sender NIC paused in %d of %d samples, want some", paused, len(s.Queues[1].Paused))
	}
	// Each sender's goodput series averages to about C/4 once paused.
	var sum float64
	g := s.Rates[0].GoodputGbps[50:]
	for _, v := range g {
		sum += v
	}
	if avg := sum / float64(len(g)); !within(avg, lineGoodput(100, DefaultMTU)/4, 2) {
		t.Errorf("sender goodput series averages %.2f Gb/s, want about %.2f", avg, lineGoodput(100, DefaultMTU)/4)
	}
}

// Observing a run must not change it: sampling time series (events that
// change nothing) leaves every flow and counter as it was, however often
// a sample falls at the same picosecond as another event.
func TestSamplingDoesNotChangeTheRun(t *testing.T) {
	// Without clock skew and switch jitter many events coincide.
	exact := func(seed int64) Config {
		cfg := mixedConfig(seed)
		cfg.ClockSkewPPM, cfg.SwitchJitterNs = -1, -1
		return cfg
	}
	for seed := int64(1); seed <= 4; seed++ {
		base := exact(seed)
		base.SampleEveryNs, base.Watch = 0, nil
		want := mustRun(t, base)
		want.Events = 0
		jw, _ := json.Marshal(want)
		for _, every := range []int64{1_000, 10_000} {
			cfg := exact(seed)
			cfg.SampleEveryNs = every
			got := mustRun(t, cfg)
			got.Series, got.Events = nil, 0
			if jg, _ := json.Marshal(got); !bytes.Equal(jg, jw) {
				t.Errorf("seed %d: sampling every %d ns changed the result of the run", seed, every)
			}
		}
	}
}
