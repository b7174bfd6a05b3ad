package perftest

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func fixture(t testing.TB, name string) string {
	return textparsetest.Read(t, filepath.Join("testdata", name))
}

// parseAny parses a fixture as the test its name says: lat_* latency,
// else bandwidth; *_read* ib_read_*, and so on; else the write tests.
func parseAny(name, in string) (any, error) {
	verb := "write"
	for _, v := range []string{"read", "send", "atomic"} {
		if strings.Contains(name, "_"+v) {
			verb = v
		}
	}
	if strings.HasPrefix(name, "lat") {
		return ParseLatOf(strings.NewReader(in), Test("ib_"+verb+"_lat"))
	}
	return ParseBWOf(strings.NewReader(in), Test("ib_"+verb+"_bw"))
}

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*")
	n := 0
	for _, f := range files {
		base := filepath.Base(f)
		if st, err := os.Stat(f); err != nil || st.IsDir() || strings.HasSuffix(base, ".golden.json") || base == "README.md" || strings.HasPrefix(base, "refused_") {
			continue
		}
		n++
		t.Run(base, func(t *testing.T) {
			v, err := parseAny(base, fixture(t, base))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			textparsetest.Golden(t, f+".golden.json", v, *update)
		})
	}
	if n < 10 {
		t.Fatalf("only %d fixtures", n)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestParseBWValues(t *testing.T) {
	r, err := ParseBW(strings.NewReader(fixture(t, "bw_gbits.txt")))
	if err != nil {
		t.Fatal(err)
	}
	row := r.Rows[0]
	if r.Units != UnitsGbps || r.Test != "RDMA_Write BW Test" || r.Settings["Device"] != "rxe0" || r.Settings["Number of qps"] != "1" || r.Settings["rdma_cm QPs"] != "OFF" || r.Settings["Mtu"] != "1024[B]" {
		t.Errorf("banner: %q %q %v", r.Units, r.Test, r.Settings)
	}
	if row.Bytes != 65536 || row.Iterations != 5000 || *row.BWPeak != 9.32 || row.BWAverage != 9.18 || row.MsgRateMpps != 0.017509 || *row.AverageGbps != 9.18 {
		t.Errorf("row = %+v", row)
	}
	if g, err := r.AverageGbps(); err != nil || g != 9.18 {
		t.Errorf("AverageGbps = %v, %v", g, err)
	}

	d, err := ParseBW(strings.NewReader(fixture(t, "bw_duration_qps.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows[0].BWPeak != nil || d.Rows[0].PeakGbps != nil {
		t.Errorf("-D peak must be absent, got %v", *d.Rows[0].BWPeak)
	}
	if d.Settings["Number of qps"] != "4" || len(d.Warnings) != 2 {
		t.Errorf("settings %v warnings %q", d.Settings, d.Warnings)
	}

	s, err := ParseBW(strings.NewReader(fixture(t, "bw_mbps_sweep.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if s.Units != UnitsMBps || len(s.Rows) != 7 || s.Rows[6].Bytes != 65536 {
		t.Fatalf("sweep: %s %d rows", s.Units, len(s.Rows))
	}
	// 1094.83 MiB/s = 1094.83 * 2^20 * 8 bits/s.
	if want := 1094.83 * 1048576 * 8 / 1e9; !near(*s.Rows[6].AverageGbps, want) {
		t.Errorf("MB/sec to Gb/s: %v want %v", *s.Rows[6].AverageGbps, want)
	}
	if _, err := s.AverageGbps(); err == nil {
		t.Error("AverageGbps of a sweep should fail")
	}
}

func TestParseJSONForms(t *testing.T) {
	b45, err := ParseBW(strings.NewReader(fixture(t, "bw_4.5.json")))
	if err != nil {
		t.Fatal(err)
	}
	text, err := ParseBW(strings.NewReader(fixture(t, "bw_gbits.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if b45.Format != FormatJSON45 || b45.Units != "" || b45.Rows[0].AverageGbps != nil {
		t.Errorf("4.5 json: %+v", b45)
	}
	if _, err := b45.AverageGbps(); err == nil {
		t.Error("units unknown: AverageGbps should fail")
	}
	g, err := b45.WithUnits(UnitsGbps)
	if err != nil {
		t.Fatal(err)
	}
	// The same run read from its JSON file and from its text agrees.
	if a, b := g.Rows[0], text.Rows[0]; a.Bytes != b.Bytes || a.Iterations != b.Iterations || *a.BWPeak != *b.BWPeak || a.BWAverage != b.BWAverage || a.MsgRateMpps != b.MsgRateMpps || *a.AverageGbps != *b.AverageGbps {
		t.Errorf("json %+v != text %+v", a, b)
	}
	if b45.Settings["TX_depth"] != "128" || b45.Settings["Device"] != "rxe0" || b45.Test != "RDMA_Write_BW_Test" {
		t.Errorf("4.5 settings %v", b45.Settings)
	}

	b24, err := ParseBW(strings.NewReader(fixture(t, "bw_24.json")))
	if err != nil {
		t.Fatal(err)
	}
	if b24.Format != FormatJSON || b24.Rows[0].BWPeak != nil || b24.Rows[0].BWAverage != 8.98 || b24.Settings["Number_of_qps"] != "2" {
		t.Errorf("24 json: %+v", b24)
	}

	l45, err := ParseLat(strings.NewReader(fixture(t, "lat_4.5.json")))
	if err != nil {
		t.Fatal(err)
	}
	l24, err := ParseLat(strings.NewReader(fixture(t, "lat_24.json")))
	if err != nil {
		t.Fatal(err)
	}
	lt, err := ParseLat(strings.NewReader(fixture(t, "lat.txt")))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*LatReport{l45, l24, lt} {
		row := r.Rows[0]
		if row.Bytes != 2 || row.AvgUs != 8.32 || *row.MinUs != 7.61 || *row.P99Us != 12.88 || *row.P999Us != 41.27 || row.TPS != nil {
			t.Errorf("%s: %+v", r.Format, row)
		}
	}
	ld, err := ParseLat(strings.NewReader(fixture(t, "lat_duration.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if row := ld.Rows[0]; row.MinUs != nil || row.P99Us != nil || *row.TPS != 119742.40 || row.AvgUs != 8.35 {
		t.Errorf("duration: %+v", row)
	}
}

func TestParseErrors(t *testing.T) {
	bw := fixture(t, "bw_gbits.txt")
	lat := fixture(t, "lat.txt")
	j45 := fixture(t, "bw_4.5.json")
	lines := strings.Split(bw, "\n")
	header := slices.IndexFunc(lines, func(s string) bool { return strings.Contains(s, "#bytes") }) + 1
	latHeader := slices.IndexFunc(strings.Split(lat, "\n"), func(s string) bool { return strings.Contains(s, "#bytes") }) + 1
	j45Lines := strings.SplitAfter(j45, "\n")
	cases := []struct {
		name, kind, in string
		line           int
		want           string
	}{
		{"empty", "bw", "", 0, "no result header"},
		{"bw given lat", "bw", lat, latHeader, "latency report"},
		{"lat given bw", "lat", bw, header, "bandwidth report"},
		{"header only", "bw", strings.Join(lines[:header], "\n"), header, "no result row"},
		{"truncated row", "bw", strings.Replace(bw, "0.017509", "", 1), header + 1, "has 4 fields"},
		{"garbled number", "bw", strings.Replace(bw, "9.18", "9.1x", 1), header + 1, "BW average"},
		{"exponent", "bw", strings.Replace(bw, "9.18", "9e18", 1), header + 1, "decimal number"},
		{"stderr glued to row", "bw", strings.Replace(bw, " 65536 ", " 65536 libibverbs: warning ", 1), header + 1, "fields"},
		{"unknown header column", "bw", strings.Replace(bw, "MsgRate[Mpps]", "MsgRate[Mpps]   Foo[x]", 1), header, "unknown text"},
		{"unknown units", "bw", strings.ReplaceAll(bw, "Gb/sec", "Kb/sec"), header, "units"},
		{"lat min above max", "lat", strings.Replace(lat, "7.61", "99.61", 1), latHeader + 1, "t_min"},
		{"json truncated", "bw", strings.Join(j45Lines[:24], ""), 24, "truncated"},
		{"json cut mid-line", "bw", j45[:len(j45)/2], strings.Count(j45[:len(j45)/2], "\n") + 1, "key: value"},
		{"json garbage line", "bw", strings.Replace(j45, "MsgSize: 65536,", "MsgSize 65536", 1), 22, "key: value"},
		{"json bad number", "bw", strings.Replace(j45, "BW_average: 9.18", "BW_average: nine", 1), 25, "BW_average"},
		{"json missing key", "bw", strings.Replace(j45, "MsgRate: 0.017509,\n", "", 1), 28, "MsgRate"},
		{"json lat given to bw", "bw", fixture(t, "lat_24.json"), 0, "latency report"},
		{"json bw given to lat", "lat", fixture(t, "bw_4.5.json"), 0, "bandwidth report"},
		{"json output=bandwidth", "bw", "{\n\"results\": {\n\"bw_avg\": 9.180000,\n\n}\n}\n", 0, "--output"},
		{"json no results", "bw", "{\"test_info\": {\"test\": \"x\"}}", 0, "no \"results\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			var v any
			if tc.kind == "lat" {
				v, err = ParseLat(strings.NewReader(tc.in))
			} else {
				v, err = ParseBW(strings.NewReader(tc.in))
			}
			textparsetest.WantError(t, v, err, tc.line, tc.want)
		})
	}
}

func TestTOS(t *testing.T) {
	for _, tc := range []struct{ dscp, ecn, want int }{{26, ECT0, 106}, {26, NotECT, 104}, {26, ECT1, 105}, {48, NotECT, 192}, {0, CE, 3}, {63, CE, 255}} {
		got, err := TOS(tc.dscp, tc.ecn)
		if err != nil || got != tc.want {
			t.Errorf("TOS(%d,%d) = %d, %v want %d", tc.dscp, tc.ecn, got, err, tc.want)
		}
		if d, e := DSCPECN(got); d != tc.dscp || e != tc.ecn {
			t.Errorf("DSCPECN(%d) = %d,%d", got, d, e)
		}
	}
	for _, bad := range [][2]int{{64, 0}, {-1, 0}, {0, 4}, {0, -1}} {
		if _, err := TOS(bad[0], bad[1]); err == nil {
			t.Errorf("TOS(%v) accepted", bad)
		}
	}
}

func TestArgv(t *testing.T) {
	tc106 := 106
	bw := Options{Test: WriteBW, Device: "rxe0", GIDIndex: 1, QPs: 4, Size: 65536, Duration: 10 * time.Second, ReportGbits: true, NoCPUFreqCheck: true, TrafficClass: &tc106}
	srv, err := bw.ServerArgv()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ib_write_bw", "-d", "rxe0", "-x", "1", "-q", "4", "-s", "65536", "-D", "10", "--report_gbits", "-F", "--tclass", "106"}
	if !slices.Equal(srv, want) {
		t.Errorf("server argv\n got %q\nwant %q", srv, want)
	}
	cli, err := bw.ClientArgv("10.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cli, append(want, "10.0.0.2")) {
		t.Errorf("client argv %q", cli)
	}
	// perftest's own limits are accepted, with -b on both sides.
	deep := bw
	deep.TxDepth, deep.Bidirectional = MaxTxDepth, true
	argv := func(a []string, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, side := range [][]string{argv(deep.ServerArgv()), argv(deep.ClientArgv("10.0.0.2"))} {
		if i := slices.Index(side, "--tx-depth"); i < 0 || side[i+1] != "15000" || !slices.Contains(side, "-b") {
			t.Errorf("argv %q: want --tx-depth 15000 and -b", side)
		}
	}
	cm := bw
	cm.RDMACM = true
	a, _ := cm.ServerArgv()
	if !slices.Contains(a, "-R") || !slices.Contains(a, "-T") || slices.Contains(a, "--tclass") {
		t.Errorf("RDMA CM argv %q: want -R and -T", a)
	}
	lat := Options{Test: WriteLat, Device: "rxe1", GIDIndex: -1, Iterations: 1000, MTU: 1024, TCPPort: 18600, OutJSONFile: "/tmp/lat.json"}
	a, err = lat.ClientArgv("fd00::2")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ib_write_lat", "-d", "rxe1", "-m", "1024", "-n", "1000", "-p", "18600", "--out_json", "--out_json_file=/tmp/lat.json", "fd00::2"}; !slices.Equal(a, want) {
		t.Errorf("lat argv\n got %q\nwant %q", a, want)
	}

	bad := func(mod func(o *Options)) Options { o := bw; mod(&o); return o }
	big := 256
	for name, o := range map[string]Options{
		"unknown test":     bad(func(o *Options) { o.Test = "ib_send_bw" }),
		"device injection": bad(func(o *Options) { o.Device = "rxe0; rm -rf /" }),
		"empty device":     bad(func(o *Options) { o.Device = "" }),
		"gid":              bad(func(o *Options) { o.GIDIndex = 300 }),
		"qps":              bad(func(o *Options) { o.QPs = -1 }),
		"lat qps":          bad(func(o *Options) { o.Test = WriteLat; o.ReportGbits = false }),
		"lat gbits":        bad(func(o *Options) { o.Test = WriteLat; o.QPs = 0 }),
		"sub-second":       bad(func(o *Options) { o.Duration = 1500 * time.Millisecond }),
		"both":             bad(func(o *Options) { o.Iterations = 10 }),
		"tclass":           bad(func(o *Options) { o.TrafficClass = &big }),
		"mtu":              bad(func(o *Options) { o.MTU = 1500 }),
		"json path":        bad(func(o *Options) { o.OutJSONFile = "a b" }),
		"tx depth low":     bad(func(o *Options) { o.TxDepth = -1 }),
		"tx depth high":    bad(func(o *Options) { o.TxDepth = MaxTxDepth + 1 }),
		"lat -b":           bad(func(o *Options) { o.Test = WriteLat; o.QPs, o.ReportGbits, o.Bidirectional = 0, false, true }),
	} {
		if _, err := o.ServerArgv(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := bw.ClientArgv("host; reboot"); err == nil {
		t.Error("client accepted a non-address server")
	}
}

func TestParseBWHeaderVariants(t *testing.T) {
	const rule = "---------------------------------------------------------------------------------------\n"
	perPort := rule +
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]   BW Port1[Gb/sec]   MsgRate Port1[Mpps]   BW Port2[Gb/sec]   MsgRate Port2[Mpps]\n" +
		" 65536      5000           18.40              18.21\t\t   0.034733        9.11            0.017372              9.10            0.017361\n" + rule
	r, err := ParseBW(strings.NewReader(perPort))
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Rows[0]; !slices.Equal(row.PortBW, []float64{9.11, 9.10}) || !slices.Equal(row.PortMsgRateMpps, []float64{0.017372, 0.017361}) || row.BWAverage != 18.21 {
		t.Errorf("per-port row = %+v", row)
	}

	qos := rule +
		" #bytes    #sl      #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n" +
		" 65536      3           5000           9.30            9.20                  0.017548\n" + rule
	r, err = ParseBW(strings.NewReader(qos))
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Rows[0]; row.SL == nil || *row.SL != 3 || row.Iterations != 5000 || row.BWAverage != 9.20 {
		t.Errorf("qos row = %+v", row)
	}

	cpu := rule +
		" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]    CPU_Util[%]\n" +
		" 65536      5000           9.32               9.18\t\t   0.017509\t    41.52\n" + rule
	r, err = ParseBW(strings.NewReader(cpu))
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Rows[0]; row.CPUUtilPct == nil || *row.CPUUtilPct != 41.52 {
		t.Errorf("cpu row = %+v", row)
	}

	mixed := strings.Replace(perPort, "BW Port2[Gb/sec]", "BW Port2[MiB/sec]", 1)
	if _, err := ParseBW(strings.NewReader(mixed)); err == nil || !strings.Contains(err.Error(), "units") {
		t.Errorf("mixed units: %v", err)
	}
}

func TestParseBWTabsExpanded(t *testing.T) {
	// Output copied from a terminal often has its tabs turned into spaces.
	orig := fixture(t, "bw_gbits.txt")
	a, err := ParseBW(strings.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseBW(strings.NewReader(strings.ReplaceAll(orig, "\t", "        ")))
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("tabs expanded changes the report:\n%s\n%s", ja, jb)
	}
}

// Two runs in one file (outputs appended with >>) are refused at the
// second run's result header, naming the first's, the second's banner and
// the fix, in text and in either --out_json form; a second run cut after
// its banner is refused at the banner.
func TestTwoRunsRefused(t *testing.T) {
	bw, lat := fixture(t, "bw_gbits.txt"), fixture(t, "lat.txt")
	j45, j24 := fixture(t, "bw_4.5.json"), fixture(t, "lat_24.json")
	banner := func(in string) string { // the first run's lines up to its test name
		lines := strings.SplitAfter(in, "\n")
		return strings.Join(lines[:slices.IndexFunc(lines, func(l string) bool { return strings.HasSuffix(strings.TrimSpace(l), "Test") })+1], "")
	}
	nl := func(s string) int { return strings.Count(s, "\n") }
	cases := []struct {
		name, kind, in string
		line           int
		want           string
	}{
		{"bw twice", "bw", fixture(t, "refused_bw_two_runs.txt"), 46, "a second perftest result header (the first is at line 22): the file holds two runs, the second's banner (RDMA_Write BW Test) at line 26 (fix: split the file, one run each"},
		{"lat twice", "lat", fixture(t, "refused_lat_two_runs.txt"), 44, "a second perftest result header (the first is at line 21): the file holds two runs, the second's banner (RDMA_Write Latency Test) at line 25"},
		{"lat then bw, read as bw", "bw", lat + bw, nl(lat) + 22, "(the first is at line 21)"},
		{"second run cut after its banner", "bw", bw + banner(bw), nl(bw) + 2, "a second perftest banner (RDMA_Write BW Test) (the first is at line 2)"},
		{"4.5 json twice", "bw", j45 + j45, nl(j45) + 1, "a second --out_json report (the first is at line 1)"},
		{"24 json twice", "lat", j24 + j24, nl(j24) + 1, "a second --out_json report"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			var err error
			if tc.kind == "lat" {
				v, err = ParseLat(strings.NewReader(tc.in))
			} else {
				v, err = ParseBW(strings.NewReader(tc.in))
			}
			textparsetest.WantError(t, v, err, tc.line, tc.want)
		})
	}
}

// perftest prints one report for every verb: output is read as the test
// its banner (or --out_json's test_info) names, and refused as another,
// naming the test to give; output without a test name is taken as the
// test asked for.
func TestOtherVerbs(t *testing.T) {
	read := fixture(t, "bw_read.txt")
	lat := fixture(t, "lat.txt")
	j45, j24 := fixture(t, "bw_4.5.json"), fixture(t, "lat_24.json")
	bw, err := ParseBWOf(strings.NewReader(read), ReadBW)
	if err != nil || bw.Test != "RDMA_Read BW Test" || bw.Rows[0].BWAverage != 9.18 {
		t.Fatalf("ib_read_bw: %+v, %v", bw, err)
	}
	for _, tc := range []struct {
		name string
		in   string
		as   Test
		line int
		want string
	}{
		{"read given as write", read, WriteBW, 2, `this is ib_read_bw output (its test is "RDMA_Read BW Test"), not ib_write_bw`},
		{"write given as read", fixture(t, "bw_gbits.txt"), ReadBW, 2, "this is ib_write_bw output"},
		{"send bidirectional", strings.Replace(read, "RDMA_Read BW Test", "Send_imm Bidirectional BW Test", 1), WriteBW, 2, "this is ib_send_bw output"},
		{"atomic latency", strings.Replace(lat, "RDMA_Write Latency Test", "Atomic FETCH_AND_ADD Latency Test", 1), WriteLat, 2, "this is ib_atomic_lat output"},
		{"4.5 json", strings.Replace(j45, "RDMA_Write_BW_Test", "RDMA_Read_BW_Test", 1), WriteBW, textparsetest.LineOf(t, j45, "RDMA_Write_BW_Test"), `this is ib_read_bw output (its test is "RDMA_Read_BW_Test")`},
		{"24 json", strings.Replace(j24, "RDMA_Write_Lat", "Send_Lat", 1), WriteLat, 0, "this is ib_send_lat output"},
		{"read latency given as read bw", strings.Replace(lat, "RDMA_Write Latency Test", "RDMA_Read Latency Test", 1), ReadBW, textparsetest.LineOf(t, lat, "#bytes"), "this is a latency report (ib_read_lat), expected ib_read_bw output"},
		{"latency without banner given as send bw", lat[strings.Index(lat, " #bytes"):], SendBW, 1, "this is a latency report (ib_send_lat), expected ib_send_bw output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			var err error
			if slices.Contains(LatTests, tc.as) {
				v, err = ParseLatOf(strings.NewReader(tc.in), tc.as)
			} else {
				v, err = ParseBWOf(strings.NewReader(tc.in), tc.as)
			}
			textparsetest.WantError(t, v, err, tc.line, tc.want)
			if err != nil && !strings.Contains(err.Error(), "(fix: parse it as ib_") {
				t.Errorf("%v: no fix naming the test", err)
			}
		})
	}
	// No banner: the test asked for.
	noBanner := read[strings.Index(read, " #bytes"):]
	for _, test := range BWTests {
		if _, err := ParseBWOf(strings.NewReader(noBanner), test); err != nil {
			t.Errorf("%s without a banner: %v", test, err)
		}
	}
	if _, err := ParseBWOf(strings.NewReader(read), WriteLat); err == nil || strings.Contains(err.Error(), "line") {
		t.Errorf("a latency test asked of the bandwidth parser: %v", err)
	}
}
