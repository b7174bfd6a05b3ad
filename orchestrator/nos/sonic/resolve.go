package sonic

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
)

// Sources of the defaults the resolver fills in, as the model names them.
const (
	srcSAI   = "SAI default (SONiC programs nothing for it)"
	srcYANG  = "SONiC YANG default"
	srcPFCWD = "SONiC's pfcwd start_default"
)

// SONiC's `pfcwd start_default` values, used when a port lists
// pfcwd_sw_enable priorities but PFC_WD has no entry for it, and the
// poll interval of pfcwd without PFC_WD|GLOBAL.
const (
	cfgDefaultWDDetection   = 200
	cfgDefaultWDRestoration = 200
	cfgDefaultWDAction      = "drop"
	cfgDefaultWDPollMs      = 100
)

// The times pfcwdorch accepts (PFC_WD_DETECTION_TIME_MIN/MAX and
// PFC_WD_RESTORATION_TIME_MIN/MAX), in ms.
const (
	cfgWDDetectionMin   = 100
	cfgWDDetectionMax   = 5000
	cfgWDRestorationMin = 100
	cfgWDRestorationMax = 60000
)

// watchdogRefused says why pfcwdorch refuses a port's PFC_WD entry, or
// "": its createEntry returns task_invalid_entry, and starts no watchdog
// on the port, for a field it does not know (it knows detection_time,
// restoration_time, action and pfc_stat_history; POLL_INTERVAL and
// BIG_RED_SWITCH are GLOBAL's), a pfc_stat_history other than enable or
// disable, or a time outside its range (to_uint throws).
func watchdogRefused(w *PFCWDEntry) string {
	var bad []string
	unknown := cfgSortedKeys(w.Extra)
	if w.PollInterval != nil {
		unknown = append(unknown, "POLL_INTERVAL")
	}
	if w.BigRedSwitch != "" {
		unknown = append(unknown, "BIG_RED_SWITCH")
	}
	if len(unknown) > 0 {
		bad = append(bad, "it knows no field "+strings.Join(unknown, ", "))
	}
	if h := w.PFCStatHistory; h != "" && h != "enable" && h != "disable" {
		bad = append(bad, fmt.Sprintf("pfc_stat_history %q is neither enable nor disable", h))
	}
	if t := watchdogTimesOutOfRange(*w.DetectionTime, *w.RestorationTime); t != "" {
		bad = append(bad, t)
	}
	return strings.Join(bad, "; ")
}

// watchdogTimesOutOfRange says which of a PFC_WD entry's times pfcwdorch
// refuses, or "".
func watchdogTimesOutOfRange(detection, restoration int) string {
	var bad []string
	if detection < cfgWDDetectionMin || detection > cfgWDDetectionMax {
		bad = append(bad, fmt.Sprintf("detection_time %d ms is outside %d-%d", detection, cfgWDDetectionMin, cfgWDDetectionMax))
	}
	if restoration < cfgWDRestorationMin || restoration > cfgWDRestorationMax {
		bad = append(bad, fmt.Sprintf("restoration_time %d ms is outside %d-%d", restoration, cfgWDRestorationMin, cfgWDRestorationMax))
	}
	return strings.Join(bad, "; ")
}

// FromDoc resolves a merged CONFIG_DB document into the QoS model, as
// SONiC's orchagent turns CONFIG_DB into SAI objects: per port, the maps
// its PORT_QOS_MAP entry (or the global one) names, its PFC, its queues'
// schedulers, WRED profiles and buffers, and its priority groups' buffer
// profiles. What the config leaves out gets the default SAI or SONiC
// applies, recorded in Defaults; a name that resolves to nothing is
// recorded in Unresolved with what the switch does instead (orchagent
// keeps such an entry pending and never applies it); an entry orchagent
// refuses or reads otherwise than it reads (its key, indexKeys), or that
// SONiC's buffer manager writes over (buffermgr.go), in Overruled.
//
// Ports are those named in PORT_QOS_MAP, QUEUE, BUFFER_PG, BUFFER_QUEUE,
// PFC_WD or PORT; all are taken as data ports, and peers are not known
// (qos.AttachTopology adds them for a lab).
func FromDoc(device string, doc Doc) (qos.DeviceConfig, error) {
	return fromDoc(device, doc, nil)
}

// fromDoc is FromDoc for a lab's switch (lab; nil: not known), whose
// ports the lab knows (lacks).
func fromDoc(device string, doc Doc, lab *qos.Device) (qos.DeviceConfig, error) {
	db, beyond, notes, err := decodeDB(doc)
	if err != nil {
		return qos.DeviceConfig{}, fmt.Errorf("parse sonic config of %s: %w", device, err)
	}
	r := &resolver{db: db, beyond: beyond, lab: lab, dc: &qos.DeviceConfig{Device: device, NOS: Name, Notes: notes}, defaults: map[[3]string]*qos.Default{}, unres: map[[4]string]*qos.Unresolved{}}
	r.buffers = len(db.BufferPG) > 0 || len(db.BufferQueue) > 0 || len(db.BufferProfile) > 0 || len(db.BufferPool) > 0
	if md := db.DeviceMetadata["localhost"]; md != nil && md.BufferModel == "dynamic" {
		r.dynamic = true
		r.dc.Notes = append(r.dc.Notes, "DEVICE_METADATA|localhost buffer_model is dynamic: SONiC's dynamic buffer manager writes no lossless PG of its own from pfc_enable, so labctl takes a PG as lossless only where BUFFER_PG gives it a lossless profile, or profile NULL, which the dynamic manager sizes (an entry with an empty profile or none it refuses) from the port's speed and cable, LOSSLESS_TRAFFIC_PATTERN and DEFAULT_LOSSLESS_BUFFER_PARAMETER; labctl sizes those PGs as it renders a lossless PG for the port (dynamic_th 0) and does not read those two tables, so their headroom and threshold are labctl's, not the switch's (how the dynamic model writes lossless PGs differs between SONiC releases: unverified against a switch)")
	}
	if err := r.pools(); err != nil {
		return qos.DeviceConfig{}, fmt.Errorf("parse sonic config of %s: %w", device, err)
	}
	if err := r.indexKeys(); err != nil {
		return qos.DeviceConfig{}, fmt.Errorf("parse sonic config of %s: %w", device, err)
	}
	r.stallObjects(doc)
	ports := r.portNames()
	for _, name := range ports {
		pc, err := r.port(name)
		if err != nil {
			return qos.DeviceConfig{}, fmt.Errorf("parse sonic config of %s: %w", device, err)
		}
		r.dc.Ports = append(r.dc.Ports, pc)
	}
	if err := r.watchdogPoll(); err != nil {
		return qos.DeviceConfig{}, fmt.Errorf("parse sonic config of %s: %w", device, err)
	}
	// What the switch gives a port the config does not name: the same
	// resolution with no entries of its own, its defaults not reported
	// (AttachTopology names the port as defaulted).
	quiet := &resolver{db: db, dc: &qos.DeviceConfig{Pools: r.dc.Pools}, defaults: map[[3]string]*qos.Default{}, unres: map[[4]string]*qos.Unresolved{}, buffers: r.buffers, dynamic: r.dynamic,
		queueKeys: r.queueKeys, bufferQueueKeys: r.bufferQueueKeys, pgKeys: r.pgKeys, pqmKeys: r.pqmKeys, pqmPriorities: r.pqmPriorities, keyPorts: r.keyPorts, stalled: r.stalled, uncreated: r.uncreated}
	if dp, err := quiet.port("\x00unnamed"); err == nil {
		dp.Name = ""
		r.dc.DefaultPort = &dp
	}
	for _, k := range slices.SortedFunc(maps.Keys(r.defaults), cmpKey3) {
		r.dc.Defaults = append(r.dc.Defaults, *r.defaults[k])
	}
	for _, k := range slices.SortedFunc(maps.Keys(r.unres), cmpKey4) {
		r.dc.Unresolved = append(r.dc.Unresolved, *r.unres[k])
	}
	r.coldStartStall()
	r.dc.Fields = presentFields(doc)
	r.dc.Unsimulated = append(r.dc.Unsimulated, risks(doc)...)
	r.dc.Unsimulated = append(r.dc.Unsimulated, hashRisks(doc)...)
	r.dc.Filters = aclFilters(doc, r.channels)
	r.dc.Sort()
	return *r.dc, nil
}

// portChannel is what a PORTCHANNEL entry gives its members: why it is
// down ("" for up), the PORTCHANNEL_INTERFACE key that gives it an
// address ("" for none), its fallback and its min_links (0 for none)
// (qos.PortConfig.ChannelDown, ChannelAddress, ChannelFallback,
// ChannelMinLinks).
type portChannel struct {
	down     string
	address  string
	fallback string
	minLinks int
}

type resolver struct {
	db *ConfigDB
	// beyond are the pairs of each map table entry, by table|entry, the
	// switch applies beyond the model's 8 traffic classes or queues
	// (decodeDB: a DSCP_TO_TC_MAP's TC 8, a TC_TO_QUEUE_MAP's queue 8 or 9).
	beyond map[string]IntMap
	// channels are the port channels of the member ports
	// (PORTCHANNEL_MEMBER, portChannels).
	channels map[string]string
	// channelOf is what each port channel PORTCHANNEL defines gives its
	// members, by name (portChannels).
	channelOf map[string]portChannel
	// switched are the VLAN_MEMBER entries of the ports in a VLAN
	// (vlanMembers), by port.
	switched map[string]string
	dc       *qos.DeviceConfig
	buffers  bool // the files hold buffer tables
	// dynamic: DEVICE_METADATA gives buffer_model dynamic, so SONiC's
	// buffer manager writes no lossless PGs of its own (buffermgr.go).
	dynamic  bool
	defaults map[[3]string]*qos.Default
	unres    map[[4]string]*qos.Unresolved
	// The ports each default or unresolved reference already lists, so
	// that a switch of many ports resolves in linear time.
	listed map[any]map[string]bool
	// The entries orchagent applies of the ranged tables, by port, in
	// key order, with the indexes each covers (indexKeys, entryFor); the
	// PORT_QOS_MAP keys naming each port, in key order; the ports the
	// keys of these tables name.
	queueKeys               map[string][]rangedKey[QueueEntry]
	bufferQueueKeys, pgKeys map[string][]rangedKey[BufferRefEntry]
	pqmKeys                 map[string][]string
	keyPorts                map[string]bool
	// switchPorts are the ports the switch has, as the PORT table of a
	// whole CONFIG_DB gives them (wholePortTable; nil: not known), read
	// by indexKeys (lacks); lackingEntries the entries naming each port
	// it lacks (namePort).
	switchPorts    map[string]bool
	lackingEntries map[string][]string
	// lab is the lab's switch this config is for (nil: bare files): it
	// says which ports the switch has (lacks).
	lab *qos.Device
	// pqmPriorities are each PORT_QOS_MAP entry's priority lists, by key
	// (readPriorityLists): orchagent's PFC and the buffer manager's
	// lossless PGs read them from here.
	pqmPriorities map[string]priorityLists
	// stalled are the buffer tables orchagent applies nothing of
	// (keyStall); overruled the entries noted as overruled (overrule).
	stalled   map[string]bool
	overruled map[string]bool
	// uncreated are the SCHEDULER and WRED_PROFILE entries orchagent
	// never creates, by table and name, with why (stallObjects).
	uncreated map[[2]string]string
	// cableLengths are CABLE_LENGTH's keys, sorted (cableKeys).
	cableLengths []string
	// maps are the complete maps resolveMap made, by map kind and the
	// table entry they come from ("" the default): the ports that name
	// the same entry share one (qos.PortConfig's maps are read-only).
	maps map[[2]string]map[int]int
	// pqmApplied says, by key, whether orchagent applies a PORT_QOS_MAP
	// entry (portQoSMaps), decided once.
	pqmApplied map[string]bool
}

// cable is the port's cable length in metres as CABLE_LENGTH gives it
// (given false: it does not); of several entries naming the port, the
// last in key order.
func (r *resolver) cable(port string) (m int, given bool, err error) {
	c, err := r.cableEntry(port)
	return c.m, c.given, err
}

// cableLength is what CABLE_LENGTH says of one port: the length, and the
// entry and text it reads it from.
type cableLength struct {
	m           int
	given       bool
	entry, text string
}

