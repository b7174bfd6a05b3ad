// Package qos holds labctl's vendor-neutral RoCE QoS model: the lab-wide
// Intent (what lossless Ethernet should look like), the per-device
// DeviceConfig that NOS renderers write and NOS parsers read back, the PFC
// headroom math, lint rules and an intent-level diff.
//
// The flow is: a named profile (Profile) overridden by the lab spec's qos
// section gives an Intent; Apply(intent, device) gives one switch's
// DeviceConfig; a NOS package renders that to vendor text and parses vendor
// text back to a DeviceConfig; Lint and Diff work on DeviceConfigs, so they
// judge what is in the files, not what labctl meant to write.
package qos

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Number of traffic classes, priorities and queues of the model (802.1p).
const NumTC = 8

// DefaultProfile is the profile a lab gets when its spec names none.
const DefaultProfile = "roce-dcqcn"

// Intent is the lab-wide RoCE QoS intent.
type Intent struct {
	Profile string `json:"profile"`
	// LosslessPriorities are the PFC priorities (= traffic classes) that
	// carry lossless traffic, e.g. [3].
	LosslessPriorities []int `json:"lossless_priorities"`
	RoCEDSCP           int   `json:"roce_dscp"`
	CNPDSCP            int   `json:"cnp_dscp"`
	// DSCPToTC maps all 64 DSCP values to a traffic class.
	DSCPToTC map[int]int `json:"dscp_to_tc"`
	// TCToQueue and TCToPG map the 8 traffic classes to egress queues and
	// ingress priority groups.
	TCToQueue map[int]int `json:"tc_to_queue"`
	TCToPG    map[int]int `json:"tc_to_pg"`
	// CNPStrict puts the CNP traffic class's queue under strict priority,
	// so congestion notifications overtake the data they throttle.
	CNPStrict bool `json:"cnp_strict"`
	// ETSWeights are DWRR weights per queue for the queues that are not
	// strict. They sum to 100 so that EOS can use them as percentages.
	ETSWeights map[int]int `json:"ets_weights"`
	MTU        int         `json:"mtu"`
	// CableLengthM is the cable length assumed for ports whose length is
	// not known from the fabric.
	CableLengthM int          `json:"cable_length_m"`
	ECN          ECNIntent    `json:"ecn"`
	PFC          PFCIntent    `json:"pfc"`
	Watchdog     Watchdog     `json:"pfc_watchdog"`
	Buffer       BufferIntent `json:"buffer"`
}

// ECNIntent is ECN marking (WRED in ECN mode) on the lossless queues.
type ECNIntent struct {
	Enabled bool `json:"enabled"`
	// KminKB and KmaxKB are fixed thresholds in KiB; 0 means "scale with
	// the port speed" using KminKBPerGbps and KmaxKBPerGbps.
	KminKB        int     `json:"kmin_kb,omitempty"`
	KmaxKB        int     `json:"kmax_kb,omitempty"`
	KminKBPerGbps int     `json:"kmin_kb_per_gbps"`
	KmaxKBPerGbps int     `json:"kmax_kb_per_gbps"`
	Pmax          float64 `json:"pmax"`
}

// PFCIntent is priority flow control on the lossless priorities.
type PFCIntent struct {
	Enabled bool `json:"enabled"`
}

// Watchdog is the PFC watchdog (pause storm detection).
type Watchdog struct {
	Enabled       bool   `json:"enabled"`
	DetectionMs   int    `json:"detection_ms"`
	RestorationMs int    `json:"restoration_ms"`
	Action        string `json:"action"` // drop | forward | alert
}

// BufferIntent sizes the ingress buffers of lossless priority groups.
type BufferIntent struct {
	// SharedPoolBytes is the ingress lossless pool size; 0 gives each
	// switch the pool of the switch assumed for its port speed
	// (SwitchBufferFor).
	SharedPoolBytes int64 `json:"shared_pool_bytes"`
	// DynamicTh is SONiC's dynamic_th: a priority group may use
	// alpha = 2^DynamicTh of the free shared buffer before XOFF.
	DynamicTh int `json:"dynamic_th"`
	// XonOffsetBytes: XON is sent this far below the XOFF point.
	XonOffsetBytes int `json:"xon_offset_bytes"`
	// ResponseBits is how long a port takes to obey a PAUSE, in bit
	// times (t_response of the headroom formula; the lab's
	// qos.pause_response_quanta times 512): 0 means each port speed's
	// IEEE 802.3 PAUSE reaction bound (ResponseBits), ResponseInstant
	// none. Read it through PauseResponseBits.
	ResponseBits int `json:"response_bits"`
	// WatchdogPollMs is the PFC watchdog poll interval.
	WatchdogPollMs int `json:"watchdog_poll_ms"`
}

