package eos

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
)

// EOS QoS policy-maps: an interface's (or qos profile's) "service-policy
// type qos input NAME" classifies what the port receives by the classes of
// "policy-map type quality-of-service NAME", ahead of its trust mode and
// maps: the first class (in the policy's order, class-default last) whose
// class-map matches the packet applies its actions, "set traffic-class N"
// among them. A class-map (type qos) matches by IPv4 access-lists ("match
// ip access-group NAME"), whose entries decide in sequence order: the first
// entry that matches a packet decides, permit (the class matches) or deny
// (it does not).
//
// labctl decides these for the packets it simulates, RoCEv2 (and its CNPs
// and ACKs): IPv4, UDP to port 4791 from a port the flow's entropy picks,
// between addresses labctl's model of the fabric does not number. An entry
// that matches on what those packets carry alike (protocol ip or udp, any
// address, the destination port, the DSCP) is decided for every DSCP; one
// that depends on what labctl does not model (an address, a source port, a
// TTL) is not, and a policy that reaches such an entry for a DSCP is not
// simulated on the port (lint warns, QOS017, and names the entry).

// cfgACL is an "ip access-list [standard] NAME": its entries in the order
// EOS evaluates them, by sequence number (aclLine keeps them so).
type cfgACL struct {
	standard bool
	entries  []cfgACE
	// where is the list's first ip access-list line.
	where cfgPos
}

// cfgACE is an access-list entry, as it decides a RoCEv2 packet.
type cfgACE struct {
	seq    int
	permit bool
	// never: the entry cannot match a RoCEv2 packet (another protocol, a
	// destination port that is not 4791, fragments only).
	never bool
	// dscp is the DSCP the entry requires (-1: any).
	dscp int
	// undecided names what the entry matches on that labctl does not
	// model for its packets ("" when decided).
	undecided string
	line      string
	where     cfgPos
}

// cfgClassMap is a "class-map type qos [match-any|match-all] NAME".
type cfgClassMap struct {
	acls  []string // match ip access-group
	never int      // match ipv6 access-group: no IPv4 packet matches
	// dscps are the match dscp statements, each the DSCPs it lists.
	dscps []map[int]bool
	// undecided are match statements labctl does not decide.
	undecided []string
	matchAll  bool
	where     cfgPos
}

// cfgPolicy is a "policy-map type quality-of-service NAME".
type cfgPolicy struct {
	classes []*cfgPolicyClass
}

// cfgPolicyClass is one "class NAME" of a policy-map and its actions.
type cfgPolicyClass struct {
	name string
	tc   *int // set traffic-class
	// others are the class's actions the simulator does not run (set
	// dscp, set drop-precedence, set cos, police).
	others []cfgAction
}

// cfgAction is a policy-map class's action line and where it stands.
type cfgAction struct {
	line  string
	where cfgPos
}

// cfgPolicyBlock is the policy-related block being read: an access-list,
// a class-map, or a policy-map and the class of it being read.
type cfgPolicyBlock struct {
	mode   string // "ip access-list", "class-map", "policy-map"
	acl    *cfgACL
	cmap   *cfgClassMap
	policy *cfgPolicy
	class  *cfgPolicyClass
	// classIndent is the indentation of the open class line (-1: none).
	classIndent int
}

