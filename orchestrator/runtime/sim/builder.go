package sim

import (
	"context"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/nic"
	"github.com/labctl/labctl/orchestrator/perftest"
	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/results"
	"github.com/labctl/labctl/orchestrator/runtime"
	engine "github.com/labctl/labctl/orchestrator/sim"
	"github.com/labctl/labctl/orchestrator/transport"
)

// Limits that keep the run record readable.
const (
	maxSeriesPorts = 16
	maxSeriesFlows = 16
	maxWatchPorts  = 64
	// maxSeriesValues bounds the sampled values of one simulation (the
	// simulator refuses more than 20 million).
	maxSeriesValues = 4_000_000
	arPrefix        = "ar"
	a2aPrefix       = "a2a"
	// defaultCableM is the cable length assumed for ports whose configs
	// and fabric give none.
	defaultCableM = 5
)

// builder adapts the fabric graph and the parsed vendor configs to the
// simulator's input.
type builder struct {
	l    *runtime.Lab
	g    *fabric.Graph
	in   qos.Intent
	cfgs map[string]*qos.DeviceConfig
	// nccl is the variant's nccl collective as config laid it out.
	nccl *ncclRun
	// tr is the variant's transport as config resolved it.
	tr transport.Settings
}

func newBuilder(l *runtime.Lab, cfgs []qos.DeviceConfig, in qos.Intent) (*builder, error) {
	if l.Graph == nil {
		return nil, fmt.Errorf("lab %s has no fabric graph", l.Name)
	}
	return &builder{l: l, g: l.Graph, in: in, cfgs: runtime.ConfigsByDevice(cfgs)}, nil
}

// nicName is the simulator's name of a host NIC: "host1:eth1".
func (b *builder) nicName(ep runtime.Endpoint) (string, *fabric.Port, error) {
	h := b.g.Node(ep.Host)
	if h == nil || h.Role != fabric.RoleHost || ep.NIC < 0 || ep.NIC >= len(h.Ports) {
		return "", nil, exitcode.Usagef("lab %s has no NIC %s:%d", b.g.Name, ep.Host, ep.NIC)
	}
	p := h.Ports[ep.NIC]
	return ep.Host + ":" + p.Name, p, nil
}

// facingPort is the switch port NIC ep is wired to (false when the lab
// has no such NIC).
func (b *builder) facingPort(ep runtime.Endpoint) (engine.PortRef, bool) {
	_, p, err := b.nicName(ep)
	if err != nil {
		return engine.PortRef{}, false
	}
	return engine.PortRef{Node: p.Peer, Port: p.PeerPort}, true
}

// subset picks the part of the fabric the endpoints touch: their NICs,
// their leaves, and every spine and super-spine that can carry traffic
// between those leaves (all of them in the pods involved), so that ECMP
// sees the same choices as on the full fabric.
func (b *builder) subset(eps []runtime.Endpoint) (nodes map[string]bool, nics map[string]bool, err error) {
	nodes, nics = map[string]bool{}, map[string]bool{}
	pods := map[int]bool{}
	for _, ep := range eps {
		name, p, err := b.nicName(ep)
		if err != nil {
			return nil, nil, err
		}
		nics[name] = true
		nodes[ep.Host] = true
		nodes[p.Peer] = true
		if leaf := b.g.Node(p.Peer); leaf != nil {
			pods[leaf.Pod] = true
		}
	}
	for _, n := range b.g.Nodes {
		switch n.Role {
		case fabric.RoleSpine:
			if pods[n.Pod] {
				nodes[n.Name] = true
			}
		case fabric.RoleSuperSpine:
			if len(pods) > 1 {
				nodes[n.Name] = true
			}
		}
	}
	return nodes, nics, nil
}

// endpoints lists every NIC a variant uses (a storming NIC included).
func endpoints(vs runtime.VariantSpec) []runtime.Endpoint {
	var eps []runtime.Endpoint
	for _, f := range vs.Flows {
		eps = append(eps, f.Src, f.Dst)
	}
	for _, f := range vs.Faults {
		if f.NIC != nil {
			eps = append(eps, *f.NIC)
		}
	}
	if vs.Collective != nil {
		eps = append(eps, vs.Collective.Ranks...)
	}
	return eps
}

// topology builds the simulator's topology and QoS for the chosen nodes:
// every switch port's per-class settings and maps as its resolved config
// gives them (portQoS), hosts classifying with the lab's intent. Nodes
// keep the graph's order (the BGP router-id order routing breaks ties
// by), their ASNs, and the ECMP seeds `labctl trace --hash-seed seed`
// gives them, so that the simulator routes every packet as the trace
// shows.
func (b *builder) topology(nodes, nics map[string]bool, seed int64) (engine.Topology, fabricQoS, error) {
	var topo engine.Topology
	qosMap := map[engine.PortRef]map[int]engine.PortQoS{}
	portMaps := map[engine.PortRef]engine.PortMaps{}
	shapers := map[engine.PortRef]engine.Shaper{}
	maxPayload := map[engine.PortRef]int{}
	for _, n := range b.g.Nodes {
		if !nodes[n.Name] {
			continue
		}
		node := engine.Node{Name: n.Name, Kind: engine.Switch, ASN: n.ASN, ECMPSeed: fabric.ECMPSeed(n.Name, uint64(seed))}
		if n.Role == fabric.RoleHost {
			node.Kind = engine.Host
		} else if dc := b.cfgs[n.Name]; dc != nil {
			var err error
			if node.Pools, err = pools(dc); err != nil {
				return topo, fabricQoS{}, err
			}
			for i := range dc.Ports {
				pc := &dc.Ports[i]
				ref := engine.PortRef{Node: n.Name, Port: pc.Name}
				qosMap[ref], portMaps[ref] = portQoS(dc, pc)
				if err := fallingCurves(dc, pc, qosMap[ref]); err != nil {
					return topo, fabricQoS{}, err
				}
				if sh, ok := engineShaper(pc, pc.Shaper); ok {
					shapers[ref] = sh
				}
				// A port's MTU (the L3 MTU it enforces) drops packets whose
				// payload and headers do not fit, as lint's QOS020 says:
				// the config's, else the NOS's default (SONiC's 9100).
				if mtu := pc.EnforcedMTU(); mtu > 0 {
					maxPayload[ref] = max(mtu-qos.RoCEHeaderBytes, 1)
				}
			}
		}
		topo.Nodes = append(topo.Nodes, node)
	}
	// Hosts classify with the lab's intent (the NIC side of the DSCP map).
	dscp := map[string]map[int]int{}
	if len(b.in.DSCPToTC) > 0 {
		dscp[""] = b.in.DSCPToTC
	}
	used := map[engine.PortRef]bool{}
	for _, lk := range b.g.Links {
		if !nodes[lk.A.Node] || !nodes[lk.B.Node] {
			continue
		}
		if lk.Kind == fabric.KindHostLeaf && !nics[lk.A.Node+":"+lk.A.Port] {
			continue
		}
		// A lab link may stand for several parallel plan links (merged to
		// fit containerlab's port budget). The simulator gets the plan's
		// links back: members at their own speed, each pausing on its own
		// and chosen by ECMP, with the port's QoS (rendered for one
		// member's speed) on every member.
		members, speed := lk.Members(), lk.MemberSpeed()
		for m := range members {
			a := engine.PortRef{Node: lk.A.Node, Port: fabric.MemberPort(lk.A.Port, m)}
			bb := engine.PortRef{Node: lk.B.Node, Port: fabric.MemberPort(lk.B.Port, m)}
			used[a], used[bb] = true, true
			if m > 0 {
				for _, pair := range [][2]engine.PortRef{{a, {Node: lk.A.Node, Port: lk.A.Port}}, {bb, {Node: lk.B.Node, Port: lk.B.Port}}} {
					if q, ok := qosMap[pair[1]]; ok {
						qosMap[pair[0]], portMaps[pair[0]] = q, portMaps[pair[1]]
					}
					if sh, ok := shapers[pair[1]]; ok {
						shapers[pair[0]] = sh
					}
					if n, ok := maxPayload[pair[1]]; ok {
						maxPayload[pair[0]] = n
					}
				}
			}
			topo.Links = append(topo.Links, engine.Link{
				A: a, B: bb, RateGbps: float64(speed),
				PropDelayNs:       int64(b.cableM(lk) * qos.CableNsPerMeter),
				PauseResponseBits: qos.PauseResponseBits(&b.in, speed),
			})
		}
	}
	// The simulator refuses QoS for ports no link uses: drop the ports
	// outside the subset.
	for r := range qosMap {
		if !used[r] {
			delete(qosMap, r)
			delete(portMaps, r)
			delete(shapers, r)
		}
	}
	for r := range maxPayload {
		if !used[r] {
			delete(maxPayload, r)
		}
	}
	return topo, fabricQoS{qos: qosMap, maps: portMaps, shapers: shapers, maxPayload: maxPayload, dscp: dscp}, nil
}

// engineShaper is shaper sh (port pc's own or one of its queues') as the
// simulator runs it: a packet meter, or a rate (a percent taken of the
// speed the port runs at); ok false when it shapes nothing.
func engineShaper(pc *qos.PortConfig, sh *qos.Shaper) (engine.Shaper, bool) {
	switch {
	case sh == nil:
		return engine.Shaper{}, false
	case sh.PacketsPerSec > 0:
		return engine.Shaper{PacketsPerSec: sh.PacketsPerSec, BurstPackets: sh.BurstPackets}, true
	}
	r := sh.RateKbpsAt(pc.RunSpeedGbps())
	return engine.Shaper{Kbps: r, BurstBytes: sh.BurstBytes}, r > 0
}

