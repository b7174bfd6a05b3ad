package qos

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/routing"
)

// Device is one switch as the QoS layer sees it: its data ports. The fabric
// graph is adapted to a []Device by the caller.
type Device struct {
	Name  string `json:"name"`
	Role  string `json:"role"` // leaf | spine | super-spine (hosts get no config)
	Ports []Port `json:"ports"`
	// Kind is the switch's containerlab kind and FrontPanel how many
	// front-panel ports its NOS creates (fabric.Graph.FrontPanelPorts;
	// 0: not known), so that a config entry naming a port the switch
	// does not have is found (NoSuchPort).
	Kind       string `json:"-"`
	FrontPanel int    `json:"-"`
}

// NoSuchPort says whether name, read from the device's config, is a
// front-panel port's name (Ethernet...) that the switch does not have: not
// a port of the lab and not one of the ports its NOS creates unused. The
// switch's software applies nothing keyed by such a name (SONiC's
// orchagent: "Port is not found"; EOS refuses the interface). Other names
// (port channels, management) and devices whose ports are not known are
// left to the NOS parser. An EOS subinterface (Ethernet1.100) is the
// switch's where its parent port is: configuring it creates it.
func (d *Device) NoSuchPort(name string) bool {
	if d.FrontPanel == 0 || !strings.HasPrefix(name, "Ethernet") {
		return false
	}
	if parent, sub := SubinterfaceParent(name); sub && d.Kind == fabric.KindCEOS {
		name = parent
	}
	for _, p := range d.Ports {
		if p.Name == name {
			return false
		}
	}
	n, ok := fabric.FrontPanelNumber(d.Kind, name)
	return !ok || n > d.FrontPanel
}

// SameFrontPanel says whether switches d and o (nil: not a lab's) have
// the same front-panel ports: the same Kind and FrontPanel, all of a
// Device that NoSuchPort and FrontPanelPorts read beyond the lab's own
// ports (which FrontPanel counts), so that a NOS parse for one
// (nos.DeviceParser) is one for the other where their files are the same.
func (d *Device) SameFrontPanel(o *Device) bool {
	if d == nil || o == nil {
		return d == o
	}
	return d.Kind == o.Kind && d.FrontPanel == o.FrontPanel
}

// Port is one switch port.
type Port struct {
	Name      string `json:"name"` // NOS name, e.g. Ethernet0
	SpeedGbps int    `json:"speed_gbps"`
	CableM    int    `json:"cable_m"` // 0: the intent's CableLengthM
	// Peer is the far end: "leaf1:Ethernet8" for a switch, the host name
	// (optionally "host:eth1") for a host.
	Peer string `json:"peer"`
	// Fabric is true for data ports (switch-switch or switch-host).
	Fabric bool `json:"fabric"`
	// MTU is the IP MTU the lab's fabric gives the port, a routed port
	// (fabric.SwitchMTU, as the switch's base startup-config sets it); 0:
	// not known (a device not of a lab's fabric).
	MTU int `json:"mtu,omitempty"`
}

// DeviceConfig is the resolved QoS model of one switch: what the switch
// does with its configuration, port by port, as the NOS's own software
// resolves it (SONiC's orchagent into SAI objects, EOS's QoS agent). A NOS
// parser reads its config into the NOS's typed tables and resolves them
// into this model, naming every default it fills in (Defaults) and every
// reference that does not resolve (Unresolved); a renderer writes it back
// as the NOS's config. Lint, the simulator, reports, `config show` and
// `config diff` read this model and nothing else, so they cannot disagree
// about what a field means.
//
// It is concrete: per port, per traffic class and queue, in bytes, with
// every map complete, so two configs compare field by field.
type DeviceConfig struct {
	Device string `json:"device"`
	NOS    string `json:"nos,omitempty"`
	// Pools are the switch's buffer pools. A config without any (EOS CLI
	// carries no buffer settings; a SONiC config without BUFFER_POOL) gets
	// the assumed switch's, named in Defaults.
	Pools []PoolConfig `json:"pools,omitempty"`
	// PlatformBuffer says the buffer (pools and profiles) is not the
	// config's but the assumed platform's (EOS), so a lab's
	// qos.buffer_pool_bytes resizes it.
	PlatformBuffer bool `json:"platform_buffer,omitempty"`
	// ColoursByDSCP says the switch colours packets by its DSCP map alone
	// (PortConfig.DSCPToDropPrecedence; EOS, policers aside, which lint
	// names): a queue's yellow and red WRED concern RoCE only where its
	// DSCPs are coloured so.
	ColoursByDSCP bool `json:"colours_by_dscp,omitempty"`
	// DSCPRewrite says the switch rewrites the DSCP of the packets it
	// routes out (EOS's qos rewrite dscp), whether or not a port's
	// TCToDSCP names a traffic class: the classes it leaves out the switch
	// rewrites by EOS's default map, which labctl does not run.
	DSCPRewrite bool `json:"dscp_rewrite,omitempty"`
	// WatchdogPollMs is the PFC watchdog poll interval (0: no watchdog on
	// any port).
	WatchdogPollMs int `json:"watchdog_poll_ms,omitempty"`
	// PeersKnown says Port.Peer and Port.Fabric come from the lab's fabric;
	// for a bare config file they are guesses.
	PeersKnown bool         `json:"peers_known"`
	Ports      []PortConfig `json:"ports"`
	// Notes are what a parser could not resolve (a service-profile not in
	// the files read, …); lint reports them as info.
	Notes []string `json:"notes,omitempty"`
	// Defaults are the values the NOS applies where the config is silent
	// (a port without a TC-to-queue map, a profile without a threshold),
	// each with its source. They are part of what the switch does: the
	// simulator runs them and `config show` marks them.
	Defaults []Default `json:"defaults,omitempty"`
	// Unresolved are references that name nothing (a QUEUE entry's
	// wred_profile missing from WRED_PROFILE): the switch leaves the
	// object without what it names, which Effect describes. Lint reports
	// each as an error (QOS013).
	Unresolved []Unresolved `json:"unresolved,omitempty"`
	// Overruled are entries of the config that the switch does not apply
	// as they read (a QUEUE key orchagent cannot parse, a BUFFER_PG entry
	// SONiC's buffer manager writes over): the ports hold what the switch
	// does instead, and lint reports each at its file and line (QOS021).
	Overruled []Overruled `json:"overruled,omitempty"`
	// Sources are the files the config was read from, in the order they
	// merge, as the loader names them (configset.Load). A NOS's parse
	// leaves them out, so that devices whose files hold the same bytes
	// can share one parse; Overruled's Source indexes them.
	Sources []string `json:"-"`
	// Unsimulated are settings present in the config that change what a
	// real switch does to RoCE but that labctl does not simulate (a
	// shaper on a lossless queue, a PFC-to-PG map other than identity):
	// lint warns of each (QOS017), since the figures do not show them.
	Unsimulated []NotRun `json:"unsimulated,omitempty"`
	// Filters are the data-path ACL rules bound to the switch's ports
	// that match RoCEv2 packets (UDP to port 4791) of some DSCP, each
	// list's in the order the switch tries them. labctl does not simulate
	// ACLs: lint errs where one drops, redirects or re-marks RoCE's data
	// or its CNPs (QOS017), since the figures do not show it.
	Filters []PacketFilter `json:"filters,omitempty"`
	// DefaultPort is what the NOS gives a port its config does not name
	// at all (every map and setting at its default); AttachTopology gives
	// it to the lab's data ports missing from the files.
	DefaultPort *PortConfig `json:"-"`
	// Fields are the settings present in the config that the simulator
	// does not run: checked by lint only, or ignored, each with why
	// (from the NOS's statement beside each field of its tables). Lint
	// lists them (QOS011), so that none is silently ignored.
	Fields []FieldNote `json:"fields,omitempty"`
}

