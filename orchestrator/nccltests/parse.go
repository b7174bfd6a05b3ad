// Package nccltests reads the text output of NVIDIA's nccl-tests
// (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
// broadcast_perf, sendrecv_perf) into a results.NCCLTable marked measured,
// the shape a simulated nccl-tests-like scenario records too, so that
// regress can compare a cluster's figures with labctl's.
//
// The layouts are nccl-tests' own (src/common.cu and src/util.cu): the
// header line "# nThread 1 nGpus 1 minBytes 8 ...", one "#  Rank" line per
// rank, the column header, one row per size with an out-of-place and an
// in-place half, and the trailer "# Out of bounds values : 0 OK" and
// "# Avg bus bandwidth : X". Releases before 2.13 print an "error" column
// (the largest deviation) instead of #wrong and only the redop or root
// column their collective has; 2.16.7 and later name the program; 2.19
// adds -I's per-iteration columns. Every row is checked against what
// nccl-tests computes (algbw = size / time, busbw = algbw x the
// collective's factor, the count for the size), and the trailer's out of
// bounds count against the rows' #wrong, so that a garbled or edited
// table is refused rather than read.
package nccltests

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// ParseError reports where the output stopped making sense; Line is
// 1-based, 0 the input as a whole.
type ParseError = textparse.Error

// Options are what the caller knows that the output may not say.
type Options struct {
	// Collective names the collective (results.CollAllReduce, ...) for
	// output that does not: releases before 2.16.7 print no program name,
	// and all_gather and alltoall print the same columns. Output that
	// names its program must agree with it.
	Collective string
}

// CollectiveName returns the collective s names, nccl-tests' name with or
// without _perf ("all_reduce", "all_reduce_perf"), or an error listing
// the names.
func CollectiveName(s string) (string, error) {
	c := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "_perf")
	if slices.Contains(results.NCCLCollectives, c) {
		return c, nil
	}
	return "", fmt.Errorf("collective %q is not one labctl reads (fix: use one of %s, nccl-tests' names, with or without _perf)", s, strings.Join(results.NCCLCollectives, ", "))
}

// otherPrograms are nccl-tests binaries whose tables labctl does not read.
var otherPrograms = []string{"reduce", "gather", "scatter", "hypercube", "alltoallv"}

// Parse reads nccl-tests' text output (stdout; NCCL's and MPI's own lines
// in between are skipped) of one run. The table's Source is measured.
func Parse(r io.Reader, opt Options) (*results.NCCLTable, error) {
	data, err := readlimit.ReadAll(r, "", readlimit.Output)
	if err != nil {
		return nil, fmt.Errorf("read nccl-tests output: %w", err)
	}
	if opt.Collective != "" {
		c, err := CollectiveName(opt.Collective)
		if err != nil {
			return nil, err
		}
		opt.Collective = c
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return nil, textparse.Errorf(1, "this is JSON (nccl-tests' -J output file?), expected the text nccl-tests prints on stdout")
	}
	lines, err := textparse.Lines(data, "nccl-tests output")
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines, opt: opt}
	if err := p.scan(); err != nil {
		return nil, err
	}
	return p.table()
}

// Patterns of nccl-tests' comment lines (matched without the leading '#':
// the oldest releases print some of them without it).
var (
	versionRe  = lazyregexp.New(`^nccl-tests version (\S+)(?:\s+nccl-headers=(\d+))?(?:\s+nccl-library=(\d+))?`)
	programRe  = lazyregexp.New(`^Collective test (?:starting|concluded): (\S+)`)
	nthreadRe  = lazyregexp.New(`^nThread (\d+) nGpus (\d+) minBytes (\d+) maxBytes (\d+) step: (\d+)\((factor|bytes)\) warmup iters: (\d+)\s+iters: (\d+)(.*)$`)
	optionRe   = lazyregexp.New(`(agg iters|validation|graph): (-?\d+)`)
	reducedRe  = lazyregexp.New(`^Reducing maxBytes to (\d+) due to memory limitation`)
	rankRe     = lazyregexp.New(`^Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$`)
	oobRe      = lazyregexp.New(`^Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?\s*$`)
	avgRe      = lazyregexp.New(`^Avg bus bandwidth\s*:\s*(\S+)`)
	ncclVerRe  = lazyregexp.New(`NCCL version (\S+)`)
	ncclLogRe  = lazyregexp.New(`\bNCCL (INFO|WARN|TRACE|ABORT)\b`)
	algoRe     = lazyregexp.New(`NCCL_ALGO set by environment to (\S+)`)
	collChRe   = lazyregexp.New(`(\d+) coll channels`)
	channelRe  = lazyregexp.New(`Channel \d+/(\d+) :`)
	commandRe  = lazyregexp.New(`\b([a-z_]+)_perf\b`)
	failureRes = []string{"Test NCCL failure", "Test CUDA failure", "Test failure", "Test NCCL error"}
)

