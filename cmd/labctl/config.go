package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/cmd/labctl/internal/startheap"
	"github.com/labctl/labctl/orchestrator/configset"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nos"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
)

func newConfigCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Render, lint and diff the vendor QoS configs of a lab",
		Long: `config works on a lab's vendor QoS configs (topologies/<lab>/configs/):
render writes them from the lab's QoS intent, lint checks them (or any SONiC
config_db JSON or EOS config files) against lossless-RoCE rules, diff
compares two config sets in QoS terms, and show prints what a switch does
with each traffic class.`,
	}
	cmd.AddCommand(newConfigRenderCmd(app), newConfigLintCmd(app), newConfigDiffCmd(app), newConfigShowCmd(app))
	return cmd
}

// onOffFlag parses an on|off flag value; "" means not given.
func cfgOnOffFlag(name, v string) (*bool, error) {
	switch v {
	case "":
		return nil, nil
	case "on":
		t := true
		return &t, nil
	case "off":
		f := false
		return &f, nil
	}
	return nil, exitcode.Usagef("--%s %q: use on or off", name, v)
}

// cfgLabQoS resolves a lab's graph, QoS intent and devices; ecn and pfc
// are the --ecn/--pfc values ("" keeps the lab's profile), checked before
// the lab is resolved.
func cfgLabQoS(app *App, nameOrPath, nosName, ecn, pfc string) (*fabric.Graph, qos.Intent, []qos.Device, *lab.Spec, error) {
	ecnOn, err := cfgOnOffFlag("ecn", ecn)
	if err != nil {
		return nil, qos.Intent{}, nil, nil, err
	}
	pfcOn, err := cfgOnOffFlag("pfc", pfc)
	if err != nil {
		return nil, qos.Intent{}, nil, nil, err
	}
	g, spec, err := labGraph(app, nameOrPath, nosName)
	if err != nil {
		return nil, qos.Intent{}, nil, nil, err
	}
	l := &runtime.Lab{Name: spec.Name, Spec: spec, Dir: labDir(app, spec.Name)}
	if err := l.NoVendorConfigs("render, lint or show"); err != nil {
		return nil, qos.Intent{}, nil, nil, err
	}
	in, err := qos.FromSpec(spec.QoS)
	if err != nil {
		return nil, qos.Intent{}, nil, nil, fmt.Errorf("lab %s (%s): %w", spec.Name, spec.Source, err)
	}
	if ecnOn != nil {
		in = in.WithECN(*ecnOn)
	}
	if pfcOn != nil {
		in = in.WithPFC(*pfcOn)
	}
	return g, in, qos.DevicesFromGraph(g), spec, nil
}

