package clab

import (
	"os"
	"testing"
)

func TestParseInspect(t *testing.T) {
	tests := []struct {
		file      string
		wantNames []string
		wantNodes []string
		wantState []string
	}{
		{"testdata/inspect-0.79.json", []string{"clab-64gpu-h1", "clab-64gpu-leaf1"}, []string{"h1", "leaf1"}, []string{"running", "running"}},
		{"testdata/inspect-old.json", []string{"clab-16gpu-spine1"}, []string{"spine1"}, []string{"exited"}},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := ParseInspect(b)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if len(cs) != len(tt.wantNames) {
			t.Fatalf("%s: %d containers, want %d", tt.file, len(cs), len(tt.wantNames))
		}
		for i, c := range cs {
			if c.Name != tt.wantNames[i] || c.NodeName() != tt.wantNodes[i] || c.State != tt.wantState[i] {
				t.Errorf("%s: container %d = %s/%s/%s, want %s/%s/%s", tt.file, i, c.Name, c.NodeName(), c.State, tt.wantNames[i], tt.wantNodes[i], tt.wantState[i])
			}
		}
	}
}

func TestParseInspectEdgeCases(t *testing.T) {
	for _, in := range []string{"", "  \n", "{}"} {
		cs, err := ParseInspect([]byte(in))
		if err != nil || len(cs) != 0 {
			t.Errorf("ParseInspect(%q) = %v, %v; want nothing", in, cs, err)
		}
	}
	// A log line before the JSON is skipped.
	cs, err := ParseInspect([]byte("INFO parsing\n{\"lab\":[{\"name\":\"clab-lab-a\",\"state\":\"running\"}]}"))
	if err != nil || len(cs) != 1 || cs[0].LabName != "lab" || cs[0].NodeName() != "a" {
		t.Errorf("with a log line: %+v, %v", cs, err)
	}
	for _, bad := range []string{"[1,2]", "{\"lab\": 3}", "{\"lab\": [{\"name\": 5}]}", "not json"} {
		if _, err := ParseInspect([]byte(bad)); err == nil {
			t.Errorf("ParseInspect(%q) accepted bad input", bad)
		}
	}
}

func FuzzParseInspect(f *testing.F) {
	for _, p := range []string{"testdata/inspect-0.79.json", "testdata/inspect-old.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, err := ParseInspect(b)
		if err != nil && cs != nil {
			t.Fatalf("containers returned with an error")
		}
		for _, c := range cs {
			_ = c.NodeName()
		}
	})
}
