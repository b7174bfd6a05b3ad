package eos

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/suggest"
)

// cfgBlock is the QoS a qos profile or an interface sets. Pointers and
// maps distinguish "not said" from "said off", so an interface can
// override its service-profile line by line.
type cfgBlock struct {
	// name is the block's head: "interface Ethernet1", "qos profile ROCE".
	name       string
	pfcOn      *bool
	noDrop     map[int]bool // priority -> true (no-drop) / false (drop)
	qosLine    bool         // any QoS statement: a QoS port
	trust      *string      // qos.TrustDSCP, TrustCoS or TrustNone
	cos        *int         // qos cos N: the default CoS
	routed     *bool        // no switchport / switchport
	profile    string
	queues     map[int]*cfgQueue
	wd         *bool
	wdAction   string
	wdTimeout  int // ms, 0 unset
	wdRecovery int // ms, 0 unset
	// wdPoll is the port timer's polling-interval in ms (0: auto, the
	// global default's; nil: unset).
	wdPoll *int
	mtu    int
	// mtuDefault: no mtu (default mtu) said, so the port takes EOS's
	// default MTU (interface defaults mtu, else 1500), where an interface
	// that says nothing of it takes labctl's assumption (see no mtu).
	mtuDefault bool
	// mtuRefused is the last mtu line EOS refuses (out of range), which
	// leaves the MTU as it was; "" for none.
	mtuRefused string
	// defaultSwitchport is where default switchport is said (the last
	// one, unless a later switchport or no switchport undoes it), "" for
	// none: the port is in the switch's default mode (switchport default
	// mode, else a switchport).
	defaultSwitchport string
	// switchportLine is the block's first line that starts with
	// switchport (switchport access vlan 10, switchport mode trunk, or
	// switchport itself) with its place, "" for none: what
	// qos.PortConfig.L2 names of a port EOS keeps L2.
	switchportLine string
	// switchportAt is where the block's own switchport line is (the last
	// one, unless a later no switchport or default switchport undoes it),
	// "" for none: qos.PortConfig.Switched.
	switchportAt string
	// shutdown is the interface's shutdown (true) or no shutdown
	// (false); nil: not said, EOS's default for an Ethernet port, up.
	shutdown *bool
	// speed is the interface's speed statement, its Gb/s (0: not said,
	// or auto-negotiated) and the line, for lint to point at.
	speedGbps int
	speedLine string
	// bridged is the interface's vlan id or vlan name line, which makes
	// a subinterface an L2 one (bridging, not routed); "" for none.
	bridged string
	// flexEncap is a subinterface's FlexEncap (encapsulation vlan): its
	// client line ("client dot1q 200"), or "encapsulation vlan" where none
	// follows; "" for none. Without vlan id and an address it makes the
	// subinterface a pseudowire's attachment (cfgPseudowire).
	flexEncap string
	// ipAddr and ip6Addr: the interface's ip address, ipv6 address line
	// (it terminates at L3), "" for none; of several, the last that is
	// not a secondary one (the renderer writes a port channel's back,
	// qos.PortConfig.Origins["channel_address"]). ip6Enable: it says ipv6 enable, IPv6
	// on its link-local address alone, as an RFC 5549 fabric routes
	// (IPv4 over IPv6 next hops; the EOS configs of ksator's
	// underlay-protocols-comparison put ipv6 enable without an address on
	// the leaf-spine links of its RFC5549 underlay): it terminates at L3
	// too.
	ipAddr, ip6Addr string
	ip6Enable       bool
	// ipLine is the interface's last line of IP configuration (an ip or
	// ipv6 address, ipv6 enable) with its place while it has any, ""
	// otherwise: qos.PortConfig.L2Harm of a port EOS keeps L2, which
	// ignores it.
	ipLine string
	// channel is the port-channel the interface is a member of
	// (channel-group N): "Port-Channel<N>".
	channel string
	// channelMode is its channel-group's mode: active, passive or on.
	channelMode string
	// lacpFallback is a port-channel's port-channel lacp fallback kind,
	// as qos.PortConfig.ChannelFallback takes it: "individual", "static"
	// (the form's default), "" for none.
	lacpFallback string
	// minLinks is a port-channel's port-channel min-links (0 for none),
	// minLinksAt where it is said: qos.PortConfig.ChannelMinLinks.
	minLinks   int
	minLinksAt cfgPos
	// shape is the port's own shape rate (all its queues together).
	shape cfgShape
	// policy is the service-policy type qos input's policy-map ("" for
	// no service-policy, which overrides a qos profile's; nil: not said).
	policy *string
	// accessGroups are the interface's ip access-group lines, by
	// direction ("in", "out"): the access-list each filters by.
	accessGroups map[string]cfgAccessGroup
	where        cfgPos
}

// cfgAccessGroup is an interface's ip access-group line: the access-list
// and where the line stands.
type cfgAccessGroup struct {
	acl   string
	where cfgPos
}

// cfgPos is a file and line, formatted only when an error needs it; src
// is the file's index in Parse's sources (qos.Overruled.Source).
type cfgPos struct {
	file string
	line int
	src  int
}

func (p cfgPos) String() string { return fmt.Sprintf("%s:%d", p.file, p.line) }

type cfgQueue struct {
	// origin is where the queue was last configured: "qos profile ROCE
	// tx-queue 3 (leaf1.cfg:35)", for lint to point at.
	origin   string
	strict   *bool
	strictAt cfgPos // where priority strict or no priority was said
	weight   int
	ecn      *qos.ECNConfig
	noECN    bool // no random-detect ecn (overrides a profile's)
	// drop is the queue's random-detect drop of each drop precedence
	// (0 green, 1 yellow, 2 red: random-detect drop drop-precedence N),
	// noDrop a no random-detect drop (which overrides a profile's).
	drop    [cfgDropPrecedences]*qos.ECNConfig
	noDrop  [cfgDropPrecedences]bool
	touched bool
	// ecnNoProb says the random-detect ecn line gives no
	// max-mark-probability, so labctl's assumed 100% applies.
	ecnNoProb bool
	// guaranteed says the queue sets bandwidth guaranteed (false: no
	// bandwidth guaranteed). Not simulated; it decides only whether the
	// PFC watchdog's coverage of the queue rests on labctl's assumption
	// (srcEOSWatchdogQueues).
	guaranteed *bool
	// guaranteedRate is the bandwidth guaranteed line's rate, as written
	// after guaranteed ("percent 10", "150000000", "10 mbps").
	guaranteedRate string
	// shape is the queue's shape rate.
	shape cfgShape
}

// cfgDropPrecedences are EOS's drop precedences, the colours green (0),
// yellow (1) and red (2): the TOI "Drop Threshold per Color per TxQueue"
// (EOS 4.22.0F, https://eos.arista.com/author/7448-sahil/) sets WRED
// thresholds "per color (drop precedence) per tx queue" and maps a DSCP to
// a tx-queue and a colour; that precedence n is the n-th of green, yellow,
// red is labctl's reading of it. Packets no policer or map colours are
// green.
const cfgDropPrecedences = len(qos.DropPrecedences)

func newCfgBlock(where cfgPos) *cfgBlock {
	return &cfgBlock{noDrop: map[int]bool{}, queues: map[int]*cfgQueue{}, where: where}
}

// cfgParser accumulates what the files say.
type cfgParser struct {
	dscp map[int]int
	// dscpDP is the drop precedence (colour) qos map dscp gives a DSCP,
	// where it gives one other than 0.
	dscpDP  map[int]int
	cos     map[int]int
	tcQueue map[int]int
	// rewriteDSCP is qos rewrite dscp (rewriteAt its line): the switch
	// writes tcDSCP's DSCP (qos map traffic-class N to dscp D, each
	// entry's line in tcDSCPAt) into the packets of each class it sends.
	rewriteDSCP                   bool
	rewriteAt                     cfgPos
	tcDSCP                        map[int]int
	tcDSCPAt                      map[int]cfgPos
	profiles                      map[string]*cfgBlock
	intfs                         map[string]*cfgBlock
	order                         []string
	pfcAllOff                     bool
	wdTimeout, wdRecovery, wdPoll int
	wdAction                      string
	// defMTU and defShutdown are interface defaults' mtu (0: none) and
	// ethernet shutdown (nil: not said); defMode is switchport default
	// mode's ("routed", "access"; "": not said).
	defMTU      int
	defShutdown *bool
	defMode     string
	notes       []string
	// fields collects the statements present that the simulator does not
	// run (lint only, ignored, not recognised); risks those of them that
	// change what the switch does to RoCE.
	fields map[string]qos.FieldNote
	risks  map[string]qos.NotRun
	srcIdx int // the index of the file being read
	// overruled are the statements EOS applies otherwise than they
	// read, one per statement (a qos profile's line serves many ports).
	overruled []qos.Overruled
	overAt    map[cfgPos]int
	// maxMTUAt are the mtu lines above PlatformMaxMTU that EOS refuses
	// (entries of overruled, by line), whose answer, one line a port,
	// result quotes once every port of the line is known.
	maxMTUAt map[cfgPos]bool
	// The access-lists, class-maps and policy-maps (type qos) by name
	// (policy.go).
	acls map[string]*cfgACL
	// groupPorts are the ports each access-list filters by direction
	// (ip access-group NAME in|out), and groupAt a line binding it.
	groupPorts  map[[2]string][]string
	groupAt     map[[2]string]cfgPos
	classMaps   map[string]*cfgClassMap
	policies    map[string]*cfgPolicy
	policyNotes map[string]*cfgPolicyNote
	// policyResolved are the policy-maps resolved so far (policyClasses),
	// after every file is read.
	policyResolved map[string]cfgPolicyResolution
	// policyPorts are the ports that take each decided policy-map
	// (applyPolicy), for its classes' set dscp (policyRemarkFilters).
	policyPorts map[string][]string
	// expanded are the notes on lines read otherwise than written
	// (keyword prefixes expanded, keywords folded to lower case: expand),
	// noted once each.
	expanded map[cfgNoted]bool
}

// Parse reads one device's EOS configuration (a running-config, or parts
// of one in several files, read in order) into the QoS model, as EOS's QoS
// agent applies it: each interface's statements over its service-profile's,
// the global maps, and EOS's defaults where the configuration is silent
// (named in Defaults).
//
// Interface blocks mix unrelated settings; only QoS lines are read. PFC
// may be given as `priority-flow-control on`, `priority-flow-control
// priority N no-drop|drop`, `no priority-flow-control`, and through
// `service-profile NAME` pointing at a `qos profile NAME` block, whose
// lines the interface's own lines override. Interfaces without any QoS line
// are not ports of the result.
func Parse(device string, srcs ...qos.Source) (qos.DeviceConfig, error) {
	p := &cfgParser{dscp: map[int]int{}, tcDSCP: map[int]int{}, tcDSCPAt: map[int]cfgPos{}, dscpDP: map[int]int{}, cos: map[int]int{}, tcQueue: map[int]int{}, profiles: map[string]*cfgBlock{}, intfs: map[string]*cfgBlock{}, fields: map[string]qos.FieldNote{}, risks: map[string]qos.NotRun{},
		acls: map[string]*cfgACL{}, classMaps: map[string]*cfgClassMap{}, policies: map[string]*cfgPolicy{}, policyNotes: map[string]*cfgPolicyNote{}, policyResolved: map[string]cfgPolicyResolution{}, policyPorts: map[string][]string{}}
	for i, s := range srcs {
		p.srcIdx = i
		if err := p.file(s); err != nil {
			return qos.DeviceConfig{}, fmt.Errorf("parse eos config of %s: %w", device, err)
		}
	}
	return p.result(device), nil
}

// cfgTopLevel are first words of EOS running-config statements; a file
// with none of them is not an EOS config, whatever else it holds.
var cfgTopLevel = map[string]bool{
	"!": true, "end": true, "interface": true, "qos": true, "priority-flow-control": true,
	"hostname": true, "router": true, "ip": true, "ipv6": true, "vlan": true, "management": true,
	"username": true, "service": true, "spanning-tree": true, "platform": true, "transceiver": true,
	"daemon": true, "aaa": true, "logging": true, "ntp": true, "snmp-server": true, "no": true,
	"errdisable": true, "vrf": true, "dns": true, "clock": true, "policy-map": true, "class-map": true,
	"hardware": true, "mlag": true, "monitor": true, "event-handler": true, "banner": true,
	"route-map": true, "prefix-list": true, "peer-filter": true, "switchport": true, "queue-monitor": true,
	"system": true, "enable": true, "tacacs-server": true, "radius-server": true, "lldp": true,
	"mac": true, "load-interval": true, "dot1x": true, "sflow": true, "tap": true, "tcam": true,
}

// cfgCheckText rejects input that is not EOS CLI text, so that a binary
// file, a JSON document or an unrelated text cannot lint clean.
func cfgCheckText(src qos.Source) error {
	data := src.Data
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return fmt.Errorf("%s: the file is empty, not an EOS config (fix: give a running-config, for example from 'show running-config')", src.Name)
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data):
		return fmt.Errorf("%s: binary data, not an EOS config (fix: give the text of 'show running-config')", src.Name)
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		// The mark would be the first word's start: EOS would reject the
		// first command, and the parser miss it.
		return fmt.Errorf("%s:1: the file starts with a UTF-8 byte-order mark, which is no part of EOS CLI text (fix: save the file as UTF-8 without a byte-order mark)", src.Name)
	}
	if t := bytes.TrimSpace(data); t[0] == '{' || t[0] == '[' {
		return fmt.Errorf("%s:1: JSON, not EOS CLI text (fix: a SONiC config_db file needs --nos sonic)", src.Name)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 && cfgTopLevel[strings.ToLower(f[0])] && f[0] != "!" {
			return nil
		}
	}
	return fmt.Errorf("%s: no EOS configuration statements found (fix: give a running-config with lines such as 'interface Ethernet1' or 'qos map dscp 26 to traffic-class 3')", src.Name)
}

// note records a statement present that the simulator does not run, or
// one the parser does not recognise. A statement whose keyword is one
// edit from a keyword of its mode (minimum-treshold) is a typo
// EOS would reject ("% Invalid input"), not a statement labctl does not
// know: an error at its line, for a misspelt ECN or PFC line otherwise
// leaves the switch without ECN or PFC unseen.
func (p *cfgParser) note(mode string, f []string, where cfgPos) error {
	if s, ok := statementOf(mode, f); ok && s.risk != "" {
		p.risks[s.mode+" "+s.syntax] = qos.NotRun{Where: fmt.Sprintf("%s %q", s.mode, strings.Join(f, " ")), What: s.risk}
	}
	return p.noteField(mode, f, where)
}

// noteField is note without the statement's risk: for a statement whose
// effect on RoCE depends on where it applies, which its reader says.
func (p *cfgParser) noteField(mode string, f []string, where cfgPos) error {
	if s, ok := statementOf(mode, f); ok {
		if s.use != qos.UseSimulated {
			p.fields[s.mode+" "+s.syntax] = qos.FieldNote{Field: s.mode + " " + s.syntax, Use: s.use, Why: s.why}
		}
		return nil
	}
	if word, meant := misspelt(mode, f); meant != "" {
		return fmt.Errorf("%s: %q: %s", where, strings.Join(f, " "), cfgMisspelt(word, meant, ""))
	}
	name := mode + " " + cfgStatement(f)
	p.fields[name] = qos.FieldNote{Field: name, Use: qos.UseIgnored, Why: "not a statement labctl recognises"}
	return nil
}

