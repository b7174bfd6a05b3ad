package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/suggest"
)

// Scopes of a finding: what its figure describes.
const (
	// ScopeSummary is a variant's whole run (its Summary).
	ScopeSummary = "summary"
	// ScopeRole is the flows of one role of a variant (Flow.Role).
	ScopeRole = "role"
	// ScopePort is one port and priority of a variant (a Counter row).
	ScopePort = "port"
	// ScopeVariant is the variant itself: missing, failed to run, an
	// assertion.
	ScopeVariant = "variant"
)

// Metric is one compared metric: of a variant's summary (Metrics), of the
// flows of one role (RoleMetrics) or of one congested port and priority
// (PortMetrics). Name is what --tolerance addresses.
type Metric struct {
	Name      string
	Direction Direction
	Default   Tolerance
	// Scope is ScopeSummary, ScopeRole or ScopePort.
	Scope string
	// Unit of the value in text output: "Gb/s", "us", "bytes", or "" for
	// counts.
	Unit string
	// Means says what the value is, for help and documentation.
	Means string
	get   func(Summary) float64
	// variant reads a metric of the whole variant (a transport's own
	// figures), with why it is absent ("" when present).
	variant func(*Variant) (float64, string)
	role    func(*roleStats) (float64, string)
	port    func(*portSide, portKey) (float64, string)
}

// Metrics are the compared summary metrics with their default tolerances.
// The defaults are chosen for the simulator, which is deterministic for a
// seed (so any change comes from configs or code), with room for the noise
// of measured runs:
//   - throughput total 5% lower; the weakest flow 10% lower (it is noisier);
//   - Jain fairness 0.02 lower;
//   - drops and retransmits: any increase from 0, else 20% higher, since a
//     lossless class must stay lossless;
//   - PFC pause frames 20% higher with a floor of 50 frames, pause time 20%
//     with a floor of 10 µs, so 0 -> 3 pauses is not reported as noise;
//   - ECN marks and CNPs 50% either way, floors 100 marks and 20 CNPs;
//   - p99 latency 10% higher with a floor of 1 µs;
//   - failed flows: any increase, since a flow that fails is lost work.
//
// A metric the summary lists in NotComputed is absent on that side (see
// Compare), never compared as a zero.
var Metrics = []Metric{
	{Name: "throughput_gbps_total", Direction: LowerIsWorse, Default: Tolerance{Rel: 0.05}, Unit: "Gb/s", Means: "the flows' throughput summed",
		get: func(s Summary) float64 { return s.ThroughputGbpsTotal }},
	{Name: "throughput_gbps_min_flow", Direction: LowerIsWorse, Default: Tolerance{Rel: 0.10}, Unit: "Gb/s", Means: "the weakest flow's throughput",
		get: func(s Summary) float64 { return s.ThroughputGbpsMinFlow }},
	{Name: "jain_fairness", Direction: LowerIsWorse, Default: Tolerance{Abs: 0.02}, Means: "Jain's fairness index of the flows' throughput",
		get: func(s Summary) float64 { return s.JainFairness }},
	{Name: "drops", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20}, Means: "packets dropped, all ports and priorities",
		get: func(s Summary) float64 { return float64(s.Drops) }},
	{Name: "pfc_pause_frames", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20, Abs: 50}, Means: "PFC frames sent",
		get: func(s Summary) float64 { return float64(s.PFCPauseFrames) }},
	{Name: "pfc_pause_us", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20, Abs: 10}, Unit: "us", Means: "time ports spent paused, summed",
		get: func(s Summary) float64 { return s.PFCPauseUs }},
	{Name: "ecn_marked", Direction: EitherWay, Default: Tolerance{Rel: 0.50, Abs: 100}, Means: "packets ECN-marked",
		get: func(s Summary) float64 { return float64(s.ECNMarked) }},
	{Name: "cnp", Direction: EitherWay, Default: Tolerance{Rel: 0.50, Abs: 20}, Means: "CNPs sent by receivers",
		get: func(s Summary) float64 { return float64(s.CNP) }},
	{Name: "retransmits", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20}, Means: "packets retransmitted",
		get: func(s Summary) float64 { return float64(s.Retransmits) }},
	{Name: "latency_us_p99", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.10, Abs: 1}, Unit: "us", Means: "p99 one-way packet latency over all flows",
		get: func(s Summary) float64 { return s.LatencyUsP99 }},
	{Name: "failed_flows", Direction: HigherIsWorse, Default: Tolerance{}, Means: "flows that failed (a QP out of retries, a perftest client that failed)",
		get: func(s Summary) float64 { return float64(s.FailedFlows) }},
}

