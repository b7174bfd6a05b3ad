package sizing

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/plural"
)

// FitError says why no fabric of at most 3 tiers holds the GPUs with the
// given switches, and what would.
type FitError struct {
	Reason     string
	Suggestion string
}

func (e *FitError) Error() string {
	s := e.Reason
	if e.Suggestion != "" {
		s += " (fix: " + e.Suggestion + ")"
	}
	return s
}

// geometry holds the per-port arithmetic shared by every tier.
type geometry struct {
	in Input
	// nicsPerDownPort is how many NICs one leaf downlink port carries (the
	// leaf-side breakout factor).
	nicsPerDownPort int
	// linkSpeed is the speed of a fabric (leaf-spine, spine-super-spine) link:
	// the slower of the two switch port speeds; the faster side breaks out.
	linkSpeed int
	// linksPerLeafPort / linksPerSpinePort: fabric links per physical port.
	linksPerLeafPort  int
	linksPerSpinePort int
}

func newGeometry(in Input) geometry {
	g := geometry{in: in}
	g.nicsPerDownPort = in.LeafSpeedGbps / in.NICSpeedGbps
	g.linkSpeed = min(in.LeafSpeedGbps, in.SpineSpeedGbps)
	g.linksPerLeafPort = in.LeafSpeedGbps / g.linkSpeed
	g.linksPerSpinePort = in.SpineSpeedGbps / g.linkSpeed
	return g
}

// spineSlots is how many fabric links one spine (or super-spine) terminates.
func (g geometry) spineSlots() int { return g.in.SpinePorts * g.linksPerSpinePort }

// uplinksFor is the smallest number of fabric links that keeps a leaf with
// nics NICs within the target oversubscription.
func (g geometry) uplinksFor(nics int) int {
	need := float64(nics*g.in.NICSpeedGbps) / (g.in.Oversubscription * float64(g.linkSpeed))
	return int(math.Ceil(need - 1e-9))
}

func (g geometry) downPorts(nics int) int { return ceilDiv(nics, g.nicsPerDownPort) }
func (g geometry) upPorts(links int) int  { return ceilDiv(links, g.linksPerLeafPort) }
func (g geometry) leafFits(nics, up int) bool {
	return g.downPorts(nics)+g.upPorts(up) <= g.in.LeafPorts
}

// maxNICsPerLeaf is the most NICs one leaf takes with the uplinks the target
// oversubscription needs.
func (g geometry) maxNICsPerLeaf() int {
	best := 0
	for d := 1; d <= g.in.LeafPorts*g.nicsPerDownPort; d++ {
		if g.leafFits(d, g.uplinksFor(d)) {
			best = d
		}
	}
	return best
}

// Compute plans the fabric for in. Errors are exit-code-2 errors wrapping an
// *InputError (a bad field) or a *FitError (no fabric of at most 3 tiers).
func Compute(in Input) (*Plan, error) {
	return compute(in.Normalize(), true)
}

func compute(in Input, suggest bool) (*Plan, error) {
	if err := in.Validate(); err != nil {
		return nil, exitcode.Usage(err)
	}
	g := newGeometry(in)
	if in.Tiers == 1 {
		p := newPlan(in)
		if err := plan1Tier(p, g); err != nil {
			return nil, exitcode.Usage(err)
		}
		return p, nil
	}
	dmax := g.maxNICsPerLeaf()
	if dmax == 0 {
		return nil, exitcode.Usage(&FitError{Reason: fmt.Sprintf("a %dx%dG leaf cannot attach even one %dG NIC with the uplinks %g:1 needs", in.LeafPorts, in.LeafSpeedGbps, in.NICSpeedGbps, in.Oversubscription), Suggestion: "use a leaf with more ports or a higher oversubscription"})
	}
	best, err := planLeaves(in, g, dmax)
	bestCap := dmax
	var ie *InputError
	if errors.As(err, &ie) {
		return nil, exitcode.Usage(ie)
	}
	// The fewest leaves are not always the fewest switches: a full leaf
	// may have no room for the uplinks that split evenly over the spines,
	// where leaves taking fewer NICs need fewer uplinks each (63 400G
	// NICs at 2:1 on 32-port leaves: 3 leaves of 21 NICs and 11 uplinks
	// take 11 spines of one link each, 4 leaves of 16 NICs and 8 uplinks
	// one spine). So leaves that take fewer NICs are tried too, while
	// there are fewer of them than the best plan has switches (better
	// says which wins). A ToR layout keeps its servers whole.
	step := 1
	if in.Layout == LayoutToR && in.GPUsPerServer <= dmax {
		step = in.GPUsPerServer
	}
	fewest := leafCount(in, dmax)
	tried := fewest
	for c := dmax - 1; c >= step; c-- {
		n := leafCount(in, c)
		if c%step != 0 || n == tried {
			continue
		}
		if best == nil && n > 2*fewest || best != nil && n >= best.SwitchCount() {
			break
		}
		tried = n
		if p, err := planLeaves(in, g, c); err == nil && (best == nil || better(p, best)) {
			best, bestCap = p, c
		}
	}
	if best != nil {
		place(best, in, bestCap, dmax)
		warnSingleSpine(best, in)
		return best, nil
	}
	var fe *FitError
	if errors.As(err, &fe) && fe.Suggestion == "" && suggest {
		fe.Suggestion = suggestFit(in)
	}
	return nil, exitcode.Usage(err)
}

