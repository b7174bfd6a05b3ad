package perftest

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// ParseError reports where perftest output stopped making sense. Line is
// 1-based; 0 means the input as a whole.
type ParseError = textparse.Error

// Report formats.
const (
	FormatText   = "text"     // what the binaries print
	FormatJSON45 = "json-4.5" // --out_json of perftest 4.5: keys without quotes
	FormatJSON   = "json"     // --out_json of perftest 24.x and later
)

// Bandwidth units perftest prints. MB/sec (4.5) and MiB/sec (later) are both
// 2^20 bytes per second; Gb/sec is 10^9 bits per second (--report_gbits).
const (
	UnitsGbps  = "Gb/sec"
	UnitsMBps  = "MB/sec"
	UnitsMiBps = "MiB/sec"
)

// gbpsPer converts a bandwidth in units to Gb/s; ok is false for unknown
// units, in which case no Gb/s figure is given rather than a guessed one.
func gbpsPer(units string) (float64, bool) {
	switch units {
	case UnitsGbps:
		return 1, true
	case UnitsMBps, UnitsMiBps:
		return float64(1<<20) * 8 / 1e9, true
	}
	return 0, false
}

// BWReport is an ib_write_bw result.
type BWReport struct {
	Format   string            `json:"format"`
	Test     string            `json:"test,omitempty"`     // e.g. "RDMA_Write BW Test"
	Settings map[string]string `json:"settings,omitempty"` // the banner: Device, Number of qps, Mtu, ...
	// Units of BWPeak and BWAverage; empty for a JSON report, which does
	// not say (labctl always passes --report_gbits: read as Gb/sec).
	Units    string   `json:"units,omitempty"`
	Rows     []BWRow  `json:"rows"`
	Warnings []string `json:"warnings,omitempty"`
}

// BWRow is one message size's result.
type BWRow struct {
	Bytes      int64 `json:"bytes"`
	SL         *int  `json:"sl,omitempty"` // --raw_qos reports only
	Iterations int64 `json:"iterations"`
	// BWPeak is nil when perftest did not measure it (runs with -D print
	// 0.00 and a warning).
	BWPeak      *float64 `json:"bw_peak"`
	BWAverage   float64  `json:"bw_average"`
	MsgRateMpps float64  `json:"msg_rate_mpps"`
	// Gb/s figures, when the units are known.
	PeakGbps    *float64 `json:"peak_gbps,omitempty"`
	AverageGbps *float64 `json:"average_gbps,omitempty"`
	CPUUtilPct  *float64 `json:"cpu_util_pct,omitempty"`
	// Per-port figures of --report-per-port runs (dual-port devices).
	PortBW          []float64 `json:"port_bw,omitempty"`
	PortMsgRateMpps []float64 `json:"port_msg_rate_mpps,omitempty"`
}

// AverageGbps returns the average bandwidth of a single-size run in Gb/s.
func (r *BWReport) AverageGbps() (float64, error) {
	if len(r.Rows) != 1 {
		return 0, fmt.Errorf("bandwidth report has %d result rows, expected 1 (a run with one message size)", len(r.Rows))
	}
	if r.Rows[0].AverageGbps == nil {
		return 0, fmt.Errorf("bandwidth report does not say its units: run ib_write_bw with --report_gbits, or parse the text output")
	}
	return *r.Rows[0].AverageGbps, nil
}

