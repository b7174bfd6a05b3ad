package eos

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/labctl/labctl/orchestrator/qos"
	"github.com/labctl/labctl/orchestrator/suggest"
)

// statement is one EOS configuration statement labctl reads, in the mode
// it belongs to, with how labctl uses it (qos.Use). The parser recognises
// exactly these; another QoS-looking line is reported as not recognised.
type statement struct {
	mode   string // "global", "interface", "qos profile", "tx-queue"
	syntax string // the statement with its arguments in <>
	use    qos.Use
	why    string
	// risk, for a statement the simulator does not run, says how it
	// changes what the switch does to RoCE (a lint warning when present).
	risk string
}

// statements are EOS's parsed CLI modes as labctl reads them. Interfaces
// and qos profiles share their statements (a service-profile applies a
// profile's lines to an interface, whose own lines override them).
var statements = []statement{
	{"global", "qos map dscp <d...> to traffic-class <tc>", qos.UseSimulated, "classifies DSCPs into traffic classes on ports that trust DSCP", ""},
	{"global", "qos map dscp <d...> to traffic-class <tc> drop-precedence <dp>", qos.UseSimulated, "classifies the DSCPs into the traffic class, and colours them: drop precedence 1 yellow, 2 red (0 green, as without it). A coloured packet meets its tx-queue's random-detect drop drop-precedence thresholds of its colour, not green's; lint errs where a lossless DSCP meets early drop (QOS015)", ""},
	{"global", "qos map cos <c...> to traffic-class <tc>", qos.UseSimulated, "classifies 802.1p priorities (and a port's default CoS for untagged packets) on ports that trust CoS or nothing", ""},
	{"global", "qos map traffic-class <tc...> to tx-queue <q>", qos.UseSimulated, "the egress queue of each traffic class; a class the map leaves out keeps its own number (Arista confirms traffic class 7 to tx-queue 7 on Sand platforms, Jericho and Arad, where tx-queue 7 is reserved for control-plane traffic and not configurable before EOS 4.33.0F; labctl cannot tell the platform, so lint notes a map to or from tx-queue 7, QOS000)", ""},
	{"global", "qos map traffic-class <tc...> to uc-tx-queue <q>", qos.UseSimulated, "read as qos map traffic-class ... to tx-queue <q>: the unicast queue of platforms with separate unicast and multicast queues (Trident), as labctl reads uc-tx-queue N as tx-queue N (labctl's reading; the form is not checked in Arista's manual)", ""},
	{"global", "qos map traffic-class <tc...> to mc-tx-queue <q>", qos.UseIgnored, "the multicast queue of each traffic class (Trident): RoCE is unicast, and the simulator sends no multicast", ""},
	{"global", "priority-flow-control all off", qos.UseSimulated, "turns PFC off on every port", ""},
	{"global", "no priority-flow-control all off", qos.UseSimulated, "turns PFC back on where the ports set it (default priority-flow-control all off is the same)", ""},
	{"global", "default priority-flow-control all off", qos.UseSimulated, "as no priority-flow-control all off: PFC back on where the ports set it", ""},
	{"global", "no qos profile <name>", qos.UseSimulated, "deletes the qos profile: interfaces whose service-profile names it take none of its settings (lint: QOS013) until a qos profile block of that name creates it again", ""},
	{"global", "default qos profile <name>", qos.UseSimulated, "as no qos profile: deletes the profile", ""},
	{"global", "priority-flow-control pause watchdog default timeout <s>", qos.UseSimulated, "watchdog detection time of ports that do not set their own", ""},
	{"global", "priority-flow-control pause watchdog default recovery-time <s>", qos.UseSimulated, "watchdog restoration time of ports that do not set their own", ""},
	{"global", "priority-flow-control pause watchdog default polling-interval <s>", qos.UseSimulated, "the watchdog's poll interval", ""},
	{"global", "priority-flow-control pause watchdog action <drop|no-drop|errdisable|notify-only>", qos.UseSimulated, "what a port does once a storm is declared", ""},
	{"global", "no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]", qos.UseSimulated, "removes the default time (default ... is read as it): without a default timeout, the watchdog is on only at ports that say priority-flow-control pause watchdog", ""},
	{"global", "no priority-flow-control pause watchdog action [<action>]", qos.UseSimulated, "removes the global storm action (default ... is read as it): ports without their own take EOS's default, errdisable as labctl assumes it (QOS000)", ""},
	{"global", "qos rewrite dscp", qos.UseSimulated, "egress DSCP rewriting: the switch writes the DSCP qos map traffic-class ... to dscp gives each traffic class into the packets of that class it sends, and the next switch classifies them by it (every port's tc_to_dscp, as SONiC's TC_TO_DSCP_MAP); lint errs where RoCE's or its CNPs' class is rewritten to a DSCP the next switch classifies into another class (QOS024). labctl's reading, erring toward harm: it rewrites the packets of every port, whether or not they came in on a port that trusts DSCP (Arista's manual not found to say), and a class the map leaves out keeps its DSCP (EOS's default traffic class to DSCP map not known: lint warns, QOS017, naming the classes). no qos rewrite dscp turns it off", ""},
	{"global", "no qos rewrite dscp", qos.UseSimulated, "the switch rewrites no DSCP: packets keep theirs", ""},
	{"global", "qos map traffic-class <tc...> to dscp <d>", qos.UseSimulated, "the DSCP (0-63 or a name such as af31) qos rewrite dscp writes into the packets of the traffic classes listed; without qos rewrite dscp it changes nothing. no qos map traffic-class <tc...> to dscp [<d>] removes the classes' entries", ""},
	{"global", "qos rewrite cos", qos.UseIgnored, "802.1p rewriting of tagged frames; the lab's links are untagged", ""},
	{"global", "no qos rewrite cos", qos.UseIgnored, "802.1p rewriting of tagged frames off; the lab's links are untagged, so it changes nothing labctl runs", ""},
	{"global", "qos map traffic-class <tc...> to cos <c>", qos.UseIgnored, "802.1p marking of tagged frames; the lab's links are untagged", ""},
	{"global", "no qos map <dscp|cos|traffic-class> <n...> [to ...]", qos.UseSimulated, "the DSCPs, CoS values or traffic classes listed go back to EOS's default mapping (as labctl assumes it, see qos map)", ""},
	{"global", "default qos map <dscp|cos|traffic-class> <n...> [to ...]", qos.UseSimulated, "as no qos map: the values listed go back to EOS's default mapping", ""},
	{"global", "platform <chip> mmu <...>", qos.UseIgnored, "the platform's MMU (buffer) settings, an MMU queue profile among them (platform trident mmu queue profile NAME, its thresholds and its apply line): labctl's buffer model is the platform's default", "an MMU queue profile changes the queues' buffer thresholds and reservations, which decide when RoCE's queues pause (PFC) and drop: the simulator runs the platform's default buffers"},
	{"global", "platform <chip> <...>", qos.UseIgnored, "a platform setting of buffers or QoS other than the MMU's (a line with buffer, qos, pfc, ecn or queue in it) is not read; labctl picks these by their keywords, and other platform lines pass unread", ""},
	{"global", "hardware <...>", qos.UseIgnored, "hardware settings of buffers or QoS are not read: hardware tcam (its profiles decide which features, QoS classification among them, the TCAM has room for; a policy-map without room is not applied on the switch), and other hardware lines with qos, buffer or queue in them; other hardware lines pass unread", ""},
	{"global", "interface <interfaces>", qos.UseSimulated, "opens the settings of one interface (Ethernet1), a range (Ethernet1-4, Ethernet3/1-4) or a list (Ethernet1-4,6): each interface named takes every statement that follows, as EOS applies a range. A range whose ends differ before the last number (Ethernet1/1-4/1) is refused: the interfaces between them depend on the platform's ports and breakout", ""},
	{"global", "default interface <interfaces>", qos.UseSimulated, "returns the interfaces to EOS's defaults: what the files gave them before the line no longer applies", ""},
	{"global", "no interface <interfaces>", qos.UseSimulated, "deletes a virtual interface (a Port-Channel, a Loopback, a subinterface Ethernet1.100): what the files gave it no longer applies. A physical interface (Ethernet, Management) EOS does not remove (% Removal of physical interfaces is not permitted, as a third-party EOS driver lists the error; not in Arista's manual), so labctl refuses the line, which changes nothing on the switch though it reads as if the port lost its QoS (fix: default interface)", ""},
	{"global", "switchport default mode <routed|access>", qos.UseSimulated, "the mode of Ethernet interfaces that say neither switchport nor no switchport, and that default switchport returns to: routed (trusting DSCP without qos trust) or access, a switchport (trusting CoS). Without it an Ethernet interface is a switchport, which default switchport returns to; one that says nothing labctl takes as routed, and lint warns where that decides its trust (QOS017)", ""},
	{"global", "no switchport default [...]", qos.UseSimulated, "Ethernet interfaces' default mode goes back to a switchport (default switchport default ... is the same)", ""},
	{"global", "interface defaults", qos.UseSimulated, "opens the switch's interface defaults (mtu, and ethernet shutdown), which interfaces that do not set their own take", ""},
	{"interface defaults", "mtu <bytes>", qos.UseSimulated, fmt.Sprintf("the L3 MTU of routed interfaces that set no mtu of their own, and that no mtu returns them to (AVD: Default Routed Interface MTU): the simulator drops RoCE packets over it, lint's QOS020. Without it a routed port that sets no mtu has EOS's 1500; a port whose mode the files do not say takes it too, and without it labctl takes that port to carry the lab's packets. A value outside %d to %d bytes (the syntax of EOS's mtu) EOS refuses (%% Invalid input), and the default stays what it was (lint's QOS021, an error); one above %d, the most a port of the modeled platform takes, EOS takes, but what it applies to ports is not verified: labctl reads the default as %d and warns (QOS021)", MinMTU, MaxCLIMTU, PlatformMaxMTU, PlatformMaxMTU), ""},
	{"interface defaults", "no mtu", qos.UseSimulated, "the default MTU goes back to EOS's, 1500 bytes (default mtu is the same), which interfaces without their own take", ""},
	{"interface defaults", "ethernet", qos.UseSimulated, "opens the defaults of Ethernet interfaces (its shutdown)", ""},
	{"interface defaults", "shutdown", qos.UseSimulated, "under ethernet: every Ethernet interface that says neither shutdown nor no shutdown is administratively down (AVD: Default Ethernet Interface Shutdown), a port the lab wires among them carrying nothing (lint: QOS026)", ""},
	{"interface defaults", "no shutdown", qos.UseSimulated, "under ethernet: Ethernet interfaces are up unless they say shutdown, EOS's default", ""},
	{"interface defaults", "default shutdown", qos.UseSimulated, "under ethernet: back to EOS's default, Ethernet interfaces up unless they say shutdown (as no shutdown there)", ""},
	{"interface", "qos trust <dscp|cos>", qos.UseSimulated, "which field classifies the port's traffic: RoCE between routed ports is untagged, so CoS trust gives it the default CoS's class", ""},
	{"interface", "no qos trust", qos.UseSimulated, "the port trusts nothing: every packet takes its default CoS's class", ""},
	{"interface", "default qos trust", qos.UseSimulated, "removes the block's own qos trust: the port trusts what its qos profile says, else its default (dscp on a routed port, cos on a switchport); not the no form, which trusts nothing", ""},
	{"interface", "qos cos <c>", qos.UseSimulated, "the CoS of untagged packets (and of every packet without trust)", ""},
	{"interface", "no qos cos", qos.UseSimulated, "removes the block's own qos cos (default qos cos is the same): an interface takes its qos profile's, else EOS's default CoS 0, which untagged RoCE on a port trusting CoS or nothing is classified by (labctl's reading of an interface over its profile, as for no priority-flow-control priority)", ""},
	{"interface", "qos dscp <d>", qos.UseIgnored, "the default DSCP of untrusted packets: labctl's RoCE carries its own DSCP", ""},
	{"interface", "no switchport", qos.UseSimulated, "a routed port: without qos trust it trusts DSCP (EOS's default for routed ports as labctl assumes it: not found in Arista's documentation, so lint warns, QOS017), and without mtu it has interface defaults' mtu, else EOS's 1500 (QOS020, and the simulator drops RoCE's larger packets). An Ethernet or Port-Channel interface without it (nor switchport default mode routed) is a switchport, whose IP configuration EOS ignores. Where the lab wires the port into its routed fabric, lint errs (QOS026) and the simulator runs its link down from the start where that is so in a whole config (show running-config) and in a file of QoS alone pushed over a routed startup config (labctl's labs) alike: the port's own ip address without it; its own switchport or default switchport line, the link's other end routed; or, where the switch's config addresses a front-panel port (a whole config), the port saying neither, the link's other end routed. A port of a file of QoS alone that says neither is what the startup config made it, and no switchport on other ports says nothing of it; a port facing a host without an address of its own may be bridged into a VLAN whose SVI routes for it (switchport access vlan 10, interface Vlan10 with an ip address): neither is judged. A Port-Channel's address counts only with it: without it lint says EOS ignores the address", ""},
	{"interface", "vlan id <n>", qos.UseSimulated, "a subinterface's forwarding VLAN: it bridges (an L2 subinterface, Arista's manual, Layer 2 Subinterfaces), so EOS holds what it forwards to no L3 MTU, and labctl reads it as carrying the lab's packets; a subinterface (Ethernet26.1) without it or vlan name is routed (unless it is a FlexEncap pseudowire attachment: encapsulation vlan), at its own mtu, else interface defaults', else EOS's 1500. A subinterface takes its parent's QoS (service-profile, PFC, tx-queues, watchdog), its own qos trust and qos cos over the parent's (EOS 4.28.2F's TOI 'QoS Subinterface' lets a subinterface set those), and lint notes its other QoS lines as not read (QOS000)", ""},
	{"interface", "vlan name <name>", qos.UseSimulated, "as vlan id: the subinterface bridges", ""},
	{"interface", "encapsulation vlan", qos.UseSimulated, "a subinterface's flexible encapsulation (FlexEncap, EOS 4.24.2F's TOI), its tags on the client line under it: with vlan id it bridges, with an ip or ipv6 address it is routed, with neither it is a pseudowire's attachment (the TOI: FlexEncap is usually used with pseudowires), which patches frames whole, so labctl reads it as not routed and held to no L3 MTU but its own mtu (what MTU EOS holds a pseudowire's frames to is not checked)", ""},
	{"interface", "client <...>", qos.UseSimulated, "under encapsulation vlan: the FlexEncap's tags, kept for the rendered config; what labctl models of the subinterface follows from encapsulation vlan", ""},
	{"interface", "no encapsulation vlan", qos.UseSimulated, "the subinterface's FlexEncap goes (default encapsulation vlan is the same)", ""},
	{"interface", "ip address <...>", qos.UseSimulated, "the interface terminates at L3: a FlexEncap subinterface with an address is routed (at its mtu, else 1500), not a pseudowire's attachment; the address itself is not read; on an Ethernet or Port-Channel interface without no switchport (a switchport) EOS ignores it, which lint (QOS026) and the simulator take as the link routing nothing where the lab wires the port into its routed fabric. An address on a front-panel port (an Ethernet or Port-Channel interface's) marks the files as a whole config, in which a port that says neither switchport nor no switchport is a switchport", ""},
	{"interface", "ipv6 address <...>", qos.UseSimulated, "as ip address: the FlexEncap subinterface is routed", ""},
	{"interface", "ipv6 enable", qos.UseSimulated, "IPv6 on the interface's link-local address, which an RFC 5549 fabric routes over without an address: a FlexEncap subinterface with it is routed, as with an address", ""},
	{"interface", "no ipv6 enable", qos.UseSimulated, "IPv6 off unless an ipv6 address keeps it (default ipv6 enable is the same)", ""},
	{"interface", "no ip address [...]", qos.UseSimulated, "the interface's IPv4 addresses go (labctl reads a no line naming one address as all of them); default ip address is the same", ""},
	{"interface", "no ipv6 address [...]", qos.UseSimulated, "as no ip address, for IPv6", ""},
	{"interface", "no vlan [...]", qos.UseSimulated, "the subinterface no longer bridges: it is routed (default vlan is the same)", ""},
	{"interface", "switchport", qos.UseSimulated, "a switched port: without qos trust it trusts CoS (EOS's default for switchports as labctl assumes it: not found in Arista's documentation, so lint warns, QOS017). Pushed over a routed port it makes it a switchport, as EOS ignores IP configuration on one (\"IP configuration will be ignored while interface ... is not a routed port\"): on a port the lab wires into its routed fabric, with its own ip address or facing a routed port (no switchport), lint errs (QOS026) and the simulator runs the link down from the start; facing a host or another switchport without an address of its own, lint warns. Other switchport lines (switchport access vlan, switchport mode) set what a switchport does, not the port's mode", ""},
	{"interface", "default switchport", qos.UseSimulated, "the port goes back to the switch's default mode: switchport default mode's, else a switchport, an Ethernet interface's default (labctl's reading: an Arista TOI says ports on a switch without configuration come up in access mode), which without qos trust trusts CoS, where no switchport had made it a routed port trusting DSCP. Made a switchport so, it is judged as by a switchport line (QOS026, the link down where it faces a routed port or has its own address)", ""},
	{"interface", "service-profile <name>", qos.UseSimulated, "applies a qos profile's statements to the interface", ""},
	{"interface", "no service-profile [<name>]", qos.UseSimulated, "the interface takes no qos profile's statements", ""},
	{"interface", "default service-profile [<name>]", qos.UseSimulated, "as no service-profile: the interface takes no qos profile's statements", ""},
	{"interface", "priority-flow-control on", qos.UseSimulated, "PFC on for the port's no-drop priorities", ""},
	{"interface", "priority-flow-control off", qos.UseSimulated, "PFC off on the port", ""},
	{"interface", "no priority-flow-control", qos.UseSimulated, "PFC off on the port", ""},
	{"interface", "default priority-flow-control", qos.UseSimulated, "PFC off on the port (EOS's default)", ""},
	{"interface", "priority-flow-control mode on", qos.UseSimulated, "the older EOS syntax of priority-flow-control on, read as it (reported from older EOS manuals; not confirmed in a manual labctl could read)", ""},
	{"interface", "priority-flow-control mode off", qos.UseSimulated, "the older EOS syntax of priority-flow-control off, read as it", ""},
	{"interface", "priority-flow-control priority <p> no-drop", qos.UseSimulated, "priority p is lossless: the platform's PG for it pauses", ""},
	{"interface", "priority-flow-control priority <p> drop", qos.UseSimulated, "priority p drops (overrides a profile's no-drop)", ""},
	{"interface", "no priority-flow-control priority <p> [no-drop|drop]", qos.UseSimulated, "removes the interface's or profile's own setting of priority p: an interface takes its profile's, a profile leaves it dropping", ""},
	{"interface", "default priority-flow-control priority <p> [no-drop|drop]", qos.UseSimulated, "as no priority-flow-control priority: priority p drops unless the interface's profile makes it no-drop", ""},
	{"interface", "priority-flow-control pause watchdog", qos.UseSimulated, "the PFC watchdog on the port, watching every PFC priority (labctl's assumption where the priority's tx-queue sets no bandwidth guaranteed: unverified, lint notes it, QOS000)", ""},
	{"interface", "no priority-flow-control pause watchdog", qos.UseSimulated, "no PFC watchdog on the port", ""},
	{"interface", "default priority-flow-control pause watchdog", qos.UseSimulated, "removes the block's own watchdog line: the port watches as its qos profile says, else as the global default timeout makes it (labctl's assumption, QOS000); not the no form, which turns the watchdog off", ""},
	{"interface", "priority-flow-control pause watchdog port action <action>", qos.UseSimulated, "the port's own storm action", ""},
	{"interface", "priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s>", qos.UseSimulated, "the port's own detection and restoration times, and its poll interval (polling-interval <s>, which a storm's detection waits up to beyond the timeout, as for the global default polling-interval; auto is read as the global default's, labctl's reading)", ""},
	{"interface", "priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s> forced", qos.UseIgnored, "the timer's times and poll interval are read (the statement without forced); forced is not: what it changes in the port's recovery is not in Arista's documentation labctl could read, and the simulator restores a port once recovery-time passes without pause frames", ""},
	{"interface", "no priority-flow-control pause watchdog port action [<action>]", qos.UseSimulated, "removes the block's own storm action (default ... is read as it): an interface takes its profile's, else the global action; the watchdog stays on", ""},
	{"interface", "no priority-flow-control pause watchdog port timer [...]", qos.UseSimulated, "removes the block's own detection and restoration times and poll interval (default ... is read as it): an interface takes its profile's, else the global defaults; the watchdog stays on", ""},
	{"interface", "service-policy type qos input <policy>", qos.UseSimulated, "classifies what the port receives by the policy-map's classes, ahead of its trust mode and the maps: the first class whose class-map matches a packet (class-default, every packet, last) gives it its set traffic-class. labctl decides the classes for the packets it simulates, RoCEv2 (IPv4, UDP to port 4791) of each DSCP; a policy that reaches an access-list entry on what labctl does not model (an address, a source port) is not simulated on the port, which then runs by its trust mode and maps, and lint warns (QOS017). A qos profile's applies to the interfaces that take it; an interface's own line overrides it. service-policy input <policy>, without a type, is read as the same (labctl's reading)", ""},
	{"interface", "no ip access-group [...]", qos.UseLint, "removes the interface's ip access-group of the direction the line names (no ip access-group <acl> in), of both where it names none", ""},
	{"interface", "default ip access-group [...]", qos.UseLint, "as no ip access-group", ""},
	{"interface", "ip access-group <acl> out", qos.UseLint, "filters what the port sends by the IPv4 access-list, read as ip access-group <acl> in is", ""},
	{"interface", "ip access-group <acl> in", qos.UseLint, "filters what the port receives by the IPv4 access-list, read as a qos class-map's lists are (protocol, any address, destination port, DSCP; an address or source port decides some packets only), with EOS's implicit deny at its end: labctl does not simulate it, and lint errs where a deny entry, or the implicit deny, meets RoCEv2 packets (UDP to port 4791) of RoCE's DSCP or its CNPs' on a data port (QOS017; a warning where the entry's address or source port narrows it); no ip access-group [<acl>] [in|out] removes it. A port-channel's applies to its members", ""},
	{"interface", "no service-policy type qos input [<policy>]", qos.UseSimulated, "the port takes no policy-map: it classifies by its trust mode and the maps (overrides its qos profile's)", ""},
	{"interface", "default service-policy type qos input [<policy>]", qos.UseSimulated, "as no service-policy type qos input: the port takes no policy-map", ""},
	{"interface", "no tx-queue <q>", qos.UseSimulated, "removes the block's settings of the queue (priority, bandwidth, ECN, WRED, shape rate): a qos profile's queue goes back to EOS's defaults, an interface's takes its profile's (labctl's reading, as for no priority-flow-control priority)", ""},
	{"interface", "default tx-queue <q>", qos.UseSimulated, "as no tx-queue: removes the block's settings of the queue", ""},
	{"global", "ip access-list [standard] <name>", qos.UseSimulated, "opens an IPv4 access-list, by which a qos class-map matches (match ip access-group)", ""},
	{"ip access-list", "[<seq>] permit <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", qos.UseSimulated, "packets the entry matches are the class's (the first entry in sequence order that matches decides; none: not the class's; an entry without a number takes the highest's plus 10, no <seq> removes one): labctl decides it for RoCEv2 packets where it matches by protocol (ip or udp; another never matches), any address (0.0.0.0/0 too), the destination port (eq, neq, gt, lt, range, by number or a common name such as bgp) and the DSCP (a number or a name: af31, ef, cs6); fragments never matches, log and count change nothing. An address, a source port, a port name labctl does not number or another option leaves a policy that reaches the entry not simulated (lint warns, QOS017, naming the entry); in a list no policy reaches it is no error", ""},
	{"ip access-list", "[<seq>] deny <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", qos.UseSimulated, "packets the entry matches are not the class's (the first entry in sequence order that matches decides), read as permit entries are", ""},
	{"ip access-list", "remark <text>", qos.UseIgnored, "a comment", ""},
	{"ip access-list", "statistics per-entry", qos.UseIgnored, "counts each entry's matches: labctl reads counters with show commands", ""},
	{"global", "class-map type qos [match-any|match-all] <name>", qos.UseSimulated, "opens a qos class-map, which a policy-map's class names (written without type qos it is taken as one: labctl's reading): match-any matches what any of its matches does; match-all over an IPv4 and an IPv6 match matches nothing, over several access-lists it is not decided and leaves a policy that reaches it not simulated. A class-map named again is edited", ""},
	{"class-map", "match ip access-group <acl>", qos.UseSimulated, "the class matches the IPv4 packets the access-list permits", ""},
	{"class-map", "match dscp <d...>", qos.UseSimulated, "the class matches the packets of the DSCPs listed (numbers or names such as af31; blank- or comma-separated, ranges a-b: labctl's reading of the forms), decided for each DSCP labctl simulates; match-any matches where one match statement does, match-all where every one does. A form with more (match dscp 26 ecn ce) is not decided and leaves a policy that reaches it not simulated (lint warns, QOS017)", ""},
	{"class-map", "match ipv6 access-group <acl>", qos.UseSimulated, "the class matches IPv6 packets only: labctl's RoCE is IPv4", ""},
	{"global", "policy-map type quality-of-service <name>", qos.UseSimulated, "opens a QoS policy-map (type qos, or no type, is the same: labctl's reading of the untyped form), which service-policy type qos input applies to ports; named again, it is edited, and so is a class of it named again", ""},
	{"policy-map", "class <class-map>", qos.UseSimulated, "a class of the policy, tried in the order given, class-default (every packet) last", ""},
	{"policy-map class", "set traffic-class <tc>", qos.UseSimulated, "the traffic class of the packets the class matches, ahead of the port's trust mode and maps", ""},
	{"policy-map class", "set dscp <d>", qos.UseLint, "re-marks the packets the class matches as the port receives them (the class's last set dscp): every switch after this one classifies them by the new DSCP. labctl does not simulate it (they keep their DSCP); lint errs (QOS017, at the line) where RoCEv2 packets of RoCE's DSCP or its CNPs' meet it first in a policy a data port takes and the new DSCP lands them in another class at the next switch (followed through the lab's links). Whether this switch classifies them by the new DSCP where the class sets no traffic class is not in the documentation labctl read: it classifies them by the DSCP they came with", ""},
	{"policy-map class", "set cos <c>", qos.UseIgnored, "802.1p marking of tagged frames; the lab's links are untagged", ""},
	{"policy-map class", "set drop-precedence <n>", qos.UseIgnored, "colours the class's packets for WRED's yellow and red thresholds, which no simulated packet meets: they stay green (lint warns where a port's policy has it in a class that matches RoCEv2 packets)", "a yellow or red RoCE packet meets other WRED thresholds"},
	{"policy-map class", "police <...>", qos.UseIgnored, "policing is not simulated: the class's packets are not metered (lint warns where a port's policy has it in a class that matches RoCEv2 packets)", "a policer on RoCE's class drops or marks what exceeds its rate"},
	{"interface", "shape rate <rate> [kbps|percent]", qos.UseSimulated, "the port's shaper: the port sends no faster than the rate, all its queues together, in kb/s (kbps, EOS's unit when none is given) or a percent (1-100) of the port's speed; a qos profile's applies to the interfaces that take it, and an interface's own line overrides it. A burst-size after the rate is not read: labctl takes the switch's least burst", ""},
	{"interface", "shape rate <rate> pps", qos.UseSimulated, "the port's shaper in packets per second: the port sends at most that many frames a second, all its queues together, whatever their size; a qos profile's applies to the interfaces that take it, and an interface's own line overrides it; the last shape rate wins, whatever its unit. A burst-size after the rate is not read: labctl takes the switch's least burst, one frame", ""},
	{"interface", "no shape rate [...]", qos.UseSimulated, "the port is not shaped: it removes the interface's or profile's own port shaper, and on an interface overrides its qos profile's (a tx-queue's shape rate stays)", ""},
	{"interface", "default shape rate [...]", qos.UseSimulated, "as no shape rate: the port is not shaped (EOS's default)", ""},
	{"interface", "channel-group <n> mode <mode>", qos.UseSimulated, "makes the interface a member of Port-Channel<n>; labctl reads a member's QoS from its own lines and applies none of its port-channel's (whether EOS applies a port-channel's QoS to its members is not checked in Arista's documentation), and lint notes a member whose port-channel sets QoS (QOS000). A bundled member's traffic is its port-channel's: a member carries nothing (lint's error, QOS026, and the simulator runs the link down from the start) where its link's other end is in no port channel (a host's NIC, a peer port left out: LACP finds no partner), where both ends are passive, where one is on (static) and the other LACP, or where either end's Port-Channel interface has no ip address (the lab's addresses sit on the member ports; what EOS does with a member's own address labctl has not checked in Arista's documentation, and takes it to carry nothing). Members facing different partners (two switches without MLAG, or two port channels of one switch) do not bundle together: LACP aggregates one partner's members (IEEE 802.1AX's selection), and labctl takes those of the partner with the most members to carry traffic and the others nothing (QOS026; which the switches' LACP priorities and MACs decide). The mode (active, passive, on) is kept and written back", ""},
	{"interface", "port-channel lacp fallback [...]", qos.UseSimulated, "on a Port-Channel interface: a member whose LACP finds no partner forwards, after the fallback timeout, alone on its own interface's config (individual) or as the port channel's static member (static, the default), which then carries the link's traffic only where the Port-Channel has an address (lint's QOS026, a link down in the simulator, where neither holds); fallback timeout alone changes nothing labctl models", ""},
	{"interface", "no port-channel lacp fallback [...]", qos.UseLint, "the Port-Channel's members forward only when bundled (EOS's default)", ""},
	{"interface", "port-channel min-links <n>", qos.UseSimulated, "on a Port-Channel interface: the fewest members that must carry traffic for the port channel to come up; with fewer (members shut down, facing a port in no port channel, not bundling) every member carries nothing, the ones whose own link is fine included (lint's error, QOS026, naming the members and the line, and the simulator runs their links down from the start). labctl takes EOS to behave as SONiC's teamd does with min_links (runner.min_ports); Arista's manual was not checked. Written back", ""},
	{"interface", "no port-channel min-links [...]", qos.UseSimulated, "the Port-Channel comes up with any member carrying traffic (default port-channel min-links is the same)", ""},
	{"interface", "no channel-group [...]", qos.UseLint, "the interface leaves its port-channel (default channel-group is the same): labctl reads its QoS by its own lines, as it does a member's", ""},
	{"interface", "shutdown", qos.UseSimulated, "the port is administratively down: its link carries nothing (lint: QOS026 on a port the lab wires; the simulator runs the link down from the start)", ""},
	{"interface", "no shutdown", qos.UseSimulated, "the port is up (EOS's default for an Ethernet interface)", ""},
	{"interface", "default shutdown", qos.UseSimulated, "back to the default, as a port that says neither shutdown nor no shutdown: up, or down where interface defaults' ethernet says shutdown (an Ethernet interface)", ""},
	{"interface", "speed [forced] <speed>", qos.UseLint, "the port's speed (100gfull, 400g-8, 10000full in Mb/s; auto: negotiated, not read): lint errs where it is not the speed of the link the lab wires there (QOS009), as the link does not come up with its peer; the simulator runs the lab's link speed", ""},
	{"interface", "no speed", qos.UseLint, "the port's speed back to its default (negotiated)", ""},
	{"interface", "default speed", qos.UseLint, "as no speed", ""},
	{"interface", "mtu <bytes>", qos.UseSimulated, fmt.Sprintf("the port's L3 MTU: the simulator drops RoCE packets it cannot carry (the lab's qos.mtu plus 60 bytes of headers), and lint sizes the headroom by it. A routed port (no switchport, or switchport default mode routed) without it has interface defaults' mtu, else EOS's default 1500 (Arista's manual: 'The default MTU size is 1500 bytes'), which lint (QOS020) and the simulator hold RoCE's packets to as they do mtu 1500; labctl writes the fabric's MTU (that of its containerlab startup-configs) and no switchport on its lab's ports. A port whose mode the files do not say (a file of QoS alone; an Ethernet port that says neither is a switchport on EOS, which holds what it bridges to no L3 MTU) labctl reads as carrying the lab's packets. EOS's mtu takes %d to %d bytes (a line outside them it refuses: %% Invalid input), and a port at most its maximum, %d on the modeled 7050CX3 (%d on cEOS): a line above it EOS refuses for the port (on Ethernet1: %s). Refused, the port keeps the MTU it had, which lint (QOS021, an error) names and the simulator uses. In a lab, which runs on cEOS, lint warns (QOS021) of a port MTU above %d that the platform takes: the cEOS switch refuses the line and the port keeps 1500; the simulator, modeling the platform, applies it", MinMTU, MaxCLIMTU, PlatformMaxMTU, CEOSMaxMTU, cfgMaxMTUError("Ethernet1"), LabMaxMTU), ""},
	{"interface", "no mtu", qos.UseSimulated, "the port's MTU goes back to the default: interface defaults' mtu, else EOS's 1500 bytes (default mtu is the same; Arista's manual: no mtu and default mtu restore the default of 1500), which the simulator and lint hold RoCE's packets to as they do an mtu line's. A routed interface without any mtu line has the same default (see mtu); one whose mode the files do not say labctl reads as carrying the lab's packets", ""},
	{"interface", "mc-tx-queue <q>", qos.UseIgnored, "opens a multicast queue's settings (platforms with separate unicast and multicast queues, Trident), none of which labctl reads: RoCE is unicast and the simulator sends no multicast; the block's lines stay the queue's (its shape rate is no port shaper). Where the platform schedules multicast queues with the unicast ones, a multicast queue's strict priority or guarantee takes from RoCE only while multicast traffic flows", ""},
	{"tx-queue", "tx-queue <q>", qos.UseSimulated, "opens one egress queue's settings (tx-queue 7 set: lint notes that Sand platforms reserve it for control-plane traffic before EOS 4.33.0F, QOS000)", ""},
	{"tx-queue", "priority strict", qos.UseSimulated, "the queue is served before the round-robin ones, as an untouched queue is; below a queue set no priority EOS serves it round robin (lint warns)", ""},
	{"tx-queue", "default priority", qos.UseSimulated, "removes the queue's own priority line: it is strict priority unless a higher-numbered queue is round robin (EOS's default, as labctl assumes it, QOS000); not the no form, which makes it round robin", ""},
	{"tx-queue", "no priority", qos.UseSimulated, "the queue and every lower-numbered one are served round robin (EOS keeps strict-priority queues above round-robin ones, as 'show qos interfaces' output shows; Arista's manual does not state the rule, so where a port leaves a queue's priority unset lint names the assumption, QOS000)", ""},
	{"tx-queue", "bandwidth percent <n>", qos.UseSimulated, "the queue's round-robin weight (a strict-priority queue has none)", ""},
	{"tx-queue", "no bandwidth percent [<n>]", qos.UseSimulated, "removes the queue's own weight (default ... is read as it): a qos profile's queue takes EOS's default, an interface's its profile's", ""},
	{"tx-queue", "random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>]", qos.UseSimulated, "ECN marking: Kmin, Kmax and Pmax; without max-mark-probability labctl assumes 100%, a default not found in Arista's documentation, and lint notes it (QOS000)", ""},
	{"tx-queue", "random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>] weight <w>", qos.UseIgnored, wredWeightWhy, wredWeightRisk},
	{"tx-queue", "no random-detect ecn", qos.UseSimulated, "no ECN marking on the queue", ""},
	{"tx-queue", "default random-detect ecn", qos.UseSimulated, "no ECN marking on the queue (EOS's default)", ""},
	{"tx-queue", "random-detect drop minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>", qos.UseSimulated, "WRED early drop on the queue", ""},
	{"tx-queue", "random-detect drop minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p> weight <w>", qos.UseIgnored, wredWeightWhy, wredWeightRisk},
	{"tx-queue", "random-detect drop drop-precedence <dp> minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>", qos.UseSimulated, "WRED early drop of the packets of one drop precedence (colour) only: 0 green, every packet nothing colours; 1 yellow and 2 red, the DSCPs qos map dscp ... drop-precedence colours (drop precedence n as the n-th of green, yellow, red is labctl's reading of Arista's TOI 'Drop Threshold per Color per TxQueue')", ""},
	{"tx-queue", "no random-detect drop", qos.UseSimulated, "no WRED early drop on the queue", ""},
	{"tx-queue", "no random-detect drop drop-precedence <dp> [...]", qos.UseSimulated, "no WRED early drop of that drop precedence on the queue; the others' thresholds stay (labctl's reading; default ... is read as it)", ""},
	{"tx-queue", "default random-detect drop", qos.UseSimulated, "no WRED early drop on the queue (EOS's default)", ""},
	{"tx-queue", "random-detect ecn count", qos.UseIgnored, "counts marked packets: labctl reads counters with show commands", ""},
	{"tx-queue", "no random-detect ecn count", qos.UseIgnored, "stops counting marked packets; the queue's ECN marking stays (it is no no random-detect ecn)", ""},
	{"tx-queue", "bandwidth guaranteed <rate>", qos.UseIgnored, "a guaranteed minimum is not simulated: weights share the port. EOS serves a queue's guarantee before the weights share the rest (labctl's reading, not checked per platform), so lint warns (QOS017) where a queue that carries no lossless class sets one on a port that carries a lossless class: while that queue is busy, the lossless class gets less than its weight, which the simulator's figures do not show. Where the PFC watchdog watches a PFC priority whose queue sets none, lint names labctl's assumption that EOS's watchdog watches it all the same (a third-party guide says EOS watches only queues with guaranteed bandwidth; Arista's manual does not confirm it, so labctl does not model it, QOS000)", ""},
	{"tx-queue", "no bandwidth guaranteed [...]", qos.UseIgnored, "removes the queue's guaranteed minimum, which is not simulated (default ... is read as it)", ""},
	{"tx-queue", "shape rate <rate> [kbps|percent]", qos.UseSimulated, "the queue's shaper: the queue sends no faster than the rate, in kb/s (kbps, EOS's unit when none is given) or a percent (1-100) of the port's speed. A burst-size after the rate is not read: labctl takes the switch's least burst, a bucket of one full frame", ""},
	{"tx-queue", "shape rate <rate> pps", qos.UseSimulated, "the queue's shaper in packets per second: the queue sends at most that many frames a second, whatever their size; the last shape rate wins, whatever its unit, and an interface's overrides its qos profile's. A burst-size after the rate is not read: labctl takes the switch's least burst, one frame", ""},
	{"tx-queue", "no shape rate [...]", qos.UseSimulated, "the queue is not shaped: it removes the queue's own shaper, and on an interface overrides its qos profile's", ""},
	{"tx-queue", "default shape rate [...]", qos.UseSimulated, "as no shape rate: the queue is not shaped (EOS's default)", ""},
}

