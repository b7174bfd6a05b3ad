package sonic

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/qos"
)

// Keys of the tables that name ports: QUEUE, BUFFER_PG and BUFFER_QUEUE
// ("<ports>|<index or range>"), PORT_QOS_MAP ("<ports>") and PFC_WD
// ("<port>"), read as orchagent reads them on a switch that is not a VOQ
// chassis. Its readings differ from what a key seems to say: a key names
// a list of ports ("Ethernet0,Ethernet4|3"), an index is read by
// std::stoul, which stops at the first character that is no digit ("2,3"
// is index 2), a range's left value must be below its right ("3-3" is
// refused), and an index with no number at all throws, which stops the
// table (keyStall).

// swssTokenize splits s at sep as swss-common's tokenize does (getline on
// a stringstream): an empty piece between two separators or before the
// first is kept, one after the last separator is not ("a," is [a], "" is
// none).
func swssTokenize(s string, sep byte) []string {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, string(sep))
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// stoul reads s as std::stoul(s) (strtoul, base 10) does: blanks, an
// optional '+', then as many digits as follow. rest is what it leaves
// unread; ok false is where std::stoul throws (no digit, or a value
// beyond 64 bits). A '-' never reaches it: the range split takes them.
func stoul(s string) (v uint64, rest string, ok bool) {
	neg, digits, rest := cNumber(s)
	if neg || digits == "" {
		return 0, "", false
	}
	for _, c := range []byte(digits) {
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, "", false
		}
		v = v*10 + d
	}
	return v, rest, true
}

// indexRange is an index or range of a key as orchagent's
// Orch::parseIndexRange reads it.
type indexRange struct {
	lo, hi uint32
	// refused says why parseIndexRange returns false, so that orchagent
	// refuses the entry (task_invalid_entry).
	refused string
	// throws: std::stoul throws on it (no number), which no handler
	// between it and Consumer::drain catches.
	throws bool
	// unread is the text std::stoul stopped at, when more than blanks.
	unread string
}

// parseIndexRange is Orch::parseIndexRange (orchagent/orch.cpp): with a
// '-', exactly two tokens, each read by std::stoul, the left below the
// right; without, the whole read by std::stoul. The values are cast to 32
// bits, as sai_uint32_t keeps them.
func parseIndexRange(s string) indexRange {
	var out indexRange
	read := func(t string) (uint32, bool) {
		v, rest, ok := stoul(t)
		if !ok {
			out.throws = true
			return 0, false
		}
		if strings.TrimSpace(rest) != "" && out.unread == "" {
			out.unread = rest
		}
		return uint32(v), true
	}
	if !strings.Contains(s, "-") {
		v, ok := read(s)
		out.lo, out.hi = v, v
		if !ok {
			out.refused = fmt.Sprintf("orchagent reads the index %q with std::stoul, which finds no number in it and throws", s)
		}
		return out
	}
	tokens := swssTokenize(s, '-')
	if len(tokens) != 2 {
		out.refused = fmt.Sprintf("orchagent refuses the range %q: split at '-' it is not two numbers (parseIndexRange: malformed index range)", s)
		return out
	}
	lo, okLo := read(tokens[0])
	hi, okHi := read(tokens[1])
	switch {
	case !okLo || !okHi:
		out.refused = fmt.Sprintf("orchagent reads the range %q with std::stoul, which finds no number in one side and throws", s)
	case lo >= hi:
		out.refused = fmt.Sprintf("orchagent refuses the range %q: its left value must be below its right (parseIndexRange)", s)
	}
	out.lo, out.hi = lo, hi
	return out
}

// portName says whether a name from a key can be a port's: orchagent
// looks each up (PortsOrch::getPort), and no port is called "" or has a
// blank in its name.
func portName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\n\v\f\r")
}

// keyRead is what orchagent makes of a key of QUEUE, BUFFER_PG or
// BUFFER_QUEUE.
type keyRead struct {
	// named are the names of ports the key lists (only those that can
	// be ports' names); ports and idx are what orchagent applies the
	// entry to.
	named []string
	ports []string
	idx   []int
	// refused says why orchagent applies nothing of the entry (ports
	// and idx then empty), partly says why it applies it to fewer ports
	// or indexes than the key names, and stalls that it throws reading
	// it (keyStall).
	refused, partly string
	stalls          bool
	// fix says how to write the key.
	fix string
}

