package scenario

import (
	"strings"
	"testing"
)

// TestTrafficRole: an entry's role names its flows (its victim keeps
// victim), assertions read the roles the entries give and refuse the
// pattern's name once a role replaces it, and a role is refused where
// there are no flows to name or the name is not one.
func TestTrafficRole(t *testing.T) {
	s := mustParse(t, `name: x
traffic:
  - pattern: incast
    senders: 4
    victim: true
    role: roce
  - pattern: incast
    senders: 2
    traffic_class: 0
    role: best-effort
assertions:
  - name: best effort is not starved
    expr: roles.best-effort.throughput_gbps > 0
`)
	vs, err := s.Expand(labNICs(2, 4, 8), s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range vs.Flows {
		got = append(got, f.Role)
	}
	if want := "roce roce roce roce victim best-effort best-effort"; strings.Join(got, " ") != want {
		t.Errorf("roles %q, want %q", strings.Join(got, " "), want)
	}
	if got := strings.Join(s.roles(), ","); got != "roce,victim,best-effort" {
		t.Errorf("spec roles %s", got)
	}
	err = parseErr(t, `name: x
traffic:
  - pattern: incast
    role: roce
assertions:
  - name: old name
    expr: roles.incast.throughput_gbps > 0
`)
	if err == nil || !strings.Contains(err.Error(), `no traffic of this scenario has role "incast" (roles: roce)`) {
		t.Errorf("assertion on the pattern's name once a role replaces it: %v", err)
	}

	for _, tc := range []struct{ traffic, want string }{
		{"  - pattern: ring-allreduce\n    role: ar\n", "t.yaml:4:11: role does not apply to pattern ring-allreduce"},
		{"  - pattern: pairs\n    role: Best_Effort\n", `t.yaml:4:11: role "Best_Effort" is not a role name`},
		{"  - pattern: pairs\n    role: \"\"\n", ""},
		{"  - pattern: latency\n    role: probe\n", ""},
	} {
		err := parseErr(t, "name: x\ntraffic:\n"+tc.traffic)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q refused: %v", tc.traffic, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %s", tc.traffic, err, tc.want)
		}
	}
}

// TestAllToAllCollectiveRole: an all-to-all too large to list as flows
// runs as one collective, which keeps the entry's role.
func TestAllToAllCollectiveRole(t *testing.T) {
	s := mustParse(t, "name: x\ntraffic:\n  - pattern: all-to-all\n    ranks: 100\n    bytes: 64KiB\n    role: moe\n")
	vs, err := s.Expand(labNICs(4, 8, 4), s.Points()[0], 1)
	if err != nil {
		t.Fatal(err)
	}
	if vs.Collective == nil || vs.Collective.Role != "moe" {
		t.Errorf("collective %+v", vs.Collective)
	}
}

// TestRoleNameInAssertion: a role's dashes are its name's in
// roles.<role> (all-to-all was unreadable), and a minus everywhere else.
func TestRoleNameInAssertion(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"roles.all-to-all.count", "roles.all-to-all.count"},
		{"roles.best-effort.throughput_gbps - 1", "roles.best-effort.throughput_gbps"},
		{"summary.drops-summary.cnp", "summary.drops"},
		{"[ecn=off].roles.best-effort.count", "roles.best-effort.count"},
	} {
		toks, err := lex(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		var path []string
		for _, tk := range toks {
			if tk.kind == tIdent {
				path = append(path, tk.text)
			}
			if tk.kind != tIdent && tk.kind != tDot && tk.kind != tVariant {
				break
			}
		}
		if got := strings.Join(path, "."); got != tc.want {
			t.Errorf("%s: first name %s, want %s", tc.expr, got, tc.want)
		}
	}
	if err := parseErr(t, "name: x\ntraffic:\n  - pattern: pairs\n    role: 8gpu\n"); err == nil || !strings.Contains(err.Error(), "starting with a letter") {
		t.Errorf("a role starting with a digit: %v", err)
	}
}
