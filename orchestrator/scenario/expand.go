package scenario

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/specyaml"
)

// NIC is one GPU NIC of the lab, where scenarios place traffic.
type NIC struct {
	runtime.Endpoint
	Leaf string
}

func (n NIC) String() string { return fmt.Sprintf("%s:%d", n.Host, n.NIC) }

// Point is one variant of the matrix at one repetition.
type Point struct {
	Name     string
	ECN, PFC bool
	// Params are the swept parameters' values, in the matrix's order.
	Params     []Param
	Repetition int
}

// Points lists the variants to run, repetition by repetition.
func (s *Spec) Points() []Point {
	var out []Point
	matrix := s.matrix()
	for rep := range s.Repetitions {
		for _, pt := range matrix {
			pt.Repetition = rep
			out = append(out, pt)
		}
	}
	return out
}

// matrix lists the matrix's variants in run order, at repetition 0: ECN,
// then PFC, then each swept parameter in the file's order, the last
// varying fastest; those the matrix excludes are left out.
func (s *Spec) matrix() []Point {
	var out []Point
	for _, e := range s.Matrix.ECN {
		for _, p := range s.Matrix.PFC {
			be, _ := parseOnOff(e)
			bp, _ := parseOnOff(p)
			for _, idx := range s.sweepPoints() {
				pt := Point{ECN: be, PFC: bp}
				for k, i := range idx {
					sw := s.Matrix.Sweeps[k]
					pt.Params = append(pt.Params, Param{Path: sw.Path, Value: sw.Values[i]})
				}
				pt.Name = PointName(be, bp, pt.Params)
				if !s.Matrix.excluded(pt) {
					out = append(out, pt)
				}
			}
		}
	}
	return out
}

// PointName is a variant's name: ECN and PFC, then every swept parameter,
// such as "ecn=on,pfc=on,qos.ecn.kmin_kb=200".
func PointName(ecn, pfc bool, params []Param) string {
	var b strings.Builder
	b.WriteString(VariantName(ecn, pfc))
	for _, p := range params {
		b.WriteString("," + p.Path + "=" + p.Value)
	}
	return b.String()
}

// ofPoint is point pt's own scenario (pointSpec at its swept values) and
// those values' indexes.
func (s *Spec) ofPoint(pt Point) (*Spec, []int, error) {
	idx, err := s.pointIndex(pt)
	if err != nil {
		return nil, nil, exitcode.Usagef("scenario %s: %v", s.Name, err)
	}
	ps, err := s.pointSpec(idx, func(path, msg, fix string) error {
		return exitcode.Usagef("scenario %s point %s: %s (fix: %s)", s.Name, pt.Name, msg, fix)
	})
	return ps, idx, err
}

