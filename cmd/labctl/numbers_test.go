package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// runText runs a scenario file with text output and returns the exit
// code, stdout, stderr and the run folder.
func runText(t *testing.T, dir, spec string, extra ...string) (code int, out, errs, runDir string) {
	t.Helper()
	path := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e strings.Builder
	code = run(context.Background(), append([]string{"run", path, "--lab", "16gpu", "--dir", dir}, extra...), &o, &e)
	if runDir = runDirOf(dir, o.String()); runDir == "" {
		t.Fatalf("exit %d, no run folder in the output:\n%s\n%s", code, o.String(), e.String())
	}
	return code, o.String(), e.String(), runDir
}

// runDirOf is the run folder labctl run's text output out names (the
// last "record and reports:" line), under dir when relative; "" if none.
func runDirOf(dir, out string) string {
	runDir := ""
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "record and reports: "); ok {
			runDir = filepath.Dir(rest)
			if !filepath.IsAbs(runDir) {
				runDir = filepath.Join(dir, runDir)
			}
		}
	}
	return runDir
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// retry_cnt 0 runs as 0, as run.json records it: host2:0's link is down
// for 1 ms, longer than one local ACK timeout (qp_timeout 8: 1.05 ms
// from the last ACK), so the QP sending to it fails at its first timeout
// with retry_cnt 0 and recovers with retry_cnt 7 (perftest's, which
// retry_cnt 0 used to run as). The failure is a failed flow with its
// reason in run.json, the console and the reports, counted in the
// summary, and assertions read it.
func TestRetryCountZeroFailsFlow(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	spec := `name: retry
matrix:
  ecn: [on]
  pfc: [on]
  nic.retry_cnt: [0, 7]
duration: 3ms
nic:
  qp_timeout: 8
traffic:
  - pattern: pairs
    pairs: 2
faults:
  - kind: link-down
    link: leaf1:Ethernet0
    at: 1ms
    for: 1ms
assertions:
  - name: the QP with no retries fails
    expr: summary.failed_flows == 1 && roles.pairs.failed == 1 when params.nic.retry_cnt == 0
  - name: seven retries outlast the fault
    expr: summary.failed_flows == 0 && roles.pairs.failed == 0 when params.nic.retry_cnt == 7
`
	code, out, errs, runDir := runText(t, dir, spec)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	r, err := results.ReadRunFile(filepath.Join(runDir, results.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Variants {
		recorded := ""
		for _, p := range v.NIC.Params {
			if p.Name == "retry_cnt" {
				recorded = p.Value
			}
		}
		if recorded != v.Params["nic.retry_cnt"] {
			t.Errorf("%s records retry_cnt %q", v.Name, recorded)
		}
		var failed []results.Flow
		for _, f := range v.Flows {
			if f.State == results.FlowFailed {
				failed = append(failed, f)
			} else if f.State != "" || f.Reason != "" {
				t.Errorf("%s: flow %s state %q reason %q", v.Name, f.ID, f.State, f.Reason)
			}
		}
		switch recorded {
		case "0":
			if len(failed) != 1 || v.Summary.FailedFlows != 1 || !strings.HasPrefix(failed[0].Reason, "retry count exceeded after 1 timeout at ") || !strings.HasSuffix(failed[0].Reason, " µs (retry_cnt 0)") {
				t.Errorf("%s: failed flows %+v, summary.failed_flows %d; want one, after 1 timeout", v.Name, failed, v.Summary.FailedFlows)
			}
		case "7":
			if len(failed) != 0 || v.Summary.FailedFlows != 0 {
				t.Errorf("%s: failed flows %+v: seven retries outlast a 1 ms fault", v.Name, failed)
			}
		}
	}
	if !strings.Contains(out, "FAILED 1 of 2 flows (summary.failed_flows):\n    host1:0->host2:") || !strings.Contains(out, "retry count exceeded after 1 timeout at ") {
		t.Errorf("the console does not list the failed flow:\n%s", out)
	}
	md := readFile(t, runDir, results.ReportMarkdown)
	if !strings.Contains(md, "1 of the 2 flows failed") || !strings.Contains(md, "| State |") || !strings.Contains(md, "| failed: retry count exceeded after 1 timeout at ") {
		t.Errorf("report.md does not show the failed flow:\n%s", md)
	}
	if html := readFile(t, runDir, results.ReportHTML); !strings.Contains(html, "<th>State</th>") || !strings.Contains(html, `<td class="fail">failed: retry count exceeded`) {
		t.Errorf("report.html does not show the failed flow")
	}
}

// The flow-level model counts no retransmissions and no failures: its
// flows' retransmits are null in run.json and "–" in the reports, and an
// assertion on them fails with the reason instead of passing on a 0.
func TestFlowModelFlowsHaveNoRetransmits(t *testing.T) {
	t.Parallel()
	dir := upLab(t, "16gpu")
	spec := `name: fluid
matrix:
  ecn: [on]
  pfc: [on]
traffic:
  - pattern: pairs
    pairs: 2
assertions:
  - name: no retransmissions
    expr: roles.pairs.retransmits == 0
  - name: no failures
    expr: summary.failed_flows == 0
`
	code, out, _, runDir := runText(t, dir, spec, "--model", "flow")
	if code != 1 {
		t.Errorf("exit %d, want 1 (the assertions read what the model does not compute):\n%s", code, out)
	}
	for _, want := range []string{
		"FAIL no retransmissions: cannot evaluate: ", "roles.pairs.retransmits is not computed by the flow-level model",
		"FAIL no failures: cannot evaluate: ", "summary.failed_flows is not computed by the flow-level model",
		`(to check it on packet-level runs only, end its expr with: when model != "flow")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "\nFigures: estimated by the flow-level model.\n") {
		t.Errorf("the run's text does not say how its figures were obtained:\n%s", out)
	}
	// results show names the model in SOURCE, as the reports do.
	if code, out, errs := resultsCLI(t, dir, "results", "show", "latest"); code != 0 || !strings.Contains(out, "  estimated, flow-level\n") {
		t.Errorf("results show: exit %d\n%s%s", code, out, errs)
	}
	var raw struct {
		Variants []struct {
			Flows []map[string]any `json:"flows"`
		} `json:"variants"`
	}
	if err := json.Unmarshal([]byte(readFile(t, runDir, results.RunFile)), &raw); err != nil {
		t.Fatal(err)
	}
	for _, f := range raw.Variants[0].Flows {
		if rtx, ok := f["retransmits"]; !ok || rtx != nil {
			t.Errorf("flow %v: retransmits %v, want null", f["id"], rtx)
		}
	}
	md := readFile(t, runDir, results.ReportMarkdown)
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| host") && !strings.Contains(line, " | – | – | – | – | estimated, flow-level |") {
			t.Errorf("report.md flow row does not show latency, FCT and retransmits as absent: %s", line)
		}
	}
}
