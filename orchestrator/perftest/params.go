package perftest

import (
	"fmt"
	"math"
	"slices"
)

// perftest's defaults and ranges (perftest_parameters.h, the same in 4.5
// and in 24.x and later), which labctl's scenarios and the simulator's
// perftest-like traffic take from here.
const (
	// DefaultSizeBW and DefaultSizeLat are -s of the bandwidth and the
	// latency tests (DEF_SIZE_BW, DEF_SIZE_LAT).
	DefaultSizeBW  = 65536
	DefaultSizeLat = 2
	// DefaultTxDepthBW is --tx-depth of the bandwidth tests (DEF_TX_BW): a
	// QP keeps at most that many messages posted and not completed. The
	// latency tests keep one (DEF_TX_LAT): a ping-pong waits for each.
	DefaultTxDepthBW  = 128
	DefaultTxDepthLat = 1
	// MinTxDepth and MaxTxDepth bound --tx-depth (MIN_TX, MAX_TX).
	MinTxDepth = 1
	MaxTxDepth = 15000
	// DefaultIterations is -n (DEF_ITERS); MinIterations and MaxIterations
	// bound it (MIN_ITER, and MAX_ITER of perftest 4.5, Debian 12's: later
	// releases allow 2^32).
	DefaultIterations = 1000
	MinIterations     = 5
	MaxIterations     = 100_000_000
	// DefaultCQMod is the CQ moderation (-Q) perftest starts from
	// (DEF_CQ_MOD), CQModSizeLimit the message size above which it turns
	// moderation off (MSG_SIZE_CQ_MOD_LIMIT).
	DefaultCQMod   = 100
	CQModSizeLimit = 8192
)

// CQModeration is how many messages of a bandwidth test share one
// signalled completion when -Q is not given, as perftest's
// force_dependecies sets it for an RC test in duration mode: 100, off (1)
// for messages above 8 KiB, and never more than the tx depth. The sender
// learns of completions that many at a time, so its window of txDepth
// messages reopens in batches of that many.
func CQModeration(size, txDepth int) int {
	m := DefaultCQMod
	if size > CQModSizeLimit {
		m = 1
	}
	return max(1, min(m, txDepth))
}

// LatencyOfPosts computes what ib_write_lat prints for one run from the
// times one side posted its messages (posted[i], in units of unitsPerUs
// per microsecond, in order; -n is len(posted)), as perftest's
// print_report_lat does: the gaps between consecutive posts are round
// trips (a side posts its next write once the other side's write has
// arrived and its own has completed); they are sorted, the two largest
// dropped (LAT_MEASURE_TAIL), and every figure is half a round trip
// (RDMA write's rtt_factor 2). t_typical is the median, t_max the first
// dropped gap, the percentiles the gaps at ceil(n x 0.99) and
// ceil(n x 0.999) of the n kept. t_stdev is perftest's too: it squares
// the differences from the mean truncated to whole microseconds (its
// temp_var is an int), so variation under a microsecond reads 0. Figures
// are rounded to 0.01 µs as perftest prints them.
func LatencyOfPosts(size int64, posted []int64, unitsPerUs float64) (*LatRow, error) {
	iters := len(posted)
	if iters < MinIterations {
		return nil, fmt.Errorf("ib_write_lat needs at least %d iterations to report, got %d", MinIterations, iters)
	}
	if unitsPerUs <= 0 {
		return nil, fmt.Errorf("time unit %v per µs: must be positive", unitsPerUs)
	}
	delta := make([]int64, iters-1)
	for i := range delta {
		delta[i] = posted[i+1] - posted[i]
		if delta[i] < 0 {
			return nil, fmt.Errorf("post %d at %d precedes post %d at %d: the times must be in order", i+1, posted[i+1], i, posted[i])
		}
	}
	slices.Sort(delta)
	const tail = 2
	n := len(delta) - tail
	q := unitsPerUs * 2
	us := func(x int64) float64 { return float64(x) / q }
	var median int64
	if (n-1)%2 != 0 {
		median = (delta[n/2] + delta[n/2-1]) / 2
	} else {
		median = delta[n/2]
	}
	sum := 0.0
	for _, d := range delta[:n] {
		sum += us(d)
	}
	avg := sum / float64(n)
	sq := 0.0
	for _, d := range delta[:n] {
		diff := math.Trunc(avg - us(d))
		sq += diff * diff
	}
	r2 := func(x float64) *float64 { v := math.Round(x*100) / 100; return &v }
	row := &LatRow{
		Bytes: size, Iterations: int64(iters),
		MinUs: r2(us(delta[0])), MaxUs: r2(us(delta[n])), TypicalUs: r2(us(median)),
		AvgUs: *r2(avg), StdevUs: r2(math.Sqrt(sq / float64(n))),
		P99Us: r2(us(delta[int(math.Ceil(float64(n)*0.99))])), P999Us: r2(us(delta[int(math.Ceil(float64(n)*0.999))])),
	}
	return row, nil
}
