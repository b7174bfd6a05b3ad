package clab

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/sim"
)

// Simulator simulates a variant with given switch configs
// (*sim.Runtime implements it).
type Simulator interface {
	RunVariantWithConfigs(ctx context.Context, l *runtime.Lab, vs runtime.VariantSpec, cfgs []qos.DeviceConfig) (*results.Variant, error)
}

// restoreTimeout bounds putting the lab's configs back after a variant,
// which runs even when the run was interrupted.
const restoreTimeout = 5 * time.Minute

// livePlan is what a live lab needs of a variant before it touches the
// lab: the flows' commands, the link faults' actions and each switch's
// configs.
type livePlan struct {
	cmds    []FlowCommand
	actions []linkAction
	plan    []SwitchVariant
}

// prepareVariant checks that a live lab can run the variant and plans it,
// from the lab's files alone: every refusal of a variant a live lab cannot
// run (a collective, a swept MTU, a pause storm, a change its NOS's config
// cannot carry) comes from here, before anything is pushed.
func prepareVariant(l *runtime.Lab, v runtime.VariantSpec) (livePlan, error) {
	if v.Collective != nil {
		return livePlan{}, exitcode.Usagef("variant %s on lab %s: collectives (%s) run only in the simulator: use --runtime sim", v.Name, l.Name, v.Collective.Kind)
	}
	if len(v.Flows) == 0 {
		return livePlan{}, exitcode.Usagef("variant %s on lab %s has no flows", v.Name, l.Name)
	}
	if v.QoS.MTU != nil {
		return livePlan{}, exitcode.Usagef("variant %s on lab %s sweeps qos.mtu, which runs on the simulator only: a live lab's RoCE MTU is soft-RoCE's, taken from the hosts' interfaces (use --runtime sim)", v.Name, l.Name)
	}
	cmds, err := FlowCommands(l, v)
	if err != nil {
		return livePlan{}, exitcode.Usage(err)
	}
	actions, err := liveFaults(l, v)
	if err != nil {
		return livePlan{}, err
	}
	plan, err := VariantConfigs(l, v)
	if err != nil {
		return livePlan{}, err
	}
	return livePlan{cmds: cmds, actions: actions, plan: plan}, nil
}

// CheckVariant refuses, before a run starts, a variant a live lab cannot
// run, with the error RunVariant would give it (prepareVariant); the
// clabernetes runtime checks its variants with it too.
func CheckVariant(l *runtime.Lab, v runtime.VariantSpec) error {
	_, err := prepareVariant(l, v)
	return err
}

var _ runtime.VariantChecker = (*Runtime)(nil)

// CheckVariant implements runtime.VariantChecker.
func (r *Runtime) CheckVariant(l *runtime.Lab, v runtime.VariantSpec) error {
	return CheckVariant(l, v)
}

