package scenario

import (
	"slices"
	"strings"
	"testing"
)

// A traffic_class that reads as a DSCP written for the TOS byte is named
// with its line and the fix; best effort written as such, the default and
// a TOS byte of a lossless DSCP are not.
func TestTrafficClassWarnings(t *testing.T) {
	t.Parallel()
	// labctl's default QoS intent: DSCP 26 (and only it, here) lossless.
	lossless := func(dscp int) bool { return dscp == 26 }
	src := `name: tos
duration: 1ms
traffic:
  - pattern: pairs
    traffic_class: 26
  - pattern: pairs
    traffic_class: 0
  - pattern: pairs
    traffic_class: 106
  - pattern: pairs
    traffic_class: 104
  - pattern: pairs
    traffic_class: 24
  - pattern: pairs
`
	s, err := Parse("tos.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ws := s.TrafficClassWarnings(lossless)
	if len(ws) != 1 {
		t.Fatalf("want one warning (traffic_class 26), got %d: %q", len(ws), ws)
	}
	for _, want := range []string{"tos.yaml:5:20: ", "traffic_class 26 is the TOS byte of DSCP 6", "no lossless class", "best effort", "traffic_class: 106 (DSCP 26 with ECT(0))"} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning does not say %q: %s", want, ws[0])
		}
	}

	// A swept value is named at its place in the sweep.
	swept := `name: tos-sweep
duration: 1ms
matrix:
  traffic[0].traffic_class: [106, 26]
traffic:
  - pattern: pairs
`
	if s, err = Parse("sweep.yaml", []byte(swept)); err != nil {
		t.Fatal(err)
	}
	if ws := s.TrafficClassWarnings(lossless); len(ws) != 1 || !strings.HasPrefix(ws[0], "sweep.yaml:4:") || !strings.Contains(ws[0], "DSCP 6") {
		t.Errorf("swept traffic_class 26: got %q", ws)
	}

	// The catalog's scenarios, mixed-classes' best-effort traffic_class 0
	// among them, say nothing on a lab whose DSCP 26 is lossless.
	for _, name := range CatalogNames() {
		s, err := Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		if ws := s.TrafficClassWarnings(lossless); len(ws) > 0 {
			t.Errorf("catalog scenario %s: %q", name, ws)
		}
	}
}

// TrafficDSCPs are the DSCPs of every entry's traffic_class (106 where
// none is written) and of every swept value, once each, in order.
func TestTrafficDSCPs(t *testing.T) {
	t.Parallel()
	src := `name: dscps
duration: 1ms
matrix:
  traffic[1].traffic_class: [0, 184]
traffic:
  - pattern: pairs
  - pattern: pairs
    traffic_class: 2
  - pattern: pairs
    traffic_class: 106
`
	s, err := Parse("dscps.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.TrafficDSCPs(); !slices.Equal(got, []int{0, 26, 46}) {
		t.Errorf("TrafficDSCPs: %v, want [0 26 46]", got)
	}
	s, err = Resolve("mixed-classes")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.TrafficDSCPs(); !slices.Equal(got, []int{0, 26}) {
		t.Errorf("mixed-classes: %v, want best effort's 0 and RoCE's 26", got)
	}
}