// Expand turns the spec's traffic into the concrete flows of one variant
// on a lab with the given NICs (in fabric order). seed drives the random
// choices (permutation); the same seed gives the same flows.
func (s *Spec) Expand(nics []NIC, pt Point, seed int64) (runtime.VariantSpec, error) {
	var params map[string]string
	var swept lab.QoSSpec
	if len(s.Matrix.Sweeps) > 0 {
		// The point's own scenario: its swept traffic and timing.
		ps, idx, err := s.ofPoint(pt)
		if err != nil {
			return runtime.VariantSpec{}, err
		}
		s = ps
		params = map[string]string{}
		for _, p := range pt.Params {
			params[p.Path] = p.Value
		}
		swept = s.overlay(famQoS, idx).(lab.QoSSpec)
	}
	vs := runtime.VariantSpec{
		Params:      params,
		QoS:         swept,
		Name:        pt.Name,
		ECN:         pt.ECN,
		PFC:         pt.PFC,
		Repetition:  pt.Repetition,
		Seed:        seed,
		DurationUs:  s.DurationUs,
		WarmupUs:    s.WarmupUs,
		SeriesEvery: s.SampleEveryUs,
		Faults:      s.caseFaults(pointCase(pt)),
		LB:          s.lb,
	}
	if s.SampleEveryUs == 0 {
		vs.SeriesEvery = -1
	}
	if len(nics) < 2 {
		return vs, exitcode.Usagef("scenario %s needs at least 2 NICs; the lab has %d", s.Name, len(nics))
	}
	ids := map[string]int{}
	add := func(t *Traffic, role string, src, dst NIC) {
		id := src.String() + "->" + dst.String()
		ids[id]++
		if n := ids[id]; n > 1 {
			id = fmt.Sprintf("%s#%d", id, n)
		}
		vs.Flows = append(vs.Flows, runtime.FlowSpec{
			ID: id, Src: src.Endpoint, Dst: dst.Endpoint, Pattern: t.Pattern, Role: role,
			Bytes: t.BytesN, MessageBytes: t.MessageBytes, QPs: t.QPs,
			TrafficClass: *t.TrafficClass, StartUs: t.StartUs,
			TxDepth: t.TxDepth, Bidirectional: t.Bidirectional, Iterations: t.Iterations,
		})
	}
	leaves := leafOrder(nics)
	// first is the index in vs.Flows of each traffic entry's first flow.
	first := map[int]int{}
	for i := range s.Traffic {
		t := &s.Traffic[i]
		if !inCase(t.Case, pointCase(pt)) {
			continue
		}
		first[i] = len(vs.Flows)
		cross := len(leaves) > 1
		// at places a problem found against the lab at the entry's key.
		at := func(key, msg, fix string) error { return s.trafficAt(i, key, msg, fix) }
		if t.CrossLeaf != nil {
			if *t.CrossLeaf && len(leaves) < 2 {
				// Asked to cross the spines, the traffic would stay
				// under one leaf, and its figures would say nothing of
				// the spines.
				return vs, at("cross_leaf", fmt.Sprintf("cross_leaf is true, but the lab has %d leaf: no traffic can cross the spines", len(leaves)),
					"run the scenario on a lab of more than one leaf, or set cross_leaf: false")
			}
			cross = *t.CrossLeaf && len(leaves) > 1
		}
		switch t.Pattern {
		case "pairs", runtime.PatternLatency:
			// A latency pair is placed as a bandwidth pair is: the client
			// on one side of the fabric, the server on the other.
			srcs, dsts := pairSides(nics, leaves, cross)
			if t.Pairs > len(srcs) {
				return vs, at("pairs", fmt.Sprintf("%d pairs do not fit the lab (%d at most here)", t.Pairs, len(srcs)), fmt.Sprintf("lower pairs to %d or fewer", len(srcs)))
			}
			for k := range t.Pairs {
				add(t, t.roleName(), srcs[k], dsts[k])
			}
		case "permutation":
			sel, err := pickRanks(nics, t.Ranks, at)
			if err != nil {
				return vs, err
			}
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)+0x9e3779b97f4a7c15))
			for k, d := range permutation(sel, rng) {
				add(t, t.roleName(), sel[k], d)
			}
		case "incast":
			recv := nics[0]
			var cands []NIC
			for _, n := range nics {
				if n.Host == recv.Host || (cross && n.Leaf == recv.Leaf) {
					continue
				}
				cands = append(cands, n)
			}
			cands = spreadByHost(cands)
			// Same-host NICs come last: they still cross the leaf.
			if !cross {
				for _, n := range nics[1:] {
					if n.Host == recv.Host {
						cands = append(cands, n)
					}
				}
			}
			need := t.Senders
			if len(cands) < need {
				return vs, at("senders", fmt.Sprintf("%d senders do not fit the lab (%d NICs can send to %s)", need, len(cands), recv), fmt.Sprintf("lower senders to %d or fewer", len(cands)))
			}
			senders := cands[:need]
			for _, snd := range senders {
				add(t, t.roleName(), snd, recv)
			}
			if t.Victim {
				victimDst, ok := pickVictimDst(nics, recv, senders)
				if !ok {
					return vs, at("victim", "no NIC of the lab is left for the victim flow's receiver", "lower senders or set victim: false")
				}
				add(t, "victim", senders[0], victimDst)
			}
		case "all-to-all":
			r := t.Ranks
			if r == 0 {
				r = min(len(nics), MaxAllToAllRanks)
			}
			sel, err := pickRanks(nics, r, at)
			if err != nil {
				return vs, err
			}
			if r*(r-1) > MaxPairFlows {
				// Too many QPs to list: one collective, reported per
				// sending rank (simulator only).
				if t.BytesN == 0 {
					return vs, at("ranks", fmt.Sprintf("%d ranks make %d QPs, which run as one collective that needs a size", r, r*(r-1)), "add bytes (each rank's message to each other rank, e.g. 64KiB), or use ranks of at most 91")
				}
				if vs.Collective != nil {
					return vs, at("pattern", oneCollective, oneCollectiveFix)
				}
				var eps []runtime.Endpoint
				for _, n := range sel {
					eps = append(eps, n.Endpoint)
				}
				vs.Collective = &runtime.CollectiveSpec{Kind: runtime.CollectiveAllToAll, Ranks: eps, Bytes: t.BytesN, TrafficClass: *t.TrafficClass, StartUs: t.StartUs, Role: t.Role}
				break
			}
			for _, a := range sel {
				for _, b := range sel {
					if a != b {
						add(t, t.roleName(), a, b)
					}
				}
			}
		case PatternNCCL:
			if vs.Collective != nil {
				return vs, at("pattern", oneCollective, oneCollectiveFix)
			}
			vs.Collective = expandNCCL(nics, t)
		case "ring-allreduce":
			if vs.Collective != nil {
				return vs, at("pattern", oneCollective, oneCollectiveFix)
			}
			ring, err := ringRanks(nics, t)
			if err != nil {
				return vs, at("ranks", err.Error(), ranksFix)
			}
			// A ring cuts the buffer into one chunk a rank, sizes that add
			// up to it (engine.RingStepBytes): below a byte a rank some
			// chunks are empty, and an empty step has no packet to carry
			// it (a flow of 0 bytes runs for the whole duration).
			if t.BytesN < int64(len(ring)) {
				fix := fmt.Sprintf("raise bytes to %d B or more (one byte a rank)", len(ring))
				if t.BytesN >= 2 {
					fix += fmt.Sprintf(", or lower ranks to %d or fewer", t.BytesN)
				}
				return vs, s.bytesAt(i, fmt.Sprintf("a ring-allreduce of %d B over %d ranks leaves %d of its %d chunks empty (a ring cuts the buffer into one chunk a rank)", t.BytesN, len(ring), int64(len(ring))-t.BytesN, len(ring)), fix)
			}
			// The ring follows fabric order (NICs of a host, then the next
			// host), as NCCL builds rings: most hops stay under one leaf.
			c := &runtime.CollectiveSpec{Kind: runtime.CollectiveRingAllReduce, Bytes: t.BytesN, TrafficClass: *t.TrafficClass, StartUs: t.StartUs}
			for _, n := range ring {
				c.Ranks = append(c.Ranks, n.Endpoint)
			}
			vs.Collective = c
		}
		if first[i] == len(vs.Flows) {
			delete(first, i) // a collective: no flow of its own
		}
	}
	if err := s.resolveOnPath(&vs, pointCase(pt), first); err != nil {
		return vs, err
	}
	return vs, nil
}

