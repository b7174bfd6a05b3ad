package results

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/qos"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// renderedReports are run's two readable reports, by name: "markdown"
// (RenderMarkdown) and "html" (RenderHTML, without a topology).
func renderedReports(t *testing.T, run *Run) map[string]string {
	t.Helper()
	var md, html bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	if err := RenderHTML(run, &html, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"markdown": md.String(), "html": html.String()}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run 'go test -update' to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run 'go test ./orchestrator/results -update' and review the diff.\ngot:\n%s", path, got)
	}
}

const testMermaid = `flowchart TB
  %% 64gpu scaled-down lab
  subgraph spines
    spine1["spine1"]
  end
  leaf1[leaf1] --- spine1
  leaf2[leaf2] --- spine1
  h1(h1) --- leaf1
  h2(h2) --- leaf1
  h9(h9) -->|200G| leaf2
`

func TestRenderMarkdownGolden(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	var b bytes.Buffer
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.golden.md", b.Bytes())
	// The facts a reader needs are there, whatever the layout.
	for _, want := range []string{"| ecn=off,pfc=off |", "**FAIL**", "h4:0->h9:0", "simulated", "| 250 |", "jain_fairness=0.823"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestRenderMarkdownEscapesAndEdgeCases(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	run.Variants[0].Name = "a|b\n<script>"
	run.Variants[0].Error = "sim crashed\nat step 3"
	run.Finished = nil
	var b bytes.Buffer
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "<script>") || !strings.Contains(out, `a\|b &lt;script>`) {
		t.Errorf("variant name not escaped:\n%s", out)
	}
	if !strings.Contains(out, "not finished") || !strings.Contains(out, "**Error:** sim crashed at step 3") {
		t.Errorf("unfinished run or variant error missing")
	}
	empty := &Run{RunID: "20261129T120000Z-x", Status: StatusInterrupted, Started: t0}
	b.Reset()
	if err := RenderMarkdown(empty, &b); err != nil || !strings.Contains(b.String(), "No variant finished") {
		t.Errorf("empty run: %v\n%s", err, b.String())
	}
}

// parseXML checks s is well-formed (the report is written so that it is
// both valid HTML and well-formed XML) and returns the elements' names with
// their attributes.
func parseXML(t *testing.T, s string) []xml.StartElement {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = true
	var els []xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, col := dec.InputPos()
			lines := strings.Split(s, "\n")
			ctx := ""
			if line-1 < len(lines) {
				ctx = lines[line-1]
			}
			t.Fatalf("not well-formed at %d:%d: %v\n%s", line, col, err, truncate(ctx, 300))
		}
		if se, ok := tok.(xml.StartElement); ok {
			els = append(els, se.Copy())
		}
	}
	return els
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func TestRenderHTML(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	var b bytes.Buffer
	if err := RenderHTML(run, &b, HTMLOptions{TopologyMermaid: testMermaid}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	els := parseXML(t, out)
	charts := map[string]int{}
	for _, se := range els {
		if se.Name.Local == "svg" {
			kind := attr(se, "data-chart")
			charts[kind]++
			if kind != "topology" && attr(se, "data-source") != "simulated" {
				t.Errorf("chart %s labelled %q, want simulated", kind, attr(se, "data-source"))
			}
		}
		// Self-contained: nothing is loaded from elsewhere.
		for _, a := range se.Attr {
			if (a.Name.Local == "src" || a.Name.Local == "href") && a.Value != "" {
				t.Errorf("<%s %s=%q> loads an external resource", se.Name.Local, a.Name.Local, a.Value)
			}
		}
		if se.Name.Local == "script" || se.Name.Local == "link" || se.Name.Local == "img" || se.Name.Local == "iframe" {
			t.Errorf("report contains <%s>", se.Name.Local)
		}
	}
	want := map[string]int{"throughput": 1, "flows": 1, "flow-distribution": 1, "pfc": 1, "ecn": 1, "loss": 1, "latency": 1,
		"series-queue_bytes": 4, "series-rate_gbps": 4, "series-paused": 4, "topology": 1}
	for k, n := range want {
		if charts[k] != n {
			t.Errorf("%d charts of kind %q, want %d (all: %v)", charts[k], k, n, charts)
		}
	}
	if m := regexp.MustCompile(`https?://[^"]*`).FindAllString(out, -1); len(m) != len(charts) {
		// Only the SVG namespace URIs may appear.
		for _, u := range m {
			if u != "http://www.w3.org/2000/svg" {
				t.Errorf("report references %s", u)
			}
		}
	}
	for _, want := range []string{"spine1", "leaf2", ">simulated<", "FAIL", "h4:0-&gt;h9:0"} {
		if !strings.Contains(out, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	// The topology SVG has a box per node and a line per link.
	topo := out[strings.Index(out, `data-chart="topology"`):]
	topo = topo[:strings.Index(topo, "</svg>")]
	if n := strings.Count(topo, "<rect"); n != 6 {
		t.Errorf("topology has %d boxes, want 6", n)
	}
	if n := strings.Count(topo, `<line class="link"`); n != 5 {
		t.Errorf("topology has %d links, want 5", n)
	}
}

func TestRenderHTMLEscapes(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	evil := `<script>alert("x")</script>&`
	run.Scenario = evil
	run.Variants[0].Name = evil
	run.Variants[0].Flows[0].ID = evil
	run.Variants[0].Assertions[0].Detail = evil
	run.Variants[0].Series[0].Name = evil
	run.Variants[0].Error = evil
	var b bytes.Buffer
	if err := RenderHTML(run, &b, HTMLOptions{TopologyMermaid: "graph TD\n  evil[\"" + evil + "\"] --- leaf1\n"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<script") {
		t.Error("unescaped <script> in report.html")
	}
	parseXML(t, b.String())
}

func TestRenderHTMLMeasuredAndEmpty(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	run.Variants = run.Variants[:1]
	v := &run.Variants[0]
	v.Summary.Source = Measured
	for i := range v.Flows {
		v.Flows[i].Source = Measured
	}
	v.Series = nil
	var b bytes.Buffer
	if err := RenderHTML(run, &b, HTMLOptions{TopologyMermaid: "flowchart LR\n a --> \n"}); err != nil {
		t.Fatal(err)
	}
	els := parseXML(t, b.String())
	for _, se := range els {
		if se.Name.Local == "svg" && attr(se, "data-chart") == "throughput" && attr(se, "data-source") != "measured" {
			t.Errorf("measured chart labelled %q", attr(se, "data-source"))
		}
		if strings.HasPrefix(attr(se, "data-chart"), "series-") {
			t.Error("series chart drawn without series")
		}
	}
	if !strings.Contains(b.String(), "could not be drawn") {
		t.Error("bad mermaid not reported")
	}
	b.Reset()
	if err := RenderHTML(&Run{RunID: "x", Status: StatusRunning, Started: t0}, &b, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	parseXML(t, b.String())
}

func TestRenderJUnit(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	run.Variants[1].Error = "link down\x01"
	var b bytes.Buffer
	if err := RenderJUnit(run, &b); err != nil {
		t.Fatal(err)
	}
	parseXML(t, b.String())
	var doc JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// 4 variants x (completed + 2 assertions); the ecn=off,pfc=off variant
	// fails fair share; variant 1 has an error.
	if doc.Tests != 12 || doc.Failures != 1 || doc.Errors != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 12 {
		t.Fatalf("tests=%d failures=%d errors=%d suites=%d", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites))
	}
	var failed JUnitCase
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed = c
		}
	}
	if failed.ClassName != "ecn-pfc.ecn=off,pfc=off" || failed.Name != "fair share" || !strings.Contains(failed.Failure.Text, "jain_fairness >= 0.9") {
		t.Errorf("failed case = %+v", failed)
	}
}

// A run that did not finish carries an error case saying how far it got,
// so a CI job does not see a partial run pass; a finished one none.
func TestRenderJUnitUnfinishedRunIsAnError(t *testing.T) {
	for _, status := range Statuses {
		run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
		run.Variants = run.Variants[:2]
		run.VariantsPlanned = 4
		run.Status = status
		var b bytes.Buffer
		if err := RenderJUnit(run, &b); err != nil {
			t.Fatal(err)
		}
		var doc JUnitSuites
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		unfinished := status == StatusInterrupted || status == StatusAbandoned || status == StatusRunning
		if unfinished != (doc.Errors == 1) || unfinished != strings.Contains(b.String(), "2 of 4 variants finished") {
			t.Errorf("status %s: errors=%d\n%s", status, doc.Errors, b.String())
		}
	}
}

func TestWriteReports(t *testing.T) {
	dir := t.TempDir()
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	if err := WriteReports(dir, run, testMermaid); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{RunFile, ReportMarkdown, ReportHTML, ReportJUnit} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	back, err := ReadRunFile(filepath.Join(dir, RunFile))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(run)
	c, _ := json.Marshal(back)
	if !bytes.Equal(a, c) {
		t.Error("run.json does not round-trip")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("%d files in run folder, want 4", len(entries))
	}
}

func TestParseMermaid(t *testing.T) {
	tests := []struct {
		in        string
		nodes     int
		links     int
		tiers     map[string]int
		wantError string
	}{
		{in: testMermaid, nodes: 6, links: 5, tiers: map[string]int{"spine1": 0, "leaf1": 1, "h9": 2}},
		{in: "graph TD\n a---b---c\n", nodes: 3, links: 2, tiers: map[string]int{"a": 0, "b": 1, "c": 2}},
		{in: "graph LR\n ss1 -- 400G --- spine1; spine1 <--> leaf1\n", nodes: 3, links: 2, tiers: map[string]int{"ss1": 0, "spine1": 1, "leaf1": 2}},
		{in: "flowchart TB\n leaf1[\"leaf1 (a--b)\"] -.- h1\n", nodes: 2, links: 1},
		{in: "graph TD\n a --- \n", wantError: "line 2: link from \"a\" has no target"},
		{in: "graph TD\n a[unclosed --- b\n", wantError: "not closed"},
		{in: "graph TD\n a ~~ b\n", wantError: "expected a link operator"},
	}
	for _, tt := range tests {
		topo, err := ParseMermaid(tt.in)
		if tt.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("ParseMermaid(%q) error = %v, want %q", tt.in, err, tt.wantError)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseMermaid(%q): %v", tt.in, err)
			continue
		}
		if len(topo.Nodes) != tt.nodes || len(topo.Links) != tt.links {
			t.Errorf("ParseMermaid(%q): %d nodes %d links, want %d %d: %+v", tt.in, len(topo.Nodes), len(topo.Links), tt.nodes, tt.links, topo)
		}
		for _, n := range topo.Nodes {
			if want, ok := tt.tiers[n.ID]; ok && n.Tier != want {
				t.Errorf("ParseMermaid(%q): %s tier %d, want %d", tt.in, n.ID, n.Tier, want)
			}
		}
	}
}

func FuzzParseMermaid(f *testing.F) {
	f.Add(testMermaid)
	f.Add("graph TD\n a---b---c\n")
	for _, name := range []string{"64gpu.mmd", "1024gpu.mmd"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("graph LR\n ss1 -- 400G --- spine1; spine1 <--> leaf1\n")
	f.Fuzz(func(t *testing.T, s string) {
		topo, err := ParseMermaid(s)
		if err != nil {
			return
		}
		_ = topologySVG(topo)
	})
}

func TestFmtFloat(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 193.2: "193.2", 0.99123: "0.991", 1234.56: "1234.6", 0.001234: "0.0012", 5: "5"} {
		if got := fmtFloat(v); got != want {
			t.Errorf("fmtFloat(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestParseMermaidPodDiagram(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "1024gpu.mmd"))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := ParseMermaid(string(data))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"pod1_spines": 0, "pod1_leaves": 1, "pod1_hosts": 2}
	for _, n := range topo.Nodes {
		if n.Tier != want[n.ID] {
			t.Errorf("%s: tier %d, want %d", n.ID, n.Tier, want[n.ID])
		}
	}
	if len(topo.Nodes) != 3 {
		t.Errorf("nodes: %+v", topo.Nodes)
	}
}

func TestParseMermaidFabricDiagram(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "64gpu.mmd"))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := ParseMermaid(string(data))
	if err != nil {
		t.Fatal(err)
	}
	tiers := map[string]int{}
	labels := map[string]string{}
	for _, n := range topo.Nodes {
		tiers[n.ID] = n.Tier
		labels[n.ID] = n.Label
	}
	want := map[string]int{"spine1": 0, "leaf1": 1, "leaf2": 1, "hosts_leaf1": 2, "hosts_leaf2": 2}
	for id, tier := range want {
		if got, ok := tiers[id]; !ok || got != tier {
			t.Errorf("%s: tier %d (present %v), want %d", id, got, ok, tier)
		}
	}
	if len(topo.Nodes) != 5 || len(topo.Links) != 4 {
		t.Errorf("%d nodes, %d links; want 5, 4", len(topo.Nodes), len(topo.Links))
	}
	if labels["spine1"] != "spine1\nAS65000" || topo.Links[0].Label != "16x400G as 1 lab link" {
		t.Errorf("labels: %q, link %q", labels["spine1"], topo.Links[0].Label)
	}
}

// The catalog's generated diagrams must all draw.
func TestParseMermaidCatalog(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "topologies", "*", "*.mmd"))
	if len(files) == 0 {
		t.Skip("no generated topologies in this checkout")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		topo, err := ParseMermaid(string(data))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(topo.Nodes) < 3 || len(topo.Links) < 2 {
			t.Errorf("%s: %d nodes, %d links", f, len(topo.Nodes), len(topo.Links))
		}
		svg := string(topologySVG(topo))
		parseXML(t, svg)
		t.Logf("%s: %d nodes, %d links, %d bytes of SVG", filepath.Base(f), len(topo.Nodes), len(topo.Links), len(svg))
	}
}

