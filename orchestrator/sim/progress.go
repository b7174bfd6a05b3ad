package sim

import "math"

// Progress is how far a run got, for a progress display (Config.Progress).
type Progress struct {
	// NowNs is the simulated time reached, Events the events processed.
	NowNs  int64
	Events uint64
	// Done is the fraction of the run done, 0..1 (workMeter.done says
	// how it is estimated).
	Done float64
}

// workMeter keeps the running totals behind Progress.Done. A run ends at
// the duration or once its work is done, whichever comes first, and a run
// of sized work (a ring AllReduce, an nccl-tests sweep, sized flows) often
// finishes long before its duration: the ring of a 1024-GPU AllReduce is
// done at 4 ms of 50. So the work left, not the simulated time left, says
// how long a run still takes. The work is payload bytes: what every sized
// flow, ring, all-to-all, ping-pong and program stream must deliver
// (scale-up streams included), against what they delivered so far.
type workMeter struct {
	// delivered counts payload bytes delivered in order at receivers
	// (sim.deliver) and over scale-up domains (sim.gpuArrive): the one
	// count the engine's hot path keeps for it.
	delivered int64
	// total is what the sized work must deliver in all; unbounded that
	// some flow runs to the end, so the run lasts its whole duration.
	// Known once counted.
	total     int64
	unbounded bool
	counted   bool
}

// progress reports the run's state to Config.Progress. It is O(1) but for
// the first call, which counts the work (the flows are set up by then and
// their sizes never change).
func (s *sim) progress() Progress {
	if !s.work.counted {
		s.work.count(s)
	}
	return Progress{NowNs: s.now / 1000, Events: s.eventCount(), Done: s.work.done(s.now, s.end)}
}

// count sums what the run's sized work must deliver.
func (w *workMeter) count(s *sim) {
	w.counted = true
	for i := range s.flows {
		f := &s.flows[i]
		if f.total == math.MaxInt64 {
			w.unbounded = true
			continue
		}
		// Rings, programs and ping-pongs set Flow.Bytes to what their
		// QP carries, as a sized flow's: the bytes deliver counts.
		w.total += f.f.Bytes
	}
	for i := range s.streams {
		if st := &s.streams[i]; st.flow < 0 {
			w.total += st.total
		}
	}
}

// done is the fraction of the run done at simulated time now (ps) of a
// run that ends at end (ps): the simulated time's share of the duration
// when a flow runs to the end (or there is no sized work), and otherwise
// the larger of that and the delivered share of the work, since the run
// ends at whichever of the two comes first. A QP that fails leaves its
// bytes undelivered, so a run with failed flows ends below 1.
func (w *workMeter) done(now, end int64) float64 {
	t := 1.0
	if end > 0 {
		t = min(1, float64(now)/float64(end))
	}
	if w.unbounded || w.total <= 0 {
		return t
	}
	return max(t, min(1, float64(w.delivered)/float64(w.total)))
}
