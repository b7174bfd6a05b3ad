package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
)

// TestRunProperties generates valid scenarios at random (seeded, so the
// same seed and index give the same scenario), runs each on the small
// catalog labs and checks what must hold of a run record for any valid
// input: labctl exits 0 (the scenarios carry no assertions) or refuses,
// with exit 2, a combination it documents as unsupported, naming the fix;
// run.json parses, holds no NaN or Inf, no negative counter, fairness in
// [0, 1], ordered latency percentiles, no flow faster than its NICs and no
// more delivered than the receivers' links carry, sized flows that
// completed delivered their bytes, RoCE with PFC drops nothing to
// congestion, a metric the model does not compute is absent, the summary
// is its flows' (total, least, fairness, failures), and the reports hold
// no NaN either; and the record is the same, byte for byte apart from
// ids, times and cost, with -j 1 and -j 2, and with --threads 1 and
// --threads 2 on a fabric split in two (params.partitions says so, or the
// cost says why it did not split).
//
// LABCTL_PROPERTY_N sets how many scenarios (default 40: under 20 s on 2
// cores), LABCTL_PROPERTY_SEED the generator's seed (default 1) and
// LABCTL_PROPERTY_ONLY one index to run alone (a failure names seed and
// index; TestRunPropertiesGenerator with LABCTL_PROPERTY_PRINT=1 prints the scenarios). Above the default
// every scenario runs all four ways (the default alternates the pairs);
// `make property` runs 1500.
func TestRunProperties(t *testing.T) {
	n := envInt(t, "LABCTL_PROPERTY_N", 40)
	seed := uint64(envInt(t, "LABCTL_PROPERTY_SEED", 1))
	only := envInt(t, "LABCTL_PROPERTY_ONLY", -1)
	full := n > 40
	labs := newPropLabs(t)
	var refusals []string
	start := time.Now()
	ran := 0
	for i := range n {
		if only >= 0 && i != only {
			continue
		}
		sc := genScenario(seed, i)
		ran++
		name := fmt.Sprintf("seed %d index %d (%s on %s/%s%s)", seed, i, sc.name, sc.lab.name, sc.lab.nos, map[bool]string{true: ", shaped"}[sc.lab.shaped]+map[bool]string{true: ", remarked"}[sc.lab.remarked]+map[bool]string{true: ", policy-map"}[sc.lab.policed])
		dir := labs.dir(t, sc.lab)
		file := filepath.Join(t.TempDir(), sc.name+".yaml")
		if err := os.WriteFile(file, []byte(sc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		modes := [][]string{{"-j", "1"}, {"-j", "2"}}
		if i%2 == 1 {
			modes = [][]string{{"-j", "1", "--partitions", "2", "--threads", "1"}, {"-j", "1", "--partitions", "2", "--threads", "2"}}
		}
		if full {
			modes = [][]string{{"-j", "1"}, {"-j", "2"}, {"-j", "1", "--partitions", "2", "--threads", "1"}, {"-j", "2", "--partitions", "2", "--threads", "2"}}
		}
		var records []string
		var refused string
		var violations []string
		t0 := time.Now()
		for m, args := range modes {
			code, rec, raw, stderr := propRun(t, dir, file, sc.lab.name, args)
			if code == exitcode.BadInput {
				if m == 0 {
					refused = stderr
					break
				}
				t.Errorf("%s %v: exit 2 where %v ran: %s\n%s", name, args, modes[0], stderr, sc.yaml)
				break
			}
			if code != 0 || rec == nil {
				t.Errorf("%s %v: exit %d, want 0 (no assertions): %s\n%s", name, args, code, stderr, sc.yaml)
				break
			}
			for _, v := range checkRecord(sc, rec, raw, args) {
				if !slices.Contains(violations, v) {
					violations = append(violations, v)
				}
			}
			if m%2 == 1 && len(records) > 0 {
				if got := recordWithoutCost(t, rec); got != records[len(records)-1] {
					t.Errorf("%s: the record with %v differs from the one with %v: %s\n%s", name, args, modes[m-1], firstDiff(records[len(records)-1], got), sc.yaml)
				}
			}
			records = append(records, recordWithoutCost(t, rec))
		}
		if len(violations) > 0 {
			if len(violations) > 8 {
				violations = append(violations[:8], fmt.Sprintf("and %d more", len(violations)-8))
			}
			t.Errorf("%s:\n  %s\n%s", name, strings.Join(violations, "\n  "), sc.yaml)
		}
		t.Logf("%s: %d runs in %s", name, len(records), time.Since(t0).Round(time.Millisecond))
		if refused != "" {
			refusals = append(refusals, fmt.Sprintf("%s: %s", name, strings.TrimSpace(refused)))
			if !refusalNamesFix(refused) {
				t.Errorf("%s: refused without naming the fix: %s\n%s", name, refused, sc.yaml)
			}
			if !sc.mayRefuse {
				t.Errorf("%s: a valid scenario was refused: %s\n%s", name, refused, sc.yaml)
			}
		}
	}
	t.Logf("%d scenarios in %s; %d refused", ran, time.Since(start).Round(time.Millisecond), len(refusals))
	for _, r := range refusals {
		t.Logf("refused: %s", r)
	}
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: want a number", name, s)
	}
	return v
}

// propLab is a catalog lab the generator places scenarios on.
type propLab struct {
	name, nos    string
	nics, leaves int
	// shaped: RoCE's queue is shaped below the NICs' rate on every
	// switch port, and the ports as a whole below the spines' (shapeLab).
	shaped bool
	// remarked: every SONiC switch port sends RoCE's class as DSCP 27,
	// which every switch classifies into RoCE's class (remarkLab).
	remarked bool
	// policed: every EOS port classifies RoCE by a policy-map, into the
	// class its maps give it (policyLab).
	policed bool
}

type propLabs struct {
	mu   sync.Mutex
	dirs map[propLab]string
}

func newPropLabs(*testing.T) *propLabs { return &propLabs{dirs: map[propLab]string{}} }

// dir brings the lab up on first use.
func (p *propLabs) dir(t *testing.T, l propLab) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.dirs[l]; ok {
		return d
	}
	d := upLab(t, l.name, "--nos", l.nos)
	if l.shaped {
		shapeLab(t, d, l)
	}
	if l.remarked {
		remarkLab(t, d, l)
	}
	if l.policed {
		policyLab(t, d, l)
	}
	p.dirs[l] = d
	return d
}