// readRangedKey reads a key of table (QUEUE, BUFFER_PG or BUFFER_QUEUE)
// as orchagent does: qosorch's handleQueueTable, bufferorch's
// processQueue and processPriorityGroup. The key splits at '|' into
// exactly two tokens, the first a list of ports split at ',', the second
// an index or range (parseIndexRange). Then each port is looked up and
// each index checked against the port's queues or PGs, in order: bufferorch
// checks them all before it applies anything, qosorch applies as it goes,
// so a QUEUE entry keeps what it applied before the first port it cannot
// find. labctl models queues and PGs 0-7.
func readRangedKey(table, key string) keyRead {
	var out keyRead
	tokens := swssTokenize(key, '|')
	if len(tokens) != 2 {
		out.refused = fmt.Sprintf("orchagent refuses the key: it must split at '|' into exactly two parts, <ports>|<index or range> (malformed key, %d parts)", len(tokens))
		out.fix = "write the key as <port>|<index>, like Ethernet0|3, or <port>|<first>-<last>, like Ethernet0|3-4"
		return out
	}
	list := swssTokenize(tokens[0], ',')
	for _, p := range list {
		if portName(p) {
			out.named = append(out.named, p)
		}
	}
	r := parseIndexRange(tokens[1])
	switch {
	case r.refused != "":
		out.refused, out.stalls = r.refused, r.throws
		out.fix = "write the index as a number, like 3, or a range of two, like 3-4"
		return out
	case r.hi > 7 && table == "BUFFER_PG":
		out.refused = fmt.Sprintf("it names PG %d, and a SONiC port has PGs 0-7 (SAI's number of ingress priority groups is 8 on the ASICs SONiC runs on): bufferorch checks every PG of the entry before it applies any and refuses an entry naming one its port lacks (processPriorityGroup: Invalid pg index)", r.hi)
		out.fix = "name PGs 0-7 only"
		return out
	}
	if len(list) == 0 {
		out.refused = "it names no port: orchagent applies it to none"
		out.fix = "name the port before the '|', like Ethernet0|3"
		return out
	}
	for i, p := range list {
		if portName(p) {
			continue
		}
		why := fmt.Sprintf("the port list names %q, which no port is called (empty or with a blank): orchagent does not find it", p)
		out.fix = "list the ports separated by commas only, like Ethernet0,Ethernet4|3"
		if table != "QUEUE" || i == 0 {
			out.refused = why + " and refuses the entry"
			return out
		}
		out.partly = fmt.Sprintf("%s and stops there: qosorch applies the entry to %s only", why, strings.Join(list[:i], ", "))
		list = list[:i]
		break
	}
	out.ports = list
	for i := r.lo; i <= r.hi && i <= 7; i++ {
		out.idx = append(out.idx, int(i))
	}
	if r.hi > 7 {
		// A queue index beyond 7 (read after the ports, as orchagent
		// looks each port up before its queues).
		partly, fix := queuesBeyond(table, r.lo, r.hi, list)
		if out.partly != "" {
			partly = out.partly + "; " + partly
		}
		out.partly, out.fix = partly, fix
		return out
	}
	if r.unread != "" && out.partly == "" {
		unit := "queue"
		if table == "BUFFER_PG" {
			unit = "PG"
		}
		out.partly = fmt.Sprintf("orchagent reads the index %q with std::stoul, which stops at %q: the entry applies to %s %s only", tokens[1], r.unread, unit, strings.Join(cfgRanges(out.idx), ","))
		out.fix = "write one entry per index, like <port>|2 and <port>|3, or one per range of consecutive indexes, like <port>|2-3"
	}
	return out
}

