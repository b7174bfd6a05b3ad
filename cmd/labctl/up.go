package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/cmd/labctl/internal/startheap"
	"github.com/labctl/labctl/orchestrator/configset"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/naming"
	labnos "github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/runtime/clab"
	"github.com/labctl/labctl/orchestrator/runtime/clab/doctor"
	"github.com/labctl/labctl/orchestrator/runtime/clabernetes"
	simrt "github.com/labctl/labctl/orchestrator/runtime/sim"
	"github.com/labctl/labctl/orchestrator/suggest"
)

// runtimeByName returns the runtime a lab runs on; kube says which
// cluster and namespace for clabernetes.
func runtimeByName(name string, kube clabernetes.Target) (runtime.Runtime, error) {
	switch name {
	case "", simrt.Name:
		return simrt.New(), nil
	case "clab":
		rt := clab.New()
		rt.EnvCheck = clabEnvCheck
		return rt, nil
	case clabernetes.Name:
		return clabernetes.New(kube), nil
	}
	return nil, exitcode.Usagef("unknown runtime %q: use sim, clab or clabernetes", name)
}

// clabEnvCheck runs doctor's pre-deploy checks for a lab (its images, the
// kernel's soft-RoCE, limits) so that up stops before containerlab starts
// anything the lab could not use.
func clabEnvCheck(ctx context.Context, l *runtime.Lab, engineUp bool) (problems, warnings []string) {
	sw := doctor.Image{Role: "sonic", Ref: l.Graph.Images.SONiC, Required: true}
	if l.NOS == fabric.NOSEOS {
		sw = doctor.Image{Role: "eos", Ref: l.Graph.Images.EOS, Required: true}
	}
	env := &doctor.SystemEnv{HostImage: l.Graph.Images.Host}
	defer env.Close()
	return doctor.PreDeploy(ctx, env, doctor.Options{Images: []doctor.Image{sw, {Role: "host", Ref: l.Graph.Images.Host, Required: true}}}, engineUp)
}

// isTerminal reports whether w is a terminal, where progress is shown.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressWriter is where long operations report progress: stderr when it
// is a terminal and the output is not JSON, else nowhere.
func (a *App) progressWriter(format string) io.Writer {
	// Progress lines are for a person watching: only when both output
	// streams are a terminal (-v sends the same to the log instead).
	if format == "json" || !isTerminal(a.Err) || !isTerminal(a.Out) {
		return nil
	}
	return a.Err
}

// openLab resolves a lab spec and builds its runtime view under the work
// directory; nos overrides the spec's NOS when not empty.
func openLab(app *App, nameOrPath, nos string) (*runtime.Lab, error) {
	if nos != "" && nos != "sonic" && nos != "eos" {
		return nil, exitcode.Usagef("--nos %q is not supported: use sonic or eos", nos)
	}
	spec, err := app.resolveSpec(nameOrPath)
	if err != nil {
		return nil, err
	}
	l, err := runtime.NewLab(spec, app.TopologiesDir(), app.labNOS(spec.Name, nos))
	if err != nil {
		if exitcode.Code(err) == exitcode.CheckFailed {
			return nil, exitcode.Usagef("%v (fix the sizing section of %s)", err, spec.Source)
		}
		return nil, err
	}
	l.Log = app.Log
	return l, nil
}

// resolveSpec finds a lab spec by catalog name or path and, for a name
// that is neither, by the spec a lab of that name was brought up from in
// the work directory: after 'labctl up ./mylab.yaml', every command takes
// "mylab".
func (a *App) resolveSpec(arg string) (*lab.Spec, error) {
	spec, err := lab.Resolve(arg)
	if err == nil || !lab.ValidName(arg) {
		return spec, err
	}
	st, serr := runtime.ReadState(filepath.Join(a.TopologiesDir(), arg))
	if serr != nil || st == nil || st.Spec == "" || strings.HasPrefix(st.Spec, "catalog:") {
		return nil, err
	}
	recorded, rerr := lab.Resolve(st.Spec)
	if rerr != nil {
		return nil, fmt.Errorf("lab %s was brought up from %s, which no longer resolves: %w", arg, st.Spec, rerr)
	}
	return recorded, nil
}

// labNOS is the NOS a command works with for lab name: the --nos flag when
// given, else the NOS the lab was last brought up with in the work
// directory (so that after 'labctl up 16gpu --nos eos', render, lint, topo
// and a plain 'up' keep to EOS), else "" for the spec's own.
func (a *App) labNOS(name, flag string) string {
	if flag != "" {
		return flag
	}
	if st, err := runtime.ReadState(filepath.Join(a.TopologiesDir(), name)); err == nil && st != nil {
		return st.NOS
	}
	return ""
}

