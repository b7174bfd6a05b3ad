package mutation_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/nos/sonic"
)

// doc is a CONFIG_DB file as labctl renders it: every value a string.
type doc map[string]map[string]map[string]string

// edit changes the config_db files of the switches named (every switch
// of the lab when none is).
func edit(f func(d doc), switches ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, path := range files {
			name := strings.TrimSuffix(filepath.Base(path), ".json")
			if strings.HasPrefix(name, ".") || len(switches) > 0 && !contains(switches, name) {
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var d doc
			if err := json.Unmarshal(data, &d); err != nil {
				t.Fatal(err)
			}
			f(d)
			out, _ := json.MarshalIndent(d, "", "    ")
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}

// set sets field f of every entry of table whose key matches (all when
// match is nil), creating the table when needed.
func (d doc) set(table string, match func(key string) bool, f, v string) {
	for key, e := range d[table] {
		if match == nil || match(key) {
			e[f] = v
		}
	}
}

// del removes field f from the matching entries of table.
func (d doc) del(table string, match func(key string) bool, f string) {
	for key, e := range d[table] {
		if match == nil || match(key) {
			delete(e, f)
		}
	}
}

// add puts an entry into a table.
func (d doc) add(table, key string, fields map[string]string) {
	if d[table] == nil {
		d[table] = map[string]map[string]string{}
	}
	d[table][key] = fields
}

// copyEntry adds a copy of table|from named to, with changes.
func (d doc) copyEntry(table, from, to string, changes map[string]string) {
	e := map[string]string{}
	for k, v := range d[table][from] {
		e[k] = v
	}
	for k, v := range changes {
		e[k] = v
	}
	d.add(table, to, e)
}

// wholePortTable makes the config a whole CONFIG_DB as config save
// writes it: DEVICE_METADATA with the switch's hwsku, and a PORT entry
// for every port its BUFFER_PG keys name, with lanes and admin status up.
func wholePortTable(d doc) {
	d.add("DEVICE_METADATA", "localhost", map[string]string{"hwsku": "Force10-S6000"})
	lane := 0
	for _, key := range slices.Sorted(maps.Keys(d["BUFFER_PG"])) {
		port, _, _ := strings.Cut(key, "|")
		if _, ok := d["PORT"][port]; !ok {
			d.add("PORT", port, map[string]string{"lanes": fmt.Sprint(lane), "admin_status": "up"})
			lane++
		}
	}
}

// overlapPG3 adds <port>|3-4 with profile beside every <port>|3 entry of
// BUFFER_PG.
func overlapPG3(d doc, profile string) {
	for key := range d["BUFFER_PG"] {
		if port, ok := strings.CutSuffix(key, "|3"); ok {
			d.add("BUFFER_PG", port+"|3-4", map[string]string{"profile": profile})
		}
	}
}

func suffix(s string) func(string) bool {
	return func(k string) bool { return strings.HasSuffix(k, s) }
}
func prefix(s string) func(string) bool {
	return func(k string) bool { return strings.HasPrefix(k, s) }
}
func portsOnly() func(string) bool     { return func(k string) bool { return k != "global" } }
func lossless(doc) func(k string) bool { return prefix("pg_lossless_") }

// pointPorts points every port's PORT_QOS_MAP field f at name.
func (d doc) pointPorts(f, name string) { d.set("PORT_QOS_MAP", portsOnly(), f, name) }

// cables sets every port's CABLE_LENGTH to what length gives for its
// length now.
func (d doc) cables(length func(string) string) {
	for _, e := range d["CABLE_LENGTH"] {
		for p, v := range e {
			e[p] = length(v)
		}
	}
}

// sonicMutations change every field of SONiC's typed tables (sonic.Fields)
// in the 64gpu lab's rendered config_db files.
func sonicMutations() []mutation {
	// CNPs leave each port only beside ACKs (the incast's data runs the
	// other way), so their queue's share never holds them back.

	return []mutation{
		// Map tables.
		{field: "DSCP_TO_TC_MAP (entries)", name: "RoCE DSCP 26 to lossy TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: edit(func(d doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["26"] = "1" })},
		// qosorch's map handlers read keys and values with std::stoi,
		// which skips blanks and stops at the first non-digit: " 3" is 3
		// (a QOS000 note). ("0x3", which std::stoi reads as 0, is refused
		// at its line: orchestrator/nos/sonic's TestMapNumbersReadAsStoi.)
		{field: "DSCP_TO_TC_MAP (entries)", name: "RoCE DSCP 26's TC written \" 3\"",
			edit: edit(func(d doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["26"] = " 3" })},
		{field: "TC_TO_QUEUE_MAP (entries)", name: "TC3's queue written \"3 \"",
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["3"] = "3 " })},
		// A value std::stoi throws on: DscpToTcMapHandler catches
		// nothing, so qosorch never creates the map (nor the maps after
		// it in key order), and every PORT_QOS_MAP entry naming it
		// applies nothing: no maps, no PFC.
		{field: "DSCP_TO_TC_MAP (entries)", name: "RoCE DSCP 26's TC written \"x\"", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["26"] = "x" }, "leaf1")},
		{field: "TC_TO_QUEUE_MAP (entries)", name: "TC3's queue beyond an int", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["3"] = "99999999999" }, "leaf1")},
		// Best effort's DSCPs (0 among them) moved to the CNPs' class:
		// bulk traffic on their strict queue, sent before RoCE's
		// round-robin one (QOS025, as EOS's catch-all line moved there).
		{field: "DSCP_TO_TC_MAP (entries)", name: "best effort's DSCPs into the CNPs' strict TC6", harmful: true, rule: "QOS025", dataPlane: true,
			edit: edit(func(d doc) {
				for dscp, tc := range d["DSCP_TO_TC_MAP"]["AZURE"] {
					if tc == "0" {
						d["DSCP_TO_TC_MAP"]["AZURE"][dscp] = "6"
					}
				}
			})},
		// A number std::stoi reads but out of the table's range: qosorch
		// hands SAI a byte of it, unchecked. 259 is 3 (a QOS000 note);
		// 8, within SONiC's YANG ranges, puts RoCE in a traffic class
		// pfc_enable cannot name; 16, beyond them, labctl takes SAI to
		// refuse, so qosorch never creates the map and the ports naming
		// it apply nothing (no PFC).
		{field: "DSCP_TO_TC_MAP (entries)", name: "RoCE DSCP 26's TC written 259 (3 as a byte)",
			edit: edit(func(d doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["26"] = "259" })},
		{field: "DSCP_TO_TC_MAP (entries)", name: "RoCE DSCP 26 to TC 8, beyond the model", harmful: true, rule: "QOS003", dataPlane: true,
			edit: edit(func(d doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["26"] = "8" })},
		{field: "DSCP_TO_TC_MAP (entries)", name: "RoCE DSCP 26 to TC 16, beyond SONiC's YANG", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["26"] = "16" }, "leaf1")},
		{field: "DSCP_TO_TC_MAP (entries)", name: "unused DSCP 10 between lossy classes",
			edit: edit(func(d doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["10"] = "1" })},
		{field: "DOT1P_TO_TC_MAP (entries)", name: "an 802.1p map nothing tagged uses",
			edit: edit(func(d doc) { d.add("DOT1P_TO_TC_MAP", "AZURE", map[string]string{"0": "3", "3": "3"}) })},
		// Dot1pToTcMapHandler catches std::stoi's exception and skips the
		// pair: the map is created, and the ports' entries apply.
		{field: "DOT1P_TO_TC_MAP (entries)", name: "an 802.1p map the ports name, one pair \"x\" (its handler skips it)",
			edit: edit(func(d doc) {
				d.add("DOT1P_TO_TC_MAP", "AZURE", map[string]string{"0": "3", "3": "3", "5": "x"})
				d.pointPorts("dot1p_to_tc_map", "AZURE")
			})},
		{field: "TC_TO_QUEUE_MAP (entries)", name: "TC3 into lossy queue 1", harmful: true, rule: "QOS016", dataPlane: true,
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["3"] = "1" })},
		{field: "TC_TO_QUEUE_MAP (entries)", name: "best-effort TC0 into RoCE's queue 3 on one leaf", harmful: true, rule: "QOS002", dataPlane: true,
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["0"] = "3" }, "leaf1")},
		// A queue beyond the model's 8 (within SONiC's YANG): the switch
		// sends the class there (decodeIntMap's beyond), which no PFC
		// priority pauses. The model keeps the class in its own queue
		// (qos.PortConfig.BeyondQueue), so lint errs and the run does
		// not move.
		{field: "TC_TO_QUEUE_MAP (entries)", name: "TC3 into queue 8, beyond the model", harmful: true, rule: "QOS016", lintError: true, why: beyondQueues,
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["3"] = "8" })},
		{field: "TC_TO_QUEUE_MAP (entries)", name: "TC3 into queue 9 on one leaf, beyond the model", harmful: true, rule: "QOS016", lintError: true, why: beyondQueues,
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["3"] = "9" }, "leaf1")},
		{field: "TC_TO_QUEUE_MAP (entries)", name: "unused TC2 into queue 8",
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["2"] = "8" })},
		{field: "TC_TO_QUEUE_MAP (entries)", name: "unused TC2 into queue 4",
			edit: edit(func(d doc) { d["TC_TO_QUEUE_MAP"]["AZURE"]["2"] = "4" })},
		{field: "TC_TO_PRIORITY_GROUP_MAP (entries)", name: "TC3 into lossy PG 0", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) { d["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]["3"] = "0" })},
		// buffermgrd makes PG 3 lossless (pfc_enable 3), not PG 1: TC3
		// moved to a PG without a BUFFER_PG entry is lossy.
		{field: "TC_TO_PRIORITY_GROUP_MAP (entries)", name: "TC3 into PG 1, which no BUFFER_PG entry sets", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) { d["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]["3"] = "1" })},
		// A class without PFC in RoCE's lossless PG: PG 3's XOFF pauses
		// priority 3 only, the other class's packets fill the headroom.
		{field: "TC_TO_PRIORITY_GROUP_MAP (entries)", name: "best-effort TC0 into RoCE's lossless PG 3", harmful: true, rule: "QOS014", dataPlane: true, lintError: true,
			edit: edit(func(d doc) { d["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]["0"] = "3" })},
		{field: "TC_TO_PRIORITY_GROUP_MAP (entries)", name: "the CNPs' TC6 into RoCE's lossless PG 3", harmful: true, rule: "QOS014", noError: "the CNPs are few and small: the headroom holds them", why: "the CNPs are few and small: PG 3 never fills with them",
			edit: edit(func(d doc) { d["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]["6"] = "3" })},
		{field: "TC_TO_PRIORITY_GROUP_MAP (entries)", name: "unused TC7 into PG 7",
			edit: edit(func(d doc) { d["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]["7"] = "7" })},
		{field: "MAP_PFC_PRIORITY_TO_QUEUE (entries)", name: "priority 3 pauses queue 0", harmful: true, rule: "QOS016", dataPlane: true,
			edit: edit(func(d doc) { d["MAP_PFC_PRIORITY_TO_QUEUE"]["AZURE"]["3"] = "0" })},
		{field: "MAP_PFC_PRIORITY_TO_QUEUE (entries)", name: "priority 2 (no PFC) pauses queue 5",
			edit: edit(func(d doc) { d["MAP_PFC_PRIORITY_TO_QUEUE"]["AZURE"]["2"] = "5" })},
		{field: "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP (entries)", name: "priority 3's pause from PG 0", harmful: true, rule: "QOS023", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "AZURE", map[string]string{"0": "0", "3": "0", "4": "4"})
				d.pointPorts("pfc_to_pg_map", "AZURE")
			})},
		{field: "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP (entries)", name: "the identity map",
			edit: edit(func(d doc) {
				d.add("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "AZURE", map[string]string{"0": "0", "3": "3", "4": "4"})
				d.pointPorts("pfc_to_pg_map", "AZURE")
			})},
		// Every port rewrites what it sends by the map: RoCE (TC3) leaves
		// with DSCP 0, which the next switch queues as best effort.
		{field: "TC_TO_DSCP_MAP (entries)", name: "RoCE's class remarked to DSCP 0", harmful: true, rule: "QOS024", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("TC_TO_DSCP_MAP", "AZURE", map[string]string{"3": "0"})
				d.pointPorts("tc_to_dscp_map", "AZURE")
			})},
		// CNPs (TC6) leave every port as DSCP 0, best effort at the next
		// switch: lint's error; the suite's CNPs meet no best-effort
		// backlog on their way.
		{field: "TC_TO_DSCP_MAP (entries)", name: "the CNPs' class remarked to DSCP 0", harmful: true, rule: "QOS024", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("TC_TO_DSCP_MAP", "AZURE", map[string]string{"6": "0"})
				d.pointPorts("tc_to_dscp_map", "AZURE")
			})},
		{field: "TC_TO_DSCP_MAP (entries)", name: "RoCE and CNPs remarked to their own DSCPs",
			edit: edit(func(d doc) {
				d.add("TC_TO_DSCP_MAP", "AZURE", map[string]string{"3": "26", "6": "48"})
				d.pointPorts("tc_to_dscp_map", "AZURE")
			})},

		// PORT_QOS_MAP.
		{field: "PORT_QOS_MAP dscp_to_tc_map", name: "ports on a map with DSCP 26 lossy", harmful: true, rule: "QOS003", dataPlane: true,
			edit: edit(func(d doc) {
				d.copyEntry("DSCP_TO_TC_MAP", "AZURE", "LOSSY", map[string]string{"26": "0"})
				d.pointPorts("dscp_to_tc_map", "LOSSY")
			})},
		{field: "PORT_QOS_MAP dscp_to_tc_map", name: "ports on an identical copy",
			edit: edit(func(d doc) {
				d.copyEntry("DSCP_TO_TC_MAP", "AZURE", "COPY", nil)
				d.pointPorts("dscp_to_tc_map", "COPY")
			})},
		{field: "PORT_QOS_MAP dot1p_to_tc_map", name: "ports on an 802.1p map",
			edit: edit(func(d doc) {
				d.add("DOT1P_TO_TC_MAP", "AZURE", map[string]string{"0": "0", "3": "3"})
				d.pointPorts("dot1p_to_tc_map", "AZURE")
			})},
		// qosorch's handlePortQosMapTable resolves every map an entry
		// names, those labctl does not model too, before it applies any
		// field: ports naming an undefined one lose their maps and PFC.
		{field: "PORT_QOS_MAP dot1p_to_tc_map", name: "a map the config does not define", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("dot1p_to_tc_map", "AZURE") })},
		{field: "PORT_QOS_MAP mpls_tc_to_tc_map", name: "a map the config does not define", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("mpls_tc_to_tc_map", "AZURE") })},
		{field: "PORT_QOS_MAP mpls_tc_to_tc_map", name: "ports on an MPLS map",
			edit: edit(func(d doc) {
				d.add("MPLS_TC_TO_TC_MAP", "AZURE", map[string]string{"0": "0", "3": "3"})
				d.pointPorts("mpls_tc_to_tc_map", "AZURE")
			})},
		{field: "PORT_QOS_MAP dscp_to_fc_map", name: "a map the config does not define", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("dscp_to_fc_map", "AZURE") })},
		{field: "PORT_QOS_MAP exp_to_fc_map", name: "a map the config does not define", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("exp_to_fc_map", "AZURE") })},
		{field: "MPLS_TC_TO_TC_MAP (entries)", name: "a map no port names",
			edit: edit(func(d doc) { d.add("MPLS_TC_TO_TC_MAP", "AZURE", map[string]string{"0": "0", "3": "3"}) })},
		{field: "DSCP_TO_FC_MAP (entries)", name: "a map no port names",
			edit: edit(func(d doc) { d.add("DSCP_TO_FC_MAP", "AZURE", map[string]string{"26": "3"}) })},
		{field: "EXP_TO_FC_MAP (entries)", name: "a map no port names",
			edit: edit(func(d doc) { d.add("EXP_TO_FC_MAP", "AZURE", map[string]string{"3": "3"}) })},
		{field: "PORT_QOS_MAP tc_to_queue_map", name: "ports on a map with TC3 in queue 1", harmful: true, rule: "QOS016", dataPlane: true,
			edit: edit(func(d doc) {
				d.copyEntry("TC_TO_QUEUE_MAP", "AZURE", "MOVED", map[string]string{"3": "1"})
				d.pointPorts("tc_to_queue_map", "MOVED")
			})},
		{field: "PORT_QOS_MAP tc_to_queue_map", name: "ports on an identical copy",
			edit: edit(func(d doc) {
				d.copyEntry("TC_TO_QUEUE_MAP", "AZURE", "COPY", nil)
				d.pointPorts("tc_to_queue_map", "COPY")
			})},
		{field: "PORT_QOS_MAP tc_to_pg_map", name: "ports on a map sending every TC to PG 0", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) {
				d.copyEntry("TC_TO_PRIORITY_GROUP_MAP", "AZURE", "FLAT", map[string]string{"3": "0"})
				d.pointPorts("tc_to_pg_map", "FLAT")
			})},
		{field: "PORT_QOS_MAP tc_to_pg_map", name: "ports on an identical copy",
			edit: edit(func(d doc) {
				d.copyEntry("TC_TO_PRIORITY_GROUP_MAP", "AZURE", "COPY", nil)
				d.pointPorts("tc_to_pg_map", "COPY")
			})},
		{field: "PORT_QOS_MAP pfc_to_queue_map", name: "ports on a map pausing queue 0 for priority 3", harmful: true, rule: "QOS016", dataPlane: true,
			edit: edit(func(d doc) {
				d.copyEntry("MAP_PFC_PRIORITY_TO_QUEUE", "AZURE", "WRONG", map[string]string{"3": "0"})
				d.pointPorts("pfc_to_queue_map", "WRONG")
			})},
		{field: "PORT_QOS_MAP pfc_to_queue_map", name: "ports on an identical copy",
			edit: edit(func(d doc) {
				d.copyEntry("MAP_PFC_PRIORITY_TO_QUEUE", "AZURE", "COPY", nil)
				d.pointPorts("pfc_to_queue_map", "COPY")
			})},
		{field: "PORT_QOS_MAP pfc_to_pg_map", name: "ports on a map taking priority 3's pause from PG 0", harmful: true, rule: "QOS023", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "SKEW", map[string]string{"3": "0"})
				d.pointPorts("pfc_to_pg_map", "SKEW")
			})},
		{field: "PORT_QOS_MAP pfc_to_pg_map", name: "ports on the identity map",
			edit: edit(func(d doc) {
				d.add("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "AZURE", map[string]string{"3": "3"})
				d.pointPorts("pfc_to_pg_map", "AZURE")
			})},
		{field: "PORT_QOS_MAP pfc_enable", name: "PFC off on one leaf", harmful: true, rule: "QOS001", dataPlane: true,
			edit: edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfc_enable", "") }, "leaf1")},
		// Across devices: PFC on priority 4 too at the spine's end of each
		// link (SONiC's default "3,4"), the leaves' ends left on "3". No
		// DSCP takes TC4, so nothing fills the spine's PG for it or its
		// lossy queue 4, and the leaves' TC4 is lossy by their own configs.
		{field: "PORT_QOS_MAP pfc_enable", name: "\"3,4\" on the spine only, priority 4 taken by no DSCP", harmful: true, rule: "QOS009",
			why:     "no DSCP takes priority 4, so no packet of the suite's traffic sees it",
			noError: "a PFC priority no DSCP reaches at the end that enables it fills no PG and pauses nothing",
			edit:    edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfc_enable", "3,4") }, "spine1")},
		{field: "PORT_QOS_MAP pfc_enable", name: "priority 3 listed twice",
			edit: edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfc_enable", "3,3") })},
		{field: "PORT_QOS_MAP pfcwd_sw_enable", name: "watchdog off", harmful: true, rule: "QOS008", why: noStorm,
			edit: edit(func(d doc) {
				d.del("PORT_QOS_MAP", nil, "pfcwd_sw_enable")
				for k := range d["PFC_WD"] {
					if k != "GLOBAL" {
						delete(d["PFC_WD"], k)
					}
				}
			})},
		// Without the field qosorch sets the port's watchdog bitmap to 0
		// (handlePortQosMapTable, unconditionally): no lossless TC for
		// pfcwdorch, no watchdog, though PFC_WD keeps its entries.
		{field: "PORT_QOS_MAP pfcwd_sw_enable", name: "removed, PFC_WD kept", harmful: true, rule: "QOS008", why: noStorm,
			edit: edit(func(d doc) { d.del("PORT_QOS_MAP", nil, "pfcwd_sw_enable") })},
		// "" is a bitmap of no priority: pfcwdorch starts no watchdog on
		// the port, whatever PFC_WD says.
		{field: "PORT_QOS_MAP pfcwd_sw_enable", name: "empty", harmful: true, rule: "QOS008", why: noStorm,
			edit: edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfcwd_sw_enable", "") })},
		{field: "PORT_QOS_MAP pfcwd_sw_enable", name: "priority 3 listed twice",
			edit: edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfcwd_sw_enable", "3,3") })},
		// orchagent starts the watchdog on pfcwd_sw_enable's priorities:
		// the PFC_WD entries stay, but priority 3 goes unwatched.
		{field: "PORT_QOS_MAP pfcwd_sw_enable", name: "priority 4 watched, not 3", harmful: true, rule: "QOS008", why: noStorm,
			edit: edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfcwd_sw_enable", "4") })},
		{field: "PORT_QOS_MAP pfcwd_sw_enable", name: "priorities 3 and 4 watched (4 has no PFC)",
			edit: edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfcwd_sw_enable", "3,4") })},
		{field: "PORT_QOS_MAP tc_to_dscp_map", name: "ports on a map remarking RoCE's class to DSCP 10", harmful: true, rule: "QOS024", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("TC_TO_DSCP_MAP", "REMARK", map[string]string{"3": "10"})
				d.pointPorts("tc_to_dscp_map", "REMARK")
			})},
		{field: "PORT_QOS_MAP tc_to_dscp_map", name: "ports on a map rewriting only a lossy class",
			edit: edit(func(d doc) {
				d.add("TC_TO_DSCP_MAP", "REMARK", map[string]string{"1": "8"})
				d.pointPorts("tc_to_dscp_map", "REMARK")
			})},
		// orchagent applies none of an entry that names an undefined map.
		{field: "PORT_QOS_MAP tc_to_dscp_map", name: "a map the config does not define", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("tc_to_dscp_map", "AZURE") })},
		// An empty reference is no reference left out: orchagent's
		// resolveFieldRefValue reads it as empty, and
		// handlePortQosMapTable waits for it, applying none of the entry.
		{field: "PORT_QOS_MAP tc_to_dscp_map", name: "empty, which orchagent never resolves", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("tc_to_dscp_map", "") })},
		{field: "PORT_QOS_MAP tc_to_dot1p_map", name: "802.1p remarking of untagged links",
			edit: edit(func(d doc) {
				d.add("TC_TO_DOT1P_MAP", "AZURE", map[string]string{"3": "3", "6": "6"})
				d.pointPorts("tc_to_dot1p_map", "AZURE")
			})},
		{field: "PORT_QOS_MAP tc_to_dot1p_map", name: "a map the config does not define", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("tc_to_dot1p_map", "AZURE") })},
		{field: "TC_TO_DOT1P_MAP (entries)", name: "a map no port names",
			edit: edit(func(d doc) { d.add("TC_TO_DOT1P_MAP", "AZURE", map[string]string{"3": "3"}) })},
		{field: "PORT_QOS_MAP pfc_asym", name: "asymmetric PFC in the wrong table", safe: "orchagent reads pfc_asym from the PORT table; PORT_QOS_MAP's handler passes over it",
			edit: edit(func(d doc) { d.pointPorts("pfc_asym", "on") })},
		{field: "PORT pfc_asym", name: "asymmetric PFC on every port", safe: "the port also obeys PFC frames for its lossy priorities, and nothing in the suite's traffic sends any",
			edit: edit(func(d doc) {
				for key := range d["PORT_QOS_MAP"] {
					if key == "global" {
						continue
					}
					for _, p := range strings.Split(key, ",") {
						if d["PORT"][p] == nil {
							d.add("PORT", p, map[string]string{})
						}
						d["PORT"][p]["pfc_asym"] = "on"
					}
				}
			})},
		{field: "PORT_QOS_MAP pfc_asym", name: "empty",
			edit: edit(func(d doc) { d.pointPorts("pfc_asym", "") })},
		// The port's scheduler shapes the whole port: 160 Gb/s is below
		// the line rate of ports whose PFC priorities carry RoCE.
		{field: "PORT_QOS_MAP scheduler", name: "a port shaper below line rate", harmful: true, rule: "QOS022", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("SCHEDULER", "port_shaper", map[string]string{"type": "DWRR", "weight": "1", "meter_type": "bytes", "pir": "20000000000"})
				d.pointPorts("scheduler", "port_shaper")
			})},
		{field: "PORT_QOS_MAP scheduler", name: "a port shaper at 800 Gb/s, at or above the ports' speed",
			edit: edit(func(d doc) {
				d.add("SCHEDULER", "port_shaper", map[string]string{"meter_type": "bytes", "pir": "100000000000", "pbs": "65536"})
				d.pointPorts("scheduler", "port_shaper")
			})},
		{field: "PORT_QOS_MAP scheduler", name: "a packet-metered port shaper", harmful: true, rule: "QOS022", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("SCHEDULER", "port_shaper", map[string]string{"meter_type": "packets", "pir": "1000000"})
				d.pointPorts("scheduler", "port_shaper")
			})},
		// qosorch resolves every name of a PORT_QOS_MAP entry before it
		// applies any field: one undefined leaves the port without its
		// maps, PFC and watchdog priorities.
		{field: "PORT_QOS_MAP scheduler", name: "a scheduler the config does not define", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("scheduler", "no_such_shaper") })},
		// An empty reference is no reference left out: orchagent's
		// resolveFieldRefValue reads it as empty, and
		// handlePortQosMapTable waits for it, applying none of the entry.
		{field: "PORT_QOS_MAP scheduler", name: "empty, which orchagent never resolves", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.pointPorts("scheduler", "") })},

		// Queues and schedulers.
		{field: "QUEUE scheduler", name: "CNP queue weighted 1 below RoCE's 50", harmful: true, rule: "QOS007", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("SCHEDULER", "scheduler.dwrr1", map[string]string{"type": "DWRR", "weight": "1"})
				d.set("QUEUE", suffix("|6"), "scheduler", "scheduler.dwrr1")
			})},
		{field: "QUEUE scheduler", name: "RoCE queue strict above the CNPs' weighted queue", harmful: true, rule: "QOS007", dataPlane: true,
			edit: edit(func(d doc) {
				d.set("QUEUE", suffix("|3"), "scheduler", "scheduler.strict")
				d.set("QUEUE", suffix("|6"), "scheduler", "scheduler.dwrr5")
			}, "leaf1", "leaf2")},
		{field: "QUEUE scheduler", name: "best-effort queue 0 strict above RoCE's round-robin queue", harmful: true, rule: "QOS025", dataPlane: true,
			edit: edit(func(d doc) { d.set("QUEUE", suffix("|0"), "scheduler", "scheduler.strict") })},
		{field: "QUEUE scheduler", name: "RoCE queue on an identical scheduler",
			edit: edit(func(d doc) {
				d.copyEntry("SCHEDULER", "scheduler.dwrr50", "scheduler.copy", nil)
				d.set("QUEUE", suffix("|3"), "scheduler", "scheduler.copy")
			})},
		{field: "QUEUE wred_profile", name: "RoCE queue without WRED", harmful: true, rule: "QOS005", dataPlane: true, lintError: true,
			edit: edit(func(d doc) { d.del("QUEUE", suffix("|3"), "wred_profile") })},
		// ECN stays in use on the port (queue 4 marks), but RoCE's lossless
		// queue 3 marks nothing: DCQCN never slows RoCE's senders, and PFC
		// alone holds the incast (QOS005, an error).
		{field: "QUEUE wred_profile", name: "RoCE queue's WRED moved to queue 4", harmful: true, rule: "QOS005", dataPlane: true, lintError: true,
			edit: edit(func(d doc) {
				for key, e := range d["QUEUE"] {
					if port, ok := strings.CutSuffix(key, "|3"); ok {
						d["QUEUE"][port+"|4"]["wred_profile"] = e["wred_profile"]
						delete(e, "wred_profile")
					}
				}
			})},
		// PFC on priority 4 too on every port of every switch, whose queue 4
		// has no WRED profile while queue 3 marks: a lossless queue without
		// ECN, but no DSCP takes TC4 on any port, so nothing goes unmarked
		// (QOS005, a warning).
		{field: "PORT_QOS_MAP pfc_enable", name: "\"3,4\" everywhere, TC4's queue without ECN, no DSCP in TC4", harmful: true, rule: "QOS005",
			why:     "no DSCP takes TC4, so no packet of the suite's traffic sees its queue",
			noError: "a lossless queue no port classifies into holds nothing to mark",
			edit:    edit(func(d doc) { d.set("PORT_QOS_MAP", portsOnly(), "pfc_enable", "3,4") })},
		{field: "QUEUE wred_profile", name: "RoCE queue on an undefined WRED profile", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.set("QUEUE", suffix("|3"), "wred_profile", "NOPE") })},
		// qosorch applies the QUEUE entries covering a queue field by
		// field: "|3" keeps its scheduler and "|2-3" gives queues 2 and 3
		// the WRED profile, so RoCE's queue marks as before (queue 2
		// carries none of the suite's traffic).
		{field: "QUEUE wred_profile", name: "RoCE queue's profile given by a second entry, <port>|2-3, beside its scheduler's",
			edit: edit(func(d doc) {
				for key, e := range d["QUEUE"] {
					if w := e["wred_profile"]; strings.HasSuffix(key, "|3") && w != "" {
						delete(e, "wred_profile")
						d.add("QUEUE", strings.TrimSuffix(key, "|3")+"|2-3", map[string]string{"wred_profile": w})
					}
				}
			})},
		{field: "QUEUE wred_profile", name: "RoCE queue on an identical profile",
			edit: edit(func(d doc) {
				for name := range d["WRED_PROFILE"] {
					d.copyEntry("WRED_PROFILE", name, name+"_COPY", nil)
				}
				for _, e := range d["QUEUE"] {
					if w := e["wred_profile"]; w != "" {
						e["wred_profile"] = w + "_COPY"
					}
				}
			})},
		{field: "SCHEDULER type", name: "the CNP queue's strict scheduler made DWRR (weight 1)", harmful: true, rule: "QOS007", dataPlane: true,
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.strict"]["type"] = "DWRR" })},
		// (A type in lower case, "strict", is refused at its line:
		// qosorch compares the exact names. orchestrator/nos/sonic's
		// TestResolverRefusalHasItsLine.)
		{field: "SCHEDULER type", name: "the RoCE queue's DWRR made WRR at the same weight",
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["type"] = "WRR" })},
		{field: "SCHEDULER weight", name: "RoCE queue weight 1", harmful: true, rule: "QOS018", dataPlane: true,
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["weight"] = "1" })},
		{field: "SCHEDULER weight", name: "weight 10 written 010",
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr10"]["weight"] = "010" })},
		// Queue 7 takes network control's DSCPs alone (CS7), whose few
		// packets take nothing from RoCE whatever their weight: QOS018's
		// share counts no such queue.
		{field: "SCHEDULER weight", name: "network control's queue 7 weighted 20 instead of 10",
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr10"]["weight"] = "20" })},
		// qosorch's handleSchedulerTable knows type, weight, meter_type,
		// cir, cbs, pir and pbs: with any other field (priority) it
		// creates no scheduler, and handleQueueTable applies neither the
		// scheduler nor the WRED of the QUEUE entries naming it.
		{field: "SCHEDULER type", name: "a priority field beside the RoCE queue's type: the scheduler is refused, the queue loses its ECN", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["priority"] = "1" })},
		{field: "SCHEDULER weight", name: "weight 256: SAI gets 0 (a uint8), the scheduler is refused, the queue loses its ECN", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["weight"] = "256" })},
		{field: "QUEUE scheduler", name: "RoCE queue on an undefined scheduler: the whole entry waits, the queue loses its ECN", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.set("QUEUE", suffix("|3"), "scheduler", "scheduler.dwrr500") })},
		// orchagent's parseReference refuses a reference written in
		// brackets since SONiC 202111: the name resolves to nothing.
		{field: "QUEUE scheduler", name: "RoCE queue's scheduler written [SCHEDULER|name]: refused, the queue loses its ECN", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) {
				for key, e := range d["QUEUE"] {
					if strings.HasSuffix(key, "|3") {
						e["scheduler"] = "[SCHEDULER|" + e["scheduler"] + "]"
					}
				}
			})},
	}
}

