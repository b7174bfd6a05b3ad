package results

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strings"
)

// The charts are hand-written SVG so report.html needs no script, font or
// stylesheet from the network. Every text that reaches the SVG goes through
// esc; numbers are formatted by the code.

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

func esc(s string) string { return html.EscapeString(s) }

func color(i int) string { return palette[i%len(palette)] }

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	exp := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*exp >= v*(1-1e-9) {
			return m * exp
		}
	}
	return 10 * exp
}

// maxOf is the largest of m and the values that are numbers (a NaN is a
// value a model does not compute).
func maxOf(m float64, vs []float64) float64 {
	for _, v := range vs {
		if !math.IsNaN(v) {
			m = math.Max(m, v)
		}
	}
	return m
}

// niceScale picks a round tick step (1, 2 or 5 times a power of ten) and
// the axis maximum as a whole number of steps, about five ticks for v.
func niceScale(v float64) (max, step float64) {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1, 0.25
	}
	step = niceCeil(v / 5)
	return step * math.Ceil(v/step-1e-9), step
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

type barGroup struct {
	Label  string
	Values []float64
}

type chartFrame struct {
	b             strings.Builder
	w, h          float64
	left, right   float64
	top, bottom   float64
	yMax, yStep   float64
	labelH        float64 // height of the x axis labels under the plot
	yUnit         string
	title, source string
	kind          string
	// legendMax is how many characters of a legend entry are shown (28
	// when 0).
	legendMax int
}

func (c *chartFrame) plotW() float64 { return c.w - c.left - c.right }
func (c *chartFrame) plotH() float64 { return c.h - c.top - c.bottom }
func (c *chartFrame) y(v float64) float64 {
	return c.top + c.plotH() - v/c.yMax*c.plotH()
}

