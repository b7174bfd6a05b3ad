package main

// TestExercisesGuide keeps docs/exercises.md true: it runs every command of
// the guide's ```console blocks, in order, in one fresh work directory, and
// compares what labctl prints with the output pasted under the command.
//
// What is checked and what is not:
//   - ```console blocks: each "$ " line is a command, the lines up to the
//     next "$ " line are its expected output: stdout and stderr in the
//     order labctl writes them, as a terminal (or 2>&1 into a pipe) shows
//     them, since labctl gets one file for both, as from a shell. Compared
//     after normalising run ids, timestamps and wall-clock durations, which
//     differ from run to run; everything else (the simulator's figures
//     included: it is deterministic for a seed) must match exactly.
//   - ```text, ```sh, ```yaml and other blocks are not run: they hold
//     machine-dependent output (labctl doctor), file excerpts and setup
//     steps. The setup the guide asks for (an empty work directory holding
//     a copy of docs/labs and docs/scenarios) is done by the test itself.
//
// The commands a console block may hold, which is all the guide uses:
//
//	labctl ARGS...                  the labctl binary, in the work directory
//	... | head -n N | tail -n N     done in Go on the output
//	... | grep [-E] [-v] PATTERN    -E: Go regexp; plain: a fixed string
//	labctl ARGS... 2>&1 | ...       stderr through the pipe, in the order
//	                                written (required when labctl writes
//	                                to stderr in a pipeline)
//	labctl ARGS... > FILE 2>&1      both streams into FILE, in the work
//	                                directory; then show it with
//	head -n N FILE | tail -n N      (a head that closes labctl's pipe
//	                                early kills it with SIGPIPE: exit 141
//	                                in a shell, so a command whose exit
//	                                status is shown is not cut by head)
//	...; echo "exit $?"             prints "exit N", N the pipeline's status
//	...; echo "exit ${PIPESTATUS[0]}"  the same with labctl's own status (bash)
//	sed -i '/RE/d' FILE             deletes the lines matching RE
//
// Regenerate the outputs after a deliberate change to labctl:
//
//	go test ./cmd/labctl -run TestExercisesGuide -update
//
// and review the diff of docs/exercises.md like code.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// exercisesGuide is the guide's path from this package's directory.
const exercisesGuide = "../../docs/exercises.md"

func init() {
	// Other test files of the package may define -update for their golden
	// files; define it only when nobody has, so the two never clash.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files and the outputs in docs/exercises.md from real runs")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// docStep is one command of a console block and the output the guide
// shows under it.
type docStep struct {
	cmd  string   // without the "$ " prompt
	line int      // 1-based line number of the command in the guide
	want []string // expected output lines
}

type docBlock struct {
	start, end int // indexes of the opening and closing fence lines
	steps      []docStep
}

// parseConsoleBlocks finds the ```console blocks of a markdown document.
func parseConsoleBlocks(lines []string) ([]docBlock, error) {
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		lang := strings.TrimSpace(strings.TrimPrefix(fence, "```"))
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "```" {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("line %d: code block is not closed: add a line ``` after it", i+1)
		}
		if lang == "console" {
			b := docBlock{start: i, end: end}
			for j := i + 1; j < end; j++ {
				l := lines[j]
				if cmd, ok := strings.CutPrefix(l, "$ "); ok {
					b.steps = append(b.steps, docStep{cmd: cmd, line: j + 1})
					continue
				}
				if len(b.steps) == 0 {
					return nil, fmt.Errorf("line %d: a console block must start with a \"$ \" command line, found %q", j+1, l)
				}
				s := &b.steps[len(b.steps)-1]
				s.want = append(s.want, l)
			}
			if len(b.steps) == 0 {
				return nil, fmt.Errorf("line %d: console block without commands: make it a ```text block", i+1)
			}
			blocks = append(blocks, b)
		}
		i = end
	}
	return blocks, nil
}