// NotRun is a setting a config holds that changes what a switch does to
// RoCE but that the simulator does not run.
type NotRun struct {
	// Where is the entry or statement ("PORT_QOS_MAP|Ethernet0
	// tc_to_dscp_map", "tx-queue shape rate"), What what it does.
	Where string `json:"where"`
	What  string `json:"what"`
	// Fix says what to change where the setting's own removal is not the
	// fix ("" for that).
	Fix string `json:"fix,omitempty"`
	// Source and Line place the setting as Overruled's do (0: not known).
	Source int `json:"source,omitempty"`
	Line   int `json:"line,omitempty"`
}

// PacketFilter is one ACL rule bound to ports that matches RoCEv2
// packets (IPv4, UDP to port 4791) of some DSCPs.
type PacketFilter struct {
	// List is the ACL the rule is part of (SONiC: its ACL_TABLE); its
	// rules come in the order the switch tries them, the first that
	// matches a packet deciding.
	List string `json:"list"`
	// Where is the rule ("ACL_RULE|DATAACL|RULE_1"); Source and Line
	// place it as Overruled's do (0: not known).
	Where  string `json:"where"`
	Source int    `json:"source,omitempty"`
	Line   int    `json:"line,omitempty"`
	// Ports are the ports the list is bound to.
	Ports []string `json:"ports,omitempty"`
	// DSCPs are the DSCPs the rule matches (nil: every one).
	DSCPs []int `json:"dscps,omitempty"`
	// Partial says Harm befalls some of the packets it matches only (a
	// policer drops what exceeds its rate): lint warns, not errs.
	Partial bool `json:"partial,omitempty"`
	// Harm is what the rule does to the packets it matches, in the NOS's
	// words ("PACKET_ACTION DROP: drops them"); "" where it forwards them
	// unchanged.
	Harm string `json:"harm,omitempty"`
	// Remark, where not nil, is the DSCP the rule writes into the packets
	// it matches and forwards (an ingress re-mark: EOS's policy-map class
	// set dscp); lint judges it by the class that DSCP gets on the
	// packets' way, and Harm says what the rule does.
	Remark *int `json:"remark,omitempty"`
	// Unsure names the terms of the rule labctl does not decide for
	// RoCE's packets ("its source address 10.0.0.0/8"): the rule matches
	// some of them ("": every RoCEv2 packet of its DSCPs).
	Unsure string `json:"unsure,omitempty"`
}

// Default is one value a NOS applies where the config says nothing.
type Default struct {
	// Field names the setting in the NOS's terms: "PORT_QOS_MAP
	// pfc_to_queue_map", "interface qos trust".
	Field string `json:"field"`
	// Value is what applies, Source where it is documented.
	Value  string `json:"value"`
	Source string `json:"source"`
	// Ports are the ports it applies to (none for a device-wide one).
	Ports []string `json:"ports,omitempty"`
	// Risky says RoCE depends on the setting, so leaving it to the NOS is
	// worth a lint warning (QOS017).
	Risky bool `json:"risky,omitempty"`
	// Unapplied, where the config gives the setting but the switch never
	// applies it, says which entry and why ("": the config leaves it out).
	Unapplied string `json:"unapplied,omitempty"`
}

// Overruled is one config entry that the switch does not apply as it
// reads.
type Overruled struct {
	// Where is the entry ("QUEUE|Ethernet0|3-3").
	Where string `json:"where"`
	// Source is the index in DeviceConfig.Sources of the file that holds
	// the entry, Line its line there (0: not known).
	Source int `json:"source,omitempty"`
	Line   int `json:"line,omitempty"`
	// Field, where set, is the field of the entry the finding is about
	// (a map's pair): Line is its line, where the file holds it.
	Field string `json:"field,omitempty"`
	// At, where Where names no one entry ("the entries naming
	// Ethernet1000"), is the entry (TABLE|key) whose line places it.
	At string `json:"-"`
	// Refused says the switch applies nothing of the entry (lint: an
	// error); otherwise it applies it otherwise than it reads (a warning).
	Refused bool `json:"refused,omitempty"`
	// What says what the switch does with the entry and why, Fix how to
	// write what was meant. Neither names the entry's port, so that one
	// cause on many ports is one finding.
	What string `json:"what"`
	Fix  string `json:"fix"`
	// Ports are the ports the entry names.
	Ports []string `json:"ports,omitempty"`
}

// Position is where an overruled entry of d is: "file:line", "line N"
// when d's files are not named, "" when not known.
func (d *DeviceConfig) Position(o Overruled) string {
	switch {
	case o.Line <= 0:
		return ""
	case o.Source >= 0 && o.Source < len(d.Sources):
		return fmt.Sprintf("%s:%d", d.Sources[o.Source], o.Line)
	}
	return fmt.Sprintf("line %d", o.Line)
}

// Unresolved is one reference that names nothing.
type Unresolved struct {
	// Where is the referring entry ("BUFFER_PG|Ethernet0|3") and Field
	// its field ("profile"); Ref is the name it gives and Table where the
	// name should be defined.
	Where string `json:"where"`
	Field string `json:"field"`
	Ref   string `json:"ref"`
	Table string `json:"table"`
	// Effect is what the switch does instead.
	Effect string `json:"effect"`
	// Rejected, when the config does define Ref, says why the switch
	// refuses that entry, as if it were not there.
	Rejected string `json:"rejected,omitempty"`
	// Fix, when set, is how to write the reference so that it resolves,
	// where defining Ref is not it (a name written in a form the switch
	// refuses).
	Fix string `json:"fix,omitempty"`
	// Ports are the ports whose QoS it changes.
	Ports []string `json:"ports,omitempty"`
}

// FieldNote is a field present in a config that the simulator does not
// run, with how labctl uses it.
type FieldNote struct {
	Field string `json:"field"` // "WRED_PROFILE yellow_min_threshold"
	Use   Use    `json:"use"`
	Why   string `json:"why"`
}

// Trust modes: which packet field classifies a port's ingress traffic.
const (
	// TrustDSCP classifies IP packets by DSCP (DSCPToTC).
	TrustDSCP = "dscp"
	// TrustCoS classifies by the 802.1p priority of tagged frames; untagged
	// ones, as RoCE between routed ports, take the port's DefaultCoS.
	TrustCoS = "cos"
	// TrustNone gives every packet the class of the port's DefaultCoS.
	TrustNone = "none"
)