func (c *chartFrame) open() {
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="%s" data-source="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		esc(c.kind), esc(c.source), c.w, c.h, c.w, c.h, esc(c.title+" ("+c.source+")"))
	fmt.Fprintf(&c.b, `<title>%s (%s)</title>`, esc(c.title), esc(c.source))
	fmt.Fprintf(&c.b, `<text x="%.0f" y="18" class="ct">%s</text>`, c.left, esc(c.title))
	fmt.Fprintf(&c.b, `<text x="%.0f" y="18" class="src src-%s" text-anchor="end">%s</text>`, c.w-c.right, esc(sourceClass(c.source)), esc(c.source))
	// Horizontal grid and y labels.
	for i := 0; float64(i)*c.yStep <= c.yMax*(1+1e-9); i++ {
		v := float64(i) * c.yStep
		y := c.y(v)
		fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, c.left, c.left+c.plotW(), y, y)
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="end">%s</text>`, c.left-6, y+4, esc(fmtTick(v)))
	}
	fmt.Fprintf(&c.b, `<text x="14" y="%.1f" class="axis" transform="rotate(-90 14 %.1f)" text-anchor="middle">%s</text>`,
		c.top+c.plotH()/2, c.top+c.plotH()/2, esc(c.yUnit))
	fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="axisline"/>`, c.left, c.left, c.top, c.top+c.plotH())
	fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="axisline"/>`, c.left, c.left+c.plotW(), c.top+c.plotH(), c.top+c.plotH())
}

// legend lists names below the axis labels, wrapping to new rows.
func (c *chartFrame) legend(names []string, note string) {
	x := c.left
	y := c.top + c.plotH() + c.labelH + 14
	limit := c.legendMax
	if limit == 0 {
		limit = 28
	}
	for i, n := range names {
		label := truncate(n, limit)
		itemW := 14 + float64(len([]rune(label)))*6.2 + 16
		if x > c.left && x+itemW > c.w-c.right {
			x = c.left
			y += 14
		}
		full := ""
		if label != n {
			full = "<title>" + esc(n) + "</title>" // the whole name on hover
		}
		fmt.Fprintf(&c.b, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/><text x="%.1f" y="%.1f" class="leg">%s%s</text>`,
			x, y-9, color(i), x+14, y, esc(label), full)
		x += itemW
	}
	if note != "" {
		if x > c.left && x+float64(len(note))*6.2 > c.w-c.right {
			x = c.left
			y += 14
		}
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="leg note">%s</text>`, x, y, esc(note))
	}
}

func (c *chartFrame) close() template.HTML {
	c.b.WriteString(`</svg>`)
	// Built from escaped text and formatted numbers only.
	return template.HTML(c.b.String())
}

// barChart draws groups of bars: one group per label, one bar per series.
func barChart(kind, title, yUnit, source string, series []string, groups []barGroup) template.HTML {
	n := len(series)
	if n == 0 {
		n = 1
	}
	slot := math.Max(float64(n)*16+24, 70)
	w := math.Max(520, 80+slot*float64(len(groups)))
	c := &chartFrame{w: math.Min(w, 1100), h: 260, left: 64, right: 16, top: 30, bottom: 30, yUnit: yUnit, title: title, source: source, kind: kind}
	c.labelH = 20
	if len(groups) > 6 {
		c.bottom += 50 // rotated labels
		c.labelH = 70
	}
	if len(series) > 1 {
		c.bottom += 10 + 14*math.Ceil(float64(len(series))/4)
	}
	ticks, key := barTicks(groups)
	keyTop := c.bottom // the key's first line, below the legend
	c.bottom += 14 * float64(len(key))
	c.h += c.bottom - 30
	maxV := 0.0
	for _, g := range groups {
		maxV = maxOf(maxV, g.Values)
	}
	c.yMax, c.yStep = niceScale(maxV)
	c.open()
	slot = c.plotW() / math.Max(1, float64(len(groups)))
	barW := math.Min(36, (slot-12)/float64(n))
	for gi, g := range groups {
		gx := c.left + slot*float64(gi) + (slot-barW*float64(n))/2
		for si, v := range g.Values {
			if math.IsNaN(v) || v < 0 {
				continue
			}
			y := c.y(v)
			h := c.top + c.plotH() - y
			if v > 0 && h < 1 {
				h, y = 1, c.top+c.plotH()-1 // a non-zero value stays visible
			}
			name := g.Label
			if si < len(series) && len(series) > 1 {
				name += " · " + series[si]
			}
			fmt.Fprintf(&c.b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s %s</title></rect>`,
				gx+barW*float64(si), y, barW-1, h, color(si), esc(name), esc(fmtFloat(v)), esc(yUnit))
		}
		lx := c.left + slot*float64(gi) + slot/2
		ly := c.top + c.plotH() + 14
		if len(groups) > 6 {
			fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="end" transform="rotate(-30 %.1f %.1f)">%s</text>`, lx, ly, lx, ly, esc(ticks[gi]))
		} else {
			fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%s</text>`, lx, ly, esc(ticks[gi]))
		}
	}
	// No value at all (NaN: not computed by the variants' model) is no
	// value of 0.
	anyValue := false
	for _, g := range groups {
		anyValue = anyValue || slices.ContainsFunc(g.Values, func(v float64) bool { return !math.IsNaN(v) })
	}
	switch {
	case !anyValue:
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="note" text-anchor="middle">no figures: not computed by these variants' model, or none measured</text>`, c.left+c.plotW()/2, c.top+c.plotH()/2)
	case maxV == 0:
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="note" text-anchor="middle">all values are 0</text>`, c.left+c.plotW()/2, c.top+c.plotH()/2)
	}
	if len(series) > 1 {
		c.legend(series, "")
	}
	for i, k := range key {
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="leg">%s</text>`, c.left, c.top+c.plotH()+keyTop+14*float64(i)-2, esc(k))
	}
	return c.close()
}

// barTicks are the bars' axis labels: each group's label cut to what fits
// (24 characters, 22 rotated), or, where two cut labels would read alike
// (variants that differ past the cut, as a sweep of several keys's do),
// #1, #2, ... with a key of the whole labels to print below the chart.
func barTicks(groups []barGroup) (ticks, key []string) {
	limit := 24
	if len(groups) > 6 {
		limit = 22
	}
	seen := map[string]bool{}
	clash := false
	for _, g := range groups {
		t := truncate(g.Label, limit)
		clash = clash || seen[t]
		seen[t] = true
		ticks = append(ticks, t)
	}
	if !clash {
		return ticks, nil
	}
	for i, g := range groups {
		ticks[i] = fmt.Sprintf("#%d", i+1)
		key = append(key, fmt.Sprintf("#%d %s", i+1, g.Label))
	}
	return ticks, key
}

type line struct {
	Name string
	X, Y []float64
	// HeldTo is where the value at the line's last point holds to, past
	// it: the run's end, where the record left out a quiet tail
	// (Variant.SeriesEndUs); 0 for the last point itself.
	HeldTo float64
}

