package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/runtimetest"
)

// TestLabQoSRecordLeavesConfigs: labQoSRecord reads the configs
// LoadConfigs keeps for the run's variants (runtime.LoadConfigsToRead),
// not a copy, so its summaries, class tables and lint must change nothing
// in them: the configs a variant loads after it are the ones loaded
// before it. On SONiC and EOS, with a leaf edited so that lint has drift
// and sibling findings to build.
func TestLabQoSRecordLeavesConfigs(t *testing.T) {
	for _, nos := range []string{"sonic", "eos"} {
		t.Run(nos, func(t *testing.T) {
			l := runtimetest.RenderedLab(t, "16gpu", nos)
			codec, err := runtime.Codec(nos)
			if err != nil {
				t.Fatal(err)
			}
			editLeaf(t, l.ConfigPath(codec, "leaf1"))
			in, err := l.Intent()
			if err != nil {
				t.Fatal(err)
			}
			before, err := runtime.LoadConfigs(l) // a copy
			if err != nil {
				t.Fatal(err)
			}
			rec, err := labQoSRecord(l, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rec.lint == nil || len(rec.settings) != len(before) {
				t.Fatalf("labQoSRecord read %d configs, lint %v; want %d and a lint", len(rec.settings), rec.lint, len(before))
			}
			if rec.lint.Warnings+rec.lint.Errors == 0 {
				t.Fatalf("lint found nothing in the edited leaf: %+v", rec.lint)
			}
			after, err := runtime.LoadConfigs(l) // a copy of what is kept now
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(before, after) {
				t.Error("the configs LoadConfigs keeps changed while labQoSRecord read them")
			}
		})
	}
}

// editLeaf lowers the RoCE queue's ECN Kmin in a rendered leaf config
// (either NOS's spelling), so that lint finds drift from the intent.
func editLeaf(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	switch filepath.Ext(path) {
	case ".json":
		s = strings.Replace(string(b), `"green_min_threshold": "`, `"green_min_threshold": "1`, 1)
	default:
		s = strings.Replace(string(b), "minimum-threshold ", "minimum-threshold 1", 1)
	}
	if s == string(b) {
		t.Fatalf("%s: no ECN threshold to edit", path)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLabQoSRecordShowsTrafficClasses: a run's class table holds the
// classes of the DSCPs the scenario's traffic is sent with beside RoCE's,
// so that mixed-classes' best effort (DSCP 0, TC 0) has its row: its
// ingress admission is what differs between SONiC's config (alpha 8) and
// the platform labctl assumes for EOS (not limited), and moved its
// throughput from 34.3 to 67.3 Gb/s on 64gpu.
func TestLabQoSRecordShowsTrafficClasses(t *testing.T) {
	want := map[string]string{"sonic": "alpha 8", "eos": "static 32712448 B"}
	for _, nos := range []string{"sonic", "eos"} {
		t.Run(nos, func(t *testing.T) {
			l := runtimetest.RenderedLab(t, "16gpu", nos)
			in, err := l.Intent()
			if err != nil {
				t.Fatal(err)
			}
			tcs := func(dscps []int) map[int]string {
				rec, err := labQoSRecord(l, in, dscps)
				if err != nil {
					t.Fatal(err)
				}
				out := map[int]string{}
				for _, r := range rec.classes {
					out[r.TC] = r.XOFF
				}
				return out
			}
			if got := tcs(nil); len(got) != 2 || got[0] != "" {
				t.Errorf("RoCE's classes alone: %v, want TC 3 and 6", got)
			}
			got := tcs([]int{0, 26})
			if xoff, ok := got[0]; !ok || xoff != want[nos] {
				t.Errorf("with best effort's DSCP 0: %v, want TC 0 with XOFF at %q", got, want[nos])
			}
		})
	}
}
