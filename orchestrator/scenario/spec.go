// Package scenario reads scenario specs (what to measure on a lab), expands
// them into variants and flows, runs them on a runtime and checks their
// assertions. The catalog is embedded from scenarios/*.yaml; a user file is
// given by path.
package scenario

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/naming"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/readlimit"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
	"github.com/labctl/labctl/orchestrator/transport"
	"github.com/labctl/labctl/scenarios"
)

// Spec is one scenario file.
type Spec struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Matrix lists the values of each dimension; variants are their cross
	// product. Missing dimensions default to [on, off].
	Matrix Matrix `yaml:"matrix"`
	// Duration is how long traffic runs (simulated time on the sim
	// runtime), e.g. "5ms".
	Duration string `yaml:"duration"`
	// Warmup starts the goodput window of long-lived flows, so rates are
	// measured once converged, e.g. "1ms".
	Warmup string `yaml:"warmup"`
	// SampleEvery is the time-series sampling interval ("10us"); "0"
	// disables series.
	SampleEvery string `yaml:"sample_every"`
	// DCQCN names the NICs' DCQCN preset: connectx (the NIC's defaults)
	// or paper; it is shorthand for nic.dcqcn.preset. Empty keeps the
	// lab's.
	DCQCN string `yaml:"dcqcn"`
	// NIC overrides the lab's nic section field by field (DCQCN
	// parameters by the NIC's names, qp_timeout, retry_cnt).
	NIC nic.Spec `yaml:"nic"`
	// Transport overrides the lab's transport (roce, infiniband, uet);
	// InfiniBand and UET override the lab's sections of those transports
	// key by key (package transport).
	Transport  string            `yaml:"transport"`
	InfiniBand transport.IBSpec  `yaml:"infiniband"`
	UET        transport.UETSpec `yaml:"uet"`
	// Model is the simulator's model: packet (default: every packet) or
	// flow (a fast estimate of steady rates and ring AllReduce times,
	// without queues, PFC, ECN or DCQCN). labctl run --model overrides it.
	Model string `yaml:"model"`
	// Repetitions runs every variant this many times with seeds seed,
	// seed+1, ...
	Repetitions int       `yaml:"repetitions"`
	Traffic     []Traffic `yaml:"traffic"`
	// Faults are link failures and PFC storms during the run; LB the
	// switches' load balancing (see faults.go).
	Faults     []Fault      `yaml:"faults"`
	LB         *LB          `yaml:"lb"`
	Assertions []AssertSpec `yaml:"assertions"`
	// Regress is how labctl regress judges runs of this scenario.
	Regress RegressSpec `yaml:"regress"`

	// Set by Parse.
	Source        string  `yaml:"-"` // "catalog:<name>" or the file path
	DurationUs    float64 `yaml:"-"`
	WarmupUs      float64 `yaml:"-"`
	SampleEveryUs float64 `yaml:"-"`
	// sampleEveryDefault: the file gives no sample_every, and SampleEvery
	// holds the default, which a point of the matrix checked again
	// (pointSpec) must not take for the file's.
	sampleEveryDefault bool
	exprs              []*Expr
	faults             []runtime.FaultSpec
	lb                 runtime.LBSpec
	// file is the file Parse read and src its text (errors found once
	// the runtime is known point into it); rawTraffic the traffic as
	// written, before defaults, which a swept point's traffic starts from.
	file       string
	src        []byte
	rawTraffic []Traffic
	// graph is the lab's fabric, set by CheckLab: expansion finds the
	// links faults name by their path (on_path) on it.
	graph *fabric.Graph
	// down are the lab's links down from the start of a run (SetDown),
	// which on_path's flow does not take.
	down []fabric.LinkMember
}

// Matrix holds the on/off values of ECN and PFC to run, and the swept
// parameters (sweep.go): any other key is a parameter's path.
type Matrix struct {
	ECN []string `yaml:"ecn"`
	PFC []string `yaml:"pfc"`
	// Sweeps are the other dimensions, in the file's order.
	Sweeps []Sweep `yaml:"-"`
	// Exclude lists combinations the matrix leaves out, as GitHub
	// Actions' matrix exclude does: a variant is not run when it has
	// every dimension value of one entry ({transport: infiniband, pfc:
	// off}). Values are canonical (on/off, sweep values as variant names
	// show them).
	Exclude []map[string]string `yaml:"-"`

	exclude *matrixEntry

	entries []matrixEntry
	problem *specyaml.Error
}

