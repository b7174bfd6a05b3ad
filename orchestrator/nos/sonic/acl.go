package sonic

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/qos"
)

// cfgListTables are the tables of ConfigDB whose fields may be JSON lists
// (ACL_TABLE ports, SWITCH_HASH ecmp_hash): the parser reads a list as
// CONFIG_DB stores it, the items joined by commas.
var cfgListTables = []string{"ACL_TABLE", "ACL_RULE", "SWITCH_HASH"}

// aclFilters reads the rules of the ACL tables bound to ports that match
// RoCEv2 packets (IPv4, UDP to port 4791) of some DSCP, as orchagent's
// aclorch.cpp reads them: a table's rules in the order the ASIC tries
// them (PRIORITY, the higher first, validateAddPriority; SAI's entry
// priority), a match field the rule gives narrowing it (validateAddMatch:
// IP_PROTOCOL, L4_DST_PORT, L4_DST_PORT_RANGE, DSCP as value or
// value/mask, ETHER_TYPE, IP_TYPE by aclIpTypeLookup), the action from
// PACKET_ACTION (DROP, FORWARD, COPY, REDIRECT:<port>; upper-cased, as
// AclRulePacket::validateAddAction does), REDIRECT_ACTION, DSCP_ACTION
// and POLICER_ACTION. A table whose ports name a port channel binds its
// members (members are read from PORTCHANNEL_MEMBER, by channels: port
// to channel). CTRLPLANE tables filter what the CPU receives, and IPv6
// ones (L3V6, MIRRORV6) no IPv4 packet: neither is read.
func aclFilters(doc Doc, channels map[string]string) []qos.PacketFilter {
	var out []qos.PacketFilter
	for _, table := range cfgSortedKeys(doc["ACL_TABLE"]) {
		t := doc["ACL_TABLE"][table]
		switch strings.ToUpper(t["type"]) {
		case "CTRLPLANE", "L3V6", "MIRRORV6":
			continue
		}
		var ports []string
		for _, p := range strings.Split(cmp.Or(t["ports"], t["ports@"]), ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			members := 0
			for m, ch := range channels {
				if ch == p {
					ports = append(ports, m)
					members++
				}
			}
			if members == 0 {
				ports = append(ports, p)
			}
		}
		if len(ports) == 0 {
			continue
		}
		slices.SortFunc(ports, qos.ComparePorts)
		type rule struct {
			key  string
			prio int64
			f    qos.PacketFilter
		}
		var rules []rule
		for _, key := range cfgSortedKeys(doc["ACL_RULE"]) {
			name, _, ok := strings.Cut(key, "|")
			if !ok || name != table {
				continue
			}
			fields := doc["ACL_RULE"][key]
			if _, ok := fields["DSCP_ACTION"]; ok && !remarkingTable(t["type"]) {
				// AclRule::makeShared finds DSCP_ACTION in no lookup but
				// aclMetadataDscpActionLookup, which serves only tables an
				// UNDERLAY_SET_DSCP(V6) table became (isUsingEgrSetDscp):
				// elsewhere it throws "ACL rule action is not found" and
				// the rule is never programmed, so it matches nothing.
				continue
			}
			f, matches := roceRule(fields)
			if !matches {
				continue
			}
			f.List, f.Where, f.Ports = table, "ACL_RULE|"+key, ports
			prio, _ := strconv.ParseInt(strings.TrimSpace(fields["PRIORITY"]), 0, 64)
			rules = append(rules, rule{key, prio, f})
		}
		slices.SortStableFunc(rules, func(a, b rule) int { return cmp.Compare(b.prio, a.prio) })
		for _, r := range rules {
			out = append(out, r.f)
		}
	}
	return out
}

