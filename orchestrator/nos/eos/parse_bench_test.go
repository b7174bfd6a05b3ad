package eos

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// BenchmarkParseAVDInterfaces parses the real AVD interfaces sample
// (24 KB, mostly interface lines labctl does not read: descriptions,
// addresses), each of which meets the keyword expansion and the
// misspelling check. Taking every statement's syntax apart for each such
// line once made a parse 30 ms and 23 MB (2.8 ms and 2.1 MB before those
// checks came, 5.3 ms and 1.4 MB once the syntaxes were taken apart once,
// on this 2-core machine).
func BenchmarkParseAVDInterfaces(b *testing.B) {
	path := filepath.Join("..", "..", "..", "..", "shared", "reference", "real-configs", "eos", "ethernet-interfaces.cfg")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no real EOS config at %s (../shared/reference/real-configs from the repository root): %v", path, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("sw", qos.Source{Name: "ethernet-interfaces.cfg", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}
