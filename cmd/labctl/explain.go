package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/labs"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/scenario"
	"github.com/labctl/labctl/orchestrator/specdoc"
	"github.com/labctl/labctl/orchestrator/suggest"
	"github.com/labctl/labctl/scenarios"
)

// specKind is a kind of YAML spec labctl reads, documented from its Go
// type and key table.
type specKind struct {
	name    string // "lab", the first part of an explain path
	title   string
	file    string // the generated reference, from the repository root
	typ     reflect.Type
	docs    specdoc.Table
	intro   string
	example func() (string, string) // an example file and its name
	// extra is a generated section after the example, or nil.
	extra func() string
}

func specKinds() []specKind {
	return []specKind{
		{
			name: "lab", title: "Lab spec reference", file: "docs/lab-spec.md",
			typ: reflect.TypeOf(lab.Spec{}), docs: lab.KeyDocs,
			intro: `A lab spec says what to build: the fabric's sizing, the switch NOS and
images, the RoCE QoS profile and its overrides, and the runtime. Every
command that takes a lab takes a catalog name (` + "`labctl labs`" + `) or the path of
a spec file like the example below. Unknown keys, wrong types and bad
values are errors naming file:line:col and the fix (exit 2). A file holds
one YAML document in UTF-8 (a leading byte-order mark is skipped); a
whole-number key takes no fraction (64.5 is an error, 64.0 is 64).

This file is generated from the code (the ` + "`yaml`" + ` tags of ` + "`lab.Spec`" + ` and the
table in ` + "`orchestrator/lab/keys.go`" + `); ` + "`labctl explain lab.<key>`" + ` prints the same.
Regenerate it with ` + "`go test ./cmd/labctl -run TestSpecReference -update`" + `.`,
			example: func() (string, string) {
				b, _ := labs.FS.ReadFile("64gpu.yaml")
				return string(b), "labs/64gpu.yaml"
			},
		},
		{
			name: "scenario", title: "Scenario spec reference", file: "docs/scenario-spec.md",
			typ: reflect.TypeOf(scenario.Spec{}), docs: scenario.KeyDocs,
			intro: `A scenario says what to measure on a lab that is up: the ECN x PFC
variants, how long traffic runs, the traffic patterns (perftest-like flows
and collectives) and the assertions that decide pass or fail. ` + "`labctl run`" + `
takes a catalog name (` + "`scenarios/`" + `) or the path of a file like the example
below. Unknown keys, wrong types and bad values are errors naming
file:line:col and the fix (exit 2); the assertion syntax is in
` + "`scenarios/README.md`" + `. A file holds one YAML document in UTF-8 (a
leading byte-order mark is skipped); a whole-number key takes no fraction.

This file is generated from the code (the ` + "`yaml`" + ` tags of ` + "`scenario.Spec`" + ` and
the table in ` + "`orchestrator/scenario/keys.go`" + `); ` + "`labctl explain scenario.<key>`" + `
prints the same. Regenerate it with
` + "`go test ./cmd/labctl -run TestSpecReference -update`" + `.`,
			example: func() (string, string) {
				b, _ := scenarios.FS.ReadFile("ecn-pfc.yaml")
				return string(b), "scenarios/ecn-pfc.yaml"
			},
			extra: scenario.SweepPathsMarkdown,
		},
	}
}

// markdown is the kind's generated reference.
func (k specKind) markdown() string {
	ex, name := k.example()
	md := specdoc.Markdown(k.title, k.intro, k.typ, k.docs, ex, name)
	if k.extra != nil {
		md += "\n" + k.extra()
	}
	return md
}

func newExplainCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "explain <lab|scenario>[.<key>]",
		Short: "Describe the keys of lab specs and scenarios",
		Long: `explain prints what a key of a lab spec or a scenario means, its type, its
default and the keys under it, as docs/lab-spec.md and docs/scenario-spec.md
list them. Keys of list items are named without an index. It prints text
only (-o text, the default).`,
		Example: `  labctl explain lab
  labctl explain lab.qos.ecn
  labctl explain scenario.traffic.senders`,
		Args: exactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var out []string
			for _, k := range specKinds() {
				out = append(out, k.name)
				for _, p := range specdoc.Paths(k.typ) {
					out = append(out, k.name+"."+p)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// Text only: the reference is prose for people, and
			// docs/*-spec.md hold the same generated as markdown. A
			// format asked for but not given must not pass as it.
			if _, err := app.OutputFormat("text", "text"); err != nil {
				return err
			}
			kindName, path, _ := strings.Cut(args[0], ".")
			var names []string
			for _, k := range specKinds() {
				names = append(names, k.name)
				if k.name != kindName {
					continue
				}
				text, ok := specdoc.Explain(k.typ, k.docs, path)
				if !ok {
					return exitcode.Usagef("%s has no key %q (fix: %s)", k.name, path, nearKeys(k, path))
				}
				if path == "" {
					fmt.Fprintf(app.Out, "%s: %s\n\n", strings.ToUpper(k.name[:1])+k.name[1:]+" spec", k.file)
				}
				_, err := fmt.Fprint(app.Out, text)
				return err
			}
			fix := fmt.Sprintf("start with %s, e.g. labctl explain lab.qos", strings.Join(names, " or "))
			if near := suggest.Nearest(kindName, names); near != "" {
				fix = fmt.Sprintf("did you mean %s? %s", strings.Replace(args[0], kindName, near, 1), fix)
			}
			return exitcode.Usagef("%q is not a kind of spec (fix: %s)", kindName, fix)
		},
	}
}

// nearKeys suggests keys for a path that names none: the key it is a
// typo of, if one is near, then the keys under its longest known parent.
func nearKeys(k specKind, path string) string {
	paths := specdoc.Paths(k.typ)
	mean := ""
	if near := suggest.Nearest(path, paths); near != "" {
		mean = "did you mean " + k.name + "." + near + "? "
	}
	parent := path
	for {
		i := strings.LastIndex(parent, ".")
		if i < 0 {
			parent = ""
			break
		}
		if parent = parent[:i]; slices.Contains(paths, parent) {
			break
		}
	}
	var near []string
	for _, p := range paths {
		rest := p
		if parent != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(p, parent+"."); !ok {
				continue
			}
		}
		if !strings.Contains(rest, ".") {
			near = append(near, k.name+"."+p)
		}
	}
	return mean + "use one of " + strings.Join(near, ", ")
}
