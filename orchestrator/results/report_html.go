package results

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/labctl/labctl/orchestrator/plural"
)

// HTMLOptions adds what the run record does not hold to the HTML report.
type HTMLOptions struct {
	// Topology is drawn as an SVG when set.
	Topology *Topology
	// TopologyMermaid is the lab's mermaid diagram; it is parsed and drawn
	// when Topology is nil, and its text is included for copying.
	TopologyMermaid string
}

type htmlChart struct {
	Kind string
	SVG  template.HTML
}

type htmlSeriesGroup struct {
	Title  string
	Charts []template.HTML
	// Notes say what the charts leave out.
	Notes []string
}

type htmlVariant struct {
	Variant
	// Label is Variant.Label: the name, and the repetition after the
	// first.
	Label string
	// Cells and SimCells are the formatted summary of the variant and of
	// its simulated twin ("—" when it could not run, "n/a" where the model
	// computes nothing).
	Cells       []string
	SimCells    []string
	Sources     string
	SourceClass string
	// FlowLevel marks a flow-level estimate: every figure says so.
	FlowLevel      bool
	Counters       []Counter
	ZeroCounters   int
	AssertionsPass int
	// Moved are the flows link faults sent elsewhere.
	Moved []movedFlow
	// FailedFlows counts the failed flows.
	FailedFlows int64
	// ShownFlows are the flow table's rows and FlowsLeftOut the line
	// saying which flows it leaves out (shownFlows); StateColumn whether
	// the table has a State column (hasStateColumn).
	ShownFlows   []Flow
	FlowsLeftOut string
	StateColumn  bool
	// Transport are the variant's transport lines (TransportLines).
	Transport []string
	// Cost are the variant's "run cost" lines (CostLines).
	Cost []string
	// Idle says when the fabric stopped changing, well before the run's
	// end (idleTail); empty otherwise.
	Idle string
}

// htmlSweep is one swept parameter's charts and table.
type htmlSweep struct {
	sweepView
	Charts []htmlChart
	// Flat names the metrics left out of the charts for being 0 at every
	// point.
	Flat string
}

// htmlConfigs is one variant's configs in the run folder.
type htmlConfigs struct {
	Name, Dir string
	Changes   []string
}

type htmlData struct {
	Run          *Run
	Sweep        string
	Sweeps       []htmlSweep
	Configs      []htmlConfigs
	Title        string
	Status       string
	AssertTotal  int
	AssertFailed int
	Duration     string
	Started      string
	Finished     string
	Sources      string
	Variants     []htmlVariant
	// RepetitionSeeds is results.RepetitionSeeds of the run's seed.
	RepetitionSeeds string
	// SizedNote is SizedFlowsNote where the summary has the completion
	// columns (a variant's flows all had sizes and completed), "" else.
	SizedNote string
	// Repetitions are the points' figures over their repetitions
	// (RepetitionStats), under RepetitionColumns; nil for a run of one
	// repetition a point.
	Repetitions       []PointStats
	RepetitionColumns []string
	Charts            []htmlChart
	ChartNote         string
	SeriesGroups      []htmlSeriesGroup
	Topology          template.HTML
	TopologyMermaid   string
	TopologyNote      string
	Extra             string
	ExtraOrigin       string
	NIC               []nicSettings
	QoS               *qosView
	NCCL              *htmlNCCL
}

// Label names the source of one flow's or counter's figures.
func (d htmlData) Label(s Source, v htmlVariant) string {
	return SourceLabel(s, v.Variant.Model())
}