// cableEntry is cable with the entry and text the length comes from.
func (r *resolver) cableEntry(port string) (cableLength, error) {
	var c cableLength
	for _, cl := range r.cableKeys() {
		v, ok := r.db.CableLength[cl][port]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(v, "m"))
		if err != nil || !strings.HasSuffix(v, "m") {
			return cableLength{}, entryError("CABLE_LENGTH", cl, port, "CABLE_LENGTH|%s %s %q is not a length like \"5m\"", cl, port, v)
		}
		c = cableLength{m: n, given: true, entry: cl, text: v}
	}
	return c, nil
}

// cableKeys are CABLE_LENGTH's entries, sorted once.
func (r *resolver) cableKeys() []string {
	if r.cableLengths == nil {
		r.cableLengths = append([]string{}, cfgSortedKeys(r.db.CableLength)...)
	}
	return r.cableLengths
}

// list adds port to ports once.
func (r *resolver) list(owner any, ports *[]string, port string) {
	if port == "" {
		return
	}
	if r.listed == nil {
		r.listed = map[any]map[string]bool{}
	}
	seen := r.listed[owner]
	if seen == nil {
		seen = map[string]bool{}
		r.listed[owner] = seen
	}
	if !seen[port] {
		seen[port] = true
		*ports = append(*ports, port)
	}
}

// def records a default applied on a port ("" for the device).
func (r *resolver) def(field, value, source, port string, risky bool) {
	r.defUnapplied(field, value, source, "", port, risky)
}

// defUnapplied is def for a setting the config gives but the switch
// never applies: unapplied names the entry and why ("" for one the config
// leaves out, def).
func (r *resolver) defUnapplied(field, value, source, unapplied, port string, risky bool) {
	k := [3]string{field, value, source + "\x00" + unapplied}
	d := r.defaults[k]
	if d == nil {
		d = &qos.Default{Field: field, Value: value, Source: source, Risky: risky, Unapplied: unapplied}
		r.defaults[k] = d
	}
	r.list(d, &d.Ports, port)
}

// unresolved records a reference that names nothing: no entry has the
// name, or it is written in brackets, a form orchagent refuses
// (bracketRefused).
func (r *resolver) unresolved(where, field, ref, table, effect, port string) {
	why, fix := bracketRefused(ref, table)
	r.note(where, field, ref, table, effect, why, fix, port)
}

// refused is unresolved for an entry the config defines but orchagent
// refuses (rejected says why), so the referring entry gets what it would
// without it.
func (r *resolver) refused(where, field, ref, table, effect, rejected, port string) {
	r.note(where, field, ref, table, effect, rejected, "", port)
}

func (r *resolver) note(where, field, ref, table, effect, rejected, fix, port string) {
	k := [4]string{where, field, ref, table}
	u := r.unres[k]
	if u == nil {
		u = &qos.Unresolved{Where: where, Field: field, Ref: ref, Table: table, Effect: effect, Rejected: rejected, Fix: fix}
		r.unres[k] = u
	}
	r.list(u, &u.Ports, port)
}

// unknownFields says why orchagent refuses an entry holding fields it
// does not know (qosorch's handleSchedulerTable and WredMapHandler refuse
// the whole entry: task_invalid_entry).
func unknownFields(extra map[string]string) string {
	return "orchagent refuses an entry with a field it does not know: " + strings.Join(cfgSortedKeys(extra), ", ")
}

func cmpKey3(a, b [3]string) int {
	return strings.Compare(strings.Join(a[:], "\x00"), strings.Join(b[:], "\x00"))
}
func cmpKey4(a, b [4]string) int {
	return strings.Compare(strings.Join(a[:], "\x00"), strings.Join(b[:], "\x00"))
}

// pools reads BUFFER_POOL.
func (r *resolver) pools() error {
	for _, name := range cfgSortedKeys(r.db.BufferPool) {
		e := r.db.BufferPool[name]
		pl := qos.PoolConfig{Name: name, Type: e.Type, Mode: e.Mode, HeadroomPoolBytes: e.Xoff}
		if pl.Mode == "" {
			pl.Mode = "dynamic"
			r.def("BUFFER_POOL mode", "dynamic", srcYANG, "", false)
		}
		if e.Size == nil {
			return entryError("BUFFER_POOL", name, "", "BUFFER_POOL|%s has no size (fix: give the pool's size in bytes)", name)
		}
		pl.SizeBytes = *e.Size
		if pl.Type != "ingress" && pl.Type != "egress" {
			return entryError("BUFFER_POOL", name, "type", "BUFFER_POOL|%s type %q is neither ingress nor egress (fix: write one of them)", name, pl.Type)
		}
		if pl.Mode != "static" && pl.Mode != "dynamic" {
			return entryError("BUFFER_POOL", name, "mode", "BUFFER_POOL|%s mode %q is neither static nor dynamic (fix: write one of them)", name, pl.Mode)
		}
		r.dc.Pools = append(r.dc.Pools, pl)
	}
	return nil
}

// portNames are the ports the config names, sorted: those its keys name
// (indexKeys) and PORT's.
func (r *resolver) portNames() []string {
	set := maps.Clone(r.keyPorts)
	for name := range r.db.Port {
		set[name] = true
	}
	out := slices.Collect(maps.Keys(set))
	slices.SortFunc(out, qos.ComparePorts)
	return out
}

// mapKind is one of PORT_QOS_MAP's complete maps (portMap): its size, and
// what SAI gives where no map is bound or an entry is missing.
type mapKind struct {
	*portMap
	size int
	// def gives the value of an entry when no map applies (SAI's
	// default), risky whether RoCE depends on it being set.
	def   func(k int) int
	desc  string
	risky bool
}

var mapKinds = []mapKind{
	{portMapOf("dscp_to_tc"), 64, func(int) int { return 0 }, "every DSCP to TC0", true},
	{portMapOf("tc_to_queue"), 8, func(k int) int { return k }, "traffic class n to queue n", false},
	{portMapOf("tc_to_pg"), 8, func(int) int { return 0 }, "every traffic class to PG 0", true},
	{portMapOf("pfc_to_queue"), 8, func(k int) int { return k }, "PFC priority n pauses queue n", false},
}

// pqmEntry is a PORT_QOS_MAP entry with its key.
type pqmEntry struct {
	key string
	*PortQoSMapEntry
}

// portQoSMaps are the PORT_QOS_MAP entries orchagent applies to port, in
// the order it applies them (key order): the port's own and those of
// lists naming it (indexPortQoSMap), less those naming a map or scheduler
// the config does not define. qosorch's handlePortQosMapTable resolves
// every reference of an entry before it applies any field, and on one it
// cannot resolve it retries the whole entry, so none of it applies: no
// maps, no PFC, no watchdog priorities (noted once per entry and port).
// Of several, a later one's maps replace the earlier's, and its pfc_enable
// and pfcwd_sw_enable are the port's, set or not (pfcOf).
func (r *resolver) portQoSMaps(port string) []pqmEntry {
	var out []pqmEntry
	for _, key := range r.pqmKeys[port] {
		e := r.db.PortQoSMap[key]
		if r.pqmEntryApplied(key, e, port) {
			out = append(out, pqmEntry{key, e})
		}
	}
	return out
}

// pqmEntryApplied says whether orchagent applies PORT_QOS_MAP|key (every
// name it gives is defined), deciding once per key; an undefined name is
// noted for port.
func (r *resolver) pqmEntryApplied(key string, e *PortQoSMapEntry, port string) bool {
	// Refused entries are checked again for each port, to note it.
	applied, decided := r.pqmApplied[key]
	if decided && applied {
		return true
	}
	if r.pqmApplied == nil {
		r.pqmApplied = map[string]bool{}
	}
	applied = true
	for _, ref := range portRefs {
		if n := ref.name(e); n != "" && !ref.defined(r.db, n) {
			r.unresolved("PORT_QOS_MAP|"+key, ref.field, n, ref.table,
				"orchagent applies none of the entry (it waits for the name to be defined): the port keeps the default maps (every DSCP to TC0), no PFC and no watchdog priorities", port)
			applied = false
		} else if why := r.notCreated(ref.table, n); n != "" && ref.table != "SCHEDULER" && why != "" {
			// A map qosorch never creates (stallObjects) stays
			// undefined to it.
			r.refused("PORT_QOS_MAP|"+key, ref.field, n, ref.table,
				"orchagent applies none of the entry (it waits for the map to be created): the port keeps the default maps (every DSCP to TC0), no PFC and no watchdog priorities", why, port)
			applied = false
		}
		// A reference given as "" is not one left out: orch.cpp's
		// resolveFieldRefValue reads it as empty, and
		// handlePortQosMapTable waits (task_need_retry) for anything
		// but success, so the whole entry is never applied.
		if e.Blank[ref.field] {
			r.note("PORT_QOS_MAP|"+key, ref.field, `""`, ref.table,
				"orchagent applies none of the entry (it waits for the empty name to resolve): the port keeps the default maps (every DSCP to TC0), no PFC and no watchdog priorities",
				"the field is empty, which orchagent's resolveFieldRefValue reads as no reference and handlePortQosMapTable as one not yet resolved",
				fmt.Sprintf("remove %s from the entry (leaving it out is no %s), or name a %s entry", ref.field, ref.table, ref.table), port)
			applied = false
		}
	}
	// qosorch creates no SCHEDULER of an entry it refuses, so a name of
	// one stays undefined to it.
	if n := e.Scheduler; n != "" {
		if se := r.db.Scheduler[n]; se != nil {
			why := r.notCreated("SCHEDULER", n)
			if why == "" {
				why = schedulerRefused(se)
			}
			if why != "" {
				r.refused("PORT_QOS_MAP|"+key, "scheduler", n, "SCHEDULER",
					"orchagent applies none of the entry (it waits for the scheduler to be created): the port keeps the default maps (every DSCP to TC0), no PFC, no watchdog priorities and no shaper", why, port)
				applied = false
			}
		}
	}
	r.pqmApplied[key] = applied
	return applied
}

// pfcOf is the PORT_QOS_MAP entry that sets a port's PFC and watchdog
// priorities: the last orchagent applies (nil: none). Each entry it
// applies sets the port's PFC to its pfc_enable, none when the entry has
// none, and its watchdog priorities to its pfcwd_sw_enable.
func pfcOf(entries []pqmEntry) *pqmEntry {
	if len(entries) == 0 {
		return nil
	}
	return &entries[len(entries)-1]
}

// lastNaming is the last PORT_QOS_MAP entry orchagent applies to port
// (portQoSMaps) whose field names a table entry, by its key, with the
// name: the one in force, as a later entry's field replaces an earlier
// one's. "" when none names one.
func (r *resolver) lastNaming(port string, field func(*PortQoSMapEntry) string) (name, key string) {
	entries := r.portQoSMaps(port)
	for i := len(entries) - 1; i >= 0; i-- {
		if n := field(entries[i].PortQoSMapEntry); n != "" {
			return n, entries[i].key
		}
	}
	return "", ""
}

// resolveMap is one map of a port: the one its PORT_QOS_MAP entry names
// (the DSCP map also the global entry's), complete, with its origin and
// name, the table entry it is ("" for the default).
func (r *resolver) resolveMap(port string, k mapKind) (m map[int]int, origin, name string) {
	where := ""
	if n, key := r.lastNaming(port, k.name); n != "" {
		name, where = n, "PORT_QOS_MAP|"+key
	}
	// unapplied names the entry giving the port the map that orchagent
	// never applies, where none it applies does.
	unapplied := ""
	if name == "" {
		for _, key := range slices.Backward(r.pqmKeys[port]) {
			if e := r.db.PortQoSMap[key]; k.name(e) != "" && !r.pqmEntryApplied(key, e, port) {
				unapplied = "PORT_QOS_MAP|" + key + ", which orchagent never applies"
				break
			}
		}
	}
	if name == "" && k.key == "dscp_to_tc" {
		if g := r.db.PortQoSMap["global"]; g != nil && g.DSCPToTCMap != "" {
			name, where = g.DSCPToTCMap, "PORT_QOS_MAP|global"
			if why := r.notCreated(k.table, name); why != "" {
				r.refused(where, k.key+"_map", name, k.table, "the switch keeps no global DSCP map: the port uses the default, "+k.desc, why, port)
				name = ""
				unapplied = cmp.Or(unapplied, "PORT_QOS_MAP|global, whose "+k.table+"|"+g.DSCPToTCMap+" orchagent never creates")
			}
		}
	}
	// fill is the map complete: m's entries and the default for the
	// rest; ports that name the same map (or none) share it.
	fill := func(m IntMap, ref string) map[int]int {
		memo := [2]string{k.key, ref}
		if out, ok := r.maps[memo]; ok {
			return out
		}
		out := make(map[int]int, k.size)
		for i := range k.size {
			if v, ok := m[i]; ok {
				out[i] = v
			} else {
				out[i] = k.def(i)
			}
		}
		if r.maps == nil {
			r.maps = map[[2]string]map[int]int{}
		}
		r.maps[memo] = out
		return out
	}
	if name == "" {
		out := fill(nil, "")
		r.defUnapplied("PORT_QOS_MAP "+k.key+"_map", k.desc, srcSAI+": no map bound to the port", unapplied, port, k.risky)
		return out, "default: " + k.desc, ""
	}
	m, ok := k.maps(r.db)[name]
	if !ok {
		r.unresolved(where, k.key+"_map", name, k.table, "the port uses the default, "+k.desc, port)
		return fill(nil, ""), "default (unresolved " + k.table + "|" + name + "): " + k.desc, ""
	}
	if len(m) < k.size {
		var missing []int
		for i := range k.size {
			if _, ok := m[i]; !ok {
				missing = append(missing, i)
			}
		}
		if len(missing) < k.size {
			r.def(k.table+"|"+name+" entries it does not list", fmt.Sprintf("%s (for %s)", k.desc, qos.FormatInts(missing)), srcSAI, port, false)
		}
	}
	return fill(m, "="+name), k.table + "|" + name + " via " + where, name
}

