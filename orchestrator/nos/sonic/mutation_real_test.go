package sonic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// realDoc is a real config of reference/real-configs/sonic as tables.
func realDoc(t *testing.T, name string) map[string]map[string]map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cfgRealConfigs(t), name))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]map[string]string
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// mutated writes doc, changed by change, as the file name (one field a
// line, so that findings are placed at their line).
func mutated(t *testing.T, name string, doc map[string]map[string]map[string]string, change func(map[string]map[string]map[string]string)) qos.Source {
	t.Helper()
	change(doc)
	data, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return qos.Source{Name: name, Data: data}
}

// lintFinding is the finding of rule whose message holds every one of
// want, or nil.
func lintFinding(dc qos.DeviceConfig, rule string, want ...string) *qos.Finding {
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule != rule {
			continue
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(f.Message+" fix: "+f.Fix, w)
		}
		if ok {
			return &f
		}
	}
	return nil
}

// TestMutationQueueBeyondSeven: the Arista 7260 buffer file with one
// port's BUFFER_QUEUE entries replaced by one naming queues 0-15 (as
// platforms with multicast queues write it): the model gives queues 0-7
// the entry's profile, as a port with 16 queues does, and lint warns at
// the entry's line that a port of 8 queues takes none of it. A BUFFER_PG
// entry naming PG 9 is refused (an error), its PGs keep what they had.
func TestMutationQueueBeyondSeven(t *testing.T) {
	doc := realDoc(t, "buffer-arista7260-t1.json")
	src := mutated(t, "a7260.json", doc, func(d map[string]map[string]map[string]string) {
		for k := range d["BUFFER_QUEUE"] {
			if strings.HasPrefix(k, "Ethernet0|") {
				delete(d["BUFFER_QUEUE"], k)
			}
		}
		d["BUFFER_QUEUE"]["Ethernet0|0-15"] = map[string]string{"profile": "egress_lossy_profile"}
		d["BUFFER_PG"]["Ethernet0|3-9"] = map[string]string{"profile": "ingress_lossy_profile"}
	})
	dc, err := Parse("a7260", src)
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet0")
	for q := range 8 {
		if b := p.Queue(q).Buffer; b == nil || b.Profile != "egress_lossy_profile" {
			t.Errorf("queue %d buffer = %+v, want egress_lossy_profile from BUFFER_QUEUE|Ethernet0|0-15", q, b)
		}
	}
	if pg := p.PG(3); pg != nil && pg.Profile == "ingress_lossy_profile" {
		t.Errorf("PG 3 = %+v: the entry naming PG 9 is refused, it must not apply", pg)
	}
	f := lintFinding(dc, qos.RuleOverruled, "line ", "BUFFER_QUEUE|Ethernet0|0-15", "applies none of it", "show queue counters")
	if f == nil || f.Severity != qos.SevWarning {
		t.Errorf("no QOS021 warning placed at BUFFER_QUEUE|Ethernet0|0-15 (got %+v)", f)
	}
	if f := lintFinding(dc, qos.RuleOverruled, "line ", "BUFFER_PG|Ethernet0|3-9", "names PG 9", "name PGs 0-7 only"); f == nil || f.Severity != qos.SevError {
		t.Errorf("no QOS021 error placed at BUFFER_PG|Ethernet0|3-9 (got %+v)", f)
	}
	// QUEUE: qosorch applies queue by queue, so queues 6-7 take it on any
	// platform.
	qd := realDoc(t, "qos-arista7050.json")
	qsrc := mutated(t, "a7050.json", qd, func(d map[string]map[string]map[string]string) {
		delete(d["QUEUE"], "Ethernet4|6")
		d["QUEUE"]["Ethernet4|6-9"] = map[string]string{"scheduler": "scheduler.1"}
	})
	qdc, err := Parse("a7050", qsrc)
	if err != nil {
		t.Fatal(err)
	}
	if q := qdc.Port("Ethernet4").Queue(6); q.Weight != 15 || !strings.Contains(q.Origin, "QUEUE|Ethernet4|6-9") {
		t.Errorf("queue 6 = %+v, want weight 15 from QUEUE|Ethernet4|6-9", q)
	}
	if f := lintFinding(qdc, qos.RuleOverruled, "line ", "QUEUE|Ethernet4|6-9", "only queues 6-7 of Ethernet4 keep it"); f == nil || f.Severity != qos.SevWarning {
		t.Errorf("no QOS021 warning at QUEUE|Ethernet4|6-9 (got %+v)", f)
	}
}

