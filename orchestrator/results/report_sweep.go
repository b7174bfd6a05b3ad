package results

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
)

// A run whose scenario sweeps parameters (Run.Sweep) gets, per swept
// parameter, a table and charts of each metric against the parameter's
// value: one line per combination of the other dimensions (ECN, PFC, the
// other swept parameters, the repetition), so a chart reads "p99 rises
// with Kmin, with PFC on and off".

// sweepMetric is a summary field charted against a swept value.
type sweepMetric struct {
	field, title, unit string
	get                func(Summary) float64
}

var sweepMetrics = []sweepMetric{
	{"throughput_gbps_total", "Throughput", "Gb/s", func(s Summary) float64 { return s.ThroughputGbpsTotal }},
	{"throughput_gbps_min_flow", "Slowest flow", "Gb/s", func(s Summary) float64 { return s.ThroughputGbpsMinFlow }},
	{"latency_us_p99", "p99 latency", "µs", func(s Summary) float64 { return s.LatencyUsP99 }},
	{"pfc_pause_frames", "PFC pause frames", "frames", func(s Summary) float64 { return float64(s.PFCPauseFrames) }},
	{"drops", "Drops", "packets", func(s Summary) float64 { return float64(s.Drops) }},
	{"ecn_marked", "ECN marks", "packets", func(s Summary) float64 { return float64(s.ECNMarked) }},
	{"cnp", "CNPs", "packets", func(s Summary) float64 { return float64(s.CNP) }},
	{"retransmits", "Retransmits", "packets", func(s Summary) float64 { return float64(s.Retransmits) }},
	// Sized traffic: how long the last flow took and the goodput of all
	// of them over that time (absent for long-lived flows).
	{"completion_us", "Completion (last flow)", "µs", func(s Summary) float64 { return orNaN(s.CompletionUs) }},
	{"goodput_gbps_aggregate", "Aggregate goodput", "Gb/s", func(s Summary) float64 { return orNaN(s.GoodputGbpsAggregate) }},
}

// orNaN is *p, or NaN (a gap in charts and tables) when the record has
// no such figure.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// sweepLine is the points of one combination of the other dimensions,
// one per value of the swept parameter (nil where the run has none).
// Label names the combination with the parameters' paths, for tables;
// ChartLabel with their short names, for legends.
type sweepLine struct {
	Label, ChartLabel string
	Points            []*Variant
}

// sweepView is one swept parameter of a run.
type sweepView struct {
	Path   string
	Values []string
	Lines  []sweepLine
}

// sweepViews groups a run's variants by each swept parameter.
func sweepViews(run *Run) []sweepView {
	var out []sweepView
	varies, short := variedDims(run), sweepShortNames(run)
	for _, dim := range run.Sweep {
		sv := sweepView{Path: dim.Path, Values: dim.Values}
		at := map[string]int{}
		for i := range run.Variants {
			v := &run.Variants[i]
			vi := slices.Index(dim.Values, v.Params[dim.Path])
			if vi < 0 {
				continue
			}
			label := otherDims(run, v, dim.Path, varies, nil)
			li, ok := at[label]
			if !ok {
				li = len(sv.Lines)
				at[label] = li
				sv.Lines = append(sv.Lines, sweepLine{Label: label, ChartLabel: otherDims(run, v, dim.Path, varies, short), Points: make([]*Variant, len(dim.Values))})
			}
			sv.Lines[li].Points[vi] = v
		}
		out = append(out, sv)
	}
	return out
}

// variedDims says which of ECN and PFC take more than one value in the
// run (the swept parameters always do).
func variedDims(run *Run) map[string]bool {
	seen := map[string]map[bool]bool{"ecn": {}, "pfc": {}}
	for _, v := range run.Variants {
		seen["ecn"][v.ECN] = true
		seen["pfc"][v.PFC] = true
	}
	return map[string]bool{"ecn": len(seen["ecn"]) > 1, "pfc": len(seen["pfc"]) > 1}
}

