package sim

import (
	"fmt"
	"testing"
)

// elephants is m long flows from leaf0 to leaf1 over n spines.
func elephants(m, n int, seed int64) Config {
	cfg := Config{
		Topology:   leafSpine(2, n, m, 100, 100),
		DefaultQoS: losslessQoS(true, true, 100_000, 400_000),
		DurationNs: 1_000_000,
		WarmupNs:   300_000,
		Seed:       seed,
		DCQCN:      ConnectXDCQCN(),
	}
	cfg.DCQCNEnabled = true
	for i := 0; i < m; i++ {
		cfg.Flows = append(cfg.Flows, Flow{ID: fmt.Sprint(i), Src: fmt.Sprintf("h0-%d", i), Dst: fmt.Sprintf("h1-%d", i)})
	}
	return cfg
}

// On a seed where flow hashing puts two elephants on one spine, spraying
// and adaptive routing with NICs that place out-of-order packets use
// every spine; with go-back-N NICs the reordering costs retransmissions.
func TestLoadBalancingModes(t *testing.T) {
	const m, n = 4, 4
	line := lineGoodput(100, DefaultMTU)
	ideal := float64(m) * line
	// Find a seed with an ECMP collision.
	var seed int64
	var ecmp *Result
	for s := int64(1); s < 50; s++ {
		r := mustRun(t, elephants(m, n, s))
		if r.Totals.GoodputGbps < 0.8*ideal {
			seed, ecmp = s, r
			break
		}
	}
	if ecmp == nil {
		t.Fatal("no seed in 1..49 hashes two elephants onto one spine")
	}
	run := func(mode string, ooo bool) *Result {
		cfg := elephants(m, n, seed)
		cfg.LB.Mode = mode
		cfg.OutOfOrder = ooo
		return mustRun(t, cfg)
	}
	spray, sprayGBN := run("spray", true), run("spray", false)
	adaptive := run("adaptive", true)
	flowlet := run("flowlet", false)
	t.Logf("seed %d: ecmp %.1f, spray %.1f (go-back-N %.1f, %d retransmits), adaptive %.1f, flowlet %.1f of %.1f Gb/s",
		seed, ecmp.Totals.GoodputGbps, spray.Totals.GoodputGbps, sprayGBN.Totals.GoodputGbps, sprayGBN.Totals.Retransmits, adaptive.Totals.GoodputGbps, flowlet.Totals.GoodputGbps, ideal)
	// Adaptive routing evens the queues out: every spine carries one
	// flow's worth. Random spraying spreads the same load, but as
	// random walks: queues still build at times and DCQCN slows the
	// senders, so it lands between flow hashing and the ideal.
	if adaptive.Totals.GoodputGbps < 0.97*ideal {
		t.Errorf("adaptive with out-of-order placement: %.1f Gb/s, want at least 97%% of %.1f", adaptive.Totals.GoodputGbps, ideal)
	}
	if spray.Totals.GoodputGbps < ecmp.Totals.GoodputGbps+0.25*ideal {
		t.Errorf("spray with out-of-order placement: %.1f Gb/s, want well above flow hashing's %.1f", spray.Totals.GoodputGbps, ecmp.Totals.GoodputGbps)
	}
	for name, r := range map[string]*Result{"spray": spray, "adaptive": adaptive} {
		if r.Totals.Retransmits != 0 {
			t.Errorf("%s with out-of-order placement: %d retransmits on a lossless fabric", name, r.Totals.Retransmits)
		}
	}
	if sprayGBN.Totals.Retransmits == 0 || sprayGBN.Totals.GoodputGbps >= spray.Totals.GoodputGbps {
		t.Errorf("spray with go-back-N NICs: %.1f Gb/s, %d retransmits; want retransmits and less than with out-of-order placement (%.1f)",
			sprayGBN.Totals.GoodputGbps, sprayGBN.Totals.Retransmits, spray.Totals.GoodputGbps)
	}
}