// Traffic is one traffic pattern, perftest-like.
type Traffic struct {
	// Pattern is pairs, permutation, incast, all-to-all, ring-allreduce,
	// latency or nccl.
	Pattern string `yaml:"pattern"`
	// Pairs is the number of sender/receiver pairs (pairs, latency;
	// default 1).
	Pairs int `yaml:"pairs"`
	// Senders is N of an N:1 incast (default 8).
	Senders int `yaml:"senders"`
	// Victim adds, to an incast, a flow from the first incast sender's NIC
	// to a NIC outside the incast: it shares the links PFC pauses but not
	// the congested egress port.
	Victim bool `yaml:"victim"`
	// Ranks is the number of NICs taking part (permutation, all-to-all,
	// ring-allreduce; default all NICs, at most 64 for all-to-all).
	Ranks int `yaml:"ranks"`
	// RankPer is what one rank of a ring-allreduce stands for: "nic"
	// (default: every NIC is a rank, in fabric order) or "server" (one rank
	// per server on its first NIC: a ring over nodes, as the seed's
	// exercise 3 models it).
	RankPer string `yaml:"rank_per"`
	// CrossLeaf places endpoints on different leaves, so traffic crosses
	// the spines (default true when the lab has more than one leaf).
	CrossLeaf *bool `yaml:"cross_leaf"`
	// Bytes per flow ("64MiB"); empty runs flows for the whole duration.
	// For ring-allreduce it is the buffer each rank reduces (default 64MiB).
	Bytes string `yaml:"bytes"`
	// MessageSize is perftest's -s (default 64KiB, 2 bytes for latency, as
	// perftest's).
	MessageSize string `yaml:"message_size"`
	// QPs is perftest's -q: queue pairs per flow (default 1).
	QPs int `yaml:"qps"`
	// TxDepth is perftest's --tx-depth: the messages a QP keeps posted
	// and not completed (default 128, perftest's).
	TxDepth int `yaml:"tx_depth"`
	// Bidirectional is perftest's -b: every flow's QPs run both ways.
	Bidirectional bool `yaml:"bidirectional"`
	// Iterations is latency's -n: the writes each side of an ib_write_lat
	// ping-pong posts (default 1000, perftest's).
	Iterations int `yaml:"iterations"`
	// TrafficClass is perftest's --tclass, the IP TOS byte (default 106:
	// DSCP 26 with ECT(0)).
	TrafficClass *int `yaml:"traffic_class"`
	// Start delays the pattern's flows ("100us").
	Start string `yaml:"start"`
	// Case names the case of the scenario the entry belongs to: a variant
	// of case c runs the entries of c and those without a case (see
	// cases.go).
	Case string `yaml:"case"`
	// Role names the entry's flows in the record, the reports, assertions
	// (roles.<role>) and regress (role[<role>]); empty is the pattern's
	// name (roleOf). Entries of one role are figured together, so two
	// entries that differ in what matters, such as RoCE beside best-effort
	// traffic, need roles of their own to be told apart.
	Role string `yaml:"role"`

	// The nccl pattern's keys (nccl.go), as nccl-tests names them:
	// Collective is the test (all_reduce, all_gather, reduce_scatter,
	// alltoall, broadcast, sendrecv), Algorithm NCCL's (ring, tree),
	// Channels how many channels (0: one per NIC, two per NIC for a
	// tree), RankOrder how ranks sit on the servers (nccl, naive);
	// MinBytes, MaxBytes, StepFactor and StepBytes the sweep (-b, -e, -f,
	// -i), Root broadcast's root (-r), DataType the element type (-d).
	Collective string `yaml:"collective"`
	Algorithm  string `yaml:"algorithm"`
	Channels   int    `yaml:"channels"`
	RankOrder  string `yaml:"rank_order"`
	MinBytes   string `yaml:"min_bytes"`
	MaxBytes   string `yaml:"max_bytes"`
	StepFactor int    `yaml:"step_factor"`
	StepBytes  string `yaml:"step_bytes"`
	Root       *int   `yaml:"root"`
	DataType   string `yaml:"datatype"`
	// QPsPerConnection is NCCL_IB_QPS_PER_CONNECTION.
	QPsPerConnection int `yaml:"qps_per_connection"`

	// Set by Parse.
	BytesN       int64   `yaml:"-"`
	MessageBytes int     `yaml:"-"`
	StartUs      float64 `yaml:"-"`
	// MinBytesN, MaxBytesN and Sizes are an nccl entry's sweep.
	MinBytesN, MaxBytesN int64   `yaml:"-"`
	Sizes                []int64 `yaml:"-"`
}

// AssertSpec is one assertion: an expression over the variant's record.
type AssertSpec struct {
	Name string `yaml:"name"`
	Expr string `yaml:"expr"`
}

// Patterns a scenario may use.
var Patterns = []string{"pairs", "permutation", "incast", "all-to-all", "ring-allreduce", runtime.PatternLatency, PatternNCCL}

// roleRule says what a traffic entry's role may be (validRole). Unlike a
// scenario's or a case's name it starts with a letter: assertions name
// it in roles.<role>, where a leading digit would read as a number.
var roleRule = fmt.Sprintf("lower-case letters, digits and dashes, starting with a letter, at most %d characters", naming.MaxLen)

func validRole(r string) bool {
	return naming.Valid(r, naming.MaxLen) && r[0] >= 'a' && r[0] <= 'z'
}

// bandwidthPatterns are the patterns that run as perftest ib_write_bw
// flows (the others are collectives and a ping-pong).
var bandwidthPatterns = []string{"pairs", "permutation", "incast", "all-to-all"}

// ValidName reports whether s may name a scenario or a scenario's case
// (naming.Valid, at most naming.MaxLen bytes): it becomes part of run ids
// and folder names.
func ValidName(s string) bool { return naming.Valid(s, naming.MaxLen) }

// Defaults.
const (
	DefaultDuration     = "5ms"
	DefaultSampleEvery  = "10us"
	DefaultMessageSize  = perftest.DefaultSizeBW
	DefaultTrafficClass = 106
	DefaultIncastN      = 8
	DefaultAllReduce    = 64 << 20
	MaxAllToAllRanks    = 64
	// MaxPairFlows is the most QPs a pattern lists one by one; an
	// all-to-all of more runs as one collective reported per rank.
	MaxPairFlows = 8192
	// MaxTraffic and MaxAssertions bound a scenario's lists, so a
	// generated or garbled file cannot ask for millions of flows.
	MaxTraffic    = 64
	MaxAssertions = 256
)

