package sonic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// SWITCH_HASH|GLOBAL's field lists (switchorch's parseSwHash) decide which
// path each RoCE QP takes: RoCE's QPs between two hosts differ by their
// UDP source port alone, so an ecmp_hash or lag_hash without L4_SRC_PORT
// puts them on one path, and RANDOM spreads one QP's packets over paths;
// the simulator runs neither. Lint warns at the field's line (QOS017); a
// list with L4_SRC_PORT, or one the switch refuses (an unknown name: the
// ASIC keeps its default hash), gives no such warning.
func TestSwitchHashOnRoCE(t *testing.T) {
	for _, c := range []struct {
		name, fields string
		want         []string // the fields warned of
	}{
		{"ecmp_hash without L4_SRC_PORT", `"ecmp_hash": ["DST_IP", "SRC_IP", "IP_PROTOCOL", "L4_DST_PORT"]`, []string{"ecmp_hash"}},
		{"lag_hash of the addresses, as CONFIG_DB's list", `"lag_hash": "DST_IP,SRC_IP"`, []string{"lag_hash"}},
		{"the five-tuple", `"ecmp_hash": ["DST_IP", "SRC_IP", "IP_PROTOCOL", "L4_DST_PORT", "L4_SRC_PORT"], "ecmp_hash_algorithm": "CRC"`, nil},
		{"a name the switch refuses", `"ecmp_hash": ["DST_IP", "SRC_PORT"]`, nil},
		{"the RANDOM algorithm", `"ecmp_hash": ["DST_IP", "SRC_IP", "IP_PROTOCOL", "L4_DST_PORT", "L4_SRC_PORT"], "ecmp_hash_algorithm": "RANDOM"`, []string{"ecmp_hash_algorithm"}},
	} {
		in := `{
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
    "SWITCH_HASH": {
        "GLOBAL": {` + c.fields + `}
    }
}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule != qos.RuleDefaultRelied || !strings.HasPrefix(f.Where, "SWITCH_HASH|GLOBAL ") {
				continue
			}
			field := strings.TrimPrefix(f.Where, "SWITCH_HASH|GLOBAL ")
			got = append(got, field)
			if line := entryFieldLine([]byte(in), "SWITCH_HASH", "GLOBAL", field); f.Severity != qos.SevWarning || !strings.Contains(f.Message, fmt.Sprintf("line %d: ", line)) {
				t.Errorf("%s: %+v, want a warning at line %d", c.name, f, line)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: warned of %v, want %v", c.name, got, c.want)
		}
	}
}