// queuesBeyond says what the switch does with a QUEUE or BUFFER_QUEUE
// entry naming queues lo-hi, hi beyond 7, on the ports named, and how to
// write it. How many queues a port has is the platform's (m_queue_ids,
// from SAI's number of queues: the unicast queues 0-7 and, on many
// ASICs, multicast queues after them), which the files do not say, so
// the entry reads two ways. On a port that has queue hi, orchagent
// applies the whole entry. On one that lacks it, qosorch applies the
// QUEUE entry queue by queue and port by port and stops at the first
// queue the port lacks (handleQueueTable: applySchedulerToQueueScheduler-
// Group or applyWredProfileToQueue, Invalid queue index, task_failed):
// the queues below it on the first port keep it, the ports after get
// nothing; bufferorch checks every port and queue of a BUFFER_QUEUE entry
// before it applies any (processQueue: Invalid queue index,
// task_invalid_entry) and applies none of it. labctl models queues 0-7
// and reads the entry as on a port that has the queues it names, which
// is what its author meant; lint warns with the other reading.
func queuesBeyond(table string, lo, hi uint32, ports []string) (partly, fix string) {
	fix = fmt.Sprintf("name queues 0-7 only (split the range: <port>|%d-7 for the queues labctl and every SONiC port have), unless the platform's ports have queue %d (`show queue counters` lists them)", lo, hi)
	if lo > 7 {
		fix = fmt.Sprintf("remove the entry unless the platform's ports have queue %d (`show queue counters` lists them)", hi)
	}
	lacking := "bufferorch checks every queue of the entry first and applies none of it (processQueue: Invalid queue index)"
	if table == "QUEUE" {
		lacking = fmt.Sprintf("qosorch applies it queue by queue and stops at queue 8 (handleQueueTable: Invalid queue index): only %s keep it", "queues "+cfgRange([2]int{int(lo), 7})+" of "+ports[0])
		if lo > 7 {
			lacking = "qosorch refuses it at its first queue (handleQueueTable: Invalid queue index)"
		}
	}
	modelled := fmt.Sprintf("labctl, which models queues 0-7, applies it to queues %s", cfgRange([2]int{int(lo), 7}))
	if lo > 7 {
		modelled = "labctl models queues 0-7 and none of it"
	}
	partly = fmt.Sprintf("it names queue %d, beyond the unicast queues 0-7: on a platform whose ports have queue %d (multicast queues after the unicast ones on many ASICs) orchagent applies the whole entry; on one whose ports have 8 queues %s. %s, as on a platform with the queues", hi, hi, lacking, modelled)
	return partly, fix
}

// overrule records an entry the switch does not apply as it reads
// (qos.DeviceConfig.Overruled), once however many of its PGs or queues
// find it; Parse places it in its file.
func (r *resolver) overrule(table, key string, refused bool, what, fix string, ports []string) {
	where := table + "|" + key
	if r.overruled[where] {
		// One entry, noted once: the ports it overrules on add up.
		for i := range r.dc.Overruled {
			if o := &r.dc.Overruled[i]; o.Where == where {
				for _, p := range ports {
					if !slices.Contains(o.Ports, p) {
						o.Ports = append(o.Ports, p)
					}
				}
			}
		}
		return
	}
	if r.overruled == nil {
		r.overruled = map[string]bool{}
	}
	r.overruled[where] = true
	r.dc.Overruled = append(r.dc.Overruled, qos.Overruled{Where: where, Refused: refused, What: what, Fix: fix, Ports: slices.Clone(ports)})
}

// indexKeys reads the keys of the tables that name ports as orchagent
// does, once: the ranged tables' entries it applies, by port; the
// PORT_QOS_MAP keys naming each port and their priority lists; the ports
// all of them name. Entries it refuses or reads otherwise than they read
// are noted (overrule).
func (r *resolver) indexKeys() error {
	r.keyPorts, r.stalled = map[string]bool{}, map[string]bool{}
	r.switchPorts = wholePortTable(r.db)
	r.queueKeys = indexRanged(r, "QUEUE", r.db.Queue)
	r.pgKeys = indexRanged(r, "BUFFER_PG", r.db.BufferPG)
	r.bufferQueueKeys = indexRanged(r, "BUFFER_QUEUE", r.db.BufferQueue)
	if err := r.readPriorityLists(); err != nil {
		return err
	}
	r.indexPortQoSMap()
	if err := r.portChannels(); err != nil {
		return err
	}
	r.vlanMembers()
	r.checkWatchdogKeys()
	r.profileLists()
	r.lackingPortEntries()
	r.portChannelNotes()
	return nil
}

