package clab

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// linkRecorder records the `ip link set` commands a variant's faults run
// and when.
type linkRecorder struct {
	mu    sync.Mutex
	start time.Time
	cmds  []string
	at    []time.Duration
}

func (r *linkRecorder) Exec(_ context.Context, ctr string, argv []string, _ ExecOptions) (ExecResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cmds = append(r.cmds, ctr+": "+strings.Join(argv, " "))
	r.at = append(r.at, time.Since(r.start))
	return ExecResult{}, nil
}

func TestLinkFaultActions(t *testing.T) {
	l := testLab(t)
	v := runtime.VariantSpec{Name: "v", DurationUs: 100_000, Faults: []runtime.FaultSpec{
		{Kind: runtime.FaultLinkDown, Link: "leaf1-spine1", AtUs: 20_000, ForUs: 30_000},
		{Kind: runtime.FaultLinkFlap, Link: "spine1-leaf1", AtUs: 10_000, DownUs: 5_000, UpUs: 5_000, Count: 20},
	}}
	acts, err := linkActions(l, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The flap is cut at the end of the variant: downs at 10, 20, ... 90
	// ms, each up 5 ms later; the link-down at 20 ms, up at 50 ms.
	downs, ups := 0, 0
	for i, a := range acts {
		if i > 0 && a.at < acts[i-1].at {
			t.Fatalf("actions out of order: %v after %v", a.at, acts[i-1].at)
		}
		if a.up {
			ups++
		} else {
			downs++
		}
		if !strings.HasPrefix(a.container, "clab-16gpu-") || !strings.HasPrefix(a.iface, "eth") {
			t.Errorf("action %+v: want a switch container and its eth interface", a)
		}
	}
	if downs != 10 || ups != 10 {
		t.Errorf("%d downs and %d ups, want 10 and 10 (9 flaps and one link-down)", downs, ups)
	}

	rec := &linkRecorder{start: time.Now()}
	short := []linkAction{
		{at: 5 * time.Millisecond, container: "c", iface: "eth1", where: "leaf1:Ethernet0 (eth1)"},
		{at: 15 * time.Millisecond, up: true, container: "c", iface: "eth1", where: "leaf1:Ethernet0 (eth1)"},
		{at: 20 * time.Millisecond, container: "c", iface: "eth2", where: "leaf1:Ethernet4 (eth2)"},
	}
	marks := runLinkFaults(context.Background(), rec, short, rec.start)
	want := []string{"c: ip link set dev eth1 down", "c: ip link set dev eth1 up", "c: ip link set dev eth2 down", "c: ip link set dev eth2 up"}
	if strings.Join(rec.cmds, "|") != strings.Join(want, "|") {
		t.Fatalf("commands %q, want %q (the link left down is restored)", rec.cmds, want)
	}
	for i, d := range []time.Duration{5, 15, 20} {
		if rec.at[i] < d*time.Millisecond {
			t.Errorf("command %d at %v, before its time %v ms", i, rec.at[i], d)
		}
	}
	if len(marks) != 4 || marks[0].Source != results.Measured || marks[0].Kind != "link down" || marks[3].Kind != "link up" {
		t.Errorf("marks %+v: want 4 measured marks, down first, the restore last", marks)
	}
}

func TestLiveRefusesSimulatorOnlyFaults(t *testing.T) {
	l := testLab(t)
	for _, tc := range []struct {
		v    runtime.VariantSpec
		want string
	}{
		{runtime.VariantSpec{Name: "v", Faults: []runtime.FaultSpec{{Kind: runtime.FaultPFCStorm, NIC: &runtime.Endpoint{Host: "host1"}}}}, "needs the simulator"},
		{runtime.VariantSpec{Name: "v", LB: runtime.LBSpec{Mode: "spray"}}, "--runtime sim"},
		{runtime.VariantSpec{Name: "v", Faults: []runtime.FaultSpec{{Kind: runtime.FaultLinkDown, Link: "leaf9-spine1"}}}, "no link between"},
	} {
		_, err := liveFaults(l, tc.v)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitcode.Code(err) != exitcode.BadInput {
			t.Errorf("%+v: error %v (exit %d), want exit 2 with %q", tc.v, err, exitcode.Code(err), tc.want)
		}
	}
}

// A link a switch's config keeps administratively down is refused on a
// live lab as the simulator refuses it (runtime.FaultOnDownLinkError):
// `ip link set` on its container interface would change nothing the
// switch forwards. With all, the other links go down and that one is
// left as the config keeps it.
func TestLiveRefusesFaultOnAdminDownLink(t *testing.T) {
	l := testLab(t)
	lk, _, err := l.Graph.LinkByName("leaf1-spine1")
	if err != nil {
		t.Fatal(err)
	}
	path := setPortField(t, l, "leaf1", lk.A.Port, "admin_status", "down")
	v := runtime.VariantSpec{Name: "v", DurationUs: 1000, Faults: []runtime.FaultSpec{{Kind: runtime.FaultLinkDown, Link: "leaf1:" + lk.A.Port, AtUs: 100}}}
	_, err = liveFaults(l, v)
	if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), `administratively down in the lab's configs (leaf1: PORT|`+lk.A.Port+` admin_status "down", in `+path+`)`) ||
		!strings.HasPrefix(err.Error(), "variant v faults[0]: link ") {
		t.Fatalf("error %v (exit %d), want exit 2 naming the port's admin_status", err, exitcode.Code(err))
	}
	v.Faults[0].Link, v.Faults[0].All = "leaf1-spine1", true
	acts, err := liveFaults(l, v)
	if err != nil {
		t.Fatal(err)
	}
	n := len(l.Graph.LinksBetween("leaf1", "spine1"))
	if len(acts) != n-1 {
		t.Errorf("%d actions, want %d: every link between leaf1 and spine1 but the one kept down", len(acts), n-1)
	}
	for _, a := range acts {
		if strings.Contains(a.where, ":"+lk.B.Port+" ") || strings.Contains(a.where, ":"+lk.A.Port+" ") {
			t.Errorf("action on the link kept down: %+v", a)
		}
	}
}

// A link whose ends' configs set different FEC modes is down only in the
// simulator (runtime.LinkDown.FEC): a live lab's link follows its veth
// pair, so a fault on it runs there.
func TestLiveFaultsALinkDownForItsFEC(t *testing.T) {
	l := testLab(t)
	lk, _, err := l.Graph.LinkByName("leaf1-spine1")
	if err != nil {
		t.Fatal(err)
	}
	setPortField(t, l, lk.A.Node, lk.A.Port, "fec", "none")
	setPortField(t, l, lk.B.Node, lk.B.Port, "fec", "rs")
	v := runtime.VariantSpec{Name: "v", DurationUs: 1000, Faults: []runtime.FaultSpec{{Kind: runtime.FaultLinkDown, Link: "leaf1:" + lk.A.Port, AtUs: 100}}}
	acts, err := liveFaults(l, v)
	if err != nil {
		t.Fatalf("a fault on a link down for its FEC modes refused on a live lab: %v", err)
	}
	if len(acts) == 0 {
		t.Error("no link action for the fault")
	}
}

// setPortField gives port of switch node's SONiC config a PORT table of
// that one entry, field set to value, and returns the config's path.
func setPortField(t *testing.T, l *runtime.Lab, node, port, field, value string) string {
	t.Helper()
	path := filepath.Join(l.ConfigsDir(), node+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["PORT"] = map[string]any{port: map[string]string{field: value}}
	out, _ := json.Marshal(doc)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
