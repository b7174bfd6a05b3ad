// Package eos is labctl's Arista EOS plug-in: containerlab kind defaults,
// interface naming, QoS render to EOS CLI and parsing a running-config back
// to the QoS model.
//
// This package must not import orchestrator/nos: nos looks plug-ins up by
// importing them.
package eos

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
)

// Name is the NOS name used in lab specs and on the command line.
const Name = "eos"

// Kind is the containerlab kind of cEOS switches (the containerlab schema
// rejects "ceos").
const Kind = "arista_ceos"

// DefaultImage is the cEOS-lab image labctl expects to be imported locally
// (the same default as the fabric package's).
const DefaultImage = "ceos:4.32.0F"

// ConfigExt is the extension of rendered configs.
const ConfigExt = ".cfg"

// InterfaceName maps containerlab's ethN to EOS's EthernetN.
func InterfaceName(index int) string { return fmt.Sprintf("Ethernet%d", index) }

// LinuxInterface is the inverse of InterfaceName: Ethernet3 -> eth3.
func LinuxInterface(name string) (string, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "Ethernet"))
	if err != nil || !strings.HasPrefix(name, "Ethernet") || n < 1 {
		return "", fmt.Errorf("eos interface %q: want EthernetN with N >= 1", name)
	}
	return fmt.Sprintf("eth%d", n), nil
}

