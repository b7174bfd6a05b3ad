package eos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
// EOS evaluates them (sequence numbers, then the order given).
type cfgACL struct {
	standard bool
	entries  []cfgACE
	where    cfgPos
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
}

// cfgClassMap is a "class-map type qos [match-any|match-all] NAME".
type cfgClassMap struct {
	acls  []string // match ip access-group
	never int      // match ipv6 access-group: no IPv4 packet matches
	// undecided are match statements labctl does not decide.
	undecided []string
	matchAll  bool
	where     cfgPos
}

// cfgPolicy is a "policy-map type quality-of-service NAME".
type cfgPolicy struct {
	classes []*cfgPolicyClass
	where   cfgPos
}

// cfgPolicyClass is one "class NAME" of a policy-map and its actions.
type cfgPolicyClass struct {
	name string
	tc   *int // set traffic-class
	// others are the class's actions the simulator does not run (set
	// dscp, set drop-precedence, set cos, police).
	others []string
	where  cfgPos
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
		a := &cfgACL{standard: standard, where: where}
		p.acls[name] = a
		return &cfgPolicyBlock{mode: "ip access-list", acl: a, classIndent: -1}, nil
	case len(f) >= 4 && f[0] == "class-map" && f[1] == "type" && f[2] == "qos":
		rest := f[3:]
		c := &cfgClassMap{where: where}
		switch rest[0] {
		case "match-any":
			rest = rest[1:]
		case "match-all":
			c.matchAll, rest = true, rest[1:]
		}
		if len(rest) != 1 {
			return nil, fmt.Errorf("%s: %q: want class-map type qos [match-any] NAME", where, strings.Join(f, " "))
		}
		p.classMaps[rest[0]] = c
		return &cfgPolicyBlock{mode: "class-map", cmap: c, classIndent: -1}, nil
	case len(f) == 4 && f[0] == "policy-map" && f[1] == "type" && (f[2] == "quality-of-service" || f[2] == "qos"):
		pm := &cfgPolicy{where: where}
		p.policies[f[3]] = pm
		return &cfgPolicyBlock{mode: "policy-map", policy: pm, classIndent: -1}, nil
	}
	return nil, nil
}

// holds says whether a line of a file without indentation stays in the
// open policy block (EOS applies a command in the mode the commands before
// it entered, as cfgLeavesBlock has it for interfaces).
func (b *cfgPolicyBlock) holds(f []string) bool {
	switch b.mode {
	case "ip access-list":
		w := f[0]
		if _, err := strconv.Atoi(w); err == nil && len(f) > 1 {
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
		default:
			b.cmap.undecided = append(b.cmap.undecided, line)
		}
		return p.note("class-map", f, where)
	}
	// policy-map: a class line opens a class; what is deeper than it (or,
	// in a file without indentation, what follows it) is the class's.
	if f[0] == "class" && len(f) == 2 {
		c := &cfgPolicyClass{name: f[1], where: where}
		b.policy.classes = append(b.policy.classes, c)
		b.class, b.classIndent = c, indent
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
	case len(f) >= 2 && f[0] == "no" && f[1] == "set" && len(f) >= 3 && f[2] == "traffic-class":
		c.tc = nil
		return nil
	default:
		c.others = append(c.others, line)
	}
	return p.note("policy-map class", f, where)
}

