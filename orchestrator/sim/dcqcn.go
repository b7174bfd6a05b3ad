package sim

import (
	"math"

	"github.com/labctl/labctl/orchestrator/nic"
)

// DCQCNParams are the NICs' DCQCN parameters, named as ConnectX NICs
// expose them (package nic).
type DCQCNParams = nic.DCQCN

// ConnectXDCQCN returns the ConnectX NICs' defaults (nic.ConnectX).
func ConnectXDCQCN() DCQCNParams { return nic.ConnectX() }

// PaperDCQCN returns the DCQCN paper's parameters scaled to lineRateGbps
// (nic.Paper).
func PaperDCQCN(lineRateGbps float64) DCQCNParams { return nic.Paper(lineRateGbps) }

// dcqcnPs holds DCQCNParams converted to Mb/s and picoseconds.
type dcqcnPs struct {
	clamp, clampAfterTime bool
	timer                 int64 // rate-increase timer
	byteCounter           int64
	f                     int
	maxRate               float64 // 0: line
	ai, hai, min          float64
	cutScale              float64 // α/2^(gd-10) is the cut
	minKeep               float64 // a cut keeps at least this share
	firstRate             float64 // 0: line
	g                     float64
	alphaPeriod           int64
	monitor               int64 // 0: cut on every CNP
	alpha0                float64
	cnpInterval           int64
}

func dcqcnToPs(d DCQCNParams) dcqcnPs {
	return dcqcnPs{
		clamp:          d.ClampTgtRate,
		clampAfterTime: d.ClampTgtRateAfterTimeInc,
		timer:          d.RPGTimeResetUs * 1_000_000,
		byteCounter:    d.RPGByteReset,
		f:              d.RPGThreshold,
		maxRate:        d.RPGMaxRateMbps,
		ai:             d.RPGAIRateMbps,
		hai:            d.RPGHAIRateMbps,
		min:            d.RPGMinRateMbps,
		cutScale:       math.Ldexp(1, 10-d.RPGGd),
		minKeep:        float64(d.RPGMinDecFac) / 100,
		firstRate:      d.RateToSetOnFirstCNPMbps,
		g:              float64(1024-d.DCETCPG) / 1024,
		alphaPeriod:    d.DCETCPRTTUs * 1_000_000,
		monitor:        d.RateReduceMonitorPeriodUs * 1_000_000,
		alpha0:         float64(d.InitialAlphaValue) / 1024,
		cnpInterval:    d.MinTimeBetweenCNPsUs * 1_000_000,
	}
}

// reactionPoint is DCQCN's sender-side rate limiter of one flow, in Mb/s
// and picoseconds. A flow runs unlimited at line rate until its first CNP
// allocates the limiter; it is released once the rate is back at the
// maximum.
//
// α is updated on its own grid of DCETCPRTT periods, anchored where the
// limiter was allocated: (1−g)·α + g for a period in which a CNP arrived,
// (1−g)·α for one without. It is computed lazily, period by period only
// while CNPs arrive and in closed form over quiet stretches, so a
// limited flow costs no event per period.
type reactionPoint struct {
	p          *dcqcnPs
	line       float64 // Mb/s
	rc, rt     float64 // current and target rate, Mb/s
	alpha      float64 // at the start of the open α period
	alphaAt    int64   // start of the open α period (ps)
	cnpInAlpha bool    // a CNP arrived in the open α period
	cnpSince   bool    // a CNP arrived since the last cut
	monitorAt  int64   // start of the rate-reduce monitor grid (ps)
	t, bc      int     // increase events since the last cut: timer, byte counter
	bytes      int64   // bytes sent since the last byte-counter event
	limited    bool
	gen        uint32 // rate timer generation; a cut restarts the timer
	cuts       int64
}

func newReactionPoint(p *dcqcnPs, lineMbps float64) reactionPoint {
	return reactionPoint{p: p, line: lineMbps, rc: lineMbps, rt: lineMbps}
}

// maxRate is the rate at which the limiter is released.
func (r *reactionPoint) maxRate() float64 {
	if r.p.maxRate > 0 {
		return min(r.p.maxRate, r.line)
	}
	return r.line
}

// advanceAlpha closes every whole α period up to now.
func (r *reactionPoint) advanceAlpha(now int64) {
	per := r.p.alphaPeriod
	if now < r.alphaAt+per {
		return
	}
	k := (now - r.alphaAt) / per
	d := 1 - r.p.g
	a := float64(d * r.alpha) // float64(): no fused multiply-add
	if r.cnpInAlpha {
		a += r.p.g
	}
	// The k-1 periods after the first had no CNP: square-and-multiply,
	// k can be large after a quiet spell.
	for n, pow := k-1, d; n > 0; n >>= 1 {
		if n&1 == 1 {
			a *= pow
		}
		pow *= pow
	}
	r.alpha = a
	r.alphaAt += k * per
	r.cnpInAlpha = false
}

