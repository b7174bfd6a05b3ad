package results

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// ncclPair is a simulated run whose first variant carries simulatedNCCL,
// and its copy as the baseline.
func ncclPair(t *testing.T) (run, base *Run) {
	base = passingRun("20261129T110000Z-nccl-allreduce-64gpu", t0)
	base.Scenario = "nccl-allreduce"
	base.Variants[0].NCCL = simulatedNCCL()
	run = cloneRun(t, base)
	run.RunID = "20261129T120000Z-nccl-allreduce-64gpu"
	return run, base
}

// rowAt is the row of size in t.
func rowAt(t *testing.T, tb *NCCLTable, size int64) *NCCLRow {
	t.Helper()
	for i := range tb.Rows {
		if tb.Rows[i].SizeBytes == size {
			return &tb.Rows[i]
		}
	}
	t.Fatalf("no row of %d", size)
	return nil
}

func ncclFindings(r Report) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Scope == ScopeNCCL || f.Kind == FindingNCCLMismatch {
			out = append(out, f)
		}
	}
	return out
}

func text(t *testing.T, r Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCompareNCCLBusBW(t *testing.T) {
	run, base := ncclPair(t)
	r := Compare(run, base, nil)
	if r.Regressed || r.Compared.NCCL != 4 || r.Compared.NCCLSizes != 4 {
		t.Fatalf("identical tables: %v, %+v", regressions(r), r.Compared)
	}

	// A 10% lower busbw at one size is a regression naming the size and
	// both figures.
	row := rowAt(t, run.Variants[0].NCCL, 1<<20)
	row.OutOfPlace.BusBWGBps *= 0.90
	r = Compare(run, base, nil)
	if got := regressions(r); !slices.Equal(got, []string{"metric:ecn=on,pfc=on:nccl.busbw_gbyte_s"}) {
		t.Fatalf("regressions %v", got)
	}
	var f Finding
	for _, x := range ncclFindings(r) {
		if x.Regression {
			f = x
		}
	}
	if f.SizeBytes == nil || *f.SizeBytes != 1<<20 || f.Direction != LowerIsWorse || f.Unit != "GB/s" || f.Source != Simulated || f.BaselineSource != Simulated {
		t.Errorf("finding %+v", f)
	}
	out := text(t, r)
	for _, want := range []string{
		"REGRESSED: 1 regression",
		"    nccl-tests size 1 MiB (1048576 B)\n      nccl.busbw_gbyte_s: 27.99 GB/s -> 25.19 GB/s (-10.0%), allowed -1.4 GB/s (the larger of 5% and 0.01 GB/s, lower-is-worse)",
		"of them 4 comparisons of nccl-tests tables (4 message sizes)",
		"REGRESSED: 1 regression: 1 metric worse beyond tolerance",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	var j bytes.Buffer
	if err := r.WriteJUnit(&j); err != nil || !strings.Contains(j.String(), `name="regress:nccl.busbw_gbyte_s size 1 MiB (1048576 B)"`) {
		t.Errorf("junit (%v):\n%s", err, j.String())
	}
	// Allowed more, it passes; off, nothing of the table is compared.
	if r := Compare(run, base, Tolerances{"nccl.busbw_gbyte_s": {Rel: 0.15}}); r.Regressed {
		t.Errorf("15%% tolerance: %v", regressions(r))
	}
	if r := Compare(run, base, Tolerances{"nccl.busbw_gbyte_s": {Disabled: true}}); r.Regressed || r.Compared.NCCLSizes != 0 {
		t.Errorf("tolerance off: %v %+v", regressions(r), r.Compared)
	}

	// A 1% drop is within tolerance: moved, not a regression.
	run, base = ncclPair(t)
	rowAt(t, run.Variants[0].NCCL, 1<<20).OutOfPlace.BusBWGBps *= 0.99
	r = Compare(run, base, nil)
	if r.Regressed || r.Compared.Moved != 1 || !strings.Contains(text(t, r), "OK: no regression") {
		t.Errorf("1%% drop: %v, %+v", regressions(r), r.Compared)
	}
	// Better beyond tolerance is listed as such.
	rowAt(t, run.Variants[0].NCCL, 1<<20).OutOfPlace.BusBWGBps *= 1.2
	if r := Compare(run, base, nil); r.Regressed || r.Compared.Better != 1 {
		t.Errorf("20%% better: %v, %+v", regressions(r), r.Compared)
	}
}

func TestCompareNCCLSizes(t *testing.T) {
	// A size of the baseline the run lacks is a regression.
	run, base := ncclPair(t)
	tb := run.Variants[0].NCCL
	tb.Rows = slices.DeleteFunc(tb.Rows, func(r NCCLRow) bool { return r.SizeBytes == 16<<30 })
	r := Compare(run, base, nil)
	if got := regressions(r); !slices.Equal(got, []string{"metric_absent:ecn=on,pfc=on:nccl.busbw_gbyte_s"}) {
		t.Fatalf("regressions %v", got)
	}
	out := text(t, r)
	if want := "    nccl-tests size 16 GiB (17179869184 B)\n      nccl.busbw_gbyte_s: the baseline has 45 GB/s, the run has none: the run's table has no row of this size (its sizes are 8 B to 1 GiB)"; !strings.Contains(out, want) {
		t.Errorf("text lacks %q:\n%s", want, out)
	}
	// The other way round it is listed, not a regression.
	r = Compare(base, run, nil)
	out = text(t, r)
	if r.Regressed || r.Compared.AbsentInBaseline != 1 || !strings.Contains(out, "nccl.busbw_gbyte_s at nccl-tests size 16 GiB (17179869184 B): the baseline's table has no row of this size (its sizes are 8 B to 1 GiB)") {
		t.Errorf("size only in the run: %v\n%s", regressions(r), out)
	}
	// A table only in the baseline is a regression; only in the run, listed.
	run, base = ncclPair(t)
	run.Variants[0].NCCL = nil
	if got := regressions(Compare(run, base, nil)); !slices.Equal(got, []string{"metric_absent:ecn=on,pfc=on:nccl.busbw_gbyte_s"}) {
		t.Errorf("table lost: %v", got)
	}
	if r := Compare(base, run, nil); r.Regressed || r.Compared.AbsentInBaseline != 1 {
		t.Errorf("table new: %v %+v", regressions(r), r.Compared)
	}
	// Another collective is not compared size by size.
	run, base = ncclPair(t)
	run.Variants[0].NCCL.Collective = CollAllGather
	r = Compare(run, base, nil)
	if got := regressions(r); !slices.Equal(got, []string{"nccl_mismatch:ecn=on,pfc=on:"}) || r.Compared.NCCL != 0 {
		t.Errorf("other collective: %v %+v", got, r.Compared)
	}
	if out := text(t, r); !strings.Contains(out, "1 nccl-tests table of another collective") {
		t.Errorf("verdict:\n%s", out)
	}
}

// nccltestsRecord is a record as labctl parse nccl-tests --record makes
// it: one variant holding a measured table and nothing else.
func nccltestsRecord(id string, tb *NCCLTable) *Run {
	v := Variant{Name: "ecn=on,pfc=on", ECN: true, PFC: true, NCCL: tb, Summary: Summary{Source: Measured}, Flows: []Flow{}, Counters: []Counter{}, Assertions: []Assertion{}}
	for _, m := range Metrics {
		v.Summary.NotComputed = append(v.Summary.NotComputed, m.Name)
	}
	fin := t0
	return &Run{SchemaVersion: SchemaVersion, RunID: id, Lab: "64gpu", Scenario: "nccl-allreduce", Runtime: "live", Started: t0, Finished: &fin,
		Status: StatusPassed, Variants: []Variant{v}, Imported: &Imported{Tool: "nccl-tests", Files: []string{"out.txt"}}}
}

// A simulated run against a baseline measured on a cluster: only the
// tables are compared, variants the baseline lacks are listed, and the
// output says which side is which.
func TestCompareNCCLMeasuredBaseline(t *testing.T) {
	run, _ := ncclPair(t)
	base := nccltestsRecord("20261129T100000Z-nccl-allreduce-64gpu", measuredNCCL())
	r := Compare(run, base, nil)
	if r.Compared.Summary != 0 || r.Compared.Role != 0 || r.Compared.Port != 0 || r.Compared.Variants != 1 {
		t.Errorf("compared more than the tables: %+v", r.Compared)
	}
	// The measured 1 MiB is 10% below the simulation: better for the run.
	if r.Regressed || r.Compared.Better != 1 {
		t.Errorf("%v %+v", regressions(r), r.Compared)
	}
	out := text(t, r)
	for _, want := range []string{
		"variant ecn=on,pfc=on: the baseline holds only an nccl-tests table, so only the tables are compared",
		"variant ecn=on,pfc=on: the nccl-tests table of the run is simulated packet by packet, the baseline's measured (nccl-tests 2.18.3, all_reduce_perf)",
		"not compared: 3 variants of the run, which the baseline (a record of nccl-tests output) lacks: ecn=on,pfc=off; ecn=off,pfc=on; ecn=off,pfc=off",
		"    nccl-tests size 1 MiB (1048576 B) (run simulated, baseline measured)\n      nccl.busbw_gbyte_s: 25.19 GB/s -> 27.99 GB/s (+11.1%)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "seed differs") {
		t.Errorf("a measured record has no seed to differ:\n%s", out)
	}
	// Measured against the simulated baseline: the simulated 1 MiB is
	// above the measurement, a regression of the run.
	r = Compare(base, run, nil)
	if got := regressions(r); !slices.Equal(got, []string{"metric:ecn=on,pfc=on:nccl.busbw_gbyte_s"}) {
		t.Errorf("measured run vs simulated baseline: %v", got)
	}
	// No variant in common is a regression even between two records of
	// nccl-tests output.
	other := nccltestsRecord("20261129T130000Z-nccl-allreduce-64gpu", measuredNCCL())
	other.Variants[0].Name = "ecn=on,pfc=on,traffic[0].algorithm=tree"
	if got := regressions(Compare(other, base, nil)); !slices.Equal(got, []string{"no_match:-:"}) {
		t.Errorf("no match: %v", got)
	}
}

func TestCompareNCCLOutOfBounds(t *testing.T) {
	base := nccltestsRecord("20261129T100000Z-nccl-allreduce-64gpu", measuredNCCL())
	run := cloneRun(t, base)
	run.RunID = "20261129T110000Z-nccl-allreduce-64gpu"
	*run.Variants[0].NCCL.OutOfBounds = 2
	if got := regressions(Compare(run, base, nil)); !slices.Equal(got, []string{"metric:ecn=on,pfc=on:nccl.out_of_bounds"}) {
		t.Errorf("wrong results: %v", got)
	}
	// A simulation checks no data: not compared.
	sim, _ := ncclPair(t)
	if r := Compare(sim, base, nil); slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Metric == "nccl.out_of_bounds" }) {
		t.Error("out of bounds compared with a simulation")
	}
}

