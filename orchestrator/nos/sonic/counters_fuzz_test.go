package sonic

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

func ctrFuzzSeeds(f *testing.F, prefix string) {
	for _, name := range textparsetest.Fixtures(f, filepath.Join("testdata/counters", prefix+"*.txt")) {
		// Large seeds make the fuzzer's minimisation of every new input
		// crawl; the first lines hold all the structure.
		lines := strings.SplitAfter(textparsetest.Read(f, name), "\n")
		f.Add(strings.Join(lines[:min(len(lines), 16)], ""))
	}
	f.Add("")
	f.Add("---\n")
}

func FuzzParsePFCCounters(f *testing.F) {
	ctrFuzzSeeds(f, "pfc_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParsePFCCounters(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		textparsetest.RoundTrip(t, c)
		// Totals equal the sum of the parts.
		var rx, tx uint64
		for _, p := range c.Ports {
			r, x := c.Total(p.Port, -1)
			rx += r
			tx += x
		}
		if r, x := c.Total("", -1); r != rx || x != tx {
			t.Fatalf("totals disagree: %d,%d vs %d,%d", r, x, rx, tx)
		}
	})
}

func FuzzParseQueueCounters(f *testing.F) {
	ctrFuzzSeeds(f, "queue_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseQueueCounters(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		textparsetest.RoundTrip(t, c)
		for _, q := range c.Queues {
			if q.Port == "" || q.Queue.Name == "" {
				t.Fatalf("empty port or queue: %+v", q)
			}
		}
	})
}

func FuzzParseWREDCounters(f *testing.F) {
	ctrFuzzSeeds(f, "wred_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseWREDCounters(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		textparsetest.RoundTrip(t, c)
	})
}

func FuzzParsePortCounters(f *testing.F) {
	ctrFuzzSeeds(f, "port_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParsePortCounters(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		textparsetest.RoundTrip(t, c)
		for _, p := range c.Ports {
			if p.Port == "" {
				t.Fatal("empty port name")
			}
		}
	})
}
