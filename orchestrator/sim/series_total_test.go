package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// seriesMixConfig has a flow of each kind a sample rates: plain flows, a
// ring's QPs and a ping-pong's two QPs, and an all-to-all whose QPs are
// Quiet (in neither the series nor the total).
func seriesMixConfig() Config {
	cfg := mixedConfig(3)
	cfg.Rings = []Ring{{ID: "ring", Ranks: []string{"h0-1", "h1-1", "h0-2", "h1-2"}, Bytes: 1 << 20, DSCP: 26}}
	cfg.PingPongs = []PingPong{{ID: "lat", Client: "h0-3", Server: "h1-3", MessageBytes: 64, Iterations: 50}}
	cfg.AllToAll = []AllToAll{{ID: "a2a", Ranks: []string{"h0-0", "h1-2", "h0-3"}, Bytes: 256 << 10}}
	return cfg
}

// withoutSeries is r's JSON without its time series.
func withoutSeries(t *testing.T, r *Result) []byte {
	t.Helper()
	c := *r
	c.Series = nil
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// NoRateSeries drops a flow's own series, keeps it in the total and
// changes nothing else; RateSeriesValues says what a sample holds.
func TestNoRateSeries(t *testing.T) {
	all := seriesMixConfig()
	ra := mustRun(t, all)
	// 5 flows, 4 ring QPs, 2 ping-pong QPs; the all-to-all's 6 are Quiet.
	if n := len(ra.Series.Rates); n != 11 {
		t.Fatalf("%d rate series, want 11 (5 flows, 4 ring QPs, 2 ping-pong QPs)", n)
	}
	if got, want := RateSeriesValues(&all), 2*11+1; got != want {
		t.Errorf("RateSeriesValues = %d, want %d", got, want)
	}
	// The total is the sum of every flow's goodput, in flow order.
	if len(ra.Series.GoodputGbps) != len(ra.Series.TimesNs) {
		t.Fatalf("%d totals for %d samples", len(ra.Series.GoodputGbps), len(ra.Series.TimesNs))
	}
	nonzero := false
	for k, got := range ra.Series.GoodputGbps {
		var sum float64
		for _, r := range ra.Series.Rates {
			sum += r.GoodputGbps[k]
		}
		if got != sum {
			t.Errorf("sample %d: total %v, the flows' goodput sums to %v", k, got, sum)
		}
		nonzero = nonzero || got > 0
	}
	if !nonzero {
		t.Error("the total goodput is zero throughout")
	}

	some := seriesMixConfig()
	for i := range some.Flows {
		some.Flows[i].NoRateSeries = i%2 == 0
	}
	some.Rings[0].NoRateSeries = true
	some.PingPongs[0].NoRateSeries = true
	rs := mustRun(t, some)
	var kept []FlowSeries
	for _, r := range ra.Series.Rates {
		if r.ID == "in1" || r.ID == "in3" {
			kept = append(kept, r)
		}
	}
	ja, _ := json.Marshal(kept)
	js, _ := json.Marshal(rs.Series.Rates)
	if !bytes.Equal(ja, js) {
		t.Errorf("series kept: %s\nwant those of in1 and in3 as without NoRateSeries: %s", js, ja)
	}
	if got, want := RateSeriesValues(&some), 2*2+1; got != want {
		t.Errorf("RateSeriesValues = %d, want %d", got, want)
	}
	jt, _ := json.Marshal(ra.Series.GoodputGbps)
	ju, _ := json.Marshal(rs.Series.GoodputGbps)
	if !bytes.Equal(jt, ju) {
		t.Errorf("total goodput %s, want %s as without NoRateSeries", ju, jt)
	}
	if !bytes.Equal(withoutSeries(t, ra), withoutSeries(t, rs)) {
		t.Error("NoRateSeries changed the run, not only its series")
	}

	// Without flows to rate there is no total.
	none := mixedConfig(3)
	none.Flows = none.Flows[:0]
	none.AllToAll = seriesMixConfig().AllToAll
	if r := mustRun(t, none); r.Series.GoodputGbps != nil || len(r.Series.Rates) != 0 || RateSeriesValues(&none) != 0 {
		t.Errorf("only Quiet QPs: total %v, %d series, RateSeriesValues %d", r.Series.GoodputGbps, len(r.Series.Rates), RateSeriesValues(&none))
	}
}

// The engine's bound on sampled values counts what it would keep: a
// ring's QPs with series of their own count, and fit once NoRateSeries
// leaves them in the total only.
func TestSeriesBudgetCountsRingQPs(t *testing.T) {
	cfg := Config{
		Topology:      leafSpine(2, 2, 32, 100, 100),
		DefaultQoS:    losslessQoS(true, false, 0, 0),
		DurationNs:    2_000_000,
		SampleEveryNs: 10, // 200,001 samples
		Seed:          1,
	}
	var ranks []string
	for l := range 2 {
		for h := range 32 {
			ranks = append(ranks, fmt.Sprintf("h%d-%d", l, h))
		}
	}
	cfg.Rings = []Ring{{ID: "ring", Ranks: ranks, Bytes: 64 << 10, DSCP: 26}}
	// 64 QPs with series of their own: 2 x 64 + 1 values a sample.
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "NoRateSeries") {
		t.Fatalf("64 ring QPs sampled 200,001 times: err %v, want the bound's error naming NoRateSeries", err)
	}
	cfg.Rings[0].NoRateSeries = true
	r := mustRun(t, cfg)
	if len(r.Series.Rates) != 0 || len(r.Series.GoodputGbps) != len(r.Series.TimesNs) {
		t.Errorf("NoRateSeries ring: %d series, %d totals for %d samples", len(r.Series.Rates), len(r.Series.GoodputGbps), len(r.Series.TimesNs))
	}
}