// better says whether plan a is to be bought rather than b: fewer
// switches; as many, then not a single spine (per pod) where b has one,
// fewer tiers, fewer optics.
func better(a, b *Plan) bool {
	if a.SwitchCount() != b.SwitchCount() {
		return a.SwitchCount() < b.SwitchCount()
	}
	if single := func(p *Plan) bool { return p.Spine.PerPod == 1 }; single(a) != single(b) {
		return single(b)
	}
	if a.Tiers != b.Tiers {
		return a.Tiers < b.Tiers
	}
	return a.OpticsTotal() < b.OpticsTotal()
}

// newPlan is a plan of in's servers and NICs, before any switch.
func newPlan(in Input) *Plan {
	p := &Plan{
		SchemaVersion: SchemaVersion,
		GPUs:          in.GPUs,
		GPUsPerServer: in.GPUsPerServer,
		Servers:       ceilDiv(in.GPUs, in.GPUsPerServer),
		NICs:          in.GPUs, // one NIC per GPU, as in the seed
		NICSpeedGbps:  in.NICSpeedGbps,
		Layout:        in.Layout,
		Warnings:      []string{},
	}
	if rem := in.GPUs % in.GPUsPerServer; rem != 0 {
		gpus := fmt.Sprintf("%d GPUs", rem)
		if rem == 1 {
			gpus = "1 GPU"
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d GPUs do not fill whole servers: server %d has %s", in.GPUs, p.Servers, gpus))
	}
	return p
}

// leafCount is how many leaves place uses when a leaf takes at most c NICs.
func leafCount(in Input, c int) int {
	servers := ceilDiv(in.GPUs, in.GPUsPerServer)
	switch {
	case in.Layout == LayoutRail:
		return ceilDiv(servers, c) * in.GPUsPerServer
	case in.GPUsPerServer <= c:
		return ceilDiv(servers, c/in.GPUsPerServer)
	}
	return ceilDiv(in.GPUs, c)
}

// planLeaves plans a 2- or 3-tier fabric whose leaves take at most c NICs
// each. Its errors are an *InputError, or a *FitError without a
// suggestion.
func planLeaves(in Input, g geometry, c int) (*Plan, error) {
	p := newPlan(in)
	if in.Layout == LayoutRail {
		// One rail per NIC of a full server; a fabric of one partly
		// filled server has only as many rails as that server has NICs.
		p.Leaf.Rails = min(in.GPUsPerServer, in.GPUs)
		p.Leaf.LeavesPerRail = ceilDiv(p.Servers, c)
	}
	nicsPerLeaf := leafLoads(in, c)
	leaves := len(nicsPerLeaf)
	d := 0
	for _, n := range nicsPerLeaf {
		d = max(d, n)
	}
	up := g.uplinksFor(d)

	fit2 := errors.New("not tried")
	if in.Tiers != 3 {
		fit2 = plan2Tier(p, g, leaves, d, up)
		if fit2 == nil {
			finish(p, g, nicsPerLeaf)
			return p, nil
		}
		var ie *InputError
		if errors.As(fit2, &ie) {
			return nil, ie
		}
		if in.Tiers == 2 {
			return nil, &FitError{Reason: "2 tiers cannot hold this fabric: " + fit2.Error(), Suggestion: "drop tiers: 2 to let labctl plan 3 tiers, or use switches with more ports"}
		}
	}
	fit3 := plan3Tier(p, g, leaves, d, up)
	if fit3 == nil {
		if in.Tiers != 3 {
			p.Warnings = append(p.Warnings, "2 tiers cannot hold this fabric ("+fit2.Error()+"): planned a 3-tier Clos")
		}
		finish(p, g, nicsPerLeaf)
		return p, nil
	}
	var ie *InputError
	if errors.As(fit3, &ie) {
		return nil, ie
	}
	return nil, &FitError{Reason: fmt.Sprintf("%d GPUs do not fit in 3 tiers of %dx%dG switches: %v", in.GPUs, in.SpinePorts, in.SpineSpeedGbps, fit3)}
}

// place assigns NICs to leaves as leafLoads counts them, filling
// p.Placement and the placement's warnings. It uses the fewest leaves that take dmax NICs each
// and spreads the servers over them as evenly as it can, in order: every
// leaf's uplinks are sized for the fullest leaf, so 40 GPUs on two leaves
// of 32 NICs need 12 uplinks each as 16+24, where 32+8 needed 16 (the
// seed divides the NICs evenly over the leaves too).
func place(p *Plan, in Input, c, dmax int) {
	// Its warnings come before those of the tiers.
	tierWarnings := slices.Clone(p.Warnings[len(newPlan(in).Warnings):])
	p.Warnings = p.Warnings[:len(p.Warnings)-len(tierWarnings)]
	defer func() { p.Warnings = append(p.Warnings, tierWarnings...) }()
	gpusOf := func(s int) int { // 0-based server
		if s == p.Servers-1 && in.GPUs%in.GPUsPerServer != 0 {
			return in.GPUs % in.GPUsPerServer
		}
		return in.GPUsPerServer
	}
	p.Placement = make([]ServerPlacement, p.Servers)
	switch {
	case in.Layout == LayoutRail:
		// NIC i of every server goes to rail i. A rail's leaf takes up to
		// c servers; leaves are numbered group by group (a group of
		// servers gets one leaf per rail), so rail i's leaf group is every
		// leaf numbered i+1 modulo the rail count.
		rails := p.Leaf.Rails
		groups := ceilDiv(p.Servers, c)
		for s := range p.Servers {
			n := gpusOf(s)
			sp := ServerPlacement{Server: s + 1, GPUs: n, Leaves: make([]int, n)}
			for i := range n {
				leaf := evenPart(s, p.Servers, groups)*rails + i
				sp.Leaves[i] = leaf + 1
			}
			p.Placement[s] = sp
		}
		if perRail := ceilDiv(p.Servers, groups); perRail*2 <= dmax {
			p.Warnings = append(p.Warnings, fmt.Sprintf("rail layout: each rail leaf attaches %d of the %d NICs it could take; a ToR layout needs fewer leaves at this size", perRail, dmax))
		}
	case in.GPUsPerServer <= c:
		// The seed's ToR layout: a server's NICs on one leaf, servers in
		// order.
		leaves := ceilDiv(p.Servers, c/in.GPUsPerServer)
		for s := range p.Servers {
			n := gpusOf(s)
			sp := ServerPlacement{Server: s + 1, GPUs: n, Leaves: make([]int, n)}
			leaf := evenPart(s, p.Servers, leaves)
			for i := range n {
				sp.Leaves[i] = leaf + 1
			}
			p.Placement[s] = sp
		}
	default:
		// A server has more NICs than a leaf can take: NICs fill leaves in
		// order and some servers span two leaves.
		leaves := ceilDiv(p.NICs, c)
		nic := 0
		var split []string
		for s := range p.Servers {
			n := gpusOf(s)
			sp := ServerPlacement{Server: s + 1, GPUs: n, Leaves: make([]int, n)}
			for i := range n {
				leaf := evenPart(nic, p.NICs, leaves)
				sp.Leaves[i] = leaf + 1
				nic++
			}
			if sp.Leaves[0] != sp.Leaves[n-1] && len(split) < 5 {
				split = append(split, fmt.Sprintf("server %d on leaves %d-%d", s+1, sp.Leaves[0], sp.Leaves[n-1]))
			}
			p.Placement[s] = sp
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("a server's %d NICs do not fit on one leaf (at most %d NICs per leaf at %g:1): servers are split across leaves (%s)", in.GPUsPerServer, dmax, in.Oversubscription, strings.Join(split, ", ")))
	}
}

// leafLoads is the number of NICs on each leaf that place attaches when a
// leaf takes at most c NICs, counted without placing every NIC, so that
// many leaf sizes can be tried on a large fabric.
func leafLoads(in Input, c int) []int {
	servers := ceilDiv(in.GPUs, in.GPUsPerServer)
	short := in.GPUs % in.GPUsPerServer // the last server's NICs, if short
	var loads []int
	switch {
	case in.Layout == LayoutRail:
		rails := in.GPUsPerServer
		if servers == 1 {
			rails = in.GPUs
		}
		groups := ceilDiv(servers, c)
		for j := range groups {
			n := evenRun(j, servers, groups)
			for i := range rails {
				switch {
				case j < groups-1 || short == 0 || i < short:
					loads = append(loads, n)
				case n > 1: // the short server has no NIC on rail i
					loads = append(loads, n-1)
				}
			}
		}
	case in.GPUsPerServer <= c:
		leaves := ceilDiv(servers, c/in.GPUsPerServer)
		for j := range leaves {
			loads = append(loads, evenRun(j, servers, leaves)*in.GPUsPerServer)
		}
		if short > 0 {
			loads[leaves-1] -= in.GPUsPerServer - short
		}
	default:
		leaves := ceilDiv(in.GPUs, c)
		for j := range leaves {
			loads = append(loads, evenRun(j, in.GPUs, leaves))
		}
	}
	return loads
}

// evenRun is the length of run j when evenPart cuts n items into parts.
func evenRun(j, n, parts int) int {
	if j >= parts-n%parts {
		return n/parts + 1
	}
	return n / parts
}

// evenPart is the part (0-based) item x of n falls in when n items are cut,
// in order, into parts runs as even as can be: the last n%parts runs take
// one more, so a short last server shares the larger run.
func evenPart(x, n, parts int) int {
	small := n / parts
	bigFrom := (parts - n%parts) * small // the first item of the larger runs
	if x < bigFrom {
		return x / small
	}
	return parts - n%parts + (x-bigFrom)/(small+1)
}

// plan1Tier puts every NIC on one switch: no spine, no uplinks, nothing
// oversubscribed (a switch's own fabric is non-blocking). Many RoCE
// exercises (incast, PFC, DCQCN) need no more than that.
func plan1Tier(p *Plan, g geometry) error {
	in := g.in
	most := in.LeafPorts * g.nicsPerDownPort
	if p.NICs > most {
		return &FitError{
			Reason:     fmt.Sprintf("%d NICs do not fit one %dx%dG switch, which takes at most %d %dG NICs", p.NICs, in.LeafPorts, in.LeafSpeedGbps, most, in.NICSpeedGbps),
			Suggestion: fmt.Sprintf("use a switch with at least %d ports (--leaf-ports), or drop tiers: 1 for a spine-leaf fabric", ceilDiv(p.NICs, g.nicsPerDownPort)),
		}
	}
	if in.Layout == LayoutRail {
		return &InputError{"layout", "a rail layout needs one leaf per rail, and a 1-tier fabric has one switch", "use layout tor with tiers: 1, or 2 tiers for rails"}
	}
	p.Placement = make([]ServerPlacement, p.Servers)
	for srv := range p.Servers {
		n := in.GPUsPerServer
		if srv == p.Servers-1 && in.GPUs%in.GPUsPerServer != 0 {
			n = in.GPUs % in.GPUsPerServer
		}
		sp := ServerPlacement{Server: srv + 1, GPUs: n, Leaves: make([]int, n)}
		for i := range sp.Leaves {
			sp.Leaves[i] = 1
		}
		p.Placement[srv] = sp
	}
	nicsPerLeaf := []int{p.NICs}
	p.Tiers = 1
	p.Pods = 1
	p.Leaf = LeafTier{
		Count: 1, PerPod: 1, Ports: in.LeafPorts, PortSpeedGbps: in.LeafSpeedGbps,
		LogicalPorts:         in.LeafPorts * in.LeafSpeedGbps / in.NICSpeedGbps,
		DownlinksPerLeaf:     p.NICs,
		DownlinkPortsPerLeaf: g.downPorts(p.NICs),
		Breakout:             breakoutName(in.LeafSpeedGbps, in.NICSpeedGbps),
		NICsPerLeaf:          nicsPerLeaf,
	}
	p.Spine = SpineTier{}
	p.Oversubscription = Oversubscription{Target: in.Oversubscription, Actual: 1}
	if in.Oversubscription > 1 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("oversubscription %g:1 was asked, but one switch has no uplinks to oversubscribe: the fabric is non-blocking", in.Oversubscription))
	}
	downPorts := g.downPorts(p.NICs)
	p.Cables = Cables{ServerLeaf: p.NICs, BreakoutServerLeaf: downPorts}
	p.Optics = []Optic{
		{Where: "server-leaf", Side: "nic", SpeedGbps: in.NICSpeedGbps, Count: p.NICs},
		{Where: "server-leaf", Side: "leaf", SpeedGbps: in.LeafSpeedGbps, Count: downPorts},
	}
	return nil
}

