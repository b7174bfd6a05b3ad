package scenario

import (
	"strconv"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/readlimit"
)

func TestCatalogParses(t *testing.T) {
	names := CatalogNames()
	for _, want := range []string{"allreduce", "baseline-bw", "ecn-pfc", "incast"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("catalog lacks %s (has %v)", want, names)
		}
	}
	for _, n := range names {
		s, err := Resolve(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if s.Name != n || s.Source != "catalog:"+n {
			t.Errorf("%s: name %q source %q", n, s.Name, s.Source)
		}
	}
	s, _ := Resolve("ecn-pfc")
	if s.DurationUs < 5000 {
		t.Errorf("ecn-pfc simulates %v us, want at least 5 ms", s.DurationUs)
	}
	if got := strings.Join(s.VariantNames(), " "); got != "ecn=on,pfc=on ecn=on,pfc=off ecn=off,pfc=on ecn=off,pfc=off" {
		t.Errorf("ecn-pfc variants = %s", got)
	}
}

func TestParseDefaults(t *testing.T) {
	s, err := Parse("x.yaml", []byte("name: x\ntraffic:\n  - pattern: incast\n"))
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Traffic[0]
	if len(s.Points()) != 4 || s.DurationUs != 5000 || s.Repetitions != 1 ||
		tr.Senders != DefaultIncastN || tr.QPs != 1 || *tr.TrafficClass != 106 || tr.MessageBytes != 64<<10 {
		t.Errorf("defaults: %+v %+v", s, tr)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "name: x\nduraton: 5ms\ntraffic: [{pattern: incast}]\n", "x.yaml:2:1"},
		{"wrong type", "name: x\nrepetitions: many\ntraffic: [{pattern: incast}]\n", "x.yaml:2:"},
		{"bad pattern", "name: x\ntraffic:\n  - pattern: broadcast\n", "x.yaml:3:14: unknown pattern \"broadcast\""},
		{"bad matrix", "name: x\nmatrix:\n  ecn: [on, maybe]\ntraffic: [{pattern: incast}]\n", "x.yaml:3:13: ecn value \"maybe\" is not on or off"},
		{"bad duration", "name: x\nduration: fast\ntraffic: [{pattern: incast}]\n", "x.yaml:2:11: duration \"fast\""},
		{"field not for pattern", "name: x\ntraffic:\n  - pattern: pairs\n    senders: 4\n", "senders does not apply to pattern pairs"},
		{"bad size", "name: x\ntraffic:\n  - pattern: pairs\n    message_size: 4 parsecs\n", "message_size \"4 parsecs\""},
		{"bad expr", "name: x\ntraffic: [{pattern: incast}]\nassertions:\n  - expr: summary.drops = 0\n", "x.yaml:4:11: assertion \"summary.drops = 0\": column 15"},
		{"unknown ident", "name: x\ntraffic: [{pattern: incast}]\nassertions:\n  - expr: summary.dropz == 0\n", "unknown summary field \"dropz\""},
		{"unknown role", "name: x\ntraffic: [{pattern: incast}]\nassertions:\n  - expr: roles.victim.count == 1\n", "no traffic of this scenario has role \"victim\""},
		{"variant not in matrix", "name: x\nmatrix: {ecn: [on]}\ntraffic: [{pattern: incast}]\nassertions:\n  - expr: summary.drops < [ecn=off,pfc=on].summary.drops\n", "is not in this scenario's matrix"},
		{"no traffic", "name: x\n", "has no traffic"},
		{"bad name", "name: X Y\ntraffic: [{pattern: incast}]\n", "scenario name \"X Y\" is not allowed"},
		{"name too long", "name: " + strings.Repeat("x", 41) + "\ntraffic: [{pattern: incast}]\n", "at most 40 characters"},
		{"bad case name", "name: x\ntraffic: [{pattern: incast, case: Burst}]\n", "case \"Burst\" is not a case name"},
		{"case name too long", "name: x\ntraffic: [{pattern: incast, case: " + strings.Repeat("c", 41) + "}]\n", "is not a case name"},
		{"empty", "", "file is empty"},
		{"incast of one", "name: x\ntraffic:\n  - pattern: incast\n    senders: 1\n", "senders 1 makes no incast"},
		{"tclass", "name: x\ntraffic:\n  - pattern: incast\n    traffic_class: 300\n", "traffic_class 300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if exitcode.Code(err) != exitcode.BadInput {
				t.Errorf("exit code %d, want 2", exitcode.Code(err))
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "fix:") {
				t.Errorf("error %q gives no fix", err)
			}
		})
	}
}