// portChannels reads PORTCHANNEL_MEMBER's keys, PortChannel<n>|<port>
// (sonic-portchannel.yang's key), into the port channel of each member
// port (r.channels). A key of another form is refused at its line. A key
// whose port channel PORTCHANNEL does not define makes no member:
// teammgrd's doLagMemberTask (cfgmgr/teammgr.cpp) retries it until
// isLagStateOk finds the port channel, which addLag creates only for a
// PORTCHANNEL entry, so the port stays an ordinary port; lint notes it
// (QOS000). What each defined port channel gives its members is
// r.channelOf: a PORTCHANNEL whose admin_status is not up is down
// (doLagTask's default is DEFAULT_ADMIN_STATUS_STR, "down" in portmgr.h,
// set by setLagAdminStatus); fallback true makes teamd's lacp runner
// forward on a member whose LACP finds no partner, as the port channel's
// (qos.PortConfig.ChannelFallback static); PORTCHANNEL_INTERFACE's
// PortChannel<n>|<prefix> keys give it an address.
func (r *resolver) portChannels() error {
	r.channels, r.channelOf = map[string]string{}, map[string]portChannel{}
	var undefined []string
	for _, key := range cfgSortedKeys(r.db.PortChannelMember) {
		ch, port, ok := strings.Cut(key, "|")
		if !ok || !strings.HasPrefix(ch, "PortChannel") || port == "" || strings.Contains(port, "|") {
			return entryError("PORTCHANNEL_MEMBER", key, "", "PORTCHANNEL_MEMBER|%s: the key is not PortChannel<n>|<port> (fix: write the port channel's name, a |, then the member port, as PortChannel1|Ethernet0)", key)
		}
		if _, ok := r.db.PortChannel[ch]; !ok {
			undefined = append(undefined, key)
			continue
		}
		r.channels[port] = ch
	}
	if len(undefined) > 0 {
		r.dc.Notes = append(r.dc.Notes, fmt.Sprintf("PORTCHANNEL_MEMBER %s: PORTCHANNEL defines no such port channel, so teammgrd never adds the member (doLagMemberTask waits for the port channel) and labctl reads the port as an ordinary port (fix: add the port channel's PORTCHANNEL entry with admin_status \"up\", or remove the PORTCHANNEL_MEMBER entry)", strings.Join(undefined, ", ")))
	}
	for _, ch := range cfgSortedKeys(r.db.PortChannel) {
		e, pch := r.db.PortChannel[ch], portChannel{}
		switch st := e["admin_status"]; st {
		case "up":
		case "":
			pch.down = fmt.Sprintf("PORTCHANNEL|%s gives no admin_status, and teammgrd's default is down", ch)
		default:
			pch.down = fmt.Sprintf("PORTCHANNEL|%s admin_status %q", ch, st)
		}
		if e["fallback"] == "true" {
			pch.fallback = "static"
		}
		if v, ok := e["min_links"]; ok {
			// teammgrd's doLagTask reads it with stoi and addLag hands it
			// to teamd's lacp runner as min_ports (cfgmgr/teammgr.cpp):
			// the team device is down with fewer ports selected
			// (qos.MemberAlone). sonic-portchannel.yang allows 1-1024,
			// but libteam's lacp_load_config (teamd/teamd_runner_lacp.c)
			// refuses a min_ports below 1 or above UCHAR_MAX (255) with
			// -EINVAL, so teamd does not start and the port channel is
			// never created: refused here at its line, as a value YANG
			// refuses is.
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 255 {
				why := "SONiC's YANG model refuses it"
				if err == nil && n > 255 {
					why = "SONiC's YANG model allows up to 1024, but teamd refuses a min_ports above 255 and does not start, so the port channel is never created"
				}
				return entryError("PORTCHANNEL", ch, "min_links", "PORTCHANNEL|%s min_links %q is not a count of members 1-255 (fix: write the fewest members that must be up for the port channel to come up, such as \"1\", or remove the field; %s)", ch, v, why)
			}
			pch.minLinks = n
		}
		r.channelOf[ch] = pch
	}
	for _, key := range cfgSortedKeys(r.db.PortChannelInterface) {
		if ch, _, ok := strings.Cut(key, "|"); ok {
			if pch := r.channelOf[ch]; pch.address == "" {
				pch.address = "PORTCHANNEL_INTERFACE|" + key
				r.channelOf[ch] = pch
			}
		}
	}
	return nil
}

// vlanMembers reads VLAN_MEMBER's keys, Vlan<n>|<port> (sonic-vlan.yang's
// key): the port is bridged (qos.PortConfig.Switched). A key of another
// form names no port labctl knows, and is left to the switch.
func (r *resolver) vlanMembers() {
	r.switched = map[string]string{}
	for _, key := range cfgSortedKeys(r.db.VlanMember) {
		if vlan, port, ok := strings.Cut(key, "|"); ok && strings.HasPrefix(vlan, "Vlan") && port != "" {
			r.switched[port] = "VLAN_MEMBER|" + key
		}
	}
}

// portChannelNotes names the keys that name a port channel
// (PortChannel<n>, as SONiC's YANG model names them) where the QoS tables
// name ports: labctl resolves such an entry for a port of that name and
// gives the channel's members none of it. SONiC programs QoS maps, PFC
// and buffers on physical ports; whether orchagent applies a channel's
// entry to its members, or refuses it, labctl has not checked, so lint
// notes the assumption (QOS000) instead of guessing.
func (r *resolver) portChannelNotes() {
	var channels []string
	for _, p := range cfgSortedKeys(r.keyPorts) {
		if strings.HasPrefix(p, "PortChannel") {
			channels = append(channels, p)
		}
	}
	if len(channels) > 0 {
		r.dc.Notes = append(r.dc.Notes, fmt.Sprintf("%s named where the QoS tables (PORT_QOS_MAP, QUEUE, BUFFER_PG, BUFFER_QUEUE, PFC_WD) name ports: labctl reads the entries for a port of that name and gives the port channel's members (PORTCHANNEL_MEMBER) none of them; SONiC programs QoS on physical ports, and whether orchagent applies a port channel's entry to its members is not checked (fix: give each member port its own entries)", strings.Join(channels, ", ")))
	}
}

