package eos

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func ctrFuzzSeeds(f *testing.F, prefix string) {
	for _, name := range ctrFixtures(f, prefix) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("")
	f.Add("{")
	f.Add(`{"a": [1, {"b": null}]}`)
}

func ctrFuzzCheck(t *testing.T, in string, err error) {
	var ce *CounterError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CounterError", err)
	}
	if ce.Line < 0 || ce.Line > strings.Count(in, "\n")+1 {
		t.Fatalf("line %d outside the input: %v", ce.Line, err)
	}
}

// ctrRoundTrip re-encodes a parsed value and decodes it into a fresh one:
// the two encodings must agree.
func ctrRoundTrip[T any](t *testing.T, v *T) {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back T
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&back)
	if string(b) != string(b2) {
		t.Fatalf("round trip changed:\n%s\n%s", b, b2)
	}
}

func FuzzParsePFCCounters(f *testing.F) {
	ctrFuzzSeeds(f, "pfc_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParsePFCCounters(strings.NewReader(in))
		if err != nil {
			ctrFuzzCheck(t, in, err)
			return
		}
		ctrRoundTrip(t, c)
	})
}

func FuzzParseECNCounters(f *testing.F) {
	ctrFuzzSeeds(f, "ecn_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseECNCounters(strings.NewReader(in))
		if err != nil {
			ctrFuzzCheck(t, in, err)
			return
		}
		ctrRoundTrip(t, c)
		for _, i := range c.Interfaces {
			for _, q := range i.Queues {
				if q.Marked < 0 {
					t.Fatalf("negative count %+v", q)
				}
			}
		}
	})
}

func FuzzParseQueueCounters(f *testing.F) {
	ctrFuzzSeeds(f, "queue_counters")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseQueueCounters(strings.NewReader(in))
		if err != nil {
			ctrFuzzCheck(t, in, err)
			return
		}
		ctrRoundTrip(t, c)
	})
}
