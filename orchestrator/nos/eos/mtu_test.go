package eos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// An mtu line outside EOS's syntax, 68-65535, EOS refuses (% Invalid
// input), and one above the port's maximum (PlatformMaxMTU) it refuses
// for the port (% Max MTU for Ethernet1 is 9214); either way the port
// keeps the MTU it had: its earlier mtu line's, else its default (1500 on
// a routed port). The refusal quotes EOS's own message.
func TestParseMTURefused(t *testing.T) {
	for _, c := range []struct {
		name, lines string
		mtu         int
		msg         string
	}{
		{"70000 on a routed port", "   mtu 70000\n   no switchport\n", cfgDefaultMTU, "% Invalid input"},
		{"9300 on a routed port", "   mtu 9300\n   no switchport\n", cfgDefaultMTU, cfgMaxMTULine("Ethernet1") + " to " + cfgMaxMTULine("Ethernet2")},
		{"20 on a routed port", "   mtu 20\n   no switchport\n", cfgDefaultMTU, "% Invalid input"},
		{"9300 after mtu 9100", "   mtu 9100\n   mtu 9300\n   no switchport\n", 9100, cfgMaxMTULine("Ethernet2")},
		{"PlatformMaxMTU+1 after mtu 9100", fmt.Sprintf("   mtu 9100\n   mtu %d\n   no switchport\n", PlatformMaxMTU+1), 9100, fmt.Sprintf("\"%% Max MTU for Ethernet1 is %d\" to \"%% Max MTU for Ethernet2 is %d\", a line for each of Ethernet1, Ethernet2, extrapolated from cEOS's \"%% Max MTU for Ethernet4 is 9194\"", PlatformMaxMTU, PlatformMaxMTU)},
		{"MaxCLIMTU+1", fmt.Sprintf("   mtu 9100\n   mtu %d\n   no switchport\n", MaxCLIMTU+1), 9100, "% Invalid input"},
		{"MinMTU-1 on a port whose mode is not said", fmt.Sprintf("   mtu %d\n", MinMTU-1), 0, "% Invalid input"},
		{"not a number", "   mtu jumbo\n   no switchport\n", cfgDefaultMTU, "% Invalid input"},
	} {
		dc := mustParseEOS(t, formsHead+"interface Ethernet1-2\n"+c.lines+"   service-profile ROCE\n!\n")
		for _, name := range []string{"Ethernet1", "Ethernet2"} {
			if p := dc.Port(name); p == nil || p.MTU != c.mtu {
				t.Errorf("%s: %s: %+v; want MTU %d", c.name, name, p, c.mtu)
			} else if c.mtu == cfgDefaultMTU && !strings.Contains(p.Origins["mtu"], "it refuses mtu ") {
				// lint's QOS020 names the refused line, not "sets no mtu".
				t.Errorf("%s: %s: MTU origin %q", c.name, name, p.Origins["mtu"])
			}
		}
		if len(dc.Overruled) != 1 {
			t.Fatalf("%s: overruled %+v; want the refused mtu line", c.name, dc.Overruled)
		}
		o := dc.Overruled[0]
		if !o.Refused || !strings.HasPrefix(o.Where, "mtu ") || o.Line < 1 || len(o.Ports) != 2 || !strings.Contains(o.What, c.msg) || o.Fix == "" {
			t.Errorf("%s: %+v", c.name, o)
		}
		var refused []qos.Finding
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError {
				refused = append(refused, f)
			}
		}
		if len(refused) != 1 || !strings.HasPrefix(refused[0].Message, fmt.Sprintf("line %d: ", o.Line)) {
			t.Errorf("%s: lint's QOS021 errors %+v; want one at the line", c.name, refused)
		}
	}
	// The ends of the range EOS takes are taken.
	for _, n := range []int{MinMTU, PlatformMaxMTU} {
		dc := mustParseEOS(t, fmt.Sprintf("%sinterface Ethernet1\n   mtu %d\n   no switchport\n   service-profile ROCE\n!\n", formsHead, n))
		if p := dc.Port("Ethernet1"); p == nil || p.MTU != n || len(dc.Overruled) != 0 {
			t.Errorf("mtu %d: %+v, overruled %+v", n, p, dc.Overruled)
		}
	}
}

