package eos

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

var ctrUpdate = flag.Bool("update", false, "rewrite golden files under testdata/")

var ctrParsers = map[string]func(string) (any, error){
	"pfc_counters":   func(s string) (any, error) { return ParsePFCCounters(strings.NewReader(s)) },
	"ecn_counters":   func(s string) (any, error) { return ParseECNCounters(strings.NewReader(s)) },
	"queue_counters": func(s string) (any, error) { return ParseQueueCounters(strings.NewReader(s)) },
}

func ctrFixtures(t testing.TB, prefix string) []string {
	return textparsetest.Fixtures(t, filepath.Join("testdata/counters", prefix+"*.json"))
}

func ctrFixture(t testing.TB, name string) string {
	return textparsetest.Read(t, filepath.Join("testdata/counters", name))
}

func TestCounterGolden(t *testing.T) {
	for prefix, parse := range ctrParsers {
		for _, f := range ctrFixtures(t, prefix) {
			t.Run(filepath.Base(f), func(t *testing.T) {
				in, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				v, err := parse(string(in))
				if err != nil {
					t.Fatal(err)
				}
				textparsetest.Golden(t, strings.TrimSuffix(f, ".json")+".golden.json", v, *ctrUpdate)
			})
		}
	}
}

func TestParsePFCCountersValues(t *testing.T) {
	c, err := ParsePFCCounters(strings.NewReader(ctrFixture(t, "pfc_counters.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interfaces) != 4 || c.Interfaces[0].Interface != "Ethernet1" || c.Interfaces[3].Interface != "Ethernet49/1" {
		t.Fatalf("interfaces/order: %+v", c.Interfaces)
	}
	if rx, tx := c.Total("Ethernet1"); rx != 0 || tx != 1532 {
		t.Errorf("Ethernet1 = %d,%d", rx, tx)
	}
	if rx, tx := c.Total(""); rx != 877 || tx != 2736 {
		t.Errorf("all = %d,%d", rx, tx)
	}
}

// Counters are unsigned 64-bit: a value past 2^63-1 is read as printed,
// one past 2^64-1 refused.
func TestParseCountersPast63Bits(t *testing.T) {
	pfc := ctrFixture(t, "pfc_counters.json")
	c, err := ParsePFCCounters(strings.NewReader(strings.Replace(pfc, "1532", "18446744073709551615", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, tx := c.Total("Ethernet1"); tx != 18446744073709551615 {
		t.Errorf("Ethernet1 tx = %d", tx)
	}
	_, err = ParsePFCCounters(strings.NewReader(strings.Replace(pfc, "1532", "18446744073709551616", 1)))
	if err == nil || !strings.Contains(err.Error(), "does not fit a 64-bit counter") {
		t.Errorf("2^64: %v", err)
	}
}

func TestParseECNCountersValues(t *testing.T) {
	c, err := ParseECNCounters(strings.NewReader(ctrFixture(t, "ecn_counters.json")))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := c.Marked("Ethernet1", 3); !ok || m != 5400 {
		t.Errorf("Ethernet1 q3 = %d %v", m, ok)
	}
	if _, ok := c.Marked("Ethernet1", 4); ok {
		t.Error(`"-" (not configured) must be absent, not 0`)
	}
	if m, ok := c.Marked("Ethernet2", 4); !ok || m != 0 {
		t.Errorf("configured zero lost: %d %v", m, ok)
	}
	if got := c.Total("", 3); got != 5412 {
		t.Errorf("Total(all, 3) = %d", got)
	}
	if got := c.Total("Ethernet2", -1); got != 12 {
		t.Errorf("Total(Ethernet2, all) = %d", got)
	}
}

func TestParseQueueCountersValues(t *testing.T) {
	c, err := ParseQueueCounters(strings.NewReader(ctrFixture(t, "queue_counters_detail.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Queues) != 32 {
		t.Fatalf("queues = %d, want 2 interfaces x 2 types x 8 TCs", len(c.Queues))
	}
	if e, d := c.Total("Ethernet2", 3); e != 1873990 || d != 212 {
		t.Errorf("Ethernet2 TC3 = %d,%d", e, d)
	}
	if e, d := c.TotalBytes("Ethernet2", 3); e != 7675863040 || d != 868352 {
		t.Errorf("Ethernet2 TC3 bytes = %d,%d", e, d)
	}
	if e, _ := c.Total("Ethernet1", -1); e != 1200+2450112+410 {
		t.Errorf("Ethernet1 unicast enqueued = %d (multicast must not count)", e)
	}
	q := c.Queues[3]
	if q.Interface != "Ethernet1" || q.Type != "unicast" || q.TrafficClass != 3 || q.DropPrecedence != 0 || *q.EnqueuedBytes != 10035658752 {
		t.Errorf("Queues[3] = %+v", q)
	}
}

func TestCounterErrors(t *testing.T) {
	pfc := ctrFixture(t, "pfc_counters.json")
	ecn := ctrFixture(t, "ecn_counters.json")
	q := ctrFixture(t, "queue_counters_detail.json")
	cases := []struct {
		name, parser, in string
		line             int
		want             string
	}{
		{"empty", "pfc_counters", "", 0, "empty input"},
		{"text not json", "pfc_counters", "Port  RxPfc  TxPfc\nEt1  0  0\n", 1, "| json"},
		{"truncated", "pfc_counters", pfc[:len(pfc)/2], strings.Count(pfc[:len(pfc)/2], "\n") + 1, "truncated"},
		{"syntax", "pfc_counters", strings.Replace(pfc, `"txFrames": 1532`, `"txFrames": 1532,,`, 1), 5, "invalid JSON"},
		{"missing tx", "pfc_counters", strings.Replace(pfc, ",\n            \"txFrames\": 1532", "", 1), 3, `no "txFrames"`},
		{"negative", "pfc_counters", strings.Replace(pfc, "1532", "-1", 1), 5, "non-negative"},
		{"float", "pfc_counters", strings.Replace(pfc, "1532", "15.32", 1), 5, "non-negative integer"},
		{"wrong kind", "pfc_counters", ecn, 1, `no "interfaceCounters"`},
		{"duplicate key", "pfc_counters", strings.Replace(pfc, `"Ethernet2"`, `"Ethernet1"`, 1), 7, "twice"},
		{"trailing text", "pfc_counters", pfc + "\nEOS#", 0, "after the JSON"},
		{"ecn bad value", "ecn_counters", strings.Replace(ecn, `"5400"`, `"54OO"`, 1), 8, "non-negative integer"},
		{"ecn bad queue", "ecn_counters", strings.Replace(ecn, `"3": "5400"`, `"q3": "5400"`, 1), 8, "not a queue number"},
		{"ecn no queueCounters", "ecn_counters", `{"intfQueueCounters": {"Ethernet1": {"counters": {}}}}`, 1, "queueCounters"},
		{"ecn given pfc", "ecn_counters", pfc, 1, `no "intfQueueCounters"`},
		{"queue bad tc", "queue_counters", strings.Replace(q, `"TC3"`, `"TCx"`, 1), 0, "TC0..TC15"},
		{"queue bad counter", "queue_counters", strings.Replace(q, `"droppedPackets": 212`, `"droppedPackets": "many"`, 1), 0, "droppedPackets"},
		{"queue no counters", "queue_counters", `{"egressQueueCounters": {"interfaces": {"Ethernet1": {"ucastQueues": {"trafficClasses": {"TC3": {"dropPrecedences": {"DP0": {"foo": 1}}}}}}}}}`, 1, "has none of"},
		{"queue no types", "queue_counters", `{"egressQueueCounters": {"interfaces": {"Ethernet1": {}}}}`, 1, "neither ucastQueues"},
		{"queue array", "queue_counters", `{"egressQueueCounters": {"interfaces": []}}`, 1, "expected an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ctrParsers[tc.parser](tc.in)
			textparsetest.WantError(t, v, err, tc.line, tc.want)
		})
	}
}
