package eos

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// shaperHead is a qos profile whose tx-queue 3 is shaped to 40 percent of
// the port's speed, taken by Ethernet1; the cases add lines after it.
const shaperHead = `qos profile ROCE
   qos trust dscp
   tx-queue 3
      no priority
      bandwidth percent 50
      shape rate 40 percent
!
interface Ethernet1
   service-profile ROCE
`

// shaperOf parses cfg and returns the shaper of port's tx-queue q, with
// the model.
func shaperOf(t *testing.T, cfg, port string, q int) (*qos.Shaper, qos.DeviceConfig) {
	t.Helper()
	dc := mustParseEOS(t, cfg)
	p := dc.Port(port)
	if p == nil {
		t.Fatalf("no port %s in %+v", port, dc.Ports)
	}
	return p.Queue(q).Shaper, dc
}

// unsimulatedShaper says whether the model lists a shape rate of level
// ("tx-queue" or "interface") among the statements the simulator does not
// run, and whether lint warns of it (QOS017).
func unsimulatedShaper(dc qos.DeviceConfig, level string) (listed, warned bool) {
	listed = slices.ContainsFunc(dc.Unsimulated, func(u qos.NotRun) bool {
		return strings.HasPrefix(u.Where, level+" ") && strings.Contains(u.Where, "shape rate")
	})
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleDefaultRelied && f.Severity == qos.SevWarning && strings.Contains(f.Message, level) && strings.Contains(f.Message, "shape rate") {
			warned = true
		}
	}
	return listed, warned
}

