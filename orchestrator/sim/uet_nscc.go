package sim

// NSCC, UET's sender-based congestion control, as uet-htsim implements it
// (uec.cpp: initNsccParams, updateCwndOnAck_NSCC, updateCwndOnNack_NSCC and
// the functions they call): a window per flow from the queueing delay its
// ACKs measure and the ECN marks they echo.

func (t *uetTx) updateBaseRTT(raw, maxBDP float64) {
	if raw > 0 && t.baseRTT > raw {
		t.baseRTT = raw
		t.bdp = raw * t.lineBps
		t.maxwnd = max(maxBDP*t.bdp, t.minCwnd)
	}
}

func (s *sim) updateDelay(t *uetTx, raw float64, updateAvg, skip bool) {
	if !updateAvg {
		return
	}
	u := s.u
	delay := raw - t.baseRTT
	switch {
	case !skip && delay > u.targetQ:
		t.avgDelay = u.delayAlpha*t.baseRTT*0.25 + (1-u.delayAlpha)*t.avgDelay
	case delay > 5*t.baseRTT:
		t.avgDelay = 0.0125*delay + (1-0.0125)*t.avgDelay
	default:
		t.avgDelay = u.delayAlpha*delay + (1-u.delayAlpha)*t.avgDelay
	}
}

func (s *sim) quickAdapt(t *uetTx, isLoss, skip bool, delay float64) bool {
	u := s.u
	done := false
	if t.bytesIgnored < t.bytesToIgnore && skip {
		done = true
	} else if s.now > t.qaEnd {
		if t.qaEnd != 0 && (t.triggerQA || isLoss || delay > u.qaThreshold) && t.achieved < t.maxwnd/float64(uint64(1)<<u.qaGate) {
			t.cwnd = max(t.achieved, t.minCwnd)
			t.bytesToIgnore = t.inFlight
			t.bytesIgnored = 0
			t.triggerQA = false
			done = true
		}
		t.achieved = 0
		t.qaEnd = s.now + int64(t.baseRTT+u.targetQ)
	}
	if done {
		t.incBytes = 0
		t.received = 0
	}
	return done
}

func (s *sim) nsccOnAck(t *uetTx, ecn bool, delay, newly float64) {
	u := s.u
	if s.quickAdapt(t, false, ecn, delay) {
		return
	}
	switch {
	case !ecn && delay >= u.targetQ:
		t.incBytes += u.fi * newly // fair increase
	case !ecn:
		// Proportional increase, or fast increase near an empty fabric.
		if delay < 1e6 {
			t.fiCount += newly
			if t.fiCount > t.cwnd || t.increase {
				t.cwnd += newly * u.fiScale
				t.increase = true
				break
			}
		} else {
			t.fiCount = 0
		}
		t.increase = false
		t.incBytes += u.alpha * newly * (u.targetQ - delay)
	case delay >= u.targetQ:
		// Multiplicative decrease, at most once per base RTT.
		t.increase = false
		t.fiCount = 0
		if avg := t.avgDelay; avg > u.targetQ && float64(s.now-t.lastDec) > t.baseRTT {
			t.cwnd *= max(1-u.gamma*(avg-u.targetQ)/avg, 0.5)
			t.cwnd = max(t.cwnd, t.minCwnd)
			t.lastDec = s.now
		}
	}
	t.bound()
	if t.received > u.adjustBytes || float64(s.now-t.lastAdjust) > u.adjustPeriod {
		// fulfill_adjustment
		t.cwnd += t.incBytes / t.cwnd
		if float64(s.now-t.lastAdjust) >= u.adjustPeriod {
			t.cwnd += u.eta
			t.lastAdjust = s.now
		}
		t.incBytes = 0
		t.received = 0
	}
	t.bound()
}

func (s *sim) nsccOnNack(t *uetTx, size float64, cut bool) {
	t.bytesIgnored += size
	s.updateDelay(t, t.baseRTT+s.u.netRTT, true, true)
	t.triggerQA = true
	if !s.quickAdapt(t, true, true, 0) && cut {
		t.cwnd -= size
		t.bound()
	}
}

func (t *uetTx) bound() { t.cwnd = min(max(t.cwnd, t.minCwnd), t.maxwnd) }
