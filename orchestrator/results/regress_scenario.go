package results

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// ScenarioChange is one value of the scenario that differs between a
// baseline and a run: its path as the scenario writes it (warmup,
// traffic[0].senders, assertions[2].expr) and its value on each side, nil
// where that side does not set it.
type ScenarioChange struct {
	Path     string  `json:"path"`
	Baseline *string `json:"baseline"`
	Run      *string `json:"run"`
}

func (c ScenarioChange) String() string {
	side := func(v *string) string {
		if v == nil {
			return "(not set)"
		}
		return *v
	}
	return fmt.Sprintf("%s: %s -> %s", c.Path, side(c.Baseline), side(c.Run))
}

// maxScenarioChanges bounds the scenario changes listed in the text report.
const maxScenarioChanges = 20

// scenarioChanges compares the scenarios the two records ran, value by
// value (comments and layout do not count): changed says the texts differ,
// changes lists the values that do. Neither is set when a record kept no
// scenario (made before records kept it, or not by labctl run).
func scenarioChanges(run, baseline *Run) (changed bool, changes []ScenarioChange) {
	if run.ScenarioYAML == "" || baseline.ScenarioYAML == "" || run.ScenarioYAML == baseline.ScenarioYAML {
		return false, nil
	}
	cur, errC := flattenYAML(run.ScenarioYAML)
	base, errB := flattenYAML(baseline.ScenarioYAML)
	if errC != nil || errB != nil {
		return true, nil // the texts differ; what in them is not known
	}
	changes = []ScenarioChange{}
	for _, path := range slices.SortedFunc(maps.Keys(union(cur, base)), comparePaths) {
		c, inC := cur[path]
		b, inB := base[path]
		if inC && inB && c == b {
			continue
		}
		ch := ScenarioChange{Path: path}
		if inB {
			ch.Baseline = &b
		}
		if inC {
			ch.Run = &c
		}
		changes = append(changes, ch)
	}
	return true, changes
}

// comparePaths orders paths as a person reads them: list indices by
// number (assertions[2] before assertions[10]), the rest by text.
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		da, db := leadingDigits(a), leadingDigits(b)
		if da > 0 && db > 0 {
			na, _ := strconv.Atoi(a[:da])
			nb, _ := strconv.Atoi(b[:db])
			if na != nb {
				return cmp.Compare(na, nb)
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func union(a, b map[string]string) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// flattenYAML is a YAML document's scalar values by path: keys joined with
// dots, list items as [i].
func flattenYAML(text string) (map[string]string, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(joinPath(path, k), e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case nil:
			out[path] = "null"
		default:
			out[path] = fmt.Sprint(x)
		}
	}
	walk("", doc)
	return out, nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// writeScenarioChanges says whether the scenario changed and which of its
// values, ahead of the config changes: a figure that moved because the
// scenario did is not the configs' doing.
func (r Report) writeScenarioChanges(b *strings.Builder) {
	switch {
	case !r.ScenarioChanged:
		return
	case r.ScenarioChanges == nil:
		b.WriteString("the scenario changed between the baseline and this run: figures may have moved because of it\n")
		return
	case len(r.ScenarioChanges) == 0:
		b.WriteString("the scenario's text changed between the baseline and this run, but none of its values (comments or layout only)\n")
		return
	}
	fmt.Fprintf(b, "the scenario changed between the baseline and this run (baseline -> run); figures may have moved because of it, not the configs:\n")
	writeCapped(b, r.ScenarioChanges, maxScenarioChanges)
}
