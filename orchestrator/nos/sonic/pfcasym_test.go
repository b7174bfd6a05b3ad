package sonic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// TestParsePFCAsym: portsorch's pfc_asym is the PORT table's: on makes the
// port obey PFC frames for every priority (the model's PFCAsym), off or
// none does not, another value is refused at its line; in PORT_QOS_MAP,
// whose handler passes over it, it changes nothing, and a render of the
// model writes it back where SONiC reads it.
func TestParsePFCAsym(t *testing.T) {
	db := `{"PORT": {"Ethernet0": {"pfc_asym": "on"}, "Ethernet4": {"pfc_asym": "off"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}, "Ethernet8": {"pfc_enable": "3", "pfc_asym": "on"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	for port, want := range map[string]bool{"Ethernet0": true, "Ethernet4": false, "Ethernet8": false} {
		if got := dc.Port(port).PFCAsym; got != want {
			t.Errorf("%s: PFCAsym %v, want %v", port, got, want)
		}
	}
	// Rendered: a config of labctl's own, with asymmetric PFC on a port.
	golden, err := os.ReadFile(filepath.Join("testdata", "golden", "ecn-on_pfc-on", "leaf1.json"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: golden})
	if err != nil {
		t.Fatal(err)
	}
	full.Ports[0].PFCAsym = true
	b, err := Render(full)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: b})
	if err != nil {
		t.Fatal(err)
	}
	if !back.Ports[0].PFCAsym || back.Ports[1].PFCAsym {
		t.Errorf("round trip: %s %v, %s %v", back.Ports[0].Name, back.Ports[0].PFCAsym, back.Ports[1].Name, back.Ports[1].PFCAsym)
	}
	_, err = Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(`{"PORT": {"Ethernet0": {"pfc_asym": "yes"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`)})
	if err == nil || !strings.Contains(err.Error(), "pfc_asym") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("pfc_asym yes: %v, want a refusal naming the field with the fix", err)
	}
}
