package qos

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Problems are the values of a config no switch or simulator can take:
// thresholds out of range, profiles that draw from pools the config does
// not define. `labctl config lint` reports them (QOS010) and the
// simulator refuses a config that has any, with the same words: the two
// share this one check, so whatever a run refuses, lint reported first.
func Problems(d *DeviceConfig) []Finding {
	var out []Finding
	add := func(port, fix, format string, a ...any) {
		out = append(out, Finding{Rule: RuleInvalidValue, Severity: SevError, Device: d.Device, Port: port, Message: fmt.Sprintf(format, a...), Fix: fix})
	}
	ingress := false
	for _, pl := range d.Pools {
		switch {
		case pl.Type != "ingress" && pl.Type != "egress":
			add("", "set type to ingress or egress", "buffer pool %s has type %q", pl.Name, pl.Type)
		case pl.SizeBytes < 0 || pl.SizeBytes > 1<<40:
			add("", "give the pool's size in bytes", "buffer pool %s size %d bytes is out of range", pl.Name, pl.SizeBytes)
		case pl.HeadroomPoolBytes != nil && (*pl.HeadroomPoolBytes < 0 || *pl.HeadroomPoolBytes > 1<<40):
			add("", "give the shared headroom pool (xoff) in bytes", "buffer pool %s xoff %d bytes is out of range", pl.Name, *pl.HeadroomPoolBytes)
		}
		ingress = ingress || pl.Type == "ingress"
	}
	if len(d.Pools) > 0 && !ingress {
		add("", "define an ingress pool (ingress_lossless_pool) for the priority groups", "the config has buffer pools but no ingress pool")
	}
	profile := func(port, what string, b *BufferProfile, egress bool) {
		name := b.Profile
		if name == "" {
			name = what
		}
		if len(d.Pools) > 0 && b.Pool != "" {
			pl := d.Pool(b.Pool)
			switch {
			case pl == nil:
				add(port, fmt.Sprintf("define BUFFER_POOL %s or point the profile at a defined pool", b.Pool), "%s: buffer profile %s draws from pool %s, which the config does not define", what, name, b.Pool)
				return
			case egress && pl.Type != "egress":
				add(port, "point the queue's profile at an egress pool", "%s: buffer profile %s draws from %s pool %s", what, name, pl.Type, b.Pool)
			case !egress && pl.Type != "ingress":
				add(port, "point the PG's profile at an ingress pool", "%s: buffer profile %s draws from %s pool %s", what, name, pl.Type, b.Pool)
			}
		}
		for _, fv := range [...]struct {
			f string
			v *int64
		}{{"size", b.SizeBytes}, {"static_th", b.StaticThBytes}, {"xoff", b.XoffBytes}, {"xon", b.XonBytes}, {"xon_offset", b.XonOffsetBytes}} {
			if f, v := fv.f, fv.v; v != nil && (*v < 0 || *v > 1<<40) {
				add(port, "give "+f+" in bytes, 0 or more", "%s: buffer profile %s %s %d is out of range", what, name, f, *v)
			}
		}
		if t := b.DynamicTh; t != nil && (*t < DynamicThZero || *t > DynamicThMax) {
			add(port, fmt.Sprintf("use dynamic_th %d..%d (alpha = 2^dynamic_th of the pool's free space; -8 means none)", DynamicThZero, DynamicThMax), "%s: buffer profile %s dynamic_th %d is out of range", what, name, *t)
		}
	}
	for i := range d.Ports {
		p := &d.Ports[i]
		if w := p.Watchdog; w != nil {
			// A detection time of 0 is no "off" on any switch; the
			// simulator's watchdog would never fire (or, beyond an hour,
			// never in any run).
			if w.DetectionMs <= 0 || w.DetectionMs > maxWatchdogMs {
				add(p.Name, "give the detection time in ms, 1 or more (SONiC's default is 200), or remove the watchdog", "PFC watchdog detection time %d ms is out of range", w.DetectionMs)
			}
			if w.RestorationMs < 0 || w.RestorationMs > maxWatchdogMs {
				add(p.Name, "give the restoration time in ms, 0 or more (SONiC's default is 200)", "PFC watchdog restoration time %d ms is out of range", w.RestorationMs)
			}
			if !slices.Contains(WatchdogActions, w.Action) {
				add(p.Name, "use drop, forward or alert (SONiC), or errdisable, drop, no-drop or notify-only (EOS)", "PFC watchdog action %q is no action a switch takes", w.Action)
			}
		}
		for _, q := range p.Queues {
			what := "queue " + strconv.Itoa(q.Queue)
			if q.Weight < 0 || q.Weight > 1000 {
				add(p.Name, "use a scheduler weight of 1 to 100", "%s: weight %d is out of range", what, q.Weight)
			}
			for _, ke := range [...]struct {
				kind string
				e    *ECNConfig
			}{{"ECN", q.ECN}, {"WRED drop", q.Drop}} {
				kind, e := ke.kind, ke.e
				if e == nil {
					continue
				}
				if e.MinBytes < 0 || e.MaxBytes < 0 {
					add(p.Name, "give WRED thresholds of 0 or more", "%s: %s threshold min %d max %d%s is negative", what, kind, e.MinBytes, e.MaxBytes, unitSuffix(e.Unit))
				}
				if e.Pmax < 0 || e.Pmax > 1 || math.IsNaN(e.Pmax) {
					add(p.Name, "give a probability of 0 to 100 percent", "%s: %s probability %g%% is out of range", what, kind, e.Pmax*100)
				}
				if kind == "WRED drop" && e.MinBytes >= e.MaxBytes {
					add(p.Name, "set the WRED minimum threshold below the maximum", "%s: WRED drop min %d is not below max %d%s", what, e.MinBytes, e.MaxBytes, unitSuffix(e.Unit))
				}
			}
			if q.Buffer != nil {
				profile(p.Name, what, q.Buffer, true)
			}
		}
		for j := range p.PGs {
			pg := &p.PGs[j]
			profile(p.Name, "PG "+strconv.Itoa(pg.PG), &pg.BufferProfile, false)
		}
	}
	return out
}

