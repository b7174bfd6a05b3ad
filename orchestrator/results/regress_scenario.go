package results

import (
	"fmt"
	"maps"
	"slices"
	"sort"
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
// value (comments, layout and the number of repetitions do not count):
// changed says the texts differ, changes lists the values that do. Neither is set when a record kept no
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
	// Every path of either side, list indices in numeric order
	// (assertions[2] before assertions[10]).
	paths := slices.Collect(maps.Keys(cur))
	for p := range base {
		if _, ok := cur[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Slice(paths, func(i, j int) bool { return naturalLess(paths[i], paths[j]) })
	changes = []ScenarioChange{}
	for _, path := range paths {
		c, inC := cur[path]
		b, inB := base[path]
		if inC && inB && c == b || path == "repetitions" || strings.HasPrefix(path, "regress.") {
			// How many repetitions ran changes no simulation (repetition
			// r runs at seed + r on either side); the comparison's basis
			// counts each side's. The regress section is how the two are
			// compared, said in the report's tolerances line.
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
		b.WriteString("the scenario's text changed between the baseline and this run, but none of the values it runs with (comments, layout, the number of repetitions or its regress tolerances only)\n")
		return
	}
	fmt.Fprintf(b, "the scenario changed between the baseline and this run (baseline -> run); figures may have moved because of it, not the configs:\n")
	writeCapped(b, r.ScenarioChanges, maxScenarioChanges, nil)
}

// ScenarioTolerances are the tolerances the scenario a run recorded gives
// in its regress section (regress: {tolerances: {metric: value}}), each
// parsed as --tolerance parses one (ParseToleranceOf), From FromScenario;
// none when the record kept no scenario. labctl run refused a scenario
// whose tolerances do not parse, so an error here means a record made
// otherwise or by another version.
func ScenarioTolerances(r *Run) (Tolerances, error) {
	out := Tolerances{}
	if r.ScenarioYAML == "" {
		return out, nil
	}
	var doc struct {
		Regress struct {
			Tolerances yaml.MapSlice `yaml:"tolerances"`
		} `yaml:"regress"`
	}
	if err := yaml.Unmarshal([]byte(r.ScenarioYAML), &doc); err != nil {
		return nil, fmt.Errorf("run %s: its scenario's regress section: %w", r.RunID, err)
	}
	for _, kv := range doc.Regress.Tolerances {
		name, t, err := ParseToleranceOf(fmt.Sprint(kv.Key), fmt.Sprint(kv.Value))
		if err != nil {
			return nil, fmt.Errorf("run %s: its scenario's regress.tolerances: %w", r.RunID, err)
		}
		t.From = FromScenario
		out[name] = t
	}
	return out, nil
}
