package eos

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
)

// cfgUpdate reports the -update flag, registered once per test binary by
// counters_test.go of this package.
func cfgUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// cfgDevices is qos.TestDevices with EOS interface names (Ethernet4k ->
// Ethernet(k+1)).
func cfgDevices() []qos.Device {
	devs := qos.TestDevices()
	rename := func(s string) string {
		dev, port, ok := strings.Cut(s, ":")
		if !ok {
			dev, port = "", s
		}
		n, err := strconv.Atoi(strings.TrimPrefix(port, "Ethernet"))
		if err != nil || !strings.HasPrefix(port, "Ethernet") {
			return s
		}
		port = fmt.Sprintf("Ethernet%d", n/4+1)
		if ok {
			return dev + ":" + port
		}
		return port
	}
	for i := range devs {
		for j := range devs[i].Ports {
			p := &devs[i].Ports[j]
			p.Name = rename(p.Name)
			p.Peer = rename(p.Peer)
		}
	}
	return devs
}

func cfgVariants(t testing.TB) map[string][]qos.DeviceConfig {
	t.Helper()
	base, err := qos.Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]qos.DeviceConfig{}
	for _, ecn := range []bool{true, false} {
		for _, pfc := range []bool{true, false} {
			name := fmt.Sprintf("ecn-%s_pfc-%s", onOff(ecn), onOff(pfc))
			cfgs, err := qos.ApplyAll(base.WithECN(ecn).WithPFC(pfc), cfgDevices())
			if err != nil {
				t.Fatal(err)
			}
			out[name] = cfgs
		}
	}
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// cfgComparable clears what EOS CLI does not carry: buffers (PGs, pool,
// TC->PG), speeds, cables, MTU and peers.
func cfgComparable(d qos.DeviceConfig) qos.DeviceConfig {
	d.NOS, d.PeersKnown, d.Pools, d.PlatformBuffer, d.ColoursByDSCP, d.Notes = "", false, nil, false, false, nil
	d.Defaults, d.Fields, d.Unresolved, d.DefaultPort = nil, nil, nil, nil
	for i := range d.Ports {
		p := &d.Ports[i]
		p.Peer, p.SpeedGbps, p.CableM, p.PGs, p.Fabric = "", 0, 0, nil, true
		// The intent leaves CoSToTC nil where the parser fills in EOS's
		// defaults: the round trip's Diff (TestRoundTripKeepsMeaning)
		// compares the classes by meaning.
		p.TCToPG, p.CoSToTC, p.Origins = nil, nil, nil
		// Whether EOS keeps the port L2 follows from Routed and Switched,
		// compared here (a model built from the intent says neither, where
		// the parser names the block); the renderer writes no IP
		// configuration (the lab's startup-configs hold its addresses), so
		// L2IP and L2Whole are not kept.
		p.L2, p.L2Said, p.L2IP, p.L2Whole, p.ChannelIgnored = "", "", "", "", ""
		for j := range p.Queues {
			q := &p.Queues[j]
			q.Buffer, q.Origin = nil, ""
			if q.WRED != nil {
				q.WRED.Name = ""
			}
		}
	}
	return d
}

// cfgEOSScheduled is what EOS makes of d's queue scheduling as Render
// writes it: a weighted queue numbered above a strict one is strict (EOS
// keeps strict-priority queues above round-robin ones).
func cfgEOSScheduled(d qos.DeviceConfig) qos.DeviceConfig {
	for i := range d.Ports {
		p := &d.Ports[i]
		p.Queues = slices.Clone(p.Queues)
		top := -1
		for _, q := range p.Queues {
			if q.Strict {
				top = max(top, q.Queue)
			}
		}
		for j := range p.Queues {
			if q := &p.Queues[j]; top >= 0 && q.Queue > top {
				q.Strict, q.Weight = true, 0
			}
		}
	}
	return d
}

// The intent's strict queue (the CNPs') stays strict priority on EOS:
// Render writes no round-robin queue above it, since "no priority" on a
// higher-numbered queue would make it round robin (the catalog's TC7,
// weighted 10 above the CNPs' strict queue 6, is written strict).
func TestRenderKeepsStrictQueuesStrict(t *testing.T) {
	for name, cfgs := range cfgVariants(t) {
		for _, dc := range cfgs {
			out, err := Render(dc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(dc.Device, qos.Source{Name: dc.Device + ".cfg", Data: out})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Overruled) > 0 {
				t.Errorf("%s/%s: the rendered config has statements EOS overrules: %+v", name, dc.Device, got.Overruled)
			}
			for _, p := range dc.Ports {
				gp := got.Port(p.Name)
				for _, q := range p.Queues {
					if q.Strict && (gp == nil || !gp.Queue(q.Queue).Strict) {
						t.Errorf("%s/%s %s: queue %d is strict in the intent but EOS serves it round robin:\n%s", name, dc.Device, p.Name, q.Queue, out)
						return
					}
				}
			}
		}
	}
}

