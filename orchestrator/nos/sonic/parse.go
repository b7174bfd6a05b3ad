package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/qos"
)

// cfgQoSTables are the CONFIG_DB tables the parser reads; others (PORT,
// VLAN, BGP, …) in a full config_db.json are ignored.
var cfgQoSTables = []string{
	"DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE",
	"PORT_QOS_MAP", "WRED_PROFILE", "QUEUE", "SCHEDULER", "BUFFER_POOL", "BUFFER_PROFILE",
	"BUFFER_PG", "BUFFER_QUEUE", "CABLE_LENGTH", "PFC_WD", "PORT",
}

// SONiC's `pfcwd start_default` values, used when a port lists
// pfcwd_sw_enable priorities but PFC_WD has no entry for it.
const (
	cfgDefaultWDDetection   = 200
	cfgDefaultWDRestoration = 200
	cfgDefaultWDAction      = "drop"
)

// ParseDoc decodes one CONFIG_DB JSON file. name is used in errors.
func ParseDoc(name string, data []byte) (Doc, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: %w; the file must be a CONFIG_DB JSON object {\"TABLE\": {\"key\": {\"field\": \"value\"}}}", cfgWhere(name, data, err), err)
	}
	doc := Doc{}
	for _, table := range cfgQoSTables {
		raw, ok := top[table]
		if !ok {
			continue
		}
		var entries map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, fmt.Errorf("%s: table %s: %w; each entry must be an object of string fields", name, table, err)
		}
		for key, fields := range entries {
			for field, v := range fields {
				s, err := cfgScalar(v)
				if err != nil {
					return nil, fmt.Errorf("%s: %s|%s field %s: %w", name, table, key, field, err)
				}
				doc.set(table, key, field, s)
			}
			if len(fields) == 0 {
				if doc[table] == nil {
					doc[table] = map[string]map[string]string{}
				}
				doc[table][key] = map[string]string{}
			}
		}
	}
	return doc, nil
}

// cfgScalar reads a CONFIG_DB value. Values are strings; numbers and
// booleans (hand-written files) are taken as their text.
func cfgScalar(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return s, nil
	}
	t := string(bytes.TrimSpace(v))
	if t == "true" || t == "false" {
		return t, nil
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return t, nil
	}
	return "", fmt.Errorf("value %.40s is not a string; CONFIG_DB values are strings", t)
}

