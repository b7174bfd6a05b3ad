package sonic

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

var ctrUpdate = flag.Bool("update", false, "rewrite golden files under testdata/")

// ctrParsers maps a fixture name prefix to its parser.
var ctrParsers = map[string]func(string) (any, error){
	"pfc_counters":   func(s string) (any, error) { return ParsePFCCounters(strings.NewReader(s)) },
	"queue_counters": func(s string) (any, error) { return ParseQueueCounters(strings.NewReader(s)) },
	"wred_counters":  func(s string) (any, error) { return ParseWREDCounters(strings.NewReader(s)) },
	"port_counters":  func(s string) (any, error) { return ParsePortCounters(strings.NewReader(s)) },
}

func ctrParserFor(t *testing.T, name string) func(string) (any, error) {
	t.Helper()
	for prefix, p := range ctrParsers {
		if strings.HasPrefix(name, prefix) {
			return p
		}
	}
	t.Fatalf("no parser for fixture %s", name)
	return nil
}

func TestCounterGolden(t *testing.T) {
	for _, f := range textparsetest.Fixtures(t, "testdata/counters/*.txt") {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := ctrParserFor(t, name)(string(in))
			if err != nil {
				t.Fatalf("parse %s: %v", f, err)
			}
			textparsetest.Golden(t, strings.TrimSuffix(f, ".txt")+".golden.json", v, *ctrUpdate)
		})
	}
}

func ctrReadFixture(t *testing.T, name string) string {
	return textparsetest.Read(t, filepath.Join("testdata/counters", name))
}