func (p *cfgParser) file(src qos.Source) error {
	if err := cfgCheckText(src); err != nil {
		return err
	}
	flat := cfgFlat(src.Data)
	sc := bufio.NewScanner(bytes.NewReader(src.Data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	// cur are the blocks being read: a qos profile, or the interfaces an
	// interface line names (a range names several, each given every
	// statement that follows); q their tx-queue being read.
	var cur []*cfgBlock
	curMode := ""
	// pol is the access-list, class-map or policy-map being read.
	var pol *cfgPolicyBlock
	// idef: an interface defaults block is open; idefEth: its ethernet
	// sub-block.
	idef, idefEth := false, false
	var q []*cfgQueue
	qIndent := -1
	inComment := false
	lineNo := 0
	endAt := 0 // the line of an end statement not yet followed by another
	for sc.Scan() {
		lineNo++
		// EOS indents sub-modes with spaces; a tab counts as one level.
		raw := strings.ReplaceAll(strings.TrimRight(sc.Text(), " \t\r"), "\t", "   ")
		text := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " "))
		where := cfgPos{src.Name, lineNo, p.srcIdx}
		if inComment {
			if text == "EOF" {
				inComment = false
			}
			continue
		}
		if text == "" || strings.HasPrefix(text, "!") {
			continue
		}
		if text == "end" {
			endAt = lineNo
			cur, q, qIndent, curMode, pol = nil, nil, -1, "", nil
			continue
		}
		if endAt > 0 {
			// EOS leaves configuration mode at end: what follows is read
			// as configuration again only where the file is applied in
			// pieces (labctl does not know how it is loaded).
			p.notes = append(p.notes, fmt.Sprintf("%s:%d: end leaves configuration mode, and the file goes on at line %d: labctl reads the statements after it as configuration, as a file applied in pieces has them; a switch loading the file in one configuration session may not apply them (fix: end the file with end, once)", src.Name, endAt, lineNo))
			endAt = 0
		}
		f := strings.Fields(text)
		f = p.fold(f, cfgFoldOpener(f), where)
		if indent == 0 && flat && (len(cur) > 0 && !cfgLeavesBlock(curMode, f, q != nil) || pol != nil && pol.holds(f) || idef && cfgDefaultsHolds(f)) {
			// A file without indentation: the line stays in the open
			// block, as EOS applies it (cfgLeavesBlock, holds).
			indent = 1
		} else if indent == 0 && len(cur) > 0 {
			// An indented file with one of the open block's (or its
			// tx-queue's) statements at column 0, an editing slip: EOS
			// applies a command in the mode the commands before it
			// entered, whatever the indentation (cfgLeavesBlock), so it
			// stays there, and a note says so. Lines labctl does not know
			// at column 0 leave the block, as global ones usually do.
			_, ofBlock := statementOfLine(curMode, f)
			_, ofQueue := statementOfLine("tx-queue", f)
			// A statement the global mode has too (qos rewrite dscp) is
			// read as global at column 0, as the switch's own
			// running-config places it after the interfaces.
			_, global := statementOf("global", f)
			if ofQueue = ofQueue && q != nil; (ofBlock || ofQueue) && !global {
				indent = 1
				what := curMode
				if ofQueue {
					indent, what = qIndent+1, "tx-queue"
				}
				p.notes = append(p.notes, fmt.Sprintf("%s: %q is at column 0 inside the %s above it: labctl reads it as that %s's, as EOS applies a command in the mode the lines before it entered whatever its indentation (fix: indent it under its %s, or move it out if it was meant elsewhere)", where, text, what, what, what))
			}
		}
		if indent == 0 {
			cur, q, qIndent, curMode, pol = nil, nil, -1, "", nil
			idef = false
			if len(f) == 2 && f[0] == "interface" && strings.EqualFold(f[1], "defaults") {
				idef, idefEth = true, false
				continue
			}
			b, err := p.cfgOpenPolicyBlock(f, where)
			if err != nil {
				return err
			}
			if b != nil {
				pol = b
				continue
			}
			switch {
			case f[0] == "interface" && len(f) >= 2:
				names, err := cfgInterfaceNames(f[1:])
				if err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
				for _, name := range names {
					b := p.intfs[name]
					if b == nil {
						b = newCfgBlock(where)
						p.intfs[name] = b
						p.order = append(p.order, name)
					}
					b.name = "interface " + name
					cur = append(cur, b)
				}
				curMode = "interface"
			case len(f) == 3 && f[0] == "qos" && f[1] == "profile":
				// A profile named again is entered, not replaced: EOS adds
				// the new block's statements to the profile's, as it does
				// for an interface.
				b := p.profiles[f[2]]
				if b == nil {
					b = newCfgBlock(where)
					b.name = "qos profile " + f[2]
					p.profiles[f[2]] = b
				}
				cur = []*cfgBlock{b}
				curMode = "qos profile"
			default:
				if err := p.global(f, where); err != nil {
					return err
				}
			}
			continue
		}
		if pol != nil {
			if err := p.policyLine(pol, f, indent, flat, where); err != nil {
				return err
			}
			continue
		}
		if idef {
			if err := p.defaultsLine(f, &idefEth, where); err != nil {
				return err
			}
			continue
		}
		if len(cur) == 0 {
			continue
		}
		if text == "comment" {
			inComment = true
			continue
		}
		opensQueue := cfgOpensQueue(f)
		if q != nil && !opensQueue && p.inQueue(curMode, f, indent > qIndent, flat) {
			for _, qi := range q {
				if err := p.queueLine(qi, f, where); err != nil {
					return err
				}
			}
			continue
		}
		q, qIndent = nil, -1
		if opensQueue {
			n, err := strconv.Atoi(f[1])
			if err != nil || n < 0 || n > 7 {
				return fmt.Errorf("%s: %s %q: want a queue 0-7", where, f[0], f[1])
			}
			if f[0] == "mc-tx-queue" {
				// A multicast queue (platforms with separate unicast and
				// multicast queues, Trident): RoCE is unicast, so labctl
				// reads none of its lines, which stay in its block (an
				// empty, open queue) rather than fall to the profile or
				// interface (its shape rate is no port shaper); noted as
				// not simulated.
				if err := p.noteField(curMode, f, where); err != nil {
					return err
				}
				q, qIndent = []*cfgQueue{}, indent
				continue
			}
			for _, b := range cur {
				qi := b.queues[n]
				if qi == nil {
					qi = &cfgQueue{}
					b.queues[n] = qi
				}
				qi.origin = fmt.Sprintf("%s tx-queue %d (%s)", b.name, n, where)
				q = append(q, qi)
				b.qosLine = true
			}
			qIndent = indent
			continue
		}
		for _, b := range cur {
			if err := p.blockLine(b, curMode, f, where); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", src.Name, lineNo+1, err)
	}
	return nil
}

// cfgOpensQueue says whether f opens a tx-queue block of an interface or
// qos profile: tx-queue N, uc-tx-queue N (read as tx-queue N) or
// mc-tx-queue N (a multicast queue, opened and not read).
func cfgOpensQueue(f []string) bool {
	return len(f) == 2 && (f[0] == "tx-queue" || f[0] == "uc-tx-queue" || f[0] == "mc-tx-queue")
}

// cfgFlat says whether a config has no indented line at all: written by
// hand or by a template that strips indentation, its modes show only in
// its commands.
func cfgFlat(data []byte) bool {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '!' && (line[0] == ' ' || line[0] == '\t') {
			return false
		}
	}
	return true
}

// cfgGlobalWords open global statements or modes of their own, which no
// interface or qos profile has: in a file without indentation they close
// the block before them.
var cfgGlobalWords = map[string]bool{
	"end": true, "hostname": true, "router": true, "vlan": true, "management": true, "username": true,
	"aaa": true, "logging": true, "ntp": true, "snmp-server": true, "daemon": true, "platform": true,
	"hardware": true, "mlag": true, "monitor": true, "event-handler": true, "banner": true,
	"route-map": true, "prefix-list": true, "policy-map": true, "class-map": true, "vrf": true,
	"dns": true, "clock": true, "tacacs-server": true, "radius-server": true, "system": true,
	"errdisable": true, "transceiver": true, "spanning-tree": true, "peer-filter": true, "tap": true,
	"queue-monitor": true, "sflow": true, "lldp": true, "dot1x": true, "tcam": true, "enable": true,
}

// cfgLeavesBlock says whether a line of a file without indentation leaves
// the interface or qos profile open before it (q: a tx-queue of it is
// open). EOS applies a command in the mode the commands before it entered
// and tries the enclosing modes only when that one has no such command,
// whatever the indentation: a statement of the block or its tx-queue stays
// (priority-flow-control pause watchdog port action is the interface's,
// though the global action statement's words are in it), an interface or
// qos profile line opens the next block, a global statement labctl reads
// or a word that opens a global mode leaves. A line labctl does not know
// (description, no shutdown, ip address) stays: an interface has many such
// commands, and what follows an unknown global one is a global statement
// or a new block, which leave it. EOS's handling of files without
// indentation is taken from its mode rules, not checked on a switch.
func cfgLeavesBlock(mode string, f []string, inQueue bool) bool {
	if _, ok := statementOfLine(mode, f); ok {
		return false
	}
	if _, ok := statementOfLine("tx-queue", f); ok && inQueue {
		return false
	}
	if cfgOpensQueue(f) {
		return false
	}
	if f[0] == "interface" || len(f) >= 2 && f[0] == "qos" && f[1] == "profile" || cfgGlobalWords[f[0]] {
		return true
	}
	if len(f) >= 2 && (f[0] == "no" || f[0] == "default") && (f[1] == "interface" || cfgGlobalWords[f[1]]) {
		return true
	}
	_, global := statementOf("global", f)
	return global || len(f) >= 2 && f[0] == "qos" && f[1] == "map"
}

// inQueue says whether an indented line read while a tx-queue is open
// belongs to the queue. EOS applies a command in the mode the commands
// before it entered, trying the enclosing modes when that one has no such
// command, whatever the line's indentation: a tx-queue statement stays in
// the queue (a tab where the file indents with spaces must not move it
// out), and a statement of the interface or qos profile leaves it. Only
// for a statement labctl does not recognise, or one both modes have
// (shape rate: the queue's shaper or the port's), does the indentation
// decide (deeper: the queue's), so that it is read in the mode it stands
// in (labctl's reading of an indented file, not checked on a switch); in
// a file without indentation (flat) such a statement stays in the queue,
// the mode the commands before it entered.
func (p *cfgParser) inQueue(blockMode string, f []string, deeper, flat bool) bool {
	_, inQ := statementOfLine("tx-queue", f)
	_, inBlock := statementOfLine(blockMode, f)
	switch {
	case inQ && inBlock:
		return deeper || flat
	case inQ:
		return true
	case inBlock:
		return false
	}
	return deeper
}

// global reads top-level QoS lines.
func (p *cfgParser) global(f []string, where cfgPos) error {
	f = p.expand("global", f, where)
	line := strings.Join(f, " ")
	mapTo := func(from string, maxKey int, target string, dst map[int]int) error {
		to := slices.Index(f, "to")
		if target == "tx-queue" && to >= 0 && to+1 < len(f) && f[to+1] == "uc-tx-queue" {
			// qos map traffic-class ... to uc-tx-queue Q: the unicast
			// queue of platforms with separate unicast and multicast
			// queues (Trident), read as the tx-queue map, as labctl reads
			// uc-tx-queue N blocks as tx-queue N. That EOS has this form
			// is labctl's reading of the uc-tx-queue blocks, not checked
			// in Arista's manual (moderate confidence).
			f = slices.Clone(f)
			f[to+1] = "tx-queue"
		}
		if to < 4 || to+2 >= len(f) || f[to+1] != target {
			return fmt.Errorf("%s: %q: want qos map %s N... to %s T", where, line, from, target)
		}
		v, err := cfgInt(f[to+2], 0, 7)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", where, strings.ReplaceAll(target, "-", " "), err)
		}
		// qos map dscp ... to traffic-class T drop-precedence N colours
		// the DSCPs too (cfgDropPrecedences); without it they are green.
		dp := 0
		if from == "dscp" && to+4 < len(f) && f[to+3] == "drop-precedence" {
			if dp, err = cfgInt(f[to+4], 0, cfgDropPrecedences-1); err != nil {
				return fmt.Errorf("%s: %q: drop-precedence: %w", where, line, err)
			}
		}
		for _, s := range f[3:to] {
			k, err := cfgInt(s, 0, maxKey)
			if err != nil && strings.ContainsAny(s, "-,") {
				return fmt.Errorf("%s: %s %q: labctl reads the values of a qos map one by one, as EOS's running-config writes them; whether EOS accepts a range or list here is not checked (fix: list the values separated by blanks, like 24 25 26 27)", where, from, s)
			}
			if err != nil {
				return fmt.Errorf("%s: %s: %w", where, from, err)
			}
			dst[k] = v
			if from == "dscp" {
				p.dscpDP[k] = dp
				if dp == 0 {
					delete(p.dscpDP, k)
				}
			}
		}
		return nil
	}
	switch {
	case len(f) == 4 && f[0] == "switchport" && f[1] == "default" && f[2] == "mode":
		// The mode of Ethernet interfaces that say neither switchport
		// nor no switchport (AVD writes switchport default mode routed
		// for routed fabrics); labctl reads routed and access.
		switch f[3] {
		case "routed", "access":
			p.defMode = f[3]
		default:
			return p.note("global", f, where)
		}
	case len(f) >= 3 && (f[0] == "no" || f[0] == "default") && f[1] == "switchport" && f[2] == "default":
		p.defMode = ""
	case len(f) >= 6 && f[0] == "qos" && f[1] == "map" && f[2] == "dscp" && slices.Contains(f, "traffic-class"):
		return mapTo("dscp", 63, "traffic-class", p.dscp)
	case len(f) >= 6 && f[0] == "qos" && f[1] == "map" && f[2] == "dscp":
		return fmt.Errorf("%s: %q: want qos map dscp D... to traffic-class T", where, line)
	case len(f) >= 6 && f[0] == "qos" && f[1] == "map" && f[2] == "cos" && slices.Contains(f, "traffic-class"):
		return mapTo("cos", 7, "traffic-class", p.cos)
	case line == "qos rewrite dscp":
		p.rewriteDSCP, p.rewriteAt = true, where
	case line == "no qos rewrite dscp" || line == "default qos rewrite dscp":
		p.rewriteDSCP = false
	case len(f) >= 6 && slices.Contains(f, "dscp") && (slices.Equal(f[:3], []string{"qos", "map", "traffic-class"}) || (f[0] == "no" || f[0] == "default") && slices.Equal(f[1:4], []string{"qos", "map", "traffic-class"})):
		// [no] qos map traffic-class <tc...> to dscp <d>: the DSCP qos
		// rewrite dscp writes into the packets of each class.
		return p.tcToDSCP(f, where)
	case len(f) >= 7 && f[0] == "qos" && f[1] == "map" && f[2] == "traffic-class" && (slices.Contains(f, "tx-queue") || slices.Contains(f, "uc-tx-queue")):
		return mapTo("traffic-class", 7, "tx-queue", p.tcQueue)
	case line == "priority-flow-control all off":
		p.pfcAllOff = true
	case line == "no priority-flow-control all off" || line == "default priority-flow-control all off":
		// PFC goes back on where the ports set it.
		p.pfcAllOff = false
	case len(f) == 4 && (f[0] == "no" || f[0] == "default") && f[1] == "qos" && f[2] == "profile":
		// EOS deletes the profile: interfaces that name it take none of
		// its settings (result reports them unresolved) until a qos
		// profile block of that name creates it again.
		delete(p.profiles, f[3])
	case (f[0] == "default" || f[0] == "no") && len(f) == 3 && f[1] == "interface" && strings.EqualFold(f[2], "defaults"):
		// The interface defaults go: EOS's own (labctl's reading).
		p.defMTU, p.defShutdown = 0, nil
	case (f[0] == "default" || f[0] == "no") && len(f) >= 3 && f[1] == "interface":
		// default interface X returns the interfaces to EOS's defaults:
		// what the files said of them before is gone. no interface X
		// deletes a virtual interface (a Port-Channel, a Loopback, a
		// subinterface), which leaves nothing of its settings either; a
		// physical one EOS does not remove (cfgPhysical).
		names, err := cfgInterfaceNames(f[2:])
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		for _, name := range names {
			if f[0] == "no" && cfgPhysical(name) {
				return fmt.Errorf("%s: %q: EOS does not remove a physical interface (it answers %% Removal of physical interfaces is not permitted), so the line changes nothing on the switch, though it reads as if %s lost its settings (fix: write default interface %s to return it to EOS's defaults, or delete the line)", where, line, name, name)
			}
		}
		for _, name := range names {
			if _, ok := p.intfs[name]; ok {
				p.intfs[name] = newCfgBlock(where)
			}
		}
	case len(f) >= 5 && (f[0] == "no" || f[0] == "default") && f[1] == "qos" && f[2] == "map":
		// no (default) qos map <from> <n...> [to <kind> <v>]: the listed
		// keys go back to EOS's default mapping.
		dst := map[string]map[int]int{"dscp": p.dscp, "cos": p.cos, "traffic-class": p.tcQueue}[f[3]]
		to := slices.Index(f, "to")
		if dst == nil || (f[3] == "traffic-class" && !slices.Contains(f, "tx-queue") && !slices.Contains(f, "uc-tx-queue")) || (f[3] != "traffic-class" && to > 0 && !slices.Contains(f, "traffic-class")) {
			return p.note("global", f, where)
		}
		keys := f[4:]
		if to > 0 {
			keys = f[4:to]
		}
		for _, k := range keys {
			n, err := strconv.Atoi(k)
			if err != nil {
				return fmt.Errorf("%s: %q: %q is not a number", where, line, k)
			}
			delete(dst, n)
			if f[3] == "dscp" {
				delete(p.dscpDP, n)
			}
		}
	case len(f) >= 6 && f[0] == "no" && strings.HasPrefix(line, "no priority-flow-control pause watchdog default "):
		// The default goes: a timeout of 0 turns the watchdog on at no
		// port by default (wdByDefault), a recovery-time or
		// polling-interval of 0 is unset.
		switch f[5] {
		case "timeout":
			p.wdTimeout = 0
		case "recovery-time":
			p.wdRecovery = 0
		case "polling-interval":
			p.wdPoll = 0
		default:
			return p.note("global", f, where)
		}
	case len(f) >= 5 && slices.Equal(f[:5], strings.Fields("no priority-flow-control pause watchdog action")):
		p.wdAction = ""
	case (f[0] == "no" || f[0] == "default") && len(f) >= 2 && (f[1] == "qos" || f[1] == "priority-flow-control"):
		return p.note("global", f, where)
	case strings.HasPrefix(line, "priority-flow-control pause watchdog default ") && len(f) == 6:
		ms, err := cfgMs(f[5])
		if err != nil {
			return fmt.Errorf("%s: %q: %w", where, line, err)
		}
		switch f[4] {
		case "timeout":
			p.wdTimeout = ms
		case "recovery-time":
			p.wdRecovery = ms
		case "polling-interval":
			p.wdPoll = ms
		default:
			return p.note("global", f, where)
		}
	case strings.HasPrefix(line, "priority-flow-control pause watchdog action ") && len(f) == 5:
		p.wdAction = f[4]
	case f[0] == "qos", f[0] == "priority-flow-control":
		return p.note("global", f, where)
	case (f[0] == "platform" || f[0] == "hardware") && cfgBufferOrQoS(f[1:]):
		// Buffer and QoS settings of the platform (an MMU queue profile,
		// a TCAM profile) are not read: named, with a warning where they
		// change the buffers (the statement's risk), not passed over.
		return p.note("global", f, where)
	}
	return nil
}

