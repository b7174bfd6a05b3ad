package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/qos"
)

// Direction says which way a metric gets worse.
type Direction string

const (
	LowerIsWorse  Direction = "lower-is-worse"
	HigherIsWorse Direction = "higher-is-worse"
	// EitherWay flags a change beyond tolerance in both directions: ECN
	// marks and CNPs falling to zero mean marking stopped, rising sharply
	// means a threshold moved; both are config changes worth a look.
	EitherWay Direction = "either-way"
)

// Tolerance is how much a metric may move in its worse direction before
// it is a regression: the larger of Rel times the baseline value and Abs.
// An Abs of 0 makes any increase from a zero baseline a regression.
type Tolerance struct {
	Rel      float64 `json:"rel"` // fraction: 0.05 is 5%
	Abs      float64 `json:"abs"`
	Disabled bool    `json:"disabled,omitempty"`
}

func (t Tolerance) String() string {
	if t.Disabled {
		return "off"
	}
	var parts []string
	if t.Rel != 0 {
		parts = append(parts, strconv.FormatFloat(t.Rel*100, 'f', -1, 64)+"%")
	}
	if t.Abs != 0 || len(parts) == 0 {
		parts = append(parts, strconv.FormatFloat(t.Abs, 'f', -1, 64))
	}
	return strings.Join(parts, "+")
}

// Metric is one compared summary metric.
type Metric struct {
	Name      string
	Direction Direction
	Default   Tolerance
	get       func(Summary) float64
}

// Metrics are the compared metrics with their default tolerances. The
// defaults are chosen for the simulator, which is deterministic for a seed
// (so any change comes from configs or code), with room for the noise of
// measured runs:
//   - throughput total 5% lower; the weakest flow 10% lower (it is noisier);
//   - Jain fairness 0.02 lower;
//   - drops and retransmits: any increase from 0, else 20% higher, since a
//     lossless class must stay lossless;
//   - PFC pause frames 20% higher with a floor of 50 frames, pause time 20%
//     with a floor of 10 µs, so 0 -> 3 pauses is not reported as noise;
//   - ECN marks and CNPs 50% either way, floors 100 marks and 20 CNPs;
//   - p99 latency 10% higher with a floor of 1 µs.
var Metrics = []Metric{
	{"throughput_gbps_total", LowerIsWorse, Tolerance{Rel: 0.05}, func(s Summary) float64 { return s.ThroughputGbpsTotal }},
	{"throughput_gbps_min_flow", LowerIsWorse, Tolerance{Rel: 0.10}, func(s Summary) float64 { return s.ThroughputGbpsMinFlow }},
	{"jain_fairness", LowerIsWorse, Tolerance{Abs: 0.02}, func(s Summary) float64 { return s.JainFairness }},
	{"drops", HigherIsWorse, Tolerance{Rel: 0.20}, func(s Summary) float64 { return float64(s.Drops) }},
	{"pfc_pause_frames", HigherIsWorse, Tolerance{Rel: 0.20, Abs: 50}, func(s Summary) float64 { return float64(s.PFCPauseFrames) }},
	{"pfc_pause_us", HigherIsWorse, Tolerance{Rel: 0.20, Abs: 10}, func(s Summary) float64 { return s.PFCPauseUs }},
	{"ecn_marked", EitherWay, Tolerance{Rel: 0.50, Abs: 100}, func(s Summary) float64 { return float64(s.ECNMarked) }},
	{"cnp", EitherWay, Tolerance{Rel: 0.50, Abs: 20}, func(s Summary) float64 { return float64(s.CNP) }},
	{"retransmits", HigherIsWorse, Tolerance{Rel: 0.20}, func(s Summary) float64 { return float64(s.Retransmits) }},
	{"latency_us_p99", HigherIsWorse, Tolerance{Rel: 0.10, Abs: 1}, func(s Summary) float64 { return s.LatencyUsP99 }},
}

// Tolerances overrides default tolerances by metric name.
type Tolerances map[string]Tolerance

func metricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

func metricNames() string {
	var n []string
	for _, m := range Metrics {
		n = append(n, m.Name)
	}
	return strings.Join(n, ", ")
}