// RenderHTML writes report.html: one self-contained file (inline CSS and
// SVG, no script, no network access) with the summary, charts of every
// metric kind, the simulator's time series, the topology and the tables.
// Every chart is labelled measured or simulated from its data's source.
func RenderHTML(run *Run, w io.Writer, opts HTMLOptions) error {
	d := htmlData{Run: run, Repetitions: RepetitionStats(run), RepetitionColumns: RepetitionColumns, Title: "labctl run " + run.RunID, Status: run.Status, Started: fmtTime(run.Started),
		Duration: duration(run), Sources: runSources(run), TopologyMermaid: opts.TopologyMermaid, NIC: runNICSettings(run), QoS: runQoSView(run),
		NCCL: runHTMLNCCL(run)}
	d.AssertTotal, d.AssertFailed = assertionCounts(run)
	if run.Finished != nil {
		d.Finished = fmtTime(*run.Finished)
	}
	sized := AnySized(run)
	if sized {
		d.SizedNote = SizedFlowsNote
	}
	d.RepetitionSeeds = RepetitionSeeds(run.Seed)
	for _, v := range run.Variants {
		hv := htmlVariant{Variant: v, Label: v.Label(), Sources: sourcesOf(v), Cells: summaryCells(v.Summary, v.Error != "")}
		if sized {
			hv.Cells = withCompletion(hv.Cells, v.Summary, v.Error != "")
		}
		hv.SourceClass, hv.FlowLevel, hv.Idle = sourceClass(hv.Sources), v.Model() == ModelFlow, idleTail(&v)
		if v.Simulated != nil {
			hv.SimCells = summaryCells(v.Simulated.Summary, v.Simulated.Error != "")
			if sized {
				hv.SimCells = withCompletion(hv.SimCells, v.Simulated.Summary, v.Simulated.Error != "")
			}
		}
		for _, c := range v.Counters {
			if c.PFCTx != 0 || c.PFCRx != 0 || c.ECNMarked != 0 || c.Drops != 0 || c.WatchdogStorms != 0 {
				hv.Counters = append(hv.Counters, c)
			}
		}
		hv.ZeroCounters = len(v.Counters) - len(hv.Counters)
		hv.Moved = movedFlows(v)
		hv.FailedFlows = CountFailed(v.Flows)
		hv.ShownFlows, hv.FlowsLeftOut = shownFlows(run.RunID, &v)
		hv.StateColumn = hasStateColumn(hv.ShownFlows)
		hv.Cost = CostLines(v)
		hv.Transport = TransportLines(v)
		for _, a := range v.Assertions {
			if a.Passed {
				hv.AssertionsPass++
			}
		}
		d.Variants = append(d.Variants, hv)
	}
	if len(run.Extra) > 0 {
		data, err := extraJSON(run)
		if err != nil {
			return fmt.Errorf("render extra results: %w", err)
		}
		d.Extra, d.ExtraOrigin = data, extraOrigin
	}
	d.Charts = summaryCharts(run)
	d.ChartNote = sweepLegendNote(run)
	d.SeriesGroups = seriesCharts(run)
	d.Sweep = sweepLabel(run)
	for _, sv := range sweepViews(run) {
		charts, flat := sweepCharts(run, sv)
		hs := htmlSweep{sweepView: sv, Charts: charts}
		if len(flat) > 0 {
			hs.Flat = "0 at every point, so not charted: " + strings.Join(flat, ", ") + "."
		}
		d.Sweeps = append(d.Sweeps, hs)
	}
	for _, v := range run.Variants {
		if v.Configs == nil || v.Repetition > 0 {
			continue
		}
		hc := htmlConfigs{Name: v.Label(), Dir: v.Configs.Dir}
		for _, c := range v.Configs.Changes {
			hc.Changes = append(hc.Changes, configChangeText(c))
		}
		d.Configs = append(d.Configs, hc)
	}

	topo := opts.Topology
	if topo == nil && strings.TrimSpace(opts.TopologyMermaid) != "" {
		t, err := ParseMermaid(opts.TopologyMermaid)
		if err != nil {
			d.TopologyNote = "The diagram could not be drawn: " + err.Error()
		} else {
			topo = t
		}
	}
	if topo != nil && len(topo.Nodes) > 0 {
		d.Topology = topologySVG(topo)
	}
	return reportTemplate().Execute(w, d)
}

