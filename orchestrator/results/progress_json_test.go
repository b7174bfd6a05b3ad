package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestProgressJSONIsMarshal: what a save in progress writes is
// json.Marshal of the run, byte for byte, through what the runner does
// between saves: variants inserted in matrix order (not only appended),
// an earlier variant's assertions evaluated again, two variants of one
// name told apart by repetition, a second run saved by the same store,
// and a top-level field whose nested value holds a "variants" key.
func TestProgressJSONIsMarshal(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	full := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	if len(full.Variants) < 4 {
		t.Fatalf("the fixture has %d variants, the test needs 4", len(full.Variants))
	}
	full.Variants[3].Name = full.Variants[2].Name
	full.Variants[3].Repetition = 1
	run := *full
	run.Status, run.Finished, run.Variants = StatusRunning, nil, nil
	run.Extra = map[string]any{"nested": map[string]any{"variants": nil, "x": `"variants":null`}}
	check := func(step string) {
		t.Helper()
		if err := s.SaveRun(&run); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(s.RunDir(run.RunID), RunFile))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(&run)
		if !bytes.Equal(got, append(want, '\n')) {
			t.Fatalf("%s: the record in progress is not json.Marshal of the run (%d bytes against %d)", step, len(got), len(want)+1)
		}
	}
	check("no variant yet")
	run.Variants = append(run.Variants, full.Variants[1])
	check("one variant")
	run.Variants = append([]Variant{full.Variants[0]}, run.Variants...)
	check("a variant inserted before it")
	run.Variants = append(run.Variants, full.Variants[2], full.Variants[3])
	check("two variants of one name, repetitions 0 and 1")
	run.Variants[0].Assertions = append([]Assertion(nil), run.Variants[0].Assertions...)
	run.Variants[0].Assertions[0].Passed = !run.Variants[0].Assertions[0].Passed
	run.Variants[0].Assertions[0].Detail = "evaluated again"
	check("an earlier variant's assertion evaluated again")
	other := *full
	other.RunID = "20261129T120100Z-ecn-pfc-64gpu"
	other.Status, other.Finished = StatusRunning, nil
	other.Variants = []Variant{full.Variants[1]}
	other.Variants[0].Summary.Drops = 12345 // the name and assertions of one of the first run's, other content
	if err := s.SaveRun(&other); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(s.RunDir(other.RunID), RunFile))
	if want, _ := json.Marshal(&other); !bytes.Equal(b, append(want, '\n')) {
		t.Fatal("another run saved by the same store took the first run's variant JSON")
	}
}

// TestTopLevel: a member is found only among the object's own members.
func TestTopLevel(t *testing.T) {
	for _, c := range []struct {
		js   string
		want int
	}{
		{`{"variants":null}`, 1},
		{`{"a":1,"variants":null}`, 7},
		{`{"a":{"variants":null},"variants":null}`, 23},
		{`{"a":"\"variants\":null","variants":null}`, 25},
		{`{"a":["variants",{"variants":null}]}`, -1},
		{`{"a":"x\\","variants":null}`, 11},
		{`{}`, -1},
	} {
		if got := topLevel([]byte(c.js), variantsNull); got != c.want {
			t.Errorf("topLevel(%s) = %d, want %d", c.js, got, c.want)
		}
	}
}
