package results

import (
	"bytes"
	"strings"
	"testing"
)

// A metric neither side holds (a flow-level estimate's drops, pauses,
// marks) is skipped with why, in JSON and text, never compared as zeros;
// the text names the model beside the figures' source.
func TestRegressListsMetricsNeitherSideHolds(t *testing.T) {
	flowRun := func(id string) *Run {
		s := Summary{ThroughputGbpsTotal: 196, ThroughputGbpsMinFlow: 24.5, JainFairness: 1, Source: Simulated, Model: ModelFlow}
		s.MarkNotComputed("drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99", "failed_flows")
		return &Run{RunID: id, Scenario: "incast", Lab: "64gpu", Runtime: "sim", Seed: 1, Model: ModelFlow, Status: StatusPassed,
			Variants: []Variant{{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Summary: s,
				Flows: []Flow{{ID: "a", Role: "incast", ThroughputGbps: 24.5, Source: Simulated}}}}}
	}
	r := Compare(flowRun("b"), flowRun("a"), nil)
	held := map[string]string{}
	for _, m := range r.NotComputed {
		held[m.Metric] = m.Reason
	}
	for _, m := range []string{"drops", "pfc_pause_frames", "ecn_marked", "cnp", "latency_us_p99", "role.retransmits"} {
		if !strings.Contains(held[m], "not computed by the flow-level model") {
			t.Errorf("%s: not listed as held by neither side with why (%q)", m, held[m])
		}
	}
	for _, f := range r.Findings {
		if _, ok := held[f.Metric]; ok {
			t.Errorf("%s compared: %+v", f.Metric, f)
		}
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"not compared, held by neither side: ", "drops, pfc_pause_frames, pfc_pause_us, ecn_marked, cnp, retransmits, latency_us_p99, failed_flows", "figures of the run: estimated, flow-level\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	// JUnit: a skipped case each, with why.
	var j bytes.Buffer
	if err := r.WriteJUnit(&j); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `name="regress:drops"`) || !strings.Contains(j.String(), `<skipped message="not compared, held by neither side: not computed by the flow-level model`) {
		t.Errorf("junit lacks the skipped case for drops:\n%s", j.String())
	}
}

// An nccl collective's variant has no flows' throughput to sum (its
// figures are its nccl-tests table): regress says so, not that its flows
// are latency ping-pongs, which its summary's not-computed list alone
// would suggest; a latency-only variant still says ping-pongs.
func TestRegressNotComputedNCCL(t *testing.T) {
	ncclRun := func(id string) *Run {
		s := Summary{Source: Simulated, Model: ModelPacket, LatencyUsP99: 2}
		s.MarkNotComputed(LatencyOnlyNotComputed...)
		return &Run{RunID: id, Scenario: "nccl-allreduce", Lab: "16gpu", Runtime: "sim", Seed: 1, Status: StatusPassed,
			Variants: []Variant{{Name: "ecn=on,pfc=on", ECN: true, PFC: true, Summary: s,
				NCCL: &NCCLTable{Collective: CollAllReduce, Algorithm: "ring", Ranks: 16, Source: Simulated,
					Rows: []NCCLRow{{SizeBytes: 1 << 20, Count: 1 << 18, OutOfPlace: NCCLResult{TimeUs: 50, AlgBWGBps: 20.97, BusBWGBps: 39.32}}}}}}}
	}
	r := Compare(ncclRun("b"), ncclRun("a"), nil)
	held := map[string]string{}
	for _, m := range r.NotComputed {
		held[m.Metric] = m.Reason
	}
	for _, m := range LatencyOnlyNotComputed {
		if why := held[m]; !strings.Contains(why, "an nccl collective alone") || strings.Contains(why, "ping-pong") {
			t.Errorf("%s of an nccl variant: %q, want the nccl collective's reason", m, why)
		}
	}
	latency := ncclRun("c").Variants[0]
	latency.NCCL = nil
	if why := latency.NotComputedReason("throughput_gbps_total"); !strings.Contains(why, "latency ping-pongs") {
		t.Errorf("a latency-only variant: %q, want the ping-pongs' reason", why)
	}
	// A record of nccl-tests output: its table alone.
	measured := Variant{Summary: Summary{Source: Measured}, NCCL: &NCCLTable{Collective: CollAllReduce, Ranks: 16, Source: Measured}}
	measured.Summary.MarkNotComputed("throughput_gbps_total", "drops")
	for _, f := range []string{"throughput_gbps_total", "drops"} {
		if why := measured.NotComputedReason(f); !strings.Contains(why, "nccl-tests output") {
			t.Errorf("%s of a record of nccl-tests output: %q", f, why)
		}
	}
}
