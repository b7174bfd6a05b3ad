// Package runtime defines how a lab is brought up, inspected, torn down and
// driven with scenario traffic, independent of what runs it: the embedded
// simulator (runtime/sim) or containerlab (runtime/clab). It also owns the
// lab lifecycle on disk: the per-lab lock (topologies/<lab>/.lock) and the
// state file (topologies/<lab>/state.json).
//
// A runtime only does what is specific to it. The lifecycle functions in
// this package (Up, Down) take the lock, write state.json and call the
// runtime, so every runtime gets the same locking and state semantics;
// ReadState and ListStates read what they recorded. RenderLab (Up's
// prepare step, before any runtime's Up), LoadConfigs and ApplyVariant are
// shared by the runtimes: the lab's vendor configs on disk are the source
// of truth for every variant.
package runtime

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/server"
	engine "github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Runtime runs labs. Implementations must be safe to call for a lab that is
// already in the requested state: Up on a running lab reconciles (or returns
// nil), Down on a lab that is not running returns nil.
type Runtime interface {
	// Name is the runtime's name as the CLI spells it: "sim" or "clab".
	Name() string
	// Up brings the lab up. The topology and configs under lab.Dir exist
	// (the lifecycle renders missing ones before calling Up); a runtime
	// reads them and never overwrites a config file.
	Up(ctx context.Context, l *Lab) error
	// Down tears the lab down. It must succeed for a lab that is already down.
	Down(ctx context.Context, l *Lab) error
	// Status reports what the runtime sees now, node by node.
	Status(ctx context.Context, l *Lab) (*Status, error)
	// RunVariant runs one point of a scenario's matrix (ECN and PFC on or
	// off, the flows to start) on a lab that is up, and returns its
	// results: flows, summary, counters and time series. The caller fills
	// in assertions. When ctx is cancelled it returns ctx.Err() (possibly
	// wrapped) and no variant.
	RunVariant(ctx context.Context, l *Lab, v VariantSpec) (*results.Variant, error)
}

// Lab is a lab as the runtimes see it: what was asked for (Spec), the port
// math (Plan), the fabric graph (Graph, once built) and where its files are.
type Lab struct {
	Name string
	Spec *lab.Spec
	Plan *sizing.Plan
	// Graph is the fabric built from Spec and Plan.
	Graph *fabric.Graph
	// NOS is the network OS of the switches: "sonic" or "eos".
	NOS string
	// Dir is topologies/<lab>: topology, configs/, state.json, .lock.
	Dir string
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// Progress, when not nil, receives human progress lines (deploys,
	// pushes, simulated time). The CLI sets it only on a terminal.
	Progress io.Writer
	// DryRun asks Up and Down to say what they would do on Progress (or
	// Log) without changing anything.
	DryRun bool
}

// ConfigsDir is where the lab's vendor configs live: one file per switch,
// <switch>.json for SONiC config_db, <switch>.cfg for EOS CLI.
func (l *Lab) ConfigsDir() string { return filepath.Join(l.Dir, "configs") }

// StatePath is the lab's state file.
func (l *Lab) StatePath() string { return filepath.Join(l.Dir, StateFile) }

// LockPath is the lab's lock file.
func (l *Lab) LockPath() string { return filepath.Join(l.Dir, LockFile) }

// ServerModel is the lab's GPU server (lab.Spec.ServerModel); a lab
// without a spec has the defaults of its NIC speed (its plan's, or its
// graph's).
func (l *Lab) ServerModel() (server.Model, error) {
	if l.Spec != nil {
		return l.Spec.ServerModel()
	}
	nic := 0
	switch {
	case l.Plan != nil:
		nic = l.Plan.NICSpeedGbps
	case l.Graph != nil:
		nic = l.Graph.NICSpeedGbps
	}
	return server.Resolve(server.Spec{}, nic)
}