func newConfigRenderCmd(app *App) *cobra.Command {
	var nosName, ecn, pfc string
	var force bool
	cmd := &cobra.Command{
		Use:   "render <lab> [--nos sonic|eos] [--ecn on|off] [--pfc on|off] [--force]",
		Short: "Write a lab's vendor QoS configs from its QoS intent",
		Long: `render applies the lab's QoS profile (and the overrides in its spec's qos
section) to every switch of its fabric and writes topologies/<lab>/configs/
<switch>.json (SONiC config_db) or <switch>.cfg (EOS CLI).

--ecn off / --pfc off write that variant instead (no ECN marking on any
queue / no PFC on any port).

Files you edited since labctl wrote them (or dropped in yourself) are not
overwritten: render stops and names them (exit 2). --force overwrites them.`,
		Example: `  labctl config render 64gpu
  labctl config render 16gpu --nos eos --ecn off`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			g, in, devs, _, err := cfgLabQoS(app, args[0], nosName, ecn, pfc)
			if err != nil {
				return err
			}
			plug, err := nos.Lookup(g.NOS)
			if err != nil {
				return err
			}
			cfgs, err := qos.ApplyAll(in, devs)
			if err != nil {
				return fmt.Errorf("lab %s: %w", g.Name, err)
			}
			files := map[string][]byte{}
			for _, dc := range cfgs {
				dc.NOS = plug.Name()
				data, err := plug.RenderQoS(dc)
				if err != nil {
					return err
				}
				files[dc.Device+plug.ConfigExt()] = data
			}
			// The configs folder is the lab's, and holds one NOS's files:
			// no other NOS while the lab runs the recorded one, and none
			// next to another NOS's edited files unless forced.
			st, err := runtime.ReadState(labDir(app, g.Name))
			if err != nil {
				return err
			}
			if err := runtime.RefuseNOSChange(st, plug.Name()); err != nil {
				return err
			}
			dir := filepath.Join(app.TopologiesDir(), g.Name, "configs")
			if !force {
				if err := configset.CheckNOS(dir, plug.Name(), true); err != nil {
					return fmt.Errorf("lab %s: %w", g.Name, err)
				}
			}
			res, err := configset.Write(dir, files, force)
			if err != nil {
				return err
			}
			removed, err := configset.PruneOtherNOS(dir, plug.Name(), force)
			if err != nil {
				return err
			}

			if format == "json" {
				return writeJSON(app.Out, map[string]any{"schema_version": 1, "lab": g.Name, "nos": plug.Name(), "dir": dir, "profile": in.Profile,
					"ecn": in.ECN.Enabled, "pfc": in.PFC.Enabled, "result": res, "removed": append([]string{}, removed...)})
			}
			fmt.Fprintf(app.Out, "lab %s: %d %s configs in %s (profile %s, ecn %s, pfc %s): %d written, %d unchanged\n",
				g.Name, len(files), plug.Name(), dir, in.Profile, cfgOnOff(in.ECN.Enabled), cfgOnOff(in.PFC.Enabled), len(res.Written), len(res.Unchanged))
			if len(res.Overwritten) > 0 {
				fmt.Fprintf(app.Out, "overwrote edited files (--force): %s\n", strings.Join(res.Overwritten, ", "))
			}
			if len(removed) > 0 {
				fmt.Fprintf(app.Out, "removed %s of another NOS, so that %s holds %s ones only: %s\n", plural.N(len(removed), "config"), dir, plug.Name(), strings.Join(removed, ", "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&nosName, "nos", "", "switch NOS: sonic or eos (default: the lab's)")
	cmd.Flags().StringVar(&ecn, "ecn", "", "on|off: ECN marking (default: the lab's profile)")
	cmd.Flags().StringVar(&pfc, "pfc", "", "on|off: PFC (default: the lab's profile)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite config files edited since labctl wrote them")
	return cmd
}

func cfgOnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// hugePagesSwitches is the lab size from which config lint and `labctl
// up` ready huge pages for their heap (startheap.HugePages): a switch's
// parse and lint, or its rendering, allocate half a MiB to a MiB, and
// below some 10 MiB the collection that readying takes, and the 2 MiB
// zeroed at each first touch, cost more than the page faults they save.
// Readied always, lint took (CPU, interleaved runs) 137 against 174 ms on
// 1024gpu (48 switches) but 54.5 against 49.9 ms on 64gpu (3), on a VM
// whose page faults cost 10.5 µs; `up` took 278 against 585 ms on 1024gpu
// there, the same on 16gpu. On 2026-12-06's VM (a page fault 1.2 µs) `up`
// of the bench incast's one switch took 11.0 against 8.4 ms readied (10
// pairs, all slower), of 16gpu (2 switches) 12.7 against 11.4 (6 pairs),
// of 64gpu 20.3 against 18.8 (5 of 6 slower).
const hugePagesSwitches = 16

// wantsHugePages says whether lint or up on a lab of switches switches
// readies huge pages for its heap.
func wantsHugePages(switches int) bool { return switches >= hugePagesSwitches }

// cfgIsLabArg says whether a lint argument names a lab rather than config
// files: a spec file (.yaml/.yml) or something that is neither a path on
// disk nor named as a config file (.json, .cfg).
func cfgIsLabArg(arg string) bool {
	switch filepath.Ext(arg) {
	case ".yaml", ".yml":
		return true
	case ".json", ".cfg":
		// A config file's extension: one that does not exist is a
		// missing file, not an unknown lab.
		return false
	}
	_, err := os.Stat(arg)
	return err != nil
}

func newConfigLintCmd(app *App) *cobra.Command {
	var nosName, ecn, pfc, roceFlag string
	var cnpDSCP int
	cmd := &cobra.Command{
		Use:   "lint <lab> [--ecn on|off] [--pfc on|off] | [--nos sonic|eos] <file|dir>...",
		Short: "Check vendor QoS configs against lossless-RoCE rules",
		Long: `lint checks a lab's configs (topologies/<lab>/configs/, against the lab's
QoS intent and fabric, so both ends of each link are compared) or any config
files: SONiC config_db JSON (.json; QoS and buffer tables may be separate
files: leaf1.json and leaf1.buffers.json are merged as device leaf1) and EOS
configuration (.cfg). --nos sets the NOS for other extensions.

For a lab rendered as a variant (config render --ecn off / --pfc off), pass
the same --ecn / --pfc so that lint checks against that variant.

Without a lab, the lossless DSCPs are inferred from pfc_enable and the maps;
--roce-dscp checks the DSCP your RoCE traffic uses.

Rules (stable ids):
` + cfgRuleHelp() + `
Exit 1 when any finding is an error.`,
		Example: `  labctl config lint 64gpu
  labctl config lint --roce-dscp 26 config_db.json buffers.json
  labctl config lint -o json running-config.cfg`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			// --roce-dscp has no default: without it, the lossless DSCPs
			// are inferred from the files (a config whose RoCE is on DSCP
			// 3 and 4, as SONiC's Azure ones, is not wrong for lacking 26).
			roceDSCP := -1
			if cmd.Flags().Changed("roce-dscp") {
				if roceDSCP, err = strconv.Atoi(roceFlag); err != nil {
					roceDSCP = -1
				}
			}
			for _, d := range []struct {
				flag, text string
				v          int
			}{{"roce-dscp", roceFlag, roceDSCP}, {"cnp-dscp", strconv.Itoa(cnpDSCP), cnpDSCP}} {
				if cmd.Flags().Changed(d.flag) && (d.v < 0 || d.v > 63) {
					return exitcode.Usagef("--%s %s is not a DSCP (fix: use 0 to 63, e.g. 26 for RoCE and 48 for CNPs)", d.flag, d.text)
				}
			}
			var cfgs []qos.DeviceConfig
			var opt qos.LintOptions
			if len(args) == 1 && cfgIsLabArg(args[0]) {
				if cmd.Flags().Changed("roce-dscp") || cmd.Flags().Changed("cnp-dscp") {
					return exitcode.Usagef("--roce-dscp and --cnp-dscp apply to config files, not to a lab (fix: leave them out: a lab is checked at its spec's qos.roce_dscp and qos.cnp_dscp)")
				}
				g, in, devs, spec, err := cfgLabQoS(app, args[0], nosName, ecn, pfc)
				if err != nil {
					return err
				}
				dir := filepath.Join(app.TopologiesDir(), g.Name, "configs")
				if wantsHugePages(len(devs)) {
					startheap.HugePages()
				}
				cfgs, err = configset.LoadLab(g.Name, dir, g.NOS, devs, in)
				if err != nil {
					return err
				}
				opt = runtime.LintOptions(g, in, spec)
			} else {
				if ecn != "" || pfc != "" {
					return exitcode.Usagef("--ecn and --pfc apply to a lab (labctl config lint <lab>), not to config files")
				}
				cfgs, err = configset.Load(args, nosName)
				if err != nil {
					return err
				}
				if len(cfgs) == 0 {
					return exitcode.Usagef("no config files found in %s (want .json for SONiC or .cfg for EOS, or pass --nos)", strings.Join(args, " "))
				}
				if cmd.Flags().Changed("roce-dscp") {
					opt.RoCEDSCP = &roceDSCP
				}
				if cmd.Flags().Changed("cnp-dscp") {
					opt.CNPDSCP = &cnpDSCP
				}
			}
			fs := qos.Lint(cfgs, opt)
			if format == "json" {
				if fs == nil {
					fs = []qos.Finding{}
				}
				if err := writeJSON(app.Out, map[string]any{"schema_version": 1, "devices": len(cfgs), "findings": fs}); err != nil {
					return err
				}
			} else {
				cfgWriteFindings(app, fs, len(cfgs))
			}
			if qos.HasErrors(fs) {
				return exitcode.Failedf("lint found errors in the QoS configs (see the findings above)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&nosName, "nos", "", "NOS of the files: sonic or eos (default: by extension, .json sonic, .cfg eos)")
	cmd.Flags().StringVar(&ecn, "ecn", "", "on|off: lint a lab against its ECN-on/off variant")
	cmd.Flags().StringVar(&pfc, "pfc", "", "on|off: lint a lab against its PFC-on/off variant")
	cmd.Flags().StringVar(&roceFlag, "roce-dscp", "", "`DSCP` of the RoCE traffic (26 is usual), checked to be lossless on every data port (files only; without it the lossless DSCPs are inferred; a lab uses its intent)")
	cmd.Flags().IntVar(&cnpDSCP, "cnp-dscp", 48, "DSCP of CNPs (files only)")
	return cmd
}

func cfgRuleHelp() string {
	var b strings.Builder
	for _, r := range qos.Rules() {
		fmt.Fprintf(&b, "  %s %-22s %-7s %s\n", r.ID, r.Name, r.Severity, r.Summary)
	}
	return b.String()
}

// cfgWriteFindings prints lint's findings as text: those of one cause on
// several switches as one entry (qos.GroupDevices) that says on its line
// how many switches and which (their ranges, and their ports where those
// differ: a line of its own names them all past cfgLintRanges ranges); the
// counts are of findings, a switch each, as -o json lists them.
// cfgLintRanges is how many ranges of switches a finding's line of
// config lint names (qos.DeviceGroup.Place).
const cfgLintRanges = 6

func cfgWriteFindings(app *App, fs []qos.Finding, devices int) {
	tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
	counts := map[qos.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	for _, g := range qos.GroupDevices(fs) {
		f := g.Finding
		where := g.Place(cfgLintRanges)
		if where == "" {
			where = "-"
		}
		if f.Where != "" && !strings.Contains(f.Message, f.Where) {
			where += " (" + f.Where + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Severity, f.Rule, where, f.Message)
		if all := g.Switches(0); all != g.Switches(cfgLintRanges) {
			fmt.Fprintf(tw, "\t\t\tswitches: %s\n", all)
		}
		if f.Fix != "" && f.Severity != qos.SevInfo {
			fmt.Fprintf(tw, "\t\t\tfix: %s\n", f.Fix)
		}
	}
	tw.Flush()
	fmt.Fprintf(app.Out, "%s: %s, %s, %d info\n", plural.N(devices, "device"), plural.N(counts[qos.SevError], "error"), plural.N(counts[qos.SevWarning], "warning"), counts[qos.SevInfo])
}

// cfgDiffSchemaVersion is config diff -o json's: 2 writes a side that
// lacks the field (or the device) as null, where 1 wrote "".
const cfgDiffSchemaVersion = 2

// cfgDiffEntry is one difference in config diff -o json: qos.Difference
// with a missing side null, as the text shows it "-". "" would read as a
// value the field has; records and regress keep qos.Difference's "" under
// their own schema version.
type cfgDiffEntry struct {
	Device string   `json:"device"`
	Port   string   `json:"port,omitempty"`
	Ports  []string `json:"ports,omitempty"`
	Field  string   `json:"field"`
	A      *string  `json:"a"`
	B      *string  `json:"b"`
}

func cfgDiffJSON(ds []qos.Difference) []cfgDiffEntry {
	side := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	out := []cfgDiffEntry{}
	for _, d := range ds {
		out = append(out, cfgDiffEntry{Device: d.Device, Port: d.Port, Ports: d.Ports, Field: d.Field, A: side(d.A), B: side(d.B)})
	}
	return out
}

func newConfigDiffCmd(app *App) *cobra.Command {
	var nosName, runRef string
	cmd := &cobra.Command{
		Use:   "diff <a> <b> | --run <run-id|latest> <variant> [<variant>]",
		Short: "Compare two config sets in QoS terms",
		Long: `diff parses two config sets (each a directory or a file; SONiC .json, EOS
.cfg, or --nos) and lists the QoS differences device by device: DSCP
mappings, PFC priorities, ECN thresholds, schedulers, buffers, watchdog.
A SONiC and an EOS set can be compared: ports are matched by front-panel
position (EOS Ethernet n is SONiC Ethernet 4(n-1), as labctl's labs wire
them) and shown by the first set's names. Exit 1 when they differ, 0 when
they are equal.

A run of a scenario that sweeps QoS values keeps each variant's switch
configs in results/<run-id>/configs/<variant>/: the lab's configs with the
point's values on top. --run names the run, and then one variant compares
with the lab's configs (topologies/<lab>/configs as they are now) and two
variants with each other; variants are named as the run names them.

-o json has schema_version 2: a side that lacks a field, or the whole
device, is null there (the text shows -). schema_version 1 wrote "" for
it; nothing else changed.`,
		Example: `  labctl config diff topologies/64gpu/configs backup/configs
  labctl config diff leaf1.json leaf1-running.json
  labctl config diff --run latest ecn=on,pfc=on,qos.ecn.kmin_kb=400
  labctl config diff --run latest ecn=on,pfc=on,qos.ecn.kmin_kb=100 ecn=on,pfc=on,qos.ecn.kmin_kb=400`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("run") {
				if len(args) < 1 || len(args) > 2 {
					return exitcode.Usagef("config diff --run takes one variant (against the lab's configs) or two, got %s (fix: name the variants as the run names them, e.g. labctl config diff --run latest ecn=on,pfc=on,qos.ecn.kmin_kb=400)", plural.N(len(args), "argument"))
				}
				return nil
			}
			if len(args) != 2 {
				return exitcode.Usagef("config diff takes two config sets (files or folders), or --run <run> and variants; got %s (fix: labctl config diff topologies/64gpu/configs backup/configs)", plural.N(len(args), "argument"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			pathA, pathB := args[0], ""
			labelA, labelB := args[0], ""
			if len(args) == 2 {
				pathB, labelB = args[1], args[1]
			}
			if cmd.Flags().Changed("run") {
				if pathA, labelA, pathB, labelB, err = cfgRunPaths(app, runRef, args); err != nil {
					return err
				}
			}
			a, err := configset.Load([]string{pathA}, nosName)
			if err != nil {
				return err
			}
			b, err := configset.Load([]string{pathB}, nosName)
			if err != nil {
				return err
			}
			// Two single files are one device each, whatever their names.
			if len(a) == 1 && len(b) == 1 {
				b[0].Device = a[0].Device
			}
			matched := qos.AlignPorts(a, b)
			ds := qos.Diff(a, b)
			if format == "json" {
				out := map[string]any{"schema_version": cfgDiffSchemaVersion, "a": labelA, "b": labelB, "differences": cfgDiffJSON(ds)}
				if matched != "" {
					out["ports_matched"] = matched
				}
				if err := writeJSON(app.Out, out); err != nil {
					return err
				}
			} else {
				if matched != "" {
					fmt.Fprintf(app.Out, "%s\n", matched)
				}
				tw := tabwriter.NewWriter(app.Out, 0, 4, 2, ' ', 0)
				fmt.Fprintf(tw, "DEVICE\tPORTS\tFIELD\t%s\t%s\n", labelA, labelB)
				changes := 0
				for _, d := range ds {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Device, cfgDash(d.Port), d.Field, cfgDash(d.A), cfgDash(d.B))
					changes += max(1, len(d.Ports))
				}
				tw.Flush()
				fmt.Fprintf(app.Out, "%s (%d port and device fields)\n", plural.N(len(ds), "difference"), changes)
			}
			if len(ds) > 0 {
				return exitcode.Failedf("%s and %s differ in %s", labelA, labelB, plural.N(len(ds), "QoS field"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&nosName, "nos", "", "NOS of the files: sonic or eos (default: by extension)")
	cmd.Flags().StringVar(&runRef, "run", "", "a run of a QoS sweep (run id, prefix or latest): compare its variants' configs")
	return cmd
}

// cfgRunPaths resolves config diff --run: the folders of the run's
// variants, and the lab's configs when one variant is given.
func cfgRunPaths(app *App, ref string, variants []string) (pathA, labelA, pathB, labelB string, err error) {
	store, run, err := openRun(app, ref, results.Filter{}, false) // its variants' config folders only
	if err != nil {
		return "", "", "", "", err
	}
	defer store.Close()
	var kept []string
	folder := func(name string) (string, error) {
		for _, v := range run.Variants {
			if v.Configs != nil && v.Configs.Dir != "" {
				if v.Name == name {
					return filepath.Join(store.RunDir(run.RunID), filepath.FromSlash(v.Configs.Dir)), nil
				}
				if !slices.Contains(kept, v.Name) {
					kept = append(kept, v.Name)
				}
			}
		}
		if len(kept) == 0 {
			return "", exitcode.Usagef("run %s (scenario %s) sweeps no QoS value, so it kept no configs per variant (fix: compare config folders by path, or name a run of a QoS sweep)", run.RunID, run.Scenario)
		}
		return "", exitcode.Usagef("run %s has no variant %q with configs (fix: use one of %s)", run.RunID, name, strings.Join(kept, "; "))
	}
	if len(variants) == 1 {
		pathA, labelA = filepath.Join(app.TopologiesDir(), run.Lab, "configs"), "lab "+run.Lab
		if d, derr := runtime.ConfigDigest(&runtime.Lab{Name: run.Lab, Dir: filepath.Join(app.TopologiesDir(), run.Lab)}); derr == nil && run.ConfigDigest != "" && d != run.ConfigDigest {
			fmt.Fprintf(app.Err, "note: the lab's configs changed since run %s, so the differences include those changes\n", run.RunID)
		}
		if pathB, err = folder(variants[0]); err != nil {
			return "", "", "", "", err
		}
		return pathA, labelA, pathB, variants[0], nil
	}
	if pathA, err = folder(variants[0]); err != nil {
		return "", "", "", "", err
	}
	if pathB, err = folder(variants[1]); err != nil {
		return "", "", "", "", err
	}
	return pathA, variants[0], pathB, variants[1], nil
}

func cfgDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newConfigShowCmd(app *App) *cobra.Command {
	var nosName, ecn, pfc string
	var all bool
	cmd := &cobra.Command{
		Use:   "show <lab> <switch> [<port>]",
		Short: "Show what a switch does with each traffic class, from its configs",
		Long: `show resolves a switch's config files (topologies/<lab>/configs/) as its NOS
does, defaults included, and prints per traffic class and group of ports
what the switch does: the DSCPs classified into the class, whether PFC is on
and the class lossless (a PG profile with headroom), the PG's headroom and
XOFF point, the egress queue and the queue its pauses stop, the scheduler,
ECN marking, WRED drop and the PFC watchdog: what show pfc priority, show
buffer configuration and show queue wred would answer. The classes RoCE
uses (the RoCE and CNP DSCPs' and every PFC priority) are shown; --all shows
all eight. A port name shows that port alone. Then the defaults the NOS
applies where the config is silent, and references that name nothing.
This is the model lint, the simulator and regress read.`,
		Example: `  labctl config show 64gpu leaf1
  labctl config show 64gpu leaf1 Ethernet0 --all
  labctl config show 16gpu leaf1 -o json`,
		Args:              argsBetween(2, 3),
		ValidArgsFunction: completeLabs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := app.OutputFormat("text", "text", "json")
			if err != nil {
				return err
			}
			g, in, devs, _, err := cfgLabQoS(app, args[0], nosName, ecn, pfc)
			if err != nil {
				return err
			}
			dir := filepath.Join(app.TopologiesDir(), g.Name, "configs")
			cfgs, err := configset.LoadLab(g.Name, dir, g.NOS, devs, in)
			if err != nil {
				return err
			}
			var dc *qos.DeviceConfig
			var names []string
			for i := range cfgs {
				names = append(names, cfgs[i].Device)
				if cfgs[i].Device == args[1] {
					dc = &cfgs[i]
				}
			}
			if dc == nil {
				return exitcode.Usagef("lab %s has no switch %q with a config in %s (fix: use one of %s)", g.Name, args[1], dir, strings.Join(names, ", "))
			}
			port := ""
			if len(args) == 3 {
				port = args[2]
				if dc.Port(port) == nil {
					var ports []string
					for _, p := range dc.Ports {
						ports = append(ports, p.Name)
					}
					return exitcode.Usagef("switch %s has no port %q (fix: use one of %s)", dc.Device, port, qos.PortRanges(ports, ports))
				}
			}
			var classes []int
			if !all {
				classes = qos.ClassesOf(dc, in.RoCEDSCP, in.CNPDSCP)
			}
			rows := qos.ClassTable(dc, port, classes)
			if format == "json" {
				return writeJSON(app.Out, map[string]any{"schema_version": 1, "lab": g.Name, "device": dc.Device, "nos": dc.NOS,
					"classes": rows, "pools": dc.Pools, "watchdog_poll_ms": dc.WatchdogPollMs,
					"defaults": orEmpty(dc.Defaults), "unresolved": orEmpty(dc.Unresolved), "not_simulated": orEmpty(dc.Fields)})
			}
			if err := qos.WriteClassTable(app.Out, rows); err != nil {
				return err
			}
			fmt.Fprintln(app.Out)
			for _, pl := range dc.Pools {
				hr := ""
				if pl.HeadroomShared() {
					hr = fmt.Sprintf(", shared headroom %d B", *pl.HeadroomPoolBytes)
				}
				fmt.Fprintf(app.Out, "pool %s: %s %s, %d B%s\n", pl.Name, pl.Type, pl.Mode, pl.SizeBytes, hr)
			}
			var all []string
			for _, p := range dc.Ports {
				all = append(all, p.Name)
			}
			for _, d := range dc.Defaults {
				where := ""
				if len(d.Ports) > 0 {
					where = " on " + qos.PortRanges(d.Ports, all)
				}
				fmt.Fprintf(app.Out, "default: %s%s: %s (%s)\n", d.Field, where, d.Value, d.Source)
			}
			for _, u := range dc.Unresolved {
				fmt.Fprintf(app.Out, "unresolved: %s %s names %s, not in %s: %s\n", u.Where, u.Field, u.Ref, u.Table, u.Effect)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&nosName, "nos", "", "switch NOS: sonic or eos (default: the lab's)")
	cmd.Flags().StringVar(&ecn, "ecn", "", "on|off: the lab's ECN-on/off variant (the RoCE classes and defaults follow it)")
	cmd.Flags().StringVar(&pfc, "pfc", "", "on|off: the lab's PFC-on/off variant")
	cmd.Flags().BoolVar(&all, "all", false, "show all eight traffic classes, not only those RoCE uses")
	return cmd
}

// orEmpty gives JSON an empty list instead of null.
func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}
