package main

import (
	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime/clab/doctor"
)

func newDoctorCmd(app *App) *cobra.Command {
	var runtimeName, labName string
	cmd := &cobra.Command{
		Use:   "doctor [--runtime clab|sim] [--lab <lab>]",
		Short: "Check what this machine needs to run labs, with a fix for each problem",
		Long: `doctor checks what --runtime clab needs: a reachable Docker engine and its API
version, containerlab on PATH, the lab's images, whether privileged containers
start, the rdma_rxe kernel module and soft-RoCE inside a container's network
namespace, the memlock limit, inotify limits and free memory against the lab's
estimate. Each line is PASS, WARN or FAIL with a fix.

Without --runtime it checks the default runtime, sim, which needs nothing but
labctl (with --lab, the containerlab checks for that lab). It exits 3 when a
failed check stops the runtime checked.`,
		Example: `  labctl doctor
  labctl doctor --runtime clab
  labctl doctor --lab 64gpu -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			if runtimeName == "" {
				// The default runtime works everywhere; --lab asks about a
				// lab's images and memory, which only containerlab needs.
				runtimeName = "sim"
				if labName != "" {
					runtimeName = "clab"
				}
			}
			if runtimeName != "clab" && runtimeName != "sim" {
				return exitcode.Usagef("--runtime %q is not known: use clab or sim", runtimeName)
			}
			opt := doctor.Options{Images: []doctor.Image{
				{Role: "sonic", Ref: lab.DefaultSONiCImage},
				{Role: "eos", Ref: lab.DefaultEOSImage},
				{Role: "host", Ref: lab.DefaultHostImage, Required: true},
			}}
			if labName != "" {
				g, _, err := labGraph(app, labName, "")
				if err != nil {
					return err
				}
				sw := doctor.Image{Role: "sonic", Ref: g.Images.SONiC, Required: true}
				if g.NOS == fabric.NOSEOS {
					sw = doctor.Image{Role: "eos", Ref: g.Images.EOS, Required: true}
				}
				opt.Images = []doctor.Image{sw, {Role: "host", Ref: g.Images.Host, Required: true}}
				opt.NeedMemMiB = g.Estimate().MemoryMiB
			}
			env := &doctor.SystemEnv{HostImage: opt.Images[len(opt.Images)-1].Ref}
			defer env.Close()
			rep := doctor.Run(cmd.Context(), env, runtimeName, opt)
			if format == "json" {
				err = rep.WriteJSON(app.Out)
			} else {
				err = rep.WriteText(app.Out)
			}
			if err != nil {
				return err
			}
			if rep.Blocked {
				return exitcode.Envf("--runtime %s cannot run on this machine: fix the FAIL lines above, or use --runtime sim", runtimeName)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&runtimeName, "runtime", "", "runtime to check: sim or clab (default sim; clab with --lab)")
	cmd.Flags().StringVar(&labName, "lab", "", "lab (catalog name or spec file) whose images and memory estimate to check")
	return cmd
}
