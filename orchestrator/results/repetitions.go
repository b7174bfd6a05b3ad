package results

import (
	"fmt"
	"slices"
)

// PointStats is one point of a run with repetitions, over its repetitions
// that completed: how many, and per summary figure its cells as reports
// show them (RepetitionColumns' order): the mean with the range
// ("177.0 (174.0-180.1)") for rates, fairness and latency, the mean
// alone for counts, "n/a" where the model does not compute the figure.
type PointStats struct {
	Name  string
	Runs  int
	Cells []string
}

// RepetitionColumns names the figures of PointStats.Cells, as the run's
// summary table names them.
var RepetitionColumns = []string{"Gb/s", "MIN FLOW", "JAIN", "DROPS", "PAUSES", "ECN MARKS", "P99 us"}

// repetitionFigures are RepetitionColumns' figures: the summary field,
// its format, whether its range is shown, and its value.
var repetitionFigures = []struct {
	field, format string
	spread        bool
	get           func(*Summary) float64
}{
	{"throughput_gbps_total", "%.1f", true, func(s *Summary) float64 { return s.ThroughputGbpsTotal }},
	{"throughput_gbps_min_flow", "%.1f", true, func(s *Summary) float64 { return s.ThroughputGbpsMinFlow }},
	{"jain_fairness", "%.3f", true, func(s *Summary) float64 { return s.JainFairness }},
	{"drops", "%.0f", false, func(s *Summary) float64 { return float64(s.Drops) }},
	{"pfc_pause_frames", "%.0f", false, func(s *Summary) float64 { return float64(s.PFCPauseFrames) }},
	{"ecn_marked", "%.0f", false, func(s *Summary) float64 { return float64(s.ECNMarked) }},
	{"latency_us_p99", "%.1f", true, func(s *Summary) float64 { return s.LatencyUsP99 }},
}

// RepetitionStats is each point's figures over its repetitions, in the
// order of the points' first repetitions; nil when no point ran more than
// once (a run with repetitions is for how far a figure moves from seed to
// seed, which the per-repetition rows leave to the reader).
func RepetitionStats(run *Run) []PointStats {
	var order []string
	points := map[string][]*Summary{}
	most := 0
	for i := range run.Variants {
		v := &run.Variants[i]
		if v.Error != "" {
			continue
		}
		if points[v.Name] == nil {
			order = append(order, v.Name)
		}
		points[v.Name] = append(points[v.Name], &v.Summary)
		most = max(most, len(points[v.Name]))
	}
	if most < 2 {
		return nil
	}
	out := make([]PointStats, 0, len(order))
	for _, name := range order {
		ss := points[name]
		ps := PointStats{Name: name, Runs: len(ss)}
		for _, f := range repetitionFigures {
			ps.Cells = append(ps.Cells, figureCell(ss, f.field, f.format, f.spread, f.get))
		}
		out = append(out, ps)
	}
	return out
}

// figureCell is one figure's cell over ss: "n/a" when a repetition's
// model does not compute it, the mean, and with spread its range where
// the least and most differ as printed.
func figureCell(ss []*Summary, field, format string, spread bool, get func(*Summary) float64) string {
	mean, lo, hi, ok := meanRange(ss, func(s *Summary) (float64, bool) {
		return get(s), !slices.Contains(s.NotComputed, field)
	})
	if !ok {
		return "n/a"
	}
	if !spread || fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
		return fmt.Sprintf(format, mean)
	}
	return fmt.Sprintf(format+" ("+format+"-"+format+")", mean, lo, hi)
}

// meanRange is the mean, least and most of value over xs (repetitions of
// a point), as regress pools them (poolValues) and reports show them
// (RepetitionStats); ok is false at the first x value has none for.
func meanRange[T any](xs []T, value func(T) (float64, bool)) (mean, lo, hi float64, ok bool) {
	var sum float64
	for i, x := range xs {
		v, has := value(x)
		if !has {
			return 0, 0, 0, false
		}
		sum += v
		if i == 0 || v < lo {
			lo = v
		}
		if i == 0 || v > hi {
			hi = v
		}
	}
	return sum / float64(len(xs)), lo, hi, len(xs) > 0
}