// plan2Tier picks the fewest spines such that every leaf reaches every spine
// with the same number of links. It may raise the uplink count to the next
// multiple of the spine count (a lower oversubscription than asked).
func plan2Tier(p *Plan, g geometry, leaves, d, up int) error {
	slots := g.spineSlots()
	if leaves > slots {
		return fmt.Errorf("%d leaves but a spine has only %d fabric links, so not every spine can reach every leaf", leaves, slots)
	}
	maxUp := (g.in.LeafPorts - g.downPorts(d)) * g.linksPerLeafPort
	if g.in.MinSpines > maxUp {
		return errTooFewUplinks(g.in.MinSpines, maxUp)
	}
	for spines := max(1, ceilDiv(leaves*up, slots), g.in.MinSpines); spines <= maxUp; spines++ {
		u := ceilDiv(up, spines) * spines
		k := u / spines
		if u > maxUp || leaves*k > slots {
			continue
		}
		p.Tiers = 2
		p.Pods = 1
		setLeaf(p, g, leaves, leaves, d, u, k)
		if g.in.Layout == LayoutRail {
			p.Leaf.RailGroupPods = 1
		}
		p.Spine = SpineTier{
			Count: spines, PerPod: spines,
			DownlinkPortsPerSpine: ceilDiv(leaves*k, g.linksPerSpinePort),
		}
		return nil
	}
	return fmt.Errorf("no spine count divides %d leaf uplinks evenly within %d-link spines", up, slots)
}