// port resolves one port.
func (r *resolver) port(name string) (qos.PortConfig, error) {
	pc := qos.PortConfig{Name: name, Fabric: true, PFCPriorities: []int{}, Trust: qos.TrustDSCP, Origins: map[string]string{}}
	for _, k := range mapKinds {
		m, origin, entry := r.resolveMap(name, k)
		pc.Origins[k.key] = origin
		*k.model(&pc) = m
		switch {
		case entry == "":
		case k.key == "dscp_to_tc":
			pc.BeyondTC = r.beyond["DSCP_TO_TC_MAP|"+entry]
		case k.key == "tc_to_queue":
			pc.BeyondQueue = r.beyond["TC_TO_QUEUE_MAP|"+entry]
		}
	}
	// SONiC classifies IP packets by DSCP whenever a DSCP map is bound;
	// there is no trust knob.
	pc.Origins["trust"] = "SONiC classifies IP by DSCP"
	// pfcwd_sw_enable is the bitmap orchagent starts the watchdog on
	// (qosorch's setPortPfcWatchdogStatus, pfcwdorch's startWdOnPort): a
	// PFC priority left out of it is not watched, and with none listed
	// ("") pfcwdorch finds no lossless TC on the port and starts no
	// watchdog there, whatever PFC_WD says. Without the field it is the
	// same: handlePortQosMapTable sets the bitmap unconditionally, from a
	// mask that starts at 0, and pfcwdorch's getLosslessTcsForPort finds
	// no lossless TC (sonic-utilities' db_migrator fills the field from
	// pfc_enable only when it migrates a config from before the field).
	var wdPriorities []int
	wdKey := "" // the PORT_QOS_MAP entry that gave the port its lists
	// The partial maps (the PFC priority to PG map: which PG's XOFF sends
	// each priority's PFC frames; egress remarking: the DSCP the port
	// writes into each class's packets), where an entry applied to the
	// port names one (the last such, as for the other maps). Without one
	// (or with one of no entries, which CONFIG_DB cannot hold: a Redis
	// hash has fields) the port does what it does without the map: each
	// PFC priority is paused by the PG its traffic class fills, packets
	// keep their DSCP. The tables' parse refused keys and values out of
	// range.
	for _, pm := range portMaps {
		if !pm.partial {
			continue
		}
		if n, key := r.lastNaming(name, pm.name); n != "" {
			if m := pm.maps(r.db)[n]; len(m) > 0 {
				*pm.model(&pc) = maps.Clone(map[int]int(m))
				pc.Origins[pm.key] = pm.table + "|" + n + " via PORT_QOS_MAP|" + key
			}
		}
	}
	// The port's pfcwd_sw_enable bitmap as orchagent holds it
	// (PortsOrch's m_pfcwd_sw_bitmask), for BIG_RED_SWITCH.
	var wdMask []int
	wdUnset := "" // the applied entry's key, where it gives no pfcwd_sw_enable
	if e := pfcOf(r.portQoSMaps(name)); e != nil {
		lists := r.pqmPriorities[e.key]
		pc.PFCPriorities = slices.Clone(lists.pfc)
		if lists.watchdogSet {
			wdMask = lists.watchdog
			wdPriorities = slices.Clone(lists.watchdog)
			wdKey = e.key
		} else {
			wdUnset = e.key
		}
		if len(wdPriorities) > 0 {
			pc.Watchdog = &qos.PortWatchdog{DetectionMs: cfgDefaultWDDetection, RestorationMs: cfgDefaultWDRestoration, Action: cfgDefaultWDAction}
		}
	}
	if w := r.db.PFCWD[name]; w != nil {
		if w.DetectionTime == nil || w.RestorationTime == nil {
			return pc, entryError("PFC_WD", name, "", "PFC_WD|%s: detection_time and restoration_time must both be given in milliseconds (fix: add both, e.g. 200)", name)
		}
		action := w.Action
		if action == "" {
			action = cfgDefaultWDAction
			r.def("PFC_WD action", cfgDefaultWDAction, srcPFCWD, name, false)
		}
		pc.Watchdog = &qos.PortWatchdog{DetectionMs: *w.DetectionTime, RestorationMs: *w.RestorationTime, Action: action}
		// pfcwdorch's createEntry refuses the entry (task_invalid_entry)
		// and starts no watchdog on the port (watchdogRefused).
		if why := watchdogRefused(w); why != "" {
			r.overrule("PFC_WD", name, true,
				"pfcwdorch refuses the entry ("+why+"), so the port runs no PFC watchdog: a pause storm there is never declared",
				fmt.Sprintf("give only detection_time (%d-%d ms), restoration_time (%d-%d ms), action and pfc_stat_history (enable or disable) (SONiC's default times are %d and %d)", cfgWDDetectionMin, cfgWDDetectionMax, cfgWDRestorationMin, cfgWDRestorationMax, cfgDefaultWDDetection, cfgDefaultWDRestoration),
				[]string{name})
			pc.Watchdog = nil
		}
	} else if pc.Watchdog != nil {
		// pfcwdorch starts a port's watchdog only from its PFC_WD entry,
		// which `pfcwd start_default` writes at boot where DEVICE_METADATA's
		// default_pfcwd_status is enable: labctl assumes it was, and says so.
		r.def("PFC_WD (pfcwd_sw_enable without an entry)", fmt.Sprintf("detection %d ms, restoration %d ms, action %s, as pfcwd start_default writes at boot (default_pfcwd_status enable); without that entry the switch runs no watchdog on the port", cfgDefaultWDDetection, cfgDefaultWDRestoration, cfgDefaultWDAction), srcPFCWD, name, true)
	}
	if pc.Watchdog != nil && wdUnset != "" && len(pc.PFCPriorities) > 0 {
		r.overrule("PORT_QOS_MAP", wdUnset, false,
			"the entry gives no pfcwd_sw_enable, so orchagent holds the port's watchdog bitmap at 0 (handlePortQosMapTable sets it from the field, unconditionally) and pfcwdorch finds no lossless TC to start the watchdog on (getLosslessTcsForPort), whatever PFC_WD says: a pause storm there is never declared",
			fmt.Sprintf("add pfcwd_sw_enable %q, the port's PFC priorities, to watch them", qos.FormatInts(pc.PFCPriorities)),
			[]string{name})
		pc.Watchdog = nil
	}
	if pc.Watchdog != nil && wdPriorities != nil && len(wdPriorities) == 0 && len(pc.PFCPriorities) > 0 {
		r.overrule("PORT_QOS_MAP", wdKey, false,
			"pfcwd_sw_enable is empty, so orchagent gives the port's PFC watchdog no priority to watch and pfcwdorch starts none (no lossless TC found), whatever PFC_WD says: a pause storm there is never declared",
			fmt.Sprintf("write pfcwd_sw_enable %q, the port's PFC priorities, to watch them", qos.FormatInts(pc.PFCPriorities)),
			[]string{name})
		pc.Watchdog = nil
	}
	// Watching every PFC priority is the model's nil (a priority without
	// PFC is never paused, so watching it changes nothing).
	unwatched := func(tc int) bool { return !slices.Contains(wdPriorities, tc) }
	if pc.Watchdog != nil && wdPriorities != nil && slices.ContainsFunc(pc.PFCPriorities, unwatched) {
		pc.Watchdog.Priorities = wdPriorities
	}
	pc.WatchdogDrop = r.bigRedSwitch(wdMask)
	pc.ManagerLossless = r.managerLossless(&pc)
	if err := r.portLink(&pc); err != nil {
		return pc, err
	}
	if err := r.portShaper(&pc); err != nil {
		return pc, err
	}
	for q := range qos.NumTC {
		qc, err := r.queue(name, q)
		if err != nil {
			return pc, err
		}
		pc.Queues = append(pc.Queues, qc)
	}
	if !r.buffers {
		pc.BufferUnknown = true
		return pc, nil
	}
	used := map[int]bool{}
	for _, g := range pc.TCToPG {
		used[g] = true
	}
	for _, k := range r.pgKeys[name] {
		for _, g := range k.idx {
			used[g] = true
		}
	}
	// The PGs buffermgrd writes exist on the switch whether or not a
	// traffic class maps to them (their headroom is reserved all the
	// same), also where orchagent gives the port no map.
	for g := range qos.NumTC {
		if r.managerPG(&pc, g).key != "" {
			used[g] = true
		}
	}
	for _, g := range slices.Sorted(maps.Keys(used)) {
		pg, err := r.pg(&pc, g)
		if err != nil {
			return pc, err
		}
		pc.PGs = append(pc.PGs, pg)
	}
	return pc, nil
}

// portShaper reads the port's own shaper: the SCHEDULER its PORT_QOS_MAP
// scheduler names, which qosorch sets as the port's scheduler
// (SAI_PORT_ATTR_QOS_SCHEDULER_PROFILE_ID; SAI reads only its peak rate
// and burst there), read as a queue's shaper is (shaper). Of several
// entries orchagent applies to the port, the last that names a scheduler
// sets it, as with the maps; PORT_QOS_MAP|global shapes no port
// (qosorch's global entry sets the switch's DSCP map only). An entry
// naming a scheduler the config does not define, or one orchagent
// refuses, applies none of its fields (pqmEntryApplied).
func (r *resolver) portShaper(pc *qos.PortConfig) error {
	sched, key := r.lastNaming(pc.Name, func(e *PortQoSMapEntry) string { return e.Scheduler })
	se := r.db.Scheduler[sched]
	if sched == "" || se == nil {
		return nil
	}
	if err := schedulerTypeError(sched, se); err != nil {
		return err
	}
	sh, err := r.shaper(sched, se, pc.Name)
	if err != nil || sh == nil {
		return err
	}
	pc.Shaper = sh
	pc.Origins["shaper"] = "SCHEDULER|" + sched + " via PORT_QOS_MAP|" + key
	return nil
}

// adminDown says why portmgr keeps a port administratively down ("" up).
// portmgr's doTask sets a port up only for admin_status "up"; a port it
// sets for the first time without the field gets DEFAULT_ADMIN_STATUS_STR,
// down. Whether the entry is all the switch has of the port is read from
// lanes, which sonic-port.yang requires of a port's entry: an entry
// without them is a few fields `config load` merges onto the switch's own
// PORT entry (labctl's rendered pfc_asym), whose admin_status stays, so
// labctl takes the port as up there, as its boot config
// (fabric.WriteSonicStartup) sets every wired port.
func adminDown(port string, e *PortEntry) string {
	switch {
	case e.AdminStatus == "up":
		return ""
	case e.AdminStatus != "":
		return fmt.Sprintf("PORT|%s admin_status %q", port, e.AdminStatus)
	case e.Extra["lanes"] != "":
		return fmt.Sprintf("PORT|%s gives the port's lanes but no admin_status, and portmgr's default is down", port)
	}
	return ""
}

var cfgPGProfileRE = lazyregexp.New(`^pg_lossless_(\d+)_(\d+)m_profile$`)

