package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/jsonindent"
	"github.com/labctl/labctl/orchestrator/naming"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
	engine "github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/transport"
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
	// From says where an override came from (FromScenario, FromFlag);
	// "" for a default.
	From string `json:"-"`
}

// Where a tolerance override came from.
const (
	FromScenario = "the scenario's regress.tolerances"
	FromFlag     = "--tolerance"
)

// AppliedTolerance is one override a comparison used.
type AppliedTolerance struct {
	Metric    string `json:"metric"`
	Tolerance string `json:"tolerance"`
	From      string `json:"from"`
}

func (t Tolerance) String() string {
	if t.Disabled {
		return "off"
	}
	var parts []string
	if t.Rel != 0 {
		parts = append(parts, toleranceNumber(t.Rel*100)+"%")
	}
	if t.Abs != 0 || len(parts) == 0 {
		parts = append(parts, toleranceNumber(t.Abs))
	}
	return strings.Join(parts, "+")
}

// toleranceNumber writes a part of a tolerance as --tolerance takes it:
// plainly (0.5, 65536), but a number that would take more than 21 digits
// so in exponent form (1e-300, 1e+300), which ParseToleranceOf reads
// back (a 1e-300% tolerance printed 300 zeros).
func toleranceNumber(v float64) string {
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Finding kinds.
const (
	FindingMetric = "metric"
	// FindingAbsent is a metric one side has and the other lacks (not
	// computed by its model, not measured, flows that did not complete,
	// a record made before labctl kept it). Absent is never compared as
	// a zero: when the run lacks what the baseline had it is a
	// regression (what was checked no longer is); when the baseline
	// lacks it, the run's figure has nothing to compare with and is
	// listed as not compared.
	FindingAbsent         = "metric_absent"
	FindingMissingVariant = "missing_variant"
	// FindingNotInBaseline is a variant of the run the baseline lacks, so
	// nothing checked it (an interrupted baseline, or a new variant).
	FindingNotInBaseline = "not_in_baseline"
	// FindingMissingRole is a role with flows in a baseline variant and
	// none in the run's; FindingRoleNotInBaseline the other way round,
	// flows nothing checked. Both mean the traffic changed.
	FindingMissingRole       = "missing_role"
	FindingRoleNotInBaseline = "role_not_in_baseline"
	// FindingNoVariants is a run with no finished variant at all.
	FindingNoVariants = "no_variants"
	// FindingUnfinished is a run that did not finish (interrupted, or
	// abandoned by a process that died): even with every variant there,
	// its last save, and so its final assertions, may be missing.
	FindingUnfinished   = "unfinished"
	FindingAssertion    = "assertion"
	FindingVariantError = "variant_error"
	// FindingAssertionFailed is an assertion the run fails that did not
	// pass in the baseline: it failed there too (a baseline saved from a
	// failed run, with --force), or the baseline has no such assertion.
	// Not a regression (nothing that held stopped holding), but the run
	// does not pass: the report's verdict is VerdictFailed and regress
	// exits 1, so that a run failing its checks never reads as OK.
	FindingAssertionFailed = "assertion_failed"
	// FindingLint is a lint error of the run's configs that the
	// baseline's configs did not have: a regression.
	FindingLint = "lint_error"
)

// Verdicts of a comparison (Report.Verdict).
const (
	VerdictOK        = "ok"
	VerdictRegressed = "regressed"
	// VerdictFailed: no regression, but the run fails assertions
	// (FindingAssertionFailed).
	VerdictFailed = "failed"
)

// Absent sides of a FindingAbsent.
const (
	AbsentInRun      = "run"
	AbsentInBaseline = "baseline"
)

// Finding is one comparison: a metric of a variant (of its summary, of
// one role's flows, or of one port and priority), a variant or role
// missing from either side, or an assertion that passed in the baseline.
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
	// Lint is the lint error a FindingLint regression is (its rule,
	// switch, ports, message and fix), which the text groups over the
	// switches that have it (qos.GroupDevices).
	Lint *qos.Finding `json:"lint,omitempty"`
	// Scope says what the finding is about: ScopeSummary, ScopeRole,
	// ScopePort or ScopeVariant.
	Scope string `json:"scope,omitempty"`
	// Role and Flows (the run's flows of the role; the baseline's when
	// the run has none) place a role finding.
	Role  string `json:"role,omitempty"`
	Flows int    `json:"flows,omitempty"`
	// Node, Port and Priority place a port finding.
	Node     string `json:"node,omitempty"`
	Port     string `json:"port,omitempty"`
	Priority *int   `json:"priority,omitempty"`
	// Unit is the unit of Baseline, Current, Delta and Allowed ("Gb/s",
	// "us", "bytes"; "" for counts).
	Unit string `json:"unit,omitempty"`
	// Better marks a metric that moved beyond tolerance in its better
	// direction: not a regression, but a change to check is intended.
	Better bool `json:"better,omitempty"`
	// Elsewhere marks a port's figure that moved beyond tolerance between
	// runs whose flows sit on other ports (repetitions at other seeds,
	// where the ECMP hash placed them anew; or, after an edit, variants
	// whose flows take flowlets: pathsByTiming), so a port's
	// load moves with the placement; listed, not a regression.
	// The summary's and the roles' figures, which do not depend on where
	// the flows sit, carry the verdict there.
	Elsewhere bool `json:"elsewhere,omitempty"`
	// WidenedByRun marks a figure within tolerance only because the
	// run's repetitions spread wider than the baseline's: compared with
	// the baseline's spread alone it would regress. Not a regression (a
	// figure with two modes shows so at other seeds with nothing
	// changed), but a fault that hits some seeds shows so too; the
	// report's warnings list them.
	WidenedByRun bool `json:"widened_by_run,omitempty"`
	// Absent, on a FindingAbsent, is the side that lacks the metric:
	// AbsentInRun or AbsentInBaseline (whose Baseline or Current is then
	// 0 and means nothing).
	Absent string `json:"absent,omitempty"`
	// Source says how the run's figure was obtained: measured on a live
	// lab or simulated (the baseline's, when they differ, is in the
	// report's warnings).
	Source Source `json:"source,omitempty"`
	// SizeBytes places a finding of a variant's nccl-tests table
	// (ScopeNCCL) at one message size; nil for the table as a whole.
	SizeBytes *int64 `json:"size_bytes,omitempty"`
	// BaselineSource, on an nccl-tests finding, says how the baseline's
	// figure was obtained, beside Source for the run's: a measured table
	// may be compared with a simulated one.
	BaselineSource Source `json:"baseline_source,omitempty"`
	// why is the absent side's reason, for grouping in text output.
	why string
}

// Tally counts what a compare did: metric comparisons by scope and by
// outcome. Every comparison is exactly one of Worse (a regression),
// Better, Elsewhere (a port's figure beyond tolerance where the flows sit
// on other ports), Moved (within tolerance) or Unchanged.
type Tally struct {
	// Variants is how many baseline variants had a match in the run;
	// Points how many points they are (a point run with repetitions is
	// several variants, compared as one sample).
	Variants int `json:"variants"`
	Points   int `json:"points"`
	// Metrics is the number of metric comparisons (both sides had the
	// value): Summary + Role + Port + NCCL.
	Metrics int `json:"metrics"`
	Summary int `json:"summary"`
	Role    int `json:"role"`
	Port    int `json:"port"`
	// NCCL counts the comparisons of nccl-tests tables, NCCLSizes the
	// (variant, message size) pairs whose busbw was compared.
	NCCL      int `json:"nccl"`
	NCCLSizes int `json:"nccl_sizes"`
	// Roles and Ports count the (variant, role) and (variant, port,
	// priority) pairs compared.
	Roles     int `json:"roles"`
	Ports     int `json:"ports"`
	Worse     int `json:"worse"`
	Better    int `json:"better"`
	Elsewhere int `json:"elsewhere"`
	Moved     int `json:"moved"`
	Unchanged int `json:"unchanged"`
	// AbsentInRun and AbsentInBaseline count the metrics one side lacks
	// (FindingAbsent); those absent in the run are regressions.
	AbsentInRun      int `json:"absent_in_run"`
	AbsentInBaseline int `json:"absent_in_baseline"`
}