// plan3Tier plans pods of leaves and spines under planes of super-spines:
// spine j of every pod connects to every super-spine of plane j. Spines are
// non-blocking (as much bandwidth up as down); the leaf tier carries the
// oversubscription. Spines and super-spines are the same switch, so they
// join port to port at the spine speed: where spine ports are faster than
// the leaves' and break out toward them, a spine's leaf links take
// ceil(links/lanes) ports and as many whole ports go up (800G spines over
// 400G leaves had their super-spine links counted as 400G lanes, while the
// fabric builds them at 800G, up to twice the ports a super-spine has).
func plan3Tier(p *Plan, g geometry, leaves, d, up int) error {
	ports := g.in.SpinePorts
	half := ports / 2 * g.linksPerSpinePort // leaf links a spine takes at most
	if half < 1 {
		return fmt.Errorf("a %d-port spine cannot split its ports between leaves and super-spines", ports)
	}
	rails := max(1, p.Leaf.Rails)
	podMax := half
	if g.in.Layout == LayoutRail && podMax >= rails {
		podMax -= podMax % rails // keep a server group's rail leaves in one pod
	}
	pods := ceilDiv(leaves, podMax)
	if pods > ports {
		return fmt.Errorf("it needs %d pods of %d leaves but a super-spine has only %d ports (4 tiers would be needed)", pods, podMax, ports)
	}
	perPod := ceilDiv(leaves, pods)
	if g.in.Layout == LayoutRail && perPod%rails != 0 && podMax >= rails {
		perPod = min(podMax, ceilDiv(perPod, rails)*rails)
		pods = ceilDiv(leaves, perPod)
	}
	maxUp := (g.in.LeafPorts - g.downPorts(d)) * g.linksPerLeafPort
	if g.in.MinSpines > maxUp {
		return errTooFewUplinks(g.in.MinSpines, maxUp)
	}
	for spines := max(1, g.in.MinSpines); spines <= maxUp; spines++ {
		u := ceilDiv(up, spines) * spines
		k := u / spines
		if u > maxUp || perPod*k > half {
			continue
		}
		// A spine's ports toward its pod's leaves; as many spine-speed
		// links go up, which carry at least their bandwidth.
		down := ceilDiv(perPod*k, g.linksPerSpinePort)
		// Super-spines per plane: the fewest that can each take an equal
		// share m of every spine's uplinks (ECMP over equal links) from
		// every pod. Where q does not divide the spine's down ports, it
		// takes up to q-1 more up rather than q larger: 11 leaf links
		// split over 2 super-spines as 6+6, not over 11 of one link each
		// (176 super-spines for 1025 GPUs, where 32 do).
		for q := max(1, ceilDiv(pods*down, ports)); q <= down; q++ {
			m := ceilDiv(down, q)
			spineUp := q * m
			if pods*m > ports || down+spineUp > ports {
				continue
			}
			p.Tiers = 3
			p.Pods = pods
			setLeaf(p, g, leaves, perPod, d, u, k)
			p.Spine = SpineTier{
				Count: spines * pods, PerPod: spines,
				DownlinkPortsPerSpine: down,
				UplinkPortsPerSpine:   spineUp,
				LinksPerSuperSpine:    m,
			}
			p.SuperSpine = &SuperSpineTier{
				Count: spines * q, Planes: spines, PerPlane: q,
				Ports: ports, PortSpeedGbps: g.in.SpineSpeedGbps,
				PortsUsedPerSwitch: pods * m,
				PortUtilization:    ratio(pods*m, ports),
			}
			if spare := spineUp - down; spare > 0 {
				p.Warnings = append(p.Warnings, fmt.Sprintf("each spine has %s up for %s down, so that its uplinks split evenly over the %d super-spines of its plane (%d each)",
					plural.N(spineUp, "link"), plural.N(down, leafLinks(g)), q, m))
			}
			if last := leaves - (pods-1)*perPod; last < perPod {
				p.Warnings = append(p.Warnings, fmt.Sprintf("pod %d is partly empty: %d of %d leaves", pods, last, perPod))
			}
			if g.in.Layout == LayoutRail {
				p.Leaf.RailGroupPods = railGroupPods(leaves, perPod, rails)
				if p.Leaf.RailGroupPods > 1 {
					p.Warnings = append(p.Warnings, railsSpanPods(g, p.Leaf.RailGroupPods, perPod, rails))
				}
			}
			return nil
		}
	}
	return fmt.Errorf("no spine count gives every leaf of a %d-leaf pod equal links within %d-port spines", perPod, ports)
}

