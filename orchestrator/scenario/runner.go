package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	engine "github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/specyaml"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Runner runs a scenario's variants on a lab that is up.
type Runner struct {
	Runtime runtime.Runtime
	Lab     *runtime.Lab
	// NICs are the lab's GPU NICs in fabric order.
	NICs []NIC
	// Model overrides the scenario's simulation model (runtime.ModelPacket
	// or ModelFlow); empty keeps the scenario's, which defaults to packet.
	Model string
	// MTU is the payload MTU of the lab's lossless class (0 means 4096);
	// with the NIC speed it gives the ideal goodput assertions compare to.
	MTU int
	// Save persists the record. It is called after every variant, so an
	// interrupted run keeps what finished, and once at the end.
	Save func(*results.Run) error
	// Progress, on a terminal, shows each running variant's simulated
	// time, events per second and ETA, updated in place; nil is quiet.
	// With a logger at info level the same goes to the lab's log.
	Progress io.Writer
	// Parallel is how many variants run at once (0 or 1: one at a time).
	// The record is the same whatever it is.
	Parallel int
	// Threads is how many threads each simulated variant runs on; 0
	// shares the machine's CPUs among the variants running at once. The
	// record is the same whatever it is. Partitions, when not 0, is the
	// split of the fabric the simulator's parallel engine uses (the
	// record keeps it, as it does the seed).
	Threads, Partitions int
	// Now is the wall clock (time.Now when nil). The goroutines running
	// variants call it at once, so it must be safe for concurrent use.
	Now func() time.Time
	// ConfigsDir is where a scenario that sweeps QoS values gets each
	// variant's switch configs written (results/<run>/configs/<variant>/);
	// empty writes none. The lab's own configs are never written.
	ConfigsDir string
}

// ErrInterrupted is returned (wrapped) when the context was cancelled: the
// record holds the variants that finished and status "interrupted".
var ErrInterrupted = errors.New("run interrupted")

