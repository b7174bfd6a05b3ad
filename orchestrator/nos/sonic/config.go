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

	"github.com/labctl/labctl/orchestrator/fabric"
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

// BuildDoc turns a device config into CONFIG_DB tables. Each map is
// written once: the one most ports use as AZURE (SONiC's own name, so a
// `config load` replaces the defaults field by field), and a port whose
// map differs gets its own, AZURE_<PORT>. The DSCP map most ports use is
// also the switch's global one.
func BuildDoc(dc qos.DeviceConfig) (Doc, error) {
	doc := Doc{}
	putMap := func(table, name string, m map[int]int) {
		for k, v := range m {
			doc.set(table, name, strconv.Itoa(k), strconv.Itoa(v))
		}
	}
	common := map[string]string{}
	for _, k := range portMaps {
		if m := dc.CommonMap(func(p *qos.PortConfig) map[int]int { return *k.model(p) }); m != nil {
			putMap(k.table, cfgMapName, m)
			common[k.field] = qos.FormatMap(m)
		}
	}
	if _, ok := common["dscp_to_tc_map"]; ok {
		doc.set("PORT_QOS_MAP", "global", "dscp_to_tc_map", cfgMapName)
	}
	for _, p := range dc.Ports {
		if p.Trust != "" && p.Trust != qos.TrustDSCP {
			return nil, fmt.Errorf("render sonic config for %s: port %s trusts %s; SONiC classifies IP packets by DSCP and has no trust setting", dc.Device, p.Name, p.Trust)
		}
		if len(p.PolicyTC) > 0 {
			return nil, fmt.Errorf("render sonic config for %s: port %s classifies by an ingress QoS policy; labctl writes SONiC's classification as DSCP maps only (fix: fold the policy's classes into the port's DSCP map)", dc.Device, p.Name)
		}
	}

	hasPFC := false
	for _, p := range dc.Ports {
		if len(p.PFCPriorities) > 0 {
			hasPFC = true
		}
	}
	if hasPFC && len(dc.Pools) == 0 {
		return nil, fmt.Errorf("render sonic config for %s: ports have PFC but the buffer pools are not known", dc.Device)
	}
	for _, pl := range dc.Pools {
		if pl.Name == "" || strings.ContainsAny(pl.Name, "|[] ") {
			return nil, fmt.Errorf("render sonic config for %s: buffer pool name %q is not a CONFIG_DB key", dc.Device, pl.Name)
		}
		doc.set("BUFFER_POOL", pl.Name, "size", strconv.FormatInt(pl.SizeBytes, 10))
		doc.set("BUFFER_POOL", pl.Name, "type", pl.Type)
		doc.set("BUFFER_POOL", pl.Name, "mode", pl.Mode)
		if pl.HeadroomPoolBytes != nil {
			doc.set("BUFFER_POOL", pl.Name, "xoff", strconv.FormatInt(*pl.HeadroomPoolBytes, 10))
		}
	}
	if dc.WatchdogPollMs > 0 {
		doc.set("PFC_WD", "GLOBAL", "POLL_INTERVAL", strconv.Itoa(dc.WatchdogPollMs))
	}
	wreds := map[string]map[string]string{}

	for _, p := range dc.Ports {
		if p.Name == "" || strings.ContainsAny(p.Name, "|[] ") {
			return nil, fmt.Errorf("render sonic config for %s: port name %q is not a SONiC interface name (EthernetN)", dc.Device, p.Name)
		}
		// The startup config labctl gives its switches sets every port's
		// mtu to fabric.SwitchMTU (as SONiC's own default, portmgrd's
		// DEFAULT_MTU_STR 9100); a port the lab's packets need more of
		// (a UET lab's jumbo qos.mtu) gets its mtu here, merged into
		// PORT by config load. nos.CheckSpec keeps it within MTULimits.
		if p.MTU > fabric.SwitchMTU {
			doc.set("PORT", p.Name, "mtu", strconv.Itoa(p.MTU))
		}
		pq := map[string]string{}
		for _, k := range portMaps {
			m := *k.model(&p)
			if len(m) == 0 {
				continue // no map (an empty one would name a table CONFIG_DB cannot hold)
			}
			name := cfgMapName
			if qos.FormatMap(m) != common[k.field] {
				name = cfgMapName + "_" + strings.ToUpper(p.Name)
				putMap(k.table, name, m)
			}
			pq[k.field] = name
		}
		if len(p.PFCPriorities) > 0 {
			pq["pfc_enable"] = qos.FormatInts(p.PFCPriorities)
			if w := p.Watchdog; w != nil {
				pq["pfcwd_sw_enable"] = qos.FormatInts(p.PFCPriorities)
				if w.Priorities != nil {
					pq["pfcwd_sw_enable"] = qos.FormatInts(w.Priorities)
				}
			}
		}
		if p.Shaper != nil {
			sched, fields, err := cfgPortScheduler(&p)
			if err != nil {
				return nil, fmt.Errorf("render sonic config for %s %s: %w", dc.Device, p.Name, err)
			}
			if fields != nil {
				for f, v := range fields {
					doc.set("SCHEDULER", sched, f, v)
				}
				pq["scheduler"] = sched
			}
		}
		for k, v := range pq {
			doc.set("PORT_QOS_MAP", p.Name, k, v)
		}
		if p.PFCAsym {
			doc.set("PORT", p.Name, "pfc_asym", "on")
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
			sched, fields, err := cfgScheduler(&p, &q)
			if err != nil {
				return nil, fmt.Errorf("render sonic config for %s %s queue %d: %w", dc.Device, p.Name, q.Queue, err)
			}
			for f, v := range fields {
				doc.set("SCHEDULER", sched, f, v)
			}
			doc.set("QUEUE", key, "scheduler", sched)
			prof, fields, err := cfgWRED(&q)
			if err != nil {
				return nil, fmt.Errorf("render sonic config for %s %s queue %d: %w", dc.Device, p.Name, q.Queue, err)
			}
			if fields == nil {
				continue
			}
			// One name, one profile: a second profile that would take a
			// used name with other values gets a numbered one.
			for n := 2; wreds[prof] != nil && !maps.Equal(wreds[prof], fields); n++ {
				prof = fmt.Sprintf("%s_%d", strings.TrimSuffix(prof, fmt.Sprintf("_%d", n-1)), n)
			}
			wreds[prof] = fields
			for f, v := range fields {
				doc.set("WRED_PROFILE", prof, f, v)
			}
			doc.set("QUEUE", key, "wred_profile", prof)
		}
		if err := cfgRenderBuffers(doc, dc, p); err != nil {
			return nil, err
		}
	}
	if err := cfgRenderChannels(doc, dc); err != nil {
		return nil, fmt.Errorf("render sonic config for %s: %w", dc.Device, err)
	}
	return doc, nil
}

