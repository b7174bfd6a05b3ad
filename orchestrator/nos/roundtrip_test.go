package nos

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
	"github.com/labctl/labctl/orchestrator/qos"
)

// A config labctl renders from a parsed one must mean what the parsed one
// did: a run renders the lab's configs again for every variant (the
// configs it keeps in its record, and those it pushes to a live lab, where
// the variant's lines replace the lab's), so a statement the renderer
// dropped or changed would change what the switch does beyond what the
// variant asks, and `labctl config diff` would show it. "Means the same" is
// qos.Diff's, the model's fields that lint, the simulator and regress read.

// roundTrip parses srcs as n does, renders the model and parses that back.
// renderErr is the renderer's refusal (a model the NOS cannot write, such
// as SONiC PFC without buffer pools); err a failure of the parse or of the
// parse back.
func roundTrip(n NOS, srcs ...qos.Source) (diff []qos.Difference, rendered []byte, renderErr, err error) {
	dc, err := n.ParseQoS("sw", srcs...)
	if err != nil {
		return nil, nil, nil, err
	}
	rendered, renderErr = n.RenderQoS(dc)
	if renderErr != nil {
		return nil, nil, renderErr, nil
	}
	back, err := n.ParseQoS("sw", qos.Source{Name: "sw" + n.ConfigExt(), Data: rendered})
	if err != nil {
		if len(dc.Ports) == 0 {
			// Nothing to render (a file of global statements labctl does
			// not model): no config to read back.
			return nil, rendered, nil, nil
		}
		return nil, rendered, nil, err
	}
	return qos.Diff([]qos.DeviceConfig{dc}, []qos.DeviceConfig{back}), rendered, nil, nil
}

// realConfigSets are the real configs of a NOS (reference/real-configs),
// each alone and, for EOS, the two files of one switch together; nil where
// they are not there (they must be in CI).
func realConfigSets(t testing.TB, n NOS) [][]qos.Source {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "reference", "real-configs", n.Name())
	files, _ := filepath.Glob(filepath.Join(dir, "*"+n.ConfigExt()))
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no real %s configs at %s (../shared/reference/real-configs from the repository root)", n.Name(), dir)
		}
		t.Logf("no real %s configs at %s: rendered ones only", n.Name(), dir)
		return nil
	}
	var sets [][]qos.Source
	var all []qos.Source
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := qos.Source{Name: filepath.Base(f), Data: data}
		sets = append(sets, []qos.Source{src})
		all = append(all, src)
	}
	if n.Name() == "eos" {
		sets = append(sets, all)
	}
	return sets
}

