package sonic

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/textparse"
)

// CounterError reports where the text of a SONiC show command stopped making
// sense. Line is 1-based; 0 means the input as a whole (for example empty).
type CounterError = textparse.Error

// ctrReadLines splits input into lines without their line endings.
func ctrReadLines(r io.Reader) ([]string, error) {
	data, err := readlimit.ReadAll(r, "", readlimit.Output)
	if err != nil {
		return nil, fmt.Errorf("read counters: %w", err)
	}
	return textparse.Lines(data, "show-command output")
}

// ctrColumn is one column of a tabulate "simple" table: its title and the
// byte span its dashed rule covers.
type ctrColumn struct {
	Name       string
	Start, End int
}

// ctrRow is one data row cut into cells by the columns' spans.
type ctrRow struct {
	Line  int
	Cells []string
}

// ctrTable is one table as SONiC's show commands print it with Python's
// tabulate (tablefmt "simple"): a header line, a rule of dash runs, rows.
type ctrTable struct {
	HeaderLine int
	Namespace  string // from a preceding "For namespace X:" line
	Columns    []ctrColumn
	Rows       []ctrRow
}

// col returns the index of the column titled name, or -1.
func (t *ctrTable) col(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func (t *ctrTable) names() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// ctrIsRule reports whether line is a tabulate rule: dashes and spaces only.
func ctrIsRule(line string) bool {
	if !strings.Contains(line, "-") {
		return false
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '-' && line[i] != ' ' {
			return false
		}
	}
	return true
}

// ctrRuleSpans returns the dash runs of a rule line.
func ctrRuleSpans(line string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(line); {
		if line[i] != '-' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '-' {
			j++
		}
		spans = append(spans, [2]int{i, j})
		i = j
	}
	return spans
}

// ctrCut cuts line into cells along spans. Columns are located by the rule
// rather than by splitting on spaces because some cells hold spaces
// ("2000.00 MB/s", "Port Rx"). Text between or after the spans means the line
// does not belong to this table (wrapped, garbled or from another table), so
// it is an error rather than something to guess around.
func ctrCut(lineNo int, line string, cols []ctrColumn) ([]string, error) {
	if strings.ContainsRune(line, '\t') {
		return nil, textparse.Errorf(lineNo, "tab character in a table line: capture the command output as printed, without tab conversion")
	}
	cells := make([]string, len(cols))
	pos := 0
	for i, c := range cols {
		if gap := ctrSlice(line, pos, c.Start); strings.TrimSpace(gap) != "" {
			return nil, textparse.Errorf(lineNo, "text %q lies outside the table's columns (before column %q): the row does not line up with the header's dashed rule", strings.TrimSpace(gap), c.Name)
		}
		// Valid UTF-8 keeps names stable through JSON encoding.
		cells[i] = strings.ToValidUTF8(strings.TrimSpace(ctrSlice(line, c.Start, c.End)), "\uFFFD")
		pos = c.End
	}
	if rest := ctrSlice(line, pos, len(line)); strings.TrimSpace(rest) != "" {
		return nil, textparse.Errorf(lineNo, "text %q lies after the last column %q: the row has more columns than the header", strings.TrimSpace(rest), cols[len(cols)-1].Name)
	}
	return cells, nil
}

func ctrSlice(s string, from, to int) string {
	if from >= len(s) || from >= to {
		return ""
	}
	if to > len(s) {
		to = len(s)
	}
	return s[from:to]
}

// ctrProse is text SONiC prints around its tables that carries no counters.
func ctrProse(line string) bool {
	t := strings.TrimSpace(line)
	return strings.Contains(t, "Last cached time") ||
		strings.HasPrefix(t, "Reminder:") ||
		strings.HasPrefix(t, "The rates are calculated")
}

// ctrReadTables finds every table in lines. Besides tables it accepts blank
// lines, "For namespace X:" lines and the known prose; anything else is an
// error naming the line, so output of the wrong command or a stray error
// message is never read as counters.
func ctrReadTables(lines []string) ([]ctrTable, error) {
	var tables []ctrTable
	namespace := ""
	var cur *ctrTable
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		lineNo := i + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			cur = nil
			continue
		case cur != nil:
			if ctrIsRule(line) {
				return nil, textparse.Errorf(lineNo, "second dashed rule inside the table that starts at line %d: expected a data row", cur.HeaderLine)
			}
			cells, err := ctrCut(lineNo, line, cur.Columns)
			if err != nil {
				return nil, err
			}
			for j, c := range cells {
				if c == "" {
					return nil, textparse.Errorf(lineNo, "column %q is empty: the row is truncated or has fewer columns than the header", cur.Columns[j].Name)
				}
			}
			cur.Rows = append(cur.Rows, ctrRow{Line: lineNo, Cells: cells})
			continue
		case strings.HasPrefix(trimmed, "For namespace") && strings.HasSuffix(trimmed, ":"):
			namespace = strings.ToValidUTF8(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(trimmed, "For namespace"), ":")), "\uFFFD")
			continue
		case ctrIsRule(line):
			return nil, textparse.Errorf(lineNo, "dashed rule without a header line above it")
		case i+1 < len(lines) && ctrIsRule(lines[i+1]):
			spans := ctrRuleSpans(lines[i+1])
			cols := make([]ctrColumn, len(spans))
			for j, s := range spans {
				cols[j] = ctrColumn{Start: s[0], End: s[1]}
			}
			names, err := ctrCut(lineNo, line, cols)
			if err != nil {
				return nil, err
			}
			for j, n := range names {
				if n == "" {
					return nil, textparse.Errorf(lineNo, "header has no title over column %d of the dashed rule", j+1)
				}
				cols[j].Name = n
			}
			tables = append(tables, ctrTable{HeaderLine: lineNo, Namespace: namespace, Columns: cols})
			cur = &tables[len(tables)-1]
			i++ // the rule
			continue
		case ctrProse(line):
			continue
		default:
			return nil, textparse.Errorf(lineNo, "unexpected text %q: expected a table header followed by a dashed rule", ctrClip(trimmed))
		}
	}
	return tables, nil
}