// RunVariant implements runtime.Runtime on a live lab:
//
//  1. every switch is moved to the variant's config (PushVariant), read
//     back, and the read-back compared with what was pushed (saved under
//     readback/<variant>/);
//  2. switch counters (over SSH) and host NIC counters (rdma, ethtool) are
//     read, the flows run as ib_write_bw pairs between the hosts'
//     soft-RoCE devices, the counters are read again, and an ib_write_lat
//     probe between the first flow's ends gives latency percentiles;
//  3. the measured deltas go into Counters and the summary;
//  4. the variant is simulated with the configs read back from the
//     switches (Variant.Simulated), because the virtual data planes
//     neither pause nor mark;
//  5. a variant whose configs differ from the lab's (ECN or PFC off, or
//     swept QoS values) puts the lab's configs back, even when
//     interrupted.
func (r *Runtime) RunVariant(ctx context.Context, l *runtime.Lab, v runtime.VariantSpec) (*results.Variant, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lp, err := prepareVariant(l, v)
	if err != nil {
		return nil, err
	}
	cmds, actions, plan := lp.cmds, lp.actions, lp.plan
	say := progress(l)
	tr, err := r.reach(ctx, l)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	ssh := tr.SwitchSSH()

	restore := v.ChangesConfigs()
	say(fmt.Sprintf("variant %s: pushing its configs to %s", v.Name, plural.N(len(plan), "switch")))
	readbacks, pushErr := r.pushVariant(ctx, l, v, ssh, plan, say)
	if restore {
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
			defer cancel()
			say(fmt.Sprintf("variant %s: restoring the lab's configs", v.Name))
			if err := r.restoreConfigs(rctx, l, ssh, plan, say); err != nil {
				say(fmt.Sprintf("variant %s: restoring the lab's configs failed: %v (run 'labctl up %s' again)", v.Name, err, l.Name))
			}
		}()
	}
	if pushErr != nil {
		return nil, fmt.Errorf("variant %s: %w", v.Name, pushErr)
	}

	total := int64(v.DurationUs * 1000)
	if v.Progress != nil {
		v.Progress(runtime.Progress{TotalNs: total})
	}
	// The variant's cost: its traffic, counters and latency probe on the
	// live lab (the pushes before are the configs', the simulation after
	// has a cost of its own).
	began := time.Now()
	lossless := losslessPriority(l)
	nics := HostNICs(l, v)
	var notes []string
	before, berrs := r.snapshot(ctx, l, tr, ssh, nics, lossless)
	delay := r.StartDelay
	if delay <= 0 {
		delay = serverStartDelay
	}
	fctx, stopFaults := context.WithCancel(ctx)
	faults := startLinkFaults(fctx, tr, actions, time.Now().Add(delay))
	out, runErr := runFlows(ctx, tr, v, cmds, delay)
	stopFaults()
	marks := faults.wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	after, aerrs := r.snapshot(ctx, l, tr, ssh, nics, lossless)
	notes = append(notes, berrs...)
	notes = append(notes, aerrs...)
	if out == nil {
		return nil, runErr
	}
	notes = append(notes, r.attachCounters(out, before, after, nics, lossless)...)
	out.Timeline = marks
	// What the measured summary cannot say: soft-RoCE has no congestion
	// control (no CNPs) and the switches count pause frames, not time.
	out.Summary.NotComputed = []string{"pfc_pause_us", "cnp"}
	if len(out.Counters) == 0 {
		out.Summary.NotComputed = append(out.Summary.NotComputed, "drops", "pfc_pause_frames", "ecn_marked")
	}
	if _, ok := out.Extra["host_counters"]; !ok {
		out.Summary.NotComputed = append(out.Summary.NotComputed, "retransmits")
	}
	latency := false
	if p99, ok := latencyFlowsP99(out.Flows); ok {
		// The variant's own ping-pongs measured latency: no probe.
		out.Summary.LatencyUsP99 = p99
		latency = true
	} else if runErr == nil && r.LatencyIterations >= 0 && !hasLatencyFlows(v) {
		if lat, err := r.latencyProbe(ctx, l, tr, v); err != nil {
			notes = append(notes, "latency probe: "+err.Error())
		} else {
			out.Flows[0].LatencyUs = lat
			out.Summary.LatencyUsP99 = lat.P99
			latency = true
		}
	}
	if !latency {
		out.Summary.NotComputed = append(out.Summary.NotComputed, "latency_us_p99")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out.Cost = results.WallCost(time.Since(began), 0)
	out.Simulated = r.simulate(ctx, l, v, readbacks)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if out.Extra == nil {
		out.Extra = map[string]any{}
	}
	if len(notes) > 0 {
		out.Extra["counter_errors"] = notes
	}
	out.Extra["readback_dir"] = filepath.Join(ReadbackDir(l), variantSlug(v))
	if v.Progress != nil {
		v.Progress(runtime.Progress{SimulatedNs: total, TotalNs: total})
	}
	// Failed flows are in out.Error; the variant is returned whole so the
	// flows that ran, the counters and the simulated twin stay in the run
	// record (a runner drops the variant of a non-nil error).
	return out, nil
}

