package sim

import (
	"context"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/scenario"
	engine "github.com/labctl/labctl/orchestrator/sim"
)

// The queue series are per port and priority and carry the ECN
// thresholds the simulated configs give the queue: the lab's, an edit's,
// none when the variant takes ECN away; the ports toward the senders
// record the pauses they send.
func TestSeriesCarryThresholdsAndPauseDirection(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	sc, err := scenario.Parse("t.yaml", []byte("name: t\nduration: 1ms\nsample_every: 10us\ntraffic:\n  - pattern: incast\n    senders: 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	variant := func(ecn, pfc bool) *results.Variant {
		vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: scenario.VariantName(ecn, pfc), ECN: ecn, PFC: pfc}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return runVariant(t, l, vs)
	}
	// The receiver's port: the deepest queue_bytes series of priority 3.
	receiver := func(v *results.Variant) *results.TimeSeries {
		var best *results.TimeSeries
		peak := -1.0
		for i := range v.Series {
			s := &v.Series[i]
			if s.Kind != results.SeriesQueueBytes || s.Priority == nil || *s.Priority != 3 {
				continue
			}
			for _, x := range s.Values {
				if x > peak {
					best, peak = s, x
				}
			}
		}
		if best == nil {
			t.Fatalf("no queue series of priority 3 in %s", v.Name)
		}
		return best
	}
	thresholds := func(s *results.TimeSeries) []results.Threshold { return s.Thresholds }
	v := variant(true, true)
	rq := receiver(v)
	if rq.Node != "leaf1" || rq.Queue == nil || *rq.Queue != 3 {
		t.Errorf("receiver's queue series %s: node %s queue %v", rq.Name, rq.Node, rq.Queue)
	}
	// 16gpu renders Kmin 800 KiB and Kmax 3.125 MiB at 200G.
	if th := thresholds(rq); len(th) != 2 || th[0] != (results.Threshold{Name: "ECN Kmin", Value: 819200}) || th[1] != (results.Threshold{Name: "ECN Kmax", Value: 3276800}) {
		t.Errorf("thresholds %+v, want the catalog's Kmin 819200 and Kmax 3276800", th)
	}
	// An edit to the config is what the chart draws.
	editFile(t, filepath.Join(l.ConfigsDir(), "leaf1.json"), regexp.MustCompile(`"green_min_threshold": "\d+"`), `"green_min_threshold": "20480"`)
	if th := thresholds(receiver(variant(true, true))); len(th) != 2 || th[0].Value != 20480 {
		t.Errorf("after the edit: thresholds %+v, want Kmin 20480", th)
	}
	// ECN off: no marking, no thresholds; PFC on: the ports toward the
	// senders send pauses.
	off := variant(false, true)
	if th := thresholds(receiver(off)); len(th) != 0 {
		t.Errorf("ecn=off: thresholds %+v", th)
	}
	sent, xoff := 0, 0
	for _, s := range off.Series {
		switch s.Kind {
		case results.SeriesPauseSent:
			sent++
			if s.PG == nil || s.Priority == nil || *s.Priority != 3 {
				t.Errorf("pause_sent series %s: PG %v priority %v", s.Name, s.PG, s.Priority)
			}
		case results.SeriesXOFFBytes:
			xoff++
		}
	}
	if sent == 0 || xoff == 0 {
		t.Errorf("ecn=off,pfc=on: %d pause_sent and %d xoff_bytes series, want some", sent, xoff)
	}
}