// ParseTolerance parses one "metric=value" override. value is a relative
// tolerance ("3%"), an absolute one ("5"), both ("10%+2"), or "off".
func ParseTolerance(s string) (string, Tolerance, error) {
	name, val, ok := strings.Cut(s, "=")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !ok || name == "" || val == "" {
		return "", Tolerance{}, fmt.Errorf("tolerance %q: want metric=value, for example throughput_gbps_total=3%% or drops=10", s)
	}
	if _, ok := metricByName(name); !ok {
		return "", Tolerance{}, fmt.Errorf("tolerance %q: unknown metric %q; metrics are %s", s, name, metricNames())
	}
	if val == "off" {
		return name, Tolerance{Disabled: true}, nil
	}
	var t Tolerance
	for _, part := range strings.Split(val, "+") {
		part = strings.TrimSpace(part)
		pct := strings.HasSuffix(part, "%")
		num, err := strconv.ParseFloat(strings.TrimSuffix(part, "%"), 64)
		if err != nil || math.IsNaN(num) || math.IsInf(num, 0) || num < 0 {
			return "", Tolerance{}, fmt.Errorf("tolerance %q: %q is not a non-negative number or percentage; write 3%%, 5, 10%%+2 or off", s, part)
		}
		if pct {
			t.Rel = num / 100
		} else {
			t.Abs = num
		}
	}
	return name, t, nil
}

