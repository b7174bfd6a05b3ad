package sonic

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// managerConfig is a switch of two 100G ports with the cables given, the
// lossless profile of the name buffermgrd gives 100G ports on 5 m cables
// and a lossy one; each case adds its PORT_QOS_MAP and BUFFER_PG.
func managerConfig(t *testing.T, cable0, cable4, extra string) qos.DeviceConfig {
	t.Helper()
	cfg := `{
    "PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}},
    "CABLE_LENGTH": {"AZURE": {"Ethernet0": "` + cable0 + `", "Ethernet4": "` + cable4 + `"}},
    "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "3", "4": "4"}},
    "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000", "xoff": "2000000"}},
    "BUFFER_PROFILE": {
        "pg_lossless_100000_5m_profile": {"pool": "ingress_lossless_pool", "size": "18432", "xon": "18432", "xoff": "40000", "dynamic_th": "0"},
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}
    },
    ` + extra + `
}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

const managerPFC = `"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "tc_to_pg_map": "AZURE"}, "Ethernet4": {"pfc_enable": "3,4", "tc_to_pg_map": "AZURE"}}`

// pgProfile is the profile PG g of a port has in the model.
func pgProfile(t *testing.T, dc qos.DeviceConfig, port string, g int) *qos.PGConfig {
	t.Helper()
	pg := dc.Port(port).PG(g)
	if pg == nil {
		t.Fatalf("%s has no PG %d", port, g)
	}
	return pg
}

// TestManagerOverwritesItsKey: an entry on the key buffermgrd writes
// (BUFFER_PG|<port>|3-4 for pfc_enable 3,4) with another profile is
// overwritten with the lossless one, which the model holds; lint warns,
// naming the entry and the profile the switch uses.
func TestManagerOverwritesItsKey(t *testing.T) {
	dc := managerConfig(t, "5m", "5m", managerPFC+`,
    "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}, "Ethernet0|3-4": {"profile": "ingress_lossy_profile"},
                  "Ethernet4|0": {"profile": "ingress_lossy_profile"}, "Ethernet4|3-4": {"profile": "pg_lossless_100000_5m_profile"}}`)
	for _, port := range []string{"Ethernet0", "Ethernet4"} {
		for _, g := range []int{3, 4} {
			if pg := pgProfile(t, dc, port, g); pg.Profile != "pg_lossless_100000_5m_profile" || pg.Assumed || !qos.LosslessProfile(&pg.BufferProfile) {
				t.Errorf("%s PG %d = %+v, want the config's pg_lossless_100000_5m_profile", port, g, pg)
			}
		}
	}
	if pg := pgProfile(t, dc, "Ethernet0", 0); pg.Profile != "ingress_lossy_profile" {
		t.Errorf("PG 0 = %s, want its own ingress_lossy_profile (buffermgrd writes only the PFC priorities' PGs)", pg.Profile)
	}
	// Ethernet4's entry already names buffermgrd's profile: kept, no note.
	if len(dc.Overruled) != 1 {
		t.Fatalf("overruled %+v, want Ethernet0's entry only", dc.Overruled)
	}
	o := dc.Overruled[0]
	if o.Where != "BUFFER_PG|Ethernet0|3-4" || o.Refused || o.Line != 11 || !slices.Equal(o.Ports, []string{"Ethernet0"}) ||
		!strings.Contains(o.What, "overwrites the profile ingress_lossy_profile: the switch uses pg_lossless_100000_5m_profile, as the config defines it") {
		t.Errorf("overruled %+v", o)
	}
	dc.Sources = []string{"leaf1.json"}
	var found bool
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleOverruled {
			found = true
			if f.Severity != qos.SevWarning || f.Port != "Ethernet0" || !strings.HasPrefix(f.Message, "leaf1.json:11: BUFFER_PG|Ethernet0|3-4: SONiC's buffer manager writes this key itself") || !strings.Contains(f.Fix, "remove the entry") {
				t.Errorf("QOS021 = %+v", f)
			}
		}
	}
	if !found {
		t.Error("lint says nothing of the overwritten entry")
	}
}

