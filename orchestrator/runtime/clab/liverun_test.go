package clab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nos/eos"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
	"github.com/labctl/labctl/orchestrator/runtime/sim"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	countRE     = regexp.MustCompile(`(^|\s)(\d+(?:,\d{3})*)(\s|$)`)
	jsonCountRE = regexp.MustCompile(`(:\s*"?)(\d+)`)
)

// zeroCounts writes every count of a counter output as 0 (keeping the
// column widths of a table): the "before" reading of a switch whose
// counters were clear.
func zeroCounts(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		return jsonCountRE.ReplaceAllString(s, "${1}0")
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		for {
			n := countRE.ReplaceAllStringFunc(l, func(m string) string {
				sub := countRE.FindStringSubmatch(m)
				if strings.Trim(sub[2], "0") == "" {
					return m
				}
				return sub[1] + strings.Repeat(" ", len(sub[2])-1) + "0" + sub[3]
			})
			if n == l {
				break
			}
			l = n
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// liveEngine plays the hosts of a running lab: perftest answers with
// recorded reports, NIC counters grow by one step per reading.
type liveEngine struct {
	t       *testing.T
	mu      sync.Mutex
	bw, lat string
	reads   map[string]int // container+argv[0] -> readings
	execs   [][]string
}

func (f *liveEngine) State(context.Context, string) (ContainerState, error) {
	return ContainerState{Exists: true, Status: "running", Running: true}, nil
}
func (f *liveEngine) ImagePresent(context.Context, string) (bool, error) { return true, nil }
func (f *liveEngine) Close() error                                       { return nil }

func (f *liveEngine) Exec(_ context.Context, ctr string, argv []string, _ ExecOptions) (ExecResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.execs = append(f.execs, append([]string{ctr}, argv...))
	client := strings.HasPrefix(argv[len(argv)-1], "10.")
	switch argv[0] {
	case "rdma":
		k := ctr + argv[len(argv)-1]
		n := f.reads[k]
		f.reads[k]++
		dev, _, _ := strings.Cut(argv[len(argv)-1], "/")
		return ExecResult{Stdout: []byte(fmt.Sprintf(`[{"ifindex":3,"ifname":%q,"port":1,"sent_pkts":%d,"rcvd_pkts":%d,"completer_retry_err":%d,"send_err":0}]`, dev, 100+1000*n, 90+1000*n, 2+3*n))}, nil
	case "ethtool":
		k := ctr + argv[len(argv)-1]
		n := f.reads[k]
		f.reads[k]++
		return ExecResult{Stdout: []byte(fmt.Sprintf("NIC statistics:\n     peer_ifindex: 7\n     rx_packets: %d\n", 5+10*n))}, nil
	case "ib_write_bw":
		if client {
			return ExecResult{Stdout: []byte(f.bw)}, nil
		}
		return ExecResult{}, nil
	case "ib_write_lat":
		if client {
			return ExecResult{Stdout: []byte(f.lat)}, nil
		}
		return ExecResult{}, nil
	}
	f.t.Errorf("unexpected exec in %s: %q", ctr, argv)
	return ExecResult{ExitCode: 127}, nil
}

type variantPush struct {
	node          string
	full, variant []byte
}

// recordingSim simulates with the real simulator and keeps the configs it
// was given.
type recordingSim struct {
	mu   sync.Mutex
	cfgs []qos.DeviceConfig
	spec runtime.VariantSpec
}

func (s *recordingSim) RunVariantWithConfigs(ctx context.Context, l *runtime.Lab, vs runtime.VariantSpec, cfgs []qos.DeviceConfig) (*results.Variant, error) {
	s.mu.Lock()
	s.cfgs, s.spec = cfgs, vs
	s.mu.Unlock()
	return sim.New().RunVariantWithConfigs(ctx, l, vs, cfgs)
}

type liveFixture struct {
	l      *runtime.Lab
	r      *Runtime
	eng    *liveEngine
	sim    *recordingSim
	mu     sync.Mutex
	pushes []variantPush
	shows  map[string]int
}

func newLiveFixture(t *testing.T, nosName string) *liveFixture {
	t.Helper()
	l := runtimetest.RenderedLab(t, "16gpu", nosName)
	f := &liveFixture{l: l, shows: map[string]int{}, sim: &recordingSim{},
		eng: &liveEngine{t: t, bw: readTestdata(t, "ib_write_bw-client.txt"), lat: readTestdata(t, "ib_write_lat-client.txt"), reads: map[string]int{}}}
	var outs []string
	if nosName == eos.Name {
		for _, n := range []string{"eos_pfc_counters.json", "eos_ecn_counters.json", "eos_queue_counters_detail.json"} {
			outs = append(outs, readTestdata(t, "counters/"+n))
		}
	} else {
		for _, n := range []string{"pfc_counters.txt", "queue_counters_vs.txt", "wred_counters.txt", "port_counters.txt"} {
			outs = append(outs, readTestdata(t, "counters/"+n))
		}
	}
	f.r = &Runtime{
		CLI:      CLI{Runner: &labRunner{l: l}},
		Connect:  func(context.Context) (Engine, error) { return f.eng, nil },
		LookPath: func(string) (string, error) { return "/usr/bin/containerlab", nil },
		PushVariant: func(_ context.Context, nos, node, host string, _ int, _ Credentials, full, variant []byte) (string, error) {
			if nos != l.NOS || !strings.HasPrefix(host, "172.20.20.") {
				t.Errorf("push to %s: nos %s host %s", node, nos, host)
			}
			f.mu.Lock()
			f.pushes = append(f.pushes, variantPush{node, full, variant})
			f.mu.Unlock()
			return string(variant), nil
		},
		Show: func(_ context.Context, nos, node, _ string, _ int, _ Credentials, cmds []string) ([]string, error) {
			if !slices.Equal(cmds, CounterCommands(nos)) {
				t.Errorf("show on %s: %q", node, cmds)
			}
			f.mu.Lock()
			n := f.shows[node]
			f.shows[node]++
			f.mu.Unlock()
			if n%2 == 0 {
				var z []string
				for _, o := range outs {
					z = append(z, zeroCounts(o))
				}
				return z, nil
			}
			return outs, nil
		},
		Simulator:      f.sim,
		StartDelay:     1,
		MaxSimulatedUs: 1000,
		Push:           PushOptions{Backoff: 1},
	}
	return f
}

func TestRunVariantAllFourOnLiveLab(t *testing.T) {
	for _, nosName := range []string{"sonic", "eos"} {
		for _, ecn := range []bool{true, false} {
			for _, pfc := range []bool{true, false} {
				name := fmt.Sprintf("ecn=%s,pfc=%s", onOff(ecn), onOff(pfc))
				t.Run(nosName+"/"+name, func(t *testing.T) {
					f := newLiveFixture(t, nosName)
					v := testVariant()
					v.Name, v.ECN, v.PFC = name, ecn, pfc
					v.WarmupUs = 1e6
					out, err := f.r.RunVariant(context.Background(), f.l, v)
					if err != nil {
						t.Fatal(err)
					}
					checkLiveVariant(t, f, v, out)
				})
			}
		}
	}
}

// A swept QoS point is pushed to every switch with its values on top of
// the lab's config, and the lab's config is put back afterwards, though
// ECN and PFC stay on.
func TestRunVariantSweptQoSOnLiveLab(t *testing.T) {
	for _, nosName := range []string{"sonic", "eos"} {
		t.Run(nosName, func(t *testing.T) {
			f := newLiveFixture(t, nosName)
			v := testVariant()
			kmin := 150
			v.Name, v.ECN, v.PFC = "ecn=on,pfc=on,qos.ecn.kmin_kb=150", true, true
			v.QoS = lab.QoSSpec{ECN: &lab.ECNSpec{KminKB: &kmin}}
			v.WarmupUs = 1e6
			out, err := f.r.RunVariant(context.Background(), f.l, v)
			if err != nil {
				t.Fatal(err)
			}
			checkLiveVariant(t, f, v, out)
		})
	}
	// A swept buffer pool: SONiC's configs carry it, EOS's do not (EOS
	// configures no buffer pools), so a live EOS switch would run the
	// variant without it: refused before anything is pushed, naming it.
	for _, nosName := range []string{"sonic", "eos"} {
		f := newLiveFixture(t, nosName)
		v := testVariant()
		pool := int64(4 << 20)
		v.Name, v.QoS = "ecn=on,pfc=on,qos.buffer_pool_bytes=4194304", lab.QoSSpec{BufferPoolBytes: &pool}
		_, err := f.r.RunVariant(context.Background(), f.l, v)
		switch {
		case nosName == "sonic" && err != nil:
			t.Errorf("sonic: a swept buffer pool: %v", err)
		case nosName == "eos" && (exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "pool.ingress_lossless_pool.size_bytes -> 4194304") || !strings.Contains(err.Error(), "--runtime sim") || len(f.pushes) != 0):
			t.Errorf("eos: a swept buffer pool: err %v, %d pushes", err, len(f.pushes))
		}
	}
	// qos.mtu is the NICs' on a live lab: refused before anything is pushed.
	f := newLiveFixture(t, "sonic")
	v := testVariant()
	mtu := 1024
	v.QoS = lab.QoSSpec{MTU: &mtu}
	if _, err := f.r.RunVariant(context.Background(), f.l, v); exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "qos.mtu") || len(f.pushes) != 0 {
		t.Errorf("qos.mtu on a live lab: err %v, %d pushes", err, len(f.pushes))
	}
}

