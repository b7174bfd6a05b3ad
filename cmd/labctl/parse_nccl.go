package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/naming"
	"github.com/labctl/labctl/orchestrator/nccltests"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/suggest"
)

// ncclTestsKind is the parse kind of nccl-tests' output.
const ncclTestsKind = "nccl-tests"

func parseNCCLTests(r io.Reader, opt parseOptions) (any, error) {
	return nccltests.Parse(r, nccltests.Options{Collective: opt.collective})
}

// ncclRecordFlags are parse's flags for making a run record of
// nccl-tests output.
type ncclRecordFlags struct {
	record, save  bool
	lab, scenario string
	variants      []string
}

// recordNCCLTests parses each file and prints (or, with --save, stores)
// a run record of them, one variant per file.
func recordNCCLTests(cmd *cobra.Command, app *App, files []string, opt parseOptions, rec ncclRecordFlags) error {
	if rec.lab == "" || rec.scenario == "" {
		return exitcode.Usagef("--record needs --lab and --scenario (fix: name the lab and the scenario whose runs the record is compared with, for example --lab 64gpu --scenario nccl-allreduce: labctl regress compares records of the same scenario and lab)")
	}
	names := rec.variants
	switch {
	case len(names) == 0 && len(files) == 1:
		names = []string{scenario.VariantName(true, true)}
	case len(names) != len(files):
		return exitcode.Usagef("%d files and %d --variant (fix: give one --variant per file, in the files' order, naming the scenario's variant each output measured, for example --variant 'ecn=on,pfc=on,traffic[0].algorithm=ring')", len(files), len(names))
	}
	labName, gpus, err := recordLab(rec.lab)
	if err != nil {
		return err
	}
	scName, sweep, points, err := recordScenario(rec.scenario)
	if err != nil {
		return err
	}
	// A name taken as given that is one typo from the catalog's: regress
	// matches records by these names, so say so now rather than there.
	labNames := make([]string, 0, len(lab.Catalog()))
	for _, s := range lab.Catalog() {
		labNames = append(labNames, s.Name)
	}
	for _, n := range []struct{ flag, what, arg string }{{"lab", "lab", rec.lab}, {"scenario", "scenario", rec.scenario}} {
		names := labNames
		if n.flag == "scenario" {
			names = ncclCatalogScenarios()
		}
		if slices.Contains(names, n.arg) || looksLikeFile(n.arg) {
			continue
		}
		if near := suggest.Nearest(n.arg, names); near != "" {
			fmt.Fprintf(app.Err, "labctl: note: --%s %s is no catalog %s and no file, so the record names it as given and labctl regress compares it only with runs of that name (did you mean %s?)\n", n.flag, n.arg, n.what, near)
		}
	}
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, Lab: labName, Scenario: scName, Runtime: "live", Status: results.StatusPassed,
		Sweep: sweep, Imported: &results.Imported{Tool: ncclTestsKind}, Variants: []results.Variant{},
	}
	// Every name is checked before any file is read.
	seen := map[string]string{}
	variants := make([]results.Variant, len(files))
	for i, file := range files {
		v, err := recordVariant(names[i], points)
		if err != nil {
			return err
		}
		if first, dup := seen[v.Name]; dup {
			return exitcode.Usagef("--variant %s is given for %s and %s (fix: give each file a variant of its own)", v.Name, first, file)
		}
		seen[v.Name] = file
		variants[i] = v
	}
	for i, file := range files {
		v := variants[i]
		t, name, err := parseFile(cmd, parseKinds()[ncclTestsKind], ncclTestsKind, file, opt)
		if err != nil {
			return err
		}
		table := t.(*results.NCCLTable)
		if gpus > 0 && table.Ranks != gpus {
			fmt.Fprintf(app.Err, "labctl: note: %s has %d ranks and lab %s %d GPUs: busbw compares across rank counts, but the fabric's load differs\n", name, table.Ranks, labName, gpus)
		}
		v.NCCL = table
		// A run whose data nccl-tests found wrong is a failed run, as a
		// variant labctl ran with an error is: its figures must not pass
		// for a clean run's, as a baseline that later runs are held to.
		if why := ncclTestsFailure(table); why != "" {
			v.Error = why
			run.Status = results.StatusFailed
			fmt.Fprintf(app.Err, "labctl: warning: %s: %s; the record's variant %s keeps this as its error and the record's status is failed\n", name, why, v.Name)
		}
		run.Variants = append(run.Variants, v)
		run.Imported.Files = append(run.Imported.Files, name)
	}
	// nccl-tests prints no time: the record's is when it was made. Its id
	// ends in -measured, so that it never reads as a run labctl made.
	now := time.Now().UTC()
	run.Started, run.Finished = now, &now
	idLab := run.Lab + "-measured"
	if !rec.save {
		run.RunID = results.FormatRunID(now, run.Scenario, idLab)
		return results.RenderJSON(run, app.Out)
	}
	store, err := openResults(app)
	if err != nil {
		return err
	}
	defer store.Close()
	id, lock, _, err := store.StartRun(now, run.Scenario, idLab)
	if err != nil {
		return err
	}
	defer lock.Release()
	run.RunID = id
	if err := store.SaveRun(run); err != nil {
		return err
	}
	if err := results.WriteRunReports(store.RunDir(id), run, ""); err != nil {
		return exitcode.Env(err)
	}
	fmt.Fprintf(app.Out, "saved run %s (%s): labctl report %s; labctl regress <run> --baseline %s\n", id, store.RunFile(id), id, id)
	return nil
}