// specCatalog is the embedded scenario catalog; a user's file is named by
// path.
func specCatalog() specyaml.Catalog {
	return specyaml.Catalog{FS: scenarios.FS, Dir: "scenarios", Kind: "scenario", Label: "scenario", FileNoun: "scenario file"}
}

// Resolve finds a scenario by catalog name or by the path of a file.
func Resolve(nameOrPath string) (*Spec, error) {
	doc, err := specCatalog().Resolve(nameOrPath)
	if err != nil {
		return nil, err
	}
	s, err := Parse(doc.File, doc.Data)
	if err != nil {
		return nil, err
	}
	s.Source = doc.Source
	return s, nil
}

// Text is the scenario as Parse read it (its file's text, or the
// catalog's), which a run's record keeps so that a regression can say
// whether the scenario changed between two runs, not only the configs.
func (s *Spec) Text() string { return string(s.src) }

// CatalogNames lists the embedded scenarios.
func CatalogNames() []string { return specCatalog().Names() }

// Parse decodes and validates a scenario read from file. Errors name
// file:line:col, the problem and the fix, and exit 2.
func Parse(file string, data []byte) (*Spec, error) {
	var s Spec
	if err := decode(file, data, &s); err != nil {
		return nil, err
	}
	at := func(path, msg, fix string) error { return specyaml.At(file, data, path, msg, fix) }
	if len(s.Traffic) > MaxTraffic {
		return nil, at(fmt.Sprintf("$.traffic[%d]", MaxTraffic), fmt.Sprintf("the scenario has %d traffic patterns, more than the %d labctl runs at once", len(s.Traffic), MaxTraffic), "split it into several scenarios")
	}
	if len(s.Assertions) > MaxAssertions {
		return nil, at(fmt.Sprintf("$.assertions[%d]", MaxAssertions), fmt.Sprintf("the scenario has %d assertions, more than the %d labctl checks", len(s.Assertions), MaxAssertions), "split it into several scenarios")
	}
	if err := explicitZeros(file, data, &s); err != nil {
		return nil, err
	}
	s.file, s.src = file, data
	switch {
	case s.Name == "":
		// At name: "" where the file has the key, else at the top.
		return nil, specyaml.AtFirst(file, data, "the scenario has no name", "add name: <scenario-name>", "$.name", "$")
	case !ValidName(s.Name):
		return nil, at("$.name", fmt.Sprintf("scenario name %q is not allowed", s.Name), "use "+naming.Rule(naming.MaxLen))
	}
	if err := s.readMatrix(file); err != nil {
		return nil, err
	}
	for _, dim := range []struct {
		name string
		vals *[]string
	}{{"ecn", &s.Matrix.ECN}, {"pfc", &s.Matrix.PFC}} {
		if len(*dim.vals) == 0 {
			*dim.vals = []string{"on", "off"}
		}
		seen := map[bool]bool{}
		for i, v := range *dim.vals {
			b, ok := parseOnOff(v)
			if !ok {
				return nil, at(fmt.Sprintf("$.matrix.%s[%d]", dim.name, i), fmt.Sprintf("%s value %q is not on or off", dim.name, v), "use on or off")
			}
			if seen[b] {
				return nil, at(fmt.Sprintf("$.matrix.%s[%d]", dim.name, i), fmt.Sprintf("%s value %q is listed twice", dim.name, v), "list each of on and off at most once")
			}
			seen[b] = true
		}
	}
	if err := s.readExclude(file); err != nil {
		return nil, err
	}
	if err := checkTiming(&s, at); err != nil {
		return nil, err
	}
	if err := s.Regress.check(file, data); err != nil {
		return nil, err
	}
	if s.DCQCN != "" {
		_, canon, err := nic.Preset(s.DCQCN, 100)
		if err != nil {
			return nil, at("$.dcqcn", fmt.Sprintf("unknown dcqcn preset %q", s.DCQCN), "use "+strings.Join(nic.Presets(), " or "))
		}
		if d := s.NIC.DCQCN; d != nil && d.Preset != "" && d.Preset != s.DCQCN {
			return nil, at("$.dcqcn", fmt.Sprintf("dcqcn %s and nic.dcqcn.preset %s disagree", s.DCQCN, d.Preset), "keep one of them")
		}
		if s.NIC.DCQCN == nil {
			s.NIC.DCQCN = &nic.DCQCNSpec{}
		}
		s.NIC.DCQCN.Preset = canon
	}
	// Ranges do not depend on the lab: check them now, where the error
	// can point at the line.
	if _, err := nic.Resolve(100, 48, &s.NIC); err != nil {
		var fe *nic.FieldError
		if errors.As(err, &fe) {
			return nil, at("$.nic."+fe.Field, "nic."+fe.Field+": "+fe.Msg, fe.Fix)
		}
		return nil, at("$.nic", err.Error(), "")
	}
	if _, err := transport.Resolve(s.Transport, []*transport.IBSpec{&s.InfiniBand}, []*transport.UETSpec{&s.UET}); err != nil {
		return nil, lab.TransportError(err, at)
	}
	switch s.Model {
	case "":
	case runtime.ModelPacket, runtime.ModelFlow:
	default:
		return nil, at("$.model", fmt.Sprintf("unknown model %q", s.Model), "use packet (every packet simulated) or flow (a steady-state estimate)")
	}
	if s.Repetitions == 0 {
		s.Repetitions = 1
	}
	if s.Repetitions < 1 || s.Repetitions > MaxRepetitions {
		return nil, at("$.repetitions", fmt.Sprintf("repetitions %d is out of range", s.Repetitions), fmt.Sprintf("use 1 to %d", MaxRepetitions))
	}
	if len(s.Traffic) == 0 {
		return nil, specyaml.AtFirst(file, data, "the scenario has no traffic", "add a traffic list, e.g. traffic: [{pattern: incast, senders: 8}]", "$.traffic", "$")
	}
	s.rawTraffic = slices.Clone(s.Traffic)
	for i := range s.Traffic {
		if err := validateTraffic(&s.Traffic[i], s.DurationUs, func(field, msg, fix string) error {
			p := fmt.Sprintf("$.traffic[%d]", i)
			if field != "" {
				p += "." + field
			}
			return at(p, msg, fix)
		}); err != nil {
			return nil, err
		}
	}
	if err := s.parseFaults(at); err != nil {
		return nil, err
	}
	if err := s.readCases(file, at); err != nil {
		return nil, err
	}
	if err := s.checkSweeps(file, at); err != nil {
		return nil, err
	}
	for i, a := range s.Assertions {
		p := fmt.Sprintf("$.assertions[%d].expr", i)
		if strings.TrimSpace(a.Expr) == "" {
			return nil, specyaml.AtFirst(file, data, "assertion has no expr", "add expr: e.g. summary.drops == 0 when pfc", p, fmt.Sprintf("$.assertions[%d]", i))
		}
		e, err := ParseExpr(a.Expr)
		if err != nil {
			return nil, at(p, fmt.Sprintf("assertion %q: %v", a.Expr, err), "see the assertion syntax in scenarios/README.md")
		}
		for _, id := range e.Idents() {
			if err := checkIdent(id, &s); err != nil {
				return nil, at(p, fmt.Sprintf("assertion %q: column %d: %v", a.Expr, id.Col, err), identFix)
			}
		}
		if err := s.checkKinds(e); err != nil {
			return nil, at(p, fmt.Sprintf("assertion %q: %v", a.Expr, err), "compare figures with numbers, ecn and pfc with true or false (or use them alone), and a swept text with a quoted text; see the assertion syntax in scenarios/README.md")
		}
		if a.Name == "" {
			s.Assertions[i].Name = a.Expr
		}
		// Reports, JUnit and regress tell assertions apart by name.
		for j := range i {
			if s.Assertions[j].Name == s.Assertions[i].Name {
				return nil, at(fmt.Sprintf("$.assertions[%d]", i), fmt.Sprintf("assertion %q is also assertions[%d]'s name", s.Assertions[i].Name, j), "give each assertion its own name (reports and regress tell them apart by it)")
			}
		}
		s.exprs = append(s.exprs, e)
	}
	return &s, nil
}

