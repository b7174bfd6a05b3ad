package eos

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

func TestCfgInterfaceNames(t *testing.T) {
	for in, want := range map[string]string{
		"Ethernet1":                   "Ethernet1",
		"Ethernet1-4":                 "Ethernet1 Ethernet2 Ethernet3 Ethernet4",
		"Ethernet 1-3":                "Ethernet1 Ethernet2 Ethernet3",
		"ethernet1-2":                 "Ethernet1 Ethernet2",
		"Et1,3-4":                     "Ethernet1 Ethernet3 Ethernet4",
		"Ethernet1-2,Ethernet10":      "Ethernet1 Ethernet2 Ethernet10",
		"Ethernet3/1-4":               "Ethernet3/1 Ethernet3/2 Ethernet3/3 Ethernet3/4",
		"Ethernet3/1-3/2":             "Ethernet3/1 Ethernet3/2",
		"Ethernet1/1/1-3":             "Ethernet1/1/1 Ethernet1/1/2 Ethernet1/1/3",
		"Port-Channel10-11":           "Port-Channel10 Port-Channel11",
		"Ethernet1.100":               "Ethernet1.100",
		"Management1":                 "Management1",
		"Ethernet5-6 , Ethernet8":     "Ethernet5 Ethernet6 Ethernet8",
		"Ethernet1/1,Ethernet2/1,4/1": "Ethernet1/1 Ethernet2/1 Ethernet4/1",
	} {
		got, err := cfgInterfaceNames(strings.Fields(in))
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("interface %s = %v, %v; want %s", in, got, err, want)
		}
	}
	// A range across modules covers the interfaces the platform has
	// between its ends, which the files do not say: refused with the fix.
	for _, bad := range []string{"Ethernet1/1-4/1", "Ethernet4-1", "Ethernet1,,2", "1-4", "Ethernet1-x"} {
		if got, err := cfgInterfaceNames(strings.Fields(bad)); err == nil {
			t.Errorf("interface %s = %v, want an error", bad, got)
		}
	}
}

