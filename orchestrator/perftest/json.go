package perftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/textparse"
)

// jsonReport is a --out_json file flattened to two levels: section name
// ("test_info", "results") to key to value, with the line of each key.
type jsonReport struct {
	format   string
	sections map[string]map[string]string
	lines    map[string]int // "section.key" -> line (0 when unknown)
	endLine  int
}

// readJSONReport reads a --out_json file. perftest 24.x writes JSON
// (although a few of its report modes still leave a trailing comma);
// perftest 4.5 writes the same layout with bare keys and values:
//
//	{
//	test_info: {
//	test: RDMA_Write_BW_Test,
//	Device: "rxe0",
//	...
//	},
//	results: {
//	MsgSize: 65536,
//	BW_average: 9.21,
//	...
//	},
//	}
//
// Real JSON is decoded as such; anything else goes through a line reader
// that knows this layout and reports the line where it stops fitting.
func readJSONReport(data []byte) (*jsonReport, error) {
	var doc map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err == nil && !dec.More() {
		return fromJSON(doc, bytes.Count(data, []byte("\n"))+1)
	}
	return readLooseJSON(data)
}

func fromJSON(doc map[string]json.RawMessage, endLine int) (*jsonReport, error) {
	rep := &jsonReport{format: FormatJSON, sections: map[string]map[string]string{}, lines: map[string]int{}, endLine: endLine}
	for name, raw := range doc {
		var sec map[string]any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&sec); err != nil {
			return nil, textparse.Errorf(0, "%q is not an object of values: %v", name, err)
		}
		m := map[string]string{}
		for k, v := range sec {
			switch x := v.(type) {
			case json.Number:
				m[k] = x.String()
			case string:
				m[k] = x
			case bool:
				m[k] = strconv.FormatBool(x)
			default:
				return nil, textparse.Errorf(0, "%s.%s: expected a number or a string, got %T", name, k, v)
			}
		}
		rep.sections[name] = m
	}
	return rep, nil
}

func readLooseJSON(data []byte) (*jsonReport, error) {
	lines, err := textparse.Lines(data, "perftest output")
	if err != nil {
		return nil, err
	}
	rep := &jsonReport{format: FormatJSON45, sections: map[string]map[string]string{}, lines: map[string]int{}, endLine: len(lines)}
	depth := 0
	section := ""
	closed := false
	opened := 0 // the line of the report's '{'
	for i, l := range lines {
		n := i + 1
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if closed {
			if t == "{" {
				// Two reports appended to one file.
				return nil, textparse.SecondRun(n, opened, "--out_json report", "")
			}
			return nil, textparse.Errorf(n, "text %q after the closing brace", clip(t))
		}
		switch {
		case t == "{":
			if depth != 0 {
				return nil, textparse.Errorf(n, "unexpected '{': expected \"key: value\" or \"key: {\"")
			}
			depth, opened = 1, n
			if quoted(data) {
				rep.format = FormatJSON
			}
			continue
		case t == "}" || t == "},":
			if depth == 0 {
				return nil, textparse.Errorf(n, "'}' without a matching '{'")
			}
			depth--
			if depth == 0 {
				closed = true
			}
			section = ""
			continue
		case depth == 0:
			return nil, textparse.Errorf(n, "text %q before the opening '{': expected a perftest --out_json report", clip(t))
		}
		key, val, ok := strings.Cut(t, ":")
		if !ok {
			return nil, textparse.Errorf(n, "%q: expected \"key: value\"", clip(t))
		}
		key = clean(unquote(strings.TrimSpace(key)))
		val = strings.TrimSpace(val)
		if key == "" {
			return nil, textparse.Errorf(n, "%q: empty key", clip(t))
		}
		if val == "{" {
			if depth != 1 {
				return nil, textparse.Errorf(n, "section %q nested in %q: perftest reports have one level of sections", key, section)
			}
			if _, dup := rep.sections[key]; dup {
				return nil, textparse.Errorf(n, "section %q appears twice", key)
			}
			depth = 2
			section = key
			rep.sections[key] = map[string]string{}
			continue
		}
		if depth != 2 {
			return nil, textparse.Errorf(n, "%q outside a section: expected \"test_info: {\" or \"results: {\"", clip(t))
		}
		val = unquote(strings.TrimSpace(strings.TrimSuffix(val, ",")))
		if _, dup := rep.sections[section][key]; dup {
			return nil, textparse.Errorf(n, "key %q appears twice in %q", key, section)
		}
		rep.sections[section][key] = clean(val)
		rep.lines[section+"."+key] = n
	}
	if !closed {
		return nil, textparse.Errorf(len(lines), "input ends inside the report (depth %d): truncated --out_json file?", depth)
	}
	return rep, nil
}