// alphaNow is α as the NIC holds it at time now.
func (r *reactionPoint) alphaNow(now int64) float64 {
	r.advanceAlpha(now)
	return r.alpha
}

// onCNP records a CNP at time now. It reports whether the rate should be
// cut now (cutNow: no monitor period) and, when a cut is due at the end
// of the current monitor period, when (cutAt > 0).
func (r *reactionPoint) onCNP(now int64) (cutNow bool, cutAt int64) {
	if !r.limited {
		// The first CNP allocates the rate limiter.
		r.limited = true
		r.rc, r.rt = r.maxRate(), r.maxRate()
		if r.p.firstRate > 0 {
			r.rc = min(r.p.firstRate, r.rc)
			r.rt = r.rc
		}
		r.alpha, r.alphaAt, r.cnpInAlpha = r.p.alpha0, now, false
		r.monitorAt = now
		r.t, r.bc, r.bytes = 0, 0, 0
		r.gen++
	}
	r.advanceAlpha(now)
	r.cnpInAlpha = true
	if r.p.monitor == 0 {
		r.cut(now)
		return true, 0
	}
	if r.cnpSince {
		return false, 0 // a cut is already due at the end of this period
	}
	r.cnpSince = true
	k := (now-r.monitorAt)/r.p.monitor + 1
	return false, r.monitorAt + k*r.p.monitor
}

// onMonitor is the end of a rate-reduce monitor period in which a CNP
// arrived: the cut.
func (r *reactionPoint) onMonitor(now int64) {
	if r.cnpSince && r.limited {
		r.cut(now)
	}
}

// cut reduces the rate: RT = RC unless the target is kept (see
// ClampTgtRate), RC = RC·(1 − α·scale) bounded below by the minimum
// decrease factor and the minimum rate; the increase stages restart and
// so does the rate timer (gen).
func (r *reactionPoint) cut(now int64) {
	if r.p.monitor == 0 {
		// The paper's α update: at the CNP itself, after the cut.
		r.cutPaper(now)
		return
	}
	a := r.alphaNow(now)
	r.applyCut(a)
}

// cutPaper is the paper's order: RT=RC, RC=RC(1−α/2), then α=(1−g)α+g,
// with α decaying once per quiet period since the last CNP.
func (r *reactionPoint) cutPaper(now int64) {
	// advanceAlpha already closed the earlier periods with the CNP flag
	// of each; the open one is this CNP's. The paper cuts with α as it
	// stands and then raises it: fold the flag in at once and restart the
	// period, so quiet periods count from this CNP.
	r.cnpInAlpha = false
	r.applyCut(r.alpha)
	r.alpha = float64((1-r.p.g)*r.alpha) + r.p.g
	r.alphaAt = now
}

func (r *reactionPoint) applyCut(a float64) {
	if r.p.clamp || r.bc > 0 || (r.p.clampAfterTime && r.t > 0) {
		r.rt = r.rc
	}
	rc := r.rc * float64(1-float64(a*r.p.cutScale))
	if r.p.minKeep > 0 {
		rc = max(rc, r.rc*r.p.minKeep)
	}
	r.rc = max(rc, r.p.min)
	r.t, r.bc, r.bytes = 0, 0, 0
	r.cnpSince = false
	r.gen++
	r.cuts++
}

// onTimer is the rate-increase timer firing.
func (r *reactionPoint) onTimer() {
	r.t++
	r.increase()
}

// onBytes counts bytes sent and runs a byte-counter increase event per
// RPGByteReset bytes.
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
// moves halfway to RT. Back at the maximum rate the limiter is released,
// unless a CNP's cut is still due at the end of its monitor period: a flow
// at line rate sends rpg_byte_reset bytes (32 KiB: 2.6 µs at 100G) well
// within the 4 µs period after its first CNP, and releasing the limiter
// then would drop the cut the CNP asked for, so a flow at line rate would
// never be cut at all.
func (r *reactionPoint) increase() {
	f := r.p.f
	top := r.maxRate()
	switch {
	case max(r.t, r.bc) <= f:
	case min(r.t, r.bc) > f:
		r.rt += float64(float64(min(r.t, r.bc)-f) * r.p.hai)
	default:
		r.rt += r.p.ai
	}
	r.rt = min(r.rt, top)
	r.rc = min((r.rt+r.rc)/2, top)
	if r.rc >= top*(1-1e-9) {
		r.rc, r.rt = top, top
		if !r.cnpSince {
			r.limited = false
			r.gen++ // stops the timer
		}
	}
}