// shellWords splits a command line into words and the operators | and ;,
// honouring single quotes, double quotes (with \" \\ \$ escapes) and
// backslashes. $? inside double quotes is kept as is for echo.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '|' || c == ';':
			flush()
			words = append(words, string(c))
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`, s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}

// docCommand is one parsed command line: a pipeline, optionally followed by
// echo "exit $?".
type docCommand struct {
	stages      [][]string
	echoStatus  bool   // ; echo "exit $?"
	firstStatus bool   // ... with ${PIPESTATUS[0]}: labctl's status, not the last filter's
	mergeStderr bool   // 2>&1: stderr goes through the pipe, interleaved with stdout as written
	outFile     string // > FILE 2>&1: both streams go to FILE
}

func parseDocCommand(line string) (docCommand, error) {
	words, err := shellWords(line)
	if err != nil {
		return docCommand{}, err
	}
	var c docCommand
	if i := indexOf(words, ";"); i >= 0 {
		tail := words[i+1:]
		switch {
		case len(tail) == 2 && tail[0] == "echo" && tail[1] == "exit $?":
			c.echoStatus = true
		case len(tail) == 2 && tail[0] == "echo" && tail[1] == "exit ${PIPESTATUS[0]}":
			c.echoStatus, c.firstStatus = true, true
		default:
			return c, fmt.Errorf(`only '; echo "exit $?"' or '; echo "exit ${PIPESTATUS[0]}"' may follow a ';', found %q`, strings.Join(tail, " "))
		}
		words = words[:i]
	}
	if i := indexOf(words, ">"); i >= 0 {
		if i+3 != len(words) || words[i+2] != "2>&1" || indexOf(words[:i], "|") >= 0 || words[0] != "labctl" {
			return c, fmt.Errorf("only labctl ARGS... > FILE 2>&1 may redirect, with nothing after it but ; echo")
		}
		c.outFile = words[i+1]
		words = words[:i]
	}
	if i := indexOf(words, "2>&1"); i >= 0 {
		if indexOf(words[:i], "|") >= 0 || (i+1 < len(words) && words[i+1] != "|") {
			return c, fmt.Errorf("2>&1 must end the labctl command, before any |")
		}
		c.mergeStderr = true
		words = append(words[:i:i], words[i+1:]...)
	}
	if c.firstStatus && indexOf(words, "head") >= 0 {
		// head exits after its lines and the next write of labctl to the
		// closed pipe kills it: a shell shows exit 141, not labctl's own.
		return c, fmt.Errorf(`| head with echo "exit ${PIPESTATUS[0]}" shows 141 in a shell when head closes the pipe first: write labctl's output to a file (labctl ARGS > FILE 2>&1; echo "exit $?"), then head -n N FILE`)
	}
	var stage []string
	for _, w := range words {
		if w == "|" {
			c.stages = append(c.stages, stage)
			stage = nil
			continue
		}
		stage = append(stage, w)
	}
	c.stages = append(c.stages, stage)
	for i, st := range c.stages {
		if len(st) == 0 {
			return c, fmt.Errorf("empty command in pipeline %q", line)
		}
		switch {
		case i == 0 && (st[0] == "labctl" || st[0] == "sed"):
		case i == 0 && st[0] == "head" && len(st) == 4:
			// head -n N FILE: a file an earlier command wrote.
		case i > 0 && (st[0] == "head" || st[0] == "tail" || st[0] == "grep"):
		default:
			return c, fmt.Errorf("%q is not a command the guide's test can run (labctl, sed -i '/RE/d' FILE, then | head, | tail, | grep)", st[0])
		}
	}
	return c, nil
}

func indexOf(ws []string, w string) int {
	for i, x := range ws {
		if x == w {
			return i
		}
	}
	return -1
}