// labName turns a lab argument (a catalog name, a lab name or a spec path)
// into the lab's name, the folder under topologies/.
func labName(arg string) (string, error) {
	if strings.ContainsRune(arg, '/') || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") {
		spec, err := lab.Resolve(arg)
		if err != nil {
			return "", err
		}
		return spec.Name, nil
	}
	if !lab.ValidName(arg) {
		return "", exitcode.Usagef("lab name %q is not valid: use %s", arg, naming.Rule(naming.MaxLen))
	}
	return arg, nil
}

// labState reads the state recorded for the lab arg names (see labName);
// the state is nil when the lab was never brought up in the work directory.
// A name that was never brought up here and names no catalog lab or spec
// either is a likely typo: that is an error naming the labs there are, not
// a nil state (whose "run 'labctl up <typo>'" would fail in turn).
func labState(app *App, arg string) (string, *runtime.Status, error) {
	name, err := labName(arg)
	if err != nil {
		return "", nil, err
	}
	st, err := runtime.ReadState(labDir(app, name))
	if err == nil && st == nil {
		if _, rerr := app.resolveSpec(arg); rerr != nil {
			return "", nil, unknownLabError(app, arg)
		}
	}
	return name, st, err
}

// unknownLabError says that arg names no lab brought up in the work
// directory, no catalog lab and no spec file, with the labs there are.
func unknownLabError(app *App, arg string) error {
	catalog := lab.CatalogNames()
	fix := fmt.Sprintf("use a catalog lab (%s) or the path of a spec file", strings.Join(catalog, ", "))
	known := catalog
	if sts, err := runtime.ListStates(app.TopologiesDir()); err == nil && len(sts) > 0 {
		// The labs brought up here in the catalog's order (by size),
		// then the others by name.
		var names []string
		for _, c := range catalog {
			if slices.ContainsFunc(sts, func(st *runtime.Status) bool { return st.Lab == c }) {
				names = append(names, c)
			}
		}
		for _, st := range sts {
			if !slices.Contains(catalog, st.Lab) {
				names = append(names, st.Lab)
			}
		}
		known = append(slices.Clone(catalog), names...)
		fix = fmt.Sprintf("use a catalog lab (%s), the path of a spec file, or a lab brought up here: %s", strings.Join(catalog, ", "), strings.Join(names, ", "))
	}
	if near := suggest.Nearest(arg, known); near != "" {
		fix = fmt.Sprintf("did you mean %s? %s", near, fix)
	}
	return exitcode.Usagef("no lab %q in %s and no catalog lab or spec of that name (fix: %s)", arg, app.TopologiesDir(), fix)
}

// recordedLab rebuilds the runtime view of a lab that was brought up, from
// what its state.json recorded (spec source and NOS).
func recordedLab(app *App, st *runtime.Status) (*runtime.Lab, error) {
	src := st.Spec
	if name, ok := strings.CutPrefix(src, "catalog:"); ok {
		src = name
	}
	if src == "" {
		src = st.Lab
	}
	l, err := openLab(app, src, st.NOS)
	if err != nil {
		return nil, fmt.Errorf("lab %s was brought up from %s, which no longer resolves: %w", st.Lab, st.Spec, err)
	}
	return l, nil
}