// Render writes a device's QoS as EOS CLI: global DSCP, CoS and TC->queue
// maps (CoS and queues only where they differ from EOS's defaults), the PFC
// watchdog defaults, one `qos profile` per distinct port QoS (ECN
// thresholds scale with speed, so typically one per port speed), and
// `service-profile` (and the MTU the config sets, and no switchport on a
// routed port: labctl writes both on its lab's fabric ports, so that they
// rely on no default of EOS's) on each interface.
// Buffers and PG headroom are not configurable in EOS CLI and are not
// written. A queue's shaper is written as its tx-queue's shape rate, a
// port's own shaper as its profile's shape rate (above the tx-queues),
// each in kbps, percent or pps (its burst is not written). A weighted
// queue numbered above a strict one is written strict priority (EOS serves
// no round-robin queue above a strict one), with a comment saying so.
func Render(dc qos.DeviceConfig) ([]byte, error) {
	var b strings.Builder
	fail := func(format string, a ...any) ([]byte, error) {
		return nil, fmt.Errorf("render eos config for %s: %s", dc.Device, fmt.Sprintf(format, a...))
	}
	fmt.Fprintf(&b, "! QoS for %s rendered by labctl\n!\n", dc.Device)
	// EOS has one DSCP map and one TC -> queue map per switch: the ports'
	// must agree.
	dscpMap := dc.CommonMap(func(p *qos.PortConfig) map[int]int { return p.DSCPToTC })
	tcQueue := dc.CommonMap(func(p *qos.PortConfig) map[int]int { return p.TCToQueue })
	cosMap := dc.CommonMap(func(p *qos.PortConfig) map[int]int { return p.CoSToTC })
	// The drop precedences the DSCP map gives, on the ports it classifies.
	var dscpDP map[int]int
	for _, p := range dc.Ports {
		if len(p.DSCPToDropPrecedence) > 0 {
			dscpDP = p.DSCPToDropPrecedence
			break
		}
	}
	for _, p := range dc.Ports {
		if p.Trust == qos.TrustDSCP && qos.FormatMap(p.DSCPToDropPrecedence) != qos.FormatMap(dscpDP) {
			return fail("port %s colours DSCPs otherwise than another port (drop precedence %s); EOS has one DSCP map per switch", p.Name, qos.FormatMap(p.DSCPToDropPrecedence))
		}
	}
	for _, p := range dc.Ports {
		if qos.FormatMap(p.DSCPToTC) != qos.FormatMap(dscpMap) {
			return fail("port %s has its own DSCP map; EOS has one DSCP map per switch", p.Name)
		}
		if qos.FormatMap(p.CoSToTC) != qos.FormatMap(cosMap) {
			return fail("port %s has its own CoS map; EOS has one CoS map per switch", p.Name)
		}
		if qos.FormatMap(p.TCToQueue) != qos.FormatMap(tcQueue) {
			return fail("port %s has its own traffic class to queue map; EOS has one per switch", p.Name)
		}
		if qos.FormatMap(p.PFCToQueue) != qos.FormatMap(p.TCToQueue) {
			return fail("port %s pauses other queues than its classes use (PFC to queue %s); EOS pauses a priority's own class", p.Name, qos.FormatMap(p.PFCToQueue))
		}
		for tc, pg := range p.TCToPG {
			if pg != tc && slices.Contains(p.PFCPriorities, tc) {
				return fail("port %s puts lossless TC%d in PG %d; EOS buffers a PFC priority as its own class", p.Name, tc, pg)
			}
		}
	}
	// DSCP map: one line per traffic class and drop precedence, DSCPs
	// ascending.
	byTC := cfgByClass(dscpMap, func(int, int) bool { return true })
	for _, tc := range cfgSortedInts(byTC) {
		byDP := map[int][]int{}
		for _, d := range byTC[tc] {
			byDP[dscpDP[d]] = append(byDP[dscpDP[d]], d)
		}
		for _, dp := range cfgSortedInts(byDP) {
			fmt.Fprintf(&b, "qos map dscp %s to traffic-class %d", cfgJoin(byDP[dp], " "), tc)
			if dp != 0 {
				fmt.Fprintf(&b, " drop-precedence %d", dp)
			}
			b.WriteString("\n")
		}
	}
	// CoS map: only the CoSs mapped otherwise than EOS's default
	// (cfgDefaultCoSTC), one line per traffic class, as the parser reads
	// them; a port trusting CoS (or a DSCP-less packet) is classified by it.
	cosByTC := cfgByClass(cosMap, func(c, tc int) bool { return tc != cfgDefaultCoSTC(c) })
	for _, tc := range cfgSortedInts(cosByTC) {
		fmt.Fprintf(&b, "qos map cos %s to traffic-class %d\n", cfgJoin(cosByTC[tc], " "), tc)
	}
	// Egress DSCP rewrite: EOS's is switch-wide (qos rewrite dscp and one
	// traffic class to DSCP map, nos/eos rewrite.go), so the ports must
	// agree.
	remark := dc.CommonMap(func(p *qos.PortConfig) map[int]int { return p.TCToDSCP })
	for _, p := range dc.Ports {
		if qos.FormatMap(p.TCToDSCP) != qos.FormatMap(remark) {
			return fail("port %s rewrites DSCPs otherwise than another port (tc_to_dscp %s); EOS has one traffic class to DSCP rewrite per switch", p.Name, qos.FormatMap(p.TCToDSCP))
		}
	}
	// qos rewrite dscp with no map line still rewrites, by EOS's default
	// map (DeviceConfig.DSCPRewrite).
	if dc.DSCPRewrite || len(remark) > 0 {
		b.WriteString("qos rewrite dscp\n")
		for _, tc := range cfgSortedInts(remark) {
			fmt.Fprintf(&b, "qos map traffic-class %d to dscp %d\n", tc, remark[tc])
		}
	}
	// TC n -> queue n is EOS's default; only other mappings are written,
	// so a platform without the command accepts the usual config.
	for _, tc := range cfgSortedInts(tcQueue) {
		if q := tcQueue[tc]; q != tc {
			fmt.Fprintf(&b, "qos map traffic-class %d to tx-queue %d\n", tc, q)
		}
	}
	b.WriteString("!\n")

	var wd *qos.PortWatchdog
	for _, p := range dc.Ports {
		if p.Watchdog != nil {
			wd = p.Watchdog
			break
		}
	}
	// The poll interval is the device's, written whether or not a port
	// runs the watchdog, so that the config reads back as it was.
	action := ""
	if wd != nil {
		var err error
		if action, err = cfgWatchdogAction(wd.Action); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(&b, "priority-flow-control pause watchdog default timeout %s\n", cfgSeconds(wd.DetectionMs))
		fmt.Fprintf(&b, "priority-flow-control pause watchdog default recovery-time %s\n", cfgSeconds(wd.RestorationMs))
	}
	if dc.WatchdogPollMs > 0 {
		fmt.Fprintf(&b, "priority-flow-control pause watchdog default polling-interval %s\n", cfgSeconds(dc.WatchdogPollMs))
	}
	if wd != nil {
		fmt.Fprintf(&b, "priority-flow-control pause watchdog action %s\n", action)
	}
	if wd != nil || dc.WatchdogPollMs > 0 {
		b.WriteString("!\n")
	}

	// Group ports by their QoS (everything but name and topology).
	type group struct {
		name  string
		port  qos.PortConfig
		ports []string
	}
	var groups []*group
	bySig := map[string]*group{}
	perSpeed := map[int]int{}
	for _, p := range dc.Ports {
		if strings.ContainsAny(p.Name, " \n") || p.Name == "" {
			return fail("port name %q is not an EOS interface name", p.Name)
		}
		sig := cfgSignature(p)
		g := bySig[sig]
		if g == nil {
			perSpeed[p.SpeedGbps]++
			name := "labctl-qos"
			if p.SpeedGbps > 0 {
				name = fmt.Sprintf("labctl-%dg", p.SpeedGbps)
			}
			if n := perSpeed[p.SpeedGbps]; n > 1 {
				name = fmt.Sprintf("%s-%d", name, n)
			}
			g = &group{name: name, port: p}
			bySig[sig] = g
			groups = append(groups, g)
		}
		g.ports = append(g.ports, p.Name)
	}
	// The ports' ingress policies, each written once (cfgPolicyLines).
	policyOf := map[string]string{}
	for _, g := range groups {
		if len(g.port.PolicyTC) == 0 {
			continue
		}
		key := qos.FormatMap(g.port.PolicyTC)
		if _, ok := policyOf[key]; ok {
			continue
		}
		name := "labctl-policy"
		if n := len(policyOf); n > 0 {
			name = fmt.Sprintf("%s-%d", name, n+1)
		}
		policyOf[key] = name
		b.WriteString(cfgPolicyLines(name, g.port.PolicyTC))
	}
	for _, g := range groups {
		p := g.port
		fmt.Fprintf(&b, "qos profile %s\n", g.name)
		if len(p.PolicyTC) > 0 {
			fmt.Fprintf(&b, "   service-policy type qos input %s\n", policyOf[qos.FormatMap(p.PolicyTC)])
		}
		b.WriteString(cfgTrustLine(p.Trust))
		if p.DefaultCoS != 0 {
			fmt.Fprintf(&b, "   qos cos %d\n", p.DefaultCoS)
		}
		if sh := p.Shaper; sh != nil {
			lines, err := cfgShapeLines(sh, "   ")
			if err != nil {
				return fail("port %s: %v", p.Name, err)
			}
			b.WriteString(lines)
		}
		if len(p.PFCPriorities) > 0 {
			b.WriteString("   priority-flow-control on\n")
			for _, pr := range p.PFCPriorities {
				fmt.Fprintf(&b, "   priority-flow-control priority %d no-drop\n", pr)
			}
		}
		// The default timeout written above turns the watchdog on at
		// every PFC port that does not say otherwise (as labctl reads
		// EOS), so a PFC port without one says so.
		if p.Watchdog == nil && wd != nil && len(p.PFCPriorities) > 0 {
			b.WriteString("   no priority-flow-control pause watchdog\n")
		}
		if w := p.Watchdog; w != nil {
			action, err := cfgWatchdogAction(w.Action)
			if err != nil {
				return fail("%v", err)
			}
			b.WriteString("   priority-flow-control pause watchdog\n")
			fmt.Fprintf(&b, "   priority-flow-control pause watchdog port action %s\n", action)
			poll := "auto"
			if w.PollMs > 0 {
				poll = cfgSeconds(w.PollMs)
			}
			fmt.Fprintf(&b, "   priority-flow-control pause watchdog port timer timeout %s polling-interval %s recovery-time %s\n",
				cfgSeconds(w.DetectionMs), poll, cfgSeconds(w.RestorationMs))
		}
		// EOS keeps strict-priority queues above round-robin ones: "no
		// priority" on a queue makes every lower-numbered queue round
		// robin too. A weighted queue numbered above a strict one is
		// therefore written strict, or the strict queue (the CNPs')
		// would be served round robin.
		topStrict := -1
		for _, q := range p.Queues {
			if q.Strict {
				topStrict = max(topStrict, q.Queue)
			}
		}
		for _, q := range p.Queues {
			b.WriteString("   !\n")
			fmt.Fprintf(&b, "   tx-queue %d\n", q.Queue)
			if !q.Strict && q.Queue > topStrict && topStrict >= 0 {
				fmt.Fprintf(&b, "      ! strict priority, not weight %d: EOS serves no round-robin queue above a strict one (tx-queue %d)\n", q.Weight, topStrict)
				b.WriteString("      priority strict\n")
			} else if q.Strict {
				b.WriteString("      priority strict\n")
			} else {
				b.WriteString("      no priority\n")
				if q.Weight > 0 {
					fmt.Fprintf(&b, "      bandwidth percent %d\n", q.Weight)
				}
			}
			if e := q.ECN; e != nil {
				lo, hi, unit := cfgThreshold(e)
				fmt.Fprintf(&b, "      random-detect ecn minimum-threshold %d %s maximum-threshold %d %s max-mark-probability %d\n",
					lo, unit, hi, unit, int(math.Round(e.Pmax*100)))
			}
			if e := q.Drop; e != nil {
				lo, hi, unit := cfgThreshold(e)
				fmt.Fprintf(&b, "      random-detect drop minimum-threshold %d %s maximum-threshold %d %s drop-probability %d\n",
					lo, unit, hi, unit, int(math.Round(e.Pmax*100)))
			}
			for dp, c := range cfgColourDrops(q.WRED) {
				if c != nil {
					lo, hi, unit := cfgThreshold(&c.ECNConfig)
					fmt.Fprintf(&b, "      random-detect drop drop-precedence %d minimum-threshold %d %s maximum-threshold %d %s drop-probability %d\n",
						dp, lo, unit, hi, unit, int(math.Round(c.Pmax*100)))
				}
			}
			if sh := q.Shaper; sh != nil {
				lines, err := cfgShapeLines(sh, "      ")
				if err != nil {
					return fail("port %s tx-queue %d: %v", p.Name, q.Queue, err)
				}
				b.WriteString(lines)
			}
		}
		b.WriteString("!\n")
	}
	byName := map[string]*qos.PortConfig{}
	for i := range dc.Ports {
		byName[dc.Ports[i].Name] = &dc.Ports[i]
	}
	for _, g := range groups {
		for _, name := range g.ports {
			fmt.Fprintf(&b, "interface %s\n", name)
			p := byName[name]
			// What the config sets of the port itself: its MTU (lint
			// sizes headroom by it), a speed read from a config (lint
			// holds it to its link's; a lab's own ports keep the
			// platform's speed, which cEOS's virtual ports have no say
			// in) and whether it is shut down.
			if p.MTU > 0 {
				fmt.Fprintf(&b, "   mtu %d\n", p.MTU)
			}
			if parent := byName[cfgSubinterface(name)]; cfgSubinterface(name) != "" {
				// A subinterface takes its parent's QoS (the parser's
				// reading), its own trust and default CoS over them: it
				// names no profile; an L2 one says the line it bridges by.
				switch line := p.Origins["routed"]; {
				case p.Routed:
				case strings.HasPrefix(line, "vlan "), line == "encapsulation vlan":
					fmt.Fprintf(&b, "   %s\n", line)
				case strings.HasPrefix(line, "client "):
					// A pseudowire's attachment (FlexEncap without an
					// address), its client line under it.
					fmt.Fprintf(&b, "   encapsulation vlan\n      %s\n", line)
				}
				if parent == nil || parent.Trust != p.Trust {
					b.WriteString(cfgTrustLine(p.Trust))
				}
				if parent == nil || parent.DefaultCoS != p.DefaultCoS {
					fmt.Fprintf(&b, "   qos cos %d\n", p.DefaultCoS)
				}
				if p.AdminDown != "" && (parent == nil || p.AdminDown != cfgParentDown(parent.AdminDown, name)) {
					// Its own shutdown (the parent's is the parent's line).
					b.WriteString("   shutdown\n")
				}
				b.WriteString("!\n")
				continue
			}
			if p.Routed {
				// A routed port (the lab's fabric ports are): its MTU,
				// written above, is what EOS holds its packets to; without
				// a line EOS's default of 1500 would be.
				b.WriteString("   no switchport\n")
			} else if p.Switched != "" {
				// Said a switchport in so many words (lint's QOS026
				// warns of it on the lab's fabric).
				b.WriteString("   switchport\n")
			}
			if p.SpeedGbps > 0 && p.Origins["speed"] != "" {
				fmt.Fprintf(&b, "   speed forced %dgfull\n", p.SpeedGbps)
			}
			if p.AdminDown != "" {
				b.WriteString("   shutdown\n")
			}
			if n, ok := strings.CutPrefix(p.Channel, "Port-Channel"); ok {
				// Its membership, in its mode.
				fmt.Fprintf(&b, "   channel-group %s mode %s\n", n, p.LACPMode())
			}
			fmt.Fprintf(&b, "   service-profile %s\n!\n", g.name)
		}
	}
	lines, err := cfgChannelBlocks(dc, byName)
	if err != nil {
		return fail("%v", err)
	}
	b.WriteString(lines)
	return []byte(b.String()), nil
}

