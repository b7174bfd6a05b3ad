// Package sonic is labctl's SONiC plug-in: containerlab kind defaults,
// interface naming, QoS render to CONFIG_DB JSON (and the equivalent
// `sudo config` commands), and parsing CONFIG_DB JSON back to the QoS model.
//
// This package must not import orchestrator/nos: nos looks plug-ins up by
// importing them.
package sonic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/qos"
)

// Name is the NOS name used in lab specs and on the command line.
const Name = "sonic"

// Kind is the containerlab kind of SONiC switches.
const Kind = "sonic-vs"

// DefaultImage is the docker-sonic-vs image labctl expects.
const DefaultImage = "docker-sonic-vs:latest"

// ConfigExt is the extension of rendered configs.
const ConfigExt = ".json"

// Object names labctl writes. AZURE is SONiC's own name for its QoS maps,
// so a `config load` of labctl's tables replaces the defaults field by
// field instead of adding a second map.
const (
	cfgMapName          = "AZURE"
	cfgIngressPool      = "ingress_lossless_pool"
	cfgEgressPool       = "egress_lossless_pool"
	cfgEgressLossyPool  = "egress_lossy_pool"
	cfgIngressLossyProf = "ingress_lossy_profile"
	cfgEgressLosslessPr = "egress_lossless_profile"
	cfgEgressLossyProf  = "egress_lossy_profile"
)

// Doc is a CONFIG_DB document: table -> key -> field -> value.
type Doc map[string]map[string]map[string]string

func (d Doc) set(table, key, field, value string) {
	t := d[table]
	if t == nil {
		t = map[string]map[string]string{}
		d[table] = t
	}
	e := t[key]
	if e == nil {
		e = map[string]string{}
		t[key] = e
	}
	e[field] = value
}

// Render writes a device's QoS as CONFIG_DB JSON. encoding/json sorts map
// keys, so the output is deterministic; all values are strings as CONFIG_DB
// requires. The result passes Validate.
func Render(dc qos.DeviceConfig) ([]byte, error) {
	doc, err := BuildDoc(dc)
	if err != nil {
		return nil, err
	}
	if errs := ValidateDoc(doc); len(errs) > 0 {
		return nil, fmt.Errorf("render sonic config for %s: %w", dc.Device, joinErrs(errs))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "    ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("render sonic config for %s: %w", dc.Device, err)
	}
	return buf.Bytes(), nil
}

