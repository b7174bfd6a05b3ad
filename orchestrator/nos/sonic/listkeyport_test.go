package sonic

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/fabric"
	"github.com/labctl/labctl/orchestrator/qos"
)

// bufferorch looks up every port of a BUFFER_PG or BUFFER_QUEUE key
// before it applies any (processPriorityGroup, processQueue: "Port with
// alias not found", task_invalid_entry): a list naming a port the switch
// lacks applies to none of its ports. The PORT table of a whole
// CONFIG_DB (DEVICE_METADATA's hwsku given, every PORT entry with its
// lanes, as config save writes it) says which ports the switch has; a
// file config load merges onto the switch's own says nothing of the
// ports it leaves out.
func TestBufferListKeyNamingAPortTheSwitchLacks(t *testing.T) {
	for _, c := range []struct {
		name, port string
		refused    bool
	}{
		{"a whole CONFIG_DB", `"Ethernet0": {"lanes": "0,1", "admin_status": "up"}, "Ethernet4": {"lanes": "4,5", "admin_status": "up"}}, "DEVICE_METADATA": {"localhost": {"hwsku": "Force10-S6000"}`, true},
		{"PORT entries merged onto the switch's own", `"Ethernet0": {"admin_status": "up"}, "Ethernet4": {"admin_status": "up"}}, "DEVICE_METADATA": {"localhost": {"hwsku": "Force10-S6000"}`, false},
		{"whole PORT entries in a file of some tables", `"Ethernet0": {"lanes": "0,1", "admin_status": "up"}, "Ethernet4": {"lanes": "4,5", "admin_status": "up"}`, false},
	} {
		in := `{"PORT": {` + c.port + `},
			"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"},
				"egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "10000000"}},
			"BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "4096", "xon": "8192", "xoff": "200000", "dynamic_th": "0"},
				"egress": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"}},
			"BUFFER_PG": {"Ethernet0,Ethernet1000|3": {"profile": "lossless"}, "Ethernet4|3": {"profile": "lossless"}},
			"BUFFER_QUEUE": {"Ethernet0,Ethernet1000|3": {"profile": "egress"}, "Ethernet4|3": {"profile": "egress"}},
			"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
			"PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "AZURE"}, "Ethernet4": {"tc_to_pg_map": "AZURE"}}
		}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(in)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		pg3 := func(port string) string {
			for _, g := range dc.Port(port).PGs {
				if g.PG == 3 {
					return g.Profile
				}
			}
			return ""
		}
		if pg3("Ethernet4") != "lossless" || dc.Port("Ethernet4").Queue(3).Buffer == nil {
			t.Errorf("%s: Ethernet4 lost its own entries", c.name)
		}
		gotPG, gotQ := pg3("Ethernet0") == "lossless", dc.Port("Ethernet0").Queue(3).Buffer != nil
		if gotPG == c.refused || gotQ == c.refused {
			t.Errorf("%s: Ethernet0 has the list's PG 3 profile %v, queue 3 profile %v; want %v", c.name, gotPG, gotQ, !c.refused)
		}
		n := 0
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if f.Rule == qos.RuleOverruled && f.Severity == qos.SevError && strings.Contains(f.Message, "Ethernet0,Ethernet1000|3") &&
				strings.Contains(f.Message, "Ethernet1000 is not in the config's PORT table") && strings.Contains(f.Message, "whole entry") && f.Fix != "" {
				n++
			}
		}
		if want := map[bool]int{true: 2, false: 0}[c.refused]; n != want {
			t.Errorf("%s: %d QOS021 errors naming the missing port and the whole entry refused, want %d", c.name, n, want)
		}
	}
}

// A key naming only a port a whole CONFIG_DB's PORT table leaves out
// (Ethernet1000|3) holds nothing at a cold start: portsorch's
// m_pendingPortSet holds only the ports of APPL_DB's PORT_TABLE, so a
// missing port is never pending, and a list key (Ethernet0,Ethernet1000|0)
// holds the ports the switch has only. The missing port is no port of the
// model (no findings on it as on a port), and one note names the entries
// naming it, with a fix for a single-port key.
func TestKeysNamingOnlyAPortTheSwitchLacks(t *testing.T) {
	head := `{"PORT": {"Ethernet0": {"lanes": "0,1", "admin_status": "up"}, "Ethernet4": {"lanes": "4,5", "admin_status": "up"}},
		"DEVICE_METADATA": {"localhost": {"hwsku": "Force10-S6000"}},
		"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
		"BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "4096", "xon": "8192", "xoff": "200000", "dynamic_th": "0"}},
		"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
		"PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "AZURE"}, "Ethernet4": {"tc_to_pg_map": "AZURE"}, "Ethernet1000": {"tc_to_pg_map": "AZURE", "pfc_enable": "3"}},
		"PFC_WD": {"Ethernet1000": {"action": "drop", "detection_time": "200", "restoration_time": "200"}},
		"BUFFER_PG": {"Ethernet0|3": {"profile": "lossless"}, "Ethernet4|3": {"profile": "lossless"}, "Ethernet1000|3": {"profile": "lossless"}`
	for _, c := range []struct {
		name, more string
		coldPorts  string
	}{
		{"a single-port key", ``, ""},
		{"and a list key", `, "Ethernet0,Ethernet1000|0": {"profile": "lossless"}`, "Ethernet0"},
	} {
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(head + c.more + `}}`)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if dc.Port("Ethernet1000") != nil {
			t.Errorf("%s: Ethernet1000, which the switch lacks, is a port of the model", c.name)
		}
		cold := ""
		for _, o := range dc.Overruled {
			if strings.Contains(o.Where, "cold start") {
				cold = strings.Join(o.Ports, " ")
				if strings.Contains(o.What, "Ethernet1000|3") {
					t.Errorf("%s: the cold start warning names Ethernet1000|3, which holds no port: %s", c.name, o.What)
				}
			}
		}
		if cold != c.coldPorts {
			t.Errorf("%s: the cold start warning holds %q, want %q", c.name, cold, c.coldPorts)
		}
		named := false
		for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
			if strings.Contains(f.Message, "Ethernet1000") && strings.Contains(f.Fix, "from the list") && !strings.Contains(f.Message, ",Ethernet1000") {
				t.Errorf("%s: a single-port key's fix says to drop the port from a list: %s: %s", c.name, f.Message, f.Fix)
			}
			if f.Rule == qos.RuleOverruled && slices.Contains(f.Ports, "Ethernet1000") || f.Port == "Ethernet1000" {
				if strings.Contains(f.Message, "PORT table") && strings.Contains(f.Message, "PFC_WD") {
					named = true
					continue
				}
				if f.Rule != qos.RuleOverruled {
					t.Errorf("%s: a finding on Ethernet1000 as on a port of the switch: %s %s", c.name, f.Rule, f.Message)
				}
			}
		}
		if !named {
			t.Errorf("%s: no finding naming Ethernet1000's entries (PORT_QOS_MAP, PFC_WD, BUFFER_PG) as naming a port the PORT table lacks", c.name)
		}
	}
}

// In a lab, the lab says which ports the switch has (qos.Device.NoSuchPort,
// ParseFor), though its rendered configs hold no PORT table: a key listing
// Ethernet1000 beside Ethernet0 applies to neither, one listing Ethernet4
// (a front-panel port the lab does not wire) applies, and the notes name
// the switch's front-panel ports.
func TestBufferListKeyInALab(t *testing.T) {
	in := `{"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "10000000"}},
		"BUFFER_PROFILE": {"lossless": {"pool": "ingress_lossless_pool", "size": "4096", "xon": "8192", "xoff": "200000", "dynamic_th": "0"}},
		"BUFFER_PG": {"Ethernet0,Ethernet1000|3": {"profile": "lossless"}, "Ethernet4,Ethernet8|3": {"profile": "lossless"}},
		"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3"}},
		"PORT_QOS_MAP": {"Ethernet0,Ethernet4,Ethernet8": {"tc_to_pg_map": "AZURE"}}}`
	dev := &qos.Device{Name: "leaf1", Kind: fabric.KindSonicVS, FrontPanel: 64, Ports: []qos.Port{{Name: "Ethernet0"}, {Name: "Ethernet8"}}}
	dc, err := ParseFor(dev, qos.Source{Name: "leaf1.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	pg3 := func(port string) string {
		for _, g := range dc.Port(port).PGs {
			if g.PG == 3 {
				return g.Profile
			}
		}
		return ""
	}
	if pg3("Ethernet0") == "lossless" || pg3("Ethernet4") != "lossless" || pg3("Ethernet8") != "lossless" {
		t.Errorf("PG 3 profiles Ethernet0 %q, Ethernet4 %q, Ethernet8 %q; want none, lossless, lossless", pg3("Ethernet0"), pg3("Ethernet4"), pg3("Ethernet8"))
	}
	if dc.Port("Ethernet1000") != nil {
		t.Error("Ethernet1000, which the switch lacks, is a port of the model")
	}
	found := false
	for _, o := range dc.Overruled {
		found = found || o.Where == "BUFFER_PG|Ethernet0,Ethernet1000|3" && o.Refused && strings.Contains(o.What, "front-panel ports are Ethernet0..Ethernet252")
	}
	if !found {
		t.Errorf("no refusal of BUFFER_PG|Ethernet0,Ethernet1000|3 naming the switch's ports: %+v", dc.Overruled)
	}
}