// managementAddrs maps node names to their management IPv4 addresses from
// `containerlab inspect`.
func (r *Runtime) managementAddrs(ctx context.Context, l *runtime.Lab) (map[string]string, error) {
	topo, err := r.topology(l)
	if err != nil {
		return nil, err
	}
	path, err := r.LookPath(firstNonEmpty(r.CLI.Binary, "containerlab"))
	if err != nil {
		return nil, exitcode.Envf("containerlab is not installed (not on PATH), so lab %s cannot run on it: run 'labctl doctor --runtime clab', or use --runtime sim", l.Name)
	}
	r.CLI.Binary = path
	cs, err := r.CLI.Inspect(ctx, topo)
	if err != nil {
		return nil, err
	}
	mgmt := map[string]string{}
	for _, c := range cs {
		host, _, _ := strings.Cut(c.IPv4Address, "/")
		mgmt[c.NodeName()] = host
	}
	for _, sw := range l.Graph.Switches() {
		if mgmt[sw.Name] == "" {
			return nil, exitcode.Envf("switch %s of lab %s is not running (no management address in 'containerlab inspect'): run 'labctl up %s --runtime clab'", sw.Name, l.Name, l.Name)
		}
	}
	return mgmt, nil
}

func (r *Runtime) pushVariantFunc() func(ctx context.Context, nos, node, host string, port int, cred Credentials, full, variant []byte) (string, error) {
	if r.PushVariant != nil {
		return r.PushVariant
	}
	return PushVariantOverSSH
}

// planJobs makes one push job per switch of plan: from the config the
// switch runs (from(sv): the lab's Full before a variant, the Variant
// after it) to the one to(sv) picks.
func (r *Runtime) planJobs(l *runtime.Lab, ssh map[string]SSHAddr, plan []SwitchVariant, from, to func(SwitchVariant) []byte) []PushJob {
	cred := r.login(l.NOS)
	push := r.pushVariantFunc()
	jobs := make([]PushJob, 0, len(plan))
	for _, sv := range plan {
		addr, old, cfg := ssh[sv.Device], from(sv), to(sv)
		jobs = append(jobs, PushJob{Device: sv.Device, Push: func(ctx context.Context) (string, error) {
			return push(ctx, l.NOS, sv.Device, addr.Host, addr.Port, cred, old, cfg)
		}})
	}
	return jobs
}

// variantSlug names a variant's read-back directory: "ecn=on,pfc=off" ->
// "ecn-on_pfc-off".
func variantSlug(v runtime.VariantSpec) string {
	s := runtime.VariantDir(v.Name)
	if s == "" || strings.HasPrefix(s, ".") {
		s = fmt.Sprintf("ecn-%s_pfc-%s", onOff(v.ECN), onOff(v.PFC))
	}
	return s
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// pushVariant pushes every switch's variant config in parallel and saves
// and compares the read-backs. It returns the read-back per switch.
func (r *Runtime) pushVariant(ctx context.Context, l *runtime.Lab, v runtime.VariantSpec, ssh map[string]SSHAddr, plan []SwitchVariant, say func(string)) (map[string]string, error) {
	res := r.runPush(ctx, r.planJobs(l, ssh, plan, func(sv SwitchVariant) []byte { return sv.Full }, func(sv SwitchVariant) []byte { return sv.Variant }), say)
	codec, err := runtime.Codec(l.NOS)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(ReadbackDir(l), variantSlug(v))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("save read-back configs: %w", err)
	}
	byDev := map[string]SwitchVariant{}
	for _, sv := range plan {
		byDev[sv.Device] = sv
	}
	readbacks := map[string]string{}
	for _, pr := range res {
		if pr.Err != nil {
			continue
		}
		readbacks[pr.Device] = pr.Readback
		sv := byDev[pr.Device]
		if err := runtime.WriteFileAtomic(filepath.Join(dir, pr.Device+codec.ConfigExt()), []byte(pr.Readback), 0o644); err != nil {
			return nil, fmt.Errorf("save read-back of %s: %w", pr.Device, err)
		}
		if err := runtime.WriteFileAtomic(filepath.Join(dir, pr.Device+".pushed"+codec.ConfigExt()), sv.Variant, 0o644); err != nil {
			return nil, fmt.Errorf("save pushed config of %s: %w", pr.Device, err)
		}
		diffPath := filepath.Join(dir, pr.Device+".diff")
		diff, err := CompareReadbackData(codec, pr.Device, "variant "+v.Name+" of "+pr.Device, sv.Variant, pr.Readback)
		switch {
		case err != nil:
			say(fmt.Sprintf("%s: read-back not compared: %v", pr.Device, err))
		case diff != "":
			say(fmt.Sprintf("%s: read-back QoS differs from variant %s (see %s)", pr.Device, v.Name, diffPath))
			if err := runtime.WriteFileAtomic(diffPath, []byte(diff), 0o644); err != nil {
				return nil, err
			}
		default:
			_ = os.Remove(diffPath)
		}
	}
	return readbacks, PushErrors(res)
}

