package sonic

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/labctl/labctl/orchestrator/qos"
)

// ConfigDB is the QoS part of a SONiC CONFIG_DB as typed tables: one Go
// map per table, key -> entry, each entry a struct with one Go field per
// CONFIG_DB field. Beside each field stands how labctl uses it (the use
// and why tags: simulated, lint or ignored, see qos.Use): Fields lists the
// statements, the docs and lint's QOS011 findings come from them, and a
// test fails on a field without one.
//
// Map tables (DSCP_TO_TC_MAP, …) have numbers for fields and keys; their
// statement is the table's own (on the ConfigDB field). Other tables of a
// full config_db.json (BGP, VLAN, …) are not read.
type ConfigDB struct {
	DSCPToTCMap   map[string]IntMap `table:"DSCP_TO_TC_MAP" keys:"63" yang:"63,15" use:"simulated" why:"classifies each DSCP into a traffic class at the ingress port (the map named by the port's dscp_to_tc_map, or the global one). Its keys and values, as those of every map table, are read as qosorch's map handlers read them, with std::stoi: \" 3\" or \"+3\" is 3 (noted, QOS000); a text std::stoi reads as another number (\"0x3\" is 0, \"3.5\" is 3) is refused at its line. One std::stoi cannot read at all (no digit, or beyond an int: it throws) the switch refuses: qosorch never creates the entry, nor, where the handler catches nothing (every map table but DOT1P_TO_TC_MAP, whose handler skips the pair, and TC_TO_DSCP_MAP, whose refuses the entry alone for no digit and reads a pair's value before its key), the entries after it in key order, and the PORT_QOS_MAP entries naming them apply nothing (no maps, no PFC): lint's error (QOS021). A number out of the table's range the handlers hand SAI cut to a byte, unchecked (264 is 8), but TcToDscpMapHandler, which refuses the entry for a DSCP beyond 63. A traffic class 8-15 or a TC_TO_QUEUE_MAP queue 8-9, which SONiC's YANG allows (its dual-ToR maps put DSCP 33 in TC 8), the switch applies, and labctl leaves the pair out of its 8-class model (noted, QOS000; RoCE's DSCP in TC 8 is QOS003's error, and a PFC class sent to queue 8-9, which no PFC priority pauses, QOS016's); a number beyond the YANG ranges labctl takes SAI to refuse (the sources do not say): that entry alone is not created, with the same effect (QOS021 at the pair's line)"`
	DOT1PToTCMap  map[string]IntMap `table:"DOT1P_TO_TC_MAP" keys:"7" yang:"7,15" use:"ignored" why:"classifies 802.1p priorities of tagged non-IP frames: SONiC classifies IP packets by DSCP, and the lab's links carry no tagged frames"`
	TCToQueueMap  map[string]IntMap `table:"TC_TO_QUEUE_MAP" keys:"7" yang:"15,9" use:"simulated" why:"the egress queue each traffic class leaves by"`
	TCToPGMap     map[string]IntMap `table:"TC_TO_PRIORITY_GROUP_MAP" keys:"7" yang:"15,7" use:"simulated" why:"the ingress priority group each traffic class fills (its buffer profile, its PFC)"`
	PFCToQueueMap map[string]IntMap `table:"MAP_PFC_PRIORITY_TO_QUEUE" keys:"7" yang:"7,7" use:"simulated" why:"the queue a received PFC frame for each priority pauses"`
	PFCToPGMap    map[string]IntMap `table:"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" keys:"7" yang:"7,7" use:"simulated" why:"the PG whose XOFF sends each PFC priority's pause frames, on the ports whose PORT_QOS_MAP names the map, as Broadcom's PFC-tx priority to PG profile has it (the SAI header leaves the meaning to the vendor; Barefoot's SAI takes it as the buffer group the traffic fills): a priority whose traffic fills another PG is paused by the map's PG, not its own, and lint flags that (QOS023); a priority the map leaves out is paused by its own PG (labctl's assumption)"`
	TCToDSCPMap   map[string]IntMap `table:"TC_TO_DSCP_MAP" keys:"7" values:"63" yang:"15,63" use:"simulated" why:"the DSCP a port whose PORT_QOS_MAP names the map writes into the IP packets of each traffic class it sends (egress remarking: orchagent binds it as SAI's TC_AND_COLOR_TO_DSCP map of the port, and green is the colour of every unpoliced packet); the next switch classifies them by it, and lint flags a rewrite that moves RoCE or its CNPs into another class there (QOS024); a class the map leaves out keeps its DSCP"`
	// Maps of PORT_QOS_MAP fields whose effect labctl does not model: each
	// is a table here only so that a port's name of one resolves
	// (portRefs), their fields free text, as qosorch checks them.
	TCToDot1pMap  map[string]StringMap `table:"TC_TO_DOT1P_MAP" use:"ignored" why:"802.1p remarking of tagged frames, for ports whose tc_to_dot1p_map names the map: the lab's links are untagged"`
	MPLSTCToTCMap map[string]StringMap `table:"MPLS_TC_TO_TC_MAP" use:"ignored" why:"classifies MPLS packets by their traffic class bits, for ports whose mpls_tc_to_tc_map names the map: the lab carries no MPLS"`
	DSCPToFCMap   map[string]StringMap `table:"DSCP_TO_FC_MAP" use:"ignored" why:"a DSCP to forwarding class map, for ports whose dscp_to_fc_map names it: forwarding classes select no queue or PG, and labctl does not model them"`
	EXPToFCMap    map[string]StringMap `table:"EXP_TO_FC_MAP" use:"ignored" why:"an MPLS EXP to forwarding class map, for ports whose exp_to_fc_map names it: the lab carries no MPLS"`

	PortQoSMap map[string]*PortQoSMapEntry `table:"PORT_QOS_MAP"`
	Queue      map[string]*QueueEntry      `table:"QUEUE"`
	Scheduler  map[string]*SchedulerEntry  `table:"SCHEDULER"`
	WRED       map[string]*WREDEntry       `table:"WRED_PROFILE"`

	BufferPool    map[string]*BufferPoolEntry    `table:"BUFFER_POOL"`
	BufferProfile map[string]*BufferProfileEntry `table:"BUFFER_PROFILE"`
	BufferPG      map[string]*BufferRefEntry     `table:"BUFFER_PG"`
	BufferQueue   map[string]*BufferRefEntry     `table:"BUFFER_QUEUE"`
	IngressLists  map[string]*ProfileListEntry   `table:"BUFFER_PORT_INGRESS_PROFILE_LIST"`
	EgressLists   map[string]*ProfileListEntry   `table:"BUFFER_PORT_EGRESS_PROFILE_LIST"`

	CableLength map[string]StringMap   `table:"CABLE_LENGTH" use:"simulated" why:"each port's cable as the switch takes it: SONiC's buffer manager sizes the lossless PGs' headroom for it, and lint checks that headroom against the lab's link, whose length (5 ns/m of propagation) the simulator takes from the lab, and warns where the peer switch's CABLE_LENGTH gives the same cable a longer one (QOS006: the configs disagree on it)"`
	PFCWD       map[string]*PFCWDEntry `table:"PFC_WD"`
	Port        map[string]*PortEntry  `table:"PORT" quiet:"true"`
	// PortChannelMember is keyed PortChannel<n>|<port>; its entries have
	// no fields labctl reads.
	PortChannelMember map[string]StringMap `table:"PORTCHANNEL_MEMBER" use:"simulated" why:"makes the key's port a member of the port channel (PortChannel<n>|<port>): teammgrd runs teamd's LACP runner for every PORTCHANNEL (addLag), so a member whose link's other end is in no port channel (a host's NIC, a peer port left out) has no partner and carries nothing: lint's error (QOS026), and the simulator runs the link down from the start; so does a member whose PORTCHANNEL is down, or facing a member, whose port channel has no PORTCHANNEL_INTERFACE address (the lab's addresses sit on the member ports, INTERFACE), and a member facing another partner than its fellow members (two switches without MLAG, or two port channels of one switch: teamd's lacp runner enables one aggregator's ports, lacp_update_selected; the switches' LACP priorities and MACs decide which, and labctl, not knowing them, guesses the partner with the most members). A key naming a port channel PORTCHANNEL does not define makes no member (teammgrd's doLagMemberTask waits for the port channel, isLagStateOk): lint notes it (QOS000). labctl reads a member's QoS from its own entries, as SONiC programs QoS on physical ports; a key that is not PortChannel<n>|<port> labctl refuses at its line"`
	// PortChannel is keyed PortChannel<n>; labctl reads admin_status,
	// fallback and min_links of its fields.
	PortChannel map[string]StringMap `table:"PORTCHANNEL" use:"simulated" why:"defines the port channel its PORTCHANNEL_MEMBER keys name (teammgrd adds a member only to a port channel it created, doLagMemberTask's isLagStateOk). admin_status other than up (portmgr.h's DEFAULT_ADMIN_STATUS_STR, down, where none is given) keeps the team device down (setLagAdminStatus): its members carry nothing, lint's error (QOS026) and a link down in the simulator. fallback true makes teamd's lacp runner forward on a member without an LACP partner as the port channel's, which then carries the link's traffic only where PORTCHANNEL_INTERFACE gives it an address (qos.ChannelAlone). min_links (1-255: sonic-portchannel.yang allows up to 1024, but teamd refuses a min_ports above 255, lacp_load_config, and the port channel is never created; another value is refused at its line) teammgrd's addLag hands teamd's lacp runner as min_ports: with fewer members carrying traffic the team device is down and every member carries nothing, those whose own link is fine included (lint's error, QOS026, quoting the min_links line and naming the members, and a link down in the simulator)"`
	// PortChannelInterface is keyed PortChannel<n> or PortChannel<n>|<prefix>.
	PortChannelInterface map[string]StringMap `table:"PORTCHANNEL_INTERFACE" use:"simulated" why:"a PortChannel<n>|<prefix> key gives the port channel an IP address: a bundled member's traffic is its port channel's, so a link whose two ends are members carries the lab's traffic only where both port channels have an address (the lab's startup config puts each link's address on the member port, INTERFACE); the address itself is not read"`
	// VlanMember is keyed Vlan<n>|<port>; of its fields labctl keeps
	// tagging_mode only to write it back (cfgRenderChannels).
	VlanMember map[string]StringMap `table:"VLAN_MEMBER" use:"lint" why:"makes the key's port (Vlan<n>|<port>) a member of the VLAN, an L2 port: on the lab's routed fabric lint warns (QOS026) that the link may route nothing, as labctl has not settled which wins on the switch (portsorch's addBridgePort refuses a port that already has a router interface, so the order INTERFACE and VLAN_MEMBER are applied in decides); the simulator runs the link routed"`
	// ACLTable and ACLRule are read by aclFilters; a list (ports) is kept
	// as CONFIG_DB stores it, its items joined by commas.
	ACLTable map[string]StringMap `table:"ACL_TABLE" use:"lint" why:"binds an ACL (its type, stage and ports; a port channel binds its members) whose ACL_RULE entries aclorch programs in the ASIC: labctl does not simulate ACLs, and lint errs on a rule of a table bound to data ports that drops, redirects or re-marks RoCEv2 packets (UDP to port 4791) of RoCE's DSCP or its CNPs' (QOS017; a warning where the rule's address or source-port terms match some of them). CTRLPLANE tables, which filter what the CPU receives, and IPv6 ones (L3V6, MIRRORV6) are not read"`
	ACLRule  map[string]StringMap `table:"ACL_RULE" use:"lint" why:"a rule of the ACL its key names (<table>|<rule>), tried in PRIORITY order (the higher first), the first that matches a packet deciding: lint reads its match (IP_PROTOCOL, L4_DST_PORT, L4_DST_PORT_RANGE, DSCP as value or value/mask, ETHER_TYPE, IP_TYPE; an address, a source port or another term matches some of RoCE's packets) and its action (PACKET_ACTION DROP or REDIRECT:<port>, REDIRECT_ACTION, DSCP_ACTION, POLICER_ACTION harm them; FORWARD, COPY and mirroring do not), as aclorch.cpp's validateAddMatch and validateAddAction read them; see ACL_TABLE"`
	// SwitchHash is keyed GLOBAL; read by hashRisks, its lists (ecmp_hash,
	// lag_hash) as CONFIG_DB stores them, the items joined by commas.
	SwitchHash map[string]StringMap `table:"SWITCH_HASH" use:"lint" why:"the fields the ASIC hashes to pick among equal-cost routes (ecmp_hash) and port channel members (lag_hash), and the algorithms (ecmp_hash_algorithm, lag_hash_algorithm), as switchorch's SwitchHelper::parseSwHash reads them: the simulator hashes every packet's addresses, protocol and both UDP ports, whatever the table says. Lint warns (QOS017, at the field's line) of a field list without L4_SRC_PORT, which RoCE's QPs between two hosts differ by alone (their UDP destination port is 4791), so the switch puts them all on one path, and of the RANDOM algorithm (SAI_HASH_ALGORITHM_RANDOM), which labctl takes to pick a path per packet, so one QP's packets arrive out of order (unverified on an ASIC)"`

	DeviceMetadata  map[string]*DeviceMetadataEntry  `table:"DEVICE_METADATA" quiet:"true"`
	TrafficPattern  map[string]*TrafficPatternEntry  `table:"LOSSLESS_TRAFFIC_PATTERN"`
	LosslessDefault map[string]*LosslessDefaultEntry `table:"DEFAULT_LOSSLESS_BUFFER_PARAMETER"`
}

