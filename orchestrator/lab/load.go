package lab

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/labctl/labctl/labs"
	"github.com/labctl/labctl/orchestrator/imageref"
	"github.com/labctl/labctl/orchestrator/naming"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/server"
	"github.com/labctl/labctl/orchestrator/sizing"
	"github.com/labctl/labctl/orchestrator/specyaml"
	"github.com/labctl/labctl/orchestrator/transport"
)

// ValidName reports whether s may name a lab (naming.Valid, at most
// naming.MaxLen bytes): it becomes a folder, a containerlab lab name and
// part of container names.
func ValidName(s string) bool { return naming.Valid(s, naming.MaxLen) }

// NOS and runtime names a spec may use.
var (
	NOSes    = []string{"sonic", "eos"}
	Runtimes = []string{"sim", "clab"}
)

// Default images when a spec leaves them out.
const (
	DefaultSONiCImage = "docker-sonic-vs:latest"
	DefaultEOSImage   = "ceos:4.32.0F"
	DefaultHostImage  = "labctl/rdma-host:latest"
	DefaultQoSProfile = "roce-dcqcn"
)

// The range of qos.buffer_pool_bytes: 64 KiB to 1 GiB.
const (
	MinBufferPoolBytes int64 = 64 << 10
	MaxBufferPoolBytes int64 = 1 << 30
	// MaxECNDepthKB bounds qos.ecn's kmin_kb and kmax_kb: the largest
	// buffer_pool_bytes, in KiB (a threshold past it marks nothing).
	MaxECNDepthKB = MaxBufferPoolBytes / 1024
)

// QoSProfiles are the names of the built-in QoS profiles (orchestrator/qos
// defines them; a test there keeps the two lists equal). They are checked
// here so that a wrong name is reported at its line in the spec.
var QoSProfiles = []string{"roce-dcqcn", "roce-ecn-only", "roce-pfc-only"}

// Catalog returns the embedded catalog labs, sorted by size (bySize).
func Catalog() []*Spec {
	var out []*Spec
	for _, name := range specCatalog().Names() {
		s, err := loadCatalog(name)
		if err != nil {
			continue // a broken catalog file is caught by the catalog test
		}
		out = append(out, s)
	}
	return out
}

// CatalogNames lists the catalog labs' names by size, as every message
// that lists them does.
func CatalogNames() []string { return specCatalog().Names() }

// specCatalog is the embedded lab catalog; a user's spec file is named by path.
func specCatalog() specyaml.Catalog {
	return specyaml.Catalog{FS: labs.FS, Dir: "labs", Kind: "lab", Label: "lab spec", FileNoun: "spec file", Sort: bySize}
}