func checkLiveVariant(t *testing.T, f *liveFixture, v runtime.VariantSpec, out *results.Variant) {
	t.Helper()
	l := f.l
	nsw := len(l.Graph.Switches())
	// Pushes: one per switch for the variant, one more per switch to
	// restore unless the variant is the lab's own config.
	wantPushes := nsw
	if v.ChangesConfigs() {
		wantPushes = 2 * nsw
	}
	if len(f.pushes) != wantPushes {
		t.Fatalf("%d pushes, want %d", len(f.pushes), wantPushes)
	}
	codec, _ := runtime.Codec(l.NOS)
	first := map[string]variantPush{}
	for _, p := range f.pushes[:nsw] {
		first[p.node] = p
	}
	for i, p := range f.pushes {
		dc, err := codec.ParseQoS(p.node, qos.Source{Name: "pushed", Data: p.variant})
		if err != nil {
			t.Fatal(err)
		}
		restoring := i >= nsw
		wantPFC := v.PFC || restoring
		wantECN := v.ECN || restoring
		if got := len(dc.LosslessPriorities()) > 0; got != wantPFC {
			t.Errorf("push %d to %s (restore %t): PFC %t, want %t", i, p.node, restoring, got, wantPFC)
		}
		if got := hasECN(dc); got != wantECN {
			t.Errorf("push %d to %s (restore %t): ECN %t, want %t", i, p.node, restoring, got, wantECN)
		}
		// A restore goes from the variant's config back to the lab's.
		if restoring && (string(p.variant) != string(first[p.node].full) || string(p.full) != string(first[p.node].variant)) {
			t.Errorf("restore of %s does not go from the variant's config to the lab's", p.node)
		}
		if !restoring {
			checkSweptKmin(t, dc, v)
		}
	}
	// Read-backs saved per variant, and no diff since the fake switch
	// took the config as sent.
	dir := filepath.Join(ReadbackDir(l), variantSlug(v))
	for _, sw := range l.Graph.Switches() {
		if _, err := os.Stat(filepath.Join(dir, sw.Name+codec.ConfigExt())); err != nil {
			t.Errorf("read-back of %s not saved: %v", sw.Name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, sw.Name+".diff")); err == nil {
			t.Errorf("%s: unexpected read-back diff", sw.Name)
		}
	}
	// Flows measured from the perftest reports.
	if len(out.Flows) != 2 || out.Flows[0].ThroughputGbps != 9.18 || out.Flows[0].Source != results.Measured {
		t.Errorf("flows = %+v", out.Flows)
	}
	if lat := out.Flows[0].LatencyUs; lat == nil || lat.P50 != 8.05 || lat.P99 != 12.88 || lat.Max != 41.27 || out.Summary.LatencyUsP99 != 12.88 {
		t.Errorf("latency = %+v, summary p99 %v", lat, out.Summary.LatencyUsP99)
	}
	// Counter deltas: the fake switches went from all zeros to the
	// fixtures, so every delta is the fixture's value.
	if len(out.Counters) == 0 {
		t.Fatal("no counters")
	}
	var pfcTx, ecn, drops int64
	for _, c := range out.Counters {
		if c.Source != results.Measured {
			t.Fatalf("counter source %q", c.Source)
		}
		if c.Priority >= 0 {
			pfcTx += c.PFCTx
			ecn += c.ECNMarked
			drops += c.Drops
		}
	}
	s := out.Summary
	if s.Source != results.Measured || s.PFCPauseFrames != pfcTx || s.ECNMarked != ecn || s.Drops != drops || pfcTx == 0 {
		t.Errorf("summary %+v from counters pfc %d ecn %d drops %d", s, pfcTx, ecn, drops)
	}
	port0 := l.Graph.Switches()[0].Ports[0].Name
	if l.NOS == eos.Name {
		// Ethernet1: 1532 PFC frames sent, under the lossless priority.
		c := findCounter(out.Counters, l.Graph.Switches()[0].Name, "Ethernet1", 3)
		if port0 != "Ethernet1" || c == nil || c.PFCTx != 1532 {
			t.Errorf("Ethernet1 prio 3: %+v (first port %s)", c, port0)
		}
	} else {
		// Ethernet0 priority 3: 213 PFC frames sent, 203 received, UC3
		// 50,565,120 bytes with 7 + 52 (WRED) drops and 19 ECN marks.
		c := findCounter(out.Counters, l.Graph.Switches()[0].Name, "Ethernet0", 3)
		if port0 != "Ethernet0" || c == nil || *c != (results.Counter{Node: c.Node, Port: "Ethernet0", Priority: 3, TxBytes: 50565120, PFCTx: 213, PFCRx: 203, ECNMarked: 19, Drops: 59, Source: results.Measured}) {
			t.Errorf("Ethernet0 prio 3: %+v (first port %s)", c, port0)
		}
	}
	// Host counters: two readings one step apart.
	hc, ok := out.Extra["host_counters"].(map[string]map[string]int64)
	if !ok || hc["host1:0"]["rdma.sent_pkts"] != 1000 || hc["host1:0"]["ethtool.rx_packets"] != 10 {
		t.Errorf("host counters = %#v", out.Extra["host_counters"])
	}
	if _, moved := hc["host1:0"]["ethtool.peer_ifindex"]; moved {
		t.Error("a counter that did not move is listed")
	}
	if s.Retransmits != 3*4 { // 4 NICs, completer_retry_err +3 each
		t.Errorf("retransmits = %d", s.Retransmits)
	}
	// The simulated twin ran on the read-back configs, compressed to
	// MaxSimulatedUs.
	sp := out.Simulated
	if sp == nil || sp.Error != "" {
		t.Fatalf("simulated part: %+v", sp)
	}
	if sp.Summary.Source != results.Simulated || len(sp.Flows) == 0 || sp.Flows[0].Source != results.Simulated || sp.Summary.ThroughputGbpsTotal <= 0 {
		t.Errorf("simulated summary %+v", sp.Summary)
	}
	// A live variant's cost is its wall time: it counts no events (absent,
	// not 0). Its simulated twin's cost is the simulator's.
	if c := out.Cost; c == nil || c.Events != nil || c.EventsPerS != nil || c.PacketHops != nil || c.Threads != 0 {
		t.Errorf("live cost %+v", c)
	}
	if c := sp.Cost; c == nil || c.Events == nil || *c.Events == 0 || c.Threads != 1 {
		t.Errorf("simulated twin's cost %+v", c)
	}
	if f.sim.spec.DurationUs != 1000 || f.sim.spec.WarmupUs != v.WarmupUs*1000/v.DurationUs {
		t.Errorf("simulated duration %v warmup %v", f.sim.spec.DurationUs, f.sim.spec.WarmupUs)
	}
	for _, dc := range f.sim.cfgs {
		if (len(dc.LosslessPriorities()) > 0) != v.PFC || hasECN(dc) != v.ECN {
			t.Errorf("simulated %s with PFC %v ECN %v", dc.Device, dc.LosslessPriorities(), hasECN(dc))
		}
	}
}

