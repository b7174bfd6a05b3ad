package qos

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Severity of a lint finding. Only errors make `labctl config lint` fail.
type Severity string

// Severities, most severe first.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Finding is one lint result.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Device   string   `json:"device,omitempty"`
	Port     string   `json:"port,omitempty"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
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
)

// Rules lists the lint rules.
func Rules() []Rule {
	return []Rule{
		{RuleParseNote, "parse-note", SevInfo, "something the parser could not resolve"},
		{RulePFCOffLossless, "pfc-off-lossless", SevError, "PFC is off for a lossless priority on a data port"},
		{RuleDSCPMapMismatch, "dscp-map-mismatch", SevError, "DSCP->TC maps differ between devices or ports"},
		{RuleRoCEDSCPLossy, "roce-dscp-lossy", SevError, "the RoCE DSCP does not map to a lossless traffic class"},
		{RuleECNThresholds, "ecn-thresholds", SevError, "ECN Kmin not below Kmax (error), or Kmax above the PFC XOFF point (warning)"},
		{RuleECNLosslessQueue, "ecn-lossless-queue", SevWarning, "ECN marks lossy queues but not the lossless queue"},
		{RuleHeadroomShort, "headroom-short", SevError, "PFC headroom is less than link speed, MTU and cable length need"},
		{RuleCNPPriority, "cnp-priority", SevWarning, "CNPs are neither on a strict queue nor weighted above RoCE data"},
		{RuleWatchdogOff, "pfc-watchdog-off", SevWarning, "a port with PFC has no PFC watchdog"},
		{RuleLinkLosslessMatch, "link-lossless-mismatch", SevError, "the two ends of a link enable PFC on different priorities"},
		{RuleInvalidValue, "invalid-value", SevError, "a threshold, probability or buffer profile no switch or simulator can take"},
		{RuleSimIgnores, "not-simulated", SevInfo, "settings in the config that the simulator does not model"},
		{RulePortDiffers, "port-differs", SevWarning, "in bare files, a port whose QoS differs from most of its siblings"},
	}
}

// LintOptions tells Lint what the lab means. Intent is nil for bare files;
// then RoCEDSCP and CNPDSCP (if set) say which DSCPs the traffic uses.
type LintOptions struct {
	Intent   *Intent
	RoCEDSCP *int
	CNPDSCP  *int
	// AssumedMTU sizes headroom when neither the port nor the intent
	// gives an MTU; 0 means 4096 (RoCE's largest path MTU).
	AssumedMTU int
}

// Lint checks device configs and returns findings sorted by device, port
// and rule.
func Lint(cfgs []DeviceConfig, opt LintOptions) []Finding {
	l := &linter{opt: opt, cfgs: cfgs}
	l.run()
	sort.SliceStable(l.out, func(i, j int) bool {
		a, b := l.out[i], l.out[j]
		if a.Device != b.Device {
			return a.Device < b.Device
		}
		if a.Port != b.Port {
			return PortLess(a.Port, b.Port)
		}
		return a.Rule < b.Rule
	})
	return l.out
}

// HasErrors says whether any finding is an error.
func HasErrors(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity == SevError })
}

type linter struct {
	opt  LintOptions
	cfgs []DeviceConfig
	out  []Finding
}

func (l *linter) add(rule string, sev Severity, dev, port, fix, format string, a ...any) {
	l.out = append(l.out, Finding{Rule: rule, Severity: sev, Device: dev, Port: port, Message: fmt.Sprintf(format, a...), Fix: fix})
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

func (l *linter) run() {
	l.dscpMaps()
	l.roceDSCP()
	l.links()
	for i := range l.cfgs {
		for _, n := range l.cfgs[i].Notes {
			l.add(RuleParseNote, SevInfo, l.cfgs[i].Device, "", "", "%s", n)
		}
	}
	for i := range l.cfgs {
		d := &l.cfgs[i]
		l.out = append(l.out, Problems(d)...)
		l.unmodeled(d)
		l.portsDiffer(d)
		lossless := l.lossless(d)
		for j := range d.Ports {
			p := &d.Ports[j]
			l.pfcOff(d, p, lossless)
			l.ecn(d, p, lossless)
			l.headroom(d, p)
			l.cnp(d, p, lossless)
			l.watchdog(d, p)
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
		if !slices.Contains(p.PFCPriorities, pr) {
			missing = append(missing, pr)
		}
	}
	if len(missing) > 0 {
		l.add(RulePFCOffLossless, SevError, d.Device, p.Name,
			fmt.Sprintf("enable PFC on priority %s of %s", FormatInts(missing), p.Name),
			"PFC is off for lossless priority %s (enabled: [%s])", FormatInts(missing), FormatInts(p.PFCPriorities))
	}
}

// QOS002
func (l *linter) dscpMaps() {
	var ref *DeviceConfig
	for i := range l.cfgs {
		d := &l.cfgs[i]
		if len(d.DSCPToTC) == 0 {
			continue
		}
		if ref == nil {
			ref = d
			continue
		}
		if diff := mapDiff(ref.DSCPToTC, d.DSCPToTC); diff != "" {
			l.add(RuleDSCPMapMismatch, SevError, d.Device, "",
				"use one DSCP->TC map on every switch (labctl config render writes the lab's)",
				"DSCP->TC map differs from %s's: %s", ref.Device, diff)
		}
	}
	for i := range l.cfgs {
		d := &l.cfgs[i]
		for j := range d.Ports {
			p := &d.Ports[j]
			if p.DSCPToTC == nil {
				continue
			}
			if diff := mapDiff(d.DSCPToTC, p.DSCPToTC); diff != "" {
				l.add(RuleDSCPMapMismatch, SevError, d.Device, p.Name,
					"apply the device's DSCP->TC map to this port too",
					"port DSCP->TC map differs from the device's: %s", diff)
			}
		}
	}
}

// mapDiff lists up to 8 keys whose values differ, as "dscp 26: 1 vs 3".
func mapDiff(a, b map[int]int) string {
	keys := map[int]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var parts []string
	n := 0
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		va, oka := a[k]
		vb, okb := b[k]
		if oka == okb && va == vb {
			continue
		}
		n++
		if len(parts) < 8 {
			parts = append(parts, fmt.Sprintf("dscp %d: %s vs %s", k, optInt(va, oka), optInt(vb, okb)))
		}
	}
	if n > len(parts) {
		parts = append(parts, fmt.Sprintf("and %d more", n-len(parts)))
	}
	return strings.Join(parts, ", ")
}

func optInt(v int, ok bool) string {
	if !ok {
		return "unmapped"
	}
	return fmt.Sprintf("tc%d", v)
}

// QOS003
func (l *linter) roceDSCP() {
	roce := l.opt.RoCEDSCP
	if l.opt.Intent != nil {
		r := l.opt.Intent.RoCEDSCP
		roce = &r
	}
	if roce == nil {
		// A bare file: say which DSCPs are lossless so the user can check
		// their RoCE traffic class against it.
		for i := range l.cfgs {
			d := &l.cfgs[i]
			set := map[int]bool{}
			for j := range d.Ports {
				for _, x := range d.LosslessDSCPs(&d.Ports[j]) {
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
	for i := range l.cfgs {
		d := &l.cfgs[i]
		lossless := l.lossless(d)
		if len(lossless) == 0 {
			continue
		}
		for j := range d.Ports {
			p := &d.Ports[j]
			m := p.DSCPMap(d)
			tc, ok := m[*roce]
			if !ok || len(m) == 0 {
				l.add(RuleRoCEDSCPLossy, SevError, d.Device, p.Name,
					fmt.Sprintf("map DSCP %d to traffic class %d", *roce, lossless[0]),
					"RoCE DSCP %d is not in the DSCP->TC map", *roce)
				continue
			}
			if !slices.Contains(lossless, tc) {
				l.add(RuleRoCEDSCPLossy, SevError, d.Device, p.Name,
					fmt.Sprintf("map DSCP %d to traffic class %d", *roce, lossless[0]),
					"RoCE DSCP %d maps to TC%d, which is not lossless (lossless: %s)", *roce, tc, FormatInts(lossless))
			}
		}
	}
}

// losslessQueues returns the egress queues of the port's PFC priorities,
// or of the intent's lossless priorities when the port has no PFC.
func losslessQueues(d *DeviceConfig, prios []int) []int {
	set := map[int]bool{}
	for _, tc := range prios {
		q, ok := d.TCToQueue[tc]
		if !ok {
			q = tc
		}
		set[q] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// QOS004 and QOS005
func (l *linter) ecn(d *DeviceConfig, p *PortConfig, lossless []int) {
	trigger := int64(0)
	for _, pg := range p.PGs {
		if pg.Lossless && pg.DynamicTh != nil && d.SharedPoolBytes > 0 {
			trigger = XoffTriggerBytes(d.SharedPoolBytes, *pg.DynamicTh)
			break
		}
	}
	anyECN := false
	for _, q := range p.Queues {
		e := q.ECN
		if e == nil {
			continue
		}
		anyECN = true
		if e.MinBytes >= e.MaxBytes {
			l.add(RuleECNThresholds, SevError, d.Device, p.Name,
				"set Kmin below Kmax so that marking ramps up with the queue",
				"queue %d: ECN Kmin %d is not below Kmax %d%s", q.Queue, e.MinBytes, e.MaxBytes, unitSuffix(e.Unit))
		}
		if e.Unit == "" && trigger > 0 && e.MaxBytes > trigger {
			l.add(RuleECNThresholds, SevWarning, d.Device, p.Name,
				fmt.Sprintf("lower Kmax below %d bytes or enlarge the shared buffer", trigger),
				"queue %d: ECN Kmax %d bytes is above the PFC XOFF point (%d bytes): PFC pauses before ECN marks fully", q.Queue, e.MaxBytes, trigger)
		}
	}
	prios := p.PFCPriorities
	if len(prios) == 0 {
		prios = lossless
	}
	wantECN := anyECN || (l.opt.Intent != nil && l.opt.Intent.ECN.Enabled)
	if !wantECN {
		return
	}
	for _, q := range losslessQueues(d, prios) {
		qc := p.Queue(q)
		if qc == nil || qc.ECN == nil {
			if !anyECN {
				// Nothing on this port marks: the config is an ECN-off
				// variant of a lab whose intent has ECN on.
				l.add(RuleECNLosslessQueue, SevWarning, d.Device, p.Name,
					fmt.Sprintf("enable ECN marking on queue %d, or lint with --ecn off if these configs are the ECN-off variant on purpose", q),
					"the lab's QoS intent has ECN on, but no queue of this port marks ECN (lossless queue %d included)", q)
				continue
			}
			l.add(RuleECNLosslessQueue, SevWarning, d.Device, p.Name,
				fmt.Sprintf("enable ECN marking on queue %d (DCQCN needs marks on the RoCE queue)", q),
				"lossless queue %d does not mark ECN while ECN is in use", q)
		}
	}
}

func unitSuffix(u string) string {
	if u == "" {
		return " bytes"
	}
	return " " + u
}

// QOS006
func (l *linter) headroom(d *DeviceConfig, p *PortConfig) {
	if len(p.PFCPriorities) == 0 {
		return
	}
	mtu := p.MTU
	if mtu == 0 && l.opt.Intent != nil {
		mtu = l.opt.Intent.MTU
	}
	assumed := ""
	if mtu == 0 {
		mtu = l.opt.AssumedMTU
		if mtu == 0 {
			mtu = 4096
		}
		assumed = fmt.Sprintf(" (MTU %d assumed)", mtu)
	}
	resp := 0 // the speed's IEEE bound
	if l.opt.Intent != nil && l.opt.Intent.Buffer.ResponseBits > 0 {
		resp = l.opt.Intent.Buffer.ResponseBits
	}
	for _, pg := range p.PGs {
		if !pg.Lossless || pg.XoffBytes == nil {
			continue
		}
		if p.SpeedGbps == 0 || p.CableM == 0 {
			continue
		}
		need := HeadroomBytes(p.SpeedGbps, mtu, p.CableM, resp)
		if xoff := *pg.XoffBytes; xoff < need {
			l.add(RuleHeadroomShort, SevError, d.Device, p.Name,
				fmt.Sprintf("raise the PG %d xoff to at least %d bytes", pg.PG, need),
				"PG %d headroom %d bytes is below the %d bytes needed at %d Gb/s over %d m%s",
				pg.PG, xoff, need, p.SpeedGbps, p.CableM, assumed)
		}
	}
}

// QOS007
func (l *linter) cnp(d *DeviceConfig, p *PortConfig, lossless []int) {
	cnpDSCP := 48
	if l.opt.CNPDSCP != nil {
		cnpDSCP = *l.opt.CNPDSCP
	}
	if l.opt.Intent != nil {
		cnpDSCP = l.opt.Intent.CNPDSCP
	}
	if len(p.Queues) == 0 || len(lossless) == 0 {
		return
	}
	m := p.DSCPMap(d)
	tc, ok := m[cnpDSCP]
	if !ok {
		return
	}
	q, ok := d.TCToQueue[tc]
	if !ok {
		q = tc
	}
	cq := p.Queue(q)
	if cq == nil || cq.Strict {
		return
	}
	dataW := 0
	for _, lq := range losslessQueues(d, lossless) {
		if x := p.Queue(lq); x != nil && !x.Strict {
			dataW = max(dataW, x.Weight)
		}
	}
	if cq.Weight <= dataW {
		l.add(RuleCNPPriority, SevWarning, d.Device, p.Name,
			fmt.Sprintf("make queue %d strict priority", q),
			"CNP DSCP %d goes to queue %d, which is weighted %d, not above the RoCE queue's %d: CNPs can wait behind the data they throttle",
			cnpDSCP, q, cq.Weight, dataW)
	}
}

// QOS008
func (l *linter) watchdog(d *DeviceConfig, p *PortConfig) {
	if len(p.PFCPriorities) > 0 && p.Watchdog == nil {
		l.add(RuleWatchdogOff, SevWarning, d.Device, p.Name,
			"enable the PFC watchdog (e.g. detection 200 ms, restoration 200 ms, action drop)",
			"PFC is on (priority %s) without a PFC watchdog: a stuck receiver can pause the fabric indefinitely", FormatInts(p.PFCPriorities))
	}
}

// QOS009
func (l *linter) links() {
	byName := map[string]*DeviceConfig{}
	unknown := false
	for i := range l.cfgs {
		byName[l.cfgs[i].Device] = &l.cfgs[i]
		if !l.cfgs[i].PeersKnown {
			unknown = true
		}
	}
	if unknown {
		l.add(RuleLinkLosslessMatch, SevInfo, "", "", "lint the lab (labctl config lint <lab>) to check both ends of each link",
			"link ends not checked: peers are not known for bare config files")
	}
	for i := range l.cfgs {
		d := &l.cfgs[i]
		if !d.PeersKnown {
			continue
		}
		for j := range d.Ports {
			p := &d.Ports[j]
			dev, port, ok := strings.Cut(p.Peer, ":")
			if !ok {
				continue
			}
			pd := byName[dev]
			if pd == nil || !pd.PeersKnown {
				continue
			}
			pp := pd.Port(port)
			if pp == nil {
				continue
			}
			// Report each link once, from the lexically smaller end.
			if d.Device+":"+p.Name > p.Peer {
				continue
			}
			if !slices.Equal(p.PFCPriorities, pp.PFCPriorities) {
				l.add(RuleLinkLosslessMatch, SevError, d.Device, p.Name,
					fmt.Sprintf("enable PFC on the same priorities on %s:%s and %s", d.Device, p.Name, p.Peer),
					"PFC priorities [%s] differ from the peer %s's [%s]", FormatInts(p.PFCPriorities), p.Peer, FormatInts(pp.PFCPriorities))
			}
		}
	}
}