// cfgChannelBlocks writes, for each port channel its members name (in the
// order of its first member), the interface Port-Channel<N> block's lines
// that decide whether the members carry traffic (qos.ChannelAlone), as the
// parser reads them (blockLine, result): the channel's address (the
// statement read, PortConfig.Origins["channel_address"], after no
// switchport, without which EOS takes no address on the channel, unless the
// channel is a port of dc whose own block says its mode), its shutdown
// (ChannelDown), its port-channel lacp fallback individual or static
// (ChannelFallback) and its port-channel min-links (ChannelMinLinks). A channel that sets none of these gets no block: EOS
// makes the Port-Channel interface for its channel-group members.
func cfgChannelBlocks(dc qos.DeviceConfig, byName map[string]*qos.PortConfig) (string, error) {
	var b strings.Builder
	type channel struct {
		addr, down, fallback string
		minLinks             int
		member               string
	}
	seen := map[string]channel{}
	for _, p := range dc.Ports {
		if !strings.HasPrefix(p.Channel, "Port-Channel") {
			continue
		}
		c := channel{down: p.ChannelDown, fallback: p.ChannelFallback, minLinks: p.ChannelMinLinks, member: p.Name}
		if p.ChannelAddress {
			if c.addr = p.Origins["channel_address"]; c.addr == "" {
				return "", fmt.Errorf("port %s: its port channel %s has an address, but not the ip or ipv6 address statement that gives it, which labctl writes back as read", p.Name, p.Channel)
			}
		}
		if first, ok := seen[p.Channel]; ok {
			if first.addr != c.addr || (first.down != "") != (c.down != "") || first.fallback != c.fallback || first.minLinks != c.minLinks {
				return "", fmt.Errorf("ports %s and %s, members of %s, give it different addresses, shutdown, LACP fallback or min links; EOS has one interface %s block", first.member, p.Name, p.Channel, p.Channel)
			}
			continue
		}
		seen[p.Channel] = c
		if c.addr == "" && c.down == "" && c.fallback == "" && c.minLinks == 0 {
			continue
		}
		fmt.Fprintf(&b, "interface %s\n", p.Channel)
		if c.addr != "" {
			if byName[p.Channel] == nil {
				b.WriteString("   no switchport\n")
			}
			fmt.Fprintf(&b, "   %s\n", c.addr)
		}
		if c.down != "" {
			b.WriteString("   shutdown\n")
		}
		if c.fallback != "" {
			fmt.Fprintf(&b, "   port-channel lacp fallback %s\n", c.fallback)
		}
		if c.minLinks > 0 {
			fmt.Fprintf(&b, "   port-channel min-links %d\n", c.minLinks)
		}
		b.WriteString("!\n")
	}
	return b.String(), nil
}

