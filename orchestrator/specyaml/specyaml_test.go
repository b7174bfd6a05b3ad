package specyaml

import (
	"errors"
	"strings"
	"testing"
)

type inner struct {
	NICSpeed int `yaml:"nic_speed_gbps"`
}
type outer struct {
	Name   string `yaml:"name"`
	Sizing inner  `yaml:"sizing"`
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"name: a\nsizing:\n  nic_sped_gbps: 1\n", `f.yaml:3:3: unknown field "nic_sped_gbps" in sizing (fix: did you mean "nic_speed_gbps"?)`},
		{"name: a\ncolour: red\n", `f.yaml:2:1: unknown field "colour"`},
		{"name: a\nsizing:\n  nic_speed_gbps: fast\n", `f.yaml:3:19: "fast" is not a whole number`},
		{"name: [\n", "f.yaml:1"},
		{"  \n", "file is empty"},
		// A tab where YAML wants spaces: the fix says so.
		{"name: a\nsizing:\n\tnic_speed_gbps: 1\n", "(fix: indent with spaces: YAML does not allow tabs there)"},
	}
	for _, c := range cases {
		var v outer
		err := Decode("f.yaml", []byte(c.in), &v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%q) = %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

func TestAt(t *testing.T) {
	data := []byte("name: a\nsizing:\n  nic_speed_gbps: 300\n")
	err := At("f.yaml", data, "$.sizing.nic_speed_gbps", "bad speed", "use 200")
	if got := err.Error(); got != "f.yaml:3:19: bad speed (fix: use 200)" {
		t.Errorf("At = %q", got)
	}
	if got := At("f.yaml", data, "$.sizing.absent", "missing", "").Error(); got != "f.yaml: missing" {
		t.Errorf("At on an absent path = %q", got)
	}
}

func TestExplicitZero(t *testing.T) {
	data := []byte("name: a\nsizing:\n  nic_speed_gbps: 0\n")
	fields := func(zero bool) []ZeroField {
		return []ZeroField{
			{Path: "$.sizing.absent", IsZero: true, Default: "1", Fix: "use 1"},
			{Path: "$.sizing.nic_speed_gbps", IsZero: zero, Default: "200", Fix: "use 100, 200 or 400"},
		}
	}
	err := ExplicitZero("f.yaml", data, fields(true))
	want := "f.yaml:3:19: nic_speed_gbps: 0 is not allowed (leaving nic_speed_gbps out means 200) (fix: use 100, 200 or 400, or remove the key for the default)"
	if err == nil || err.Error() != want {
		t.Errorf("ExplicitZero = %v\nwant %s", err, want)
	}
	if err := ExplicitZero("f.yaml", data, fields(false)); err != nil {
		t.Errorf("a non-zero value: %v", err)
	}
	if !Present(data, "$.sizing") || Present(data, "$.nos") {
		t.Error("Present is wrong")
	}
}

func TestDecodeNumbers(t *testing.T) {
	cases := []struct{ in, want string }{
		{"name: a\nsizing:\n  nic_speed_gbps: 99999999999999999999999\n", "f.yaml:3:19: 99999999999999999999999 is too large for nic_speed_gbps (fix: give nic_speed_gbps a whole number"},
		{"name: a\nsizing:\n  nic_speed_gbps: fast\n", "(fix: give nic_speed_gbps a whole number"},
		{"name: a\nname: b\n", "(fix: keep one of the two entries"},
	}
	for _, c := range cases {
		var v outer
		err := Decode("f.yaml", []byte(c.in), &v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%q) = %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

func TestDecodeNesting(t *testing.T) {
	deep := "name: a\nsizing: " + strings.Repeat("[", MaxNesting+1) + "\n"
	var v outer
	err := Decode("f.yaml", []byte(deep), &v)
	if err == nil || !strings.Contains(err.Error(), "f.yaml:2:73: lists and mappings nest more than 64 levels deep") {
		t.Errorf("deep nesting: %v", err)
	}
	// Brackets in comments do not count.
	ok := "# " + strings.Repeat("[", 100) + "\nname: a\n"
	if err := Decode("f.yaml", []byte(ok), &v); err != nil {
		t.Errorf("brackets in a comment: %v", err)
	}
}

func TestDecodeNeverPanics(t *testing.T) {
	// This input made the YAML library panic.
	var v outer
	err := Decode("f.yaml", []byte("A: \ntraffic:\n  !!000000000 0"), &v)
	if err == nil {
		t.Fatal("no error")
	}
}

// TestClassifyKindGiven: go-yaml's "<kind> was used where <kind> is
// expected" is read by its expected kind, not by any "mapping" in it
// ("mapping was used where sequence is expected" was read as a key
// taking a mapping), and names the kind given.
func TestClassifyKindGiven(t *testing.T) {
	for msg, want := range map[string]string{
		"mapping was used where sequence is expected": "this key takes a list, not a mapping (fix: write this key as [a, b]",
		"string was used where sequence is expected":  "this key takes a list, not a single value",
		"string was used where mapping is expected":   "this key takes a mapping, not a single value (fix: write this key as {key: value}",
		"sequence was used where mapping is expected": "this key takes a mapping, not a list",
	} {
		if got := classify("f.yaml", errors.New(msg), nil).Error(); !strings.Contains(got, want) {
			t.Errorf("%q: %s, want %q", msg, got, want)
		}
	}
}