// DeviceMetadataEntry is DEVICE_METADATA|localhost; its other fields
// (hostname, hwsku, bgp_asn, …) are not QoS and not listed.
type DeviceMetadataEntry struct {
	BufferModel string `cfg:"buffer_model" use:"simulated" why:"traditional (labctl's default): SONiC's buffer manager writes the lossless PGs of each port's pfc_enable itself. dynamic: it writes none, so a PG is lossless only through its own BUFFER_PG entry (a named profile, or profile NULL: sized by the dynamic buffer manager, which refuses an entry with an empty profile or none; whose headroom labctl computes as it renders it, and lint notes that, QOS000)"`

	Extra map[string]string `cfg:"-"`
}

// TrafficPatternEntry is LOSSLESS_TRAFFIC_PATTERN|AZURE, read by the
// dynamic buffer manager only.
type TrafficPatternEntry struct {
	MTU           string `cfg:"mtu" use:"ignored" why:"the dynamic buffer model's packet size for lossless headroom: labctl sizes a dynamically computed PG's headroom for the port's MTU as it renders it (with buffer_model dynamic lint notes it, QOS000); the traditional buffer manager does not read it"`
	SmallPacketPc string `cfg:"small_packet_percentage" use:"ignored" why:"the dynamic buffer model's share of small packets in lossless headroom: not modelled (with buffer_model dynamic lint notes it, QOS000); the traditional buffer manager does not read it"`

	Extra map[string]string `cfg:"-"`
}

// LosslessDefaultEntry is DEFAULT_LOSSLESS_BUFFER_PARAMETER|AZURE, read
// by the dynamic buffer manager only.
type LosslessDefaultEntry struct {
	DefaultDynamicTh   string `cfg:"default_dynamic_th" use:"ignored" why:"the dynamic_th the dynamic buffer model gives the lossless profiles it computes: labctl gives a computed PG dynamic_th 0 (with buffer_model dynamic lint notes it, QOS000); the traditional buffer manager does not read it"`
	OverSubscribeRatio string `cfg:"over_subscribe_ratio" use:"ignored" why:"the dynamic buffer model's shared headroom pool sizing: not modelled (with buffer_model dynamic lint notes it, QOS000); the traditional buffer manager does not read it"`

	Extra map[string]string `cfg:"-"`
}

// IntMap is an entry of a map table: number -> number.
type IntMap map[int]int