// NICPayloadGbps is what a NIC of the lab sends of payload in packets of
// mtu bytes (0: sim.DefaultMTU) on transport tr: server.NICPayloadGbps
// of its port, its PCIe link and tr's bytes a packet on the wire
// (sim.WireOverheadFor). A lab's ideal goodput and the ring AllReduce
// theory take it.
func (l *Lab) NICPayloadGbps(mtu int, tr string) (float64, error) {
	m, err := l.ServerModel()
	if err != nil {
		return 0, fmt.Errorf("lab %s: %w", l.Name, err)
	}
	if mtu <= 0 {
		mtu = engine.DefaultMTU
	}
	return m.PayloadGbps(mtu, engine.WireOverheadFor(tr)), nil
}

// Logger returns l.Log or a logger that discards everything.
func (l *Lab) Logger() *slog.Logger {
	if l.Log != nil {
		return l.Log
	}
	return slog.New(slog.DiscardHandler)
}

// VariantSpec is one variant of a scenario as a runtime executes it. The
// scenario package expands traffic patterns into concrete flows, so a
// runtime only starts flows; it does not know pattern semantics.
type VariantSpec struct {
	// Name is the variant's name, e.g. "ecn=on,pfc=off".
	Name string `json:"name"`
	// ECN and PFC say whether the feature stays as the lab's configs have
	// it (true) or is removed from every switch (false).
	ECN bool `json:"ecn"`
	PFC bool `json:"pfc"`
	// Params are the swept parameters' values by path
	// ("qos.ecn.kmin_kb": "200"), recorded as given.
	Params map[string]string `json:"params,omitempty"`
	// QoS holds the swept QoS values, in the lab spec's terms, applied on
	// top of the lab's configs after ECN and PFC (ApplyQoS), and to the
	// traffic for mtu (VariantIntent). Zero: the configs as they are.
	QoS lab.QoSSpec `json:"qos,omitzero"`
	// Repetition counts from 0.
	Repetition int `json:"repetition"`
	// Seed makes the variant reproducible: same seed, same result.
	Seed int64 `json:"seed"`
	// DurationUs is how long traffic runs (simulated time in the simulator,
	// wall time on a live lab), in microseconds.
	DurationUs float64 `json:"duration_us"`
	// WarmupUs starts the goodput window of long-lived flows, so that
	// their throughput is measured once rates have converged.
	WarmupUs float64 `json:"warmup_us"`
	// Flows are the point-to-point flows to start (perftest-like QPs).
	Flows []FlowSpec `json:"flows"`
	// Collective, when set, runs a collective (ring AllReduce) over its
	// ranks in addition to Flows.
	Collective *CollectiveSpec `json:"collective,omitempty"`
	// Model is the simulator's model: ModelPacket (default) or ModelFlow.
	Model string `json:"model,omitempty"`
	// NIC is the hosts' NIC settings: DCQCN parameters and the QPs' loss
	// recovery (the lab's nic section with the scenario's over it).
	NIC nic.Settings `json:"nic,omitzero"`
	// Transport is what the NICs and switches run (the lab's transport
	// and sections with the scenario's over them); a zero Name means
	// the lab's.
	Transport transport.Settings `json:"transport,omitzero"`
	// Faults are the variant's link failures and PFC storms, in scenario
	// time; LB is how the switches spread packets over equal-cost paths
	// (empty: flow hashing, ECMP).
	Faults []FaultSpec `json:"faults,omitempty"`
	LB     LBSpec      `json:"lb,omitzero"`
	// SeriesEvery is the sampling interval of time series in microseconds;
	// 0 lets the runtime choose, negative disables series.
	SeriesEvery float64 `json:"series_every_us"`
	// Progress, when not nil, is called now and then while the variant
	// runs with how far it got.
	Progress func(Progress) `json:"-"`
	// Partitions splits a large fabric for the simulator's parallel
	// engine (0: decided by the fabric's size, 1: sequential). Like the
	// seed it is part of what the result depends on, and the record
	// keeps it (params.partitions, when more than one).
	Partitions int `json:"partitions,omitempty"`
	// Threads is how many threads the simulator runs the partitions on
	// (0: every CPU). It changes the speed, never the result.
	Threads int `json:"-"`
	// SpareThreads, when not nil, are threads other variants no longer
	// need, which the simulator takes as they come (sim.Config.Spare).
	SpareThreads *engine.SpareThreads `json:"-"`
}

