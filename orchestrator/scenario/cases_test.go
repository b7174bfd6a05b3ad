package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

const casesScenario = `name: x
matrix:
  ecn: [on]
  pfc: [on]
traffic:
  - {case: burst, pattern: incast, senders: 4, bytes: 1MiB}
  - {case: mix, pattern: all-to-all, ranks: 4, bytes: 64KiB}
  - {pattern: pairs, pairs: 1, bytes: 1MiB}
faults:
  - {case: mix, kind: link-down, link: leaf1-spine1, at: 1ms}
assertions:
  - name: a case in a guard
    expr: summary.drops == 0 when params.case == "burst"
`

// Tagged entries make the case dimension; a variant of a case runs its
// entries and the untagged ones, and its faults only.
func TestCasesSplitTrafficAndFaults(t *testing.T) {
	s := mustParse(t, casesScenario)
	var names []string
	for _, pt := range s.Points() {
		names = append(names, pt.Name)
	}
	if !slices.Equal(names, []string{"ecn=on,pfc=on,case=burst", "ecn=on,pfc=on,case=mix"}) {
		t.Fatalf("variants %v", names)
	}
	nics := labNICs(2, 2, 8)
	for _, pt := range s.Points() {
		vs, err := s.Expand(nics, pt, 1)
		if err != nil {
			t.Fatal(err)
		}
		roles := map[string]int{}
		for _, f := range vs.Flows {
			roles[f.Role]++
		}
		switch pointCase(pt) {
		case "burst":
			if roles["incast"] != 4 || roles["all-to-all"] != 0 || roles["pairs"] != 1 || len(vs.Faults) != 0 {
				t.Errorf("burst: roles %v faults %d", roles, len(vs.Faults))
			}
		case "mix":
			if roles["incast"] != 0 || roles["all-to-all"] != 12 || roles["pairs"] != 1 || len(vs.Faults) != 1 {
				t.Errorf("mix: roles %v faults %d", roles, len(vs.Faults))
			}
		}
		if vs.Params["case"] != pointCase(pt) {
			t.Errorf("params %v", vs.Params)
		}
	}
	// matrix case orders the cases.
	s = mustParse(t, strings.Replace(casesScenario, "  pfc: [on]\n", "  pfc: [on]\n  case: [mix, burst]\n", 1))
	if pts := s.Points(); pts[0].Name != "ecn=on,pfc=on,case=mix" {
		t.Errorf("ordered: %v", pts[0].Name)
	}
}

func TestCasesBadInput(t *testing.T) {
	for edit, want := range map[[2]string]string{
		{"  pfc: [on]\n", "  pfc: [on]\n  case: [burst]\n"}:                 "t.yaml:8:12", // mix is tagged but not listed
		{"  pfc: [on]\n", "  pfc: [on]\n  case: [burst, mix, idle]\n"}:      "case idle has no entries",
		{"  pfc: [on]\n", "  pfc: [on]\n  case: [burst, burst]\n"}:          "listed twice",
		{"{case: burst, pattern: incast", "{case: Burst!, pattern: incast"}: "t.yaml:6:12",
		{"  pfc: [on]\n", "  pfc: [on]\n  traffic[0].case: [a]\n"}:          "a case is a dimension of its own",
	} {
		_, err := Parse("t.yaml", []byte(strings.Replace(casesScenario, edit[0], edit[1], 1)))
		if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want exit 2 with %q", edit[1], err, want)
		}
	}
}