// StringMap is an entry of a table whose fields are free names (CABLE_LENGTH
// names ports).
type StringMap map[string]string

// PortQoSMapEntry is PORT_QOS_MAP|<port> (or |global).
type PortQoSMapEntry struct {
	DSCPToTCMap   string  `cfg:"dscp_to_tc_map" use:"simulated" why:"names the port's DSCP map (global: the switch's, for ports without one)"`
	DOT1PToTCMap  string  `cfg:"dot1p_to_tc_map" use:"ignored" why:"names the port's 802.1p map (see DOT1P_TO_TC_MAP); its entries are not modelled, but the name must resolve: orchagent applies none of the port's entry while the name is one the config does not define (QOS013)"`
	TCToQueueMap  string  `cfg:"tc_to_queue_map" use:"simulated" why:"names the port's traffic class to queue map"`
	TCToPGMap     string  `cfg:"tc_to_pg_map" use:"simulated" why:"names the port's traffic class to PG map"`
	PFCToQueueMap string  `cfg:"pfc_to_queue_map" use:"simulated" why:"names the port's PFC priority to queue map"`
	PFCToPGMap    string  `cfg:"pfc_to_pg_map" use:"simulated" why:"names the port's PFC priority to PG map (see PFC_PRIORITY_TO_PRIORITY_GROUP_MAP); without one each PFC priority is paused by the PG its traffic class fills"`
	PFCEnable     string  `cfg:"pfc_enable" use:"simulated" why:"the priorities with PFC: their PGs pause (with a lossless profile) instead of dropping"`
	PFCWDEnable   *string `cfg:"pfcwd_sw_enable" use:"simulated" why:"the priorities the PFC watchdog watches; empty or missing, none: orchagent sets the port's watchdog bitmap from this field alone, and pfcwdorch starts no watchdog on a port without a lossless TC in it, whatever PFC_WD says"`
	TCToDSCPMap   string  `cfg:"tc_to_dscp_map" use:"simulated" why:"names the port's egress remarking map (see TC_TO_DSCP_MAP); without one the port sends packets with the DSCP they came with (global: no port)"`
	TCToDot1pMap  string  `cfg:"tc_to_dot1p_map" use:"ignored" why:"names the port's 802.1p remarking map (see TC_TO_DOT1P_MAP); the lab's links are untagged, but the name must resolve: orchagent applies none of the port's entry while the name is one the config does not define (QOS013)"`
	MPLSTCToTCMap string  `cfg:"mpls_tc_to_tc_map" use:"ignored" why:"names the port's MPLS classification map (see MPLS_TC_TO_TC_MAP); the lab carries no MPLS, but the name must resolve: orchagent applies none of the port's entry while the name is one the config does not define (QOS013)"`
	DSCPToFCMap   string  `cfg:"dscp_to_fc_map" use:"ignored" why:"names the port's DSCP to forwarding class map (see DSCP_TO_FC_MAP); not modelled, but the name must resolve: orchagent applies none of the port's entry while the name is one the config does not define (QOS013)"`
	EXPToFCMap    string  `cfg:"exp_to_fc_map" use:"ignored" why:"names the port's MPLS EXP to forwarding class map (see EXP_TO_FC_MAP); the lab carries no MPLS, but the name must resolve: orchagent applies none of the port's entry while the name is one the config does not define (QOS013)"`
	PFCAsym       string  `cfg:"pfc_asym" use:"ignored" why:"orchagent reads pfc_asym from the PORT table (portsorch), not from PORT_QOS_MAP, whose handler passes over fields it does not know: here it changes nothing"`
	Scheduler     string  `cfg:"scheduler" use:"simulated" why:"names the port's own SCHEDULER entry (SAI_PORT_ATTR_QOS_SCHEDULER_PROFILE_ID): its pir (bytes per second, meter_type bytes, or packets per second, meter_type packets) and pbs shape the whole port, all its queues together; 0 or none leaves it unshaped, and the other fields of the entry do nothing there (global: no port)"`

	// Blank are the fields the entry gives as "" (decodeEntry): for a
	// reference, not the same as leaving it out (pqmEntryApplied).
	Blank map[string]bool   `cfg:"-blank"`
	Extra map[string]string `cfg:"-"`
}

// portMap is one of PORT_QOS_MAP's map fields: the field, the table the
// name it holds refers to, that name in an entry, the config's maps of
// the table, and the port's map in the model the one in force becomes
// (key: its name there, as flattened and diffed).
type portMap struct {
	field, table, key string
	name              func(*PortQoSMapEntry) string
	maps              func(*ConfigDB) map[string]IntMap
	model             func(*qos.PortConfig) *map[int]int
	// partial: a map the port may lack, whose entries alone say what
	// differs from the port's behaviour without it (the PFC priority to
	// PG map, egress remarking); the others are complete maps, SAI's
	// default where no map is bound or an entry is missing (mapKinds).
	partial bool
}

// portMaps are PORT_QOS_MAP's map fields. Resolution, rendering and
// validation walk this one list.
var portMaps = []portMap{
	{"dscp_to_tc_map", "DSCP_TO_TC_MAP", "dscp_to_tc", func(e *PortQoSMapEntry) string { return e.DSCPToTCMap }, func(d *ConfigDB) map[string]IntMap { return d.DSCPToTCMap }, func(p *qos.PortConfig) *map[int]int { return &p.DSCPToTC }, false},
	{"tc_to_queue_map", "TC_TO_QUEUE_MAP", "tc_to_queue", func(e *PortQoSMapEntry) string { return e.TCToQueueMap }, func(d *ConfigDB) map[string]IntMap { return d.TCToQueueMap }, func(p *qos.PortConfig) *map[int]int { return &p.TCToQueue }, false},
	{"tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg", func(e *PortQoSMapEntry) string { return e.TCToPGMap }, func(d *ConfigDB) map[string]IntMap { return d.TCToPGMap }, func(p *qos.PortConfig) *map[int]int { return &p.TCToPG }, false},
	{"pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE", "pfc_to_queue", func(e *PortQoSMapEntry) string { return e.PFCToQueueMap }, func(d *ConfigDB) map[string]IntMap { return d.PFCToQueueMap }, func(p *qos.PortConfig) *map[int]int { return &p.PFCToQueue }, false},
	{"pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "pfc_to_pg", func(e *PortQoSMapEntry) string { return e.PFCToPGMap }, func(d *ConfigDB) map[string]IntMap { return d.PFCToPGMap }, func(p *qos.PortConfig) *map[int]int { return &p.PFCToPG }, true},
	{"tc_to_dscp_map", "TC_TO_DSCP_MAP", "tc_to_dscp", func(e *PortQoSMapEntry) string { return e.TCToDSCPMap }, func(d *ConfigDB) map[string]IntMap { return d.TCToDSCPMap }, func(p *qos.PortConfig) *map[int]int { return &p.TCToDSCP }, true},
}

// portRef is a PORT_QOS_MAP field that names an entry of another table:
// its name in an entry, and whether the config defines an entry of that
// name.
type portRef struct {
	field, table string
	name         func(*PortQoSMapEntry) string
	defined      func(db *ConfigDB, name string) bool
}

// portRefs are every PORT_QOS_MAP field naming an entry of another table,
// as qosorch's qos_to_attr_map lists them: the maps labctl models
// (portMaps), the port's scheduler, and the maps it does not (802.1p,
// MPLS, forwarding classes). handlePortQosMapTable resolves each one an
// entry gives before it applies any field of it, so a name of any of
// them that resolves to nothing keeps the whole entry from applying
// (pqmEntryApplied). Validation walks the same list.
var portRefs = func() []portRef {
	var out []portRef
	for _, pm := range portMaps {
		out = append(out, portRef{pm.field, pm.table, pm.name, func(db *ConfigDB, n string) bool { _, ok := pm.maps(db)[n]; return ok }})
	}
	has := func(t func(*ConfigDB) map[string]StringMap) func(*ConfigDB, string) bool {
		return func(db *ConfigDB, n string) bool { _, ok := t(db)[n]; return ok }
	}
	return append(out,
		portRef{"scheduler", "SCHEDULER", func(e *PortQoSMapEntry) string { return e.Scheduler }, func(db *ConfigDB, n string) bool { _, ok := db.Scheduler[n]; return ok }},
		portRef{"dot1p_to_tc_map", "DOT1P_TO_TC_MAP", func(e *PortQoSMapEntry) string { return e.DOT1PToTCMap }, func(db *ConfigDB, n string) bool { _, ok := db.DOT1PToTCMap[n]; return ok }},
		portRef{"tc_to_dot1p_map", "TC_TO_DOT1P_MAP", func(e *PortQoSMapEntry) string { return e.TCToDot1pMap }, has(func(db *ConfigDB) map[string]StringMap { return db.TCToDot1pMap })},
		portRef{"mpls_tc_to_tc_map", "MPLS_TC_TO_TC_MAP", func(e *PortQoSMapEntry) string { return e.MPLSTCToTCMap }, has(func(db *ConfigDB) map[string]StringMap { return db.MPLSTCToTCMap })},
		portRef{"dscp_to_fc_map", "DSCP_TO_FC_MAP", func(e *PortQoSMapEntry) string { return e.DSCPToFCMap }, has(func(db *ConfigDB) map[string]StringMap { return db.DSCPToFCMap })},
		portRef{"exp_to_fc_map", "EXP_TO_FC_MAP", func(e *PortQoSMapEntry) string { return e.EXPToFCMap }, has(func(db *ConfigDB) map[string]StringMap { return db.EXPToFCMap })},
	)
}()

// portMapOf is the PORT_QOS_MAP map field whose model key is key.
func portMapOf(key string) *portMap {
	for i := range portMaps {
		if portMaps[i].key == key {
			return &portMaps[i]
		}
	}
	panic("sonic: no PORT_QOS_MAP map field " + key)
}

// intMapBounds are the largest key and value of each map table's entries
// that labctl's model holds (its keys and values tags: 7 unless they say
// otherwise: 8 traffic classes, queues and PGs), read from the tags on
// first use, not as labctl starts.
var intMapBounds = sync.OnceValue(func() map[string][2]int {
	return mapTableBounds(func(sf reflect.StructField) [2]int {
		b := [2]int{7, 7}
		for j, tag := range []string{"keys", "values"} {
			if v := sf.Tag.Get(tag); v != "" {
				b[j], _ = strconv.Atoi(v)
			}
		}
		return b
	})
})

// mapTableBounds reads, for each map table of ConfigDB (its IntMap
// fields), the bounds of its keys and values that bounds gives from the
// field's tags, by the table's name.
func mapTableBounds(bounds func(reflect.StructField) [2]int) map[string][2]int {
	out := map[string][2]int{}
	t := reflect.TypeFor[ConfigDB]()
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Type.Elem() == reflect.TypeFor[IntMap]() {
			out[sf.Tag.Get("table")] = bounds(sf)
		}
	}
	return out
}

