package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func newTestRP(line float64) (reactionPoint, *dcqcnPs) {
	p := dcqcnToPs(PaperDCQCN(line))
	return newReactionPoint(&p, line*1000), &p
}

// targetFirstCNP: with α = 1 the first CNP halves the rate (the paper's
// machinery cuts at the CNP).
func targetFirstCNP(t *testing.T, page *targetPage) {
	for _, line := range []float64{25, 100, 200, 400} {
		rp, _ := newTestRP(line)
		rp.onCNP(1_000_000)
		if want := line * 1000 / 2; rp.rc != want {
			t.Errorf("%vG: rate after first CNP = %v Mb/s, want exactly %v", line, rp.rc, want)
		}
		if rp.rt != line*1000 {
			t.Errorf("%vG: target rate = %v, want the old rate %v", line, rp.rt, line*1000)
		}
		if rp.alpha != 1 {
			t.Errorf("%vG: alpha after first CNP = %v, want (1-g)*1+g = 1", line, rp.alpha)
		}
		if line == 100 {
			page.row("first CNP with α = 1, dcqcn: paper, 100G", "rate halves exactly", fmt.Sprintf("%.0f → %.0f Mb/s, target kept at %.0f", line*1000, rp.rc, rp.rt))
		}
	}
	// ConnectX: α starts at 1023/1024 and moves on its 1 µs grid; the cut
	// comes at the end of the 4 µs monitor period with α of that moment.
	p := dcqcnToPs(ConnectXDCQCN())
	rp := newReactionPoint(&p, 100_000)
	_, at := rp.onCNP(0)
	rp.onMonitor(at)
	g := 5.0 / 1024
	a := ((1-g)*1023.0/1024 + g) * math.Pow(1-g, 3)
	if want := 100_000 * (1 - a/2); math.Abs(rp.rc-want) > 1e-6 {
		t.Errorf("ConnectX: rate after the first cut %v Mb/s, want %v", rp.rc, want)
	}
	page.row("first CNP, dcqcn: connectx, 100G", fmt.Sprintf("cut at the end of the 4 µs monitor period by α/2, α = %.4f then: %.0f Mb/s", a, 100_000*(1-a/2)),
		fmt.Sprintf("100000 → %.0f Mb/s at %.0f µs", rp.rc, float64(at)/1e6))
}

func targetAlphaDecay(t *testing.T, page *targetPage) {
	rp, p := newTestRP(100)
	const t0 = 7_000_000
	rp.onCNP(t0)
	for _, k := range []int64{0, 1, 2, 10, 55, 256, 1000} {
		// Just before the (k+1)-th period ends, k decays have happened.
		now := t0 + k*p.alphaPeriod + p.alphaPeriod - 1
		want := math.Pow(1-1.0/256, float64(k))
		probe := rp
		got := probe.alphaNow(now)
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("alpha after %d quiet periods = %.15f, want (1-1/256)^%d = %.15f", k, got, k, want)
		}
		if k == 256 {
			page.row("α after k = 256 periods of 55 µs without CNP, dcqcn: paper", fmt.Sprintf("(1−1/256)^256 = %.6f", want), fmt.Sprintf("%.6f", got))
		}
	}
	// A second CNP after k quiet periods uses the decayed alpha.
	const k = 20
	now := int64(t0 + k*p.alphaPeriod)
	a := math.Pow(1-1.0/256, k)
	before := rp.rc
	rp.onCNP(now)
	if want := before * (1 - a/2); math.Abs(rp.rc-want) > 1e-9 {
		t.Errorf("second cut: rate %v, want %v", rp.rc, want)
	}
	if want := (1-1.0/256)*a + 1.0/256; math.Abs(rp.alpha-want) > 1e-12 {
		t.Errorf("alpha after second CNP = %v, want %v", rp.alpha, want)
	}
}