func TestParsePFCCountersValues(t *testing.T) {
	c, err := ParsePFCCounters(strings.NewReader(ctrReadFixture(t, "pfc_counters.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ports) != 3 {
		t.Fatalf("ports = %d, want 3", len(c.Ports))
	}
	e4 := c.Port("Ethernet4")
	if e4 == nil || *e4.Rx[0] != 1400 || *e4.Rx[3] != 403 || *e4.Tx[0] != 1410 || *e4.Tx[7] != 417 {
		t.Fatalf("Ethernet4 = %+v", e4)
	}
	if rx, tx := c.Total("Ethernet4", 3); rx != 403 || tx != 413 {
		t.Errorf("Total(Ethernet4,3) = %d,%d want 403,413", rx, tx)
	}
	if rx, tx := c.Total("", 3); rx != 203+403+803 || tx != 213+413+813 {
		t.Errorf("Total(all,3) = %d,%d", rx, tx)
	}
	if rx, _ := c.Total("Ethernet0", -1); rx != 1200+201+202+203+204+205+206+207 {
		t.Errorf("Total(Ethernet0,all) rx = %d", rx)
	}

	na, err := ParsePFCCounters(strings.NewReader(ctrReadFixture(t, "pfc_counters_na.txt")))
	if err != nil {
		t.Fatal(err)
	}
	bp := na.Port("Ethernet-BP256")
	if bp == nil {
		t.Fatal("Ethernet-BP256 missing")
	}
	for i := 0; i < 8; i++ {
		if bp.Rx[i] != nil || bp.Tx[i] != nil {
			t.Fatalf("N/A read as a number: %+v", bp)
		}
	}
	if rx, tx := na.Total("Ethernet-BP256", -1); rx != 0 || tx != 0 {
		t.Errorf("N/A port totals = %d,%d", rx, tx)
	}
}

func TestParseQueueCountersValues(t *testing.T) {
	c, err := ParseQueueCounters(strings.NewReader(ctrReadFixture(t, "queue_counters_vs.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Queues) != 10 {
		t.Fatalf("queues = %d", len(c.Queues))
	}
	q3 := c.Queues[3]
	if q3.Port != "Ethernet0" || q3.Queue != (Queue{Name: "UC3", Type: "UC", Index: 3}) || *q3.Packets != 12345 || *q3.Bytes != 50565120 || *q3.DropPackets != 7 || *q3.DropBytes != 28672 || q3.Namespace != "" {
		t.Errorf("UC3 = %+v", q3)
	}
	if mc := c.Queues[8]; mc.Queue.Type != "MC" || mc.Packets != nil || mc.DropBytes != nil {
		t.Errorf("MC8 = %+v", mc)
	}
	if p, d := c.Total("Ethernet0", 3); p != 12345 || d != 7 {
		t.Errorf("Total = %d,%d", p, d)
	}
	if b, d := c.TotalBytes("Ethernet0", 3); b != 50565120 || d != 28672 {
		t.Errorf("TotalBytes = %d,%d", b, d)
	}
	if p, _ := c.Total("", -1); p != 12345+410 {
		t.Errorf("Total all = %d", p)
	}

	ns, err := ParseQueueCounters(strings.NewReader(ctrReadFixture(t, "queue_counters_asics.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if ns.Queues[0].Namespace != "asic0" || ns.Queues[len(ns.Queues)-1].Namespace != "asic1" {
		t.Errorf("namespaces = %q .. %q", ns.Queues[0].Namespace, ns.Queues[len(ns.Queues)-1].Namespace)
	}

	voq, err := ParseQueueCounters(strings.NewReader(ctrReadFixture(t, "queue_counters_voq.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if v := voq.Queues[1]; v.Port != "testsw|Ethernet0" || v.Queue.Type != "VOQ" || v.Extra["Credit-WD-Del/pkts"] == nil || *v.Extra["Credit-WD-Del/pkts"] != 1 {
		t.Errorf("VOQ1 = %+v", v)
	}
}

func TestParseWREDCountersValues(t *testing.T) {
	c, err := ParseWREDCounters(strings.NewReader(ctrReadFixture(t, "wred_counters.txt")))
	if err != nil {
		t.Fatal(err)
	}
	first := c.Queues[0]
	if first.Port != "Ethernet0" || first.Queue.Name != "UC1" || *first.WREDDropPackets != 60 || *first.WREDDropBytes != 43 || *first.ECNMarkedPackets != 39 || *first.ECNMarkedBytes != 1 {
		t.Errorf("first = %+v", first)
	}
	if w, e := c.Total("Ethernet4", 3); w != 60 || e != 48 {
		t.Errorf("Total(Ethernet4,3) = %d,%d want 60,48", w, e)
	}
}

func TestParsePortCountersValues(t *testing.T) {
	c, err := ParsePortCounters(strings.NewReader(ctrReadFixture(t, "port_counters.txt")))
	if err != nil {
		t.Fatal(err)
	}
	e0 := c.Port("Ethernet0")
	if e0.State != "D" || *e0.RxOK != 8 || *e0.RxBps != 2000e6 || *e0.RxUtilPct != 64 || *e0.RxDrp != 100 || e0.RxOvr != nil || e0.TxErr != nil {
		t.Errorf("Ethernet0 = %+v", e0)
	}
	e4 := c.Port("Ethernet4")
	if e4.State != "" || *e4.RxDrp != 1000 || *e4.RxBps != 204800 || e4.RxUtilPct != nil {
		t.Errorf("Ethernet4 = %+v", e4)
	}
	if rx, tx, d := c.Total(""); rx != 18 || tx != 110 || d != 1110 {
		t.Errorf("Total = %d,%d,%d", rx, tx, d)
	}
	all, err := ParsePortCounters(strings.NewReader(ctrReadFixture(t, "port_counters_all.txt")))
	if err != nil {
		t.Fatal(err)
	}
	e8 := all.Port("Ethernet8")
	if *e8.RxPps != 9000 || *e8.Extra["TRIM"] != 20000 || all.Port("Ethernet9").Extra["TRIM"] != nil {
		t.Errorf("Ethernet8 = %+v", e8)
	}
}

func TestCounterErrors(t *testing.T) {
	pfc := ctrReadFixture(t, "pfc_counters.txt")
	pfcLines := strings.Split(pfc, "\n")
	queue := ctrReadFixture(t, "queue_counters_vs.txt")
	port := ctrReadFixture(t, "port_counters.txt")
	cases := []struct {
		name, parser, in string
		line             int
		want             string
	}{
		{"empty", "pfc_counters", "", 0, "no table found"},
		{"pfc missing Tx half", "pfc_counters", strings.Join(pfcLines[:5], "\n"), 5, "\"Port Tx\" table too"},
		{"pfc Tx missing a port", "pfc_counters", strings.Join(pfcLines[:10], "\n"), 7, "missing from the \"Port Tx\" table"},
		{"pfc tables swapped", "pfc_counters", strings.Join(append(append([]string{}, pfcLines[6:11]...), append([]string{""}, pfcLines[:5]...)...), "\n"), 1, "expected \"Port Rx"},
		{"pfc short row", "pfc_counters", strings.Replace(pfc, "Ethernet4   1,400     401     402     403     404     405     406     407", "Ethernet4   1,400     401     402     403     404     405", 1), 4, "column \"PFC6\" is empty"},
		{"pfc extra column", "pfc_counters", strings.Replace(pfc, "Ethernet4   1,400     401     402     403     404     405     406     407", "Ethernet4   1,400     401     402     403     404     405     406     407     999", 1), 4, "after the last column"},
		{"pfc garbage number", "pfc_counters", strings.Replace(pfc, "1,400", "1x400", 1), 4, "not a counter"},
		{"pfc bad commas", "pfc_counters", strings.Replace(pfc, "1,400", "14,00", 1), 4, "thousands commas"},
		{"pfc given queue output", "pfc_counters", queue, 1, "expected \"Port Rx"},
		{"pfc error text", "pfc_counters", "Error: PFC counters are not available\n", 1, "unexpected text"},
		{"pfc duplicate port", "pfc_counters", strings.Replace(pfc, "Ethernet8   1,800", "Ethernet4   1,800", 1), 5, "appears twice"},
		{"queue given wred output", "queue_counters", ctrReadFixture(t, "wred_counters.txt"), 1, "no \"Counter/pkts\" column"},
		{"queue bad queue name", "queue_counters", strings.Replace(queue, "    UC3", "    XX3", 1), 6, "queue \"XX3\""},
		{"queue truncated row", "queue_counters", strings.Replace(queue, "Ethernet0    UC7               0                0            0             0", "Ethernet0    UC7               0", 1), 10, "\"Counter/bytes\" is empty"},
		{"queue misaligned row", "queue_counters", strings.Replace(queue, "Ethernet0    UC7               0", "Ethernet0 UC7 0 0 0 0", 1), 10, "outside the table's columns"},
		{"port given pfc output", "port_counters", pfc, 1, "expected it to start with IFACE"},
		{"port bad rate", "port_counters", strings.Replace(port, "2000.00 MB/s", "2000.00 ZB/s", 1), 3, "not a byte rate"},
		{"port bad util", "port_counters", strings.Replace(port, " 64.00%", "64.00 %", 1), 3, "RX_UTIL"},
		{"rule without header", "queue_counters", "---------  -----\n", 1, "without a header"},
		{"tab in row", "queue_counters", strings.Replace(queue, "Ethernet0    UC1", "Ethernet0\tUC1", 1), 4, "tab character"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ctrParsers[tc.parser](tc.in)
			if err == nil {
				b, _ := json.Marshal(v)
				t.Fatalf("no error; parsed %s", b)
			}
			var ce *CounterError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CounterError", err)
			}
			if ce.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", ce.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestCtrParseCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		nil_ bool
		err  bool
	}{
		{"0", 0, false, false},
		{"1,000", 1000, false, false},
		{"12,345,678", 12345678, false, false},
		// SAI counters are unsigned 64-bit: past int64 up to 2^64-1.
		{"9,223,372,036,854,775,808", 1 << 63, false, false},
		{"18446744073709551615", 18446744073709551615, false, false},
		{"18,446,744,073,709,551,616", 0, false, true},
		// A change since a clear that went negative (the counter was
		// reset): the count is unknown.
		{"-1,000", 0, false, true},
		{"N/A", 0, true, false},
		{"1,00", 0, false, true},
		{",100", 0, false, true},
		{"1000,000", 0, false, true},
		{"", 0, false, true},
		{"-", 0, false, true},
		{"99999999999999999999", 0, false, true},
		{"1.5", 0, false, true},
		{"n/a", 0, false, true},
	} {
		v, err := ctrParseCount(1, "c", tc.in)
		switch {
		case tc.err:
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
		case tc.nil_:
			if err != nil || v != nil {
				t.Errorf("%q: %v %v, want nil", tc.in, v, err)
			}
		default:
			if err != nil || v == nil || *v != tc.want {
				t.Errorf("%q: %v %v, want %d", tc.in, v, err, tc.want)
			}
		}
	}
}

func TestCounterProseAroundTables(t *testing.T) {
	// pfcstat and queuestat print a cache notice when counters were
	// cleared; portstat may print a rate-period line and a reminder.
	pfc := "Last cached time was 2026-11-29T12:00:00.000000\n" + ctrReadFixture(t, "pfc_counters.txt")
	c, err := ParsePFCCounters(strings.NewReader(pfc))
	if err != nil {
		t.Fatal(err)
	}
	if rx, _ := c.Total("Ethernet0", 0); rx != 1200 {
		t.Errorf("rx = %d", rx)
	}
	q := "Ethernet0 Last cached time was 2026-11-29T12:00:00.000000\n" + ctrReadFixture(t, "queue_counters_vs.txt")
	if _, err := ParseQueueCounters(strings.NewReader(q)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"port_counters_period.txt", "port_counters_reminder.txt"} {
		if _, err := ParsePortCounters(strings.NewReader(ctrReadFixture(t, f))); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Anything else between tables is an error, not skipped.
	for _, bad := range []string{
		strings.Replace(ctrReadFixture(t, "pfc_counters.txt"), "\n\n", "\nTraceback (most recent call last):\n\n", 1),
		strings.Replace(ctrReadFixture(t, "pfc_counters.txt"), "\n\n", "\n\nTraceback (most recent call last):\n\n", 1),
	} {
		_, err := ParsePFCCounters(strings.NewReader(bad))
		var ce *CounterError
		if !errors.As(err, &ce) || (ce.Line != 6 && ce.Line != 7) {
			t.Errorf("stray text accepted or misplaced: %v", err)
		}
	}
}

func TestCtrSelectUnicast(t *testing.T) {
	uc3 := Queue{Name: "UC3", Type: "UC", Index: 3}
	mc3 := Queue{Name: "MC3", Type: "MC", Index: 3}
	tests := []struct {
		port  string
		q     Queue
		want  string
		queue int
		ok    bool
	}{
		{"Ethernet0", uc3, "Ethernet0", 3, true},
		{"Ethernet0", uc3, "", 3, true},
		{"Ethernet0", uc3, "", -1, true},
		{"Ethernet0", uc3, "Ethernet4", 3, false},
		{"Ethernet0", uc3, "Ethernet0", 4, false},
		{"Ethernet0", mc3, "Ethernet0", 3, false},
		{"Ethernet0", mc3, "", -1, false},
	}
	for _, tc := range tests {
		if got := ctrSelectUnicast(tc.port, tc.q, tc.want, tc.queue); got != tc.ok {
			t.Errorf("ctrSelectUnicast(%q, %s, %q, %d) = %v, want %v", tc.port, tc.q.Name, tc.want, tc.queue, got, tc.ok)
		}
	}
}
