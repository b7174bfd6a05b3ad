package sonic

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

func TestStoi(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int64
		rest string
		ok   bool
	}{
		{"3", 3, "", true}, {" 3", 3, "", true}, {"3 ", 3, " ", true}, {"+3", 3, "", true}, {"-3", -3, "", true},
		{"0x3", 0, "x3", true}, {"3.5", 3, ".5", true}, {"2147483647", 2147483647, "", true}, {"-2147483648", -2147483648, "", true},
		{"2147483648", 0, "", false}, {"99999999999999999999", 0, "", false}, {"", 0, "", false}, {"x", 0, "", false}, {" ", 0, "", false}, {"+", 0, "", false},
	} {
		v, rest, ok := stoi(c.in)
		if v != c.v || rest != c.rest || ok != c.ok {
			t.Errorf("stoi(%q) = %d, %q, %v; want %d, %q, %v", c.in, v, rest, ok, c.v, c.rest, c.ok)
		}
	}
	for in, throws := range map[string]bool{"1": false, " 1": false, "-1": false, "50G": false, "18446744073709551615": false, "18446744073709551616": true, "": true, "G": true, "-": true} {
		if got := stoullThrows(in); got != throws {
			t.Errorf("stoullThrows(%q) = %v, want %v", in, got, throws)
		}
	}
}

// A WRED_PROFILE or SCHEDULER entry whose field throws in orchagent
// (WredMapHandler's std::stoi of a threshold or probability and
// ecn_map.at; handleSchedulerTable's scheduler_meter_map.at, std::stoi
// of the weight and std::stoull of cir, cbs, pir and pbs) stays first in
// the table's queue, caught by Consumer::drain only: neither it nor any
// entry after it in key order is created, used or not, and the QUEUE
// entries naming them apply nothing. Entries before it are created.
// Lint names the entry that stalls and what it stops (QOS021), and the
// queues that lose their scheduler and WRED (QOS013).
func TestObjectStall(t *testing.T) {
	base := map[string]map[string]map[string]string{
		"WRED_PROFILE": {
			"0_FIRST":  {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "100000", "green_max_threshold": "200000"},
			"ECN_REAL": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "819200", "green_max_threshold": "3276800", "green_drop_probability": "20"},
		},
		"SCHEDULER": {
			"a_first": {"type": "DWRR", "weight": "7"},
			"z_real":  {"type": "DWRR", "weight": "50"},
		},
		"QUEUE": {
			"Ethernet0|1": {"scheduler": "a_first", "wred_profile": "0_FIRST"},
			"Ethernet0|3": {"scheduler": "z_real", "wred_profile": "ECN_REAL"},
		},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
	}
	parse := func(table, key string, fields map[string]string) qos.DeviceConfig {
		t.Helper()
		doc := Doc{}
		for tb, es := range base {
			doc[tb] = map[string]map[string]string{}
			for k, e := range es {
				doc[tb][k] = maps.Clone(e)
			}
		}
		if table != "" {
			doc[table][key] = fields
		}
		dc, err := FromDoc("leaf1", doc)
		if err != nil {
			t.Fatal(err)
		}
		return dc
	}
	dc := parse("", "", nil)
	if q := dc.Port("Ethernet0").Queue(3); q.ECN == nil || q.Weight != 50 {
		t.Fatalf("unstalled config: queue 3 %+v, want ECN and weight 50", q)
	}
	for _, c := range []struct {
		name, table, key string
		fields           map[string]string
		stops            string // the real entry it stops
	}{
		{"an unused profile's unknown ecn", "WRED_PROFILE", "AAA_UNUSED", map[string]string{"ecn": "ecn_blue"}, "ECN_REAL"},
		{"a threshold beyond int32", "WRED_PROFILE", "B_BIG", map[string]string{"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000", "green_max_threshold": "3000000000"}, "ECN_REAL"},
		{"a probability beyond int32", "WRED_PROFILE", "B_PROB", map[string]string{"ecn": "ecn_all", "green_drop_probability": "3000000000"}, "ECN_REAL"},
		{"an unknown meter_type", "SCHEDULER", "m_bad", map[string]string{"type": "DWRR", "weight": "5", "meter_type": " bytes"}, "z_real"},
		{"a cir std::stoull cannot read", "SCHEDULER", "m_cir", map[string]string{"type": "DWRR", "weight": "5", "cir": "G10"}, "z_real"},
		{"a non-numeric pbs", "SCHEDULER", "m_pbs", map[string]string{"type": "DWRR", "weight": "5", "pir": "1000", "pbs": "lots"}, "z_real"},
	} {
		dc := parse(c.table, c.key, c.fields)
		q1, q3 := dc.Port("Ethernet0").Queue(1), dc.Port("Ethernet0").Queue(3)
		if q3.ECN != nil || q3.Weight != 1 {
			t.Errorf("%s: queue 3 %+v, want neither ECN nor its weight (its %s never created)", c.name, q3, c.stops)
		}
		if q1.ECN == nil || q1.Weight != 7 {
			t.Errorf("%s: queue 1 %+v, want the entries before the stall (ECN, weight 7)", c.name, q1)
		}
		var stall, queue bool
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, c.table+"|"+c.key) && strings.Contains(f.Message, c.table+"|"+c.stops) && f.Fix != "" {
				stall = true
			}
			if f.Rule == qos.RuleUnresolved && f.Severity == qos.SevError && strings.Contains(f.Message, "QUEUE|Ethernet0|3") && strings.Contains(f.Message, "never creates") {
				queue = true
			}
		}
		if !stall || !queue {
			t.Errorf("%s: lint names the stall %v, the queue %v: %+v", c.name, stall, queue, dc.Overruled)
		}
		if !slices.ContainsFunc(dc.Overruled, func(o qos.Overruled) bool { return o.Where == c.table+"|"+c.key && o.Refused }) {
			t.Errorf("%s: %s|%s not overruled: %+v", c.name, c.table, c.key, dc.Overruled)
		}
	}
	// After the real entries in key order, the throwing entry stops
	// nothing they need.
	dc = parse("WRED_PROFILE", "ZZZ_UNUSED", map[string]string{"ecn": "ecn_blue"})
	if q := dc.Port("Ethernet0").Queue(3); q.ECN == nil {
		t.Errorf("an unused profile after the real ones in key order took queue 3's ECN")
	}
}