// sonicMutations2 are the WRED, buffer, cable, watchdog and port fields.
func sonicMutations2() []mutation {
	notSim := "the simulator does not run it; lint warns"
	colour := "no simulated packet is yellow or red"
	overwritten := "buffermgrd overwrites BUFFER_PG|<port>|3 with its lossless profile, so the switch keeps PG 3 as it was"
	var out []mutation
	for _, f := range []string{"cir", "cbs"} {
		out = append(out,
			mutation{field: "SCHEDULER " + f, name: "a guaranteed minimum on the RoCE queue", harmful: true, rule: "QOS017", why: notSim,
				edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"][f] = "25000000000" })})
	}
	// A packet-metered shaper (pir in packets per second) is not
	// simulated: lint warns, and the queue runs unshaped.
	packetShaper := func(fields map[string]string) func(t *testing.T, dir string) {
		return edit(func(d doc) {
			e := d["SCHEDULER"]["scheduler.dwrr50"]
			e["meter_type"], e["pir"] = "packets", "1000000"
			for k, v := range fields {
				e[k] = v
			}
		})
	}
	out = append(out,
		mutation{field: "SCHEDULER meter_type", name: "packets, with a peak rate, on the RoCE queue", harmful: true, rule: "QOS022", dataPlane: true,
			edit: packetShaper(nil)},
		mutation{field: "SCHEDULER meter_type", name: "bytes without a peak rate: no shaper",
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["meter_type"] = "bytes" })},
		mutation{field: "SCHEDULER pir", name: "a packet-metered peak rate on the RoCE queue", harmful: true, rule: "QOS022", dataPlane: true,
			edit: packetShaper(nil)},
		mutation{field: "SCHEDULER pir", name: "the RoCE queue shaped to 100 Gb/s (bytes per second)", harmful: true, rule: "QOS022", dataPlane: true,
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["pir"] = "12500000000" })},
		mutation{field: "SCHEDULER pbs", name: "a 1 MiB burst on the RoCE queue shaped to 100 Gb/s", harmful: true, rule: "QOS022", dataPlane: true,
			edit: edit(func(d doc) {
				e := d["SCHEDULER"]["scheduler.dwrr50"]
				e["pir"], e["pbs"] = "12500000000", "1048576"
			})},
		mutation{field: "SCHEDULER pir", name: "0: no shaper",
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["pir"] = "0" })},
		mutation{field: "SCHEDULER pbs", name: "the burst of a packet-metered peak rate on the RoCE queue", harmful: true, rule: "QOS022", dataPlane: true,
			edit: packetShaper(map[string]string{"pbs": "64"})},
		mutation{field: "SCHEDULER pbs", name: "a burst without a peak rate: no shaper",
			edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"]["pbs"] = "65536" })})
	// handleSchedulerTable reads meter_type with scheduler_meter_map.at
	// and cir, cbs, pir and pbs with std::stoull, which throw on "": the
	// entry stays first in the table's queue, so neither it nor the
	// schedulers after it in key order (scheduler.strict, the CNPs') are
	// created, and the queues naming them keep neither their scheduler
	// nor their WRED.
	for _, f := range []string{"meter_type", "cir", "cbs", "pir", "pbs"} {
		out = append(out,
			mutation{field: "SCHEDULER " + f, name: "empty, which orchagent throws on: the RoCE and CNP queues' schedulers are never created", harmful: true, rule: "QOS021", dataPlane: true,
				edit: edit(func(d doc) { d["SCHEDULER"]["scheduler.dwrr50"][f] = "" })})
	}
	// An entry no queue names, first in key order, whose field throws
	// stops every scheduler after it.
	out = append(out,
		mutation{field: "SCHEDULER meter_type", name: "an unused scheduler's meter_type written BYTES: none after it in key order is created", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("SCHEDULER", "a_unused", map[string]string{"type": "DWRR", "weight": "5", "meter_type": "BYTES"})
			})},
		mutation{field: "SCHEDULER cir", name: "an unused scheduler's cir written G10: none after it in key order is created", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("SCHEDULER", "a_unused", map[string]string{"type": "DWRR", "weight": "5", "cir": "G10"})
			})},
		mutation{field: "SCHEDULER meter_type", name: "an unused scheduler after the others in key order with an unknown meter_type", harmful: true, rule: "QOS021",
			why: "no queue names it and no scheduler comes after it in key order: it stops nothing the traffic uses",
			edit: edit(func(d doc) {
				d.add("SCHEDULER", "z_unused", map[string]string{"type": "DWRR", "weight": "5", "meter_type": "BYTES"})
			})},
		mutation{field: "WRED_PROFILE ecn", name: "an unused profile first in key order with an unknown ecn word: the real profiles are never created", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d.add("WRED_PROFILE", "AAA_UNUSED", map[string]string{"ecn": "ecn_on"}) })},
		mutation{field: "WRED_PROFILE green_max_threshold", name: "an unused profile first in key order with a threshold beyond int32: the real profiles are never created", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("WRED_PROFILE", "AAA_UNUSED", map[string]string{"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000", "green_max_threshold": "4294967296"})
			})},
		mutation{field: "WRED_PROFILE green_max_threshold", name: "Kmax beyond int32 on the real profiles", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", prefix("ECN_"), "green_max_threshold", "3000000000") })})
	ecnProfiles := prefix("ECN_")
	out = append(out,
		mutation{field: "WRED_PROFILE ecn", name: "ecn_none: WRED drops the lossless queue", harmful: true, rule: "QOS015", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, "ecn", "ecn_none") })},
		mutation{field: "WRED_PROFILE ecn", name: "an unused profile's mode",
			edit: edit(func(d doc) {
				d.add("WRED_PROFILE", "UNUSED", map[string]string{"ecn": "ecn_none", "wred_green_enable": "true", "green_min_threshold": "1000", "green_max_threshold": "2000"})
			})},
		// orchagent refuses a WRED profile holding a field it does not
		// know (WredMapHandler), so the queues naming it do not mark.
		mutation{field: "WRED_PROFILE ecn", name: "a field orchagent does not know beside it", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", prefix("ECN_"), "ecn_mode_hint", "on") })},
		mutation{field: "WRED_PROFILE wred_green_enable", name: "green WRED off: no marking", harmful: true, rule: "QOS005", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, "wred_green_enable", "false") })},
		// ("True" is refused at its line: orchagent's convertBool takes
		// only "true" and "false". orchestrator/nos/sonic's tests.)
		mutation{field: "WRED_PROFILE wred_green_enable", name: "an unused profile's green WRED on",
			edit: edit(func(d doc) {
				d.add("WRED_PROFILE", "UNUSED", map[string]string{"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000", "green_max_threshold": "2000"})
			})},
		mutation{field: "WRED_PROFILE green_min_threshold", name: "Kmin 819200 -> 3000000 on one leaf", harmful: true, rule: "QOS018", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", prefix("ECN_819200_"), "green_min_threshold", "3000000") }, "leaf1")},
		mutation{field: "WRED_PROFILE green_min_threshold", name: "Kmin and Kmax swapped: WredMapHandler refuses the profile, no ECN", harmful: true, rule: "QOS021", dataPlane: true, lintError: true,
			edit: edit(func(d doc) {
				d.set("WRED_PROFILE", ecnProfiles, "green_min_threshold", "3276800")
				d.set("WRED_PROFILE", ecnProfiles, "green_max_threshold", "819200")
			}, "leaf1")},
		mutation{field: "WRED_PROFILE green_min_threshold", name: "written with a leading 0",
			edit: edit(func(d doc) {
				for _, e := range d["WRED_PROFILE"] {
					e["green_min_threshold"] = "0" + e["green_min_threshold"]
				}
			})},
		mutation{field: "WRED_PROFILE green_max_threshold", name: "Kmin 1 and Kmax 2 bytes", harmful: true, rule: "QOS004", dataPlane: true,
			edit: edit(func(d doc) {
				d.set("WRED_PROFILE", prefix("ECN_"), "green_min_threshold", "1")
				d.set("WRED_PROFILE", prefix("ECN_"), "green_max_threshold", "2")
			})},
		mutation{field: "WRED_PROFILE green_max_threshold", name: "Kmax x4", harmful: true, rule: "QOS018", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", prefix("ECN_819200_"), "green_max_threshold", "13107200") })},
		mutation{field: "WRED_PROFILE green_max_threshold", name: "written with a leading 0",
			edit: edit(func(d doc) {
				for _, e := range d["WRED_PROFILE"] {
					e["green_max_threshold"] = "0" + e["green_max_threshold"]
				}
			})},
		mutation{field: "WRED_PROFILE green_drop_probability", name: "Pmax 20% -> 1%", harmful: true, rule: "QOS018", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, "green_drop_probability", "1") })},
		mutation{field: "WRED_PROFILE green_drop_probability", name: "Pmax written 0.5: orchagent's stoi reads 0, no marking below Kmax", harmful: true, rule: "QOS004", dataPlane: true,
			edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, "green_drop_probability", "0.5") })},
		mutation{field: "WRED_PROFILE green_drop_probability", name: "20.0",
			edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, "green_drop_probability", "20.0") })},
	)
	for _, c := range []string{"yellow", "red"} {
		out = append(out,
			mutation{field: "WRED_PROFILE wred_" + c + "_enable", name: c + " WRED off", harmful: true, rule: "QOS018", why: colour,
				edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, "wred_"+c+"_enable", "false") })},
			mutation{field: "WRED_PROFILE wred_" + c + "_enable", name: "an unused profile's " + c + " WRED on",
				edit: edit(func(d doc) {
					d.add("WRED_PROFILE", "UNUSED_"+c, map[string]string{"ecn": "ecn_all", "wred_" + c + "_enable": "true", c + "_min_threshold": "1000", c + "_max_threshold": "2000"})
				})},
			// WredMapHandler refuses a profile with any colour's min
			// above its max (convertFieldValuesToAttributes), so the
			// queue loses green's marking too.
			mutation{field: "WRED_PROFILE " + c + "_min_threshold", name: c + " minimum above its maximum: the profile never created", harmful: true, rule: "QOS021", dataPlane: true, lintError: true,
				edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, c+"_min_threshold", "99999999") })},
			mutation{field: "WRED_PROFILE " + c + "_min_threshold", name: "written with a leading 0",
				edit: edit(func(d doc) {
					for _, e := range d["WRED_PROFILE"] {
						e[c+"_min_threshold"] = "0" + e[c+"_min_threshold"]
					}
				})},
			mutation{field: "WRED_PROFILE " + c + "_max_threshold", name: c + " maximum below its minimum: the profile never created", harmful: true, rule: "QOS021", dataPlane: true, lintError: true,
				edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, c+"_max_threshold", "1") })},
			mutation{field: "WRED_PROFILE " + c + "_max_threshold", name: "written with a leading 0",
				edit: edit(func(d doc) {
					for _, e := range d["WRED_PROFILE"] {
						e[c+"_max_threshold"] = "0" + e[c+"_max_threshold"]
					}
				})},
			mutation{field: "WRED_PROFILE " + c + "_drop_probability", name: c + " probability 0", harmful: true, rule: "QOS004", why: colour,
				edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, c+"_drop_probability", "0") })},
			mutation{field: "WRED_PROFILE " + c + "_drop_probability", name: "20.0",
				edit: edit(func(d doc) { d.set("WRED_PROFILE", ecnProfiles, c+"_drop_probability", "20.0") })},
		)
	}
	out = append(out,
		// Pools.
		mutation{field: "BUFFER_POOL type", name: "the ingress pool made egress", harmful: true, rule: "QOS010", dataPlane: true,
			edit: edit(func(d doc) { d["BUFFER_POOL"]["ingress_lossless_pool"]["type"] = "egress" })},
		mutation{field: "BUFFER_POOL type", name: "an unused pool",
			edit: edit(func(d doc) {
				d.add("BUFFER_POOL", "spare_pool", map[string]string{"type": "ingress", "mode": "dynamic", "size": "1000000"})
			})},
		mutation{field: "BUFFER_POOL mode", name: "static pool, lossless profile without a threshold", harmful: true, rule: "QOS017", dataPlane: true,
			edit: edit(func(d doc) {
				d["BUFFER_POOL"]["ingress_lossless_pool"]["mode"] = "static"
				d.del("BUFFER_PROFILE", lossless(d), "dynamic_th")
			})},
		mutation{field: "BUFFER_POOL mode", name: "an unused pool's mode",
			edit: edit(func(d doc) {
				d.add("BUFFER_POOL", "spare_pool", map[string]string{"type": "ingress", "mode": "static", "size": "1000000"})
			})},
		mutation{field: "BUFFER_POOL size", name: "the ingress pool shrunk to 200 kB", harmful: true, rule: "QOS004", dataPlane: true,
			edit: edit(func(d doc) { d["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = "200000" })},
		// The lossy queues' pool below what their profiles reserve (SAI:
		// the shared size is the pool's size less every reserve drawn on
		// it): nothing is left to share, and the CNPs' queue, which draws
		// on it, drops their bursts.
		mutation{field: "BUFFER_POOL size", name: "the egress lossy pool shrunk to 10 kB, below its queues' reserves", harmful: true, rule: "QOS028", lintError: true, dataPlane: true,
			edit: edit(func(d doc) { d["BUFFER_POOL"]["egress_lossy_pool"]["size"] = "10000" })},
		mutation{field: "BUFFER_POOL size", name: "written with a leading 0",
			edit: edit(func(d doc) {
				for _, e := range d["BUFFER_POOL"] {
					e["size"] = "0" + e["size"]
				}
			})},
		mutation{field: "BUFFER_POOL xoff", name: "a 1000-byte shared headroom pool", harmful: true, rule: "QOS006", dataPlane: true,
			edit: edit(func(d doc) { d["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = "1000" })},
		// SAI's XOFF_SIZE 0 is no shared headroom pool: the lossless PGs
		// keep their headroom in their own size, as without the field.
		mutation{field: "BUFFER_POOL xoff", name: "0: no shared headroom pool, as without it",
			edit: edit(func(d doc) { d["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = "0" })},
		// A config without buffer tables: the switch's SKU template and
		// buffer manager create them, and labctl assumes what it renders
		// for the lab (qos.AttachTopology), port by port.
		mutation{field: "BUFFER_POOL type", name: "no BUFFER_POOL table (the SKU template's pools)",
			edit: edit(func(d doc) { delete(d, "BUFFER_POOL") })},
		mutation{field: "BUFFER_PG profile", name: "no buffer tables at all (the buffer manager's PGs)",
			edit: edit(func(d doc) {
				for _, t := range []string{"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE"} {
					delete(d, t)
				}
			})},
		mutation{field: "BUFFER_POOL xoff", name: "on an unused pool",
			edit: edit(func(d doc) {
				d.add("BUFFER_POOL", "spare_pool", map[string]string{"type": "ingress", "mode": "dynamic", "size": "1000000", "xoff": "5000"})
			})},

		// Profiles.
		mutation{field: "BUFFER_PROFILE pool", name: "lossless PGs from the egress pool", harmful: true, rule: "QOS010", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "pool", "egress_lossless_pool") })},
		mutation{field: "BUFFER_PROFILE pool", name: "lossless profiles' pool written [BUFFER_POOL|name]: refused, the profiles not created", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) {
				for name, e := range d["BUFFER_PROFILE"] {
					if strings.HasPrefix(name, "pg_lossless_") {
						e["pool"] = "[BUFFER_POOL|" + e["pool"] + "]"
					}
				}
			})},
		mutation{field: "BUFFER_PROFILE pool", name: "an unused profile",
			edit: edit(func(d doc) {
				d.add("BUFFER_PROFILE", "spare_profile", map[string]string{"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "1"})
			})},
		mutation{field: "BUFFER_PROFILE size", name: "lossless size below its xoff", harmful: true, rule: "QOS006", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "size", "1000") })},
		mutation{field: "BUFFER_PROFILE size", name: "written with a leading 0",
			edit: edit(func(d doc) {
				for _, e := range d["BUFFER_PROFILE"] {
					e["size"] = "0" + e["size"]
				}
			})},
		mutation{field: "BUFFER_PROFILE static_th", name: "lossless PGs pause at 20 kB", harmful: true, rule: "QOS004", dataPlane: true, lintError: true,
			edit: edit(func(d doc) {
				d.del("BUFFER_PROFILE", lossless(d), "dynamic_th")
				d.set("BUFFER_PROFILE", lossless(d), "static_th", "20000")
			})},
		// SAI creates no profile given two threshold modes: RoCE's PGs
		// have none (lossy).
		mutation{field: "BUFFER_PROFILE static_th", name: "beside dynamic_th on the lossless profiles: not created", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "static_th", "20000000") })},
		mutation{field: "BUFFER_PROFILE static_th", name: "on an unused profile",
			edit: edit(func(d doc) {
				d.add("BUFFER_PROFILE", "spare_profile", map[string]string{"pool": "ingress_lossless_pool", "size": "0", "static_th": "20000"})
			})},
		mutation{field: "BUFFER_PROFILE dynamic_th", name: "lossless alpha 1/64", harmful: true, rule: "QOS004", dataPlane: true, lintError: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "dynamic_th", "-6") })},
		// The egress limit of the lossless queue below the ingress PGs'
		// XOFF point: the queue drops before any PFC frame is sent.
		mutation{field: "BUFFER_PROFILE dynamic_th", name: "egress lossless alpha 1/128 on one leaf", harmful: true, rule: "QOS015", dataPlane: true,
			edit: edit(func(d doc) { d["BUFFER_PROFILE"]["egress_lossless_profile"]["dynamic_th"] = "-7" }, "leaf1")},
		mutation{field: "BUFFER_PROFILE static_th", name: "the lossless queue capped at 100 kB on one leaf", harmful: true, rule: "QOS015", dataPlane: true,
			edit: edit(func(d doc) {
				d.del("BUFFER_PROFILE", prefix("egress_lossless_profile"), "dynamic_th")
				d["BUFFER_PROFILE"]["egress_lossless_profile"]["static_th"] = "100000"
			}, "leaf1")},
		mutation{field: "BUFFER_PROFILE dynamic_th", name: "0 written 00",
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "dynamic_th", "00") })},
		mutation{field: "BUFFER_PROFILE xon", name: "xon beyond what size holds beside xoff", harmful: true, rule: "QOS006",
			why:  "with dynamic_th 0 a PG's XOFF point is megabytes, so XON at that point minus xon_offset comes long before the use falls to an xon of 40000 bytes",
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "xon", "40000") })},
		mutation{field: "BUFFER_PROFILE xon", name: "written with a leading 0",
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "xon", "08192") })},
		mutation{field: "BUFFER_PROFILE xoff", name: "xoff 0: no headroom", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "xoff", "0") })},
		// Headroom between the frames in flight and the IEEE reaction
		// bound: the simulator's ports take that bound to obey a PAUSE
		// (qos.PauseResponseBits), as lint sizes for, so the PG overflows
		// in a run too (until 2026-12-06 ports obeyed at once and only
		// lint could tell).
		mutation{field: "BUFFER_PROFILE xoff", name: "xoff 20000 on one leaf, below the IEEE reaction bound", harmful: true, rule: "QOS006", dataPlane: true,
			edit: edit(func(d doc) {
				d.set("BUFFER_PROFILE", lossless(d), "xoff", "20000")
				d.set("BUFFER_PROFILE", lossless(d), "size", "28192")
			}, "leaf1")},
		mutation{field: "BUFFER_PROFILE xoff", name: "xoff 2000 on one leaf, below the frames in flight", harmful: true, rule: "QOS006", dataPlane: true,
			edit: edit(func(d doc) {
				d.set("BUFFER_PROFILE", lossless(d), "xoff", "2000")
				d.set("BUFFER_PROFILE", lossless(d), "size", "10192")
			}, "leaf1")},
		mutation{field: "BUFFER_PROFILE xoff", name: "written with a leading 0",
			edit: edit(func(d doc) {
				for _, e := range d["BUFFER_PROFILE"] {
					if x := e["xoff"]; x != "" {
						e["xoff"] = "0" + x
					}
				}
			})},
		mutation{field: "BUFFER_PROFILE xon_offset", name: "xon_offset 0", harmful: true, rule: "QOS018", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "xon_offset", "0") })},
		mutation{field: "BUFFER_PROFILE xon_offset", name: "written with a leading 0",
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "xon_offset", "03072") })},
		mutation{field: "BUFFER_PROFILE headroom_type", name: "dynamic",
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "headroom_type", "dynamic") })},
		mutation{field: "BUFFER_PROFILE packet_discard_action", name: "drop",
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", nil, "packet_discard_action", "drop") })},
		// bufferorch's processBufferProfile fails a profile with any other
		// value than drop or trim, and processPriorityGroup refuses a PG
		// whose profile trims: RoCE's PGs are left without a profile
		// (lossy).
		mutation{field: "BUFFER_PROFILE packet_discard_action", name: "Drop on the lossless profiles: not created", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "packet_discard_action", "Drop") })},
		mutation{field: "BUFFER_PROFILE packet_discard_action", name: "trim on the lossless PG profiles: the PGs refused", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PROFILE", lossless(d), "packet_discard_action", "trim") })},
		// BUFFER_PG|<port>|3 is the key buffermgrd writes for pfc_enable
		// 3: it overwrites any other profile there with its lossless one,
		// so the switch keeps PG 3 lossless, and the config says what the
		// switch does not do (lint warns).
		mutation{field: "BUFFER_PG profile", name: "RoCE's PG on the lossy profile, which buffermgrd overwrites", harmful: true, rule: "QOS021", why: overwritten,
			edit: edit(func(d doc) { d.set("BUFFER_PG", suffix("|3"), "profile", "ingress_lossy_profile") })},
		mutation{field: "BUFFER_PG profile", name: "RoCE's PG on an undefined profile, which buffermgrd overwrites", harmful: true, rule: "QOS021", why: overwritten,
			edit: edit(func(d doc) { d.set("BUFFER_PG", suffix("|3"), "profile", "pg_lossless_typo_profile") })},
		mutation{field: "BUFFER_PG profile", name: "RoCE's PG on an identical copy of its profile, which buffermgrd overwrites", harmful: true, rule: "QOS021", why: overwritten,
			edit: edit(func(d doc) {
				for name := range d["BUFFER_PROFILE"] {
					d.copyEntry("BUFFER_PROFILE", name, name+"_copy", nil)
				}
				for key, e := range d["BUFFER_PG"] {
					if strings.HasSuffix(key, "|3") {
						e["profile"] += "_copy"
					}
				}
			})},
		// A 0 m cable stops buffermgrd for the port: the config's PG
		// entries stay as they are.
		mutation{field: "BUFFER_PG profile", name: "RoCE's PG on the lossy profile, with 0 m cables (buffermgrd writes no PG)", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) {
				d.set("BUFFER_PG", suffix("|3"), "profile", "ingress_lossy_profile")
				d.cables(func(string) string { return "0m" })
			})},
		mutation{field: "BUFFER_PG profile", name: "the lossy PGs on an identical copy",
			edit: edit(func(d doc) {
				d.copyEntry("BUFFER_PROFILE", "ingress_lossy_profile", "ingress_lossy_copy", nil)
				d.set("BUFFER_PG", suffix("|0"), "profile", "ingress_lossy_copy")
			})},
		// bufferorch looks up every port of a key before it applies any:
		// a list naming a port the switch lacks (the PORT table of a
		// whole CONFIG_DB does not list it) applies to none of them.
		mutation{field: "BUFFER_PG profile", name: "the lossy PGs each keyed with a port the switch lacks (Ethernet1000), in a whole CONFIG_DB", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) {
				wholePortTable(d)
				for _, key := range slices.Sorted(maps.Keys(d["BUFFER_PG"])) {
					if port, ok := strings.CutSuffix(key, "|0"); ok {
						d["BUFFER_PG"][port+",Ethernet1000|0"] = d["BUFFER_PG"][key]
						delete(d["BUFFER_PG"], key)
					}
				}
			}, "leaf1")},
		// The lab's own configs hold no PORT table, but the lab knows the
		// switch's ports: the same refusal.
		mutation{field: "BUFFER_PG profile", name: "the lossy PGs each keyed with a port the switch lacks (Ethernet1000), in the lab's own configs", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) {
				for _, key := range slices.Sorted(maps.Keys(d["BUFFER_PG"])) {
					if port, ok := strings.CutSuffix(key, "|0"); ok {
						d["BUFFER_PG"][port+",Ethernet1000|0"] = d["BUFFER_PG"][key]
						delete(d["BUFFER_PG"], key)
					}
				}
			}, "leaf1")},
		mutation{field: "BUFFER_PG profile", name: "a port's lossy PG keyed with another of its ports, in a whole CONFIG_DB",
			edit: edit(func(d doc) {
				wholePortTable(d)
				d["BUFFER_PG"]["Ethernet0,Ethernet4|0"] = d["BUFFER_PG"]["Ethernet0|0"]
				delete(d["BUFFER_PG"], "Ethernet0|0")
				delete(d["BUFFER_PG"], "Ethernet4|0")
			}, "leaf1")},
		// <port>|3-4 follows <port>|3 in key order. bufferorch applies an
		// entry only once its profile resolves (processPriorityGroup
		// retries it otherwise): one it never applies leaves PG 3 the
		// lossless profile (and, at a cold start, holds its ports); one
		// it applies takes PG 3.
		mutation{field: "BUFFER_PG profile", name: "RoCE's PG also in <port>|3-4, profile NULL (traditional model)", harmful: true, rule: "QOS013", why: "bufferorch never applies the entry, so PG 3 keeps its lossless profile",
			edit: edit(func(d doc) { overlapPG3(d, "NULL") }, "leaf1")},
		mutation{field: "BUFFER_PG profile", name: "RoCE's PG also in <port>|3-4, an undefined profile", harmful: true, rule: "QOS013", why: "bufferorch never applies the entry, so PG 3 keeps its lossless profile",
			edit: edit(func(d doc) { overlapPG3(d, "pg_lossless_typo_profile") }, "leaf1")},
		// Ethernet0,Ethernet4|3 comes before Ethernet0|3 and Ethernet4|3
		// in key order (',' sorts before '|'): bufferorch never applies
		// it, the later entries give PG 3 (queue 3) its profile, and the
		// run does not change; at a cold start it holds both ports, and
		// with them every port's QoS and routing (allPortsReady).
		mutation{field: "BUFFER_PG profile", name: "an entry before RoCE's (Ethernet0,Ethernet4|3), an undefined profile", harmful: true, rule: "QOS013", why: "bufferorch never applies the entry; <port>|3 after it in key order gives PG 3 its lossless profile, so only a cold start (not the run) feels it",
			edit: edit(func(d doc) {
				d.add("BUFFER_PG", "Ethernet0,Ethernet4|3", map[string]string{"profile": "pg_lossless_typo_profile"})
			}, "leaf1")},
		mutation{field: "BUFFER_QUEUE profile", name: "an entry before RoCE's (Ethernet0,Ethernet4|3), an undefined profile", harmful: true, rule: "QOS013", why: "bufferorch never applies the entry; <port>|3 after it in key order gives queue 3 its profile, so only a cold start (not the run) feels it",
			edit: edit(func(d doc) {
				d.add("BUFFER_QUEUE", "Ethernet0,Ethernet4|3", map[string]string{"profile": "egress_typo_profile"})
			}, "leaf1")},
		mutation{field: "BUFFER_PG profile", name: "RoCE's PG also in <port>|3-4, on the lossy profile", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) { overlapPG3(d, "ingress_lossy_profile") }, "leaf1")},
		// The lossy egress limit (alpha 8 of the 20 MB lossy pool's free
		// space): with the paused ports taking their PAUSE response to
		// stop, the PFC-only incast's queue (18 MB) reaches it and drops
		// (62 packets); while ports obeyed at once it stayed under it.
		mutation{field: "BUFFER_QUEUE profile", name: "RoCE's queue on the lossy egress profile", harmful: true, rule: "QOS015", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_QUEUE", suffix("|3"), "profile", "egress_lossy_profile") })},
		// bufferorch's processQueue fails an entry without a profile
		// and doTask drops it (noProfileEntry): the queue has no buffer
		// profile, so no egress limit, and the PFC-off variants' drops and
		// marks move.
		mutation{field: "BUFFER_QUEUE profile", name: "RoCE's queue with an empty profile", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_QUEUE", suffix("|3"), "profile", "") })},
		mutation{field: "BUFFER_QUEUE profile", name: "RoCE's queue with no profile field", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d.del("BUFFER_QUEUE", suffix("|3"), "profile") })},
		mutation{field: "BUFFER_QUEUE profile", name: "RoCE's queue on an identical copy",
			edit: edit(func(d doc) {
				d.copyEntry("BUFFER_PROFILE", "egress_lossless_profile", "egress_lossless_copy", nil)
				d.set("BUFFER_QUEUE", suffix("|3"), "profile", "egress_lossless_copy")
			})},
		mutation{field: "BUFFER_PORT_INGRESS_PROFILE_LIST profile_list", name: "port quotas",
			edit: edit(func(d doc) {
				d.add("BUFFER_PORT_INGRESS_PROFILE_LIST", "Ethernet0", map[string]string{"profile_list": "ingress_lossy_profile"})
			})},
		mutation{field: "BUFFER_PORT_EGRESS_PROFILE_LIST profile_list", name: "port quotas",
			edit: edit(func(d doc) {
				d.add("BUFFER_PORT_EGRESS_PROFILE_LIST", "Ethernet0", map[string]string{"profile_list": "egress_lossy_profile"})
			})},
		// bufferorch retries a list naming an undefined profile for ever
		// and sets none of it (processIngressBufferProfileList,
		// processEgressBufferProfileList): the port keeps the switch's
		// default quotas, which labctl does not model either.
		mutation{field: "BUFFER_PORT_INGRESS_PROFILE_LIST profile_list", name: "port quotas naming an undefined profile", harmful: true, rule: "QOS013", why: quotasNotSim,
			edit: edit(func(d doc) {
				d.add("BUFFER_PORT_INGRESS_PROFILE_LIST", "Ethernet0", map[string]string{"profile_list": "ingress_lossy_profile,ingress_typo_profile"})
			}, "leaf1")},
		mutation{field: "BUFFER_PORT_EGRESS_PROFILE_LIST profile_list", name: "port quotas naming an undefined profile", harmful: true, rule: "QOS013", why: quotasNotSim,
			edit: edit(func(d doc) {
				d.add("BUFFER_PORT_EGRESS_PROFILE_LIST", "Ethernet0", map[string]string{"profile_list": "egress_typo_profile"})
			}, "leaf1")},

		// A LAG member runs LACP (teammgrd's addLag): facing a port in
		// no port channel it is never bundled and carries nothing.
		mutation{field: "PORTCHANNEL_MEMBER (entries)", name: "a leaf uplink in a port channel, the spine's end in none", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: edit(func(d doc) {
				d.add("PORTCHANNEL", "PortChannel1", map[string]string{"admin_status": "up", "min_links": "1"})
				d.add("PORTCHANNEL_MEMBER", "PortChannel1|Ethernet128", map[string]string{})
			}, "leaf1")},
		// teammgrd adds a member only to a port channel PORTCHANNEL
		// defines (doLagMemberTask waits on isLagStateOk): the port stays
		// an ordinary port, and lint notes the entry (QOS000).
		mutation{field: "PORTCHANNEL_MEMBER (entries)", name: "a leaf uplink in a port channel PORTCHANNEL does not define",
			edit: edit(func(d doc) { d.add("PORTCHANNEL_MEMBER", "PortChannel1|Ethernet128", map[string]string{}) }, "leaf1")},
		// A bundled member's traffic is its port channel's, and the
		// lab's addresses sit on the member ports (INTERFACE): with no
		// PORTCHANNEL_INTERFACE address the link carries nothing.
		mutation{field: "PORTCHANNEL_MEMBER (entries)", name: "a leaf-spine link in a port channel at both ends, the port channels without an address", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: sonicBothEndsChannel("up", false, false, false)},
		mutation{field: "PORTCHANNEL_INTERFACE (entries)", name: "a leaf-spine link in a port channel at both ends, each with an address, the QoS on the members",
			edit: sonicBothEndsChannel("up", true, true, false)},
		mutation{field: "PORTCHANNEL_INTERFACE (entries)", name: "a leaf-spine link in a port channel at both ends, an address on the leaf's only", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: sonicBothEndsChannel("up", true, false, false)},
		// teammgrd's setLagAdminStatus keeps the team device down.
		mutation{field: "PORTCHANNEL (entries)", name: "a bundled leaf-spine link, the leaf's port channel admin_status down", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: sonicBothEndsChannel("down", true, true, false)},
		mutation{field: "PORTCHANNEL (entries)", name: "a bundled leaf-spine link, the leaf's port channel with no admin_status (teammgrd's default, down)", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: sonicBothEndsChannel("", true, true, false)},
		// teamd's lacp runner keeps the team device down with fewer
		// members selected than min_links (teammgrd's addLag hands it
		// over as min_ports): every member carries nothing.
		mutation{field: "PORTCHANNEL (entries)", name: "a bundled leaf-spine link, the leaf's port channel of one member at min_links 2", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: leafMinLinks(sonicBothEndsChannel("up", true, true, false), "2")},
		mutation{field: "PORTCHANNEL (entries)", name: "a bundled leaf-spine link, the leaf's port channel of one member at min_links 1, its members' count",
			edit: leafMinLinks(sonicBothEndsChannel("up", true, true, false), "1")},
		mutation{field: "PORTCHANNEL (entries)", name: "a port channel without members, fallback true",
			edit: edit(func(d doc) {
				d.add("PORTCHANNEL", "PortChannel9", map[string]string{"admin_status": "up", "min_links": "1", "fallback": "true"})
			}, "leaf1")},
		// A server bond with fallback true (a PXE-booting host's port):
		// the lab's NIC runs no LACP, and teamd's fallback forwards on the
		// member as the port channel's static member, whose traffic is
		// the port channel's: without a PORTCHANNEL_INTERFACE address the
		// link carries nothing (qos.ChannelAlone).
		mutation{field: "PORTCHANNEL (entries)", name: "Ethernet0 in a port channel with fallback true and no address", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: edit(func(d doc) { hostChannelFallback(d, false) }, "leaf1")},
		mutation{field: "PORTCHANNEL_INTERFACE (entries)", name: "Ethernet0 in a port channel with fallback true and an address",
			edit: edit(func(d doc) { hostChannelFallback(d, true) }, "leaf1")},
		// A routed uplink made a VLAN member: portsorch's addBridgePort
		// refuses a port that has a router interface, so which wins on
		// the switch depends on the order of INTERFACE and VLAN_MEMBER.
		mutation{field: "VLAN_MEMBER (entries)", name: "a leaf uplink made a member of a VLAN", harmful: true, rule: "QOS026",
			why: "labctl has not settled whether the switch bridges the port or keeps it routed: lint warns, the simulator runs the link routed",
			edit: edit(func(d doc) {
				d.add("VLAN", "Vlan100", map[string]string{"vlanid": "100"})
				d.add("VLAN_MEMBER", "Vlan100|Ethernet128", map[string]string{"tagging_mode": "untagged"})
			}, "leaf1")},
		// ACLs: aclorch programs a data ACL's rules in the ASIC, which
		// labctl does not simulate; lint errs on one that drops or
		// re-marks RoCE's packets on data ports, and regress on the new
		// lint error.
		mutation{field: "ACL_RULE (entries)", name: "a data ACL on leaf1's ports dropping UDP 4791", harmful: true, rule: "QOS017", lintError: true, why: aclNotSim,
			edit: aclOnLeaf("L3", map[string]string{"PRIORITY": "9999", "PACKET_ACTION": "DROP", "IP_PROTOCOL": "17", "L4_DST_PORT": "4791"})},
		// A policer drops only what exceeds its rate (a warning:
		// nos/sonic's TestACLRuleOnRoCE holds the severity); with a drop
		// beside it every packet is lost (an error).
		mutation{field: "ACL_RULE (entries)", name: "a data ACL on leaf1's ports policing UDP 4791", harmful: true, rule: "QOS017", why: aclNotSim,
			edit: aclOnLeaf("L3", map[string]string{"PRIORITY": "9999", "POLICER_ACTION": "p1", "IP_PROTOCOL": "17", "L4_DST_PORT": "4791"})},
		mutation{field: "ACL_RULE (entries)", name: "a data ACL on leaf1's ports policing and dropping UDP 4791", harmful: true, rule: "QOS017", lintError: true, why: aclNotSim,
			edit: aclOnLeaf("L3", map[string]string{"PRIORITY": "9999", "POLICER_ACTION": "p1", "PACKET_ACTION": "DROP", "IP_PROTOCOL": "17", "L4_DST_PORT": "4791"})},
		// acl-loader writes a DEFAULT_RULE dropping every IPv4 packet
		// no rule above it forwards: a list for SSH alone drops RoCE.
		mutation{field: "ACL_RULE (entries)", name: "a data ACL on leaf1's ports forwarding SSH, acl-loader's default rule dropping the rest", harmful: true, rule: "QOS017", lintError: true, why: aclNotSim,
			edit: aclOnLeaf("L3", map[string]string{"PRIORITY": "9999", "PACKET_ACTION": "FORWARD", "IP_PROTOCOL": "6", "L4_DST_PORT": "22"},
				map[string]string{"PRIORITY": "1", "PACKET_ACTION": "DROP", "ETHER_TYPE": "2048"})},
		mutation{field: "ACL_RULE (entries)", name: "a data ACL on leaf1's ports forwarding UDP 4791 ahead of acl-loader's default rule",
			edit: aclOnLeaf("L3", map[string]string{"PRIORITY": "9999", "PACKET_ACTION": "FORWARD", "IP_PROTOCOL": "17", "L4_DST_PORT": "4791"},
				map[string]string{"PRIORITY": "1", "PACKET_ACTION": "DROP", "ETHER_TYPE": "2048"})},
		mutation{field: "ACL_TABLE (entries)", name: "an UNDERLAY_SET_DSCP table on leaf1's ports re-marking DSCP 26 to 0", harmful: true, rule: "QOS017", lintError: true, why: aclNotSim,
			edit: aclOnLeaf("UNDERLAY_SET_DSCP", map[string]string{"PRIORITY": "10", "DSCP": "26", "DSCP_ACTION": "0"})},
		// aclorch refuses DSCP_ACTION outside an UNDERLAY_SET_DSCP table
		// (AclRule::makeShared): the rule is never programmed.
		mutation{field: "ACL_RULE (entries)", name: "an L3 table on leaf1's ports with a DSCP_ACTION rule, which aclorch refuses",
			edit: aclOnLeaf("L3", map[string]string{"PRIORITY": "10", "DSCP": "26", "DSCP_ACTION": "0"})},
		// Bound to leaf1's data ports, so that only its type keeps it off
		// the data plane.
		mutation{field: "ACL_TABLE (entries)", name: "a control-plane ACL dropping UDP 4791 to the CPU",
			edit: aclOnLeaf("CTRLPLANE", map[string]string{"PRIORITY": "9999", "PACKET_ACTION": "DROP", "IP_PROTOCOL": "17", "L4_DST_PORT": "4791"})},
		// The ECMP hash: switchorch hands SWITCH_HASH's fields to the ASIC;
		// the simulator hashes the five-tuple whatever the table says.
		mutation{field: "SWITCH_HASH (entries)", name: "leaf1's ecmp_hash without L4_SRC_PORT", harmful: true, rule: "QOS017", why: hashNotSim,
			edit: edit(func(d doc) {
				d.add("SWITCH_HASH", "GLOBAL", map[string]string{"ecmp_hash": "DST_IP,SRC_IP,IP_PROTOCOL,L4_DST_PORT"})
			}, "leaf1")},
		mutation{field: "SWITCH_HASH (entries)", name: "leaf1's ecmp_hash_algorithm RANDOM", harmful: true, rule: "QOS017", why: hashNotSim,
			edit: edit(func(d doc) {
				d.add("SWITCH_HASH", "GLOBAL", map[string]string{"ecmp_hash_algorithm": "RANDOM", "ecmp_hash": "DST_IP,SRC_IP,IP_PROTOCOL,L4_DST_PORT,L4_SRC_PORT"})
			}, "leaf1")},
		mutation{field: "SWITCH_HASH (entries)", name: "leaf1's ecmp_hash the five-tuple, by CRC",
			edit: edit(func(d doc) {
				d.add("SWITCH_HASH", "GLOBAL", map[string]string{"ecmp_hash_algorithm": "CRC", "ecmp_hash": "DST_IP,SRC_IP,IP_PROTOCOL,L4_DST_PORT,L4_SRC_PORT"})
			}, "leaf1")},
		// Cable, watchdog, port.
		// buffermgrd sizes the lossless PGs for the config's cable (the
		// fibre stays the lab's): 300 m on 5 m links reserves three times
		// the headroom the links need, out of the pool the queues share.
		mutation{field: "CABLE_LENGTH (entries)", name: "300 m cables on one leaf", harmful: true, rule: "QOS018",
			why: "the 2.4 MB more reserved on the leaf leaves a shared pool the suite's incast does not fill before it pauses",
			edit: edit(func(d doc) {
				d.cables(func(string) string { return "300m" })
			}, "leaf1")},
		// 1 m on 5 m links: headroom short of what arrives after XOFF.
		// A change made on every switch but one: the leaves' uplinks
		// (Ethernet128-188, the 64gpu lab's 400G ports) say 300 m, and
		// buffermgrd sizes their lossless PGs for it, but the spine's ends
		// of the same cables still say 5 m. A cable has one length: if it
		// is 300 m, the spine's headroom is a third of what it needs.
		mutation{field: "CABLE_LENGTH (entries)", name: "300 m on the leaves' uplinks, the spine's ends left at 5 m", harmful: true, rule: "QOS006",
			why: "the simulator runs the lab's 5 m links, which CABLE_LENGTH does not change: the spine's headroom holds them",
			edit: edit(func(d doc) {
				for _, e := range d["CABLE_LENGTH"] {
					for p := range e {
						if n, err := strconv.Atoi(strings.TrimPrefix(p, "Ethernet")); err == nil && n >= 128 {
							e[p] = "300m"
						}
					}
				}
			}, "leaf1", "leaf2")},
		mutation{field: "CABLE_LENGTH (entries)", name: "1 m cables on one leaf's 5 m links", harmful: true, rule: "QOS006",
			why: "4 m of cable is some 1 KB of a PG's headroom; what arrives after the suite's pauses fits in what is left",
			edit: edit(func(d doc) {
				d.cables(func(string) string { return "1m" })
			}, "leaf1")},
		mutation{field: "CABLE_LENGTH (entries)", name: "0m: buffermgrd writes no PG, the config's own stay",
			edit: edit(func(d doc) {
				d.cables(func(string) string { return "0m" })
			})},
		// buffermgrd looks the cable up in pg_profile_lookup.ini as text:
		// "05m" has no row, so it writes no lossless PG.
		mutation{field: "CABLE_LENGTH (entries)", name: "5m written 05m", harmful: true, rule: "QOS021",
			why: "the configs give each port's lossless PG its profile themselves (BUFFER_PG|<port>|3), which stay when buffermgrd writes nothing",
			edit: edit(func(d doc) {
				d.cables(func(v string) string { return "0" + v })
			})},
		mutation{field: "CABLE_LENGTH (entries)", name: "5m written 05m where buffermgrd makes the lossless PGs", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) {
				d.cables(func(v string) string { return "0" + v })
				for key := range d["BUFFER_PG"] {
					if strings.HasSuffix(key, "|3") {
						delete(d["BUFFER_PG"], key)
					}
				}
			})},
		mutation{field: "PFC_WD action", name: "alert only", harmful: true, rule: "QOS018", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "action", "alert") })},
		mutation{field: "PFC_WD action", name: "the action left to pfcwd's default (drop)",
			edit: edit(func(d doc) { d.del("PFC_WD", nil, "action") })},
		mutation{field: "PFC_WD detection_time", name: "5 s detection", harmful: true, rule: "QOS018", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "detection_time", "5000") })},
		// pfcwdorch reads detection_time as 100-5000 ms and
		// restoration_time as 100-60000 ms, and refuses an entry with
		// either outside: the port runs no watchdog at all.
		mutation{field: "PFC_WD detection_time", name: "0 ms, which pfcwdorch refuses", harmful: true, rule: "QOS021", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "detection_time", "0") })},
		mutation{field: "PFC_WD detection_time", name: "10 ms on one leaf, which pfcwdorch refuses", harmful: true, rule: "QOS021", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "detection_time", "10") }, "leaf1")},
		mutation{field: "PFC_WD restoration_time", name: "50 ms, which pfcwdorch refuses", harmful: true, rule: "QOS021", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "restoration_time", "50") })},
		// pfcwdorch's createEntry refuses an entry with a field it does
		// not know, or a pfc_stat_history other than enable or disable:
		// the port runs no watchdog at all.
		mutation{field: "PFC_WD detection_time", name: "written as detection_time_ms beside it, a field pfcwdorch refuses", harmful: true, rule: "QOS021", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "detection_time_ms", "200") })},
		mutation{field: "PFC_WD pfc_stat_history", name: "on, which pfcwdorch refuses", harmful: true, rule: "QOS021", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "pfc_stat_history", "on") })},
		mutation{field: "PFC_WD pfc_stat_history", name: "enable",
			edit: edit(func(d doc) {
				d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "pfc_stat_history", "enable")
			})},
		mutation{field: "PFC_WD POLL_INTERVAL", name: "on each port's entry, where pfcwdorch refuses it", harmful: true, rule: "QOS021", why: noStorm,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "POLL_INTERVAL", "100") })},
		mutation{field: "PFC_WD action", name: "misspelt", harmful: true, rule: "QOS010", dataPlane: true,
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "action", "dorp") })},
		mutation{field: "PFC_WD detection_time", name: "written with a leading 0",
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "detection_time", "0200") })},
		mutation{field: "PFC_WD restoration_time", name: "60 s restoration", harmful: true, rule: "QOS018", why: noStorm, stormWhy: endlessStorm,
			edit: edit(func(d doc) {
				d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "restoration_time", "60000")
			})},
		mutation{field: "PFC_WD restoration_time", name: "written with a leading 0",
			edit: edit(func(d doc) { d.set("PFC_WD", func(k string) bool { return k != "GLOBAL" }, "restoration_time", "0200") })},
		mutation{field: "PFC_WD POLL_INTERVAL", name: "polls every second", harmful: true, rule: "QOS008", why: noStorm,
			edit: edit(func(d doc) { d["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "1000" })},
		mutation{field: "PFC_WD POLL_INTERVAL", name: "written with a leading 0",
			edit: edit(func(d doc) { d["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "0100" })},
		mutation{field: "PFC_WD BIG_RED_SWITCH", name: "disable",
			edit: edit(func(d doc) { d["PFC_WD"]["GLOBAL"]["BIG_RED_SWITCH"] = "disable" })},
		// enableBigRedSwitchMode holds every port's pfcwd_sw_enable
		// priorities (3) in the watchdog's drop action, storm or not:
		// RoCE's queue ignores PFC and drops on every port.
		mutation{field: "PFC_WD BIG_RED_SWITCH", name: "enable: RoCE's priority dropped on every port", harmful: true, rule: "QOS027", dataPlane: true,
			edit: edit(func(d doc) { d["PFC_WD"]["GLOBAL"]["BIG_RED_SWITCH"] = "enable" })},
		mutation{field: "PFC_WD BIG_RED_SWITCH", name: "enable on one leaf", harmful: true, rule: "QOS027", dataPlane: true,
			edit: edit(func(d doc) { d["PFC_WD"]["GLOBAL"]["BIG_RED_SWITCH"] = "enable" }, "leaf1")},
		// buffermgrd writes the 400G lossless profile over the port's PG
		// 3 entry (the config defines it for the 400G ports).
		mutation{field: "PORT speed", name: "a 200G port given as 400G", harmful: true, rule: "QOS021", why: "the simulated link runs at the lab's speed, and PG 3 takes the 400G profile, whose headroom is more than enough",
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"speed": "400000"}) }, "leaf1")},
		mutation{field: "PORT speed", name: "one leaf's 400G uplinks given as 100G", harmful: true, rule: "QOS009", why: "the simulated link runs at the lab's speed",
			edit: edit(func(d doc) {
				for p := 128; p < 192; p += 4 {
					d.add("PORT", fmt.Sprintf("Ethernet%d", p), map[string]string{"speed": "100000"})
				}
			}, "leaf1")},
		// autoneg on advertises adv_speeds alone (portsorch's
		// parsePortAdvSpeeds): without the link's speed the link comes
		// up slower or not at all.
		mutation{field: "PORT adv_speeds", name: "one leaf's 400G uplinks negotiating, advertising 100G and 200G", harmful: true, rule: "QOS009", lintError: true, why: "the simulated link runs at the lab's speed",
			edit: edit(func(d doc) {
				for p := 128; p < 192; p += 4 {
					d.add("PORT", fmt.Sprintf("Ethernet%d", p), map[string]string{"speed": "400000", "autoneg": "on", "adv_speeds": "100000,200000"})
				}
			}, "leaf1")},
		mutation{field: "PORT adv_speeds", name: "one leaf's 400G uplinks negotiating, advertising 400G",
			edit: edit(func(d doc) {
				for p := 128; p < 192; p += 4 {
					d.add("PORT", fmt.Sprintf("Ethernet%d", p), map[string]string{"speed": "400000", "autoneg": "on", "adv_speeds": "400000"})
				}
			}, "leaf1")},
		mutation{field: "PORT autoneg", name: "turned on for a 200G port advertising 100G", harmful: true, rule: "QOS009", lintError: true, why: "the simulated link runs at the lab's speed",
			edit: edit(func(d doc) {
				d.add("PORT", "Ethernet0", map[string]string{"speed": "200000", "autoneg": "on", "adv_speeds": "100000"})
			}, "leaf1")},
		mutation{field: "PORT autoneg", name: "off on a 200G port advertising 100G",
			edit: edit(func(d doc) {
				d.add("PORT", "Ethernet0", map[string]string{"speed": "200000", "autoneg": "off", "adv_speeds": "100000"})
			}, "leaf1")},
		mutation{field: "PORT speed", name: "its own speed",
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"speed": "200000"}) }, "leaf1")},
		// portmgr sets a port up only for admin_status "up", and a port's
		// whole entry (lanes given) without one is down, its default:
		// leaf1's Ethernet0 faces the incast's receiver.
		mutation{field: "PORT admin_status", name: "down on the port facing the incast's receiver", harmful: true, rule: "QOS026", dataPlane: true,
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"admin_status": "down"}) }, "leaf1")},
		mutation{field: "PORT admin_status", name: "left out of a port's whole entry (lanes given): portmgr's default, down", harmful: true, rule: "QOS026", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("PORT", "Ethernet0", map[string]string{"lanes": "1,2,3,4", "speed": "200000", "mtu": "9100"})
			}, "leaf1")},
		mutation{field: "PORT admin_status", name: "up, in a port's whole entry",
			edit: edit(func(d doc) {
				d.add("PORT", "Ethernet0", map[string]string{"lanes": "1,2,3,4", "speed": "200000", "mtu": "9100", "admin_status": "up"})
			}, "leaf1")},
		mutation{field: "PORT mtu", name: "MTU 1500", harmful: true, rule: "QOS020", dataPlane: true,
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"mtu": "1500"}) }, "leaf1")},
		mutation{field: "PORT mtu", name: "MTU 9100",
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"mtu": "9100"}) }, "leaf1")},
		// portsorch takes 68-9216 (parsePortMtu) and refuses any other
		// value: the port keeps the MTU it has, and at a cold start the
		// port's whole entry is refused.
		mutation{field: "PORT mtu", name: "MTU 20, below portsorch's 68", harmful: true, rule: "QOS021", why: "portsorch refuses the value and the port keeps its MTU, which carries RoCE's packets",
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"mtu": "20"}) }, "leaf1")},
		mutation{field: "PORT mtu", name: "MTU 10000, above portsorch's 9216", harmful: true, rule: "QOS021", why: "portsorch refuses the value and the port keeps its MTU, which carries RoCE's packets",
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"mtu": "10000"}) }, "leaf1")},
		mutation{field: "PORT mtu", name: "MTU abc", harmful: true, rule: "QOS021", why: "portsorch refuses the value and the port keeps its MTU, which carries RoCE's packets",
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"mtu": "abc"}) }, "leaf1")},
		mutation{field: "PORT mtu", name: "MTU 9216, the largest portsorch takes",
			edit: edit(func(d doc) { d.add("PORT", "Ethernet0", map[string]string{"mtu": "9216"}) }, "leaf1")},
		// leaf1's Ethernet128 is wired to spine1's Ethernet0. FEC is not
		// negotiated without auto-negotiation: two ends set to different
		// modes never link up, and the uplink's traffic takes the others.
		mutation{field: "PORT fec", name: "none on a leaf's uplink, rs at the spine's end", harmful: true, rule: "QOS009", dataPlane: true,
			edit: linkFEC("none", "rs")},
		mutation{field: "PORT fec", name: "rs at both ends of a leaf's uplink", edit: linkFEC("rs", "rs")},
		mutation{field: "PORT fec", name: "rs at the leaf's end only (the spine keeps its own)", edit: linkFEC("rs", "")},
	)
	return out
}