// A random-detect line's weight: the line's thresholds are simulated (the
// statement without weight), its weight is not.
const (
	wredWeightWhy  = "the weight (the averaging of the queue depth WRED compares with the thresholds) is not simulated: the simulator marks and drops by the instantaneous depth; the line's thresholds and probability are (the statement without weight)"
	wredWeightRisk = "an averaged depth lags the queue: a larger weight marks (or drops) later in a burst and keeps on after it drains, so ECN acts after PFC has paused"
)

// Fields lists the statement beside every EOS statement labctl reads.
func Fields() []qos.FieldUse {
	out := make([]qos.FieldUse, len(statements))
	for i, s := range statements {
		out[i] = qos.FieldUse{NOS: Name, Table: s.mode, Field: s.syntax, Use: s.use, Why: s.why, Risk: s.risk}
	}
	return out
}

// modeKeywords are the keywords of each mode's statements (misspelt's),
// listed once: misspelt looks at every line of an interface labctl does
// not read.
var modeKeywords = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	for _, s := range statements {
		for _, w := range strings.Fields(s.syntax) {
			w = strings.Trim(w, "[]")
			if w != "" && !strings.HasPrefix(w, "<") && !strings.HasSuffix(w, ">") && w != "..." && !slices.Contains(out[s.mode], w) {
				out[s.mode] = append(out[s.mode], w)
			}
		}
	}
	return out
})

