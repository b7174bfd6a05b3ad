package qos

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
)

// Difference is one difference between two config sets in the model's
// terms: a device field, or a port field on one or more ports of a device.
// A and B are "" when the field is absent on that side.
type Difference struct {
	Device string `json:"device"`
	// Port is the port ("" for a device field), or the ranges of the
	// ports the same change is on ("Ethernet0-60"); Ports lists them.
	Port  string   `json:"port,omitempty"`
	Ports []string `json:"ports,omitempty"`
	Field string   `json:"field"`
	A     string   `json:"a"`
	B     string   `json:"b"`
}

// String is "leaf1 Ethernet0-60 priority.3.lossless: true -> false".
func (d Difference) String() string {
	where := d.Device
	if d.Port != "" {
		where += " " + d.Port
	}
	return where + " " + d.Change()
}

// Change is the difference without where it is: "priority.3.lossless:
// true -> false".
func (d Difference) Change() string {
	return fmt.Sprintf("%s: %s -> %s", d.Field, orDash(d.A), orDash(d.B))
}

// Landing is where a difference lands and what it sets there, "<ports>
// <field> -> <value>" (ports left out for a device field), without where
// it came from: a change a config file does or cannot carry.
func (d Difference) Landing() string {
	return strings.TrimSpace(d.Port+" "+d.Field) + " -> " + orDash(d.B)
}

// Diff compares two config sets device by device (matched by name) and
// field by field in the model's terms (a port's trust mode, a traffic
// class's PG, whether a priority is lossless, a queue's ECN thresholds),
// not as text. A change made the same way on several ports of a device is
// one Difference naming them ("Ethernet0-60 priority.3.lossless: true ->
// false"). A device present on one side only is one difference with field
// "device".
func Diff(a, b []DeviceConfig) []Difference {
	return DiffSettings(SummarizeAll(a), SummarizeAll(b))
}

// SummarizeAll is Summarize of every device, one per name (the last of a
// name), for DiffSettings: a caller comparing one config set with many
// summarizes it once (the scenario runner's lab configs against each
// point's).
func SummarizeAll(cfgs []DeviceConfig) []Settings {
	m := map[string]Settings{}
	for i := range cfgs {
		m[cfgs[i].Device] = Summarize(&cfgs[i])
	}
	return slices.Collect(maps.Values(m))
}

// DiffSettings is Diff on summaries (what run records keep).
func DiffSettings(a, b []Settings) []Difference {
	am := map[string]*Settings{}
	bm := map[string]*Settings{}
	for i := range a {
		am[a[i].Device] = &a[i]
	}
	for i := range b {
		bm[b[i].Device] = &b[i]
	}
	names := map[string]bool{}
	for n := range am {
		names[n] = true
	}
	for n := range bm {
		names[n] = true
	}
	var out []Difference
	for _, n := range slices.Sorted(maps.Keys(names)) {
		sa, sb := am[n], bm[n]
		switch {
		case sa == nil:
			out = append(out, Difference{Device: n, Field: "device", B: "present"})
			continue
		case sb == nil:
			out = append(out, Difference{Device: n, Field: "device", A: "present"})
			continue
		}
		out = append(out, diffDevice(n, sa, sb)...)
	}
	return out
}