func ctrClip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// ctrRequireColumns checks that t has exactly the titles in want at the
// start (in order) and returns the index of each.
func ctrRequireColumns(t *ctrTable, want []string, what string) error {
	for _, w := range want {
		if t.col(w) < 0 {
			return textparse.Errorf(t.HeaderLine, "table header %q has no %q column: expected the output of %s", strings.Join(t.names(), " | "), w, what)
		}
	}
	seen := map[string]bool{}
	for _, c := range t.Columns {
		if seen[c.Name] {
			return textparse.Errorf(t.HeaderLine, "column %q appears twice in the header", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// ctrParseCount parses a counter cell: digits with optional thousands
// commas (validated as groups of three); "N/A" is a missing value and
// returns nil, never zero. SAI's counters are unsigned 64-bit, so a cell
// runs to 18,446,744,073,709,551,615 (some platforms print that maximum
// for a counter they do not support: it is carried as printed). A
// negative cell is refused: older sonic-utilities print the change since
// a sonic-clear unclamped (newer ones clamp it at 0), and it goes negative
// when the counter was reset after the clear, so the count is unknown.
func ctrParseCount(lineNo int, col, s string) (*uint64, error) {
	if s == "N/A" {
		return nil, nil
	}
	digits := s
	neg := strings.HasPrefix(digits, "-")
	if neg {
		digits = digits[1:]
	}
	if strings.Contains(digits, ",") {
		groups := strings.Split(digits, ",")
		if len(groups[0]) < 1 || len(groups[0]) > 3 {
			return nil, textparse.Errorf(lineNo, "column %q: %q is not a number with thousands commas", col, s)
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return nil, textparse.Errorf(lineNo, "column %q: %q is not a number with thousands commas", col, s)
			}
		}
		digits = strings.Join(groups, "")
	}
	if digits == "" {
		return nil, textparse.Errorf(lineNo, "column %q: %q is not a number", col, s)
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, textparse.Errorf(lineNo, "column %q: %q is not a counter (expected digits with optional thousands commas, or N/A)", col, s)
		}
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return nil, textparse.Errorf(lineNo, "column %q: %q does not fit a 64-bit counter (SAI's counters are unsigned 64-bit: at most 18,446,744,073,709,551,615)", col, s)
	}
	if neg && v != 0 {
		return nil, &textparse.Error{Line: lineNo,
			Msg: fmt.Sprintf("column %q: %q is negative: this SONiC prints the change since 'sonic-clear' unclamped, and a counter reset after the clear makes it negative, so the count is unknown", col, s),
			Fix: "clear the counters again (sonic-clear pfccounters, queuecounters or counters) and take the output anew"}
	}
	return &v, nil
}

// ctrParseFloatUnit parses "<number><suffix>" such as "64.00%" or
// "9000.00/s"; "N/A" returns nil.
func ctrParseFloatUnit(lineNo int, col, s, suffix string) (*float64, error) {
	if s == "N/A" {
		return nil, nil
	}
	num, ok := strings.CutSuffix(s, suffix)
	if !ok {
		return nil, textparse.Errorf(lineNo, "column %q: %q does not end in %q", col, s, suffix)
	}
	v, err := ctrParseDecimal(num)
	if err != nil {
		return nil, textparse.Errorf(lineNo, "column %q: %q is not a number followed by %q", col, s, suffix)
	}
	return &v, nil
}

// ctrParseDecimal accepts plain decimal numbers only (no exponents, NaN or
// Inf), as SONiC prints them with "{:.2f}", optionally with thousands commas.
func ctrParseDecimal(s string) (float64, error) {
	plain := strings.ReplaceAll(s, ",", "")
	if plain == "" {
		return 0, fmt.Errorf("empty")
	}
	dot := false
	for i := 0; i < len(plain); i++ {
		c := plain[i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		case c == '-' && i == 0 && len(plain) > 1:
		default:
			return 0, fmt.Errorf("not a decimal number")
		}
	}
	return strconv.ParseFloat(plain, 64)
}

// ctrParseByteRate parses SONiC's byte rates ("0.00 B/s", "204.80 KB/s",
// "13.37 MB/s"; decimal units, see utilities_common/netstat.py format_brate)
// into bytes per second.
func ctrParseByteRate(lineNo int, col, s string) (*float64, error) {
	if s == "N/A" {
		return nil, nil
	}
	num, unit, ok := strings.Cut(s, " ")
	mult := 0.0
	switch unit {
	case "B/s":
		mult = 1
	case "KB/s":
		mult = 1e3
	case "MB/s":
		mult = 1e6
	case "GB/s":
		mult = 1e9
	}
	if !ok || mult == 0 {
		return nil, textparse.Errorf(lineNo, "column %q: %q is not a byte rate (expected a number and B/s, KB/s or MB/s)", col, s)
	}
	v, err := ctrParseDecimal(num)
	if err != nil {
		return nil, textparse.Errorf(lineNo, "column %q: %q is not a byte rate", col, s)
	}
	v *= mult
	return &v, nil
}

// ctrLastLine is the line number to blame when input ends too early.
func ctrLastLine(lines []string) int {
	return len(lines)
}