// Simulation models (see results.ModelPacket, results.ModelFlow).
const (
	ModelPacket     = results.ModelPacket
	ModelFlow       = results.ModelFlow
	FlowModelCaveat = results.FlowModelCaveat
)

// Names of a ring AllReduce's time in a variant's extra.allreduce, and of
// its ratio to the theoretical time the scenario runner adds: the packet
// engine simulates the time, the flow-level model estimates it, and each
// record names it so (an assertion may still read a flow-level variant's
// by the simulated_ names: scenario.allReduceAliases).
const (
	AllReduceSimulatedUs    = "simulated_us"
	AllReduceSimulatedRatio = "simulated_over_theoretical"
	AllReduceEstimatedUs    = "estimated_us"
	AllReduceEstimatedRatio = "estimated_over_theoretical"
)

// Progress is how far a running variant got: simulated time reached of
// the total, events processed (the simulator's), and the share of the
// variant's work done.
type Progress struct {
	SimulatedNs, TotalNs int64
	Events               uint64
	// Done is the fraction of the variant done, 0..1, by the runtime's
	// measure of its work: the simulator's counts the bytes its sized
	// traffic must deliver, so a collective that ends long before the
	// duration is seen to (sim.Progress). 0 means the runtime does not
	// say; the share of the total time stands in for it.
	Done float64
}

// Preflighter is an optional capability of a Runtime: Preflight checks
// every prerequisite of Up that the runtime can check without changing
// anything (its binaries, the container engine or the cluster and what it
// must hold, images, room for the lab) and returns an environment error
// (exit 3) naming each problem and its fix. Up calls it before it takes the
// lab's lock or writes a file, so an up that cannot start leaves the lab's
// folder as it was: a work dir kept in git stays clean.
type Preflighter interface {
	Preflight(ctx context.Context, l *Lab) error
}

// VariantChecker is an optional capability of a Runtime: CheckVariant
// refuses a variant the runtime cannot run (a live lab: a collective, a
// swept MTU, a pause storm, a change its NOS's config cannot carry) with
// the error RunVariant would give, without touching the lab. The scenario
// runner checks every variant first, so a matrix whose later points a
// runtime refuses stops before its first point runs.
type VariantChecker interface {
	CheckVariant(l *Lab, v VariantSpec) error
}

// ParallelRunner is an optional capability of a Runtime: it can run
// several variants of a scenario at once (the simulator can; a live lab
// has one set of switches and cannot).
type ParallelRunner interface {
	RunsVariantsInParallel() bool
}

// TransportRunner is an optional capability of a Runtime: the transports
// it runs (transport.Names). A runtime without it runs RoCE only: a live
// lab's switches are Ethernet switches with RoCE QoS and its NICs
// soft-RoCE, with no InfiniBand or UET data plane.
type TransportRunner interface {
	Transports() []string
}

// CheckTransport refuses a transport rt does not run (bad input: the
// transport or the runtime must change). "" is RoCE.
func CheckTransport(rt Runtime, name string) error {
	if name == "" || name == transport.RoCE {
		return nil
	}
	if tr, ok := rt.(TransportRunner); ok && slices.Contains(tr.Transports(), name) {
		return nil
	}
	return exitcode.Usagef("the %s runtime runs RoCE only (its switches are Ethernet switches with RoCE QoS and its NICs soft-RoCE, with no %s data plane); fix: run transport %s on the simulator (--runtime sim), or use transport roce", rt.Name(), name, name)
}

// DurationBound is an optional capability of a Runtime: the longest
// scenario duration (traffic time per variant) it can run. A scenario
// asking for more is refused before a run starts.
type DurationBound interface {
	MaxDuration() time.Duration
}

// Endpoint is one NIC of one host of the fabric graph.
type Endpoint struct {
	Host string `json:"host"`
	NIC  int    `json:"nic"`
}