// Report is the outcome of comparing a run with a baseline.
type Report struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	BaselineRunID string `json:"baseline_run_id"`
	// RunStarted and BaselineStarted are when the two runs started: with
	// the ids, they say which runs were compared (regress latest after a
	// refused run compares the run before it).
	RunStarted      time.Time `json:"run_started,omitzero"`
	BaselineStarted time.Time `json:"baseline_started,omitzero"`
	Scenario        string    `json:"scenario"`
	Lab             string    `json:"lab"`
	// NOS and BaselineNOS are the two records' network OS: where they
	// differ (a lab brought up again with --nos), the QoS changes below
	// are the other NOS's reading of its own configs as much as an edit.
	NOS         string `json:"nos,omitempty"`
	BaselineNOS string `json:"baseline_nos,omitempty"`
	// PortsMatched, when the NOS differs, says how the run's switch ports
	// were matched with the baseline's: by front-panel position, named as
	// the baseline's NOS names them (alignRunPorts).
	PortsMatched  string `json:"ports_matched,omitempty"`
	ConfigChanged bool   `json:"config_changed"`
	// ConfigChanges are the switch QoS fields that differ between the
	// baseline and the run, in the resolved model's terms and grouped over
	// ports (absent when a record kept no QoS); the text output lists them
	// before the metric findings, as the likely causes of what moved.
	ConfigChanges []qos.Difference `json:"config_changes,omitempty"`
	// ScenarioChanged says the scenario's text differs between the two
	// records (false when either kept none); ScenarioChanges lists the
	// values that do: empty when only comments, layout or the number of
	// repetitions changed (each repetition is the same simulation at its
	// seed; Basis counts them), null
	// when nothing changed or a text could not be read.
	ScenarioChanged bool             `json:"scenario_changed"`
	ScenarioChanges []ScenarioChange `json:"scenario_changes"`
	// SimulatorChanged says the two records' simulated figures come from
	// different revisions of the simulator (Run.SimRevision; a record
	// without one predates them all): at one seed they are then not the
	// same simulation, and figures the newer labctl moved are not the
	// configs' doing. SimulatorChanges says what each revision between
	// them changed (sim.Revisions). Never set when either side is a
	// record of a tool's output, which holds no simulated figure.
	SimulatorChanged bool     `json:"simulator_changed"`
	SimulatorChanges []string `json:"simulator_changes,omitempty"`
	// SimRevisions are the two records' revisions of the simulator.
	SimRevisions SimRevisions `json:"sim_revisions"`
	// LintErrors and BaselineLintErrors are the lint errors of the two
	// records' configs.
	LintErrors         *int `json:"lint_errors,omitempty"`
	BaselineLintErrors *int `json:"baseline_lint_errors,omitempty"`
	Regressed          bool `json:"regressed"`
	Regressions        int  `json:"regressions"`
	// RunStatus and BaselineStatus are the two records' statuses
	// (passed, failed, ...): a baseline saved from a failed run says so.
	RunStatus      string `json:"run_status"`
	BaselineStatus string `json:"baseline_status"`
	// FailedAssertions counts the assertions the run fails that are not
	// regressions (FindingAssertionFailed: the baseline failed them too,
	// or has none such); Verdict is VerdictRegressed on a regression,
	// else VerdictFailed when FailedAssertions > 0, else VerdictOK. Both
	// of the first two exit 1.
	FailedAssertions int       `json:"failed_assertions"`
	Verdict          string    `json:"verdict"`
	Findings         []Finding `json:"findings"`
	Warnings         []string  `json:"warnings"`
	VariantsAdded    []string  `json:"variants_added"`
	// Basis says what was compared against what (one seed one to one,
	// samples over repetitions, a record of a tool's output) and how far
	// the verdict can be trusted.
	Basis Basis `json:"basis"`
	// Compared counts the comparisons by scope and outcome.
	Compared Tally `json:"compared"`
	// Model is the model behind the run's simulated figures ("packet" or
	// "flow"; "live" when measured), as Variant.Model says of its first
	// variant: text output names it beside the figures' source.
	Model string `json:"model,omitempty"`
	// NotComputed lists the metrics neither side holds (each summary's
	// not_computed), with why: skipped, never compared as zeros.
	NotComputed []NotComputedMetric `json:"not_computed,omitempty"`
	// Tolerances are the overrides of the default tolerances the
	// comparison used, by metric, with where each came from.
	Tolerances []AppliedTolerance `json:"tolerances,omitempty"`

	// elsewhere is set while a pooled point whose flows sit on other
	// ports on each side is compared (Finding.Elsewhere).
	elsewhere bool
	// samePlacement, while elsewhere is set, holds the switch ports
	// ("node\x00port") that forward the same flows in every repetition
	// of both sides, by the flows' routes (samePlacement): their egress
	// figures stay compared. nil when the routes do not say.
	samePlacement map[string]bool
	// notComputedWhy are the reasons the variant being compared gives for
	// the figures its summary lists as not computed (Summary.NotComputed).
	notComputedWhy map[string]bool
}

// NotComputedMetric is a metric of a variant (or of one of its roles)
// that neither the run nor the baseline holds, and why.
type NotComputedMetric struct {
	Variant string `json:"variant"`
	Metric  string `json:"metric"`
	Role    string `json:"role,omitempty"`
	Reason  string `json:"reason"`
}

