package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/specyaml"
	"github.com/labctl/labctl/orchestrator/transport"
)

// sizingFlags are the plan flags; a flag set on the command line overrides
// the lab spec's value.
type sizingFlags struct {
	in     sizing.Input
	layout string
	// server holds the server flags (the lab spec's server section).
	server      server.Spec
	scaleUpGBps float64
}

// flagNames maps sizing.Input fields (spec keys) to the flags that set them,
// so an input error names what the user typed.
var flagNames = map[string]string{
	"gpus": "--gpus", "gpus_per_server": "--gpus-per-server", "nic_speed_gbps": "--nic-speed",
	"leaf_ports": "--leaf-ports", "leaf_speed_gbps": "--leaf-speed", "spine_ports": "--spine-ports",
	"spine_speed_gbps": "--spine-speed", "oversubscription": "--oversubscription", "layout": "--layout", "tiers": "--tiers",
	"min_spines": "--min-spines",
}

// serverFlagNames maps server.Spec fields (keys under server:) to the
// flags that set them.
var serverFlagNames = map[string]string{
	"scale_up": "--scale-up", "scale_up_gbyte_s": "--scale-up-gbyte-s", "pcie_gen": "--pcie-gen", "pcie_lanes": "--pcie-lanes",
}

func (f *sizingFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.in.GPUs, "gpus", 0, "number of GPUs")
	fl.IntVar(&f.in.GPUsPerServer, "gpus-per-server", sizing.DefaultGPUsPerServer, "GPUs (and NICs) per server")
	f.in.NICSpeedGbps = sizing.DefaultNICSpeedGbps
	fl.Var(gbpsFlag{&f.in.NICSpeedGbps}, "nic-speed", "NIC speed in Gb/s, as 400 or 400G")
	fl.IntVar(&f.in.LeafPorts, "leaf-ports", sizing.DefaultSwitchPorts, "ports per leaf switch")
	f.in.LeafSpeedGbps = sizing.DefaultSwitchSpeedGbp
	fl.Var(gbpsFlag{&f.in.LeafSpeedGbps}, "leaf-speed", "leaf port speed in Gb/s, as 400 or 400G")
	fl.IntVar(&f.in.SpinePorts, "spine-ports", sizing.DefaultSwitchPorts, "ports per spine (and super-spine) switch")
	f.in.SpineSpeedGbps = sizing.DefaultSwitchSpeedGbp
	fl.Var(gbpsFlag{&f.in.SpineSpeedGbps}, "spine-speed", "spine port speed in Gb/s, as 400 or 400G")
	fl.Float64Var(&f.in.Oversubscription, "oversubscription", 1, "target leaf oversubscription (1 = non-blocking)")
	fl.StringVar(&f.layout, "layout", "tor", "NIC placement: tor (servers fill leaves) or rail (NIC i on rail i)")
	fl.IntVar(&f.in.Tiers, "tiers", 0, "1 for a single switch (no spine), or force 2 or 3 tiers (default: the fewest spine-leaf tiers that fit)")
	fl.IntVar(&f.in.MinSpines, "min-spines", 0, "plan at least N spines (per pod in 3 tiers): each leaf's uplinks split over them, no single spine (default: the fewest that fit)")
	_ = cmd.RegisterFlagCompletionFunc("layout", cobra.FixedCompletions([]string{"tor", "rail"}, cobra.ShellCompDirectiveNoFileComp))
	fl.StringVar(&f.server.ScaleUp, "scale-up", "", "GPU interconnect: "+strings.Join(server.ScaleUps, ", ")+" (default: by NIC speed, nvlink3 for 200G NICs)")
	fl.Float64Var(&f.scaleUpGBps, "scale-up-gbyte-s", 0, "per-GPU scale-up bandwidth in GB/s, both directions (default: the generation's figure)")
	fl.IntVar(&f.server.PCIeGen, "pcie-gen", 0, "PCIe generation of each NIC's link, 3 to 6 (default: by NIC speed, 4 for 200G NICs)")
	fl.IntVar(&f.server.PCIeLanes, "pcie-lanes", 0, "PCIe lanes of each NIC's link: 1, 2, 4, 8, 16, or 32 for two x16 links (default: 16, 32 for 1.6T NICs)")
	_ = cmd.RegisterFlagCompletionFunc("scale-up", cobra.FixedCompletions(server.ScaleUps, cobra.ShellCompDirectiveNoFileComp))
}

