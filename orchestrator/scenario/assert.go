package scenario

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

var identFix = "use ecn, pfc, repetition, simulated_us, flows, model (" + strconv.Quote(results.ModelPacket) + ", " + strconv.Quote(results.ModelFlow) + " or " + strconv.Quote(results.ModelLive) + "), summary.<field> (" +
	"throughput_gbps_total, throughput_gbps_min_flow, jain_fairness, drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99, failed_flows, " +
	"completion_us, goodput_gbps_aggregate), summary.uet.<field> (UET variants: " + strings.Join(uetSummaryFields(), ", ") + "), infiniband.<counter> (InfiniBand variants, summed over ports: " + strings.Join(ibCounterNames(), ", ") + "), simulated.summary.<field> (live runs), roles.<role>.<throughput_gbps|min_throughput_gbps|jain_fairness|count|retransmits|failed|max_flows_per_link|latency_us_p50|latency_us_avg|latency_us_p99|latency_us_p99_9|latency_us_max>, nccl.<field> (nccl traffic: " + strings.Join(ncclFieldNames(), ", ") + "), params.<swept path>, extra.<key>..., each optionally prefixed by a variant such as [ecn=off,pfc=on] or [qos.ecn.kmin_kb=prev]."

// optionalFields are summary fields absent unless the run produced them.
var optionalFields = map[string]func(s *results.Summary) *float64{
	"completion_us":          func(s *results.Summary) *float64 { return s.CompletionUs },
	"goodput_gbps_aggregate": func(s *results.Summary) *float64 { return s.GoodputGbpsAggregate },
}

// summaryValue reads a summary field by its JSON name; ok is false for an
// optional field the run did not produce.
func summaryValue(s *results.Summary, field string) (v float64, ok, known bool) {
	if f, found := summaryFields[field]; found {
		return f(s), true, true
	}
	if f, found := optionalFields[field]; found {
		if p := f(s); p != nil {
			return *p, true, true
		}
		return 0, false, true
	}
	return 0, false, false
}

// summaryFields reads the numeric fields of a summary by their JSON names.
var summaryFields = map[string]func(s *results.Summary) float64{
	"throughput_gbps_total":    func(s *results.Summary) float64 { return s.ThroughputGbpsTotal },
	"throughput_gbps_min_flow": func(s *results.Summary) float64 { return s.ThroughputGbpsMinFlow },
	"jain_fairness":            func(s *results.Summary) float64 { return s.JainFairness },
	"drops":                    func(s *results.Summary) float64 { return float64(s.Drops) },
	"pfc_pause_frames":         func(s *results.Summary) float64 { return float64(s.PFCPauseFrames) },
	"pfc_pause_us":             func(s *results.Summary) float64 { return s.PFCPauseUs },
	"ecn_marked":               func(s *results.Summary) float64 { return float64(s.ECNMarked) },
	"cnp":                      func(s *results.Summary) float64 { return float64(s.CNP) },
	"retransmits":              func(s *results.Summary) float64 { return float64(s.Retransmits) },
	"latency_us_p99":           func(s *results.Summary) float64 { return s.LatencyUsP99 },
	"failed_flows":             func(s *results.Summary) float64 { return float64(s.FailedFlows) },
}

var roleFields = []string{"throughput_gbps", "min_throughput_gbps", "jain_fairness", "count", "retransmits", "failed", "max_flows_per_link",
	"latency_us_p50", "latency_us_avg", "latency_us_p99", "latency_us_p99_9", "latency_us_max"}

// roleLatency reads a role field's latency figure of one flow, in µs
// (ok false when the flow's record has none). A role's value is its worst
// flow's: the highest.
var roleLatency = map[string]func(l *results.Latency) (float64, bool){
	"latency_us_p50": func(l *results.Latency) (float64, bool) { return l.P50, true },
	"latency_us_p99": func(l *results.Latency) (float64, bool) { return l.P99, true },
	"latency_us_max": func(l *results.Latency) (float64, bool) { return l.Max, l.Max > 0 },
	"latency_us_avg": func(l *results.Latency) (float64, bool) {
		if l.Avg == nil {
			return 0, false
		}
		return *l.Avg, true
	},
	"latency_us_p99_9": func(l *results.Latency) (float64, bool) {
		if l.P999 == nil {
			return 0, false
		}
		return *l.P999, true
	},
}