// Compare checks run against baseline for every baseline variant (matched
// by name): its summary metrics, the metrics of each role's flows
// (RoleMetrics), and the metrics of every port and priority congested in
// either record (PortMetrics). A metric one side lacks is absent, not
// zero: absent in the run it is a regression, absent in the baseline it is
// listed as not compared, absent on both it is skipped (listed under
// NotComputed with why when the record lists it as not computed). A variant missing
// from run, a variant of run the baseline lacks (it would go unchecked), a
// role missing from either side, a run without variants, a variant that
// failed to complete, and an assertion that passed in the baseline and
// fails now are regressions too; a repetition of a point that one side ran
// more times than the other is not (fewer samples, extraRepetitions).
func Compare(run, baseline *Run, tol Tolerances) Report {
	r := Report{SchemaVersion: SchemaVersion, RunID: run.RunID, BaselineRunID: baseline.RunID, RunStarted: run.Started.UTC(), BaselineStarted: baseline.Started.UTC(), Scenario: run.Scenario, Lab: run.Lab,
		NOS: run.NOS, BaselineNOS: baseline.NOS, RunStatus: run.Status, BaselineStatus: baseline.Status,
		Findings: []Finding{}, Warnings: []string{}, VariantsAdded: []string{}}
	if len(run.Variants) > 0 {
		r.Model = run.Variants[0].Model()
	}
	// Another NOS names the same ports otherwise: match them by
	// front-panel position, for the port findings and the QoS changes.
	run, r.PortsMatched = alignRunPorts(run, baseline)
	if run.Scenario != baseline.Scenario {
		r.Warnings = append(r.Warnings, fmt.Sprintf("scenario differs: run %q, baseline %q", run.Scenario, baseline.Scenario))
	}
	if run.Lab != baseline.Lab {
		r.Warnings = append(r.Warnings, fmt.Sprintf("lab differs: run %q, baseline %q", run.Lab, baseline.Lab))
	}
	if run.ConfigDigest != "" && baseline.ConfigDigest != "" && run.ConfigDigest != baseline.ConfigDigest {
		r.ConfigChanged = true
	}
	r.ConfigChanges = configChanges(run, baseline)
	r.ScenarioChanged, r.ScenarioChanges = scenarioChanges(run, baseline)
	// What differs between the inputs besides the seed: at one seed it
	// decides whether the two sides are the same simulation.
	var changed []string
	if len(r.ConfigChanges) > 0 || (r.ConfigChanged && r.ConfigChanges == nil) {
		changed = append(changed, "the switches' configs")
	}
	if len(r.ScenarioChanges) > 0 || (r.ScenarioChanged && r.ScenarioChanges == nil) {
		changed = append(changed, "the scenario's values")
	}
	r.SimRevisions = SimRevisions{Run: run.SimRevision, Baseline: baseline.SimRevision}
	if sim, ok := simulatorChange(run, baseline); ok {
		r.SimulatorChanged = true
		r.SimulatorChanges = engine.RevisionChanges(run.SimRevision, baseline.SimRevision)
		changed = append(changed, sim)
	}
	plan := planComparison(run, baseline, len(changed) > 0)
	pooled := plan.pooled
	r.Basis = plan.basis(run, baseline, changed)
	if len(plan.acrossSeeds) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("seed differs: run %d, baseline %d, and a point has one repetition on a side: its figures are compared with another seed's, and the seed alone moves them (rerun at the baseline's seed, or run both with repetitions)", run.Seed, baseline.Seed))
	}
	if run.ScenarioYAML != "" && baseline.ScenarioYAML == "" && baseline.Imported == nil {
		r.Warnings = append(r.Warnings, "the baseline records no scenario (saved before labctl kept one), so a change of the scenario since goes unchecked: save the baseline again from a run of the scenario as it is")
	}
	r.LintErrors, r.BaselineLintErrors = lintErrors(run), lintErrors(baseline)
	lintFindings, lintNotes := newLintErrors(run, baseline, r.lintAlone())
	r.Findings = append(r.Findings, lintFindings...)
	r.Warnings = append(r.Warnings, lintNotes...)
	r.Tolerances = appliedTolerances(tol)
	r.Warnings = append(r.Warnings, unmatchedRoleTolerances(tol, run, baseline)...)
	// Variants are matched point by point: by full name, which holds every
	// swept value, and repetition.
	r.Warnings = append(r.Warnings, sweepWarnings(run, baseline)...)
	cur := map[string]*Variant{}
	runPoints := map[string]bool{}
	for i := range run.Variants {
		cur[pointKey(&run.Variants[i])] = &run.Variants[i]
		runPoints[run.Variants[i].Name] = true
	}
	// A point both sides ran, one side more times (at one seed, without
	// repetitions on both sides, so matched one to one): the repetitions
	// they share are compared; the others are not a variant either side
	// lacks, only fewer samples, and are listed apart (extraRepetitions).
	basePoints := map[string][]*Variant{}
	for i := range baseline.Variants {
		bv := &baseline.Variants[i]
		basePoints[bv.Name] = append(basePoints[bv.Name], bv)
	}
	var runOnlyReps, baseOnlyReps []*Variant
	inBase := map[string]bool{}
	var importedMissing, importedAdded []string
	for i := range baseline.Variants {
		bv := &baseline.Variants[i]
		inBase[pointKey(bv)] = true
		if p := pooled[bv.Name]; p != nil {
			if p.base[0] == bv {
				r.comparePooled(p, tol)
			}
			continue
		}
		v, ok := cur[pointKey(bv)]
		if !ok && runPoints[bv.Name] && run.Imported == nil {
			baseOnlyReps = append(baseOnlyReps, bv)
			continue
		}
		if !ok {
			detail := "variant is in the baseline but not in the run (run " + run.Status + ")"
			if why := pointNotIn(bv, baseline, run, "the run"); why != "" {
				detail = "point is in the baseline but not in the run: " + why
			}
			if run.Imported != nil {
				// A record of a tool's output holds the points measured.
				detail = "variant is in the baseline but not in the run, a record of " + run.Imported.Tool + " output, so not compared"
				importedMissing = append(importedMissing, bv.Label())
			}
			r.Findings = append(r.Findings, Finding{Kind: FindingMissingVariant, Scope: ScopeVariant, Variant: bv.Label(), Regression: run.Imported == nil, Detail: detail})
			continue
		}
		r.Compared.Variants++
		r.Compared.Points++
		// After an edit, flows on flowlets sit on other links
		// (pathsByTiming): their ports' figures are listed apart, as
		// between seeds.
		r.elsewhere = flowsMovedByEdit(len(changed) > 0, bv, v)
		if v.Error != "" && bv.Error == "" {
			r.Findings = append(r.Findings, Finding{Kind: FindingVariantError, Scope: ScopeVariant, Variant: bv.Label(), Regression: true, Detail: v.Error})
		}
		r.warnOriginChange(bv.Label(), bv, v)
		r.compareVariant(bv.Label(), []*Variant{bv}, []*Variant{v}, tol)
		r.elsewhere = false
		if NCCLOnly(bv) || NCCLOnly(v) {
			continue // an nccl-tests record has no assertions
		}
		r.compareAssertions([]*Variant{bv}, v)
	}
	for i := range run.Variants {
		v := &run.Variants[i]
		if !inBase[pointKey(v)] && pooled[v.Name] == nil && basePoints[v.Name] != nil && baseline.Imported == nil {
			// Checked as a pooled repetition would be: it ran, and the
			// assertions that held in every one of the baseline's
			// repetitions of the point hold in it.
			runOnlyReps = append(runOnlyReps, v)
			if v.Error != "" && !slices.ContainsFunc(basePoints[v.Name], func(b *Variant) bool { return b.Error != "" }) {
				r.Findings = append(r.Findings, Finding{Kind: FindingVariantError, Scope: ScopeVariant, Variant: v.Label(), Regression: true, Detail: v.Error})
			}
			if !NCCLOnly(v) {
				r.compareAssertions(basePoints[v.Name], v)
			}
			continue
		}
		if !inBase[pointKey(v)] && pooled[v.Name] == nil {
			r.VariantsAdded = append(r.VariantsAdded, v.Label())
			detail := fmt.Sprintf("variant is in the run but not in the baseline (baseline %s, %s), so nothing checked it: save a baseline that has every variant", baseline.Status, plural.N(len(baseline.Variants), "variant"))
			if why := pointNotIn(v, run, baseline, "the baseline"); why != "" {
				detail = "point is in the run but not in the baseline, so nothing checked it: " + why + "; save a baseline of the same sweep"
			}
			if baseline.Imported != nil {
				detail = "variant is in the run but not in the baseline, a record of " + baseline.Imported.Tool + " output (the points measured), so not compared"
				importedAdded = append(importedAdded, v.Label())
			}
			r.Findings = append(r.Findings, Finding{Kind: FindingNotInBaseline, Scope: ScopeVariant, Variant: v.Label(), Regression: baseline.Imported == nil, Detail: detail})
		}
	}
	r.Warnings = append(r.Warnings, widenedByRun(r.Findings)...)
	r.Warnings = append(r.Warnings, extraRepetitions(runOnlyReps, "run", "baseline")...)
	r.Warnings = append(r.Warnings, extraRepetitions(baseOnlyReps, "baseline", "run")...)
	if len(importedMissing) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("not compared: %s of the baseline, which the run (a record of %s output) lacks: %s", plural.N(len(importedMissing), "variant"), run.Imported.Tool, strings.Join(importedMissing, "; ")))
	}
	if len(importedAdded) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("not compared: %s of the run, which the baseline (a record of %s output) lacks: %s", plural.N(len(importedAdded), "variant"), baseline.Imported.Tool, strings.Join(importedAdded, "; ")))
	}
	if r.Compared.Variants == 0 && len(run.Variants) > 0 && len(baseline.Variants) > 0 {
		r.Findings = append(r.Findings, Finding{Kind: FindingNoMatch, Scope: ScopeVariant, Variant: "-", Regression: true,
			Detail: fmt.Sprintf("no variant of the run (%s) is one of the baseline's (%s), so nothing was compared: name the variants alike (labctl parse nccl-tests --variant)", variantNames(run), variantNames(baseline))})
	}
	if run.Status == StatusAbandoned || run.Status == StatusInterrupted {
		detail := fmt.Sprintf("run %s was %s before it finished, so it is not a complete result: run the scenario again", run.RunID, run.Status)
		if allPlannedRan(run) {
			detail = fmt.Sprintf("run %s was %s after its last variant finished but before its final assertions were checked (labctl up to 2026-12-07 recorded such a run interrupted), so it is not a complete result: run the scenario again", run.RunID, run.Status)
		}
		r.Findings = append(r.Findings, Finding{Kind: FindingUnfinished, Scope: ScopeVariant, Variant: "-", Regression: true, Detail: detail})
	}
	if len(run.Variants) == 0 {
		r.Findings = append(r.Findings, Finding{Kind: FindingNoVariants, Scope: ScopeVariant, Variant: "-", Regression: true,
			Detail: fmt.Sprintf("run %s (%s) has no finished variant to compare", run.RunID, run.Status)})
	}
	r.tally()
	return r
}

// compareAssertions flags each assertion of v that fails: a regression
// where it passed in every one of bvs (the baseline's variant, or each
// repetition of the point); else FindingAssertionFailed, which says how
// it went in the baseline (failed there too, or not there).
func (r *Report) compareAssertions(bvs []*Variant, v *Variant) {
	for _, a := range v.Assertions {
		if a.Passed {
			continue
		}
		i := slices.IndexFunc(bvs[0].Assertions, func(b Assertion) bool { return b.Name == a.Name })
		if i >= 0 && passedIn(bvs, a.Name) {
			r.Findings = append(r.Findings, Finding{Kind: FindingAssertion, Scope: ScopeVariant, Variant: v.Label(), Metric: a.Name, Regression: true,
				Detail: fmt.Sprintf("passed in baseline (%s), fails now (%s)", bvs[0].Assertions[i].Detail, a.Detail)})
			continue
		}
		detail := fmt.Sprintf("fails now (%s); the baseline has no such assertion, so it is not a regression, but the run does not pass", a.Detail)
		if failed := failedIn(bvs, a.Name); failed != nil {
			detail = fmt.Sprintf("fails now (%s) and failed in the baseline too (%s): not a regression, but both fail it", a.Detail, failed.Detail)
		}
		r.Findings = append(r.Findings, Finding{Kind: FindingAssertionFailed, Scope: ScopeVariant, Variant: v.Label(), Metric: a.Name, Detail: detail})
	}
}

// failedIn is the first failure of assertion name in vs, nil when none of
// them fails it.
func failedIn(vs []*Variant, name string) *Assertion {
	for _, v := range vs {
		for i, a := range v.Assertions {
			if a.Name == name && !a.Passed {
				return &v.Assertions[i]
			}
		}
	}
	return nil
}

// passedIn says whether the assertion name passed in every one of vs.
func passedIn(vs []*Variant, name string) bool {
	for _, v := range vs {
		i := slices.IndexFunc(v.Assertions, func(a Assertion) bool { return a.Name == name })
		if i < 0 || !v.Assertions[i].Passed {
			return false
		}
	}
	return true
}

// comparePooled compares the repetitions of a point as samples: each
// figure as the mean of the run's repetitions against the mean of the
// baseline's (compareVariant), a repetition of the run that failed to
// run, and an assertion that passed in every repetition of the baseline
// and fails in one of the run's.
func (r *Report) comparePooled(p *pooledPoint, tol Tolerances) {
	r.elsewhere = p.elsewhere
	if p.elsewhere {
		r.samePlacement = samePlacement(p.base, p.run)
	}
	defer func() { r.elsewhere, r.samePlacement = false, nil }()
	label := fmt.Sprintf("%s (mean of %d repetitions)", p.name, len(p.run))
	if len(p.base) != len(p.run) {
		label = fmt.Sprintf("%s (mean of %d repetitions, baseline %d)", p.name, len(p.run), len(p.base))
	}
	r.Compared.Variants += len(p.base)
	r.Compared.Points++
	for _, v := range p.run {
		if v.Error != "" && !slices.ContainsFunc(p.base, func(b *Variant) bool { return b.Error != "" }) {
			r.Findings = append(r.Findings, Finding{Kind: FindingVariantError, Scope: ScopeVariant, Variant: v.Label(), Regression: true, Detail: v.Error})
		}
	}
	r.warnOriginChange(p.name, p.base[0], p.run[0])
	r.compareVariant(label, p.base, p.run, tol)
	for _, v := range p.run {
		r.compareAssertions(p.base, v)
	}
}

