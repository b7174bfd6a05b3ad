package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes"
)

func newDownCmd(app *App) *cobra.Command {
	var dryRun bool
	var kube clabernetes.Target
	cmd := &cobra.Command{
		Use:   "down <lab>",
		Short: "Take a lab down (idempotent)",
		Long: `down stops the lab with the runtime it was brought up with and marks it down
in topologies/<lab>/state.json. The topology and the vendor configs stay,
edits included, so a later up uses them. Taking down a lab that is down, or
was never up, succeeds and changes nothing.`,
		Example:           `  labctl down 64gpu`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json")
			if err != nil {
				return err
			}
			name, st, err := labState(app, args[0])
			if err != nil {
				return err
			}
			// A lab never brought up here is fine for down (it is
			// idempotent) when labctl knows the lab; labState refuses a
			// name it does not know, a likely typo.
			if st == nil {
				// Nothing was recorded, so nothing is: the lab stays
				// never up (no state.json is written for it).
				if format == "json" {
					return writeStatus(app, format, []*runtime.Status{runtime.NeverUp(name)})
				}
				fmt.Fprintf(app.Out, "lab %s is not up (never brought up); nothing to do\n", name)
				return nil
			}
			if st.State == runtime.StateDown {
				if format == "json" {
					return writeStatus(app, format, []*runtime.Status{st})
				}
				fmt.Fprintf(app.Out, "lab %s is not up; nothing to do\n", name)
				return nil
			}
			rt, err := runtimeByName(st.Runtime, kube)
			if err != nil {
				return err
			}
			l, err := recordedLab(app, st)
			if err != nil {
				if st.Spec == "" || strings.HasPrefix(st.Spec, "catalog:") {
					return err
				}
				// The spec file moved or is gone: taking the lab down
				// needs only its name and nodes, which state.json keeps.
				fmt.Fprintf(app.Err, "labctl: note: %v; taking lab %s down from what its state.json recorded\n", err, name)
				l = labFromState(st)
			}
			l.Dir = labDir(app, name)
			l.DryRun = dryRun
			l.Progress = app.progressWriter(format)
			out, err := runtime.Down(cmd.Context(), rt, l)
			if err != nil {
				return err
			}
			if dryRun {
				// The runtime said what it would do (nothing, for the
				// simulator); the state is labctl's own.
				fmt.Fprintf(app.Out, "would mark lab %s down in %s\n", name, filepath.Join(labDir(app, name), runtime.StateFile))
				return nil
			}
			return writeStatus(app, format, []*runtime.Status{out})
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be done without doing it")
	addKubeFlags(cmd, &kube)
	return cmd
}

// labFromState is the lab as its state.json recorded it (name, NOS, the
// nodes and their roles), for taking down a lab whose spec file no longer
// resolves: a runtime's Down needs no more.
func labFromState(st *runtime.Status) *runtime.Lab {
	g := &fabric.Graph{Name: st.Lab, NOS: st.NOS}
	for _, n := range st.Nodes {
		g.Nodes = append(g.Nodes, &fabric.Node{Name: n.Name, Role: fabric.Role(n.Role)})
	}
	return &runtime.Lab{Name: st.Lab, NOS: st.NOS, Graph: g}
}