// defaultsLine reads a line of an interface defaults block: its mtu, the
// default L3 MTU of routed interfaces that set none, and its ethernet
// sub-block's shutdown, which Ethernet interfaces that say neither
// shutdown nor no shutdown take (AVD's "Default Routed Interface MTU" and
// "Default Ethernet Interface Shutdown", as its eos_cli_config_gen writes
// them; labctl's reading of the block, not checked in Arista's manual).
// eth says the ethernet sub-block is open (a line after it is its).
func (p *cfgParser) defaultsLine(f []string, eth *bool, where cfgPos) error {
	line := strings.Join(f, " ")
	switch {
	case len(f) == 2 && f[0] == "mtu":
		n, err := strconv.Atoi(f[1])
		if err != nil || n < MinMTU || n > MaxCLIMTU {
			// Outside the syntax EOS's mtu takes: refused, the default
			// stays what it was.
			p.overrule(where, qos.Overruled{
				Where: "interface defaults " + line, Refused: true,
				What: fmt.Sprintf("EOS refuses it (%% Invalid input): an mtu takes %d to %d bytes, so the routed interfaces without their own keep the default MTU they had (an earlier interface defaults mtu's, else %d bytes), which lint and the simulator use", MinMTU, MaxCLIMTU, cfgDefaultMTU),
				Fix:  fmt.Sprintf("give an MTU of %d to %d bytes (a port of the platform takes at most %d), like mtu %d", MinMTU, MaxCLIMTU, PlatformMaxMTU, PlatformMaxMTU),
			}, "")
			return nil
		}
		if n > PlatformMaxMTU {
			// EOS takes the line, but no port of the platform takes an
			// MTU above PlatformMaxMTU (an interface's line above it is
			// refused): what a port without its own mtu then has is not
			// verified. No port carries more than its maximum, so labctl
			// reads the default as the maximum and warns.
			p.overrule(where, qos.Overruled{
				Where: "interface defaults " + line,
				What:  fmt.Sprintf("EOS takes the line (an mtu takes %d to %d bytes), but no port of the platform takes an MTU above %d (an interface's mtu line above it EOS refuses, on Ethernet1: %s); what EOS applies to a routed port without its own mtu is not verified: labctl takes the ports' maximum, %d bytes", MinMTU, MaxCLIMTU, PlatformMaxMTU, cfgMaxMTUError("Ethernet1"), PlatformMaxMTU),
				Fix:   fmt.Sprintf("give an MTU the ports take, at most %d, like mtu %d", PlatformMaxMTU, PlatformMaxMTU),
			}, "")
			n = PlatformMaxMTU
		}
		p.defMTU = n
	case len(f) >= 2 && (f[0] == "no" || f[0] == "default") && f[1] == "mtu":
		// EOS's own default, 1500, said, as an interface's no mtu is.
		p.defMTU = cfgDefaultMTU
	case line == "ethernet":
		*eth = true
	case *eth && line == "shutdown":
		p.defShutdown = qos.Ptr(true)
	case *eth && line == "no shutdown":
		p.defShutdown = qos.Ptr(false)
	case *eth && line == "default shutdown":
		p.defShutdown = nil
	default:
		return p.noteField("interface defaults", f, where)
	}
	return nil
}

// cfgDefaultsHolds says whether a line at column 0 of a file without
// indentation stays in an interface defaults block (defaultsLine's).
func cfgDefaultsHolds(f []string) bool {
	switch {
	case len(f) == 2 && f[0] == "mtu", len(f) >= 2 && (f[0] == "no" || f[0] == "default") && (f[1] == "mtu" || f[1] == "shutdown"):
		return true
	}
	line := strings.Join(f, " ")
	return line == "ethernet" || line == "shutdown"
}

// cfgPhysical says whether an interface is a physical port, which no
// interface does not remove: an Ethernet or Management interface, not a
// subinterface of one (Ethernet1.100). That EOS rejects the line for these
// ("% Removal of physical interfaces is not permitted") is taken from the
// error patterns a third-party EOS automation driver lists for Arista
// (netdriver's AristaBase), not from Arista's manual; that it deletes a
// virtual interface is the command's purpose.
func cfgPhysical(name string) bool {
	return (strings.HasPrefix(name, "Ethernet") || strings.HasPrefix(name, "Management")) && !strings.Contains(name, ".")
}

// mode is whether the interface name (its block b, its routed said or
// nil) is routed: as said, else the switch's default mode for an
// interface switchport default mode applies to (defaultMode) that says
// default switchport or under switchport default mode (switchport default
// mode's, else a switchport), else nil (not said).
func (p *cfgParser) mode(name string, b *cfgBlock, routed *bool) *bool {
	if m, ok := p.defaultMode(name); routed == nil && ok && (b.defaultSwitchport != "" || m != "") {
		return qos.Ptr(m == "routed")
	}
	return routed
}

// defaultMode is the mode switchport default mode gives interface name
// where its block says neither switchport nor no switchport: "routed",
// "access", or "" without the line; ok says the line applies to such an
// interface at all: an Ethernet interface's (labctl's reading: whether it
// applies to Port-Channel interfaces too labctl did not find, see
// routes). mode and result's reason a port is L2 (qos.PortConfig.L2)
// both read it.
func (p *cfgParser) defaultMode(name string) (mode string, ok bool) {
	if !strings.HasPrefix(name, "Ethernet") {
		return "", false
	}
	return p.defMode, true
}

// routes says whether EOS routes interface name, configured by b: its
// mode (mode) said routed. An interface whose mode is not said is a
// switchport (EOS's default for Ethernet and Port-Channel interfaces:
// qos.NotRouted). Whether switchport default mode routed applies to
// Port-Channel interfaces too labctl did not find (AVD writes no
// switchport on its routed port channels whatever the default):
// defaultMode applies it to Ethernet interfaces alone, so a Port-Channel
// that relies on it reads as a switchport, its address not counted, the
// reading that shows the harm.
func (p *cfgParser) routes(name string, b *cfgBlock) bool {
	m := p.mode(name, b, b.routed)
	return m != nil && *m
}

// cfgSwitchport says whether interface name is one EOS makes a switchport
// unless it says no switchport: an Ethernet or Port-Channel interface, not
// a subinterface (which its own lines make routed or bridged). A
// subinterface's parent must be routed: Arista's manual (Layer 2
// Subinterfaces, https://www.arista.com/en/um-eos/eos-layer-2-subinterfaces)
// configures the parent with no switchport first, and its overview names
// the "Routed Parent Port". What EOS does with a subinterface of a
// switchport (refused, inactive) labctl did not find; a subinterface
// carries none of a lab's traffic, which runs untagged on its parent, so
// labctl reads it as its own lines say and judges only the parent.
func cfgSwitchport(name string) bool {
	return cfgSubinterface(name) == "" && (strings.HasPrefix(name, "Ethernet") || strings.HasPrefix(name, "Port-Channel"))
}

// down is why interface name, configured by b, is administratively down
// by its own lines or interface defaults' (PortConfig.AdminDown); "" for
// up.
func (p *cfgParser) down(name string, b *cfgBlock) string {
	switch {
	case b.shutdown != nil && *b.shutdown:
		return "interface " + name + ": shutdown"
	case b.shutdown == nil && p.defShutdown != nil && *p.defShutdown && strings.HasPrefix(name, "Ethernet"):
		return "interface defaults: ethernet shutdown (interface " + name + " says neither shutdown nor no shutdown)"
	}
	return ""
}

// cfgParentDown is why subinterface name is down where its parent's being
// down (parentWhy, its PortConfig.AdminDown) alone takes it down, which
// the renderer tells from the subinterface's own shutdown.
func cfgParentDown(parentWhy, name string) string {
	return parentWhy + " (the parent of subinterface " + name + ")"
}

// cfgPseudowire says whether subinterface b is a pseudowire's attachment:
// FlexEncap (encapsulation vlan) with neither vlan id (it would bridge)
// nor an ip or ipv6 address (it would route). EOS 4.24.2F's TOI 'Flexible
// Interface Encapsulation (FlexEncap)' (https://www.arista.com/en/support/
// toi/eos-4-24-2f/14551-flexible-interface-encapsulation-flexencap) says
// FlexEncap 'is usually used in conjunction with pseudowires', and its
// examples terminate a FlexEncap subinterface at L3 by an ip address and at
// L2 by vlan id; AVD's ethernet-interfaces.cfg describes those with neither
// as 'pseudowire N interface'. Such a subinterface patches the frames it
// matches whole into its pseudowire: it is not routed and holds them to no
// L3 MTU, so labctl reads it as carrying any packet unless it says its own
// mtu. What MTU EOS holds a pseudowire's frames to (the pseudowire's
// signalled MTU, the core's) is not in the files and not checked.
func cfgPseudowire(b *cfgBlock) bool {
	return b.flexEncap != "" && b.bridged == "" && b.ipAddr == "" && b.ip6Addr == "" && !b.ip6Enable
}

// address is b's address line of family ip (ipAddr) or ipv6 (ip6Addr).
func (b *cfgBlock) address(family string) *string {
	if family == "ip" {
		return &b.ipAddr
	}
	return &b.ip6Addr
}

// keepIPLine forgets b's ipLine once b has no IP configuration left (a no
// line took the last of it).
func (b *cfgBlock) keepIPLine() {
	if b.ipAddr == "" && b.ip6Addr == "" && !b.ip6Enable {
		b.ipLine = ""
	}
}

// cfgSubinterface is the parent of a subinterface (Ethernet26 of
// Ethernet26.1, Port-Channel5 of Port-Channel5.100), "" for another
// interface.
func cfgSubinterface(name string) string {
	parent, ok := qos.SubinterfaceParent(name)
	if !ok || !strings.HasPrefix(parent, "Ethernet") && !strings.HasPrefix(parent, "Port-Channel") {
		return ""
	}
	return parent
}

// cfgDefaultMTU is an EOS interface's L3 MTU where no mtu line sets one,
// which no mtu and default mtu return it to: Arista's manual ("Support for
// Layer 3 MTU on 7280R3/7500R3/7800R3",
// https://www.arista.com/en/um-eos/eos-support-for-layer-3-mtu-on-7280r37500r37800r3):
// "The default MTU size is 1500 bytes. The no mtu and default mtu
// commands restore the interface's MTU to the default value by removing
// the corresponding mtu command from running-config."
const cfgDefaultMTU = 1500

// MinMTU and MaxCLIMTU are the values an EOS mtu line's syntax takes
// (interface and interface defaults: "mtu ?" answers "<68-65535>  Maximum
// transmission unit in bytes", captured on cEOS in aristanetworks/avd
// PR #3274 on a Dp1 interface, not an Ethernet port: labctl takes an
// Ethernet port's mtu syntax to be the same, as AVD's schema for every
// interface's mtu, 68-65535, does): EOS refuses a value outside them (%
// Invalid input).
//
// PlatformMaxMTU is the largest MTU a port of the platform labctl models
// for EOS takes (the Arista 7050CX3 of buffer.go, platformName): an
// interface's mtu line within the syntax but above it EOS refuses per
// port ("% Max MTU for Ethernet4 is 9194" on cEOS, ipspace/netlab issue
// #1890), and the port keeps the MTU it had. 9214 is the figure for
// Arista's hardware switches: Arista's rbeapi (lib/rbeapi/api/
// ipinterfaces.rb, set_mtu: "Valid values are in the range of 68 to 9214
// bytes") and puppet-eos (lib/puppet/type/eos_ipinterface.rb), and
// EOS's "IP MTU 9214 bytes" for a port at its maximum (eos.arista.com
// forum, "Jumbo frame MTU sizes": "Max MTU in Arista -> 9214").
//
// CEOSMaxMTU is the largest a cEOS (and vEOS) port takes: "% Max MTU for
// Ethernet4 is 9194" (ipspace/netlab issue #1890; netlab's EOS device
// file, features.initial.max_mtu: 9194).
//
// LabMaxMTU is the largest MTU labctl renders on an EOS lab's ports
// (nos.CheckSpec, through MTULimits): a lab runs on cEOS in containerlab,
// and the same configs must load on the modeled hardware, so it is the
// lower of the two.
const (
	MinMTU         = 68
	MaxCLIMTU      = 65535
	PlatformMaxMTU = 9214
	CEOSMaxMTU     = 9194
	LabMaxMTU      = min(PlatformMaxMTU, CEOSMaxMTU)
)

