package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// cfgExampleLine writes a statement's syntax as a line: each argument a
// value, optional parts left out.
func cfgExampleLine(syntax string) []string {
	var out []string
	depth := 0
	for _, w := range strings.Fields(syntax) {
		opt := depth > 0 || strings.HasPrefix(w, "[")
		depth += strings.Count(w, "[") - strings.Count(w, "]")
		switch {
		case opt || w == "...":
		case strings.HasPrefix(w, "<"):
			v := strings.Trim(w, "<>")
			v, _, _ = strings.Cut(v, "|")
			switch v {
			case "unit":
				v = "kbytes"
			case "action":
				v = "drop"
			case "name", "policy", "acl", "class-map":
				v = "X"
			case "interfaces":
				v = "Ethernet1"
			case "speed":
				v = "100g"
			case "mode", "protocol", "source", "destination", "text":
				v = "x"
			default:
				if strings.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz") && len(v) > 4 {
					break
				}
				v = "1"
			}
			out = append(out, v)
		default:
			out = append(out, w)
		}
	}
	return out
}

// Every statement's no and default lines that repeat its arguments are
// read as a no (default) form of the table: the one pinned here. A
// statement added to the table must be added here, deciding its no form:
// the general rule (cfgNoForm) must not read it as a broader command's
// (no priority-flow-control pause watchdog port action drop is not no
// priority-flow-control pause watchdog).
func TestNoFormOfEveryStatement(t *testing.T) {
	want := map[string][2]string{
		// statement: {no form, default form}; "" where the line is no
		// statement labctl reads (noted as not recognised).
		"global qos map dscp <d...> to traffic-class <tc>":                                            {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global qos map dscp <d...> to traffic-class <tc> drop-precedence <dp>":                       {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global qos map cos <c...> to traffic-class <tc>":                                             {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global qos map traffic-class <tc...> to tx-queue <q>":                                        {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global qos map traffic-class <tc...> to uc-tx-queue <q>":                                     {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global qos map traffic-class <tc...> to mc-tx-queue <q>":                                     {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global qos map traffic-class <tc...> to dscp <d>":                                            {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global qos map traffic-class <tc...> to cos <c>":                                             {"no qos map <dscp|cos|traffic-class> <n...> [to ...]", "default qos map <dscp|cos|traffic-class> <n...> [to ...]"},
		"global priority-flow-control all off":                                                        {"no priority-flow-control all off", "default priority-flow-control all off"},
		"global priority-flow-control pause watchdog default timeout <s>":                             {"no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]", "no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]"},
		"global priority-flow-control pause watchdog default recovery-time <s>":                       {"no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]", "no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]"},
		"global priority-flow-control pause watchdog default polling-interval <s>":                    {"no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]", "no priority-flow-control pause watchdog default <timeout|recovery-time|polling-interval> [<s>]"},
		"global priority-flow-control pause watchdog action <drop|no-drop|errdisable|notify-only>":    {"no priority-flow-control pause watchdog action [<action>]", "no priority-flow-control pause watchdog action [<action>]"},
		"global platform <chip> mmu <...>":                                                            {"", ""},
		"global platform <chip> <...>":                                                                {"", ""},
		"global hardware <...>":                                                                       {"", ""},
		"global qos rewrite dscp":                                                                     {"no qos rewrite dscp", ""},
		"global qos rewrite cos":                                                                      {"no qos rewrite cos", ""},
		"global interface <interfaces>":                                                               {"no interface <interfaces>", "default interface <interfaces>"},
		"global switchport default mode <routed|access>":                                              {"no switchport default [...]", "no switchport default [...]"},
		"global interface defaults":                                                                   {"no interface <interfaces>", "default interface <interfaces>"},
		"interface defaults mtu <bytes>":                                                              {"no mtu", "no mtu"},
		"interface defaults ethernet":                                                                 {"", ""},
		"interface defaults shutdown":                                                                 {"no shutdown", "default shutdown"},
		"global ip access-list [standard] <name>":                                                     {"", ""},
		"global class-map type qos [match-any|match-all] <name>":                                      {"", ""},
		"global policy-map type quality-of-service <name>":                                            {"", ""},
		"interface qos trust <dscp|cos>":                                                              {"no qos trust", "default qos trust"},
		"interface qos cos <c>":                                                                       {"no qos cos", "no qos cos"},
		"interface qos dscp <d>":                                                                      {"", ""},
		"interface vlan id <n>":                                                                       {"no vlan [...]", "no vlan [...]"},
		"interface vlan name <name>":                                                                  {"no vlan [...]", "no vlan [...]"},
		"interface encapsulation vlan":                                                                {"no encapsulation vlan", "no encapsulation vlan"},
		"interface client <...>":                                                                      {"", ""},
		"interface ip address <...>":                                                                  {"no ip address [...]", "no ip address [...]"},
		"interface ipv6 address <...>":                                                                {"no ipv6 address [...]", "no ipv6 address [...]"},
		"interface switchport":                                                                        {"no switchport", "default switchport"},
		"interface service-profile <name>":                                                            {"no service-profile [<name>]", "default service-profile [<name>]"},
		"interface priority-flow-control on":                                                          {"no priority-flow-control", "default priority-flow-control"},
		"interface priority-flow-control off":                                                         {"no priority-flow-control", "default priority-flow-control"},
		"interface priority-flow-control mode on":                                                     {"no priority-flow-control", "default priority-flow-control"},
		"interface priority-flow-control mode off":                                                    {"no priority-flow-control", "default priority-flow-control"},
		"interface priority-flow-control priority <p> no-drop":                                        {"no priority-flow-control priority <p> [no-drop|drop]", "default priority-flow-control priority <p> [no-drop|drop]"},
		"interface priority-flow-control priority <p> drop":                                           {"no priority-flow-control priority <p> [no-drop|drop]", "default priority-flow-control priority <p> [no-drop|drop]"},
		"interface priority-flow-control pause watchdog":                                              {"no priority-flow-control pause watchdog", "default priority-flow-control pause watchdog"},
		"interface priority-flow-control pause watchdog port action <action>":                         {"no priority-flow-control pause watchdog port action [<action>]", "no priority-flow-control pause watchdog port action [<action>]"},
		"interface priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s>": {"no priority-flow-control pause watchdog port timer [...]", "no priority-flow-control pause watchdog port timer [...]"},
		"interface priority-flow-control pause watchdog port timer timeout <s> ... recovery-time <s> forced": {"no priority-flow-control pause watchdog port timer [...]", "no priority-flow-control pause watchdog port timer [...]"},
		"interface ipv6 enable":                            {"no ipv6 enable", "no ipv6 enable"},
		"interface ip access-group <acl> in":               {"no ip access-group [...]", "default ip access-group [...]"},
		"interface ip access-group <acl> out":              {"no ip access-group [...]", "default ip access-group [...]"},
		"interface service-policy type qos input <policy>": {"no service-policy type qos input [<policy>]", "default service-policy type qos input [<policy>]"},
		"interface shape rate <rate> [kbps|percent]":       {"no shape rate [...]", "default shape rate [...]"},
		"interface shape rate <rate> pps":                  {"no shape rate [...]", "default shape rate [...]"},
		"interface channel-group <n> mode <mode>":          {"no channel-group [...]", "no channel-group [...]"},
		"interface port-channel lacp fallback [...]":       {"no port-channel lacp fallback [...]", "no port-channel lacp fallback [...]"},
		"interface port-channel min-links <n>":             {"no port-channel min-links [...]", "no port-channel min-links [...]"},
		"interface shutdown":                               {"no shutdown", "default shutdown"},
		"interface speed [forced] <speed>":                 {"no speed", "default speed"},
		"interface mtu <bytes>":                            {"no mtu", "no mtu"},
		"interface mc-tx-queue <q>":                        {"", ""},
		"tx-queue tx-queue <q>":                            {"", ""},
		"tx-queue priority strict":                         {"no priority", "default priority"},
		"tx-queue bandwidth percent <n>":                   {"no bandwidth percent [<n>]", "no bandwidth percent [<n>]"},
		"tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>]":                 {"no random-detect ecn", "default random-detect ecn"},
		"tx-queue random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> [max-mark-probability <p>] weight <w>":      {"no random-detect ecn", "default random-detect ecn"},
		"tx-queue random-detect drop minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>":                      {"no random-detect drop", "default random-detect drop"},
		"tx-queue random-detect drop minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p> weight <w>":           {"no random-detect drop", "default random-detect drop"},
		"tx-queue random-detect drop drop-precedence <dp> minimum-threshold <n> <unit> maximum-threshold <n> <unit> drop-probability <p>": {"no random-detect drop drop-precedence <dp> [...]", "no random-detect drop drop-precedence <dp> [...]"},
		"tx-queue random-detect ecn count":          {"no random-detect ecn count", "no random-detect ecn count"},
		"tx-queue bandwidth guaranteed <rate>":      {"no bandwidth guaranteed [...]", "no bandwidth guaranteed [...]"},
		"tx-queue shape rate <rate> [kbps|percent]": {"no shape rate [...]", "default shape rate [...]"},
		"tx-queue shape rate <rate> pps":            {"no shape rate [...]", "default shape rate [...]"},
	}
	seen := map[string]bool{}
	for _, s := range statements {
		lits, _ := cfgLiterals(s.syntax)
		if lits[0] == "no" || lits[0] == "default" || s.mode == "ip access-list" || s.mode == "class-map" || s.mode == "policy-map" || s.mode == "policy-map class" {
			continue
		}
		key := s.mode + " " + s.syntax
		seen[key] = true
		w, ok := want[key]
		if !ok {
			t.Errorf("%s: no decided no form (add it to want, and to the table if EOS has one of its own)", key)
			continue
		}
		line := cfgExampleLine(s.syntax)
		if st, ok := statementOf(s.mode, line); !ok || st.syntax != s.syntax {
			t.Errorf("%s: example %q is %q", key, strings.Join(line, " "), st.syntax)
			continue
		}
		for i, kw := range []string{"no", "default"} {
			f := append([]string{kw}, line...)
			got := ""
			if st, ok := statementOfLine(s.mode, f); ok {
				got = st.syntax
			}
			if got != w[i] {
				t.Errorf("%q is read as %q, want %q", strings.Join(f, " "), got, w[i])
			}
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("want names %q, which is no statement", k)
		}
	}
}

// A no (default) line that repeats its command's arguments removes the
// setting, as its short form does: the tester's lines, each after the
// setting it removes.
func TestParseNoFormsWithArguments(t *testing.T) {
	const base = `priority-flow-control pause watchdog default timeout 0.2
priority-flow-control pause watchdog action drop
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
   priority-flow-control pause watchdog port action notify-only
   priority-flow-control pause watchdog port timer timeout 0.5 polling-interval auto recovery-time 0.5
   tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20
      random-detect drop drop-precedence 1 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 50
      random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 50
   tx-queue 6
      no priority
      bandwidth percent 10
   tx-queue 7
      priority strict
@PROFILE@
interface Ethernet1
   service-profile ROCE
@GLOBAL@`
	parse := func(t *testing.T, profile, queue3, global string) *qos.PortConfig {
		t.Helper()
		cfg := strings.Replace(base, "@PROFILE@", profile, 1)
		cfg = strings.Replace(cfg, "@GLOBAL@", global, 1)
		if queue3 != "" {
			cfg = strings.Replace(cfg, "   tx-queue 6\n", "      "+queue3+"\n   tx-queue 6\n", 1)
		}
		dc := mustParseEOS(t, cfg)
		for _, f := range dc.Fields {
			if strings.Contains(f.Why, "not a statement labctl recognises") {
				t.Errorf("%s passed over as unknown", f.Field)
			}
		}
		return dc.Port("Ethernet1")
	}
	for _, kw := range []string{"no", "default"} {
		t.Run(kw, func(t *testing.T) {
			if e := parse(t, "", kw+" random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20", "").Queue(3).ECN; e != nil {
				t.Errorf("ECN after %s random-detect ecn minimum-threshold ... = %+v, want none", kw, e)
			}
			if q := parse(t, "", kw+" bandwidth percent 50", "").Queue(3); q.Weight != 1 {
				t.Errorf("weight after %s bandwidth percent 50 = %d, want EOS's default (1 in labctl's model)", kw, q.Weight)
			}
			if q := parse(t, "", kw+" bandwidth percent", "").Queue(3); q.Weight != 1 {
				t.Errorf("weight after %s bandwidth percent = %d", kw, q.Weight)
			}
			if w := parse(t, "   "+kw+" priority-flow-control pause watchdog port action notify-only", "", "").Watchdog; w == nil || w.Action != "drop" {
				t.Errorf("watchdog after %s ... port action notify-only = %+v, want on, the global action drop", kw, w)
			}
			if w := parse(t, "   "+kw+" priority-flow-control pause watchdog port timer timeout 0.5 polling-interval auto recovery-time 0.5", "", "").Watchdog; w == nil || w.DetectionMs != 200 {
				t.Errorf("watchdog after %s ... port timer ... = %+v, want on, the global 200 ms", kw, w)
			}
			q := parse(t, "", kw+" random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 50", "").Queue(3)
			// ECN marks every colour (WRED's Mark); a colour's drop
			// thresholds replace its marking.
			if q.WRED == nil || q.WRED.Yellow == nil || q.WRED.Yellow.Mark || q.WRED.Red == nil || !q.WRED.Red.Mark || q.ECN == nil {
				t.Errorf("queue 3 after %s random-detect drop drop-precedence 2 ... = %+v, want yellow's and ECN kept, red's gone", kw, q)
			}
			// Both actions removed: EOS's default, errdisable as labctl
			// assumes it.
			if w := parse(t, "   "+kw+" priority-flow-control pause watchdog port action notify-only", "", kw+" priority-flow-control pause watchdog action drop").Watchdog; w == nil || w.Action != "errdisable" {
				t.Errorf("watchdog after %s of both actions = %+v, want errdisable", kw, w)
			}
			// The global default timeout removed: the port says
			// priority-flow-control pause watchdog, so it still watches,
			// by its own timer; without that line it would not.
			if w := parse(t, "", "", kw+" priority-flow-control pause watchdog default timeout 0.2").Watchdog; w == nil || w.DetectionMs != 500 {
				t.Errorf("watchdog after %s ... default timeout 0.2 = %+v", kw, w)
			}
			if w := parse(t, "   no priority-flow-control pause watchdog\n   default priority-flow-control pause watchdog", "", kw+" priority-flow-control pause watchdog default timeout 0.2").Watchdog; w != nil {
				t.Errorf("watchdog after %s ... default timeout 0.2, the port saying nothing = %+v, want none", kw, w)
			}
		})
	}
	// no priority strict on tx-queue 7 makes it round robin, as no
	// priority does.
	cfg := strings.Replace(strings.Replace(strings.Replace(base, "@PROFILE@", "", 1), "@GLOBAL@", "", 1), "      priority strict\n", "      priority strict\n      no priority strict\n", 1)
	dc := mustParseEOS(t, cfg)
	if q := dc.Port("Ethernet1").Queue(7); q.Strict {
		t.Errorf("tx-queue 7 after no priority strict = %+v, want round robin", q)
	}
	if p := parse(t, "   no qos trust dscp", "", ""); p.Trust != qos.TrustNone {
		t.Errorf("trust after no qos trust dscp = %q, want none", p.Trust)
	}
	if p := parse(t, "   no priority-flow-control on", "", ""); len(p.PFCPriorities) != 0 {
		t.Errorf("PFC after no priority-flow-control on = %v, want off", p.PFCPriorities)
	}
	if p := parse(t, "   default priority-flow-control on", "", ""); len(p.PFCPriorities) != 0 {
		t.Errorf("PFC after default priority-flow-control on = %v, want off", p.PFCPriorities)
	}
}
