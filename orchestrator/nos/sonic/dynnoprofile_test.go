package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// In the dynamic buffer model only profile NULL asks the manager to size
// a lossless PG: buffermgrdyn's handleSingleBufferPgEntry refuses an
// empty profile ("Invalid format of reference to profile") and an entry
// written {} ({"NULL": "NULL"} in CONFIG_DB: "Invalid field NULL"), both
// task_invalid_entry, and the PG gets nothing from them. labctl took both
// as lossless PGs the manager sizes.
func TestDynamicBufferPGWithoutProfile(t *testing.T) {
	for _, c := range []struct{ name, entry string }{
		{"empty", `{"profile": ""}`},
		{"no field", `{"NULL": "NULL"}`},
	} {
		in := `{"DEVICE_METADATA": {"localhost": {"buffer_model": "dynamic"}},
"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
"PORT": {"Ethernet0": {"speed": "400000"}, "Ethernet4": {"speed": "400000"}},
"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet4": "5m"}},
"BUFFER_PG": {"Ethernet0|3": ` + c.entry + `, "Ethernet4|3": {"profile": "NULL"}},
"TC_TO_PRIORITY_GROUP_MAP": {"A": {"3": "3"}},
"PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "A", "pfc_enable": "3"}, "Ethernet4": {"tc_to_pg_map": "A", "pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if cl := dc.Port("Ethernet0").Class(3); cl.Lossless {
			t.Errorf("%s: Ethernet0 TC3 lossless on PG %+v, want lossy (buffermgrdyn refuses the entry)", c.name, cl.PGConfig)
		}
		if cl := dc.Port("Ethernet4").Class(3); !cl.Lossless {
			t.Errorf("%s: Ethernet4 TC3 (profile NULL) lossy (%+v, PFC %v), want the lossless PG the manager sizes", c.name, cl.PGConfig, cl.PFC)
		}
		found := false
		for _, o := range dc.Overruled {
			found = found || o.Where == "BUFFER_PG|Ethernet0|3" && o.Refused && strings.Contains(o.What, "buffermgrdyn") && strings.Contains(o.What, "task_invalid_entry")
		}
		if !found {
			t.Errorf("%s: no note naming buffermgrdyn at BUFFER_PG|Ethernet0|3: %+v", c.name, dc.Overruled)
		}
	}
}