func hasECN(dc qos.DeviceConfig) bool {
	for _, p := range dc.Ports {
		for _, q := range p.Queues {
			if q.ECN != nil {
				return true
			}
		}
	}
	return false
}

func findCounter(cs []results.Counter, node, port string, prio int) *results.Counter {
	for i, c := range cs {
		if c.Node == node && c.Port == port && c.Priority == prio {
			return &cs[i]
		}
	}
	return nil
}

func TestRunVariantPushFailureStillRestores(t *testing.T) {
	f := newLiveFixture(t, "sonic")
	push := f.r.PushVariant
	calls := 0
	var mu sync.Mutex
	f.r.PushVariant = func(ctx context.Context, nos, node, host string, port int, cred Credentials, full, variant []byte) (string, error) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			return "", fmt.Errorf("push to %s: apply: line rejected", node)
		}
		return push(ctx, nos, node, host, port, cred, full, variant)
	}
	v := testVariant()
	v.Name, v.PFC = "ecn=on,pfc=off", false
	_, err := f.r.RunVariant(context.Background(), f.l, v)
	if err == nil || !strings.Contains(err.Error(), "line rejected") {
		t.Fatalf("error = %v", err)
	}
	plan, err := VariantConfigs(f.l, v)
	if err != nil {
		t.Fatal(err)
	}
	restores := 0
	for _, p := range f.pushes {
		for _, sv := range plan {
			if sv.Device == p.node && string(p.full) == string(sv.Variant) && string(p.variant) == string(sv.Full) {
				restores++
			}
		}
	}
	if restores != len(f.l.Graph.Switches()) {
		t.Errorf("%d restores after a failed push, want one per switch", restores)
	}
	if len(f.eng.execs) != 0 {
		t.Errorf("traffic ran after a failed push: %q", f.eng.execs)
	}
}