// fabricQoS is what topology gives the simulator of the switches' and
// hosts' QoS: each switch port's per-class settings, maps and shaper, and
// the hosts' DSCP classification.
type fabricQoS struct {
	qos     map[engine.PortRef]map[int]engine.PortQoS
	maps    map[engine.PortRef]engine.PortMaps
	shapers map[engine.PortRef]engine.Shaper
	// maxPayload is each switch port's largest payload, from its MTU.
	maxPayload map[engine.PortRef]int
	dscp       map[string]map[int]int
}

// keyHash is the simulator's ECMP key hash: fabric.KeyHash of a QP's
// 5-tuple with its NICs' addresses, the hash `labctl trace` uses.
func (b *builder) keyHash() func(engine.FlowKey) uint64 {
	addrs := map[string]netip.Addr{}
	for _, h := range b.g.Hosts() {
		for _, p := range h.Ports {
			if pf, err := netip.ParsePrefix(p.Address); err == nil {
				addrs[h.Name+":"+p.Name] = pf.Addr()
			}
		}
	}
	return func(k engine.FlowKey) uint64 {
		return fabric.KeyHash(fabric.FlowKey{SrcIP: addrs[k.Src], DstIP: addrs[k.Dst], SrcPort: uint16(k.SrcPort), DstPort: uint16(k.DstPort), Proto: fabric.ProtoUDP})
	}
}

// cableM is a link's cable length: the lab's link (LinkCableM, which the
// configs' CABLE_LENGTH does not change: it sizes the switch's headroom,
// not the fibre), else what the switch end's config says, else the
// intent's default.
func (b *builder) cableM(lk *fabric.Link) int {
	for _, end := range []fabric.LinkEnd{lk.B, lk.A} {
		if dc := b.cfgs[end.Node]; dc != nil {
			if pc := dc.Port(end.Port); pc != nil && pc.LinkCableM > 0 {
				return pc.LinkCableM
			}
		}
	}
	for _, end := range []fabric.LinkEnd{lk.B, lk.A} {
		if dc := b.cfgs[end.Node]; dc != nil {
			if pc := dc.Port(end.Port); pc != nil && pc.CableM > 0 {
				return pc.CableM
			}
		}
	}
	if b.in.CableLengthM > 0 {
		return b.in.CableLengthM
	}
	return defaultCableM
}

// pools are a switch's buffer pools as its resolved config gives them
// (the config's own, or the assumed switch's, named in its Defaults).
func pools(dc *qos.DeviceConfig) ([]engine.Pool, error) {
	if len(dc.Pools) == 0 {
		return nil, exitcode.Usagef("switch %s has no buffer pools: its config gives none and none was assumed (fix: add BUFFER_POOL to its config)", dc.Device)
	}
	out := make([]engine.Pool, 0, len(dc.Pools))
	for _, p := range dc.Pools {
		out = append(out, engine.Pool{Name: p.Name, Egress: p.Type == "egress", Bytes: p.SizeBytes, HeadroomBytes: qos.Val(p.HeadroomPoolBytes)})
	}
	return out, nil
}

// admission is a resolved profile (qos.DeviceConfig.Admit) in the
// simulator's terms; no profile admits without limit.
func admission(dc *qos.DeviceConfig, b *qos.BufferProfile) engine.Admission {
	if b == nil {
		return engine.Admission{}
	}
	a := dc.Admit(b)
	return engine.Admission{Pool: a.Pool, ReservedBytes: a.ReservedBytes, StaticBytes: a.StaticBytes, Alpha: a.Alpha, NoShared: a.NoShared}
}

// fallingCurves refuses a port whose ECN or WRED drop curve, as portQoS
// hands it to the simulator, has its minimum above its maximum (lint's
// QOS004): the simulator cannot run a curve that falls, and its own
// refusal names neither the config's file nor its line. This one names
// the switch, the port, the queue, the statement that sets it
// (qos.WREDWhere) and the switch's files.
func fallingCurves(dc *qos.DeviceConfig, pc *qos.PortConfig, qs map[int]engine.PortQoS) error {
	for i := range qos.NumTC {
		pq := qs[i]
		what, lo, hi := "", int64(0), int64(0)
		switch {
		case pq.ECN && pq.KminBytes > pq.KmaxBytes:
			what, lo, hi = "ECN Kmin", pq.KminBytes, pq.KmaxBytes
		case pq.WREDDrop && pq.DropMinBytes > pq.DropMaxBytes:
			what, lo, hi = "WRED drop minimum", pq.DropMinBytes, pq.DropMaxBytes
		default:
			continue
		}
		return exitcode.Usagef("switch %s port %s queue %d: %s %d bytes is above its maximum %d bytes (%s, in %s): the simulator cannot run a curve that falls (fix: set the minimum threshold below the maximum, as 'labctl config lint' says, QOS004)",
			dc.Device, pc.Name, i, what, lo, hi, qos.WREDWhere(pc.Queue(i)), strings.Join(dc.Sources, ", "))
	}
	return nil
}

// portQoS turns one port's resolved config into the simulator's settings
// at each index 0-7: queue i's scheduling, WRED and egress admission, and
// traffic class i's ingress admission and PFC, as its Class says (PFC
// only where the class is lossless: PFC on and a lossless PG profile);
// and the port's maps.
func portQoS(dc *qos.DeviceConfig, pc *qos.PortConfig) (map[int]engine.PortQoS, engine.PortMaps) {
	// Sized up front: every port of the fabric gets these maps.
	out := make(map[int]engine.PortQoS, qos.NumTC)
	// Only a switch whose ports colour packets runs yellow and red WRED:
	// elsewhere every packet is green.
	coloured := slices.ContainsFunc(dc.Ports, func(p qos.PortConfig) bool { return len(p.DSCPToDropPrecedence) > 0 })
	for i := range qos.NumTC {
		var pq engine.PortQoS
		if q := pc.Queue(i); q != nil {
			pq.Strict = q.Strict
			pq.Weight = q.Weight
			// Thresholds in vendor units other than bytes (segments,
			// time) cannot be simulated faithfully; such a queue does not
			// mark, and lint reports the unit.
			if e := q.ECN; e != nil && e.Unit == "" && e.MaxBytes > 0 {
				pq.ECN = true
				pq.KminBytes, pq.KmaxBytes, pq.Pmax = e.MinBytes, e.MaxBytes, e.Pmax
			}
			if e := q.Drop; e != nil && e.Unit == "" && e.MaxBytes > 0 {
				pq.WREDDrop = true
				pq.DropMinBytes, pq.DropMaxBytes, pq.DropPmax = e.MinBytes, e.MaxBytes, e.Pmax
			}
			// Yellow's and red's early drops, which only packets the
			// ingress port colours meet (PortConfig.DSCPToDropPrecedence);
			// a colour that marks does so by the queue's ECN, which the
			// simulator applies to every colour.
			if w := q.WRED; w != nil && coloured {
				// The engine's ColourDrop[i] is drop precedence i+1's.
				for i := range pq.ColourDrop {
					if c := *w.Colour(i + 1); c != nil && !c.Mark && c.Unit == "" && c.MaxBytes > 0 {
						pq.ColourDrop[i] = &engine.WREDCurve{MinBytes: c.MinBytes, MaxBytes: c.MaxBytes, Pmax: c.Pmax}
					}
				}
			}
			pq.Egress = admission(dc, q.Buffer)
			if sh, ok := engineShaper(pc, q.Shaper); ok {
				pq.Shape = sh
			}
		}
		c := pc.Class(i)
		pq.IgnoresPause = !c.PFC && !pc.PFCAsym
		// Priorities the switch holds in its watchdog's drop action
		// from the start (SONiC's BIG_RED_SWITCH, lint's QOS027): the
		// engine's drop state of a declared storm, set before the run
		// (engine.PortQoS.WatchdogDrop) rather than a storm made up to
		// trigger it, which would need a pause to detect and would end.
		pq.WatchdogDrop = pc.WatchdogDrop.Drops(i)
		if g := c.PGConfig; g != nil {
			pq.Ingress = admission(dc, &g.BufferProfile)
			if c.Lossless {
				a := dc.Admit(&g.BufferProfile)
				pq.PFC = true
				pq.Watchdog = watchdog(dc, c.Watchdog)
				pq.HeadroomBytes, pq.HeadroomGiven = a.HeadroomBytes, true
				pq.XonOffsetBytes, pq.XonBytes = a.XonOffsetBytes, a.XonBytes
			}
		}
		out[i] = pq
	}
	m := engine.PortMaps{DSCPToPriority: make(map[int]int, 64), PriorityToPG: pc.TCToPG, PriorityToQueue: pc.TCToQueue, PauseToQueue: pc.PFCToQueue, PauseFromPG: pc.PFCToPG, RemarkDSCP: pc.TCToDSCP, DSCPToColour: pc.DSCPToDropPrecedence}
	for d := range 64 {
		m.DSCPToPriority[d] = pc.TCOf(d)
	}
	return out, m
}

// watchdog is a class's PFC watchdog as the simulator runs it, nil when
// none watches it. EOS's errdisable takes the port down; the others map
// to SONiC's actions (qos.WatchdogAction: EOS no-drop is forward,
// notify-only is alert). A
// detection time of 0 or less is no "off": qos.Problems refuses it.
func watchdog(dc *qos.DeviceConfig, w *qos.PortWatchdog) *engine.Watchdog {
	if w == nil {
		return nil
	}
	action := qos.WatchdogAction(w.Action)
	return &engine.Watchdog{
		DetectionNs:   int64(w.DetectionMs) * 1e6,
		RestorationNs: int64(w.RestorationMs) * 1e6,
		PollNs:        int64(w.PollMsOf(dc)) * 1e6,
		Action:        action,
	}
}