// LatReport is an ib_write_lat result.
type LatReport struct {
	Format   string            `json:"format"`
	Test     string            `json:"test,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
	Rows     []LatRow          `json:"rows"`
	Warnings []string          `json:"warnings,omitempty"`
}

// LatRow is one message size's latency in microseconds. Runs with -D report
// only the average and transactions per second; the other figures are nil.
type LatRow struct {
	Bytes      int64    `json:"bytes"`
	Iterations int64    `json:"iterations"`
	MinUs      *float64 `json:"min_us,omitempty"`
	MaxUs      *float64 `json:"max_us,omitempty"`
	TypicalUs  *float64 `json:"typical_us,omitempty"`
	AvgUs      float64  `json:"avg_us"`
	StdevUs    *float64 `json:"stdev_us,omitempty"`
	P99Us      *float64 `json:"p99_us,omitempty"`
	P999Us     *float64 `json:"p99_9_us,omitempty"`
	TPS        *float64 `json:"tps,omitempty"`
	CPUUtilPct *float64 `json:"cpu_util_pct,omitempty"`
}

// ParseBW parses ib_write_bw output: the text report, or either JSON form
// (detected by a leading '{').
func ParseBW(r io.Reader) (*BWReport, error) { return ParseBWOf(r, WriteBW) }

// ParseBWOf parses the output of test, one of BWTests. Output whose test
// name says another test ran is refused, naming it; output without one
// (no banner) is taken as test's.
func ParseBWOf(r io.Reader, test Test) (*BWReport, error) {
	if !slices.Contains(BWTests, test) {
		return nil, fmt.Errorf("perftest test %q is not a bandwidth test: use one of %v", test, BWTests)
	}
	data, err := readlimit.ReadAll(r, "", readlimit.Output)
	if err != nil {
		return nil, fmt.Errorf("read %s output: %w", test, err)
	}
	if looksJSON(data) {
		return parseBWJSON(data, test)
	}
	lines, err := textparse.Lines(data, "perftest output")
	if err != nil {
		return nil, err
	}
	return parseBWText(lines, test)
}

// ParseLat parses ib_write_lat output: text or either JSON form.
func ParseLat(r io.Reader) (*LatReport, error) { return ParseLatOf(r, WriteLat) }

// ParseLatOf parses the output of test, one of LatTests, as ParseBWOf
// does.
func ParseLatOf(r io.Reader, test Test) (*LatReport, error) {
	if !slices.Contains(LatTests, test) {
		return nil, fmt.Errorf("perftest test %q is not a latency test: use one of %v", test, LatTests)
	}
	data, err := readlimit.ReadAll(r, "", readlimit.Output)
	if err != nil {
		return nil, fmt.Errorf("read %s output: %w", test, err)
	}
	if looksJSON(data) {
		return parseLatJSON(data, test)
	}
	lines, err := textparse.Lines(data, "perftest output")
	if err != nil {
		return nil, err
	}
	return parseLatText(lines, test)
}

func looksJSON(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '{'
}

// Column titles of the result tables (perftest_parameters.h RESULT_FMT*).
var bwTitleRe = lazyregexp.New(`#bytes|#sl|#iterations|BW peak\[[^\]]*\]|BW average\[[^\]]*\]|MsgRate\[Mpps\]|BW Port[12]\[[^\]]*\]|MsgRate Port[12]\[Mpps\]|CPU_Util\[%\]`)
var latTitleRe = lazyregexp.New(`#bytes|#iterations|t_min\[usec\]|t_max\[usec\]|t_typical\[usec\]|t_avg\[usec\]|t_stdev\[usec\]|99% percentile\[usec\]|99\.9% percentile\[usec\]|tps average|CPU_Util\[%\]`)

// splitTitles splits a header line into the titles re knows and fails if
// anything else is on the line.
func splitTitles(lineNo int, line string, re *regexp.Regexp) ([]string, error) {
	titles := re.FindAllString(line, -1)
	if rest := strings.TrimSpace(re.ReplaceAllString(line, " ")); rest != "" {
		return nil, textparse.Errorf(lineNo, "result header holds unknown text %q", rest)
	}
	return titles, nil
}

// isRule reports a perftest dashed rule.
func isRule(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 10 && strings.Trim(t, "-") == ""
}

// banner reads the block perftest prints before the results: the test
// name, then "Key : Value" settings, two to a line separated by tabs.
var settingRe = lazyregexp.New(`([A-Za-z][A-Za-z0-9_.*\- ]*?)\s*:\s*(\S+)`)

func readBanner(lines []string, headerIdx int) (test string, testLine int, settings map[string]string) {
	start := -1
	for i := 0; i < headerIdx; i++ {
		if isRule(lines[i]) {
			start = i
			break
		}
	}
	if start < 0 {
		return "", 0, nil
	}
	for i := start + 1; i < headerIdx; i++ {
		line := lines[i]
		t := strings.TrimSpace(line)
		if isRule(line) {
			break
		}
		if t == "" {
			continue
		}
		if test == "" && !strings.Contains(t, ":") && strings.HasSuffix(t, "Test") {
			test, testLine = clean(t), i+1
			continue
		}
		for _, m := range settingRe().FindAllStringSubmatch(strings.ReplaceAll(line, "\t", " "), -1) {
			if settings == nil {
				settings = map[string]string{}
			}
			settings[clean(strings.TrimSpace(m[1]))] = clean(m[2])
		}
	}
	return test, testLine, settings
}

// otherReport is the error for the other report's result header at line
// (a latency report given as a bandwidth test's, or the other way round):
// it names the test the report's banner names, else want's sibling.
func otherReport(lines []string, line int, what string, want Test) error {
	name, _, _ := readBanner(lines, line-1)
	got := testOf(name)
	if got == "" || got == want {
		got = sibling(want)
	}
	return &textparse.Error{Line: line, Msg: fmt.Sprintf("this is a %s report (%s), expected %s output", what, got, want),
		Fix: parseAs(got)}
}

// isNoise reports lines that may interleave with the result table: stderr
// warnings and notices. They never start with a digit, unlike result rows.
func isNoise(t string) bool {
	return t == "" || !(t[0] >= '0' && t[0] <= '9')
}

func isWarning(t string) bool {
	u := strings.ToUpper(t)
	return strings.Contains(u, "WARNING") || strings.Contains(t, "Conflicting CPU frequency") || strings.HasPrefix(u, "ERROR") || strings.Contains(t, "Requested mtu is higher")
}

const noPeakWarning = "BW peak won't be measured"

// findHeader returns the index of the first line (trimmed) starting with
// "#bytes" whose titles match want, or -1.
func findHeader(lines []string, want string) int {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#bytes") && strings.Contains(t, want) {
			return i
		}
	}
	return -1
}