// EOS keeps strict-priority tx-queues above round-robin ones: untouched
// queues are strict priority, and "no priority" on queue n makes queues
// 0..n round robin whatever they say, a "priority strict" among them being
// overruled (lint QOS021 at its line).
func TestParseTxQueueSchedulingOrder(t *testing.T) {
	const cfg = "qos profile P\n" +
		"   tx-queue 3\n" +
		"      no priority\n" +
		"      bandwidth percent 50\n" +
		"!\n" +
		"interface Ethernet1\n" +
		"   service-profile P\n" +
		"!\n" +
		"interface Ethernet2\n" +
		"   service-profile P\n" +
		"   tx-queue 6\n" +
		"      priority strict\n" +
		"   tx-queue 7\n" +
		"      no priority\n" +
		"      bandwidth percent 10\n" +
		"!\n" +
		"interface Ethernet3\n" +
		"   qos trust dscp\n"
	dc := mustParseEOS(t, cfg)
	sched := func(p *qos.PortConfig) string {
		var s []string
		for q := range qos.NumTC {
			if qc := p.Queue(q); qc.Strict {
				s = append(s, "SP")
			} else {
				s = append(s, fmt.Sprintf("RR%d", qc.Weight))
			}
		}
		return strings.Join(s, " ")
	}
	for port, want := range map[string]string{
		"Ethernet1": "RR1 RR1 RR1 RR50 SP SP SP SP",
		"Ethernet2": "RR1 RR1 RR1 RR50 RR1 RR1 RR1 RR10",
		"Ethernet3": "SP SP SP SP SP SP SP SP",
	} {
		if got := sched(dc.Port(port)); got != want {
			t.Errorf("%s queues 0-7 = %s, want %s", port, got, want)
		}
	}
	if got := sched(dc.DefaultPort); got != "SP SP SP SP SP SP SP SP" {
		t.Errorf("a port the config does not name: queues 0-7 = %s, want all strict priority", got)
	}
	if len(dc.Overruled) != 1 || dc.Overruled[0].Line != 12 || !slices.Equal(dc.Overruled[0].Ports, []string{"Ethernet2"}) {
		t.Fatalf("overruled = %+v, want Ethernet2's tx-queue 6 priority strict at line 12", dc.Overruled)
	}
	dc.Sources = []string{"sw.cfg"}
	found := false
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleOverruled && f.Severity == qos.SevWarning && f.Port == "Ethernet2" && strings.Contains(f.Message, "sw.cfg:12") {
			found = true
		}
	}
	if !found {
		t.Errorf("lint gave no QOS021 warning at sw.cfg:12 for the overruled priority strict")
	}
}

func TestRenderParseRoundTrip(t *testing.T) {
	for name, cfgs := range cfgVariants(t) {
		for _, dc := range cfgs {
			t.Run(name+"/"+dc.Device, func(t *testing.T) { renderParseBack(t, dc) })
		}
	}
}