// interface defaults' mtu outside EOS's syntax, 68-65535, is refused (%
// Invalid input), the default stays what it was; one within it but above
// the ports' maximum EOS takes (it refused 9215-65535, as an interface's
// line above the port's maximum): no port carries more than its maximum,
// so the default is read as it, with a warning.
func TestParseDefaultsMTURefused(t *testing.T) {
	for _, c := range []struct {
		name, lines string
		mtu         int
		refused     bool
	}{
		{"9300", "   mtu 9300\n", PlatformMaxMTU, false},
		{"65535", "   mtu 65535\n", PlatformMaxMTU, false},
		{"70000", "   mtu 70000\n", cfgDefaultMTU, true},
		{"70000 after 9000", "   mtu 9000\n   mtu 70000\n", 9000, true},
		{"9300 after 9000", "   mtu 9000\n   mtu 9300\n", PlatformMaxMTU, false},
	} {
		dc, err := Parse("sw", qos.Source{Name: "sw.cfg", Data: []byte(formsHead + "interface defaults\n" + c.lines + "!\ninterface Ethernet1\n   no switchport\n   service-profile ROCE\n!\n")})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p := dc.Port("Ethernet1"); p == nil || p.MTU != c.mtu {
			t.Errorf("%s: %+v; want MTU %d", c.name, p, c.mtu)
		}
		if len(dc.Overruled) != 1 || dc.Overruled[0].Refused != c.refused || !strings.HasPrefix(dc.Overruled[0].Where, "interface defaults mtu ") {
			t.Errorf("%s: overruled %+v", c.name, dc.Overruled)
		}
	}
}

// registerMTU gives lint EOS's MTU limits, as package nos registers its
// plug-ins' (which this package's tests cannot import).
func registerMTU() { qos.RegisterPortMaxMTU(Name, Plugin{}) }

// QOS020 on a port whose MTU cannot carry RoCE's packets said to raise it
// to at least qos.mtu plus the headers, 9276 for UET's 9216, which no EOS
// port takes (QOS021 refuses the line): where the packets need more than
// the port's maximum, the fix is a lower qos.mtu; otherwise the MTU to
// raise it to names the maximum.
func TestLintMTUBeyondThePortsMaximum(t *testing.T) {
	registerMTU()
	in, err := qos.Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	dc := mustParseEOS(t, fmt.Sprintf("%sinterface Ethernet1\n   mtu %d\n   no switchport\n   service-profile ROCE\n!\n", formsHead, PlatformMaxMTU))
	for mtu, want := range map[int]string{
		9216: fmt.Sprintf("lower the lab's qos.mtu to at most %d", LabMaxMTU-qos.RoCEHeaderBytes),
		4096: "",
	} {
		in.MTU = mtu
		var got []string
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{Intent: &in}) {
			if f.Rule == qos.RulePortMTU {
				got = append(got, f.Fix)
			}
		}
		if want == "" && len(got) != 0 || want != "" && (len(got) != 1 || !strings.Contains(got[0], want)) {
			t.Errorf("qos.mtu %d: QOS020 fixes %q; want one saying %q", mtu, got, want)
		}
	}
	// A port below what the packets need is raised, within its maximum.
	dc = mustParseEOS(t, formsHead+"interface Ethernet1\n   mtu 1500\n   no switchport\n   service-profile ROCE\n!\n")
	in.MTU = 4096
	var fixes []string
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{Intent: &in}) {
		if f.Rule == qos.RulePortMTU {
			fixes = append(fixes, f.Fix)
		}
	}
	// A lab runs on cEOS, which takes no more than LabMaxMTU: the fix
	// names it, not the platform's maximum (mtu 9214 a cEOS lab switch
	// refuses, leaving the port at 1500).
	if want := fmt.Sprintf("at most the %d a port of the lab's switches takes (a cEOS lab switch takes at most %d", LabMaxMTU, CEOSMaxMTU); len(fixes) != 1 || !strings.Contains(fixes[0], want) {
		t.Errorf("QOS020 at mtu 1500: fixes %q; want one saying %q", fixes, want)
	}
}

