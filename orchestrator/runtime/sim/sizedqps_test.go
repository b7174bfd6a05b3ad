package sim

import (
	"fmt"
	"math"
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

// TestSizedFlowOverQPsRate: a completed sized flow of several QPs reads
// its bytes over its completion time, as perftest -q reports it, and so
// never more than its NIC's line rate carries (until 2026-12-06 it read
// the sum of its QPs' rates, each over its own completion time: 64 QPs
// of 16 KiB on 200G NICs read up to 203 Gb/s); both ways, twice that.
func TestSizedFlowOverQPsRate(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, bidir := range []bool{false, true} {
		y := fmt.Sprintf("name: t\nmatrix: {ecn: [off], pfc: [on]}\nduration: 2ms\nsample_every: 0\ntraffic:\n  - pattern: pairs\n    pairs: 8\n    bytes: 1MiB\n    message_size: 1MiB\n    qps: 64\n    bidirectional: %v\n", bidir)
		v := runVariant(t, l, variantOf(t, l, y))
		line := 200.0 * 4096 / (4096 + 82)
		if bidir {
			line *= 2
		}
		for _, f := range v.Flows {
			if f.FCTUs == nil || f.Bytes == nil {
				t.Fatalf("flow %s did not complete", f.ID)
			}
			want := float64(*f.Bytes) * 8 / (*f.FCTUs * 1000)
			if f.ThroughputGbps > line*1.001 || math.Abs(f.ThroughputGbps-want) > 0.002 {
				t.Errorf("bidirectional %v: flow %s reads %.3f Gb/s: want its %d bytes over its %.3f us, %.3f, at most the line's %.3f", bidir, f.ID, f.ThroughputGbps, *f.Bytes, *f.FCTUs, want, line)
			}
		}
	}
}

// TestSizedFlowOverQPsPartlyDone: a sized flow of several QPs of which
// only some completed reads what a long-lived flow reads, the bytes its
// QPs delivered in the window over the window (here, without a warmup,
// the whole run), not the sum of its completed QPs' bytes over their own
// completion times and the others' window rates (until 2026-12-06: the
// perftest -b flow below, whose forward QP completes at line rate while
// the reverse one shares its receiver with a 2:1 incast, read 254 Gb/s
// for 1.69 MB in 80 us, 169 Gb/s). A single QP that did not complete
// (4 MiB one way) reads the same, as it did.
func TestSizedFlowOverQPsPartlyDone(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, c := range []struct {
		bidir bool
		bytes string
	}{{true, "1MiB"}, {false, "4MiB"}} {
		bidir := c.bidir
		y := fmt.Sprintf("name: t\nmatrix: {ecn: [on], pfc: [on]}\nduration: 80us\nsample_every: 0\ntraffic:\n  - pattern: pairs\n    bytes: %s\n    bidirectional: %v\n  - pattern: incast\n    senders: 2\n", c.bytes, bidir)
		v := runVariant(t, l, variantOf(t, l, y))
		f := v.Flows[0]
		if f.Bytes == nil || f.FCTUs != nil || *f.Bytes == 0 {
			t.Fatalf("bidirectional %v: flow %s delivered %v, fct %v: want some bytes and not every QP done", bidir, f.ID, f.Bytes, f.FCTUs)
		}
		want := float64(*f.Bytes) * 8 / 80_000
		if math.Abs(f.ThroughputGbps-want) > 0.002 {
			t.Errorf("bidirectional %v: flow %s reads %.3f Gb/s, want its %d bytes over the 80 us window, %.3f", bidir, f.ID, f.ThroughputGbps, *f.Bytes, want)
		}
	}
}