// Buffer pool and profile names labctl gives the buffer it derives from an
// intent. They are SONiC's own, so a rendered config_db replaces the
// switch's defaults rather than adding beside them.
const (
	IngressLosslessPool = "ingress_lossless_pool"
	EgressLosslessPool  = "egress_lossless_pool"
	EgressLossyPool     = "egress_lossy_pool"
)

// pools are a switch's buffer pools: one ingress pool shared by lossless
// and lossy PGs, and egress pools for lossless and lossy queues, each of
// size bytes with dynamic thresholds (sizeEgressLossless then makes the
// egress lossless pool the whole buffer).
func pools(size int64) []PoolConfig {
	return []PoolConfig{
		{Name: EgressLosslessPool, Type: "egress", Mode: "dynamic", SizeBytes: size},
		{Name: EgressLossyPool, Type: "egress", Mode: "dynamic", SizeBytes: size},
		{Name: IngressLosslessPool, Type: "ingress", Mode: "dynamic", SizeBytes: size},
	}
}

// IngressLossyProfile is the admission of lossy PGs: no reserve, a share
// of alpha = 2^3 = 8 of the ingress pool's free space (SONiC's default
// ingress_lossy_profile).
func IngressLossyProfile() BufferProfile {
	return BufferProfile{Profile: "ingress_lossy_profile", Pool: IngressLosslessPool, SizeBytes: Ptr(int64(0)), DynamicTh: Ptr(3)}
}

// EgressLosslessProfile is the admission of lossless queues: alpha 2^7, so
// that PFC at ingress, not an egress limit, bounds them (SONiC's default
// egress_lossless_profile).
func EgressLosslessProfile() BufferProfile {
	return BufferProfile{Profile: "egress_lossless_profile", Pool: EgressLosslessPool, SizeBytes: Ptr(int64(0)), DynamicTh: Ptr(7)}
}

// EgressLossyProfile is the admission of lossy queues: 1518 bytes
// reserved, then alpha 2^3 of the egress lossy pool's free space (SONiC's
// default egress_lossy_profile). A congested lossy queue drops at this
// limit instead of filling the whole buffer.
func EgressLossyProfile() BufferProfile {
	return BufferProfile{Profile: "egress_lossy_profile", Pool: EgressLossyPool, SizeBytes: Ptr(int64(1518)), DynamicTh: Ptr(3)}
}

// LosslessPGProfileName is SONiC's name of a lossless PG profile:
// pg_lossless_<speed in Mb/s>_<cable>m_profile.
func LosslessPGProfileName(speedGbps, cableM int) string {
	return fmt.Sprintf("pg_lossless_%d_%dm_profile", speedGbps*1000, cableM)
}

// Profiles returns the names of the built-in profiles, sorted.
func Profiles() []string {
	return []string{"roce-dcqcn", "roce-ecn-only", "roce-pfc-only"}
}

// Profile returns a built-in profile by name.
//
//   - roce-dcqcn: PFC on priority 3, ECN (DCQCN) on TC3 with HPCC/SimAI
//     thresholds (Kmin 4 KiB and Kmax 16 KiB per Gb/s, Pmax 0.2), CNPs
//     (DSCP 48) on strict-priority TC6, PFC watchdog 200 ms / 200 ms drop.
//   - roce-pfc-only: the same without ECN (lossless by pause frames only).
//   - roce-ecn-only: the same without PFC (lossy RoCE with DCQCN).
func Profile(name string) (Intent, error) {
	if name == "" {
		name = DefaultProfile
	}
	base := Intent{
		Profile:            name,
		LosslessPriorities: []int{3},
		RoCEDSCP:           26,
		CNPDSCP:            48,
		CNPStrict:          true,
		// Queue 6 (CNP) is strict; the others share by weight.
		ETSWeights: map[int]int{0: 20, 1: 5, 2: 5, 3: 50, 4: 5, 5: 5, 7: 10},
		MTU:        4096,
		// 5 m: an in-rack DAC, the common server-leaf cable.
		CableLengthM: 5,
		ECN:          ECNIntent{Enabled: true, KminKBPerGbps: 4, KmaxKBPerGbps: 16, Pmax: 0.2},
		PFC:          PFCIntent{Enabled: true},
		Watchdog:     Watchdog{Enabled: true, DetectionMs: 200, RestorationMs: 200, Action: "drop"},
		Buffer: BufferIntent{
			// 0: each switch gets the pool of the Spectrum switch SONiC
			// supports at its port speed (SwitchBufferFor). With
			// DynamicTh 0 (alpha 1, as SONiC's Spectrum profiles) one
			// congested PG may take half of it before XOFF.
			SharedPoolBytes: 0,
			DynamicTh:       0,
			XonOffsetBytes:  3072,
			ResponseBits:    0,
			WatchdogPollMs:  100,
		},
	}
	switch name {
	case "roce-dcqcn":
	case "roce-pfc-only":
		base.ECN.Enabled = false
	case "roce-ecn-only":
		base.PFC.Enabled = false
	default:
		return Intent{}, exitcode.Usagef("unknown QoS profile %q: use one of %s", name, strings.Join(Profiles(), ", "))
	}
	base.rebuildMaps()
	return base, nil
}