// cfgOpenPolicyBlock opens the block a top-level line starts, if it is one
// labctl reads: an IPv4 access-list, a class-map or policy-map of type
// qos. Other class-map and policy-map types (pbr, control-plane) are not
// QoS classification and stay unread.
func (p *cfgParser) cfgOpenPolicyBlock(f []string, where cfgPos) (*cfgPolicyBlock, error) {
	switch {
	case len(f) >= 3 && f[0] == "ip" && f[1] == "access-list":
		name, standard := f[2], false
		if f[2] == "standard" && len(f) >= 4 {
			name, standard = f[3], true
		}
		// A list named again is edited, not replaced: the entries of an
		// earlier file (or an earlier block) stay.
		a := p.acls[name]
		if a == nil {
			a = &cfgACL{standard: standard, where: where}
			p.acls[name] = a
		}
		return &cfgPolicyBlock{mode: "ip access-list", acl: a, classIndent: -1}, nil
	case len(f) >= 2 && f[0] == "class-map":
		// class-map [type qos] [match-any|match-all] NAME; a class-map
		// written without a type is EOS's qos class-map (labctl's
		// reading), other types (pbr, control-plane) are not read.
		rest := f[1:]
		if rest[0] == "type" {
			if len(rest) < 2 || rest[1] != "qos" {
				return nil, nil
			}
			rest = rest[2:]
		}
		matchAll := false
		if len(rest) > 0 && (rest[0] == "match-any" || rest[0] == "match-all") {
			matchAll, rest = rest[0] == "match-all", rest[1:]
		}
		if len(rest) != 1 {
			return nil, fmt.Errorf("%s: %q: a class-map needs one name (fix: write class-map type qos match-any NAME)", where, strings.Join(f, " "))
		}
		c := p.classMaps[rest[0]]
		if c == nil {
			c = &cfgClassMap{where: where, matchAll: matchAll}
			p.classMaps[rest[0]] = c
		}
		return &cfgPolicyBlock{mode: "class-map", cmap: c, classIndent: -1}, nil
	case len(f) >= 2 && f[0] == "policy-map":
		// policy-map [type quality-of-service|qos] NAME; untyped is EOS's
		// QoS policy-map (labctl's reading), other types are not read.
		rest := f[1:]
		if rest[0] == "type" {
			if len(rest) < 2 || (rest[1] != "quality-of-service" && rest[1] != "qos") {
				return nil, nil
			}
			rest = rest[2:]
		}
		if len(rest) != 1 {
			return nil, fmt.Errorf("%s: %q: a policy-map needs one name (fix: write policy-map type quality-of-service NAME)", where, strings.Join(f, " "))
		}
		pm := p.policies[rest[0]]
		if pm == nil {
			pm = &cfgPolicy{}
			p.policies[rest[0]] = pm
		}
		return &cfgPolicyBlock{mode: "policy-map", policy: pm, classIndent: -1}, nil
	}
	return nil, nil
}

// holds says whether a line of a file without indentation stays in the
// open policy block (EOS applies a command in the mode the commands before
// it entered, as cfgLeavesBlock has it for interfaces).
func (b *cfgPolicyBlock) holds(f []string) bool {
	if f[0] == "no" && len(f) > 1 {
		f = f[1:]
	}
	switch b.mode {
	case "ip access-list":
		w := f[0]
		if _, err := strconv.Atoi(w); err == nil {
			if len(f) == 1 {
				return true // no SEQ
			}
			w = f[1]
		}
		return slices.Contains([]string{"permit", "deny", "remark", "statistics", "counters"}, w)
	case "class-map":
		return f[0] == "match"
	case "policy-map":
		return f[0] == "class" || f[0] == "set" || f[0] == "police"
	}
	return false
}