// testNameRe matches the test name of perftest's banner
// (ctx_print_test_info in perftest_parameters.c): the verb, the atomic
// operation, "Bidirectional", "Post List", "BW" or "Latency", ... "Test".
var testNameRe = lazyregexp.New(`^(Send|Send_imm|RDMA_Write|RDMA_Write_imm|RDMA_Read|Atomic) (.* )?Test$`)

// checkOneRun refuses output holding more than one run. perftest prints
// its banner's test name and its result header once a run, so a second
// of either is a second run (outputs appended with >>): reading on would
// give the first run's figures and drop the second's without a word.
func checkOneRun(lines []string) error {
	var headers, banners []int
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "#bytes"):
			headers = append(headers, i+1)
		case testNameRe().MatchString(t):
			banners = append(banners, i+1)
		}
	}
	if len(headers) > 1 {
		second := ""
		if len(banners) > 1 && banners[1] < headers[1] {
			second = fmt.Sprintf(", the second's banner (%s) at line %d", clean(strings.TrimSpace(lines[banners[1]-1])), banners[1])
		}
		return textparse.SecondRun(headers[1], headers[0], "perftest result header", second)
	}
	if len(banners) > 1 {
		return textparse.SecondRun(banners[1], banners[0], fmt.Sprintf("perftest banner (%s)", clean(strings.TrimSpace(lines[banners[1]-1]))), "")
	}
	return nil
}