// modelJSON is the parsed model of a config as JSON, for comparing two
// forms of one config.
func modelJSON(t *testing.T, cfg string) string {
	t.Helper()
	dc := mustParseEOS(t, cfg)
	dc.Notes, dc.Fields = nil, nil
	for i := range dc.Ports {
		// Whether EOS keeps a port L2, without the place of the block
		// that says so (a range's line, or the port's own).
		dc.Ports[i].L2, _, _ = strings.Cut(dc.Ports[i].L2, " (")
	}
	out, err := json.Marshal(dc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

const formsHead = `qos map dscp 26 to traffic-class 3
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
!
`

// An interface range (or list) configures each interface it names as a
// line of its own would; where labctl read the range as one interface
// called "Ethernet1-4", the ports it named had no QoS.
func TestParseInterfaceRangesAsPlain(t *testing.T) {
	var plain strings.Builder
	plain.WriteString(formsHead)
	for _, n := range []string{"1", "2", "3", "4", "6"} {
		plain.WriteString("interface Ethernet" + n + "\n   service-profile ROCE\n!\n")
	}
	want := modelJSON(t, plain.String())
	for _, form := range []string{
		"interface Ethernet1-4,6\n   service-profile ROCE\n!\n",
		"interface Ethernet1-2\n   service-profile ROCE\n!\ninterface Ethernet 3-4 , 6\n   service-profile ROCE\n!\n",
		"interface ethernet1,Et2-4,Ethernet6\n   service-profile ROCE\n!\n",
	} {
		if got := modelJSON(t, formsHead+form); got != want {
			t.Errorf("%q parses otherwise than one interface a line:\n got %s\nwant %s", form, got, want)
		}
	}
	// A range after the interfaces' own lines adds to them.
	dc := mustParseEOS(t, plain.String()+"interface Ethernet1-2\n   no priority-flow-control\n!\n")
	for port, want := range map[string]string{"Ethernet1": "", "Ethernet2": "", "Ethernet3": "3"} {
		if p := dc.Port(port); p == nil || qos.FormatInts(p.PFCPriorities) != want {
			t.Errorf("%s PFC = %v, want [%s]", port, p, want)
		}
	}
}

// The no and default forms labctl reads undo what the lines before them
// said, as EOS applies them; before, they were passed over in silence, so
// a config that took PFC off a priority or an interface off its profile
// read as if it had not.
func TestParseNoAndDefaultForms(t *testing.T) {
	base := formsHead + "interface Ethernet1\n   service-profile ROCE\n!\ninterface Ethernet2\n   service-profile ROCE\n!\n"
	pfc := func(cfg, port string) string {
		t.Helper()
		dc := mustParseEOS(t, cfg)
		p := dc.Port(port)
		if p == nil {
			t.Fatalf("no port %s", port)
		}
		return qos.FormatInts(p.PFCPriorities)
	}
	for _, c := range []struct {
		name, cfg, port, want string
	}{
		{"default interface", base + "default interface Ethernet1\n", "Ethernet1", ""},
		{"default interface leaves the others", base + "default interface Ethernet1\n", "Ethernet2", "3"},
		{"default interface range", base + "default interface Ethernet1-2\n", "Ethernet2", ""},
		{"default interface before its block", "default interface Ethernet1\n" + base, "Ethernet1", "3"},
		{"no service-profile", base + "interface Ethernet1\n   no service-profile ROCE\n!\n", "Ethernet1", ""},
		{"no priority-flow-control priority in the profile", strings.Replace(base, "   priority-flow-control priority 3 no-drop\n", "   priority-flow-control priority 3 no-drop\n   no priority-flow-control priority 3 no-drop\n", 1), "Ethernet1", ""},
		{"no priority-flow-control priority on the interface takes the profile's", base + "interface Ethernet1\n   priority-flow-control priority 3 drop\n   no priority-flow-control priority 3\n!\n", "Ethernet1", "3"},
	} {
		if got := pfc(c.cfg, c.port); got != c.want {
			t.Errorf("%s: %s PFC priorities [%s], want [%s]", c.name, c.port, got, c.want)
		}
	}
	// no qos map: the DSCPs listed go back to EOS's default class.
	dc := mustParseEOS(t, "qos map dscp 10 26 to traffic-class 3\nno qos map dscp 10 to traffic-class 3\n"+base)
	if p := dc.Port("Ethernet1"); p.DSCPToTC[10] != cfgDefaultTC(10) || p.DSCPToTC[26] != 3 {
		t.Errorf("after no qos map dscp 10: DSCP 10 -> TC%d (want the default TC%d), 26 -> TC%d", p.DSCPToTC[10], cfgDefaultTC(10), p.DSCPToTC[26])
	}
	// A no form labctl does not read is named, not passed over.
	dc = mustParseEOS(t, base+"interface Ethernet1\n   no qos dscp\n!\n")
	if !slices.ContainsFunc(dc.Fields, func(f qos.FieldNote) bool { return strings.Contains(f.Field, "no qos dscp") }) {
		t.Errorf("no qos dscp not named among the statements labctl does not run: %+v", dc.Fields)
	}
}

// The no and default forms of an interface's own settings: no qos cos,
// no mtu, default switchport and no channel-group were passed over in
// silence (or noted as not read, keeping the setting they remove), so a
// port that lost its default CoS or its jumbo MTU, or became a switchport,
// read as if it had not.
func TestParseInterfaceNoForms(t *testing.T) {
	untrusted := strings.Replace(formsHead, "   qos trust dscp\n", "   no qos trust\n   qos cos 3\n", 1)
	for _, c := range []struct {
		name, cfg string
		cos, mtu  int
		trust     string
	}{
		// qos cos 3 classifies untrusted RoCE into TC3; without it, CoS 0.
		{"no qos cos in the profile", untrusted + "interface Ethernet1\n   service-profile ROCE\n!\nqos profile ROCE\n   no qos cos\n!\n", 0, 0, qos.TrustNone},
		{"default qos cos repeating the value", untrusted + "interface Ethernet1\n   service-profile ROCE\n!\nqos profile ROCE\n   default qos cos 3\n!\n", 0, 0, qos.TrustNone},
		{"no qos cos on the interface takes the profile's", untrusted + "interface Ethernet1\n   service-profile ROCE\n   qos cos 5\n   no qos cos\n!\n", 3, 0, qos.TrustNone},
		{"no mtu", formsHead + "interface Ethernet1\n   service-profile ROCE\n   mtu 9214\n   no mtu\n!\n", 0, cfgDefaultMTU, qos.TrustDSCP},
		{"default mtu repeating the value", formsHead + "interface Ethernet1\n   service-profile ROCE\n   mtu 9214\n   default mtu 9214\n!\n", 0, cfgDefaultMTU, qos.TrustDSCP},
		{"mtu after no mtu", formsHead + "interface Ethernet1\n   service-profile ROCE\n   no mtu\n   mtu 9214\n!\n", 0, 9214, qos.TrustDSCP},
		// Without qos trust, a switchport trusts CoS, a routed port DSCP.
		{"default switchport", strings.Replace(formsHead, "   qos trust dscp\n", "", 1) + "interface Ethernet1\n   no switchport\n   service-profile ROCE\n   default switchport\n!\n", 0, 0, qos.TrustCoS},
	} {
		dc := mustParseEOS(t, c.cfg)
		p := dc.Port("Ethernet1")
		if p == nil {
			t.Fatalf("%s: no port Ethernet1", c.name)
		}
		if p.DefaultCoS != c.cos || p.MTU != c.mtu || p.Trust != c.trust {
			t.Errorf("%s: default CoS %d, MTU %d, trust %s; want %d, %d, %s", c.name, p.DefaultCoS, p.MTU, p.Trust, c.cos, c.mtu, c.trust)
		}
	}
	// default channel-group takes the port out of its port-channel: no
	// note about the port-channel's QoS it does not take.
	head := formsHead + "interface Port-Channel1\n   service-profile ROCE\n!\n"
	for _, leave := range []string{"", "   no channel-group\n", "   default channel-group 1 mode active\n"} {
		dc := mustParseEOS(t, head+"interface Ethernet1\n   channel-group 1 mode active\n"+leave+"   service-profile ROCE\n!\n")
		noted := slices.ContainsFunc(dc.Notes, func(n string) bool { return strings.Contains(n, "member of Port-Channel1") })
		if noted != (leave == "") {
			t.Errorf("channel-group then %q: member noted %v, want %v", strings.TrimSpace(leave), noted, leave == "")
		}
	}
	// no interface deletes a virtual interface; a physical one EOS does
	// not remove, so the line is refused rather than read as a reset.
	dc := mustParseEOS(t, head+"no interface Port-Channel1\ninterface Ethernet1\n   channel-group 1 mode active\n   service-profile ROCE\n!\n")
	if p := dc.Port("Port-Channel1"); p != nil && p.Queue(3).ECN != nil {
		t.Errorf("no interface Port-Channel1 kept its profile: %+v", p)
	}
	for _, line := range []string{"no interface Ethernet1", "no interface Ethernet1-2", "no interface ethernet 1"} {
		_, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte(formsHead + "interface Ethernet1\n   service-profile ROCE\n!\n" + line + "\n")})
		if err == nil || !strings.Contains(err.Error(), "sw.cfg:") || !strings.Contains(err.Error(), "physical interface") || !strings.Contains(err.Error(), "fix: write default interface Ethernet1") {
			t.Errorf("%s: err %v, want a refusal naming the line and the fix", line, err)
		}
	}
}