// shapeLab shapes RoCE's queue (its class's, lossless TC 3) to 120 Gb/s
// on every switch port of the lab brought up in dir, below its 200G NICs,
// and every port as a whole to 80% of its speed: SONiC's SCHEDULER pir
// and pbs (a 1 MiB burst) and a port scheduler, EOS's shape rate in each
// qos profile and its tx-queue 3.
func shapeLab(t *testing.T, dir string, l propLab) {
	t.Helper()
	shaped := 0
	editLabConfigs(t, dir, l, func(_ string, doc map[string]map[string]map[string]string) {
		for key, q := range doc["QUEUE"] {
			if strings.HasSuffix(key, "|3") {
				s := doc["SCHEDULER"][q["scheduler"]]
				s["meter_type"], s["pir"], s["pbs"] = "bytes", "15000000000", "1048576"
				shaped++
			}
		}
		doc["SCHEDULER"]["port.shaped"] = map[string]string{"meter_type": "bytes", "pir": "40000000000"}
		for key, e := range doc["PORT_QOS_MAP"] {
			if key != "global" {
				e["scheduler"] = "port.shaped"
			}
		}
	}, func(_, s string) string {
		s = strings.ReplaceAll(s, "   tx-queue 3\n", "   tx-queue 3\n      shape rate 60 percent\n")
		s = regexp.MustCompile(`(?m)^(qos profile .*)$`).ReplaceAllString(s, "$1\n   shape rate 80 percent")
		shaped += strings.Count(s, "shape rate 60 percent")
		return s
	})
	if shaped == 0 {
		t.Fatalf("shapeLab: no RoCE queue found to shape in %s's configs", l.name)
	}
	// The shapers read as meant: lint names them (QOS022).
	if out := labCLI(dir, "config", "lint", l.name, "-o", "json"); !strings.Contains(out, `"QOS022"`) {
		t.Fatalf("shapeLab: lint of the shaped %s/%s names no shaper (QOS022): %s", l.name, l.nos, out)
	}
}

// remarkLab has every port of the lab's SONiC switches rewrite RoCE's
// class (TC 3) to DSCP 27 as it sends it (TC_TO_DSCP_MAP), and every
// switch classify DSCP 27 as it does 26: RoCE keeps its class at every
// hop, while each packet's DSCP changes at its first switch, so that the
// rewrite runs on every path, across partitions too. config show must say
// so (the DSCP column's "sent as 27").
func remarkLab(t *testing.T, dir string, l propLab) {
	t.Helper()
	var first string
	editLabConfigs(t, dir, l, func(sw string, doc map[string]map[string]map[string]string) {
		for _, m := range doc["DSCP_TO_TC_MAP"] {
			m["27"] = m["26"]
		}
		doc["TC_TO_DSCP_MAP"] = map[string]map[string]string{"REMARK": {"3": "27"}}
		for key, e := range doc["PORT_QOS_MAP"] {
			if key != "global" {
				e["tc_to_dscp_map"] = "REMARK"
			}
		}
		if first == "" {
			first = sw
		}
	}, nil)
	if first == "" {
		t.Fatalf("remarkLab: no SONiC configs of %s", l.name)
	}
	if out := labCLI(dir, "config", "show", l.name, first); !strings.Contains(out, "sent as 27") {
		t.Fatalf("remarkLab: config show of the remarked %s %s says no remark: %s", l.name, first, out)
	}
	// A remark to a DSCP every switch puts in RoCE's class: lint sees no
	// harm in it.
	if out := labCLI(dir, "config", "lint", l.name, "-o", "json"); strings.Contains(out, `"QOS024"`) {
		t.Fatalf("remarkLab: lint of the remarked %s flags the remark (QOS024): %s", l.name, out)
	}
}

// policyLab has every port of the lab's EOS switches classify RoCE
// (UDP 4791, DSCP 26) by a policy-map into traffic class 3, the class the
// maps give it: the policy path runs on every port while the figures stay
// the maps'. config show must say so ("26 by policy-map"), and lint must
// find nothing it does not run.
func policyLab(t *testing.T, dir string, l propLab) {
	t.Helper()
	var first string
	editLabConfigs(t, dir, l, nil, func(sw, s string) string {
		if first == "" {
			first = sw
		}
		s = strings.ReplaceAll(s, "   qos trust dscp\n", "   qos trust dscp\n   service-policy type qos input pm-roce\n")
		return s + "ip access-list acl-roce\n   10 permit udp any any eq 4791 dscp 26\n!\nclass-map type qos match-any cm-roce\n   match ip access-group acl-roce\n!\npolicy-map type quality-of-service pm-roce\n   class cm-roce\n      set traffic-class 3\n!\n"
	})
	if first == "" {
		t.Fatalf("policyLab: no EOS configs of %s", l.name)
	}
	if out := labCLI(dir, "config", "show", l.name, first); !strings.Contains(out, "26 by policy-map") {
		t.Fatalf("policyLab: config show of %s %s names no policy-map: %s", l.name, first, out)
	}
	if out := labCLI(dir, "config", "lint", l.name, "-o", "json"); strings.Contains(out, "service-policy") {
		t.Fatalf("policyLab: lint of %s names the policy: %s", l.name, out)
	}
}

// labCLI runs labctl with args on the labs under dir and returns what it
// printed, standard output then standard error.
func labCLI(dir string, args ...string) string {
	var out, errb bytes.Buffer
	run(context.Background(), append(args, "--dir", dir), &out, &errb)
	return out.String() + errb.String()
}

// editLabConfigs rewrites the lab's switch configs in place: each SONiC
// config_db file by sonic (the switch's name and its tables), each EOS
// file by eos (the switch's name and its text); a nil function leaves its
// files as they are. The manifest up writes beside them is not a config.
func editLabConfigs(t *testing.T, dir string, l propLab, sonic func(sw string, doc map[string]map[string]map[string]string), eos func(sw, text string) string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "topologies", l.name, "configs", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), ".") {
			continue // the manifest of what up rendered
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(f) {
		case ".json":
			if sonic == nil {
				continue
			}
			var doc map[string]map[string]map[string]string
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			sonic(strings.TrimSuffix(filepath.Base(f), ".json"), doc)
			if b, err = json.MarshalIndent(doc, "", "    "); err != nil {
				t.Fatal(err)
			}
		case ".cfg":
			if eos == nil {
				continue
			}
			b = []byte(eos(strings.TrimSuffix(filepath.Base(f), ".cfg"), string(b)))
		default:
			continue
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// propRun runs the scenario file with -o json and reads the run.json it
// wrote, then removes the run (thousands of runs would fill the disk).
func propRun(t *testing.T, dir, file, lab string, extra []string) (int, *results.Run, []byte, string) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"run", file, "--lab", lab, "--dir", dir, "-o", "json"}, extra...)
	code := run(context.Background(), args, &out, &errb)
	if out.Len() == 0 {
		return code, nil, nil, errb.String()
	}
	var id struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(out.Bytes(), &id); err != nil {
		t.Fatalf("labctl %v: bad JSON on stdout: %v", args, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results", id.RunID, "run.json"))
	if err != nil {
		t.Fatalf("labctl %v: %v", args, err)
	}
	var r results.Run
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("labctl %v: run.json does not parse: %v", args, err)
	}
	// The reports the run wrote read the same record: no NaN or Inf in
	// them either.
	for _, name := range []string{"report.md", "junit.xml", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, "results", id.RunID, name))
		if err != nil {
			t.Errorf("labctl %v: %v", args, err)
		} else if m := nanInf.Find(b); m != nil {
			i := bytes.Index(b, m)
			t.Errorf("labctl %v: %s holds %q: ...%s...", args, name, m, b[max(0, i-120):min(len(b), i+40)])
		}
	}
	var o, e bytes.Buffer
	if c := run(context.Background(), []string{"results", "rm", id.RunID, "--dir", dir}, &o, &e); c != 0 {
		t.Fatalf("results rm %s: exit %d: %s", id.RunID, c, e.String())
	}
	return code, &r, raw, errb.String()
}

