package results

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
)

// The reports' NCCL section: per variant with an nccl-tests table, the
// table, and one chart of busbw against the message size (log2 axis)
// with a curve per variant, each marked simulated or measured.

// ncclVariants are the variants of run that carry an nccl-tests table.
func ncclVariants(run *Run) []*Variant {
	var out []*Variant
	for i := range run.Variants {
		if run.Variants[i].NCCL != nil {
			out = append(out, &run.Variants[i])
		}
	}
	return out
}

// NCCLOnly says whether a variant holds nothing but an nccl-tests table:
// a record made from nccl-tests output (labctl parse nccl-tests
// --record), measured, with no flows or counters. Reports leave it out of
// the summary charts, and regress compares only its table. It is decided
// by what the variant holds, not by the list of metrics its summary says
// it lacks, so a record made before a metric was added stays NCCL-only.
func NCCLOnly(v *Variant) bool {
	return v.NCCL != nil && v.NCCL.Source == Measured && v.Summary.Source == Measured && len(v.Flows) == 0 && len(v.Counters) == 0
}

// ncclSources names the sources of a run's nccl-tests tables: "measured",
// "simulated" or "measured + simulated".
func ncclSources(vs []*Variant) string {
	seen := map[string]bool{}
	for _, v := range vs {
		seen[ncclSourceLabel(v.NCCL)] = true
	}
	return joinSources(seen)
}

// ncclTableView is one variant's table, formatted for the reports.
type ncclTableView struct {
	Variant string
	Title   string
	Source  string
	Notes   []string
	Headers []string
	// Right marks the numeric columns.
	Right []bool
	Rows  [][]string
}

// ncclView formats v's table: nccl-tests' columns, the in-place ones when
// the rows have them, and the fabric and spine bytes a simulation counts.
func ncclView(v *Variant) ncclTableView {
	t := v.NCCL
	tv := ncclTableView{Variant: v.Name, Title: NCCLTableTitle(t), Source: ncclSourceLabel(t)}
	if t.BoundBusBWGBps != nil {
		tv.Notes = append(tv.Notes, fmt.Sprintf("Bus bandwidth bound: %s GB/s (%s).", fmtFloat(*t.BoundBusBWGBps), NCCLBoundMeaning))
	}
	if t.AvgBusBWGBps != nil {
		tv.Notes = append(tv.Notes, fmt.Sprintf("Avg bus bandwidth: %s GB/s (nccl-tests' mean busbw of every result).", fmtFloat(*t.AvgBusBWGBps)))
	}
	if t.OutOfBounds != nil {
		tv.Notes = append(tv.Notes, fmt.Sprintf("Out of bounds values: %d %s.", *t.OutOfBounds, t.OutOfBoundsVerdict()))
	}
	inPlace, fabric, spine := false, false, false
	for _, r := range t.Rows {
		inPlace = inPlace || r.InPlace != nil
		fabric = fabric || r.FabricBytes != nil
		spine = spine || r.SpineBytes != nil
	}
	add := func(h string, right bool) {
		tv.Headers = append(tv.Headers, h)
		tv.Right = append(tv.Right, right)
	}
	add("Size", true)
	add("Size (B)", true)
	add("Count", true)
	add("Type", false)
	add("Redop", false)
	add("Root", true)
	half := func(prefix string) {
		add(prefix+"time (µs)", true)
		add(prefix+"algbw (GB/s)", true)
		add(prefix+"busbw (GB/s)", true)
		add(prefix+"#wrong", true)
	}
	if inPlace {
		half("out-of-place ")
		half("in-place ")
	} else {
		half("")
	}
	if fabric {
		add("Fabric bytes", true)
	}
	if spine {
		add("Spine bytes", true)
	}
	cells := func(r *NCCLResult) []string {
		if r == nil {
			return []string{"–", "–", "–", "–"}
		}
		wrong := "N/A"
		if r.Wrong != nil {
			wrong = fmtInt(*r.Wrong)
		}
		return []string{ncclFloat(r.TimeUs, 7), ncclFloat(r.AlgBWGBps, 6), ncclFloat(r.BusBWGBps, 6), wrong}
	}
	for _, r := range t.Rows {
		row := []string{fmtSize(r.SizeBytes), fmtInt(r.SizeBytes), fmtInt(r.Count), t.DataType, t.RedOp, fmt.Sprint(t.Root)}
		op := r.OutOfPlace
		row = append(row, cells(&op)...)
		if inPlace {
			row = append(row, cells(r.InPlace)...)
		}
		if fabric {
			row = append(row, fmtIntOpt(r.FabricBytes))
		}
		if spine {
			row = append(row, fmtIntOpt(r.SpineBytes))
		}
		tv.Rows = append(tv.Rows, row)
	}
	return tv
}

