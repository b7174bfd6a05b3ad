package sonic

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// A PORTCHANNEL_MEMBER entry (PortChannel<n>|<port>, as a user adds a
// port to a LAG) makes the port a member of the port channel: teammgrd
// runs teamd's LACP runner for every PORTCHANNEL, so a member whose
// link's other end is in none carries nothing (qos.ChannelAlone, lint's
// QOS026). labctl read no PORTCHANNEL_MEMBER and took the port as before.
func TestPortChannelMemberIsTheChannel(t *testing.T) {
	in := `{"PORTCHANNEL": {"PortChannel1": {"admin_status": "up", "min_links": "1"}},
		"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	if got := dc.Port("Ethernet4").Channel; got != "PortChannel1" {
		t.Errorf("Ethernet4's port channel %q, want PortChannel1", got)
	}
	if got := dc.Port("Ethernet0").Channel; got != "" {
		t.Errorf("Ethernet0's port channel %q, want none", got)
	}
	if why := qos.ChannelAlone(dc.Port("Ethernet4"), nil); why == "" {
		t.Errorf("a member facing no port channel carries traffic")
	}
	for _, bad := range []string{`"PortChannel1"`, `"Ethernet4|PortChannel1"`} {
		in := `{"PORTCHANNEL_MEMBER": {` + bad + `: {}}, "PORT_QOS_MAP": {"Ethernet4": {"pfc_enable": "3"}}}`
		if _, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)}); err == nil {
			t.Errorf("PORTCHANNEL_MEMBER key %s read, want it refused at its line", bad)
		}
	}
}