// priorityLists are a PORT_QOS_MAP entry's pfc_enable and pfcwd_sw_enable
// as read, each sorted ("" is none).
type priorityLists struct {
	pfc, watchdog []int
	// watchdogSet says pfcwd_sw_enable is given ("" included: it watches
	// no priority).
	watchdogSet bool
}

// readPriorityLists reads pfc_enable and pfcwd_sw_enable of every
// PORT_QOS_MAP entry once, for every reader: orchagent (qosorch's
// handlePortQosMapTable sets the port's PFC and watchdog bitmaps from
// them) and SONiC's buffer manager (buffermgrd's doPortQosTableTask keeps
// pfc_enable of the entry keyed by the port's name, whether or not
// orchagent applies the entry, and doSpeedUpdateTask makes those PGs
// lossless). The two read a malformed list differently (qosorch with
// std::stoi, which reads "3-4" as 3 and throws on "x"; buffermgrd with
// to_uint<uint8_t>, which skips "3-4" and "x" alike), and SONiC's YANG
// model (sonic-port-qos-map.yang) refuses it, so labctl refuses it in
// every entry, applied or not, rather than guess which reading a port
// gets: one list per entry, the same for PFC and for the buffer manager.
func (r *resolver) readPriorityLists() error {
	r.pqmPriorities = make(map[string]priorityLists, len(r.db.PortQoSMap))
	for _, key := range cfgSortedKeys(r.db.PortQoSMap) {
		e := r.db.PortQoSMap[key]
		for _, f := range []string{"pfc_enable", "pfcwd_sw_enable"} {
			v := map[string]string{"pfc_enable": e.PFCEnable, "pfcwd_sw_enable": deref(e.PFCWDEnable)}[f]
			if v != "" && !cfgPFCEnableRE().MatchString(v) && cfgPFCEnableBlankRE().MatchString(v) {
				// "3, 4": a blank after a comma. qosorch's std::stoi and
				// buffermgrd's to_uint (std::stoul) both skip blanks
				// before a number, so the switch reads 3,4; only SONiC's
				// YANG model refuses it.
				r.dc.Notes = append(r.dc.Notes, fmt.Sprintf("PORT_QOS_MAP|%s %s %q: labctl reads it as %q, as orchagent and SONiC's buffer manager do (std::stoi and std::stoul skip the blank before a number), but SONiC's YANG model (sonic-port-qos-map.yang) refuses it, so 'config apply-patch' and any YANG-validated load refuse the change (fix: write %q)", key, f, v, strings.ReplaceAll(v, " ", ""), strings.ReplaceAll(v, " ", "")))
				continue
			}
			if v != "" && !cfgPFCEnableRE().MatchString(v) {
				return entryError("PORT_QOS_MAP", key, f, "PORT_QOS_MAP|%s %s %q is not a list of priorities 0-7 like \"3,4\" (fix: write the priorities separated by commas; SONiC's YANG model refuses it, and orchagent and the buffer manager read it differently)", key, f, v)
			}
		}
		r.pqmPriorities[key] = priorityLists{pfc: cfgInts(e.PFCEnable), watchdog: cfgInts(deref(e.PFCWDEnable)), watchdogSet: e.PFCWDEnable != nil}
	}
	return nil
}