// railGroupPods is how many pods the rail leaves of one server group
// (leaves numbered group by group, rails to a group) span at most, pods
// taking perPod leaves in order.
func railGroupPods(leaves, perPod, rails int) int {
	most := 0
	for first := 0; first < leaves; first += rails {
		last := min(first+rails, leaves) - 1
		most = max(most, last/perPod-first/perPod+1)
	}
	return most
}

// railsSpanPods says that a server group's rail leaves span pods (a
// spine, whose ports are split between a pod's leaves and the
// super-spines, takes fewer leaves than there are rails) and what that
// costs: the traffic a rail layout keeps under one pod's spines crosses
// the super-spines.
func railsSpanPods(g geometry, pods, perPod, rails int) string {
	need := 2 * ceilDiv(rails, g.linksPerSpinePort)
	return fmt.Sprintf("rail layout: a pod holds %s but a server group has %d rail leaves, so each group's rails span %d pods: "+
		"all rail traffic between server groups (NIC i to NIC i of a server in another group) and traffic between a group's rails in different pods cross the super-spine tier "+
		"(leaf, spine, super-spine, spine, leaf: 5 switch hops where a pod's spines take 3), and the super-spines carry it; "+
		"spines of %d ports or more, or servers with fewer NICs (rails), keep a group's rails in one pod",
		plural.N(perPod, "leaf"), rails, pods, need)
}

