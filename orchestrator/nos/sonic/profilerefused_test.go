package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// bufferorch creates no profile with a packet_discard_action other than
// drop or trim (processBufferProfile fails it), nor one with both
// static_th and dynamic_th (SAI gets two threshold modes): the PGs and
// queues naming it have no profile, and lint says why (QOS013). A PG
// naming a trim profile bufferorch refuses (processPriorityGroup); a
// queue takes it.
func TestBufferProfileRefused(t *testing.T) {
	for _, c := range []struct {
		name, fields   string
		pgOK, queueOK  bool
		rule, mentions string
	}{
		{"drop", `, "packet_discard_action": "drop"`, true, true, "", ""},
		{"trim", `, "packet_discard_action": "trim"`, false, true, qos.RuleOverruled, "trim"},
		{"Drop", `, "packet_discard_action": "Drop"`, false, false, qos.RuleUnresolved, `"Drop"`},
		{"both thresholds", `, "static_th": "100000"`, false, false, qos.RuleUnresolved, "static_th and dynamic_th"},
	} {
		in := `{"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"},
				"egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "10000000"}},
			"BUFFER_PROFILE": {"in": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"` + c.fields + `},
				"out": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "3"` + c.fields + `}},
			"BUFFER_PG": {"Ethernet0|0": {"profile": "in"}},
			"BUFFER_QUEUE": {"Ethernet0|0": {"profile": "out"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := dc.Port("Ethernet0")
		if got := p.PGs[0].Profile == "in"; got != c.pgOK {
			t.Errorf("%s: PG 0 has profile %q, want it to have in: %v", c.name, p.PGs[0].Profile, c.pgOK)
		}
		if got := p.Queue(0).Buffer != nil; got != c.queueOK {
			t.Errorf("%s: queue 0 buffer %+v, want one: %v", c.name, p.Queue(0).Buffer, c.queueOK)
		}
		fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
		found := false
		for _, f := range fs {
			if f.Severity == qos.SevError && f.Rule == c.rule && strings.Contains(f.Message, c.mentions) && f.Fix != "" {
				found = true
			}
		}
		if c.rule != "" && !found {
			t.Errorf("%s: no %s error mentioning %s: %+v", c.name, c.rule, c.mentions, fs)
		}
		if errs := ValidateDoc(mustDoc(t, in)); (len(errs) == 0) != (c.pgOK || c.name == "trim") {
			t.Errorf("%s: ValidateDoc %v", c.name, errs)
		}
	}
}
