// Package docblock keeps generated parts of a Markdown document in step
// with the code that produces them. A generated part sits between two
// HTML comments that Markdown renderers hide:
//
//	<!-- generated:NAME -->
//	...content written by a test...
//	<!-- end generated:NAME -->
//
// A test computes each block's content, then calls Sync: with update set
// it rewrites the blocks in place, otherwise it reports every block whose
// content in the document differs from what the code produces now, so a
// page of figures cannot drift from the model that computes them.
package docblock

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/plural"
)

func begin(name string) string { return "<!-- generated:" + name + " -->" }
func end(name string) string   { return "<!-- end generated:" + name + " -->" }

// Stale is a block whose content in the document differs from the
// generated one.
type Stale struct {
	Name      string
	Line      int // 1-based line of the block's opening comment
	Have      string
	Generated string
}

// Sync compares (update false) or rewrites (update true) the named blocks
// of the Markdown file at path. Every name must appear in the file once,
// with its closing comment after it; a missing or unclosed block is an
// error that says what to add. Content is compared after trimming
// surrounding blank lines.
func Sync(path string, blocks map[string]string, update bool) ([]Stale, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	type span struct{ open, close int }
	spans := map[string]span{}
	for name := range blocks {
		s := span{-1, -1}
		for i, l := range lines {
			switch strings.TrimSpace(l) {
			case begin(name):
				if s.open >= 0 {
					return nil, fmt.Errorf("%s:%d: block %q opens twice: remove one %s", path, i+1, name, begin(name))
				}
				s.open = i
			case end(name):
				if s.open >= 0 && s.close < 0 {
					s.close = i
				}
			}
		}
		if s.open < 0 {
			return nil, fmt.Errorf("%s: no block %q: add the lines %s and %s where it belongs", path, name, begin(name), end(name))
		}
		if s.close < 0 {
			return nil, fmt.Errorf("%s:%d: block %q is not closed: add a line %s after it", path, s.open+1, name, end(name))
		}
		spans[name] = s
	}
	var stale []Stale
	for name, content := range blocks {
		s := spans[name]
		have := strings.Trim(strings.Join(lines[s.open+1:s.close], "\n"), "\n")
		gen := strings.Trim(content, "\n")
		if have != gen {
			stale = append(stale, Stale{Name: name, Line: s.open + 1, Have: have, Generated: gen})
		}
	}
	if !update || len(stale) == 0 {
		return stale, nil
	}
	// Rewrite from the last block up so earlier line numbers stay valid.
	for len(stale) > 0 {
		last := 0
		for i := range stale {
			if spans[stale[i].Name].open > spans[stale[last].Name].open {
				last = i
			}
		}
		b := stale[last]
		s := spans[b.Name]
		repl := append([]string{lines[s.open], ""}, strings.Split(b.Generated, "\n")...)
		repl = append(repl, "", lines[s.close])
		lines = append(lines[:s.open], append(repl, lines[s.close+1:]...)...)
		stale = append(stale[:last], stale[last+1:]...)
	}
	return nil, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// Check is Sync for tests: it fails t for every stale block, showing the
// first differing line and the command that regenerates the page.
func Check(t testing.TB, path string, blocks map[string]string, update bool, regenerate string) {
	t.Helper()
	stale, err := Sync(path, blocks, update)
	if err != nil {
		t.Fatal(err)
	}
	if update {
		t.Logf("rewrote %s of %s; review its diff", plural.N(len(blocks), "generated block"), path)
		return
	}
	for _, s := range stale {
		have, gen := strings.Split(s.Have, "\n"), strings.Split(s.Generated, "\n")
		i := 0
		for i < len(have) && i < len(gen) && have[i] == gen[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(nothing)"
		}
		t.Errorf("%s:%d: block %q differs from what the code computes now, from its line %d:\n  page: %s\n  now:  %s\nIf the model changed on purpose, regenerate the page with\n  %s\nand review its diff.",
			path, s.Line, s.Name, i+1, line(have), line(gen), regenerate)
	}
}