// The simulator keeps rate series only for the flows the record shows (the
// first maxSeriesFlows of the scenario's flows), and the record's total
// goodput is what summing every flow's series gave: the same series as a
// run where every flow keeps its own.
func TestRecordKeepsSeriesOfShownFlowsOnly(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	sc, err := scenario.Parse("t.yaml", []byte("name: t\nduration: 200us\nsample_every: 10us\ntraffic:\n"+
		"  - pattern: incast\n    senders: 12\n    qps: 2\n"+
		"  - pattern: latency\n    iterations: 20\n"))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), scenario.Point{Name: scenario.VariantName(true, true), ECN: true, PFC: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, cfg := variantConfig(t, l, vs)
	var shown []string
	for _, f := range cfg.Flows {
		if !f.NoRateSeries {
			shown = append(shown, f.ID)
		}
	}
	if len(cfg.Flows) != 24 || len(shown) != maxSeriesFlows || shown[0] != cfg.Flows[0].ID || len(cfg.PingPongs) != 1 || !cfg.PingPongs[0].NoRateSeries {
		t.Fatalf("%d flows, %d with series of their own (%v), ping-pongs %+v: want 24, the first %d, and the ping-pong's in the total only", len(cfg.Flows), len(shown), shown, cfg.PingPongs, maxSeriesFlows)
	}
	res, err := engine.Run(context.Background(), *cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Every flow with a series of its own, as before NoRateSeries.
	every := *cfg
	every.Flows = slices.Clone(cfg.Flows)
	for i := range every.Flows {
		every.Flows[i].NoRateSeries = false
	}
	every.PingPongs = slices.Clone(cfg.PingPongs)
	every.PingPongs[0].NoRateSeries = false
	all, err := engine.Run(context.Background(), every)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Series.Rates) != 26 {
		t.Fatalf("%d series without NoRateSeries, want 26 (24 QPs and the ping-pong's 2)", len(all.Series.Rates))
	}
	wantTotal := make([]float64, len(all.Series.TimesNs))
	for _, r := range all.Series.Rates {
		for i, g := range r.GoodputGbps {
			wantTotal[i] += g
		}
	}
	var wantRates []results.TimeSeries
	for i := range wantTotal {
		wantTotal[i] = round3(wantTotal[i])
	}
	for _, r := range all.Series.Rates[:maxSeriesFlows] {
		wantRates = append(wantRates, results.TimeSeries{Flow: r.ID, Values: r.RateGbps})
	}
	v := b.variant(vs, cfg, res)
	var gotTotal []float64
	var gotRates []results.TimeSeries
	for _, s := range v.Series {
		switch s.Kind {
		case "goodput_gbps":
			gotTotal = s.Values
		case "rate_gbps":
			gotRates = append(gotRates, results.TimeSeries{Flow: s.Flow, Values: s.Values})
		}
	}
	if !slices.Equal(gotTotal, wantTotal) || slices.Max(gotTotal) == 0 {
		t.Errorf("total goodput %v, want the sum of every flow's series %v", gotTotal, wantTotal)
	}
	if !reflect.DeepEqual(gotRates, wantRates) {
		t.Errorf("rate series %+v\nwant the first %d flows' %+v", gotRates, maxSeriesFlows, wantRates)
	}
}

