package fabric

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/sizing"
)

// shape is the plan's structure as Build needs it, checked once.
type shape struct {
	tiers                    int
	leaves, leafPerPod, pods int
	spines, spinePerPod      int
	supers, planes, perPlane int
	linksPerSpine            int
	leafSpineSpeed           int
	linksPerSuper            int
	spineSuperSpeed          int
	nicSpeed                 int
	// hostLinks[i] is the number of NICs on leaf i+1.
	hostLinks []int
}

func newShape(p *sizing.Plan) (*shape, error) {
	s := &shape{tiers: p.Tiers, leaves: p.Leaf.Count, spines: p.Spine.Count, nicSpeed: p.NICSpeedGbps}
	if s.tiers == 0 {
		s.tiers = 2
	}
	if s.tiers < 1 || s.tiers > 3 {
		return nil, fmt.Errorf("tiers is %d: a fabric has 1, 2 or 3 tiers", p.Tiers)
	}
	if s.tiers == 1 {
		// One switch, no spine: every NIC hangs off leaf1.
		if s.leaves != 1 || s.spines != 0 {
			return nil, fmt.Errorf("a 1-tier plan has one leaf and no spine, not %d leaves and %d spines", s.leaves, s.spines)
		}
		s.leafPerPod, s.pods = 1, 1
		return s, s.place(p)
	}
	if s.leaves < 1 || s.spines < 1 {
		return nil, fmt.Errorf("plan has %d leaves and %d spines: both must be at least 1", s.leaves, s.spines)
	}
	if p.GPUsPerServer < 1 || p.NICSpeedGbps < 1 {
		return nil, fmt.Errorf("gpus_per_server %d and nic_speed_gbps %d must be positive", p.GPUsPerServer, p.NICSpeedGbps)
	}
	s.leafPerPod = p.Leaf.PerPod
	if s.leafPerPod <= 0 || s.tiers == 2 {
		s.leafPerPod = s.leaves
	}
	s.pods = (s.leaves + s.leafPerPod - 1) / s.leafPerPod
	s.spinePerPod = p.Spine.PerPod
	if s.spinePerPod <= 0 || s.tiers == 2 {
		s.spinePerPod = s.spines
	}
	if s.spines != s.pods*s.spinePerPod {
		return nil, fmt.Errorf("plan has %d spines but %d pods of %d spines", s.spines, s.pods, s.spinePerPod)
	}
	s.linksPerSpine = p.Leaf.LinksPerSpine
	if s.linksPerSpine < 1 {
		return nil, fmt.Errorf("leaf.links_per_spine is %d: every leaf needs at least one link to each spine of its pod", p.Leaf.LinksPerSpine)
	}
	s.leafSpineSpeed = p.Leaf.UplinkSpeedGbps
	if s.leafSpineSpeed <= 0 {
		s.leafSpineSpeed = p.Leaf.PortSpeedGbps
	}
	if s.leafSpineSpeed <= 0 {
		return nil, fmt.Errorf("leaf uplink speed is unset (leaf.uplink_speed_gbps and leaf.port_speed_gbps are 0)")
	}
	if s.tiers == 3 {
		ss := p.SuperSpine
		if ss == nil {
			return nil, fmt.Errorf("a 3-tier plan needs super_spine")
		}
		s.supers, s.planes, s.perPlane = ss.Count, ss.Planes, ss.PerPlane
		if s.planes != s.spinePerPod {
			return nil, fmt.Errorf("plan has %d super-spine planes but %d spines per pod: spine j of each pod joins plane j", s.planes, s.spinePerPod)
		}
		if s.perPlane < 1 || s.supers != s.planes*s.perPlane {
			return nil, fmt.Errorf("plan has %d super-spines, not %d planes of %d", s.supers, s.planes, s.perPlane)
		}
		s.linksPerSuper = p.Spine.LinksPerSuperSpine
		if s.linksPerSuper < 1 {
			return nil, fmt.Errorf("spine.links_per_super_spine is %d: each spine needs a link to every super-spine of its plane", p.Spine.LinksPerSuperSpine)
		}
		s.spineSuperSpeed = p.Spine.PortSpeedGbps
		if s.spineSuperSpeed <= 0 {
			return nil, fmt.Errorf("spine.port_speed_gbps is unset")
		}
	}
	return s, s.place(p)
}

