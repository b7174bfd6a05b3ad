package sonic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// An ACL table bound to data ports whose rules drop, redirect or re-mark
// RoCEv2 packets (UDP to port 4791) hurts RoCE on the switch (aclorch
// programs it in the ASIC) while labctl simulates no ACL: lint errs at the
// rule's line (QOS017), or warns where the rule matches some of RoCE's
// packets only (an address). A rule that forwards them ahead of it, a
// match RoCE's packets do not meet, a control-plane table: no finding.
func TestACLRuleOnRoCE(t *testing.T) {
	base := `{
    "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}},
    "PORT_QOS_MAP": {
        "Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"},
        "Ethernet4": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}
    },
    "PORTCHANNEL": {"PortChannel1": {"admin_status": "up"}},
    "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}}%s
}`
	table := func(typ, ports string) string {
		return `,
    "ACL_TABLE": {"DATAACL": {"policy_desc": "data", "type": "` + typ + `", "stage": "ingress", "ports": ` + ports + `}}`
	}
	rules := func(rs ...string) string {
		return `,
    "ACL_RULE": {` + strings.Join(rs, ",\n        ") + `}`
	}
	const (
		dropRoCE = `"DATAACL|RULE_1": {"PRIORITY": "9999", "PACKET_ACTION": "DROP", "IP_PROTOCOL": "17", "L4_DST_PORT": "4791"}`
		permit   = `"DATAACL|RULE_0": {"PRIORITY": "10000", "PACKET_ACTION": "FORWARD", "IP_PROTOCOL": "17", "L4_DST_PORT_RANGE": "4000-5000"}`
		ssh      = `"DATAACL|RULE_1": {"PRIORITY": "9999", "PACKET_ACTION": "FORWARD", "IP_PROTOCOL": "6", "L4_DST_PORT": "22"}`
		deflt    = `"DATAACL|DEFAULT_RULE": {"PRIORITY": "1", "PACKET_ACTION": "DROP", "ETHER_TYPE": "2048"}`
	)
	cases := []struct {
		name, edit string
		sev        qos.Severity // "": no finding
		port, rule string
	}{
		{"a rule dropping UDP 4791", table("L3", `["Ethernet0"]`) + rules(dropRoCE), qos.SevError, "Ethernet0", "ACL_RULE|DATAACL|RULE_1"},
		{"its ports as CONFIG_DB's ports@", `,
    "ACL_TABLE": {"DATAACL": {"type": "L3", "stage": "INGRESS", "ports@": "Ethernet0"}}` + rules(dropRoCE), qos.SevError, "Ethernet0", "ACL_RULE|DATAACL|RULE_1"},
		{"bound to a port channel", table("L3", `["PortChannel1"]`) + rules(dropRoCE), qos.SevError, "Ethernet4", "ACL_RULE|DATAACL|RULE_1"},
		{"acl-loader's default rule behind a permit for ssh", table("L3", `["Ethernet0", "Ethernet4"]`) + rules(ssh, deflt), qos.SevError, "Ethernet0, Ethernet4", "ACL_RULE|DATAACL|DEFAULT_RULE"},
		{"a permit for RoCE's port ahead of the default rule", table("L3", `["Ethernet0"]`) + rules(permit, deflt), "", "", ""},
		{"a rule re-marking RoCE's DSCP", table("UNDERLAY_SET_DSCP", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "DSCP": "26", "DSCP_ACTION": "0"}`), qos.SevError, "Ethernet0", "ACL_RULE|DATAACL|R"},
		// aclorch refuses DSCP_ACTION outside an UNDERLAY_SET_DSCP table
		// (AclRule::makeShared): the rule is never programmed, and the
		// drop behind it still decides.
		{"a re-mark in an L3 table, refused", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "DSCP": "26", "DSCP_ACTION": "0"}`), "", "", ""},
		{"a re-mark in a user's EGR_SET_DSCP table, refused", table("EGR_SET_DSCP", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "DSCP": "26", "DSCP_ACTION": "0"}`), "", "", ""},
		{"a refused re-mark ahead of a drop", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "10000", "PACKET_ACTION": "FORWARD", "DSCP": "26", "DSCP_ACTION": "26"}`, dropRoCE), qos.SevError, "Ethernet0", "ACL_RULE|DATAACL|RULE_1"},
		{"a rule dropping RoCE from one subnet", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "PACKET_ACTION": "DROP", "SRC_IP": "10.9.0.0/16", "L4_DST_PORT": "4791"}`), qos.SevWarning, "Ethernet0", "ACL_RULE|DATAACL|R"},
		// A policer drops only what exceeds its rate: a warning, but an
		// error beside a drop.
		{"a rule policing RoCE", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "POLICER_ACTION": "p1", "L4_DST_PORT": "4791"}`), qos.SevWarning, "Ethernet0", "ACL_RULE|DATAACL|R"},
		{"a rule policing and dropping RoCE", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "POLICER_ACTION": "p1", "PACKET_ACTION": "DROP", "L4_DST_PORT": "4791"}`), qos.SevError, "Ethernet0", "ACL_RULE|DATAACL|R"},
		{"a rule dropping DSCP 46 only", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "PACKET_ACTION": "DROP", "DSCP": "46"}`), "", "", ""},
		{"a rule dropping TCP", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|R": {"PRIORITY": "5", "PACKET_ACTION": "DROP", "IP_PROTOCOL": "6"}`), "", "", ""},
		{"a control-plane table", table("CTRLPLANE", `["Ethernet0"]`) + rules(dropRoCE), "", "", ""},
		// acl-loader's usual table: a permit from one subnet, then its
		// default rule; RoCE from elsewhere is dropped, so a warning.
		{"a permit from one subnet ahead of the default rule", table("L3", `["Ethernet0"]`) + rules(`"DATAACL|RULE_1": {"PRIORITY": "9999", "PACKET_ACTION": "FORWARD", "SRC_IP": "10.0.0.0/8"}`, deflt), qos.SevWarning, "Ethernet0", "ACL_RULE|DATAACL|DEFAULT_RULE"},
	}
	roce := 26
	for _, c := range cases {
		in := strings.Replace(base, "%s", c.edit, 1)
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var found []qos.Finding
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{RoCEDSCP: &roce}) {
			if f.Rule == qos.RuleDefaultRelied && strings.Contains(f.Message, "ACL") {
				found = append(found, f)
			}
		}
		if c.sev == "" {
			if len(found) > 0 {
				t.Errorf("%s: %+v, want no ACL finding", c.name, found)
			}
			continue
		}
		tbl, key, _ := strings.Cut(c.rule, "|")
		line := entryFieldLine([]byte(in), tbl, key, "")
		if len(found) != 1 || found[0].Severity != c.sev || found[0].Port != c.port || found[0].Where != c.rule ||
			!strings.Contains(found[0].Message, fmt.Sprintf("line %d: ", line)) || !strings.Contains(found[0].Message, "DSCP 26") {
			t.Errorf("%s: %+v, want one %s on %s at %s (line %d) naming DSCP 26", c.name, found, c.sev, c.port, c.rule, line)
		}
		if strings.Contains(c.name, "a permit from one subnet") && (len(found) != 1 || !strings.Contains(found[0].Message, "ACL_RULE|DATAACL|RULE_1")) {
			t.Errorf("%s: %+v, want the warning to name the permit ACL_RULE|DATAACL|RULE_1 ahead of it", c.name, found)
		}
	}
}