// diffDevice compares one device's summaries, grouping each port field's
// changes by (from, to) over the ports they are on.
func diffDevice(dev string, a, b *Settings) []Difference {
	fa, fb := a.expand(), b.expand()
	colourAsGreen(fa, fb)
	colourAsGreen(fb, fa)
	watchdogActionAsAlert(fa)
	watchdogActionAsAlert(fb)
	mtuAsDefault(fa, fb, b.version() >= settingsFieldSince[defaultMTUField])
	mtuAsDefault(fb, fa, a.version() >= settingsFieldSince[defaultMTUField])
	delete(fa, defaultMTUField)
	delete(fb, defaultMTUField)
	order := a.Ports
	for _, p := range b.Ports {
		if !slices.Contains(order, p) {
			order = append(order, p)
		}
	}
	fields := map[string]bool{}
	for k := range fa {
		fields[k] = true
	}
	for k := range fb {
		fields[k] = true
	}
	ks := slices.Collect(maps.Keys(fields))
	slices.SortFunc(ks, ComparePorts)
	var out []Difference
	both := min(a.version(), b.version())
	for _, f := range ks {
		if settingsFieldSince[f] > both {
			// One side's record predates the field: it says nothing of
			// it, rather than that every port lacks it.
			continue
		}
		va, vb := fa[f], fb[f]
		if _, port := va[""]; port || func() bool { _, ok := vb[""]; return ok }() {
			if va[""] != vb[""] {
				out = append(out, Difference{Device: dev, Field: f, A: va[""], B: vb[""]})
			}
			continue
		}
		type change struct{ a, b string }
		groups := map[change][]string{}
		var seen []change
		for _, p := range order {
			x, y := va[p], vb[p]
			if x == y || f == "mtu" && strings.TrimSuffix(x, defaultSuffix) == strings.TrimSuffix(y, defaultSuffix) {
				// A port at the NOS's default MTU and one whose config
				// states the same MTU run alike: a SONiC switch's
				// read-back states the 9100 a pushed config leaves to it.
				continue
			}
			c := change{x, y}
			if _, ok := groups[c]; !ok {
				seen = append(seen, c)
			}
			groups[c] = append(groups[c], p)
		}
		for _, c := range seen {
			ps := groups[c]
			d := Difference{Device: dev, Field: f, A: c.a, B: c.b, Port: PortRanges(ps, order)}
			if len(ps) > 1 {
				d.Ports = ps
			}
			out = append(out, d)
		}
	}
	return out
}

// colourAsGreen fills in, for the ports where the other side names a
// queue's yellow or red WRED colour and this side does not, what this side
// leaves unnamed: the colour marks as green (ECN) does (queueFields names
// the colours only where they differ from green). Else a change of green
// alone read as the colours changing from "-" to their unchanged values.
func colourAsGreen(f, other map[string]map[string]string) {
	for key, ports := range other {
		for p := range ports {
			if v, ok := colourOf(key, func(k string) (string, bool) { v, ok := f[k][p]; return v, ok }); ok {
				if f[key] == nil {
					f[key] = map[string]string{}
				}
				f[key][p] = v
			}
		}
	}
}

// defaultMTUField is the MTU a port without its own runs at (the NOS's
// default, PortConfig.DefaultMTU), which Summarize keeps beside "mtu",
// the config's: not compared itself, it is what mtuAsDefault shows.
const defaultMTUField = "default_mtu"

// mtuAsDefault shows, on the ports where this side's config sets no MTU
// but the switch runs one all the same (SONiC's 9100, DefaultMTU), the
// MTU the switch runs as "9100 (default)", where the other side's record
// can say the same of its ports (otherHasDefaults: a record of Settings
// version 3 or later) or sets an MTU there: a deleted PORT mtu read as
// "9160 -> -", as if the port carried any packet. Against an older record
// whose port sets none, what that port ran is unknown: "mtu" stays absent
// on both, as before.
func mtuAsDefault(f, other map[string]map[string]string, otherHasDefaults bool) {
	for p, v := range f[defaultMTUField] {
		if _, own := f["mtu"][p]; own {
			continue
		}
		if _, set := other["mtu"][p]; !set && !otherHasDefaults {
			continue
		}
		if f["mtu"] == nil {
			f["mtu"] = map[string]string{}
		}
		f["mtu"][p] = v + defaultSuffix
	}
}

// defaultSuffix marks an MTU that is the NOS's default (mtuAsDefault).
const defaultSuffix = " (default)"

