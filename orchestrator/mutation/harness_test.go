package mutation_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	simrt "github.com/labctl/labctl/orchestrator/runtime/sim"
	"github.com/labctl/labctl/orchestrator/scenario"
)

// suiteScenario is the traffic every mutation runs: the catalog's
// mixed-classes (the ecn-pfc exercise, an 8:1 RoCE incast across the
// spine plus a victim, ECN and PFC each on and off, beside a 2:1
// best-effort incast on DSCP 0 onto the same receiver and best-effort
// pairs from the receiver's server back across the spine) shortened to
// 5 ms, enough for PFC to pause, ECN to mark and the lossy variant to
// drop. The best-effort incast competes with RoCE for the receiver's
// port, so a change to the scheduling or the queue maps that hands
// RoCE's share to other traffic (RoCE's weight cut to 1, a strict
// best-effort queue) moves the figures; the pairs share the CNPs' way
// back, so a CNP class or queue that loses its strict priority does too.
// With RoCE alone neither moved anything, and only lint caught them.
const suiteScenario = `name: mutation-suite
matrix:
  ecn: [on, off]
  pfc: [on, off]
duration: 5ms
warmup: 0ms
sample_every: 0
traffic:
  - pattern: incast
    senders: 8
    victim: true
    message_size: 64KiB
    qps: 1
    traffic_class: 106
    role: roce
  - pattern: incast
    senders: 2
    message_size: 64KiB
    qps: 1
    traffic_class: 0
    role: best-effort
  - pattern: pairs
    pairs: 2
    message_size: 64KiB
    qps: 1
    traffic_class: 0
    role: best-effort-back
`

// noStorm is why a harmful change to the PFC watchdog moves nothing in
// suiteScenario; such a change runs stormScenario too, where it must.
const noStorm = "the suite's traffic has no pause storm, so the watchdog never acts"

// endlessStorm is why a restoration time the storm cannot show: the stuck
// NIC pauses to the end, so no port is ever restored, at any time.
const endlessStorm = "the storm's NIC pauses to the end of the run, so its port is never restored at any restoration time"

// stormScenario is the catalog's pfc-storm with the watchdog as the
// configs have it (a stuck NIC, host1:0, pauses its switch port from
// 5 ms without end; the incast's victim shares the paused links),
// shortened to 300 ms: the configs' 200 ms detection and 100 ms polls
// declare the storm by about 223 ms, and the victim runs again in the
// 50 ms after the warmup. A watchdog that acts later, not at all, or
// forwards into the storm leaves the victim paused there.
const stormScenario = `name: mutation-suite-storm
matrix:
  ecn: [on]
  pfc: [on]
duration: 300ms
warmup: 250ms
sample_every: 0
traffic:
  - pattern: incast
    senders: 8
    victim: true
    message_size: 64KiB
    traffic_class: 106
    cross_leaf: false
faults:
  - kind: pfc-storm
    nic: host1:0
    at: 5ms
`

// TestSuiteTrafficIsMixedClasses: the suite runs the catalog's
// mixed-classes traffic and matrix, so what the suite proves a change
// moves is what a user regressing with that scenario sees.
func TestSuiteTrafficIsMixedClasses(t *testing.T) {
	suite, catalog := withCatalog(t, "mutation-suite.yaml", suiteScenario, "mixed-classes")
	if !reflect.DeepEqual(suite.Traffic, catalog.Traffic) {
		t.Errorf("the suite's traffic differs from mixed-classes':\n%+v\n%+v", suite.Traffic, catalog.Traffic)
	}
	sm, cm := suite.Matrix, catalog.Matrix
	if !reflect.DeepEqual(sm.ECN, cm.ECN) || !reflect.DeepEqual(sm.PFC, cm.PFC) || len(sm.Sweeps)+len(sm.Exclude)+len(cm.Sweeps)+len(cm.Exclude) > 0 {
		t.Errorf("the suite's matrix differs from mixed-classes': ecn %v pfc %v, ecn %v pfc %v (and neither sweeps nor excludes)", sm.ECN, sm.PFC, cm.ECN, cm.PFC)
	}
}