// A scenario runs one collective at most.
const (
	oneCollective    = "a scenario runs at most one collective (ring-allreduce, nccl, or all-to-all of more than 91 ranks)"
	oneCollectiveFix = "run the other collective in a scenario of its own"
)

// trafficAt is the error of a problem traffic entry i has on the lab (a
// count that does not fit it), placed at the entry's key in the scenario's
// file, or at the entry where the value came from a default or a sweep.
func (s *Spec) trafficAt(i int, key, msg, fix string) error {
	return specyaml.AtFirst(s.file, s.src, msg, fix, fmt.Sprintf("$.traffic[%d].%s", i, key), fmt.Sprintf("$.traffic[%d]", i))
}

// bytesAt places a problem of traffic entry i's bytes at the matrix key
// that swept them, else as trafficAt does.
func (s *Spec) bytesAt(i int, msg, fix string) error {
	if err := s.atMatrixKey(msg, fix, fmt.Sprintf("traffic[%d].bytes", i)); err != nil {
		return err
	}
	return s.trafficAt(i, "bytes", msg, fix)
}

// atMatrixKey places a problem (bad input) at the first of keys the
// matrix sweeps, in the order given; nil when it sweeps none of them.
func (s *Spec) atMatrixKey(msg, fix string, keys ...string) error {
	for _, key := range keys {
		for _, e := range s.Matrix.entries {
			if e.key == key {
				return exitcode.Usage(&specyaml.Error{File: s.file, Line: e.keyAt.line, Column: e.keyAt.col, Msg: msg, Fix: fix})
			}
		}
	}
	return nil
}

// errRanks is ringRanks' refusal, which callers place at the entry's
// ranks key with ranksFix.
var errRanks = errors.New("the ring's ranks do not fit the lab")

const ranksFix = "set ranks between 2 and the lab's NICs (or servers with rank_per: server), or leave ranks out for all"

// ringRanks picks a ring-allreduce's ranks in fabric order: every NIC, or
// with rank_per: server the first NIC of each server; t.Ranks of them (all
// when 0).
func ringRanks(nics []NIC, t *Traffic) ([]NIC, error) {
	pool, what := nics, "NICs"
	if t.RankPer == "server" {
		pool, what = nil, "servers"
		for _, n := range nics {
			if n.NIC == 0 {
				pool = append(pool, n)
			}
		}
	}
	r := t.Ranks
	if r == 0 {
		r = len(pool)
	}
	if r < 2 || r > len(pool) {
		return nil, fmt.Errorf("%w: %d ranks, the lab's %d %s (2 to %d)", errRanks, r, len(pool), what, len(pool))
	}
	return pool[:r], nil
}