// cfgMaxMTUError is EOS's answer to an interface mtu line above port's
// maximum (PlatformMaxMTU), said with its source: the wording is cEOS's
// (cfgCEOSMaxMTUError), with the modeled platform's 9214 put in, which
// is extrapolated: no capture of a 7050CX3 refusing the line was found.
func cfgMaxMTUError(port string) string {
	return cfgMaxMTULine(port) + ", extrapolated from cEOS's " + strconv.Quote(cfgCEOSMaxMTUError)
}

// cfgMaxMTULine is EOS's answer for port, quoted.
func cfgMaxMTULine(port string) string {
	return strconv.Quote(fmt.Sprintf("%% Max MTU for %s is %d", port, PlatformMaxMTU))
}

// cfgMaxMTUWhat is what EOS does with an interface mtu line above the
// maximum of ports, the interfaces it names (one, or each of a range, in
// any order: interface Ethernet6,1-3): it refuses it for each port, a
// line of its answer a port (cfgMaxMTUError), which is said for the first
// and last by port number (qos.PortLess), the ports grouped (all is the
// switch's ports in port order, qos.PortRanges).
func cfgMaxMTUWhat(ports, all []string) string {
	ports = slices.Clone(ports)
	slices.SortStableFunc(ports, qos.ComparePorts)
	answer := cfgMaxMTUError(ports[0])
	if len(ports) > 1 {
		answer = fmt.Sprintf("%s to %s, a line for each of %s, extrapolated from cEOS's %q", cfgMaxMTULine(ports[0]), cfgMaxMTULine(ports[len(ports)-1]), qos.PortRanges(ports, all), cfgCEOSMaxMTUError)
	}
	return fmt.Sprintf("EOS refuses it (%s, the largest a port of the platform takes): the port keeps the MTU it had, an earlier mtu line's, else its default (interface defaults' mtu, else %d bytes on a routed port), which lint and the simulator use", answer, cfgDefaultMTU)
}

// cfgCEOSMaxMTUError is cEOS's refusal of an interface mtu line above
// CEOSMaxMTU, as ipspace/netlab issue #1890 captured it.
const cfgCEOSMaxMTUError = "% Max MTU for Ethernet4 is 9194"

// srcEOSMTU is the source of cfgDefaultMTU, which Defaults name.
const srcEOSMTU = "Arista's manual, Support for Layer 3 MTU on 7280R3/7500R3/7800R3 (https://www.arista.com/en/um-eos/eos-support-for-layer-3-mtu-on-7280r37500r37800r3): 'The default MTU size is 1500 bytes'"

// cfgBufferOrQoS says whether a platform or hardware line's words name
// buffers or QoS (mmu, buffer, qos, pfc, ecn, queue, tcam): the ones
// labctl lists as not read. That these are the QoS-related platform
// commands is labctl's reading of their keywords (platform trident mmu
// queue profile, hardware tcam profile qos), not a list from Arista's
// manual; others (platform tfa personality, hardware counter feature)
// pass unread.
func cfgBufferOrQoS(f []string) bool {
	for _, w := range f {
		switch w {
		case "mmu", "buffer", "buffers", "qos", "pfc", "priority-flow-control", "ecn", "queue", "queues", "tcam", "headroom", "shared-buffer":
			return true
		}
	}
	return false
}

// blockLine reads a line of an interface or qos profile block.
func (p *cfgParser) blockLine(b *cfgBlock, mode string, f []string, where cfgPos) error {
	f = p.expand(mode, f, where)
	line := strings.Join(f, " ")
	on, off := true, false
	if mode == "interface" && len(f) > 0 && f[0] == "switchport" && b.switchportLine == "" {
		b.switchportLine = line + " (" + where.String() + ")"
	}
	switch {
	// priority-flow-control mode on|off is the older EOS syntax of
	// priority-flow-control on|off: the tester who reported it read it in
	// older EOS manuals, which labctl could not open to confirm; read
	// as the current form, as a switch that accepts it applies it (the
	// alternative, an unknown line, would leave PFC off and fail the run).
	case line == "priority-flow-control on" || line == "priority-flow-control mode on":
		b.pfcOn, b.qosLine = &on, true
	case line == "priority-flow-control off" || line == "priority-flow-control mode off" || line == "no priority-flow-control" || line == "default priority-flow-control":
		// PFC off is EOS's default, so the default form is the no form.
		b.pfcOn, b.qosLine = &off, true
	case len(f) == 4 && f[0] == "priority-flow-control" && f[1] == "priority":
		n, err := cfgInt(f[2], 0, 7)
		if err != nil {
			return fmt.Errorf("%s: %q: priority: %w", where, line, err)
		}
		switch f[3] {
		case "no-drop":
			b.noDrop[n] = true
		case "drop":
			b.noDrop[n] = false
		default:
			return fmt.Errorf("%s: %q: want no-drop or drop", where, line)
		}
		b.qosLine = true
	case line == "priority-flow-control pause watchdog":
		b.wd = &on
	case line == "no priority-flow-control pause watchdog":
		b.wd = &off
	case line == "default priority-flow-control pause watchdog":
		// Not the no form: whether a port watches without the line
		// depends on the global default timeout (wdByDefault), so the
		// block merely stops saying it.
		b.wd = nil
	case strings.HasPrefix(line, "priority-flow-control pause watchdog port action ") && len(f) == 6:
		b.wdAction = f[5]
	case len(f) >= 6 && slices.Equal(f[:6], strings.Fields("no priority-flow-control pause watchdog port action")):
		// The block's own action goes: an interface takes its profile's,
		// else the global action.
		b.wdAction = ""
	case len(f) >= 6 && slices.Equal(f[:6], strings.Fields("no priority-flow-control pause watchdog port timer")):
		b.wdTimeout, b.wdRecovery, b.wdPoll = 0, 0, nil
	case strings.HasPrefix(line, "priority-flow-control pause watchdog port timer "):
		for i := 5; i+1 < len(f); i++ {
			switch f[i] {
			case "polling-interval":
				// The port's poll interval, which a storm's detection
				// waits up to beyond the timeout, as the global default
				// polling-interval's (auto: labctl reads it as the global
				// default's; what EOS derives it from is not checked in
				// Arista's documentation). It was passed over, so a
				// port polling every second read as polling at the
				// global 0.1 s.
				poll := 0
				if f[i+1] != "auto" {
					ms, err := cfgMs(f[i+1])
					if err != nil {
						return fmt.Errorf("%s: %q: polling-interval: %w (fix: give seconds, like 0.1, or auto)", where, line, err)
					}
					poll = ms
				}
				b.wdPoll = &poll
			case "timeout", "recovery-time":
				ms, err := cfgMs(f[i+1])
				if err != nil {
					return fmt.Errorf("%s: %q: %s: %w", where, line, f[i], err)
				}
				if f[i] == "timeout" {
					b.wdTimeout = ms
				} else {
					b.wdRecovery = ms
				}
			}
		}
		if slices.Contains(f, "forced") {
			// Named as not read, where it passed in silence.
			return p.noteField(mode, f, where)
		}
	case f[0] == "service-profile" && len(f) == 2:
		b.profile = f[1]
	case (f[0] == "no" || f[0] == "default") && len(f) >= 2 && f[1] == "service-profile":
		// EOS removes the profile from the interface.
		b.profile = ""
		b.qosLine = true
	case (f[0] == "no" || f[0] == "default") && len(f) >= 4 && f[1] == "priority-flow-control" && f[2] == "priority":
		// EOS removes the interface's (or profile's) own setting of the
		// priority: an interface then takes its profile's, a profile
		// EOS's default (drop), which the default form returns to too.
		n, err := cfgInt(f[3], 0, 7)
		if err != nil {
			return fmt.Errorf("%s: %q: priority: %w", where, line, err)
		}
		delete(b.noDrop, n)
		b.qosLine = true
	case len(f) == 3 && f[0] == "qos" && f[1] == "trust":
		switch f[2] {
		case "dscp":
			b.trust = qos.Ptr(qos.TrustDSCP)
		case "cos":
			b.trust = qos.Ptr(qos.TrustCoS)
		default:
			return fmt.Errorf("%s: %q: EOS trusts dscp or cos (fix: write qos trust dscp or qos trust cos)", where, line)
		}
		b.qosLine = true
	case line == "no qos trust":
		b.trust, b.qosLine = qos.Ptr(qos.TrustNone), true
	case line == "default qos trust":
		// Not the no form (trust nothing): the default trust depends on
		// the port (routed: dscp, switchport: cos), so the block merely
		// stops saying it.
		b.trust, b.qosLine = nil, true
	case (f[0] == "no" || f[0] == "default") && len(f) == 3 && (f[1] == "tx-queue" || f[1] == "uc-tx-queue"):
		// EOS removes the block's settings of the queue (priority,
		// bandwidth, ECN, WRED, shape rate): a qos profile's queue goes
		// back to EOS's defaults; an interface's own settings go, and it
		// takes its profile's, as no priority-flow-control priority does
		// (labctl's reading of an interface over its profile).
		n, err := cfgInt(f[2], 0, 7)
		if err != nil {
			return fmt.Errorf("%s: %q: want a queue 0-7", where, line)
		}
		delete(b.queues, n)
		b.qosLine = true
	case len(f) == 3 && f[0] == "qos" && f[1] == "cos":
		n, err := cfgInt(f[2], 0, 7)
		if err != nil {
			return fmt.Errorf("%s: %q: cos: %w", where, line, err)
		}
		b.cos, b.qosLine = &n, true
	case line == "no qos cos":
		// The block's own default CoS goes (default qos cos, and a no
		// line repeating the value, are read as it, cfgNoForm): an
		// interface takes its profile's, else EOS's default CoS 0, as
		// cfgOverlay lays an unset one (labctl's reading of an interface
		// over its profile, as for no priority-flow-control priority).
		b.cos, b.qosLine = nil, true
	case f[0] == "channel-group" && len(f) >= 2 && mode == "interface":
		b.channel, b.channelMode = "Port-Channel"+f[1], ""
		if len(f) >= 4 && f[2] == "mode" {
			switch f[3] {
			case "active", "passive", "on":
				b.channelMode = f[3]
			default:
				return fmt.Errorf("%s: %q: EOS takes no channel-group mode %q (%% Invalid input) (fix: write mode active, passive or on)", where, line, f[3])
			}
		}
	case mode == "interface" && len(f) >= 3 && f[0] == "port-channel" && f[1] == "lacp" && f[2] == "fallback":
		// port-channel lacp fallback [individual|static] turns it on;
		// fallback timeout only sets how long it waits.
		switch {
		case len(f) > 3 && f[3] == "individual":
			b.lacpFallback = "individual"
		case len(f) == 3 || f[3] != "timeout":
			b.lacpFallback = "static"
		}
		return p.note(mode, f, where)
	case mode == "interface" && len(f) >= 4 && (f[0] == "no" || f[0] == "default") && f[1] == "port-channel" && f[2] == "lacp" && f[3] == "fallback":
		b.lacpFallback = ""
		return p.note(mode, f, where)
	case mode == "interface" && len(f) == 3 && f[0] == "port-channel" && f[1] == "min-links":
		// The fewest members that must be up for the port channel to
		// come up (qos.MemberAlone). Arista's manual, which gives the
		// platform's upper bound, was not checked: any count is taken.
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return fmt.Errorf("%s: %q: port-channel min-links takes a count of members (fix: write a whole number, such as port-channel min-links 2, or no port-channel min-links)", where, line)
		}
		b.minLinks, b.minLinksAt = n, where
	case mode == "interface" && len(f) >= 3 && (f[0] == "no" || f[0] == "default") && f[1] == "port-channel" && f[2] == "min-links":
		b.minLinks = 0
	case len(f) >= 2 && f[0] == "no" && f[1] == "channel-group" && mode == "interface":
		// default channel-group, and a no line that repeats the group,
		// are read as it (cfgNoForm).
		b.channel = ""
	case mode == "interface" && len(f) == 3 && f[0] == "vlan" && (f[1] == "id" || f[1] == "name"):
		// A subinterface's forwarding VLAN: it bridges (an L2
		// subinterface, Arista's manual, Layer 2 Subinterfaces).
		b.bridged = line
	case mode == "interface" && len(f) >= 2 && f[0] == "no" && f[1] == "vlan":
		b.bridged = ""
	case mode == "interface" && line == "encapsulation vlan":
		if b.flexEncap == "" {
			b.flexEncap = line
		}
		return p.note(mode, f, where)
	case mode == "interface" && f[0] == "client" && b.flexEncap != "":
		// The FlexEncap's tags (under encapsulation vlan). Bare, it is
		// EOS's "% Incomplete command": the line is not taken, and
		// written back it would not parse as the tags it lacks.
		if len(f) == 1 {
			return fmt.Errorf("%s: %q: the FlexEncap's client line gives no tags, which EOS refuses (%% Incomplete command) (fix: write the tags the subinterface matches, like client dot1q 200 or client untagged, or delete the line)", where, line)
		}
		b.flexEncap = line
		return p.note(mode, f, where)
	case mode == "interface" && len(f) == 3 && (f[0] == "no" || f[0] == "default") && f[1] == "encapsulation" && f[2] == "vlan":
		b.flexEncap = ""
		return p.note(mode, f, where)
	case mode == "interface" && len(f) >= 3 && (f[0] == "ip" || f[0] == "ipv6") && f[1] == "address":
		if a := b.address(f[0]); *a == "" || !slices.Contains(f, "secondary") {
			*a = line
		}
		b.ipLine = line + " (" + where.String() + ")"
		return p.note(mode, f, where)
	case mode == "interface" && line == "ipv6 enable":
		b.ip6Enable = true
		b.ipLine = line + " (" + where.String() + ")"
		return p.note(mode, f, where)
	case mode == "interface" && len(f) == 3 && (f[0] == "no" || f[0] == "default") && f[1] == "ipv6" && f[2] == "enable":
		b.ip6Enable = false
		b.keepIPLine()
		return p.note(mode, f, where)
	case mode == "interface" && len(f) >= 3 && (f[0] == "no" || f[0] == "default") && (f[1] == "ip" || f[1] == "ipv6") && f[2] == "address":
		// Every address of the family goes (a no line naming one address
		// labctl reads as all of them: it keeps no list).
		*b.address(f[1]) = ""
		b.keepIPLine()
		return p.note(mode, f, where)
	case line == "no switchport" && mode == "interface":
		b.routed, b.defaultSwitchport, b.switchportAt = &on, "", ""
	case line == "switchport" && mode == "interface":
		b.routed, b.defaultSwitchport, b.switchportAt = &off, "", where.String()
	case line == "default switchport" && mode == "interface":
		// The port goes back to the switch's default mode: a switchport
		// (an Ethernet interface's default), or routed under switchport
		// default mode routed, which result reads once every file is.
		b.routed, b.defaultSwitchport, b.switchportAt = nil, where.String(), ""
	case cfgIsShapeRate(f):
		if err := b.shape.read(f, "port"); err != nil {
			return fmt.Errorf("%s: %q: %w", where, line, err)
		}
		b.qosLine = true
	case mode == "interface" && line == "shutdown":
		b.shutdown = &on
	case mode == "interface" && line == "no shutdown":
		b.shutdown = &off
	case mode == "interface" && line == "default shutdown":
		// Back to the default: up, or down where interface defaults'
		// ethernet says shutdown (an Ethernet interface), which the
		// port then takes as one that says neither.
		b.shutdown = nil
	case mode == "interface" && len(f) >= 2 && f[0] == "speed",
		mode == "interface" && (line == "no speed" || line == "default speed"):
		gbps, ok := cfgSpeedGbps(f)
		if !ok {
			return p.note(mode, f, where)
		}
		b.speedGbps, b.speedLine = gbps, line
	case len(f) == 2 && f[0] == "mtu" && mode == "interface":
		n, err := strconv.Atoi(f[1])
		if err == nil && n >= MinMTU && n <= PlatformMaxMTU {
			b.mtu, b.mtuDefault, b.mtuRefused = n, false, ""
			return p.note(mode, f, where)
		}
		// EOS refuses the line, so the port keeps the MTU it had: an
		// earlier mtu line's, else its default (result). Read as it,
		// where 9300 carried RoCE and 20 failed it for an MTU the switch
		// never takes.
		o := qos.Overruled{
			Where: line, Refused: true,
			Fix: fmt.Sprintf("give an MTU of %d to %d bytes, like mtu %d", MinMTU, PlatformMaxMTU, PlatformMaxMTU),
		}
		if err != nil || n < MinMTU || n > MaxCLIMTU {
			// Outside the syntax: % Invalid input.
			o.What = fmt.Sprintf("EOS refuses it (%% Invalid input): an interface's mtu takes %d to %d bytes, so the port keeps the MTU it had, an earlier mtu line's, else its default (interface defaults' mtu, else %d bytes on a routed port), which lint and the simulator use", MinMTU, MaxCLIMTU, cfgDefaultMTU)
		} else {
			// Within the syntax, above the port's maximum: EOS refuses
			// it per port (cEOS: "% Max MTU for Ethernet4 is 9194"; the
			// platform's 9214 in its wording is extrapolated). A range's
			// line is one finding, whose What result writes with EOS's
			// answer for each of its ports (cfgMaxMTUWhat).
			if p.maxMTUAt == nil {
				p.maxMTUAt = map[cfgPos]bool{}
			}
			p.maxMTUAt[where] = true
		}
		p.overrule(where, o, strings.TrimPrefix(b.name, "interface "))
		b.mtuRefused = line
		return p.note(mode, f, where)
	case line == "no mtu" && mode == "interface":
		// EOS's default MTU, which the port then enforces (default mtu,
		// and a no line repeating the value, are read as it, cfgNoForm):
		// interface defaults' mtu, else 1500, which result reads once
		// every file is.
		b.mtu, b.mtuDefault = 0, true
	case mode == "interface" && len(f) == 4 && f[0] == "ip" && f[1] == "access-group" && (f[3] == "in" || f[3] == "out"):
		if b.accessGroups == nil {
			b.accessGroups = map[string]cfgAccessGroup{}
		}
		b.accessGroups[f[3]] = cfgAccessGroup{acl: f[2], where: where}
		return p.noteField(mode, f, where)
	case mode == "interface" && len(f) >= 3 && (f[0] == "no" || f[0] == "default") && f[1] == "ip" && f[2] == "access-group":
		// no ip access-group [NAME] in|out; without a direction, both.
		for _, dir := range []string{"in", "out"} {
			if f[len(f)-1] == dir || len(f) == 3 || len(f) == 4 && f[3] != "in" && f[3] != "out" {
				delete(b.accessGroups, dir)
			}
		}
		return p.noteField(mode, f, where)
	case len(f) == 5 && f[0] == "service-policy" && f[1] == "type" && f[2] == "qos" && f[3] == "input":
		b.policy, b.qosLine = &f[4], true
	case len(f) == 3 && f[0] == "service-policy" && f[1] == "input":
		// Without a type, a QoS policy (labctl's reading).
		b.policy, b.qosLine = &f[2], true
	case len(f) >= 5 && (f[0] == "no" || f[0] == "default") && f[1] == "service-policy" && f[2] == "type" && f[3] == "qos" && f[4] == "input",
		len(f) >= 3 && (f[0] == "no" || f[0] == "default") && f[1] == "service-policy" && f[2] == "input":
		b.policy, b.qosLine = qos.Ptr(""), true
	case f[0] == "qos", f[0] == "priority-flow-control", f[0] == "shape", f[0] == "random-detect",
		len(f) >= 3 && f[0] == "service-policy" && f[1] == "type" && f[2] == "qos":
		b.qosLine = b.qosLine || f[0] == "qos"
		return p.note(mode, f, where)
	case (f[0] == "no" || f[0] == "default") && len(f) >= 2 && slices.Contains([]string{"qos", "priority-flow-control", "shape", "random-detect", "service-policy"}, f[1]):
		// A no or default form labctl does not read: named, not passed
		// over in silence.
		return p.note(mode, f, where)
	case mode == "interface" && (f[0] == "dcbx" || len(f) >= 2 && (f[0] == "no" || f[0] == "default") && f[1] == "dcbx"):
		// DCBX (LLDP's advertisement of the port's PFC to its peer): the
		// switch's own PFC stays what its priority-flow-control lines say;
		// what a NIC in willing mode takes from it labctl does not model.
		n := fmt.Sprintf("%s: %q: labctl models no DCBX: the switch's PFC is its priority-flow-control lines', and the simulated NICs' PFC is the lab's (its qos intent and the variant's pfc), whatever the switch advertises or stops advertising; on a real fabric a NIC in DCBX willing mode takes its PFC priorities from what the switch advertises, so a change here can leave the NICs' PFC unlike the switch's (fix: none in labctl; keep the line as the fabric's NICs need it, and check their PFC priorities on the hosts, as mlnx_qos or lldptool show them)", where, line)
		if !slices.Contains(p.notes, n) {
			// Once for an interface range's line, not once a port.
			p.notes = append(p.notes, n)
		}
		return nil
	}
	// Other commands of an interface (description, ip address) pass
	// unread, but a first word one edit from a keyword labctl reads
	// (priority-flow-contrl, shutdwn) is that keyword misspelt, a line
	// EOS rejects with % Invalid input: named, not passed over.
	if word, meant := misspelt(mode, f[:1]); meant != "" {
		return fmt.Errorf("%s: %q: %s", where, line, cfgMisspelt(word, meant, ""))
	}
	return nil
}