// A config without indentation (hand-written, or from a template that
// strips it) parses as the indented one: EOS applies a command in the
// mode the commands before it entered. Before, every flat interface or
// profile line was read as global and dropped, leaving the ports without
// PFC. labctl takes this from EOS's mode rules, not from a switch.
func TestParseFlatAsIndented(t *testing.T) {
	indented := `qos map dscp 26 to traffic-class 3
priority-flow-control pause watchdog action drop
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
   priority-flow-control pause watchdog port action notify-only
   tx-queue 3
      no priority
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
   tx-queue 6
      priority strict
!
interface Ethernet1
   description to gpu1
   no shutdown
   service-profile ROCE
!
interface Ethernet2
   ip address 10.0.0.1/31
   service-profile ROCE
   priority-flow-control priority 3 drop
!
hostname leaf1
qos map dscp 48 to traffic-class 6
`
	var flat []string
	for _, l := range strings.Split(indented, "\n") {
		flat = append(flat, strings.TrimLeft(l, " "))
	}
	if got, want := modelJSON(t, strings.Join(flat, "\n")), modelJSON(t, indented); got != want {
		t.Errorf("the config without indentation parses otherwise:\n got %s\nwant %s", got, want)
	}
}

// In an indented file, one of the open block's statements slipped to
// column 0 stays in its block as EOS applies it (by mode, whatever the
// indentation), with a note at its line; it was read as global and
// dropped, so the port lost its profile (PFC off) or the queue its ECN.
// A line at column 0 that is no statement of the block still leaves it.
func TestParseColumnZeroSlipStaysInItsBlock(t *testing.T) {
	indented := `qos map dscp 26 to traffic-class 3
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      bandwidth percent 50
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
!
interface Ethernet1
   description to gpu1
   service-profile ROCE
!
hostname leaf1
`
	for _, slip := range []string{"   service-profile ROCE", "      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20"} {
		cfg := strings.Replace(indented, slip, strings.TrimLeft(slip, " "), 1)
		if got, want := modelJSON(t, cfg), modelJSON(t, indented); got != want {
			t.Errorf("%q at column 0 parses otherwise:\n got %s\nwant %s", strings.TrimSpace(slip), got, want)
		}
		dc := mustParseEOS(t, cfg)
		if !slices.ContainsFunc(dc.Notes, func(n string) bool { return strings.Contains(n, "is at column 0 inside the") }) {
			t.Errorf("%q at column 0: no note: %q", strings.TrimSpace(slip), dc.Notes)
		}
	}
	// A global statement at column 0 after the interface is global, and
	// no note, also one the interface mode has too (qos rewrite dscp).
	for _, cfg := range []string{indented, strings.Replace(indented, "hostname leaf1\n", "qos rewrite dscp\nhostname leaf1\n", 1)} {
		dc := mustParseEOS(t, cfg)
		if slices.ContainsFunc(dc.Notes, func(n string) bool { return strings.Contains(n, "column 0") }) {
			t.Errorf("a global line read as the interface's: %q", dc.Notes)
		}
	}
}