// parser holds what one pass over the lines found.
type parser struct {
	lines []string
	opt   Options

	info            results.NCCLTestsRun
	versionFromCode bool
	headerLine      int // the nThread line, 1-based
	program         string
	progLine        int
	// command is the program a command line in the output runs, and its
	// line; commandAmbiguous when command lines name several.
	command          string
	commandLine      int
	commandAmbiguous bool
	ranks            []results.NCCLDevice
	rankLines        map[int]int

	colLine int // the column header
	cols    columns
	rows    []row

	oobLine int
	oob     int64
	avgLine int
	avg     *float64
	avgText string

	algos    map[string]bool
	channels map[int]bool
	perRing  map[int]bool
}

// columns is what a column header holds.
type columns struct {
	redop, root bool
	// halves is 2 for out-of-place and in-place, 1 for out-of-place only.
	halves int
	// oldError is the "error" column of releases before 2.13 (a largest
	// deviation) instead of #wrong (a count).
	oldError  bool
	cputime   bool
	perIter   bool
	timestamp bool
	titles    []string
}

// fields is how many whitespace-separated fields a row of these columns
// has.
func (c columns) fields() int {
	n := 3
	if c.redop {
		n++
	}
	if c.root {
		n++
	}
	per := 4
	if c.perIter {
		per += 4
	}
	n += c.halves * per
	if c.timestamp {
		n += 2 // "%Y-%m-%d %H:%M:%S"
	}
	return n
}

// num is a figure as printed, with the half unit of its last printed
// digit: what rounding may have moved it by.
type num struct {
	v, half float64
	text    string
}

// half is one of a row's out-of-place and in-place results.
type half struct {
	time, algbw, busbw num
	wrong              *int64
	maxErr             *float64
}

type row struct {
	line        int
	size, count int64
	typ, redop  string
	root        int
	halves      []half
}

func (p *parser) scan() error {
	for i, raw := range p.lines {
		ln := i + 1
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		for _, f := range failureRes {
			if strings.Contains(t, f) {
				return textparse.Errorf(ln, "nccl-tests failed here: %q: fix the failure and run the test again; labctl reads only a run that printed its trailer", clip(t))
			}
		}
		comment := strings.HasPrefix(t, "#")
		c := strings.TrimSpace(strings.TrimLeft(t, "#"))
		handled, err := p.ownLine(ln, c)
		if err != nil {
			return err
		}
		if handled || comment {
			continue
		}
		p.other(ln, t)
		if err := p.maybeRow(ln, t); err != nil {
			return err
		}
	}
	return nil
}