// remarkingTable says whether an ACL table of type typ takes DSCP_ACTION
// rules: the UNDERLAY_SET_DSCP types, which aclorch translates into
// MARK_META tables beside its one EGR_SET_DSCP table that re-marks
// (translateUnderlaySetDscpTableTypeName, addEgrSetDscpTable). A user's
// MARK_META or EGR_SET_DSCP table is not registered so (isUsingEgrSetDscp).
func remarkingTable(typ string) bool {
	switch strings.ToUpper(strings.TrimSpace(typ)) {
	case "UNDERLAY_SET_DSCP", "UNDERLAY_SET_DSCPV6":
		return true
	}
	return false
}

// roceRule says whether an ACL rule's match fields can match RoCEv2
// packets, which of their DSCPs, what it does to them and which of its
// terms labctl does not decide for them.
func roceRule(fields map[string]string) (qos.PacketFilter, bool) {
	var f qos.PacketFilter
	var unsure []string
	policed := "" // its POLICER_ACTION's harm
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		v := strings.TrimSpace(fields[name])
		switch name {
		case "PRIORITY", "COUNTER", "MIRROR_ACTION", "MIRROR_INGRESS_ACTION", "MIRROR_EGRESS_ACTION", "META_DATA_ACTION":
		case "PACKET_ACTION":
			switch a := strings.ToUpper(v); {
			case a == "DROP":
				f.Harm = joinHarm(f.Harm, "PACKET_ACTION DROP: the switch drops them")
			case strings.HasPrefix(a, "REDIRECT"):
				f.Harm = joinHarm(f.Harm, "PACKET_ACTION "+v+": the switch sends them out of that port, not by their route")
			}
		case "REDIRECT_ACTION":
			f.Harm = joinHarm(f.Harm, "REDIRECT_ACTION "+v+": the switch sends them out of that port, not by their route")
		case "DSCP_ACTION":
			f.Harm = joinHarm(f.Harm, "DSCP_ACTION "+v+": the switch re-marks them DSCP "+v+", which the next switch classifies by")
		case "POLICER_ACTION":
			policed = "POLICER_ACTION " + v + ": the switch polices them, dropping what exceeds the policer's rate"
			f.Harm = joinHarm(f.Harm, policed)
		case "IP_PROTOCOL":
			if n, err := strconv.ParseInt(v, 0, 64); err != nil || n != 17 {
				return f, false
			}
		case "L4_DST_PORT":
			if n, err := strconv.ParseInt(v, 0, 64); err != nil || n != 4791 {
				return f, false
			}
		case "L4_DST_PORT_RANGE":
			lo, hi, _ := strings.Cut(v, "-")
			a, err1 := strconv.Atoi(strings.TrimSpace(lo))
			b, err2 := strconv.Atoi(strings.TrimSpace(hi))
			if err1 != nil || err2 != nil || a > 4791 || b < 4791 {
				return f, false
			}
		case "ETHER_TYPE":
			if n, err := strconv.ParseInt(v, 0, 64); err != nil || n != 0x0800 {
				return f, false
			}
		case "IP_TYPE":
			switch strings.ToUpper(v) {
			case "ANY", "IP", "IPV4ANY", "NON_IPV6":
			default:
				return f, false
			}
		case "DSCP":
			val, mask, masked := strings.Cut(v, "/")
			d, err := strconv.ParseUint(strings.TrimSpace(val), 0, 8)
			m := uint64(0x3f)
			if masked {
				m, err = strconv.ParseUint(strings.TrimSpace(mask), 0, 8)
			}
			if err != nil {
				unsure = append(unsure, name+" "+v)
				continue
			}
			f.DSCPs = []int{}
			for x := range 64 {
				if uint64(x)&m == d&m {
					f.DSCPs = append(f.DSCPs, x)
				}
			}
		case "SRC_IP", "DST_IP":
			if v != "0.0.0.0/0" {
				unsure = append(unsure, name+" "+v)
			}
		case "SRC_IPV6", "DST_IPV6", "NEXT_HEADER", "ICMP_TYPE", "ICMP_CODE", "ICMPV6_TYPE", "ICMPV6_CODE", "TCP_FLAGS":
			// IPv6, ICMP or TCP terms no RoCEv2 (IPv4, UDP) packet meets.
			return f, false
		default:
			// An address, a source port, a VLAN, a port list, a traffic
			// class, RoCE's BTH opcode: matches some of its packets.
			unsure = append(unsure, name+" "+v)
		}
	}
	if len(unsure) > 0 {
		f.Unsure = "its " + strings.Join(unsure, ", ")
	}
	// A policer drops only what exceeds its rate: harm to some packets,
	// where no other action harms them all.
	f.Partial = policed != "" && f.Harm == policed
	return f, true
}