// faultEnds is both ends (lower tier first) of a simulated link a link
// fault takes down, and, for a link the fault takes down with the one it
// names (runtime.DownWith), why.
type faultEnds struct {
	ends [2]engine.PortRef
	why  string
}

// faultLinkEnds are the simulated links a link fault takes down: the link
// it names, or with All every link and member between its two nodes but
// those that do not come up in the configs (they are down from the
// start, downFaults, and stay so), and the fellow members of a port
// channel those leave short of its min links (runtime.DownWith), every
// member. A fault whose links are all down so is refused
// (runtime.FaultOnDownLinkError).
func (b *builder) faultLinkEnds(f runtime.FaultSpec) ([]faultEnds, error) {
	lms, err := b.g.LinkMembers(f.Link, f.All)
	if err != nil {
		return nil, err
	}
	out := make([]faultEnds, 0, len(lms))
	var down *fabric.Link
	isDown := map[int]bool{} // by link: its members come one after another
	members := map[int]int{} // by link: how many of its members the fault names
	for _, lm := range lms {
		lk := b.g.Links[lm.Link]
		members[lm.Link]++
		d, seen := isDown[lm.Link]
		if !seen {
			d = runtime.DownEnd(b.cfgs, lk).Down()
			isDown[lm.Link] = d
		}
		if d {
			down = lk
			continue
		}
		out = append(out, faultEnds{ends: [2]engine.PortRef{
			{Node: lk.A.Node, Port: fabric.MemberPort(lk.A.Port, lm.Member)},
			{Node: lk.B.Node, Port: fabric.MemberPort(lk.B.Port, lm.Member)},
		}})
	}
	if len(out) == 0 && down != nil {
		return nil, runtime.FaultOnDownLinkError(b.cfgs, f, down)
	}
	// A lab link is its port's: down only with every member faulted.
	var whole []int
	for l, n := range members {
		if n == b.g.Links[l].Members() && !isDown[l] {
			whole = append(whole, l)
		}
	}
	slices.Sort(whole)
	for _, dl := range runtime.DownWith(b.g, b.cfgs, whole) {
		lk := dl.Link
		why := fmt.Sprintf("down with %s (%s)", f.Link, dl.Why.Entry())
		for m := range lk.Members() {
			out = append(out, faultEnds{why: why, ends: [2]engine.PortRef{
				{Node: lk.A.Node, Port: fabric.MemberPort(lk.A.Port, m)},
				{Node: lk.B.Node, Port: fabric.MemberPort(lk.B.Port, m)},
			}})
		}
	}
	return out, nil
}

// mergeWith merges into one the faults on one link whose down times
// overlap where one of them is a link's taken down with another
// (faultEnds.why: a port channel's fellow member), keeping the other's
// delays and mark: such a link is down while either holds it down, where
// the engine refuses two faults of one link that overlap (a scenario's
// own faults still are).
func mergeWith(fs []engine.LinkFault) []engine.LinkFault {
	end := func(f engine.LinkFault) int64 {
		if f.UpNs == 0 {
			return math.MaxInt64
		}
		return f.UpNs
	}
	for i := 0; i < len(fs); i++ {
		for j := i + 1; j < len(fs); j++ {
			f, g := fs[i], fs[j]
			if f.Link != g.Link || f.Why == "" && g.Why == "" || !(f.DownNs < end(g) && g.DownNs < end(f)) {
				continue
			}
			keep := f
			if f.Why != "" && g.Why == "" {
				keep = g
			}
			keep.DownNs = min(f.DownNs, g.DownNs)
			keep.UpNs = max(f.UpNs, g.UpNs)
			if f.UpNs == 0 || g.UpNs == 0 {
				keep.UpNs = 0
			}
			fs[i] = keep
			fs = slices.Delete(fs, j, j+1)
			j = i // the merged fault may now overlap one it did not
		}
	}
	return fs
}

// downLinks are the lab's links that do not come up in the variant's
// configs (runtime.DownFromStart: an end administratively down, lint's
// QOS026, or FEC modes that differ, QOS009) that the variant simulates: a
// switch's, and a host's whose NIC it uses.
func (b *builder) downLinks(nics map[string]bool) []runtime.DownLink {
	down := runtime.DownFromStart(b.g, b.cfgs, false)
	out := down[:0]
	for _, d := range down {
		if lk := d.Link; lk.Kind != fabric.KindHostLeaf || nics[lk.A.Node+":"+lk.A.Port] {
			out = append(out, d)
		}
	}
	return out
}

// downFaults runs the links that do not come up (downLinks) as link
// faults down from the start of the run, every member, which every
// switch knows at once (no detection or convergence delay): such a link
// never came up, so no route ever used it. The simulator's own link
// faults are the least change that runs it: a link it does not build
// would take a host's NIC out of the fabric with it, where the switch
// keeps the NIC wired and its traffic is lost.
func (b *builder) downFaults(down []runtime.DownLink, cfg *engine.Config) error {
	n := 0
	for _, dl := range down {
		lk, d := dl.Link, dl.Why
		why := fmt.Sprintf("%s in the configs from the start (%s)", d.State, d.Entry())
		for m := range lk.Members() {
			cfg.Faults = append(cfg.Faults, engine.LinkFault{Link: engine.PortRef{Node: lk.A.Node, Port: fabric.MemberPort(lk.A.Port, m)}, DetectNs: -1, ConvergeNs: -1, Why: why})
			n++
		}
	}
	// The engine's bound counts the scenario's faults, added before, too.
	if len(cfg.Faults) > engine.MaxFaultLinks {
		return exitcode.Usagef("%d links do not come up (an end administratively down, lint's QOS026, or FEC modes that differ, QOS009) beside %d the scenario's faults take down, more than the %d down links the simulator runs: bring their ports up (%s), %s, or fault fewer links", n, len(cfg.Faults)-n, engine.MaxFaultLinks, qos.PortUpFix, qos.FECMatchFix)
	}
	return nil
}

// faults maps a variant's faults to the simulator's, in its port names.
func (b *builder) faults(vs runtime.VariantSpec, cfg *engine.Config) error {
	us := runtime.FaultNs
	for i, f := range vs.Faults {
		switch f.Kind {
		case runtime.FaultLinkDown, runtime.FaultLinkFlap:
			links, err := b.faultLinkEnds(f)
			if err != nil {
				return exitcode.Usagef("faults[%d]: %v", i, err)
			}
			// A link-down is one interval, a flap one a flap that starts
			// within the duration.
			downs := f.LinkFaults(vs.DurationUs)
			for _, fe := range links {
				for _, lf := range downs {
					lf.Link, lf.Why = fe.ends[0], fe.why
					cfg.Faults = append(cfg.Faults, lf)
				}
			}
		case runtime.FaultPFCStorm:
			name, _, err := b.nicName(*f.NIC)
			if err != nil {
				return exitcode.Usagef("faults[%d]: %v", i, err)
			}
			pr := f.Priority
			if pr < 0 {
				pr = 3
				if len(b.in.LosslessPriorities) > 0 {
					pr = b.in.LosslessPriorities[0]
				}
			}
			st := engine.PauseStorm{NIC: name, Priority: pr, StartNs: us(f.AtUs)}
			if f.ForUs > 0 {
				st.EndNs = us(f.AtUs + f.ForUs)
			}
			cfg.Storms = append(cfg.Storms, st)
		}
	}
	cfg.Faults = mergeWith(cfg.Faults)
	return nil
}