// place checks the plan's NIC placement and counts the NICs per leaf.
func (s *shape) place(p *sizing.Plan) error {
	if p.GPUsPerServer < 1 || p.NICSpeedGbps < 1 {
		return fmt.Errorf("gpus_per_server %d and nic_speed_gbps %d must be positive", p.GPUsPerServer, p.NICSpeedGbps)
	}
	if len(p.Placement) == 0 {
		return fmt.Errorf("plan has no placement: no server is attached to a leaf")
	}
	s.hostLinks = make([]int, s.leaves)
	for i, sp := range p.Placement {
		if sp.Server != i+1 {
			return fmt.Errorf("placement[%d] is server %d: servers must be listed 1, 2, 3 ... in order", i, sp.Server)
		}
		if len(sp.Leaves) == 0 || len(sp.Leaves) > p.GPUsPerServer {
			return fmt.Errorf("server %d has %d NICs: it must have 1..%d", sp.Server, len(sp.Leaves), p.GPUsPerServer)
		}
		for nic, l := range sp.Leaves {
			if l < 1 || l > s.leaves {
				return fmt.Errorf("server %d NIC %d is placed on leaf %d: leaves are 1..%d", sp.Server, nic, l, s.leaves)
			}
			s.hostLinks[l-1]++
		}
	}
	return nil
}

func (s *shape) leafPod(i int) int  { return (i-1)/s.leafPerPod + 1 }
func (s *shape) spinePod(k int) int { return (k-1)/s.spinePerPod + 1 }

// spinePlane is the plane (1-based) of spine k: its index inside its pod.
func (s *shape) spinePlane(k int) int { return (k-1)%s.spinePerPod + 1 }
func (s *shape) leavesInPod(pod int) int {
	n := s.leaves - (pod-1)*s.leafPerPod
	return min(n, s.leafPerPod)
}

// interfaceCounts returns the largest number of data interfaces a leaf, a
// spine and a super-spine need when parallel links are (or are not) merged.
func (s *shape) interfaceCounts(mergeLS, mergeSS bool) (leaf, spine, super int) {
	ls, ss := s.linksPerSpine, s.linksPerSuper
	if mergeLS {
		ls = 1
	}
	if mergeSS {
		ss = 1
	}
	for i := 1; i <= s.leaves; i++ {
		leaf = max(leaf, s.hostLinks[i-1]+s.spinePerPod*ls)
	}
	for pod := 1; pod <= s.pods; pod++ {
		spine = max(spine, s.leavesInPod(pod)*ls+s.perPlane*ss)
	}
	if s.tiers == 3 {
		super = s.pods * ss
	}
	return leaf, spine, super
}