// ncclTestsFailure says why the run of a table failed, in the words of a
// variant's error: nccl-tests found wrong values in its data (the trailer's
// "Out of bounds values : N FAILED"), in the results listed. "" when it
// did not.
func ncclTestsFailure(t *results.NCCLTable) string {
	if t.OutOfBounds == nil || *t.OutOfBounds == 0 {
		return ""
	}
	var at []string
	for _, r := range t.Rows {
		for _, h := range []struct {
			name string
			res  *results.NCCLResult
		}{{"out-of-place", &r.OutOfPlace}, {"in-place", r.InPlace}} {
			if h.res != nil && h.res.Wrong != nil && *h.res.Wrong > 0 {
				at = append(at, fmt.Sprintf("%d B %s #wrong %d", r.SizeBytes, h.name, *h.res.Wrong))
			}
		}
	}
	why := fmt.Sprintf("nccl-tests found wrong values in the data (\"Out of bounds values : %d FAILED\")", *t.OutOfBounds)
	const shown = 3
	switch {
	case len(at) > shown:
		why += fmt.Sprintf(": %s and %d more", strings.Join(at[:shown], ", "), len(at)-shown)
	case len(at) > 0:
		why += ": " + strings.Join(at, ", ")
	}
	return why
}

// recordLab resolves --lab: a catalog lab or a spec file gives its name
// and GPU count; any other name is the record's lab as given (a cluster
// labctl does not model), with no GPU count to check the ranks against.
func recordLab(arg string) (string, int, error) {
	catalog := slices.ContainsFunc(lab.Catalog(), func(s *lab.Spec) bool { return s.Name == arg })
	if catalog || looksLikeFile(arg) {
		s, err := lab.Resolve(arg)
		if err != nil {
			return "", 0, err
		}
		return s.Name, s.Sizing.GPUs, nil
	}
	if !naming.Valid(arg, 0) {
		return "", 0, exitcode.Usagef("--lab %q is not a lab name (fix: name a catalog lab, a lab spec file, or the lab's name in lowercase letters, digits and dashes)", arg)
	}
	return arg, 0, nil
}

