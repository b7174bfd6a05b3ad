package scenario

import (
	"strings"
	"testing"
)

// Values a user empties are refused at the key, not at the top of the
// file: name: "", traffic: [] and an assertion's expr: "" each used to be
// placed at the document's first key.
func TestEmptyValuesRefusedAtTheirKey(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"description: d\nname: \"\"\ntraffic: [{pattern: pairs}]\n", "s.yaml:2:7: the scenario has no name"},
		{"name: s\ndescription: d\ntraffic: []\n", "s.yaml:3:10: the scenario has no traffic"},
		{"name: s\ntraffic: [{pattern: pairs}]\nassertions:\n  - name: a\n    expr: \"\"\n", "s.yaml:5:11: assertion has no expr"},
	} {
		_, err := Parse("s.yaml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.text, err, tc.want)
		}
	}
}

// cross_leaf: true on a lab of one leaf is refused at the key: the flows
// used to be placed under the one leaf, silently, and their figures read
// as traffic across the spines.
func TestCrossLeafOnOneLeafRefused(t *testing.T) {
	s, err := Parse("s.yaml", []byte("name: s\nmatrix: {ecn: [on], pfc: [on]}\ntraffic:\n  - pattern: pairs\n    cross_leaf: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Expand(labNICs(1, 2, 8), s.Points()[0], 1)
	if err == nil || !strings.Contains(err.Error(), "s.yaml:5:17: cross_leaf is true, but the lab has 1 leaf") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("one leaf: %v", err)
	}
	if _, err := s.Expand(labNICs(2, 1, 8), s.Points()[0], 1); err != nil {
		t.Errorf("two leaves: %v", err)
	}
}