// portLink reads a port's speed, MTU and cable length.
func (r *resolver) portLink(pc *qos.PortConfig) error {
	// A port whose PORT entry sets no mtu portsorch takes runs at SONiC's
	// default (cfgDefaultPortMTU), as lint and the simulator hold it.
	defaultMTU := "sets no mtu"
	pc.Channel = r.channels[pc.Name]
	// SONiC's members always run LACP active (teammgrd's addLag), the
	// "" of ChannelMode.
	pch := r.channelOf[pc.Channel]
	pc.ChannelDown, pc.ChannelAddress, pc.ChannelFallback = pch.down, pch.address != "", pch.fallback
	if pc.ChannelMinLinks = pch.minLinks; pc.ChannelMinLinks > 0 {
		// The entry, which parse places at its line.
		pc.Origins["channel_min_links"] = fmt.Sprintf("PORTCHANNEL|%s min_links %q", pc.Channel, strconv.Itoa(pch.minLinks))
	}
	if pch.address != "" {
		// The key, which the renderer writes back (the model keeps no
		// address).
		pc.Origins["channel_address"] = pch.address
	}
	if pc.Switched = r.switched[pc.Name]; pc.Switched != "" {
		// The entry's tagging_mode, which the renderer writes back
		// (sonic-vlan.yang's VLAN_MEMBER_LIST makes it mandatory).
		if m := r.db.VlanMember[strings.TrimPrefix(pc.Switched, "VLAN_MEMBER|")]["tagging_mode"]; m != "" {
			pc.Origins["tagging_mode"] = m
		}
	}
	if e := r.db.Port[pc.Name]; e != nil {
		pc.AdminDown = adminDown(pc.Name, e)
		if e.Speed != nil {
			pc.SpeedGbps = *e.Speed / 1000
		}
		if adv := advSpeeds(e); adv != nil {
			pc.AdvSpeedsGbps = adv
			pc.Origins["adv_speeds"] = "PORT|" + pc.Name + " adv_speeds"
		}
		if field, what := portNegotiationRefused(e); field != "" {
			// portsorch's parsePortConfig fails on the field and
			// doPortTask drops the port's whole task.
			r.overrule("PORT", pc.Name, true,
				fmt.Sprintf("%s is not a value portsorch takes (%s): loaded into a running switch, the port's whole change is dropped (doPortTask), so none of its fields apply; at a cold start (a reboot, config reload) portsorch refuses the port's whole entry and does not create the port", field, what),
				"write autoneg on or off, and adv_speeds as all or speeds in Mb/s separated by commas (100000,400000), or leave them out",
				[]string{pc.Name})
		}
		if e.MTU != "" || e.Blank["mtu"] {
			if m, ok := portMTU(e.MTU); ok {
				pc.MTU, defaultMTU = m, ""
			} else {
				// portmgrd's ip link set refuses it, or portsorch does
				// (parsePortMtu): the port keeps the MTU it has.
				defaultMTU = fmt.Sprintf("sets no mtu portsorch takes (it refuses mtu %q)", e.MTU)
				r.overrule("PORT", pc.Name, true,
					fmt.Sprintf("mtu %q is not an MTU portsorch takes (parsePortMtu: a whole number %d-%d, as sonic-port.yang's range, which config apply-patch checks): loaded into a running switch, the port keeps the MTU it has (labctl: SONiC's default %d, which lint and the simulator hold the lab's packets to); at a cold start (a reboot, config reload) portsorch refuses the port's whole entry and does not create the port", e.MTU, cfgPortMTUMin, cfgPortMTUMax, cfgDefaultPortMTU),
					fmt.Sprintf("write an mtu of %d-%d in decimal digits (%d is SONiC's default), or leave it out for the switch's own", cfgPortMTUMin, cfgPortMTUMax, cfgDefaultPortMTU),
					[]string{pc.Name})
			}
		}
		switch {
		case e.FEC == "":
			if e.Blank["fec"] {
				return entryError("PORT", pc.Name, "fec", "PORT|%s fec \"\": portsorch refuses an empty value with the port's whole entry (parsePortFec: empty value is prohibited), so none of its fields apply (fix: write %s, as the link's other end has it, or leave fec out for the switch's own mode)", pc.Name, sonicFECList)
			}
		case slices.Contains(sonicFECModes[:], e.FEC):
			pc.FEC = e.FEC
		default:
			// portsorch's parsePortFec (orchagent/port/porthlpr.cpp) fails
			// on it, and doPortTask skips the port's whole update.
			return entryError("PORT", pc.Name, "fec", "PORT|%s fec %q is not a FEC mode portsorch knows: it refuses the port's whole entry (parsePortFec), so none of its fields apply (fix: write %s, in lower case, as the link's other end has it)", pc.Name, e.FEC, sonicFECList)
		}
		switch e.PFCAsym {
		case "", "off":
		case "on":
			pc.PFCAsym = true
		default:
			return entryError("PORT", pc.Name, "pfc_asym", "PORT|%s pfc_asym %q is not on or off, the modes portsorch takes (fix: write on or off, or leave it out for off)", pc.Name, e.PFCAsym)
		}
	}
	if defaultMTU != "" {
		pc.DefaultMTU = cfgDefaultPortMTU
		pc.Origins["mtu"] = "SONiC's default: the port's PORT entry " + defaultMTU + ", and labctl assumes the port runs at the default, as from a config reload; a file config load merges leaves the switch's own MTU"
		r.def("PORT mtu", fmt.Sprintf("%d bytes", cfgDefaultPortMTU), srcPortMTU, pc.Name, false)
	}
	m, given, err := r.cable(pc.Name)
	if err != nil {
		return err
	}
	if given {
		pc.CableM = m
	}
	// A lossless profile's name carries speed and cable when nothing else
	// does (a buffer file without PORT and CABLE_LENGTH).
	for _, k := range r.pgKeys[pc.Name] {
		e := k.entry
		if m := cfgPGProfileRE().FindStringSubmatch(e.Profile); m != nil {
			mbps, _ := strconv.Atoi(m[1])
			cable, _ := strconv.Atoi(m[2])
			if pc.SpeedGbps == 0 {
				pc.SpeedGbps = mbps / 1000
			}
			if pc.CableM == 0 {
				pc.CableM = cable
			}
		}
	}
	return nil
}

// rangedKey is an entry of a ranged table that orchagent applies to a
// port, with its key and the indexes it covers, read once per key rather
// than once per lookup.
type rangedKey[E any] struct {
	key   string
	idx   []int
	entry *E
}

// entryFor finds the entry of a ranged table (QUEUE, BUFFER_PG,
// BUFFER_QUEUE) that covers index i of a port: a key "Ethernet0|3",
// "Ethernet0|0-2" or "Ethernet0,Ethernet4|3". The last key in sorted
// order wins when several do: orchagent applies the entries it reads
// together in key order (Consumer's m_toSync is a map by key).
func entryFor[E any](byPort map[string][]rangedKey[E], port string, i int) (string, *E) {
	key, found := "", (*E)(nil)
	for _, k := range byPort[port] {
		if slices.Contains(k.idx, i) {
			key, found = k.key, k.entry
		}
	}
	return key, found
}

// queue resolves queue q of a port: scheduler, WRED and buffer. Several
// QUEUE entries may cover the queue ("Ethernet0|3" and "Ethernet0|3-4"):
// qosorch applies them in key order (Consumer's m_toSync is a map by
// key), each as a whole or not at all (queueEntryApplies), and field by
// field: handleQueueTable changes the queue's scheduler only for an entry
// that gives one, and its WRED profile only for one that gives one
// (donotChangeScheduler, donotChangeWredProfile), so a later entry
// without a field leaves the queue the one an earlier entry gave it.
func (r *resolver) queue(port string, q int) (qos.QueueConfig, error) {
	qc := qos.QueueConfig{Queue: q}
	var covering []rangedKey[QueueEntry]
	for _, k := range r.queueKeys[port] {
		if slices.Contains(k.idx, q) {
			covering = append(covering, k)
		}
	}
	sched, wred := "", ""
	var schedKey, wredKey string
	applied := 0
	for _, k := range covering {
		if !r.queueEntryApplies(k.key, k.entry, port, len(covering) > 1) {
			continue
		}
		applied++
		if k.entry.Scheduler != "" {
			r.queueFieldOverlap(port, q, "scheduler", schedKey, sched, k.key, k.entry.Scheduler)
			sched, schedKey = k.entry.Scheduler, k.key
		}
		if k.entry.WREDProfile != "" {
			r.queueFieldOverlap(port, q, "wred_profile", wredKey, wred, k.key, k.entry.WREDProfile)
			wred, wredKey = k.entry.WREDProfile, k.key
		}
	}
	var origin []string
	for _, k := range []string{schedKey, wredKey} {
		if k != "" && !slices.Contains(origin, "QUEUE|"+k) {
			origin = append(origin, "QUEUE|"+k)
		}
	}
	if len(origin) == 0 && len(covering) > 0 {
		origin = append(origin, "QUEUE|"+covering[len(covering)-1].key)
	}
	se, we := r.db.Scheduler[sched], r.db.WRED[wred]
	notApplied := applied == 0 && len(covering) > 0
	switch {
	case notApplied:
		qc.Weight = 1
		return r.queueBuffer(qc, port, q, origin)
	case sched == "":
		qc.Weight = 1
		r.def("QUEUE scheduler", "DWRR weight 1", srcSAI+": a queue without a scheduler profile", port, false)
	default:
		switch se.Type {
		case "STRICT":
			qc.Strict = true
		case "DWRR", "WRR", "":
			if se.Type == "" {
				r.def("SCHEDULER type", "DWRR", srcYANG, port, false)
			}
			qc.Weight = 1
			if se.Weight != nil {
				qc.Weight = schedulerWeight(*se.Weight)
			} else {
				r.def("SCHEDULER weight", "1", srcYANG, port, false)
			}
		default:
			return qc, schedulerTypeError(sched, se)
		}
		sh, err := r.shaper(sched, se, port)
		if err != nil {
			return qc, err
		}
		qc.Shaper = sh
	}
	if wred != "" {
		if err := r.wred(&qc, wred, we, port); err != nil {
			return qc, err
		}
	}
	return r.queueBuffer(qc, port, q, origin)
}

// queueEntryApplies says whether qosorch applies the QUEUE entry key to
// port's queues, noting it where it does not: handleQueueTable resolves
// the entry's scheduler and then its wred_profile, and applies either
// only once both resolve: a reference to an entry that is not there, or
// that orchagent refused (it never created the object), makes it retry
// the whole QUEUE entry (task_need_retry). others says other entries
// cover the queue too, whose fields it then keeps.
func (r *resolver) queueEntryApplies(key string, e *QueueEntry, port string, others bool) bool {
	keeps := "the default scheduling (DWRR weight 1) and has no WRED: it neither marks ECN nor drops early"
	if others {
		keeps = "what the other QUEUE entries covering it give it, or else the default scheduling (DWRR weight 1) and no WRED"
	}
	whole := "orchagent applies none of the QUEUE entry until both its scheduler and its wred_profile resolve, so the queue keeps " + keeps
	ok := true
	// check notes reference ref of field to table where it names nothing
	// (found false), or an object never created (a table stall) or
	// refused as it stands (refusedWhy, read only where found).
	check := func(field, ref, table string, found bool, refusedWhy func() string) {
		switch {
		case ref == "":
		case !found:
			r.unresolved("QUEUE|"+key, field, ref, table, whole, port)
			ok = false
		default:
			if why := cmp.Or(r.notCreated(table, ref), refusedWhy()); why != "" {
				r.refused("QUEUE|"+key, field, ref, table, whole, why, port)
				ok = false
			}
		}
	}
	se, found := r.db.Scheduler[e.Scheduler]
	check("scheduler", e.Scheduler, "SCHEDULER", found, func() string { return schedulerRefused(se) })
	we, found := r.db.WRED[e.WREDProfile]
	check("wred_profile", e.WREDProfile, "WRED_PROFILE", found, func() string {
		if len(we.Extra) > 0 {
			return unknownFields(we.Extra) // a field orchagent does not know
		}
		return ""
	})
	return ok
}

