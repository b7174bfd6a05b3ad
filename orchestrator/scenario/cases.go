package scenario

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/naming"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// A scenario can hold several cases, each its own traffic and faults, so
// that one run compares them under every other dimension: a traffic or
// faults entry tagged case: <name> runs only in the variants of that case,
// an untagged one in all of them. The cases are a matrix dimension,
// "case", listed under matrix case (in the order to run them) or, when the
// matrix leaves it out, taken from the tags in file order:
//
//	matrix:
//	  transport: [roce, infiniband, uet]
//	traffic:
//	  - {case: incast, pattern: incast, senders: 8, victim: true}
//	  - {case: all-to-all, pattern: all-to-all, ranks: 16}
//
// runs six variants, named like "ecn=on,pfc=on,transport=uet,case=incast";
// assertions pick a case with "when params.case == \"incast\"".

// caseDim is the matrix dimension of a scenario's cases.
const caseDim = "case"

// readCaseDim reads matrix case: the case names, in run order.
func (m *Matrix) readCaseDim(e matrixEntry, errAt func(p pos, msg, fix string) error) error {
	sw := Sweep{Path: caseDim, family: famCase, typ: reflect.TypeOf(""), keyAt: e.keyAt}
	if len(e.values) == 0 {
		return errAt(e.valAt, "matrix dimension case has no values", "list the case names the traffic and faults entries are tagged with, or remove the key to run every case")
	}
	for _, n := range e.values {
		text, ok := scalarText(n)
		switch {
		case !ok || !ValidName(text):
			return errAt(posOf(n), fmt.Sprintf("case %q is not a case name", text), "use "+naming.Rule(naming.MaxLen)+", e.g. incast")
		case slices.Contains(sw.Values, text):
			return errAt(posOf(n), fmt.Sprintf("case %s is listed twice", text), "list each case once")
		}
		sw.Values = append(sw.Values, text)
		sw.typed = append(sw.typed, reflect.ValueOf(text))
		sw.valAt = append(sw.valAt, posOf(n))
	}
	m.Sweeps = append(m.Sweeps, sw)
	return nil
}

// readCases checks the entries' case tags against the matrix's case
// dimension, or makes the dimension from the tags when the matrix has
// none. Every listed case must have entries of its own.
func (s *Spec) readCases(file string, at func(path, msg, fix string) error) error {
	var tags []string
	tagged := func(path, c string) error {
		if c == "" {
			return nil
		}
		if !ValidName(c) {
			return at(path, fmt.Sprintf("case %q is not a case name", c), "use "+naming.Rule(naming.MaxLen)+", e.g. incast")
		}
		if !slices.Contains(tags, c) {
			tags = append(tags, c)
		}
		return nil
	}
	for i, t := range s.Traffic {
		if err := tagged(fmt.Sprintf("$.traffic[%d].case", i), t.Case); err != nil {
			return err
		}
	}
	for i, f := range s.Faults {
		if err := tagged(fmt.Sprintf("$.faults[%d].case", i), f.Case); err != nil {
			return err
		}
	}
	dim := s.sweepByPath(caseDim)
	if dim == nil {
		if len(tags) == 0 {
			return nil
		}
		vals := make([]reflect.Value, len(tags))
		for i, c := range tags {
			vals[i] = reflect.ValueOf(c)
		}
		s.Matrix.Sweeps = append(s.Matrix.Sweeps, Sweep{Path: caseDim, family: famCase, typ: reflect.TypeOf(""), Values: tags, typed: vals, valAt: make([]pos, len(tags))})
		if len(s.Matrix.Sweeps) > MaxSweeps {
			return at("$.matrix", fmt.Sprintf("the matrix sweeps %d parameters with the cases, more than the %d labctl crosses at once", len(s.Matrix.Sweeps), MaxSweeps), "split the sweep into several scenarios")
		}
		return nil
	}
	errAt := func(p pos, msg, fix string) error {
		return exitcode.Usage(&specyaml.Error{File: file, Line: p.line, Column: p.col, Msg: msg, Fix: fix})
	}
	for i, t := range s.Traffic {
		if t.Case != "" && !slices.Contains(dim.Values, t.Case) {
			return at(fmt.Sprintf("$.traffic[%d].case", i), fmt.Sprintf("case %s is not in the matrix's case list (%s)", t.Case, strings.Join(dim.Values, ", ")), "add it to matrix case, or tag the entry with a listed case")
		}
	}
	for i, f := range s.Faults {
		if f.Case != "" && !slices.Contains(dim.Values, f.Case) {
			return at(fmt.Sprintf("$.faults[%d].case", i), fmt.Sprintf("case %s is not in the matrix's case list (%s)", f.Case, strings.Join(dim.Values, ", ")), "add it to matrix case, or tag the entry with a listed case")
		}
	}
	// A listed case no entry is tagged with is a typo or a leftover: it
	// would run the untagged entries alone under its name.
	for i, c := range dim.Values {
		if !slices.Contains(tags, c) {
			return errAt(dim.valAt[i], fmt.Sprintf("case %s has no entries: no traffic or faults entry is tagged case: %s", c, c), "tag the case's entries with case: "+c+", or remove it from matrix case")
		}
	}
	return nil
}

// pointCase is the case a point runs ("" for a scenario without cases).
func pointCase(pt Point) string {
	for _, p := range pt.Params {
		if p.Path == caseDim {
			return p.Value
		}
	}
	return ""
}

// inCase reports whether an entry tagged tag runs in case c.
func inCase(tag, c string) bool { return tag == "" || tag == c }

// caseFaults are the faults of case c (faults[i] is s.Faults[i] parsed):
// a variant's Faults, in the order of caseFaultIndices.
func (s *Spec) caseFaults(c string) []runtime.FaultSpec {
	if c == "" {
		return s.faults
	}
	var out []runtime.FaultSpec
	for _, i := range s.caseFaultIndices(c) {
		out = append(out, s.faults[i])
	}
	return out
}

// caseFaultIndices are the indices in s.Faults of case c's faults (all of
// them for a scenario without cases, c ""): entry k is where a variant's
// Faults[k] came from.
func (s *Spec) caseFaultIndices(c string) []int {
	var out []int
	for i := range s.faults {
		if c == "" || inCase(s.Faults[i].Case, c) {
			out = append(out, i)
		}
	}
	return out
}