// mellanoxMerged is the real Mellanox QoS and buffer files as one config.
func mellanoxMerged(t *testing.T) map[string]map[string]map[string]string {
	t.Helper()
	doc := realDoc(t, "qos-mellanox4600c-c64.json")
	for table, entries := range realDoc(t, "buffers-mellanox2410.json") {
		doc[table] = entries
	}
	return doc
}

// TestMutationOverlappingBufferPG: two BUFFER_PG entries giving one PG
// different profiles, or one giving a lossless PG another profile than
// the key buffermgrd writes for it: which the switch keeps depends on
// the order bufferorch receives them, so lint warns at the entry (QOS021)
// naming both, and the model takes the last in key order, buffermgrd's
// own key among them. The same profile twice is no conflict.
func TestMutationOverlappingBufferPG(t *testing.T) {
	parse := func(change func(map[string]map[string]map[string]string)) qos.DeviceConfig {
		t.Helper()
		dc, err := Parse("mlnx", mutated(t, "mlnx.json", mellanoxMerged(t), change))
		if err != nil {
			t.Fatal(err)
		}
		return dc
	}
	base := parse(func(map[string]map[string]map[string]string) {})
	if f := lintFinding(base, qos.RuleOverruled, "entries give"); f != nil {
		t.Fatalf("the real config has no overlapping entries, lint says %+v", f)
	}

	// PG 3 of Ethernet0 in an entry of its own, beside buffermgrd's 3-4
	// (pfc_enable 3,4): "Ethernet0|3-4" comes after "Ethernet0|3".
	dc := parse(func(d map[string]map[string]map[string]string) {
		d["BUFFER_PG"]["Ethernet0|3"] = map[string]string{"profile": "ingress_lossy_profile"}
	})
	if pg := dc.Port("Ethernet0").PG(3); pg == nil || !pg.Assumed || !strings.Contains(pg.Origin, "BUFFER_PG|Ethernet0|3-4") {
		t.Errorf("PG 3 = %+v, want the buffer manager's lossless PG of BUFFER_PG|Ethernet0|3-4", pg)
	}
	f := lintFinding(dc, qos.RuleOverruled, "line ", "BUFFER_PG|Ethernet0|3:", "<port>|3 (ingress_lossy_profile)", "<port>|3-4 (", "buffer manager", "labctl takes the last in key order", "pg_lossless_<speed>_<cable>_profile")
	if f == nil || f.Severity != qos.SevWarning {
		t.Errorf("no QOS021 warning at BUFFER_PG|Ethernet0|3 naming both entries (got %+v)", f)
	}
	if f := lintFinding(dc, qos.RuleLosslessPG); f != nil {
		t.Errorf("PG 3 is buffermgrd's lossless one in the model, lint says %+v", f)
	}
	// On PG 4 alone, after 3-4 in key order: the config's entry is the
	// model's.
	dc = parse(func(d map[string]map[string]map[string]string) {
		d["BUFFER_PG"]["Ethernet0|4"] = map[string]string{"profile": "ingress_lossy_profile"}
	})
	if pg := dc.Port("Ethernet0").PG(4); pg == nil || pg.Profile != "ingress_lossy_profile" {
		t.Errorf("PG 4 = %+v, want the config's BUFFER_PG|Ethernet0|4, last in key order", pg)
	}
	if f := lintFinding(dc, qos.RuleOverruled, "BUFFER_PG|Ethernet0|4:", "<port>|4 (ingress_lossy_profile)"); f == nil {
		t.Error("no QOS021 warning at BUFFER_PG|Ethernet0|4")
	}

	// Two entries of the config on PG 0 with different profiles.
	dc = parse(func(d map[string]map[string]map[string]string) {
		d["BUFFER_PG"]["Ethernet0|0-2"] = map[string]string{"profile": "ingress_lossy_pg_zero_profile"}
	})
	if pg := dc.Port("Ethernet0").PG(0); pg == nil || pg.Profile != "ingress_lossy_pg_zero_profile" {
		t.Errorf("PG 0 = %+v, want BUFFER_PG|Ethernet0|0-2's profile, last in key order", pg)
	}
	if f := lintFinding(dc, qos.RuleOverruled, "BUFFER_PG|Ethernet0|0:", "PG 0 of the port", "<port>|0 (ingress_lossy_profile), <port>|0-2 (ingress_lossy_pg_zero_profile)"); f == nil || f.Severity != qos.SevWarning {
		t.Errorf("no QOS021 warning at BUFFER_PG|Ethernet0|0 (got %+v)", f)
	}
	// The same profile twice: whichever applies last, the PG is the same.
	dc = parse(func(d map[string]map[string]map[string]string) {
		d["BUFFER_PG"]["Ethernet0|0-2"] = map[string]string{"profile": "ingress_lossy_profile"}
	})
	if f := lintFinding(dc, qos.RuleOverruled, "entries give"); f != nil {
		t.Errorf("one profile in two entries is no conflict, lint says %+v", f)
	}
}