// config builds the simulation of a variant.
func (b *builder) config(vs runtime.VariantSpec) (*engine.Config, error) {
	nodes, nics, err := b.subset(endpoints(vs))
	if err != nil {
		return nil, err
	}
	// With a link down, flows may take paths through switches their
	// endpoints never need (a leaf-spine-leaf-spine detour): every switch
	// of the fabric is simulated, and a failing host link's NIC too.
	linkFaults := false
	for i, f := range vs.Faults {
		if f.Link == "" {
			continue
		}
		linkFaults = true
		lk, _, err := b.g.LinkByName(f.Link)
		if err != nil {
			return nil, exitcode.Usagef("faults[%d]: %v", i, err)
		}
		if lk.Kind == fabric.KindHostLeaf {
			nodes[lk.A.Node], nics[lk.A.Node+":"+lk.A.Port] = true, true
		}
	}
	down := b.downLinks(nics)
	if len(down) > 0 {
		linkFaults = true
	}
	if linkFaults {
		for _, n := range b.g.Nodes {
			if n.Role != fabric.RoleHost {
				nodes[n.Name] = true
			}
		}
	}
	topo, fq, err := b.topology(nodes, nics, vs.Seed)
	if err != nil {
		return nil, err
	}
	st, err := b.nicSettings(vs)
	if err != nil {
		return nil, err
	}
	cfg := &engine.Config{
		Topology:       topo,
		QoS:            fq.qos,
		Maps:           fq.maps,
		PortShapers:    fq.shapers,
		PortMaxPayload: fq.maxPayload,
		ExplicitQoS:    true,
		DefaultQoS:     map[int]engine.PortQoS{},
		DSCPToPriority: fq.dscp,
		DurationNs:     int64(vs.DurationUs * 1000),
		WarmupNs:       int64(vs.WarmupUs * 1000),
		MTU:            b.in.MTU,
		Seed:           vs.Seed,
		DCQCN:          st.DCQCN,
		// DCQCN reacts to CNPs; with ECN removed from the switches there
		// are none, so the NICs run at line rate either way.
		DCQCNEnabled: vs.ECN,
		CNPDSCP:      &st.CNPDSCP,
		QPTimeout:    st.QPTimeout,
		RetryCount:   &st.RetryCnt,
		NAKRepeatNs:  st.NAKRepeatUs * 1000,
		OutOfOrder:   st.OutOfOrder,
		CNPPerPort:   st.CNPModeration == nic.CNPPerPort,
		LB:           engine.LoadBalancing{Mode: vs.LB.Mode, FlowletGapNs: int64(vs.LB.FlowletGapUs * 1000)},
		KeyHash:      b.keyHash(),
	}
	if err := b.faults(vs, cfg); err != nil {
		return nil, err
	}
	if err := b.downFaults(down, cfg); err != nil {
		return nil, err
	}
	if err := b.transport(vs, cfg); err != nil {
		return nil, err
	}
	if err := b.serverLimits(cfg); err != nil {
		return nil, err
	}
	for i, f := range vs.Flows {
		src, _, err := b.nicName(f.Src)
		if err != nil {
			return nil, err
		}
		dst, _, err := b.nicName(f.Dst)
		if err != nil {
			return nil, err
		}
		if f.IsLatency() {
			cfg.PingPongs = append(cfg.PingPongs, engine.PingPong{
				ID: f.ID, Client: src, Server: dst, MessageBytes: int64(f.MessageBytes), Iterations: f.Iterations,
				DSCP: f.TrafficClass >> 2, ExplicitDSCP: true, SrcPort: runtime.QPSourcePort(i, 0),
				StartNs: int64(f.StartUs * 1000), Role: f.Role,
			})
			continue
		}
		qps := max(f.QPs, 1)
		// perftest -b: the same QPs the other way too, reported with the
		// flow ("/qpr<q>" groups with it, as "/qp<q>" does).
		dirs := [][2]string{{src, dst}}
		if f.Bidirectional {
			dirs = append(dirs, [2]string{dst, src})
		}
		for d, ends := range dirs {
			for q := range qps {
				id := f.ID
				switch {
				case d == 1:
					id += "/qpr" + strconv.Itoa(q)
				case qps > 1:
					id += "/qp" + strconv.Itoa(q)
				}
				// A sized flow's bytes split over its QPs, the remainder
				// a byte each to the first ones, so that the flow
				// delivers its bytes and no more; a QP left without a
				// byte (fewer bytes than QPs) is not started, as 0
				// bytes would make it long-lived.
				bytes := f.Bytes
				if bytes > 0 {
					bytes = f.Bytes / int64(qps)
					if int64(q) < f.Bytes%int64(qps) {
						bytes++
					}
					if bytes == 0 {
						continue
					}
				}
				sport := runtime.QPSourcePort(i, q)
				ef := engine.Flow{
					ID: id, Src: ends[0], Dst: ends[1], DSCP: f.TrafficClass >> 2, ExplicitDSCP: true, SrcPort: sport,
					Bytes: bytes, MessageBytes: int64(f.MessageBytes), StartNs: int64(f.StartUs * 1000), Role: f.Role,
					TxDepth: f.TxDepth,
				}
				if f.TxDepth > 0 {
					// As perftest sets it for the run's message size.
					ef.CQMod = perftest.CQModeration(f.MessageBytes, f.TxDepth)
				}
				cfg.Flows = append(cfg.Flows, ef)
			}
		}
	}
	if c := vs.Collective; c != nil {
		ranks, err := b.rankNames(c)
		if err != nil {
			return nil, err
		}
		switch c.Kind {
		case runtime.CollectiveNCCL:
			if err := b.ncclPrograms(vs, c, cfg); err != nil {
				return nil, err
			}
		case runtime.CollectiveAllToAll:
			cfg.AllToAll = []engine.AllToAll{{ID: a2aPrefix, Ranks: ranks, Bytes: c.Bytes, DSCP: c.TrafficClass >> 2, ExplicitDSCP: true, StartNs: int64(c.StartUs * 1000), Role: allToAllRole(c)}}
		default:
			// One QP per rank to the next, every step a message on it, as
			// NCCL runs a ring; traffic class 0-3 is best effort, not RoCE.
			cfg.Rings = []engine.Ring{{ID: arPrefix, Ranks: ranks, Bytes: c.Bytes, DSCP: c.TrafficClass >> 2, ExplicitDSCP: true, StartNs: int64(c.StartUs * 1000), Role: "allreduce"}}
		}
	}
	if vs.SeriesEvery >= 0 {
		every := vs.SeriesEvery
		if every == 0 {
			every = 10
		}
		cfg.SampleEveryNs = int64(every * 1000)
		cfg.Watch = b.watch(vs, nodes)
		markRateSeries(cfg)
		// The record's sample interval: one value per scenario flow and
		// the watched ports' per sample within maxSeriesValues, or a
		// longer interval. (It predates markRateSeries, which keeps the
		// simulator's own series to those the record shows, and is kept
		// as it is so that records keep their sample times.)
		rated := 0
		for i := range cfg.Flows {
			if !cfg.Flows[i].Quiet {
				rated++
			}
		}
		// A watched port is sampled per priority too (engine.PrioritySeries).
		perPort := 1 + engine.PrioritySeriesValues*engine.PrioritiesInUse(cfg)
		if vals := (cfg.DurationNs/cfg.SampleEveryNs + 1) * int64(rated+len(cfg.Watch)*perPort); vals > maxSeriesValues {
			cfg.SampleEveryNs = cfg.SampleEveryNs * (vals/maxSeriesValues + 1)
		}
	}
	return cfg, nil
}

func (b *builder) rankNames(c *runtime.CollectiveSpec) ([]string, error) {
	var ranks []string
	for _, ep := range c.Ranks {
		n, _, err := b.nicName(ep)
		if err != nil {
			return nil, err
		}
		ranks = append(ranks, n)
	}
	return ranks, nil
}

// watch picks the congested points to sample: the switch ports facing
// each flow's receiver (where incast queues build), the switch ports
// facing each sender (whose ingress PGs send PFC pauses upstream of the
// congestion) and the senders' NIC ports (which receive them), then the
// fabric uplinks of the leaves involved.
func (b *builder) watch(vs runtime.VariantSpec, nodes map[string]bool) []engine.PortRef {
	var out []engine.PortRef
	seen := map[engine.PortRef]bool{}
	add := func(r engine.PortRef) {
		if !seen[r] && len(out) < maxWatchPorts {
			seen[r] = true
			out = append(out, r)
		}
	}
	toward := func(ep runtime.Endpoint) {
		if r, ok := b.facingPort(ep); ok {
			add(r)
		}
	}
	fromNIC := func(ep runtime.Endpoint) {
		if name, _, err := b.nicName(ep); err == nil {
			node, port, _ := strings.Cut(name, ":")
			add(engine.PortRef{Node: node, Port: port})
		}
	}
	for _, f := range vs.Flows {
		toward(f.Dst)
	}
	// The switch ports the senders feed: their ingress PGs fill and send
	// the pauses the senders' NICs receive.
	for _, f := range vs.Flows {
		toward(f.Src)
	}
	for _, f := range vs.Flows {
		fromNIC(f.Src)
	}
	if c := vs.Collective; c != nil {
		for _, ep := range c.Ranks {
			toward(ep)
		}
	}
	for _, lk := range b.g.Links {
		if lk.Kind == fabric.KindLeafSpine && nodes[lk.A.Node] && nodes[lk.B.Node] {
			add(engine.PortRef{Node: lk.A.Node, Port: lk.A.Port})
			add(engine.PortRef{Node: lk.B.Node, Port: lk.B.Port})
		}
	}
	return out
}

