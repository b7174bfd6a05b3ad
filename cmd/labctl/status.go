package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes"
)

func newStatusCmd(app *App) *cobra.Command {
	var kube clabernetes.Target
	cmd := &cobra.Command{
		Use:   "status [<lab>]",
		Short: "Show the state of one lab, or of every lab in the work directory",
		Long: `status reads topologies/<lab>/state.json: the runtime a lab runs on, its NOS,
its state (deploying, up, degraded, stopping, down, failed) and its nodes.
Without a lab it lists every lab under topologies/. A lab whose topology is
there (labctl topo, config render) but that was never brought up is
never-up, with no runtime, nodes or times. For a lab on containerlab
or clabernetes it asks the runtime which nodes run, whatever the recorded
state: after a failed or interrupted up it shows the containers still running
(and that 'labctl down' removes them).`,
		Example: `  labctl status
  labctl status 64gpu -o json`,
		Args:              maxArgs(1),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json")
			if err != nil {
				return err
			}
			if err := app.requireDir(); err != nil {
				return err
			}
			var sts []*runtime.Status
			var listErr error
			if len(args) == 0 {
				// One unreadable state file still lists every other lab,
				// then exits with its error.
				sts, listErr = runtime.ListStates(app.TopologiesDir())
			} else {
				name, st, err := labState(app, args[0])
				if err != nil {
					return err
				}
				if st == nil {
					// A lab whose topology is here (labctl topo, config
					// render) exists: never up is its state, not bad
					// input. A name with nothing here is a likely wrong
					// --dir or a lab not made yet.
					if _, err := os.Stat(labDir(app, name)); err != nil {
						return exitcode.Usagef("lab %s was never brought up in %s (fix: run 'labctl up %s')", name, app.TopologiesDir(), name)
					}
					st = runtime.NeverUp(name)
				}
				sts = []*runtime.Status{st}
			}
			var notes []string
			for _, st := range sts {
				if st.State == runtime.StateNeverUp {
					notes = append(notes, fmt.Sprintf("lab %s: its topology is in %s but it was never brought up; 'labctl up %s' brings it up", st.Lab, labDir(app, st.Lab), st.Lab))
					continue
				}
				if note := liveStatus(cmd.Context(), app, st, kube); note != "" {
					notes = append(notes, note)
				}
			}
			write := writeStatus
			if len(args) == 0 {
				write = writeStatusList
			}
			if err := write(app, format, sts); err != nil {
				return err
			}
			if format == "table" {
				for _, n := range notes {
					fmt.Fprintln(app.Out, n)
				}
			}
			return listErr
		},
	}
	addKubeFlags(cmd, &kube)
	return cmd
}

// liveStatus asks a live runtime which of the lab's nodes run and puts its
// answer in st: the recorded file cannot know that a container died, or
// that a failed or interrupted up left containers running. The simulator's
// answer is the file's, and a lab whose up failed before anything was
// deployed has nothing to ask about. When containers run although the
// recorded state says the lab is not up, st keeps that state and the
// returned note says so. A runtime that cannot answer leaves st as
// recorded, and the note says why (under the table, not as a log line:
// it is part of the lab's state).
func liveStatus(ctx context.Context, app *App, st *runtime.Status, kube clabernetes.Target) string {
	if st.Runtime == "" || st.Runtime == "sim" || st.NothingDeployed {
		return ""
	}
	rt, err := runtimeByName(st.Runtime, kube)
	if err != nil {
		return ""
	}
	unknown := func(err error) string {
		if st.State == runtime.StateDown {
			return "" // nothing is expected to run
		}
		// One line per lab: joined errors come with newlines.
		return fmt.Sprintf("lab %s: which of its nodes run is unknown (the nodes shown are as recorded): %s", st.Lab, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	l, err := recordedLab(app, st)
	if err != nil {
		return unknown(err)
	}
	l.Dir = labDir(app, st.Lab)
	live, err := rt.Status(ctx, l)
	if err != nil {
		return unknown(err)
	}
	if live == nil {
		return ""
	}
	running := 0
	for _, n := range live.Nodes {
		if n.State == runtime.NodeRunning {
			running++
		}
	}
	if st.IsUp() {
		st.Nodes = live.Nodes
		if live.State != "" {
			st.State = live.State
		}
		return ""
	}
	if running == 0 {
		return ""
	}
	st.Nodes = live.Nodes
	return fmt.Sprintf("lab %s: %d of its containers still run although the lab is %s; 'labctl down %s' removes them", st.Lab, running, st.State, st.Lab)
}