// CheckSameExperiment refuses a baseline whose figures do not measure
// what the run's measure, so that Compare would read every difference as
// a regression or miss one: another scenario or lab, or variants whose
// figures another model produced (the flow-level model computes no drops,
// pauses, marks or latency, a live lab measures soft-RoCE, not the
// simulated fabric), or other seeds with a point run once on a side
// (CheckSeeds). A record made from a tool's output (Imported) is
// compared with a simulated run of its scenario by design, so its model
// and seed are not checked. The error is bad input (exit 2) and says
// what to do.
func CheckSameExperiment(run, baseline *Run) error {
	if baseline.Scenario != run.Scenario || baseline.Lab != run.Lab {
		return exitcode.Usagef("run %s is %s on %s but baseline %s is %s on %s: compare runs of the same scenario and lab (narrow 'latest' with --scenario/--lab)", run.RunID, run.Scenario, run.Lab, baseline.RunID, baseline.Scenario, baseline.Lab)
	}
	if run.Imported != nil || baseline.Imported != nil {
		return nil
	}
	base := map[string]*Variant{}
	for i := range baseline.Variants {
		base[pointKey(&baseline.Variants[i])] = &baseline.Variants[i]
	}
	for i := range run.Variants {
		v := &run.Variants[i]
		bv := base[pointKey(v)]
		if bv == nil || bv.Model() == v.Model() {
			continue
		}
		return exitcode.Usagef("run %s (runtime %s) has %s figures and baseline %s (runtime %s) %s figures (variant %s), which are not comparable: %s; compare runs of the same runtime and model (rerun with the baseline's --model, or save a baseline from a run of this one)",
			run.RunID, run.Runtime, modelWords(v.Model()), baseline.RunID, baseline.Runtime, modelWords(bv.Model()), v.Label(), modelGap(v.Model(), bv.Model()))
	}
	return CheckSeeds(run, baseline)
}

// modelWords names what a Variant.Model produced, for errors.
func modelWords(model string) string {
	switch model {
	case ModelFlow:
		return "flow-level estimated"
	case ModelPacket:
		return "packet-by-packet simulated"
	case ModelLive:
		return "live measured"
	}
	return model
}

// modelGap says why figures of two models do not compare.
func modelGap(a, b string) string {
	switch {
	case a == ModelFlow || b == ModelFlow:
		return "the " + FlowModelCaveat + ", so it has none of the drops, pauses, marks and latencies the packet-level model computes, and its throughput is a steady-state estimate"
	case a == ModelLive || b == ModelLive:
		return "a live lab measures soft-RoCE on software switches, not the simulated fabric"
	}
	return "they are different models"
}

// warnOriginChange warns that the point named label has its figures
// obtained otherwise in the run than in the baseline (measured against
// simulated or estimated: Variant.Origin), where both records say.
func (r *Report) warnOriginChange(label string, base, run *Variant) {
	if src, bsrc := run.Origin(), base.Origin(); src != bsrc && src != "" && bsrc != "" {
		r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s: run is %s, baseline is %s", label, src, bsrc))
	}
}