func joinHarm(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// hashRisks are what SWITCH_HASH|GLOBAL does to RoCE that the simulator,
// which hashes every packet's addresses, protocol and UDP ports, does not
// run (lint warns, QOS017, at the field's line): a field list
// (switchorch's SwitchHelper::parseSwHashFieldList: comma-separated
// names of swHashHashFieldMap) without L4_SRC_PORT, and the RANDOM
// algorithm (parseSwHashAlgorithm). A list the switch refuses (empty, a
// name twice or unknown: parseSwHash fails, and the ASIC keeps its
// default hash) is no risk of this kind.
func hashRisks(doc Doc) []qos.NotRun {
	var out []qos.NotRun
	for _, key := range cfgSortedKeys(doc["SWITCH_HASH"]) {
		e := doc["SWITCH_HASH"][key]
		for _, field := range []string{"ecmp_hash", "lag_hash"} {
			v, ok := e[field]
			if !ok {
				continue
			}
			items := strings.Split(v, ",")
			known := map[string]bool{}
			for _, it := range items {
				if !slices.Contains(switchHashFields, it) || known[it] {
					known = nil
					break
				}
				known[it] = true
			}
			if known == nil || known["L4_SRC_PORT"] {
				continue
			}
			what := "equal-cost routes"
			if field == "lag_hash" {
				what = "the members of a port channel"
			}
			out = append(out, qos.NotRun{Where: "SWITCH_HASH|" + key + " " + field,
				What: fmt.Sprintf("the switch picks among %s by [%s], without L4_SRC_PORT: RoCE's QPs between two hosts differ by their UDP source port alone (their destination port is 4791), so it sends them all on one path and leaves the others idle, where the simulator hashes the source port too and spreads them", what, v),
				Fix:  fmt.Sprintf("add L4_SRC_PORT to SWITCH_HASH|%s %s (with SRC_IP, DST_IP, IP_PROTOCOL and L4_DST_PORT), or remove the field to keep the ASIC's default hash", key, field)})
		}
		for _, field := range []string{"ecmp_hash_algorithm", "lag_hash_algorithm"} {
			if e[field] == "RANDOM" {
				out = append(out, qos.NotRun{Where: "SWITCH_HASH|" + key + " " + field,
					What: "RANDOM (SAI_HASH_ALGORITHM_RANDOM) picks a path for each packet, not each flow (labctl's reading; unverified on an ASIC): a QP's packets take paths of different delay and arrive out of order, which RoCE's receivers take as loss (a NAK, and the sender goes back N)",
					Fix:  fmt.Sprintf("give SWITCH_HASH|%s %s a hash algorithm (CRC), or remove it", key, field)})
			}
		}
	}
	return out
}

// switchHashFields are the names switchorch's swHashHashFieldMap takes
// (orchagent/switch/switch_schema.h, SWITCH_HASH_FIELD_*).
var switchHashFields = []string{"IN_PORT", "DST_MAC", "SRC_MAC", "ETHERTYPE", "VLAN_ID", "IP_PROTOCOL", "DST_IP", "SRC_IP", "L4_DST_PORT", "L4_SRC_PORT",
	"INNER_DST_MAC", "INNER_SRC_MAC", "INNER_ETHERTYPE", "INNER_IP_PROTOCOL", "INNER_DST_IP", "INNER_SRC_IP", "INNER_L4_DST_PORT", "INNER_L4_SRC_PORT", "IPV6_FLOW_LABEL"}
