package sonic

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// cfgUpdate reports the -update flag. The flag is registered once per test
// binary by another test file of this package (counters_test.go), so it is
// looked up rather than defined here.
func cfgUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// cfgVariants are the four ECN/PFC variants of the RoCE exercise.
func cfgVariants(t testing.TB) map[string][]qos.DeviceConfig {
	t.Helper()
	base, err := qos.Profile("roce-dcqcn")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]qos.DeviceConfig{}
	for _, ecn := range []bool{true, false} {
		for _, pfc := range []bool{true, false} {
			name := "ecn-" + onOff(ecn) + "_pfc-" + onOff(pfc)
			cfgs, err := qos.ApplyAll(base.WithECN(ecn).WithPFC(pfc), qos.TestDevices())
			if err != nil {
				t.Fatal(err)
			}
			out[name] = cfgs
		}
	}
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// cfgComparable clears what CONFIG_DB QoS tables do not carry: peers, the
// MTU (PORT mtu only where it is not SONiC's default: parseBack compares
// the MTU the port runs at), and the speed of ports without a lossless
// buffer profile.
func cfgComparable(d qos.DeviceConfig) qos.DeviceConfig {
	d.NOS, d.Fields, d.Defaults, d.Unresolved, d.DefaultPort = "", nil, nil, nil, nil
	d.PeersKnown = false
	for i := range d.Ports {
		p := &d.Ports[i]
		p.Peer = ""
		p.MTU, p.DefaultMTU = 0, 0
		p.Fabric = true
		p.Origins = nil
		for j := range p.Queues {
			p.Queues[j].Origin = ""
		}
		for j := range p.PGs {
			p.PGs[j].Origin = ""
		}
		// SONiC carries a port's speed only in its lossless PG profile
		// name.
		if !slices.ContainsFunc(p.PGs, func(pg qos.PGConfig) bool { return qos.LosslessProfile(&pg.BufferProfile) }) {
			p.SpeedGbps = 0
		}
	}
	return d
}

func TestRenderParseRoundTrip(t *testing.T) {
	for name, cfgs := range cfgVariants(t) {
		for _, dc := range cfgs {
			t.Run(name+"/"+dc.Device, func(t *testing.T) {
				out, err := Render(dc)
				if err != nil {
					t.Fatal(err)
				}
				if got := parseBack(t, dc, out); got.NOS != Name {
					t.Errorf("NOS = %q", got.NOS)
				}
				// Rendering is deterministic.
				again, _ := Render(dc)
				if string(again) != string(out) {
					t.Error("two renders differ")
				}
			})
		}
	}
}

// renderDoc renders dc and decodes the result, failing the test where
// either fails.
func renderDoc(t *testing.T, dc qos.DeviceConfig) ([]byte, Doc) {
	t.Helper()
	out, err := Render(dc)
	if err != nil {
		t.Fatal(err)
	}
	var doc Doc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return out, doc
}