// cfgRenderChannels writes the ports' port channels and VLANs as the
// resolver reads them (portChannels, vlanMembers), with the fields
// sonic-buildimage's YANG models give them (sonic-portchannel.yang,
// sonic-vlan.yang): for each port channel its members name, PORTCHANNEL|
// PortChannel<n> with admin_status (mandatory there; "down" where the
// model's ChannelDown says so, teammgrd's default where none was given)
// fallback "true" for ChannelFallback static and min_links
// (ChannelMinLinks); PORTCHANNEL_MEMBER|
// PortChannel<n>|<port> for each member; where it has an address
// (ChannelAddress), PORTCHANNEL_INTERFACE's PortChannel<n> entry (the
// interface, PORTCHANNEL_INTERFACE_LIST) and the key read
// (PortConfig.Origins["channel_address"], PORTCHANNEL_INTERFACE_IPPREFIX_
// LIST); for a port in a VLAN (Switched), VLAN|Vlan<n> with its vlanid
// and the VLAN_MEMBER entry with the tagging_mode read. A member's LACP
// mode is always active in SONiC (teammgrd's addLag), so a model whose
// member is passive or static is refused.
func cfgRenderChannels(doc Doc, dc qos.DeviceConfig) error {
	entry := func(table, key string) {
		if doc[table] == nil {
			doc[table] = map[string]map[string]string{}
		}
		if doc[table][key] == nil {
			doc[table][key] = map[string]string{}
		}
	}
	type channel struct {
		down, address, fallback, member string
		minLinks                        int
	}
	seen := map[string]channel{}
	for _, p := range dc.Ports {
		if p.Switched != "" {
			key, ok := strings.CutPrefix(p.Switched, "VLAN_MEMBER|")
			vlan, port, _ := strings.Cut(key, "|")
			id, isVlan := strings.CutPrefix(vlan, "Vlan")
			if !ok || !isVlan || port != p.Name {
				return fmt.Errorf("port %s is switched by %q, not a VLAN_MEMBER|Vlan<n>|%s entry SONiC's config can carry", p.Name, p.Switched, p.Name)
			}
			doc.set("VLAN", vlan, "vlanid", id)
			entry("VLAN_MEMBER", key)
			if m := p.Origins["tagging_mode"]; m != "" {
				doc.set("VLAN_MEMBER", key, "tagging_mode", m)
			}
		}
		if p.Channel == "" {
			continue
		}
		if !strings.HasPrefix(p.Channel, "PortChannel") || strings.Contains(p.Channel, "|") {
			return fmt.Errorf("port %s is a member of %q, not a SONiC port channel name (PortChannel<n>)", p.Name, p.Channel)
		}
		if p.LACPMode() != "active" {
			return fmt.Errorf("port %s is a member of %s in mode %s; SONiC's members always run LACP active (teammgrd's addLag)", p.Name, p.Channel, p.LACPMode())
		}
		if p.ChannelFallback != "" && p.ChannelFallback != "static" {
			return fmt.Errorf("port %s: %s's LACP fallback %s; SONiC's PORTCHANNEL fallback forwards on the member as the port channel's (static)", p.Name, p.Channel, p.ChannelFallback)
		}
		c := channel{down: p.ChannelDown, fallback: p.ChannelFallback, minLinks: p.ChannelMinLinks, member: p.Name}
		if p.ChannelAddress {
			c.address, _ = strings.CutPrefix(p.Origins["channel_address"], "PORTCHANNEL_INTERFACE|")
			if ch, _, _ := strings.Cut(c.address, "|"); ch != p.Channel {
				return fmt.Errorf("port %s: its port channel %s has an address, but not the PORTCHANNEL_INTERFACE|%s|<prefix> key that gives it, which labctl writes back as read", p.Name, p.Channel, p.Channel)
			}
		}
		entry("PORTCHANNEL_MEMBER", p.Channel+"|"+p.Name)
		if first, ok := seen[p.Channel]; ok {
			if (first.down != "") != (c.down != "") || first.address != c.address || first.fallback != c.fallback || first.minLinks != c.minLinks {
				return fmt.Errorf("ports %s and %s, members of %s, give it different admin_status, address, fallback or min_links; SONiC has one PORTCHANNEL entry", first.member, p.Name, p.Channel)
			}
			continue
		}
		seen[p.Channel] = c
		status := "up"
		if c.down != "" {
			status = "down"
		}
		doc.set("PORTCHANNEL", p.Channel, "admin_status", status)
		if c.fallback == "static" {
			doc.set("PORTCHANNEL", p.Channel, "fallback", "true")
		}
		if c.minLinks > 0 {
			doc.set("PORTCHANNEL", p.Channel, "min_links", strconv.Itoa(c.minLinks))
		}
		if c.address != "" {
			entry("PORTCHANNEL_INTERFACE", p.Channel)
			entry("PORTCHANNEL_INTERFACE", c.address)
		}
	}
	return nil
}

