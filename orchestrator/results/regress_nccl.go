package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ScopeNCCL is a variant's nccl-tests table: one message size of it
// (Finding.SizeBytes set), or the table as a whole.
const ScopeNCCL = "nccl"

// FindingNCCLMismatch is a variant whose nccl-tests tables are of
// different collectives in the run and the baseline: their busbw is not
// comparable, so nothing of them is compared.
const FindingNCCLMismatch = "nccl_mismatch"

// FindingNoMatch is a compare in which no variant of the run matched one
// of the baseline's (with a record made from nccl-tests output on either
// side, whose missing variants are listed rather than regressions).
const FindingNoMatch = "no_match"

// NCCLMetrics are compared per variant between the nccl-tests tables of
// the run and the baseline, simulated or measured alike:
//   - busbw, out of place, at every message size both have: 5% lower
//     with a floor of 0.01 GB/s, the last digit nccl-tests prints (the
//     smallest sizes print 0.00 to 0.05 GB/s, where one digit is tens of
//     percent). A size of the baseline the run lacks is a regression, a
//     size of the run the baseline lacks is listed;
//   - out of bounds values (results nccl-tests found wrong): any
//     increase, compared where both tables checked their data (a
//     simulation moves none).
var NCCLMetrics = []Metric{
	{Name: "nccl.busbw_gbyte_s", Direction: LowerIsWorse, Default: Tolerance{Rel: 0.05, Abs: 0.01}, Unit: "GB/s",
		Means: "nccl-tests' out-of-place bus bandwidth at one message size"},
	{Name: "nccl.out_of_bounds", Direction: HigherIsWorse, Default: Tolerance{},
		Means: "the results nccl-tests found wrong (its trailer's \"Out of bounds values\")"},
}

func init() {
	for i := range NCCLMetrics {
		NCCLMetrics[i].Scope = ScopeNCCL
	}
}

// ncclBusBW and ncclOOB name NCCLMetrics' entries.
var (
	ncclBusBW = NCCLMetrics[0]
	ncclOOB   = NCCLMetrics[1]
)

// ncclDesc says what a table is, for findings: "all_reduce over 16
// ranks, 31 sizes, measured".
func ncclDesc(t *NCCLTable) string {
	return fmt.Sprintf("%s over %d ranks, %d sizes, %s", t.Collective, t.Ranks, len(t.Rows), ncclSourceLabel(t))
}