func TestBaselineKeepsNCCL(t *testing.T) {
	run, _ := ncclPair(t)
	run.Variants[0].Series = []TimeSeries{{Name: "x", TimeUs: []float64{1}, Values: []float64{1}}}
	c := ForBaseline(run)
	if c.Variants[0].NCCL == nil || len(c.Variants[0].NCCL.Rows) != 4 || c.Variants[0].Series != nil {
		t.Errorf("baseline copy: nccl %v, series %v", c.Variants[0].NCCL, c.Variants[0].Series)
	}
}

func TestCheckComparableNCCL(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(*NCCLTable)
		want string
	}{
		"negative busbw": {func(tb *NCCLTable) { tb.Rows[1].OutOfPlace.BusBWGBps = -1 }, "nccl.rows[1] (size 1048576).out_of_place.busbw_gbyte_s is -1"},
		"negative in-place time": {func(tb *NCCLTable) {
			ip := tb.Rows[2].OutOfPlace
			ip.TimeUs = -3
			tb.Rows[2].InPlace = &ip
		}, "in_place.time_us is -3"},
		"size twice": {func(tb *NCCLTable) { tb.Rows[2].SizeBytes = tb.Rows[1].SizeBytes }, "nccl.rows[2] repeats size 1048576 of nccl.rows[1]"},
	} {
		run, _ := ncclPair(t)
		c.edit(run.Variants[0].NCCL)
		err := CheckComparable("run.json", run)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "run.json: variant ecn=on,pfc=on") {
			t.Errorf("%s: %v", name, err)
		}
	}
	run, _ := ncclPair(t)
	if err := CheckComparable("run.json", run); err != nil {
		t.Errorf("a good table refused: %v", err)
	}
}
