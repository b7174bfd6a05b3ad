package scenario

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/exitcode"
)

// A ring-allreduce buffer smaller than its ranks would leave chunks
// empty (a ring cuts the buffer into one chunk a rank, sizes adding up to
// it), which no step can carry: it is refused before anything runs, at
// its bytes (or the matrix key that swept them), with the least that
// works. A buffer of one byte a rank runs.
func TestRingAllReduceBytesBelowRanksRefused(t *testing.T) {
	const base = "name: x\nmatrix:\n  ecn: [on]\n  pfc: [on]\n%straffic:\n  - pattern: ring-allreduce\n    ranks: 16\n%s"
	for _, c := range []struct{ matrix, entry, at string }{
		{"", "    bytes: 15\n", "t.yaml:8:12"},
		{"  traffic[0].bytes: [1MiB, 8]\n", "", "t.yaml:5:3"},
	} {
		s := mustParse(t, fmt.Sprintf(base, c.matrix, c.entry))
		rt := &fakeRuntime{}
		var saves []string
		_, err := runOnce(t, s, rt, context.Background(), 1, &saves)
		if err == nil || exitcode.Code(err) != exitcode.BadInput || !strings.Contains(err.Error(), c.at) ||
			!strings.Contains(err.Error(), "over 16 ranks") || !strings.Contains(err.Error(), "fix: raise bytes to 16 B or more") {
			t.Errorf("%q %q: got %v", c.matrix, c.entry, err)
		}
		if rt.calls != 0 || len(saves) != 0 {
			t.Errorf("%q %q: %d variants ran and %v were saved before the refusal: want none", c.matrix, c.entry, rt.calls, saves)
		}
	}
	if _, err := runOnce(t, mustParse(t, fmt.Sprintf(base, "", "    bytes: 16\n")), &fakeRuntime{}, context.Background(), 1, nil); err != nil {
		t.Errorf("16 B over 16 ranks: %v", err)
	}
}