// A tx-queue's shape rate is the queue's Shaper: kb/s (kbps, or no unit,
// as EOS takes it) or a percent of the port's speed; no shape rate and
// default shape rate remove it; an interface's own line overrides its qos
// profile's; a rate in pps is a packet meter (PacketsPerSec), simulated
// like the others, and replaces or is replaced by a rate in another unit.
func TestParseShapeRate(t *testing.T) {
	queue := func(lines ...string) string {
		return "interface Ethernet2\n   tx-queue 5\n" + "      " + strings.Join(lines, "\n      ") + "\n"
	}
	for _, c := range []struct {
		name, cfg, port string
		q               int
		want            *qos.Shaper
		unsimulated     bool
	}{
		{"percent from the profile", shaperHead, "Ethernet1", 3, &qos.Shaper{Percent: 40}, false},
		{"kbps", queue("shape rate 2500000 kbps"), "Ethernet2", 5, &qos.Shaper{RateKbps: 2500000}, false},
		{"no unit is kbps", queue("shape rate 1000000"), "Ethernet2", 5, &qos.Shaper{RateKbps: 1000000}, false},
		{"percent", queue("shape rate 25 percent"), "Ethernet2", 5, &qos.Shaper{Percent: 25}, false},
		{"burst-size not read", queue("shape rate 1000000 kbps burst-size 64 kbytes"), "Ethernet2", 5, &qos.Shaper{RateKbps: 1000000}, false},
		{"burst-size without a unit", queue("shape rate 1000000 burst-size 64 kbytes"), "Ethernet2", 5, &qos.Shaper{RateKbps: 1000000}, false},
		{"the last line wins", queue("shape rate 10 percent", "shape rate 30 percent"), "Ethernet2", 5, &qos.Shaper{Percent: 30}, false},
		{"pps", queue("shape rate 100000 pps"), "Ethernet2", 5, &qos.Shaper{PacketsPerSec: 100000}, false},
		{"pps burst-size not read", queue("shape rate 100000 pps burst-size 64 packets"), "Ethernet2", 5, &qos.Shaper{PacketsPerSec: 100000}, false},
		{"pps after kbps", queue("shape rate 1000000 kbps", "shape rate 5000 pps"), "Ethernet2", 5, &qos.Shaper{PacketsPerSec: 5000}, false},
		{"percent after pps", queue("shape rate 5000 pps", "shape rate 30 percent"), "Ethernet2", 5, &qos.Shaper{Percent: 30}, false},
		{"no shape rate after pps", queue("shape rate 5000 pps", "no shape rate"), "Ethernet2", 5, nil, false},
		{"no shape rate", queue("shape rate 25 percent", "no shape rate"), "Ethernet2", 5, nil, false},
		{"default shape rate", queue("shape rate 25 percent", "default shape rate"), "Ethernet2", 5, nil, false},
		{"shape rate after no shape rate", queue("no shape rate", "shape rate 20 percent"), "Ethernet2", 5, &qos.Shaper{Percent: 20}, false},
		{"interface overrides the profile's", shaperHead + "   tx-queue 3\n      shape rate 5000000 kbps\n", "Ethernet1", 3, &qos.Shaper{RateKbps: 5000000}, false},
		{"interface no shape rate overrides the profile's", shaperHead + "   tx-queue 3\n      no shape rate\n", "Ethernet1", 3, nil, false},
		{"interface pps overrides the profile's", shaperHead + "   tx-queue 3\n      shape rate 1000 pps\n", "Ethernet1", 3, &qos.Shaper{PacketsPerSec: 1000}, false},
		{"profile pps", strings.Replace(shaperHead, "shape rate 40 percent", "shape rate 2000 pps", 1), "Ethernet1", 3, &qos.Shaper{PacketsPerSec: 2000}, false},
		{"interface no shape rate on another queue keeps the profile's", shaperHead + "   tx-queue 4\n      no shape rate\n", "Ethernet1", 3, &qos.Shaper{Percent: 40}, false},
		{"profile no shape rate after its own", strings.Replace(shaperHead, "      shape rate 40 percent\n", "      shape rate 40 percent\n      no shape rate\n", 1), "Ethernet1", 3, nil, false},
		{"interface-level shape rate shapes the port, not a queue", "interface Ethernet2\n   shape rate 80 percent\n   tx-queue 5\n      no priority\n", "Ethernet2", 5, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, dc := shaperOf(t, c.cfg, c.port, c.q)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s tx-queue %d shaper = %+v, want %+v", c.port, c.q, got, c.want)
			}
			for _, p := range dc.Ports {
				for _, q := range p.Queues {
					if q.Shaper != nil && (p.Name != c.port || q.Queue != c.q) {
						t.Errorf("%s tx-queue %d is shaped (%+v); only %s tx-queue %d may be", p.Name, q.Queue, q.Shaper, c.port, c.q)
					}
				}
			}
			listed, warned := unsimulatedShaper(dc, "tx-queue")
			if listed != c.unsimulated || warned != c.unsimulated {
				t.Errorf("tx-queue shape rate among the unsimulated statements: %v, lint warning (QOS017): %v; want %v (unsimulated %+v)", listed, warned, c.unsimulated, dc.Unsimulated)
			}
			for _, n := range dc.Fields {
				if strings.Contains(n.Field, "shape rate") && n.Use == qos.UseIgnored && !c.unsimulated && strings.HasPrefix(n.Field, "tx-queue") {
					t.Errorf("field note %+v: a simulated shape rate line is listed as ignored", n)
				}
			}
		})
	}
	// The interface-level shape rate is the port's shaper, not a
	// queue's (TestParsePortShapeRate).
	_, dc := shaperOf(t, "interface Ethernet2\n   shape rate 80 percent\n   qos trust dscp\n", "Ethernet2", 0)
	if sh := dc.Port("Ethernet2").Shaper; sh == nil || *sh != (qos.Shaper{Percent: 80}) {
		t.Errorf("Ethernet2 port shaper = %+v, want 80 percent", sh)
	}
	// A shaped tx-queue 7 is named among the settings Sand platforms do
	// not take before EOS 4.33.0F.
	if _, notes := parseNotes(t, "interface Ethernet2\n   tx-queue 7\n      shape rate 10 percent\n"); !strings.Contains(notes, "tx-queue 7 is configured") {
		t.Errorf("a shaped tx-queue 7 is not noted; QOS000 notes:\n%s", notes)
	}
}