// cfgScheduler is a queue's SCHEDULER entry and its name:
// scheduler.strict or scheduler.dwrr<weight>, and a shaped queue's
// .pir<bytes per second>, and .pbs<bytes> when it has a burst, after
// it (a packet meter's .pps<packets per second>, and .pbs<packets>,
// cfgShaperFields). SONiC's pir is a rate in bytes per second (meter_type bytes): a
// shaper given as a percent of the port's speed is written at its rate
// on the speed the port runs at (RunSpeedGbps, as the simulator and lint
// take it), which must be known.
func cfgScheduler(p *qos.PortConfig, q *qos.QueueConfig) (string, map[string]string, error) {
	name, fields := "scheduler.strict", map[string]string{"type": "STRICT"}
	if !q.Strict {
		name = fmt.Sprintf("scheduler.dwrr%d", q.Weight)
		fields = map[string]string{"type": "DWRR", "weight": strconv.Itoa(q.Weight)}
	}
	suffix, err := cfgShaperFields(p, q.Shaper, fields)
	if err != nil {
		return "", nil, err
	}
	return name + suffix, fields, nil
}

// cfgPortScheduler is the SCHEDULER entry of a port's own shaper, which
// its PORT_QOS_MAP scheduler names, and its name: port.pir<bytes per
// second>, and .pbs<bytes> when it has a burst (a packet meter's
// port.pps<packets per second>, cfgShaperFields). SAI reads only the peak
// rate and burst of a port's scheduler, so the entry has no type. nil
// fields: the port is not shaped.
func cfgPortScheduler(p *qos.PortConfig) (string, map[string]string, error) {
	fields := map[string]string{}
	suffix, err := cfgShaperFields(p, p.Shaper, fields)
	if err != nil || suffix == "" {
		return "", nil, err
	}
	return "port" + suffix, fields, nil
}