// Build turns a lab spec and its sizing plan into the lab's fabric graph.
// spec.NOS picks the switch kind ("" means sonic); spec.Images the images.
// The plan is taken as exact; where a switch would exceed the NOS's
// container port budget, parallel links are merged and the graph says so in
// ScaleDown (and, if merging is not enough, in OverBudget).
func Build(spec *lab.Spec, plan *sizing.Plan) (*Graph, error) {
	if spec == nil || plan == nil {
		return nil, fmt.Errorf("build fabric: a lab spec and a sizing plan are both required")
	}
	if err := ValidName(spec.Name); err != nil {
		return nil, fmt.Errorf("build fabric: lab name: %w", err)
	}
	nos := spec.NOS
	if nos == "" {
		nos = NOSSonic
	}
	budget, err := PortBudget(nos)
	if err != nil {
		return nil, fmt.Errorf("build fabric for lab %s: %w", spec.Name, err)
	}
	s, err := newShape(plan)
	if err != nil {
		return nil, fmt.Errorf("build fabric for lab %s: invalid plan: %w", spec.Name, err)
	}
	g := &Graph{
		SchemaVersion: SchemaVersion,
		Name:          spec.Name,
		NOS:           nos,
		Images:        spec.Images,
		Tiers:         s.tiers,
		Pods:          s.pods,
		Layout:        string(plan.Layout),
		GPUs:          plan.GPUs,
		GPUsPerServer: plan.GPUsPerServer,
		NICSpeedGbps:  plan.NICSpeedGbps,
		PortBudget:    budget,
		Addressing: Addressing{
			LeafSpine:       rangeLeafSpine.String(),
			SpineSuperSpine: rangeSpineSuper.String(),
			HostLeaf:        rangeHostLeaf.String(),
			Loopbacks:       rangeLoopbacks.String(),
		},
		ScaleDown:  []string{},
		OverBudget: []string{},
	}
	if g.Layout == "" {
		g.Layout = string(sizing.LayoutToR)
	}
	if g.Images.SONiC == "" {
		g.Images.SONiC = DefaultSonicImage
	}
	if g.Images.EOS == "" {
		g.Images.EOS = DefaultEOSImage
	}
	if g.Images.Host == "" {
		g.Images.Host = DefaultHostImage
	}
	gpus := 0
	for _, sp := range plan.Placement {
		gpus += sp.GPUs
	}
	if g.GPUs == 0 {
		g.GPUs = gpus
	}

	// Merge parallel links only where a switch would exceed its budget, so
	// that a lab that fits is the plan link for link.
	mergeLS, mergeSS := false, false
	leafN, spineN, superN := s.interfaceCounts(false, false)
	if (leafN > budget.MaxDataPorts || spineN > budget.MaxDataPorts) && s.linksPerSpine > 1 {
		mergeLS = true
	}
	if (spineN > budget.MaxDataPorts || superN > budget.MaxDataPorts) && s.linksPerSuper > 1 {
		mergeSS = true
	}
	leafM, spineM, superM := s.interfaceCounts(mergeLS, mergeSS)
	if mergeLS {
		g.ScaleDown = append(g.ScaleDown, fmt.Sprintf(
			"leaf-spine: the %d parallel %dG links between each leaf and each spine of its pod are merged into 1 lab link of %dG (merged=%d); the busiest leaf needs %d data interfaces instead of %d and the busiest spine %d instead of %d (budget %d)",
			s.linksPerSpine, s.leafSpineSpeed, s.linksPerSpine*s.leafSpineSpeed, s.linksPerSpine, leafM, leafN, spineM, spineN, budget.MaxDataPorts))
	}
	if mergeSS {
		g.ScaleDown = append(g.ScaleDown, fmt.Sprintf(
			"spine-superspine: the %d parallel %dG links between each spine and each super-spine of its plane are merged into 1 lab link of %dG (merged=%d); super-spines need %d data interfaces instead of %d (budget %d)",
			s.linksPerSuper, s.spineSuperSpeed, s.linksPerSuper*s.spineSuperSpeed, s.linksPerSuper, superM, superN, budget.MaxDataPorts))
	}

	if err := g.addNodes(s, nos, spec.BGP.SpineASN == lab.SpineASNPerSpine); err != nil {
		return nil, fmt.Errorf("build fabric for lab %s: %w", spec.Name, err)
	}
	if err := g.addLinks(s, plan, mergeLS, mergeSS); err != nil {
		return nil, fmt.Errorf("build fabric for lab %s: %w", spec.Name, err)
	}
	g.noteScaleDown(mergeLS, mergeSS, s)
	return g, nil
}