// ParseTolerances parses repeated --tolerance values.
func ParseTolerances(specs []string) (Tolerances, error) {
	out := Tolerances{}
	for _, s := range specs {
		name, t, err := ParseTolerance(s)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// Finding kinds.
const (
	FindingMetric         = "metric"
	FindingMissingVariant = "missing_variant"
	// FindingNotInBaseline is a variant of the run the baseline lacks, so
	// nothing checked it (an interrupted baseline, or a new variant).
	FindingNotInBaseline = "not_in_baseline"
	// FindingNoVariants is a run with no finished variant at all.
	FindingNoVariants = "no_variants"
	// FindingUnfinished is a run that did not finish (interrupted, or
	// abandoned by a process that died): even with every variant there,
	// its last save, and so its final assertions, may be missing.
	FindingUnfinished   = "unfinished"
	FindingAssertion    = "assertion"
	FindingVariantError = "variant_error"
)

// Finding is one comparison: a metric of a variant, a variant missing from
// the run, or an assertion that passed in the baseline.
type Finding struct {
	Kind       string    `json:"kind"`
	Variant    string    `json:"variant"`
	Metric     string    `json:"metric,omitempty"`
	Baseline   float64   `json:"baseline"`
	Current    float64   `json:"current"`
	Delta      float64   `json:"delta"`
	DeltaPct   *float64  `json:"delta_pct"` // nil when the baseline is 0
	Allowed    float64   `json:"allowed"`
	Direction  Direction `json:"direction,omitempty"`
	Tolerance  string    `json:"tolerance,omitempty"`
	Regression bool      `json:"regression"`
	Detail     string    `json:"detail,omitempty"`
}

// Report is the outcome of comparing a run with a baseline.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	RunID         string    `json:"run_id"`
	BaselineRunID string    `json:"baseline_run_id"`
	Scenario      string    `json:"scenario"`
	Lab           string    `json:"lab"`
	ConfigChanged bool      `json:"config_changed"`
	Regressed     bool      `json:"regressed"`
	Regressions   int       `json:"regressions"`
	Findings      []Finding `json:"findings"`
	Warnings      []string  `json:"warnings"`
	VariantsAdded []string  `json:"variants_added"`
	// ConfigChanges are the switch QoS fields that differ between the
	// baseline and the run (absent when a record kept no QoS).
	ConfigChanges []qos.Difference `json:"config_changes,omitempty"`
	// LintErrors and BaselineLintErrors are the lint errors of the two
	// records' configs.
	LintErrors         *int `json:"lint_errors,omitempty"`
	BaselineLintErrors *int `json:"baseline_lint_errors,omitempty"`
}

// Compare checks run against baseline metric by metric for every baseline
// variant (matched by name). A variant missing from run, a variant of run
// the baseline lacks (it would go unchecked), a run without variants, a
// variant that failed to complete, and an assertion that passed in the
// baseline and fails now are regressions too.
func Compare(run, baseline *Run, tol Tolerances) Report {
	r := Report{SchemaVersion: SchemaVersion, RunID: run.RunID, BaselineRunID: baseline.RunID, Scenario: run.Scenario, Lab: run.Lab,
		Findings: []Finding{}, Warnings: []string{}, VariantsAdded: []string{}}
	if run.Scenario != baseline.Scenario {
		r.Warnings = append(r.Warnings, fmt.Sprintf("scenario differs: run %q, baseline %q", run.Scenario, baseline.Scenario))
	}
	if run.Lab != baseline.Lab {
		r.Warnings = append(r.Warnings, fmt.Sprintf("lab differs: run %q, baseline %q", run.Lab, baseline.Lab))
	}
	if run.Seed != baseline.Seed {
		r.Warnings = append(r.Warnings, fmt.Sprintf("seed differs: run %d, baseline %d; simulated numbers are not directly comparable", run.Seed, baseline.Seed))
	}
	if run.ConfigDigest != "" && baseline.ConfigDigest != "" && run.ConfigDigest != baseline.ConfigDigest {
		r.ConfigChanged = true
	}
	r.ConfigChanges = configChanges(run, baseline)
	r.LintErrors, r.BaselineLintErrors = lintErrors(run), lintErrors(baseline)
	// Variants are matched point by point: by full name, which holds every
	// swept value, and repetition.
	r.Warnings = append(r.Warnings, sweepWarnings(run, baseline)...)
	cur := map[string]*Variant{}
	for i := range run.Variants {
		cur[pointKey(&run.Variants[i])] = &run.Variants[i]
	}
	inBase := map[string]bool{}
	for i := range baseline.Variants {
		bv := &baseline.Variants[i]
		inBase[pointKey(bv)] = true
		v, ok := cur[pointKey(bv)]
		if !ok {
			detail := "variant is in the baseline but not in the run (run " + run.Status + ")"
			if why := pointNotIn(bv, baseline, run, "the run"); why != "" {
				detail = "point is in the baseline but not in the run: " + why
			}
			r.Findings = append(r.Findings, Finding{Kind: FindingMissingVariant, Variant: pointLabel(bv), Regression: true, Detail: detail})
			continue
		}
		if v.Error != "" && bv.Error == "" {
			r.Findings = append(r.Findings, Finding{Kind: FindingVariantError, Variant: pointLabel(bv), Regression: true, Detail: v.Error})
		}
		if v.Summary.Source != bv.Summary.Source && v.Summary.Source != "" && bv.Summary.Source != "" {
			r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s: run is %s, baseline is %s", pointLabel(bv), v.Summary.Source, bv.Summary.Source))
		}
		for _, m := range Metrics {
			t := m.Default
			if o, ok := tol[m.Name]; ok {
				t = o
			}
			if t.Disabled {
				continue
			}
			r.Findings = append(r.Findings, compareMetric(pointLabel(bv), m, t, m.get(bv.Summary), m.get(v.Summary)))
		}
		now := map[string]Assertion{}
		for _, a := range v.Assertions {
			now[a.Name] = a
		}
		for _, ba := range bv.Assertions {
			a, ok := now[ba.Name]
			if ba.Passed && ok && !a.Passed {
				r.Findings = append(r.Findings, Finding{Kind: FindingAssertion, Variant: pointLabel(bv), Metric: ba.Name, Regression: true,
					Detail: fmt.Sprintf("passed in baseline (%s), fails now (%s)", ba.Detail, a.Detail)})
			}
		}
	}
	for i := range run.Variants {
		v := &run.Variants[i]
		if !inBase[pointKey(v)] {
			r.VariantsAdded = append(r.VariantsAdded, pointLabel(v))
			detail := fmt.Sprintf("variant is in the run but not in the baseline (baseline %s, %d variants), so nothing checked it: save a baseline that has every variant", baseline.Status, len(baseline.Variants))
			if why := pointNotIn(v, run, baseline, "the baseline"); why != "" {
				detail = "point is in the run but not in the baseline, so nothing checked it: " + why + "; save a baseline of the same sweep"
			}
			r.Findings = append(r.Findings, Finding{Kind: FindingNotInBaseline, Variant: pointLabel(v), Regression: true, Detail: detail})
		}
	}
	if run.Status == StatusAbandoned || run.Status == StatusInterrupted {
		r.Findings = append(r.Findings, Finding{Kind: FindingUnfinished, Variant: "-", Regression: true,
			Detail: fmt.Sprintf("run %s was %s before it finished, so it is not a complete result: run the scenario again", run.RunID, run.Status)})
	}
	if len(run.Variants) == 0 {
		r.Findings = append(r.Findings, Finding{Kind: FindingNoVariants, Variant: "-", Regression: true,
			Detail: fmt.Sprintf("run %s (%s) has no finished variant to compare", run.RunID, run.Status)})
	}
	for _, f := range r.Findings {
		if f.Regression {
			r.Regressions++
		}
	}
	r.Regressed = r.Regressions > 0
	return r
}

// pointKey identifies a variant for matching: its full name (ECN, PFC and
// every swept value) and repetition.
func pointKey(v *Variant) string { return fmt.Sprintf("%s\x00%d", v.Name, v.Repetition) }

// pointLabel names a variant in findings: its name, and the repetition
// after the first.
func pointLabel(v *Variant) string {
	if v.Repetition > 0 {
		return fmt.Sprintf("%s #%d", v.Name, v.Repetition+1)
	}
	return v.Name
}

// pointNotIn says why a swept point v of record own has no match in
// other ("the run" or "the baseline"): a swept value other does not sweep,
// or a path it does not sweep at all. "" when the sweeps do not explain it.
func pointNotIn(v *Variant, own, other *Run, what string) string {
	var why []string
	for _, d := range own.Sweep {
		val := v.Params[d.Path]
		i := slices.IndexFunc(other.Sweep, func(o SweepDim) bool { return o.Path == d.Path })
		switch {
		case i < 0 && len(other.Sweep) == 0:
			why = append(why, fmt.Sprintf("%s sweeps no parameter, this point has %s=%s", what, d.Path, val))
		case i < 0:
			why = append(why, fmt.Sprintf("%s does not sweep %s (it sweeps %s)", what, d.Path, sweepPaths(other)))
		case !slices.Contains(other.Sweep[i].Values, val):
			why = append(why, fmt.Sprintf("%s sweeps %s over %s, not %s", what, d.Path, strings.Join(other.Sweep[i].Values, ", "), val))
		}
	}
	for _, d := range other.Sweep {
		if !slices.ContainsFunc(own.Sweep, func(o SweepDim) bool { return o.Path == d.Path }) {
			why = append(why, fmt.Sprintf("%s also sweeps %s", what, d.Path))
		}
	}
	return strings.Join(why, "; ")
}

func sweepPaths(run *Run) string {
	var out []string
	for _, d := range run.Sweep {
		out = append(out, d.Path)
	}
	return strings.Join(out, ", ")
}

// sweepWarnings says how the run's sweep differs from the baseline's, so
// that points missing on either side read as a changed matrix.
func sweepWarnings(run, baseline *Run) []string {
	var out []string
	label := func(r *Run) string {
		if len(r.Sweep) == 0 {
			return "no sweep"
		}
		return sweepLabel(r)
	}
	if a, b := label(run), label(baseline); a != b {
		out = append(out, fmt.Sprintf("the sweep differs: run %s; baseline %s (points are compared by name, so each side's extra points are listed below)", a, b))
	}
	return out
}

func compareMetric(variant string, m Metric, t Tolerance, base, cur float64) Finding {
	f := Finding{Kind: FindingMetric, Variant: variant, Metric: m.Name, Baseline: base, Current: cur, Delta: cur - base,
		Direction: m.Direction, Tolerance: t.String()}
	if base != 0 {
		p := (cur - base) / math.Abs(base) * 100
		f.DeltaPct = &p
	}
	f.Allowed = math.Max(t.Rel*math.Abs(base), t.Abs)
	// A small epsilon keeps float noise (193.20000001) from tripping a
	// zero tolerance.
	eps := 1e-9 * math.Max(1, math.Abs(base))
	switch m.Direction {
	case LowerIsWorse:
		f.Regression = base-cur > f.Allowed+eps
	case HigherIsWorse:
		f.Regression = cur-base > f.Allowed+eps
	case EitherWay:
		f.Regression = math.Abs(cur-base) > f.Allowed+eps
	}
	return f
}

func fmtDelta(f Finding) string {
	s := fmtFloat(f.Baseline) + " -> " + fmtFloat(f.Current)
	if f.DeltaPct != nil {
		s += fmt.Sprintf(" (%+.1f%%)", *f.DeltaPct)
	} else {
		s += " (" + signed(f.Delta) + ")"
	}
	return s
}

func signed(v float64) string {
	if v > 0 {
		return "+" + fmtFloat(v)
	}
	return fmtFloat(v)
}

func (f Finding) describe() string {
	switch f.Kind {
	case FindingMetric:
		return fmt.Sprintf("%s %s: %s, allowed %s (%s, %s)", f.Variant, f.Metric, fmtDelta(f), fmtFloat(f.Allowed), f.Tolerance, f.Direction)
	case FindingAssertion:
		return fmt.Sprintf("%s assertion %q: %s", f.Variant, f.Metric, f.Detail)
	default:
		return fmt.Sprintf("%s: %s", f.Variant, f.Detail)
	}
}

// WriteText writes the report for a terminal: the regressions with how
// much each moved, then a one-line verdict.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "regress %s against baseline %s\n", r.RunID, r.BaselineRunID)
	if r.ConfigChanged {
		b.WriteString("vendor configs changed between the baseline and this run\n")
	}
	writeConfigChanges(&b, r)
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	compared := 0
	for _, f := range r.Findings {
		if f.Kind == FindingMetric {
			compared++
		}
	}
	if r.Regressed {
		fmt.Fprintf(&b, "\nREGRESSED: %d regression(s)\n", r.Regressions)
		for _, f := range r.Findings {
			if f.Regression {
				fmt.Fprintf(&b, "  %s\n", f.describe())
			}
		}
	}
	var better []string
	for _, f := range r.Findings {
		if f.Kind == FindingMetric && !f.Regression && improved(f) {
			better = append(better, f.describe())
		}
	}
	if len(better) > 0 {
		b.WriteString("\nchanged in the better direction beyond tolerance (check it is intended):\n")
		for _, s := range better {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	if !r.Regressed {
		fmt.Fprintf(&b, "\nOK: no regression (%d metric comparisons within tolerance)\n", compared)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func improved(f Finding) bool {
	switch f.Direction {
	case LowerIsWorse:
		return f.Current-f.Baseline > f.Allowed && f.Allowed > 0
	case HigherIsWorse:
		return f.Baseline-f.Current > f.Allowed && f.Allowed > 0
	}
	return false
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteJUnit writes one testcase per variant and metric (classname
// <scenario>.<variant>, name regress:<metric>), plus cases for missing
// variants, variant errors and assertions that regressed.
func (r Report) WriteJUnit(w io.Writer) error {
	suite := JUnitSuite{Name: xmlSafe("regress " + r.RunID + " vs " + r.BaselineRunID), Time: "0",
		Properties: []JUnitProperty{{Name: "run_id", Value: xmlSafe(r.RunID)}, {Name: "baseline_run_id", Value: xmlSafe(r.BaselineRunID)},
			{Name: "config_changed", Value: strconv.FormatBool(r.ConfigChanged)}}}
	for _, f := range r.Findings {
		name := "regress:" + f.Metric
		switch f.Kind {
		case FindingMissingVariant:
			name = "regress:variant present"
		case FindingNotInBaseline:
			name = "regress:variant in baseline"
		case FindingNoVariants:
			name = "regress:run has variants"
		case FindingUnfinished:
			name = "regress:run finished"
		case FindingVariantError:
			name = "regress:variant completed"
		case FindingAssertion:
			name = "regress:assertion " + f.Metric
		}
		c := JUnitCase{ClassName: xmlSafe(r.Scenario + "." + f.Variant), Name: xmlSafe(name), Time: "0"}
		if f.Regression {
			c.Failure = &JUnitProblem{Message: xmlSafe(f.describe()), Type: "regression", Text: xmlSafe(f.describe())}
		} else {
			c.SystemOut = xmlSafe(f.describe())
		}
		suite.add(c)
	}
	return writeJUnit(w, suite)
}

var baselineNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// BaselinesDir is where named baselines live: results/baselines.
func (s *Store) BaselinesDir() string { return filepath.Join(s.dir, "baselines") }

// SaveBaseline copies the run record of ref (a run id, prefix or "latest")
// to results/baselines/<name>.json and returns the file's path. Baselines
// are committed to the repository, so later runs compare against them.
func SaveBaseline(s *Store, ref, name string) (string, error) {
	return SaveBaselineFiltered(s, ref, name, Filter{}, false)
}

// SaveBaselineFiltered is SaveBaseline with "latest" narrowed by f, and an
// existing baseline of that name replaced only when force is set (baselines
// are committed files: replacing one silently would lose a reference).
func SaveBaselineFiltered(s *Store, ref, name string, f Filter, force bool) (string, error) {
	if !baselineNamePattern.MatchString(name) {
		return "", exitcode.Usagef("baseline name %q: use lowercase letters, digits and dashes, starting with a letter or digit (for example ecn-pfc-64gpu)", name)
	}
	run, err := s.Find(ref, f)
	if err != nil {
		return "", err
	}
	if err := baselineWorthy(run); err != nil {
		return "", exitcode.Usagef("save baseline %s: %v", name, err)
	}
	path := filepath.Join(s.BaselinesDir(), name+".json")
	if !force {
		old, err := ReadRunFile(path)
		switch {
		case err == nil && old.RunID != run.RunID:
			return "", exitcode.Usagef("baseline %s already exists (saved from run %s, %s on %s): use --force to replace it with run %s, or choose another name", name, old.RunID, old.Scenario, old.Lab, run.RunID)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", exitcode.Usagef("baseline %s: %s exists but is not a readable run record (%v): use --force to replace it, or choose another name", name, path, err)
		}
	}
	if err := os.MkdirAll(s.BaselinesDir(), 0o755); err != nil {
		return "", fmt.Errorf("save baseline %s: %w", name, exitcode.WriteFailed(s.BaselinesDir(), err))
	}
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return "", fmt.Errorf("save baseline %s: %w", name, err)
	}
	if err := WriteFileAtomic(path, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("save baseline %s: %w", name, exitcode.WriteFailed(path, err))
	}
	return path, nil
}

// baselineWorthy refuses a run that cannot serve as a baseline: one still
// running, one that stopped before its last variant (a baseline must hold
// every variant later runs have), or one whose variants hold errors
// instead of metrics.
func baselineWorthy(run *Run) error {
	switch run.Status {
	case StatusRunning:
		return fmt.Errorf("run %s is still running (fix: wait for it to finish, then save it)", run.RunID)
	case StatusAbandoned, StatusInterrupted:
		return fmt.Errorf("run %s was %s after %d variant(s), so later runs could not be checked against it (fix: save a run that finished every variant)", run.RunID, run.Status, len(run.Variants))
	}
	if len(run.Variants) == 0 {
		return fmt.Errorf("run %s has no variants to compare with (fix: save a run that finished every variant)", run.RunID)
	}
	if run.VariantsPlanned > len(run.Variants) {
		return fmt.Errorf("run %s has %d of its %d variants (fix: save a run that finished every variant)", run.RunID, len(run.Variants), run.VariantsPlanned)
	}
	for _, v := range run.Variants {
		if v.Error != "" {
			return fmt.Errorf("variant %s of run %s could not run (%s), so it has no metrics to compare with (fix: save a run whose variants all ran)", v.Name, run.RunID, v.Error)
		}
	}
	return nil
}

// LoadBaseline finds a baseline given as a file path, a baseline name
// (results/baselines/<name>.json), a run id or prefix, or "latest". A path
// wins when a file exists there; then a name; then a run.
func LoadBaseline(s *Store, ref string) (*Run, error) {
	if ref == "" {
		return nil, errors.New("no baseline given: name a run id, latest, a baseline name or a run.json file")
	}
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		return ReadRunFile(ref)
	}
	if baselineNamePattern.MatchString(ref) {
		p := filepath.Join(s.BaselinesDir(), ref+".json")
		if _, err := os.Stat(p); err == nil {
			return ReadRunFile(p)
		}
	}
	run, err := s.Get(ref)
	if err != nil {
		var nf *NotFoundError
		if errors.As(err, &nf) && len(nf.Ambiguous) == 0 {
			names := baselineNames(s)
			msg := fmt.Sprintf("baseline %q is not a file, a saved baseline or a run", ref)
			if len(names) > 0 {
				msg += "; saved baselines: " + strings.Join(names, ", ")
			}
			if len(nf.Recent) > 0 {
				msg += "; latest runs: " + strings.Join(nf.Recent, ", ")
			}
			return nil, &NotFoundError{Ref: ref, Recent: nf.Recent, msg: msg}
		}
		return nil, err
	}
	return run, nil
}

func baselineNames(s *Store) []string {
	m, _ := filepath.Glob(filepath.Join(s.BaselinesDir(), "*.json"))
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".json"))
	}
	sort.Strings(out)
	return out
}