// applyServer overlays the server flags the user set on base.
func (f *sizingFlags) applyServer(cmd *cobra.Command, base server.Spec) server.Spec {
	s := base
	if cmd.Flags().Changed("scale-up") {
		s.ScaleUp = f.server.ScaleUp
	}
	if cmd.Flags().Changed("scale-up-gbyte-s") {
		v := f.scaleUpGBps
		s.ScaleUpGBps = &v
	}
	if cmd.Flags().Changed("pcie-gen") {
		s.PCIeGen = f.server.PCIeGen
	}
	if cmd.Flags().Changed("pcie-lanes") {
		s.PCIeLanes = f.server.PCIeLanes
	}
	return s
}

// serverModel resolves the servers of a plan: the lab's server section
// with the flags over it, for the plan's NIC speed.
func (f *sizingFlags) serverModel(cmd *cobra.Command, base server.Spec, nicGbps int) (server.Model, error) {
	// As for the sizing flags, 0 (or nothing) given on the command line
	// is a mistake, not "use the default".
	_, gen, lanes, why := server.Defaults(nicGbps)
	for _, z := range []struct{ name, def string }{
		{"pcie-gen", fmt.Sprintf("%d for %dG NICs: %s", gen, nicGbps, why)},
		{"pcie-lanes", fmt.Sprintf("%d for %dG NICs", lanes, nicGbps)},
	} {
		if fl := cmd.Flags().Lookup(z.name); fl.Changed && fl.Value.String() == "0" {
			return server.Model{}, exitcode.Usagef("--%s 0 is not a valid value (fix: leave the flag out for the default, %s)", z.name, z.def)
		}
	}
	if cmd.Flags().Changed("scale-up") && f.server.ScaleUp == "" {
		return server.Model{}, exitcode.Usagef("--scale-up needs a value (fix: use one of %s, or leave the flag out for the default)", strings.Join(server.ScaleUps, ", "))
	}
	m, err := server.Resolve(f.applyServer(cmd, base), nicGbps)
	var fe *server.FieldError
	switch {
	case err == nil:
		return m, nil
	case errors.As(err, &fe) && cmd.Flags().Changed(serverFlagNames[fe.Field][2:]):
		return server.Model{}, exitcode.Usagef("%s: %s (fix: %s)", serverFlagNames[fe.Field], fe.Msg, fe.Fix)
	default:
		// A lab spec's values were checked when it loaded.
		return server.Model{}, exitcode.Usage(fmt.Errorf("plan: %w", err))
	}
}

// apply overlays the flags the user set on base.
func (f *sizingFlags) apply(cmd *cobra.Command, base sizing.Input) sizing.Input {
	in := base
	set := func(name string, fn func()) {
		if cmd.Flags().Changed(name) {
			fn()
		}
	}
	set("gpus", func() { in.GPUs = f.in.GPUs })
	set("gpus-per-server", func() { in.GPUsPerServer = f.in.GPUsPerServer })
	set("nic-speed", func() { in.NICSpeedGbps = f.in.NICSpeedGbps })
	set("leaf-ports", func() { in.LeafPorts = f.in.LeafPorts })
	set("leaf-speed", func() { in.LeafSpeedGbps = f.in.LeafSpeedGbps })
	set("spine-ports", func() { in.SpinePorts = f.in.SpinePorts })
	set("spine-speed", func() { in.SpineSpeedGbps = f.in.SpineSpeedGbps })
	set("oversubscription", func() { in.Oversubscription = f.in.Oversubscription })
	set("layout", func() { in.Layout = sizing.Layout(f.layout) })
	set("tiers", func() { in.Tiers = f.in.Tiers })
	set("min-spines", func() { in.MinSpines = f.in.MinSpines })
	return in
}

// planFraming is the packets a plan's NIC usable rate is of: the lab's
// payload MTU (qos.mtu) and its transport's bytes a packet on the wire
// (sim.WireOverheadFor), or RoCE at sim.DefaultMTU without a lab.
type planFraming struct{ mtu, overhead int }

// planInput resolves the sizing input, the server section and the
// framing from an optional lab and the flags.
func (f *sizingFlags) planInput(app *App, cmd *cobra.Command, args []string) (sizing.Input, server.Spec, planFraming, error) {
	var base sizing.Input
	var srv server.Spec
	fr := planFraming{sim.DefaultMTU, sim.WireOverheadFor(transport.RoCE)}
	switch {
	case len(args) == 1:
		spec, err := app.resolveSpec(args[0])
		if err != nil {
			return base, srv, fr, err
		}
		if err := nos.CheckSpec(spec, ""); err != nil {
			return base, srv, fr, err
		}
		base, srv = spec.Sizing, spec.Server
		if spec.QoS.MTU != nil {
			fr.mtu = *spec.QoS.MTU
		}
		if spec.Transport != "" {
			fr.overhead = sim.WireOverheadFor(spec.Transport)
		}
	case !cmd.Flags().Changed("gpus"):
		return base, srv, fr, exitcode.Usagef("name a lab or give --gpus (for example: labctl plan 64gpu, or labctl plan --gpus 64)")
	}
	// A zero given on the command line is a mistake, not "use the
	// default" (which is what zero means in a spec that leaves a key out).
	for _, name := range []string{"gpus-per-server", "nic-speed", "leaf-ports", "leaf-speed", "spine-ports", "spine-speed", "oversubscription"} {
		if fl := cmd.Flags().Lookup(name); fl.Changed && (fl.Value.String() == "0" || fl.Value.String() == "-0") {
			return base, srv, fr, exitcode.Usagef("--%s 0 is not a valid value (fix: leave the flag out for the default, %s)", name, fl.DefValue)
		}
	}
	return f.apply(cmd, base).Normalize(), srv, fr, nil
}

