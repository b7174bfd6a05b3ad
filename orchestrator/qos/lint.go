package qos

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// Severity of a lint finding. Only errors make `labctl config lint` fail.
type Severity string

// Severities, most severe first.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Finding is one lint result: one cause, on one device, on every port it
// affects.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Device   string   `json:"device,omitempty"`
	// Port is the port, or for a cause found on several ports their
	// ranges ("Ethernet0-60"); Ports then lists them one by one.
	Port  string   `json:"port,omitempty"`
	Ports []string `json:"ports,omitempty"`
	// Where names the config entry behind the finding when there is one
	// ("WRED_PROFILE|ECN_819200_3276800_20", "interface Ethernet1").
	Where   string `json:"where,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
	// peer is the switch at the other end of the port's link where the
	// message and fix name it (addPeer): groupFindings merges the findings
	// of one cause on a switch that differ only in it. Lint's findings
	// have it no more.
	peer string
}

// Rule describes one lint rule. IDs are stable: scripts and suppressions
// rely on them.
type Rule struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
}

// Rule IDs.
const (
	RuleParseNote         = "QOS000"
	RulePFCOffLossless    = "QOS001"
	RuleDSCPMapMismatch   = "QOS002"
	RuleRoCEDSCPLossy     = "QOS003"
	RuleECNThresholds     = "QOS004"
	RuleECNLosslessQueue  = "QOS005"
	RuleHeadroomShort     = "QOS006"
	RuleCNPPriority       = "QOS007"
	RuleWatchdogOff       = "QOS008"
	RuleLinkLosslessMatch = "QOS009"
	RuleInvalidValue      = "QOS010"
	RuleSimIgnores        = "QOS011"
	RulePortDiffers       = "QOS012"
	RuleUnresolved        = "QOS013"
	RuleLosslessPG        = "QOS014"
	RuleWREDDropLossless  = "QOS015"
	RulePFCQueueMap       = "QOS016"
	RuleDefaultRelied     = "QOS017"
	RuleIntentDrift       = "QOS018"
	RuleRouting           = "QOS019"
	RulePortMTU           = "QOS020"
	RuleOverruled         = "QOS021"
	RuleShapedLossless    = "QOS022"
	RulePFCPGMap          = "QOS023"
	RuleEgressRemark      = "QOS024"
	RuleStrictOtherQueue  = "QOS025"
	RulePortDown          = "QOS026"
	RuleWatchdogForced    = "QOS027"
	RulePoolReserves      = "QOS028"
)

// Rules lists the lint rules.
func Rules() []Rule {
	// In id order: lint --help lists them as given.
	return []Rule{
		{RuleParseNote, "parse-note", SevInfo, "something the parser could not resolve"},
		{RulePFCOffLossless, "pfc-off-lossless", SevError, "PFC is off for a lossless priority on a data port"},
		{RuleDSCPMapMismatch, "dscp-map-mismatch", SevError, "DSCPs reach lossless classes on some ports and not others (error; for bare files not between ports of two roles each consistent on its own, as SONiC's dual-ToR ports are), or other traffic shares RoCE's lossless class, as every unmarked packet does on RoCE DSCP 0, or its egress queue (warning)"},
		{RuleRoCEDSCPLossy, "roce-dscp-lossy", SevError, "the RoCE DSCP does not reach a lossless traffic class (its map or the port's trust mode)"},
		{RuleECNThresholds, "ecn-thresholds", SevError, "ECN Kmin above Kmax or a marking probability outside (0, 100%] (error); Kmin at or above the PFC XOFF point, so nothing is marked (error on a lossless queue traffic reaches, else a warning); Kmin equal to Kmax (a step), Kmax above the PFC XOFF point or below one packet (warning)"},
		{RuleECNLosslessQueue, "ecn-lossless-queue", SevError, "the queue of a lossless class does not mark ECN while ECN is in use (a warning where no port of the switch classifies into the queue's lossless classes)"},
		{RuleHeadroomShort, "headroom-short", SevError, "PFC headroom is less than link speed, MTU and cable length need (error), or than the longer cable the peer switch's config gives the link (warning: the two ends disagree on its length)"},
		{RuleCNPPriority, "cnp-priority", SevWarning, "CNPs are in a PFC class, neither on a strict queue nor weighted above RoCE data, or on DSCP 0, which puts unmarked traffic on their strict queue; or the NICs mark them with another DSCP than the configs are made for (nic.dcqcn.cnp_dscp against qos.cnp_dscp)"},
		{RuleWatchdogOff, "pfc-watchdog-off", SevWarning, "a port with PFC has no PFC watchdog that acts on a storm (none, one that only reports, or one not watching every PFC priority)"},
		{RuleLinkLosslessMatch, "link-lossless-mismatch", SevError, "the two ends of a link differ in PFC priorities (a warning where no DSCP takes those priorities at the end that enables them) or in the class RoCE arrives in, or in FEC mode (the link does not come up, and the simulator runs it down), or a port is set to another speed than its link's"},
		{RuleInvalidValue, "invalid-value", SevError, "a threshold, probability or buffer profile no switch or simulator can take"},
		{RuleSimIgnores, "not-simulated", SevInfo, "settings in the config that the simulator does not run (lint only, or ignored)"},
		{RulePortDiffers, "port-differs", SevWarning, "a port whose QoS differs from most of its siblings, or a switch from the other switches of its role"},
		{RuleUnresolved, "unresolved-reference", SevError, "a config entry names a map, profile or scheduler the config does not define"},
		{RuleLosslessPG, "lossless-pg-missing", SevError, "a priority has PFC but its priority group has no lossless buffer profile (no xoff): it drops instead of pausing (a warning where no packet the port receives takes the priority, by DSCP or, on a port that classifies by CoS, by a tagged frame's CoS: nothing is lost until one does); or a class without PFC fills a lossless class's PG, whose pause does not stop it, and overflows its headroom (a warning for the CNPs' class)"},
		{RuleWREDDropLossless, "lossless-queue-drops", SevError, "the queue of a lossless class drops: WRED early drop without ECN marking, or an egress limit from a lossy pool or below the XOFF point of the PGs that feed it (a warning where no port of the switch classifies into the queue's lossless classes)"},
		{RulePFCQueueMap, "pfc-queue-map", SevError, "a PFC frame for a lossless priority pauses a queue other than the one its class leaves by"},
		{RuleDefaultRelied, "default-or-unsimulated", SevWarning, "a setting RoCE depends on is left to the NOS's default, or set in a way the simulator does not run (error: a data-path ACL rule that drops, redirects or re-marks RoCE's packets or its CNPs)"},
		{RuleIntentDrift, "intent-drift", SevWarning, "a setting of a RoCE class (lossless or CNP) differs from the lab's QoS intent"},
		{RuleRouting, "routing-design", SevWarning, "the underlay's routing design lets traffic take paths that can form PFC deadlocks"},
		{RulePortMTU, "port-mtu", SevError, "a data port's MTU is below what RoCE's packets need (the lab's RoCE MTU plus headers)"},
		{RuleOverruled, "overruled-entry", SevError, "a config entry the switch refuses (error: a key orchagent cannot read, a PFC_WD entry whose times pfcwdorch refuses), or applies otherwise than it reads (warning: an index read short, a BUFFER_PG entry SONiC's buffer manager writes over, an EOS priority strict below a round-robin tx-queue, entries keyed by a port the switch does not have, SONiC buffer entries that would hold their ports, and all of orchagent, at a cold start; in a lab, a port MTU the modeled platform takes but the lab's switch refuses, as cEOS does above 9194)"},
		{RuleShapedLossless, "shaped-lossless-queue", SevWarning, "the queue of a lossless class, or a port that carries one, is shaped below the port's line rate: RoCE leaves the port no faster than the shaper, and its backlog pauses (PFC) or is marked (ECN) sooner; the simulator runs the shaper"},
		{RulePFCPGMap, "pfc-pg-map", SevError, "a PFC priority's pause frames come from another PG than the one its traffic fills: that PG fills without pausing the sender and drops once its headroom is gone"},
		{RuleEgressRemark, "egress-dscp-remark", SevError, "a port rewrites the DSCP of RoCE's or its CNPs' class as it sends them (egress remarking) to one the next switch classifies into another class: there they lose their lossless class or their priority"},
		{RuleStrictOtherQueue, "strict-other-queue", SevWarning, "a queue that carries neither a lossless class nor the CNPs but unmarked packets (DSCP 0) or more than 8 DSCPs is strict priority above a lossless class's round-robin queue: its bulk traffic is sent first and can starve RoCE (a strict queue for network control, a DSCP or two such as CS7, is not flagged); so is the CNPs' strict queue where such bulk traffic shares it"},
		{RulePortDown, "port-down", SevError, "a data port wired to a host or switch is administratively down (SONiC: PORT admin_status down, or a full PORT entry without admin_status, whose default is down): its link carries nothing, and the simulator runs it down from the start; so is an EOS port of the lab's routed fabric that is a switchport (no no switchport in its block, or a switchport line), whose IP configuration EOS ignores, where its config shows so whether it is a whole config or QoS alone pushed over a routed startup config: its own ip address; its own switchport line facing a routed port; or, in a whole config (one that addresses front-panel ports), its silence facing a routed port (warning: a port made L2 otherwise, SONiC's VLAN_MEMBER or an EOS switchport facing another, which may route nothing)"},
		{RuleWatchdogForced, "watchdog-forced-drop", SevError, "the PFC watchdog's drop action is forced on a port's priorities with no storm (SONiC: PFC_WD|GLOBAL BIG_RED_SWITCH enable, on every port's pfcwd_sw_enable priorities): the port ignores their pause frames, sends none, and drops every packet of them, RoCE's lossless class included; the simulator runs them so from the start"},
		{RulePoolReserves, "pool-below-reserves", SevError, "a buffer pool (SONiC: BUFFER_POOL size) is smaller than the reserves (BUFFER_PROFILE size) of the priority groups or queues drawing on it and than a frame for each: whether the switch takes every reserve out of the pool (SAI's shared size) or shares the pool beside them, each holds little more than its reserve (error where the pool holds a class RoCE needs that traffic reaches, its data's, its CNPs' or a lossless one: the CNPs' queue drops their bursts; a warning where only best effort draws on it); a note where the pool is below its reserves but above a frame each, which is as sized on platforms whose pool is the shared part alone (SONiC's Mellanox pools)"},
	}
}

// LintOptions tells Lint what the lab means. Intent is nil for bare files;
// then RoCEDSCP and CNPDSCP (if set) say which DSCPs the traffic uses.
type LintOptions struct {
	Intent *Intent
	// Devices are the lab's switches (with Intent): lint compares each
	// config's RoCE classes with what the intent renders for them.
	Devices  []Device
	RoCEDSCP *int
	CNPDSCP  *int
	// NICCNPDSCP is the DSCP the lab's NICs mark their CNPs with
	// (nic.dcqcn.cnp_dscp; nil: the intent's). The CNPs on the wire carry
	// it, so lint checks their class with it, and warns where it is not
	// the intent's, for which the configs were rendered.
	NICCNPDSCP *int
	// Routing are findings about the underlay's routing design (the
	// fabric's, from the caller), reported as QOS019 warnings.
	Routing []string
}

// Lint checks device configs and returns findings sorted by device, port
// and rule, one per cause: a cause found on many ports of a device is one
// finding naming them.
func Lint(cfgs []DeviceConfig, opt LintOptions) []Finding {
	l := &linter{opt: opt, cfgs: cfgs}
	l.run()
	out := groupFindings(l.out, cfgs)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Device != b.Device {
			return a.Device < b.Device
		}
		if a.Port != b.Port {
			return PortLess(a.Port, b.Port)
		}
		return a.Rule < b.Rule
	})
	return out
}

// HasErrors says whether any finding is an error.
func HasErrors(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity == SevError })
}

// Count returns the number of findings of a severity.
func Count(fs []Finding, sev Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

type linter struct {
	opt  LintOptions
	cfgs []DeviceConfig
	out  []Finding
	// roceFields of each config's ports (roceFieldsOf), by config and
	// port index.
	roceFields [][]map[string]string
	// byName indexes cfgs by device name (peerPort), portDevice by their
	// ports (deviceOf), made on first use; misclass are the states
	// QOS024's walk decided (misclassified).
	byName        map[string]*DeviceConfig
	portDevice    map[*PortConfig]*DeviceConfig
	misclass      map[misclassKey]*misclassState
	misclassStack []misclassKey
	misclassIndex int
}

func (l *linter) add(rule string, sev Severity, dev, port, fix, format string, a ...any) {
	l.out = append(l.out, Finding{Rule: rule, Severity: sev, Device: dev, Port: port, Message: fmt.Sprintf(format, a...), Fix: fix})
}

func (l *linter) addAt(rule string, sev Severity, dev, port, where, fix, format string, a ...any) {
	l.out = append(l.out, Finding{Rule: rule, Severity: sev, Device: dev, Port: port, Where: where, Message: fmt.Sprintf(format, a...), Fix: fix})
}

// addPeer is addAt for a finding whose message and fix name peer, the
// switch at the other end of port's link, as "the peer <peer>" and
// "<peer>": the findings on a switch's links to several peers of one
// cause merge into one naming them (groupFindings, peerText).
func (l *linter) addPeer(peer, rule string, sev Severity, dev, port, where, fix, format string, a ...any) {
	l.addAt(rule, sev, dev, port, where, fix, format, a...)
	l.out[len(l.out)-1].peer = peer
}

// peerMark stands for a finding's peer in the message and fix that
// groupFindings compares.
const peerMark = "\x00peer\x00"

// PeerPhrase is what a finding's text says before the one peer it names,
// PeersPhrase before the several a merged finding names (peerText):
// regress reads the two as one cause.
const (
	PeerPhrase  = "the peer "
	PeersPhrase = "the peers "
)

// PortsMark stands for the ports of an entry named over several, in the
// Where of a finding merged over ports (portless) and in texts grouped
// over them: regress reads it as a port's name.
const PortsMark = "*"

// peerText is a message or fix with a finding's peers in peerMark's
// place: the one peer's name, or several's ranges (DeviceRanges) after
// "the peers" where the text says "the peer".
func peerText(text string, peers []string) string {
	if len(peers) == 1 {
		return strings.ReplaceAll(text, peerMark, peers[0])
	}
	names := DeviceRanges(peers, 0)
	text = strings.ReplaceAll(text, PeerPhrase+peerMark, PeersPhrase+names)
	return strings.ReplaceAll(text, peerMark, names)
}

// groupFindings merges the findings of one cause (same rule, severity,
// device, entry, message and fix) on several ports into one; those that
// differ only in the peer they name (addPeer: a switch's links to each
// leaf of an edit made to every leaf) are of one cause too, and name the
// peers. Regress compares the merged findings port by port (Ports), so a
// record of one finding a peer matches one of a finding naming them all.
func groupFindings(fs []Finding, cfgs []DeviceConfig) []Finding {
	order := map[string][]string{}
	for i := range cfgs {
		for _, p := range cfgs[i].Ports {
			order[cfgs[i].Device] = append(order[cfgs[i].Device], p.Name)
		}
	}
	type key struct {
		rule, dev, where, msg, fix string
		sev                        Severity
	}
	var out []Finding
	// texts are each finding's message and fix with its peer marked
	// (peerMark), peers the peers it names, as out orders them.
	var texts [][2]string
	var peers [][]string
	at := map[key]int{}
	for _, f := range fs {
		if f.Port == "" {
			out = append(out, f)
			texts = append(texts, [2]string{})
			peers = append(peers, nil)
			continue
		}
		// The same entry on each port ("BUFFER_PG|Ethernet0|3") is one
		// cause: its port reads "*".
		// A finding made over several ports already (QOS013) keeps them.
		ports := f.Ports
		if len(ports) == 0 {
			ports = []string{f.Port}
			f.Where = portless(f.Where, f.Port)
		}
		msg, fix := f.Message, f.Fix
		if f.peer != "" {
			msg, fix = replacePortName(msg, f.peer, peerMark), replacePortName(fix, f.peer, peerMark)
		}
		k := key{f.Rule, f.Device, f.Where, msg, fix, f.Severity}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			f.Ports = slices.Clone(ports)
			out = append(out, f)
			texts = append(texts, [2]string{msg, fix})
			peers = append(peers, nil)
			if f.peer != "" {
				peers[len(peers)-1] = []string{f.peer}
			}
			continue
		}
		for _, p := range ports {
			if !slices.Contains(out[i].Ports, p) {
				out[i].Ports = append(out[i].Ports, p)
			}
		}
		if f.peer != "" && !slices.Contains(peers[i], f.peer) {
			peers[i] = append(peers[i], f.peer)
		}
	}
	for i := range out {
		f := &out[i]
		if len(peers[i]) > 1 {
			f.Message, f.Fix = peerText(texts[i][0], peers[i]), peerText(texts[i][1], peers[i])
		}
		f.peer = ""
		switch len(f.Ports) {
		case 0:
		case 1:
			f.Ports = nil
		default:
			sortPorts(f.Ports)
			f.Port = portsNamed(f.Ports, order[f.Device])
		}
	}
	return out
}

// portsNamed names a finding's ports (set) among the device's (all) as
// PortRanges does, but for ports the device lacks (the entries naming
// them, QOS021), which run among themselves in port order, as if the
// device had them: 47 ports a PORT table leaves out are Ethernet4-188.
func portsNamed(set, all []string) string {
	if slices.ContainsFunc(set, func(p string) bool { return !slices.Contains(all, p) }) {
		ext := slices.Clone(all)
		for _, p := range set {
			if !slices.Contains(ext, p) {
				ext = append(ext, p)
			}
		}
		sortPorts(ext)
		all = ext
	}
	return PortRanges(set, all)
}

// portless replaces a port's name in a table key with "*":
// "BUFFER_PG|Ethernet0|3" -> "BUFFER_PG|*|3".
func portless(where, port string) string {
	if where == "" {
		return ""
	}
	parts := strings.Split(where, "|")
	for i, p := range parts {
		if p == port || strings.HasPrefix(p, port+" ") {
			parts[i] = PortsMark + strings.TrimPrefix(p, port)
		}
	}
	w := strings.Join(parts, "|")
	return strings.ReplaceAll(w, "interface "+port, "interface "+PortsMark)
}

// lossless returns the priorities that should be lossless on a device:
// the intent's, or for bare files the PFC priorities most of the device's
// ports enable (a port missing one of them stands out; a port enabling
// more, like uplinks of some SKUs, does not).
func (l *linter) lossless(d *DeviceConfig) []int {
	if l.opt.Intent != nil {
		if !l.opt.Intent.PFC.Enabled {
			return nil
		}
		return l.opt.Intent.LosslessPriorities
	}
	count := map[string]int{}
	sets := map[string][]int{}
	for _, p := range d.Ports {
		k := FormatInts(p.PFCPriorities)
		count[k]++
		sets[k] = p.PFCPriorities
	}
	best := ""
	for _, k := range slices.Sorted(maps.Keys(count)) {
		if count[k] > count[best] || (count[k] == count[best] && len(sets[k]) > len(sets[best])) {
			best = k
		}
	}
	return sets[best]
}

// roceDSCP is the DSCP RoCE data uses: the intent's, the option's, or nil
// for bare files without one.
func (l *linter) roceDSCP() *int {
	if l.opt.Intent != nil {
		r := l.opt.Intent.RoCEDSCP
		return &r
	}
	return l.opt.RoCEDSCP
}

// cnpDSCP is the DSCP the CNPs on the wire carry: the NICs' where the lab
// gives it, else the one the configs are made for.
func (l *linter) cnpDSCP() int {
	if l.opt.NICCNPDSCP != nil {
		return *l.opt.NICCNPDSCP
	}
	return l.designCNPDSCP()
}

// designCNPDSCP is the CNP DSCP the configs are made for (the intent's,
// the option's, else 48), at which lab mode compares ports with each
// other and with the intent.
func (l *linter) designCNPDSCP() int {
	switch {
	case l.opt.Intent != nil:
		return l.opt.Intent.CNPDSCP
	case l.opt.CNPDSCP != nil:
		return *l.opt.CNPDSCP
	}
	return 48
}

func (l *linter) run() {
	l.lossyDSCPs()
	l.roce()
	l.links()
	l.siblings()
	l.intentDrift()
	for _, r := range l.opt.Routing {
		l.add(RuleRouting, SevWarning, "", "", "give the spines of each tier one ASN (RFC 7938), so that eBGP's AS-path loop prevention keeps valley paths out", "%s", r)
	}
	if in, nicCNP := l.opt.Intent, l.opt.NICCNPDSCP; in != nil && nicCNP != nil && *nicCNP != in.CNPDSCP {
		l.add(RuleCNPPriority, SevWarning, "", "", fmt.Sprintf("give nic.dcqcn.cnp_dscp and qos.cnp_dscp one value (%d, or leave nic.dcqcn.cnp_dscp out)", in.CNPDSCP),
			"the NICs mark CNPs with DSCP %d (nic.dcqcn.cnp_dscp) but the switches' configs are rendered for CNPs on DSCP %d (qos.cnp_dscp): the CNPs take DSCP %d's class, which lint checks on every port", *nicCNP, in.CNPDSCP, *nicCNP)
	}
	for i := range l.cfgs {
		d := &l.cfgs[i]
		for _, n := range d.Notes {
			l.add(RuleParseNote, SevInfo, d.Device, "", "", "%s", n)
		}
		l.out = append(l.out, Problems(d)...)
		l.unresolved(d)
		l.overruled(d)
		l.defaults(d)
		l.filters(d)
		l.notSimulated(d)
		l.portsDiffer(d)
		l.poolReserves(d)
		lossless := l.lossless(d)
		for j := range d.Ports {
			p := &d.Ports[j]
			l.pfcOff(d, p, lossless)
			l.losslessPG(d, p)
			l.lossyInLosslessPG(d, p)
			l.pfcQueueMap(d, p)
			l.sharedLosslessQueue(d, p, lossless)
			l.ecn(d, p, lossless)
			l.headroom(d, p)
			l.cnp(d, p, lossless)
			l.strictOtherQueue(d, p, lossless)
			l.watchdog(d, p)
			l.portMTU(d, p)
			l.portDown(d, p)
			l.watchdogForced(d, p)
			l.portSpeed(d, p)
			l.shapedLossless(d, p, lossless)
			l.pfcPGMap(d, p)
			l.egressRemark(d, p)
		}
	}
}

// QOS001
func (l *linter) pfcOff(d *DeviceConfig, p *PortConfig, lossless []int) {
	if !p.Fabric {
		return
	}
	var missing []int
	for _, pr := range lossless {
		// For bare files the lossless priorities are the device's most
		// common PFC set; a port whose own DSCP map sends no DSCP to the
		// class is of another role, not missing it (dualToRRole).
		if !slices.Contains(p.PFCPriorities, pr) && (l.opt.Intent != nil || !ownMapSkips(p, pr)) {
			missing = append(missing, pr)
		}
	}
	if len(missing) > 0 {
		l.add(RulePFCOffLossless, SevError, d.Device, p.Name,
			fmt.Sprintf("enable PFC on priority %s (SONiC: PORT_QOS_MAP pfc_enable; EOS: priority-flow-control priority N no-drop)", FormatInts(missing)),
			"PFC is off for lossless priority %s (enabled: [%s])", FormatInts(missing), FormatInts(p.PFCPriorities))
	}
}

// QOS014: a PFC priority whose PG cannot pause.
func (l *linter) losslessPG(d *DeviceConfig, p *PortConfig) {
	if p.BufferUnknown {
		return
	}
	for _, pr := range p.PFCPriorities {
		c := p.Class(pr)
		if c.Lossless {
			continue
		}
		what, where := "no buffer profile", ""
		if g := c.PGConfig; g != nil {
			where = g.Origin
			what = "the profile " + g.Profile
			switch {
			case g.Profile == "":
				what = "no buffer profile"
			case g.XoffBytes != nil:
				what += " with xoff 0"
			default:
				what += ", which has no xoff"
			}
		}
		// A priority no DSCP takes on the port carries nothing to drop:
		// a warning, for the traffic a DSCP mapped to it later would be.
		sev, idle := SevError, ""
		if !reaches(p, pr) {
			sev, idle = SevWarning, fmt.Sprintf("; no DSCP takes priority %d on this port, so nothing is lost there until one is mapped to it", pr)
		}
		l.addAt(RuleLosslessPG, sev, d.Device, p.Name, where,
			fmt.Sprintf("give PG %d a lossless profile (SONiC: BUFFER_PG|<port>|%d -> a pg_lossless_<speed>_<cable>_profile with xoff at least the headroom the link needs)", c.PG, c.PG),
			"priority %d has PFC on, but its PG %d has %s: the switch cannot pause it and drops instead%s", pr, c.PG, what, idle)
	}
}

// QOS014: a traffic class without PFC that some packet takes, in the PG
// of a lossless class (TC_TO_PRIORITY_GROUP_MAP "0": "3"). The PG's XOFF
// pauses the PFC priorities that fill it, and no other: the other class's
// packets keep arriving into the headroom, which is sized for the paused
// traffic in flight alone, and once it is full the PG drops whatever
// arrives, the lossless class's packets among them. An error, but for the
// CNPs' class (few, small packets) and where no packet takes any of the
// PG's lossless classes (nothing lossless to drop until one does, as in
// losslessPG): a warning.
func (l *linter) lossyInLosslessPG(d *DeviceConfig, p *PortConfig) {
	if len(p.TCToPG) == 0 {
		return
	}
	losslessPG := map[int][]int{} // PG: its lossless TCs
	for _, pr := range p.PFCPriorities {
		if c := p.Class(pr); c.Lossless {
			losslessPG[c.PG] = append(losslessPG[c.PG], pr)
		}
	}
	if len(losslessPG) == 0 {
		return
	}
	reached := p.DSCPsByTC()
	cnpTC := p.TCOf(l.cnpDSCP())
	for _, tc := range slices.Sorted(maps.Keys(reached)) {
		c := p.Class(tc)
		ltcs, shared := losslessPG[c.PG]
		if c.PFC || !shared {
			continue
		}
		sev, note := SevError, ""
		fix := fmt.Sprintf("map TC%d to a PG of its own or the lossy PG (SONiC: TC_TO_PRIORITY_GROUP_MAP), or enable PFC on priority %d if it is meant to be lossless", tc, tc)
		if tc == cnpTC {
			// CNPs must not be paused (QOS007): no PFC for their class.
			sev, note = SevWarning, " (the CNPs' class: few and small, but the pause stops none of them either)"
			fix = fmt.Sprintf("map TC%d, the CNPs' class, to a PG of its own or the lossy PG (SONiC: TC_TO_PRIORITY_GROUP_MAP); not PFC on it: CNPs must not be paused (QOS007)", tc)
		}
		if !slices.ContainsFunc(ltcs, func(ltc int) bool { return reaches(p, ltc) }) {
			sev = SevWarning
			note += fmt.Sprintf("; no DSCP takes lossless TC%s on this port, so nothing lossless is lost there until one is mapped to it", FormatInts(ltcs))
		}
		l.addAt(RuleLosslessPG, sev, d.Device, p.Name, p.Origins["tc_to_pg"], fix,
			"TC%d (DSCP %s), which has no PFC, fills PG %d, the PG of lossless TC%d: the PG's XOFF pauses the PFC priorities only, so TC%d's packets keep arriving into the headroom sized for the paused traffic, and once it is full the PG drops, the lossless class's packets too%s",
			tc, intRanges(reached[tc]), c.PG, ltcs[0], tc, note)
	}
}

// QOS016: a PFC frame must pause the queue its priority's class uses.
func (l *linter) pfcQueueMap(d *DeviceConfig, p *PortConfig) {
	for _, pr := range p.PFCPriorities {
		c := p.Class(pr)
		if q, ok := p.BeyondQueue[pr]; ok {
			// The switch sends the class to a queue beyond the model's 8
			// (BeyondQueue), which the model runs in queue pr: no PFC
			// priority pauses that queue (pfc_to_queue names queues
			// 0-7), and labctl models neither its WRED nor its scheduler.
			l.addAt(RulePFCQueueMap, SevError, d.Device, p.Name, p.Origins["tc_to_queue"],
				fmt.Sprintf("map TC%d to the queue PFC priority %d pauses, queue %d (SONiC: TC_TO_QUEUE_MAP)", pr, pr, c.PausedQueue),
				"TC%d, which has PFC, leaves by queue %d on the switch, beyond labctl's queues 0-7: a PFC frame for priority %d received here pauses queue %d, not it, so the port keeps sending into a receiver that asked it to stop, and labctl models neither its WRED nor its scheduling; lint's other checks and the simulator run TC%d in queue %d", pr, q, pr, c.PausedQueue, pr, c.Queue)
			continue
		}
		if c.PausedQueue == c.Queue {
			continue
		}
		l.addAt(RulePFCQueueMap, SevError, d.Device, p.Name, p.Origins["pfc_to_queue"],
			fmt.Sprintf("map PFC priority %d to queue %d (SONiC: MAP_PFC_PRIORITY_TO_QUEUE)", pr, c.Queue),
			"a PFC frame for priority %d received here pauses queue %d, but TC%d leaves by queue %d: the port keeps sending into a receiver that asked it to stop", pr, c.PausedQueue, pr, c.Queue)
	}
}

// QOS002: a lossy traffic class that some DSCP reaches and that leaves by
// the egress queue of a lossless class shares RoCE's queue: its packets
// wait out the pauses of that queue, take its ECN marks (or WRED drops,
// when they are not ECN-capable) and its share of the port. The CNPs'
// class is QOS007's.
func (l *linter) sharedLosslessQueue(d *DeviceConfig, p *PortConfig, lossless []int) {
	if !p.Fabric || len(p.TCToQueue) == 0 {
		return
	}
	losslessQueue := map[int]int{}
	for _, pr := range lossless {
		if c := p.Class(pr); c.Lossless {
			losslessQueue[c.Queue] = c.TC
		}
	}
	if len(losslessQueue) == 0 {
		return
	}
	reached := p.DSCPsByTC()
	cnpTC := p.TCOf(l.cnpDSCP())
	for _, tc := range slices.Sorted(maps.Keys(reached)) {
		c := p.Class(tc)
		ltc, shared := losslessQueue[c.Queue]
		if c.Lossless || !shared || tc == cnpTC {
			continue
		}
		l.addAt(RuleDSCPMapMismatch, SevWarning, d.Device, p.Name, p.Origins["tc_to_queue"],
			fmt.Sprintf("give TC%d a queue of its own (SONiC: TC_TO_QUEUE_MAP; EOS: qos map traffic-class to tx-queue)", tc),
			"TC%d (DSCP %s, lossy) leaves by queue %d, the queue of lossless TC%d: its packets wait out RoCE's pauses there and take its ECN marking and share of the port",
			tc, intRanges(reached[tc]), c.Queue, ltc)
	}
}

// QOS002: which DSCPs reach lossless classes. With a lab's intent, a DSCP
// other than RoCE's in a lossless class shares RoCE's pauses (warning);
// for bare files, ports whose lossless DSCPs differ from the majority's
// are an error.
func (l *linter) lossyDSCPs() {
	roce := l.roceDSCP()
	if l.opt.Intent != nil {
		for i := range l.cfgs {
			d := &l.cfgs[i]
			for j := range d.Ports {
				p := &d.Ports[j]
				if !p.Fabric {
					continue
				}
				var extra []int
				for _, x := range p.LosslessDSCPs() {
					if x != *roce {
						extra = append(extra, x)
					}
				}
				if len(extra) > 0 && p.Trust == TrustDSCP {
					l.addAt(RuleDSCPMapMismatch, SevWarning, d.Device, p.Name, p.Origins["dscp_to_tc"],
						fmt.Sprintf("map DSCP %s to a lossy traffic class, or make them part of the lab's QoS intent", FormatInts(extra)),
						"DSCP %s also reach a lossless class: their traffic shares RoCE's PFC pauses and headroom", FormatInts(extra))
				}
				// DSCP 0 is every unmarked packet's: as RoCE's, it brings all
				// best-effort traffic into the lossless class.
				if *roce == 0 && p.Trust == TrustDSCP && slices.Contains(p.LosslessDSCPs(), 0) {
					l.addAt(RuleDSCPMapMismatch, SevWarning, d.Device, p.Name, p.Origins["dscp_to_tc"],
						"give RoCE a DSCP of its own (26 is usual), so that DSCP 0 can go to a lossy traffic class",
						"RoCE DSCP 0 is the DSCP of every unmarked packet: all such traffic shares RoCE's lossless class, its PFC pauses and headroom")
				}
			}
		}
		return
	}
	count := map[string]int{}
	total := 0
	for i := range l.cfgs {
		for j := range l.cfgs[i].Ports {
			count[FormatInts(l.cfgs[i].Ports[j].LosslessDSCPs())]++
			total++
		}
	}
	best := ""
	for _, k := range slices.Sorted(maps.Keys(count)) {
		if count[k] > count[best] {
			best = k
		}
	}
	if best == "" || count[best]*2 <= total {
		return
	}
	var model *PortConfig
	for i := range l.cfgs {
		for j := range l.cfgs[i].Ports {
			if p := &l.cfgs[i].Ports[j]; model == nil && FormatInts(p.LosslessDSCPs()) == best {
				model = p
			}
		}
	}
	for i := range l.cfgs {
		d := &l.cfgs[i]
		for j := range d.Ports {
			p := &d.Ports[j]
			if got := FormatInts(p.LosslessDSCPs()); got != best && !dualToRRole(p, model) {
				l.addAt(RuleDSCPMapMismatch, SevError, d.Device, p.Name, p.Origins["dscp_to_tc"],
					"give every port the same DSCP map, PFC priorities and lossless PG profiles",
					"lossless DSCPs [%s] differ from the [%s] of most ports", got, best)
			}
		}
	}
}

// ownMapSkips says whether the port's own DSCP map (one bound to it, not
// the default) sends no DSCP to traffic class tc, so that no traffic it
// receives is in that class.
func ownMapSkips(p *PortConfig, tc int) bool {
	if strings.HasPrefix(p.Origins["dscp_to_tc"], "default") || !p.TrustsDSCP() {
		return false
	}
	return !reaches(p, tc)
}

// dualToRRole says whether ports p and q differ in their lossless DSCPs
// as ports of two roles do by design, not by mistake: SONiC's own
// qos_config.j2 (sonic-buildimage) renders a dual-ToR switch with
// tunnel_qos_remap so, the ports of one role with pfc_enable 2,3,4,6 and
// a DSCP map sending DSCP 2 and 6 to traffic classes 2 and 6, those of
// the other with pfc_enable 3,4 and a map (AZURE_UPLINK) sending DSCP 2
// and 6 to lossy TC1 (the remapped, bounced-back tunnel traffic of the
// "DSCP remapping for tunnel traffic" design). Each port is consistent
// on its own (every PFC priority is a class its map sends DSCPs to), and
// each DSCP lossless on one and lossy on the other is sent, where it is
// lossy, by a map bound to that port to a class neither port pauses. A
// port that lost one priority's PFC but still classifies into it, or
// keeps PFC on a class its map no longer reaches, is not.
func dualToRRole(p, q *PortConfig) bool {
	if q == nil || !pfcReached(p) || !pfcReached(q) {
		return false
	}
	lp, lq := p.LosslessDSCPs(), q.LosslessDSCPs()
	for dscp := range 64 {
		inP, inQ := slices.Contains(lp, dscp), slices.Contains(lq, dscp)
		if inP == inQ {
			continue
		}
		lossy := p
		if inP {
			lossy = q
		}
		tc := lossy.TCOf(dscp)
		if strings.HasPrefix(lossy.Origins["dscp_to_tc"], "default") || slices.Contains(p.PFCPriorities, tc) || slices.Contains(q.PFCPriorities, tc) {
			return false
		}
	}
	return true
}

// pfcReached says whether every PFC priority of the port is a traffic
// class its DSCP map sends some DSCP to.
func pfcReached(p *PortConfig) bool {
	for _, pr := range p.PFCPriorities {
		if !reaches(p, pr) {
			return false
		}
	}
	return true
}

// reaches says whether some packet arrives on the port in class tc: an
// untagged one by its DSCP (TCOf), or, on a port that classifies tagged
// frames by CoS (TaggedByCoS: trust cos), a tagged one by the CoS it
// carries: every CoS value the port's CoS map sends to tc counts, not its
// default CoS alone. A port that trusts nothing gives every frame its
// default CoS's class, which TCOf holds.
func reaches(p *PortConfig, tc int) bool {
	for dscp := range 64 {
		if p.TCOf(dscp) == tc {
			return true
		}
	}
	if p.TaggedByCoS() {
		for cos := range NumTC {
			if p.CoSToTC[cos] == tc {
				return true
			}
		}
	}
	return false
}

// deviceReaches says whether some port of d classifies packets into tc
// (reaches): an egress queue holds what every port of the switch sends
// to it, not what its own port classifies.
func deviceReaches(d *DeviceConfig, tc int) bool {
	for i := range d.Ports {
		if reaches(&d.Ports[i], tc) {
			return true
		}
	}
	return false
}

// roceClassText names the class DSCP dscp takes on port p (tc, the
// model's), as the switch applies it: its own where it is beyond the
// model's 8 (BeyondTC), which no PFC priority can name, so never
// lossless, not the class the model runs it in.
func roceClassText(p *PortConfig, dscp, tc int) string {
	if btc := p.SwitchTCOf(dscp); btc != tc {
		return fmt.Sprintf("TC%d, a class the switch applies (SONiC's YANG allows 0-15) but outside labctl's 8-class model and the priorities PFC can name (0-7)", btc)
	}
	return fmt.Sprintf("TC%d", tc)
}

// QOS003: the RoCE DSCP must reach a lossless class on every data port;
// for bare files without a RoCE DSCP, say which DSCPs are lossless.
func (l *linter) roce() {
	roce := l.roceDSCP()
	if roce == nil {
		for i := range l.cfgs {
			d := &l.cfgs[i]
			set := map[int]bool{}
			for j := range d.Ports {
				for _, x := range d.Ports[j].LosslessDSCPs() {
					set[x] = true
				}
			}
			if len(set) == 0 {
				continue
			}
			l.add(RuleRoCEDSCPLossy, SevInfo, d.Device, "",
				"pass --roce-dscp N to check the DSCP your RoCE traffic uses",
				"lossless DSCPs inferred from pfc_enable and the maps: %s", FormatInts(slices.Sorted(maps.Keys(set))))
		}
		return
	}
	// Bare files checked at a given RoCE DSCP (--roce-dscp): its class
	// must have PFC on every data port whatever most ports do, for with
	// PFC off on most of them (or all) the lossless priorities inferred
	// from the majority are none, and nothing else would say so.
	bare := l.opt.Intent == nil
	for i := range l.cfgs {
		d := &l.cfgs[i]
		lossless := l.lossless(d)
		if len(lossless) == 0 && !bare {
			continue
		}
		for j := range d.Ports {
			p := &d.Ports[j]
			if !p.Fabric {
				continue
			}
			tc := p.TCOf(*roce)
			_, byPolicy := p.PolicyTC[*roce]
			beyond := p.SwitchTCOf(*roce) != tc
			// The class of the port's default CoS, which untagged
			// packets take where neither a policy nor DSCP trust
			// classifies them.
			defTC := p.CoSToTC[p.DefaultCoS]
			switch {
			case len(lossless) > 0 && byPolicy && !slices.Contains(lossless, tc):
				// The port's QoS policy decides RoCE's class, ahead of
				// the trust mode and the maps: trusting DSCP would not
				// change it.
				l.addAt(RuleRoCEDSCPLossy, SevError, d.Device, p.Name, p.Origins["policy_tc"],
					fmt.Sprintf("set traffic class %d for DSCP %d in the port's QoS policy (EOS: set traffic-class %d in the policy-map class matching it)", lossless[0], *roce, lossless[0]),
					"the port's QoS policy gives RoCE (DSCP %d) TC%d, which is not lossless (lossless: %s)",
					*roce, tc, FormatInts(lossless))
			case len(lossless) > 0 && !p.TrustsDSCP() && !slices.Contains(lossless, tc):
				l.addAt(RuleRoCEDSCPLossy, SevError, d.Device, p.Name, p.Origins["trust"],
					TrustDSCPFix,
					"the port trusts %s, not DSCP: RoCE (untagged, DSCP %d) takes default CoS %d and TC%d, which is not lossless (lossless: %s)",
					p.Trust, *roce, p.DefaultCoS, tc, FormatInts(lossless))
			case len(lossless) > 0 && !p.TrustsDSCP() && len(p.PolicyTC) < 64 && slices.Contains(lossless, defTC):
				// Every untagged packet the policy leaves out takes the
				// default CoS's class (EOS: qos cos 3 without trust),
				// whatever its DSCP: when that class is lossless,
				// QOS002's other traffic in a lossless class. (A policy
				// that decides every DSCP leaves none to it.)
				which, class := "", "RoCE's lossless class"
				if len(p.PolicyTC) > 0 {
					which = " that its QoS policy leaves out"
				}
				if defTC != tc {
					class = "a lossless class"
				}
				l.addAt(RuleDSCPMapMismatch, SevWarning, d.Device, p.Name, p.Origins["trust"],
					TrustDSCPFix,
					"the port trusts %s, not DSCP: every untagged packet it receives%s, whatever its DSCP, takes default CoS %d and TC%d, %s: best effort and the CNPs share it, its pauses and its queue",
					p.Trust, which, p.DefaultCoS, defTC, class)
			case len(lossless) > 0 && !slices.Contains(lossless, tc):
				l.addAt(RuleRoCEDSCPLossy, SevError, d.Device, p.Name, p.Origins["dscp_to_tc"],
					fmt.Sprintf("map DSCP %d to traffic class %d", *roce, lossless[0]),
					"RoCE DSCP %d maps to %s, which is not lossless (lossless: %s)", *roce, roceClassText(p, *roce, tc), FormatInts(lossless))
			case bare && !slices.Contains(lossless, tc) && !slices.Contains(p.PFCPriorities, tc) && beyond:
				l.addAt(RuleRoCEDSCPLossy, SevError, d.Device, p.Name, p.Origins["dscp_to_tc"],
					fmt.Sprintf("map DSCP %d to a traffic class 0-7 and enable PFC on it (SONiC: PORT_QOS_MAP pfc_enable)", *roce),
					"RoCE DSCP %d takes %s on this port, which has no PFC here: RoCE is dropped, not paused, where the port congests", *roce, roceClassText(p, *roce, tc))
			case bare && !slices.Contains(lossless, tc) && !slices.Contains(p.PFCPriorities, tc):
				l.add(RuleRoCEDSCPLossy, SevError, d.Device, p.Name,
					fmt.Sprintf("enable PFC on priority %d (SONiC: PORT_QOS_MAP pfc_enable; EOS: priority-flow-control priority %d no-drop)", tc, tc),
					"RoCE DSCP %d takes TC%d on this port, which has no PFC here: RoCE is dropped, not paused, where the port congests", *roce, tc)
			}
		}
	}
}

// reachRated is the severity of a finding on a lossless queue's classes
// tcs that harms their traffic: an error where some port of the switch
// classifies into one of them, else a warning that says so ("; no port
// ... so <what> there until one does"), for the traffic a DSCP mapped to
// them later would be. The queue holds what any port classifies (a host
// port's DSCP 10 in TC4 leaves by the uplink's queue 4), not its own
// port's alone. Asked only where a finding is made: it reads every port.
func reachRated(d *DeviceConfig, tcs []int, what string) (Severity, string) {
	if slices.ContainsFunc(tcs, func(tc int) bool { return deviceReaches(d, tc) }) {
		return SevError, ""
	}
	return SevWarning, fmt.Sprintf("; no port of the switch classifies into TC%s, so %s there until one does", FormatInts(tcs), what)
}

// QOS004, QOS005 and QOS015, on the queues of the port's lossless classes.
func (l *linter) ecn(d *DeviceConfig, p *PortConfig, lossless []int) {
	trigger := int64(0)
	for _, pr := range lossless {
		if g := p.Class(pr).PGConfig; g != nil && LosslessProfile(&g.BufferProfile) {
			trigger = l.xoffTrigger(d, g)
			break
		}
	}
	prios := p.PFCPriorities
	if len(prios) == 0 {
		prios = lossless
	}
	queues := map[int][]int{}
	for _, pr := range prios {
		c := p.Class(pr)
		queues[c.Queue] = append(queues[c.Queue], pr)
	}
	anyECN := false
	for _, q := range p.Queues {
		if w := q.WRED; w != nil {
			for _, c := range []struct {
				name string
				col  *WREDColour
			}{{"yellow", w.Yellow}, {"red", w.Red}} {
				// Equal thresholds are a step, as for green below; RoCE's
				// packets are green, so only a colour no switch can
				// program is reported, and not one that marks as green
				// does (EOS's random-detect ecn, one statement for every
				// colour; SONiC's uniform ECN_ profiles), which green's
				// check reports once.
				if e := c.col; e != nil && !(c.col.Mark && q.ECN != nil && e.ECNConfig == *q.ECN) && (e.MinBytes > e.MaxBytes || e.Pmax <= 0 || e.Pmax > 1) {
					l.addAt(RuleECNThresholds, SevError, d.Device, p.Name, WREDWhere(&q),
						"give each colour a minimum below its maximum and a probability above 0, at most 100 percent",
						"queue %d: WRED %s min %d, max %d%s, probability %g%% cannot ramp", q.Queue, c.name, e.MinBytes, e.MaxBytes, unitSuffix(e.Unit), e.Pmax*100)
				}
			}
		}
		e := q.ECN
		if e == nil {
			continue
		}
		anyECN = true
		if e.Pmax <= 0 || e.Pmax > 1 {
			what := "marks nothing between Kmin and Kmax, every packet above Kmax"
			if e.Pmax > 1 {
				what = "is over 100 percent"
			}
			l.addAt(RuleECNThresholds, SevError, d.Device, p.Name, WREDWhere(&q),
				"give the marking probability at Kmax above 0, at most 100 percent (RoCE profiles use 5 to 20)",
				"queue %d: ECN marking probability %g%% %s", q.Queue, e.Pmax*100, what)
		}
		switch {
		case e.MinBytes > e.MaxBytes:
			l.addAt(RuleECNThresholds, SevError, d.Device, p.Name, WREDWhere(&q),
				"set Kmin below Kmax so that marking ramps up with the queue",
				"queue %d: ECN Kmin %d is above Kmax %d%s", q.Queue, e.MinBytes, e.MaxBytes, unitSuffix(e.Unit))
		case e.MinBytes == e.MaxBytes:
			// A step at K (DCTCP's marking) is a setting switches take
			// and some fabrics use; DCQCN's rate control is tuned for the
			// ramp, so it is worth a word, not an error.
			l.addAt(RuleECNThresholds, SevWarning, d.Device, p.Name, WREDWhere(&q),
				"set Kmin below Kmax (Kmax/4 to Kmax/2 is usual) unless a step at one threshold is meant",
				"queue %d: ECN Kmin and Kmax are both %d%s: the queue marks every packet above it and none below, a step rather than the ramp DCQCN is tuned for", q.Queue, e.MinBytes, unitSuffix(e.Unit))
		}
		// A Kmax of less than one full RoCE packet marks at pmax as soon
		// as a packet waits: DCQCN then holds every flow through the queue
		// near its minimum rate (a kbytes threshold written in bytes).
		if pkt := l.rocePacketBytes(); e.Unit == "" && e.MaxBytes > 0 && e.MinBytes < e.MaxBytes && e.MaxBytes < pkt {
			l.addAt(RuleECNThresholds, SevWarning, d.Device, p.Name, WREDWhere(&q),
				fmt.Sprintf("give Kmin and Kmax in bytes above one packet (%d bytes), typically tens to hundreds of KB", pkt),
				"queue %d: ECN Kmax %d bytes is less than one RoCE packet (%d bytes): every packet that waits is marked", q.Queue, e.MaxBytes, pkt)
		}
		switch {
		case e.Unit != "" || trigger <= 0:
		case e.MinBytes >= trigger && e.MinBytes <= e.MaxBytes:
			// Not one packet is marked: DCQCN never slows a sender, and
			// every congestion is left to PFC's pauses, as where a
			// lossless queue marks nothing (QOS005): rated alike.
			sev, idle := SevWarning, ""
			if tcs := queues[q.Queue]; len(tcs) > 0 {
				sev, idle = reachRated(d, tcs, "nothing goes unmarked")
			}
			l.addAt(RuleECNThresholds, sev, d.Device, p.Name, WREDWhere(&q),
				fmt.Sprintf("lower Kmin and Kmax below %d bytes (Kmin a fraction of it) or enlarge the shared buffer", trigger),
				"queue %d: ECN Kmin %d bytes is at or above the PFC XOFF point (%d bytes): PFC pauses the senders before the queue marks a packet, so ECN and DCQCN never act%s", q.Queue, e.MinBytes, trigger, idle)
		case e.MaxBytes > trigger:
			l.addAt(RuleECNThresholds, SevWarning, d.Device, p.Name, WREDWhere(&q),
				fmt.Sprintf("lower Kmax below %d bytes or enlarge the shared buffer", trigger),
				"queue %d: ECN Kmax %d bytes is above the PFC XOFF point (%d bytes): PFC pauses before ECN marks fully", q.Queue, e.MaxBytes, trigger)
		}
	}
	for _, q := range slices.Sorted(maps.Keys(queues)) {
		qc := p.Queue(q)
		drops := func() (Severity, string) { return reachRated(d, queues[q], "nothing is lost") }
		if qc != nil && qc.Buffer != nil && len(p.PFCPriorities) > 0 && strings.Contains(qc.Buffer.Pool, "lossy") {
			sev, idle := drops()
			l.addAt(RuleWREDDropLossless, sev, d.Device, p.Name, qc.Origin,
				"give the queue the egress lossless profile (SONiC: BUFFER_QUEUE|<port>|<queue> -> egress_lossless_profile)",
				"queue %d carries lossless TC%s but its egress buffer comes from %s (profile %s): a congested queue drops there, behind PFC%s", q, FormatInts(queues[q]), qc.Buffer.Pool, qc.Buffer.Profile, idle)
		} else if qc != nil && qc.Buffer != nil && len(p.PFCPriorities) > 0 && trigger > 0 {
			// The egress limit of a lossless queue must stay above what
			// the ingress PGs feeding it hold before they pause: below
			// one PG's XOFF point the queue drops before any PFC frame
			// is sent.
			if limit, ok := d.SoleUseBytes(qc.Buffer); ok && limit < trigger {
				sev, idle := drops()
				l.addAt(RuleWREDDropLossless, sev, d.Device, p.Name, qc.Origin,
					"give the lossless queue an egress limit no PG's XOFF point can reach (SONiC: egress_lossless_profile with dynamic_th 7, or static_th the pool's size)",
					"queue %d carries lossless TC%s but admits at most %d bytes (profile %s: %s), less than the %d bytes a lossless PG fills before it sends XOFF: the queue drops before PFC pauses%s", q, FormatInts(queues[q]), limit, qc.Buffer.Profile, thresholdText(d.Admit(qc.Buffer)), trigger, idle)
			}
		}
		if qc != nil && qc.WRED != nil {
			l.colourDrop(d, p, qc, queues[q])
		}
		if qc != nil && qc.Drop != nil {
			sev, idle := drops()
			l.addAt(RuleWREDDropLossless, sev, d.Device, p.Name, WREDWhere(qc),
				"make the queue's WRED mark ECN instead of dropping (SONiC: WRED_PROFILE ecn ecn_all; EOS: random-detect ecn, no random-detect drop)",
				"queue %d carries lossless TC%s but drops packets early (WRED from %d bytes, without ECN marking): lossless traffic is lost%s", q, FormatInts(queues[q]), qc.Drop.MinBytes, idle)
		}
	}
	wantECN := anyECN || (l.opt.Intent != nil && l.opt.Intent.ECN.Enabled)
	if !wantECN {
		return
	}
	for _, q := range slices.Sorted(maps.Keys(queues)) {
		qc := p.Queue(q)
		if qc != nil && qc.ECN != nil {
			continue
		}
		// A lossless queue that marks nothing leaves its senders to PFC
		// alone: DCQCN never slows them, and the pauses spread the
		// congestion back through the fabric (an error, where traffic
		// reaches it: reachRated).
		sev, idle := reachRated(d, queues[q], "nothing goes unmarked")
		if !anyECN {
			// Nothing on this port marks: the config is an ECN-off
			// variant of a lab whose intent has ECN on.
			l.add(RuleECNLosslessQueue, sev, d.Device, p.Name,
				fmt.Sprintf("enable ECN marking on queue %d, or lint with --ecn off if these configs are the ECN-off variant on purpose", q),
				"the lab's QoS intent has ECN on, but no queue of %s marks ECN (queue %d of lossless TC%s included)%s", portNoun(d, p), q, FormatInts(queues[q]), idle)
			continue
		}
		why := "no WRED profile"
		if qc != nil && qc.WRED != nil {
			why = "its WRED profile " + qc.WRED.Name + " does not mark green packets"
		}
		l.addAt(RuleECNLosslessQueue, sev, d.Device, p.Name, WREDWhere(qc),
			fmt.Sprintf("enable ECN marking on queue %d (DCQCN needs marks on the RoCE queue)", q),
			"queue %d of lossless TC%s does not mark ECN (%s) while ECN is in use%s", q, FormatInts(queues[q]), why, idle)
	}
}

// xoffTrigger is the ingress occupancy at which one congested PG pauses.
func (l *linter) xoffTrigger(d *DeviceConfig, g *PGConfig) int64 {
	a := d.Admit(&g.BufferProfile)
	switch {
	case a.NoShared:
		return a.ReservedBytes
	case a.StaticBytes > 0:
		return a.ReservedBytes + a.StaticBytes
	case g.DynamicTh != nil && d.IngressPoolBytes() > 0:
		return XoffTriggerBytes(d.IngressPoolBytes(), *g.DynamicTh)
	}
	return 0
}

// WREDWhere is where a queue's WRED and ECN come from, for a message that
// names it: the SONiC WRED_PROFILE entry, else the queue's Origin (an EOS
// statement with its file and line).
func WREDWhere(q *QueueConfig) string {
	if q == nil {
		return ""
	}
	if q.WRED != nil && q.WRED.Name != "" {
		return "WRED_PROFILE|" + q.WRED.Name
	}
	return q.Origin
}

func unitSuffix(u string) string {
	if u == "" {
		return " bytes"
	}
	return " " + u
}

// QOS006: the headroom a lossless PG really has (Admit: a private PG
// holds it inside its size) against what the link needs.
func (l *linter) headroom(d *DeviceConfig, p *PortConfig) {
	// The headroom must cover the link's cable where the lab gives it,
	// whatever length the config sizes its profiles for.
	cable := p.CableM
	if p.LinkCableM > 0 {
		cable = p.LinkCableM
	}
	if len(p.PFCPriorities) == 0 || p.SpeedGbps == 0 || cable == 0 {
		return
	}
	// The largest frame of the lossless class: RoCE's MTU (the lab's),
	// else the largest the port carries (EnforcedMTU: the config's, or
	// the NOS's default where it sets none, SONiC's 9100, which its
	// dynamic buffer manager sizes such a port's headroom for too), as
	// QOS020 and the simulator hold packets to it.
	mtu := p.EnforcedMTU()
	if l.opt.Intent != nil {
		mtu = l.opt.Intent.MTU
	}
	assumed := ""
	switch {
	case mtu == 0:
		mtu = roceMaxMTU
		assumed = fmt.Sprintf(" (MTU %d assumed)", mtu)
	case l.opt.Intent == nil && p.MTU == 0:
		assumed = fmt.Sprintf(" (MTU %d: the switch's default for a port whose config sets none)", mtu)
	}
	need := HeadroomBytes(p.SpeedGbps, mtu, cable, PauseResponseBits(l.opt.Intent, p.SpeedGbps))
	// Without the lab's intent lint does not know that the class carries
	// RoCE alone: a headroom that holds RoCE's largest frames (path MTU
	// 4096) but not the port's is a warning, the frames that overrun it
	// another protocol's in the class.
	roceNeed, roceHolds := need, ""
	if l.opt.Intent == nil && mtu > roceMaxMTU {
		roceNeed = HeadroomBytes(p.SpeedGbps, roceMaxMTU, cable, PauseResponseBits(nil, p.SpeedGbps))
		roceHolds = fmt.Sprintf("; it holds RoCE's largest frames (path MTU %d, %d bytes needed), so only other traffic of the class at the port's MTU overruns it", roceMaxMTU, roceNeed)
	}
	shortSev := func(have int64) (Severity, string) {
		if have >= roceNeed && roceHolds != "" {
			return SevWarning, roceHolds
		}
		return SevError, ""
	}
	if cable != p.CableM {
		assumed += fmt.Sprintf(" (the config sizes it for %d m: CABLE_LENGTH)", p.CableM)
	}
	// A cable has one length. Where the peer switch's config sizes its end
	// of the link for a longer one than the lab gives (SONiC's
	// CABLE_LENGTH changed on every switch but this one), the configs
	// disagree on it: lint cannot tell which is right, and if the peer's
	// is, this end's headroom falls short (a warning beside the error
	// below, which holds the port to the lab's length). Named by the peer
	// switch, so that the links of one cause make one finding, whichever
	// peers they reach (addPeer).
	peer, peerCable, peerNeed := "", 0, int64(0)
	if pd, pp := l.peerPort(p); pp != nil && pp.CableM > cable {
		peer, peerCable = pd.Device, pp.CableM
		peerNeed = HeadroomBytes(p.SpeedGbps, mtu, peerCable, PauseResponseBits(l.opt.Intent, p.SpeedGbps))
	}
	seen := map[int]bool{}
	for _, pr := range p.PFCPriorities {
		c := p.Class(pr)
		g := c.PGConfig
		if !c.Lossless || seen[c.PG] {
			continue
		}
		seen[c.PG] = true
		a := d.Admit(&g.BufferProfile)
		if pl := d.Pool(g.Pool); a.SharedHeadroom && pl != nil && *pl.HeadroomPoolBytes < a.HeadroomBytes {
			l.addAt(RuleHeadroomShort, SevError, d.Device, p.Name, "BUFFER_POOL|"+g.Pool,
				fmt.Sprintf("raise the pool's xoff (shared headroom) to at least %d bytes, enough for the lossless PGs that may pause at once", a.HeadroomBytes),
				"PG %d takes its %d bytes of headroom from pool %s's shared headroom, which holds only %d", c.PG, a.HeadroomBytes, g.Pool, *pl.HeadroomPoolBytes)
			continue
		}
		if xoff, xon := Val(g.XoffBytes), Val(g.XonBytes); !a.SharedHeadroom && a.HeadroomBytes >= xoff && Val(g.SizeBytes) < xoff+xon {
			l.addAt(RuleHeadroomShort, SevError, d.Device, p.Name, g.Origin,
				fmt.Sprintf("make the profile's size at least xon + xoff = %d bytes", xoff+xon),
				"PG %d profile %s: size %d bytes is below xon + xoff (%d + %d): the PG cannot hold its headroom beside what it keeps until XON", c.PG, g.Profile, Val(g.SizeBytes), xon, xoff)
			continue
		}
		if a.HeadroomBytes >= need {
			if a.HeadroomBytes < peerNeed {
				l.addPeer(peer, RuleHeadroomShort, SevWarning, d.Device, p.Name, g.Origin,
					fmt.Sprintf("give both ends of each link to %s the cable's real length (CABLE_LENGTH: %d m there, %d m here; the lab's qos.cable_length_m too) and size PG %d's headroom for it: at %d m, at least %d bytes", peer, peerCable, p.CableM, c.PG, peerCable, peerNeed),
					"PG %d headroom %d bytes holds the %d m the lab gives the link, but the peer %s's CABLE_LENGTH sizes the link for %d m, which needs %d bytes at %d Gb/s: a cable has one length, and if it is %d m this end drops the lossless class's packets when it pauses",
					c.PG, a.HeadroomBytes, cable, peer, peerCable, peerNeed, p.SpeedGbps, peerCable)
			}
			continue
		}
		sev, holds := shortSev(a.HeadroomBytes)
		if xoff := Val(g.XoffBytes); a.HeadroomBytes < xoff {
			l.addAt(RuleHeadroomShort, sev, d.Device, p.Name, g.Origin,
				fmt.Sprintf("raise the profile's size to at least xon + %d bytes (it holds the headroom: no shared headroom pool)", need),
				"PG %d profile %s: size %d bytes is below its xoff %d, so only %d bytes absorb what arrives after XOFF; %d are needed at %d Gb/s over %d m%s%s",
				c.PG, g.Profile, Val(g.SizeBytes), xoff, a.HeadroomBytes, need, p.SpeedGbps, cable, assumed, holds)
			continue
		}
		l.addAt(RuleHeadroomShort, sev, d.Device, p.Name, g.Origin,
			fmt.Sprintf("raise the PG %d xoff to at least %d bytes", c.PG, need),
			"PG %d headroom %d bytes is below the %d bytes needed at %d Gb/s over %d m%s%s",
			c.PG, a.HeadroomBytes, need, p.SpeedGbps, cable, assumed, holds)
	}
}

// QOS007
func (l *linter) cnp(d *DeviceConfig, p *PortConfig, lossless []int) {
	if len(p.Queues) == 0 || len(lossless) == 0 {
		return
	}
	cnpDSCP := l.cnpDSCP()
	c := p.Class(p.TCOf(cnpDSCP))
	if c.PFC {
		l.add(RuleCNPPriority, SevWarning, d.Device, p.Name,
			fmt.Sprintf("map CNP DSCP %d to a traffic class without PFC (TC6)", cnpDSCP),
			"CNP DSCP %d maps to TC%d, which has PFC: congestion notifications wait out the pauses they should shorten", cnpDSCP, c.TC)
	}
	cq := c.QueueConfig
	// DSCP 0 is every unmarked packet's: as the CNPs' DSCP it lets all
	// best-effort traffic overtake RoCE on their strict queue.
	if cnpDSCP == 0 && cq != nil && cq.Strict {
		l.add(RuleCNPPriority, SevWarning, d.Device, p.Name,
			"give CNPs a DSCP of their own (48 is usual)",
			"CNP DSCP 0 is the DSCP of every unmarked packet: all such traffic takes the CNPs' strict-priority queue %d and can starve RoCE", c.Queue)
	}
	if cq == nil {
		return
	}
	// A strict-priority RoCE queue is served before a weighted CNP queue,
	// and before a strict one of a lower number (strict queues go highest
	// number first): the CNPs then wait for the data they throttle.
	for _, pr := range lossless {
		dc := p.Class(pr)
		if x := dc.QueueConfig; x != nil && x.Strict && dc.Queue != c.Queue && (!cq.Strict || dc.Queue > c.Queue) {
			how := fmt.Sprintf("weighted %d", cq.Weight)
			if cq.Strict {
				how = "strict priority below it"
			}
			l.add(RuleCNPPriority, SevWarning, d.Device, p.Name,
				fmt.Sprintf("make queue %d (lossless TC%d) round robin, with the CNPs' queue %d strict priority above it", dc.Queue, dc.TC, c.Queue),
				"CNP DSCP %d goes to queue %d, %s, while queue %d of lossless TC%d is strict priority: CNPs wait behind the lossless data they throttle",
				cnpDSCP, c.Queue, how, dc.Queue, dc.TC)
			return
		}
	}
	if cq.Strict {
		return
	}
	dataW := 0
	for _, pr := range lossless {
		if x := p.Class(pr).QueueConfig; x != nil && !x.Strict {
			dataW = max(dataW, x.Weight)
		}
	}
	if cq.Weight <= dataW {
		l.add(RuleCNPPriority, SevWarning, d.Device, p.Name,
			fmt.Sprintf("make queue %d strict priority", c.Queue),
			"CNP DSCP %d goes to queue %d, which is weighted %d, not above the RoCE queue's %d: CNPs can wait behind the data they throttle",
			cnpDSCP, c.Queue, cq.Weight, dataW)
	}
}

// RoCEHeaderBytes is what a RoCE v2 packet carries beyond its payload in
// the IP MTU: IPv4 20 + UDP 8 + BTH 12 + ICRC 4 (a RETH or AETH adds up
// to 16 more). Lint's QOS020 and the simulator's drop of packets over a
// port's MTU both size a packet by it.
const RoCEHeaderBytes = 60

// QOS020: a port's MTU (the L3 MTU the switch enforces) must carry the
// lab's RoCE payload MTU with its headers; smaller, the switch drops
// every full-sized packet.
// strictBulkDSCPs: a strict queue reached by more DSCPs than this (or by
// DSCP 0) carries bulk traffic rather than network control (QOS025).
const strictBulkDSCPs = 8

// bulkDSCPs says whether dscps (sorted), the DSCPs a strict queue takes,
// are bulk traffic: DSCP 0, every unmarked packet, or more than
// strictBulkDSCPs of them (a catch-all), not network control's one or two.
func bulkDSCPs(dscps []int) bool {
	return len(dscps) > 0 && (dscps[0] == 0 || len(dscps) > strictBulkDSCPs)
}

// QOS025: a strict queue that neither a lossless class nor the CNPs use,
// and that takes unmarked packets or many DSCPs, above a lossless class's
// round-robin queue. Strict queues are served before any round-robin one,
// so what that queue carries (DSCP 0, every unmarked packet, by a default
// map) takes the link first and starves RoCE however its weights are set.
func (l *linter) strictOtherQueue(d *DeviceConfig, p *PortConfig, lossless []int) {
	if !p.Fabric || len(p.Queues) == 0 || len(lossless) == 0 {
		return
	}
	var rr []int // the lossless classes' round-robin queues
	cnpDSCP := l.cnpDSCP()
	cnpQueue := p.Class(p.TCOf(cnpDSCP)).Queue
	own := map[int]bool{}
	for _, pr := range lossless {
		c := p.Class(pr)
		own[c.Queue] = true
		if c.QueueConfig != nil && !c.QueueConfig.Strict && !slices.Contains(rr, c.Queue) {
			rr = append(rr, c.Queue)
		}
	}
	if len(rr) == 0 {
		return
	}
	reached := p.DSCPsByQueue()
	for _, q := range p.Queues {
		// A strict queue for network control (CS6, CS7: a DSCP or two of
		// little traffic) is common practice; one that takes unmarked
		// packets (DSCP 0) or a catch-all of DSCPs carries bulk traffic.
		dscps := reached[q.Queue]
		if q.Queue == cnpQueue && !own[q.Queue] {
			// The CNPs' strict queue is what RoCE profiles want, for the
			// CNPs: bulk traffic beside them (a catch-all DSCP map line
			// moved to their class) is sent before RoCE's round-robin
			// queue and delays the CNPs it queues with. Where the CNPs'
			// DSCP is 0 itself, QOS007 says so.
			others := slices.DeleteFunc(slices.Clone(dscps), func(d int) bool { return d == cnpDSCP })
			if !q.Strict || cnpDSCP == 0 || !bulkDSCPs(others) {
				continue
			}
			l.addAt(RuleStrictOtherQueue, SevWarning, d.Device, p.Name, q.Origin,
				fmt.Sprintf("keep queue %d for the CNPs (DSCP %d): map DSCP %s to a round-robin queue's traffic class (EOS: qos map dscp <d...> to traffic-class <tc>; SONiC: DSCP_TO_TC_MAP)", q.Queue, cnpDSCP, intRanges(others)),
				"queue %d, the CNPs' strict-priority queue, carries DSCP %s besides the CNPs' DSCP %d: that bulk traffic is sent before the lossless queue %s, can starve RoCE, and delays the CNPs queued behind it",
				q.Queue, intRanges(others), cnpDSCP, FormatInts(rr))
			continue
		}
		if !q.Strict || own[q.Queue] || !bulkDSCPs(dscps) {
			continue
		}
		l.addAt(RuleStrictOtherQueue, SevWarning, d.Device, p.Name, q.Origin,
			fmt.Sprintf("make queue %d round robin (SONiC: its SCHEDULER type DWRR; EOS: tx-queue %d no priority), or give strict priority only to the CNPs' queue", q.Queue, q.Queue),
			"queue %d is strict priority and carries DSCP %s, neither lossless nor the CNPs': it is sent before the lossless queue %s, and bulk traffic on it can starve RoCE",
			q.Queue, intRanges(reached[q.Queue]), FormatInts(rr))
	}
}

// QOS009: a data port whose configured speed is not its link's (SONiC's
// PORT speed): the link does not come up with its peer, or runs at the
// slower speed, while the simulator runs the lab's.
func (l *linter) portSpeed(d *DeviceConfig, p *PortConfig) {
	if p.Fabric && p.LinkSpeedGbps > 0 && p.AdvSpeedsGbps != nil && !slices.Contains(p.AdvSpeedsGbps, p.LinkSpeedGbps) {
		l.addAt(RuleLinkLosslessMatch, SevError, d.Device, p.Name, p.Origins["adv_speeds"],
			fmt.Sprintf("advertise the link's speed, %d Gb/s (SONiC: PORT adv_speeds %d, or all), or turn auto-negotiation off (PORT autoneg off)", p.LinkSpeedGbps, p.LinkSpeedGbps*1000),
			"the port negotiates its speed (auto-negotiation on) but advertises %s Gb/s only, not its link's %d Gb/s: the link comes up at a lower speed its peer shares, or not at all; the simulator runs it at %d Gb/s",
			FormatInts(p.AdvSpeedsGbps), p.LinkSpeedGbps, p.LinkSpeedGbps)
		return
	}
	if !p.Fabric || p.LinkSpeedGbps <= 0 || p.SpeedGbps <= 0 || p.SpeedGbps == p.LinkSpeedGbps {
		return
	}
	where := "PORT|" + p.Name + " speed"
	if o := p.Origins["speed"]; o != "" {
		where = o
	}
	l.addAt(RuleLinkLosslessMatch, SevError, d.Device, p.Name, where,
		fmt.Sprintf("set the port's speed to its link's, %d Gb/s (SONiC: PORT speed %d; EOS: speed forced %dgfull, or no speed)", p.LinkSpeedGbps, p.LinkSpeedGbps*1000, p.LinkSpeedGbps),
		"the port is set to %d Gb/s but its link runs at %d Gb/s: the link does not come up with its peer (or runs at the slower speed), and the switch sizes the port's lossless headroom for %d Gb/s; the simulator runs the link at %d Gb/s",
		p.SpeedGbps, p.LinkSpeedGbps, p.SpeedGbps, p.LinkSpeedGbps)
}

// QOS023: a PFC priority paused by another PG than its traffic's.
func (l *linter) pfcPGMap(d *DeviceConfig, p *PortConfig) {
	if p.PFCToPG == nil {
		return
	}
	for _, pr := range p.PFCPriorities {
		own := p.Class(pr).PG
		from, ok := p.PFCToPG[pr]
		if !ok || from == own {
			continue
		}
		l.addAt(RulePFCPGMap, SevError, d.Device, p.Name, p.Origins["pfc_to_pg"],
			fmt.Sprintf("map priority %d to PG %d in the PFC priority to PG map (SONiC: PFC_PRIORITY_TO_PRIORITY_GROUP_MAP, %d: %d), the PG its traffic class fills", pr, own, pr, own),
			"PFC priority %d's traffic fills PG %d but its pause frames come from PG %d: PG %d fills without pausing the sender and drops once its headroom is gone", pr, own, from, own)
	}
}

// QOS024: a port remarks RoCE's or its CNPs' class, as it sends them, to
// a DSCP a switch on their way classifies into another class than their
// own DSCP would get there. The class they are remarked by is the one they
// got where they entered the switch: its other data ports' (the port's own
// where it has none). Where the lab names the port's peers, the rewritten
// DSCP is followed from switch to switch (misclassified), through further
// remarks, until it is back to its own or reaches NICs; else (bare files,
// or a peer switch not linted) the next switch is taken to have this
// port's maps.
func (l *linter) egressRemark(d *DeviceConfig, p *PortConfig) {
	if len(p.TCToDSCP) == 0 || !p.Fabric {
		return
	}
	next := l.nextSwitch(d, p)
	if next == nil {
		return // a NIC
	}
	type traffic struct {
		what, leaves string
		dscp         int
	}
	var kinds []traffic
	if roce := l.roceDSCP(); roce != nil {
		kinds = append(kinds, traffic{"RoCE", "leaves", *roce})
	}
	kinds = append(kinds, traffic{"CNPs", "leave", l.cnpDSCP()})
	for _, k := range kinds {
		for _, tc := range ingressClasses(d, p, k.dscp) {
			to, ok := p.TCToDSCP[tc]
			if !ok || to == k.dscp {
				continue
			}
			m := misclass{at: "the next switch", in: next, dscp: to}
			if next != p {
				m = l.misclassified(next, to, k.dscp)
			}
			if m.in == nil {
				continue
			}
			got, want := m.in.TCOf(m.dscp), m.in.TCOf(k.dscp)
			if got == want {
				continue
			}
			where := fmt.Sprintf("which %s classifies into", m.at)
			if m.dscp != to {
				where = fmt.Sprintf("which reaches %s as DSCP %d, classified there into", m.at, m.dscp)
			}
			eos := d.DSCPRewrite // EOS's switch-wide rewrite (nos/eos rewrite.go): DeviceConfig.DSCPRewrite
			fix := fmt.Sprintf("map traffic class %d to DSCP %d in the port's egress remarking map (SONiC: TC_TO_DSCP_MAP, %d: %d), or bind none (PORT_QOS_MAP tc_to_dscp_map)", tc, k.dscp, tc, k.dscp)
			if eos {
				fix = fmt.Sprintf("map traffic class %d to DSCP %d in the switch's rewrite map (EOS: qos map traffic-class %d to dscp %d), or rewrite none (no qos rewrite dscp)", tc, k.dscp, tc, k.dscp)
			}
			if others := classMates(d, tc, k.dscp, m.in); len(others) > 0 {
				// Mapping the class to this traffic's DSCP would re-mark
				// every other DSCP of the class as it.
				stop := "bind no TC_TO_DSCP_MAP"
				if eos {
					stop = "no qos rewrite dscp"
				}
				fix = fmt.Sprintf("classify DSCP %d into a traffic class of its own whose rewrite keeps DSCP %d, or stop the rewrite (%s); not a rewrite of traffic class %d to DSCP %d, which would re-mark the class's DSCP %s as %s too, into another class at the next switch", k.dscp, k.dscp, stop, tc, k.dscp, intRanges(others), k.what)
			}
			// Traffic moved between two lossy classes loses no lossless
			// treatment (its queue's scheduling and marking change): a
			// warning; an error where either class is lossless.
			sev := SevError
			if !m.in.Class(got).Lossless && !m.in.Class(want).Lossless {
				sev = SevWarning
			}
			l.addAt(RuleEgressRemark, sev, d.Device, p.Name, p.Origins["tc_to_dscp"], fix,
				"%s (DSCP %d, traffic class %d) %s the port rewritten to DSCP %d, %s traffic class %d (%s) instead of %d (%s)",
				k.what, k.dscp, tc, k.leaves, to, where, got, lossText(m.in, got), want, lossText(m.in, want))
		}
	}
}

// misclass is where packets remarked on their way get another class than
// their own DSCP would: the switch, the port they arrive by and the DSCP
// they carry there (in nil: nowhere).
type misclass struct {
	at   string
	in   *PortConfig
	dscp int
}

// misclassKey is a state of misclassified's walk: packets of DSCP orig
// arriving by port in with DSCP dscp.
type misclassKey struct {
	in         *PortConfig
	dscp, orig int
}

// misclassState is a state's standing in the walk (Tarjan's strongly
// connected components: the fabric's links make loops, leaf to spine to
// leaf, and a state's answer is its whole component's).
type misclassState struct {
	index, low int
	onStack    bool
	done       bool
	res        misclass
}

// misclassified follows packets of DSCP orig that arrive by port in (a
// linted switch's) carrying DSCP dscp: the switch classifies them there;
// where that is not the class DSCP orig gets at that port, that is the
// answer, else each of the switch's other data ports sends them on to its
// peer, as it remarks that class or as they came, until they carry DSCP
// orig again (each remark on the way answers for itself from there) or
// reach NICs. It gives a misclassification they reach, or none. Each state
// is decided once per lint run (l.misclass), so that a fabric whose every
// port remarks costs its ports times their switches' ports.
func (l *linter) misclassified(in *PortConfig, dscp, orig int) misclass {
	key := misclassKey{in, dscp, orig}
	if st, ok := l.misclass[key]; ok && st.done {
		return st.res
	}
	if l.misclass == nil {
		l.misclass = map[misclassKey]*misclassState{}
	}
	l.strongConnect(key)
	return l.misclass[key].res
}

// strongConnect is Tarjan's visit of state v (misclassified).
func (l *linter) strongConnect(v misclassKey) {
	st := &misclassState{index: l.misclassIndex, low: l.misclassIndex, onStack: true}
	l.misclassIndex++
	l.misclass[v] = st
	l.misclassStack = append(l.misclassStack, v)
	dev := l.deviceOf(v.in)
	cls := v.in.TCOf(v.dscp)
	if cls != v.in.TCOf(v.orig) {
		st.res = misclass{at: dev.Device, in: v.in, dscp: v.dscp}
	}
	for i := range dev.Ports {
		q := &dev.Ports[i]
		if st.res.in != nil {
			break // found here: the component's answer
		}
		if q == v.in || !q.Fabric {
			continue
		}
		x := v.dscp
		if r, ok := q.TCToDSCP[cls]; ok {
			x = r
		}
		_, pp := l.peerPort(q)
		if x == v.orig || pp == nil {
			continue
		}
		w := misclassKey{pp, x, v.orig}
		ws, seen := l.misclass[w]
		switch {
		case !seen:
			l.strongConnect(w)
			ws = l.misclass[w]
			st.low = min(st.low, ws.low)
		case ws.onStack:
			st.low = min(st.low, ws.index)
		}
		if ws.res.in != nil {
			st.res = ws.res
		}
	}
	if st.low != st.index {
		return
	}
	// v is its component's root: the component's answer is any of its
	// states' (each took its finished successors' in).
	var res misclass
	i := len(l.misclassStack)
	for {
		i--
		if r := l.misclass[l.misclassStack[i]].res; r.in != nil && res.in == nil {
			res = r
		}
		if l.misclassStack[i] == v {
			break
		}
	}
	for _, k := range l.misclassStack[i:] {
		s := l.misclass[k]
		s.res, s.done, s.onStack = res, true, false
	}
	l.misclassStack = l.misclassStack[:i]
}

// deviceOf is the linted switch port p belongs to.
func (l *linter) deviceOf(p *PortConfig) *DeviceConfig {
	if l.portDevice == nil {
		l.portDevice = map[*PortConfig]*DeviceConfig{}
		for i := range l.cfgs {
			for j := range l.cfgs[i].Ports {
				l.portDevice[&l.cfgs[i].Ports[j]] = &l.cfgs[i]
			}
		}
	}
	return l.portDevice[p]
}

// ingressClasses are the classes packets of DSCP dscp get where they enter
// switch d on their way out of port p: the classes its other data ports
// give them, sorted (p's own where it has no other).
func ingressClasses(d *DeviceConfig, p *PortConfig, dscp int) []int {
	set := map[int]bool{}
	for i := range d.Ports {
		if q := &d.Ports[i]; q != p && q.Fabric {
			set[q.TCOf(dscp)] = true
		}
	}
	if len(set) == 0 {
		return []int{p.TCOf(dscp)}
	}
	return slices.Sorted(maps.Keys(set))
}

// classMates are the DSCPs that some port of d classifies into traffic
// class tc with dscp and that next, the port classifying them after the
// rewrite, puts in another class than dscp's: those a rewrite of tc to
// dscp would move into dscp's class there.
func classMates(d *DeviceConfig, tc, dscp int, next *PortConfig) []int {
	set := map[int]bool{}
	for i := range d.Ports {
		for _, v := range d.Ports[i].DSCPsByTC()[tc] {
			if next.TCOf(v) != next.TCOf(dscp) {
				set[v] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// nextSwitch is the port of the switch that classifies what port p of d
// sends: its peer's, where the lab names the peer and lints its switch;
// p itself, standing for a switch with the same maps, where the peers are
// not known (bare files) or the peer is a switch of the lab not linted;
// nil where the peer is a NIC, or a device the lab does not call a switch.
func (l *linter) nextSwitch(d *DeviceConfig, p *PortConfig) *PortConfig {
	if !d.PeersKnown {
		return p
	}
	if pd, pp := l.peerPort(p); pd != nil {
		if pp != nil {
			return pp
		}
		return p
	}
	dev, _, _ := strings.Cut(p.Peer, ":")
	for _, dv := range l.opt.Devices {
		if dv.Name == dev && dv.Role != "host" {
			return p
		}
	}
	return nil
}

// peerPort is the linted switch at the other end of p's link and its port
// there: nil, nil where the peer ("device:port") is no switch linted, the
// port nil where that switch has no such port.
func (l *linter) peerPort(p *PortConfig) (*DeviceConfig, *PortConfig) {
	if l.byName == nil {
		l.byName = make(map[string]*DeviceConfig, len(l.cfgs))
		for i := range l.cfgs {
			l.byName[l.cfgs[i].Device] = &l.cfgs[i]
		}
	}
	return PeerPortIn(l.byName, p)
}

// PeerPortIn is the switch of byName (configs by device name) at the
// other end of p's link ("device:port") and its port there: nil, nil
// where the peer is none of them, the port nil where that switch has no
// such port. Lint and runtime.DownEnd find a member's far end by it.
func PeerPortIn(byName map[string]*DeviceConfig, p *PortConfig) (*DeviceConfig, *PortConfig) {
	dev, port, ok := strings.Cut(p.Peer, ":")
	if !ok {
		return nil, nil
	}
	pd := byName[dev]
	if pd == nil {
		return nil, nil
	}
	return pd, pd.Port(port)
}

// lossText says whether class tc is lossless on port p.
func lossText(p *PortConfig, tc int) string {
	if p.Class(tc).Lossless {
		return "lossless"
	}
	return "lossy"
}

// QOS022: a shaper on the queue of a lossless class, or on a port that
// carries one, caps RoCE on the port.
func (l *linter) shapedLossless(d *DeviceConfig, p *PortConfig, lossless []int) {
	if !p.Fabric {
		return
	}
	prios := p.PFCPriorities
	if len(prios) == 0 {
		prios = lossless
	}
	queues := map[int][]int{}
	for _, pr := range prios {
		q := p.Class(pr).Queue
		if qc := p.Queue(q); qc != nil && qc.Shaper != nil {
			queues[q] = append(queues[q], pr)
		}
	}
	speed := p.RunSpeedGbps()
	// holds says how a shaper holds the port's traffic, "" when it does
	// not (at or above line rate): its rate and share of the port, or,
	// with the speed unknown (bare EOS files), its percent.
	holds := func(sh *Shaper) string {
		rate := sh.RateKbpsAt(speed)
		switch {
		case !p.Holds(sh):
			return ""
		case sh.PacketsPerSec > 0:
			return shaperText(sh) // a packet meter: its frames a second
		case speed <= 0 && sh.RateKbps <= 0:
			return fmt.Sprintf("%d%% of the port's speed", sh.Percent)
		case speed <= 0:
			return strconv.FormatFloat(float64(rate)/1e6, 'f', -1, 64) + " Gb/s"
		}
		return fmt.Sprintf("%s Gb/s, %.0f%% of the port's %d Gb/s", strconv.FormatFloat(float64(rate)/1e6, 'f', -1, 64), float64(rate)/float64(speed)/1e4, speed)
	}
	if sh := p.Shaper; sh != nil && len(prios) > 0 {
		if h := holds(sh); h != "" {
			l.addAt(RuleShapedLossless, SevWarning, d.Device, p.Name, p.Origins["shaper"],
				"remove the port's shaper or raise it to its line rate (SONiC: PORT_QOS_MAP's scheduler without pir; EOS: the interface's no shape rate)",
				"the port carries lossless TC%s and is shaped to %s: RoCE leaves the port no faster, and its backlog pauses the senders (PFC) or is marked (ECN) sooner",
				FormatInts(prios), h)
		}
	}
	for _, q := range slices.Sorted(maps.Keys(queues)) {
		h := holds(p.Queue(q).Shaper)
		if h == "" {
			continue // at or above line rate: the shaper never holds a frame
		}
		l.addAt(RuleShapedLossless, SevWarning, d.Device, p.Name, p.Queue(q).Origin,
			fmt.Sprintf("remove the shaper from queue %d or raise it to the port's line rate (SONiC: the queue's SCHEDULER without pir; EOS: tx-queue %d, no shape rate)", q, q),
			"queue %d carries lossless TC%s and is shaped to %s: RoCE leaves the port no faster, and its backlog pauses the senders (PFC) or is marked (ECN) sooner",
			q, FormatInts(queues[q]), h)
	}
}

// portMaxMTU is, for each NOS, the largest MTU a port of its switches
// takes and the largest labctl renders on a lab's, with what the latter
// is (RegisterPortMaxMTU).
var portMaxMTU sync.Map

type portMTULimits struct {
	port, lab int
	labNote   string
}

// MTULimiter is a NOS plug-in's optional capability (nos.Lookup's
// plug-ins): its MTU limits, which nos.CheckSpec holds labs to (lo to
// lab) and lint reads as registered (RegisterPortMaxMTU): the least MTU a
// port takes, the most a port of the modeled platform takes, and the most
// labctl renders on a lab's ports; a line outside them the switch
// refuses.
type MTULimiter interface {
	MTULimits() (lo, port, lab int)
}

// MTURangeNoter is an optional capability of an MTULimiter: what its
// lab limit is (EOS's: what a cEOS lab switch takes, below the
// modeled platform's maximum), which nos.CheckSpec's error, QOS020's fix
// and QOS021's warning say.
type MTURangeNoter interface {
	MTURangeNote() string
}

// RegisterPortMaxMTU records, from the NOS plug-in's MTULimits, the
// largest MTU a port of its switches takes (its parser's limit: EOS's
// eos.PlatformMaxMTU, SONiC's portsorch 9216) and the largest labctl
// renders on a lab's ports (nos.CheckSpec's: EOS's eos.LabMaxMTU,
// cEOS's), which lint's QOS020 names: where RoCE's packets need more than
// the port takes, the fix is a lower qos.mtu, one the lab takes, not a
// higher port MTU. Its MTURangeNote, where it has one, says what the
// lab's limit is where it is below the port's (EOS's: what a cEOS lab
// switch takes), which QOS020's fix and QOS021's warning on a port MTU
// between the two quote. Package nos registers every plug-in it knows.
func RegisterPortMaxMTU(nos string, l MTULimiter) {
	_, port, lab := l.MTULimits()
	note := ""
	if n, ok := l.(MTURangeNoter); ok {
		note = n.MTURangeNote()
	}
	portMaxMTU.Store(nos, portMTULimits{port, lab, note})
}

// mtuLimits are the NOS's RegisterPortMaxMTU limits; zero where none
// are registered.
func mtuLimits(nos string) portMTULimits {
	m, _ := portMaxMTU.Load(nos)
	l, _ := m.(portMTULimits)
	return l
}

// PortMaxMTU is the largest MTU a port of the NOS's switches takes and
// the largest labctl renders on a lab's; 0, 0 where none is registered.
func PortMaxMTU(nos string) (port, lab int) {
	m := mtuLimits(nos)
	return m.port, m.lab
}

func (l *linter) portMTU(d *DeviceConfig, p *PortConfig) {
	mtu := p.EnforcedMTU()
	if l.opt.Intent == nil || mtu == 0 || !p.Fabric {
		return
	}
	// Where it is said, what the lab's limit is (a cEOS lab switch's,
	// below the modeled platform's).
	limits := mtuLimits(d.NOS)
	maxMTU, labMTU := limits.port, limits.lab
	labWhy := ""
	if n := limits.labNote; n != "" {
		labWhy = " (" + n + ")"
	}
	// A lab's switch refuses an MTU the modeled platform takes but it
	// does not (cEOS: mtu 9195-9214): the port keeps the MTU it had, its
	// default (1500 on a routed port), which the parser, reading the
	// platform, does not know; a warning, as the simulator models the
	// platform.
	if labMTU > 0 && mtu > labMTU && mtu <= maxMTU {
		from := ""
		if o := p.Origins["mtu"]; o != "" {
			from = " (" + o + ")"
		}
		l.add(RuleOverruled, SevWarning, d.Device, p.Name,
			fmt.Sprintf("give the port an MTU of at most %d, the most a port of the lab's %s switches takes", labMTU, d.NOS),
			"the port's MTU %d%s is above the %d a port of the lab's %s switches takes%s: the lab's switch refuses the line, and the port keeps the MTU it had (its default, 1500 on a routed port), below what RoCE's packets need, so they are dropped; the simulator, which models the platform's %d, and the rest of lint read it as %d", mtu, from, labMTU, d.NOS, labWhy, maxMTU, mtu)
	}
	if need := l.opt.Intent.MTU + RoCEHeaderBytes; mtu < need {
		// Where the MTU is a default (Origins["mtu"]: EOS's of a routed
		// port without an mtu line, SONiC's of a PORT entry without
		// mtu), the finding says so.
		from := ""
		if o := p.Origins["mtu"]; o != "" {
			from = " (" + o + ")"
		}
		// The fabric's usual MTU where it carries them (a jumbo UET
		// lab's packets need more).
		usual := ""
		if need <= fabric.SwitchMTU {
			usual = fmt.Sprintf("; %d is usual", fabric.SwitchMTU)
		}
		fix := fmt.Sprintf("raise the port's MTU to at least %d (RoCE MTU %d plus %d bytes of headers)%s", need, l.opt.Intent.MTU, RoCEHeaderBytes, usual)
		switch {
		case labMTU > 0 && need > labMTU:
			// No MTU a port of the lab's switches takes carries the
			// packets: the lab's qos.mtu must come down (QOS021 refuses
			// a port MTU above the platform's maximum, and warns above
			// the lab's).
			fix = fmt.Sprintf("lower the lab's qos.mtu to at most %d (labctl renders a lab's %s ports at %d at most): RoCE's packets need %d bytes (qos.mtu %d plus %d bytes of headers), more than the %d a port of the lab's switches takes%s", labMTU-RoCEHeaderBytes, d.NOS, labMTU, need, l.opt.Intent.MTU, RoCEHeaderBytes, labMTU, labWhy)
		case labMTU > 0:
			fix = fmt.Sprintf("raise the port's MTU to at least %d (RoCE MTU %d plus %d bytes of headers), at most the %d a port of the lab's switches takes%s%s", need, l.opt.Intent.MTU, RoCEHeaderBytes, labMTU, labWhy, usual)
		}
		l.add(RulePortMTU, SevError, d.Device, p.Name, fix,
			"the port's MTU %d%s is below the %d bytes RoCE's %d-byte packets need: the switch drops them", mtu, from, need, l.opt.Intent.MTU)
	}
}

// TrustDSCPFix is how a port that does not trust DSCP comes to classify
// untagged packets by their DSCP.
const TrustDSCPFix = "trust DSCP on the port (EOS: qos trust dscp)"

// PortUpFix is how a port kept administratively down (PortConfig.AdminDown)
// is brought up: lint's fix of QOS026, and the simulator's when a fault
// names its link.
const PortUpFix = "set the port administratively up (SONiC: admin_status \"up\" in its PORT entry; EOS: no shutdown)"

// channelOut is the fix that takes a member out of its port channel.
const channelOut = "take the port out of its port channel (SONiC: remove its PORTCHANNEL_MEMBER entry; EOS: no channel-group)"

// ChannelAddressFix is how two members of port channels facing each other
// come to carry the lab's traffic: their channels take the link's
// addresses, or the ports leave them.
const ChannelAddressFix = "move the link's address from the member port to its port channel at both ends (EOS: interface Port-Channel<N> with no switchport and ip address; SONiC: PORTCHANNEL_INTERFACE|PortChannel<N>|<prefix>), or " + channelOut

// channelUnaddressed says what of an address c's port channel lacks
// (ChannelAddress false): none, or one EOS ignores (ChannelIgnored) as
// the channel lacks no switchport, which it names.
func channelUnaddressed(c *PortConfig) string {
	if c.ChannelIgnored != "" {
		return fmt.Sprintf("lacks no switchport, so EOS ignores its IP configuration (%s: \"IP configuration will be ignored while interface %s is not a routed port\")", c.ChannelIgnored, c.Channel)
	}
	return "has no IP address"
}

// channelAddressFix is ChannelAddressFix, or where c's port channel has
// an address EOS ignores (ChannelIgnored) the no switchport it lacks.
func channelAddressFix(c *PortConfig) string {
	if c.ChannelIgnored != "" {
		return "add no switchport to interface " + c.Channel + "'s block (EOS: a Port-Channel interface is a switchport, whose IP configuration is ignored, unless it says no switchport)"
	}
	return ChannelAddressFix
}

// ChannelAlone says why port p, a port channel's member (PortConfig.
// Channel), carries nothing where its link's other end is peer (nil for
// a host's NIC or a port no config describes), and the fix; "" where p
// is in no port channel or the bundle carries the lab's traffic.
//
// A member runs LACP (EOS's channel-group mode active or passive; SONiC's
// teammgrd configures teamd's lacp runner for every PORTCHANNEL, addLag
// in cfgmgr/teammgr.cpp): with no partner it is never bundled, and
// without fallback it forwards nothing. A static member (EOS mode on) is
// bundled alone, its traffic then the port channel's. Two passive ends
// send no LACPDU, and a static end facing an LACP one is never its
// partner: neither bundles.
//
// With both ends bundled, the traffic is the port channels': the lab puts
// each link's /31 on the member port (fabric's startup configs: EOS no
// switchport and ip address on the Ethernet interface, SONiC INTERFACE|
// <port>|<prefix>), and neither orchagent (PortsOrch::addLagMember
// creates the LAG member whatever router interface the port has) nor
// Arista's documentation that labctl found says what becomes of a
// member's own address. labctl takes the link to carry nothing unless
// both port channels carry an address (PortConfig.ChannelAddress), the
// reading that shows the harm; a member's own address is not checked to
// be gone, nor the channels' addresses to be the link's.
func ChannelAlone(p, peer *PortConfig) (why, fix string) {
	if p == nil || p.Channel == "" {
		return "", ""
	}
	outOrPeer := channelOut + ", or put the link's other end in one too (a lab host runs no bond: its NIC cannot join one)"
	switch {
	case p.ChannelDown != "":
		return fmt.Sprintf("a member of %s, which is down (%s): its members carry nothing", p.Channel, p.ChannelDown),
			"set the port channel up (SONiC: admin_status \"up\" in its PORTCHANNEL entry; EOS: no shutdown in its interface Port-Channel block), or " + channelOut
	case individual(p, peer):
		// After the fallback timeout the member forwards as the port its
		// own interface block makes it, on the lab's address.
		return "", ""
	case (peer == nil || peer.Channel == "") && p.ChannelFallback == "static":
		if p.ChannelAddress {
			return "", ""
		}
		return fmt.Sprintf("a member of %s, whose link's other end is in no port channel: LACP finds no partner, the port channel's fallback forwards on the member as its own, and %s %s (the link's address sits on the member port), so the link carries nothing", p.Channel, p.Channel, channelUnaddressed(p)), channelAddressFix(p)
	case peer == nil || peer.Channel == "":
		return fmt.Sprintf("a member of %s, but its link's other end is in no port channel: LACP finds no partner and the member carries nothing", p.Channel), outOrPeer
	case peer.ChannelDown != "":
		return fmt.Sprintf("a member of %s, whose partner at the link's other end is a member of %s, which is down (%s): the link carries nothing", p.Channel, peer.Channel, peer.ChannelDown),
			"set the other end's port channel up, or " + channelOut + " at both ends"
	case p.LACPMode() == "passive" && peer.LACPMode() == "passive":
		return fmt.Sprintf("a member of %s in LACP mode passive, and so is the link's other end (%s): neither sends an LACPDU, so neither bundles and the link carries nothing", p.Channel, peer.Channel),
			"set one end's mode to active (EOS: channel-group <n> mode active)"
	case (p.LACPMode() == "on") != (peer.LACPMode() == "on"):
		return fmt.Sprintf("a member of %s in mode %s, but the link's other end (%s) is in mode %s: a static member sends no LACPDU and answers none, so the LACP end never bundles and the link carries nothing", p.Channel, p.LACPMode(), peer.Channel, peer.LACPMode()),
			"give both ends the same kind of membership (EOS: channel-group <n> mode active at both, or mode on at both; SONiC's members always run LACP)"
	case !p.ChannelAddress:
		return fmt.Sprintf("a member of %s, which %s: the bundled member's traffic is the port channel's, and the link's address sits on the member port, so the link carries nothing", p.Channel, channelUnaddressed(p)), channelAddressFix(p)
	case !peer.ChannelAddress:
		return fmt.Sprintf("a member of %s, but the link's other end's %s %s: the link's traffic there is the port channel's, and the link's address sits on the member port, so the link carries nothing", p.Channel, peer.Channel, channelUnaddressed(peer)), strings.Replace(channelAddressFix(peer), "add no switchport to", "at the link's other end, add no switchport to", 1)
	}
	return "", ""
}

// MemberAlone is ChannelAlone(p, pp) for member p of d, pp its link's
// other end, and then what p's fellow members make of its port channel
// (peer gives each member's link's other end, nil where none is known).
// A member counts as carrying traffic when neither end is
// administratively down, ChannelAlone finds nothing and no FEC mismatch
// keeps the link down.
//
// Members facing different partners (another switch, or another port
// channel of one switch, without MLAG) do not bundle together: LACP
// aggregates only ports whose partner system and key are the same (IEEE
// 802.1AX's selection logic; libteam's teamd/teamd_runner_lacp.c,
// lacp_ports_aggregable), and the lacp runner enables only the ports of
// the one aggregator it selects (lacp_update_selected; under the default
// agg_select_policy prio, the aggregator of lacp_get_best_port, which
// has_better_prio ranks by the system priority and MAC, then port
// priority and number, none of which labctl knows). Taking the partner with the most such members as
// selected (on a tie, the name sorting first) is labctl's guess, not
// libteam's rule; the members facing others carry nothing. Static members
// (EOS mode on) and members forwarding by fallback static have no partner
// and are left out of it; members forwarding by fallback individual are
// ports of their own, outside the channel (individual).
//
// With min links set (PortConfig.ChannelMinLinks), fewer members carrying
// traffic than that take the port channel down, and every member with it:
// teammgrd's addLag (sonic-swss cfgmgr/teammgr.cpp) hands PORTCHANNEL's
// min_links to the lacp runner as min_ports, and lacp_update_carrier sets
// the team device's carrier only with that many ports enabled (teamd.conf(5):
// the ports that must be active before carrier is asserted); EOS's
// port-channel min-links is taken to do the same (Arista's manual not
// checked). Both lint (QOS026) and the simulator (runtime.DownEnd) read it.
func MemberAlone(d *DeviceConfig, p, pp *PortConfig, peer func(*PortConfig) *PortConfig) (why, fix string) {
	if why, fix = ChannelAlone(p, pp); why != "" || d == nil || p == nil || p.Channel == "" || individual(p, pp) {
		return why, fix
	}
	// partner is the system and key member m bundles with over its link
	// to mp: the switch at the other end and its port channel; "" for
	// none (static, or forwarding by fallback).
	partner := func(m, mp *PortConfig) string {
		node, _, _ := strings.Cut(m.Peer, ":")
		if m.LACPMode() == "on" || mp == nil || mp.Channel == "" || node == "" {
			return ""
		}
		return node + "'s " + mp.Channel
	}
	var members, loose []string
	byPartner := map[string][]string{}
	for i := range d.Ports {
		m := &d.Ports[i]
		if m.Channel != p.Channel {
			continue
		}
		members = append(members, m.Name)
		mp := peer(m)
		if m.AdminDown != "" || mp != nil && mp.AdminDown != "" || FECMismatch(m, mp) != "" {
			continue
		}
		if w, _ := ChannelAlone(m, mp); w != "" || individual(m, mp) {
			continue
		}
		if k := partner(m, mp); k != "" {
			byPartner[k] = append(byPartner[k], m.Name)
		} else {
			loose = append(loose, m.Name)
		}
	}
	partners := slices.Sorted(maps.Keys(byPartner))
	selected := ""
	for _, k := range partners {
		if selected == "" || len(byPartner[k]) > len(byPartner[selected]) {
			selected = k
		}
	}
	if mine := partner(p, pp); len(partners) > 1 && mine != "" && mine != selected {
		var groups []string
		for _, k := range partners {
			groups = append(groups, fmt.Sprintf("%s to %s", strings.Join(byPartner[k], ", "), k))
		}
		return fmt.Sprintf("a member of %s, whose members face different partners (%s): LACP bundles only members facing one system's one port channel, so one partner's members carry traffic and the others carry nothing (the switches' LACP system priorities and MACs pick which; labctl, not knowing them, guesses %s: most members, on a tie the name sorting first)", p.Channel, strings.Join(groups, "; "), selected),
			"put the members facing each partner port channel in a port channel of their own on this switch, or " + channelOut + " (labctl does not read MLAG or MCLAG configuration, and judges a port channel over two switches as if they were not paired)"
	}
	up := append(loose, byPartner[selected]...)
	if p.ChannelMinLinks <= len(up) {
		return "", ""
	}
	carrying := "none would carry traffic"
	fix = "bring up the members that carry nothing, or add members that do"
	if len(up) > 0 {
		slices.SortFunc(up, ComparePorts)
		carrying = fmt.Sprintf("only %s would carry traffic", strings.Join(up, ", "))
		fix = fmt.Sprintf("lower the port channel's min links to %d (SONiC: min_links in its PORTCHANNEL entry; EOS: port-channel min-links in its interface Port-Channel block), or %s", len(up), fix)
	}
	stmt := cmp.Or(p.Origins["channel_min_links"], fmt.Sprintf("min links %d", p.ChannelMinLinks))
	return fmt.Sprintf("a member of %s, which is down for want of members: %s asks for %d members carrying traffic, and of its members (%s) %s, so the port channel stays down and none of its members carries any", p.Channel, stmt, p.ChannelMinLinks, strings.Join(members, ", "), carrying), fix
}

// individual is whether member p, pp its link's other end, forwards as a
// port of its own by LACP fallback individual (ChannelAlone): outside its
// port channel, so the channel's min links neither counts nor judges it.
func individual(p, pp *PortConfig) bool {
	return p.ChannelFallback == "individual" && (pp == nil || pp.Channel == "")
}

// QOS026: a port the lab wires to a host or switch that the switch keeps
// administratively down, or that is a port channel's member whose bundle
// carries nothing (MemberAlone: the link's other end in none, and the
// rest of ChannelAlone; fellow members facing another partner; fewer
// members carrying traffic than min links). A bare file's ports (no
// peer known) are not flagged: a full config's unused ports are down on
// purpose.
func (l *linter) portDown(d *DeviceConfig, p *PortConfig) {
	if !p.Fabric || p.Peer == "" {
		return
	}
	if p.AdminDown != "" {
		l.add(RulePortDown, SevError, d.Device, p.Name,
			PortUpFix,
			"the port, wired to %s, is administratively down (%s): its link carries nothing, and traffic that needs it is lost or takes other paths", p.Peer, p.AdminDown)
		return
	}
	_, pp := l.peerPort(p)
	peer := func(m *PortConfig) *PortConfig {
		_, mp := l.peerPort(m)
		return mp
	}
	if why, fix := MemberAlone(d, p, pp, peer); why != "" {
		l.add(RulePortDown, SevError, d.Device, p.Name, fix,
			"the port, wired to %s, is %s, and traffic that needs it is lost or takes other paths", p.Peer, why)
		return
	}
	if why, fix := NotRouted(p, pp); why != "" {
		l.add(RulePortDown, SevError, d.Device, p.Name, fix,
			"the port, wired to %s on the lab's routed fabric, is %s, and traffic that needs it is lost or takes other paths", p.Peer, why)
		return
	}
	if p.Switched != "" {
		l.add(RulePortDown, SevWarning, d.Device, p.Name, SwitchedFix,
			"the port, wired to %s on the lab's routed fabric, is made an L2 port by %s: if the switch makes it L2, the link routes nothing (no address, no route over it) and traffic that needs it is lost or takes other paths; labctl still simulates the link as routed", p.Peer, p.Switched)
	}
}

// SwitchedFix is how a port the config makes L2 (PortConfig.Switched) on
// a routed fabric routes again, where lint only warns of it: SONiC's
// VLAN_MEMBER, and an EOS switchport whose harm the config does not show
// (NotRouted: no address of its own, the link's other end not routed or
// a host). What
// SONiC does with such a port is not settled from its source here:
// portsorch refuses to make a port with a router interface a bridge port
// (addBridgePort: "Cannot create bridge port, interface %s is a router
// port"), so which wins depends on whether INTERFACE or VLAN_MEMBER is
// applied first. So lint warns, and the simulator does not take the link
// down.
const SwitchedFix = "keep the fabric port routed (EOS: no switchport in its interface block; SONiC: remove its VLAN_MEMBER entry)"

// NotRoutedFix is how an EOS port kept L2 (PortConfig.L2) routes again.
const NotRoutedFix = "add no switchport to the port's interface block (EOS: an Ethernet or Port-Channel interface is a switchport, whose IP configuration is ignored, unless it says no switchport); where it says switchport, replace that line with no switchport"

// NotRouted says why p, a port of the lab's routed fabric whose link's
// other end is peer (nil for a host's NIC or a port no config describes),
// routes nothing, and the fix; "" where it routes, or where nothing in
// the configs shows it was meant to.
//
// An EOS Ethernet interface is a switchport (Layer 2) unless its block
// says no switchport: show running-config prints no switchport for a
// routed port and nothing for an L2 one (a real EOS-4.21.0F running-config,
// https://gist.github.com/victorhooi/4145fbf03086a5fbcc9915f39c550d6e,
// has interface Ethernet2 with nothing under it, in VLAN 1), and
// ansible-collections/arista.eos's interfaces config module writes no
// switchport "switching from default (layer2) mode to layer3"
// (config/interfaces/interfaces.py, _set_config), switchport "setting to
// default (layer 2) mode", for Ethernet and Port-Channel interfaces alike
// (its eos_interfaces mode: "Applicable for Ethernet and port channel
// interfaces only"). AVD's eos_cli_config_gen writes no switchport for an
// interface of type routed (ethernet-interfaces.j2). EOS takes an ip
// address on a switchport but ignores it: "! IP configuration will be
// ignored while interface Ethernet5 is not a routed port.", with no
// connected route (ansible-collections/arista.eos issue 101, on
// eos_l3_interfaces leaving no switchport out); a cEOS session in a
// public lab guide (found by its text; its repository not identified)
// shows the address kept in running-config, the port still in VLAN 1 and
// no Internet address until no switchport is said. No Arista manual page
// saying so was retrieved.
// So such a port routes nothing: the link carries none of the lab's
// routed traffic (the simulator runs it down from the start, as
// runtime.DownEnd reads this).
//
// What the files show of the port's mode depends on what they are. A
// whole config (show running-config) carries the ports' modes and
// addresses. A file of QoS alone, as labctl's own labs keep it (their
// startup config holds no switchport and the addresses:
// fabric.Graph.WriteEOSStartup; the file is merged over it in a
// configure session, eos.PushConfig), leaves a port's mode as the switch
// has it where it says nothing: a routed port stays routed. So the port
// is judged only on evidence sound in both readings:
//   - its own IP configuration (L2IP) without no switchport: EOS ignores
//     it, whatever else the switch's config says;
//   - its own mode statement (L2Said: switchport, default switchport),
//     which pushed over a routed port makes it a switchport, where the
//     link's other end is routed (EOS's no switchport at the peer);
//   - its silence where the files are a whole config (L2Whole: they
//     address a front-panel port), the link's other end routed.
//
// A port facing a host (no switch at the other end) with no address of
// its own is not judged: a leaf's host ports bridged into a VLAN whose
// SVI (interface Vlan10 with an ip address) routes for them are EOS's
// common layout. No switchport on the switch's other ports is no evidence
// either: a file of QoS alone says it of every routed port. A port
// channel's member takes its channel's mode (ChannelAlone judges the
// channel: its address counts only with no switchport,
// PortConfig.ChannelAddress).
func NotRouted(p, peer *PortConfig) (why, fix string) {
	if p == nil || p.L2 == "" || p.Routed || p.Channel != "" {
		return "", ""
	}
	peerRouted := peer != nil && peer.Routed && peer.Channel == ""
	switch {
	case p.L2IP != "":
		why = fmt.Sprintf("not a routed port (L2: %s), so EOS ignores its IP configuration (%s: \"IP configuration will be ignored while interface %s is not a routed port\"): the link routes nothing", p.L2, p.L2IP, p.Name)
	case p.L2Said != "" && peerRouted:
		why = fmt.Sprintf("not a routed port (L2: %s), while the link's other end is routed (no switchport): the port, a switchport, routes nothing over the link", p.L2)
	case p.L2Whole != "" && peerRouted:
		why = fmt.Sprintf("not a routed port (L2: %s), while the link's other end is routed (no switchport) and the switch's config is a whole one, which addresses its routed ports (%s): the port, a switchport, routes nothing over the link", p.L2, p.L2Whole)
	default:
		return "", ""
	}
	return why, NotRoutedFix
}

// QOS027: priorities a port holds in the PFC watchdog's drop action with
// no storm (PortConfig.WatchdogDrop). Every data port is flagged, a bare
// file's too: the setting is switch-wide and drops whatever the
// priorities carry.
func (l *linter) watchdogForced(d *DeviceConfig, p *PortConfig) {
	w := p.WatchdogDrop
	if w == nil || len(w.Priorities) == 0 || !p.Fabric {
		return
	}
	var lossless []int
	for _, tc := range w.Priorities {
		if p.Class(tc).PFC {
			lossless = append(lossless, tc)
		}
	}
	what := ""
	if len(lossless) > 0 {
		what = fmt.Sprintf("; PFC runs on %s, so a lossless class (RoCE's) loses every packet", FormatInts(lossless))
	}
	l.addAt(RuleWatchdogForced, SevError, d.Device, p.Name, w.Where, w.Fix,
		"%s holds priorities %s in the PFC watchdog's drop action with no storm: the port ignores their pause frames, sends none, and drops every packet of them it receives or would send%s", w.Where, FormatInts(w.Priorities), what)
}

// roceMaxMTU is RoCE's largest path MTU, the payload of its largest
// frames.
const roceMaxMTU = 4096

// rocePacketBytes is a full RoCE packet on the wire as the lab's intent
// sizes it (its MTU plus headers), or of a 4096-byte MTU without one.
func (l *linter) rocePacketBytes() int64 {
	mtu := roceMaxMTU
	if l.opt.Intent != nil && l.opt.Intent.MTU > 0 {
		mtu = l.opt.Intent.MTU
	}
	return int64(mtu + RoCEHeaderBytes)
}

// QOS008
func (l *linter) watchdog(d *DeviceConfig, p *PortConfig) {
	// The port's own poll interval where it has one (EOS's port timer
	// polling-interval), else the device's.
	if w := p.Watchdog; w != nil && len(p.PFCPriorities) > 0 && w.DetectionMs > 0 && w.PollMsOf(d) > 0 && 2*w.PollMsOf(d) > w.DetectionMs {
		poll := w.PollMsOf(d)
		l.add(RuleWatchdogOff, SevWarning, d.Device, p.Name,
			fmt.Sprintf("poll at most every %d ms (half the detection time), or raise the detection time", w.DetectionMs/2),
			"the PFC watchdog polls every %d ms against a detection time of %d ms: a storm is declared up to %d ms after it starts", poll, w.DetectionMs, w.DetectionMs+poll)
	}
	if len(p.PFCPriorities) > 0 && p.Watchdog == nil {
		l.add(RuleWatchdogOff, SevWarning, d.Device, p.Name,
			"enable the PFC watchdog (e.g. detection 200 ms, restoration 200 ms, action drop)",
			"PFC is on (priority %s) without a PFC watchdog: a stuck receiver can pause the fabric indefinitely", FormatInts(p.PFCPriorities))
	}
	// A watchdog that only reports a storm leaves the queue paused, as
	// none would (SONiC's alert, EOS's notify-only).
	if w := p.Watchdog; w != nil && len(p.PFCPriorities) > 0 && WatchdogAction(w.Action) == "alert" {
		l.add(RuleWatchdogOff, SevWarning, d.Device, p.Name,
			"set the watchdog's action to drop (SONiC: PFC_WD action; EOS: priority-flow-control pause watchdog port action)",
			"the PFC watchdog only reports storms (action %s): a stuck receiver can still pause the fabric indefinitely", w.Action)
	}
	if w := p.Watchdog; w != nil {
		var unwatched []int
		for _, tc := range p.PFCPriorities {
			if !w.Watches(tc) {
				unwatched = append(unwatched, tc)
			}
		}
		if len(unwatched) > 0 {
			l.add(RuleWatchdogOff, SevWarning, d.Device, p.Name,
				fmt.Sprintf("watch every PFC priority: list %s in the watchdog's priorities (SONiC's pfcwd_sw_enable)", FormatInts(p.PFCPriorities)),
				"PFC is on priority %s but the PFC watchdog watches %s only: a stuck receiver can pause priority %s indefinitely", FormatInts(p.PFCPriorities), orNone(FormatInts(w.Priorities)), FormatInts(unwatched))
		}
	}
}

// QOS013: references that name nothing. One per-port entry repeated on
// many ports (BUFFER_PG|Ethernet0|3 ... BUFFER_PG|Ethernet124|3 naming the
// same missing profile) is one cause, one finding, its entry written with
// the port as "*".
func (l *linter) unresolved(d *DeviceConfig) {
	var all []string
	for _, p := range d.Ports {
		all = append(all, p.Name)
	}
	type cause struct{ where, field, ref, table, effect, rejected, fix string }
	at := map[cause]int{}
	var found []Finding
	for _, u := range d.Unresolved {
		where := u.Where
		if len(u.Ports) == 1 {
			where = portless(where, u.Ports[0])
		}
		c := cause{where, u.Field, u.Ref, u.Table, u.Effect, u.Rejected, u.Fix}
		i, ok := at[c]
		if !ok {
			at[c] = len(found)
			i = len(found)
			fix := fmt.Sprintf("define %s, or point %s at one that exists", unresolvedRef(u.Table, u.Ref), u.Field)
			switch {
			case u.Fix != "":
				fix = u.Fix
			case u.Rejected != "":
				fix = fmt.Sprintf("correct %s as said, so that the switch creates it", unresolvedRef(u.Table, u.Ref))
			}
			found = append(found, Finding{Rule: RuleUnresolved, Severity: SevError, Device: d.Device, Where: u.Where, Fix: fix})
		} else {
			// More than one entry: the finding names their shape.
			found[i].Where = where
		}
		for _, p := range u.Ports {
			if !slices.Contains(found[i].Ports, p) {
				found[i].Ports = append(found[i].Ports, p)
			}
		}
	}
	for c, i := range at {
		f := &found[i]
		f.Message = fmt.Sprintf("%s %s names %s, which %s does not define: %s", f.Where, c.field, c.ref, c.table, c.effect)
		if strings.Contains(c.table, " ") {
			// An EOS mode (qos profile), not a table: the definition is
			// a block of the config.
			f.Message = fmt.Sprintf("%s %s names %s, which the config does not define: %s", f.Where, c.field, unresolvedRef(c.table, c.ref), c.effect)
		}
		if c.rejected != "" {
			f.Message = fmt.Sprintf("%s %s names %s, which the switch refuses (%s): %s", f.Where, c.field, unresolvedRef(c.table, c.ref), c.rejected, c.effect)
		}
		nameFindingPorts(f, all)
	}
	l.out = append(l.out, found...)
}

// colourDrop (QOS015): a lossless class's DSCP the port colours yellow or
// red (EOS: qos map dscp ... drop-precedence) meets that colour's WRED at
// the class's queue; where the colour drops early, lossless traffic is
// lost. A colour no lossless DSCP has is no concern of RoCE's.
func (l *linter) colourDrop(d *DeviceConfig, p *PortConfig, qc *QueueConfig, tcs []int) {
	for dp := 1; dp < len(DropPrecedences); dp++ {
		c := *qc.WRED.Colour(dp)
		if c == nil || c.Mark {
			continue
		}
		var dscps []int
		for dscp, got := range p.DSCPToDropPrecedence {
			if got == dp && slices.Contains(tcs, p.TCOf(dscp)) {
				dscps = append(dscps, dscp)
			}
		}
		if len(dscps) == 0 {
			continue
		}
		slices.Sort(dscps)
		colour := DropPrecedences[dp]
		l.addAt(RuleWREDDropLossless, SevError, d.Device, p.Name, WREDWhere(qc),
			fmt.Sprintf("keep lossless DSCPs green (EOS: qos map dscp %s to traffic-class <tc> without drop-precedence), or remove the queue's %s early drop (EOS: the tx-queue's random-detect drop drop-precedence %d)", FormatInts(dscps), colour, dp),
			"queue %d carries lossless TC%s, and DSCP %s, which the port colours %s (drop precedence %d), meets the queue's %s WRED, which drops early from %d bytes without marking: lossless traffic is lost", qc.Queue, FormatInts(tcs), FormatInts(dscps), colour, dp, colour, c.MinBytes)
	}
}

// unresolvedRef writes a reference as its NOS's config would: a SONiC
// table's key (BUFFER_PROFILE|pg_lossless), an EOS block's head (qos
// profile ROCE).
func unresolvedRef(table, ref string) string {
	if strings.Contains(table, " ") {
		return table + " " + ref
	}
	return table + "|" + ref
}

// nameFindingPorts names a finding's ports as ranges in Port, keeping the
// list only where there are several.
func nameFindingPorts(f *Finding, all []string) {
	if len(f.Ports) == 0 {
		return
	}
	sortPorts(f.Ports)
	f.Port = portsNamed(f.Ports, all)
	if len(f.Ports) == 1 {
		f.Ports = nil
	}
}

// QOS021: entries the switch does not apply as they read, each at its
// file and line. One per-port entry repeated on many ports, overruled for
// the same reason (BUFFER_PG|Ethernet0|3 ... BUFFER_PG|Ethernet124|3 all
// written over by the buffer manager), is one finding, its entry written
// with the port as "*", placed at the first of them.
func (l *linter) overruled(d *DeviceConfig) {
	var all []string
	for _, p := range d.Ports {
		all = append(all, p.Name)
	}
	type cause struct {
		where, what, fix string
		refused          bool
	}
	at := map[cause]int{}
	var found []Finding
	var count []int
	var first []Overruled
	for _, o := range d.Overruled {
		where := o.Where
		if len(o.Ports) == 1 {
			where = portless(where, o.Ports[0])
		}
		c := cause{where, o.What, o.Fix, o.Refused}
		i, ok := at[c]
		if !ok {
			i = len(found)
			at[c] = i
			sev := SevWarning
			if o.Refused {
				sev = SevError
			}
			found = append(found, Finding{Rule: RuleOverruled, Severity: sev, Device: d.Device, Where: o.Where, Fix: o.Fix})
			count = append(count, 0)
			first = append(first, o)
		} else {
			found[i].Where = where
		}
		count[i]++
		for _, p := range o.Ports {
			if !slices.Contains(found[i].Ports, p) {
				found[i].Ports = append(found[i].Ports, p)
			}
		}
	}
	for c, i := range at {
		f := &found[i]
		pos := d.Position(first[i])
		switch {
		case count[i] > 1 && pos != "":
			f.Message = fmt.Sprintf("%s (%d entries, the first at %s): %s", f.Where, count[i], pos, c.what)
		case count[i] > 1:
			f.Message = fmt.Sprintf("%s (%d entries): %s", f.Where, count[i], c.what)
		case pos != "":
			f.Message = fmt.Sprintf("%s: %s: %s", pos, f.Where, c.what)
		default:
			f.Message = fmt.Sprintf("%s: %s", f.Where, c.what)
		}
		nameFindingPorts(f, all)
	}
	l.out = append(l.out, found...)
}

// QOS017's error: an ACL rule bound to data ports that drops, redirects
// or re-marks RoCE's packets or its CNPs, which the simulator does not
// run, so that neither the run nor regress's figures show the loss. Each
// list decides a packet by its first rule that matches it; a rule that
// matches some of RoCE's packets only (Unsure: an address, a source port)
// is a warning where it harms them, and lets the others on to the next.
func (l *linter) filters(d *DeviceConfig) {
	data := map[string]bool{}
	var all []string
	for _, p := range d.Ports {
		all = append(all, p.Name)
		if p.Fabric {
			data[p.Name] = true
		}
	}
	type target struct {
		dscp int
		what string
	}
	var targets []target
	if r := l.roceDSCP(); r != nil {
		targets = append(targets, target{*r, "RoCE's data"})
	} else {
		set := map[int]bool{}
		for _, p := range d.Ports {
			for _, x := range p.LosslessDSCPs() {
				set[x] = true
			}
		}
		for _, x := range slices.Sorted(maps.Keys(set)) {
			targets = append(targets, target{x, "RoCE's data"})
		}
	}
	if c := l.cnpDSCP(); !slices.ContainsFunc(targets, func(t target) bool { return t.dscp == c }) {
		targets = append(targets, target{c, "its CNPs"})
	}
	// hit are the targets each harmful rule reaches, by its index; lands
	// where a re-mark of each sends them (remarkLands).
	hit := map[int][]target{}
	lands := map[int][]misclass{}
	// behind is, by a harmful rule's index, the earlier rule of its list
	// that lets some of every target's packets through unharmed before it
	// (an Unsure match that does not harm, e.g. acl-loader's permit from
	// one subnet ahead of its DEFAULT_RULE, or EOS's permit from one
	// subnet ahead of a deny ip any any): the rule then harms only the
	// packets the earlier one leaves to it, so a warning, not an error;
	// -1 where any target meets the rule with no such earlier rule.
	behind := map[int]int{}
	var order []int
	for i, f := range d.Filters {
		if i > 0 && d.Filters[i-1].List == f.List {
			continue
		}
		for _, t := range targets {
			passed := -1 // an earlier Unsure rule that let some through
			for j := i; j < len(d.Filters) && d.Filters[j].List == f.List; j++ {
				r := d.Filters[j]
				if r.DSCPs != nil && !slices.Contains(r.DSCPs, t.dscp) {
					continue
				}
				m, harms := misclass{}, r.Harm != ""
				if harms && r.Remark != nil {
					m = l.remarkLands(d, r, t.dscp)
					harms = m.in != nil
				}
				if harms {
					if _, ok := hit[j]; !ok {
						order = append(order, j)
						behind[j] = passed
					} else if passed < 0 {
						behind[j] = -1
					}
					hit[j] = append(hit[j], t)
					lands[j] = append(lands[j], m)
				} else if r.Unsure != "" && passed < 0 {
					passed = j
				}
				if r.Unsure == "" {
					break
				}
			}
		}
	}
	for _, j := range order {
		r := d.Filters[j]
		var ports []string
		for _, p := range r.Ports {
			if data[p] {
				ports = append(ports, p)
			}
		}
		if len(ports) == 0 {
			continue
		}
		var whom []string
		for i, t := range hit[j] {
			whom = append(whom, fmt.Sprintf("%s (DSCP %d)", t.what, t.dscp))
			if r.Remark != nil {
				m := lands[j][i]
				got, want := m.in.TCOf(m.dscp), m.in.TCOf(t.dscp)
				whom[i] += fmt.Sprintf(" to DSCP %d, which reaches %s as DSCP %d, classified there into traffic class %d (%s) instead of %d (%s)", *r.Remark, m.at, m.dscp, got, lossText(m.in, got), want, lossText(m.in, want))
			}
		}
		sev, some := SevError, "every RoCEv2 packet (UDP to port 4791)"
		if r.Unsure != "" {
			sev, some = SevWarning, fmt.Sprintf("the RoCEv2 packets (UDP to port 4791) that meet %s (labctl does not decide which)", r.Unsure)
		} else if k := behind[j]; k >= 0 {
			sev, some = SevWarning, fmt.Sprintf("the RoCEv2 packets (UDP to port 4791) left to it by the earlier %s (which lets through unharmed those that meet %s; labctl does not decide which)", d.Filters[k].Where, d.Filters[k].Unsure)
		}
		if r.Partial {
			sev = SevWarning // a policer: the packets over its rate only
		}
		at := r.Where
		if pos := d.Position(Overruled{Source: r.Source, Line: r.Line}); pos != "" {
			at = pos + ": " + r.Where
		}
		f := Finding{Rule: RuleDefaultRelied, Severity: sev, Device: d.Device, Where: r.Where, Ports: ports,
			Message: fmt.Sprintf("%s (ACL %s, on the ports it is bound to) matches %s of %s, and %s: labctl does not simulate ACLs, so the run and regress's figures do not show it", at, r.List, some, strings.Join(whom, " and "), r.Harm),
			Fix:     fmt.Sprintf("take the rule out of ACL %s, narrow its match so that it leaves out UDP port 4791, or put a rule that forwards RoCE's packets unchanged ahead of it", r.List)}
		if r.Remark != nil {
			// r.Where names the policy, its class and its set dscp line:
			// said once.
			f.Message = fmt.Sprintf("%s, on the ports that take it, re-marks %s; labctl does not simulate the re-mark, so the run and regress's figures do not show it", at, strings.Join(whom, "; and "))
			f.Fix = fmt.Sprintf("remove the set dscp from the class, set the DSCP the packets came with, or match RoCE's packets (UDP port 4791, DSCP %d) in a class ahead of it that keeps their DSCP", hit[j][0].dscp)
		}
		nameFindingPorts(&f, all)
		l.out = append(l.out, f)
	}
}

// remarkLands is where packets of DSCP orig that rule r re-marks as one of
// r's data ports of d receives them are misclassified: each of d's other
// data ports sends them on (as it remarks their class, else with r's DSCP)
// to its peer, followed as misclassified follows an egress remark; where
// the lab names no peer (bare files), the next switch is taken to have the
// receiving port's maps. None (in nil) where they keep their class.
func (l *linter) remarkLands(d *DeviceConfig, r PacketFilter, orig int) misclass {
	for _, name := range r.Ports {
		in := d.Port(name)
		if in == nil || !in.Fabric {
			continue
		}
		if !d.PeersKnown {
			// The next switch as this one's data port that does not take
			// the rule (its maps, without the rule's policy).
			var next *PortConfig
			for i := range d.Ports {
				if q := &d.Ports[i]; q.Fabric && !slices.Contains(r.Ports, q.Name) {
					next = q
					break
				}
			}
			if next == nil {
				c := *in
				c.PolicyTC = nil
				next = &c
			}
			// The port the packets leave by rewrites their class's DSCP
			// as the peers-known reading below does (TCToDSCP: EOS's qos
			// rewrite dscp).
			x := *r.Remark
			if to, ok := next.TCToDSCP[in.TCOf(orig)]; ok {
				x = to
			}
			if next.TCOf(x) != next.TCOf(orig) {
				return misclass{at: "the next switch", in: next, dscp: x}
			}
			continue
		}
		cls := in.TCOf(orig)
		for i := range d.Ports {
			q := &d.Ports[i]
			if q == in || !q.Fabric {
				continue
			}
			x := *r.Remark
			if to, ok := q.TCToDSCP[cls]; ok {
				x = to
			}
			if _, pp := l.peerPort(q); pp != nil && x != orig {
				if m := l.misclassified(pp, x, orig); m.in != nil {
					return m
				}
			}
		}
	}
	return misclass{}
}

// QOS017: defaults the resolver marked as risky for RoCE, and settings it
// found that the simulator does not run, are warnings.
func (l *linter) defaults(d *DeviceConfig) {
	for _, u := range d.Unsimulated {
		fix := u.Fix
		if fix == "" {
			fix = "remove the setting, or check its effect on a real switch: labctl's figures do not show it"
		}
		at := u.Where
		if pos := d.Position(Overruled{Source: u.Source, Line: u.Line}); pos != "" {
			at = pos + ": " + u.Where
		}
		l.addAt(RuleDefaultRelied, SevWarning, d.Device, "", u.Where, fix,
			"%s is set, which the simulator does not run: %s", at, u.What)
	}
	var all []string
	for _, p := range d.Ports {
		all = append(all, p.Name)
	}
	// A setting never applied on each of several ports for one cause (a
	// refused map every port's PORT_QOS_MAP names) is one finding naming
	// the ports, its entry named without them (PORT_QOS_MAP|*), as
	// overruled's are.
	type cause struct{ field, value, source, unapplied string }
	at := map[cause]int{}
	var found []Finding
	var ports [][]string
	var many []string // the message of a finding for several ports
	for _, df := range d.Defaults {
		if !df.Risky {
			continue
		}
		f := Finding{Rule: RuleDefaultRelied, Severity: SevWarning, Device: d.Device,
			Message: fmt.Sprintf("%s is not set, so the switch uses its default: %s (%s)", df.Field, df.Value, df.Source),
			Fix:     "set it explicitly, so that lint and the simulator check what the switch runs"}
		grouped := f.Message
		if df.Unapplied != "" {
			// The message for an entry: not a format made of the
			// default's text, which would read a % in it as a verb.
			unapplied := func(entry string) string {
				return fmt.Sprintf("%s is set but never applied (%s), so the switch uses its default: %s (%s)", df.Field, entry, df.Value, df.Source)
			}
			f.Message = unapplied(df.Unapplied)
			f.Fix = "mend what keeps the entry from applying (the findings at it say what), so that the switch runs the setting"
			grouped = f.Message
			if len(df.Ports) == 1 {
				grouped = unapplied(replacePortName(df.Unapplied, df.Ports[0], PortsMark))
				c := cause{df.Field, df.Value, df.Source, grouped}
				if i, ok := at[c]; ok {
					if !slices.Contains(ports[i], df.Ports[0]) {
						ports[i] = append(ports[i], df.Ports[0])
					}
					continue
				}
				at[c] = len(found)
			}
		}
		found = append(found, f)
		ports = append(ports, slices.Clone(df.Ports))
		many = append(many, grouped)
	}
	for i := range found {
		f := &found[i]
		if len(ports[i]) > 0 {
			f.Port = PortRanges(ports[i], all)
			if len(ports[i]) > 1 {
				f.Ports = ports[i]
				f.Message = many[i]
			}
		}
	}
	l.out = append(l.out, found...)
}

// replacePortName replaces port where text names it whole (Ethernet4,
// not the start of Ethernet40: no letter, digit or _ follows) with with.
func replacePortName(text, port, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, port)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + len(port)
		b.WriteString(text[:i])
		if end < len(text) && isWordByte(text[end]) {
			b.WriteString(text[:end][i:])
		} else {
			b.WriteString(with)
		}
		text = text[end:]
	}
}

// isWordByte is \w's byte: a letter, a digit or _.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || isLetter(c)
}

// QOS009
func (l *linter) links() {
	unknown := false
	for i := range l.cfgs {
		if !l.cfgs[i].PeersKnown {
			unknown = true
		}
	}
	if unknown {
		l.add(RuleLinkLosslessMatch, SevInfo, "", "", "lint the lab (labctl config lint <lab>) to check both ends of each link",
			"link ends not checked: peers are not known for bare config files")
	}
	roce := l.roceDSCP()
	for i := range l.cfgs {
		d := &l.cfgs[i]
		if !d.PeersKnown {
			continue
		}
		for j := range d.Ports {
			p := &d.Ports[j]
			pd, pp := l.peerPort(p)
			if pp == nil || !pd.PeersKnown {
				continue
			}
			dev := pd.Device
			// Report each link once, from the lexically smaller end.
			if d.Device+":"+p.Name > p.Peer {
				continue
			}
			// Named by the peer switch, so that the links of one cause
			// make one finding, whichever peers they reach (addPeer).
			if !slices.Equal(p.PFCPriorities, pp.PFCPriorities) {
				fix := fmt.Sprintf("enable PFC on the same priorities at both ends of each link to %s", dev)
				if idle := idlePFC(p, pp); idle != nil {
					l.addPeer(dev, RuleLinkLosslessMatch, SevWarning, d.Device, p.Name, "", fix,
						"PFC priorities [%s] differ from the peer %s's [%s]: no DSCP takes priority %s where it is enabled, so nothing fills its PG there and the link pauses and drops as if both ends agreed; a DSCP mapped to it later is lossless at one end only",
						FormatInts(p.PFCPriorities), dev, FormatInts(pp.PFCPriorities), FormatInts(idle))
				} else {
					l.addPeer(dev, RuleLinkLosslessMatch, SevError, d.Device, p.Name, "", fix,
						"PFC priorities [%s] differ from the peer %s's [%s]", FormatInts(p.PFCPriorities), dev, FormatInts(pp.PFCPriorities))
				}
			}
			if why := FECMismatch(p, pp); why != "" {
				l.add(RuleLinkLosslessMatch, SevError, d.Device, p.Name,
					fmt.Sprintf("on each link to %s: %s", dev, FECMatchFix),
					"the link to %s:%s does not come up: %s; its traffic takes other paths or is lost, and the simulator runs it down", dev, pp.Name, why)
			}
			// One end sets a mode, the other keeps its switch's own,
			// which the files do not say: noted, not judged.
			for _, e := range [][2]*PortConfig{{p, pp}, {pp, p}} {
				if set, other := e[0], e[1]; set.FEC != "" && set.FEC != FECAuto && other.FEC == "" {
					l.add(RuleParseNote, SevInfo, d.Device, p.Name,
						fmt.Sprintf("set the FEC mode at both ends of the link to %s, or at neither", dev),
						"the link to %s:%s has FEC %s at one end only: the other end runs its switch's own mode (the platform's default, not in the files read), and the link comes up only if that is %s too; labctl runs it up", dev, pp.Name, set.FEC, set.FEC)
				}
			}
			// Equal PFC priorities with a PG that cannot pause at one end
			// are QOS014's, reported once for the port, not per link.
			if roce != nil && p.SwitchTCOf(*roce) != pp.SwitchTCOf(*roce) {
				l.addPeer(dev, RuleLinkLosslessMatch, SevError, d.Device, p.Name, "",
					fmt.Sprintf("classify DSCP %d into the same traffic class at both ends of each link to %s", *roce, dev),
					"RoCE DSCP %d arrives as TC%d here but TC%d at the peer %s: a pause for one class holds back the other's traffic", *roce, p.SwitchTCOf(*roce), pp.SwitchTCOf(*roce), dev)
			}
		}
	}
}

// idlePFC returns the PFC priorities enabled at one end of a link only
// (a and b) when no DSCP takes any of them at the end that enables it:
// nothing fills that end's PG for them, so it never pauses them, and the
// other end (which does not enable them) treats their traffic as lossy
// by its own config. A PFC mismatch then changes nothing on the wire
// (the link's other classes are paused and dropped as if the ends
// agreed); nil where some such priority carries traffic at its enabling
// end, whose pauses the peer does not obey: it drops once the PG's
// headroom is gone.
func idlePFC(a, b *PortConfig) []int {
	var idle []int
	for _, e := range [][2]*PortConfig{{a, b}, {b, a}} {
		for _, pr := range e[0].PFCPriorities {
			if slices.Contains(e[1].PFCPriorities, pr) {
				continue
			}
			if pfcCarries(e[0], pr) {
				return nil
			}
			idle = append(idle, pr)
		}
	}
	slices.Sort(idle)
	return slices.Compact(idle)
}

// pfcCarries says whether the port can pause PFC priority pr: some DSCP
// takes its class, or its PG is lossless and another class some DSCP
// takes fills it (its XOFF pauses pr too).
func pfcCarries(p *PortConfig, pr int) bool {
	if reaches(p, pr) {
		return true
	}
	c := p.Class(pr)
	if !c.Lossless {
		return false
	}
	for tc := range NumTC {
		if tc != pr && p.Class(tc).PG == c.PG && reaches(p, tc) {
			return true
		}
	}
	return false
}

func losslessClasses(p *PortConfig) []int {
	var out []int
	for tc := range NumTC {
		if p.Class(tc).Lossless {
			out = append(out, tc)
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// portNoun names port p of d in a finding's text: "this port", or, for a
// port channel's entries (a name SONiC's YANG model or EOS gives a port
// channel: PortChannel<n>, Port-Channel<n>), "port channel <name>" with
// the members the config gives it (PortConfig.Channel), which labctl
// reads by their own entries, not the channel's.
func portNoun(d *DeviceConfig, p *PortConfig) string {
	if !strings.HasPrefix(p.Name, "PortChannel") && !strings.HasPrefix(p.Name, "Port-Channel") {
		return "this port"
	}
	var members []string
	for i := range d.Ports {
		if d.Ports[i].Channel == p.Name {
			members = append(members, d.Ports[i].Name)
		}
	}
	if len(members) == 0 {
		return "port channel " + p.Name + " (none of the ports labctl read is its member: SONiC PORTCHANNEL_MEMBER, EOS channel-group; a member gets none of the channel's entries)"
	}
	return "port channel " + p.Name + " (members " + strings.Join(members, ", ") + ", which labctl reads by their own entries, not the channel's)"
}
