package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

func TestParseRejectsWhatIsNotEOS(t *testing.T) {
	cases := map[string]string{
		"":                             "empty",
		"\x00\x01\x02binary":           "binary",
		"{\"PORT_QOS_MAP\": {}}\n":     "--nos sonic",
		"hello\nworld\n":               "no EOS configuration statements",
		"! only a comment\n":           "no EOS configuration statements",
		"\xff\xfe not utf-8 interface": "binary",
		// The mark would hide the first command (interface Ethernet1).
		"\xef\xbb\xbfinterface Ethernet1\n   qos trust dscp\n": "leaf1.cfg:1: the file starts with a UTF-8 byte-order mark",
	}
	for in, want := range cases {
		_, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte(in)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error naming %q", in, err, want)
		}
	}
	if _, err := Parse("leaf1", qos.Source{Name: "leaf1.cfg", Data: []byte("hostname leaf1\n!\ninterface Ethernet1\n   no shutdown\n")}); err != nil {
		t.Errorf("a minimal EOS config: %v", err)
	}
}