// yangMapBounds are the largest key and value SONiC's YANG model allows in
// each map table (its yang tag, "keys,values"), which labctl takes SAI to
// accept (mapPairSAI): traffic classes 0-15 (sonic-types.yang.j2, typedef
// tc_type, range "0..15"), TC_TO_QUEUE_MAP's queues 0-9 (sonic-tc-queue-
// map.yang, qindex pattern "[0-9]?"), PGs, PFC priorities, 802.1p values
// and MAP_PFC_PRIORITY_TO_QUEUE's queues 0-7 (pattern "[0-7]?"), DSCPs
// 0-63. SONiC's own dual-ToR maps use traffic class 8 (device/common/
// profiles/th2/7260/BALANCED/qos.json.j2: DSCP 33 to TC 8, TC 8 to PG 0
// and queue 1, remarked 33 on the tunnel).
var yangMapBounds = sync.OnceValue(func() map[string][2]int {
	return mapTableBounds(func(sf reflect.StructField) [2]int {
		k, v, _ := strings.Cut(sf.Tag.Get("yang"), ",")
		var b [2]int
		b[0], _ = strconv.Atoi(k)
		b[1], _ = strconv.Atoi(v)
		return b
	})
})

// QueueEntry is QUEUE|<port>|<queue or range>.
type QueueEntry struct {
	Scheduler   string `cfg:"scheduler" use:"simulated" why:"names the queue's SCHEDULER entry: strict priority or its DWRR weight. Of several QUEUE entries covering a queue (<port>|3 and <port>|3-4), qosorch applies each in key order and only the fields it gives: one without a scheduler leaves the queue the scheduler an earlier one gave it (two giving different ones: lint warns, QOS021)"`
	WREDProfile string `cfg:"wred_profile" use:"simulated" why:"names the queue's WRED_PROFILE: ECN marking or early drop. As with scheduler, an entry covering the queue without a wred_profile leaves it the profile an earlier one in key order gave it"`

	Extra map[string]string `cfg:"-"`
}

// SchedulerEntry is SCHEDULER|<name>.
type SchedulerEntry struct {
	Type      string `cfg:"type" use:"simulated" why:"STRICT queues are served first; DWRR and WRR share by weight"`
	Weight    *int   `cfg:"weight" use:"simulated" why:"the queue's DWRR share, 1-100 as SAI takes it once qosorch has written it as a uint8 (300 is 44): outside that no scheduler is created, and the queues naming it keep neither it nor their WRED"`
	MeterType string `cfg:"meter_type" use:"simulated" why:"the unit of the shaper of the queue (or, named by PORT_QOS_MAP, the port) the scheduler serves: bytes (the default: pir in bytes per second, pbs in bytes) or packets (pir in packets per second, pbs in packets: the queue, or the port, sends at most pir frames a second whatever their size); any other text (BYTES, a blank) throws in qosorch (scheduler_meter_map.at), and neither the scheduler nor any SCHEDULER entry after it in key order is created (QOS021), as with a pir or pbs std::stoull cannot read"`
	CIR       string `cfg:"cir" use:"ignored" why:"the queue's guaranteed minimum rate: the simulator does not simulate the guaranteed minimum (a value std::stoull cannot read, \"\" or no digit, throws in qosorch: that scheduler and every SCHEDULER entry after it in key order are never created, QOS021)" risk:"a queue with a guaranteed minimum is served ahead of the weights up to that rate, so the other queues get less of the link than the figures show"`
	CBS       string `cfg:"cbs" use:"ignored" why:"the burst of the queue's guaranteed minimum rate: the simulator does not simulate the guaranteed minimum (a value std::stoull cannot read, \"\" or no digit, throws in qosorch: that scheduler and every SCHEDULER entry after it in key order are never created, QOS021)" risk:"a queue with a guaranteed minimum is served ahead of the weights up to that rate, so the other queues get less of the link than the figures show"`
	PIR       string `cfg:"pir" use:"simulated" why:"the peak rate, in bytes per second (meter_type bytes) or packets per second (meter_type packets), of the queue (or, named by PORT_QOS_MAP, the port) the scheduler serves: it sends no faster; 0 or none leaves it unshaped"`
	PBS       string `cfg:"pbs" use:"simulated" why:"the burst of the peak rate, in bytes (meter_type bytes) or packets (meter_type packets): how much the queue (the port) may send at line rate, beside the frame it is sending, before the peak rate paces it (less than a full frame counts as one, as an ASIC's least bucket holds a frame)"`

	Extra map[string]string `cfg:"-"`
}