// shapeRateErrors are shape rates that are no rate, each with what the
// error at its line says; level is what the line shapes ("a tx-queue",
// "an interface"), as the unknown unit's error names it.
func shapeRateErrors(level string) []struct{ name, line, want string } {
	return []struct{ name, line, want string }{
		{"zero kbps", "shape rate 0 kbps", `"0" is not a whole number of kbps above 0`},
		{"zero without a unit", "shape rate 0", `"0" is not a whole number of kbps above 0`},
		{"not a number", "shape rate fast", `"fast" is not a whole number of kbps`},
		{"decimal", "shape rate 1.5 kbps", `"1.5" is not a whole number of kbps`},
		{"negative", "shape rate -5 kbps", `"-5" is not a whole number of kbps`},
		{"zero percent", "shape rate 0 percent", `"0" is not a percent 1-100`},
		{"percent above 100", "shape rate 101 percent", `"101" is not a percent 1-100`},
		{"zero pps", "shape rate 0 pps", `"0" is not a whole number of pps above 0`},
		{"unknown unit", "shape rate 10 gbps", `unit "gbps": EOS shapes ` + level + ` in kbps, percent or pps`},
		{"no rate", "shape rate", "shape rate has no rate"},
	}
}

// A shape rate that is no rate is an error at its line, with the fix, as
// EOS rejects it; a queue must not silently lose or keep a shaper.
func TestParseShapeRateErrors(t *testing.T) {
	for _, c := range shapeRateErrors("a tx-queue") {
		t.Run(c.name, func(t *testing.T) {
			cfg := "interface Ethernet1\n   tx-queue 3\n      " + c.line + "\n"
			_, err := Parse("x", qos.Source{Name: "x.cfg", Data: []byte(cfg)})
			if err == nil || !strings.Contains(err.Error(), "x.cfg:3: ") || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "(fix: ") {
				t.Errorf("err = %v, want one at x.cfg:3 containing %q and a fix", err, c.want)
			}
		})
	}
}

// A shaped queue renders as its tx-queue's shape rate, and the rendered
// config parses back to the same model, in kbps, in percent and in pps.
func TestRenderParseRoundTripShaper(t *testing.T) {
	dc := cfgVariants(t)["ecn-on_pfc-on"][0]
	if len(dc.Ports) < 2 {
		t.Fatalf("want two ports, have %d", len(dc.Ports))
	}
	shapers := []*qos.Shaper{{RateKbps: 25_000_000}, {Percent: 40}}
	for i, sh := range shapers {
		p := &dc.Ports[i]
		p.Queues = slices.Clone(p.Queues)
		p.Queues[3].Shaper = sh
		p.Queues[0].Shaper = &qos.Shaper{Percent: 100}
	}
	// A packet meter on another queue.
	pps := qos.Shaper{PacketsPerSec: 150_000}
	dc.Ports[0].Queues[4].Shaper = &pps
	out, got := renderParseBack(t, dc)
	for _, want := range []string{"      shape rate 25000000 kbps\n", "      shape rate 40 percent\n", "      shape rate 100 percent\n", "      shape rate 150000 pps\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendered config lacks %q:\n%s", want, out)
		}
	}
	for i, sh := range shapers {
		if q := got.Port(dc.Ports[i].Name).Queue(3); q.Shaper == nil || *q.Shaper != *sh {
			t.Errorf("%s tx-queue 3 shaper read back = %+v, want %+v", dc.Ports[i].Name, q.Shaper, sh)
		}
	}
	if q := got.Port(dc.Ports[0].Name).Queue(4); q.Shaper == nil || *q.Shaper != pps {
		t.Errorf("%s tx-queue 4 shaper read back = %+v, want %+v", dc.Ports[0].Name, q.Shaper, pps)
	}
	dc.Ports[0].Queues[4].Shaper = nil

	// A burst is not written: a comment says so, and the rate stays.
	dc.Ports[0].Queues[3].Shaper = &qos.Shaper{RateKbps: 1000, BurstBytes: 4096}
	out, err := Render(dc)
	if err != nil || !strings.Contains(string(out), "      shape rate 1000 kbps\n      ! shaper burst of 4096 bytes not written") {
		t.Errorf("shaper with a burst: err %v\n%s", err, out)
	}
	dc.Ports[0].Queues[3].Shaper = &qos.Shaper{PacketsPerSec: 1000, BurstPackets: 32}
	out, err = Render(dc)
	if err != nil || !strings.Contains(string(out), "      shape rate 1000 pps\n      ! shaper burst of 32 packets not written") {
		t.Errorf("packet shaper with a burst: err %v\n%s", err, out)
	}
	// A shaper without a rate has no EOS form.
	dc.Ports[0].Queues[3].Shaper = &qos.Shaper{}
	if _, err := Render(dc); err == nil || !strings.Contains(err.Error(), "tx-queue 3") {
		t.Errorf("shaper without a rate: err = %v, want one naming tx-queue 3", err)
	}
}

