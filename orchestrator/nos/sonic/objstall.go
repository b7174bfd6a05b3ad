package sonic

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
)

// cBlanks are the characters strtol and its kin skip before a number.
const cBlanks = " \t\n\v\f\r"

// cNumber takes s apart as strtol and its kin read a number: the blanks
// they skip, an optional sign, then the digits that follow, and the rest
// they leave unread.
func cNumber(s string) (neg bool, digits, rest string) {
	s = strings.TrimLeft(s, cBlanks)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return neg, s[:i], s[i:]
}

// stoi reads s as std::stoi (strtol, base 10, then a check that the value
// fits an int) does: blanks, an optional sign, as many digits as follow.
// rest is what it leaves unread; ok false is where std::stoi throws
// (invalid_argument without a digit, out_of_range beyond 32 bits).
func stoi(s string) (v int64, rest string, ok bool) {
	neg, digits, rest := cNumber(s)
	if digits == "" {
		return 0, "", false
	}
	for _, c := range []byte(digits) {
		v = v*10 + int64(c-'0')
		if v > math.MaxInt32+1 {
			return 0, "", false
		}
	}
	if neg {
		v = -v
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		return 0, "", false
	}
	return v, rest, true
}

// stoiThrow says what std::stoi throws on s: "invalid_argument" where
// it finds no digit after the blanks and an optional sign,
// "out_of_range" where the number is beyond an int, "" where it reads s.
func stoiThrow(s string) string {
	if _, _, ok := stoi(s); ok {
		return ""
	}
	if _, digits, _ := cNumber(s); digits == "" {
		return "invalid_argument"
	}
	return "out_of_range"
}

// What a map handler of qosorch does with an entry whose key or value
// std::stoi throws on (mapThrows).
const (
	// mapStalls: the handler catches nothing (DscpToTcMapHandler,
	// TcToQueueMapHandler, TcToPgHandler, PfcPrioToPgHandler,
	// PfcToQueueHandler; TcToDscpMapHandler for out_of_range): the
	// exception reaches Consumer::drain and stops the table there
	// (stallObjects).
	mapStalls = "stalls"
	// mapRefused: TcToDscpMapHandler catches std::invalid_argument and
	// returns false, so processWorkItem refuses the entry
	// (task_invalid_entry): it alone is not created.
	mapRefused = "refused"
	// mapSkipsPair: Dot1pToTcMapHandler catches both and skips the pair.
	mapSkipsPair = "skips"
)

// mapThrows says what qosorch does with an entry of a map table (fields)
// where std::stoi throws on a key or value: how (mapStalls, mapRefused,
// mapSkipsPair; "" where none throws), the first such pair in key order,
// the text of it std::stoi throws on (pairThrow) and what it throws. The
// handler reads the pairs in the hash's order, which the file does not
// fix: where one pair would stall and another be refused, labctl takes
// the stall, which does more harm.
func mapThrows(table string, fields map[string]string) (how, key, val, bad, thrown string) {
	for _, k := range cfgSortedKeys(fields) {
		v := fields[k]
		b, t := pairThrow(table, k, v)
		if t == "" {
			continue
		}
		h := mapThrowHandled(table, t)
		if how == "" || how != mapStalls && h == mapStalls {
			how, key, val, bad, thrown = h, k, v, b, t
		}
	}
	return how, key, val, bad, thrown
}

// mapThrowHandled is what the handler of map table does with an entry
// whose pair throws std::thrown: Dot1pToTcMapHandler skips the pair,
// TcToDscpMapHandler refuses the entry for invalid_argument, and the
// others catch nothing, so the table stalls (mapStalls).
func mapThrowHandled(table, thrown string) string {
	switch {
	case table == "DOT1P_TO_TC_MAP":
		return mapSkipsPair
	case table == "TC_TO_DSCP_MAP" && thrown == "invalid_argument":
		return mapRefused
	}
	return mapStalls
}

