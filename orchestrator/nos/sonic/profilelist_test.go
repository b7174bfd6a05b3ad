package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A BUFFER_PORT_INGRESS_PROFILE_LIST or BUFFER_PORT_EGRESS_PROFILE_LIST
// entry naming a BUFFER_PROFILE the config does not define, as a user
// mistypes it, bufferorch retries forever (processIngressBufferProfileList
// and processEgressBufferProfileList: resolveFieldRefArray not_resolved,
// task_need_retry), so the port's list is never set: lint's QOS013 names
// the entry. labctl gave no finding.
func TestProfileListOfAnUndefinedProfile(t *testing.T) {
	for _, table := range []string{"BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"} {
		in := `{"BUFFER_POOL": {"ingress_lossless_pool": {"size": "12766208", "type": "ingress", "mode": "dynamic"}},
		"BUFFER_PROFILE": {"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}},
		"` + table + `": {"Ethernet0": {"profile_list": "ingress_lossy_profile,ingres_lossless_profile"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, u := range dc.Unresolved {
			found = found || u.Where == table+"|Ethernet0" && u.Field == "profile_list" && u.Ref == "ingres_lossless_profile" && u.Table == "BUFFER_PROFILE" && u.Effect != ""
		}
		if !found {
			t.Errorf("%s naming an undefined profile: unresolved %+v", table, dc.Unresolved)
		}
		var flagged bool
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			flagged = flagged || f.Rule == qos.RuleUnresolved && f.Port == "Ethernet0" && strings.Contains(f.Message, table+"|Ethernet0 profile_list names ingres_lossless_profile") && f.Fix != ""
		}
		if !flagged {
			t.Errorf("%s naming an undefined profile: no QOS013", table)
		}
	}
}
