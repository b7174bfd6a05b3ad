package sonic

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/lazyregexp"
)

// cfgPFCEnableRE is the pattern of pfc_enable and pfcwd_sw_enable in
// sonic-port-qos-map.yang.
var cfgPFCEnableRE = lazyregexp.New(`^([0-7](,[0-7])*)?$`)

// cfgPFCEnableBlankRE is a priority list with blanks after its commas
// ("3, 4"), which the switch's daemons read as the list without them and
// the YANG model refuses.
var cfgPFCEnableBlankRE = lazyregexp.New(`^[0-7](, *[0-7])*$`)

// ValidateDoc checks a CONFIG_DB document against the constraints of
// SONiC's YANG models that labctl relies on, and that references between
// tables resolve. Each error names table, key and field.
func ValidateDoc(doc Doc) []error {
	var errs []error
	bad := func(table, key, field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s|%s %s: %s", table, key, field, fmt.Sprintf(format, a...)))
	}
	intIn := func(table, key, field string, lo, hi int64, required bool) (int64, bool) {
		v, ok := doc[table][key][field]
		if !ok {
			if required {
				bad(table, key, field, "missing")
			}
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			bad(table, key, field, "%q is not an integer", v)
			return 0, false
		}
		if n < lo || n > hi {
			bad(table, key, field, "%d is outside %d-%d", n, lo, hi)
			return n, false
		}
		return n, true
	}
	ref := func(table, key, field, target string) {
		v, ok := doc[table][key][field]
		if !ok {
			return
		}
		if v == "" && table == "PORT_QOS_MAP" {
			bad(table, key, field, "is empty, which orchagent waits on as a name not yet defined, applying none of the entry (fix: remove the field, or name a %s entry)", target)
			return
		}
		if why, fix := bracketRefused(v, target); why != "" {
			bad(table, key, field, "%q is %s (fix: %s)", v, why, fix)
			return
		}
		if _, ok := doc[target][v]; !ok {
			bad(table, key, field, "refers to %s|%s, which is not defined", target, v)
		}
	}
	for _, key := range cfgSortedKeys(doc["PORT_QOS_MAP"]) {
		for _, f := range []string{"pfc_enable", "pfcwd_sw_enable"} {
			if v, ok := doc["PORT_QOS_MAP"][key][f]; ok && !cfgPFCEnableRE().MatchString(v) {
				bad("PORT_QOS_MAP", key, f, "%q does not match ([0-7](,[0-7])*)?", v)
			}
		}
		for _, pr := range portRefs {
			ref("PORT_QOS_MAP", key, pr.field, pr.table)
		}
	}
	for _, port := range cfgSortedKeys(doc["PORT"]) {
		// sonic-port.yang: mtu is a uint16 in 68..9216.
		intIn("PORT", port, "mtu", cfgPortMTUMin, cfgPortMTUMax, false)
	}
	for _, pm := range portMaps {
		table := pm.table
		b := intMapBounds()[table]
		maxKey, maxVal := int64(b[0]), int64(b[1])
		for _, name := range cfgSortedKeys(doc[table]) {
			for _, k := range cfgSortedKeys(doc[table][name]) {
				n, err := strconv.ParseInt(k, 10, 64)
				if err != nil || n < 0 || n > maxKey {
					bad(table, name, k, "key is not 0-%d", maxKey)
				}
				intIn(table, name, k, 0, maxVal, true)
			}
		}
	}
	for _, name := range cfgSortedKeys(doc["WRED_PROFILE"]) {
		for _, c := range []string{"green", "yellow", "red"} {
			// qosorch reads the thresholds with std::stoi, which throws
			// beyond an int (stallObjects).
			lo, okLo := intIn("WRED_PROFILE", name, c+"_min_threshold", 0, math.MaxInt32, false)
			hi, okHi := intIn("WRED_PROFILE", name, c+"_max_threshold", 0, math.MaxInt32, false)
			if okLo && okHi && lo >= hi {
				bad("WRED_PROFILE", name, c+"_min_threshold", "%d must be below %s_max_threshold %d", lo, c, hi)
			}
			intIn("WRED_PROFILE", name, c+"_drop_probability", 0, 100, false)
		}
		if v, ok := doc["WRED_PROFILE"][name]["ecn"]; ok && !slices.Contains([]string{"ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red", "ecn_yellow_red", "ecn_all"}, v) {
			bad("WRED_PROFILE", name, "ecn", "%q is not an ecn mode (ecn_all, ecn_green, … ecn_none)", v)
		}
	}
	for _, name := range cfgSortedKeys(doc["SCHEDULER"]) {
		switch typ, given := doc["SCHEDULER"][name]["type"]; {
		case typ == "STRICT":
		case typ == "DWRR" || typ == "WRR":
			intIn("SCHEDULER", name, "weight", 1, 100, true)
		case !given:
			// A port's scheduler (PORT_QOS_MAP scheduler) has no type:
			// SAI reads only its peak rate and burst.
			intIn("SCHEDULER", name, "weight", 1, 100, false)
		default:
			bad("SCHEDULER", name, "type", "%q is not DWRR, WRR or STRICT", typ)
		}
		if v, ok := doc["SCHEDULER"][name]["meter_type"]; ok && strings.TrimSpace(v) != "bytes" && strings.TrimSpace(v) != "packets" {
			bad("SCHEDULER", name, "meter_type", "%q is not bytes or packets", v)
		}
		for _, f := range []string{"pir", "pbs"} {
			intIn("SCHEDULER", name, f, 0, math.MaxInt64, false)
		}
	}
	for _, key := range cfgSortedKeys(doc["QUEUE"]) {
		ref("QUEUE", key, "scheduler", "SCHEDULER")
		ref("QUEUE", key, "wred_profile", "WRED_PROFILE")
	}
	for _, name := range cfgSortedKeys(doc["BUFFER_PROFILE"]) {
		ref("BUFFER_PROFILE", name, "pool", "BUFFER_POOL")
		// size is not checked against xon+xoff: on Broadcom SKUs the
		// headroom comes from a shared pool and size < xon+xoff is normal.
		for _, f := range []string{"xon", "xoff", "size", "xon_offset"} {
			intIn("BUFFER_PROFILE", name, f, 0, 1<<40, false)
		}
		intIn("BUFFER_PROFILE", name, "dynamic_th", -8, 8, false)
		_, static := doc["BUFFER_PROFILE"][name]["static_th"]
		if _, dynamic := doc["BUFFER_PROFILE"][name]["dynamic_th"]; static && dynamic {
			bad("BUFFER_PROFILE", name, "static_th", "given beside dynamic_th: a profile has one threshold mode (SAI creates none with both)")
		}
		if v, ok := doc["BUFFER_PROFILE"][name]["packet_discard_action"]; ok && v != "drop" && v != "trim" {
			bad("BUFFER_PROFILE", name, "packet_discard_action", "%q is not drop or trim", v)
		}
	}
	for _, table := range []string{"BUFFER_PG", "BUFFER_QUEUE"} {
		for _, key := range cfgSortedKeys(doc[table]) {
			ref(table, key, "profile", "BUFFER_PROFILE")
		}
	}
	for _, key := range cfgSortedKeys(doc["PFC_WD"]) {
		if key == "GLOBAL" {
			// Any positive interval: orchagent's pfcwd applies the value
			// as it is (stoi, no range), and lint judges what a slow poll
			// does to storm detection (QOS008), so a config the switch
			// takes is not refused when a variant renders it again.
			intIn("PFC_WD", key, "POLL_INTERVAL", 1, math.MaxInt32, false)
			continue
		}
		intIn("PFC_WD", key, "detection_time", cfgWDDetectionMin, cfgWDDetectionMax, true)
		intIn("PFC_WD", key, "restoration_time", cfgWDRestorationMin, cfgWDRestorationMax, true)
		if a := doc["PFC_WD"][key]["action"]; !slices.Contains([]string{"drop", "forward", "alert"}, a) {
			bad("PFC_WD", key, "action", "%q is not drop, forward or alert", a)
		}
	}
	return errs
}