// PortConfig is one port's resolved QoS: its maps (all complete, whoever
// set them), PFC, queues and priority groups.
type PortConfig struct {
	Name      string `json:"name"`
	SpeedGbps int    `json:"speed_gbps,omitempty"` // 0: not known
	// LinkSpeedGbps is the speed of the lab's link there (0 outside a
	// lab), which the simulator runs: a port the config sets to another
	// speed does not come up with its peer, or runs at the slower one.
	LinkSpeedGbps int `json:"link_speed_gbps,omitempty"`
	// AdvSpeedsGbps are, with auto-negotiation on, the only speeds the
	// port advertises (nil: auto-negotiation off, or every speed): a link
	// whose speed is not among them does not come up at it.
	AdvSpeedsGbps []int `json:"adv_speeds_gbps,omitempty"`
	// CableM is the cable length the switch sizes headroom for (SONiC's
	// CABLE_LENGTH, else the lab's); LinkCableM the cable the lab's
	// fabric really has there (0 outside a lab), which the headroom
	// must cover: a config that says 5m on a 300 m link pauses too late.
	CableM     int `json:"cable_m,omitempty"` // 0: not known
	LinkCableM int `json:"link_cable_m,omitempty"`
	// MTU is the port's MTU as the config sets it (SONiC's PORT mtu,
	// EOS's mtu, or the default EOS gives a routed port that sets none);
	// 0 when it does not say. RoCE's payload MTU is the lab's.
	MTU int `json:"mtu,omitempty"`
	// DefaultMTU, where MTU is 0, is the MTU the switch runs the port at
	// all the same, the NOS's default as labctl assumes it (SONiC's 9100
	// for a PORT entry without mtu, Origins["mtu"] saying so); 0 where
	// labctl takes the port to carry any packet. The simulator and lint's
	// QOS020 hold packets to it (EnforcedMTU); what reads the config's
	// own MTU (headroom sizing, Settings, a renderer) does not.
	DefaultMTU int `json:"default_mtu,omitempty"`
	// Routed: the config makes the port a routed (L3) port (EOS's no
	// switchport), or the lab's fabric does (its ports have their /31s);
	// false where it does not say, or says switchport. A renderer writes
	// it where the NOS distinguishes them (EOS), so that the port's MTU
	// default is the routed port's.
	Routed bool   `json:"routed,omitempty"`
	Peer   string `json:"peer,omitempty"`
	Fabric bool   `json:"fabric"`
	// Trust is TrustDSCP, TrustCoS or TrustNone.
	Trust string `json:"trust"`
	// DSCPToTC maps all 64 DSCPs to a traffic class (trust dscp);
	// CoSToTC the 8 802.1p values (trust cos, and the DefaultCoS of
	// untagged packets). These maps and the three below are read-only:
	// a parser may give ports that name the same map one shared map
	// (SONiC's does); DeviceConfig.Clone gives every port its own.
	DSCPToTC   map[int]int `json:"dscp_to_tc"`
	CoSToTC    map[int]int `json:"cos_to_tc,omitempty"`
	DefaultCoS int         `json:"default_cos,omitempty"`
	// PolicyTC, when not nil, is the traffic class an ingress QoS policy
	// (EOS: service-policy type qos input) gives RoCEv2 packets (IPv4, UDP
	// to port 4791) of each DSCP it decides, ahead of the trust mode and
	// its maps; a DSCP it leaves out is classified by them (TCOf).
	PolicyTC map[int]int `json:"policy_tc,omitempty"`
	// BeyondTC are the DSCPs the switch puts in a traffic class beyond
	// the model's 8 (SONiC's YANG allows 0-15, and its dual-ToR maps put
	// DSCP 33 in TC 8), with that class. DSCPToTC holds them in the class
	// of a DSCP the map leaves out, as lint and the simulator run them;
	// this is what the switch does, for lint's words. Read-only, as the
	// maps above.
	BeyondTC map[int]int `json:"beyond_tc,omitempty"`
	// BeyondQueue are the traffic classes the switch sends to a queue
	// beyond the model's 8 (SONiC's YANG allows TC_TO_QUEUE_MAP queues
	// 0-9), with that queue. TCToQueue holds them in the queue of a class
	// the map leaves out (its own number), as lint and the simulator run
	// them; this is what the switch does, for lint's words. Read-only, as
	// the maps above.
	BeyondQueue map[int]int `json:"beyond_queue,omitempty"`
	// DSCPToDropPrecedence colours the packets of each DSCP the port
	// classifies by DSCP: 1 yellow, 2 red (EOS's qos map dscp ...
	// drop-precedence); a DSCP it leaves out (every one, where it is nil)
	// is green. A coloured packet meets its colour's WRED at the egress
	// queue (QueueConfig.WRED), not green's.
	DSCPToDropPrecedence map[int]int `json:"dscp_to_drop_precedence,omitempty"`
	// TCToQueue is the egress queue of each traffic class when the port
	// sends; TCToPG its ingress priority group when the port receives.
	TCToQueue map[int]int `json:"tc_to_queue"`
	TCToPG    map[int]int `json:"tc_to_pg"`
	// PFCToQueue is the queue a PFC frame for priority p, received on this
	// port, pauses (SONiC's MAP_PFC_PRIORITY_TO_QUEUE).
	PFCToQueue map[int]int `json:"pfc_to_queue"`
	// PFCToPG, when not nil, is the PG whose XOFF sends the PFC frames of
	// each priority (SONiC's PFC_PRIORITY_TO_PRIORITY_GROUP_MAP): a PFC
	// priority whose traffic fills another PG is then paused by that PG
	// and not by its own. Nil: each PFC priority is paused by the PG its
	// traffic class fills (TCToPG).
	PFCToPG map[int]int `json:"pfc_to_pg,omitempty"`
	// TCToDSCP, when not nil, is the DSCP the port writes into the IP
	// packets of each traffic class it sends (egress remarking: SONiC's
	// TC_TO_DSCP_MAP, SAI's TC_AND_COLOR_TO_DSCP map on the port); the
	// next switch classifies them by it. A class the map leaves out keeps
	// its packets' DSCP.
	TCToDSCP map[int]int `json:"tc_to_dscp,omitempty"`
	// PFCPriorities are the priorities with PFC enabled, sorted. A PFC
	// priority is its traffic class.
	PFCPriorities []int `json:"pfc_priorities"`
	// ManagerLossless, when not nil, are the priorities whose PGs the
	// switch's buffer manager makes lossless where they differ from
	// PFCPriorities (GeneratedLossless): SONiC's buffermgrd reads
	// pfc_enable from the PORT_QOS_MAP entry keyed by the port's name
	// alone, so a port whose PFC comes from an entry listing ports gets
	// none (an empty, not nil, list).
	ManagerLossless []int `json:"manager_lossless,omitempty"`
	// PFCAsym makes the port obey PFC frames for every priority, not only
	// its PFCPriorities (SONiC's PORT pfc_asym on: SAI's separate mode,
	// receiving on all, sending for the PFC priorities only).
	PFCAsym  bool          `json:"pfc_asym,omitempty"`
	Watchdog *PortWatchdog `json:"pfc_watchdog,omitempty"`
	// WatchdogDrop, when set, holds priorities of the port in the PFC
	// watchdog's drop action from the start, with no storm (SONiC's
	// PFC_WD|GLOBAL BIG_RED_SWITCH enable): the port neither obeys nor
	// sends PFC for them and drops every packet of them it receives or
	// would send. Lint flags it (QOS027), and the simulator runs those
	// priorities so from the start of the run.
	WatchdogDrop *WatchdogDrop `json:"watchdog_drop,omitempty"`
	// AdminDown, when set, says why the switch keeps the port
	// administratively down (SONiC: PORT admin_status other than up, or a
	// port's full PORT entry without one, portmgr's default): its link
	// carries nothing. Lint flags a data port so (QOS026), and the
	// simulator runs its link down from the start.
	AdminDown string `json:"admin_down,omitempty"`
	// FEC is the forward error correction mode the port's config sets
	// (SONiC: PORT fec, rs, fc, none or auto), "" where it sets none and
	// the port keeps the switch's own. FEC is not negotiated on a port
	// without auto-negotiation: two ends of a link set to different modes
	// cannot decode each other, and the link does not come up
	// (FECMismatch: lint's QOS009, and the simulator runs it down).
	FEC string `json:"fec,omitempty"`
	// Channel is the port channel (LAG) the config makes the port a
	// member of (EOS: channel-group N, "Port-Channel<N>"; SONiC: a
	// PORTCHANNEL_MEMBER key, "PortChannel<N>"), "" for none.
	// A member whose bundle carries no traffic (MemberAlone: the link's
	// other end in no port channel, a channel down or without an
	// address, LACP modes that never bundle, fellow members facing
	// another partner, fewer members up than min links) makes lint's
	// QOS026, and the simulator runs the link down.
	Channel string `json:"channel,omitempty"`
	// ChannelMode is how the member bundles: "active" or "passive" (LACP),
	// "on" (static, no LACP); "" is active (SONiC's teammgrd configures
	// teamd's lacp runner with "active": true for every PORTCHANNEL, addLag
	// in cfgmgr/teammgr.cpp). Two passive ends, or a static end facing an
	// LACP one, never bundle (ChannelAlone).
	ChannelMode string `json:"channel_mode,omitempty"`
	// ChannelAddress says the member's port channel carries an IP address
	// of its own (EOS: interface Port-Channel<N> with an ip or ipv6
	// address and no switchport, without which EOS ignores the address,
	// NotRouted; SONiC: a PORTCHANNEL_INTERFACE|PortChannel<N>|<prefix> key).
	// A bundled member's traffic is its channel's: the address the lab
	// gives the member port itself carries nothing (ChannelAlone).
	ChannelAddress bool `json:"channel_address,omitempty"`
	// ChannelIgnored is the IP configuration of the member's EOS port
	// channel that EOS ignores, with its place, as the channel lacks no
	// switchport (a switchport, NotRouted); "" for none. ChannelAlone
	// names it where ChannelAddress is false.
	ChannelIgnored string `json:"channel_ignored,omitempty"`
	// ChannelDown says why the member's port channel carries nothing on
	// its own account ("" for none): SONiC's PORTCHANNEL admin_status down
	// (teammgrd's setLagAdminStatus sets the team device down), EOS's
	// shutdown in the interface Port-Channel<N> block.
	ChannelDown string `json:"channel_down,omitempty"`
	// ChannelFallback is how the member forwards when LACP finds no
	// partner: "individual" (EOS port-channel lacp fallback individual:
	// the member forwards alone, on its own interface's config, its
	// address included), "static" (EOS's fallback static, SONiC's
	// PORTCHANNEL fallback true, teamd's lacp runner: the port channel
	// forwards on the member as a static member), "" none (it carries
	// nothing). ChannelAlone reads it.
	ChannelFallback string `json:"channel_fallback,omitempty"`
	// ChannelMinLinks is the fewest members of the member's port channel
	// that must carry traffic for it to come up (SONiC: PORTCHANNEL
	// min_links, which teammgrd's addLag hands teamd's lacp runner as
	// runner.min_ports; EOS: port-channel min-links in the interface
	// Port-Channel<N> block), 0 where the config sets none. Fewer, and
	// the channel is down: its members carry nothing (MemberAlone).
	// Origins["channel_min_links"] is the statement with its place.
	ChannelMinLinks int `json:"channel_min_links,omitempty"`
	// Switched is the statement that makes the port an L2 (bridged) port
	// in so many words, with its place: EOS's switchport line, SONiC's
	// VLAN_MEMBER entry; "" for none. On a lab's routed fabric such a
	// port may route nothing (lint's QOS026 warns): what the switch does
	// with the link's addresses labctl has not settled (see SwitchedFix).
	Switched string `json:"switched,omitempty"`
	// L2 is why EOS keeps the port L2 (a switchport) rather than routed,
	// with its place, "" where it routes it (EOS's no switchport,
	// switchport default mode routed; never set by SONiC's resolver): its
	// own mode statement (L2Said), or its interface block saying neither
	// (naming its first switchport line, such as switchport access vlan
	// 10, which sets no mode), or switchport default mode access (an
	// Ethernet or Port-Channel interface is a switchport by default). EOS
	// ignores IP configuration on such a port, so it routes nothing where
	// NotRouted says so.
	// Not among qos.Diff's fields: a file of QoS alone makes every port L2
	// by default, which says nothing of what the switch's other config
	// does; lint's finding and the link down carry it where it hurts.
	L2 string `json:"l2,omitempty"`
	// L2Said is the port's own statement that makes it L2, with its place:
	// switchport (Switched) or default switchport; "" where it is L2 by
	// saying neither. Pushed over a routed port it makes it a switchport,
	// so it counts in a file of QoS alone too (NotRouted).
	L2Said string `json:"l2_said,omitempty"`
	// L2IP is the L2 port's own IP configuration, which EOS ignores, with
	// its place: its last ip or ipv6 address or ipv6 enable line; "" for
	// none.
	L2IP string `json:"l2_ip,omitempty"`
	// L2Whole is where the L2 port's switch's config addresses a
	// front-panel port (an Ethernet or Port-Channel interface's ip or ipv6
	// address or ipv6 enable), "" where none does: the files are then a
	// whole config, as show running-config gives it, in which a port that
	// says neither switchport nor no switchport is a switchport. Without
	// it the files may be QoS alone pushed over a startup config that
	// holds the ports' modes (labctl's own labs), which a port's silence
	// leaves as they are (NotRouted).
	L2Whole string `json:"l2_whole,omitempty"`
	// Queues are the 8 egress queues; PGs the priority groups the port's
	// traffic classes use, each with the buffer profile that applies.
	Queues []QueueConfig `json:"queues"`
	PGs    []PGConfig    `json:"pgs,omitempty"`
	// Origins say where each map came from, by map name ("dscp_to_tc":
	// "DSCP_TO_TC_MAP|AZURE via PORT_QOS_MAP|global").
	Origins map[string]string `json:"origins,omitempty"`
	// Shaper caps the rate the port sends at, all its queues together
	// (SONiC's PORT_QOS_MAP scheduler's pir, EOS's interface shape
	// rate); nil when the port is not shaped.
	Shaper *Shaper `json:"shaper,omitempty"`
	// BufferUnknown says the files read hold no buffer tables at all
	// (SONiC's QoS and buffer tables often come in separate files), so
	// PGs and queue buffers are not known; lint does not judge them, and a
	// lab gives the port the buffer labctl assumes (AttachTopology).
	BufferUnknown bool `json:"buffer_unknown,omitempty"`
}

