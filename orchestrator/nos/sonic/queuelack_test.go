package sonic

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// qosorch's handleQueueTable applies a QUEUE entry port by port, in the
// order its key lists them, and returns at the first it cannot find
// ("Port with alias not found", task_invalid_entry): the ports before a
// port the switch lacks get the entry, it and those after it do not.
// Every listed port the switch has got it. Where no port the switch has
// is left, the entries naming the lacking port say all there is.
func TestQueueListKeyNamingAPortTheSwitchLacks(t *testing.T) {
	for _, c := range []struct {
		key  string
		want map[string]bool // port: queue 3 strict
		says string          // what the note says of the ports left
	}{
		{"Ethernet0,Ethernet1000,Ethernet4|3", map[string]bool{"Ethernet0": true, "Ethernet4": false, "Ethernet8": false}, "Ethernet0 got it, and Ethernet4, which the switch has, does not"},
		{"Ethernet1000,Ethernet0|3", map[string]bool{"Ethernet0": false, "Ethernet4": false, "Ethernet8": false}, "so Ethernet0, which the switch has, does not get it either"},
		{"Ethernet8,Ethernet0,Ethernet1000|3", map[string]bool{"Ethernet0": true, "Ethernet4": false, "Ethernet8": true}, ""},
	} {
		in := `{"PORT": {"Ethernet0": {"lanes": "0,1"}, "Ethernet4": {"lanes": "4,5"}, "Ethernet8": {"lanes": "8,9"}},
			"DEVICE_METADATA": {"localhost": {"hwsku": "Force10-S6000"}},
			"SCHEDULER": {"strict": {"type": "STRICT"}},
			"QUEUE": {"` + c.key + `": {"scheduler": "strict"}},
			"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}, "Ethernet8": {"pfc_enable": "3"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		var missed []string
		for port, strict := range c.want {
			if got := dc.Port(port).Queue(3).Strict; got != strict {
				t.Errorf("%s: %s queue 3 strict %v, want %v", c.key, port, got, strict)
			}
			if !strict && strings.Contains(c.key, port) {
				missed = append(missed, port)
			}
		}
		found := false
		for _, o := range dc.Overruled {
			if o.Where == "QUEUE|"+c.key && strings.Contains(o.What, "handleQueueTable") {
				found = true
				if !strings.Contains(o.What, c.says) {
					t.Errorf("%s: the note does not say %q: %s", c.key, c.says, o.What)
				}
				for _, p := range missed {
					if !strings.Contains(o.What, p) {
						t.Errorf("%s: the note does not name %s, which does not get the entry: %s", c.key, p, o.What)
					}
				}
			}
		}
		if found != (len(missed) > 0) {
			t.Errorf("%s: a note of the ports qosorch stops before %v, want %v (the ports it leaves: %v): %+v", c.key, found, len(missed) > 0, missed, dc.Overruled)
		}
	}
}