// refusalNamesFix: labctl's bad-input messages name the key, by its
// place in the file (file:line:col) or its name, and end with the fix.
func refusalNamesFix(msg string) bool {
	if !strings.Contains(msg, "fix: ") {
		return false
	}
	if refusalAt.MatchString(msg) {
		return true
	}
	for _, k := range []string{"faults[", "traffic", "senders", "ranks", "bytes", "max_bytes", "message_size", "qps", "duration", "sample_every", "warmup", "transport", "matrix", "exclude"} {
		if strings.Contains(msg, k) {
			return true
		}
	}
	return false
}

var refusalAt = regexp.MustCompile(`\.yaml:\d+:\d+: `)

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("at byte %d: ...%s... vs ...%s...", i, a[lo:min(len(a), i+100)], b[lo:min(len(b), i+100)])
}

// propScenario is a generated scenario and what the checks need to know
// of it.
type propScenario struct {
	name, yaml string
	lab        propLab
	// mayRefuse: the scenario combines keys labctl documents as
	// unsupported together (or may exceed the lab), so exit 2 is allowed.
	mayRefuse bool
	entries   []propEntry
	// faults: link faults or storms in the scenario.
	faults, storms bool
	// lossless: every traffic entry sends on the lab's lossless class.
	lossless   bool
	transports []string
	flowModel  bool
	// uniform: every flow is long-lived and starts at 0, so their rates
	// share one window (the warmup to the end) and add up.
	uniform bool
	// variants, durUs and samples (per variant) for the cost estimate.
	variants int
	durUs    float64
	warmupUs float64
	samples  float64
	flaps    float64
	// sweepsBuffer: the matrix sweeps the buffer pool (a tiny pool can
	// overrun the headroom).
	sweepsBuffer bool
	// ibCC: the infiniband section turns its congestion control on, so
	// the ecn dimension changes what InfiniBand variants do (without it
	// ecn=on and ecn=off are twins, refused).
	ibCC bool
}

type propEntry struct {
	pattern string
	// senders is how many NICs send at once, msg the message size: what
	// the cost estimate reads.
	senders       int
	msg           int64
	bytes         int64 // 0: not sized
	bidirectional bool
	qps           int
}

// genScenario is scenario index i of seed: the same pair gives the same
// scenario whatever the number run.
func genScenario(seed uint64, i int) propScenario {
	// Draw again (deterministically) while the scenario would cost more
	// than the budget: extremes are kept, in combinations that run in
	// well under a second.
	for attempt := uint64(0); ; attempt++ {
		sc := genScenarioOnce(rand.New(rand.NewPCG(seed, uint64(i)<<16|attempt)), seed, i)
		if sc.cost() <= propBudget || attempt == 1000 {
			// One scenario in five runs on the lab with shaped queues and
			// ports, chosen by the index so that the draws, and with them
			// every scenario, stay what they were.
			sc.lab.shaped = i%5 == 4
			// And one in five on SONiC labs rewrites RoCE's DSCP at
			// every switch port.
			sc.lab.remarked = i%5 == 2 && sc.lab.nos == "sonic"
			// And on EOS labs classifies it by a policy-map.
			sc.lab.policed = i%5 == 2 && sc.lab.nos == "eos"
			return sc
		}
	}
}

// propBudget is the most packets (and samples) a generated scenario may
// simulate, over all its variants: about a second.
const propBudget = 3e6

// cost estimates the packets a run simulates: each sending NIC at line
// rate for the whole duration, in packets of its message size (a sized
// flow may end sooner; congestion control may slow it: an upper bound),
// and the time series' samples.
func (sc propScenario) cost() float64 {
	c := 0.0
	for _, e := range sc.entries {
		pkt := float64(min(max(e.msg, 1), 4096) + 80)
		perUs := 25000 / pkt * float64(max(e.senders, 1)) // 200 Gb/s is 25000 B/us
		if e.bidirectional {
			perUs *= 2
		}
		if e.pattern == "latency" && e.msg < 4096 {
			perUs = float64(e.senders) // a ping-pong round trip is about 2 us
		}
		c += perUs * sc.durUs
	}
	c += sc.samples * 200
	// Every flap reroutes the fabric: about as much as 10000 packets.
	c += sc.flaps * 1e4
	return c * float64(sc.variants)
}

func genScenarioOnce(r *rand.Rand, seed uint64, i int) propScenario {
	labs := []propLab{{name: "16gpu", nos: "sonic", nics: 16, leaves: 1}, {name: "64gpu", nos: "sonic", nics: 64, leaves: 2}, {name: "16gpu", nos: "eos", nics: 16, leaves: 1}, {name: "64gpu", nos: "eos", nics: 64, leaves: 2}}
	lab := labs[r.IntN(2)]
	if r.IntN(5) == 0 {
		lab = labs[2+r.IntN(2)]
	}
	sc := propScenario{name: fmt.Sprintf("prop-%d-%d", seed, i), lab: lab, lossless: true, uniform: true}
	sc.variants = 1
	g := &propGen{r: r, sc: &sc}
	return g.build()
}

type propGen struct {
	r  *rand.Rand
	sc *propScenario
	b  strings.Builder
}

func (g *propGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *propGen) chance(p float64) bool    { return g.r.Float64() < p }

// between is an integer in [lo, hi], the ends themselves a third of the
// time each: extreme values are what this test is for.
func (g *propGen) between(lo, hi int) int {
	switch g.r.IntN(6) {
	case 0, 1:
		return lo
	case 2, 3:
		return hi
	}
	return lo + g.r.IntN(hi-lo+1)
}

func (g *propGen) line(format string, a ...any) { fmt.Fprintf(&g.b, format+"\n", a...) }

func fmtUs(us float64) string {
	if us == math.Trunc(us) {
		return fmt.Sprintf("%dus", int64(us))
	}
	return fmt.Sprintf("%dns", int64(us*1000))
}

var propSizes = []struct {
	text  string
	bytes int64
}{{"1", 1}, {"2B", 2}, {"100", 100}, {"4KiB", 4096}, {"4097B", 4097}, {"64KiB", 65536}, {"1MiB", 1 << 20}, {"1GiB", 1 << 30}}

func (g *propGen) size() (string, int64) {
	s := propSizes[g.r.IntN(len(propSizes))]
	return s.text, s.bytes
}

