package nccltests

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func fixture(t testing.TB, name string) string {
	return textparsetest.Read(t, filepath.Join("testdata", name))
}

func parse(t testing.TB, in string, opt Options) *results.NCCLTable {
	t.Helper()
	tb, err := Parse(strings.NewReader(in), opt)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return tb
}

// accepted are the fixtures the parser reads (the refused_* ones it must
// not).
func accepted(t testing.TB) []string {
	var out []string
	for _, f := range textparsetest.Fixtures(t, filepath.Join("testdata", "*.txt")) {
		if !strings.HasPrefix(filepath.Base(f), "refused_") {
			out = append(out, f)
		}
	}
	return out
}

func TestGolden(t *testing.T) {
	files := accepted(t)
	if len(files) < 6 {
		t.Fatalf("only %d fixtures", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tb := parse(t, textparsetest.Read(t, f), Options{})
			textparsetest.Golden(t, f+".golden.json", tb, *update)
			textparsetest.RoundTrip(t, tb)
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// TestFixtureFigures checks each real output's facts one by one, beside
// the golden files: the collective and how it was known, the ranks, the
// rows, one row's every figure, the trailer.
func TestFixtureFigures(t *testing.T) {
	type rowWant struct {
		size, count            int64
		time, algbw, busbw     float64
		wrong                  *int64 // nil: N/A
		ipTime, ipBusbw        float64
		ipWrongNA, maxErrorSet bool
	}
	zero := int64(0)
	cases := []struct {
		file, coll, from string
		ranks, rows      int
		typ, redop       string
		root             int
		avg              float64
		row              int // index of the row checked
		want             rowWant
		program, ncclVer string
		hosts            int
	}{
		{"all_reduce_2.13_h100x16.txt", "all_reduce", "figures", 16, 31, "float", "sum", -1, 70.742, 30,
			rowWant{size: 8589934592, count: 2147483648, time: 47535, algbw: 180.71, busbw: 338.82, wrong: &zero, ipTime: 47743, ipBusbw: 337.35}, "", "", 2},
		{"all_reduce_2.13_a100x8_mpirun_noise.txt", "all_reduce", "command line", 8, 30, "float", "sum", -1, 72.7724, 29,
			rowWant{size: 4294967296, count: 1073741824, time: 32285, algbw: 133.03, busbw: 232.81, wrong: &zero, ipTime: 32268, ipBusbw: 232.93}, "all_reduce_perf", "", 1},
		{"all_reduce_2.10_t4x3_na.txt", "all_reduce", "command line", 3, 11, "float", "sum", -1, 0.58536, 0,
			rowWant{size: 104857600, count: 26214400, time: 202872, algbw: 0.52, busbw: 0.69, ipTime: 224616, ipBusbw: 0.62, ipWrongNA: true}, "all_reduce_perf", "", 3},
		{"alltoall_2.18_rtx6000dx16_na.txt", "alltoall", "program name", 16, 24, "float", "none", -1, 9.04853, 14,
			rowWant{size: 16777216, count: 262144, time: 10642.5, algbw: 1.58, busbw: 1.48, wrong: &zero, ipTime: 29073.1, ipBusbw: 0.54, ipWrongNA: true}, "alltoall_perf", "2.30.3+cuda13.0", 2},
		{"alltoall_old_blank_redop.txt", "alltoall", "figures", 64, 2, "float", "none", -1, 0.507636, 1,
			rowWant{size: 536870912, count: 2097152, time: 1041974, algbw: 0.52, busbw: 0.51, ipTime: 1041299, ipBusbw: 0.51, ipWrongNA: true, maxErrorSet: true}, "", "", 0},
		{"broadcast_2019_v100x12.txt", "broadcast", "command line", 12, 31, "float", "none", 0, 41.2456, 17,
			rowWant{size: 1048576, count: 262144, time: 74.62, algbw: 14.05, busbw: 14.05, ipTime: 79.08, ipBusbw: 13.26, ipWrongNA: true, maxErrorSet: true}, "broadcast_perf", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			tb := parse(t, fixture(t, tc.file), Options{})
			if tb.Collective != tc.coll || tb.NCCLTests.CollectiveFrom != tc.from || tb.Ranks != tc.ranks || len(tb.Rows) != tc.rows {
				t.Fatalf("collective %s (from %s), %d ranks, %d rows; want %s (from %s), %d, %d", tb.Collective, tb.NCCLTests.CollectiveFrom, tb.Ranks, len(tb.Rows), tc.coll, tc.from, tc.ranks, tc.rows)
			}
			if tb.DataType != tc.typ || tb.RedOp != tc.redop || tb.Root != tc.root || tb.Source != results.Measured {
				t.Errorf("type %s redop %s root %d source %s", tb.DataType, tb.RedOp, tb.Root, tb.Source)
			}
			if tb.AvgBusBWGBps == nil || !near(*tb.AvgBusBWGBps, tc.avg) || tb.OutOfBounds == nil || *tb.OutOfBounds != 0 {
				t.Errorf("trailer: avg %v, out of bounds %v", tb.AvgBusBWGBps, tb.OutOfBounds)
			}
			if tb.BoundBusBWGBps != nil || tb.Algorithm != "" || tb.RankOrder != "" {
				t.Errorf("a measured table has a bound %v, algorithm %q or rank order %q the output did not print", tb.BoundBusBWGBps, tb.Algorithm, tb.RankOrder)
			}
			r := tb.Rows[tc.row]
			w := tc.want
			if r.SizeBytes != w.size || r.Count != w.count || !near(r.OutOfPlace.TimeUs, w.time) || !near(r.OutOfPlace.AlgBWGBps, w.algbw) || !near(r.OutOfPlace.BusBWGBps, w.busbw) {
				t.Errorf("row %d = %+v", tc.row, r)
			}
			if (w.wrong == nil) != (r.OutOfPlace.Wrong == nil) || w.wrong != nil && *w.wrong != *r.OutOfPlace.Wrong {
				t.Errorf("row %d #wrong = %v, want %v", tc.row, r.OutOfPlace.Wrong, w.wrong)
			}
			if (r.OutOfPlace.MaxError != nil) != w.maxErrorSet {
				t.Errorf("row %d max error %v", tc.row, r.OutOfPlace.MaxError)
			}
			if r.InPlace == nil || !near(r.InPlace.TimeUs, w.ipTime) || !near(r.InPlace.BusBWGBps, w.ipBusbw) || (r.InPlace.Wrong == nil) != w.ipWrongNA {
				t.Errorf("row %d in place = %+v", tc.row, r.InPlace)
			}
			if tb.NCCLTests.Program != tc.program || tb.NCCLTests.NCCLVersion != tc.ncclVer {
				t.Errorf("program %q, NCCL %q", tb.NCCLTests.Program, tb.NCCLTests.NCCLVersion)
			}
			hosts := map[string]bool{}
			for _, d := range tb.NCCLTests.Devices {
				hosts[d.Host] = true
			}
			if len(hosts) != tc.hosts || len(tb.NCCLTests.Devices) != tc.ranks && tc.hosts > 0 {
				t.Errorf("%d hosts, %d devices", len(hosts), len(tb.NCCLTests.Devices))
			}
			for i := 1; i < len(tb.Rows); i++ {
				if tb.Rows[i].SizeBytes <= tb.Rows[i-1].SizeBytes {
					t.Errorf("rows not one per size in order: %d after %d", tb.Rows[i].SizeBytes, tb.Rows[i-1].SizeBytes)
				}
			}
		})
	}
}

// TestHeaderFacts checks what the header lines say on two layouts.
func TestHeaderFacts(t *testing.T) {
	tb := parse(t, fixture(t, "alltoall_2.18_rtx6000dx16_na.txt"), Options{})
	n := tb.NCCLTests
	if n.Version != "2.18.3" || *n.MinBytes != 1024 || *n.MaxBytes != 8589934592 || *n.StepFactor != 2 || n.StepBytes != nil ||
		*n.WarmupIters != 1 || *n.Iters != 20 || *n.AggIters != 1 || *n.Validation != 1 || *n.Graph != 0 || n.TimeColumn != "time" {
		b, _ := json.Marshal(n)
		t.Errorf("header = %s", b)
	}
	if d := n.Devices[15]; d.Rank != 15 || d.Host != "R6KD-CX8aaS-GPU-12" || d.Device != 7 || d.Name != "NVIDIA RTX 6000D" {
		t.Errorf("rank 15 = %+v", d)
	}
	tb = parse(t, fixture(t, "all_reduce_2.10_t4x3_na.txt"), Options{})
	n = tb.NCCLTests
	if *n.StepBytes != 1048576 || n.StepFactor != nil || *n.Validation != 0 || n.AggIters != nil || n.Version != "" {
		b, _ := json.Marshal(n)
		t.Errorf("header = %s", b)
	}
	if d := n.Devices[2]; d.Host != "gpu03" || d.Name != "Tesla T4" {
		t.Errorf("rank 2 = %+v", d)
	}
}

// replaceLine replaces line n (1-based) of in.
func replaceLine(t *testing.T, in string, n int, with string) string {
	t.Helper()
	lines := strings.Split(in, "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("no line %d", n)
	}
	lines[n-1] = with
	return strings.Join(lines, "\n")
}

// TestHarmful mutates real output in ways that must be refused, each with
// the line it is about and what was expected.
func TestHarmful(t *testing.T) {
	h100 := fixture(t, "all_reduce_2.13_h100x16.txt")
	a2a := fixture(t, "alltoall_2.18_rtx6000dx16_na.txt")
	row1G := textparsetest.LineOf(t, h100, "  1073741824     268435456")
	trailer := textparsetest.LineOf(t, h100, "Out of bounds values")
	avg := textparsetest.LineOf(t, h100, "Avg bus bandwidth")
	lines := strings.Split(h100, "\n")
	cases := []struct {
		name string
		in   string
		opt  Options
		line int
		want string
	}{
		{"empty", "", Options{}, 0, "no nccl-tests output"},
		{"perftest output", fixtureOf(t, "../perftest/testdata/bw_gbits.txt"), Options{}, 0, "no nccl-tests output"},
		{"json", "{\"config\": {}}", Options{}, 1, "JSON"},
		{"cut before the table", strings.Join(lines[:19], "\n"), Options{}, 19, "ends before its result table"},
		{"no rows", strings.Join(lines[:23], "\n"), Options{}, textparsetest.LineOf(t, h100, "#       size"), "no result rows"},
		{"cut after a row", strings.Join(lines[:30], "\n") + "\n", Options{}, 30, "without nccl-tests' trailer"},
		{"garbled number", replaceLine(t, h100, row1G, "  1073741824     268435456     float     sum      -1   6759.0  158.8#  297.86      0    6737.4  159.37  298.82      0"), Options{}, row1G, `algbw "158.8#"`},
		{"field lost", replaceLine(t, h100, row1G, "  1073741824     268435456     float     sum      -1   6759.0  158.86  297.86      0    6737.4  159.37  298.82"), Options{}, row1G, "has 12 fields"},
		{"busbw edited", replaceLine(t, h100, row1G, "  1073741824     268435456     float     sum      -1   6759.0  158.86  290.86      0    6737.4  159.37  298.82      0"), Options{}, row1G, "busbw 290.86 is not algbw 158.86 x 1.875, all_reduce's factor for 16 ranks"},
		{"time edited", replaceLine(t, h100, row1G, "  1073741824     268435456     float     sum      -1   7759.0  158.86  297.86      0    6737.4  159.37  298.82      0"), Options{}, row1G, "algbw 158.86 is not size"},
		{"count edited", replaceLine(t, h100, row1G, "  1073741824     268435455     float     sum      -1   6759.0  158.86  297.86      0    6737.4  159.37  298.82      0"), Options{}, row1G, "size 1073741824 is not count 268435455 x 4 bytes of float, as all_reduce_perf prints it: the table fits no collective"},
		{"row lost", replaceLine(t, h100, row1G, ""), Options{}, trailer, "announces 31 sizes"},
		{"garbled size", replaceLine(t, h100, row1G, "  1O73741824     268435456     float     sum      -1   6759.0  158.86  297.86      0   6737.4  159.37  298.82      0"), Options{}, row1G, `size "1O73741824": expected a non-negative integer`},
		{"garbled size without a header", replaceLine(t, fixture(t, "alltoall_old_blank_redop.txt"), 5, "   26843545b       1048576     float           520935    0.52    0.51  0e+00   519562    0.52    0.51  1e+00"), Options{}, 5, `size "26843545b"`},
		{"a log line in a row", replaceLine(t, h100, row1G, "  1073741824 node1:6899:6899 [0] NCCL INFO Channel 00/02 :    0   1"), Options{}, trailer, "announces 31 sizes"},
		{"avg edited", replaceLine(t, h100, avg, "# Avg bus bandwidth    : 75.742 "), Options{}, avg, "not the mean busbw"},
		{"two runs", h100 + h100, Options{}, avg + 1, "second nccl-tests header"},
		{"rank twice", replaceLine(t, h100, textparsetest.LineOf(t, h100, "Rank  1 Group"), "#  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB HBM3"), Options{}, textparsetest.LineOf(t, h100, "Rank  1 Group"), "rank 0 is listed again"},
		{"rank missing", replaceLine(t, h100, textparsetest.LineOf(t, h100, "Rank  3 Group"), "#"), Options{}, textparsetest.LineOf(t, h100, "Rank 15 Group"), "rank lines are missing"},
		{"several types", replaceLine(t, h100, row1G, "  1073741824     536870912      half     sum      -1   6759.0  158.86  297.86      0    6737.4  159.37  298.82      0"), Options{}, row1G, "several data types"},
		{"unknown type", replaceLine(t, h100, row1G, "  1073741824    268435456     quad     sum      -1   6759.0  158.86  297.86      0    6737.4  159.37  298.82      0"), Options{}, row1G, `type "quad"`},
		{"nccl failed", replaceLine(t, h100, row1G, "ztan-mig-235z: Test NCCL failure common.cu:1279 'unhandled cuda error'"), Options{}, row1G, "nccl-tests failed here"},
		{"negative busbw", replaceLine(t, h100, row1G, "  1073741824     268435456     float     sum      -1   6759.0  158.86  -297.8      0    6737.4  159.37  298.82      0"), Options{}, row1G, `busbw "-297.8"`},
		{"unknown column", replaceLine(t, h100, textparsetest.LineOf(t, h100, "#       size"), "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong  extra"), Options{}, textparsetest.LineOf(t, h100, "#       size"), `"extra" where nccl-tests prints`},
		{"row after the trailer", h100 + "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    207.2    5.06    9.49      0\n", Options{}, avg + 1, "after the trailer"},
		{"wrong --collective", h100, Options{Collective: "alltoall"}, 0, "check --collective"},
		{"--collective against the program name", a2a, Options{Collective: "all_gather"}, textparsetest.LineOf(t, a2a, "Collective test starting"), "the output names alltoall_perf, --collective says all_gather"},
		{"another program", strings.ReplaceAll(a2a, "alltoall_perf", "gather_perf"), Options{}, textparsetest.LineOf(t, a2a, "Collective test starting"), "this is gather_perf output"},
		{"ambiguous collective", strings.NewReplacer("# Collective test starting: alltoall_perf", "#", "# Collective test concluded: alltoall_perf", "#", "/alltoall_perf", "/run").Replace(a2a), Options{}, textparsetest.LineOf(t, a2a, "#       size"), "fit all_gather and alltoall alike: give --collective"},
		{"no ranks, broadcast", strings.Join(slicesWithout(strings.Split(fixture(t, "broadcast_2019_v100x12.txt"), "\n"), "Rank"), "\n"), Options{}, 0, "no ranks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := Parse(strings.NewReader(tc.in), tc.opt)
			textparsetest.WantError(t, tb, err, tc.line, tc.want)
		})
	}
}

func fixtureOf(t *testing.T, path string) string { return textparsetest.Read(t, path) }

func slicesWithout(lines []string, sub string) []string {
	var out []string
	for _, l := range lines {
		if !strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

func TestRefusedFixture(t *testing.T) {
	in := fixture(t, "refused_all_gather_2019_old_algbw.txt")
	tb, err := Parse(strings.NewReader(in), Options{})
	textparsetest.WantError(t, tb, err, textparsetest.LineOf(t, in, "        2016            42"), "before June 2020")
}

// TestOutOfBounds checks the trailer's count against the rows' #wrong
// (or, before 2.13, their error): a result with wrong values that the
// trailer does not count, or a count the rows cannot give with one data
// check per result, is refused at the trailer naming the row; counts
// nccl-tests can print are read.
func TestOutOfBounds(t *testing.T) {
	h100 := fixture(t, "all_reduce_2.13_h100x16.txt")
	failed := fixture(t, "all_reduce_2.13_h100x16_failed.txt")
	wrongOK := fixture(t, "refused_all_reduce_2.13_h100x16_wrong_ok.txt")
	bcast := fixture(t, "broadcast_2019_v100x12.txt")
	row1M := textparsetest.LineOf(t, failed, "     1048576        262144")
	withTrailer := func(in, tr string) string {
		return replaceLine(t, in, textparsetest.LineOf(t, in, "Out of bounds values"), tr)
	}
	// One wrong value in the out-of-place half of the 1 MiB row too.
	twoResults := replaceLine(t, failed, row1M, "     1048576        262144     float     sum      -1    203.2    5.16    9.68      1    207.2    5.06    9.49      3")
	for _, tc := range []struct {
		name, in, want string
	}{
		{"a wrong row, trailer OK", wrongOK, "the trailer says 0 out of bounds values (OK), but the table has 1 result with a #wrong above 0 (the first at line 41: in-place #wrong 3), and nccl-tests counts each there at least once: the table and the trailer disagree"},
		{"two wrong results, trailer 1", withTrailer(twoResults, "# Out of bounds values : 1 FAILED"), "but the table has 2 results with a #wrong above 0 (the first at line 41: out-of-place #wrong 1)"},
		{"FAILED, every #wrong 0", withTrailer(h100, "# Out of bounds values : 2 FAILED"), "every #wrong in the table is 0 or N/A"},
		{"more than the rows allow", withTrailer(failed, "# Out of bounds values : 4 FAILED"), "more than the table's #wrong allow (3: with one data check per result"},
		{"more than the threads", withTrailer(strings.Replace(failed, "9.49      3", "9.49     40", 1), "# Out of bounds values : 17 FAILED"), "at most once per wrong value and per checking thread (16 here)"},
		{"no check, FAILED", withTrailer(strings.Replace(h100, "validation: 1", "validation: 0", 1), "# Out of bounds values : 1 FAILED"), "the run checked no data (the header's validation: 0, at line 1)"},
		{"before 2.13, every error 0", withTrailer(bcast, "# Out of bounds values : 1 FAILED"), "every result's error is 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := Parse(strings.NewReader(tc.in), Options{})
			textparsetest.WantError(t, tb, err, textparsetest.LineOf(t, tc.in, "Out of bounds values"), tc.want)
			if err != nil && !strings.Contains(err.Error(), "(fix: give nccl-tests' output as it printed it)") {
				t.Errorf("%v: no fix", err)
			}
		})
	}
	for _, tc := range []struct {
		name, in string
		oob      int64
	}{
		// Three threads found one wrong value each, or one three.
		{"3 wrong values, 3 FAILED", failed, 3},
		{"3 wrong values, 1 FAILED", withTrailer(failed, "# Out of bounds values : 1 FAILED"), 1},
		{"two wrong results, 4 FAILED", withTrailer(twoResults, "# Out of bounds values : 4 FAILED"), 4},
		// -c 2 checks twice: the first check's wrong values count though
		// the row shows the second's.
		{"two checks", withTrailer(strings.Replace(h100, "validation: 1", "validation: 2", 1), "# Out of bounds values : 2 FAILED"), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tb := parse(t, tc.in, Options{}); *tb.OutOfBounds != tc.oob {
				t.Errorf("out_of_bounds %d, want %d", *tb.OutOfBounds, tc.oob)
			}
		})
	}
}

// TestBenign changes real output in ways that must not change the table:
// Windows line ends, tabs, NCCL's log lines and blank lines in the
// table, the right --collective.
func TestBenign(t *testing.T) {
	h100 := fixture(t, "all_reduce_2.13_h100x16.txt")
	want := parse(t, h100, Options{})
	row1G := textparsetest.LineOf(t, h100, "  1073741824     268435456")
	with := func(s string) string { return strings.Join([]string{s, strings.Split(h100, "\n")[row1G-1]}, "\n") }
	cases := []struct {
		name string
		in   string
		opt  Options
	}{
		{"crlf", strings.ReplaceAll(h100, "\n", "\r\n"), Options{}},
		{"tabs", strings.ReplaceAll(h100, "     float     sum", "\tfloat\tsum"), Options{}},
		{"nccl info in the table", replaceLine(t, h100, row1G, with("ztan-mig-235z:6899:6899 [0] NCCL INFO comm 0x55d5 rank 0 nranks 16 - Init COMPLETE")), Options{}},
		{"blank line in the table", replaceLine(t, h100, row1G, with("")), Options{}},
		{"--collective", h100, Options{Collective: "all_reduce_perf"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := parse(t, tc.in, tc.opt)
			got.NCCLTests.CollectiveFrom, want.NCCLTests.CollectiveFrom = "", ""
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(want)
			if string(a) != string(b) {
				t.Errorf("changed:\n%s\n%s", a, b)
			}
		})
	}
	// The collective an alltoall output does not name, given.
	a2a := strings.NewReplacer("# Collective test starting: alltoall_perf", "#", "# Collective test concluded: alltoall_perf", "#", "/alltoall_perf", "/run").Replace(fixture(t, "alltoall_2.18_rtx6000dx16_na.txt"))
	if tb := parse(t, a2a, Options{Collective: "alltoall"}); tb.Collective != "alltoall" || tb.NCCLTests.CollectiveFrom != "--collective" || tb.Ranks != 16 {
		t.Errorf("--collective alltoall: %s from %s, %d ranks", tb.Collective, tb.NCCLTests.CollectiveFrom, tb.Ranks)
	}
}

// TestNCCLLog reads the facts NCCL_DEBUG=INFO lines give: the algorithm
// NCCL_ALGO forced and the channels.
func TestNCCLLog(t *testing.T) {
	h100 := fixture(t, "all_reduce_2.13_h100x16.txt")
	at := textparsetest.LineOf(t, h100, "#       size")
	log := "ztan-mig-235z:6899:6950 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n" +
		"ztan-mig-235z:6899:6950 [0] NCCL INFO 16 coll channels, 16 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p channels per peer\n" +
		"ztan-mig-235z:6899:6950 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
	lines := strings.Split(h100, "\n")
	in := strings.Join(append(append(append([]string{}, lines[:at-1]...), log), lines[at-1:]...), "\n")
	tb := parse(t, in, Options{})
	if tb.Algorithm != "ring" || tb.Channels != 16 || tb.NCCLTests.NCCLVersion != "2.21.5+cuda12.4" {
		t.Errorf("algorithm %q, channels %d, NCCL %q", tb.Algorithm, tb.Channels, tb.NCCLTests.NCCLVersion)
	}
	// Two algorithms allowed: the output does not say which ran.
	in = strings.Replace(in, "to Ring", "to Ring,Tree", 1)
	if tb := parse(t, in, Options{}); tb.Algorithm != "" {
		t.Errorf("algorithm %q from NCCL_ALGO=Ring,Tree", tb.Algorithm)
	}
	// NCCL_ALGO does not apply to alltoall, which NCCL runs point to
	// point: the table names no algorithm, as a simulated one does not.
	a2a := fixture(t, "alltoall_2.18_rtx6000dx16_na.txt")
	at = textparsetest.LineOf(t, a2a, "#       size")
	lines = strings.Split(a2a, "\n")
	in = strings.Join(append(append(append([]string{}, lines[:at-1]...), log), lines[at-1:]...), "\n")
	if tb := parse(t, in, Options{}); tb.Collective != "alltoall" || tb.Algorithm != "" || tb.Channels != 16 {
		t.Errorf("alltoall with NCCL_ALGO=Ring: %s, algorithm %q, channels %d; want alltoall, no algorithm, 16 channels", tb.Collective, tb.Algorithm, tb.Channels)
	}
}

func TestCollectiveName(t *testing.T) {
	for in, want := range map[string]string{"all_reduce": "all_reduce", "alltoall_perf": "alltoall", " Broadcast ": "broadcast"} {
		if got, err := CollectiveName(in); err != nil || got != want {
			t.Errorf("CollectiveName(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "reduce", "allreduce", "gather_perf"} {
		if _, err := CollectiveName(in); err == nil || !strings.Contains(err.Error(), "fix: use one of all_reduce, all_gather") {
			t.Errorf("CollectiveName(%q) = %v", in, err)
		}
	}
	if _, err := Parse(strings.NewReader(fixture(t, "all_reduce_2.13_h100x16.txt")), Options{Collective: "allreduce"}); err == nil {
		t.Error("a bad --collective passed")
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(m.Run())
}
