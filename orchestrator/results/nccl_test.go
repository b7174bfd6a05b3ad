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

// A point-to-point collective's title says so and names no algorithm,
// not the ring that records of labctl before 2026-12-07 carry for a
// simulated alltoall (nor one a measured run's NCCL_ALGO named); the
// collectives NCCL runs on an algorithm name it.
func TestNCCLTableTitleAlgorithm(t *testing.T) {
	for _, c := range []struct {
		coll, algo string
		src        Source
		want       string
	}{
		{CollAllToAll, "ring", Simulated, "alltoall over 16 ranks, point-to-point, 1 channels: simulated packet by packet"},
		{CollAllToAll, "", Simulated, "alltoall over 16 ranks, point-to-point, 1 channels: simulated packet by packet"},
		{CollSendRecv, "ring", Measured, "sendrecv over 16 ranks, point-to-point, 1 channels: measured (nccl-tests output)"},
		{CollAllReduce, "tree", Simulated, "all_reduce over 16 ranks, tree, 1 channels: simulated packet by packet"},
		{CollAllReduce, "", Measured, "all_reduce over 16 ranks, 1 channels: measured (nccl-tests output)"},
	} {
		tb := &NCCLTable{Collective: c.coll, Algorithm: c.algo, Ranks: 16, Channels: 1, Source: c.src}
		if got := NCCLTableTitle(tb); got != c.want {
			t.Errorf("%s, algorithm %q: title %q, want %q", c.coll, c.algo, got, c.want)
		}
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

// measuredNCCL is simulatedNCCL as a cluster would measure it: in-place
// results, #wrong, the trailer, no bound, and a 10% lower busbw at 1 MiB.
func measuredNCCL() *NCCLTable {
	t := simulatedNCCL()
	t.Source, t.BoundBusBWGBps, t.Algorithm, t.RankOrder, t.Channels = Measured, nil, "", "", 0
	t.OutOfBounds = i64(0)
	t.NCCLTests = &NCCLTestsRun{Program: "all_reduce_perf", Version: "2.18.3", CollectiveFrom: "program name", TimeColumn: "time"}
	for i := range t.Rows {
		r := &t.Rows[i]
		r.FabricBytes = nil
		if r.SizeBytes == 1<<20 {
			r.OutOfPlace.BusBWGBps *= 0.9
			r.OutOfPlace.AlgBWGBps *= 0.9
		}
		ip := r.OutOfPlace
		r.OutOfPlace.Wrong, ip.Wrong = i64(0), i64(0)
		r.InPlace = &ip
	}
	return t
}

// ncclRun is a run of two variants with nccl-tests tables, one simulated
// and one measured, and a third without.
func ncclRun() *Run {
	run := syntheticRun("20261129T120000Z-nccl-allreduce-64gpu", t0)
	run.Scenario = "nccl-allreduce"
	run.Variants = run.Variants[:3]
	run.Variants[0].NCCL = simulatedNCCL()
	run.Variants[1].NCCL = measuredNCCL()
	return run
}

func TestNCCLMarkdownSection(t *testing.T) {
	var b bytes.Buffer
	if err := RenderMarkdown(ncclRun(), &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## NCCL\n",
		"| Size | ecn=on,pfc=on busbw (GB/s, simulated) | ecn=on,pfc=off busbw (GB/s, measured) |",
		"| 1 MiB | 27.99 | 25.19 |",
		"### ecn=on,pfc=on\n\nall_reduce over 16 ranks, ring, 2 channels, rank order nccl: simulated packet by packet. Bus bandwidth bound: 45 GB/s",
		"### ecn=on,pfc=off\n\nall_reduce over 16 ranks: measured (nccl-tests 2.18.3, all_reduce_perf).",
		"Out of bounds values: 0 OK.",
		"| 1 GiB | 1073741824 | 268435456 | float | sum | -1 | 44739.2 | 24.00 | 45.00 | N/A | 6442450944 |",
		"| out-of-place time (µs) | out-of-place algbw (GB/s) | out-of-place busbw (GB/s) | out-of-place #wrong | in-place time (µs) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(out, "### ecn=off,pfc=on\n\nall_reduce") {
		t.Error("a variant without a table got one")
	}
	// No table, no section.
	b.Reset()
	if err := RenderMarkdown(syntheticRun("20261129T120000Z-ecn-pfc-64gpu", t0), &b); err != nil || strings.Contains(b.String(), "## NCCL") {
		t.Errorf("a run without nccl-tests tables has an NCCL section (%v)", err)
	}
}

func TestNCCLHTMLSection(t *testing.T) {
	var b bytes.Buffer
	if err := RenderHTML(ncclRun(), &b, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i := strings.Index(out, `data-chart="nccl-busbw"`)
	if i < 0 || !strings.Contains(out, `<h2 id="nccl">NCCL</h2>`) {
		t.Fatalf("no NCCL section or chart")
	}
	chart := out[i : i+strings.Index(out[i:], "</svg>")]
	for _, want := range []string{`data-source="measured + simulated"`, "ecn=on,pfc=on (simulated)", "ecn=on,pfc=off (measured)", "message size (log2 scale)", ">1 KiB<", ">1 MiB<", ">1 GiB<"} {
		if !strings.Contains(chart, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	// One curve per variant with a table, one dashed bound (the
	// simulated table's), a point per size above 0 bytes.
	if n := strings.Count(chart, "<polyline"); n != 2 {
		t.Errorf("%d curves, want 2", n)
	}
	if n := strings.Count(chart, `class="bound"`); n != 1 {
		t.Errorf("%d bound lines, want 1", n)
	}
	if n := strings.Count(chart, `class="point"`); n != 8 {
		t.Errorf("%d points, want 8 (4 sizes above 0 B x 2 variants)", n)
	}
	if n := strings.Count(out, `<table class="nccl">`); n != 2 {
		t.Errorf("%d NCCL tables, want 2", n)
	}
	// The summary charts stay: these variants have flows.
	if !strings.Contains(out, `data-chart="throughput"`) {
		t.Error("summary charts lost")
	}
}

// TestNCCLOnlyRun is a record made from nccl-tests output alone: no
// summary charts of figures it does not have, the NCCL section there.
func TestNCCLOnlyRun(t *testing.T) {
	run := ncclRun()
	v := Variant{Name: "ecn=on,pfc=on", ECN: true, PFC: true, NCCL: measuredNCCL(), Summary: Summary{Source: Measured}}
	for _, m := range Metrics {
		v.Summary.NotComputed = append(v.Summary.NotComputed, m.Name)
	}
	run.Variants = []Variant{v}
	if !NCCLOnly(&run.Variants[0]) {
		t.Fatal("not NCCL-only")
	}
	var b bytes.Buffer
	if err := RenderHTML(run, &b, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, `data-chart="throughput"`) || strings.Contains(out, `id="charts"`) || !strings.Contains(out, `data-chart="nccl-busbw"`) {
		t.Error("an nccl-tests-only record charts summary figures it has not, or lacks its NCCL chart")
	}
	// A variant with flows beside its table is not NCCL-only.
	run.Variants[0].Flows = []Flow{{ID: "a"}}
	if NCCLOnly(&run.Variants[0]) {
		t.Error("a variant with flows counted as NCCL-only")
	}
	// A record made before a metric was added lists one metric fewer as
	// not computed, and is still NCCL-only; a simulated table is not.
	run.Variants[0].Flows = nil
	run.Variants[0].Summary.NotComputed = run.Variants[0].Summary.NotComputed[1:]
	if !NCCLOnly(&run.Variants[0]) {
		t.Error("an nccl-tests record missing one newer metric from its not-computed list is not NCCL-only")
	}
	sim := *run.Variants[0].NCCL
	sim.Source = Simulated
	run.Variants[0].NCCL = &sim
	if NCCLOnly(&run.Variants[0]) {
		t.Error("a simulated table counted as NCCL-only")
	}
}