// aclLine reads an access-list entry: "[SEQ] permit|deny PROTOCOL SOURCE
// [PORTS] DESTINATION [PORTS] [OPTIONS...]" (a standard list's: "[SEQ]
// permit|deny SOURCE"). An entry without a sequence number takes the
// last one's plus 10, as EOS numbers it.
func (p *cfgParser) aclLine(a *cfgACL, f []string, where cfgPos) error {
	line := strings.Join(f, " ")
	e := cfgACE{seq: 10, dscp: -1, line: line}
	if n := len(a.entries); n > 0 {
		e.seq = a.entries[n-1].seq + 10
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
	// addr reads an address (any, host A, A/len, A WILDCARD) from rest.
	addr := func(what string) error {
		switch {
		case len(rest) == 0:
			return fmt.Errorf("%s: %q: no %s address (fix: write any, host A.B.C.D or A.B.C.D/len)", where, line, what)
		case rest[0] == "any":
			rest = rest[1:]
		case rest[0] == "host" && len(rest) >= 2:
			undecided(what + " address host " + rest[1])
			rest = rest[2:]
		case strings.Contains(rest[0], "/"):
			undecided(what + " address " + rest[0])
			rest = rest[1:]
		case len(rest) >= 2 && strings.Count(rest[0], ".") == 3 && strings.Count(rest[1], ".") == 3:
			undecided(what + " address " + rest[0] + " " + rest[1])
			rest = rest[2:]
		default:
			return fmt.Errorf("%s: %q: %q is no %s address (fix: write any, host A.B.C.D or A.B.C.D/len)", where, line, rest[0], what)
		}
		return nil
	}
	if a.standard {
		if err := addr("source"); err != nil {
			return err
		}
		a.entries = append(a.entries, e)
		return nil
	}
	if len(rest) == 0 {
		return fmt.Errorf("%s: %q: no protocol (fix: write permit|deny ip|udp|tcp SOURCE DESTINATION)", where, line)
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
	// whether 4791 (dst) passes it; a source port match is undecided.
	ports := func(dst bool) error {
		if !l4 || len(rest) == 0 {
			return nil
		}
		op := rest[0]
		var vals []int
		n := 0
		switch op {
		case "eq", "neq":
			for _, w := range rest[1:] {
				v, err := strconv.Atoi(w)
				if err != nil {
					break
				}
				vals = append(vals, v)
				n++
			}
		case "gt", "lt":
			if len(rest) >= 2 {
				if v, err := strconv.Atoi(rest[1]); err == nil {
					vals, n = []int{v}, 1
				}
			}
		case "range":
			if len(rest) >= 3 {
				lo, err1 := strconv.Atoi(rest[1])
				hi, err2 := strconv.Atoi(rest[2])
				if err1 == nil && err2 == nil {
					vals, n = []int{lo, hi}, 2
				}
			}
		default:
			return nil // no port match
		}
		if n == 0 {
			return fmt.Errorf("%s: %q: %s needs port numbers (fix: write %s 4791; labctl reads ports by number)", where, line, op, op)
		}
		rest = rest[1+n:]
		if !dst {
			undecided("source port " + op + " " + strings.Trim(fmt.Sprint(vals), "[]"))
			return nil
		}
		const roce = 4791
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
		return nil
	}
	if err := addr("source"); err != nil {
		return err
	}
	if err := ports(false); err != nil {
		return err
	}
	if err := addr("destination"); err != nil {
		return err
	}
	if err := ports(true); err != nil {
		return err
	}
	for len(rest) > 0 {
		switch rest[0] {
		case "dscp":
			if len(rest) < 2 {
				return fmt.Errorf("%s: %q: dscp needs a value (fix: write dscp 26 or dscp af31)", where, line)
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
			undecided("option " + strings.Join(rest, " "))
			rest = nil
		}
	}
	a.entries = append(a.entries, e)
	return nil
}

// cfgDSCPNames are the DSCP names EOS takes beside numbers.
var cfgDSCPNames = map[string]int{
	"default": 0, "ef": 46,
	"af11": 10, "af12": 12, "af13": 14, "af21": 18, "af22": 20, "af23": 22,
	"af31": 26, "af32": 28, "af33": 30, "af41": 34, "af42": 36, "af43": 38,
	"cs0": 0, "cs1": 8, "cs2": 16, "cs3": 24, "cs4": 32, "cs5": 40, "cs6": 48, "cs7": 56,
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
// dscp: the first entry that matches decides (permit matches, deny does
// not; none: no match, EOS's implicit deny); "" or what undecides it.
func (a *cfgACL) match(dscp int) (bool, string) {
	entries := slices.Clone(a.entries)
	slices.SortStableFunc(entries, func(x, y cfgACE) int { return x.seq - y.seq })
	for _, e := range entries {
		if e.never || (e.dscp >= 0 && e.dscp != dscp) {
			continue
		}
		if e.undecided != "" {
			return false, fmt.Sprintf("entry %q matches on the %s, which labctl does not model for its packets", e.line, e.undecided)
		}
		return e.permit, ""
	}
	return false, ""
}

// policyClasses resolves policy name for every DSCP of a RoCEv2 packet:
// the traffic class its first matching class sets (absent: the class sets
// none, or no class matches), and, where that cannot be decided, why
// (undecided not ""). others are the actions of the classes that match
// some DSCP that the simulator does not run.
func (p *cfgParser) policyClasses(name string) (tcs map[int]int, others []string, undecided string) {
	pm := p.policies[name]
	if pm == nil {
		return nil, nil, fmt.Sprintf("policy-map %s is not in the files read", name)
	}
	// class-default is EOS's last class, wherever the config lists it.
	classes := slices.Clone(pm.classes)
	slices.SortStableFunc(classes, func(x, y *cfgPolicyClass) int {
		return boolInt(x.name == "class-default") - boolInt(y.name == "class-default")
	})
	tcs = map[int]int{}
	for dscp := range 64 {
		for _, c := range classes {
			hit, why := p.classMatch(c.name, dscp)
			if why != "" {
				return nil, nil, fmt.Sprintf("policy-map %s class %s: %s", name, c.name, why)
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
	return tcs, others, ""
}

// classMatch says whether class-map name (class-default: every packet)
// matches a RoCEv2 packet of DSCP dscp, or why that is not decided.
func (p *cfgParser) classMatch(name string, dscp int) (bool, string) {
	if name == "class-default" {
		return true, ""
	}
	c := p.classMaps[name]
	if c == nil {
		return false, fmt.Sprintf("class-map %s is not in the files read", name)
	}
	if len(c.undecided) > 0 {
		return false, fmt.Sprintf("class-map %s matches by %q, which labctl does not decide", name, c.undecided[0])
	}
	if c.matchAll && len(c.acls)+c.never > 1 {
		return false, fmt.Sprintf("class-map %s is match-all over several matches, which labctl does not decide", name)
	}
	for _, n := range c.acls {
		a := p.acls[n]
		if a == nil {
			return false, fmt.Sprintf("class-map %s matches ip access-group %s, which is not in the files read", name, n)
		}
		hit, why := a.match(dscp)
		if why != "" {
			return false, fmt.Sprintf("ip access-list %s %s", n, why)
		}
		if hit {
			return true, ""
		}
	}
	return false, ""
}

// applyPolicy gives port pc its service-policy's classes (PolicyTC) where
// the policy decides RoCEv2's, and notes what the simulator does not run:
// a policy it cannot decide (the port then runs by its trust mode and
// maps, lint warns, QOS017), or actions beside set traffic-class.
func (p *cfgParser) applyPolicy(pc *qos.PortConfig, policy *string) {
	if policy == nil || *policy == "" {
		return
	}
	name := *policy
	where := "service-policy type qos input " + name
	tcs, others, why := p.policyClasses(name)
	if why != "" {
		p.risks[where] = qos.NotRun{Where: where, What: why + ": labctl runs the ports that take the policy by their trust mode and maps, while the switch classifies RoCE by the policy, perhaps into another class"}
		return
	}
	if len(tcs) > 0 {
		pc.PolicyTC = tcs
		pc.Origins["policy_tc"] = "policy-map " + name
	}
	// The actions beside set traffic-class whose statements say how they
	// change what the switch does to RoCE (set cos does not).
	var risky, risks []string
	for _, o := range others {
		if st, ok := statementOf("policy-map class", strings.Fields(o)); ok && st.risk != "" {
			risky = append(risky, o)
			if !slices.Contains(risks, st.risk) {
				risks = append(risks, st.risk)
			}
		}
	}
	if len(risky) > 0 {
		p.risks[where+" (actions)"] = qos.NotRun{Where: where, What: "a class of it that matches RoCEv2 packets also does " + strings.Join(risky, "; ") + ", which labctl does not run (it runs the classes' set traffic-class): " + strings.Join(risks, "; ")}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