// linkFEC sets PORT fec at the two ends of leaf1's uplink to spine1
// (leaf1 Ethernet128, spine1 Ethernet0); "" leaves an end's out.
func linkFEC(leaf, spine string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		for _, end := range [][3]string{{"leaf1", "Ethernet128", leaf}, {"spine1", "Ethernet0", spine}} {
			if end[2] != "" {
				edit(func(d doc) { d.add("PORT", end[1], map[string]string{"fec": end[2]}) }, end[0])(t, dir)
			}
		}
	}
}

// rekey moves the entries of table whose keys end in from to keys ending
// in to instead ("Ethernet0|3" -> "Ethernet0|3-3").
func (d doc) rekey(table, from, to string) {
	for key, e := range d[table] {
		if strings.HasSuffix(key, from) {
			delete(d[table], key)
			d[table][strings.TrimSuffix(key, from)+to] = e
		}
	}
}

// portLists merges the per-port entries of table whose keys end in
// suffix ("|0", or "" for PORT_QOS_MAP) and whose fields are the same into
// one entry keyed by their ports' list ("Ethernet0,Ethernet4|0"), as
// SONiC's older templates wrote them.
func (d doc) portLists(table, suffix string, skip ...string) {
	groups := map[string][]string{}
	for key, e := range d[table] {
		if !strings.HasSuffix(key, suffix) || contains(skip, key) {
			continue
		}
		port := strings.TrimSuffix(key, suffix)
		if strings.Contains(port, "|") {
			continue
		}
		out, _ := json.Marshal(e)
		groups[string(out)] = append(groups[string(out)], port)
	}
	for fields, ports := range groups {
		var e map[string]string
		_ = json.Unmarshal([]byte(fields), &e)
		for _, p := range ports {
			delete(d[table], p+suffix)
		}
		sort.Strings(ports)
		d[table][strings.Join(ports, ",")+suffix] = e
	}
}