// quoted reports whether the keys of the loose report are quoted (24.x
// output that strict JSON decoding rejected, e.g. for a trailing comma).
func quoted(data []byte) bool {
	return bytes.Contains(data, []byte(`"results"`)) || bytes.Contains(data, []byte(`"test_info"`))
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// results returns the results section or an error naming what is missing.
func (j *jsonReport) results(what string) (map[string]string, error) {
	res, ok := j.sections["results"]
	if !ok {
		return nil, textparse.Errorf(j.endLine, "no \"results\" section: expected a perftest --out_json %s report", what)
	}
	return res, nil
}

func (j *jsonReport) line(key string) int {
	if n, ok := j.lines["results."+key]; ok {
		return n
	}
	return j.endLine
}

func (j *jsonReport) number(res map[string]string, key string) (float64, error) {
	s, ok := res[key]
	if !ok {
		return 0, textparse.Errorf(j.endLine, "results lack %q", key)
	}
	return parseFloat(j.line(key), key, s)
}

func (j *jsonReport) integer(res map[string]string, key string) (int64, error) {
	s, ok := res[key]
	if !ok {
		return 0, textparse.Errorf(j.endLine, "results lack %q", key)
	}
	return parseInt(j.line(key), key, s)
}

func (j *jsonReport) settings() (string, map[string]string) {
	info := j.sections["test_info"]
	if len(info) == 0 {
		return "", nil
	}
	out := map[string]string{}
	test := ""
	for k, v := range info {
		if k == "test" {
			test = v
			continue
		}
		out[k] = v
	}
	return test, out
}

// otherReport is the error for the other report (latency results given
// as a bandwidth test's, or the other way round), naming the test its
// test_info names, else want's sibling.
func (j *jsonReport) otherReport(what string, want Test) error {
	name, _ := j.settings()
	got := testOf(name)
	if got == "" || got == want {
		got = sibling(want)
	}
	return &textparse.Error{Line: j.endLine, Msg: fmt.Sprintf("this is a %s report (%s), expected %s output", what, got, want),
		Fix: parseAs(got)}
}

func parseBWJSON(data []byte, want Test) (*BWReport, error) {
	j, err := readJSONReport(data)
	if err != nil {
		return nil, err
	}
	res, err := j.results(string(want))
	if err != nil {
		return nil, err
	}
	if _, ok := res["BW_average"]; !ok {
		switch {
		case res["t_avg"] != "" || res["avg_lat"] != "":
			return nil, j.otherReport("latency", want)
		case res["bw_avg"] != "" || res["msgRate_avg"] != "":
			return nil, textparse.Errorf(j.endLine, "report made with --output=bandwidth or --output=message_rate holds one figure: run without --output for the full report")
		}
		return nil, textparse.Errorf(j.endLine, "results lack \"BW_average\": expected an %s --out_json report", want)
	}
	rep := &BWReport{Format: j.format, Rows: []BWRow{}}
	rep.Test, rep.Settings = j.settings()
	if err := checkTest(want, rep.Test, j.lines["test_info.test"]); err != nil {
		return nil, err
	}
	var row BWRow
	if row.Bytes, err = j.integer(res, "MsgSize"); err != nil {
		return nil, err
	}
	if row.Iterations, err = j.integer(res, "n_iterations"); err != nil {
		return nil, err
	}
	peak, err := j.number(res, "BW_peak")
	if err != nil {
		return nil, err
	}
	if row.BWAverage, err = j.number(res, "BW_average"); err != nil {
		return nil, err
	}
	if row.MsgRateMpps, err = j.number(res, "MsgRate"); err != nil {
		return nil, err
	}
	if _, ok := res["sl"]; ok {
		sl, err := j.integer(res, "sl")
		if err != nil || sl > 15 {
			return nil, textparse.Errorf(j.line("sl"), "sl %q: expected a service level 0-15", res["sl"])
		}
		v := int(sl)
		row.SL = &v
	}
	if _, ok := res["CPU_util"]; ok {
		v, err := j.number(res, "CPU_util")
		if err != nil {
			return nil, err
		}
		row.CPUUtilPct = &v
	}
	// The JSON report does not record its units; leave Gb/s unset.
	setPeak(&row, peak, false, 0, false)
	rep.Rows = append(rep.Rows, row)
	return rep, nil
}

// WithUnits returns a copy of a report whose units were not recorded (a
// JSON report) with units set and Gb/s figures filled in. The caller knows
// the units from the command line it ran (--report_gbits or not).
func (r *BWReport) WithUnits(units string) (*BWReport, error) {
	factor, ok := gbpsPer(units)
	if !ok {
		return nil, fmt.Errorf("bandwidth units %q: use %s, %s or %s", units, UnitsGbps, UnitsMBps, UnitsMiBps)
	}
	if r.Units != "" && r.Units != units {
		return nil, fmt.Errorf("report is in %s, not %s", r.Units, units)
	}
	out := *r
	out.Units = units
	out.Rows = make([]BWRow, len(r.Rows))
	for i, row := range r.Rows {
		avg := row.BWAverage * factor
		row.AverageGbps = &avg
		row.PeakGbps = nil
		if row.BWPeak != nil {
			p := *row.BWPeak * factor
			row.PeakGbps = &p
		}
		out.Rows[i] = row
	}
	return &out, nil
}

func parseLatJSON(data []byte, want Test) (*LatReport, error) {
	j, err := readJSONReport(data)
	if err != nil {
		return nil, err
	}
	res, err := j.results(string(want))
	if err != nil {
		return nil, err
	}
	if _, ok := res["t_avg"]; !ok {
		switch {
		case res["BW_average"] != "" || res["bw_avg"] != "":
			return nil, j.otherReport("bandwidth", want)
		case res["avg_lat"] != "":
			return nil, textparse.Errorf(j.endLine, "report made with --output=latency holds one figure: run without --output for the full report")
		}
		return nil, textparse.Errorf(j.endLine, "results lack \"t_avg\": expected an %s --out_json report", want)
	}
	rep := &LatReport{Format: j.format, Rows: []LatRow{}}
	rep.Test, rep.Settings = j.settings()
	if err := checkTest(want, rep.Test, j.lines["test_info.test"]); err != nil {
		return nil, err
	}
	var row LatRow
	if row.Bytes, err = j.integer(res, "MsgSize"); err != nil {
		return nil, err
	}
	if row.Iterations, err = j.integer(res, "n_iterations"); err != nil {
		return nil, err
	}
	if row.AvgUs, err = j.number(res, "t_avg"); err != nil {
		return nil, err
	}
	_, duration := res["tps_average"]
	opt := []struct {
		key string
		dst **float64
	}{
		{"t_min", &row.MinUs}, {"t_max", &row.MaxUs}, {"t_typical", &row.TypicalUs}, {"t_stdev", &row.StdevUs},
		{"percentile_99", &row.P99Us}, {"percentile_99.9", &row.P999Us}, {"tps_average", &row.TPS}, {"CPU_util", &row.CPUUtilPct},
	}
	for _, o := range opt {
		if _, ok := res[o.key]; !ok {
			if !duration && o.key != "tps_average" && o.key != "CPU_util" {
				return nil, textparse.Errorf(j.endLine, "results lack %q", o.key)
			}
			continue
		}
		v, err := j.number(res, o.key)
		if err != nil {
			return nil, err
		}
		*o.dst = &v
	}
	if err := checkLatOrder(j.line("t_avg"), row); err != nil {
		return nil, err
	}
	rep.Rows = append(rep.Rows, row)
	return rep, nil
}