// queueFieldOverlap notes two QUEUE entries that both apply to queue q of
// port and give it different values of one field (earlier, in key order,
// before later): the queue keeps the one applied last, which is the
// later in key order when qosorch reads both in one batch, but the one
// written last when they reach it apart (qosorch reads CONFIG_DB's QUEUE
// table as its keys are written), so the config does not decide it.
func (r *resolver) queueFieldOverlap(port string, q int, field, earlierKey, earlier, laterKey, later string) {
	if earlierKey == "" || earlier == later {
		return
	}
	_, ei, _ := strings.Cut(earlierKey, "|")
	_, li, _ := strings.Cut(laterKey, "|")
	what := fmt.Sprintf("QUEUE entries <port>|%s (%s %s) and <port>|%s (%s %s) both give queue %d of the port a %s: qosorch applies each entry's fields to the queues it names, and the queue keeps the one applied last: the later in key order when qosorch reads both in one batch (a config load), else the one written last, so the config does not decide it; labctl takes %s", ei, field, earlier, li, field, later, q, field, later)
	r.overrule("QUEUE", earlierKey, false, what, "give each queue's "+field+" in one QUEUE entry: split or remove the entries so that no queue is named twice with a "+field, []string{port})
}

// schedulerWeight is the weight a SCHEDULER entry's weight gives the
// queue: qosorch writes it to SAI as a uint8 ((uint8_t)stoi(value)), so 300
// is 44 (schedulerRefused refuses what that leaves outside SAI's 1-100).
func schedulerWeight(w int) int { return int(uint8(w)) }

// schedulerRefused says why orchagent creates no scheduler object for a
// SCHEDULER entry ("" when it does): a field its handleSchedulerTable does
// not know (type, weight, meter_type, cir, cbs, pir and pbs are the ones it
// does: "Unknown field", task_invalid_entry), or a DWRR or WRR weight that
// SAI refuses once qosorch has truncated it to a uint8 (SAI's scheduling
// weight is 1-100, saischeduler.h): every QUEUE entry naming it then
// retries for ever.
func schedulerRefused(se *SchedulerEntry) string {
	if len(se.Extra) > 0 {
		return unknownFields(se.Extra)
	}
	if se.Weight != nil && se.Type != "STRICT" {
		if w := schedulerWeight(*se.Weight); w < 1 || w > 100 {
			if w != *se.Weight {
				return fmt.Sprintf("its weight %d reaches SAI as %d (qosorch writes it as a uint8), outside SAI's scheduling weights 1-100, so the scheduler is not created", *se.Weight, w)
			}
			return fmt.Sprintf("its weight %d is outside SAI's scheduling weights 1-100, so the scheduler is not created", *se.Weight)
		}
	}
	return ""
}

// queueBuffer completes queue q of port with its egress buffer profile
// (BUFFER_QUEUE, which bufferorch applies on its own, whatever QUEUE's
// entry does) and the entries it came from.
func (r *resolver) queueBuffer(qc qos.QueueConfig, port string, q int, origin []string) (qos.QueueConfig, error) {
	if r.buffers {
		bkey, be := entryFor(r.bufferQueueKeys, port, q)
		if !r.stalled["BUFFER_QUEUE"] {
			// processQueue, as processPriorityGroup, applies an entry
			// only once its profile resolves (appliedBufferEntry).
			if k, _ := r.appliedBufferEntry("BUFFER_QUEUE", "queue", queueWithoutProfile, r.bufferQueueKeys[port], q,
				func(k rangedKey[BufferRefEntry]) bool { return queueBufferApplies(r.db.BufferProfile[k.entry.Profile]) }, "",
				func(k rangedKey[BufferRefEntry], effect string) {
					r.noteQueueBuffer(port, k.key, k.entry.Profile, effect)
				}); k != nil {
				bkey, be = k.key, k.entry
			}
			cands := slices.DeleteFunc(bufferCandidates(r.bufferQueueKeys[port], q), func(c bufferCandidate) bool {
				return !queueBufferApplies(r.db.BufferProfile[c.profile])
			})
			if len(cands) > 1 {
				r.overlapping("BUFFER_QUEUE", "queue", port, cands)
			}
		}
		prof := ""
		if be != nil {
			prof = be.Profile
			origin = append(origin, "BUFFER_QUEUE|"+bkey)
		}
		switch pe := r.db.BufferProfile[prof]; {
		case prof == "" || prof == "NULL":
			r.def("BUFFER_QUEUE", "no buffer profile: no egress limit", srcSAI+": a queue without a buffer profile", port, false)
		case !queueBufferApplies(pe):
			r.noteQueueBuffer(port, bkey, prof, queueWithoutProfile)
		default:
			bp, err := r.profile(prof, pe, port, true)
			if err != nil {
				return qc, err
			}
			qc.Buffer = &bp
		}
	}
	qc.Origin = strings.Join(origin, ", ")
	return qc, nil
}

// queueBufferApplies says whether bufferorch applies a BUFFER_QUEUE entry
// whose profile is pe (nil: not defined): processQueue retries one whose
// profile it has not created (task_need_retry), and fails one without
// a profile field.
func queueBufferApplies(pe *BufferProfileEntry) bool {
	return pe != nil && profileRefused(pe) == ""
}

// noteQueueBuffer notes why bufferorch never applies the BUFFER_QUEUE
// entry key, whose profile is prof, on port, and effect, what the queue
// keeps instead.
func (r *resolver) noteQueueBuffer(port, key, prof, effect string) {
	switch pe, ok := r.db.BufferProfile[prof]; {
	case prof == "":
		r.noProfileEntry("BUFFER_QUEUE", key, r.db.BufferQueue[key], effect, port)
	case !ok:
		r.unresolved("BUFFER_QUEUE|"+key, "profile", prof, "BUFFER_PROFILE", effect, port)
	default:
		if why := profileRefused(pe); why != "" {
			r.refused("BUFFER_QUEUE|"+key, "profile", prof, "BUFFER_PROFILE", effect, why, port)
		}
	}
}

// schedulerTypeError is the error of a SCHEDULER entry whose type
// qosorch does not know (it refuses the entry), nil for STRICT, DWRR,
// WRR or none.
//
// qosorch compares the exact names: "dwrr" is an unknown type to it as
// "fifo" is (it logs "Unknown scheduler type value" and refuses the entry,
// and the queues naming it keep SAI's default scheduling).
func schedulerTypeError(sched string, se *SchedulerEntry) error {
	switch se.Type {
	case "STRICT", "DWRR", "WRR", "":
		return nil
	}
	if up := strings.ToUpper(se.Type); up == "STRICT" || up == "DWRR" || up == "WRR" {
		return entryError("SCHEDULER", sched, "type", "SCHEDULER|%s type %q: orchagent knows the upper-case names only and refuses the entry, so its queues would keep the switch's default scheduling (fix: write %q)", sched, se.Type, up)
	}
	return entryError("SCHEDULER", sched, "type", "SCHEDULER|%s type %q is not STRICT, DWRR or WRR (fix: use one of them)", sched, se.Type)
}

// shaper reads a SCHEDULER entry's peak rate, as qosorch programs it,
// for a queue and for a port alike: pir is
// SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE, pbs
// SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_BURST_RATE, in the unit meter_type
// names (SAI_SCHEDULER_ATTR_METER_TYPE: bytes, the YANG default, or
// packets). A byte meter is a rate in kb/s and a burst in bytes; a packet
// meter a rate in packets per second and a burst in packets
// (Shaper.PacketsPerSec, BurstPackets). nil: the queue (the port) is not
// shaped (no pir, or pir 0).
func (r *resolver) shaper(sched string, se *SchedulerEntry, port string) (*qos.Shaper, error) {
	meter := strings.TrimSpace(se.MeterType)
	switch meter {
	case "", "bytes", "packets":
	default:
		// qosorch looks the value up in its map of the two and stops on
		// any other.
		return nil, entryError("SCHEDULER", sched, "meter_type", "SCHEDULER|%s meter_type %q is not bytes or packets (fix: write bytes, the default, or packets)", sched, se.MeterType)
	}
	count := func(field, v, unit string) (int64, error) {
		v = strings.TrimSpace(v)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, entryError("SCHEDULER", sched, field, "SCHEDULER|%s %s %q is not a non-negative integer (fix: write the %s as a whole number, as a CONFIG_DB string, or remove %s)", sched, field, v, unit, field)
		}
		return n, nil
	}
	rateUnit, burstUnit := "peak rate in bytes per second", "burst in bytes"
	if meter == "packets" {
		rateUnit, burstUnit = "peak rate in packets per second", "burst in packets"
	}
	pir, err := count("pir", se.PIR, rateUnit)
	if err != nil {
		return nil, err
	}
	pbs, err := count("pbs", se.PBS, burstUnit)
	if err != nil {
		return nil, err
	}
	if pir == 0 {
		return nil, nil
	}
	switch meter {
	case "packets":
		return &qos.Shaper{PacketsPerSec: pir, BurstPackets: pbs}, nil
	case "":
		r.def("SCHEDULER meter_type", "bytes (pir and pbs in bytes)", srcYANG, port, false)
	}
	// pir*8/1000 kb/s: pir/125 does not overflow. A rate below 1 kb/s is
	// held as 1, the least the model holds.
	kbps := max(pir/125, 1)
	return &qos.Shaper{RateKbps: kbps, BurstBytes: pbs}, nil
}

// wred reads a WRED profile into a queue: green to ECN (marked) or Drop,
// yellow and red to the rest of the profile.
func (r *resolver) wred(qc *qos.QueueConfig, name string, we *WREDEntry, port string) error {
	mode := we.ECN
	if mode == "" {
		mode = "ecn_none"
		r.def("WRED_PROFILE ecn", "ecn_none (no colour marked)", "SAI default (SAI_WRED_ATTR_ECN_MARK_MODE NONE)", port, we.GreenMin != nil)
	}
	switch mode {
	case "ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red", "ecn_yellow_red", "ecn_all":
	default:
		return entryError("WRED_PROFILE", name, "ecn", "WRED_PROFILE|%s ecn %q is not one of ecn_none, ecn_green, ecn_yellow, ecn_red, ecn_green_yellow, ecn_green_red, ecn_yellow_red, ecn_all (fix: ecn_all marks every colour, as RoCE needs)", name, mode)
	}
	colour := func(c string, enable *bool, lo, hi *int64, prob *float64) (*qos.ECNConfig, error) {
		if enable == nil {
			if lo != nil || hi != nil {
				r.def("WRED_PROFILE wred_"+c+"_enable", "false: "+c+" WRED off", "SAI default (SAI_WRED_ATTR_"+strings.ToUpper(c)+"_ENABLE)", port, c == "green")
			}
			return nil, nil
		}
		if !*enable {
			return nil, nil
		}
		if lo == nil || hi == nil {
			return nil, entryError("WRED_PROFILE", name, "wred_"+c+"_enable", "WRED_PROFILE|%s: wred_%s_enable is true but %s_min_threshold or %s_max_threshold is missing (fix: give both thresholds in bytes)", name, c, c, c)
		}
		p := 100.0
		if prob != nil {
			// qosorch reads the percentage with stoi: 20.0 is 20, 0.5
			// is 0 (which marks nothing below Kmax).
			p = math.Trunc(*prob)
		} else {
			r.def("WRED_PROFILE "+c+"_drop_probability", "100", "SAI default", port, false)
		}
		return &qos.ECNConfig{MinBytes: *lo, MaxBytes: *hi, Pmax: p / 100}, nil
	}
	green, err := colour("green", we.GreenEnable, we.GreenMin, we.GreenMax, we.GreenProbability)
	if err != nil {
		return err
	}
	if green != nil {
		if qos.MarksColour(mode, "green") {
			qc.ECN = green
		} else {
			qc.Drop = green
		}
	}
	wp := &qos.WREDProfile{Name: name}
	for _, c := range []struct {
		name   string
		enable *bool
		lo, hi *int64
		prob   *float64
		dst    **qos.WREDColour
	}{{"yellow", we.YellowEnable, we.YellowMin, we.YellowMax, we.YellowProb, &wp.Yellow}, {"red", we.RedEnable, we.RedMin, we.RedMax, we.RedProb, &wp.Red}} {
		e, err := colour(c.name, c.enable, c.lo, c.hi, c.prob)
		if err != nil {
			return err
		}
		if e != nil {
			*c.dst = &qos.WREDColour{ECNConfig: *e, Mark: qos.MarksColour(mode, c.name)}
		}
	}
	qc.WRED = wp
	return nil
}