// onIntervals calls fn for each stretch of y that is not zero: from its
// first point's x to the next zero point's, or, for a stretch still on at
// the last point, to heldTo when that lies past it (what the interval
// says) and otherwise axisEnd (both where it is drawn to).
func onIntervals(x, y []float64, axisEnd, heldTo float64, fn func(from, to, drawTo float64)) {
	n := min(len(x), len(y))
	for i := 0; i < n; i++ {
		if y[i] == 0 {
			continue
		}
		j := i
		for j+1 < n && y[j+1] != 0 {
			j++
		}
		to, drawTo := axisEnd, axisEnd
		if j+1 < n {
			to, drawTo = x[j+1], x[j+1]
		} else if heldTo > to {
			to = heldTo
		}
		fn(x[i], to, drawTo)
		i = j
	}
}

// maxLines bounds the lines in one chart; more are listed as omitted.
const maxLines = 8

// maxPoints bounds the points per line; longer series are reduced to the
// minimum and maximum of each bucket, which keeps peaks visible.
const maxPoints = 400

// chartMark is a moment drawn across a time chart: a fault, a watchdog
// action.
type chartMark struct {
	X     float64
	Label string
}

func lineChart(kind, title, xUnit, yUnit, source string, lines []line, step bool, marks ...chartMark) template.HTML {
	omitted := 0
	if len(lines) > maxLines {
		omitted = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	c := &chartFrame{w: 560, h: 260, left: 64, right: 16, top: 30, bottom: 30, labelH: 36, yUnit: yUnit, title: title, source: source, kind: kind}
	c.bottom += 24 + 14*math.Ceil(float64(len(lines)+1)/2)
	c.h += c.bottom - 30
	xMin, xMax, yMax := math.Inf(1), math.Inf(-1), 0.0
	for _, l := range lines {
		for i := range l.X {
			if i >= len(l.Y) {
				break
			}
			xMin, xMax = math.Min(xMin, l.X[i]), math.Max(xMax, l.X[i])
			yMax = math.Max(yMax, l.Y[i])
		}
	}
	if math.IsInf(xMin, 0) {
		xMin, xMax = 0, 1
	}
	if xMax <= xMin {
		xMax = xMin + 1
	}
	c.yMax, c.yStep = niceScale(yMax)
	c.open()
	xp := func(x float64) float64 { return c.left + (x-xMin)/(xMax-xMin)*c.plotW() }
	for i := 0; i <= 4; i++ {
		x := xMin + (xMax-xMin)*float64(i)/4
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%s</text>`, xp(x), c.top+c.plotH()+14, esc(fmtTick(x)))
	}
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="middle">%s</text>`, c.left+c.plotW()/2, c.top+c.plotH()+30, esc(xUnit))
	for i, m := range marks {
		if m.X < xMin || m.X > xMax {
			continue
		}
		x := xp(m.X)
		fmt.Fprintf(&c.b, `<line class="mark" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#cf222e" stroke-dasharray="4 3"><title>%s</title></line>`,
			x, x, c.top, c.top+c.plotH(), esc(m.Label))
		fmt.Fprintf(&c.b, `<text class="marklabel" x="%.1f" y="%.1f" fill="#cf222e">%d</text>`, x+2, c.top+10, i+1)
	}
	var names []string
	for li, l := range lines {
		xs, ys := downsample(l.X, l.Y, maxPoints)
		var pts strings.Builder
		for i := range xs {
			if step && i > 0 {
				fmt.Fprintf(&pts, "%.1f,%.1f ", xp(xs[i]), c.y(ys[i-1]))
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", xp(xs[i]), c.y(ys[i]))
		}
		fmt.Fprintf(&c.b, `<polyline class="line" fill="none" stroke="%s" stroke-width="1.6" points="%s"><title>%s</title></polyline>`,
			color(li), strings.TrimSpace(pts.String()), esc(l.Name))
		names = append(names, l.Name)
	}
	note := ""
	if omitted > 0 {
		note = fmt.Sprintf("+%d more in run.json", omitted)
	}
	c.legend(names, note)
	return c.close()
}

func downsample(x, y []float64, max int) ([]float64, []float64) {
	n := min(len(x), len(y))
	if n <= max {
		return x[:n], y[:n]
	}
	buckets := max / 2
	var ox, oy []float64
	for b := 0; b < buckets; b++ {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		if hi <= lo {
			continue
		}
		mi, ma := lo, lo
		for i := lo; i < hi; i++ {
			if y[i] < y[mi] {
				mi = i
			}
			if y[i] > y[ma] {
				ma = i
			}
		}
		first, second := min(mi, ma), max2(mi, ma)
		ox, oy = append(ox, x[first]), append(oy, y[first])
		if second != first {
			ox, oy = append(ox, x[second]), append(oy, y[second])
		}
	}
	return ox, oy
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// fmtTick shortens large axis values (8000000 -> 8M) so tick labels fit
// the margin.
func fmtTick(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return fmtFloat(v/1e9) + "G"
	case a >= 1e6:
		return fmtFloat(v/1e6) + "M"
	case a >= 1e4:
		return fmtFloat(v/1e3) + "k"
	}
	return fmtFloat(v)
}

// maxLanes bounds the rows of a pause timeline.
const maxLanes = 16

// timelineChart draws on/off series (PFC pause state) as one lane per
// series with a bar wherever the value is non-zero: overlapping 0/1 lines
// would hide each other. Time is in timeUnit ("µs").
func timelineChart(kind, title, timeUnit, source string, lines []line) template.HTML {
	omitted := 0
	if len(lines) > maxLanes {
		omitted = len(lines) - maxLanes
		lines = lines[:maxLanes]
	}
	const laneH = 16.0
	c := &chartFrame{w: 560, left: 190, right: 16, top: 30, bottom: 50, labelH: 36, title: title, source: source, kind: kind}
	c.h = c.top + c.bottom + laneH*math.Max(1, float64(len(lines)))
	if omitted > 0 {
		c.h += 14
	}
	xMin, xMax := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for i := range l.X {
			xMin, xMax = math.Min(xMin, l.X[i]), math.Max(xMax, l.X[i])
		}
	}
	if math.IsInf(xMin, 0) {
		xMin, xMax = 0, 1
	}
	if xMax <= xMin {
		xMax = xMin + 1
	}
	xp := func(x float64) float64 { return c.left + (x-xMin)/(xMax-xMin)*c.plotW() }
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="%s" data-source="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		esc(c.kind), esc(c.source), c.w, c.h, c.w, c.h, esc(c.title+" ("+c.source+")"))
	fmt.Fprintf(&c.b, `<title>%s (%s)</title>`, esc(c.title), esc(c.source))
	fmt.Fprintf(&c.b, `<text x="10" y="18" class="ct">%s</text>`, esc(c.title))
	fmt.Fprintf(&c.b, `<text x="%.0f" y="18" class="src src-%s" text-anchor="end">%s</text>`, c.w-c.right, esc(sourceClass(c.source)), esc(c.source))
	plotBottom := c.top + laneH*float64(len(lines))
	for i := 0; i <= 4; i++ {
		x := xMin + (xMax-xMin)*float64(i)/4
		fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, xp(x), xp(x), c.top, plotBottom)
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%s</text>`, xp(x), plotBottom+14, esc(fmtTick(x)))
	}
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="middle">%s</text>`, c.left+c.plotW()/2, plotBottom+30, esc("time ("+timeUnit+")"))
	bars := 0
	for li, l := range lines {
		y := c.top + laneH*float64(li)
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="end">%s<title>%s</title></text>`, c.left-6, y+laneH-4, esc(truncate(l.Name, 31)), esc(l.Name))
		fmt.Fprintf(&c.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="axisline"/>`, c.left, c.left+c.plotW(), y+laneH-1, y+laneH-1)
		// A pause interval runs from a sample to the next one that is
		// zero (or the end of the series, or of the run).
		onIntervals(l.X, l.Y, xMax, l.HeldTo, func(from, to, drawTo float64) {
			x0, x1 := xp(from), xp(drawTo)
			if x1-x0 < 1 {
				x1 = x0 + 1 // a short pause stays visible
			}
			fmt.Fprintf(&c.b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s paused %s-%s %s</title></rect>`,
				x0, y+2, x1-x0, laneH-4, color(li), esc(l.Name), esc(fmtFloat(from)), esc(fmtFloat(to)), esc(timeUnit))
			bars++
		})
	}
	if bars == 0 {
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="note" text-anchor="middle">never paused</text>`, c.left+c.plotW()/2, c.top+laneH*float64(len(lines))/2+4)
	}
	if omitted > 0 {
		fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" class="note">+%d more series in run.json</text>`, c.left, c.h-8, omitted)
	}
	return c.close()
}
