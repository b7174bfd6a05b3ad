package nccltests

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/textparse/textparsetest"
)

func FuzzParse(f *testing.F) {
	for _, name := range textparsetest.Fixtures(f, filepath.Join("testdata", "*.txt")) {
		f.Add(textparsetest.Read(f, name), "")
	}
	f.Add("", "")
	f.Add("{", "")
	f.Add("#       size         count      type   redop    root     time   algbw   busbw #wrong\n           8             2     float     sum      -1    20.26    0.00    0.00      0\n# Out of bounds values : 0 OK\n", "all_reduce")
	f.Fuzz(func(t *testing.T, in, coll string) {
		tb, err := Parse(strings.NewReader(in), Options{Collective: coll})
		if err != nil {
			if _, bad := CollectiveName(coll); coll != "" && bad != nil {
				return // the option was refused, not the input
			}
			textparsetest.CheckError(t, in, err)
			return
		}
		if len(tb.Rows) == 0 || tb.Ranks < 1 || tb.Source != results.Measured || tb.OutOfBounds == nil {
			t.Fatalf("accepted a table without rows, ranks or trailer: %+v", tb)
		}
		f, ok := results.BusBWFactor(tb.Collective, tb.Ranks)
		if !ok {
			t.Fatalf("unknown collective %q accepted", tb.Collective)
		}
		for i, r := range tb.Rows {
			if i > 0 && r.SizeBytes == tb.Rows[i-1].SizeBytes {
				t.Fatalf("size %d twice", r.SizeBytes)
			}
			for _, x := range []float64{r.OutOfPlace.TimeUs, r.OutOfPlace.AlgBWGBps, r.OutOfPlace.BusBWGBps} {
				if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("figure %v accepted", x)
				}
			}
			// busbw/algbw is the collective's factor, within the
			// printed rounding the parser allows.
			if a := r.OutOfPlace.AlgBWGBps; math.Abs(r.OutOfPlace.BusBWGBps-a*f) > 0.5*math.Max(1, a) {
				t.Fatalf("busbw %v for algbw %v and factor %v accepted", r.OutOfPlace.BusBWGBps, a, f)
			}
		}
		textparsetest.RoundTrip(t, tb)
	})
}