// rebuildMaps derives the DSCP, queue and PG maps from the lossless
// priorities and the RoCE/CNP DSCPs.
func (in *Intent) rebuildMaps() {
	in.DSCPToTC = DefaultDSCPMap(in.RoCEDSCP, in.CNPDSCP, in.LosslessPriorities)
	in.TCToQueue = map[int]int{}
	in.TCToPG = map[int]int{}
	for tc := range NumTC {
		in.TCToQueue[tc] = tc
		// Lossless TCs get their own PG (headroom is per PG); the rest
		// share lossy PG 0, as SONiC's AZURE map does: a lab spec cannot
		// make 0 lossless (lab.ValidateQoS), so PG 0 is lossy.
		if slices.Contains(in.LosslessPriorities, tc) {
			in.TCToPG[tc] = tc
		} else {
			in.TCToPG[tc] = 0
		}
	}
}

// CNPTC is the traffic class of CNPs.
const CNPTC = 6

// DefaultDSCPMap is labctl's DSCP->TC map: the RoCE DSCP to the first
// lossless TC, the CNP DSCP to TC6, EF (46) to TC5, CS7 (56) to TC7 and
// everything else to best-effort TC0. Unlike a class-selector map (DSCP>>3)
// it keeps unrelated traffic out of the lossless class, where it could
// cause pauses.
func DefaultDSCPMap(roceDSCP, cnpDSCP int, lossless []int) map[int]int {
	m := make(map[int]int, 64)
	for d := range 64 {
		m[d] = 0
	}
	m[46] = 5
	m[56] = 7
	m[cnpDSCP] = CNPTC
	if len(lossless) > 0 {
		m[roceDSCP] = lossless[0]
	}
	return m
}

// FromSpec resolves a lab spec's qos section: the named profile with the
// spec's overrides applied field by field.
func FromSpec(s lab.QoSSpec) (Intent, error) {
	in, err := Profile(s.Profile)
	if err != nil {
		return Intent{}, err
	}
	profileRoCETC := in.LosslessPriorities[0]
	if len(s.LosslessPriorities) > 0 {
		in.LosslessPriorities = slices.Clone(s.LosslessPriorities)
		sort.Ints(in.LosslessPriorities)
	}
	if s.RoCEDSCP != nil {
		in.RoCEDSCP = *s.RoCEDSCP
	}
	if s.CNPDSCP != nil {
		in.CNPDSCP = *s.CNPDSCP
	}
	if s.MTU != nil {
		in.MTU = *s.MTU
	}
	if s.CableLengthM != nil {
		in.CableLengthM = *s.CableLengthM
	}
	if q := s.PauseResponseQuanta; q != nil {
		in.Buffer.ResponseBits = *q * 512
		if *q == 0 {
			in.Buffer.ResponseBits = ResponseInstant
		}
	}
	if s.BufferPoolBytes != nil {
		in.Buffer.SharedPoolBytes = *s.BufferPoolBytes
	}
	if e := s.ECN; e != nil {
		if e.Enabled != nil {
			in.ECN.Enabled = *e.Enabled
		}
		if e.KminKB != nil {
			in.ECN.KminKB = *e.KminKB
		}
		if e.KmaxKB != nil {
			in.ECN.KmaxKB = *e.KmaxKB
		}
		if e.Pmax != nil {
			in.ECN.Pmax = *e.Pmax
		}
	}
	if p := s.PFC; p != nil && p.Enabled != nil {
		in.PFC.Enabled = *p.Enabled
	}
	if w := s.PFCWatchdog; w != nil {
		if w.Enabled != nil {
			in.Watchdog.Enabled = *w.Enabled
		}
		if w.DetectionMs != nil {
			in.Watchdog.DetectionMs = *w.DetectionMs
		}
		if w.RestorationMs != nil {
			in.Watchdog.RestorationMs = *w.RestorationMs
		}
		if w.Action != nil {
			in.Watchdog.Action = *w.Action
		}
	}
	if len(s.ETSWeights) > 0 {
		in.ETSWeights = map[int]int{}
		for q, w := range s.ETSWeights {
			in.ETSWeights[q] = w
		}
	} else if tc := in.LosslessPriorities[0]; tc != profileRoCETC {
		// The profile's weights give RoCE's queue its share (50 against
		// best effort's 20): when RoCE moves to another traffic class,
		// its share moves with it, swapped with that queue's. Left on the
		// profile's queue, RoCE would get the 5 of a spare class.
		if w, ok := in.ETSWeights[tc]; ok {
			in.ETSWeights[tc], in.ETSWeights[profileRoCETC] = in.ETSWeights[profileRoCETC], w
		}
	}
	in.rebuildMaps()
	if err := in.Validate(); err != nil {
		return Intent{}, exitcode.Usage(fmt.Errorf("qos section of the lab spec: %w", err))
	}
	return in, nil
}