// cfgTrustLine is the line of a profile or subinterface that sets trust.
func cfgTrustLine(trust string) string {
	switch trust {
	case qos.TrustCoS:
		return "   qos trust cos\n"
	case qos.TrustNone:
		return "   no qos trust\n"
	}
	return "   qos trust dscp\n"
}

// cfgPolicyLines writes a port's ingress policy classes (DSCP -> traffic
// class for RoCEv2 packets) as policy-map name: per traffic class an
// access-list of RoCEv2 packets (UDP to port 4791) of its DSCPs, a
// class-map by it, and the policy's class setting the traffic class.
func cfgPolicyLines(name string, tcs map[int]int) string {
	var b strings.Builder
	byTC := cfgByClass(tcs, func(int, int) bool { return true })
	classes := cfgSortedInts(byTC)
	for _, tc := range classes {
		fmt.Fprintf(&b, "ip access-list %s-tc%d\n", name, tc)
		for i, d := range byTC[tc] {
			fmt.Fprintf(&b, "   %d permit udp any any eq %d dscp %d\n", 10*(i+1), fabric.RoCEv2Port, d)
		}
		fmt.Fprintf(&b, "!\nclass-map type qos match-any %s-tc%d\n   match ip access-group %s-tc%d\n!\n", name, tc, name, tc)
	}
	fmt.Fprintf(&b, "policy-map type quality-of-service %s\n", name)
	for _, tc := range classes {
		fmt.Fprintf(&b, "   class %s-tc%d\n      set traffic-class %d\n", name, tc, tc)
	}
	b.WriteString("!\n")
	return b.String()
}

