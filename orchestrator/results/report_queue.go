package results

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
)

// Queue charts: one chart per switch port and priority (the series the
// simulator records per priority, TimeSeries.Priority set), the busiest
// first: the egress queue's depth against the ECN thresholds the
// simulated configs give that queue, the ingress priority group's use
// against its XOFF point, and under the plot when the port received a
// PFC pause (its queue stopped) and when it sent one (its PG in XOFF).

// maxQueueCharts is how many (port, priority) charts a variant gets; the
// rest are counted, and listed in run.json.
const maxQueueCharts = 4

// offScale is how far above the data a level may be and still be drawn:
// a dynamic XOFF point megabytes above a queue of kilobytes would flatten
// the queue to nothing, so it is named instead.
const offScale = 4.0

// queuePoint is one switch port's priority with its series.
type queuePoint struct {
	node, port       string
	priority         int
	queue, pg        *int
	depth, pgUse, xo *TimeSeries
	rx, tx           *TimeSeries
}

func (q *queuePoint) where() string { return q.node + ":" + q.port }

// queuePoints groups a variant's per-priority series by port and
// priority, in the order of their first series (the runtime writes the
// busiest first).
func queuePoints(v *Variant) []*queuePoint {
	var out []*queuePoint
	at := map[string]*queuePoint{}
	for i := range v.Series {
		s := &v.Series[i]
		if s.Priority == nil {
			continue
		}
		k := fmt.Sprintf("%s:%s:%d", s.Node, s.Port, *s.Priority)
		q := at[k]
		if q == nil {
			q = &queuePoint{node: s.Node, port: s.Port, priority: *s.Priority}
			at[k] = q
			out = append(out, q)
		}
		if s.Queue != nil {
			q.queue = s.Queue
		}
		if s.PG != nil {
			q.pg = s.PG
		}
		switch s.Kind {
		case SeriesQueueBytes:
			q.depth = s
		case SeriesPGBytes:
			q.pgUse = s
		case SeriesXOFFBytes:
			q.xo = s
		case SeriesPaused:
			q.rx = s
		case SeriesPauseSent:
			q.tx = s
		}
	}
	return out
}

// perPriority says whether a variant's port series are per priority
// (records made before kept them per port).
func perPriority(v *Variant) bool {
	return slices.ContainsFunc(v.Series, func(s TimeSeries) bool { return s.Priority != nil })
}

// queueCharts draws a variant's busiest (port, priority) points, and says
// how many it left out.
func queueCharts(v *Variant, label string, marks []chartMark) (charts []template.HTML, more int) {
	pts := queuePoints(v)
	for i, q := range pts {
		if q.depth == nil && q.pgUse == nil {
			continue
		}
		if len(charts) == maxQueueCharts {
			more = len(pts) - i
			break
		}
		charts = append(charts, queueChart(q, label, SourceLabel(Simulated, v.Model()), v.seriesHeldTo(), marks))
	}
	return charts, more
}

// level is a horizontal line across a chart.
type level struct {
	name  string
	value float64
	color string
}

