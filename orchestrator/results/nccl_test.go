package results

import (
	"bytes"
	"strings"
	"testing"
)

func f64(v float64) *float64 { return &v }

// simulatedNCCL is a hand-made simulated all_reduce table: out-of-place
// results only, a bound, no #wrong (a simulation moves no data).
func simulatedNCCL() *NCCLTable {
	t := &NCCLTable{Collective: CollAllReduce, Algorithm: "ring", Ranks: 16, Channels: 2, RankOrder: "nccl",
		DataType: "float", RedOp: "sum", Root: -1, BoundBusBWGBps: f64(45), Source: Simulated}
	for i, r := range []struct {
		size       int64
		time, busw float64
	}{{8, 21.5, 0}, {1 << 20, 70.25, 27.95}, {1 << 30, 44739.2, 45}, {16 << 30, 715827.9, 45}} {
		alg := float64(r.size) / r.time / 1e3
		t.Rows = append(t.Rows, NCCLRow{SizeBytes: r.size, Count: r.size / 4,
			OutOfPlace:  NCCLResult{TimeUs: r.time, AlgBWGBps: alg, BusBWGBps: alg * 2 * 15 / 16},
			FabricBytes: i64(r.size * 2 * int64(i+1))})
	}
	avg := 0.0
	for _, r := range t.Rows {
		avg += r.OutOfPlace.BusBWGBps / float64(len(t.Rows))
	}
	t.AvgBusBWGBps = &avg
	return t
}

func TestWriteNCCLTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteNCCLTable(&b, simulatedNCCL()); err != nil {
		t.Fatal(err)
	}
	golden(t, "nccl_table_simulated.golden.txt", b.Bytes())
	out := b.String()
	for _, want := range []string{
		"# all_reduce over 16 ranks, ring, 2 channels, rank order nccl: simulated packet by packet\n",
		"# Bus bandwidth bound  : 45.00 GB/s",
		// 16 GiB over 715827.9 us: the time does not fit %7.2f, so one
		// decimal, as nccl-tests prints it.
		" 17179869184    4294967296     float     sum      -1   715828   24.00   45.00    N/A\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "in-place") || strings.Contains(out, "Out of bounds") {
		t.Errorf("a simulated table printed in-place columns or an out of bounds count:\n%s", out)
	}
}

func TestNCCLFloat(t *testing.T) {
	for _, c := range []struct {
		v     float64
		width int
		want  string
	}{
		{135.8, 7, "135.80"}, {10642.5, 7, "10642.5"}, {100641, 7, "100641"}, {12345678, 7, "1.2e+07"},
		{0.004, 6, "0.00"}, {338.82, 6, "338.82"}, {1234.5, 6, "1234.5"}, {1234567, 6, "1e+06"},
	} {
		if got := ncclFloat(c.v, c.width); got != c.want {
			t.Errorf("ncclFloat(%v, %d) = %q, want %q", c.v, c.width, got, c.want)
		}
	}
}