func (g *propGen) build() propScenario {
	sc, lab := g.sc, g.sc.lab
	g.line("name: %s", sc.name)
	// Model and transport.
	sc.flowModel = g.chance(0.1)
	transport := "roce"
	sweepTransport := false
	if !sc.flowModel {
		switch g.r.IntN(6) {
		case 0:
			transport = "infiniband"
		case 1:
			transport = "uet"
		case 2:
			sweepTransport = true
		}
	}
	if sc.flowModel {
		g.line("model: flow")
	}
	if transport != "roce" || g.chance(0.2) {
		g.line("transport: %s", transport)
	}
	sc.transports = []string{transport}
	if sweepTransport {
		sc.transports = []string{"roce", "infiniband", "uet"}
	}

	// Duration: tiny to long; the traffic sized so a long run ends soon.
	durUs := []float64{1, 10, 50, 200, 500, 1000, 2000}[g.r.IntN(7)]
	long := g.chance(0.1)
	if long {
		durUs = []float64{50000, 1000000}[g.r.IntN(2)]
	}
	// Traffic.
	nccl := !sc.flowModel && g.chance(0.08)
	var entries []string
	if nccl {
		entries = append(entries, g.ncclEntry(&durUs, long))
	} else {
		k := 1 + g.r.IntN(2)
		for range k {
			entries = append(entries, g.entry(durUs, long))
		}
	}
	g.line("duration: %s", fmtUs(durUs))
	if g.chance(0.4) {
		// Warmup near the duration, or anywhere before it.
		w := durUs * []float64{0, 0.5, 0.9, 0.999}[g.r.IntN(4)]
		if w > 0 && w < durUs && w*1000 == math.Trunc(w*1000) {
			g.line("warmup: %s", fmtUs(w))
			sc.warmupUs = w
		}
	}
	sc.samples = durUs / 10
	switch g.r.IntN(4) {
	case 0:
		sc.samples = 0
		g.line("sample_every: 0")
	case 1:
		// At most 100000 samples over the duration.
		se := math.Max(math.Ceil(2*durUs*1000/100000), 1) // a duration sweep may double it
		g.line("sample_every: %dns", int64(se))
		sc.samples = durUs * 1000 / se
	case 2:
		g.line("sample_every: %s", fmtUs(math.Max(durUs/2, 1)))
		sc.samples = 2
	}
	if g.chance(0.3) {
		g.line("repetitions: 2")
		sc.variants *= 2
	}
	if !sc.flowModel && g.chance(0.3) {
		mode := g.pick("ecmp", "flowlet", "spray", "adaptive")
		g.line("lb:")
		g.line("  mode: %s", mode)
		if mode == "flowlet" && g.chance(0.5) {
			g.line("  flowlet_gap: %s", g.pick("1us", "100us", "10ms"))
		}
	}
	if !sc.flowModel && g.chance(0.3) {
		g.line("nic:")
		g.line("  out_of_order: %v", g.chance(0.5))
		if g.chance(0.5) {
			g.line("  qp_timeout: %d", g.between(1, 14))
			g.line("  retry_cnt: %d", g.between(0, 7))
		}
	}
	if slices.Contains(sc.transports, "uet") && g.chance(0.5) {
		g.line("uet:")
		g.line("  lb: %s", g.pick("reps", "oblivious", "ecmp"))
		g.line("  trimming: %v", g.chance(0.5))
		cc := g.pick("nscc", "none")
		g.line("  cc: %s", cc)
		g.line("  rccc: %v", cc == "nscc" && g.chance(0.3)) // RCCC runs beside NSCC only (refused)
	}
	if slices.Contains(sc.transports, "infiniband") && g.chance(0.5) {
		g.line("infiniband:")
		g.line("  routing: %s", g.pick("ftree", "updn", "minhop"))
		g.line("  adaptive_routing: %v", g.chance(0.3))
		g.line("  vls: %s", g.pick("1", "2", "4", "8"))
		sc.ibCC = g.chance(0.5)
		g.line("  cc: {enabled: %v}", sc.ibCC)
	}
	g.line("traffic:")
	for _, e := range entries {
		g.b.WriteString(e)
	}
	// Faults.
	if !sc.flowModel && !nccl && g.chance(0.3) {
		g.faults(durUs)
	}
	g.matrix(transport, sweepTransport, durUs)
	sc.yaml = g.b.String()
	sc.durUs = durUs
	_ = lab
	return *sc
}

func (g *propGen) common(e *strings.Builder, pe *propEntry, durUs float64, long bool, sized bool) {
	sc := g.sc
	w := func(format string, a ...any) { fmt.Fprintf(e, "    "+format+"\n", a...) }
	if pe.pattern != "latency" {
		if g.chance(0.7) {
			q := g.between(1, 64)
			w("qps: %d", q)
			pe.qps = q
		}
		if g.chance(0.5) {
			w("tx_depth: %d", g.between(1, 15000))
		}
		if pe.pattern != "all-to-all" && g.chance(0.3) {
			w("bidirectional: true")
			pe.bidirectional = true
		}
	}
	if g.chance(0.6) {
		text, b := g.size()
		if long && pe.pattern == "latency" {
			text = g.pick("1", "2B", "4KiB")
			b = map[string]int64{"1": 1, "2B": 2, "4KiB": 4096}[text]
		}
		w("message_size: %s", text)
		pe.msg = b
	}
	if !sc.flowModel && (sized || long || g.chance(0.4)) {
		if pe.pattern != "latency" {
			text, b := g.size()
			if long || b > 64<<20 {
				text, b = g.pick("1", "4KiB", "64KiB"), 0
				b = map[string]int64{"1": 1, "4KiB": 4096, "64KiB": 65536}[text]
			}
			w("bytes: %s", text)
			pe.bytes = b
			sc.uniform = false
		}
	}
	if g.chance(0.2) {
		tc := g.r.IntN(256)
		w("traffic_class: %d", tc)
		if tc>>2 != 26 {
			sc.lossless = false
		}
	}
	if g.chance(0.2) {
		sc.uniform = false
		w("start: %s", fmtUs(math.Floor(durUs*[]float64{0, 0.5, 0.99}[g.r.IntN(3)])))
	}
}