// BuildDoc turns a device config into CONFIG_DB tables.
func BuildDoc(dc qos.DeviceConfig) (Doc, error) {
	doc := Doc{}
	putMap := func(table, name string, m map[int]int) {
		for k, v := range m {
			doc.set(table, name, strconv.Itoa(k), strconv.Itoa(v))
		}
	}
	putMap("DSCP_TO_TC_MAP", cfgMapName, dc.DSCPToTC)
	putMap("TC_TO_QUEUE_MAP", cfgMapName, dc.TCToQueue)
	putMap("TC_TO_PRIORITY_GROUP_MAP", cfgMapName, dc.TCToPG)
	// PFC priority n pauses traffic class n, which sits in TCToQueue[n].
	putMap("MAP_PFC_PRIORITY_TO_QUEUE", cfgMapName, dc.TCToQueue)
	doc.set("PORT_QOS_MAP", "global", "dscp_to_tc_map", cfgMapName)

	hasPFC := false
	for _, p := range dc.Ports {
		if len(p.PFCPriorities) > 0 {
			hasPFC = true
		}
	}
	if dc.SharedPoolBytes > 0 || hasPFC {
		pool := dc.SharedPoolBytes
		if pool <= 0 {
			return nil, fmt.Errorf("render sonic config for %s: ports have PFC but the shared buffer size is not known", dc.Device)
		}
		size := strconv.FormatInt(pool, 10)
		for _, n := range []string{cfgIngressPool, cfgEgressPool, cfgEgressLossyPool} {
			typ := "egress"
			if n == cfgIngressPool {
				typ = "ingress"
			}
			doc.set("BUFFER_POOL", n, "size", size)
			doc.set("BUFFER_POOL", n, "type", typ)
			doc.set("BUFFER_POOL", n, "mode", "dynamic")
		}
		for name, f := range map[string][3]string{
			cfgIngressLossyProf: {cfgIngressPool, "0", "3"},
			cfgEgressLosslessPr: {cfgEgressPool, "0", "7"},
			cfgEgressLossyProf:  {cfgEgressLossyPool, "1518", "3"},
		} {
			doc.set("BUFFER_PROFILE", name, "pool", f[0])
			doc.set("BUFFER_PROFILE", name, "size", f[1])
			doc.set("BUFFER_PROFILE", name, "dynamic_th", f[2])
		}
	}
	if dc.WatchdogPollMs > 0 {
		doc.set("PFC_WD", "GLOBAL", "POLL_INTERVAL", strconv.Itoa(dc.WatchdogPollMs))
	}

	for _, p := range dc.Ports {
		if p.Name == "" || strings.ContainsAny(p.Name, "|[] ") {
			return nil, fmt.Errorf("render sonic config for %s: port name %q is not a SONiC interface name (EthernetN)", dc.Device, p.Name)
		}
		dscpMap := cfgMapName
		if p.DSCPToTC != nil {
			dscpMap = cfgMapName + "_" + strings.ToUpper(p.Name)
			putMap("DSCP_TO_TC_MAP", dscpMap, p.DSCPToTC)
		}
		pq := map[string]string{
			"dscp_to_tc_map":   dscpMap,
			"tc_to_queue_map":  cfgMapName,
			"tc_to_pg_map":     cfgMapName,
			"pfc_to_queue_map": cfgMapName,
		}
		if len(p.PFCPriorities) > 0 {
			pq["pfc_enable"] = qos.FormatInts(p.PFCPriorities)
			if p.Watchdog != nil {
				pq["pfcwd_sw_enable"] = qos.FormatInts(p.PFCPriorities)
			}
		}
		for k, v := range pq {
			doc.set("PORT_QOS_MAP", p.Name, k, v)
		}
		if w := p.Watchdog; w != nil {
			doc.set("PFC_WD", p.Name, "action", w.Action)
			doc.set("PFC_WD", p.Name, "detection_time", strconv.Itoa(w.DetectionMs))
			doc.set("PFC_WD", p.Name, "restoration_time", strconv.Itoa(w.RestorationMs))
		}
		if p.CableM > 0 {
			doc.set("CABLE_LENGTH", cfgMapName, p.Name, fmt.Sprintf("%dm", p.CableM))
		}
		for _, q := range p.Queues {
			key := fmt.Sprintf("%s|%d", p.Name, q.Queue)
			sched := "scheduler.strict"
			if q.Strict {
				doc.set("SCHEDULER", sched, "type", "STRICT")
			} else {
				sched = fmt.Sprintf("scheduler.dwrr%d", q.Weight)
				doc.set("SCHEDULER", sched, "type", "DWRR")
				doc.set("SCHEDULER", sched, "weight", strconv.Itoa(q.Weight))
			}
			doc.set("QUEUE", key, "scheduler", sched)
			if e := q.ECN; e != nil {
				if e.Unit != "" {
					return nil, fmt.Errorf("render sonic config for %s %s queue %d: ECN thresholds in %s cannot be written to SONiC (bytes only)", dc.Device, p.Name, q.Queue, e.Unit)
				}
				pct := int(math.Round(e.Pmax * 100))
				prof := fmt.Sprintf("ECN_%d_%d_%d", e.MinBytes, e.MaxBytes, pct)
				for _, c := range []string{"green", "yellow", "red"} {
					doc.set("WRED_PROFILE", prof, "wred_"+c+"_enable", "true")
					doc.set("WRED_PROFILE", prof, c+"_min_threshold", strconv.FormatInt(e.MinBytes, 10))
					doc.set("WRED_PROFILE", prof, c+"_max_threshold", strconv.FormatInt(e.MaxBytes, 10))
					doc.set("WRED_PROFILE", prof, c+"_drop_probability", strconv.Itoa(pct))
				}
				doc.set("WRED_PROFILE", prof, "ecn", "ecn_all")
				doc.set("QUEUE", key, "wred_profile", prof)
			}
		}
		if len(p.PFCPriorities) > 0 || len(p.PGs) > 0 {
			if err := cfgRenderBuffers(doc, dc, p); err != nil {
				return nil, err
			}
		}
	}
	return doc, nil
}