// WREDEntry is WRED_PROFILE|<name>.
type WREDEntry struct {
	ECN              string   `cfg:"ecn" use:"simulated" why:"which colours are ECN-marked rather than dropped early (ecn_none drops every colour); a word qosorch does not know throws (ecn_map.at), and neither the profile nor any WRED_PROFILE entry after it in key order is created (QOS021)"`
	GreenEnable      *bool    `cfg:"wred_green_enable" use:"simulated" why:"WRED on green packets, the colour of every unpoliced packet: false neither marks nor drops them"`
	GreenMin         *int64   `cfg:"green_min_threshold" use:"simulated" why:"queue depth (bytes) where green marking or early drop starts: ECN Kmin. qosorch reads every threshold and probability with std::stoi: beyond 2147483647 it throws, and neither the profile nor any WRED_PROFILE entry after it in key order is created (QOS021). A min threshold of any colour above its max (a threshold left out is 0) WredMapHandler refuses: that profile alone is not created, and the queues naming it mark nothing (QOS021)"`
	GreenMax         *int64   `cfg:"green_max_threshold" use:"simulated" why:"queue depth (bytes) where the green probability reaches its maximum: ECN Kmax"`
	GreenProbability *float64 `cfg:"green_drop_probability" use:"simulated" why:"green marking (or drop) probability at the maximum threshold, a whole percent (qosorch reads it with stoi: 0.5 is 0): ECN Pmax"`
	YellowEnable     *bool    `cfg:"wred_yellow_enable" use:"lint" why:"no simulated packet is policed to yellow or red"`
	YellowMin        *int64   `cfg:"yellow_min_threshold" use:"lint" why:"no simulated packet is policed to yellow or red; but a min above its colour's max (a max left out is 0) WredMapHandler refuses with the whole profile, green's marking too (QOS021), as the simulator runs it"`
	YellowMax        *int64   `cfg:"yellow_max_threshold" use:"lint" why:"no simulated packet is policed to yellow or red"`
	YellowProb       *float64 `cfg:"yellow_drop_probability" use:"lint" why:"no simulated packet is policed to yellow or red"`
	RedEnable        *bool    `cfg:"wred_red_enable" use:"lint" why:"no simulated packet is policed to yellow or red"`
	RedMin           *int64   `cfg:"red_min_threshold" use:"lint" why:"no simulated packet is policed to yellow or red; but a min above its colour's max (a max left out is 0) WredMapHandler refuses with the whole profile, green's marking too (QOS021), as the simulator runs it"`
	RedMax           *int64   `cfg:"red_max_threshold" use:"lint" why:"no simulated packet is policed to yellow or red"`
	RedProb          *float64 `cfg:"red_drop_probability" use:"lint" why:"no simulated packet is policed to yellow or red"`

	Extra map[string]string `cfg:"-"`
}

// BufferPoolEntry is BUFFER_POOL|<name>.
type BufferPoolEntry struct {
	Type string `cfg:"type" use:"simulated" why:"ingress pools hold PGs, egress pools queues"`
	Mode string `cfg:"mode" use:"simulated" why:"static or dynamic: the threshold mode of profiles that give neither static_th nor dynamic_th"`
	Size *int64 `cfg:"size" use:"simulated" why:"the pool in bytes: with dynamic thresholds it sets how deep a PG or queue grows before XOFF or drop. Where SAI takes the reserves (BUFFER_PROFILE size) of the PGs and queues drawing on the pool out of it (SAI_BUFFER_POOL_ATTR_SHARED_SIZE), a pool smaller than them has nothing to share; where the pool is the shared part beside them (SONiC's Mellanox pools, the memory less every reserve) it is as sized. The simulator runs the size as the shared part; lint's QOS028 errs where a pool is below a frame for each PG or queue drawing on it too, small under both readings, and notes a pool below its reserves alone"`
	Xoff *int64 `cfg:"xoff" use:"simulated" why:"a shared headroom pool: lossless PGs take their headroom from it; 0 (SAI's default XOFF_SIZE) is none, and each lossless PG keeps its headroom inside its own size"`

	Extra map[string]string `cfg:"-"`
}

// BufferProfileEntry is BUFFER_PROFILE|<name>.
type BufferProfileEntry struct {
	Pool          string `cfg:"pool" use:"simulated" why:"the pool the profile's shared part comes from"`
	Size          *int64 `cfg:"size" use:"simulated" why:"reserved bytes; a lossless PG without a shared headroom pool holds its xoff inside it"`
	StaticTh      *int64 `cfg:"static_th" use:"simulated" why:"a fixed cap on the shared use; beside dynamic_th, SAI creates no profile (two threshold modes), and the PGs and queues naming it have none (QOS013)"`
	DynamicTh     *int   `cfg:"dynamic_th" use:"simulated" why:"alpha = 2^dynamic_th of the pool's free space caps the shared use: the XOFF point of a lossless PG"`
	Xon           *int64 `cfg:"xon" use:"simulated" why:"a paused PG resumes once its use falls to xon"`
	Xoff          *int64 `cfg:"xoff" use:"simulated" why:"the headroom absorbed after XOFF; a profile without one (or 0) is lossy: its PG drops instead of pausing"`
	XonOffset     *int64 `cfg:"xon_offset" use:"simulated" why:"a paused PG resumes this far below its XOFF point"`
	HeadroomType  string `cfg:"headroom_type" use:"ignored" why:"dynamic buffer calculation mode; labctl reads the profile's numbers"`
	PacketDiscard string `cfg:"packet_discard_action" use:"ignored" why:"drop (the default) or trim: what the ASIC does with a queue's packets over the limit; the simulator drops them. Any other value bufferorch refuses, and creates no profile (the PGs and queues naming it have none, QOS013); a PG naming a trim profile bufferorch refuses, and the PG has none (QOS021). SONiC releases before packet trimming (2025) ignore the field"`

	// Blank are the fields given as "" (packet_discard_action "" is a
	// value bufferorch refuses, not the field left out).
	Blank map[string]bool   `cfg:"-blank"`
	Extra map[string]string `cfg:"-"`
}

// BufferRefEntry is BUFFER_PG|<port>|<pgs> or BUFFER_QUEUE|<port>|<queues>.
type BufferRefEntry struct {
	Profile string `cfg:"profile" use:"simulated" why:"names the BUFFER_PROFILE the PG or queue admits by (NULL: the dynamic buffer manager computes it; in the traditional model nothing does, bufferorch finds no profile of that name and the PG has none, QOS013, unless the key is one buffermgrd writes over with its lossless profile). An entry bufferorch never applies (its profile undefined or never created, its key or index refused, its key listing a port the switch lacks, which a lab's ports tell, and in bare files the PORT table of a whole CONFIG_DB, DEVICE_METADATA giving the hwsku and every PORT entry its lanes: bufferorch refuses the entry for all its ports, and such a port is no port of the model) loses only its PGs or queues when the config is loaded into a running switch, as labctl models it, and takes none from another entry: of the entries naming a PG or queue, it keeps the last in key order that bufferorch applies; at a cold start with it in CONFIG_DB (a reboot, config reload) portsorch holds the ports its key names that the switch has (isPortReady; a port it lacks is never pending, so a key naming only such ports holds nothing) and orchagent's QoS, watchdog and routing orchs wait for them for ever (allPortsReady): lint warns (QOS021)"`

	// Blank are the fields given as "" (a profile "" bufferorch fails
	// as it fails an entry without one: noProfileEntry).
	Blank map[string]bool   `cfg:"-blank"`
	Extra map[string]string `cfg:"-"`
}

// ProfileListEntry is BUFFER_PORT_INGRESS_PROFILE_LIST|<port> (or
// EGRESS).
type ProfileListEntry struct {
	ProfileList string `cfg:"profile_list" use:"ignored" why:"port-level pool quotas: the simulator charges PG and queue profiles only; a list naming a BUFFER_PROFILE the config does not define bufferorch retries for ever, setting none of it (lint's QOS013)"`

	Extra map[string]string `cfg:"-"`
}