// roundTripCases are, per NOS, small configs of statements the rendered
// switches lack (EOS's among them the four its renderer once dropped or
// turned around): the round-trip test's own cases and the fuzzer's seeds.
var roundTripCases = map[string][][]qos.Source{
	"sonic": {
		// An egress remark of RoCE's class on one port of two.
		oneSource("remark.json", `{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}}, "TC_TO_DSCP_MAP": {"R": {"3": "10"}}, "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_dscp_map": "R"}, "Ethernet4": {"dscp_to_tc_map": "AZURE"}}}`),
		// Port channels: one up, addressed and with min_links, one down
		// with fallback,
		// one with no admin_status (teammgrd's default down), and a
		// port in a VLAN. The renderer wrote none of PORTCHANNEL,
		// PORTCHANNEL_MEMBER, PORTCHANNEL_INTERFACE and VLAN_MEMBER, so
		// the members read back as ordinary ports.
		oneSource("lag.json", `{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}}, "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE"}, "Ethernet4": {"dscp_to_tc_map": "AZURE"}, "Ethernet8": {"dscp_to_tc_map": "AZURE"}, "Ethernet12": {"dscp_to_tc_map": "AZURE"}, "Ethernet16": {"dscp_to_tc_map": "AZURE"}},
			"PORTCHANNEL": {"PortChannel1": {"admin_status": "up", "mtu": "9100", "min_links": "2"}, "PortChannel2": {"admin_status": "down", "fallback": "true"}, "PortChannel3": {}},
			"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}, "PortChannel1|Ethernet4": {}, "PortChannel2|Ethernet8": {}, "PortChannel3|Ethernet12": {}},
			"PORTCHANNEL_INTERFACE": {"PortChannel1": {}, "PortChannel1|10.0.0.0/31": {}},
			"VLAN": {"Vlan10": {"vlanid": "10"}}, "VLAN_MEMBER": {"Vlan10|Ethernet16": {"tagging_mode": "tagged"}}}`),
	},
	"eos": {
		// An egress rewrite of RoCE's class (qos rewrite dscp), switch-wide.
		oneSource("remark.cfg", "qos map dscp 26 to traffic-class 3\nqos rewrite dscp\nqos map traffic-class 3 to dscp 10\nqos profile p\n   qos trust dscp\n!\ninterface Ethernet1\n   service-profile p\n!\ninterface Ethernet2\n   service-profile p\n"),
		// qos rewrite dscp with no qos map traffic-class ... to dscp line:
		// the switch rewrites every class by EOS's default map.
		oneSource("rewrite-default.cfg", "qos map dscp 26 to traffic-class 3\nqos rewrite dscp\nqos profile p\n   qos trust dscp\n!\ninterface Ethernet1\n   service-profile p\n"),
		// The watchdog's poll interval with no port running it yet.
		oneSource("poll.cfg", "priority-flow-control pause watchdog default polling-interval 1\ninterface Ethernet1\n   service-profile p\n!\nqos profile p\n   qos trust dscp\n"),
		// Two PFC ports of one profile, the watchdog on by default and
		// turned off on one of them.
		oneSource("wdoff.cfg", "priority-flow-control pause watchdog default timeout 0.2\npriority-flow-control pause watchdog default recovery-time 0.2\nqos map dscp 26 to traffic-class 3\nqos profile p\n   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n!\ninterface Ethernet1\n   service-profile p\n!\ninterface Ethernet2\n   service-profile p\n   no priority-flow-control pause watchdog\n"),
		// A CoS map of its own on a port trusting CoS, and MTUs.
		oneSource("cos.cfg", "qos map cos 1 4 to traffic-class 2\nqos profile p\n   qos trust cos\n!\ninterface Ethernet1\n   mtu 9100\n   service-profile p\n!\ninterface Ethernet2\n   mtu 1500\n   service-profile p\n"),
		// Subinterfaces of a PFC port: routed at their own MTU or EOS's
		// 1500, one bridging (vlan id), one trusting nothing (no qos
		// trust: it was written 'qos trust none', which EOS refuses) and
		// one shut down (its shutdown was dropped).
		oneSource("subif.cfg", "qos map dscp 26 to traffic-class 3\nqos profile p\n   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n!\ninterface Ethernet1\n   mtu 9214\n   no switchport\n   service-profile p\n!\n"+
			"interface Ethernet1.1\n   encapsulation dot1q vlan 101\n   ip address 10.0.0.0/31\n!\ninterface Ethernet1.2\n   mtu 9000\n   encapsulation dot1q vlan 102\n   no qos trust\n!\ninterface Ethernet1.3\n   vlan id 10\n   encapsulation vlan\n      client dot1q 100 network client\n!\ninterface Ethernet1.4\n   encapsulation dot1q vlan 104\n   shutdown\n"),
		// Port channels: one addressed (its members' traffic is its
		// own) with min links, one shut down, one falling back to static and one
		// to individual members, and a switchport. The renderer wrote
		// the channel-group lines alone, so an addressed channel's
		// members read back down.
		oneSource("lag.cfg", "qos profile p\n   qos trust dscp\n!\n"+
			"interface Ethernet1\n   no switchport\n   channel-group 1 mode active\n   service-profile p\n!\n"+
			"interface Ethernet2\n   no switchport\n   channel-group 1 mode active\n   service-profile p\n!\n"+
			"interface Ethernet3\n   no switchport\n   channel-group 2 mode passive\n   service-profile p\n!\n"+
			"interface Ethernet4\n   no switchport\n   channel-group 3 mode active\n   service-profile p\n!\n"+
			"interface Ethernet5\n   no switchport\n   channel-group 4 mode on\n   service-profile p\n!\n"+
			"interface Ethernet6\n   switchport\n   service-profile p\n!\n"+
			"interface Port-Channel1\n   no switchport\n   ip address 10.0.0.0/31\n   port-channel min-links 2\n!\n"+
			"interface Port-Channel2\n   no switchport\n   ipv6 address 2001:db8::/127\n   shutdown\n!\n"+
			"interface Port-Channel3\n   port-channel lacp fallback static\n   port-channel lacp fallback timeout 50\n!\n"+
			"interface Port-Channel4\n   port-channel lacp fallback individual\n!\n"),
	},
}

// oneSource is a config of one file.
func oneSource(name, text string) []qos.Source { return []qos.Source{{Name: name, Data: []byte(text)}} }

