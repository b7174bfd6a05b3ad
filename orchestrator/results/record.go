// Package results holds the run record (what a scenario run produced), its
// storage (run folders and the SQLite index), report renderers and the
// regression compare against a baseline.
package results

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/transport"
)

// SchemaVersion is the version of the run record's JSON shape. Fields may be
// added freely; renaming or dropping one raises it.
const SchemaVersion = 1

// Source says how a number was obtained: measured on a live lab,
// simulated packet by packet, or estimated by the flow-level model.
type Source string

const (
	Measured  Source = "measured"
	Simulated Source = "simulated"
	// Estimated is a figure of the flow-level model (ModelFlow): steady
	// max-min fair rates and ring AllReduce times computed from the flows'
	// paths, no packet simulated. Records written before labctl said so
	// call them simulated, with the summary's model flow (Origin).
	Estimated Source = "estimated"
)

// SimulatorSource is the source of the figures the simulator makes under
// model (ModelPacket, ModelFlow): estimated by the flow-level model,
// simulated otherwise. The simulator writes it into each figure of a
// record; Origin reads a record's back.
func SimulatorSource(model string) Source {
	if model == ModelFlow {
		return Estimated
	}
	return Simulated
}

// Origin is how a figure whose record says s was obtained, in a variant
// of model (Variant.Model): s, but a record written before the flow-level
// model's figures said estimated says simulated of them, and they were
// estimated (SimulatorSource). Every reader that names or compares a
// figure's origin reads it here, so old and new records agree.
func Origin(s Source, model string) Source {
	if s == Simulated {
		return SimulatorSource(model)
	}
	return s
}

// Simulation models of simulated figures (Run.Model, Summary.Model).
const (
	// ModelPacket simulates every packet: queues, PFC, ECN, DCQCN.
	ModelPacket = "packet"
	// ModelFlow estimates steady max-min fair rates and ring AllReduce
	// times from the flows' paths.
	ModelFlow = "flow"
	// ModelLive names a live lab's measured figures (Variant.Model): not a
	// simulation model, whose congestion figures come from the variant's
	// packet-level twin.
	ModelLive = "live"
	// FlowModelCaveat is what every output says of a flow-level figure.
	FlowModelCaveat = "flow-level model: no queues, PFC, ECN or DCQCN"
)

// Run status values.
const (
	StatusRunning     = "running"
	StatusPassed      = "passed"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	// StatusAbandoned is a run whose record still says running but whose
	// writer process is gone (killed, crashed, out of disk): readers show
	// it so, and 'labctl results reindex' writes it into the record.
	StatusAbandoned = "abandoned"
)

// Statuses are the statuses a run record can have, in the order a run
// reaches them: what a record may say (a reader refuses any other) and
// what a --status filter may ask for.
var Statuses = []string{StatusRunning, StatusPassed, StatusFailed, StatusInterrupted, StatusAbandoned}

