package sim

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// A queue whose ECN Kmin is above its Kmax (EOS's random-detect ecn with
// the thresholds swapped, as a user edits them; lint's QOS004) is refused
// before the simulation, naming the switch, the port, the queue, the line
// that sets it and the fix. The simulator refused it from inside, by its
// own port name, without the file or line.
func TestECNKminAboveKmaxRefusedAtItsLine(t *testing.T) {
	l := upLab(t, "16gpu", "eos")
	path := filepath.Join(l.ConfigsDir(), "leaf1.cfg")
	editFile(t, path, regexp.MustCompile(`minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes`), "minimum-threshold 9000 kbytes maximum-threshold 100 kbytes")
	cfgs, err := runtime.LoadConfigs(l)
	if err != nil {
		t.Fatal(err)
	}
	vs := incast8(t, l, "duration: 100us", true, true)
	runtime.ApplyVariant(cfgs, vs.ECN, vs.PFC)
	in, _ := l.Intent()
	b, err := newBuilder(l, cfgs, in)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.config(vs)
	if err == nil || exitcode.Code(err) != exitcode.BadInput {
		t.Fatalf("config: %v, want it refused as bad input", err)
	}
	for _, want := range []string{"leaf1", "queue 3", "9216000", "102400", path + ":", "fix:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not name %q", err, want)
		}
	}
}