func parseBWText(lines []string, want Test) (*BWReport, error) {
	if err := checkOneRun(lines); err != nil {
		return nil, err
	}
	h := findHeader(lines, "BW average[")
	if h < 0 {
		if i := findHeader(lines, "t_avg[usec]"); i >= 0 {
			return nil, otherReport(lines, i+1, "latency", want)
		}
		return nil, textparse.Errorf(len(lines), "no result header \" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\": is this %s output, and did the run finish?", want)
	}
	rep := &BWReport{Format: FormatText, Rows: []BWRow{}}
	var testLine int
	rep.Test, testLine, rep.Settings = readBanner(lines, h)
	if err := checkTest(want, rep.Test, testLine); err != nil {
		return nil, err
	}
	titles, err := splitTitles(h+1, lines[h], bwTitleRe())
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	unitsSet := false
	for i, t := range titles {
		key := t
		if j := strings.Index(t, "["); j > 0 && strings.HasPrefix(t, "BW") {
			units := strings.TrimSuffix(t[j+1:], "]")
			if unitsSet && rep.Units != units {
				return nil, textparse.Errorf(h+1, "bandwidth columns disagree on units (%q, %q)", rep.Units, units)
			}
			rep.Units, unitsSet = units, true
			if !strings.HasPrefix(t, "BW Port") {
				key = t[:j]
			}
		}
		if _, dup := col[key]; dup {
			return nil, textparse.Errorf(h+1, "column %q appears twice in the result header", t)
		}
		col[key] = i
	}
	for _, need := range []string{"#bytes", "#iterations", "BW peak", "BW average", "MsgRate[Mpps]"} {
		if _, ok := col[need]; !ok {
			return nil, textparse.Errorf(h+1, "result header lacks the %q column", need)
		}
	}
	factor, known := gbpsPer(rep.Units)
	if !known {
		return nil, textparse.Errorf(h+1, "bandwidth units %q: expected Gb/sec, MB/sec or MiB/sec", rep.Units)
	}
	noPeak := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.Contains(t, noPeakWarning) {
			noPeak = true
		}
		if i != h && isWarning(t) {
			rep.Warnings = append(rep.Warnings, clean(t))
		}
	}
	err = eachRow(lines, h, titles, col, func(line int, f []string, size, iterations int64) error {
		row := BWRow{Bytes: size, Iterations: iterations}
		if c, ok := col["#sl"]; ok {
			sl, err := parseInt(line, "#sl", f[c])
			if err != nil || sl > 15 {
				return textparse.Errorf(line, "#sl %q: expected a service level 0-15", f[c])
			}
			v := int(sl)
			row.SL = &v
		}
		peak, err := parseFloat(line, "BW peak", f[col["BW peak"]])
		if err != nil {
			return err
		}
		if row.BWAverage, err = parseFloat(line, "BW average", f[col["BW average"]]); err != nil {
			return err
		}
		if row.MsgRateMpps, err = parseFloat(line, "MsgRate", f[col["MsgRate[Mpps]"]]); err != nil {
			return err
		}
		if c, ok := col["CPU_Util[%]"]; ok {
			v, err := parseFloat(line, "CPU_Util", f[c])
			if err != nil {
				return err
			}
			row.CPUUtilPct = &v
		}
		for _, p := range []string{"1", "2"} {
			if c, ok := col["BW Port"+p+"["+rep.Units+"]"]; ok {
				v, err := parseFloat(line, "BW Port"+p, f[c])
				if err != nil {
					return err
				}
				row.PortBW = append(row.PortBW, v)
			}
			if c, ok := col["MsgRate Port"+p+"[Mpps]"]; ok {
				v, err := parseFloat(line, "MsgRate Port"+p, f[c])
				if err != nil {
					return err
				}
				row.PortMsgRateMpps = append(row.PortMsgRateMpps, v)
			}
		}
		setPeak(&row, peak, noPeak, factor, known)
		rep.Rows = append(rep.Rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// eachRow calls fn for each row of the result table whose header is
// lines[h]: the lines up to the closing rule that start with a digit, each
// with one field per title and #bytes and #iterations already read. line is
// 1-based. A table without rows is an error.
func eachRow(lines []string, h int, titles []string, col map[string]int, fn func(line int, f []string, size, iterations int64) error) error {
	rows := 0
	for i := h + 1; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if isRule(t) {
			break
		}
		if isNoise(t) {
			continue
		}
		f := strings.Fields(t)
		if len(f) != len(titles) {
			return textparse.Errorf(i+1, "result row has %d fields, the header at line %d has %d columns (%s): truncated or garbled row", len(f), h+1, len(titles), strings.Join(titles, ", "))
		}
		size, err := parseInt(i+1, "#bytes", f[col["#bytes"]])
		if err != nil {
			return err
		}
		iterations, err := parseInt(i+1, "#iterations", f[col["#iterations"]])
		if err != nil {
			return err
		}
		if err := fn(i+1, f, size, iterations); err != nil {
			return err
		}
		rows++
	}
	if rows == 0 {
		return textparse.Errorf(h+1, "no result row after the header: the run was cut short or failed")
	}
	return nil
}

// setPeak records the peak unless perftest did not measure it: with -D it
// prints 0.00 (and a warning in the text). A peak of zero under a non-zero
// average cannot be a measurement, so it is treated the same way — the JSON
// report carries no warning.
func setPeak(row *BWRow, peak float64, noPeak bool, factor float64, known bool) {
	if !(noPeak || (peak == 0 && row.BWAverage > 0)) {
		row.BWPeak = &peak
	}
	if known {
		avg := row.BWAverage * factor
		row.AverageGbps = &avg
		if row.BWPeak != nil {
			p := *row.BWPeak * factor
			row.PeakGbps = &p
		}
	}
}

func parseLatText(lines []string, want Test) (*LatReport, error) {
	if err := checkOneRun(lines); err != nil {
		return nil, err
	}
	h := findHeader(lines, "t_avg[usec]")
	if h < 0 {
		if i := findHeader(lines, "BW average["); i >= 0 {
			return nil, otherReport(lines, i+1, "bandwidth", want)
		}
		return nil, textparse.Errorf(len(lines), "no result header \" #bytes #iterations    t_min[usec] ...\": is this %s output, and did the run finish?", want)
	}
	rep := &LatReport{Format: FormatText, Rows: []LatRow{}}
	var testLine int
	rep.Test, testLine, rep.Settings = readBanner(lines, h)
	if err := checkTest(want, rep.Test, testLine); err != nil {
		return nil, err
	}
	titles, err := splitTitles(h+1, lines[h], latTitleRe())
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, t := range titles {
		if _, dup := col[t]; dup {
			return nil, textparse.Errorf(h+1, "column %q appears twice in the result header", t)
		}
		col[t] = i
	}
	for _, need := range []string{"#bytes", "#iterations", "t_avg[usec]"} {
		if _, ok := col[need]; !ok {
			return nil, textparse.Errorf(h+1, "result header lacks the %q column", need)
		}
	}
	_, duration := col["tps average"]
	if !duration {
		for _, need := range []string{"t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]"} {
			if _, ok := col[need]; !ok {
				return nil, textparse.Errorf(h+1, "result header lacks the %q column", need)
			}
		}
	}
	for i, l := range lines {
		if t := strings.TrimSpace(l); i != h && isWarning(t) {
			rep.Warnings = append(rep.Warnings, clean(t))
		}
	}
	err = eachRow(lines, h, titles, col, func(line int, f []string, size, iterations int64) error {
		avg, err := parseFloat(line, "t_avg", f[col["t_avg[usec]"]])
		if err != nil {
			return err
		}
		row := LatRow{Bytes: size, Iterations: iterations, AvgUs: avg}
		opt := []struct {
			title string
			dst   **float64
		}{
			{"t_min[usec]", &row.MinUs}, {"t_max[usec]", &row.MaxUs}, {"t_typical[usec]", &row.TypicalUs},
			{"t_stdev[usec]", &row.StdevUs}, {"99% percentile[usec]", &row.P99Us}, {"99.9% percentile[usec]", &row.P999Us},
			{"tps average", &row.TPS}, {"CPU_Util[%]", &row.CPUUtilPct},
		}
		for _, o := range opt {
			c, ok := col[o.title]
			if !ok {
				continue
			}
			v, err := parseFloat(line, o.title, f[c])
			if err != nil {
				return err
			}
			*o.dst = &v
		}
		if err := checkLatOrder(line, row); err != nil {
			return err
		}
		rep.Rows = append(rep.Rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// checkLatOrder rejects rows whose figures cannot come from one
// measurement (min above max, a percentile below the minimum), which is how
// fields shifted by a garbled line show up.
func checkLatOrder(line int, r LatRow) error {
	if r.MinUs == nil || r.MaxUs == nil {
		return nil
	}
	lo, hi := *r.MinUs, *r.MaxUs
	check := map[string]float64{"t_avg": r.AvgUs}
	if r.TypicalUs != nil {
		check["t_typical"] = *r.TypicalUs
	}
	if r.P99Us != nil {
		check["99% percentile"] = *r.P99Us
	}
	if r.P999Us != nil {
		check["99.9% percentile"] = *r.P999Us
	}
	if lo > hi {
		return textparse.Errorf(line, "t_min %.2f above t_max %.2f: garbled row", lo, hi)
	}
	for name, v := range check {
		// perftest rounds to 2 decimals; allow that much slack.
		if v < lo-0.01 || v > hi+0.01 {
			return textparse.Errorf(line, "%s %.2f outside t_min..t_max (%.2f..%.2f): garbled row", name, v, lo, hi)
		}
	}
	return nil
}

func parseInt(line int, col, s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, textparse.Errorf(line, "%s %q: expected a non-negative integer", col, s)
	}
	return v, nil
}

// parseFloat accepts the plain decimals perftest prints with %lf; no
// exponents, NaN, Inf or signs, which would only come from garbled input.
func parseFloat(line int, col, s string) (float64, error) {
	ok := s != "" && s != "."
	dot := false
	for i := 0; ok && i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		default:
			ok = false
		}
	}
	if !ok {
		return 0, textparse.Errorf(line, "%s %q: expected a decimal number", col, s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, textparse.Errorf(line, "%s %q: expected a decimal number", col, s)
	}
	return v, nil
}

// clean makes text copied from the output valid UTF-8, so that the report
// encodes to JSON and back unchanged.
func clean(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
