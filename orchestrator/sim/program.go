package sim

// Program is a collective as a dataflow of streams, the way a collective
// library (NCCL) runs it: every stream is one connection from a GPU to
// another that carries Messages messages of MessageBytes, in order. Message
// m of a stream is posted once, for every one of its Inputs, message
// m+Offset of the input stream has been fully received (an index below 0
// needs nothing; one past the input's last message waits for its last).
// That one rule expresses a ring (message m of rank i's stream waits for
// message m-1 of rank i-1's), a tree (a chunk goes up once it came from
// every child, down once it came from the parent) and independent sends
// (no inputs).
//
// A stream between two GPUs of one server (ScaleUp) never touches the
// fabric: it takes its server's scale-up domain (Config.ScaleUp). Any other
// stream is an RC QP between its Src and Dst NICs through the packet-level
// fabric, with PFC, ECN and DCQCN as for any flow. A program costs a few
// words per stream, not per message, so a ring of a thousand ranks and
// two thousand steps stays small.
type Program struct {
	ID   string
	Role string
	// DSCP and ExplicitDSCP classify the fabric streams' packets as
	// Flow's do.
	DSCP         int
	ExplicitDSCP bool
	// StartNs delays the program's start; with After it counts from the
	// moment the program named there completed (nccl-tests runs one size
	// after the other).
	StartNs int64
	After   string
	Streams []Stream
}

// Stream is one connection of a Program.
type Stream struct {
	// Src and Dst are the NICs of a fabric stream ("host" or "host:port").
	Src, Dst string
	// ScaleUp makes the stream a transfer between GPUs SrcGPU and DstGPU
	// (0-based) of server Host over its scale-up domain; Src and Dst are
	// then unused.
	ScaleUp        bool
	Host           string
	SrcGPU, DstGPU int
	// Messages of MessageBytes each; a message is cut into MTU packets on
	// the fabric and ends in a packet of its own.
	Messages     int64
	MessageBytes int64
	// Size, when set, gives each message its own size: message i of the
	// stream (its own numbering, not the sequence's) carries Size(i)
	// bytes, 0 to MessageBytes, which is then the largest. A fabric
	// message is cut into as many packets as MessageBytes takes (full
	// MTUs, then what is left spread so that no packet is empty unless
	// the message has fewer bytes than packets: a message of 0 bytes is
	// as many packets as MessageBytes takes, of headers alone); on the
	// scale-up domain a message of 0 bytes takes its latency only. Size
	// is called for every message when the program is set up and again
	// as the stream sends (once a message, and again for a message
	// resent): it must be pure. Nil: every message carries MessageBytes.
	Size   func(i int64) int64
	Inputs []Input
	// SrcPort is the UDP source port of a fabric stream (the ECMP hash
	// reads it); 0 derives one from the stream's index.
	SrcPort int
	// Stride and Phase interleave several streams into one sequence of
	// messages, as a connection spread over several QPs sends its
	// messages round robin: message i of this stream is message
	// i*Stride+Phase of the sequence (Stride 0 means 1). Inputs count in
	// the sequence on both sides: message m waits for sequence message
	// m+Offset of each input, where an input that is one of several
	// interleaved streams stands only for its own messages of the
	// sequence (list all of them to wait for the whole sequence).
	Stride, Phase int64
}

// Input is one dependency of a stream: its message m waits for message
// m+Offset of stream Stream (an index into the program's Streams), both
// counted in their sequences (Stream.Stride, Phase).
type Input struct {
	Stream int32
	Offset int64
}

// ScaleUpDomain is a server's GPU-to-GPU interconnect (NVLink and
// NVSwitch, or PCIe): every GPU sends at most GbpsPerGPU (one direction)
// into it, messages from one GPU leave one after the other, and each
// arrives LatencyNs after its last byte left.
type ScaleUpDomain struct {
	GbpsPerGPU float64
	LatencyNs  int64
	// GPUs is how many GPUs the domain joins: a scale-up stream's GPU
	// indices must be below it. 0 means not given: any index from 0 is
	// taken (the server's GPU count is the caller's to know).
	GPUs int
}

// ProgramStats is one program's outcome.
type ProgramStats struct {
	ID string `json:"id"`
	// StartNs is when its first message was posted (-1: none was, as
	// when the program it waits for never completed), EndNs when its
	// last was received (-1: it did not complete); TimeNs their
	// difference when it completed, nil otherwise.
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
	TimeNs  *int64 `json:"time_ns"`
	// FabricBytes and ScaleUpBytes are the payload bytes its fabric and
	// scale-up streams delivered. SwitchHopBytes counts fabric payload by
	// the number of switches on the stream's path (1: within a leaf, 3:
	// through a spine, 5: through a super-spine), so a caller can say how
	// much of a collective crossed the spines.
	FabricBytes    int64         `json:"fabric_bytes"`
	ScaleUpBytes   int64         `json:"scale_up_bytes"`
	SwitchHopBytes map[int]int64 `json:"switch_hop_bytes,omitempty"`
	// FailedStreams counts fabric streams whose QP ran out of retries.
	FailedStreams int `json:"failed_streams,omitempty"`
}
