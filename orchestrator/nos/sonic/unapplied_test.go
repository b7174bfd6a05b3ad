package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A setting the config gives but the switch never applies is not one it
// leaves out: QOS017 says "set but never applied" with why, where a
// setting the config does not give is "not set". PORT_QOS_MAP|Ethernet4
// names an undefined TC to PG map, so orchagent applies none of it (its
// dscp_to_tc_map AZURE neither); Ethernet0|3-4 names an undefined
// profile, so bufferorch never applies it and PG 3 is buffermgrd's.
func TestDefaultOfASettingNeverApplied(t *testing.T) {
	in := `{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
		"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
		"BUFFER_PG": {"Ethernet0|3-4": {"profile": "nosuch"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "nosuch", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	msgs := map[string]string{}
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleDefaultRelied {
			ports := f.Ports
			if len(ports) == 0 {
				ports = []string{f.Port}
			}
			for _, field := range []string{"PORT_QOS_MAP dscp_to_tc_map", "BUFFER_PG|<port>|3"} {
				for _, p := range ports {
					if strings.HasPrefix(f.Message, field) {
						msgs[field+" "+p] = f.Message
					}
				}
			}
		}
	}
	for _, c := range []struct{ key, want string }{
		{"PORT_QOS_MAP dscp_to_tc_map Ethernet0", "is not set"},
		{"PORT_QOS_MAP dscp_to_tc_map Ethernet4", "is set but never applied (PORT_QOS_MAP|Ethernet4"},
		{"BUFFER_PG|<port>|3 Ethernet0", "is set but never applied (BUFFER_PG|Ethernet0|3-4"},
	} {
		if !strings.Contains(msgs[c.key], c.want) {
			t.Errorf("%s: QOS017 %q, want %q", c.key, msgs[c.key], c.want)
		}
	}
}
