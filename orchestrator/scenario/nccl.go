package scenario

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/collective"
	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// PatternNCCL is the nccl-tests-like pattern: a collective over every GPU
// of the lab at a sweep of sizes, as all_reduce_perf -b 8 -e 256M -f 2
// runs it, one size after the other.
const PatternNCCL = "nccl"

// The nccl pattern's defaults. 8 B to 256 MiB doubling is the sweep
// nccl-tests' README shows (-b 8 -e 256M -f 2, 26 sizes), which covers
// both the latency-bound small sizes and the bandwidth-bound large ones.
const (
	DefaultNCCLCollective = results.CollAllReduce
	DefaultNCCLMinBytes   = 8
	DefaultNCCLMaxBytes   = 256 << 20
	DefaultNCCLStepFactor = 2
	// MaxNCCLSizes bounds a sweep (a fine step_bytes makes many sizes).
	MaxNCCLSizes = 64
	// DefaultNCCLDuration is the duration of a scenario with nccl traffic
	// that sets none: generous, since the run ends once the last size
	// completed (the largest default size takes milliseconds even on the
	// 1024-GPU lab), and a size still running at the end has no row.
	DefaultNCCLDuration = "1s"
)

// ncclKeys are the traffic keys only the nccl pattern reads.
var ncclKeys = []string{"collective", "algorithm", "channels", "rank_order", "min_bytes", "max_bytes", "step_factor", "step_bytes", "root", "datatype", "qps_per_connection"}

// ncclKeySet says which nccl keys a traffic entry sets.
func ncclKeySet(t *Traffic) map[string]bool {
	return map[string]bool{
		"collective": t.Collective != "", "algorithm": t.Algorithm != "", "channels": t.Channels != 0,
		"rank_order": t.RankOrder != "", "min_bytes": t.MinBytes != "", "max_bytes": t.MaxBytes != "",
		"step_factor": t.StepFactor != 0, "step_bytes": t.StepBytes != "", "root": t.Root != nil, "datatype": t.DataType != "",
		"qps_per_connection": t.QPsPerConnection != 0,
	}
}

