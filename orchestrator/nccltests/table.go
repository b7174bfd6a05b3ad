package nccltests

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// noTableHint is the column header the errors show.
const noTableHint = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"

// table checks what scan found and builds the table.
func (p *parser) table() (*results.NCCLTable, error) {
	last := len(p.lines)
	switch {
	case p.colLine == 0 && p.headerLine == 0:
		return nil, textparse.Errorf(last, "no nccl-tests output here: expected the header \"# nThread 1 nGpus 1 minBytes ...\" and the table \"%s\" of all_reduce_perf or its siblings", noTableHint)
	case p.colLine == 0:
		return nil, textparse.Errorf(last, "the output ends before its result table (the header is at line %d): the run stopped before its first size; see the errors it printed", p.headerLine)
	case len(p.rows) == 0:
		return nil, textparse.Errorf(p.colLine, "no result rows after the column header: the run was cut short or failed")
	case p.oobLine == 0:
		return nil, textparse.Errorf(last, "the output ends without nccl-tests' trailer \"# Out of bounds values : 0 OK\" after its last row (line %d): the run was cut short or the file was cut; give the whole output", p.rows[len(p.rows)-1].line)
	}
	first := p.rows[0]
	for _, r := range p.rows[1:] {
		switch {
		case r.typ != first.typ:
			return nil, textparse.Errorf(r.line, "this row's type is %s, the first row's (line %d) %s: the run covers several data types (-d all); run one type per output (-d %s)", r.typ, first.line, first.typ, first.typ)
		case r.redop != first.redop:
			return nil, textparse.Errorf(r.line, "this row's redop is %s, the first row's (line %d) %s: the run covers several reductions (-o all); run one per output (-o %s)", r.redop, first.line, first.redop, first.redop)
		case r.root != first.root:
			return nil, textparse.Errorf(r.line, "this row's root is %d, the first row's (line %d) %d: the run covers several roots (-r -1); run one root per output", r.root, first.line, first.root)
		}
	}
	ws, _ := typeSize(first.typ)
	n, err := p.rankCount()
	if err != nil {
		return nil, err
	}
	if !p.cols.cputime {
		if err := p.checkAlgbw(); err != nil {
			return nil, err
		}
	}
	coll, from, n, err := p.collective(ws, n)
	if err != nil {
		return nil, err
	}
	if err := p.checkRowCount(); err != nil {
		return nil, err
	}
	if err := p.checkAverage(); err != nil {
		return nil, err
	}
	if err := p.checkOutOfBounds(); err != nil {
		return nil, err
	}
	rows, err := p.dedupe()
	if err != nil {
		return nil, err
	}

	t := &results.NCCLTable{
		Collective: coll, Ranks: n, DataType: first.typ, RedOp: first.redop, Root: first.root,
		AvgBusBWGBps: p.avg, Source: results.Measured, Rows: make([]results.NCCLRow, 0, len(rows)),
	}
	if t.RedOp == "" {
		// Layouts without a redop column, and alltoall's empty one before
		// 2.13, are of collectives that reduce nothing.
		t.RedOp = "none"
	}
	oob := p.oob
	t.OutOfBounds = &oob
	// NCCL_ALGO chooses among the collectives' algorithms; alltoall and
	// sendrecv run point to point whatever it says.
	if len(p.algos) == 1 && !results.NCCLPointToPoint(coll) {
		for a := range p.algos {
			if !strings.ContainsAny(a, ",^") {
				t.Algorithm = a
			}
		}
	}
	switch {
	case len(p.channels) == 1:
		for c := range p.channels {
			t.Channels = c
		}
	case len(p.channels) == 0 && len(p.perRing) == 1:
		for c := range p.perRing {
			t.Channels = c
		}
	}
	for _, r := range rows {
		nr := results.NCCLRow{SizeBytes: r.size, Count: r.count, OutOfPlace: r.halves[0].result()}
		if len(r.halves) > 1 {
			ip := r.halves[1].result()
			nr.InPlace = &ip
		}
		t.Rows = append(t.Rows, nr)
	}
	info := p.info
	info.CollectiveFrom = from
	info.Program = p.program
	if info.Program == "" && from == fromCommand {
		info.Program = p.command
	}
	info.TimeColumn = "time"
	if p.cols.cputime {
		info.TimeColumn = "cputime"
	}
	if len(p.ranks) > 0 {
		info.Devices = slices.Clone(p.ranks)
		sort.Slice(info.Devices, func(i, j int) bool { return info.Devices[i].Rank < info.Devices[j].Rank })
	}
	t.NCCLTests = &info
	return t, nil
}