// PortWatchdog is the PFC watchdog of a port.
type PortWatchdog struct {
	DetectionMs   int    `json:"detection_ms"`
	RestorationMs int    `json:"restoration_ms"`
	Action        string `json:"action"`
	// PollMs is the port's own poll interval (EOS: port timer
	// polling-interval N); 0: the device's WatchdogPollMs (PollMsOf).
	PollMs int `json:"poll_ms,omitempty"`
	// Priorities are the priorities it watches (SONiC's pfcwd_sw_enable,
	// the bitmap its orchagent starts the watchdog on); nil for every PFC
	// priority of the port (EOS, whose watchdog is the interface's).
	Priorities []int `json:"priorities,omitempty"`
}

// WatchdogDrop is a PFC watchdog's drop action forced on priorities of
// a port (PortConfig.WatchdogDrop).
type WatchdogDrop struct {
	// Priorities are those dropped, sorted (a priority's queue is its
	// own, as the watchdog's action takes it).
	Priorities []int `json:"priorities"`
	// Where is the setting that forces it ("PFC_WD|GLOBAL
	// BIG_RED_SWITCH"), Fix how to lift it.
	Where string `json:"where"`
	Fix   string `json:"fix,omitempty"`
}

// Drops says whether the forced drop action holds priority tc (w may be
// nil: none).
func (w *WatchdogDrop) Drops(tc int) bool {
	return w != nil && slices.Contains(w.Priorities, tc)
}

// PollMsOf is the interval the watchdog polls its queues at on a port of
// d: its own, else the device's (0: none given).
func (w *PortWatchdog) PollMsOf(d *DeviceConfig) int {
	if w.PollMs > 0 {
		return w.PollMs
	}
	return d.WatchdogPollMs
}

// Watches says whether the watchdog watches priority tc (when PFC runs
// on it).
func (w *PortWatchdog) Watches(tc int) bool {
	return w.Priorities == nil || slices.Contains(w.Priorities, tc)
}

// WatchdogActions are the actions a port's watchdog may take: SONiC's
// drop, forward and alert, and EOS's errdisable (EOS's no-drop reads as
// forward and its notify-only as alert; notify-only stays valid for
// models built before that).
var WatchdogActions = []string{"drop", "forward", "alert", "errdisable", "notify-only"}

// WatchdogAction is a watchdog action by the name the model gives it:
// SONiC's where EOS has the same one under another name (EOS's no-drop
// forwards, its notify-only only alerts), else as given. The EOS reader,
// the simulator, lint and the settings regress compares all read it.
func WatchdogAction(a string) string {
	switch a {
	case "no-drop":
		return "forward"
	case "notify-only":
		return "alert"
	}
	return a
}

