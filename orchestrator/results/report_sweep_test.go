package results

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sweepRun is a Kmin sweep crossed with PFC on and off: p99 latency
// grows with Kmin, ECN marks fall, pauses only with PFC, no drops.
func sweepRun(id string, started time.Time, kmins []string) *Run {
	fin := started.Add(time.Minute)
	run := &Run{SchemaVersion: SchemaVersion, RunID: id, Lab: "64gpu", Scenario: "kmin-sweep", Runtime: "sim", Seed: 1,
		Started: started, Finished: &fin, Status: StatusPassed,
		Sweep: []SweepDim{{Path: "qos.ecn.kmin_kb", Values: kmins}}}
	for _, pfc := range []bool{true, false} {
		for _, k := range kmins {
			kmin, _ := strconv.Atoi(k)
			name := fmt.Sprintf("ecn=on,pfc=%s,qos.ecn.kmin_kb=%s", onOff(pfc), k)
			v := Variant{Name: name, ECN: true, PFC: pfc, Params: map[string]string{"qos.ecn.kmin_kb": k, "mtu": "4096"},
				Flows: []Flow{}, Counters: []Counter{}, Assertions: []Assertion{},
				Summary: Summary{ThroughputGbpsTotal: 160 + float64(kmin)/100, ThroughputGbpsMinFlow: 19, JainFairness: 0.99,
					LatencyUsP99: 8 + float64(kmin)*8.192/200, ECNMarked: int64(3000 - kmin), CNP: 100,
					PFCPauseFrames: int64(boolInt(pfc) * kmin / 10), Source: Simulated},
				Configs: &VariantConfigs{Dir: "configs/" + strings.NewReplacer("=", "-", ",", "_").Replace(name),
					Changes: []ConfigChange{{Field: "port.*.queue.3.ecn", From: "min=819200 max=3276800 bytes pmax=0.2", To: fmt.Sprintf("min=%d max=3276800 bytes pmax=0.2", kmin*1024), Count: 64, Devices: []string{"leaf1", "leaf2"}}}},
			}
			if !pfc {
				v.Configs.Changes = append(v.Configs.Changes, ConfigChange{Field: "port.*.pfc_priorities", From: "[3]", To: "[]", Count: 96, Devices: []string{"leaf1", "leaf2", "spine1"}})
			}
			run.Variants = append(run.Variants, v)
		}
	}
	return run
}

var pointRE = regexp.MustCompile(`<circle class="point" cx="([0-9.]+)" cy="([0-9.]+)"`)