func TestRateIncreaseStages(t *testing.T) {
	rp, p := newTestRP(40)
	rp.onCNP(0) // rc 20000, rt 40000
	// Fast recovery: F timer events move RC halfway to RT each, RT fixed.
	rc := rp.rc
	for i := 1; i <= p.f; i++ {
		rp.onTimer()
		rc = (40000 + rc) / 2
		if math.Abs(rp.rc-rc) > 1e-9 || rp.rt != 40000 {
			t.Fatalf("fast recovery step %d: rc=%v rt=%v, want rc=%v rt=40000", i, rp.rc, rp.rt, rc)
		}
	}
	// Cut again to test additive increase from a lower target.
	rp.onCNP(1)
	rt := rp.rt
	for i := 0; i < p.f; i++ {
		rp.onTimer()
	}
	rp.onTimer() // T = F+1, BC = 0: additive
	if want := rt + 40; math.Abs(rp.rt-want) > 1e-9 {
		t.Errorf("additive increase: rt=%v, want %v (+40 Mb/s at 40G)", rp.rt, want)
	}
	// Hyper increase needs both counters past F.
	rp.bc = p.f + 2
	rp.t = p.f + 2
	rt = rp.rt
	rp.onTimer() // T = F+3, BC = F+2: RT += (min-F)*HAI = 2*200
	if want := rt + 400; math.Abs(rp.rt-want) > 1e-9 {
		t.Errorf("hyper increase: rt=%v, want %v", rp.rt, want)
	}
	// Rate never exceeds line rate, and reaching it stops the machinery.
	for i := 0; i < 200 && rp.limited; i++ {
		rp.onTimer()
	}
	if rp.limited || rp.rc != 40000 {
		t.Errorf("after recovery: limited=%v rc=%v, want back at line rate", rp.limited, rp.rc)
	}
}

func TestMinRate(t *testing.T) {
	rp, p := newTestRP(100)
	for i := int64(0); i < 100; i++ {
		rp.onCNP(i)
	}
	if rp.rc != p.min {
		t.Errorf("rate after 100 CNPs = %v Mb/s, want the minimum %v", rp.rc, p.min)
	}
}

func TestByteCounter(t *testing.T) {
	rp, p := newTestRP(100)
	rp.onCNP(0)
	rp.onBytes(p.byteCounter - 1)
	if rp.bc != 0 {
		t.Fatalf("bc = %d before a full byte counter", rp.bc)
	}
	rp.onBytes(1)
	if rp.bc != 1 {
		t.Errorf("bc = %d after %d bytes, want 1", rp.bc, p.byteCounter)
	}
}

