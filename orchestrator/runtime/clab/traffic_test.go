package clab

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

func testVariant() runtime.VariantSpec {
	return runtime.VariantSpec{
		Name: "ecn=on,pfc=on", ECN: true, PFC: true, DurationUs: 2.5e6,
		Flows: []runtime.FlowSpec{
			{ID: "host1:0->host2:0", Src: runtime.Endpoint{Host: "host1", NIC: 0}, Dst: runtime.Endpoint{Host: "host2", NIC: 0}, Pattern: "pairs", QPs: 2, MessageBytes: 65536, TrafficClass: 106},
			{ID: "host2:1->host1:1", Src: runtime.Endpoint{Host: "host2", NIC: 1}, Dst: runtime.Endpoint{Host: "host1", NIC: 1}, Pattern: "pairs", QPs: 1, MessageBytes: 65536, TrafficClass: 106},
		},
	}
}

func TestFlowCommands(t *testing.T) {
	l := testLab(t)
	cmds, err := FlowCommands(l, testVariant())
	if err != nil {
		t.Fatal(err)
	}
	dst, _ := hostAddress(l.Graph, runtime.Endpoint{Host: "host2", NIC: 0})
	wantServer := []string{"ib_write_bw", "-d", "rxe-host2-0", "-R", "-q", "2", "-s", "65536", "-D", "3", "--report_gbits", "-F", "-T", "106", "-p", "18515"}
	if !slices.Equal(cmds[0].Server, wantServer) {
		t.Errorf("server argv %q\nwant        %q", cmds[0].Server, wantServer)
	}
	wantClient := append(slices.Clone(wantServer), dst)
	wantClient[2] = "rxe-host1-0"
	if !slices.Equal(cmds[0].Client, wantClient) {
		t.Errorf("client argv %q\nwant        %q", cmds[0].Client, wantClient)
	}
	if cmds[0].DstContainer != "clab-16gpu-host2" || cmds[0].SrcContainer != "clab-16gpu-host1" || cmds[1].Server[len(cmds[1].Server)-1] != "18516" {
		t.Errorf("containers/ports: %+v", cmds[1])
	}
	bad := testVariant()
	bad.Flows[0].Dst.NIC = 99
	if _, err := FlowCommands(l, bad); err == nil || !strings.Contains(err.Error(), "no NIC 99") {
		t.Errorf("bad NIC error = %v", err)
	}
	bad = testVariant()
	bad.Flows[0].Src.Host = "leaf1"
	if _, err := FlowCommands(l, bad); err == nil {
		t.Error("a switch accepted as a flow endpoint")
	}
}

// perftestExecer answers ib_write_bw: servers print nothing, clients print
// a recorded report; fail makes one client's connection fail.
type perftestExecer struct {
	mu     sync.Mutex
	report []byte
	lat    []byte // what ib_write_lat clients print
	fail   string // client container that fails
	hang   string // server container that waits for a client until cancelled
	calls  [][]string
}

func (p *perftestExecer) Exec(ctx context.Context, ctr string, argv []string, _ ExecOptions) (ExecResult, error) {
	p.mu.Lock()
	p.calls = append(p.calls, append([]string{ctr}, argv...))
	p.mu.Unlock()
	if !strings.HasPrefix(argv[len(argv)-1], "10.") { // a server: no address argument
		if ctr == p.hang {
			<-ctx.Done()
			return ExecResult{}, ctx.Err()
		}
		return ExecResult{}, nil
	}
	if ctr == p.fail {
		return ExecResult{ExitCode: 1, Stderr: []byte("Unable to perform rdma_client function\nUnable to init the socket connection")}, nil
	}
	if argv[0] == "ib_write_lat" {
		return ExecResult{Stdout: p.lat}, nil
	}
	return ExecResult{Stdout: p.report}, nil
}

func TestRunFlows(t *testing.T) {
	l := testLab(t)
	report, err := os.ReadFile("testdata/ib_write_bw-client.txt")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := FlowCommands(l, testVariant())
	if err != nil {
		t.Fatal(err)
	}
	ex := &perftestExecer{report: report}
	v, err := runFlows(context.Background(), ex, testVariant(), cmds, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Flows) != 2 || v.Flows[0].ThroughputGbps != 9.18 || v.Flows[0].Source != results.Measured || v.Flows[0].Src != "host1:0" {
		t.Errorf("flows = %+v", v.Flows)
	}
	if v.Summary.ThroughputGbpsTotal != 18.36 || v.Summary.JainFairness < 0.999 || v.Summary.Source != results.Measured {
		t.Errorf("summary = %+v", v.Summary)
	}
	if len(ex.calls) != 4 {
		t.Errorf("%d execs, want 2 servers and 2 clients", len(ex.calls))
	}

	ex = &perftestExecer{report: report, fail: "clab-16gpu-host2"}
	v, err = runFlows(context.Background(), ex, testVariant(), cmds, 0)
	if err == nil || v == nil || !strings.Contains(err.Error(), "1 of 2 flows failed") || !strings.Contains(v.Error, "Unable to init the socket connection") {
		t.Errorf("failing client: %v / %+v", err, v)
	}
	// The flow that failed says so, with why; the other ran.
	if v != nil {
		var states []string
		for _, f := range v.Flows {
			states = append(states, f.State)
			if f.State == results.FlowFailed && !strings.Contains(f.Reason, "ib_write_bw client failed: ") {
				t.Errorf("failed flow %s: reason %q", f.ID, f.Reason)
			}
		}
		if strings.Join(states, ",") != ",failed" || v.Summary.FailedFlows != 1 {
			t.Errorf("flow states %q, summary.failed_flows %d; want the second failed and counted", states, v.Summary.FailedFlows)
		}
	}

	// The failed client's server never gets a connection: it is stopped
	// rather than left to wait out its timeout.
	ex = &perftestExecer{report: report, fail: "clab-16gpu-host2", hang: "clab-16gpu-host1"}
	v, err = runFlows(context.Background(), ex, testVariant(), cmds, 0)
	if err == nil || v == nil || !strings.Contains(err.Error(), "1 of 2 flows failed") || strings.Contains(err.Error(), "server") {
		t.Errorf("failing client, waiting server: %v / %+v", err, v)
	}
}