func (h half) result() results.NCCLResult {
	return results.NCCLResult{TimeUs: h.time.v, AlgBWGBps: h.algbw.v, BusBWGBps: h.busbw.v, Wrong: h.wrong, MaxError: h.maxErr}
}

// How the collective was known (NCCLTestsRun.CollectiveFrom).
const (
	fromProgram = "program name"
	fromCommand = "command line"
	fromFlag    = "--collective"
	fromFigures = "figures"
)

// rankCount is the number of "#  Rank" lines, which must list ranks 0 to
// n-1; 0 when the output has none.
func (p *parser) rankCount() (int, error) {
	n := len(p.ranks)
	for _, d := range p.ranks {
		if d.Rank >= n {
			return 0, textparse.Errorf(p.rankLines[d.Rank], "rank %d, but the output lists %d ranks: rank lines are missing; give the whole output", d.Rank, n)
		}
	}
	return n, nil
}

// checkAlgbw checks that every algbw is the size over the time, as
// nccl-tests computes it (bytes per µs / 1000 = GB/s), within the
// rounding of both printed figures.
func (p *parser) checkAlgbw() error {
	for _, r := range p.rows {
		for _, h := range r.halves {
			if h.time.v == 0 {
				continue
			}
			exact := float64(r.size) / h.time.v / 1e3
			tol := h.algbw.half + exact*h.time.half/h.time.v + 1e-9
			if math.Abs(h.algbw.v-exact) > tol {
				return textparse.Errorf(r.line, "algbw %s is not size %d B / time %s us = %.4g GB/s: a garbled row, or the output of an nccl-tests release before June 2020 (its all_gather and reduce_scatter computed algbw otherwise), which labctl does not read", h.algbw.text, r.size, h.time.text, exact)
			}
		}
	}
	return nil
}

// collective decides which collective the table is and its rank count:
// from --collective, the program name nccl-tests printed, or a command
// line in the output, each checked against the figures; else from the
// figures alone, when they fit one collective only.
func (p *parser) collective(ws int64, n int) (string, string, int, error) {
	named, from, at := p.opt.Collective, fromFlag, 0
	unsupported := func(ln int, prog string) error {
		return textparse.Errorf(ln, "this is %s output: labctl reads the tables of %s", prog, strings.Join(perfNames(), ", "))
	}
	if p.program != "" {
		c := strings.TrimSuffix(p.program, "_perf")
		if !slices.Contains(results.NCCLCollectives, c) {
			return "", "", 0, unsupported(p.progLine, p.program)
		}
		if named != "" && named != c {
			return "", "", 0, textparse.Errorf(p.progLine, "the output names %s, --collective says %s: drop --collective, the output says which it is", p.program, named)
		}
		if named == "" {
			named, from = c, fromProgram
		}
		at = p.progLine
	} else if named == "" && p.command != "" && !p.commandAmbiguous {
		c := strings.TrimSuffix(p.command, "_perf")
		if !slices.Contains(results.NCCLCollectives, c) {
			return "", "", 0, unsupported(p.commandLine, p.command)
		}
		named, from, at = c, fromCommand, p.commandLine
	}
	if named != "" {
		nn := n
		if err := p.fits(named, ws, &nn); err != nil {
			if from == fromFlag {
				return "", "", 0, fmt.Errorf("%w (the figures are not those of %s: check --collective)", err, named)
			}
			return "", "", 0, fmt.Errorf("%w (line %d says the run is %s_perf)", err, at, named)
		}
		return named, from, nn, nil
	}
	var fit []string
	nfit := 0
	// When none fits, the error is the one of the collective that fitted
	// the most lines, at its line: the likeliest place of the garbling.
	var best *textparse.Error
	bestColl := ""
	for _, c := range results.NCCLCollectives {
		nn := n
		err := p.fits(c, ws, &nn)
		if err == nil {
			fit, nfit = append(fit, c), nn
			continue
		}
		if pe, ok := err.(*textparse.Error); ok && (best == nil || pe.Line > best.Line) {
			best, bestColl = pe, c
		}
	}
	switch len(fit) {
	case 1:
		return fit[0], fromFigures, nfit, nil
	case 0:
		return "", "", 0, textparse.Errorf(best.Line, "%s: the table fits no collective labctl reads (%s fits it up to here; if it is another's, give --collective)", best.Msg, bestColl)
	}
	return "", "", 0, textparse.Errorf(p.colLine, "the output does not say which collective it is (no \"# Collective test starting:\" line, which releases before 2.16.7 do not print, and no command line before the table) and its figures fit %s alike: give --collective %s (or another of them)", strings.Join(fit, " and "), fit[0])
}