// Run runs every variant of s into run, which the caller has filled with
// its id, lab, scenario, runtime, seed and start time. It returns nil when
// the run completed (run.Status says passed or failed), an error wrapping
// ErrInterrupted when ctx was cancelled, or another error when the record
// could not be saved or the lab cannot carry the scenario. A run stopped by
// an error before any variant finished is not saved as failed: it holds
// nothing to compare, and the caller removes it.
func (r *Runner) Run(ctx context.Context, s *Spec, run *results.Run) error {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	run.SchemaVersion = results.SchemaVersion
	if run.Variants == nil {
		run.Variants = []results.Variant{}
	}
	if run.Extra == nil {
		run.Extra = map[string]any{}
	}
	run.Extra["lab"] = r.labInfo()
	for i := range s.Traffic {
		if s.Traffic[i].Pattern == "ring-allreduce" {
			m, err := allReduceModel(r.NICs, r.Lab, &s.Traffic[i], r.mtu(), r.fileTransport(s))
			if errors.Is(err, errRanks) {
				return s.trafficAt(i, "ranks", err.Error(), ranksFix)
			}
			if err != nil {
				return err
			}
			run.Extra["allreduce"] = m
		}
	}
	model := r.Model
	if model == "" {
		model = s.Model
	}
	if model == "" {
		model = runtime.ModelPacket
	}
	if err := s.CheckModel(model); err != nil {
		return err
	}
	if err := s.CheckRuntime(r.Runtime); err != nil {
		return err
	}
	if r.Lab != nil && r.Lab.Graph != nil {
		if err := s.CheckLab(r.Lab.Graph); err != nil {
			return exitcode.Usage(err)
		}
		if err := s.CheckLabPoints(r.Lab.Graph); err != nil {
			return err
		}
		if s.hasOnPath() && !r.Lab.InfiniBand() {
			cfgs, err := runtime.LoadConfigsToRead(r.Lab)
			if err != nil {
				return err
			}
			s.SetDown(runtime.DownLinks(r.Lab.Graph, runtime.ConfigsByDevice(cfgs), runtime.LinksUpWhateverFEC(r.Runtime)))
		}
	}
	run.Model = model
	run.SimRevision = engine.Revision
	if model == runtime.ModelFlow {
		run.ModelNote = runtime.FlowModelCaveat
	}
	// Expand every variant before anything is saved: a scenario that does
	// not fit the lab is bad input, not a failed run.
	points := s.Points()
	specs := make([]runtime.VariantSpec, len(points))
	// A ring AllReduce's theory where a point sweeps what it depends on
	// (its ranks, bytes, placement, the MTU): the run's own is the file's.
	arModels := make([]any, len(points))
	for i, pt := range points {
		vs, err := s.Expand(r.NICs, pt, pointSeed(run, pt))
		if err != nil {
			return err
		}
		if vs.NIC, err = r.nicSettings(s, pt); err != nil {
			return err
		}
		if vs.Transport, err = r.transportSettings(s, pt); err != nil {
			return err
		}
		if err := runtime.CheckTransport(r.Runtime, vs.Transport.Name); err != nil {
			return fmt.Errorf("variant %s: %w", pt.Name, err)
		}
		if r.Lab != nil && r.Lab.InfiniBand() && vs.Transport.Name != transport.InfiniBand {
			return s.ethernetOnInfiniBandLab(r.Lab.Name, pt, vs.Transport.Name)
		}
		if vs.Transport.Name == transport.InfiniBand && !pt.PFC {
			return s.pfcOffOnInfiniBand(pt)
		}
		if vs.Transport.Name == transport.InfiniBand {
			if err := s.pfcStormOnInfiniBand(pt); err != nil {
				return err
			}
		}
		if r.Lab != nil {
			if err := s.ncclMovesNothing(r.Lab.Graph, pt, vs.Collective); err != nil {
				return err
			}
			if err := s.overlappingFaults(r.Lab.Graph, pt, vs); err != nil {
				return err
			}
		}
		mtu := r.mtu()
		if q := s.PointQoS(pt); q.MTU != nil {
			mtu = *q.MTU
		}
		if err := transport.CheckMTU(vs.Transport.Name, mtu); err != nil {
			return s.mtuForTransport(pt, err)
		}
		if m, err := s.pointAllReduceModel(r, pt, mtu, vs.Transport.Name); err != nil {
			return err
		} else if m != nil {
			arModels[i] = m
		}
		if model == runtime.ModelFlow && vs.Transport.Name != transport.RoCE {
			return exitcode.Usagef("variant %s runs transport %s, which the flow-level model does not simulate (it has no %s); fix: run it with --model packet", pt.Name, vs.Transport.Name, flowModelTransports)
		}
		vs.Model = model
		specs[i] = vs
	}
	if err := s.checkTransportsRun(specs); err != nil {
		return err
	}
	if err := s.twinVariants(points, specs); err != nil {
		return err
	}
	if err := s.unreadSections(specs); err != nil {
		return err
	}
	// Every variant the runtime would refuse is refused now, before the
	// first one runs.
	if vc, ok := r.Runtime.(runtime.VariantChecker); ok {
		for _, vs := range specs {
			if err := vc.CheckVariant(r.Lab, vs); err != nil {
				return err
			}
		}
	}
	for _, sw := range s.Matrix.Sweeps {
		run.Sweep = append(run.Sweep, results.SweepDim{Path: sw.Path, Values: sw.Values})
	}
	// A swept QoS point's configs are checked against the lab's and
	// written to the run folder before anything runs.
	var configs map[string]*results.VariantConfigs
	if s.SweepsQoS() {
		var err error
		if configs, err = r.variantConfigs(s, points, specs); err != nil {
			return err
		}
	}
	run.Status = results.StatusRunning
	run.VariantsPlanned = len(points)
	run.PlannedVariants = make([]string, len(points))
	for i, pt := range points {
		run.PlannedVariants[i] = results.VariantLabel(pt.Name, pt.Repetition)
	}
	save := func() error {
		if r.Save == nil {
			return nil
		}
		return r.Save(run) // its error names the run and the file
	}
	if err := save(); err != nil {
		return err
	}
	if err := r.runVariants(ctx, s, run, points, specs, arModels, configs, now, save); err != nil {
		return err
	}
	r.checkAll(s, run, true)
	run.Status = results.StatusPassed
	for _, v := range run.Variants {
		if v.Error != "" {
			run.Status = results.StatusFailed
		}
		for _, a := range v.Assertions {
			if !a.Passed {
				run.Status = results.StatusFailed
			}
		}
	}
	fin := now().UTC()
	run.Finished = &fin
	return save()
}

// result is one finished variant.
type result struct {
	i       int
	v       *results.Variant
	err     error
	elapsed time.Duration
}