// otherDims names a variant by the dimensions other than path that vary
// in the run (ECN and PFC when both take two values, the other swept
// parameters, by the names in short where it has them) and its
// repetition; "ecn=on,pfc=on" when none does.
func otherDims(run *Run, v *Variant, path string, varies map[string]bool, short map[string]string) string {
	var parts []string
	if varies["ecn"] {
		parts = append(parts, "ecn="+onOffWord(v.ECN))
	}
	if varies["pfc"] {
		parts = append(parts, "pfc="+onOffWord(v.PFC))
	}
	for _, d := range run.Sweep {
		if d.Path != path && len(d.Values) > 1 {
			parts = append(parts, cmp.Or(short[d.Path], d.Path)+"="+v.Params[d.Path])
		}
	}
	if len(parts) == 0 {
		parts = []string{"ecn=" + onOffWord(v.ECN), "pfc=" + onOffWord(v.PFC)}
	}
	label := strings.Join(parts, ",")
	if v.Repetition > 0 {
		label += fmt.Sprintf(" #%d", v.Repetition+1)
	}
	return label
}

// chartName is a variant's name in the charts of a sweep: what differs
// between the run's variants ("kmin_kb=100", "pfc=off,kmin_kb=400"), as
// the full names ("ecn=on,pfc=on,qos.ecn.kmin_kb=100") would be cut to
// the same prefix in every legend. Without a sweep it is the variant's
// name.
func chartName(run *Run, v *Variant) string {
	if len(run.Sweep) == 0 {
		return v.Label()
	}
	return otherDims(run, v, "", variedDims(run), sweepShortNames(run))
}

// sweepShortNames names each swept parameter by the last part of its path
// ("kmin_kb" for qos.ecn.kmin_kb, "senders" for traffic[0].senders), or
// by its whole path where another swept parameter ends the same.
func sweepShortNames(run *Run) map[string]string {
	last := func(p string) string {
		if i := strings.LastIndexAny(p, ".]"); i >= 0 && i+1 < len(p) {
			return p[i+1:]
		}
		return p
	}
	count := map[string]int{}
	for _, d := range run.Sweep {
		count[last(d.Path)]++
	}
	out := map[string]string{}
	for _, d := range run.Sweep {
		out[d.Path] = d.Path
		if count[last(d.Path)] == 1 {
			out[d.Path] = last(d.Path)
		}
	}
	return out
}