func TestResolveUnknown(t *testing.T) {
	_, err := Resolve("nosuch")
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "ecn-pfc") {
		t.Errorf("Resolve(nosuch) = %v", err)
	}
	_, err = Resolve("./missing.yaml")
	if exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), "file not found") {
		t.Errorf("Resolve(missing) = %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"4096": 4096, "64KiB": 65536, "1MiB": 1 << 20, "1.5KB": 1500, "2 GB": 2e9, "10B": 10,
		"1.1MB": 1_100_000, "4.35MB": 4_350_000, "0.5KiB": 512, "1.5GiB": 3 << 29} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	// The bound the refusal names is MaxSizeBytes, which ParseBytes
	// takes, and no byte more.
	if got, err := ParseBytes(strconv.FormatInt(MaxSizeBytes, 10)); err != nil || got != MaxSizeBytes {
		t.Errorf("ParseBytes(MaxSizeBytes) = %d, %v", got, err)
	}
	if _, err := ParseBytes(strconv.FormatInt(MaxSizeBytes+1, 10)); err == nil || !strings.Contains(err.Error(), "more than "+readlimit.Size(MaxSizeBytes)+",") {
		t.Errorf("ParseBytes(MaxSizeBytes+1): %v, want it refused naming %s", err, readlimit.Size(MaxSizeBytes))
	}
	for _, in := range []string{"", "KiB", "1TiB", "-1", "1e99", "1.7B", "1000.5", "0.5", "1.0001KB"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) accepted", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range CatalogNames() {
		s, _ := Resolve(n)
		_ = s
	}
	f.Add([]byte("name: x\ntraffic:\n  - pattern: incast\n    victim: true\nassertions:\n  - expr: summary.drops == 0 when pfc\n"))
	f.Add([]byte("name: y\nmatrix: {ecn: [on], pfc: [off]}\nduration: 1ms\ntraffic: [{pattern: pairs, pairs: 2, bytes: 1MiB}]\n"))
	f.Add([]byte("name: z\ntraffic: [{pattern: ring-allreduce, bytes: 16MiB, ranks: 8}]\n"))
	f.Add([]byte("name: s\nmatrix:\n  ecn: [on]\n  qos.ecn.kmin_kb: [100, 2e2]\n  traffic[0].senders: [2, 4]\n  nic.dcqcn.preset: [paper]\ntraffic: [{pattern: incast}]\nassertions:\n  - expr: summary.drops <= [qos.ecn.kmin_kb=prev].summary.drops && params.traffic[0].senders > 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data)
		if err != nil {
			if exitcode.Code(err) != exitcode.BadInput {
				t.Fatalf("error is not a usage error: %v", err)
			}
			return
		}
		if len(s.Traffic) == 0 || s.DurationUs <= 0 || len(s.exprs) != len(s.Assertions) {
			t.Fatalf("accepted an invalid spec: %+v", s)
		}
	})
}

// The longest scenario and case names are accepted.
func TestScenarioNameLongest(t *testing.T) {
	name := strings.Repeat("x", 40)
	sc, err := Parse("x.yaml", []byte("name: "+name+"\ntraffic: [{pattern: incast, case: "+name+"}]\n"))
	if err != nil || sc.Name != name {
		t.Errorf("40-character scenario and case names: %v", err)
	}
}

// TestFaultDurationFixes: each duration key's refusal gives the fix that
// fits it: at, detect and converge take 0 (a negative one said "above 0"),
// a flap's down and up are required (their 0 said to leave them out for a
// default they do not have).
func TestFaultDurationFixes(t *testing.T) {
	for _, c := range []struct{ fault, want, notFix string }{
		{"{kind: link-down, link: leaf1-spine1, at: -1ms}", "fix: write 0 or a duration above it, such as 5ms or 200us)", "leave the key out"},
		{"{kind: link-down, link: leaf1-spine1, at: 1ms, detect: -1ms}", "fix: write 0 or a duration above it, such as 5ms or 200us, or leave the key out for its default)", ""},
		{"{kind: link-down, link: leaf1-spine1, at: 1ms, converge: -1ms}", "fix: write 0 or a duration above it, such as 5ms or 200us, or leave the key out for its default)", ""},
		{"{kind: link-flap, link: leaf1-spine1, at: 1ms, down: 0ms, up: 1ms}", "down 0ms is not above 0 (fix: write a duration above 0, such as 5ms or 200us)", "leave the key out"},
		{"{kind: link-flap, link: leaf1-spine1, at: 1ms, down: 1ms, up: -1ms}", "up -1ms is negative (fix: write a duration above 0, such as 5ms or 200us)", "leave the key out"},
		{"{kind: link-down, link: leaf1-spine1, at: 1ms, for: 0ms}", "for 0ms is not above 0 (fix: write a duration above 0, such as 5ms or 200us, or leave the key out for its default)", ""},
	} {
		_, err := Parse("s.yaml", []byte("name: x\nduration: 10ms\ntraffic: [{pattern: incast}]\nfaults: ["+c.fault+"]\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) || c.notFix != "" && strings.Contains(err.Error(), c.notFix) {
			t.Errorf("%s: %v, want %q", c.fault, err, c.want)
		}
	}
}