// restoreConfigs moves every switch back from the variant's config to the
// lab's and saves the read-backs where Up does. Going from the variant
// removes what it added (a swept Kmin's WRED profile) as well as putting
// back what it removed.
func (r *Runtime) restoreConfigs(ctx context.Context, l *runtime.Lab, ssh map[string]SSHAddr, plan []SwitchVariant, say func(string)) error {
	res := r.runPush(ctx, r.planJobs(l, ssh, plan, func(sv SwitchVariant) []byte { return sv.Variant }, func(sv SwitchVariant) []byte { return sv.Full }), say)
	if err := r.saveReadbacks(l, res, say); err != nil {
		return err
	}
	return PushErrors(res)
}

func losslessPriority(l *runtime.Lab) int {
	in, err := l.Intent()
	if err != nil || len(in.LosslessPriorities) == 0 {
		return 3
	}
	return in.LosslessPriorities[0]
}

// snapshot is every switch's and every used host NIC's counters at one
// moment. What cannot be read is named in the returned notes and left out.
type snapshot struct {
	switches map[string]SwitchCounters
	hosts    map[string]map[string]uint64 // "host:nic" -> counters
}

func (r *Runtime) snapshot(ctx context.Context, l *runtime.Lab, e Execer, ssh map[string]SSHAddr, nics []HostNIC, lossless int) (snapshot, []string) {
	s := snapshot{switches: map[string]SwitchCounters{}, hosts: map[string]map[string]uint64{}}
	show := r.Show
	if show == nil {
		show = ShowOverSSH
	}
	cred := r.login(l.NOS)
	var mu sync.Mutex
	var notes []string
	var wg sync.WaitGroup
	for _, sw := range l.Graph.Switches() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ports []string
			for _, p := range sw.Ports {
				ports = append(ports, p.Name)
			}
			outs, err := show(ctx, l.NOS, sw.Name, ssh[sw.Name].Host, ssh[sw.Name].Port, cred, CounterCommands(l.NOS))
			var sc SwitchCounters
			if err == nil {
				sc, err = ParseSwitchCounters(l.NOS, outs, ports, lossless)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v", sw.Name, err))
				return
			}
			s.switches[sw.Name] = sc
		}()
	}
	for _, n := range nics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc, err := HostCounters(ctx, e, n)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				notes = append(notes, err.Error())
				return
			}
			s.hosts[fmt.Sprintf("%s:%d", n.Host, n.NIC)] = hc
		}()
	}
	wg.Wait()
	slices.Sort(notes)
	return s, notes
}

