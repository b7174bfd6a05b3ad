package sonic

import (
	"encoding/json"
	"os"
	"path/filepath"
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