// QueueConfig is one egress queue's scheduling, WRED/ECN and admission.
type QueueConfig struct {
	Queue  int  `json:"queue"`
	Strict bool `json:"strict"`
	Weight int  `json:"weight,omitempty"` // DWRR weight or bandwidth percent
	// ECN is how the queue marks green (uncoloured) ECN-capable packets:
	// nil when it does not.
	ECN *ECNConfig `json:"ecn,omitempty"`
	// Drop is how WRED drops green packets early (a WRED profile that does
	// not mark green, EOS's random-detect drop): nil when it does not.
	Drop *ECNConfig `json:"wred_drop,omitempty"`
	// WRED is the rest of the queue's WRED profile (its name, yellow and
	// red); nil when the queue has no profile or only green is known.
	WRED *WREDProfile `json:"wred,omitempty"`
	// Buffer is the queue's egress admission (SONiC's BUFFER_QUEUE
	// profile, or the NOS's default).
	Buffer *BufferProfile `json:"buffer,omitempty"`
	// Shaper caps the rate the queue sends at (SONiC's SCHEDULER pir,
	// EOS's tx-queue shape rate); nil when it is not shaped.
	Shaper *Shaper `json:"shaper,omitempty"`
	// Origin says where the queue's scheduler, WRED and buffer came from.
	Origin string `json:"origin,omitempty"`
}

// Shaper is a queue's or a port's shaper: the queue (the port) sends no
// faster than its peak rate, a token bucket of BurstBytes refilled at that rate. The rate is
// RateKbps, or, when that is 0, Percent of the port's speed (EOS's "shape
// rate 40 percent"), resolved against the speed of the port's link where
// the simulator runs it. The switch's shaper counts the bytes of each
// frame on the wire; a frame leaves once the bucket holds it, so a
// BurstBytes below a full-size frame (0: none configured) counts as one,
// as an ASIC's least bucket holds a frame, and a queue may send its burst
// and the frame in hand at line rate before the rate paces it.
type Shaper struct {
	RateKbps   int64 `json:"rate_kbps,omitempty"`
	Percent    int   `json:"percent,omitempty"`
	BurstBytes int64 `json:"burst_bytes,omitempty"`
	// PacketsPerSec, when above 0, meters frames instead of bytes (SONiC's
	// meter_type packets, EOS's shape rate in pps): the queue (the port)
	// sends at most that many frames a second, whatever their size, in
	// bursts of BurstPackets (below one, one). RateKbps, Percent and
	// BurstBytes are then 0.
	PacketsPerSec int64 `json:"packets_per_sec,omitempty"`
	BurstPackets  int64 `json:"burst_packets,omitempty"`
}

// RateKbpsAt is the shaper's rate on a port of speedGbps: RateKbps, or
// Percent of the speed.
func (s *Shaper) RateKbpsAt(speedGbps int) int64 {
	if s.RateKbps > 0 {
		return s.RateKbps
	}
	return int64(speedGbps) * 1_000_000 * int64(s.Percent) / 100
}

// WREDProfile is the rest of a queue's WRED profile: its name and the
// colours other than green. Green, the colour of every packet no policer
// coloured (all simulated packets), is the queue's ECN (marked) or Drop
// (dropped early), so each colour's thresholds are held once.
type WREDProfile struct {
	Name string `json:"name"`
	// Yellow and Red are those colours' WRED, nil where it is disabled.
	Yellow *WREDColour `json:"yellow,omitempty"`
	Red    *WREDColour `json:"red,omitempty"`
}

// DropPrecedences are the packet colours by drop precedence (EOS's qos
// map dscp ... drop-precedence N and random-detect drop drop-precedence
// N; a port's DSCPToDropPrecedence): 0 green, 1 yellow, 2 red.
var DropPrecedences = [...]string{"green", "yellow", "red"}

// Colour is the WRED of drop precedence dp's colour (1 yellow, 2 red), a
// pointer to the field that holds it; nil for green (the queue's own
// ECN or Drop) and any other precedence.
func (w *WREDProfile) Colour(dp int) **WREDColour {
	switch dp {
	case 1:
		return &w.Yellow
	case 2:
		return &w.Red
	}
	return nil
}

// WREDColour is one colour's WRED: its thresholds, and whether it marks
// ECN-capable packets (else it drops them early).
type WREDColour struct {
	ECNConfig
	Mark bool `json:"mark"`
}

// MarksColour says whether a SONiC ECN mode (WRED_PROFILE ecn) marks,
// rather than drops, a colour ("green", "yellow", "red").
func MarksColour(mode, colour string) bool {
	switch mode {
	case "ecn_all":
		return true
	case "", "ecn_none":
		return false
	}
	return strings.Contains(strings.TrimPrefix(mode, "ecn_"), colour)
}

// SetMarking makes the queue mark every colour at e, as labctl's own
// profiles do (ECN_<min>_<max>_<pct>). A profile of the config's own whose
// colours differ keeps its name and its yellow and red settings; only
// green changes.
func (q *QueueConfig) SetMarking(e ECNConfig) {
	uniform := q.WRED == nil || q.ECN != nil && q.WRED.Yellow != nil && q.WRED.Red != nil &&
		q.WRED.Yellow.ECNConfig == *q.ECN && q.WRED.Red.ECNConfig == *q.ECN && q.WRED.Yellow.Mark && q.WRED.Red.Mark
	q.ECN = Ptr(e)
	if !uniform {
		return
	}
	name := fmt.Sprintf("ECN_%d_%d_%d", e.MinBytes, e.MaxBytes, int(math.Round(e.Pmax*100)))
	if q.WRED != nil && !strings.HasPrefix(q.WRED.Name, "ECN_") && q.WRED.Name != "" {
		name = q.WRED.Name
	}
	if e.Unit != "" {
		name = ""
	}
	q.WRED = &WREDProfile{Name: name, Yellow: &WREDColour{ECNConfig: e, Mark: true}, Red: &WREDColour{ECNConfig: e, Mark: true}}
}

// ECNMode is SONiC's ecn field for a queue's WRED: the colours that mark.
func (q *QueueConfig) ECNMode() string {
	var marks []string
	if q.ECN != nil {
		marks = append(marks, "green")
	}
	if q.WRED != nil && q.WRED.Yellow != nil && q.WRED.Yellow.Mark {
		marks = append(marks, "yellow")
	}
	if q.WRED != nil && q.WRED.Red != nil && q.WRED.Red.Mark {
		marks = append(marks, "red")
	}
	switch len(marks) {
	case 0:
		return "ecn_none"
	case 3:
		return "ecn_all"
	}
	return "ecn_" + strings.Join(marks, "_")
}

// ECNConfig is a queue's WRED thresholds for one colour: marking (ECN) or
// early drop.
type ECNConfig struct {
	MinBytes int64   `json:"min_bytes"`
	MaxBytes int64   `json:"max_bytes"`
	Pmax     float64 `json:"pmax"` // 0-1
	// Unit is "" when Min/Max are bytes; otherwise the vendor unit the
	// raw numbers are in ("segments", "milliseconds", "microseconds"),
	// which lint cannot compare with buffers.
	Unit string `json:"unit,omitempty"`
}

// PGConfig is one ingress priority group's buffer: a lossless profile
// (PFC headroom, XOFF/XON: see LosslessProfile) or a lossy one.
type PGConfig struct {
	PG int `json:"pg"`
	BufferProfile
	// Origin is where the profile came from ("BUFFER_PG|Ethernet0|3", or
	// the default that applies).
	Origin string `json:"origin,omitempty"`
	// Assumed says the profile is not in the files read: the NOS makes
	// one (SONiC's buffer manager creates a PFC priority's lossless PG
	// from the SKU's tables), and labctl assumes the one it renders for
	// the port (AttachTopology, for a lab).
	Assumed bool `json:"assumed,omitempty"`
}