// sonicKeyMutations change how the keys of the tables that name ports
// are written: orchagent splits a key's ports at ',', reads its index
// with std::stoul and refuses a range whose left value is not below its
// right, and throws on an index without a number.
func sonicKeyMutations() []mutation {
	return []mutation{
		{field: "QUEUE wred_profile", name: "RoCE's queue keyed |3-3, which orchagent refuses", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d.rekey("QUEUE", "|3", "|3-3") })},
		// std::stoul reads "2,3" as 2: queue 2 takes RoCE's scheduler and
		// WRED, queue 3 nothing.
		{field: "QUEUE wred_profile", name: "queues 2 and 3 as one key |2,3, which orchagent reads as queue 2", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) {
				for key := range d["QUEUE"] {
					if strings.HasSuffix(key, "|2") {
						delete(d["QUEUE"], key)
					}
				}
				d.rekey("QUEUE", "|3", "|2,3")
			})},
		{field: "QUEUE scheduler", name: "each queue's entries as port-list keys",
			edit: edit(func(d doc) {
				for q := range 8 {
					d.portLists("QUEUE", fmt.Sprintf("|%d", q))
				}
			})},
		// "*" for every queue: std::stoul throws on it, and qosorch never
		// gets past it, so no QUEUE entry after it in key order (all of
		// them) applies.
		{field: "QUEUE scheduler", name: "a key orchagent throws on, Ethernet0|*", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) { d.add("QUEUE", "Ethernet0|*", map[string]string{"scheduler": "scheduler.dwrr5"}) })},
		{field: "BUFFER_PG profile", name: "the lossy PGs as port-list keys",
			edit: edit(func(d doc) { d.portLists("BUFFER_PG", "|0") })},
		// bufferorch applies BUFFER_PG in bulk at the end of a pass, which
		// it never ends: no PG has a profile, buffermgrd's lossless ones
		// neither.
		{field: "BUFFER_PG profile", name: "a key orchagent throws on, Ethernet0|pg3", harmful: true, rule: "QOS021", dataPlane: true,
			edit: edit(func(d doc) {
				d.add("BUFFER_PG", "Ethernet0|pg3", map[string]string{"profile": "ingress_lossy_profile"})
			})},
		{field: "PORT_QOS_MAP pfc_enable", name: "the ports' entries as port-list keys",
			edit: edit(func(d doc) { d.portLists("PORT_QOS_MAP", "", "global") })},
		// buffermgrd takes a PORT_QOS_MAP key for one port's name, so it
		// reads no pfc_enable for the ports of a list and writes no
		// lossless PG: without the config's own, PG 3 has none, while
		// orchagent enables PFC on each port.
		{field: "PORT_QOS_MAP pfc_enable", name: "the ports' entries as port-list keys, and no BUFFER_PG entry for PG 3", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) {
				d.portLists("PORT_QOS_MAP", "", "global")
				for key := range d["BUFFER_PG"] {
					if strings.HasSuffix(key, "|3") {
						delete(d["BUFFER_PG"], key)
					}
				}
			})},
		// Ethernet0 faces a host's NIC, which runs no LACP: the member
		// is never bundled and carries nothing (qos.ChannelAlone).
		{field: "PORT_QOS_MAP pfc_enable", name: "Ethernet0 in a port channel, its entries on itself: the NIC runs no LACP, the link carries nothing", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: edit(func(d doc) {
				d.add("PORTCHANNEL", "PortChannel0001", map[string]string{"admin_status": "up", "min_links": "1", "mtu": "9100"})
				d.add("PORTCHANNEL_MEMBER", "PortChannel0001|Ethernet0", map[string]string{})
			}, "leaf1")},
		// SONiC programs QoS on physical ports; whether orchagent applies
		// a port channel's PORT_QOS_MAP entry to its members is not
		// checked: labctl gives the members none of it (PFC off, an
		// error) and notes the assumption (QOS000). The link is bundled
		// at both ends, each port channel with an address, so it carries
		// traffic and the change is the QoS alone.
		{field: "PORT_QOS_MAP pfc_enable", name: "a bundled uplink's entry moved to its port channel", harmful: true, rule: "QOS001", dataPlane: true, lintError: true,
			edit: sonicBothEndsChannel("up", true, true, true)},
		// pfcwdorch takes the whole key for one port's name.
		{field: "PFC_WD action", name: "the ports' watchdogs as port-list keys, which pfcwdorch refuses", harmful: true, rule: "QOS021", why: noStorm,
			stormWhy: "the ports keep PORT_QOS_MAP's pfcwd_sw_enable, so labctl gives them the watchdog pfcwd start_default writes at boot (default_pfcwd_status enable), which has the refused entries' values (200 ms, drop); lint warns that without it they run none",
			edit:     edit(func(d doc) { d.portLists("PFC_WD", "", "GLOBAL") })},
	}
}