// queueChart draws one port's priority; a pause on at its series' last
// sample holds to heldTo (line.HeldTo).
func queueChart(q *queuePoint, variant, source string, heldTo float64, marks []chartMark) template.HTML {
	title := fmt.Sprintf("%s priority %d — %s", q.where(), q.priority, variant)
	var lines []line
	var colors []string
	var dashed []bool
	add := func(s *TimeSeries, name, color string, dash bool) {
		lines = append(lines, line{Name: name, X: s.TimeUs, Y: s.Values})
		colors, dashed = append(colors, color), append(dashed, dash)
	}
	if s := q.depth; s != nil {
		add(s, fmt.Sprintf("egress queue %s depth", intOr(q.queue, "?")), color(0), false)
	}
	var notes []string
	if q.depth == nil {
		// The runtime leaves out a queue that stayed empty.
		notes = append(notes, fmt.Sprintf("egress queue %s empty throughout", intOr(q.queue, "?")))
	}
	pgName := "PG " + intOr(q.pg, "?")
	if s := q.pgUse; s != nil {
		add(s, "ingress "+pgName+" use", color(1), false)
	}
	// Each level is drawn where it comes near the line it applies to:
	// ECN's to the queue's depth, the XOFF point to the PG's use.
	queueMax, pgMax := 1.0, 1.0
	if q.depth != nil {
		queueMax = maxOf(queueMax, q.depth.Values)
	}
	if q.pgUse != nil {
		pgMax = maxOf(pgMax, q.pgUse.Values)
	}
	// The XOFF point moves with the pool's free space (a dynamic
	// threshold); it is drawn where it comes near the data.
	if s := q.xo; s != nil {
		lo := math.Inf(1)
		for _, y := range s.Values {
			if y > 0 {
				lo = math.Min(lo, y)
			}
		}
		if lo <= offScale*pgMax {
			add(s, pgName+" XOFF point", "#cf222e", true)
		} else if !math.IsInf(lo, 0) {
			notes = append(notes, fmt.Sprintf("%s XOFF point at %s or more, above the chart", pgName, fmtBytes(lo)))
		}
	}
	var levels []level
	if s := q.depth; s != nil {
		for i, th := range s.Thresholds {
			c := []string{"#2ca02c", "#9467bd"}[i%2]
			if th.Value <= offScale*queueMax {
				levels = append(levels, level{name: th.Name + " " + fmtBytes(th.Value), value: th.Value, color: c})
			} else {
				notes = append(notes, fmt.Sprintf("%s at %s, above the chart", th.Name, fmtBytes(th.Value)))
			}
		}
		if len(s.Thresholds) == 0 {
			notes = append(notes, "no ECN marking on this queue")
		}
	}
	if q.rx == nil && q.tx == nil {
		notes = append(notes, "no PFC pause received or sent")
	}
	lanes := []lane{
		{name: "received", title: "PFC pause received: the peer stopped this port's queue " + intOr(q.queue, "?"), color: "#d62728", s: q.rx, heldTo: heldTo},
		{name: "sent", title: "PFC pause sent: " + pgName + " in XOFF stopped the peer", color: "#6639ba", s: q.tx, heldTo: heldTo},
	}
	return queueSVG(title, source, lines, colors, dashed, levels, lanes, notes, marks)
}

func intOr(p *int, none string) string {
	if p == nil {
		return none
	}
	return fmt.Sprint(*p)
}

// lane is a row of bars under a chart where a 0/1 series is 1.
type lane struct {
	name, title, color string
	s                  *TimeSeries
	heldTo             float64 // as line.HeldTo
}