// ncclBySize is the busbw of every size, one column per variant, for the
// markdown report (which has no chart): "–" where a variant has no row
// of that size.
func ncclBySize(vs []*Variant) (headers []string, rows [][]string) {
	var sizes []int64
	seen := map[int64]bool{}
	for _, v := range vs {
		for _, r := range v.NCCL.Rows {
			if !seen[r.SizeBytes] {
				seen[r.SizeBytes] = true
				sizes = append(sizes, r.SizeBytes)
			}
		}
	}
	slices.Sort(sizes)
	headers = []string{"Size"}
	for _, v := range vs {
		headers = append(headers, fmt.Sprintf("%s busbw (GB/s, %s)", v.Name, ncclSourceLabel(v.NCCL)))
	}
	for _, s := range sizes {
		row := []string{fmtSize(s)}
		for _, v := range vs {
			cell := "–"
			for _, r := range v.NCCL.Rows {
				if r.SizeBytes == s {
					cell = ncclFloat(r.OutOfPlace.BusBWGBps, 6)
					break
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// writeNCCLMarkdown writes the NCCL section of report.md.
func writeNCCLMarkdown(p func(string, ...any), run *Run) {
	vs := ncclVariants(run)
	if len(vs) == 0 {
		return
	}
	p("## NCCL\n\n")
	p("nccl-tests' out-of-place bus bandwidth per message size and variant (%s; report.html charts it against the size). busbw is nccl-tests' algbw x the collective's factor (2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and alltoall, 1 for broadcast and sendrecv), comparable across rank counts.\n\n", ncclSources(vs))
	h, rows := ncclBySize(vs)
	p("| %s |\n|%s\n", strings.Join(mdCells(h), " | "), strings.Repeat("--:|", len(h)))
	for _, r := range rows {
		p("| %s |\n", strings.Join(mdCells(r), " | "))
	}
	p("\n")
	for _, v := range vs {
		tv := ncclView(v)
		p("### %s\n\n%s.", mdText(tv.Variant), mdText(tv.Title))
		for _, n := range tv.Notes {
			p(" %s", mdText(n))
		}
		p("\n\n| %s |\n|", strings.Join(mdCells(tv.Headers), " | "))
		for _, right := range tv.Right {
			if right {
				p("--:|")
			} else {
				p("---|")
			}
		}
		p("\n")
		for _, r := range tv.Rows {
			p("| %s |\n", strings.Join(mdCells(r), " | "))
		}
		p("\n")
	}
}

func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdCell(c)
	}
	return out
}

// htmlNCCL is the NCCL section of report.html.
type htmlNCCL struct {
	Sources string
	Chart   template.HTML
	Tables  []ncclTableView
}

func runHTMLNCCL(run *Run) *htmlNCCL {
	vs := ncclVariants(run)
	if len(vs) == 0 {
		return nil
	}
	h := &htmlNCCL{Sources: ncclSources(vs), Chart: ncclChart(run, vs)}
	for _, v := range vs {
		h.Tables = append(h.Tables, ncclView(v))
	}
	return h
}

// ncclChart draws busbw against the message size on a log2 axis: a curve
// per variant (points at every size above 0 bytes, which has no place on
// a log axis and no bandwidth), and each variant's bound as a dashed line
// of its colour. Legend entries say whether a curve is measured or
// simulated.
func ncclChart(run *Run, vs []*Variant) template.HTML {
	type curve struct {
		name  string
		x, y  []float64 // log2 size, busbw
		bound *float64
	}
	var curves []curve
	omitted := 0
	xMin, xMax, yMax := math.Inf(1), math.Inf(-1), 0.0
	for _, v := range vs {
		if len(curves) == maxLines {
			omitted++
			continue
		}
		c := curve{name: chartName(run, v) + " (" + ncclSourceLabel(v.NCCL) + ")", bound: v.NCCL.BoundBusBWGBps}
		for _, r := range v.NCCL.Rows {
			if r.SizeBytes <= 0 {
				continue
			}
			x := math.Log2(float64(r.SizeBytes))
			c.x, c.y = append(c.x, x), append(c.y, r.OutOfPlace.BusBWGBps)
			xMin, xMax = math.Min(xMin, x), math.Max(xMax, x)
			yMax = math.Max(yMax, r.OutOfPlace.BusBWGBps)
		}
		if c.bound != nil {
			yMax = math.Max(yMax, *c.bound)
		}
		curves = append(curves, c)
	}
	if math.IsInf(xMin, 0) {
		xMin, xMax = 0, 1
	}
	if xMax <= xMin {
		xMin, xMax = xMin-1, xMax+1
	}
	fr := &chartFrame{w: 640, h: 280, left: 64, right: 16, top: 30, bottom: 30, labelH: 36, yUnit: "busbw (GB/s)",
		title: "Bus bandwidth by message size", source: ncclSources(vs), kind: "nccl-busbw", legendMax: 72}
	fr.bottom += 24 + 14*float64(len(curves)+1)
	fr.h += fr.bottom - 30
	fr.yMax, fr.yStep = niceScale(yMax)
	fr.open()
	xp := func(x float64) float64 { return fr.left + (x-xMin)/(xMax-xMin)*fr.plotW() }
	// Ticks at powers of two, 1, 2, 5 or 10 doublings apart (at most
	// about eight), on multiples of that step so that 1 KiB, 1 MiB and
	// 1 GiB are among them when the step is 5 or 10.
	span, every := xMax-xMin, 10.0
	for _, e := range []float64{1, 2, 5} {
		if span <= 8*e {
			every = e
			break
		}
	}
	for x := math.Ceil(xMin/every-1e-9) * every; x <= xMax+1e-9; x += every {
		fmt.Fprintf(&fr.b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" class="grid"/>`, xp(x), xp(x), fr.top, fr.top+fr.plotH())
		fmt.Fprintf(&fr.b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%s</text>`, xp(x), fr.top+fr.plotH()+14, esc(fmtSize(int64(math.Round(math.Exp2(x))))))
	}
	fmt.Fprintf(&fr.b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="middle">%s</text>`, fr.left+fr.plotW()/2, fr.top+fr.plotH()+30, esc("message size (log2 scale)"))
	var names []string
	for i, c := range curves {
		var pts strings.Builder
		for k := range c.x {
			fmt.Fprintf(&pts, "%.1f,%.1f ", xp(c.x[k]), fr.y(c.y[k]))
		}
		if s := strings.TrimSpace(pts.String()); strings.Contains(s, " ") {
			fmt.Fprintf(&fr.b, `<polyline class="line" fill="none" stroke="%s" stroke-width="1.6" points="%s"><title>%s</title></polyline>`, color(i), s, esc(c.name))
		}
		for k := range c.x {
			fmt.Fprintf(&fr.b, `<circle class="point" cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s, %s: %s GB/s</title></circle>`,
				xp(c.x[k]), fr.y(c.y[k]), color(i), esc(c.name), esc(fmtSize(int64(math.Round(math.Exp2(c.x[k]))))), esc(fmtFloat(c.y[k])))
		}
		if c.bound != nil {
			y := fr.y(*c.bound)
			fmt.Fprintf(&fr.b, `<line class="bound" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="5 4"><title>%s: bound %s GB/s</title></line>`,
				fr.left, fr.left+fr.plotW(), y, y, color(i), esc(c.name), esc(fmtFloat(*c.bound)))
		}
		names = append(names, c.name)
	}
	note := ""
	if omitted > 0 {
		note = fmt.Sprintf("+%d more in the tables below", omitted)
	} else if slices.ContainsFunc(curves, func(c curve) bool { return c.bound != nil }) {
		note = "dashed: the fabric's bound"
	}
	fr.legend(names, note)
	return fr.close()
}