// Run is the record of one scenario run: results/<run-id>/run.json.
type Run struct {
	SchemaVersion int        `json:"schema_version"`
	RunID         string     `json:"run_id"`
	Lab           string     `json:"lab"`
	Scenario      string     `json:"scenario"`
	Runtime       string     `json:"runtime"`
	NOS           string     `json:"nos,omitempty"`
	Seed          int64      `json:"seed"`
	Started       time.Time  `json:"started"`
	Finished      *time.Time `json:"finished"`
	Status        string     `json:"status"`
	// ConfigDigest identifies the vendor config set the run used (sha256
	// over the files in topologies/<lab>/configs), so a regression can say
	// whether configs changed between two runs.
	ConfigDigest string `json:"config_digest,omitempty"`
	// ScenarioYAML is the scenario as the run read it (the catalog's or
	// the user's file), so a regression can say which of its values
	// changed between two runs: numbers that moved because the scenario
	// did are not the configs' doing.
	// ScenarioFile is the scenario file's absolute path when the run read
	// one (a catalog scenario has none): the command a message suggests
	// to run it again names it (ScenarioArg).
	ScenarioFile string `json:"scenario_file,omitempty"`
	ScenarioYAML string `json:"scenario_yaml,omitempty"`
	// Model is the simulator's model behind the simulated figures:
	// "packet" (every packet simulated) or "flow" (a flow-level estimate:
	// no queues, PFC, ECN or DCQCN). Empty for records made before it was
	// kept, which were packet-level unless a variant's summary says flow.
	Model string `json:"model,omitempty"`
	// ModelNote says what the model leaves out (FlowModelCaveat for a
	// flow-level run), so the record speaks for itself.
	ModelNote string `json:"model_note,omitempty"`
	// SimRevision is the revision of the simulator (sim.Revision) that
	// made the run's simulated figures: the same inputs at the same seed
	// give the same figures under one revision, so regress names a
	// revision that differs as a changed input. 0 for a record of a
	// tool's output (Imported) or one made before records carried it.
	SimRevision int `json:"sim_revision,omitempty"`
	// VariantsPlanned is how many variants the scenario expands to, so a
	// reader can tell a run that stopped early from a smaller scenario.
	VariantsPlanned int `json:"variants_planned,omitempty"`
	// PlannedVariants are the labels (VariantLabel) of the variants the
	// scenario expands to, in run order, so that a record of a run that
	// stopped early names those it lacks (NotRun).
	PlannedVariants []string `json:"planned_variants,omitempty"`
	// Error says why a run stopped before finishing its variants.
	Error string `json:"error,omitempty"`
	// Sweep lists the parameters the scenario's matrix sweeps besides ECN
	// and PFC, with their values in order; each variant's Params holds its
	// values under the same paths.
	Sweep []SweepDim `json:"sweep,omitempty"`
	// QoS is the lab's switch configs as the run found them, resolved
	// (what each switch does with them) and summarised field by field
	// over groups of ports: regress names the fields that changed between
	// a baseline and a run. The variants run these configs, minus ECN or
	// PFC for the off variants and with a sweep's values on top (listed
	// in each variant's Configs).
	QoS []qos.Settings `json:"qos,omitempty"`
	// Classes are what each switch does with the classes RoCE uses
	// (qos.ClassTable), for reports.
	Classes []qos.ClassRow `json:"qos_classes,omitempty"`
	// Lint is what `labctl config lint` said of those configs.
	Lint *LintSummary `json:"lint,omitempty"`
	// Writer is the process writing a running record; with the lock file
	// in the run folder it tells a run in progress from an abandoned one.
	Writer   *Writer   `json:"writer,omitempty"`
	Variants []Variant `json:"variants"`
	// Omitted names the parts of the record left out when it was saved as
	// a baseline, because regress never reads them ("variants.series":
	// the time series, most of a packet-level record; "variants.cost":
	// the measured wall times, which would make a baseline saved again
	// from the same results differ). The run's own run.json keeps
	// everything.
	Omitted []string `json:"omitted,omitempty"`
	// Extra holds scenario-specific results (for example the AllReduce
	// traffic model) keyed by name.
	Extra map[string]any `json:"extra,omitempty"`
	// Imported is set on a record made from a tool's output (labctl
	// parse nccl-tests --record) rather than by labctl running the
	// scenario: it holds only what that output measured.
	Imported *Imported `json:"imported,omitempty"`
}

// LintSummary is the lint of a run's configs: how many errors and
// warnings, and those findings (info left out).
type LintSummary struct {
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Findings []qos.Finding `json:"findings,omitempty"`
}

// NewLintSummary is what a run records of its configs' lint: the counts
// of errors and warnings and those findings (notes left out).
func NewLintSummary(fs []qos.Finding) *LintSummary {
	out := &LintSummary{Errors: qos.Count(fs, qos.SevError), Warnings: qos.Count(fs, qos.SevWarning), Findings: []qos.Finding{}}
	for _, f := range fs {
		if f.Severity != qos.SevInfo {
			out.Findings = append(out.Findings, f)
		}
	}
	return out
}

// SweepDim is one swept parameter of a run's matrix.
type SweepDim struct {
	// Path names it as the scenario does: "qos.ecn.kmin_kb",
	// "traffic[0].senders".
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// Writer identifies the process writing a run.
type Writer struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
}