// pg resolves priority group g of a port.
//
// Of the entries covering the PG, bufferorch applies only those whose
// profile resolves (pgEntryApplies): the PG keeps the last of those in
// key order, and every entry it never applies, before that one or after,
// is noted with what the PG has (appliedBufferEntry, notePGEntry). Where
// none applies, the PG has no profile.
func (r *resolver) pg(pc *qos.PortConfig, g int) (qos.PGConfig, error) {
	key, e := entryFor(r.pgKeys, pc.Name, g)
	m := r.managerPG(pc, g)
	// Entries that overlap on the PG, the buffer manager's own among
	// them: the last in key order that bufferorch applies is the
	// model's (overlapping).
	managedWins, neverApplied := false, ""
	if !r.stalled["BUFFER_PG"] {
		// buffermgrd's own entry, not in the config, is applied in its
		// place in key order: the PG is its where it comes last of
		// those applied and the config has any entry on the PG.
		managed := ""
		if m.key != "" && r.db.BufferPG[m.key] == nil {
			managed = m.key
		}
		k, byManager := r.appliedBufferEntry("BUFFER_PG", "PG", pgWithoutProfile, r.pgKeys[pc.Name], g,
			func(k rangedKey[BufferRefEntry]) bool { return r.pgEntryApplies(k.key, k.entry, m) }, managed,
			func(k rangedKey[BufferRefEntry], effect string) { r.notePGEntry(pc.Name, k.key, k.entry, effect) })
		if k != nil {
			key, e = k.key, k.entry
		} else if key != "" {
			neverApplied = "BUFFER_PG|" + key + ", which bufferorch never applies"
		}
		managedWins = byManager && key != ""
		cands := slices.DeleteFunc(bufferCandidates(r.pgKeys[pc.Name], g), func(c bufferCandidate) bool {
			return !r.pgEntryApplies(c.key, r.db.BufferPG[c.key], m)
		})
		if m.key != "" && !slices.ContainsFunc(cands, func(c bufferCandidate) bool { return c.key == m.key }) {
			kr := readRangedKey("BUFFER_PG", m.key)
			cands = append(cands, bufferCandidate{key: m.key, profile: m.profile, idx: kr.idx, managed: true})
			slices.SortStableFunc(cands, func(a, b bufferCandidate) int { return strings.Compare(a.key, b.key) })
		}
		for i := range cands {
			if cands[i].key == m.key {
				// On its own key buffermgrd's profile is the one that stays.
				cands[i].profile, cands[i].managed = m.profile, true
			}
		}
		if len(cands) > 1 {
			r.overlapping("BUFFER_PG", "PG", pc.Name, cands)
		}
	}
	if managedWins {
		key, e = "", nil
	}
	prof := ""
	if e != nil {
		prof = e.Profile
	}
	noProfile := func(origin string) qos.PGConfig { return r.noProfilePG(g, origin) }
	switch pe, ok := r.db.BufferProfile[prof]; {
	case r.stalled["BUFFER_PG"]:
		// buffermgrd's own entries reach bufferorch the same way, through
		// APPL_DB's BUFFER_PG_TABLE: none applies either.
		return noProfile("none: orchagent stalls on a BUFFER_PG key and applies no entry of the table"), nil
	case prof == "" && m.key != "":
		// SONiC's buffer manager writes the lossless PGs of a port's PFC
		// priorities itself, so buffer templates carry only the lossy
		// ones.
		origin := "generated by the buffer manager (no BUFFER_PG entry)"
		if managedWins {
			origin = "generated by the buffer manager (BUFFER_PG|" + m.key + ", the last in key order of the entries on the PG that bufferorch applies)"
		}
		pgc, err := r.managedPGConfig(pc, g, m, origin)
		if pgc.Assumed {
			r.defUnapplied(fmt.Sprintf("BUFFER_PG|<port>|%d", g), "the lossless profile SONiC's buffer manager generates from the SKU's pg_profile_lookup.ini (not in the files read); labctl assumes the one it renders for the port's speed and cable", "SONiC buffermgrd", neverApplied, pc.Name, true)
		} else {
			r.def(fmt.Sprintf("BUFFER_PG|<port>|%d", g), m.profile+", the config's profile of the name buffermgrd gives the port's lossless PGs, which it reuses", "SONiC buffermgrd", pc.Name, false)
		}
		return pgc, err
	case r.dynamic && e != nil && prof == "NULL":
		// The dynamic buffer model's lossless PG: an entry with profile
		// NULL, sized by the manager (buffermgrdyn.cpp,
		// handleSingleBufferPgEntry: pureDynamic). One with an empty
		// profile or without the field it refuses (pgEntryApplies).
		r.def("BUFFER_PG profile NULL", "a lossless PG the dynamic buffer manager sizes; labctl assumes the profile it renders for the port's speed and cable", "SONiC dynamic buffer model", pc.Name, false)
		return r.computedPG(pc, g, "BUFFER_PG|"+key+" (computed by the dynamic buffer manager)"), nil
	case prof == "":
		r.def("BUFFER_PG", "no buffer profile: lossy, nothing reserved, shared at dynamic_th 0", srcSAI+": a PG without a buffer profile", pc.Name, false)
		return noProfile("default: no BUFFER_PG entry"), nil
	case prof == "NULL" && key != m.key:
		// On buffermgrd's own key the entry is written over (below).
		r.notePGEntry(pc.Name, key, e, pgWithoutProfile)
		return noProfile("BUFFER_PG|" + key + ", profile NULL, which the traditional buffer model does not compute"), nil
	case m.key != "" && key == m.key && prof != m.profile:
		// The config's entry sits on the key buffermgrd writes, with
		// another profile: buffermgrd overwrites it (an undefined one
		// too), and the switch never uses it.
		r.overwritten(pc, key, prof, m)
		return r.managedPGConfig(pc, g, m, "BUFFER_PG|"+key+" as buffermgrd writes it over the config's "+prof)
	case !ok:
		r.notePGEntry(pc.Name, key, e, pgWithoutProfile)
		return noProfile("BUFFER_PG|" + key + ", profile undefined"), nil
	default:
		return r.definedPG(pc, g, key, prof, pe, "BUFFER_PG|"+key)
	}
}

// appliedBufferEntry is, of one port's entries of table (BUFFER_PG or
// BUFFER_QUEUE; keys, in key order) naming index i of a unit (PG,
// queue), the last that bufferorch applies (applies), nil where none
// does; byManager says buffermgrd's own entry on the PG (managed, ""
// where it writes none the config does not hold) comes after it in key
// order, or is the only one applied, so that the PG is buffermgrd's.
// processPriorityGroup and processQueue apply an entry only once its
// profile resolves, so the index keeps the last applied; every other
// entry naming it that bufferorch never applies is noted (note, with
// what the index has instead: without where nothing gives it a profile),
// wherever it sits in key order: an entry before the one that applies
// changes nothing in a running switch, but at a cold start it keeps the
// ports its key names pending for ever (coldStartStall), as one after it
// does.
func (r *resolver) appliedBufferEntry(table, unit, without string, keys []rangedKey[BufferRefEntry], i int,
	applies func(rangedKey[BufferRefEntry]) bool, managed string, note func(k rangedKey[BufferRefEntry], effect string)) (win *rangedKey[BufferRefEntry], byManager bool) {
	var never []rangedKey[BufferRefEntry]
	for j, k := range keys {
		switch {
		case !slices.Contains(k.idx, i):
		case applies(k):
			win = &keys[j]
		default:
			never = append(never, k)
		}
	}
	by, whose := "", ""
	switch {
	case managed != "" && (win == nil || managed > win.key):
		byManager, by, whose = true, managed, "buffermgrd's "
	case win != nil:
		by = win.key
	}
	for _, k := range never {
		effect := without
		if by != "" {
			// An entry listing ports is noted once for them all: a
			// port's own key is named as <port>|<indexes>.
			name := by
			if ports, idx, _ := strings.Cut(by, "|"); strings.Contains(strings.Split(k.key, "|")[0], ",") && !strings.Contains(ports, ",") {
				name = "<port>|" + idx
			}
			effect = "bufferorch never applies the entry, so the " + unit + " has the profile " + whose + table + "|" + name + " gives it"
		}
		note(k, effect)
	}
	return win, byManager
}

// pgEntryApplies says whether bufferorch applies the BUFFER_PG entry key
// (e) to the PGs it names, where m is what buffermgrd writes for the
// port's PG: it writes over an entry on its own key, and in the dynamic
// model sizes one with profile NULL (buffermgrdyn's
// handleSingleBufferPgEntry refuses one with an empty profile, "Invalid
// format of reference to profile", or without the field, written {}:
// "Invalid field NULL", both task_invalid_entry); otherwise
// processPriorityGroup retries an entry whose profile it has not
// created (undefined, NULL in the traditional model, or refused:
// task_need_retry), fails one without a profile field and one whose
// profile trims (task_failed), and applies none of such an entry.
func (r *resolver) pgEntryApplies(key string, e *BufferRefEntry, m managedPG) bool {
	if key == m.key {
		return true
	}
	if r.dynamic && e.Profile == "NULL" {
		return true
	}
	pe, ok := r.db.BufferProfile[e.Profile]
	return ok && profileRefused(pe) == "" && pe.PacketDiscard != "trim"
}

// notePGEntry notes why bufferorch never applies the BUFFER_PG entry key
// (e) on port, and effect, what the PG keeps instead.
func (r *resolver) notePGEntry(port, key string, e *BufferRefEntry, effect string) {
	prof := e.Profile
	pe, ok := r.db.BufferProfile[prof]
	switch {
	case prof == "":
		r.noProfileEntry("BUFFER_PG", key, e, effect, port)
	case prof == "NULL" && !ok:
		// The traditional buffer manager (the dynamic model applies it)
		// copies the entry to APPL_DB as it is (doBufferTableTask), and
		// bufferorch looks for a BUFFER_PROFILE named NULL
		// (parseReference: not_resolved) and retries the entry for ever.
		r.note("BUFFER_PG|"+key, "profile", prof, "BUFFER_PROFILE", effect, "", "NULL asks SONiC's dynamic buffer manager to size the PG, and that manager runs only with DEVICE_METADATA|localhost buffer_model dynamic; the traditional one copies the entry as it is, and bufferorch looks for a BUFFER_PROFILE named NULL and retries the entry for ever: name the PG's profile, or set buffer_model dynamic", port)
	case !ok:
		r.unresolved("BUFFER_PG|"+key, "profile", prof, "BUFFER_PROFILE", effect, port)
	case profileRefused(pe) != "":
		r.refused("BUFFER_PG|"+key, "profile", prof, "BUFFER_PROFILE", effect, profileRefused(pe), port)
	case pe.PacketDiscard == "trim":
		r.trimmingPG(key, prof, port, effect)
	}
}

// noProfileEntry notes the entry key of table (BUFFER_PG or
// BUFFER_QUEUE, e) that gives no profile, or "", on port, and effect,
// what the PG or queue keeps instead. bufferorch's processPriorityGroup
// and processQueue resolve the profile reference first
// (Orch::resolveFieldRefValue: field_not_found without the field, empty
// for ""), log "Resolving pg profile reference failed" (queue profile)
// and return task_failed, and BufferOrch::doTask drops the entry: it is
// never applied, nor retried. An entry written as {} reaches CONFIG_DB as
// {"NULL": "NULL"} (ConfigDBConnector), which has no profile either.
func (r *resolver) noProfileEntry(table, key string, e *BufferRefEntry, effect, port string) {
	blank := e != nil && e.Blank["profile"]
	given := "no profile field"
	if blank {
		given = "an empty profile"
	}
	fn, unit := "processPriorityGroup", "pg"
	if table == "BUFFER_QUEUE" {
		fn, unit = "processQueue", "queue"
	}
	what := fmt.Sprintf("the entry has %s: bufferorch's %s finds no profile to resolve (resolveFieldRefValue), logs 'Resolving %s profile reference failed' and fails the entry (task_failed), and doTask drops it: it is never applied; %s", given, fn, unit, effect)
	fix := "give the entry the profile meant (a BUFFER_PROFILE the config defines), or remove the entry"
	if r.dynamic && table == "BUFFER_PG" {
		// buffermgrdyn.cpp, handleSingleBufferPgEntry: the entry never
		// reaches APPL_DB, so bufferorch never sees it.
		why := "'BUFFER_PG: Invalid format of reference to profile'"
		if !blank {
			why = "'BUFFER_PG: Invalid field' (an entry written {} reaches CONFIG_DB as {\"NULL\": \"NULL\"}, the field NULL)"
		}
		what = fmt.Sprintf("the entry has %s: the dynamic buffer manager (buffermgrdyn's handleSingleBufferPgEntry) sizes a lossless PG only for profile NULL, logs %s for this one and refuses it (task_invalid_entry), and never writes it for bufferorch: it is never applied; %s", given, why, effect)
		fix = "write profile NULL for a lossless PG the dynamic buffer manager sizes, or the BUFFER_PROFILE meant"
	}
	r.overrule(table, key, true, what, fix, []string{port})
}

