package results

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A sweep's charts name variants by the swept values, which differ from
// point to point, not by the full names, which a legend cuts to the same
// "ecn=on,pfc=on,qos.ecn.kmin_…" for every point.
func TestSweepChartsNameTheSweptValues(t *testing.T) {
	run := sweepRun("20261129T120000Z-kmin-sweep-64gpu", t0, []string{"100", "400", "1600"})
	for i := range run.Variants {
		v := &run.Variants[i]
		v.Flows = []Flow{{ID: "h1:0->h9:0", ThroughputGbps: 20 + float64(i), Source: Simulated}}
	}
	var h bytes.Buffer
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	html := h.String()
	parseXML(t, extractSVGs(t, html))
	if strings.Contains(html, "qos.ecn.kmin_…") {
		t.Error("a chart cuts a variant's name to the part every variant shares")
	}
	// The flows chart's legend and the throughput chart's labels.
	for _, kind := range []string{"flows", "throughput", "flow-distribution"} {
		chart := chartSVG(t, html, kind)
		for _, want := range []string{"pfc=on,kmin_kb=100<", "pfc=off,kmin_kb=1600<"} {
			if !strings.Contains(chart, want) {
				t.Errorf("%s chart lacks %q:\n%s", kind, want, chart)
			}
		}
	}
	if !strings.Contains(html, "<p>Charts name variants by what differs between them: kmin_kb is qos.ecn.kmin_kb.</p>") {
		t.Error("the report does not say what the short names stand for")
	}
	// A sweep chart's lines are the other dimensions, short too; the
	// table keeps the paths.
	two := sweepRun("x", t0, []string{"100", "400"})
	two.Sweep = append(two.Sweep, SweepDim{Path: "traffic[0].senders", Values: []string{"4", "8"}})
	for i := range two.Variants {
		two.Variants[i].Params["traffic[0].senders"] = []string{"4", "8"}[i%2]
	}
	if vs := sweepViews(two); vs[0].Lines[0].ChartLabel != "pfc=on,senders=4" || vs[0].Lines[0].Label != "pfc=on,traffic[0].senders=4" {
		t.Errorf("lines %q / %q", vs[0].Lines[0].ChartLabel, vs[0].Lines[0].Label)
	}
	// Two parameters ending alike keep their paths.
	same := &Run{Sweep: []SweepDim{{Path: "qos.ecn.kmin_kb", Values: []string{"1", "2"}}, {Path: "qos.wred.kmin_kb", Values: []string{"1", "2"}}}}
	if s := sweepShortNames(same); s["qos.ecn.kmin_kb"] != "qos.ecn.kmin_kb" || s["qos.wred.kmin_kb"] != "qos.wred.kmin_kb" {
		t.Errorf("short names %v", s)
	}
	// Without a sweep, charts keep the variants' names.
	plain := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	if got := chartName(plain, &plain.Variants[1]); got != plain.Variants[1].Name {
		t.Errorf("chart name %q, want %q", got, plain.Variants[1].Name)
	}
}

// queueRun is a PFC incast recorded per port and priority, as the
// simulator writes it: toward the receiver a queue that marks between
// Kmin and Kmax and receives a pause; toward a sender a PG that fills to
// its moving XOFF point and sends pauses; a third port whose thresholds
// are far above its shallow queue.
func queueRun() *Run {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	run.Variants = run.Variants[:1]
	v := &run.Variants[0]
	v.Series = nil
	three := 3
	series := func(kind, node, port string, f func(i int) float64) TimeSeries {
		s := TimeSeries{Name: kind + " " + node + ":" + port + " prio 3", Kind: kind, Node: node, Port: port, Priority: &three, Queue: &three, PG: &three, Unit: "bytes", Source: Simulated}
		for i := 0; i <= 40; i++ {
			s.TimeUs, s.Values = append(s.TimeUs, float64(i)*10), append(s.Values, f(i))
		}
		return s
	}
	depth := series(SeriesQueueBytes, "leaf1", "Ethernet0", func(i int) float64 { return float64(i%20) * 60_000 })
	depth.Thresholds = []Threshold{{Name: "ECN Kmin", Value: 819_200}, {Name: "ECN Kmax", Value: 3_276_800}}
	rx := series(SeriesPaused, "leaf1", "Ethernet0", func(i int) float64 { return float64(boolInt(i >= 10 && i < 14)) })
	up := series(SeriesQueueBytes, "leaf1", "Ethernet4", func(i int) float64 { return 1500 })
	pg := series(SeriesPGBytes, "leaf1", "Ethernet4", func(i int) float64 { return float64(i) * 40_000 })
	xo := series(SeriesXOFFBytes, "leaf1", "Ethernet4", func(i int) float64 { return 2_000_000 - float64(i)*10_000 })
	tx := series(SeriesPauseSent, "leaf1", "Ethernet4", func(i int) float64 { return float64(boolInt(i >= 34)) })
	far := series(SeriesQueueBytes, "spine1", "Ethernet0", func(i int) float64 { return 4096 })
	far.Thresholds = depth.Thresholds
	farPG := series(SeriesPGBytes, "spine1", "Ethernet0", func(i int) float64 { return 1024 })
	farXO := series(SeriesXOFFBytes, "spine1", "Ethernet0", func(i int) float64 { return 10_000_000 })
	v.Series = append(v.Series, depth, rx, up, pg, xo, tx, far, farPG, farXO)
	return run
}

var levelRE = regexp.MustCompile(`<line class="level" x1="[^"]*" x2="[^"]*" y1="([0-9.]+)"[^>]*><title>([^<]*)</title>`)