// sweepLegendNote says what the short names in a sweep's charts stand
// for ("kmin_kb is qos.ecn.kmin_kb"), "" when none is short.
func sweepLegendNote(run *Run) string {
	var parts []string
	short := sweepShortNames(run)
	for _, d := range run.Sweep {
		if s := short[d.Path]; s != d.Path && len(d.Values) > 1 {
			parts = append(parts, s+" is "+d.Path)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Charts name variants by what differs between them: " + strings.Join(parts, ", ") + "."
}

// value is a point's metric for a chart: NaN where the variant is absent,
// failed or its model does not compute the field.
func (m sweepMetric) value(v *Variant) float64 {
	if v == nil || v.Error != "" || slices.Contains(v.Summary.NotComputed, m.field) {
		return math.NaN()
	}
	return m.get(v.Summary)
}

// sweepCharts draws, for one swept parameter, a chart per metric that is
// not zero everywhere; flat names the metrics left out for being zero.
func sweepCharts(run *Run, sv sweepView) (charts []htmlChart, flat []string) {
	seen := map[string]bool{}
	for _, l := range sv.Lines {
		for _, v := range l.Points {
			if v != nil && v.Summary.Source != "" {
				seen[v.SourceLabel()] = true
			}
		}
	}
	src := joinSources(seen)
	for _, m := range sweepMetrics {
		var lines []line
		nonZero, any := false, false
		for _, l := range sv.Lines {
			ln := line{Name: l.ChartLabel}
			for i, v := range l.Points {
				y := m.value(v)
				any = any || !math.IsNaN(y)
				nonZero = nonZero || (!math.IsNaN(y) && y != 0)
				ln.X, ln.Y = append(ln.X, float64(i)), append(ln.Y, y)
			}
			lines = append(lines, ln)
		}
		if !any {
			continue // no variant has the figure (long-lived flows have no completion)
		}
		if !nonZero {
			flat = append(flat, strings.ToLower(m.title))
			continue
		}
		kind := "sweep-" + m.field
		charts = append(charts, htmlChart{kind, sweepChart(kind, m.title+" vs "+sv.Path, sv.Path, m.unit, src, sv.Values, lines)})
	}
	return charts, flat
}

// sweepChart draws metric lines over the values of a swept parameter,
// spaced evenly (sweeps often double a value), with a marker per point.
// A NaN is a gap.
func sweepChart(kind, title, xLabel, yUnit, source string, xs []string, lines []line) template.HTML {
	omitted := 0
	if len(lines) > maxLines {
		omitted = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	c := &chartFrame{w: 560, h: 260, left: 64, right: 16, top: 30, bottom: 30, labelH: 36, yUnit: yUnit, title: title, source: source, kind: kind, legendMax: 72}
	c.bottom += 24 + 14*float64(len(lines)+1)
	c.h += c.bottom - 30
	yMax := 0.0
	for _, l := range lines {
		yMax = maxOf(yMax, l.Y)
	}
	c.yMax, c.yStep = niceScale(yMax)
	c.open()
	slot := c.plotW() / math.Max(1, float64(len(xs)))
	xp := func(i int) float64 { return c.left + slot*(float64(i)+0.5) }
	for i, x := range xs {
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%s</text>`, xp(i), c.top+c.plotH()+14, esc(truncate(x, 14)))
	}
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="middle">%s</text>`, c.left+c.plotW()/2, c.top+c.plotH()+30, esc(xLabel))
	var names []string
	for li, l := range lines {
		var seg strings.Builder
		flush := func() {
			if pts := strings.TrimSpace(seg.String()); strings.Contains(pts, " ") {
				fmt.Fprintf(&c.b, `<polyline class="line" fill="none" stroke="%s" stroke-width="1.6" points="%s"><title>%s</title></polyline>`, color(li), pts, esc(l.Name))
			}
			seg.Reset()
		}
		for i, y := range l.Y {
			if i >= len(xs) {
				break
			}
			if math.IsNaN(y) {
				flush()
				continue
			}
			fmt.Fprintf(&seg, "%.1f,%.1f ", xp(i), c.y(y))
		}
		flush()
		for i, y := range l.Y {
			if i < len(xs) && !math.IsNaN(y) {
				fmt.Fprintf(&c.b, `<circle class="point" cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s, %s=%s: %s %s</title></circle>`,
					xp(i), c.y(y), color(li), esc(l.Name), esc(xLabel), esc(xs[i]), esc(fmtFloat(y)), esc(yUnit))
			}
		}
		names = append(names, l.Name)
	}
	note := ""
	if omitted > 0 {
		note = fmt.Sprintf("+%d more in run.json", omitted)
	}
	c.legend(names, note)
	return c.close()
}

// configChangeText says what a change did, for the reports:
// "port.*.queue.3.ecn: A -> B (64 ports on leaf1, leaf2)".
func configChangeText(c ConfigChange) string {
	what := "devices"
	if strings.HasPrefix(c.Field, "port.*.") {
		what = "ports"
	}
	from, to := c.From, c.To
	if from == "" {
		from = "(absent)"
	}
	if to == "" {
		to = "(absent)"
	}
	return fmt.Sprintf("%s: %s -> %s (%d %s on %s)", c.Field, from, to, c.Count, what, strings.Join(c.Devices, ", "))
}

// sweepLabel is the run's sweep in one line: "qos.ecn.kmin_kb: 100, 400".
func sweepLabel(run *Run) string {
	var parts []string
	for _, d := range run.Sweep {
		parts = append(parts, d.Path+": "+strings.Join(d.Values, ", "))
	}
	return strings.Join(parts, "; ")
}