// A port MTU the modeled platform takes but a cEOS lab switch refuses
// (LabMaxMTU+1 to PlatformMaxMTU) passed a lab's lint: cEOS refuses the
// line, the port stays at 1500 and RoCE's packets are dropped. A lab's
// lint warns (QOS021) with the lab's limit; a bare file's lint (no lab)
// does not, and an MTU the lab takes is not warned of.
func TestLintMTUAboveTheLabsMaximum(t *testing.T) {
	registerMTU()
	in, err := qos.Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mtu  int
		lab  bool
		warn bool
	}{
		{LabMaxMTU + 1, true, true},
		{PlatformMaxMTU, true, true},
		{LabMaxMTU, true, false},
		{PlatformMaxMTU, false, false},
	} {
		dc := mustParseEOS(t, fmt.Sprintf("%sinterface Ethernet1\n   mtu %d\n   no switchport\n   service-profile ROCE\n!\n", formsHead, c.mtu))
		opt := qos.LintOptions{}
		if c.lab {
			opt.Intent = &in
		}
		var warned []qos.Finding
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, opt) {
			if f.Rule == qos.RuleOverruled {
				warned = append(warned, f)
			}
		}
		if !c.warn {
			if len(warned) != 0 {
				t.Errorf("mtu %d, lab %v: %+v; want no QOS021", c.mtu, c.lab, warned)
			}
			continue
		}
		if len(warned) != 1 || warned[0].Severity != qos.SevWarning || warned[0].Port != "Ethernet1" ||
			!strings.Contains(warned[0].Message, fmt.Sprintf("a cEOS lab switch takes at most %d", CEOSMaxMTU)) ||
			!strings.Contains(warned[0].Fix, fmt.Sprintf("at most %d", LabMaxMTU)) {
			t.Errorf("mtu %d in a lab: %+v; want one QOS021 warning naming cEOS's %d", c.mtu, warned, CEOSMaxMTU)
		}
	}
}

// EOS refuses an mtu line above the port's maximum port by port, one line
// of its answer for each interface of a range (% Max MTU for Ethernet1 is
// 9214, % Max MTU for Ethernet2 is 9214, ...): the refusal, one finding
// for the range's line, says it for each port, the ports grouped; it
// quoted the first port's answer alone.
func TestParseMTURefusedRange(t *testing.T) {
	dc := mustParseEOS(t, formsHead+"interface Ethernet1-6\n   no switchport\n!\ninterface Ethernet1-4,6\n   mtu 9300\n   service-profile ROCE\n!\n")
	if len(dc.Overruled) != 1 {
		t.Fatalf("overruled %+v; want the refused mtu line", dc.Overruled)
	}
	o := dc.Overruled[0]
	for _, want := range []string{`"% Max MTU for Ethernet1 is 9214"`, `"% Max MTU for Ethernet6 is 9214"`, "for each of Ethernet1-4, Ethernet6", cfgCEOSMaxMTUError} {
		if !strings.Contains(o.What, want) {
			t.Errorf("no %q in %q", want, o.What)
		}
	}
	if len(o.Ports) != 5 {
		t.Errorf("ports %v", o.Ports)
	}
	// The ports written out of order (interface Ethernet6,1-3), and
	// Ethernet6 named first in the file: the answers quoted are the first
	// and last port's by port number, grouped in port order.
	dc = mustParseEOS(t, formsHead+"interface Ethernet6\n   no switchport\n!\ninterface Ethernet1-5\n   no switchport\n!\ninterface Ethernet6,1-3\n   mtu 9300\n   service-profile ROCE\n!\n")
	if o := dc.Overruled[0]; !strings.Contains(o.What, `("% Max MTU for Ethernet1 is 9214" to "% Max MTU for Ethernet6 is 9214", a line for each of Ethernet1-3, Ethernet6,`) {
		t.Errorf("interface Ethernet6,1-3: %q", o.What)
	}
	// A line of one interface quotes its answer alone.
	dc = mustParseEOS(t, formsHead+"interface Ethernet3\n   mtu 9300\n   no switchport\n!\n")
	if o := dc.Overruled[0]; !strings.Contains(o.What, `"% Max MTU for Ethernet3 is 9214", extrapolated`) || strings.Contains(o.What, "each of") {
		t.Errorf("one port: %q", o.What)
	}
}
