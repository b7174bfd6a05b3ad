package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Assertions read the transports' own figures:
//
//	summary.uet.<field>     a UET variant's summary.uet (trimmed, nacks, ...)
//	infiniband.<Counter>    an InfiniBand variant's perfquery counter,
//	                        summed over every port (PortXmitWait, ...)
//
// A variant of another transport has neither: the identifier is absent
// there (an error naming why), never a 0 an assertion could pass on.

// uetSummaryFields are summary.uet's fields by their JSON names.
func uetSummaryFields() []string { return jsonFields(reflect.TypeOf(results.UETSummary{})) }

// ibCounterNames are the perfquery counters of infiniband_ports.
func ibCounterNames() []string {
	return slices.DeleteFunc(jsonFields(reflect.TypeOf(results.IBCounters{})), func(n string) bool {
		return n == "node" || n == "port" || n == "source"
	})
}

// jsonFields lists a struct's fields by their JSON names.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// checkTransportIdent checks summary.uet.<field> and infiniband.<Counter>.
func checkTransportIdent(p []string) error {
	switch identTransport(p) {
	case transport.UET:
		if !slices.Contains(uetSummaryFields(), p[2]) {
			return fmt.Errorf("unknown summary.uet field %q (fields: %s)", p[2], strings.Join(uetSummaryFields(), ", "))
		}
		return nil
	case transport.InfiniBand:
		if !slices.Contains(ibCounterNames(), p[1]) {
			return fmt.Errorf("unknown InfiniBand counter %q (perfquery's names: %s)", p[1], strings.Join(ibCounterNames(), ", "))
		}
		return nil
	}
	return fmt.Errorf("unknown identifier %s", strings.Join(p, "."))
}

// lookupTransport reads summary.uet.<field> or infiniband.<Counter>.
func lookupTransport(v *results.Variant, p []string) (Value, error) {
	if p[0] == "summary" {
		if v.Summary.UET == nil {
			return Value{}, fmt.Errorf("summary.uet.%s is absent: variant %s does not run the UET transport", p[2], v.Name)
		}
		x, err := jsonNumber(v.Summary.UET, p[2])
		if err != nil {
			return Value{}, fmt.Errorf("summary.uet.%s is absent in variant %s (%v)", p[2], v.Name, err)
		}
		return Num(x), nil
	}
	if len(v.InfiniBand) == 0 {
		return Value{}, fmt.Errorf("infiniband.%s is absent: variant %s does not run InfiniBand", p[1], v.Name)
	}
	sum := 0.0
	for i := range v.InfiniBand {
		x, err := jsonNumber(&v.InfiniBand[i], p[1])
		if err != nil {
			return Value{}, err
		}
		sum += x
	}
	return Num(sum), nil
}

// jsonNumber reads a numeric field of v by its JSON name (absent, as a
// nil optional field, is an error).
func jsonNumber(v any, name string) (float64, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return 0, err
	}
	x, ok := m[name].(float64)
	if !ok {
		return 0, fmt.Errorf("%s has no value", name)
	}
	return x, nil
}

// identTransport is the transport whose figures an identifier reads
// (summary.uet.*: UET, infiniband.*: InfiniBand), or "".
func identTransport(p []string) string {
	switch {
	case len(p) == 3 && p[0] == "summary" && p[1] == "uet":
		return transport.UET
	case len(p) == 2 && p[0] == "infiniband":
		return transport.InfiniBand
	}
	return ""
}

// transportsRun is the set of transports the run's variants run.
func transportsRun(specs []runtime.VariantSpec) map[string]bool {
	runs := map[string]bool{}
	for _, vs := range specs {
		runs[vs.Transport.Name] = true
	}
	return runs
}

// checkTransportsRun refuses, before anything runs, an assertion on a
// transport's figures that no variant of the run can have: no variant runs
// that transport on this lab, and no when guard leaves the assertion out
// anywhere, so it would fail every variant once the run had been paid for.
func (s *Spec) checkTransportsRun(specs []runtime.VariantSpec) error {
	runs := transportsRun(specs)
	for i, e := range s.exprs {
		if e.guard != nil {
			continue // the guard may leave it out where the figures are absent
		}
		for _, id := range e.Idents() {
			tr := identTransport(id.Path)
			if tr == "" || runs[tr] {
				continue
			}
			return specyaml.At(s.file, s.src, fmt.Sprintf("$.assertions[%d].expr", i),
				fmt.Sprintf("assertion %q reads %s, a figure of the %s transport, but no variant of this run uses %s", s.Assertions[i].Name, id, tr, tr),
				fmt.Sprintf("run it on a lab whose transport is %s, sweep transport to include it, or guard the assertion with a when condition", tr))
		}
	}
	return nil
}