// TestFlowCommandsPerftestKeys: a flow's tx depth and direction reach
// both sides' ib_write_bw (--tx-depth, -b), a latency flow runs
// ib_write_lat with its size and iterations (and no -D, which would drop
// the percentiles), and runFlows reads its report into the flow's whole
// latency distribution, outside the throughput summary.
func TestFlowCommandsPerftestKeys(t *testing.T) {
	l := testLab(t)
	v := testVariant()
	v.Flows[0].TxDepth, v.Flows[0].Bidirectional = 512, true
	v.Flows[1] = runtime.FlowSpec{ID: "host2:1->host1:1", Src: runtime.Endpoint{Host: "host2", NIC: 1}, Dst: runtime.Endpoint{Host: "host1", NIC: 1},
		Pattern: runtime.PatternLatency, Role: "latency", QPs: 1, MessageBytes: 2, Iterations: 1000, TrafficClass: 106}
	cmds, err := FlowCommands(l, v)
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range [][]string{cmds[0].Server, cmds[0].Client} {
		if i := slices.Index(side, "--tx-depth"); i < 0 || side[i+1] != "512" || !slices.Contains(side, "-b") {
			t.Errorf("bandwidth argv %q: want --tx-depth 512 and -b", side)
		}
	}
	wantLat := []string{"ib_write_lat", "-d", "rxe-host1-1", "-R", "-s", "2", "-n", "1000", "-F", "-T", "106", "-p", "18516"}
	if !slices.Equal(cmds[1].Server, wantLat) {
		t.Errorf("latency server argv %q\nwant                %q", cmds[1].Server, wantLat)
	}
	if cmds[1].Client[0] != "ib_write_lat" || cmds[1].Client[2] != "rxe-host2-1" || slices.Contains(cmds[1].Client, "-D") {
		t.Errorf("latency client argv %q", cmds[1].Client)
	}
	bw, err := os.ReadFile("testdata/ib_write_bw-client.txt")
	if err != nil {
		t.Fatal(err)
	}
	lat, err := os.ReadFile("../../perftest/testdata/lat.txt")
	if err != nil {
		t.Fatal(err)
	}
	out, err := runFlows(context.Background(), &perftestExecer{report: bw, lat: lat}, v, cmds, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Flows[1]
	// lat.txt: 2 1000 7.61 41.27 8.05 8.32 1.14 12.88 41.27
	if f.LatencyUs == nil || f.LatencyUs.P50 != 8.05 || f.LatencyUs.P99 != 12.88 || f.LatencyUs.Max != 41.27 ||
		*f.LatencyUs.Min != 7.61 || *f.LatencyUs.Avg != 8.32 || *f.LatencyUs.Stdev != 1.14 || *f.LatencyUs.P999 != 41.27 || f.LatencyUs.Iterations != 1000 {
		t.Errorf("latency flow's latency %+v", f.LatencyUs)
	}
	if f.HasThroughput() || f.Bytes == nil || *f.Bytes != 2*2*1000 || f.Source != results.Measured {
		t.Errorf("latency flow %+v", f)
	}
	if out.Summary.ThroughputGbpsTotal != 9.18 {
		t.Errorf("throughput total %v: want the bandwidth flow's alone", out.Summary.ThroughputGbpsTotal)
	}
	// Only ping-pongs: no throughput to summarize.
	v.Flows, cmds = v.Flows[1:], cmds[1:]
	if out, err = runFlows(context.Background(), &perftestExecer{lat: lat}, v, cmds, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Summary.NotComputed, results.LatencyOnlyNotComputed) {
		t.Errorf("latency-only summary: not computed %v", out.Summary.NotComputed)
	}
	// A report without percentiles (an ib_write_lat run with -D) fails
	// the flow, with why.
	dur, err := os.ReadFile("../../perftest/testdata/lat_duration.txt")
	if err != nil {
		t.Fatal(err)
	}
	out, err = runFlows(context.Background(), &perftestExecer{lat: dur}, v, cmds, 0)
	if err == nil || out.Flows[0].State != results.FlowFailed || !strings.Contains(out.Flows[0].Reason, "no 99th percentile") {
		t.Errorf("duration report: %v, flow %+v", err, out.Flows[0])
	}
}