// leafLinks names what a spine's down port carries: a leaf link, or with
// a breakout, several.
func leafLinks(g geometry) string {
	if g.linksPerSpinePort == 1 {
		return "leaf link"
	}
	return fmt.Sprintf("port of %d leaf links", g.linksPerSpinePort)
}

// errTooFewUplinks: every spine takes at least one link from every leaf.
func errTooFewUplinks(spines, links int) error {
	return &InputError{"min_spines", fmt.Sprintf("%d spines at least were asked, but a leaf has room for %s, and every spine needs one from every leaf", spines, plural.N(links, "uplink")),
		fmt.Sprintf("ask for at most %d, or use leaves with more ports", links)}
}

// warnSingleSpine warns of a spine tier of one spine (per pod in 3 tiers)
// that nobody asked for: every uplink of a leaf ends on it, so losing it
// cuts the leaves apart. The fix is the plan min_spines 2 gives, computed.
//
// A 2-tier fabric of one leaf holds every NIC on that leaf: no traffic
// crosses its spines, which the warning says instead (more spines would
// not help).
func warnSingleSpine(p *Plan, in Input) {
	if p.Tiers == 2 && p.Leaf.Count == 1 {
		they, them := "it is", "it"
		if p.Spine.Count != 1 {
			they, them = "they are", "them"
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("1 leaf holds every NIC, so no traffic crosses the %s: %s idle until the fabric grows past one leaf (tiers: 1, or --tiers 1, plans the one switch without %s)",
			plural.Noun(p.Spine.Count, "spine"), they, them))
		return
	}
	if p.Tiers < 2 || p.Spine.PerPod != 1 || in.MinSpines == 1 {
		return
	}
	what := "1 spine: every leaf uplink ends on it"
	if p.Tiers == 3 {
		what = "1 spine per pod: every uplink of a pod's leaves ends on it"
	}
	msg := what + ", a single point of failure for traffic between leaves"
	alt := in
	alt.MinSpines = 2
	if ap, err := compute(alt, false); err == nil && ap.Spine.PerPod == 2 {
		msg += fmt.Sprintf(" (fix: --min-spines 2, or min_spines: 2 in the lab spec's sizing, plans %s at %.2f:1 with %s)",
			plural.N(ap.Spine.Count, "spine"), ap.Oversubscription.Actual, plural.N(ap.Cables.LeafSpine, "leaf-spine cable"))
	}
	p.Warnings = append(p.Warnings, msg)
}