// Variant is one point of the scenario's matrix (for example ECN on, PFC off).
type Variant struct {
	Name       string            `json:"name"`
	ECN        bool              `json:"ecn"`
	PFC        bool              `json:"pfc"`
	Params     map[string]string `json:"params,omitempty"`
	Repetition int               `json:"repetition,omitempty"`
	// Seed is the seed the variant ran at: the run's seed + Repetition
	// (the one to give labctl run --seed to run it again alone). Nil in a
	// record of a tool's output or made before records kept it.
	Seed *int64 `json:"seed,omitempty"`
	// SimulatedUs is the simulated time span of the variant in
	// microseconds: packet by packet, the run's duration (the scenario's),
	// to which the engine processed every event due, and which the
	// figures over the run (goodput windows, time series, pause time)
	// span; the flow-level model's, the time its estimate gives.
	SimulatedUs float64 `json:"simulated_us,omitempty"`
	// LastEventUs is when the packet-level simulation's last event that
	// could change the fabric happened (any but a PFC watchdog's poll or
	// a retransmission timer that found nothing to do): the fabric stayed
	// as it was from then to the end of the run, SimulatedUs. A sized
	// workload (an nccl sweep) ends long before a generous duration.
	// Absent for the flow-level model and in records made before labctl
	// recorded it.
	LastEventUs *float64    `json:"last_event_us,omitempty"`
	Flows       []Flow      `json:"flows"`
	Summary     Summary     `json:"summary"`
	Counters    []Counter   `json:"counters"`
	Assertions  []Assertion `json:"assertions"`
	// NotChecked are the scenario's assertions that do not apply to this
	// variant (a when guard that is false, a comparison with the previous
	// point of a sweep's first), so that reports can list every
	// assertion on every variant (JUnit's skipped cases) and a reader
	// sees why one is missing from Assertions.
	NotChecked []NotChecked `json:"assertions_not_checked,omitempty"`
	Series     []TimeSeries `json:"series,omitempty"`
	// SeriesEndUs, when set, is where the time series stop before the
	// end of the run (SimulatedUs): nothing in the fabric could change
	// from their last sample on (the sized flows done or failed, nothing
	// left to happen but idle PFC watchdog polls; a pause that outlasts
	// the run stays on), so every later sample would repeat it, and the
	// record leaves them out. The 72 ms nccl sweep of a 1 s run on 64gpu
	// repeated its last sample for 26 of its record's 28 MB.
	SeriesEndUs float64 `json:"series_end_us,omitempty"`
	// Timeline lists the variant's faults, routing changes and PFC
	// watchdog actions in time order.
	Timeline []Mark `json:"timeline,omitempty"`
	// Extra holds variant-specific results of a scenario (for example the
	// per-phase outcome of a collective) keyed by name.
	Extra map[string]any `json:"extra,omitempty"`
	// NCCL is the nccl-tests table of an nccl scenario's variant (or of
	// a record parsed from a real cluster's nccl-tests output).
	NCCL *NCCLTable `json:"nccl,omitempty"`
	// NIC is the NIC settings the variant's traffic ran with (simulated:
	// soft-RoCE on a live lab has no DCQCN).
	NIC *NIC `json:"nic,omitempty"`
	// Transport is the transport the variant ran, with its resolved
	// settings, when it is not RoCE (InfiniBand: the subnet manager's
	// routing and the links' credits; UET: spraying, trimming, NSCC).
	Transport *transport.Settings `json:"transport,omitempty"`
	// InfiniBand are the ports' perfquery counters of an InfiniBand
	// variant (absent for other transports).
	InfiniBand []IBPortCounters `json:"infiniband_ports,omitempty"`
	// Configs, for a scenario that sweeps QoS values, is where the
	// variant's switch configs were written and how they differ from the
	// lab's.
	Configs *VariantConfigs `json:"configs,omitempty"`
	// Error is set when the variant could not run to completion.
	Error string `json:"error,omitempty"`
	// Simulated, on a live-lab run, is the same variant simulated with the
	// configs read back from the switches: virtual switch data planes
	// neither pause nor mark, so the congestion figures come from here.
	Simulated *SimulatedPart `json:"simulated,omitempty"`
	// Cost is what running the variant cost on this machine (measured:
	// not part of what a seed reproduces; see Cost).
	Cost *Cost `json:"cost,omitempty"`
}