// runVariants runs the variants, up to r.Parallel at once (1 when the
// runtime cannot run several: a live lab has one set of switches). Each
// variant is independent and deterministic, so the record is the same
// whatever the parallelism: variants are kept in matrix order and saved
// as each one finishes. arModels are the points' own ring AllReduce
// models, nil where a point's is the run's.
func (r *Runner) runVariants(ctx context.Context, s *Spec, run *results.Run, points []Point, specs []runtime.VariantSpec, arModels []any, configs map[string]*results.VariantConfigs, now func() time.Time, save func() error) error {
	par := r.Parallel
	if par < 1 {
		par = 1
	}
	if pr, ok := r.Runtime.(runtime.ParallelRunner); !ok || !pr.RunsVariantsInParallel() {
		par = 1
	}
	par = min(par, len(points))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prog := newProgressBoard(r.Progress, r.Lab.Logger(), len(points))
	defer prog.close()

	threads := r.Threads
	// With the CPUs shared among the variants running at once, a variant
	// that ends when no other is left to start hands its share on to
	// those still running.
	var spare *engine.SpareThreads
	if threads <= 0 {
		threads = max(1, engine.DefaultThreads()/par)
		spare = &engine.SpareThreads{}
	}
	jobs := make(chan int)
	done := make(chan result)
	for range par {
		go func() {
			for i := range jobs {
				vs := specs[i]
				vs.Progress = prog.reporter(i, points[i].Name)
				vs.Threads, vs.SpareThreads = threads, spare
				if r.Partitions != 0 {
					vs.Partitions = r.Partitions
				}
				started := now()
				v, err := r.Runtime.RunVariant(ctx, r.Lab, vs)
				done <- result{i: i, v: v, err: err, elapsed: now().Sub(started)}
			}
		}()
	}
	next, running, finished := 0, 0, 0
	order := make([]int, 0, len(points)) // the finished variants' points, sorted
	var stop error
	for finished < len(points) {
		// Start what the workers can take; stop starting once cancelled
		// or stopped.
		for running < par && next < len(points) && ctx.Err() == nil && stop == nil {
			prog.start(next, points[next].Name, len(specs[next].Flows)+collectiveFlows(specs[next].Collective), s.Duration, r.Runtime.Name())
			jobs <- next
			next++
			running++
		}
		if running == 0 {
			break
		}
		res := <-done
		running--
		finished++
		if spare != nil && next == len(points) {
			spare.Give(threads)
		}
		pt := points[res.i]
		v, err := res.v, res.err
		prog.finish(res.i)
		if err != nil {
			if ctx.Err() != nil {
				continue // interrupted: this variant did not finish
			}
			var ee *exitcode.Error
			if errors.As(err, &ee) && ee.Code == exitcode.BadInput {
				// The lab cannot carry this scenario at all: stop.
				if stop == nil {
					stop = fmt.Errorf("variant %s: %w", pt.Name, err)
				}
				cancel()
				continue
			}
			v = &results.Variant{Error: err.Error()}
		}
		v.Name, v.ECN, v.PFC, v.Repetition = pt.Name, pt.ECN, pt.PFC, pt.Repetition
		seed := pointSeed(run, pt)
		v.Seed = &seed
		if len(pt.Params) > 0 && v.Params == nil {
			v.Params = map[string]string{}
		}
		for _, p := range pt.Params {
			v.Params[p.Path] = p.Value
		}
		v.Configs = configs[pt.Name]
		if v.Flows == nil {
			v.Flows = []results.Flow{}
		}
		if v.Counters == nil {
			v.Counters = []results.Counter{}
		}
		if c, ok := v.Extra["allreduce"].(map[string]any); ok {
			model := run.Extra["allreduce"]
			if m := arModels[res.i]; m != nil {
				model = m
			}
			completeAllReduce(c, model)
		}
		r.transportLabInfo(v, specs[res.i].Transport.Name)
		// Keep matrix order: insert where a sequential run would have it.
		at, _ := slices.BinarySearch(order, res.i)
		order = slices.Insert(order, at, res.i)
		run.Variants = slices.Insert(run.Variants, at, *v)
		r.checkAll(s, run, false)
		prog.line(fmt.Sprintf("variant %s done in %s: %.1f Gb/s, drops %d, pauses %d, marks %d",
			pt.Name, res.elapsed.Round(time.Millisecond), v.Summary.ThroughputGbpsTotal, v.Summary.Drops, v.Summary.PFCPauseFrames, v.Summary.ECNMarked))
		if len(run.Variants) == len(points) {
			// The last one: Run saves the finished record next, with
			// the final assertions and status (a save here too was
			// MarshalIndent, two fsyncs and an index update more, a
			// twentieth of a short run's CPU).
			continue
		}
		if err := save(); err != nil {
			cancel()
			close(jobs)
			for running > 0 {
				<-done
				running--
			}
			return err
		}
	}
	close(jobs)
	if stop != nil {
		// Nothing finished: no record (the caller removes the saved
		// one). Else the record keeps the error.
		if len(run.Variants) == 0 {
			return stop
		}
		run.Status = results.StatusFailed
		run.Error = stop.Error()
		fin := now().UTC()
		run.Finished = &fin
		return errors.Join(stop, save())
	}
	// Interrupted after the last variant finished, the run is complete:
	// Run checks its final assertions and records it passed or failed, as
	// without the interrupt. Recorded interrupted, every reader (regress,
	// --save-baseline, reports) took it for a run that stopped short, and
	// its assertions naming other variants were never checked.
	if len(run.Variants) < len(points) {
		return r.interrupt(run, now, save)
	}
	return nil
}

