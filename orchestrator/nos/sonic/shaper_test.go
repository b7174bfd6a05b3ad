package sonic

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A queue's SCHEDULER pir (bytes per second) and pbs (bytes) are its
// shaper, in kb/s and bytes; pir 0 or none leaves it unshaped.
func TestParseQueueShaper(t *testing.T) {
	db := `{"QUEUE": {"Ethernet0|3": {"scheduler": "shaped"}, "Ethernet0|4": {"scheduler": "zero"},
			"Ethernet0|5": {"scheduler": "plain"}, "Ethernet0|6": {"scheduler": "strict"}},
		"SCHEDULER": {
			"shaped": {"type": "DWRR", "weight": "50", "meter_type": "bytes", "pir": "6250000000", "pbs": "65536"},
			"zero": {"type": "DWRR", "weight": "5", "pir": "0", "pbs": "65536"},
			"plain": {"type": "DWRR", "weight": "5"},
			"strict": {"type": "STRICT", "pir": "125000000"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet0")
	q3 := p.Queue(3)
	if q3.Shaper == nil || *q3.Shaper != (qos.Shaper{RateKbps: 50_000_000, BurstBytes: 65536}) {
		t.Errorf("queue 3 shaper = %+v, want 50 Gb/s (50000000 kb/s) with a 65536-byte burst", q3.Shaper)
	}
	if q3.Weight != 50 || q3.Strict {
		t.Errorf("queue 3: weight %d, strict %v; the shaper changed its scheduling", q3.Weight, q3.Strict)
	}
	for _, q := range []int{4, 5} {
		if s := p.Queue(q).Shaper; s != nil {
			t.Errorf("queue %d (pir 0 or none) is shaped: %+v", q, s)
		}
	}
	// No pbs: a burst of 0; no meter_type: bytes, SONiC's default.
	q6 := p.Queue(6)
	if q6.Shaper == nil || *q6.Shaper != (qos.Shaper{RateKbps: 1_000_000}) || !q6.Strict {
		t.Errorf("queue 6 = strict %v, shaper %+v; want strict, shaped to 1 Gb/s with no burst", q6.Strict, q6.Shaper)
	}
	if !slices.ContainsFunc(dc.Defaults, func(d qos.Default) bool {
		return d.Field == "SCHEDULER meter_type" && strings.HasPrefix(d.Value, "bytes")
	}) {
		t.Errorf("the missing meter_type is not noted as SONiC's default, bytes: %+v", dc.Defaults)
	}
	// A byte-metered shaper is simulated: neither a setting the
	// simulator does not run (QOS017) nor a field it ignores (QOS011).
	for _, u := range dc.Unsimulated {
		if strings.HasPrefix(u.Where, "SCHEDULER") {
			t.Errorf("a byte-metered shaper is noted as not simulated: %+v", u)
		}
	}
	for _, f := range dc.Fields {
		if strings.HasPrefix(f.Field, "SCHEDULER") {
			t.Errorf("a scheduler field is listed as not simulated: %+v", f)
		}
	}
}

// A packet-metered shaper's pir is in packets per second and its pbs in
// packets: the queue's shaper is a packet meter (PacketsPerSec,
// BurstPackets), simulated, so neither noted as not simulated nor
// warned of (QOS017); pir 0 leaves the queue unshaped.
func TestParsePacketMeteredShaper(t *testing.T) {
	db := `{"QUEUE": {"Ethernet0|3": {"scheduler": "pps"}, "Ethernet4|3": {"scheduler": "pps"}, "Ethernet4|4": {"scheduler": "pps_off"}, "Ethernet4|5": {"scheduler": "pps_noburst"}},
		"SCHEDULER": {"pps": {"type": "DWRR", "weight": "50", "meter_type": "packets", "pir": "1000000", "pbs": "64"},
			"pps_off": {"type": "DWRR", "weight": "5", "meter_type": "packets", "pir": "0"},
			"pps_noburst": {"type": "DWRR", "weight": "5", "meter_type": "packets", "pir": "2000"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"Ethernet0", "Ethernet4"} {
		if s := dc.Port(port).Queue(3).Shaper; s == nil || *s != (qos.Shaper{PacketsPerSec: 1000000, BurstPackets: 64}) {
			t.Errorf("%s queue 3 shaper = %+v, want 1000000 packets/s, burst 64 packets", port, s)
		}
	}
	if s := dc.Port("Ethernet4").Queue(4).Shaper; s != nil {
		t.Errorf("a packet-metered pir 0 shapes the queue: %+v", s)
	}
	if s := dc.Port("Ethernet4").Queue(5).Shaper; s == nil || *s != (qos.Shaper{PacketsPerSec: 2000}) {
		t.Errorf("Ethernet4 queue 5 shaper = %+v, want 2000 packets/s, no burst", s)
	}
	wantNoPacketMeterNote(t, dc)
}

// wantNoPacketMeterNote fails the test if dc notes a SCHEDULER as not
// simulated, or lint warns (QOS017) of one: a packet meter is simulated.
func wantNoPacketMeterNote(t *testing.T, dc qos.DeviceConfig) {
	t.Helper()
	for _, u := range dc.Unsimulated {
		if strings.HasPrefix(u.Where, "SCHEDULER") {
			t.Errorf("a packet-metered shaper is noted as not simulated: %+v", u)
		}
	}
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleDefaultRelied && strings.Contains(f.Message, "meter_type") {
			t.Errorf("lint warns of a packet-metered shaper: %+v", f)
		}
	}
}

// A SCHEDULER value orchagent reads otherwise than it reads (std::stoull
// reads "50G" as 50, "-1" as 2^64-1) is refused at its line, with the
// fix, when a queue names the entry. A meter_type it does not know
// throws in orchagent and stalls the table (TestObjectStall).
func TestParseShaperErrors(t *testing.T) {
	for _, c := range []struct{ name, field, value, want string }{
		{"pir not a number", "pir", "50G", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pir "50G" is not a non-negative integer (fix: write the peak rate in bytes per second as a whole number`},
		{"pir negative", "pir", "-1", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pir "-1" is not a non-negative integer (fix:`},
		{"pbs not a number", "pbs", "64k", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pbs "64k" is not a non-negative integer (fix: write the burst in bytes as a whole number`},
		{"packets pir not a number", "pir", "1M", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pir "1M" is not a non-negative integer (fix: write the peak rate in packets per second as a whole number`},
		{"packets pbs not a number", "pbs", "1.5", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pbs "1.5" is not a non-negative integer (fix: write the burst in packets as a whole number`},
	} {
		db := "{\n  \"SCHEDULER\": {\n    \"s\": {\n      \"type\": \"DWRR\",\n      \"weight\": \"50\",\n      \"" + c.field + "\": \"" + c.value + "\"\n    }\n  },\n  \"QUEUE\": {\"Ethernet0|3\": {\"scheduler\": \"s\"}}\n}\n"
		if c.field != "pir" {
			db = strings.Replace(db, `"weight": "50",`, `"weight": "50", "pir": "6250000000",`, 1)
		}
		if strings.HasPrefix(c.name, "packets") {
			db = strings.Replace(db, `"type": "DWRR",`, `"type": "DWRR", "meter_type": "packets",`, 1)
		}
		_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// cfgShapedConfig is a rendered profile's first switch with shapers on
// queues of two ports: a weighted queue with a burst, a strict one
// without, and a third at another rate.
func cfgShapedConfig(t *testing.T) qos.DeviceConfig {
	t.Helper()
	dc := cfgVariants(t)["ecn-on_pfc-on"][0].Clone()
	if len(dc.Ports) < 2 {
		t.Fatalf("%s has %d ports, want 2", dc.Device, len(dc.Ports))
	}
	shape := func(p *qos.PortConfig, queue int, s qos.Shaper) {
		t.Helper()
		for i := range p.Queues {
			if p.Queues[i].Queue == queue {
				p.Queues[i].Shaper = &s
				return
			}
		}
		t.Fatalf("%s has no queue %d", p.Name, queue)
	}
	shape(&dc.Ports[0], 3, qos.Shaper{RateKbps: 50_000_000, BurstBytes: 65536})
	shape(&dc.Ports[0], 6, qos.Shaper{RateKbps: 1_000_000})
	shape(&dc.Ports[1], 3, qos.Shaper{RateKbps: 25_000_000, BurstBytes: 65536})
	return dc
}

// A shaped queue renders to a SCHEDULER entry of its own that parses
// back to the same shaper.
func TestRenderParseRoundTripShaped(t *testing.T) {
	dc := cfgShapedConfig(t)
	out, doc := renderDoc(t, dc)
	p0, p1 := dc.Ports[0].Name, dc.Ports[1].Name
	for key, want := range map[string]map[string]string{
		p0 + "|3": {"type": "DWRR", "weight": "50", "meter_type": "bytes", "pir": "6250000000", "pbs": "65536"},
		p0 + "|6": {"type": "STRICT", "meter_type": "bytes", "pir": "125000000"},
		p1 + "|3": {"type": "DWRR", "weight": "50", "meter_type": "bytes", "pir": "3125000000", "pbs": "65536"},
	} {
		name := doc["QUEUE"][key]["scheduler"]
		if got := doc["SCHEDULER"][name]; !reflect.DeepEqual(got, want) {
			t.Errorf("QUEUE|%s names SCHEDULER|%s = %v, want %v", key, name, got, want)
		}
	}
	if name := doc["QUEUE"][p1+"|6"]["scheduler"]; name != "scheduler.strict" {
		t.Errorf("an unshaped strict queue names %q, want scheduler.strict", name)
	}
	if got := parseBack(t, dc, out); len(got.Unsimulated) > 0 {
		t.Errorf("the rendered shapers are noted as not simulated: %+v", got.Unsimulated)
	}
}

// SONiC has no shaper in percent: one is written at its rate on the
// port's speed, and refused on a port whose speed is not known.
func TestRenderPercentShaper(t *testing.T) {
	dc := cfgVariants(t)["ecn-on_pfc-on"][0].Clone()
	p := &dc.Ports[0]
	for i := range p.Queues {
		if p.Queues[i].Queue == 3 {
			p.Queues[i].Shaper = &qos.Shaper{Percent: 25, BurstBytes: 4096}
		}
	}
	p.SpeedGbps = 400
	doc, err := BuildDoc(dc)
	if err != nil {
		t.Fatal(err)
	}
	// 25% of 400 Gb/s: 100 Gb/s, 12.5 GB/s.
	name := doc["QUEUE"][p.Name+"|3"]["scheduler"]
	if e := doc["SCHEDULER"][name]; e["pir"] != "12500000000" || e["pbs"] != "4096" || e["meter_type"] != "bytes" {
		t.Errorf("SCHEDULER|%s = %v, want pir 12500000000, pbs 4096, meter_type bytes", name, e)
	}
	p.SpeedGbps = 0
	_, err = BuildDoc(dc)
	if want := "render sonic config for " + dc.Device + " " + p.Name + " queue 3: a shaper of 25% of the port's speed"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// A port's PORT_QOS_MAP scheduler names the SCHEDULER whose pir and pbs
// shape the whole port, read as a queue's are; a queue's shaper on the
// same port stays the queue's. An entry keyed by several ports shapes
// each; the last entry naming a scheduler sets it; the global entry
// shapes no port.
func TestParsePortShaper(t *testing.T) {
	db := `{"PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE", "scheduler": "port_shaper"},
			"Ethernet0": {"pfc_enable": "3", "scheduler": "port_shaper"},
			"Ethernet4,Ethernet8": {"pfc_enable": "3", "scheduler": "port_slow"},
			"Ethernet12": {"scheduler": "port_slow"}, "Ethernet12,Ethernet16": {"pfc_enable": "3"},
			"Ethernet20": {"scheduler": "port_zero"}, "Ethernet24": {"pfc_enable": "3"}},
		"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
		"QUEUE": {"Ethernet0|3": {"scheduler": "queue_shaped"}},
		"SCHEDULER": {
			"port_shaper": {"meter_type": "bytes", "pir": "6250000000", "pbs": "65536"},
			"port_slow": {"type": "DWRR", "weight": "1", "pir": "1250000000"},
			"port_zero": {"meter_type": "bytes", "pir": "0", "pbs": "65536"},
			"queue_shaped": {"type": "DWRR", "weight": "50", "meter_type": "bytes", "pir": "3125000000", "pbs": "4096"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	for port, want := range map[string]*qos.Shaper{
		"Ethernet0":  {RateKbps: 50_000_000, BurstBytes: 65536},
		"Ethernet4":  {RateKbps: 10_000_000},
		"Ethernet8":  {RateKbps: 10_000_000},
		"Ethernet12": {RateKbps: 10_000_000},
		"Ethernet16": nil,
		"Ethernet20": nil,
		"Ethernet24": nil,
	} {
		p := dc.Port(port)
		if p == nil {
			t.Fatalf("no port %s", port)
		}
		if !reflect.DeepEqual(p.Shaper, want) {
			t.Errorf("%s port shaper = %+v, want %+v", port, p.Shaper, want)
		}
	}
	p := dc.Port("Ethernet0")
	if got := p.Origins["shaper"]; got != "SCHEDULER|port_shaper via PORT_QOS_MAP|Ethernet0" {
		t.Errorf("Ethernet0's shaper origin = %q", got)
	}
	if got := dc.Port("Ethernet4").Origins["shaper"]; got != "SCHEDULER|port_slow via PORT_QOS_MAP|Ethernet4,Ethernet8" {
		t.Errorf("Ethernet4's shaper origin = %q", got)
	}
	// The queue's shaper and the port's are each their own.
	if s := p.Queue(3).Shaper; s == nil || *s != (qos.Shaper{RateKbps: 25_000_000, BurstBytes: 4096}) || p.Queue(3).Weight != 50 {
		t.Errorf("Ethernet0 queue 3 = weight %d, shaper %+v; want weight 50 shaped to 25 Gb/s, 4096-byte burst", p.Queue(3).Weight, s)
	}
	for q := range qos.NumTC {
		if q != 3 && p.Queue(q).Shaper != nil {
			t.Errorf("Ethernet0 queue %d took the port's shaper: %+v", q, p.Queue(q).Shaper)
		}
	}
	if !slices.Equal(p.PFCPriorities, []int{3}) {
		t.Errorf("the port's scheduler changed its PFC: %v", p.PFCPriorities)
	}
	if dc.DefaultPort != nil && dc.DefaultPort.Shaper != nil {
		t.Errorf("a port the config does not name is shaped: %+v", dc.DefaultPort.Shaper)
	}
	// Simulated: not a field the simulator ignores, nor a setting it
	// does not run, nor a reference that resolves to nothing.
	for _, f := range dc.Fields {
		if strings.HasPrefix(f.Field, "PORT_QOS_MAP scheduler") || strings.HasPrefix(f.Field, "SCHEDULER") {
			t.Errorf("a port shaper's field is listed as not simulated: %+v", f)
		}
	}
	for _, u := range dc.Unsimulated {
		if strings.Contains(u.Where, "SCHEDULER") || strings.Contains(u.Where, "scheduler") {
			t.Errorf("a byte-metered port shaper is noted as not simulated: %+v", u)
		}
	}
	if len(dc.Unresolved) > 0 {
		t.Errorf("unresolved: %+v", dc.Unresolved)
	}
	// The port's shaper leaves the rate queue 3 is shaped to alone, and
	// is the port's rate.
	if got := p.Queue(3).Shaper.RateKbpsAt(p.RunSpeedGbps()); got != 25_000_000 {
		t.Errorf("queue 3 shaped to %d kb/s, want 25000000", got)
	}
	if got := p.Shaper.RateKbpsAt(p.RunSpeedGbps()); got != 50_000_000 {
		t.Errorf("port shaped to %d kb/s, want 50000000", got)
	}
}

// A packet-metered port shaper is the port's packet meter
// (PacketsPerSec, BurstPackets), simulated: neither noted nor warned of.
func TestParsePortPacketMeteredShaper(t *testing.T) {
	db := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "scheduler": "pps"}, "Ethernet4": {"pfc_enable": "3", "scheduler": "pps_off"}},
		"SCHEDULER": {"pps": {"meter_type": "packets", "pir": "1000000", "pbs": "64"}, "pps_off": {"meter_type": "packets", "pir": "0", "pbs": "64"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	if s := dc.Port("Ethernet0").Shaper; s == nil || *s != (qos.Shaper{PacketsPerSec: 1000000, BurstPackets: 64}) {
		t.Errorf("Ethernet0's shaper = %+v, want 1000000 packets/s, burst 64 packets", s)
	}
	if s := dc.Port("Ethernet4").Shaper; s != nil {
		t.Errorf("a packet-metered pir 0 shapes the port: %+v", s)
	}
	wantNoPacketMeterNote(t, dc)
}

// A port's scheduler the config does not define, or one orchagent
// refuses, leaves the whole PORT_QOS_MAP entry unapplied: no shaper, no
// maps, no PFC, and an unresolved reference (QOS013).
func TestParsePortShaperUnresolved(t *testing.T) {
	db := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "scheduler": "no_such"},
			"Ethernet4": {"pfc_enable": "3", "scheduler": "odd"}},
		"SCHEDULER": {"odd": {"meter_type": "bytes", "pir": "6250000000", "colour": "blue"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"Ethernet0", "Ethernet4"} {
		p := dc.Port(port)
		if p.Shaper != nil || len(p.PFCPriorities) > 0 {
			t.Errorf("%s: shaper %+v, PFC %v; want neither (the entry does not apply)", port, p.Shaper, p.PFCPriorities)
		}
	}
	find := func(where, ref string) *qos.Unresolved {
		for i, u := range dc.Unresolved {
			if u.Where == where && u.Field == "scheduler" && u.Ref == ref && u.Table == "SCHEDULER" {
				return &dc.Unresolved[i]
			}
		}
		return nil
	}
	if u := find("PORT_QOS_MAP|Ethernet0", "no_such"); u == nil || u.Rejected != "" || !slices.Equal(u.Ports, []string{"Ethernet0"}) {
		t.Errorf("the undefined port scheduler is not unresolved: %+v", dc.Unresolved)
	}
	if u := find("PORT_QOS_MAP|Ethernet4", "odd"); u == nil || !strings.Contains(u.Rejected, "colour") || !strings.Contains(u.Effect, "no shaper") {
		t.Errorf("the refused port scheduler is not noted with why: %+v", dc.Unresolved)
	}
	fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	if !slices.ContainsFunc(fs, func(f qos.Finding) bool {
		return f.Rule == "QOS013" && strings.Contains(f.Message, "no_such")
	}) {
		t.Errorf("lint gives no QOS013 of the undefined port scheduler: %+v", fs)
	}
}

// A port scheduler's value orchagent cannot program is refused at its
// line, with the fix, as a queue's is.
func TestParsePortShaperErrors(t *testing.T) {
	for _, c := range []struct{ name, field, value, want string }{
		{"pir not a number", "pir", "50G", `leaf1.json:5: parse sonic config of leaf1: SCHEDULER|s pir "50G" is not a non-negative integer (fix: write the peak rate in bytes per second as a whole number`},
		{"pir negative", "pir", "-1", `leaf1.json:5: parse sonic config of leaf1: SCHEDULER|s pir "-1" is not a non-negative integer (fix:`},
		{"pbs not a number", "pbs", "64k", `leaf1.json:5: parse sonic config of leaf1: SCHEDULER|s pbs "64k" is not a non-negative integer (fix: write the burst in bytes as a whole number`},
		{"type", "type", "FAIR", `leaf1.json:5: parse sonic config of leaf1: SCHEDULER|s type "FAIR" is not STRICT, DWRR or WRR (fix:`},
	} {
		db := "{\n  \"SCHEDULER\": {\n    \"s\": {\n      \"pbs\": \"4096\",\n      \"" + c.field + "\": \"" + c.value + "\"\n    }\n  },\n  \"PORT_QOS_MAP\": {\"Ethernet0\": {\"scheduler\": \"s\"}}\n}\n"
		if c.field != "pir" {
			db = strings.Replace(db, `"pbs": "4096",`, `"pir": "6250000000",`, 1)
		}
		_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// A port's shaper renders to a SCHEDULER entry of its own, without a
// type, that its PORT_QOS_MAP scheduler names and that parses back to
// the same shaper, beside the queues' shapers.
func TestRenderParseRoundTripPortShaper(t *testing.T) {
	dc := cfgShapedConfig(t)
	dc.Ports[0].Shaper = &qos.Shaper{RateKbps: 200_000_000, BurstBytes: 65536}
	dc.Ports[1].Shaper = &qos.Shaper{RateKbps: 10_000_000}
	out, doc := renderDoc(t, dc)
	p0, p1 := dc.Ports[0].Name, dc.Ports[1].Name
	for port, want := range map[string]struct {
		name   string
		fields map[string]string
	}{
		p0: {"port.pir25000000000.pbs65536", map[string]string{"meter_type": "bytes", "pir": "25000000000", "pbs": "65536"}},
		p1: {"port.pir1250000000", map[string]string{"meter_type": "bytes", "pir": "1250000000"}},
	} {
		name := doc["PORT_QOS_MAP"][port]["scheduler"]
		if name != want.name {
			t.Errorf("PORT_QOS_MAP|%s scheduler = %q, want %q", port, name, want.name)
		}
		if got := doc["SCHEDULER"][name]; !reflect.DeepEqual(got, want.fields) {
			t.Errorf("SCHEDULER|%s = %v, want %v", name, got, want.fields)
		}
	}
	if s := doc["PORT_QOS_MAP"]["global"]["scheduler"]; s != "" {
		t.Errorf("the global entry names a scheduler: %q", s)
	}
	for _, p := range dc.Ports[2:] {
		if s, ok := doc["PORT_QOS_MAP"][p.Name]["scheduler"]; ok {
			t.Errorf("unshaped port %s names scheduler %q", p.Name, s)
		}
	}
	got := parseBack(t, dc, out)
	if len(got.Unsimulated) > 0 {
		t.Errorf("the rendered shapers are noted as not simulated: %+v", got.Unsimulated)
	}
	if len(got.Unresolved) > 0 {
		t.Errorf("the rendered shapers do not resolve: %+v", got.Unresolved)
	}
}

// A port shaper in percent is written at its rate on the port's speed,
// and refused, naming device and port, when the speed is not known.
func TestRenderPercentPortShaper(t *testing.T) {
	dc := cfgVariants(t)["ecn-on_pfc-on"][0].Clone()
	p := &dc.Ports[0]
	p.Shaper = &qos.Shaper{Percent: 50}
	p.SpeedGbps = 400
	doc, err := BuildDoc(dc)
	if err != nil {
		t.Fatal(err)
	}
	// 50% of 400 Gb/s: 200 Gb/s, 25 GB/s.
	name := doc["PORT_QOS_MAP"][p.Name]["scheduler"]
	if e := doc["SCHEDULER"][name]; name != "port.pir25000000000" || !reflect.DeepEqual(e, map[string]string{"meter_type": "bytes", "pir": "25000000000"}) {
		t.Errorf("PORT_QOS_MAP|%s scheduler %q = %v, want port.pir25000000000: pir 25000000000, meter_type bytes", p.Name, name, e)
	}
	p.SpeedGbps = 0
	_, err = BuildDoc(dc)
	if want := "render sonic config for " + dc.Device + " " + p.Name + ": a shaper of 50% of the port's speed"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	// A shaper of no rate is no shaper.
	p.Shaper = &qos.Shaper{}
	doc, err = BuildDoc(dc)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := doc["PORT_QOS_MAP"][p.Name]["scheduler"]; ok {
		t.Errorf("a shaper of no rate names scheduler %q", s)
	}
}

// A port's scheduler that names nothing fails validation, as the other
// references of PORT_QOS_MAP do; one without a type passes.
func TestValidatePortScheduler(t *testing.T) {
	doc := Doc{"PORT_QOS_MAP": {"Ethernet0": {"scheduler": "port.pir1"}}}
	if errs := ValidateDoc(doc); len(errs) == 0 || !strings.Contains(joinErrs(errs).Error(), "PORT_QOS_MAP|Ethernet0 scheduler: refers to SCHEDULER|port.pir1, which is not defined") {
		t.Errorf("errors = %v, want the undefined scheduler", errs)
	}
	doc["SCHEDULER"] = map[string]map[string]string{"port.pir1": {"meter_type": "bytes", "pir": "1"}}
	if errs := ValidateDoc(doc); len(errs) > 0 {
		t.Errorf("a port scheduler without a type does not validate: %v", errs)
	}
	doc["SCHEDULER"]["port.pir1"]["weight"] = "0"
	if errs := ValidateDoc(doc); len(errs) == 0 {
		t.Errorf("weight 0 validates")
	}
}

// A packet meter, on a queue and on a port, renders to a SCHEDULER entry
// of meter_type packets (pir its packets per second, pbs its burst in
// packets, none when it has none) whose name tells it from a byte meter
// of the same figure, and parses back to the same shaper.
func TestRenderParseRoundTripPacketShaper(t *testing.T) {
	dc := cfgShapedConfig(t)
	p0, p1 := &dc.Ports[0], &dc.Ports[1]
	for i := range p1.Queues {
		switch p1.Queues[i].Queue {
		case 3:
			p1.Queues[i].Shaper = &qos.Shaper{PacketsPerSec: 1_000_000, BurstPackets: 64}
		case 6:
			p1.Queues[i].Shaper = &qos.Shaper{PacketsPerSec: 125_000_000}
		}
	}
	p0.Shaper = &qos.Shaper{PacketsPerSec: 20_000_000, BurstPackets: 128}
	p1.Shaper = &qos.Shaper{PacketsPerSec: 5000}
	out, doc := renderDoc(t, dc)
	type entry struct {
		name   string
		fields map[string]string
	}
	for key, want := range map[string]entry{
		p0.Name + "|6": {"scheduler.strict.pir125000000", map[string]string{"type": "STRICT", "meter_type": "bytes", "pir": "125000000"}},
		p1.Name + "|3": {"scheduler.dwrr50.pps1000000.pbs64", map[string]string{"type": "DWRR", "weight": "50", "meter_type": "packets", "pir": "1000000", "pbs": "64"}},
		p1.Name + "|6": {"scheduler.strict.pps125000000", map[string]string{"type": "STRICT", "meter_type": "packets", "pir": "125000000"}},
	} {
		name := doc["QUEUE"][key]["scheduler"]
		if name != want.name {
			t.Errorf("QUEUE|%s scheduler = %q, want %q", key, name, want.name)
		}
		if got := doc["SCHEDULER"][name]; !reflect.DeepEqual(got, want.fields) {
			t.Errorf("SCHEDULER|%s = %v, want %v", name, got, want.fields)
		}
	}
	for port, want := range map[string]entry{
		p0.Name: {"port.pps20000000.pbs128", map[string]string{"meter_type": "packets", "pir": "20000000", "pbs": "128"}},
		p1.Name: {"port.pps5000", map[string]string{"meter_type": "packets", "pir": "5000"}},
	} {
		name := doc["PORT_QOS_MAP"][port]["scheduler"]
		if name != want.name {
			t.Errorf("PORT_QOS_MAP|%s scheduler = %q, want %q", port, name, want.name)
		}
		if got := doc["SCHEDULER"][name]; !reflect.DeepEqual(got, want.fields) {
			t.Errorf("SCHEDULER|%s = %v, want %v", name, got, want.fields)
		}
	}
	if errs := ValidateDoc(doc); len(errs) > 0 {
		t.Errorf("the rendered packet meters do not validate: %v", errs)
	}
	got := parseBack(t, dc, out)
	if s := got.Port(p1.Name).Queue(3).Shaper; s == nil || *s != (qos.Shaper{PacketsPerSec: 1_000_000, BurstPackets: 64}) {
		t.Errorf("%s queue 3 parses back to shaper %+v", p1.Name, s)
	}
	if s := got.Port(p0.Name).Shaper; s == nil || *s != (qos.Shaper{PacketsPerSec: 20_000_000, BurstPackets: 128}) {
		t.Errorf("%s parses back to port shaper %+v", p0.Name, s)
	}
	if len(got.Unsimulated) > 0 {
		t.Errorf("the rendered packet meters are noted as not simulated: %+v", got.Unsimulated)
	}
	if len(got.Unresolved) > 0 {
		t.Errorf("the rendered packet meters do not resolve: %+v", got.Unresolved)
	}
}