// TransportMetrics are a variant's transport's own figures, compared
// beside the summary's when both sides ran that transport (absent on a
// side that did not): UET's trims and timeouts, InfiniBand's credit waits
// and FECN marks. Defaults: trims 20% higher with a floor of 50 packets,
// timeouts any increase from 0 and 20% beyond, credit waits 25% higher with
// a floor of 10000 ticks (about 26 µs of one 200G port), FECN marks as
// ECN marks.
var TransportMetrics = []Metric{
	{Name: "uet.trimmed", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20, Abs: 50}, Means: "UET data packets switches trimmed to their header",
		variant: uetMetric(func(u *UETSummary) float64 { return float64(u.Trimmed) })},
	{Name: "uet.rto_retransmits", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20}, Means: "UET packets resent after a retransmission timeout",
		variant: uetMetric(func(u *UETSummary) float64 { return float64(u.RTORetransmits) })},
	{Name: "infiniband.port_xmit_wait", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.25, Abs: 10000}, Means: "InfiniBand ticks ports had data to send and no credits (PortXmitWait, summed over ports)",
		variant: ibMetric(func(c *IBPortCounters) int64 { return c.PortXmitWait })},
	{Name: "infiniband.fecn_marked", Direction: EitherWay, Default: Tolerance{Rel: 0.50, Abs: 100}, Means: "InfiniBand packets switches marked FECN (SWPortVLCongestion, summed over ports)",
		variant: ibMetric(func(c *IBPortCounters) int64 { return c.SWPortVLCongestion })},
}

// uetMetric reads a field of a UET variant's summary.uet.
func uetMetric(f func(*UETSummary) float64) func(*Variant) (float64, string) {
	return func(v *Variant) (float64, string) {
		if v.Summary.UET == nil {
			return 0, "the variant does not run the UET transport"
		}
		return f(v.Summary.UET), ""
	}
}

// ibMetric sums a perfquery counter of an InfiniBand variant's ports.
func ibMetric(f func(*IBPortCounters) int64) func(*Variant) (float64, string) {
	return func(v *Variant) (float64, string) {
		if len(v.InfiniBand) == 0 {
			return 0, "the variant does not run InfiniBand"
		}
		var sum int64
		for i := range v.InfiniBand {
			sum += f(&v.InfiniBand[i])
		}
		return float64(sum), ""
	}
}