// validateNCCL checks and fills in an nccl traffic entry: the collective,
// algorithm, channels, rank order, data type and root, and the sizes it
// sweeps (Sizes).
func validateNCCL(t *Traffic, at func(field, msg, fix string) error) error {
	if t.CrossLeaf != nil {
		return at("cross_leaf", "cross_leaf does not apply to pattern nccl", "remove it; nccl runs over every GPU of the lab, placed by rank_order")
	}
	if t.Collective == "" {
		t.Collective = DefaultNCCLCollective
	}
	if !slices.Contains(results.NCCLCollectives, t.Collective) {
		return at("collective", fmt.Sprintf("unknown collective %q", t.Collective), "use one of "+strings.Join(results.NCCLCollectives, ", ")+" (nccl-tests' names without _perf)")
	}
	if t.Algorithm == "" {
		t.Algorithm = collective.AlgoRing
	}
	switch {
	case !slices.Contains(collective.Algorithms, t.Algorithm):
		return at("algorithm", fmt.Sprintf("unknown algorithm %q", t.Algorithm), "use ring or tree")
	case t.Algorithm == collective.AlgoTree && results.NCCLPointToPoint(t.Collective):
		return at("algorithm", fmt.Sprintf("NCCL runs %s point to point (ncclSend/ncclRecv), on no tree", t.Collective), "leave algorithm out (it does not apply to alltoall and sendrecv), or use collective: all_reduce for a tree")
	case t.Algorithm == collective.AlgoTree && t.Collective != results.CollAllReduce:
		return at("algorithm", fmt.Sprintf("NCCL runs %s on rings, not trees", t.Collective), "use algorithm: ring, or collective: all_reduce for a tree")
	case t.Channels < 0 || t.Channels > collective.MaxChannels:
		return at("channels", fmt.Sprintf("channels %d is out of range", t.Channels), fmt.Sprintf("use 1 to %d (NCCL's MAXCHANNELS), or leave it out for one per NIC (two per NIC for a tree)", collective.MaxChannels))
	}
	if t.QPsPerConnection < 0 || t.QPsPerConnection > collective.MaxQPsPerConnection {
		return at("qps_per_connection", fmt.Sprintf("qps_per_connection %d is out of range", t.QPsPerConnection), fmt.Sprintf("use 1 to %d (NCCL_IB_QPS_PER_CONNECTION), or leave it out for NCCL's 1", collective.MaxQPsPerConnection))
	}
	if t.RankOrder == "" {
		t.RankOrder = collective.OrderNCCL
	}
	if !slices.Contains(collective.RankOrders, t.RankOrder) {
		return at("rank_order", fmt.Sprintf("unknown rank_order %q", t.RankOrder), "use nccl (rail-aligned rings, PXN) or naive (ranks round robin over servers, NIC to NIC)")
	}
	if t.DataType == "" {
		t.DataType = collective.DefaultDataType
	}
	if collective.DataTypes[t.DataType] == 0 {
		return at("datatype", fmt.Sprintf("unknown datatype %q", t.DataType), "use one of "+strings.Join(collective.DataTypeNames, ", ")+" (nccl-tests -d)")
	}
	if t.Root != nil {
		if t.Collective != results.CollBroadcast {
			return at("root", fmt.Sprintf("root does not apply to collective %s", t.Collective), "remove it; root is broadcast's (nccl-tests -r)")
		}
		if *t.Root < 0 {
			return at("root", fmt.Sprintf("root %d is not a rank", *t.Root), "use a rank from 0 to the lab's GPUs - 1")
		}
	}
	size := func(key, text string, def int64) (int64, error) {
		if text == "" {
			return def, nil
		}
		n, err := ParseBytes(text)
		if err != nil || n < 1 {
			return 0, sizeError(at, key, text, err, fmt.Sprintf("%s %q is not a size of 1 B or more", key, text), "write a size such as 8, 1MiB or 256MiB")
		}
		return n, nil
	}
	var err error
	if t.MinBytesN, err = size("min_bytes", t.MinBytes, DefaultNCCLMinBytes); err != nil {
		return err
	}
	if t.MaxBytesN, err = size("max_bytes", t.MaxBytes, DefaultNCCLMaxBytes); err != nil {
		return err
	}
	if t.MaxBytesN < t.MinBytesN {
		key := "max_bytes"
		if t.MaxBytes == "" {
			key = "min_bytes" // the default max is what min passed
		}
		return at(key, fmt.Sprintf("max_bytes %s is below min_bytes %s", fmtBytes(t.MaxBytesN), fmtBytes(t.MinBytesN)), "give a max_bytes of at least min_bytes (nccl-tests -e >= -b)")
	}
	var step int64
	switch {
	case t.StepFactor != 0 && t.StepBytes != "":
		return at("step_bytes", "step_factor and step_bytes are both set", "keep one: step_factor multiplies each size (nccl-tests -f), step_bytes adds to it (-i)")
	case t.StepBytes != "":
		if step, err = ParseBytes(t.StepBytes); err != nil || step < 1 {
			return sizeError(at, "step_bytes", t.StepBytes, err, fmt.Sprintf("step_bytes %q is not a size of 1 B or more", t.StepBytes), "write a size such as 1MiB")
		}
	case t.StepFactor == 0:
		t.StepFactor = DefaultNCCLStepFactor
	case t.StepFactor < 2:
		return at("step_factor", fmt.Sprintf("step_factor %d does not grow the size", t.StepFactor), "use 2 or more (nccl-tests -f), or step_bytes to add a fixed step")
	}
	t.Sizes = ncclSizes(t.MinBytesN, t.MaxBytesN, int64(t.StepFactor), step)
	if len(t.Sizes) > MaxNCCLSizes {
		key := "step_factor"
		if step > 0 {
			key = "step_bytes"
		}
		return at(key, fmt.Sprintf("min_bytes %s to max_bytes %s makes %d sizes, more than the %d labctl sweeps", fmtBytes(t.MinBytesN), fmtBytes(t.MaxBytesN), len(t.Sizes), MaxNCCLSizes),
			"take a larger step or a narrower range")
	}
	return nil
}

// ncclSizes is nccl-tests' loop: from min, times factor (or plus step)
// while at most max. It stops past MaxNCCLSizes+1 sizes: that many is
// refused anyway.
func ncclSizes(minB, maxB, factor, step int64) []int64 {
	var out []int64
	for s := minB; s <= maxB && len(out) <= MaxNCCLSizes; {
		out = append(out, s)
		if step > 0 {
			s += step
		} else {
			if s > math.MaxInt64/factor {
				break
			}
			s *= factor
		}
	}
	return out
}

// fmtBytes writes a size as the scenario would: 256MiB, 1000, 8.
func fmtBytes(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.name)
		}
	}
	return fmt.Sprint(n)
}