// ownLine reads a line of nccl-tests' own text (c without its '#'):
// the header, rank lines, the column header, the trailer. It reports
// whether the line was one.
func (p *parser) ownLine(ln int, c string) (bool, error) {
	if m := versionRe().FindStringSubmatch(c); m != nil {
		p.info.Version = clean(m[1])
		if m[3] != "" && p.info.NCCLVersion == "" {
			p.info.NCCLVersion, p.versionFromCode = versionCode(m[3]), true
		}
		return true, nil
	}
	if m := programRe().FindStringSubmatch(c); m != nil {
		prog := clean(m[1])
		if p.program != "" && p.program != prog {
			return false, textparse.Errorf(ln, "this line names %s, line %d %s: the file holds the output of two runs; give one run per file", prog, p.progLine, p.program)
		}
		if p.program == "" {
			p.program, p.progLine = prog, ln
		}
		return true, nil
	}
	if m := nthreadRe().FindStringSubmatch(c); m != nil {
		if p.headerLine != 0 {
			return false, textparse.SecondRun(ln, p.headerLine, "nccl-tests header", ", or the output of several processes of an nccl-tests built without MPI, each printing its own table (then build it with MPI=1 to run one test across processes)")
		}
		p.headerLine = ln
		// nThread, nGpus, minBytes, maxBytes, step, warmup, iters.
		var ints [7]int64
		for k, idx := range []int{1, 2, 3, 4, 5, 7, 8} {
			v, err := strconv.ParseInt(m[idx], 10, 64)
			if err != nil || v > math.MaxInt32 && k != 2 && k != 3 && k != 4 {
				return false, textparse.Errorf(ln, "header figure %q is not a number nccl-tests prints", clip(m[idx]))
			}
			ints[k] = v
		}
		threads, gpus := int(ints[0]), int(ints[1])
		p.info.Threads, p.info.GPUsPerThread = &threads, &gpus
		p.info.MinBytes, p.info.MaxBytes = &ints[2], &ints[3]
		step := ints[4]
		if m[6] == "factor" {
			p.info.StepFactor = &step
		} else {
			p.info.StepBytes = &step
		}
		warm, iters := int(ints[5]), int(ints[6])
		p.info.WarmupIters, p.info.Iters = &warm, &iters
		for _, o := range optionRe().FindAllStringSubmatch(m[9], -1) {
			v, _ := strconv.Atoi(o[2]) // the pattern holds digits only
			switch o[1] {
			case "agg iters":
				p.info.AggIters = &v
			case "validation":
				p.info.Validation = &v
			case "graph":
				p.info.Graph = &v
			}
		}
		return true, nil
	}
	if m := reducedRe().FindStringSubmatch(c); m != nil {
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err == nil {
			p.info.MaxBytes = &v
		}
		return true, nil
	}
	if m := rankRe().FindStringSubmatch(c); m != nil {
		rank, err1 := strconv.Atoi(m[1])
		dev, err2 := strconv.Atoi(m[5])
		if err1 != nil || err2 != nil {
			return false, textparse.Errorf(ln, "rank line: rank %q or device %q is not a number", m[1], m[5])
		}
		if p.rankLines == nil {
			p.rankLines = map[int]int{}
		}
		if first, dup := p.rankLines[rank]; dup {
			return false, textparse.Errorf(ln, "rank %d is listed again (first at line %d): the output of several processes of an nccl-tests built without MPI, each printing its own table (build it with MPI=1), or two runs in one file; give one run per file", rank, first)
		}
		p.rankLines[rank] = ln
		p.ranks = append(p.ranks, results.NCCLDevice{Rank: rank, Host: clean(m[4]), Device: dev, Name: clean(strings.TrimSpace(m[7]))})
		return true, nil
	}
	f := strings.Fields(c)
	if len(f) > 0 && f[0] == "size" && slices.Contains(f, "count") {
		if p.colLine != 0 {
			return false, textparse.SecondRun(ln, p.colLine, "column header", "")
		}
		cols, err := parseColumns(ln, f)
		if err != nil {
			return false, err
		}
		p.colLine, p.cols = ln, cols
		return true, nil
	}
	if len(f) > 0 && (f[0] == "(B)" || strings.HasPrefix(c, "out-of-place")) {
		return true, nil
	}
	if m := oobRe().FindStringSubmatch(c); m != nil {
		if p.oobLine != 0 {
			return false, textparse.SecondRun(ln, p.oobLine, "trailer", "")
		}
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return false, textparse.Errorf(ln, "out of bounds count %q is not a number", m[1])
		}
		if (m[2] == "OK") != (v == 0) && m[2] != "" {
			return false, textparse.Errorf(ln, "the trailer says %d out of bounds values and %s: garbled", v, m[2])
		}
		p.oobLine, p.oob = ln, v
		return true, nil
	}
	if m := avgRe().FindStringSubmatch(c); m != nil {
		if p.oobLine == 0 {
			return false, textparse.Errorf(ln, "\"Avg bus bandwidth\" before \"Out of bounds values\": nccl-tests prints them the other way round; garbled output")
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return false, textparse.Errorf(ln, "Avg bus bandwidth %q: expected a non-negative number", m[1])
		}
		p.avgLine, p.avg, p.avgText = ln, &v, m[1]
		return true, nil
	}
	return false, nil
}