// cfgWhere returns "name:line:col" for a JSON decoding error.
func cfgWhere(name string, data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return name
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

// Merge merges documents field by field; later ones win. SONiC keeps QoS
// tables and buffer tables in separate templates, so one device's config
// is often two files.
func Merge(docs ...Doc) Doc {
	out := Doc{}
	for _, d := range docs {
		for t, entries := range d {
			for k, fields := range entries {
				if len(fields) == 0 {
					if out[t] == nil {
						out[t] = map[string]map[string]string{}
					}
					if out[t][k] == nil {
						out[t][k] = map[string]string{}
					}
				}
				for f, v := range fields {
					out.set(t, k, f, v)
				}
			}
		}
	}
	return out
}

// Parse reads one device's CONFIG_DB files (merged in order) into the QoS
// model. Ports are those named in PORT_QOS_MAP, QUEUE, BUFFER_PG,
// BUFFER_QUEUE or PFC_WD; all are taken as data ports, and peers are not
// known (qos.AttachTopology adds them for a lab).
func Parse(device string, srcs ...qos.Source) (qos.DeviceConfig, error) {
	var docs []Doc
	for _, s := range srcs {
		d, err := ParseDoc(s.Name, s.Data)
		if err != nil {
			return qos.DeviceConfig{}, err
		}
		docs = append(docs, d)
	}
	return FromDoc(device, Merge(docs...))
}

var cfgPGProfileRE = regexp.MustCompile(`^pg_lossless_(\d+)_(\d+)m_profile$`)

// FromDoc turns a merged CONFIG_DB document into the QoS model.
func FromDoc(device string, doc Doc) (qos.DeviceConfig, error) {
	dc := qos.DeviceConfig{Device: device, NOS: Name}
	fail := func(format string, a ...any) (qos.DeviceConfig, error) {
		return qos.DeviceConfig{}, fmt.Errorf("parse sonic config of %s: %s", device, fmt.Sprintf(format, a...))
	}
	// readMap reads a map table entry (all keys and values small ints).
	readMap := func(table, name string, maxKey int) (map[int]int, error) {
		e, ok := doc[table][name]
		if !ok {
			return nil, fmt.Errorf("%s|%s is referenced but not defined", table, name)
		}
		m := map[int]int{}
		for k, v := range e {
			kn, err1 := strconv.Atoi(k)
			vn, err2 := strconv.Atoi(v)
			if err1 != nil || err2 != nil || kn < 0 || kn > maxKey || vn < 0 || vn > 7 {
				return nil, fmt.Errorf("%s|%s: entry %q: %q is not <0-%d>: <0-7>", table, name, k, v, maxKey)
			}
			m[kn] = vn
		}
		return m, nil
	}
	pqm := doc["PORT_QOS_MAP"]
	// pick chooses a map name for the device: the global entry, else the
	// one most ports use, else the only one defined.
	pick := func(field, table string) string {
		if g := cfgRefName(pqm["global"][field]); g != "" {
			return g
		}
		count := map[string]int{}
		for k, e := range pqm {
			if k != "global" && e[field] != "" {
				count[cfgRefName(e[field])]++
			}
		}
		best := ""
		for _, n := range cfgSortedKeys(count) {
			if best == "" || count[n] > count[best] {
				best = n
			}
		}
		if best == "" && len(doc[table]) == 1 {
			for n := range doc[table] {
				best = n
			}
		}
		return best
	}
	var err error
	dscpName := pick("dscp_to_tc_map", "DSCP_TO_TC_MAP")
	if dscpName != "" {
		if dc.DSCPToTC, err = readMap("DSCP_TO_TC_MAP", dscpName, 63); err != nil {
			return fail("%v", err)
		}
	}
	if n := pick("tc_to_queue_map", "TC_TO_QUEUE_MAP"); n != "" {
		if dc.TCToQueue, err = readMap("TC_TO_QUEUE_MAP", n, 7); err != nil {
			return fail("%v", err)
		}
	}
	if n := pick("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"); n != "" {
		if dc.TCToPG, err = readMap("TC_TO_PRIORITY_GROUP_MAP", n, 7); err != nil {
			return fail("%v", err)
		}
	}
	for _, name := range cfgSortedKeys(doc["BUFFER_POOL"]) {
		e := doc["BUFFER_POOL"][name]
		pl := qos.PoolConfig{Name: name, Type: e["type"], Mode: cfgOr(e["mode"], "dynamic")}
		if pl.SizeBytes, err = cfgBytes(e["size"]); err != nil {
			return fail("BUFFER_POOL|%s size %q is not a byte count", name, e["size"])
		}
		if v, ok := e["xoff"]; ok {
			n, err := cfgBytes(v)
			if err != nil {
				return fail("BUFFER_POOL|%s xoff %q is not a byte count", name, v)
			}
			pl.HeadroomPoolBytes = &n
		}
		if pl.Type != "ingress" && pl.Type != "egress" {
			return fail("BUFFER_POOL|%s type %q is neither ingress nor egress", name, pl.Type)
		}
		if pl.Mode != "static" && pl.Mode != "dynamic" {
			return fail("BUFFER_POOL|%s mode %q is neither static nor dynamic", name, pl.Mode)
		}
		dc.Pools = append(dc.Pools, pl)
		if name == cfgIngressPool {
			dc.SharedPoolBytes = pl.SizeBytes
		}
	}
	if v, ok := doc["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"]; ok {
		if dc.WatchdogPollMs, err = strconv.Atoi(v); err != nil {
			return fail("PFC_WD|GLOBAL POLL_INTERVAL %q is not a number of milliseconds", v)
		}
	}

	ports := map[string]*qos.PortConfig{}
	port := func(name string) *qos.PortConfig {
		p := ports[name]
		if p == nil {
			p = &qos.PortConfig{Name: name, Fabric: true, PFCPriorities: []int{}}
			ports[name] = p
		}
		return p
	}
	for _, name := range cfgSortedKeys(pqm) {
		if name == "global" {
			continue
		}
		e := pqm[name]
		p := port(name)
		if m := cfgRefName(e["dscp_to_tc_map"]); m != "" && m != dscpName {
			if p.DSCPToTC, err = readMap("DSCP_TO_TC_MAP", m, 63); err != nil {
				return fail("PORT_QOS_MAP|%s: %v", name, err)
			}
		}
		for _, f := range []string{"pfc_enable", "pfcwd_sw_enable"} {
			if v := e[f]; v != "" && !cfgPFCEnableRE.MatchString(v) {
				return fail("PORT_QOS_MAP|%s %s %q is not a list of priorities 0-7 like \"3,4\"", name, f, v)
			}
		}
		p.PFCPriorities = cfgInts(e["pfc_enable"])
		if wd := cfgInts(e["pfcwd_sw_enable"]); len(wd) > 0 {
			p.Watchdog = &qos.PortWatchdog{DetectionMs: cfgDefaultWDDetection, RestorationMs: cfgDefaultWDRestoration, Action: cfgDefaultWDAction}
		}
	}
	for _, name := range cfgSortedKeys(doc["PFC_WD"]) {
		if name == "GLOBAL" {
			continue
		}
		e := doc["PFC_WD"][name]
		det, err1 := strconv.Atoi(e["detection_time"])
		res, err2 := strconv.Atoi(e["restoration_time"])
		if err1 != nil || err2 != nil {
			return fail("PFC_WD|%s: detection_time %q and restoration_time %q must be milliseconds", name, e["detection_time"], e["restoration_time"])
		}
		action := e["action"]
		if action == "" {
			action = cfgDefaultWDAction
		}
		port(name).Watchdog = &qos.PortWatchdog{DetectionMs: det, RestorationMs: res, Action: action}
	}
	for _, key := range cfgSortedKeys(doc["QUEUE"]) {
		name, idx, err := cfgSplitKey(key)
		if err != nil {
			return fail("QUEUE|%s: %v", key, err)
		}
		e := doc["QUEUE"][key]
		p := port(name)
		for _, q := range idx {
			qc := qos.QueueConfig{Queue: q}
			if s := cfgRefName(e["scheduler"]); s != "" {
				se, ok := doc["SCHEDULER"][s]
				if !ok {
					return fail("QUEUE|%s: scheduler %s is not defined in SCHEDULER", key, s)
				}
				switch strings.ToUpper(se["type"]) {
				case "STRICT":
					qc.Strict = true
				default:
					if w := se["weight"]; w != "" {
						if qc.Weight, err = strconv.Atoi(w); err != nil {
							return fail("SCHEDULER|%s weight %q is not a number", s, w)
						}
					}
				}
			}
			if w := cfgRefName(e["wred_profile"]); w != "" {
				we, ok := doc["WRED_PROFILE"][w]
				if !ok {
					return fail("QUEUE|%s: wred_profile %s is not defined in WRED_PROFILE", key, w)
				}
				if ecn := we["ecn"]; ecn != "" && ecn != "ecn_none" {
					lo, err1 := strconv.ParseInt(we["green_min_threshold"], 10, 64)
					hi, err2 := strconv.ParseInt(we["green_max_threshold"], 10, 64)
					pr, err3 := strconv.ParseFloat(cfgOr(we["green_drop_probability"], "100"), 64)
					if err1 != nil || err2 != nil || err3 != nil {
						return fail("WRED_PROFILE|%s: green_min_threshold, green_max_threshold and green_drop_probability must be numbers", w)
					}
					qc.ECN = &qos.ECNConfig{MinBytes: lo, MaxBytes: hi, Pmax: pr / 100}
				}
			}
			if old := p.Queue(q); old != nil {
				*old = qc
			} else {
				p.Queues = append(p.Queues, qc)
			}
		}
	}
	for _, key := range cfgSortedKeys(doc["BUFFER_PG"]) {
		name, idx, err := cfgSplitKey(key)
		if err != nil {
			return fail("BUFFER_PG|%s: %v", key, err)
		}
		prof := cfgRefName(doc["BUFFER_PG"][key]["profile"])
		pe, ok := doc["BUFFER_PROFILE"][prof]
		p := port(name)
		if !ok {
			// "NULL" or a profile computed by the dynamic buffer manager.
			continue
		}
		bp, err := cfgProfile(prof, pe)
		if err != nil {
			return fail("%v", err)
		}
		_, hasXoff := pe["xoff"]
		pg := qos.PGConfig{Lossless: hasXoff || strings.Contains(prof, "lossless"), BufferProfile: bp}
		if m := cfgPGProfileRE.FindStringSubmatch(prof); m != nil {
			mbps, _ := strconv.Atoi(m[1])
			cable, _ := strconv.Atoi(m[2])
			if p.SpeedGbps == 0 {
				p.SpeedGbps = mbps / 1000
			}
			if p.CableM == 0 {
				p.CableM = cable
			}
		}
		for _, i := range idx {
			pg.PG = i
			pg.BufferProfile = bp.Clone()
			p.PGs = append(p.PGs, pg)
		}
	}
	for _, key := range cfgSortedKeys(doc["BUFFER_QUEUE"]) {
		name, idx, err := cfgSplitKey(key)
		if err != nil {
			return fail("BUFFER_QUEUE|%s: %v", key, err)
		}
		p := port(name)
		prof := cfgRefName(doc["BUFFER_QUEUE"][key]["profile"])
		pe, ok := doc["BUFFER_PROFILE"][prof]
		if !ok {
			continue
		}
		bp, err := cfgProfile(prof, pe)
		if err != nil {
			return fail("%v", err)
		}
		for _, q := range idx {
			qc := p.Queue(q)
			if qc == nil {
				p.Queues = append(p.Queues, qos.QueueConfig{Queue: q})
				qc = &p.Queues[len(p.Queues)-1]
			}
			qc.Buffer = qos.Ptr(bp.Clone())
		}
	}
	// Cable length and speed for the ports found above.
	for _, cl := range cfgSortedKeys(doc["CABLE_LENGTH"]) {
		for name, v := range doc["CABLE_LENGTH"][cl] {
			p, ok := ports[name]
			if !ok {
				continue
			}
			m, err := strconv.Atoi(strings.TrimSuffix(v, "m"))
			if err != nil || !strings.HasSuffix(v, "m") {
				return fail("CABLE_LENGTH|%s %s %q is not a length like \"5m\"", cl, name, v)
			}
			p.CableM = m
		}
	}
	for name, p := range ports {
		if e, ok := doc["PORT"][name]; ok {
			if s, err := strconv.Atoi(e["speed"]); err == nil {
				p.SpeedGbps = s / 1000
			}
			if m, err := strconv.Atoi(e["mtu"]); err == nil {
				p.MTU = m
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(ports)) {
		dc.Ports = append(dc.Ports, *ports[n])
	}
	dc.Unmodeled = cfgUnmodeled(doc, dc)
	dc.Sort()
	return dc, nil
}

// cfgModeled are the fields of each QoS table the simulator models; any
// other field present in those tables is listed in Unmodeled.
var cfgModeled = map[string][]string{
	"PORT_QOS_MAP":                     {"dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map", "pfc_enable", "pfcwd_sw_enable"},
	"WRED_PROFILE":                     {"ecn", "wred_green_enable", "green_min_threshold", "green_max_threshold", "green_drop_probability"},
	"QUEUE":                            {"scheduler", "wred_profile"},
	"SCHEDULER":                        {"type", "weight"},
	"BUFFER_POOL":                      {"type", "mode", "size", "xoff"},
	"BUFFER_PROFILE":                   {"pool", "size", "static_th", "dynamic_th", "xon", "xoff", "xon_offset"},
	"BUFFER_PG":                        {"profile"},
	"BUFFER_QUEUE":                     {"profile"},
	"PFC_WD":                           {"action", "detection_time", "restoration_time", "POLL_INTERVAL"},
	"BUFFER_PORT_INGRESS_PROFILE_LIST": {},
	"BUFFER_PORT_EGRESS_PROFILE_LIST":  {},
}

// cfgUnmodeled lists "TABLE field" for every field of a QoS table that the
// simulator does not model, and the modelled settings it can only
// approximate.
func cfgUnmodeled(doc Doc, dc qos.DeviceConfig) []string {
	set := map[string]bool{}
	for table, fields := range cfgModeled {
		for _, e := range doc[table] {
			for f := range e {
				switch {
				case slices.Contains(fields, f):
				case table == "WRED_PROFILE" && (strings.HasPrefix(f, "yellow_") || strings.HasPrefix(f, "red_") || f == "wred_yellow_enable" || f == "wred_red_enable"):
					set["WRED_PROFILE yellow and red thresholds (every simulated packet is green)"] = true
				default:
					set[table+" "+f] = true
				}
			}
		}
	}
	// The simulator keeps a queue per traffic class and pauses the
	// paused priority's own class.
	seen := map[int]int{}
	for tc, q := range dc.TCToQueue {
		if prev, ok := seen[q]; ok && prev != tc {
			set["TC_TO_QUEUE_MAP two traffic classes in one queue (simulated as separate queues with the queue's settings)"] = true
		}
		seen[q] = tc
	}
	for _, e := range doc["MAP_PFC_PRIORITY_TO_QUEUE"] {
		for k, v := range e {
			if k != v {
				set["MAP_PFC_PRIORITY_TO_QUEUE priority "+k+" to queue "+v+" (the simulator pauses the priority's own class)"] = true
			}
		}
	}
	for _, e := range doc["PORT"] {
		if _, ok := e["mtu"]; ok {
			set["PORT mtu (the simulator sends packets of the lab's qos.mtu)"] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// cfgProfile reads one BUFFER_PROFILE entry. A field that is present is
// kept even when it is "0" (no headroom, no reserve), so the simulator and
// lint see what the switch would.
func cfgProfile(name string, e map[string]string) (qos.BufferProfile, error) {
	bp := qos.BufferProfile{Profile: name, Pool: cfgRefName(e["pool"])}
	for f, dst := range map[string]**int64{"size": &bp.SizeBytes, "static_th": &bp.StaticThBytes, "xoff": &bp.XoffBytes, "xon": &bp.XonBytes, "xon_offset": &bp.XonOffsetBytes} {
		v, ok := e[f]
		if !ok {
			continue
		}
		n, err := cfgBytes(v)
		if err != nil {
			return bp, fmt.Errorf("BUFFER_PROFILE|%s %s %q is not a byte count", name, f, v)
		}
		*dst = &n
	}
	if v, ok := e["dynamic_th"]; ok {
		th, err := strconv.Atoi(v)
		if err != nil {
			return bp, fmt.Errorf("BUFFER_PROFILE|%s dynamic_th %q is not an integer", name, v)
		}
		bp.DynamicTh = &th
	}
	return bp, nil
}

// cfgBytes parses a non-negative byte count.
func cfgBytes(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a byte count")
	}
	return n, nil
}

// cfgSplitKey splits "Ethernet0|3-4" into the port and the indexes 3, 4.
func cfgSplitKey(key string) (string, []int, error) {
	name, r, ok := strings.Cut(key, "|")
	if !ok || name == "" {
		return "", nil, fmt.Errorf("key must be <port>|<index or range>, like Ethernet0|3-4")
	}
	var out []int
	for part := range strings.SplitSeq(r, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b > 7 || a > b {
			return "", nil, fmt.Errorf("index %q must be 0-7 or a range like 3-4", part)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return name, out, nil
}

func cfgInts(s string) []int {
	out := []int{}
	if s == "" {
		return out
	}
	for f := range strings.SplitSeq(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func cfgOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