// variant converts a simulation result into the run record's variant.
func (b *builder) variant(vs runtime.VariantSpec, cfg *engine.Config, res *engine.Result) *results.Variant {
	st, _ := b.nicSettings(vs) // config() resolved them already
	v := &results.Variant{
		Name: vs.Name, ECN: vs.ECN, PFC: vs.PFC, Repetition: vs.Repetition,
		SimulatedUs: float64(res.SimulatedNs) / 1000,
		LastEventUs: ptr(float64(res.LastEventNs) / 1000),
		Params: map[string]string{
			"mtu":   strconv.Itoa(b.mtu()),
			"model": runtime.ModelPacket,
			"dcqcn": dcqcnName(st.Preset, cfg.DCQCNEnabled),
			"nodes": strconv.Itoa(len(cfg.Topology.Nodes)),
			"links": strconv.Itoa(len(cfg.Topology.Links)),
		},
		Flows:    []results.Flow{},
		Counters: []results.Counter{},
		NIC:      &results.NIC{DCQCN: dcqcnName(st.Preset, cfg.DCQCNEnabled), Params: st.Params()},
	}
	if res.Partitions > 1 {
		// The split the parallel engine ran (its results depend on it,
		// not on the threads).
		v.Params[results.ParamPartitions] = strconv.Itoa(res.Partitions)
	}
	if vs.LB.Mode != "" && vs.LB.Mode != "ecmp" {
		v.Params[results.ParamLBMode] = vs.LB.Mode
	}
	b.recordTransport(v)
	for k, val := range vs.Params {
		v.Params[k] = val
	}
	// Group QPs back into the scenario's flows.
	byID := map[string][]*engine.FlowStats{}
	for i := range res.Flows {
		f := &res.Flows[i]
		if strings.HasPrefix(f.ID, arPrefix+"-") {
			continue
		}
		id, _, _ := strings.Cut(f.ID, "/qp")
		byID[id] = append(byID[id], f)
	}
	var tps []float64
	for _, fs := range vs.Flows {
		if fs.IsLatency() {
			v.Flows = append(v.Flows, latencyFlow(fs, res, st.RetryCnt))
			continue
		}
		qps := byID[fs.ID]
		if len(qps) == 0 {
			continue
		}
		rf := results.Flow{
			ID: fs.ID, Src: epString(fs.Src), Dst: epString(fs.Dst), Pattern: fs.Pattern, Role: fs.Role,
			Source: results.Simulated,
		}
		routed(&rf, qps[0])
		for _, q := range qps[1:] {
			rf.QPRoutes = append(rf.QPRoutes, q.Route)
		}
		lat := &results.Latency{}
		allDone := fs.Bytes > 0
		var fct, retx, delivered, window int64
		failed, failedAt := 0, int64(0)
		start, done := int64(-1), 0
		for _, q := range qps {
			delivered += q.BytesDelivered
			window += q.WindowBytes
			if q.StartNs >= 0 && (start < 0 || q.StartNs < start) {
				start = q.StartNs
			}
			rf.ThroughputGbps += q.GoodputGbps
			retx += q.Retransmits
			if q.Failed {
				if failed == 0 || q.FailedAtNs < failedAt {
					failedAt = q.FailedAtNs
				}
				failed++
			}
			lat.P50 = math.Max(lat.P50, float64(q.Latency.P50)/1000)
			lat.P99 = math.Max(lat.P99, float64(q.Latency.P99)/1000)
			lat.Max = math.Max(lat.Max, float64(q.Latency.Max)/1000)
			if !q.Completed || q.FCTNs == nil {
				allDone = false
			} else {
				fct = max(fct, *q.FCTNs)
				done++
			}
		}
		if allDone && len(qps) > 1 && fct > 0 {
			// A sized flow of several QPs (or both ways) that completed
			// moved its bytes in its completion time, as perftest -q
			// reports it; the sum of its QPs' rates, each over its own
			// completion time, could exceed the NICs' line rate (64 QPs
			// of 16 KiB on a 200G NIC read 203 Gb/s).
			rf.ThroughputGbps = float64(delivered) * 8 / float64(fct)
		} else if fs.Bytes > 0 && done > 0 && !allDone {
			// Only some of its QPs completed: it reads what a long-lived
			// flow reads, the bytes all its QPs delivered in the window,
			// max(warmup, its start) to the end, over the window. The sum
			// of the completed QPs' bytes over their own completion times
			// and the others' window rates mixes two measures and can
			// exceed the line rate.
			rf.ThroughputGbps = 0
			if ws := engine.WindowStart(cfg.WarmupNs, start); cfg.DurationNs > ws {
				rf.ThroughputGbps = float64(window) * 8 / float64(cfg.DurationNs-ws)
			}
		}
		rf.ThroughputGbps = round3(rf.ThroughputGbps)
		rf.Bytes, rf.Retransmits = &delivered, &retx
		markFailed(&rf, failed, len(qps), failedAt, st.RetryCnt)
		if allDone {
			us := float64(fct) / 1000
			rf.FCTUs = &us
		}
		if lat.P99 > 0 {
			rf.LatencyUs = lat
		}
		tps = append(tps, rf.ThroughputGbps)
		v.Flows = append(v.Flows, rf)
	}
	if c := vs.Collective; c != nil && c.Kind == runtime.CollectiveNCCL {
		var x map[string]any
		v.NCCL, x = b.ncclTable(res, cfg.DurationNs)
		v.Extra = map[string]any{"nccl": x}
	} else if c != nil && c.Kind == runtime.CollectiveAllToAll {
		for _, f := range b.allToAllFlows(c, res, st.RetryCnt) {
			tps = append(tps, f.ThroughputGbps)
			v.Flows = append(v.Flows, f)
		}
	} else if c != nil {
		for _, f := range b.allReduceFlows(c, res, st.RetryCnt) {
			tps = append(tps, f.ThroughputGbps)
			v.Flows = append(v.Flows, f)
		}
		v.Extra = map[string]any{"allreduce": b.allReducePhases(c, res)}
	}
	t := res.Totals
	sum, minTp := sumMin(tps)
	v.Summary = results.Summary{
		ThroughputGbpsTotal: round3(sum), ThroughputGbpsMinFlow: round3(minTp), JainFairness: round3(engine.Jain(tps)),
		Drops: t.Drops, PFCPauseFrames: t.PauseFrames, PFCPauseUs: round3(float64(t.PausedNs) / 1000),
		ECNMarked: t.ECNMarked, CNP: t.CNPs, Retransmits: t.Retransmits,
		LatencyUsP99: round3(float64(t.LatencyP99Ns) / 1000), FailedFlows: results.CountFailed(v.Flows),
		Source: results.Simulated, Model: runtime.ModelPacket,
	}
	if v.NCCL != nil && len(vs.Flows) == 0 {
		// The collective's figures are its table; with no flows beside
		// it, the flows' throughput and fairness have no value.
		v.Summary.NotComputed = []string{"throughput_gbps_total", "throughput_gbps_min_flow", "jain_fairness"}
	}
	if done, us, gbps := completion(vs, res); done {
		v.Summary.CompletionUs, v.Summary.GoodputGbpsAggregate = &us, &gbps
	}
	if len(tps) == 0 && len(v.Flows) > 0 {
		// Only ping-pongs: ib_write_lat measures no bandwidth.
		v.Summary.NotComputed = append(v.Summary.NotComputed, results.LatencyOnlyNotComputed...)
	}
	// Nothing delivered in the measurement window (every flow frozen by
	// a PFC storm after the warmup): no packet has a latency, and all-zero
	// throughputs have no fairness (0/0). A 0 there would read as the
	// best latency and the worst fairness.
	if t.LatencyPackets == 0 {
		v.Summary.MarkNotComputed("latency_us_p99")
	}
	if len(tps) > 0 && sum == 0 {
		v.Summary.MarkNotComputed("jain_fairness")
	}
	for _, p := range res.Ports {
		c := results.Counter{
			Node: p.Node, Port: p.Port, Priority: p.Priority, TxBytes: p.TxBytes,
			PFCTx: p.PauseTx, PFCRx: p.PauseRx, ECNMarked: p.ECNMarked, Drops: p.Drops,
			IngressDrops: p.IngressDrops, EgressDrops: p.EgressDrops,
			LinkDrops: p.LinkDrops, RouteDrops: p.RouteDrops, LoopDrops: p.LoopDrops, MTUDrops: p.MTUDrops, WatchdogDrops: p.WatchdogDrops, WatchdogStorms: p.WatchdogStorms, WatchdogRestores: p.WatchdogRestores,
			Source: results.Simulated,
		}
		if p.Switch {
			// The engine keeps queue depth at every switch port: zeros
			// here mean nothing queued, not unknown.
			c.QueueP50Bytes, c.QueueP99Bytes, c.QueueMaxBytes = ptr(p.QueueP50Bytes), ptr(p.QueueP99Bytes), ptr(p.MaxQueueBytes)
		}
		v.Counters = append(v.Counters, c)
	}
	ibCounters(res, v)
	uetRecord(v, res)
	v.MarkTransportLacks(b.tr.Name)
	for _, m := range res.Timeline {
		v.Timeline = append(v.Timeline, results.Mark{TimeUs: float64(m.TimeNs) / 1000, Kind: m.Kind, Where: m.Where, Detail: m.Detail, Source: results.Simulated})
	}
	v.Series, v.SeriesEndUs = seriesOf(res, cfg)
	if x := faultExtra(vs, res, v.Series, b.faultPlaces(vs)); x != nil {
		if v.Extra == nil {
			v.Extra = map[string]any{}
		}
		v.Extra["faults"] = x
	}
	return v
}

// markFailed marks a flow failed when failed of its qps QPs ran out of
// retries, the first at atNs: each saw retryCnt+1 local ACK timeouts in
// a row, the last of which moved it to the error state
// (IBV_WC_RETRY_EXC_ERR). Its figures stay what it did before.
func markFailed(rf *results.Flow, failed, qps int, atNs int64, retryCnt int) {
	if failed == 0 {
		return
	}
	timeouts := "1 timeout"
	if retryCnt > 0 {
		timeouts = fmt.Sprintf("%d timeouts in a row", retryCnt+1)
	}
	why := fmt.Sprintf("retry count exceeded after %s at %.1f µs (retry_cnt %d)", timeouts, float64(atNs)/1000, retryCnt)
	if qps > 1 {
		why = fmt.Sprintf("%d of its %d QPs failed, the first: %s", failed, qps, why)
	}
	rf.State, rf.Reason = results.FlowFailed, why
}

// routed copies a QP's paths into its flow's record: the path and route
// its hash takes, and where faults moved them. A flow of several QPs
// shows its first QP's (and its other QPs' routes in QPRoutes).
func routed(rf *results.Flow, q *engine.FlowStats) {
	rf.Path, rf.Route = q.Path, q.Route
	rf.PathAfterFaults, rf.RouteAfterFaults, rf.UnreachableAfterFaults = q.PathAfterFaults, q.RouteAfterFaults, q.UnreachableAfterFaults
}

// completion is the variant's completion time and aggregate goodput when
// every flow has a size and completed: from the first flow's start to
// the last one's completion.
func completion(vs runtime.VariantSpec, res *engine.Result) (done bool, us, gbps float64) {
	if c := vs.Collective; c != nil && c.Kind == runtime.CollectiveAllToAll && len(vs.Flows) == 0 && len(res.AllToAll) == 1 {
		a := res.AllToAll[0]
		if a.TimeNs == nil || *a.TimeNs <= 0 {
			return false, 0, 0
		}
		var bytes int64
		for _, rk := range a.Ranks {
			bytes += rk.BytesDelivered
		}
		return true, round3(float64(*a.TimeNs) / 1000), round3(float64(bytes) * 8 / float64(*a.TimeNs))
	}
	if vs.Collective != nil || len(res.Flows) == 0 {
		return false, 0, 0
	}
	first, last := int64(math.MaxInt64), int64(0)
	var bytes int64
	pings := pingQPs(res)
	for _, f := range res.Flows {
		if pings[f.ID] {
			continue // a ping-pong times round trips, not a transfer
		}
		if f.Bytes == 0 || !f.Completed || f.FCTNs == nil || f.StartNs < 0 {
			return false, 0, 0
		}
		first = min(first, f.StartNs)
		last = max(last, f.StartNs+*f.FCTNs)
		bytes += f.Bytes
	}
	if last <= first || bytes == 0 {
		return false, 0, 0
	}
	return true, round3(float64(last-first) / 1000), round3(float64(bytes) * 8 / float64(last-first))
}