func TestRunVariantCancelledRestores(t *testing.T) {
	f := newLiveFixture(t, "sonic")
	ctx, cancel := context.WithCancel(context.Background())
	show := f.r.Show
	f.r.Show = func(c context.Context, nos, node, host string, port int, cred Credentials, cmds []string) ([]string, error) {
		cancel() // interrupted while counters are read
		return show(c, nos, node, host, port, cred, cmds)
	}
	v := testVariant()
	v.Name, v.ECN = "ecn=off,pfc=on", false
	out, err := f.r.RunVariant(ctx, f.l, v)
	if out != nil || err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("cancelled run: %v, %+v", err, out)
	}
	if n := len(f.pushes); n != 2*len(f.l.Graph.Switches()) {
		t.Errorf("%d pushes: the lab's configs were not restored", n)
	}
}

func TestRunVariantRefusals(t *testing.T) {
	l := testLab(t)
	r := New()
	coll := testVariant()
	coll.Collective = &runtime.CollectiveSpec{Kind: "ring-allreduce"}
	if _, err := r.RunVariant(context.Background(), l, coll); exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("collective: %v", err)
	}
	none := testVariant()
	none.Flows = nil
	if _, err := r.RunVariant(context.Background(), l, none); exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("no flows: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.RunVariant(ctx, l, testVariant()); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("cancelled: %v", err)
	}
	r.LookPath = func(string) (string, error) { return "", os.ErrNotExist }
	if _, err := r.RunVariant(context.Background(), l, testVariant()); exitcode.Code(err) != exitcode.Environment {
		t.Errorf("no containerlab: %v (exit %d)", err, exitcode.Code(err))
	}
}