// cfgStatement names a QoS statement by its keywords (numbers and values
// dropped), for the list of what the simulator does not run.
func cfgStatement(f []string) string {
	var kw []string
	for _, w := range f {
		if cfgNumber(w) || len(kw) == 4 {
			break
		}
		kw = append(kw, w)
	}
	return strings.Join(kw, " ")
}

// queueLine reads a line under tx-queue N.
func (p *cfgParser) queueLine(q *cfgQueue, f []string, where cfgPos) error {
	f = p.expand("tx-queue", f, where)
	line := strings.Join(f, " ")
	t, fa := true, false
	q.touched = true
	switch {
	case line == "priority strict":
		q.strict, q.strictAt = &t, where
	case line == "no priority":
		q.strict, q.strictAt = &fa, where
	case line == "default priority":
		// Not the no form (round robin): the default is strict priority
		// unless a higher-numbered queue is round robin, so the queue
		// merely stops saying it.
		q.strict, q.strictAt = nil, cfgPos{}
	case len(f) >= 3 && f[0] == "no" && f[1] == "bandwidth" && f[2] == "percent":
		// The queue's own weight goes: a qos profile's queue takes EOS's
		// default, an interface's its profile's (as cfgOverlay lays an
		// unset weight).
		q.weight = 0
	case len(f) == 3 && f[0] == "bandwidth" && f[1] == "percent":
		w, err := cfgInt(f[2], 0, 100)
		if err != nil {
			return fmt.Errorf("%s: bandwidth percent: %w", where, err)
		}
		q.weight = w
	case len(f) >= 2 && f[0] == "random-detect" && f[1] == "ecn" && slices.Contains(f, "minimum-threshold"):
		e, err := cfgWRED(f, "max-mark-probability")
		if err != nil {
			return fmt.Errorf("%s: %q: %w", where, line, err)
		}
		q.ecn, q.noECN = e, false
		q.ecnNoProb = !slices.Contains(f, "max-mark-probability")
		p.unitNotRun("random-detect ecn", e.Unit, "marks no packet ECN")
		if slices.Contains(f, "weight") {
			// The thresholds are read; the weight is named (lint warns).
			return p.note("tx-queue", f, where)
		}
	case line == "no random-detect ecn" || line == "default random-detect ecn":
		q.ecn, q.noECN, q.ecnNoProb = nil, true, false
	case len(f) >= 2 && f[0] == "random-detect" && f[1] == "drop" && slices.Contains(f, "minimum-threshold"):
		// random-detect drop [drop-precedence N] ...: the thresholds of
		// packets of precedence N (0 without it) only.
		dp, wf := 0, f
		if i := slices.Index(f, "drop-precedence"); i >= 0 {
			var err error
			if i+1 >= len(f) {
				return fmt.Errorf("%s: %q: drop-precedence has no value (fix: give 0, 1 or 2)", where, line)
			}
			if dp, err = cfgInt(f[i+1], 0, cfgDropPrecedences-1); err != nil {
				return fmt.Errorf("%s: %q: drop-precedence: %w", where, line, err)
			}
			wf = slices.Delete(slices.Clone(f), i, i+2)
		}
		e, err := cfgWRED(wf, "drop-probability")
		if err != nil {
			return fmt.Errorf("%s: %q: %w", where, line, err)
		}
		q.drop[dp], q.noDrop[dp] = e, false
		p.unitNotRun("random-detect drop", e.Unit, "drops no packet early")
		if slices.Contains(f, "weight") {
			return p.note("tx-queue", f, where)
		}
	case len(f) >= 5 && f[0] == "no" && f[1] == "random-detect" && f[2] == "drop" && f[3] == "drop-precedence":
		// The thresholds of that precedence only (labctl's reading: the
		// line names it).
		dp, err := cfgInt(f[4], 0, cfgDropPrecedences-1)
		if err != nil {
			return fmt.Errorf("%s: %q: drop-precedence: %w", where, line, err)
		}
		q.drop[dp], q.noDrop[dp] = nil, true
	case line == "no random-detect drop" || line == "default random-detect drop":
		// Every precedence's thresholds go (labctl's reading: the line
		// names none).
		for dp := range cfgDropPrecedences {
			q.drop[dp], q.noDrop[dp] = nil, true
		}
	case cfgIsShapeRate(f):
		if err := q.shape.read(f, "queue"); err != nil {
			return fmt.Errorf("%s: %q: %w", where, line, err)
		}
	case len(f) >= 3 && f[0] == "bandwidth" && f[1] == "guaranteed":
		q.guaranteed, q.guaranteedRate = &t, strings.Join(f[2:], " ")
		return p.note("tx-queue", f, where)
	case len(f) >= 3 && f[0] == "no" && f[1] == "bandwidth" && f[2] == "guaranteed":
		q.guaranteed, q.guaranteedRate = &fa, ""
		return p.note("tx-queue", f, where)
	default:
		return p.note("tx-queue", f, where)
	}
	return nil
}

// cfgShape is a block's or tx-queue's shape rate: shaper, or, with
// removed, none (no shape rate or default shape rate), which overrides a
// qos profile's.
type cfgShape struct {
	shaper  *qos.Shaper
	removed bool
}

// cfgIsShapeRate says whether f is a shape rate line, or its no or
// default form.
func cfgIsShapeRate(f []string) bool {
	if len(f) >= 1 && (f[0] == "no" || f[0] == "default") {
		f = f[1:]
	}
	return len(f) >= 2 && f[0] == "shape" && f[1] == "rate"
}

// read takes a shape rate line (cfgIsShapeRate) of a queue or a port
// (what, as cfgShapeRate).
func (c *cfgShape) read(f []string, what string) error {
	if f[0] == "no" || f[0] == "default" {
		*c = cfgShape{removed: true}
		return nil
	}
	sh, err := cfgShapeRate(f, what)
	if err != nil {
		return err
	}
	*c = cfgShape{shaper: sh}
	return nil
}

// over is c laid over the shape rate below it (a qos profile's): c's own
// line, a removal included, wins.
func (c cfgShape) over(below cfgShape) cfgShape {
	if c.shaper != nil || c.removed {
		return c
	}
	return below
}

// cfgShapeRate reads "shape rate <rate> [kbps|percent|pps] [burst-size
// ...]" under a tx-queue (what: "queue") or an interface or qos profile
// (what: "port", the port's own shaper): the shaper, RateKbps, Percent,
// or PacketsPerSec for a rate in pps (a packet meter: at most that many
// frames a second, whatever their size). A rate without a unit is in
// kbps, as EOS takes it. What follows the unit (a burst-size) is not
// read: the shaper's BurstBytes (BurstPackets) stays 0, the switch's
// least burst.
func cfgShapeRate(f []string, what string) (*qos.Shaper, error) {
	if len(f) < 3 {
		return nil, fmt.Errorf("shape rate has no rate (fix: write shape rate <kb/s> kbps, or shape rate <1-100> percent of the port's speed)")
	}
	unit := "kbps"
	if len(f) >= 4 && f[3] != "burst-size" {
		unit = f[3]
	}
	mode := "a tx-queue"
	if what == "port" {
		mode = "an interface"
	}
	v, err := strconv.ParseInt(f[2], 10, 64)
	switch unit {
	case "kbps", "pps":
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("rate %q is not a whole number of %s above 0 (fix: give the rate the %s may send at, like shape rate 10000000 kbps for 10 Gb/s, or write no shape rate to leave the %s unshaped)", f[2], unit, what, what)
		}
		if unit == "pps" {
			return &qos.Shaper{PacketsPerSec: v}, nil
		}
		return &qos.Shaper{RateKbps: v}, nil
	case "percent":
		if err != nil || v < 1 || v > 100 {
			return nil, fmt.Errorf("rate %q is not a percent 1-100 (fix: give the share of the port's speed the %s may send at, like shape rate 40 percent, or write no shape rate to leave the %s unshaped)", f[2], what, what)
		}
		return &qos.Shaper{Percent: int(v)}, nil
	}
	return nil, fmt.Errorf("unit %q: EOS shapes %s in kbps, percent or pps (fix: write shape rate %s kbps, or shape rate <1-100> percent)", unit, mode, f[2])
}

// cfgWRED reads "random-detect ecn|drop minimum-threshold X U
// maximum-threshold Y U [<probKey> P] [weight W]".
// unitNotRun notes a tx-queue's WRED thresholds given in segments or time,
// which the simulator does not run (the platform's segment size, and the
// rate a time is read at, are not in the config): lint warns of it
// (QOS017), as the queue's simulated figures show none of what it does.
func (p *cfgParser) unitNotRun(stmt, unit, what string) {
	if unit == "" {
		return
	}
	p.risks["tx-queue "+stmt+" "+unit] = qos.NotRun{
		Where: fmt.Sprintf("tx-queue %s thresholds in %s", stmt, unit),
		What:  fmt.Sprintf("the simulator runs the queue as if it had none and %s (a threshold in %s depends on the platform's cell size or the queue's drain rate, which the config does not give), so its figures miss what the switch does", what, unit),
		Fix:   "give the thresholds in bytes, kbytes or mbytes, so that the simulator runs them",
	}
}

// cfgWREDUnits are the threshold units EOS takes in a random-detect line
// (microseconds and milliseconds on the platforms that mark by a queue's
// delay).
var cfgWREDUnits = []string{"bytes", "kbytes", "mbytes", "segments", "microseconds", "milliseconds"}