func newUpCmd(app *App) *cobra.Command {
	var rtName, nos string
	var dryRun, force bool
	var kube clabernetes.Target
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "up <lab> [--runtime sim|clab|clabernetes] [--nos sonic|eos] [--dry-run]",
		Short: "Bring a lab up in the simulator, on containerlab or on Kubernetes",
		Long: `up renders what the lab lacks under topologies/<lab>/ (the topology and one
vendor config per switch in configs/; configs labctl wrote follow changes of
the lab's spec, configs you edited are never overwritten), then brings the lab
up with the runtime:

  sim          the embedded packet-level simulator (default; needs nothing else)
  clab         containerlab with SONiC-VS or cEOS switches and soft-RoCE hosts
  clabernetes  the same lab on a Kubernetes cluster with clabernetes, one pod
               per node (--kubeconfig, --context, --namespace); with
               --dry-run -o yaml it prints the Topology and ConfigMaps

The lab is locked while up runs (a second up says who holds it), and its
state is recorded in topologies/<lab>/state.json for status, run and down.

With --runtime clab, up first compares the lab's estimate with the machine:
too little memory refuses the lab (exit 3; --force starts it anyway), too few
CPUs only warn (the containers share them and run slower).`,
		Example: `  labctl up 64gpu
  labctl up 16gpu --nos eos
  labctl up 16gpu --runtime clab --dry-run
  labctl up 128gpu --runtime clab --force
  labctl up 1024gpu --runtime clabernetes --dry-run -o yaml
  labctl up 128gpu --nos eos --runtime clabernetes --namespace labs`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("table", "table", "json", "yaml")
			if err != nil {
				return err
			}
			if timeout <= 0 {
				return exitcode.Usagef("--timeout %s: give a positive time to wait for the nodes (fix: for example 20m, the default, or 45m for a large lab)", timeout)
			}
			l, err := openLab(app, args[0], nos)
			if err != nil {
				return err
			}
			if err := labnos.CheckSpec(l.Spec, l.NOS); err != nil {
				return err
			}
			if rtName == "" {
				rtName = l.Spec.Runtime
			}
			if format == "yaml" {
				if !dryRun || rtName != clabernetes.Name {
					return exitcode.Usagef("-o yaml prints a lab's Kubernetes manifests: use it with --runtime clabernetes --dry-run")
				}
				return printManifests(app, l, kube)
			}
			// One lab name, one spec: a file spec that reuses the name of a
			// lab that is up from another spec would silently replace it.
			if st, err := runtime.ReadState(l.Dir); err == nil && st.IsUp() && st.Spec != "" && !runtime.SameSpec(st.Spec, l.Spec.Source) {
				return exitcode.Usagef("lab %s is up from %s, not from %s: run 'labctl down %s' first, or give your spec another name", l.Name, st.Spec, l.Spec.Source, l.Name)
			}
			rt, err := runtimeByName(rtName, kube)
			if err != nil {
				return err
			}
			switch rtName {
			case "clab":
				// Refuse before anything starts: a lab this machine cannot
				// hold, or whose switches exceed their NOS's port budget.
				warnings, err := clabFits(l, force)
				for _, w := range warnings {
					fmt.Fprintf(app.Err, "labctl: warning: %s\n", w)
				}
				if err != nil {
					return err
				}
			case clabernetes.Name:
				// The cluster's room is checked by the runtime against
				// the cluster; the switch images' port budget is the same
				// as on containerlab.
				if err := l.Graph.CheckLabBudget(); err != nil {
					return err
				}
				rt.(*clabernetes.Runtime).ReadyTimeout = timeout
			}
			if !dryRun {
				// Refused before anything is written (rendering checks again
				// under the lab's lock): another NOS's configs the user
				// edited cannot share the folder with this NOS's.
				if err := configset.CheckNOS(l.ConfigsDir(), l.NOS, false); err != nil {
					return fmt.Errorf("lab %s: %w", l.Name, err)
				}
			}
			// The input checks are done; rendering the lab's configs and
			// topology allocates MiBs per switch, in huge pages where the
			// kernel gives them on request, on a lab with switches enough.
			if wantsHugePages(len(runtime.Devices(l.Graph))) {
				startheap.HugePages()
			}
			l.DryRun = dryRun
			l.Progress = app.progressWriter(format)
			if dryRun && l.Progress == nil && format != "json" {
				l.Progress = app.Out // a dry run is only its report
			}
			prepare := func(ctx context.Context, l *runtime.Lab) error {
				if l.DryRun {
					return nil
				}
				written, kept, err := runtime.RenderLab(l)
				for _, p := range written {
					app.Log.Info("wrote " + p)
				}
				if len(kept) > 0 {
					them := "them"
					if len(kept) == 1 {
						them = "it"
					}
					fmt.Fprintf(app.Err, "labctl: kept %s; if the lab changed since, check %s with 'labctl config lint %s' (or re-render with 'labctl config render %s --force')\n", upKept(kept), them, l.Name, args[0])
				}
				return err
			}
			st, err := runtime.Up(cmd.Context(), rt, l, prepare)
			if err != nil {
				return err
			}
			if dryRun {
				return nil
			}
			return writeStatus(app, format, []*runtime.Status{st})
		},
	}
	cmd.Flags().StringVar(&rtName, "runtime", "", "runtime: sim, clab or clabernetes (default: the lab spec's, usually sim)")
	cmd.Flags().StringVar(&nos, "nos", "", "switch NOS: sonic or eos (default: the lab spec's)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be done without doing it")
	cmd.Flags().BoolVar(&force, "force", false, "with --runtime clab, start the lab even when its memory estimate exceeds the memory available")
	cmd.Flags().DurationVar(&timeout, "timeout", 20*time.Minute, "clabernetes runtime: how long to wait for every node to be ready")
	addKubeFlags(cmd, &kube)
	return cmd
}