// compareNCCL compares the nccl-tests tables of a matched point: the
// busbw of every size, and the out of bounds count. bvs and vs are the
// point's variants on each side, one each when points are matched one to
// one, every repetition when they are compared as samples: then each
// size's busbw, like every other figure, is the mean over a side's
// repetitions with the baseline's spread allowed (poolValues), and a
// repetition without the table or the size makes it absent on that side.
func (r *Report) compareNCCL(name string, bvs, vs []*Variant, tol Tolerances) {
	bt, ct := firstTable(bvs), firstTable(vs)
	if bt == nil && ct == nil {
		return
	}
	t := tol.of(ncclBusBW, "")
	at := Finding{Variant: name, Scope: ScopeNCCL, Metric: ncclBusBW.Name, Direction: ncclBusBW.Direction, Tolerance: t.String(), Unit: ncclBusBW.Unit}
	switch {
	case t.Disabled:
		return
	case ct == nil || slices.ContainsFunc(vs, noTable):
		at.Kind, at.Absent, at.Regression, at.BaselineSource = FindingAbsent, AbsentInRun, true, bt.Source
		at.why = "the run has no nccl-tests table"
		at.Detail = "the baseline has an nccl-tests table (" + ncclDesc(bt) + "), the run none: its traffic is not an nccl-tests-like collective any more"
		if ct != nil {
			at.why = "a repetition of the run has no nccl-tests table"
			at.Detail = "the baseline has an nccl-tests table (" + ncclDesc(bt) + ") in every repetition, a repetition of the run none"
		}
		r.Findings = append(r.Findings, at)
		return
	case bt == nil || slices.ContainsFunc(bvs, noTable):
		at.Kind, at.Absent, at.Source = FindingAbsent, AbsentInBaseline, ct.Source
		at.why = "the baseline has no nccl-tests table"
		at.Detail = "the run has an nccl-tests table (" + ncclDesc(ct) + "), the baseline none to compare with"
		if bt != nil {
			at.why = "a repetition of the baseline has no nccl-tests table"
		}
		r.Findings = append(r.Findings, at)
		return
	}
	at.Source, at.BaselineSource = ct.Source, bt.Source
	if bt.Collective != ct.Collective {
		r.Findings = append(r.Findings, Finding{Kind: FindingNCCLMismatch, Scope: ScopeVariant, Variant: name, Regression: true, Source: ct.Source, BaselineSource: bt.Source,
			Detail: fmt.Sprintf("the run's nccl-tests table is %s, the baseline's %s: the bus bandwidths of different collectives are not comparable (compare records of the same scenario, or save a new baseline)", ncclDesc(ct), ncclDesc(bt))})
		return
	}
	if ct.Source != bt.Source {
		r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s: the nccl-tests table of the run is %s, the baseline's %s; busbw is compared size by size as it is", name, NCCLSourceText(ct), NCCLSourceText(bt)))
	}
	if ct.Ranks != bt.Ranks {
		r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s: the nccl-tests table of the run has %d ranks, the baseline's %d (busbw is meant to compare across rank counts; the fabric's load is not the same)", name, ct.Ranks, bt.Ranks))
	}
	if ct.DataType != bt.DataType {
		r.Warnings = append(r.Warnings, fmt.Sprintf("variant %s: the nccl-tests table of the run is of %s, the baseline's of %s", name, ct.DataType, bt.DataType))
	}
	// Each side's busbw at a size, over its repetitions; the baseline's
	// sizes in its order, then those only the run has.
	busbw := func(side string) func(*Variant, int64) sideValue {
		return func(v *Variant, size int64) sideValue {
			for _, row := range v.NCCL.Rows {
				if row.SizeBytes == size {
					return sideValue{v: row.OutOfPlace.BusBWGBps}
				}
			}
			return sideValue{absent: "the " + side + "'s table has no row of this size" + sizeRange(v.NCCL)}
		}
	}
	baseAt, curAt := busbw("baseline"), busbw("run")
	var sizes []int64
	seen := map[int64]bool{}
	for _, side := range [][]*Variant{bvs, vs} {
		for _, v := range side {
			for _, row := range v.NCCL.Rows {
				if !seen[row.SizeBytes] {
					seen[row.SizeBytes] = true
					sizes = append(sizes, row.SizeBytes)
				}
			}
		}
	}
	for _, size := range sizes {
		f := at
		f.SizeBytes = &size
		r.addMetric(f, ncclBusBW, tol,
			poolValues(bvs, func(v *Variant) sideValue { return baseAt(v, size) }),
			poolValues(vs, func(v *Variant) sideValue { return curAt(v, size) }))
	}
	// The out of bounds count where the baseline checked its data; a
	// measured run that lost its count (it always prints one) has lost a
	// check, a simulated one never had it.
	oob := func(v *Variant) sideValue {
		if v.NCCL.OutOfBounds == nil {
			return sideValue{absent: "the run's nccl-tests output has no out of bounds count"}
		}
		return sideValue{v: float64(*v.NCCL.OutOfBounds)}
	}
	o := at
	o.Metric, o.Direction, o.Unit = ncclOOB.Name, ncclOOB.Direction, ncclOOB.Unit
	if base, cur := poolValues(bvs, oob), poolValues(vs, oob); base.absent == "" && (cur.absent == "" || ct.Source == Measured) {
		r.addMetric(o, ncclOOB, tol, base, cur)
	}
}