// queueSVG draws byte lines, level lines and pause lanes on one time
// axis.
func queueSVG(title, source string, lines []line, colors []string, dashed []bool, levels []level, lanes []lane, notes []string, marks []chartMark) template.HTML {
	const laneH = 13.0
	c := &chartFrame{w: 560, h: 240, left: 64, right: 16, top: 30, bottom: 30, labelH: 36, yUnit: "bytes", title: title, source: source, kind: "series-queue"}
	lanesH := laneH * float64(len(lanes))
	names := len(lines) + len(levels)
	c.bottom += lanesH + 24 + 14*math.Ceil(float64(names+1)/2) + 14*float64(len(notes))
	c.h += c.bottom - 30
	xMin, xMax, yMax := math.Inf(1), math.Inf(-1), 0.0
	for _, l := range lines {
		for i := range min(len(l.X), len(l.Y)) {
			xMin, xMax = math.Min(xMin, l.X[i]), math.Max(xMax, l.X[i])
			yMax = math.Max(yMax, l.Y[i])
		}
	}
	for _, lv := range levels {
		yMax = math.Max(yMax, lv.value)
	}
	if math.IsInf(xMin, 0) {
		xMin, xMax = 0, 1
	}
	if xMax <= xMin {
		xMax = xMin + 1
	}
	c.yMax, c.yStep = niceScale(yMax)
	// The lanes sit between the plot and the time axis: the frame's plot
	// ends above them.
	c.labelH += lanesH
	c.open()
	xp := func(x float64) float64 { return c.left + (x-xMin)/(xMax-xMin)*c.plotW() }
	axisY := c.top + c.plotH() + lanesH
	for i := 0; i <= 4; i++ {
		x := xMin + (xMax-xMin)*float64(i)/4
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%s</text>`, xp(x), axisY+14, esc(fmtTick(x)))
	}
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="middle">time (µs)</text>`, c.left+c.plotW()/2, axisY+30)
	for i, m := range marks {
		if m.X < xMin || m.X > xMax {
			continue
		}
		x := xp(m.X)
		fmt.Fprintf(&c.b, `<line class="mark" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#cf222e" stroke-dasharray="4 3"><title>%s</title></line>`,
			x, x, c.top, axisY, esc(m.Label))
		fmt.Fprintf(&c.b, `<text class="marklabel" x="%.1f" y="%.1f" fill="#cf222e">%d</text>`, x+2, c.top+10, i+1)
	}
	for _, lv := range levels {
		y := c.y(lv.value)
		fmt.Fprintf(&c.b, `<line class="level" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.2" stroke-dasharray="6 3"><title>%s</title></line>`,
			c.left, c.left+c.plotW(), y, y, lv.color, esc(lv.name))
	}
	var legend []legendItem
	for li, l := range lines {
		xs, ys := downsample(l.X, l.Y, maxPoints)
		var pts strings.Builder
		for i := range xs {
			fmt.Fprintf(&pts, "%.1f,%.1f ", xp(xs[i]), c.y(ys[i]))
		}
		dash := ""
		if dashed[li] {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&c.b, `<polyline class="line" fill="none" stroke="%s" stroke-width="1.6"%s points="%s"><title>%s</title></polyline>`,
			colors[li], dash, strings.TrimSpace(pts.String()), esc(l.Name))
		legend = append(legend, legendItem{name: l.Name, color: colors[li], dashed: dashed[li]})
	}
	for _, lv := range levels {
		legend = append(legend, legendItem{name: lv.name, color: lv.color, dashed: true})
	}
	for i, ln := range lanes {
		y := c.top + c.plotH() + laneH*float64(i)
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="end">%s<title>%s</title></text>`, c.left-6, y+laneH-3, esc(ln.name), esc(ln.title))
		fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, c.left, c.left+c.plotW(), y+laneH-0.5, y+laneH-0.5)
		if ln.s == nil {
			continue
		}
		onIntervals(ln.s.TimeUs, ln.s.Values, xMax, ln.heldTo, func(from, to, drawTo float64) {
			x0, x1 := xp(from), xp(drawTo)
			if x1-x0 < 1 {
				x1 = x0 + 1 // a short pause stays visible
			}
			fmt.Fprintf(&c.b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s-%s µs</title></rect>`,
				x0, y+2, x1-x0, laneH-4, ln.color, esc(ln.title), esc(fmtFloat(from)), esc(fmtFloat(to)))
		})
	}
	c.legendItems(legend, notes)
	return c.close()
}

// legendItem is one legend entry: a line's colour, dashed for levels.
type legendItem struct {
	name, color string
	dashed      bool
}

// legendItems lists named, coloured entries below the time axis, as many
// to a row as fit, then the notes, one to a line.
func (c *chartFrame) legendItems(items []legendItem, notes []string) {
	x := c.left
	y := c.top + c.plotH() + c.labelH + 14
	for _, it := range items {
		label := truncate(it.name, 40)
		itemW := 22 + float64(len([]rune(label)))*6.2 + 16
		if x > c.left && x+itemW > c.w-c.right {
			x = c.left
			y += 14
		}
		dash := ""
		if it.dashed {
			dash = ` stroke-dasharray="4 2"`
		}
		fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/><text x="%.1f" y="%.1f" class="leg">%s<title>%s</title></text>`,
			x, x+16, y-4, y-4, it.color, dash, x+20, y, esc(label), esc(it.name))
		x += itemW
	}
	for _, n := range notes {
		y += 14
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="leg note">%s</text>`, c.left, y, esc(n))
	}
}

// pauseTimeline is a variant's pauses, a lane per port, priority and
// direction: received (the port's queue stopped by its peer) or sent (the
// port's PG in XOFF, stopping the peer).
func pauseTimeline(v *Variant, variant string) (template.HTML, bool) {
	var lines []line
	for _, q := range queuePoints(v) {
		for _, s := range []struct {
			ts  *TimeSeries
			way string
		}{{q.rx, "received"}, {q.tx, "sent"}} {
			if s.ts != nil {
				lines = append(lines, line{Name: fmt.Sprintf("%s p%d %s", q.where(), q.priority, s.way), X: s.ts.TimeUs, Y: s.ts.Values, HeldTo: v.seriesHeldTo()})
			}
		}
	}
	if len(lines) == 0 {
		return "", false
	}
	return timelineChart("series-paused", "PFC pauses received and sent — "+variant, "µs", SourceLabel(Simulated, v.Model()), lines), true
}