// The ConnectX machinery: CNPs only set flags, the cut comes at the end
// of the 4 µs monitor period, at most one per period, with the α of that
// moment; the target rate is kept across cuts with no increase between
// them, and a cut never takes more than rpg_min_dec_fac.
func TestConnectXCuts(t *testing.T) {
	p := dcqcnToPs(ConnectXDCQCN())
	rp := newReactionPoint(&p, 100_000)
	const us = 1_000_000 // ps
	cutNow, at := rp.onCNP(10 * us)
	if cutNow || at != 14*us {
		t.Fatalf("first CNP at 10 µs: cut now %v, at %d ps; want the end of the monitor period, 14 µs", cutNow, at)
	}
	if !rp.limited || rp.rc != 100_000 {
		t.Fatalf("the first CNP allocates the limiter at line rate: limited %v rc %v", rp.limited, rp.rc)
	}
	// More CNPs in the same period do not add a cut.
	if cutNow, at := rp.onCNP(12 * us); cutNow || at != 0 {
		t.Errorf("second CNP in the period: cut now %v at %d, want nothing new", cutNow, at)
	}
	rp.onMonitor(14 * us)
	// α: four 1 µs periods closed by 14 µs, those of the CNPs at 10 and
	// 12 µs raise it — the cut uses α as it stands at 14 µs.
	g := 5.0 / 1024
	a := 1023.0 / 1024
	for _, cnp := range []bool{true, false, true, false} {
		a *= 1 - g
		if cnp {
			a += g
		}
	}
	if want := 100_000 * (1 - a/2); math.Abs(rp.rc-want) > 1e-6 {
		t.Errorf("rate after the first cut %v Mb/s, want %v (alpha %v)", rp.rc, want, a)
	}
	if rp.rt != 100_000 {
		t.Errorf("target after the first cut %v, want kept at line rate (clamp_tgt_rate 0)", rp.rt)
	}
	// Back-to-back cuts with no increase between them keep the target;
	// a cut keeps at least half the rate.
	for i := int64(0); i < 10; i++ {
		before := rp.rc
		_, at := rp.onCNP((15 + 4*i) * us)
		rp.onMonitor(at)
		if rp.rc < before*0.5-1e-9 {
			t.Fatalf("cut %d: %v -> %v, more than rpg_min_dec_fac 50%%", i, before, rp.rc)
		}
	}
	if rp.rt != 100_000 {
		t.Errorf("target after back-to-back cuts %v, want still 100000", rp.rt)
	}
	// Fast recovery climbs halfway back to the kept target at once.
	rc := rp.rc
	rp.onBytes(p.byteCounter)
	if want := (100_000 + rc) / 2; math.Abs(rp.rc-want) > 1e-6 {
		t.Errorf("fast recovery: %v, want %v", rp.rc, want)
	}
	// After an increase event a cut clamps the target to the rate.
	_, at = rp.onCNP(200 * us)
	before := rp.rc
	rp.onMonitor(at)
	if rp.rt != before {
		t.Errorf("cut after an increase: target %v, want the rate before the cut %v", rp.rt, before)
	}
	if rp.cuts != 12 {
		t.Errorf("cuts = %d, want 12", rp.cuts)
	}
}

// A flow at line rate sends a whole byte counter (32 KiB, 2.6 µs at 100G)
// before the end of the monitor period that follows its first CNP: the
// increase event must not release the limiter and drop the cut the CNP
// asked for.
func TestIncreaseBeforeFirstCutKeepsTheCut(t *testing.T) {
	p := dcqcnToPs(ConnectXDCQCN())
	rp := newReactionPoint(&p, 100_000)
	const us = 1_000_000
	_, at := rp.onCNP(10 * us)
	rp.onBytes(p.byteCounter) // fast recovery at line rate: a no-op
	if !rp.limited {
		t.Fatal("an increase event before the first cut released the limiter")
	}
	gen := rp.gen
	rp.onMonitor(at)
	if rp.gen == gen || rp.rc > 60_000 {
		t.Errorf("cut due at %d ps: rate %v Mb/s, want about half of line rate", at, rp.rc)
	}
	// Back at line rate with no CNP pending, the limiter is released.
	for i := 0; i < 64 && rp.limited; i++ {
		rp.onBytes(p.byteCounter)
	}
	if rp.limited || rp.rc != 100_000 {
		t.Errorf("after recovering: limited %v at %v Mb/s, want released at line rate", rp.limited, rp.rc)
	}
}

// α's update period grid: in a quiet stretch it decays once per period,
// and a CNP raises it at the end of its period.
func targetConnectXAlphaGrid(t *testing.T, page *targetPage) {
	p := dcqcnToPs(ConnectXDCQCN())
	rp := newReactionPoint(&p, 100_000)
	const us = 1_000_000
	rp.onCNP(0)
	g := 5.0 / 1024
	a1 := (1-g)*1023.0/1024 + g
	if got := rp.alphaNow(1 * us); math.Abs(got-a1) > 1e-12 {
		t.Errorf("alpha after the first period = %v, want %v", got, a1)
	}
	got := rp.alphaNow(1000 * us)
	if math.Abs(got-a1*math.Pow(1-g, 999)) > 1e-12 {
		t.Errorf("alpha after 999 quiet periods = %v, want %v", got, a1*math.Pow(1-g, 999))
	}
	page.row("α 999 periods of 1 µs after one CNP, dcqcn: connectx (dce_tcp_g 1019: g = 5/1024)",
		fmt.Sprintf("((1−g)·1023/1024 + g)·(1−g)^999 = %.6f", a1*math.Pow(1-g, 999)), fmt.Sprintf("%.6f", got))
}