// checkTiming checks and converts the scenario's times: duration, warmup
// and sample_every. at places an error by the key's YAML path.
func checkTiming(s *Spec, at func(path, msg, fix string) error) error {
	var err error
	if s.Duration == "" {
		s.Duration = DefaultDuration
		// An nccl sweep runs until its last size completes.
		if slices.ContainsFunc(s.Traffic, func(t Traffic) bool { return t.Pattern == PatternNCCL }) {
			s.Duration = DefaultNCCLDuration
		}
	}
	if s.DurationUs, err = parseDurationUs(s.Duration); err != nil || s.DurationUs <= 0 {
		if errors.Is(err, errDurationOverflow) {
			return at("$.duration", fmt.Sprintf("duration %q is longer than a duration can be (about 2562047h)", s.Duration), "write a duration a run can take, such as 5ms or 1s")
		}
		return at("$.duration", fmt.Sprintf("duration %q is not a positive time", s.Duration), "write a Go duration such as 5ms or 500us")
	}
	s.WarmupUs = 0
	if s.Warmup != "" {
		if s.WarmupUs, err = parseDurationUs(s.Warmup); err != nil || s.WarmupUs < 0 || s.WarmupUs >= s.DurationUs {
			return at("$.warmup", fmt.Sprintf("warmup %q is not a time shorter than the duration %s", s.Warmup, s.Duration), "write a duration such as 1ms, shorter than duration")
		}
	}
	sampleEveryGiven := s.SampleEvery != "" && !s.sampleEveryDefault
	if s.SampleEvery == "" {
		s.SampleEvery = DefaultSampleEvery
		s.sampleEveryDefault = true
	}
	if s.SampleEveryUs, err = parseDurationUs(s.SampleEvery); err != nil || s.SampleEveryUs < 0 {
		return at("$.sample_every", fmt.Sprintf("sample_every %q is not a time", s.SampleEvery), "write a duration such as 10us, or 0 for no time series")
	}
	if sampleEveryGiven && s.SampleEveryUs > s.DurationUs {
		return at("$.sample_every", fmt.Sprintf("sample_every %s is longer than the duration %s, so the time series would hold no sample after the start", s.SampleEvery, s.Duration),
			fmt.Sprintf("sample every %s or less, or 0 for no time series", s.Duration))
	}
	if s.SampleEveryUs > 0 && s.DurationUs/s.SampleEveryUs > 100000 {
		if !sampleEveryGiven {
			// The default interval: the duration is what the file says.
			return at("$.duration", fmt.Sprintf("duration %s gives more than 100000 samples at the default sample_every %s", s.Duration, s.SampleEvery),
				fmt.Sprintf("shorten the duration to at most %s, or set sample_every (%s or more; 0 for no time series)",
					fmtDuration(time.Duration(s.SampleEveryUs*100000*1e3)), fmtDuration(time.Duration(s.DurationUs*1e3/100000).Round(time.Microsecond))))
		}
		return at("$.sample_every", fmt.Sprintf("sample_every %s gives more than 100000 samples over %s", s.SampleEvery, s.Duration), "sample less often")
	}
	return nil
}