// cfgByClass groups the keys of a map to traffic classes (DSCPs, CoSs)
// by class, each class's keys ascending, keeping those keep takes: the
// lines of EOS's maps and a policy's access-lists, one per class.
func cfgByClass(m map[int]int, keep func(k, tc int) bool) map[int][]int {
	out := map[int][]int{}
	for k, tc := range m {
		if keep(k, tc) {
			out[tc] = append(out[tc], k)
		}
	}
	for _, ks := range out {
		slices.Sort(ks)
	}
	return out
}

// cfgShapeLines writes a shaper as EOS's shape rate statement (pps for a
// packet meter, else kbps, else percent) at indent, with a comment line
// when it has a burst, which is not written. A tx-queue's and a port's
// shaper are written alike.
func cfgShapeLines(sh *qos.Shaper, indent string) (string, error) {
	var out string
	switch {
	case sh.PacketsPerSec > 0:
		out = fmt.Sprintf("%sshape rate %d pps\n", indent, sh.PacketsPerSec)
		if sh.BurstPackets > 0 {
			out += fmt.Sprintf("%s! shaper burst of %d packets not written: labctl writes no burst-size, so the switch keeps its own\n", indent, sh.BurstPackets)
		}
		return out, nil
	case sh.RateKbps > 0:
		out = fmt.Sprintf("%sshape rate %d kbps\n", indent, sh.RateKbps)
	case sh.Percent >= 1 && sh.Percent <= 100:
		out = fmt.Sprintf("%sshape rate %d percent\n", indent, sh.Percent)
	default:
		return "", fmt.Errorf("a shaper of %d percent and no kb/s rate; EOS shapes at a rate in kbps or pps or at 1-100 percent", sh.Percent)
	}
	if sh.BurstBytes > 0 {
		out += fmt.Sprintf("%s! shaper burst of %d bytes not written: labctl writes no burst-size, so the switch keeps its own\n", indent, sh.BurstBytes)
	}
	return out, nil
}