// recordScenario resolves --scenario: a catalog scenario or a file gives
// its name, its sweep and the names of its variants (which the record's
// must be among); any other name is taken as it is.
func recordScenario(arg string) (string, []results.SweepDim, []string, error) {
	if slices.Contains(scenario.CatalogNames(), arg) || looksLikeFile(arg) {
		sc, err := scenario.Resolve(arg)
		if err != nil {
			return "", nil, nil, err
		}
		// A scenario without nccl traffic has no nccl-tests table in its
		// runs, so regress would have nothing to compare the record with.
		if !hasNCCL(sc) {
			return "", nil, nil, exitcode.Usagef("--scenario %s runs no nccl traffic, so a record of nccl-tests output has nothing to compare with in its runs (fix: name a scenario with nccl traffic: a catalog one (%s), a file of your own with a traffic entry of pattern nccl, or your own scenario's name)", arg, strings.Join(ncclCatalogScenarios(), ", "))
		}
		var sweep []results.SweepDim
		for _, sw := range sc.Matrix.Sweeps {
			sweep = append(sweep, results.SweepDim{Path: sw.Path, Values: sw.Values})
		}
		return sc.Name, sweep, sc.VariantNames(), nil
	}
	if !naming.Valid(arg, 0) {
		return "", nil, nil, exitcode.Usagef("--scenario %q is not a scenario name (fix: name a catalog scenario (%s), a scenario file, or the scenario's name in lowercase letters, digits and dashes)", arg, strings.Join(scenario.CatalogNames(), ", "))
	}
	return arg, nil, nil, nil
}

// ncclCatalogScenarios are the catalog scenarios with nccl traffic: the
// ones a record of nccl-tests output can name.
func ncclCatalogScenarios() []string {
	var with []string
	for _, name := range scenario.CatalogNames() {
		if c, err := scenario.Resolve(name); err == nil && hasNCCL(c) {
			with = append(with, name)
		}
	}
	return with
}

// hasNCCL says whether a scenario has traffic of pattern nccl, whose runs
// carry the nccl-tests table a record of nccl-tests output is compared with.
func hasNCCL(sc *scenario.Spec) bool {
	return slices.ContainsFunc(sc.Traffic, func(t scenario.Traffic) bool { return t.Pattern == scenario.PatternNCCL })
}

func looksLikeFile(s string) bool {
	if strings.ContainsAny(s, `/\`) || strings.HasSuffix(s, ".yaml") || strings.HasSuffix(s, ".yml") {
		return true
	}
	st, err := os.Stat(s)
	return err == nil && st.Mode().IsRegular()
}

// recordVariant makes the variant named name, which must be one of
// points when the scenario is known: "ecn=on|off,pfc=on|off" and the
// swept parameters' path=value, as labctl names variants. Its summary
// lists every figure as not computed: nccl-tests measures none of them.
func recordVariant(name string, points []string) (results.Variant, error) {
	bad := func(why string) (results.Variant, error) {
		return results.Variant{}, exitcode.Usagef("--variant %q: %s (fix: name it ecn=on|off,pfc=on|off, then each swept parameter as path=value, as labctl names variants, for example ecn=on,pfc=on,traffic[0].algorithm=ring)", name, why)
	}
	parts := strings.Split(name, ",")
	if len(parts) < 2 {
		return bad("it does not name ECN and PFC")
	}
	onOff := func(part, key string) (bool, bool) {
		switch part {
		case key + "=on":
			return true, true
		case key + "=off":
			return false, true
		}
		return false, false
	}
	ecn, ok1 := onOff(parts[0], "ecn")
	pfc, ok2 := onOff(parts[1], "pfc")
	if !ok1 || !ok2 {
		return bad("it must start with ecn=on or ecn=off, then pfc=on or pfc=off")
	}
	v := results.Variant{Name: name, ECN: ecn, PFC: pfc, Flows: []results.Flow{}, Counters: []results.Counter{}, Assertions: []results.Assertion{},
		Summary: results.Summary{Source: results.Measured}}
	for _, p := range parts[2:] {
		path, val, ok := strings.Cut(p, "=")
		if !ok || path == "" || val == "" {
			return bad(fmt.Sprintf("%q is not path=value", p))
		}
		if v.Params == nil {
			v.Params = map[string]string{}
		}
		v.Params[path] = val
	}
	if points != nil && !slices.Contains(points, name) {
		return results.Variant{}, exitcode.Usagef("--variant %q is not a variant of the scenario: its variants are %s (fix: use one of them, as labctl regress matches variants by name)", name, plural.Some(points, 8, "; "))
	}
	for _, m := range results.Metrics {
		v.Summary.NotComputed = append(v.Summary.NotComputed, m.Name)
	}
	return v, nil
}