// pairThrow says which of a map table's pair k: v std::stoi throws on
// first, as the table's handler reads them (bad), and what it throws ("":
// neither). Every handler reads the key, then the value, but
// TcToDscpMapHandler, which reads the value (the DSCP) first, and refuses
// the entry where it is below 0 or beyond DSCP_MAX_VAL before it reads the
// key: there the key does not throw (decodeDB refuses the pair, as it does
// any number out of range).
func pairThrow(table, k, v string) (bad, thrown string) {
	order := []string{k, v}
	if table == "TC_TO_DSCP_MAP" {
		if n, _, ok := stoi(v); ok && (n < 0 || n > int64(intMapBounds()[table][1])) {
			return "", ""
		}
		order = []string{v, k}
	}
	for _, s := range order {
		if t := stoiThrow(s); t != "" {
			return s, t
		}
	}
	return "", ""
}

// mapPairSAI is what qosorch and SAI make of a pair k: v of map table
// that std::stoi reads (numbers out of the table's range among them):
// the key and value SAI is given, and why the entry is refused ("" where
// it is not). Every handler but TcToDscpMapHandler writes both numbers
// into SAI's byte-wide qos map fields with a cast and no check
// (DscpToTcMapHandler, TcToQueueMapHandler, TcToPgHandler,
// PfcPrioToPgHandler, PfcToQueueHandler, Dot1pToTcMapHandler:
// (uint8_t)stoi(...), qosorch.cpp), so 264 reaches SAI as 8 and -1 as
// 255. TcToDscpMapHandler refuses the entry where the DSCP is below 0 or
// above DSCP_MAX_VAL, 63 ("DSCP value %d is greater than max value",
// task_invalid_entry), before it casts the key. SAI takes what SONiC's
// YANG model allows (yangMapBounds: traffic classes 0-15, as SONiC's own
// dual-ToR maps use TC 8); what it does with a number beyond those the
// sources do not say (the vendor's SAI checks it, or not): labctl takes it
// to refuse the map (create_qos_map fails, addQosItem returns no object,
// processWorkItem's task_failed, and QosOrch::doTask drops the entry),
// which leaves every port naming the map without its PORT_QOS_MAP entry:
// the reading that shows the harm rather than hiding it.
func mapPairSAI(table string, k, v int64) (kn, vn int, refused string) {
	b := yangMapBounds()[table]
	if table == "TC_TO_DSCP_MAP" && (v < 0 || v > int64(b[1])) {
		return 0, 0, "TcToDscpMapHandler refuses a DSCP below 0 or above DSCP_MAX_VAL (63) and the whole entry with it (task_invalid_entry)"
	}
	kn, vn = int(uint8(k)), int(uint8(v))
	if kn <= b[0] && vn <= b[1] {
		return kn, vn, ""
	}
	cast := ""
	if int64(kn) != k || int64(vn) != v {
		cast = fmt.Sprintf(", cut to a byte: %d: %d", kn, vn)
	}
	return kn, vn, fmt.Sprintf("qosorch hands SAI the pair without a check (as (uint8_t)stoi%s), and it is beyond what SONiC's YANG model allows (%s: %s); labctl takes SAI to refuse the map (create_qos_map fails: task_failed, and qosorch drops the entry), as the sources do not say what a switch's SAI does with it", cast, yangRange(table), mapBeyond(table))
}

// mapBeyond names what a map table's numbers cannot be, for mapPairSAI:
// beyond its YANG bounds (yangMapBounds), its keys and values named by
// mapNouns.
func mapBeyond(table string) string {
	b, n := yangMapBounds()[table], mapNouns[table]
	switch {
	case table == "TC_TO_DSCP_MAP":
		// A DSCP beyond 63 TcToDscpMapHandler refuses first (mapPairSAI).
		return fmt.Sprintf("no %s above %d", n[0], b[0])
	case b[0] == b[1]:
		return fmt.Sprintf("no %s or %s above %d", n[0], n[1], b[0])
	}
	return fmt.Sprintf("no %s above %d nor %s above %d", n[0], b[0], n[1], b[1])
}

// mapNouns are what each map table's keys and values are.
var mapNouns = map[string][2]string{
	"DSCP_TO_TC_MAP":                     {"DSCP", "traffic class"},
	"DOT1P_TO_TC_MAP":                    {"802.1p priority", "traffic class"},
	"TC_TO_DSCP_MAP":                     {"traffic class", "DSCP"},
	"TC_TO_QUEUE_MAP":                    {"traffic class", "queue"},
	"TC_TO_PRIORITY_GROUP_MAP":           {"traffic class", "PG"},
	"MAP_PFC_PRIORITY_TO_QUEUE":          {"PFC priority", "queue"},
	"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {"PFC priority", "PG"},
}

