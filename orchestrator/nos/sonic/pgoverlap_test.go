package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// bufferorch applies a BUFFER_PG entry only once its profile resolves
// (processPriorityGroup: task_need_retry while the profile is not there,
// task_failed for a trimming one or an entry without one): an entry it
// never applies does not take a PG from the entry before it in key order,
// which keeps the PG. In the traditional model profile NULL is such an
// entry. One it applies takes the PG, as before (lossy here: lint's
// QOS014, and the run sees it).
func TestBufferPGOverlapSkipsEntriesNeverApplied(t *testing.T) {
	in := `{
		"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
		"BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "4096", "xon": "8192", "xoff": "200000", "dynamic_th": "0"},
			"lossy": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
			"trim": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3", "packet_discard_action": "trim"}},
		"BUFFER_PG": {
			"Ethernet0|3": {"profile": "lossless"}, "Ethernet0|3-4": {"profile": "NULL"},
			"Ethernet4|3": {"profile": "lossless"}, "Ethernet4|3-4": {"profile": "nosuch"},
			"Ethernet8|3": {"profile": "lossless"}, "Ethernet8|3-4": {"profile": "trim"},
			"Ethernet12|3": {"profile": "lossless"}, "Ethernet12|3-4": {"profile": "lossy"}},
		"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
		"PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "AZURE"}, "Ethernet4": {"tc_to_pg_map": "AZURE"},
			"Ethernet8": {"tc_to_pg_map": "AZURE"}, "Ethernet12": {"tc_to_pg_map": "AZURE"}}
	}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		port, profile, origin string
	}{
		{"Ethernet0", "lossless", "BUFFER_PG|Ethernet0|3"},
		{"Ethernet4", "lossless", "BUFFER_PG|Ethernet4|3"},
		{"Ethernet8", "lossless", "BUFFER_PG|Ethernet8|3"},
		{"Ethernet12", "lossy", "BUFFER_PG|Ethernet12|3-4"},
	} {
		var pg *qos.PGConfig
		for i := range dc.Port(c.port).PGs {
			if g := &dc.Port(c.port).PGs[i]; g.PG == 3 {
				pg = g
			}
		}
		if pg == nil || pg.Profile != c.profile || pg.Origin != c.origin {
			t.Errorf("%s PG 3 = %+v, want profile %s from %s", c.port, pg, c.profile, c.origin)
		}
	}
	// The entries never applied are still named, with what the PG keeps;
	// no overlap warning pits them against the entry that applies.
	for _, key := range []string{"Ethernet0|3-4", "Ethernet4|3-4"} {
		found := false
		for _, u := range dc.Unresolved {
			if u.Where == "BUFFER_PG|"+key && strings.Contains(u.Effect, "BUFFER_PG|"+strings.Split(key, "|")[0]+"|3 gives") {
				found = true
			}
		}
		if !found {
			t.Errorf("BUFFER_PG|%s: no note saying the PG keeps what the entry before gives it: %+v", key, dc.Unresolved)
		}
	}
	var overlaps []string
	for _, o := range dc.Overruled {
		if strings.Contains(o.What, "entries give PG") {
			overlaps = append(overlaps, o.Where)
		}
	}
	if len(overlaps) != 1 || overlaps[0] != "BUFFER_PG|Ethernet12|3" {
		t.Errorf("overlap warnings on %v, want one, on BUFFER_PG|Ethernet12|3", overlaps)
	}
	trimmed := false
	for _, o := range dc.Overruled {
		trimmed = trimmed || o.Where == "BUFFER_PG|Ethernet8|3-4" && strings.Contains(o.What, "trim")
	}
	if !trimmed {
		t.Errorf("the trimming entry is not named: %+v", dc.Overruled)
	}
}

// bufferorch's processQueue retries a BUFFER_QUEUE entry whose profile it
// has not created, as processPriorityGroup does: the queue keeps the
// profile of the entry before it in key order.
func TestBufferQueueOverlapSkipsEntriesNeverApplied(t *testing.T) {
	in := `{
		"BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "10000000"}},
		"BUFFER_PROFILE": {"egress": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"},
			"both": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "1", "static_th": "100000"}},
		"BUFFER_QUEUE": {
			"Ethernet0|3": {"profile": "egress"}, "Ethernet0|3-4": {"profile": "nosuch"},
			"Ethernet4|3": {"profile": "egress"}, "Ethernet4|3-4": {"profile": "both"}}
	}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"Ethernet0", "Ethernet4"} {
		q := dc.Port(port).Queue(3)
		if q == nil || q.Buffer == nil || q.Buffer.Profile != "egress" || !strings.Contains(q.Origin, "BUFFER_QUEUE|"+port+"|3") || strings.Contains(q.Origin, "3-4") {
			t.Errorf("%s queue 3 = %+v, want profile egress from BUFFER_QUEUE|%s|3", port, q, port)
		}
	}
	for _, o := range dc.Overruled {
		if strings.Contains(o.What, "entries give queue") {
			t.Errorf("an overlap warning pits an entry bufferorch never applies against one it does: %+v", o)
		}
	}
	n := 0
	for _, u := range dc.Unresolved {
		if strings.HasSuffix(u.Where, "|3-4") && strings.Contains(u.Effect, "|3 gives") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d notes saying the queue keeps what the entry before gives it, want 2: %+v", n, dc.Unresolved)
	}
}