// indexRanged indexes the entries orchagent applies of a ranged table by
// port, each port's in key order (readRangedKey). A key orchagent throws
// on stops the table (keyStall).
func indexRanged[E any](r *resolver, table string, entries map[string]*E) map[string][]rangedKey[E] {
	keys := cfgSortedKeys(entries)
	byPort := make(map[string][]rangedKey[E], len(keys)/qos.NumTC+1)
	stalled := false
	for i, key := range keys {
		kr := readRangedKey(table, key)
		for _, p := range kr.named {
			r.namePort(p, table+"|"+key)
		}
		switch {
		case stalled:
			continue
		case kr.stalls:
			r.overrule(table, key, true, kr.refused+"; "+keyStall(table, len(keys)-i-1, len(keys)), kr.fix, kr.named)
			stalled = true
			continue
		case kr.refused != "":
			r.overrule(table, key, true, kr.refused+"; the switch applies nothing of the entry", kr.fix, kr.named)
			continue
		case kr.partly != "":
			r.overrule(table, key, false, kr.partly, kr.fix, kr.named)
		}
		if table == "QUEUE" {
			kr.ports = r.queuePortsApplied(key, kr.ports)
		} else {
			// A key naming only ports the switch lacks is noted with
			// the port's other entries (lackingPortEntries).
			if missing := r.portsLacking(kr.ports); len(missing) > 0 {
				if len(missing) < len(slices.Compact(slices.Sorted(slices.Values(kr.ports)))) {
					r.overrule(table, key, true, lackingPorts(table, r.lackedBy(), missing, kr.ports), "key the entry by the ports the switch has (drop "+strings.Join(missing, ", ")+" from the list: a typo?)"+r.lackFix(), kr.named)
				}
				continue
			}
		}
		for _, p := range kr.ports {
			byPort[p] = append(byPort[p], rangedKey[E]{key: key, idx: kr.idx, entry: entries[key]})
		}
	}
	if stalled && table != "QUEUE" {
		clear(byPort)
		r.stalled[table] = true
	}
	return byPort
}

