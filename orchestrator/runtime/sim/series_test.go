package sim

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/scenario"
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