// cfgRenderBuffers writes a port's BUFFER_PG and BUFFER_QUEUE entries and
// its lossless PG profiles, named as SONiC names them:
// pg_lossless_<speed Mb/s>_<cable>m_profile.
func cfgRenderBuffers(doc Doc, dc qos.DeviceConfig, p qos.PortConfig) error {
	lossless := map[int]bool{}
	for _, pg := range p.PGs {
		if !pg.Lossless {
			continue
		}
		if p.SpeedGbps <= 0 || p.CableM <= 0 {
			return fmt.Errorf("render sonic config for %s %s: a lossless PG needs the port speed and cable length", dc.Device, p.Name)
		}
		lossless[pg.PG] = true
		prof := fmt.Sprintf("pg_lossless_%d_%dm_profile", p.SpeedGbps*1000, p.CableM)
		if pg.DynamicTh == nil {
			return fmt.Errorf("render sonic config for %s %s PG %d: dynamic_th is not set", dc.Device, p.Name, pg.PG)
		}
		fields := map[string]string{
			"pool":       cfgIngressPool,
			"xon":        strconv.FormatInt(pg.XonBytes, 10),
			"xoff":       strconv.FormatInt(pg.XoffBytes, 10),
			"size":       strconv.FormatInt(pg.SizeBytes, 10),
			"xon_offset": strconv.FormatInt(pg.XonOffsetBytes, 10),
			"dynamic_th": strconv.Itoa(*pg.DynamicTh),
		}
		// The same name for the same speed and cable must mean the same
		// numbers; two ports that disagree would overwrite each other.
		if old, ok := doc["BUFFER_PROFILE"][prof]; ok && !maps.Equal(old, fields) {
			return fmt.Errorf("render sonic config for %s %s: buffer profile %s already written with other values", dc.Device, p.Name, prof)
		}
		for k, v := range fields {
			doc.set("BUFFER_PROFILE", prof, k, v)
		}
		doc.set("BUFFER_PG", fmt.Sprintf("%s|%d", p.Name, pg.PG), "profile", prof)
	}
	var lossyPGs []int
	for pg := range qos.NumTC {
		if !lossless[pg] {
			lossyPGs = append(lossyPGs, pg)
		}
	}
	// SONiC's convention: the lossy PGs in use (all TCs not lossless map
	// to PG 0 in labctl's maps) share the lossy profile.
	usedPG := map[int]bool{}
	for _, pg := range dc.TCToPG {
		usedPG[pg] = true
	}
	for _, pg := range lossyPGs {
		if usedPG[pg] {
			doc.set("BUFFER_PG", fmt.Sprintf("%s|%d", p.Name, pg), "profile", cfgIngressLossyProf)
		}
	}
	losslessQ := map[int]bool{}
	for _, pr := range p.PFCPriorities {
		losslessQ[dc.TCToQueue[pr]] = true
	}
	var lossyQ []int
	for q := range qos.NumTC {
		if losslessQ[q] {
			doc.set("BUFFER_QUEUE", fmt.Sprintf("%s|%d", p.Name, q), "profile", cfgEgressLosslessPr)
		} else {
			lossyQ = append(lossyQ, q)
		}
	}
	for _, r := range cfgRanges(lossyQ) {
		doc.set("BUFFER_QUEUE", p.Name+"|"+r, "profile", cfgEgressLossyProf)
	}
	return nil
}

// cfgRanges compresses sorted ints to SONiC key ranges: [0 1 2 4] ->
// ["0-2", "4"].
func cfgRanges(v []int) []string {
	var out []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if i == j {
			out = append(out, strconv.Itoa(v[i]))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", v[i], v[j]))
		}
		i = j + 1
	}
	return out
}

// Commands returns the `sudo config` commands that apply the device's QoS
// on a SONiC switch. Maps, schedulers and buffers have no `config`
// subcommand, so the list starts by loading the rendered JSON (path as it
// will be on the switch); PFC, ECN and watchdog follow as their own
// commands so that an operator can re-apply or tune them by hand.
func Commands(dc qos.DeviceConfig, path string) []string {
	cmds := []string{"sudo config load -y " + path}
	for _, p := range dc.Ports {
		for _, pr := range p.PFCPriorities {
			cmds = append(cmds, fmt.Sprintf("sudo config interface pfc priority %s %d on", p.Name, pr))
		}
	}
	seen := map[string]bool{}
	for _, p := range dc.Ports {
		for _, q := range p.Queues {
			if e := q.ECN; e != nil && e.Unit == "" {
				pct := int(math.Round(e.Pmax * 100))
				prof := fmt.Sprintf("ECN_%d_%d_%d", e.MinBytes, e.MaxBytes, pct)
				if !seen[prof] {
					seen[prof] = true
					cmds = append(cmds, fmt.Sprintf("sudo config ecn -profile %s -gmin %d -gmax %d -gdrop %d", prof, e.MinBytes, e.MaxBytes, pct))
				}
			}
		}
	}
	if dc.WatchdogPollMs > 0 {
		cmds = append(cmds, fmt.Sprintf("sudo config pfcwd interval %d", dc.WatchdogPollMs))
	}
	// Group ports with the same watchdog settings into one start command.
	groups := map[qos.PortWatchdog][]string{}
	for _, p := range dc.Ports {
		if p.Watchdog != nil {
			groups[*p.Watchdog] = append(groups[*p.Watchdog], p.Name)
		}
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(a, b qos.PortWatchdog) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	for _, w := range keys {
		cmds = append(cmds, fmt.Sprintf("sudo config pfcwd start --action %s %s %d --restoration-time %d",
			w.Action, strings.Join(groups[w], " "), w.DetectionMs, w.RestorationMs))
	}
	return cmds
}

// InterfaceName maps a containerlab interface (eth1, eth2, …) to the
// SONiC name: docker-sonic-vs's default 32-port SKU uses lanes of four,
// so eth1 -> Ethernet0, eth2 -> Ethernet4. Index is the N of ethN (N >= 1).
func InterfaceName(index int) string {
	return fmt.Sprintf("Ethernet%d", (index-1)*4)
}

// LinuxInterface is the inverse of InterfaceName: Ethernet8 -> eth3.
func LinuxInterface(name string) (string, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "Ethernet"))
	if err != nil || !strings.HasPrefix(name, "Ethernet") || n < 0 || n%4 != 0 {
		return "", fmt.Errorf("sonic interface %q: want EthernetN with N a multiple of 4 (Ethernet0, Ethernet4, …)", name)
	}
	return fmt.Sprintf("eth%d", n/4+1), nil
}