// queuePortsApplied are the ports of a QUEUE key's list (ports, in the
// key's order) that qosorch applies the entry to: handleQueueTable looks
// each port up and applies the entry to its queues in turn, and returns
// at the first port it cannot find ("Port with alias not found",
// task_invalid_entry, and QosOrch::doTask drops the entry), so the ports
// before the first the switch lacks get it, and that port and those
// after it do not. Where a port the switch has is left out, the entry is
// noted, naming them; a port the switch lacks is noted with its other
// entries (lackingPortEntries).
func (r *resolver) queuePortsApplied(key string, ports []string) []string {
	i := slices.IndexFunc(ports, r.lacks)
	if i < 0 {
		return ports
	}
	var left []string
	for _, p := range ports[i:] {
		if !r.lacks(p) && !slices.Contains(ports[:i], p) && !slices.Contains(left, p) {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		do := "do"
		if len(left) == 1 {
			do = "does"
		}
		got := fmt.Sprintf(": %s got it, and %s, which the switch has, %s not", strings.Join(ports[:i], ", "), strings.Join(left, ", "), do)
		if i == 0 {
			// The first listed port is the one lacking.
			got = fmt.Sprintf(", so %s, which the switch has, %s not get it either", strings.Join(left, ", "), do)
		}
		r.overrule("QUEUE", key, true, fmt.Sprintf("%s is %s: qosorch's handleQueueTable applies the entry port by port in the key's order and stops at a port it cannot find (Port with alias not found, task_invalid_entry)%s; their queues keep what other entries give them",
			ports[i], r.lackedBy(), got),
			"key the entry by the ports the switch has (drop "+ports[i]+" from the list: a typo?)"+r.lackFix(), left)
	}
	return ports[:i]
}

// portsLacking are the ports of a key the switch lacks (lacks), in the
// key's order.
func (r *resolver) portsLacking(ports []string) []string {
	var out []string
	for _, p := range ports {
		if r.lacks(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// lacks says whether the switch has no port called name, a front-panel
// port's name (Ethernet...): the lab says so for its switch
// (qos.Device.NoSuchPort), else the config's PORT table where it is whole
// (wholePortTable); where neither is known, no port is known to be
// lacking.
func (r *resolver) lacks(name string) bool {
	if r.lab != nil {
		return r.lab.NoSuchPort(name)
	}
	return r.switchPorts != nil && !r.switchPorts[name] && strings.HasPrefix(name, "Ethernet")
}

// lackFix ends the fix of an entry naming a port the switch lacks: in
// bare files, the config's PORT table may leave out a port the switch has.
func (r *resolver) lackFix() string {
	if r.lab != nil {
		return ""
	}
	return "; or add the port's whole PORT entry if the switch has it"
}

// lackedBy says, after "<port> is", how the resolver knows the switch
// lacks the port (lacks), for a note on an entry naming it.
func (r *resolver) lackedBy() string {
	if r.lab != nil {
		return "not among the switch's ports (" + qos.FrontPanelPorts(r.lab) + ")"
	}
	return "not in the config's PORT table, which lists every port of the switch (a whole CONFIG_DB: DEVICE_METADATA gives the hwsku, every PORT entry its lanes)"
}

// namePort records that the entry where (table|key) names port: a port
// of the model (portNames), or, where the switch lacks it, one whose
// entries apply to nothing (lackingPortEntries).
func (r *resolver) namePort(port, where string) {
	if !r.lacks(port) {
		r.keyPorts[port] = true
		return
	}
	if r.lackingEntries == nil {
		r.lackingEntries = map[string][]string{}
	}
	if !slices.Contains(r.lackingEntries[port], where) {
		r.lackingEntries[port] = append(r.lackingEntries[port], where)
	}
}

// lackingPortEntries notes, once per port the switch lacks, the entries
// naming it: orchagent finds no port of the name (Port with alias not
// found, Invalid port interface) and applies them to nothing; it is no
// port of the model, and holds nothing at a cold start (portsorch waits
// for the ports of its PORT_TABLE only: m_pendingPortSet). A BUFFER_PG or
// BUFFER_QUEUE key listing it beside ports the switch has is refused on
// its own (lackingPorts). Several such ports are one note naming them
// all (a PORT table cut short, or a config for another SKU, lacks dozens):
// one per port buried the other findings.
func (r *resolver) lackingPortEntries() {
	ports := slices.SortedFunc(maps.Keys(r.lackingEntries), qos.ComparePorts)
	if len(ports) == 0 {
		return
	}
	fix := "key the entries by a port of the switch (a typo of one?), or delete them" + r.lackFix()
	// Placed at the first of them (At), as other notes at their entry.
	at := r.lackingEntries[ports[0]][0]
	if len(ports) == 1 {
		port, entries := ports[0], r.lackingEntries[ports[0]]
		r.dc.Overruled = append(r.dc.Overruled, qos.Overruled{Where: "the entries naming " + port, At: at, Ports: []string{port},
			What: fmt.Sprintf("%s is %s: orchagent finds no port of that name and applies nothing of %s to it, nor holds anything for it at a cold start", port, r.lackedBy(), plural.Some(entries, 5, ", ")),
			Fix:  fix})
		return
	}
	var entries []string
	for _, p := range ports {
		entries = append(entries, r.lackingEntries[p]...)
	}
	r.dc.Overruled = append(r.dc.Overruled, qos.Overruled{Where: fmt.Sprintf("the entries naming %d ports", len(ports)), At: at, Ports: slices.Clone(ports),
		What: fmt.Sprintf("%s are %s: orchagent finds no port of those names and applies nothing of the %d entries naming them (%s), nor holds anything for them at a cold start",
			plural.Some(ports, 8, ", "), r.lackedBy(), len(entries), plural.Some(entries, 5, ", ")),
		Fix: fix})
}

// wholePortTable are the ports the switch has, as the config's PORT
// table gives them when the config is a whole CONFIG_DB, as config save
// writes it: DEVICE_METADATA|localhost gives the switch's hwsku, and
// every PORT entry its lanes (which sonic-port.yang requires of a port's
// entry). nil where it is not: config load merges a file onto the
// switch's own CONFIG_DB, so a file of some tables, or of some ports'
// entries (one port's whole entry among them), says nothing of the ports
// it leaves out.
func wholePortTable(db *ConfigDB) map[string]bool {
	table := db.Port
	if md := db.DeviceMetadata["localhost"]; len(table) == 0 || md == nil || md.Extra["hwsku"] == "" {
		return nil
	}
	out := make(map[string]bool, len(table))
	for name, e := range table {
		if e.Extra["lanes"] == "" {
			return nil
		}
		out[name] = true
	}
	return out
}

// lackingPorts says what bufferorch does with a BUFFER_PG or BUFFER_QUEUE
// entry whose key lists ports the switch lacks (missing, of ports).
func lackingPorts(table, lackedBy string, missing, ports []string) string {
	fn, unit := "processPriorityGroup", "PGs"
	if table == "BUFFER_QUEUE" {
		fn, unit = "processQueue", "queues"
	}
	others := ""
	if len(ports) > len(missing) {
		var have []string
		for _, p := range ports {
			if !slices.Contains(missing, p) {
				have = append(have, p)
			}
		}
		others = ", so " + strings.Join(have, ", ") + " do not get it either"
		if len(have) == 1 {
			others = ", so " + have[0] + " does not get it either"
		}
	}
	is := "is"
	if len(missing) > 1 {
		is = "are"
	}
	return fmt.Sprintf("%s %s %s: bufferorch looks up every port of the key before it applies any (%s: Port with alias not found) and refuses the whole entry%s; their %s keep what other entries give them", strings.Join(missing, ", "), is, lackedBy, fn, others, unit)
}

// keyStall says what a key orchagent throws on does to its table (after
// is the number of keys after it in key order, of all). No handler
// between std::stoul and Consumer::drain catches the exception, and the
// entry stays in the consumer's queue (m_toSync, a map by key) for ever:
// every pass over the queue stops at it. qosorch applies QUEUE entries as
// it goes, so those before it apply and those after it never do;
// bufferorch applies BUFFER_PG and BUFFER_QUEUE entries in bulk at the
// end of a pass (BufferOrch::doTask's flush), which it never reaches, so
// none of the table applies (on a switch, those it read in an earlier
// batch would).
func keyStall(table string, after, all int) string {
	if table == "QUEUE" {
		return fmt.Sprintf("the exception stops qosorch at this entry on every pass (Consumer::drain catches it, the entry stays queued), so neither it nor the %s after it in key order apply", plural.N(after, "QUEUE entry"))
	}
	return fmt.Sprintf("the exception stops bufferorch at this entry on every pass (Consumer::drain catches it, the entry stays queued) before it applies what it read in bulk, so none of the table's %s applies", plural.N(all, table+" entry"))
}

// indexPortQoSMap indexes PORT_QOS_MAP by port: qosorch's
// handlePortQosMapTable splits a key at ',' and applies the entry to each
// port it finds, skipping a name no port has ("global" alone is the
// switch's entry).
func (r *resolver) indexPortQoSMap() {
	r.pqmKeys = map[string][]string{}
	for _, key := range cfgSortedKeys(r.db.PortQoSMap) {
		if key == "global" {
			continue
		}
		var found, bad []string
		for _, p := range swssTokenize(key, ',') {
			if portName(p) {
				found = append(found, p)
				r.pqmKeys[p] = append(r.pqmKeys[p], key)
				r.namePort(p, "PORT_QOS_MAP|"+key)
			} else {
				bad = append(bad, fmt.Sprintf("%q", p))
			}
		}
		fix := "list the ports separated by commas only, like Ethernet0,Ethernet4"
		switch {
		case len(found) == 0:
			r.overrule("PORT_QOS_MAP", key, true, "the key names no port: orchagent applies the entry to none", fix, nil)
		case len(bad) > 0:
			r.overrule("PORT_QOS_MAP", key, false, fmt.Sprintf("the key names %s, which no port is called (empty or with a blank): orchagent skips it and applies the entry to %s only", strings.Join(bad, ", "), strings.Join(found, ", ")), fix, found)
		}
	}
}

// checkWatchdogKeys adds PFC_WD's ports. pfcwdorch's createEntry looks
// the whole key up as one port, so a key listing ports
// ("Ethernet0,Ethernet4") names none and is refused.
func (r *resolver) checkWatchdogKeys() {
	for _, key := range cfgSortedKeys(r.db.PFCWD) {
		switch {
		case key == "GLOBAL":
		case portName(key) && !strings.Contains(key, ","):
			r.namePort(key, "PFC_WD|"+key)
		default:
			r.overrule("PFC_WD", key, true, "pfcwdorch takes the whole key for one port's name and finds no such port (createEntry: Invalid port interface), so it refuses the entry: no port gets this watchdog", "give each port its own PFC_WD entry, keyed by its name alone", nil)
		}
	}
}

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// profileLists notes the profiles a BUFFER_PORT_INGRESS_PROFILE_LIST or
// BUFFER_PORT_EGRESS_PROFILE_LIST entry names that the config does not
// define (QOS013): bufferorch's processIngressBufferProfileList and
// processEgressBufferProfileList resolve the list with
// resolveFieldRefArray and retry an entry whose name does not resolve
// (task_need_retry) for ever, so none of the list is set on its ports.
// The key may name several ports (a comma-separated list, as bufferorch
// tokenizes it).
func (r *resolver) profileLists() {
	for _, t := range []struct {
		table string
		lists map[string]*ProfileListEntry
	}{{"BUFFER_PORT_INGRESS_PROFILE_LIST", r.db.IngressLists}, {"BUFFER_PORT_EGRESS_PROFILE_LIST", r.db.EgressLists}} {
		for _, key := range cfgSortedKeys(t.lists) {
			e := t.lists[key]
			if e == nil || e.ProfileList == "" {
				continue
			}
			effect := "bufferorch retries the entry for ever and sets none of its list: the port's pool quotas stay the switch's defaults"
			for prof := range strings.SplitSeq(e.ProfileList, ",") {
				prof = strings.TrimSpace(prof)
				pe, ok := r.db.BufferProfile[prof]
				why := ""
				if ok {
					why = profileRefused(pe)
				}
				if ok && why == "" {
					continue
				}
				for port := range strings.SplitSeq(key, ",") {
					if !ok {
						r.unresolved(t.table+"|"+key, "profile_list", prof, "BUFFER_PROFILE", effect, port)
					} else {
						r.refused(t.table+"|"+key, "profile_list", prof, "BUFFER_PROFILE", effect, why, port)
					}
				}
			}
		}
	}
}