// BufferField says whether a Difference's field is of the switch's
// buffer: a pool ("pool.*"), a PG's profile ("pg.<n>.*") or a queue's
// ("queue.<n>.buffer.*"), what a config whose buffer is the platform's
// (DeviceConfig.PlatformBuffer: EOS) does not state, so that a change of
// it (a swept buffer pool) is the simulator's alone and no file shows it.
func BufferField(field string) bool {
	return strings.HasPrefix(field, poolFieldPrefix) || strings.HasPrefix(field, "pg.") || strings.Contains(field, ".buffer.")
}

// watchdogActionAsAlert reads a recorded watchdog action by the model's
// name for it (WatchdogAction): records from before 2026-12-07 hold EOS's
// notify-only where later ones hold alert, the same action, no change.
func watchdogActionAsAlert(f map[string]map[string]string) {
	for p, v := range f["pfc_watchdog"] {
		if _, rest, ok := strings.Cut(v, " action="); ok {
			a, _, _ := strings.Cut(rest, " ")
			if c := WatchdogAction(a); c != a {
				f["pfc_watchdog"][p] = strings.Replace(v, " action="+a, " action="+c, 1)
			}
		}
	}
}

// colourAsGreenPort is colourAsGreen on one port's fields (intent drift).
func colourAsGreenPort(f, other map[string]string) {
	for key := range other {
		if v, ok := colourOf(key, func(k string) (string, bool) { v, ok := f[k]; return v, ok }); ok {
			f[key] = v
		}
	}
}

// colourOf is what field key (a queue's wred_yellow or wred_red) is on a
// side that does not name it, read through get: the green it marks as,
// when the queue marks; ok false for any other field, or one named.
func colourOf(key string, get func(string) (string, bool)) (string, bool) {
	base, ok := strings.CutSuffix(key, ".wred_yellow")
	if !ok {
		if base, ok = strings.CutSuffix(key, ".wred_red"); !ok {
			return "", false
		}
	}
	if _, named := get(key); named {
		return "", false
	}
	green, ok := get(base + ".ecn")
	if !ok || green == "off" {
		return "", false
	}
	return "mark " + green, true
}

// Settings is one switch's resolved QoS as flat fields, each port field
// grouped over the ports that share its value: what `config diff`
// compares, and small enough for every run record to keep (regress says
// which field changed between a baseline and a run).
type Settings struct {
	Device string `json:"device"`
	// Version is the set of fields Summarize writes (SettingsVersion; 0
	// in a record made before it was kept, which has version 1's): a
	// comparison with an older record leaves out the fields it could
	// not have (settingsFieldSince).
	Version int `json:"version,omitempty"`
	// Ports are the switch's ports in order; a group names them by
	// index ranges.
	Ports  []string  `json:"ports"`
	Fields []Setting `json:"fields"`
}

// Setting is one field's value: a device field (Runs empty) or a port
// field's value on the ports in Runs, [first, last] index pairs into
// Settings.Ports.
type Setting struct {
	Field string   `json:"field"`
	Value string   `json:"value"`
	Runs  [][2]int `json:"runs,omitempty"`
}

// SettingsVersion is the set of port and device fields Summarize writes:
// 2 added "routed" (a port the config makes routed: EOS's no switchport),
// which records of version 1 lack on every port, routed or not; 3 added
// "default_mtu" (the MTU a port without its own runs at), which records
// of version 2 lack on every port.
const SettingsVersion = 3

// settingsFieldSince is the Settings version that added a field; a field
// not named is version 1's.
var settingsFieldSince = map[string]int{"routed": 2, defaultMTUField: 3}

// version is s's Version, 1 for a record made before it was kept.
func (s *Settings) version() int { return max(s.Version, 1) }