// CheckRuntime says whether the runtime can run the scenario: the
// simulator has a range of simulated time (runtime.DurationBound), and a
// longer duration is an error at the duration key.
func (s *Spec) CheckRuntime(rt runtime.Runtime) error {
	b, ok := rt.(runtime.DurationBound)
	if !ok {
		return nil
	}
	if max := b.MaxDuration(); s.DurationUs*1e3 > float64(max) {
		return specyaml.At(s.file, s.src, "$.duration", fmt.Sprintf("duration %s is beyond the %s runtime's range of %s per variant", s.Duration, rt.Name(), fmtDuration(max)),
			fmt.Sprintf("use a duration of at most %s", fmtDuration(max)))
	}
	return nil
}

// decode is specyaml.Decode guarded against panics of the YAML library on
// malformed input (found by fuzzing, e.g. a tag on a sequence item):
// bad input must give an error, never a crash.
func decode(file string, data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = exitcode.Usage(&specyaml.Error{File: file, Msg: fmt.Sprintf("cannot read YAML: the parser failed (%v)", r), Fix: "check the indentation, tags (!!) and quoting of the file"})
		}
	}()
	err = specyaml.Decode(file, data, v)
	var se *specyaml.Error
	if errors.As(err, &se) {
		if fix, ok := labSpecKeys[strings.TrimPrefix(se.Msg, "unknown field ")]; ok {
			se.Fix = fix
		}
	}
	return err
}

// labSpecKeys are top-level keys of a lab spec that a scenario may not
// set, by their quoted name as the unknown-field error gives it, with
// where the setting goes instead.
var labSpecKeys = map[string]string{
	`"qos"`:    "a scenario changes the lab's switch QoS only by sweeping it: matrix: {qos.mtu: [2048]} (one value is a sweep of one); the lab's own QoS is its lab spec's qos section",
	`"sizing"`: "the fabric's size is the lab's: give sizing in a lab spec and bring it up (labctl up my-lab.yaml), then run the scenario on it",
}