// runDocCommand runs one guide command in the work directory dir and
// returns what a terminal would show. labctl is the binary bin, started in
// dir as a user's shell would start it: a process of its own, so that the
// guide runs beside the package's other tests (a chdir would move them
// all).
func runDocCommand(ctx context.Context, bin, dir string, c docCommand) (string, error) {
	cmd := c.stages[0]
	var out, errb bytes.Buffer
	status := 0
	switch cmd[0] {
	case "labctl":
		child := exec.CommandContext(ctx, bin, cmd[1:]...)
		child.Dir = dir
		child.Stdout, child.Stderr = &out, &errb
		if c.mergeStderr || c.outFile != "" || len(c.stages) == 1 {
			// 2>&1, or a terminal: both streams reach one reader in
			// the order labctl writes them (a lint warning before the
			// table it precedes). One writer for both makes exec give
			// the child one pipe on fds 1 and 2, as the shell does.
			child.Stderr = &out
		}
		var exit *exec.ExitError
		switch err := child.Run(); {
		case errors.As(err, &exit):
			status = exit.ExitCode()
		case err != nil:
			return "", err
		}
	case "sed":
		if err := sedDelete(dir, cmd[1:]); err != nil {
			return "", err
		}
	case "head":
		data, err := os.ReadFile(filepath.Join(dir, cmd[3]))
		if err != nil {
			return "", err
		}
		text, _, err := filterStage(cmd[:3], string(data))
		if err != nil {
			return "", err
		}
		out.WriteString(text)
	}
	if c.outFile != "" {
		if err := os.WriteFile(filepath.Join(dir, c.outFile), out.Bytes(), 0o644); err != nil {
			return "", err
		}
		out.Reset()
	}
	text := out.String()
	stderr := errb.String()
	if len(c.stages) > 1 && stderr != "" {
		// Where a terminal shows stderr among a filter's output depends on
		// timing; the guide must route it through the pipe.
		return "", fmt.Errorf("labctl wrote to stderr in a pipeline: add 2>&1 before the first |")
	}
	first := status
	for _, st := range c.stages[1:] {
		var err error
		text, status, err = filterStage(st, text)
		if err != nil {
			return "", err
		}
	}
	text += stderr
	if c.firstStatus {
		status = first
	}
	if c.echoStatus {
		text += fmt.Sprintf("exit %d\n", status)
	}
	return text, nil
}

// sedDelete does `sed -i '/RE/d' FILE`, or `sed -i 's/RE/TEXT/' FILE`
// (the first match on each line, TEXT taken literally), in the work
// directory dir.
func sedDelete(dir string, args []string) error {
	if len(args) == 3 && args[0] == "-i" && strings.HasPrefix(args[1], "s/") {
		parts := strings.Split(args[1], "/")
		if len(parts) != 4 || parts[3] != "" || parts[1] == "" {
			return fmt.Errorf("only sed -i 's/RE/TEXT/' FILE is supported (no / inside RE or TEXT, no flags), found sed %s", strings.Join(args, " "))
		}
		re, err := regexp.Compile(parts[1])
		if err != nil {
			return fmt.Errorf("sed pattern: %w", err)
		}
		return editLines(dir, args[2], func(l string) (string, bool) {
			if loc := re.FindStringIndex(l); loc != nil {
				l = l[:loc[0]] + parts[2] + l[loc[1]:]
			}
			return l, true
		})
	}
	if len(args) != 3 || args[0] != "-i" || !strings.HasPrefix(args[1], "/") || !strings.HasSuffix(args[1], "/d") || len(args[1]) < 4 {
		return fmt.Errorf("only sed -i '/RE/d' FILE and sed -i 's/RE/TEXT/' FILE are supported, found sed %s", strings.Join(args, " "))
	}
	re, err := regexp.Compile(args[1][1 : len(args[1])-2])
	if err != nil {
		return fmt.Errorf("sed pattern: %w", err)
	}
	return editLines(dir, args[2], func(l string) (string, bool) { return l, !re.MatchString(l) })
}

// editLines rewrites the file at path (relative to dir) line by line:
// edit returns a line's new text and whether to keep it.
func editLines(dir, path string, edit func(line string) (string, bool)) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		text, nl := strings.CutSuffix(l, "\n")
		if text, keep := edit(text); keep {
			if nl {
				text += "\n"
			}
			kept = append(kept, text)
		}
	}
	return os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644)
}