// cfgShaperFields adds a shaper's fields to a SCHEDULER entry's
// (meter_type bytes, pir, pbs) and returns what its name takes after it:
// .pir<bytes per second>, and .pbs<bytes> when it has a burst; "" when
// there is no shaper. SONiC's pir is a rate in bytes per second: a
// shaper given as a percent of the port's speed is written at its rate
// on the port's speed, which must be known. A packet meter is written
// as meter_type packets, pir its packets per second and pbs its burst in
// packets, and named .pps<packets per second>, and .pbs<packets> when
// it has a burst.
func cfgShaperFields(p *qos.PortConfig, s *qos.Shaper, fields map[string]string) (string, error) {
	if s != nil && s.PacketsPerSec > 0 {
		name := fmt.Sprintf(".pps%d", s.PacketsPerSec)
		fields["meter_type"] = "packets"
		fields["pir"] = strconv.FormatInt(s.PacketsPerSec, 10)
		if s.BurstPackets > 0 {
			name += fmt.Sprintf(".pbs%d", s.BurstPackets)
			fields["pbs"] = strconv.FormatInt(s.BurstPackets, 10)
		}
		return name, nil
	}
	if s == nil || s.RateKbps <= 0 && s.Percent <= 0 {
		return "", nil
	}
	kbps := s.RateKbps
	if kbps <= 0 {
		if p.RunSpeedGbps() <= 0 {
			return "", fmt.Errorf("a shaper of %d%% of the port's speed cannot be written to SONiC, whose pir is a rate in bytes per second, without the port's speed (fix: give the port its speed, or the shaper a rate)", s.Percent)
		}
		kbps = s.RateKbpsAt(p.RunSpeedGbps())
	}
	pir := kbps * 1000 / 8
	name := fmt.Sprintf(".pir%d", pir)
	fields["meter_type"] = "bytes"
	fields["pir"] = strconv.FormatInt(pir, 10)
	if s.BurstBytes > 0 {
		name += fmt.Sprintf(".pbs%d", s.BurstBytes)
		fields["pbs"] = strconv.FormatInt(s.BurstBytes, 10)
	}
	return name, nil
}