// sonicBufferModelMutations change the buffer model SONiC's buffer
// manager runs (DEVICE_METADATA buffer_model) and the tables only its
// dynamic model reads. In the traditional model buffermgrd writes the
// lossless PGs of each port's pfc_enable itself; in the dynamic one it
// writes none, and a PG is lossless only through its own BUFFER_PG entry.
func sonicBufferModelMutations() []mutation {
	dynamic := func(d doc) {
		d.add("DEVICE_METADATA", "localhost", map[string]string{"buffer_model": "dynamic", "hostname": "switch", "hwsku": "sku"})
	}
	dropPG3 := func(d doc) {
		for key := range d["BUFFER_PG"] {
			if strings.HasSuffix(key, "|3") {
				delete(d["BUFFER_PG"], key)
			}
		}
	}
	notRead := "the traditional buffer manager does not read it"
	return []mutation{
		{field: "DEVICE_METADATA buffer_model", name: "dynamic, without BUFFER_PG entries for PG 3 (which only the traditional manager writes)", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) { dynamic(d); dropPG3(d) }, "leaf1")},
		{field: "DEVICE_METADATA buffer_model", name: "traditional, said",
			edit: edit(func(d doc) { d.add("DEVICE_METADATA", "localhost", map[string]string{"buffer_model": "traditional"}) })},
		{field: "DEVICE_METADATA buffer_model", name: "dynamic, every lossless PG with its named profile",
			edit: edit(dynamic)},
		{field: "DEVICE_METADATA buffer_model", name: "dynamic, RoCE's PGs with profile NULL (sized by the manager)",
			edit: edit(func(d doc) {
				dynamic(d)
				d.set("BUFFER_PG", suffix("|3"), "profile", "NULL")
			})},
		// The dynamic manager sizes profile NULL only: an empty profile it
		// refuses (handleSingleBufferPgEntry), so PG 3 is lossless nowhere.
		{field: "DEVICE_METADATA buffer_model", name: "dynamic, RoCE's PGs with an empty profile (not NULL)", harmful: true, rule: "QOS014", dataPlane: true,
			edit: edit(func(d doc) {
				dynamic(d)
				d.set("BUFFER_PG", suffix("|3"), "profile", "")
			}, "leaf1")},
		// The traditional manager copies NULL as it is, and bufferorch
		// finds no profile of that name: the PGs have none (and, at a cold
		// start, hold their ports and orchagent with them).
		{field: "DEVICE_METADATA buffer_model", name: "traditional, the lossy PGs with profile NULL (which only the dynamic manager sizes)", harmful: true, rule: "QOS013", dataPlane: true,
			edit: edit(func(d doc) { d.set("BUFFER_PG", suffix("|0"), "profile", "NULL") }, "leaf1")},
		{field: "LOSSLESS_TRAFFIC_PATTERN mtu", name: "set in the traditional model", safe: notRead,
			edit: edit(func(d doc) { d.add("LOSSLESS_TRAFFIC_PATTERN", "AZURE", map[string]string{"mtu": "1024"}) })},
		{field: "LOSSLESS_TRAFFIC_PATTERN small_packet_percentage", name: "set in the traditional model", safe: notRead,
			edit: edit(func(d doc) {
				d.add("LOSSLESS_TRAFFIC_PATTERN", "AZURE", map[string]string{"small_packet_percentage": "100"})
			})},
		{field: "DEFAULT_LOSSLESS_BUFFER_PARAMETER default_dynamic_th", name: "set in the traditional model", safe: notRead,
			edit: edit(func(d doc) {
				d.add("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "AZURE", map[string]string{"default_dynamic_th": "-8"})
			})},
		{field: "DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio", name: "set in the traditional model", safe: notRead,
			edit: edit(func(d doc) {
				d.add("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "AZURE", map[string]string{"over_subscribe_ratio": "2"})
			})},
	}
}