// BufferProfile is the admission a switch applies to one ingress priority
// group or one egress queue, as SONiC's BUFFER_PROFILE gives it. Pointer
// fields are nil when the config does not set them, so an explicit 0 (no
// headroom, no reserve) stays distinct from "not given".
type BufferProfile struct {
	// Profile is the vendor's profile name (informational).
	Profile string `json:"profile,omitempty"`
	// Pool is the buffer pool the profile draws its shared part from.
	Pool string `json:"pool,omitempty"`
	// SizeBytes is the reserved (guaranteed) buffer, used before the
	// shared pool. For SONiC lossless PGs it is xon + xoff without a
	// shared headroom pool, and xon with one.
	SizeBytes *int64 `json:"size_bytes,omitempty"`
	// StaticThBytes caps the shared use at a fixed size; DynamicTh at
	// alpha = 2^dynamic_th times the pool's free space. One of the two
	// is set.
	StaticThBytes *int64 `json:"static_th_bytes,omitempty"`
	DynamicTh     *int   `json:"dynamic_th,omitempty"`
	// Lossless PGs: XoffBytes is the headroom absorbed after XOFF; XON is
	// sent once the use falls below XonBytes, or XonOffsetBytes below the
	// XOFF point, whichever is higher.
	XoffBytes      *int64 `json:"xoff_bytes,omitempty"`
	XonBytes       *int64 `json:"xon_bytes,omitempty"`
	XonOffsetBytes *int64 `json:"xon_offset_bytes,omitempty"`
	// SizedBySwitch is a lossless profile the switch sizes from tables
	// labctl does not have, for a port whose speed the files read do not
	// give (SONiC's buffer manager for a bare config without PORT): it
	// pauses, with a headroom labctl cannot know, so its xoff is unset.
	SizedBySwitch bool `json:"sized_by_switch,omitempty"`
}

// Range of dynamic_th: alpha = 2^dynamic_th from 1/128 to 256; -8 is
// Mellanox's alpha 0 (no shared buffer at all).
const (
	DynamicThZero = -8
	DynamicThMax  = 8
)

// PoolConfig is one of a switch's buffer pools (SONiC's BUFFER_POOL).
type PoolConfig struct {
	Name string `json:"name"`
	// Type is "ingress" or "egress"; Mode "dynamic" or "static".
	Type      string `json:"type"`
	Mode      string `json:"mode"`
	SizeBytes int64  `json:"size_bytes"`
	// HeadroomPoolBytes is the shared headroom pool (SONiC's xoff on an
	// ingress pool): lossless PGs draw their headroom from it instead of
	// reserving it per port. Nil or 0: no shared headroom pool
	// (HeadroomShared).
	HeadroomPoolBytes *int64 `json:"headroom_pool_bytes,omitempty"`
}

// HeadroomShared says whether the pool has a shared headroom pool for
// its lossless PGs. A size of 0 is none: SAI's
// SAI_BUFFER_POOL_ATTR_XOFF_SIZE defaults to 0, which disables the shared
// headroom pool, so each PG keeps its headroom inside its own reserve (a
// SONiC BUFFER_POOL written with xoff "0" is a pool without one).
func (pl *PoolConfig) HeadroomShared() bool {
	return pl != nil && pl.HeadroomPoolBytes != nil && *pl.HeadroomPoolBytes > 0
}