func (r *Runner) interrupt(run *results.Run, now func() time.Time, save func() error) error {
	run.Status = results.StatusInterrupted
	fin := now().UTC()
	run.Finished = &fin
	if err := save(); err != nil {
		return errors.Join(ErrInterrupted, err)
	}
	return fmt.Errorf("%w after %s; the finished ones are kept in run %s", ErrInterrupted, plural.N(len(run.Variants), "variant"), run.RunID)
}

// checkAll re-evaluates every finished variant's assertions: a variant
// reference may only resolve once the variant it names has run. Before the
// last variant (final false) such assertions are left out.
func (r *Runner) checkAll(s *Spec, run *results.Run, final bool) {
	for i := range run.Variants {
		v := &run.Variants[i]
		if v.Error != "" {
			v.Assertions, v.NotChecked = []results.Assertion{}, nil
			continue
		}
		v.Assertions, v.NotChecked = s.check(run, v, final)
	}
}

// transportSettings resolves a point's transport: the lab's, the
// scenario's over it, and the point's swept values over both.
func (r *Runner) transportSettings(s *Spec, pt Point) (transport.Settings, error) {
	name, ib, uet := s.PointTransport(pt)
	var st transport.Settings
	var err error
	if r.Lab == nil || r.Lab.Spec == nil {
		st, err = transport.Resolve(name, []*transport.IBSpec{&s.InfiniBand, &ib}, []*transport.UETSpec{&s.UET, &uet})
	} else {
		st, err = r.Lab.Spec.TransportSettings([]*transport.IBSpec{&s.InfiniBand, &ib}, []*transport.UETSpec{&s.UET, &uet}, name)
	}
	if err != nil {
		return st, exitcode.Usagef("transport of scenario %s at %s: %v", s.Name, pt.Name, err)
	}
	return st, nil
}

// pointSeed is the seed a point runs at: the run's, plus its repetition.
func pointSeed(run *results.Run, pt Point) int64 { return run.Seed + int64(pt.Repetition) }

// ethernetOnInfiniBandLab refuses a variant that would run an Ethernet
// transport (RoCE, UET) on a lab whose fabric is InfiniBand, at the
// scenario's transport key: the lab's switches take no vendor QoS configs,
// so the variant would run on switches without PFC, ECN or their buffer
// model, and read as if it had them (named ecn=on,pfc=on).
func (s *Spec) ethernetOnInfiniBandLab(lab string, pt Point, name string) error {
	msg := fmt.Sprintf("variant %s runs transport %s on lab %s, whose fabric is InfiniBand (the lab spec's transport): its switches take no vendor QoS configs, so the variant would run without the PFC, ECN and switch buffers %s depends on", pt.Name, name, lab, name)
	fix := fmt.Sprintf("run the scenario on a RoCE or UET lab (lab %s's spec without transport: infiniband), where transport infiniband variants run beside %s ones, or leave %s out with matrix exclude: [{transport: %s}]", lab, name, name, name)
	if err := s.atMatrixKey(msg, fix, "transport"); err != nil {
		return err
	}
	return exitcode.Usage(specyaml.AtFirst(s.file, s.src, msg, fix, "$.transport"))
}