// VariantConfigs is a variant's switch configs in the run folder.
type VariantConfigs struct {
	// Dir is the folder, relative to the run folder:
	// "configs/ecn-on_pfc-on_qos.ecn.kmin_kb-200".
	Dir string `json:"dir,omitempty"`
	// Changes are the QoS differences from the lab's configs, each change
	// made on several ports counted once.
	Changes []ConfigChange `json:"changes"`
	// NotInFiles are the changes the simulator ran that the files in Dir
	// cannot carry, "<switch> <ports> <field> -> <value>": the NOS's
	// config has no statement for them (EOS configures no buffer pools).
	// Absent when the files carry every change.
	NotInFiles []string `json:"not_in_files,omitempty"`
}

// ConfigChange is one QoS field changed from the lab's configs.
type ConfigChange struct {
	// Field is labctl config diff's field, ports as "*":
	// "port.*.queue.3.ecn".
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
	// Count is how many ports (or devices, for a device's field) changed.
	Count   int      `json:"count"`
	Devices []string `json:"devices"`
}

// NIC is the NIC settings of a variant: the DCQCN preset the parameters
// start from ("off" when the variant has no ECN, so no CNP ever comes),
// and every parameter in the NIC's own names.
type NIC struct {
	DCQCN  string      `json:"dcqcn"`
	Params []nic.Param `json:"params"`
}

// SimulatedPart is the simulated counterpart of a measured variant. Every
// number in it has source "simulated".
type SimulatedPart struct {
	// ConfigSource says which configs the simulation used, e.g.
	// "read back from the switches".
	ConfigSource string    `json:"config_source"`
	SimulatedUs  float64   `json:"simulated_us,omitempty"`
	Flows        []Flow    `json:"flows"`
	Summary      Summary   `json:"summary"`
	Counters     []Counter `json:"counters"`
	// Extra is the simulation's scenario extras, such as extra.faults
	// (what the link failures and PFC watchdogs did), which a live lab
	// does not count: a live variant's assertions read them here, as they
	// read its congestion figures from Summary.
	Extra map[string]any `json:"extra,omitempty"`
	// Error is set when the simulation failed; the measured part stands.
	Error string `json:"error,omitempty"`
	// Cost is what the simulation cost (Variant.Cost is the live part's).
	Cost *Cost `json:"cost,omitempty"`
}

// Flow is one QP's result.
type Flow struct {
	ID      string `json:"id"`
	Src     string `json:"src"`
	Dst     string `json:"dst"`
	Pattern string `json:"pattern"`
	Role    string `json:"role,omitempty"` // e.g. "incast", "victim"
	// Bytes the flow delivered. It is null where nothing counted them:
	// the flow-level model gives long-lived flows a steady rate, not a
	// byte count.
	Bytes          *int64   `json:"bytes"`
	ThroughputGbps float64  `json:"throughput_gbps"`
	LatencyUs      *Latency `json:"latency_us"`
	FCTUs          *float64 `json:"fct_us"`
	// Retransmits counts the data packets the flow's QPs sent again. It
	// is null where nothing counted them per flow: the flow-level model
	// has no packets, and a live lab's NICs count retransmissions per
	// port (summary.retransmits), not per QP. Absent, never a 0 that an
	// assertion or a regression could pass on.
	Retransmits *int64   `json:"retransmits"`
	Path        []string `json:"path,omitempty"`
	// Route is the egress port of each switch on Path ("node:port"),
	// as the flow hash picks them (`labctl trace` shows the same). A flow
	// of several QPs: its first QP's; QPRoutes holds the others', each
	// QP its own UDP source port and so its own hash.
	Route    []string   `json:"route,omitempty"`
	QPRoutes [][]string `json:"qp_routes,omitempty"`
	// PathAfterFaults and RouteAfterFaults are where the flow's data
	// packets go at the end of the run when link faults changed its
	// routes (absent when they did not); UnreachableAfterFaults when the
	// routes it ends with reach no further than the last switch listed.
	PathAfterFaults        []string `json:"path_after_faults,omitempty"`
	RouteAfterFaults       []string `json:"route_after_faults,omitempty"`
	UnreachableAfterFaults bool     `json:"unreachable_after_faults,omitempty"`
	// State is FlowFailed when the flow failed: a QP of it ran out of
	// retries in the simulator, or its perftest client failed on a live
	// lab; Reason says why and when. Empty when it ran to the end or
	// completed. A failed flow's figures are what it did before failing.
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
	Source Source `json:"source"`
}