// leafOrder lists the leaves in first-seen order.
func leafOrder(nics []NIC) []string {
	var out []string
	for _, n := range nics {
		if !slices.Contains(out, n.Leaf) {
			out = append(out, n.Leaf)
		}
	}
	return out
}

// pairSides returns matching sender and receiver lists: across leaves the
// first half of the leaves sends to the second half; under one leaf the
// list's front sends to its back (different hosts when there are two).
func pairSides(nics []NIC, leaves []string, cross bool) (srcs, dsts []NIC) {
	if cross {
		half := map[string]bool{}
		for _, l := range leaves[:len(leaves)/2] {
			half[l] = true
		}
		for _, n := range nics {
			if half[n.Leaf] {
				srcs = append(srcs, n)
			} else {
				dsts = append(dsts, n)
			}
		}
		k := min(len(srcs), len(dsts))
		return srcs[:k], dsts[:k]
	}
	k := len(nics) / 2
	srcs = nics[:k]
	for i := range k {
		dsts = append(dsts, nics[len(nics)-1-i])
	}
	return srcs, dsts
}

// pickRanks takes r NICs spread over hosts and leaves (all when r is 0).
func pickRanks(nics []NIC, r int, at func(key, msg, fix string) error) ([]NIC, error) {
	if r == 0 {
		r = len(nics)
	}
	if r > len(nics) {
		return nil, at("ranks", fmt.Sprintf("%d ranks exceed the lab's %d NICs", r, len(nics)), fmt.Sprintf("lower ranks to %d or fewer", len(nics)))
	}
	return spreadByHost(nics)[:r], nil
}

// spreadByHost reorders nics round-robin over hosts (first NIC of every
// host, then the second, ...), keeping host order.
func spreadByHost(nics []NIC) []NIC {
	var hosts []string
	by := map[string][]NIC{}
	for _, n := range nics {
		if _, ok := by[n.Host]; !ok {
			hosts = append(hosts, n.Host)
		}
		by[n.Host] = append(by[n.Host], n)
	}
	out := make([]NIC, 0, len(nics))
	for i := 0; len(out) < len(nics); i++ {
		for _, h := range hosts {
			if i < len(by[h]) {
				out = append(out, by[h][i])
			}
		}
	}
	return out
}

// permutation maps every NIC of sel to another: NICs are grouped by leaf
// (shuffled within), and NIC i sends to NIC i+len/2 of that order. When no
// leaf holds more than half of sel, every flow crosses the spines, and no
// NIC sends to itself.
func permutation(sel []NIC, rng *rand.Rand) []NIC {
	order := slices.Clone(sel)
	slices.SortStableFunc(order, func(a, b NIC) int {
		switch {
		case a.Leaf < b.Leaf:
			return -1
		case a.Leaf > b.Leaf:
			return 1
		}
		return 0
	})
	// Shuffle within each leaf.
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && order[j].Leaf == order[i].Leaf {
			j++
		}
		part := order[i:j]
		rng.Shuffle(len(part), func(a, b int) { part[a], part[b] = part[b], part[a] })
		i = j
	}
	dst := map[NIC]NIC{}
	h := len(order) / 2
	for i, n := range order {
		dst[n] = order[(i+h)%len(order)]
	}
	out := make([]NIC, len(sel))
	for i, n := range sel {
		out[i] = dst[n]
	}
	return out
}

// pickVictimDst picks the victim flow's receiver: a NIC that is neither the
// incast receiver nor a sender, on the receiver's leaf when possible (so the
// victim shares the paused links toward that leaf), on another host than
// the receiver when possible.
func pickVictimDst(nics []NIC, recv NIC, senders []NIC) (NIC, bool) {
	var best NIC
	bestScore := -1
	for _, n := range nics {
		if n == recv || slices.Contains(senders, n) {
			continue
		}
		score := 0
		if n.Leaf == recv.Leaf {
			score += 2
		}
		if n.Host != recv.Host {
			score++
		}
		if score > bestScore {
			best, bestScore = n, score
		}
	}
	return best, bestScore >= 0
}

// NICsFromGraph lists the lab's GPU NICs in fabric order (host by host,
// NIC by NIC) with the leaf each is attached to.
func NICsFromGraph(g *fabric.Graph) []NIC {
	var out []NIC
	for _, h := range g.Hosts() {
		for i, p := range h.Ports {
			out = append(out, NIC{Endpoint: runtime.Endpoint{Host: h.Name, NIC: i}, Leaf: p.Peer})
		}
	}
	return out
}
