package specyaml

import (
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// A spec type shaped like labctl's: nested structs, a list of structs,
// optional numbers, an int-keyed map and a type that decodes itself.
type tSpec struct {
	Name    string         `yaml:"name"`
	Sizing  tSizing        `yaml:"sizing"`
	QoS     tQoS           `yaml:"qos"`
	Traffic []tTraffic     `yaml:"traffic"`
	Matrix  selfDecoding   `yaml:"matrix"`
	Source  string         `yaml:"-"`
	Weights map[int]int    `yaml:"weights"`
	Limits  map[string]int `yaml:"limits"`
}
type tSizing struct {
	GPUs          int     `yaml:"gpus"`
	NICSpeedGbps  int     `yaml:"nic_speed_gbps"`
	Oversub       float64 `yaml:"oversubscription"`
	GPUsPerServer *int    `yaml:"gpus_per_server"`
}
type tQoS struct {
	ECN *tEnable `yaml:"ecn"`
	PFC *tEnable `yaml:"pfc"`
	MTU *int     `yaml:"mtu"`
}
type tEnable struct {
	Enabled *bool `yaml:"enabled"`
}
type tTraffic struct {
	Pattern string `yaml:"pattern"`
	Senders int    `yaml:"senders"`
	Sizes   []int  `yaml:"sizes"`
}

// selfDecoding takes any keys, as the scenario matrix does.
type selfDecoding struct{}

func (s *selfDecoding) UnmarshalYAML(n ast.Node) error { return nil }

func decodeErr(t *testing.T, in string) string {
	t.Helper()
	var v tSpec
	err := Decode("f.yaml", []byte(in), &v)
	if err == nil {
		t.Fatalf("Decode(%q): no error", in)
	}
	if exitcode.Code(err) != exitcode.BadInput {
		t.Errorf("Decode(%q): exit %d, want 2", in, exitcode.Code(err))
	}
	return err.Error()
}

// The library truncates a fraction given for a whole number (64.5 plans
// 64 GPUs); Decode refuses it where it stands, and keeps whole numbers
// written as floats.
func TestDecodeWholeNumbers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sizing:\n  gpus: 64.5\n", "f.yaml:2:9: sizing.gpus must be a whole number, not 64.5 (fix: write 64 or 65)"},
		{"sizing:\n  gpus_per_server: 7.9\n", "f.yaml:2:20: sizing.gpus_per_server must be a whole number, not 7.9 (fix: write 7 or 8)"},
		{"sizing: {gpus: \"16.5\"}\n", "f.yaml:1:16: sizing.gpus must be a whole number, not 16.5"},
		{"sizing: {gpus: -0.5}\n", "sizing.gpus must be a whole number, not -0.5 (fix: write -1 or 0)"},
		{"qos: {mtu: 9000.1}\n", "f.yaml:1:12: qos.mtu must be a whole number, not 9000.1"},
		{"traffic:\n  - pattern: incast\n  - senders: 2.5\n", "f.yaml:3:14: traffic[1].senders must be a whole number, not 2.5"},
		{"traffic:\n  - sizes: [1, 2, 3.25]\n", "f.yaml:2:19: traffic[0].sizes[2] must be a whole number, not 3.25"},
		{"weights: {3.5: 50}\n", "f.yaml:1:11: the keys of weights must be whole numbers, not 3.5 (fix: write 3 or 4)"},
		{"weights: {3: 50.5}\n", "f.yaml:1:14: weights.3 must be a whole number, not 50.5"},
		{"limits: {a: 1.5}\n", "f.yaml:1:13: limits.a must be a whole number, not 1.5"},
		// One key of an int-keyed map written two ways: the library keeps
		// the last.
		{"weights: {3: 50, 3.0: 60}\n", "f.yaml:1:18: weights gives key 3 twice (as 3.0 here and 3 at line 1) (fix: keep one of the two entries)"},
		{"weights:\n  0x3: 50\n  3: 60\n", "f.yaml:3:3: weights gives key 3 twice (as 3 here and 0x3 at line 2)"},
	} {
		if got := decodeErr(t, c.in); !strings.Contains(got, c.want) {
			t.Errorf("Decode(%q) = %s\nwant it to contain %s", c.in, got, c.want)
		}
	}
	var v tSpec
	if err := Decode("f.yaml", []byte("sizing: {gpus: 64.0, nic_speed_gbps: 2e2, oversubscription: 1.5}\nweights: {3.0: 50}\n"), &v); err != nil {
		t.Fatalf("whole numbers as floats: %v", err)
	}
	if v.Sizing.GPUs != 64 || v.Sizing.NICSpeedGbps != 200 || v.Sizing.Oversub != 1.5 || v.Weights[3] != 50 {
		t.Errorf("decoded %+v", v)
	}
}