// other reads what NCCL itself printed in between (NCCL_DEBUG=INFO),
// for the facts the table does not carry: NCCL's version, the algorithm
// forced by NCCL_ALGO, the channels; and a command line that names the
// program.
func (p *parser) other(ln int, t string) {
	// NCCL's own banner ("NCCL version 2.30.3+cuda13.0") says more than
	// nccl-tests' library code.
	if m := ncclVerRe().FindStringSubmatch(t); m != nil && (p.info.NCCLVersion == "" || p.versionFromCode) {
		p.info.NCCLVersion, p.versionFromCode = clean(m[1]), false
	}
	if ncclLogRe().MatchString(t) {
		if m := algoRe().FindStringSubmatch(t); m != nil {
			if p.algos == nil {
				p.algos = map[string]bool{}
			}
			p.algos[strings.ToLower(m[1])] = true
		}
		if m := collChRe().FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[1])
			if p.channels == nil {
				p.channels = map[int]bool{}
			}
			p.channels[n] = true
		}
		if m := channelRe().FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[1])
			if p.perRing == nil {
				p.perRing = map[int]bool{}
			}
			p.perRing[n] = true
		}
		return
	}
	if p.colLine != 0 {
		return
	}
	for _, m := range commandRe().FindAllStringSubmatch(t, -1) {
		name := m[1]
		if !slices.Contains(results.NCCLCollectives, name) && !slices.Contains(otherPrograms, name) {
			continue
		}
		switch {
		case p.command == "":
			p.command, p.commandLine = name+"_perf", ln
		case p.command != name+"_perf":
			p.commandAmbiguous = true
		}
	}
}

// maybeRow reads a result row: a line between the column header and the
// trailer whose first two fields are integers (size and count). Other
// lines there are what MPI or NCCL printed and are skipped.
func (p *parser) maybeRow(ln int, t string) error {
	f := strings.Fields(t)
	if p.colLine == 0 || len(f) < 2 {
		return nil // before the table: not a row
	}
	if !isUint(f[0]) || !isUint(f[1]) {
		// A line of a row's shape (its field count, a data type third)
		// whose size or count is garbled is a row lost, not noise.
		want := p.cols.fields()
		if p.oobLine != 0 || len(f) < max(3, want-1) || len(f) > want {
			return nil
		}
		if _, typ := typeSize(f[2]); !typ {
			return nil
		}
	}
	switch {
	case p.oobLine != 0:
		return textparse.Errorf(ln, "a result row after the trailer (line %d): the file holds two runs or was edited; give one run per file", p.oobLine)
	}
	r, err := p.parseRow(ln, f)
	if err != nil {
		return err
	}
	p.rows = append(p.rows, r)
	return nil
}