func (b *builder) mtu() int {
	if b.in.MTU > 0 {
		return b.in.MTU
	}
	return engine.DefaultMTU
}

// allReduceFlows reports a packet-level ring AllReduce per rank: the QP
// rank i ran to rank i+1 over all steps.
func (b *builder) allReduceFlows(c *runtime.CollectiveSpec, res *engine.Result, retryCnt int) []results.Flow {
	n := len(c.Ranks)
	out := make([]results.Flow, 0, n)
	for _, f := range res.Flows {
		rank, ok := parseRingRank(f.ID)
		if !ok || rank >= n {
			continue
		}
		src, dst := c.Ranks[rank], c.Ranks[(rank+1)%n]
		rf := results.Flow{
			ID: fmt.Sprintf("allreduce r%d %s->%s", rank, epString(src), epString(dst)), Src: epString(src), Dst: epString(dst),
			Pattern: "ring-allreduce", Role: "allreduce", Bytes: ptr(f.BytesDelivered), Retransmits: ptr(f.Retransmits), Source: results.Simulated,
		}
		routed(&rf, &f)
		if f.Failed {
			markFailed(&rf, 1, 1, f.FailedAtNs, retryCnt)
		}
		if f.Completed && f.FCTNs != nil && *f.FCTNs > 0 {
			us := float64(*f.FCTNs) / 1000
			rf.FCTUs = &us
			rf.ThroughputGbps = round3(float64(f.BytesDelivered) * 8 / float64(*f.FCTNs))
		}
		out = append(out, rf)
	}
	return out
}

// allToAllRole is the role of an all-to-all collective's ranks: the
// scenario entry's, or the pattern's name.
func allToAllRole(c *runtime.CollectiveSpec) string {
	if c.Role != "" {
		return c.Role
	}
	return "all-to-all"
}

// allToAllFlows reports an all-to-all per sending rank: everything its
// QPs delivered to the other ranks, from the start to its last QP's
// completion.
func (b *builder) allToAllFlows(c *runtime.CollectiveSpec, res *engine.Result, retryCnt int) []results.Flow {
	if len(res.AllToAll) == 0 {
		return nil
	}
	var out []results.Flow
	for i, rk := range res.AllToAll[0].Ranks {
		src := epString(c.Ranks[i])
		rf := results.Flow{
			ID: fmt.Sprintf("all-to-all r%d %s->*", i, src), Src: src, Dst: "*", Pattern: "all-to-all", Role: allToAllRole(c),
			Bytes: ptr(rk.BytesDelivered), Retransmits: ptr(rk.Retransmits), Source: results.Simulated,
		}
		markFailed(&rf, rk.FailedQPs, len(c.Ranks)-1, rk.FailedAtNs, retryCnt)
		if rk.DoneNs > rk.StartNs {
			us := float64(rk.DoneNs-rk.StartNs) / 1000
			rf.FCTUs = &us
			rf.ThroughputGbps = round3(float64(rk.BytesDelivered) * 8 / float64(rk.DoneNs-rk.StartNs))
		}
		out = append(out, rf)
	}
	return out
}

// allReducePhases measures the two phases of a packet-level ring
// AllReduce from its steps: 0..N-2 scatter-reduce, N-1..2N-3 all-gather.
// Both move the same bytes on the same paths; what differs is the
// fabric's state.
func (b *builder) allReducePhases(c *runtime.CollectiveSpec, res *engine.Result) map[string]any {
	n := len(c.Ranks)
	out := map[string]any{"model": "packet", "packet_level": true, "completed": false}
	if len(res.Rings) == 0 {
		return out
	}
	rs := res.Rings[0]
	if rs.TimeNs != nil {
		out["completed"] = true
		out[runtime.AllReduceSimulatedUs] = round3(float64(*rs.TimeNs) / 1000)
	}
	pm := map[string]any{}
	for name, steps := range map[string][2]int{"scatter_reduce": {0, n - 2}, "allgather": {n - 1, 2*n - 3}} {
		start := rs.StepStartNs[steps[0]]
		if start < 0 {
			continue
		}
		end := rs.StepEndNs[steps[1]]
		if end < 0 {
			end = res.SimulatedNs
		}
		maxQ, paused := 0.0, 0.0
		if s := res.Series; s != nil {
			// The samples not taken (Series.Repeated) have the last
			// one's values.
			last, held := len(s.TimesNs)-1, s.HeldIn(start, end)
			for ti, t := range s.TimesNs {
				samples := 0 // those with sample ti's values in the phase
				if t >= start && t <= end {
					samples = 1
				}
				if ti == last {
					samples += held
				}
				if samples == 0 {
					continue
				}
				for _, q := range s.Queues {
					maxQ = math.Max(maxQ, float64(q.Bytes[ti]))
					if q.Paused[ti] {
						paused += float64(samples)
					}
				}
			}
		}
		pm[name] = map[string]any{
			"start_us": round3(float64(start) / 1000), "end_us": round3(float64(end) / 1000),
			"duration_us": round3(float64(end-start) / 1000), "max_queue_bytes": maxQ, "paused_port_samples": paused,
		}
	}
	out["phases"] = pm
	return out
}

// flowNotComputed are the summary fields the flow-level model has no
// answer for: it has no packets, queues, pauses or marks, and no QP
// timeouts, so no flow of it fails. Its flows' retransmits stay nil.
var flowNotComputed = []string{"drops", "pfc_pause_frames", "pfc_pause_us", "ecn_marked", "cnp", "retransmits", "latency_us_p99", "failed_flows"}

// runFlowLevel answers a variant with the simulator's flow-level model:
// max-min fair steady rates of long-lived flows on the paths the packet
// engine takes, or a ring AllReduce's time. Every figure comes from the
// model's own flows; what it does not compute is listed as such.
func (b *builder) runFlowLevel(ctx context.Context, vs runtime.VariantSpec) (*results.Variant, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c := vs.Collective; c != nil && c.Kind == runtime.CollectiveNCCL {
		return nil, exitcode.Usagef("variant %s: nccl collectives wait on each other message by message over NVLink and the fabric; the %s gives steady rates and ring AllReduce times only: use --model packet", vs.Name, runtime.FlowModelCaveat)
	}
	if c := vs.Collective; c != nil && c.Kind == runtime.CollectiveAllToAll {
		return nil, exitcode.Usagef("variant %s: an all-to-all of %d ranks is a collective of fixed-size messages; the %s gives steady rates and ring AllReduce times only: use --model packet", vs.Name, len(c.Ranks), runtime.FlowModelCaveat)
	}
	if vs.Collective != nil {
		return b.flowLevelAllReduce(vs)
	}
	for _, f := range vs.Flows {
		if f.IsLatency() {
			return nil, exitcode.Usagef("variant %s: flow %s is a latency ping-pong; the %s has no packets to time: use --model packet", vs.Name, f.ID, runtime.FlowModelCaveat)
		}
		if f.Bytes > 0 {
			return nil, exitcode.Usagef("variant %s: flow %s has a size; the %s gives steady rates of long-lived flows only: leave bytes out or use --model packet", vs.Name, f.ID, runtime.FlowModelCaveat)
		}
	}
	cfg, err := b.config(vs)
	if err != nil {
		return nil, err
	}
	rates, err := engine.FlowLevelRates(*cfg)
	if err != nil {
		return nil, fmt.Errorf("simulate %s: %w", vs.Name, err)
	}
	byID := map[string]float64{}
	for i, f := range cfg.Flows {
		id, _, _ := strings.Cut(f.ID, "/qp")
		byID[id] += rates[i]
	}
	v := b.flowLevelVariant(vs, len(cfg.Topology.Nodes))
	var tps []float64
	for _, fs := range vs.Flows {
		tp := round3(byID[fs.ID])
		tps = append(tps, tp)
		v.Flows = append(v.Flows, results.Flow{ID: fs.ID, Src: epString(fs.Src), Dst: epString(fs.Dst), Pattern: fs.Pattern, Role: fs.Role, ThroughputGbps: tp, Source: flowLevelSource})
	}
	flowLevelSummary(v, tps)
	return v, nil
}

