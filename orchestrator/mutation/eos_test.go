package mutation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/nos/eos"
)

// renderedMTU and renderedRouted match the lines labctl's renderer writes
// on each of its lab's ports (routed, at the fabric's MTU): edits of a
// port's MTU or mode drop them first, as those lines would win over lines
// inserted before them.
var (
	renderedMTU    = drop(fmt.Sprintf(`^   mtu %d$`, fabric.SwitchMTU))
	renderedRouted = drop(`^   no switchport$`)
	// labMTULine is an mtu line at the most a port of an EOS lab's
	// switches takes (eos.LabMaxMTU, cEOS's 9194); platformMTULine one at
	// the modeled platform's (eos.PlatformMaxMTU, the 7050CX3's 9214),
	// which a cEOS lab switch refuses.
	labMTULine      = fmt.Sprintf("   mtu %d", eos.LabMaxMTU)
	platformMTULine = fmt.Sprintf("   mtu %d", eos.PlatformMaxMTU)
)

// ceosRefusesWhy is why the suite's figures do not move where a cEOS lab
// switch refuses an MTU the modeled platform takes.
const ceosRefusesWhy = "the simulator models the 7050CX3, which takes the MTU; a cEOS lab switch refuses the line and its ports keep 1500, dropping RoCE's packets, which lint's QOS021 warns of"

// subifSafe is why no subinterface line harms RoCE in the lab.
const subifSafe = "a subinterface carries none of the lab's traffic, which runs untagged on its parent port, and takes its parent's QoS (only its own qos trust and qos cos differ, which those fields' mutations cover)"

