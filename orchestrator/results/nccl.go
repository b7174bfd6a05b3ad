package results

// NCCLTable is a collective's figures as nccl-tests prints them
// (all_reduce_perf and its siblings): one row per message size. A
// simulated variant of an nccl-tests-like scenario carries one, and so does
// a record made by `labctl parse nccl-tests` from a real cluster's output
// (Source measured), so the two can be compared by regress.
type NCCLTable struct {
	// Collective is nccl-tests' name without _perf: all_reduce,
	// all_gather, reduce_scatter, alltoall, broadcast or sendrecv.
	Collective string `json:"collective"`
	// Algorithm is NCCL's algorithm (ring, tree) when known; empty for a
	// measured table whose output does not say, and for a point-to-point
	// collective (NCCLPointToPoint), which runs on no algorithm. Records
	// of labctl before 2026-12-07 say ring for a simulated alltoall or
	// sendrecv: NCCLTableTitle does not show it.
	Algorithm string `json:"algorithm,omitempty"`
	// Ranks is nccl-tests' nranks; Channels the channels the collective
	// ran on (simulated: what labctl built; measured: absent unless the
	// output said).
	Ranks    int `json:"ranks"`
	Channels int `json:"channels,omitempty"`
	// RankOrder is how ranks were placed: "nccl" (topology-aware) or
	// "naive" (see the scenario spec); empty for a measured table.
	RankOrder string `json:"rank_order,omitempty"`
	// DataType, RedOp and Root are the columns nccl-tests prints per
	// row, the same on every row of a run: float, sum, -1 for all_reduce.
	DataType string    `json:"type"`
	RedOp    string    `json:"redop"`
	Root     int       `json:"root"`
	Rows     []NCCLRow `json:"rows"`
	// AvgBusBWGBps is the trailer's "Avg bus bandwidth" (nccl-tests
	// averages the busbw of every row, out-of-place and in-place); nil
	// when the output had no trailer.
	AvgBusBWGBps *float64 `json:"avg_busbw_gbyte_s"`
	// BoundBusBWGBps is the bandwidth-optimal bus bandwidth of the fabric
	// for this collective and algorithm (channels x NIC rate, bounded by
	// the scale-up domain and PCIe): a closed form the simulated large
	// sizes approach. Nil for a measured table.
	BoundBusBWGBps *float64 `json:"bound_busbw_gbyte_s,omitempty"`
	Source         Source   `json:"source"`
	// OutOfBounds is the trailer's "Out of bounds values": the results
	// nccl-tests found wrong values in, each counted once per thread of
	// each process that found some (0 OK). Nil for a simulated table,
	// which moves no data to check.
	OutOfBounds *int64 `json:"out_of_bounds,omitempty"`
	// NCCLTests is what a measured table's output said of its run
	// besides the table; nil for a simulated one.
	NCCLTests *NCCLTestsRun `json:"nccl_tests,omitempty"`
}

// NCCLRow is one message size of an NCCLTable. Bandwidths are in GB/s
// (1e9 bytes per second) as nccl-tests prints them, times in microseconds.
type NCCLRow struct {
	SizeBytes int64 `json:"size_bytes"`
	// Count is elements (size / the type's size).
	Count int64 `json:"count"`
	// OutOfPlace is the out-of-place result; InPlace the in-place one,
	// absent for a simulated row (the network sees the same transfers).
	OutOfPlace NCCLResult  `json:"out_of_place"`
	InPlace    *NCCLResult `json:"in_place,omitempty"`
	// FabricBytes and SpineBytes (simulated) are the payload bytes the
	// collective put on the fabric and the part of it that crossed the
	// spines: with rail-aligned rings the second stays small.
	FabricBytes *int64 `json:"fabric_bytes,omitempty"`
	SpineBytes  *int64 `json:"spine_bytes,omitempty"`
}

// NCCLResult is one half of an nccl-tests row.
type NCCLResult struct {
	TimeUs    float64 `json:"time_us"`
	AlgBWGBps float64 `json:"algbw_gbyte_s"`
	BusBWGBps float64 `json:"busbw_gbyte_s"`
	// Wrong is nccl-tests' #wrong; nil where nothing checked the data
	// (a simulation moves no data, nccl-tests -c 0 prints N/A).
	Wrong *int64 `json:"wrong"`
	// MaxError is what nccl-tests releases before 2.13 print instead of
	// #wrong: the largest deviation from the expected values (0e+00 when
	// every value was right); nil where the output has #wrong or N/A.
	MaxError *float64 `json:"max_error,omitempty"`
}

// NCCL collectives by nccl-tests' names.
const (
	CollAllReduce     = "all_reduce"
	CollAllGather     = "all_gather"
	CollReduceScatter = "reduce_scatter"
	CollAllToAll      = "alltoall"
	CollBroadcast     = "broadcast"
	CollSendRecv      = "sendrecv"
)

// NCCLCollectives lists them.
var NCCLCollectives = []string{CollAllReduce, CollAllGather, CollReduceScatter, CollAllToAll, CollBroadcast, CollSendRecv}

// NCCLPointToPoint says whether NCCL runs a collective as point-to-point
// transfers: nccl-tests' alltoall_perf and sendrecv_perf post grouped
// ncclSend/ncclRecv calls, which NCCL runs on its p2p channels with none
// of its collective algorithms (ring, tree, ...; NCCL_ALGO does not apply
// to them).
func NCCLPointToPoint(collective string) bool {
	return collective == CollAllToAll || collective == CollSendRecv
}

// BusBWFactor is nccl-tests' busbw/algbw for a collective over n ranks
// (nccl-tests doc/PERFORMANCE.md): 2(n-1)/n for all-reduce, (n-1)/n for
// all-gather, reduce-scatter and all-to-all, 1 for broadcast and
// send/recv. ok is false for a collective it does not know.
func BusBWFactor(collective string, n int) (f float64, ok bool) {
	if n < 1 {
		return 0, false
	}
	nn := float64(n)
	switch collective {
	case CollAllReduce:
		return 2 * (nn - 1) / nn, true
	case CollAllGather, CollReduceScatter, CollAllToAll:
		return (nn - 1) / nn, true
	case CollBroadcast, CollSendRecv:
		return 1, true
	}
	return 0, false
}

// OutOfBoundsVerdict is what nccl-tests prints after its "Out of bounds
// values" count: OK for none, FAILED otherwise.
func (t *NCCLTable) OutOfBoundsVerdict() string {
	if t.OutOfBounds != nil && *t.OutOfBounds != 0 {
		return "FAILED"
	}
	return "OK"
}
