package results

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteNCCLTable prints t as nccl-tests prints its table (the columns and
// widths of nccl-tests 2.18 and later: src/util.cu's writeResultHeader and
// writeBenchmarkLine*), the in-place columns only when the rows have
// them, after a first line that says how the figures were obtained and
// the collective's algorithm, channels and ranks, and before the trailer
// lines the table has: the out of bounds count (measured), the average
// bus bandwidth and the bound the fabric puts on busbw (simulated).
func WriteNCCLTable(w io.Writer, t *NCCLTable) error {
	if t == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", NCCLTableTitle(t))
	inPlace := false
	for _, r := range t.Rows {
		inPlace = inPlace || r.InPlace != nil
	}
	// The column header, as nccl-tests prints it (the trailing "%*s" of
	// its -S timestamp column prints a space).
	b.WriteString("#\n")
	if inPlace {
		fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "", "", "", "")
		fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong")
		fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")
	} else {
		fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s           out-of-place          \n", "", "", "", "", "")
		fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s \n", "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong")
		fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "")
	}
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "%12d  %12d  %8s  %6s  %6d", r.SizeBytes, r.Count, t.DataType, t.RedOp, t.Root)
		writeNCCLResult(&b, r.OutOfPlace)
		if inPlace {
			if r.InPlace != nil {
				writeNCCLResult(&b, *r.InPlace)
			} else {
				fmt.Fprintf(&b, "  %7s  %6s  %6s  %6s", "-", "-", "-", "-")
			}
		}
		b.WriteString("\n")
	}
	if t.OutOfBounds != nil {
		fmt.Fprintf(&b, "# %-20s : %d %s\n", "Out of bounds values", *t.OutOfBounds, t.OutOfBoundsVerdict())
	}
	if t.AvgBusBWGBps != nil {
		fmt.Fprintf(&b, "# %-20s : %s \n", "Avg bus bandwidth", strconv.FormatFloat(*t.AvgBusBWGBps, 'g', 6, 64))
	}
	if t.BoundBusBWGBps != nil {
		fmt.Fprintf(&b, "# %-20s : %s GB/s (%s)\n", "Bus bandwidth bound", strconv.FormatFloat(*t.BoundBusBWGBps, 'f', 2, 64), NCCLBoundMeaning)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// NCCLBoundMeaning says what NCCLTable.BoundBusBWGBps is, wherever it is
// shown.
const NCCLBoundMeaning = "the busbw the fabric allows this collective and algorithm: channels x NIC rate, bounded by the scale-up domain and PCIe; large sizes approach it"

// writeNCCLResult prints one half of a row: "  %7s  %6s  %6s  %6g", or
// "    N/A" for a #wrong nothing counted (one column narrower, as
// nccl-tests prints it).
func writeNCCLResult(b *strings.Builder, r NCCLResult) {
	fmt.Fprintf(b, "  %7s  %6s  %6s", ncclFloat(r.TimeUs, 7), ncclFloat(r.AlgBWGBps, 6), ncclFloat(r.BusBWGBps, 6))
	if r.Wrong == nil {
		b.WriteString("    N/A")
		return
	}
	fmt.Fprintf(b, "  %6s", strconv.FormatFloat(float64(*r.Wrong), 'g', 6, 64))
}

// ncclFloat is nccl-tests' getFloatStr: two decimals, or fewer, or an
// exponent, whatever fits width.
func ncclFloat(v float64, width int) string {
	for _, prec := range []int{2, 1, 0} {
		if s := strconv.FormatFloat(v, 'f', prec, 64); len(s) <= width {
			return s
		}
	}
	prec := 0
	if width >= 7 {
		prec = 1
	}
	return strconv.FormatFloat(v, 'e', prec, 64)
}

// NCCLTableTitle says what a table is and how its figures were obtained:
// "all_reduce over 16 ranks, ring, 8 channels, rank order nccl: simulated
// packet by packet" or "alltoall over 16 ranks, point-to-point: measured
// (nccl-tests 2.18.3, alltoall_perf)".
func NCCLTableTitle(t *NCCLTable) string {
	parts := []string{fmt.Sprintf("%s over %d ranks", t.Collective, t.Ranks)}
	switch {
	case NCCLPointToPoint(t.Collective):
		// What runs whatever the table says: older records, and measured
		// runs with NCCL_ALGO set, name an algorithm p2p does not use.
		parts = append(parts, "point-to-point")
	case t.Algorithm != "":
		parts = append(parts, t.Algorithm)
	}
	if t.Channels > 0 {
		parts = append(parts, fmt.Sprintf("%d channels", t.Channels))
	}
	if t.RankOrder != "" {
		parts = append(parts, "rank order "+t.RankOrder)
	}
	return strings.Join(parts, ", ") + ": " + NCCLSourceText(t)
}

// NCCLSourceText says how a table's figures were obtained. A simulated
// table is always packet-level: the simulator runs a collective's
// transfers as QPs through the packet-level fabric.
func NCCLSourceText(t *NCCLTable) string {
	switch t.Source {
	case Measured:
		var from []string
		if n := t.NCCLTests; n != nil {
			if n.Version != "" {
				from = append(from, "nccl-tests "+n.Version)
			}
			if n.Program != "" {
				from = append(from, n.Program)
			}
			if n.NCCLVersion != "" {
				from = append(from, "NCCL "+n.NCCLVersion)
			}
		}
		if len(from) > 0 {
			return "measured (" + strings.Join(from, ", ") + ")"
		}
		return "measured (nccl-tests output)"
	case Simulated:
		return sourceWords[string(Simulated)]
	}
	return "source unknown"
}

// ncclSourceLabel is the short label of a table's source in charts and
// report badges.
func ncclSourceLabel(t *NCCLTable) string {
	if t.Source == Simulated {
		return "simulated"
	}
	if t.Source == "" {
		return "unknown"
	}
	return string(t.Source)
}

// fmtSize prints a message size as nccl-tests sweeps them: 8 B, 64 KiB,
// 1 GiB (exact powers of two whole, others to three digits).
func fmtSize(n int64) string {
	return fmtBytes(float64(n))
}