// PFCWDEntry is PFC_WD|<port> or PFC_WD|GLOBAL.
type PFCWDEntry struct {
	Action          string `cfg:"action" use:"simulated" why:"drop, forward or alert once a storm is declared"`
	DetectionTime   *int   `cfg:"detection_time" use:"simulated" why:"ms a queue stays paused before a storm is declared (100-5000: pfcwdorch refuses an entry outside, and the port runs no watchdog)"`
	RestorationTime *int   `cfg:"restoration_time" use:"simulated" why:"ms without pause frames before the port is restored (100-60000: pfcwdorch refuses an entry outside, and the port runs no watchdog)"`
	PFCStatHistory  string `cfg:"pfc_stat_history" use:"ignored" why:"enable or disable (the default): whether the watchdog keeps a history of the port's PFC counters, which changes nothing on the wire; any other value pfcwdorch refuses, and the port runs no watchdog (QOS021)"`
	PollInterval    *int   `cfg:"POLL_INTERVAL" use:"simulated" why:"GLOBAL: ms between the watchdog's polls (on a port's entry a field pfcwdorch refuses, as any other it does not know: the port runs no watchdog)"`
	BigRedSwitch    string `cfg:"BIG_RED_SWITCH" use:"simulated" why:"GLOBAL: enable forces the watchdog's drop action, storm or not, on every port's pfcwd_sw_enable priorities (pfcwdsworch's enableBigRedSwitchMode): the port takes them out of PFC, so it neither obeys nor sends pause frames for them, drops every packet of them, and declares no storm while it is on; lint's error (QOS027), and the simulator runs those priorities so from the start. disable, or any other word (which orchagent ignores), changes nothing. On a port's entry a field pfcwdorch refuses: the port runs no watchdog"`

	Extra map[string]string `cfg:"-"`
}

// PortEntry is PORT|<port>; its other fields (lanes, alias, …) are not
// QoS and not listed.
type PortEntry struct {
	AdminStatus string `cfg:"admin_status" use:"simulated" why:"up: the port passes traffic; anything else is down (portmgr sets the port up only for \"up\"), and so is a port whose PORT entry gives lanes (the whole port, as a full config_db writes it) without admin_status (portmgr's default, DEFAULT_ADMIN_STATUS_STR, is down). An entry without lanes is merged onto the switch's own (config load), whose admin_status stays: labctl takes it as up, as its boot config writes it. A port wired in the lab that is down is lint's error (QOS026), and the simulator runs its link down from the start"`
	Autoneg     string `cfg:"autoneg" use:"lint" why:"on: the port negotiates its speed (portsorch's setPortAutoNeg), advertising adv_speeds; anything else (off, the default) runs it at speed"`
	AdvSpeeds   string `cfg:"adv_speeds" use:"lint" why:"with autoneg on, the speeds (Mb/s, comma-separated; all: every one) the port advertises (PortHelper::parsePortAdvSpeeds): lint errs where the lab's link's speed is not among them (QOS009), as the link then comes up at a lower speed or not at all; the simulated link runs at the lab's speed. A value portsorch refuses (autoneg other than on or off; adv_speeds that parsePortAdvSpeeds refuses: empty, not a number, out of range) drops the port's whole entry, which lint warns of at its line (QOS021)"`
	Speed       *int   `cfg:"speed" use:"lint" why:"Mb/s: sizes the headroom and thresholds lint requires, and lint checks it against the lab's link (QOS009); the simulated link runs at the lab's speed"`
	MTU         string `cfg:"mtu" use:"simulated" why:"the port's L3 MTU: the simulator drops RoCE packets it cannot carry (the lab's qos.mtu plus 60 bytes of headers), and lint sizes the headroom by it. portsorch takes 68-9216 (parsePortMtu, as sonic-port.yang): any other value (a number out of range, a word) it refuses, and the port keeps the MTU it has, as the simulator runs it; lint's error (QOS021), which says that at a cold start portsorch refuses the port's whole entry. Without one (or with one refused) labctl takes the port to run at SONiC's default, 9100 (portmgrd's DEFAULT_MTU_STR), as it does after a config reload, and holds the lab's packets to it (QOS020, the simulator's drops); a file config load merges leaves a running port's MTU as it is, which labctl assumes is that default, as its startup config sets it"`
	FEC         string `cfg:"fec" use:"simulated" why:"the port's forward error correction: rs, fc, none, or auto (negotiated). FEC is not negotiated without auto-negotiation, so a link whose two ends' configs set different modes (neither auto) does not come up: lint's error (QOS009), and the simulator runs the link down from the start (a live lab on SONiC-VS brings it up: the virtual switch records the mode and its link follows the container's veth pair, so a scenario fault on it runs there). An end whose config leaves fec out runs the switch's own mode (the platform's default), which labctl does not know and does not compare (lint notes a mode set at one end only, QOS000). Any other value portsorch refuses with the port's whole entry (parsePortFec), and labctl refuses it at its line"`
	// PFCAsym is portsorch's asymmetric PFC (setPortPfcAsym).
	PFCAsym string `cfg:"pfc_asym" use:"simulated" why:"on: asymmetric PFC (SAI's separate mode): the port obeys PFC frames for every priority (its receive bitmap 0xff) and sends them for its pfc_enable priorities only, as it does without; off (the default): it obeys them for its pfc_enable priorities only"`

	// Blank are the fields given as "" (fec "" portsorch refuses, where
	// a PORT entry without fec is the switch's own mode).
	Blank map[string]bool `cfg:"-blank"`

	Extra map[string]string `cfg:"-"`
}

// Fields lists the statement beside every field of the typed tables.
func Fields() []qos.FieldUse {
	var out []qos.FieldUse
	t := reflect.TypeFor[ConfigDB]()
	for i := range t.NumField() {
		sf := t.Field(i)
		table := sf.Tag.Get("table")
		elem := sf.Type.Elem()
		if use := sf.Tag.Get("use"); use != "" {
			out = append(out, qos.FieldUse{NOS: Name, Table: table, Field: "(entries)", Use: qos.Use(use), Why: sf.Tag.Get("why")})
			continue
		}
		if elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		for j := range elem.NumField() {
			f := elem.Field(j)
			name := f.Tag.Get("cfg")
			if strings.HasPrefix(name, "-") {
				continue // Extra, Blank: not fields of the table
			}
			out = append(out, qos.FieldUse{NOS: Name, Table: table, Field: name, Use: qos.Use(f.Tag.Get("use")), Why: f.Tag.Get("why"), Risk: f.Tag.Get("risk")})
		}
	}
	return out
}

// fieldUse is the statement of one table field ("" use: not a field
// labctl knows).
func fieldUse(table, field string) qos.FieldUse {
	if f, ok := fieldUses[table]["(entries)"]; ok {
		return f
	}
	if f, ok := fieldUses[table][field]; ok {
		return f
	}
	return qos.FieldUse{NOS: Name, Table: table, Field: field}
}

var cachedFields = Fields()

// fieldUses are cachedFields by table and field, for fieldUse: QOS011
// looks up every field of every entry of a lab's configs.
var fieldUses = func() map[string]map[string]qos.FieldUse {
	out := map[string]map[string]qos.FieldUse{}
	for _, f := range cachedFields {
		if out[f.Table] == nil {
			out[f.Table] = map[string]qos.FieldUse{}
		}
		if _, ok := out[f.Table][f.Field]; !ok {
			out[f.Table][f.Field] = f
		}
	}
	return out
}()

// decodeDB turns a merged CONFIG_DB document into the typed tables. A
// value of the wrong kind (a size that is not a number) is an error naming
// table|key and field; a field the tables do not have is kept in its
// entry's Extra (reported, never used). beyond are, by table|entry of the
// map tables, the pairs the switch applies beyond labctl's 8 traffic
// classes or queues (decodeIntMap's beyond), which the resolver gives the
// ports using the map (qos.PortConfig.BeyondTC, BeyondQueue).
func decodeDB(doc Doc) (db *ConfigDB, beyond map[string]IntMap, notes []string, err error) {
	db = &ConfigDB{}
	v := reflect.ValueOf(db).Elem()
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		table := sf.Tag.Get("table")
		entries, ok := doc[table]
		if !ok {
			continue
		}
		m := reflect.MakeMapWithSize(sf.Type, len(entries))
		elem := sf.Type.Elem()
		var ef entryFields
		if elem.Kind() == reflect.Pointer {
			ef = entryIndex(elem.Elem())
		}
		for _, key := range cfgSortedKeys(entries) {
			fields := entries[key]
			var ev reflect.Value
			switch elem {
			case reflect.TypeFor[IntMap]():
				im, out, imNotes, err := decodeIntMap(table, key, fields)
				if err != nil {
					return nil, nil, nil, err
				}
				notes = append(notes, imNotes...)
				if out != nil {
					if beyond == nil {
						beyond = map[string]IntMap{}
					}
					beyond[table+"|"+key] = out
				}
				ev = reflect.ValueOf(im)
			case reflect.TypeFor[StringMap]():
				ev = reflect.ValueOf(StringMap(fields))
			default:
				ev = reflect.New(elem.Elem())
				if err := decodeEntry(table, key, fields, ev.Elem(), ef); err != nil {
					return nil, nil, nil, err
				}
			}
			m.SetMapIndex(reflect.ValueOf(key), ev)
		}
		v.Field(i).Set(m)
	}
	return db, beyond, notes, nil
}

