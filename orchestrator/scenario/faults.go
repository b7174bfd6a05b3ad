package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// Fault is one fault of a scenario: a link taken down (link-down), a link
// flapping (link-flap), or a NIC that sends PFC pause frames without end
// (pfc-storm).
type Fault struct {
	Kind string `yaml:"kind"`
	// Link names a link by one end, "node:port" as the lab's configs name
	// the port, or by its nodes, "leaf1-spine1" (their first link).
	Link string `yaml:"link"`
	// All, with a link named node-node, fails every link between the two
	// nodes (all members of merged lab links too).
	All bool `yaml:"all"`
	// OnPath names the link by what crosses it instead: "traffic[i]", the
	// first link between switches that the data of traffic entry i's
	// first QP takes at the variant's seed (onpath.go).
	OnPath string `yaml:"on_path"`
	// NIC is the storming NIC, "host:nic" (host1:0).
	NIC string `yaml:"nic"`
	// Priority is the priority a storm pauses (default: the lab's first
	// lossless priority).
	Priority *int `yaml:"priority"`
	// At is when the fault starts, For how long a link stays down or a
	// storm lasts (default: to the end).
	At  string `yaml:"at"`
	For string `yaml:"for"`
	// A flap: Down and Up alternate Count times.
	Down  string `yaml:"down"`
	Up    string `yaml:"up"`
	Count *int   `yaml:"count"`
	// Detect and Converge: how long after a link changes the switches at
	// its ends and every other switch route accordingly.
	Detect   string `yaml:"detect"`
	Converge string `yaml:"converge"`
	// Case names the case the fault belongs to, as a traffic entry's
	// does: a variant of another case runs without it.
	Case string `yaml:"case"`
}

// LB is the switches' load balancing over equal-cost paths (the
// simulator's switches).
type LB struct {
	Mode       string `yaml:"mode"`
	FlowletGap string `yaml:"flowlet_gap"`
}

// FaultKinds and LBModes are the values a scenario may use.
var (
	FaultKinds = []string{runtime.FaultLinkDown, runtime.FaultLinkFlap, runtime.FaultPFCStorm}
	LBModes    = []string{"ecmp", "flowlet", "spray", "adaptive"}
)

var nicPattern = lazyregexp.New(`^([A-Za-z0-9_.-]+):([0-9]+)$`)

