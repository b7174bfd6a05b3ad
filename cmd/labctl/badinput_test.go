//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/labctl/labctl/orchestrator/scenario"
)

// The bad-input corpus: testdata/badinput/*.yaml list hostile and
// mistaken inputs, each run through the real binary in a fresh work
// directory. Each must exit with its documented code, say on stderr what
// was wrong and where (the case's want strings) and the fix, never panic
// or dump goroutines, and stay under maxRSSKiB of memory (the child's own
// peak, from rusage; no wall-clock time is asserted).

const (
	// One file per theme, so that the corpus reads by theme.
	corpusFiles = "testdata/badinput/*.yaml"
	maxRSSKiB   = 200 << 10 // 200 MiB
	minCases    = 150
)

type corpusCase struct {
	Name string `yaml:"name"`
	// Fixture is the work directory the case starts from: empty, "lab"
	// (16gpu up in the simulator) or "runs" (that plus two baseline-bw
	// runs and the baseline "good").
	Fixture string `yaml:"fixture"`
	// Files are written (relative to the work directory) before the case.
	Files map[string]string `yaml:"files"`
	// Big files: path to size ("300KiB"), filled with fill ("#\n" when
	// empty); sparse ones are holes of that size, never written out.
	Big []bigFile `yaml:"big"`
	// Symlinks: path to target, replacing what is there.
	Symlinks map[string]string `yaml:"symlinks"`
	// Fifos are named pipes made (mkfifo) at these paths; nothing ever
	// writes to them.
	Fifos []string `yaml:"fifos"`
	// Remove lists globs removed before the case.
	Remove []string `yaml:"remove"`
	Args   []string `yaml:"args"`
	// Stdin is the child's input; EndlessStdin repeats forever (`yes`).
	Stdin        string `yaml:"stdin"`
	EndlessStdin string `yaml:"endless_stdin"`
	Exit         int    `yaml:"exit"`
	// Want are in stderr: the file or field, the problem. WantOut are in
	// stdout.
	Want    []string `yaml:"want"`
	WantOut []string `yaml:"want_out"`
	// Fix is the words that give the fix, when they are not "fix:".
	Fix string `yaml:"fix"`
	// Absent are paths the case must not create.
	Absent []string `yaml:"absent"`
	// Then are commands run after the case, checked the same way.
	Then []followUp `yaml:"then"`
}

type bigFile struct {
	Path   string `yaml:"path"`
	Size   string `yaml:"size"`
	Fill   string `yaml:"fill"`
	Sparse bool   `yaml:"sparse"`
}

type followUp struct {
	Args    []string `yaml:"args"`
	Exit    int      `yaml:"exit"`
	Want    []string `yaml:"want"`
	WantOut []string `yaml:"want_out"`
}

func TestBadInputCorpus(t *testing.T) {
	files, err := filepath.Glob(corpusFiles)
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files %s: %v", corpusFiles, err)
	}
	var cases []corpusCase
	names := map[string]string{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var some []corpusCase
		if err := yaml.UnmarshalWithOptions(data, &some, yaml.Strict()); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, c := range some {
			if other, ok := names[c.Name]; ok || c.Name == "" {
				t.Fatalf("%s: case name %q is empty or also in %s", file, c.Name, other)
			}
			names[c.Name] = file
		}
		cases = append(cases, some...)
	}
	if len(cases) < minCases {
		t.Errorf("%s hold %d cases, want at least %d", corpusFiles, len(cases), minCases)
	}
	// The cases run in parallel: each in its own work directory, each a
	// child process. This test itself is not parallel to the package's
	// other tests, on purpose: Linux counts the peak memory of the parent
	// at the fork into a child's ru_maxrss (Go starts children with
	// vfork, whose exec takes the parent's high-water mark along), so the
	// children's peaks are their own only while this test process stays
	// small, which holds while no other test runs labctl in it (they wait
	// for the tests that are not parallel).
	fx := &fixtures{t: t}
	var mu sync.Mutex
	var maxRSS int64
	var maxName string
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir, run := fx.workDir(t, c.Fixture)
			vars := map[string]string{"{{DIR}}": dir, "{{RUN}}": run}
			expand := func(s string) string {
				for k, v := range vars {
					s = strings.ReplaceAll(s, k, v)
				}
				return s
			}
			prepare(t, dir, c, expand)
			args := make([]string, len(c.Args))
			for i, a := range c.Args {
				args[i] = expand(a)
			}
			var stdin io.Reader
			switch {
			case c.EndlessStdin != "":
				stdin = endless{line: []byte(c.EndlessStdin)}
			case c.Stdin != "":
				stdin = strings.NewReader(c.Stdin)
			}
			res := runChild(t, dir, stdin, args...)
			check(t, "labctl "+strings.Join(args, " "), res, c.Exit, c.Want, c.WantOut, c.Fix, expand)
			mu.Lock()
			if res.maxRSSKiB > maxRSS {
				maxRSS, maxName = res.maxRSSKiB, c.Name
			}
			mu.Unlock()
			for _, p := range c.Absent {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("labctl %s created %s", strings.Join(args, " "), p)
				}
			}
			for _, f := range c.Then {
				fargs := make([]string, len(f.Args))
				for i, a := range f.Args {
					fargs[i] = expand(a)
				}
				r := runChild(t, dir, nil, fargs...)
				check(t, "then labctl "+strings.Join(fargs, " "), r, f.Exit, f.Want, f.WantOut, "-", expand)
			}
		})
	}
	t.Cleanup(func() { t.Logf("%d cases; highest peak RSS %d KiB (%s)", len(cases), maxRSS, maxName) })
}

