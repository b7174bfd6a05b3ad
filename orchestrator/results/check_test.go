package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// A record regress would compare wrongly (a variant twice, a negative
// figure) is refused naming the file, the variant and the figure; a
// whole-port counter row (priority -1) and a record without latencies are
// fine.
func TestCheckComparable(t *testing.T) {
	good := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0)
	good.Variants[0].Counters = append(good.Variants[0].Counters, Counter{Node: "leaf1", Port: "Ethernet0", Priority: -1, TxBytes: 1})
	good.Variants[1].Flows[0].LatencyUs, good.Variants[1].Flows[0].FCTUs = nil, nil
	if err := CheckComparable("b.json", good); err != nil {
		t.Fatalf("a good record: %v", err)
	}
	neg := int64(-4096)
	for _, tc := range []struct {
		name string
		edit func(r *Run)
		want string
	}{
		{"variant twice", func(r *Run) { r.Variants = append(r.Variants, r.Variants[1]) },
			"b.json: variant ecn=on,pfc=off is in the record twice (variants[1] and variants[4])"},
		{"repetition twice", func(r *Run) {
			r.Variants[2].Name, r.Variants[2].Repetition = r.Variants[1].Name, 1
			r.Variants[3].Name, r.Variants[3].Repetition = r.Variants[1].Name, 1
		}, "b.json: variant ecn=on,pfc=off #2 is in the record twice (variants[2] and variants[3])"},
		{"no name", func(r *Run) { r.Variants[3].Name = "" }, "b.json: variants[3] has no name"},
		{"simulator revision", func(r *Run) { r.SimRevision = -1 }, "b.json: sim_revision is -1; labctl writes the simulator's revision, 1 or more, or leaves it out"},
		{"summary", func(r *Run) { r.Variants[2].Summary.Drops = -5 }, "b.json: variant ecn=off,pfc=on: summary.drops is -5"},
		{"summary float", func(r *Run) { r.Variants[0].Summary.ThroughputGbpsTotal = -0.5 }, "summary.throughput_gbps_total is -0.5"},
		{"flow", func(r *Run) { r.Variants[0].Flows[2].LatencyUs.P99 = -1.5 }, "variant ecn=on,pfc=on: flows[2] (h3:0->h9:0).latency_us.p99 is -1.5"},
		{"flow fct", func(r *Run) { f := -1.0; r.Variants[0].Flows[1].FCTUs = &f }, "flows[1] (h2:0->h9:0).fct_us is -1"},
		{"counter", func(r *Run) { r.Variants[3].Counters[1].PFCRx = -1 }, "variant ecn=off,pfc=off: counters[1] (spine1 Ethernet4 priority 3).pfc_rx is -1"},
		{"queue depth", func(r *Run) { r.Variants[0].Counters[0].QueueP99Bytes = &neg }, "counters[0] (leaf2 Ethernet0 priority 3).queue_p99_bytes is -4096"},
		{"simulated part", func(r *Run) {
			r.Variants[0].Simulated = &SimulatedPart{Summary: Summary{CNP: -2}}
		}, "variant ecn=on,pfc=on: simulated.summary.cnp is -2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cloneRun(t, good)
			tc.edit(r)
			err := CheckComparable("b.json", r)
			if exitcode.Code(err) != exitcode.BadInput || err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "(fix: ") {
				t.Errorf("err = %v (exit %d), want exit 2 with %q and a fix", err, exitcode.Code(err), tc.want)
			}
		})
	}
}

// LoadBaseline checks every kind of baseline (a file, a saved name, a run)
// and SaveBaseline refuses to save a damaged run.
func TestLoadBaselineRefusesDamagedRecords(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	bad := syntheticRun("20261129T100000Z-ecn-pfc-64gpu", t0)
	bad.Variants[1].Summary.ECNMarked = -3
	saveRuns(t, s, bad)
	data, err := json.Marshal(bad)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "b.json")
	if err := os.MkdirAll(s.BaselinesDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(s.BaselinesDir(), "nightly.json")
	for _, p := range []string{file, named} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for ref, where := range map[string]string{file: file, "nightly": named, bad.RunID: s.RunFile(bad.RunID)} {
		_, err := LoadBaseline(s, ref)
		if exitcode.Code(err) != exitcode.BadInput || err == nil || !strings.Contains(err.Error(), where+": variant ecn=on,pfc=off: summary.ecn_marked is -3") {
			t.Errorf("LoadBaseline(%q) = %v (exit %d)", ref, err, exitcode.Code(err))
		}
	}
	if _, err := SaveBaselineFiltered(s, bad.RunID, "again", Filter{}, true); exitcode.Code(err) != exitcode.BadInput || err == nil || !strings.Contains(err.Error(), "summary.ecn_marked is -3") {
		t.Errorf("SaveBaseline of a damaged run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.BaselinesDir(), "again.json")); err == nil {
		t.Error("a damaged run was saved as a baseline")
	}
}