// filterStage applies head, tail or grep to text and returns the stage's
// exit status as the shell would.
func filterStage(st []string, text string) (string, int, error) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	switch st[0] {
	case "head", "tail":
		if len(st) != 3 || st[1] != "-n" {
			return "", 0, fmt.Errorf("only %s -n N is supported, found %q", st[0], strings.Join(st, " "))
		}
		n, err := strconv.Atoi(st[2])
		if err != nil || n < 0 {
			return "", 0, fmt.Errorf("%s -n %q: want a line count", st[0], st[2])
		}
		n = min(n, len(lines))
		if st[0] == "head" {
			return strings.Join(lines[:n], ""), 0, nil
		}
		return strings.Join(lines[len(lines)-n:], ""), 0, nil
	case "grep":
		ext, invert := false, false
		args := st[1:]
		for len(args) > 1 && strings.HasPrefix(args[0], "-") {
			switch args[0] {
			case "-E":
				ext = true
			case "-v":
				invert = true
			default:
				return "", 0, fmt.Errorf("grep option %s is not supported (use -E, -v)", args[0])
			}
			args = args[1:]
		}
		if len(args) != 1 {
			return "", 0, fmt.Errorf("grep takes one pattern here, found %q", strings.Join(st, " "))
		}
		pat := args[0]
		if !ext {
			// A plain grep pattern is a basic regexp; keep the guide to
			// fixed strings there so Go and grep cannot disagree.
			if strings.ContainsAny(pat, `.[]*^$\`) {
				return "", 0, fmt.Errorf("grep %q: use grep -E for a pattern with regexp characters", pat)
			}
			pat = regexp.QuoteMeta(pat)
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return "", 0, fmt.Errorf("grep pattern: %w", err)
		}
		var b strings.Builder
		for _, l := range lines {
			if re.MatchString(strings.TrimSuffix(l, "\n")) != invert {
				b.WriteString(l)
			}
		}
		if b.Len() == 0 {
			return "", 1, nil
		}
		return b.String(), 0, nil
	}
	return "", 0, fmt.Errorf("unsupported stage %q", st[0])
}

// What differs from run to run, and what it becomes before comparing.
var docNormalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	// Run ids: 20261129T133837Z-ecn-pfc-64gpu, and the suffix a run
	// started in the same second as the one before gets (-2, -3: the
	// store's NewRunID), which depends on how fast the guide runs.
	{regexp.MustCompile(`\b(\d{8}T\d{6}Z-[a-z0-9.-]*[a-z][a-z0-9]*)-\d{1,3}\b`), "$1"},
	{regexp.MustCompile(`\b\d{8}T\d{6}Z`), "<RUN-STAMP>"},
	// Timestamps: 2026-11-29T13:38:37Z, 2026-11-29 13:38:32Z, and regress's
	// "started 2026-12-07 23:16:22 UTC".
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(?:Z| UTC)`), "<TIME>"},
	// Wall-clock durations printed next to them: (1s), (850ms), (1m3s).
	{regexp.MustCompile(`\((\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s)\)`), "(<DURATION>)"},
	// What a variant cost: its wall time and events per second ("run
	// cost: 0.41 s wall, 3.12M events (7.61M/s), ..."); the events and
	// packet-hops follow from the seed and stay compared.
	{regexp.MustCompile(`\b\d+\.\d\d s wall\b`), "<WALL> s wall"},
	{regexp.MustCompile(`\(\d+(\.\d+)?[kMG]?/s\)`), "(<RATE>/s)"},
}

