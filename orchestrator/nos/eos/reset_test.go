package eos

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// resetBase is a qos profile making priority 3 lossless with ECN on its
// queue, applied to Ethernet1; the tests below add lines to it.
const resetBase = `qos profile P
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   !
   tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20
!
interface Ethernet1
   service-profile P
!
`

// resetPort parses resetBase with its profile's lines edited by edit and
// extra lines appended, and returns Ethernet1.
func resetPort(t *testing.T, edit func(string) string, extra string) (qos.DeviceConfig, *qos.PortConfig) {
	t.Helper()
	cfg := resetBase
	if edit != nil {
		cfg = edit(cfg)
	}
	dc := mustParseEOS(t, cfg+extra)
	p := dc.Port("Ethernet1")
	if p == nil {
		t.Fatalf("no Ethernet1: %+v", dc.Ports)
	}
	return dc, p
}

// inProfile adds lines to the profile after the line after.
func inProfile(after, lines string) func(string) string {
	return func(s string) string { return strings.Replace(s, after+"\n", after+"\n"+lines, 1) }
}

func TestNoTxQueueResetsTheQueue(t *testing.T) {
	for _, form := range []string{"no", "default"} {
		t.Run(form, func(t *testing.T) {
			_, p := resetPort(t, inProfile("   priority-flow-control priority 3 no-drop", "   "+form+" tx-queue 3\n"), "")
			// The profile's tx-queue 3 block comes after the line: it sets
			// the queue again.
			if q := p.Queue(3); q.ECN == nil {
				t.Fatalf("queue 3 set again after %s tx-queue 3 has no ECN: %+v", form, q)
			}
			_, p = resetPort(t, nil, "qos profile P\n   "+form+" tx-queue 3\n!\n")
			q := p.Queue(3)
			if q.ECN != nil || q.Weight != 0 || !q.Strict {
				t.Errorf("%s tx-queue 3 left the queue %+v, want EOS's defaults (strict, no ECN)", form, q)
			}
		})
	}
	// On an interface it removes the interface's own queue: the profile's
	// applies again.
	_, p := resetPort(t, nil, "interface Ethernet1\n   tx-queue 3\n      no random-detect ecn\n   no tx-queue 3\n!\n")
	if p.Queue(3).ECN == nil {
		t.Errorf("an interface's no tx-queue 3 did not give it back its profile's queue: %+v", p.Queue(3))
	}
}

func TestProfileNamedAgainIsEdited(t *testing.T) {
	_, p := resetPort(t, nil, "qos profile P\n   tx-queue 1\n      bandwidth percent 5\n!\n")
	if len(p.PFCPriorities) != 1 || p.Queue(3).ECN == nil || p.Queue(1).Weight != 5 {
		t.Errorf("profile P named again lost its earlier statements or the new one: PFC %v, queue 3 %+v, queue 1 %+v", p.PFCPriorities, p.Queue(3), p.Queue(1))
	}
	// Its later statements override the earlier ones.
	_, p = resetPort(t, nil, "qos profile P\n   priority-flow-control priority 3 drop\n!\n")
	if len(p.PFCPriorities) != 0 {
		t.Errorf("priority 3 drop in profile P named again: PFC %v, want none", p.PFCPriorities)
	}
}

func TestDefaultForms(t *testing.T) {
	tests := []struct {
		name, after, line string
		check             func(p *qos.PortConfig) bool
	}{
		{"PFC off", "   priority-flow-control on", "   default priority-flow-control\n", func(p *qos.PortConfig) bool { return len(p.PFCPriorities) == 0 }},
		{"priority 3 drops", "   priority-flow-control priority 3 no-drop", "   default priority-flow-control priority 3\n", func(p *qos.PortConfig) bool { return len(p.PFCPriorities) == 0 }},
		{"no ECN", "      random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20", "      default random-detect ecn\n", func(p *qos.PortConfig) bool { return p.Queue(3).ECN == nil }},
		// default priority is strict priority (the default), not no
		// priority's round robin.
		{"strict", "      bandwidth percent 50", "      default priority\n", func(p *qos.PortConfig) bool { return p.Queue(3).Strict }},
		// default qos trust is the port's default (dscp on a routed
		// port), not no qos trust's none.
		{"trust by default", "   qos trust dscp", "   default qos trust\n", func(p *qos.PortConfig) bool { return p.Trust == qos.TrustDSCP }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := resetPort(t, inProfile(tt.after, tt.line), "")
			if !tt.check(p) {
				t.Errorf("%q: Ethernet1 = %+v", strings.TrimSpace(tt.line), p)
			}
		})
	}
	// The global default forms.
	if _, p := resetPort(t, nil, "no qos map dscp 26 to traffic-class 1\nqos map dscp 26 to traffic-class 1\ndefault qos map dscp 26\n"); p.DSCPToTC[26] != 3 {
		t.Errorf("default qos map dscp 26: TC%d, want EOS's default TC3", p.DSCPToTC[26])
	}
}

