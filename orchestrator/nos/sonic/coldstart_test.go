package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A BUFFER_PG or BUFFER_QUEUE entry of the config that bufferorch never
// applies keeps the ports its key names pending at a cold start
// (initBufferReadyList, isPortReady), and with them every orch that waits
// for allPortsReady: one QOS021 warning names the entries and ports. A key
// that does not split into two parts is not in bufferorch's list, and a
// config whose entries all apply has no such warning.
func TestColdStartStallOnUnappliedBufferEntries(t *testing.T) {
	base := `"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "1000000"}},
		"BUFFER_PROFILE": {"p": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}, "Ethernet8": {"pfc_enable": "3"}}`
	for _, c := range []struct {
		pg      string
		entries int
		ports   []string
	}{
		{`"Ethernet0|0": {"profile": "p"}, "Ethernet4|0": {"profile": "p"}`, 0, nil},
		{`"Ethernet0|0": {"profile": "nosuch"}, "Ethernet4|0": {"profile": "p"}`, 1, []string{"Ethernet0"}},
		{`"Ethernet0,Ethernet4|0": {"profile": "nosuch"}, "Ethernet8|0": {"profile": "p"}`, 1, []string{"Ethernet0", "Ethernet4"}},
		{`"Ethernet0|1-1": {"profile": "p"}, "Ethernet4|9": {"profile": "p"}`, 2, []string{"Ethernet0", "Ethernet4"}},
		{`"Ethernet0|0|1": {"profile": "p"}`, 0, nil},
	} {
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{` + base + `, "BUFFER_PG": {` + c.pg + `}}`)})
		if err != nil {
			t.Fatal(err)
		}
		var cold []qos.Overruled
		for _, o := range dc.Overruled {
			if strings.Contains(o.Where, "cold start") {
				cold = append(cold, o)
			}
		}
		switch {
		case c.entries == 0 && len(cold) > 0:
			t.Errorf("%s: cold start warning %+v, want none", c.pg, cold)
		case c.entries > 0 && (len(cold) != 1 || !strings.Contains(cold[0].What, []string{"", "1 entry", "2 entries"}[c.entries]) || strings.Join(cold[0].Ports, " ") != strings.Join(c.ports, " ") || cold[0].Refused):
			t.Errorf("%s: cold start warnings %+v, want one (a warning) naming %d entries and ports %v", c.pg, cold, c.entries, c.ports)
		}
	}
	dc, _ := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{` + base + `, "BUFFER_PG": {"Ethernet0|0": {"profile": "nosuch"}}}`)})
	if !strings.Contains(strings.Join(findingTexts(qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})), "\n"), "allPortsReady") {
		t.Error("lint does not report the cold start's stall")
	}
}

func findingTexts(fs []qos.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Message)
	}
	return out
}