// TestMutationOverlappingBufferQueue: the same for BUFFER_QUEUE, which
// reaches bufferorch the same way.
func TestMutationOverlappingBufferQueue(t *testing.T) {
	dc, err := Parse("a7260", mutated(t, "a7260.json", realDoc(t, "buffer-arista7260-t1.json"), func(d map[string]map[string]map[string]string) {
		d["BUFFER_QUEUE"]["Ethernet0|0"] = map[string]string{"profile": "egress_lossless_profile"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if f := lintFinding(dc, qos.RuleOverruled, "BUFFER_QUEUE|Ethernet0|0:", "queue 0 of the port", "<port>|0 (egress_lossless_profile), <port>|0-2 (egress_lossy_profile)"); f == nil || f.Severity != qos.SevWarning {
		t.Errorf("no QOS021 warning for the overlap on queue 0 (got %+v)", f)
	}
	if b := dc.Port("Ethernet0").Queue(0).Buffer; b == nil || b.Profile != "egress_lossy_profile" {
		t.Errorf("queue 0 buffer = %+v, want BUFFER_QUEUE|Ethernet0|0-2's, last in key order", b)
	}
}

// TestMutationDualToRRoles: the real Mellanox QoS file is a dual-ToR
// switch as SONiC's qos_config.j2 renders it with tunnel_qos_remap: 8
// ports with pfc_enable 3,4 and AZURE_UPLINK (DSCP 2 and 6 to lossy
// TC1), 20 with pfc_enable 2,3,4,6 and AZURE (DSCP 2 and 6 to TC2 and
// TC6). Bare-file lint takes the two roles for what they are (no QOS001
// or QOS002 errors) and still finds a port of either role that lost a
// PFC priority its own map classifies into, or a map that no longer
// reaches a PFC priority.
func TestMutationDualToRRoles(t *testing.T) {
	lint := func(change func(map[string]map[string]map[string]string)) []qos.Finding {
		t.Helper()
		dc, err := Parse("mlnx", mutated(t, "mlnx.json", realDoc(t, "qos-mellanox4600c-c64.json"), change))
		if err != nil {
			t.Fatal(err)
		}
		return qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	}
	errorsOf := func(fs []qos.Finding, rule string) []qos.Finding {
		var out []qos.Finding
		for _, f := range fs {
			if f.Rule == rule && f.Severity == qos.SevError {
				out = append(out, f)
			}
		}
		return out
	}
	fs := lint(func(map[string]map[string]map[string]string) {})
	if e := append(errorsOf(fs, qos.RulePFCOffLossless), errorsOf(fs, qos.RuleDSCPMapMismatch)...); len(e) != 0 {
		t.Errorf("the real dual-ToR config: %+v, want no QOS001 or QOS002 error", e)
	}
	for _, c := range []struct {
		name, rule, port, contains string
		change                     func(map[string]map[string]map[string]string)
	}{
		{"an uplink without PFC on 4", qos.RulePFCOffLossless, "Ethernet0", "priority 4", func(d map[string]map[string]map[string]string) {
			d["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3"
		}},
		{"an uplink without PFC on 4", qos.RuleDSCPMapMismatch, "Ethernet0", "lossless DSCPs [3]", func(d map[string]map[string]map[string]string) {
			d["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3"
		}},
		{"a downlink without PFC on 2 and 6", qos.RulePFCOffLossless, "Ethernet136", "priority 2,6", func(d map[string]map[string]map[string]string) {
			d["PORT_QOS_MAP"]["Ethernet136"]["pfc_enable"] = "3,4"
		}},
		{"AZURE_UPLINK no longer reaching TC3", qos.RuleDSCPMapMismatch, "Ethernet0", "lossless DSCPs [4]", func(d map[string]map[string]map[string]string) {
			d["DSCP_TO_TC_MAP"]["AZURE_UPLINK"]["3"] = "1"
		}},
	} {
		found := false
		for _, f := range errorsOf(lint(c.change), c.rule) {
			found = found || (slices.Contains(f.Ports, c.port) || f.Port == c.port) && strings.Contains(f.Message, c.contains)
		}
		if !found {
			t.Errorf("%s: no %s error on %s containing %q", c.name, c.rule, c.port, c.contains)
		}
	}
}