// cfgWRED is a queue's WRED profile as WRED_PROFILE fields and its name:
// the profile's own when the model has one, else ECN_<min>_<max>_<pct>
// as labctl names its marking profiles. nil fields: no WRED.
func cfgWRED(q *qos.QueueConfig) (string, map[string]string, error) {
	green := q.ECN
	if green == nil {
		green = q.Drop
	}
	var yellow, red *qos.WREDColour
	name := ""
	if q.WRED != nil {
		yellow, red, name = q.WRED.Yellow, q.WRED.Red, q.WRED.Name
	}
	if green == nil && yellow == nil && red == nil {
		if q.WRED == nil {
			return "", nil, nil
		}
	}
	fields := map[string]string{"ecn": q.ECNMode()}
	put := func(c string, e *qos.ECNConfig) error {
		if e == nil {
			fields["wred_"+c+"_enable"] = "false"
			return nil
		}
		if e.Unit != "" {
			return fmt.Errorf("WRED thresholds in %s cannot be written to SONiC (bytes only)", e.Unit)
		}
		fields["wred_"+c+"_enable"] = "true"
		fields[c+"_min_threshold"] = strconv.FormatInt(e.MinBytes, 10)
		fields[c+"_max_threshold"] = strconv.FormatInt(e.MaxBytes, 10)
		fields[c+"_drop_probability"] = strconv.Itoa(int(math.Round(e.Pmax * 100)))
		return nil
	}
	if err := put("green", green); err != nil {
		return "", nil, err
	}
	if q.WRED == nil && green != nil {
		// labctl's own profiles treat every colour alike.
		if err := put("yellow", green); err != nil {
			return "", nil, err
		}
		if err := put("red", green); err != nil {
			return "", nil, err
		}
		if q.ECN != nil {
			fields["ecn"] = "ecn_all"
		}
	} else {
		for c, col := range map[string]*qos.WREDColour{"yellow": yellow, "red": red} {
			var e *qos.ECNConfig
			if col != nil {
				e = &col.ECNConfig
			}
			if err := put(c, e); err != nil {
				return "", nil, err
			}
		}
	}
	if name == "" || strings.ContainsAny(name, "|[] ") {
		if green == nil {
			name = "WRED_NONE"
		} else {
			kind := "ECN"
			if q.ECN == nil {
				kind = "WRED_DROP"
			}
			name = fmt.Sprintf("%s_%d_%d_%d", kind, green.MinBytes, green.MaxBytes, int(math.Round(green.Pmax*100)))
		}
	}
	return name, fields, nil
}

// cfgRenderBuffers writes a port's BUFFER_PG and BUFFER_QUEUE entries and
// the profiles they use. A lossless PG profile without a name gets SONiC's:
// pg_lossless_<speed Mb/s>_<cable>m_profile. Queues with the same profile
// share one key range ("Ethernet0|0-2").
func cfgRenderBuffers(doc Doc, dc qos.DeviceConfig, p qos.PortConfig) error {
	for _, pg := range p.PGs {
		prof := pg.Profile
		lossless := qos.LosslessProfile(&pg.BufferProfile)
		if prof == "" && lossless {
			if p.SpeedGbps <= 0 || p.CableM <= 0 {
				return fmt.Errorf("render sonic config for %s %s: a lossless PG needs the port speed and cable length", dc.Device, p.Name)
			}
			prof = qos.LosslessPGProfileName(p.SpeedGbps, p.CableM)
		}
		if prof == "" {
			return fmt.Errorf("render sonic config for %s %s PG %d: the buffer profile has no name", dc.Device, p.Name, pg.PG)
		}
		if lossless && pg.DynamicTh == nil && pg.StaticThBytes == nil {
			return fmt.Errorf("render sonic config for %s %s PG %d: neither dynamic_th nor static_th is set", dc.Device, p.Name, pg.PG)
		}
		if err := cfgPutProfile(doc, dc, p, prof, pg.BufferProfile); err != nil {
			return err
		}
		doc.set("BUFFER_PG", fmt.Sprintf("%s|%d", p.Name, pg.PG), "profile", prof)
	}
	byProfile := map[string][]int{}
	for _, q := range p.Queues {
		if q.Buffer == nil {
			continue
		}
		if q.Buffer.Profile == "" {
			return fmt.Errorf("render sonic config for %s %s queue %d: the buffer profile has no name", dc.Device, p.Name, q.Queue)
		}
		if err := cfgPutProfile(doc, dc, p, q.Buffer.Profile, *q.Buffer); err != nil {
			return err
		}
		byProfile[q.Buffer.Profile] = append(byProfile[q.Buffer.Profile], q.Queue)
	}
	for prof, qs := range byProfile {
		slices.Sort(qs)
		for _, r := range cfgRanges(qs) {
			doc.set("BUFFER_QUEUE", p.Name+"|"+r, "profile", prof)
		}
	}
	return nil
}