// decodeIntMap reads the entry key of map table (fields) as qosorch's map
// handlers and SAI take its pairs (decodeDB), with the notes on pairs it
// reads otherwise than written or leaves out. beyond are the pairs it
// leaves out that the switch applies all the same, within SONiC's YANG
// ranges but beyond labctl's 8-class model (a DSCP in traffic class 8,
// as SONiC's dual-ToR maps have it), as SAI is given them.
func decodeIntMap(table, key string, fields map[string]string) (im, beyond IntMap, notes []string, err error) {
	b := intMapBounds()[table]
	maxKey, maxVal, what := b[0], b[1], "traffic classes, queues or PGs 0-7"
	if maxVal != 7 {
		what = fmt.Sprintf("DSCPs 0-%d", maxVal)
	}
	im = IntMap{}
	for _, k := range cfgSortedKeys(fields) {
		val := fields[k]
		if _, thrown := pairThrow(table, k, val); thrown != "" {
			// qosorch never creates the entry, or skips the
			// pair (mapThrows, stallObjects): what it holds
			// beside is not read.
			if mapThrowHandled(table, thrown) == mapSkipsPair {
				notes = append(notes, fmt.Sprintf("%s|%s entry %q: %q is no number std::stoi can read into an int (it throws std::%s): Dot1pToTcMapHandler catches it and skips the pair, and the map holds the others (fix: write %s in decimal digits)", table, key, k, val, thrown, mapRange(table)))
			}
			continue
		}
		kn, kNote, err1 := mapNumber(k)
		vn, vNote, err2 := mapNumber(val)
		for _, e := range []string{err1, err2} {
			if e != "" {
				return nil, nil, nil, entryError(table, key, k, "%s|%s: entry %q: %q: %s (fix: write %s in decimal digits only)", table, key, k, val, e, what)
			}
		}
		if kn < 0 || kn > int64(maxKey) || vn < 0 || vn > int64(maxVal) {
			// As qosorch and SAI take it (mapPairSAI): a pair
			// they refuse keeps the entry from being created
			// (stallObjects notes it at its line), one whose
			// numbers reach SAI cut to a byte is that pair.
			kw, vw, refused := mapPairSAI(table, kn, vn)
			if refused != "" {
				continue
			}
			cut := ""
			if int64(kw) != kn || int64(vw) != vn {
				cut = fmt.Sprintf(", as qosorch writes it to SAI cut to a byte, %d: %d,", kw, vw)
			}
			if kw > maxKey || vw > maxVal {
				// Within SONiC's YANG ranges (yangMapBounds):
				// the switch creates the map with the pair,
				// but the model holds 8 traffic classes,
				// queues and PGs.
				notes = append(notes, fmt.Sprintf("%s|%s entry %q: %q%s %s; the switch creates the map with it (SONiC's YANG allows %s), but labctl models %s only and leaves the pair out (%s)", table, key, k, val, cut, beyondModel(table, kw, vw), yangRange(table), mapRange(table), leftOut(table, kw, vw)))
				if beyond == nil {
					beyond = IntMap{}
				}
				beyond[kw] = vw
				continue
			}
			notes = append(notes, fmt.Sprintf("%s|%s entry %q: %q is out of range (%s), but qosorch writes it to SAI as a byte, %d: %d, which the switch applies (fix: write \"%d\": \"%d\" if that is meant, or the pair meant)", table, key, k, val, mapRange(table), kw, vw, kw, vw))
			kn, vn = int64(kw), int64(vw)
		}
		if kNote || vNote {
			notes = append(notes, fmt.Sprintf("%s|%s entry %q: %q is read as %d: %d, as orchagent's std::stoi reads it (blanks, a sign or leading zeros around the number), though it is not the plain number SONiC's YANG model asks for (fix: write \"%d\": \"%d\")", table, key, k, val, kn, vn, kn, vn))
		}
		im[int(kn)] = int(vn)
	}
	return im, beyond, notes, nil
}

// mapRange says what a map table's keys and values are in labctl's
// model, for a fix.
func mapRange(table string) string {
	b := intMapBounds()[table]
	return fmt.Sprintf("keys 0-%d, values 0-%d", b[0], b[1])
}

// yangRange says what SONiC's YANG model allows a map table's keys and
// values to be (yangMapBounds).
func yangRange(table string) string {
	b := yangMapBounds()[table]
	return fmt.Sprintf("keys 0-%d, values 0-%d", b[0], b[1])
}

// beyondModel says what a pair k: v of map table, within SONiC's YANG
// ranges but beyond labctl's model, does on the switch.
func beyondModel(table string, k, v int) string {
	switch table {
	case "DSCP_TO_TC_MAP":
		return fmt.Sprintf("puts DSCP %d in traffic class %d", k, v)
	case "DOT1P_TO_TC_MAP":
		return fmt.Sprintf("puts 802.1p priority %d in traffic class %d", k, v)
	case "TC_TO_QUEUE_MAP":
		return fmt.Sprintf("sends traffic class %d to queue %d", k, v)
	case "TC_TO_PRIORITY_GROUP_MAP":
		return fmt.Sprintf("puts traffic class %d in PG %d", k, v)
	case "TC_TO_DSCP_MAP":
		return fmt.Sprintf("remarks traffic class %d to DSCP %d", k, v)
	}
	return fmt.Sprintf("maps %d to %d", k, v)
}

// leftOut says what labctl's model makes of a pair it leaves out.
func leftOut(table string, k, v int) string {
	switch table {
	case "DSCP_TO_TC_MAP":
		return fmt.Sprintf("lint and the simulator take DSCP %d as a DSCP the map leaves out, in traffic class 0, where the switch gives it the queue and PG the TC_TO_QUEUE_MAP and TC_TO_PRIORITY_GROUP_MAP entries give traffic class %d, and never PFC (pfc_enable names priorities 0-7): check that no RoCE traffic uses DSCP %d", k, v, k)
	case "DOT1P_TO_TC_MAP":
		return "the lab's links carry no tagged frames"
	}
	if b := intMapBounds()[table]; k <= b[0] {
		// A queue 8 or 9 (TC_TO_QUEUE_MAP): the class is modelled, its
		// queue is not.
		return fmt.Sprintf("lint and the simulator take traffic class %d as a class the map leaves out (in queue %d), where the switch sends it to queue %d: check that no RoCE traffic is in it", k, k, v)
	}
	return fmt.Sprintf("no packet is in traffic class %d in the model, as no DSCP_TO_TC_MAP pair it holds gives it", k)
}