// throughputFields are the role fields a latency role has no value for:
// ib_write_lat measures time, not bandwidth.
var throughputFields = []string{"throughput_gbps", "min_throughput_gbps", "jain_fairness"}

// roles returns the flow roles a spec's traffic produces.
func (s *Spec) roles() []string {
	var out []string
	for _, t := range s.Traffic {
		if t.Pattern == PatternNCCL {
			continue // its figures are the nccl-tests table (nccl.<field>), not flows
		}
		r := t.roleName()
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
		if t.Victim && !slices.Contains(out, "victim") {
			out = append(out, "victim")
		}
	}
	return out
}

func roleOf(pattern string) string {
	if pattern == "ring-allreduce" {
		return "allreduce"
	}
	return pattern
}

// roleName is the role of the entry's flows (its victim flow's is
// victim): the entry's role, or its pattern's.
func (t *Traffic) roleName() string {
	if t.Role != "" {
		return t.Role
	}
	return roleOf(t.Pattern)
}

// checkIdent says whether an identifier can resolve for spec s.
func checkIdent(id Ident, s *Spec) error {
	if id.Variant != "" {
		if err := s.checkRef(id.Variant); err != nil {
			return err
		}
	}
	p := id.Path
	switch p[0] {
	case "params":
		if len(p) >= 2 {
			return s.checkParam(strings.Join(p[1:], "."))
		}
	case "ecn", "pfc", "repetition", "simulated_us", "flows", "model":
		if len(p) == 1 {
			return nil
		}
	case "summary":
		if len(p) == 2 {
			if _, _, known := summaryValue(&results.Summary{}, p[1]); !known {
				return fmt.Errorf("unknown summary field %q", p[1])
			}
			if (p[1] == "completion_us" || p[1] == "goodput_gbps_aggregate") && !s.sizesFlows() {
				// Absent unless every flow has a size: with none sized,
				// no variant has it, and the run would fail it after
				// simulating everything.
				return fmt.Errorf("summary.%s is a sized transfer's figure, and no traffic entry of this scenario has bytes (give the entries bytes, such as bytes: 64MiB, or assert on throughput)", p[1])
			}
			return nil
		}
		if len(p) == 3 && p[1] == "uet" {
			return checkTransportIdent(p)
		}
	case "infiniband":
		return checkTransportIdent(p)
	case "simulated":
		if len(p) == 3 && p[1] == "summary" {
			if _, _, known := summaryValue(&results.Summary{}, p[2]); known {
				return nil
			}
			return fmt.Errorf("unknown summary field %q", p[2])
		}
	case "roles":
		if len(p) == 3 {
			if !slices.Contains(s.roles(), p[1]) {
				return fmt.Errorf("no traffic of this scenario has role %q (roles: %s)", p[1], strings.Join(s.roles(), ", "))
			}
			if !slices.Contains(roleFields, p[2]) {
				return fmt.Errorf("unknown role field %q (fields: %s)", p[2], strings.Join(roleFields, ", "))
			}
			if p[1] == runtime.PatternLatency && slices.Contains(throughputFields, p[2]) {
				return fmt.Errorf("role latency has no %s: its flows are ib_write_lat ping-pongs, which measure latency, not bandwidth (use roles.latency.latency_us_p50, latency_us_avg, latency_us_p99, latency_us_p99_9 or latency_us_max)", p[2])
			}
			return nil
		}
	case "extra":
		if len(p) >= 2 && p[1] == "allreduce" && !slices.ContainsFunc(s.Traffic, func(t Traffic) bool { return t.Pattern == "ring-allreduce" }) {
			// Only a ring AllReduce fills it: every variant would fail it
			// after the whole run.
			return fmt.Errorf("extra.allreduce is the ring AllReduce's, and this scenario runs none (add a ring-allreduce traffic entry, or assert on its traffic's figures)")
		}
		if len(p) >= 2 {
			return nil // extra is scenario-specific; resolved at run time
		}
	case "nccl":
		return checkNCCLIdent(p, s)
	}
	return fmt.Errorf("unknown name %s", id)
}