// bySize orders catalog lab names by their GPUs, then by name: 16gpu,
// 64gpu, 128gpu, 1024gpu, where file-name order gives 1024gpu first.
func bySize(names []string) {
	gpus := map[string]int{}
	for _, n := range names {
		if s, err := loadCatalog(n); err == nil {
			gpus[n] = s.Sizing.GPUs
		}
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if c := gpus[a] - gpus[b]; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// Resolve finds a lab by catalog name or by the path of a spec file. A
// value that names an existing file, or contains a path separator, or ends
// in .yaml/.yml is a path; anything else is a catalog name.
func Resolve(nameOrPath string) (*Spec, error) {
	doc, err := specCatalog().Resolve(nameOrPath)
	if err != nil {
		return nil, err
	}
	return parseDoc(doc)
}

func loadCatalog(name string) (*Spec, error) {
	doc, err := specCatalog().Entry(name)
	if err != nil {
		return nil, err
	}
	return parseDoc(doc)
}

func parseDoc(doc specyaml.Doc) (*Spec, error) {
	s, err := Parse(doc.File, doc.Data)
	if err != nil {
		return nil, err
	}
	s.Source = doc.Source
	return s, nil
}

// Parse decodes and validates a spec read from file. Errors name
// file:line:col, the problem and the fix, and exit 2.
func Parse(file string, data []byte) (*Spec, error) {
	var s Spec
	if err := specyaml.Decode(file, data, &s); err != nil {
		return nil, err
	}
	at := func(path, msg, fix string) error { return specyaml.At(file, data, path, msg, fix) }
	switch {
	case s.Name == "":
		return nil, at("$", "the spec has no name", "add name: <lab-name>")
	case !ValidName(s.Name):
		return nil, at("$.name", fmt.Sprintf("lab name %q is not allowed", s.Name), "use "+naming.Rule(naming.MaxLen))
	}
	// 0 in these keys would silently mean the default: refuse it.
	z := s.Sizing
	if err := specyaml.ExplicitZero(file, data, []specyaml.ZeroField{
		{Path: "$.sizing.gpus_per_server", IsZero: z.GPUsPerServer == 0, Default: fmt.Sprint(sizing.DefaultGPUsPerServer), Fix: "give the GPUs per server, for example 8"},
		{Path: "$.sizing.nic_speed_gbps", IsZero: z.NICSpeedGbps == 0, Default: fmt.Sprint(sizing.DefaultNICSpeedGbps), Fix: "give the NIC speed in Gb/s, for example 200"},
		{Path: "$.sizing.leaf_ports", IsZero: z.LeafPorts == 0, Default: fmt.Sprint(sizing.DefaultSwitchPorts), Fix: "give the leaf's port count, for example 32 or 64"},
		{Path: "$.sizing.leaf_speed_gbps", IsZero: z.LeafSpeedGbps == 0, Default: fmt.Sprint(sizing.DefaultSwitchSpeedGbp), Fix: "give the leaf port speed in Gb/s, for example 400"},
		{Path: "$.sizing.spine_ports", IsZero: z.SpinePorts == 0, Default: fmt.Sprint(sizing.DefaultSwitchPorts), Fix: "give the spine's port count, for example 32 or 64"},
		{Path: "$.sizing.spine_speed_gbps", IsZero: z.SpineSpeedGbps == 0, Default: fmt.Sprint(sizing.DefaultSwitchSpeedGbp), Fix: "give the spine port speed in Gb/s, for example 400"},
		{Path: "$.sizing.oversubscription", IsZero: z.Oversubscription == 0, Default: "1 (non-blocking)", Fix: "give a ratio from 1 to 16"},
	}); err != nil {
		return nil, err
	}
	if s.NOS == "" {
		s.NOS = "sonic"
	}
	if !slices.Contains(NOSes, s.NOS) {
		return nil, at("$.nos", fmt.Sprintf("unknown nos %q", s.NOS), "use sonic or eos")
	}
	if s.Runtime == "" {
		s.Runtime = "sim"
	}
	if !slices.Contains(Runtimes, s.Runtime) {
		return nil, at("$.runtime", fmt.Sprintf("unknown runtime %q", s.Runtime), "use sim or clab")
	}
	if s.Images.SONiC == "" {
		s.Images.SONiC = DefaultSONiCImage
	}
	if s.Images.EOS == "" {
		s.Images.EOS = DefaultEOSImage
	}
	if s.Images.Host == "" {
		s.Images.Host = DefaultHostImage
	}
	// Whichever runtime the lab starts on, a reference Docker cannot parse
	// would fail only when the lab moves to containers.
	for _, im := range []struct{ key, ref, eg string }{
		{"sonic", s.Images.SONiC, DefaultSONiCImage}, {"eos", s.Images.EOS, DefaultEOSImage}, {"host", s.Images.Host, DefaultHostImage},
	} {
		if err := imageref.Check(im.ref); err != nil {
			return nil, at("$.images."+im.key, fmt.Sprintf("image %q is not a container image reference (%v)", im.ref, err), "write it as Docker does, name[:tag], e.g. "+im.eg)
		}
	}
	if s.QoS.Profile == "" {
		s.QoS.Profile = DefaultQoSProfile
	}
	if s.BGP.SpineASN == "" {
		s.BGP.SpineASN = SpineASNShared
	}
	if !slices.Contains(SpineASNPlans, s.BGP.SpineASN) {
		return nil, at("$.bgp.spine_asn", fmt.Sprintf("unknown spine ASN plan %q", s.BGP.SpineASN),
			"use shared (the spines of a pod share one ASN, as RFC 7938 designs it) or per-spine (every spine its own ASN)")
	}
	// A key left out decodes as 0: name that, not a "0" nobody wrote.
	if s.Sizing.GPUs == 0 {
		msg := "sizing.gpus is required: the number of GPUs the fabric connects"
		if specyaml.Has(data, "$.sizing.gpus") {
			msg = "sizing.gpus is 0: give the number of GPUs the fabric connects"
		}
		return nil, specyaml.AtFirst(file, data, msg, "write it under sizing, for example gpus: 64", "$.sizing.gpus", "$.sizing", "$.name")
	}
	if s.Sizing.MinSpines == 0 && specyaml.Has(data, "$.sizing.min_spines") {
		return nil, at("$.sizing.min_spines", "sizing.min_spines: 0 is out of range", fmt.Sprintf("use 1 to %d (2 or more for no single spine), or leave the key out for the fewest spines that fit", sizing.MaxMinSpines))
	}
	s.Sizing = s.Sizing.Normalize()
	if err := s.Sizing.Validate(); err != nil {
		var ie *sizing.InputError
		if errors.As(err, &ie) {
			// Named as well as placed: a key left out has no place.
			return nil, at("$.sizing."+ie.Field, "sizing."+ie.Field+": "+ie.Msg, ie.Fix)
		}
		return nil, at("$.sizing", err.Error(), "")
	}
	if err := ValidateQoS(&s.QoS, at); err != nil {
		return nil, err
	}
	// A spec's ECN thresholds come as a pair: the defaults scale both with
	// the port speed, so one alone has nothing to be compared with. (A
	// sweep sets one over the configs' other, so ValidateQoS allows it.)
	if e := s.QoS.ECN; e != nil && (e.KminKB == nil) != (e.KmaxKB == nil) {
		if e.KminKB != nil {
			return nil, at("$.qos.ecn.kmin_kb", "kmin_kb is set without kmax_kb", fmt.Sprintf("set kmax_kb too (above %d, for example %d), or leave both out for thresholds that scale with the port speed", *e.KminKB, 4**e.KminKB))
		}
		return nil, at("$.qos.ecn.kmax_kb", "kmax_kb is set without kmin_kb", fmt.Sprintf("set kmin_kb too (below %d, for example %d), or leave both out for thresholds that scale with the port speed", *e.KmaxKB, max(*e.KmaxKB/4, 1)))
	}
	if CheckQoS != nil {
		if field, msg := CheckQoS(s.QoS); field != "" {
			// A key left out (its default is in the conflict): the section.
			return nil, specyaml.AtFirst(file, data, msg, fmt.Sprintf("correct qos.%s ('labctl explain lab.qos.%s' says what it takes)", field, field),
				"$.qos."+field, "$.qos")
		}
	}
	if _, err := s.NICSettings(nil); err != nil {
		var fe *nic.FieldError
		if errors.As(err, &fe) {
			return nil, at("$.nic."+fe.Field, "nic."+fe.Field+": "+fe.Msg, fe.Fix)
		}
		return nil, at("$.nic", err.Error(), "")
	}
	if _, err := s.TransportSettings(nil, nil, ""); err != nil {
		return nil, TransportError(err, at)
	}
	if s.QoS.MTU != nil {
		if err := transport.CheckMTU(s.Transport, *s.QoS.MTU); err != nil {
			return nil, at("$.qos.mtu", "qos.mtu: "+err.Error(), "use 4096 (or 1024 or 2048)")
		}
	}
	if err := validateServer(&s, file, data, at); err != nil {
		return nil, err
	}
	return &s, nil
}

// validateServer checks the server section against the lab's NIC speed,
// which its defaults follow: 0 for the PCIe link is refused as the sizing
// keys' zeros are, and a bad value is reported at its key.
func validateServer(s *Spec, file string, data []byte, at func(path, msg, fix string) error) error {
	nicGbps := s.Sizing.Normalize().NICSpeedGbps
	_, gen, lanes, why := server.Defaults(nicGbps)
	if err := specyaml.ExplicitZero(file, data, []specyaml.ZeroField{
		{Path: "$.server.pcie_gen", IsZero: s.Server.PCIeGen == 0, Default: fmt.Sprintf("%d for %dG NICs: %s", gen, nicGbps, why), Fix: "give the NICs' PCIe generation, 3, 4, 5 or 6"},
		{Path: "$.server.pcie_lanes", IsZero: s.Server.PCIeLanes == 0, Default: fmt.Sprintf("%d for %dG NICs", lanes, nicGbps), Fix: "give the lanes of each NIC's PCIe link, 1, 2, 4, 8 or 16, or 32 for two x16 links"},
	}); err != nil {
		return err
	}
	if _, err := s.ServerModel(); err != nil {
		var fe *server.FieldError
		if errors.As(err, &fe) {
			return at("$.server."+fe.Field, "server."+fe.Field+": "+fe.Msg, fe.Fix)
		}
		return at("$.server", err.Error(), "")
	}
	return nil
}

// ServerModel resolves the lab's GPU servers: the scale-up domain and the
// NICs' PCIe links, with the defaults of the lab's NIC speed. Everything
// that needs a server's bandwidths (the planner, the simulator, the
// collectives' closed forms) reads them from here.
func (s *Spec) ServerModel() (server.Model, error) {
	return server.Resolve(s.Server, s.Sizing.Normalize().NICSpeedGbps)
}

// NICSettings resolves the lab's NIC settings, with a scenario's nic
// sections (nil ones skipped) over them in order: the scenario's own, then
// a swept point's. CNPs default to the lab's qos.cnp_dscp.
func (s *Spec) NICSettings(scenario ...*nic.Spec) (nic.Settings, error) {
	cnp := 48
	if s.QoS.CNPDSCP != nil {
		cnp = *s.QoS.CNPDSCP
	}
	return nic.Resolve(float64(s.Sizing.Normalize().NICSpeedGbps), cnp, append([]*nic.Spec{&s.NIC}, scenario...)...)
}

// TransportSettings resolves the lab's transport: name (a scenario's or a
// swept point's; "" keeps the lab's), with a scenario's infiniband and uet
// sections (nil ones skipped) over the lab's.
func (s *Spec) TransportSettings(ib []*transport.IBSpec, uet []*transport.UETSpec, name string) (transport.Settings, error) {
	if name == "" {
		name = s.Transport
	}
	return transport.Resolve(name, append([]*transport.IBSpec{&s.InfiniBand}, ib...), append([]*transport.UETSpec{&s.UET}, uet...))
}

// TransportError places a transport.Resolve error at its key (at takes a
// YAML path such as "$.infiniband.routing").
func TransportError(err error, at func(path, msg, fix string) error) error {
	var fe *transport.FieldError
	if errors.As(err, &fe) {
		return at("$."+fe.Field, fe.Field+": "+fe.Msg, fe.Fix)
	}
	return at("$.transport", err.Error(), "")
}

// CheckQoS checks a spec's qos section as the lab will resolve it, and
// returns its first problem by its key under qos ("" for none). The qos
// package, which holds the rules and imports this one, sets it; a program
// that links no qos package resolves no QoS and leaves it nil.
var CheckQoS func(QoSSpec) (field, msg string)

// PmaxProblem says what is wrong with an ECN marking probability at Kmax
// ("" when nothing) and the fix: it is above 0 and at most 1, and a whole
// percent, as SONiC's green_drop_probability and EOS's
// max-mark-probability are. Between two percents it is a probability no
// switch config holds: the configs labctl writes would round it, while a
// sweep's value went to the simulator as given (0.125 ran at 12.5% beside
// configs saying 13%, and a live lab refused it). The lab spec's qos.ecn,
// a scenario's sweep of qos.ecn.pmax and every QoS intent are checked by
// it.
func PmaxProblem(p float64) (msg, fix string) {
	pct := p * 100
	switch {
	case p <= 0 || p > 1 || math.IsNaN(p):
		return fmt.Sprintf("pmax %g is out of range", p), "use a marking probability from 0.01 to 1, for example 0.2"
	case math.Round(pct) < 1:
		return fmt.Sprintf("pmax %g is %g%%, which a switch sets in whole percents as 0%% (no marking below Kmax)", p, pct), "use at least 0.01"
	case math.Abs(pct-math.Round(pct)) > 1e-9:
		fix := fmt.Sprintf("use %g or %g", math.Floor(pct)/100, math.Ceil(pct)/100)
		if math.Floor(pct) < 1 {
			fix = "use 0.01 (0, the percent below, marks nothing)"
		}
		return fmt.Sprintf("pmax %g is %g%%, which no switch sets: SONiC and EOS take the marking probability in whole percents", p, pct), fix
	}
	return "", ""
}

// ValidateQoS checks the ranges of QoS overrides that need no knowledge of
// profiles; the qos package checks the rest. at positions an error by the
// key's YAML path ("$.qos.ecn.kmin_kb"); a scenario sweeping a qos key
// checks its values here too.
func ValidateQoS(q *QoSSpec, at func(path, msg, fix string) error) error {
	if !slices.Contains(QoSProfiles, q.Profile) {
		return at("$.qos.profile", fmt.Sprintf("unknown QoS profile %q", q.Profile), "use one of "+strings.Join(QoSProfiles, ", "))
	}
	// An empty list written out is no "use the default": PFC would then
	// run on priority 3 without the spec saying so.
	if q.LosslessPriorities != nil && len(q.LosslessPriorities) == 0 {
		return at("$.qos.lossless_priorities", "lossless_priorities is empty", "list the lossless priorities (RoCE uses [3]), or leave the key out for [3]")
	}
	for i, p := range q.LosslessPriorities {
		if p < 0 || p > 7 {
			return at(fmt.Sprintf("$.qos.lossless_priorities[%d]", i), fmt.Sprintf("priority %d is out of range", p), "use priorities 1 to 7 (0 is the best-effort class; RoCE uses 3)")
		}
		if p == 0 {
			// labctl's maps (qos.DefaultDSCPMap, Intent.rebuildMaps) send
			// every DSCP but RoCE's, the CNPs', EF and CS7 to traffic
			// class 0 and every lossy class to PG 0: a lossless 0 would
			// pause all unmarked traffic and share its PG with the lossy
			// classes (lint's QOS014). RoCE runs lossless on 3 (and 4).
			return at(fmt.Sprintf("$.qos.lossless_priorities[%d]", i), "priority 0 is the best-effort class: labctl's maps put every unmarked packet in traffic class 0 and every lossy class in PG 0, so PFC on it would pause all unmarked traffic and fill its PG with the lossy classes", "use another priority (RoCE uses 3; 4 for a second lossless class)")
		}
		if slices.Index(q.LosslessPriorities, p) < i {
			return at(fmt.Sprintf("$.qos.lossless_priorities[%d]", i), fmt.Sprintf("priority %d is listed twice", p), "list each priority once")
		}
	}
	for _, d := range []struct {
		v    *int
		path string
	}{{q.RoCEDSCP, "$.qos.roce_dscp"}, {q.CNPDSCP, "$.qos.cnp_dscp"}} {
		if d.v != nil && (*d.v < 0 || *d.v > 63) {
			return at(d.path, fmt.Sprintf("DSCP %d is out of range", *d.v), "use a DSCP from 0 to 63 (RoCE uses 26, CNP 48)")
		}
	}
	if q.MTU != nil && (*q.MTU < transport.MinMTU || *q.MTU > transport.MaxMTU) {
		return at("$.qos.mtu", fmt.Sprintf("MTU %d is out of range", *q.MTU), fmt.Sprintf("use a path MTU of 1024, 2048 or 4096 (UET: up to %d)", transport.MaxMTU))
	}
	if q.CableLengthM != nil && (*q.CableLengthM < 1 || *q.CableLengthM > 40000) {
		return at("$.qos.cable_length_m", fmt.Sprintf("cable length %d m is out of range", *q.CableLengthM), "use a length from 1 to 40000 m (typically 5, 40 or 300)")
	}
	if r := q.PauseResponseQuanta; r != nil && (*r < 0 || *r > 65535) {
		return at("$.qos.pause_response_quanta", fmt.Sprintf("a PAUSE response of %d quanta is out of range", *r), "use 0 to 65535 quanta of 512 bit times, or leave the key out for each speed's IEEE 802.3 bound (905 at 400G)")
	}
	if b := q.BufferPoolBytes; b != nil && (*b < MinBufferPoolBytes || *b > MaxBufferPoolBytes) {
		return at("$.qos.buffer_pool_bytes", fmt.Sprintf("a shared buffer of %d bytes is out of range", *b), fmt.Sprintf("use %d to %d bytes (a 100G Spectrum switch's pool is 3302912), or leave it out for the switch SONiC supports at the lab's port speed", MinBufferPoolBytes, MaxBufferPoolBytes))
	}
	if e := q.ECN; e != nil {
		if e.KminKB != nil && *e.KminKB <= 0 {
			return at("$.qos.ecn.kmin_kb", "kmin_kb must be positive", "use for example 150")
		}
		if e.KmaxKB != nil && *e.KmaxKB <= 0 {
			return at("$.qos.ecn.kmax_kb", "kmax_kb must be positive", "use for example 1500")
		}
		// A threshold past the largest shared buffer marks nothing, and
		// 9223372036854775807 KiB wrapped negative in bytes (the render
		// failed with exit 1 on WRED thresholds of -2048).
		for _, k := range []struct {
			v    *int
			name string
		}{{e.KminKB, "kmin_kb"}, {e.KmaxKB, "kmax_kb"}} {
			if k.v != nil && int64(*k.v) > MaxECNDepthKB {
				return at("$.qos.ecn."+k.name, fmt.Sprintf("%s %d is beyond %d KiB, the largest shared buffer (buffer_pool_bytes) a switch has: the queue never reaches it", k.name, *k.v, MaxECNDepthKB), "use a depth below the switch's buffer, for example kmin_kb 150 and kmax_kb 1500, or leave both out for 4 and 16 KiB per Gb/s of port speed")
			}
		}
		if e.KminKB != nil && e.KmaxKB != nil && *e.KminKB >= *e.KmaxKB {
			return at("$.qos.ecn.kmin_kb", fmt.Sprintf("kmin_kb %d is not below kmax_kb %d", *e.KminKB, *e.KmaxKB), "make kmin_kb smaller than kmax_kb")
		}
		if e.Pmax != nil {
			if msg, fix := PmaxProblem(*e.Pmax); msg != "" {
				return at("$.qos.ecn.pmax", msg, fix)
			}
		}
	}
	if w := q.PFCWatchdog; w != nil {
		if w.DetectionMs != nil && (*w.DetectionMs < 100 || *w.DetectionMs > 5000) {
			return at("$.qos.pfc_watchdog.detection_ms", fmt.Sprintf("detection time %d ms is out of range", *w.DetectionMs), "use 100 to 5000 ms (SONiC's range)")
		}
		if w.RestorationMs != nil && (*w.RestorationMs < 100 || *w.RestorationMs > 60000) {
			return at("$.qos.pfc_watchdog.restoration_ms", fmt.Sprintf("restoration time %d ms is out of range", *w.RestorationMs), "use 100 to 60000 ms (SONiC's range)")
		}
		if w.Action != nil && !slices.Contains([]string{"drop", "forward", "alert"}, *w.Action) {
			return at("$.qos.pfc_watchdog.action", fmt.Sprintf("unknown action %q", *w.Action), "use drop, forward or alert")
		}
	}
	// In traffic-class order, so that of several bad weights the same one
	// is reported every time.
	for _, tc := range slices.Sorted(maps.Keys(q.ETSWeights)) {
		w := q.ETSWeights[tc]
		if tc < 0 || tc > 7 || w < 1 || w > 100 {
			return at("$.qos.ets_weights", fmt.Sprintf("weight %d for traffic class %d is out of range", w, tc), "use traffic classes 0 to 7 and weights 1 to 100")
		}
	}
	return nil
}