// addNodes adds the switches with their loopbacks and ASNs (see the
// package comment); perSpine gives every spine its own ASN instead of one
// per pod (lab spec bgp.spine_asn).
func (g *Graph) addNodes(s *shape, nos string, perSpine bool) error {
	kind := ClabKind(nos)
	large := s.leaves > 399 || s.pods > 99 || perSpine && s.spines > 99
	superASN, spineASN := uint32(65000), uint32(65000)
	leafBase := uint32(65100)
	if large {
		superASN, spineASN, leafBase = 4200000000, 4200000000, 4201000000
	}
	g.Nodes = make([]*Node, 0, s.supers+s.spines+s.leaves)
	g.index = make(map[string]*Node)
	ordinal := 0
	addSwitch := func(n *Node) error {
		ordinal++
		lo, err := addrAt(rangeLoopbacks, ordinal, "loopback of "+n.Name)
		if err != nil {
			return err
		}
		n.Loopback = lo.String() + "/32"
		n.Kind = kind
		g.Nodes = append(g.Nodes, n)
		g.index[n.Name] = n
		return nil
	}
	for k := 1; k <= s.supers; k++ {
		n := &Node{Name: SuperSpineName(k), Role: RoleSuperSpine, Index: k, Plane: (k-1)/s.perPlane + 1, ASN: superASN}
		if err := addSwitch(n); err != nil {
			return err
		}
	}
	for k := 1; k <= s.spines; k++ {
		n := &Node{Name: SpineName(k), Role: RoleSpine, Index: k, Pod: s.spinePod(k), ASN: spineASN}
		if s.tiers == 3 {
			n.Plane = s.spinePlane(k)
			n.ASN = spineASN + uint32(n.Pod)
		}
		if perSpine {
			n.ASN = spineASN + uint32(k)
		}
		if err := addSwitch(n); err != nil {
			return err
		}
	}
	for i := 1; i <= s.leaves; i++ {
		n := &Node{Name: LeafName(i), Role: RoleLeaf, Index: i, Pod: s.leafPod(i), ASN: leafBase + uint32(i)}
		if err := addSwitch(n); err != nil {
			return err
		}
	}
	return nil
}

// linker hands out ports and /31s.
type linker struct {
	g    *Graph
	next map[netip.Prefix]int
}

func (l *linker) connect(kind LinkKind, lower, upper *Node, memberSpeed, merged int, pool netip.Prefix) error {
	n := l.next[pool]
	l.next[pool] = n + 2
	upperAddr, err := addrAt(pool, n, string(kind)+" link "+lower.Name+"-"+upper.Name)
	if err != nil {
		return err
	}
	lowerAddr := upperAddr.Next()
	id := len(l.g.Links)
	up := addPort(upper, lower.Name, upperAddr, memberSpeed*merged, merged, id)
	lp := addPort(lower, upper.Name, lowerAddr, memberSpeed*merged, merged, id)
	up.PeerPort, lp.PeerPort = lp.Name, up.Name
	l.g.Links = append(l.g.Links, &Link{
		ID:              id,
		Kind:            kind,
		A:               LinkEnd{Node: lower.Name, Port: lp.Name, Iface: lp.Iface, Address: lp.Address},
		B:               LinkEnd{Node: upper.Name, Port: up.Name, Iface: up.Iface, Address: up.Address},
		SpeedGbps:       memberSpeed * merged,
		MemberSpeedGbps: memberSpeed,
		Merged:          merged,
		Subnet:          netip.PrefixFrom(upperAddr, 31).String(),
	})
	return nil
}

func addPort(n *Node, peer string, addr netip.Addr, speed, merged, link int) *Port {
	i := len(n.Ports) + 1
	p := &Port{
		Name:      PortName(n.Kind, i),
		Iface:     "eth" + strconv.Itoa(i),
		SpeedGbps: speed,
		Merged:    merged,
		Peer:      peer,
		Address:   addr.String() + "/31",
		Link:      link,
	}
	n.Ports = append(n.Ports, p)
	return p
}

