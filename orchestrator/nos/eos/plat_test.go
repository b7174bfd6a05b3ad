package eos

import (
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// platform and hardware lines of buffers or QoS are named as not read:
// an MMU queue profile with a warning (it changes the buffers), a TCAM
// profile as a statement labctl does not read; other platform lines pass
// unread.
func TestParsePlatformBufferLines(t *testing.T) {
	cfg := `platform tfa personality arfa
platform trident mmu queue profile roce
   ingress threshold 1/128
   egress unicast queue 3 threshold 1/128
!
platform trident mmu queue profile roce apply
hardware tcam
   profile qos
!
hardware counter feature gre tunnel interface out
interface Ethernet1
   qos trust dscp
`
	dc := mustParseEOS(t, cfg)
	var risks []string
	for _, u := range dc.Unsimulated {
		risks = append(risks, u.Where)
	}
	if len(risks) != 1 || !strings.Contains(risks[0], "platform trident mmu queue profile roce") {
		t.Errorf("unsimulated = %q, want the MMU queue profile once", risks)
	}
	var fields []string
	for _, f := range dc.Fields {
		fields = append(fields, f.Field)
	}
	got := strings.Join(fields, "\n")
	for _, want := range []string{"global platform <chip> mmu <...>", "global hardware <...>"} {
		if !strings.Contains(got, want) {
			t.Errorf("fields = %q, want %q", fields, want)
		}
	}
	if strings.Contains(got, "not a statement") || len(fields) != 2 {
		t.Errorf("fields = %q, want the two (personality and counter lines pass unread)", fields)
	}
	found := false
	for _, f := range qos.Lint([]qos.DeviceConfig{dc}, qos.LintOptions{}) {
		found = found || f.Rule == qos.RuleDefaultRelied && f.Severity == qos.SevWarning && strings.Contains(f.Message, "mmu queue profile")
	}
	if !found {
		t.Error("no QOS017 warning for the MMU queue profile")
	}
}
