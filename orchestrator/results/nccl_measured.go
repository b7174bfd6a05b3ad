package results

// NCCLTestsRun is what nccl-tests' text output says of its run besides the
// table (its header and device lines), kept with a measured table so that
// a record shows what ran where. A field the output did not print is
// absent.
type NCCLTestsRun struct {
	// Program is the binary, "all_reduce_perf"; printed by nccl-tests
	// 2.16.7 and later, else taken from a command line in the output.
	Program string `json:"program,omitempty"`
	// Version is nccl-tests' own version (printed from 2.17.4).
	Version string `json:"version,omitempty"`
	// NCCLVersion is the NCCL library's, as NCCL printed it
	// ("2.30.3+cuda13.0") or from nccl-tests' nccl-library code.
	NCCLVersion string `json:"nccl_version,omitempty"`
	// CollectiveFrom says how the parser knew which collective the table
	// is: "program name", "command line", "--collective", or "figures"
	// (the columns, the reduction op, the root and how busbw, algbw, size
	// and count relate, which fit one collective only).
	CollectiveFrom string `json:"collective_from"`
	// The header line's settings: nThread, nGpus (per thread), the sizes
	// swept, the step (a factor or bytes), warmup and timed iterations,
	// aggregated iterations, validation (0: nothing checked, so #wrong is
	// N/A) and CUDA graph launches.
	Threads       *int   `json:"threads,omitempty"`
	GPUsPerThread *int   `json:"gpus_per_thread,omitempty"`
	MinBytes      *int64 `json:"min_bytes,omitempty"`
	MaxBytes      *int64 `json:"max_bytes,omitempty"`
	StepFactor    *int64 `json:"step_factor,omitempty"`
	StepBytes     *int64 `json:"step_bytes,omitempty"`
	WarmupIters   *int   `json:"warmup_iters,omitempty"`
	Iters         *int   `json:"iters,omitempty"`
	AggIters      *int   `json:"agg_iters,omitempty"`
	Validation    *int   `json:"validation,omitempty"`
	Graph         *int   `json:"graph,omitempty"`
	// TimeColumn is "time" (GPU time per collective, the default) or
	// "cputime" (-C 1: CPU time of the launch; the bandwidths still come
	// from GPU time).
	TimeColumn string `json:"time_column"`
	// Devices are the "#  Rank" lines, one per rank.
	Devices []NCCLDevice `json:"devices,omitempty"`
}

// NCCLDevice is one rank of an nccl-tests run.
type NCCLDevice struct {
	Rank   int    `json:"rank"`
	Host   string `json:"host"`
	Device int    `json:"device"`
	// Name is the GPU's, "NVIDIA H100 80GB HBM3".
	Name string `json:"name,omitempty"`
}

// Imported says what a record was made from when labctl did not run it:
// the tool whose output it holds and the files read. Regress compares
// such a record's variants with the other record's same-named ones and
// lists, without calling it a regression, a variant only the other has:
// a cluster measured the points it could run.
type Imported struct {
	// Tool is "nccl-tests".
	Tool string `json:"tool"`
	// Files are the outputs read, one per variant, as given.
	Files []string `json:"files"`
}