// RoleMetrics are compared per variant and role (Flow.Role; a flow without
// one counts under its pattern), so that a change that hurts one class of
// flows is not averaged away by the others. Defaults follow the summary's:
// throughput 5% lower, the weakest flow 10% lower, latencies and the
// completion time 10% higher with a floor of 1 µs, retransmits 20% higher
// and any increase from 0, failed flows any increase.
var RoleMetrics = []Metric{
	{Name: "role.throughput_gbps_total", Direction: LowerIsWorse, Default: Tolerance{Rel: 0.05}, Unit: "Gb/s", Means: "the role's flows' throughput summed",
		role: func(r *roleStats) (float64, string) { return r.tputSum, "" }},
	{Name: "role.throughput_gbps_min_flow", Direction: LowerIsWorse, Default: Tolerance{Rel: 0.10}, Unit: "Gb/s", Means: "the role's weakest flow's throughput",
		role: func(r *roleStats) (float64, string) { return r.tputMin, "" }},
	{Name: "role.latency_us_p50", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.10, Abs: 1}, Unit: "us", Means: "the median of the role's flows' p50 latency",
		role: func(r *roleStats) (float64, string) {
			return r.latency(func(l *Latency) float64 { return l.P50 }, median)
		}},
	{Name: "role.latency_us_p99_max", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.10, Abs: 1}, Unit: "us", Means: "the highest p99 latency of the role's flows",
		role: func(r *roleStats) (float64, string) {
			return r.latency(func(l *Latency) float64 { return l.P99 }, slices.Max[[]float64])
		}},
	{Name: "role.retransmits", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20}, Means: "the role's flows' retransmitted packets summed",
		role: func(r *roleStats) (float64, string) {
			if why := notComputedWhy(r.variant, "retransmits"); why != "" {
				return 0, why
			}
			if r.noRetx > 0 {
				return 0, fmt.Sprintf("%d of the role's %d flows have no retransmit count (a live lab counts retransmissions per NIC port, not per flow)", r.noRetx, r.flows)
			}
			return float64(r.retx), ""
		}},
	{Name: "role.failed_flows", Direction: HigherIsWorse, Default: Tolerance{}, Means: "the role's flows that failed",
		role: func(r *roleStats) (float64, string) {
			if why := notComputedWhy(r.variant, "failed_flows"); why != "" {
				return 0, why
			}
			return float64(r.failed), ""
		}},
	{Name: "role.fct_us_max", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.10, Abs: 1}, Unit: "us", Means: "the longest completion time of the role's flows (flows with a size)",
		role: func(r *roleStats) (float64, string) {
			if r.fctFlows < r.flows {
				if r.fctFlows == 0 {
					return 0, noFCT
				}
				return 0, fmt.Sprintf("%d of the role's %d flows have no completion time (they did not complete, or have no size)", r.flows-r.fctFlows, r.flows)
			}
			return r.fctMax, ""
		}},
}

// noFCT is why a role whose flows all lack a completion time has none:
// long-lived flows have no size. When both sides say so the metric is not
// compared, as for any metric absent on both sides.
const noFCT = "no flow of the role has a completion time (long-lived flows have no size, or none completed)"

// CongestedQueueBytes is the queue depth (p99 of what arriving packets
// find ahead of them) from which a port and priority counts as congested
// for the port comparison, as any pause, mark or drop does: 64 KiB, about
// 16 MTU packets, 1.3 µs of delay at 400G.
const CongestedQueueBytes = 64 << 10

// PortMetrics are compared per variant for every port and priority that is
// congested in the run or the baseline: it sent or received a pause, marked
// or dropped a packet, or its queue p99 reached CongestedQueueBytes.
// Defaults: queue percentiles 25% higher with a floor of 32 KiB (the
// depth histogram's buckets are 12.5% wide, and 8 packets of queue are not
// a change), the peak 50% with a floor of 64 KiB (one burst sets it);
// pauses, marks and drops as the summary's.
var PortMetrics = []Metric{
	{Name: "port.queue_p50_bytes", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.25, Abs: 32 << 10}, Unit: "bytes", Means: "the median queue depth arriving packets found ahead of them",
		port: queueGetter(func(c *Counter) *int64 { return c.QueueP50Bytes })},
	{Name: "port.queue_p99_bytes", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.25, Abs: 32 << 10}, Unit: "bytes", Means: "the p99 queue depth arriving packets found ahead of them",
		port: queueGetter(func(c *Counter) *int64 { return c.QueueP99Bytes })},
	{Name: "port.queue_max_bytes", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.50, Abs: 64 << 10}, Unit: "bytes", Means: "the queue's peak depth",
		port: queueGetter(func(c *Counter) *int64 { return c.QueueMaxBytes })},
	{Name: "port.pfc_tx", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20, Abs: 50}, Means: "PFC frames the port sent",
		port: counterGetter("pfc_pause_frames", func(c *Counter) int64 { return c.PFCTx })},
	{Name: "port.pfc_rx", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20, Abs: 50}, Means: "PFC frames the port received",
		port: counterGetter("pfc_pause_frames", func(c *Counter) int64 { return c.PFCRx })},
	{Name: "port.ecn_marked", Direction: EitherWay, Default: Tolerance{Rel: 0.50, Abs: 100}, Means: "packets the port ECN-marked",
		port: counterGetter("ecn_marked", func(c *Counter) int64 { return c.ECNMarked })},
	{Name: "port.drops", Direction: HigherIsWorse, Default: Tolerance{Rel: 0.20}, Means: "packets the port dropped",
		port: counterGetter("drops", func(c *Counter) int64 { return c.Drops })},
}