func cfgWRED(f []string, probKey string) (*qos.ECNConfig, error) {
	// Without a probability, labctl takes EOS to mark or drop every
	// packet at the maximum threshold: Arista's documentation that labctl
	// could read does not give the default (srcEOSECNProb), so lint names
	// the assumption at each queue it decides (QOS000).
	e := &qos.ECNConfig{Pmax: 1}
	var minU, maxU string
	known := []string{"minimum-threshold", "maximum-threshold", probKey, "weight"}
	for i := 2; i < len(f); i++ {
		if !slices.Contains(known, f[i]) {
			return nil, cfgWREDKeyword(f, i, known)
		}
		if i+1 >= len(f) {
			return nil, fmt.Errorf("%s has no value", f[i])
		}
		switch f[i] {
		case "minimum-threshold", "maximum-threshold":
			if i+2 >= len(f) {
				return nil, fmt.Errorf("%s needs a value and a unit (bytes, kbytes, mbytes, segments, microseconds, milliseconds)", f[i])
			}
			v, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%s %q is not a count", f[i], f[i+1])
			}
			if f[i] == "minimum-threshold" {
				e.MinBytes, minU = v, f[i+2]
			} else {
				e.MaxBytes, maxU = v, f[i+2]
			}
			i += 2
		case probKey:
			v, err := cfgInt(f[i+1], 1, 100)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", probKey, err)
			}
			e.Pmax = float64(v) / 100
			i++
		case "weight":
			// Not simulated: its reader names it (queueLine).
			i++
		}
	}
	if minU == "" || maxU == "" {
		return nil, fmt.Errorf("needs both minimum-threshold and maximum-threshold")
	}
	scale := map[string]int64{"bytes": 1, "kbytes": 1024, "mbytes": 1024 * 1024}
	sMin, okMin := scale[minU]
	sMax, okMax := scale[maxU]
	switch {
	case okMin && okMax:
		e.MinBytes *= sMin
		e.MaxBytes *= sMax
	case minU == maxU && slices.Contains([]string{"segments", "microseconds", "milliseconds"}, minU):
		e.Unit = minU
	default:
		return nil, fmt.Errorf("threshold units %q and %q: want bytes, kbytes, mbytes, or the same one of segments, microseconds, milliseconds", minU, maxU)
	}
	return e, nil
}

// cfgWREDKeyword is the error of a random-detect line whose word f[i] is
// none of its keywords (mark-probability, ecn-count): EOS rejects the
// whole line (% Invalid input, or % Ambiguous command for a prefix of
// two keywords), so the queue does not take it, neither its thresholds
// nor its probability. labctl refuses it with the fix, as it refuses a
// misspelt keyword elsewhere (noteField), rather than read what the
// switch does not apply. known are the keywords cfgWRED reads; a drop
// line's drop-precedence, which its caller took out, is one too.
func cfgWREDKeyword(f []string, i int, known []string) error {
	known = slices.Clone(known)
	if f[1] == "drop" {
		known = append(known, "drop-precedence")
	}
	w := f[i]
	var prefixOf []string
	for _, k := range known {
		if strings.HasPrefix(k, w) {
			prefixOf = append(prefixOf, k)
		}
	}
	meant := suggest.Nearest(w, known)
	if meant == "" {
		meant = cfgWREDMeant(w, known)
	}
	switch {
	case len(prefixOf) > 1:
		return fmt.Errorf("%q is a prefix of %s, so EOS rejects the line as ambiguous (%% Ambiguous command) and the queue does not take it (fix: write the keyword in full)", w, strings.Join(prefixOf, " and "))
	case meant != "":
		return errors.New(cfgMisspelt(w, meant, ", and the queue does not take it"))
	}
	return fmt.Errorf("%q is no EOS keyword here (fix: random-detect %s takes %s; EOS rejects the line with %% Invalid input, and the queue does not take it)", w, f[1], strings.Join(known, ", "))
}

// cfgWREDMeant is the keyword of known that contains w or that w
// contains (mark-probability: max-mark-probability).
func cfgWREDMeant(w string, known []string) string {
	for _, k := range known {
		if strings.Contains(k, w) || strings.Contains(w, k) {
			return k
		}
	}
	return ""
}

func cfgInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q is not %d-%d", s, lo, hi)
	}
	return n, nil
}

// cfgMs reads EOS seconds ("0.2", "1.11") as milliseconds.
func cfgMs(s string) (int, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1e6 || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	return int(math.Round(v * 1000)), nil
}

// EOS's defaults where a config is silent, with where labctl takes them
// from. Each was looked for in Arista's own documentation (the EOS
// manual's QoS chapter and Arista's TOIs): what it confirms cites it;
// what it does not say stays labctl's assumption, and lint names the
// assumption where a config relies on it (QOS017 for the risky ones,
// QOS000 for the rest).
const (
	// srcEOSScheduling is where labctl has EOS's tx-queue scheduling
	// rules from: "show qos interfaces" on an EOS switch lists untouched
	// queues as strict priority and, below a queue set no priority,
	// queues configured strict as operationally round robin
	// (https://aristaeos.blogspot.com/2020/09/understanding-output-of-show-qos.html,
	// a reading of one switch's output, not Arista's manual). Arista's
	// documentation that labctl could read does not state the rule, so it
	// is unverified on every platform family (Trident/Tomahawk, Jericho)
	// and on cEOS-lab; lint says so where a port relies on it (QOS000).
	srcEOSScheduling = "EOS tx-queue scheduling as 'show qos interfaces' reports it (https://aristaeos.blogspot.com/2020/09/understanding-output-of-show-qos.html; not in Arista's manual, unverified per platform)"
	// srcEOSUnverified marks the defaults labctl assumes that Arista's
	// documentation, as far as labctl could read it, does not state.
	srcEOSUnverified = "labctl's assumption of EOS's default; not found in Arista's documentation, unverified"
	// srcEOSSandQueue7 is Arista's statement that on Sand (Jericho,
	// Arad) switches tx-queue 7 always carries traffic class 7, reserved
	// for control-plane traffic, and is not user-configurable; from EOS
	// 4.33.0F a limited set of its settings is. labctl cannot tell the
	// platform from a config, so it models tx-queue 7 as configured and
	// lint says where a config relies on configuring it (QOS000).
	srcEOSSandQueue7 = "Arista TOI 'tx-queue 7 configurable on Sand platforms', https://www.arista.com/jp/support/toi/tag/voq"
	// srcEOSTCQueue is where labctl's default traffic class -> tx-queue
	// map (n to n) stands: Arista's TOI above confirms TC 7 -> queue 7 on
	// Sand platforms; the rest is labctl's assumption.
	srcEOSTCQueue = "EOS default (TC 7 -> tx-queue 7 on Sand platforms: " + srcEOSSandQueue7 + "; the rest unverified)"
	// srcEOSECNProb marks labctl's assumed marking probability of
	// random-detect ecn without max-mark-probability.
	srcEOSECNProb = "not found in Arista's documentation"
	// srcEOSWatchdogQueues is why labctl's coverage of EOS's PFC
	// watchdog is an assumption: labctl has the watchdog watch every PFC
	// priority of a port it is on, as SONiC's does. A third-party guide
	// says EOS's watchdog monitors only tx-queues with guaranteed
	// bandwidth, giving Arista's reason; Arista's TOI list for PFC names
	// a TOI (7050X and 7060X series) whose summary begins "In previous
	// releases, PFC Watchdog supported only queues", cut off there. What
	// Arista's manual says, on which platforms and releases, labctl could
	// not read, so the model is left as it was and lint names the
	// assumption where a watched PFC priority's tx-queue sets no
	// bandwidth guaranteed (QOS000): there the two readings differ.
	srcEOSWatchdogQueues = "unverified: a third-party guide ('RoCEv2 lossless configuration on Arista EOS') says EOS's PFC watchdog monitors only tx-queues with 'bandwidth guaranteed' configured, quoting Arista that guaranteed bandwidth 'is needed to ensure starvation due to higher priority traffic is not wrongly flagged as a stuck-queue due to congestion'; an Arista TOI for the 7050X and 7060X series begins 'In previous releases, PFC Watchdog supported only queues' (https://www.arista.com/en/support/toi/tag/pfc); which queues it watches, on which platforms and releases, is not confirmed in Arista's manual"
)

// cfgDefaultCoSTC is EOS's default CoS -> traffic class map: CoS 0 to TC1
// and CoS 1 to TC0 (so that best effort ranks above background), the rest
// to their own number.
func cfgDefaultCoSTC(cos int) int {
	switch cos {
	case 0:
		return 1
	case 1:
		return 0
	}
	return cos
}

// cfgDefaultTC is EOS's default DSCP -> traffic class: the DSCP's class
// selector (d>>3) taken as a CoS, through the default CoS map.
func cfgDefaultTC(dscp int) int { return cfgDefaultCoSTC(dscp >> 3) }