// expandNCCL is the runtime's view of an nccl traffic entry: every GPU of
// the lab takes part, so Ranks lists every NIC, in fabric order.
func expandNCCL(nics []NIC, t *Traffic) *runtime.CollectiveSpec {
	c := &runtime.CollectiveSpec{Kind: runtime.CollectiveNCCL, TrafficClass: *t.TrafficClass, StartUs: t.StartUs, NCCL: &runtime.NCCLSpec{
		Collective: t.Collective, Algorithm: t.Algorithm, Channels: t.Channels, RankOrder: t.RankOrder,
		DataType: t.DataType, QPsPerConnection: t.QPsPerConnection, Sizes: slices.Clone(t.Sizes),
	}}
	if t.Root != nil {
		c.NCCL.Root = *t.Root
	}
	for _, n := range nics {
		c.Ranks = append(c.Ranks, n.Endpoint)
	}
	return c
}

// checkNCCLLab checks what an nccl entry asks of the lab: a broadcast
// root among its GPUs.
func (s *Spec) checkNCCLLab(g *fabric.Graph) error {
	gpus := 0
	for _, h := range g.Hosts() {
		gpus += h.GPUs
	}
	for i, t := range s.Traffic {
		if t.Pattern != PatternNCCL || t.Root == nil || *t.Root < gpus {
			continue
		}
		return specyaml.At(s.file, s.src, fmt.Sprintf("$.traffic[%d].root", i), fmt.Sprintf("root %d is not a rank: lab %s has %d GPUs", *t.Root, g.Name, gpus),
			fmt.Sprintf("use a root from 0 to %d", gpus-1))
	}
	return nil
}

// ncclFields are the assertion names over a variant's nccl-tests table,
// nccl.<field>.
var ncclFields = map[string]string{
	"rows":             "sizes with a row (completed)",
	"sizes_missing":    "sizes asked for that have no row (did not complete, or moved nothing)",
	"busbw_max":        "the largest busbw of any row, GB/s",
	"busbw_largest":    "the busbw of the largest size's row, GB/s",
	"bound_busbw":      "the bandwidth-optimal busbw of the collective on this fabric (closed form), GB/s",
	"busbw_over_bound": "busbw_largest / bound_busbw",
	"time_us_smallest": "the smallest size's time, µs",
	"fabric_bytes":     "payload bytes every row put on the fabric",
	"spine_bytes":      "payload bytes every row sent through the spines (or beyond)",
	"spine_share":      "spine_bytes / fabric_bytes (0 when nothing crossed the fabric)",
}

// ncclFieldNames lists ncclFields sorted.
func ncclFieldNames() []string { return slices.Sorted(maps.Keys(ncclFields)) }

// checkNCCLIdent checks nccl.<field> for spec s.
func checkNCCLIdent(p []string, s *Spec) error {
	if len(p) != 2 {
		return fmt.Errorf("unknown name %s (nccl names are nccl.<field>)", strings.Join(p, "."))
	}
	if _, ok := ncclFields[p[1]]; !ok {
		return fmt.Errorf("unknown nccl field %q (fields: %s)", p[1], strings.Join(ncclFieldNames(), ", "))
	}
	if !slices.ContainsFunc(s.Traffic, func(t Traffic) bool { return t.Pattern == PatternNCCL }) {
		return fmt.Errorf("nccl.%s needs a traffic entry of pattern nccl", p[1])
	}
	return nil
}