func (g *propGen) entry(durUs float64, long bool) string {
	sc, lab := g.sc, g.sc.lab
	var e strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&e, "    "+format+"\n", a...) }
	patterns := []string{"pairs", "permutation", "incast", "all-to-all", "ring-allreduce", "latency"}
	p := patterns[g.r.IntN(len(patterns))]
	if long {
		// A long run only with traffic that ends early.
		p = g.pick("pairs", "incast", "latency", "ring-allreduce")
	}
	if p == "ring-allreduce" && slices.ContainsFunc(sc.entries, func(e propEntry) bool { return e.pattern == p }) {
		p = "pairs" // one collective a scenario (refused)
	}
	if sc.flowModel && (p == "latency" || p == "ring-allreduce") {
		// The flow-level model cannot time a ping-pong, and runs a ring
		// AllReduce only alone (both refused).
		p = "pairs"
	}
	pe := propEntry{pattern: p, qps: 1, msg: 65536}
	if p == "latency" {
		pe.msg = 2
	}
	count := func(n int) int { pe.senders = n; return n }
	fmt.Fprintf(&e, "  - pattern: %s\n", p)
	// On a lab of several leaves cross_leaf defaults to true: written
	// out half the time, false a quarter.
	cross, writeCross := lab.leaves > 1, false
	if lab.leaves > 1 {
		switch g.r.IntN(4) {
		case 0:
			cross = false
			writeCross = true
		case 1:
			writeCross = true
		}
	}
	switch p {
	case "pairs":
		w("pairs: %d", count(g.between(1, lab.nics/2)))
		g.common(&e, &pe, durUs, long, long)
	case "permutation":
		pe.senders = lab.nics
		if g.chance(0.7) {
			w("ranks: %d", count(g.between(2, lab.nics)))
		}
		g.common(&e, &pe, durUs, long, false)
	case "incast":
		victim := g.chance(0.5)
		hi := lab.nics - 1
		if victim {
			hi--
		}
		if cross {
			// The senders on leaves other than the receiver's.
			hi = lab.nics - lab.nics/lab.leaves
		}
		w("senders: %d", count(g.between(2, hi)))
		if victim {
			w("victim: true")
		}
		g.common(&e, &pe, durUs, long, long)
	case "all-to-all":
		pe.senders = min(lab.nics, 64)
		w("ranks: %d", count(g.between(2, min(lab.nics, 16))))
		g.common(&e, &pe, durUs, long, false)
	case "ring-allreduce":
		var ranks int
		if g.chance(0.5) {
			w("rank_per: server")
			ranks = count(g.between(2, lab.nics/8))
		} else {
			ranks = count(g.between(2, lab.nics))
		}
		w("ranks: %d", ranks)
		// The least buffer a ring takes is a byte per rank (a chunk each).
		text, b := g.pick(fmt.Sprint(ranks), "100", "64KiB", "1MiB"), int64(0)
		if text == "100" && ranks > 100 {
			text = fmt.Sprint(ranks)
		}
		w("bytes: %s", text)
		pe.bytes = b // ring-allreduce's bytes are the buffer, not a flow's
		sc.uniform = false
	case "latency":
		w("pairs: %d", count(g.between(1, lab.nics/2)))
		if long {
			w("iterations: %d", g.between(5, 100))
		} else if g.chance(0.6) {
			w("iterations: %d", g.between(5, 100000000))
		}
		g.common(&e, &pe, durUs, long, false)
	}
	if writeCross {
		w("cross_leaf: %v", cross)
	}
	sc.entries = append(sc.entries, pe)
	return e.String()
}

func (g *propGen) ncclEntry(durUs *float64, long bool) string {
	sc, lab := g.sc, g.sc.lab
	var e strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&e, "    "+format+"\n", a...) }
	e.WriteString("  - pattern: nccl\n")
	coll := g.pick("all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "sendrecv")
	w("collective: %s", coll)
	if coll == "all_reduce" && g.chance(0.5) {
		w("algorithm: tree")
	}
	if g.chance(0.4) {
		w("channels: %d", g.between(1, 64))
	}
	if g.chance(0.3) {
		w("rank_order: naive")
	}
	w("min_bytes: %s", g.pick("1", "8", "4KiB"))
	if g.chance(0.3) {
		// Sizes of a step past 4 KiB: the first alone could move
		// nothing (16 B a rank at least), which is refused.
		w("max_bytes: 1MiB")
		w("step_bytes: %s", g.pick("64KiB", "256KiB"))
	} else {
		w("max_bytes: %s", g.pick("4KiB", "64KiB", "1MiB"))
		w("step_factor: %d", g.between(2, 16))
	}
	if coll == "broadcast" && g.chance(0.5) {
		w("root: %d", g.between(0, lab.nics-1))
	}
	if g.chance(0.3) {
		w("datatype: %s", g.pick("int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"))
	}
	if g.chance(0.3) {
		w("qps_per_connection: %d", g.between(1, 128))
	}
	if !long {
		*durUs = math.Max(*durUs, 2000)
	}
	sc.entries = append(sc.entries, propEntry{pattern: "nccl", senders: lab.nics, msg: 4096})
	sc.uniform = false
	return e.String()
}

func (g *propGen) faults(durUs float64) {
	sc, lab := g.sc, g.sc.lab
	at := func() string { return fmtUs(math.Floor(durUs * []float64{0, 0.1, 0.5, 0.99}[g.r.IntN(4)])) }
	g.line("faults:")
	linkFault := false
	for range 1 + g.r.IntN(2) {
		// One link fault at most: two on one link may overlap, which
		// labctl refuses (one down time at a time per link).
		switch g.r.IntN(3) {
		case 0, 1:
			if linkFault {
				continue
			}
			linkFault = true
			kind := g.pick("link-down", "link-flap")
			g.line("  - kind: %s", kind)
			onPath := -1
			for i, e := range sc.entries {
				if (e.pattern == "pairs" || e.pattern == "permutation" || e.pattern == "incast") && lab.leaves > 1 {
					onPath = i
				}
			}
			if onPath >= 0 && g.chance(0.5) {
				g.line("    on_path: traffic[%d]", onPath)
				sc.mayRefuse = true // the entry may not cross the spines
			} else {
				leaf := 1 + g.r.IntN(lab.leaves)
				g.line("    link: leaf%d-spine1", leaf)
				if g.chance(0.3) {
					g.line("    all: true")
				}
			}
			g.line("    at: %s", at())
			if kind == "link-down" {
				if g.chance(0.5) {
					g.line("    for: %s", g.pick("1ns", "10us", "1ms", "1s"))
				}
			} else {
				periods := map[string]float64{"1ns": 0.001, "5us": 5, "100us": 100}
				down, up, count := g.pick("1ns", "5us", "100us"), g.pick("1ns", "5us", "100us"), g.between(1, 1000)
				g.line("    down: %s", down)
				g.line("    up: %s", up)
				g.line("    count: %d", count)
				sc.flaps = math.Min(float64(count), durUs/(periods[down]+periods[up]))
			}
			if g.chance(0.5) {
				g.line("    detect: %s", g.pick("0", "1us", "100us", "1ms"))
			}
			if g.chance(0.5) {
				g.line("    converge: %s", g.pick("0", "10us", "1ms"))
			}
			sc.faults = true
		case 2:
			g.line("  - kind: pfc-storm")
			g.line("    nic: host%d:%d", 1+g.r.IntN(lab.nics/8), g.r.IntN(8))
			if g.chance(0.4) {
				g.line("    priority: %d", g.between(0, 7))
			}
			g.line("    at: %s", at())
			if g.chance(0.5) {
				g.line("    for: %s", g.pick("1ns", "10us", "1ms"))
			}
			sc.storms = true
		}
	}
	// A fault on InfiniBand or a storm where nothing pauses: documented
	// limits labctl may refuse.
	if sc.storms && !slices.Equal(sc.transports, []string{"roce"}) {
		sc.mayRefuse = true
	}
}

