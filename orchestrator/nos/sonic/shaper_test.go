package sonic

import (
	"encoding/json"
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

// A packet-metered shaper's rate is in packets per second, which takes
// the packets' size to turn into bytes: the queue is left unshaped and
// the shaper noted as not simulated, so lint warns (QOS017).
func TestParsePacketMeteredShaper(t *testing.T) {
	db := `{"QUEUE": {"Ethernet0|3": {"scheduler": "pps"}, "Ethernet4|3": {"scheduler": "pps"}, "Ethernet4|4": {"scheduler": "pps_off"}},
		"SCHEDULER": {"pps": {"type": "DWRR", "weight": "50", "meter_type": "packets", "pir": "1000000", "pbs": "64"},
			"pps_off": {"type": "DWRR", "weight": "5", "meter_type": "packets", "pir": "0"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"Ethernet0", "Ethernet4"} {
		if s := dc.Port(port).Queue(3).Shaper; s != nil {
			t.Errorf("%s queue 3 has a packet-metered shaper simulated: %+v", port, s)
		}
	}
	var notes []qos.NotRun
	for _, u := range dc.Unsimulated {
		if strings.HasPrefix(u.Where, "SCHEDULER") {
			notes = append(notes, u)
		}
	}
	if len(notes) != 1 || notes[0].Where != "SCHEDULER|pps meter_type" ||
		!strings.Contains(notes[0].What, "packet-metered") || !strings.Contains(notes[0].What, "QUEUE|Ethernet0|3 and 1 more") {
		t.Fatalf("notes of the packet-metered shaper = %+v, want one naming SCHEDULER|pps and its two queues", notes)
	}
	fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	if !slices.ContainsFunc(fs, func(f qos.Finding) bool {
		return f.Rule == qos.RuleDefaultRelied && f.Severity == qos.SevWarning && strings.Contains(f.Message, "SCHEDULER|pps meter_type")
	}) {
		t.Errorf("lint gives no QOS017 warning of the packet-metered shaper: %+v", fs)
	}
}

// A SCHEDULER value orchagent cannot program is refused at its line,
// with the fix, when a queue names the entry.
func TestParseShaperErrors(t *testing.T) {
	for _, c := range []struct{ name, field, value, want string }{
		{"pir not a number", "pir", "50G", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pir "50G" is not a non-negative integer (fix: write the peak rate in bytes per second as a whole number`},
		{"pir negative", "pir", "-1", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pir "-1" is not a non-negative integer (fix:`},
		{"pbs not a number", "pbs", "64k", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s pbs "64k" is not a non-negative integer (fix: write the burst in bytes as a whole number`},
		{"meter_type", "meter_type", "BYTES", `leaf1.json:6: parse sonic config of leaf1: SCHEDULER|s meter_type "BYTES" is not bytes or packets (fix:`},
	} {
		db := "{\n  \"SCHEDULER\": {\n    \"s\": {\n      \"type\": \"DWRR\",\n      \"weight\": \"50\",\n      \"" + c.field + "\": \"" + c.value + "\"\n    }\n  },\n  \"QUEUE\": {\"Ethernet0|3\": {\"scheduler\": \"s\"}}\n}\n"
		if c.field != "pir" {
			db = strings.Replace(db, `"weight": "50",`, `"weight": "50", "pir": "6250000000",`, 1)
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
	out, err := Render(dc)
	if err != nil {
		t.Fatal(err)
	}
	var doc Doc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
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
	got, err := Parse(dc.Device, qos.Source{Name: dc.Device + ".json", Data: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Unsimulated) > 0 {
		t.Errorf("the rendered shapers are noted as not simulated: %+v", got.Unsimulated)
	}
	want := cfgComparable(dc)
	got = cfgComparable(got)
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("round trip differs:\n%s\ndiff: %v", lineDiff(string(wj), string(gj)), qos.Diff([]qos.DeviceConfig{want}, []qos.DeviceConfig{got}))
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