// flowLevelAllReduce estimates a ring AllReduce at flow level: each rank's
// max-min fair rate paces its steps, which follow the ring's chain (a
// rank sends a step once it has received the previous one), so each rank
// finishes at its own time.
func (b *builder) flowLevelAllReduce(vs runtime.VariantSpec) (*results.Variant, error) {
	c := vs.Collective
	if len(vs.Flows) > 0 {
		return nil, exitcode.Usagef("variant %s: the %s runs a ring AllReduce alone; run the other patterns in a scenario of their own, or use --model packet", vs.Name, runtime.FlowModelCaveat)
	}
	nodes, nics, err := b.subset(c.Ranks)
	if err != nil {
		return nil, err
	}
	topo, fq, err := b.topology(nodes, nics, vs.Seed)
	if err != nil {
		return nil, err
	}
	ranks, err := b.rankNames(c)
	if err != nil {
		return nil, err
	}
	cfg := engine.Config{Topology: topo, QoS: fq.qos, Maps: fq.maps, PortShapers: fq.shapers, PortMaxPayload: fq.maxPayload, ExplicitQoS: true, DSCPToPriority: fq.dscp, MTU: b.in.MTU, Seed: vs.Seed, KeyHash: b.keyHash()}
	est, err := engine.RingAllReduceFlowLevel(cfg, ranks, c.Bytes)
	if err != nil {
		return nil, fmt.Errorf("simulate %s: %w", vs.Name, err)
	}
	us := round3(est.TimeNs / 1000)
	v := b.flowLevelVariant(vs, len(topo.Nodes))
	v.SimulatedUs = us
	var tps []float64
	for i := range c.Ranks {
		// What rank i sends over its steps: chunks that differ by a
		// byte when the buffer does not divide by the ranks.
		bytes := engine.RingRankBytes(c.Bytes, len(c.Ranks), i)
		src, dst := c.Ranks[i], c.Ranks[(i+1)%len(c.Ranks)]
		fct := round3(est.RankDoneNs[i] / 1000)
		tp := round3(float64(bytes) * 8 / est.RankDoneNs[i])
		tps = append(tps, tp)
		v.Flows = append(v.Flows, results.Flow{
			ID: fmt.Sprintf("allreduce r%d %s->%s", i, epString(src), epString(dst)), Src: epString(src), Dst: epString(dst),
			Pattern: "ring-allreduce", Role: "allreduce", Bytes: &bytes, ThroughputGbps: tp, FCTUs: &fct, Source: flowLevelSource,
		})
	}
	flowLevelSummary(v, tps)
	// A closed form has no phases to compare and no completion to
	// observe: only its time and rates are reported, the time as
	// estimated_us (the packet engine's is simulated_us).
	v.Extra = map[string]any{"allreduce": map[string]any{
		"model": runtime.ModelFlow, "packet_level": false, runtime.AllReduceEstimatedUs: us, "step_us": round3(est.StepNs / 1000),
		"min_rate_gbps": round3(est.MinRateGbps), "bus_bw_gbps": round3(est.BusBWGbps),
	}}
	return v, nil
}

// flowLevelSource is the source of every figure of the flow-level model:
// estimated, not simulated (results.SimulatorSource decides it).
var flowLevelSource = results.SimulatorSource(runtime.ModelFlow)

func (b *builder) flowLevelVariant(vs runtime.VariantSpec, nodes int) *results.Variant {
	return &results.Variant{
		Name: vs.Name, ECN: vs.ECN, PFC: vs.PFC, Repetition: vs.Repetition,
		Params:   map[string]string{"mtu": strconv.Itoa(b.mtu()), "model": runtime.ModelFlow, "nodes": strconv.Itoa(nodes)},
		Flows:    []results.Flow{},
		Counters: []results.Counter{},
	}
}

// sumMin is the sum and the lowest of the flows' throughputs (0 and 0
// without flows).
func sumMin(tps []float64) (sum, low float64) {
	low = math.Inf(1)
	for _, x := range tps {
		sum += x
		low = math.Min(low, x)
	}
	if len(tps) == 0 {
		low = 0
	}
	return sum, low
}

// flowLevelSummary sums a flow-level variant from its flows' rates.
func flowLevelSummary(v *results.Variant, tps []float64) {
	sum, low := sumMin(tps)
	v.Summary = results.Summary{
		ThroughputGbpsTotal: round3(sum), ThroughputGbpsMinFlow: round3(low), JainFairness: round3(engine.Jain(tps)),
		Source: flowLevelSource, Model: runtime.ModelFlow,
		// No packets, queues or pauses: zeros here are not results.
		NotComputed: flowNotComputed,
	}
}

// parseRingRank reads the rank of a ring QP's flow ID, "ar-r<rank>".
func parseRingRank(id string) (int, bool) {
	rest, found := strings.CutPrefix(id, arPrefix+"-r")
	if !found {
		return 0, false
	}
	rank, err := strconv.Atoi(rest)
	return rank, err == nil
}

// markRateSeries has the simulator keep rate series of their own only for
// the flows seriesOf shows: the first maxSeriesFlows of the scenario's
// flows that are not Quiet. Ring and ping-pong QPs and every later flow
// are NoRateSeries: they count in the total goodput only. (A 4096-GPU
// AllReduce's 4096 ring QPs sampled every 20 µs for 50 ms were 164 MB of
// series and 80,000 page faults, of which the record kept the total.)
func markRateSeries(cfg *engine.Config) {
	for i := range cfg.Rings {
		cfg.Rings[i].NoRateSeries = true
	}
	pings := map[string]bool{}
	for i := range cfg.PingPongs {
		cfg.PingPongs[i].NoRateSeries = true
		pings[cfg.PingPongs[i].ID+"/ping"], pings[cfg.PingPongs[i].ID+"/pong"] = true, true
	}
	shown := 0
	for i := range cfg.Flows {
		f := &cfg.Flows[i]
		if f.Quiet {
			continue
		}
		if strings.HasPrefix(f.ID, arPrefix+"-") || pings[f.ID] || shown == maxSeriesFlows {
			f.NoRateSeries = true
			continue
		}
		shown++
	}
}

// seriesOf converts the sampled series, keeping the busiest ports and
// flows so that the record stays small: the flows are those
// markRateSeries left a series of their own. The samples the engine did
// not take once the fabric was quiet (Series.Repeated) are left out:
// endUs is then the time of the last one taken, whose values every later
// sample has (0 when the series run to the end).
func seriesOf(res *engine.Result, cfg *engine.Config) (out []results.TimeSeries, endUs float64) {
	s := res.Series
	if s == nil || len(s.TimesNs) == 0 {
		return nil, 0
	}
	t := make([]float64, len(s.TimesNs))
	for i, ns := range s.TimesNs {
		t[i] = float64(ns) / 1000
	}
	if s.Repeated > 0 {
		endUs = t[len(t)-1]
	}
	out = portSeries(s, t, cfg)
	// Goodput of all flows together per sample: what a fault takes away
	// and when it comes back.
	if len(s.GoodputGbps) > 0 {
		sum := make([]float64, len(t))
		for i, g := range s.GoodputGbps[:min(len(t), len(s.GoodputGbps))] {
			sum[i] = round3(g)
		}
		out = append(out, results.TimeSeries{Name: "goodput_gbps all flows", Kind: "goodput_gbps", Unit: "Gb/s", TimeUs: t, Values: sum, Source: results.Simulated})
	}
	for _, r := range s.Rates {
		vals := slices.Clone(r.RateGbps)
		out = append(out, results.TimeSeries{Name: "rate_gbps " + r.ID, Kind: "rate_gbps", Flow: r.ID, Unit: "Gb/s", TimeUs: t, Values: vals, Source: results.Simulated})
	}
	return out, endUs
}

// portSeries converts the watched ports' series per priority, busiest
// (port, priority) first, at most maxSeriesPorts of them: the queue's
// depth with the ECN thresholds the simulated configs give it, the
// priority group's use and its XOFF point where it held bytes, and the
// pauses the port received and sent where there were any, at the times
// t. How busy a pair was is judged over every sample, those repeated
// included (Series.Repeated), so that the ports a record shows are those
// of a run that took every sample.
func portSeries(s *engine.Series, t []float64, cfg *engine.Config) []results.TimeSeries {
	type pair struct {
		port  *engine.PortSeries
		prio  *engine.PrioritySeries
		score int64
	}
	var pairs []pair
	for i := range s.Queues {
		ps := &s.Queues[i]
		for j := range ps.Priorities {
			pr := &ps.Priorities[j]
			// Peak depth and use plus paused samples: computed once,
			// not per comparison.
			score := slices.Max(append([]int64{0}, pr.QueueBytes...)) + slices.Max(append([]int64{0}, pr.PGBytes...))
			for k := range pr.PausedRx {
				if pr.PausedRx[k] {
					score++
				}
				if pr.PauseTx[k] {
					score++
				}
			}
			if last := len(pr.PausedRx) - 1; last >= 0 {
				if pr.PausedRx[last] {
					score += int64(s.Repeated)
				}
				if pr.PauseTx[last] {
					score += int64(s.Repeated)
				}
			}
			if score > 0 {
				pairs = append(pairs, pair{ps, pr, score})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].score > pairs[j].score })
	// Whether a series is left out (an empty queue, a lossy PG's XOFF,
	// no pause) is judged on the samples taken: a repeated one has the
	// values of the last of them, so the answer is that of every sample.
	floats := func(xs []int64) ([]float64, bool) {
		out, any := make([]float64, len(xs)), false
		for i, x := range xs {
			out[i], any = float64(x), any || x != 0
		}
		return out, any
	}
	flags := func(xs []bool) ([]float64, bool) {
		out, any := make([]float64, len(xs)), false
		for i, x := range xs {
			if x {
				out[i], any = 1, true
			}
		}
		return out, any
	}
	var out []results.TimeSeries
	for _, p := range pairs[:min(len(pairs), maxSeriesPorts)] {
		where := fmt.Sprintf("%s:%s prio %d", p.port.Node, p.port.Port, p.prio.Priority)
		one := func(kind, unit string, vals []float64) results.TimeSeries {
			return results.TimeSeries{Name: kind + " " + where, Kind: kind, Node: p.port.Node, Port: p.port.Port, Priority: ptr(p.prio.Priority),
				Queue: ptr(p.prio.Queue), PG: ptr(p.prio.PG), Unit: unit, TimeUs: t, Values: vals, Source: results.Simulated}
		}
		// A queue empty throughout beside a PG that filled (a port
		// the senders feed) is left out: the record stays smaller.
		qb, queued := floats(p.prio.QueueBytes)
		pg, used := floats(p.prio.PGBytes)
		if queued || !used {
			q := one(results.SeriesQueueBytes, "bytes", qb)
			if pq := engineQoS(cfg, engine.PortRef{Node: p.port.Node, Port: p.port.Port}, p.prio.Queue); pq.ECN {
				q.Thresholds = []results.Threshold{{Name: "ECN Kmin", Value: float64(pq.KminBytes)}, {Name: "ECN Kmax", Value: float64(pq.KmaxBytes)}}
			}
			out = append(out, q)
		}
		if used {
			out = append(out, one(results.SeriesPGBytes, "bytes", pg))
			if xo, lossless := floats(p.prio.XOFFBytes); lossless {
				out = append(out, one(results.SeriesXOFFBytes, "bytes", xo))
			}
		}
		if rx, any := flags(p.prio.PausedRx); any {
			out = append(out, one(results.SeriesPaused, "0/1", rx))
		}
		if tx, any := flags(p.prio.PauseTx); any {
			out = append(out, one(results.SeriesPauseSent, "0/1", tx))
		}
	}
	return out
}

