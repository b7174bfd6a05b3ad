package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A BUFFER_PG or BUFFER_QUEUE entry without a profile field (or with an
// empty one) is one bufferorch fails: processPriorityGroup and
// processQueue resolve the profile (resolveFieldRefValue: field_not_found,
// or empty), log the failure and return task_failed, and doTask drops the
// entry. The PG or queue keeps what it has without it, and lint says so
// at the entry's line (QOS021); it said nothing.
func TestBufferEntryWithoutProfile(t *testing.T) {
	for _, c := range []struct{ name, table, entry, line string }{
		{"PG, no field", "BUFFER_PG", `{"NULL": "NULL"}`, "leaf1.json:5"},
		{"PG, empty", "BUFFER_PG", `{"profile": ""}`, "leaf1.json:5"},
		{"queue, no field", "BUFFER_QUEUE", `{}`, "leaf1.json:5"},
	} {
		in := `{"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"},
 "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "10000000"}},
 "BUFFER_PROFILE": {"lossy": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}, "qlossy": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "3"}},
 "` + c.table + `": {
  "Ethernet0|0": ` + c.entry + `
 },
 "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		dc.Sources = []string{"leaf1.json"}
		found := false
		for _, o := range dc.Overruled {
			if o.Where == c.table+"|Ethernet0|0" && o.Refused && strings.Contains(o.What, "task_failed") {
				found = true
				if pos := dc.Position(o); pos != c.line {
					t.Errorf("%s: placed at %q, want %s", c.name, pos, c.line)
				}
			}
		}
		if !found {
			t.Errorf("%s: no note of %s|Ethernet0|0 without a profile: %+v", c.name, c.table, dc.Overruled)
		}
	}
}