// summaryCharts draws one chart per metric kind across variants.
func summaryCharts(run *Run) []htmlChart {
	// A variant that holds only an nccl-tests table (a record made from
	// nccl-tests output) has no summary figures to chart, not zeros.
	var vs []Variant
	for _, v := range run.Variants {
		if !NCCLOnly(&v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	src := func(get func(Variant) Source) string {
		seen := map[string]bool{}
		for _, v := range vs {
			if s := get(v); s != "" {
				seen[SourceLabel(s, v.Model())] = true
			}
		}
		return joinSources(seen)
	}
	sumSrc := src(func(v Variant) Source { return v.Summary.Source })
	flowSrc := src(func(v Variant) Source {
		if len(v.Flows) > 0 {
			return v.Flows[0].Source
		}
		return ""
	})
	// A sweep's variants are named by what differs between them, so
	// that labels and legends cut to a width still tell them apart.
	names := make([]string, len(vs))
	for i := range vs {
		names[i] = chartName(run, &vs[i])
	}
	groups := func(get func(Variant) []float64) []barGroup {
		var g []barGroup
		for i, v := range vs {
			if v.Error != "" {
				continue // a variant that could not run has no numbers, not zeros
			}
			g = append(g, barGroup{Label: names[i], Values: get(v)})
		}
		return g
	}
	var charts []htmlChart
	charts = append(charts, htmlChart{"throughput", barChart("throughput", "Throughput per variant", "Gb/s", sumSrc,
		[]string{"total", "min flow"}, groups(func(v Variant) []float64 {
			return []float64{v.Summary.ThroughputGbpsTotal, v.Summary.ThroughputGbpsMinFlow}
		}))})

	// Per-flow throughput: one group per flow, one bar per variant.
	flowIDs, flowTitle := chartedFlows(vs)
	if len(flowIDs) > 0 {
		var fg []barGroup
		for _, id := range flowIDs {
			g := barGroup{Label: id}
			for _, v := range vs {
				val := math.NaN()
				for _, f := range v.Flows {
					if f.ID == id {
						val = f.ThroughputGbps
						break
					}
				}
				g.Values = append(g.Values, val)
			}
			fg = append(fg, g)
		}
		charts = append(charts, htmlChart{"flows", barChart("flows", flowTitle, "Gb/s", flowSrc, names, fg)})

		// Every flow, sorted: starved (victim) flows show up at the left
		// however many flows the lab has.
		var lines []line
		for vi, v := range vs {
			tp := make([]float64, 0, len(v.Flows))
			for _, f := range v.Flows {
				if f.HasThroughput() {
					tp = append(tp, f.ThroughputGbps)
				}
			}
			if len(tp) == 0 {
				continue
			}
			sort.Float64s(tp)
			l := line{Name: names[vi]}
			for i, x := range tp {
				pct := 100.0
				if len(tp) > 1 {
					pct = float64(i) / float64(len(tp)-1) * 100
				}
				l.X, l.Y = append(l.X, pct), append(l.Y, x)
			}
			lines = append(lines, l)
		}
		charts = append(charts, htmlChart{"flow-distribution", lineChart("flow-distribution", "Flow throughput, sorted", "flows (percentile, slowest first)", "Gb/s", flowSrc, lines, false)})
	}
	// A figure the variant's model does not compute is no bar (NaN), not
	// a bar of 0.
	fig := func(v Variant, name string, x int64) float64 {
		if slices.Contains(v.Summary.NotComputed, name) {
			return math.NaN()
		}
		return float64(x)
	}
	charts = append(charts, htmlChart{"pfc", barChart("pfc", "PFC pause frames", "frames", sumSrc, []string{"PFC pauses"},
		groups(func(v Variant) []float64 { return []float64{fig(v, "pfc_pause_frames", v.Summary.PFCPauseFrames)} }))})
	charts = append(charts, htmlChart{"ecn", barChart("ecn", "ECN marks and CNPs", "packets", sumSrc, []string{"ECN marked", "CNPs"},
		groups(func(v Variant) []float64 {
			return []float64{fig(v, "ecn_marked", v.Summary.ECNMarked), fig(v, "cnp", v.Summary.CNP)}
		}))})
	charts = append(charts, htmlChart{"loss", barChart("loss", "Drops and retransmits", "packets", sumSrc, []string{"drops", "retransmits"},
		groups(func(v Variant) []float64 {
			return []float64{fig(v, "drops", v.Summary.Drops), fig(v, "retransmits", v.Summary.Retransmits)}
		}))})
	charts = append(charts, htmlChart{"latency", barChart("latency", "Latency percentiles", "µs", sumSrc, []string{"p50 (median flow)", "p99", "max"},
		groups(func(v Variant) []float64 {
			p50, p99, mx, ok := latencyStats(v)
			if !ok {
				return []float64{math.NaN(), math.NaN(), math.NaN()}
			}
			return []float64{p50, p99, mx}
		}))})
	return charts
}

var seriesKinds = []struct{ kind, title, unit string }{
	{"goodput_gbps", "Goodput of all flows", "Gb/s"},
	{SeriesQueueBytes, "Queue depth", "bytes"},
	{"rate_gbps", "Sender rate", "Gb/s"},
	{SeriesPaused, "PFC pause state", ""},
}

// seriesDrawnWith are the kinds drawn in another kind's charts: a
// priority group's use and XOFF point in the queue charts, pauses sent
// beside those received.
var seriesDrawnWith = []string{SeriesPGBytes, SeriesXOFFBytes, SeriesPauseSent}

// seriesCharts draws the time series as small multiples: one chart per
// variant for each kind of quantity.
func seriesCharts(run *Run) []htmlSeriesGroup {
	known := map[string]bool{}
	for _, k := range seriesDrawnWith {
		known[k] = true
	}
	var kinds []struct{ kind, title, unit string }
	for _, k := range seriesKinds {
		known[k.kind] = true
		kinds = append(kinds, k)
	}
	var extra []string
	for _, v := range run.Variants {
		for _, s := range v.Series {
			if !known[s.Kind] {
				known[s.Kind] = true
				extra = append(extra, s.Kind)
			}
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		kinds = append(kinds, struct{ kind, title, unit string }{k, k, ""})
	}
	var out []htmlSeriesGroup
	// A variant whose series stop before its run's end says so under the
	// first group that draws it.
	endNoted := make([]bool, len(run.Variants))
	for _, k := range kinds {
		g := htmlSeriesGroup{Title: k.title}
		for vi := range run.Variants {
			v := &run.Variants[vi]
			drawn := len(g.Charts)
			g.variantCharts(run, v, k.kind, k.title, k.unit)
			if len(g.Charts) > drawn && v.SeriesEndUs > 0 && !endNoted[vi] {
				endNoted[vi] = true
				g.Notes = append(g.Notes, seriesEndNote(v))
			}
		}
		if len(g.Charts) > 0 {
			if slices.ContainsFunc(run.Variants, func(v Variant) bool { return perPriority(&v) }) {
				switch k.kind {
				case SeriesQueueBytes:
					g.Title = "Queue depth, PG use and PFC pauses per port and priority"
				case SeriesPaused:
					g.Title = "PFC pauses received and sent"
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// seriesEndNote says where a variant's series stop before its run's end
// (Variant.SeriesEndUs), and why.
func seriesEndNote(v *Variant) string {
	return fmt.Sprintf("%s: the series end at %s µs of the run's %s µs: nothing in the fabric changed after (the sized work done or failed), every later sample the same as the last; a pause on at the end holds to the run's end.", v.Label(), fmtFloat(v.SeriesEndUs), fmtFloat(v.SimulatedUs))
}

// seriesHeldTo is where the values at the end of v's series hold to, past
// their last sample (line.HeldTo): the run's end, where the record left
// out a quiet tail; 0 where they run to it.
func (v *Variant) seriesHeldTo() float64 {
	if v.SeriesEndUs > 0 {
		return v.SimulatedUs
	}
	return 0
}

// variantCharts adds to g the charts of variant v's series of one kind.
func (g *htmlSeriesGroup) variantCharts(run *Run, v *Variant, kind, title, unit string) {
	var marks []chartMark
	for _, m := range v.Timeline {
		marks = append(marks, chartMark{X: m.TimeUs, Label: fmt.Sprintf("%s: %s %s", fmtFloat(m.TimeUs), m.Kind, m.Where)})
	}
	// Records with series per priority: a chart per busy port and
	// priority, and pause lanes that say which way.
	if perPriority(v) && kind == SeriesQueueBytes {
		charts, more := queueCharts(v, chartName(run, v), marks)
		g.Charts = append(g.Charts, charts...)
		if more > 0 {
			g.Notes = append(g.Notes, fmt.Sprintf("%s: the busiest %d drawn; %s more in run.json.", v.Label(), maxQueueCharts, plural.N(more, "(port, priority) pair")))
		}
		return
	}
	if perPriority(v) && kind == SeriesPaused {
		if c, ok := pauseTimeline(v, chartName(run, v)); ok {
			g.Charts = append(g.Charts, c)
		}
		return
	}
	var lines []line
	seen := map[string]bool{}
	for _, s := range v.Series {
		if s.Kind != kind {
			continue
		}
		lines = append(lines, line{Name: s.Name, X: s.TimeUs, Y: s.Values, HeldTo: v.seriesHeldTo()})
		if s.Source != "" {
			seen[SourceLabel(s.Source, v.Model())] = true
		}
		if unit == "" {
			unit = s.Unit
		}
	}
	switch {
	case len(lines) == 0:
	case kind == "paused":
		g.Charts = append(g.Charts, timelineChart("series-"+kind, title+" — "+v.Label(), "µs", joinSources(seen), lines))
	default:
		g.Charts = append(g.Charts, lineChart("series-"+kind, title+" — "+v.Label(), "time (µs)", unit, joinSources(seen), lines, false, marks...))
	}
}

// reportTemplate is parsed on first use: every labctl command would pay
// for it at start otherwise.
var reportTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"num":       fmtFloat,
		"jain":      fmtJain,
		"int":       fmtInt,
		"intOpt":    fmtIntOpt,
		"flowState": flowState,
		"onoff":     onOffWord,
		"upper":     strings.ToUpper,
		"deref":     func(p *float64) float64 { return *p },
		"failed":    func(v htmlVariant) int { return len(v.Assertions) - v.AssertionsPass },
		"inc":       func(i int) int { return i + 1 },
		"drops":     dropsCell,
		"cells": func(v *Variant) []string {
			if v == nil {
				return []string{"—", "—", "—", "—", "—", "—", "—", "—", "—", "—"}
			}
			return summaryCells(v.Summary, v.Error != "")
		},
		"param": func(v htmlVariant, path string) string { return v.Params[path] },
	}).Parse(reportHTML))
})

const reportHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/>
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0 auto;max-width:1200px;padding:16px 24px;color:#1b1f24;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}h3{font-size:1em}
table{border-collapse:collapse;margin:.5em 0;font-size:.88em}th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f6f8fa}
.status{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;color:#fff;background:#57606a}
.status-passed{background:#1a7f37}.status-failed{background:#cf222e}.status-interrupted{background:#9a6700}.status-running{background:#0969da}
.pass{color:#1a7f37;font-weight:600}.fail{color:#cf222e;font-weight:600}
.meta td:first-child{color:#57606a}
.charts{display:flex;flex-wrap:wrap;gap:14px}
figure{margin:0;border:1px solid #d0d7de;border-radius:6px;padding:6px;background:#fff;max-width:100%;overflow-x:auto}
svg.chart text{font-size:11px;fill:#1b1f24}svg.chart .ct{font-size:13px;font-weight:600}
svg.chart .src{font-size:11px;font-weight:600}svg.chart .src-measured{fill:#1a7f37}svg.chart .src-simulated{fill:#8250df}svg.chart .src-estimated-flow-level{fill:#bc4c00}.badge-estimated-flow-level{border-color:#bc4c00;color:#bc4c00}
svg.chart .grid{stroke:#eaeef2}svg.chart .axisline{stroke:#57606a}svg.chart .tick{fill:#57606a}svg.chart .note{fill:#8c959f;font-style:italic}
svg.topology line{stroke:#8c959f;stroke-width:1}svg.topology rect{fill:#ddf4ff;stroke:#0969da}svg.topology .tier0 rect{fill:#fbefff;stroke:#8250df}
svg.topology .tier1 rect{fill:#fff8c5;stroke:#9a6700}svg.topology .tier3 rect{fill:#dafbe1;stroke:#1a7f37}svg.topology .more rect{fill:#f6f8fa;stroke:#8c959f;stroke-dasharray:3 2}
svg.topology text{font-size:11px;fill:#1b1f24}
.badge{font-size:.75em;padding:1px 6px;border-radius:8px;border:1px solid #8250df;color:#8250df}.badge-measured{border-color:#1a7f37;color:#1a7f37}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:.8em}
.error{border-left:4px solid #cf222e;padding:4px 10px;background:#fff5f5}
.cost{color:#57606a;font-size:.88em}
</style>
</head>
<body>
<header>
<h1>labctl run <code>{{.Run.RunID}}</code></h1>
<p><span class="status status-{{.Status}}">{{upper .Status}}</span>
{{.AssertTotal}} assertions, <span class="{{if .AssertFailed}}fail{{else}}pass{{end}}">{{.AssertFailed}} failed</span>. Numbers: {{.Sources}}.</p>
<table class="meta">
<tr><td>Scenario</td><td>{{.Run.Scenario}}</td></tr>
<tr><td>Lab</td><td>{{.Run.Lab}}</td></tr>
<tr><td>Runtime</td><td>{{.Run.Runtime}}{{with .Run.NOS}} ({{.}}){{end}}</td></tr>
{{with .Run.Imported}}<tr><td>Made from</td><td>{{.Tool}} output: {{range $i, $f := .Files}}{{if $i}}, {{end}}{{$f}}{{end}}</td></tr>{{else}}<tr><td>Seed</td><td>{{.Run.Seed}}</td></tr>{{end}}
<tr><td>Started</td><td>{{.Started}}</td></tr>
<tr><td>Finished</td><td>{{if .Finished}}{{.Finished}} ({{.Duration}}){{else}}not finished{{end}}</td></tr>
{{with .Run.ConfigDigest}}<tr><td>Config digest</td><td><code>{{.}}</code></td></tr>{{end}}
{{with .Run.SimRevision}}<tr><td>Simulator revision</td><td>{{.}}</td></tr>{{end}}
{{with .Sweep}}<tr><td>Sweep</td><td>{{.}}</td></tr>{{end}}
</table>
</header>
<main>
{{if .Variants}}
<h2 id="summary">Summary</h2>
<table>
<tr><th>Variant</th><th>Throughput total (Gb/s)</th><th>Min flow (Gb/s)</th><th>Jain</th><th>Drops</th><th>PFC pauses</th><th>PFC pause (µs)</th><th>ECN marks</th><th>CNPs</th><th>Retransmits</th><th>p99 latency (µs)</th>{{if $.SizedNote}}<th>Done (µs)</th><th>Aggregate (Gb/s)</th>{{end}}<th>Assertions</th><th>Source</th></tr>
{{range .Variants}}<tr><td>{{.Label}}</td>{{range .Cells}}<td class="n">{{.}}</td>{{end}}<td>{{if .Error}}<span class="fail">error</span>{{else if eq (failed .) 0}}<span class="pass">{{.AssertionsPass}}/{{len .Assertions}} pass</span>{{else}}<span class="fail">{{failed .}} of {{len .Assertions}} failed</span>{{end}}</td><td><span class="badge badge-{{.SourceClass}}">{{.Sources}}</span></td></tr>
{{$sim := .SimCells}}{{with .Simulated}}<tr class="simulated"><td>↳ simulated ({{.ConfigSource}})</td>{{range $sim}}<td class="n">{{.}}</td>{{end}}<td>{{if .Error}}<span class="fail">error: {{.Error}}</span>{{else}}—{{end}}</td><td><span class="badge badge-simulated">simulated</span></td></tr>{{end}}
{{end}}</table>
{{with .SizedNote}}<p>{{.}}</p>{{end}}
{{with .Repetitions}}<p>Over each point's repetitions ({{$.RepetitionSeeds}}): the mean, and for rates, fairness and latency min-max.</p>
<table>
<tr><th>Point</th><th>Runs</th>{{range $.RepetitionColumns}}<th>{{.}}</th>{{end}}</tr>
{{range .}}<tr><td>{{.Name}}</td><td class="n">{{.Runs}}</td>{{range .Cells}}<td class="n">{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}

{{if .Charts}}<h2 id="charts">Charts</h2>
{{with .ChartNote}}<p>{{.}}</p>
{{end}}<div class="charts">
{{range .Charts}}<figure data-kind="{{.Kind}}">{{.SVG}}</figure>
{{end}}</div>{{end}}
{{range .Sweeps}}{{$sw := .}}
<h2 id="sweep-{{.Path}}">Sweep: {{.Path}}</h2>
<p>Each metric against {{.Path}}, one line per combination of the other dimensions.{{with .Flat}} {{.}}{{end}}</p>
<div class="charts">
{{range .Charts}}<figure data-kind="{{.Kind}}">{{.SVG}}</figure>
{{end}}</div>
<table class="sweep">
<tr><th>Other dimensions</th><th>{{.Path}}</th><th>Throughput total (Gb/s)</th><th>Min flow (Gb/s)</th><th>Jain</th><th>Drops</th><th>PFC pauses</th><th>PFC pause (µs)</th><th>ECN marks</th><th>CNPs</th><th>Retransmits</th><th>p99 latency (µs)</th></tr>
{{range .Lines}}{{$l := .}}{{range $i, $v := .Points}}<tr><td>{{$l.Label}}</td><td class="n">{{index $sw.Values $i}}</td>{{range cells $v}}<td class="n">{{.}}</td>{{end}}</tr>
{{end}}{{end}}</table>
{{end}}
{{with .NCCL}}
<h2 id="nccl">NCCL</h2>
<p>nccl-tests' out-of-place bus bandwidth by message size ({{.Sources}}): busbw is algbw times the collective's factor (2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and alltoall, 1 for broadcast and sendrecv), comparable across rank counts.</p>
<div class="charts"><figure data-kind="nccl-busbw">{{.Chart}}</figure></div>
{{range .Tables}}{{$tv := .}}<h3>{{.Variant}} <span class="badge badge-{{.Source}}">{{.Source}}</span></h3>
<p>{{.Title}}.{{range .Notes}} {{.}}{{end}}</p>
<table class="nccl">
<tr>{{range .Headers}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if index $tv.Right $i}} class="n"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{end}}
{{with .Configs}}
<h2 id="configs">Configs per point</h2>
<p>Each variant's switch configs are in the run folder: the lab's configs as they were, edits included, with the point's swept values on top and ECN or PFC removed for the off variants. <code>labctl config diff topologies/{{$.Run.Lab}}/configs results/{{$.Run.RunID}}/&lt;folder&gt;</code> lists every field; grouped here:</p>
<table>
<tr><th>Variant</th><th>Folder</th><th>Changes from the lab's configs</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td><code>{{.Dir}}</code></td><td>{{range .Changes}}{{.}}<br/>{{else}}none: the lab's configs{{end}}</td></tr>
{{end}}</table>
{{end}}
{{with .QoS}}
<h2 id="qos">Switch QoS</h2>
<p>{{.Note}}</p>
{{range .Buffers}}<p>{{.}}</p>
{{end}}<table class="qos">
<tr>{{range .Headers}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{with .Lint}}<p>{{.}}</p>{{end}}
{{with .Issues}}<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}
{{range .SeriesGroups}}
<h2>{{.Title}} over time</h2>
<div class="charts">
{{range .Charts}}<figure>{{.}}</figure>
{{end}}</div>
{{range .Notes}}<p>{{.}}</p>
{{end}}{{end}}
{{if .AssertTotal}}
<h2 id="assertions">Assertions</h2>
<table>
<tr><th>Variant</th><th>Assertion</th><th>Result</th><th>Detail</th></tr>
{{range .Variants}}{{$v := .Label}}{{range .Assertions}}<tr><td>{{$v}}</td><td>{{.Name}}{{with .Expr}} <code>{{.}}</code>{{end}}</td><td>{{if .Passed}}<span class="pass">pass</span>{{else}}<span class="fail">FAIL</span>{{end}}</td><td>{{.Detail}}</td></tr>
{{end}}{{range .NotChecked}}<tr><td>{{$v}}</td><td>{{.Name}}{{with .Expr}} <code>{{.}}</code>{{end}}</td><td>not checked</td><td>{{.Reason}}</td></tr>
{{end}}{{end}}</table>
{{end}}
{{else}}
<p>No variant finished.</p>
{{end}}
{{if or .Topology .TopologyMermaid}}
<h2 id="topology">Topology</h2>
{{with .Topology}}<figure>{{.}}</figure>{{end}}
{{with .TopologyNote}}<p class="error">{{.}}</p>{{end}}
{{with .TopologyMermaid}}<details><summary>Mermaid source</summary><pre>{{.}}</pre></details>{{end}}
{{end}}
{{range .NIC}}<h2 id="nic">NIC settings</h2>
<p>{{.Label}} (mlx5 roce_rp/roce_np names):</p>
<table>
<tr><th>Parameter</th><th>Value</th><th>Unit</th></tr>
{{range .Params}}<tr><td>{{.Name}}</td><td class="n">{{.Value}}</td><td>{{.Unit}}</td></tr>
{{end}}</table>
{{end}}
{{with .Extra}}<h2 id="details">Scenario details</h2>
<p>{{$.ExtraOrigin}}</p>
<details><summary>Scenario-specific results (JSON)</summary><pre>{{.}}</pre></details>
{{end}}
{{with .Run.ScenarioYAML}}<h2 id="scenario">Scenario as run</h2>
<details><summary>The scenario's YAML, as the run read it</summary><pre>{{.}}</pre></details>
{{end}}
{{range .Variants}}
<h2>Variant {{.Label}}</h2>
<p>ECN {{onoff .ECN}}, PFC {{onoff .PFC}}{{$v := .}}{{range $.Run.Sweep}}, {{.Path}} {{param $v .Path}}{{end}}{{if .SimulatedUs}}, {{num .SimulatedUs}} µs {{if .FlowLevel}}estimated by the flow-level model (no queues, PFC, ECN or DCQCN){{else}}simulated{{with .Idle}} ({{.}}){{end}}{{end}}{{end}}{{if .Repetition}}, repetition {{.Repetition}}{{end}}. Source: {{.Sources}}.</p>
{{range .Transport}}<p class="transport">{{.}}.</p>{{end}}
{{range .Cost}}<p class="cost">{{.}}.</p>
{{end}}{{with .Error}}<p class="error">Error: {{.}}</p>{{end}}
{{if .Timeline}}<h3>Timeline</h3>
<table>
<tr><th>#</th><th>Time (µs)</th><th>Event</th><th>Where</th><th>Detail</th></tr>
{{range $i, $m := .Timeline}}<tr><td class="n">{{inc $i}}</td><td class="n">{{num $m.TimeUs}}</td><td>{{$m.Kind}}</td><td>{{$m.Where}}</td><td>{{$m.Detail}}</td></tr>
{{end}}</table>
<p>The numbers mark these moments on the time charts above (dashed red lines).</p>{{end}}
{{if .Flows}}<h3>Flows</h3>
{{if .FailedFlows}}<p class="error">{{.FailedFlows}} of the {{len .Flows}} flows failed (their figures are what they did before): see State.</p>
{{end}}{{with .FlowsLeftOut}}<p>{{.}}</p>
{{end}}<table>
<tr><th>Flow</th><th>Pattern</th><th>Role</th><th>Throughput (Gb/s)</th><th>p50 (µs)</th><th>p99 (µs)</th><th>FCT (µs)</th><th>Retransmits</th><th>Source</th>{{if .StateColumn}}<th>State</th>{{end}}</tr>
{{$v := .}}{{range .ShownFlows}}<tr><td>{{.ID}}</td><td>{{.Pattern}}</td><td>{{.Role}}</td><td class="n">{{if .HasThroughput}}{{num .ThroughputGbps}}{{else}}–{{end}}</td>{{with .LatencyUs}}<td class="n">{{num .P50}}</td><td class="n">{{num .P99}}</td>{{else}}<td>–</td><td>–</td>{{end}}<td class="n">{{with .FCTUs}}{{num (deref .)}}{{else}}–{{end}}</td><td class="n">{{intOpt .Retransmits}}</td><td>{{$.Label .Source $v}}</td>{{if $v.StateColumn}}<td{{if eq .State "failed"}} class="fail"{{end}}>{{flowState .}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if .Moved}}<h3>Routes after the faults</h3>
<p>The flows whose data packets end the run on other links than they started on (each switch's egress port, as <code>labctl trace --down</code> shows it).</p>
<table>
<tr><th>Flow</th><th>At the start</th><th>At the end</th></tr>
{{range .Moved}}<tr><td>{{.ID}}</td><td>{{.Before}}</td><td>{{.After}}</td></tr>
{{end}}</table>{{end}}
{{$v := .}}{{if .Counters}}<h3>Port counters of switches and NICs (non-zero PFC, ECN or drops)</h3>
<table>
<tr><th>Node</th><th>Port</th><th>Priority</th><th>TX bytes</th><th>PFC tx</th><th>PFC rx</th><th>ECN marked</th><th>Drops</th><th>Source</th></tr>
{{range .Counters}}<tr><td>{{.Node}}</td><td>{{.Port}}</td><td class="n">{{.Priority}}</td><td class="n">{{int .TxBytes}}</td><td class="n">{{int .PFCTx}}</td><td class="n">{{int .PFCRx}}</td><td class="n">{{int .ECNMarked}}</td><td class="n">{{drops .}}</td><td>{{$.Label .Source $v}}</td></tr>
{{end}}</table>
{{if .ZeroCounters}}<p>{{.ZeroCounters}} more counter rows are zero; see run.json.</p>{{end}}{{end}}
{{end}}
</main>
<footer><p>Written by labctl. This file loads nothing from the network.</p></footer>
</body>
</html>
`

// maxFlowGroups is how many flows the per-flow throughput chart draws:
// as many as the flow table shows.
const maxFlowGroups = maxFlowRows

// chartedFlows are the flows the per-flow throughput chart draws, in the
// order the variants' records first name them, and the chart's title. Of
// more than maxFlowGroups flows it draws the slowest, each flow ranked by
// its least throughput in any variant, so that a flow starved in one
// variant is in view however many flows the lab has (the first 32 of a
// 1,024-rank ring were as good as any, and hid the one that regressed).
func chartedFlows(vs []Variant) ([]string, string) {
	var ids []string
	least := map[string]float64{}
	for _, v := range vs {
		for _, f := range v.Flows {
			if !f.HasThroughput() {
				continue
			}
			if old, seen := least[f.ID]; !seen {
				ids = append(ids, f.ID)
				least[f.ID] = f.ThroughputGbps
			} else if f.ThroughputGbps < old {
				least[f.ID] = f.ThroughputGbps
			}
		}
	}
	if len(ids) <= maxFlowGroups {
		return ids, "Per-flow throughput"
	}
	order := make(map[string]int, len(ids))
	for i, id := range ids {
		order[id] = i
	}
	slowest := slices.Clone(ids)
	slices.SortStableFunc(slowest, func(a, b string) int { return cmp.Compare(least[a], least[b]) })
	slowest = slowest[:maxFlowGroups]
	slices.SortFunc(slowest, func(a, b string) int { return order[a] - order[b] })
	return slowest, fmt.Sprintf("Per-flow throughput (the %d slowest of %d flows, by their least in any variant; every flow in the sorted chart below)", maxFlowGroups, len(ids))
}