// Model is what produced the variant's figures: ModelPacket or ModelFlow
// (the simulator's model; records made before the summary kept it were
// packet-level) or ModelLive (measured on a live lab). Reports label
// figures by it and assertions read it as their model name.
func (v *Variant) Model() string {
	switch {
	case v.Summary.Source == Measured:
		return ModelLive
	case v.Summary.Model == "":
		return ModelPacket
	}
	return v.Summary.Model
}

// Origin is how the variant's summary figures were obtained: Origin of
// its summary's source under its Model.
func (v *Variant) Origin() Source { return Origin(v.Summary.Source, v.Model()) }

// SourceLabel names where the variant's summary figures came from:
// SourceLabel of its summary's source under its Model.
func (v *Variant) SourceLabel() string { return SourceLabel(v.Summary.Source, v.Model()) }

// Label names the variant where a run's variants are listed: its name,
// and after the first repetition of a point the repetition ("ecn=on,pfc=on
// #2"), so that the rows of a run with repetitions can be told apart.
func (v *Variant) Label() string { return VariantLabel(v.Name, v.Repetition) }

// VariantLabel is the label of repetition rep (from 0) of the variant
// named name: the name, and after the first repetition "#<rep+1>".
func VariantLabel(name string, rep int) string {
	if rep > 0 {
		return fmt.Sprintf("%s #%d", name, rep+1)
	}
	return name
}

// NotRun are the planned variants the record lacks (a run interrupted,
// abandoned or still running), in run order, said in words: "" when it
// has them all or does not know them (a record made before it kept
// PlannedVariants).
func (r *Run) NotRun() string {
	have := map[string]bool{}
	for i := range r.Variants {
		have[r.Variants[i].Label()] = true
	}
	var missing []string
	for _, l := range r.PlannedVariants {
		if !have[l] {
			missing = append(missing, l)
		}
	}
	const shown = 8
	switch {
	case len(missing) > shown:
		return fmt.Sprintf("%s and %d more", strings.Join(missing[:shown], ", "), len(missing)-shown)
	default:
		return strings.Join(missing, ", ")
	}
}

// MarkNotComputed adds the fields to NotComputed, each once.
func (s *Summary) MarkNotComputed(fields ...string) {
	for _, f := range fields {
		if !slices.Contains(s.NotComputed, f) {
			s.NotComputed = append(s.NotComputed, f)
		}
	}
}

// LatencyOnlyNotComputed are the summary fields of a variant whose flows
// are all latency flows: ib_write_lat measures no bandwidth.
var LatencyOnlyNotComputed = []string{"throughput_gbps_total", "throughput_gbps_min_flow", "jain_fairness"}

// NotComputedReason says why field, one of the NotComputed fields of the
// variant's summary, is absent: as Summary.NotComputedReason says, but
// knowing the variant's traffic. A variant whose traffic is an nccl
// collective alone has no flows whose throughput the summary could sum,
// which its summary lists as a latency-only variant's does; and a record
// of nccl-tests output holds its table alone. Regress and assertions give
// it as the reason a figure of the variant's summary is missing.
func (v *Variant) NotComputedReason(field string) string {
	s := &v.Summary
	switch {
	case NCCLOnly(v):
		return "not measured: the record holds nccl-tests output, its table alone (nccl-tests measures no flows, summary or ports)"
	case v.Transport != nil && TransportLacks(v.Transport.Name)[field] != "":
		return TransportLacks(v.Transport.Name)[field]
	case v.NCCL != nil && s.Model != ModelFlow && slices.Contains(s.NotComputed, "throughput_gbps_total") && slices.Contains(LatencyOnlyNotComputed, field):
		return "not computed: the variant's traffic is an nccl collective alone, whose figures are its nccl-tests table (busbw per size; nccl.* in assertions), not flows' throughput"
	}
	return s.NotComputedReason(field)
}