// policyLine reads a line of the open policy block (indent: its
// indentation; flat: the file has none, so a policy-map's actions belong
// to the class line before them).
func (p *cfgParser) policyLine(b *cfgPolicyBlock, f []string, indent int, flat bool, where cfgPos) error {
	line := strings.Join(f, " ")
	switch b.mode {
	case "ip access-list":
		return p.aclLine(b.acl, f, where)
	case "class-map":
		switch {
		case len(f) == 4 && f[0] == "match" && f[1] == "ip" && f[2] == "access-group":
			b.cmap.acls = append(b.cmap.acls, f[3])
		case len(f) == 4 && f[0] == "match" && f[1] == "ipv6" && f[2] == "access-group":
			b.cmap.never++
		case len(f) >= 3 && f[0] == "match" && f[1] == "dscp":
			if set, ok := cfgDSCPList(f[2:]); ok {
				b.cmap.dscps = append(b.cmap.dscps, set)
			} else {
				// A form labctl does not read (match dscp 26 ecn ce):
				// not decided, as before.
				b.cmap.undecided = append(b.cmap.undecided, line)
			}
		default:
			b.cmap.undecided = append(b.cmap.undecided, line)
		}
		return p.note("class-map", f, where)
	}
	// policy-map: a class line opens a class; what is deeper than it (or,
	// in a file without indentation, what follows it) is the class's.
	if f[0] == "class" && len(f) == 2 {
		// A class named again is edited, in its place.
		i := slices.IndexFunc(b.policy.classes, func(c *cfgPolicyClass) bool { return c.name == f[1] })
		if i < 0 {
			b.policy.classes = append(b.policy.classes, &cfgPolicyClass{name: f[1]})
			i = len(b.policy.classes) - 1
		}
		b.class, b.classIndent = b.policy.classes[i], indent
		return nil
	}
	if b.class == nil || (!flat && indent <= b.classIndent) {
		return p.note("policy-map", f, where)
	}
	c := b.class
	switch {
	case len(f) == 3 && f[0] == "set" && f[1] == "traffic-class":
		tc, err := cfgInt(f[2], 0, 7)
		if err != nil {
			return fmt.Errorf("%s: %q: traffic-class: %w", where, line, err)
		}
		c.tc = &tc
		return nil
	case len(f) >= 3 && f[0] == "no" && f[1] == "set" && f[2] == "traffic-class":
		c.tc = nil
		return nil
	case len(f) >= 2 && f[0] == "no":
		// no <action> removes the class's action of that statement.
		if st, ok := statementOf("policy-map class", f[1:]); ok {
			c.others = slices.DeleteFunc(c.others, func(o cfgAction) bool {
				ost, _ := statementOf("policy-map class", strings.Fields(o.line))
				return ost.syntax == st.syntax
			})
			return nil
		}
		return p.noteField("policy-map class", f, where)
	default:
		c.others = append(c.others, cfgAction{line: line, where: where})
	}
	// Its risk is the policy's to say, where a port takes it and a class
	// with the action matches RoCEv2 packets (applyPolicy).
	return p.noteField("policy-map class", f, where)
}