// firstTable is the nccl-tests table of the first of vs that has one.
func firstTable(vs []*Variant) *NCCLTable {
	for _, v := range vs {
		if v.NCCL != nil {
			return v.NCCL
		}
	}
	return nil
}

func noTable(v *Variant) bool { return v.NCCL == nil }

// sizeRange says which sizes a table has: " (its sizes are 8 B to
// 8 GiB)".
func sizeRange(t *NCCLTable) string {
	if len(t.Rows) == 0 {
		return " (it has no rows)"
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, r := range t.Rows {
		lo, hi = min(lo, r.SizeBytes), max(hi, r.SizeBytes)
	}
	return " (its sizes are " + fmtSize(lo) + " to " + fmtSize(hi) + ")"
}

// ncclPlace names a finding's place in its table: "nccl-tests size 1 MiB
// (1048576 B)" or "nccl-tests table".
func ncclPlace(f Finding) string {
	if f.SizeBytes == nil {
		return "nccl-tests table"
	}
	s := "nccl-tests size " + fmtSize(*f.SizeBytes)
	if b := strconv.FormatInt(*f.SizeBytes, 10) + " B"; b != fmtSize(*f.SizeBytes) {
		s += " (" + b + ")"
	}
	return s
}

// ncclSides is what a place's heading adds when the run's and the
// baseline's figures were obtained differently: "(run simulated,
// baseline measured)".
func ncclSides(f Finding) string {
	if f.Scope != ScopeNCCL || f.Source == "" || f.BaselineSource == "" || f.Source == f.BaselineSource {
		return ""
	}
	return fmt.Sprintf(" (run %s, baseline %s)", f.Source, f.BaselineSource)
}

// ncclProblem is the first figure of a variant's nccl-tests table that
// regress could not compare honestly: a negative or non-finite time or
// bandwidth, or a size twice (sizes are matched one to one). "" when
// there is none.
func ncclProblem(t *NCCLTable) string {
	if t == nil {
		return ""
	}
	seen := map[int64]int{}
	for i, r := range t.Rows {
		if j, dup := seen[r.SizeBytes]; dup {
			return fmt.Sprintf("nccl.rows[%d] repeats size %d of nccl.rows[%d], and regress matches sizes one to one", i, r.SizeBytes, j)
		}
		seen[r.SizeBytes] = i
		if r.SizeBytes < 0 {
			return fmt.Sprintf("nccl.rows[%d].size_bytes is %d", i, r.SizeBytes)
		}
		for _, h := range []struct {
			name string
			r    *NCCLResult
		}{{"out_of_place", &r.OutOfPlace}, {"in_place", r.InPlace}} {
			if h.r == nil {
				continue
			}
			for _, x := range []figure{{"time_us", h.r.TimeUs}, {"algbw_gbyte_s", h.r.AlgBWGBps}, {"busbw_gbyte_s", h.r.BusBWGBps}} {
				if x.v < 0 || math.IsNaN(x.v) || math.IsInf(x.v, 0) {
					return fmt.Sprintf("nccl.rows[%d] (size %d).%s.%s is %s, and no figure regress compares can be negative", i, r.SizeBytes, h.name, x.name, strconv.FormatFloat(x.v, 'g', -1, 64))
				}
			}
		}
	}
	if t.OutOfBounds != nil && *t.OutOfBounds < 0 {
		return fmt.Sprintf("nccl.out_of_bounds is %d", *t.OutOfBounds)
	}
	return ""
}

// variantNames lists a record's variants for a finding: "ecn=on,pfc=on;
// ecn=off,pfc=on", the first few and a count of the rest.
func variantNames(run *Run) string {
	var names []string
	for i := range run.Variants {
		if len(names) == 4 {
			names = append(names, fmt.Sprintf("and %d more", len(run.Variants)-4))
			break
		}
		names = append(names, run.Variants[i].Label())
	}
	return strings.Join(names, "; ")
}