// parseBack parses out, a render of dc, and fails the test where the
// model read back differs from dc; it returns the model read back.
func parseBack(t *testing.T, dc qos.DeviceConfig, out []byte) qos.DeviceConfig {
	t.Helper()
	got, err := Parse(dc.Device, qos.Source{Name: dc.Device + ".json", Data: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range dc.Ports {
		if gp := got.Port(p.Name); p.MTU > 0 && (gp == nil || gp.EnforcedMTU() != p.MTU) {
			t.Errorf("%s: rendered at MTU %d, read back at %v", p.Name, p.MTU, gp)
		}
	}
	want, cg := cfgComparable(dc), cfgComparable(got)
	if !reflect.DeepEqual(cg, want) {
		gj, _ := json.MarshalIndent(cg, "", " ")
		wj, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("round trip differs:\n%s\ndiff: %v", lineDiff(string(wj), string(gj)), qos.Diff([]qos.DeviceConfig{want}, []qos.DeviceConfig{cg}))
	}
	return got
}

func TestRenderGolden(t *testing.T) {
	for name, cfgs := range cfgVariants(t) {
		for _, dc := range cfgs {
			out, err := Render(dc)
			if err != nil {
				t.Fatal(err)
			}
			cmds := strings.Join(Commands(dc, "/etc/sonic/labctl-qos.json"), "\n") + "\n"
			for file, data := range map[string][]byte{
				filepath.Join("testdata", "golden", name, dc.Device+".json"): out,
				filepath.Join("testdata", "golden", name, dc.Device+".sh"):   []byte(cmds),
			} {
				if cfgUpdate() {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if string(want) != string(data) {
					t.Errorf("%s differs from the rendered config; review and run go test -update", file)
				}
			}
		}
	}
}

func TestRenderContent(t *testing.T) {
	cfgs := cfgVariants(t)
	doc := func(variant string) Doc {
		d, err := BuildDoc(cfgs[variant][0]) // leaf1
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	on := doc("ecn-on_pfc-on")
	if got := on["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]; got != "3" {
		t.Errorf("pfc_enable = %q", got)
	}
	if got := on["DSCP_TO_TC_MAP"]["AZURE"]["26"]; got != "3" {
		t.Errorf("DSCP 26 -> %q", got)
	}
	if got := on["BUFFER_PG"]["Ethernet0|3"]["profile"]; got != "pg_lossless_100000_5m_profile" {
		t.Errorf("BUFFER_PG Ethernet0|3 = %q", got)
	}
	if got := on["BUFFER_PROFILE"]["pg_lossless_100000_5m_profile"]["xoff"]; got != "35531" {
		t.Errorf("xoff = %q, want the formula's 35531 (IEEE response at 100G)", got)
	}
	if got := on["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"]; got != "100" {
		t.Errorf("POLL_INTERVAL = %q", got)
	}
	if got := on["QUEUE"]["Ethernet0|6"]["scheduler"]; on["SCHEDULER"][got]["type"] != "STRICT" {
		t.Errorf("queue 6 scheduler %q is not STRICT", got)
	}
	if w := on["QUEUE"]["Ethernet0|3"]["wred_profile"]; on["WRED_PROFILE"][w]["green_min_threshold"] != "409600" {
		t.Errorf("WRED profile %q = %v", w, on["WRED_PROFILE"][w])
	}
	off := doc("ecn-off_pfc-off")
	if _, ok := off["WRED_PROFILE"]; ok {
		t.Error("ECN off still writes WRED_PROFILE")
	}
	for k, e := range off["PORT_QOS_MAP"] {
		if _, ok := e["pfc_enable"]; ok {
			t.Errorf("PFC off still writes pfc_enable on %s", k)
		}
	}
	for k, e := range off["QUEUE"] {
		if _, ok := e["wred_profile"]; ok {
			t.Errorf("ECN off still sets a wred_profile on %s", k)
		}
	}
}

func TestValidateDoc(t *testing.T) {
	good, err := BuildDoc(cfgVariants(t)["ecn-on_pfc-on"][0])
	if err != nil {
		t.Fatal(err)
	}
	if errs := ValidateDoc(good); len(errs) > 0 {
		t.Fatalf("rendered doc does not validate: %v", errs)
	}
	// A poll interval orchagent takes as it is (no range in pfcwd), which
	// a user's config may hold, renders again: a variant of it is not
	// refused (lint judges the slow detection, QOS008).
	slow, _ := BuildDoc(cfgVariants(t)["ecn-on_pfc-on"][0])
	slow["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "5000"
	if errs := ValidateDoc(slow); len(errs) > 0 {
		t.Errorf("POLL_INTERVAL 5000: %v", errs)
	}
	tests := []struct {
		name   string
		break_ func(Doc)
		want   string
	}{
		{"pfc_enable pattern", func(d Doc) { d["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,8" }, `pfc_enable: "3,8" does not match`},
		{"pfc_enable trailing comma", func(d Doc) { d["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3," }, "does not match"},
		{"green min not below max", func(d Doc) {
			w := d["QUEUE"]["Ethernet0|3"]["wred_profile"]
			d["WRED_PROFILE"][w]["green_min_threshold"] = d["WRED_PROFILE"][w]["green_max_threshold"]
		}, "must be below green_max_threshold"},
		{"drop probability", func(d Doc) {
			w := d["QUEUE"]["Ethernet0|3"]["wred_profile"]
			d["WRED_PROFILE"][w]["green_drop_probability"] = "101"
		}, "101 is outside 0-100"},
		{"detection", func(d Doc) { d["PFC_WD"]["Ethernet0"]["detection_time"] = "50" }, "detection_time: 50 is outside 100-5000"},
		{"restoration", func(d Doc) { d["PFC_WD"]["Ethernet0"]["restoration_time"] = "70000" }, "restoration_time: 70000 is outside 100-60000"},
		{"poll", func(d Doc) { d["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "0" }, "POLL_INTERVAL: 0"},
		{"action", func(d Doc) { d["PFC_WD"]["Ethernet0"]["action"] = "ignore" }, `"ignore" is not drop`},
		{"dangling reference", func(d Doc) { d["QUEUE"]["Ethernet0|3"]["scheduler"] = "nope" }, "SCHEDULER|nope, which is not defined"},
		{"bracket reference", func(d Doc) {
			d["QUEUE"]["Ethernet0|3"]["scheduler"] = "[SCHEDULER|" + d["QUEUE"]["Ethernet0|3"]["scheduler"] + "]"
		}, "refuses since SONiC 202111"},
		{"scheduler weight", func(d Doc) {
			s := d["QUEUE"]["Ethernet0|3"]["scheduler"]
			d["SCHEDULER"][s]["weight"] = "0"
		}, "weight: 0 is outside 1-100"},
		{"map value", func(d Doc) { d["DSCP_TO_TC_MAP"]["AZURE"]["26"] = "9" }, "9 is outside 0-7"},
		// Every PORT_QOS_MAP map field's reference and its table's range
		// (portMaps), the partial maps' too.
		{"pfc_to_pg_map reference", func(d Doc) { d["PORT_QOS_MAP"]["Ethernet0"]["pfc_to_pg_map"] = "NOPE" }, "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|NOPE, which is not defined"},
		{"tc_to_dscp_map reference", func(d Doc) { d["PORT_QOS_MAP"]["Ethernet0"]["tc_to_dscp_map"] = "NOPE" }, "TC_TO_DSCP_MAP|NOPE, which is not defined"},
		{"PFC priority to PG value", func(d Doc) {
			d["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"] = map[string]map[string]string{"X": {"3": "8"}}
		}, "8 is outside 0-7"},
		{"remarking value", func(d Doc) { d["TC_TO_DSCP_MAP"] = map[string]map[string]string{"X": {"3": "64"}} }, "64 is outside 0-63"},
		{"remarking key", func(d Doc) { d["TC_TO_DSCP_MAP"] = map[string]map[string]string{"X": {"8": "26"}} }, "key is not 0-7"},
		{"scheduler meter_type", func(d Doc) {
			s := d["QUEUE"]["Ethernet0|3"]["scheduler"]
			d["SCHEDULER"][s]["meter_type"] = "bits"
		}, `meter_type: "bits" is not bytes or packets`},
		{"scheduler pir", func(d Doc) {
			s := d["QUEUE"]["Ethernet0|3"]["scheduler"]
			d["SCHEDULER"][s]["pir"] = "50G"
		}, `pir: "50G" is not an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Merge(good) // a deep copy
			tt.break_(d)
			errs := ValidateDoc(d)
			if len(errs) == 0 || !strings.Contains(joinErrs(errs).Error(), tt.want) {
				t.Errorf("errors = %v, want one containing %q", errs, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"syntax", "{\n \"PORT_QOS_MAP\": {\n  \"Ethernet0\": {\"pfc_enable\": \"3\",}\n }\n}", "x.json:3:"},
		{"not an object", `[1,2]`, "CONFIG_DB JSON object"},
		{"value type", `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": [3]}}}`, "PORT_QOS_MAP|Ethernet0 field pfc_enable"},
		{"bad pfc_enable", `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3;4"}}}`, `pfc_enable "3;4"`},
		{"wred without thresholds", `{"WRED_PROFILE": {"W": {"wred_green_enable": "true", "ecn": "ecn_all"}}, "QUEUE": {"Ethernet0|3": {"wred_profile": "W"}}}`, "wred_green_enable is true but green_min_threshold or green_max_threshold is missing"},
		{"bad number", `{"BUFFER_PROFILE": {"p": {"size": "big"}}}`, `BUFFER_PROFILE|p field size: "big" is not a byte count`},
		{"bad bool", `{"WRED_PROFILE": {"W": {"wred_green_enable": "yes"}}}`, `WRED_PROFILE|W field wred_green_enable: "yes" is not "true" or "false"`},
		{"bad cable", `{"QUEUE": {"Ethernet0|3": {}}, "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5 meters"}}}`, `"5 meters" is not a length`},
		// A key given twice in one object: JSON keeps the last silently.
		{"table twice", "{\n \"PORT_QOS_MAP\": {\"Ethernet0\": {\"pfc_enable\": \"3\"}},\n \"QUEUE\": {},\n \"PORT_QOS_MAP\": {}\n}",
			"x.json:4:2: table PORT_QOS_MAP is given twice (first at line 2)"},
		{"entry twice", "{\"BUFFER_PG\": {\n  \"Ethernet0|3\": {\"profile\": \"lossless\"},\n  \"Ethernet0|0\": {\"profile\": \"lossy\"},\n  \"Ethernet0|3\": {\"profile\": \"lossy\"}}}",
			`x.json:4:3: BUFFER_PG entry "Ethernet0|3" is given twice (first at line 2)`},
		{"field twice", `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "pfc_enable": "3,4"}}}`,
			"x.json:1:52: field pfc_enable of PORT_QOS_MAP|Ethernet0 is given twice (first at line 1)"},
		{"byte-order mark", "\xef\xbb\xbf{\"QUEUE\": {}}", "x.json:1:1: the file starts with a UTF-8 byte-order mark, which sonic-cfggen refuses"},
		{"null", "null\n", "x.json: the file is JSON null, not a CONFIG_DB object"},
		{"twice in a table labctl does not read", `{"VLAN": {"Vlan1": {}}, "VLAN": {}}`, "table VLAN is given twice"},
		{"twice with escapes", `{"QUEUE": {"Ethernet0|3": {}, "Ethernet0\u007c3": {}}}`, `QUEUE entry "Ethernet0|3" is given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x", qos.Source{Name: "x.json", Data: []byte(tt.in)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// The same key in different objects, in lists and as values is no
	// duplicate.
	ok := `{"QUEUE": {"Ethernet0|3": {"scheduler": "s", "wred_profile": "w"}, "Ethernet4|3": {"scheduler": "s"}},
		"SCHEDULER": {"s": {"type": "DWRR", "weight": "50"}}, "WRED_PROFILE": {"w": {"ecn": "ecn_all", "green_min_threshold": "1", "green_max_threshold": "2", "wred_green_enable": "true"}},
		"X": {"a": [{"k": 1}, {"k": 2}], "b": {"k": "k"}}}`
	if _, err := ParseDoc("x.json", []byte(ok)); err != nil {
		t.Errorf("ParseDoc of a config without duplicates: %v", err)
	}
}

// References written "[TABLE|name]" (SONiC before 202111) resolve to
// nothing: orchagent's parseReference refuses a value surrounded by
// [ ], whatever the table holds. Each is an unresolved reference whose
// fix is the bare name, lint's error (QOS013); one naming the wrong
// table says so.
func TestParseOldStyleReferences(t *testing.T) {
	in := `{
 "DSCP_TO_TC_MAP": {"AZURE": {"26": "3", "48": "6"}},
 "TC_TO_QUEUE_MAP": {"AZURE": {"3": "3", "6": "6"}},
 "SCHEDULER": {"scheduler.1": {"type": "DWRR", "weight": "15"}},
 "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1048576", "green_max_threshold": "2097152", "green_drop_probability": "5"}},
 "PORT_QOS_MAP": {"Ethernet4": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|AZURE]", "tc_to_queue_map": "[TC_TO_QUEUE_MAP|AZURE]", "pfc_enable": "3"}},
 "QUEUE": {"Ethernet4|3": {"scheduler": "[SCHEDULER|scheduler.1]", "wred_profile": "[SCHEDULER|AZURE_LOSSLESS]"}}
}`
	dc, err := Parse("old", qos.Source{Name: "old.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet4")
	if p == nil || p.DSCPToTC[26] != 0 || len(p.PFCPriorities) != 0 || p.Queue(3).Weight != 1 || p.Queue(3).ECN != nil {
		t.Fatalf("bracket references resolved: %+v", p)
	}
	fixes := map[string]string{}
	for _, u := range dc.Unresolved {
		if !strings.Contains(u.Rejected, "202111") {
			t.Errorf("%s %s: rejected %q, want why orchagent refuses the form", u.Where, u.Field, u.Rejected)
		}
		fixes[u.Field] = u.Fix
	}
	want := map[string]string{"dscp_to_tc_map": `write the bare name "AZURE"`, "tc_to_queue_map": `write the bare name "AZURE"`,
		"scheduler": `write the bare name "scheduler.1"`, "wred_profile": "write the bare name of a WRED_PROFILE entry"}
	if !maps.Equal(fixes, want) {
		t.Errorf("fixes = %v, want %v", fixes, want)
	}
	n := 0
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		if f.Rule == qos.RuleUnresolved && f.Severity == qos.SevError && strings.HasPrefix(f.Fix, "write the bare name") {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d QOS013 errors saying to write the bare name, want 4", n)
	}
}

// What a profile leaves out is SAI's default, named: WRED on green off
// (no marking at all), as a switch would run it.
func TestParseWREDDefaults(t *testing.T) {
	in := `{
 "WRED_PROFILE": {"W": {"ecn": "ecn_all", "green_min_threshold": "1048576", "green_max_threshold": "2097152"},
                  "D": {"ecn": "ecn_none", "wred_green_enable": "true", "green_min_threshold": "100000", "green_max_threshold": "200000"}},
 "QUEUE": {"Ethernet0|3": {"wred_profile": "W"}, "Ethernet0|4": {"wred_profile": "D"}, "Ethernet0|5": {"wred_profile": "NOPE"}}
}`
	dc, err := Parse("w", qos.Source{Name: "w.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	p := dc.Port("Ethernet0")
	if q := p.Queue(3); q.ECN != nil || q.Drop != nil {
		t.Errorf("queue 3 without wred_green_enable marks or drops: %+v", q)
	}
	if !slices.ContainsFunc(dc.Defaults, func(d qos.Default) bool { return d.Risky && d.Field == "WRED_PROFILE wred_green_enable" }) {
		t.Errorf("the missing enable is not a risky default: %+v", dc.Defaults)
	}
	if q := p.Queue(4); q.ECN != nil || q.Drop == nil || q.Drop.MinBytes != 100000 || q.Drop.Pmax != 1 {
		t.Errorf("queue 4 (ecn_none) = %+v, want an early drop from 100000 bytes", q)
	}
	if len(dc.Unresolved) != 1 || dc.Unresolved[0].Ref != "NOPE" || dc.Unresolved[0].Table != "WRED_PROFILE" || !slices.Equal(dc.Unresolved[0].Ports, []string{"Ethernet0"}) {
		t.Errorf("unresolved = %+v", dc.Unresolved)
	}
}

// A reference that names nothing is not a parse error: the switch keeps
// the entry pending, so the model says what it does instead.
func TestParseUnresolvedMaps(t *testing.T) {
	in := `{"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "X", "tc_to_pg_map": "Y", "pfc_enable": "3"}}, "QUEUE": {"Ethernet0|3": {"scheduler": "S"}}}`
	dc, err := Parse("x", qos.Source{Name: "x.json", Data: []byte(in)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range dc.Unresolved {
		got = append(got, u.Table+"|"+u.Ref)
	}
	slices.Sort(got)
	if want := []string{"DSCP_TO_TC_MAP|X", "SCHEDULER|S", "TC_TO_PRIORITY_GROUP_MAP|Y"}; !slices.Equal(got, want) {
		t.Errorf("unresolved = %v, want %v", got, want)
	}
	p := dc.Port("Ethernet0")
	if p.DSCPToTC[26] != 0 || p.TCToPG[3] != 0 || p.Queue(3).Weight != 1 {
		t.Errorf("defaults not applied: dscp 26 -> %d, tc 3 -> pg %d, queue 3 weight %d", p.DSCPToTC[26], p.TCToPG[3], p.Queue(3).Weight)
	}
	fs := qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
	if n := len(slices.DeleteFunc(slices.Clone(fs), func(f qos.Finding) bool { return f.Rule != qos.RuleUnresolved })); n != 3 {
		t.Errorf("%d unresolved findings, want 3: %+v", n, fs)
	}
}

// cfgRealConfigs returns the directory of the real vendor samples, or
// skips (fails under CI) when it is absent.
func cfgRealConfigs(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "shared", "reference", "real-configs", "sonic")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("real SONiC configs not found at %s: %v", dir, err)
		}
		t.Skipf("real SONiC configs not found at %s (../shared/reference/real-configs from the repository root)", dir)
	}
	return dir
}

func TestParseRealConfigs(t *testing.T) {
	dir := cfgRealConfigs(t)
	read := func(name string) qos.Source {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return qos.Source{Name: name, Data: data}
	}
	t.Run("arista7050 qos", func(t *testing.T) {
		dc, err := Parse("arista7050", read("qos-arista7050.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(dc.Ports) != 28 {
			t.Errorf("ports = %d, want 28", len(dc.Ports))
		}
		p := dc.Port("Ethernet4")
		if got := qos.FormatInts(p.PFCPriorities); got != "3,4" {
			t.Errorf("pfc = %s", got)
		}
		if p.Watchdog == nil {
			t.Error("pfcwd_sw_enable not read as a watchdog")
		}
		if e := p.Queue(3).ECN; e == nil || e.MinBytes != 1048576 || e.MaxBytes != 2097152 || e.Pmax != 0.05 {
			t.Errorf("queue 3 ECN = %+v", e)
		}
		if p.DSCPToTC[26] != 1 {
			t.Errorf("AZURE maps DSCP 26 to %d, want lossy 1", p.DSCPToTC[26])
		}
		if !p.BufferUnknown {
			t.Error("a QoS file without buffer tables: the buffer must read as not known")
		}
		if got := qos.FormatInts(p.LosslessDSCPs()); got != "3,4" {
			t.Errorf("inferred lossless DSCPs = %s, want 3,4", got)
		}
	})
	t.Run("mellanox qos per-port map", func(t *testing.T) {
		dc, err := Parse("mlnx", read("qos-mellanox4600c-c64.json"))
		if err != nil {
			t.Fatal(err)
		}
		p := dc.Port("Ethernet0")
		if p.DSCPToTC[2] != 1 || !strings.HasPrefix(p.Origins["dscp_to_tc"], "DSCP_TO_TC_MAP|AZURE_UPLINK") {
			t.Errorf("Ethernet0 should carry AZURE_UPLINK: %v (%s)", p.DSCPToTC, p.Origins["dscp_to_tc"])
		}
		// A port without its own map takes the global one.
		if dp := dc.DefaultPort; dp == nil || dp.DSCPToTC[48] != 7 || !strings.Contains(dp.Origins["dscp_to_tc"], "PORT_QOS_MAP|global") {
			t.Errorf("a port with no entry: %+v", dp)
		}
	})
	t.Run("qos merged with buffers", func(t *testing.T) {
		dc, err := Parse("mlnx", read("qos-mellanox4600c-c64.json"), read("buffers-mellanox2410.json"))
		if err != nil {
			t.Fatal(err)
		}
		p := dc.Port("Ethernet0")
		if p.CableM != 300 || dc.IngressPoolBytes() != 3302912 {
			t.Errorf("cable %d pool %d", p.CableM, dc.IngressPoolBytes())
		}
		// SONiC's buffer manager writes the lossless PGs of the PFC
		// priorities itself: the file lists only the lossy PG 0, and the
		// model names the lossless PGs 3 and 4 as generated.
		if pg0 := p.PG(0); pg0 == nil || qos.LosslessProfile(&pg0.BufferProfile) || pg0.Pool != "ingress_lossy_pool" || qos.Val(pg0.DynamicTh) != 3 || pg0.Assumed {
			t.Errorf("PG 0 = %+v, want the lossy PG 0 of the file (ingress_lossy_pool, dynamic_th 3)", pg0)
		}
		if pg3 := p.PG(3); pg3 == nil || !pg3.Assumed || !strings.Contains(pg3.Origin, "buffer manager") {
			t.Errorf("PG 3 = %+v, want the buffer manager's", pg3)
		}
		if !slices.ContainsFunc(dc.Defaults, func(d qos.Default) bool { return d.Risky && strings.Contains(d.Field, "BUFFER_PG") }) {
			t.Errorf("the generated PGs are not named among the defaults: %+v", dc.Defaults)
		}
		// Lossy queues drop at their egress limit: the profile is read.
		if q := p.Queue(0); q == nil || q.Buffer == nil || q.Buffer.Pool != "egress_lossy_pool" {
			t.Errorf("queue 0 buffer = %+v, want egress_lossy_pool", q)
		}
		if len(dc.Pools) != 5 || dc.Pool("egress_lossless_pool").SizeBytes != 13945824 {
			t.Errorf("pools = %+v", dc.Pools)
		}
	})
	t.Run("arista7260 buffers", func(t *testing.T) {
		dc, err := Parse("a7260", read("buffer-arista7260-t1.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(dc.Ports) == 0 || dc.IngressPoolBytes() != 33262528 {
			t.Errorf("ports %d pool %d", len(dc.Ports), dc.IngressPoolBytes())
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, variant := range cfgVariants(f) {
		for _, dc := range variant {
			out, err := Render(dc)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(out)
		}
	}
	for _, name := range []string{"qos-arista7050.json", "qos-mellanox4600c-c64.json", "buffer-arista7260-t1.json", "buffers-mellanox2410.json"} {
		if data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "reference", "real-configs", "sonic", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"PORT_QOS_MAP": {"Ethernet0|": {"pfc_enable": "3"}}, "BUFFER_PG": {"Ethernet0|3-4": {"profile": "[BUFFER_PROFILE|pg_lossless_100000_5m_profile]"}}}`))
	f.Add([]byte(`{"QUEUE": {"Ethernet0|0-7,3": {"scheduler": "s"}}, "SCHEDULER": {"s": {"type": "STRICT"}}}`))
	// Overlapping buffer keys, buffermgrd's own among them, and queues
	// beyond 7 (multicast queues on some platforms).
	f.Add([]byte(`{"PORT": {"Ethernet0": {"speed": "100000"}}, "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}, "BUFFER_POOL": {"p": {"size": "1000000", "mode": "dynamic"}}, "BUFFER_PROFILE": {"lossy": {"pool": "p", "size": "0", "dynamic_th": "3"}}, "BUFFER_PG": {"Ethernet0|3": {"profile": "lossy"}, "Ethernet0|0-3": {"profile": "lossy"}}, "BUFFER_QUEUE": {"Ethernet0|0-15": {"profile": "lossy"}, "Ethernet0|3": {"profile": "lossy"}}, "QUEUE": {"Ethernet0|3-9": {"scheduler": "s"}}, "SCHEDULER": {"s": {"type": "DWRR", "weight": "1"}}}`))
	// An egress remarking map, bound by one port and dangling on another.
	f.Add([]byte(`{"TC_TO_DSCP_MAP": {"R": {"3": "0", "6": "63"}}, "DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}}, "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "AZURE"}, "Ethernet0": {"pfc_enable": "3", "tc_to_dscp_map": "R"}, "Ethernet4": {"tc_to_dscp_map": "[TC_TO_DSCP_MAP|S]"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dc, err := Parse("fuzz", qos.Source{Name: "fuzz.json", Data: data})
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error")
			}
			return
		}
		// Whatever parses must lint and flatten without panicking.
		qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{})
		qos.Summarize(&dc)
	})
}

func TestInterfaceNames(t *testing.T) {
	for i, want := range map[int]string{1: "Ethernet0", 2: "Ethernet4", 32: "Ethernet124"} {
		if got := InterfaceName(i); got != want {
			t.Errorf("InterfaceName(%d) = %s, want %s", i, got, want)
		}
		if back, err := LinuxInterface(want); err != nil || back != fmt.Sprintf("eth%d", i) {
			t.Errorf("LinuxInterface(%s) = %s, %v", want, back, err)
		}
	}
	for _, bad := range []string{"Ethernet2", "eth1", "Ethernet-4", "Ethernet"} {
		if _, err := LinuxInterface(bad); err == nil {
			t.Errorf("LinuxInterface(%q) accepted", bad)
		}
	}
}

// lineDiff lists the lines of b that a lacks and the other way round, for
// messages.
func lineDiff(a, b string) string {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if count[l] > 0 {
			count[l]--
			continue
		}
		out = append(out, "+ "+l)
	}
	for l, n := range count {
		for range n {
			out = append(out, "- "+l)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// pfcwd_sw_enable is what the watchdog watches: a PFC priority left out
// goes unwatched, whatever PFC_WD says; listing every PFC priority (or
// more) is the model's nil, every PFC priority.
func TestWatchdogWatchesPfcwdSwEnable(t *testing.T) {
	for _, tc := range []struct {
		pfcwd string
		want  []int
	}{
		{`"3"`, nil},
		{`"3,4"`, nil},
		{`"4"`, []int{4}},
	} {
		db := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "pfcwd_sw_enable": ` + tc.pfcwd + `}},
			"PFC_WD": {"Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
		if err != nil {
			t.Fatal(err)
		}
		w := dc.Port("Ethernet0").Watchdog
		if w == nil || !slices.Equal(w.Priorities, tc.want) || (w.Priorities == nil) != (tc.want == nil) {
			t.Errorf("pfcwd_sw_enable %s: watchdog %+v, want priorities %v", tc.pfcwd, w, tc.want)
		}
		if got := dc.Port("Ethernet0").Class(3).Watchdog != nil; got != (tc.want == nil) {
			t.Errorf("pfcwd_sw_enable %s: priority 3 watched %v", tc.pfcwd, got)
		}
	}
}

// pfcwd_sw_enable "" watches no priority: orchagent sets the port's
// watchdog bitmap to 0 and pfcwdorch starts no watchdog there, whatever
// PFC_WD says (absent, the field watches the PFC priorities).
func TestEmptyPfcwdSwEnableRunsNoWatchdog(t *testing.T) {
	// Without the field it is the same: qosorch sets the port's watchdog
	// bitmap from it alone, 0 when it is missing.
	for _, tc := range []struct {
		field, why string
		watched    bool
	}{
		{`, "pfcwd_sw_enable": ""`, "pfcwd_sw_enable is empty", false},
		{``, "gives no pfcwd_sw_enable", false},
		{`, "pfcwd_sw_enable": "3"`, "", true},
	} {
		db := `{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"` + tc.field + `}},
			"PFC_WD": {"Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
		if err != nil {
			t.Fatal(err)
		}
		if got := dc.Port("Ethernet0").Watchdog != nil; got != tc.watched {
			t.Errorf("pfcwd_sw_enable%s: watchdog %v, want %v", tc.field, got, tc.watched)
		}
		overruled := len(dc.Overruled) == 1 && strings.Contains(dc.Overruled[0].What, tc.why)
		if overruled == tc.watched || !tc.watched && dc.Overruled[0].Fix != `add pfcwd_sw_enable "3", the port's PFC priorities, to watch them` && tc.field == `` {
			t.Errorf("pfcwd_sw_enable%s: overruled %+v", tc.field, dc.Overruled)
		}
	}
}

// A field one letter from its table's (PFC_WD "actoin") is refused at its
// line with the field meant: orchagent would run the default unseen. One
// further from every field stays a note (QOS011).
func TestMisspeltFieldRefused(t *testing.T) {
	db := "{\n  \"PFC_WD\": {\n    \"Ethernet0\": {\n      \"actoin\": \"forward\",\n      \"detection_time\": \"200\", \"restoration_time\": \"200\"\n    }\n  }\n}\n"
	_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if want := `leaf1.json:4: PFC_WD|Ethernet0: "actoin" is no field of PFC_WD (fix: did you mean "action"?`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	far := strings.Replace(db, "actoin", "vendor_hint", 1)
	if _, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(far)}); err != nil {
		t.Errorf("a field far from every PFC_WD field: %v", err)
	}
}

// A value of the wrong kind is placed at its line in the file it came
// from, also when several files make one config.
func TestFieldValueErrorHasItsLine(t *testing.T) {
	qosFile := "{\n  \"DSCP_TO_TC_MAP\": {\"AZURE\": {\"26\": \"3\"}}\n}\n"
	bufFile := "{\n  \"BUFFER_PROFILE\": {\n    \"p\": {\n      \"size\": \"big\"\n    }\n  }\n}\n"
	_, err := Parse("leaf1", qos.Source{Name: "qos.json", Data: []byte(qosFile)}, qos.Source{Name: "buffers.json", Data: []byte(bufFile)})
	if want := `buffers.json:4: parse sonic config of leaf1: BUFFER_PROFILE|p field size: "big" is not a byte count`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// What the resolver refuses is placed at its line too: a value the
// switch has no such thing as, at its field; an entry that lacks what it
// needs, at its key.
func TestResolverRefusalHasItsLine(t *testing.T) {
	for _, c := range []struct{ name, db, want string }{
		{"scheduler type", "{\n  \"SCHEDULER\": {\n    \"s\": {\n      \"type\": \"FAIR\"\n    }\n  },\n  \"QUEUE\": {\"Ethernet0|3\": {\"scheduler\": \"s\"}}\n}\n",
			`leaf1.json:4: parse sonic config of leaf1: SCHEDULER|s type "FAIR" is not STRICT, DWRR or WRR`},
		// qosorch compares the names exactly: "dwrr" is unknown to it.
		{"scheduler type in lower case", "{\n  \"SCHEDULER\": {\n    \"s\": {\n      \"type\": \"dwrr\"\n    }\n  },\n  \"QUEUE\": {\"Ethernet0|3\": {\"scheduler\": \"s\"}}\n}\n",
			`leaf1.json:4: parse sonic config of leaf1: SCHEDULER|s type "dwrr": orchagent knows the upper-case names only and refuses the entry, so its queues would keep the switch's default scheduling (fix: write "DWRR")`},
		{"watchdog poll interval 0", "{\n  \"PFC_WD\": {\n    \"GLOBAL\": {\n      \"POLL_INTERVAL\": \"0\"\n    }\n  }\n}\n",
			`leaf1.json:4: parse sonic config of leaf1: PFC_WD|GLOBAL POLL_INTERVAL 0 is not an interval`},
		{"pool without a size", "{\n  \"BUFFER_POOL\": {\n    \"ingress_lossless_pool\": {\"type\": \"ingress\", \"mode\": \"dynamic\"}\n  }\n}\n",
			`leaf1.json:3: parse sonic config of leaf1: BUFFER_POOL|ingress_lossless_pool has no size`},
		{"pfc_enable", "{\n  \"PORT_QOS_MAP\": {\n    \"Ethernet0\": {\n      \"pfc_enable\": \"3;4\"\n    }\n  }\n}\n",
			`leaf1.json:4: parse sonic config of leaf1: PORT_QOS_MAP|Ethernet0 pfc_enable "3;4" is not a list of priorities`},
	} {
		_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(c.db)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// orchagent refuses a SCHEDULER or WRED_PROFILE entry holding a field it
// does not know: the queues naming it get the default scheduling and no
// WRED, and lint names the refused entry (QOS013).
func TestEntryWithUnknownFieldRefused(t *testing.T) {
	db := `{"QUEUE": {"Ethernet0|3": {"scheduler": "s", "wred_profile": "w"}},
		"SCHEDULER": {"s": {"type": "DWRR", "weight": "50", "vendor_hint": "x"}},
		"WRED_PROFILE": {"w": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000000", "green_max_threshold": "2000000", "green_drop_probability": "5", "vendor_hint": "x"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	q := dc.Port("Ethernet0").Queue(3)
	if q.Weight != 1 || q.ECN != nil {
		t.Errorf("queue 3: weight %d, ECN %+v; want the defaults of a queue whose scheduler and WRED profile are refused", q.Weight, q.ECN)
	}
	refused := 0
	for _, u := range dc.Unresolved {
		if strings.Contains(u.Rejected, "vendor_hint") {
			refused++
		}
	}
	if refused != 2 {
		t.Errorf("%d refused entries noted, want the scheduler and the WRED profile: %+v", refused, dc.Unresolved)
	}
}

// buffermgrd makes the PGs numbered as the PFC priorities lossless: a PFC
// priority that tc_to_pg_map sends to another PG without a BUFFER_PG entry
// lands on a lossy PG (the class is not lossless, lint says QOS014).
func TestGeneratedLosslessPGIsThePriorityNumber(t *testing.T) {
	db := `{"TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"0": "0", "3": "1"}},
		"PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "AZURE", "pfc_enable": "3"}},
		"BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "1000000"}},
		"BUFFER_PROFILE": {"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}},
		"BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}},
		"PORT": {"Ethernet0": {"speed": "200000", "mtu": "9100"}}, "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	c := dc.Port("Ethernet0").Class(3)
	if c.PG != 1 || c.Lossless {
		t.Errorf("TC3: PG %d lossless %v; want PG 1, not lossless (buffermgrd makes PG 3 lossless, not 1)", c.PG, c.Lossless)
	}
	// Mapped to its own number, the generated PG is lossless.
	same := strings.Replace(db, `"3": "1"`, `"3": "3"`, 1)
	dc, err = Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(same)})
	if err != nil {
		t.Fatal(err)
	}
	if c := dc.Port("Ethernet0").Class(3); c.PG != 3 || !c.Lossless {
		t.Errorf("TC3 on PG 3: lossless %v, want true", c.Lossless)
	}
}

// orchagent applies none of a PORT_QOS_MAP entry while one name in it is
// undefined (handlePortQosMapTable retries the whole entry): the port has
// no DSCP map of its own and no PFC.
func TestPortQoSMapWithUndefinedNameAppliesNothing(t *testing.T) {
	db := `{"DSCP_TO_TC_MAP": {"AZURE": {"26": "3"}},
		"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3", "pfc_to_pg_map": "MISSING"},
			"Ethernet4": {"dscp_to_tc_map": "AZURE", "pfc_enable": "3"}}}`
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err != nil {
		t.Fatal(err)
	}
	if p := dc.Port("Ethernet0"); len(p.PFCPriorities) != 0 || p.DSCPToTC[26] != 0 {
		t.Errorf("Ethernet0 (pfc_to_pg_map undefined): PFC %v, DSCP 26 to TC%d; want no PFC, TC0", p.PFCPriorities, p.DSCPToTC[26])
	}
	if p := dc.Port("Ethernet4"); len(p.PFCPriorities) != 1 || p.DSCPToTC[26] != 3 {
		t.Errorf("Ethernet4: PFC %v, DSCP 26 to TC%d; want PFC 3, TC3", p.PFCPriorities, p.DSCPToTC[26])
	}
	found := slices.ContainsFunc(dc.Unresolved, func(u qos.Unresolved) bool { return u.Field == "pfc_to_pg_map" && u.Ref == "MISSING" })
	if !found {
		t.Errorf("no unresolved pfc_to_pg_map noted: %+v", dc.Unresolved)
	}
}

// qosorch's handleQueueTable applies a QUEUE entry's scheduler and WRED
// only once both references resolve: one naming nothing, or an entry
// orchagent refused (a field it does not know, priority included; a
// weight SAI refuses once written as a uint8), leaves the queue with the
// default scheduling and no WRED, so no ECN. A weight over 255 that lands
// in 1-100 as a uint8 is taken as that.
func TestQueueEntryAppliesWhollyOrNotAtAll(t *testing.T) {
	const wred = `"WRED_PROFILE": {"w": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000000", "green_max_threshold": "2000000", "green_drop_probability": "5"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}`
	for _, c := range []struct {
		name, sched, queue string
		weight             int
		ecn                bool
	}{
		{"as written", `"s": {"type": "DWRR", "weight": "50"}`, `"scheduler": "s", "wred_profile": "w"`, 50, true},
		{"scheduler undefined", `"s": {"type": "DWRR", "weight": "50"}`, `"scheduler": "s2", "wred_profile": "w"`, 1, false},
		{"WRED profile undefined", `"s": {"type": "DWRR", "weight": "50"}`, `"scheduler": "s", "wred_profile": "w2"`, 1, false},
		{"a priority field", `"s": {"type": "DWRR", "weight": "50", "priority": "1"}`, `"scheduler": "s", "wred_profile": "w"`, 1, false},
		{"weight 256 (0 as a uint8)", `"s": {"type": "DWRR", "weight": "256"}`, `"scheduler": "s", "wred_profile": "w"`, 1, false},
		{"weight 0", `"s": {"type": "DWRR", "weight": "0"}`, `"scheduler": "s", "wred_profile": "w"`, 1, false},
		{"weight 101", `"s": {"type": "DWRR", "weight": "101"}`, `"scheduler": "s", "wred_profile": "w"`, 1, false},
		{"weight 300 (44 as a uint8)", `"s": {"type": "DWRR", "weight": "300"}`, `"scheduler": "s", "wred_profile": "w"`, 44, true},
		{"a strict scheduler's weight is not SAI's", `"s": {"type": "STRICT", "weight": "0"}`, `"scheduler": "s", "wred_profile": "w"`, 0, true},
	} {
		db := `{"QUEUE": {"Ethernet0|3": {` + c.queue + `}}, "SCHEDULER": {` + c.sched + `}, ` + wred + `}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		q := dc.Port("Ethernet0").Queue(3)
		if q.Weight != c.weight || (q.ECN != nil) != c.ecn {
			t.Errorf("%s: queue 3 weight %d, ECN %+v; want weight %d, ECN %v", c.name, q.Weight, q.ECN, c.weight, c.ecn)
		}
		if !c.ecn && (len(dc.Unresolved) == 0 || !strings.Contains(dc.Unresolved[0].Effect, "applies none of the QUEUE entry")) {
			t.Errorf("%s: unresolved %+v, want the whole entry said not applied", c.name, dc.Unresolved)
		}
	}
}

// WredMapHandler's convertBool takes only "true" and "false": "True" is
// refused at its line with the fix, and a probability is a whole percent
// (stoi: 20.0 is 20, 0.5 is 0).
func TestWREDExactWords(t *testing.T) {
	db := `{"WRED_PROFILE": {"w": {"ecn": "ecn_all", "wred_green_enable": "True", "green_min_threshold": "1000000", "green_max_threshold": "2000000"}}}`
	_, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
	if err == nil || !strings.Contains(err.Error(), `wred_green_enable: "True" is not "true"`) || !strings.Contains(err.Error(), `fix: write "true"`) {
		t.Errorf("True: %v", err)
	}
	for prob, want := range map[string]float64{"20.0": 0.20, "0.5": 0, "5": 0.05} {
		db := `{"QUEUE": {"Ethernet0|3": {"wred_profile": "w"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}},
			"WRED_PROFILE": {"w": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000000", "green_max_threshold": "2000000", "green_drop_probability": "` + prob + `"}}}`
		dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: []byte(db)})
		if err != nil {
			t.Fatal(err)
		}
		if e := dc.Port("Ethernet0").Queue(3).ECN; e == nil || e.Pmax != want {
			t.Errorf("green_drop_probability %s: ECN %+v, want Pmax %g", prob, e, want)
		}
	}
}
