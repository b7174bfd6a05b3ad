package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime"
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
			spec, err := lab.Resolve("16gpu")
			if err != nil {
				t.Fatal(err)
			}
			l, err := runtime.NewLab(spec, t.TempDir(), nos)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := runtime.RenderLab(l); err != nil {
				t.Fatal(err)
			}
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
			rec, err := labQoSRecord(l, in)
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