// parseColumns reads the column header's titles (without '#').
func parseColumns(ln int, f []string) (columns, error) {
	c := columns{titles: f}
	bad := func(i int, want string) (columns, error) {
		return columns{}, textparse.Errorf(ln, "column header: %q where nccl-tests prints %s: a layout labctl does not read (it reads size count type [redop] [root], then time algbw busbw #wrong (or error) out-of-place and in-place, with -I's i_min i_max i_p99 i_cv%% and -S's timestamp)", f[i], want)
	}
	if len(f) < 3 || f[1] != "count" || f[2] != "type" {
		return columns{}, textparse.Errorf(ln, "column header %q: expected it to start \"size count type\"", strings.Join(f, " "))
	}
	i := 3
	if i < len(f) && f[i] == "redop" {
		c.redop = true
		i++
	}
	if i < len(f) && f[i] == "root" {
		c.root = true
		i++
	}
	for c.halves < 2 && i < len(f) && (f[i] == "time" || f[i] == "cputime") {
		cpu := f[i] == "cputime"
		if c.halves > 0 && cpu != c.cputime {
			return bad(i, "the same time column in both halves")
		}
		c.cputime = cpu
		if i+3 >= len(f) {
			return bad(len(f)-1, "time algbw busbw #wrong")
		}
		if f[i+1] != "algbw" {
			return bad(i+1, "algbw")
		}
		if f[i+2] != "busbw" {
			return bad(i+2, "busbw")
		}
		switch f[i+3] {
		case "#wrong":
		case "error":
			c.oldError = true
		default:
			return bad(i+3, "#wrong (or error in releases before 2.13)")
		}
		i += 4
		per := i+3 < len(f) && f[i] == "i_min" && f[i+1] == "i_max" && f[i+2] == "i_p99" && f[i+3] == "i_cv%"
		if c.halves > 0 && per != c.perIter {
			return bad(i, "the same per-iteration columns in both halves")
		}
		c.perIter = per
		if per {
			i += 4
		}
		c.halves++
	}
	if c.halves == 0 {
		if i < len(f) {
			return bad(i, "time (or cputime)")
		}
		return columns{}, textparse.Errorf(ln, "column header has no time, algbw and busbw columns: truncated")
	}
	if i < len(f) && f[i] == "timestamp" {
		c.timestamp = true
		i++
	}
	if i < len(f) {
		return bad(i, "nothing more (or -S's timestamp)")
	}
	return c, nil
}

// parseRow reads one row's fields.
func (p *parser) parseRow(ln int, f []string) (row, error) {
	c := p.cols
	want := c.fields()
	// alltoall_perf before 2.13 printed its redop column empty.
	if c.redop && !c.root && len(f) == want-1 && len(f) > 3 && looksNum(f[3]) {
		f = slices.Insert(slices.Clone(f), 3, "")
	}
	if len(f) != want {
		return row{}, textparse.Errorf(ln, "result row has %d fields, the column header at line %d has %d (%s): a truncated or garbled row", len(f), p.colLine, want, strings.Join(c.titles, " "))
	}
	r := row{line: ln, root: -1}
	var err error
	if r.size, err = parseUint(ln, "size", f[0]); err != nil {
		return row{}, err
	}
	if r.count, err = parseUint(ln, "count", f[1]); err != nil {
		return row{}, err
	}
	r.typ = f[2]
	if _, ok := typeSize(r.typ); !ok {
		return row{}, textparse.Errorf(ln, "type %q: not a data type nccl-tests prints (%s)", clip(r.typ), strings.Join(typeNames(), ", "))
	}
	i := 3
	if c.redop {
		r.redop = f[i]
		if r.redop != "" && !opNameRe().MatchString(r.redop) {
			return row{}, textparse.Errorf(ln, "redop %q: not a reduction nccl-tests prints (sum, prod, max, min, avg, mulsum, none)", clip(r.redop))
		}
		i++
	}
	if c.root {
		v, err := strconv.Atoi(f[i])
		if err != nil || v < -1 {
			return row{}, textparse.Errorf(ln, "root %q: expected a rank or -1", clip(f[i]))
		}
		r.root = v
		i++
	}
	for h := 0; h < c.halves; h++ {
		var hv half
		names := []string{"time", "algbw", "busbw"}
		for k, dst := range []*num{&hv.time, &hv.algbw, &hv.busbw} {
			if *dst, err = parseNum(ln, names[k], f[i+k]); err != nil {
				return row{}, err
			}
		}
		w := f[i+3]
		switch {
		case w == "N/A":
		case c.oldError:
			v, err := parseNum(ln, "error", w)
			if err != nil {
				return row{}, err
			}
			hv.maxErr = &v.v
		default:
			v, err := parseNum(ln, "#wrong", w)
			if err != nil || v.v != math.Trunc(v.v) || v.v > 1<<53 {
				return row{}, textparse.Errorf(ln, "#wrong %q: expected a count or N/A", clip(w))
			}
			n := int64(v.v)
			hv.wrong = &n
		}
		i += 4
		if c.perIter {
			for k, name := range []string{"i_min", "i_max", "i_p99", "i_cv%"} {
				if _, err := parseNum(ln, name, f[i+k]); err != nil {
					return row{}, err
				}
			}
			i += 4
		}
		r.halves = append(r.halves, hv)
	}
	if c.timestamp && (!timestampDate().MatchString(f[i]) || !timestampTime().MatchString(f[i+1])) {
		return row{}, textparse.Errorf(ln, "timestamp %q: expected -S's %%Y-%%m-%%d %%H:%%M:%%S", clip(f[i]+" "+f[i+1]))
	}
	return r, nil
}