// mustParseEOS parses cfg as switch sw's one file, failing the test where
// that fails.
func mustParseEOS(t *testing.T, cfg string) qos.DeviceConfig {
	t.Helper()
	dc, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// renderParseBack renders dc, parses the config back and fails the test
// where the model read back differs from dc (as EOS schedules it); it
// returns the config and the model read back.
func renderParseBack(t *testing.T, dc qos.DeviceConfig) ([]byte, qos.DeviceConfig) {
	t.Helper()
	out, err := Render(dc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(dc.Device, qos.Source{Name: dc.Device + ".cfg", Data: out})
	if err != nil {
		t.Fatal(err)
	}
	want := cfgEOSScheduled(cfgComparable(dc))
	if cg := cfgComparable(got); !reflect.DeepEqual(cg, want) {
		gj, _ := json.MarshalIndent(cg, "", " ")
		t.Errorf("round trip differs: %v\ngot %s\nconfig:\n%s", qos.Diff([]qos.DeviceConfig{want}, []qos.DeviceConfig{cg}), gj, out)
	}
	return out, got
}

func TestRenderGolden(t *testing.T) {
	for name, cfgs := range cfgVariants(t) {
		for _, dc := range cfgs {
			out, err := Render(dc)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", "golden", name, dc.Device+ConfigExt)
			if cfgUpdate() {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, out, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if string(want) != string(out) {
				t.Errorf("%s differs from the rendered config; review and run go test -update", file)
			}
		}
	}
}

func TestRenderContent(t *testing.T) {
	v := cfgVariants(t)
	out, err := Render(v["ecn-on_pfc-on"][0])
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		"qos map dscp 26 to traffic-class 3\n",
		"qos map dscp 48 to traffic-class 6\n",
		"qos profile labctl-100g\n   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n",
		"      random-detect ecn minimum-threshold 400 kbytes maximum-threshold 1600 kbytes max-mark-probability 20\n",
		"   tx-queue 6\n      priority strict\n",
		"priority-flow-control pause watchdog default timeout 0.2\n",
		"priority-flow-control pause watchdog action drop\n",
		"interface Ethernet1\n   service-profile labctl-100g\n",
		"interface Ethernet2\n   service-profile labctl-400g\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("rendered config lacks %q:\n%s", want, s)
		}
	}
	off, _ := Render(v["ecn-off_pfc-off"][0])
	for _, bad := range []string{"priority-flow-control on", "random-detect", "watchdog"} {
		if strings.Contains(string(off), bad) {
			t.Errorf("ecn=off,pfc=off config contains %q", bad)
		}
	}
	dc := v["ecn-on_pfc-on"][0]
	for i := range dc.Ports {
		dc.Ports[i].TCToQueue[6], dc.Ports[i].PFCToQueue[6] = 7, 7
	}
	moved, err := Render(dc)
	if err != nil || !strings.Contains(string(moved), "qos map traffic-class 6 to tx-queue 7\n") || strings.Contains(string(moved), "traffic-class 5 to tx-queue") {
		t.Errorf("non-default TC->queue map: %v\n%s", err, moved)
	}
	if back, err := Parse("leaf1", qos.Source{Name: "x.cfg", Data: moved}); err != nil || back.Ports[0].TCToQueue[6] != 7 || back.Ports[0].TCToQueue[5] != 5 {
		t.Errorf("TC->queue read back = %v, %v", back.Ports[0].TCToQueue, err)
	}
	// SONiC's alert is EOS's notify-only (it detects and only tells), and
	// reads back as alert; an action EOS has no counterpart for is refused.
	for i := range dc.Ports {
		dc.Ports[i].Watchdog.Action = "alert"
	}
	out, err = Render(dc)
	if err != nil || !strings.Contains(string(out), "priority-flow-control pause watchdog action notify-only\n") {
		t.Errorf("alert action: %v\n%s", err, out)
	} else if back := mustParseEOS(t, string(out)); back.Ports[0].Watchdog == nil || back.Ports[0].Watchdog.Action != "alert" {
		t.Errorf("notify-only read back as %+v, want alert", back.Ports[0].Watchdog)
	}
	dc.Ports[0].Watchdog.Action = "shutdown"
	if _, err := Render(dc); err == nil || !strings.Contains(err.Error(), "no EOS equivalent") {
		t.Errorf("shutdown action: err = %v", err)
	}
}

func TestParseSnippets(t *testing.T) {
	cfg := `qos map dscp 26 to traffic-class 3
priority-flow-control pause watchdog default timeout 0.3
priority-flow-control pause watchdog default recovery-time 1.5
priority-flow-control pause watchdog action no-drop
!
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control priority 4 no-drop
   !
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
      random-detect ecn count
!
interface Ethernet1
   description to spine
   mtu 9214
   service-profile ROCE
   priority-flow-control priority 4 drop
!
interface Ethernet2
   no switchport
   ip nat service-profile NAT
   ip address 10.0.0.1/31
!
interface Ethernet3
   service-profile ROCE
   no priority-flow-control
   comment
   priority-flow-control on
   EOF
!
interface Ethernet4
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   no priority-flow-control pause watchdog
!
`
	dc := mustParseEOS(t, cfg)
	e1 := dc.Port("Ethernet1")
	if e1 == nil || e1.DSCPToTC[26] != 3 || e1.DSCPToTC[0] != 1 || e1.DSCPToTC[10] != 0 || e1.DSCPToTC[48] != 6 {
		t.Fatalf("Ethernet1 = %+v", e1)
	}
	if e1 == nil || qos.FormatInts(e1.PFCPriorities) != "3" {
		t.Fatalf("Ethernet1 = %+v (interface drop must override the profile's no-drop)", e1)
	}
	if w := e1.Watchdog; w == nil || w.DetectionMs != 300 || w.RestorationMs != 1500 || w.Action != "forward" {
		t.Errorf("Ethernet1 watchdog = %+v", w)
	}
	if e := e1.Queue(3).ECN; e == nil || e.MinBytes != 150*1024 || e.MaxBytes != 1500*1024 || e.Pmax != 0.2 {
		t.Errorf("Ethernet1 queue 3 ECN = %+v", e)
	}
	if hasQoS(dc.Port("Ethernet2")) {
		t.Error("ip nat service-profile taken as a QoS service-profile")
	}
	if e3 := dc.Port("Ethernet3"); e3 == nil || len(e3.PFCPriorities) != 0 {
		t.Errorf("Ethernet3 = %+v: no priority-flow-control must win and comment text be ignored", e3)
	}
	if e4 := dc.Port("Ethernet4"); e4 == nil || e4.Watchdog != nil || qos.FormatInts(e4.PFCPriorities) != "3" {
		t.Errorf("Ethernet4 = %+v", e4)
	}
}

// EOS applies a command in the mode the commands before it entered, not
// by its indentation: a tx-queue statement indented with a tab (or by
// less than the file's other queue lines) stays in the queue, a profile
// statement indented under a queue leaves it, and every indentation of
// the same config parses to the same model.
func TestParseModeNotIndentation(t *testing.T) {
	const spaces = "qos map dscp 26 to traffic-class 3\n" +
		"qos profile ROCE\n" +
		"   priority-flow-control on\n" +
		"   priority-flow-control priority 3 no-drop\n" +
		"   tx-queue 3\n" +
		"      no priority\n" +
		"      bandwidth percent 50\n" +
		"      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20\n" +
		"   qos trust dscp\n" +
		"   tx-queue 6\n" +
		"      priority strict\n" +
		"!\n" +
		"interface Ethernet1\n" +
		"   service-profile ROCE\n"
	parse := func(t *testing.T, cfg string) qos.DeviceConfig {
		t.Helper()
		dc := mustParseEOS(t, cfg)
		return dc
	}
	want := parse(t, spaces)
	p := want.Port("Ethernet1")
	if e := p.Queue(3).ECN; e == nil || e.MinBytes != 150*1024 || p.Queue(3).Weight != 50 || !p.Queue(6).Strict || p.Trust != qos.TrustDSCP {
		t.Fatalf("the space-indented config reads as %+v", p)
	}
	for name, cfg := range map[string]string{
		"one tab for the ECN line":               strings.Replace(spaces, "      random-detect", "\trandom-detect", 1),
		"tabs throughout":                        strings.NewReplacer("      ", "\t\t", "   ", "\t").Replace(spaces),
		"queue lines at the queue's indentation": strings.NewReplacer("      no priority", "   no priority", "      bandwidth", "   bandwidth", "      random-detect", "   random-detect", "      priority strict", "   priority strict").Replace(spaces),
		"no indentation under the profile":       strings.NewReplacer("   ", " ", "      ", "  ").Replace(spaces),
	} {
		t.Run(name, func(t *testing.T) {
			got := parse(t, cfg)
			if d := qos.Diff([]qos.DeviceConfig{want}, []qos.DeviceConfig{got}); len(d) != 0 {
				t.Errorf("differs from the space-indented config: %v", d)
			}
			for _, n := range got.Fields {
				if n.Use == qos.UseIgnored {
					t.Errorf("note %+v: a line was not read in its mode", n)
				}
			}
		})
	}
	// A profile statement indented as if under the queue leaves it.
	deep := strings.Replace(spaces, "   qos trust dscp\n", "      qos trust cos\n", 1)
	dc := parse(t, deep)
	if got := dc.Port("Ethernet1"); got.Trust != qos.TrustCoS {
		t.Errorf("qos trust cos under tx-queue 3: trust %v, want cos (EOS applies it to the profile)", got.Trust)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"dscp range", "qos map dscp 64 to traffic-class 3\n", `x.cfg:1: dscp: "64" is not 0-63`},
		{"tc range", "qos map dscp 26 to traffic-class 9\n", `x.cfg:1: traffic class: "9"`},
		{"map syntax", "qos map dscp 26 traffic-class 3\n", "want qos map dscp"},
		{"pfc priority", "interface Ethernet1\n   priority-flow-control priority 8 no-drop\n", `x.cfg:2: "priority-flow-control priority 8 no-drop": priority`},
		{"pfc mode", "interface Ethernet1\n   priority-flow-control priority 3 lossless\n", "want no-drop or drop"},
		{"queue", "interface Ethernet1\n   tx-queue 9\n", `x.cfg:2: tx-queue "9"`},
		{"ecn units", "interface Ethernet1\n   tx-queue 3\n      random-detect ecn minimum-threshold 1 kbytes maximum-threshold 2 segments\n", "threshold units"},
		{"ecn value", "interface Ethernet1\n   tx-queue 3\n      random-detect ecn minimum-threshold x kbytes maximum-threshold 2 kbytes\n", `x.cfg:3:`},
		{"watchdog time", "priority-flow-control pause watchdog default timeout soon\n", `"soon" is not a number of seconds`},
		// A keyword one letter off is a typo EOS rejects, not a statement
		// labctl does not know (which would leave ECN or PFC off unseen).
		{"ecn keyword misspelt", "interface Ethernet1\n   tx-queue 3\n      random-detect ecn minimum-treshold 800 kbytes maximum-threshold 3200 kbytes\n",
			`x.cfg:3: "random-detect ecn minimum-treshold 800 kbytes maximum-threshold 3200 kbytes": "minimum-treshold" is no EOS keyword here (fix: did you mean "minimum-threshold"?`},
		{"pfc keyword misspelt", "interface Ethernet1\n   priority-flow-control priorty 3 no-drop\n", `x.cfg:2: "priority-flow-control priorty 3 no-drop": "priorty" is no EOS keyword here (fix: did you mean "priority"?`},
		// A bare client line under encapsulation vlan: EOS's % Incomplete
		// command, which written back would not parse as the tags.
		{"client without tags", "interface Ethernet26.200\n   encapsulation vlan\n      client\n", `x.cfg:3: "client": the FlexEncap's client line gives no tags, which EOS refuses (% Incomplete command) (fix: write the tags`},
		{"global keyword misspelt", "priority-flow-control pause watchdog default timout 0.2\n", `x.cfg:1:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x", qos.Source{Name: "x.cfg", Data: []byte(tt.in)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func cfgRealConfigs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "shared", "reference", "real-configs", "eos")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("real EOS configs not found at %s: %v", dir, err)
		}
		t.Skipf("real EOS configs not found at %s (../shared/reference/real-configs from the repository root)", dir)
	}
	return dir
}

func TestParseRealConfigs(t *testing.T) {
	dir := cfgRealConfigs(t)
	read := func(name string) qos.Source {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return qos.Source{Name: name, Data: data}
	}
	t.Run("qos.cfg", func(t *testing.T) {
		dc, err := Parse("avd-qos", read("qos.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		// DSCP 26 is in the drop-precedence line: TC4.
		p0 := dc.Ports[0]
		if p0.DSCPToTC[26] != 4 || p0.DSCPToTC[46] != 5 || p0.DSCPToTC[8] != 1 {
			t.Errorf("dscp map: 26->%d 46->%d 8->%d", p0.DSCPToTC[26], p0.DSCPToTC[46], p0.DSCPToTC[8])
		}
		if p0.TCToQueue[6] != 2 {
			t.Errorf("tc 6 -> queue %d, want 2", p0.TCToQueue[6])
		}
		if dc.WatchdogPollMs != 10001 {
			t.Errorf("watchdog poll = %d", dc.WatchdogPollMs)
		}
		e1 := dc.Port("Ethernet1")
		if e1 == nil || len(e1.PFCPriorities) != 0 {
			t.Fatalf("Ethernet1 = %+v", e1)
		}
		q2 := e1.Queue(2)
		if q2 == nil || !q2.Strict || q2.ECN == nil || q2.ECN.MinBytes != 320*1024 || q2.ECN.Pmax != 0.9 {
			t.Errorf("Ethernet1 queue 2 (profile test) = %+v", q2)
		}
		if q4 := e1.Queue(4); q4 == nil || q4.ECN == nil || q4.ECN.Unit != "segments" {
			t.Errorf("Ethernet1 queue 4 = %+v", q4)
		}
		if e7 := dc.Port("Ethernet7"); e7 == nil || e7.Queue(1).Weight != 80 {
			t.Errorf("Ethernet7 = %+v", e7)
		}
		// The profile experiment shapes its tx-queue 7 to 40 percent of
		// the port's speed (line 19), on the ports that take it. The
		// profile test's shape rate 80 percent (line 44) stands above its
		// tx-queues: the port's shaper, on Ethernet1 (service-profile
		// test), and no queue's.
		for _, p := range dc.Ports {
			for _, q := range p.Queues {
				shaped := q.Queue == 7 && (p.Name == "Ethernet6" || p.Name == "Port-Channel3")
				switch {
				case shaped && (q.Shaper == nil || *q.Shaper != qos.Shaper{Percent: 40}):
					t.Errorf("%s tx-queue 7 shaper = %+v, want 40 percent (profile experiment's shape rate 40 percent)", p.Name, q.Shaper)
				case !shaped && q.Shaper != nil:
					t.Errorf("%s tx-queue %d shaper = %+v, want none", p.Name, q.Queue, q.Shaper)
				}
			}
		}
		for _, p := range dc.Ports {
			want := (*qos.Shaper)(nil)
			if p.Name == "Ethernet1" {
				want = &qos.Shaper{Percent: 80}
			}
			if !reflect.DeepEqual(p.Shaper, want) {
				t.Errorf("%s port shaper = %+v, want %+v (profile test's shape rate 80 percent on the ports that apply it)", p.Name, p.Shaper, want)
			}
		}
		if slices.ContainsFunc(dc.Unsimulated, func(u qos.NotRun) bool { return strings.Contains(u.Where, "shape rate") }) {
			t.Errorf("a simulated port shape rate is among the unsimulated statements: %+v", dc.Unsimulated)
		}
		// Kmin 320 kbytes = Kmax 320 kbytes in profile "test": a step,
		// which lint names (a warning: switches take it).
		fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
		found := false
		for _, f := range fs {
			if f.Rule == qos.RuleECNThresholds && f.Port == "Ethernet1" && f.Severity == qos.SevWarning && strings.Contains(f.Message, "Kmin and Kmax are both 327680 bytes") {
				found = true
			}
		}
		if !found {
			t.Errorf("lint did not flag Kmin = Kmax on Ethernet1: %+v", fs)
		}
	})
	t.Run("ethernet-interfaces.cfg", func(t *testing.T) {
		dc, err := Parse("avd-intf", read("ethernet-interfaces.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		if p := dc.Port("Ethernet1"); p == nil || len(p.PFCPriorities) != 0 {
			t.Errorf("Ethernet1 (pfc on, priority 5 drop) = %+v", p)
		}
		if p := dc.Port("Ethernet2"); p == nil || qos.FormatInts(p.PFCPriorities) != "5" {
			t.Errorf("Ethernet2 (pfc on, priority 5 no-drop) = %+v", p)
		}
		if p := dc.Port("Ethernet3"); p == nil || len(p.PFCPriorities) != 0 {
			t.Errorf("Ethernet3 (no priority-flow-control) = %+v", p)
		}
		if hasQoS(dc.Port("Ethernet69")) {
			t.Error("Ethernet69's ip nat service-profile taken as QoS")
		}
		// Ethernet21 and Ethernet22 shape the port (shape rate 200000 kbps,
		// 10 percent), not a tx-queue: no queue is shaped.
		portShapers := map[string]*qos.Shaper{"Ethernet21": {RateKbps: 200000}, "Ethernet22": {Percent: 10}}
		for name := range portShapers {
			if dc.Port(name) == nil {
				t.Errorf("no port %s", name)
			}
		}
		for _, p := range dc.Ports {
			if want := portShapers[p.Name]; !reflect.DeepEqual(p.Shaper, want) {
				t.Errorf("%s port shaper = %+v, want %+v", p.Name, p.Shaper, want)
			}
			for _, q := range p.Queues {
				if q.Shaper != nil {
					t.Errorf("%s tx-queue %d shaper = %+v: the file shapes ports only", p.Name, q.Queue, q.Shaper)
				}
			}
		}
		if len(dc.Notes) == 0 {
			t.Error("no note about the service-profile QoS defined elsewhere")
		}
	})
	t.Run("both files", func(t *testing.T) {
		if _, err := Parse("avd", read("qos.cfg"), read("ethernet-interfaces.cfg")); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, v := range cfgVariants(f) {
		for _, dc := range v {
			out, err := Render(dc)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(out)
		}
	}
	for _, name := range []string{"qos.cfg", "ethernet-interfaces.cfg"} {
		if data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "reference", "real-configs", "eos", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("interface Ethernet1\n   tx-queue 3\n      random-detect ecn minimum-threshold\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dc, err := Parse("fuzz", qos.Source{Name: "fuzz.cfg", Data: data})
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error")
			}
			return
		}
		qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
		qos.Summarize(&dc)
		// Whatever parses renders unless it uses units or actions EOS
		// render refuses.
		_, _ = Render(dc)
	})
}

func TestInterfaceNames(t *testing.T) {
	for i, want := range map[int]string{1: "Ethernet1", 2: "Ethernet2", 48: "Ethernet48"} {
		if got := InterfaceName(i); got != want {
			t.Errorf("InterfaceName(%d) = %s, want %s", i, got, want)
		}
		if back, err := LinuxInterface(want); err != nil || back != fmt.Sprintf("eth%d", i) {
			t.Errorf("LinuxInterface(%s) = %s, %v", want, back, err)
		}
	}
	for _, bad := range []string{"Ethernet0", "eth1", "Management1"} {
		if _, err := LinuxInterface(bad); err == nil {
			t.Errorf("LinuxInterface(%q) accepted", bad)
		}
	}
}

// hasQoS says whether a parsed port carries any QoS of its own (PFC, ECN,
// a strict queue or a weight); every Ethernet port is listed, QoS or not.
func hasQoS(p *qos.PortConfig) bool {
	if p == nil {
		return false
	}
	if len(p.PFCPriorities) > 0 || p.Watchdog != nil {
		return true
	}
	for _, q := range p.Queues {
		// EOS serves an untouched tx-queue strict priority: a
		// round-robin queue was set so.
		if q.ECN != nil || !q.Strict {
			return true
		}
	}
	return false
}

// Bare-file lint notices a fabric port whose service-profile was removed
// while its siblings keep theirs (QOS012), as the lab-aware lint does.
func TestBareLintFlagsPortWithoutServiceProfile(t *testing.T) {
	in, _ := qos.Profile("")
	devs := []qos.Device{{Name: "leaf1", Role: "leaf"}}
	for i := 1; i <= 6; i++ {
		devs[0].Ports = append(devs[0].Ports, qos.Port{Name: fmt.Sprintf("Ethernet%d", i), SpeedGbps: 100, Peer: fmt.Sprintf("host%d", i), Fabric: true})
	}
	cfgs, err := qos.ApplyAll(in, devs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(cfgs[0])
	if err != nil {
		t.Fatal(err)
	}
	// Drop Ethernet4's service-profile line, as a hand edit would.
	var kept []string
	cur := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "interface ") {
			cur = strings.TrimPrefix(line, "interface ")
		}
		if cur == "Ethernet4" && strings.Contains(line, "service-profile") {
			continue
		}
		kept = append(kept, line)
	}
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(strings.Join(kept, "\n"))})
	if err != nil {
		t.Fatal(err)
	}
	fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	found := false
	for _, f := range fs {
		if f.Rule == qos.RulePortDiffers {
			if f.Port != "Ethernet4" {
				t.Errorf("QOS012 on %s, want only Ethernet4: %s", f.Port, f.Message)
			}
			found = true
		}
	}
	if !found {
		t.Errorf("no QOS012 for the port without its service-profile: %+v", fs)
	}
}

// The PFC watchdog's defaults labctl could not check in Arista's
// documentation (the global timeout turning the watchdog on, errdisable
// as the action, a timer set nowhere) are each named by lint (QOS000
// info) with the ports they decide, not taken silently.
func TestParseWatchdogAssumptionsNamed(t *testing.T) {
	const cfg = "priority-flow-control pause watchdog default timeout 0.2\n" +
		"interface Ethernet1\n" +
		"   priority-flow-control on\n" +
		"   priority-flow-control priority 3 no-drop\n" +
		"!\n" +
		"interface Ethernet2\n" +
		"   priority-flow-control on\n" +
		"   priority-flow-control priority 3 no-drop\n" +
		"   priority-flow-control pause watchdog\n" +
		"   priority-flow-control pause watchdog port action drop\n" +
		"   priority-flow-control pause watchdog port timer timeout 0.2 polling-interval auto recovery-time 0.2\n" +
		"   tx-queue 3\n" +
		"      bandwidth guaranteed percent 1\n"
	dc := mustParseEOS(t, cfg)
	if w := dc.Port("Ethernet1").Watchdog; w == nil || w.Action != "errdisable" || w.DetectionMs != 200 {
		t.Fatalf("Ethernet1 watchdog = %+v", w)
	}
	var notes []string
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		// The watchdog's notes only: the config leaves tx-queue
		// scheduling to EOS too, which another note names.
		if f.Rule == qos.RuleParseNote && f.Severity == qos.SevInfo && strings.Contains(f.Message, "watchdog") {
			notes = append(notes, f.Message)
		}
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"default timeout' turns the PFC watchdog on", "errdisables the port", "detection or recovery time of 0", "watches every PFC priority of a port it is on, so also tx-queue 3"} {
		if !strings.Contains(all, want) {
			t.Errorf("lint does not name the assumption %q; QOS000 notes:\n%s", want, all)
		}
	}
	if strings.Contains(all, "Ethernet2") {
		t.Errorf("Ethernet2 sets its watchdog fully, yet a note names it:\n%s", all)
	}
}

// WRED thresholds in segments or time are EOS syntax the simulator does
// not run (it would need the platform's cell size or the queue's drain
// rate): the queue simulates without marking, and lint must say so (an
// unsimulated setting, QOS017), not leave the missing marks unexplained.
func TestWREDThresholdUnitsNotSimulatedSaid(t *testing.T) {
	for _, unit := range []string{"segments", "microseconds"} {
		dc := mustParseEOS(t, "qos profile p\n   tx-queue 3\n      random-detect ecn minimum-threshold 80 "+unit+" maximum-threshold 320 "+unit+"\n!\ninterface Ethernet1\n   service-profile p\n")
		if !slices.ContainsFunc(dc.Unsimulated, func(u qos.NotRun) bool {
			return strings.Contains(u.Where, "random-detect ecn thresholds in "+unit) && strings.Contains(u.What, "marks no packet ECN") && u.Fix != ""
		}) {
			t.Errorf("%s: unsimulated %+v", unit, dc.Unsimulated)
		}
	}
	dc := mustParseEOS(t, "qos profile p\n   tx-queue 3\n      random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes\n!\ninterface Ethernet1\n   service-profile p\n")
	if len(dc.Unsimulated) != 0 {
		t.Errorf("kbytes: unsimulated %+v", dc.Unsimulated)
	}
}

// A port timer's polling-interval is the port's poll interval, which a
// storm's detection waits up to: it was passed over, so a port polling
// every second read as polling at the global 0.1 s (lint quiet, the
// simulator detecting on time). auto, and the global's own value, are
// the global's.
func TestParseWatchdogPortPoll(t *testing.T) {
	head := "priority-flow-control pause watchdog default timeout 0.2\npriority-flow-control pause watchdog default polling-interval 0.1\n" +
		"qos profile P\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n   priority-flow-control pause watchdog port timer timeout 0.2 polling-interval 1 recovery-time 0.2\n!\n"
	for _, c := range []struct {
		name, intf string
		poll       int
	}{
		{"the profile's", "   service-profile P\n", 1000},
		{"the interface's over the profile's", "   service-profile P\n   priority-flow-control pause watchdog port timer timeout 0.2 polling-interval 0.5 recovery-time 0.2\n", 500},
		{"auto: the global's", "   service-profile P\n   priority-flow-control pause watchdog port timer timeout 0.2 polling-interval auto recovery-time 0.2\n", 0},
		{"the global's value", "   service-profile P\n   priority-flow-control pause watchdog port timer timeout 0.2 polling-interval 0.1 recovery-time 0.2\n", 0},
		{"the interface's timer removed", "   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n   priority-flow-control pause watchdog port timer timeout 0.3 polling-interval 1 recovery-time 0.2\n   no priority-flow-control pause watchdog port timer\n", 0},
	} {
		dc := mustParseEOS(t, head+"interface Ethernet1\n"+c.intf+"!\n")
		w := dc.Port("Ethernet1").Watchdog
		if w == nil || w.PollMs != c.poll || w.PollMsOf(&dc) != max(c.poll, 100) {
			t.Errorf("%s: watchdog %+v, want poll %d ms", c.name, w, c.poll)
			continue
		}
		renderParseBack(t, dc)
	}
	if _, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte(strings.Replace(head, "polling-interval 1 ", "polling-interval soon ", 1))}); err == nil || !strings.Contains(err.Error(), "sw.cfg:6") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("polling-interval soon: err %v, want a refusal at its line with the fix", err)
	}
}

// forced after a port timer's recovery-time (a real config's) is named as
// not read, where it passed in silence; the timer's times are read.
func TestParseWatchdogForcedNamed(t *testing.T) {
	dc := mustParseEOS(t, "priority-flow-control pause watchdog default timeout 0.2\ninterface Ethernet1\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n   priority-flow-control pause watchdog port timer timeout 0.05 polling-interval auto recovery-time 1.11 forced\n!\n")
	if w := dc.Port("Ethernet1").Watchdog; w == nil || w.DetectionMs != 50 || w.RestorationMs != 1110 {
		t.Errorf("watchdog %+v, want 50 ms and 1110 ms", w)
	}
	if !slices.ContainsFunc(dc.Fields, func(f qos.FieldNote) bool {
		return strings.HasSuffix(f.Field, "recovery-time <s> forced") && f.Use == qos.UseIgnored
	}) {
		t.Errorf("forced not named as not read: %+v", dc.Fields)
	}
}

// labctl's configs rely on no default of EOS's for a port's MTU: the lab's
// fabric ports (routed, /31s in the base startup-config) are rendered with
// no switchport and the fabric's MTU, so that deleting the mtu line leaves
// the routed port at EOS's default 1500, which lint (QOS020) then names.
// They were rendered with neither, and read as carrying the lab's packets
// with the line gone too.
func TestRenderLabPortsRoutedWithMTU(t *testing.T) {
	in, _ := qos.Profile("")
	devs := []qos.Device{{Name: "leaf1", Role: "leaf"}}
	for i := 1; i <= 4; i++ {
		devs[0].Ports = append(devs[0].Ports, qos.Port{Name: fmt.Sprintf("Ethernet%d", i), SpeedGbps: 200, Peer: fmt.Sprintf("host%d", i), Fabric: true, MTU: fabric.SwitchMTU})
	}
	cfgs, err := qos.ApplyAll(in, devs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(cfgs[0])
	if err != nil {
		t.Fatal(err)
	}
	mtuLine := fmt.Sprintf("   mtu %d", fabric.SwitchMTU)
	for i := 1; i <= 4; i++ {
		block := fmt.Sprintf("interface Ethernet%d\n%s\n   no switchport\n", i, mtuLine)
		if !strings.Contains(string(out), block) {
			t.Errorf("Ethernet%d is not rendered routed at MTU %d:\n%s", i, fabric.SwitchMTU, out)
		}
	}
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range dc.Ports {
		if p.MTU != fabric.SwitchMTU || !p.Routed {
			t.Errorf("%s read back: MTU %d, routed %v", p.Name, p.MTU, p.Routed)
		}
	}
	// The mtu lines deleted, as a hand edit would.
	cut := strings.ReplaceAll(string(out), mtuLine+"\n", "")
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(cut)})
	if err != nil {
		t.Fatal(err)
	}
	flagged := map[string]bool{}
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{Intent: &in}) {
		if f.Rule == qos.RulePortMTU && strings.Contains(f.Message, "EOS's default L3 MTU of a routed port") {
			flagged[f.Port] = true
		}
	}
	for _, p := range dc.Ports {
		if p.MTU != cfgDefaultMTU || !flagged[p.Name] {
			t.Errorf("%s without its mtu line: MTU %d, QOS020 %v; want %d and QOS020", p.Name, p.MTU, flagged[p.Name], cfgDefaultMTU)
		}
	}
}