// parseFaults checks the scenario's faults and load balancing and fills
// s.faults and s.lb. Link and NIC names are checked against the lab when
// the scenario runs (CheckLab).
func (s *Spec) parseFaults(at func(path, msg, fix string) error) error {
	durUs := s.DurationUs
	// dur reads a duration key: zeroOK where 0 is a value of its own (at
	// once), optional where leaving the key out gives a default (a
	// required key's fix does not offer that).
	dur := func(path, v string, zeroOK, optional bool) (float64, error) {
		if v == "" {
			return 0, nil
		}
		us, err := parseDurationUs(v)
		key := path[strings.LastIndex(path, ".")+1:]
		fix := "write a duration above 0, such as 5ms or 200us"
		if zeroOK {
			fix = "write 0 or a duration above it, such as 5ms or 200us"
		}
		if optional {
			fix += ", or leave the key out for its default"
		}
		switch {
		case err == nil && us < 0:
			// "-5us is not a time" read as a syntax error.
			return 0, at(path, fmt.Sprintf("%s %s is negative", key, v), fix)
		case err == nil && us == 0 && !zeroOK:
			return 0, at(path, fmt.Sprintf("%s %s is not above 0", key, v), fix)
		case err != nil:
			return 0, at(path, fmt.Sprintf("%q is not a time", v), "write a duration such as 5ms or 200us")
		}
		return us, nil
	}
	s.faults = nil
	for i, f := range s.Faults {
		p := fmt.Sprintf("$.faults[%d]", i)
		only := func(field string, set bool, kinds ...string) error {
			for _, k := range kinds {
				if f.Kind == k {
					return nil
				}
			}
			if set {
				return at(p+"."+field, fmt.Sprintf("%s does not apply to a %s fault", field, f.Kind), "remove it; it applies to "+strings.Join(kinds, ", "))
			}
			return nil
		}
		switch f.Kind {
		case runtime.FaultLinkDown, runtime.FaultLinkFlap, runtime.FaultPFCStorm:
		case "":
			return at(p, "the fault has no kind", "add kind: "+strings.Join(FaultKinds, ", or "))
		default:
			return at(p+".kind", fmt.Sprintf("unknown fault kind %q", f.Kind), "use "+strings.Join(FaultKinds, ", "))
		}
		link := []string{runtime.FaultLinkDown, runtime.FaultLinkFlap}
		for _, err := range []error{
			only("link", f.Link != "", link...),
			only("all", f.All, link...),
			only("on_path", f.OnPath != "", link...),
			only("detect", f.Detect != "", link...),
			only("converge", f.Converge != "", link...),
			only("nic", f.NIC != "", runtime.FaultPFCStorm),
			only("priority", f.Priority != nil, runtime.FaultPFCStorm),
			only("for", f.For != "", runtime.FaultLinkDown, runtime.FaultPFCStorm),
			only("down", f.Down != "", runtime.FaultLinkFlap),
			only("up", f.Up != "", runtime.FaultLinkFlap),
			only("count", f.Count != nil, runtime.FaultLinkFlap),
		} {
			if err != nil {
				return err
			}
		}
		if f.All && (f.Link == "" || strings.Contains(f.Link, ":")) {
			return at(p+".all", "all needs a link named by its two nodes", "name the link node-node (leaf1-spine1), or leave all out")
		}
		if f.OnPath != "" {
			if f.Link != "" {
				return at(p+".on_path", "link and on_path both name the failed link", "keep one: link names the link, on_path finds it on a traffic entry's path")
			}
			if err := s.checkOnPath(f.OnPath, func(msg, fix string) error { return at(p+".on_path", msg, fix) }); err != nil {
				return err
			}
		}
		fs := runtime.FaultSpec{Kind: f.Kind, Link: f.Link, All: f.All, OnPath: f.OnPath}
		var err error
		if f.At == "" {
			return at(p, "the fault has no start", "add at: a time within the duration, such as 5ms")
		}
		if fs.AtUs, err = dur(p+".at", f.At, true, false); err != nil {
			return err
		}
		if fs.AtUs >= durUs {
			return at(p+".at", fmt.Sprintf("at %s is not within the duration %s", f.At, s.Duration), "start the fault before the scenario ends")
		}
		if fs.ForUs, err = dur(p+".for", f.For, false, true); err != nil {
			return err
		}
		if fs.DetectUs, err = dur(p+".detect", f.Detect, true, true); err != nil {
			return err
		}
		if fs.ConvergeUs, err = dur(p+".converge", f.Converge, true, true); err != nil {
			return err
		}
		// An explicit 0 means at once; FaultSpec keeps 0 for the default.
		if f.Detect != "" && fs.DetectUs == 0 {
			fs.DetectUs = -1
		}
		if f.Converge != "" && fs.ConvergeUs == 0 {
			fs.ConvergeUs = -1
		}
		switch f.Kind {
		case runtime.FaultLinkDown, runtime.FaultLinkFlap:
			if f.Link == "" && f.OnPath == "" {
				return at(p, "the fault names no link", "add link: node:port (leaf1:Ethernet128) or node-node (leaf1-spine1), or on_path: traffic[0] for the link the first flow's data takes")
			}
			if f.Kind == runtime.FaultLinkFlap {
				if fs.DownUs, err = dur(p+".down", f.Down, false, false); err != nil {
					return err
				}
				if fs.UpUs, err = dur(p+".up", f.Up, false, false); err != nil {
					return err
				}
				if fs.DownUs == 0 || fs.UpUs == 0 {
					return at(p, "a flap needs down and up times", "add down: and up:, e.g. down: 1ms, up: 4ms")
				}
				// Left out, one flap; written out, 1 to 1000 (a count of 0
				// ran one flap).
				fs.Count = 1
				if f.Count != nil {
					fs.Count = *f.Count
				}
				if fs.Count < 1 || fs.Count > 1000 {
					return at(p+".count", fmt.Sprintf("count %d is out of range", fs.Count), "use 1 to 1000, or leave count out for one flap")
				}
			}
		case runtime.FaultPFCStorm:
			if f.NIC == "" {
				return at(p, "the storm names no NIC", "add nic: the storming NIC as host:nic, e.g. host1:0")
			}
			m := nicPattern().FindStringSubmatch(f.NIC)
			if m == nil {
				return at(p+".nic", fmt.Sprintf("nic %q is not a NIC", f.NIC), "name the storming NIC as host:nic, e.g. host1:0")
			}
			n, _ := strconv.Atoi(m[2])
			fs.NIC = &runtime.Endpoint{Host: m[1], NIC: n}
			if f.Priority != nil {
				if *f.Priority < 0 || *f.Priority > 7 {
					return at(p+".priority", fmt.Sprintf("priority %d is out of range", *f.Priority), "use 0 to 7, the lossless class's priority (3 in labctl's intent)")
				}
				fs.Priority = *f.Priority
			} else {
				fs.Priority = -1 // the lab's first lossless priority
			}
		}
		s.faults = append(s.faults, fs)
	}
	if s.LB != nil {
		lb := runtime.LBSpec{Mode: s.LB.Mode}
		found := false
		for _, m := range LBModes {
			found = found || m == lb.Mode
		}
		switch {
		case s.LB.Mode == "":
			// lb: {} said `unknown load balancing ""`, at no place.
			return specyaml.AtFirst(s.file, s.src, "lb has no mode", "add mode: one of "+strings.Join(LBModes, ", ")+", or remove lb for ecmp", "$.lb.mode", "$.lb")
		case !found:
			return at("$.lb.mode", fmt.Sprintf("unknown load balancing %q", s.LB.Mode), "use "+strings.Join(LBModes, ", "))
		}
		if s.LB.FlowletGap != "" {
			if lb.Mode != "flowlet" {
				return at("$.lb.flowlet_gap", "flowlet_gap applies to mode flowlet only", "remove it, or set mode: flowlet")
			}
			var err error
			if lb.FlowletGapUs, err = dur("$.lb.flowlet_gap", s.LB.FlowletGap, false, true); err != nil {
				return err
			}
		}
		s.lb = lb
	}
	return nil
}