// A member of a port-channel that sets QoS is read by its own lines, and
// the note says so: whether EOS gives members the port-channel's QoS is
// not checked in Arista's documentation.
func TestParsePortChannelMemberNoted(t *testing.T) {
	cfg := formsHead + "interface Ethernet1\n   channel-group 1 mode active\n!\ninterface Ethernet2\n   channel-group 2 mode active\n   service-profile ROCE\n!\ninterface Port-Channel1\n   service-profile ROCE\n!\n"
	dc := mustParseEOS(t, cfg)
	if p := dc.Port("Ethernet1"); p == nil || len(p.PFCPriorities) != 0 {
		t.Errorf("Ethernet1 = %+v: a member takes no QoS of its port-channel in labctl's reading", p)
	}
	var notes []string
	for _, n := range dc.Notes {
		if strings.Contains(n, "channel-group") {
			notes = append(notes, n)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "interface Ethernet1 is a member of Port-Channel1") {
		t.Errorf("port-channel notes %q, want one for Ethernet1 (Port-Channel2 sets no QoS)", notes)
	}
}

// end leaves configuration mode: statements after it are read (a file
// applied in pieces has them) and noted, and an end at the file's end
// alone is not.
func TestParseEndNoted(t *testing.T) {
	base := formsHead + "interface Ethernet1\n   service-profile ROCE\n!\n"
	for cfg, want := range map[string]int{
		base + "end\n":    0,
		base + "end\n!\n": 0,
		"qos map dscp 46 to traffic-class 5\nend\n" + base + "end\n": 1,
	} {
		dc := mustParseEOS(t, cfg)
		n := 0
		for _, s := range dc.Notes {
			if strings.Contains(s, "end leaves configuration mode") {
				n++
			}
		}
		if n != want {
			t.Errorf("%d notes of end, want %d: %q", n, want, dc.Notes)
		}
		if p := dc.Port("Ethernet1"); p == nil || qos.FormatInts(p.PFCPriorities) != "3" {
			t.Errorf("Ethernet1 = %+v: the statements after end are read", p)
		}
	}
	// A range in qos map is refused with the fix, not as a number out of
	// range.
	_, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte("qos map dscp 24-27 to traffic-class 3\n" + base)})
	if err == nil || !strings.Contains(err.Error(), "24 25 26 27") {
		t.Errorf("qos map dscp 24-27: %v", err)
	}
}

