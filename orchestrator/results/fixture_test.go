package results

import (
	"fmt"
	"math"
	"time"
)

// syntheticRun builds a deterministic ecn-pfc run: four variants (ECN and
// PFC on and off), four incast flows each, counters, assertions and time
// series, shaped like what the simulator produces.
func syntheticRun(id string, started time.Time) *Run {
	fin := started.Add(90 * time.Second)
	run := &Run{
		SchemaVersion: SchemaVersion,
		RunID:         id,
		Lab:           "64gpu",
		Scenario:      "ecn-pfc",
		Runtime:       "sim",
		NOS:           "sonic",
		Seed:          1,
		Started:       started,
		Finished:      &fin,
		Status:        StatusPassed,
		ConfigDigest:  "sha256:3f1c",
		Extra:         map[string]any{"incast": map[string]any{"fan_in": 4, "victim": "h4:0->h9:0"}},
	}
	for i, vc := range []struct{ ecn, pfc bool }{{true, true}, {true, false}, {false, true}, {false, false}} {
		name := fmt.Sprintf("ecn=%s,pfc=%s", onOff(vc.ecn), onOff(vc.pfc))
		v := Variant{Name: name, ECN: vc.ecn, PFC: vc.pfc, SimulatedUs: 2000}
		var total, minFlow, sumSq float64
		minFlow = math.MaxFloat64
		for f := 0; f < 4; f++ {
			tp := 48.0 - float64(f)*0.5 - float64(i)*3
			if !vc.ecn && !vc.pfc && f == 3 {
				tp = 6 // a victim flow starves without congestion control
			}
			fct := 1000.0 + float64(f*10)
			v.Flows = append(v.Flows, Flow{
				ID: fmt.Sprintf("h%d:0->h9:0", f+1), Src: fmt.Sprintf("h%d", f+1), Dst: "h9",
				Pattern: "incast", Role: "incast", Bytes: new(int64(12_000_000)), ThroughputGbps: tp,
				LatencyUs: &Latency{P50: 3 + float64(i), P99: 9.8 + float64(i*4+f), Max: 20 + float64(i*5)},
				FCTUs:     &fct, Retransmits: new(int64(boolInt(!vc.pfc) * (f + 1) * 3)),
				Path: []string{fmt.Sprintf("h%d", f+1), "leaf1", "spine1", "leaf2", "h9"}, Source: Simulated,
			})
			total += tp
			minFlow = math.Min(minFlow, tp)
			sumSq += tp * tp
		}
		v.Summary = Summary{
			ThroughputGbpsTotal: total, ThroughputGbpsMinFlow: minFlow,
			JainFairness: total * total / (4 * sumSq),
			Drops:        int64(boolInt(!vc.pfc) * 250), PFCPauseFrames: int64(boolInt(vc.pfc) * (120 + 300*boolInt(!vc.ecn))),
			PFCPauseUs: float64(boolInt(vc.pfc)) * 35.2, ECNMarked: int64(boolInt(vc.ecn) * 5400), CNP: int64(boolInt(vc.ecn) * 410),
			Retransmits: int64(boolInt(!vc.pfc) * 30), LatencyUsP99: 9.8 + float64(i*4+3), Source: Simulated,
		}
		v.Counters = []Counter{
			{Node: "leaf2", Port: "Ethernet0", Priority: 3, TxBytes: 48_000_000, PFCTx: v.Summary.PFCPauseFrames, ECNMarked: v.Summary.ECNMarked, Drops: v.Summary.Drops, Source: Simulated},
			{Node: "spine1", Port: "Ethernet4", Priority: 3, TxBytes: 48_000_000, PFCRx: v.Summary.PFCPauseFrames, Source: Simulated},
		}
		v.Assertions = []Assertion{
			{Name: "no drops with PFC on", Expr: "pfc == false || drops == 0", Passed: !vc.pfc || v.Summary.Drops == 0, Detail: fmt.Sprintf("drops=%d", v.Summary.Drops)},
			{Name: "fair share", Expr: "jain_fairness >= 0.9", Passed: v.Summary.JainFairness >= 0.9, Detail: fmt.Sprintf("jain_fairness=%.3f", v.Summary.JainFairness)},
		}
		for s := 0; s < 2; s++ {
			ts := TimeSeries{Name: fmt.Sprintf("queue_bytes leaf2:Ethernet%d prio 3", s*4), Kind: "queue_bytes", Node: "leaf2", Port: fmt.Sprintf("Ethernet%d", s*4), Unit: "bytes", Source: Simulated}
			rs := TimeSeries{Name: fmt.Sprintf("rate_gbps h%d:0->h9:0", s+1), Kind: "rate_gbps", Flow: fmt.Sprintf("h%d:0->h9:0", s+1), Unit: "Gb/s", Source: Simulated}
			ps := TimeSeries{Name: fmt.Sprintf("paused spine1:Ethernet%d prio 3", s*4), Kind: "paused", Node: "spine1", Unit: "0/1", Source: Simulated}
			for t := 0; t <= 40; t++ {
				tu := float64(t) * 50
				q := 80000 * (1 + math.Sin(float64(t)/4+float64(s))) * float64(2-boolInt(vc.ecn))
				ts.TimeUs, ts.Values = append(ts.TimeUs, tu), append(ts.Values, math.Round(q))
				rs.TimeUs, rs.Values = append(rs.TimeUs, tu), append(rs.Values, 100*math.Exp(-float64(t)/10)+24)
				p := 0.0
				if vc.pfc && (t/5+s)%3 == 0 {
					p = 1
				}
				ps.TimeUs, ps.Values = append(ps.TimeUs, tu), append(ps.Values, p)
			}
			v.Series = append(v.Series, ts, rs, ps)
		}
		v.Cost = PacketCost(time.Duration(410+30*i)*time.Millisecond, uint64(3_120_000+i*250_000), uint64(1_040_000+i*80_000), 1)
		run.Variants = append(run.Variants, v)
	}
	for _, v := range run.Variants {
		for _, a := range v.Assertions {
			if !a.Passed {
				run.Status = StatusFailed
			}
		}
	}
	return run
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// passingRun is syntheticRun with every assertion passing (its "fair
// share" asks 0.8, which the no-ECN no-PFC variant's 0.82 meets) and so
// status passed: a baseline --save-baseline takes without --force, and
// that compared with itself is OK.
func passingRun(id string, started time.Time) *Run {
	run := syntheticRun(id, started)
	for i := range run.Variants {
		for j := range run.Variants[i].Assertions {
			if a := &run.Variants[i].Assertions[j]; a.Name == "fair share" {
				a.Expr, a.Passed = "jain_fairness >= 0.8", true
			}
		}
	}
	run.Status = StatusPassed
	return run
}