func (g *Graph) addLinks(s *shape, plan *sizing.Plan, mergeLS, mergeSS bool) error {
	l := &linker{g: g, next: map[netip.Prefix]int{}}
	// Hosts first, so every leaf's downlinks come before its uplinks.
	hosts := make([]*Node, 0, len(plan.Placement))
	for _, sp := range plan.Placement {
		gpus := sp.GPUs
		if gpus == 0 {
			gpus = len(sp.Leaves)
		}
		h := &Node{Name: HostName(sp.Server), Role: RoleHost, Index: sp.Server, Pod: s.leafPod(sp.Leaves[0]), Kind: KindLinux, GPUs: gpus}
		hosts = append(hosts, h)
		g.index[h.Name] = h
		for _, leaf := range sp.Leaves {
			if err := l.connect(KindHostLeaf, h, g.index[LeafName(leaf)], s.nicSpeed, 1, rangeHostLeaf); err != nil {
				return err
			}
		}
	}
	lsLinks, lsMerged := s.linksPerSpine, 1
	if mergeLS {
		lsLinks, lsMerged = 1, s.linksPerSpine
	}
	for i := 1; i <= s.leaves; i++ {
		leaf := g.index[LeafName(i)]
		pod := s.leafPod(i)
		for j := 1; j <= s.spinePerPod; j++ {
			spine := g.index[SpineName((pod-1)*s.spinePerPod+j)]
			for range lsLinks {
				if err := l.connect(KindLeafSpine, leaf, spine, s.leafSpineSpeed, lsMerged, rangeLeafSpine); err != nil {
					return err
				}
			}
		}
	}
	if s.tiers == 3 {
		ssLinks, ssMerged := s.linksPerSuper, 1
		if mergeSS {
			ssLinks, ssMerged = 1, s.linksPerSuper
		}
		for k := 1; k <= s.spines; k++ {
			spine := g.index[SpineName(k)]
			plane := s.spinePlane(k)
			for m := 1; m <= s.perPlane; m++ {
				super := g.index[SuperSpineName((plane-1)*s.perPlane+m)]
				for range ssLinks {
					if err := l.connect(KindSpineSuperSpine, spine, super, s.spineSuperSpeed, ssMerged, rangeSpineSuper); err != nil {
						return err
					}
				}
			}
		}
	}
	g.Nodes = append(g.Nodes, hosts...)
	return nil
}

// noteScaleDown attaches scale-down notes to nodes and lists switches over
// the port budget.
func (g *Graph) noteScaleDown(mergeLS, mergeSS bool, s *shape) {
	for _, n := range g.Nodes {
		if n.Role == RoleHost {
			continue
		}
		if mergeLS && (n.Role == RoleLeaf || n.Role == RoleSpine) {
			n.Notes = append(n.Notes, fmt.Sprintf("leaf-spine links merged %d:1", s.linksPerSpine))
		}
		if mergeSS && (n.Role == RoleSpine || n.Role == RoleSuperSpine) {
			n.Notes = append(n.Notes, fmt.Sprintf("spine-superspine links merged %d:1", s.linksPerSuper))
		}
		if len(n.Ports) > g.PortBudget.MaxDataPorts {
			n.Notes = append(n.Notes, fmt.Sprintf("needs %d data interfaces, over the %s budget of %d", len(n.Ports), n.Kind, g.PortBudget.MaxDataPorts))
			g.OverBudget = append(g.OverBudget, n.Name)
		}
	}
	if len(g.OverBudget) > 0 {
		worst := 0
		for _, name := range g.OverBudget {
			worst = max(worst, len(g.index[name].Ports))
		}
		g.ScaleDown = append(g.ScaleDown, fmt.Sprintf(
			"over budget: %d switches (%s) need up to %d data interfaces even with parallel links merged, more than the %d a %s container has (%s); host links stay one per NIC, so containerlab cannot run this lab with nos %s: use --runtime sim, another --nos, or a smaller lab",
			len(g.OverBudget), summarizeNames(g.OverBudget), worst, g.PortBudget.MaxDataPorts, g.PortBudget.Kind, g.PortBudget.Source, g.NOS))
	}
}

// summarizeNames shortens a long list of node names for messages.
func summarizeNames(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + ", ... " + names[len(names)-1]
}