func TestDCQCNValidate(t *testing.T) {
	for _, p := range []DCQCNParams{ConnectXDCQCN(), PaperDCQCN(100), PaperDCQCN(400)} {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	bad := ConnectXDCQCN()
	bad.DCETCPG = 2000
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "dce_tcp_g") {
		t.Errorf("dce_tcp_g 2000: %v", err)
	}
	bad = ConnectXDCQCN()
	bad.RPGMinDecFac = 101
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "rpg_min_dec_fac") {
		t.Errorf("rpg_min_dec_fac 101: %v", err)
	}
}

func TestMarkProbability(t *testing.T) {
	const kmin, kmax = 400_000, 1_600_000
	for _, tc := range []struct {
		q    int64
		want float64
	}{
		{0, 0}, {kmin, 0}, {kmin + 1, 0.2 / 1_200_000}, {1_000_000, 0.1}, {kmax, 0.2}, {kmax + 1, 1}, {10 * kmax, 1},
	} {
		if got := markProbability(tc.q, kmin, kmax, 0.2); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("markProbability(%d) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

// TestMarkingFraction draws marks at fixed queue depths the way the switch
// does and checks the fraction against the curve within 4 binomial
// standard errors.
func TestMarkingFraction(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	const n = 200_000
	for _, q := range []int64{500_000, 1_000_000, 1_500_000} {
		p := markProbability(q, 400_000, 1_600_000, 0.2)
		marked := 0
		for i := 0; i < n; i++ {
			if rng.Float64() < p {
				marked++
			}
		}
		frac := float64(marked) / n
		se := math.Sqrt(p * (1 - p) / n)
		if math.Abs(frac-p) > 4*se {
			t.Errorf("q=%d: marked fraction %.5f, want %.5f ± %.5f", q, frac, p, 4*se)
		}
	}
}

// targetMarkingAtFixedDepth holds a switch egress queue at a fixed
// depth and dequeues through the switch's own code path many times.
func targetMarkingAtFixedDepth(t *testing.T, page *targetPage) {
	const kmin, kmax = 100_000, 500_000
	for _, depthPkts := range []int{40, 60, 100} {
		cfg := Config{
			Topology:   star(2, 100),
			DefaultQoS: losslessQoS(false, true, kmin, kmax),
			Flows:      []Flow{{ID: "f", Src: "h1", Dst: "h0"}},
			DurationNs: 1000,
			Seed:       int64(depthPkts),
		}
		s, err := newSim(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := s.portIndex(PortRef{"sw", "Ethernet0"})
		in, _ := s.portIndex(PortRef{"sw", "Ethernet1"})
		op := &s.ports[out]
		for i := 0; i < depthPkts; i++ {
			k := s.alloc()
			s.pkts[k] = packet{next: -1, kind: pktData, wire: 4178, payload: 4096, prio: 3, inPort: in, dst: s.flows[0].dst}
			s.enqueue(op, 3, k)
		}
		depth := op.lane[3].q.bytes // the departing packet counts
		p := markProbability(depth, kmin, kmax, 0.2)
		const n = 50_000
		marked := 0
		for i := 0; i < n; i++ {
			op.busyUntil = 0
			s.switchSend(out)
			k := int32(-1)
			for s.q.len() > 0 {
				if e := s.q.pop(); e.kind == evArrive {
					k = e.b // the arrival event carries the packet
				}
			}
			if s.pkts[k].ce {
				marked++
			}
			s.pkts[k].ce = false
			s.enqueue(op, 3, k)
		}
		frac := float64(marked) / n
		se := math.Sqrt(p * (1 - p) / n)
		if math.Abs(frac-p) > 4*se+1e-9 {
			t.Errorf("depth %d B: marked %.5f, want %.5f ± %.5f", depth, frac, p, 4*se)
		}
		page.row(fmt.Sprintf("marking at a fixed queue of %d B (Kmin 100 KB, Kmax 500 KB, Pmax 0.2), %d packets", depth, n),
			fmt.Sprintf("Pmax(q−Kmin)/(Kmax−Kmin) = %.4f ± %.4f (4 binomial σ)", p, 4*se), fmt.Sprintf("%.4f", frac))
		if got := s.ports[out].c[3].marked; got != int64(marked) {
			t.Errorf("port counter = %d, want %d", got, marked)
		}
	}
}

// targetCNPRateLimit marks every packet (Kmin=0, Kmax=1) and checks the
// receiver sends at most one CNP per flow per 50 µs, and no fewer.
func targetCNPRateLimit(t *testing.T, page *targetPage) {
	const dur = 2_000_000
	// A high minimum rate keeps marked packets arriving every few µs
	// however often the sender is cut.
	params := PaperDCQCN(100)
	params.RPGMinRateMbps = 10_000
	gapNs := 4178 * 8 / (params.RPGMinRateMbps / 1000)
	cfg := Config{
		Topology:     star(3, 100),
		DefaultQoS:   map[int]PortQoS{3: {ECN: true, KminBytes: 0, KmaxBytes: 1, Pmax: 1}, 6: {Strict: true}},
		Flows:        []Flow{{ID: "a", Src: "h1", Dst: "h0"}, {ID: "b", Src: "h2", Dst: "h0"}},
		DurationNs:   dur,
		DCQCN:        params,
		DCQCNEnabled: true,
	}
	r := mustRun(t, cfg)
	for _, f := range r.Flows {
		// A CNP goes out for the first marked packet at least 50 µs after
		// the previous one, so between dur/(50µs+gap) and dur/50µs+1.
		maxCNP := int64(dur/50_000) + 1
		minCNP := int64(float64(dur)/(50_000+gapNs)) - 1
		if f.CNPs > maxCNP || f.CNPs < minCNP {
			t.Errorf("flow %s: %d CNPs in %d µs, want %d..%d (at most one per 50 µs)", f.ID, f.CNPs, dur/1000, minCNP, maxCNP)
		}
		if f.ID == "a" {
			page.row("CNPs under persistent marking (every packet marked), 2 ms, dcqcn: paper",
				fmt.Sprintf("at most one per flow per 50 µs: %d..%d per flow", minCNP, maxCNP), fmt.Sprintf("%d and %d", r.Flows[0].CNPs, r.Flows[1].CNPs))
		}
	}
	if r.Totals.ECNMarked < 100 {
		t.Errorf("marked = %d: marking should be persistent", r.Totals.ECNMarked)
	}
}

// TestSlowSenders runs rate-limited flows (the ConnectX preset with a
// 1 Mb/s minimum) for 10 ms: the event count must
// stay proportional to traffic, not to time (no busy timers), and flows
// must recover from the minimum rate once marking stops.
func TestSlowSenders(t *testing.T) {
	cfg := incastConfig(8, true, true, true, 10_000_000)
	cfg.DCQCN = ConnectXDCQCN()
	cfg.DefaultQoS = losslessQoS(true, true, 400_000, 1_600_000)
	r := mustRun(t, cfg)
	if r.Events > 2_000_000 {
		t.Errorf("%d events for 10 ms of at most 100G traffic", r.Events)
	}
	if r.Totals.GoodputGbps < 20 {
		t.Errorf("goodput %.2f Gb/s: flows never recovered from the minimum rate", r.Totals.GoodputGbps)
	}
}
