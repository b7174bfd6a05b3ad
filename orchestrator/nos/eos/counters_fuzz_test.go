package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

func ctrFuzzSeeds(f *testing.F, prefix string) {
	for _, name := range ctrFixtures(f, prefix) {
		f.Add(textparsetest.Read(f, name))
	}
	f.Add("")
	f.Add("{")
	f.Add(`{"a": [1, {"b": null}]}`)
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
	})
}

func FuzzParseECNCounters(f *testing.F) {
	ctrFuzzSeeds(f, "ecn_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseECNCounters(strings.NewReader(in))
		if err != nil {
			textparsetest.CheckError(t, in, err)
			return
		}
		textparsetest.RoundTrip(t, c) // counts are uint64: none can be negative
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
	})
}