func (p *cfgParser) result(device string) qos.DeviceConfig {
	// EOS colours packets by qos map dscp ... drop-precedence (and by
	// policers, which lint warns of where they meet RoCE).
	dc := qos.DeviceConfig{Device: device, NOS: Name, WatchdogPollMs: p.wdPoll, ColoursByDSCP: true, DSCPRewrite: p.rewriteDSCP}
	defaults := map[[2]string]*qos.Default{}
	def := func(field, value, source, port string, risky bool) {
		k := [2]string{field, value}
		d := defaults[k]
		if d == nil {
			d = &qos.Default{Field: field, Value: value, Source: source, Risky: risky}
			defaults[k] = d
		}
		if port != "" && !slices.Contains(d.Ports, port) {
			d.Ports = append(d.Ports, port)
		}
	}
	dscp, cos, tcQueue := map[int]int{}, map[int]int{}, map[int]int{}
	var unmapped []int
	for d := range 64 {
		if tc, ok := p.dscp[d]; ok {
			dscp[d] = tc
		} else {
			dscp[d] = cfgDefaultTC(d)
			unmapped = append(unmapped, d)
		}
	}
	if len(unmapped) > 0 && len(unmapped) < 64 {
		def("qos map dscp (DSCPs it does not list)", "their class selector's CoS class (DSCP 0-7 TC1, 8-15 TC0, 16-23 TC2, ...)", srcEOSUnverified, "", false)
	} else if len(unmapped) == 64 {
		def("qos map dscp", "the class selector's CoS class (DSCP 0-7 TC1, 8-15 TC0, 16-23 TC2, ...)", srcEOSUnverified, "", true)
	}
	for c := range 8 {
		if tc, ok := p.cos[c]; ok {
			cos[c] = tc
		} else {
			cos[c] = cfgDefaultCoSTC(c)
		}
	}
	for tc := range qos.NumTC {
		if q, ok := p.tcQueue[tc]; ok {
			tcQueue[tc] = q
		} else {
			tcQueue[tc] = tc
		}
	}
	if len(p.tcQueue) < qos.NumTC {
		def("qos map traffic-class to tx-queue", "traffic class n to queue n", srcEOSTCQueue, "", false)
	}
	// The watchdog's defaults labctl could not check in Arista's
	// documentation: lint names each assumption (QOS000), with the
	// ports it decides.
	var wdByDefault, wdActionDefault, wdNoTimer []string
	// wdNoGuarantee: the ports whose watchdog labctl has watching a PFC
	// priority whose tx-queue sets no bandwidth guaranteed, by those
	// queues.
	wdNoGuarantee := map[string][]string{}
	// The ports that rely on an assumption of labctl's or on a
	// platform-specific setting: lint names each (QOS000).
	var schedAssumed, sandQ7, ecnNoProb []string
	// guarantees are the ports whose tx-queue (by number and rate)
	// guarantees bandwidth while carrying no lossless class, and
	// guaranteeLossless those ports' lossless priorities.
	guarantees, guaranteeLossless := map[[2]string][]string{}, map[[2]string][]string{}
	var sandMap []string
	for tc := range qos.NumTC {
		if q, ok := p.tcQueue[tc]; ok && q != tc && (q == 7 || tc == 7) {
			sandMap = append(sandMap, fmt.Sprintf("traffic class %d to tx-queue %d", tc, q))
		}
	}
	// addressedAt is the first Ethernet or Port-Channel interface (a
	// subinterface too) with IP configuration of its own, with its place,
	// "" for none: the files are a whole config, as show running-config
	// gives it, whose routed front-panel ports carry their addresses
	// (qos.PortConfig.L2Whole). A file of QoS alone, as labctl's own labs
	// push over a startup config that holds the ports' modes and
	// addresses (fabric.Graph.WriteEOSStartup; eos.PushConfig
	// merges the file in a configure session), has none, whatever it says
	// of no switchport. ipv6 enable counts: an RFC 5549 fabric's routed
	// ports carry it and no address.
	addressedAt := ""
	for _, name := range p.order {
		if ib := p.intfs[name]; (strings.HasPrefix(name, "Ethernet") || strings.HasPrefix(name, "Port-Channel")) && ib.ipLine != "" {
			addressedAt = ib.ipLine + " in interface " + name
			break
		}
	}
	for _, name := range p.order {
		ib := p.intfs[name]
		if pcb := p.intfs[ib.channel]; ib.channel != "" && pcb != nil && (pcb.qosLine || pcb.profile != "" || pcb.wd != nil || pcb.policy != nil) {
			// labctl reads each interface's own QoS: whether EOS gives a
			// member what its port-channel sets, and which wins where both
			// do, labctl has not checked in Arista's documentation.
			p.notes = append(p.notes, fmt.Sprintf("%s: interface %s is a member of %s (channel-group), which sets QoS (service-profile, service-policy, PFC or trust): labctl applies a port-channel's QoS to none of its members, and reads %s by its own lines alone; whether EOS applies the port-channel's QoS to its members is not checked in Arista's documentation (fix: set the QoS on each member interface, as the simulator and lint read it)", ib.where, name, ib.channel, name))
		}
		// qb is the block whose QoS the port takes: its own, or for a
		// subinterface its parent's (cfgSubinterface).
		qb, parent := ib, cfgSubinterface(name)
		if parent != "" {
			if qb = p.intfs[parent]; qb == nil {
				qb = newCfgBlock(ib.where)
			}
			if ib.profile != "" || ib.pfcOn != nil || len(ib.noDrop) > 0 || len(ib.queues) > 0 || ib.wd != nil || ib.policy != nil {
				p.notes = append(p.notes, fmt.Sprintf("%s: interface %s is a subinterface of %s: labctl gives it %s's QoS (service-profile, PFC, tx-queues, watchdog, service-policy), and reads of its own QoS lines only qos trust and qos cos (EOS 4.28.2F's TOI 'QoS Subinterface': trust mode and default CoS may be set on a subinterface); whether EOS takes the others on a subinterface is not checked (fix: set them on %s)", ib.where, name, parent, parent, parent))
			}
		}
		eff := newCfgBlock(ib.where)
		if qb.profile != "" {
			pb, ok := p.profiles[qb.profile]
			if !ok {
				// EOS applies no profile's settings to the interface (none
				// was given, or no qos profile deleted it): lint reports
				// the reference (QOS013).
				dc.Unresolved = append(dc.Unresolved, qos.Unresolved{Where: "interface " + name, Field: "service-profile", Ref: qb.profile, Table: "qos profile",
					Effect: "the interface takes no qos profile's settings, only its own lines and EOS's defaults (PFC off, no ECN); if another file of the switch's config defines the profile, lint it with this one", Ports: []string{name}})
			} else {
				cfgOverlay(eff, pb)
			}
			eff.qosLine = true
		}
		cfgOverlay(eff, qb)
		eff.routed = ib.routed
		if parent != "" {
			// A subinterface's own trust and default CoS, over its
			// parent's; it is routed (an L3 subinterface) unless it
			// bridges (vlan id or vlan name: an L2 subinterface, Arista's
			// manual, Layer 2 Subinterfaces), and no switchport or
			// switchport line is its.
			if ib.trust != nil {
				eff.trust = ib.trust
			}
			if ib.cos != nil {
				eff.cos = ib.cos
			}
			eff.routed = qos.Ptr(ib.bridged == "" && !cfgPseudowire(ib))
		}
		eff.routed = p.mode(name, ib, eff.routed)
		// trustMode is the mode the port's default trust follows: its
		// own, a subinterface's its parent's (whose trust it takes).
		trustMode := eff.routed
		if parent != "" {
			trustMode = p.mode(parent, qb, qb.routed)
		}
		if !eff.qosLine && eff.wd == nil && !strings.HasPrefix(name, "Ethernet") {
			continue
		}
		mtu := ib.mtu
		routed, mtuOrigin := eff.routed != nil && *eff.routed, ""
		if mtu == 0 && (ib.mtuDefault || p.defMTU > 0 || routed) && (eff.routed == nil || routed) {
			// EOS's default MTU of a routed port: interface defaults',
			// else 1500 (cfgDefaultMTU), which a routed port without an
			// mtu line enforces as one with mtu 1500 does. A port whose
			// mode the files do not say (neither switchport nor no
			// switchport, nor switchport default mode) and that says
			// nothing of its MTU, with no interface defaults mtu, labctl
			// takes to carry the lab's packets (MTU 0): an Ethernet port
			// that says neither is a switchport on EOS, which bridges
			// frames up to the hardware's maximum rather than holding
			// them to an L3 MTU, and a file of QoS alone (labctl's own
			// before it wrote no switchport and mtu) leaves the mode and
			// MTU to the switch's other config.
			mtu, mtuOrigin = p.defMTU, "interface defaults mtu: interface "+name+" sets none"
			if mtu == 0 {
				// In MTU, not DefaultMTU (where SONiC's 9100 sits): moving
				// it would drop "mtu 1500" from such ports' qos.Settings, so
				// regress would call every earlier record of them changed
				// (mtu 1500 -> none), and Settings writing EnforcedMTU
				// instead would add SONiC's 9100 to its records; headroom
				// sizing (lint's QOS014) reads MTU too.
				mtu, mtuOrigin = cfgDefaultMTU, "EOS's default L3 MTU of a routed port: interface "+name+" sets no mtu"
				switch {
				case ib.mtuDefault:
					mtuOrigin = "EOS's default L3 MTU: interface " + name + " says no mtu"
				case ib.mtuRefused != "":
					mtuOrigin = "EOS's default L3 MTU of a routed port: interface " + name + " sets no mtu EOS takes (it refuses " + ib.mtuRefused + ")"
				}
				def("interface mtu (a routed port that sets none)", fmt.Sprintf("%d bytes", cfgDefaultMTU), srcEOSMTU, name, false)
			}
		}
		pc := qos.PortConfig{Name: name, Fabric: true, PFCPriorities: []int{}, MTU: mtu, Routed: routed, SpeedGbps: qb.speedGbps,
			DSCPToTC: maps.Clone(dscp), CoSToTC: maps.Clone(cos), TCToQueue: maps.Clone(tcQueue),
			// EOS pauses and buffers a PFC priority as its own traffic
			// class: the platform's PG and paused queue of priority n are
			// those of TC n.
			TCToPG: qos.IdentityMap(), PFCToQueue: maps.Clone(tcQueue),
			Origins: map[string]string{"dscp_to_tc": "qos map dscp", "tc_to_queue": "qos map traffic-class to tx-queue", "tc_to_pg": "platform: PG n is priority n", "pfc_to_queue": "platform: priority n pauses TC n's queue"}}
		if mtuOrigin != "" {
			pc.Origins["mtu"] = mtuOrigin
		}
		if m, at := p.remark(); m != nil {
			pc.TCToDSCP, pc.Origins["tc_to_dscp"] = m, at
		}
		if parent != "" && ib.bridged != "" {
			// What makes it not routed, the line the renderer writes back.
			pc.Origins["routed"] = ib.bridged
		} else if parent != "" && cfgPseudowire(ib) {
			pc.Origins["routed"] = ib.flexEncap
		}
		pc.AdminDown = p.down(name, ib)
		pc.Channel, pc.ChannelMode = ib.channel, ib.channelMode
		if pcb := p.intfs[ib.channel]; pcb != nil {
			// The port channel's own address (qos.ChannelAlone): the
			// bundled member's traffic is the channel's.
			// EOS ignores IP configuration on a Port-Channel that is a
			// switchport, as on an Ethernet one (qos.NotRouted): the
			// address counts only with no switchport.
			pc.ChannelAddress = (pcb.ipAddr != "" || pcb.ip6Addr != "") && p.routes(ib.channel, pcb)
			if pc.ChannelAddress {
				// The statement, which the renderer writes back in the
				// Port-Channel's block (the model keeps no address).
				pc.Origins["channel_address"] = cmp.Or(pcb.ipAddr, pcb.ip6Addr)
			}
			if (pcb.ipAddr != "" || pcb.ip6Addr != "") && !pc.ChannelAddress {
				pc.ChannelIgnored = pcb.ipLine + " in interface " + ib.channel
			}
			// A Port-Channel shut down carries nothing on any member.
			pc.ChannelDown = p.down(ib.channel, pcb)
			// Where LACP finds no partner, after the fallback timeout, EOS
			// forwards on the member: alone on its own config (individual)
			// or as the port channel's static member. qos.ChannelAlone
			// reads it.
			pc.ChannelFallback = pcb.lacpFallback
			if pc.ChannelMinLinks = pcb.minLinks; pc.ChannelMinLinks > 0 {
				pc.Origins["channel_min_links"] = fmt.Sprintf("interface %s: port-channel min-links %d (%s)", ib.channel, pcb.minLinks, pcb.minLinksAt)
			}
		}
		if parent == "" && ib.switchportAt != "" {
			pc.Switched = "switchport (" + ib.switchportAt + ")"
		}
		if parent == "" && !routed && cfgSwitchport(name) {
			// EOS keeps the port a switchport, which routes nothing
			// (qos.NotRouted, where Arista's behaviour is cited): by its
			// own mode statement (L2Said), else by the switch's default
			// mode. A switchport line of another kind (switchport access
			// vlan 10, switchport mode trunk) sets what the port does as
			// a switchport, not its mode: AVD's eos_cli_config_gen
			// renders such lines in the blocks of routed ports too, above
			// their no switchport (the real configs' ethernet-interfaces.cfg,
			// interface Ethernet1 and Ethernet5).
			head, said := "interface "+name+" ("+ib.where.String()+")", ""
			if ib.switchportLine != "" {
				said = " says " + ib.switchportLine + ", which sets no mode,"
			}
			switch m, _ := p.defaultMode(name); {
			case pc.Switched != "":
				pc.L2, pc.L2Said = pc.Switched, pc.Switched
			case ib.defaultSwitchport != "":
				pc.L2Said = "default switchport (" + ib.defaultSwitchport + ")"
				pc.L2 = pc.L2Said + ": the switch's default mode, a switchport"
			case m == "access":
				pc.L2 = head + said + " under switchport default mode access"
			case said != "":
				pc.L2 = head + said + " and not no switchport: a switchport, EOS's default"
			default:
				pc.L2 = head + " says neither switchport nor no switchport: a switchport, EOS's default"
			}
			pc.L2IP, pc.L2Whole = ib.ipLine, addressedAt
		}
		if parent != "" && (ib.shutdown == nil || !*ib.shutdown) {
			// A subinterface rides its parent's link: the parent down
			// (its shutdown, or interface defaults') takes it down, even
			// where it says no shutdown.
			if why := p.down(parent, qb); why != "" {
				pc.AdminDown = cfgParentDown(why, name)
			}
		}
		if qb.speedGbps > 0 {
			pc.Origins["speed"] = qb.name + " " + qb.speedLine
		}
		switch {
		case eff.trust != nil:
			pc.Trust = *eff.trust
			pc.Origins["trust"] = "interface " + name + " (or its service-profile): qos trust"
		case trustMode != nil && *trustMode:
			pc.Trust = qos.TrustDSCP
			pc.Origins["trust"] = "default for a routed port"
			def("interface qos trust", "dscp (the default of a routed port)", srcEOSUnverified, name, true)
		case trustMode != nil:
			pc.Trust = qos.TrustCoS
			pc.Origins["trust"] = "default for a switchport"
			def("interface qos trust", "cos (the default of a switchport)", srcEOSUnverified, name, true)
		default:
			// The files do not say whether the port is routed; AI fabrics
			// (and labctl's) route every fabric port.
			pc.Trust = qos.TrustDSCP
			pc.Origins["trust"] = "default for a routed port (the files read do not say switchport or no switchport)"
			def("interface qos trust", "dscp, taking the port as routed (EOS trusts DSCP on routed ports, CoS on switchports; the files read do not say which)", srcEOSUnverified, name, true)
		}
		if eff.cos != nil {
			pc.DefaultCoS = *eff.cos
		}
		if pc.Trust == qos.TrustDSCP && len(p.dscpDP) > 0 {
			// The map that classifies the port's packets colours them.
			pc.DSCPToDropPrecedence = maps.Clone(p.dscpDP)
		}
		p.applyPolicy(&pc, eff.policy)
		// A member filters by its port-channel's access-groups ("ports in
		// a port-channel apply the port-channel's ACL": Arista's
		// configuration guide, as Arista Warrior's chapter 16 quotes it).
		groups := ib.accessGroups
		if pcb := p.intfs[ib.channel]; ib.channel != "" && pcb != nil && pcb.accessGroups != nil {
			groups = pcb.accessGroups
		}
		for _, dir := range slices.Sorted(maps.Keys(groups)) {
			p.accessGroupPorts(dir, groups[dir], name)
		}
		if eff.shape.shaper != nil {
			pc.Shaper = qos.Ptr(*eff.shape.shaper)
		}
		if eff.pfcOn != nil && *eff.pfcOn && !p.pfcAllOff {
			for pr, nd := range eff.noDrop {
				if nd {
					pc.PFCPriorities = append(pc.PFCPriorities, pr)
				}
			}
		}
		wdOn := p.wdTimeout > 0
		if eff.wd != nil {
			wdOn = *eff.wd
		}
		if len(pc.PFCPriorities) > 0 && wdOn {
			if eff.wd == nil {
				wdByDefault = append(wdByDefault, name)
			}
			w := &qos.PortWatchdog{DetectionMs: p.wdTimeout, RestorationMs: p.wdRecovery, Action: p.wdAction}
			if eff.wdTimeout > 0 {
				w.DetectionMs = eff.wdTimeout
			}
			if eff.wdRecovery > 0 {
				w.RestorationMs = eff.wdRecovery
			}
			if eff.wdPoll != nil && *eff.wdPoll != p.wdPoll {
				// The port's own poll interval, where it is not the
				// global default's (which auto is read as).
				w.PollMs = *eff.wdPoll
			}
			if eff.wdAction != "" {
				w.Action = eff.wdAction
			}
			// The model names actions as SONiC does where EOS has the
			// same one (qos.WatchdogAction).
			w.Action = qos.WatchdogAction(w.Action)
			switch w.Action {
			case "":
				w.Action = "errdisable"
				def("priority-flow-control pause watchdog action", "errdisable", srcEOSUnverified, name, false)
				wdActionDefault = append(wdActionDefault, name)
			}
			if w.DetectionMs == 0 || w.RestorationMs == 0 {
				wdNoTimer = append(wdNoTimer, name)
			}
			pc.Watchdog = w
			// labctl's watchdog watches every PFC priority of the port
			// (Priorities nil). If EOS's watches only tx-queues with
			// guaranteed bandwidth, it does not watch these.
			var unsure []int
			for _, pr := range pc.PFCPriorities {
				qn := pc.PFCToQueue[pr]
				if q := eff.queues[qn]; (q == nil || q.guaranteed == nil || !*q.guaranteed) && !slices.Contains(unsure, qn) {
					unsure = append(unsure, qn)
				}
			}
			if len(unsure) > 0 {
				slices.Sort(unsure)
				k := qos.FormatInts(unsure)
				wdNoGuarantee[k] = append(wdNoGuarantee[k], name)
				def("priority-flow-control pause watchdog (the tx-queues it watches)",
					"every PFC priority's tx-queue, with or without 'bandwidth guaranteed' (labctl's assumption)", srcEOSWatchdogQueues, name, false)
			}
		}
		// A guarantee on a queue that carries no lossless class, on a port
		// that carries one: not simulated, and it takes from RoCE's share
		// (cfgGuaranteeRisk).
		if len(pc.PFCPriorities) > 0 {
			for qn := range qos.NumTC {
				q := eff.queues[qn]
				if q == nil || q.guaranteed == nil || !*q.guaranteed {
					continue
				}
				lossless := false
				for _, pr := range pc.PFCPriorities {
					lossless = lossless || pc.PFCToQueue[pr] == qn
				}
				if !lossless {
					k := [2]string{strconv.Itoa(qn), q.guaranteedRate}
					guarantees[k] = append(guarantees[k], name)
					if !slices.Contains(guaranteeLossless[k], qos.FormatInts(pc.PFCPriorities)) {
						guaranteeLossless[k] = append(guaranteeLossless[k], qos.FormatInts(pc.PFCPriorities))
					}
				}
			}
		}
		// EOS serves strict-priority tx-queues before round-robin ones
		// and keeps them above: every tx-queue is strict priority until
		// set "no priority", and "no priority" on queue n makes queue n
		// and every lower-numbered queue round robin, whatever their own
		// "priority strict" says ("show qos interfaces" shows such a
		// queue RR operational / SP configured). So the highest queue
		// set "no priority" splits the port: round robin up to it,
		// strict priority above.
		rrTop := -1
		for qn := range qos.NumTC {
			if q := eff.queues[qn]; q != nil && q.strict != nil && !*q.strict {
				rrTop = qn
			}
		}
		if q7 := eff.queues[7]; q7 != nil && ((q7.strict != nil && !*q7.strict) || q7.weight > 0 || q7.ecn != nil || q7.drop != [cfgDropPrecedences]*qos.ECNConfig{} || q7.shape.shaper != nil) ||
			slices.Contains(pc.PFCPriorities, 7) {
			sandQ7 = append(sandQ7, name)
		}
		assumed := false
		for qn := range qos.NumTC {
			qc := qos.QueueConfig{Queue: qn, Strict: qn > rrTop, Origin: "interface " + name}
			q := eff.queues[qn]
			if q != nil && q.origin != "" {
				qc.Origin = q.origin
			}
			switch {
			case q != nil && q.strict != nil:
			case qn > rrTop:
				assumed = true
				def("tx-queue (scheduling)", "strict priority (EOS's default: a tx-queue is strict priority unless it or a higher-numbered queue is set no priority)", srcEOSScheduling, name, false)
			default:
				assumed = true
				def("tx-queue (scheduling)", fmt.Sprintf("round robin (tx-queue %d, numbered above it, is set no priority)", rrTop), srcEOSScheduling, name, false)
			}
			if q != nil && q.ecn != nil && q.ecnNoProb && !slices.Contains(ecnNoProb, name) {
				ecnNoProb = append(ecnNoProb, name)
			}
			if !qc.Strict {
				// A round-robin tx-queue without bandwidth percent is
				// weight 1 here: labctl's assumption, which no source
				// read settles. Arista's EOS manual (its Quality of
				// Service chapter: tx-queue, bandwidth percent) and
				// the account of 'show qos interfaces' behind
				// srcEOSScheduling say what a configured percent is,
				// not how a round-robin queue without one shares the
				// port (an equal part of what the percents leave, a
				// platform weight, or nothing beyond the others), and
				// no TOI read says it either. The model stays as it
				// was; where the switch gives such a queue more than
				// weight 1, lint and the simulator overstate the
				// share left to RoCE's queue while that queue is busy.
				qc.Weight = 1
				if q != nil && q.weight > 0 {
					qc.Weight = q.weight
				}
				if q != nil && q.strict != nil && *q.strict {
					p.overruleStrict(q.strictAt, qn, rrTop, qc.Weight, name)
				}
			}
			if q != nil {
				if q.ecn != nil {
					// EOS's random-detect ecn marks every colour alike.
					qc.SetMarking(*q.ecn)
					qc.WRED.Name = ""
				}
				if e := q.drop[0]; e != nil {
					qc.Drop = qos.Ptr(*e)
				}
				// Yellow's and red's thresholds drop only packets of
				// their colour (pc.DSCPToDropPrecedence); they replace
				// the colour's ECN marking in the model, which keeps one
				// action per colour.
				for dp, e := range q.drop {
					if dp == 0 || e == nil {
						continue // green's is the queue's own drop
					}
					if qc.WRED == nil {
						qc.WRED = &qos.WREDProfile{}
					}
					*qc.WRED.Colour(dp) = &qos.WREDColour{ECNConfig: *e}
				}
				if q.shape.shaper != nil {
					qc.Shaper = qos.Ptr(*q.shape.shaper)
				}
			}
			pc.Queues = append(pc.Queues, qc)
		}
		if assumed {
			schedAssumed = append(schedAssumed, name)
		}
		dc.Ports = append(dc.Ports, pc)
	}
	// A port the config does not name: every default, trusting DSCP as a
	// routed fabric port.
	dp := qos.PortConfig{Fabric: true, PFCPriorities: []int{}, Trust: qos.TrustDSCP, DSCPToTC: maps.Clone(dscp), CoSToTC: maps.Clone(cos),
		TCToQueue: maps.Clone(tcQueue), TCToPG: qos.IdentityMap(), PFCToQueue: maps.Clone(tcQueue)}
	for qn := range qos.NumTC {
		dp.Queues = append(dp.Queues, qos.QueueConfig{Queue: qn, Strict: true})
	}
	// It takes the switch's defaults: interface defaults' MTU and
	// shutdown, and switchport default mode access's CoS trust.
	if p.defMode == "access" {
		dp.Trust = qos.TrustCoS
	}
	dp.Routed = p.defMode == "routed"
	if p.defMode != "access" {
		dp.MTU = p.defMTU
		if dp.Routed && dp.MTU == 0 {
			// Routed by default: EOS's default MTU of a routed port.
			dp.MTU = cfgDefaultMTU
			dp.Origins = map[string]string{"mtu": "EOS's default L3 MTU of a routed port (switchport default mode routed): a port the config does not name"}
		}
	}
	if p.defShutdown != nil && *p.defShutdown {
		dp.AdminDown = "interface defaults: ethernet shutdown"
	}
	if m, at := p.remark(); m != nil {
		if dp.Origins == nil {
			dp.Origins = map[string]string{}
		}
		dp.TCToDSCP, dp.Origins["tc_to_dscp"] = m, at
	}
	dc.DefaultPort = &dp
	// The switch's ports in port order, as qos.PortRanges groups them:
	// p.order is the order the file names them in.
	portOrder := slices.Clone(p.order)
	slices.SortStableFunc(portOrder, qos.ComparePorts)
	assume := func(ports []string, format string, a ...any) {
		if len(ports) > 0 {
			p.notes = append(p.notes, qos.NotePorts(fmt.Sprintf("labctl assumes "+format+" (not checked in Arista's documentation)", a...), qos.PortRanges(ports, portOrder)))
		}
	}
	assume(wdByDefault, "that 'priority-flow-control pause watchdog default timeout' turns the PFC watchdog on at ports with PFC that do not say 'priority-flow-control pause watchdog'")
	assume(wdActionDefault, "that a PFC watchdog without 'priority-flow-control pause watchdog action' errdisables the port on a storm")
	assume(wdNoTimer, "a detection or recovery time of 0 for a PFC watchdog whose timeout or recovery-time is set nowhere")
	for _, k := range slices.Sorted(maps.Keys(wdNoGuarantee)) {
		queues := "tx-queue " + k + ", which sets"
		if strings.ContainsAny(k, ",-") {
			queues = "tx-queues " + k + ", which set"
		}
		// The note names the evidence in brief: lint prints it on every
		// run of labctl's own EOS render, and the whole source is the
		// default's (config show's "default:" line).
		p.notes = append(p.notes, qos.NotePorts(fmt.Sprintf("labctl assumes EOS's PFC watchdog watches every PFC priority of a port it is on, so also %s no 'bandwidth guaranteed' (unverified: a third-party guide says EOS watches only queues with guaranteed bandwidth, an Arista TOI (https://www.arista.com/en/support/toi/tag/pfc) suggests it for some platforms, Arista's manual does not say; labctl config show quotes the sources); if the switch watches only those, a pause storm there goes undetected and pauses the fabric; set 'bandwidth guaranteed' on the tx-queue where the platform accepts it to rely on no assumption",
			queues), qos.PortRanges(wdNoGuarantee[k], portOrder)))
	}
	sourced := func(ports []string, source, format string, a ...any) {
		if len(ports) > 0 {
			p.notes = append(p.notes, qos.NotePorts(fmt.Sprintf(format+" (%s)", append(a, source)...), qos.PortRanges(ports, portOrder)))
		}
	}
	sourced(schedAssumed, srcEOSScheduling, "labctl assumes EOS's scheduling of the tx-queues a port does not set 'priority strict' or 'no priority' for: strict priority, or round robin below a queue set no priority; set every queue's priority to rely on no assumption")
	sourced(ecnNoProb, srcEOSECNProb, "labctl assumes a 'random-detect ecn' line without max-mark-probability marks every packet at its maximum-threshold (probability 100%%); give max-mark-probability to rely on no assumption")
	sourced(sandQ7, srcEOSSandQueue7, "tx-queue 7 is configured (priority, bandwidth, shape rate, ECN or WRED, or PFC on priority 7): on Sand platforms (Jericho, Arad: 7280R, 7500R, 7800R) tx-queue 7 carries traffic class 7, reserved for control-plane traffic, and before EOS 4.33.0F is not user-configurable; labctl cannot tell the platform from the config and models the queue as configured")
	if len(sandMap) > 0 {
		p.notes = append(p.notes, fmt.Sprintf("qos map traffic-class to tx-queue maps %s: on Sand platforms (Jericho, Arad) tx-queue 7 always carries traffic class 7, reserved for control-plane traffic (%s); labctl cannot tell the platform from the config and models the map as written",
			strings.Join(sandMap, ", "), srcEOSSandQueue7))
	}
	if len(p.notes) > 0 {
		dc.Notes = p.notes
	}
	for at := range p.maxMTUAt {
		o := &p.overruled[p.overAt[at]]
		o.What = cfgMaxMTUWhat(o.Ports, portOrder)
	}
	dc.Overruled = p.overruled
	applyPlatformBuffer(&dc)
	for _, k := range slices.SortedFunc(maps.Keys(defaults), func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) }) {
		dc.Defaults = append(dc.Defaults, *defaults[k])
	}
	for _, k := range slices.Sorted(maps.Keys(p.fields)) {
		dc.Fields = append(dc.Fields, p.fields[k])
	}
	for _, k := range slices.SortedFunc(maps.Keys(guarantees), func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) }) {
		p.risks["tx-queue bandwidth guaranteed "+k[0]+" "+k[1]] = cfgGuaranteeRisk(k[0], k[1], strings.Join(guaranteeLossless[k], ", "), qos.PortRanges(guarantees[k], portOrder))
	}
	p.policyRisks()
	p.rewriteRisk()
	for _, k := range slices.Sorted(maps.Keys(p.risks)) {
		dc.Unsimulated = append(dc.Unsimulated, p.risks[k])
	}
	dc.Filters = append(p.accessGroupFilters(portOrder), p.policyRemarkFilters(portOrder)...)
	dc.Sort()
	return dc
}

