package sonic

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
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

// A device of one file is resolved from that file's document as it is,
// without Merge's copy: the result must be the one of the merged copy.
// The ranged keys of one port are indexed once (entryFor): with
// overlapping keys the last in sorted order still wins.
func TestParseOneSourceAsMerged(t *testing.T) {
	var files [][]byte
	for _, variant := range cfgVariants(t) {
		for _, dc := range variant {
			out, err := Render(dc)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, out)
		}
	}
	overlap := []byte(`{
		"SCHEDULER": {"s1": {"type": "DWRR", "weight": "10"}, "s2": {"type": "STRICT"}},
		"QUEUE": {"Ethernet0|0-3": {"scheduler": "s1"}, "Ethernet0|3": {"scheduler": "s2"}, "Ethernet4|3": {"scheduler": "s2"}, "Ethernet4|2-4": {"scheduler": "s1"}},
		"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}, "Ethernet4": {"pfc_enable": "3"}}
	}`)
	files = append(files, overlap)
	for _, data := range files {
		got, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: data})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ParseDoc("leaf1.json", data)
		if err != nil {
			t.Fatal(err)
		}
		want, err := FromDoc("leaf1", Merge(doc))
		if err != nil {
			t.Fatal(err)
		}
		// Parse places the entries it overrules in their file (the
		// overlapping schedulers), which FromDoc cannot.
		placeOverruled(&want, []qos.Source{{Name: "leaf1.json", Data: data}})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse of one file differs from FromDoc of its merged document:\n got  %+v\n want %+v", got, want)
		}
	}
	dc, err := Parse("leaf1", qos.Source{Name: "leaf1.json", Data: overlap})
	if err != nil {
		t.Fatal(err)
	}
	// "Ethernet0|3" sorts after "Ethernet0|0-3", "Ethernet4|3" after
	// "Ethernet4|2-4".
	for _, c := range []struct {
		port   string
		q      int
		strict bool
	}{{"Ethernet0", 3, true}, {"Ethernet0", 2, false}, {"Ethernet4", 3, true}, {"Ethernet4", 4, false}} {
		if q := dc.Port(c.port).Queue(c.q); q == nil || q.Strict != c.strict {
			t.Errorf("%s queue %d = %+v, want strict %v", c.port, c.q, q, c.strict)
		}
	}
}