// TestManagerOverwriteWithoutProfile: buffermgrd overwrites an entry
// naming a profile the config does not define as well (no QOS013: the
// switch never uses the name), and where the config does not define
// buffermgrd's profile either, the model holds the one labctl computes for
// the port's speed and cable, named as buffermgrd names it.
func TestManagerOverwriteWithoutProfile(t *testing.T) {
	dc := managerConfig(t, "5m", "5m", managerPFC+`,
    "BUFFER_PG": {"Ethernet0|3-4": {"profile": "pg_lossless_typo_profile"}, "Ethernet4|3-4": {"profile": "ingress_lossy_profile"}}`)
	if len(dc.Unresolved) != 0 {
		t.Errorf("unresolved %+v, want none: buffermgrd overwrites the undefined name", dc.Unresolved)
	}
	if pg := pgProfile(t, dc, "Ethernet0", 3); pg.Profile != "pg_lossless_100000_5m_profile" {
		t.Errorf("PG 3 = %+v", pg)
	}
	dc = managerConfig(t, "40m", "5m", strings.Replace(managerPFC, `"3,4"`, `"3"`, 1)+`,
    "BUFFER_PG": {"Ethernet0|3": {"profile": "ingress_lossy_profile"}}`)
	pg := pgProfile(t, dc, "Ethernet0", 3)
	if pg.Profile != "pg_lossless_100000_40m_profile" || !pg.Assumed || !qos.LosslessProfile(&pg.BufferProfile) {
		t.Errorf("PG 3 = %+v, want the computed pg_lossless_100000_40m_profile", pg)
	}
	if len(dc.Overruled) != 1 || !strings.Contains(dc.Overruled[0].What, "pg_lossless_100000_40m_profile, which buffermgrd creates from the SKU's pg_profile_lookup.ini") {
		t.Errorf("overruled %+v", dc.Overruled)
	}
}

// TestManagerKeepsWhatItDoesNotWrite: buffermgrd leaves an entry alone
// when it writes no PG for the port (a 0 m cable) or writes another key.
func TestManagerKeepsWhatItDoesNotWrite(t *testing.T) {
	// 0m: nothing written, so the entry stays and PG 4, without one, has
	// no profile.
	dc := managerConfig(t, "0m", "5m", managerPFC+`,
    "BUFFER_PG": {"Ethernet0|3": {"profile": "ingress_lossy_profile"}}`)
	if pg := pgProfile(t, dc, "Ethernet0", 3); pg.Profile != "ingress_lossy_profile" {
		t.Errorf("0m cable: PG 3 = %s, want the config's ingress_lossy_profile", pg.Profile)
	}
	if pg := pgProfile(t, dc, "Ethernet0", 4); pg.Profile != "" || pg.Assumed || qos.LosslessProfile(&pg.BufferProfile) {
		t.Errorf("0m cable: PG 4 = %+v, want no profile (buffermgrd writes none)", pg)
	}
	if pg := pgProfile(t, dc, "Ethernet4", 4); pg.Profile != "pg_lossless_100000_5m_profile" {
		t.Errorf("Ethernet4 (5m) PG 4 = %+v, want buffermgrd's", pg)
	}
	if len(dc.Overruled) != 0 {
		t.Errorf("overruled %+v, want none", dc.Overruled)
	}
}

// TestManagerReadsThePortsOwnEntry: buffermgrd reads pfc_enable from the
// PORT_QOS_MAP entry keyed by the port alone; an entry listing ports gives
// their PFC (orchagent) but no lossless PG (buffermgrd).
func TestManagerReadsThePortsOwnEntry(t *testing.T) {
	dc := managerConfig(t, "5m", "5m", `"PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"pfc_enable": "3,4", "tc_to_pg_map": "AZURE"}, "Ethernet4": {"pfc_enable": "3,4"}},
    "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}, "Ethernet4|0": {"profile": "ingress_lossy_profile"}}`)
	e0, e4 := dc.Port("Ethernet0"), dc.Port("Ethernet4")
	if !slices.Equal(e0.PFCPriorities, []int{3, 4}) || e0.ManagerLossless == nil || len(e0.ManagerLossless) != 0 || e4.ManagerLossless != nil {
		t.Fatalf("Ethernet0 PFC %v, manager's %v (want [3 4] and an empty list); Ethernet4 manager's %v (want nil: its own entry)", e0.PFCPriorities, e0.ManagerLossless, e4.ManagerLossless)
	}
	if pg := pgProfile(t, dc, "Ethernet0", 3); pg.Profile != "" || qos.LosslessProfile(&pg.BufferProfile) {
		t.Errorf("Ethernet0 PG 3 = %+v, want no profile: buffermgrd makes no lossless PG from a list's pfc_enable", pg)
	}
	if pg := pgProfile(t, dc, "Ethernet4", 3); pg.Profile != "pg_lossless_100000_5m_profile" {
		t.Errorf("Ethernet4 PG 3 = %+v, want buffermgrd's", pg)
	}
}