// normalizeDocOutput drops what differs run to run. Column padding in
// tables that hold such values is not affected: the values keep their
// width (a timestamp is always as long as another).
func normalizeDocOutput(s string) string {
	for _, n := range docNormalizers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// lineDiff is a small LCS diff: "-" lines are in the guide, "+" lines are
// what labctl printed; unchanged lines more than 3 away from a change are
// left out.
func lineDiff(want, got []string) string {
	n, m := len(want), len(got)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			out = append(out, "  "+want[i])
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+want[i])
			i++
		default:
			out = append(out, "+ "+got[j])
			j++
		}
	}
	const context = 3
	keep := make([]bool, len(out))
	for k, l := range out {
		if l[0] != ' ' {
			for c := max(0, k-context); c <= min(len(out)-1, k+context); c++ {
				keep[c] = true
			}
		}
	}
	var b strings.Builder
	skipped := false
	for k, l := range out {
		if !keep[k] {
			skipped = true
			continue
		}
		if skipped {
			b.WriteString("  ...\n")
			skipped = false
		}
		b.WriteString(l + "\n")
	}
	if skipped {
		b.WriteString("  ...\n")
	}
	return b.String()
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func TestExercisesGuide(t *testing.T) {
	t.Parallel()
	guide, err := filepath.Abs(exercisesGuide)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(guide)
	if err != nil {
		t.Fatalf("read the exercises guide: %v", err)
	}
	docs := filepath.Dir(guide)
	lines := strings.Split(string(data), "\n")
	blocks, err := parseConsoleBlocks(lines)
	if err != nil {
		t.Fatalf("%s: %v", exercisesGuide, err)
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no ```console blocks", exercisesGuide)
	}

	// The guide's setup: an empty work directory with the guide's own
	// lab specs and scenarios next to it.
	work := t.TempDir()
	for _, d := range []string{"labs", "scenarios"} {
		if err := copyTree(filepath.Join(docs, d), filepath.Join(work, d)); err != nil {
			t.Fatalf("copy docs/%s into the work directory: %v", d, err)
		}
	}
	bin := labctlBinary(t)

	ctx := context.Background()
	update := updating()
	failed := 0
	var rewritten []string
	next := 0 // next line of the guide to copy when rewriting
	for _, b := range blocks {
		rewritten = append(rewritten, lines[next:b.start+1]...)
		for _, s := range b.steps {
			c, err := parseDocCommand(s.cmd)
			if err != nil {
				t.Fatalf("%s:%d: %v", exercisesGuide, s.line, err)
			}
			got, err := runDocCommand(ctx, bin, work, c)
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", exercisesGuide, s.line, s.cmd, err)
			}
			gotLines := strings.Split(strings.TrimRight(got, "\n"), "\n")
			if got == "" {
				gotLines = nil
			}
			rewritten = append(rewritten, "$ "+s.cmd)
			rewritten = append(rewritten, gotLines...)
			want := normalizeDocOutput(strings.Join(s.want, "\n"))
			have := normalizeDocOutput(got)
			if want != have && !update {
				failed++
				t.Errorf("%s:%d: the output of\n  $ %s\ndiffers from the guide (- guide, + labctl now):\n%s",
					exercisesGuide, s.line, s.cmd, lineDiff(strings.Split(want, "\n"), strings.Split(have, "\n")))
			}
		}
		next = b.end
	}
	rewritten = append(rewritten, lines[next:]...)
	if update {
		if err := os.WriteFile(guide, []byte(strings.Join(rewritten, "\n")), 0o644); err != nil {
			t.Fatalf("rewrite the guide: %v", err)
		}
		t.Logf("rewrote the outputs of %s from real runs; review its diff", exercisesGuide)
		return
	}
	if failed > 0 {
		t.Logf("%d command(s) print something else than the guide shows. If labctl changed on purpose, regenerate the outputs with\n  go test ./cmd/labctl -run TestExercisesGuide -update\nand review the diff of docs/exercises.md.", failed)
	}
}

func TestDocHelpers(t *testing.T) {
	t.Parallel()
	t.Run("shellWords", func(t *testing.T) {
		got, err := shellWords(`labctl trace 64gpu 0 32 --sport 50000 | grep -E 'ECMP|path' ; echo "exit $?"`)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"labctl", "trace", "64gpu", "0", "32", "--sport", "50000", "|", "grep", "-E", "ECMP|path", ";", "echo", "exit $?"}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("got %q, want %q", got, want)
		}
		if _, err := shellWords(`grep 'open`); err == nil {
			t.Error("an unterminated quote is accepted")
		}
	})
	t.Run("parseDocCommand rejects other commands", func(t *testing.T) {
		for _, line := range []string{"rm -rf /", "labctl plan 64gpu | sort", "labctl plan 64gpu > f", "labctl plan 64gpu 2>&1 > f", "labctl plan > f 2>&1 | head -n 1", "head -n 1", "head -n 1 f g", `labctl regress 2>&1 | head -n 3; echo "exit ${PIPESTATUS[0]}"`, "labctl plan 64gpu; ls", "labctl plan 64gpu |", "labctl plan 2>&1 64gpu", "labctl plan | head -n 1 2>&1"} {
			if _, err := parseDocCommand(line); err == nil {
				t.Errorf("%q accepted", line)
			}
		}
	})
	t.Run("parseDocCommand", func(t *testing.T) {
		c, err := parseDocCommand(`labctl config lint 64gpu 2>&1 | tail -n 5; echo "exit ${PIPESTATUS[0]}"`)
		if err != nil || !c.mergeStderr || !c.firstStatus || !c.echoStatus || len(c.stages) != 2 || strings.Join(c.stages[0], " ") != "labctl config lint 64gpu" {
			t.Errorf("got %+v, %v", c, err)
		}
	})
	t.Run("stderr in the order written", func(t *testing.T) {
		// A stand-in for labctl that warns on stderr before its table,
		// then fails, as 'labctl run' on a lab with lint errors does.
		dir := t.TempDir()
		bin := filepath.Join(dir, "fake-labctl")
		script := "#!/bin/sh\necho warning >&2\necho table\necho row\necho 'labctl: failed' >&2\nexit 1\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		for line, want := range map[string]string{
			`labctl run; echo "exit $?"`:                                "warning\ntable\nrow\nlabctl: failed\nexit 1\n",
			`labctl run 2>&1 | head -n 2; echo "exit $?"`:               "warning\ntable\nexit 0\n",
			`labctl run 2>&1 | tail -n 1; echo "exit ${PIPESTATUS[0]}"`: "labctl: failed\nexit 1\n",
			`labctl run 2>&1 | tail -n 3`:                               "table\nrow\nlabctl: failed\n",
		} {
			c, err := parseDocCommand(line)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runDocCommand(context.Background(), bin, dir, c)
			if err != nil || got != want {
				t.Errorf("%s: got %q (%v), want %q", line, got, err, want)
			}
		}
		c, err := parseDocCommand(`labctl run > run.txt 2>&1; echo "exit $?"`)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := runDocCommand(context.Background(), bin, dir, c); err != nil || got != "exit 1\n" {
			t.Errorf("> run.txt 2>&1: got %q (%v), want the exit status alone", got, err)
		}
		if c, err = parseDocCommand("head -n 3 run.txt | tail -n 2"); err != nil {
			t.Fatal(err)
		}
		if got, err := runDocCommand(context.Background(), bin, dir, c); err != nil || got != "table\nrow\n" {
			t.Errorf("head -n 3 run.txt | tail -n 2: got %q (%v)", got, err)
		}
		c, _ = parseDocCommand("labctl run | head -n 1")
		if _, err := runDocCommand(context.Background(), bin, dir, c); err == nil {
			t.Error("stderr in a pipeline without 2>&1 is accepted")
		}
	})
	t.Run("filters", func(t *testing.T) {
		text := "a1\nb2\na3\nc4\n"
		cases := []struct {
			stage  []string
			want   string
			status int
		}{
			{[]string{"head", "-n", "2"}, "a1\nb2\n", 0},
			{[]string{"tail", "-n", "1"}, "c4\n", 0},
			{[]string{"head", "-n", "9"}, text, 0},
			{[]string{"grep", "a"}, "a1\na3\n", 0},
			{[]string{"grep", "-v", "a"}, "b2\nc4\n", 0},
			{[]string{"grep", "-E", "^(b|c)"}, "b2\nc4\n", 0},
			{[]string{"grep", "z"}, "", 1},
		}
		for _, c := range cases {
			got, status, err := filterStage(c.stage, text)
			if err != nil || got != c.want || status != c.status {
				t.Errorf("%v: got %q status %d err %v, want %q status %d", c.stage, got, status, err, c.want, c.status)
			}
		}
		if _, _, err := filterStage([]string{"grep", "a.b"}, text); err == nil {
			t.Error("plain grep with a regexp character is accepted")
		}
	})
	t.Run("sed", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "c.json")
		os.WriteFile(f, []byte("{\n \"a\": 1,\n \"pfc_enable\": \"3\",\n \"b\": 2\n}\n"), 0o644)
		if err := sedDelete(filepath.Dir(f), []string{"-i", `/"pfc_enable"/d`, "c.json"}); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(f)
		if string(got) != "{\n \"a\": 1,\n \"b\": 2\n}\n" {
			t.Errorf("got %q", got)
		}
		if err := sedDelete(filepath.Dir(f), []string{"-i", `s/"a": 1/"a": 1, "x": "$1"/`, "c.json"}); err != nil {
			t.Fatal(err)
		}
		got, _ = os.ReadFile(f)
		if string(got) != "{\n \"a\": 1, \"x\": \"$1\",\n \"b\": 2\n}\n" {
			t.Errorf("substituted (the text literally): got %q", got)
		}
		for _, bad := range []string{"s/a/b/g", "s/a/b", "s//b/", "s/a/b/c/"} {
			if err := sedDelete("", []string{"-i", bad, f}); err == nil {
				t.Errorf("sed -i %q is accepted", bad)
			}
		}
	})
	t.Run("normalize", func(t *testing.T) {
		a := normalizeDocOutput("run 20261129T133837Z-ecn-pfc-64gpu\n| Finished | 2026-11-29T13:38:38Z (1s) |\n64gpu  up  2026-11-29 13:38:32Z  \n\n")
		b := normalizeDocOutput("run 20270101T000000Z-ecn-pfc-64gpu\n| Finished | 2027-01-01T00:00:09Z (850ms) |\n64gpu  up  2027-01-01 00:00:00Z")
		if a != b {
			t.Errorf("not normalised alike:\n%s\n%s", a, b)
		}
		if normalizeDocOutput("run 20261129T133837Z-ecn-pfc-64gpu: x\nresults/20261129T133837Z-ecn-pfc-64gpu/run.json") != normalizeDocOutput("run 20261129T133839Z-ecn-pfc-64gpu-2: x\nresults/20261129T133839Z-ecn-pfc-64gpu-12/run.json") {
			t.Error("a run id's same-second suffix is not normalised away")
		}
		if normalizeDocOutput("20261129T133837Z-allreduce-64gpu-os2") == normalizeDocOutput("20261129T133837Z-allreduce-64gpu") {
			t.Error("a lab's name is normalised away")
		}
		if normalizeDocOutput("367.9 Gb/s") == normalizeDocOutput("367.8 Gb/s") {
			t.Error("a simulated figure is normalised away")
		}
		// A variant's measured cost differs run to run; its events do not.
		c1 := normalizeDocOutput("  run cost: 0.41 s wall, 3.12M events (7.61M/s), 1.04M packet-hops, 1 thread")
		c2 := normalizeDocOutput("  run cost: 12.07 s wall, 3.12M events (259k/s), 1.04M packet-hops, 1 thread")
		if c1 != c2 {
			t.Errorf("run costs not normalised alike:\n%s\n%s", c1, c2)
		}
		if c1 == normalizeDocOutput("  run cost: 0.41 s wall, 3.13M events (7.61M/s), 1.04M packet-hops, 1 thread") {
			t.Error("a variant's event count is normalised away")
		}
	})
	t.Run("parse blocks", func(t *testing.T) {
		doc := strings.Split("text\n```console\n$ labctl version\nv1\n$ labctl labs\n```\n```text\n$ labctl doctor\nPASS\n```\n", "\n")
		bs, err := parseConsoleBlocks(doc)
		if err != nil || len(bs) != 1 || len(bs[0].steps) != 2 || bs[0].steps[0].line != 3 || len(bs[0].steps[0].want) != 1 {
			t.Fatalf("got %+v, %v", bs, err)
		}
		if _, err := parseConsoleBlocks(strings.Split("```console\noutput first\n```", "\n")); err == nil {
			t.Error("a console block starting with output is accepted")
		}
		if _, err := parseConsoleBlocks(strings.Split("```console\n$ labctl version\n", "\n")); err == nil {
			t.Error("an unclosed block is accepted")
		}
	})
	t.Run("diff", func(t *testing.T) {
		d := lineDiff([]string{"a", "b", "c"}, []string{"a", "x", "c"})
		if d != "  a\n- b\n+ x\n  c\n" {
			t.Errorf("diff:\n%s", d)
		}
		long := strings.Split("1 2 3 4 5 6 7 8 9 10", " ")
		changed := append([]string(nil), long...)
		changed[8] = "nine"
		if d := lineDiff(long, changed); d != "  ...\n  6\n  7\n  8\n- 9\n+ nine\n  10\n" {
			t.Errorf("diff with context:\n%s", d)
		}
	})
}