// An entry bufferorch never applies is named wherever it sits in key
// order: before the entry that applies (Ethernet0|3, an undefined profile,
// then Ethernet0|3-4), before buffermgrd's own key (Ethernet4|3 before the
// Ethernet4|3-4 it writes for pfc_enable "3,4"), or beside another that
// never applies either (Ethernet8|3 and Ethernet8|3-4). Each holds its
// port at a cold start (initBufferReadyList lists every key), so the
// cold-start warning names it too.
func TestBufferEntriesNeverAppliedBeforeTheOneThatApplies(t *testing.T) {
	in := `{
		"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"},
			"egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "10000000"}},
		"BUFFER_PROFILE": {"pg_lossless_100000_5m_profile": {"pool": "ingress_lossless_pool", "size": "4096", "xon": "8192", "xoff": "200000", "dynamic_th": "0"},
			"egress": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"}},
		"PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}, "Ethernet8": {"speed": "100000"}},
		"CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet4": "5m", "Ethernet8": "5m"}},
		"BUFFER_PG": {
			"Ethernet0|3": {"profile": "pg_lossless_typo"}, "Ethernet0|3-4": {"profile": "pg_lossless_100000_5m_profile"},
			"Ethernet4|3": {"profile": "pg_lossless_typo"},
			"Ethernet8|3": {"profile": "pg_lossless_typo"}, "Ethernet8|3-4": {"profile": "pg_lossless_typo2"}},
		"BUFFER_QUEUE": {"Ethernet0|3": {"profile": "egress_typo"}, "Ethernet0|3-4": {"profile": "egress"}},
		"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}},
		"PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "AZURE", "pfc_enable": "3,4"}, "Ethernet4": {"tc_to_pg_map": "AZURE", "pfc_enable": "3,4"},
			"Ethernet8": {"tc_to_pg_map": "AZURE"}}
	}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if q := dc.Port("Ethernet0").Queue(3); q == nil || q.Buffer == nil || q.Buffer.Profile != "egress" {
		t.Errorf("Ethernet0 queue 3 = %+v, want profile egress from BUFFER_QUEUE|Ethernet0|3-4", q)
	}
	for _, c := range []struct{ where, effect string }{
		{"BUFFER_PG|Ethernet0|3", "BUFFER_PG|Ethernet0|3-4 gives"},
		{"BUFFER_PG|Ethernet4|3", "buffermgrd's BUFFER_PG|Ethernet4|3-4 gives"},
		{"BUFFER_PG|Ethernet8|3", "no buffer profile"},
		{"BUFFER_PG|Ethernet8|3-4", "no buffer profile"},
		{"BUFFER_QUEUE|Ethernet0|3", "BUFFER_QUEUE|Ethernet0|3-4 gives"},
	} {
		found := false
		for _, u := range dc.Unresolved {
			found = found || u.Where == c.where && strings.Contains(u.Effect, c.effect)
		}
		if !found {
			t.Errorf("%s: no note saying bufferorch never applies it (%q): %+v", c.where, c.effect, dc.Unresolved)
		}
	}
	var cold *qos.Overruled
	for i, o := range dc.Overruled {
		if strings.Contains(o.Where, "cold start") {
			cold = &dc.Overruled[i]
		}
	}
	if cold == nil || !strings.Contains(cold.What, "5 entries") || strings.Join(cold.Ports, " ") != "Ethernet0 Ethernet4 Ethernet8" {
		t.Errorf("cold start warning %+v, want 5 entries on Ethernet0, Ethernet4, Ethernet8", cold)
	}
}