// matrix writes the ECN x PFC dimensions and up to two swept keys,
// keeping the variants few.
func (g *propGen) matrix(transport string, sweepTransport bool, durUs float64) {
	sc := g.sc
	sub := func() string { return g.pick("[on]", "[off]", "[on, off]", "[off, on]") }
	ecn, pfc := sub(), sub()
	if sc.flowModel {
		ecn, pfc = "[on]", "[on]"
	}
	// InfiniBand variants run pfc=on only, and without their congestion
	// control one ecn value: other values would be twins (refused).
	bothECN := strings.Contains(ecn, ",")
	if transport == "infiniband" && !sweepTransport {
		pfc = "[on]"
		if bothECN && !sc.ibCC {
			ecn = ecn[:strings.Index(ecn, ",")] + "]"
		}
	}
	if sweepTransport && pfc == "[off]" {
		pfc = "[off, on]" // InfiniBand's variants run, and read its section
	}
	sc.variants *= strings.Count(ecn, ",") + strings.Count(pfc, ",") + 1 + strings.Count(ecn, ",")*strings.Count(pfc, ",")
	if sweepTransport {
		sc.variants *= 3
	}
	g.line("matrix:")
	g.line("  ecn: %s", ecn)
	g.line("  pfc: %s", pfc)
	var excludes []string
	if sweepTransport {
		g.line("  transport: [roce, infiniband, uet]")
		if strings.Contains(pfc, "off") {
			excludes = append(excludes, "{transport: infiniband, pfc: off}")
		}
		if strings.Contains(ecn, ",") && !sc.ibCC {
			excludes = append(excludes, "{transport: infiniband, ecn: off}")
		}
	}
	type sweep struct {
		key, values string
		ok          func() bool
	}
	first := sc.entries[0]
	sweeps := []sweep{
		{"traffic[0].qps", "[1, 64]", func() bool {
			return first.pattern != "latency" && first.pattern != "ring-allreduce" && first.pattern != "nccl"
		}},
		{"traffic[0].message_size", "[1, 64KiB]", func() bool {
			return first.pattern != "ring-allreduce" && first.pattern != "nccl" && !sc.flowModel
		}},
		{"lb.mode", "[ecmp, spray]", func() bool { return !sc.flowModel && !strings.Contains(g.b.String(), "\nlb:") }},
		{"qos.ecn.kmin_kb", "[100, 1600]", func() bool { return !sc.flowModel && transport == "roce" && !sweepTransport }},
		{"nic.out_of_order", "[false, true]", func() bool { return !sc.flowModel && !strings.Contains(g.b.String(), "out_of_order") }},
		{"duration", fmt.Sprintf("[%s, %s]", fmtUs(durUs), fmtUs(2*durUs)), func() bool { return !sc.flowModel }},
		{"sample_every", "[0, 10us]", func() bool {
			// 10us over a shorter duration is refused.
			return !sc.flowModel && durUs >= 10 && !strings.Contains(g.b.String(), "sample_every")
		}},
		{"faults[0].detect", "[0, 1ms]", func() bool {
			return sc.faults && strings.Contains(g.b.String(), "kind: link-") && strings.Index(g.b.String(), "kind: link-") < strings.Index(g.b.String()+"kind: pfc-storm", "kind: pfc-storm")
		}},
		{"uet.trimming", "[true, false]", func() bool { return transport == "uet" && !sweepTransport }},
		{"qos.buffer_pool_bytes", "[65536, 20627456]", func() bool { return !sc.flowModel && transport != "infiniband" && !sweepTransport }},
	}
	for range g.r.IntN(3) {
		s := sweeps[g.r.IntN(len(sweeps))]
		if !s.ok() || strings.Contains(g.b.String(), "  "+s.key+":") {
			continue
		}
		g.line("  %s: %s", s.key, s.values)
		sc.variants *= 2
		if s.key == "qos.buffer_pool_bytes" {
			sc.sweepsBuffer = true
		}
		if s.key == "qos.ecn.kmin_kb" {
			sc.mayRefuse = true // EOS's configs may hold a lower Kmax
		}
	}
	if len(excludes) > 0 {
		g.line("  exclude: [%s]", strings.Join(excludes, ", "))
	}
}

// --- checks ---

var nanInf = regexp.MustCompile(`\bNaN\b|[+-]?\bInf\b|\bInfinity\b`)

