package main

import (
	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime/clab/doctor"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes"
)

func newDoctorCmd(app *App) *cobra.Command {
	var runtimeName, labName string
	var kube clabernetes.Target
	cmd := &cobra.Command{
		Use:   "doctor [--runtime clab|clabernetes|sim] [--lab <lab>]",
		Short: "Check what this machine needs to run labs, with a fix for each problem",
		Long: `doctor checks what --runtime clab needs: a reachable Docker engine and its API
version, containerlab on PATH, the lab's images, whether privileged containers
start, the rdma_rxe kernel module and soft-RoCE inside a container's network
namespace, the memlock limit, inotify limits and free memory against the lab's
estimate. Each line is PASS, WARN or FAIL with a fix.

Without --runtime it checks the default runtime, sim, which needs nothing but
labctl (with --lab, the containerlab checks for that lab).

With --runtime clabernetes it checks the Kubernetes cluster instead: the
kubeconfig, that the API server answers, the clabernetes Topology CRD (served,
with every field labctl uses) and its controller, the namespace, labctl's
permissions there (RBAC), and the schedulable nodes' allocatable memory and
CPU against the lab's estimate.

It exits 3 when a failed check stops the runtime checked.`,
		Example: `  labctl doctor
  labctl doctor --runtime clab
  labctl doctor --lab 64gpu -o json
  labctl doctor --runtime clabernetes --lab 1024gpu --namespace labs`,
		Args: noArgs,
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
			switch runtimeName {
			case "clab", "sim":
			case clabernetes.Name:
				var g *fabric.Graph
				if labName != "" {
					if g, _, err = labGraph(app, labName, ""); err != nil {
						return err
					}
				}
				return writeDoctor(app, format, runtimeName, clabernetes.Doctor(cmd.Context(), kube, g))
			default:
				return exitcode.Usagef("--runtime %q is not known: use clab, clabernetes or sim", runtimeName)
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
			return writeDoctor(app, format, runtimeName, doctor.Run(cmd.Context(), env, runtimeName, opt))
		},
	}
	cmd.Flags().StringVar(&runtimeName, "runtime", "", "runtime to check: sim, clab or clabernetes (default sim; clab with --lab)")
	cmd.Flags().StringVar(&labName, "lab", "", "lab (catalog name or spec file) whose images and memory estimate to check")
	addKubeFlags(cmd, &kube)
	return cmd
}

// writeDoctor prints a doctor report and exits 3 when a failed check
// blocks the runtime.
func writeDoctor(app *App, format, runtimeName string, rep *doctor.Report) error {
	var err error
	if format == "json" {
		err = rep.WriteJSON(app.Out)
	} else {
		err = rep.WriteText(app.Out)
	}
	if err != nil {
		return err
	}
	if rep.Blocked {
		where := "on this machine"
		if runtimeName == clabernetes.Name {
			where = "on this cluster"
		}
		return exitcode.Envf("--runtime %s cannot run %s: fix the FAIL lines above, or use --runtime sim", runtimeName, where)
	}
	return nil
}