// TestStormIsPFCStorms: the storm the watchdog's changes run is the
// catalog's pfc-storm (its traffic and its stuck NIC), shortened, so what
// the suite proves of a watchdog change is what a user regressing with
// pfc-storm sees.
func TestStormIsPFCStorms(t *testing.T) {
	storm, catalog := withCatalog(t, "mutation-suite-storm.yaml", stormScenario, "pfc-storm")
	if !reflect.DeepEqual(storm.Traffic, catalog.Traffic) {
		t.Errorf("the storm's traffic differs from pfc-storm's:\n%+v\n%+v", storm.Traffic, catalog.Traffic)
	}
	if len(storm.Faults) != 1 || len(catalog.Faults) != 1 || !reflect.DeepEqual(storm.Faults[0], catalog.Faults[0]) {
		t.Errorf("the storm's faults differ from pfc-storm's:\n%+v\n%+v", storm.Faults, catalog.Faults)
	}
}

// withCatalog parses one of the suite's scenarios (file, text) and
// resolves the catalog scenario it is held to.
func withCatalog(t *testing.T, file, text, catalogName string) (own, catalog *scenario.Spec) {
	t.Helper()
	own, err := scenario.Parse(file, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if catalog, err = scenario.Resolve(catalogName); err != nil {
		t.Fatal(err)
	}
	return own, catalog
}

// mutation is one change of one field of a NOS's config tables.
type mutation struct {
	// field names the field as the NOS states it (qos.FieldUse.Name):
	// "WRED_PROFILE green_min_threshold", "interface qos trust <dscp|cos>".
	field string
	name  string
	// harmful: the change breaks or weakens RoCE on a real switch. Lint
	// must give an error or warning (rule, when set) naming the device,
	// the table or port and the fix.
	harmful bool
	rule    string
	// dataPlane: the change alters what the switch does to the suite's
	// traffic, so regress against the unchanged run must fail (or the
	// run refuse the configs); otherwise why says why the traffic does
	// not see it, and the figures must not move.
	dataPlane bool
	why       string
	// safe, for a field no value of which harms RoCE (a statement that
	// only turns something off that RoCE does not need), says why: its
	// benign mutations then cover it.
	safe string
	// noError, for a harmful change that leaves RoCE's traffic as it was
	// on a real switch (a setting that departs from the lab's intent but
	// carries nothing), says why: lint must warn, not err, as an error
	// fails lint and regress for a change the fabric does not feel.
	noError string
	// lintError: the change loses or slows RoCE's traffic where it runs,
	// so lint must give an error (of rule, when set), not a warning alone.
	lintError bool
	// stormWhy, for a harmful change to the PFC watchdog (why noStorm),
	// says why the storm does not show it either; its run of
	// stormScenario must then not move. Empty: that run must regress.
	stormWhy string
	// edit changes the lab's config files.
	edit func(t *testing.T, dir string)
}

// outcome is what lint, the simulator and regress made of a lab's configs.
type outcome struct {
	lint   []qos.Finding
	run    *results.Run
	runErr error
}

// suite is a lab brought up once in the simulator, whose configs each
// mutation changes in a copy of the lab's folder.
type suite struct {
	spec *lab.Spec
	nos  string
	base string // the unchanged lab's topologies folder
	ref  outcome
	sc   *scenario.Spec
	// storm and stormRef: stormScenario and the unchanged lab's outcome
	// of it, for the harmful changes to the PFC watchdog (noStorm).
	storm    *scenario.Spec
	stormRef outcome
}

func newSuite(t *testing.T, labName, nos string) *suite {
	t.Helper()
	spec, err := lab.Resolve(labName)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("mutation-suite.yaml", []byte(suiteScenario))
	if err != nil {
		t.Fatal(err)
	}
	storm, err := scenario.Parse("mutation-suite-storm.yaml", []byte(stormScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := &suite{spec: spec, nos: nos, base: t.TempDir(), sc: sc, storm: storm}
	l, err := runtime.NewLab(spec, s.base, nos)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.Up(context.Background(), simrt.New(), l, runtime.RenderStep); err != nil {
		t.Fatal(err)
	}
	s.ref = s.evaluate(t, s.base, s.sc)
	if s.ref.runErr != nil {
		t.Fatalf("the unchanged lab does not run: %v", s.ref.runErr)
	}
	s.stormRef = s.evaluate(t, s.base, s.storm)
	if s.stormRef.runErr != nil {
		t.Fatalf("the unchanged lab does not run the storm: %v", s.stormRef.runErr)
	}
	if qos.HasErrors(s.ref.lint) {
		t.Fatalf("the unchanged lab has lint errors: %+v", s.ref.lint)
	}
	return s
}

// copyLab makes a fresh copy of the unchanged lab's folder.
func (s *suite) copyLab(t *testing.T) string {
	t.Helper()
	return s.copyDir(t, s.base)
}

// copyDir makes a fresh copy of a lab's folder, src.
func (s *suite) copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func (s *suite) configsDir(topo string) string {
	return filepath.Join(topo, s.spec.Name, "configs")
}

// evaluate lints the lab's configs in topo and runs the suite's scenario
// on them.
func (s *suite) evaluate(t *testing.T, topo string, sc *scenario.Spec) outcome {
	t.Helper()
	l, in, out := s.lintRun(t, topo, sc)
	if out.runErr != nil {
		return out
	}
	run := out.run
	runner := &scenario.Runner{Runtime: simrt.New(), Lab: l, NICs: scenario.NICsFromGraph(l.Graph), MTU: in.MTU, Parallel: 2,
		Save: func(*results.Run) error { return nil }}
	out.runErr = runner.Run(context.Background(), sc, run)
	return out
}

// lintRun lints the lab's configs in topo and starts the record of a run
// of sc on them (no variant run yet): its switches' QoS and its lint,
// as labctl run records them, so regress compares the lint of the
// changed configs with the unchanged's. runErr: the configs do not load.
func (s *suite) lintRun(t *testing.T, topo string, sc *scenario.Spec) (*runtime.Lab, qos.Intent, outcome) {
	t.Helper()
	l, err := runtime.NewLab(s.spec, topo, s.nos)
	if err != nil {
		t.Fatal(err)
	}
	in, err := l.Intent()
	if err != nil {
		t.Fatal(err)
	}
	var out outcome
	cfgs, err := runtime.LoadConfigs(l)
	if err != nil {
		return l, in, outcome{runErr: err}
	}
	out.lint = qos.Lint(cfgs, runtime.LintOptions(l.Graph, in, l.Spec))
	out.run = &results.Run{RunID: "mutation", Lab: s.spec.Name, Scenario: sc.Name, Runtime: simrt.Name, NOS: s.nos, Seed: 1,
		Lint: results.NewLintSummary(out.lint)}
	for i := range cfgs {
		out.run.QoS = append(out.run.QoS, qos.Summarize(&cfgs[i]))
	}
	return l, in, out
}

// shiftLines moves every line of the lab's config files in dir one down,
// as a user's added comment or blank line does (EOS's "!", a line break
// after config_db's opening brace): the configs say what they said, at
// other lines.
func shiftLines(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(path) {
		case ".json":
			data = []byte(strings.Replace(string(data), "{", "{\n", 1))
		case ".cfg":
			data = append([]byte("!\n"), data...)
		default:
			continue
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// findingKey is what identifies a lint finding across runs.
func findingKey(f qos.Finding) string {
	return strings.Join([]string{f.Rule, string(f.Severity), f.Device, f.Port, f.Where, f.Message}, "\x00")
}

// problems are a lint's errors and warnings.
func problems(fs []qos.Finding) map[string]qos.Finding {
	out := map[string]qos.Finding{}
	for _, f := range fs {
		if f.Severity != qos.SevInfo {
			out[findingKey(f)] = f
		}
	}
	return out
}

// check applies m to a copy of the lab and checks what lint, the run and
// regress say.
func (s *suite) check(t *testing.T, m mutation) {
	t.Helper()
	topo := s.copyLab(t)
	m.edit(t, s.configsDir(topo))
	got := s.evaluate(t, topo, s.sc)
	before, after := problems(s.ref.lint), problems(got.lint)
	var added []qos.Finding
	for k, f := range after {
		if _, ok := before[k]; !ok {
			added = append(added, f)
		}
	}
	sort.Slice(added, func(i, j int) bool { return findingKey(added[i]) < findingKey(added[j]) })
	refused := got.runErr != nil && exitcode.Code(got.runErr) == exitcode.BadInput
	if got.runErr != nil && !refused {
		t.Fatalf("the run failed other than by refusing the configs: %v", got.runErr)
	}
	var report results.Report
	if !refused {
		report = results.Compare(got.run, s.ref.run, nil)
	}
	if !m.harmful {
		if len(added) > 0 || len(before) != len(after) {
			t.Errorf("benign change: lint's errors and warnings changed; new: %s", findingsText(added))
		}
		if refused {
			t.Errorf("benign change: the run refused the configs: %v", got.runErr)
			return
		}
		if moved := movedMetrics(report); len(moved) > 0 || report.Regressed {
			t.Errorf("benign change: the figures moved: %s", strings.Join(moved, "; "))
		}
		if fs := lintFindings(report); len(fs) > 0 {
			t.Errorf("benign change: regress gave new lint errors: %s", strings.Join(fs, "; "))
		}
		return
	}
	// Harmful: lint names it.
	named := slices.ContainsFunc(added, func(f qos.Finding) bool {
		return (m.rule == "" || f.Rule == m.rule) && f.Device != "" && (f.Port != "" || f.Where != "") && f.Fix != ""
	})
	if !named {
		want := "an error or warning"
		if m.rule != "" {
			want = m.rule
		}
		t.Errorf("harmful change: lint gave no %s naming device, table or port and fix; new findings: %s", want, findingsText(added))
	}
	if m.lintError && !slices.ContainsFunc(added, func(f qos.Finding) bool {
		return (m.rule == "" || f.Rule == m.rule) && f.Severity == qos.SevError
	}) {
		t.Errorf("the change harms RoCE's traffic, but lint gave no error %s; new findings: %s", m.rule, findingsText(added))
	}
	if m.noError != "" && qos.HasErrors(added) {
		t.Errorf("the change leaves RoCE's traffic as it was (%s), but lint gave errors: %s", m.noError, findingsText(added))
	}
	// Regress names each new lint error of the run's configs (the
	// unchanged lab's have none) by its rule at its switch.
	if !refused {
		for _, f := range added {
			if f.Severity == qos.SevError && !slices.ContainsFunc(report.Findings, func(rf results.Finding) bool {
				return rf.Kind == results.FindingLint && rf.Regression && rf.Metric == f.Rule && rf.Node == f.Device
			}) {
				t.Errorf("lint gave error %s at %s %s, but regress gave no lint finding of it; regress's lint findings: %s", f.Rule, f.Device, f.Port, strings.Join(lintFindings(report), "; "))
			}
		}
	}
	if m.lintError && !refused && !slices.ContainsFunc(report.Findings, func(f results.Finding) bool {
		return f.Kind == results.FindingLint && f.Regression && (m.rule == "" || f.Metric == m.rule)
	}) {
		t.Errorf("the change harms RoCE's traffic, but regress gave no new lint error %s; regress's lint findings: %s", m.rule, strings.Join(lintFindings(report), "; "))
	}
	if !refused && qos.HasErrors(added) {
		// The same changed configs with every line moved one down: their
		// lint errors are the same causes at other lines, none new.
		shifted := s.copyDir(t, topo)
		shiftLines(t, s.configsDir(shifted))
		_, _, moved := s.lintRun(t, shifted, s.sc)
		if moved.runErr != nil {
			t.Fatalf("the changed configs with their lines moved do not load: %v", moved.runErr)
		}
		if fs := lintFindings(results.Compare(moved.run, got.run, nil)); len(fs) > 0 {
			t.Errorf("regress of the changed configs with their lines moved one down against them gave new lint errors: %s", strings.Join(fs, "; "))
		}
	}
	switch {
	case m.dataPlane && !refused && !runRegressed(report):
		t.Errorf("harmful change to the data plane: regress passes against the unchanged run (moved: %s)", strings.Join(movedMetrics(report), "; "))
	case !m.dataPlane && (refused || len(movedMetrics(report)) > 0):
		t.Errorf("the change was taken not to reach the suite's traffic (%s), but the run moved: refused %v, %s", m.why, refused, strings.Join(movedMetrics(report), "; "))
	case m.dataPlane && !refused && len(report.ConfigChanges) == 0:
		t.Errorf("regress failed but named no QoS field that changed")
	}
	if m.why == noStorm && !refused {
		s.checkStorm(t, topo, m.stormWhy)
	}
}

// checkStorm: a harmful change to the PFC watchdog, which the suite's
// traffic never makes act, must fail regress of stormScenario against
// the unchanged lab's run of it, or, where why says why the storm does
// not show it, move nothing there.
func (s *suite) checkStorm(t *testing.T, topo, why string) {
	t.Helper()
	got := s.evaluate(t, topo, s.storm)
	if got.runErr != nil {
		if exitcode.Code(got.runErr) != exitcode.BadInput {
			t.Fatalf("the storm run failed other than by refusing the configs: %v", got.runErr)
		}
		return // refused: caught before the run
	}
	report := results.Compare(got.run, s.stormRef.run, nil)
	if why != "" {
		if moved := movedMetrics(report); len(moved) > 0 {
			t.Errorf("the change was taken not to show in a pause storm (%s), but the storm run moved: %s", why, strings.Join(moved, "; "))
		}
		return
	}
	if !runRegressed(report) {
		t.Errorf("harmful change to the PFC watchdog: regress of a pause storm passes against the unchanged run (moved: %s)", strings.Join(movedMetrics(report), "; "))
	}
}

// runRegressed says whether regress failed the run for what it did, not
// for its configs' lint alone (a lint error is lint's to name, and a change
// lint errs on must still move the run where it reaches the traffic).
func runRegressed(r results.Report) bool {
	return slices.ContainsFunc(r.Findings, func(f results.Finding) bool { return f.Regression && f.Kind != results.FindingLint })
}

// lintFindings are regress's new lint errors, as its report words them.
func lintFindings(r results.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Kind == results.FindingLint {
			out = append(out, f.Detail)
		}
	}
	return out
}

// movedMetrics lists the compared metrics whose value changed at all, and
// the run's other regressions; not its configs' new lint errors
// (lintFindings), which a change that does not reach the traffic has.
func movedMetrics(r results.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Kind == results.FindingMetric && f.Baseline != f.Current {
			out = append(out, fmt.Sprintf("%s %s %g -> %g", f.Variant, f.Metric, f.Baseline, f.Current))
		}
		if f.Kind != results.FindingMetric && f.Kind != results.FindingLint && f.Regression {
			out = append(out, f.Variant+": "+f.Detail)
		}
	}
	return out
}

func findingsText(fs []qos.Finding) string {
	if len(fs) == 0 {
		return "none"
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("[%s %s %s %s %s: %s]", f.Severity, f.Rule, f.Device, f.Port, f.Where, f.Message))
	}
	return strings.Join(parts, " ")
}

// coverage fails for a field the NOS states without a mutation, or a
// simulated or lint-checked field without a harmful one.
func coverage(t *testing.T, fields []qos.FieldUse, ms []mutation) {
	t.Helper()
	harmful, any := map[string]bool{}, map[string]bool{}
	for _, m := range ms {
		any[m.field] = true
		if m.harmful || m.safe != "" {
			harmful[m.field] = true
		}
	}
	names := map[string]bool{}
	for _, f := range fields {
		names[f.Name()] = true
		if !any[f.Name()] {
			t.Errorf("%s has no mutation", f.Name())
			continue
		}
		if (f.Use != qos.UseIgnored || f.Risk != "") && !harmful[f.Name()] {
			t.Errorf("%s (%s) has no harmful mutation (or, where no value can harm RoCE, a benign one saying why)", f.Name(), f.Use)
		}
	}
	for _, m := range ms {
		if !names[m.field] {
			t.Errorf("mutation %q names %q, which is no stated field", m.name, m.field)
		}
	}
}