func TestRenderSweep(t *testing.T) {
	run := sweepRun("20261129T120000Z-kmin-sweep-64gpu", t0, []string{"100", "400", "1600"})
	var md bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	for _, want := range []string{
		"| Sweep | qos.ecn.kmin_kb: 100, 400, 1600 |",
		"## Sweep: qos.ecn.kmin_kb",
		"| pfc=on | 100 | 161 | 19 | 0.990 | 0 | 10 | 0 | 2900 | 100 | 0 | 12.1 |",
		"| pfc=off | 1600 | 176 | 19 | 0.990 | 0 | 0 | 0 | 1400 | 100 | 0 | 73.54 |",
		"## Configs per point",
		"`labctl config diff topologies/64gpu/configs results/20261129T120000Z-kmin-sweep-64gpu/<folder>`",
		"| ecn=on,pfc=off,qos.ecn.kmin_kb=400 | configs/ecn-on_pfc-off_qos.ecn.kmin_kb-400 | port.*.queue.3.ecn: min=819200 max=3276800 bytes pmax=0.2 -> min=409600 max=3276800 bytes pmax=0.2 (64 ports on leaf1, leaf2); port.*.pfc_priorities: [3] -> [] (96 ports on leaf1, leaf2, spine1) |",
		"ECN on, PFC off, qos.ecn.kmin_kb 1600",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Rows follow the sweep's order within each group.
	if a, b := strings.Index(m, "| pfc=on | 400 |"), strings.Index(m, "| pfc=on | 1600 |"); a < 0 || b < a {
		t.Error("sweep rows out of order")
	}

	var h bytes.Buffer
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	html := h.String()
	parseXML(t, extractSVGs(t, html))
	for _, kind := range []string{"sweep-throughput_gbps_total", "sweep-latency_us_p99", "sweep-pfc_pause_frames", "sweep-ecn_marked", "sweep-cnp"} {
		if !strings.Contains(html, `data-chart="`+kind+`"`) {
			t.Errorf("no %s chart", kind)
		}
	}
	// Metrics that are 0 everywhere get no chart, and the page says so.
	if strings.Contains(html, `data-chart="sweep-drops"`) || !strings.Contains(html, "0 at every point, so not charted: drops, retransmits.") {
		t.Error("all-zero metrics charted or not named")
	}
	// The p99 chart: one line per PFC setting, a marker per Kmin, evenly
	// spaced, rising left to right (SVG y falls as the value rises).
	chart := chartSVG(t, html, "sweep-latency_us_p99")
	if n := strings.Count(chart, "<polyline"); n != 2 {
		t.Errorf("%d lines, want 2 (pfc on, pfc off)", n)
	}
	pts := pointRE.FindAllStringSubmatch(chart, -1)
	if len(pts) != 6 {
		t.Fatalf("%d markers", len(pts))
	}
	for i := 1; i < 3; i++ {
		x0, _ := strconv.ParseFloat(pts[i-1][1], 64)
		x1, _ := strconv.ParseFloat(pts[i][1], 64)
		y0, _ := strconv.ParseFloat(pts[i-1][2], 64)
		y1, _ := strconv.ParseFloat(pts[i][2], 64)
		if !(x1 > x0) || !(y1 < y0) {
			t.Errorf("p99 marker %d at (%v,%v) after (%v,%v): want to the right and higher", i, x1, y1, x0, y0)
		}
	}
	for _, want := range []string{"pfc=off, qos.ecn.kmin_kb=1600: 73.54 µs", ">pfc=on</text>", ">1600</text>", `<th>qos.ecn.kmin_kb</th>`, "Configs per point", "<tr><td>Sweep</td><td>qos.ecn.kmin_kb: 100, 400, 1600</td></tr>"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}

	// Lines are named by the dimensions that vary: ECN is on everywhere,
	// so it is left out; with nothing else varying, a line says ECN and PFC.
	if strings.Contains(html, ">ecn=on,pfc=on</text>") {
		t.Error("a legend names ECN, which does not vary")
	}
	one := sweepRun("20261129T120000Z-kmin-sweep-64gpu", t0, []string{"100", "400"})
	one.Variants = one.Variants[:2]
	if vs := sweepViews(one); len(vs) != 1 || len(vs[0].Lines) != 1 || vs[0].Lines[0].Label != "ecn=on,pfc=on" {
		t.Errorf("one line: %+v", vs)
	}

	// A point missing (an interrupted run) is a gap in its line, not 0.
	run.Variants = append(run.Variants[:1], run.Variants[2:]...)
	h.Reset()
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	chart = chartSVG(t, h.String(), "sweep-latency_us_p99")
	// pfc=on has Kmin 100 and 1600 left, not neighbours: no line joins
	// them across the gap; pfc=off keeps its line.
	if n, m := strings.Count(chart, "<polyline"), len(pointRE.FindAllString(chart, -1)); n != 1 || m != 5 {
		t.Errorf("with a gap: %d lines, %d markers; want 1 line (pfc=off) and 5 markers", n, m)
	}

	var j bytes.Buffer
	if err := RenderJUnit(run, &j); err != nil {
		t.Fatal(err)
	}
	var doc JUnitSuites
	if err := xml.Unmarshal(j.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	props := map[string]string{}
	for _, p := range doc.Suites[0].Properties {
		props[p.Name] = p.Value
	}
	if props["sweep"] != "qos.ecn.kmin_kb: 100, 400, 1600" || doc.Suites[0].Cases[0].SystemOut != "params: qos.ecn.kmin_kb=100" {
		t.Errorf("junit: sweep %q, first case %+v", props["sweep"], doc.Suites[0].Cases[0])
	}
}

// chartSVG is the SVG of the chart of a kind in an HTML report.
func chartSVG(t *testing.T, html, kind string) string {
	t.Helper()
	i := strings.Index(html, `data-chart="`+kind+`"`)
	if i < 0 {
		t.Fatalf("no %s chart", kind)
	}
	j := strings.Index(html[i:], "</svg>")
	return html[i : i+j]
}

func extractSVGs(t *testing.T, html string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("<root>")
	for _, m := range regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(html, -1) {
		b.WriteString(m)
	}
	b.WriteString("</root>")
	return b.String()
}

// Regress compares a sweep point by point, and says which points each
// side lacks and why.
func TestCompareSweepPointByPoint(t *testing.T) {
	base := sweepRun("20261129T110000Z-kmin-sweep-64gpu", t0.Add(-time.Hour), []string{"100", "400", "1600"})
	run := sweepRun("20261129T120000Z-kmin-sweep-64gpu", t0, []string{"100", "400", "800"})
	// Kmin 400 with PFC got worse at that point only.
	for i := range run.Variants {
		if run.Variants[i].Name == "ecn=on,pfc=on,qos.ecn.kmin_kb=400" {
			run.Variants[i].Summary.LatencyUsP99 *= 2
		}
	}
	r := Compare(run, base, nil)
	got := strings.Join(regressions(r), " ")
	for _, want := range []string{
		"metric:ecn=on,pfc=on,qos.ecn.kmin_kb=400:latency_us_p99",
		"missing_variant:ecn=on,pfc=on,qos.ecn.kmin_kb=1600:", "missing_variant:ecn=on,pfc=off,qos.ecn.kmin_kb=1600:",
		"not_in_baseline:ecn=on,pfc=on,qos.ecn.kmin_kb=800:", "not_in_baseline:ecn=on,pfc=off,qos.ecn.kmin_kb=800:",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("regressions lack %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "metric:ecn=on,pfc=off,qos.ecn.kmin_kb=400:latency_us_p99") || strings.Contains(got, "metric:ecn=on,pfc=on,qos.ecn.kmin_kb=100") {
		t.Errorf("a point that did not change regressed: %s", got)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"warning: the sweep differs: run qos.ecn.kmin_kb: 100, 400, 800; baseline qos.ecn.kmin_kb: 100, 400, 1600",
		"ecn=on,pfc=on,qos.ecn.kmin_kb=1600: point is in the baseline but not in the run: the run sweeps qos.ecn.kmin_kb over 100, 400, 800, not 1600",
		"ecn=on,pfc=off,qos.ecn.kmin_kb=800: point is in the run but not in the baseline, so nothing checked it: the baseline sweeps qos.ecn.kmin_kb over 100, 400, 1600, not 800; save a baseline of the same sweep",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	// A baseline without the sweep: every point is new, and says so.
	plain := syntheticRun("20261129T100000Z-kmin-sweep-64gpu", t0.Add(-2*time.Hour))
	r = Compare(run, plain, nil)
	text.Reset()
	_ = r.WriteText(&text)
	if !strings.Contains(text.String(), "the baseline sweeps no parameter, this point has qos.ecn.kmin_kb=100") {
		t.Errorf("against a baseline without a sweep:\n%s", text.String())
	}
	// Same sweep, same numbers: no regression, every point compared.
	same := cloneRun(t, base)
	if r := Compare(same, base, nil); r.Regressed || len(r.Warnings) != 0 {
		t.Errorf("identical sweeps: %v %v", regressions(r), r.Warnings)
	}
}

// Repetitions are compared repetition by repetition.
func TestCompareRepetitions(t *testing.T) {
	base := sweepRun("20261129T110000Z-kmin-sweep-64gpu", t0.Add(-time.Hour), []string{"100"})
	for _, v := range base.Variants {
		v.Repetition = 1
		v.Summary.LatencyUsP99 = 50
		base.Variants = append(base.Variants, v)
	}
	run := cloneRun(t, base)
	r := Compare(run, base, nil)
	if r.Regressed {
		t.Errorf("identical repetitions regressed: %v", regressions(r))
	}
	run.Variants[2].Summary.LatencyUsP99 = 200 // repetition 2 of pfc=on
	r = Compare(run, base, nil)
	if got := strings.Join(regressions(r), " "); got != "metric:ecn=on,pfc=on,qos.ecn.kmin_kb=100 #2:latency_us_p99" {
		t.Errorf("regressions %s", got)
	}
}

// Sized traffic's completion and aggregate goodput are charted against
// the swept value; a run of long-lived flows, which has neither, gets no
// such chart and no "0 at every point" line for them.
func TestRenderSweepCompletion(t *testing.T) {
	run := sweepRun("20261129T120000Z-kmin-sweep-64gpu", t0, []string{"100", "400", "1600"})
	var h bytes.Buffer
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if html := h.String(); strings.Contains(html, "sweep-completion_us") || strings.Contains(html, "completion (last flow)") {
		t.Error("long-lived flows: a completion chart or mention")
	}
	for i := range run.Variants {
		c, g := 1000+float64(i)*10, 150-float64(i)
		run.Variants[i].Summary.CompletionUs, run.Variants[i].Summary.GoodputGbpsAggregate = &c, &g
	}
	h.Reset()
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"sweep-completion_us", "sweep-goodput_gbps_aggregate"} {
		if !strings.Contains(h.String(), `data-chart="`+kind+`"`) {
			t.Errorf("no %s chart", kind)
		}
	}
}

// A combination a finished run has no variant of was excluded by the
// matrix: its sweep row is left out. While the run is unfinished the row
// stays, with dashes, as a point still to come.
func TestRenderSweepExcludedPoint(t *testing.T) {
	run := sweepRun("20261129T120000Z-kmin-sweep-64gpu", t0, []string{"100", "400", "1600"})
	run.Variants = slices.DeleteFunc(run.Variants, func(v Variant) bool { return v.Name == "ecn=on,pfc=off,qos.ecn.kmin_kb=1600" })
	var b bytes.Buffer
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "| pfc=off | 1600 |") || !strings.Contains(b.String(), "| pfc=off | 400 |") {
		t.Errorf("finished run: the excluded point's row is shown, or another is missing:\n%s", b.String())
	}
	run.Finished, run.Status = nil, StatusRunning
	b.Reset()
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| pfc=off | 1600 | — |") {
		t.Errorf("running: the point still to come has no row")
	}
}

// repeatedRun is syntheticRun's ecn=on,pfc=on point repeated once per p99
// latency given (the summary's and every flow's), at seed.
func repeatedRun(t *testing.T, id string, seed int64, p99s ...float64) *Run {
	t.Helper()
	one := syntheticRun(id, t0)
	one.Seed = seed
	point := one.Variants[0]
	one.Variants = nil
	for rep, p99 := range p99s {
		v := cloneRun(t, &Run{Variants: []Variant{point}}).Variants[0]
		v.Repetition = rep
		v.Summary.LatencyUsP99 = p99
		for i := range v.Flows {
			v.Flows[i].LatencyUs.P99 = p99
		}
		one.Variants = append(one.Variants, v)
	}
	return one
}

// With another seed, repetition r of the run and of the baseline are
// different simulations (each runs at seed + r): they are compared as
// samples, the run's mean against the baseline's, allowed the spread of
// the baseline's repetitions. Seed noise passes; a change beyond it, a
// failed flow in one repetition, or an assertion that fails in one
// repetition does not. Matched one to one, the seed-2 run below failed
// on its first repetition's latency (10 -> 14 us).
func TestCompareRepetitionsOfAnotherSeed(t *testing.T) {
	base := repeatedRun(t, "20261129T110000Z-ecn-pfc-64gpu", 1, 10, 14, 12)
	noise := repeatedRun(t, "20261129T120000Z-ecn-pfc-64gpu", 2, 14, 12, 11)
	r := Compare(noise, base, nil)
	if r.Regressed {
		t.Errorf("another seed within the baseline's spread regressed: %v", regressions(r))
	}
	if b := r.Basis; b.How != BasisSamples || b.Confidence != ConfidenceModerate || b.RunRepetitions != 3 || b.BaselineRepetitions != 3 ||
		!strings.Contains(b.Text, "each point's 3 repetitions (seeds 2-4) are compared as their mean against the mean of the baseline's 3 (seeds 1-3)") {
		t.Errorf("the basis does not say how repetitions are compared: %+v", b)
	}
	if err := CheckSeeds(noise, base); err != nil {
		t.Errorf("samples refused: %v", err)
	}
	// The same seed: the same simulations, compared one to one.
	same := repeatedRun(t, "20261129T120000Z-ecn-pfc-64gpu", 1, 14, 12, 11)
	if got := strings.Join(regressions(Compare(same, base, nil)), " "); !strings.Contains(got, "metric:ecn=on,pfc=on:latency_us_p99") {
		t.Errorf("same seed, repetition 1 from 10 to 14 us: regressions %s", got)
	}

	worse := repeatedRun(t, "20261129T120000Z-ecn-pfc-64gpu", 2, 19, 18, 20)
	if got := strings.Join(regressions(Compare(worse, base, nil)), " "); !strings.Contains(got, "metric:ecn=on,pfc=on (mean of 3 repetitions):latency_us_p99") {
		t.Errorf("mean p99 from 12 to 19 us, spread 4: regressions %s", got)
	}
	failed := cloneRun(t, noise)
	failed.Variants[1].Summary.FailedFlows = 1
	failed.Variants[1].Flows[0].State = FlowFailed
	failed.Variants[2].Assertions[1].Passed = false
	got := strings.Join(regressions(Compare(failed, base, nil)), " ")
	for _, want := range []string{"metric:ecn=on,pfc=on (mean of 3 repetitions):failed_flows", "metric:ecn=on,pfc=on (mean of 3 repetitions):role.failed_flows", "assertion:ecn=on,pfc=on #3:fair share"} {
		if !strings.Contains(got, want) {
			t.Errorf("a flow failed in one repetition, an assertion in another: no %s in %s", want, got)
		}
	}
}