func newPlanCmd(app *App) *cobra.Command {
	var f sizingFlags
	cmd := &cobra.Command{
		Use:   "plan [<lab>] [--gpus N] [sizing flags]",
		Short: "Size a spine-leaf or 3-tier Clos fabric: switches, ports, breakout, optics",
		Long: `plan turns a GPU count and switch models into an exact, valid fabric: leaves,
spines (and super-spines and pods when 2 tiers cannot hold it), breakout,
balanced ECMP uplinks, NIC placement (tor or rail) and a bill of materials.
It shows the GPU servers too: the scale-up domain joining a server's GPUs,
each NIC's PCIe link and what the NIC can send through it, with a warning
when a NIC is PCIe-bound. Flags override the named lab's values (sizing and
server keys); defaults are the seed's (8 GPUs per server, 200G NICs,
32x400G switches, non-blocking), and the servers' follow the NIC speed.

-o json and -o yaml count switch ports two ways. Physical ports: ports,
downlink_ports_per_leaf, uplink_ports_per_leaf, downlink_ports_per_spine,
uplink_ports_per_spine and ports_used_per_super_spine; port_utilization is
the physical ports used over ports. NIC-speed (logical) ports, as the
seed's tables count them: logical_ports, downlinks_per_leaf,
uplinks_per_leaf and ports_used_per_spine, which is a share of the spine's
logical_ports, not of its ports (64gpu's 32x400G spine with 200G NICs: 64
of 64 logical ports, all 32 physical ports used).`,
		Example: `  labctl plan 64gpu
  labctl plan --gpus 1024 -o json
  labctl plan --gpus 4096 --leaf-ports 64 --spine-ports 64 --layout rail -o md
  labctl plan --gpus 64 --nic-speed 400 --scale-up nvlink4 --pcie-gen 4   # PCIe-bound NICs`,
		Args:              maxArgs(1),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json", "yaml", "md")
			if err != nil {
				return err
			}
			in, srv, fr, err := f.planInput(app, cmd, args)
			if err != nil {
				return err
			}
			p, err := sizing.Compute(in)
			if err != nil {
				var ie *sizing.InputError
				if errors.As(err, &ie) && len(args) == 0 || errors.As(err, &ie) && cmd.Flags().Changed(flagKey(ie.Field)) {
					return exitcode.Usagef("%s: %s (fix: %s)", flagNames[ie.Field], ie.Msg, ie.Fix)
				}
				// A lab spec file's key: at its place in the file.
				if errors.As(err, &ie) && len(args) == 1 {
					if data, rerr := os.ReadFile(args[0]); rerr == nil {
						return specyaml.At(args[0], data, "$.sizing."+ie.Field, "sizing."+ie.Field+": "+ie.Msg, ie.Fix)
					}
				}
				return fmt.Errorf("plan: %w", err)
			}
			m, err := f.serverModel(cmd, srv, in.NICSpeedGbps)
			if err != nil {
				return err
			}
			p.SetServer(m.WithFraming(fr.mtu, fr.overhead))
			return writePlan(app, format, p)
		},
	}
	f.register(cmd)
	return cmd
}

func flagKey(field string) string {
	if n, ok := flagNames[field]; ok {
		return n[2:]
	}
	return field
}

func writePlan(app *App, format string, p *sizing.Plan) error {
	switch format {
	case "json":
		enc := json.NewEncoder(app.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // keep "1x400G->2x200G" readable
		return enc.Encode(p)
	case "yaml":
		js, err := json.Marshal(p)
		if err != nil {
			return err
		}
		y, err := yaml.JSONToYAML(js)
		if err != nil {
			return err
		}
		_, err = app.Out.Write(y)
		return err
	case "md":
		return sizing.WriteMarkdown(app.Out, p)
	default:
		return sizing.WriteTable(app.Out, p)
	}
}

// completeLabs offers the catalog lab names (and files) as completions.
func completeLabs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, s := range lab.Catalog() {
		names = append(names, s.Name+"\t"+s.Description)
	}
	return names, cobra.ShellCompDirectiveDefault
}