// cfgGuaranteeRisk is what a tx-queue's bandwidth guaranteed does to RoCE
// where the queue carries no lossless class (lossless: the ports' PFC
// priorities) and the simulator does not run it (lint warns, QOS017):
// EOS serves each queue's guaranteed rate before it shares what is left
// by strict priority and the round-robin weights, so a busy best-effort
// queue with a large guarantee takes bandwidth the weights give the
// lossless class. That guarantees are served ahead of the weights is
// labctl's reading of a minimum-bandwidth guarantee (Arista's manual
// calls it the queue's guaranteed minimum; the order on each platform,
// Trident or Jericho, is not checked). The simulator has no guaranteed
// rate, so its figures give RoCE its weight's share.
func cfgGuaranteeRisk(queue, rate, lossless, ports string) qos.NotRun {
	amount := rate
	f := strings.Fields(rate)
	switch {
	case len(f) == 2 && f[0] == "percent":
		amount = f[1] + "% of the port's speed"
	case len(f) >= 1:
		v, err := strconv.ParseFloat(f[0], 64)
		unit := "kbps"
		if len(f) > 1 {
			unit = f[1]
		}
		scale := map[string]float64{"kbps": 1e-6, "mbps": 1e-3, "gbps": 1}[unit]
		if err == nil && scale > 0 {
			amount = strconv.FormatFloat(v*scale, 'f', -1, 64) + " Gb/s"
		}
	}
	return qos.NotRun{
		Where: fmt.Sprintf("tx-queue %s bandwidth guaranteed %s on %s", queue, rate, ports),
		What: fmt.Sprintf("the queue carries no lossless class (the ports' PFC priorities: %s), and EOS serves its guaranteed %s before it shares the rest by priority and the round-robin weights: while tx-queue %s is busy, the lossless class gets less than its weight gives it, and pauses (PFC) or is marked sooner; the simulator has no guaranteed rate and shares the port by the weights alone, so its figures give RoCE more than the switch does",
			lossless, amount, queue),
		Fix: fmt.Sprintf("lower tx-queue %s's bandwidth guaranteed to what its traffic needs (below its round-robin share), or remove it (no bandwidth guaranteed); set guarantees on the lossless class's queue", queue),
	}
}

// overruleStrict records a tx-queue's "priority strict" that EOS serves
// round robin, as a higher-numbered queue (rrTop) is set no priority: lint
// warns of it (QOS021), as the queue's traffic loses the precedence the
// line promises (CNPs wait behind the data they should throttle).
func (p *cfgParser) overruleStrict(at cfgPos, queue, rrTop, weight int, port string) {
	p.overrule(at, qos.Overruled{
		Where: fmt.Sprintf("tx-queue %d priority strict", queue),
		What:  fmt.Sprintf("EOS keeps strict-priority queues above round-robin ones: tx-queue %d is set no priority, which makes it and every lower-numbered queue round robin, so tx-queue %d is served round robin (weight %d), not strict priority", rrTop, queue, weight),
		Fix:   fmt.Sprintf("set no priority on no queue numbered above tx-queue %d (make tx-queue %d and those between priority strict), or move the class that needs strict priority to a queue above tx-queue %d (qos map traffic-class <tc> to tx-queue <q>)", queue, rrTop, rrTop),
	}, port)
}

// overrule records o, the statement at at, for port: once per statement,
// with every port it serves (a qos profile's line serves many, and a line
// of an interface range each interface of it); port "" for a statement of
// no port (interface defaults).
func (p *cfgParser) overrule(at cfgPos, o qos.Overruled, port string) {
	if i, ok := p.overAt[at]; ok {
		if !slices.Contains(p.overruled[i].Ports, port) {
			p.overruled[i].Ports = append(p.overruled[i].Ports, port)
		}
		return
	}
	if p.overAt == nil {
		p.overAt = map[cfgPos]int{}
	}
	p.overAt[at] = len(p.overruled)
	o.Source, o.Line = at.src, at.line
	if port != "" {
		o.Ports = []string{port}
	}
	p.overruled = append(p.overruled, o)
}

// cfgOverlay applies src's settings over dst.
func cfgOverlay(dst, src *cfgBlock) {
	if src.pfcOn != nil {
		dst.pfcOn = src.pfcOn
	}
	for k, v := range src.noDrop {
		dst.noDrop[k] = v
	}
	dst.qosLine = dst.qosLine || src.qosLine
	if src.trust != nil {
		dst.trust = src.trust
	}
	if src.cos != nil {
		dst.cos = src.cos
	}
	if src.wd != nil {
		dst.wd = src.wd
	}
	if src.wdAction != "" {
		dst.wdAction = src.wdAction
	}
	if src.wdTimeout > 0 {
		dst.wdTimeout = src.wdTimeout
	}
	if src.wdPoll != nil {
		dst.wdPoll = src.wdPoll
	}
	if src.wdRecovery > 0 {
		dst.wdRecovery = src.wdRecovery
	}
	dst.shape = src.shape.over(dst.shape)
	if src.policy != nil {
		dst.policy = src.policy
	}
	for n, q := range src.queues {
		d := dst.queues[n]
		if d == nil {
			d = &cfgQueue{}
			dst.queues[n] = d
		}
		d.touched = d.touched || q.touched
		// An interface's own tx-queue over its profile's: both are where
		// the queue's settings come from.
		switch {
		case !q.touched || q.origin == "":
		case d.origin != "" && d.origin != q.origin:
			d.origin = q.origin + " over " + d.origin
		default:
			d.origin = q.origin
		}
		if q.strict != nil {
			d.strict, d.strictAt = q.strict, q.strictAt
		}
		if q.weight != 0 {
			d.weight = q.weight
		}
		if q.ecn != nil || q.noECN {
			d.ecn, d.ecnNoProb = q.ecn, q.ecnNoProb
		}
		for dp := range cfgDropPrecedences {
			if q.drop[dp] != nil || q.noDrop[dp] {
				d.drop[dp] = q.drop[dp]
			}
		}
		if q.guaranteed != nil {
			d.guaranteed, d.guaranteedRate = q.guaranteed, q.guaranteedRate
		}
		d.shape = q.shape.over(d.shape)
	}
}

// cfgSpeedGbps reads an interface's speed statement: speed [forced]
// <N>g[full|half|-<lanes>] in Gb/s, <N>full or <N>half in Mb/s (10000full),
// and auto, no speed or default speed as negotiated, 0. ok is false for a
// form labctl does not know.
func cfgSpeedGbps(f []string) (gbps int, ok bool) {
	if f[0] == "no" || f[0] == "default" {
		return 0, true
	}
	v := f[1:]
	if len(v) > 0 && v[0] == "forced" {
		v = v[1:]
	}
	if len(v) == 0 {
		return 0, false
	}
	if v[0] == "auto" {
		return 0, true
	}
	if len(v) != 1 {
		return 0, false
	}
	digits := strings.TrimLeft(v[0], "0123456789")
	n, err := strconv.Atoi(strings.TrimSuffix(v[0], digits))
	if err != nil || n <= 0 {
		return 0, false
	}
	switch {
	case digits == "g" || digits == "gfull" || digits == "ghalf":
		return n, true
	case strings.HasPrefix(digits, "g-"):
		if _, err := strconv.Atoi(digits[2:]); err == nil {
			return n, true
		}
	case (digits == "full" || digits == "half") && n%1000 == 0:
		return n / 1000, true
	}
	return 0, false
}

// cfgMisspelt says that word is no keyword where it stands and names the
// one meant, as EOS refuses the line (more: what else follows from it).
func cfgMisspelt(word, meant, more string) string {
	return fmt.Sprintf("%q is no EOS keyword here (fix: did you mean %q? EOS rejects the line with %% Invalid input%s)", word, meant, more)
}