// beyondQueues is why a class sent to a queue beyond the model's 8 does
// not move the figures.
const beyondQueues = "the simulator models queues 0-7 and runs the class in its own queue, as TC_TO_QUEUE_MAP leaving it out would"

// quotasNotSim is why a change to a port's pool quotas does not move the
// figures.
const hashNotSim = "the simulator hashes every packet's addresses, protocol and UDP ports whatever SWITCH_HASH says: lint warns, the figures do not move"

const aclNotSim = "labctl does not simulate ACLs: lint errs and regress fails on the new lint error, the figures do not move"

// aclOnLeaf binds an ACL of type typ to every port of leaf1's
// PORT_QOS_MAP (its ports written as one comma-separated string, which
// aclorch's processAclTablePorts splits), with rules (RULE_1, RULE_2, ...).
func aclOnLeaf(typ string, rules ...map[string]string) func(t *testing.T, dir string) {
	return edit(func(d doc) {
		var ports []string
		for p := range d["PORT_QOS_MAP"] {
			if p != "global" {
				ports = append(ports, p)
			}
		}
		slices.Sort(ports)
		d.add("ACL_TABLE", "DATAACL", map[string]string{"policy_desc": "data", "type": typ, "stage": "ingress", "ports": strings.Join(ports, ",")})
		for i, r := range rules {
			d.add("ACL_RULE", fmt.Sprintf("DATAACL|RULE_%d", i+1), r)
		}
	}, "leaf1")
}

