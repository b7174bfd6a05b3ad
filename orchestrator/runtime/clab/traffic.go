package clab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// perftestBasePort is the first out-of-band TCP port; flow i uses base+i so
// that servers of several flows can share a host.
const perftestBasePort = 18515

// serverStartDelay is how long servers get to listen before clients
// connect. perftest has no readiness signal; clients also retry below.
const serverStartDelay = 2 * time.Second

// FlowCommand is one flow's perftest pair.
type FlowCommand struct {
	Flow         runtime.FlowSpec
	SrcContainer string
	DstContainer string
	Server       []string
	Client       []string
}

// FlowCommands builds the perftest argv of every flow of v over RDMA CM
// (which picks the RoCEv2 GID of the address) on the soft-RoCE device of
// each endpoint's NIC: ib_write_bw for the variant's duration, reporting
// Gb/s, with the flow's QPs (-q), tx depth (--tx-depth) and direction
// (-b); a latency flow's ib_write_lat with its message size and
// iterations (-n), which report percentiles (with -D it would report only
// the average).
func FlowCommands(l *runtime.Lab, v runtime.VariantSpec) ([]FlowCommand, error) {
	secs := time.Duration(math.Ceil(v.DurationUs/1e6)) * time.Second
	if secs < time.Second {
		secs = time.Second
	}
	var out []FlowCommand
	for i, f := range v.Flows {
		dstAddr, err := hostAddress(l.Graph, f.Dst)
		if err != nil {
			return nil, fmt.Errorf("flow %s: %w", f.ID, err)
		}
		if _, err := hostAddress(l.Graph, f.Src); err != nil {
			return nil, fmt.Errorf("flow %s: %w", f.ID, err)
		}
		tc := f.TrafficClass
		opt := perftest.Options{
			Test: perftest.WriteBW, GIDIndex: -1, RDMACM: true,
			QPs: f.QPs, Size: f.MessageBytes, Duration: secs,
			TxDepth: f.TxDepth, Bidirectional: f.Bidirectional,
			ReportGbits: true, NoCPUFreqCheck: true, TrafficClass: &tc,
			TCPPort: perftestBasePort + i,
		}
		if f.IsLatency() {
			opt = perftest.Options{
				Test: perftest.WriteLat, GIDIndex: -1, RDMACM: true,
				Size: f.MessageBytes, Iterations: f.Iterations,
				NoCPUFreqCheck: true, TrafficClass: &tc, TCPPort: perftestBasePort + i,
			}
		}
		opt.Device = fabric.RXEName(f.Dst.Host, f.Dst.NIC)
		server, err := opt.ServerArgv()
		if err != nil {
			return nil, fmt.Errorf("flow %s: %w", f.ID, err)
		}
		opt.Device = fabric.RXEName(f.Src.Host, f.Src.NIC)
		client, err := opt.ClientArgv(dstAddr)
		if err != nil {
			return nil, fmt.Errorf("flow %s: %w", f.ID, err)
		}
		out = append(out, FlowCommand{Flow: f, SrcContainer: ContainerName(l.Name, f.Src.Host), DstContainer: ContainerName(l.Name, f.Dst.Host), Server: server, Client: client})
	}
	return out, nil
}

func hostAddress(g *fabric.Graph, ep runtime.Endpoint) (string, error) {
	n := g.Node(ep.Host)
	if n == nil || n.Role != fabric.RoleHost {
		return "", fmt.Errorf("%s is not a host of the lab", ep.Host)
	}
	if ep.NIC < 0 || ep.NIC >= len(n.Ports) {
		return "", fmt.Errorf("host %s has no NIC %d (it has %d)", ep.Host, ep.NIC, len(n.Ports))
	}
	addr, _, _ := strings.Cut(n.Ports[ep.NIC].Address, "/")
	return addr, nil
}