func TestRoundTripKeepsMeaning(t *testing.T) {
	// SONiC's real QoS files without their buffer files: PFC with no
	// buffer pools known, which the renderer refuses (it cannot size the
	// lossless PGs). Any other refusal fails.
	refused := map[string]bool{"qos-arista7050.json": true, "qos-mellanox4600c-c64.json": true}
	for _, name := range Names() {
		n := mustLookup(t, name)
		sets := append([][]qos.Source{{{Name: "rendered" + n.ConfigExt(), Data: bigSwitch(t, n, 8)}}}, roundTripCases[name]...)
		real := realConfigSets(t, n)
		sets = append(sets, real...)
		realTripped := 0
		for i, set := range sets {
			var names []string
			for _, s := range set {
				names = append(names, s.Name)
			}
			what := name + " " + strings.Join(names, " + ")
			diff, rendered, renderErr, err := roundTrip(n, set...)
			switch {
			case err != nil:
				t.Errorf("%s: %v\nrendered:\n%s", what, err, rendered)
				continue
			case renderErr != nil && len(set) == 1 && refused[set[0].Name]:
				t.Logf("%s: not rendered, as expected: %v", what, renderErr)
				continue
			case renderErr != nil:
				t.Errorf("%s: not rendered: %v", what, renderErr)
				continue
			case len(diff) > 0:
				t.Errorf("%s: parsed, rendered and parsed again, the config changes %v\nrendered:\n%s", what, diff, rendered)
			}
			if i >= len(sets)-len(real) {
				realTripped++
			}
		}
		// A test that rendered none of the real configs would check little.
		if len(real) > 0 && realTripped == 0 {
			t.Errorf("%s: none of the real configs went round", name)
		}
	}
	// The real EOS configs keep the test's teeth: they map CoS otherwise
	// than EOS's default and set MTUs, which a renderer must write.
	n := mustLookup(t, "eos")
	for _, set := range realConfigSets(t, n) {
		if len(set) != 1 || set[0].Name != "qos.cfg" {
			continue
		}
		text := string(set[0].Data)
		if !strings.Contains(text, "qos map cos ") || !strings.Contains(text, "\n   mtu ") {
			t.Errorf("the real qos.cfg no longer maps CoS and sets an MTU: give the round trip a config that does")
		}
	}
}

// FuzzRoundTrip: whatever config a NOS parses and renders reads back with
// the same meaning (which picks the NOS, data is its config).
func FuzzRoundTrip(f *testing.F) {
	for i, name := range Names() {
		n, err := Lookup(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), bigSwitch(f, n, 4))
		for _, set := range roundTripCases[name] {
			f.Add(uint8(i), set[0].Data)
		}
		dir := filepath.Join("..", "..", "..", "shared", "reference", "real-configs", name)
		files, _ := filepath.Glob(filepath.Join(dir, "*"+n.ConfigExt()))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(uint8(i), data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		names := Names()
		n := mustLookup(t, names[int(which)%len(names)])
		// A refusal to render is no failure here: arbitrary input makes
		// models no NOS can write (per-port DSCP maps on EOS, CoS trust on
		// SONiC). A refusal of a model labctl makes itself fails
		// TestRoundTripKeepsMeaning and FuzzVariantRendersAsSimulated.
		diff, rendered, _, err := roundTrip(n, qos.Source{Name: "fuzz" + n.ConfigExt(), Data: data})
		if err != nil && rendered != nil {
			t.Fatalf("%s: the rendered config does not parse: %v\ninput:\n%s\nrendered:\n%s", n.Name(), err, data, rendered)
		}
		if len(diff) > 0 {
			t.Fatalf("%s: parsed, rendered and parsed again, the config changes %v\ninput:\n%s\nrendered:\n%s", n.Name(), diff, data, rendered)
		}
	})
}