func TestNoPFCAllOff(t *testing.T) {
	for _, form := range []string{"no", "default"} {
		if _, p := resetPort(t, nil, "priority-flow-control all off\n"+form+" priority-flow-control all off\n"); len(p.PFCPriorities) != 1 {
			t.Errorf("%s priority-flow-control all off: PFC %v, want priority 3 back", form, p.PFCPriorities)
		}
	}
}

func TestPFCModeOn(t *testing.T) {
	_, p := resetPort(t, func(s string) string {
		return strings.Replace(s, "   priority-flow-control on\n", "   priority-flow-control mode on\n", 1)
	}, "")
	if len(p.PFCPriorities) != 1 {
		t.Errorf("priority-flow-control mode on: PFC %v, want priority 3", p.PFCPriorities)
	}
	if _, p := resetPort(t, nil, "interface Ethernet1\n   priority-flow-control mode off\n"); len(p.PFCPriorities) != 0 {
		t.Errorf("priority-flow-control mode off: PFC %v, want none", p.PFCPriorities)
	}
}

func TestNoQosProfile(t *testing.T) {
	dc, p := resetPort(t, nil, "no qos profile P\n")
	if len(p.PFCPriorities) != 0 || p.Queue(3).ECN != nil {
		t.Errorf("after no qos profile P, Ethernet1 keeps its settings: %+v", p)
	}
	fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	found := false
	for _, f := range fs {
		if f.Rule == qos.RuleUnresolved && f.Severity == qos.SevError && f.Port == "Ethernet1" && strings.Contains(f.Message, "qos profile P") && strings.Contains(f.Fix, "define qos profile P") {
			found = true
		}
	}
	if !found {
		t.Errorf("lint does not say Ethernet1's service-profile names a missing profile: %+v", fs)
	}
	// Created again, it applies (with only what its new block says).
	if _, p := resetPort(t, nil, "no qos profile P\nqos profile P\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n"); len(p.PFCPriorities) != 1 || p.Queue(3).ECN != nil {
		t.Errorf("profile P created again: %+v", p)
	}
}

// A random-detect line's weight is not simulated: lint warns (QOS017),
// and its thresholds still apply.
func TestWREDWeightNotSimulated(t *testing.T) {
	dc, p := resetPort(t, func(s string) string {
		return strings.Replace(s, "max-mark-probability 20\n", "max-mark-probability 20 weight 15\n", 1)
	}, "")
	if e := p.Queue(3).ECN; e == nil || e.MinBytes != 800*1024 {
		t.Fatalf("queue 3 ECN with a weight = %+v", e)
	}
	found := false
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleDefaultRelied && f.Severity == qos.SevWarning && strings.Contains(f.Message, "weight") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning that the weight is not simulated: %+v", dc.Unsimulated)
	}
}