// aclLine reads an access-list entry: "[SEQ] permit|deny PROTOCOL SOURCE
// [PORTS] DESTINATION [PORTS] [OPTIONS...]" (a standard list's: "[SEQ]
// permit|deny SOURCE"), or "no SEQ", which removes entry SEQ. An entry
// without a sequence number takes the highest one's plus 10, as EOS
// numbers it. A list may serve what labctl does not read (management,
// control-plane): what an entry says that labctl cannot decide for
// RoCEv2 packets (a port name it does not know, a VLAN, a TTL) makes the
// entry undecided, never an error; only a policy that reaches it says so.
func (p *cfgParser) aclLine(a *cfgACL, f []string, where cfgPos) error {
	line := strings.Join(f, " ")
	if f[0] == "no" && len(f) == 2 {
		if n, err := strconv.Atoi(f[1]); err == nil {
			a.entries = slices.DeleteFunc(a.entries, func(e cfgACE) bool { return e.seq == n })
			return nil
		}
	}
	e := cfgACE{seq: 10, dscp: -1, line: line, where: where}
	if n := len(a.entries); n > 0 {
		e.seq = a.entries[n-1].seq + 10 // the highest's plus 10
	}
	if n, err := strconv.Atoi(f[0]); err == nil {
		e.seq, f = n, f[1:]
		if len(f) == 0 {
			return fmt.Errorf("%s: %q: a sequence number without an entry (fix: write SEQ permit|deny ...)", where, line)
		}
	}
	switch f[0] {
	case "permit", "deny":
		e.permit = f[0] == "permit"
	default:
		// remark, statistics per-entry, counters per-entry.
		return p.note("ip access-list", f, where)
	}
	rest := f[1:]
	undecided := func(what string) {
		if e.undecided == "" {
			e.undecided = what
		}
	}
	// An entry replaces the one of its sequence number, in its place.
	add := func() error {
		i, found := slices.BinarySearchFunc(a.entries, e.seq, func(x cfgACE, seq int) int { return x.seq - seq })
		if found {
			a.entries[i] = e
		} else {
			a.entries = slices.Insert(a.entries, i, e)
		}
		return nil
	}
	// addr reads an address (any, host A, A/len, A WILDCARD) from rest;
	// 0.0.0.0/0 and 0.0.0.0 255.255.255.255 are any.
	addr := func(what string) {
		switch {
		case len(rest) == 0:
			undecided("no " + what + " address")
		case rest[0] == "any" || rest[0] == "0.0.0.0/0":
			rest = rest[1:]
		case rest[0] == "host" && len(rest) >= 2:
			undecided("its " + what + " address host " + rest[1])
			rest = rest[2:]
		case strings.Contains(rest[0], "/"):
			undecided("its " + what + " address " + rest[0])
			rest = rest[1:]
		case len(rest) >= 2 && strings.Count(rest[0], ".") == 3 && strings.Count(rest[1], ".") == 3:
			if rest[0] != "0.0.0.0" || rest[1] != "255.255.255.255" {
				undecided("its " + what + " address " + rest[0] + " " + rest[1])
			}
			rest = rest[2:]
		default:
			undecided("its " + what + " " + rest[0])
			rest = rest[1:]
		}
	}
	if a.standard {
		addr("source")
		return add()
	}
	if len(rest) == 0 {
		undecided("no protocol")
		return add()
	}
	proto := rest[0]
	rest = rest[1:]
	l4 := proto == "udp" || proto == "tcp" || proto == "17" || proto == "6"
	switch proto {
	case "ip", "udp", "17":
	default:
		e.never = true // TCP, ICMP, OSPF, ...: no RoCEv2 packet
	}
	// ports reads a port match after an address of a TCP or UDP entry:
	// whether 4791 (dst) passes it; a source port match is undecided, as
	// is a port labctl cannot number.
	ports := func(dst bool) {
		if !l4 || len(rest) == 0 {
			return
		}
		op := rest[0]
		n := map[string]int{"eq": -1, "neq": -1, "gt": 1, "lt": 1, "range": 2}[op]
		if n == 0 {
			return // no port match
		}
		taken := []string{op}
		rest = rest[1:]
		var vals []int
		named := ""
		// The list ends at an option or, after a source port, at the
		// destination address.
		for len(rest) > 0 && !cfgACLOptions[rest[0]] && !cfgIsAddress(rest[0]) && (n < 0 || len(taken) <= n) {
			if v, ok := cfgPortNumber(rest[0]); ok {
				vals = append(vals, v)
			} else if named == "" {
				named = rest[0]
			}
			taken = append(taken, rest[0])
			rest = rest[1:]
		}
		switch {
		case !dst:
			undecided("its source port (" + strings.Join(taken, " ") + ")")
			return
		case named != "":
			undecided("its destination port name " + named)
			return
		case len(vals) == 0 || (n > 0 && len(vals) != n):
			undecided("a destination port " + op + " without ports")
			return
		}
		const roce = fabric.RoCEv2Port
		pass := false
		switch op {
		case "eq":
			pass = slices.Contains(vals, roce)
		case "neq":
			pass = !slices.Contains(vals, roce)
		case "gt":
			pass = roce > vals[0]
		case "lt":
			pass = roce < vals[0]
		case "range":
			pass = roce >= vals[0] && roce <= vals[1]
		}
		if !pass {
			e.never = true
		}
	}
	addr("source")
	ports(false)
	addr("destination")
	ports(true)
	for len(rest) > 0 {
		switch rest[0] {
		case "dscp":
			if len(rest) < 2 {
				undecided("a dscp without a value")
				rest = rest[1:]
				continue
			}
			d, err := cfgDSCP(rest[1])
			if err != nil {
				return fmt.Errorf("%s: %q: %w", where, line, err)
			}
			e.dscp, rest = d, rest[2:]
		case "fragments":
			e.never, rest = true, rest[1:] // RoCEv2 packets are not fragments
		case "log", "count":
			rest = rest[1:]
		default:
			// An option labctl does not read (ttl, tracked, ...), and its
			// arguments: the entry is undecided unless what follows rules
			// it out (a DSCP, fragments).
			undecided("the option " + rest[0])
			rest = rest[1:]
		}
	}
	return add()
}

// cfgACLOptions are the words that follow an access-list entry's
// addresses and ports: where a port list ends.
var cfgACLOptions = map[string]bool{
	"dscp": true, "fragments": true, "log": true, "count": true, "ttl": true, "tracked": true,
	"established": true, "ack": true, "fin": true, "psh": true, "rst": true, "syn": true, "urg": true,
	"nexthop-group": true, "ecn": true,
}

