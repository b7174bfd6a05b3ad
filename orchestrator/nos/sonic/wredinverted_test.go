package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A WRED_PROFILE whose min threshold of a colour is above its max
// (swapped, as a user edits them, or a min given without its max, which
// WredMapHandler takes as 0) qosorch refuses: convertFieldValuesToAttributes
// returns false ("Wrong wred profile: min threshold is greater than max
// threshold") and processWorkItem drops the entry (task_invalid_entry),
// so it alone is never created and the QUEUE entries naming it apply
// nothing: the queue marks no ECN. labctl read the swapped thresholds as
// the queue's and the simulator refused the run (exit 2, without the
// file or line).
func TestWREDMinAboveMaxNotCreated(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields string
	}{
		{"green swapped", `"green_min_threshold": "3276800", "green_max_threshold": "819200"`},
		{"yellow min without max", `"green_min_threshold": "819200", "green_max_threshold": "3276800", "yellow_min_threshold": "819200"`},
	} {
		in := `{"WRED_PROFILE": {"ECN": {"ecn": "ecn_all", "wred_green_enable": "true", "green_drop_probability": "20", ` + c.fields + `},
			"OTHER": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "100000", "green_max_threshold": "200000"}},
			"QUEUE": {"Ethernet0|3": {"wred_profile": "ECN"}, "Ethernet0|1": {"wred_profile": "OTHER"}},
			"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("%s: %v, want it parsed", c.name, err)
			continue
		}
		dc.Sources = []string{"leaf1.json"}
		if q := dc.Port("Ethernet0").Queue(3); q.ECN != nil {
			t.Errorf("%s: queue 3 marks ECN %+v, want none (its profile never created)", c.name, *q.ECN)
		}
		if q := dc.Port("Ethernet0").Queue(1); q.ECN == nil {
			t.Errorf("%s: queue 1 lost its ECN: the refused entry stops no other", c.name)
		}
		var refused, queue bool
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, "WRED_PROFILE|ECN") && strings.Contains(f.Message, "leaf1.json:1") && f.Fix != "" {
				refused = true
			}
			if f.Rule == qos.RuleUnresolved && f.Severity == qos.SevError && strings.Contains(f.Message, "QUEUE|Ethernet0|3") && strings.Contains(f.Message, "never creates") {
				queue = true
			}
		}
		if !refused || !queue {
			t.Errorf("%s: lint names the refused profile %v, the queue %v: %+v", c.name, refused, queue, qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}))
		}
	}
}