func perfNames() []string {
	out := make([]string, len(results.NCCLCollectives))
	for i, c := range results.NCCLCollectives {
		out[i] = c + "_perf"
	}
	return out
}

// directCount are the collectives whose count is the size in elements;
// the others print the count per rank (size = count x ranks x type size).
func directCount(c string) bool {
	return c == results.CollAllReduce || c == results.CollBroadcast || c == results.CollSendRecv
}

// fits checks that the table is c's: its columns (which releases before
// 2.13 print per collective, and the redop and root of the rows), how
// its sizes and counts relate, and busbw = algbw x c's factor for the
// rank count *n, which it derives from the figures when the output lists
// no ranks.
func (p *parser) fits(c string, ws int64, n *int) error {
	first := p.rows[0]
	cols := p.cols
	if cols.redop && cols.root {
		// 2.13 and later print both: "none" for collectives that reduce
		// nothing, and a root only for broadcast.
		none := c == results.CollAllGather || c == results.CollAllToAll || c == results.CollBroadcast
		if (first.redop == "none") != none {
			return textparse.Errorf(first.line, "redop %q, which %s_perf does not print", first.redop, c)
		}
		if (first.root >= 0) != (c == results.CollBroadcast) {
			return textparse.Errorf(first.line, "root %d, which %s_perf does not print", first.root, c)
		}
	} else {
		// Before 2.13 each test printed its own columns: alltoall an
		// empty redop.
		wantRedop := c == results.CollAllReduce || c == results.CollReduceScatter || c == results.CollAllToAll
		wantRoot := c == results.CollBroadcast
		if cols.redop != wantRedop || cols.root != wantRoot {
			return textparse.Errorf(p.colLine, "the column header (%s) is not %s_perf's", strings.Join(cols.titles[:3+btoi(cols.redop)+btoi(cols.root)], " "), c)
		}
		if cols.redop && (first.redop == "") != (c == results.CollAllToAll) {
			return textparse.Errorf(first.line, "redop %q, which %s_perf does not print", first.redop, c)
		}
	}
	for _, r := range p.rows {
		if directCount(c) {
			if r.size != r.count*ws {
				return textparse.Errorf(r.line, "size %d is not count %d x %d bytes of %s, as %s_perf prints it", r.size, r.count, ws, r.typ, c)
			}
			continue
		}
		if r.count == 0 {
			if r.size != 0 {
				return textparse.Errorf(r.line, "size %d with count 0: not as %s_perf prints it", r.size, c)
			}
			continue
		}
		unit := r.count * ws
		if r.size%unit != 0 || (*n > 0 && r.size != unit*int64(*n)) {
			if *n > 0 {
				return textparse.Errorf(r.line, "size %d is not count %d x %d ranks x %d bytes of %s, as %s_perf prints it", r.size, r.count, *n, ws, r.typ, c)
			}
			return textparse.Errorf(r.line, "size %d is not a multiple of count %d x %d bytes of %s, as %s_perf prints it", r.size, r.count, ws, r.typ, c)
		}
		if *n == 0 {
			*n = int(r.size / unit)
		}
	}
	if *n == 0 {
		if c != results.CollAllReduce {
			return textparse.Errorf(p.colLine, "the output lists no ranks (no \"#  Rank\" lines) and %s's figures do not tell how many: give the output with its header lines", c)
		}
		// busbw/algbw = 2(n-1)/n: n from the row whose algbw says most.
		var best *half
		for i := range p.rows {
			for j := range p.rows[i].halves {
				if h := &p.rows[i].halves[j]; h.algbw.v > 0 && (best == nil || h.algbw.v > best.algbw.v) {
					best = h
				}
			}
		}
		if best == nil {
			return textparse.Errorf(p.colLine, "the output lists no ranks (no \"#  Rank\" lines) and every algbw is 0, so the figures do not tell how many: give the output with its header lines")
		}
		ratio := best.busbw.v / best.algbw.v
		if ratio >= 2 {
			return textparse.Errorf(p.colLine, "busbw/algbw is %.3g, more than all_reduce's 2(n-1)/n can be", ratio)
		}
		*n = max(1, int(math.Round(2/(2-ratio))))
	}
	f, _ := results.BusBWFactor(c, *n)
	for _, r := range p.rows {
		for _, h := range r.halves {
			tol := h.busbw.half + f*h.algbw.half + 1e-9
			if math.Abs(h.busbw.v-h.algbw.v*f) > tol {
				return textparse.Errorf(r.line, "busbw %s is not algbw %s x %.4g, %s's factor for %d ranks", h.busbw.text, h.algbw.text, f, c, *n)
			}
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expectedRows is how many rows the header's sizes and step make
// (nccl-tests prints one per size, from minBytes while not above
// maxBytes), or -1 when the output has no header or the step cannot end.
func (p *parser) expectedRows() int {
	if p.info.MinBytes == nil || p.info.MaxBytes == nil {
		return -1
	}
	lo, hi := *p.info.MinBytes, *p.info.MaxBytes
	k := 0
	switch {
	case p.info.StepFactor != nil && *p.info.StepFactor > 1 && lo > 0:
		for s := lo; s <= hi && k <= 1<<20; s *= *p.info.StepFactor {
			k++
			if s > math.MaxInt64 / *p.info.StepFactor {
				break
			}
		}
	case p.info.StepBytes != nil && *p.info.StepBytes > 0:
		if hi < lo {
			return 0
		}
		k = int((hi-lo) / *p.info.StepBytes + 1)
	default:
		return -1
	}
	if k > 1<<20 {
		return -1
	}
	return k
}

// checkRowCount compares the rows with what the header announces, which
// finds a row lost to a line NCCL or MPI wrote into it.
func (p *parser) checkRowCount() error {
	k := p.expectedRows()
	if k < 0 || k == len(p.rows) {
		return nil
	}
	step := ""
	if p.info.StepFactor != nil {
		step = fmt.Sprintf("x%d", *p.info.StepFactor)
	} else {
		step = fmt.Sprintf("+%d B", *p.info.StepBytes)
	}
	return textparse.Errorf(p.oobLine, "the header (line %d) announces %d sizes (%d to %d B, %s), the table has %d rows: rows were lost or garbled (a log line written into a row, an edited table), or the run repeated its sizes (-N); give one run's output whole", p.headerLine, k, *p.info.MinBytes, *p.info.MaxBytes, step, len(p.rows))
}

// checkAverage checks the trailer's "Avg bus bandwidth": nccl-tests'
// mean busbw of every result, out-of-place and in-place, within the
// rounding of the printed figures.
func (p *parser) checkAverage() error {
	if p.avg == nil {
		return nil
	}
	sum, halfs, k := 0.0, 0.0, 0
	for _, r := range p.rows {
		for _, h := range r.halves {
			sum += h.busbw.v
			halfs += h.busbw.half
			k++
		}
	}
	mean := sum / float64(k)
	tol := halfs/float64(k) + *p.avg*5e-6 + 1e-9
	if math.Abs(mean-*p.avg) > tol {
		return textparse.Errorf(p.avgLine, "Avg bus bandwidth %s is not the mean busbw of the table's %d results (%.4g): rows were removed or edited, or the output is garbled; give nccl-tests' output whole (or remove this line with the rows you removed on purpose)", p.avgText, k, mean)
	}
	return nil
}

// checkOutOfBounds checks the trailer's "Out of bounds values" against
// the rows' #wrong. nccl-tests (src/common.cu, CheckData) adds one there
// for each thread of each process that found wrong values in a result,
// and prints in the row the wrong values every rank found in it. So each
// result with wrong values counts at least once; and when each result's
// data is checked once (the header's "validation: 1"; -c N checks N
// times, and a check whose wrong values a later one no longer shows still
// counts), at most once per wrong value and per checking thread (ranks /
// nGpus), and a count without any wrong value is not nccl-tests'. With
// no check (validation: 0, #wrong N/A) it counts nothing. Releases
// before 2.13 print the largest deviation ("error") and count a result
// whose deviation passed a threshold: with one check, a count needs a
// deviation above 0. Rows and trailer that disagree are an edited or
// garbled table, or two runs' pieces, and a FAILED run's wrong rows must
// not pass as a clean run's.
func (p *parser) checkOutOfBounds() error {
	// Checking threads: known from the rank lines, not from figures that
	// only approximate the rank count.
	var checkers int64
	if g := p.info.GPUsPerThread; g != nil && *g > 0 && len(p.ranks) > 0 && len(p.ranks)%*g == 0 {
		checkers = int64(len(p.ranks) / *g)
	}
	var first *row
	firstHalf, results, upper := 0, 0, int64(0)
	deviation, deviations := false, false
	for i := range p.rows {
		for j, h := range p.rows[i].halves {
			if h.maxErr != nil {
				deviations = true
				deviation = deviation || *h.maxErr > 0
			}
			if h.wrong == nil || *h.wrong == 0 {
				continue
			}
			if first == nil {
				first, firstHalf = &p.rows[i], j
			}
			results++
			// #wrong is printed with %g: exact below a million, far above
			// any count of checking threads.
			n := *h.wrong
			if checkers > 0 {
				n = min(n, checkers)
			}
			upper += n
		}
	}
	verdict := "OK"
	if p.oob > 0 {
		verdict = "FAILED"
	}
	// What the user can do is the same whatever disagrees, and it is not
	// the general fix of parse errors (the whole output, another kind).
	disagree := func(format string, a ...any) error {
		return &textparse.Error{Line: p.oobLine, Msg: fmt.Sprintf(format, a...) + ": the table and the trailer disagree, so the table was edited or garbled, or holds pieces of two runs",
			Fix: "give nccl-tests' output as it printed it"}
	}
	if p.oob < int64(results) {
		halfName := [...]string{"out-of-place", "in-place"}[firstHalf]
		return disagree("the trailer says %d out of bounds values (%s), but the table has %s with a #wrong above 0 (the first at line %d: %s #wrong %d), and nccl-tests counts each there at least once", p.oob, verdict, plural.N(results, "result"), first.line, halfName, *first.halves[firstHalf].wrong)
	}
	v := p.info.Validation
	if v == nil || p.oob == 0 {
		return nil
	}
	switch {
	case *v == 0:
		return disagree("the trailer says %d out of bounds values (%s), but the run checked no data (the header's validation: 0, at line %d), and nccl-tests counts only what it checked", p.oob, verdict, p.headerLine)
	case *v != 1:
	case deviations && !deviation:
		return disagree("the trailer says %d out of bounds values (%s), but every result's error is 0, and with one data check per result (the header's validation: 1, at line %d) nccl-tests counts only results whose error passed its bound", p.oob, verdict, p.headerLine)
	case !deviations && results == 0:
		return disagree("the trailer says %d out of bounds values (%s), but every #wrong in the table is 0 or N/A, and with one data check per result (the header's validation: 1, at line %d) nccl-tests counts only results with wrong values", p.oob, verdict, p.headerLine)
	case !deviations && p.oob > upper:
		per := "per wrong value"
		if checkers > 0 {
			per = fmt.Sprintf("per wrong value and per checking thread (%d here)", checkers)
		}
		return disagree("the trailer says %d out of bounds values (%s), more than the table's #wrong allow (%d: with one data check per result, the header's validation: 1 at line %d, nccl-tests counts a result with wrong values at most once %s)", p.oob, verdict, upper, p.headerLine, per)
	}
	return nil
}

// dedupe keeps one row per size. Where the header's sizes round to the
// same printed size (the smallest sizes of all_gather, reduce_scatter
// and alltoall print as 0 bytes until a size holds one element per rank)
// the first row of that size stands for them; without a header to tell
// such rows from a repeated run, a repeated size other than 0 is refused.
func (p *parser) dedupe() ([]row, error) {
	seen := map[int64]int{}
	var out []row
	counted := p.expectedRows() == len(p.rows)
	for _, r := range p.rows {
		if firstLine, dup := seen[r.size]; dup {
			if r.size != 0 && !counted {
				return nil, textparse.Errorf(r.line, "size %d appears again (first at line %d): the run repeated its sizes (-N) or the file holds two runs; give one run's output", r.size, firstLine)
			}
			continue
		}
		seen[r.size] = r.line
		out = append(out, r)
	}
	return out, nil
}