// Validate checks the intent's ranges and names the field to fix: an
// *IntentError, each problem by its key under qos.
func (in Intent) Validate() error {
	var errs []IntentProblem
	bad := func(field, format string, a ...any) {
		errs = append(errs, IntentProblem{Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if len(in.LosslessPriorities) == 0 {
		bad("lossless_priorities", "lossless_priorities is empty: give at least one priority 0-7 (RoCE uses 3)")
	}
	for _, p := range in.LosslessPriorities {
		if p < 0 || p >= NumTC {
			bad("lossless_priorities", "lossless_priorities: %d is not a priority 0-7", p)
		}
		if p == CNPTC {
			bad("lossless_priorities", "lossless_priorities: %d is the CNP class; CNPs must not be paused", p)
		}
	}
	for name, d := range map[string]int{"roce_dscp": in.RoCEDSCP, "cnp_dscp": in.CNPDSCP} {
		if d < 0 || d > 63 {
			bad(name, "%s: %d is not a DSCP 0-63", name, d)
		}
	}
	if in.RoCEDSCP == in.CNPDSCP {
		bad("cnp_dscp", "roce_dscp and cnp_dscp are both %d: CNPs need their own DSCP", in.RoCEDSCP)
	}
	if in.MTU < transport.MinMTU || in.MTU > transport.MaxMTU {
		bad("mtu", "mtu: %d is outside %d-%d", in.MTU, transport.MinMTU, transport.MaxMTU)
	}
	if in.CableLengthM < 0 || in.CableLengthM > 100000 {
		bad("cable_length_m", "cable_length_m: %d is outside 0-100000", in.CableLengthM)
	}
	if b := in.Buffer.SharedPoolBytes; b != 0 && (b < lab.MinBufferPoolBytes || b > lab.MaxBufferPoolBytes) {
		bad("buffer_pool_bytes", "buffer_pool_bytes: %d is outside %d-%d", b, lab.MinBufferPoolBytes, lab.MaxBufferPoolBytes)
	}
	if msg, fix := lab.PmaxProblem(in.ECN.Pmax); msg != "" {
		bad("ecn.pmax", "ecn.%s: %s", msg, fix)
	}
	if in.ECN.KminKB < 0 || in.ECN.KmaxKB < 0 {
		bad("ecn", "ecn.kmin_kb/kmax_kb must not be negative")
	}
	if (in.ECN.KminKB > 0) != (in.ECN.KmaxKB > 0) {
		bad("ecn", "ecn: set both kmin_kb and kmax_kb, or neither (to scale with port speed)")
	}
	if in.ECN.KminKB > 0 && in.ECN.KminKB >= in.ECN.KmaxKB {
		bad("ecn.kmin_kb", "ecn: kmin_kb %d must be below kmax_kb %d", in.ECN.KminKB, in.ECN.KmaxKB)
	}
	if w := in.Watchdog; w.Enabled {
		if w.DetectionMs < 100 || w.DetectionMs > 5000 {
			bad("pfc_watchdog.detection_ms", "pfc_watchdog.detection_ms: %d is outside 100-5000", w.DetectionMs)
		}
		if w.RestorationMs < 100 || w.RestorationMs > 60000 {
			bad("pfc_watchdog.restoration_ms", "pfc_watchdog.restoration_ms: %d is outside 100-60000", w.RestorationMs)
		}
	}
	if !slices.Contains([]string{"drop", "forward", "alert"}, in.Watchdog.Action) {
		bad("pfc_watchdog.action", "pfc_watchdog.action: %q is not drop, forward or alert", in.Watchdog.Action)
	}
	sum := 0
	for q, w := range in.ETSWeights {
		if q < 0 || q >= NumTC {
			bad("ets_weights", "ets_weights: queue %d is not 0-7", q)
		}
		if w < 1 || w > 100 {
			bad("ets_weights", "ets_weights: queue %d weight %d is outside 1-100", q, w)
		}
		sum += w
	}
	if sum > 100 {
		bad("ets_weights", "ets_weights sum to %d: keep them at most 100 (EOS uses them as bandwidth percent)", sum)
	}
	if len(in.ETSWeights) > 0 {
		// The weights are the non-strict queues': the CNP class's queue is
		// strict, and a weight for it is thrown away unseen.
		if _, ok := in.ETSWeights[CNPTC]; ok && in.CNPStrict {
			bad("ets_weights", "ets_weights: traffic class %d is the CNPs', whose queue is strict priority, so its weight would be ignored: leave it out", CNPTC)
		}
		// A map that replaces the profile's and leaves out RoCE's class
		// (the first lossless priority) gives RoCE's queue DWRR weight 1,
		// a seventh of the link or less against the other classes.
		if len(in.LosslessPriorities) > 0 {
			if p := in.LosslessPriorities[0]; p >= 0 && p < NumTC && p != CNPTC {
				if _, ok := in.ETSWeights[p]; !ok {
					bad("ets_weights", "ets_weights gives RoCE's traffic class %d no weight, so its queue would take DWRR weight 1: give it its share (the profile gives it 50)", p)
				}
			}
		}
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Msg < errs[j].Msg })
		return &IntentError{Problems: errs}
	}
	return nil
}

// IntentError is what Validate found wrong with an intent, each problem
// by the key under qos that gives it, so that a lab spec can be pointed
// at (lab.CheckQoS).
type IntentError struct{ Problems []IntentProblem }

// IntentProblem is one problem of an intent and its key under qos
// ("roce_dscp", "ecn.kmin_kb").
type IntentProblem struct{ Field, Msg string }

func (e *IntentError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Msg
	}
	return strings.Join(msgs, "; ")
}