// definedPG is PG g on the config's profile prof (pe), named by the
// BUFFER_PG entry key, as bufferorch takes it: without a profile where
// it creates none of that name (profileRefused) or refuses a trimming one
// on a PG (trimmingPG). origin says where the PG comes from.
func (r *resolver) definedPG(pc *qos.PortConfig, g int, key, prof string, pe *BufferProfileEntry, origin string) (qos.PGConfig, error) {
	if why := profileRefused(pe); why != "" {
		r.notePGEntry(pc.Name, key, &BufferRefEntry{Profile: prof}, pgWithoutProfile)
		return r.noProfilePG(g, origin+", profile not created"), nil
	}
	if pe.PacketDiscard == "trim" {
		r.notePGEntry(pc.Name, key, &BufferRefEntry{Profile: prof}, pgWithoutProfile)
		return r.noProfilePG(g, origin+", refused: its profile trims"), nil
	}
	bp, err := r.profile(prof, pe, pc.Name, false)
	if err != nil {
		return qos.PGConfig{}, err
	}
	return qos.PGConfig{PG: g, BufferProfile: bp, Origin: origin}, nil
}

// What a PG or queue whose profile the switch does not have (undefined,
// or not created) is left with.
const (
	pgWithoutProfile    = "the PG has no buffer profile: lossy, nothing reserved, no headroom (it cannot pause)"
	queueWithoutProfile = "the queue has no buffer profile: no egress limit"
)

// noProfilePG is PG g without a buffer profile: nothing reserved, no
// headroom, shared buffer from the first ingress pool at SAI's default
// alpha.
func (r *resolver) noProfilePG(g int, origin string) qos.PGConfig {
	pool := ""
	for _, pl := range r.dc.Pools {
		if pl.Type == "ingress" {
			pool = pl.Name
			break
		}
	}
	return qos.PGConfig{PG: g, Origin: origin, BufferProfile: qos.BufferProfile{Pool: pool, SizeBytes: qos.Ptr(int64(0)), DynamicTh: qos.Ptr(0)}}
}

// profileRefused says why bufferorch creates no buffer profile of a
// BUFFER_PROFILE entry ("" when it does), so that the PGs and queues
// naming it wait for it and have none:
//   - a packet_discard_action other than drop or trim: processBufferProfile
//     fails the entry (task_failed). (SONiC releases before packet trimming,
//     2025, log the field as unknown and create the profile all the same:
//     labctl models the current one.)
//   - both static_th and dynamic_th: processBufferProfile hands SAI's
//     create_buffer_profile SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE twice
//     (static and dynamic, each with its threshold), which SAI refuses, so
//     the profile is not created.
//   - a pool written "[BUFFER_POOL|name]" (bracketRefused): the profile
//     waits for a pool that never resolves.
func profileRefused(pe *BufferProfileEntry) string {
	var why []string
	// processBufferProfile retries a profile whose pool reference does
	// not resolve, for ever.
	if w, fix := bracketRefused(pe.Pool, "BUFFER_POOL"); w != "" {
		why = append(why, fmt.Sprintf("its pool %q is %s (fix: %s)", pe.Pool, w, fix))
	}
	if a := pe.PacketDiscard; (a != "" || pe.Blank["packet_discard_action"]) && a != "drop" && a != "trim" {
		why = append(why, fmt.Sprintf("packet_discard_action %q is neither drop nor trim, and bufferorch fails the profile", a))
	}
	if pe.StaticTh != nil && pe.DynamicTh != nil {
		why = append(why, "it gives both static_th and dynamic_th: bufferorch hands SAI two threshold modes, and SAI creates no profile")
	}
	return strings.Join(why, "; ")
}

// trimmingPG notes a BUFFER_PG entry whose profile trims (packet_discard_
// action trim): bufferorch's processPriorityGroup refuses a PG whose
// profile is trimming eligible (task_failed), so the PG has no profile.
func (r *resolver) trimmingPG(key, prof, port, effect string) {
	r.overrule("BUFFER_PG", key, true,
		"its profile "+prof+" has packet_discard_action trim, and bufferorch refuses a priority group whose profile trims (trimming is an egress queue's), so "+effect,
		"give the PG a profile without packet_discard_action trim (trim belongs on egress queues' profiles)", []string{port})
}

// bufferCandidate is an entry of BUFFER_PG or BUFFER_QUEUE that gives
// a port's PG or queue a profile: the config's, or the one buffermgrd
// writes for the port's lossless PGs (managed).
type bufferCandidate struct {
	key, profile string
	idx          []int
	managed      bool
}

// bufferCandidates are the config's entries covering index i of a port,
// in key order.
func bufferCandidates(keys []rangedKey[BufferRefEntry], i int) []bufferCandidate {
	var out []bufferCandidate
	for _, k := range keys {
		if slices.Contains(k.idx, i) {
			out = append(out, bufferCandidate{key: k.key, profile: k.entry.Profile, idx: k.idx})
		}
	}
	return out
}

// overlapping notes entries of table that give one PG or queue of a port
// (unit) different profiles, on the first of them the config holds.
// Each is an entry of its own that bufferorch applies to the PGs or
// queues it names (processPriorityGroup, processQueue), so the PG or
// queue keeps the one applied last, and which that is the config does
// not say: buffermgrd copies CONFIG_DB's buffer tables to APPL_DB as it
// reads them (doBufferTableTask) and writes its own lossless PGs when it
// has read the port's speed, cable and pfc_enable (doSpeedUpdateTask);
// bufferorch pops APPL_DB's table in batches whose keys Redis picks at
// random (ConsumerStateTable: SPOP in consumer_state_table_pops.lua) and
// applies a batch in key order (Consumer's m_toSync is a map by key).
// labctl takes the last in key order, as one batch holding them all
// applies them, and lint warns (QOS021) that the switch may keep another.
func (r *resolver) overlapping(table, unit, port string, cands []bufferCandidate) {
	profiles := map[string]bool{}
	for _, c := range cands {
		profiles[c.profile] = true
	}
	if len(profiles) < 2 {
		return
	}
	first := -1
	for i, c := range cands {
		if table == "BUFFER_PG" && r.db.BufferPG[c.key] != nil || table == "BUFFER_QUEUE" && r.db.BufferQueue[c.key] != nil {
			first = i
			break
		}
	}
	if first < 0 {
		return
	}
	// The indexes every candidate names, and each one's key without the
	// port, so that the same overlap on many ports is one finding.
	common := slices.Clone(cands[0].idx)
	var names []string
	for _, c := range cands {
		common = slices.DeleteFunc(common, func(i int) bool { return !slices.Contains(c.idx, i) })
		_, idx, _ := strings.Cut(c.key, "|")
		prof := c.profile
		switch {
		case c.managed && prof == "":
			prof = "the lossless profile buffermgrd makes for the port's speed and cable"
		case prof == "":
			prof = "no profile"
		}
		by := ""
		if c.managed {
			by = ", which SONiC's buffer manager writes for the port's PFC priorities"
		}
		names = append(names, fmt.Sprintf("<port>|%s (%s%s)", idx, prof, by))
	}
	last := names[len(names)-1]
	what := fmt.Sprintf("%d %s entries give %s %s of the port a profile: %s. bufferorch applies each and the %s keeps the last applied: in key order when they reach it in one batch, else in the order they arrive (buffermgrd copies the table to APPL_DB as it reads it and writes its own lossless PGs once it knows the port; bufferorch pops APPL_DB in batches whose keys Redis picks at random), so the config does not decide which the switch runs; labctl takes the last in key order, %s",
		len(cands), table, unit, qos.FormatInts(common), strings.Join(names, ", "), unit, last)
	fix := fmt.Sprintf("give each %s one %s entry: split or remove the entries so that no %s is in two", unit, table, unit)
	if slices.ContainsFunc(cands, func(c bufferCandidate) bool { return c.managed }) {
		fix += "; the lossless PGs are buffermgrd's (<port>|" + "<first>-<last> of pfc_enable), so to change their buffer change the pg_lossless_<speed>_<cable>_profile BUFFER_PROFILE it uses instead"
	}
	r.overrule(table, cands[first].key, false, what, fix, []string{port})
}

// computedPG is a PG whose profile SONiC's buffer manager makes (no
// BUFFER_PG entry for a PFC priority's PG, or one buffermgrd writes over,
// without a profile of its name in the config; or profile NULL in the
// dynamic buffer model): lossless for a PFC priority's PG, with the headroom
// labctl's formula gives the port's speed and cable (the manager's tables
// and buffer_headroom_<vendor>.lua are per SKU) at the MTU the port
// runs at (EnforcedMTU: the config's, else SONiC's default 9100, which
// buffermgrdyn's DEFAULT_MTU_STR sizes a port without mtu for, and QOS006
// checks the headroom against) or 4096, xon two MTUs, dynamic_th 0. For a
// lab, AttachTopology replaces it with the profile labctl renders for the
// port.
func (r *resolver) computedPG(pc *qos.PortConfig, g int, origin string) qos.PGConfig {
	mtu := pc.EnforcedMTU()
	if mtu == 0 {
		mtu = 4096
	}
	pool := qos.IngressLosslessPool
	if r.dc.Pool(pool) == nil {
		for _, pl := range r.dc.Pools {
			if pl.Type == "ingress" {
				pool = pl.Name
				break
			}
		}
	}
	bp := qos.BufferProfile{Profile: "computed", Pool: pool, SizeBytes: qos.Ptr(int64(0)), DynamicTh: qos.Ptr(0)}
	// In the dynamic buffer model only a lossless PG's entry is computed.
	lossless := pc.GeneratedLossless(g) || r.dynamic
	switch {
	case lossless && pc.SpeedGbps > 0 && pc.CableM > 0:
		hr := qos.HeadroomBytes(pc.SpeedGbps, mtu, pc.CableM, qos.ResponseBits(pc.SpeedGbps))
		xon := int64(2 * mtu)
		bp.Profile = qos.LosslessPGProfileName(pc.SpeedGbps, pc.CableM)
		bp.XoffBytes, bp.XonBytes, bp.SizeBytes = qos.Ptr(hr), qos.Ptr(xon), qos.Ptr(hr+xon)
	case lossless:
		// Without the port's speed (a bare config with no PORT table)
		// the headroom is unknown, but the PG is lossless all the same:
		// the switch knows its speed.
		bp.Profile, bp.SizedBySwitch, bp.SizeBytes = "pg_lossless_<speed>_<cable>_profile", true, nil
	}
	return qos.PGConfig{PG: g, BufferProfile: bp, Origin: origin, Assumed: true}
}

// profile reads one BUFFER_PROFILE entry. A field that is present is kept
// even when it is "0" (no headroom, no reserve), so the simulator and
// lint see what the switch would; a profile with neither threshold gets
// the one SAI gives its pool's mode.
func (r *resolver) profile(name string, e *BufferProfileEntry, port string, egress bool) (qos.BufferProfile, error) {
	bp := qos.BufferProfile{Profile: name, Pool: e.Pool, SizeBytes: e.Size, StaticThBytes: e.StaticTh,
		XoffBytes: e.Xoff, XonBytes: e.Xon, XonOffsetBytes: e.XonOffset, DynamicTh: e.DynamicTh}
	bp = bp.Clone()
	if bp.SizeBytes == nil {
		bp.SizeBytes = qos.Ptr(int64(0))
		r.def("BUFFER_PROFILE size", "0 (nothing reserved)", srcYANG, port, false)
	}
	if bp.StaticThBytes == nil && bp.DynamicTh == nil {
		// A lossless profile's threshold is its XOFF point: left to the
		// pool's mode, it is worth a warning.
		risky := qos.LosslessProfile(&bp)
		if pl := r.dc.Pool(bp.Pool); pl != nil && pl.Mode == "static" {
			bp.StaticThBytes = qos.Ptr(int64(0))
			r.def("BUFFER_PROFILE "+name+" threshold", "no cap beyond its static pool", srcSAI+": a profile without static_th or dynamic_th on a static pool", port, risky)
		} else {
			bp.DynamicTh = qos.Ptr(0)
			r.def("BUFFER_PROFILE "+name+" threshold", "dynamic_th 0 (alpha 1)", srcSAI+": a profile without static_th or dynamic_th on a dynamic pool", port, risky)
		}
	}
	_ = egress
	return bp, nil
}