// lookupNCCL reads nccl.<field> from a variant's nccl-tests table. A
// figure the table does not hold fails the assertion with the reason.
func lookupNCCL(v *results.Variant, field string) (Value, error) {
	t := v.NCCL
	if t == nil {
		return Value{}, fmt.Errorf("variant %s has no nccl-tests table", v.Name)
	}
	planned := -1.0
	if x, ok := v.Extra["nccl"].(map[string]any); ok {
		if f, ok := x["sizes_planned"].(float64); ok {
			planned = f
		}
	}
	switch field {
	case "rows":
		return Num(float64(len(t.Rows))), nil
	case "sizes_missing":
		if planned < 0 {
			return Value{}, fmt.Errorf("nccl.sizes_missing: the record does not say how many sizes were asked for")
		}
		return Num(planned - float64(len(t.Rows))), nil
	case "bound_busbw":
		if t.BoundBusBWGBps == nil {
			return Value{}, fmt.Errorf("nccl.bound_busbw is absent (a measured table has no bound)")
		}
		return Num(*t.BoundBusBWGBps), nil
	}
	if len(t.Rows) == 0 {
		return Value{}, fmt.Errorf("nccl.%s: the table has no rows (no size completed)", field)
	}
	largest := t.Rows[0]
	busMax := 0.0
	for _, r := range t.Rows {
		if r.SizeBytes >= largest.SizeBytes {
			largest = r
		}
		busMax = max(busMax, r.OutOfPlace.BusBWGBps)
	}
	sum := func(f func(r results.NCCLRow) *int64) (float64, error) {
		total := 0.0
		for _, r := range t.Rows {
			p := f(r)
			if p == nil {
				return 0, fmt.Errorf("nccl.%s is absent: the row of %d B does not count it", field, r.SizeBytes)
			}
			total += float64(*p)
		}
		return total, nil
	}
	switch field {
	case "busbw_max":
		return Num(busMax), nil
	case "busbw_largest":
		return Num(largest.OutOfPlace.BusBWGBps), nil
	case "busbw_over_bound":
		if t.BoundBusBWGBps == nil || *t.BoundBusBWGBps <= 0 {
			return Value{}, fmt.Errorf("nccl.busbw_over_bound: the table has no bound")
		}
		return Num(largest.OutOfPlace.BusBWGBps / *t.BoundBusBWGBps), nil
	case "time_us_smallest":
		smallest := t.Rows[0]
		for _, r := range t.Rows {
			if r.SizeBytes < smallest.SizeBytes {
				smallest = r
			}
		}
		return Num(smallest.OutOfPlace.TimeUs), nil
	case "fabric_bytes", "spine_bytes", "spine_share":
		fab, err := sum(func(r results.NCCLRow) *int64 { return r.FabricBytes })
		if err != nil {
			return Value{}, err
		}
		spine, err := sum(func(r results.NCCLRow) *int64 { return r.SpineBytes })
		if err != nil {
			return Value{}, err
		}
		switch field {
		case "fabric_bytes":
			return Num(fab), nil
		case "spine_bytes":
			return Num(spine), nil
		}
		if fab == 0 {
			return Num(0), nil
		}
		return Num(spine / fab), nil
	}
	return Value{}, fmt.Errorf("unknown nccl field %q", field)
}

// ncclMovesNothing refuses, before anything runs, a point whose nccl
// sizes all move nothing over the lab's GPUs (nccl-tests gives each rank
// whole elements, and all_gather, reduce_scatter and alltoall a count a
// rank rounded down to 16 B): the simulator refused it only when the
// point's turn came, after the points before it had run and been saved.
// The error is at the matrix key that swept the sizes, else at the
// entry's max_bytes.
func (s *Spec) ncclMovesNothing(g *fabric.Graph, pt Point, c *runtime.CollectiveSpec) error {
	if g == nil || c == nil || c.NCCL == nil {
		return nil
	}
	gpus, seen := 0, map[string]bool{}
	for _, ep := range c.Ranks {
		if h := g.Node(ep.Host); h != nil && !seen[ep.Host] {
			seen[ep.Host] = true
			gpus += h.GPUs
		}
	}
	ns := c.NCCL
	elt := collective.DataTypes[ns.DataType]
	if gpus < 2 || elt == 0 || len(ns.Sizes) == 0 {
		return nil // the simulator says what is wrong
	}
	for _, size := range ns.Sizes {
		if n, _ := collective.TestSize(ns.Collective, size, elt, gpus); n > 0 {
			return nil
		}
	}
	least := int64(elt)
	if n, _ := collective.TestSize(ns.Collective, least, elt, gpus); n == 0 {
		least = int64(max(16, elt) * gpus)
	}
	i := slices.IndexFunc(s.Traffic, func(t Traffic) bool { return t.Pattern == PatternNCCL })
	msg := fmt.Sprintf("variant %s: no size of %s from %d B to %d B moves data over the lab's %d GPUs (nccl-tests gives each rank whole %s elements%s)",
		pt.Name, ns.Collective, ns.Sizes[0], ns.Sizes[len(ns.Sizes)-1], gpus, ns.DataType,
		map[bool]string{true: ", and a count a rank rounded down to 16 B", false: ""}[least > int64(elt)])
	fix := fmt.Sprintf("raise max_bytes to %d B or more", least)
	for _, e := range s.Matrix.entries {
		for _, key := range []string{"max_bytes", "min_bytes", "step_factor", "step_bytes", "datatype", "collective"} {
			if e.key == fmt.Sprintf("traffic[%d].%s", i, key) {
				return exitcode.Usage(&specyaml.Error{File: s.file, Line: e.keyAt.line, Column: e.keyAt.col, Msg: msg, Fix: fix})
			}
		}
	}
	return exitcode.Usage(specyaml.AtFirst(s.file, s.src, msg, fix, fmt.Sprintf("$.traffic[%d].max_bytes", i), fmt.Sprintf("$.traffic[%d]", i)))
}
