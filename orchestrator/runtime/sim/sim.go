// Package sim is the embedded runtime: a lab "runs" in labctl's packet-level
// simulator. Up renders the lab's topology and vendor configs where absent
// and checks that the configs parse; each scenario variant parses the
// configs from topologies/<lab>/configs/ again (so edits take effect),
// removes ECN or PFC for the "off" variants, and simulates the variant's
// flows on the part of the fabric they touch.
package sim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	engine "github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Name is the runtime's name on the command line.
const Name = "sim"

// Runtime runs labs in the simulator. The zero value is ready to use.
type Runtime struct{}

// New returns the simulator runtime.
func New() *Runtime { return &Runtime{} }

var _ runtime.Runtime = (*Runtime)(nil)

// RunsVariantsInParallel says yes: each variant is its own simulation.
func (r *Runtime) RunsVariantsInParallel() bool { return true }

// MaxDuration is the engine's range of simulated time.
func (r *Runtime) MaxDuration() time.Duration { return time.Duration(engine.MaxDurationNs) }

// Name returns "sim".
func (r *Runtime) Name() string { return Name }

// Transports says the simulator runs every transport.
func (r *Runtime) Transports() []string { return transport.Names }

// Up checks that every switch's config parses. It writes nothing: the
// lab's files are rendered before it, by runtime.Up's prepare step
// (runtime.RenderLab, which 'labctl up' runs and reports; RenderStep for
// callers that report nothing), as for every runtime. It rendered them
// itself once more, which on the 4096-GPU lab was a third of 'labctl up'.
// With l.DryRun it says what the up would write.
func (r *Runtime) Up(ctx context.Context, l *runtime.Lab) error {
	if l.Graph == nil {
		return fmt.Errorf("lab %s has no fabric graph", l.Name)
	}
	say := func(format string, a ...any) {
		if l.Progress != nil {
			fmt.Fprintf(l.Progress, format+"\n", a...)
		}
		l.Logger().Info(fmt.Sprintf(format, a...))
	}
	if l.DryRun {
		codec, err := runtime.Codec(l.NOS)
		if err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(l.Dir, l.Graph.TopologyFile())); errors.Is(err, fs.ErrNotExist) {
			say("would write the topology %s", filepath.Join(l.Dir, l.Graph.TopologyFile()))
		}
		if l.InfiniBand() {
			say("would write the subnet manager settings %s (InfiniBand switches take no vendor configs)", l.SubnetManagerPath())
		}
		for _, sw := range l.Graph.Switches() {
			if l.InfiniBand() {
				break
			}
			p := l.ConfigPath(codec, sw.Name)
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				say("would render %s", p)
			} else {
				say("would keep %s as it is", p)
			}
		}
		say("would simulate %s and %s", plural.N(len(l.Graph.Switches()), "switch"), plural.N(len(l.Graph.Hosts()), "host"))
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := runtime.LoadConfigsToRead(l); err != nil { // only whether they parse
		return err
	}
	if l.InfiniBand() {
		say("lab %s is up in the simulator: %s, %s, InfiniBand, subnet manager settings in %s",
			l.Name, plural.N(len(l.Graph.Switches()), "switch"), plural.N(len(l.Graph.Hosts()), "host"), l.SubnetManagerPath())
		return nil
	}
	say("lab %s is up in the simulator: %s, %s, %s configs in %s",
		l.Name, plural.N(len(l.Graph.Switches()), "switch"), plural.N(len(l.Graph.Hosts()), "host"), l.NOS, l.ConfigsDir())
	return nil
}

// Down has nothing to stop: a simulated lab holds no processes. Its files
// stay, so a later up reuses the (possibly edited) configs.
func (r *Runtime) Down(ctx context.Context, l *runtime.Lab) error { return nil }

// Status lists the lab's nodes; in the simulator every node runs while the
// lab is up.
func (r *Runtime) Status(ctx context.Context, l *runtime.Lab) (*runtime.Status, error) {
	st := &runtime.Status{Lab: l.Name, Runtime: Name, NOS: l.NOS, State: runtime.StateUp}
	if l.Graph == nil {
		return st, nil
	}
	for _, n := range l.Graph.Nodes {
		st.Nodes = append(st.Nodes, runtime.NodeStatus{Name: n.Name, Role: string(n.Role), State: runtime.NodeRunning, Kind: "sim"})
	}
	return st, nil
}