// mapNumber reads a key or value of a map table (DSCP_TO_TC_MAP, …) as
// qosorch's map handlers do: DscpToTcMapHandler, TcToQueueMapHandler,
// TcToPgHandler, PfcPrioToPgHandler, PfcToQueueHandler and
// TcToDscpMapHandler all read both with std::stoi (none with to_uint),
// which skips blanks, takes a sign and stops at the first character that
// is no digit. padded says the text is not the plain number (" 3", "3 ",
// "+3", "03"), which the switch reads as the number: labctl does too,
// and notes it. refused says why labctl refuses a text std::stoi reads
// otherwise than it says ("0x3" is 0, "3.5" is 3, "3a" is 3), or cannot
// read at all (it throws). labctl refuses those rather than model the
// switch's reading with a lint finding: the text names a class the
// switch does not apply, and a map entry that silently moves a DSCP or
// a traffic class (RoCE's DSCP 26 to TC0 for "0x3") is the harm the map
// exists to prevent; the refusal, at the entry's line, says what the
// switch reads and how to write it.
func mapNumber(s string) (n int64, padded bool, refused string) {
	v, rest, ok := stoi(s)
	switch {
	case !ok:
		return 0, false, "no number std::stoi can read into an int, and orchagent throws on it"
	case strings.TrimLeft(rest, cBlanks) != "":
		return 0, false, fmt.Sprintf("orchagent's std::stoi reads %q as %d, stopping at %q, not the number it seems to say", s, v, rest)
	}
	return v, s != strconv.FormatInt(v, 10), ""
}

// entryFields index an entry struct's fields by their CONFIG_DB names;
// extra is the field that keeps the others (-1: none). decodeDB builds
// them once per table, for all of its entries.
type entryFields struct {
	byName map[string]int
	extra  int
	// blank is the index of the entry's Blank field (cfg:"-blank"),
	// which notes the string fields given as "", or -1.
	blank int
}

func entryIndex(et reflect.Type) entryFields {
	ef := entryFields{byName: make(map[string]int, et.NumField()), extra: -1, blank: -1}
	for j := range et.NumField() {
		name := et.Field(j).Tag.Get("cfg")
		if name == "-" {
			ef.extra = j
			continue
		}
		if name == "-blank" {
			ef.blank = j
			continue
		}
		ef.byName[name] = j
	}
	return ef
}

// The field types decodeEntry fills.
var (
	typString  = reflect.TypeFor[string]()
	typStrPtr  = reflect.TypeFor[*string]()
	typIntPtr  = reflect.TypeFor[*int]()
	typI64Ptr  = reflect.TypeFor[*int64]()
	typF64Ptr  = reflect.TypeFor[*float64]()
	typBoolPtr = reflect.TypeFor[*bool]()
)

// FieldValueError is a field whose value is not of its kind (a byte
// count that is not a number) or that the switch refuses (a scheduler
// type it has no such thing as), or an entry that lacks what it needs
// (Field ""): Parse places it at its line in the file it came from.
type FieldValueError struct {
	Table, Key, Field string
	msg               string
}

func (e *FieldValueError) Error() string { return e.msg }

// entryError is a FieldValueError for field of entry key of table (""
// for the entry as a whole), its message formatted.
func entryError(table, key, field, format string, a ...any) error {
	return &FieldValueError{Table: table, Key: key, Field: field, msg: fmt.Sprintf(format, a...)}
}

// decodeEntry fills one entry struct from its string fields.
func decodeEntry(table, key string, fields map[string]string, ev reflect.Value, ef entryFields) error {
	byName, extra := ef.byName, ef.extra
	for _, f := range cfgSortedKeys(fields) {
		val := fields[f]
		j, ok := byName[f]
		if !ok {
			if extra >= 0 {
				if ev.Field(extra).IsNil() {
					ev.Field(extra).Set(reflect.ValueOf(map[string]string{}))
				}
				ev.Field(extra).SetMapIndex(reflect.ValueOf(f), reflect.ValueOf(val))
			}
			continue
		}
		fv := ev.Field(j)
		bad := func(want string) error {
			return &FieldValueError{Table: table, Key: key, Field: f,
				msg: fmt.Sprintf("%s|%s field %s: %q is not %s (fix: write %s, as a CONFIG_DB string)", table, key, f, val, want, want)}
		}
		switch fv.Type() {
		case typString:
			fv.SetString(val)
			if val == "" && ef.blank >= 0 {
				if ev.Field(ef.blank).IsNil() {
					ev.Field(ef.blank).Set(reflect.ValueOf(map[string]bool{}))
				}
				ev.Field(ef.blank).SetMapIndex(reflect.ValueOf(f), reflect.ValueOf(true))
			}
		case typStrPtr:
			// Where "" and absent must be told apart (pfcwd_sw_enable:
			// orchagent watches no priority either way, and lint says
			// which the entry did).
			v := val
			fv.Set(reflect.ValueOf(&v))
		case typIntPtr:
			n, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil {
				return bad("an integer")
			}
			fv.Set(reflect.ValueOf(&n))
		case typI64Ptr:
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil || n < 0 {
				return bad("a byte count")
			}
			fv.Set(reflect.ValueOf(&n))
		case typF64Ptr:
			n, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			if err != nil {
				return bad("a number")
			}
			fv.Set(reflect.ValueOf(&n))
		case typBoolPtr:
			// orchagent compares the exact words (WredMapHandler's
			// convertBool): "True" or "true " refuses the whole entry.
			switch val {
			case "true":
				b := true
				fv.Set(reflect.ValueOf(&b))
			case "false":
				b := false
				fv.Set(reflect.ValueOf(&b))
			default:
				if w := strings.ToLower(strings.TrimSpace(val)); w == "true" || w == "false" {
					return &FieldValueError{Table: table, Key: key, Field: f,
						msg: fmt.Sprintf("%s|%s field %s: %q is not %q: orchagent reads only the exact lower-case words and refuses the whole entry (fix: write %q)", table, key, f, val, w, w)}
				}
				return bad(`"true" or "false"`)
			}
		default:
			return fmt.Errorf("sonic tables: field %s of %s has an unsupported type", f, table)
		}
	}
	return nil
}

// risks lists the fields of doc whose statement carries a risk: set, they
// change what a real switch does to RoCE without the simulator running it.
func risks(doc Doc) []qos.NotRun {
	var out []qos.NotRun
	for _, f := range cachedFields {
		if f.Risk == "" {
			continue
		}
		var keys []string
		for _, key := range cfgSortedKeys(doc[f.Table]) {
			if v, ok := doc[f.Table][key][f.Field]; ok && v != "" {
				keys = append(keys, key)
			}
		}
		if len(keys) > 0 {
			where := f.Table + "|" + keys[0]
			if len(keys) > 1 {
				where = fmt.Sprintf("%s|%s and %d more", f.Table, keys[0], len(keys)-1)
			}
			out = append(out, qos.NotRun{Where: where + " " + f.Field, What: f.Risk})
		}
	}
	return out
}

// presentFields lists, for QOS011, the fields of doc that the simulator
// does not run: lint-only and ignored ones with their statements, and
// fields no table of labctl's has.
func presentFields(doc Doc) []qos.FieldNote {
	set := map[string]qos.FieldNote{}
	t := reflect.TypeFor[ConfigDB]()
	for i := range t.NumField() {
		sf := t.Field(i)
		table := sf.Tag.Get("table")
		quiet := sf.Tag.Get("quiet") == "true"
		for _, fields := range doc[table] {
			if len(fields) == 0 {
				continue
			}
			if sf.Tag.Get("use") != "" {
				if u := qos.Use(sf.Tag.Get("use")); u != qos.UseSimulated {
					set[table] = qos.FieldNote{Field: table, Use: u, Why: sf.Tag.Get("why")}
				}
				continue
			}
			for f := range fields {
				fu := fieldUse(table, f)
				switch {
				case fu.Use == "" && quiet:
				case fu.Use == "":
					set[table+" "+f] = qos.FieldNote{Field: table + " " + f, Use: qos.UseIgnored, Why: "not a field labctl knows in this table"}
				case fu.Use != qos.UseSimulated:
					set[table+" "+f] = qos.FieldNote{Field: table + " " + f, Use: fu.Use, Why: fu.Why}
				}
			}
		}
	}
	out := make([]qos.FieldNote, 0, len(set))
	for _, k := range cfgSortedKeys(set) {
		out = append(out, set[k])
	}
	slices.SortFunc(out, func(a, b qos.FieldNote) int { return strings.Compare(a.Field, b.Field) })
	return out
}