func validateTraffic(t *Traffic, durationUs float64, at func(field, msg, fix string) error) error {
	if !slices.Contains(Patterns, t.Pattern) {
		return at("pattern", fmt.Sprintf("unknown pattern %q", t.Pattern), "use one of "+strings.Join(Patterns, ", "))
	}
	// A field that the pattern does not use is a mistake, not a no-op.
	only := func(field string, set bool, patterns ...string) error {
		if set && !slices.Contains(patterns, t.Pattern) {
			return at(field, fmt.Sprintf("%s does not apply to pattern %s", field, t.Pattern), fmt.Sprintf("remove it; it applies to %s", strings.Join(patterns, ", ")))
		}
		return nil
	}
	for _, err := range []error{
		only("pairs", t.Pairs != 0, "pairs", runtime.PatternLatency),
		only("senders", t.Senders != 0, "incast"),
		only("victim", t.Victim, "incast"),
		only("ranks", t.Ranks != 0, "permutation", "all-to-all", "ring-allreduce"),
		only("rank_per", t.RankPer != "", "ring-allreduce"),
		only("qps", t.QPs != 0, bandwidthPatterns...),
		only("message_size", t.MessageSize != "", append(slices.Clone(bandwidthPatterns), runtime.PatternLatency)...),
		only("bytes", t.Bytes != "", append(slices.Clone(bandwidthPatterns), "ring-allreduce")...),
		only("tx_depth", t.TxDepth != 0, bandwidthPatterns...),
		// all-to-all runs both ways between every pair already.
		only("bidirectional", t.Bidirectional, "pairs", "permutation", "incast"),
		only("iterations", t.Iterations != 0, runtime.PatternLatency),
		// A collective's ranks are reported as the collective (allreduce)
		// and nccl's figures are its table: neither has flows to name.
		only("role", t.Role != "", append(slices.Clone(bandwidthPatterns), runtime.PatternLatency)...),
	} {
		if err != nil {
			return err
		}
	}
	set := ncclKeySet(t)
	for _, k := range ncclKeys {
		if err := only(k, set[k], PatternNCCL); err != nil {
			return err
		}
	}
	switch {
	case t.Role != "" && !validRole(t.Role):
		return at("role", fmt.Sprintf("role %q is not a role name", t.Role), "use "+roleRule+", e.g. roce or best-effort")
	case t.Pairs < 0:
		return at("pairs", fmt.Sprintf("pairs %d is negative", t.Pairs), "use a positive count")
	case t.Senders < 0 || t.Senders == 1:
		return at("senders", fmt.Sprintf("senders %d makes no incast", t.Senders), "use 2 or more")
	case t.Ranks < 0 || t.Ranks == 1:
		return at("ranks", fmt.Sprintf("ranks %d is too few", t.Ranks), "use 2 or more, or leave it out for all NICs")
	case t.RankPer != "" && t.RankPer != "nic" && t.RankPer != "server":
		return at("rank_per", fmt.Sprintf("rank_per %q is not known", t.RankPer), "use nic (every NIC a rank) or server (one rank per server)")
	case t.QPs < 0 || t.QPs > 64:
		return at("qps", fmt.Sprintf("qps %d is out of range", t.QPs), "use 1 to 64")
	case t.TxDepth < 0 || t.TxDepth > perftest.MaxTxDepth:
		return at("tx_depth", fmt.Sprintf("tx_depth %d is out of perftest's range", t.TxDepth), fmt.Sprintf("use %d to %d (perftest --tx-depth)", perftest.MinTxDepth, perftest.MaxTxDepth))
	case t.Iterations < 0 || (t.Iterations > 0 && t.Iterations < perftest.MinIterations) || t.Iterations > perftest.MaxIterations:
		return at("iterations", fmt.Sprintf("iterations %d is out of perftest's range", t.Iterations), fmt.Sprintf("use %d to %d (ib_write_lat -n)", perftest.MinIterations, perftest.MaxIterations))
	}
	if (t.Pattern == "pairs" || t.Pattern == runtime.PatternLatency) && t.Pairs == 0 {
		t.Pairs = 1
	}
	if slices.Contains(bandwidthPatterns, t.Pattern) && t.TxDepth == 0 {
		t.TxDepth = perftest.DefaultTxDepthBW
	}
	if t.Pattern == runtime.PatternLatency && t.Iterations == 0 {
		t.Iterations = perftest.DefaultIterations
	}
	if t.Pattern == "incast" && t.Senders == 0 {
		t.Senders = DefaultIncastN
	}
	if t.QPs == 0 {
		t.QPs = 1
	}
	if t.TrafficClass == nil {
		tc := DefaultTrafficClass
		t.TrafficClass = &tc
	}
	if *t.TrafficClass < 0 || *t.TrafficClass > 255 {
		return at("traffic_class", fmt.Sprintf("traffic_class %d is not a TOS byte", *t.TrafficClass), "use 0 to 255, e.g. 106 for DSCP 26 with ECT(0)")
	}
	var err error
	switch {
	case t.MessageSize == "" && t.Pattern == runtime.PatternLatency:
		t.MessageBytes = perftest.DefaultSizeLat
	case t.MessageSize == "":
		t.MessageBytes = DefaultMessageSize
	default:
		n, err := ParseBytes(t.MessageSize)
		if err != nil || n < 1 || n > 1<<30 {
			return sizeError(at, "message_size", t.MessageSize, err, fmt.Sprintf("message_size %q is not a size from 1 B to 1 GiB", t.MessageSize), "write a size such as 4096, 64KiB or 1MiB")
		}
		t.MessageBytes = int(n)
	}
	if t.Bytes != "" {
		if t.BytesN, err = ParseBytes(t.Bytes); err != nil || t.BytesN < 1 {
			msg := fmt.Sprintf("bytes %q is not a positive size", t.Bytes)
			if errors.Is(err, errTooLarge) {
				// "not a positive size" was said of 9223372036854775807.
				msg = fmt.Sprintf("bytes %q is %v", t.Bytes, errTooLarge)
			}
			return sizeError(at, "bytes", t.Bytes, err, msg, "write a size such as 1MiB or 64MiB, or leave it out to send for the whole duration")
		}
	}
	if t.Pattern == "ring-allreduce" && t.BytesN == 0 {
		t.BytesN = DefaultAllReduce
	}
	if t.Start != "" {
		if t.StartUs, err = parseDurationUs(t.Start); err != nil || t.StartUs < 0 || t.StartUs >= durationUs {
			return at("start", fmt.Sprintf("start %q is not a time within the duration", t.Start), "write a duration such as 100us, shorter than the scenario's duration")
		}
	}
	if t.Pattern == PatternNCCL {
		return validateNCCL(t, at)
	}
	return nil
}

// parseOnOff accepts on/off and true/false.
func parseOnOff(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "on", "true":
		return true, true
	case "off", "false":
		return false, true
	}
	return false, false
}

// fmtDuration writes d as a scenario would ("100us", not Go's "100µs").
func fmtDuration(d time.Duration) string {
	return strings.Replace(d.String(), "µs", "us", 1)
}

// parseDurationUs parses a Go duration ("5ms", "500us", "0") to µs.
func parseDurationUs(s string) (float64, error) {
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if durationShape().MatchString(s) {
			return 0, fmt.Errorf("%w: %v", errDurationOverflow, err)
		}
		return 0, err
	}
	return float64(d) / float64(time.Microsecond), nil
}

// errDurationOverflow: a duration written right whose value Go's 64-bit
// nanoseconds cannot hold.
var errDurationOverflow = errors.New("the duration overflows")

// durationShape is a well-formed Go duration ("1.5h30m", "500us").
var durationShape = lazyregexp.New(`^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`)