// RunVariant simulates one variant with the lab's configs as they are on
// disk, with the variant's swept QoS values on top, minus ECN or PFC for
// the "off" variants (runtime.VariantOnlyConfigs).
func (r *Runtime) RunVariant(ctx context.Context, l *runtime.Lab, vs runtime.VariantSpec) (*results.Variant, error) {
	cfgs, err := runtime.VariantOnlyConfigs(l, vs)
	if err != nil {
		return nil, err
	}
	return r.RunVariantWithConfigs(ctx, l, vs, cfgs)
}

// RunVariantWithConfigs simulates one variant with the given switch
// configs as they are: vs.ECN and vs.PFC are not applied again. A live lab
// passes the configs it read back from its switches (with the topology
// attached, qos.AttachTopology), so the simulation runs what the devices
// accepted; a swept qos.mtu is the NICs' (runtime.VariantIntent). It
// only reads cfgs, which may be the configs runtime.LoadConfigsToRead
// keeps for the whole run (TestVariantLeavesConfigsAlone).
func (r *Runtime) RunVariantWithConfigs(ctx context.Context, l *runtime.Lab, vs runtime.VariantSpec, cfgs []qos.DeviceConfig) (*results.Variant, error) {
	began := time.Now() // for the variant's cost, never for a simulated figure
	b, err := newVariantBuilder(l, vs, cfgs)
	if err != nil {
		return nil, err
	}
	if vs.Model == runtime.ModelFlow {
		v, err := b.runFlowLevel(ctx, vs)
		if v != nil {
			v.Cost = results.WallCost(time.Since(began), 1)
		}
		return v, err
	}
	cfg, err := b.config(vs)
	if err != nil {
		return nil, err
	}
	if vs.Progress != nil {
		total := cfg.DurationNs
		cfg.Progress = func(p engine.Progress) {
			vs.Progress(runtime.Progress{SimulatedNs: p.NowNs, TotalNs: total, Events: p.Events, Done: p.Done})
		}
	}
	cfg.Partitions, cfg.Threads, cfg.Spare = vs.Partitions, vs.Threads, vs.SpareThreads
	res, err := engine.Run(ctx, *cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// What the simulator refuses comes from the lab's vendor configs
		// (a threshold, a weight), or on InfiniBand, which has none, from
		// its settings: say where to look.
		if fe := (*engine.FaultError)(nil); errors.As(err, &fe) {
			return nil, exitcode.Usagef("simulate %s: %v (fix: change the scenario's faults)", vs.Name, err)
		}
		if cfg.Transport == engine.TransportInfiniBand {
			return nil, exitcode.Usagef("simulate %s: %v (InfiniBand runs on the infiniband settings of the lab spec and the scenario: check them with 'labctl explain lab.infiniband')", vs.Name, err)
		}
		return nil, exitcode.Usagef("simulate %s: %v (the configs in %s drive the simulation: check them with 'labctl config lint %s')", vs.Name, err, l.ConfigsDir(), l.Name)
	}
	v := b.variant(vs, cfg, res)
	v.Cost = results.PacketCost(time.Since(began), res.Events, res.PacketHops, res.Threads)
	v.Cost.PartitionsNote = res.PartitionsNote
	return v, nil
}

// newVariantBuilder is the builder of variant vs on configs cfgs: the lab's
// intent with the variant's MTU, the configs checked first.
func newVariantBuilder(l *runtime.Lab, vs runtime.VariantSpec, cfgs []qos.DeviceConfig) (*builder, error) {
	in, err := l.Intent()
	if err != nil {
		return nil, err
	}
	in = runtime.VariantIntent(in, vs)
	if err := checkConfigs(l, cfgs); err != nil {
		return nil, err
	}
	return newBuilder(l, cfgs, in)
}

// checkConfigs refuses configs with values no switch can take, with the
// words `labctl config lint` uses for them (qos.Problems, rule QOS010):
// what a run refuses, lint reported first.
func checkConfigs(l *runtime.Lab, cfgs []qos.DeviceConfig) error {
	for i := range cfgs {
		if ps := qos.Problems(&cfgs[i]); len(ps) > 0 {
			p := ps[0]
			where := p.Device
			if p.Port != "" {
				where += " " + p.Port
			}
			more := ""
			if len(ps) > 1 {
				more = fmt.Sprintf(" (and %d more)", len(ps)-1)
			}
			return exitcode.Usagef("%s: %s [%s]%s (fix: %s; 'labctl config lint %s' lists every finding)", where, p.Message, p.Rule, more, p.Fix, l.Name)
		}
	}
	return nil
}