// Val returns *p, or 0 when p is nil.
func Val[T int | int64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

// Ptr returns a pointer to v, for the optional fields above.
func Ptr[T any](v T) *T { return &v }

// Pool returns the named pool, or nil.
func (d *DeviceConfig) Pool(name string) *PoolConfig {
	for i := range d.Pools {
		if d.Pools[i].Name == name {
			return &d.Pools[i]
		}
	}
	return nil
}

// IngressPoolBytes is the size of the ingress pool lossless PGs draw on
// (ingress_lossless_pool, else the first ingress pool; 0 when the config
// has none).
func (d *DeviceConfig) IngressPoolBytes() int64 {
	if pl := d.Pool(IngressLosslessPool); pl != nil {
		return pl.SizeBytes
	}
	for _, pl := range d.Pools {
		if pl.Type == "ingress" {
			return pl.SizeBytes
		}
	}
	return 0
}

// Port returns the port config by name.
func (d *DeviceConfig) Port(name string) *PortConfig {
	for i := range d.Ports {
		if d.Ports[i].Name == name {
			return &d.Ports[i]
		}
	}
	return nil
}

// Queue returns the queue config, or nil.
func (p *PortConfig) Queue(q int) *QueueConfig {
	for i := range p.Queues {
		if p.Queues[i].Queue == q {
			return &p.Queues[i]
		}
	}
	return nil
}

// Holds says whether shaper sh of the port (its own or a queue's) can hold
// traffic back: its rate is below the speed the port runs at, or, with
// the speed unknown, it is a rate or a percent below 100. A shaper at or
// above line rate never holds a frame. A packet meter is taken to hold:
// whether it does depends on the frames' sizes.
func (p *PortConfig) Holds(sh *Shaper) bool {
	if sh == nil {
		return false
	}
	if sh.PacketsPerSec > 0 {
		return true
	}
	speed := p.RunSpeedGbps()
	if speed <= 0 {
		return sh.RateKbps > 0 || sh.Percent > 0 && sh.Percent < 100
	}
	rate := sh.RateKbpsAt(speed)
	return rate > 0 && rate < int64(speed)*1_000_000
}

// RunSpeedGbps is the speed the port runs at: its lab link's, else the
// config's own (0: not known).
func (p *PortConfig) RunSpeedGbps() int {
	if p.LinkSpeedGbps > 0 {
		return p.LinkSpeedGbps
	}
	return p.SpeedGbps
}

// LACPMode is how the port bundles into its channel: ChannelMode, "" read
// as active.
func (p *PortConfig) LACPMode() string {
	return cmp.Or(p.ChannelMode, "active")
}

// EnforcedMTU is the L3 MTU the port holds packets to: the config's
// (MTU), else the NOS's default (DefaultMTU); 0 where labctl knows of
// none, and takes the port to carry any packet.
func (p *PortConfig) EnforcedMTU() int {
	if p.MTU > 0 {
		return p.MTU
	}
	return p.DefaultMTU
}

// PG returns the PG config, or nil.
func (p *PortConfig) PG(pg int) *PGConfig {
	for i := range p.PGs {
		if p.PGs[i].PG == pg {
			return &p.PGs[i]
		}
	}
	return nil
}

// Sort puts ports, queues and PGs in a stable order (ports by NOS
// interface number, so Ethernet4 before Ethernet12), and the lists of
// defaults and unresolved references by what they name.
func (d *DeviceConfig) Sort() {
	sort.SliceStable(d.Ports, func(i, j int) bool { return PortLess(d.Ports[i].Name, d.Ports[j].Name) })
	for i := range d.Ports {
		p := &d.Ports[i]
		sort.Ints(p.PFCPriorities)
		p.PFCPriorities = slices.Compact(p.PFCPriorities)
		sort.Slice(p.Queues, func(a, b int) bool { return p.Queues[a].Queue < p.Queues[b].Queue })
		sort.Slice(p.PGs, func(a, b int) bool { return p.PGs[a].PG < p.PGs[b].PG })
	}
	for i := range d.Defaults {
		sortPorts(d.Defaults[i].Ports)
	}
	sort.SliceStable(d.Defaults, func(i, j int) bool {
		a, b := d.Defaults[i], d.Defaults[j]
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Value < b.Value
	})
	for i := range d.Unresolved {
		sortPorts(d.Unresolved[i].Ports)
	}
	sort.SliceStable(d.Unresolved, func(i, j int) bool {
		a, b := d.Unresolved[i], d.Unresolved[j]
		if a.Where != b.Where {
			return PortLess(a.Where, b.Where)
		}
		return a.Field < b.Field
	})
	for i := range d.Overruled {
		sortPorts(d.Overruled[i].Ports)
	}
	sort.SliceStable(d.Overruled, func(i, j int) bool {
		a, b := d.Overruled[i], d.Overruled[j]
		if a.Where != b.Where {
			return PortLess(a.Where, b.Where)
		}
		return a.What < b.What
	})
	sort.SliceStable(d.Fields, func(i, j int) bool { return d.Fields[i].Field < d.Fields[j].Field })
}

func sortPorts(ps []string) {
	sort.SliceStable(ps, func(i, j int) bool { return PortLess(ps[i], ps[j]) })
}

// PortLess orders interface names by their text with embedded numbers
// compared as numbers ("Ethernet4" < "Ethernet12", "Ethernet1/2" <
// "Ethernet1/10"): routing.PortLess, the one port order of labctl.
func PortLess(a, b string) bool { return routing.PortLess(a, b) }

// ComparePorts is PortLess as a comparison, for slices.SortFunc: ports,
// and fields with embedded numbers (queue.10 after queue.9), numerically.
func ComparePorts(a, b string) int {
	switch {
	case PortLess(a, b):
		return -1
	case PortLess(b, a):
		return 1
	}
	return 0
}

// IdentityMap is n -> n for the 8 traffic classes, priorities and queues.
func IdentityMap() map[int]int {
	m := make(map[int]int, NumTC)
	for i := range NumTC {
		m[i] = i
	}
	return m
}

// fabricPorts are the switch's data ports by name (the first of a name, as
// the config Apply renders finds it with DeviceConfig.Port).
func (d *Device) fabricPorts() map[string]*Port {
	out := make(map[string]*Port, len(d.Ports))
	for k := range d.Ports {
		if p := &d.Ports[k]; p.Fabric {
			if _, dup := out[p.Name]; !dup {
				out[p.Name] = p
			}
		}
	}
	return out
}

// portWithoutSpeed names the first data port of the switch whose speed
// is not known, which Apply refuses.
func (d *Device) portWithoutSpeed() (string, bool) {
	for _, p := range d.Ports {
		if p.Fabric && p.SpeedGbps <= 0 {
			return p.Name, true
		}
	}
	return "", false
}

// Apply turns the lab intent into one switch's config. Ports that are not
// Fabric get no QoS. Speeds must be known: a port without one is an error
// naming it, because headroom and ECN thresholds scale with speed.
func Apply(in Intent, dev Device) (DeviceConfig, error) {
	dc := DeviceConfig{Device: dev.Name, PeersKnown: true}
	// The buffer is the ASIC's whether or not PFC is on: pools and lossy
	// admission always, lossless PGs only with PFC.
	dc.Pools = pools(in.Buffer.poolBytes(dev))
	if in.PFC.Enabled && in.Watchdog.Enabled {
		dc.WatchdogPollMs = in.Buffer.WatchdogPollMs
	}
	if name, ok := dev.portWithoutSpeed(); ok {
		return DeviceConfig{}, fmt.Errorf("apply qos to %s port %s: speed is not known; the fabric must give every data port a speed", dev.Name, name)
	}
	for _, p := range dev.Ports {
		if p.Fabric {
			dc.Ports = append(dc.Ports, in.portConfig(p))
		}
	}
	sizeEgressLossless(in, dev, &dc)
	dc.Sort()
	return dc, nil
}

// cableM is a port's cable length: the fabric's, else the intent's.
func (in Intent) cableM(p Port) int {
	if p.CableM > 0 {
		return p.CableM
	}
	return in.CableLengthM
}

// portMTU is the MTU the intent renders on a port of the lab's fabric
// (FabricPortMTU, from the port's own, the fabric's); 0 for a port whose
// MTU the fabric does not give.
func (in Intent) portMTU(p Port) int {
	if p.MTU == 0 {
		return 0
	}
	return in.FabricPortMTU(p.MTU)
}

// FabricPortMTU is the MTU the intent renders on a fabric port whose own
// is mtu (fabric.SwitchMTU for the lab's): that, raised to what RoCE's
// packets need (the lab's MTU plus RoCEHeaderBytes) where the lab's MTU is
// larger, so that a config labctl renders carries its lab's packets
// without relying on a NOS's default (EOS's routed ports default to
// 1500). nos.CheckSpec holds it to the MTUs the lab's NOS takes.
func (in Intent) FabricPortMTU(mtu int) int {
	return max(mtu, in.MTU+RoCEHeaderBytes)
}

// portConfig is what the intent renders for one data port of a switch
// (Apply's port; p.SpeedGbps known). Of the port it reads the speed and
// cable length (cableM), and copies the name and peer.
func (in Intent) portConfig(p Port) PortConfig {
	cnpQueue := in.TCToQueue[CNPTC]
	losslessQueues := map[int]bool{}
	for _, tc := range in.LosslessPriorities {
		losslessQueues[in.TCToQueue[tc]] = true
	}
	cable := in.cableM(p)
	pc := PortConfig{
		Name: p.Name, SpeedGbps: p.SpeedGbps, CableM: cable, MTU: in.portMTU(p), Routed: p.MTU > 0,
		Peer: p.Peer, Fabric: true, PFCPriorities: []int{}, Trust: TrustDSCP,
		DSCPToTC: maps.Clone(in.DSCPToTC), TCToQueue: maps.Clone(in.TCToQueue), TCToPG: maps.Clone(in.TCToPG),
		// PFC priority n pauses traffic class n, which sits in
		// TCToQueue[n].
		PFCToQueue: maps.Clone(in.TCToQueue),
	}
	if in.PFC.Enabled {
		pc.PFCPriorities = slices.Clone(in.LosslessPriorities)
		if in.Watchdog.Enabled {
			pc.Watchdog = &PortWatchdog{DetectionMs: in.Watchdog.DetectionMs, RestorationMs: in.Watchdog.RestorationMs, Action: in.Watchdog.Action}
		}
	}
	for q := range NumTC {
		qc := QueueConfig{Queue: q}
		if q == cnpQueue && in.CNPStrict {
			qc.Strict = true
		} else if w, ok := in.ETSWeights[q]; ok {
			qc.Weight = w
		} else {
			// A queue without a weight still needs one to be
			// scheduled by DWRR; 1 is the smallest share.
			qc.Weight = 1
		}
		if in.ECN.Enabled && losslessQueues[q] {
			kmin, kmax := in.ECN.ECNThresholds(p.SpeedGbps)
			qc.SetMarking(ECNConfig{MinBytes: kmin, MaxBytes: kmax, Pmax: in.ECN.Pmax})
		}
		if in.PFC.Enabled && losslessQueues[q] {
			qc.Buffer = Ptr(EgressLosslessProfile())
		} else {
			qc.Buffer = Ptr(EgressLossyProfile())
		}
		pc.Queues = append(pc.Queues, qc)
	}
	lossless := map[int]bool{}
	if in.PFC.Enabled {
		for _, tc := range in.LosslessPriorities {
			lossless[in.TCToPG[tc]] = true
		}
	}
	used := map[int]bool{}
	for _, pg := range in.TCToPG {
		used[pg] = true
	}
	for _, pg := range slices.Sorted(maps.Keys(used)) {
		if lossless[pg] {
			pc.PGs = append(pc.PGs, PGConfig{PG: pg, BufferProfile: in.losslessPGProfile(p.SpeedGbps, cable)})
		} else {
			pc.PGs = append(pc.PGs, PGConfig{PG: pg, BufferProfile: IngressLossyProfile()})
		}
	}
	return pc
}

// losslessPGProfile is the PG profile the intent gives a lossless PG of a
// port at speedGbps with cableM of cable: XOFF at the headroom the round
// trip needs (HeadroomBytes), two MTUs of XON above it, the intent's XON
// offset and alpha, from the ingress lossless pool.
func (in Intent) losslessPGProfile(speedGbps, cableM int) BufferProfile {
	hr := HeadroomBytes(speedGbps, in.MTU, cableM, PauseResponseBits(&in, speedGbps))
	xon := int64(2 * in.MTU)
	return BufferProfile{
		Profile: LosslessPGProfileName(speedGbps, cableM), Pool: IngressLosslessPool,
		XoffBytes: Ptr(hr), XonBytes: Ptr(xon), SizeBytes: Ptr(hr + xon),
		XonOffsetBytes: Ptr(int64(in.Buffer.XonOffsetBytes)), DynamicTh: Ptr(in.Buffer.DynamicTh),
	}
}

// sizeEgressLossless makes the egress lossless pool the whole buffer: the
// ingress shared pool plus every reserve and private headroom the intent
// can set aside (with PFC on, so the ASIC's size does not change with a
// variant). Lossless packets are bounded by PFC at ingress; an egress pool
// smaller than what ingress admits would drop them (SONiC's Broadcom
// profiles give egress_lossless_pool the whole MMU for the same reason).
func sizeEgressLossless(in Intent, dev Device, dc *DeviceConfig) {
	pl := dc.Pool(EgressLosslessPool)
	if pl == nil {
		return
	}
	total := dc.IngressPoolBytes()
	lossy := Val(EgressLossyProfile().SizeBytes)
	pgs := map[int]bool{} // the lossless priorities' PGs, the same on every port
	for _, tc := range in.LosslessPriorities {
		pgs[in.TCToPG[tc]] = true
	}
	for _, p := range dev.Ports {
		if !p.Fabric {
			continue
		}
		total += int64(len(pgs)) * Val(in.losslessPGProfile(p.SpeedGbps, in.cableM(p)).SizeBytes)
		total += NumTC * lossy
	}
	pl.SizeBytes = total
}

// ingressAdmitsBytes is the most a switch's ingress can hold for its
// PGs: the pool they draw on, its shared headroom pool, and every PG's
// reserve (a profile's size), which sits outside the pools.
func (d *DeviceConfig) ingressAdmitsBytes() int64 {
	total := d.IngressPoolBytes()
	if pl := d.Pool(IngressLosslessPool); pl != nil && pl.HeadroomPoolBytes != nil {
		total += *pl.HeadroomPoolBytes
	}
	for _, p := range d.Ports {
		for _, g := range p.PGs {
			total += Val(g.SizeBytes)
		}
	}
	return total
}

// holdIngressAtEgress makes a platform's assumed egress lossless pool
// (PlatformBuffer: EOS) hold all that its ingress admits
// (ingressAdmitsBytes), as sizeEgressLossless sizes the pool of what
// labctl renders: lossless queues are not limited at egress, and a pool
// smaller than what ingress admits drops what PFC holds lossless there.
// A fabric-wide backlog on 64gpu's EOS switches dropped 33,187 packets a
// run at egress when the pool was SONiC's 7050CX3 figure, 1.7 MB below.
func (d *DeviceConfig) holdIngressAtEgress() {
	if pl := d.Pool(EgressLosslessPool); pl != nil {
		pl.SizeBytes = max(pl.SizeBytes, d.ingressAdmitsBytes())
	}
}

// ApplyAll applies the intent to every switch (hosts are skipped).
func ApplyAll(in Intent, devs []Device) ([]DeviceConfig, error) {
	var out []DeviceConfig
	for _, d := range devs {
		if d.Role == "host" {
			continue
		}
		dc, err := Apply(in, d)
		if err != nil {
			return nil, err
		}
		out = append(out, dc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out, nil
}

// LosslessPriorities returns the union of PFC priorities over the ports.
func (d *DeviceConfig) LosslessPriorities() []int {
	set := map[int]bool{}
	for _, p := range d.Ports {
		for _, pr := range p.PFCPriorities {
			set[pr] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// LosslessDSCPs infers the DSCPs that travel lossless into a port: those
// whose traffic class is lossless there (Class).
func (p *PortConfig) LosslessDSCPs() []int {
	var out []int
	for dscp := range 64 {
		if p.Class(p.TCOf(dscp)).Lossless {
			out = append(out, dscp)
		}
	}
	return out
}

// DSCPsByTC maps each traffic class some DSCP reaches on the port (TCOf)
// to those DSCPs, in order.
func (p *PortConfig) DSCPsByTC() map[int][]int {
	out := map[int][]int{}
	for dscp := range 64 {
		tc := p.TCOf(dscp)
		out[tc] = append(out[tc], dscp)
	}
	return out
}

// DSCPsByQueue maps each queue some DSCP reaches on the port (by its
// traffic class, TCOf, and that class's queue) to those DSCPs, in order.
// A queue absent from it takes no marked packet: a round-robin queue no
// DSCP reaches stays empty, and a scheduler passes over an empty queue.
func (p *PortConfig) DSCPsByQueue() map[int][]int {
	out := map[int][]int{}
	for dscp := range 64 {
		q := p.Class(p.TCOf(dscp)).Queue
		out[q] = append(out[q], dscp)
	}
	return out
}

// TaggedByCoS says whether tagged frames the port receives take their
// class by the 802.1p priority they carry (CoSToTC): on a port that
// trusts CoS, for the packets no ingress QoS policy classifies (a policy
// that decides every DSCP leaves none). Trust DSCP classifies them by
// DSCP, trust none by the port's default CoS, whatever they carry.
func (p *PortConfig) TaggedByCoS() bool {
	return p.Trust == TrustCoS && len(p.PolicyTC) < 64
}

// CoSByQueue maps each queue a tagged frame reaches by its 802.1p priority
// (TaggedByCoS; that priority's class, CoSToTC, and the class's queue) to
// those priorities, in order; empty where no frame is classified by CoS.
// Beside DSCPsByQueue, it is what reaches a port's queues where it does
// not trust DSCP.
func (p *PortConfig) CoSByQueue() map[int][]int {
	out := map[int][]int{}
	if !p.TaggedByCoS() {
		return out
	}
	for cos := range NumTC {
		q := p.Class(p.CoSToTC[cos]).Queue
		out[q] = append(out[q], cos)
	}
	return out
}

// CommonMap returns the map most of the device's ports use (by pick),
// ties to the first port's; nil without ports. Renderers of NOSes with one
// map per switch write it, and name the ports that differ.
func (d *DeviceConfig) CommonMap(pick func(*PortConfig) map[int]int) map[int]int {
	count := map[string]int{}
	first := map[string]map[int]int{}
	var order []string
	for i := range d.Ports {
		m := pick(&d.Ports[i])
		k := FormatMap(m)
		if _, ok := first[k]; !ok {
			first[k] = m
			order = append(order, k)
		}
		count[k]++
	}
	best := ""
	for _, k := range order {
		if best == "" || count[k] > count[best] {
			best = k
		}
	}
	if best == "" {
		return nil
	}
	return first[best]
}

// FormatMap renders a small int map as "0:1 1:0 3:3", keys ascending.
// Renderers, lint and summaries format every port's maps (a DSCP map has
// 64 entries), so it appends digits rather than going through fmt: it was
// a fifth of 'labctl up' on the 4096-GPU lab.
func FormatMap(m map[int]int) string {
	var keyArray [64]int
	keys := keyArray[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := make([]byte, 0, 6*len(keys))
	for i, k := range keys {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(m[k]), 10)
	}
	return string(b)
}

// FormatInts renders a sorted int list as "3,4".
func FormatInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// FECAuto is the FEC mode that leaves the port's FEC to auto-negotiation
// (SONiC's fec auto), which settles on one its peer has.
const FECAuto = "auto"

// FECMatchFix is how a link whose ends' FEC modes differ (FECMismatch)
// comes up, for lint and for a refused fault on it.
const FECMatchFix = "set the same FEC mode at both ends of the link (SONiC: PORT fec; 200G and 400G links take rs), or auto at both where the ports negotiate"

// FECMismatch says why the link between ports a and b does not come up
// for their FEC ("" when it may): both ends' configs set a FEC mode,
// neither leaves it to auto-negotiation, and the modes differ. An end
// whose config sets none runs the switch's own, which labctl does not
// know, and is not compared.
func FECMismatch(a, b *PortConfig) string {
	if a == nil || b == nil || a.FEC == "" || b.FEC == "" || a.FEC == FECAuto || b.FEC == FECAuto || a.FEC == b.FEC {
		return ""
	}
	return fmt.Sprintf("FEC %s at one end and %s at the other: FEC is not negotiated without auto-negotiation, and neither end decodes what the other sends", a.FEC, b.FEC)
}