// compareVariant adds the metric findings of one matched point: its
// summary, each role's flows, each congested port and priority, and its
// nccl-tests table. bvs and vs are the point's variants on each side: one
// each when points are matched one to one, or every repetition of the
// point when they are compared as samples (planComparison), each figure
// then the mean over a side's repetitions (poolValues).
func (r *Report) compareVariant(name string, bvs, vs []*Variant, tol Tolerances) {
	bv, v := bvs[0], vs[0]
	origin := v.Origin()
	r.notComputedWhy = map[string]bool{}
	for _, f := range v.Summary.NotComputed {
		r.notComputedWhy[v.NotComputedReason(f)] = true
	}
	if NCCLOnly(bv) || NCCLOnly(v) {
		r.compareNCCL(name, bvs, vs, tol)
		// A record of nccl-tests output has its table and nothing else:
		// its summary, flows and ports are not absent figures but never
		// were (nccl-tests measures none of them).
		side := "run"
		if NCCLOnly(bv) {
			side = "baseline"
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s: the %s holds only an nccl-tests table, so only the tables are compared (nccl-tests measures no flows, summary or ports)", name, side))
		return
	}
	bt, ct := transportOf(bv), transportOf(v)
	for _, m := range Metrics {
		if why := acrossTransports(bt, ct, m.Name); why != "" {
			r.NotComputed = append(r.NotComputed, NotComputedMetric{Variant: name, Metric: m.Name, Reason: why})
			continue
		}
		get := func(x *Variant) sideValue {
			if why := notComputedWhy(x, m.Name); why != "" {
				return sideValue{absent: why}
			}
			return sideValue{v: m.get(x.Summary)}
		}
		r.addMetric(Finding{Variant: name, Scope: ScopeSummary, Source: origin}, m, tol, poolValues(bvs, get), poolValues(vs, get))
	}
	if bt != ct {
		r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s ran transport %s in the baseline and %s in the run: its figures compare different transports, and those one of them does not have or counts otherwise are not compared", name, bt, ct))
	}
	for _, m := range TransportMetrics {
		get := func(x *Variant) sideValue {
			val, why := m.variant(x)
			return sideValue{v: val, absent: why}
		}
		b, c := poolValues(bvs, get), poolValues(vs, get)
		if r.absentAcrossTransports(name, "", m.Name, bt, ct, b, c) {
			continue
		}
		r.addMetric(Finding{Variant: name, Scope: ScopeSummary, Source: origin}, m, tol, b, c)
	}

	baseRoles, baseOrder := rolesOf(bvs)
	curRoles, curOrder := rolesOf(vs)
	for _, role := range baseOrder {
		br, cr := baseRoles[role], curRoles[role]
		if cr == nil {
			flows := firstRole(br).flows
			r.Findings = append(r.Findings, Finding{Kind: FindingMissingRole, Scope: ScopeRole, Variant: name, Role: role, Flows: flows, Regression: true,
				Detail: fmt.Sprintf("the baseline has %d %s %s, the run none: the traffic changed (save a new baseline if that is intended)", flows, role, plural.Noun(flows, "flow"))})
			continue
		}
		bf, cf := firstRole(br), firstRole(cr)
		if bf.flows != cf.flows {
			r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s role %s: %s in the baseline, %d in the run (the role's metrics are compared as they are)", name, role, plural.N(bf.flows, "flow"), cf.flows))
		}
		for _, m := range RoleMetrics {
			get := func(s *roleStats) sideValue {
				if s == nil {
					return sideValue{absent: "a repetition has no flows of the role"}
				}
				x, why := m.role(s)
				return sideValue{v: x, absent: why}
			}
			r.addMetric(Finding{Variant: name, Scope: ScopeRole, Role: role, Flows: cf.flows, Source: Origin(cf.source, v.Model())}, m, tol, poolValues(br, get), poolValues(cr, get))
		}
	}
	for _, role := range curOrder {
		if baseRoles[role] == nil {
			flows := firstRole(curRoles[role]).flows
			r.Findings = append(r.Findings, Finding{Kind: FindingRoleNotInBaseline, Scope: ScopeRole, Variant: name, Role: role, Flows: flows, Regression: true,
				Detail: fmt.Sprintf("the run has %d %s %s, the baseline none, so nothing checked them: save a baseline of the same traffic", flows, role, plural.Noun(flows, "flow"))})
		}
	}

	bps, cps := portSides(bvs), portSides(vs)
	for _, k := range congestedPorts(slices.Concat(bps, cps)...) {
		prio := k.Priority
		src := origin
		for _, cp := range cps {
			if c := cp.rows[k]; c != nil {
				src = Origin(c.Source, v.Model())
				break
			}
		}
		for _, m := range PortMetrics {
			get := func(s *portSide) sideValue {
				x, why := m.port(s, k)
				return sideValue{v: x, absent: why}
			}
			b, c := poolValues(bps, get), poolValues(cps, get)
			if r.absentAcrossTransports(name, k.Node+" "+k.Port, m.Name, bt, ct, b, c) {
				continue
			}
			r.addMetric(Finding{Variant: name, Scope: ScopePort, Node: k.Node, Port: k.Port, Priority: &prio, Source: src}, m, tol, b, c)
		}
	}
	r.compareNCCL(name, bvs, vs, tol)
	// A live variant's simulated twin (the variant simulated with the
	// configs read back from the switches) holds what a virtual data
	// plane never produces: pauses, marks, CNPs and the queues the
	// configs shape. Compared as a variant of its own, so that a config
	// change that hurts RoCE regresses on a live lab as it does in the
	// simulator, where the measured counters read 0 on both sides.
	switch bt, ct := twins(bvs), twins(vs); {
	case bt != nil && ct != nil:
		r.compareVariant(name+TwinSuffix, bt, ct, tol)
	case bt != nil:
		r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s: the baseline has a simulated twin and the run none that finished, so the twin's figures (pauses, marks, CNPs, queues) were not compared", name))
	}
}

// TwinSuffix names the findings of a live variant's simulated twin:
// "ecn=on,pfc=on (simulated twin)".
const TwinSuffix = " (simulated twin)"

// twins are the simulated twins of a point's live variants as variants of
// their own, or nil when one has none (a simulated run, a twin that
// failed).
func twins(vs []*Variant) []*Variant {
	out := make([]*Variant, 0, len(vs))
	for _, v := range vs {
		sp := v.Simulated
		if sp == nil || sp.Error != "" {
			return nil
		}
		t := &Variant{Name: v.Name, Repetition: v.Repetition, ECN: v.ECN, PFC: v.PFC, Params: v.Params,
			Summary: sp.Summary, Flows: sp.Flows, Counters: sp.Counters, Extra: sp.Extra}
		if t.Summary.Source == "" {
			t.Summary.Source = Simulated
		}
		out = append(out, t)
	}
	return out
}

// rolesOf groups the flows of each of a point's variants by role: for
// each role, its stats in every variant (nil in one without such flows),
// and the roles in the order they first appear.
func rolesOf(vs []*Variant) (map[string][]*roleStats, []string) {
	out := map[string][]*roleStats{}
	var order []string
	for i, v := range vs {
		rs, o := roles(v)
		for _, role := range o {
			if out[role] == nil {
				out[role] = make([]*roleStats, len(vs))
				order = append(order, role)
			}
			out[role][i] = rs[role]
		}
	}
	return out, order
}

// firstRole is the first variant's stats of a role that has some.
func firstRole(rs []*roleStats) *roleStats {
	for _, s := range rs {
		if s != nil {
			return s
		}
	}
	return nil
}

func portSides(vs []*Variant) []*portSide {
	out := make([]*portSide, len(vs))
	for i, v := range vs {
		out[i] = newPortSide(v)
	}
	return out
}

// poolValues is one side's value of a metric over a point's repetitions:
// their mean, with their spread (largest less smallest), so that the
// noise between seeds the baseline's repetitions show is allowed; absent
// when any repetition lacks the metric. One variant is its own value.
func poolValues[T any](xs []T, get func(T) sideValue) sideValue {
	if len(xs) == 1 {
		return get(xs[0])
	}
	var absent sideValue
	mean, lo, hi, ok := meanRange(xs, func(x T) (float64, bool) {
		sv := get(x)
		absent = sv
		return sv.v, sv.absent == ""
	})
	if !ok {
		return absent
	}
	return sideValue{v: mean, spread: hi - lo}
}

// transportOf is a variant's transport's name (roce for a record with
// none).
// absentAcrossTransports takes a metric one side of a variant lacks where
// the two sides ran different transports (a transport's own figure, PFC's
// counters on InfiniBand): not a figure that went missing, so it is listed
// as not compared, once per variant and metric, rather than flagged.
func (r *Report) absentAcrossTransports(variant, where, metric, bt, ct string, b, c sideValue) bool {
	if bt == ct || b.absent == "" && c.absent == "" {
		return false
	}
	if b.absent == "" || c.absent == "" {
		nc := NotComputedMetric{Variant: variant, Metric: metric, Reason: fmt.Sprintf("not compared: the baseline ran %s and the run %s, and only one of them has it", bt, ct)}
		if !slices.Contains(r.NotComputed, nc) {
			r.NotComputed = append(r.NotComputed, nc)
		}
	}
	return true
}

// acrossTransports says why a summary metric is not compared between a
// baseline variant that ran transport bt and a run's that ran ct ("" when
// it is): one of them has no such figure (TransportLacks: InfiniBand's
// pauses, UET's CNPs), or counts something else under its name
// (InfiniBand's ECN marks and CNPs are its FECN marks and BECNs).
func acrossTransports(bt, ct, metric string) string {
	if bt == ct {
		return ""
	}
	for _, t := range []string{bt, ct} {
		if why := TransportLacks(t)[metric]; why != "" {
			return fmt.Sprintf("not compared: the baseline ran %s and the run %s, and %s", bt, ct, strings.TrimPrefix(why, "not computed: "))
		}
	}
	if (bt == transport.InfiniBand) != (ct == transport.InfiniBand) && (metric == "ecn_marked" || metric == "cnp") {
		return fmt.Sprintf("not compared: the baseline ran %s and the run %s, and InfiniBand counts its FECN marks and BECNs there", bt, ct)
	}
	return ""
}

func transportOf(v *Variant) string {
	if v.Transport == nil {
		return transport.RoCE
	}
	return v.Transport.Name
}

// sideValue is one side's value of a metric, or why it has none. Over a
// point's repetitions (poolValues), v is their mean and spread how far
// apart they are.
type sideValue struct {
	v      float64
	absent string
	spread float64
}

// addMetric compares one metric at the place at (a Finding with variant,
// scope and place filled in) and adds the finding: a comparison when both
// sides have the value, FindingAbsent when one lacks it, nothing when both
// do or its tolerance is off.
func (r *Report) addMetric(at Finding, m Metric, tol Tolerances, base, cur sideValue) {
	t := tol.of(m, at.Role)
	if t.Disabled {
		return
	}
	if base.absent != "" && cur.absent != "" {
		// Only the figures the record lists as not computed are listed: a
		// transport's figures on another transport's variant, a NIC port's
		// queue depth, the completion time of flows without a size are
		// absent by what the traffic is, on every record.
		if r.notComputedWhy[cur.absent] {
			r.NotComputed = append(r.NotComputed, NotComputedMetric{Variant: at.Variant, Metric: m.Name, Role: at.Role, Reason: cur.absent})
		}
		return
	}
	at.Metric, at.Direction, at.Tolerance, at.Unit = m.Name, m.Direction, t.String(), m.Unit
	switch {
	case cur.absent != "":
		at.Kind, at.Absent, at.Baseline, at.Regression, at.why = FindingAbsent, AbsentInRun, base.v, true, cur.absent
		at.Detail = "the baseline has " + fmtValue(base.v, m.Unit) + ", the run has none: " + cur.absent
	case base.absent != "":
		at.Kind, at.Absent, at.Current, at.why = FindingAbsent, AbsentInBaseline, cur.v, base.absent
		at.Detail = "the run has " + fmtValue(cur.v, m.Unit) + ", the baseline none to compare with: " + base.absent
	default:
		// Repetitions that ran with other seeds spread by base.spread and
		// cur.spread: a difference of means within the wider of the two
		// is noise, not a change. The run's counts as the baseline's
		// does: where a figure has two modes (a victim the hash places
		// on the incast's path at some seeds, a lossy incast's fairness
		// from 0.3 to 0.93 by seed), a few repetitions may all land in
		// one mode on one side, and the side with a repetition in each
		// shows the spread the other missed. Not where the baseline
		// holds one value at every seed (no failed flow, no drop): that
		// is what the configs do, not noise, and a run that departs from
		// it in one repetition has changed.
		wide := base.spread
		if base.spread > 0 {
			wide = max(base.spread, cur.spread)
		}
		at = compareMetric(at, t, base.v, cur.v, wide)
		// A port's figure where the flows went elsewhere follows the
		// placement, not a fault: not flagged.
		movedPort := r.elsewhere && at.Scope == ScopePort && !(egressFigure(m.Name) && r.samePlacement[at.Node+"\x00"+at.Port])
		if cur.spread > base.spread && !at.Regression && !movedPort && compareMetric(at, t, base.v, cur.v, base.spread).Regression {
			at.WidenedByRun = true
		}
		if wide > math.Max(t.Rel*math.Abs(base.v), t.Abs) {
			side := "baseline's"
			if cur.spread > base.spread {
				side = "run's"
			}
			at.Tolerance += ", widened to the spread of the " + side + " repetitions"
		}
		if movedPort && (at.Regression || at.Better) {
			at.Regression, at.Better, at.Elsewhere = false, false, true
		}
	}
	r.Findings = append(r.Findings, at)
}

// tally counts the regressions and the comparisons by scope and outcome.
func (r *Report) tally() {
	roles, ports, sizes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, f := range r.Findings {
		if f.Regression {
			r.Regressions++
		}
		if f.Kind == FindingAssertionFailed {
			r.FailedAssertions++
		}
		switch f.Kind {
		case FindingAbsent:
			if f.Absent == AbsentInRun {
				r.Compared.AbsentInRun++
			} else {
				r.Compared.AbsentInBaseline++
			}
			continue
		case FindingMetric:
		default:
			continue
		}
		r.Compared.Metrics++
		switch f.Scope {
		case ScopeSummary:
			r.Compared.Summary++
		case ScopeRole:
			r.Compared.Role++
			roles[f.Variant+"\x00"+f.Role] = true
		case ScopePort:
			r.Compared.Port++
			ports[f.Variant+"\x00"+f.place()] = true
		case ScopeNCCL:
			r.Compared.NCCL++
			if f.SizeBytes != nil {
				sizes[f.Variant+"\x00"+f.place()] = true
			}
		}
		switch {
		case f.Regression:
			r.Compared.Worse++
		case f.Elsewhere:
			r.Compared.Elsewhere++
		case f.Better:
			r.Compared.Better++
		case f.Delta != 0:
			r.Compared.Moved++
		default:
			r.Compared.Unchanged++
		}
	}
	r.Compared.Roles, r.Compared.Ports, r.Compared.NCCLSizes = len(roles), len(ports), len(sizes)
	r.Regressed = r.Regressions > 0
	switch {
	case r.Regressed:
		r.Verdict = VerdictRegressed
	case r.FailedAssertions > 0:
		r.Verdict = VerdictFailed
	default:
		r.Verdict = VerdictOK
	}
}

// pointKey identifies a variant for matching: its full name (ECN, PFC and
// every swept value) and repetition.
func pointKey(v *Variant) string { return fmt.Sprintf("%s\x00%d", v.Name, v.Repetition) }

// pathsByTiming says that the variant's flows take paths chosen as the run
// goes, a whole flow at a time: flowlets (lb.mode flowlet), each moving a
// flow to a random link after an idle gap. An edit that shifts the flows'
// timing moves them between links as another seed would, so a port's
// figure follows where they went (Finding.Elsewhere): on 64gpu's
// lb-compare a WRED probability of 22% for 20%, five repetitions a side,
// moved 16 port figures of the flowlet variants beyond tolerance and none
// of the others'. Spraying and adaptive routing spread every flow over
// every link, so a port's load does not hang on where one flow went, and
// their ports' figures stay compared (none moved; a harmful Kmin showed
// in the flowlet variants' ports and ECMP's).
func pathsByTiming(v *Variant) bool {
	return v.Params[ParamLBMode] == "flowlet"
}

// flowsMovedByEdit says that a point's port figures follow where its
// flows went, as between seeds, because the inputs changed and a side's
// paths are chosen as the run goes (pathsByTiming): for points compared
// one to one (Compare) and pooled (planComparison) alike.
func flowsMovedByEdit(inputsChanged bool, base, run *Variant) bool {
	return inputsChanged && (pathsByTiming(base) || pathsByTiming(run))
}

// widenedByRun is the warning for the figures within tolerance only by the
// run's own spread (Finding.WidenedByRun), which a fault that hits some
// seeds of the run and not others produces, and a figure with two modes
// too: not regressions, but named, so that one bad repetition of five is
// not hidden without a word.
func widenedByRun(fs []Finding) []string {
	var places []string
	n := 0
	for _, f := range fs {
		if !f.WidenedByRun {
			continue
		}
		n++
		if len(places) < 4 {
			p := f.place()
			if f.Scope == ScopeSummary || p == "" {
				p = ""
			} else {
				p += " "
			}
			places = append(places, fmt.Sprintf("%s %s%s %s", f.Variant, p, f.Metric, fmtDelta(f)))
		}
	}
	if n == 0 {
		return nil
	}
	if n > len(places) {
		places = append(places, "...")
	}
	return []string{fmt.Sprintf("%s within tolerance only because the run's repetitions spread wider than the baseline's (compared with the baseline's spread they would regress): a figure with two modes across seeds does this with nothing changed, and so does a fault that hits some seeds only; look at the run's repetitions one by one, or compare more of them (labctl run --repetitions 10): %s",
		plural.N(n, "figure")+map[bool]string{true: " is", false: " are"}[n == 1], strings.Join(places, "; "))}
}

// extraRepetitions is the warning for the repetitions of points that
// side ran more times than other: "not compared figure by figure: 8
// repetitions the run has of points the baseline ran fewer times (ecn=on,
// pfc=on #2, ...); the repetitions both have were compared one to one
// ...: to compare them all, run both with as many repetitions".
func extraRepetitions(reps []*Variant, side, other string) []string {
	if len(reps) == 0 {
		return nil
	}
	labels := make([]string, 0, min(len(reps), 4))
	for _, v := range reps[:min(len(reps), 4)] {
		labels = append(labels, v.Label())
	}
	if len(reps) > 4 {
		labels = append(labels, "...")
	}
	checked := ", and these were checked for errors and for assertions that held in the baseline"
	if side == "baseline" {
		checked = ""
	}
	return []string{fmt.Sprintf("not compared figure by figure: %s the %s has of points the %s ran fewer times (%s); the repetitions both have were compared one to one%s: to compare them all, run both with as many repetitions (labctl run --repetitions N)",
		plural.N(len(reps), "repetition"), side, other, strings.Join(labels, ", "), checked)}
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

// compareMetric compares base and cur under tolerance t, allowing at
// least floor, and fills f (which holds the metric, its place and its
// direction).
func compareMetric(f Finding, t Tolerance, base, cur, floor float64) Finding {
	f.Kind, f.Baseline, f.Current, f.Delta = FindingMetric, base, cur, cur-base
	f.Tolerance = t.String()
	if base != 0 {
		p := (cur - base) / math.Abs(base) * 100
		f.DeltaPct = &p
	}
	f.Allowed = max(t.Rel*math.Abs(base), t.Abs, floor)
	// A small epsilon keeps float noise (193.20000001) from tripping a
	// zero tolerance.
	eps := 1e-9 * math.Max(1, math.Abs(base))
	if wholeCount(f) && base == math.Trunc(base) && cur == math.Trunc(cur) {
		// Counts move by whole frames, packets or flows: 20% of 28627
		// pause frames allows 5725 more, not 5725.4 (the same verdict for
		// a whole change, said as a count). Means over repetitions move
		// by fractions, and rounding their allowance down would flag a
		// change within tolerance: they keep it whole.
		f.Allowed = math.Floor(f.Allowed + eps)
	}
	if math.Abs(f.Delta) <= eps {
		f.Delta = 0
	}
	switch f.Direction {
	case LowerIsWorse:
		f.Regression = base-cur > f.Allowed+eps
		f.Better = cur-base > f.Allowed+eps
	case HigherIsWorse:
		f.Regression = cur-base > f.Allowed+eps
		f.Better = base-cur > f.Allowed+eps
	case EitherWay:
		f.Regression = math.Abs(cur-base) > f.Allowed+eps
	}
	return f
}

// wholeCount says the finding's metric counts things (frames, packets,
// flows): every figure without a unit but the flows' fairness.
func wholeCount(f Finding) bool {
	return f.Unit == "" && f.Metric != "jain_fairness"
}

// place names where a finding is within its variant: "summary", "role
// incast", "port leaf1 Ethernet0 priority 3", or "" for the variant.
func (f Finding) place() string {
	switch f.Scope {
	case ScopeSummary:
		return "summary"
	case ScopeRole:
		return "role " + f.Role
	case ScopePort:
		p := 0
		if f.Priority != nil {
			p = *f.Priority
		}
		return "port " + portKey{f.Node, f.Port, p}.String()
	case ScopeNCCL:
		return ncclPlace(f)
	}
	return ""
}

func fmtDelta(f Finding) string {
	s := fmtValue(f.Baseline, f.Unit) + " -> " + fmtValue(f.Current, f.Unit)
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

// fmtValue prints a value with its unit: bytes in KiB and MiB.
func fmtValue(v float64, unit string) string {
	switch unit {
	case "":
		return fmtFloat(v)
	case "bytes":
		return fmtBytes(v)
	}
	return fmtFloat(v) + " " + unit
}

// fmtBytes prints a byte count as a person reads it: 4096 B, 48 KiB,
// 1.1 MiB (three significant digits).
func fmtBytes(v float64) string {
	a := math.Abs(v)
	units := []string{"B", "KiB", "MiB", "GiB"}
	i := 0
	for a >= 1024 && i < len(units)-1 {
		a /= 1024
		v /= 1024
		i++
	}
	if i == 0 {
		return fmtFloat(v) + " B"
	}
	s := strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(a)))), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + " " + units[i]
}

// fmtAllowed prints the tolerance band in the metric's worse direction.
func fmtAllowed(f Finding) string {
	sign := map[Direction]string{LowerIsWorse: "-", HigherIsWorse: "+", EitherWay: "±"}[f.Direction]
	return sign + fmtValue(f.Allowed, f.Unit)
}

// toleranceWords writes a tolerance of a metric in unit as the text
// output reads it: the syntax's "25%+32768" (Tolerance.String, as
// --tolerance takes it) is the larger of the two, not their sum, so it
// says "the larger of 25% and 32 KiB", the floor in the unit the figures
// beside it are in; what follows the tolerance (a widening to the
// repetitions' spread) is kept.
func toleranceWords(tol, unit string) string {
	head, rest, _ := strings.Cut(tol, ",")
	rel, abs, ok := strings.Cut(head, "%+")
	if !ok {
		return tol
	}
	if v, err := strconv.ParseFloat(abs, 64); err == nil {
		abs = fmtValue(v, unit)
	}
	out := "the larger of " + rel + "% and " + abs
	if rest != "" {
		out += "," + rest
	}
	return out
}

// line is a finding without its variant and place, as the grouped text
// output prints it under them.
func (f Finding) line() string {
	switch f.Kind {
	case FindingMetric:
		return fmt.Sprintf("%s: %s, allowed %s (%s, %s)", f.Metric, fmtDelta(f), fmtAllowed(f), toleranceWords(f.Tolerance, f.Unit), f.Direction)
	case FindingAbsent:
		return fmt.Sprintf("%s: %s", f.Metric, f.Detail)
	case FindingAssertion, FindingAssertionFailed:
		return fmt.Sprintf("assertion %q: %s", f.Metric, f.Detail)
	}
	return f.Detail
}

// describe is a finding on one line, with its variant and place.
func (f Finding) describe() string {
	where := f.Variant
	if p := f.place(); p != "" && f.Scope != ScopeSummary {
		where += " " + p
	}
	return where + " " + f.line()
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteJUnit writes one testcase per compared metric (classname
// <scenario>.<variant>, name regress:<metric> for the summary's,
// "regress:<metric> <role>" for a role's, "regress:<metric> <node>
// <port> priority <p>" for a port's), a skipped one per metric the
// baseline lacks, and cases for missing variants and roles, variant
// errors and assertions that regressed.
func (r Report) WriteJUnit(w io.Writer) error {
	suite := JUnitSuite{Name: xmlSafe("regress " + r.RunID + " vs " + r.BaselineRunID), Time: "0",
		Properties: []JUnitProperty{{Name: "run_id", Value: xmlSafe(r.RunID)}, {Name: "baseline_run_id", Value: xmlSafe(r.BaselineRunID)},
			{Name: "run_status", Value: xmlSafe(r.RunStatus)}, {Name: "baseline_status", Value: xmlSafe(r.BaselineStatus)}, {Name: "verdict", Value: xmlSafe(r.Verdict)},
			{Name: "config_changed", Value: strconv.FormatBool(r.ConfigChanged)},
			{Name: "basis", Value: xmlSafe(r.Basis.How)}, {Name: "confidence", Value: xmlSafe(r.Basis.Confidence)}, {Name: "compared", Value: xmlSafe(r.Basis.Text)}}}
	if next := r.nextStep(); next != "" {
		suite.Properties = append(suite.Properties, JUnitProperty{Name: "next", Value: xmlSafe(next)})
	}
	for _, t := range r.Tolerances {
		suite.Properties = append(suite.Properties, JUnitProperty{Name: xmlSafe("tolerance " + t.Metric), Value: xmlSafe(t.Tolerance + " (" + t.From + ")")})
	}
	for _, f := range r.Findings {
		name := "regress:" + f.Metric
		switch f.Kind {
		case FindingMetric, FindingAbsent:
			switch f.Scope {
			case ScopeRole:
				name += " " + f.Role
			case ScopePort:
				name += " " + strings.TrimPrefix(f.place(), "port ")
			case ScopeNCCL:
				name += " " + strings.TrimPrefix(f.place(), "nccl-tests ")
			}
		case FindingMissingVariant:
			name = "regress:variant present"
		case FindingNotInBaseline:
			name = "regress:variant in baseline"
		case FindingMissingRole:
			name = "regress:role present " + f.Role
		case FindingRoleNotInBaseline:
			name = "regress:role in baseline " + f.Role
		case FindingNoVariants:
			name = "regress:run has variants"
		case FindingUnfinished:
			name = "regress:run finished"
		case FindingVariantError:
			name = "regress:variant completed"
		case FindingAssertion, FindingAssertionFailed:
			name = "regress:assertion " + f.Metric
		case FindingNCCLMismatch:
			name = "regress:nccl-tests collective"
		case FindingNoMatch:
			name = "regress:variants match"
		case FindingLint:
			name = "regress:lint " + f.Metric
			if f.Node != "" {
				name += " " + f.Node
			}
			if f.Port != "" {
				name += " " + f.Port
			}
		}
		c := JUnitCase{ClassName: junitClass(r.Scenario, f.Variant), Name: xmlSafe(name), Time: "0"}
		switch {
		case f.Regression:
			c.Failure = &JUnitProblem{Message: xmlSafe(f.describe()), Type: "regression", Text: xmlSafe(f.describe())}
		case f.Kind == FindingAssertionFailed:
			c.Failure = &JUnitProblem{Message: xmlSafe(f.describe()), Type: "assertion failed", Text: xmlSafe(f.describe())}
		case f.Kind == FindingAbsent:
			c.Skipped = &JUnitSkipped{Message: xmlSafe(f.describe())}
		default:
			c.SystemOut = xmlSafe(f.describe())
		}
		suite.add(c)
	}
	// What neither side holds (the model computes no such figure) is a
	// skipped case with why, so a JUnit reader sees it was not checked.
	for _, m := range r.NotComputed {
		name := "regress:" + m.Metric
		if m.Role != "" {
			name += " " + m.Role
		}
		suite.add(JUnitCase{ClassName: junitClass(r.Scenario, m.Variant), Name: xmlSafe(name), Time: "0",
			Skipped: &JUnitSkipped{Message: xmlSafe(notComparedHeading([]NotComputedMetric{m}) + ": " + m.Reason)}})
	}
	return writeJUnit(w, suite)
}

// BaselinesDir is where named baselines live: results/baselines.
func (s *Store) BaselinesDir() string { return filepath.Join(s.dir, "baselines") }

// SaveBaseline copies the run record of ref (a run id, prefix or "latest")
// to results/baselines/<name>.json and returns the file's path. Baselines
// are committed to the repository, so later runs compare against them.
func SaveBaseline(s *Store, ref, name string) (string, error) {
	return SaveBaselineFiltered(s, ref, name, Filter{}, false)
}

// BaselineNote is what to know of a baseline just saved, "" when
// nothing: a simulated baseline that runs each point once compares a run
// after a config edit one sample a side, where the edit's timing shift
// alone can read as a regression (Basis.Next).
func BaselineNote(run *Run) string {
	if run.Imported != nil || measured(run) || maxRepetitions(run) > 1 {
		return ""
	}
	return fmt.Sprintf("the baseline runs each point once, so a run after a config edit is compared with it one sample a side, where the timing shift an edit causes can read as a regression; to compare edits as samples, save a run made with repetitions (labctl run %s --lab %s --seed %d --repetitions 5) and run the edits the same way", run.ScenarioArg(), run.Lab, run.Seed)
}

// maxBaselineName is the longest baseline name: file systems take names
// of 255 bytes, and a name is a file's with ".json" added.
const maxBaselineName = 200

// SaveBaselineFiltered is SaveBaseline with "latest" narrowed by f, and an
// existing baseline of that name replaced only when force is set (baselines
// are committed files: replacing one silently would lose a reference).
func SaveBaselineFiltered(s *Store, ref, name string, f Filter, force bool) (string, error) {
	if !naming.Valid(name, 0) {
		return "", exitcode.Usagef("baseline name %q: use lowercase letters, digits and dashes, starting with a letter or digit (for example ecn-pfc-64gpu)", name)
	}
	if len(name) > maxBaselineName {
		return "", exitcode.Usagef("baseline name of %d characters: use at most %d (the name is a file's, results/baselines/<name>.json)", len(name), maxBaselineName)
	}
	if name == "latest" {
		// --baseline latest means the latest run; a baseline of that name
		// would be found first and stand for it silently.
		return "", exitcode.Usagef("baseline name \"latest\" is taken: --baseline latest names the latest run (fix: choose another name, such as latest-good)")
	}
	run, err := s.Find(ref, f)
	if err != nil {
		return "", err
	}
	if err := baselineWorthy(run, "save it"); err != nil {
		return "", exitcode.Usagef("save baseline %s: %v", name, err)
	}
	if !force {
		if err := baselineFailed(run, fmt.Sprintf("fix the configs or the scenario and save a run that passes, or add --force to save this one as it is, its failures included: labctl regress --save-baseline %s %s --force", run.RunID, name)); err != nil {
			return "", exitcode.Usagef("save baseline %s: %v", name, err)
		}
	}
	if err := CheckComparable(s.RunFile(run.RunID), run); err != nil {
		return "", err
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
	data, err := jsonindent.Marshal(ForBaseline(run))
	if err != nil {
		return "", fmt.Errorf("save baseline %s: %w", name, err)
	}
	if err := WriteFileAtomic(path, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("save baseline %s: %w", name, exitcode.WriteFailed(path, err))
	}
	return path, nil
}

// OmittedSeries and OmittedCost are Run.Omitted's names for the variants'
// time series and what they cost.
const (
	OmittedSeries = "variants.series"
	OmittedCost   = "variants.cost"
)

// ForBaseline is the copy of run a baseline file keeps: everything Compare
// reads (summaries, flows, counters, assertions, names and parameters) and
// the small context a person looks at (NIC settings, timeline, config
// changes, extras), without the variants' time series, which are most of
// a packet-level record (the 10 µs samples of ecn-pfc on 64gpu are 2.55 of
// its 2.75 MB), and without their cost, whose measured wall times would
// make a baseline saved again from equal results differ: Compare reads
// neither. Run.Omitted says so.
func ForBaseline(run *Run) *Run {
	c := *run
	c.Variants = make([]Variant, len(run.Variants))
	series, cost := false, false
	for i, v := range run.Variants {
		series = series || len(v.Series) > 0
		cost = cost || v.Cost != nil || (v.Simulated != nil && v.Simulated.Cost != nil)
		v.Series, v.SeriesEndUs = nil, 0
		c.Variants[i] = v.WithoutCost()
	}
	omit := func(part string, dropped bool) {
		if dropped && !slices.Contains(c.Omitted, part) {
			c.Omitted = append(slices.Clone(c.Omitted), part)
		}
	}
	omit(OmittedSeries, series)
	omit(OmittedCost, cost)
	return &c
}

// baselineWorthy refuses a run that cannot serve as a baseline: one still
// running, one that stopped before its last variant (a baseline must hold
// every variant later runs have), or one whose variants hold errors
// instead of metrics. use says what the caller does with it ("save it",
// "compare with it"), for the fix.
func baselineWorthy(run *Run, use string) error {
	switch run.Status {
	case StatusRunning:
		return fmt.Errorf("run %s is still running (fix: wait for it to finish, then %s)", run.RunID, use)
	case StatusAbandoned, StatusInterrupted:
		if allPlannedRan(run) {
			return fmt.Errorf("run %s was %s after its last variant finished but before its final assertions were checked and its status recorded (labctl up to 2026-12-07 recorded such a run interrupted; it now finishes it), so later runs could not be checked against all of them (fix: run the scenario again and use that run)", run.RunID, run.Status)
		}
		return fmt.Errorf("run %s was %s after %s, so later runs could not be checked against it (fix: use a run that finished every variant)", run.RunID, run.Status, plural.N(len(run.Variants), "variant"))
	}
	if len(run.Variants) == 0 {
		return fmt.Errorf("run %s has no variants to compare with (fix: use a run that finished every variant)", run.RunID)
	}
	if run.VariantsPlanned > len(run.Variants) {
		return fmt.Errorf("run %s has %d of its %d variants (fix: use a run that finished every variant)", run.RunID, len(run.Variants), run.VariantsPlanned)
	}
	for _, v := range run.Variants {
		if v.Error != "" {
			return fmt.Errorf("variant %s of run %s could not run (%s), so it has no metrics to compare with (fix: use a run whose variants all ran)", v.Name, run.RunID, v.Error)
		}
	}
	return nil
}

// baselineFailed refuses a run that failed its assertions as a baseline,
// unless it is meant (force): regress flags an assertion that passed in
// the baseline and fails now, so one the baseline already fails would
// never regress, and the baseline's failed checks would read as the
// reference. nil when the run did not fail.
func baselineFailed(run *Run, fix string) error {
	if run.Status != StatusFailed {
		return nil
	}
	var failed []string
	for _, v := range run.Variants {
		for _, a := range v.Assertions {
			if !a.Passed {
				failed = append(failed, fmt.Sprintf("%q [%s]", a.Name, v.Label()))
			}
		}
	}
	what := "failed"
	switch {
	case len(failed) > 3:
		what = fmt.Sprintf("failed %s (%s, ...)", plural.N(len(failed), "assertion"), strings.Join(failed[:3], ", "))
	case len(failed) > 0:
		what = fmt.Sprintf("failed %s (%s)", plural.N(len(failed), "assertion"), strings.Join(failed, ", "))
	case run.Error != "":
		what = "failed (" + run.Error + ")"
	}
	return fmt.Errorf("run %s %s: a baseline is what later runs are held to, and one that fails its assertions would let a run failing them too pass as no regression (fix: %s)", run.RunID, what, fix)
}

// allPlannedRan says every variant the run planned is in its record (a
// run interrupted after its last variant, as labctl recorded it before
// finishing such a run).
func allPlannedRan(run *Run) bool {
	return run.VariantsPlanned > 0 && len(run.Variants) >= run.VariantsPlanned
}

// LoadBaseline finds a baseline given as a file path, a baseline name
// (results/baselines/<name>.json), a run id or prefix, or "latest". A path
// wins when a file exists there; then a name; then a run.
func LoadBaseline(s *Store, ref string) (*Run, error) {
	run, _, err := loadBaseline(s, ref, Filter{})
	return run, err
}

// OpenBaseline is LoadBaseline for a comparison, with "latest" narrowed
// by f as the run's is: it refuses, as --save-baseline does, a record
// that cannot serve as a baseline (still running, interrupted or
// abandoned, short of variants, variants that failed to run), and a run
// that failed its assertions unless it was saved as a baseline (which
// takes --force for a failed run, so it is meant). Its errors are bad
// input (exit 2) and name the fix.
func OpenBaseline(s *Store, ref string, f Filter) (*Run, error) {
	run, saved, err := loadBaseline(s, ref, f)
	if err != nil {
		return nil, err
	}
	if err := baselineWorthy(run, "compare with it"); err != nil {
		return nil, exitcode.Usagef("baseline %s: %v", ref, err)
	}
	if !saved && run.Imported == nil {
		if err := baselineFailed(run, fmt.Sprintf("compare with a run that passes, or, if this one is meant to be the reference, save it as a baseline knowingly: labctl regress --save-baseline %s <name> --force", run.RunID)); err != nil {
			return nil, exitcode.Usagef("baseline %s: %v", ref, err)
		}
	}
	return run, nil
}

// loadBaseline is LoadBaseline with "latest" narrowed by f, and whether
// the record is a saved baseline (a name, or a file under
// results/baselines).
func loadBaseline(s *Store, ref string, f Filter) (*Run, bool, error) {
	if ref == "" {
		return nil, false, errors.New("no baseline given: name a run id, latest, a baseline name or a run.json file")
	}
	read := func(path string) (*Run, error) {
		run, err := ReadRunFileWithoutSeries(path)
		if err != nil {
			return nil, err
		}
		if err := CheckComparable(path, run); err != nil {
			return nil, err
		}
		return run, nil
	}
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		run, err := read(ref)
		return run, err == nil && inDir(s.BaselinesDir(), ref), err
	}
	if naming.Valid(ref, 0) {
		p := filepath.Join(s.BaselinesDir(), ref+".json")
		if _, err := os.Stat(p); err == nil {
			run, err := read(p)
			return run, err == nil, err
		}
	}
	run, err := s.FindWithoutSeries(ref, f)
	if err != nil {
		var nf *NotFoundError
		if errors.As(err, &nf) && len(nf.Ambiguous) == 0 && nf.Filter == "" {
			names := baselineNames(s)
			msg := fmt.Sprintf("baseline %q is not a file, a saved baseline or a run", ref)
			if len(names) > 0 {
				msg += "; saved baselines: " + strings.Join(names, ", ")
			}
			if len(nf.Recent) > 0 {
				msg += "; latest runs: " + strings.Join(nf.Recent, ", ")
			}
			return nil, false, &NotFoundError{Ref: ref, Recent: nf.Recent, msg: msg}
		}
		return nil, false, err
	}
	if err := CheckComparable(s.RunFile(run.RunID), run); err != nil {
		return nil, false, err
	}
	return run, false, nil
}

// inDir says whether path is a file directly in dir.
func inDir(dir, path string) bool {
	a, err1 := filepath.Abs(filepath.Dir(path))
	b, err2 := filepath.Abs(dir)
	return err1 == nil && err2 == nil && a == b
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

// appliedTolerances lists the overrides in tol by metric name.
func appliedTolerances(tol Tolerances) []AppliedTolerance {
	var out []AppliedTolerance
	for _, name := range slices.Sorted(maps.Keys(tol)) {
		out = append(out, AppliedTolerance{Metric: name, Tolerance: tol[name].String(), From: tol[name].From})
	}
	return out
}

// unmatchedRoleTolerances warns of a role's own tolerance (role[x].<metric>)
// naming a role neither record's flows have: a misspelt role would
// otherwise leave the figure at its general tolerance, unseen.
func unmatchedRoleTolerances(tol Tolerances, run, baseline *Run) []string {
	roles := map[string]bool{}
	for _, rec := range []*Run{run, baseline} {
		for _, v := range rec.Variants {
			for _, f := range v.Flows {
				roles[f.Role] = true
			}
		}
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(tol)) {
		role, _, ok := splitRoleScoped(name)
		if !ok || roles[role] {
			continue
		}
		out = append(out, fmt.Sprintf("tolerance %s (%s) names role %q, which no flow of either run has (their roles: %s): check its spelling", name, tol[name].From, role, strings.Join(slices.Sorted(maps.Keys(roles)), ", ")))
	}
	return out
}

// BaselineSummary is one saved baseline, as labctl results baselines
// lists it: its name, what it is a run of, and where it came from. Error
// says why a file there could not be read as a record.
type BaselineSummary struct {
	Name        string    `json:"name"`
	Path        string    `json:"path"`
	RunID       string    `json:"run_id,omitempty"`
	Scenario    string    `json:"scenario,omitempty"`
	Lab         string    `json:"lab,omitempty"`
	Seed        int64     `json:"seed"`
	Repetitions int       `json:"repetitions,omitempty"`
	Variants    int       `json:"variants"`
	Model       string    `json:"model,omitempty"`
	Saved       time.Time `json:"saved"`
	Error       string    `json:"error,omitempty"`
}

// ListBaselines lists the baselines saved under results/baselines, by
// name. A file that is not a readable record is listed with its error,
// not skipped: it still shadows a run id of its name.
func ListBaselines(s *Store) []BaselineSummary {
	out := []BaselineSummary{}
	for _, name := range baselineNames(s) {
		path := filepath.Join(s.BaselinesDir(), name+".json")
		b := BaselineSummary{Name: name, Path: path}
		if fi, err := os.Stat(path); err == nil {
			b.Saved = fi.ModTime().UTC().Truncate(time.Second)
		}
		run, err := ReadRunFileWithoutSeries(path)
		if err != nil {
			b.Error = err.Error()
			out = append(out, b)
			continue
		}
		b.RunID, b.Scenario, b.Lab, b.Seed, b.Variants = run.RunID, run.Scenario, run.Lab, run.Seed, len(run.Variants)
		b.Repetitions = maxRepetitions(run)
		if len(run.Variants) > 0 {
			b.Model = run.Variants[0].Model()
		}
		out = append(out, b)
	}
	return out
}