// Summarize flattens a device config into Settings.
func Summarize(d *DeviceConfig) Settings {
	s := Settings{Device: d.Device, Version: SettingsVersion, Fields: []Setting{}}
	for _, p := range d.Ports {
		s.Ports = append(s.Ports, p.Name)
	}
	dev := flattenDevice(d)
	for _, k := range slices.SortedFunc(maps.Keys(dev), ComparePorts) {
		s.Fields = append(s.Fields, Setting{Field: k, Value: dev[k]})
	}
	// Port by port, one flattened port at a time in one map: each field's
	// values in the order ports first have them, each with its runs. A
	// field has few values (most one), so they are looked up in order
	// rather than hashed. (Flattening every port first and then going
	// field by field gives the same; on a large lab it allocated a map of
	// a hundred fields per port.)
	byField := map[string][]Setting{}
	port := make(map[string]string, 128)
	for i := range d.Ports {
		clear(port)
		flattenPortInto(&d.Ports[i], port)
		for k, v := range port {
			vals := byField[k]
			at := slices.IndexFunc(vals, func(f Setting) bool { return f.Value == v })
			if at < 0 {
				vals = append(vals, Setting{Field: k, Value: v})
				at = len(vals) - 1
				byField[k] = vals
			}
			f := &vals[at]
			if n := len(f.Runs); n > 0 && f.Runs[n-1][1] == i-1 {
				f.Runs[n-1][1] = i
			} else {
				f.Runs = append(f.Runs, [2]int{i, i})
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(byField), ComparePorts) {
		s.Fields = append(s.Fields, byField[k]...)
	}
	return s
}

// expand turns settings back into field -> port -> value ("" for a device
// field).
func (s *Settings) expand() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, f := range s.Fields {
		m := out[f.Field]
		if m == nil {
			m = map[string]string{}
			out[f.Field] = m
		}
		if len(f.Runs) == 0 {
			m[""] = f.Value
			continue
		}
		for _, r := range f.Runs {
			for i := r[0]; i <= r[1] && i < len(s.Ports); i++ {
				if i >= 0 {
					m[s.Ports[i]] = f.Value
				}
			}
		}
	}
	return out
}

// flattenDevice and flattenPort turn a device config into device fields
// and, per port, port fields, with names such as
// "pool.ingress_lossless_pool.size_bytes", "trust", "dscp_to_tc.26",
// "priority.3.lossless" (the class view: PortConfig.Class), "queue.3.ecn"
// and "pg.3.xoff_bytes". Unknown (zero) values are left out so that a file
// that does not say something does not differ from one that says it is
// unknown.
//
// flattenDevice is the device's own fields (not its ports').
func flattenDevice(d *DeviceConfig) map[string]string {
	dev := map[string]string{}
	if d.WatchdogPollMs != 0 {
		dev["watchdog_poll_ms"] = strconv.Itoa(d.WatchdogPollMs)
	}
	if d.DSCPRewrite {
		dev["dscp_rewrite"] = "on"
	}
	// An ACL rule that meets RoCE's packets: what it does to them, which
	// of them, and where (lint's QOS017 says whether that harms RoCE).
	for _, f := range d.Filters {
		v := cmp.Or(f.Harm, "forwards them")
		if f.DSCPs != nil {
			v += "; DSCP " + FormatInts(f.DSCPs)
		}
		if f.Unsure != "" {
			v += "; where " + f.Unsure + " match"
		}
		dev["acl."+f.Where] = v + "; on " + PortRanges(f.Ports, nil)
	}
	for _, pl := range d.Pools {
		pp := poolFieldPrefix + pl.Name + "."
		dev[pp+poolType] = pl.Type
		dev[pp+poolMode] = pl.Mode
		dev[pp+poolSize] = strconv.FormatInt(pl.SizeBytes, 10)
		if pl.HeadroomPoolBytes != nil {
			dev[pp+poolHeadroom] = strconv.FormatInt(*pl.HeadroomPoolBytes, 10)
		}
	}
	return dev
}

// A pool's device fields are "pool.<name>.<field>" (flattenDevice), with
// these fields; Settings.Pools reads them back.
const (
	poolFieldPrefix = "pool."
	poolType        = "type"
	poolMode        = "mode"
	poolSize        = "size_bytes"
	poolHeadroom    = "headroom_pool_bytes"
)

// PoolSettings is a buffer pool as Settings record it, each value as
// written and "" where the record has none.
type PoolSettings struct {
	Name, Type, Mode, SizeBytes, HeadroomPoolBytes string
}

// Pools reads back the buffer pools flattenDevice wrote into s's device
// fields, by name: a pool is named by any field of it, a field the
// record has and this does not know of leaves the pool with its other
// fields.
func (s *Settings) Pools() []PoolSettings {
	var pools []PoolSettings
	at := map[string]int{}
	for _, f := range s.Fields {
		if len(f.Runs) > 0 || !strings.HasPrefix(f.Field, poolFieldPrefix) {
			continue
		}
		rest := strings.TrimPrefix(f.Field, poolFieldPrefix)
		i := strings.LastIndex(rest, ".")
		if i < 0 {
			continue
		}
		name, key := rest[:i], rest[i+1:]
		j, ok := at[name]
		if !ok {
			j = len(pools)
			at[name] = j
			pools = append(pools, PoolSettings{Name: name})
		}
		pl := &pools[j]
		switch key {
		case poolSize:
			pl.SizeBytes = f.Value
		case poolType:
			pl.Type = f.Value
		case poolMode:
			pl.Mode = f.Value
		case poolHeadroom:
			pl.HeadroomPoolBytes = f.Value
		}
	}
	slices.SortFunc(pools, func(a, b PoolSettings) int { return strings.Compare(a.Name, b.Name) })
	return pools
}

func flattenPort(p *PortConfig) map[string]string {
	// About a hundred fields: the DSCP map alone has 64.
	f := make(map[string]string, 128)
	flattenPortInto(p, f)
	return f
}

// flattenPortInto writes flattenPort's fields into f.
func flattenPortInto(p *PortConfig, f map[string]string) {
	put := func(k, v string) {
		if v != "" {
			f[k] = v
		}
	}
	num := func(k string, v int64) {
		if v != 0 {
			f[k] = strconv.FormatInt(v, 10)
		}
	}
	putMap := func(name string, m map[int]int) {
		names := indexedNames[name]
		for k, v := range m {
			if k >= 0 && k < len(names) {
				f[names[k]] = strconv.Itoa(v)
			} else {
				f[indexed(name, k)] = strconv.Itoa(v)
			}
		}
	}
	num("speed_gbps", int64(p.SpeedGbps))
	if p.AdvSpeedsGbps != nil {
		put("adv_speeds_gbps", "["+FormatInts(p.AdvSpeedsGbps)+"]")
	}
	num("cable_m", int64(p.CableM))
	num("mtu", int64(p.MTU))
	if p.MTU == 0 {
		num(defaultMTUField, int64(p.DefaultMTU))
	}
	put("trust", p.Trust)
	putMap("dscp_to_tc", p.DSCPToTC)
	putMap("policy_tc", p.PolicyTC)
	putMap("dscp_to_drop_precedence", p.DSCPToDropPrecedence)
	if !p.TrustsDSCP() {
		putMap("cos_to_tc", p.CoSToTC)
		f["default_cos"] = strconv.Itoa(p.DefaultCoS)
	}
	putMap("tc_to_queue", p.TCToQueue)
	putMap("tc_to_pg", p.TCToPG)
	putMap("pfc_to_queue", p.PFCToQueue)
	putMap("pfc_to_pg", p.PFCToPG)
	putMap("tc_to_dscp", p.TCToDSCP)
	f["pfc_priorities"] = pfcPrioritiesText(p)
	for tc := range NumTC {
		f[namesOf(tc).lossless] = strconv.FormatBool(p.Class(tc).Lossless)
	}
	put("pfc_watchdog", watchdogText(p))
	if p.Shaper != nil {
		put("shaper", shaperText(p.Shaper))
	}
	if p.PFCAsym {
		put("pfc_asym", "on")
	}
	if p.Routed {
		put("routed", "true")
	}
	if p.AdminDown != "" {
		put("admin_status", "down")
	}
	if p.FEC != "" {
		put("fec", p.FEC)
	}
	if p.Channel != "" {
		put("port_channel", p.Channel)
		// What decides whether the bundle carries traffic (ChannelAlone).
		put("port_channel_mode", p.ChannelMode)
		if p.ChannelAddress {
			put("port_channel_address", "yes")
		}
		if p.ChannelDown != "" {
			put("port_channel_down", "yes")
		}
		put("port_channel_fallback", p.ChannelFallback)
		num("port_channel_min_links", int64(p.ChannelMinLinks))
	}
	if p.Switched != "" {
		// The statement without its place, which moves with any edit.
		st, _, _ := strings.Cut(p.Switched, " (")
		put("switched", st)
	}
	if w := p.WatchdogDrop; w != nil && len(w.Priorities) > 0 {
		put("pfc_watchdog_forced_drop", FormatInts(w.Priorities))
	}
	for i := range p.Queues {
		queueFields(&p.Queues[i], true, put)
	}
	for _, pg := range p.PGs {
		profileFields(&namesOf(pg.PG).pg, pg.BufferProfile, put)
	}
}

// The names of a port's fields, built without fmt: a large lab's lint
// flattens every port several times.

// indexed is "<name>.<i>" ("dscp_to_tc.26").
func indexed(name string, i int) string { return name + "." + strconv.Itoa(i) }

// indexedNames are indexed's names of the entries of the maps flattenPort
// writes, for the keys a map has (64 DSCPs, 8 traffic classes or
// priorities), made once rather than for every port.
var indexedNames = func() map[string][]string {
	out := map[string][]string{}
	for name, n := range map[string]int{"dscp_to_tc": 64, "cos_to_tc": 8, "tc_to_queue": NumTC, "tc_to_pg": NumTC, "pfc_to_queue": 8, "pfc_to_pg": 8, "tc_to_dscp": NumTC, "policy_tc": 64, "dscp_to_drop_precedence": 64} {
		for i := range n {
			out[name] = append(out[name], indexed(name, i))
		}
	}
	return out
}()

// unitNames are the field names of traffic class, queue and PG n, made
// once for 0-7 (unitNamesOf) rather than for every port: lint and the run
// record flatten every port of a lab.
type unitNames struct {
	lossless                                      string // priority.<n>.lossless
	scheduler, ecn, wredDrop, wredYellow, wredRed string // queue.<n>.*
	shaper                                        string // queue.<n>.shaper
	queueBuffer, pg                               profileNames
}

// profileNames are profileFields' names under one prefix.
type profileNames struct {
	profile, pool, size, staticTh, xoff, xon, xonOffset, dynamicTh string
}

func newProfileNames(pre string) profileNames {
	return profileNames{
		profile: pre + "profile", pool: pre + "pool", size: pre + "size_bytes",
		staticTh: pre + "static_th_bytes", xoff: pre + "xoff_bytes", xon: pre + "xon_bytes",
		xonOffset: pre + "xon_offset_bytes", dynamicTh: pre + "dynamic_th",
	}
}

// newUnitNames is where the names are decided: "priority.<n>.lossless",
// "queue.<n>.*" (its buffer under "queue.<n>.buffer.") and "pg.<n>.*".
func newUnitNames(n int) unitNames {
	i := strconv.Itoa(n)
	qp := "queue." + i + "."
	return unitNames{
		lossless:  "priority." + i + ".lossless",
		scheduler: qp + "scheduler", ecn: qp + "ecn", wredDrop: qp + "wred_drop",
		wredYellow: qp + "wred_yellow", wredRed: qp + "wred_red", shaper: qp + "shaper",
		queueBuffer: newProfileNames(qp + "buffer."), pg: newProfileNames("pg." + i + "."),
	}
}

var unitNamesOf = func() (out [NumTC]unitNames) {
	for n := range out {
		out[n] = newUnitNames(n)
	}
	return out
}()

// namesOf is unitNamesOf[n], or made for an n outside 0-7.
func namesOf(n int) *unitNames {
	if n >= 0 && n < NumTC {
		return &unitNamesOf[n]
	}
	u := newUnitNames(n)
	return &u
}

func pfcPrioritiesText(p *PortConfig) string { return "[" + FormatInts(p.PFCPriorities) + "]" }

func watchdogText(p *PortConfig) string {
	w := p.Watchdog
	if w == nil {
		return "off"
	}
	s := fmt.Sprintf("detection=%dms restoration=%dms action=%s", w.DetectionMs, w.RestorationMs, w.Action)
	if w.PollMs > 0 {
		// The port's own poll interval (the device's is watchdog_poll_ms).
		s += fmt.Sprintf(" poll=%dms", w.PollMs)
	}
	// Which PFC priorities it leaves unwatched, when any (a watchdog on
	// every PFC priority reads as it always has).
	var watched []int
	for _, tc := range p.PFCPriorities {
		if w.Watches(tc) {
			watched = append(watched, tc)
		}
	}
	if len(watched) < len(p.PFCPriorities) {
		s += " watches=" + orNone(FormatInts(watched))
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// queueFields flattens one queue: "queue.<q>.scheduler", ".ecn",
// ".wred_drop", ".wred_yellow", ".wred_red" and, with buffer, its egress
// buffer profile ("queue.<q>.buffer.*").
func queueFields(q *QueueConfig, buffer bool, put func(k, v string)) {
	n := namesOf(q.Queue)
	if q.Strict {
		put(n.scheduler, "strict")
	} else {
		put(n.scheduler, "weight "+strconv.Itoa(q.Weight))
	}
	put(n.ecn, wredText(q.ECN, "off"))
	if q.Drop != nil {
		put(n.wredDrop, wredText(q.Drop, "off"))
	}
	// Yellow and red are named only where they differ from green (a
	// profile that treats every colour alike is its green).
	if w := q.WRED; w != nil {
		same := func(c *WREDColour) bool { return c != nil && q.ECN != nil && c.Mark && c.ECNConfig == *q.ECN }
		if !same(w.Yellow) || !same(w.Red) {
			put(n.wredYellow, colourText(w.Yellow))
			put(n.wredRed, colourText(w.Red))
		}
	}
	if sh := q.Shaper; sh != nil {
		put(n.shaper, shaperText(sh))
	}
	if buffer && q.Buffer != nil {
		profileFields(&n.queueBuffer, *q.Buffer, put)
	}
}

// shaperText is a queue's or port's shaper as config diff and regress
// show it:
// "40 Gb/s" or "40% of the port", and its burst when one is set.
func shaperText(sh *Shaper) string {
	if sh.PacketsPerSec > 0 {
		s := strconv.FormatInt(sh.PacketsPerSec, 10) + " packets/s"
		if sh.BurstPackets > 0 {
			s += " burst " + strconv.FormatInt(sh.BurstPackets, 10) + " packets"
		}
		return s
	}
	s := strconv.FormatFloat(float64(sh.RateKbps)/1e6, 'f', -1, 64) + " Gb/s"
	if sh.RateKbps <= 0 {
		s = strconv.Itoa(sh.Percent) + "% of the port"
	}
	if sh.BurstBytes > 0 {
		s += " burst " + strconv.FormatInt(sh.BurstBytes, 10) + " B"
	}
	return s
}

func wredText(e *ECNConfig, none string) string {
	if e == nil {
		return none
	}
	unit := e.Unit
	if unit == "" {
		unit = "bytes"
	}
	return fmt.Sprintf("min=%d max=%d %s pmax=%s", e.MinBytes, e.MaxBytes, unit, strconv.FormatFloat(e.Pmax, 'g', -1, 64))
}

func colourText(c *WREDColour) string {
	if c == nil {
		return "off"
	}
	verb := "drop"
	if c.Mark {
		verb = "mark"
	}
	return verb + " " + wredText(&c.ECNConfig, "")
}

// profileFields flattens a buffer profile; a field the config sets to 0
// shows as 0, one it leaves out not at all.
func profileFields(n *profileNames, b BufferProfile, put func(k, v string)) {
	put(n.profile, b.Profile)
	put(n.pool, b.Pool)
	optNum(n.size, b.SizeBytes, put)
	optNum(n.staticTh, b.StaticThBytes, put)
	optNum(n.xoff, b.XoffBytes, put)
	optNum(n.xon, b.XonBytes, put)
	optNum(n.xonOffset, b.XonOffsetBytes, put)
	if b.DynamicTh != nil {
		put(n.dynamicTh, strconv.Itoa(*b.DynamicTh))
	}
}

func optNum(k string, v *int64, put func(k, v string)) {
	if v != nil {
		put(k, strconv.FormatInt(*v, 10))
	}
}

// DiffGroup is one change found on several devices: the same field going
// from the same A to the same B, on Count ports (or devices, for a
// device's field) in all.
type DiffGroup struct {
	Field   string   `json:"field"`
	A       string   `json:"a"`
	B       string   `json:"b"`
	Count   int      `json:"count"`
	Devices []string `json:"devices"`
}

// GroupDiff summarises differences over devices: a change made on every
// port of a fabric (a swept Kmin) is one line, not one per switch. Port
// fields are named "port.*.<field>". Groups keep the order of their first
// difference.
func GroupDiff(ds []Difference) []DiffGroup {
	var out []DiffGroup
	at := map[[3]string]int{}
	for _, d := range ds {
		field := d.Field
		n := 1
		if d.Port != "" {
			field = "port.*." + d.Field
			n = max(1, len(d.Ports))
		}
		key := [3]string{field, d.A, d.B}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, DiffGroup{Field: field, A: d.A, B: d.B})
		}
		g := &out[i]
		g.Count += n
		if !slices.Contains(g.Devices, d.Device) {
			g.Devices = append(g.Devices, d.Device)
		}
	}
	return out
}

// FormatDiff renders differences as lines, one per change.
func FormatDiff(ds []Difference) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// AlignPorts gives b's ports, on each device whose NOS differs from a's
// (a SONiC set against an EOS one), the names a's NOS gives the same
// front-panel port (EOS Ethernet n is SONiC Ethernet 4(n-1) on labctl's
// switches: fabric.PortName), so that Diff compares a port with itself,
// not with whichever port of the other NOS has its name. It says how the
// ports were matched ("" when no device needed it). Ports that are no
// front-panel port of their NOS keep their names.
func AlignPorts(a, b []DeviceConfig) string {
	nosOf := map[string]string{}
	for i := range a {
		nosOf[a[i].Device] = a[i].NOS
	}
	var pairs []string
	for i := range b {
		d := &b[i]
		to, ok := nosOf[d.Device]
		if !ok || to == d.NOS || to == "" || d.NOS == "" {
			continue
		}
		from, into := fabric.ClabKind(d.NOS), fabric.ClabKind(to)
		for j := range d.Ports {
			if n, ok := fabric.FrontPanelNumber(from, d.Ports[j].Name); ok {
				d.Ports[j].Name = fabric.PortName(into, n)
			}
		}
		d.Sort()
		pair := fmt.Sprintf("%s's %s ports as %s names them (%s is %s)", d.NOS, d.Device, to, fabric.PortName(from, 2), fabric.PortName(into, 2))
		pairs = append(pairs, pair)
	}
	if len(pairs) == 0 {
		return ""
	}
	if len(pairs) > 2 {
		pairs = append(pairs[:2], fmt.Sprintf("and %d more devices the same way", len(pairs)-2))
	}
	return "ports matched by front-panel position, " + strings.Join(pairs, "; ")
}
