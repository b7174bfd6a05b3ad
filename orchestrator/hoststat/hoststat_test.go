package hoststat

import (
	"encoding/json"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func fixtures(t testing.TB, prefix string) []string {
	return textparsetest.Fixtures(t, filepath.Join("testdata", prefix+"*"))
}

func fixture(t testing.TB, name string) string {
	return textparsetest.Read(t, filepath.Join("testdata", name))
}

var parsers = map[string]func(string) (any, error){
	"rdma_statistic": func(s string) (any, error) { return ParseRDMAStatistic(strings.NewReader(s)) },
	"ethtool":        func(s string) (any, error) { return ParseEthtoolStats(strings.NewReader(s)) },
}

func TestGolden(t *testing.T) {
	for prefix, parse := range parsers {
		for _, f := range fixtures(t, prefix) {
			t.Run(filepath.Base(f), func(t *testing.T) {
				v, err := parse(fixture(t, filepath.Base(f)))
				if err != nil {
					t.Fatal(err)
				}
				textparsetest.Golden(t, f+".golden.json", v, *update)
			})
		}
	}
}

func TestRDMAValues(t *testing.T) {
	s, err := ParseRDMAStatistic(strings.NewReader(fixture(t, "rdma_statistic_multi.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Links) != 2 {
		t.Fatalf("links = %d", len(s.Links))
	}
	l := s.Link("rxe0", 1)
	if v, ok := l.Get("sent_pkts"); !ok || v != 1843421 {
		t.Errorf("sent_pkts = %d %v", v, ok)
	}
	if v, _ := s.Link("rxe1", 1).Get("duplicate_request"); v != 1 {
		t.Errorf("rxe1 duplicate_request = %d", v)
	}
	if got := s.Total("rcvd_pkts"); got != 1820114+100 {
		t.Errorf("Total(rcvd_pkts) = %d", got)
	}
	if _, ok := l.Get("cnp_sent"); ok {
		t.Error("rxe has no CNP counter: must be absent")
	}
	// The three forms of the same link agree.
	one, _ := ParseRDMAStatistic(strings.NewReader(fixture(t, "rdma_statistic.txt")))
	js, err := ParseRDMAStatistic(strings.NewReader(fixture(t, "rdma_statistic.json")))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(one)
	b, _ := json.Marshal(js)
	if string(a) != string(b) {
		t.Errorf("text and JSON differ:\n%s\n%s", a, b)
	}
	pretty, err := ParseRDMAStatistic(strings.NewReader(fixture(t, "rdma_statistic_pretty.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := pretty.Link("rxe0", 1).Get("rcvd_seq_err"); v != 3 {
		t.Errorf("pretty rcvd_seq_err = %d", v)
	}
}

func TestEthtoolValues(t *testing.T) {
	s, err := ParseEthtoolStats(strings.NewReader(fixture(t, "ethtool_nic.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Get("rx_prio3_pause"); !ok || v != 5120 {
		t.Errorf("rx_prio3_pause = %d %v", v, ok)
	}
	if got := s.Sum("rx_queue_", "_packets"); got != 1107001+1106878 {
		t.Errorf("Sum = %d", got)
	}
	if s.Order[0] != "rx_packets" || len(s.Order) != len(s.Counters) {
		t.Errorf("order = %v", s.Order)
	}
}

func TestErrors(t *testing.T) {
	rdma := fixture(t, "rdma_statistic_multi.txt")
	eth := fixture(t, "ethtool_nic.txt")
	cases := []struct {
		name, parser, in string
		line             int
		want             string
	}{
		{"rdma empty", "rdma_statistic", "", 0, "no \"link"},
		{"rdma truncated pair", "rdma_statistic", strings.TrimSuffix(rdma, " 0\n"), 2, "has no value"},
		{"rdma garbage value", "rdma_statistic", strings.Replace(rdma, "rcvd_pkts 100", "rcvd_pkts 1O0", 1), 2, "rcvd_pkts"},
		{"rdma negative", "rdma_statistic", strings.Replace(rdma, "rcvd_pkts 100", "rcvd_pkts -100", 1), 2, "non-negative"},
		{"rdma bad link", "rdma_statistic", strings.Replace(rdma, "rxe1/1", "rxe1", 1), 2, "<device>/<port>"},
		{"rdma duplicate link", "rdma_statistic", strings.Replace(rdma, "rxe1/1", "rxe0/1", 1), 2, "appears twice"},
		{"rdma duplicate counter", "rdma_statistic", strings.Replace(rdma, "rcvd_pkts 100", "sent_pkts 100", 1), 2, "appears twice"},
		{"rdma error message", "rdma_statistic", "error: No such device\n", 1, "before any"},
		{"rdma given ethtool", "rdma_statistic", eth, 1, "before any"},
		{"rdma link only", "rdma_statistic", "link rxe0/1\n", 1, "no counters"},
		{"rdma json bad", "rdma_statistic", `[{"ifname":"rxe0","port":1,"sent_pkts":"x"}]`, 0, "not a number"},
		{"rdma json truncated", "rdma_statistic", `[{"ifname":"rxe0","port":1,`, 1, "truncated"},
		{"eth empty", "ethtool", "", 0, "NIC statistics"},
		{"eth no header", "ethtool", "     rx_packets: 1\n", 1, "NIC statistics"},
		{"eth given rdma", "ethtool", rdma, 1, "NIC statistics"},
		{"eth bad value", "ethtool", strings.Replace(eth, "rx_bytes: 9204418930", "rx_bytes: 9.2G", 1), 3, "rx_bytes"},
		{"eth no colon", "ethtool", strings.Replace(eth, "tx_packets: 2251407", "tx_packets 2251407", 1), 4, "name: value"},
		{"eth truncated line", "ethtool", strings.Replace(eth, "tx_bytes: 9341196214", "tx_bytes:", 1), 5, "tx_bytes"},
		{"eth duplicate", "ethtool", strings.Replace(eth, "tx_packets:", "rx_packets:", 1), 4, "appears twice"},
		{"eth overflow", "ethtool", strings.Replace(eth, "rx_bytes: 9204418930", "rx_bytes: 18446744073709551616", 1), 3, "does not fit a 64-bit counter (at most 18446744073709551615) (fix: give the command's output as it printed it"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parsers[tc.parser](tc.in)
			textparsetest.WantError(t, v, err, tc.line, tc.want)
		})
	}
}

func seeds(f *testing.F, prefix string) {
	for _, name := range fixtures(f, prefix) {
		f.Add(textparsetest.Read(f, name))
	}
	f.Add("")
	f.Add("link")
	f.Add("[")
}

func FuzzParseRDMAStatistic(f *testing.F) {
	seeds(f, "rdma_statistic")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseRDMAStatistic(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		textparsetest.RoundTrip(t, s)
		for _, l := range s.Links {
			if len(l.Counters) == 0 {
				t.Fatal("link without counters accepted")
			}
		}
	})
}

func FuzzParseEthtoolStats(f *testing.F) {
	seeds(f, "ethtool")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseEthtoolStats(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		textparsetest.RoundTrip(t, s)
		if len(s.Order) != len(s.Counters) {
			t.Fatalf("order %d != counters %d", len(s.Order), len(s.Counters))
		}
	})
}

// A counter is the kernel's unsigned 64 bits: 2^64-1 (what a driver
// shows for a counter it does not keep) and values past 2^63-1 read as
// themselves, where they were refused and took the NIC's other counters
// with them; sums stop at 2^64-1 instead of wrapping.
func TestCountersAreUnsigned64(t *testing.T) {
	in := "NIC statistics:\n     rx_queue_0_packets: 18446744073709551615\n     rx_queue_1_packets: 9223372036854775808\n     tx_packets: 5\n"
	s, err := ParseEthtoolStats(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("rx_queue_0_packets"); v != math.MaxUint64 {
		t.Errorf("rx_queue_0_packets = %d", v)
	}
	if v, _ := s.Get("rx_queue_1_packets"); v != 1<<63 {
		t.Errorf("rx_queue_1_packets = %d", v)
	}
	if got := s.Sum("rx_queue_", "_packets"); got != math.MaxUint64 {
		t.Errorf("sum = %d, want 2^64-1 (no wrap)", got)
	}
	r, err := ParseRDMAStatistic(strings.NewReader("link rxe0/1 sent_pkts 18446744073709551615 rcvd_pkts 1\nlink rxe1/1 sent_pkts 2 rcvd_pkts 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Total("sent_pkts"); got != math.MaxUint64 {
		t.Errorf("total = %d, want 2^64-1 (no wrap)", got)
	}
}