func init() {
	for i := range Metrics {
		Metrics[i].Scope = ScopeSummary
	}
	for i := range TransportMetrics {
		TransportMetrics[i].Scope = ScopeSummary
	}
	for i := range RoleMetrics {
		RoleMetrics[i].Scope = ScopeRole
	}
	for i := range PortMetrics {
		PortMetrics[i].Scope = ScopePort
	}
}

// AllMetrics lists every compared metric: summary, role, port, nccl-tests
// table.
func AllMetrics() []Metric {
	return slices.Concat(Metrics, TransportMetrics, RoleMetrics, PortMetrics, NCCLMetrics)
}

// Tolerances overrides default tolerances by metric name.
type Tolerances map[string]Tolerance

func metricByName(name string) (Metric, bool) {
	for _, m := range AllMetrics() {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

func metricNames() string { return strings.Join(MetricNames(AllMetrics()), ", ") }

// MetricNames lists the metrics' names, as --tolerance takes them.
func MetricNames(ms []Metric) []string {
	n := make([]string, len(ms))
	for i, m := range ms {
		n[i] = m.Name
	}
	return n
}

// ParseTolerance parses one "metric=value" override, as --tolerance
// takes it (ParseToleranceOf says what a metric and a value may be).
func ParseTolerance(s string) (string, Tolerance, error) {
	name, val, ok := strings.Cut(s, "=")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !ok || name == "" || val == "" {
		return "", Tolerance{}, fmt.Errorf("tolerance %q: want metric=value, for example throughput_gbps_total=3%%, role.latency_us_p50=20%%, role[victim].latency_us_p50=5%% or port.queue_p99_bytes=25%%+65536", s)
	}
	return ParseToleranceOf(name, val)
}

// ParseToleranceOf parses the tolerance val of metric name: a relative
// tolerance ("3%"), an absolute one ("5"), both ("10%+2": the larger), or
// "off". Metric names are the summary's (throughput_gbps_total), a role's
// (role.latency_us_p50, every role) or one role's (role[victim].
// latency_us_p50, which that role takes instead of role.latency_us_p50),
// a port's (port.queue_p99_bytes) or an nccl-tests table's. The name it
// returns is the key Tolerances holds it under.
func ParseToleranceOf(name, val string) (string, Tolerance, error) {
	s := name + "=" + val
	metric := name
	if strings.HasPrefix(name, "role[") {
		_, m, ok := splitRoleScoped(name)
		if !ok {
			return "", Tolerance{}, fmt.Errorf("tolerance %q: a role's own tolerance is role[<role>].<metric>, such as role[victim].latency_us_p50", s)
		}
		metric = m
	}
	m, ok := metricByName(metric)
	if !ok && metric != name {
		names := MetricNames(RoleMetrics)
		if near := suggest.Nearest(metric, names); near != "" {
			return "", Tolerance{}, fmt.Errorf("tolerance %q: %s is not a role's metric: did you mean %s?", s, metric, near)
		}
		return "", Tolerance{}, fmt.Errorf("tolerance %q: %s is not a role's metric, so it cannot be set for one role; a role's are %s", s, metric, strings.Join(names, ", "))
	}
	if !ok {
		// A role's or a port's metric named without its scope
		// (latency_us_p50 for role.latency_us_p50), else a typo.
		near := ""
		for _, scope := range []string{"role.", "port.", "nccl."} {
			if _, ok := metricByName(scope + metric); ok && near == "" {
				near = scope + metric
			}
		}
		if near == "" {
			near = suggest.Nearest(metric, MetricNames(AllMetrics()))
		}
		if near != "" {
			return "", Tolerance{}, fmt.Errorf("tolerance %q: unknown metric %q: did you mean %s?", s, metric, near)
		}
		return "", Tolerance{}, fmt.Errorf("tolerance %q: unknown metric %q; metrics are %s", s, metric, metricNames())
	}
	if val == "off" {
		return name, Tolerance{Disabled: true}, nil
	}
	var t Tolerance
	parts := toleranceParts(val)
	if len(parts) > 2 {
		return "", Tolerance{}, fmt.Errorf("tolerance %q: %q has %d parts: a tolerance is a percentage, an absolute value, or a percentage and its floor joined by one + (10%%+2)", s, val, len(parts))
	}
	seenPct, seenAbs := false, false
	for i, part := range parts {
		part = strings.TrimSpace(part)
		switch {
		case part == "" && i == 0 && strings.TrimSpace(val[1:]) != "":
			return "", Tolerance{}, fmt.Errorf("tolerance %q: a tolerance takes no sign: it is how far %s may move in its worse direction (%s); write %s", s, name, m.Direction, strings.TrimSpace(strings.TrimPrefix(val, "+")))
		case part == "":
			return "", Tolerance{}, fmt.Errorf("tolerance %q: nothing after the +: a + joins a percentage and its floor, such as 10%%+2", s)
		}
		pct := strings.HasSuffix(part, "%")
		if pct && seenPct || !pct && seenAbs {
			return "", Tolerance{}, fmt.Errorf("tolerance %q: two %s: give a percentage and an absolute floor, such as 10%%+2", s, map[bool]string{true: "percentages", false: "absolute values"}[pct])
		}
		seenPct, seenAbs = seenPct || pct, seenAbs || !pct
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
	// A figure that regresses by falling falls by 100% at most: a
	// tolerance of that or more could never flag it.
	if m.Direction == LowerIsWorse && t.Rel >= 1 {
		return "", Tolerance{}, fmt.Errorf("tolerance %q: %s regresses when it falls, by 100%% at most, so %s could never flag it; give less than 100%%, or off to stop comparing it", s, name, val)
	}
	return name, t, nil
}

// roleScopedName is the key of role's own tolerance for role metric m
// (role[victim].latency_us_p50 for role.latency_us_p50).
func roleScopedName(m Metric, role string) string {
	return "role[" + role + "]." + strings.TrimPrefix(m.Name, "role.")
}

// splitRoleScoped reads a role's own tolerance name (roleScopedName's
// form): role[victim].latency_us_p50 is role victim and metric
// role.latency_us_p50. ok is false for any other name.
func splitRoleScoped(name string) (role, metric string, ok bool) {
	rest, scoped := strings.CutPrefix(name, "role[")
	role, field, found := strings.Cut(rest, "].")
	if !scoped || !found || role == "" || strings.ContainsAny(role, "[]") {
		return "", "", false
	}
	return role, "role." + field, true
}

// toleranceParts splits a tolerance at the + that joins its percentage
// and its floor, not at the + of a number's exponent (25%+1e+06 is 25%
// and 1e+06).
func toleranceParts(val string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(val); i++ {
		if val[i] == '+' && (i == 0 || (val[i-1] != 'e' && val[i-1] != 'E')) {
			parts = append(parts, val[start:i])
			start = i + 1
		}
	}
	return append(parts, val[start:])
}

// ParseTolerances parses repeated --tolerance values.
func ParseTolerances(specs []string) (Tolerances, error) {
	out := Tolerances{}
	for _, s := range specs {
		name, t, err := ParseTolerance(s)
		if err != nil {
			return nil, err
		}
		if prev, dup := out[name]; dup {
			// The last one silently won: which was meant?
			return nil, fmt.Errorf("tolerance %s given twice (%s, then %s): give each metric one --tolerance", name, prev, t)
		}
		t.From = FromFlag
		out[name] = t
	}
	return out, nil
}

// of is metric m's tolerance at a place of role (none: ""): the role's
// own where one is given, else the metric's override, else its default.
func (tol Tolerances) of(m Metric, role string) Tolerance {
	if role != "" {
		if o, ok := tol[roleScopedName(m, role)]; ok {
			return o
		}
	}
	if o, ok := tol[m.Name]; ok {
		return o
	}
	return m.Default
}

// notComputedWhy says why v's summary has no value for field (by JSON
// name), or "" when it has one: the one reason (Variant.NotComputedReason)
// for every figure of the variant, which compareVariant lists the
// variant's reasons by.
func notComputedWhy(v *Variant, field string) string {
	if v == nil || !slices.Contains(v.Summary.NotComputed, field) {
		return ""
	}
	return v.NotComputedReason(field)
}

// roleStats aggregates the flows of one role of a variant.
type roleStats struct {
	name    string
	variant *Variant // whose summary says which figures are not computed
	source  Source   // the first flow's: measured, simulated or estimated
	flows   int
	tputSum float64
	tputMin float64
	lat     []*Latency // flows that have a latency
	retx    int64
	// noRetx counts the flows without a retransmit count (Flow.Retransmits).
	noRetx int
	failed int // flows whose State is FlowFailed
	// fctFlows counts the flows with a completion time, fctMax the longest.
	fctFlows int
	fctMax   float64
}

// roleOf is the role a flow is compared under: its role, else its pattern.
func roleOf(f *Flow) string {
	switch {
	case f.Role != "":
		return f.Role
	case f.Pattern != "":
		return f.Pattern
	}
	return "-"
}

// roles groups a variant's flows by role, in the order roles first appear.
func roles(v *Variant) (map[string]*roleStats, []string) {
	out := map[string]*roleStats{}
	var order []string
	for i := range v.Flows {
		f := &v.Flows[i]
		name := roleOf(f)
		r := out[name]
		if r == nil {
			r = &roleStats{name: name, variant: v, source: f.Source, tputMin: math.Inf(1)}
			out[name] = r
			order = append(order, name)
		}
		r.flows++
		r.tputSum += f.ThroughputGbps
		r.tputMin = math.Min(r.tputMin, f.ThroughputGbps)
		if f.Retransmits != nil {
			r.retx += *f.Retransmits
		} else {
			r.noRetx++
		}
		if f.State == FlowFailed {
			r.failed++
		}
		if f.LatencyUs != nil {
			r.lat = append(r.lat, f.LatencyUs)
		}
		if f.FCTUs != nil {
			r.fctFlows++
			r.fctMax = math.Max(r.fctMax, *f.FCTUs)
		}
	}
	for _, r := range out {
		// Sums of rounded figures: keep float noise out of the output.
		r.tputSum = math.Round(r.tputSum*1e6) / 1e6
	}
	return out, order
}

// latency reduces the role's flows' latency by pick (a percentile) and
// agg (median or max), or says why it has none.
func (r *roleStats) latency(pick func(*Latency) float64, agg func([]float64) float64) (float64, string) {
	if why := notComputedWhy(r.variant, "latency_us_p99"); why != "" {
		return 0, why
	}
	if len(r.lat) == 0 {
		return 0, "no flow of the role has a latency (no packet delivered in the measurement window, or none measured)"
	}
	xs := make([]float64, len(r.lat))
	for i, l := range r.lat {
		xs[i] = pick(l)
	}
	return agg(xs), ""
}

// median of xs (not empty): the middle value, or the mean of the two.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// portKey names one port and priority.
type portKey struct {
	Node, Port string
	Priority   int
}

func (k portKey) String() string { return fmt.Sprintf("%s %s priority %d", k.Node, k.Port, k.Priority) }

// portSide is one record's counters of a variant, for the port compare.
type portSide struct {
	rows    map[portKey]*Counter
	variant *Variant // whose summary says which figures are not computed
	// queueNodes are the nodes whose rows carry queue depth: the model
	// kept it at every port of theirs, so a port without a row had an
	// empty queue.
	queueNodes map[string]bool
}

func newPortSide(v *Variant) *portSide {
	s := &portSide{rows: map[portKey]*Counter{}, variant: v, queueNodes: map[string]bool{}}
	for i := range v.Counters {
		c := &v.Counters[i]
		s.rows[portKey{c.Node, c.Port, c.Priority}] = c
		if c.QueueP99Bytes != nil {
			s.queueNodes[c.Node] = true
		}
	}
	return s
}

// congested says whether a row shows congestion: a pause sent or
// received, a mark, a drop, or a queue p99 of CongestedQueueBytes or more.
func congested(c *Counter) bool {
	return c.PFCTx > 0 || c.PFCRx > 0 || c.ECNMarked > 0 || c.Drops > 0 ||
		(c.QueueP99Bytes != nil && *c.QueueP99Bytes >= CongestedQueueBytes)
}

// queueGetter reads a queue depth of a port's row. A port without a row
// on a node whose other rows carry queue depth queued nothing (the
// simulator lists only ports with traffic); otherwise the depth is absent.
func queueGetter(get func(*Counter) *int64) func(*portSide, portKey) (float64, string) {
	return func(s *portSide, k portKey) (float64, string) {
		if c := s.rows[k]; c != nil && get(c) != nil {
			return float64(*get(c)), ""
		} else if c == nil && s.queueNodes[k.Node] {
			return 0, ""
		}
		if len(s.queueNodes) == 0 {
			return 0, "its counters carry no queue depth (a record made before labctl kept it, or counters read from live switches)"
		}
		return 0, "no queue depth at this port (a NIC's: only switch ports have one)"
	}
}

// counterGetter reads a counter of a port's row; a port without a row
// counted nothing, as the record lists only ports with traffic. A counter
// the model does not compute (the summary's field not computed) is absent.
func counterGetter(field string, get func(*Counter) int64) func(*portSide, portKey) (float64, string) {
	return func(s *portSide, k portKey) (float64, string) {
		if why := notComputedWhy(s.variant, field); why != "" {
			return 0, why
		}
		if len(s.rows) == 0 {
			return 0, "the variant has no port counters"
		}
		if c := s.rows[k]; c != nil {
			return float64(get(c)), ""
		}
		return 0, ""
	}
}

// congestedPorts lists the ports and priorities congested on any side
// (the baseline's and the run's, of each repetition compared), ordered by
// node, port (numbers in port names in numeric order) and priority.
func congestedPorts(sides ...*portSide) []portKey {
	seen := map[portKey]bool{}
	var out []portKey
	for _, s := range sides {
		for k, c := range s.rows {
			if !seen[k] && congested(c) {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.Node != y.Node {
			return naturalLess(x.Node, y.Node)
		}
		if x.Port != y.Port {
			return naturalLess(x.Port, y.Port)
		}
		return x.Priority < y.Priority
	})
	return out
}

// naturalLess orders strings with their digit runs compared as numbers:
// Ethernet4 before Ethernet32.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.ParseUint(da, 10, 64)
			nb, _ := strconv.ParseUint(db, 10, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && i < 18 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