// A live-lab variant carries its simulated twin; both reports show the two
// summaries one under the other, each labelled with its source.
func TestReportsMeasuredWithSimulated(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-16gpu", t0)
	run.Runtime = "clab"
	run.Variants = run.Variants[:1]
	v := &run.Variants[0]
	v.Summary = Summary{ThroughputGbpsTotal: 1.25, Source: Measured}
	for i := range v.Flows {
		v.Flows[i].Source = Measured
	}
	v.Simulated = &SimulatedPart{ConfigSource: "read back from the switches", Summary: Summary{ThroughputGbpsTotal: 97.5, PFCPauseFrames: 4242, Source: Simulated}}
	var md bytes.Buffer
	if err := RenderMarkdown(run, &md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "(simulated, read back from the switches) | 97.5") || !strings.Contains(md.String(), "4242") {
		t.Errorf("markdown lacks the simulated row:\n%s", md.String())
	}
	var h bytes.Buffer
	if err := RenderHTML(run, &h, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	parseXML(t, h.String())
	if !strings.Contains(h.String(), "↳ simulated (read back from the switches)") || !strings.Contains(h.String(), "4242") {
		t.Error("report.html lacks the simulated row")
	}
}

// The NIC parameters a run used are in both readable reports, once when
// every variant shares them.
func TestReportsShowNICSettings(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	params := []nic.Param{{Name: "rpg_time_reset", Value: "300", Unit: "µs"}, {Name: "rpg_ai_rate", Value: "5", Unit: "Mb/s"}}
	for i := range run.Variants {
		preset := "connectx"
		if !run.Variants[i].ECN {
			preset = "off"
		}
		run.Variants[i].NIC = &NIC{DCQCN: preset, Params: params}
	}
	for name, out := range renderedReports(t, run) {
		if n := strings.Count(out, "NIC settings"); n != 1 {
			t.Errorf("%s: %d NIC settings sections, want 1", name, n)
		}
		for _, want := range []string{"DCQCN preset connectx", "rpg_time_reset", "300", "rpg_ai_rate"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	run.Variants[1].NIC = &NIC{DCQCN: "paper", Params: []nic.Param{{Name: "rpg_time_reset", Value: "55", Unit: "µs"}}}
	if n := strings.Count(renderedReports(t, run)["markdown"], "## NIC settings"); n != 2 {
		t.Errorf("two parameter sets: %d sections, want 2", n)
	}
}

// Flows that link faults moved get a table of their routes before and
// after, in both reports; a run without such flows has none.
func TestReportsShowRoutesAfterFaults(t *testing.T) {
	run := syntheticRun("20261129T120000Z-link-failure-64gpu", t0)
	if strings.Contains(renderedReports(t, run)["markdown"], "Routes after the faults") {
		t.Fatal("a run without moved flows shows routes after faults")
	}
	v := &run.Variants[0]
	v.Flows[0].Path, v.Flows[0].Route = []string{"host1", "leaf1", "spine1", "leaf2", "host5"}, []string{"leaf1:Ethernet128", "spine1:Ethernet64", "leaf2:Ethernet0"}
	v.Flows[0].PathAfterFaults, v.Flows[0].RouteAfterFaults = v.Flows[0].Path, []string{"leaf1:Ethernet132", "spine1:Ethernet64", "leaf2:Ethernet0"}
	v.Flows[1].Path, v.Flows[1].Route = []string{"host2", "leaf1", "spine2", "leaf2", "host6"}, []string{"leaf1:Ethernet160", "spine2:Ethernet68", "leaf2:Ethernet4"}
	v.Flows[1].PathAfterFaults, v.Flows[1].UnreachableAfterFaults = []string{"host2", "leaf1"}, true
	for name, out := range renderedReports(t, run) {
		for _, want := range []string{
			"Routes after the faults",
			"host1 &gt; leaf1:Ethernet128 &gt; spine1:Ethernet64 &gt; leaf2:Ethernet0 &gt; host5",
			"host1 &gt; leaf1:Ethernet132 &gt; spine1:Ethernet64",
			"host2 &gt; leaf1 (no route)",
		} {
			if name == "markdown" {
				want = strings.ReplaceAll(want, "&gt;", ">")
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	if got := routeText([]string{"h1", "leaf1", "spine1", "leaf1"}, []string{"leaf1:e1", "spine1:e2", "leaf1:e1"}, true); got != "h1 > leaf1:e1 > spine1:e2 > leaf1:e1 (loop)" {
		t.Errorf("a loop: %s", got)
	}
}

// WriteRunReports writes the reports beside a saved record and leaves the
// record as SaveRun wrote it: the reports are those WriteReports writes.
func TestWriteRunReports(t *testing.T) {
	all, beside := t.TempDir(), t.TempDir()
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	if err := WriteReports(all, run, testMermaid); err != nil {
		t.Fatal(err)
	}
	saved := []byte("{\"saved\": true}\n")
	if err := os.WriteFile(filepath.Join(beside, RunFile), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunReports(beside, run, testMermaid); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(beside, RunFile)); !bytes.Equal(got, saved) {
		t.Errorf("run.json rewritten: %s", got)
	}
	for _, name := range []string{ReportMarkdown, ReportHTML, ReportJUnit} {
		a, err := os.ReadFile(filepath.Join(all, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(beside, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from WriteReports' (%v)", name, err)
		}
	}
	if entries, _ := os.ReadDir(beside); len(entries) != 4 {
		t.Errorf("%d files in run folder, want 4", len(entries))
	}
}

// A variant whose series stop before its run's end (SeriesEndUs) says so
// once, under the first group of charts that draws it; the others say
// nothing of it.
func TestRenderHTMLSaysWhereSeriesEnd(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	v := &run.Variants[1]
	v.SimulatedUs = 1_000_000
	v.SeriesEndUs = 2000
	// No queue series: its first charts are its rates, in the group after
	// the queues'.
	v.Series = slices.DeleteFunc(v.Series, func(s TimeSeries) bool { return s.Kind == SeriesQueueBytes })
	var b bytes.Buffer
	if err := RenderHTML(run, &b, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	note := html.EscapeString(seriesEndNote(v))
	if n := strings.Count(out, note); n != 1 {
		t.Errorf("the note %q appears %d times, want once", note, n)
	}
	if at, first := strings.Index(out, note), strings.Index(out, "Sender rate — "+html.EscapeString(v.Name)); first < 0 || at < first {
		t.Errorf("the note at byte %d, the variant's first chart at %d: want the note under the group that draws it", at, first)
	}
	if text := seriesEndNote(v); !strings.Contains(text, "at 2000 µs of the run's 1000000 µs") {
		t.Errorf("note %q does not give the two times", text)
	}
	if n := strings.Count(out, "every later sample the same as the last"); n != 1 {
		t.Errorf("%d notes of series ending early, want 1 (only %s's)", n, v.Name)
	}
}

// A pause still on at the last sample of series that stop before the run
// ends (SeriesEndUs) lasts, as the report says, to the run's end: in the
// per-port pause lanes of older records, in a per-priority queue chart's
// lanes and in the pause timeline. Where the series run to the end, to
// their last sample.
func TestRenderHTMLPauseHeldToRunEnd(t *testing.T) {
	render := func(run *Run) string {
		var b bytes.Buffer
		if err := RenderHTML(run, &b, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// Older records: a paused series per port.
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	v := &run.Variants[0] // PFC on
	for i := range v.Series {
		if s := &v.Series[i]; s.Kind == SeriesPaused {
			s.Values[len(s.Values)-1] = 1
		}
	}
	last := v.Series[0].TimeUs[len(v.Series[0].TimeUs)-1]
	v.SimulatedUs = 5000
	if out := render(run); !strings.Contains(out, fmt.Sprintf("-%s µs</title>", fmtFloat(last))) || strings.Contains(out, "-5000 µs</title>") {
		t.Errorf("series to the end: want a pause to %s µs, none to 5000", fmtFloat(last))
	}
	v.SeriesEndUs = last
	if out := render(run); !strings.Contains(out, "paused spine1:Ethernet0 prio 3") || !regexp.MustCompile(`paused \S+ prio 3 paused [0-9.]+-5000 µs</title>`).MatchString(out) {
		t.Error("series ending early: no pause to the run's end (5000 µs)")
	}
	// Per priority: the queue chart's lanes and the pause timeline.
	prio, q, pg := 3, 3, 3
	ts := func(kind string, vals ...float64) TimeSeries {
		s := TimeSeries{Name: kind + " leaf1:Ethernet0 prio 3", Kind: kind, Node: "leaf1", Port: "Ethernet0", Priority: &prio, Queue: &q, PG: &pg, Unit: "bytes", Source: Simulated}
		for i, x := range vals {
			s.TimeUs, s.Values = append(s.TimeUs, float64(i*10)), append(s.Values, x)
		}
		return s
	}
	pv := Variant{Name: "ecn=off,pfc=on", PFC: true, SimulatedUs: 1000, SeriesEndUs: 30,
		Series: []TimeSeries{ts(SeriesQueueBytes, 0, 4096, 8192, 8192), ts(SeriesPaused, 0, 0, 1, 1), ts(SeriesPauseSent, 0, 1, 1, 1)}}
	run.Variants = []Variant{pv}
	out := render(run)
	for _, want := range []string{"PFC pause received: the peer stopped this port&#39;s queue 3 20-1000 µs</title>", "PFC pause sent: PG 3 in XOFF stopped the peer 10-1000 µs</title>",
		"leaf1:Ethernet0 p3 received paused 20-1000 µs</title>", "leaf1:Ethernet0 p3 sent paused 10-1000 µs</title>"} {
		if !strings.Contains(out, want) {
			t.Errorf("per priority, series ending early: no %q", want)
		}
	}
	run.Variants[0].SeriesEndUs = 0
	if out := render(run); strings.Contains(out, "-1000 µs</title>") || !strings.Contains(out, "received paused 20-30 µs</title>") {
		t.Error("per priority, series to the end: pauses should end at the last sample (30 µs)")
	}
}

// A variant whose fabric stopped changing well before its run's end
// (LastEventUs) says when, beside the run's duration it simulated, in the
// Markdown and HTML reports; one whose last event came in the run's last
// hundredth, or whose record has none (flow-level, older records), says
// nothing of it.
func TestReportsSayWhenTheFabricWentIdle(t *testing.T) {
	render := func(run *Run) (md, h string) {
		var m, b bytes.Buffer
		if err := RenderMarkdown(run, &m); err != nil {
			t.Fatal(err)
		}
		if err := RenderHTML(run, &b, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		return m.String(), b.String()
	}
	run := syntheticRun("20261129T120000Z-nccl-allreduce-16gpu", t0)
	v := &run.Variants[1]
	v.SimulatedUs, v.LastEventUs = 1_000_000, f64(5866.667)
	md, h := render(run)
	const want = "1000000 µs simulated (nothing changed the fabric after 5866.7 µs)"
	if !strings.Contains(md, want) || !strings.Contains(h, want) {
		t.Errorf("reports lack %q", want)
	}
	if n := strings.Count(md, "nothing changed the fabric"); n != 1 {
		t.Errorf("%d variants say when their fabric went idle, want 1 (only %s)", n, v.Name)
	}
	for _, last := range []*float64{f64(995_000), nil} {
		v.LastEventUs = last
		if md, h := render(run); strings.Contains(md+h, "nothing changed the fabric") {
			t.Errorf("last event %v of 1000000 µs: the reports say when the fabric went idle", last)
		}
	}
}

// TestReportLintIssuesGrouped: a lint finding of one cause on many
// switches is one issue of the report naming them, not one a switch.
func TestReportLintIssuesGrouped(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	run.Classes = []qos.ClassRow{{Device: "leaf1", Ports: "Ethernet1-48", PortCount: 48, TC: 3}}
	run.Lint = &LintSummary{Errors: 33}
	for i := 1; i <= 32; i++ {
		run.Lint.Findings = append(run.Lint.Findings, qos.Finding{Rule: qos.RuleECNThresholds, Severity: qos.SevError,
			Device: fmt.Sprintf("leaf%d", i), Port: "Ethernet33-48", Where: fmt.Sprintf("tx-queue 3 (configs/leaf%d.cfg:74)", i), Message: "queue 3: ECN Kmin is above Kmax"})
	}
	run.Lint.Findings = append(run.Lint.Findings, qos.Finding{Rule: qos.RulePFCOffLossless, Severity: qos.SevError, Device: "spine3", Port: "Ethernet1", Message: "no PFC"})
	var b bytes.Buffer
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "queue 3: ECN Kmin is above Kmax"); n != 1 || !strings.Contains(out, "- error QOS004 32 switches (leaf1-32) Ethernet33-48: queue 3") || !strings.Contains(out, "- error QOS001 spine3 Ethernet1: no PFC") {
		t.Errorf("the report lists the QOS004 of 32 switches %d times, want once naming them:\n%s", n, out)
	}
}

// TestReportSwitchQoSGrouped: the Switch QoS table has a row for each
// class setting and the switches that have it (1024gpu: 5 rows where it
// had 128), a switch set otherwise in a row of its own.
func TestReportSwitchQoSGrouped(t *testing.T) {
	run := syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0)
	run.Classes = nil
	for i := 1; i <= 32; i++ {
		ecn := "819200-3276800 B p0.2"
		if i == 7 {
			ecn = "100-200 B p1"
		}
		run.Classes = append(run.Classes,
			qos.ClassRow{Device: fmt.Sprintf("leaf%d", i), Ports: "Ethernet1-32", PortCount: 32, TC: 3, DSCPs: "26", PFC: true, Lossless: true, Queue: 3, PausedQueue: 3, ECN: ecn},
			qos.ClassRow{Device: fmt.Sprintf("leaf%d", i), Ports: "Ethernet1-48", PortCount: 48, TC: 6, DSCPs: "48", Queue: 6, PausedQueue: 6, Scheduler: "strict"})
	}
	var b bytes.Buffer
	if err := RenderMarkdown(run, &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| leaf1-6, leaf8-32 | Ethernet1-32 | 3 | 26 | yes |", "| leaf7 | Ethernet1-32 | 3 | 26 | yes |", "| leaf1-32 | Ethernet1-48 | 6 | 48 | no |"} {
		if !strings.Contains(out, want) {
			t.Errorf("the Switch QoS table lacks %q", want)
		}
	}
	if n := strings.Count(out, "| Ethernet1-48 | 6 |"); n != 1 {
		t.Errorf("the Switch QoS table has %d rows of the CNP class, want 1 for the 32 switches:\n%s", n, out)
	}
}