// A record's series stop where the fabric went quiet (the sized work
// done): SeriesEndUs is their last time, and each, held at its last value
// to the end of the run, is the series of every sample, the busiest ports
// chosen the same. What the faults' extras read from the goodput series
// is the same too. A run busy to its end keeps every sample.
func TestRecordEndsSeriesWhereQuiet(t *testing.T) {
	l := upLab(t, "16gpu", "sonic")
	for _, c := range []struct {
		name, yaml string
		quiet      bool
	}{
		{"sized incast", "name: t\nduration: 2ms\nsample_every: 10us\ntraffic:\n  - pattern: incast\n    senders: 8\n    bytes: 256KB\n", true},
		{"sized pairs and a link failure", "name: t\nduration: 3ms\nsample_every: 20us\ntraffic:\n  - pattern: pairs\n    pairs: 8\n    bytes: 2MB\n" +
			"faults:\n  - kind: link-down\n    link: leaf1-spine1\n    at: 100us\n", true},
		{"long-lived incast", "name: t\nduration: 300us\nsample_every: 10us\ntraffic:\n  - pattern: incast\n    senders: 8\n", false},
		// A storm's pause outlasts the run, its port paused in every
		// repeated sample: the pause series are held too.
		{"storm to the end", "name: t\nmatrix:\n  ecn: [off]\n  pfc: [on]\n  qos.pfc_watchdog.enabled: [false]\nduration: 1ms\nsample_every: 10us\ntraffic:\n  - pattern: incast\n    senders: 4\n    bytes: 64KB\n" +
			"faults:\n  - kind: pfc-storm\n    nic: host1:0\n    at: 900us\n    for: 60us\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scenario.Parse("t.yaml", []byte(c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			// ECN off, PFC on: lossless, no DCQCN.
			i := slices.IndexFunc(sc.Points(), func(p scenario.Point) bool { return !p.ECN && p.PFC })
			vs, err := sc.Expand(scenario.NICsFromGraph(l.Graph), sc.Points()[i], 1)
			if err != nil {
				t.Fatal(err)
			}
			b, cfg := variantConfig(t, l, vs)
			res, err := engine.Run(context.Background(), *cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, end := seriesOf(res, cfg)
			every := *res
			every.Series = res.Series.Expanded()
			want, wantEnd := seriesOf(&every, cfg)
			if wantEnd != 0 {
				t.Fatalf("every sample kept: end %v, want 0", wantEnd)
			}
			kept, n := len(res.Series.TimesNs), len(every.Series.TimesNs)
			if last := every.Series.TimesNs[n-1]; last != cfg.DurationNs {
				t.Fatalf("every sample: the last at %d ns, want the run's end %d", last, cfg.DurationNs)
			}
			if !c.quiet {
				if res.Series.Repeated != 0 || end != 0 || !reflect.DeepEqual(got, want) {
					t.Fatalf("busy to the end: %d samples repeated, end %v; want every sample", res.Series.Repeated, end)
				}
				return
			}
			if res.Series.Repeated == 0 || n != kept+res.Series.Repeated || end != float64(res.Series.TimesNs[kept-1])/1000 {
				t.Fatalf("%d of %d samples repeated, end %v µs: want some repeated, the end at the last taken", res.Series.Repeated, n, end)
			}
			heldPause := false
			for _, s := range got {
				if (s.Kind == results.SeriesPaused || s.Kind == results.SeriesPauseSent) && s.Values[len(s.Values)-1] != 0 {
					heldPause = true
				}
			}
			if storm := len(vs.Faults) > 0 && vs.Faults[0].Kind == "pfc-storm"; storm != heldPause {
				t.Errorf("a pause held to the end: %v; want it only with the storm", heldPause)
			}
			if len(got) != len(want) || len(got) < 3 {
				t.Fatalf("%d series with the quiet tail left out, %d with it", len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if len(g.TimeUs) != kept || len(g.Values) != kept {
					t.Fatalf("%s: %d times and %d values, want %d", g.Name, len(g.TimeUs), len(g.Values), kept)
				}
				held := slices.Clone(g.Values)
				for len(held) < n {
					held = append(held, held[len(held)-1])
				}
				g.TimeUs, g.Values = w.TimeUs, held
				if !reflect.DeepEqual(g, w) {
					t.Errorf("series %d (%s) held to the end differs from every sample's (%s)", i, got[i].Name, w.Name)
				}
			}
			if len(vs.Faults) > 0 {
				places := b.faultPlaces(vs)
				fx, wx := faultExtra(vs, res, got, places), faultExtra(vs, res, want, places)
				if !reflect.DeepEqual(fx, wx) || fx["goodput_before_gbps"] == nil {
					t.Errorf("fault extras without the tail %v, with it %v", fx, wx)
				}
			}
			// The record says where they end, before the run's end.
			v := runVariant(t, l, vs)
			if v.SeriesEndUs != end || v.SeriesEndUs >= v.SimulatedUs || len(v.Series[0].TimeUs) != kept {
				t.Errorf("record: series end %v µs of %v, %d samples; want %v, %d", v.SeriesEndUs, v.SimulatedUs, len(v.Series[0].TimeUs), end, kept)
			}
			// And when the fabric last changed: by the quiet sample the
			// series end with, before the run's end.
			if v.LastEventUs == nil || *v.LastEventUs <= 0 || *v.LastEventUs > v.SeriesEndUs {
				t.Errorf("record: last event %v µs, series end %v µs of %v: want a last event by the series' end", v.LastEventUs, v.SeriesEndUs, v.SimulatedUs)
			}
		})
	}
}