// NotComputedReason says why field, one of the summary's NotComputed
// fields, is absent: the model does not compute it, the variant's flows are
// latency ping-pongs (which measure no bandwidth), a live lab does not
// produce it, or nothing was delivered to measure. It knows the summary
// alone: of a variant's own summary, Variant.NotComputedReason says why
// knowing its traffic (an nccl collective's summary lists its throughput
// as a latency-only variant's does).
func (s *Summary) NotComputedReason(field string) string {
	// Only a variant of latency flows has no total throughput.
	latencyOnly := slices.Contains(s.NotComputed, "throughput_gbps_total")
	switch {
	case s.Model == ModelFlow:
		return "not computed by the " + FlowModelCaveat
	case latencyOnly && slices.Contains(LatencyOnlyNotComputed, field):
		return "not measured: the variant's flows are latency ping-pongs, and ib_write_lat measures no bandwidth"
	case s.Source == Measured:
		return "not measured on a live lab (its virtual switches and soft-RoCE NICs do not produce it)"
	case field == "jain_fairness":
		return "not computed: no flow delivered anything in the measurement window, and rates that are all 0 have no fairness"
	case field == "latency_us_p99":
		return "not computed: no packet was delivered in the measurement window, so none has a latency"
	}
	return "not computed for this variant"
}

// PatternLatency is the pattern of a latency flow, an ib_write_lat
// ping-pong: it has a latency distribution (LatencyUs) and no
// throughput, which ib_write_lat does not measure (its ThroughputGbps is
// not a figure: HasThroughput says so).
const PatternLatency = "latency"

// HasThroughput says whether the flow's ThroughputGbps is a figure: every
// flow's but a latency flow's.
func (f Flow) HasThroughput() bool { return f.Pattern != PatternLatency }

// FlowFailed is the State of a failed flow.
const FlowFailed = "failed"

// CountFailed counts the flows whose State is FlowFailed
// (Summary.FailedFlows).
func CountFailed(flows []Flow) int64 {
	n := int64(0)
	for i := range flows {
		if flows[i].State == FlowFailed {
			n++
		}
	}
	return n
}

// Latency percentiles in microseconds. A latency flow (an ib_write_lat
// ping-pong) has the whole distribution ib_write_lat prints, one way (half
// a round trip): P50 is its t_typical (the median), Min, Avg, Stdev and
// P999 its t_min, t_avg, t_stdev and 99.9% percentile, Iterations its -n;
// the other flows' latency (one-way packet delay) has none of those.
type Latency struct {
	P50        float64  `json:"p50"`
	P99        float64  `json:"p99"`
	Max        float64  `json:"max,omitempty"`
	Min        *float64 `json:"min,omitempty"`
	Avg        *float64 `json:"avg,omitempty"`
	Stdev      *float64 `json:"stdev,omitempty"`
	P999       *float64 `json:"p99_9,omitempty"`
	Iterations int64    `json:"iterations,omitempty"`
}