// ParseBytes parses a size: a plain number of bytes or a number with a
// unit (B, KB, MB, GB powers of 1000; KiB, MiB, GiB powers of 1024).
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') {
		i--
	}
	num, unit := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
	mult := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
	m, ok := mult[unit]
	if num == "" {
		return 0, fmt.Errorf("bad size %q", s)
	}
	if !ok {
		return 0, fmt.Errorf("%w %q in size %q (use B, KB, MB, GB, KiB, MiB or GiB)", errUnit, unit, s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	if f*m > MaxSizeBytes {
		return 0, fmt.Errorf("size %q is %w", s, errTooLarge)
	}
	// A fraction of a byte is a mistake (1.7B, 1000.5), not a size to
	// round down; within a millionth of a whole number is the decimal's
	// rounding (1.1MB).
	b := math.Round(f * m)
	if math.Abs(f*m-b) > 1e-6 {
		return 0, fmt.Errorf("size %q is %w (%g B)", s, errFraction, f*m)
	}
	return int64(b), nil
}

// MaxSizeBytes is the largest size ParseBytes takes (1 PiB).
const MaxSizeBytes = 1 << 50

// ParseBytes' refusals that name what is wrong: a fraction of a byte, a
// unit it does not know, a size past MaxSizeBytes.
var (
	errFraction = errors.New("not a whole number of bytes")
	errUnit     = errors.New("unknown unit")
	errTooLarge = fmt.Errorf("more than %s, the largest size labctl takes", readlimit.Size(MaxSizeBytes))
)

// sizeError is the error of a size key whose text ParseBytes refused or
// found out of range: a fraction of a byte or an unknown unit by name,
// else msg and fix.
func sizeError(at func(field, msg, fix string) error, key, text string, err error, msg, fix string) error {
	switch {
	case errors.Is(err, errFraction):
		return at(key, fmt.Sprintf("%s %q is not a whole number of bytes", key, text), "write whole bytes, such as 1500 or 1.5KB")
	case errors.Is(err, errUnit):
		return at(key, fmt.Sprintf("%s %q has a unit labctl does not know", key, text), "use B, KB, MB, GB (powers of 1000), KiB, MiB or GiB (powers of 1024)")
	}
	return at(key, msg, fix)
}

// flowModelBlind lists what the flow-level model does not read, by the
// matrix key that would sweep it ("traffic[]." for any traffic entry; a
// key ending in "." covers every key under it). The model computes
// max-min fair steady rates on the flows' ECMP paths, with links' goodput
// MTU/(MTU+82) of line rate: the flows (pairs, senders, qps, ranks,
// cross_leaf, victim) and qos.mtu change its answer, nothing here does.
// Faults and a set lb.mode are refused as a whole by CheckModel, swept
// or not. The first matching entry wins, so exceptions come first.
var flowModelBlind = []struct{ key, what string }{
	{"qos.mtu", ""},
	{"qos.", "switch QoS (it has no queues, buffers, PFC, ECN or PFC watchdog)"},
	{"nic.", "the NICs' congestion control and loss recovery (it has no DCQCN, CNPs, timeouts or retransmissions)"},
	{"lb.", "load balancing modes (every flow keeps the path of its ECMP hash)"},
	{"transport", flowModelTransports},
	{"infiniband.", flowModelTransports},
	{"uet.", flowModelTransports},
	{"duration", "time (its rates are steady-state, the same for any duration)"},
	{"warmup", "time (its rates are steady-state, with no warmup to leave out)"},
	{"sample_every", "time series (it samples nothing)"},
	{"traffic[].traffic_class", "priorities (flows share links max-min fairly whatever their class)"},
	{"traffic[].start", "start times (every flow runs from the start)"},
	{"traffic[].message_size", "message sizes (its flows are fluid)"},
	{"traffic[].tx_depth", "send queues (its flows are fluid, with no messages in flight to bound)"},
	{"traffic[].iterations", "ping-pongs (it has no packets to time)"},
	{"traffic[].bytes", "flow sizes (its flows are long-lived)"},
	{"faults[].", "faults (its links never go down)"},
	{"traffic[].collective", ncclBlind},
	{"traffic[].algorithm", ncclBlind},
	{"traffic[].channels", ncclBlind},
	{"traffic[].rank_order", ncclBlind},
	{"traffic[].min_bytes", ncclBlind},
	{"traffic[].max_bytes", ncclBlind},
	{"traffic[].step_factor", ncclBlind},
	{"traffic[].step_bytes", ncclBlind},
	{"traffic[].root", ncclBlind},
	{"traffic[].datatype", ncclBlind},
	{"traffic[].qps_per_connection", ncclBlind},
}

// flowModelTransports is what the flow-level model misses of a
// transport: all but RoCE's shares on ECMP paths.
const flowModelTransports = "transports (it shares links max-min fairly on ECMP paths, without InfiniBand's credits and routes or UET's spraying and retransmission)"

// ncclBlind is what the flow-level model misses of an nccl key: the
// pattern as a whole (CheckModel refuses it).
const ncclBlind = "nccl collectives (it refuses the pattern)"

// flowModelIgnores says what of a sweep the flow-level model does not
// model (flowModelBlind), or "" when the model reads the swept key.
func flowModelIgnores(sw Sweep) string {
	key := sw.Path
	if sw.family == famTraffic || sw.family == famFaults {
		key = sw.family + "[]." + strings.Join(sw.field, ".")
	}
	for _, b := range flowModelBlind {
		if key == b.key || strings.HasSuffix(b.key, ".") && strings.HasPrefix(key, b.key) {
			return b.what
		}
	}
	return ""
}

// CheckModel says whether the scenario can run with the given model. The
// flow-level model has no ECN or PFC (variants differing only there would
// be the same numbers under other names), and it answers steady rates of
// long-lived flows and ring AllReduce times, not one flow's completion.
func (s *Spec) CheckModel(model string) error {
	if model != runtime.ModelFlow {
		return nil
	}
	// The pattern as a whole first: sweeping its keys is beside the point.
	for i, t := range s.Traffic {
		if t.Pattern == PatternNCCL {
			return specyaml.At(s.file, s.src, fmt.Sprintf("$.traffic[%d].pattern", i), fmt.Sprintf("scenario %s runs nccl collectives, which the flow-level model does not simulate (their steps wait on each other message by message over NVLink and the fabric)", s.Name),
				"run it with --model packet")
		}
	}
	if len(s.faults) > 0 {
		return specyaml.At(s.file, s.src, "$.faults", fmt.Sprintf("scenario %s has faults, which the flow-level model does not simulate (it has no queues, links going down or packet paths)", s.Name),
			"run it with --model packet")
	}
	if s.Transport != "" && s.Transport != transport.RoCE {
		return specyaml.At(s.file, s.src, "$.transport", fmt.Sprintf("scenario %s runs transport %s, which the flow-level model does not simulate: it has no %s", s.Name, s.Transport, flowModelTransports),
			"run it with --model packet")
	}
	if s.lb.Mode != "" {
		return specyaml.At(s.file, s.src, "$.lb.mode", fmt.Sprintf("scenario %s sets lb.mode %s, which the flow-level model does not simulate (it has no packet paths)", s.Name, s.lb.Mode),
			"run it with --model packet, or leave lb.mode out")
	}
	for _, m := range []struct {
		key  string
		vals []string
	}{{"ecn", s.Matrix.ECN}, {"pfc", s.Matrix.PFC}} {
		if len(m.vals) > 1 {
			return specyaml.At(s.file, s.src, "$.matrix."+m.key, fmt.Sprintf("scenario %s varies %s, but the flow-level model has no queues, PFC, ECN or DCQCN, so its variants would be the same numbers under other names", s.Name, strings.ToUpper(m.key)),
				"set matrix ecn: [on] and pfc: [on] for a flow-level run, or run it with --model packet")
		}
	}
	for _, sw := range s.Matrix.Sweeps {
		if what := flowModelIgnores(sw); what != "" {
			return s.SweepError(sw.Path, "",
				fmt.Sprintf("scenario %s sweeps %s, but the flow-level model does not model %s, so every point of the sweep would be the same estimate under another name", s.Name, sw.Path, what),
				"run it with --model packet, or take "+sw.Path+" out of the matrix")
		}
	}
	for i, t := range s.Traffic {
		if t.Pattern == runtime.PatternLatency {
			return specyaml.At(s.file, s.src, fmt.Sprintf("$.traffic[%d].pattern", i), fmt.Sprintf("scenario %s traffic[%d] is a latency ping-pong, which the flow-level model cannot time (it has no packets, queues or NIC delays)", s.Name, i),
				"run it with --model packet, or put it in a scenario of its own")
		}
		if t.Pattern == "ring-allreduce" {
			if len(s.Traffic) > 1 {
				return specyaml.At(s.file, s.src, fmt.Sprintf("$.traffic[%d]", i), fmt.Sprintf("scenario %s: the flow-level model runs a ring AllReduce alone", s.Name),
					"put the other traffic entries in a scenario of their own, or run it with --model packet")
			}
			continue
		}
		if t.BytesN > 0 {
			return specyaml.At(s.file, s.src, fmt.Sprintf("$.traffic[%d].bytes", i), fmt.Sprintf("scenario %s traffic[%d] sends %s per flow: the flow-level model gives steady rates of long-lived flows, not completion times", s.Name, i, t.Bytes),
				"leave bytes out, or run it with --model packet")
		}
	}
	return nil
}

// RegressSpec is the scenario's regress section: what labctl regress
// reads from the record of a run of it (results.ScenarioTolerances).
type RegressSpec struct {
	// Tolerances override regress's default tolerances by metric, as
	// --tolerance does (which replaces a value given here).
	Tolerances map[string]string `yaml:"tolerances"`
}

// check parses every tolerance as labctl regress will, so that a run
// does not record a scenario regress cannot read.
func (r RegressSpec) check(file string, data []byte) error {
	for _, name := range slices.Sorted(maps.Keys(r.Tolerances)) {
		if _, _, err := results.ParseToleranceOf(name, strings.TrimSpace(r.Tolerances[name])); err != nil {
			return specyaml.AtFirst(file, data, err.Error(),
				"give a metric labctl regress --help lists (role[<role>].<metric> for one role) and a tolerance such as 3%, 5, 10%+2 or off",
				"$.regress.tolerances."+quoteKey(name), "$.regress.tolerances")
		}
	}
	return nil
}

// quoteKey writes a mapping key for a YAML path: quoted where it holds
// what a path reads otherwise (role.latency_us_p50, role[victim]...).
func quoteKey(k string) string {
	if strings.ContainsAny(k, ".[]'\" ") {
		return "'" + strings.ReplaceAll(k, "'", "''") + "'"
	}
	return k
}
