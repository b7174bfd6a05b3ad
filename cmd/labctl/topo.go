package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	labnos "github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/sizing"
)

// labGraph resolves a lab (catalog name or spec file), sizes it and builds
// its fabric graph; nos, when not empty, overrides the spec's NOS. Every
// command that renders, lints or draws a lab's configs from its spec
// (config render, lint, show, diff; topo, trace, doctor) passes here, and
// a spec whose configs the NOS would refuse (nos.CheckSpec) stops here.
func labGraph(app *App, nameOrPath, nos string) (*fabric.Graph, *lab.Spec, error) {
	spec, err := app.resolveSpec(nameOrPath)
	if err != nil {
		return nil, nil, err
	}
	nos = app.labNOS(spec.Name, nos)
	if nos != "" {
		if nos != fabric.NOSSonic && nos != fabric.NOSEOS {
			return nil, nil, exitcode.Usagef("--nos %q is not supported: use sonic or eos", nos)
		}
		s := *spec
		s.NOS = nos
		spec = &s
	}
	if err := labnos.CheckSpec(spec, ""); err != nil {
		return nil, nil, err
	}
	plan, err := sizing.Compute(spec.Sizing.Normalize())
	if err != nil {
		return nil, nil, exitcode.Usagef("size lab %s: %v (fix the sizing section of %s)", spec.Name, err, spec.Source)
	}
	g, err := fabric.Build(spec, plan)
	if err != nil {
		return nil, nil, fmt.Errorf("lab %s: %w", spec.Name, err)
	}
	return g, spec, nil
}

func newTopoCmd(app *App) *cobra.Command {
	var nos string
	cmd := &cobra.Command{
		Use:   "topo <lab> [--nos sonic|eos]",
		Short: "Build a lab's fabric graph and write its containerlab topology",
		Long: `topo sizes the lab, builds its fabric (switches, servers, ports, /31 links,
loopbacks, eBGP underlay ASNs) and writes topologies/<lab>/<lab>.clab.yml,
topologies/<lab>/<lab>.mmd (a mermaid diagram) and base startup configs in
topologies/<lab>/startup/. Vendor QoS configs in configs/ are not touched.

SONiC switches boot docker-sonic-vs with the hardware SKU Mellanox-SN4700-V64
(64 x 200G ports; the image's default SKU has 32): the topology sets the
container's HWSKU and installs startup/<switch>.json as its CONFIG_DB with
the SKU's port lanes. The summary says how container interfaces map to
switch ports and host NICs: every modelled NIC keeps its own leaf port and
soft-RoCE device. Where a switch would still exceed the data ports of its
container (64 on sonic-vs, 128 on cEOS), parallel links are merged into one
lab link and the summary says so; the sizing plan itself stays exact.

With -o clab|json|mermaid|dot the result is printed instead of written.`,
		Example: `  labctl topo 64gpu
  labctl topo 128gpu --nos eos
  labctl topo 1024gpu -o mermaid`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format := ""
			if app.Output != "" {
				f, err := app.OutputFormat("", "clab", "json", "mermaid", "dot")
				if err != nil {
					return err
				}
				format = f
			}
			g, _, err := labGraph(app, args[0], nos)
			if err != nil {
				return err
			}
			switch format {
			case "clab":
				return g.WriteClab(app.Out)
			case "json":
				return g.WriteJSON(app.Out)
			case "mermaid":
				return g.WriteMermaid(app.Out)
			case "dot":
				return g.WriteDot(app.Out)
			}
			// The files of a lab that is up are what it runs: no other NOS's
			// topology and startup files under it.
			st, err := runtime.ReadState(labDir(app, g.Name))
			if err != nil {
				return err
			}
			if err := runtime.RefuseNOSChange(st, g.NOS); err != nil {
				return err
			}
			dir := filepath.Join(app.TopologiesDir(), g.Name)
			written, err := g.WriteLab(dir)
			if err != nil {
				return exitcode.Envf("%v (check that %s is writable)", err, dir)
			}
			for _, line := range g.Summary() {
				fmt.Fprintln(app.Out, line)
			}
			for _, line := range g.PortMapping() {
				fmt.Fprintln(app.Out, line)
			}
			fmt.Fprintf(app.Out, "wrote %s, %s and %d startup configs in %s\n",
				filepath.Join(dir, g.TopologyFile()), filepath.Join(dir, g.MermaidFile()), len(written)-2, filepath.Join(dir, fabric.StartupDir))
			if len(g.OverBudget) > 0 {
				fmt.Fprintf(app.Out, "note: containerlab cannot run this lab with nos %s (see scale-down above); the simulator (--runtime sim) can\n", g.NOS)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&nos, "nos", "", "switch NOS: sonic or eos (default: the lab's)")
	_ = cmd.RegisterFlagCompletionFunc("nos", cobra.FixedCompletions([]string{"sonic", "eos"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
