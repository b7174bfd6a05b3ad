package sim

import (
	"fmt"
	"testing"
)

// sprayedPairs is n long-lived flows from leaf0 to leaf1 over 4 spines,
// sprayed (or routed adaptively) packet by packet to NICs that place out
// of order, with a measurement window of the last windowNs.
func sprayedPairs(n int, mode string, windowNs int64) Config {
	cfg := Config{
		Topology:      leafSpine(2, 4, n, 100, 100),
		DefaultQoS:    losslessQoS(true, true, 100_000, 400_000),
		DurationNs:    300_000,
		WarmupNs:      300_000 - windowNs,
		SampleEveryNs: 5_000,
		Seed:          1,
		DCQCN:         ConnectXDCQCN(),
		DCQCNEnabled:  true,
		OutOfOrder:    true,
	}
	cfg.LB.Mode = mode
	for i := range n {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h0-%d", i), Dst: fmt.Sprintf("h1-%d", i)})
	}
	return cfg
}

// A NIC that places packets out of order has placed a packet when it
// arrives, so a long-lived flow's window counts it by its arrival, not
// when the hole before it fills: packets that arrived before the window
// behind a hole filled in it read above the line rate over a short
// window. The time series' samples count the same way.
func TestOutOfOrderWindowAtLineRate(t *testing.T) {
	const windowNs = 20_000
	line := lineGoodput(100, DefaultMTU)
	// A packet whose last bit arrives just inside a window started before
	// it: at most one MTU over the line rate.
	over := func(ns int64) float64 { return line + float64(DefaultMTU)*8/float64(ns) }
	for _, mode := range []string{"spray", "adaptive"} {
		r := mustRun(t, sprayedPairs(4, mode, windowNs))
		top := 0.0
		for _, f := range r.Flows {
			top = max(top, f.GoodputGbps)
			if f.GoodputGbps > over(windowNs) {
				t.Errorf("%s: flow %s reads %.3f Gb/s over a %d ns window, above the line rate %.3f", mode, f.ID, f.GoodputGbps, windowNs, line)
			}
		}
		for _, fs := range r.Series.Rates {
			for i, g := range fs.GoodputGbps {
				if g > over(r.Series.EveryNs) {
					t.Errorf("%s: flow %s sample %d reads %.3f Gb/s, above the line rate %.3f", mode, fs.ID, i, g, line)
					break
				}
			}
		}
		t.Logf("%s: highest window goodput %.3f Gb/s of %.3f", mode, top, line)
	}
}

// Packets placed out of order count in the goodput window by their
// arrival, those still behind an open gap at the end of the run too: the
// NIC has written them, and the time series counts them so. Sixteen
// sprayed flows over 4 spines at 4:1 keep queues of about 3 MB at the
// leaf's uplinks, whose depths differ by tens of microseconds, so at any
// moment each flow holds a few hundred KB placed behind a gap; left out,
// the last 50 µs of a 1 ms run read 166 Gb/s of the 393 the uplinks carry.
func TestOutOfOrderWindowCountsOpenGap(t *testing.T) {
	const windowNs = 50_000
	cfg := sprayedPairs(16, "spray", windowNs)
	cfg.DCQCNEnabled = false // no rate cuts: the uplinks stay full
	cfg.DurationNs = 1_000_000
	cfg.WarmupNs = cfg.DurationNs - windowNs
	r := mustRun(t, cfg)
	uplinks := 4 * lineGoodput(100, DefaultMTU)
	if r.Totals.GoodputGbps < 0.97*uplinks {
		t.Errorf("window goodput %.1f Gb/s, want the uplinks' %.1f", r.Totals.GoodputGbps, uplinks)
	}
	// The window is the series' samples in it, flow by flow.
	ser := r.Series.Expanded()
	for i, fs := range ser.Rates {
		var sum float64
		for k, at := range ser.TimesNs {
			if at > cfg.WarmupNs {
				sum += fs.GoodputGbps[k]
			}
		}
		sum *= float64(ser.EveryNs) / windowNs
		if f := r.Flows[i]; !within(f.GoodputGbps, sum, 0.001) {
			t.Errorf("flow %s: window goodput %.3f Gb/s, its samples in the window %.3f", f.ID, f.GoodputGbps, sum)
		}
	}
}

// Sixteen sprayed flows with DCQCN on read almost nothing over 250-300 µs,
// and that is DCQCN's, not the reordering's: no NAK, no retransmission.
// All start at line rate into the leaf's 4 uplinks (4:1); their queues
// reach about 790 KB, 64 µs at 100G, and every packet leaving them above
// Kmin may be marked, so each QP gets a CNP every 4 µs while they drain
// and ConnectX's defaults cut it each time by up to half (min_dec_fac
// 50): a dozen cuts take it to tens of Mb/s. At that rate its 32 KiB
// byte counter takes milliseconds, so its rate-increase timer
// (rpg_time_reset, 300 µs, restarted by every cut) is what raises it,
// about 300 µs after its last cut, past the window. With a 55 µs timer
// the same window is full.
func TestSprayedDCQCNWaitsForItsRateTimer(t *testing.T) {
	const windowNs = 50_000
	uplinks := 4 * lineGoodput(100, DefaultMTU)
	for _, timerUs := range []int64{300, 55} {
		cfg := sprayedPairs(16, "spray", windowNs)
		cfg.DCQCN.RPGTimeResetUs = timerUs
		r := mustRun(t, cfg)
		var naks, retx, slow int64
		for _, f := range r.Flows {
			naks += f.NAKs
			retx += f.Retransmits
			if f.RateGbps < 1 {
				slow++
			}
		}
		if naks != 0 || retx != 0 {
			t.Errorf("timer %d µs: %d NAKs and %d retransmissions; out-of-order placement should take spraying without any", timerUs, naks, retx)
		}
		got := r.Totals.GoodputGbps
		t.Logf("timer %d µs: window goodput %.1f Gb/s of %.1f, %d of 16 flows below 1 Gb/s", timerUs, got, uplinks, slow)
		switch {
		case timerUs == 300 && (got > 0.05*uplinks || slow < 14):
			t.Errorf("timer 300 µs: window goodput %.1f Gb/s and %d flows below 1 Gb/s: the flows no longer wait for their rate timer (see the test's comment)", got, slow)
		case timerUs == 55 && got < 0.9*uplinks:
			t.Errorf("timer 55 µs: window goodput %.1f Gb/s, want most of the uplinks' %.1f", got, uplinks)
		}
	}
}