// bracketRef reads a reference written in SONiC's old form, "[TABLE|name]"
// (ok false for any other value). orchagent reads references as the bare
// name since SONiC 202111 (sonic-swss a3fdaf41c): its parseReference
// refuses a value that starts with '[' or ends with ']' ("Must not be
// surrounded by [ ]"), so such a reference resolves to nothing, whatever
// table it names. labctl models the current orchagent: the value is the
// name looked up, and no entry has it (bracketRefused says why).
func bracketRef(v string) (table, name string, ok bool) {
	if !strings.HasPrefix(v, "[") && !strings.HasSuffix(v, "]") {
		return "", "", false
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	table, name, found := strings.Cut(inner, "|")
	if !found {
		return "", inner, true
	}
	return table, name, true
}

// bracketRefused says why orchagent refuses reference v of a field that
// names an entry of table, and how to write it ("" when v is not written
// in brackets).
func bracketRefused(v, table string) (why, fix string) {
	t, name, ok := bracketRef(v)
	if !ok {
		return "", ""
	}
	why = "a name written in brackets, which orchagent refuses since SONiC 202111 (parseReference: 'Must not be surrounded by [ ]')"
	fix = fmt.Sprintf("write the bare name %q", name)
	if t != "" && t != table {
		why += ", and which names table " + t + ", not " + table
		fix = fmt.Sprintf("write the bare name of a %s entry", table)
	}
	return why, fix
}

func cfgSortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func joinErrs(errs []error) error {
	if len(errs) > 10 {
		errs = append(errs[:10:10], fmt.Errorf("and %d more", len(errs)-10))
	}
	return errors.Join(errs...)
}