var (
	opNameRe      = lazyregexp.New(`^[a-z][a-z0-9]*$`)
	timestampDate = lazyregexp.New(`^\d{4}-\d{2}-\d{2}$`)
	timestampTime = lazyregexp.New(`^\d{2}:\d{2}:\d{2}$`)
)

// typeSizes are the bytes per element of nccl-tests' type names
// (test_typenames in src/common.cu).
var typeSizes = map[string]int64{
	"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
	"half": 2, "float": 4, "double": 8, "bfloat16": 2, "f8e4m3": 1, "f8e5m2": 1,
}

func typeSize(name string) (int64, bool) {
	v, ok := typeSizes[name]
	return v, ok
}

func typeNames() []string { return slices.Sorted(maps.Keys(typeSizes)) }

func isUint(s string) bool {
	if s == "" || len(s) > 19 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func parseUint(ln int, col, s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, textparse.Errorf(ln, "%s %q: expected a non-negative integer", col, clip(s))
	}
	return v, nil
}

// looksNum says whether s is a figure as nccl-tests prints one.
func looksNum(s string) bool {
	_, err := parseNum(0, "", s)
	return err == nil
}

// parseNum reads a figure as nccl-tests prints it (%7.2f and narrower,
// or C's %.1e and %.0e when it does not fit the column: a mantissa of one
// digit before the point, 1 to 9 unless the figure is 0e+00, and a signed
// exponent of two or three digits) with its half unit. Signs, NaN and Inf
// only come from garbled input.
func parseNum(ln int, col, s string) (num, error) {
	bad := func() (num, error) {
		return num{}, textparse.Errorf(ln, "%s %q: expected a number as nccl-tests prints it (123.45, 1.2e+06)", col, clip(s))
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		es := s[i+1:]
		if len(es) < 3 || len(es) > 4 || (es[0] != '+' && es[0] != '-') || !isUint(es[1:]) {
			return bad()
		}
		e, _ := strconv.Atoi(es) // a sign and 2-3 digits
		mant, exp = s[:i], e
		intPart, _, _ := strings.Cut(mant, ".")
		zero := strings.Trim(mant, "0.") == ""
		if len(intPart) != 1 || (zero && e != 0) || (!zero && intPart == "0") {
			return bad()
		}
	}
	digits, dot, decimals := 0, false, 0
	for i := 0; i < len(mant); i++ {
		switch ch := mant[i]; {
		case ch >= '0' && ch <= '9':
			digits++
			if dot {
				decimals++
			}
		case ch == '.' && !dot:
			dot = true
		default:
			return bad()
		}
	}
	if digits == 0 {
		return bad()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return bad()
	}
	return num{v: v, half: 0.5 * math.Pow10(exp-decimals), text: s}, nil
}

// versionCode turns NCCL_VERSION_CODE (major*10000 + minor*100 + patch
// from 2.9, major*1000 + minor*100 + patch before) into "2.30.3".
func versionCode(s string) string {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return ""
	}
	if v >= 10000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v/100%10, v%100)
}

// clip shortens text quoted in an error.
func clip(s string) string {
	s = clean(s)
	if r := []rune(s); len(r) > 120 {
		return string(r[:117]) + "..."
	}
	return s
}

// clean makes text copied from the output valid UTF-8, so that the table
// encodes to JSON and back unchanged.
func clean(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
