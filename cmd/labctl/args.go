package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/plural"
)

// Positional-argument rules. cobra's own (cobra.ExactArgs and the like)
// say "accepts 1 arg(s), received 0" and nothing more; these say how many
// the command takes, what it got, and its usage line, as a usage error
// (exit 2).

func noArgs(cmd *cobra.Command, args []string) error { return checkArgs(cmd, args, 0, 0) }

func exactArgs(n int) cobra.PositionalArgs { return argsBetween(n, n) }

func maxArgs(n int) cobra.PositionalArgs { return argsBetween(0, n) }

func minArgs(n int) cobra.PositionalArgs { return argsBetween(n, -1) }

// argsBetween takes lo to hi arguments; hi < 0 is no upper bound.
func argsBetween(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error { return checkArgs(cmd, args, lo, hi) }
}

func checkArgs(cmd *cobra.Command, args []string, lo, hi int) error {
	n := len(args)
	if n >= lo && (hi < 0 || n <= hi) {
		return nil
	}
	var want string
	switch {
	case lo == hi && lo == 0:
		want = "takes no arguments"
	case lo == hi:
		want = "takes " + plural.N(lo, "argument")
	case hi < 0:
		want = "takes at least " + plural.N(lo, "argument")
	case lo == 0:
		want = "takes at most " + plural.N(hi, "argument")
	case hi == lo+1:
		want = fmt.Sprintf("takes %d or %d arguments", lo, hi)
	default:
		want = fmt.Sprintf("takes %d to %d arguments", lo, hi)
	}
	got := "got none"
	if n > 0 {
		quoted := make([]string, n)
		for i, a := range args {
			quoted[i] = fmt.Sprintf("%q", a)
		}
		got = fmt.Sprintf("got %d: %s", n, strings.Join(quoted, " "))
	}
	// run prints "labctl: " before the error.
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return exitcode.Usagef("%s %s, %s (usage: %s; fix: see '%s --help')", name, want, got, cmd.UseLine(), cmd.CommandPath())
}

// groupCommands makes every command group (a command with subcommands and
// nothing to run of its own, such as "config" or "results") strict: the
// group's word alone prints its help (exit 0); any other word is an
// unknown subcommand, a usage error naming the known ones (cobra would
// print the help and exit 0, so a typo in a script passed silently).
func groupCommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		groupCommands(sub)
	}
	if !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownSubcommand(cmd, args[0])
	}
}

// unknownSubcommand is the error for word under group: the known
// subcommands, and the closest one when the word looks like a typo.
func unknownSubcommand(group *cobra.Command, word string) error {
	var known []string
	for _, sub := range group.Commands() {
		if sub.IsAvailableCommand() {
			known = append(known, sub.Name())
		}
	}
	slices.Sort(known)
	fix := fmt.Sprintf("use one of %s, see '%s --help'", strings.Join(known, ", "), group.CommandPath())
	if group.SuggestionsMinimumDistance <= 0 {
		group.SuggestionsMinimumDistance = 2 // cobra's default, set only where cobra suggests itself
	}
	if s := group.SuggestionsFor(word); len(s) > 0 {
		fix = fmt.Sprintf("did you mean %s? use one of %s", strings.Join(s, " or "), strings.Join(known, ", "))
	}
	return exitcode.Usagef("unknown command %q for %q (fix: %s)", word, group.CommandPath(), fix)
}

// newHelpCmd replaces cobra's help command, which prints the root's help
// and exits 0 for a topic it does not know ("labctl help bogus").
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "help prints the help of any command: labctl help config show.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			group, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range group.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, sub.Name()+"\t"+sub.Short)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return unknownSubcommand(cmd, rest[0])
			}
			return cmd.Help()
		},
	}
}
