package sim

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/labctl/labctl/orchestrator/runtime"
	"github.com/labctl/labctl/orchestrator/transport"
)

// An 8:1 incast of 4 MiB messages on the 64gpu catalog lab with PFC off
// and UET on the NICs. As rendered, the leaves' 20 MB pools hold NSCC's
// windows (1.5 BDP each) with room to spare, and the incast completes
// without a trim; with the pools cut to 400 kB in the vendor configs it
// completes by trimming and NACK-driven retransmission. Either way every
// flow completes, nothing is dropped, no PAUSE is sent, DCQCN sends no
// CNP, and the receiver runs near line rate; the record carries the UET
// figures and per-port trims.
func TestUETIncastOn64gpu(t *testing.T) {
	l := upLab(t, "64gpu", "sonic")
	vs := incast8With(t, l, "duration: 20ms", "    bytes: 4MiB\n", true, false)
	uetIncastChecks(t, l, vs, false)
	for _, leaf := range []string{"leaf1.json", "leaf2.json"} {
		editFile(t, filepath.Join(l.ConfigsDir(), leaf), regexp.MustCompile(`"size": "(20627456|23935296)"`), `"size": "400000"`)
	}
	uetIncastChecks(t, l, vs, true)
}

func uetIncastChecks(t *testing.T, l *runtime.Lab, vs runtime.VariantSpec, trims bool) {
	t.Helper()
	st, err := transport.ResolveUET()
	if err != nil {
		t.Fatal(err)
	}
	vs.Transport = transport.Settings{Name: transport.UET, UET: &st}
	v := runVariant(t, l, vs)
	sum := v.Summary
	u := sum.UET
	if u == nil {
		t.Fatal("no uet section in the summary")
	}
	t.Logf("completion %v µs, aggregate %v Gb/s; trimmed %d, NACKs %d, retransmits NACK %d SACK %d RTO %d; drops %d, marks %d, pauses %d, CNPs %d; entropies %.1f, paths %v",
		deref(sum.CompletionUs), deref(sum.GoodputGbpsAggregate), u.Trimmed, u.NACKs, u.NACKRetransmits, u.SACKRetransmits, u.RTORetransmits,
		sum.Drops, sum.ECNMarked, sum.PFCPauseFrames, sum.CNP, u.MeanEntropies, deref(u.MeanPaths))
	if sum.CompletionUs == nil || sum.FailedFlows != 0 {
		t.Fatalf("the incast did not complete (%d flows failed)", sum.FailedFlows)
	}
	if trims != (u.Trimmed > 0 && u.NACKRetransmits > 0) {
		t.Errorf("trimmed %d, NACK retransmits %d: want trims %v", u.Trimmed, u.NACKRetransmits, trims)
	}
	if sum.Drops != 0 || sum.PFCPauseFrames != 0 || sum.CNP != 0 {
		t.Errorf("drops %d, pause frames %d, CNPs %d: want none with UET, PFC off", sum.Drops, sum.PFCPauseFrames, sum.CNP)
	}
	line := 200 * 4096.0 / (4096 + 82) // the receiver's NIC, MTU 4096
	if g := *sum.GoodputGbpsAggregate; g < 0.9*line {
		t.Errorf("aggregate goodput %.1f Gb/s, want at least 90%% of the receiver's line goodput %.1f", g, line)
	}
	var ports int64
	for _, c := range v.Counters {
		if c.Trimmed != nil {
			ports += *c.Trimmed
		}
	}
	if ports != u.Trimmed {
		t.Errorf("per-port trims add up to %d, the summary says %d", ports, u.Trimmed)
	}
	// RoCE's record has no UET figures.
	vs.Transport = transport.Settings{}
	if r := runVariant(t, l, vs); r.Summary.UET != nil || r.Counters[0].Trimmed != nil {
		t.Error("a RoCE variant's record has UET figures")
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
