package main

import (
	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime"
)

func newStatusCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "status [<lab>]",
		Short: "Show the state of one lab, or of every lab in the work directory",
		Long: `status reads topologies/<lab>/state.json: the runtime a lab runs on, its NOS,
its state (deploying, up, degraded, stopping, down, failed) and its nodes.
Without a lab it lists every lab under topologies/. For a lab that is up on
containerlab it asks the runtime for the live state of each node.`,
		Example: `  labctl status
  labctl status 64gpu -o json`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json")
			if err != nil {
				return err
			}
			if err := app.requireDir(); err != nil {
				return err
			}
			if len(args) == 0 {
				// One unreadable state file still lists every other lab,
				// then exits with its error.
				sts, err := runtime.ListStates(app.TopologiesDir())
				if werr := writeStatus(app, format, sts); werr != nil {
					return werr
				}
				return err
			}
			name, st, err := labState(app, args[0])
			if err != nil {
				return err
			}
			if st == nil {
				return exitcode.Usagef("lab %s was never brought up in %s (fix: run 'labctl up %s')", name, app.TopologiesDir(), name)
			}
			// A live runtime may know better than the file (a container
			// that died); the simulator's answer is the file's.
			if st.IsUp() && st.Runtime != "" && st.Runtime != "sim" {
				if rt, err := runtimeByName(st.Runtime); err == nil {
					if l, err := recordedLab(app, st); err == nil {
						if live, err := rt.Status(cmd.Context(), l); err == nil && live != nil {
							st.Nodes = live.Nodes
							if live.State != "" {
								st.State = live.State
							}
						} else if err != nil {
							app.Log.Warn("live status unavailable", "lab", name, "err", err)
						}
					}
				}
			}
			return writeStatus(app, format, []*runtime.Status{st})
		},
	}
}