// cfgColourDrops are a queue's early drops of yellow and red packets (EOS's
// random-detect drop drop-precedence 1 and 2), by drop precedence; a
// colour that marks, or none, is nil.
func cfgColourDrops(w *qos.WREDProfile) [cfgDropPrecedences]*qos.WREDColour {
	var out [cfgDropPrecedences]*qos.WREDColour
	if w == nil {
		return out
	}
	for dp := 1; dp < cfgDropPrecedences; dp++ {
		if c := *w.Colour(dp); c != nil && !c.Mark {
			out[dp] = c
		}
	}
	return out
}

// cfgSignature is a port's QoS without its name and topology.
func cfgSignature(p qos.PortConfig) string {
	p.Name, p.Peer, p.MTU, p.CableM, p.Fabric, p.PGs = "", "", 0, 0, false, nil
	// Whether it is shut down, and its port channel, are the
	// interface's own lines; its speed
	// stays, as the profiles are named by it (labctl-100g).
	p.AdminDown, p.Channel, p.ChannelMode, p.ChannelAddress, p.ChannelIgnored, p.ChannelDown, p.ChannelFallback, p.ChannelMinLinks, p.Switched = "", "", "", false, "", "", "", 0, ""
	// Whether EOS keeps it L2, and what shows it was meant to route, are
	// the interface's own lines (and their places), and the switch's.
	p.L2, p.L2Said, p.L2IP, p.L2Whole = "", "", "", ""
	p.DSCPToTC, p.CoSToTC, p.TCToQueue, p.TCToPG, p.PFCToQueue, p.Origins = nil, nil, nil, nil, nil, nil
	p.Queues = slices.Clone(p.Queues) // the caller's queues stay as they are
	for i := range p.Queues {
		// Of the WRED profile, only what a tx-queue line says of its own
		// (a colour's early drop) tells ports apart; the rest follows
		// from the ECN line.
		drops := cfgColourDrops(p.Queues[i].WRED)
		p.Queues[i].Buffer, p.Queues[i].Origin, p.Queues[i].WRED = nil, "", nil
		if drops[1] != nil || drops[2] != nil {
			p.Queues[i].WRED = &qos.WREDProfile{Yellow: drops[1], Red: drops[2]}
		}
	}
	s, _ := json.Marshal(p)
	return string(s)
}