// text edits the EOS configs of the switches named (every switch when none
// is): f gets a file's lines and returns the new ones.
func text(f func(lines []string) []string, switches ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(dir, "*.cfg"))
		for _, path := range files {
			name := strings.TrimSuffix(filepath.Base(path), ".cfg")
			if len(switches) > 0 && !contains(switches, name) {
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out := f(strings.Split(string(data), "\n"))
			if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// replace rewrites every line matching pattern with repl ($1 … allowed).
func replace(pattern, repl string) func([]string) []string {
	re := regexp.MustCompile(pattern)
	return func(lines []string) []string {
		for i, l := range lines {
			if re.MatchString(l) {
				lines[i] = re.ReplaceAllString(l, repl)
			}
		}
		return lines
	}
}

// after inserts add after every line matching pattern.
func after(pattern string, add ...string) func([]string) []string {
	re := regexp.MustCompile(pattern)
	return func(lines []string) []string {
		var out []string
		for _, l := range lines {
			out = append(out, l)
			if re.MatchString(l) {
				out = append(out, add...)
			}
		}
		return out
	}
}

// drop removes every line matching pattern.
func drop(pattern string) func([]string) []string {
	re := regexp.MustCompile(pattern)
	return func(lines []string) []string {
		var out []string
		for _, l := range lines {
			if !re.MatchString(l) {
				out = append(out, l)
			}
		}
		return out
	}
}

// append_ adds lines at the end of the file.
func append_(add ...string) func([]string) []string {
	return func(lines []string) []string { return append(lines, add...) }
}

// policyOnPorts has every port with qos trust dscp take policy-map
// pm-roce: access-list acl-roce (its entries), class-map cm-roce by it, and
// the policy's class cm-roce with action, then the policy-map's further
// lines (another class).
func policyOnPorts(entries []string, action string, more ...string) func([]string) []string {
	stack := []string{"!", "ip access-list acl-roce"}
	for _, e := range entries {
		stack = append(stack, "   "+e)
	}
	stack = append(stack, "!", "class-map type qos match-any cm-roce", "   match ip access-group acl-roce", "!",
		"policy-map type quality-of-service pm-roce", "   class cm-roce", "      "+action)
	stack = append(stack, more...)
	return chain(after(`^   qos trust dscp$`, "   service-policy type qos input pm-roce"), append_(stack...))
}

// aclOnPorts has every interface with a service-profile filter by
// access-list acl-edge (its entries) in direction dir.
func aclOnPorts(dir string, entries ...string) func([]string) []string {
	stack := []string{"!", "ip access-list acl-edge"}
	for _, e := range entries {
		stack = append(stack, "   "+e)
	}
	return chain(after(`^   service-profile `, "   ip access-group acl-edge "+dir), append_(stack...))
}

// chain applies edits in order.
func chain(fs ...func([]string) []string) func([]string) []string {
	return func(lines []string) []string {
		for _, f := range fs {
			lines = f(lines)
		}
		return lines
	}
}

// replaceIn replaces the lines matching pattern with repl (none: removes
// them) in the blocks that start at a line matching start (each up to the
// next line as little indented).
func replaceIn(start, pattern string, repl ...string) func([]string) []string {
	head, re := regexp.MustCompile(start), regexp.MustCompile(pattern)
	return func(lines []string) []string {
		var out []string
		in := false
		for _, l := range lines {
			switch {
			case head.MatchString(l):
				in = true
			case !strings.HasPrefix(l, " "):
				in = false
			case in && re.MatchString(l):
				out = append(out, repl...)
				continue
			}
			out = append(out, l)
		}
		return out
	}
}

// dropBlock removes a block that starts at a line matching start and runs
// while lines are indented deeper than it.
func dropBlock(start string) func([]string) []string {
	re := regexp.MustCompile(start)
	return func(lines []string) []string {
		var out []string
		skip := -1
		for _, l := range lines {
			indent := len(l) - len(strings.TrimLeft(l, " "))
			if skip >= 0 && (indent > skip || strings.TrimSpace(l) == "") {
				continue
			}
			skip = -1
			if re.MatchString(l) {
				skip = indent
				continue
			}
			out = append(out, l)
		}
		return out
	}
}

// roundRobin rewrites the settings of every tx-queue n block as round
// robin at weight w.
func roundRobin(n, w int) func([]string) []string {
	start := fmt.Sprintf("   tx-queue %d", n)
	return func(lines []string) []string {
		var out []string
		in := false
		for _, l := range lines {
			if in && strings.HasPrefix(l, "      ") {
				continue
			}
			in = l == start
			out = append(out, l)
			if in {
				out = append(out, "      no priority", fmt.Sprintf("      bandwidth percent %d", w))
			}
		}
		return out
	}
}

// interfaceRanges rewrites the interface blocks that set only a
// service-profile as ranges, one per run of consecutive Ethernet ports
// with the same profile (interface Ethernet1-32): the form a hand-written
// config takes.
func interfaceRanges(lines []string) []string {
	re := regexp.MustCompile(`^interface Ethernet(\d+)$`)
	var out []string
	type run struct {
		lo, hi  int
		profile string
	}
	var cur *run
	flush := func() {
		if cur != nil {
			out = append(out, fmt.Sprintf("interface Ethernet%d-%d", cur.lo, cur.hi), "   service-profile "+cur.profile, "!")
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		m := re.FindStringSubmatch(lines[i])
		if m != nil && i+2 < len(lines) && strings.HasPrefix(lines[i+1], "   service-profile ") && lines[i+2] == "!" {
			n, prof := 0, strings.TrimPrefix(lines[i+1], "   service-profile ")
			fmt.Sscan(m[1], &n)
			if cur != nil && cur.profile == prof && cur.hi == n-1 {
				cur.hi = n
			} else {
				flush()
				cur = &run{n, n, prof}
			}
			i += 2
			continue
		}
		flush()
		out = append(out, lines[i])
	}
	flush()
	return out
}

// reopenProfiles names every qos profile of the file again at its end,
// with lines, as a second block of the same profile.
func reopenProfiles(lines ...string) func([]string) []string {
	re := regexp.MustCompile(`^qos profile \S+$`)
	return func(in []string) []string {
		var heads []string
		for _, l := range in {
			if re.MatchString(l) {
				heads = append(heads, l)
			}
		}
		for _, h := range heads {
			in = append(append(append(in, h), lines...), "!")
		}
		return in
	}
}

// unindent writes every line without its indentation, as a hand-written
// or template-stripped config has it.
func unindent(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " \t")
	}
	return lines
}

const (
	profile = `^qos profile `
	q3      = `^   tx-queue 3$`
	q6      = `^   tx-queue 6$`
)

// eosMutations change every statement EOS's parser reads (eos.Fields) in
// the 64gpu lab's rendered EOS configs.
func eosMutations() []mutation {
	notSim := "the simulator does not run it; lint warns"
	return []mutation{
		{field: "global qos map dscp <d...> to traffic-class <tc>", name: "RoCE DSCP 26 to lossy TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(replace(`^qos map dscp 26 to traffic-class 3$`, "qos map dscp 26 to traffic-class 1"))},
		// The catch-all line (every DSCP of no class of its own, DSCP 0
		// among them) edited to the CNPs' class: bulk traffic on their
		// strict queue, before RoCE's; lint said nothing (QOS025 passed
		// the CNPs' queue over).
		{field: "global qos map dscp <d...> to traffic-class <tc>", name: "the catch-all DSCP line into the CNPs' strict TC6", harmful: true, rule: "QOS025", dataPlane: true,
			edit: text(replace(`^(qos map dscp 0 1 2 .*) to traffic-class 0$`, "$1 to traffic-class 6"))},
		{field: "global qos map dscp <d...> to traffic-class <tc>", name: "DSCP 10 mapped again to its class",
			edit: text(append_("qos map dscp 10 to traffic-class 0"))},
		{field: "global qos map dscp <d...> to traffic-class <tc> drop-precedence <dp>", name: "RoCE's DSCP red, its queue dropping red early", harmful: true, rule: "QOS015", dataPlane: true,
			edit: text(chain(after(`random-detect ecn minimum-threshold`, "      random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 100"),
				append_("qos map dscp 26 to traffic-class 3 drop-precedence 2")))},
		{field: "global qos map dscp <d...> to traffic-class <tc> drop-precedence <dp>", name: "DSCP 10 yellow in its own class",
			edit: text(append_("qos map dscp 10 to traffic-class 0 drop-precedence 1"))},
		{field: "global qos map cos <c...> to traffic-class <tc>", name: "CoS-trusting ports with CoS 0 in lossy TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(replace(`^   qos trust dscp$`, "   qos trust cos"), append_("qos map cos 0 to traffic-class 1")))},
		{field: "global qos map cos <c...> to traffic-class <tc>", name: "CoS 5 to its default class",
			edit: text(append_("qos map cos 5 to traffic-class 5"))},
		{field: "global qos map traffic-class <tc...> to tx-queue <q>", name: "TC3 into queue 1 (no ECN)", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(append_("qos map traffic-class 3 to tx-queue 1"))},
		{field: "global qos map traffic-class <tc...> to tx-queue <q>", name: "best-effort TC0 into RoCE's tx-queue 3", harmful: true, rule: "QOS002", dataPlane: true,
			edit: text(append_("qos map traffic-class 0 to tx-queue 3"), "leaf1")},
		{field: "global qos map traffic-class <tc...> to tx-queue <q>", name: "TC2 to its own queue",
			edit: text(append_("qos map traffic-class 2 to tx-queue 2"))},
		{field: "global qos map traffic-class <tc...> to uc-tx-queue <q>", name: "TC3 into unicast queue 1 (no ECN)", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(append_("qos map traffic-class 3 to uc-tx-queue 1"))},
		{field: "global qos map traffic-class <tc...> to uc-tx-queue <q>", name: "TC2 to its own unicast queue",
			edit: text(append_("qos map traffic-class 2 to uc-tx-queue 2"))},
		{field: "global qos map traffic-class <tc...> to mc-tx-queue <q>", name: "TC3's multicast into queue 1",
			edit: text(append_("qos map traffic-class 3 to mc-tx-queue 1"))},
		{field: "global priority-flow-control all off", name: "PFC off on the switch", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(append_("priority-flow-control all off"), "leaf1")},
		{field: "global no priority-flow-control all off", name: "PFC back on after all off", safe: "it only turns PFC back on where the ports set it",
			edit: text(append_("priority-flow-control all off", "no priority-flow-control all off"), "leaf1")},
		{field: "global default priority-flow-control all off", name: "PFC back on after all off", safe: "it only turns PFC back on where the ports set it",
			edit: text(append_("priority-flow-control all off", "default priority-flow-control all off"), "leaf1")},
		{field: "global no qos profile <name>", name: "the ports' profile deleted", harmful: true, rule: "QOS013", dataPlane: true,
			edit: text(append_("no qos profile labctl-400g"), "leaf1")},
		{field: "global no qos profile <name>", name: "said before the profile's block",
			edit: text(replace(`^(qos profile \S+)$`, "no $1\n$1"))},
		{field: "global default qos profile <name>", name: "the ports' profile deleted", harmful: true, rule: "QOS013", dataPlane: true,
			edit: text(append_("default qos profile labctl-400g"), "leaf1")},
		{field: "global default qos profile <name>", name: "said before the profile's block",
			edit: text(replace(`^(qos profile \S+)$`, "default $1\n$1"))},
		{field: "global priority-flow-control pause watchdog default timeout <s>", name: "5 s detection", harmful: true, rule: "QOS018", why: noStorm,
			edit: text(chain(replace(`^priority-flow-control pause watchdog default timeout .*`, "priority-flow-control pause watchdog default timeout 5"),
				replace(`port timer timeout 0.2 `, "port timer timeout 5 ")))},
		{field: "global priority-flow-control pause watchdog default timeout <s>", name: "0.2 written 0.20",
			edit: text(replace(`^priority-flow-control pause watchdog default timeout 0.2$`, "priority-flow-control pause watchdog default timeout 0.20"))},
		{field: "global priority-flow-control pause watchdog default recovery-time <s>", name: "60 s restoration", harmful: true, rule: "QOS018", why: noStorm, stormWhy: endlessStorm,
			edit: text(chain(replace(`^priority-flow-control pause watchdog default recovery-time .*`, "priority-flow-control pause watchdog default recovery-time 60"),
				replace(`recovery-time 0.2$`, "recovery-time 60")))},
		{field: "global priority-flow-control pause watchdog default recovery-time <s>", name: "0.2 written 0.20",
			edit: text(replace(`^priority-flow-control pause watchdog default recovery-time 0.2$`, "priority-flow-control pause watchdog default recovery-time 0.20"))},
		{field: "global priority-flow-control pause watchdog default polling-interval <s>", name: "polls every second", harmful: true, rule: "QOS008", why: noStorm,
			edit: text(replace(`^priority-flow-control pause watchdog default polling-interval .*`, "priority-flow-control pause watchdog default polling-interval 1"))},
		{field: "global priority-flow-control pause watchdog default polling-interval <s>", name: "0.1 written 0.10",
			edit: text(replace(`^priority-flow-control pause watchdog default polling-interval 0.1$`, "priority-flow-control pause watchdog default polling-interval 0.10"))},
		{field: "global priority-flow-control pause watchdog action <drop|no-drop|errdisable|notify-only>", name: "no-drop (forward)", harmful: true, rule: "QOS018", why: noStorm,
			edit: text(chain(replace(`^priority-flow-control pause watchdog action drop$`, "priority-flow-control pause watchdog action no-drop"), drop(`port action drop$`)))},
		{field: "global priority-flow-control pause watchdog action <drop|no-drop|errdisable|notify-only>", name: "said twice",
			edit: text(append_("priority-flow-control pause watchdog action drop"))},
		// no forms that repeat their arguments remove the setting, as the
		// short form does.
		{field: "global no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]", name: "the default timeout removed where only it turns the watchdog on", harmful: true, rule: "QOS008", why: noStorm,
			edit: text(chain(drop(`^   priority-flow-control pause watchdog`), append_("no priority-flow-control pause watchdog default timeout 0.2")))},
		{field: "global no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]", name: "said before the default timeout",
			edit: text(replace(`^(priority-flow-control pause watchdog default timeout .*)$`, "default priority-flow-control pause watchdog default timeout\n$1"))},
		{field: "global no priority-flow-control pause watchdog action [<action>]", name: "removed where the ports set none (errdisable)", harmful: true, rule: "QOS018",
			why:  "the suite's traffic has no pause storm; in the catalog's storm, errdisable (EOS's default as labctl assumes it) takes the port out where drop drops the paused queue's packets, which the suite's storm run shows as fewer pause frames received, not as a regression (the catalog's pfc-storm fails its assertion that the watchdog drops the storm's packets, errdisable dropping none: run and regress flag it there)",
			edit: text(chain(drop(`port action drop$`), append_("no priority-flow-control pause watchdog action drop")))},
		{field: "global no priority-flow-control pause watchdog action [<action>]", name: "removed where the ports set their own",
			edit: text(append_("no priority-flow-control pause watchdog action drop"))},
		// qos rewrite dscp without a map: the classes go by EOS's default
		// traffic class to DSCP map, which labctl does not know (a warning;
		// labctl runs them with their DSCP).
		{field: "global qos rewrite dscp", name: "DSCP rewriting by EOS's default map alone", harmful: true, rule: "QOS017", why: notSim,
			edit: text(append_("qos rewrite dscp"))},
		// With it, RoCE's class leaves every port as DSCP 0, best effort at
		// the next switch: QOS024's error, and the simulator runs it.
		{field: "global qos map traffic-class <tc...> to dscp <d>", name: "TC3 rewritten to DSCP 0 with qos rewrite dscp", harmful: true, rule: "QOS024", lintError: true, dataPlane: true,
			edit: text(append_("qos rewrite dscp", "qos map traffic-class 3 to dscp 0"))},
		{field: "global qos map traffic-class <tc...> to dscp <d>", name: "TC3 to DSCP 0 without qos rewrite dscp (the map rewrites nothing)",
			edit: text(append_("qos map traffic-class 3 to dscp 0"))},
		{field: "global no qos rewrite dscp", name: "a rewrite of TC3 to DSCP 0 turned off again", safe: "turning the rewrite off leaves every packet its DSCP",
			edit: text(append_("qos rewrite dscp", "qos map traffic-class 3 to dscp 0", "no qos rewrite dscp"))},
		{field: "global qos rewrite cos", name: "802.1p rewriting on untagged links",
			edit: text(append_("qos rewrite cos"))},
		{field: "global no qos rewrite cos", name: "802.1p rewriting off", safe: "the lab's links are untagged: no 802.1p reaches the next switch",
			edit: text(append_("no qos rewrite cos"))},
		{field: "global qos map traffic-class <tc...> to cos <c>", name: "802.1p marking of untagged links",
			edit: text(append_("qos map traffic-class 3 to cos 3"))},
		{field: "global no qos map <dscp|cos|traffic-class> <n...> [to ...]", name: "DSCP 24, 25, 27 back to EOS's default (TC3, lossless)", harmful: true, rule: "QOS002", why: "no flow of the suite's traffic (RoCE on DSCP 26, its CNPs, best effort on DSCP 0) carries DSCP 24, 25 or 27",
			edit: text(append_("no qos map dscp 24 25 27 to traffic-class 0"))},
		{field: "global no qos map <dscp|cos|traffic-class> <n...> [to ...]", name: "RoCE's DSCP 26 unmapped (EOS's default class for it is TC3 as well)",
			edit: text(append_("no qos map dscp 26 to traffic-class 3"))},
		{field: "global default qos map <dscp|cos|traffic-class> <n...> [to ...]", name: "DSCP 24, 25, 27 back to EOS's default (TC3, lossless)", harmful: true, rule: "QOS002", why: "no flow of the suite's traffic (RoCE on DSCP 26, its CNPs, best effort on DSCP 0) carries DSCP 24, 25 or 27",
			edit: text(append_("default qos map dscp 24 25 27 to traffic-class 0"))},
		{field: "global default qos map <dscp|cos|traffic-class> <n...> [to ...]", name: "RoCE's DSCP 26 (EOS's default class for it is TC3 as well)",
			edit: text(append_("default qos map dscp 26"))},
		{field: "global platform <chip> mmu <...>", name: "an MMU queue profile applied", harmful: true, rule: "QOS017", why: notSim,
			edit: text(append_("platform trident mmu queue profile roce", "   ingress threshold 1/128", "   egress unicast queue 3 threshold 1/128", "!", "platform trident mmu queue profile roce apply"))},
		{field: "global platform <chip> <...>", name: "a platform QoS line labctl does not read",
			edit: text(append_("platform sand qos map traffic-class 3 to network-qos 3"))},
		{field: "global hardware <...>", name: "a TCAM profile for QoS",
			edit: text(append_("hardware tcam", "   system profile qos"))},
		{field: "global interface <interfaces>", name: "interfaces written as ranges (Ethernet1-32)",
			edit: text(interfaceRanges)},
		{field: "global interface <interfaces>", name: "PFC off on Ethernet1-2 by a range block", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(append_("interface Ethernet1-2", "   no priority-flow-control", "!"), "leaf1")},
		{field: "global interface <interfaces>", name: "PFC off on Ethernet1 by a list block", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(append_("interface Ethernet1,Ethernet47", "   no priority-flow-control", "!"), "leaf1")},
		{field: "global default interface <interfaces>", name: "Ethernet1 returned to EOS's defaults", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(append_("default interface Ethernet1"), "leaf1")},
		{field: "global default interface <interfaces>", name: "said before the interface's block",
			edit: text(replace(`^interface Ethernet1$`, "default interface Ethernet1\ninterface Ethernet1"))},
		{field: "global switchport default mode <routed|access>", name: "access by default, ports without qos trust (CoS trust)", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(drop(`^   qos trust dscp$`), renderedRouted, append_("switchport default mode access")))},
		{field: "global switchport default mode <routed|access>", name: "routed by default, as AVD writes it",
			edit: text(append_("switchport default mode routed"))},
		{field: "global no switchport default [...]", name: "routed by default removed, ports without qos trust back to switchports", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(drop(`^   qos trust dscp$`), renderedRouted, after(`^interface `, "   default switchport"), append_("switchport default mode routed", "no switchport default mode routed")))},
		{field: "global no switchport default [...]", name: "said before routed by default",
			edit: text(append_("no switchport default mode", "switchport default mode routed"))},
		{field: "global interface defaults", name: "an empty block",
			edit: text(append_("interface defaults", "!"))},
		{field: "global interface defaults", name: "the ports' default MTU 1500", harmful: true, rule: "QOS020", dataPlane: true,
			edit: text(chain(renderedMTU, append_("interface defaults", "   mtu 1500", "!")))},
		// The defaults' MTU is for interfaces without their own: under
		// every port's mtu 9194 a default of 1500 changes nothing (the
		// global interface defaults case is the same edit without them).
		{field: "interface defaults mtu <bytes>", name: "9194, then 1500 (the last one counts)", harmful: true, rule: "QOS020", dataPlane: true,
			edit: text(chain(renderedMTU, append_("interface defaults", labMTULine, "   mtu 1500", "!")))},
		{field: "interface defaults mtu <bytes>", name: "1500 under every port's own mtu 9194",
			edit: text(chain(renderedMTU, after(`^interface Ethernet`, labMTULine), append_("interface defaults", "   mtu 1500", "!")))},
		{field: "interface defaults mtu <bytes>", name: "9194 beside the ports' own",
			edit: text(append_("interface defaults", labMTULine, "!"))},
		// EOS's mtu takes 68-65535 (eos.MinMTU, MaxCLIMTU): 70000 it
		// refuses; 9300 it takes, but no port of the platform takes more
		// than eos.PlatformMaxMTU, which labctl reads it as, warning.
		{field: "interface defaults mtu <bytes>", name: "70000, which EOS refuses (% Invalid input)", harmful: true, rule: "QOS021", why: "every lab port sets its own mtu, which a default does not touch",
			edit: text(append_("interface defaults", "   mtu 70000", "!"))},
		{field: "interface defaults mtu <bytes>", name: "9300, above the ports' maximum", harmful: true, rule: "QOS021", why: "every lab port sets its own mtu, which a default does not touch",
			edit: text(append_("interface defaults", "   mtu 9300", "!"))},
		{field: "interface defaults mtu <bytes>", name: "the routed ports' mtu lines moved into it as mtu 9194",
			edit: text(chain(renderedMTU, append_("interface defaults", labMTULine, "!")))},
		{field: "interface defaults mtu <bytes>", name: "the routed ports' mtu lines moved into it as the platform's 9214, above a cEOS lab switch's 9194", harmful: true, rule: "QOS021", why: ceosRefusesWhy,
			edit: text(chain(renderedMTU, append_("interface defaults", platformMTULine, "!")))},
		{field: "interface defaults no mtu", name: "9194 removed (EOS's 1500)", harmful: true, rule: "QOS020", dataPlane: true,
			edit: text(chain(renderedMTU, append_("interface defaults", labMTULine, "   no mtu", "!")))},
		{field: "interface defaults no mtu", name: "said before mtu 9194",
			edit: text(chain(renderedMTU, append_("interface defaults", "   no mtu", labMTULine, "!")))},
		{field: "interface defaults ethernet", name: "an empty ethernet block", safe: "it only opens the Ethernet interfaces' defaults",
			edit: text(append_("interface defaults", "   ethernet", "!"))},
		{field: "interface defaults shutdown", name: "every Ethernet port down by default", harmful: true, rule: "QOS026", dataPlane: true,
			edit: text(append_("interface defaults", "   ethernet", "      shutdown", "!"), "leaf1")},
		{field: "interface defaults shutdown", name: "down by default, every port saying no shutdown",
			edit: text(chain(after(`^interface Ethernet`, "   no shutdown"), append_("interface defaults", "   ethernet", "      shutdown", "!")))},
		{field: "interface defaults default shutdown", name: "after shutdown, back to up", safe: "it takes Ethernet ports back to EOS's default, up unless they say shutdown",
			edit: text(append_("interface defaults", "   ethernet", "      shutdown", "      default shutdown", "!"))},
		{field: "interface defaults no shutdown", name: "up by default said", safe: "it keeps Ethernet ports up unless they say shutdown, EOS's default",
			edit: text(append_("interface defaults", "   ethernet", "      no shutdown", "!"))},
		// EOS rejects no interface on a physical port, so labctl refuses
		// it (a unit test's); on a virtual one it deletes the interface.
		{field: "global no interface <interfaces>", name: "a Port-Channel with the ports' profile deleted", safe: "it deletes a virtual interface, whose QoS labctl gives no member; on a physical port the line is refused, as EOS rejects it",
			edit: text(append_("interface Port-Channel1", "   service-profile labctl-200g", "!", "no interface Port-Channel1"), "leaf1")},

		{field: "interface qos trust <dscp|cos>", name: "trust cos", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(replace(`^   qos trust dscp$`, "   qos trust cos"))},
		{field: "interface qos trust <dscp|cos>", name: "said twice",
			edit: text(after(`^   qos trust dscp$`, "   qos trust dscp"))},
		// Keywords in capitals: read as in lower case (noted, QOS000),
		// taking EOS's CLI to match keywords in any case (unverified).
		{field: "interface qos trust <dscp|cos>", name: "written QOS TRUST DSCP",
			edit: text(replace(`^   qos trust dscp$`, "   QOS TRUST DSCP"))},
		// A profile whose name is a keyword (AVD's QoS), named by
		// Service-Profile QoS: the keyword folds, the name keeps its case
		// (it was read as service-profile qos, a profile the files do not
		// have: QOS013, PFC off).
		{field: "interface service-profile <name>", name: "the profile named QoS, written Service-Profile QoS",
			edit: text(chain(replace(`^qos profile labctl-200g$`, "qos profile QoS"), replace(`^   service-profile labctl-200g$`, "   Service-Profile QoS")), "leaf1")},
		{field: "interface no qos trust", name: "trust nothing", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(replace(`^   qos trust dscp$`, "   no qos trust"))},
		{field: "interface default qos trust", name: "switchports with their qos trust defaulted (CoS)", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(renderedRouted, after(`^   qos trust dscp$`, "   default qos trust"), after(`^interface `, "   switchport")))},
		{field: "interface default qos trust", name: "said before qos trust dscp",
			edit: text(replace(`^   qos trust dscp$`, "   default qos trust\n   qos trust dscp"))},
		{field: "interface qos cos <c>", name: "untrusted ports with default CoS 1 (TC0)", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(replace(`^   qos trust dscp$`, "   no qos trust"), after(`^   no qos trust$`, "   qos cos 1")))},
		{field: "interface qos cos <c>", name: "untrusted ports with default CoS 3 (every packet in RoCE's TC3)", harmful: true, rule: "QOS002", dataPlane: true,
			edit: text(replace(`^   qos trust dscp$`, "   no qos trust\n   qos cos 3"))},
		{field: "interface qos cos <c>", name: "the default CoS 0",
			edit: text(after(`^   qos trust dscp$`, "   qos cos 0"))},
		{field: "interface no qos cos", name: "untrusted ports' default CoS 3 (TC3) removed", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(replace(`^   qos trust dscp$`, "   no qos trust\n   qos cos 3\n   no qos cos"))},
		{field: "interface no qos cos", name: "on ports trusting DSCP",
			edit: text(after(`^   qos trust dscp$`, "   no qos cos"))},
		{field: "interface qos dscp <d>", name: "a default DSCP for untrusted packets",
			edit: text(after(`^   qos trust dscp$`, "   qos dscp 0"))},
		{field: "interface no switchport", name: "routed ports said so", safe: "a routed port trusts DSCP by default, which RoCE needs",
			edit: text(after(`^interface `, "   no switchport"))},
		{field: "interface switchport", name: "switchports without qos trust (CoS trust by default)", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(drop(`^   qos trust dscp$`), renderedRouted, after(`^interface `, "   switchport")))},
		// A fabric uplink made a switchport, its qos trust dscp kept: EOS
		// ignores IP configuration on a switchport, so the link, routed
		// at the spine, routes nothing (qos.NotRouted): lint errs, and
		// the simulator runs the link down.
		{field: "interface switchport", name: "a leaf uplink made a switchport, its qos trust kept", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: text(append_("interface Ethernet33", "   switchport", "!"), "leaf1")},
		// An Ethernet interface is a switchport unless it says no
		// switchport, but the lab's file is QoS alone, merged over a
		// startup config that holds every port's no switchport and
		// address (fabric.Graph.WriteEOSStartup; eos.PushConfig commits
		// the file in a configure session, no rollback clean-config): the
		// line deleted from it leaves the uplink routed on the switch, so
		// lint says nothing and the run is unchanged (qos.NotRouted). In a
		// whole config, whose uplinks carry their addresses, the port
		// would be a switchport: runtime/sim's
		// TestRoutedPortMadeL2IsALinkDownFromTheStart covers that.
		{field: "interface no switchport", name: "deleted from a leaf uplink's block of the lab's QoS file, the startup config keeping the port routed",
			edit: text(replaceIn(`^interface Ethernet33$`, `^   no switchport$`), "leaf1")},
		// EOS's common leaf layout: host ports bridged into a VLAN whose
		// SVI routes for them (switchport access vlan sets no mode; the
		// startup config's no switchport would keep them routed anyway).
		// A port facing a host without an address of its own is not
		// judged (qos.NotRouted): no error, the run unchanged.
		{field: "interface no switchport", name: "replaced by switchport access vlan 10 on a leaf's host ports, bridged into VLAN 10 whose SVI (interface Vlan10) has the address",
			edit: text(chain(replaceIn(`^interface Ethernet[1-8]$`, `^   no switchport$`, "   switchport access vlan 10"),
				append_("vlan 10", "!", "interface Vlan10", "   ip address 10.64.0.1/24", "!")), "leaf1")},
		// A block of QoS lines alone says nothing of the port's mode: the
		// uplink stays routed by its first block's no switchport.
		{field: "interface no switchport", name: "a leaf uplink's second block, of QoS alone, its no switchport in the first",
			edit: text(append_("interface Ethernet33", "   qos trust dscp", "!"), "leaf1")},
		{field: "interface default switchport", name: "routed ports without qos trust made switchports again (CoS trust)", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(drop(`^   qos trust dscp$`), renderedRouted, after(`^interface `, "   no switchport", "   default switchport")))},
		{field: "interface default switchport", name: "said before no switchport",
			edit: text(after(`^interface `, "   default switchport", "   no switchport"))},
		{field: "interface service-profile <name>", name: "one port without its profile", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(dropBlock(`^interface Ethernet1$`), "leaf1", "leaf2", "spine1")},
		{field: "interface service-profile <name>", name: "profiles renamed with their references",
			edit: text(replace(`labctl-(\d+g)`, "roce-$1"))},
		{field: "interface service-profile <name>", name: "the whole file without indentation",
			edit: text(unindent)},
		{field: "interface no priority-flow-control", name: "PFC off on Ethernet1 in a file without indentation", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(chain(unindent, append_("interface Ethernet1", "description to gpu1", "no priority-flow-control")), "leaf1")},
		{field: "interface no service-profile [<name>]", name: "removed from Ethernet1 after it", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(append_("interface Ethernet1", "   no service-profile labctl-200g", "!"), "leaf1")},
		{field: "interface no service-profile [<name>]", name: "said before the profile is applied",
			edit: text(after(`^interface Ethernet1$`, "   no service-profile"))},
		{field: "interface default service-profile [<name>]", name: "removed from Ethernet1 after it", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(append_("interface Ethernet1", "   default service-profile", "!"), "leaf1")},
		{field: "interface default service-profile [<name>]", name: "said before the profile is applied",
			edit: text(after(`^interface Ethernet1$`, "   default service-profile"))},
		{field: "interface priority-flow-control on", name: "PFC never turned on", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(drop(`^   priority-flow-control on$`))},
		{field: "interface priority-flow-control on", name: "said twice",
			edit: text(after(`^   priority-flow-control on$`, "   priority-flow-control on"))},
		{field: "interface priority-flow-control on", name: "written Priority-Flow-Control on, its priority line in capitals too",
			edit: text(chain(replace(`^   priority-flow-control on$`, "   Priority-Flow-Control on"), replace(`^   priority-flow-control priority 3 no-drop$`, "   Priority-Flow-Control Priority 3 No-Drop")))},
		{field: "interface priority-flow-control off", name: "PFC turned off after on", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`^   priority-flow-control on$`, "   priority-flow-control off"))},
		{field: "interface no priority-flow-control", name: "PFC removed after on", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`^   priority-flow-control on$`, "   no priority-flow-control"))},
		{field: "interface default priority-flow-control", name: "PFC defaulted after on", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`^   priority-flow-control on$`, "   default priority-flow-control"))},
		{field: "interface default priority-flow-control", name: "said before on",
			edit: text(replace(`^   priority-flow-control on$`, "   default priority-flow-control\n   priority-flow-control on"))},
		{field: "interface priority-flow-control mode on", name: "written for priority-flow-control on", safe: "it only turns PFC on, as priority-flow-control on does",
			edit: text(replace(`^   priority-flow-control on$`, "   priority-flow-control mode on"))},
		{field: "interface priority-flow-control mode off", name: "PFC turned off after on", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`^   priority-flow-control on$`, "   priority-flow-control mode off"))},
		{field: "interface priority-flow-control mode off", name: "said before on",
			edit: text(replace(`^   priority-flow-control on$`, "   priority-flow-control mode off\n   priority-flow-control on"))},
		{field: "interface priority-flow-control priority <p> no-drop", name: "priority 3 not no-drop", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(drop(`priority-flow-control priority 3 no-drop$`))},
		{field: "interface priority-flow-control priority <p> no-drop", name: "said twice",
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   priority-flow-control priority 3 no-drop"))},
		{field: "interface priority-flow-control priority <p> drop", name: "priority 3 set to drop", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   priority-flow-control priority 3 drop"))},
		{field: "interface priority-flow-control priority <p> drop", name: "priority 3 set to drop, priority written prio", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   priority-flow-control prio 3 drop"))},
		{field: "interface priority-flow-control priority <p> no-drop", name: "said again, priority written prio",
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   priority-flow-control prio 3 no-drop"))},
		// Across devices: PFC on priority 4 too at the spine's end of each
		// link, the leaves' ends left without it. No DSCP takes TC4
		// there, so nothing fills the spine's PG 4 and it never pauses;
		// the leaves' TC4 is lossy by their own configs either way.
		{field: "interface priority-flow-control priority <p> no-drop", name: "priority 4 no-drop on the spine only, which no DSCP takes", harmful: true, rule: "QOS009",
			why:     "no DSCP takes priority 4, so no packet of the suite's traffic sees it",
			noError: "a PFC priority no DSCP reaches at the end that enables it fills no PG and pauses nothing",
			edit:    text(after(`priority-flow-control priority 3 no-drop$`, "   priority-flow-control priority 4 no-drop"), "spine1")},
		{field: "interface priority-flow-control priority <p> drop", name: "priority 2 (lossy) set to drop",
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   priority-flow-control priority 2 drop"))},
		{field: "interface no priority-flow-control priority <p> [no-drop|drop]", name: "priority 3's no-drop removed in the profile", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   no priority-flow-control priority 3 no-drop"))},
		{field: "interface no priority-flow-control priority <p> [no-drop|drop]", name: "on lossy priority 2",
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   no priority-flow-control priority 2"))},
		{field: "interface default priority-flow-control priority <p> [no-drop|drop]", name: "priority 3's no-drop defaulted in the profile", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   default priority-flow-control priority 3"))},
		{field: "interface default priority-flow-control priority <p> [no-drop|drop]", name: "on lossy priority 2",
			edit: text(after(`priority-flow-control priority 3 no-drop$`, "   default priority-flow-control priority 2"))},
		{field: "interface priority-flow-control pause watchdog", name: "watchdog only where a default would turn it on", harmful: true, rule: "QOS008", why: noStorm,
			edit: text(chain(drop(`^   priority-flow-control pause watchdog`), drop(`^priority-flow-control pause watchdog default timeout`)))},
		{field: "interface priority-flow-control pause watchdog", name: "said twice",
			edit: text(after(`^   priority-flow-control pause watchdog$`, "   priority-flow-control pause watchdog"))},
		{field: "interface no priority-flow-control pause watchdog", name: "watchdog off", harmful: true, rule: "QOS008", why: noStorm,
			edit: text(after(`^   priority-flow-control pause watchdog$`, "   no priority-flow-control pause watchdog"))},
		{field: "interface default priority-flow-control pause watchdog", name: "defaulted without a global default timeout", harmful: true, rule: "QOS008", why: noStorm,
			edit: text(chain(after(`^   priority-flow-control pause watchdog$`, "   default priority-flow-control pause watchdog"), drop(`^priority-flow-control pause watchdog default timeout`)))},
		{field: "interface default priority-flow-control pause watchdog", name: "said before the watchdog line",
			edit: text(replace(`^   priority-flow-control pause watchdog$`, "   default priority-flow-control pause watchdog\n   priority-flow-control pause watchdog"))},
		{field: "interface priority-flow-control pause watchdog port action <action>", name: "notify only", harmful: true, rule: "QOS018", why: noStorm,
			edit: text(replace(`port action drop$`, "port action notify-only"))},
		{field: "interface priority-flow-control pause watchdog port action <action>", name: "said twice",
			edit: text(after(`port action drop$`, "   priority-flow-control pause watchdog port action drop"))},
		{field: "interface priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s>", name: "5 s detection on the ports", harmful: true, rule: "QOS018", why: noStorm,
			edit: text(replace(`port timer timeout 0.2 `, "port timer timeout 5 "))},
		{field: "interface priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s>", name: "the ports poll every second", harmful: true, rule: "QOS008", why: noStorm,
			edit: text(replace(`polling-interval auto`, "polling-interval 1"))},
		{field: "interface priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s>", name: "polling-interval auto written as the global 0.1",
			edit: text(replace(`polling-interval auto`, "polling-interval 0.1"))},
		{field: "interface priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s> forced", name: "forced recovery on the ports' timers",
			edit: text(replace(`(port timer timeout .* recovery-time \S+)$`, "$1 forced"))},
		{field: "interface priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s>", name: "0.2 written 0.20",
			edit: text(replace(`port timer timeout 0.2 `, "port timer timeout 0.20 "))},
		{field: "interface no priority-flow-control pause watchdog port action [<action>]", name: "the ports' drop removed, the global action no-drop (forward)", harmful: true, rule: "QOS018", why: noStorm,
			edit: text(chain(replace(`^priority-flow-control pause watchdog action drop$`, "priority-flow-control pause watchdog action no-drop"),
				after(`port action drop$`, "   no priority-flow-control pause watchdog port action drop")))},
		{field: "interface no priority-flow-control pause watchdog port action [<action>]", name: "the ports' drop removed, the global action drop",
			edit: text(after(`port action drop$`, "   default priority-flow-control pause watchdog port action drop"))},
		{field: "interface no priority-flow-control pause watchdog port timer [...]", name: "the ports' timer removed, the global timeout 5 s", harmful: true, rule: "QOS018", why: noStorm,
			edit: text(chain(replace(`^priority-flow-control pause watchdog default timeout .*`, "priority-flow-control pause watchdog default timeout 5"),
				after(`port timer timeout`, "   no priority-flow-control pause watchdog port timer timeout 0.2 polling-interval auto recovery-time 0.2")))},
		{field: "interface no priority-flow-control pause watchdog port timer [...]", name: "the ports' timer removed, the global one the same",
			edit: text(after(`port timer timeout`, "   no priority-flow-control pause watchdog port timer"))},
		{field: "interface no priority-flow-control", name: "written no priority-flow-control on", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`^   priority-flow-control on$`, "   no priority-flow-control on"))},
		{field: "interface default priority-flow-control", name: "written default priority-flow-control on", harmful: true, rule: "QOS001", dataPlane: true,
			edit: text(after(`^   priority-flow-control on$`, "   default priority-flow-control on"))},
		{field: "interface no qos trust", name: "written no qos trust dscp", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(after(`^   qos trust dscp$`, "   no qos trust dscp"))},
		{field: "class-map match dscp <d...>", name: "RoCE's DSCP 26 classified into lossy TC1 by match dscp", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(after(`^   qos trust dscp$`, "   service-policy type qos input pm-roce"),
				append_("!", "class-map type qos match-any cm-roce", "   match dscp 26", "!", "policy-map type quality-of-service pm-roce", "   class cm-roce", "      set traffic-class 1")))},
		{field: "class-map match dscp <d...>", name: "DSCPs 10-14 into their own class, no RoCE",
			edit: text(chain(after(`^   qos trust dscp$`, "   service-policy type qos input pm-roce"),
				append_("!", "class-map type qos match-any cm-af1", "   match dscp 10-14", "!", "policy-map type quality-of-service pm-roce", "   class cm-af1", "      set traffic-class 0")))},
		{field: "interface service-policy type qos input <policy>", name: "a policy-map the files do not have", harmful: true, rule: "QOS017", why: "labctl cannot tell what the policy does: the ports run by their maps, and lint warns",
			edit: text(after(`^   qos trust dscp$`, "   service-policy type qos input pmap-roce"))},
		// Access-lists on interfaces (ip access-group), which labctl does
		// not simulate: lint errs where one drops RoCE's packets, and
		// regress on the new lint error.
		{field: "interface ip access-group <acl> in", name: "an access-list on leaf1's ports denying UDP 4791", harmful: true, rule: "QOS017", lintError: true, why: aclNotSim,
			edit: text(aclOnPorts("in", "10 deny udp any any eq 4791", "20 permit ip any any"), "leaf1")},
		{field: "interface ip access-group <acl> in", name: "an access-list on leaf1's ports permitting SSH alone (EOS's implicit deny drops the rest)", harmful: true, rule: "QOS017", lintError: true, why: aclNotSim,
			edit: text(aclOnPorts("in", "10 permit tcp any any eq ssh"), "leaf1")},
		{field: "interface ip access-group <acl> in", name: "an access-list on leaf1's ports denying telnet, permitting the rest",
			edit: text(aclOnPorts("in", "10 deny tcp any any eq telnet", "20 permit ip any any"), "leaf1")},
		{field: "interface ip access-group <acl> out", name: "an access-list on what leaf1's ports send denying RoCE's DSCP 26", harmful: true, rule: "QOS017", lintError: true, why: aclNotSim,
			edit: text(aclOnPorts("out", "10 deny ip any any dscp 26", "20 permit ip any any"), "leaf1")},
		{field: "interface no ip access-group [...]", name: "an access-list denying UDP 4791 taken off leaf1's ports again", safe: "taking an access-list off a port filters nothing more",
			edit: text(chain(aclOnPorts("in", "10 deny udp any any eq 4791"), after(`^   ip access-group acl-edge in$`, "   no ip access-group acl-edge in")), "leaf1")},
		{field: "interface default ip access-group [...]", name: "an access-list denying UDP 4791 taken off leaf1's ports by default ip access-group", safe: "taking an access-list off a port filters nothing more",
			edit: text(chain(aclOnPorts("in", "10 deny udp any any eq 4791"), after(`^   ip access-group acl-edge in$`, "   default ip access-group")), "leaf1")},
		// Policy-maps (policyOnPorts: an access-list, a class-map by it and
		// a policy-map whose class cm-roce acts, on every port).
		{field: "interface service-policy type qos input <policy>", name: "RoCE's DSCP classified into lossy TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 permit udp any any eq 4791 dscp 26"}, "set traffic-class 1"))},
		{field: "interface service-policy type qos input <policy>", name: "written without types, RoCE into lossy TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any eq 4791 dscp 26"}, "set traffic-class 1"),
				replace(`^   service-policy type qos input pm-roce$`, "   service-policy input pm-roce"),
				replace(`^class-map type qos match-any cm-roce$`, "class-map match-any cm-roce"),
				replace(`^policy-map type quality-of-service pm-roce$`, "policy-map pm-roce")))},
		{field: "interface service-policy type qos input <policy>", name: "RoCE's DSCP classified into its own class",
			edit: text(policyOnPorts([]string{"10 permit udp any any eq 4791 dscp 26"}, "set traffic-class 3"))},
		{field: "interface no service-policy type qos input [<policy>]", name: "a qos profile's policy into lossy TC1 taken off its ports", safe: "it only takes a policy-map off a port, which then classifies by the maps the lab's configs give it",
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any eq 4791 dscp 26"}, "set traffic-class 1"),
				after(`^   service-profile `, "   no service-policy type qos input")))},
		{field: "interface default service-policy type qos input [<policy>]", name: "on ports that take none", safe: "it only takes a policy-map off a port, which then classifies by the maps the lab's configs give it",
			edit: text(after(`^   service-profile `, "   default service-policy type qos input"))},
		{field: "interface no service-policy type qos input [<policy>]", name: "on ports that take none", safe: "it only takes a policy-map off a port, which then classifies by the maps the lab's configs give it",
			edit: text(after(`^   qos trust dscp$`, "   no service-policy type qos input"))},
		{field: "global ip access-list [standard] <name>", name: "the class's access-list missing", harmful: true, rule: "QOS017", why: "labctl cannot tell what the class matches: the ports run by their maps, and lint warns",
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 1"), replace(`^ip access-list acl-roce$`, "ip access-list acl-other")))},
		{field: "global ip access-list [standard] <name>", name: "a standard list that permits nothing",
			edit: text(chain(policyOnPorts([]string{"10 deny any"}, "set traffic-class 1"), replace(`^ip access-list acl-roce$`, "ip access-list standard acl-roce")))},
		{field: "ip access-list [<seq>] permit <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "every IP packet of DSCP 26 into TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 permit ip any any dscp af31"}, "set traffic-class 1"))},
		{field: "ip access-list [<seq>] permit <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "VXLAN's UDP port, not RoCE's",
			edit: text(policyOnPorts([]string{"10 permit udp any any eq 4789 dscp 26"}, "set traffic-class 1"))},
		{field: "ip access-list [<seq>] permit <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "a destination port range holding 4791, into TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 permit udp any any range 4000 5000 dscp 26"}, "set traffic-class 1"))},
		{field: "ip access-list [<seq>] permit <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "by a source subnet labctl does not number", harmful: true, rule: "QOS017", why: "labctl cannot tell which RoCE packets the entry matches: the ports run by their maps, and lint warns",
			edit: text(policyOnPorts([]string{"10 permit udp 10.0.0.0/8 any dscp 26"}, "set traffic-class 1"))},
		{field: "ip access-list [<seq>] permit <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "fragments only, which RoCE never is",
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26 fragments"}, "set traffic-class 1"))},
		{field: "ip access-list [<seq>] permit <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "sequence order ahead of line order: a permit numbered first", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"20 deny udp any any dscp 26", "10 permit udp any any dscp 26"}, "set traffic-class 1"))},
		{field: "ip access-list [<seq>] deny <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "RoCE denied the class that keeps it lossless, into class-default's TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 deny udp any any dscp 26", "20 permit udp any any dscp 26"}, "set traffic-class 3", "   class class-default", "      set traffic-class 1"))},
		{field: "ip access-list [<seq>] deny <protocol> <source> [<ports>] <destination> [<ports>] [dscp <d>] [...]", name: "a DSCP no traffic uses denied first",
			edit: text(policyOnPorts([]string{"10 deny ip any any dscp 10", "20 permit udp any any dscp 26"}, "set traffic-class 3"))},
		{field: "ip access-list remark <text>", name: "a remark",
			edit: text(policyOnPorts([]string{"remark RoCE", "10 permit udp any any dscp 26"}, "set traffic-class 3"))},
		{field: "ip access-list statistics per-entry", name: "counting",
			edit: text(policyOnPorts([]string{"statistics per-entry", "10 permit udp any any dscp 26"}, "set traffic-class 3"))},
		{field: "global class-map type qos [match-any|match-all] <name>", name: "the policy's class-map missing", harmful: true, rule: "QOS017", why: "labctl cannot tell what the class matches: the ports run by their maps, and lint warns",
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 1"), replace(`^class-map type qos match-any cm-roce$`, "class-map type qos match-any cm-other")))},
		{field: "global class-map type qos [match-any|match-all] <name>", name: "match-any said without a match type",
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 3"), replace(`^class-map type qos match-any cm-roce$`, "class-map type qos cm-roce")))},
		{field: "class-map match ip access-group <acl>", name: "a class by an access-list permitting RoCE, into TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 permit ip any any dscp 26"}, "set traffic-class 1"))},
		{field: "class-map match ip access-group <acl>", name: "a class by an access-list of TCP only",
			edit: text(policyOnPorts([]string{"10 permit tcp any any dscp 26"}, "set traffic-class 1"))},
		{field: "class-map match ipv6 access-group <acl>", name: "IPv6 packets into TC1", safe: "an IPv6 match moves no IPv4 packet, and labctl's RoCE is IPv4",
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 1"), replace(`^   match ip access-group acl-roce$`, "   match ipv6 access-group acl-roce")))},
		{field: "global policy-map type quality-of-service <name>", name: "a policy moving RoCE into TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 1"))},
		{field: "global policy-map type quality-of-service <name>", name: "type qos, the same, RoCE in its class",
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 3"), replace(`^policy-map type quality-of-service pm-roce$`, "policy-map type qos pm-roce")))},
		// Headers with keywords in another case: read as in lower case
		// (noted, QOS000), the names as written. Policy-Map type qos
		// opened no block (service-policy named a policy the files did
		// not have, QOS017, and RoCE stayed in TC3), and Type QoS or
		// Match-Any was refused ("needs one name", exit 2).
		{field: "global policy-map type quality-of-service <name>", name: "written Policy-Map Type QoS, moving RoCE into TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 1"), replace(`^policy-map type quality-of-service pm-roce$`, "Policy-Map Type QoS pm-roce")))},
		{field: "global class-map type qos [match-any|match-all] <name>", name: "written Class-Map type qos Match-Any, RoCE in its class",
			edit: text(chain(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 3"), replace(`^class-map type qos match-any cm-roce$`, "Class-Map type qos Match-Any cm-roce")))},
		{field: "policy-map class <class-map>", name: "class-default into TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 10"}, "set traffic-class 0", "   class class-default", "      set traffic-class 1"))},
		{field: "policy-map class <class-map>", name: "class-default without actions",
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 3", "   class class-default"))},
		{field: "policy-map class set traffic-class <tc>", name: "RoCE into TC1", harmful: true, rule: "QOS003", dataPlane: true,
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 1"))},
		{field: "policy-map class set traffic-class <tc>", name: "RoCE into TC3, its class",
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set traffic-class 3"))},
		// An ingress re-mark of RoCE to DSCP 0, best effort at every switch
		// after: lint's error (QOS017 at the set dscp line); the simulator
		// does not run the re-mark.
		{field: "policy-map class set dscp <d>", name: "RoCE re-marked to DSCP 0", harmful: true, rule: "QOS017", lintError: true, why: remarkNotSim,
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set dscp 0"))},
		{field: "policy-map class set dscp <d>", name: "RoCE (UDP 4791 of DSCP 26) re-marked to DSCP 26, its own",
			edit: text(policyOnPorts([]string{"10 permit udp any any eq 4791 dscp 26"}, "set dscp 26"))},
		{field: "policy-map class set cos <c>", name: "802.1p 3 on RoCE",
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set cos 3"))},
		{field: "policy-map class set drop-precedence <n>", name: "RoCE yellow", harmful: true, rule: "QOS017", why: notSim,
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "set drop-precedence 1"))},
		{field: "policy-map class police <...>", name: "a policer on a class of TCP, no RoCE",
			edit: text(policyOnPorts([]string{"10 permit tcp any any"}, "police rate 1 gbps burst-size 1 mbytes"))},
		{field: "policy-map class set dscp <d>", name: "a DSCP rewrite on a class of TCP, no RoCE",
			edit: text(policyOnPorts([]string{"10 permit tcp any any"}, "set dscp 0"))},
		{field: "policy-map class police <...>", name: "RoCE policed to 1 Gb/s", harmful: true, rule: "QOS017", why: notSim,
			edit: text(policyOnPorts([]string{"10 permit udp any any dscp 26"}, "police rate 1 gbps burst-size 1 mbytes"))},
		// The simulator shapes a port at its shape rate, all its queues
		// together: RoCE's ports shaped to half their speed send below
		// line rate and pause sooner.
		{field: "interface shape rate <rate> [kbps|percent]", name: "RoCE's ports shaped", harmful: true, rule: "QOS022", dataPlane: true,
			edit: text(after(`^   qos trust dscp$`, "   shape rate 50 percent"))},
		{field: "interface shape rate <rate> [kbps|percent]", name: "shaped at line rate (100 percent)",
			edit: text(after(`^   qos trust dscp$`, "   shape rate 100 percent"))},
		{field: "interface shape rate <rate> pps", name: "RoCE's ports shaped in packets per second", harmful: true, rule: "QOS022", dataPlane: true,
			edit: text(after(`^   qos trust dscp$`, "   shape rate 1000000 pps"))},
		{field: "interface no shape rate [...]", name: "on ports that are not shaped", safe: "it only removes a shaper",
			edit: text(after(`^   service-profile `, "   no shape rate"))},
		{field: "interface default shape rate [...]", name: "on ports that are not shaped", safe: "it only removes a shaper",
			edit: text(after(`^   qos trust dscp$`, "   default shape rate"))},
		{field: "interface channel-group <n> mode <mode>", name: "Ethernet1 in a port-channel, its QoS on itself: the NIC runs no LACP, the link carries nothing", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: text(after(`^interface Ethernet1$`, "   channel-group 1 mode active"), "leaf1")},
		// Whether EOS gives a member its port-channel's QoS is not checked
		// in Arista's documentation: labctl reads the member by its own
		// lines (no PFC, an error) and notes the assumption (QOS000). If
		// EOS does apply it, this change is benign and the error a false
		// alarm that the note explains.
		// A bundled member's traffic is its port-channel's, and the lab's
		// addresses sit on the member ports (the startup config's ip
		// address on each Ethernet interface): with no address on the
		// Port-Channel interfaces the link carries nothing
		// (qos.ChannelAlone).
		{field: "interface channel-group <n> mode <mode>", name: "a leaf-spine link in a port-channel at both ends, the port-channels without an address", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: bothEndsChannel("active", "active", false, false)},
		{field: "interface channel-group <n> mode <mode>", name: "a leaf-spine link in a port-channel at both ends, each port-channel with an address, the QoS on the members",
			edit: bothEndsChannel("active", "passive", true, false)},
		{field: "interface channel-group <n> mode <mode>", name: "a leaf-spine link in a port-channel at both ends, both passive: no LACPDU, no bundle", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: bothEndsChannel("passive", "passive", true, false)},
		{field: "interface channel-group <n> mode <mode>", name: "a leaf-spine link in a port-channel at both ends, static facing LACP: no bundle", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: bothEndsChannel("on", "active", true, false)},
		{field: "interface channel-group <n> mode <mode>", name: "a bundled leaf-spine link, leaf1's service-profile on the uplink moved to its port-channel", harmful: true, rule: "QOS001", dataPlane: true,
			edit: bothEndsChannel("active", "active", true, true)},
		// EOS's shutdown in an interface Port-Channel block takes the
		// port channel down, and its members carry nothing
		// (qos.PortConfig.ChannelDown).
		{field: "interface shutdown", name: "a bundled leaf-spine link, each port-channel with an address, leaf1's Port-Channel1 shut down", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: bothEndsChannel("active", "active", true, false, "   shutdown")},
		{field: "interface no shutdown", name: "a bundled leaf-spine link, each port-channel with an address, leaf1's Port-Channel1 said no shutdown",
			edit: bothEndsChannel("active", "active", true, false, "   no shutdown")},
		// EOS ignores the IP configuration of a Port-Channel interface
		// without no switchport, as of an Ethernet one: the bundle's
		// traffic is the channel's, which then routes nothing
		// (qos.ChannelAlone names the address ignored and the missing no
		// switchport; labctl said the channel had no address).
		{field: "interface no switchport", name: "deleted from leaf1's Port-Channel1 of a bundled leaf-spine link, its ip address kept", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: func(t *testing.T, dir string) {
				bothEndsChannel("active", "active", true, false)(t, dir)
				text(replaceIn(`^interface Port-Channel1$`, `^   no switchport$`), "leaf1")(t, dir)
			}},
		{field: "interface port-channel lacp fallback [...]", name: "on a port-channel without members", safe: "a port channel without members forwards nothing either way",
			edit: text(append_("interface Port-Channel9", "   port-channel lacp fallback individual", "   port-channel lacp fallback timeout 50", "!"), "leaf1")},
		// A server bond with fallback individual (a PXE-booting host's
		// port): the lab's NIC runs no LACP, and after the fallback
		// timeout the member forwards alone on its own config.
		{field: "interface port-channel lacp fallback [...]", name: "Ethernet1 in a port-channel with fallback individual: the member forwards alone", safe: "the member without an LACP partner forwards on its own interface's config, the lab's address and QoS",
			edit: text(func(lines []string) []string {
				return append_("interface Port-Channel1", "   port-channel lacp fallback individual", "!")(after(`^interface Ethernet1$`, "   channel-group 1 mode active")(lines))
			}, "leaf1")},
		{field: "interface port-channel lacp fallback [...]", name: "Ethernet1 in a port-channel with fallback static and no address", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: text(func(lines []string) []string {
				return append_("interface Port-Channel1", "   port-channel lacp fallback static", "!")(after(`^interface Ethernet1$`, "   channel-group 1 mode active")(lines))
			}, "leaf1")},
		{field: "interface no port-channel lacp fallback [...]", name: "on a port-channel without members", safe: "it is EOS's default: members forward only when bundled",
			edit: text(append_("interface Port-Channel9", "   no port-channel lacp fallback", "!"), "leaf1")},
		// A port channel comes up only with min-links of its members
		// carrying traffic (qos.MemberAlone): below it every member
		// carries nothing.
		{field: "interface port-channel min-links <n>", name: "a bundled leaf-spine link, leaf1's Port-Channel1 of one member at min-links 2", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: bothEndsChannel("active", "active", true, false, "   port-channel min-links 2")},
		{field: "interface port-channel min-links <n>", name: "a bundled leaf-spine link, leaf1's Port-Channel1 of one member at min-links 1",
			edit: bothEndsChannel("active", "active", true, false, "   port-channel min-links 1")},
		// Members facing two port channels of spine1 do not bundle
		// together (LACP aggregates one partner system's and key's
		// members, qos.MemberAlone): one uplink carries nothing. So do
		// members facing two switches without MLAG; leaf1's uplinks in
		// the 64gpu lab all go to spine1.
		{field: "interface channel-group <n> mode <mode>", name: "leaf1's Ethernet33-34 in one port-channel, spine1's ends in two, all addressed", harmful: true, rule: "QOS026", dataPlane: true, lintError: true,
			edit: func(t *testing.T, dir string) {
				bothEndsChannel("active", "active", true, false)(t, dir)
				text(after(`^interface Ethernet34$`, "   channel-group 1 mode active"), "leaf1")(t, dir)
				text(func(lines []string) []string {
					return append_("interface Port-Channel2", "   no switchport", "   ip address 10.254.0.3/31", "!")(after(`^interface Ethernet2$`, "   channel-group 2 mode active")(lines))
				}, "spine1")(t, dir)
			}},
		{field: "interface no port-channel min-links [...]", name: "a bundled leaf-spine link, leaf1's Port-Channel1 at min-links 2 and then no port-channel min-links", safe: "it only takes the min links away: the port channel comes up with any member carrying traffic",
			edit: bothEndsChannel("active", "active", true, false, "   port-channel min-links 2", "   no port-channel min-links")},
		{field: "interface no channel-group [...]", name: "Ethernet1 out of its port-channel again", safe: "leaving a port-channel changes none of the QoS labctl reads of the port, its own lines",
			edit: text(after(`^interface Ethernet1$`, "   channel-group 1 mode active", "   default channel-group 1 mode active"), "leaf1")},
		// leaf1's Ethernet1 faces the incast's receiver (SONiC's Ethernet0).
		{field: "interface shutdown", name: "the port facing the incast's receiver shut down", harmful: true, rule: "QOS026", dataPlane: true,
			edit: text(after(`^interface Ethernet1$`, "   shutdown"), "leaf1")},
		{field: "interface shutdown", name: "shut down, then no shutdown",
			edit: text(after(`^interface Ethernet1$`, "   shutdown", "   no shutdown"), "leaf1")},
		{field: "interface no shutdown", name: "said on every port", safe: "it only keeps the port up, as EOS's default",
			edit: text(after(`^interface `, "   no shutdown"))},
		{field: "interface default shutdown", name: "said on every port", safe: "it only keeps the port up, as EOS's default",
			edit: text(after(`^interface `, "   default shutdown"))},
		// default shutdown is the default, which interface defaults'
		// ethernet shutdown makes down (it was read as no shutdown).
		{field: "interface default shutdown", name: "said on every port, Ethernet ports down by default", harmful: true, rule: "QOS026", dataPlane: true,
			edit: text(chain(after(`^interface Ethernet`, "   default shutdown"), append_("interface defaults", "   ethernet", "      shutdown", "!")), "leaf1")},
		{field: "interface speed [forced] <speed>", name: "a 200G port forced to 100G", harmful: true, rule: "QOS009", why: "the simulated link runs at the lab's speed",
			edit: text(after(`^interface Ethernet1$`, "   speed forced 100gfull"), "leaf1")},
		{field: "interface speed [forced] <speed>", name: "its own speed, 200g-4",
			edit: text(after(`^interface Ethernet1$`, "   speed 200g-4"), "leaf1")},
		{field: "interface no speed", name: "on every port", safe: "it leaves the speed to the platform and its peer, which the link then runs at",
			edit: text(after(`^interface `, "   no speed"))},
		{field: "interface default speed", name: "on every port", safe: "it leaves the speed to the platform and its peer, which the link then runs at",
			edit: text(after(`^interface `, "   default speed"))},
		{field: "interface mtu <bytes>", name: "MTU 1500 on the ports", harmful: true, rule: "QOS020", dataPlane: true,
			edit: text(chain(renderedMTU, after(`^interface `, "   mtu 1500")))},
		{field: "interface mtu <bytes>", name: "MTU 9194",
			edit: text(chain(renderedMTU, after(`^interface `, labMTULine)))},
		{field: "interface mtu <bytes>", name: "MTU 9214, the platform's maximum, above a cEOS lab switch's 9194", harmful: true, rule: "QOS021", why: ceosRefusesWhy,
			edit: text(chain(renderedMTU, after(`^interface `, platformMTULine)))},
		{field: "interface mtu <bytes>", name: "the mtu line deleted from the routed ports (EOS's default 1500)", harmful: true, rule: "QOS020", dataPlane: true,
			edit: text(renderedMTU)},
		// Subinterfaces of a lab port, as AVD writes them: an L3 one (routed,
		// EOS's default MTU 1500) and L2 ones (vlan id, vlan name). They
		// take their parent's QoS, and carry none of the lab's traffic,
		// which runs untagged on the parent.
		{field: "interface vlan id <n>", name: "an L3 and an L2 subinterface of Ethernet1", safe: subifSafe,
			edit: text(append_("interface Ethernet1.100", "   encapsulation dot1q vlan 100", "   ip address 10.99.0.1/31", "!", "interface Ethernet1.200", "   encapsulation dot1q vlan 200", "   vlan id 10", "!"), "leaf1")},
		{field: "interface vlan name <name>", name: "an L2 subinterface of Ethernet1", safe: subifSafe,
			edit: text(append_("interface Ethernet1.200", "   encapsulation dot1q vlan 200", "   vlan name office", "!"), "leaf1")},
		{field: "interface no vlan [...]", name: "an L2 subinterface of Ethernet1 made L3 again", safe: subifSafe,
			edit: text(append_("interface Ethernet1.200", "   encapsulation dot1q vlan 200", "   vlan id 10", "   no vlan id", "!"), "leaf1")},
		// FlexEncap subinterfaces (encapsulation vlan, its client line):
		// without vlan id or an address a pseudowire's attachment (not
		// routed, no L3 MTU), with an address routed; like the others,
		// they carry none of the lab's traffic.
		{field: "interface encapsulation vlan", name: "a pseudowire attachment on Ethernet1", safe: subifSafe,
			edit: text(append_("interface Ethernet1.300", "   encapsulation vlan", "      client dot1q 300", "!"), "leaf1")},
		{field: "interface client <...>", name: "a pseudowire attachment rewriting its tag", safe: subifSafe,
			edit: text(append_("interface Ethernet1.300", "   encapsulation vlan", "      client dot1q 300 network dot1q 400", "!"), "leaf1")},
		{field: "interface no encapsulation vlan", name: "a pseudowire attachment's encapsulation removed", safe: subifSafe,
			edit: text(append_("interface Ethernet1.300", "   encapsulation vlan", "      client dot1q 300", "   no encapsulation vlan", "!"), "leaf1")},
		{field: "interface ip address <...>", name: "a FlexEncap subinterface routed by its address", safe: subifSafe,
			edit: text(append_("interface Ethernet1.10", "   encapsulation vlan", "      client dot1q 10", "   ip address 10.99.0.3/31", "!"), "leaf1")},
		{field: "interface ipv6 address <...>", name: "a FlexEncap subinterface routed by its IPv6 address", safe: subifSafe,
			edit: text(append_("interface Ethernet1.30", "   encapsulation vlan", "      client untagged network untagged", "   ipv6 address 2001:db8::/127", "!"), "leaf1")},
		{field: "interface ipv6 enable", name: "a FlexEncap subinterface routed over its link-local address (RFC 5549)", safe: subifSafe,
			edit: text(append_("interface Ethernet1.50", "   encapsulation vlan", "      client dot1q 50", "   ipv6 enable", "!"), "leaf1")},
		{field: "interface no ipv6 enable", name: "a FlexEncap subinterface's IPv6 disabled", safe: subifSafe,
			edit: text(append_("interface Ethernet1.50", "   encapsulation vlan", "      client dot1q 50", "   ipv6 enable", "   no ipv6 enable", "!"), "leaf1")},
		{field: "interface no ip address [...]", name: "a FlexEncap subinterface's address removed", safe: subifSafe,
			edit: text(append_("interface Ethernet1.10", "   encapsulation vlan", "      client dot1q 10", "   ip address 10.99.0.3/31", "   no ip address", "!"), "leaf1")},
		{field: "interface no ipv6 address [...]", name: "a FlexEncap subinterface's IPv6 address removed", safe: subifSafe,
			edit: text(append_("interface Ethernet1.30", "   encapsulation vlan", "      client dot1q 30", "   ipv6 address 2001:db8::/127", "   no ipv6 address", "!"), "leaf1")},
		// EOS refuses an mtu line outside 68-65535 (eos.MinMTU,
		// MaxCLIMTU: % Invalid input) and one above the port's maximum
		// (eos.PlatformMaxMTU, 9214 on the modeled 7050CX3; cEOS: % Max MTU for Ethernet4 is 9194): the port
		// keeps the MTU it had, its default 1500 on a routed port without
		// another mtu line, its earlier line's with one.
		{field: "interface mtu <bytes>", name: "MTU 70000 on the ports, which EOS refuses (its default 1500 stays)", harmful: true, rule: "QOS021", dataPlane: true,
			edit: text(chain(renderedMTU, after(`^interface `, "   mtu 70000")))},
		{field: "interface mtu <bytes>", name: "MTU 9300 on the ports, above their maximum (their default 1500 stays)", harmful: true, rule: "QOS021", dataPlane: true,
			edit: text(chain(renderedMTU, after(`^interface `, "   mtu 9300")))},
		{field: "interface mtu <bytes>", name: "MTU 20 on the ports, which EOS refuses (its default 1500 stays)", harmful: true, rule: "QOS021", dataPlane: true,
			edit: text(chain(renderedMTU, after(`^interface `, "   mtu 20")))},
		{field: "interface mtu <bytes>", name: "MTU 9300 after the fabric's, which EOS refuses", harmful: true, rule: "QOS021", why: "EOS refuses the line and the port keeps the fabric's MTU before it, which carries RoCE's packets",
			edit: text(after(fmt.Sprintf(`^   mtu %d$`, fabric.SwitchMTU), "   mtu 9300"))},
		{field: "interface no mtu", name: "MTU 9194 removed (EOS's default 1500)", harmful: true, rule: "QOS020", dataPlane: true,
			edit: text(chain(renderedMTU, after(`^interface `, labMTULine, "   no mtu")))},
		{field: "interface no mtu", name: "said before mtu 9194",
			edit: text(chain(renderedMTU, after(`^interface `, "   no mtu", labMTULine)))},

		{field: "tx-queue tx-queue <q>", name: "RoCE's queue settings removed", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(dropBlock(q3))},
		{field: "tx-queue tx-queue <q>", name: "ECN off on RoCE's queue in the profiles named again", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(reopenProfiles("   tx-queue 3", "      no random-detect ecn"))},
		{field: "tx-queue tx-queue <q>", name: "queue 1's weight said again in the profiles named again",
			edit: text(reopenProfiles("   tx-queue 1", "      bandwidth percent 5"))},
		{field: "interface no tx-queue <q>", name: "RoCE's queue reset after its block", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(replace(`^   tx-queue 4$`, "   no tx-queue 3\n   tx-queue 4"))},
		{field: "interface no tx-queue <q>", name: "said before the queue's block",
			edit: text(after(`^   priority-flow-control on$`, "   no tx-queue 3"))},
		{field: "interface default tx-queue <q>", name: "RoCE's queue reset after its block", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(replace(`^   tx-queue 4$`, "   default tx-queue 3\n   tx-queue 4"))},
		{field: "interface default tx-queue <q>", name: "said before the queue's block",
			edit: text(after(`^   priority-flow-control on$`, "   default tx-queue 3"))},
		{field: "interface mc-tx-queue <q>", name: "RoCE's multicast queue shaped to 1 Gb/s, after its unicast queue",
			edit: text(after(`random-detect ecn minimum-threshold`, "   !", "   mc-tx-queue 3", "      shape rate 1000000", "      priority strict"))},
		{field: "interface mc-tx-queue <q>", name: "a multicast queue shaped, before the unicast queues",
			edit: text(after(`^   priority-flow-control on$`, "   mc-tx-queue 3", "      shape rate 10 percent", "   !"))},
		{field: "tx-queue tx-queue <q>", name: "an empty block for queue 1",
			edit: text(after(profile, "   tx-queue 1"))},
		{field: "tx-queue priority strict", name: "kept on the CNPs' queue below a round-robin tx-queue 7", harmful: true, rule: "QOS021", dataPlane: true,
			edit: text(roundRobin(7, 10))},
		{field: "tx-queue priority strict", name: "removed (EOS's default is strict priority)",
			edit: text(drop(`^      priority strict$`))},
		{field: "tx-queue priority strict", name: "said twice",
			edit: text(after(`^      priority strict$`, "      priority strict"))},
		{field: "tx-queue default priority", name: "every round-robin queue back to strict priority", harmful: true, rule: "QOS018", dataPlane: true,
			edit: text(after(`^      no priority$`, "      default priority"))},
		{field: "tx-queue default priority", name: "on the CNPs' strict queue",
			edit: text(after(`^      priority strict$`, "      default priority"))},
		{field: "tx-queue no priority", name: "CNP queue made weighted", harmful: true, rule: "QOS007", dataPlane: true,
			edit: text(replace(`^      priority strict$`, "      no priority"))},
		{field: "tx-queue no priority", name: "tx-queue 7 round robin above the CNPs' strict queue", harmful: true, rule: "QOS007", dataPlane: true,
			edit: text(roundRobin(7, 10))},
		{field: "tx-queue no priority", name: "said twice",
			edit: text(after(`^      no priority$`, "      no priority"))},
		{field: "tx-queue no priority", name: "written no priority strict on the CNPs' queue", harmful: true, rule: "QOS007", dataPlane: true,
			edit: text(after(`^      priority strict$`, "      no priority strict"))},
		{field: "tx-queue no bandwidth percent [<n>]", name: "RoCE's queue weight removed (EOS's default)", harmful: true, rule: "QOS018", dataPlane: true,
			edit: text(after(`^      bandwidth percent 50$`, "      no bandwidth percent 50"))},
		{field: "tx-queue no bandwidth percent [<n>]", name: "said before the weight",
			edit: text(replace(`^      bandwidth percent 50$`, "      default bandwidth percent\n      bandwidth percent 50"))},
		{field: "tx-queue bandwidth percent <n>", name: "RoCE's queue weight 1", harmful: true, rule: "QOS018", dataPlane: true,
			edit: text(replace(`^      bandwidth percent 50$`, "      bandwidth percent 1"))},
		// Best effort's weight raised, RoCE's kept: its share of the
		// round robin (of the queues some DSCP reaches) falls from 50 of
		// 75 to 50 of 145, which QOS018 compared no field of (the
		// lossless class's own weight stands).
		{field: "tx-queue bandwidth percent <n>", name: "best effort's tx-queue 0 raised to 90", harmful: true, rule: "QOS018", dataPlane: true,
			edit: text(replace(`^      bandwidth percent 20$`, "      bandwidth percent 90"))},
		// A queue no DSCP reaches weighted 30 (5 rendered): it holds
		// nothing, and a scheduler passes over an empty queue, so RoCE's
		// share stands.
		{field: "tx-queue bandwidth percent <n>", name: "tx-queue 1, which no DSCP reaches, weighted 30",
			edit: text(roundRobin(1, 30))},
		{field: "tx-queue bandwidth percent <n>", name: "written 050",
			edit: text(replace(`^      bandwidth percent 50$`, "      bandwidth percent 050"))},
		{field: "tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>]", name: "Kmin and Kmax x4", harmful: true, rule: "QOS018", dataPlane: true,
			edit: text(replace(`minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes`, "minimum-threshold 12800 kbytes maximum-threshold 25600 kbytes"))},
		{field: "tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>]", name: "kbytes written bytes", harmful: true, rule: "QOS004", dataPlane: true,
			edit: text(replace(`minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes`, "minimum-threshold $1 bytes maximum-threshold $2 bytes"))},
		{field: "tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>]", name: "the same thresholds in bytes",
			edit: text(chain(replace(`minimum-threshold 800 kbytes maximum-threshold 3200 kbytes`, "minimum-threshold 819200 bytes maximum-threshold 3276800 bytes"),
				replace(`minimum-threshold 1600 kbytes maximum-threshold 6400 kbytes`, "minimum-threshold 1638400 bytes maximum-threshold 6553600 bytes")))},
		{field: "tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>]", name: "max-mark-probability written max-mark-prob",
			edit: text(replace(`max-mark-probability (\d+)$`, "max-mark-prob $1"))},
		{field: "tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>]", name: "kbytes written kb",
			edit: text(replace(`(minimum-threshold \d+) kbytes (maximum-threshold \d+) kbytes`, "$1 kb $2 kb"))},
		{field: "tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>] weight <w>", name: "RoCE's queue averaged at weight 15", harmful: true, rule: "QOS017", why: notSim,
			edit: text(replace(`(random-detect ecn minimum-threshold .*)$`, "$1 weight 15"))},
		{field: "tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>] weight <w>", name: "weight 15 with its probability, both abbreviated (max-mark-prob 20 w 15)", harmful: true, rule: "QOS017", why: notSim,
			edit: text(replace(`(random-detect ecn minimum-threshold .*) max-mark-probability (\d+)$`, "$1 max-mark-prob $2 w 15"))},
		{field: "tx-queue random-detect drop minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p> weight <w>", name: "WRED drop on RoCE's queue averaged at weight 15", harmful: true, rule: "QOS017", dataPlane: true,
			edit: text(after(`random-detect ecn minimum-threshold`, "      random-detect drop minimum-threshold 100 kbytes maximum-threshold 400 kbytes drop-probability 50 weight 15"))},
		{field: "tx-queue no random-detect ecn", name: "ECN off on RoCE's queue", harmful: true, rule: "QOS005", dataPlane: true, lintError: true,
			edit: text(after(`random-detect ecn minimum-threshold`, "      no random-detect ecn"))},
		{field: "tx-queue no random-detect ecn", name: "on a queue that does not mark",
			edit: text(after(`^      bandwidth percent 20$`, "      no random-detect ecn"))},
		{field: "tx-queue no random-detect ecn", name: "written with the thresholds", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(replace(`^      (random-detect ecn minimum-threshold .*)$`, "      $1\n      no $1"))},
		{field: "tx-queue default random-detect ecn", name: "written with the thresholds", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(replace(`^      (random-detect ecn minimum-threshold .*)$`, "      $1\n      default $1"))},
		{field: "tx-queue default random-detect ecn", name: "ECN off on RoCE's queue", harmful: true, rule: "QOS005", dataPlane: true,
			edit: text(after(`random-detect ecn minimum-threshold`, "      default random-detect ecn"))},
		{field: "tx-queue default random-detect ecn", name: "on a queue that does not mark",
			edit: text(after(`^      bandwidth percent 20$`, "      default random-detect ecn"))},
		{field: "tx-queue default random-detect drop", name: "on a queue that does not drop", safe: "it only turns early drop off",
			edit: text(after(`random-detect ecn minimum-threshold`, "      default random-detect drop"))},
		{field: "tx-queue random-detect drop minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>", name: "WRED drop on RoCE's queue", harmful: true, rule: "QOS015", dataPlane: true,
			edit: text(after(`random-detect ecn minimum-threshold`, "      random-detect drop minimum-threshold 100 kbytes maximum-threshold 400 kbytes drop-probability 50"))},
		{field: "tx-queue random-detect drop minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>", name: "WRED drop on an unused queue",
			edit: text(after(`^   tx-queue 1$`, "      random-detect drop minimum-threshold 100 kbytes maximum-threshold 400 kbytes drop-probability 50"))},
		{field: "tx-queue random-detect drop drop-precedence <dp> minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>", name: "red packets dropped early in RoCE's queue, RoCE red", harmful: true, rule: "QOS015", dataPlane: true,
			edit: text(chain(after(`random-detect ecn minimum-threshold`, "      random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 100"),
				append_("qos map dscp 26 to traffic-class 3 drop-precedence 2")))},
		{field: "tx-queue random-detect drop drop-precedence <dp> minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>", name: "red packets dropped early in RoCE's queue, no DSCP red",
			edit: text(after(`random-detect ecn minimum-threshold`, "      random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 100"))},
		{field: "tx-queue no random-detect drop", name: "on a queue that does not drop", safe: "it only turns early drop off",
			edit: text(after(`random-detect ecn minimum-threshold`, "      no random-detect drop"))},
		{field: "tx-queue random-detect ecn count", name: "counting marks",
			edit: text(after(`random-detect ecn minimum-threshold`, "      random-detect ecn count"))},
		{field: "tx-queue no random-detect ecn count", name: "counting stopped",
			edit: text(after(`random-detect ecn minimum-threshold`, "      random-detect ecn count", "      no random-detect ecn count"))},
		{field: "tx-queue no random-detect drop drop-precedence <dp> [...]", name: "red's early drop removed from RoCE's queue", safe: "it only turns early drop off",
			edit: text(after(`random-detect ecn minimum-threshold`, "      random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 100",
				"      no random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 100"))},
		{field: "tx-queue no bandwidth guaranteed [...]", name: "on a queue without a guarantee",
			edit: text(after(`^      bandwidth percent 50$`, "      no bandwidth guaranteed"))},
		{field: "tx-queue bandwidth guaranteed <rate>", name: "150 Gb/s guaranteed to best effort's tx-queue 0", harmful: true, rule: "QOS017", why: notSim,
			edit: text(after(`^      bandwidth percent 20$`, "      bandwidth guaranteed 150000000"))},
		{field: "tx-queue bandwidth guaranteed <rate>", name: "a guaranteed share",
			edit: text(after(`^      bandwidth percent 50$`, "      bandwidth guaranteed percent 10"))},
		// The simulator shapes a queue at its shape rate: RoCE's queue
		// shaped to 40 percent of the port sends below line rate.
		{field: "tx-queue shape rate <rate> [kbps|percent]", name: "RoCE's queue shaped", harmful: true, dataPlane: true,
			edit: text(after(`^      bandwidth percent 50$`, "      shape rate 40 percent"))},
		{field: "tx-queue shape rate <rate> [kbps|percent]", name: "an unused queue shaped",
			edit: text(after(`^   tx-queue 1$`, "      shape rate 10 percent"))},
		{field: "tx-queue shape rate <rate> pps", name: "RoCE's queue shaped in packets per second", harmful: true, rule: "QOS022", dataPlane: true,
			edit: text(after(`^      bandwidth percent 50$`, "      shape rate 100000 pps"))},
		{field: "tx-queue no shape rate [...]", name: "on a queue that is not shaped", safe: "it only removes a shaper",
			edit: text(after(`^      bandwidth percent 50$`, "      no shape rate"))},
		{field: "tx-queue default shape rate [...]", name: "on a queue that is not shaped", safe: "it only removes a shaper",
			edit: text(after(`^      bandwidth percent 50$`, "      default shape rate"))},
	}
}

// TestEOSMutations changes every statement EOS's parser reads in the
// 64gpu lab's EOS configs and checks what lint, the simulator and regress
// say.
// bothEndsChannel puts leaf1's Ethernet33 and spine1's Ethernet1, the
// ends of a leaf-spine link, in Port-Channel1 in modes leafMode and
// spineMode; addr gives each Port-Channel interface an address, and
// moveQoS moves leaf1's member's service-profile line to its
// port-channel; leafChannel are further lines of leaf1's interface
// Port-Channel1 block.
func bothEndsChannel(leafMode, spineMode string, addr, moveQoS bool, leafChannel ...string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		for i, end := range []struct{ node, port, mode string }{{"leaf1", "Ethernet33", leafMode}, {"spine1", "Ethernet1", spineMode}} {
			move := moveQoS && end.node == "leaf1"
			text(func(lines []string) []string {
				var out, profile []string
				in := false
				for _, l := range lines {
					switch {
					case l == "interface "+end.port:
						in = true
						out = append(out, l, "   channel-group 1 mode "+end.mode)
						continue
					case !strings.HasPrefix(l, " "):
						in = false
					case in && move && strings.HasPrefix(l, "   service-profile "):
						profile = append(profile, l)
						continue
					}
					out = append(out, l)
				}
				if move && len(profile) == 0 {
					t.Fatalf("%s's %s has no service-profile to move", end.node, end.port)
				}
				out = append(out, "interface Port-Channel1")
				if addr {
					out = append(out, "   no switchport", fmt.Sprintf("   ip address 10.254.0.%d/31", i))
				}
				if end.node == "leaf1" {
					out = append(out, leafChannel...)
				}
				return append(append(out, profile...), "!")
			}, end.node)(t, dir)
		}
	}
}

func TestEOSMutations(t *testing.T) {
	ms := eosMutations()
	coverage(t, eos.Fields(), ms)
	if testing.Short() {
		t.Skip("the mutation suite simulates every mutation: not in -short")
	}
	s := newSuite(t, "64gpu", "eos")
	for _, m := range ms {
		t.Run(m.field+"/"+m.name, func(t *testing.T) { s.check(t, m) })
	}
}

// remarkNotSim: an ingress re-mark (policy-map class set dscp) is not
// simulated.
const remarkNotSim = "labctl does not simulate a policy-map's set dscp: lint errs and regress fails on the new lint error, the figures do not move"