// engineQoS is the engine's QoS of a switch port's queue or priority i, as
// the engine takes it: the port's own, else the default.
func engineQoS(cfg *engine.Config, ref engine.PortRef, i int) engine.PortQoS {
	if cfg == nil {
		return engine.PortQoS{}
	}
	if q, ok := cfg.QoS[ref][i]; ok {
		return q
	}
	return cfg.DefaultQoS[i]
}

// faultExtra is what a variant's faults and PFC watchdogs did, for the
// report and assertions (extra.faults.*): packets lost to links going
// down, at switches left without a route and to routing loops; watchdog
// storms (the first one's time), restorations and drops, and with
// pfc-storm faults the storms declared at the switch ports facing the
// stuck NICs (an upstream port paused as long may declare its own first);
// with link faults, how many QPs' data took a failed link at the start
// (qps_on_failed_links: none means the faults missed the flows' data;
// their ACKs may still have crossed one), how many QPs end the run on
// other routes than they started on (rerouted_qps; the QPs of
// collectives' all-to-alls, which keep no path, are not counted in
// either) and how many of them end unreachable (unreachable_qps: eBGP
// partitioned their ends); and, with time series, the goodput of all
// flows before the first fault (after the warmup when that ends before
// the fault), its lowest after it, and how long it took to come back to
// 90% of its level before (recovery_us; absent when it did not). Nil
// without faults or storms.
func faultExtra(vs runtime.VariantSpec, res *engine.Result, series []results.TimeSeries, at faultPlaces) map[string]any {
	t := res.Totals
	var storms, restores, atStuck int64
	for _, p := range res.Ports {
		storms += p.WatchdogStorms
		restores += p.WatchdogRestores
		if at.stuckNICs[p.Node+":"+p.Port] {
			atStuck += p.WatchdogStorms
		}
	}
	if len(vs.Faults) == 0 && storms == 0 {
		return nil
	}
	x := map[string]any{
		"link_drops": t.LinkDrops, "route_drops": t.RouteDrops, "watchdog_drops": t.WatchdogDrops, "loop_drops": t.LoopDrops,
		"watchdog_storms": storms, "watchdog_restores": restores,
	}
	if at.stuckNICs != nil {
		x["watchdog_storms_facing_stuck_nics"] = atStuck
	}
	for _, m := range res.Timeline {
		if m.Kind == engine.MarkWatchdogStorm {
			x["watchdog_first_storm_us"] = float64(m.TimeNs) / 1000
			break
		}
	}
	if len(vs.Faults) == 0 {
		return x
	}
	if slices.ContainsFunc(vs.Faults, func(f runtime.FaultSpec) bool { return f.Link != "" }) {
		rerouted, unreachable := 0, 0
		for i := range res.Flows {
			if f := &res.Flows[i]; f.RouteAfterFaults != nil || f.UnreachableAfterFaults {
				rerouted++
				if f.UnreachableAfterFaults {
					unreachable++
				}
			}
		}
		x["rerouted_qps"], x["unreachable_qps"] = rerouted, unreachable
		onFailed := 0
		for i := range res.Flows {
			// The switches' egress ports, and the sending NIC's own port
			// (a NIC is not on Route).
			f := &res.Flows[i]
			if at.failedLinks[f.Src] || slices.ContainsFunc(f.Route, func(p string) bool { return at.failedLinks[p] }) {
				onFailed++
			}
		}
		x["qps_on_failed_links"] = onFailed
	}
	first := vs.Faults[0].AtUs
	for _, f := range vs.Faults {
		first = math.Min(first, f.AtUs)
	}
	x["first_fault_us"] = first
	for _, s := range series {
		if s.Kind != "goodput_gbps" {
			continue
		}
		// The level before the fault is measured after the warmup, unless
		// the fault comes first (pfc-storm's at 5 ms, its rates measured
		// after 150 ms): then from the start.
		from := vs.WarmupUs
		if from >= first {
			from = 0
		}
		var before []float64
		for i, tu := range s.TimeUs {
			if tu > from && tu <= first && i > 0 {
				before = append(before, s.Values[i])
			}
		}
		if len(before) == 0 {
			break
		}
		level := 0.0
		for _, g := range before {
			level += g
		}
		level /= float64(len(before))
		low := math.Inf(1)
		recovered := -1.0
		for i, tu := range s.TimeUs {
			if tu <= first {
				continue
			}
			low = math.Min(low, s.Values[i])
			if recovered < 0 && low < 0.9*level && s.Values[i] >= 0.9*level {
				recovered = tu - first
			}
		}
		x["goodput_before_gbps"] = round3(level)
		if !math.IsInf(low, 0) {
			x["goodput_lowest_gbps"] = round3(low)
		}
		if low >= 0.9*level {
			recovered = 0 // it never fell below 90%
		}
		if recovered >= 0 {
			x["recovery_us"] = round3(recovered)
		}
	}
	return x
}

// faultPlaces are where a variant's faults strike, as the record names
// ports (node:port): the switch ports facing the NICs its pfc-storm
// faults make storm (nil without such faults), and both ends of every link
// its link faults take down.
type faultPlaces struct {
	stuckNICs, failedLinks map[string]bool
}

func (b *builder) faultPlaces(vs runtime.VariantSpec) faultPlaces {
	var at faultPlaces
	for _, f := range vs.Faults {
		switch {
		case f.Kind == runtime.FaultPFCStorm && f.NIC != nil:
			if r, ok := b.facingPort(*f.NIC); ok {
				if at.stuckNICs == nil {
					at.stuckNICs = map[string]bool{}
				}
				at.stuckNICs[r.String()] = true
			}
		case f.Link != "":
			links, err := b.faultLinkEnds(f)
			if err != nil {
				continue // faults() refused it before the run
			}
			if at.failedLinks == nil {
				at.failedLinks = map[string]bool{}
			}
			for _, fe := range links {
				for _, e := range fe.ends {
					at.failedLinks[e.String()] = true
				}
			}
		}
	}
	return at
}

// nicSettings are the variant's NIC settings; a variant built without
// them (a caller other than the scenario runner) gets the lab's.
func (b *builder) nicSettings(vs runtime.VariantSpec) (nic.Settings, error) {
	if vs.NIC.Preset != "" {
		return vs.NIC, nil
	}
	if b.l.Spec == nil {
		return nic.Resolve(float64(b.g.NICSpeedGbps), b.in.CNPDSCP)
	}
	st, err := b.l.Spec.NICSettings(nil)
	if err != nil {
		return st, exitcode.Usagef("NIC settings of lab %s: %v", b.l.Name, err)
	}
	return st, nil
}

func dcqcnName(preset string, enabled bool) string {
	if !enabled {
		return "off"
	}
	return preset
}

func epString(ep runtime.Endpoint) string { return ep.Host + ":" + strconv.Itoa(ep.NIC) }

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func ptr[T any](v T) *T { return &v }

// pingQPs names the QPs of the run's ping-pongs.
func pingQPs(res *engine.Result) map[string]bool {
	m := map[string]bool{}
	for _, p := range res.PingPongs {
		m[p.ID+"/ping"], m[p.ID+"/pong"] = true, true
	}
	return m
}

// latencyFlow reports a ping-pong as ib_write_lat does, from the client's
// post times (perftest.LatencyOfPosts), with its two QPs' bytes and
// retransmissions and the client's path. One that ran out of time reports
// the iterations it completed, and says so.
func latencyFlow(fs runtime.FlowSpec, res *engine.Result, retryCnt int) results.Flow {
	rf := results.Flow{
		ID: fs.ID, Src: epString(fs.Src), Dst: epString(fs.Dst), Pattern: fs.Pattern, Role: fs.Role,
		Source: results.Simulated,
	}
	var retx, delivered int64
	for i := range res.Flows {
		q := &res.Flows[i]
		switch q.ID {
		case fs.ID + "/ping":
			routed(&rf, q)
		case fs.ID + "/pong":
		default:
			continue
		}
		delivered += q.BytesDelivered
		retx += q.Retransmits
		if q.Failed {
			markFailed(&rf, 1, 1, q.FailedAtNs, retryCnt)
		}
	}
	rf.Bytes, rf.Retransmits = &delivered, &retx
	for _, p := range res.PingPongs {
		if p.ID != fs.ID {
			continue
		}
		row, err := perftest.LatencyOfPosts(int64(fs.MessageBytes), p.PostedNs, 1000)
		why := ""
		switch {
		case err != nil:
			why = fmt.Sprintf("no latency: the client posted %d of its %d writes, %v", len(p.PostedNs), p.Iterations, err)
		case len(p.PostedNs) < p.Iterations:
			why = fmt.Sprintf("the latency is that of the %d of %d iterations the client posted", len(p.PostedNs), p.Iterations)
		}
		if row != nil {
			rf.LatencyUs = runtime.PingPongLatency(row)
		}
		if why != "" && rf.State == "" {
			// A failed QP's reason says more; otherwise the duration ended.
			rf.Reason = why + " before the duration ended (raise duration)"
		}
	}
	return rf
}