// parseRef reads a variant reference ("ecn=off,qos.ecn.kmin_kb=200") into
// dimension -> value, values canonical (on/off, numbers as variant names
// write them, prev kept). Every key must be a dimension of the matrix and
// every value one of its values.
func (s *Spec) parseRef(ref string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(ref, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("variant reference [%s] is not like [ecn=on,pfc=off] or [qos.ecn.kmin_kb=prev]", ref)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("variant reference [%s] gives %s twice", ref, k)
		}
		switch k {
		case "ecn", "pfc":
			b, ok := parseOnOff(v)
			if !ok {
				return nil, fmt.Errorf("variant reference [%s]: %s=%s is not on or off", ref, k, v)
			}
			vals := s.Matrix.ECN
			if k == "pfc" {
				vals = s.Matrix.PFC
			}
			if !slices.ContainsFunc(vals, func(x string) bool { y, _ := parseOnOff(x); return y == b }) {
				return nil, fmt.Errorf("variant [%s] is not in this scenario's matrix (%s: %s)", ref, k, strings.Join(vals, ", "))
			}
			out[k] = onOff(b)
		default:
			sw := s.sweepByPath(k)
			if sw == nil {
				return nil, fmt.Errorf("variant [%s] is not in this scenario's matrix: it has no dimension %s (dimensions: %s)", ref, k, strings.Join(s.dimensions(), ", "))
			}
			if v != prevValue {
				v = canonValue(v)
				if !slices.Contains(sw.Values, v) {
					return nil, fmt.Errorf("variant [%s] is not in this scenario's matrix: %s takes %s (or prev, the previous one)", ref, k, strings.Join(sw.Values, ", "))
				}
			}
			out[k] = v
		}
	}
	return out, nil
}

// inMatrix says whether the matrix runs the variant of that name (its
// exclude leaves none out otherwise).
func (s *Spec) inMatrix(name string) bool {
	if len(s.Matrix.Exclude) == 0 {
		return true
	}
	return slices.ContainsFunc(s.matrix(), func(pt Point) bool { return pt.Name == name })
}

// sizesFlows says whether any traffic entry of the scenario has a size
// (bytes), in the file or by a sweep.
func (s *Spec) sizesFlows() bool {
	if slices.ContainsFunc(s.Traffic, func(t Traffic) bool { return t.Bytes != "" }) {
		return true
	}
	return slices.ContainsFunc(s.Matrix.Sweeps, func(sw Sweep) bool { return strings.HasSuffix(sw.Path, ".bytes") })
}

// checkRef says whether a variant reference can resolve: its dimensions
// and values are the matrix's, and, where the matrix excludes
// combinations, some variant of the run reads one it runs (a reference to
// an excluded combination failed in every variant after the whole run).
func (s *Spec) checkRef(ref string) error {
	if _, err := s.parseRef(ref); err != nil {
		return err
	}
	if len(s.Matrix.Exclude) == 0 {
		return nil
	}
	points := s.matrix()
	runs := map[string]bool{}
	for _, pt := range points {
		runs[pt.Name] = true
	}
	for _, pt := range points {
		v := results.Variant{ECN: pt.ECN, PFC: pt.PFC, Params: map[string]string{}}
		for _, p := range pt.Params {
			v.Params[p.Path] = p.Value
		}
		if name, skip, err := s.resolveRef(ref, &v); err == nil && !skip && runs[name] {
			return nil
		}
	}
	return fmt.Errorf("variant [%s] is one the matrix's exclude leaves out, so no variant of the run can read it", ref)
}

// resolveRef names the variant a reference reads from variant v: the
// dimensions it gives, and v's values of the others, so [pfc=off] is v
// without PFC and [qos.ecn.kmin_kb=prev] is v at the previous Kmin. skip
// is true when there is no such variant by construction (prev of the
// first value): the assertion does not apply to v.
func (s *Spec) resolveRef(ref string, v *results.Variant) (name string, skip bool, err error) {
	parts, err := s.parseRef(ref)
	if err != nil {
		return "", false, err
	}
	ecn, pfc := v.ECN, v.PFC
	if x, ok := parts["ecn"]; ok {
		ecn = x == "on"
	}
	if x, ok := parts["pfc"]; ok {
		pfc = x == "on"
	}
	var params []Param
	for _, sw := range s.Matrix.Sweeps {
		val := v.Params[sw.Path]
		if x, ok := parts[sw.Path]; ok {
			if x != prevValue {
				val = x
			} else if i := slices.Index(sw.Values, val); i > 0 {
				val = sw.Values[i-1]
			} else {
				return "", true, nil
			}
		}
		params = append(params, Param{Path: sw.Path, Value: val})
	}
	return PointName(ecn, pfc, params), false, nil
}

