package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// simulatedWord finds "simulated" as a word, not inside record keys such
// as simulated_us.
var simulatedWord = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])simulated([^A-Za-z0-9_]|$)`)

// A flow-level run says so wherever it says "simulated": the text output,
// report.md, report.html (visible text), junit.xml and the record.
func TestFlowModelIsNamedEverywhere(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"run", "allreduce", "--lab", "16gpu", "--dir", dir, "--model", "flow"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
	runDir := lastRunDir(t, dir, out.String())
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(runDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The scenario as run is the scenario's own text (its comments speak
	// of simulation), not what labctl says of the figures.
	html := read(results.ReportHTML)
	html = regexp.MustCompile(`(?s)<h2 id="scenario">.*?</details>`).ReplaceAllString(html, "")
	md := regexp.MustCompile("(?s)## Scenario as run\n\n```+yaml\n.*?\n```+\n").ReplaceAllString(read(results.ReportMarkdown), "")
	html = regexp.MustCompile(`(?s)<style>.*?</style>`).ReplaceAllString(html, "")
	html = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(html, "\n")
	outputs := map[string]string{
		"text": out.String(), "report.md": md, "report.html": html,
		"junit.xml": read(results.ReportJUnit), "run.json": read(results.RunFile),
	}
	if !strings.Contains(outputs["run.json"], `"model_note": "flow-level model: no queues, PFC, ECN or DCQCN"`) || strings.Count(outputs["run.json"], `"model": "flow"`) < 2 {
		t.Errorf("run.json does not carry the model on the run and the summaries")
	}
	// The record says of each figure how it was obtained, as the reports
	// do: estimated, never simulated (results.SimulatorSource); and a
	// ring AllReduce's time and ratio are the estimate's, by name, which
	// the catalog's assertion on simulated_over_theoretical still reads.
	rec := outputs["run.json"]
	if n := strings.Count(rec, `"source": "estimated"`); strings.Contains(rec, `"source": "simulated"`) || n < 2 {
		t.Errorf("run.json: %d figures say estimated, and some say simulated: %v", n, strings.Contains(rec, `"source": "simulated"`))
	}
	for _, want := range []string{`"estimated_us"`, `"estimated_over_theoretical"`} {
		if !strings.Contains(rec, want) {
			t.Errorf("run.json has no %s in extra.allreduce", want)
		}
	}
	for _, name := range []string{"text", "report.md", "junit.xml"} {
		if strings.Contains(outputs[name], "simulated_over_theoretical=") || !strings.Contains(outputs[name], "estimated_over_theoretical=") {
			t.Errorf("%s: the allreduce assertion's detail does not name the estimate", name)
		}
	}
	delete(outputs, "run.json") // structured: checked above
	for name, text := range outputs {
		if !strings.Contains(text, "flow-level model: no queues, PFC, ECN or DCQCN") && !strings.Contains(text, `"model": "flow"`) {
			t.Errorf("%s does not name the flow-level model", name)
		}
		for i, line := range strings.Split(text, "\n") {
			if simulatedWord.MatchString(line) && !strings.Contains(line, "flow-level") {
				t.Errorf("%s line %d says simulated without the model: %q", name, i+1, strings.TrimSpace(line))
			}
		}
	}
	// And the packet model's run says nothing of a flow-level model.
	out.Reset()
	if code := run(context.Background(), []string{"run", "allreduce", "--lab", "16gpu", "--dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("packet run: exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "flow-level") {
		t.Errorf("a packet-level run mentions the flow-level model:\n%s", out.String())
	}
	if rec, err := os.ReadFile(filepath.Join(lastRunDir(t, dir, out.String()), results.RunFile)); err != nil || strings.Contains(string(rec), `"estimated`) || !strings.Contains(string(rec), `"source": "simulated"`) {
		t.Errorf("a packet-level run's record says estimated, or not simulated (%v)", err)
	}
	// What each run cost: a wall time for both, events only where packets
	// were simulated (the flow-level model has none: absent, never 0).
	costLine := regexp.MustCompile(`(?m)^  run cost: .*\(measured wall time of the simulator on this machine\)$`)
	flowCost, packetCost := costLine.FindString(outputs["text"]), costLine.FindString(out.String())
	if flowCost == "" || strings.Contains(flowCost, "events") || !strings.Contains(packetCost, " events (") || !strings.Contains(packetCost, "packet-hops") {
		t.Errorf("run cost lines: flow-level %q, packet-level %q", flowCost, packetCost)
	}
}