// nicSettings resolves a point's NIC settings: the lab's nic section, the
// scenario's over it, and the point's swept NIC values over both.
func (r *Runner) nicSettings(s *Spec, pt Point) (nic.Settings, error) {
	swept := s.PointNIC(pt)
	if r.Lab == nil || r.Lab.Spec == nil {
		return nic.Resolve(100, 48, &s.NIC, &swept)
	}
	st, err := r.Lab.Spec.NICSettings(&s.NIC, &swept)
	if err != nil {
		where := "scenario " + s.Name
		if len(pt.Params) > 0 {
			where += " at " + pt.Name
		}
		return st, exitcode.Usagef("NIC settings of lab %s with %s: %v", r.Lab.Name, where, err)
	}
	return st, nil
}

func (r *Runner) mtu() int {
	if r.MTU > 0 {
		return r.MTU
	}
	return engine.DefaultMTU
}

// labInfo is what assertions may read as extra.lab.*.
func (r *Runner) labInfo() map[string]any {
	m := map[string]any{"mtu": float64(r.mtu())}
	if r.Lab != nil && r.Lab.Plan != nil {
		m["nic_speed_gbps"] = float64(r.Lab.Plan.NICSpeedGbps)
		// One flow's goodput on an idle fabric: what a NIC sends of
		// payload (runtime.Lab.NICPayloadGbps), its line rate times
		// MTU/(MTU + its transport's bytes a packet: 82 on RoCE and UET,
		// 26 on InfiniBand), or its PCIe link's payload rate when that is
		// lower. A lab whose server section does not resolve did not load.
		if g, err := r.Lab.NICPayloadGbps(r.mtu(), r.labTransport()); err == nil {
			m["ideal_goodput_gbps"] = g
		}
		m["oversubscription"] = r.Lab.Plan.Oversubscription.Actual
		// The parallel links between a leaf and each of its spines: with
		// one, a spine that loses it has no route left to that leaf.
		m["links_per_spine"] = float64(r.Lab.Plan.Leaf.LinksPerSpine)
	}
	return m
}

// labTransport is the transport the lab runs (RoCE unless its spec
// names another).
func (r *Runner) labTransport() string {
	if r.Lab != nil && r.Lab.Spec != nil && r.Lab.Spec.Transport != "" {
		return r.Lab.Spec.Transport
	}
	return transport.RoCE
}

// fileTransport is the transport a scenario's variants run unless a
// matrix point sweeps it: the file's transport key, or the lab's.
func (r *Runner) fileTransport(s *Spec) string {
	if s.Transport != "" {
		return s.Transport
	}
	return r.labTransport()
}

// transportLabInfo gives a variant whose transport frames packets
// otherwise than the run's extra.lab says its own ideal goodput
// (extra.lab.ideal_goodput_gbps in its extra, which assertions read before
// the run's), so "at line rate" means the line rate of its framing.
func (r *Runner) transportLabInfo(v *results.Variant, tr string) {
	if r.Lab == nil || r.Lab.Plan == nil || tr == "" {
		return
	}
	if engine.WireOverheadFor(tr) == engine.WireOverheadFor(r.labTransport()) {
		return
	}
	g, err := r.Lab.NICPayloadGbps(r.mtu(), tr)
	if err != nil {
		return
	}
	if v.Extra == nil {
		v.Extra = map[string]any{}
	}
	v.Extra["lab"] = map[string]any{"ideal_goodput_gbps": g}
}

func collectiveFlows(c *runtime.CollectiveSpec) int {
	if c == nil {
		return 0
	}
	return len(c.Ranks)
}

// pointAllReduceModel is the ring AllReduce model of point pt, whose
// transport is tr, where the point sweeps something the model depends on
// (traffic, the MTU, the transport's bytes a packet), nil where the run's
// model (of the file's values) is the point's too.
func (s *Spec) pointAllReduceModel(r *Runner, pt Point, mtu int, tr string) (map[string]any, error) {
	if len(s.Matrix.Sweeps) == 0 || !slices.ContainsFunc(s.Traffic, func(t Traffic) bool { return t.Pattern == "ring-allreduce" }) {
		return nil, nil
	}
	ps, _, err := s.ofPoint(pt)
	if err != nil {
		return nil, err
	}
	if ps == s && mtu == r.mtu() && engine.WireOverheadFor(tr) == engine.WireOverheadFor(r.fileTransport(s)) {
		return nil, nil
	}
	for i := range ps.Traffic {
		if ps.Traffic[i].Pattern == "ring-allreduce" {
			m, err := allReduceModel(r.NICs, r.Lab, &ps.Traffic[i], mtu, tr)
			if err != nil {
				return nil, exitcode.Usagef("scenario %s point %s: %v", s.Name, pt.Name, err)
			}
			return m, nil
		}
	}
	return nil, nil
}