// dimensions lists the matrix's dimensions.
func (s *Spec) dimensions() []string {
	out := []string{"ecn", "pfc"}
	for _, sw := range s.Matrix.Sweeps {
		out = append(out, sw.Path)
	}
	return out
}

// checkParam says whether params.<path> can resolve: the matrix sweeps
// path, and each value reads as a number, duration, size or boolean.
func (s *Spec) checkParam(path string) error {
	sw := s.sweepByPath(path)
	if sw == nil {
		swept := "none"
		if len(s.Matrix.Sweeps) > 0 {
			swept = strings.Join(s.dimensions()[2:], ", ")
		}
		return fmt.Errorf("params.%s: the matrix does not sweep %s (swept: %s)", path, path, swept)
	}
	for _, v := range sw.Values {
		if _, ok := paramValue(v); !ok {
			return fmt.Errorf("params.%s: its value %s is not a number, duration, size or true/false, so an assertion cannot compute with it; refer to the variant by name instead, as in [%s=%s]", path, v, path, v)
		}
	}
	return nil
}

// VariantName is the name of the variant with ECN and PFC on or off.
func VariantName(ecn, pfc bool) string {
	return "ecn=" + onOff(ecn) + ",pfc=" + onOff(pfc)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// VariantNames lists the matrix's variants in run order.
func (s *Spec) VariantNames() []string {
	var out []string
	for _, pt := range s.matrix() {
		out = append(out, pt.Name)
	}
	return out
}

// variantEnv resolves identifiers against one variant of a run, and
// variant references against the run's other variants of the same
// repetition.
type variantEnv struct {
	s     *Spec
	run   *results.Run
	v     *results.Variant
	final bool
	// pending is set when a referenced variant has not run yet and the
	// run is not final: the assertion is evaluated later.
	pending bool
	// skip is set when a reference names no variant by construction (the
	// previous value of the first): the assertion does not apply.
	skip bool
	seen map[string]string // identifier -> value, for the detail text
}

func (e *variantEnv) Lookup(variant string, path []string) (Value, error) {
	v := e.v
	if variant != "" {
		name, skip, err := e.s.resolveRef(variant, e.v)
		if err != nil {
			return Value{}, err
		}
		if skip || !e.s.inMatrix(name) {
			// prev of the first value, or a combination the matrix's
			// exclude leaves out: the assertion does not apply to v.
			e.skip = true
			return Value{}, fmt.Errorf("[%s] names no variant of %s", variant, e.v.Name)
		}
		v = nil
		for i := range e.run.Variants {
			o := &e.run.Variants[i]
			if o.Name == name && o.Repetition == e.v.Repetition && o.Error == "" {
				v = o
			}
		}
		if v == nil {
			if !e.final {
				e.pending = true
			}
			return Value{}, fmt.Errorf("variant %s has no result in this run", name)
		}
	}
	// The detail names what the record holds: a flow-level variant's
	// estimated_over_theoretical where the expression says
	// simulated_over_theoretical (allReduceAliases).
	path = extraRecordPath(v, path)
	val, err := lookupVariant(e.run, v, path)
	if err != nil {
		err = flowOnlyName(v, path, err)
	}
	if err == nil && e.seen != nil {
		key := strings.Join(path, ".")
		if variant != "" {
			key = "[" + variant + "]." + key
		}
		e.seen[key] = val.String()
	}
	return val, err
}

func lookupVariant(run *results.Run, v *results.Variant, path []string) (Value, error) {
	switch path[0] {
	case "ecn":
		return Bool(v.ECN), nil
	case "pfc":
		return Bool(v.PFC), nil
	case "repetition":
		return Num(float64(v.Repetition)), nil
	case "simulated_us":
		return Num(v.SimulatedUs), nil
	case "flows":
		return Num(float64(len(v.Flows))), nil
	case "model":
		return Str(v.Model()), nil
	case "params":
		if len(path) >= 2 {
			key := strings.Join(path[1:], ".")
			text, ok := v.Params[key]
			if !ok {
				return Value{}, fmt.Errorf("variant %s has no value of the swept %s", v.Name, key)
			}
			val, ok := paramValue(text)
			if !ok {
				return Value{}, fmt.Errorf("params.%s is %s, not a number", key, text)
			}
			return val, nil
		}
	case "summary":
		if len(path) == 2 {
			return summaryNum(v, summaryFor(v, path[1]), path[1])
		}
		if len(path) == 3 && path[1] == "uet" {
			return lookupTransport(v, path)
		}
	case "infiniband":
		if len(path) == 2 {
			return lookupTransport(v, path)
		}
	case "simulated":
		// simulated.summary.<field>: the simulated twin of a live run.
		if len(path) == 3 && path[1] == "summary" {
			if v.Simulated == nil || v.Simulated.Error != "" {
				return Value{}, fmt.Errorf("variant %s has no simulated part (only live runs have one)", v.Name)
			}
			return summaryNum(v, &v.Simulated.Summary, path[2])
		}
	case "roles":
		if len(path) == 3 {
			var n, sum, sum2, rtx, failed float64
			noRtx := 0 // flows without a retransmit count
			minTp := -1.0
			worst, noLat := 0.0, ""
			for _, f := range v.Flows {
				if f.Role != path[1] {
					continue
				}
				n++
				if get := roleLatency[path[2]]; get != nil {
					x, ok := 0.0, false
					if f.LatencyUs != nil {
						x, ok = get(f.LatencyUs)
					}
					if !ok && noLat == "" {
						noLat = f.ID
					}
					worst = max(worst, x)
				}
				sum += f.ThroughputGbps
				sum2 += f.ThroughputGbps * f.ThroughputGbps
				if f.Retransmits != nil {
					rtx += float64(*f.Retransmits)
				} else {
					noRtx++
				}
				if f.State == results.FlowFailed {
					failed++
				}
				if minTp < 0 || f.ThroughputGbps < minTp {
					minTp = f.ThroughputGbps
				}
			}
			if n == 0 {
				return Value{}, fmt.Errorf("no flow has role %q", path[1])
			}
			// What the variant's model does not compute for its flows
			// fails the assertion with the reason, as a summary field
			// in NotComputed does (summaryNum): never a 0 to pass on.
			if field := map[string]string{"retransmits": "retransmits", "failed": "failed_flows"}[path[2]]; field != "" && slices.Contains(v.Summary.NotComputed, field) {
				return Value{}, notComputedAs("roles."+path[1]+"."+path[2], v, &v.Summary, field)
			}
			if path[2] == "retransmits" && noRtx > 0 {
				return Value{}, fmt.Errorf("roles.%s.retransmits is absent: %d of the role's %d flows have no retransmit count (a live lab counts retransmissions per NIC port, not per flow: assert on summary.retransmits)", path[1], noRtx, int(n))
			}
			if roleLatency[path[2]] != nil {
				if noLat != "" {
					return Value{}, fmt.Errorf("roles.%s.%s is absent: flow %s has no such latency figure (avg and p99_9 are ib_write_lat's, of latency flows only)", path[1], path[2], noLat)
				}
				return Num(worst), nil
			}
			switch path[2] {
			case "max_flows_per_link":
				val, err := maxFlowsPerLink(v.Flows, path[1])
				if err != nil && v.Simulated != nil && v.Simulated.Error == "" {
					// A live lab's perftest knows no route: the
					// simulated twin's, as for the congestion fields.
					return maxFlowsPerLink(v.Simulated.Flows, path[1])
				}
				return val, err
			case "throughput_gbps":
				return Num(sum), nil
			case "min_throughput_gbps":
				return Num(minTp), nil
			case "jain_fairness":
				if sum2 == 0 {
					// Every flow at 0: 0/0, no fairness to assert on
					// (as the summary's is not computed then).
					return Value{}, fmt.Errorf("roles.%s.jain_fairness is absent: none of the role's %d flows delivered anything in the measurement window", path[1], int(n))
				}
				return Num(sum * sum / (n * sum2)), nil
			case "count":
				return Num(n), nil
			case "retransmits":
				return Num(rtx), nil
			case "failed":
				return Num(failed), nil
			}
		}
	case "nccl":
		if len(path) == 2 {
			return lookupNCCL(v, path[1])
		}
	case "extra":
		// A variant's own extra shadows the run's; on a live run the
		// simulated twin's comes between (extra.faults: a live lab counts
		// no link drops or watchdog storms, as it neither pauses nor
		// marks, see summaryNum's callers).
		if val, err := lookupExtra(v.Extra, path); err == nil {
			return val, nil
		}
		if v.Simulated != nil && v.Simulated.Error == "" {
			if val, err := lookupExtra(v.Simulated.Extra, path); err == nil {
				return val, nil
			}
		}
		return lookupExtra(run.Extra, path)
	}
	return Value{}, fmt.Errorf("unknown name %s", strings.Join(path, "."))
}

// maxFlowsPerLink is roles.<role>.max_flows_per_link: the most flows of
// the role that one link between switches carries (one direction, the
// port a switch sends them by), 1 when no two of them share one. The
// last port of a route, towards the destination NIC, is not counted: it
// is where an incast converges by design, not a hash's choice. It is the
// ECMP collision figure that per-port fairness turns into throughput: a
// congested port's PFC serves its input ports in turn, so k flows hashed
// onto one link share one input's turn. A flow of several QPs is on every
// link one of its QPs' routes takes (Flow.Route, QPRoutes), counted once
// on a link its QPs share; a flow without a route (a live lab's perftest)
// makes the figure absent, and a live run reads its simulated twin's.
func maxFlowsPerLink(flows []results.Flow, role string) (Value, error) {
	per := map[string]int{}
	most, n := 1, 0
	for _, f := range flows {
		if f.Role != role {
			continue
		}
		n++
		if len(f.Route) == 0 {
			return Value{}, fmt.Errorf("roles.%s.max_flows_per_link is absent: flow %s has no route (the simulator records each flow's switch ports; a live lab's flows have none, and its simulated twin's are read when it has one)", role, f.ID)
		}
		links := map[string]bool{}
		for _, r := range append([][]string{f.Route}, f.QPRoutes...) {
			for _, p := range r[:max(len(r)-1, 0)] {
				links[p] = true
			}
		}
		for p := range links {
			per[p]++
			most = max(most, per[p])
		}
	}
	if n == 0 {
		return Value{}, fmt.Errorf("no flow has role %q", role)
	}
	return Num(float64(most)), nil
}

// summaryNum reads a field of s, variant v's summary or its simulated
// twin's, for an assertion. A field the record does not hold fails the
// assertion with the reason; it never reads as 0.
func summaryNum(v *results.Variant, s *results.Summary, field string) (Value, error) {
	x, ok, known := summaryValue(s, field)
	switch {
	case known && slices.Contains(s.NotComputed, field):
		return Value{}, notComputed(v, s, field)
	case !known:
		return Value{}, fmt.Errorf("unknown summary field %q", field)
	case !ok:
		return Value{}, fmt.Errorf("summary.%s is absent: it needs every flow to have a size (bytes) and to complete within the duration", field)
	}
	return Num(x), nil
}

// notComputed says why a summary has no value for field: the model does
// not compute it, or the live lab cannot measure it. An assertion that
// reads it fails with this reason; it never passes on a placeholder 0.
func notComputed(v *results.Variant, s *results.Summary, field string) error {
	return notComputedAs("summary."+field, v, s, field)
}

// notComputedAs is notComputed for an identifier (name) made from the
// summary's field, such as roles.<role>.retransmits from retransmits.
func notComputedAs(name string, v *results.Variant, s *results.Summary, field string) error {
	why := s.NotComputedReason(field)
	if s == &v.Summary {
		// The variant's own summary: its reason knows the traffic (an
		// nccl collective's throughput), which the twin's never is (a
		// live lab runs no nccl collective).
		why = v.NotComputedReason(field)
	}
	if s.Source == results.Measured && s.Model != runtime.ModelFlow {
		return fmt.Errorf("%s is %s: assert on simulated.summary.%s, the simulated twin", name, why, field)
	}
	if s.Model == runtime.ModelFlow {
		// The run fails rather than pass with the check left out; the
		// scenario says where the assertion applies.
		return fmt.Errorf("%s is %s (to check it on packet-level runs only, end its expr with: when model != \"flow\")", name, why)
	}
	return fmt.Errorf("%s is %s", name, why)
}

// congestionFields are the summary fields only the simulator models: the
// software data planes of SONiC-VS and cEOS-lab neither pause nor ECN-mark
// and soft-RoCE has no DCQCN, so on a live run they come from the run's
// simulated twin (the same variant simulated with the configs read back
// from the switches). Throughput and latency stay measured.
var congestionFields = []string{"drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits"}

// summaryFor returns the summary a field is read from.
func summaryFor(v *results.Variant, field string) *results.Summary {
	if v.Simulated != nil && v.Simulated.Error == "" && slices.Contains(congestionFields, field) {
		return &v.Simulated.Summary
	}
	return &v.Summary
}

func lookupExtra(extra map[string]any, path []string) (Value, error) {
	{
		var cur any = extra
		for _, k := range path[1:] {
			m, ok := cur.(map[string]any)
			if !ok {
				return Value{}, fmt.Errorf("extra has no key %q", strings.Join(path[1:], "."))
			}
			if cur, ok = m[k]; !ok {
				return Value{}, fmt.Errorf("extra has no key %q", strings.Join(path[1:], "."))
			}
		}
		switch x := cur.(type) {
		case bool:
			return Bool(x), nil
		case float64:
			return Num(x), nil
		case int:
			return Num(float64(x)), nil
		case int64:
			return Num(float64(x)), nil
		}
		return Value{}, fmt.Errorf("extra.%s is not a number or boolean", strings.Join(path[1:], "."))
	}
}

// Check evaluates the spec's assertions on variant v of a finished run.
// Assertions whose 'when' guard is false are left out; one that cannot be
// evaluated fails with the reason in its detail.
func (s *Spec) Check(run *results.Run, v *results.Variant) []results.Assertion {
	out, _ := s.check(run, v, true)
	return out
}

// check evaluates the assertions on v, and lists those that do not apply
// to it (a false when guard, a reference to a variant that cannot exist)
// with why. Before the run's last variant (final false) an assertion that
// names a variant still to run is in neither list.
func (s *Spec) check(run *results.Run, v *results.Variant, final bool) ([]results.Assertion, []results.NotChecked) {
	out := []results.Assertion{}
	var notChecked []results.NotChecked
	skip := func(a AssertSpec, env *variantEnv, why string) {
		if !env.pending {
			notChecked = append(notChecked, results.NotChecked{Name: a.Name, Expr: a.Expr, Reason: why})
		}
	}
	const noVariant = "it compares with a variant this one has none of (the previous point of a sweep's first, or a combination the matrix's exclude leaves out)"
	for i, a := range s.Assertions {
		e := s.exprs[i]
		env := &variantEnv{s: s, run: run, v: v, final: final, seen: map[string]string{}}
		ok, err := e.Applies(env)
		if env.pending || env.skip {
			skip(a, env, noVariant)
			continue
		}
		if err != nil {
			out = append(out, results.Assertion{Name: a.Name, Expr: a.Expr, Detail: "cannot evaluate the when condition: " + err.Error()})
			continue
		}
		if !ok {
			why := "its when condition is false"
			if seen := formatSeen(env.seen); seen != "" {
				why += " (" + seen + ")"
			}
			skip(a, env, why)
			continue
		}
		env.seen = map[string]string{}
		passed, err := e.Eval(env)
		if env.pending || env.skip {
			skip(a, env, noVariant)
			continue
		}
		detail := formatSeen(env.seen)
		if err != nil {
			detail = "cannot evaluate: " + err.Error()
		}
		out = append(out, results.Assertion{Name: a.Name, Expr: a.Expr, Passed: passed && err == nil, Detail: detail})
	}
	return out, notChecked
}

func formatSeen(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, " ")
}