func runFlows(ctx context.Context, eng Execer, v runtime.VariantSpec, cmds []FlowCommand, startDelay time.Duration) (*results.Variant, error) {
	secs := time.Duration(math.Ceil(v.DurationUs/1e6)) * time.Second
	limit := secs + startDelay + 60*time.Second
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type outcome struct {
		res ExecResult
		err error
	}
	servers := make([]chan outcome, len(cmds))
	// A server whose client failed would wait for a connection until
	// limit: stopServer[i] ends it as soon as that is known.
	stopServer := make([]context.CancelFunc, len(cmds))
	for i, c := range cmds {
		servers[i] = make(chan outcome, 1)
		sctx, stop := context.WithCancel(ctx)
		stopServer[i] = stop
		go func() {
			res, err := eng.Exec(sctx, c.DstContainer, c.Server, ExecOptions{Timeout: flowLimit(c.Flow, limit)})
			servers[i] <- outcome{res, err}
		}()
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(startDelay):
	}
	clients := make([]outcome, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d := time.Duration(c.Flow.StartUs * float64(time.Microsecond)); d > 0 {
				select {
				case <-ctx.Done():
				case <-time.After(d):
				}
			}
			res, err := ExecOK(ctx, eng, c.SrcContainer, c.Client, ExecOptions{Timeout: flowLimit(c.Flow, limit)})
			clients[i] = outcome{res, err}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &results.Variant{Name: v.Name, ECN: v.ECN, PFC: v.PFC, Params: v.Params, Repetition: v.Repetition}
	var rates []float64
	var failures []string
	for i, c := range cmds {
		f := results.Flow{ID: c.Flow.ID, Src: fmt.Sprintf("%s:%d", c.Flow.Src.Host, c.Flow.Src.NIC), Dst: fmt.Sprintf("%s:%d", c.Flow.Dst.Host, c.Flow.Dst.NIC), Pattern: c.Flow.Pattern, Role: c.Flow.Role, Source: results.Measured}
		if clients[i].err != nil {
			stopServer[i]()
		}
		srv := <-servers[i]
		test := perftest.WriteBW
		if c.Flow.IsLatency() {
			test = perftest.WriteLat
		}
		switch {
		case clients[i].err != nil:
			failures = append(failures, fmt.Sprintf("flow %s: %v", c.Flow.ID, clients[i].err))
			f.State, f.Reason = results.FlowFailed, string(test)+" client failed: "+clients[i].err.Error()
		case c.Flow.IsLatency():
			lat, err := readLatency(clients[i].res.Stdout)
			if err != nil {
				failures = append(failures, fmt.Sprintf("flow %s: %v", c.Flow.ID, err))
				f.State, f.Reason = results.FlowFailed, err.Error()
			}
			f.LatencyUs = lat
		default:
			rep, err := perftest.ParseBW(bytes.NewReader(clients[i].res.Stdout))
			if err == nil {
				f.ThroughputGbps, err = rep.AverageGbps()
			}
			if err != nil {
				failures = append(failures, fmt.Sprintf("flow %s: read ib_write_bw report: %v", c.Flow.ID, err))
				f.State, f.Reason = results.FlowFailed, "read ib_write_bw report: "+err.Error()
			}
		}
		if srv.err != nil && clients[i].err == nil {
			failures = append(failures, fmt.Sprintf("flow %s: server: %v", c.Flow.ID, srv.err))
		}
		if c.Flow.IsLatency() {
			if f.LatencyUs != nil {
				// Each side wrote its iterations.
				f.Bytes = new(2 * int64(c.Flow.MessageBytes) * f.LatencyUs.Iterations)
			}
			out.Flows = append(out.Flows, f)
			continue
		}
		if f.State != results.FlowFailed {
			// ib_write_bw -D reports a rate over its duration, not a count.
			f.Bytes = new(int64(f.ThroughputGbps * 1e9 / 8 * secs.Seconds()))
		}
		rates = append(rates, f.ThroughputGbps)
		out.Flows = append(out.Flows, f)
	}
	out.Summary = summarize(rates)
	if len(rates) == 0 {
		out.Summary.NotComputed = append(out.Summary.NotComputed, results.LatencyOnlyNotComputed...)
	}
	out.Summary.FailedFlows = results.CountFailed(out.Flows)
	if len(failures) > 0 {
		out.Error = strings.Join(failures, "; ")
		return out, fmt.Errorf("variant %s: %d of %s failed: %s", v.Name, len(failures), plural.N(len(cmds), "flow"), out.Error)
	}
	return out, nil
}

// summarize aggregates measured flow rates. Switch-side figures (pauses,
// marks, drops) stay zero: the software data planes do not produce them.
func summarize(rates []float64) results.Summary {
	s := results.Summary{Source: results.Measured}
	if len(rates) == 0 {
		return s
	}
	sum, sq := 0.0, 0.0
	s.ThroughputGbpsMinFlow = math.Inf(1)
	for _, r := range rates {
		sum += r
		sq += r * r
		s.ThroughputGbpsMinFlow = min(s.ThroughputGbpsMinFlow, r)
	}
	s.ThroughputGbpsTotal = sum
	if sq > 0 {
		s.JainFairness = sum * sum / (float64(len(rates)) * sq)
	}
	return s
}

// latencyIterationBound is how long one ib_write_lat iteration may take
// before a latency flow counts as stuck: soft-RoCE round trips take tens
// of microseconds, so a millisecond leaves room for a busy host.
const latencyIterationBound = time.Millisecond

// flowLimit is how long a flow's perftest pair may run: a bandwidth
// flow's duration plus the start delay and a minute (limit), a latency
// flow's iterations at latencyIterationBound each, at least that.
func flowLimit(f runtime.FlowSpec, limit time.Duration) time.Duration {
	if !f.IsLatency() {
		return limit
	}
	return max(limit, time.Duration(f.Iterations)*latencyIterationBound+time.Minute)
}

// readLatency reads an ib_write_lat client's report into the flow's
// latency: the whole distribution it prints, one way.
func readLatency(stdout []byte) (*results.Latency, error) {
	rep, err := perftest.ParseLat(bytes.NewReader(stdout))
	if err != nil {
		return nil, fmt.Errorf("read ib_write_lat report: %w", err)
	}
	if len(rep.Rows) == 0 {
		return nil, errors.New("ib_write_lat reported no rows")
	}
	row := rep.Rows[0]
	if row.P99Us == nil {
		return nil, errors.New("ib_write_lat reported no 99th percentile (was it run with -D?)")
	}
	return runtime.PingPongLatency(&row), nil
}