const quotasNotSim = "labctl models no port pool quotas: the port keeps the switch's defaults, as the unchanged lab's ports do"

// hostChannelFallback puts leaf1's Ethernet0, facing the incast's
// receiver, in PortChannel1 with fallback true; addr gives the port
// channel a PORTCHANNEL_INTERFACE address.
func hostChannelFallback(d doc, addr bool) {
	d.add("PORTCHANNEL", "PortChannel1", map[string]string{"admin_status": "up", "min_links": "1", "fallback": "true"})
	d.add("PORTCHANNEL_MEMBER", "PortChannel1|Ethernet0", map[string]string{})
	if addr {
		d.add("PORTCHANNEL_INTERFACE", "PortChannel1", map[string]string{})
		d.add("PORTCHANNEL_INTERFACE", "PortChannel1|10.254.0.0/31", map[string]string{})
	}
}

// TestSONiCMutations changes every field of SONiC's tables in the 64gpu
// lab's configs and checks what lint, the simulator and regress say.
// sonicBothEndsChannel puts leaf1's Ethernet128 and spine1's Ethernet0,
// the ends of a leaf-spine link, in PortChannel1; the leaf's PORTCHANNEL
// takes leafAdmin as its admin_status ("" none), the spine's is up;
// leafAddr and spineAddr give each port channel a PORTCHANNEL_INTERFACE
// address, and moveQoS moves leaf1's member's PORT_QOS_MAP entry to its
// port channel.
func sonicBothEndsChannel(leafAdmin string, leafAddr, spineAddr, moveQoS bool) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		for i, end := range []struct {
			node, port, admin string
			addr              bool
		}{{"leaf1", "Ethernet128", leafAdmin, leafAddr}, {"spine1", "Ethernet0", "up", spineAddr}} {
			edit(func(d doc) {
				pc := map[string]string{"min_links": "1"}
				if end.admin != "" {
					pc["admin_status"] = end.admin
				}
				d.add("PORTCHANNEL", "PortChannel1", pc)
				d.add("PORTCHANNEL_MEMBER", "PortChannel1|"+end.port, map[string]string{})
				if end.addr {
					d.add("PORTCHANNEL_INTERFACE", "PortChannel1", map[string]string{})
					d.add("PORTCHANNEL_INTERFACE", fmt.Sprintf("PortChannel1|10.254.0.%d/31", i), map[string]string{})
				}
				if moveQoS && end.node == "leaf1" {
					d["PORT_QOS_MAP"]["PortChannel1"] = d["PORT_QOS_MAP"][end.port]
					delete(d["PORT_QOS_MAP"], end.port)
				}
			}, end.node)(t, dir)
		}
	}
}