// portShaperHead is a qos profile that shapes the port to 80 percent of
// its speed and tx-queue 3 to 40 percent, taken by Ethernet1; the cases
// add lines after it.
const portShaperHead = `qos profile ROCE
   qos trust dscp
   shape rate 80 percent
   tx-queue 3
      no priority
      bandwidth percent 50
      shape rate 40 percent
!
interface Ethernet1
   service-profile ROCE
`

// An interface's or qos profile's shape rate (above its tx-queues) is the
// port's Shaper, all its queues together: kb/s (kbps, or no unit, as EOS
// takes it) or a percent of the port's speed; a profile's applies to the
// interfaces that take it and an interface's own line overrides it; no
// shape rate and default shape rate remove it; a rate in pps is a packet
// meter (PacketsPerSec), simulated like the others. A queue's shaper
// beside it stays the queue's.
func TestParsePortShapeRate(t *testing.T) {
	intf := func(lines ...string) string {
		return "interface Ethernet2\n   qos trust dscp\n   " + strings.Join(lines, "\n   ") + "\n"
	}
	for _, c := range []struct {
		name, cfg, port string
		want            *qos.Shaper
		unsimulated     bool
		// queue3 is tx-queue 3's shaper on the port.
		queue3 *qos.Shaper
	}{
		{"kbps", intf("shape rate 200000 kbps"), "Ethernet2", &qos.Shaper{RateKbps: 200000}, false, nil},
		{"no unit is kbps", intf("shape rate 1000000"), "Ethernet2", &qos.Shaper{RateKbps: 1000000}, false, nil},
		{"percent", intf("shape rate 10 percent"), "Ethernet2", &qos.Shaper{Percent: 10}, false, nil},
		{"burst-size not read", intf("shape rate 1000000 kbps burst-size 64 kbytes"), "Ethernet2", &qos.Shaper{RateKbps: 1000000}, false, nil},
		{"the last line wins", intf("shape rate 10 percent", "shape rate 30 percent"), "Ethernet2", &qos.Shaper{Percent: 30}, false, nil},
		{"pps", intf("shape rate 100000 pps"), "Ethernet2", &qos.Shaper{PacketsPerSec: 100000}, false, nil},
		{"pps burst-size not read", intf("shape rate 100000 pps burst-size 64 packets"), "Ethernet2", &qos.Shaper{PacketsPerSec: 100000}, false, nil},
		{"pps after percent", intf("shape rate 10 percent", "shape rate 5000 pps"), "Ethernet2", &qos.Shaper{PacketsPerSec: 5000}, false, nil},
		{"kbps after pps", intf("shape rate 5000 pps", "shape rate 200000 kbps"), "Ethernet2", &qos.Shaper{RateKbps: 200000}, false, nil},
		{"no shape rate after pps", intf("shape rate 5000 pps", "no shape rate"), "Ethernet2", nil, false, nil},
		{"no shape rate", intf("shape rate 25 percent", "no shape rate"), "Ethernet2", nil, false, nil},
		{"default shape rate", intf("shape rate 25 percent", "default shape rate"), "Ethernet2", nil, false, nil},
		{"shape rate after no shape rate", intf("no shape rate", "shape rate 20 percent"), "Ethernet2", &qos.Shaper{Percent: 20}, false, nil},
		{"a port-channel shaped is a port", "interface Port-Channel3\n   shape rate 50 percent\n", "Port-Channel3", &qos.Shaper{Percent: 50}, false, nil},
		{"from the profile, beside a queue's", portShaperHead, "Ethernet1", &qos.Shaper{Percent: 80}, false, &qos.Shaper{Percent: 40}},
		{"interface overrides the profile's", portShaperHead + "   shape rate 5000000 kbps\n", "Ethernet1", &qos.Shaper{RateKbps: 5000000}, false, &qos.Shaper{Percent: 40}},
		{"interface no shape rate overrides the profile's", portShaperHead + "   no shape rate\n", "Ethernet1", nil, false, &qos.Shaper{Percent: 40}},
		{"interface default shape rate overrides the profile's", portShaperHead + "   default shape rate\n", "Ethernet1", nil, false, &qos.Shaper{Percent: 40}},
		{"interface pps overrides the profile's", portShaperHead + "   shape rate 1000 pps\n", "Ethernet1", &qos.Shaper{PacketsPerSec: 1000}, false, &qos.Shaper{Percent: 40}},
		{"profile pps", strings.Replace(portShaperHead, "shape rate 80 percent", "shape rate 3000 pps", 1), "Ethernet1", &qos.Shaper{PacketsPerSec: 3000}, false, &qos.Shaper{Percent: 40}},
		{"interface no shape rate overrides the profile's pps", strings.Replace(portShaperHead, "shape rate 80 percent", "shape rate 3000 pps", 1) + "   no shape rate\n", "Ethernet1", nil, false, &qos.Shaper{Percent: 40}},
		{"profile no shape rate after its own", strings.Replace(portShaperHead, "   shape rate 80 percent\n", "   shape rate 80 percent\n   no shape rate\n", 1), "Ethernet1", nil, false, &qos.Shaper{Percent: 40}},
		{"a queue's no shape rate leaves the port's", portShaperHead + "   tx-queue 3\n      no shape rate\n", "Ethernet1", &qos.Shaper{Percent: 80}, false, nil},
		{"the port's no shape rate leaves the queue's", "interface Ethernet2\n   shape rate 50 percent\n   tx-queue 3\n      shape rate 40 percent\n   !\n   no shape rate\n", "Ethernet2", nil, false, &qos.Shaper{Percent: 40}},
		// After a tx-queue block, a shape rate at the interface's
		// indentation is the port's; deeper, the queue's.
		{"at the interface's indentation after a tx-queue", "interface Ethernet2\n   tx-queue 3\n      no priority\n   shape rate 60 percent\n", "Ethernet2", &qos.Shaper{Percent: 60}, false, nil},
		{"deeper after a tx-queue", "interface Ethernet2\n   tx-queue 3\n      no priority\n      shape rate 60 percent\n", "Ethernet2", nil, false, &qos.Shaper{Percent: 60}},
		// Without indentation, EOS applies it in the mode the commands
		// before it entered: the tx-queue's; before one, the interface's.
		{"flat file, before a tx-queue", "interface Ethernet2\nshape rate 70 percent\ntx-queue 3\nno priority\n", "Ethernet2", &qos.Shaper{Percent: 70}, false, nil},
		{"flat file, after a tx-queue", "interface Ethernet2\ntx-queue 3\nno priority\nshape rate 70 percent\n", "Ethernet2", nil, false, &qos.Shaper{Percent: 70}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dc := mustParseEOS(t, c.cfg)
			p := dc.Port(c.port)
			if p == nil {
				t.Fatalf("no port %s in %+v", c.port, dc.Ports)
			}
			if !reflect.DeepEqual(p.Shaper, c.want) {
				t.Errorf("%s port shaper = %+v, want %+v", c.port, p.Shaper, c.want)
			}
			if got := p.Queue(3).Shaper; !reflect.DeepEqual(got, c.queue3) {
				t.Errorf("%s tx-queue 3 shaper = %+v, want %+v", c.port, got, c.queue3)
			}
			for _, o := range dc.Ports {
				if o.Name != c.port && o.Shaper != nil {
					t.Errorf("%s is shaped (%+v); only %s may be", o.Name, o.Shaper, c.port)
				}
				for _, q := range o.Queues {
					if q.Shaper != nil && (o.Name != c.port || q.Queue != 3) {
						t.Errorf("%s tx-queue %d is shaped (%+v)", o.Name, q.Queue, q.Shaper)
					}
				}
			}
			if dc.DefaultPort != nil && dc.DefaultPort.Shaper != nil {
				t.Errorf("the default port is shaped: %+v", dc.DefaultPort.Shaper)
			}
			listed, warned := unsimulatedShaper(dc, "interface")
			if listed != c.unsimulated || warned != c.unsimulated {
				t.Errorf("interface shape rate among the unsimulated statements: %v, lint warning (QOS017): %v; want %v (unsimulated %+v)", listed, warned, c.unsimulated, dc.Unsimulated)
			}
			for _, n := range dc.Fields {
				if strings.Contains(n.Field, "shape rate") && n.Use == qos.UseIgnored && !c.unsimulated {
					t.Errorf("field note %+v: a simulated shape rate line is listed as ignored", n)
				}
			}
			if p.Shaper != nil && c.want == nil {
				t.Errorf("an unshaped port has shaper %+v", p.Shaper)
			}
		})
	}
}