// attachCounters puts the deltas between two snapshots into the variant:
// switch rows in Counters and the summary, host NIC deltas in
// Extra["host_counters"]. A switch or NIC missing from either snapshot is
// left out rather than reported as zero; the returned notes name the rows
// left out for a delta records cannot carry.
func (r *Runtime) attachCounters(out *results.Variant, before, after snapshot, nics []HostNIC, lossless int) []string {
	var notes []string
	out.Counters = []results.Counter{}
	for _, name := range slices.Sorted(maps.Keys(after.switches)) {
		b, ok := before.switches[name]
		if !ok {
			continue
		}
		// The lossless priority's rows are kept even when they did not
		// move: a measured zero is the result on a virtual data plane.
		cs, skipped := CounterDeltas(name, b, after.switches[name], lossless)
		out.Counters = append(out.Counters, cs...)
		notes = append(notes, skipped...)
	}
	SummarizeCounters(&out.Summary, out.Counters)
	hosts := map[string]map[string]int64{}
	for _, n := range nics {
		k := fmt.Sprintf("%s:%d", n.Host, n.NIC)
		b, okb := before.hosts[k]
		a, oka := after.hosts[k]
		if !okb || !oka {
			continue
		}
		d, note := HostDeltas(k, b, a)
		if note != "" {
			notes = append(notes, note)
		}
		hosts[k] = d
		out.Summary.Retransmits += d[rxeRetransmitCounter]
	}
	if len(hosts) > 0 {
		if out.Extra == nil {
			out.Extra = map[string]any{}
		}
		out.Extra["host_counters"] = hosts
	}
	return notes
}

// LatencyCommand is the ib_write_lat pair of the latency probe: between
// the first flow's ends, same traffic class, fixed iterations so perftest
// reports percentiles (with -D it reports only the average).
func LatencyCommand(l *runtime.Lab, v runtime.VariantSpec, iterations int) (FlowCommand, error) {
	f := v.Flows[0]
	dst, err := hostAddress(l.Graph, f.Dst)
	if err != nil {
		return FlowCommand{}, err
	}
	if iterations <= 0 {
		iterations = 10000
	}
	tc := f.TrafficClass
	opt := perftest.Options{Test: perftest.WriteLat, GIDIndex: -1, RDMACM: true, Iterations: iterations,
		NoCPUFreqCheck: true, TrafficClass: &tc, TCPPort: perftestBasePort + len(v.Flows)}
	opt.Device = fabric.RXEName(f.Dst.Host, f.Dst.NIC)
	server, err := opt.ServerArgv()
	if err != nil {
		return FlowCommand{}, err
	}
	opt.Device = fabric.RXEName(f.Src.Host, f.Src.NIC)
	client, err := opt.ClientArgv(dst)
	if err != nil {
		return FlowCommand{}, err
	}
	return FlowCommand{Flow: f, SrcContainer: ContainerName(l.Name, f.Src.Host), DstContainer: ContainerName(l.Name, f.Dst.Host), Server: server, Client: client}, nil
}

func (r *Runtime) latencyProbe(ctx context.Context, l *runtime.Lab, e Execer, v runtime.VariantSpec) (*results.Latency, error) {
	c, err := LatencyCommand(l, v, r.LatencyIterations)
	if err != nil {
		return nil, err
	}
	delay := r.StartDelay
	if delay <= 0 {
		delay = serverStartDelay
	}
	ctx, cancel := context.WithTimeout(ctx, delay+2*time.Minute)
	defer cancel()
	srv := make(chan error, 1)
	go func() {
		_, err := ExecOK(ctx, e, c.DstContainer, c.Server, ExecOptions{})
		srv <- err
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(delay):
	}
	res, err := ExecOK(ctx, e, c.SrcContainer, c.Client, ExecOptions{})
	if err != nil {
		cancel()
		<-srv
		return nil, err
	}
	if err := <-srv; err != nil {
		return nil, fmt.Errorf("ib_write_lat server: %w", err)
	}
	return readLatency(res.Stdout)
}

func hasLatencyFlows(v runtime.VariantSpec) bool {
	return slices.ContainsFunc(v.Flows, runtime.FlowSpec.IsLatency)
}

// latencyFlowsP99 is the worst 99th percentile of the variant's latency
// flows that reported one (ok false when none did).
func latencyFlowsP99(flows []results.Flow) (float64, bool) {
	p99, ok := 0.0, false
	for _, f := range flows {
		if f.Pattern == results.PatternLatency && f.LatencyUs != nil {
			p99, ok = max(p99, f.LatencyUs.P99), true
		}
	}
	return p99, ok
}