// The lab spec's loader checks a spec's qos section with FromSpec, this
// package's rules, and places the first problem at its key.
func init() {
	lab.CheckQoS = func(s lab.QoSSpec) (field, msg string) {
		_, err := FromSpec(s)
		var ie *IntentError
		if errors.As(err, &ie) {
			return ie.Problems[0].Field, ie.Problems[0].Msg
		}
		return "", ""
	}
}

// WithECN returns a copy of the intent with ECN marking on or off.
func (in Intent) WithECN(on bool) Intent {
	out := in.clone()
	out.ECN.Enabled = on
	return out
}

// WithPFC returns a copy of the intent with PFC on or off. With PFC off the
// lossless priorities keep their maps and queues but get no pause frames,
// no headroom and no watchdog.
func (in Intent) WithPFC(on bool) Intent {
	out := in.clone()
	out.PFC.Enabled = on
	return out
}

func (in Intent) clone() Intent {
	out := in
	out.LosslessPriorities = slices.Clone(in.LosslessPriorities)
	out.DSCPToTC = cloneMap(in.DSCPToTC)
	out.TCToQueue = cloneMap(in.TCToQueue)
	out.TCToPG = cloneMap(in.TCToPG)
	out.ETSWeights = cloneMap(in.ETSWeights)
	return out
}

func cloneMap(m map[int]int) map[int]int {
	if m == nil {
		return nil
	}
	out := make(map[int]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ECNThresholds returns Kmin and Kmax in bytes for a port of the given
// speed: the fixed values if set, otherwise the per-Gb/s scaling.
func (e ECNIntent) ECNThresholds(speedGbps int) (kmin, kmax int64) {
	if e.KminKB > 0 && e.KmaxKB > 0 {
		return int64(e.KminKB) * 1024, int64(e.KmaxKB) * 1024
	}
	return int64(e.KminKBPerGbps*speedGbps) * 1024, int64(e.KmaxKBPerGbps*speedGbps) * 1024
}