// A keyword written as an unambiguous prefix is read as the keyword, with
// a note; an ambiguous one is left unread.
func TestAbbreviatedKeywords(t *testing.T) {
	dc, p := resetPort(t, inProfile("   priority-flow-control priority 3 no-drop", "   priority-flow-control prio 3 drop\n"), "")
	if len(p.PFCPriorities) != 0 {
		t.Errorf("priority-flow-control prio 3 drop: PFC %v, want none", p.PFCPriorities)
	}
	if !slices.ContainsFunc(dc.Notes, func(n string) bool {
		return strings.Contains(n, `read as "priority-flow-control priority 3 drop"`)
	}) {
		t.Errorf("no note saying how the line was read: %q", dc.Notes)
	}
	_, p = resetPort(t, inProfile("      random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20", "      random-det ecn min 80 kbytes max 320 kbytes max-mark-probability 50\n"), "")
	if e := p.Queue(3).ECN; e == nil || e.MinBytes != 80*1024 || e.Pmax != 0.5 {
		t.Errorf("abbreviated random-detect ecn line: queue 3 ECN %+v", e)
	}
	// p starts priority and pause: ambiguous, not read.
	if got := cfgExpand("interface", strings.Fields("priority-flow-control p 3 drop")); got != nil {
		t.Errorf("priority-flow-control p 3 drop expanded to %q, want left unread", got)
	}
	// priority is a whole keyword (of tx-queue): no priority, from a
	// sub-mode labctl does not read, is not no priority-flow-control.
	if got := cfgExpand("interface", strings.Fields("no priority")); got != nil {
		t.Errorf("no priority expanded to %q", got)
	}
	if got := cfgExpand("global", strings.Fields("no priority-flow-control all of")); strings.Join(got, " ") != "no priority-flow-control all off" {
		t.Errorf("global expansion = %q", got)
	}
}

// A tx-queue's random-detect drop drop-precedence N drops only packets of
// that precedence: none of RoCE's unless qos map dscp colours its DSCP.
func TestDropPrecedenceThresholds(t *testing.T) {
	red := inProfile("      random-detect ecn minimum-threshold 800 kbytes maximum-threshold 3200 kbytes max-mark-probability 20",
		"      random-detect drop drop-precedence 2 minimum-threshold 1 kbytes maximum-threshold 10 kbytes drop-probability 100\n")
	lint := func(dc qos.DeviceConfig) []qos.Finding {
		var out []qos.Finding
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleWREDDropLossless {
				out = append(out, f)
			}
		}
		return out
	}
	dc, p := resetPort(t, red, "")
	q := p.Queue(3)
	if q.Drop != nil || q.WRED == nil || q.WRED.Red == nil || q.WRED.Red.Mark || q.WRED.Red.MaxBytes != 10*1024 {
		t.Fatalf("queue 3 with red thresholds: drop %+v, WRED %+v", q.Drop, q.WRED)
	}
	if len(p.DSCPToDropPrecedence) != 0 {
		t.Errorf("no DSCP is coloured, yet %v", p.DSCPToDropPrecedence)
	}
	if fs := lint(dc); len(fs) != 0 {
		t.Errorf("red thresholds no lossless DSCP meets: %+v", fs)
	}
	dc, p = resetPort(t, red, "qos map dscp 26 to traffic-class 3 drop-precedence 2\n")
	if p.DSCPToDropPrecedence[26] != 2 || p.DSCPToTC[26] != 3 {
		t.Errorf("qos map dscp 26 ... drop-precedence 2: TC%d, drop precedence %v", p.DSCPToTC[26], p.DSCPToDropPrecedence)
	}
	if fs := lint(dc); len(fs) != 1 || !strings.Contains(fs[0].Message, "DSCP 26") {
		t.Errorf("RoCE's DSCP red in a queue dropping red early: QOS015 findings %+v", fs)
	}
	// Mapped again without a precedence, it is green again.
	if _, p := resetPort(t, red, "qos map dscp 26 to traffic-class 3 drop-precedence 2\nqos map dscp 26 to traffic-class 3\n"); len(p.DSCPToDropPrecedence) != 0 {
		t.Errorf("DSCP 26 mapped again without drop-precedence: %v", p.DSCPToDropPrecedence)
	}
	// Rendered and read back, the colours and thresholds stay.
	out, err := Render(dc)
	if err != nil {
		t.Fatal(err)
	}
	back := mustParseEOS(t, string(out)+"interface Ethernet1\n   service-profile labctl-qos\n")
	if bp := back.Port("Ethernet1"); bp == nil || bp.DSCPToDropPrecedence[26] != 2 || bp.Queue(3).WRED == nil || bp.Queue(3).WRED.Red == nil {
		t.Errorf("rendered and read back: %s", out)
	}
}