// cfgPutProfile writes one BUFFER_PROFILE entry. The same name must mean
// the same numbers on every port; two that disagree would overwrite each
// other.
func cfgPutProfile(doc Doc, dc qos.DeviceConfig, p qos.PortConfig, name string, b qos.BufferProfile) error {
	if strings.ContainsAny(name, "|[] ") {
		return fmt.Errorf("render sonic config for %s %s: buffer profile name %q is not a CONFIG_DB key", dc.Device, p.Name, name)
	}
	fields := map[string]string{}
	if b.Pool != "" {
		fields["pool"] = b.Pool
	}
	for k, v := range map[string]*int64{"size": b.SizeBytes, "static_th": b.StaticThBytes, "xoff": b.XoffBytes, "xon": b.XonBytes, "xon_offset": b.XonOffsetBytes} {
		if v != nil {
			fields[k] = strconv.FormatInt(*v, 10)
		}
	}
	if b.DynamicTh != nil {
		fields["dynamic_th"] = strconv.Itoa(*b.DynamicTh)
	}
	if old, ok := doc["BUFFER_PROFILE"][name]; ok && !maps.Equal(old, fields) {
		return fmt.Errorf("render sonic config for %s %s: buffer profile %s already written with other values", dc.Device, p.Name, name)
	}
	for k, v := range fields {
		doc.set("BUFFER_PROFILE", name, k, v)
	}
	return nil
}

// cfgRanges compresses sorted ints to SONiC key ranges: [0 1 2 4] ->
// ["0-2", "4"], as orchagent's generateIdListFromMap writes them.
func cfgRanges(v []int) []string {
	var out []string
	for _, r := range cfgRuns(v) {
		out = append(out, cfgRange(r))
	}
	return out
}

// cfgRuns are the runs of consecutive values of sorted ints, first and
// last: [0 1 2 4] -> [[0 2] [4 4]].
func cfgRuns(v []int) [][2]int {
	var out [][2]int
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		out = append(out, [2]int{v[i], v[j]})
		i = j + 1
	}
	return out
}

// cfgRange writes a run as a key's index: "4" or "0-2".
func cfgRange(r [2]int) string {
	if r[0] == r[1] {
		return strconv.Itoa(r[0])
	}
	return fmt.Sprintf("%d-%d", r[0], r[1])
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
	// Group ports with the same watchdog settings into one start command
	// (the priorities it watches are PORT_QOS_MAP's, not the command's).
	type start struct { // in PortWatchdog's order, which sorts the commands
		detection, restoration int
		action                 string
	}
	groups := map[start][]string{}
	for _, p := range dc.Ports {
		if w := p.Watchdog; w != nil {
			k := start{w.DetectionMs, w.RestorationMs, w.Action}
			groups[k] = append(groups[k], p.Name)
		}
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(a, b start) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	for _, w := range keys {
		cmds = append(cmds, fmt.Sprintf("sudo config pfcwd start --action %s %s %d --restoration-time %d",
			w.action, strings.Join(groups[w], " "), w.detection, w.restoration))
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