// Fault kinds.
const (
	FaultLinkDown = "link-down"
	FaultLinkFlap = "link-flap"
	FaultPFCStorm = "pfc-storm"
)

// FaultSpec is one fault of a variant. A link is named by one end
// ("leaf1:Ethernet128", a port as the lab's configs name it; a member of
// a merged lab link as "leaf1:Ethernet128.3") or by its two nodes
// ("leaf1-spine1": the first link between them).
type FaultSpec struct {
	Kind string `json:"kind"`
	Link string `json:"link,omitempty"`
	// OnPath, "traffic[i]", named the link by what crosses it: the first
	// link between switches the data of entry i's first QP takes at the
	// variant's seed. Expansion resolves it into Link.
	OnPath string `json:"on_path,omitempty"`
	// All, with a link named node-node, fails every link (and member)
	// between the two nodes.
	All bool `json:"all,omitempty"`
	// NIC and Priority: the NIC that storms, and the priority it pauses.
	NIC      *Endpoint `json:"nic,omitempty"`
	Priority int       `json:"priority,omitempty"`
	AtUs     float64   `json:"at_us"`
	// ForUs is how long a link stays down or a storm lasts (0: to the
	// end of the variant).
	ForUs float64 `json:"for_us,omitempty"`
	// A flap: down for DownUs, up for UpUs, Count times.
	DownUs float64 `json:"down_us,omitempty"`
	UpUs   float64 `json:"up_us,omitempty"`
	Count  int     `json:"count,omitempty"`
	// DetectUs and ConvergeUs: when the switches at the link's ends and
	// the others route around it (0: the simulator's defaults; negative:
	// at once).
	DetectUs   float64 `json:"detect_us,omitempty"`
	ConvergeUs float64 `json:"converge_us,omitempty"`
}

// LBSpec is the switches' load balancing over equal-cost paths.
type LBSpec struct {
	Mode         string  `json:"mode,omitempty"` // ecmp | flowlet | spray | adaptive
	FlowletGapUs float64 `json:"flowlet_gap_us,omitempty"`
}

// QPSourcePort is the UDP source port the simulator gives QP qp of the
// variant's flow flow (its index in VariantSpec.Flows): RoCE v2 NICs vary
// it per QP, and the switches' ECMP hash reads it, so a flow's path at a
// seed is the one 'labctl trace --sport' shows for this port.
func QPSourcePort(flow, qp int) int {
	return 49152 + (flow*64+qp)%16384
}

// FlowSpec is one flow: a perftest ib_write_bw QP group between two NICs.
type FlowSpec struct {
	// ID is unique within the variant, e.g. "h1:0->h2:0#0".
	ID      string   `json:"id"`
	Src     Endpoint `json:"src"`
	Dst     Endpoint `json:"dst"`
	Pattern string   `json:"pattern"` // pairs | permutation | incast | all-to-all | latency
	Role    string   `json:"role,omitempty"`
	// Bytes to send; 0 means send for the variant's whole duration.
	Bytes int64 `json:"bytes"`
	// MessageBytes is perftest's -s.
	MessageBytes int `json:"message_bytes"`
	// QPs is perftest's -q.
	QPs int `json:"qps"`
	// TrafficClass is perftest's --tclass: the IP TOS byte (106 = DSCP 26
	// with ECT(0)).
	TrafficClass int `json:"traffic_class"`
	// StartUs delays the flow's start from the variant's start.
	StartUs float64 `json:"start_us"`
	// TxDepth is perftest's --tx-depth: the messages a QP keeps posted
	// and not completed (bandwidth flows).
	TxDepth int `json:"tx_depth,omitempty"`
	// Bidirectional is perftest's -b: the flow's QPs run both ways, and
	// its throughput is the sum of both directions, as ib_write_bw -b
	// reports it.
	Bidirectional bool `json:"bidirectional,omitempty"`
	// Iterations is a latency flow's -n: an ib_write_lat ping-pong of
	// that many writes each way (Pattern PatternLatency).
	Iterations int `json:"iterations,omitempty"`
}

