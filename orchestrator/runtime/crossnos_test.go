package runtime

import (
	"regexp"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/qos"
)

// One lab rendered for SONiC and for EOS must mean the same on both
// wherever its QoS intent decides: classification, PFC, the lossless
// PGs and queues, the pause-to-queue map, schedulers, ECN, WRED and the
// PFC watchdog, as the switches resolve them (defaults included). What
// the intent leaves to the switch may differ, and only that: the buffer
// (pools, PG and queue profiles, the lossy classes' PGs), which an EOS
// config cannot carry, so labctl assumes a platform's (eos/buffer.go) where
// SONiC's config gives the pools labctl renders; an EOS round-robin queue
// above a strict one, which EOS serves strictly (the render says so); and
// the MTU SONiC's rendered config leaves to its PORT table, and the ports'
// routed state, which it leaves to the startup config's INTERFACE table
// (EOS's render writes no switchport). mixed-classes'
// best effort (34.3 Gb/s on SONiC, 67.3 on EOS, 64gpu) differs by that
// buffer alone: a test that lets nothing else differ keeps it so.
func TestOneIntentMeansTheSameOnEveryNOS(t *testing.T) {
	load := func(nos string) []qos.DeviceConfig {
		l := catalogLab(t, "64gpu", nos)
		if _, _, err := RenderLab(l); err != nil {
			t.Fatal(err)
		}
		cfgs, err := LoadConfigs(l)
		if err != nil {
			t.Fatal(err)
		}
		return cfgs
	}
	sonic, eos := load("sonic"), load("eos")
	if how := qos.AlignPorts(sonic, eos); how == "" {
		t.Fatal("EOS ports not matched with SONiC's")
	}
	platform := []*regexp.Regexp{
		regexp.MustCompile(`^pool\.`),
		regexp.MustCompile(`^pg\.[0-7]\.`),
		regexp.MustCompile(`^queue\.[0-7]\.buffer\.`),
		regexp.MustCompile(`^mtu$`),
		regexp.MustCompile(`^routed$`),
	}
	var lossless [qos.NumTC]bool
	for _, d := range sonic {
		for _, p := range d.Ports {
			for _, pr := range p.PFCPriorities {
				lossless[pr] = true
			}
		}
	}
	tcToPG := regexp.MustCompile(`^tc_to_pg\.([0-7])$`)
	allowed := func(d qos.Difference) bool {
		for _, re := range platform {
			if re.MatchString(d.Field) {
				return true
			}
		}
		// A lossy class's PG: SONiC's map gives every lossy class PG 0,
		// the EOS platform PG n to class n; both admit it as lossy.
		if m := tcToPG.FindStringSubmatch(d.Field); m != nil {
			return !lossless[m[1][0]-'0']
		}
		// EOS serves a round-robin queue above a strict one strictly.
		return d.Field == "queue.7.scheduler" && strings.HasPrefix(d.A, "weight") && d.B == "strict"
	}
	n := 0
	for _, d := range qos.Diff(sonic, eos) {
		n++
		if !allowed(d) {
			t.Errorf("SONiC and EOS differ where the intent decides: %s", d)
		}
	}
	if n == 0 {
		t.Error("no difference at all: the EOS platform buffer is not applied")
	}
}
