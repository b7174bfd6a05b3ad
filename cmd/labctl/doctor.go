package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime"
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

Without --runtime it checks the runtime the lab runs on: with --lab, the one
it is recorded with in the work directory if it is up (or failed, or on its
way), else its spec's runtime (the catalog labs' is sim); without --lab, the
default runtime, sim. sim needs nothing but labctl. To check containerlab for
a lab whose spec says sim, give --runtime clab --lab <lab>.

With --runtime clabernetes it checks the Kubernetes cluster instead: the
kubeconfig, that the API server answers, the clabernetes Topology CRD (served,
with every field labctl uses) and its controller, the namespace, labctl's
permissions there (RBAC), and the schedulable nodes' allocatable memory and
CPU against the lab's estimate.

It exits 3 when a failed check stops the runtime checked.`,
		Example: `  labctl doctor
  labctl doctor --runtime clab
  labctl doctor --lab 64gpu
  labctl doctor --runtime clab --lab 64gpu -o json
  labctl doctor --runtime clabernetes --lab 1024gpu --namespace labs`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			// labNote ends the report when the lab chose the runtime,
			// so that a sim lab's PASS is not read as containerlab's.
			labNote := ""
			// --lab is resolved once, for the runtime it chooses and for
			// the checks of clab and clabernetes (sim's need no lab; an
			// unknown --runtime is refused before the lab is read).
			var g *fabric.Graph
			var spec *lab.Spec
			if labName != "" && (runtimeName == "" || runtimeName == "clab" || runtimeName == clabernetes.Name) {
				if g, spec, err = labGraph(app, labName, ""); err != nil {
					return err
				}
			}
			if runtimeName == "" {
				runtimeName = "sim"
				if spec != nil {
					// The lab's own runtime: checking containerlab for a
					// lab the simulator runs would fail (exit 3) over
					// what the lab never uses.
					runtimeName, labNote = labRuntime(app, spec)
				}
			}
			switch runtimeName {
			case "clab", "sim":
			case clabernetes.Name:
				return writeDoctor(app, format, runtimeName, withNote(clabernetes.Doctor(cmd.Context(), kube, g), labNote))
			default:
				return exitcode.Usagef("--runtime %q is not known: use clab, clabernetes or sim", runtimeName)
			}
			opt := doctor.Options{Images: []doctor.Image{
				{Role: "sonic", Ref: lab.DefaultSONiCImage},
				{Role: "eos", Ref: lab.DefaultEOSImage},
				{Role: "host", Ref: lab.DefaultHostImage, Required: true},
			}}
			if labName != "" && runtimeName == "clab" {
				sw := doctor.Image{Role: "sonic", Ref: g.Images.SONiC, Required: true}
				if g.NOS == fabric.NOSEOS {
					sw = doctor.Image{Role: "eos", Ref: g.Images.EOS, Required: true}
				}
				opt.Images = []doctor.Image{sw, {Role: "host", Ref: g.Images.Host, Required: true}}
				opt.NeedMemMiB = g.Estimate().MemoryMiB
			}
			env := &doctor.SystemEnv{HostImage: opt.Images[len(opt.Images)-1].Ref}
			defer env.Close()
			return writeDoctor(app, format, runtimeName, withNote(doctor.Run(cmd.Context(), env, runtimeName, opt), labNote))
		},
	}
	cmd.Flags().StringVar(&runtimeName, "runtime", "", "runtime to check: sim, clab or clabernetes (default: --lab's runtime, else sim)")
	cmd.Flags().StringVar(&labName, "lab", "", "lab (catalog name or spec file) whose images and memory estimate to check")
	addKubeFlags(cmd, &kube)
	return cmd
}

// labRuntime is the runtime doctor checks for a lab given without
// --runtime, and the sentence saying where it came from: the one the lab
// is recorded with in the work directory while it holds anything there
// (up, failed, on its way; a lab brought up with --runtime clab runs on
// containerlab whatever its spec says), else its spec's.
func labRuntime(app *App, spec *lab.Spec) (string, string) {
	if st, err := runtime.ReadState(labDir(app, spec.Name)); err == nil && st != nil && st.State != runtime.StateDown && st.Runtime != "" {
		return st.Runtime, fmt.Sprintf("lab %s is %s with runtime %s in %s: checked %s", spec.Name, st.State, st.Runtime, app.TopologiesDir(), st.Runtime)
	}
	note := fmt.Sprintf("lab %s's spec says runtime %s: checked %s", spec.Name, spec.Runtime, spec.Runtime)
	if spec.Runtime == "sim" {
		note = fmt.Sprintf("lab %s's spec says runtime sim, which needs nothing but labctl; 'labctl doctor --runtime clab --lab %s' checks what containerlab needs for it", spec.Name, labArgOf(spec))
	}
	return spec.Runtime, note
}

// labArgOf is how a command names spec's lab: its catalog name or its file.
func labArgOf(spec *lab.Spec) string {
	if name, ok := strings.CutPrefix(spec.Source, "catalog:"); ok {
		return name
	}
	return spec.Source
}

// withNote gives rep the note saying why its runtime was checked.
func withNote(rep *doctor.Report, note string) *doctor.Report {
	rep.Note = note
	return rep
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