// The library reads a file's first document and drops the rest.
func TestDecodeOneDocument(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"name: a\n---\nname: b\n", "f.yaml:2:1: a second YAML document starts here"},
		{"# head\n---\nname: a\nsizing: {gpus: 8}\n---\nname: b\n", "f.yaml:5:1: a second YAML document starts here"},
		// After an empty first document the library reads nothing.
		{"---\n---\nname: a\n", "f.yaml:2:1: a second YAML document starts here"},
		{"name: a\n...\nname: b\n", "f.yaml:3:1: a second YAML document starts here, after the document end marker (...)"},
	} {
		got := decodeErr(t, c.in)
		if !strings.Contains(got, c.want) || !strings.Contains(got, "fix: remove") {
			t.Errorf("Decode(%q) = %s\nwant it to contain %s and a fix", c.in, got, c.want)
		}
	}
	// A leading ---, a trailing --- or ... and a --- inside a block scalar
	// are one document.
	for _, in := range []string{"---\nname: a\n", "name: a\n---\n", "name: a\n--- # end\n", "name: a\n...\n", "name: |\n  ---\n  x\n"} {
		var v tSpec
		if err := Decode("f.yaml", []byte(in), &v); err != nil {
			t.Errorf("Decode(%q): %v", in, err)
		} else if !strings.HasPrefix(v.Name, "a") && !strings.HasPrefix(v.Name, "---") {
			t.Errorf("Decode(%q): name %q", in, v.Name)
		}
	}
}

// YAML allows a UTF-8 byte-order mark at the start of a file; the library
// read it as part of the first key ("unknown field \ufeffname").
func TestDecodeByteOrderMark(t *testing.T) {
	data := []byte("\xef\xbb\xbfname: a\nsizing:\n  gpus: 8\n")
	var v tSpec
	if err := Decode("f.yaml", data, &v); err != nil || v.Name != "a" || v.Sizing.GPUs != 8 {
		t.Fatalf("with a BOM: %+v, %v", v, err)
	}
	// Errors positioned afterwards find their node in the same file.
	if got := At("f.yaml", data, "$.sizing.gpus", "bad", "fix it").Error(); got != "f.yaml:3:9: bad (fix: fix it)" {
		t.Errorf("At with a BOM = %q", got)
	}
	if !Present(data, "$.name") {
		t.Error("Present with a BOM: name is not found")
	}
	// A comment first, as in labctl's catalog specs.
	data = []byte("\xef\xbb\xbf# a lab\nname: a\n")
	if err := Decode("f.yaml", data, &v); err != nil {
		t.Errorf("BOM then a comment: %v", err)
	}
	for _, in := range []string{"\xff\xfen\x00a\x00", "\xfe\xff\x00n\x00a"} {
		if got := decodeErr(t, in); !strings.Contains(got, "f.yaml:1:1: the file is UTF-16") || !strings.Contains(got, "fix: save the file as UTF-8") {
			t.Errorf("Decode(%q) = %s", in, got)
		}
	}
}

// Unknown keys: the first in file order, every run (the library picked
// one in map order), with suggestions from the key's own level.
func TestDecodeUnknownKeys(t *testing.T) {
	many := "zeta: 1\nname: a\nalpha: 2\nmu: 3\nsizing:\n  omega: 1\n  beta: 2\n"
	for range 20 {
		if got := decodeErr(t, many); !strings.HasPrefix(got, `f.yaml:1:1: unknown field "zeta" (fix:`) {
			t.Fatalf("Decode = %s, want the first unknown key, zeta at 1:1", got)
		}
	}
	for _, c := range []struct{ in, want string }{
		// Misspelt at its level.
		{"sizing:\n  gpu: 8\n", `f.yaml:2:3: unknown field "gpu" in sizing (fix: did you mean "gpus"?)`},
		{"traffic:\n  - pattern: incast\n    sendrs: 4\n", `f.yaml:3:5: unknown field "sendrs" in traffic[0] (fix: did you mean "senders"?)`},
		// A key of another level: where it belongs, not a near key here.
		{"name: a\ngpus: 8\n", `f.yaml:2:1: unknown field "gpus" (fix: gpus is a key of sizing, not of the top level: move it there)`},
		{"qos:\n  enabled: true\n", `unknown field "enabled" in qos (fix: enabled is a key of qos.ecn or qos.pfc, not of qos: move it there)`},
		{"senders: 4\n", `(fix: senders is a key of traffic[i], not of the top level: move it there)`},
		// Misspelt and misplaced.
		{"nic_sped_gbps: 200\n", `(fix: did you mean "nic_speed_gbps" under sizing? (the top level has no key spelt like it))`},
		// Nothing near: the level's own keys, never nested ones.
		{"sizing:\n  colour: red\n", `(fix: remove or correct the key; the keys of sizing are gpus, gpus_per_server, nic_speed_gbps, oversubscription)`},
		// A short key is not "corrected" two letters away (foo to nos).
		{"foo: 1\n", `(fix: remove or correct the key; the keys of the top level are limits, matrix, name, qos, sizing, traffic, weights)`},
		// A field labctl sets itself is no key.
		{"source: x\n", `unknown field "source"`},
	} {
		if got := decodeErr(t, c.in); !strings.Contains(got, c.want) {
			t.Errorf("Decode(%q) = %s\nwant it to contain %s", c.in, got, c.want)
		}
	}
	// A type that decodes itself takes any key.
	var v tSpec
	if err := Decode("f.yaml", []byte("matrix: {anything: [1], qos.x: [2]}\n"), &v); err != nil {
		t.Errorf("self-decoding matrix: %v", err)
	}
}
