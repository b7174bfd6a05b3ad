package sim

import (
	"fmt"
	"testing"
)

// TestSizedFlowOverQPsDeliversItsBytes: a flow of bytes B over q QPs
// delivers B, whatever the remainder of B / q (until 2026-12-06 every QP
// sent B/q rounded up: 1 MiB over 3 QPs delivered 1 MiB + 2, 1 byte over
// 64 QPs 64 bytes), and completes when fewer bytes than QPs leave some
// with nothing to send; both ways with perftest -b.
func TestSizedFlowOverQPsDeliversItsBytes(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, c := range []struct {
		bytes string
		want  int64
		qps   int
		bidir bool
	}{
		{"1MiB", 1 << 20, 3, false},
		{"1MiB", 1 << 20, 3, true},
		{"4KiB", 4096, 12, false},
		{"1", 1, 64, false},
		{"100", 100, 64, true},
	} {
		y := fmt.Sprintf("name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 2ms\nsample_every: 0\ntraffic:\n  - pattern: pairs\n    bytes: %s\n    qps: %d\n    bidirectional: %v\n", c.bytes, c.qps, c.bidir)
		v := runVariant(t, l, variantOf(t, l, y))
		want := c.want
		if c.bidir {
			want *= 2
		}
		f := v.Flows[0]
		if len(v.Flows) != 1 || f.Bytes == nil || f.FCTUs == nil || v.Summary.CompletionUs == nil {
			t.Fatalf("bytes %s over %d QPs: %d flows, fct %v, completion %v: want one flow, completed", c.bytes, c.qps, len(v.Flows), f.FCTUs, v.Summary.CompletionUs)
		}
		if *f.Bytes != want {
			t.Errorf("bytes %s over %d QPs (bidirectional %v): delivered %d, want %d", c.bytes, c.qps, c.bidir, *f.Bytes, want)
		}
	}
}