func TestLatencyCommand(t *testing.T) {
	l := testLab(t)
	c, err := LatencyCommand(l, testVariant(), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ib_write_lat", "-d", "rxe-host2-0", "-R", "-n", "10000", "-F", "-T", "106", "-p", "18517"}
	if !slices.Equal(c.Server, want) {
		t.Errorf("server argv %q\nwant        %q", c.Server, want)
	}
	if c.Client[2] != "rxe-host1-0" || !strings.HasPrefix(c.Client[len(c.Client)-1], "10.") {
		t.Errorf("client argv %q", c.Client)
	}
}

func TestZeroCounts(t *testing.T) {
	in := "Ethernet0   1,200     201  UC3\n---  ---\n"
	if got := zeroCounts(in); got != "Ethernet0       0       0  UC3\n---  ---\n" {
		t.Errorf("zeroCounts = %q", got)
	}
	in = `{"a": {"3": "12", "rxFrames": 877}}`
	if got := zeroCounts(in); got != `{"a": {"3": "0", "rxFrames": 0}}` {
		t.Errorf("zeroCounts = %q", got)
	}
}

// A switch whose counters cannot be read leaves its rows out and is named
// in the variant; the run itself stands.
func TestRunVariantCounterFailureIsNamed(t *testing.T) {
	f := newLiveFixture(t, "sonic")
	bad := f.l.Graph.Switches()[1].Name
	show := f.r.Show
	f.r.Show = func(ctx context.Context, nos, node, host string, port int, cred Credentials, cmds []string) ([]string, error) {
		if node == bad {
			return nil, fmt.Errorf("push to %s: connect: connection refused", node)
		}
		return show(ctx, nos, node, host, port, cred, cmds)
	}
	out, err := f.r.RunVariant(context.Background(), f.l, testVariant())
	if err != nil {
		t.Fatal(err)
	}
	notes, _ := out.Extra["counter_errors"].([]string)
	if len(notes) != 2 || !strings.Contains(notes[0], bad) {
		t.Errorf("counter errors = %q", notes)
	}
	for _, c := range out.Counters {
		if c.Node == bad {
			t.Fatalf("counters of %s recorded though unreadable", bad)
		}
	}
	if len(out.Counters) == 0 || !slices.Equal(out.Summary.NotComputed, []string{"pfc_pause_us", "cnp"}) {
		t.Errorf("counters %d, not computed %q", len(out.Counters), out.Summary.NotComputed)
	}
}

// A flow that fails leaves the variant in the record with its error, the
// other flows, the counters and the simulated twin.
func TestRunVariantFailedFlowKeepsVariant(t *testing.T) {
	f := newLiveFixture(t, "sonic")
	f.eng.bw = "ib_write_bw: Couldn't connect to 10.0.0.1:18515\n"
	out, err := f.r.RunVariant(context.Background(), f.l, testVariant())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Error, "2 of 2") && !strings.Contains(out.Error, "read ib_write_bw report") {
		t.Errorf("error = %q", out.Error)
	}
	if len(out.Counters) == 0 || out.Simulated == nil {
		t.Errorf("counters %d, simulated %v", len(out.Counters), out.Simulated)
	}
	if !slices.Contains(out.Summary.NotComputed, "latency_us_p99") {
		t.Errorf("no latency probe ran, yet p99 counts as measured: %q", out.Summary.NotComputed)
	}
}