// TestManagerPGWithoutTheSpeed: a bare config without PORT gives no
// port speed, so labctl cannot size the lossless PG buffermgrd makes, but
// the PG is lossless all the same: lint reports no PG that cannot pause
// (QOS014) or DSCP that stops being lossless (QOS002), for a PG buffermgrd
// generates or one whose lossy profile it writes over (QOS021 warns).
func TestManagerPGWithoutTheSpeed(t *testing.T) {
	const noPort = `{
    "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "3"}},
    "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "tc_to_pg_map": "AZURE", "dscp_to_tc_map": "AZURE"}, "Ethernet4": {"pfc_enable": "3", "tc_to_pg_map": "AZURE", "dscp_to_tc_map": "AZURE"}},
    "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
    "BUFFER_PROFILE": {"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}},
    "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}, "Ethernet0|3": {"profile": "ingress_lossy_profile"}, "Ethernet4|0": {"profile": "ingress_lossy_profile"}}
}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(noPort)})
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"Ethernet0", "Ethernet4"} {
		if pg := pgProfile(t, dc, port, 3); !qos.LosslessProfile(&pg.BufferProfile) || !pg.SizedBySwitch {
			t.Errorf("%s PG 3 = %+v, want lossless, sized by the switch", port, pg)
		}
	}
	rules := map[string]int{}
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Severity != qos.SevInfo {
			rules[f.Rule]++
		}
	}
	if rules[qos.RuleLosslessPG] > 0 || rules[qos.RuleDSCPMapMismatch] > 0 || rules[qos.RuleOverruled] != 1 {
		t.Errorf("lint rules (errors and warnings) %v, want QOS021 alone of these", rules)
	}
}

// TestManagerCableOffLookup: buffermgrd looks the cable up as text in the
// SKU's pg_profile_lookup.ini, so "05m" has no row and it writes no
// lossless PG for the port; "5m" on the other port is looked up as ever.
func TestManagerCableOffLookup(t *testing.T) {
	dc := managerConfig(t, "05m", "5m", managerPFC)
	if pg := dc.Port("Ethernet0").PG(3); pg != nil && qos.LosslessProfile(&pg.BufferProfile) {
		t.Errorf("Ethernet0 (05m) PG 3 = %+v, want no lossless PG", pg)
	}
	if pg := pgProfile(t, dc, "Ethernet4", 3); !qos.LosslessProfile(&pg.BufferProfile) {
		t.Errorf("Ethernet4 (5m) PG 3 = %+v, want buffermgrd's lossless PG", pg)
	}
	i := slices.IndexFunc(dc.Overruled, func(o qos.Overruled) bool { return strings.HasPrefix(o.Where, "CABLE_LENGTH|") })
	if i < 0 || !slices.Equal(dc.Overruled[i].Ports, []string{"Ethernet0"}) || !strings.Contains(dc.Overruled[i].What, `the cable "05m" is not written as the SKU's pg_profile_lookup.ini writes lengths (5m)`) {
		t.Errorf("overruled %+v, want the 05m cable on Ethernet0", dc.Overruled)
	}
}

// TestPFCListReadOnce: buffermgrd reads pfc_enable from the port's own
// PORT_QOS_MAP entry even when orchagent takes the port's PFC from
// another entry, or applies none of the own one (a map it names is
// undefined). A malformed list there is refused at its line as it is
// where orchagent reads it, not read one way for PFC and another for the
// lossless PGs; a well-formed one gives the buffer manager's PGs.
func TestPFCListReadOnce(t *testing.T) {
	for _, c := range []struct{ name, pqm string }{
		{"own entry superseded by a list", `"Ethernet0": {"pfc_enable": "3-4"}, "Ethernet0,Ethernet4": {"pfc_enable": "3,4"}`},
		{"own entry orchagent does not apply", `"Ethernet0": {"pfc_enable": "3,x", "dscp_to_tc_map": "NOPE"}`},
		{"watchdog list of an entry not applied", `"Ethernet0": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3 4", "dscp_to_tc_map": "NOPE"}`},
	} {
		db := "{\n  \"PORT_QOS_MAP\": {\n    " + c.pqm + "\n  }\n}\n"
		_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
		if err == nil || !strings.Contains(err.Error(), "leaf1.json:3: parse sonic config of leaf1: PORT_QOS_MAP|Ethernet0 p") || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%s: err = %v, want a refusal of PORT_QOS_MAP|Ethernet0 at line 3 with its fix", c.name, err)
		}
	}
	// Mutation of a working config: the port's own entry names an
	// undefined map, so orchagent gives it no PFC, but buffermgrd still
	// makes PGs 3-4 lossless from the same list the resolver read.
	dc := managerConfig(t, "5m", "5m", `"DSCP_TO_TC_MAP": {"AZURE": {"3": "3"}},
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "dscp_to_tc_map": "NOPE"}, "Ethernet4": {"pfc_enable": "3,4", "tc_to_pg_map": "AZURE"}}`)
	e0 := dc.Port("Ethernet0")
	if len(e0.PFCPriorities) != 0 || !slices.Equal(e0.ManagerLossless, []int{3, 4}) {
		t.Errorf("Ethernet0 PFC %v, manager's %v; want none and [3 4]", e0.PFCPriorities, e0.ManagerLossless)
	}
	if pg := pgProfile(t, dc, "Ethernet0", 4); pg.Profile != "pg_lossless_100000_5m_profile" {
		t.Errorf("Ethernet0 PG 4 = %+v, want buffermgrd's lossless profile", pg)
	}
}
