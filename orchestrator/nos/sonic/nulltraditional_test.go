package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// BUFFER_PG profile NULL asks the dynamic buffer manager to size the PG.
// In the traditional model buffermgrd copies the entry as it is and
// bufferorch finds no BUFFER_PROFILE named NULL: the PG has no profile
// (QOS013), unless the key is one buffermgrd writes itself for the
// port's PFC priorities, which it writes over with its lossless profile.
// With buffer_model dynamic the manager sizes it (lossless).
func TestBufferPGNullInTheTraditionalModel(t *testing.T) {
	cfg := func(meta string) string {
		return `{` + meta + `
		"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
		"BUFFER_PROFILE": {"pg_lossless_400000_5m_profile": {"pool": "ingress_lossless_pool", "size": "90000", "xon": "8192", "xoff": "80000", "dynamic_th": "0"}},
		"PORT": {"Ethernet0": {"speed": "400000"}, "Ethernet4": {"speed": "400000"}},
		"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet4": "5m"}},
		"BUFFER_PG": {"Ethernet0|0": {"profile": "NULL"}, "Ethernet4|3": {"profile": "NULL"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}}`
	}
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(cfg(""))})
	if err != nil {
		t.Fatal(err)
	}
	if pg := dc.Port("Ethernet0").PG(0); pg == nil || pg.Profile != "" || pg.Assumed {
		t.Errorf("traditional, Ethernet0 PG 0 NULL = %+v, want no profile", pg)
	}
	if pg := dc.Port("Ethernet4").PG(3); pg == nil || pg.Profile != "pg_lossless_400000_5m_profile" {
		t.Errorf("traditional, Ethernet4 PG 3 NULL on buffermgrd's key = %+v, want its profile pg_lossless_400000_5m_profile", pg)
	}
	var null []string
	for _, u := range dc.Unresolved {
		if u.Ref == "NULL" && strings.Contains(u.Fix, "buffer_model dynamic") {
			null = append(null, u.Where)
		}
	}
	if strings.Join(null, " ") != "BUFFER_PG|Ethernet0|0" {
		t.Errorf("unresolved NULL references %v, want BUFFER_PG|Ethernet0|0 with a fix naming buffer_model dynamic", null)
	}
	dyn, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(cfg(`"DEVICE_METADATA": {"localhost": {"buffer_model": "dynamic"}},`))})
	if err != nil {
		t.Fatal(err)
	}
	if len(dyn.Unresolved) != 0 {
		t.Errorf("dynamic: unresolved %+v, want none (the manager sizes NULL)", dyn.Unresolved)
	}
}
