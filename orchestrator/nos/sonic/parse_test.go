package sonic

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// plainDocCases are inputs plainDoc must read as decodeDoc does, or leave
// to it: rendered shapes, and each thing a plain file cannot have.
var plainDocCases = []string{
	`{}`,
	` { "QUEUE" : { } } `,
	`{"QUEUE": {"Ethernet0|3": {}}, "SCHEDULER": {"s": {"type": "DWRR", "weight": "50"}}}`,
	`{"VLAN": {"Vlan1": {"vlanid": "1"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}}}`,
	"{\n\t\"PORT_QOS_MAP\": {\r\n \"Ethernet0\": {\"pfc_enable\": \"3\"}\n}\n}\n",
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": 3}}}`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": true}}}`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3\u002c4"}}}`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "é"}}}`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3", "pfc_enable": "4"}}}`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}, "PORT_QOS_MAP": {}}`,
	`{"QUEUE": {"Ethernet0|3": {}, "Ethernet0|3": {}}}`,
	`{"VLAN": {"Vlan1": {}}, "VLAN": {}}`,
	`{"X": {"a": [{"k": 1}, {"k": 2}], "b": {"k": "k"}}}`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3",}}}`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}} x`,
	`{"PORT_QOS_MAP": null}`,
	`{"PORT_QOS_MAP": {"Ethernet0": null}}`,
	`null`,
	`[1, 2]`,
	`{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}`,
	``,
}

// checkPlainDoc fails when plainDoc reads data and decodeDoc reads it
// otherwise or refuses it.
func checkPlainDoc(t *testing.T, data []byte) (plain bool) {
	t.Helper()
	got, ok := plainDoc(data)
	if !ok {
		return false
	}
	want, err := decodeDoc("x.json", data)
	if err != nil {
		t.Fatalf("plainDoc read %q, which decodeDoc refuses: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plainDoc of %q:\n got  %v\n want %v", data, got, want)
	}
	return true
}

func TestPlainDoc(t *testing.T) {
	for _, c := range plainDocCases {
		checkPlainDoc(t, []byte(c))
	}
	// labctl's own files take the one-pass path.
	for name, variant := range cfgVariants(t) {
		for _, dc := range variant {
			out, err := Render(dc)
			if err != nil {
				t.Fatal(err)
			}
			if !checkPlainDoc(t, out) {
				t.Errorf("%s %s: the rendered config is not read by plainDoc", name, dc.Device)
			}
		}
	}
	// Switches' own files, when the reference configs are there.
	if files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "shared", "reference", "real-configs", "sonic", "*.json")); len(files) > 0 {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkPlainDoc(t, data)
		}
	}
}

func FuzzPlainDoc(f *testing.F) {
	for _, c := range plainDocCases {
		f.Add([]byte(c))
	}
	for _, variant := range cfgVariants(f) {
		for _, dc := range variant {
			out, err := Render(dc)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(out)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkPlainDoc(t, data) })
}
