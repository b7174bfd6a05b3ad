package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command group, found by walking the command tree (so a group
// added later is covered): its word alone prints its help and exits 0; an
// unknown word after it exits 2 naming every known subcommand, and so does
// help with that word.
func TestGroupsRefuseUnknownSubcommands(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&App{Out: io.Discard, Err: io.Discard})
	var groups []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasAvailableSubCommands() {
			groups = append(groups, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if len(groups) < 5 { // labctl, completion, config, image, results
		t.Fatalf("found %d command groups, want at least 5", len(groups))
	}
	for _, g := range groups {
		path := strings.Fields(g.CommandPath())[1:]
		code, out, stderr := runCLI(t, path...)
		if code != 0 || !strings.Contains(out, "Available Commands:") {
			t.Errorf("labctl %s: exit %d, want 0 and its help\n%s%s", strings.Join(path, " "), code, out, stderr)
		}
		if strings.Contains(out, g.CommandPath()+" [flags]") {
			t.Errorf("labctl %s --help offers %q, but a group only runs its subcommands:\n%s", strings.Join(path, " "), g.CommandPath()+" [flags]", out)
		}
		for _, args := range [][]string{append(path, "bogus"), append([]string{"help"}, append(path, "bogus")...)} {
			code, _, stderr = runCLI(t, args...)
			if code != 2 {
				t.Errorf("labctl %s: exit %d, want 2\n%s", strings.Join(args, " "), code, stderr)
			}
			if !strings.Contains(stderr, `unknown command "bogus" for "`+g.CommandPath()+`"`) || !strings.Contains(stderr, "fix: ") {
				t.Errorf("labctl %s: stderr does not name the unknown command and a fix:\n%s", strings.Join(args, " "), stderr)
			}
			for _, sub := range g.Commands() {
				if sub.IsAvailableCommand() && !strings.Contains(stderr, sub.Name()) {
					t.Errorf("labctl %s: stderr does not name the known subcommand %s:\n%s", strings.Join(args, " "), sub.Name(), stderr)
				}
			}
		}
	}
	// A near miss is named.
	if _, _, stderr := runCLI(t, "config", "shw"); !strings.Contains(stderr, "did you mean show?") {
		t.Errorf("config shw: no suggestion:\n%s", stderr)
	}
}

// Too few or too many arguments: exit 2, how many the command takes, what
// it got and its usage line.
func TestArgumentCountErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "show"}, `config show takes 2 or 3 arguments, got none (usage: labctl config show <lab> <switch> [<port>]`},
		{[]string{"config", "show", "a", "b", "c", "d"}, `config show takes 2 or 3 arguments, got 4: "a" "b" "c" "d"`},
		{[]string{"topo"}, "topo takes 1 argument, got none (usage: labctl topo <lab>"},
		{[]string{"trace", "64gpu", "0"}, `trace takes 3 arguments, got 2: "64gpu" "0"`},
		{[]string{"plan", "a", "b"}, "plan takes at most 1 argument, got 2"},
		{[]string{"config", "lint"}, "config lint takes at least 1 argument, got none"},
		{[]string{"version", "now"}, `version takes no arguments, got 1: "now"`},
		{[]string{"results", "show"}, "results show takes 1 argument, got none (usage: labctl results show"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "fix: see 'labctl ") {
			t.Errorf("labctl %s: exit %d, want 2 and %q with a fix:\n%s", strings.Join(c.args, " "), code, c.want, stderr)
		}
		if strings.Contains(stderr, "(s)") {
			t.Errorf("labctl %s: %q", strings.Join(c.args, " "), stderr)
		}
	}
}