// mapRangeRefused is the first pair, in key order, of an entry of map
// table that qosorch or SAI refuse for its numbers (mapPairSAI), and why;
// pairs std::stoi throws on are mapThrows'.
func mapRangeRefused(table string, fields map[string]string) (key, val, why string) {
	for _, k := range cfgSortedKeys(fields) {
		v := fields[k]
		if _, t := pairThrow(table, k, v); t != "" {
			continue
		}
		kn, _, ok1 := stoi(k)
		vn, _, ok2 := stoi(v)
		if !ok1 || !ok2 {
			continue
		}
		if _, _, why := mapPairSAI(table, kn, vn); why != "" {
			return k, v, why
		}
	}
	return "", "", ""
}

// mapStallTables are the map tables whose handlers std::stoi can stop
// (mapThrows), in the order qosorch's tables are checked here.
var mapStallTables = []string{"DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "TC_TO_DSCP_MAP"}

// mapRangeTables are the map tables whose entries a number out of range
// keeps from being created (mapRangeRefused): those std::stoi can stop
// and DOT1P_TO_TC_MAP, whose handler skips a pair std::stoi throws on.
var mapRangeTables = append(slices.Clone(mapStallTables), "DOT1P_TO_TC_MAP")

// stoullThrows says whether std::stoull (strtoull, base 10) throws on s:
// no digit after the blanks and an optional sign (a '-' it takes, and
// negates the value modulo 2^64), or a value beyond 64 bits.
func stoullThrows(s string) bool {
	t := strings.TrimLeft(s, cBlanks)
	if t != "" && t[0] == '-' {
		t = "+" + t[1:]
	}
	_, _, ok := stoul(t)
	return !ok
}

// The fields of WRED_PROFILE and SCHEDULER whose reading throws in
// orchagent: WredMapHandler::convertFieldValuesToAttributes reads the
// thresholds and drop probabilities with std::stoi and ecn with
// ecn_map.at; QosOrch::handleSchedulerTable reads weight with std::stoi,
// meter_type with scheduler_meter_map.at and cir, cbs, pir and pbs with
// std::stoull.
var (
	wredStoiFields  = []string{"green_min_threshold", "green_max_threshold", "green_drop_probability", "yellow_min_threshold", "yellow_max_threshold", "yellow_drop_probability", "red_min_threshold", "red_max_threshold", "red_drop_probability"}
	ecnModes        = []string{"ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red", "ecn_yellow_red", "ecn_all"}
	schedStoullFlds = []string{"cir", "cbs", "pir", "pbs"}
)

// objectThrows says why orchagent throws reading a WRED_PROFILE or
// SCHEDULER entry's fields ("" when it does not), and how to write the
// field. The handler reads the fields one by one in the entry's order and
// returns at one it refuses (an unknown field, a wred_*_enable that is
// not true or false, an unknown scheduler type), so a refused field
// before a throwing one would refuse the entry instead; the field order
// of a CONFIG_DB hash is the order it was written in, which the file
// does not fix, and labctl takes the throw, which does more harm.
func objectThrows(table string, fields map[string]string) (why, fix string) {
	for _, f := range cfgSortedKeys(fields) {
		v := fields[f]
		switch {
		case table == "WRED_PROFILE" && f == "ecn" && !slices.Contains(ecnModes, v):
			return fmt.Sprintf("its ecn %q is no mode orchagent knows: WredMapHandler looks it up with ecn_map.at, which throws std::out_of_range", v),
				"write ecn as one of " + strings.Join(ecnModes, ", ") + " exactly (ecn_all marks every colour, as RoCE needs)"
		case table == "WRED_PROFILE" && slices.Contains(wredStoiFields, f):
			if _, _, ok := stoi(v); !ok {
				return fmt.Sprintf("its %s %q is no number std::stoi can read into an int (no digit, or beyond 2147483647): WredMapHandler throws", f, v),
					fmt.Sprintf("write %s as a whole number of bytes (a percent for a probability) no larger than 2147483647", f)
			}
		case table == "SCHEDULER" && f == "meter_type" && v != "bytes" && v != "packets":
			return fmt.Sprintf("its meter_type %q is not bytes or packets exactly: handleSchedulerTable looks it up with scheduler_meter_map.at, which throws std::out_of_range", v),
				"write meter_type bytes or packets, without blanks"
		case table == "SCHEDULER" && f == "weight":
			if _, _, ok := stoi(v); !ok {
				return fmt.Sprintf("its weight %q is no number std::stoi can read into an int: handleSchedulerTable throws", v), "write the weight as a number 1-100"
			}
		case table == "SCHEDULER" && slices.Contains(schedStoullFlds, f) && stoullThrows(v):
			return fmt.Sprintf("its %s %q is no number std::stoull can read (no digit, or beyond 64 bits): handleSchedulerTable throws", f, v),
				fmt.Sprintf("write %s as a whole number, or remove it", f)
		}
	}
	return "", ""
}

// wredMinAboveMax is the first colour of a WRED_PROFILE entry whose min
// threshold is above its max, and the two, as WredMapHandler's
// convertFieldValuesToAttributes compares them (qosorch.cpp) before it
// creates the profile: each read by std::stoi into a sai_uint32_t (-1 is
// 4294967295), a threshold the entry leaves out 0 (a new profile's stored
// thresholds, m_wredProfiles[key], start at 0), whether the colour's WRED
// is enabled or not. "" where every colour's min is at most its max.
// Thresholds std::stoi throws on are objectThrows'.
func wredMinAboveMax(fields map[string]string) (colour string, minV, maxV uint32) {
	read := func(f string) uint32 {
		v, _, _ := stoi(fields[f])
		return uint32(v)
	}
	for _, c := range []string{"green", "yellow", "red"} {
		if minV, maxV = read(c+"_min_threshold"), read(c+"_max_threshold"); minV > maxV {
			return c, minV, maxV
		}
	}
	return "", 0, 0
}

// stallObjects finds, in WRED_PROFILE, SCHEDULER and the map tables, the
// entries qosorch never creates because one of them throws. Its doTask walks the
// table's queue (Consumer::m_toSync, a multimap ordered by key) from the
// first entry and calls the handler on each; the exception is caught by
// Consumer::drain only, outside that loop, so the entry that threw is
// neither erased nor passed: it stays first, and every later pass (each
// new batch, each retry) stops at it again. Entries before it in key
// order are created on the first pass; it and every entry after it never
// are, whether a QUEUE names them or not (on a switch, entries created
// in an earlier batch would stay). The QUEUE and PORT_QOS_MAP entries
// naming one then wait for it and apply nothing (queue, pqmEntryApplied:
// their retry is all-or-nothing). Each stall is noted where it starts
// (QOS021), naming what it stops. A map entry TcToDscpMapHandler refuses
// is not created either, alone; a pair Dot1pToTcMapHandler skips is
// noted (mapThrows). A WRED_PROFILE entry with a colour's min threshold
// above its max (wredMinAboveMax) WredMapHandler refuses, alone
// (task_invalid_entry): it is not created either.
func (r *resolver) stallObjects(doc Doc) {
	r.uncreated = map[[2]string]string{}
	for _, table := range append([]string{"SCHEDULER", "WRED_PROFILE"}, mapRangeTables...) {
		keys := cfgSortedKeys(doc[table])
		for i, key := range keys {
			why, fix := objectThrows(table, doc[table][key])
			field := ""
			if slices.Contains(mapStallTables, table) {
				how, k, v, bad, thrown := mapThrows(table, doc[table][key])
				if how != "" {
					field = k
					which := "value"
					if bad == k && bad != v {
						which = "key"
					}
					why = fmt.Sprintf("its entry %q: %q: the %s %q is no number std::stoi can read into an int, and it throws std::%s", k, v, which, bad, thrown)
					fix = "write each key and value in decimal digits (" + mapRange(table) + ")"
				}
				if how == mapRefused {
					what := why + ": TcToDscpMapHandler catches it and refuses the entry (task_invalid_entry), so qosorch never creates it, and the PORT_QOS_MAP entries naming it apply nothing (no maps, no PFC)"
					r.overrule(table, key, true, what, fix, nil)
					r.overruledField(table+"|"+key, field)
					r.uncreated[[2]string{table, key}] = "orchagent never creates it: " + why + ", and TcToDscpMapHandler refuses the entry"
					continue
				}
			}
			if why == "" {
				if table == "WRED_PROFILE" {
					if c, minV, maxV := wredMinAboveMax(doc[table][key]); c != "" {
						// The entry alone is not created: processWorkItem
						// drops it (task_invalid_entry) and goes on.
						entry := fmt.Sprintf("its %s_min_threshold %d is above its %s_max_threshold %d", c, minV, c, maxV)
						r.overrule(table, key, true, entry+": WredMapHandler refuses the profile (convertFieldValuesToAttributes: \"min threshold is greater than max threshold\", task_invalid_entry), so qosorch never creates it, and the QUEUE entries naming it apply nothing (no ECN marking)",
							fmt.Sprintf("give %s_min_threshold below %s_max_threshold (a threshold left out is 0 to orchagent)", c, c), nil)
						r.overruledField(table+"|"+key, c+"_min_threshold")
						r.uncreated[[2]string{table, key}] = "orchagent never creates it: " + entry
					}
					continue
				}
				if !slices.Contains(mapRangeTables, table) {
					continue
				}
				if rk, rv, rwhy := mapRangeRefused(table, doc[table][key]); rwhy != "" {
					// The entry alone is not created: qosorch refuses it
					// or drops it once SAI has, and goes on with the
					// table's other entries.
					entry := fmt.Sprintf("its entry %q: %q is out of range (%s)", rk, rv, mapRange(table))
					r.overrule(table, key, true, entry+": "+rwhy+"; qosorch never creates it, and the PORT_QOS_MAP entries naming it apply nothing (no maps, no PFC)", "write each key and value within "+mapRange(table), nil)
					r.overruledField(table+"|"+key, rk)
					r.uncreated[[2]string{table, key}] = "orchagent never creates it: " + entry
				}
				continue
			}
			after := keys[i+1:]
			what := fmt.Sprintf("%s; no handler catches the exception before Consumer::drain, and the entry stays first in the table's queue (ordered by key), so every pass of qosorch stops at it: it is never created", why)
			if len(after) > 0 {
				names := make([]string, len(after))
				for j, k := range after {
					names[j] = table + "|" + k
				}
				what += fmt.Sprintf(", nor the %s after it in key order (%s), used or not", plural.N(len(after), table+" entry"), plural.Some(names, 5, ", "))
			}
			// Only QUEUE names a WRED profile; QUEUE and PORT_QOS_MAP name
			// schedulers, PORT_QOS_MAP the maps.
			namers := "QUEUE and PORT_QOS_MAP entries"
			switch table {
			case "WRED_PROFILE":
				namers = "QUEUE entries"
			case "SCHEDULER":
			default:
				namers = "PORT_QOS_MAP entries"
			}
			them := "it"
			if len(after) > 0 {
				them = "them"
			}
			what += fmt.Sprintf("; the %s naming %s apply nothing", namers, them)
			r.overrule(table, key, true, what, fix, nil)
			r.overruledField(table+"|"+key, field)
			r.uncreated[[2]string{table, key}] = "orchagent never creates it: " + why
			for _, k := range after {
				r.uncreated[[2]string{table, k}] = fmt.Sprintf("orchagent never creates it: %s|%s before it in key order throws (%s) and stops qosorch's %s table there on every pass", table, key, why, table)
			}
			break
		}
	}
}

// notCreated says why orchagent never creates the entry name of table
// (stallObjects), or "".
func (r *resolver) notCreated(table, name string) string {
	return r.uncreated[[2]string{table, name}]
}

// overruledField places the overruled entry where at its field (a map's
// pair whose std::stoi throws), so that lint names that line.
func (r *resolver) overruledField(where, field string) {
	for i := range r.dc.Overruled {
		if r.dc.Overruled[i].Where == where {
			r.dc.Overruled[i].Field = field
		}
	}
}