var goroutineDump = regexp.MustCompile(`(?m)^goroutine \d+ \[`)

// check applies the corpus rules to one command's result. fix "-" skips
// the fix rule (follow-ups that succeed, or repeat what the case checked).
func check(t *testing.T, what string, r childResult, exit int, want, wantOut []string, fix string, expand func(string) string) {
	t.Helper()
	if r.code != exit {
		t.Errorf("%s: exit %d, want %d\nstderr: %s", what, r.code, exit, r.stderr)
	}
	if strings.Contains(r.stderr, "panic:") || goroutineDump.MatchString(r.stderr) {
		t.Errorf("%s: panicked or dumped goroutines:\n%s", what, r.stderr)
	}
	if r.maxRSSKiB > maxRSSKiB {
		t.Errorf("%s: peak memory %d KiB, over %d KiB", what, r.maxRSSKiB, maxRSSKiB)
	}
	for _, w := range want {
		if w = expand(w); !strings.Contains(r.stderr, w) {
			t.Errorf("%s: stderr does not say %q:\n%s", what, w, r.stderr)
		}
	}
	for _, w := range wantOut {
		if w = expand(w); !strings.Contains(r.stdout, w) {
			t.Errorf("%s: stdout does not say %q:\n%s", what, w, r.stdout)
		}
	}
	if exit >= 2 && fix != "-" {
		if fix == "" {
			fix = "fix: "
		}
		if !strings.Contains(r.stderr, fix) {
			t.Errorf("%s: stderr gives no fix (%q):\n%s", what, fix, r.stderr)
		}
	}
}

// prepare writes the case's files into dir.
func prepare(t *testing.T, dir string, c corpusCase, expand func(string) string) {
	t.Helper()
	for _, pat := range c.Remove {
		matches, _ := filepath.Glob(filepath.Join(dir, expand(pat)))
		if len(matches) == 0 {
			t.Fatalf("remove %s: nothing matches", pat)
		}
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(rel string, data []byte) string {
		p := filepath.Join(dir, expand(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for rel, content := range c.Files {
		write(rel, []byte(expand(content)))
	}
	for _, b := range c.Big {
		n, err := scenario.ParseBytes(b.Size)
		if err != nil {
			t.Fatalf("big file %s: %v", b.Path, err)
		}
		if b.Sparse {
			p := write(b.Path, nil)
			if err := os.Truncate(p, n); err != nil {
				t.Fatal(err)
			}
			continue
		}
		fill := b.Fill
		if fill == "" {
			fill = "#\n"
		}
		write(b.Path, []byte(strings.Repeat(fill, int(n)/len(fill)+1)[:n]))
	}
	for _, rel := range c.Fifos {
		p := filepath.Join(dir, expand(rel))
		os.Remove(p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, target := range c.Symlinks {
		p := filepath.Join(dir, expand(rel))
		os.Remove(p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(expand(target), p); err != nil {
			t.Fatal(err)
		}
	}
}

// fixtures builds each work-directory fixture once and copies it per case:
// the first case that needs one builds it, the others wait for it.
type fixtures struct {
	t     *testing.T // the corpus test: its cleanup removes the templates
	mu    sync.Mutex
	built map[string]*fixture
}

type fixture struct {
	once sync.Once
	dir  string // the template
	run  string // the newest run id of the "runs" fixture
	err  error
}

// workDir returns a fresh work directory holding fixture name (empty: an
// empty directory) and the fixture's newest run id.
func (f *fixtures) workDir(t *testing.T, name string) (dir, run string) {
	t.Helper()
	dir = t.TempDir()
	if name == "" {
		return dir, ""
	}
	f.mu.Lock()
	if f.built == nil {
		f.built = map[string]*fixture{}
	}
	fx := f.built[name]
	if fx == nil {
		fx = &fixture{}
		f.built[name] = fx
	}
	f.mu.Unlock()
	fx.once.Do(func() {
		// Stays the error if build ends the case that runs it (t.Fatal).
		fx.err = fmt.Errorf("fixture %s could not be built (see the case that built it)", name)
		fx.dir, fx.run = f.build(t, name)
		fx.err = nil
	})
	if fx.err != nil {
		t.Fatal(fx.err)
	}
	if err := os.CopyFS(dir, os.DirFS(fx.dir)); err != nil {
		t.Fatal(err)
	}
	return dir, fx.run
}

func (f *fixtures) build(t *testing.T, name string) (dir, run string) {
	dir, err := os.MkdirTemp("", "labctl-fixture-")
	if err != nil {
		t.Fatal(err)
	}
	f.t.Cleanup(func() { os.RemoveAll(dir) })
	steps := [][]string{{"up", "16gpu"}}
	switch name {
	case "lab":
	case "runs":
		steps = append(steps, []string{"run", "baseline-bw", "--lab", "16gpu"}, []string{"run", "baseline-bw", "--lab", "16gpu", "--seed", "2"},
			[]string{"regress", "--save-baseline", "latest", "good"})
	default:
		t.Fatalf("unknown fixture %q", name)
	}
	for _, args := range steps {
		if r := runChild(t, dir, nil, args...); r.code != 0 {
			t.Fatalf("fixture %s: labctl %s: exit %d\n%s", name, strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if name == "runs" {
		r := runChild(t, dir, nil, "results", "list", "-o", "json")
		var list struct {
			Runs []struct {
				RunID string `json:"run_id"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Runs) == 0 {
			t.Fatalf("fixture runs: %v\n%s", err, r.stdout)
		}
		run = list.Runs[0].RunID
	}
	return dir, run
}