// PatternLatency is the pattern of a latency flow: an ib_write_lat
// ping-pong from Src (the client) to Dst (the server), not a bandwidth
// test.
const PatternLatency = results.PatternLatency

// IsLatency says whether the flow is an ib_write_lat ping-pong.
func (f FlowSpec) IsLatency() bool { return f.Pattern == PatternLatency }

// PingPongLatency is a latency flow's record from what ib_write_lat
// reported (measured, or computed from a simulated ping-pong's post times
// by perftest.LatencyOfPosts): every figure of its row, one way.
func PingPongLatency(row *perftest.LatRow) *results.Latency {
	avg := row.AvgUs
	lat := &results.Latency{P50: avg, Avg: &avg, Min: row.MinUs, Stdev: row.StdevUs, P999: row.P999Us, Iterations: row.Iterations}
	if row.TypicalUs != nil {
		lat.P50 = *row.TypicalUs // t_typical is the median
	}
	if row.P99Us != nil {
		lat.P99 = *row.P99Us
	}
	if row.MaxUs != nil {
		lat.Max = *row.MaxUs
	}
	return lat
}

// Collective kinds.
const (
	CollectiveRingAllReduce = "ring-allreduce"
	CollectiveAllToAll      = "all-to-all"
	// CollectiveNCCL is an nccl-tests-like sweep (NCCLSpec).
	CollectiveNCCL = "nccl"
)

// CollectiveSpec is a collective operation over ranks.
type CollectiveSpec struct {
	Kind  string     `json:"kind"` // ring-allreduce | all-to-all | nccl
	Ranks []Endpoint `json:"ranks"`
	// Bytes is the buffer size each rank reduces.
	Bytes        int64 `json:"bytes"`
	TrafficClass int   `json:"traffic_class"`
	// StartUs delays the collective's start from the variant's start
	// (nccl: its first size's).
	StartUs float64 `json:"start_us,omitempty"`
	// Role names an all-to-all's ranks in the record (the scenario
	// entry's role); empty is all-to-all.
	Role string `json:"role,omitempty"`
	// NCCL is the nccl kind's sweep. Its ranks are every GPU of the
	// servers Ranks names (every NIC of theirs is listed there).
	NCCL *NCCLSpec `json:"nccl,omitempty"`
}

// NCCLSpec is an nccl-tests-like run: one collective per size, the sizes
// one after the other, as all_reduce_perf -b -e -f runs them.
type NCCLSpec struct {
	// Collective is nccl-tests' name (all_reduce, all_gather, ...);
	// Algorithm ring or tree; RankOrder nccl or naive; Channels 0 for
	// the default (package collective decides it).
	Collective string `json:"collective"`
	Algorithm  string `json:"algorithm"`
	Channels   int    `json:"channels,omitempty"`
	RankOrder  string `json:"rank_order"`
	DataType   string `json:"datatype"`
	Root       int    `json:"root"`
	// QPsPerConnection is NCCL_IB_QPS_PER_CONNECTION (0: NCCL's 1).
	QPsPerConnection int `json:"qps_per_connection,omitempty"`
	// Sizes are the sizes asked for, in bytes, in run order.
	Sizes []int64 `json:"sizes"`
}

// NewLab builds the runtime view of a lab spec: its sizing plan and fabric
// graph, with files under topologiesDir/<name>. nosName overrides the
// spec's NOS when not empty.
func NewLab(spec *lab.Spec, topologiesDir, nosName string) (*Lab, error) {
	s := *spec
	if nosName != "" {
		s.NOS = nosName
	}
	plan, err := sizing.Compute(s.Sizing)
	if err != nil {
		return nil, fmt.Errorf("size lab %s: %w", s.Name, err)
	}
	g, err := fabric.Build(&s, plan)
	if err != nil {
		return nil, fmt.Errorf("build fabric of lab %s: %w", s.Name, err)
	}
	return &Lab{Name: s.Name, Spec: &s, Plan: plan, Graph: g, NOS: s.NOS, Dir: filepath.Join(topologiesDir, s.Name)}, nil
}