// Summary aggregates a variant.
type Summary struct {
	ThroughputGbpsTotal   float64 `json:"throughput_gbps_total"`
	ThroughputGbpsMinFlow float64 `json:"throughput_gbps_min_flow"`
	JainFairness          float64 `json:"jain_fairness"`
	Drops                 int64   `json:"drops"`
	PFCPauseFrames        int64   `json:"pfc_pause_frames"`
	PFCPauseUs            float64 `json:"pfc_pause_us"`
	ECNMarked             int64   `json:"ecn_marked"`
	CNP                   int64   `json:"cnp"`
	Retransmits           int64   `json:"retransmits"`
	LatencyUsP99          float64 `json:"latency_us_p99"`
	// FailedFlows counts the flows that failed (Flow.State, CountFailed).
	FailedFlows int64 `json:"failed_flows"`
	// CompletionUs is the time from the first flow's start to the last
	// flow's completion, GoodputGbpsAggregate all their bytes over it
	// (bits/ns): the figures of a fixed-size transfer such as an incast
	// of N messages. Both are absent unless every flow has a size and
	// completed.
	CompletionUs         *float64 `json:"completion_us,omitempty"`
	GoodputGbpsAggregate *float64 `json:"goodput_gbps_aggregate,omitempty"`
	// UET is the Ultra Ethernet transport's figures, absent for other
	// transports.
	UET    *UETSummary `json:"uet,omitempty"`
	Source Source      `json:"source"`
	// Model is "packet" or "flow" for simulated figures (see Run.Model).
	Model string `json:"model,omitempty"`
	// NotComputed names the fields above (by JSON name) that the model
	// behind this variant does not produce, such as drops in a flow-level
	// estimate: their zeros are not results and reports show them as n/a.
	NotComputed []string `json:"not_computed,omitempty"`

	// absent names the compared metrics (Metrics) a decoded record left
	// out or gave as null: labctl writes every one, so a record without
	// one was edited or damaged (CheckComparable), and its zero is no
	// figure.
	absent []string
}