// bigRedSwitch is the drop action PFC_WD|GLOBAL BIG_RED_SWITCH forces
// on a port whose pfcwd_sw_enable bitmap is mask (nil: none). pfcwdorch
// hands the GLOBAL entry to PfcWdSwOrch::createEntry, whose
// setBigRedSwitchMode compares the exact words: "enable" runs
// enableBigRedSwitchMode, "disable" lifts it, any other it ignores
// ("Unsupported BIG_RED_SWITCH mode"). enableBigRedSwitchMode takes
// every physical port's pfcwd_sw_enable bitmap (getPortPfcWatchdogStatus,
// which qosorch's handlePortQosMapTable sets) and, for each queue i of
// it, creates the drop action's handler (PFC_WD_ACTION_DROP) as a
// declared storm would, storm or not, whatever the port's PFC_WD entry
// says: the handler (PfcWdZeroBufferHandler, or PfcWdAclHandler, on a
// PfcWdLossyHandler) takes priority i out of the port's PFC bitmap
// (setPortPfc), so the port neither obeys pause frames it receives for
// it nor sends any, and gives queue i a zero buffer (or drop ACLs), so
// it drops all it would carry. It also removes the handlers of storms
// already declared, and startWdActionOnQueue ignores every storm
// notification while it is on: the watchdog itself does nothing more.
// The mask is the one labctl reads for the watchdog: pfcwd_sw_enable,
// none without the field (qosorch sets the bitmap from it alone).
func (r *resolver) bigRedSwitch(mask []int) *qos.WatchdogDrop {
	g := r.db.PFCWD["GLOBAL"]
	if g == nil || g.BigRedSwitch != "enable" || len(mask) == 0 {
		return nil
	}
	return &qos.WatchdogDrop{Priorities: slices.Clone(mask), Where: "PFC_WD|GLOBAL BIG_RED_SWITCH",
		Fix: "set PFC_WD|GLOBAL BIG_RED_SWITCH to disable, or remove the field, once the storm it was set for is over (`pfcwd big_red_switch disable`)"}
}

// watchdogPoll sets the poll interval: PFC_WD|GLOBAL's, or pfcwd's
// default when a port has a watchdog.
func (r *resolver) watchdogPoll() error {
	if g := r.db.PFCWD["GLOBAL"]; g != nil && g.BigRedSwitch != "" && g.BigRedSwitch != "enable" && g.BigRedSwitch != "disable" {
		// setBigRedSwitchMode compares the exact words (bigRedSwitch).
		r.dc.Notes = append(r.dc.Notes, fmt.Sprintf("PFC_WD|GLOBAL BIG_RED_SWITCH %q is neither enable nor disable: orchagent ignores it (setBigRedSwitchMode: Unsupported BIG_RED_SWITCH mode), and labctl too (fix: write disable, or remove the field)", g.BigRedSwitch))
	}
	if g := r.db.PFCWD["GLOBAL"]; g != nil && g.PollInterval != nil {
		// orchagent hands the value to the flex counter group as its
		// polling interval; 0 or less is no interval (and no model value:
		// the model's 0 is "not set").
		if *g.PollInterval <= 0 {
			return entryError("PFC_WD", "GLOBAL", "POLL_INTERVAL", "PFC_WD|GLOBAL POLL_INTERVAL %d is not an interval (fix: write the milliseconds between the watchdog's polls, %d as SONiC's default, or leave it out)", *g.PollInterval, cfgDefaultWDPollMs)
		}
		r.dc.WatchdogPollMs = *g.PollInterval
		return nil
	}
	for _, p := range r.dc.Ports {
		if p.Watchdog != nil {
			r.dc.WatchdogPollMs = cfgDefaultWDPollMs
			r.def("PFC_WD|GLOBAL POLL_INTERVAL", fmt.Sprintf("%d ms", cfgDefaultWDPollMs), srcPFCWD, "", false)
			return nil
		}
	}
	return nil
}

// coldStartStall notes the BUFFER_PG and BUFFER_QUEUE entries bufferorch
// never applies (a profile the config does not define or orchagent never
// creates, a key or index it refuses, a table stalled on a key) for what
// they do when the switch starts with them in CONFIG_DB (a reboot or
// `config reload`), beside what labctl models, the config loaded into a
// running switch (`config load`). At its start bufferorch lists every
// key of the two tables in CONFIG_DB that splits into <ports>|<indexes>
// as pending for each port it names (initBufferReadyList), and marks a
// key ready only once it has applied it (processPriorityGroupPost,
// processQueuePost); portsorch holds a port's PORT entry (admin up
// among it) until all of the port's keys are ready (doPortTask:
// isPortReady, m_pendingPortSet), and allPortsReady() stays false while
// any port is held: qosorch, pfcwdorch, intfsorch, neighorch and
// routeorch return from every doTask without doing anything, so the
// switch applies no QoS map, PFC or watchdog on any port and routes
// nothing. One warning names the keys and ports.
func (r *resolver) coldStartStall() {
	var keys, ports []string
	add := func(where string, named []string) {
		table, key, _ := strings.Cut(where, "|")
		// Only the config's own keys: buffermgrd's lossless PGs reach
		// CONFIG_DB after the switch starts, unless a saved config holds
		// them.
		inConfig := table == "BUFFER_PG" && r.db.BufferPG[key] != nil || table == "BUFFER_QUEUE" && r.db.BufferQueue[key] != nil
		if !inConfig || len(swssTokenize(key, '|')) != 2 || slices.Contains(keys, where) {
			return
		}
		if len(named) == 0 {
			named = swssTokenize(swssTokenize(key, '|')[0], ',')
		}
		// portsorch holds only the ports it has (m_pendingPortSet): a
		// key naming none of those holds nothing.
		named = slices.DeleteFunc(slices.Clone(named), r.lacks)
		if len(named) == 0 {
			return
		}
		keys = append(keys, where)
		for _, p := range named {
			if !slices.Contains(ports, p) {
				ports = append(ports, p)
			}
		}
	}
	for _, table := range []string{"BUFFER_PG", "BUFFER_QUEUE"} {
		if !r.stalled[table] {
			continue
		}
		entries := r.db.BufferPG
		if table == "BUFFER_QUEUE" {
			entries = r.db.BufferQueue
		}
		for _, k := range cfgSortedKeys(entries) {
			add(table+"|"+k, nil)
		}
	}
	for _, o := range r.dc.Overruled {
		if o.Refused {
			add(o.Where, nil)
		}
	}
	for _, u := range r.unres {
		add(u.Where, nil)
	}
	if len(keys) == 0 {
		return
	}
	slices.Sort(keys)
	slices.Sort(ports)
	r.dc.Overruled = append(r.dc.Overruled, qos.Overruled{
		Where: "BUFFER_PG and BUFFER_QUEUE at a cold start",
		What: fmt.Sprintf("when the switch starts with this config in CONFIG_DB (a reboot, or config reload), bufferorch holds %s (%s), which it never applies, as pending for %s, and portsorch applies no PORT entry of a port with a pending buffer entry (not even admin up: doPortTask waits for isPortReady); while any port waits, orchagent's allPortsReady() is false and qosorch, pfcwdorch, intfsorch, neighorch and routeorch do nothing: no port gets its QoS maps, PFC or watchdog, and the switch routes nothing. labctl models the config loaded into a running switch (config load), where only those entries are lost",
			plural.N(len(keys), "entry"), plural.Some(keys, 3, ", "), plural.N(len(ports), "port")),
		Fix:   "fix the entries the other findings name before the config is saved or the switch restarts",
		Ports: ports,
	})
}

// sonicFECModes are the PORT fec values portsorch's parsePortFec takes
// (orchagent/port/porthlpr.cpp), auto leaving the mode to
// auto-negotiation; sonicFECList writes them for a fix.
var sonicFECModes = [4]string{"rs", "fc", "none", qos.FECAuto}

var sonicFECList = strings.Join(sonicFECModes[:3], ", ") + " or " + sonicFECModes[3]

// The PORT mtu values portsorch's parsePortMtu takes (minPortMtu and
// maxPortMtu in orchagent/port/porthlpr.cpp; sonic-port.yang's range).
const (
	cfgPortMTUMin = 68
	cfgPortMTUMax = 9216
)

// cfgDefaultPortMTU is the MTU a SONiC port runs at where its PORT entry
// sets none (or none portsorch takes): portmgrd gives a port it first
// configures DEFAULT_MTU_STR, "9100" (sonic-swss cfgmgr/portmgr.h, used
// in PortMgr::doTask, cfgmgr/portmgr.cpp; intfmgr.cpp's DEFAULT_MTU_STR
// is 9100 too). A PORT entry merged later without mtu (a file config load
// merges) leaves the MTU the port has, which labctl assumes is this
// default: the startup config it gives its SONiC switches sets
// fabric.SwitchMTU, the same (TestDefaultPortMTU).
const cfgDefaultPortMTU = 9100

// srcPortMTU is the source of cfgDefaultPortMTU, which Defaults name.
const srcPortMTU = "portmgrd's DEFAULT_MTU_STR (sonic-swss cfgmgr/portmgr.h), which a port whose PORT entry sets no mtu runs at from a config reload or cold start; a file config load merges leaves the MTU a running port has, which labctl assumes is this default"

// portMTU reads a PORT mtu as portsorch's parsePortMtu does: swss's
// to_uint<uint32_t> (std::stoul base 0, as strtoul: blanks, a sign, 0x
// for hex and a leading 0 for octal; it throws where anything is left
// unread, where no digit is found, or beyond 32 bits; a '-' negates
// modulo 2^64), then the range. ok false: portsorch refuses it.
func portMTU(s string) (mtu int, ok bool) {
	t := strings.TrimLeft(s, cBlanks)
	neg := t != "" && t[0] == '-'
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	base := 10
	switch {
	case len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && strings.ContainsRune("0123456789abcdefABCDEF", rune(t[2])):
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base = 8
	}
	v, err := strconv.ParseUint(t, base, 64)
	if err != nil || neg && v != 0 || v < cfgPortMTUMin || v > cfgPortMTUMax {
		return 0, false
	}
	return int(v), true
}

// portNegotiationRefused names a PORT entry's autoneg or adv_speeds field
// that portsorch refuses, and why, "" for none: PortHelper::parsePortAutoneg
// takes on and off alone (portModeMap), parsePortAdvSpeeds what
// parseAdvSpeeds reads, whatever autoneg says (parsePortConfig parses
// every field the entry has).
func portNegotiationRefused(e *PortEntry) (field, why string) {
	if e.Autoneg != "" && e.Autoneg != "on" && e.Autoneg != "off" {
		return fmt.Sprintf("autoneg %q", e.Autoneg), "parsePortAutoneg: on or off"
	}
	if _, ok := parseAdvSpeeds(e.AdvSpeeds); !ok {
		return fmt.Sprintf("adv_speeds %q", e.AdvSpeeds), "parsePortAdvSpeeds: all, or speeds of 1-1600000 Mb/s separated by commas"
	}
	return "", ""
}

// parseAdvSpeeds reads adv_speeds as portsorch's
// PortHelper::parsePortAdvSpeeds does: all (any case) or whole numbers of
// Mb/s 1-1600000 separated by commas; mbps nil for all or none (""), ok
// false for a value it refuses.
func parseAdvSpeeds(s string) (mbps []uint64, ok bool) {
	if s == "" || strings.EqualFold(s, "all") {
		return nil, true
	}
	for _, v := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n < 1 || n > 1600000 {
			return nil, false
		}
		mbps = append(mbps, n)
	}
	return mbps, true
}

// advSpeeds are the speeds (Gb/s) a port with autoneg on advertises
// (parseAdvSpeeds); nil for autoneg off, adv_speeds all or none, and a
// list portsorch refuses (portNegotiationRefused's: the port keeps
// advertising what it did, every speed, labctl's reading).
func advSpeeds(e *PortEntry) []int {
	mbps, ok := parseAdvSpeeds(e.AdvSpeeds)
	if e.Autoneg != "on" || !ok || mbps == nil {
		return nil
	}
	var out []int
	for _, n := range mbps {
		if g := int(n / 1000); !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}