// FuzzVariantRendersAsSimulated: a variant's switch configs, the lab's
// with a sweep's QoS values on top and ECN or PFC removed (what the
// simulator runs), render to configs that read back the same: the configs
// the run keeps for the variant, and those a live lab is pushed, mean what
// was simulated. Values stay within what a lab spec or sweep may give
// (lab's key docs: kmin_kb above 0 and below kmax_kb, pmax a whole percent,
// detection 100-5000 ms, restoration 100-60000 ms, a 64 KiB-1 GiB pool).
func FuzzVariantRendersAsSimulated(f *testing.F) {
	f.Add(uint8(0), uint8(0xff), uint16(150), uint16(1500), uint8(20), uint32(12<<20), uint16(200), uint16(200), uint8(0), true, true)
	f.Add(uint8(1), uint8(0xff), uint16(150), uint16(1500), uint8(20), uint32(12<<20), uint16(200), uint16(200), uint8(0), true, true)
	f.Add(uint8(1), uint8(0x07), uint16(1), uint16(2), uint8(1), uint32(64<<10), uint16(100), uint16(100), uint8(1), false, true)
	f.Add(uint8(0), uint8(0x3c), uint16(3001), uint16(3002), uint8(99), uint32(1<<30), uint16(4900), uint16(59999), uint8(2), true, false)
	// The switches a variant starts from: each NOS's rendered one, and the
	// real configs that render (their CoS maps, MTUs, per-port watchdogs).
	type base struct {
		n    NOS
		dc   qos.DeviceConfig
		real bool
	}
	// The rendered switches come first, one a NOS in Names' order, so that
	// which 0 and 1 (the seeds, and the corpus entry that found EOS's
	// alert) stay SONiC's and EOS's whatever real configs there are.
	var bases []base
	for _, name := range Names() {
		n := mustLookup(f, name)
		dc, err := n.ParseQoS("leaf1", qos.Source{Name: "leaf1" + n.ConfigExt(), Data: bigSwitch(f, n, 4)})
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, base{n, dc, false})
	}
	for _, name := range Names() {
		n := mustLookup(f, name)
		for _, set := range realConfigSets(f, n) {
			if dc, err := n.ParseQoS("sw", set...); err == nil {
				if _, err := n.RenderQoS(dc); err == nil {
					bases = append(bases, base{n, dc, true})
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which, set uint8, kmin, kmax uint16, pmax uint8, pool uint32, det, rest uint16, action uint8, ecn, pfc bool) {
		b := bases[int(which)%len(bases)]
		n := b.n
		// The swept values, each key set or not by a bit of set.
		var o lab.QoSSpec
		on := func(bit uint) bool { return set&(1<<bit) != 0 }
		if on(0) {
			lo := 1 + int(kmin)%8192
			hi := lo + 1 + int(kmax)%8192
			o.ECN = &lab.ECNSpec{KminKB: &lo, KmaxKB: &hi}
		}
		if on(1) {
			if o.ECN == nil {
				o.ECN = &lab.ECNSpec{}
			}
			p := float64(1+int(pmax)%100) / 100
			o.ECN.Pmax = &p
		}
		if on(2) {
			b := int64(64<<10) + int64(pool)%(1<<30-64<<10+1)
			o.BufferPoolBytes = &b
		}
		wd := &lab.WatchdogSpec{}
		if on(3) {
			d := 100 + int(det)%4901
			wd.DetectionMs = &d
		}
		if on(4) {
			r := 100 + int(rest)%59901
			wd.RestorationMs = &r
		}
		if on(5) {
			a := []string{"drop", "forward", "alert"}[int(action)%3]
			wd.Action = &a
		}
		if on(6) {
			off := false
			wd.Enabled = &off
		}
		if *wd != (lab.WatchdogSpec{}) {
			o.PFCWatchdog = wd
		}
		dc := b.dc.Clone()
		if _, err := dc.ApplyOverrides(o); err != nil {
			if b.real {
				return // a refusal with its reason (thresholds in another unit than bytes)
			}
			t.Fatalf("%s: values a sweep may give refused: %v", n.Name(), err)
		}
		if !ecn {
			dc.RemoveECN()
		}
		if !pfc {
			dc.RemovePFC()
		}
		out, err := n.RenderQoS(dc)
		if err != nil {
			t.Fatalf("%s: the variant's configs (%+v, ecn %v, pfc %v) do not render: %v", n.Name(), o, ecn, pfc, err)
		}
		back, err := n.ParseQoS(dc.Device, qos.Source{Name: dc.Device + n.ConfigExt(), Data: out})
		if err != nil {
			t.Fatalf("%s: the variant's rendered configs do not parse: %v\n%s", n.Name(), err, out)
		}
		var diff []qos.Difference
		for _, d := range qos.Diff([]qos.DeviceConfig{dc}, []qos.DeviceConfig{back}) {
			switch {
			case dc.PlatformBuffer && o.BufferPoolBytes != nil && qos.BufferField(d.Field):
				// EOS configures no buffer pools (the model's are the
				// platform's, PlatformBuffer): a swept pool is the
				// simulator's alone, and the run's record says so
				// (configs.not_in_files).
			case n.Name() == "sonic" && !pfc && d.Field == "speed_gbps":
				// SONiC configs carry a port's speed in its lossless PG
				// profile's name; labctl writes no PORT speed (the
				// switch's own), so without PFC the file has none.
			default:
				diff = append(diff, d)
			}
		}
		if len(diff) > 0 {
			t.Fatalf("%s: the variant (%s, ecn %v, pfc %v) rendered reads back otherwise: %v\n%s", n.Name(), spec(o), ecn, pfc, diff, out)
		}
	})
}

// spec prints a sweep's values for a failure message.
func spec(o lab.QoSSpec) string {
	b, _ := json.Marshal(o)
	return string(b)
}
