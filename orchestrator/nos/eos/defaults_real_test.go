package eos

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// realEOS reads a real EOS config of reference/real-configs/eos, or skips.
func realEOS(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "reference", "real-configs", "eos", name))
	if err != nil {
		t.Skipf("real EOS configs not found (../shared/reference/real-configs/eos from the repository root): %v", err)
	}
	return string(data)
}

// parseNotes parses cfg and returns the model with lint's QOS000 notes.
func parseNotes(t *testing.T, cfg string) (qos.DeviceConfig, string) {
	t.Helper()
	dc, err := Parse("qos", qos.Source{Name: "qos.cfg", Data: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleParseNote {
			notes = append(notes, f.Message)
		}
	}
	return dc, strings.Join(notes, "\n")
}

func mutate(t *testing.T, cfg, old, new string) string {
	t.Helper()
	if !strings.Contains(cfg, old) {
		t.Fatalf("the real config no longer holds %q", old)
	}
	return strings.Replace(cfg, old, new, 1)
}

// Arista documents that on Sand platforms (Jericho, Arad) tx-queue 7
// carries traffic class 7, reserved for the control plane, and is not
// user-configurable before EOS 4.33.0F. labctl cannot tell the platform,
// so lint names the platform dependence where a config configures tx-queue
// 7 or maps another class to it; the model keeps the config as written.
func TestRealConfigSandQueue7(t *testing.T) {
	cfg := realEOS(t, "qos.cfg")
	dc, notes := parseNotes(t, cfg)
	// The profile experiment (Ethernet6, Port-Channel3) sets tx-queue 7
	// bandwidth percent 30.
	var q7 string
	for _, n := range strings.Split(notes, "\n") {
		if strings.HasPrefix(n, "tx-queue 7 is configured") {
			q7 = n
		}
	}
	if q7 == "" || !strings.Contains(q7, "Ethernet6") || !strings.Contains(q7, srcEOSSandQueue7) || !strings.Contains(q7, "4.33.0F") {
		t.Fatalf("lint does not name tx-queue 7's Sand-platform dependence at Ethernet6 with its source; QOS000 notes:\n%s", notes)
	}
	if strings.Contains(notes, "maps traffic class") {
		t.Errorf("the real config maps no class to or from tx-queue 7, yet a note says so:\n%s", notes)
	}
	if got := dc.Port("Ethernet6").TCToQueue[6]; got != 2 {
		t.Errorf("Ethernet6 TC 6 -> queue %d, want 2 (qos map traffic-class 6 to tx-queue 2)", got)
	}

	// Without the tx-queue 7 block, nothing depends on the platform.
	_, notes = parseNotes(t, mutate(t, cfg, "   tx-queue 7\n      bandwidth percent 30\n      shape rate 40 percent\n", ""))
	if strings.Contains(notes, "tx-queue 7 is configured") {
		t.Errorf("with tx-queue 7 unset, a note still names it:\n%s", notes)
	}

	// Mapping traffic class 6 to tx-queue 7: the model keeps the map, and
	// lint says that Sand platforms reserve the queue for class 7.
	dc, notes = parseNotes(t, mutate(t, cfg, "qos map traffic-class 6 to tx-queue 2", "qos map traffic-class 6 to tx-queue 7"))
	if got := dc.Port("Ethernet6").TCToQueue[6]; got != 7 {
		t.Errorf("Ethernet6 TC 6 -> queue %d, want 7 as the config says", got)
	}
	if !strings.Contains(notes, "maps traffic class 6 to tx-queue 7") || !strings.Contains(notes, "reserved for control-plane traffic") {
		t.Errorf("lint does not name the Sand platforms' reserved tx-queue 7 for TC 6 -> queue 7; QOS000 notes:\n%s", notes)
	}
}

// Arista's documentation labctl could read gives no default for
// random-detect ecn's max-mark-probability: labctl keeps 100% and lint
// names the assumption at the ports it decides.
func TestRealConfigECNProbabilityAssumed(t *testing.T) {
	cfg := realEOS(t, "qos.cfg")
	// Ethernet1 takes the profile test, whose tx-queue 4 gives none.
	line := "      random-detect ecn minimum-threshold 320 segments maximum-threshold 320 segments weight 10\n!\nqos profile test_with_pfc"
	dc, notes := parseNotes(t, cfg)
	if e := dc.Port("Ethernet1").Queues[4].ECN; e == nil || e.Pmax != 1 {
		t.Fatalf("Ethernet1 queue 4 ECN = %+v, want Pmax 1 (labctl's assumption)", e)
	}
	if !strings.Contains(notes, "without max-mark-probability") || !strings.Contains(notes, "Ethernet1") {
		t.Fatalf("lint does not name the assumed marking probability at Ethernet1; QOS000 notes:\n%s", notes)
	}
	dc, notes = parseNotes(t, mutate(t, cfg, line, strings.Replace(line, "weight 10", "max-mark-probability 50 weight 10", 1)))
	if e := dc.Port("Ethernet1").Queues[4].ECN; e == nil || e.Pmax != 0.5 {
		t.Errorf("with max-mark-probability 50, Ethernet1 queue 4 ECN = %+v, want Pmax 0.5", e)
	}
	if strings.Contains(notes, "without max-mark-probability") {
		t.Errorf("every ECN line gives its probability, yet a note names the assumption:\n%s", notes)
	}
}

// EOS's default tx-queue scheduling is labctl's reading of 'show qos
// interfaces' output, not Arista's manual: lint names it where a port
// leaves a queue's priority to EOS, and never for labctl's own configs,
// which set every queue.
func TestSchedulingAssumptionNamed(t *testing.T) {
	cfg := realEOS(t, "qos.cfg")
	_, notes := parseNotes(t, cfg)
	if !strings.Contains(notes, "labctl assumes EOS's scheduling") || !strings.Contains(notes, "aristaeos.blogspot.com") {
		t.Fatalf("lint does not name the assumed tx-queue scheduling and its source; QOS000 notes:\n%s", notes)
	}
	own, err := os.ReadFile(filepath.Join("testdata", "golden", "ecn-on_pfc-on", "leaf1.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if _, notes := parseNotes(t, string(own)); strings.Contains(notes, "labctl assumes EOS's scheduling") || strings.Contains(notes, "max-mark-probability") {
		t.Errorf("labctl's own config sets every queue's priority and ECN probability, yet lint names an assumption:\n%s", notes)
	}
}

// Which tx-queues EOS's PFC watchdog watches is not settled by Arista's
// documentation labctl could read: a third-party guide says only queues
// with guaranteed bandwidth. labctl keeps its watchdog on every PFC
// priority, and lint names the assumption where a watched priority's
// tx-queue sets no bandwidth guaranteed (where the two readings differ),
// and not once the queue sets it.
func TestRealConfigWatchdogQueueCoverageAssumed(t *testing.T) {
	// Ethernet1 takes the profile test_with_pfc instead of test, and PFC
	// is no longer off on every port: PFC on priority 0, the watchdog on,
	// tx-queue 0 with bandwidth percent only.
	cfg := mutate(t, realEOS(t, "qos.cfg"), "   service-profile test\n   qos trust dscp\n", "   service-profile test_with_pfc\n   qos trust dscp\n")
	cfg = mutate(t, cfg, "priority-flow-control all off\n", "")
	const field = "priority-flow-control pause watchdog (the tx-queues it watches)"
	defaulted := func(dc qos.DeviceConfig) bool {
		return slices.ContainsFunc(dc.Defaults, func(d qos.Default) bool {
			return d.Field == field && slices.Contains(d.Ports, "Ethernet1") && d.Source == srcEOSWatchdogQueues
		})
	}
	dc, notes := parseNotes(t, cfg)
	e1 := dc.Port("Ethernet1")
	if e1 == nil || qos.FormatInts(e1.PFCPriorities) != "0" || e1.Watchdog == nil || !e1.Watchdog.Watches(0) {
		t.Fatalf("Ethernet1: PFC %v, watchdog %+v; want PFC on priority 0 with the watchdog watching it", e1.PFCPriorities, e1.Watchdog)
	}
	var note string
	for _, n := range strings.Split(notes, "\n") {
		if strings.Contains(n, "PFC watchdog watches every PFC priority") {
			note = n
		}
	}
	for _, want := range []string{"labctl assumes", "tx-queue 0", "'bandwidth guaranteed'", "unverified", "https://www.arista.com/en/support/toi/tag/pfc", "Ethernet1"} {
		if !strings.Contains(note, want) {
			t.Fatalf("lint does not name the watchdog's assumed coverage of tx-queue 0 at Ethernet1 (%q missing); QOS000 notes:\n%s", want, notes)
		}
	}
	if !defaulted(dc) {
		t.Errorf("the model does not list the assumed coverage among Ethernet1's defaults: %+v", dc.Defaults)
	}

	// With bandwidth guaranteed on tx-queue 0, both readings watch it:
	// no assumption, and the watchdog is the same.
	const q0 = "qos profile test_with_pfc\n   service-policy type qos input pmap_test1\n   !\n   tx-queue 0\n      bandwidth percent 1\n"
	dc, notes = parseNotes(t, mutate(t, cfg, q0, q0+"      bandwidth guaranteed percent 10\n"))
	if e1 := dc.Port("Ethernet1"); e1.Watchdog == nil || !e1.Watchdog.Watches(0) {
		t.Errorf("with bandwidth guaranteed, Ethernet1 watchdog = %+v, want it watching priority 0", e1.Watchdog)
	}
	if strings.Contains(notes, "PFC watchdog watches every PFC priority") || defaulted(dc) {
		t.Errorf("tx-queue 0 sets bandwidth guaranteed, yet the assumption is still named:\n%s", notes)
	}

	// labctl's own configs leave RoCE's queue without bandwidth
	// guaranteed, so they rely on the assumption too, and lint says so.
	own, err := os.ReadFile(filepath.Join("testdata", "golden", "ecn-on_pfc-on", "leaf1.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	if _, notes := parseNotes(t, string(own)); !strings.Contains(notes, "so also tx-queue 3, which sets no 'bandwidth guaranteed'") {
		t.Errorf("labctl's own config watches tx-queue 3 without bandwidth guaranteed, yet lint does not name the assumption:\n%s", notes)
	}
}