// A queue's origin is the tx-queue blocks that configured it (the
// profile's, the interface's own over it), with their lines: lint points
// at them, where it said "interface *" for a profile's queue.
func TestQueueOriginIsItsTxQueueBlock(t *testing.T) {
	cfg := `qos map dscp 26 to traffic-class 3
qos profile ROCE
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 20
!
interface Ethernet1
   service-profile ROCE
!
interface Ethernet2
   service-profile ROCE
   tx-queue 3
      bandwidth percent 40
!
`
	dc := mustParseEOS(t, cfg)
	for port, want := range map[string]string{"Ethernet1": "qos profile ROCE tx-queue 3 (sw.cfg:5)", "Ethernet2": "interface Ethernet2 tx-queue 3 (sw.cfg:13) over qos profile ROCE tx-queue 3 (sw.cfg:5)"} {
		if got := dc.Port(port).Queue(3).Origin; got != want {
			t.Errorf("%s queue 3 origin %q, want %q", port, got, want)
		}
	}
	if got := dc.Port("Ethernet1").Queue(1).Origin; got != "interface Ethernet1" {
		t.Errorf("a queue no block configures: origin %q", got)
	}
}

// The switch's defaults for interfaces that set none of their own:
// interface defaults' mtu and ethernet shutdown, and switchport default
// mode. They were passed over (interface defaults read as an interface
// called defaults), so interface defaults mtu 1500 left RoCE's 4156-byte
// packets carried, and ethernet shutdown every port up.
func TestParseInterfaceDefaults(t *testing.T) {
	notrust := strings.Replace(formsHead, "   qos trust dscp\n", "", 1)
	for _, c := range []struct {
		name, cfg string
		mtu       int
		down      bool
		trust     string
	}{
		{"mtu", formsHead + "interface defaults\n   mtu 1500\n!\ninterface Ethernet1\n   service-profile ROCE\n!\n", 1500, false, qos.TrustDSCP},
		{"mtu, the port's own over it", formsHead + "interface defaults\n   mtu 1500\n!\ninterface Ethernet1\n   service-profile ROCE\n   mtu 9214\n!\n", 9214, false, qos.TrustDSCP},
		{"no mtu takes the defaults'", formsHead + "interface defaults\n   mtu 9100\n!\ninterface Ethernet1\n   service-profile ROCE\n   mtu 9214\n   no mtu\n!\n", 9100, false, qos.TrustDSCP},
		{"the defaults' no mtu: EOS's 1500", formsHead + "interface defaults\n   mtu 9214\n   no mtu\n!\ninterface Ethernet1\n   service-profile ROCE\n!\n", 1500, false, qos.TrustDSCP},
		{"no interface defaults", formsHead + "interface defaults\n   mtu 1500\n!\nno interface defaults\ninterface Ethernet1\n   service-profile ROCE\n!\n", 0, false, qos.TrustDSCP},
		{"ethernet shutdown", formsHead + "interface defaults\n   ethernet\n      shutdown\n!\ninterface Ethernet1\n   service-profile ROCE\n!\n", 0, true, qos.TrustDSCP},
		{"ethernet shutdown, the port's no shutdown", formsHead + "interface defaults\n   ethernet\n      shutdown\n!\ninterface Ethernet1\n   service-profile ROCE\n   no shutdown\n!\n", 0, false, qos.TrustDSCP},
		// default shutdown goes back to the default, which interface
		// defaults' ethernet shutdown makes down (it was read as no
		// shutdown), and under ethernet to EOS's up.
		{"ethernet shutdown, the port's default shutdown", formsHead + "interface defaults\n   ethernet\n      shutdown\n!\ninterface Ethernet1\n   service-profile ROCE\n   no shutdown\n   default shutdown\n!\n", 0, true, qos.TrustDSCP},
		{"ethernet shutdown, then default shutdown", formsHead + "interface defaults\n   ethernet\n      shutdown\n      default shutdown\n!\ninterface Ethernet1\n   service-profile ROCE\n!\n", 0, false, qos.TrustDSCP},
		{"a flat file", strings.ReplaceAll("interface defaults\nmtu 1500\nethernet\nshutdown\n"+formsHead+"interface Ethernet1\nservice-profile ROCE\n", "   ", ""), 1500, true, qos.TrustDSCP},
		{"switchport default mode access", notrust + "switchport default mode access\ninterface Ethernet1\n   service-profile ROCE\n!\n", 0, false, qos.TrustCoS},
		{"switchport default mode routed, default switchport", notrust + "switchport default mode routed\ninterface Ethernet1\n   switchport\n   service-profile ROCE\n   default switchport\n!\n", 1500, false, qos.TrustDSCP},
		{"no switchport default", notrust + "switchport default mode routed\nno switchport default mode routed\ninterface Ethernet1\n   no switchport\n   default switchport\n   service-profile ROCE\n!\n", 0, false, qos.TrustCoS},
	} {
		dc := mustParseEOS(t, c.cfg)
		p := dc.Port("Ethernet1")
		if p == nil {
			t.Fatalf("%s: no port Ethernet1", c.name)
		}
		if p.MTU != c.mtu || (p.AdminDown != "") != c.down || p.Trust != c.trust || c.down && strings.Contains(p.AdminDown, "no no") {
			t.Errorf("%s: MTU %d, down %q, trust %s; want %d, %v, %s", c.name, p.MTU, p.AdminDown, p.Trust, c.mtu, c.down, c.trust)
		}
	}
	dc := mustParseEOS(t, formsHead+"interface defaults\n   mtu 1500\n   ethernet\n      shutdown\n!\n")
	if dp := dc.DefaultPort; dp == nil || dp.MTU != 1500 || dp.AdminDown == "" {
		t.Errorf("a port the config does not name: %+v", dp)
	}
	if slices.ContainsFunc(dc.Ports, func(p qos.PortConfig) bool { return p.Name == "defaults" }) {
		t.Errorf("interface defaults read as an interface")
	}
}