// MarshalJSON writes a summary as encoding/json would, in field order,
// but leaves out the figures its model does not compute (NotComputed): a
// metric a model does not compute is absent from the record, never a 0
// that an assertion or a chart could read.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary // without this method
	if len(s.NotComputed) == 0 {
		return json.Marshal(plain(s))
	}
	v := reflect.ValueOf(plain(s))
	t := v.Type()
	b := []byte{'{'}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || slices.Contains(s.NotComputed, name) ||
			strings.Contains(opts, "omitempty") && v.Field(i).IsZero() {
			continue
		}
		val, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			return nil, err
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, name)
		b = append(b, ':')
		b = append(b, val...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON decodes a summary and notes the compared metrics it
// lacks (absent), which decoding alone would leave as zeros.
func (s *Summary) UnmarshalJSON(b []byte) error {
	type plain Summary // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = Summary(p)
	for _, m := range Metrics {
		if v, ok := raw[m.Name]; !ok || string(v) == "null" {
			s.absent = append(s.absent, m.Name)
		}
	}
	return nil
}

// Counter is one switch port and priority's counters.
type Counter struct {
	Node      string `json:"node"`
	Port      string `json:"port"`
	Priority  int    `json:"priority"`
	TxBytes   int64  `json:"tx_bytes"`
	PFCTx     int64  `json:"pfc_tx"`
	PFCRx     int64  `json:"pfc_rx"`
	ECNMarked int64  `json:"ecn_marked"`
	Drops     int64  `json:"drops"`
	// IngressDrops and EgressDrops split Drops where the simulator knows
	// it: refused by the port's ingress priority group, or by its egress
	// queue.
	IngressDrops int64 `json:"ingress_drops,omitempty"`
	EgressDrops  int64 `json:"egress_drops,omitempty"`
	// LinkDrops were lost to a link going down; RouteDrops arrived at a
	// switch with no route to their destination (after failures, until
	// routing converges); LoopDrops died of TTL expiry in a routing loop;
	// WatchdogDrops dropped by the port's PFC watchdog, whose storm
	// declarations and restorations WatchdogStorms and WatchdogRestores
	// count; MTUDrops were over the MTU of the port they arrived on or
	// would have left by.
	LinkDrops        int64 `json:"link_drops,omitempty"`
	RouteDrops       int64 `json:"route_drops,omitempty"`
	LoopDrops        int64 `json:"loop_drops,omitempty"`
	MTUDrops         int64 `json:"mtu_drops,omitempty"`
	WatchdogDrops    int64 `json:"watchdog_drops,omitempty"`
	WatchdogStorms   int64 `json:"watchdog_storms,omitempty"`
	WatchdogRestores int64 `json:"watchdog_restores,omitempty"`
	// QueueP50Bytes and QueueP99Bytes are percentiles of the egress queue
	// depth each packet the port's queue for this priority admitted found
	// ahead of it (arrival-weighted, as a packet's queueing delay is; the
	// lower edge of a 1/8-octave bucket, so at most 12.5% below, and a
	// depth under 4 KiB reads as 0); QueueMaxBytes is the queue's peak
	// depth. The simulator computes them for switch ports. They are
	// absent, never 0, where nothing computed them: NIC ports, counters
	// read from live switches, records made before they were kept.
	QueueP50Bytes *int64 `json:"queue_p50_bytes,omitempty"`
	QueueP99Bytes *int64 `json:"queue_p99_bytes,omitempty"`
	QueueMaxBytes *int64 `json:"queue_max_bytes,omitempty"`
	// Trimmed counts the UET data packets trimmed to their header on
	// their way to this queue; absent for other transports.
	Trimmed *int64 `json:"trimmed,omitempty"`
	Source  Source `json:"source"`
}

// Mark is a moment of a variant: a fault, a routing change, a watchdog
// action.
type Mark struct {
	TimeUs float64 `json:"t_us"`
	Kind   string  `json:"kind"`
	Where  string  `json:"where"`
	Detail string  `json:"detail,omitempty"`
	Source Source  `json:"source"`
}

// Assertion is the outcome of one scenario assertion on one variant.
type Assertion struct {
	Name   string `json:"name"`
	Expr   string `json:"expr,omitempty"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// NotChecked is an assertion that does not apply to a variant, and why.
type NotChecked struct {
	Name   string `json:"name"`
	Expr   string `json:"expr,omitempty"`
	Reason string `json:"reason"`
}

// TimeSeries is one sampled quantity over simulated time, for plots.
//
// The kinds of a switch port, per priority (Priority set, with the
// priority's egress Queue and ingress PG): queue_bytes, the depth of the
// egress queue the priority leaves by (left out where it stayed empty
// beside a PG that filled); pg_bytes, the use of the ingress priority
// group it fills, and xoff_bytes the use at which that lossless PG sends
// XOFF at each moment (it moves with the pool's free space under a
// dynamic threshold); paused, 1 while
// a PFC pause the port received stops the priority's queue; pause_sent, 1
// while the port pauses its peer (its PG in XOFF). Records made before
// kept queue_bytes and paused per port (summed over priorities, Priority
// unset). goodput_gbps and rate_gbps are of flows.
type TimeSeries struct {
	Name     string `json:"name"` // e.g. "queue_bytes leaf1:Ethernet0 prio 3"
	Kind     string `json:"kind"` // queue_bytes | pg_bytes | xoff_bytes | paused | pause_sent | goodput_gbps | rate_gbps
	Node     string `json:"node,omitempty"`
	Port     string `json:"port,omitempty"`
	Flow     string `json:"flow,omitempty"`
	Priority *int   `json:"priority,omitempty"`
	Queue    *int   `json:"queue,omitempty"`
	PG       *int   `json:"pg,omitempty"`
	// Thresholds are levels of the series' quantity the simulated
	// configs set for it: ECN's Kmin and Kmax for a queue that marks.
	Thresholds []Threshold `json:"thresholds,omitempty"`
	Unit       string      `json:"unit"`
	TimeUs     []float64   `json:"t_us"`
	Values     []float64   `json:"values"`
	Source     Source      `json:"source"`
}

// Threshold is a named level of a time series, in the series' unit.
type Threshold struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Series kinds of switch ports (see TimeSeries).
const (
	SeriesQueueBytes = "queue_bytes"
	SeriesPGBytes    = "pg_bytes"
	SeriesXOFFBytes  = "xoff_bytes"
	SeriesPaused     = "paused"
	SeriesPauseSent  = "pause_sent"
)

// ScenarioArg is how 'labctl run' names the run's scenario: its file's
// path, or the catalog name.
func (r *Run) ScenarioArg() string {
	if r.ScenarioFile != "" {
		return r.ScenarioFile
	}
	return r.Scenario
}