// cfgThreshold picks the EOS unit for ECN thresholds: kbytes when both
// are whole KiB (EOS kbytes taken as 1024 bytes; unverified), else bytes.
func cfgThreshold(e *qos.ECNConfig) (lo, hi int64, unit string) {
	if e.Unit != "" {
		return e.MinBytes, e.MaxBytes, e.Unit
	}
	if e.MinBytes%1024 == 0 && e.MaxBytes%1024 == 0 {
		return e.MinBytes / 1024, e.MaxBytes / 1024, "kbytes"
	}
	return e.MinBytes, e.MaxBytes, "bytes"
}

// cfgWatchdogAction maps labctl's (SONiC's) watchdog action to EOS's.
func cfgWatchdogAction(a string) (string, error) {
	switch a {
	case "drop":
		return "drop", nil
	case "forward", "no-drop":
		return "no-drop", nil
	case "errdisable":
		return "errdisable", nil
	case "alert", "notify-only":
		return "notify-only", nil
	}
	return "", fmt.Errorf("PFC watchdog action %q has no EOS equivalent: use drop, forward (EOS no-drop), alert (EOS notify-only) or errdisable", a)
}

// cfgSeconds renders milliseconds as EOS seconds: 200 -> "0.2".
func cfgSeconds(ms int) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

func cfgSortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func cfgJoin(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}
