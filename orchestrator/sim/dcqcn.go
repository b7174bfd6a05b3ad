package sim

// reactionPoint is DCQCN's sender-side rate controller for one flow, in
// Mb/s and picoseconds. Alpha decay is computed lazily: alpha decays by
// (1-g) at every whole AlphaPeriod since the last CNP, which is what a
// timer restarted on each CNP does, without an event per period.
type reactionPoint struct {
	p       *dcqcnPs
	line    float64 // Mb/s
	rc, rt  float64 // current and target rate, Mb/s
	alpha   float64 // value at alphaAt
	alphaAt int64   // time of the last CNP (ps)
	t, bc   int     // rate-increase events since the last CNP: timer and byte counter
	bytes   int64   // bytes sent since the last byte-counter event
	limited bool    // below line rate: the increase machinery runs
	gen     uint32  // rate timer generation; a CNP restarts the timer
}

// dcqcnPs holds DCQCNParams converted to Mb/s and picoseconds.
type dcqcnPs struct {
	g            float64
	alphaPeriod  int64
	rateTimer    int64
	byteCounter  int64
	f            int
	ai, hai, min float64
	cnpInterval  int64
}

func (d DCQCNParams) ps() dcqcnPs {
	return dcqcnPs{
		g:           d.G,
		alphaPeriod: d.AlphaPeriodNs * 1000,
		rateTimer:   d.RateTimerNs * 1000,
		byteCounter: d.ByteCounterBytes,
		f:           d.F,
		ai:          d.RateAIGbps * 1000,
		hai:         d.RateHAIGbps * 1000,
		min:         d.MinRateGbps * 1000,
		cnpInterval: d.CNPIntervalNs * 1000,
	}
}

func newReactionPoint(p *dcqcnPs, lineMbps float64) reactionPoint {
	return reactionPoint{p: p, line: lineMbps, rc: lineMbps, rt: lineMbps, alpha: 1}
}

// alphaNow returns alpha at time now, applying one (1-g) decay per whole
// alpha period elapsed since the last CNP.
func (r *reactionPoint) alphaNow(now int64) float64 {
	if r.p.alphaPeriod <= 0 || now <= r.alphaAt {
		return r.alpha
	}
	k := (now - r.alphaAt) / r.p.alphaPeriod
	a := r.alpha
	d := 1 - r.p.g
	// Square-and-multiply: k can be large after a long quiet spell.
	for pow := d; k > 0; k >>= 1 {
		if k&1 == 1 {
			a *= pow
		}
		pow *= pow
	}
	return a
}

// onCNP applies a rate cut: RT=RC, RC=RC(1-α/2), α=(1-g)α+g, and restarts
// the timers and the byte counter. It returns the new rate timer generation.
func (r *reactionPoint) onCNP(now int64) uint32 {
	a := r.alphaNow(now)
	r.rt = r.rc
	r.rc = max(r.rc*(1-a/2), r.p.min)
	// float64() rounds the product: no fused multiply-add on any
	// architecture, so runs stay byte-identical across machines.
	r.alpha = float64((1-r.p.g)*a) + r.p.g
	r.alphaAt = now
	r.t, r.bc, r.bytes = 0, 0, 0
	r.limited = true
	r.gen++
	return r.gen
}

// onTimer is the rate-increase timer firing.
func (r *reactionPoint) onTimer() {
	r.t++
	r.increase()
}

// onBytes counts bytes sent and runs a byte-counter increase event per
// ByteCounterBytes.
func (r *reactionPoint) onBytes(n int64) {
	if !r.limited || r.p.byteCounter <= 0 {
		return
	}
	r.bytes += n
	for r.bytes >= r.p.byteCounter && r.limited {
		r.bytes -= r.p.byteCounter
		r.bc++
		r.increase()
	}
}

// increase is one rate-increase event: fast recovery while max(T,BC) <= F,
// hyper increase when min(T,BC) > F, additive increase otherwise; then RC
// moves halfway to RT.
func (r *reactionPoint) increase() {
	f := r.p.f
	switch {
	case max(r.t, r.bc) <= f:
	case min(r.t, r.bc) > f:
		r.rt += float64(float64(min(r.t, r.bc)-f) * r.p.hai)
	default:
		r.rt += r.p.ai
	}
	r.rt = min(r.rt, r.line)
	r.rc = min((r.rt+r.rc)/2, r.line)
	if r.rc >= r.line*(1-1e-9) {
		r.rc, r.rt = r.line, r.line
		r.limited = false
		r.gen++ // stops the timer
	}
}