// printManifests prints the ConfigMaps and the Topology that
// --runtime clabernetes applies for l, as 'kubectl apply -f' takes them.
// A lab over its switches' port budget is printed with a warning: up
// without --dry-run refuses it.
func printManifests(app *App, l *runtime.Lab, kube clabernetes.Target) error {
	if err := l.Graph.CheckLabBudget(); err != nil {
		fmt.Fprintf(app.Err, "labctl: warning: %v; 'labctl up' refuses to deploy it\n", err)
	}
	m, err := clabernetes.BuildManifests(l, kube.Namespace)
	if err != nil {
		return err
	}
	return m.WriteYAML(app.Out)
}

// clabFits checks that a containerlab lab fits this machine (by the
// per-kind estimate: memory refuses unless forced, CPU warns) and each
// switch's port budget, which nothing overrides.
func clabFits(l *runtime.Lab, force bool) ([]string, error) {
	est := l.Graph.Estimate()
	mem, err := fabric.MemAvailableMiB()
	if err != nil {
		return nil, err
	}
	warnings, err := fabric.CheckCapacity(est, mem, goruntime.NumCPU(), force)
	for i, w := range warnings {
		warnings[i] = fmt.Sprintf("lab %s (%d containers): %s", l.Name, len(l.Graph.Nodes), w)
	}
	if err != nil {
		return warnings, fmt.Errorf("lab %s (%d containers): %w", l.Name, len(l.Graph.Nodes), err)
	}
	return warnings, l.Graph.CheckLabBudget()
}

// writeStatus prints lab states as a table or JSON.
func writeStatus(app *App, format string, sts []*runtime.Status) error {
	if format == "json" {
		return writeJSON(app.Out, sts[0])
	}
	return writeStatusTable(app, sts)
}

// writeStatusList is status without a lab: in JSON always an object
// holding every lab's status, so that a script reads one shape whether
// none, one or many labs are up ({"schema_version": 1, "labs": [...]}).
func writeStatusList(app *App, format string, sts []*runtime.Status) error {
	if format == "json" {
		if sts == nil {
			sts = []*runtime.Status{}
		}
		return writeJSON(app.Out, map[string]any{"schema_version": runtime.StateSchemaVersion, "labs": sts})
	}
	return writeStatusTable(app, sts)
}

func writeStatusTable(app *App, sts []*runtime.Status) error {
	if len(sts) == 0 {
		fmt.Fprintln(app.Out, "no labs: bring one up with 'labctl up <lab>'")
		return nil
	}
	tw := tabwriter.NewWriter(app.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LAB\tRUNTIME\tNOS\tSTATE\tNODES\tUPDATED")
	var errs []string
	for _, s := range sts {
		running := 0
		for _, n := range s.Nodes {
			if n.State == runtime.NodeRunning {
				running++
			}
		}
		// No nodes recorded (never up, unreadable, an up that failed
		// before deploying): "0/0 running" would read as a count.
		nodes := "-"
		if len(s.Nodes) > 0 {
			nodes = fmt.Sprintf("%d/%d running", running, len(s.Nodes))
		}
		updated := "-"
		if !s.Updated.IsZero() {
			updated = s.Updated.UTC().Format("2006-01-02 15:04:05Z")
		}
		rt, nos := s.Runtime, s.NOS
		if rt == "" {
			rt = "-"
		}
		if nos == "" {
			nos = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Lab, rt, nos, s.State, nodes, updated)
		if s.Error != "" && s.State != runtime.StateUnreadable { // its error ends the command
			errs = append(errs, fmt.Sprintf("%s: error: %s", s.Lab, s.Error))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range errs {
		fmt.Fprintln(app.Out, e)
	}
	return nil
}

// labDir is topologies/<name> under the work directory.
func labDir(app *App, name string) string { return filepath.Join(app.TopologiesDir(), name) }

// upKept names the config files up kept as the user edited them: one by
// its path, several in one line by their switches' ranges (a lab of 320
// switches whose every config was edited got a line each).
func upKept(kept []string) string {
	if len(kept) == 1 {
		return kept[0] + " as you edited it"
	}
	var devs []string
	dirs := map[string]bool{}
	for _, p := range kept {
		devs = append(devs, configset.DeviceName(p))
		dirs[filepath.Dir(p)] = true
	}
	devs = slices.Compact(slices.Sorted(slices.Values(devs)))
	in := ""
	if len(dirs) == 1 {
		in = " in " + filepath.Dir(kept[0])
	}
	return fmt.Sprintf("the configs of %s%s as you edited them (%s)", plural.N(len(devs), "switch"), in, qos.DeviceRanges(devs, 0))
}