// cfgPortNames are the port names EOS takes beside numbers that labctl
// numbers (those an AI fabric's lists use; another name leaves its entry
// undecided).
var cfgPortNames = map[string]int{
	"ssh": 22, "telnet": 23, "smtp": 25, "domain": 53, "bootps": 67, "bootpc": 68, "tftp": 69,
	"www": 80, "http": 80, "ntp": 123, "snmp": 161, "snmptrap": 162, "bgp": 179, "https": 443,
	"syslog": 514, "ldp": 646,
}

// cfgIsAddress says whether an access-list word starts an address.
func cfgIsAddress(w string) bool {
	return w == "any" || w == "host" || strings.Contains(w, ".")
}

// cfgPortNumber is a port given by number or by a name cfgPortNames has.
func cfgPortNumber(s string) (int, bool) {
	if n, ok := cfgPortNames[s]; ok {
		return n, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n <= 65535
}

// cfgDSCPNames are the DSCP names EOS takes beside numbers.
var cfgDSCPNames = map[string]int{
	"default": 0, "ef": 46,
	"af11": 10, "af12": 12, "af13": 14, "af21": 18, "af22": 20, "af23": 22,
	"af31": 26, "af32": 28, "af33": 30, "af41": 34, "af42": 36, "af43": 38,
	"cs0": 0, "cs1": 8, "cs2": 16, "cs3": 24, "cs4": 32, "cs5": 40, "cs6": 48, "cs7": 56,
}

// cfgDSCPList reads match dscp's values: numbers 0-63 or names (af31),
// blank- or comma-separated, and ranges a-b. That EOS's class-maps take
// lists and ranges in this form is labctl's reading (EOS writes DSCP
// lists so elsewhere), not checked in Arista's manual; a value labctl
// cannot read leaves the statement undecided (ok false).
func cfgDSCPList(vals []string) (map[int]bool, bool) {
	set := map[int]bool{}
	for _, v := range vals {
		for part := range strings.SplitSeq(v, ",") {
			if part == "" {
				continue
			}
			if lo, hi, ok := strings.Cut(part, "-"); ok {
				a, err1 := cfgDSCP(lo)
				b, err2 := cfgDSCP(hi)
				if err1 != nil || err2 != nil || a > b {
					return nil, false
				}
				for d := a; d <= b; d++ {
					set[d] = true
				}
				continue
			}
			d, err := cfgDSCP(part)
			if err != nil {
				return nil, false
			}
			set[d] = true
		}
	}
	return set, len(set) > 0
}

// cfgDSCP reads a DSCP as a number 0-63 or a name (af31, ef, cs6).
func cfgDSCP(s string) (int, error) {
	if d, ok := cfgDSCPNames[s]; ok {
		return d, nil
	}
	d, err := strconv.Atoi(s)
	if err != nil || d < 0 || d > 63 {
		return 0, fmt.Errorf("dscp %q is not 0-63 or a name such as af31, ef or cs6 (fix: write the DSCP the class matches, like dscp 26)", s)
	}
	return d, nil
}

// aclMatch says whether access-list a matches a RoCEv2 packet of DSCP
// dscp: the first entry in sequence order that matches decides (permit
// matches, deny does not; none: no match, EOS's implicit deny); the entry
// that leaves it undecided, or nil.
func (a *cfgACL) match(dscp int) (bool, *cfgACE) {
	for i := range a.entries {
		e := &a.entries[i]
		if e.never || (e.dscp >= 0 && e.dscp != dscp) {
			continue
		}
		if e.undecided != "" {
			return false, e
		}
		return e.permit, nil
	}
	return false, nil
}

// cfgUndecided is why a policy is not decided for RoCEv2 packets, and
// what to change.
type cfgUndecided struct{ why, fix string }

// policyClasses resolves policy name for every DSCP of a RoCEv2 packet:
// the traffic class its first matching class sets (absent: the class sets
// none, or no class matches), and the actions the simulator does not run
// of the classes that match some DSCP; or why that cannot be decided.
func (p *cfgParser) policyClasses(name string) (map[int]int, []cfgAction, *cfgUndecided) {
	if r, ok := p.policyResolved[name]; ok {
		return r.tcs, r.others, r.undecided
	}
	tcs, others, u := p.resolvePolicy(name)
	p.policyResolved[name] = cfgPolicyResolution{tcs, others, u}
	return tcs, others, u
}

// cfgPolicyResolution is a policy-map's classes for RoCEv2 packets, as
// policyClasses gives them: resolved once for all the ports that take it
// (their PolicyTC is one read-only map).
type cfgPolicyResolution struct {
	tcs       map[int]int
	others    []cfgAction
	undecided *cfgUndecided
}

// resolvePolicy is policyClasses without its memory.
func (p *cfgParser) resolvePolicy(name string) (map[int]int, []cfgAction, *cfgUndecided) {
	pm := p.policies[name]
	if pm == nil {
		return nil, nil, &cfgUndecided{fmt.Sprintf("policy-map %s is not in the files read", name),
			fmt.Sprintf("give labctl the file that defines policy-map %s, or name a policy-map the files define", name)}
	}
	// class-default is EOS's last class, wherever the config lists it.
	classes := slices.Clone(pm.classes)
	slices.SortStableFunc(classes, func(x, y *cfgPolicyClass) int {
		return boolInt(x.name == "class-default") - boolInt(y.name == "class-default")
	})
	tcs := map[int]int{}
	var others []cfgAction
	for dscp := range 64 {
		for _, c := range classes {
			hit, u := p.classMatch(c.name, dscp)
			if u != nil {
				u.why = fmt.Sprintf("policy-map %s class %s: %s", name, c.name, u.why)
				return nil, nil, u
			}
			if !hit {
				continue
			}
			if c.tc != nil {
				tcs[dscp] = *c.tc
			}
			for _, o := range c.others {
				if !slices.Contains(others, o) {
					others = append(others, o)
				}
			}
			break
		}
	}
	return tcs, others, nil
}

// classMatch says whether class-map name (class-default: every packet)
// matches a RoCEv2 packet of DSCP dscp, or why that is not decided.
func (p *cfgParser) classMatch(name string, dscp int) (bool, *cfgUndecided) {
	if name == "class-default" {
		return true, nil
	}
	c := p.classMaps[name]
	switch {
	case c == nil:
		return false, &cfgUndecided{fmt.Sprintf("class-map %s is not in the files read", name),
			fmt.Sprintf("give labctl the file that defines class-map %s, or name a class-map the files define", name)}
	case len(c.undecided) > 0:
		return false, &cfgUndecided{fmt.Sprintf("%s: class-map %s matches by %q, which labctl does not decide", c.where, name, c.undecided[0]),
			"match RoCE by an IPv4 access-list (match ip access-group), or check the policy on a real switch: labctl runs the ports by their maps"}
	case c.matchAll && c.never > 0:
		return false, nil // no packet is IPv4 and IPv6 at once
	case c.matchAll && len(c.acls) > 1:
		return false, &cfgUndecided{fmt.Sprintf("%s: class-map %s is match-all over several access-lists, which labctl does not decide", c.where, name),
			"write the class as match-any over one access-list whose entries say what RoCE must match"}
	}
	// match dscp, decided by the packet's DSCP: match-any matches where
	// one of them lists it, match-all only where every one does (and
	// its access-list, if any, matches).
	for _, set := range c.dscps {
		switch {
		case !c.matchAll && set[dscp]:
			return true, nil
		case c.matchAll && !set[dscp]:
			return false, nil
		}
	}
	if c.matchAll && len(c.dscps) > 0 && len(c.acls) == 0 {
		return true, nil
	}
	for _, n := range c.acls {
		a := p.acls[n]
		if a == nil {
			return false, &cfgUndecided{fmt.Sprintf("class-map %s matches ip access-group %s, which is not in the files read", name, n),
				fmt.Sprintf("give labctl the file that defines ip access-list %s, or name a list the files define", n)}
		}
		hit, e := a.match(dscp)
		if e != nil {
			return false, &cfgUndecided{fmt.Sprintf("%s: entry %q of ip access-list %s depends on %s, which labctl does not decide for RoCEv2 packets", e.where, e.line, n, e.undecided),
				fmt.Sprintf("match RoCE in ip access-list %s by what labctl decides (ip or udp, any addresses, destination port 4791, the DSCP), or check the policy on a real switch: labctl runs the ports by their maps", n)}
		}
		if hit {
			return true, nil
		}
	}
	return false, nil
}

// cfgPolicyNote is what the simulator does not run of a service-policy,
// with the ports that take it (applyPolicy; made NotRuns by result).
type cfgPolicyNote struct {
	what, fix string
	ports     []string
}

// applyPolicy gives port pc its service-policy's classes (PolicyTC) where
// the policy decides RoCEv2's, and notes what the simulator does not run:
// a policy it cannot decide (the port then runs by its trust mode and
// maps, lint warns, QOS017), or actions beside set traffic-class of the
// classes that match RoCEv2 packets.
func (p *cfgParser) applyPolicy(pc *qos.PortConfig, policy *string) {
	if policy == nil || *policy == "" {
		return
	}
	name := *policy
	where := "service-policy type qos input " + name
	note := func(key, what, fix string) {
		n := p.policyNotes[key]
		if n == nil {
			n = &cfgPolicyNote{what: what, fix: fix}
			p.policyNotes[key] = n
		}
		n.ports = append(n.ports, pc.Name)
	}
	tcs, others, u := p.policyClasses(name)
	if u != nil {
		note(where, u.why+": labctl runs the ports that take the policy by their trust mode and maps, while the switch classifies RoCE by the policy, perhaps into another class", u.fix)
		return
	}
	if len(tcs) > 0 {
		pc.PolicyTC = tcs
		pc.Origins["policy_tc"] = "policy-map " + name
	}
	p.policyPorts[name] = append(p.policyPorts[name], pc.Name)
	// The actions beside set traffic-class whose statements say how they
	// change what the switch does to RoCE (set cos does not); set dscp is
	// lint's to judge by the DSCPs it meets (policyRemarkFilters).
	var risky, risks []string
	for _, o := range others {
		if st, ok := statementOf("policy-map class", strings.Fields(o.line)); ok && st.risk != "" && !cfgIsSetDSCP(o.line) {
			risky = append(risky, fmt.Sprintf("%s (%s)", o.line, o.where))
			if !slices.Contains(risks, st.risk) {
				risks = append(risks, st.risk)
			}
		}
	}
	if len(risky) > 0 {
		note(where+" (actions)", "a class of it that matches RoCEv2 packets also does "+strings.Join(risky, "; ")+", which labctl does not run (it runs the classes' set traffic-class): "+strings.Join(risks, "; "),
			"remove the action from the class, or check its effect on a real switch: labctl's figures do not show it")
	}
}

// policyRisks are the service-policy notes as what lint warns of, each
// naming the ports that take the policy.
func (p *cfgParser) policyRisks() {
	for key, n := range p.policyNotes {
		p.risks[key] = qos.NotRun{Where: key + " on " + qos.PortRanges(n.ports, p.order), What: n.what, Fix: n.fix}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// accessGroupPorts records that port filters by access-list g.acl in
// direction dir (ip access-group NAME in|out).
func (p *cfgParser) accessGroupPorts(dir string, g cfgAccessGroup, port string) {
	if p.groupPorts == nil {
		p.groupPorts, p.groupAt = map[[2]string][]string{}, map[[2]string]cfgPos{}
	}
	k := [2]string{g.acl, dir}
	p.groupPorts[k] = append(p.groupPorts[k], port)
	if _, ok := p.groupAt[k]; !ok {
		p.groupAt[k] = g.where
	}
}

// accessGroupFilters are the access-lists interfaces filter by (ip
// access-group NAME in|out) as the rules that meet RoCEv2 packets, each
// list's in sequence order (qos.PacketFilter): a deny entry drops the
// packets it matches, a permit forwards them, and a packet no entry
// matches meets EOS's implicit deny at the end of every access-list
// (the implicit deny all rule at the end of every list: Arista's EOS User
// Manual, chapter ACLs and Route Maps; not checked against a switch). An access-list the files do not define is a list of the
// implicit deny alone, which labctl does not decide (a warning): what EOS
// filters by until the list is made is not in the documentation labctl
// read.
func (p *cfgParser) accessGroupFilters(order []string) []qos.PacketFilter {
	var out []qos.PacketFilter
	keys := slices.SortedFunc(maps.Keys(p.groupPorts), func(a, b [2]string) int {
		return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1])
	})
	for _, k := range keys {
		name, dir := k[0], k[1]
		ports := p.groupPorts[k]
		slices.SortFunc(ports, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
		list := name + " " + dir
		a := p.acls[name]
		at := p.groupAt[k]
		if a != nil {
			at = a.where
			for _, e := range a.entries {
				if e.never {
					continue
				}
				f := qos.PacketFilter{List: list, Where: fmt.Sprintf("ip access-list %s %q", name, e.line), Source: e.where.src, Line: e.where.line, Ports: ports, Unsure: e.undecided}
				if e.dscp >= 0 {
					f.DSCPs = []int{e.dscp}
				}
				if !e.permit {
					f.Harm = "deny: the switch drops them"
				}
				out = append(out, f)
			}
		}
		f := qos.PacketFilter{List: list, Where: fmt.Sprintf("ip access-list %s's implicit deny", name), Source: at.src, Line: at.line, Ports: ports,
			Harm: "no entry permits them, and EOS's implicit deny at the end of every access-list drops them"}
		if a == nil {
			f.Where = fmt.Sprintf("ip access-group %s %s", name, dir)
			f.Unsure = fmt.Sprintf("the entries of access-list %s, which the files read do not define", name)
		}
		out = append(out, f)
	}
	return out
}

// cfgIsSetDSCP says whether a policy-map class's action is set dscp.
func cfgIsSetDSCP(line string) bool {
	f := strings.Fields(line)
	return len(f) == 3 && f[0] == "set" && f[1] == "dscp"
}

// policyRemarkFilters are the classes of the policy-maps ports take
// (service-policy type qos input) that re-mark packets (set dscp D), as
// the rules lint's QOS017 judges (qos.PacketFilter with Remark): each
// class decides the DSCPs of RoCEv2 packets it is the first class to
// match (the policy's order, class-default last, as resolvePolicy takes
// them), and writes D into them as the port receives them, so that every
// switch after this one classifies them by D. A class's packets of DSCP D
// already are not re-marked (no rule for them). EOS applies the last set
// dscp of a class (labctl's reading: a second set dscp line replaces the
// first, as set traffic-class's does). Whether this switch's own
// classification follows the new DSCP where the class sets no traffic
// class is not in the documentation labctl read: it classifies by the
// policy's set traffic-class, else the port's trust and maps, of the
// DSCP the packet came with. set cos is not a re-mark of what the next
// switch reads: the lab's links are untagged.
func (p *cfgParser) policyRemarkFilters(order []string) []qos.PacketFilter {
	var out []qos.PacketFilter
	for _, name := range slices.Sorted(maps.Keys(p.policyPorts)) {
		pm := p.policies[name]
		if pm == nil {
			continue
		}
		ports := slices.Clone(p.policyPorts[name])
		slices.SortFunc(ports, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
		ports = slices.Compact(ports)
		classes := slices.Clone(pm.classes)
		slices.SortStableFunc(classes, func(x, y *cfgPolicyClass) int {
			return boolInt(x.name == "class-default") - boolInt(y.name == "class-default")
		})
		// decides: the DSCPs each class is the first to match.
		decides := map[*cfgPolicyClass][]int{}
		for dscp := range 64 {
			for _, c := range classes {
				if hit, u := p.classMatch(c.name, dscp); u == nil && hit {
					decides[c] = append(decides[c], dscp)
					break
				}
			}
		}
		for _, c := range classes {
			var set *cfgAction
			for i := range c.others {
				if cfgIsSetDSCP(c.others[i].line) {
					set = &c.others[i]
				}
			}
			if set == nil || len(decides[c]) == 0 {
				continue
			}
			d, err := cfgDSCP(strings.Fields(set.line)[2])
			if err != nil {
				continue // refused at its line when read
			}
			dscps := slices.DeleteFunc(slices.Clone(decides[c]), func(x int) bool { return x == d })
			if len(dscps) == 0 {
				continue
			}
			out = append(out, qos.PacketFilter{List: "policy-map " + name, Where: fmt.Sprintf("policy-map %s class %s %q", name, c.name, set.line),
				Source: set.where.src, Line: set.where.line, Ports: ports, DSCPs: dscps, Remark: &d,
				Harm: fmt.Sprintf("its class %s does %s", c.name, set.line)})
		}
	}
	return out
}