// leafMinLinks is channel, then leaf1's PORTCHANNEL|PortChannel1 given
// min_links n.
func leafMinLinks(channel func(t *testing.T, dir string), n string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		channel(t, dir)
		edit(func(d doc) {
			d.set("PORTCHANNEL", func(k string) bool { return k == "PortChannel1" }, "min_links", n)
		}, "leaf1")(t, dir)
	}
}

func TestSONiCMutations(t *testing.T) {
	ms := append(sonicMutations(), sonicMutations2()...)
	ms = append(ms, sonicKeyMutations()...)
	ms = append(ms, sonicBufferModelMutations()...)
	coverage(t, sonic.Fields(), ms)
	if testing.Short() {
		t.Skip("the mutation suite simulates every mutation: not in -short")
	}
	s := newSuite(t, "64gpu", "sonic")
	for _, m := range ms {
		t.Run(m.field+"/"+m.name, func(t *testing.T) { s.check(t, m) })
	}
}

// uetLabSpec is a UET lab whose payload MTU is the switches' 9100
// (fabric.SwitchMTU): its packets need 9160 bytes, so labctl renders
// PORT mtu on every fabric port, which a SONiC port without one (SONiC's
// default, 9100, as labctl's startup config sets it) does not carry.
var uetLabSpec = fmt.Sprintf(`name: uet16
description: 16 GPUs over UET at a jumbo payload MTU
sizing:
  gpus: 16
nos: sonic
transport: uet
qos:
  profile: roce-dcqcn
  mtu: %d
runtime: sim
`, fabric.SwitchMTU)

// sonicUETMutations change a jumbo UET lab's configs (uetLabSpec).
func sonicUETMutations() []mutation {
	return []mutation{
		{field: "PORT mtu", name: "deleted from a jumbo UET lab's ports (SONiC's default 9100)", harmful: true, rule: "QOS020", dataPlane: true,
			edit: edit(func(d doc) { d.del("PORT", nil, "mtu") })},
		{field: "PORT mtu", name: "a jumbo UET lab's PORT table deleted (SONiC's default 9100)", harmful: true, rule: "QOS020", dataPlane: true,
			edit: edit(func(d doc) { delete(d, "PORT") })},
		{field: "PORT mtu", name: "9216 on a jumbo UET lab's ports",
			edit: edit(func(d doc) { d.set("PORT", nil, "mtu", "9216") })},
	}
}

// TestSONiCUETMutations: a SONiC port without PORT mtu runs at SONiC's
// default 9100, which drops a jumbo UET lab's packets; labctl read it as
// carrying any packet, so deleting the mtu labctl renders for such a lab
// passed lint, the run and regress.
func TestSONiCUETMutations(t *testing.T) {
	if testing.Short() {
		t.Skip("the mutation suite simulates every mutation: not in -short")
	}
	spec := filepath.Join(t.TempDir(), "uet16.yaml")
	if err := os.WriteFile(spec, []byte(uetLabSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newSuite(t, spec, "sonic")
	for _, m := range sonicUETMutations() {
		t.Run(m.field+"/"+m.name, func(t *testing.T) { s.check(t, m) })
	}
}