// docsWithClaims are the documents, besides the exercises guide, whose
// claims about labctl the tests below hold to the program.
var docsWithClaims = []string{
	"../../README.md",
	"../../docs/fidelity.md",
	"../../docs/kubernetes.md",
	"../../docs/performance-history.md",
	"../../docs/config-fields.md",
	"../../docs/exercises.md",
	"../../scenarios/README.md",
	"../../results/baselines/README.md",
	"../../bench/compare/README.md",
}

// Every lint rule a document names is one of lint's rules, and a document
// that says lint warns with a rule names one that warns ("lint warns
// (QOS017)"), so that a renumbered rule or a changed severity shows here.
func TestDocsLintRuleCodes(t *testing.T) {
	t.Parallel()
	rules := map[string]qos.Rule{}
	for _, r := range qos.Rules() {
		rules[r.ID] = r
	}
	code := regexp.MustCompile(`QOS\d{3}`)
	for _, doc := range docsWithClaims {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		prev := 0
		for _, m := range code.FindAllStringIndex(text, -1) {
			id := text[m[0]:m[1]]
			r, ok := rules[id]
			if !ok {
				t.Errorf("%s: names lint rule %s, which lint does not have", doc, id)
				continue
			}
			// The words since the previous rule code, at most a line's worth.
			before := text[max(prev, m[0]-60):m[0]]
			prev = m[1]
			if strings.Contains(before, "lint warns") && r.Severity != qos.SevWarning && !strings.Contains(r.Summary, "(warning") {
				t.Errorf("%s: says lint warns with %s, which is %s: %s", doc, id, r.Severity, r.Summary)
			}
		}
	}
}