// checkRecord returns the invariants the record breaks.
func checkRecord(sc propScenario, r *results.Run, raw []byte, args []string) []string {
	var bad []string
	fail := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	if m := nanInf.Find(raw); m != nil {
		i := bytes.Index(raw, m)
		fail("run.json holds %q: ...%s...", m, raw[max(0, i-120):min(len(raw), i+40)])
	}
	if r.Status != results.StatusPassed {
		fail("status %s (error %q), want passed", r.Status, r.Error)
	}
	var doc struct {
		Variants []struct {
			Name    string                     `json:"name"`
			Summary map[string]json.RawMessage `json:"summary"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		fail("run.json: %v", err)
		return bad
	}
	nicGbps := 0.0
	if lab, ok := r.Extra["lab"].(map[string]any); ok {
		nicGbps, _ = lab["nic_speed_gbps"].(float64)
	}
	if nicGbps <= 0 {
		fail("extra.lab.nic_speed_gbps missing")
		nicGbps = 400
	}
	// The ports' clocks are skewed by up to 0.1%; a rate over a short
	// window rounds up to the record's 3 decimals.
	slack := func(x float64) float64 { return x*1.002 + 0.01 }
	// A rate is the bytes whose last bit arrived in its window over the
	// window, so a window may hold one packet per QP more than its
	// length carries (a packet begun before it): over the 2 us left by a
	// warmup 2 us short of the duration, 13 packets of 4 KiB, 213 Gb/s
	// on a 200G link. Each QP's rate may read an MTU over the window
	// above the line rate.
	window := sc.durUs - sc.warmupUs
	perQP := 4096 * 8 / (window * 1000)
	for vi := range r.Variants {
		v := &r.Variants[vi]
		s := v.Summary
		if v.Error != "" {
			fail("%s: error %q", v.Label(), v.Error)
		}
		// --partitions 2: the record says the split the engine ran, or
		// (a fabric that does not split in two) the cost says why not.
		if slices.Contains(args, "--partitions") {
			if p := v.Params[results.ParamPartitions]; p != "" && p != "2" {
				fail("%s: --partitions 2 but params.partitions %s", v.Label(), p)
			} else if p == "" && v.Model() == results.ModelPacket && (v.Cost == nil || v.Cost.PartitionsNote == "") {
				fail("%s: --partitions 2 but neither params.partitions nor the cost's partitions_note says how the fabric split", v.Label())
			}
		}
		// Absent, never zero-filled.
		if vi < len(doc.Variants) {
			for _, f := range s.NotComputed {
				if _, ok := doc.Variants[vi].Summary[f]; ok {
					fail("%s: summary.%s is in not_computed but present", v.Label(), f)
				}
			}
		}
		if v.Model() == results.ModelFlow {
			for _, f := range []string{"drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99", "failed_flows"} {
				if !slices.Contains(s.NotComputed, f) {
					fail("%s: the flow-level model's summary.%s is not in not_computed", v.Label(), f)
				}
			}
		}
		if s.CompletionUs != nil {
			for _, f := range v.Flows {
				if f.HasThroughput() && (f.FCTUs == nil || *f.FCTUs > *s.CompletionUs+0.001) {
					fail("%s: summary.completion_us %v but flow %s completed at %v", v.Label(), *s.CompletionUs, f.ID, f.FCTUs)
				}
			}
		}
		for name, x := range map[string]int64{"drops": s.Drops, "pfc_pause_frames": s.PFCPauseFrames, "ecn_marked": s.ECNMarked, "cnp": s.CNP, "retransmits": s.Retransmits, "failed_flows": s.FailedFlows} {
			if x < 0 {
				fail("%s: summary.%s %d < 0", v.Label(), name, x)
			}
		}
		for name, x := range map[string]float64{"pfc_pause_us": s.PFCPauseUs, "throughput_gbps_total": s.ThroughputGbpsTotal, "throughput_gbps_min_flow": s.ThroughputGbpsMinFlow, "latency_us_p99": s.LatencyUsP99} {
			if x < 0 || math.IsNaN(x) {
				fail("%s: summary.%s %v < 0", v.Label(), name, x)
			}
		}
		if s.JainFairness < 0 || s.JainFairness > 1 {
			fail("%s: summary.jain_fairness %v outside [0, 1]", v.Label(), s.JainFairness)
		}
		if s.ThroughputGbpsMinFlow > s.ThroughputGbpsTotal+0.001 {
			fail("%s: min flow %v above the total %v", v.Label(), s.ThroughputGbpsMinFlow, s.ThroughputGbpsTotal)
		}
		if s.UET != nil {
			b, _ := json.Marshal(s.UET)
			if bytes.Contains(b, []byte(":-")) {
				fail("%s: a negative UET figure: %s", v.Label(), b)
			}
		}
		for _, c := range v.Counters {
			for name, x := range map[string]int64{"tx_bytes": c.TxBytes, "pfc_tx": c.PFCTx, "pfc_rx": c.PFCRx, "ecn_marked": c.ECNMarked, "drops": c.Drops, "ingress_drops": c.IngressDrops, "egress_drops": c.EgressDrops, "link_drops": c.LinkDrops, "route_drops": c.RouteDrops, "loop_drops": c.LoopDrops, "watchdog_drops": c.WatchdogDrops} {
				if x < 0 {
					fail("%s: %s:%s prio %d %s %d < 0", v.Label(), c.Node, c.Port, c.Priority, name, x)
				}
			}
			for name, p := range map[string]*int64{"queue_p50_bytes": c.QueueP50Bytes, "queue_p99_bytes": c.QueueP99Bytes, "queue_max_bytes": c.QueueMaxBytes, "trimmed": c.Trimmed} {
				if p != nil && *p < 0 {
					fail("%s: %s:%s %s %d < 0", v.Label(), c.Node, c.Port, name, *p)
				}
			}
			if c.QueueP50Bytes != nil && c.QueueP99Bytes != nil && *c.QueueP50Bytes > *c.QueueP99Bytes {
				fail("%s: %s:%s queue p50 %d above p99 %d", v.Label(), c.Node, c.Port, *c.QueueP50Bytes, *c.QueueP99Bytes)
			}
		}
		for _, p := range v.InfiniBand {
			b, _ := json.Marshal(p)
			if bytes.Contains(b, []byte(":-")) {
				fail("%s: a negative InfiniBand counter: %s", v.Label(), b)
			}
		}
		// Flows.
		bidir := slices.ContainsFunc(sc.entries, func(e propEntry) bool { return e.bidirectional })
		tx, rx := map[string]float64{}, map[string]float64{}
		txB, rxB := map[string]int64{}, map[string]int64{}
		ends := map[string]bool{}
		total, totalB := 0.0, int64(0)
		failed := false
		qpsAt := map[string]int{}
		latMsg := int64(0)
		for _, e := range sc.entries {
			if e.pattern == "latency" {
				latMsg = max(latMsg, e.msg)
			}
		}
		// What a NIC's link carries over the run, in payload bytes.
		lineBytes := func(nics int) float64 { return slack(float64(nics)*nicGbps*v.SimulatedUs/8*1000) + 9000 }
		for _, f := range v.Flows {
			failed = failed || f.State != ""
			if f.Bytes != nil && *f.Bytes < 0 {
				fail("%s: flow %s bytes %d < 0", v.Label(), f.ID, *f.Bytes)
			}
			if f.Bytes != nil {
				ends[f.Src], ends[f.Dst] = true, true
				totalB += *f.Bytes
				if f.HasThroughput() {
					txB[f.Src] += *f.Bytes
					rxB[f.Dst] += *f.Bytes
				} else {
					// A ping-pong's bytes are both sides' writes: half
					// each way, the client a message ahead at most.
					half := (*f.Bytes - latMsg) / 2
					txB[f.Src] += half
					rxB[f.Dst] += half
					txB[f.Dst] += half
					rxB[f.Src] += half
				}
			}
			if f.Retransmits != nil && *f.Retransmits < 0 {
				fail("%s: flow %s retransmits %d < 0", v.Label(), f.ID, *f.Retransmits)
			}
			if v.Model() == results.ModelFlow && f.Retransmits != nil {
				fail("%s: flow %s has retransmits %d, which the flow-level model does not count", v.Label(), f.ID, *f.Retransmits)
			}
			if f.FCTUs != nil && *f.FCTUs < 0 {
				fail("%s: flow %s fct %v < 0", v.Label(), f.ID, *f.FCTUs)
			}
			if l := f.LatencyUs; l != nil {
				if l.P50 < 0 || l.P50 > l.P99+1e-9 {
					fail("%s: flow %s latency p50 %v p99 %v", v.Label(), f.ID, l.P50, l.P99)
				}
				if l.P999 != nil && (l.P99 > *l.P999+1e-9) {
					fail("%s: flow %s latency p99 %v above p99.9 %v", v.Label(), f.ID, l.P99, *l.P999)
				}
				top := l.P99
				if l.P999 != nil {
					top = *l.P999
				}
				if l.Max != 0 && top > l.Max+1e-9 {
					fail("%s: flow %s latency %v above max %v", v.Label(), f.ID, top, l.Max)
				}
				if l.Min != nil && (*l.Min > l.P50+1e-9 || *l.Min < 0) {
					fail("%s: flow %s latency min %v above p50 %v", v.Label(), f.ID, *l.Min, l.P50)
				}
				if l.Avg != nil && l.Min != nil && l.Max != 0 && (*l.Avg < *l.Min-1e-9 || *l.Avg > l.Max+1e-9) {
					fail("%s: flow %s latency avg %v outside [min %v, max %v]", v.Label(), f.ID, *l.Avg, *l.Min, l.Max)
				}
				if l.Stdev != nil && *l.Stdev < 0 {
					fail("%s: flow %s latency stdev %v < 0", v.Label(), f.ID, *l.Stdev)
				}
			}
			if !f.HasThroughput() {
				continue
			}
			ends[f.Src], ends[f.Dst] = true, true
			if f.ThroughputGbps < 0 {
				fail("%s: flow %s throughput %v < 0", v.Label(), f.ID, f.ThroughputGbps)
			}
			limit := nicGbps + perQP*float64(1+len(f.QPRoutes))
			if bidir {
				limit *= 2
			}
			qpsAt[f.Src] += 1 + len(f.QPRoutes)
			qpsAt[f.Dst] += 1 + len(f.QPRoutes)
			if f.ThroughputGbps > slack(limit) {
				fail("%s: flow %s throughput %.3f Gb/s above its NIC's %v", v.Label(), f.ID, f.ThroughputGbps, limit)
			}
			tx[f.Src] += f.ThroughputGbps
			rx[f.Dst] += f.ThroughputGbps
			total += f.ThroughputGbps
			// A sized flow that completed delivered its bytes.
			if f.FCTUs != nil && f.State == "" && f.Bytes != nil {
				var want int64
				n := 0
				for _, e := range sc.entries {
					if e.pattern == f.Pattern && e.bytes > 0 {
						want = e.bytes
						if e.bidirectional {
							want *= 2
						}
						n++
					}
				}
				if n == 1 && *f.Bytes != want {
					fail("%s: flow %s completed with %d bytes, want %d", v.Label(), f.ID, *f.Bytes, want)
				}
			}
		}
		// The summary is its flows'.
		var tps []float64
		var retx int64
		for _, f := range v.Flows {
			if f.HasThroughput() {
				tps = append(tps, f.ThroughputGbps)
			}
			if f.Retransmits != nil {
				retx += *f.Retransmits
			}
		}
		if n := results.CountFailed(v.Flows); !slices.Contains(s.NotComputed, "failed_flows") && s.FailedFlows != n {
			fail("%s: summary.failed_flows %d, but %d flows failed", v.Label(), s.FailedFlows, n)
		}
		if !slices.Contains(s.NotComputed, "retransmits") && retx > s.Retransmits {
			fail("%s: summary.retransmits %d below its flows' %d", v.Label(), s.Retransmits, retx)
		}
		if len(tps) > 0 && !slices.Contains(s.NotComputed, "throughput_gbps_total") {
			sum, lo, sq := 0.0, math.Inf(1), 0.0
			for _, x := range tps {
				sum, lo, sq = sum+x, math.Min(lo, x), sq+x*x
			}
			if math.Abs(sum-s.ThroughputGbpsTotal) > 0.001*float64(len(tps))+0.001 {
				fail("%s: summary.throughput_gbps_total %v, its flows' sum %.3f", v.Label(), s.ThroughputGbpsTotal, sum)
			}
			if math.Abs(lo-s.ThroughputGbpsMinFlow) > 0.0011 {
				fail("%s: summary.throughput_gbps_min_flow %v, its flows' least %v", v.Label(), s.ThroughputGbpsMinFlow, lo)
			}
			if sq > 0 {
				if jain := sum * sum / (float64(len(tps)) * sq); math.Abs(jain-s.JainFairness) > 0.002 {
					fail("%s: summary.jain_fairness %v, its flows' %.4f", v.Label(), s.JainFairness, jain)
				}
			}
		}
		// Over the whole run no NIC sends or receives more than its link
		// carries. (Rates add up only over one window: a sized flow's is
		// over its own lifetime, a long-lived one's from the warmup on.)
		if !bidir {
			for n, x := range txB {
				if float64(x) > lineBytes(1) {
					fail("%s: NIC %s sent %d bytes in %v us, above its line rate %v", v.Label(), n, x, v.SimulatedUs, nicGbps)
				}
			}
			for n, x := range rxB {
				if float64(x) > lineBytes(1) {
					fail("%s: NIC %s received %d bytes in %v us, above its line rate %v", v.Label(), n, x, v.SimulatedUs, nicGbps)
				}
			}
		} else if float64(totalB) > lineBytes(len(ends)) {
			fail("%s: %d bytes in all over %d NICs in %v us", v.Label(), totalB, len(ends), v.SimulatedUs)
		}
		if sc.uniform && !failed && v.Model() == results.ModelPacket {
			// Every sample of the goodput of all flows together is what
			// their receivers took in over the sample's interval: at most
			// their line rates and a packet per QP begun before it.
			qps, receivers := 0, map[string]bool{}
			for _, f := range v.Flows {
				qps += 1 + len(f.QPRoutes)
				receivers[f.Dst] = true
				if bidir || !f.HasThroughput() {
					// Both ways, or a ping-pong (a QP each way).
					qps += 1 + len(f.QPRoutes)
					receivers[f.Src] = true
				}
			}
			rxNICs := len(receivers)
			for _, ts := range v.Series {
				if ts.Kind != "goodput_gbps" || ts.Flow != "" {
					continue
				}
				for i := 1; i < len(ts.Values) && i < len(ts.TimeUs); i++ {
					dt := ts.TimeUs[i] - ts.TimeUs[i-1]
					if top := slack(float64(rxNICs)*nicGbps) + float64(qps)*4096*8/(dt*1000); dt > 0 && ts.Values[i] > top {
						fail("%s: all flows' goodput sample at %v us reads %.3f Gb/s, above %d receivers' line rate and a packet per QP (%.3f)", v.Label(), ts.TimeUs[i], ts.Values[i], rxNICs, top)
						break
					}
				}
			}
			if !bidir {
				for n, x := range tx {
					if x > slack(nicGbps+perQP*float64(qpsAt[n])) {
						fail("%s: NIC %s sends %.3f Gb/s, above its line rate %v", v.Label(), n, x, nicGbps)
					}
				}
				for n, x := range rx {
					if x > slack(nicGbps+perQP*float64(qpsAt[n])) {
						fail("%s: NIC %s receives %.3f Gb/s, above its line rate %v", v.Label(), n, x, nicGbps)
					}
				}
			} else if total > slack(float64(len(ends))*nicGbps+perQP*float64(2*len(v.Flows)*64)) {
				fail("%s: %.3f Gb/s in all over %d NICs of %v", v.Label(), total, len(ends), nicGbps)
			}
		}
		// RoCE with PFC loses nothing to congestion.
		transport := "roce"
		if v.Transport != nil {
			transport = v.Transport.Name
		}
		if v.PFC && transport == "roce" && !sc.faults && !sc.storms && sc.lossless && !sc.sweepsBuffer && v.Model() == results.ModelPacket && s.Drops > 0 {
			fail("%s: RoCE with PFC on and no fault dropped %d packets", v.Label(), s.Drops)
		}
	}
	return bad
}

// TestRunPropertiesGenerator: the generator gives the same scenario for
// a seed and index every time (what lets a failure be rerun by its index)
// and different ones across indices; with LABCTL_PROPERTY_PRINT=1 it
// prints the scenarios TestRunProperties would run, to read or rerun one
// with labctl run.
func TestRunPropertiesGenerator(t *testing.T) {
	n := envInt(t, "LABCTL_PROPERTY_N", 40)
	seed := uint64(envInt(t, "LABCTL_PROPERTY_SEED", 1))
	seen := map[string]bool{}
	for i := range n {
		sc := genScenario(seed, i)
		if again := genScenario(seed, i); again.yaml != sc.yaml || again.lab != sc.lab {
			t.Errorf("index %d: the generator gave two scenarios:\n%s---\n%s", i, sc.yaml, again.yaml)
		}
		seen[sc.yaml] = true
		if os.Getenv("LABCTL_PROPERTY_PRINT") != "" {
			fmt.Printf("# index %d on %s/%s\n%s---\n", i, sc.lab.name, sc.lab.nos, sc.yaml)
		}
	}
	if len(seen) < n*9/10 {
		t.Errorf("%d distinct scenarios of %d: the generator repeats itself", len(seen), n)
	}
}