// A routed port without an mtu line holds RoCE's packets to EOS's default
// L3 MTU, 1500, as one with mtu 1500 does: it was read as carrying the
// lab's packets (MTU 0), so an mtu 9214 line deleted from a routed port
// left lint and the simulator silent. A port whose mode the file does not
// say (a QoS file alone), or a switchport (EOS enforces no L3 MTU on what
// it bridges), still says nothing of its MTU.
func TestParseRoutedPortDefaultMTU(t *testing.T) {
	for _, c := range []struct {
		name, cfg string
		mtu       int
		routed    bool
		origin    string
	}{
		{"routed, no mtu line", formsHead + "interface Ethernet1\n   no switchport\n   service-profile ROCE\n!\n", cfgDefaultMTU, true, "EOS's default L3 MTU of a routed port: interface Ethernet1 sets no mtu"},
		{"routed, mtu 9214", formsHead + "interface Ethernet1\n   mtu 9214\n   no switchport\n   service-profile ROCE\n!\n", 9214, true, ""},
		{"routed by switchport default mode", formsHead + "switchport default mode routed\ninterface Ethernet1\n   service-profile ROCE\n!\n", cfgDefaultMTU, true, "EOS's default L3 MTU of a routed port: interface Ethernet1 sets no mtu"},
		{"routed, interface defaults mtu 9214", formsHead + "interface defaults\n   mtu 9214\n!\ninterface Ethernet1\n   no switchport\n   service-profile ROCE\n!\n", 9214, true, "interface defaults mtu: interface Ethernet1 sets none"},
		{"mode not said", formsHead + "interface Ethernet1\n   service-profile ROCE\n!\n", 0, false, ""},
		{"switchport", formsHead + "interface Ethernet1\n   switchport\n   service-profile ROCE\n!\n", 0, false, ""},
	} {
		dc := mustParseEOS(t, c.cfg)
		p := dc.Port("Ethernet1")
		if p == nil {
			t.Fatalf("%s: no port Ethernet1", c.name)
		}
		if p.MTU != c.mtu || p.Routed != c.routed || p.Origins["mtu"] != c.origin {
			t.Errorf("%s: MTU %d, routed %v, origin %q; want %d, %v, %q", c.name, p.MTU, p.Routed, p.Origins["mtu"], c.mtu, c.routed, c.origin)
		}
	}
	dc := mustParseEOS(t, formsHead+"switchport default mode routed\n")
	if dp := dc.DefaultPort; dp == nil || dp.MTU != cfgDefaultMTU {
		t.Errorf("a port the config does not name, routed by default: %+v", dp)
	}
}