// misspelt finds a word of statement f that is no keyword of its mode but
// one edit from one (suggest.EditDistance), and that keyword; "" when
// every word is a keyword, a value or too far from any keyword to be a
// typo (a statement labctl does not know).
func misspelt(mode string, f []string) (word, meant string) {
	mode = cfgMode(mode)
	kws := modeKeywords()[mode]
	// One edit in a word of six letters or more: EOS has keywords labctl
	// does not list, and two edits took "allow" (qos random-detect ecn
	// allow non-ect, a real config's) for "all".
	for _, w := range f {
		if len(w) < 6 || slices.Contains(kws, w) || strings.ContainsAny(w, "0123456789") {
			continue
		}
		for _, k := range kws {
			// One edit changes the length by one at most.
			if d := len(w) - len(k); d > 1 || d < -1 {
				continue
			}
			if suggest.EditDistance(w, k) == 1 {
				return w, k
			}
		}
	}
	return "", ""
}

// cfgMode is the mode whose statements a block of mode takes: a qos
// profile's are an interface's (a service-profile applies them to one).
func cfgMode(mode string) string {
	if mode == "qos profile" {
		return "interface"
	}
	return mode
}

// statementOf finds the statement of a mode a line is: the one whose
// fixed words all appear in the line in order, the first being the line's
// first, with the most fixed words ("shape rate 100 pps" is "shape rate
// <rate> pps", not "shape rate <rate> [kbps|percent]"; "qos map
// traffic-class 3 to dscp 0" is "... to dscp <d>", not "... to tx-queue
// <q>"). A statement without arguments must be the whole line.
func statementOf(mode string, f []string) (statement, bool) {
	mode = cfgMode(mode)
	best, found, bestN := statement{}, false, 0
	syntaxes := cfgSyntaxList()
	for i, s := range statements {
		if s.mode != mode {
			continue
		}
		lits, args := syntaxes[i].lits, syntaxes[i].args
		if len(lits) == 0 || len(f) == 0 || lits[0] != f[0] {
			continue
		}
		if !args && len(lits) != len(f) {
			continue
		}
		i := 0
		for _, w := range f {
			if i < len(lits) && w == lits[i] {
				i++
			}
		}
		if i == len(lits) && len(lits) > bestN {
			best, found, bestN = s, true, len(lits)
		}
	}
	return best, found
}