// CheckLab checks what a scenario names in a lab: the links of its
// faults, and the NICs that storm.
func (s *Spec) CheckLab(g *fabric.Graph) error {
	s.graph = g
	if err := s.checkNCCLLab(g); err != nil {
		return err
	}
	for i, f := range s.faults {
		switch {
		case f.Link != "":
			if _, _, err := g.LinkByName(f.Link); err != nil {
				return specyaml.At(s.file, s.src, fmt.Sprintf("$.faults[%d].link", i), err.Error(), "name a link of the lab: node:port (leaf1:Ethernet128) or node-node (leaf1-spine1); 'labctl topo "+g.Name+"' lists them")
			}
		case f.NIC != nil:
			h := g.Node(f.NIC.Host)
			if h == nil || h.Role != fabric.RoleHost || f.NIC.NIC >= len(h.Ports) {
				return specyaml.At(s.file, s.src, fmt.Sprintf("$.faults[%d].nic", i), fmt.Sprintf("the lab has no NIC %s:%d", f.NIC.Host, f.NIC.NIC), "name a NIC as host<k>:<i>, i from 0 to the NICs per server - 1")
			}
		}
	}
	return nil
}

// pfcStormOnInfiniBand refuses, before anything runs, a variant that
// would run a pfc-storm fault on InfiniBand, which has no PFC to storm
// with, at the fault's kind: the simulator refused it only when the
// variant's turn came, after the variants before it had run.
func (s *Spec) pfcStormOnInfiniBand(pt Point) error {
	c := pointCase(pt)
	for i, f := range s.Faults {
		if f.Kind != runtime.FaultPFCStorm || !inCase(f.Case, c) {
			continue
		}
		msg := fmt.Sprintf("variant %s runs InfiniBand, which has no PFC, so faults[%d] (pfc-storm) cannot happen on it", pt.Name, i)
		fix := "run it with transport roce or uet, or leave InfiniBand out of the matrix with exclude: [{transport: infiniband}]"
		return exitcode.Usage(specyaml.AtFirst(s.file, s.src, msg, fix, fmt.Sprintf("$.faults[%d].kind", i), fmt.Sprintf("$.faults[%d]", i)))
	}
	return nil
}