// simulate runs the variant in the simulator with the configs read back
// from the switches, bounded to MaxSimulatedUs of traffic.
func (r *Runtime) simulate(ctx context.Context, l *runtime.Lab, v runtime.VariantSpec, readbacks map[string]string) *results.SimulatedPart {
	part := &results.SimulatedPart{ConfigSource: "read back from the switches", Flows: []results.Flow{}, Counters: []results.Counter{}}
	cfgs, err := ReadbackConfigs(l, readbacks)
	if err != nil {
		part.Error = err.Error()
		return part
	}
	sv := v
	sv.Progress = nil
	limit := r.MaxSimulatedUs
	if limit <= 0 {
		limit = 20000
	}
	scale := 1.0
	if sv.DurationUs > limit {
		// Time is compressed, not cut: warm-up, flow starts and faults
		// keep their place in the run (a fault's detection and
		// convergence delays are the switches', and stay).
		scale = limit / sv.DurationUs
		sv.DurationUs, sv.WarmupUs = limit, sv.WarmupUs*scale
		sv.Flows = slices.Clone(v.Flows)
		for i := range sv.Flows {
			sv.Flows[i].StartUs *= scale
		}
		sv.Faults = slices.Clone(v.Faults)
		for i := range sv.Faults {
			f := &sv.Faults[i]
			f.AtUs, f.ForUs, f.DownUs, f.UpUs = f.AtUs*scale, f.ForUs*scale, f.DownUs*scale, f.UpUs*scale
		}
		part.ConfigSource += fmt.Sprintf(", %.0f µs of traffic", limit)
	}
	simr := r.Simulator
	if simr == nil {
		simr = sim.New()
	}
	res, err := simr.RunVariantWithConfigs(ctx, l, sv, cfgs)
	if err != nil {
		part.Error = err.Error()
		return part
	}
	part.SimulatedUs = res.SimulatedUs
	part.Flows = res.Flows
	part.Summary = res.Summary
	part.Cost = res.Cost
	part.Counters = res.Counters
	part.Extra = res.Extra
	if faults, ok := part.Extra["faults"].(map[string]any); ok && scale != 1 {
		// When the faults came, on the live run's clock (the durations
		// among them, such as recovery_us, are the twin's: its timers,
		// the local ACK timeout among them, run at their own speed).
		for _, k := range []string{"first_fault_us", "watchdog_first_storm_us"} {
			if t, ok := faults[k].(float64); ok {
				faults[k] = t / scale
			}
		}
	}
	for i := range part.Flows {
		part.Flows[i].Source = results.Simulated
	}
	for i := range part.Counters {
		part.Counters[i].Source = results.Simulated
	}
	part.Summary.Source = results.Simulated
	return part
}

// ReadbackConfigs parses the configs read back from every switch of the
// lab with the NOS's parser and attaches the topology (peers, speeds,
// cable lengths), as runtime.LoadConfigs does for the files.
func ReadbackConfigs(l *runtime.Lab, readbacks map[string]string) ([]qos.DeviceConfig, error) {
	codec, err := runtime.Codec(l.NOS)
	if err != nil {
		return nil, err
	}
	in, err := l.Intent()
	if err != nil {
		return nil, err
	}
	devs := runtime.Devices(l.Graph)
	cfgs := make([]qos.DeviceConfig, 0, len(devs))
	for i, d := range devs {
		rb, ok := readbacks[d.Name]
		if !ok {
			return nil, fmt.Errorf("no read-back config of %s", d.Name)
		}
		src := qos.Source{Name: d.Name + " read-back", Data: []byte(rb)}
		// The lab says which ports the switch has (nos.DeviceParser).
		dc, err := nos.ParseQoSOf(codec, d.Name, &devs[i], src)
		if err != nil {
			return nil, fmt.Errorf("parse read-back of %s: %w", d.Name, err)
		}
		cfgs = append(cfgs, dc)
	}
	qos.AttachTopology(cfgs, devs, in)
	return cfgs, nil
}
