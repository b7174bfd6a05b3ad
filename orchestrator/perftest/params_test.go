package perftest

import (
	"testing"
)

func TestCQModeration(t *testing.T) {
	for _, tc := range []struct{ size, depth, want int }{
		{65536, 128, 1},  // above 8 KiB perftest signals every message
		{8193, 128, 1},   // the limit is exclusive
		{8192, 128, 100}, // DEF_CQ_MOD
		{2, 128, 100},
		{4096, 16, 16}, // never more than the tx depth
		{4096, 1, 1},
	} {
		if got := CQModeration(tc.size, tc.depth); got != tc.want {
			t.Errorf("CQModeration(%d, %d) = %d, want %d", tc.size, tc.depth, got, tc.want)
		}
	}
}

// TestLatencyOfPosts checks print_report_lat's arithmetic by hand: posts
// whose gaps (round trips) are 10, 12, 11, 30, 10, 14 and 40 µs sort to
// 10 10 11 12 14 | 30 40; the two largest are dropped, so n = 5 and every
// figure is half a gap: t_min 5, t_max the first dropped one, 15;
// t_typical delta[n/2] = 11 -> 5.5 (n-1 even); t_avg 28.5/5 = 5.7;
// t_stdev from the differences truncated to whole µs (0 0 0 0 -1):
// sqrt(1/5) = 0.45; 99% and 99.9% delta[ceil(4.95)] = delta[ceil(4.995)]
// = delta[5] = 30 -> 15.
func TestLatencyOfPosts(t *testing.T) {
	gaps := []int64{10, 12, 11, 30, 10, 14, 40}
	posted := []int64{100}
	for _, g := range gaps {
		posted = append(posted, posted[len(posted)-1]+g)
	}
	row, err := LatencyOfPosts(2, posted, 1)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || *got != want {
			t.Errorf("%s = %v, want %v", name, fmtVal(got), want)
		}
	}
	if row.Bytes != 2 || row.Iterations != 8 {
		t.Errorf("bytes %d iterations %d, want 2 and 8", row.Bytes, row.Iterations)
	}
	check("t_min", row.MinUs, 5)
	check("t_max", row.MaxUs, 15)
	check("t_typical", row.TypicalUs, 5.5)
	check("t_avg", &row.AvgUs, 5.7)
	check("t_stdev", row.StdevUs, 0.45)
	check("99%", row.P99Us, 15)
	check("99.9%", row.P999Us, 15)
	if row.TPS != nil || row.CPUUtilPct != nil {
		t.Errorf("tps %v cpu %v: an iteration run reports neither", row.TPS, row.CPUUtilPct)
	}
	// An odd n takes the mean of the two middle gaps (integer units, as
	// perftest's cycles): gaps 10 11 12 13 | 20 20 -> n = 4, (11+12)/2 =
	// 11 (integer) -> 5.5.
	posted = []int64{0, 10, 21, 33, 46, 66, 86}
	if row, err = LatencyOfPosts(2, posted, 1); err != nil {
		t.Fatal(err)
	}
	check("t_typical (even n)", row.TypicalUs, 5.5)
	// In picoseconds, as the simulator counts.
	if row, err = LatencyOfPosts(2, []int64{0, 4e6, 8e6, 12e6, 16e6}, 1e6); err != nil {
		t.Fatal(err)
	}
	check("t_avg in ps", &row.AvgUs, 2)
	for name, p := range map[string][]int64{"too few": {0, 1, 2, 3}, "out of order": {0, 5, 3, 9, 12}} {
		if _, err := LatencyOfPosts(2, p, 1); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func fmtVal(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