// overlappingFaults refuses, before anything runs, two link faults of a
// point that have one link down at the same time: the same link named
// twice, or by its two ends, or node-node and node:port, or a link-down
// over one of a flap's downs. A link has one state, which their downs and
// ups would leave ambiguous, and the simulator refused them only when
// the point's turn came, after the points before it had run and been
// saved. vs is the point's expanded variant (links found on a path are
// resolved); a flap's downs are the runtime's (FaultSpec.DownNs). The
// error is at the second fault's at.
func (s *Spec) overlappingFaults(g *fabric.Graph, pt Point, vs runtime.VariantSpec) error {
	if g == nil {
		return nil
	}
	c := pointCase(pt)
	end := runtime.FaultNs(vs.DurationUs)
	type down struct {
		fault    int // index in s.Faults
		from, to int64
	}
	downs := map[fabric.LinkMember][]down{}
	for k, fi := range s.caseFaultIndices(c) {
		f := vs.Faults[k]
		if f.Kind != runtime.FaultLinkDown && f.Kind != runtime.FaultLinkFlap {
			continue
		}
		lms, err := g.LinkMembers(f.Link, f.All)
		if err != nil {
			continue // CheckLab placed it; the runtime says what else is wrong
		}
		for _, iv := range f.DownNs(vs.DurationUs) {
			d := down{fault: fi, from: iv[0], to: iv[1]}
			if d.to == 0 {
				d.to = end
			}
			for _, lm := range lms {
				for _, o := range downs[lm] {
					if o.fault == fi || o.from >= d.to || d.from >= o.to {
						continue
					}
					return s.faultsOverlap(g, pt, lm, o.fault, fi, o.from, o.to, d.from, d.to, end)
				}
				downs[lm] = append(downs[lm], d)
			}
		}
	}
	return nil
}

// faultsOverlap is overlappingFaults' refusal: faults i and j have link
// lm down from a to b and from c to d (end: the variant's end), in ns.
func (s *Spec) faultsOverlap(g *fabric.Graph, pt Point, lm fabric.LinkMember, i, j int, a, b, c, d, end int64) error {
	at := func(ns int64) string { return fmtDuration(time.Duration(ns)) }
	span := func(from, to int64) string {
		if to >= end {
			return "from " + at(from) + " to the end"
		}
		return "from " + at(from) + " to " + at(to)
	}
	named := ""
	if li, lj := s.faultLinkName(i), s.faultLinkName(j); li != lj {
		named = fmt.Sprintf("; faults[%d] names it %s, faults[%d] %s", i, li, j, lj)
	}
	msg := fmt.Sprintf("variant %s: faults[%d] and faults[%d] take the link %s down at the same time (faults[%d] %s, faults[%d] %s%s): a link is down or up, one fault at a time",
		pt.Name, i, j, g.MemberName(lm), i, span(a, b), j, span(c, d), named)
	fix := fmt.Sprintf("start faults[%d] at %s or later, when faults[%d] has brought the link up, or name another link", j, at(b), i)
	if b >= end {
		fix = fmt.Sprintf("give faults[%d] a for: that ends it by %s, when faults[%d] starts, or name another link", i, at(c), j)
	}
	return exitcode.Usage(specyaml.AtFirst(s.file, s.src, msg, fix, fmt.Sprintf("$.faults[%d].at", j), fmt.Sprintf("$.faults[%d]", j)))
}

// faultLinkName is how fault i names its link.
func (s *Spec) faultLinkName(i int) string {
	if f := s.Faults[i]; f.Link != "" {
		return f.Link
	}
	return "on_path " + s.Faults[i].OnPath
}