// The size of a saved baseline that the README and results/baselines say
// (ecn-pfc on 64gpu: its record with and without the time series) is what
// saving one gives.
func TestDocsBaselineSize(t *testing.T) {
	t.Parallel()
	claim := regexp.MustCompile(`ecn-pfc on 64gpu: (?:(\d+) KB instead of ([\d.]+) MB|([\d.]+) MB with them, (\d+) KB\s+without)`)
	type sizes struct{ baselineKB, recordMB float64 }
	var claims []sizes
	for _, doc := range []string{"../../README.md", "../../results/baselines/README.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		m := claim.FindStringSubmatch(string(data))
		if m == nil {
			t.Errorf("%s no longer says what ecn-pfc on 64gpu's baseline and record weigh: update this test", doc)
			continue
		}
		kb, mb := m[1], m[2]
		if kb == "" {
			kb, mb = m[4], m[3]
		}
		var s sizes
		s.baselineKB, _ = strconv.ParseFloat(kb, 64)
		s.recordMB, _ = strconv.ParseFloat(mb, 64)
		claims = append(claims, s)
	}
	dir := upLab(t, "64gpu")
	runOK(t, dir, "ecn-pfc", "64gpu")
	if code, out, errs := resultsCLI(t, dir, "regress", "--save-baseline", "latest", "good"); code != 0 {
		t.Fatalf("save baseline: exit %d: %s%s", code, out, errs)
	}
	base, err := os.Stat(filepath.Join(dir, "results", "baselines", "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	records, _ := filepath.Glob(filepath.Join(dir, "results", "*", "run.json"))
	if len(records) != 1 {
		t.Fatalf("run records: %v", records)
	}
	rec, err := os.Stat(records[0])
	if err != nil {
		t.Fatal(err)
	}
	gotKB, gotMB := float64(base.Size())/1e3, float64(rec.Size())/1e6
	for _, c := range claims {
		// The record holds a version string and run costs whose digits
		// vary; a claim is right to its last digit, give or take one.
		if math.Abs(gotKB-c.baselineKB) > 1.5 || math.Abs(gotMB-c.recordMB) > 0.15 {
			t.Errorf("the docs say a saved baseline of ecn-pfc on 64gpu is %g KB and its record %g MB; saving one gives %.1f KB, the record is %.2f MB", c.baselineKB, c.recordMB, gotKB, gotMB)
		}
	}
}