func setLeaf(p *Plan, g geometry, leaves, perPod, d, u, k int) {
	in := g.in
	p.Leaf.Count = leaves
	p.Leaf.PerPod = perPod
	p.Leaf.Ports = in.LeafPorts
	p.Leaf.PortSpeedGbps = in.LeafSpeedGbps
	p.Leaf.LogicalPorts = in.LeafPorts * in.LeafSpeedGbps / in.NICSpeedGbps
	p.Leaf.DownlinksPerLeaf = d
	p.Leaf.UplinksPerLeaf = u * g.linkSpeed / in.NICSpeedGbps
	p.Leaf.DownlinkPortsPerLeaf = g.downPorts(d)
	p.Leaf.UplinkPortsPerLeaf = g.upPorts(u)
	p.Leaf.UplinkLinksPerLeaf = u
	p.Leaf.UplinkSpeedGbps = g.linkSpeed
	p.Leaf.LinksPerSpine = k
	p.Leaf.Breakout = breakoutName(in.LeafSpeedGbps, in.NICSpeedGbps)
	p.Oversubscription = Oversubscription{Target: in.Oversubscription, Actual: round2(float64(d*in.NICSpeedGbps) / float64(u*g.linkSpeed))}
	if p.Oversubscription.Actual < in.Oversubscription-0.005 {
		// Say why: whole links (16 200G NICs at 1.5:1 need 5.33 400G
		// links), or the round-up to an equal share of every spine.
		why := fmt.Sprintf("a leaf's %d x %dG down need %.2f x %dG up, so %d whole links", d, in.NICSpeedGbps,
			float64(d*in.NICSpeedGbps)/(in.Oversubscription*float64(g.linkSpeed)), g.linkSpeed, u)
		if need := g.uplinksFor(d); need < u {
			why = fmt.Sprintf("%d x %dG links up would do, but a leaf has %d to give each of its %d spines %d", need, g.linkSpeed, u, u/k, k)
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("oversubscription %g:1 was asked; %s, giving %.2f:1", in.Oversubscription, why, p.Oversubscription.Actual))
	}
}