// TestSimulatedTwinKeepsFaultsAndTheirExtras: the simulated twin of a
// live variant compresses time to MaxSimulatedUs with its faults in their
// place (a link down at half the run stays at half the twin's), and keeps
// what the simulation says of them (extra.faults, its times on the live
// run's clock), which a live lab does not count and a live run's
// assertions read from the twin.
func TestSimulatedTwinKeepsFaultsAndTheirExtras(t *testing.T) {
	f := newLiveFixture(t, "sonic")
	v := testVariant()
	v.DurationUs, v.WarmupUs = 100_000, 0
	v.Faults = []runtime.FaultSpec{{Kind: runtime.FaultLinkDown, Link: "leaf1-spine1", AtUs: 50_000, ForUs: 10_000, DetectUs: 100, ConvergeUs: 900_000}}
	readbacks := map[string]string{}
	for _, sw := range f.l.Graph.Switches() {
		b, err := os.ReadFile(filepath.Join(f.l.Dir, "configs", sw.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		readbacks[sw.Name] = string(b)
	}
	part := f.r.simulate(context.Background(), f.l, v, readbacks)
	if part.Error != "" {
		t.Fatal(part.Error)
	}
	got := f.sim.spec.Faults[0]
	if got.AtUs != 500 || got.ForUs != 100 || got.DetectUs != 100 || got.ConvergeUs != 900_000 {
		t.Errorf("the twin's fault: at %v for %v us, detect %v, converge %v; want at 500 for 100 (the run compressed 100x), the delays as they were", got.AtUs, got.ForUs, got.DetectUs, got.ConvergeUs)
	}
	if faults, ok := part.Extra["faults"].(map[string]any); !ok || faults["first_fault_us"] != 50_000.0 {
		t.Errorf("the twin's extras: %v, want extra.faults with the first fault at 50000 us (the twin's 500, on the live run's clock)", part.Extra)
	}
}
