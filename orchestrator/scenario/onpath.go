package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// A link fault's on_path names the failed link by what crosses it, so
// that the fault hits a flow's data at every seed: "traffic[i]" is the
// first link between switches (the source leaf's uplink) that the data of
// traffic entry i's first QP takes, as the switches' ECMP hash places it
// at the variant's seed; labctl trace --hash-seed shows the same choice.
var onPathPattern = lazyregexp.New(`^traffic\[([0-9]+)\]$`)

// onPathFlowPatterns are the traffic patterns whose entries are flows of
// their own (a collective's QPs are not).
var onPathFlowPatterns = []string{"pairs", "permutation", "incast", "all-to-all", runtime.PatternLatency}

// onPathEntry is the traffic entry an on_path names.
func onPathEntry(v string) (int, bool) {
	m := onPathPattern().FindStringSubmatch(v)
	if m == nil {
		return 0, false
	}
	i, err := strconv.Atoi(m[1])
	return i, err == nil
}

// checkOnPath checks an on_path value against the scenario's traffic.
func (s *Spec) checkOnPath(v string, bad func(msg, fix string) error) error {
	i, ok := onPathEntry(v)
	if !ok {
		return bad(fmt.Sprintf("on_path %q names no traffic entry", v), "write traffic[i], i the entry (from 0) whose first flow's data the failed link carries, e.g. traffic[0]")
	}
	if i >= len(s.Traffic) {
		return bad(fmt.Sprintf("on_path %s: the scenario has %d traffic entries", v, len(s.Traffic)), fmt.Sprintf("name an entry from traffic[0] to traffic[%d]", max(len(s.Traffic)-1, 0)))
	}
	if p := s.Traffic[i].Pattern; !slices.Contains(onPathFlowPatterns, p) {
		return bad(fmt.Sprintf("on_path %s: a %s entry runs as one collective, with no flow of its own to follow", v, p), "name an entry of pattern pairs, permutation, incast, all-to-all (up to 91 ranks) or latency, or name the link with link:")
	}
	return nil
}

// SetDown gives the lab's links that are down from the start of a run
// (runtime.DownLinks on its configs): on_path follows its flow over the
// links that come up, as the switches route it.
func (s *Spec) SetDown(down []fabric.LinkMember) { s.down = down }

// hasOnPath says whether a fault of the file, or a swept point's, names
// its link by on_path, which needs SetDown's links.
func (s *Spec) hasOnPath() bool {
	return slices.ContainsFunc(s.faults, func(f runtime.FaultSpec) bool { return f.OnPath != "" }) ||
		slices.ContainsFunc(s.Matrix.Sweeps, func(sw Sweep) bool { return sw.family == famFaults && strings.HasSuffix(sw.Path, ".on_path") })
}

// resolveOnPath sets the link of every fault of the variant (of case c)
// that names it by on_path: first holds the index in vs.Flows of each
// traffic entry's first flow.
func (s *Spec) resolveOnPath(vs *runtime.VariantSpec, c string, first map[int]int) error {
	if !slices.ContainsFunc(vs.Faults, func(f runtime.FaultSpec) bool { return f.OnPath != "" }) {
		return nil
	}
	vs.Faults = slices.Clone(vs.Faults) // the spec's own stay unresolved
	// The links down from the start: the configs' (SetDown), and the
	// variant's own faults' that every switch knows of at once (runtime.
	// FaultSpec.DownFromStart), which the simulator starts every route
	// without; an on_path fault resolved below adds its own for the next.
	down := slices.Clone(s.down)
	addDown := func(f runtime.FaultSpec) {
		if s.graph == nil || f.Link == "" || !f.DownFromStart(vs.DurationUs) {
			return
		}
		if lms, err := s.graph.LinkMembers(f.Link, f.All); err == nil {
			down = append(down, lms...)
		}
	}
	for _, f := range vs.Faults {
		if f.OnPath == "" {
			addDown(f)
		}
	}
	for k, fi := range s.caseFaultIndices(c) {
		f := &vs.Faults[k]
		if f.OnPath == "" {
			continue
		}
		where := fmt.Sprintf("$.faults[%d].on_path", fi)
		bad := func(msg, fix string) error { return specyaml.At(s.file, s.src, where, msg, fix) }
		i, _ := onPathEntry(f.OnPath)
		n, ok := first[i]
		switch {
		case !ok:
			return bad(fmt.Sprintf("on_path %s: the entry has no flow in variant %s (a collective, or another case)", f.OnPath, vs.Name), "name an entry that runs flows in every variant with the fault, or name the link with link:")
		case s.graph == nil:
			return bad(fmt.Sprintf("on_path %s: the lab's fabric is needed to follow the flow", f.OnPath), "run the scenario on a lab (labctl run SCENARIO --lab LAB), or name the link with link:")
		}
		link, err := onPathLink(s.graph, vs.Flows[n], n, vs.Seed, down)
		if err != nil {
			fix := "name an entry whose flows cross the spines (cross_leaf: true), or name the link with link:"
			if len(s.graph.NodesByRole(fabric.RoleLeaf)) < 2 {
				fix = "run it on a lab of two leaves or more (64gpu): this lab's one leaf keeps every flow under one switch"
			}
			return bad(fmt.Sprintf("on_path %s: %v", f.OnPath, err), fix)
		}
		f.Link = link
		addDown(*f)
	}
	return nil
}

// onPathLink is the first link between switches on the data path of the
// variant's flow fl (index n, its first QP) at seed, with the links down
// from the start taken out, by one end as node:port (node:port.m for
// member m of a merged lab link).
func onPathLink(g *fabric.Graph, fl runtime.FlowSpec, n int, seed int64, down []fabric.LinkMember) (string, error) {
	src := fabric.Endpoint{Host: fl.Src.Host, NIC: fl.Src.NIC}
	dst := fabric.Endpoint{Host: fl.Dst.Host, NIC: fl.Dst.NIC}
	key, err := g.FlowKeyFor(src, dst, uint16(runtime.QPSourcePort(n, 0)))
	if err != nil {
		return "", err
	}
	p, err := g.TraceDown(src, dst, key, uint64(seed), down)
	if err != nil {
		return "", err
	}
	for _, h := range p.Hops {
		if len(h.Candidates) == 0 {
			break
		}
		c := h.Candidates[h.Chosen]
		if peer := g.Node(c.Peer); peer != nil && peer.Role != fabric.RoleHost {
			return h.Node + ":" + fabric.MemberPort(c.Port, c.Member-1), nil
		}
	}
	return "", fmt.Errorf("the data of flow %s stays under one switch and crosses no link between switches", fl.ID)
}