// finish fills the spine port figures, cables and optics once the tiers are
// known.
func finish(p *Plan, g geometry, nicsPerLeaf []int) {
	in := g.in
	p.Leaf.NICsPerLeaf = nicsPerLeaf
	s := &p.Spine
	s.Ports = in.SpinePorts
	s.PortSpeedGbps = in.SpineSpeedGbps
	s.LogicalPorts = in.SpinePorts * in.SpineSpeedGbps / in.NICSpeedGbps
	bw := p.Leaf.PerPod * p.Leaf.LinksPerSpine * g.linkSpeed
	if ss := p.SuperSpine; ss != nil {
		bw += ss.PerPlane * s.LinksPerSuperSpine * in.SpineSpeedGbps // port to port
	}
	s.PortsUsedPerSpine = bw / in.NICSpeedGbps
	s.PortUtilization = ratio(s.DownlinkPortsPerSpine+s.UplinkPortsPerSpine, in.SpinePorts)
	s.Breakout = breakoutName(in.SpineSpeedGbps, g.linkSpeed)
	if p.SuperSpine != nil && s.Breakout != "none" {
		s.Breakout += fmt.Sprintf(" toward leaves; %dG to super-spines", in.SpineSpeedGbps)
	}
	if in.LeafSpeedGbps > g.linkSpeed {
		p.Leaf.Breakout += fmt.Sprintf("; uplinks 1x%dG->%dx%dG", in.LeafSpeedGbps, g.linksPerLeafPort, g.linkSpeed)
	}

	downPorts := 0
	for _, n := range nicsPerLeaf {
		downPorts += g.downPorts(n)
	}
	// A cable per leaf-spine link: a broken-out leaf port with a lane
	// unused (3 400G links on two 800G ports) has no cable on that lane.
	leafSpine := p.Leaf.Count * p.Leaf.UplinkLinksPerLeaf
	// A spine's ports toward its pod's leaves: fewer in a partly empty
	// last pod than DownlinkPortsPerSpine, which is a full pod's.
	spineDown := 0
	for pod := range p.Pods {
		inPod := min(p.Leaf.PerPod, p.Leaf.Count-pod*p.Leaf.PerPod)
		spineDown += s.PerPod * ceilDiv(inPod*p.Leaf.LinksPerSpine, g.linksPerSpinePort)
	}
	p.Cables = Cables{ServerLeaf: p.NICs, BreakoutServerLeaf: downPorts, LeafSpine: leafSpine}
	p.Optics = []Optic{
		{Where: "server-leaf", Side: "nic", SpeedGbps: in.NICSpeedGbps, Count: p.NICs},
		{Where: "server-leaf", Side: "leaf", SpeedGbps: in.LeafSpeedGbps, Count: downPorts},
		{Where: "leaf-spine", Side: "leaf", SpeedGbps: in.LeafSpeedGbps, Count: p.Leaf.Count * p.Leaf.UplinkPortsPerLeaf},
		{Where: "leaf-spine", Side: "spine", SpeedGbps: in.SpineSpeedGbps, Count: spineDown},
	}
	if ss := p.SuperSpine; ss != nil {
		p.Cables.SpineSuperSpine = s.Count * s.UplinkPortsPerSpine
		p.Optics = append(p.Optics,
			Optic{Where: "spine-super-spine", Side: "spine", SpeedGbps: in.SpineSpeedGbps, Count: s.Count * s.UplinkPortsPerSpine},
			Optic{Where: "spine-super-spine", Side: "super-spine", SpeedGbps: in.SpineSpeedGbps, Count: ss.Count * ss.PortsUsedPerSwitch},
		)
	}
}

// suggestFit names a change that would make in fit: bigger switches at the
// same speed, or a higher oversubscription.
func suggestFit(in Input) string {
	var tries []string
	for _, ports := range []int{64, 128, 256, 512} {
		if ports <= max(in.LeafPorts, in.SpinePorts) {
			continue
		}
		t := in
		t.LeafPorts, t.SpinePorts = max(ports, in.LeafPorts), max(ports, in.SpinePorts)
		if pl, err := compute(t, false); err == nil {
			tries = append(tries, fmt.Sprintf("%d-port switches fit it in %d tiers (--leaf-ports %d --spine-ports %d)", ports, pl.Tiers, t.LeafPorts, t.SpinePorts))
			break
		}
	}
	for _, os := range []float64{2, 3, 4, 8} {
		if os <= in.Oversubscription {
			continue
		}
		t := in
		t.Oversubscription = os
		if pl, err := compute(t, false); err == nil {
			tries = append(tries, fmt.Sprintf("%g:1 oversubscription fits it in %d tiers (--oversubscription %g)", os, pl.Tiers, os))
			break
		}
	}
	// What the current switches hold at most, found by halving.
	lo, hi := 0, in.GPUs
	for lo < hi {
		mid := (lo + hi + 1) / 2
		t := in
		t.GPUs = mid
		t.Tiers = 0
		if _, err := compute(t, false); err == nil {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 {
		tries = append(tries, fmt.Sprintf("these switches hold at most %d GPUs", lo))
	}
	if len(tries) == 0 {
		return "use switches with more ports"
	}
	return strings.Join(tries, "; ")
}

func ceilDiv(a, b int) int {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return round2(float64(a) / float64(b))
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