// lastRunDir is the run folder labctl run's text output names.
func lastRunDir(t *testing.T, dir, out string) string {
	t.Helper()
	runDir := runDirOf(dir, out)
	if runDir == "" {
		t.Fatalf("no run folder in the output:\n%s", out)
	}
	return runDir
}

// Variants that differ only in ECN or PFC are refused for the flow-level
// model before any run folder exists; an unknown model too.
func TestFlowModelRefusals(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	for _, args := range [][]string{
		{"run", "incast", "--lab", "16gpu", "--model", "flow"},
		{"run", "baseline-bw", "--lab", "16gpu", "--model", "fluid"},
	} {
		var out, errb strings.Builder
		code := run(context.Background(), append(args, "--dir", dir), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "--model packet") && !strings.Contains(errb.String(), "use packet") {
			t.Errorf("%v: exit %d, %s; want 2 with the fix", args, code, errb.String())
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "results")); len(entries) > 1 {
		t.Errorf("refused runs left %d entries in results/", len(entries))
	}
}

// The flow-level model reads qos.mtu (a link's goodput is MTU/(MTU+82)
// of its rate), so a sweep of it runs and its points differ; the keys it
// does not read are refused (scenario.flowModelBlind, the corpus).
func TestFlowModelSweepsMTU(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	path := filepath.Join(dir, "mtu.yaml")
	spec := "name: mtu\nmatrix:\n  ecn: [on]\n  pfc: [on]\n  qos.mtu: [1024, 4096]\ntraffic: [{pattern: pairs, pairs: 2}]\n"
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, r, errs := runJSON(t, dir, path, "16gpu", "--model", "flow")
	if code != 0 || r == nil || len(r.Variants) != 2 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	small, big := r.Variants[0].Summary.ThroughputGbpsMinFlow, r.Variants[1].Summary.ThroughputGbpsMinFlow
	// 200G NICs: 1024/(1024+82) and 4096/(4096+82) of line rate.
	if !(small > 184 && small < 186 && big > 195.5 && big < 196.5) {
		t.Errorf("min flow %.1f Gb/s at MTU 1024, %.1f at 4096; want about 185.2 and 196.1", small, big)
	}
	// A steady rate is no byte count: the flows' bytes are null, not 0,
	// where the packet model counts what each flow delivered.
	for _, f := range r.Variants[0].Flows {
		if f.Bytes != nil {
			t.Errorf("flow-level flow %s has bytes %d, want null", f.ID, *f.Bytes)
		}
	}
	code, r, errs = runJSON(t, dir, path, "16gpu")
	if code != 0 || r == nil || len(r.Variants[0].Flows) == 0 {
		t.Fatalf("packet model: exit %d: %s", code, errs)
	}
	for _, f := range r.Variants[0].Flows {
		if f.Bytes == nil || *f.Bytes <= 0 {
			t.Errorf("packet-level flow %s has bytes %v, want what it delivered", f.ID, f.Bytes)
		}
	}
}

// TestBaselineBWFlowModelPasses: the catalog's baseline-bw under the
// flow-level model checks the goodput and leaves out what that model does
// not compute (drops, pauses, marks), instead of failing for want of it.
func TestBaselineBWFlowModelPasses(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	code, r, stderr := runJSON(t, dir, "baseline-bw", "16gpu", "--model", "flow")
	if code != 0 || r == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, v := range r.Variants {
		if len(v.Assertions) != 1 || !v.Assertions[0].Passed || !strings.HasPrefix(v.Assertions[0].Name, "goodput") {
			t.Errorf("%s: assertions %+v, want the goodput one alone, passed", v.Name, v.Assertions)
		}
	}
}