// maxWatchdogMs bounds a watchdog's times: an hour.
const maxWatchdogMs = 3_600_000

// notSimulated reports, once per device, the settings of the config that
// the simulator does not run (QOS011), from the NOS's statement beside
// each field, so that none is silently ignored.
func (l *linter) notSimulated(d *DeviceConfig) {
	// Fields that share a reason are named together.
	type group struct {
		why    string
		fields []string
	}
	byUse := map[Use][]*group{}
	for _, f := range d.Fields {
		gs := byUse[f.Use]
		i := slices.IndexFunc(gs, func(g *group) bool { return g.why == f.Why })
		if i < 0 {
			gs = append(gs, &group{why: f.Why})
			i = len(gs) - 1
			byUse[f.Use] = gs
		}
		gs[i].fields = append(gs[i].fields, f.Field)
	}
	text := func(gs []*group) string {
		var parts []string
		for _, g := range gs {
			parts = append(parts, joinFields(g.fields)+" ("+g.why+")")
		}
		return strings.Join(parts, "; ")
	}
	if gs := byUse[UseLint]; len(gs) > 0 {
		l.add(RuleSimIgnores, SevInfo, d.Device, "",
			"nothing to fix: lint checks these, and no simulated figure depends on them",
			"checked by lint, not simulated: %s", text(gs))
	}
	if gs := byUse[UseIgnored]; len(gs) > 0 {
		l.add(RuleSimIgnores, SevInfo, d.Device, "",
			"nothing to fix unless you rely on them: see docs/config-fields.md",
			"not read by lint or the simulator: %s", text(gs))
	}
}

// joinFields names fields, each table or statement once before the fields
// of it that follow one another: "WRED_PROFILE red_min_threshold,
// red_max_threshold".
func joinFields(fields []string) string {
	var b strings.Builder
	last := ""
	for i, f := range fields {
		head, rest, ok := strings.Cut(f, " ")
		if i > 0 {
			b.WriteString(", ")
		}
		if ok && head == last {
			b.WriteString(rest)
			continue
		}
		b.WriteString(f)
		last = ""
		if ok {
			last = head
		}
	}
	return b.String()
}

// portsDiffer flags, in bare files (no lab to compare with), a data port
// whose QoS differs from what most of its sibling ports share (QOS012): an
// EOS port whose service-profile was removed, a SONiC port left out of
// PORT_QOS_MAP.
func (l *linter) portsDiffer(d *DeviceConfig) {
	if d.PeersKnown || len(d.Ports) < 3 {
		return
	}
	// sig is the port's QoS as QOS012 compares it, and whether it has
	// any (PFC, a lossless class or ECN), which the same sig always has
	// or lacks.
	sig := func(p *PortConfig) (string, bool) {
		var ecn []int
		strict := []int{}
		for _, q := range p.Queues {
			if q.ECN != nil {
				ecn = append(ecn, q.Queue)
			}
			if q.Strict {
				strict = append(strict, q.Queue)
			}
		}
		lossless := losslessClasses(p)
		return fmt.Sprintf("pfc [%s] lossless [%s] ecn on queues [%s] strict queues [%s] trust %s", FormatInts(p.PFCPriorities), FormatInts(lossless), FormatInts(ecn), FormatInts(strict), p.Trust),
			len(p.PFCPriorities) > 0 || len(lossless) > 0 || len(ecn) > 0
	}
	// Subinterfaces (Ethernet26.100) are no siblings: a port's logical
	// ports, with their own trust and mode, which AVD's configs give
	// many of on a few parents; counted, they made a majority of their
	// own and the routed ports odd ones out. Their sigs stay "".
	sigs := make([]string, len(d.Ports))
	count, withQoS, ports := map[string]int{}, map[string]bool{}, 0
	for i := range d.Ports {
		if !IsSubinterface(d.Ports[i].Name) {
			s, q := sig(&d.Ports[i])
			sigs[i], withQoS[s] = s, q
			count[s]++
			ports++
		}
	}
	best := ""
	for k, n := range count {
		if n > count[best] || (n == count[best] && k < best) {
			best = k
		}
	}
	// Only a clear majority with QoS (PFC, a lossless class or ECN)
	// makes an odd one out. It compared the majority with a port of no
	// queues, which no EOS port is (its queues are strict by default),
	// so a majority of EOS ports without QoS made every routed port (its
	// default trust dscp) and every port with PFC an odd one out.
	if ports < 3 || count[best]*3 < ports*2 || !withQoS[best] {
		return
	}
	for i, s := range sigs {
		if s != "" && s != best {
			l.add(RulePortDiffers, SevWarning, d.Device, d.Ports[i].Name,
				"give the port the same QoS as its siblings (on EOS its service-profile), or lint with the lab to check it against the fabric",
				"the port has %s; %d of the device's %d ports have %s", s, count[best], ports, best)
		}
	}
}