// A port's shape rate that is no rate is an error at its line, with the
// fix, as EOS rejects it, in an interface and in a qos profile.
func TestParsePortShapeRateErrors(t *testing.T) {
	for _, c := range shapeRateErrors("an interface") {
		for _, head := range []string{"interface Ethernet1\n", "qos profile ROCE\n"} {
			t.Run(c.name+"/"+strings.Fields(head)[0], func(t *testing.T) {
				cfg := "!\n" + head + "   " + c.line + "\n   qos trust dscp\n"
				_, err := Parse("x", qos.Source{Name: "x.cfg", Data: []byte(cfg)})
				if err == nil || !strings.Contains(err.Error(), "x.cfg:3: ") || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "(fix: ") {
					t.Errorf("err = %v, want one at x.cfg:3 containing %q and a fix", err, c.want)
				}
				if err != nil && strings.Contains(err.Error(), "queue") {
					t.Errorf("err = %v: a port's shape rate named as a queue's", err)
				}
			})
		}
	}
}

// A port's shaper renders as its profile's shape rate, beside a queue's
// shaper, and the rendered config parses back to the same model, in
// kbps, in percent and in pps; ports shaped differently take different
// profiles.
func TestRenderParseRoundTripPortShaper(t *testing.T) {
	dc := cfgVariants(t)["ecn-on_pfc-on"][0]
	if len(dc.Ports) < 2 {
		t.Fatalf("want two ports, have %d", len(dc.Ports))
	}
	unshaped, err := Render(dc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(unshaped), "shape rate") {
		t.Fatalf("an unshaped model renders a shape rate:\n%s", unshaped)
	}
	shapers := []*qos.Shaper{{RateKbps: 150_000_000}, {Percent: 80}}
	for i, sh := range shapers {
		dc.Ports[i].Shaper = sh
	}
	// A port and a queue shaper together.
	dc.Ports[1].Queues = slices.Clone(dc.Ports[1].Queues)
	dc.Ports[1].Queues[3].Shaper = &qos.Shaper{Percent: 40}
	out, got := renderParseBack(t, dc)
	for _, want := range []string{"\n   shape rate 150000000 kbps\n", "\n   shape rate 80 percent\n", "\n      shape rate 40 percent\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendered config lacks %q:\n%s", want, out)
		}
	}
	for i, sh := range shapers {
		if p := got.Port(dc.Ports[i].Name); p.Shaper == nil || *p.Shaper != *sh {
			t.Errorf("%s port shaper read back = %+v, want %+v", dc.Ports[i].Name, p.Shaper, sh)
		}
	}
	if q := got.Port(dc.Ports[1].Name).Queue(3); q.Shaper == nil || *q.Shaper != (qos.Shaper{Percent: 40}) {
		t.Errorf("%s tx-queue 3 shaper read back = %+v, want 40 percent", dc.Ports[1].Name, q.Shaper)
	}
	// A packet meter, beside the other port's rate in kbps.
	dc.Ports[1].Shaper = &qos.Shaper{PacketsPerSec: 2_000_000}
	out, got = renderParseBack(t, dc)
	if !strings.Contains(string(out), "\n   shape rate 2000000 pps\n") {
		t.Errorf("rendered config lacks shape rate 2000000 pps:\n%s", out)
	}
	if p := got.Port(dc.Ports[1].Name); p.Shaper == nil || *p.Shaper != (qos.Shaper{PacketsPerSec: 2_000_000}) {
		t.Errorf("%s port shaper read back = %+v, want 2000000 packets/s", dc.Ports[1].Name, p.Shaper)
	}
	if p := got.Port(dc.Ports[0].Name); p.Shaper == nil || *p.Shaper != *shapers[0] {
		t.Errorf("%s port shaper read back = %+v, want %+v", dc.Ports[0].Name, p.Shaper, shapers[0])
	}
	// Ports alike but for their shapers take a profile each.
	two := cfgVariants(t)["ecn-on_pfc-on"][0]
	two.Ports = []qos.PortConfig{two.Ports[0], two.Ports[0]}
	two.Ports[1].Name = "Ethernet99"
	two.Ports[1].Shaper = &qos.Shaper{Percent: 50}
	out, err = Render(two)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := Parse(two.Device, qos.Source{Name: "two.cfg", Data: out}); err != nil || back.Port(two.Ports[0].Name).Shaper != nil ||
		back.Port("Ethernet99").Shaper == nil || *back.Port("Ethernet99").Shaper != (qos.Shaper{Percent: 50}) {
		t.Errorf("a shaped and an unshaped port alike otherwise: err %v, config:\n%s", err, out)
	}

	// A burst is not written: a comment says so, and the rate stays.
	dc.Ports[0].Shaper = &qos.Shaper{RateKbps: 1000, BurstBytes: 4096}
	out, err = Render(dc)
	if err != nil || !strings.Contains(string(out), "\n   shape rate 1000 kbps\n   ! shaper burst of 4096 bytes not written") {
		t.Errorf("port shaper with a burst: err %v\n%s", err, out)
	}
	dc.Ports[0].Shaper = &qos.Shaper{PacketsPerSec: 1000, BurstPackets: 32}
	out, err = Render(dc)
	if err != nil || !strings.Contains(string(out), "\n   shape rate 1000 pps\n   ! shaper burst of 32 packets not written") {
		t.Errorf("port packet shaper with a burst: err %v\n%s", err, out)
	}
	// A shaper without a rate has no EOS form.
	dc.Ports[0].Shaper = &qos.Shaper{}
	if _, err := Render(dc); err == nil || !strings.Contains(err.Error(), dc.Ports[0].Name) || strings.Contains(err.Error(), "tx-queue") {
		t.Errorf("port shaper without a rate: err = %v, want one naming port %s and no tx-queue", err, dc.Ports[0].Name)
	}
}
