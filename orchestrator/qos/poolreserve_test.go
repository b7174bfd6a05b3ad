package qos

import (
	"strings"
	"testing"
)

// A pool below the reserves drawn on it and below a frame for each of
// them is QOS028: an error where it holds the CNPs' queue (the intent's
// egress_lossy_pool), a warning where only a best-effort queue draws on
// it; above a frame each, a note; nothing once it is larger.
func TestLintPoolBelowReserves(t *testing.T) {
	in, cfgs := lintBase(t)
	d := &cfgs[0]
	d.Pool(EgressLossyPool).SizeBytes = 10000
	fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RulePoolReserves)
	if len(fs) != 1 || fs[0].Severity != SevError || fs[0].Device != d.Device || fs[0].Where != "BUFFER_POOL|"+EgressLossyPool ||
		!strings.Contains(fs[0].Message, "TC6 (queue 6)") || fs[0].Fix == "" {
		t.Fatalf("the CNPs' pool shrunk: %+v, want one error naming the pool and the CNPs' TC6", fs)
	}
	// Only queue 1 (best effort's TC1, no RoCE class) on a pool of its own.
	d.Pool(EgressLossyPool).SizeBytes = 20 << 20
	d.Pools = append(d.Pools, PoolConfig{Name: "bulk_pool", Type: "egress", Mode: "dynamic", SizeBytes: 1000})
	for i := range d.Ports {
		if q := d.Ports[i].Queue(1); q != nil && q.Buffer != nil {
			q.Buffer = Ptr(q.Buffer.Clone())
			q.Buffer.Pool = "bulk_pool"
		}
	}
	fs = findings(Lint(cfgs, LintOptions{Intent: &in}), RulePoolReserves)
	if len(fs) != 1 || fs[0].Severity != SevWarning || fs[0].Where != "BUFFER_POOL|bulk_pool" {
		t.Fatalf("a best-effort queue's pool shrunk: %+v, want one warning", fs)
	}
	// Below its reserves but above a frame for each queue: as SONiC sizes
	// Mellanox pools (the memory less every reserve, so a stock SN2410
	// config reserves 6 MB on a 3.3 MB pool), it is as sized; where SAI
	// takes the reserves out, nothing is left. A note naming both, no
	// warning.
	frames := int64(0)
	for i := range d.Ports {
		if q := d.Ports[i].Queue(1); q != nil && q.Buffer != nil && q.Buffer.Pool == "bulk_pool" {
			frames += int64(max(d.Ports[i].EnforcedMTU(), roceMaxMTU))
		}
	}
	for i := range d.Ports {
		if q := d.Ports[i].Queue(1); q != nil && q.Buffer != nil {
			q.Buffer.SizeBytes = Ptr(frames)
		}
	}
	d.Pool("bulk_pool").SizeBytes = frames
	fs = findings(Lint(cfgs, LintOptions{Intent: &in}), RulePoolReserves)
	if len(fs) != 1 || fs[0].Severity != SevInfo || !strings.Contains(fs[0].Message, "Mellanox") {
		t.Fatalf("a pool below its reserves but above a frame a queue (%d bytes): %+v, want one note naming both readings", frames, fs)
	}
	d.Pool("bulk_pool").SizeBytes = 1 << 40
	if fs := findings(Lint(cfgs, LintOptions{Intent: &in}), RulePoolReserves); len(fs) != 0 {
		t.Errorf("pools above their reserves: %+v", fs)
	}
}