// Queue charts: one per port and priority, titled with the priority, the
// ECN thresholds drawn as levels where the queue marks, the PG's use with
// its XOFF point where it filled, and lanes saying which pauses the port
// received and which it sent.
func TestQueueCharts(t *testing.T) {
	run := queueRun()
	var h bytes.Buffer
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	html := h.String()
	parseXML(t, extractSVGs(t, html))
	charts := regexp.MustCompile(`(?s)<svg [^>]*data-chart="series-queue".*?</svg>`).FindAllString(html, -1)
	if len(charts) != 3 {
		t.Fatalf("%d queue charts, want 3 (one per port and priority)", len(charts))
	}
	down, up, far := charts[0], charts[1], charts[2]
	if !strings.Contains(down, "leaf1:Ethernet0 priority 3 — ecn=on,pfc=on") {
		t.Errorf("title does not name the port and priority:\n%s", down)
	}
	// Kmin and Kmax as levels, Kmin below Kmax (SVG y grows downwards).
	lv := levelRE.FindAllStringSubmatch(down, -1)
	if len(lv) != 2 || lv[0][2] != "ECN Kmin 800 KiB" || lv[1][2] != "ECN Kmax 3.12 MiB" {
		t.Fatalf("levels %q, want ECN Kmin 800 KiB and ECN Kmax 3.12 MiB", lv)
	}
	y0, _ := strconv.ParseFloat(lv[0][1], 64)
	y1, _ := strconv.ParseFloat(lv[1][1], 64)
	if !(y0 > y1) {
		t.Errorf("Kmin drawn at y %v, Kmax at %v: Kmin should be lower", y0, y1)
	}
	for _, want := range []string{">received<title>PFC pause received", ">sent<title>PFC pause sent", "egress queue 3 depth"} {
		if !strings.Contains(down, want) {
			t.Errorf("chart toward the receiver lacks %q", want)
		}
	}
	if n := strings.Count(down, `<rect class="bar"`); n != 1 || !strings.Contains(down, "<title>PFC pause received: the peer stopped this port&#39;s queue 3 100-140 µs</title>") {
		t.Errorf("%d pause bars; want the one received from 100 to 140 µs:\n%s", n, down)
	}
	// Toward the sender: the PG's use and its XOFF point, the pauses sent.
	for _, want := range []string{"ingress PG 3 use", "PG 3 XOFF point", "no ECN marking on this queue", "PFC pause sent: PG 3 in XOFF stopped the peer 340-400 µs"} {
		if !strings.Contains(up, want) {
			t.Errorf("chart toward the sender lacks %q:\n%s", want, up)
		}
	}
	// Levels far above the data are named, not drawn over it.
	if strings.Contains(far, `class="level"`) || strings.Contains(far, "XOFF point</title>") {
		t.Errorf("levels far above a shallow queue drawn:\n%s", far)
	}
	for _, want := range []string{"PG 3 XOFF point at 9.54 MiB or more, above the chart", "ECN Kmin at 800 KiB, above the chart"} {
		if !strings.Contains(far, want) {
			t.Errorf("far chart lacks %q", want)
		}
	}
	// The pause timeline: a lane per port, priority and direction.
	tl := chartSVG(t, html, "series-paused")
	for _, want := range []string{">leaf1:Ethernet0 p3 received<", ">leaf1:Ethernet4 p3 sent<", "PFC pauses received and sent — ecn=on,pfc=on"} {
		if !strings.Contains(tl, want) {
			t.Errorf("pause timeline lacks %q:\n%s", want, tl)
		}
	}
	if !strings.Contains(html, "<h2>Queue depth, PG use and PFC pauses per port and priority over time</h2>") || !strings.Contains(html, "<h2>PFC pauses received and sent over time</h2>") {
		t.Error("no headings for the queue charts and the pause timeline")
	}

	// More points than charts: the busiest are drawn, the rest counted.
	v := &run.Variants[0]
	base := append([]TimeSeries(nil), v.Series...)
	for p := 0; p < 5; p++ {
		for _, s := range base[:2] {
			s.Port = fmt.Sprintf("Ethernet%d", 100+p)
			v.Series = append(v.Series, s)
		}
	}
	h.Reset()
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h.String(), `data-chart="series-queue"`); n != maxQueueCharts {
		t.Errorf("%d queue charts, want %d", n, maxQueueCharts)
	}
	if !strings.Contains(h.String(), "ecn=on,pfc=on: the busiest 4 drawn; 4 (port, priority) pairs more in run.json.") {
		t.Error("the charts left out are not counted")
	}

	// Records made before (series per port) keep their charts.
	old := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	h.Reset()
	if err := RenderHTML(old, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), `data-chart="series-queue"`) || strings.Count(h.String(), `data-chart="series-queue_bytes"`) != 4 {
		t.Error("a record with series per port does not keep its charts")
	}
}

// TestDropsCellNamesEveryCause: a counter's drops cell names the parts
// the simulator attributes (a link down, no route, a routing loop, a PFC
// watchdog), so a reader of the report tells a black hole from a full
// buffer; drops without a cause are the plain number.
func TestDropsCellNamesEveryCause(t *testing.T) {
	for _, tc := range []struct {
		c    Counter
		want string
	}{
		{Counter{Drops: 12}, "12"},
		{Counter{Drops: 151, LinkDrops: 37, RouteDrops: 114}, "151 (link down 37; no route 114)"},
		{Counter{Drops: 5, LoopDrops: 5}, "5 (routing loop 5)"},
		{Counter{Drops: 9, WatchdogDrops: 9, WatchdogStorms: 1}, "9 (watchdog 9; watchdog storms 1, restored 0)"},
	} {
		if got := dropsCell(tc.c); got != tc.want {
			t.Errorf("dropsCell(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}
